// The workspace survives a reload (issue 17.4): a dropped run is kept in the browser's own
// storage (OPFS) once its numbers are on screen, a reload lists it again with the same numbers,
// a link naming it opens it, removing it removes the kept copy, and a link naming a run that is
// not kept says so. Where OPFS is missing the runs are kept in IndexedDB with the same
// guarantees; a full quota is a clear message and leaves nothing of the run stored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  withApp, openPage, outsideRequests, folderPayload, dropFiles, root, outDir, cli, cliStats, metric,
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

/** Waits until a run is kept in OPFS: its folder has its manifest (written last). */
const keptOne = (page) => page.waitForFunction(async () => {
  const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('evalboard-runs', { create: true });
  for await (const [, dir] of root.entries()) {
    try { await dir.getFileHandle('manifest.json'); return true; } catch { /* copying */ }
  }
  return false;
}, null, { timeout: 30000 });

const dec4 = (x) => x.toFixed(4);

/** Reloads a link to inspect_arith: it is listed once and opens with the CLI's numbers (`want`). */
async function reloadRestores(page, want) {
  await page.goto(`${app.srv.url}#run=inspect_arith&tab=overview`);
  await page.reload();
  await page.waitForFunction(() => document.querySelector('.eb-runhead__title')?.textContent.trim().startsWith('inspect_arith')
    && document.querySelector('[data-metric="headline_score"]'), null, { timeout: 60000 });
  assert.equal(await metric(page, 'headline_score'), dec4(want.headline_score));
  assert.equal(await metric(page, 'n_samples'), String(want.n_samples));
  assert.deepEqual(await page.locator('.eb-run__name').allInnerTexts(), ['inspect_arith'], 'listed once');
}

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
  await keptOne(page);
  assert.deepEqual(await kept(page), ['inspect_arith']);

  // A reload: listed again, loaded from the browser's storage, the same numbers.
  await reloadRestores(page, want);
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
  // Kept (its manifest written) before the reload: a reload during the copy drops the copy, and
  // with no run listed the page shows its empty state, not the link's message.
  await keptOne(page);
  await page.goto(`${app.srv.url}#run=inspect_arith`);
  await page.reload();
  await page.waitForFunction(() => document.querySelector('.eb-main')?.textContent.includes('not loaded, nor kept in this browser'), null, { timeout: 60000 });
  assert.deepEqual(rec.pageErrors, [], 'page errors');
  assert.deepEqual(rec.consoleErrors, [], 'console errors');
  assert.deepEqual(outsideRequests(rec, app.srv.origin), [], 'requests outside the origin');
  await context.close();
});

/** The runs kept in IndexedDB (`evalboard` / `runs`, as the worker wrote them): name and number
 * of files each. */
async function keptIdb(page) {
  return page.evaluate(() => new Promise((resolve, reject) => {
    const open = indexedDB.open('evalboard', 1);
    open.onupgradeneeded = () => open.result.createObjectStore('runs');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const req = db.transaction('runs').objectStore('runs').getAll();
      req.onsuccess = () => {
        db.close();
        resolve(req.result.map((r) => `${JSON.parse(r.manifest).name} (${r.files.length} files)`).sort());
      };
      req.onerror = () => reject(req.error);
    };
  }));
}

// Two ways a browser has no OPFS: no getDirectory at all (older browsers), or one that refuses
// (some private modes).
const NO_OPFS = {
  absent: () => { delete StorageManager.prototype.getDirectory; },
  refused: () => {
    StorageManager.prototype.getDirectory = () => Promise.reject(new DOMException('The operation is insecure.', 'SecurityError'));
  },
};

/** Takes OPFS away from the page and from its worker. A worker runs no init scripts, so the same
 * lines are put before the worker's entry script (worker_loader.js) as the test serves it
 * (route interception): the worker's own code meets a browser without OPFS, and the app ships
 * no switch for tests. */
async function withoutOpfs(context, page, shim) {
  await page.addInitScript(shim);
  await context.route('**/worker_loader.js', async (route) => {
    const res = await route.fetch();
    await route.fulfill({ response: res, body: `(${shim})();\n${await res.text()}` });
  });
}

for (const [how, shim] of Object.entries(NO_OPFS)) {
  test(`without OPFS (getDirectory ${how}) a dropped run is kept in IndexedDB: a reload lists it again with the same numbers, removing it forgets it`, async () => {
    const want = cliStats(LOG);
    const { page, rec, context } = await openPage(app.browser);
    await page.addInitScript(() => localStorage.setItem('evalboard.demo-dismissed', '1'));
    await withoutOpfs(context, page, shim);
    await page.goto(app.srv.url);
    await page.waitForSelector('.eb-app');
    assert.equal(await page.evaluate(async () => {
      try { return typeof (await navigator.storage.getDirectory()); } catch (e) { return e.name; }
    }), how === 'absent' ? 'TypeError' : 'SecurityError', 'the page has no OPFS');
    await dropFiles(page, DROP, folderPayload(LOG));
    await page.waitForFunction(() => document.querySelector('[data-metric="headline_score"]'), null, { timeout: 60000 });
    // Kept after the numbers are on screen, in IndexedDB: one record, its file in it.
    for (let i = 0; i < 300 && (await keptIdb(page)).length === 0; i++) await page.waitForTimeout(100);
    assert.deepEqual(await keptIdb(page), ['inspect_arith (1 files)']);

    // A reload: listed again, loaded from IndexedDB, the same numbers, listed once.
    await reloadRestores(page, want);
    assert.deepEqual(await keptIdb(page), ['inspect_arith (1 files)'], 'not kept twice');
    await page.screenshot({ path: path.join(outDir, `keep-idb-${how}-restored.png`) });

    // Removing the run removes its record.
    await page.click('.eb-run .eb-icon-btn--danger');
    for (let i = 0; i < 300 && (await keptIdb(page)).length > 0; i++) await page.waitForTimeout(100);
    assert.deepEqual(await keptIdb(page), []);
    await page.reload();
    await page.waitForSelector('.eb-app');
    await page.waitForTimeout(2000);
    assert.deepEqual(await page.locator('.eb-run__name').allInnerTexts(), [], 'nothing listed after a reload');
    assert.deepEqual(rec.pageErrors, [], 'page errors');
    assert.deepEqual(rec.consoleErrors, [], 'console errors');
    assert.deepEqual(outsideRequests(rec, app.srv.origin), [], 'requests outside the origin');
    await context.close();
  });
}

// A full quota (a real one: Chromium's quota for the origin set to 12 KB through the DevTools
// protocol, below the 24.5 KB QA folder of seven files): the run stays open, the page says in
// words that it was not kept, and nothing of it is stored — OPFS's partly written folder is
// deleted, IndexedDB's transaction never commits — so a reload lists no run.
for (const store of ['OPFS', 'IndexedDB']) {
  test(`a full quota (${store}): the page says the run was not kept, and nothing of it stays`, async () => {
    const { page, rec, context } = await openPage(app.browser);
    await page.addInitScript(() => localStorage.setItem('evalboard.demo-dismissed', '1'));
    if (store === 'IndexedDB') await withoutOpfs(context, page, NO_OPFS.absent);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: app.srv.origin, quotaSize: 12 * 1024 });
    await page.goto(app.srv.url);
    await page.waitForSelector('.eb-app');
    await dropFiles(page, DROP, folderPayload(QA));
    await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 60000 });
    const notice = page.locator('.eb-notice--error', { hasText: 'was not kept' });
    await notice.waitFor({ timeout: 30000 });
    const text = (await notice.locator('.eb-notice__text').innerText()).trim();
    assert.equal(text, '“input” is open but was not kept in this browser: the storage this browser gives the page is full. '
      + 'Nothing of it was stored; after a reload, drop its folder again (removing kept runs you no longer need makes room).');
    assert.ok(!/DOMException|QuotaExceededError/.test(text), 'no raw browser error');
    await page.screenshot({ path: path.join(outDir, `keep-quota-${store}.png`) });
    // Nothing of the run is stored, not even a part of it.
    assert.deepEqual(store === 'OPFS' ? await kept(page) : await keptIdb(page), []);
    // A reload lists no run (and finds nothing to clean up).
    await page.reload();
    await page.waitForSelector('.eb-app');
    await page.waitForTimeout(2000);
    assert.deepEqual(await page.locator('.eb-run__name').allInnerTexts(), []);
    assert.deepEqual(store === 'OPFS' ? await kept(page) : await keptIdb(page), []);
    assert.deepEqual(rec.pageErrors, [], 'page errors');
    assert.deepEqual(rec.consoleErrors, [], 'console errors');
    await context.close();
  });
}

/** Three eval logs in one folder (one `Load`, three runs), copied into a temp folder. */
function threeLogs() {
  const logs = path.join(root, 'tests', 'fixtures', 'evallog', 'runs');
  const tmp = fs.mkdtempSync(path.join(outDir, 'keep-logs-'));
  const dir = path.join(tmp, 'three_logs');
  fs.mkdirSync(dir);
  fs.copyFileSync(path.join(logs, 'inspect_arith', 'arith.eval'), path.join(dir, 'arith.eval'));
  fs.copyFileSync(path.join(logs, 'promptfoo_baseline', 'results.json'), path.join(dir, 'results.json'));
  for (const f of fs.readdirSync(path.join(logs, 'lm_eval_baseline'))) {
    fs.copyFileSync(path.join(logs, 'lm_eval_baseline', f), path.join(dir, f));
  }
  return { tmp, dir };
}

const listed = (page) => page.locator('.eb-run__name').allInnerTexts().then((ns) => ns.map((n) => n.trim()).sort());

test('a run removed from a folder of several logs stays removed after a reload; the folder\'s other runs stay kept; removing the folder\'s runs forgets the copy', async () => {
  const { tmp, dir } = threeLogs();
  const names = JSON.parse(cli(['score', dir, '--json'])).map((s) => s.run_name).sort();
  assert.equal(names.length, 3);
  const { page, rec, context } = await openPage(app.browser);
  await page.addInitScript(() => localStorage.setItem('evalboard.demo-dismissed', '1'));
  await page.goto(app.srv.url);
  await page.waitForSelector('.eb-app');
  await dropFiles(page, DROP, folderPayload(dir));
  const allLoaded = (ns) => ns.every((n) => [...document.querySelectorAll('.eb-run')]
    .find((r) => r.querySelector('.eb-run__name')?.textContent.trim() === n)?.querySelector('.eb-run__acc'));
  await page.waitForFunction(allLoaded, names, { timeout: 60000 });
  await page.waitForFunction(async () => {
    const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('evalboard-runs', { create: true });
    for await (const [, d] of root.entries()) {
      try { await d.getFileHandle('manifest.json'); return true; } catch { /* copying */ }
    }
    return false;
  }, null, { timeout: 30000 });
  // The manifest is written again as the copy learns more (its files' digests): a read in the
  // middle of that write sees no manifest, or (seen since session 28, a few times in ten) no
  // folder at all for a moment. Wait for a settled listing, then check it.
  let listing = await kept(page);
  for (let i = 0; i < 50 && (listing.length === 0 || listing.some((k) => k.endsWith('(no manifest)'))); i++) {
    await page.waitForTimeout(200);
    listing = await kept(page);
  }
  assert.deepEqual(listing, ['three_logs'], 'one copy of the folder');

  // Remove the second of the three (not the one that keeps the folder's Load).
  const gone = names[1];
  const row = page.locator('.eb-run', { has: page.locator('.eb-run__name', { hasText: gone }) });
  await row.hover();
  await row.locator(`[aria-label="Remove ${gone}"]`).click();
  await page.waitForFunction((n) => ![...document.querySelectorAll('.eb-run__name')].some((e) => e.textContent.trim() === n), gone);
  // The copy notes it (written after the click): wait for the manifest to say so.
  await page.waitForFunction(async (n) => {
    const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('evalboard-runs', { create: true });
    try {
      for await (const [, d] of root.entries()) {
        const m = JSON.parse(await (await (await d.getFileHandle('manifest.json')).getFile()).text());
        return (m.removed || []).includes(n);
      }
    } catch { /* the manifest mid-write: read again */ }
    return false;
  }, gone, { timeout: 30000 });
  await page.reload();
  const left = names.filter((n) => n !== gone);
  await page.waitForFunction(allLoaded, left, { timeout: 60000 });
  await page.waitForTimeout(500);
  assert.deepEqual(await listed(page), left, 'the removed run does not come back');
  // Removing the first run (the one holding the folder's Load id) keeps the last one kept.
  const first = left[0];
  const row1 = page.locator('.eb-run', { has: page.locator('.eb-run__name', { hasText: first }) });
  await row1.hover();
  await row1.locator(`[aria-label="Remove ${first}"]`).click();
  await page.waitForFunction((n) => ![...document.querySelectorAll('.eb-run__name')].some((e) => e.textContent.trim() === n), first);
  await page.waitForFunction(async (n) => {
    const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('evalboard-runs', { create: true });
    for await (const [, d] of root.entries()) {
      const m = JSON.parse(await (await (await d.getFileHandle('manifest.json')).getFile()).text());
      return (m.removed || []).includes(n);
    }
    return false;
  }, first, { timeout: 30000 });
  await page.reload();
  await page.waitForFunction(allLoaded, [left[1]], { timeout: 60000 });
  await page.waitForTimeout(500);
  assert.deepEqual(await listed(page), [left[1]]);
  await page.screenshot({ path: path.join(outDir, 'keep-folder-part-removed.png') });

  // The folder's last run removed by "remove this folder's runs": the copy goes.
  await page.locator('.eb-run').first().hover();
  await page.click('[data-action="remove-folder"]');
  await page.waitForFunction(() => document.querySelectorAll('.eb-run').length === 0);
  await page.waitForFunction(async () => {
    const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('evalboard-runs', { create: true });
    for await (const _ of root.keys()) return false; // eslint-disable-line no-unused-vars
    return true;
  }, null, { timeout: 30000 });
  await page.reload();
  await page.waitForSelector('.eb-app');
  await page.waitForTimeout(1000);
  assert.equal(await page.locator('.eb-run').count(), 0, 'nothing comes back');
  assert.deepEqual(rec.pageErrors, [], 'page errors');
  assert.deepEqual(rec.consoleErrors, [], 'console errors');
  await context.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});
