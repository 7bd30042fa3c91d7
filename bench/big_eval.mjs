// Issue 16.8: a big Inspect `.eval` (bench/big_eval.py, 1 GB by default) picked in the dashboard,
// in headless Chromium, in interleaved rounds with a bare page that reads the same file's bytes.
//
// Usage: node bench/big_eval.mjs FILE.eval [ROUNDS (default 3)]
//
//   app    the dashboard (dist/): the sidebar's file input. Taken in the page from the input's
//          `change` event: the worker's first Loaded (the run from the log's summaries), the
//          Items tab's first sample row on screen (the tab is clicked as soon as it exists), and
//          the Rescored that replaces the run with every sample read (outputs, re-scoring).
//          The page's longest frame gap over the whole load (requestAnimationFrame) says whether
//          anything froze it.
//   floor  a bare page reading the file's bytes, 8 MB slices one after another (the worker reads
//          the samples in 8 MB windows): the time the bytes alone take to cross.
//
// One JSON line per measurement, then a summary line (medians).
import fs from 'node:fs';
import { serve, launch, openPage } from '../tests/e2e/lib.mjs';
import { median, interleaved } from './lib.mjs';

const [file, roundsArg] = process.argv.slice(2);
if (!file || !fs.existsSync(file)) {
  console.error('usage: node bench/big_eval.mjs FILE.eval [ROUNDS]');
  process.exit(2);
}
const rounds = Math.max(1, Number(roundsArg) || 3);
const TIMEOUT = 600000;

function appProbe() {
  const T = (window.__bench = { gaps: 0 });
  document.addEventListener('change', () => { T.change = performance.now(); }, true);
  let last = performance.now();
  const frame = (t) => {
    if (T.change !== undefined && T.full === undefined) T.gaps = Math.max(T.gaps, t - last);
    last = t;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  const Base = window.Worker;
  window.Worker = class extends Base {
    constructor(...a) {
      super(...a);
      this.addEventListener('message', (e) => {
        const d = e.data;
        if (T.change === undefined || !(d instanceof Uint8Array)) return;
        // postcard: Response::Loaded is variant 2, LoadFailed 3, Rescored 4.
        if (d[0] === 2 && T.loaded === undefined) T.loaded = performance.now();
        if (d[0] === 3) T.failed = performance.now();
        if (d[0] === 4 && T.loaded !== undefined && T.full === undefined) T.full = performance.now();
      });
    }
  };
  new MutationObserver(() => {
    const tab = document.querySelector('#eb-tab-items');
    if (T.loaded !== undefined && tab && !T.clicked) { T.clicked = true; tab.click(); }
    if (T.table === undefined && document.querySelector('.eb-grid--log .eb-grid__row')) T.table = performance.now();
  }).observe(document, { childList: true, subtree: true });
}

async function measureApp(browser, srv) {
  const { context, page } = await openPage(browser);
  try {
    await page.addInitScript(() => localStorage.setItem('evalboard.demo-dismissed', '1'));
    await page.addInitScript(appProbe);
    await page.goto(srv.url + 'index.html');
    await page.waitForSelector('.eb-sidebar .eb-pick__files', { state: 'attached' });
    await page.waitForTimeout(1000);
    await page.setInputFiles('.eb-sidebar .eb-pick__files', file);
    await page.waitForFunction(() => window.__bench.failed || (window.__bench.full && window.__bench.table), null, { timeout: TIMEOUT, polling: 50 });
    const T = await page.evaluate(() => window.__bench);
    if (T.failed) throw new Error('the load failed');
    const rows = await page.locator('.eb-items__count').innerText().catch(() => '');
    return {
      mode: 'app', loaded_ms: T.loaded - T.change, table_ms: T.table - T.change,
      full_ms: T.full - T.change, longest_frame_gap_ms: Math.round(T.gaps), items: rows,
    };
  } finally {
    await context.close();
  }
}

const FLOOR_HTML = `<!doctype html><meta charset=utf-8><title>bench floor</title>
<input type=file id=pick>
<script>
pick.addEventListener('change', async () => {
  const t0 = performance.now();
  const f = pick.files[0];
  let bytes = 0;
  for (let at = 0; at < f.size; at += 8 << 20) {
    bytes += (await f.slice(at, Math.min(f.size, at + (8 << 20))).arrayBuffer()).byteLength;
  }
  window.benchDone = { ms: performance.now() - t0, bytes };
});
</script>`;

async function measureFloor(browser, srv) {
  const { context, page } = await openPage(browser);
  try {
    await page.route('**/bench-floor.html', (r) => r.fulfill({ body: FLOOR_HTML, contentType: 'text/html' }));
    await page.goto(srv.url + 'bench-floor.html');
    await page.setInputFiles('#pick', file);
    await page.waitForFunction(() => window.benchDone, null, { timeout: TIMEOUT, polling: 50 });
    const d = await page.evaluate(() => window.benchDone);
    return { mode: 'floor', ms: d.ms, bytes: d.bytes };
  } finally {
    await context.close();
  }
}

const srv = await serve();
const browser = await launch();
let rows;
try {
  rows = await interleaved(rounds, ['app', 'floor'], (m) => (m === 'app' ? measureApp(browser, srv) : measureFloor(browser, srv)));
} finally {
  await browser.close();
  srv.close();
}
const app = rows.filter((x) => x.mode === 'app');
const floor = rows.filter((x) => x.mode === 'floor');
const pick = (k) => median(app.map((x) => x[k]));
console.log(JSON.stringify({
  summary: true, file, bytes: fs.statSync(file).size, rounds, items: app[0]?.items,
  loaded_ms: pick('loaded_ms'), table_ms: pick('table_ms'), table_range_ms: [Math.min(...app.map((x) => x.table_ms)), Math.max(...app.map((x) => x.table_ms))],
  full_ms: pick('full_ms'), longest_frame_gap_ms: Math.max(...app.map((x) => x.longest_frame_gap_ms)),
  floor_ms: median(floor.map((x) => x.ms)), full_over_floor: pick('full_ms') / median(floor.map((x) => x.ms)),
}));
