// Issue 26.9: the dashboard's All runs tab over many big runs. Run folders (one numeric-QA JSONL
// each; `bench/run.sh many-view` makes 8 of 100,000 turns) dropped at once on the dashboard
// (dist/) in headless Chromium, a baseline pinned (the first folder, kept in the browser as a
// user's earlier pin is), until the ranked table has a row for every run.
//
// Usage: node bench/many_view.mjs DIR [ROUNDS (default 3)] [--modes=open,click] [--profile[=FILE]]
//                                  [--before=DIST]
//
// DIR holds one folder per run; they are dropped together (as a user drags them from a file
// manager: CDP drag events carrying the folders), in a fresh browser context each time (no OPFS
// copy of an earlier round, no demo). Two modes, interleaved round by round:
//   open   the All runs tab is opened as soon as the drop's runs are listed, so the table is
//          drawn as soon as the last run is scored: table_ms = table on screen − last run scored.
//   click  the Overview stays open while the runs load; once the last one is listed as scored,
//          the All runs tab is clicked: table_ms = table on screen − the click (and
//          click_after_scored_ms says how long after the last Loaded the click came).
// Taken in the page (addInitScript): the drop event (t_pick), each run's Loaded message from the
// worker and the run list showing it scored, the Many requests posted and their Screen answers,
// the table's rows, and every main-thread task ≥ 50 ms (PerformanceObserver 'longtask'). The
// worker's time to score the runs is score_ms = last Loaded − drop.
//
// --before=DIST: another build of the dashboard (an earlier dist/), each mode measured on it too
// (as `MODE@before`) in the same rounds, for a change's before and after side by side.
//
// One JSON line per measurement, then a summary line (medians; long tasks: count and longest of
// every round).
//
// --profile: instead, one `click` measurement with the worker's CPU profile (V8's sampler through
// CDP, on a copy of dist/ whose worker keeps its function names: bench/lib.mjs) from the click to
// the table and the matrix's first page; prints the functions with the most self and inclusive
// time, and writes the .cpuprofile to FILE when given.
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, openPage, osDrop, dist } from '../tests/e2e/lib.mjs';
import { median, interleaved, namedWorkerDist, workerSessions, printProfile } from './lib.mjs';

const args = process.argv.slice(2);
const modesArg = args.find((a) => a.startsWith('--modes='));
const profileArg = args.find((a) => a.startsWith('--profile'));
const [dir, roundsArg] = args.filter((a) => !a.startsWith('--'));
if (!dir || !fs.existsSync(dir)) {
  console.error('usage: node bench/many_view.mjs DIR [ROUNDS] [--modes=open,click]');
  process.exit(2);
}
const runs = fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
if (runs.length < 2) {
  console.error(`${dir}: needs two run folders at least`);
  process.exit(2);
}
const rounds = Math.max(1, Number(roundsArg) || 3);
const beforeArg = args.find((a) => a.startsWith('--before='));
const MODES = modesArg ? modesArg.slice('--modes='.length).split(',') : ['open', 'click'];
if (beforeArg) MODES.push(...MODES.map((m) => `${m}@before`));
const TIMEOUT = 600000;
const bytes = runs.reduce((a, r) => a + fs.readdirSync(path.join(dir, r)).reduce((b, f) => b + fs.statSync(path.join(dir, r, f)).size, 0), 0);

// In the page, before the app: every timing of interest, relative to performance.now().
function probe([n, openEarly]) {
  const T = (window.__bench = { loaded: [], listed: [], many: {}, long: [], n });
  window.addEventListener('drop', () => { if (T.pick === undefined) T.pick = performance.now(); }, true);
  document.addEventListener('click', (e) => { if (e.target.closest?.('#eb-tab-runs') && T.click === undefined) T.click = performance.now(); }, true);
  new PerformanceObserver((l) => { for (const e of l.getEntries()) T.long.push([e.startTime, e.duration]); })
    .observe({ type: 'longtask', buffered: true });
  const varint = (b, at) => { let v = 0, m = 1, i = at; for (;;) { const x = b[i++]; v += (x & 127) * m; m *= 128; if (x < 128) return [v, i]; } };
  const bytesOf = (d) => (d instanceof Uint8Array ? d : d instanceof ArrayBuffer ? new Uint8Array(d) : null);
  const Base = window.Worker;
  window.Worker = class extends Base {
    constructor(...a) {
      super(...a);
      this.addEventListener('message', (e) => {
        const d = bytesOf(e.data);
        if (!d || T.pick === undefined) return;
        // postcard: Response::Loaded is variant 2, LoadFailed 3, Screen 12 (req first).
        if (d[0] === 2) T.loaded.push(performance.now());
        if (d[0] === 3) T.failed = performance.now();
        if (d[0] === 12) {
          const [req] = varint(d, 1);
          const m = T.many[req];
          if (m && m.answered === undefined) { m.answered = performance.now(); m.bytes = d.length; }
        }
      });
    }
    postMessage(msg, ...rest) {
      const d = bytesOf(msg);
      // Request::Many is variant 11: req, baselines, runs, then the query (0 Overview, 1 Items).
      if (d && d[0] === 11) {
        let [req, i] = varint(d, 1);
        let nb, nr, x;
        [nb, i] = varint(d, i);
        for (let k = 0; k < nb; k++) [x, i] = varint(d, i);
        [nr, i] = varint(d, i);
        for (let k = 0; k < nr; k++) [x, i] = varint(d, i);
        T.many[req] = { posted: performance.now(), runs: nb + nr, query: d[i] === 0 ? 'overview' : 'items' };
      }
      return super.postMessage(msg, ...rest);
    }
  };
  new MutationObserver(() => {
    if (T.pick === undefined) return;
    const scored = document.querySelectorAll('.eb-sidebar .eb-run .eb-run__acc').length;
    while (T.listed.length < scored) T.listed.push(performance.now());
    const tab = document.querySelector('#eb-tab-runs');
    if (openEarly && !T.opened && tab && document.querySelectorAll('.eb-sidebar .eb-run').length >= n) {
      T.opened = true;
      T.openedAt = performance.now();
      tab.click();
    }
    if (T.table === undefined && document.querySelectorAll('[data-table="many-runs"] tbody tr').length === n) T.table = performance.now();
  }).observe(document, { childList: true, subtree: true, characterData: true });
}

async function measure(browser, srv, name, profile = null) {
  const mode = name.split('@')[0];
  const { context, page, rec } = await openPage(browser);
  try {
    await page.addInitScript((pin) => {
      localStorage.setItem('evalboard.demo-dismissed', '1');
      localStorage.setItem('evalboard.pin', pin);
    }, runs[0]);
    await page.addInitScript(probe, [runs.length, mode === 'open']);
    await page.goto(srv.url + 'index.html');
    await page.waitForSelector('.eb-sidebar .eb-pick__files', { state: 'attached' });
    const worker = profile && await workerSessions(context, page);
    // As the other benches: a second for the worker's start, as a user's drop comes later.
    await page.waitForTimeout(1000);
    await osDrop(context, page, runs.map((r) => path.resolve(dir, r)));
    const n = runs.length;
    await page.waitForFunction((n) => window.__bench.failed || window.__bench.loaded.length >= n, n, { timeout: TIMEOUT, polling: 100 });
    if (mode === 'click') {
      await page.waitForFunction((n) => window.__bench.listed.length >= n, n, { timeout: TIMEOUT, polling: 50 });
      if (worker) {
        await worker.send('Profiler.enable');
        await worker.send('Profiler.setSamplingInterval', { interval: 200 });
        await worker.send('Profiler.start');
      }
      await page.click('#eb-tab-runs');
    }
    await page.waitForFunction(() => window.__bench.failed || window.__bench.table !== undefined, null, { timeout: TIMEOUT, polling: 50 });
    // The matrix's first page comes after the table: let it, so a long task it causes is seen.
    await page.waitForTimeout(1500);
    if (worker) {
      const { result } = await worker.send('Profiler.stop');
      if (profile !== true) fs.writeFileSync(profile, JSON.stringify(result.profile));
      printProfile(result.profile);
    }
    const T = await page.evaluate(() => window.__bench);
    if (T.failed) throw new Error(`a run failed to load: ${rec.consoleErrors.join('; ')}`);
    const last = T.loaded[n - 1];
    const from = mode === 'click' ? T.click : last;
    // The Many requests for every run, and when they were answered.
    const full = Object.values(T.many).filter((m) => m.runs === n);
    const ov = full.find((m) => m.query === 'overview') || {};
    const r = (x) => (x === undefined ? null : Math.round(x));
    const long = T.long.filter(([t]) => t >= T.pick && t <= T.table + 1500);
    const before = long.filter(([t]) => t <= T.table);
    return {
      mode: name, runs: n,
      score_ms: r(last - T.pick),
      table_ms: r(T.table - from),
      table_ratio: (T.table - from) / (last - T.pick),
      click_after_scored_ms: mode === 'click' ? r(T.click - last) : null,
      // When the tab was opened (open: as the runs were listed), from the drop.
      opened_ms: r((mode === 'click' ? T.click : T.openedAt) - T.pick),
      // Where the table's time goes: the page asking (the last Loaded, or the click, → the
      // Many request for every run), the worker (comparing, laying out, posting the answer) and
      // the page rendering the answer.
      ask_ms: r(ov.posted - from), worker_ms: r(ov.answered - ov.posted), render_ms: r(T.table - ov.answered),
      answer_bytes: ov.bytes ?? null,
      matrix_ms: r((full.find((m) => m.query === 'items') || {}).answered - from),
      loaded_ms: T.loaded.map((t) => r(t - T.pick)),
      listed_ms: T.listed.map((t) => r(t - T.pick)),
      // Every Many request: runs compared, overview or matrix page, posted and answered (ms from
      // the drop).
      many_requests: Object.values(T.many).map((m) => [m.runs, m.query, r(m.posted - T.pick), r(m.answered - T.pick)]),
      // Main-thread tasks ≥ 50 ms from the drop to the table ([start from the drop, ms]), and
      // after it while the matrix comes (1.5 s).
      long_tasks: before.map(([t, d]) => [r(t - T.pick), r(d)]),
      long_tasks_after_table: long.filter(([t]) => t > T.table).map(([t, d]) => [r(t - T.pick), r(d)]),
      errors: rec.consoleErrors.length + rec.pageErrors.length,
    };
  } finally {
    await context.close();
  }
}

if (!fs.existsSync(path.join(dist, 'index.html'))) {
  console.error('dist/ missing: build it first (trunk build --release)');
  process.exit(2);
}
if (profileArg) {
  const named = namedWorkerDist();
  const srv = await serve(named + path.sep);
  const browser = await launch();
  try {
    console.log(JSON.stringify(await measure(browser, srv, 'click', profileArg.split('=')[1] || true)));
  } finally {
    await browser.close();
    srv.close();
    fs.rmSync(named, { recursive: true, force: true });
  }
  process.exit(0);
}
const srv = await serve();
const srvBefore = beforeArg ? await serve(path.resolve(beforeArg.slice('--before='.length)) + path.sep) : null;
const browser = await launch();
let rows;
try {
  rows = await interleaved(rounds, MODES, (m) => measure(browser, m.endsWith('@before') ? srvBefore : srv, m));
} finally {
  await browser.close();
  srv.close();
  srvBefore?.close();
}
const summary = { summary: true, dir, runs: runs.length, bytes, rounds, modes: {} };
for (const m of MODES) {
  const rs = rows.filter((x) => x.mode === m);
  const k = (f) => median(rs.map((x) => x[f]));
  const long = rs.flatMap((x) => x.long_tasks);
  summary.modes[m] = {
    score_ms: k('score_ms'), table_ms: k('table_ms'), table_range_ms: [Math.min(...rs.map((x) => x.table_ms)), Math.max(...rs.map((x) => x.table_ms))],
    table_over_score: k('table_ratio'), ask_ms: k('ask_ms'), worker_ms: k('worker_ms'), render_ms: k('render_ms'),
    long_tasks: long.length, longest_task_ms: long.length ? Math.max(...long.map(([, d]) => d)) : 0,
    long_tasks_after_table: rs.flatMap((x) => x.long_tasks_after_table).length,
  };
}
summary.target = { table_ms: 1500, long_task_ms: 50 };
console.log(JSON.stringify(summary));
