// Code-generation runs (seed 001) in the dashboard, against the built dist/ in headless Chromium:
// a code-generation trace fixture (always available) and the real ISE547 chat_history folder
// (skipped with a note when ../shared/data is absent), each dropped as a folder. Headline numbers
// are checked against `evalboard score --json` on the same files (same engine, native).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assertQuiet,
  serve, launch, openPage, openRun, outsideRequests, folderPayload, dropFiles, root, outDir, cli, cliStats, pct, metric,
} from './lib.mjs';

const FIXTURES = path.join(root, 'tests', 'fixtures');
const CHAT = path.resolve(root, '..', 'shared', 'data', 'ise547', 'simulated_chat_history');
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

const assertClean = (rec) => assertQuiet(rec, srv.origin);

async function shot(page, name, fullPage = false) {
  await page.screenshot({ path: path.join(outDir, `codegen-${name}.png`), fullPage });
}

/** A fixture run folder (a case's `input/`, without expected outputs), copied to a temp folder named `name`. */
function fixtureCopy(rel, name) {
  const src = path.join(FIXTURES, rel);
  const dst = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'eb-cg-')), name);
  fs.cpSync(src, dst, { recursive: true, filter: (p) => !p.split(path.sep).includes('expected') });
  return dst;
}

/** The CLI's metrics.json entries of every session of `dir` (under `profile`). */
function cliEntries(dir, profile = 'doc-v1') {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-cli-'));
  cli(['score', dir, '--out', out, '--profile', profile]);
  const files = {};
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p); else files[path.relative(out, p)] = fs.readFileSync(p, 'utf8');
    }
  };
  walk(out);
  fs.rmSync(out, { recursive: true, force: true });
  const entries = Object.entries(files).filter(([f]) => f.endsWith('/metrics.json')).sort()
    .flatMap(([, t]) => JSON.parse(t));
  return { files, entries };
}

/** The headline cards as the dashboard shows them, from metrics.json entries (seed semantics). */
function headline(entries, summaries) {
  const n = entries.length;
  const overall = entries.map((e) => e.overall_score).filter((x) => x !== null);
  const sum = (k) => summaries.reduce((a, s) => a + s[k], 0);
  return {
    messages: String(n),
    average_overall_score: (overall.reduce((a, b) => a + b, 0) / overall.length).toFixed(3),
    execution_success_rate: pct(entries.filter((e) => e.code_correctness.execution_success).length / n),
    errors_encountered: String(sum('errors_encountered')),
    total_recovery_attempts: String(sum('total_recovery_attempts')),
    successful_recoveries: String(sum('successful_recoveries')),
  };
}

async function waitCodegenRun(page, name) {
  await page.waitForFunction(
    (n) => document.querySelector('.eb-runhead__title')?.textContent.trim().startsWith(n)
      && document.querySelector('[data-metric="average_overall_score"]'),
    name, { timeout: 60000 },
  );
}

test('code-generation trace: headline = CLI, charts, items, message drawer, re-score, export, compare', async () => {
  const base = fixtureCopy(path.join('codegen', 'ok', 'trace', 'input'), 'codegen_ok_trace');
  const cand = fixtureCopy(path.join('codegen', 'diff', 'candidate'), 'candidate');
  const stats = cliStats(base);
  const summaries = stats.sessions.map((s) => s.metrics_summary.summary);
  const { files: cliFiles, entries } = cliEntries(base);
  const want = headline(entries, summaries);

  const { page, rec, context } = await openPage(browser);
  await page.goto(srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
  // The code-generation worker (it carries the Python parser) is fetched on the first such drop.
  const codegenWorker = () => rec.requests.filter((u) => u.includes('codegen-worker'));
  assert.deepEqual(codegenWorker(), [], 'not part of the initial load');
  await dropFiles(page, DROP, folderPayload(base));
  await waitCodegenRun(page, 'codegen_ok_trace');
  assert.ok(codegenWorker().some((u) => u.endsWith('codegen-worker_bg.wasm')), rec.requests.join('\n'));
  for (const [k, v] of Object.entries(want)) assert.equal(await metric(page, k), v, k);
  assert.equal(await metric(page, 'sessions'), String(stats.sessions.length));
  assert.equal((await page.locator('.eb-run--current .eb-run__acc').innerText()).trim(), want.average_overall_score);
  for (const key of ['components', 'overall_distribution', 'distribution_coverage', 'recovery_funnel', 'by_model', 'by_session']) {
    await page.waitForSelector(`[data-chart="${key}"] svg`);
  }
  const funnel = await page.locator('[data-table="recovery_funnel"]').innerText();
  assert.match(funnel, /column_error/);
  assert.match(await page.locator('[data-table="by_model"]').innerText(), /llama-3\.3-70b/);
  await shot(page, 'overview', true);

  // Items: every message, filterable; a click opens the message with its code as numbered text.
  await page.click('#eb-tab-items');
  await page.waitForFunction(() => document.querySelectorAll('.eb-grid--codegen .eb-grid__row').length === 8);
  await page.selectOption('select[name="class"]', 'column_error');
  await page.waitForFunction(() => location.hash.includes("f.class=column_error"));
  await page.waitForFunction(() => {
    const rows = [...document.querySelectorAll('.eb-grid--codegen .eb-grid__row')];
    return rows.length > 0 && rows.length < 8 && rows.every((r) => r.innerText.includes('column_error'));
  });
  await page.selectOption('select[name="class"]', '');
  await page.waitForFunction(() => document.querySelectorAll('.eb-grid--codegen .eb-grid__row').length === 8);
  await shot(page, 'items');
  // A message opens by its key, [session id, message index], which the URL holds.
  const trace = fs.readFileSync(path.join(base, 'traces.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  await page.click(`[data-item="${trace[2].session_id}/2"]`);
  await page.waitForSelector('.eb-drawer .eb-code');
  assert.ok(page.url().includes(`item=${trace[2].session_id}/2`), page.url());
  const fixed = trace[2].recovery_attempts[1].code;
  const lines = await page.locator('.eb-drawer .eb-code').first().locator('.eb-code__line').evaluateAll((ls) => ls.map((l) => [
    l.querySelector('.eb-code__ln').textContent, l.textContent.slice(l.querySelector('.eb-code__ln').textContent.length).replace(/\n$/, '')]));
  assert.deepEqual(lines, fixed.split('\n').map((l, i) => [String(i + 1), l]), 'delivered code, line-numbered, as text');
  const drawer = await page.locator('.eb-drawer').innerText();
  assert.ok(drawer.includes(trace[2].question), drawer);
  assert.match(drawer, /Attempt 1 · failed/);
  assert.match(drawer, /Attempt 2 · fixed/);
  assert.match(drawer, /extracted columns \(code\)/);
  assert.equal(await page.locator('[data-table="message-scores"] [data-row="overall"] td').first().innerText(),
    entries[2].overall_score.toFixed(3));
  await shot(page, 'message');
  // The open message is a history entry: Back closes it, Forward reopens it.
  await page.goBack();
  await page.waitForSelector('.eb-drawer', { state: 'detached' });
  await page.goForward();
  await page.waitForSelector('.eb-drawer .eb-code');
  await page.keyboard.press('Escape');
  await page.waitForSelector('.eb-drawer', { state: 'detached' });
  assert.doesNotMatch(page.url(), /item=/);

  // Settings: the ise547 profile re-scores live and matches the CLI with --profile ise547.
  await page.click('#eb-tab-settings');
  await page.waitForSelector('[data-section="codegen-settings"]');
  await page.check('input[name="eb-cg-profile"][value="ise547"]');
  await shot(page, 'settings');
  await page.click('#eb-tab-overview');
  const ise = cliEntries(base, 'ise547').entries;
  const iseOverall = (ise.reduce((a, e) => a + e.overall_score, 0) / ise.length).toFixed(3);
  await page.waitForFunction((w) => document.querySelector('[data-metric="average_overall_score"] .eb-card__value')?.textContent === w, iseOverall);
  await page.click('#eb-tab-settings');
  await page.check('input[name="eb-cg-profile"][value="doc-v1"]');
  await page.click('#eb-tab-overview');
  await page.waitForFunction((w) => document.querySelector('[data-metric="average_overall_score"] .eb-card__value')?.textContent === w, want.average_overall_score);

  // Export: each session's metrics.json / metrics_summary.json, the CLI's files.
  await page.click('#eb-tab-export');
  await page.waitForSelector('[data-export$="/metrics.json"]');
  const exports = await page.locator('[data-export*="/"]').evaluateAll((bs) => bs.map((b) => b.dataset.export));
  assert.deepEqual(exports.sort(), Object.keys(cliFiles).sort());
  for (const file of exports) {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`[data-export="${file}"]`)]);
    assert.equal(dl.suggestedFilename(), file.replace('/', '-'));
    assert.deepEqual(JSON.parse(fs.readFileSync(await dl.path(), 'utf8')), JSON.parse(cliFiles[file]), file);
  }
  const [report] = await Promise.all([page.waitForEvent('download'), page.click('[data-export="report.html"]')]);
  assert.equal(report.suggestedFilename(), 'evalboard-report-codegen_ok_trace.html');
  assert.match(fs.readFileSync(await report.path(), 'utf8'), /average_overall_score/);
  await shot(page, 'export');

  // Compare with a second trace: messages pair on session + index, as `evalboard diff` does.
  await dropFiles(page, DROP, folderPayload(cand));
  await waitCodegenRun(page, 'candidate');
  // Untrusted text in the candidate's question and code stays text.
  await page.click('#eb-tab-items');
  await page.click('[data-item="22222222-2222-2222-2222-222222222222/0"]');
  await page.waitForSelector('.eb-drawer .eb-code');
  assert.match(await page.locator('.eb-drawer .eb-code').first().innerText(), /# <img src=x onerror=alert\(1\)>/);
  assert.equal(await page.locator('.eb-drawer img, .eb-main img').count(), 0);
  await page.keyboard.press('Escape');
  const diff = JSON.parse(cli(['diff', base, cand, '--json']));
  await page.click('#eb-tab-compare');
  await page.selectOption('select[name="base"]', 'codegen_ok_trace');
  await page.selectOption('select[name="cand"]', 'candidate');
  await page.waitForFunction((n) => document.querySelector('[data-metric="regressed"] .eb-card__value')?.textContent === String(n), diff.regressed.length);
  assert.equal(await metric(page, 'improved'), String(diff.improved.length));
  const regKeys = await page.locator('[data-table="compare-items"] tbody tr[data-flip="regressed"] th').allInnerTexts();
  assert.deepEqual(regKeys, diff.regressed.map(([s, i]) => `${s} · ${i}`));
  await shot(page, 'compare');
  // The candidate picker offers runs of the baseline's family only, and says so.
  const candidates = await page.locator('select[name="cand"] option').allInnerTexts();
  // Each option is the run's name and family, then its label (model · task · headline).
  assert.ok(candidates.every((o) => o.includes(' (code generation)')), candidates.join(', '));
  assert.match(await page.locator('[data-testid="other-families"]').innerText(), /3 runs of other families/);
  // A numeric QA run and a code-generation run cannot be compared: said so, not crashed.
  await page.selectOption('select[name="base"]', 'gpt-4o');
  await page.waitForSelector('.eb-comparison .eb-state--error');
  assertClean(rec);
  await context.close();
});

test('chat_history (real ISE547 data): as originally scored, headline = CLI, code not recorded', { skip: !fs.existsSync(CHAT) && 'no ../shared/data/ise547 (the project does not ship it)' }, async () => {
  const stats = cliStats(CHAT);
  for (const scheme of ['light', 'dark']) {
    const { page, rec, context } = await openPage(browser, { colorScheme: scheme });
    await page.goto(srv.url);
    await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
    await dropFiles(page, DROP, folderPayload(CHAT));
    await waitCodegenRun(page, 'simulated_chat_history');
    assert.equal(await metric(page, 'average_overall_score'), stats.average_overall_score.toFixed(3));
    assert.equal(await metric(page, 'messages'), String(stats.total_questions));
    assert.equal(await metric(page, 'errors_encountered'), String(stats.errors_encountered));
    assert.equal(await metric(page, 'total_recovery_attempts'), String(stats.total_recovery_attempts));
    assert.equal(await metric(page, 'successful_recoveries'), String(stats.successful_recoveries));
    assert.equal(await metric(page, 'recovery_success_rate'), pct(stats.recovery_success_rate));
    assert.equal(await metric(page, 'execution_success_rate'), pct(stats.successful_executions / stats.total_questions));
    await page.waitForSelector('[data-note="not-recorded"]');
    const side = await page.locator('[data-table="original_vs_rescored"]').innerText();
    assert.match(side, /As written \(metrics_summary\.json\)/i);
    // The written recovery success rate of 2.0 is impossible as a rate: flagged where it stands.
    if (stats.recovery_success_rate > 1 || /2\.000/.test(side)) {
      assert.match(side, /impossible: above 1/);
      await page.waitForSelector('[data-note="impossible-original"]');
    }
    await page.waitForSelector('[data-chart="components"] svg');
    await shot(page, `chat-history-overview-${scheme}`, true);
    await page.click('#eb-tab-items');
    await page.waitForFunction((n) => document.querySelectorAll('.eb-grid--codegen .eb-grid__row').length === n, stats.total_questions);
    await page.click('.eb-grid--codegen .eb-grid__row[aria-rowindex="2"]');
    await page.waitForSelector('.eb-drawer [data-note="code-not-recorded"]');
    assert.equal(await page.locator('.eb-drawer .eb-code').count(), 0);
    await shot(page, `chat-history-message-${scheme}`);
    await page.keyboard.press('Escape');
    await page.click('#eb-tab-files');
    await page.waitForSelector('[data-table="files"]');
    assert.match(await page.locator('[data-table="files"]').innerText(), /metrics\.json[\s\S]*parsed/);
    assertClean(rec);
    await context.close();
  }
});

test('malformed code-generation input: every bad entry in the load report with file and line; unusable input fails cleanly', async () => {
  const bad = fixtureCopy(path.join('codegen', 'err', 'malformed', 'input'), 'codegen_err_malformed');
  const { page, rec, context } = await openPage(browser);
  await page.goto(srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
  await dropFiles(page, DROP, folderPayload(bad));
  await waitCodegenRun(page, 'codegen_err_malformed');
  await page.click('#eb-tab-files');
  await page.waitForSelector('[data-table="diagnostics"]');
  const diags = await page.locator('[data-table="diagnostics"] tbody tr').evaluateAll((rs) => rs.map((r) => [...r.cells].map((c) => c.textContent.trim())));
  const has = (file, line, text) => diags.some(([sev, f, l, , msg]) => f === file && l === String(line) && msg.includes(text) && sev);
  assert.ok(has('trace.jsonl', 2, 'malformed JSON'), JSON.stringify(diags));
  assert.ok(has('trace.jsonl', 5, 'code should be a string'));
  assert.ok(has('chat_history/sess-a/metrics.json', 132, 'malformed entry'));
  assert.ok(has('chat_history/sess-a/metrics.json', 133, 'not a JSON object'));
  assert.match(await page.locator('[data-table="files"]').innerText(), /trace\.jsonl[\s\S]*partly parsed/);
  await shot(page, 'load-report');
  // Nothing usable: the run fails with its files and diagnostics, the page stays up.
  await dropFiles(page, DROP, [{ path: 'broken_codegen/t.jsonl', b64: Buffer.from('{"question": "q", "code": 5, "execution_result": {}}\n').toString('base64') }]);
  await page.waitForFunction(() => [...document.querySelectorAll('.eb-run')].some((r) => r.innerText.includes('broken_codegen') && r.innerText.includes('could not be loaded')));
  await openRun(page, 'broken_codegen');
  await page.click('#eb-tab-files');
  await page.waitForSelector('[data-table="diagnostics"]');
  assert.match(await page.locator('[data-table="diagnostics"]').innerText(), /code should be a string/);
  assertClean(rec);
  await context.close();
});

test('code nested thousands of levels deep (4,500 unary minuses, 300 parentheses): invalid syntax, not a dead worker', async () => {
  const line = (code) => JSON.stringify({ session_id: 's', model: 'm', question: 'q', code, execution_result: { type: 'number', data: 1 } });
  const text = [line(`x = ${'-'.repeat(4500)}1`), line(`y = ${'('.repeat(300)}1${')'.repeat(300)}`), line('z = 1 + 2')].join('\n') + '\n';
  const { page, rec, context } = await openPage(browser);
  await page.goto(srv.url);
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
  await dropFiles(page, DROP, [{ path: 'deep_code/trace.jsonl', b64: Buffer.from(text).toString('base64') }]);
  await waitCodegenRun(page, 'deep_code');
  // The same numbers as the CLI, which reports the two deep lines as invalid Python.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-deep-'));
  fs.mkdirSync(path.join(dir, 'deep_code'));
  fs.writeFileSync(path.join(dir, 'deep_code', 'trace.jsonl'), text);
  const stats = cliStats(path.join(dir, 'deep_code'));
  assert.equal(await metric(page, 'average_overall_score'), stats.average_overall_score.toFixed(3));
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-deep-out-'));
  cli(['score', path.join(dir, 'deep_code'), '--out', out]);
  const entries = JSON.parse(fs.readFileSync(path.join(out, 's', 'metrics.json'), 'utf8'));
  assert.deepEqual(entries.map((e) => e.code_correctness.syntax_valid), [false, false, true]);
  // The other runs stay usable: the demo's numeric QA run still answers.
  await openRun(page, 'gpt-4o');
  await page.waitForSelector('[data-metric="numerical_accuracy"]');
  assertClean(rec);
  await context.close();
});
