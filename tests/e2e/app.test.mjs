// End-to-end tests of the dashboard against the built dist/ (`trunk build --release`), served
// under a sub-path on 127.0.0.1 in headless Chromium. Numbers are checked against the CLI, which
// runs the same engine natively.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { assertQuiet,
  serve, launch, openPage, outsideRequests, folderPayload, dropFiles, root, outDir,
  cliStats, cliOutputs, pct, metric, dropGenerated,
} from './lib.mjs';

const FIXTURES = path.join(root, 'tests', 'fixtures');
const DROP = '.eb-app';
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

/** A fresh page on the app; `hash` opens a deep link. */
async function open(hash = '', opts = {}) {
  const p = await openPage(browser, opts);
  await p.page.goto(srv.url + hash);
  return p;
}

/** Every page must end with no console errors, no page errors, no dialogs, no foreign requests. */
const assertClean = (rec) => assertQuiet(rec, srv.origin);

async function shot(page, name) {
  await page.screenshot({ path: path.join(outDir, `${name}.png`) });
}

async function waitRun(page, name) {
  await page.waitForFunction(
    (n) => document.querySelector('.eb-runhead__title')?.textContent.trim().startsWith(n)
      && document.querySelector('[data-metric="numerical_accuracy"]'),
    name, { timeout: 30000 },
  );
}

test('demo workspace loads, shows headline numbers, and is removable in one click', async () => {
  const { page, rec, context } = await open();
  await waitRun(page, 'gpt-4o');
  const demo = cliStats(path.join(root, 'demo', 'gpt-4o'));
  assert.equal(await metric(page, 'numerical_accuracy'), pct(demo.numerical_accuracy));
  assert.equal(await metric(page, 'exact_match_accuracy'), pct(demo.exact_match_accuracy));
  assert.equal(await metric(page, 'conversation_level_accuracy'), pct(demo.conversation_level_accuracy));
  assert.equal(await metric(page, 'error_rate'), pct(demo.error_rate));
  assert.match(await metric(page, 'numerical_accuracy'), /^\d+\.\d%$/);
  // Three demo runs, each labelled.
  await page.waitForFunction(() => document.querySelectorAll('.eb-run .eb-badge--demo').length === 3);
  await page.waitForFunction(() => [...document.querySelectorAll('.eb-run__meta')].every((m) => !m.querySelector('.eb-progress')));
  await shot(page, '01-overview');
  // The URL records the view.
  assert.match(page.url(), /#run=gpt-4o/);
  await page.click('text=Remove demo');
  await page.waitForSelector('.eb-empty__title');
  assert.equal(await page.locator('.eb-run').count(), 0);
  await shot(page, '02-empty');
  // Remembered: a reload keeps the demo away; the empty state brings it back.
  await page.reload();
  await page.waitForSelector('.eb-empty__title');
  await page.waitForTimeout(500);
  assert.equal(await page.locator('.eb-run').count(), 0);
  await page.click('text=Load the demo workspace');
  await waitRun(page, 'gpt-4o');
  assertClean(rec);
  await context.close();
});

test('a dropped run folder matches the CLI: headline numbers and turns.csv', async () => {
  const { page, rec, context } = await open();
  await waitRun(page, 'gpt-4o');
  const dir = path.join(FIXTURES, 'ui', 'ui_gpt4o_mini');
  await dropFiles(page, DROP, folderPayload(dir));
  await waitRun(page, 'ui_gpt4o_mini');
  const s = cliStats(dir);
  for (const k of ['numerical_accuracy', 'exact_match_accuracy', 'soft_match_accuracy', 'unit_agnostic_accuracy',
    'sign_agnostic_accuracy', 'general_match_accuracy', 'conversation_level_accuracy', 'error_rate']) {
    assert.equal(await metric(page, k), pct(s[k]), k);
  }
  // Export turns.csv and statistics.json: byte for byte the CLI's.
  const want = cliOutputs(dir);
  await page.click('#eb-tab-export');
  for (const file of ['turns.csv', 'statistics.json', 'errors.csv', 'summary.csv']) {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`[data-export="${file}"]`)]);
    assert.equal(dl.suggestedFilename(), file);
    const got = fs.readFileSync(await dl.path(), 'utf8');
    assert.equal(got, want[file], `${file} differs from the CLI's`);
  }
  await shot(page, '06-export');
  // Several folders at once: each becomes a run.
  await dropFiles(page, DROP, [...folderPayload(path.join(root, 'demo', 'o3')), ...folderPayload(path.join(FIXTURES, 'ui', 'ui_xss'))]);
  await page.waitForFunction(() => [...document.querySelectorAll('.eb-run__name')].map((e) => e.textContent).join('|').includes('o3 (2)'));
  await page.waitForFunction(() => [...document.querySelectorAll('.eb-run__name')].some((e) => e.textContent === 'ui_xss'));
  await waitRun(page, 'o3 (2)');
  assert.equal(await metric(page, 'numerical_accuracy'), pct(cliStats(path.join(root, 'demo', 'o3')).numerical_accuracy));
  assertClean(rec);
  await context.close();
});

test('the load report lists every file and diagnostic; a bad file is reported, not fatal', async () => {
  const { page, rec, context } = await open();
  await waitRun(page, 'gpt-4o');
  const files = [
    ...folderPayload(path.join(FIXTURES, 'ui', 'ui_xss')).map((f) => ({ ...f, path: f.path.replace('ui_xss/', 'mixed/') })),
    { path: 'mixed/notes.txt', b64: Buffer.from('hello').toString('base64') },
    { path: 'mixed/broken.json', b64: Buffer.from('{"oops": [1, 2').toString('base64') },
  ];
  await dropFiles(page, DROP, files);
  await waitRun(page, 'mixed');
  await page.click('#eb-tab-files');
  await page.waitForSelector('[data-table="files"]');
  const table = await page.locator('[data-table="files"]').innerText();
  assert.match(table, /results\.json[\s\S]*parsed/);
  assert.match(table, /notes\.txt[\s\S]*skipped/);
  assert.match(table, /broken\.json[\s\S]*skipped/);
  await shot(page, '07-load-report');
  // A folder with nothing readable fails with the report, and the app carries on.
  await dropFiles(page, DROP, [{ path: 'nothing/readme.md', b64: Buffer.from('# hi').toString('base64') }]);
  await page.waitForSelector('.eb-state--error');
  await page.click('.eb-state--error >> text=load report');
  await page.waitForSelector('[data-table="files"] >> text=readme.md');
  assertClean(rec);
  await context.close();
});

test('items: sort, filter, open a conversation with the keyboard; state lives in the URL', async () => {
  const { page, rec, context } = await open();
  await waitRun(page, 'gpt-4o');
  await page.click('#eb-tab-items');
  await page.waitForSelector('.eb-grid__row');
  const stats = cliStats(path.join(root, 'demo', 'gpt-4o'));
  assert.equal(await page.locator('.eb-items__count').innerText(), `${stats.total_turns} turns`);
  await shot(page, '04-items');
  // Filter to wrong answers.
  await page.selectOption('.eb-filters select >> nth=0', 'wrong');
  const wrong = Math.round((1 - stats.numerical_accuracy) * stats.total_turns);
  await page.waitForFunction((n) => document.querySelector('.eb-items__count')?.textContent.startsWith(`${n} of`), wrong);
  const verdicts = await page.locator('.eb-grid__row .eb-verdict-cell').allInnerTexts();
  assert.ok(verdicts.length > 0 && verdicts.every((v) => v === 'wrong'), verdicts.join());
  assert.match(page.url(), /f\.verdict=wrong/);
  // Sort by tokens, descending (the worker's grid: a Sort by and an Order choice).
  await page.selectOption('select[name="sort"]', 'tokens');
  await page.selectOption('select[name="order"]', 'descending');
  await page.waitForFunction(() => location.hash.includes('f.sort=tokens') && location.hash.includes('f.order=descending'));
  await page.waitForTimeout(300);
  const tokens = await page.locator('.eb-grid__row .eb-grid__cell:nth-child(13)').allInnerTexts();
  const nums = tokens.map((t) => Number(t.replace(/,/g, ''))).filter((n) => !Number.isNaN(n));
  assert.deepEqual(nums, [...nums].sort((a, b) => b - a), 'sorted by tokens, descending');
  // Keyboard: focus the first row, move down, Enter opens the conversation.
  await page.focus('.eb-grid__row[aria-rowindex="2"]');
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction(() => document.activeElement?.getAttribute('aria-rowindex') === '3');
  const q = await page.evaluate(() => document.activeElement.children[3].textContent);
  await page.keyboard.press('Enter');
  await page.waitForSelector('.eb-drawer .eb-turn');
  assert.match(page.url(), /item=[^&]+\/\d+/);
  assert.ok((await page.locator('.eb-drawer').innerText()).includes(q.replace(/…$/, '')));
  await page.waitForTimeout(300);
  await shot(page, '05-conversation');
  // A deep link reopens the same view.
  const link = page.url();
  const other = await openPage(browser);
  await other.page.goto(link);
  await other.page.waitForSelector('.eb-drawer .eb-turn');
  assert.equal(await other.page.locator('.eb-items__count').innerText(), await page.locator('.eb-items__count').innerText());
  assertClean(other.rec);
  await other.context.close();
  // Escape closes it and focus returns to the grid.
  await page.keyboard.press('Escape');
  await page.waitForSelector('.eb-drawer', { state: 'detached' });
  assert.doesNotMatch(page.url(), /item=/);
  assertClean(rec);
  await context.close();
});

test('changing a tolerance re-scores live and matches the CLI with the same tolerance', async () => {
  const { page, rec, context } = await open();
  await waitRun(page, 'gpt-4o');
  const dir = path.join(root, 'demo', 'gpt-4o');
  const before_ = await metric(page, 'numerical_accuracy');
  assert.equal(before_, pct(cliStats(dir).numerical_accuracy));
  await page.click('#eb-tab-settings');
  await page.fill('input[name="rel"]', '0.5');
  await shot(page, '08-settings');
  await page.click('#eb-tab-overview');
  const want = pct(cliStats(dir, ['--rel-tol', '0.5']).numerical_accuracy);
  assert.notEqual(want, before_, 'the fixture must react to the tolerance');
  await page.waitForFunction((w) => document.querySelector('[data-metric="numerical_accuracy"] .eb-card__value')?.textContent === w, want);
  // The run list follows too.
  assert.equal((await page.locator('.eb-run--current .eb-run__acc').innerText()).trim(), want);
  // A price for the run's model turns tokens into dollars (the CLI with the same price table agrees).
  await page.click('#eb-tab-settings');
  await page.click('text=Add unpriced models');
  await page.fill('[data-table="prices"] tbody tr:last-child input[aria-label^="Input price"]', '2.5');
  await page.fill('[data-table="prices"] tbody tr:last-child input[aria-label^="Output price"]', '10');
  await page.click('#eb-tab-overview');
  const prices = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'eb-')), 'prices.json');
  fs.writeFileSync(prices, JSON.stringify({ 'gpt-4o': { input_per_mtok: 2.5, output_per_mtok: 10 } }));
  const priced = cliStats(dir, ['--rel-tol', '0.5', '--prices', prices]);
  assert.ok(priced.total_cost_usd > 0);
  const usd = priced.total_cost_usd >= 1 ? `$${priced.total_cost_usd.toFixed(2)}` : `$${priced.total_cost_usd.toFixed(4)}`;
  await page.waitForFunction((u) => document.querySelector('[data-metric="cost_per_correct_answer"]')?.textContent.includes(`${u} total`), usd);
  // Settings persist across a reload.
  await page.reload();
  await waitRun(page, 'gpt-4o');
  await page.waitForFunction((w) => document.querySelector('[data-metric="numerical_accuracy"] .eb-card__value')?.textContent === w, want);
  assertClean(rec);
  await context.close();
});

test('untrusted text renders as text: an XSS payload in a question and an answer fires nothing', async () => {
  const { page, rec, context } = await open();
  await waitRun(page, 'gpt-4o');
  await dropFiles(page, DROP, folderPayload(path.join(FIXTURES, 'ui', 'ui_xss')));
  await waitRun(page, 'ui_xss');
  await page.click('#eb-tab-items');
  await page.waitForSelector('.eb-grid__row');
  const grid = await page.locator('.eb-grid').innerText();
  assert.ok(grid.includes('<img src=x onerror=alert(1)>'), 'payload shown as text');
  await page.click('.eb-grid__row >> nth=0');
  await page.waitForSelector('.eb-drawer .eb-turn');
  const drawer = await page.locator('.eb-drawer').innerText();
  assert.ok(drawer.includes('what was <img src=x onerror=alert(1)> the net expense in 2009?'));
  assert.ok(drawer.includes('<script>alert(2)</script>'));
  assert.equal(await page.locator('.eb-main img, .eb-drawer img, .eb-main script, .eb-drawer script').count(), 0);
  await page.waitForTimeout(300);
  assertClean(rec);
  await context.close();
});

test('every view renders (screenshots), in light and dark', async () => {
  for (const scheme of ['light', 'dark']) {
    const { page, rec, context } = await open('', { colorScheme: scheme });
    await waitRun(page, 'gpt-4o');
    const suffix = scheme === 'dark' ? '-dark' : '';
    for (const tab of ['overview', 'complexity', 'breakdowns', 'errors', 'items', 'files', 'settings', 'export', 'compare', 'runs']) {
      await page.click(`#eb-tab-${tab}`);
      await page.waitForSelector(`#eb-panel-${tab}:not([hidden]) > *`);
      await page.waitForTimeout(150);
      await shot(page, `view-${tab}${suffix}`);
    }
    // Tabs are keyboard-navigable: right from the last (All runs) wraps to the first.
    await page.focus('#eb-tab-runs');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'eb-tab-overview');
    assert.equal(await page.getAttribute('#eb-tab-overview', 'aria-selected'), 'true');
    assertClean(rec);
    await context.close();
  }
});

test('a 100k-turn run: fast, virtualised (≤ 200 rows in the DOM), scrolls to the end', async () => {
  const { page, rec, context } = await open();
  await waitRun(page, 'gpt-4o');
  const t0 = Date.now();
  await dropGenerated(page, DROP, () => {
    const lines = [];
    for (let i = 0; i < 100000; i++) {
      const c = Math.floor(i / 4);
      const ok = i % 3 !== 0;
      lines.push(JSON.stringify({
        conversation_id: `conv-${c}`, turn_idx: i % 4, question: `question ${i}?`,
        expected: 100 + i, predicted: ok ? 100 + i : -1, model: 'synthetic',
        plan_operations: ['subtract', 'divide'].slice(0, i % 3), prompt_tokens: 100 + (i % 50), completion_tokens: 20,
      }));
    }
    return [{ path: 'big/turns.jsonl', text: lines.join('\n') }];
  });
  await waitRun(page, 'big');
  const loadMs = Date.now() - t0;
  assert.equal(await metric(page, 'numerical_accuracy'), pct(66666 / 100000));
  await page.click('#eb-tab-items');
  await page.waitForSelector('.eb-grid__row');
  assert.equal(await page.locator('.eb-items__count').innerText(), '100,000 turns');
  assert.ok(await page.locator('.eb-grid__row').count() <= 200);
  // Jump to the end: the last row arrives quickly and the DOM stays small.
  const t1 = Date.now();
  await page.evaluate(() => { const g = document.querySelector('.eb-grid'); g.scrollTop = g.scrollHeight; });
  const last = '.eb-grid__row[aria-rowindex="100001"]';
  await page.waitForSelector(last);
  const endMs = Date.now() - t1;
  assert.ok(await page.locator('.eb-grid__row').count() <= 200);
  assert.match(await page.locator(last).innerText(), /question 99999\?/);
  // Scroll through the middle.
  for (const frac of [0.25, 0.5, 0.75]) {
    await page.evaluate((f) => { const g = document.querySelector('.eb-grid'); g.scrollTop = g.scrollHeight * f; }, frac);
    const pos = Math.floor(100000 * frac);
    await page.waitForFunction((p) => [...document.querySelectorAll('.eb-grid__row')].some((r) => Math.abs(Number(r.getAttribute('aria-rowindex')) - 2 - p) < 40), pos);
    assert.ok(await page.locator('.eb-grid__row').count() <= 200);
  }
  // Filtering 100k rows stays quick.
  const t2 = Date.now();
  await page.fill('.eb-filters input[type="search"]', 'question 4242?');
  await page.waitForFunction(() => document.querySelector('.eb-items__count')?.textContent.startsWith('1 of'));
  const filterMs = Date.now() - t2;
  await shot(page, '09-items-100k');
  console.log(`100k turns: load ${loadMs} ms, jump to end ${endMs} ms, text filter ${filterMs} ms`);
  assert.ok(endMs < 3000, `jump to end took ${endMs} ms`);
  assertClean(rec);
  await context.close();
});

test('a real folder drag (entries API, recursive) and the folder/file pickers load runs', async () => {
  const { page, rec, context } = await open();
  await waitRun(page, 'gpt-4o');
  // A real drag of two folders from the OS (CDP): goes through webkitGetAsEntry + readEntries.
  const cdp = await context.newCDPSession(page);
  const data = {
    items: [],
    files: [path.join(root, 'demo', 'simulated_eval_run'), path.join(FIXTURES, 'ui', 'ui_gpt4o_mini')],
    dragOperationsMask: 1,
  };
  for (const type of ['dragEnter', 'dragOver']) {
    await cdp.send('Input.dispatchDragEvent', { type, x: 700, y: 400, data });
  }
  await page.waitForSelector('.eb-drop-overlay');
  await shot(page, '03-drop-overlay');
  await cdp.send('Input.dispatchDragEvent', { type: 'drop', x: 700, y: 400, data });
  await page.waitForSelector('.eb-drop-overlay', { state: 'detached' });
  await waitRun(page, 'simulated_eval_run (2)');
  assert.equal(await metric(page, 'numerical_accuracy'),
    pct(cliStats(path.join(root, 'demo', 'simulated_eval_run')).numerical_accuracy));
  await page.click('#eb-tab-files');
  // traces/ is a sub-folder: the walk is recursive.
  await page.waitForSelector('[data-table="files"] >> text=traces/');
  await page.waitForFunction(() => [...document.querySelectorAll('.eb-run__name')].some((e) => e.textContent === 'ui_gpt4o_mini'));
  // "Pick folder": a directory input (webkitRelativePath), cleared after use so it can be picked again.
  await page.setInputFiles('.eb-sidebar .eb-pick__folder', path.join(FIXTURES, 'ui', 'ui_xss'));
  await waitRun(page, 'ui_xss');
  assert.equal(await page.locator('.eb-sidebar .eb-pick__folder').inputValue(), '');
  await page.setInputFiles('.eb-sidebar .eb-pick__folder', path.join(FIXTURES, 'ui', 'ui_xss'));
  await waitRun(page, 'ui_xss (2)');
  // "Pick files": loose files become one run.
  await page.setInputFiles('.eb-sidebar .eb-pick__files', [
    path.join(FIXTURES, 'ui', 'ui_gpt4o_mini', 'results.json'), path.join(FIXTURES, 'ui', 'ui_gpt4o_mini', 'model_eval_dataset.json'),
  ]);
  await waitRun(page, 'dropped files');
  assert.equal(await metric(page, 'numerical_accuracy'), pct(cliStats(path.join(FIXTURES, 'ui', 'ui_gpt4o_mini')).numerical_accuracy));
  // Rename and remove.
  await page.dblclick('.eb-run--current .eb-run__select');
  await page.fill('.eb-run__rename', 'mini, picked');
  await page.keyboard.press('Enter');
  await waitRun(page, 'mini, picked');
  assert.match(page.url(), /run=mini%2C%20picked/);
  const n = await page.locator('.eb-run').count();
  await page.click('.eb-run--current [aria-label^="Remove"]');
  await page.waitForFunction((k) => document.querySelectorAll('.eb-run').length === k - 1, n);
  assertClean(rec);
  await context.close();
});

test('the page stays responsive while a big run loads, with a progress bar', async () => {
  const { page, rec, context } = await open();
  await waitRun(page, 'gpt-4o');
  await dropGenerated(page, DROP, () => {
    const pad = 'x'.repeat(400);
    const lines = [];
    for (let i = 0; i < 150000; i++) {
      lines.push(`{"conversation_id":"c${i >> 2}","turn_idx":${i & 3},"question":"q${i} ${pad}","expected":${i},"predicted":${i}}`);
    }
    return [{ path: 'huge/a.jsonl', text: lines.join('\n') }];
  });
  // From here on (the generator above ran on the page in the test's own code), measure how late
  // a 10 ms timer fires on the main thread while the file is read and the worker parses ~60 MB.
  await page.evaluate(() => {
    window.__lags = [];
    window.__sawProgress = false;
    let last = performance.now();
    window.__timer = setInterval(() => {
      const t = performance.now();
      window.__lags.push(t - last - 10);
      last = t;
      if (document.querySelector('.eb-run [role="progressbar"], .eb-header [role="progressbar"]')) window.__sawProgress = true;
    }, 10);
  });
  await waitRun(page, 'huge');
  const { lags, saw } = await page.evaluate(() => { clearInterval(window.__timer); return { lags: window.__lags, saw: window.__sawProgress }; });
  const worst = Math.max(...lags);
  console.log(`big load: ${lags.length} timer ticks, worst main-thread lag ${worst.toFixed(0)} ms`);
  assert.ok(saw, 'a progress bar was shown');
  assert.ok(worst < 250, `the main thread stalled for ${worst} ms`);
  assertClean(rec);
  await context.close();
});

test('the run list tells runs apart: labels from the runs\' metadata, search, sort, grouping by tool, task and model, remove all', async () => {
  const LOGS = path.join(FIXTURES, 'evallog', 'runs');
  const { page, rec, context } = await open();
  await waitRun(page, 'gpt-4o');
  const dirs = ['inspect_arith', 'lm_eval_baseline', 'promptfoo_baseline'].map((d) => path.join(LOGS, d));
  for (const dir of dirs) {
    await dropFiles(page, DROP, folderPayload(dir));
    await page.waitForFunction((n) => [...document.querySelectorAll('.eb-run')]
      .find((r) => r.querySelector('.eb-run__name')?.textContent.trim() === n)?.querySelector('.eb-run__label'), path.basename(dir), { timeout: 60000 });
  }
  const rows = () => page.locator('.eb-run').evaluateAll((rs) => rs.map((r) => ({
    name: r.querySelector('.eb-run__name')?.textContent.trim(),
    label: r.querySelector('.eb-run__label')?.textContent.trim(),
    acc: r.querySelector('.eb-run__acc')?.textContent.trim(),
  })));
  // Each label: model · task, as the CLI reads the run; the headline is on the line under the
  // name, not repeated in the label.
  const byName = Object.fromEntries((await rows()).map((r) => [r.name, r]));
  for (const dir of dirs) {
    const s = cliStats(dir);
    const { label, acc } = byName[path.basename(dir)];
    const parts = label.split(' · ');
    assert.ok(parts.length >= 1 && parts.length <= 2, label);
    if (s.model) assert.ok(label.includes(s.model), `${label} names the model ${s.model}`);
    assert.ok(acc && !label.includes(acc), `${label}: the headline ${acc} is not in the label`);
  }
  // The name is under the label, whole on hover.
  assert.equal(await page.locator('.eb-run__name', { hasText: 'inspect_arith' }).getAttribute('title'), 'inspect_arith');
  await shot(page, 'runlist-labels');
  // Search: by name or label.
  await page.fill('input[name="run-search"]', 'lm_eval');
  await page.waitForFunction(() => document.querySelectorAll('.eb-run').length === 1);
  assert.equal((await rows())[0].name, 'lm_eval_baseline');
  await page.fill('input[name="run-search"]', 'nothing like this');
  await page.waitForSelector('text=No run matches this search.');
  await page.fill('input[name="run-search"]', '');
  await page.waitForFunction(() => document.querySelectorAll('.eb-run').length === 6);
  // Grouped by tool: the demo's numeric QA runs and each eval log's tool.
  await page.selectOption('select[name="run-group"]', '0');
  await page.waitForSelector('.eb-runlist__group');
  const groups = await page.locator('.eb-runlist__group').allInnerTexts();
  assert.deepEqual(groups, ['numeric QA · 3', 'Inspect AI · 1', 'lm-evaluation-harness · 1', 'promptfoo · 1']);
  await shot(page, 'runlist-by-tool');
  await page.selectOption('select[name="run-group"]', '2');
  await page.waitForFunction(() => document.querySelectorAll('.eb-runlist__group').length >= 2);
  await page.selectOption('select[name="run-group"]', '');
  // Sorted by name, then worst headline first within the numeric QA runs' rates.
  await page.selectOption('select[name="run-sort"]', 'name');
  await page.waitForFunction(() => document.querySelector('.eb-run__name')?.textContent.trim() === 'gpt-4o');
  const names = (await rows()).map((r) => r.name);
  assert.deepEqual(names, [...names].sort(), names.join());
  // Remove all: the button asks once more, then the list is empty.
  await page.click('[data-action="remove-all"]');
  assert.equal((await page.locator('[data-action="remove-all"]').innerText()).trim(), 'Remove all 6?');
  await page.click('[data-action="remove-all"]');
  await page.waitForFunction(() => document.querySelectorAll('.eb-run').length === 0);
  assertClean(rec);
  await context.close();
});
