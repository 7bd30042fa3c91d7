// Results lakes in the dashboard (issue 27.5): a lake exported by the CLI from fixtures is
// dropped as a folder; the lake worker (its own wasm, fetched on this drop only) lists its runs
// with the headlines `evalboard score LAKE --json` prints; a run's Overview shows its scorers'
// statistics from `aggregates`, and its Items are read from `samples` and `verdicts` when opened.
// A file whose bytes differ from the manifest is named; the other tables still open.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { withApp, openPage, folderPayload, dropFiles, root, outDir, cli, assertQuiet, workspaceLake } from './lib.mjs';

const DROP = '.eb-app';
const app = withApp();

/** A lake exported by the CLI into a fresh folder named `name`: a numeric QA run (the demo's
 * gpt-4o under another name: the demo's own run is listed too) and two Inspect logs. */
function exportLake(name) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-lake-'));
  const qa = path.join(tmp, 'qa-run');
  fs.cpSync(path.join(root, 'demo', 'gpt-4o'), qa, { recursive: true });
  const dir = path.join(tmp, name);
  cli(['export', '--lake', dir, qa, path.join(root, 'tests', 'fixtures', 'compare', 'base')]);
  return dir;
}

const dec3 = (x) => (x === null || x === undefined ? '—' : x.toFixed(3));

/** Waits until the run list names every one of `names`. */
async function waitNames(page, names) {
  await page.waitForFunction((n) => {
    const shown = [...document.querySelectorAll('.eb-run .eb-run__name')].map((e) => e.textContent.trim());
    return n.every((x) => shown.includes(x));
  }, names, { timeout: 60000 });
}

/** The run list's entries: name → headline as shown. */
async function listed(page) {
  return page.evaluate(() => Object.fromEntries([...document.querySelectorAll('.eb-run')]
    .filter((li) => li.querySelector('.eb-run__acc'))
    .map((li) => [li.querySelector('.eb-run__name').textContent.trim(), li.querySelector('.eb-run__acc').textContent.trim()])));
}

test('a dropped lake lists its runs with the CLI\'s headlines; a run opens on Overview and Items', async () => {
  const lake = exportLake('lake-ok');
  const want = JSON.parse(cli(['score', lake, '--json']));
  const { page, rec } = await openPage(app.browser);
  const fetched = [];
  page.on('request', (r) => fetched.push(r.url()));
  await page.goto(app.srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
  assert.ok(!fetched.some((u) => u.includes('lake-worker')), 'the lake worker is not fetched before a lake is dropped');
  await dropFiles(page, DROP, folderPayload(lake));
  await waitNames(page, want.map((w) => w.run_name));
  assert.ok(fetched.some((u) => u.includes('lake-worker')), 'the lake worker is fetched on the drop');
  const shown = await listed(page);
  for (const w of want) {
    const headline = w.headline_score !== undefined ? w.headline_score : w.numerical_accuracy;
    assert.equal(shown[w.run_name], dec3(headline), `${w.run_name}: headline`);
  }
  // Open the numeric QA run: its Overview from runs + aggregates.
  await page.locator('.eb-run__name', { hasText: 'qa-run' }).first().click();
  await page.waitForSelector('[data-table="lake-scorers"]', { timeout: 30000 });
  await page.screenshot({ path: path.join(outDir, 'lake-overview.png'), fullPage: true });
  const qa = want.find((w) => w.run_name === 'qa-run');
  const cards = await page.locator('[data-table="lake-scorers"]').innerText();
  assert.ok(cards.includes(`${(qa.numerical_accuracy * 100).toFixed(1)}%`), `scorers table holds the accuracy: ${cards}`);
  // Items: read when opened.
  await page.click('#eb-tab-items');
  await page.waitForFunction((n) => document.querySelector('.eb-items__count')?.textContent.startsWith(`${n} item`),
    qa.total_turns, { timeout: 30000 });
  await page.screenshot({ path: path.join(outDir, 'lake-items.png'), fullPage: true });
  await page.locator('.eb-grid__row').first().click();
  await page.waitForSelector('[data-table="lake-verdicts"]', { timeout: 30000 });
  await page.screenshot({ path: path.join(outDir, 'lake-item.png'), fullPage: true });
  assertQuiet(rec, app.srv.origin);
  await page.close();
});

test('a lake file whose bytes differ from the manifest is named; the runs still list', async () => {
  const lake = exportLake('lake-bad');
  const agg = path.join(lake, 'aggregates');
  const file = fs.readdirSync(agg)[0];
  const bytes = fs.readFileSync(path.join(agg, file));
  bytes[Math.floor(bytes.length / 2)] ^= 0xff;
  fs.writeFileSync(path.join(agg, file), bytes);
  const { page } = await openPage(app.browser);
  await page.goto(app.srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
  await dropFiles(page, DROP, folderPayload(lake));
  await page.waitForFunction(() => [...document.querySelectorAll('.eb-run .eb-run__name')]
    .some((e) => e.textContent.trim() === 'base/arith.json'), null, { timeout: 60000 });
  await page.locator('.eb-run__name', { hasText: 'base/arith.json' }).first().click();
  await page.waitForSelector('[data-note="lake-problem"]', { timeout: 30000 });
  const note = await page.locator('[data-note="lake-problem"]').first().innerText();
  assert.ok(note.includes(`lake-bad/aggregates/${file}`) && note.includes('SHA-256'), note);
  await page.screenshot({ path: path.join(outDir, 'lake-bad-hash.png'), fullPage: true });

  // A manifest of another schema version: the lake fails, naming the manifest.
  const manifest = path.join(lake, 'evalboard-lake.json');
  fs.writeFileSync(manifest, fs.readFileSync(manifest, 'utf8').replace('"schema_version": 1', '"schema_version": 9'));
  fs.renameSync(lake, path.join(path.dirname(lake), 'lake-v9'));
  await dropFiles(page, DROP, folderPayload(path.join(path.dirname(lake), 'lake-v9')));
  await page.waitForFunction(() => document.body.innerText.includes('lake-v9/evalboard-lake.json'), null, { timeout: 30000 });
  await page.close();
});

test('a zipped lake opens like its folder: stored members read by File.slice, deflated ones inflated', async () => {
  const lake = exportLake('lake-zip');
  const want = JSON.parse(cli(['score', lake, '--json']));
  const { page, rec } = await openPage(app.browser);
  await page.goto(app.srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
  for (const [file, level] of [['stored.zip', '-0'], ['deflated.zip', '-6']]) {
    const zip = path.join(path.dirname(lake), file);
    execFileSync('zip', ['-q', '-r', level, zip, path.basename(lake)], { cwd: path.dirname(lake) });
    await page.evaluate(() => document.querySelector('[data-action="remove-all"]')?.click());
    await page.evaluate(() => document.querySelector('[data-action="remove-all"]')?.click());
    await dropFiles(page, DROP, [{ path: file, b64: fs.readFileSync(zip).toString('base64') }]);
    await page.waitForFunction((n) => {
      const names = [...document.querySelectorAll('.eb-run .eb-run__name')].map((e) => e.textContent.trim());
      return n.every((x) => names.includes(x));
    }, want.map((w) => w.run_name), { timeout: 60000 });
    const shown = await listed(page);
    for (const w of want) {
      const headline = w.headline_score !== undefined ? w.headline_score : w.numerical_accuracy;
      assert.equal(shown[w.run_name], dec3(headline), `${file}: ${w.run_name}: headline`);
    }
    // A run's items, from its members (sliced from the zip, or inflated).
    await page.locator('.eb-run__name', { hasText: 'qa-run' }).first().click();
    await page.waitForSelector('[data-table="lake-scorers"]', { timeout: 30000 });
    await page.click('#eb-tab-items');
    const qa = want.find((w) => w.run_name === 'qa-run');
    await page.waitForFunction((n) => document.querySelector('.eb-items__count')?.textContent.startsWith(`${n} item`),
      qa.total_turns, { timeout: 30000 });
    await page.screenshot({ path: path.join(outDir, `lake-${file}.png`), fullPage: true });
  }
  // A zip that holds no lake says so.
  const empty = Buffer.concat([Buffer.from([0x50, 0x4b, 5, 6]), Buffer.alloc(18)]);
  await dropFiles(page, DROP, [{ path: 'nolake.zip', b64: empty.toString('base64') }]);
  await page.waitForFunction(() => document.body.innerText.includes('no evalboard-lake.json'), null, { timeout: 30000 });
  assertQuiet(rec, app.srv.origin);
  await page.close();
});

test('lm-eval details Parquet (no lake manifest) is converted by the lake worker and loads as an lm-eval run', async () => {
  const details = path.join(root, 'tests', 'fixtures', 'evallog', 'details');
  const want = JSON.parse(cli(['score', path.join(details, 'baseline'), '--json']));
  const { page, rec } = await openPage(app.browser);
  await page.goto(app.srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
  await dropFiles(page, DROP, folderPayload(path.join(details, 'baseline')));
  await page.waitForFunction(() => [...document.querySelectorAll('.eb-run')]
    .some((li) => li.querySelector('.eb-run__name')?.textContent.trim() === 'baseline' && li.querySelector('.eb-run__acc')), null, { timeout: 60000 });
  const shown = await listed(page);
  const h = want.headline_score;
  assert.ok([dec3(h), `${(h * 100).toFixed(1)}%`].includes(shown.baseline), `headline ${shown.baseline} vs the CLI's ${h}`);
  // Re-scored like any lm-eval log: its Overview is the main worker's (not a lake run's).
  await page.locator('.eb-run__name', { hasText: 'baseline' }).first().click();
  await page.waitForFunction(() => document.body.innerText.includes('lm-evaluation-harness'), null, { timeout: 30000 });
  await page.screenshot({ path: path.join(outDir, 'lake-details.png'), fullPage: true });
  // A corrupt details file is named; a lake table alone is neither a lake nor details.
  await dropFiles(page, DROP, folderPayload(path.join(details, 'corrupt')));
  await page.waitForFunction(() => document.body.innerText.includes('0000.parquet'), null, { timeout: 30000 });
  const lake = exportLake('lake-parts');
  await dropFiles(page, DROP, folderPayload(path.join(lake, 'runs')));
  await page.waitForFunction(() => document.body.innerText.includes('neither a results lake'), null, { timeout: 30000 });
  assertQuiet(rec, app.srv.origin);
  await page.close();
});

test('lake runs load into the workspace: compared as `evalboard compare LAKE` compares them, reported', async () => {
  // Two logs and their baselines (the same tasks from another model), one lake.
  const F = path.join(root, 'tests', 'fixtures', 'compare');
  const lake = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'eb-lake-')), 'lake-cmp');
  cli(['export', '--lake', lake, '--baseline', path.join(F, 'base'), path.join(F, 'base'), path.join(F, 'mini')]);
  const want = JSON.parse(cli(['compare', lake, '--json'])).runs;
  const scored = JSON.parse(cli(['score', lake, '--json']));
  const { page, rec } = await openPage(app.browser);
  await page.goto(app.srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
  await dropFiles(page, DROP, folderPayload(lake));
  await waitNames(page, scored.map((w) => w.run_name));
  // "Load into the workspace" on a lake run's Overview: the same entry, now a workspace run.
  const cand = want.find((r) => r.run === 'mini/arith.json');
  await page.evaluate(() => [...document.querySelectorAll('.eb-run__name')]
    .find((e) => e.textContent.trim() === 'mini/arith.json').click());
  await page.waitForSelector('[data-testid="lake-load"]', { timeout: 30000 });
  await page.screenshot({ path: path.join(outDir, 'lake-before-load.png'), fullPage: true });
  await page.click('[data-testid="lake-load"] button');
  await page.waitForFunction(() => !document.querySelector('[data-testid="lake-load"]')
    && document.querySelector('[data-metric="headline_score"]'), null, { timeout: 60000 });
  await page.screenshot({ path: path.join(outDir, 'lake-loaded.png'), fullPage: true });
  // Its Overview's recorded headline is the one exported: what `score LAKE --json` prints.
  const arith = scored.find((w) => w.run_name === 'mini/arith.json');
  const headCard = await page.locator('[data-metric="headline_score"]').first().innerText();
  assert.ok(headCard.includes(`the log records ${arith.headline_score.toFixed(4)}`), headCard);
  assert.ok(!headCard.includes('records —'), headCard);
  // Compare it with a lake run still in the lake (loaded first, then paired).
  await page.click('#eb-tab-compare');
  await page.selectOption('select[name="base"]', cand.baseline);
  await page.selectOption('select[name="cand"]', 'mini/arith.json');
  await page.waitForFunction((n) => document.querySelector('[data-metric="regressed"] .eb-card__value')?.textContent === String(n),
    cand.regressed, { timeout: 60000 });
  const card = (k) => page.locator(`[data-metric="${k}"]`).first().innerText();
  assert.equal(Number((await card('improved')).match(/\d+/)[0]), cand.improved);
  assert.ok((await card('accuracy_delta')).includes(`over ${cand.n_paired} paired`), await card('accuracy_delta'));
  assert.ok((await card('accuracy_delta')).includes(`${(cand.delta * 100).toFixed(1)}`), await card('accuracy_delta'));
  assert.ok((await card('mcnemar_p')).includes(cand.mcnemar_exact_p.toFixed(4)), await card('mcnemar_p'));
  await page.screenshot({ path: path.join(outDir, 'lake-compare.png'), fullPage: true });
  // Loaded, they keep their names and the CLI's headlines.
  const shown = await listed(page);
  for (const w of scored) assert.equal(shown[w.run_name], dec3(w.headline_score), `${w.run_name}: headline`);
  // The report of a run still in the lake (loaded on the way; opened on Overview, as Compare
  // would load it).
  await page.click('#eb-tab-overview');
  await page.evaluate(() => [...document.querySelectorAll('.eb-run__name')]
    .find((e) => e.textContent.trim() === 'mini/words.json').click());
  await page.waitForSelector('[data-testid="lake-load"]', { timeout: 30000 });
  await page.click('#eb-tab-export');
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 60000 }), page.click('[data-export="report.html"]')]);
  const html = fs.readFileSync(await dl.path(), 'utf8');
  const data = JSON.parse(html.match(/<script type="application\/json" id="eb-data">([^<]*)<\/script>/)[1]);
  const words = scored.find((w) => w.run_name === 'mini/words.json');
  assert.equal(dec3(data.runs[0].statistics.headline_score), dec3(words.headline_score), 'the report\'s headline');
  assertQuiet(rec, app.srv.origin);
  await page.close();
});

test('"Export the workspace as a lake" keeps the runs of a dropped lake never loaded, as their lake holds them', async () => {
  // Logs only: a copy of the demo's run would be the demo's run (the same files, one run_id).
  const F = path.join(root, 'tests', 'fixtures', 'compare');
  const lake = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'eb-lake-')), 'lake-ws');
  cli(['export', '--lake', lake, path.join(F, 'base'), path.join(F, 'mini')]);
  const want = JSON.parse(cli(['score', lake, '--json']));
  const source = JSON.parse(fs.readFileSync(path.join(lake, 'evalboard-lake.json'), 'utf8'));
  const { page, rec } = await openPage(app.browser);
  await page.goto(app.srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
  await dropFiles(page, DROP, folderPayload(lake));
  await waitNames(page, want.map((w) => w.run_name));
  const { lake: ws } = await workspaceLake(page, 'lake-workspace-export.png');
  const manifest = JSON.parse(fs.readFileSync(path.join(ws, 'evalboard-lake.json'), 'utf8'));
  const ids = manifest.shards.flatMap((s) => s.runs.map((r) => r.run_id));
  // The lake's runs under their own run ids (not loaded, so not re-scored), beside the demo's run.
  const lakeRuns = source.shards.flatMap((s) => s.runs);
  for (const r of lakeRuns) assert.ok(ids.includes(r.run_id), `${r.name} (${r.run_id}) in ${ids}`);
  assert.ok(manifest.shards.flatMap((s) => s.runs).some((r) => r.name === 'gpt-4o'), 'the demo run is kept too');
  // Their rows as the lake holds them: rows per table add up, and `score` reads the same numbers.
  const rowsOf = (m, table) => m.files.filter((f) => f.table === table).reduce((n, f) => n + f.rows, 0);
  for (const table of ['samples', 'verdicts', 'sample_text']) {
    assert.ok(rowsOf(manifest, table) > rowsOf(source, table), `${table}: ${rowsOf(manifest, table)} rows vs the lake's ${rowsOf(source, table)}`);
  }
  const again = JSON.parse(cli(['score', ws, '--json']));
  for (const w of want) {
    const a = again.find((x) => x.run_name === w.run_name);
    assert.ok(a, `${w.run_name} in the workspace lake`);
    assert.deepEqual(a, w, `${w.run_name}: score WORKSPACE-LAKE --json equals score LAKE --json`);
  }
  assertQuiet(rec, app.srv.origin);
  await page.close();
});
