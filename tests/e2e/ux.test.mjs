// What a first-time user needs explained (issue 17), in headless Chromium against dist/: every
// wrong answer says why, the drawer shows the model's work, non-default settings are named on
// the run's screens with a reset (and restored settings are announced), labels follow the
// tolerance, the financial-agent-2 profile shows its own headline, Compare gives a reading,
// a static shell stands while the app loads, and a 390 px phone needs no sideways scroll.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { withApp, openPage, waitRun, root, outDir, cli, cliStats, pct, outsideRequests } from './lib.mjs';

const h = withApp();

async function open(hash = '', opts = {}) {
  const p = await openPage(h.browser, opts);
  await p.page.goto(h.srv.url + hash);
  return p;
}

function assertClean(rec) {
  assert.deepEqual(rec.consoleErrors, [], 'console errors');
  assert.deepEqual(rec.pageErrors, [], 'page errors');
  assert.deepEqual(outsideRequests(rec, h.srv.origin), [], 'requests outside the origin');
}

const shot = (page, name) => page.screenshot({ path: path.join(outDir, `${name}.png`) });
const demo = (name) => path.join(root, 'demo', name);

test('every wrong turn says why, in the items table and the drawer; the drawer shows the model\'s work', async () => {
  const { page, rec, context } = await open();
  await waitRun(page, 'gpt-4o');
  await page.click('#eb-tab-items');
  await page.waitForSelector('.eb-grid__row');
  await page.selectOption('.eb-filters select >> nth=0', 'wrong');
  await page.waitForFunction(() => location.hash.includes('f.verdict=wrong'));
  await page.waitForTimeout(300);
  const whys = await page.locator('.eb-grid__row .eb-why').allInnerTexts();
  assert.ok(whys.length >= 10, `${whys.length} wrong rows`);
  assert.deepEqual(whys.filter((w) => !w.trim()), [], 'no wrong row without a reason');
  // The demo's 15.686 vs 15.7%: percent vs fraction, named.
  assert.ok(whys.some((w) => w.startsWith('scale: 15.6863 is 100×')), whys.join('\n'));
  await shot(page, 'ux-items-why');
  // At 1400 px the table fits (no sideways scroll), no number or verdict is cut, a long decimal
  // is rounded with the whole answer on hover, and the scorer chips have a visible legend.
  const fit = await page.evaluate(() => {
    const g = document.querySelector('.eb-grid');
    const cut = [];
    for (const row of document.querySelectorAll('.eb-grid__row')) {
      for (const i of [2, 4, 5, 6, 10, 11, 12]) {
        const c = row.children[i];
        if (c && c.scrollWidth > c.clientWidth + 1) cut.push(`${i}: ${c.textContent}`);
      }
    }
    return { sideways: g.scrollWidth - g.clientWidth, cut };
  });
  assert.ok(fit.sideways <= 1, `the grid scrolls sideways by ${fit.sideways} px`);
  assert.deepEqual(fit.cut, [], 'numbers and verdicts shown whole');
  // (The drawer has the whole answer: the worker's grid cells carry their text as the title.)
  const cells = await page.locator('.eb-grid__row .eb-grid__cell').allInnerTexts();
  assert.ok(cells.includes('15.6863'), 'the long decimal is rounded');
  assert.ok(!cells.includes('15.686274509803921'));
  assert.match(await page.locator('.eb-screen-items .eb-footnote').innerText(), /E exact · N numerical/);
  // A correct row has no reason.
  await page.selectOption('.eb-filters select >> nth=0', 'correct');
  await page.waitForFunction(() => location.hash.includes('f.verdict=correct'));
  await page.waitForTimeout(300);
  const correct = await page.locator('.eb-grid__row .eb-why').allInnerTexts();
  assert.ok(correct.length > 0);
  assert.deepEqual(correct.filter((w) => w.trim()), []);

  // The simulated trace run records tool calls, LLM calls and validator verdicts.
  await page.click('.eb-run >> text=simulated_eval_run');
  await page.waitForFunction(() => document.querySelector('.eb-runhead__title')?.textContent.includes('simulated_eval_run'));
  await page.click('#eb-tab-items');
  await page.waitForSelector('.eb-grid__row');
  await page.click('.eb-grid__row >> nth=0');
  await page.waitForSelector('.eb-drawer .eb-work');
  const work = await page.locator('.eb-drawer .eb-turn >> nth=0').innerText();
  for (const want of ['The model\'s work', 'Tool calls (', 'LLM calls (', 'Validator verdicts (', 'workflow_table_tool', 'plan_generation']) {
    assert.ok(work.includes(want), `drawer lacks ${want}`);
  }
  await page.waitForTimeout(200);
  await shot(page, 'ux-drawer-work');
  assertClean(rec);
  await context.close();
});

test('non-default settings are named on the run with a reset; labels follow the tolerance; a reload says they were restored', async () => {
  const { page, rec, context } = await open();
  await waitRun(page, 'gpt-4o');
  assert.equal(await page.locator('[data-testid="custom-settings"]').count(), 0, 'defaults: no badge');
  assert.equal((await page.locator('[data-metric="soft_match_accuracy"] .eb-card__label').textContent()).trim(), 'Soft match (±1%)');
  await page.click('#eb-tab-settings');
  await page.fill('input[name="rel"]', '0.02');
  await page.click('#eb-tab-overview');
  await page.waitForSelector('[data-testid="custom-settings"]');
  assert.match(await page.locator('[data-testid="custom-settings"]').innerText(), /relative tolerance 2% \(default 1%\)/);
  await page.waitForFunction(() => document.querySelector('[data-metric="soft_match_accuracy"] .eb-card__label')?.textContent === 'Soft match (±2%)');
  const want = pct(cliStats(demo('gpt-4o'), ['--rel-tol', '0.02']).numerical_accuracy);
  await page.waitForFunction((w) => document.querySelector('[data-metric="numerical_accuracy"] .eb-card__value')?.textContent === w, want);
  // The definition stands under the number, in the same words.
  assert.match(await page.locator('[data-metric="numerical_accuracy"] .eb-card__def').innerText(), /within ±2%/);
  // The badge is on every screen of the run.
  await page.click('#eb-tab-items');
  await page.waitForSelector('[data-testid="custom-settings"]');
  await page.click('#eb-tab-overview');
  await shot(page, 'ux-custom-settings');
  // A new visit restores them and says so.
  await page.reload();
  await waitRun(page, 'gpt-4o');
  await page.waitForFunction(() => document.body.innerText.includes('Settings restored from your last visit'));
  await page.waitForFunction((w) => document.querySelector('[data-metric="numerical_accuracy"] .eb-card__value')?.textContent === w, want);
  // One click resets them: badge gone, labels and numbers back at the defaults.
  await page.click('[data-testid="custom-settings"] >> text=Reset to defaults');
  await page.waitForSelector('[data-testid="custom-settings"]', { state: 'detached' });
  const def = pct(cliStats(demo('gpt-4o')).numerical_accuracy);
  await page.waitForFunction((w) => document.querySelector('[data-metric="numerical_accuracy"] .eb-card__value')?.textContent === w, def);
  assert.equal((await page.locator('[data-metric="soft_match_accuracy"] .eb-card__label').textContent()).trim(), 'Soft match (±1%)');
  assertClean(rec);
  await context.close();
});

test('the financial-agent-2 profile shows its own headline, the header and the footer agree', async () => {
  const { page, rec, context } = await open();
  await waitRun(page, 'simulated_eval_run', 60000).catch(() => {});
  await page.click('.eb-run >> text=simulated_eval_run');
  await page.waitForFunction(() => document.querySelector('.eb-runhead__title')?.textContent.includes('simulated_eval_run')
    && document.querySelector('[data-metric="numerical_accuracy"]'));
  await page.click('#eb-tab-settings');
  await page.check('input[name="eb-profile"][value="financial-agent-2"]');
  await page.click('#eb-tab-overview');
  const fa2 = cliStats(demo('simulated_eval_run'), ['--profile', 'financial-agent-2']);
  await page.waitForSelector('[data-metric="financial-agent-2:numerical_accuracy"]');
  await page.waitForFunction((w) => document.querySelector('[data-metric="financial-agent-2:numerical_accuracy"] .eb-card__value')?.textContent === w, pct(fa2.numerical_accuracy));
  assert.equal((await page.locator('[data-metric="financial-agent-2:financial_accuracy"] .eb-card__value').innerText()).trim(), pct(fa2.financial_accuracy));
  // The run list's number is the profile's too.
  await page.waitForFunction((w) => document.querySelector('.eb-run--current .eb-run__acc')?.textContent.trim() === w, pct(fa2.numerical_accuracy));
  assert.match(await page.locator('.eb-runhead__profile').innerText(), /financial-agent-2/);
  assert.match(await page.locator('.eb-overview > .eb-footnote').innerText(), /profile financial-agent-2/);
  assert.match(await page.locator('[data-testid="custom-settings"]').innerText(), /profile financial-agent-2/);
  await shot(page, 'ux-fa2-profile');
  await page.click('[data-testid="custom-settings"] >> text=Reset to defaults');
  await page.waitForSelector('[data-metric="financial-agent-2:numerical_accuracy"]', { state: 'detached' });
  assertClean(rec);
  await context.close();
});

test('Compare gives a reading in words, coloured by which way it reads, as diff prints it', async () => {
  const { page, rec, context } = await open();
  await waitRun(page, 'gpt-4o');
  await page.waitForFunction(() => [...document.querySelectorAll('.eb-run__meta')].length === 3
    && [...document.querySelectorAll('.eb-run__meta')].every((m) => !m.querySelector('.eb-progress')));
  // The current run is the candidate; its baseline the run most like it (issue 26): o3 against
  // gpt-4o, as `diff gpt-4o o3`.
  await page.click('.eb-run__name:text-is("o3")');
  await waitRun(page, 'o3');
  await page.click('#eb-tab-compare');
  await page.waitForSelector('.eb-reading-line');
  const text = (await page.locator('.eb-reading-line').innerText()).trim();
  const line = cli(['diff', demo('gpt-4o'), demo('o3')]).split('\n').find((l) => l.startsWith('reading: '));
  assert.equal(text, line.slice('reading: '.length));
  assert.match(text, /^o3 is worse on 5 items \(4 of them: Evaluation timeout \(300s\)\)/);
  assert.equal(await page.getAttribute('.eb-reading-line', 'data-tone'), 'worse');
  await shot(page, 'ux-compare-reading');
  assertClean(rec);
  await context.close();
});

test('numbers explained where they stand: definitions under the cards, cost per correct turn, sample sizes on buckets', async () => {
  const { page, rec, context } = await open();
  await waitRun(page, 'gpt-4o');
  const stats = cliStats(demo('gpt-4o'));
  // Every headline card carries its definition in view (not only in a tooltip).
  const cards = await page.locator('.eb-overview > .eb-cards .eb-card').count();
  assert.equal(await page.locator('.eb-overview > .eb-cards .eb-card .eb-card__def').count(), cards);
  // Cost per correct answer counts fully correct conversations; per correct turn is beside it.
  assert.ok(stats.correct_turns > 0 && stats.cost_per_correct_turn > 0);
  const cost = await page.locator('[data-metric="cost_per_correct_answer"]').innerText();
  assert.match(cost, /tok per correct turn/);
  // Buckets carry their sample size; buckets of fewer than 3 turns get no bar.
  await page.click('#eb-tab-complexity');
  await page.waitForSelector('[data-chart="accuracy_by_ops"], .eb-chart');
  const text = await page.locator('#eb-panel-complexity').innerText();
  assert.match(text, /ops \(n=\d+\)/);
  assert.doesNotMatch(text, /ops \(n=[12]\)/);
  assertClean(rec);
  await context.close();
});

test('a static shell stands until the app mounts, and says so when WebAssembly cannot start', async () => {
  // The shell is in index.html itself: a blank page never shows, even before any script runs.
  const html = await (await fetch(h.srv.url)).text();
  assert.match(html, /id="eb-boot"/);
  assert.match(html, /Loading the scoring engine/);
  // With the wasm blocked the shell stays, and after a while it says why.
  const blocked = await openPage(h.browser);
  await blocked.page.route('**/*.wasm', (r) => r.abort());
  await blocked.page.clock.install();
  await blocked.page.goto(h.srv.url);
  await blocked.page.waitForSelector('#eb-boot');
  assert.match(await blocked.page.locator('#eb-boot').innerText(), /evalboard/);
  await blocked.page.clock.runFor(16000);
  await blocked.page.waitForFunction(() => document.getElementById('eb-boot-line')?.textContent.includes('could not start WebAssembly'));
  await shot(blocked.page, 'ux-boot-blocked');
  await blocked.context.close();
  // Mounted, the app removes it.
  const { page, rec, context } = await open();
  await waitRun(page, 'gpt-4o');
  assert.equal(await page.locator('#eb-boot').count(), 0);
  assertClean(rec);
  await context.close();
});

test('390 px wide: no screen of a run scrolls sideways; dark mode styles the controls', async () => {
  for (const scheme of ['light', 'dark']) {
    const { page, rec, context } = await open('', { viewport: { width: 390, height: 844 }, colorScheme: scheme });
    await waitRun(page, 'gpt-4o');
    for (const tab of ['overview', 'items', 'settings', 'compare']) {
      await page.click(`#eb-tab-${tab}`);
      await page.waitForSelector(`#eb-panel-${tab}:not([hidden]) > *`);
      await page.waitForTimeout(250);
      const over = await page.evaluate(() => document.scrollingElement.scrollWidth - window.innerWidth);
      assert.ok(over <= 0, `${tab} (${scheme}) scrolls sideways by ${over}px`);
      await shot(page, `ux-390-${tab}-${scheme}`);
    }
    if (scheme === 'dark') {
      // Every select, input and button has a dark background (not the browser's light default).
      await page.click('#eb-tab-settings');
      const light = await page.evaluate(() => [...document.querySelectorAll('select, input:not([type=radio]):not([type=checkbox]), button:not(.eb-link):not(.eb-btn--primary)')]
        .filter((e) => e.offsetParent)
        .map((e) => [e.outerHTML.slice(0, 60), getComputedStyle(e).backgroundColor])
        .filter(([, bg]) => {
          const m = bg.match(/\d+/g)?.map(Number) ?? [];
          const [r, g, b, a = 1] = m.length === 4 ? [m[0], m[1], m[2], m[3]] : m;
          return a > 0 && (r + g + b) / 3 > 160;
        }));
      assert.deepEqual(light, [], 'light controls in dark mode');
    }
    assertClean(rec);
    await context.close();
  }
});
