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
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { serve, launch, openPage, root, dist } from '../tests/e2e/lib.mjs';

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
const named = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-prof-'));
fs.cpSync(dist, named, { recursive: true });
const bindgen = path.join(named, '.bindgen');
const wasmOpt = [path.join(root, 'tools/node_modules/.bin/wasm-opt'), 'wasm-opt'].find((p) => p === 'wasm-opt' || fs.existsSync(p));
const html = fs.readFileSync(path.join(root, 'index.html'), 'utf8');
const params = (html.match(/data-bin="worker"[^>]*data-wasm-opt-params="([^"]*)"/) || [, ''])[1].split(/\s+/).filter(Boolean);
execFileSync('wasm-bindgen', ['--target=no-modules', `--out-dir=${bindgen}`, '--out-name=worker', '--keep-debug', '--no-typescript',
  path.join(root, 'target/wasm32-unknown-unknown/release/worker.wasm')], { stdio: 'inherit' });
execFileSync(wasmOpt, ['-Oz', '-g', ...params, `--output=${path.join(named, 'worker_bg.wasm')}`, path.join(bindgen, 'worker_bg.wasm')], { stdio: 'inherit' });
fs.copyFileSync(path.join(bindgen, 'worker.js'), path.join(named, 'worker.js'));

const bytes = fs.readFileSync(file);
const srv = await serve(named);
const browser = await launch();
try {
  const { page, context } = await openPage(browser);
  await page.route('**/bench-input', (r) => r.fulfill({ body: bytes, contentType: 'application/octet-stream' }));
  await page.addInitScript(() => localStorage.setItem('evalboard.demo-dismissed', '1'));
  await page.goto(srv.url + 'index.html');
  await page.waitForTimeout(1000);
  // The page's CDP session auto-attaches to the workers it starts; messages to a worker go
  // through Target.sendMessageToTarget (non-flat sessions).
  const cdp = await context.newCDPSession(page);
  const attached = [];
  const pending = new Map();
  let id = 0;
  cdp.on('Target.attachedToTarget', (e) => attached.push(e));
  cdp.on('Target.receivedMessageFromTarget', (e) => {
    const m = JSON.parse(e.message);
    if (pending.has(m.id)) { pending.get(m.id)(m); pending.delete(m.id); }
  });
  const send = (sessionId, method, params = {}) => new Promise((resolve) => {
    pending.set(++id, resolve);
    cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) });
  });
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
  const before = attached.length;
  // A fresh worker, up to its Ready (Response variant 0).
  await page.evaluate(() => new Promise((resolve) => {
    const w = new Worker('./worker_loader.js');
    window.__ebWorker = w;
    w.addEventListener('message', function h(e) {
      if (new Uint8Array(e.data)[0] === 0) { w.removeEventListener('message', h); resolve(); }
    });
  }));
  const worker = attached.slice(before).filter((t) => t.targetInfo.type === 'worker').pop();
  if (!worker) throw new Error('the worker did not attach');
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
  await send(worker.sessionId, 'Profiler.enable');
  await send(worker.sessionId, 'Profiler.setSamplingInterval', { interval });
  await send(worker.sessionId, 'Profiler.start');
  const res = await load(false);
  const { result } = await send(worker.sessionId, 'Profiler.stop');
  const prof = result.profile;
  if (outFile) fs.writeFileSync(outFile, JSON.stringify(prof));

  // Self and inclusive time per function name (a sample's time is the gap to the next one).
  const nodes = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const dt = [...prof.timeDeltas.slice(1), 0];
  const self = new Map();
  const incl = new Map();
  const add = (m, k, v) => m.set(k, (m.get(k) || 0) + v);
  let total = 0;
  prof.samples.forEach((s, i) => {
    const name = (n) => n.callFrame.functionName || `(anonymous ${n.callFrame.url.split('/').pop()})`;
    add(self, name(nodes.get(s)), dt[i]);
    if (name(nodes.get(s)) !== '(idle)') total += dt[i];
    const seen = new Set();
    for (let n = s; nodes.has(n); n = parent.get(n)) {
      const f = name(nodes.get(n));
      if (!seen.has(f)) { seen.add(f); add(incl, f, dt[i]); }
    }
  });
  const top = (m, k) => [...m].filter(([f]) => f !== '(idle)' && f !== '(root)').sort((a, b) => b[1] - a[1]).slice(0, k);
  console.log(`${res.kind} in ${res.ms.toFixed(0)} ms (wall, profiler on); ${(total / 1000).toFixed(0)} ms sampled off idle`);
  console.log('-- self time');
  for (const [f, us] of top(self, 30)) console.log(`${(us / 1000).toFixed(1).padStart(8)} ms  ${f.slice(0, 140)}`);
  console.log('-- inclusive time');
  for (const [f, us] of top(incl, 30)) console.log(`${(us / 1000).toFixed(1).padStart(8)} ms  ${f.slice(0, 140)}`);
} finally {
  await browser.close();
  srv.close();
  fs.rmSync(named, { recursive: true, force: true });
}
