// Issue 29 in the browser: the query box above Items and failure cohorts (docs/query.md,
// docs/dashboard.md § Queries and cohorts), against the built dist/ in headless Chromium.
// The Must-hold: the 50 queries of tests/fixtures/query/queries.json, each typed into the query
// box over the fixture log, list exactly their expected items (count and keys) — the same items
// `evalboard query` gives (crates/cli/tests/it/query.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { assertQuiet, withApp, openPage, outsideRequests, folderPayload, dropFiles, root, outDir, cli, waitRun } from './lib.mjs';

const FIX = path.join(root, 'tests', 'fixtures', 'query');
const RUN = path.join(FIX, 'run');
const QUERIES = JSON.parse(fs.readFileSync(path.join(FIX, 'queries.json'), 'utf8'));
const DROP = '.eb-app';
const app = withApp();

const assertClean = (rec) => assertQuiet(rec, app.srv.origin);

async function shot(page, name) {
  await page.screenshot({ path: path.join(outDir, `query-${name}.png`) });
}

/** An item key as the rows' data-item holds it (`s07/1`). */
const keyText = (k) => k.map((p) => encodeURIComponent(String(p))).join('/');

/** The fixture log dropped, its Items tab open (all 40 rows rendered: a tall viewport). */
async function openFixture(page) {
  await page.addInitScript(() => localStorage.setItem('evalboard.demo-dismissed', '1'));
  await page.goto(app.srv.url);
  await page.waitForSelector('.eb-app');
  await dropFiles(page, DROP, folderPayload(RUN));
  await page.waitForFunction(() => document.querySelector('.eb-runhead__title')?.textContent.trim().startsWith('run')
    && document.querySelector('[data-metric="headline_score"]'), null, { timeout: 60000 });
  await page.click('#eb-tab-items');
  await page.waitForSelector('.eb-grid--log .eb-grid__row');
  await page.waitForSelector('input[name="query"]');
}

/** Types `q` into the query box and presses Enter. */
async function runQuery(page, q) {
  await page.fill('input[name="query"]', q);
  await page.press('input[name="query"]', 'Enter');
}

/** The keys of the listed rows and the count line. */
async function listed(page) {
  return page.evaluate(() => ({
    keys: [...document.querySelectorAll('.eb-grid--log .eb-grid__row')].map((r) => r.dataset.item),
    count: document.querySelector('.eb-items__count')?.textContent || '',
  }));
}

/** Runs `q` after a query that does not parse (so the answer to `q` is told from the last). */
async function answer(page, q, timeout = 30000) {
  await runQuery(page, '((');
  await page.waitForSelector('[data-note="query-error"]');
  await runQuery(page, q);
  await page.waitForFunction(() => !document.querySelector('[data-note="query-error"]')
    && !document.querySelector('[data-note="query-progress"]')
    && /match|samples?$/.test(document.querySelector('.eb-items__count')?.textContent || ''), null, { timeout });
  return listed(page);
}

test('Must-hold: the 50 fixture queries list exactly their expected items', async () => {
  const { page, rec, context } = await openPage(app.browser, { viewport: { width: 1400, height: 4200 } });
  await openFixture(page);
  assert.equal(QUERIES.length, 50);
  for (const { query, expected } of QUERIES) {
    const got = await answer(page, query);
    const want = expected.map(keyText);
    assert.deepEqual(got.keys, want, `${query}: keys`);
    const n = want.length;
    assert.ok(n === 40 ? /^40 samples$/.test(got.count) : got.count.startsWith(`${n} of 40 samples match`), `${query}: count line "${got.count}"`);
  }
  assertClean(rec);
  await context.close();
});

test('a text query reads the conversations once, with progress; a bad query says why; the link reopens the query; the drawer marks the match', async () => {
  const { page, rec, context } = await openPage(app.browser, { viewport: { width: 1400, height: 2200 } });
  await openFixture(page);
  // Progress notes are posted while the conversations are read: record every one seen.
  await page.evaluate(() => {
    window.__progress = [];
    new MutationObserver(() => {
      const n = document.querySelector('[data-note="query-progress"]');
      if (n && !window.__progress.includes(n.textContent)) window.__progress.push(n.textContent);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  const q1 = QUERIES.find((x) => x.query === 'text ~ /time(d)? ?out/i');
  await runQuery(page, q1.query);
  await page.waitForFunction((n) => document.querySelector('.eb-items__count')?.textContent.startsWith(`${n} of 40`), q1.expected.length, { timeout: 30000 });
  const seen = await page.evaluate(() => window.__progress);
  assert.ok(seen.length >= 1 && seen.some((t) => /of 40 samples/.test(t)), `progress seen: ${JSON.stringify(seen)}`);
  assert.deepEqual((await listed(page)).keys, q1.expected.map(keyText));
  await shot(page, 'text-query');
  // A second text query searches the index: no progress again.
  await page.evaluate(() => { window.__progress = []; });
  const q2 = QUERIES.find((x) => x.query === 'text ~ "echo 1"');
  await runQuery(page, q2.query);
  await page.waitForFunction((n) => document.querySelector('.eb-items__count')?.textContent.startsWith(`${n} of 40`), q2.expected.length);
  assert.deepEqual(await page.evaluate(() => window.__progress), []);
  assert.deepEqual((await listed(page)).keys, q2.expected.map(keyText));
  // The drawer of a row shows where the query matched, the match in a mark, as text.
  await page.locator('.eb-grid--log .eb-grid__row').first().click();
  await page.waitForSelector('.eb-drawer [data-section="hits"] .eb-hit mark');
  assert.equal(await page.locator('.eb-drawer [data-section="hits"] mark').first().innerText(), 'echo 1');
  await shot(page, 'drawer-hits');
  await page.keyboard.press('Escape');
  // A bad query: its message and place, no empty table pretending to be an answer.
  await runQuery(page, 'verdict == wrong and (tool ==');
  await page.waitForSelector('[data-note="query-error"]');
  assert.match(await page.locator('[data-note="query-error"]').innerText(), /does not parse: .*\(at character \d+\)/);
  assert.match(await page.locator('[data-field="query-caret"]').innerText(), /\^$/);
  await shot(page, 'bad-query');
  // The query lives in the link: a reload reopens the same filtered items.
  const q3 = QUERIES.find((x) => x.query === 'tool == "bash" and score.match == 0');
  await runQuery(page, q3.query);
  await page.waitForFunction(() => location.hash.includes('f.query='));
  const url = page.url();
  assert.match(decodeURIComponent(url), /f\.query=tool == "bash" and score\.match == 0/);
  await page.reload();
  // The run is kept in the browser: it loads again by itself, the link's query applied.
  await page.waitForFunction((n) => document.querySelector('.eb-items__count')?.textContent.startsWith(`${n} of 40`), q3.expected.length, { timeout: 60000 });
  assert.deepEqual((await listed(page)).keys, q3.expected.map(keyText));
  assert.equal(await page.inputValue('input[name="query"]'), q3.query);
  // Autocomplete: field names and values offered.
  const options = await page.evaluate(() => [...document.querySelectorAll('#eb-query-list option')].map((o) => o.value));
  assert.ok(options.includes('metadata.subject') && options.includes('metadata.subject == "law"') && options.includes('text'), options.slice(0, 20).join(', '));
  assertClean(rec);
  await context.close();
});

test('failure cohorts on the overview: sorted by size with share and example; a cohort opens Items with exactly its members', async () => {
  const want = JSON.parse(cli(['cohorts', path.join(RUN, 'query_fixture.json'), '--json']));
  const { page, rec, context } = await openPage(app.browser, { viewport: { width: 1400, height: 2600 } });
  await page.addInitScript(() => localStorage.setItem('evalboard.demo-dismissed', '1'));
  await page.goto(app.srv.url);
  await page.waitForSelector('.eb-app');
  await dropFiles(page, DROP, folderPayload(RUN));
  await page.waitForSelector('[data-section="cohorts"] [data-table="cohorts"]', { timeout: 60000 });
  const rows = await page.evaluate(() => [...document.querySelectorAll('[data-table="cohorts"] tbody tr')]
    .map((r) => [...r.children].map((c) => c.textContent.trim())));
  assert.equal(rows.length, want.cohorts.length);
  want.cohorts.forEach((c, i) => {
    assert.equal(rows[i][0], String(c.n));
    assert.equal(rows[i][2], c.label);
  });
  await page.locator('[data-section="cohorts"]').scrollIntoViewIfNeeded();
  await shot(page, 'cohorts');
  for (const [i, c] of want.cohorts.entries()) {
    await page.locator('[data-table="cohorts"] tbody tr').nth(i).locator('[data-open]').click();
    await page.waitForFunction((n) => document.querySelector('.eb-items__count')?.textContent.startsWith(`${n} of 40`)
      && document.querySelectorAll('.eb-grid--log .eb-grid__row').length === n, c.n);
    assert.deepEqual((await listed(page)).keys, c.items.map(keyText), c.label);
    assert.equal(await page.inputValue('input[name="query"]'), c.query);
    await page.click('#eb-tab-overview');
    await page.waitForSelector('[data-table="cohorts"]');
  }
  assertClean(rec);
  await context.close();
});

test('390 px: the query box, its error and the drawer\'s marks fit', async () => {
  const { page, rec, context } = await openPage(app.browser, { viewport: { width: 390, height: 844 } });
  await openFixture(page);
  await runQuery(page, 'error ~ /timed? ?out/i');
  await page.waitForFunction(() => document.querySelector('.eb-items__count')?.textContent.startsWith('4 of 40'));
  await shot(page, 'narrow-items');
  await page.locator('.eb-grid--log .eb-grid__row').first().click();
  await page.waitForSelector('.eb-drawer [data-section="hits"] mark');
  await shot(page, 'narrow-drawer');
  await page.keyboard.press('Escape');
  await runQuery(page, 'latency_s >');
  await page.waitForSelector('[data-note="query-error"]');
  await shot(page, 'narrow-bad');
  const over = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(over <= 0, `page scrolls sideways by ${over}px`);
  assertClean(rec);
  await context.close();
});

test('numeric QA: a turn opened from a query shows where it matched, right after the turn', async () => {
  const { page, rec, context } = await openPage(app.browser, { viewport: { width: 1400, height: 900 } });
  await page.goto(app.srv.url);
  await waitRun(page, 'gpt-4o');
  await page.click('#eb-tab-items');
  await page.waitForSelector('input[name="query"]');
  await runQuery(page, 'question ~ /the change/i');
  await page.waitForFunction(() => / of 48 turns match/.test(document.querySelector('.eb-items__count')?.textContent || ''), null, { timeout: 30000 });
  // Each row's hit count, second, in one more grid column; the row stays one line.
  await page.waitForSelector('.eb-grid--hits');
  assert.equal(await page.locator('.eb-grid__head .eb-grid__cell').nth(1).textContent(), 'Hits');
  assert.equal(await page.locator('.eb-grid__row[aria-rowindex="2"] .eb-grid__cell').nth(1).innerText(), '1');
  // Every cell inside the row's box (an extra cell would wrap onto a second line below it).
  const out = await page.locator('.eb-grid__row[aria-rowindex="2"]').evaluate((r) => {
    const b = r.getBoundingClientRect();
    return [...r.children].map((c) => c.getBoundingClientRect())
      .filter((c) => c.top < b.top - 1 || c.bottom > b.bottom + 1).length;
  });
  assert.equal(out, 0, 'cells outside the row');
  await shot(page, 'qa-items-hits');
  await page.locator('.eb-grid__row[aria-rowindex="2"]').click();
  // The section follows the opened turn (before its review section), the match in a mark.
  await page.waitForSelector('.eb-drawer .eb-turns__review [data-section="hits"] .eb-hit mark', { timeout: 30000 });
  assert.match(await page.locator('.eb-drawer [data-section="hits"] mark').first().innerText(), /^the change$/i);
  assert.match(await page.locator('.eb-drawer [data-section="hits"]').innerText(), /Where “question ~ \/the change\/i” matched: 1 place/);
  const order = await page.evaluate(() => {
    const li = document.querySelector('.eb-drawer .eb-turns__review');
    const prev = li.previousElementSibling;
    return [prev?.classList.contains('eb-turn--selected') || prev?.getAttribute('aria-current') === 'true' || prev?.id?.startsWith('eb-turn-'),
      [...li.querySelectorAll('[data-section]')].map((s) => s.dataset.section)];
  });
  assert.equal(order[0], true, 'right after the opened turn');
  assert.deepEqual(order[1].filter((s) => s === 'hits' || s === 'review'), ['hits', 'review']);
  await page.locator('.eb-drawer [data-section="hits"]').scrollIntoViewIfNeeded();
  await shot(page, 'qa-drawer-hits');
  // Without a query, no such section.
  await page.keyboard.press('Escape');
  await runQuery(page, '');
  await page.waitForFunction(() => /^48 turns/.test(document.querySelector('.eb-items__count')?.textContent || ''), null, { timeout: 30000 });
  await page.locator('.eb-grid__row[aria-rowindex="2"]').click();
  await page.waitForSelector('.eb-drawer [data-section="review"]', { timeout: 30000 });
  assert.equal(await page.locator('.eb-drawer [data-section="hits"]').count(), 0);
  assertClean(rec);
  await context.close();
});
