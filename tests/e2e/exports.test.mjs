// The dashboard's exports (issue 27.5): "Export this view" on the Items screen (CSV, JSONL run
// rows, Parquet as a one-run lake zip written by the lake worker) and "Export the workspace as a
// lake". Dropping an export back restores the view's numbers: the same filtered count and the
// same headline; `evalboard score LAKE --json` on the unzipped workspace lake gives the run
// list's headlines, code-generation runs (held by their own worker) included, with the
// numbers `evalboard score --json` gives their folder; a CSV cell that starts like a formula is
// neutralised.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { withApp, openPage, dropFiles, folderPayload, root, outDir, cli, assertQuiet, workspaceLake } from './lib.mjs';

const DROP = '.eb-app';
/** What names where a run was read from (absolute on the CLI, relative in the browser). */
const PATH_KEYS = ['input_files', 'run_path', 'path', 'input', 'run_name'];
const app = withApp();

/** The run list's entries: [name, headline as a number (a rate shown in % read as 0–1)]. */
async function listed(page) {
  const rows = await page.evaluate(() => [...document.querySelectorAll('.eb-run')]
    .filter((li) => li.querySelector('.eb-run__acc'))
    .map((li) => [li.querySelector('.eb-run__name').textContent.trim(), li.querySelector('.eb-run__acc').textContent.trim()]));
  return rows.map(([n, v]) => [n, v.endsWith('%') ? parseFloat(v) / 100 : parseFloat(v)]);
}

/** Waits for a run list entry not in `before` and returns [name, headline]. */
async function newRun(page, before) {
  const names = before.map((r) => r[0]);
  await page.waitForFunction((names) => [...document.querySelectorAll('.eb-run')]
    .some((li) => li.querySelector('.eb-run__acc') && !names.includes(li.querySelector('.eb-run__name').textContent.trim())),
  names, { timeout: 60000 });
  return (await listed(page)).find((r) => !names.includes(r[0]));
}

/** The Items count: [matching, all]. */
async function itemsCount(page) {
  const t = (await page.locator('.eb-items__count').innerText()).replace(/,/g, '');
  const m = t.match(/^(\d+) of (\d+)/) || t.match(/^(\d+)/);
  return [Number(m[1]), Number(m[2] || m[1])];
}

/** Exports the current view as `format` and gives the download's bytes and name. */
async function exportView(page, format) {
  if (!(await page.locator('[data-testid="export-view"]').evaluate((d) => d.open))) {
    await page.click('[data-testid="export-view"] summary');
  }
  await page.selectOption('select[name="export-format"]', format);
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 60000 }), page.click('[data-export="view"]')]);
  return { name: dl.suggestedFilename(), bytes: fs.readFileSync(await dl.path()) };
}

/** Clicks the run list entry named exactly `name`. */
async function openRun(page, name) {
  await page.evaluate((n) => [...document.querySelectorAll('.eb-run__name')]
    .find((e) => e.textContent.trim() === n).click(), name);
}

async function openItems(page, name) {
  await openRun(page, name);
  await page.click('#eb-tab-items');
  await page.waitForFunction(() => /^\d/.test(document.querySelector('.eb-items__count')?.textContent || ''), null, { timeout: 30000 });
}

/** CSV text as rows of cells (quoted cells may hold commas, quotes and line ends). */
function parseCsv(text) {
  const rows = [[]];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (c === '"') quoted = false; else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { rows.at(-1).push(cell); cell = ''; } else if (c === '\n') { rows.at(-1).push(cell); cell = ''; rows.push([]); } else cell += c;
  }
  if (cell !== '' || rows.at(-1).length) rows.at(-1).push(cell); else rows.pop();
  return rows;
}

const near = (a, b, what) => assert.ok(Math.abs(a - b) < 0.0015, `${what}: ${a} vs ${b}`);

test('a view exported as JSONL or Parquet drops back with the same count and headline', async () => {
  const { page, rec } = await openPage(app.browser);
  await page.goto(app.srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
  const title = (await page.locator('.eb-runhead__title').innerText()).trim();
  const demo = (await listed(page)).filter((r) => title.startsWith(r[0]))
    .sort((x, y) => y[0].length - x[0].length)[0];
  await page.click('#eb-tab-items');
  await page.waitForFunction(() => /^\d/.test(document.querySelector('.eb-items__count')?.textContent || ''), null, { timeout: 30000 });

  // Unfiltered: the run's own headline and items come back.
  const [, all] = await itemsCount(page);
  const whole = await exportView(page, 'jsonl');
  assert.match(whole.name, /\.evalboard-rows\.jsonl$/);
  let before = await listed(page);
  await dropFiles(page, DROP, [{ path: whole.name, b64: whole.bytes.toString('base64') }]);
  const back = await newRun(page, before);
  near(back[1], demo[1], 'the whole run dropped back: headline');
  await openItems(page, back[0]);
  assert.deepEqual(await itemsCount(page), [all, all]);

  // Filtered (turn 2 of every conversation): the count and the view's headline come back.
  await openRun(page, demo[0]);
  await page.click('#eb-tab-items');
  await page.waitForSelector('select[name="turn"]');
  const turn = await page.locator('select[name="turn"] option').nth(2).getAttribute('value');
  await page.selectOption('select[name="turn"]', turn);
  await page.waitForFunction(() => / match/.test(document.querySelector('.eb-items__count')?.textContent || ''), null, { timeout: 30000 });
  const [n, m] = await itemsCount(page);
  assert.ok(n > 0 && n < m, `${n} of ${m}`);
  await page.click('[data-testid="export-view"] summary');
  await page.screenshot({ path: path.join(outDir, 'export-view.png') });
  const jsonl = await exportView(page, 'jsonl');
  const csv = await exportView(page, 'csv');
  const zip = await exportView(page, 'parquet');
  assert.match(csv.name, /\.view\.csv$/);
  assert.match(zip.name, /\.view\.evalboard-lake\.zip$/);
  const lines = jsonl.bytes.toString('utf8').trim().split('\n');
  const head = JSON.parse(lines[0]);
  assert.equal(head.evalboard_rows, 1);
  assert.equal(head.view.items, n);
  assert.equal(head.view.of_items, m);
  assert.equal(head.run.n_items, n);
  assert.equal(lines.length, n + 1);
  // The headline the view's items give, from the CSV (the judge's column: 1 or 0 per item).
  const rows = parseCsv(csv.bytes.toString('utf8'));
  const col = rows[0].indexOf(head.run.judge);
  assert.ok(col > 0, `the judge ${head.run.judge} is a CSV column: ${rows[0]}`);
  assert.equal(rows.length, n + 1);
  const values = rows.slice(1).map((r) => r[col]).filter((v) => v !== '' && v !== 'unscored').map(Number);
  const want = values.reduce((a, b) => a + b, 0) / values.length;
  near(head.run.headline_value, want, 'the header\'s headline');

  before = await listed(page);
  await dropFiles(page, DROP, [{ path: jsonl.name, b64: jsonl.bytes.toString('base64') }]);
  const fromJsonl = await newRun(page, before);
  near(fromJsonl[1], want, 'JSONL dropped back: headline');
  await openItems(page, fromJsonl[0]);
  assert.deepEqual(await itemsCount(page), [n, n]);

  before = await listed(page);
  await dropFiles(page, DROP, [{ path: zip.name, b64: zip.bytes.toString('base64') }]);
  const fromZip = await newRun(page, before);
  near(fromZip[1], want, 'Parquet dropped back: headline');
  await openItems(page, fromZip[0]);
  assert.equal((await itemsCount(page))[0], n);
  await page.screenshot({ path: path.join(outDir, 'export-view-back.png'), fullPage: true });
  assertQuiet(rec, app.srv.origin);
  await page.close();
});

test('the workspace lake holds the code-generation worker\'s runs, with the CLI\'s numbers', async () => {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'eb-cg-')), 'codegen_ok_trace');
  fs.cpSync(path.join(root, 'tests', 'fixtures', 'codegen', 'ok', 'trace', 'input'), dir, { recursive: true });
  const want = JSON.parse(cli(['score', dir, '--json']));
  const { page, rec } = await openPage(app.browser);
  await page.goto(app.srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
  const before = await listed(page);
  await dropFiles(page, DROP, folderPayload(dir));
  await page.waitForFunction(() => document.querySelector('.eb-runhead__title')?.textContent.trim().startsWith('codegen_ok_trace')
    && document.querySelector('[data-metric="average_overall_score"]'), null, { timeout: 60000 });
  const shown = await listed(page);
  assert.equal(shown.length, before.length + 1);
  const { tmp, lake } = await workspaceLake(page);
  const manifest = JSON.parse(fs.readFileSync(path.join(lake, 'evalboard-lake.json'), 'utf8'));
  const names = manifest.shards.flatMap((s) => s.runs.map((r) => r.name));
  assert.deepEqual([...names].sort(), shown.map((r) => r[0]).sort(), 'every run listed, the code-generation run too');
  const runsFile = manifest.files.find((f) => f.table === 'runs');
  assert.equal(runsFile.rows, shown.length, 'a `runs` row each');
  // The code-generation run's statistics as exported: what `evalboard score --json` prints
  // for its folder (the same engine function), but the paths it was read from.
  const scored = JSON.parse(cli(['score', lake, '--json']));
  assert.equal(scored.length, shown.length);
  const got = scored.find((s) => s.run_name === 'codegen_ok_trace') || scored.find((s) => JSON.stringify(s).includes('codegen_ok_trace'));
  assert.ok(got, JSON.stringify(scored).slice(0, 400));
  const strip = (o) => JSON.parse(JSON.stringify(o, (k, v) => (PATH_KEYS.includes(k) ? undefined : v)));
  assert.deepEqual(strip(got), strip(want[0] ?? want));
  fs.rmSync(tmp, { recursive: true, force: true });
  assertQuiet(rec, app.srv.origin);
  await page.close();
});

test('the workspace as a lake: the CLI scores it as the run list shows, and a drop lists it again', async () => {
  const { page, rec } = await openPage(app.browser);
  await page.goto(app.srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
  const shown = await listed(page);
  const { tmp, zipPath, lake } = await workspaceLake(page, 'export-workspace.png');
  const manifest = JSON.parse(fs.readFileSync(path.join(lake, 'evalboard-lake.json'), 'utf8'));
  assert.ok(manifest.files.every((f) => f.codec === 'zstd'), 'the browser writes zstd');
  const scored = JSON.parse(cli(['score', lake, '--json']));
  assert.equal(scored.length, shown.length, 'every run of the list is in the lake');
  const headline = (s) => (s.headline_score !== undefined ? s.headline_score : s.numerical_accuracy);
  const a = scored.map(headline).sort();
  const b = shown.map((r) => r[1]).sort();
  a.forEach((x, i) => near(x, b[i], `run ${i}: the CLI's headline against the list's`));

  // Dropped back: the same runs, the same headlines.
  await page.click('#eb-tab-items').catch(() => {});
  const before = await listed(page);
  await dropFiles(page, DROP, [{ path: 'ws.zip', b64: fs.readFileSync(zipPath).toString('base64') }]);
  await page.waitForFunction((k) => document.querySelectorAll('.eb-run .eb-run__acc').length >= k, before.length * 2, { timeout: 60000 });
  const again = (await listed(page)).map((r) => r[1]);
  for (const [, v] of before) again.splice(again.indexOf(v), 1);
  again.sort();
  assert.equal(again.length, b.length);
  again.forEach((x, i) => near(x, b[i], `run ${i} dropped back`));
  fs.rmSync(tmp, { recursive: true, force: true });
  assertQuiet(rec, app.srv.origin);
  await page.close();
});

test('a CSV export neutralises a cell that starts like a formula', async () => {
  const rows = [
    JSON.stringify({ evalboard_rows: 1, run: { name: 'formulas', judge: 'exact@v1' } }),
    JSON.stringify({ item_key: ['a'], status: 'scored', input: 'q', expected: '3', output: '=HYPERLINK("http://x","y")', answer: '=HYPERLINK("http://x","y")', verdicts: [{ scorer: 'exact@v1', value: 0, correct: false, label: 'wrong' }] }),
    JSON.stringify({ item_key: ['b'], status: 'scored', input: 'q', expected: '3', output: '3', answer: '3', verdicts: [{ scorer: 'exact@v1', value: 1, correct: true, label: 'correct' }] }),
  ].join('\n') + '\n';
  const { page } = await openPage(app.browser);
  await page.goto(app.srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
  const before = await listed(page);
  await dropFiles(page, DROP, [{ path: 'formulas.jsonl', b64: Buffer.from(rows).toString('base64') }]);
  const run = await newRun(page, before);
  near(run[1], 0.5, 'the hand-written rows: headline');
  await openItems(page, run[0]);
  const csv = (await exportView(page, 'csv')).bytes.toString('utf8');
  assert.ok(csv.includes('"\'=HYPERLINK(""http://x"",""y"")"'), csv);
  assert.ok(!/(^|,)=HYPERLINK/m.test(csv), csv);
  await page.close();
});
