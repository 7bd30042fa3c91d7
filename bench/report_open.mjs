// Issue 31: every report of the hostile corpus (tests/hostile/, make_corpus.py) opens in at most
// 2 s in headless Chromium. For each case that loads, `evalboard report` writes its HTML report
// (the command's peak memory taken by the kernel, as bench/cli_memory.py takes it); then each
// report is opened ROUNDS times from disk (file://, as a reader opens it) in one Chromium, a
// fresh page each time, cases interleaved round by round.
//
// Usage: node bench/report_open.mjs EVALBOARD OUT_DIR [ROUNDS (default 3)]
//
// A report is open when its `load` event has fired, the next frame after it is drawn (two
// requestAnimationFrame callbacks) and its first contentful paint is on screen: `open_ms`, the
// later of the two, from the navigation's start (the page's own clock). `load_ms` (loadEventEnd)
// and `fcp_ms` (first-contentful-paint) are given beside it. The target is `open_ms` <= 2000 for
// every case (median of the rounds; the slowest round is shown too).
//
// stdout: one JSON line per case, then a summary line; stderr: a table and the verdict.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { launch, root } from '../tests/e2e/lib.mjs';
import { median } from './lib.mjs';

const [evalboard, outArg, roundsArg] = process.argv.slice(2);
if (!evalboard || !outArg) {
  console.error('usage: node bench/report_open.mjs EVALBOARD OUT_DIR [ROUNDS]');
  process.exit(2);
}
const rounds = Math.max(1, Number(roundsArg) || 3);
const TARGET_MS = 2000;
const corpus = path.join(root, 'tests', 'hostile');
const reports = path.join(path.resolve(outArg), 'hostile-reports');
fs.rmSync(reports, { recursive: true, force: true });
fs.mkdirSync(reports, { recursive: true });

// A command's exit code and peak resident set, from a fresh interpreter's RUSAGE_CHILDREN.
const PEAK = 'import resource, subprocess, sys; '
  + 'r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE); '
  + 'print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); '
  + 'sys.stderr.write(r.stderr.decode("utf-8", "replace"))';

const { cases } = JSON.parse(fs.readFileSync(path.join(corpus, 'cases.json'), 'utf8'));
const rows = [];
for (const c of cases) {
  const html = path.join(reports, `${c.run}.html`);
  const t0 = Date.now();
  const r = spawnSync('python3', ['-c', PEAK, evalboard, 'report', path.join(corpus, 'runs', c.run), '-o', html],
    { encoding: 'utf8', maxBuffer: 64 << 20 });
  const [code, kb] = r.stdout.trim().split(/\s+/).map(Number);
  const row = { case: c.run, outcome: c.outcome, exit: code, build_s: (Date.now() - t0) / 1000, report_peak_rss_bytes: kb * 1024 };
  if (fs.existsSync(html)) row.bytes = fs.statSync(html).size;
  else if (c.outcome === 'run') row.error = `no report written: ${r.stderr.trim().split('\n').pop()}`;
  rows.push(row);
}

const browser = await launch();
/** Opens one report in a fresh page; its timings from the page's own clock. */
async function open(file) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load', timeout: 120000 });
  // The frame after `load`, then first-contentful-paint (its entry comes once the frame is on
  // screen; 5 s at most).
  const t = await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => {
    const frame = performance.now();
    const nav = performance.getEntriesByType('navigation')[0];
    const done = (fcp) => resolve({ frame_ms: frame, load_ms: nav ? nav.loadEventEnd : null, fcp_ms: fcp });
    const seen = performance.getEntriesByName('first-contentful-paint')[0];
    if (seen) return done(seen.startTime);
    const obs = new PerformanceObserver((list) => {
      const e = list.getEntriesByName('first-contentful-paint')[0];
      if (e) { obs.disconnect(); done(e.startTime); }
    });
    obs.observe({ type: 'paint', buffered: true });
    setTimeout(() => { obs.disconnect(); done(null); }, 5000);
  }))));
  await context.close();
  // Open: the later of the two (the page is laid out, drawn and on screen).
  return { ...t, open_ms: Math.max(t.frame_ms, t.fcp_ms ?? 0), errors };
}

const opened = rows.filter((r) => r.bytes);
// One warm-up open (the browser's first page pays its own start).
if (opened.length) await open(path.join(reports, `${opened[0].case}.html`));
const times = new Map(opened.map((r) => [r.case, []]));
for (let k = 0; k < rounds; k++) {
  for (const r of opened) times.get(r.case).push(await open(path.join(reports, `${r.case}.html`)));
}
await browser.close();

const round1 = (x) => (x === null ? null : Math.round(x));
for (const r of rows) {
  const t = times.get(r.case);
  if (t) {
    r.open_ms = round1(median(t.map((x) => x.open_ms)));
    r.open_max_ms = round1(Math.max(...t.map((x) => x.open_ms)));
    r.load_ms = round1(median(t.map((x) => x.load_ms)));
    const fcps = t.filter((x) => x.fcp_ms !== null).map((x) => x.fcp_ms);
    r.fcp_ms = fcps.length ? round1(median(fcps)) : null;
    r.page_errors = [...new Set(t.flatMap((x) => x.errors))];
    r.pass = r.open_ms <= TARGET_MS && r.page_errors.length === 0;
  } else {
    // A case that loads must have a report; an unusable run has none (exit 2, said on stderr).
    r.pass = r.outcome !== 'run' && r.exit === 2;
  }
  console.log(JSON.stringify(r));
}
const failed = rows.filter((r) => !r.pass);
const slowest = opened.reduce((a, r) => (r.open_ms > (a?.open_ms ?? -1) ? r : a), null);
console.log(JSON.stringify({
  summary: true, rounds, cases: rows.length, reports: opened.length, target_ms: TARGET_MS,
  slowest: slowest && { case: slowest.case, open_ms: slowest.open_ms, open_max_ms: slowest.open_max_ms },
  max_report_peak_rss_bytes: Math.max(...rows.map((r) => r.report_peak_rss_bytes || 0)),
  failed: failed.map((r) => r.case),
}));

const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);
const mb = (b) => (b / 2 ** 20).toFixed(1);
console.error(`${pad('case', 22)} ${lpad('report', 10)} ${lpad('build', 7)} ${lpad('peak RSS', 9)} ${lpad('load', 7)} ${lpad('FCP', 7)} ${lpad('open', 7)} ${lpad('max', 7)}  verdict`);
for (const r of rows) {
  const size = r.bytes === undefined ? '—' : `${(r.bytes / 1024).toFixed(0)} KB`;
  const ms = (x) => (x === undefined || x === null ? '—' : `${x} ms`);
  const verdict = r.bytes === undefined ? (r.pass ? 'no report (unusable run)' : `FAIL: ${r.error}`)
    : (r.pass ? 'ok' : `FAIL${r.page_errors?.length ? ` (${r.page_errors[0]})` : ''}`);
  console.error(`${pad(r.case, 22)} ${lpad(size, 10)} ${lpad(`${r.build_s.toFixed(2)} s`, 7)} ${lpad(`${mb(r.report_peak_rss_bytes)} MB`, 9)} `
    + `${lpad(ms(r.load_ms), 7)} ${lpad(ms(r.fcp_ms), 7)} ${lpad(ms(r.open_ms), 7)} ${lpad(ms(r.open_max_ms), 7)}  ${verdict}`);
}
console.error(failed.length
  ? `# ${failed.length} of ${rows.length} cases FAIL the ${TARGET_MS} ms target: ${failed.map((r) => r.case).join(', ')}`
  : `# every report opens within ${TARGET_MS} ms (median of ${rounds}; slowest ${slowest?.case} ${slowest?.open_ms} ms)`);
