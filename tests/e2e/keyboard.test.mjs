// The keyboard everywhere (issue 29, item 4), against the built dist/ in headless Chromium: the
// "Skip to tabs" link is the page's first focusable element; in the Items of a numeric QA run and
// of an eval log ↑/↓ move the current row and Enter opens its drawer; the drawer keeps Tab and
// Shift+Tab inside it and Esc closes it with the focus back on the row. On the way: the eval log's
// Reason column, promptfoo's per-assertion results in the drawer and a numeric QA plan step's
// query and result. Screenshots at 1400 and 390 px wide.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assertQuiet, withApp, openPage, outsideRequests, folderPayload, dropFiles, root, outDir, waitRun } from './lib.mjs';

const h = withApp();

const assertClean = (rec) => assertQuiet(rec, h.srv.origin);

const shot = (page, name) => page.screenshot({ path: path.join(outDir, `keyboard-${name}.png`) });

/** What has the focus: its tag, class, id, row index and whether it is inside the drawer. */
const focused = (page) => page.evaluate(() => {
  const a = document.activeElement;
  return {
    tag: a?.tagName, cls: a?.className ?? '', id: a?.id ?? '', text: (a?.textContent ?? '').trim().slice(0, 40),
    row: a?.getAttribute('aria-rowindex'), inDrawer: !!a?.closest('.eb-drawer'),
    selectedTab: a?.getAttribute('role') === 'tab' && a.getAttribute('aria-selected') === 'true',
  };
});

/** Tab and Shift+Tab never leave the open drawer: from its last focusable element Tab goes to the
 * first (the close button), and Shift+Tab from there to the last. */
async function assertTrapped(page) {
  const n = await page.evaluate(() => document.querySelectorAll(
    '.eb-drawer a[href], .eb-drawer button:not([disabled]), .eb-drawer input, .eb-drawer select, .eb-drawer textarea, .eb-drawer summary, .eb-drawer [tabindex]:not([tabindex="-1"])',
  ).length);
  assert.ok(n >= 1, 'the drawer has a focusable element');
  for (let i = 0; i < n + 2; i++) {
    await page.keyboard.press('Tab');
    assert.ok((await focused(page)).inDrawer, `Tab ${i + 1} left the drawer`);
  }
  await page.evaluate(() => document.querySelector('.eb-drawer__close').focus());
  await page.keyboard.press('Shift+Tab');
  const last = await focused(page);
  assert.ok(last.inDrawer, 'Shift+Tab from the first element stays inside');
  if (n > 1) assert.ok(!last.cls.includes('eb-drawer__close'), 'Shift+Tab from the first element goes to the last');
  await page.keyboard.press('Tab');
  assert.ok((await focused(page)).cls.includes('eb-drawer__close'), 'Tab from the last element goes to the first');
}

test('the skip link is the first focusable element, shown on focus, and leads to the tabs', async () => {
  const { page, rec, context } = await openPage(h.browser);
  await page.goto(h.srv.url);
  await waitRun(page, 'gpt-4o');
  const hidden = await page.locator('.eb-skip').boundingBox();
  assert.ok(hidden.y + hidden.height <= 0, 'out of sight until focused');
  await page.keyboard.press('Tab');
  const f = await focused(page);
  assert.equal(f.text, 'Skip to tabs');
  const shown = await page.locator('.eb-skip').boundingBox();
  assert.ok(shown.y >= 0, 'visible when focused');
  await shot(page, 'skip-link');
  await page.keyboard.press('Enter');
  const t = await focused(page);
  assert.ok(t.selectedTab, `the current tab has the focus (${JSON.stringify(t)})`);
  // The tab bar's own keys then move between tabs.
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.activeElement?.id === 'eb-tab-complexity');
  assert.ok((await focused(page)).selectedTab);
  assertClean(rec);
  await context.close();
});

test('numeric QA Items: ↑/↓ move the row, Enter opens the conversation with each plan step\'s query and result, Tab is trapped, Esc returns to the row', async () => {
  const { page, rec, context } = await openPage(h.browser);
  await page.goto(h.srv.url);
  await waitRun(page, 'gpt-4o');
  await page.click('#eb-tab-items');
  await page.waitForSelector('.eb-grid__row');
  await page.focus('.eb-grid__row[aria-rowindex="2"]');
  assert.equal((await focused(page)).row, '2');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowDown');
  assert.equal((await focused(page)).row, '4');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.eb-drawer .eb-work__plan');
  assert.ok((await focused(page)).cls.includes('eb-drawer__close'), 'the drawer takes the focus');
  // results.json records each step's query and result: the drawer lists them.
  const plan = await page.locator('.eb-drawer .eb-work__plan >> nth=0').innerText();
  assert.match(plan, /^extract_value table \{"table_id":"main",.*\} → \d+/);
  assert.match(plan, /compute: subtract\(#1, #2\) → \d+/);
  await shot(page, 'qa-drawer-plan');
  await assertTrapped(page);
  await page.keyboard.press('Escape');
  await page.waitForSelector('.eb-drawer', { state: 'detached' });
  assert.equal((await focused(page)).row, '4', 'the focus is back on the row');
  assertClean(rec);
  await context.close();
});

test('eval-log Items: a Reason column, ↑/↓ move the row, Enter opens the sample with its assertions, Tab is trapped, Esc returns to the row', async () => {
  for (const [width, height] of [[1400, 900], [390, 844]]) {
    const { page, rec, context } = await openPage(h.browser, { viewport: { width, height } });
    await page.goto(h.srv.url);
    await waitRun(page, 'gpt-4o');
    // The fixture under a name of its own (a drop names the run after its folder).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-kbd-'));
    const run = path.join(dir, 'promptfoo_assertions');
    fs.cpSync(path.join(root, 'tests', 'fixtures', 'evallog', 'ok', 'promptfoo_assertions', 'input'), run, { recursive: true });
    await dropFiles(page, '.eb-app', folderPayload(run));
    fs.rmSync(dir, { recursive: true, force: true });
    await page.waitForFunction(() => document.querySelector('.eb-runhead__title')?.textContent.trim().startsWith('promptfoo_assertions')
      && document.querySelector('[data-metric="headline_score"]'), null, { timeout: 60000 });
    await page.click('#eb-tab-items');
    await page.waitForFunction(() => document.querySelectorAll('.eb-grid--log .eb-grid__row').length === 3);
    const heads = await page.$$eval('.eb-grid--log .eb-grid__hcell', (hs) => hs.map((x) => x.textContent));
    const at = heads.findIndex((x) => x.trim() === 'Reason');
    assert.ok(at > 0, `a Reason column (${heads})`);
    const reasons = await page.$$eval(`.eb-grid--log .eb-grid__row .eb-grid__cell:nth-child(${at + 1})`, (cs) => cs.map((c) => c.textContent));
    assert.deepEqual(reasons, [
      'All assertions passed',
      'Expected output to contain "Paris"',
      '=The answer apologises instead of answering <script>alert(1)</script>',
    ], 'the reason as text, never markup');
    assert.equal(await page.locator('.eb-grid--log script').count(), 0);
    await page.locator('.eb-grid--log').scrollIntoViewIfNeeded();
    await shot(page, `log-items-${width}`);

    await page.focus('.eb-grid--log .eb-grid__row[aria-rowindex="2"]');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown'); // past the last row: stays there
    assert.equal((await focused(page)).row, '4');
    await page.keyboard.press('ArrowUp');
    assert.equal((await focused(page)).row, '3');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.eb-drawer [data-table="sample-checks"]');
    assert.ok((await focused(page)).cls.includes('eb-drawer__close'));
    const checks = await page.$$eval('.eb-drawer [data-table="sample-checks"] tbody tr',
      (rs) => rs.map((r) => [...r.cells].map((c) => c.textContent)));
    assert.deepEqual(checks.map((r) => r.slice(0, 3)), [
      ['assert-set', '—', 'fail'],
      ['↳ icontains', 'paris', 'fail'],
      ['↳ regex', '\\d[\\d,]*', 'pass'],
      ['latency', 'threshold 3000', 'pass'],
      ['javascript', '{"fn":"output.length < 80"}', '—'],
    ]);
    assert.equal(await page.locator('.eb-drawer [data-table="sample-checks"] tr.eb-row--marked').count(), 2, 'failed ones marked');
    await page.locator('.eb-drawer [data-table="sample-checks"]').scrollIntoViewIfNeeded();
    await shot(page, `log-drawer-checks-${width}`);
    await assertTrapped(page);
    await page.keyboard.press('Escape');
    await page.waitForSelector('.eb-drawer', { state: 'detached' });
    assert.equal((await focused(page)).row, '3', 'the focus is back on the row');
    assertClean(rec);
    await context.close();
  }
});

test('↑/↓, Home/End and Page Up/Down through a long eval log: the focused row is always in view, clear of the sticky head', async () => {
  const { page, rec, context } = await openPage(h.browser, { viewport: { width: 1400, height: 700 } });
  await page.goto(h.srv.url);
  await waitRun(page, 'gpt-4o');
  const rows = Array.from({ length: 60 }, (_, i) => JSON.stringify({
    testIdx: i, promptIdx: 0, success: i % 3 !== 0, score: i % 3 ? 1 : 0,
    prompt: { raw: `question ${i}`, label: 'p' }, provider: { id: 'toy', label: '' }, vars: { i },
    response: { output: `answer ${i}` },
    gradingResult: { pass: i % 3 !== 0, score: i % 3 ? 1 : 0, reason: `reason ${i}` },
  })).join('\n');
  await dropFiles(page, '.eb-app', [{ path: 'long_log/results.jsonl', b64: Buffer.from(rows).toString('base64') }]);
  await page.waitForFunction(() => document.querySelector('.eb-runhead__title')?.textContent.trim().startsWith('long_log')
    && document.querySelector('[data-metric="headline_score"]'), null, { timeout: 60000 });
  await page.click('#eb-tab-items');
  await page.waitForSelector('.eb-grid--log .eb-grid__row[aria-rowindex="2"]');
  await page.focus('.eb-grid--log .eb-grid__row[aria-rowindex="2"]');
  const inView = () => page.evaluate(() => {
    const a = document.activeElement.getBoundingClientRect();
    const g = document.querySelector('.eb-grid--log').getBoundingClientRect();
    const head = document.querySelector('.eb-grid--log .eb-grid__head').getBoundingClientRect();
    return a.top >= head.bottom - 1 && a.bottom <= g.bottom + 1;
  });
  for (let i = 0; i < 45; i++) {
    await page.keyboard.press('ArrowDown');
    assert.ok(await inView(), `after ${i + 1} × ↓ the row is in view`);
  }
  assert.equal((await focused(page)).row, '47');
  for (let i = 0; i < 45; i++) {
    await page.keyboard.press('ArrowUp');
    if (!(await inView())) {
      const dbg = await page.evaluate(() => {
        const a = document.activeElement; const g = document.querySelector('.eb-grid--log');
        return { tag: a.tagName, row: a.getAttribute('aria-rowindex'), top: a.getBoundingClientRect().top, gtop: g.getBoundingClientRect().top, st: g.scrollTop, ch: g.clientHeight, style: a.getAttribute('style') };
      });
      assert.fail(`after ${i + 1} × ↑ the row is not in view: ${JSON.stringify(dbg)}`);
    }
  }
  assert.equal((await focused(page)).row, '2');
  // End, Home, Page Down and Page Up: the row they lead to has the focus and is in view (the
  // last row is far below the drawn window: it is focused once the worker sent it).
  const rowIndex = async () => Number((await focused(page)).row);
  await page.keyboard.press('End');
  await page.waitForFunction(() => document.activeElement?.getAttribute('aria-rowindex') === '61', null, { timeout: 10000 });
  assert.ok(await inView(), 'End: the last row is in view');
  await page.keyboard.press('Home');
  await page.waitForFunction(() => document.activeElement?.getAttribute('aria-rowindex') === '2', null, { timeout: 10000 });
  assert.ok(await inView(), 'Home: the first row is in view');
  await page.keyboard.press('PageDown');
  await page.waitForFunction(() => Number(document.activeElement?.getAttribute('aria-rowindex')) > 3, null, { timeout: 10000 });
  const down = await rowIndex();
  assert.ok(down > 10 && down < 30, `Page Down moves a page of rows (to row ${down})`);
  assert.ok(await inView(), 'Page Down: the row is in view');
  await page.keyboard.press('PageUp');
  await page.waitForFunction(() => document.activeElement?.getAttribute('aria-rowindex') === '2', null, { timeout: 10000 });
  // Enter opens the row with the focus.
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.eb-drawer');
  await page.waitForFunction(() => document.querySelector('.eb-drawer')?.textContent.includes('reason 1'));
  await page.keyboard.press('Escape');
  await page.waitForSelector('.eb-drawer', { state: 'detached' });
  assert.equal((await focused(page)).row, '3');
  assertClean(rec);
  await context.close();
});
