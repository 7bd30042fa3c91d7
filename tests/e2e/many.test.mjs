// The All runs tab (issue 26.6) against the built dist/ in headless Chromium: the
// tests/fixtures/compare/ runs (Inspect logs of two tasks by several models; missing items, no
// item in common, epochs, an unpriced model) dropped as folders, a baseline pinned; the ranked
// table and its reading equal `evalboard compare --json`, the grid, the charts, the runs × items
// matrix and its filters, the pin in the link and kept over a reload and a plain visit, a run's
// name opening the pair Compare; screenshots at desktop and 390 px.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { withApp, openPage, outsideRequests, root, osDrop, cli, outDir } from './lib.mjs';

const app = withApp();
const FIX = path.join(root, 'tests', 'fixtures', 'compare');
const DIRS = ['base', 'gpt4o', 'mini', 'llama', 'disjoint', 'epochs', 'words_only'].map((d) => path.join(FIX, d));
const PRICES = path.join(FIX, 'prices.json');
const PIN = 'base/arith.json';

function assertClean(rec) {
  assert.deepEqual(rec.consoleErrors, [], 'console errors');
  assert.deepEqual(rec.pageErrors, [], 'page errors');
  assert.deepEqual(outsideRequests(rec, app.srv.origin), [], 'requests outside the origin');
}

async function shot(page, name) {
  fs.mkdirSync(outDir, { recursive: true });
  await page.screenshot({ path: path.join(outDir, `${name}.png`), fullPage: true });
}

/** The fixtures' price table as the page stores its settings (src/ui/saved.rs). */
function storedSettings() {
  const p = JSON.parse(fs.readFileSync(PRICES, 'utf8'));
  const models = Object.entries(p).map(([m, v]) => [m, { input_per_mtok: v.input_per_mtok, output_per_mtok: v.output_per_mtok }]);
  return JSON.stringify({ profile: 'doc', tolerances: {}, prices: { models } });
}

/** A page with the fixtures' runs dropped (the fixtures' prices stored) and PIN pinned on All runs. */
async function pinned() {
  const { page, rec, context } = await openPage(app.browser);
  const settings = storedSettings();
  await page.addInitScript((s) => {
    localStorage.setItem('evalboard.demo-dismissed', '1');
    localStorage.setItem('evalboard.config', s);
  }, settings);
  await page.goto(app.srv.url);
  await page.waitForSelector('.eb-sidebar .eb-pick__files', { state: 'attached' });
  await osDrop(context, page, DIRS);
  await page.waitForSelector('#eb-tab-runs', { timeout: 60000 });
  await page.click('#eb-tab-runs');
  // Ten logs (base, gpt4o and mini hold two each), and the placeholder.
  await page.waitForFunction(() => document.querySelectorAll('select[name="pin"] option').length === 11, null, { timeout: 60000 });
  await page.selectOption('select[name="pin"]', PIN);
  await page.waitForSelector('[data-table="many-runs"]', { timeout: 30000 });
  return { page, rec, context };
}

const dec4 = (x) => (x === null ? '—' : x.toFixed(4));
const pp = (x) => {
  if (x === null) return '—';
  const v = Math.abs(x * 100) < 0.05 ? 0 : x * 100;
  return `${v > 0 ? '+' : ''}${v.toFixed(1)} pp`;
};

/** The ranked table as shown: [name, cells...] per row. */
const tableRows = (page) => page.locator('[data-table="many-runs"] tbody tr').evaluateAll((rs) => rs.map((r) => [r.dataset.row, ...[...r.children].map((c) => c.textContent.trim())]));
/** The matrix rows in the DOM (a window of them): their cells. */
const matrixRows = (page) => page.locator('.eb-grid--many .eb-grid__row').evaluateAll((rs) => rs.map((r) => [...r.children].map((c) => c.textContent.trim())));

test('All runs: a pinned baseline, the table = evalboard compare, grid, charts, matrix filters, the pin kept, a row opens Compare', async () => {
  const want = JSON.parse(cli(['compare', ...DIRS, '--prices', PRICES, '--json']));
  const { page, rec, context } = await pinned();
  assert.match(page.url(), /tab=runs/);
  assert.match(page.url(), new RegExp(`pin=${encodeURIComponent(PIN).replace('.', '\\.')}`));

  // The table: the CLI's rows in its order, with its numbers.
  const rows = await tableRows(page);
  assert.deepEqual(rows.map((r) => r[0]), want.runs.map((r) => r.run));
  for (const [r, w] of rows.map((r, i) => [r, want.runs[i]])) {
    assert.equal(r[5], dec4(w.headline), `${w.run} headline`);
    assert.equal(r[7], pp(w.delta), `${w.run} Δ`);
    assert.equal(r[9], w.regressed === null ? '—' : String(w.regressed), `${w.run} regressed`);
    assert.equal(r[10], w.improved === null ? '—' : String(w.improved), `${w.run} improved`);
    const frontier = w.on_frontier === true ? 'on the frontier' : w.on_frontier === false ? 'dominated' : 'unpriced';
    assert.equal(r[15], frontier, `${w.run} frontier`);
  }
  assert.equal((await page.locator('[data-note="many-reading"]').innerText()).trim(), want.reading);
  // The grid: every model of the CLI's, with its micro mean.
  const grid = await page.locator('[data-table="many-grid"] tbody tr').evaluateAll((rs) => rs.map((r) => [...r.children].map((c) => c.textContent.trim())));
  assert.deepEqual(grid.map((r) => r[0]), want.grid.models.map((m) => m.model));
  // The charts: every Δ with its CI; the frontier, with llama (no price) listed beside it.
  await page.waitForSelector('[data-chart="many-intervals"] svg');
  await page.waitForSelector('[data-chart="many-frontier"] svg');
  assert.match(await page.locator('[data-table="many-unpriced"]').innerText(), /llama/);
  // The chart's data table (the report's chart): one row per priced run, "no" when dominated.
  const front = await page.locator('[data-chart="many-frontier"] table tbody tr').evaluateAll((rs) => rs.map((r) => [...r.children].map((c) => c.textContent.trim())));
  assert.equal(front.filter((r) => r[3] === 'no').length,
    want.runs.filter((r) => r.on_frontier === false && (r.baseline === PIN || (r.is_baseline && r.run === PIN))).length);
  await shot(page, 'many-desktop');

  // The matrix: the pinned baseline and the runs compared with it; its filters.
  await page.waitForSelector('.eb-grid--many .eb-grid__row');
  const heads = await page.locator('.eb-grid--many .eb-grid__hcell').evaluateAll((hs) => hs.map((h) => h.textContent.trim()));
  assert.equal(heads[1], `${PIN} (baseline)`);
  const cols = want.runs.filter((r) => r.baseline === PIN && !r.is_baseline).map((r) => r.run);
  assert.equal(heads.length, 2 + cols.length);
  const show = async (v) => {
    await page.selectOption('select[name="show"]', v);
    await page.waitForFunction((v) => location.hash.includes('f.show='), v);
    await page.waitForTimeout(300);
    return matrixRows(page);
  };
  const wrong = await show('Every run wrong');
  assert.ok(wrong.length > 0);
  for (const r of wrong) assert.ok(r.slice(1).every((c) => !c.startsWith('✓')), r.join(' | '));
  const onlyBase = await show('Only the baseline right');
  for (const r of onlyBase) {
    assert.equal(r[1], '✓');
    assert.ok(r.slice(2).every((c) => !c.startsWith('✓')), r.join(' | '));
  }
  const gpt = cols.indexOf('gpt4o/arith.json');
  const onlyGpt = await show('Only gpt4o/arith.json right');
  assert.ok(onlyGpt.length > 0);
  for (const r of onlyGpt) {
    assert.equal(r[2 + gpt], '✓ ▲');
    assert.ok(r.slice(1).every((c, i) => i === 1 + gpt || !c.startsWith('✓')), r.join(' | '));
  }
  // Regressed in any run: as many items as the runs' regressions leave (mini's 3 and llama's
  // 22 overlap), each marked ▼ somewhere.
  const regressed = await show('Regressed in any run');
  for (const r of regressed) assert.ok(r.slice(2).some((c) => c === '✗ ▼'), r.join(' | '));
  await shot(page, 'many-matrix');

  // The pin survives a reload (the link) and a plain visit (kept in the browser).
  await page.reload();
  await page.waitForFunction((p) => document.querySelector('select[name="pin"]')?.value === p, PIN, { timeout: 60000 });
  await page.waitForSelector('[data-table="many-runs"]', { timeout: 60000 });
  await page.goto(app.srv.url.replace(/#.*$/, ''));
  // The kept runs come back; open one, then the All runs tab.
  await page.waitForSelector('.eb-run__select', { timeout: 60000 });
  await page.locator('.eb-run__select').first().click();
  await page.waitForSelector('#eb-tab-runs', { timeout: 60000 });
  await page.click('#eb-tab-runs');
  await page.waitForFunction((p) => document.querySelector('select[name="pin"]')?.value === p, PIN, { timeout: 60000 });
  assert.match(page.url(), /pin=base%2Farith\.json/);

  // A run's name opens the pair Compare with its baseline.
  await page.waitForSelector('[data-table="many-runs"] button[data-open]', { timeout: 60000 });
  await page.locator('[data-table="many-runs"] tr[data-row="gpt4o/arith.json"] button[data-open]').click();
  await page.waitForFunction(() => location.hash.includes('tab=compare'));
  assert.match(page.url(), /base=base%2Farith\.json/);
  assert.match(page.url(), /cand=gpt4o%2Farith\.json/);
  await page.waitForSelector('#eb-panel-compare:not([hidden])');

  // 390 px wide: the table scrolls inside itself, the page does not.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.click('#eb-tab-runs');
  await page.waitForSelector('[data-table="many-runs"]');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  const wide = await page.evaluate(() => [...document.querySelectorAll('#eb-panel-runs *')]
    .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('.eb-scroll-x, .eb-grid'))
    .slice(0, 5).map((e) => `${e.tagName}.${e.className}`));
  assert.ok(overflow <= 1, `the page is ${overflow} px wider than the screen: ${wide.join(', ')}`);
  await shot(page, 'many-390');
  assertClean(rec);
  await context.close();
});

test('Export: the report of all runs (issue 26.7) has the All runs tab\'s runs against its baselines, the CLI\'s numbers, in its #many section', async () => {
  const want = JSON.parse(cli(['compare', ...DIRS, '--prices', PRICES, '--json']));
  const { page, rec, context } = await pinned();
  // Export offers the report of all runs while a baseline is pinned.
  await page.click('#eb-tab-export');
  await page.waitForSelector('[data-export="report-all-runs"]');
  await shot(page, 'many-export');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('[data-export="report-all-runs"]')]);
  assert.match(dl.suggestedFilename(), /^evalboard-report-base.arith.json\.html$/);
  const html = fs.readFileSync(await dl.path(), 'utf8');
  assert.match(html, /<section id="many">/);
  const data = JSON.parse(html.match(/<script type="application\/json" id="eb-data">([^<]*)<\/script>/)[1]);
  // Every row of `evalboard compare --json`, in its order, with its numbers (all but the path).
  const strip = (rs) => rs.map(({ path: _p, ...r }) => r);
  assert.deepEqual(strip(data.many.runs), strip(want.runs));
  assert.equal(data.many.reading, want.reading);
  // The section's table names every run.
  const section = html.slice(html.indexOf('<section id="many">'));
  for (const r of want.runs) assert.ok(section.includes(r.run), `${r.run} in #many`);
  assertClean(rec);
  await context.close();
});

test('Judged by (issue 26.4): an lm-eval suite of two tasks, Compare and All runs judged by the second task\'s metric, as diff/compare --scorer', async () => {
  const suite = path.join(root, 'tests', 'fixtures', 'evallog', 'runs');
  const [b, c] = ['lm_eval_baseline', 'lm_eval_candidate'].map((d) => path.join(suite, d));
  const JUDGE = 'arith_mc/acc[none]/acc';
  const diff = (extra) => JSON.parse(cli(['diff', b, c, ...extra, '--json']));
  const [first, second] = [diff([]), diff(['--scorer', JUDGE])];
  const { page, rec, context } = await openPage(app.browser);
  await page.addInitScript(() => localStorage.setItem('evalboard.demo-dismissed', '1'));
  await page.goto(app.srv.url);
  await page.waitForSelector('.eb-sidebar .eb-pick__files', { state: 'attached' });
  await osDrop(context, page, [b, c]);
  await page.waitForSelector('#eb-tab-compare', { timeout: 60000 });
  await page.click('#eb-tab-compare');
  await page.selectOption('select[name="base"]', 'lm_eval_baseline');
  await page.selectOption('select[name="cand"]', 'lm_eval_candidate');
  // The picker lists the baseline's scores, its own headline first (the default).
  await page.waitForSelector('select[name="judge"]', { timeout: 30000 });
  const options = await page.locator('select[name="judge"] option').evaluateAll((os) => os.map((o) => [o.value, o.textContent]));
  assert.deepEqual(options.map((o) => o[0]), ['', first.scorer, 'arith_gen/exact_match[flexible-extract]/exact_match', JUDGE, 'arith_mc/acc_norm[none]/acc_norm']);
  const judged = () => page.locator('#eb-panel-compare p.eb-muted', { hasText: 'judged' }).first().innerText();
  const card = (k) => page.locator(`#eb-panel-compare [data-metric="${k}"] .eb-card__value`).innerText();
  const sub = () => page.locator('#eb-panel-compare [data-metric="accuracy_delta"] .eb-card__sub').innerText();
  assert.match(await judged(), new RegExp(first.scorer.replace(/[[\]/]/g, '\\$&')));
  assert.equal(await card('regressed'), String(first.regressed.length));
  assert.match(await sub(), /60\.0% → 60\.0% over 5 paired/);
  await page.screenshot({ path: path.join(outDir, 'judge-compare-desktop.png'), fullPage: true });
  // The second task's metric: the judged-by line and the counts are that task's (diff --scorer).
  await page.selectOption('select[name="judge"]', JUDGE);
  await page.waitForFunction((j) => location.hash.includes('f.judge='), JUDGE);
  await page.waitForFunction(() => /80\.0% → 80\.0%/.test(document.querySelector('#eb-panel-compare [data-metric="accuracy_delta"] .eb-card__sub')?.textContent || ''), null, { timeout: 30000 });
  assert.match(await judged(), /arith_mc\/acc\[none\]\/acc/);
  assert.equal(await card('regressed'), String(second.regressed.length));
  assert.equal(await card('improved'), String(second.improved.length));
  assert.match(await sub(), new RegExp(`over ${second.n_items} paired`));
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(outDir, 'judge-compare-390.png'), fullPage: true });
  await page.setViewportSize({ width: 1400, height: 900 });

  // All runs: the same choice, kept in the link; the rows are compare --scorer's.
  const want = JSON.parse(cli(['compare', b, c, '--scorer', JUDGE, '--json']));
  await page.click('#eb-tab-runs');
  await page.selectOption('select[name="pin"]', 'lm_eval_baseline');
  await page.waitForSelector('[data-table="many-runs"]', { timeout: 30000 });
  assert.equal(await page.locator('select[name="judge"]').inputValue(), JUDGE);
  const rows = await tableRows(page);
  assert.deepEqual(rows.map((r) => r[0]), want.runs.map((r) => r.run));
  for (const [r, w] of rows.map((r, i) => [r, want.runs[i]])) {
    assert.equal(r[5], dec4(w.headline), `${w.run} headline`);
    assert.equal(r[9], w.regressed === null ? '—' : String(w.regressed), `${w.run} regressed`);
  }
  await shot(page, 'judge-many-desktop');
  // Back to the default: the suite compared task by task (two baseline rows).
  await page.selectOption('select[name="judge"]', '');
  await page.waitForFunction(() => document.querySelectorAll('[data-table="many-runs"] tbody tr').length === 4, null, { timeout: 30000 });
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, 'judge-many-390');
  assertClean(rec);
  await context.close();
});

test('All runs: "Export this view" writes the matrix its filters show (CSV, JSONL with the ranked table, Parquet)', async () => {
  const { page, rec } = await pinned();
  await page.waitForSelector('.eb-grid--many .eb-grid__row', { timeout: 30000 });
  await page.selectOption('select[name="show"]', 'Regressed in any run');
  await page.waitForFunction(() => location.hash.includes('f.show='));
  await page.waitForFunction(() => / of /.test(document.querySelector('.eb-items__count')?.textContent || ''));
  const count = Number((await page.locator('.eb-items__count').innerText()).replace(/,/g, '').match(/^(\d+)/)[1]);
  assert.ok(count > 0);
  const ranked = await tableRows(page);
  const exportAs = async (format) => {
    if (!(await page.locator('[data-testid="export-view"]').evaluate((d) => d.open))) {
      await page.click('[data-testid="export-view"] summary');
    }
    await page.selectOption('select[name="export-format"]', format);
    const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 60000 }), page.click('[data-export="view"]')]);
    return { name: dl.suggestedFilename(), bytes: fs.readFileSync(await dl.path()) };
  };
  // CSV: the tab's count of items, a run a column.
  const csv = await exportAs('csv');
  assert.equal(csv.name, 'base-arith.json.all-runs.csv');
  const lines = csv.bytes.toString('utf8').trim().split('\n');
  assert.equal(lines.length - 1, count, 'an item a row, as many as the tab shows');
  assert.equal(lines[0].split(',')[1], `${PIN} (baseline)`);
  assert.ok(lines.slice(1).every((l) => l.split(',').slice(2).includes('regressed')), lines.slice(0, 3).join('\n'));
  await shot(page, 'many-export');
  // JSONL: the same items, and the ranked table's numbers in its header.
  const jsonl = (await exportAs('jsonl')).bytes.toString('utf8').trim().split('\n');
  const head = JSON.parse(jsonl[0]);
  assert.equal(head.items, count);
  assert.equal(jsonl.length - 1, count);
  assert.equal(head.filter.show, 'Regressed in any run');
  const run = head.runs.find((r) => !r.is_baseline && r.baseline === PIN && r.delta !== null);
  const shown = ranked.find((r) => r[0] === run.run);
  assert.equal(shown[7], pp(run.delta), `${run.run}: Δ as the ranked table shows it`);
  assert.equal(shown[5], dec4(run.headline), `${run.run}: headline`);
  // Parquet: one file, written by the lake worker.
  const pq = await exportAs('parquet');
  assert.equal(pq.name, 'base-arith.json.all-runs.parquet');
  assert.equal(pq.bytes.subarray(0, 4).toString(), 'PAR1');
  assert.equal(pq.bytes.subarray(pq.bytes.length - 4).toString(), 'PAR1');
  assertClean(rec);
  await page.close();
});
