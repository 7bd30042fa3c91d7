// Evaluation-tool logs (issue 16) in the dashboard, against the built dist/ in headless Chromium:
// an Inspect `.eval`, an lm-evaluation-harness results + samples folder, a promptfoo export, an
// OpenAI Evals record file and a HELM run folder (the project's fixtures, made from the tools' own
// files), each dropped and checked against `evalboard score --json` on the same files; then the
// sample table and drawer, a recorded number the samples do not give, and a comparison of two
// lm-eval runs against `evalboard diff --json`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { assertQuiet,
  withApp, openPage, outsideRequests, folderPayload, dropFiles, root, outDir, cli, cliStats, pct, metric, osDrop,
} from './lib.mjs';

const LOGS = path.join(root, 'tests', 'fixtures', 'evallog');
const REAL = path.resolve(root, '..', 'shared', 'data', 'eval-formats');
const DROP = '.eb-app';
const app = withApp();

const assertClean = (rec) => assertQuiet(rec, app.srv.origin);

async function shot(page, name, fullPage = false) {
  await page.screenshot({ path: path.join(outDir, `evallog-${name}.png`), fullPage });
}

/** Waits until the eval-log run `name` is current with its headline cards. */
async function waitLog(page, name) {
  await page.waitForFunction(
    (n) => document.querySelector('.eb-runhead__title')?.textContent.trim().startsWith(n)
      && document.querySelector('[data-metric="headline_score"]'),
    name, { timeout: 60000 },
  );
}

/** Waits until a picked log's run is current with `n` samples. */
async function waitPicked(page, n) {
  await page.waitForFunction((k) => document.querySelector('[data-metric="n_samples"] .eb-card__value')?.textContent === String(k)
    && document.querySelector('.eb-runhead__facts')?.textContent.startsWith('eval log'), n, { timeout: 60000 });
}

const dec4 = (x) => (x === null || x === undefined ? '—' : x.toFixed(4));

const CASES = [
  ['Inspect AI .eval', path.join(LOGS, 'runs', 'inspect_arith')],
  ['lm-evaluation-harness folder', path.join(LOGS, 'runs', 'lm_eval_baseline')],
  ['promptfoo export', path.join(LOGS, 'runs', 'promptfoo_baseline')],
  ['OpenAI Evals record file', path.join(LOGS, 'ok', 'openai_evals_fuzzy', 'input')],
  ['HELM run folder', path.join(LOGS, 'ok', 'helm_exact_match', 'input')],
];

test('each tool\'s log: headline, accuracy and counts = CLI; samples table; a sample in full, as text', async () => {
  const { page, rec, context } = await openPage(app.browser);
  await page.goto(app.srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
  for (const [label, dir] of CASES) {
    const want = cliStats(dir);
    const name = path.basename(dir);
    await dropFiles(page, DROP, folderPayload(dir));
    await waitLog(page, name);
    assert.equal(await metric(page, 'headline_score'), dec4(want.headline_score), `${label}: headline`);
    assert.equal(await metric(page, 'accuracy'), pct(want.accuracy), `${label}: accuracy`);
    assert.equal(await metric(page, 'n_samples'), String(want.n_samples), `${label}: samples`);
    assert.equal(await metric(page, 'n_errors'), String(want.n_errors), `${label}: errors`);
    assert.equal(await metric(page, 'n_mismatches'), String(want.n_mismatches), `${label}: mismatches`);
    // The run list shows the same headline.
    assert.equal((await page.locator('.eb-run--current .eb-run__acc').innerText()).trim(),
      want.headline_score === null ? '—' : want.headline_score.toFixed(3), label);
    // Every recorded number beside its recomputation.
    await page.waitForSelector('[data-table="headlines"]');
    assert.equal(await page.locator('[data-table="headlines"] tr.eb-row--marked').count(), want.n_mismatches, label);
    await shot(page, `overview-${name}`, true);

    await page.click('#eb-tab-items');
    await page.waitForFunction((n) => document.querySelectorAll('.eb-grid--log .eb-grid__row').length === Math.min(n, 20)
      || document.querySelector('.eb-items__count')?.textContent.startsWith(`${n} sample`), want.n_samples);
    assert.match(await page.locator('.eb-items__count').innerText(), new RegExp(`^${want.n_samples} samples?$`), label);
    const wrong = await page.locator('.eb-grid--log .eb-grid__row--wrong').count();
    assert.ok(wrong <= want.n_samples);
    await page.locator('.eb-grid--log .eb-grid__row').first().click();
    await page.waitForSelector('.eb-drawer [data-table="sample-scores"]');
    assert.match(await page.locator('.eb-drawer__title').innerText(), /^Sample /);
    await page.waitForSelector('.eb-drawer [data-field="output"]');
    await shot(page, `sample-${name}`);
    await page.keyboard.press('Escape');
    await page.waitForSelector('.eb-drawer', { state: 'detached' });
    // Focus is back on the row that opened the drawer.
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('eb-grid__row')), true, label);
    await page.click('#eb-tab-overview');
  }
  assertClean(rec);
  await context.close();
});

test('Inspect samples filter by verdict and epoch; model output stays text; export = CLI', async () => {
  const dir = path.join(LOGS, 'runs', 'inspect_arith');
  const want = cliStats(dir);
  const { page, rec, context } = await openPage(app.browser);
  await page.goto(app.srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
  await dropFiles(page, DROP, folderPayload(dir));
  await waitLog(page, 'inspect_arith');
  // Charts drawn by the report crate in the worker: each score's mean, accuracy by epoch.
  await page.waitForSelector('[data-chart="scores"] svg');
  assert.match(await page.locator('[data-chart="by_field"] .eb-chart__title').innerText(), /Accuracy by epoch/);
  await page.click('#eb-tab-items');
  await page.waitForSelector('.eb-grid--log .eb-grid__row');
  await page.selectOption('select[name="verdict"]', 'correct');
  await page.waitForFunction(() => location.hash.includes('f.verdict=correct'));
  await page.waitForFunction((n) => document.querySelectorAll('.eb-grid--log .eb-grid__row').length === n, want.n_correct);
  await page.selectOption('select[name="verdict"]', 'error');
  await page.waitForFunction((n) => document.querySelectorAll('.eb-grid--log .eb-grid__row').length === n, want.n_errors);
  await page.selectOption('select[name="verdict"]', '');
  await page.selectOption('select[name="epoch"]', '1');
  await page.waitForFunction(() => {
    const rows = [...document.querySelectorAll('.eb-grid--log .eb-grid__row')];
    return rows.length > 0 && rows.every((r) => r.children[1].textContent.endsWith(' · 1'));
  });
  await shot(page, 'items-filtered');
  // Keyboard: Tab to a row, Enter opens it, Escape closes it.
  await page.locator('.eb-grid--log .eb-grid__row').first().focus();
  await page.keyboard.press('Enter');
  await page.waitForSelector('.eb-drawer [data-field="input"]');
  assert.equal(await page.locator('.eb-drawer img, .eb-main img').count(), 0);
  await page.keyboard.press('Escape');
  // Export: the CLI's items.csv and statistics.json.
  await page.click('#eb-tab-export');
  await page.waitForSelector('[data-export="items.csv"]');
  const out = fs.mkdtempSync(path.join(outDir, 'cli-'));
  cli(['score', dir, '--out', out]);
  for (const file of ['items.csv', 'statistics.json']) {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`[data-export="${file}"]`)]);
    assert.equal(fs.readFileSync(await dl.path(), 'utf8'), fs.readFileSync(path.join(out, file), 'utf8'), file);
  }
  fs.rmSync(out, { recursive: true, force: true });
  const [report] = await Promise.all([page.waitForEvent('download'), page.click('[data-export="report.html"]')]);
  assert.match(fs.readFileSync(await report.path(), 'utf8'), /inspect_arith/);

  // Re-scoring live from Settings: the numbers of `score --profile <scorer>`, the original
  // verdicts kept beside, the flips listed; the header names the setting, with a reset.
  for (const scorer of ['includes@v1', 'exact@v1']) {
    const re = cliStats(dir, ['--profile', scorer]);
    await page.click('#eb-tab-settings');
    await page.selectOption('select[name="evallog_scorer"]', scorer);
    await page.click('#eb-tab-overview');
    // The worker has re-scored when the run names the new setting.
    await page.waitForFunction((sc) => document.querySelector('[data-testid="custom-settings"]')?.textContent.includes(sc), scorer);
    await page.waitForFunction((w) => document.querySelector('[data-metric="rescored_accuracy"] .eb-card__value')?.textContent === w, pct(re.rescored_accuracy));
    assert.equal(await metric(page, 'accuracy'), pct(re.accuracy), 'as originally scored, beside');
    assert.equal(await metric(page, 'n_disagreements'), String(re.n_disagreements));
    await page.waitForSelector('[data-note="rescored"]');
    assert.equal((await page.locator('.eb-runhead__profile code').innerText()).trim(), scorer);
    assert.equal((await page.locator('.eb-run--current .eb-run__acc').innerText()).trim(), re.rescored_score.toFixed(3));
  }
  await shot(page, 'rescored', true);
  await page.click('[data-testid="custom-settings"] button');
  await page.waitForSelector('[data-note="rescored"]', { state: 'detached' });
  assert.equal(await metric(page, 'accuracy'), pct(want.accuracy));
  assertClean(rec);
  await context.close();
});

test('a recorded number the samples do not give is a visible warning; two lm-eval runs compare like `diff`', async () => {
  const mismatch = path.join(LOGS, 'runs', 'lm_eval_mismatch');
  const base = path.join(LOGS, 'runs', 'lm_eval_baseline');
  const cand = path.join(LOGS, 'runs', 'lm_eval_candidate');
  const { page, rec, context } = await openPage(app.browser);
  await page.goto(app.srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
  await dropFiles(page, DROP, folderPayload(mismatch));
  await waitLog(page, 'lm_eval_mismatch');
  const stats = cliStats(mismatch);
  assert.ok(stats.n_mismatches > 0);
  await page.waitForSelector('[data-note="mismatch"]');
  assert.equal(await page.locator('[data-note="mismatch"]').count(), stats.n_mismatches);
  await shot(page, 'mismatch');
  await dropFiles(page, DROP, folderPayload(base));
  await waitLog(page, 'lm_eval_baseline');
  await dropFiles(page, DROP, folderPayload(cand));
  await waitLog(page, 'lm_eval_candidate');
  const diff = JSON.parse(cli(['diff', base, cand, '--json']));
  await page.click('#eb-tab-compare');
  await page.selectOption('select[name="base"]', 'lm_eval_baseline');
  await page.selectOption('select[name="cand"]', 'lm_eval_candidate');
  await page.waitForFunction((n) => document.querySelector('[data-metric="regressed"] .eb-card__value')?.textContent === String(n), diff.regressed.length);
  assert.equal(await metric(page, 'improved'), String(diff.improved.length));
  // The samples' accuracy and error rate beside the headline, each with its change.
  for (const k of ['headline_score', 'accuracy', 'error_rate']) {
    assert.equal(await page.locator(`[data-metric-row="${k}"]`).count(), 1, k);
  }
  await shot(page, 'compare', true);
  assertClean(rec);
  await context.close();
});

test('logs through the pickers: an lm-eval folder with "Pick folder", a promptfoo export with "Pick files"', async () => {
  const folder = path.join(LOGS, 'runs', 'lm_eval_baseline');
  const file = path.join(LOGS, 'runs', 'promptfoo_baseline', 'results.json');
  const [wantFolder, wantFile] = [cliStats(folder), cliStats(file)];
  const { page, rec, context } = await openPage(app.browser);
  await page.goto(app.srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
  await page.setInputFiles('.eb-sidebar .eb-pick__folder', folder);
  await waitLog(page, 'lm_eval_baseline');
  assert.equal(await metric(page, 'headline_score'), dec4(wantFolder.headline_score));
  assert.equal(await metric(page, 'n_samples'), String(wantFolder.n_samples));
  await page.setInputFiles('.eb-sidebar .eb-pick__files', [file]);
  await page.waitForFunction((n) => document.querySelector('[data-metric="n_samples"] .eb-card__value')?.textContent === String(n)
    && document.querySelector('.eb-runhead__facts')?.textContent.startsWith('eval log · '), wantFile.n_samples, { timeout: 60000 });
  assert.equal(await metric(page, 'headline_score'), dec4(wantFile.headline_score));
  assertClean(rec);
  await context.close();
});

test('real logs written by the tools, dropped from the OS: headline = CLI', { skip: !fs.existsSync(REAL) && 'no ../shared/data/eval-formats' }, async () => {
  const files = [
    path.join(REAL, 'inspect_ai', '2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval'),
    path.join(REAL, 'promptfoo', 'sample-export.json'),
    path.join(REAL, 'openai-evals', 'auto-gpt-benchmarks-2023-04-17_test-match.jsonl'),
  ].filter((f) => fs.existsSync(f));
  const { page, rec, context } = await openPage(app.browser);
  await page.goto(app.srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
  for (const f of files) {
    const want = cliStats(f);
    await osDrop(context, page, [f]);
    await page.waitForFunction(
      () => document.querySelector('.eb-runhead__facts')?.textContent.startsWith('eval log')
        && document.querySelector('[data-metric="headline_score"]'), null, { timeout: 60000 });
    await page.waitForFunction((n) => document.querySelector('[data-metric="n_samples"] .eb-card__value')?.textContent === String(n), want.n_samples);
    assert.equal(await metric(page, 'headline_score'), dec4(want.headline_score), f);
    await shot(page, `real-${path.basename(f).slice(0, 24)}`, true);
  }
  assertClean(rec);
  await context.close();
});

test('a folder of several logs is several runs, as `evalboard score` scores it', async () => {
  const tmp = fs.mkdtempSync(path.join(outDir, 'logs-'));
  const dir = path.join(tmp, 'three_logs');
  fs.mkdirSync(dir);
  fs.copyFileSync(path.join(LOGS, 'runs', 'inspect_arith', 'arith.eval'), path.join(dir, 'arith.eval'));
  fs.copyFileSync(path.join(LOGS, 'runs', 'promptfoo_baseline', 'results.json'), path.join(dir, 'results.json'));
  for (const f of fs.readdirSync(path.join(LOGS, 'runs', 'lm_eval_baseline'))) {
    fs.copyFileSync(path.join(LOGS, 'runs', 'lm_eval_baseline', f), path.join(dir, f));
  }
  const want = JSON.parse(cli(['score', dir, '--json']));
  assert.equal(want.length, 3, 'the CLI scores three runs');
  const { page, rec, context } = await openPage(app.browser);
  await page.goto(app.srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
  await dropFiles(page, DROP, folderPayload(dir));
  const names = want.map((s) => s.run_name);
  await page.waitForFunction((ns) => ns.every((n) => [...document.querySelectorAll('.eb-run__name')].some((e) => e.textContent.trim() === n)
    && [...document.querySelectorAll('.eb-run')].find((r) => r.querySelector('.eb-run__name')?.textContent.trim() === n)?.querySelector('.eb-run__acc')), names, { timeout: 60000 });
  for (const s of want) {
    await page.click(`.eb-run__name >> text="${s.run_name}"`);
    await waitLog(page, s.run_name);
    assert.equal(await metric(page, 'headline_score'), dec4(s.headline_score), s.run_name);
    assert.equal(await metric(page, 'n_samples'), String(s.n_samples), s.run_name);
  }
  await shot(page, 'three-logs', true);
  assertClean(rec);
  await context.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('a big Inspect .eval (40 MB): the table from its summaries first, then every sample; numbers = CLI; a sample\'s conversation in its drawer', async () => {
  const tmp = fs.mkdtempSync(path.join(outDir, 'big-'));
  const file = path.join(tmp, 'big40.eval');
  execFileSync('python3', [path.join(root, 'bench', 'big_eval.py'), file, '40', '400']);
  const want = cliStats(file);
  const { page, rec, context } = await openPage(app.browser);
  await page.addInitScript(() => localStorage.setItem('evalboard.demo-dismissed', '1'));
  // The worker's messages for the run: Loaded (postcard variant 2), then Rescored (4).
  await page.addInitScript(() => {
    const Base = window.Worker;
    window.__seen = [];
    window.Worker = class extends Base {
      constructor(...a) {
        super(...a);
        this.addEventListener('message', (e) => {
          if (e.data instanceof Uint8Array && (e.data[0] === 2 || e.data[0] === 4)) window.__seen.push(e.data[0]);
        });
      }
    };
  });
  await page.goto(app.srv.url);
  await page.waitForSelector('.eb-sidebar .eb-pick__files', { state: 'attached' });
  await page.setInputFiles('.eb-sidebar .eb-pick__files', [file]);
  await waitPicked(page, want.n_samples);
  // The summaries' run came first, the full one replaced it.
  await page.waitForFunction(() => window.__seen.includes(4), null, { timeout: 60000 });
  assert.deepEqual((await page.evaluate(() => window.__seen)).slice(0, 2), [2, 4]);
  await page.waitForSelector('[data-note="from-summaries"]', { state: 'detached' });
  assert.equal(await metric(page, 'headline_score'), dec4(want.headline_score));
  assert.equal(await metric(page, 'n_samples'), String(want.n_samples));
  // A sample's drawer reads its conversation from the file again.
  await page.click('#eb-tab-items');
  await page.waitForSelector('.eb-grid--log .eb-grid__row');
  await page.locator('.eb-grid--log .eb-grid__row').first().click();
  await page.waitForFunction(() => document.querySelector('.eb-drawer')?.textContent.includes('Conversation · 3 messages'), null, { timeout: 30000 });
  const drawer = await page.locator('.eb-drawer').innerText();
  assert.match(drawer, /You are a careful calculator/);
  assert.match(drawer, /ANSWER: \d+/);
  await shot(page, 'big-log-conversation');
  await page.keyboard.press('Escape');
  assertClean(rec);
  await context.close();
});

test('a small Inspect .eval and .json: each sample\'s conversation in its drawer', async () => {
  // Each in a page of its own: both logs hold 8 samples, so a second pick into the same page
  // could be checked against the first run's screens.
  // The .json log: one written by inspect_ai 0.3.285 (the project's .json fixtures hold no
  // messages), when ../shared/data is here.
  const json = path.join(REAL, 'inspect_ai', 'generated-0.3.285', '2026-11-25T20-36-12-00-00_arith_VVWPBMGtpotgvVsouiGCU7.json');
  const logs = [path.join(LOGS, 'runs', 'inspect_arith', 'arith.eval'), json].filter((f) => fs.existsSync(f));
  for (const f of logs) {
    const { page, rec, context } = await openPage(app.browser);
    await page.addInitScript(() => localStorage.setItem('evalboard.demo-dismissed', '1'));
    await page.goto(app.srv.url);
    await page.waitForSelector('.eb-sidebar .eb-pick__files', { state: 'attached' });
    await page.setInputFiles('.eb-sidebar .eb-pick__files', [f]);
    await waitPicked(page, cliStats(f).n_samples);
    await page.click('#eb-tab-items');
    await page.waitForSelector('.eb-grid--log .eb-grid__row');
    await page.locator('.eb-grid--log .eb-grid__row').first().click();
    await page.waitForFunction(() => /Conversation · \d+ messages?/.test(document.querySelector('.eb-drawer')?.textContent || ''), null, { timeout: 30000 });
    await shot(page, `conversation-${path.basename(f)}`);
    await page.keyboard.press('Escape');
    await page.waitForSelector('.eb-drawer', { state: 'detached' });
    assertClean(rec);
    await context.close();
  }
});

test('the overview breaks the samples down by the field the user picks; the pick lives in the link and never filters the items', async () => {
  const dir = path.join(LOGS, 'runs', 'promptfoo_baseline');
  const { page, rec, context } = await openPage(app.browser);
  await page.addInitScript(() => localStorage.setItem('evalboard.demo-dismissed', '1'));
  await page.goto(app.srv.url);
  await page.waitForSelector('.eb-app');
  await dropFiles(page, DROP, folderPayload(dir));
  await waitLog(page, 'promptfoo_baseline');
  const select = page.locator('[data-choice="breakdown"] select');
  await select.waitFor();
  const fields = (await select.locator('option').evaluateAll((os) => os.map((o) => o.value))).filter(Boolean);
  assert.ok(fields.length >= 3, `fields offered: ${fields}`);
  // Pick the last field: its table comes first and open, every other collapsed.
  const last = fields[fields.length - 1];
  await select.selectOption(last);
  await page.waitForFunction((f) => location.hash.includes(`f.breakdown=${encodeURIComponent(f)}`)
    && document.querySelector('[data-table^="by-"]')?.getAttribute('data-table') === `by-${f}`, last);
  const rows = await page.locator(`[data-table="by-${last}"] tbody tr`).count();
  assert.ok(rows >= 2, `${rows} rows`);
  assert.equal(await page.locator('details [data-table^="by-"]').count() + 1, await page.locator('[data-table^="by-"]').count(), 'only the pick is open');
  await shot(page, 'breakdown-picked', true);
  // The Items tab ignores it (the link keeps it: checked above).
  await page.click('#eb-tab-items');
  await page.waitForFunction(() => document.querySelector('.eb-items__count')?.textContent === '4 samples');
  assertClean(rec);
  await context.close();
});

test('issue 28: a broken log beside a good one never sinks it; a number not recomputed is said, never a mismatch', async () => {
  const tmp = fs.mkdtempSync(path.join(outDir, 'logs-'));
  const dir = path.join(tmp, 'broken_beside_good');
  fs.mkdirSync(dir);
  const src = path.join(LOGS, 'err', 'broken_beside_good', 'input');
  for (const f of fs.readdirSync(src)) fs.copyFileSync(path.join(src, f), path.join(dir, f));
  // The CLI scores the good log (exit 0) and names the truncated one in input_files.
  const want = cliStats(dir);
  assert.deepEqual(want.input_files.skipped.map((f) => f.path), ['truncated.eval']);
  const { page, rec, context } = await openPage(app.browser);
  await page.goto(app.srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
  await dropFiles(page, DROP, folderPayload(dir));
  await waitLog(page, 'broken_beside_good');
  assert.equal(await metric(page, 'headline_score'), dec4(want.headline_score));
  assert.equal(await metric(page, 'n_samples'), String(want.n_samples));
  await page.click('#eb-tab-files');
  await page.waitForSelector('[data-table="files"]');
  const files = await page.locator('main').innerText();
  assert.ok(files.includes('truncated.eval'), files.slice(0, 2000));
  assert.ok(files.includes('no end-of-central-directory record'), files.slice(0, 2000));
  await shot(page, 'broken-beside-good', true);
  await page.click('#eb-tab-overview');

  // 0 samples read: no recomputed-looking headline, every recorded number "not recomputed".
  const only = path.join(tmp, 'lm_eval_results_only');
  fs.mkdirSync(only);
  const osrc = path.join(LOGS, 'ok', 'lm_eval_results_only', 'input');
  for (const f of fs.readdirSync(osrc)) fs.copyFileSync(path.join(osrc, f), path.join(only, f));
  const st = cliStats(only);
  assert.equal(st.headline_score, null);
  assert.equal(st.n_mismatches, 0);
  await dropFiles(page, DROP, folderPayload(only));
  await waitLog(page, 'lm_eval_results_only');
  assert.equal(await metric(page, 'headline_score'), 'not recomputed');
  assert.equal(await metric(page, 'n_mismatches'), '0');
  await page.waitForSelector('[data-note="no-samples"]');
  assert.equal(await page.locator('[data-table="headlines"] tr.eb-row--marked').count(), 0);
  await shot(page, 'not-recomputed', true);
  assertClean(rec);
  await context.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});
