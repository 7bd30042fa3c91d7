// The workspace survives a reload (issue 17.4): a dropped run is kept in the browser's own
// storage (OPFS) once its numbers are on screen, a reload lists it again with the same numbers,
// a link naming it opens it, removing it removes the kept copy, and a link naming a run that is
// not kept says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import {
  withApp, openPage, outsideRequests, folderPayload, dropFiles, root, outDir, cliStats, metric,
} from './lib.mjs';

const app = withApp();
const DROP = '.eb-app';
const LOG = path.join(root, 'tests', 'fixtures', 'evallog', 'runs', 'inspect_arith');
const QA = path.join(root, 'tests', 'fixtures', 'numeric_qa', 'ok', 'fa2_simulated', 'input');

/** The kept runs' names, read from the browser's storage as the worker wrote them. */
async function kept(page) {
  return page.evaluate(async () => {
    const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('evalboard-runs', { create: true });
    const out = [];
    for await (const [key, dir] of root.entries()) {
      try {
        const m = JSON.parse(await (await (await dir.getFileHandle('manifest.json')).getFile()).text());
        out.push(m.name);
      } catch { out.push(`${key} (no manifest)`); }
    }
    return out.sort();
  });
}

const dec4 = (x) => x.toFixed(4);

test('a dropped run is kept in the browser: a reload lists it again with the same numbers, a link opens it, removing it forgets it', async () => {
  const want = cliStats(LOG);
  const { page, rec, context } = await openPage(app.browser);
  await page.addInitScript(() => localStorage.setItem('evalboard.demo-dismissed', '1'));
  await page.goto(app.srv.url);
  await page.waitForSelector('.eb-app');
  await dropFiles(page, DROP, folderPayload(LOG));
  await page.waitForFunction(() => document.querySelector('[data-metric="headline_score"]'), null, { timeout: 60000 });
  assert.equal(await metric(page, 'headline_score'), dec4(want.headline_score));
  // Kept after the numbers are on screen, manifest last.
  await page.waitForFunction(async () => {
    const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('evalboard-runs', { create: true });
    for await (const [, dir] of root.entries()) {
      try { await dir.getFileHandle('manifest.json'); return true; } catch { /* copying */ }
    }
    return false;
  }, null, { timeout: 30000 });
  assert.deepEqual(await kept(page), ['inspect_arith']);

  // A reload: listed again, loaded from the browser's storage, the same numbers.
  await page.goto(`${app.srv.url}#run=inspect_arith&tab=overview`);
  await page.reload();
  await page.waitForFunction(() => document.querySelector('.eb-runhead__title')?.textContent.trim().startsWith('inspect_arith')
    && document.querySelector('[data-metric="headline_score"]'), null, { timeout: 60000 });
  assert.equal(await metric(page, 'headline_score'), dec4(want.headline_score));
  assert.equal(await metric(page, 'n_samples'), String(want.n_samples));
  assert.deepEqual(await page.locator('.eb-run__name').allInnerTexts(), ['inspect_arith'], 'listed once');
  await page.screenshot({ path: path.join(outDir, 'keep-restored.png') });
  // Reloading again does not keep a second copy.
  await page.reload();
  await page.waitForSelector('[data-metric="headline_score"]', { timeout: 60000 });
  assert.deepEqual(await kept(page), ['inspect_arith']);

  // Removing the run removes its kept copy; a link naming it says it is not kept.
  await page.click('.eb-run .eb-icon-btn--danger');
  await page.waitForFunction(async () => {
    const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('evalboard-runs', { create: true });
    for await (const _ of root.keys()) return false; // eslint-disable-line no-unused-vars
    return true;
  }, null, { timeout: 30000 });
  await dropFiles(page, DROP, folderPayload(QA));
  await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 60000 });
  await page.goto(`${app.srv.url}#run=inspect_arith`);
  await page.reload();
  await page.waitForFunction(() => document.querySelector('.eb-main')?.textContent.includes('not loaded, nor kept in this browser'), null, { timeout: 60000 });
  assert.deepEqual(rec.pageErrors, [], 'page errors');
  assert.deepEqual(rec.consoleErrors, [], 'console errors');
  assert.deepEqual(outsideRequests(rec, app.srv.origin), [], 'requests outside the origin');
  await context.close();
});
