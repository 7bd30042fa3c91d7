// Issue 17.9: a folder of many files picked in the dashboard against the bare-page floor, side by
// side in ONE headless Chromium, in interleaved rounds (this machine's speed drifts minute to
// minute: a ratio of two runs taken minutes apart says more about the minutes than the code).
//
// Usage: node bench/folder_load.mjs FOLDER [ROUNDS (default 3)] [--modes=app,main32,...] [--before=DIST]
//
// Every measurement picks FOLDER through an `<input type=file webkitdirectory>` with Playwright's
// setInputFiles (the browser lists the folder and makes the `File`s itself, as a user's pick),
// in a fresh browser context (no OPFS copy of an earlier round, no demo workspace):
//   app      the dashboard (dist/): the sidebar's folder input, until the run's
//            `[data-metric="numerical_accuracy"]` card is on screen; the worker's RunInfo
//            (load_ms, stage_ms) is read off its Loaded message.
//   mainN    a bare page on the same server (bench-floor.html) whose folder input only reads every
//            file's bytes, N `arrayBuffer()` in flight, on the page's thread (N = 32, 64, 128).
//   worker32 the same bare read in a Worker, the `File`s posted to it in one message (as the
//            dashboard posts them), 32 in flight.
// Each mode's time is taken in the page from the input's `change` event to the end (`ms`), and
// in node from the setInputFiles call to the end (`wall_ms`, which adds the browser listing the
// folder). The folder is read once (cat) before every measurement, so each starts from a warm
// page cache: this machine's cache loses the folder within seconds.
//
// One JSON line per measurement, then one summary line: medians per mode, and app / floor.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { serve, launch, openPage, dist } from '../tests/e2e/lib.mjs';
import { median, interleaved } from './lib.mjs';

const args = process.argv.slice(2);
const modesArg = args.find((a) => a.startsWith('--modes='));
const [folder, roundsArg] = args.filter((a) => !a.startsWith('--'));
if (!folder || !fs.existsSync(folder)) {
  console.error('usage: node bench/folder_load.mjs FOLDER [ROUNDS] [--modes=app,main32,...] [--before=DIST]');
  process.exit(2);
}
const rounds = Math.max(1, Number(roundsArg) || 3);
const MODES = modesArg ? modesArg.slice('--modes='.length).split(',') : ['app', 'main32', 'worker32', 'main64', 'main128'];
const TIMEOUT = 180000;

// The floor's reader: every file's bytes, `n` arrayBuffer() in flight. One function, written
// into the bare page and into its worker.
async function readAll(files, n) {
  let next = 0, bytes = 0;
  const lane = async () => {
    while (next < files.length) {
      const f = files[next++];
      const buf = await f.arrayBuffer();
      bytes += buf.byteLength;
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, files.length) }, lane));
  return bytes;
}

// The bare page: a folder input; on change, every file's bytes read with N in flight, on this
// thread or in a worker started before the pick (the dashboard's worker is running before a
// pick too).
const FLOOR_HTML = `<!doctype html><meta charset=utf-8><title>bench floor</title>
<input type=file webkitdirectory multiple id=pick>
<script>
${readAll}
window.benchSetup = (mode, inflight) => {
  window.benchDone = null;
  const w = mode === 'worker' ? new Worker('./bench-floor-worker.js') : null;
  document.getElementById('pick').addEventListener('change', async (ev) => {
    const t0 = performance.now();
    const files = Array.from(ev.target.files);
    let bytes;
    if (w) {
      bytes = await new Promise((resolve) => {
        w.onmessage = (e) => resolve(e.data);
        w.postMessage({ files, inflight });
      });
    } else {
      bytes = await readAll(files, inflight);
    }
    window.benchDone = { ms: performance.now() - t0, files: files.length, bytes };
  }, { once: true });
  return w ? new Promise((r) => { w.onmessage = () => r(true); w.postMessage('ping'); }) : true;
};
</script>`;
const FLOOR_WORKER = `
${readAll}
onmessage = async (e) => {
  if (e.data === 'ping') { postMessage('pong'); return; }
  postMessage(await readAll(e.data.files, e.data.inflight));
};`;

// The dashboard, watched from inside: the `change` event (capture, before the app's handler),
// the Load posted to the worker, the worker's Loaded (its RunInfo prefix decoded as
// bench/wasm.mjs does: postcard, Response::Loaded is variant 2), and the metric card appearing.
function appProbe() {
  const T = (window.__bench = { loaded: null, seen: {} });
  document.addEventListener('change', () => { T.change = performance.now(); }, true);
  const dec = new TextDecoder();
  const reader = (bytes) => {
    let i = 0;
    const r = {
      varint: () => { let n = 0; let m = 1; for (;;) { const b = bytes[i++]; n += (b & 127) * m; m *= 128; if (b < 128) return n; } },
      str: () => { const n = r.varint(); const s = dec.decode(bytes.subarray(i, i + n)); i += n; return s; },
      bool: () => bytes[i++] === 1,
      f64: () => { const v = new DataView(bytes.buffer, bytes.byteOffset + i, 8).getFloat64(0, true); i += 8; return v; },
      opt: (f) => (bytes[i++] ? f() : null),
      vec: (f) => Array.from({ length: r.varint() }, f),
    };
    return r;
  };
  const decodeLoaded = (bytes) => {
    const r = reader(bytes);
    r.varint();
    const info = { run_id: r.varint(), name: r.str(), demo: r.bool(), family: r.varint(), n_conversations: r.varint(), n_turns: r.varint() };
    info.files = r.vec(() => [r.str(), r.varint(), r.opt(r.str), r.varint(), r.opt(r.str)]).length;
    r.vec(() => [r.varint(), r.str(), r.opt(r.varint), r.opt(r.str), r.str()]);
    info.headline = r.opt(r.f64);
    info.load_ms = r.f64();
    info.wasm_memory_bytes = r.opt(r.varint);
    info.stage_ms = Object.fromEntries(r.vec(() => [r.str(), r.f64()]));
    return info;
  };
  const Base = window.Worker;
  window.Worker = class extends Base {
    constructor(...a) {
      super(...a);
      this.addEventListener('message', (e) => {
        const d = e.data;
        if (T.posted !== undefined && T.firstReading === undefined && d instanceof Uint8Array && d[0] === 13) T.firstReading = performance.now();
        if (T.posted !== undefined && d instanceof Uint8Array) {
          // When each kind of message came (first, last): Reading (13) and Progress by stage.
          let k = String(d[0]);
          if (d[0] === 1) { const r = reader(d); r.varint(); r.varint(); k = 'progress:' + r.str(); }
          const t = Math.round(performance.now() - T.change);
          T.seen[k] = T.seen[k] ? [T.seen[k][0], t] : [t, t];
        }
        if (!T.loaded && d instanceof Uint8Array && d[0] === 2) {
          T.loadedAt = performance.now();
          try { T.loaded = decodeLoaded(d); } catch (err) { T.loaded = { error: String(err) }; }
        }
      });
    }
    postMessage(msg, ...rest) {
      const load = Array.isArray(msg) && Array.isArray(msg[1]) && msg[1].length > 100;
      if (load) T.posted = performance.now();
      const r = super.postMessage(msg, ...rest);
      if (load) T.postReturned = performance.now();
      return r;
    }
  };
  // The page's own long tasks (≥ 50 ms on its thread), to tell its work from waiting.
  T.long = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) T.long.push([Math.round(e.startTime), Math.round(e.duration)]); })
    .observe({ type: 'longtask', buffered: true });
  new MutationObserver(() => {
    if (T.numbers === undefined && document.querySelector('[data-metric="numerical_accuracy"]')) {
      T.numbers = performance.now();
    }
  }).observe(document, { childList: true, subtree: true });
}

const warm = () => execFileSync('sh', ['-c', 'find "$1" -type f -exec cat {} + >/dev/null', 'sh', folder]);

async function measureApp(browser, srv, mode = 'app') {
  const { context, page } = await openPage(browser);
  try {
    await page.addInitScript(() => localStorage.setItem('evalboard.demo-dismissed', '1'));
    await page.addInitScript(appProbe);
    await page.goto(srv.url + 'index.html');
    await page.waitForSelector('.eb-sidebar .eb-pick__folder', { state: 'attached' });
    // As wasm.mjs: a second for the worker's start and warm-up, as a user's pick comes later.
    await page.waitForTimeout(1000);
    warm();
    const t0 = Date.now();
    await page.setInputFiles('.eb-sidebar .eb-pick__folder', folder);
    const tSet = Date.now() - t0;
    await page.waitForFunction(() => window.__bench.numbers !== undefined && window.__bench.loaded, null, { timeout: TIMEOUT, polling: 50 });
    const wall = Date.now() - t0;
    const T = await page.evaluate(() => window.__bench);
    const L = T.loaded || {};
    return {
      mode, ms: T.numbers - T.change, wall_ms: wall, set_input_files_ms: tSet,
      // change → the Load posted (the page collecting the Files and planning the run),
      // the worker's load (read, hash, parse, score), and Loaded → the card on screen.
      page_to_post_ms: T.posted - T.change, worker_load_ms: L.load_ms,
      loaded_to_numbers_ms: T.numbers - T.loadedAt, loaded_at_ms: T.loadedAt - T.change,
      // What is neither the page's posting nor the worker's load: the message carrying 28k
      // Files across, and the Loaded message (RunInfo with a report per file) coming back.
      messages_ms: T.loadedAt - T.posted - L.load_ms,
      // The Load posted → the worker's first `Reading` progress (≥ 50 ms into its read).
      post_to_first_reading_ms: T.firstReading - T.posted,
      // The page's long tasks after the pick: their total, and the longest ones (start from the
      // change event, duration), ms.
      post_call_ms: T.postReturned - T.posted, seen: T.seen,
      page_busy_ms: Math.round(T.long.filter(([t]) => t >= T.change - 1).reduce((a, [, d]) => a + d, 0)),
      page_long_tasks: T.long.filter(([t]) => t >= T.change - 1).sort((x, y) => y[1] - x[1]).slice(0, 5).map(([t, d]) => [Math.round(t - T.change), d]),
      stage_ms: L.stage_ms, files: L.files, turns: L.n_turns, wasm_memory_bytes: L.wasm_memory_bytes,
    };
  } finally {
    await context.close();
  }
}

async function measureFloor(browser, srv, mode, inflight) {
  const { context, page } = await openPage(browser);
  try {
    await page.route('**/bench-floor.html', (r) => r.fulfill({ body: FLOOR_HTML, contentType: 'text/html' }));
    await page.route('**/bench-floor-worker.js', (r) => r.fulfill({ body: FLOOR_WORKER, contentType: 'text/javascript' }));
    await page.goto(srv.url + 'bench-floor.html');
    await page.evaluate(([m, n]) => window.benchSetup(m, n), [mode, inflight]);
    warm();
    const t0 = Date.now();
    await page.setInputFiles('#pick', folder);
    const tSet = Date.now() - t0;
    await page.waitForFunction(() => window.benchDone, null, { timeout: TIMEOUT, polling: 50 });
    const wall = Date.now() - t0;
    const d = await page.evaluate(() => window.benchDone);
    return { mode: `${mode}${inflight}`, ms: d.ms, wall_ms: wall, set_input_files_ms: tSet, files: d.files, bytes: d.bytes };
  } finally {
    await context.close();
  }
}

if (MODES.includes('app') && !fs.existsSync(path.join(dist, 'index.html'))) {
  console.error('dist/ missing: build it first (trunk build --release)');
  process.exit(2);
}
const srv = await serve();
// --before=DIR: another build of the dashboard (an earlier dist/), measured as mode `before` in
// the same rounds, for a change's before and after side by side.
const beforeArg = args.find((a) => a.startsWith('--before='));
const srvBefore = beforeArg ? await serve(path.resolve(beforeArg.slice('--before='.length)) + path.sep) : null;
if (srvBefore && !MODES.includes('before')) MODES.unshift('before');
const browser = await launch();
let rows;
try {
  rows = await interleaved(rounds, MODES, (m) => (m === 'app' || m === 'before'
    ? measureApp(browser, m === 'before' ? srvBefore : srv, m)
    : measureFloor(browser, srv, m.replace(/\d+$/, ''), Number(m.match(/\d+$/)[0]))));
} finally {
  await browser.close();
  srv.close();
  srvBefore?.close();
}
const by = {};
for (const m of MODES) {
  const rs = rows.filter((x) => x.mode === m);
  by[m] = { ms: median(rs.map((x) => x.ms)), wall_ms: median(rs.map((x) => x.wall_ms)), range_ms: [Math.min(...rs.map((x) => x.ms)), Math.max(...rs.map((x) => x.ms))] };
  if (m === 'app' || m === 'before') {
    for (const k of ['page_to_post_ms', 'worker_load_ms', 'messages_ms', 'loaded_to_numbers_ms']) by[m][k] = median(rs.map((x) => x[k]));
    by[m].stage_ms = Object.fromEntries(Object.keys(rs[0].stage_ms || {}).map((s) => [s, median(rs.map((x) => x.stage_ms[s]))]));
  }
}
const summary = { summary: true, folder, rounds, files: rows.find((x) => x.files)?.files, modes: by };
if (by.app && by.main32) {
  // Round by round (the two are a minute apart), then median over rounds.
  const ratios = [];
  for (let r = 1; r <= rounds; r++) {
    const a = rows.find((x) => x.round === r && x.mode === 'app');
    const f = rows.find((x) => x.round === r && x.mode === 'main32');
    if (a && f) ratios.push({ ms: a.ms / f.ms, wall: a.wall_ms / f.wall_ms });
  }
  summary.app_over_floor = median(ratios.map((x) => x.ms));
  summary.app_over_floor_range = [Math.min(...ratios.map((x) => x.ms)), Math.max(...ratios.map((x) => x.ms))];
  summary.app_over_floor_wall = median(ratios.map((x) => x.wall));
}
if (by.before && by.app) summary.app_over_before = by.app.ms / by.before.ms;
console.log(JSON.stringify(summary));
