// The query language in the dashboard (issue 29's Must-hold, the worker's side): a big Inspect
// `.json` log (`evalboard-bench query-log`, the same texts as `evalboard-bench query`) picked in
// the page, its Items tab open; a first text query reads every conversation in the worker (with
// progress, timed apart), then each query of the native bench is typed into the query box and
// timed from Enter to its count line, 3 times (median). The worker keeps the index, so these are
// the "after the conversations are read" times: target <= 1 s each.
// Usage: node bench/query_wasm.mjs LOG.json [native query.jsonl]
import fs from 'node:fs';
import { serve, launch, openPage } from '../tests/e2e/lib.mjs';
import { median } from './lib.mjs';

const [file, nativeLog] = process.argv.slice(2);
const QUERIES = ['text ~ /rate limit/i', 'text ~ /time(d)? ?out/i', 'text ~ /zzzz never/', 'text ~ /a+$/', 'text ~ /(a+)+$/', 'text ~ /\\d{4}/ and verdict == wrong'];
const native = {};
if (nativeLog && fs.existsSync(nativeLog)) {
  for (const l of fs.readFileSync(nativeLog, 'utf8').split('\n')) {
    if (l.includes('"bench":"query"')) { const r = JSON.parse(l); native[r.query] = r; }
  }
}
const TIMEOUT = 30 * 60 * 1000;
const srv = await serve();
const browser = await launch();
try {
  const { page } = await openPage(browser, { viewport: { width: 1400, height: 900 } });
  await page.addInitScript(() => localStorage.setItem('evalboard.demo-dismissed', '1'));
  await page.goto(srv.url + 'index.html');
  await page.waitForSelector('.eb-sidebar .eb-pick__files', { state: 'attached' });
  let t = Date.now();
  await page.setInputFiles('.eb-sidebar .eb-pick__files', file);
  await page.waitForSelector('[data-metric="headline_score"]', { timeout: TIMEOUT });
  const loadMs = Date.now() - t;
  await page.click('#eb-tab-items');
  await page.waitForSelector('input[name="query"]', { timeout: TIMEOUT });
  // The count line once no query is in flight (no progress note, no error note).
  const settled = () => page.waitForFunction(() => !document.querySelector('[data-note="query-progress"]')
    && !document.querySelector('[data-note="query-error"]')
    && /match|samples?$/.test(document.querySelector('.eb-items__count')?.textContent || ''), null, { timeout: TIMEOUT, polling: 'raf' });
  const run = async (q) => {
    // A query that does not parse first, so the next count line is told from the last.
    await page.fill('input[name="query"]', '((');
    await page.press('input[name="query"]', 'Enter');
    await page.waitForSelector('[data-note="query-error"]', { timeout: TIMEOUT });
    await page.fill('input[name="query"]', q);
    const t0 = Date.now();
    await page.press('input[name="query"]', 'Enter');
    await settled();
    return { ms: Date.now() - t0, count: await page.locator('.eb-items__count').innerText() };
  };
  const first = await run('text ~ /conversations read first/');
  console.log(JSON.stringify({ bench: 'query-wasm-read', file, bytes: fs.statSync(file).size, load_ms: loadMs, first_text_query_ms: first.ms }));
  let slowest = 0;
  for (const q of QUERIES) {
    const rows = [];
    for (let k = 0; k < 3; k++) rows.push(await run(q));
    const ms = median(rows.map((r) => r.ms));
    slowest = Math.max(slowest, ms);
    const n = native[q];
    console.log(JSON.stringify({ bench: 'query-wasm', query: q, count: rows[0].count, wasm_s: ms / 1000, native_query_s: n?.query_s, wasm_over_native: n ? ms / 1000 / Math.max(n.query_s, 1e-3) : undefined }));
  }
  console.log(JSON.stringify({ bench: 'query-wasm-summary', slowest_s: slowest / 1000, target_s: 1 }));
} finally {
  await browser.close();
  srv.close();
}
