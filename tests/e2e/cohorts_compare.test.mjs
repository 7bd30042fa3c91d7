// Failure cohorts against a baseline (issue 29 item 2) and numeric QA cohorts opening Items, in
// headless Chromium against dist/: the demo's gpt-4o (baseline) vs o3 (numeric QA). Compare lists
// o3's cohorts marked new / grown / shrunk / same / gone against gpt-4o's, with the numbers
// `evalboard cohorts o3 --baseline gpt-4o --json` prints; each row opens exactly its members on
// Items (a gone cohort in the baseline); All runs sums each run's up; the Errors tab's cohorts
// open the worker-built Items grid with their query. Screenshots at 1400 px and 390 px.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { withApp, openPage, waitRun, root, outDir, cli, outsideRequests } from './lib.mjs';

const h = withApp();

function assertClean(rec) {
  assert.deepEqual(rec.consoleErrors, [], 'console errors');
  assert.deepEqual(rec.pageErrors, [], 'page errors');
  assert.deepEqual(outsideRequests(rec, h.srv.origin), [], 'requests outside the origin');
}

const shot = (page, name) => page.screenshot({ path: path.join(outDir, `${name}.png`), fullPage: false });
const demo = (name) => path.join(root, 'demo', name);
const want = JSON.parse(cli(['cohorts', demo('o3'), '--baseline', demo('gpt-4o'), '--json']));

/** The Compare cohort table's rows: [items, share, against the baseline, cause, example, button]. */
const rows = (page) => page.locator('[data-section="cohorts-vs"] [data-table="cohorts"] tbody tr')
  .evaluateAll((rs) => rs.map((r) => [...r.children].map((c) => c.textContent.trim())));

test('Compare: the candidate\'s cohorts against the baseline, as the CLI gives them; each opens exactly its items', async () => {
  for (const [width, height] of [[1400, 900], [390, 844]]) {
    const { page, rec, context } = await openPage(h.browser, { viewport: { width, height } });
    await page.goto(`${h.srv.url}#run=o3&tab=compare&base=gpt-4o&cand=o3`);
    await page.waitForFunction(() => document.querySelector('[data-field="cohorts-vs-lead"]')?.textContent.startsWith('o3:'), null, { timeout: 60000 });
    const got = await rows(page);
    assert.equal(got.length, want.cohorts.length);
    for (const [r, c] of got.map((r, i) => [r, want.cohorts[i]])) {
      assert.equal(r[0], String(c.n), JSON.stringify(got));
      assert.equal(r[2], `${c.vs_baseline.status} (was ${c.vs_baseline.baseline_n})`, c.label);
      assert.equal(r[3], c.label);
    }
    assert.ok(want.cohorts.some((c) => c.vs_baseline.status === 'gone') || want.cohorts.some((c) => c.vs_baseline.status !== 'same'),
      'the fixture has cohorts that changed');
    const lead = await page.locator('[data-field="cohorts-vs-lead"]').innerText();
    assert.match(lead, new RegExp(`o3: ${want.n_failed} of ${want.n_items} items fail`));
    const section = page.locator('[data-section="cohorts-vs"]');
    await section.scrollIntoViewIfNeeded();
    await shot(page, `cohorts-compare-${width}`);
    const sideways = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(sideways <= 1, `the page scrolls sideways by ${sideways} px`);
    if (width === 1400) {
      // The first cohort of the candidate opens o3's Items with exactly its members.
      const first = want.cohorts.find((c) => c.n > 0);
      await page.locator('[data-section="cohorts-vs"] [data-table="cohorts"] tbody tr').first().locator('button').click();
      await page.waitForFunction(() => location.hash.includes('tab=items') && location.hash.includes('f.query='));
      await page.waitForFunction((n) => document.querySelector('.eb-items__count')?.textContent.startsWith(`${n} of`), first.items.length);
      assert.match(decodeURIComponent(page.url()), /run=o3/);
      const keys = await page.locator('.eb-grid__row').evaluateAll((rs) => rs.map((r) => r.dataset.item));
      assert.deepEqual([...keys].sort(), first.items.map((k) => k.map((p) => encodeURIComponent(String(p))).join("/")).sort(), "exactly its members");
      await shot(page, 'cohorts-compare-items');
      // A gone cohort opens the baseline's items.
      const gone = want.cohorts.findIndex((c) => c.vs_baseline.status === 'gone');
      if (gone >= 0) {
        await page.goBack();
        await page.waitForSelector('[data-section="cohorts-vs"] [data-table="cohorts"]');
        const btn = page.locator('[data-section="cohorts-vs"] [data-table="cohorts"] tbody tr').nth(gone).locator('button');
        assert.match(await btn.innerText(), /in the baseline/);
        await btn.click();
        await page.waitForFunction((n) => document.querySelector('.eb-items__count')?.textContent.startsWith(`${n} of`), want.cohorts[gone].vs_baseline.baseline_n);
        assert.match(decodeURIComponent(page.url()), /run=gpt-4o/);
      }
    }
    assertClean(rec);
    await context.close();
  }
});

test('Compare judged by a picked judge: its cohorts are the CLI\'s under --scorer, and each opens exactly its items', async () => {
  const judged = JSON.parse(cli(['cohorts', demo('o3'), '--baseline', demo('gpt-4o'), '--scorer', 'exact_match', '--json']));
  assert.notEqual(judged.n_failed, want.n_failed, 'the fixture\'s judges differ');
  const { page, rec, context } = await openPage(h.browser, { viewport: { width: 1400, height: 900 } });
  await page.goto(`${h.srv.url}#run=o3&tab=compare&base=gpt-4o&cand=o3&f.judge=exact_match@doc-v1`);
  await page.waitForFunction(() => document.querySelector('select[name="judge"]')?.value === 'exact_match@doc-v1', null, { timeout: 60000 });
  await page.waitForFunction((j) => (document.querySelector('[data-field="cohorts-vs-lead"]')?.textContent || '').includes(`(judged by ${j})`), judged.judge, { timeout: 60000 });
  const lead = await page.locator('[data-field="cohorts-vs-lead"]').innerText();
  assert.match(lead, new RegExp(`o3: ${judged.n_failed} of ${judged.n_items} items fail`));
  const got = await rows(page);
  assert.equal(got.length, judged.cohorts.length);
  for (const [r, c] of got.map((r, i) => [r, judged.cohorts[i]])) {
    assert.equal(r[0], String(c.n));
    assert.equal(r[2], `${c.vs_baseline.status} (was ${c.vs_baseline.baseline_n})`, c.label);
    assert.equal(r[3], c.label);
  }
  await page.locator('[data-section="cohorts-vs"]').scrollIntoViewIfNeeded();
  await shot(page, 'cohorts-compare-judged');
  const first = judged.cohorts.find((c) => c.n > 0);
  await page.locator('[data-section="cohorts-vs"] [data-table="cohorts"] tbody tr').first().locator('button').click();
  await page.waitForFunction(() => location.hash.includes('tab=items') && decodeURIComponent(location.hash).includes('cohort.exact_match@doc-v1'));
  await page.waitForFunction((n) => document.querySelector('.eb-items__count')?.textContent.startsWith(`${n} of`), first.items.length);
  const keys = await page.locator('.eb-grid__row').evaluateAll((rs) => rs.map((r) => r.dataset.item));
  assert.deepEqual([...keys].sort(), first.items.map((k) => k.map((p) => encodeURIComponent(String(p))).join('/')).sort(), 'exactly its members');
  assertClean(rec);
  await context.close();
});

test('All runs: each run\'s cohorts against the pinned baseline, summed up; the run opens its Compare', async () => {
  const { page, rec, context } = await openPage(h.browser);
  await page.goto(h.srv.url);
  await waitRun(page, 'gpt-4o');
  await page.click('#eb-tab-runs');
  await page.selectOption('select[name="pin"]', 'gpt-4o');
  await page.waitForSelector('[data-section="cohorts-many"] [data-table="cohorts-many"]', { timeout: 60000 });
  const row = await page.locator('[data-table="cohorts-many"] tbody tr').evaluateAll((rs) => rs
    .map((r) => [...r.children].map((c) => c.textContent.trim())).find((r) => r[0] === 'o3'));
  assert.ok(row, 'o3 is listed');
  const count = (s) => String(want.cohorts.filter((c) => c.vs_baseline.status === s).length);
  assert.deepEqual(row.slice(1, 7), ['gpt-4o', `${want.n_failed} of ${want.n_items}`, count('new'), count('grown'), count('shrunk'), count('gone')]);
  const news = want.cohorts.filter((c) => c.vs_baseline.status === 'new');
  if (news.length) assert.equal(row[7], `${news[0].n} items: ${news[0].label}`);
  await page.locator('[data-section="cohorts-many"]').scrollIntoViewIfNeeded();
  await shot(page, 'cohorts-many');
  await page.locator('[data-table="cohorts-many"] button >> text=o3').first().click();
  await page.waitForSelector('[data-section="cohorts-vs"] [data-table="cohorts"]', { timeout: 60000 });
  assert.match(decodeURIComponent(page.url()), /tab=compare&base=gpt-4o&cand=o3/);
  assertClean(rec);
  await context.close();
});

test('numeric QA: Items on the worker\'s grid take a query, and the Errors tab\'s cohorts open exactly their turns', async () => {
  for (const [width, height] of [[1400, 900], [390, 844]]) {
    const { page, rec, context } = await openPage(h.browser, { viewport: { width, height } });
    await page.goto(h.srv.url);
    await waitRun(page, 'gpt-4o');
    const own = JSON.parse(cli(['cohorts', demo('gpt-4o'), '--json']));
    await page.click('#eb-tab-errors');
    await page.waitForSelector('[data-section="cohorts"] [data-table="cohorts"] button');
    await page.locator('[data-section="cohorts"] [data-table="cohorts"] tbody tr').first().locator('button').click();
    await page.waitForFunction(() => location.hash.includes('tab=items') && location.hash.includes('f.query='));
    await page.waitForFunction((n) => document.querySelector('.eb-items__count')?.textContent.startsWith(`${n} of`), own.cohorts[0].n);
    const keys = await page.locator('.eb-grid__row').evaluateAll((rs) => rs.map((r) => r.dataset.item));
    assert.deepEqual([...keys].sort(), own.cohorts[0].items.map((k) => k.map((p) => encodeURIComponent(String(p))).join("/")).sort(), "exactly its members");
    await shot(page, `qa-items-cohort-${width}`);
    // A typed query: the wrong turns of turn 0, as the CLI's query lists them.
    const q = 'verdict != correct and turn_idx == 0';
    const wantQ = JSON.parse(cli(['query', demo('gpt-4o'), q, '--json']));
    await page.fill('input[name="query"]', q);
    await page.press('input[name="query"]', 'Enter');
    await page.waitForFunction((n) => document.querySelector('.eb-items__count')?.textContent.startsWith(`${n} of`), wantQ.n_matched);
    // Old link parameters still open the same filtered view.
    await page.goto(`${h.srv.url}#run=gpt-4o&tab=items&verdict=wrong&sort=tokens&desc=1`);
    await page.waitForSelector('.eb-grid__row');
    await page.waitForFunction(() => document.querySelector('select[name="verdict"]')?.value === 'wrong'
      && document.querySelector('select[name="sort"]')?.value === 'tokens');
    const verdicts = await page.locator('.eb-grid__row .eb-verdict-cell').allInnerTexts();
    assert.ok(verdicts.every((v) => v === 'wrong'));
    // Enter on a row opens the conversation drawer.
    await page.focus('.eb-grid__row[aria-rowindex="2"]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.eb-drawer .eb-turn');
    await shot(page, `qa-items-drawer-${width}`);
    assertClean(rec);
    await context.close();
  }
});
