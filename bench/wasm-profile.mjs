// CPU profile of one Load in the dashboard's worker (headless Chromium, V8's sampling profiler
// through CDP, attached to the worker target): where the wasm engine spends its time, by function.
// Usage: node bench/wasm-profile.mjs RUN.jsonl [--preloads N] [--interval US] [--out FILE]
//
// The worker of dist/ is rebuilt with its function names into a temporary copy of dist/ (from
// target/wasm32-unknown-unknown/release/worker.wasm, which `make dist` leaves; wasm-bindgen
// --keep-debug, then wasm-opt with the flags index.html gives it, plus -g). `--preloads N` loads
// the file N times into the same worker first (removing it each time), so the profiled load runs
// on memory the worker has already touched: fresh wasm memory costs a page fault per 4 KB, which
// the profile charges to whatever function touched the page first (mostly the allocator).
// Prints the functions with the most self time and the most inclusive time; --out keeps the
// .cpuprofile (Chromium DevTools opens it).
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, openPage } from '../tests/e2e/lib.mjs';
import { namedWorkerDist, workerSessions, printProfile } from './lib.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const preloads = Number(opt('--preloads', 0));
const interval = Number(opt('--interval', 100));
const outFile = opt('--out', null);
const [file] = args;
if (!file) throw new Error('usage: node bench/wasm-profile.mjs RUN.jsonl [--preloads N] [--interval US] [--out FILE]');

// dist/ with a worker that keeps its names.
const named = namedWorkerDist();

const bytes = fs.readFileSync(file);
const srv = await serve(named);
const browser = await launch();
try {
  const { page, context } = await openPage(browser);
  await page.route('**/bench-input', (r) => r.fulfill({ body: bytes, contentType: 'application/octet-stream' }));
  await page.addInitScript(() => localStorage.setItem('evalboard.demo-dismissed', '1'));
  await page.goto(srv.url + 'index.html');
  await page.waitForTimeout(1000);
  const sessions = await workerSessions(context, page);
  const before = sessions.count();
  // A fresh worker, up to its Ready (Response variant 0).
  await page.evaluate(() => new Promise((resolve) => {
    const w = new Worker('./worker_loader.js');
    window.__ebWorker = w;
    w.addEventListener('message', function h(e) {
      if (new Uint8Array(e.data)[0] === 0) { w.removeEventListener('message', h); resolve(); }
    });
  }));
  if (sessions.count() === before) throw new Error('the worker did not attach');
  const send = (method, params) => sessions.send(method, params);
  // One Load (Request variant 0, postcard) of the file; resolves on Loaded/LoadFailed, then
  // removes the run (Request::Remove, variant 2) when `remove`.
  const load = (remove) => page.evaluate(async ({ name, remove }) => {
    const enc = new TextEncoder();
    const out = [];
    const varint = (n) => { do { const b = n % 128; n = Math.floor(n / 128); out.push(n ? b | 128 : b); } while (n); };
    const str = (s) => { const b = enc.encode(s); varint(b.length); out.push(...b); };
    varint(0); varint(1); str(name); varint(1); str(name); out.push(0, 0);
    const buf = await (await fetch('./bench-input')).arrayBuffer();
    const w = window.__ebWorker;
    const t0 = performance.now();
    const kind = await new Promise((resolve) => {
      w.addEventListener('message', function h(e) {
        const t = new Uint8Array(e.data)[0];
        if (t === 2 || t === 3) { w.removeEventListener('message', h); resolve(t === 2 ? 'loaded' : 'load_failed'); }
      });
      w.postMessage([new Uint8Array(out), [buf]], [buf]);
    });
    const ms = performance.now() - t0;
    if (remove) w.postMessage(new Uint8Array([2, 1]));
    return { kind, ms };
  }, { name: path.basename(file), remove });
  for (let k = 0; k < preloads; k++) await load(true);
  // Remove has no answer: give the worker time to drop the last preload's run first.
  if (preloads) await page.waitForTimeout(500);
  await send('Profiler.enable');
  await send('Profiler.setSamplingInterval', { interval });
  await send('Profiler.start');
  const res = await load(false);
  const { result } = await send('Profiler.stop');
  const prof = result.profile;
  if (outFile) fs.writeFileSync(outFile, JSON.stringify(prof));

  console.log(`${res.kind} in ${res.ms.toFixed(0)} ms (wall, profiler on)`);
  printProfile(prof);
} finally {
  await browser.close();
  srv.close();
  fs.rmSync(named, { recursive: true, force: true });
}
