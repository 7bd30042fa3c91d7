// Hostile input and crashes, in the browser (issues 18 and 31): a worker that stops is noticed,
// the worker is restarted and every run comes back; a run that stops every worker fails alone
// and says why; a compression bomb loads with its text cut; the shared hostile corpus
// (tests/hostile/, also run by the CLI's tests) ends as runs with diagnostics or skipped files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import {
  openPage, outsideRequests, folderPayload, dropFiles, root, outDir,
  cliStats, pct, metric, dropGenerated, withApp, waitRun, osDrop,
} from './lib.mjs';

const DROP = '.eb-app';
const app = withApp();

async function open() {
  const p = await openPage(app.browser);
  await p.page.goto(app.srv.url);
  return p;
}

async function shot(page, name) {
  await page.screenshot({ path: path.join(outDir, `${name}.png`) });
}

/** The run list: name → its row's text (status, headline or error). */
async function runList(page) {
  return page.evaluate(() => Object.fromEntries([...document.querySelectorAll('.eb-run')].map((r) => [
    r.querySelector('.eb-run__name')?.textContent.trim(), r.textContent.replace(/\s+/g, ' ').trim(),
  ])));
}

/** The page's main worker (its script is worker_loader.js). */
function mainWorker(page) {
  return page.workers().find((w) => /\/worker_loader\.js/.test(w.url()));
}

/** Makes the worker's next message be followed by an uncaught error in it (what a wasm trap or a
 * stack overflow is to the page). */
async function crashAfterNextMessage(worker) {
  await worker.evaluate(() => {
    const post = self.postMessage.bind(self);
    let armed = true;
    self.postMessage = (m, t) => {
      post(m, t);
      if (armed) {
        armed = false;
        setTimeout(() => { throw new Error('injected crash (test)'); }, 0);
      }
    };
  });
}

/** The demo's runs, and ui_gpt4o_mini dropped beside them and on screen: its folder. */
async function demoAndOneRun(page) {
  await waitRun(page, 'gpt-4o');
  const dir = path.join(root, 'tests', 'fixtures', 'ui', 'ui_gpt4o_mini');
  await dropFiles(page, DROP, folderPayload(dir));
  await waitRun(page, 'ui_gpt4o_mini');
  return dir;
}

test('a worker that stops is noticed: the worker restarts and every run comes back, the one it was reading read again alone', async () => {
  const { page, rec, context } = await open();
  const dir = await demoAndOneRun(page);
  const want = pct(cliStats(dir).numerical_accuracy);
  assert.equal(await metric(page, 'numerical_accuracy'), want);
  const before = await runList(page);

  // 1. A crash while nothing is loading: every run is loaded again into a new worker.
  const w1 = mainWorker(page);
  assert.ok(w1, 'the main worker is listed');
  await w1.evaluate(() => setTimeout(() => { throw new Error('injected crash (test, idle)'); }, 0));
  await page.waitForSelector('.eb-notice >> text=/worker stopped/', { timeout: 15000 });
  assert.match(await page.locator('.eb-notice').first().innerText(), /The dashboard's worker stopped \(.*injected crash \(test, idle\)\)\. Loading 4 runs again\./);
  await page.waitForFunction((n) => {
    const rows = [...document.querySelectorAll('.eb-run')];
    return rows.length === n && rows.every((r) => r.querySelector('.eb-run__acc'));
  }, Object.keys(before).length, { timeout: 60000 });
  assert.deepEqual(Object.keys(await runList(page)), Object.keys(before), 'the same runs, in the same order');
  await page.click('.eb-run >> text=ui_gpt4o_mini');
  await waitRun(page, 'ui_gpt4o_mini');
  assert.equal(await metric(page, 'numerical_accuracy'), want, 'the reloaded run has its numbers');
  await shot(page, 'hostile-01-after-idle-crash');

  // 2. A crash while a run is being read: nothing shows that run caused it (a run that stops
  // every worker fails at its second stop: the poisoned-run test below), so it is read again,
  // alone, in the new worker once the others are back, and loads.
  const w2 = mainWorker(page);
  assert.ok(w2 && w2 !== w1, 'a new worker was started');
  await crashAfterNextMessage(w2);
  // ~40 MB: read in 16 MB slices, so the worker is still reading it when the error comes.
  await dropGenerated(page, DROP, () => {
    const pad = 'x'.repeat(300);
    const lines = [];
    for (let i = 0; i < 120000; i++) {
      lines.push(`{"conversation_id":"c${i >> 2}","turn_idx":${i & 3},"question":"q${i} ${pad}","expected":${i},"predicted":${i}}`);
    }
    return [{ path: 'doomed/run.jsonl', text: lines.join('\n') }];
  });
  await page.waitForSelector('.eb-notice >> text=/injected crash \\(test\\)\\)/', { timeout: 30000 });
  assert.match((await page.locator('.eb-notice').allInnerTexts()).join('\n'),
    /The dashboard's worker stopped \(.*injected crash \(test\)\)\. Loading 5 runs again\./);
  await page.waitForFunction(() => [...document.querySelectorAll('.eb-run')]
    .every((r) => r.querySelector('.eb-run__acc')), null, { timeout: 120000 });
  await page.click('.eb-run >> text=doomed');
  await waitRun(page, 'doomed');
  assert.equal(await metric(page, 'numerical_accuracy'), pct(1), 'the run read again has its numbers');
  await shot(page, 'hostile-02-the-run-read-again');
  await page.click('.eb-run >> text=ui_gpt4o_mini');
  await waitRun(page, 'ui_gpt4o_mini');
  assert.equal(await metric(page, 'numerical_accuracy'), want);

  // 3. The page is still usable: a new drop loads in the restarted worker.
  await dropFiles(page, DROP, folderPayload(path.join(root, 'demo', 'o3')));
  await waitRun(page, 'o3 (2)');
  assert.equal(await metric(page, 'numerical_accuracy'), pct(cliStats(path.join(root, 'demo', 'o3')).numerical_accuracy));

  // 4. The code-generation worker (started by the main worker) stopping: its runs come back in
  // a new one, and the main worker's runs are untouched.
  const cg = path.join(root, 'tests', 'fixtures', 'codegen', 'ok', 'trace', 'input');
  const payload = folderPayload(cg).map((f) => ({ ...f, path: f.path.replace(/^input\//, 'cg_trace/') }));
  await dropFiles(page, DROP, payload);
  const cgLoaded = () => page.waitForFunction(
    () => document.querySelector('.eb-runhead__title')?.textContent.trim().startsWith('cg_trace')
      && document.querySelector('[data-metric="average_overall_score"]'), null, { timeout: 60000 });
  await cgLoaded();
  const score = await metric(page, 'average_overall_score');
  const cgWorker = page.workers().find((w) => /codegen-worker_loader\.js/.test(w.url()));
  if (cgWorker) {
    await cgWorker.evaluate(() => setTimeout(() => { throw new Error('injected crash (test, code worker)'); }, 0));
    await page.waitForSelector('.eb-notice >> text=/code-generation worker stopped/', { timeout: 15000 });
    await page.waitForFunction(() => [...document.querySelectorAll('.eb-run')]
      .every((r) => r.textContent.includes('doomed') || r.querySelector('.eb-run__acc')), null, { timeout: 60000 });
    await page.click('.eb-run >> text=ui_gpt4o_mini');
    await waitRun(page, 'ui_gpt4o_mini');
    await page.click('.eb-run >> text=cg_trace');
    await cgLoaded();
    assert.equal(await metric(page, 'average_overall_score'), score, 'the code-generation run came back');
  } else {
    console.log('note: this Chromium does not list nested workers; the code-generation worker crash is not injected');
  }

  // The crashes were the test's; nothing else went wrong, and nothing left the origin.
  assert.deepEqual(rec.pageErrors, [], 'page errors');
  assert.deepEqual(rec.dialogs, [], 'dialogs');
  assert.deepEqual(outsideRequests(rec, app.srv.origin), [], 'requests outside the origin');
  await context.close();
});

/** Every run row, loaded or not: name → whether it shows its numbers (not failed, not busy). */
async function loadedRows(page) {
  return page.evaluate(() => Object.fromEntries([...document.querySelectorAll('.eb-run')].map((r) => [
    r.querySelector('.eb-run__name')?.textContent.trim(), !!r.querySelector('.eb-run__acc'),
  ])));
}

/** Waits until every run of the list shows its numbers (the demo's three load one by one). */
async function waitAllLoaded(page) {
  await page.waitForFunction(() => [...document.querySelectorAll('.eb-run')]
    .every((r) => r.querySelector('.eb-run__acc')), null, { timeout: 60000 });
}

/** Waits until the run list holds `name` with its numbers (or failed, when `failed`). */
async function waitRow(page, name, failed = false, timeout = 60000) {
  await page.waitForFunction(({ n, f }) => [...document.querySelectorAll('.eb-run')].some((r) =>
    r.querySelector('.eb-run__name')?.textContent.trim() === n
    && r.querySelector(f ? '.eb-run__failed' : '.eb-run__acc')), { n: name, f: failed }, { timeout });
}

test('a compression bomb (a 0.9 MB .eval whose one output inflates to 900 MB) loads with its text cut and said; every other run stays loaded, and a new run loads after', async () => {
  const { page, rec, context } = await open();
  const dir = await demoAndOneRun(page);
  await waitAllLoaded(page);
  const before = await loadedRows(page);
  assert.equal(Object.keys(before).length, 4, `the demo's three runs and one more: ${JSON.stringify(before)}`);

  await dropFiles(page, DROP, folderPayload(path.join(root, 'tests', 'hostile', 'runs', 'eval_text_bomb')));
  await waitRow(page, 'eval_text_bomb', false, 120000);
  // The worker never stopped, and every run is still there with its numbers.
  assert.equal(await page.locator('.eb-notice >> text=/worker stopped/').count(), 0, 'no worker stopped');
  assert.deepEqual(await loadedRows(page), { ...before, eval_text_bomb: true });
  // The run says what was cut: the file, the member, the text and its length.
  await page.click('.eb-run__name >> text="eval_text_bomb"');
  await page.click('#eb-tab-files');
  await page.waitForSelector('[data-table="files"]');
  const files = await page.locator('main').innerText();
  assert.match(files, /samples\/1_epoch_1\.json/);
  assert.match(files, /output\.completion: text cut at 1,000,000 of 900,000,000 characters/);
  // The sample's output is shown cut, with the length it had in the log.
  await page.click('#eb-tab-items');
  await page.waitForSelector('.eb-grid--log .eb-grid__row');
  await page.locator('.eb-grid--log .eb-grid__row').first().click();
  await page.waitForSelector('.eb-drawer [data-field="output"]');
  const output = await page.locator('.eb-drawer [data-field="output"]').innerText();
  assert.match(output, /^a{100}/);
  assert.match(output, /\(cut at 4,000 of 900,000,000 characters\)/);
  await shot(page, 'hostile-06-text-bomb');
  await page.keyboard.press('Escape');
  await page.click('#eb-tab-overview');

  // The other runs are usable, and a new run loads.
  await page.click('.eb-run__name >> text="ui_gpt4o_mini"');
  await waitRun(page, 'ui_gpt4o_mini');
  assert.equal(await metric(page, 'numerical_accuracy'), pct(cliStats(dir).numerical_accuracy));
  await dropFiles(page, DROP, folderPayload(path.join(root, 'demo', 'o3')));
  await waitRun(page, 'o3 (2)');
  assert.equal(await metric(page, 'numerical_accuracy'), pct(cliStats(path.join(root, 'demo', 'o3')).numerical_accuracy));
  assert.deepEqual(rec.pageErrors, [], 'page errors');
  assert.deepEqual(rec.consoleErrors, [], 'console errors');
  await context.close();
});

test('a run that stops every worker it is sent to (a message the worker posted before it stopped is lost) fails alone at its second stop: the other runs, demo included, come back, and the next drop loads', async () => {
  const { page, rec, context } = await openPage(app.browser);
  // Every worker started on this page throws as it receives a `Load` holding poison.txt,
  // before it posts anything: what a run whose reading traps the engine is to the page.
  await context.route('**/worker_loader.js', async (route) => {
    const original = await (await route.fetch()).text();
    // The worker's own handler (set as onmessage) runs after the check, from one listener.
    const poison = `{
      let handler = null;
      self.addEventListener('message', (e) => {
        const files = Array.isArray(e.data) ? [...(e.data[1] || [])] : [];
        if (files.some((f) => f && f.name === 'poison.txt')) throw new Error('poisoned run (test)');
        if (handler) handler.call(self, e);
      });
      Object.defineProperty(self, 'onmessage', { configurable: true, get: () => handler, set: (f) => { handler = f; } });
    }\n`;
    await route.fulfill({ body: poison + original, headers: { 'content-type': 'text/javascript' } });
  });
  await page.goto(app.srv.url);
  const dir = await demoAndOneRun(page);
  // Nothing else in flight, so the notices below are the poisoned run's (a demo run in flight
  // at the first stop would be sent again too: "Loading 5 runs", a third stop none the less).
  await waitAllLoaded(page);
  const before = await loadedRows(page);
  const good = folderPayload(dir);
  await dropFiles(page, DROP, [...good.map((f) => ({ ...f, path: f.path.replace(/^ui_gpt4o_mini\//, 'poisoned/') })),
    { path: 'poisoned/poison.txt', b64: Buffer.from('poison').toString('base64') }]);
  await waitRow(page, 'poisoned', true, 60000);
  await page.waitForFunction(() => [...document.querySelectorAll('.eb-run')]
    .filter((r) => !r.textContent.includes('poisoned')).every((r) => r.querySelector('.eb-run__acc')), null, { timeout: 60000 });
  assert.deepEqual(await loadedRows(page), { ...before, poisoned: false }, 'every other run came back');
  await page.click('.eb-run__name >> text="poisoned"');
  const error = await page.locator('.eb-state--error').innerText();
  assert.match(error, /worker stopped while reading or scoring this run \(.*poisoned run \(test\)\), twice/);
  assert.match(error, /evalboard score/, 'and points to the CLI');
  await shot(page, 'hostile-07-the-run-that-stops-workers');
  // Two stops: the run was sent again once, alone, after the others came back; not after that.
  await page.waitForTimeout(1000);
  const notices = (await page.locator('.eb-notice').allInnerTexts()).filter((n) => /worker stopped/.test(n));
  assert.equal(notices.length, 2, notices.join('\n'));
  assert.match(notices[0], /poisoned run \(test\)\)\. Loading 5 runs again\./);
  assert.match(notices[1], /poisoned run \(test\)\)\. Could not be loaded: poisoned\. Loading 4 runs again\./);
  // The page stays usable: a demo run and a new drop show the CLI's numbers.
  await page.click('.eb-run__name >> text="gpt-4o"');
  await waitRun(page, 'gpt-4o');
  assert.equal(await metric(page, 'numerical_accuracy'), pct(cliStats(path.join(root, 'demo', 'gpt-4o')).numerical_accuracy));
  await dropFiles(page, DROP, folderPayload(path.join(root, 'demo', 'o3')));
  await waitRun(page, 'o3 (2)');
  assert.equal(await metric(page, 'numerical_accuracy'), pct(cliStats(path.join(root, 'demo', 'o3')).numerical_accuracy));
  assert.deepEqual(rec.pageErrors, [], 'page errors');
  await context.close();
});

/** Writes a QA JSONL of about `bytes` bytes block by block (never one string: V8 caps a string
 * at ~512 MB): 20,000 distinct turns, repeated with a block number in every conversation id. */
function writeBigJsonl(file, bytes) {
  const block = [];
  for (let i = 0; i < 20000; i++) {
    const v = (i * 7919) % 10007;
    const predicted = i % 3 === 0 ? v + 1 : v;
    block.push(`{"conversation_id":"B@/page_${i >> 2}","turn_idx":${i & 3},"question":"what was the change in net revenue from 2016 to 2017? (#${i})",`
      + `"expected":"${v}","predicted":${predicted},"model":"synthetic-1","plan_operations":["subtract"],"ground_truth_program":"subtract(${v}, 1)","prompt_tokens":1200,"completion_tokens":150}`);
  }
  const text = block.join('\n') + '\n';
  const fd = fs.openSync(file, 'w');
  let written = 0;
  for (let b = 0; written < bytes; b++) {
    const chunk = text.replaceAll('B@', `B${b}`);
    fs.writeSync(fd, chunk);
    written += Buffer.byteLength(chunk);
  }
  fs.closeSync(fd);
}

test('a 4.3 GB JSONL is refused before reading, naming the wasm memory limit and the CLI; a 1.5 GB one loads and matches the CLI', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-big-'));
  try {
    const { page, rec, context } = await open();
    await waitRun(page, 'gpt-4o');
    // Sparse: 4.3 GB that take no disk. Nothing of it is read, so its bytes do not matter.
    const huge = path.join(dir, 'huge.jsonl');
    fs.writeFileSync(huge, '');
    fs.truncateSync(huge, Math.round(4.3 * 2 ** 30));
    await osDrop(context, page, [huge]);
    await page.waitForFunction(() => [...document.querySelectorAll('.eb-run')]
      .some((r) => r.textContent.includes('huge') && r.querySelector('.eb-run__failed')), null, { timeout: 30000 });
    await page.click('.eb-run >> text=huge');
    const error = await page.locator('.eb-state--error').innerText();
    assert.match(error, /This run is 4\.3 GB: too big to score in the browser/);
    assert.match(error, /WebAssembly, which a browser gives at most 4 GB of memory/);
    assert.match(error, /Nothing of it was read/);
    assert.match(error, /evalboard score/);
    await shot(page, 'hostile-03-too-big');

    const big = path.join(dir, 'big.jsonl');
    writeBigJsonl(big, 1.5 * 2 ** 30);
    await osDrop(context, page, [big]);
    await waitRun(page, 'big', 300000);
    const s = cliStats(big);
    assert.equal(await metric(page, 'numerical_accuracy'), pct(s.numerical_accuracy));
    const head = await page.locator('.eb-runhead').innerText();
    assert.match(head, new RegExp(s.total_turns.toLocaleString('en-US')), 'every turn is in');
    await shot(page, 'hostile-04-1.5GB');
    assert.deepEqual(rec.pageErrors, [], 'page errors');
    assert.deepEqual(rec.consoleErrors, [], 'console errors');
    await context.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the hostile corpus (tests/hostile/, also run by the CLI): every case ends as a run with its diagnostics or an explained failure, and the page stays usable', async () => {
  const corpus = path.join(root, 'tests', 'hostile');
  const { cases } = JSON.parse(fs.readFileSync(path.join(corpus, 'cases.json'), 'utf8'));
  const { page, rec, context } = await open();
  await waitRun(page, 'gpt-4o');
  for (const c0 of cases) {
    // Where the dashboard ends differently from the CLI (a family it does not open yet).
    const c = { ...c0, ...(c0.browser || {}) };
    // The run row to look at: the folder's name, or (a folder of several logs, listed as one
    // run per log) the first log's `folder/file`.
    const name = c.name || c.run;
    await dropFiles(page, DROP, folderPayload(path.join(corpus, 'runs', c.run)));
    await page.waitForFunction((n) => [...document.querySelectorAll('.eb-run')].some((r) =>
      r.querySelector('.eb-run__name')?.textContent.trim() === n
      && (r.querySelector('.eb-run__acc') || r.querySelector('.eb-run__failed'))), name, { timeout: 60000 });
    const failed = await page.evaluate((n) => !![...document.querySelectorAll('.eb-run')].find((r) =>
      r.querySelector('.eb-run__name')?.textContent.trim() === n).querySelector('.eb-run__failed'), name);
    assert.equal(failed, c.outcome === 'failed', `${c.run}: ${c.about}`);
    await page.click(`.eb-run__name >> text="${name}"`);
    let said = failed ? await page.locator('.eb-state--error').innerText() : '';
    await page.click('#eb-tab-files');
    await page.waitForSelector('[data-table="files"]');
    said += await page.locator('main').innerText();
    for (const s of c.says) assert.ok(said.includes(s), `${c.run}: the page does not say ${JSON.stringify(s)}:\n${said.slice(0, 2000)}`);
  }
  await shot(page, 'hostile-05-corpus');
  // Still usable: the demo run shows its numbers, as the CLI computes them.
  await page.click('.eb-run__name >> text="gpt-4o"');
  await page.click('#eb-tab-overview');
  await waitRun(page, 'gpt-4o');
  assert.deepEqual(rec.pageErrors, [], 'page errors');
  assert.deepEqual(rec.consoleErrors, [], 'console errors');
  assert.deepEqual(rec.dialogs, [], 'dialogs: model output never runs');
  await context.close();
});
