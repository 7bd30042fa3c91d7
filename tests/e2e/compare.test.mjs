// Eval-set runs (seed 004) and the Compare tab, against the built dist/ in headless Chromium:
// the demo's gpt-4o vs o3 (numeric QA, joined on conversation + turn), and the real tunix-rt m45
// baseline vs m46 control predictions on eval_v2 dropped as two folders (checked against the CLI).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serve, launch, openPage, openRun, outsideRequests, root, osDrop, cli, cliStats, pct, dropFiles, folderPayload } from './lib.mjs';

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
/** The CLI's per-item verdicts of an eval-set run folder (same engine, native). */
function verdicts(dir, extra = []) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-cli-'));
  cli(['score', dir, '--out', out, ...extra]);
  const rows = fs.readFileSync(path.join(out, 'predictions.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const card = JSON.parse(fs.readFileSync(path.join(out, 'scorecard.json'), 'utf8'));
  return { card, byId: new Map(rows.map((r) => [r.item_id, r.correctness])), predicted: new Map(rows.map((r) => [r.item_id, r.predicted])) };
}

/** The Compare slice table by the eval-set field `field` (eval_v2's), computed from the CLI's
 * verdicts of both runs: per value, the items scored in both, each run's accuracy on them,
 * regressed, improved (the Δ column left out). */
function wantSlices(vb, vc, field) {
  const of = new Map(fs.readFileSync(path.join(TUNIX, 'eval_v2.jsonl'), 'utf8').trim().split('\n')
    .map((l) => JSON.parse(l)).map((i) => [i.id, i[field]]));
  const by = new Map();
  for (const [id, b] of vb.byId) {
    const c = vc.byId.get(id);
    const v = of.get(id);
    if (b === null || b === undefined || c === null || c === undefined || !v) continue;
    const e = by.get(v) ?? { n: 0, b: 0, c: 0, reg: 0, imp: 0 };
    e.n++; e.b += b === 1 ? 1 : 0; e.c += c === 1 ? 1 : 0;
    if (b === 1 && c !== 1) e.reg++;
    if (b !== 1 && c === 1) e.imp++;
    by.set(v, e);
  }
  return [...by].sort(([x], [y]) => (x < y ? -1 : 1))
    .map(([v, e]) => [v, String(e.n), pct(e.b / e.n), pct(e.c / e.n), String(e.reg), String(e.imp)]);
}

/** The slice table as shown, without its Δ column (as `wantSlices`). */
const shownSlices = (page) => page.locator('[data-table="compare-slices"] tbody tr')
  .evaluateAll((rs) => rs.map((r) => [...r.children].map((x) => x.textContent)).map((r) => [r[0], r[1], r[2], r[3], r[5], r[6]]));

/** Slices the Compare tab's paired items by `field` (the select, kept in the link). */
async function sliceBy(page, field) {
  await page.selectOption('select[name="by"]', field);
  const head = field[0].toUpperCase() + field.slice(1);
  await page.waitForFunction(([f, h]) => location.hash.includes(`by=${f}`)
    && document.querySelector('[data-table="compare-slices"] thead th')?.textContent === h, [field, head]);
}

const ORDER = ['regressed', 'improved', 'unchanged_correct', 'unchanged_wrong', 'only_in_baseline', 'only_in_candidate', 'unscored'];

test('compare the demo runs: gpt-4o vs o3, regressions first, deep link, text-only diffs', async () => {
  const { page, rec, context } = await openPage(browser);
  await page.goto(`${srv.url}#run=o3&tab=compare&base=gpt-4o&cand=o3`);
  await page.waitForSelector('[data-table="compare-items"] tbody tr', { timeout: 30000 });
  const [b, c] = [cliStats(path.join(root, 'demo', 'gpt-4o')), cliStats(path.join(root, 'demo', 'o3'))];
  const metrics = await page.locator('[data-table="compare-metrics"]').innerText();
  assert.ok(metrics.includes(pct(b.numerical_accuracy)) && metrics.includes(pct(c.numerical_accuracy)), metrics);
  // Tokens and cost are compared in their own units, with a signed change (issue 17.2).
  const row = (k) => page.locator(`[data-metric-row="${k}"] td`).allInnerTexts();
  const tokens = await row('total_tokens');
  const int = (n) => n.toLocaleString('en-US');
  assert.deepEqual(tokens.slice(0, 2), [int(b.total_tokens), int(c.total_tokens)]);
  assert.match(tokens[2], /^[+-][\d,]+$/);
  // Deltas per slice (issue 17.2): the demo's turns carry no category, so the table is by turn
  // at first. Every turn is paired, so each turn's accuracies are the runs' own accuracy by turn
  // number (the CLI's statistics.json).
  const sliceRows = () => page.locator('[data-table="compare-slices"] tbody tr').evaluateAll((rs) => rs.map((r) => [...r.children].map((x) => x.textContent)));
  const sliceHead = () => page.locator('[data-table="compare-slices"] thead th').first().textContent();
  assert.equal(await page.locator('select[name="cat"]').count(), 0);
  assert.equal(await sliceHead(), 'Turn');
  assert.deepEqual(await page.locator('select[name="by"] option').allInnerTexts(), ['turn', 'operations']);
  const byTurn = await sliceRows();
  assert.deepEqual(byTurn.map((r) => [r[0], r[2], r[3]]),
    Object.keys(b.accuracy_by_turn_number).map((k) => [k, pct(b.accuracy_by_turn_number[k]), pct(c.accuracy_by_turn_number[k])]));
  assert.equal(byTurn.reduce((a, r) => a + Number(r[1]), 0), b.total_turns, 'every turn paired once');
  // By operations (a pair's fields are the baseline's: its plan's operations per turn): the
  // baseline's accuracy by operations, and the choice kept in the link.
  await page.selectOption('select[name="by"]', 'operations');
  await page.waitForFunction(() => location.hash.includes('by=operations'));
  await page.waitForFunction(() => document.querySelector('[data-table="compare-slices"] thead th')?.textContent === 'Operations');
  const byOps = await sliceRows();
  assert.deepEqual(byOps.map((r) => [r[0], r[2]]),
    Object.keys(b.accuracy_by_operations_per_turn).map((k) => [k, pct(b.accuracy_by_operations_per_turn[k])]));
  assert.equal(await page.locator('[data-section="compare-slices"] h2').innerText(), 'By operations');
  await page.locator('[data-section="compare-slices"]').screenshot({ path: path.join(root, 'tests', 'e2e', 'out', 'compare-slices-operations.png') });
  const cost = await row('total_cost_usd');
  assert.ok(cost.every((x) => !x.includes('%')), cost.join(' | '));
  const reg = Number(await cardValue(page, 'regressed'));
  const imp = Number(await cardValue(page, 'improved'));
  // Every turn is paired (evaluation timeouts are wrong turns in both): Δcorrect = improved − regressed.
  const correct = (s) => Math.round(s.numerical_accuracy * s.total_turns);
  assert.equal(imp - reg, correct(c) - correct(b));
  assert.match(await cardValue(page, 'mcnemar_p'), /^(< 0\.0001|[01]\.\d{4})$/);
  assert.match(await cardValue(page, 'bootstrap_ci'), /^\[[+-]\d+\.\d pp, [+-]\d+\.\d pp\]$/);
  const order = await flips(page);
  assert.equal(order.filter((f) => f === 'regressed').length, reg);
  assert.deepEqual(order, [...order].sort((x, y) => ORDER.indexOf(x) - ORDER.indexOf(y)), 'regressions first');
  // Diffs are text: only span/del/ins inside the diff cells.
  const tags = await page.locator('.eb-diff__box *').evaluateAll((es) => [...new Set(es.map((e) => e.tagName))]);
  // (Two answers that share little are both shown whole: a note and two paragraphs.)
  assert.ok(tags.every((t) => ['SPAN', 'DEL', 'INS', 'SMALL', 'DIV', 'P'].includes(t)), tags.join());
  await page.screenshot({ path: path.join(root, 'tests', 'e2e', 'out', 'compare-demo.png'), fullPage: false });
  // A row opens the item of both runs side by side in a drawer (keyboard: Tab to its button,
  // Enter): each run's turn (question, answer, verdicts, conversation) and the answers' diff.
  const firstReg = page.locator('[data-table="compare-items"] tbody tr[data-flip="regressed"]').first();
  await firstReg.locator('[data-action="side-by-side"]').focus();
  await page.keyboard.press('Enter');
  const pair = page.locator('.eb-drawer [data-testid="pair"]');
  await pair.locator('[data-group="Candidate"]').waitFor();
  const answer = (side) => pair.locator(`[data-group="${side}"] [data-field="answer"]`).innerText();
  const [bAns, cAns] = [await answer('Baseline'), await answer('Candidate')];
  assert.ok(bAns.trim() && cAns.trim() && bAns !== cAns, `${bAns} | ${cAns}`);
  const facts = await pair.locator('.eb-facts').first().innerText();
  assert.match(facts, /Baseline · gpt-4o\s+correct/);
  assert.match(facts, /Candidate · o3\s+wrong/);
  assert.ok(await pair.locator('[data-group="conversation"]').count() === 2, 'both conversations');
  await page.screenshot({ path: path.join(root, 'tests', 'e2e', 'out', 'compare-side-by-side.png'), fullPage: false });
  await page.keyboard.press('Escape');
  await page.waitForSelector('.eb-drawer', { state: 'detached' });
  const firstRegKey = await firstReg.locator('th').innerText();
  assert.ok(firstRegKey, 'the table is still there');
  // A row's key opens its item: the candidate's conversation at that turn, over the Compare tab.
  const regKey = firstRegKey.trim();
  const [convId, turnIdx] = regKey.split(' · ');
  await firstReg.locator('[data-action="open-item"]').click();
  await page.waitForSelector('.eb-drawer .eb-turn--selected');
  assert.equal(await page.locator('.eb-drawer .eb-turn--selected').getAttribute('data-turn'), turnIdx);
  assert.ok((await page.locator('.eb-drawer').innerText()).includes(convId), regKey);
  assert.ok(page.url().includes('run=o3') && page.url().includes(`item=${encodeURIComponent(convId)}/${turnIdx}`), page.url());
  assert.ok(page.url().includes('tab=compare'), page.url());
  await page.screenshot({ path: path.join(root, 'tests', 'e2e', 'out', 'compare-open-item.png'), fullPage: false });
  await page.keyboard.press('Escape');
  await page.waitForSelector('.eb-drawer', { state: 'detached' });
  await page.waitForSelector('[data-table="compare-items"] tbody tr');
  // A changed value reads as two values, old → new, never run together.
  const glued = await page.locator('[data-table="compare-items"] .eb-diff__box del + ins').evaluateAll((is) =>
    is.filter((i) => !(i.previousSibling?.textContent ?? '').includes('→')).length);
  assert.equal(glued, 0, 'an arrow stands between a removed and an inserted word');
  const texts = await page.locator('[data-table="compare-items"] .eb-diff__box').allInnerTexts();
  assert.ok(texts.some((t) => t.includes(' → ')), texts.slice(0, 5).join(' | '));
  // Filter to improvements: kept in the URL, and a fresh page on that link shows the same rows.
  await page.selectOption('select[name="flip"]', 'improved');
  await page.waitForFunction(() => location.hash.includes('flip=improved'));
  await page.waitForFunction((n) => document.querySelectorAll('[data-table="compare-items"] tbody tr[data-flip="improved"]').length === n
    && document.querySelectorAll('[data-table="compare-items"] tbody tr').length === n, imp);
  const other = await openPage(browser);
  await other.page.goto(page.url());
  await other.page.waitForFunction((n) => document.querySelectorAll('[data-table="compare-items"] tbody tr[data-flip="improved"]').length === n, imp);
  assert.equal(await other.page.locator('[data-table="compare-slices"] thead th').first().textContent(), 'Operations', 'the slice field from the link');
  assert.equal(await other.page.locator('select[name="by"]').inputValue(), 'operations');
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
  const [vb, vc] = [verdicts(m45), verdicts(m46)];

  const { page, rec, context } = await openPage(browser);
  await page.goto(srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]');
  await osDrop(context, page, [m45, m46]);
  await page.waitForFunction(() => ['m45_baseline', 'm46_control'].every((n) => document.querySelector('.eb-sidebar').innerText.includes(n)));
  await openRun(page, 'm46_control');
  await page.waitForSelector('[data-metric="primary_score"]', { timeout: 30000 });
  assert.equal(await cardValue(page, 'primary_score'), pct(vc.card.primary_score));
  assert.equal(await cardValue(page, 'n_items'), String(vc.card.n_items));
  await page.waitForSelector('[data-table="by-section"]');
  assert.match(await page.locator('[data-table="by-section"]').innerText(), /core/);
  await page.waitForSelector('[data-section="validation"]');
  await page.screenshot({ path: path.join(root, 'tests', 'e2e', 'out', 'evalset-overview.png'), fullPage: true });
  await page.click('#eb-tab-items');
  // Items: a virtualised table with its own filters; the count says how many match.
  const count = () => page.locator('.eb-items__count').innerText();
  await page.waitForSelector('.eb-grid--evalset .eb-grid__row');
  assert.equal(await count(), `${vc.byId.size} items`);
  // The search is case-insensitive.
  const rowIds = () => page.locator('.eb-grid--evalset .eb-grid__row').evaluateAll((rs) => rs.map((r) => r.children[1].textContent));
  const firstId = (await rowIds())[0];
  await page.fill('input[name="q"]', firstId.toUpperCase());
  await page.waitForFunction((n) => !document.querySelector('.eb-items__count')?.textContent.startsWith(`${n} items`), vc.byId.size);
  assert.ok((await rowIds()).includes(firstId), `searching ${firstId.toUpperCase()} finds ${firstId}`);
  await page.fill('input[name="q"]', 'ZZ-NO-SUCH-ITEM');
  await page.waitForFunction(() => document.querySelectorAll('.eb-grid--evalset .eb-grid__row').length === 0);
  await page.fill('input[name="q"]', '');
  await page.waitForFunction((n) => document.querySelector('.eb-items__count')?.textContent === `${n} items`, vc.byId.size);
  // Filters by the items' own fields (section), and by verdict.
  const sections = await page.locator('select[name="section"] option').evaluateAll((os) => os.map((o) => o.value).filter(Boolean));
  assert.ok(sections.length >= 1, 'a section filter');
  await page.selectOption('select[name="section"]', sections[0]);
  await page.waitForFunction((sec) => {
    const rows = [...document.querySelectorAll('.eb-grid--evalset .eb-grid__row')];
    return rows.length > 0 && rows.every((r) => r.children[7].textContent === sec);
  }, sections[0]);
  await page.selectOption('select[name="section"]', '');
  await page.selectOption('select[name="verdict"]', 'wrong');
  await page.waitForFunction(() => {
    const rows = [...document.querySelectorAll('.eb-grid--evalset .eb-grid__row')];
    return rows.length > 0 && rows.every((r) => r.children[5].textContent === 'wrong');
  });
  // A row opens the item with its whole prediction, as text.
  const wrongId = (await rowIds())[0];
  // The row of that id (not "the first row": the grid may lay itself out again meanwhile).
  await page.locator('.eb-grid--evalset .eb-grid__row')
    .filter({ has: page.locator(':scope > :nth-child(2)', { hasText: new RegExp(`^${wrongId}$`) }) })
    .first().click();
  await page.waitForSelector('.eb-drawer [data-field="predicted"]');
  // The item the drawer opened (a click lands by position: if the virtualised grid moved its
  // rows under the pointer it opens a neighbour, which is also a wrong item).
  await page.waitForFunction(() => /^Item \S/.test(document.querySelector('#eb-drawer-title')?.textContent || ''));
  const openedId = (await page.locator('#eb-drawer-title').innerText()).replace(/^Item /, '');
  const wrongIds = await rowIds();
  assert.ok(openedId === wrongId || wrongIds.includes(openedId), `opened ${openedId}, clicked ${wrongId}`);
  if (openedId !== wrongId) console.log(`# the click on ${wrongId} opened ${openedId} (rows moved)`);
  assert.equal(vc.byId.get(openedId), 0, 'the CLI scores it wrong too');
  const fullPrediction = vc.predicted.get(openedId);
  // The drawer holds this item's prediction once it has rendered.
  await page.waitForFunction((head) => (document.querySelector('.eb-drawer [data-field="predicted"]')?.innerText || '')
    .startsWith(head), fullPrediction.slice(0, 40).trimEnd(), { timeout: 30000 });
  const predicted = await page.locator('.eb-drawer [data-field="predicted"]').innerText();
  assert.ok(predicted.length >= Math.min(fullPrediction.length, 4000) - 2, 'the whole prediction, not a cell');
  assert.ok(fullPrediction.startsWith(predicted.slice(0, 200).trimEnd()), predicted.slice(0, 200));
  await page.screenshot({ path: path.join(root, 'tests', 'e2e', 'out', 'evalset-item.png') });
  await page.keyboard.press('Escape');
  await page.selectOption('select[name="verdict"]', '');

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
  // An item opens by its key in the candidate: its drawer names it.
  const reg = page.locator('[data-table="compare-items"] tbody tr:not(.eb-side)').first();
  const regId = (await reg.locator('th').innerText()).trim();
  await reg.locator('[data-action="open-item"]').click();
  await page.waitForFunction((id) => document.querySelector('.eb-drawer')?.innerText.includes(`Item ${id}`), regId);
  assert.ok(page.url().includes('run=m46_control'), page.url());
  await page.keyboard.press('Escape');
  await page.waitForSelector('.eb-drawer', { state: 'detached' });
  // Deltas per slice: every category with its paired items, both accuracies and the change;
  // their regressions add up to the card's.
  const slices = await page.locator('[data-table="compare-slices"] tbody tr').evaluateAll((rs) => rs.map((r) => [...r.children].map((c) => c.textContent)));
  assert.ok(slices.length >= 2, JSON.stringify(slices));
  assert.ok(slices.every((r) => /^[+-]?\d+\.\d pp$/.test(r[4])), 'each slice has its change in points');
  assert.equal(slices.reduce((a, r) => a + Number(r[5]), 0), want.regressed, 'the regressions, by category');
  await page.screenshot({ path: path.join(root, 'tests', 'e2e', 'out', 'compare-evalset.png') });
  // Sliced by difficulty instead (the eval set's own field): each row's counts and accuracies
  // are the CLI's verdicts of the items of that difficulty scored in both runs.
  assert.deepEqual(await page.locator('select[name="by"] option').allInnerTexts(), ['category', 'section', 'difficulty']);
  await sliceBy(page, 'difficulty');
  assert.deepEqual(await shownSlices(page), wantSlices(vb, vc, 'difficulty'));
  // Long real outputs are clipped and the first 50 rows shown (regressions first): the page stays
  // short, a focused cell shows its output whole, and one click shows the rest.
  const height = await page.evaluate(() => document.scrollingElement.scrollHeight);
  assert.ok(height <= 8000, `the m45 vs m46 Compare page is ${height} px tall`);
  const box = page.locator('[data-table="compare-items"] .eb-diff__box >> nth=0');
  const clipped = await box.evaluate((e) => e.clientHeight);
  const whole = await box.evaluate((e) => e.scrollHeight);
  if (whole > clipped) {
    await box.focus();
    assert.ok((await box.evaluate((e) => e.clientHeight)) >= whole - 1, 'focus shows the whole output');
  }
  const total = want.regressed + want.improved + vb.byId.size; // more than 50 rows in all
  if (await page.locator('[data-testid="compare-more"]').count()) {
    const before = await page.locator('[data-table="compare-items"] tbody tr').count();
    assert.equal(before, 50);
    await page.click('[data-testid="compare-more"]');
    await page.waitForFunction((n) => document.querySelectorAll('[data-table="compare-items"] tbody tr').length > n, before);
  }
  assert.ok(total > 0);
  console.log(`m45 → m46: ${want.regressed} regressed, ${want.improved} improved; primary ${vb.card.primary_score} → ${vc.card.primary_score}`);
  // A numeric QA run and an eval set cannot be compared: said so, not crashed.
  await page.selectOption('select[name="base"]', 'gpt-4o');
  await page.waitForSelector('.eb-comparison .eb-state--error');
  assertClean(rec);
  await context.close();
});

test('a series of three eval-set runs (m45 stages a → b → c): live re-scoring, flips per step, a step\'s regression list, Export, the Errors badge', { skip: !fs.existsSync(TUNIX) && 'no ../shared/data/tunix-rt' }, async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-series-'));
  const dirs = ['a', 'b', 'c'].map((s) => {
    const d = path.join(tmp, `stage_${s}`);
    fs.mkdirSync(d);
    for (const f of ['eval_v2.jsonl', 'm45_eval_summary.json']) fs.copyFileSync(path.join(TUNIX, f), path.join(d, f));
    fs.copyFileSync(path.join(TUNIX, 'm45_curriculum', `post_stage_${s}_predictions.jsonl`), path.join(d, `post_stage_${s}_predictions.jsonl`));
    return d;
  });
  // The CLI's series under the extracting scorer (same engine, native).
  const cliSeries = JSON.parse(cli(['diff', ...dirs, '--profile', 'v1-extract', '--json']));
  assert.equal(cliSeries.steps.length, 2);

  const { page, rec, context } = await openPage(browser);
  await page.goto(srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]');
  // The Errors badge belongs to the current run: the demo's numeric QA run has one.
  await page.waitForSelector('#eb-tab-errors .eb-tabs__count');
  const qaErrors = await page.locator('#eb-tab-errors .eb-tabs__count').innerText();
  await osDrop(context, page, dirs);
  await page.waitForFunction(() => ['stage_a', 'stage_b', 'stage_c'].every((n) => document.querySelector('.eb-sidebar').innerText.includes(n)));
  await openRun(page, 'stage_a');
  await page.waitForSelector('[data-metric="primary_score"]', { timeout: 30000 });
  assert.equal(await page.locator('#eb-tab-errors .eb-tabs__count').count(), 0, 'no stale badge on an eval-set run');
  await openRun(page, 'gpt-4o');
  await page.waitForSelector('[data-metric="numerical_accuracy"]');
  await page.waitForFunction((n) => document.querySelector('#eb-tab-errors .eb-tabs__count')?.textContent === n, qaErrors);
  await openRun(page, 'stage_a');
  await page.waitForSelector('[data-metric="primary_score"]');
  assert.equal(await page.locator('#eb-tab-errors .eb-tabs__count').count(), 0);
  assert.match(await page.locator('.eb-runhead__profile').innerText(), /scorer: answer_correctness@v1$/);

  // Settings: the extracting scorer re-scores every eval-set run live.
  await page.click('#eb-tab-settings');
  await page.selectOption('select[name="evalset_scorer"]', 'answer_correctness@v1-extract');
  await page.click('#eb-tab-overview');
  await page.waitForFunction(() => document.querySelector('[data-metric="primary_score"] .eb-card__value')?.textContent === '13.0%');
  assert.match(await page.locator('.eb-runhead__profile').innerText(), /v1-extract/);

  // Compare: stage_a → stage_b, then add stage_c to the series.
  await page.click('#eb-tab-compare');
  await page.selectOption('select[name="base"]', 'stage_a');
  await page.selectOption('select[name="cand"]', 'stage_b');
  await page.click('[data-action="add-run"]');
  await page.waitForFunction(() => location.hash.includes('also=stage_c'));
  await page.waitForFunction(() => document.querySelectorAll('[data-table="series-steps"] tbody tr').length === 2);
  // Columns: step (row header), regressed, improved, paired, Δ, CI, McNemar p.
  const counts = await page.locator('[data-table="series-steps"] tbody tr').evaluateAll((rs) => rs.map((r) => {
    const td = r.querySelectorAll('td');
    return [Number(td[0].textContent), Number(td[1].textContent)];
  }));
  const want = cliSeries.steps.map((s) => [s.regressed.length, s.improved.length]);
  assert.deepEqual(counts, want, 'flips per step equal the CLI');
  assert.deepEqual(want, [[11, 9], [7, 13]]);
  const metricsText = await page.locator('[data-table="series-metrics"]').innerText();
  for (const v of ['13.0%', '11.0%', '17.0%']) assert.ok(metricsText.includes(v), metricsText);
  await page.waitForSelector('[data-chart="series_metrics"] svg');
  // Step 2's items: regressions first, the same ids as the CLI's.
  await page.selectOption('select[name="step"]', '1');
  await page.waitForFunction(() => location.hash.includes('step=1'));
  await page.waitForFunction(() => document.querySelector('select[name="step"]')?.selectedOptions[0]?.textContent.includes('stage_b → stage_c'));
  assert.equal(await page.locator('[data-table="series-steps"] tbody tr.eb-row--marked').count(), 1, 'the listed step is highlighted');
  await page.waitForFunction((n) => document.querySelector('[data-metric="regressed"] .eb-card__value')?.textContent === String(n), 7);
  const order = await flips(page);
  assert.deepEqual(order.slice(0, 7), Array(7).fill('regressed'), 'the regression list comes first');
  const regIds = await page.locator('[data-table="compare-items"] tbody tr[data-flip="regressed"] th').allInnerTexts();
  assert.deepEqual(regIds.sort(), cliSeries.steps[1].regressed.map((k) => k[0]).sort());
  // The step's deltas per slice, by difficulty then by section: the CLI's verdicts of stage_b
  // and stage_c under the same scorer, item by item.
  const [vStageB, vStageC] = [verdicts(dirs[1], ['--profile', 'v1-extract']), verdicts(dirs[2], ['--profile', 'v1-extract'])];
  await sliceBy(page, 'difficulty');
  assert.deepEqual(await shownSlices(page), wantSlices(vStageB, vStageC, 'difficulty'));
  await page.locator('[data-section="compare-slices"]').screenshot({ path: path.join(root, 'tests', 'e2e', 'out', 'compare-slices-difficulty.png') });
  await sliceBy(page, 'section');
  assert.deepEqual(await shownSlices(page), wantSlices(vStageB, vStageC, 'section'));
  // Metadata: the checkpoints differ (said in text), the eval set is the same.
  const metaRow = (label) => page.locator(`[data-table="run-metadata"] tbody tr:has(th:text-is("${label}"))`);
  assert.match(await metaRow('Checkpoint').innerText(), /≠ differs/);
  assert.doesNotMatch(await metaRow('Eval set').innerText(), /differs/);
  await page.setViewportSize({ width: 1400, height: 1700 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(root, 'tests', 'e2e', 'out', 'compare-series.png') });
  await page.setViewportSize({ width: 1400, height: 900 });
  console.log(`m45 series (v1-extract): steps ${JSON.stringify(counts)}; step 2 regressions ${regIds.join(', ')}`);

  // Export of an eval-set run: scorecard.json as the CLI writes it under the same scorer.
  await openRun(page, 'stage_c');
  await page.click('#eb-tab-export');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('[data-export="scorecard.json"]')]);
  const got = fs.readFileSync(await dl.path(), 'utf8');
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-cli-'));
  cli(['score', dirs[2], '--profile', 'v1-extract', '--out', out]);
  assert.equal(got, fs.readFileSync(path.join(out, 'scorecard.json'), 'utf8'));
  const [dl2] = await Promise.all([page.waitForEvent('download'), page.click('[data-export="predictions.jsonl"]')]);
  assert.equal(fs.readFileSync(await dl2.path(), 'utf8'), fs.readFileSync(path.join(out, 'predictions.jsonl'), 'utf8'));
  // Back to the default scorer for the next test's context (settings live in localStorage).
  await page.click('#eb-tab-settings');
  await page.selectOption('select[name="evalset_scorer"]', 'answer_correctness@v1');
  assertClean(rec);
  await context.close();
});

test('two runs with training metrics: the loss-curve overlay and the run metadata side by side (light and dark), and the report', async () => {
  const runs = path.join(root, 'tests', 'fixtures', 'evalset', 'ok', 'loss_curve', 'runs');
  const { page, rec, context } = await openPage(browser);
  await page.goto(`${srv.url}#tab=compare`);
  await page.waitForSelector('.eb-sidebar');
  await osDrop(context, page, [path.join(runs, 'sft_lr1e-5'), path.join(runs, 'sft_lr3e-5')]);
  await page.waitForFunction(() => ['sft_lr1e-5', 'sft_lr3e-5'].every((n) => document.querySelector('.eb-sidebar').innerText.includes(n)));
  await page.click('#eb-tab-compare');
  await page.selectOption('select[name="base"]', 'sft_lr1e-5');
  await page.selectOption('select[name="cand"]', 'sft_lr3e-5');
  await page.waitForSelector('[data-chart="loss_curve"] svg', { timeout: 30000 });
  const chart = page.locator('[data-chart="loss_curve"]');
  const svg = await chart.locator('.eb-chart__svg').innerHTML();
  assert.ok((svg.match(/<polyline/g) || []).length >= 2, 'one line per run');
  for (const t of ['>Step<', '>Loss<', '>sft_lr1e-5<', '>sft_lr3e-5<']) assert.ok(svg.includes(t), t);
  const alt = await chart.locator('.eb-chart__svg').getAttribute('aria-label');
  const golden = fs.readFileSync(path.join(root, 'tests', 'fixtures', 'evalset', 'ok', 'loss_curve', 'expected', 'loss_curve.txt'), 'utf8');
  // The same chart as the report crate's golden (that one also has the single-point run).
  assert.match(alt, /^Line chart “Training loss by step”: training loss against step for 2 runs; final loss sft_lr1e-5 0\.6448 at step 300/);
  // The data table (inside a closed <details>): the same rows as the golden table.
  const rows = await chart.locator('table tbody tr').evaluateAll((rs) => rs.map((r) => [...r.cells].map((c) => c.textContent).join('\t')));
  assert.deepEqual(rows.map((r) => r.split('\t')[0]), ['sft_lr1e-5', 'sft_lr3e-5']);
  for (const r of rows) assert.ok(golden.includes(`${r}\n`), r);
  // Metadata: config and command differ (marked in text), model and eval set do not.
  const metaRow = (label) => page.locator(`[data-table="run-metadata"] tbody tr:has(th:text-is("${label}"))`);
  for (const k of ['Config', 'Command', 'Training duration', 'Final training loss']) {
    assert.match(await metaRow(k).innerText(), /≠ differs/, k);
    assert.match(await metaRow(k).getAttribute('class'), /eb-row--marked/, k);
  }
  for (const k of ['Model', 'Eval set', 'Dataset']) assert.doesNotMatch(await metaRow(k).innerText(), /differs/, k);
  await page.setViewportSize({ width: 1400, height: 1500 });
  await page.screenshot({ path: path.join(root, 'tests', 'e2e', 'out', 'compare-loss-light.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForFunction(() => document.querySelector('[data-chart="loss_curve"] svg')?.getAttribute('class')?.includes('ebc-dark'));
  await page.screenshot({ path: path.join(root, 'tests', 'e2e', 'out', 'compare-loss-dark.png') });
  await page.setViewportSize({ width: 1400, height: 900 });
  // The report of the candidate with the baseline carries the same chart and metadata.
  await openRun(page, 'sft_lr3e-5');
  await page.click('#eb-tab-export');
  const baseId = await page.locator('[data-report-baseline] option', { hasText: 'sft_lr1e-5' }).getAttribute('value');
  await page.selectOption('[data-report-baseline]', baseId);
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('[data-export="report.html"]')]);
  const html = fs.readFileSync(await dl.path(), 'utf8');
  assert.ok(html.includes('data-chart="loss_curve"'));
  assert.ok(html.includes('Run metadata (≠ marks a difference)'));
  assert.ok(html.includes('≠ differs'));
  assertClean(rec);
  await context.close();
});

/** Two numeric QA runs whose answers differ in how numbers are written, or wholly. */
function qaPair() {
  const tmp = fs.mkdtempSync(path.join(root, 'tests', 'e2e', 'out', 'qa-pair-'));
  const rows = (answers) => answers.map(([c, t, q, e, p]) => JSON.stringify({ conversation_id: c, turn_idx: t, question: q, expected: e, predicted: p })).join('\n');
  const write = (name, answers) => {
    fs.mkdirSync(path.join(tmp, name));
    fs.writeFileSync(path.join(tmp, name, 'run.jsonl'), `${rows(answers)}\n`);
    return path.join(tmp, name);
  };
  const a = write('qa_a', [
    ['c1', 0, 'What is the ratio?', '4.5', 'The ratio is 4.5'],
    ['c1', 1, 'And the total?', '1000', 'The total is 1,000 units'],
    ['c2', 0, 'How did revenue change?', '12', 'The revenue grew by twelve percent in the third quarter of the year'],
  ]);
  const b = write('qa_b', [
    ['c1', 0, 'What is the ratio?', '4.5', 'The ratio is 4.50'],
    ['c1', 1, 'And the total?', '1000', 'The total is 1000 units'],
    ['c2', 0, 'How did revenue change?', '12', 'I cannot answer that from the table given here'],
  ]);
  return { tmp, a, b };
}

/** The page does not scroll sideways at the viewport's width. */
const noSideScroll = (page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

test('Compare defaults to the most similar run of the current run\'s family (never a demo run of another family); numbers in the word diff; a row side by side; 390 px', async () => {
  const { tmp, a, b } = qaPair();
  const LOGS = path.join(root, 'tests', 'fixtures', 'evallog', 'runs');
  const { page, rec, context } = await openPage(browser);
  await page.goto(srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
  for (const dir of [a, b, path.join(LOGS, 'inspect_repeats_a'), path.join(LOGS, 'inspect_repeats_b')]) {
    await dropFiles(page, '.eb-app', folderPayload(dir));
    const name = path.basename(dir);
    await page.waitForFunction((n) => [...document.querySelectorAll('.eb-run')]
      .find((r) => r.querySelector('.eb-run__name')?.textContent.trim() === n)?.querySelector('.eb-run__acc'), name, { timeout: 60000 });
  }
  // An eval log's Compare: its baseline is the other eval log, not the first loaded (a demo
  // numeric QA run), and the tab shows a comparison, not an error.
  await page.evaluate(() => { location.hash = '#run=inspect_repeats_b&tab=compare'; });
  await page.waitForSelector('[data-table="compare-items"] tbody tr', { timeout: 30000 });
  assert.equal(await page.locator('select[name="base"]').inputValue(), 'inspect_repeats_a');
  assert.equal(await page.locator('select[name="cand"]').inputValue(), 'inspect_repeats_b');
  assert.equal(await page.locator('.eb-state--error').count(), 0, 'no error state');
  // A row side by side: both samples' blocks and the outputs' diff.
  await page.locator('[data-table="compare-items"] tbody tr [data-action="side-by-side"]').first().click();
  const pair = page.locator('.eb-drawer [data-testid="pair"]');
  await pair.locator('[data-group="Candidate"]').waitFor();
  for (const side of ['Baseline', 'Candidate']) {
    const text = await pair.locator(`[data-group="${side}"]`).innerText();
    assert.match(text, /input/i, `${side}: ${text.slice(0, 200)}`);
  }
  await page.screenshot({ path: path.join(root, 'tests', 'e2e', 'out', 'compare-pair-evallog.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(300);
  assert.ok(await noSideScroll(page), 'the pair drawer fits 390 px');
  await page.screenshot({ path: path.join(root, 'tests', 'e2e', 'out', 'compare-pair-evallog-390.png') });
  await page.keyboard.press('Escape');
  await page.waitForSelector('.eb-drawer', { state: 'detached' });
  assert.ok(await noSideScroll(page), 'the Compare tab fits 390 px');
  await page.screenshot({ path: path.join(root, 'tests', 'e2e', 'out', 'compare-evallog-390.png'), fullPage: true });
  await page.setViewportSize({ width: 1400, height: 900 });

  // A dropped numeric QA run compares with the other dropped one, not with a demo run.
  await page.evaluate(() => { location.hash = '#run=qa_b&tab=compare'; });
  await page.waitForFunction(() => document.querySelector('select[name="base"]')?.value === 'qa_a'
    && document.querySelectorAll('[data-table="compare-items"] tbody tr').length === 3, null, { timeout: 30000 });
  const diffOf = (key) => page.locator('[data-table="compare-items"] tbody tr').filter({ has: page.locator('th', { hasText: key }) }).locator('.eb-diff__box');
  // 4.5 against 4.50, 1,000 against 1000: equal as numbers, never "4.5 → 50".
  const ratio = await diffOf('c1 · 0').innerText();
  assert.ok(ratio.includes('4.5') && ratio.includes('equal as numbers') && !ratio.includes('→'), ratio);
  const total = await diffOf('c1 · 1').innerText();
  assert.ok(total.includes('(= 1000, equal as numbers)') && !total.includes('→'), total);
  // Two answers that share little: both whole, said so.
  const whole = await diffOf('c2 · 0').innerText();
  assert.ok(whole.includes('no common text') && whole.includes('The revenue grew by twelve percent in the third quarter of the year')
    && whole.includes('I cannot answer that from the table given here'), whole);
  await page.screenshot({ path: path.join(root, 'tests', 'e2e', 'out', 'compare-number-diff.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(300);
  assert.ok(await noSideScroll(page), 'the Compare tab fits 390 px');
  await page.screenshot({ path: path.join(root, 'tests', 'e2e', 'out', 'compare-number-diff-390.png'), fullPage: true });
  assertClean(rec);
  await context.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});
