// Issue 29.3 in the browser: human review marks (docs/marks.md, docs/dashboard.md § Human
// review), against the built dist/ in headless Chromium. Must-hold: 200 items labelled with at
// most 2 keystrokes each (counted); the marks come back after a reload and a re-drop of the same
// bytes, and are not applied to bytes that differ by one byte; the κ shown equals the engine's
// (`evalboard score --marks --json` on the exported sidecar); a hostile note (script, control
// characters, 1 MB) is stored and shown as text; export → import gives the same marks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assertQuiet,
  withApp, openPage, outsideRequests, folderPayload, dropFiles, outDir, cliStats, waitRun, root,
} from './lib.mjs';

const app = withApp();
const N = 200;
const DIR = path.join(outDir, 'marks_log');
const OTHER = path.join(outDir, 'marks_other', 'marks_log');

/** A promptfoo results.jsonl of `N` samples: every third fails. */
function rows(changed = false) {
  return Array.from({ length: N }, (_, i) => JSON.stringify({
    testIdx: i, promptIdx: 0, success: i % 3 !== 0, score: i % 3 ? 1 : 0,
    prompt: { raw: `question ${i}`, label: 'p' }, provider: { id: 'toy', label: '' }, vars: { i },
    response: { output: `answer ${i}${changed && i === 7 ? '!' : ''}` },
    gradingResult: { pass: i % 3 !== 0, score: i % 3 ? 1 : 0, reason: `reason ${i}` },
  })).join('\n');
}
fs.mkdirSync(DIR, { recursive: true });
fs.writeFileSync(path.join(DIR, 'results.jsonl'), `${rows()}\n`);
fs.mkdirSync(OTHER, { recursive: true });
// One byte more (a `!` in one answer): other bytes.
fs.writeFileSync(path.join(OTHER, 'results.jsonl'), `${rows(true)}\n`);

/** The human's verdict on item i: disagrees with the scorer on some. */
const human = (i) => i % 4 !== 0;

const assertClean = (rec) => assertQuiet(rec, app.srv.origin);

async function shot(page, name) {
  await page.screenshot({ path: path.join(outDir, `marks-${name}.png`) });
}

async function waitLog(page, name) {
  await page.waitForFunction((n) => document.querySelector('.eb-runhead__title')?.textContent.trim().startsWith(n)
    && document.querySelector('[data-metric="headline_score"]'), name, { timeout: 60000 });
}

async function start(page) {
  await page.addInitScript(() => localStorage.setItem('evalboard.demo-dismissed', '1'));
  await page.goto(app.srv.url);
  await page.waitForSelector('.eb-app');
}

/** The Items tab with the Human filter at `value` ('' = any): the count line once settled. */
async function humanFilter(page, value) {
  await page.click('#eb-tab-items');
  await page.waitForSelector('select[name="human"]');
  await page.selectOption('select[name="human"]', value);
  await page.waitForFunction(() => /samples|turns|messages/.test(document.querySelector('.eb-items__count')?.textContent || ''));
  await page.waitForTimeout(300);
  return page.locator('.eb-items__count').innerText();
}

/** Lines of the newest marks file the worker wrote (OPFS). */
async function storedLines(page) {
  return page.evaluate(async () => {
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('evalboard-marks', { create: true });
    let best = null;
    for await (const [name] of dir.entries()) {
      const n = Number((name.match(/^marks-(\d+)\.jsonl$/) || [])[1]);
      if (n && (!best || n > best.n)) best = { n, name };
    }
    if (!best) return 0;
    try {
      const text = await (await (await dir.getFileHandle(best.name)).getFile()).text();
      return text.split('\n').filter(Boolean).length;
    } catch { return -1; } // replaced by a newer save meanwhile

  });
}

/** Waits until the dropped run is kept in the browser's storage (its manifest written). */
async function waitKept(page) {
  await page.waitForFunction(async () => {
    const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('evalboard-runs', { create: true });
    for await (const [, dir] of root.entries()) {
      try { await dir.getFileHandle('manifest.json'); return true; } catch { /* copying */ }
    }
    return false;
  }, null, { timeout: 30000, polling: 200 });
}

async function exportMarks(page) {
  await page.click('#eb-tab-export');
  await page.waitForSelector('[data-export="evalboard-marks.jsonl"]');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('[data-export="evalboard-marks.jsonl"]')]);
  return fs.readFileSync(await dl.path(), 'utf8');
}

test('200 items labelled with ≤ 2 keystrokes each; reload, re-drop and one changed byte; κ as the engine; export → import', async () => {
  const { page, rec, context } = await openPage(app.browser, { viewport: { width: 1400, height: 900 } });
  await start(page);
  await dropFiles(page, '.eb-app', folderPayload(DIR));
  await waitLog(page, 'marks_log');
  await page.click('#eb-tab-items');
  await page.waitForSelector('.eb-grid--log .eb-grid__row[aria-rowindex="2"]');
  // The keystrokes: `j` opens the first item, then `1`/`0` and `j` for each.
  let keys = 0;
  const press = async (k) => { keys += 1; await page.keyboard.press(k); };
  await press('j');
  for (let i = 0; i < N; i++) {
    await page.waitForSelector(`.eb-grid__row--selected[aria-rowindex="${i + 2}"]`, { timeout: 10000 });
    await page.waitForSelector('.eb-drawer [data-review]');
    await press(human(i) ? '1' : '0');
    if (i === 4) {
      await page.waitForSelector('.eb-drawer [data-mark="wrong"][aria-pressed="true"]');
      await shot(page, 'drawer-desktop');
    }
    if (i < N - 1) await press('j');
  }
  assert.ok(keys <= 2 * N, `${keys} keystrokes for ${N} items`);
  // Kept: the stored file holds the header and 200 items.
  for (let t = 0; t < 100 && (await storedLines(page)) !== N + 1; t++) await page.waitForTimeout(200);
  assert.equal(await storedLines(page), N + 1, 'the kept marks file: header + 200 items');
  await page.keyboard.press('Escape');
  const nWrong = Array.from({ length: N }, (_, i) => i).filter((i) => !human(i)).length;
  assert.match(await humanFilter(page, 'wrong'), new RegExp(`^${nWrong} of ${N} samples match`));
  assert.match(await humanFilter(page, 'marked'), new RegExp(`^${N} samples`));
  // Every row's Human cell, as marked (the first screenful).
  const cells = await page.evaluate(() => [...document.querySelectorAll('.eb-grid--log .eb-grid__row')]
    .slice(0, 8).map((r) => r.lastElementChild.textContent));
  assert.deepEqual(cells, Array.from({ length: 8 }, (_, i) => (human(i) ? '✓ correct' : '✗ wrong')));
  // scorer ≠ human: the scorer fails every third, the human every fourth.
  const differ = Array.from({ length: N }, (_, i) => i).filter((i) => (i % 3 !== 0) !== human(i)).length;
  assert.match(await humanFilter(page, 'scorer ≠ human'), new RegExp(`^${differ} of ${N} samples match`));
  await humanFilter(page, '');

  // κ shown equals the engine's on the exported sidecar.
  const sidecar = await exportMarks(page);
  const file = path.join(outDir, 'marks_log.marks.jsonl');
  fs.writeFileSync(file, sidecar);
  assert.equal(sidecar.split('\n').filter(Boolean).length, N + 1);
  const cli = cliStats(DIR, ['--marks', file]);
  const review = cli.human.review;
  assert.ok(review, 'the CLI applies the page\'s marks (same content id)');
  await page.click('#eb-tab-overview');
  await page.waitForSelector('[data-table="agreement"]');
  // The row's header cell is the scorer; then n, κ, the four cells, how many differ.
  const shown = await page.locator('[data-table="agreement"] tbody tr').first().locator('td').allInnerTexts();
  assert.equal(shown[1], review.agreement[0].kappa.toFixed(3), `κ shown ${shown[1]}`);
  assert.equal(shown[0], String(review.agreement[0].n));
  const c = review.agreement[0].confusion;
  assert.deepEqual(shown.slice(2, 6), [c.both_correct, c.scorer_correct_human_wrong, c.scorer_wrong_human_correct, c.both_wrong].map(String));
  assert.match(await page.locator('[data-metric="human-overrides"]').innerText(), new RegExp(`${review.headline_with_human_overrides.correct} of ${N}`));
  assert.match(await page.locator('[data-metric="human-original"]').innerText(), new RegExp(`${review.headline.correct} of ${N}`));
  await page.locator('[data-section="human-review"]').scrollIntoViewIfNeeded();
  await shot(page, 'overview-desktop');
  // "show them" opens Items filtered to scorer ≠ human.
  await page.click('[data-table="agreement"] [data-open]');
  await page.waitForFunction((d) => (document.querySelector('.eb-items__count')?.textContent || '').startsWith(`${d} of`), differ);

  // A reload: the run comes back from the browser's storage, and its marks with it.
  await waitKept(page);
  await page.goto(`${app.srv.url}#run=marks_log&tab=overview`);
  await page.reload();
  await waitLog(page, 'marks_log');
  assert.match(await humanFilter(page, 'marked'), new RegExp(`^${N} samples`));

  // The same bytes dropped again: a second run, the same marks.
  await humanFilter(page, '');
  await dropFiles(page, '.eb-app', folderPayload(DIR));
  await page.waitForFunction(() => document.querySelectorAll('.eb-run__name').length === 2, null, { timeout: 60000 });
  await page.locator('.eb-run__name[title="marks_log (2)"]').click();
  await waitLog(page, 'marks_log');
  await page.waitForFunction(() => /\(2\)/.test(document.querySelector('.eb-runhead__title')?.textContent || ''));
  assert.match(await humanFilter(page, 'marked'), new RegExp(`^${N} samples`));

  // All runs: both (same bytes, same marks) against the pinned baseline, with overrides.
  await page.click('#eb-tab-runs');
  await page.selectOption('select[name="pin"]', 'marks_log');
  await page.waitForSelector('[data-section="human-many"] [data-table="human-many"]', { timeout: 60000 });
  const many = await page.locator('[data-table="human-many"] tbody tr').evaluateAll((rs) => rs
    .map((r) => [...r.children].map((c) => c.textContent.trim())));
  assert.equal(many.length, 2, JSON.stringify(many));
  assert.deepEqual(many.map((r) => r[1]), [String(N), String(N)]);
  assert.match(many[0][3], new RegExp(`\\(${review.headline_with_human_overrides.correct} of ${N}\\)$`));
  assert.equal(many[0][4], 'baseline');
  assert.deepEqual(many[1].slice(4, 6), ['+0.0 pp', '+0.0 pp']);
  await page.locator('[data-section="human-many"]').scrollIntoViewIfNeeded();
  await shot(page, 'all-runs');

  // One byte different: no mark applies, and the page says where they are.
  await humanFilter(page, '');
  await dropFiles(page, '.eb-app', folderPayload(OTHER));
  await page.waitForFunction(() => document.querySelectorAll('.eb-run__name').length === 3, null, { timeout: 60000 });
  await page.locator('.eb-run__name[title="marks_log (3)"]').click();
  await page.waitForFunction(() => /\(3\)/.test(document.querySelector('.eb-runhead__title')?.textContent || ''));
  await waitLog(page, 'marks_log');
  assert.match(await humanFilter(page, 'marked'), new RegExp(`^0 of ${N} samples match`));
  await page.click('#eb-tab-overview');
  await page.waitForSelector('[data-section="human-review"] [data-field="review-none"]');
  assert.match(await page.locator('[data-field="review-others"]').innerText(), /marks_log \([0-9a-f]{12}…\): 200 items/);
  assertClean(rec);
  await context.close();

  // Export → import in a fresh browser profile: the same marks, the same bytes exported.
  const fresh = await openPage(app.browser, { viewport: { width: 390, height: 844 } });
  await start(fresh.page);
  await dropFiles(fresh.page, '.eb-app', folderPayload(DIR));
  await waitLog(fresh.page, 'marks_log');
  assert.match(await humanFilter(fresh.page, 'marked'), new RegExp(`^0 of ${N} samples match`));
  // Dropped like a run: the worker finds the marks header and imports it (no run is listed).
  await dropFiles(fresh.page, '.eb-app', [{ path: 'marks_log.marks.jsonl', b64: Buffer.from(sidecar).toString('base64') }]);
  await fresh.page.waitForSelector('.eb-notice');
  await fresh.page.waitForFunction(() => document.querySelectorAll('.eb-run__name').length === 1);
  assert.match(await fresh.page.locator('.eb-notice').first().innerText(), /marks_log\.marks\.jsonl: 200 marked items of 1 run read/);
  assert.match(await humanFilter(fresh.page, 'marked'), new RegExp(`^${N} samples`));
  assert.equal(await exportMarks(fresh.page), sidecar, 'the export of the import is the same file');
  // A sidecar with a bad line: its file and line are named.
  const bad = path.join(outDir, 'marks_bad.jsonl');
  fs.writeFileSync(bad, `${sidecar.split('\n')[0]}\nnot json\n{"run": "abc", "key": ["x"]}\n`);
  await dropFiles(fresh.page, '.eb-app', [{ path: 'marks_bad.jsonl', b64: fs.readFileSync(bad).toString('base64') }]);
  await fresh.page.waitForFunction(() => [...document.querySelectorAll('.eb-notice')].some((n) => /marks_bad\.jsonl:2: not JSON/.test(n.textContent)
    && /marks_bad\.jsonl:3: "run" is not a content id/.test(n.textContent)));
  await fresh.page.click('#eb-tab-overview');
  await fresh.page.waitForSelector('[data-table="agreement"]');
  await fresh.page.locator('[data-section="human-review"]').scrollIntoViewIfNeeded();
  await shot(fresh.page, 'overview-390');
  await fresh.page.click('#eb-tab-items');
  await fresh.page.click('.eb-grid--log .eb-grid__row[aria-rowindex="3"]');
  await fresh.page.waitForSelector('.eb-drawer [data-review]');
  await fresh.page.locator('.eb-drawer [data-section="review"]').scrollIntoViewIfNeeded();
  await shot(fresh.page, 'drawer-390');
  assertClean(fresh.rec);
  await fresh.context.close();
});

test('a hostile note (script, control characters, 1 MB) is kept and shown as text; `n` focuses it', async () => {
  const { page, rec, context } = await openPage(app.browser);
  await start(page);
  await dropFiles(page, '.eb-app', folderPayload(DIR));
  await waitLog(page, 'marks_log');
  await page.click('#eb-tab-items');
  await page.click('.eb-grid--log .eb-grid__row[aria-rowindex="2"]');
  await page.waitForSelector('.eb-drawer [data-review-note]');
  await page.keyboard.press('n');
  assert.equal(await page.evaluate(() => document.activeElement?.hasAttribute('data-review-note')), true, '`n` focuses the note');
  // Typing in the note does not mark: `1` and `0` are text there.
  await page.keyboard.type('10');
  assert.equal(await page.locator('.eb-drawer [data-mark][aria-pressed="true"]').count(), 0);
  const head = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">\u0001\u0007\u001b[31m';
  const note = head + 'x'.repeat(1 << 20);
  await page.locator('.eb-drawer [data-review-note]').fill(note);
  await page.locator('.eb-drawer [data-review-score]').focus(); // the note's change is sent
  await page.waitForSelector('.eb-drawer [data-table="review-history"]', { timeout: 30000 });
  await page.waitForFunction((n) => document.querySelector('.eb-drawer [data-review-note]')?.value.length === n, note.length, { timeout: 30000 });
  assert.equal(await page.locator('.eb-drawer [data-review-note]').inputValue(), note, 'kept whole');
  const hist = await page.locator('.eb-drawer [data-table="review-history"]').innerText();
  assert.ok(hist.includes('<script>window.__pwned=1</script>'), 'shown as text in the history');
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'never run');
  assert.equal(await page.locator('.eb-drawer script, .eb-drawer img').count(), 0);
  // A score override: refused out of 0–1, kept in it.
  await page.locator('.eb-drawer [data-review-score]').fill('1.5');
  await page.locator('.eb-drawer [data-review-note]').focus();
  await page.waitForFunction(() => [...document.querySelectorAll('.eb-notice')].some((n) => /not a score from 0 to 1/.test(n.textContent)));
  await page.locator('.eb-drawer [data-review-score]').fill('0.25');
  await page.locator('.eb-drawer [data-review-note]').focus();
  await page.waitForFunction(() => /score 0\.25/.test(document.querySelector('.eb-drawer [data-section="review"]')?.textContent || ''));
  // Stored: a reload shows the same note.
  for (let t = 0; t < 100 && (await storedLines(page)) < 2; t++) await page.waitForTimeout(200);
  await waitKept(page);
  await page.goto(`${app.srv.url}#run=marks_log&tab=overview`);
  await page.reload();
  await waitLog(page, 'marks_log');
  await page.click('#eb-tab-items');
  await page.click('.eb-grid--log .eb-grid__row[aria-rowindex="2"]');
  await page.waitForFunction((n) => document.querySelector('.eb-drawer [data-review-note]')?.value.length === n, note.length, { timeout: 30000 });
  assert.equal(await page.locator('.eb-drawer [data-review-note]').inputValue(), note);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  await shot(page, 'hostile-note');
  assertClean(rec);
  await context.close();
});

test('a numeric QA turn is marked from its conversation drawer: the controls, `1`, the Human column and filter, the headline with overrides', async () => {
  const { page, rec, context } = await openPage(app.browser, { viewport: { width: 1400, height: 900 } });
  await page.goto(app.srv.url);
  await waitRun(page, 'gpt-4o');
  await page.click('#eb-tab-items');
  await page.waitForSelector('.eb-grid__row[aria-rowindex="2"]');
  await page.click('.eb-grid__row[aria-rowindex="2"]');
  // The conversation drawer ends with the review section the other drawers have.
  await page.waitForSelector('.eb-drawer [data-section="review"] [data-mark]', { timeout: 30000 });
  assert.match(await page.locator('.eb-drawer [data-section="review"]').innerText(), /Scorer \(numerical_match/);
  await page.keyboard.press('1');
  await page.waitForSelector('.eb-drawer [data-mark][aria-pressed="true"]', { timeout: 30000 });
  await page.waitForFunction(() => /Human\s+✓ correct/.test(document.querySelector('.eb-drawer [data-section="review"]')?.innerText || ''), null, { timeout: 30000 });
  await shot(page, 'qa-drawer');
  await page.keyboard.press('Escape');
  await page.waitForSelector('.eb-drawer', { state: 'detached' });
  // The Human column holds the mark; the filter lists the one marked turn.
  const cell = await page.locator('.eb-grid__row[aria-rowindex="2"]').innerText();
  assert.match(cell, /correct/);
  assert.match(await humanFilter(page, 'marked'), /^1 of 48/);
  // The Overview: the headline with human overrides beside the original.
  await page.click('#eb-tab-overview');
  await page.waitForFunction(() => /with human overrides/i.test(document.querySelector('main')?.innerText || ''), null, { timeout: 30000 });
  assertClean(rec);
  await context.close();
});

test('a code-generation run (scored in its own worker) is marked like the others: keys, the Human column, κ, a reload', async () => {
  // The fixture trace folder, copied under a name of its own.
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'eb-marks-cg-')), 'codegen_marks');
  fs.cpSync(path.join(root, 'tests', 'fixtures', 'codegen', 'ok', 'trace', 'input'), dir, { recursive: true });
  const { page, rec, context } = await openPage(app.browser, { viewport: { width: 1400, height: 900 } });
  await start(page);
  await dropFiles(page, '.eb-app', folderPayload(dir));
  await page.waitForFunction(() => document.querySelector('.eb-runhead__title')?.textContent.trim().startsWith('codegen_marks'), null, { timeout: 60000 });
  await page.click('#eb-tab-items');
  await page.waitForSelector('.eb-grid--codegen .eb-grid__row[aria-rowindex="3"]');
  const n = await page.locator('.eb-grid--codegen .eb-grid__row').count();
  // `j` opens the first message; `0` marks it wrong, `j` `1` the next one correct.
  await page.keyboard.press('j');
  await page.waitForSelector('.eb-drawer [data-review] [data-mark]', { timeout: 30000 });
  await page.keyboard.press('0');
  await page.waitForSelector('.eb-drawer [data-mark="wrong"][aria-pressed="true"]', { timeout: 30000 });
  await page.keyboard.press('j');
  await page.waitForSelector('.eb-grid__row--selected[aria-rowindex="3"]');
  await page.waitForSelector('.eb-drawer [data-review] [data-mark]');
  await page.keyboard.press('1');
  await page.waitForSelector('.eb-drawer [data-mark="correct"][aria-pressed="true"]', { timeout: 30000 });
  await page.locator('.eb-drawer [data-section="review"]').scrollIntoViewIfNeeded();
  await shot(page, 'codegen-drawer');
  await page.keyboard.press('Escape');
  assert.match(await humanFilter(page, 'marked'), new RegExp(`^2 of ${n} messages match`));
  assert.match(await humanFilter(page, 'wrong'), new RegExp(`^1 of ${n} messages match`));
  await humanFilter(page, '');
  const cells = await page.evaluate(() => [...document.querySelectorAll('.eb-grid--codegen .eb-grid__row')]
    .slice(0, 3).map((r) => r.lastElementChild.textContent));
  assert.deepEqual(cells.slice(0, 2), ['✗ wrong', '✓ correct']);
  // Kept by the main worker (the one marks file): header + 2 items.
  for (let t = 0; t < 100 && (await storedLines(page)) !== 3; t++) await page.waitForTimeout(200);
  assert.equal(await storedLines(page), 3);
  // The Overview: the agreement table and the headline with human overrides.
  await page.click('#eb-tab-overview');
  await page.waitForSelector('[data-table="agreement"]', { timeout: 30000 });
  await page.locator('[data-section="human-review"]').scrollIntoViewIfNeeded();
  await shot(page, 'codegen-overview');
  const shown = await page.locator('[data-table="agreement"] tbody tr').first().locator('td').allInnerTexts();
  // The exported sidecar applies in the CLI: same content id, same κ.
  const sidecar = await exportMarks(page);
  const file = path.join(outDir, 'codegen_marks.marks.jsonl');
  fs.writeFileSync(file, sidecar);
  const cli = cliStats(dir, ['--marks', file]);
  const review = cli.human?.review;
  assert.ok(review, 'the CLI applies the page\'s marks (same content id)');
  assert.equal(shown[0], String(review.agreement[0].n));
  assert.equal(shown[1], review.agreement[0].kappa === null ? '—' : review.agreement[0].kappa.toFixed(3));
  // A reload: the run and its marks come back.
  await waitKept(page);
  await page.reload();
  await page.waitForFunction(() => document.querySelector('.eb-runhead__title')?.textContent.trim().startsWith('codegen_marks'), null, { timeout: 60000 });
  assert.match(await humanFilter(page, 'marked'), new RegExp(`^2 of ${n} messages match`));
  assertClean(rec);
  await context.close();
});
