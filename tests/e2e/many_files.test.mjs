// A run of many files (issue 17.9): the page reads their bytes itself (no per-file size asked,
// each a round trip to the browser process) and hands the worker the bytes, which hashes them
// after the numbers are on screen. Checked here: the numbers equal the CLI's, the HTML report's
// provenance carries every file's real SHA-256, and the run is kept and a reload restores it.
// Timing is `make bench`'s (bench/folder_load.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { withApp, openPage, outsideRequests, root, outDir, cliStats, metric, pct } from './lib.mjs';

const app = withApp();
const SRC = path.join(root, 'tests', 'fixtures', 'numeric_qa', 'ok', 'fa2_simulated', 'input', 'traces');

/** A trace folder of `n` files (the fixture's two traces under new ids). */
function traceFolder(n) {
  const dir = path.join(fs.mkdtempSync(path.join(outDir, 'many-')), 'many_traces');
  fs.mkdirSync(path.join(dir, 'traces'), { recursive: true });
  const sources = fs.readdirSync(SRC).map((f) => JSON.parse(fs.readFileSync(path.join(SRC, f), 'utf8')));
  for (let i = 0; i < n; i++) {
    const t = structuredClone(sources[i % sources.length]);
    t.trace_id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    t.conversation_id = `${t.conversation_id}#${i}`;
    fs.writeFileSync(path.join(dir, 'traces', `${t.trace_id}.json`), JSON.stringify(t));
  }
  return dir;
}

test('a folder of 150 files: read on the page, numbers = CLI, every SHA-256 in the report, kept across a reload', async () => {
  const dir = traceFolder(150);
  const want = cliStats(dir);
  const { page, rec, context } = await openPage(app.browser);
  await page.addInitScript(() => localStorage.setItem('evalboard.demo-dismissed', '1'));
  // How the Load reached the worker: its sources' kinds.
  await page.addInitScript(() => {
    const Base = window.Worker;
    window.__sources = [];
    window.Worker = class extends Base {
      postMessage(msg, ...rest) {
        if (Array.isArray(msg) && Array.isArray(msg[1])) window.__sources.push(msg[1].map((s) => s?.constructor?.name));
        return super.postMessage(msg, ...rest);
      }
    };
  });
  await page.goto(app.srv.url);
  await page.waitForSelector('.eb-sidebar .eb-pick__folder', { state: 'attached' });
  await page.setInputFiles('.eb-sidebar .eb-pick__folder', dir);
  await page.waitForFunction(() => document.querySelector('.eb-runhead__title')?.textContent.trim().startsWith('many_traces')
    && document.querySelector('[data-metric="numerical_accuracy"] .eb-card__value'), null, { timeout: 60000 });
  assert.equal(await metric(page, 'numerical_accuracy'), pct(want.numerical_accuracy));
  const kinds = (await page.evaluate(() => window.__sources)).find((s) => s.length === 150);
  assert.ok(kinds && kinds.every((k) => k === 'ArrayBuffer'), `the page sent the bytes: ${kinds}`);

  // The report names every file with its real SHA-256 (computed after the numbers).
  await page.waitForTimeout(500);
  await page.click('#eb-tab-export');
  await page.waitForSelector('[data-export="report.html"]');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('[data-export="report.html"]')]);
  const html = fs.readFileSync(await dl.path(), 'utf8');
  const data = JSON.parse(html.match(/<script type="application\/json" id="eb-data">([^<]*)<\/script>/)[1]);
  assert.equal(data.files.length, 150);
  for (const f of data.files) {
    const bytes = fs.readFileSync(path.join(dir, f.path));
    assert.equal(f.sha256, crypto.createHash('sha256').update(bytes).digest('hex'), f.path);
    assert.equal(f.bytes, bytes.length, f.path);
  }

  // Kept (manifest last), and a reload restores it with the same numbers. Asked every 250 ms,
  // not every frame: each look walks the kept folders through the browser's storage, the same
  // backend the worker is writing 151 files through.
  const copy = () => page.evaluate(async () => {
    const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('evalboard-runs', { create: true });
    const out = [];
    for await (const [key, d] of root.entries()) {
      // The manifest file exists from the moment its writer opens: only its written text, and
      // every file it names beside it, say the copy is complete (a reload before that finds an
      // incomplete copy and drops it).
      let n = 0;
      for await (const [name] of d.entries()) if (!name.endsWith('.crswap')) n += 1;
      let paths = null;
      try {
        const m = JSON.parse(await (await (await d.getFileHandle('manifest.json')).getFile()).text());
        if (m.version === 1) paths = m.paths.length;
      } catch { /* copying */ }
      out.push({ key, files: n, paths, complete: paths !== null && n === paths + 1 });
    }
    return out;
  });
  let seen = [];
  for (let i = 0; i < 480 && !seen.some((c) => c.complete); i++) {
    await page.waitForTimeout(250);
    seen = await copy();
  }
  assert.ok(seen.some((c) => c.complete), `a complete kept copy: ${JSON.stringify(seen)}; console errors: ${JSON.stringify(rec.consoleErrors)}; notices: ${await page.locator('.eb-toast, [role="status"], [role="alert"]').allInnerTexts().catch(() => [])}`);
  await page.goto(`${app.srv.url}#run=many_traces&tab=overview`);
  await page.reload();
  await page.waitForFunction(() => document.querySelector('.eb-runhead__title')?.textContent.trim().startsWith('many_traces')
    && document.querySelector('[data-metric="numerical_accuracy"] .eb-card__value'), null, { timeout: 60000 });
  assert.equal(await metric(page, 'numerical_accuracy'), pct(want.numerical_accuracy));
  assert.deepEqual(rec.consoleErrors, []);
  assert.deepEqual(rec.pageErrors, []);
  assert.deepEqual(outsideRequests(rec, app.srv.origin), []);
  await context.close();
});
