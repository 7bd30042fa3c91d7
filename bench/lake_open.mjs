// Issue 27.5: a results lake of 1,000 runs dropped on the dashboard lists its runs and headlines
// within 2 s of the drop, read from `runs` and `aggregates` (the lake worker; samples and verdicts
// are not read until a run is opened). Measured against a bare page that reads the same `runs`
// and `aggregates` files (`File.arrayBuffer()` of each: the floor of any reader).
//
// Usage: node bench/lake_open.mjs EVALBOARD_BENCH EVALBOARD OUT_DIR [ROUNDS (default 3)]
//
// The lake: 1,000 numeric QA JSONL runs of 50 turns (`evalboard-bench gen jsonl-seed-K`, K =
// 1..1000, so each run is its own content), exported by `evalboard export --lake`. Each round
// opens a fresh page of the built dist/, drops the whole lake folder (its files made in the page
// from bytes sent once), and times from the drop to the 1,000th run listed with its headline
// (polled each animation frame); the bare page reads the two files in the same page before the
// drop. Rounds interleave the two. stdout: one JSON line.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, serve, root } from '../tests/e2e/lib.mjs';
import { median } from './lib.mjs';

const [bench, evalboard, outArg, roundsArg] = process.argv.slice(2);
if (!bench || !evalboard || !outArg) {
  console.error('usage: node bench/lake_open.mjs EVALBOARD_BENCH EVALBOARD OUT_DIR [ROUNDS]');
  process.exit(2);
}
const N_RUNS = 1000;
const rounds = Math.max(1, Number(roundsArg) || 3);
const out = path.resolve(outArg);
const runsDir = path.join(out, 'lake-runs');
const lake = path.join(out, 'lake1000');
if (!fs.existsSync(path.join(lake, 'evalboard-lake.json'))) {
  fs.mkdirSync(runsDir, { recursive: true });
  const files = [];
  for (let k = 1; k <= N_RUNS; k++) {
    const f = path.join(runsDir, `run-${String(k).padStart(4, '0')}.jsonl`);
    if (!fs.existsSync(f)) execFileSync(bench, ['gen', `jsonl-seed-${k}`, '50', f]);
    files.push(f);
  }
  fs.rmSync(lake, { recursive: true, force: true });
  execFileSync(evalboard, ['export', '--lake', lake, ...files], { stdio: ['ignore', 'ignore', 'inherit'] });
}

// The lake's files as the drop carries them: `lake1000/<path>`.
const payload = [];
const walk = (d, rel) => {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const full = path.join(d, e.name);
    if (e.isDirectory()) walk(full, `${rel}/${e.name}`);
    else payload.push({ path: `${rel}/${e.name}`, b64: fs.readFileSync(full).toString('base64') });
  }
};
walk(lake, 'lake1000');
const lakeBytes = payload.reduce((a, f) => a + Buffer.from(f.b64, 'base64').length, 0);

const srv = await serve(undefined, '/evalboard/');
const browser = await launch();
const times = { lake_ms: [], bare_ms: [] };
for (let r = 0; r < rounds; r++) {
  const page = await browser.newPage();
  await page.goto(srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 60000 });
  // The files, made in the page once (not timed).
  await page.evaluate((files) => {
    window.__lake = files.map((f) => {
      const bin = Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0));
      const file = new File([bin], f.path.split('/').pop());
      Object.defineProperty(file, 'webkitRelativePath', { value: f.path });
      return file;
    });
  }, payload);
  // The bare page: the runs and aggregates files read, nothing else.
  const bare = await page.evaluate(async () => {
    const want = window.__lake.filter((f) => /\/(runs|aggregates)\//.test(f.webkitRelativePath));
    const t0 = performance.now();
    await Promise.all(want.map((f) => f.arrayBuffer()));
    return performance.now() - t0;
  });
  times.bare_ms.push(bare);
  await page.evaluate(() => {
    const dt = new DataTransfer();
    for (const f of window.__lake) dt.items.add(f);
    const el = document.querySelector('.eb-app');
    window.__t0 = performance.now();
    for (const type of ['dragenter', 'dragover', 'drop']) {
      el.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  });
  await page.waitForFunction((n) => {
    const listed = document.querySelectorAll('.eb-run .eb-run__acc').length;
    if (listed >= n && window.__t1 === undefined) window.__t1 = performance.now();
    return window.__t1 !== undefined;
  }, N_RUNS + 3, { polling: 'raf', timeout: 120000 });
  times.lake_ms.push(await page.evaluate(() => window.__t1 - window.__t0));
  await page.close();
}
await browser.close();
srv.close();
const lakeMs = median(times.lake_ms);
console.log(JSON.stringify({
  bench: 'lake_open', runs: N_RUNS, lake_bytes: lakeBytes, rounds,
  lake_ms: Math.round(lakeMs), lake_ms_rounds: times.lake_ms.map(Math.round),
  bare_ms: Math.round(median(times.bare_ms)), bare_ms_rounds: times.bare_ms.map((x) => Math.round(x * 10) / 10),
  target_ms: 2000, ok: lakeMs <= 2000,
}));
console.error(`lake of ${N_RUNS} runs (${(lakeBytes / 1e6).toFixed(1)} MB): listed in ${Math.round(lakeMs)} ms (median of ${rounds}; target 2000 ms); `
  + `bare page reading runs + aggregates: ${median(times.bare_ms).toFixed(1)} ms`);
