// Eval-set runs (seed 004) and the Compare tab, against the built dist/ in headless Chromium:
// the demo's gpt-4o vs o3 (numeric QA, joined on conversation + turn), and the real tunix-rt m45
// baseline vs m46 control predictions on eval_v2 dropped as two folders (checked against the CLI).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, launch, openPage, outsideRequests, root, osDrop, cli, cliStats, pct } from './lib.mjs';

const TUNIX = path.resolve(root, '..', 'shared', 'data', 'tunix-rt');
let srv;
let browser;

before(async () => {
  assert.ok(fs.existsSync(path.join(root, 'dist', 'index.html')), 'build dist/ first: trunk build --release');
  srv = await serve(undefined, '/evalboard/');
  browser = await launch();
});
after(async () => {
  await browser?.close();
  srv?.close();
});

function assertClean(rec) {
  assert.deepEqual(rec.consoleErrors, [], 'console errors');
  assert.deepEqual(rec.pageErrors, [], 'page errors');
  assert.deepEqual(outsideRequests(rec, srv.origin), [], 'requests outside the origin');
}

const cardValue = (page, key) => page.locator(`[data-metric="${key}"] .eb-card__value`).first().innerText();
const flips = (page) => page.locator('[data-table="compare-items"] tbody tr').evaluateAll((rs) => rs.map((r) => r.dataset.flip));
const ORDER = ['regressed', 'improved', 'unchanged_correct', 'unchanged_wrong', 'only_in_baseline', 'only_in_candidate', 'unscored'];

test('compare the demo runs: gpt-4o vs o3, regressions first, deep link, text-only diffs', async () => {
  const { page, rec, context } = await openPage(browser);
  await page.goto(`${srv.url}#run=o3&tab=compare&base=gpt-4o&cand=o3`);
  await page.waitForSelector('[data-table="compare-items"] tbody tr', { timeout: 30000 });
  const [b, c] = [cliStats(path.join(root, 'demo', 'gpt-4o')), cliStats(path.join(root, 'demo', 'o3'))];
  const metrics = await page.locator('[data-table="compare-metrics"]').innerText();
  assert.ok(metrics.includes(pct(b.numerical_accuracy)) && metrics.includes(pct(c.numerical_accuracy)), metrics);
  const reg = Number(await cardValue(page, 'regressed'));
  const imp = Number(await cardValue(page, 'improved'));
  // Every turn is paired (evaluation timeouts are wrong turns in both): Δcorrect = improved − regressed.
  const correct = (s) => Math.round(s.numerical_accuracy * s.total_turns);
  assert.equal(imp - reg, correct(c) - correct(b));
  assert.match(await cardValue(page, 'mcnemar_p'), /^(< 0\.001|[01]\.\d{3})$/);
  assert.match(await cardValue(page, 'bootstrap_ci'), /^\[[+-]\d+\.\d pp, [+-]\d+\.\d pp\]$/);
  const order = await flips(page);
  assert.equal(order.filter((f) => f === 'regressed').length, reg);
  assert.deepEqual(order, [...order].sort((x, y) => ORDER.indexOf(x) - ORDER.indexOf(y)), 'regressions first');
  // Diffs are text: only span/del/ins inside the diff cells.
  const tags = await page.locator('.eb-diff *').evaluateAll((es) => [...new Set(es.map((e) => e.tagName))]);
  assert.ok(tags.every((t) => ['SPAN', 'DEL', 'INS'].includes(t)), tags.join());
  await page.screenshot({ path: path.join(root, 'tests', 'e2e', 'out', 'compare-demo.png'), fullPage: false });
  // Filter to improvements: kept in the URL, and a fresh page on that link shows the same rows.
  await page.selectOption('select[name="flip"]', 'improved');
  await page.waitForFunction(() => location.hash.includes('flip=improved'));
  await page.waitForFunction((n) => document.querySelectorAll('[data-table="compare-items"] tbody tr[data-flip="improved"]').length === n
    && document.querySelectorAll('[data-table="compare-items"] tbody tr').length === n, imp);
  const other = await openPage(browser);
  await other.page.goto(page.url());
  await other.page.waitForFunction((n) => document.querySelectorAll('[data-table="compare-items"] tbody tr[data-flip="improved"]').length === n, imp);
  assertClean(other.rec);
  await other.context.close();
  assertClean(rec);
  await context.close();
});

test('eval-set runs: tunix m45 baseline vs m46 control on eval_v2 (scorecard, items, flips, regression list)', { skip: !fs.existsSync(TUNIX) && 'no ../shared/data/tunix-rt' }, async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-ev-'));
  const mk = (name, files) => {
    fs.mkdirSync(path.join(tmp, name));
    for (const f of files) fs.copyFileSync(path.join(TUNIX, f), path.join(tmp, name, f));
    return path.join(tmp, name);
  };
  const m45 = mk('m45_baseline', ['eval_v2.jsonl', 'm45_m44_baseline_predictions.jsonl', 'm45_eval_summary.json']);
  const m46 = mk('m46_control', ['eval_v2.jsonl', 'm46_control_predictions.jsonl', 'm46_eval_summary.json']);
  // The CLI's per-item verdicts (same engine, native).
  const verdicts = (dir) => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-cli-'));
    cli(['score', dir, '--out', out]);
    const rows = fs.readFileSync(path.join(out, 'predictions.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const card = JSON.parse(fs.readFileSync(path.join(out, 'scorecard.json'), 'utf8'));
    return { card, byId: new Map(rows.map((r) => [r.item_id, r.correctness])) };
  };
  const [vb, vc] = [verdicts(m45), verdicts(m46)];

  const { page, rec, context } = await openPage(browser);
  await page.goto(srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]');
  await osDrop(context, page, [m45, m46]);
  await page.waitForFunction(() => ['m45_baseline', 'm46_control'].every((n) => document.querySelector('.eb-sidebar').innerText.includes(n)));
  await page.click('.eb-sidebar >> text=m46_control');
  await page.waitForSelector('[data-metric="primary_score"]', { timeout: 30000 });
  assert.equal(await cardValue(page, 'primary_score'), pct(vc.card.primary_score));
  assert.equal(await cardValue(page, 'n_items'), String(vc.card.n_items));
  await page.waitForSelector('[data-table="by-section"]');
  assert.match(await page.locator('[data-table="by-section"]').innerText(), /core/);
  await page.waitForSelector('[data-section="validation"]');
  await page.screenshot({ path: path.join(root, 'tests', 'e2e', 'out', 'evalset-overview.png'), fullPage: true });
  await page.click('#eb-tab-items');
  await page.waitForSelector('[data-table="evalset-items"] tbody tr');
  assert.equal(await page.locator('[data-table="evalset-items"] tbody tr').count(), vc.byId.size);
  // The search is case-insensitive (the page lowercases through the browser: src/ui/browser.rs).
  const rowIds = () => page.locator('[data-table="evalset-items"] tbody tr th').allInnerTexts();
  const firstId = (await rowIds())[0];
  await page.fill('[aria-label="Search items"]', firstId.toUpperCase());
  await page.waitForFunction((n) => document.querySelectorAll('[data-table="evalset-items"] tbody tr').length < n, vc.byId.size);
  assert.ok((await rowIds()).includes(firstId), `searching ${firstId.toUpperCase()} finds ${firstId}`);
  await page.fill('[aria-label="Search items"]', 'ZZ-NO-SUCH-ITEM');
  await page.waitForFunction(() => document.querySelectorAll('[data-table="evalset-items"] tbody tr').length === 0);
  await page.fill('[aria-label="Search items"]', '');
  await page.waitForFunction((n) => document.querySelectorAll('[data-table="evalset-items"] tbody tr').length === n, vc.byId.size);

  // Compare m45 (baseline) → m46 (candidate).
  await page.click('#eb-tab-compare');
  await page.selectOption('select[name="base"]', 'm45_baseline');
  await page.selectOption('select[name="cand"]', 'm46_control');
  await page.waitForFunction(() => location.hash.includes('base=m45_baseline') && location.hash.includes('cand=m46_control'));
  await page.waitForSelector('[data-table="compare-items"] tbody tr');
  let want = { regressed: 0, improved: 0 };
  for (const [id, b] of vb.byId) {
    const c = vc.byId.get(id);
    if (b === 1 && c === 0) want.regressed++;
    if (b === 0 && c === 1) want.improved++;
  }
  await page.waitForFunction((n) => document.querySelector('[data-metric="regressed"] .eb-card__value')?.textContent === String(n), want.regressed);
  assert.equal(Number(await cardValue(page, 'improved')), want.improved);
  const order = await flips(page);
  assert.deepEqual(order.slice(0, want.regressed), Array(want.regressed).fill('regressed'), 'the regression list comes first');
  const regIds = await page.locator('[data-table="compare-items"] tbody tr[data-flip="regressed"] th').allInnerTexts();
  assert.deepEqual(regIds.sort(), [...vb.byId].filter(([id, b]) => b === 1 && vc.byId.get(id) === 0).map(([id]) => id).sort());
  await page.screenshot({ path: path.join(root, 'tests', 'e2e', 'out', 'compare-evalset.png') });
  console.log(`m45 → m46: ${want.regressed} regressed, ${want.improved} improved; primary ${vb.card.primary_score} → ${vc.card.primary_score}`);
  // A numeric QA run and an eval set cannot be compared: said so, not crashed.
  await page.selectOption('select[name="base"]', 'gpt-4o');
  await page.waitForSelector('.eb-comparison .eb-state--error');
  assertClean(rec);
  await context.close();
});
