// Watching a folder (issue 30, docs/dashboard.md § Watching a folder): the page's "Watch a
// folder…" hands an OPFS directory handle (no permission prompt; the picker is replaced by one
// returning it, since a real picker cannot be driven headless) to the main worker, a writer
// appends QA JSONL lines (a half line among them) and an OpenAI Evals record file, and the live
// numbers follow; the final numbers equal `evalboard score` on the finished folder. The watch
// resumes after a reload; "Stop" forgets it. Run with FileSystemObserver (where Chromium has
// it) and with it removed from the worker by script (polling). A page without
// showDirectoryPicker says why and offers the re-drop. A log written by a real `inspect eval`
// (tests/python/watch_task.py, mockllm) is mirrored into the watched folder as it grows. A trace
// folder (financial-agent-2 traces/*.json) grows by whole files, each read on its own. A watch
// waiting for the permission (faked: the worker's folder answers "prompt" for 4 s) says so on
// its run, with no loading bar.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { withApp, openPage, outsideRequests, root, outDir, cli, pct, osDrop } from './lib.mjs';

const app = withApp();
const DIR = 'watch-e2e';
const EVALS = fs.readFileSync(path.join(root, 'tests/fixtures/evallog/ok/openai_evals_errors/input/arith-match.jsonl'), 'utf8');

/** QA turns (ten unless said) over three conversations, text outside ASCII, turns 0, 3, 6, 9, … wrong. */
function qaLines(n = 10) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const expected = 10 + i;
    const predicted = i % 3 === 0 ? expected + 1 : expected;
    out.push(JSON.stringify({
      conversation_id: `café-${i % 3}`, turn_idx: Math.floor(i / 3), question: `¿cuánto? ${i} 🙂`,
      expected: String(expected), predicted, latency_ms: 100 + i,
    }) + '\n');
  }
  return out;
}
const QA = qaLines().join('');

/** Appends `text` to OPFS file `name` of the watched folder, as a writer would (one write). */
async function append(page, name, text) {
  await page.evaluate(async ([dirName, name, text]) => {
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle(dirName, { create: true });
    const fh = await dir.getFileHandle(name, { create: true });
    const size = (await fh.getFile()).size;
    const w = await fh.createWritable({ keepExistingData: true });
    await w.seek(size);
    await w.write(text);
    await w.close();
  }, [DIR, name, text]);
}

/** A fresh page whose directory picker returns the OPFS folder (emptied first). */
async function start(context, page) {
  await page.addInitScript(([dirName]) => {
    localStorage.setItem('evalboard.demo-dismissed', '1');
    window.showDirectoryPicker = async () =>
      (await navigator.storage.getDirectory()).getDirectoryHandle(dirName, { create: true });
  }, [DIR]);
  await page.goto(app.srv.url);
  await page.waitForSelector('.eb-watch__pick');
  await page.evaluate(async (dirName) => {
    const r = await navigator.storage.getDirectory();
    await r.removeEntry(dirName, { recursive: true }).catch(() => {});
  }, DIR);
}

/** The watched files' lines as the page shows them (worker-laid-out blocks), by file name. */
async function fileLines(page) {
  const texts = await page.locator('.eb-watch__item [data-field="watch-file"]').allInnerTexts();
  return Object.fromEntries(texts.map((t) => [t.split(':')[0], t]));
}

async function waitFile(page, name, items, timeout = 30000) {
  await page.waitForFunction(([name, items]) => [...document.querySelectorAll('.eb-watch__item [data-field="watch-file"]')]
    .some((e) => e.textContent.startsWith(`${name}: ${items} items`)), [name, items], { timeout });
}

/** The watch's state line: `RUNNING · 2.5 items/s · last item 0 s ago · FileSystemObserver`. */
const stateLine = (page) => page.locator('.eb-watch__item [data-note="watch-state"]').innerText();

/** The CLI's numbers of the finished folder's files, each scored alone. */
function cliNumbers() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-watch-'));
  const one = (name, text) => {
    const d = path.join(dir, name.replace('.jsonl', ''));
    fs.mkdirSync(d);
    fs.writeFileSync(path.join(d, name), text);
    return JSON.parse(cli(['score', d, '--json']));
  };
  const qa = one('run.jsonl', QA);
  const evals = one('evals.jsonl', EVALS);
  fs.rmSync(dir, { recursive: true, force: true });
  return { qa, evals };
}

/** A folder holding `files` ({name: text}) on disk, named `name`; `evalboard score --json` of it. */
function folder(name, files) {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'eb-watch-')), name);
  fs.mkdirSync(dir);
  for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), text);
  return { dir, score: JSON.parse(cli(['score', dir, '--json'])) };
}

const SO_FAR = `${DIR} · so far`;

/** Waits until the run list's entry of the watched folder shows the headline `want`. */
async function waitRunAcc(page, want, timeout = 30000) {
  await page.waitForFunction(([name, want]) => [...document.querySelectorAll('.eb-run')]
    .some((r) => r.querySelector('.eb-run__name')?.textContent.includes(name) && r.querySelector('.eb-run__acc')?.textContent.trim() === want),
  [SO_FAR, want], { timeout });
}

/** The Overview's numerical accuracy card shows `want`. */
const waitCard = (page, want, timeout = 30000) => page.waitForFunction(
  (w) => document.querySelector('[data-metric="numerical_accuracy"] .eb-card__value')?.textContent === w, want, { timeout });

async function watchRun(how) {
  const { page, rec, context } = await openPage(app.browser);
  if (how === 'polling') {
    // A worker runs no init scripts: its entry script is served with the line before it.
    await context.route('**/worker_loader.js', async (route) => {
      const res = await route.fetch();
      await route.fulfill({ response: res, body: `delete self.FileSystemObserver;\n${await res.text()}` });
    });
  }
  await start(context, page);
  const lines = qaLines();
  const half = lines[4].slice(0, 25);
  await append(page, 'run.jsonl', lines.slice(0, 4).join('') + half);
  await page.click('.eb-watch__pick');
  await waitFile(page, 'run.jsonl', 4);
  assert.match(await stateLine(page), /^RUNNING · /);
  let shown = await fileLines(page);
  // Turns 0 and 3 wrong of 4; the half line is held, not a problem.
  assert.match(shown['run.jsonl'], /4 items · accuracy 50\.0% \(95% CI/);
  assert.doesNotMatch(shown['run.jsonl'], /problems/);
  const pace = await stateLine(page);
  const observed = await page.evaluate(() => 'FileSystemObserver' in self);
  if (how === 'polling') assert.match(pace, /polling every \d s/);
  else assert.match(pace, observed ? /FileSystemObserver/ : /polling/);
  await page.screenshot({ path: path.join(outDir, `watch-${how}-1.png`) });

  // The rest of the half line and more turns; an OpenAI Evals record file in two writes.
  await append(page, 'run.jsonl', lines[4].slice(25) + lines.slice(5).join(''));
  const evalLines = EVALS.split(/(?<=\n)/);
  await append(page, 'evals.jsonl', evalLines.slice(0, 5).join(''));
  await waitFile(page, 'run.jsonl', 10);
  await append(page, 'evals.jsonl', evalLines.slice(5).join(''));
  await waitFile(page, 'evals.jsonl', 5);
  await page.waitForFunction(() => /items\/s/.test(document.querySelector('[data-note="watch-state"]')?.textContent));
  shown = await fileLines(page);
  const want = cliNumbers();
  assert.equal(want.qa.total_turns, 10);
  assert.ok(shown['run.jsonl'].includes(`10 items · accuracy ${pct(want.qa.numerical_accuracy)}`), shown['run.jsonl']);
  // An eval log's items and headline as `evalboard score --json` gives them (n_items,
  // headline_score: the match events' accuracy).
  assert.ok(shown['evals.jsonl'].includes(`${want.evals.n_items} items · accuracy ${pct(want.evals.headline_score)}`), shown['evals.jsonl']);
  await page.screenshot({ path: path.join(outDir, `watch-${how}-2.png`) });
  assert.deepEqual(outsideRequests(rec, app.srv.origin), []);
  assert.deepEqual(rec.pageErrors, []);
  return { page, context, shown };
}

test('a watched OPFS folder shows the numbers so far; the final ones equal evalboard score; a reload resumes the watch; Stop forgets it', async () => {
  const { page, context, shown } = await watchRun('observer');
  // The folder is a run of the run list like any other, marked "so far": its headline and its
  // Overview are `evalboard score` of the folder (its QA JSONL; the record file is another
  // family's, named in the load report as a drop of the folder names it).
  let want = folder(DIR, { 'run.jsonl': QA, 'evals.jsonl': EVALS }).score;
  await waitRunAcc(page, pct(want.numerical_accuracy));
  await page.locator('.eb-run__name', { hasText: SO_FAR }).click();
  await waitCard(page, pct(want.numerical_accuracy));
  // It grows: two more turns (one wrong), and the open Overview follows.
  const more = qaLines(12);
  await append(page, 'run.jsonl', more.slice(10).join(''));
  want = folder(DIR, { 'run.jsonl': more.join('') }).score;
  assert.equal(want.total_turns, 12);
  await waitCard(page, pct(want.numerical_accuracy));
  await waitRunAcc(page, pct(want.numerical_accuracy));
  await page.screenshot({ path: path.join(outDir, 'watch-run-overview.png') });
  // Put the file back as the other tests know it (written anew: read from its start).
  await page.evaluate(async ([dirName, text]) => {
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle(dirName);
    const w = await (await dir.getFileHandle('run.jsonl')).createWritable();
    await w.write(text);
    await w.close();
  }, [DIR, QA]);
  await waitFile(page, 'run.jsonl', 10);
  await page.reload();
  await waitFile(page, 'run.jsonl', 10, 30000);
  await waitFile(page, 'evals.jsonl', 5, 30000);
  const again = await fileLines(page);
  assert.equal(again['run.jsonl'], shown['run.jsonl']);
  assert.equal(again['evals.jsonl'], shown['evals.jsonl']);
  await page.screenshot({ path: path.join(outDir, 'watch-reloaded.png') });
  // The resumed watch is the run of the list again.
  await page.locator('.eb-run__name', { hasText: SO_FAR }).waitFor();
  await page.click('.eb-watch__remove');
  assert.equal(await page.locator('.eb-watch__item').count(), 0);
  assert.equal(await page.locator('.eb-run__name', { hasText: SO_FAR }).count(), 0, 'Stop removes its run');
  await page.waitForTimeout(500);
  await page.reload();
  await page.waitForSelector('.eb-watch__pick');
  await page.waitForTimeout(2000);
  assert.equal(await page.locator('.eb-watch__item').count(), 0, 'a stopped watch does not come back');
  await context.close();
});

test('with FileSystemObserver removed from the worker the folder is polled, with the same numbers; Compare and All runs take the watched run; removing it stops the watch', async () => {
  const { page, context } = await watchRun('polling');
  const want = folder(DIR, { 'run.jsonl': QA, 'evals.jsonl': EVALS }).score;
  await waitRunAcc(page, pct(want.numerical_accuracy));
  // The finished folder dropped beside it: Compare the two (every item the same: unchanged)
  // and All runs against it as the baseline.
  const done = folder('finished', { 'run.jsonl': QA });
  await osDrop(context, page, [done.dir]);
  await page.locator('.eb-run__name', { hasText: 'finished' }).waitFor({ timeout: 30000 });
  await page.evaluate((so) => { location.hash = `#run=${encodeURIComponent(so)}&tab=compare&base=finished&cand=${encodeURIComponent(so)}`; }, SO_FAR);
  await page.waitForSelector('[data-table="compare-items"] tbody tr', { timeout: 30000 });
  const flips = await page.locator('[data-table="compare-items"] tbody tr').evaluateAll((rs) => rs.map((r) => r.dataset.flip));
  assert.equal(flips.length, 10);
  assert.ok(flips.every((f) => f.startsWith('unchanged')), flips.join());
  await page.screenshot({ path: path.join(outDir, 'watch-compare.png') });
  await page.click('#eb-tab-runs');
  await page.waitForFunction(() => document.querySelectorAll('select[name="pin"] option').length === 3, null, { timeout: 30000 });
  await page.selectOption('select[name="pin"]', 'finished');
  await page.waitForSelector(`[data-table="many-runs"] tbody tr[data-row="${SO_FAR}"]`, { timeout: 30000 });
  const row = await page.locator(`[data-table="many-runs"] tbody tr[data-row="${SO_FAR}"] td`).allInnerTexts();
  assert.ok(row.some((c) => c.trim() === pct(want.numerical_accuracy)), row.join(' | '));
  await page.screenshot({ path: path.join(outDir, 'watch-many.png') });
  // Removing the run from the run list stops the watch, with a message.
  await page.locator('.eb-run', { hasText: SO_FAR }).locator('.eb-icon-btn--danger').click();
  await page.waitForFunction(() => document.querySelectorAll('.eb-watch__item').length === 0);
  await page.locator('.eb-notice__text', { hasText: `Stopped watching “${DIR}”: its run was removed.` }).waitFor();
  await context.close();
});

test('a folder of several eval logs is a run a log, rebuilt from what each log\'s reader parsed; each equals evalboard score of the finished folder', async () => {
  const { page, context, rec } = await openPage(app.browser);
  await start(context, page);
  const other = fs.readFileSync(path.join(root, 'tests/fixtures/evallog/ok/openai_evals_2023/input/auto-gpt-benchmarks-2023-04-17_test-match.jsonl'), 'utf8');
  const a = EVALS.split(/(?<=\n)/);
  const b = other.split(/(?<=\n)/);
  await append(page, 'a.jsonl', a.slice(0, 3).join(''));
  await append(page, 'b.jsonl', b.slice(0, 2).join(''));
  await page.click('.eb-watch__pick');
  await page.waitForSelector('.eb-watch__item [data-field="watch-file"]', { timeout: 30000 });
  await append(page, 'a.jsonl', a.slice(3).join(''));
  await append(page, 'b.jsonl', b.slice(2).join(''));
  const want = folder(DIR, { 'a.jsonl': EVALS, 'b.jsonl': other }).score;
  assert.equal(want.length, 2);
  // Each log is a run of the list, named as a drop of the folder names it, with its headline
  // (a recorded score: shown as a fraction).
  try {
    for (const [file, w] of [['a.jsonl', want[0]], ['b.jsonl', want[1]]]) {
      const name = `${SO_FAR}/${DIR}/${file}`;
      await page.waitForFunction(([name, acc]) => [...document.querySelectorAll('.eb-run')]
        .some((r) => r.querySelector('.eb-run__name')?.textContent.includes(name) && r.querySelector('.eb-run__acc')?.textContent.trim() === acc),
      [name, w.headline_score.toFixed(3)], { timeout: 30000 });
    }
  } finally {
    await page.screenshot({ path: path.join(outDir, 'watch-logs.png') });
  }
  // Removing one log's run stops the folder's watch, with the message; the other log's run stays.
  await page.locator('.eb-run', { hasText: `${SO_FAR}/${DIR}/b.jsonl` }).locator('.eb-icon-btn--danger').first().click();
  await page.waitForFunction(() => document.querySelectorAll('.eb-watch__item').length === 0);
  await page.locator('.eb-notice__text', { hasText: `Stopped watching “${DIR}”: its run was removed.` }).waitFor();
  assert.equal(await page.locator('.eb-run__name', { hasText: `${SO_FAR}/${DIR}/a.jsonl` }).count(), 1);
  assert.deepEqual(rec.pageErrors, []);
  await context.close();
});

test('a browser without showDirectoryPicker says why and offers the re-drop', async () => {
  const { page, context } = await openPage(app.browser);
  await page.addInitScript(() => {
    localStorage.setItem('evalboard.demo-dismissed', '1');
    delete window.showDirectoryPicker;
    delete Window.prototype.showDirectoryPicker;
  });
  await page.goto(app.srv.url);
  await page.click('.eb-watch__pick');
  const why = page.locator('.eb-watch__why');
  await why.waitFor();
  assert.match(await why.innerText(), /cannot watch a folder: it has no File System Access API/);
  assert.equal(await why.locator('.eb-pick button').count(), 2, 'the re-drop: pick folder, pick files');
  await page.screenshot({ path: path.join(outDir, 'watch-no-picker.png') });
  await context.close();
});

/** Writes `bytes` (base64) as OPFS file `name` (`sub/name`: in a sub-folder) of the watched
 * folder, anew (one write). */
async function writeFile(page, name, b64) {
  await page.evaluate(async ([dirName, name, b64]) => {
    let dir = await (await navigator.storage.getDirectory()).getDirectoryHandle(dirName, { create: true });
    const parts = name.split('/');
    for (const p of parts.slice(0, -1)) dir = await dir.getDirectoryHandle(p, { create: true });
    const w = await (await dir.getFileHandle(parts.at(-1), { create: true })).createWritable();
    await w.write(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
    await w.close();
  }, [DIR, name, b64]);
}

/** The lines of blocks `field` of the watch, as shown. */
const lines = (page, field) => page.locator(`.eb-watch__item [data-field="${field}"]`).allInnerTexts();
const waitState = (page, re, timeout = 30000) => page.waitForFunction(
  (src) => new RegExp(src).test(document.querySelector('.eb-watch__item [data-note="watch-state"]')?.textContent ?? ''), re.source, { timeout });

test('the first failures as they arrive, with the answer against the expected one; a stall time set short marks the run STALLED', async () => {
  const { page, rec, context } = await openPage(app.browser);
  await page.addInitScript(() => localStorage.setItem('evalboard.watch-stall-s', '3'));
  await start(context, page);
  assert.equal(await page.locator('input[name="stall"]').inputValue(), '3');
  await append(page, 'run.jsonl', qaLines().slice(0, 4).join(''));
  await page.click('.eb-watch__pick');
  await waitFile(page, 'run.jsonl', 4);
  // Turns 0 and 3 are wrong (café-0, turns 0 and 1): shown as text, key and answers.
  assert.deepEqual(await lines(page, 'watch-failure'), [
    'run.jsonl · café-0 · 0: “11” (expected “10”)',
    'run.jsonl · café-0 · 1: “14” (expected “13”)',
  ]);
  // More wrong turns: the first five only.
  await append(page, 'run.jsonl', qaLines(16).slice(4).join(''));
  await waitFile(page, 'run.jsonl', 16);
  const fails = await lines(page, 'watch-failure');
  assert.equal(fails.length, 5);
  assert.equal(fails[4], 'run.jsonl · café-0 · 4: “23” (expected “22”)');
  // The folder is one QA JSONL: its run "so far" is built from the turns the watch already
  // read (no byte read again), and its headline is `evalboard score` of the same lines. A
  // numeric QA run records no log status: the panel shows none.
  await waitRunAcc(page, pct(folder(DIR, { 'run.jsonl': qaLines(16).join('') }).score.numerical_accuracy));
  assert.deepEqual(await lines(page, 'watch-log'), []);
  // No new item for 3 s: STALLED.
  await waitState(page, /^STALLED · /, 20000);
  await page.screenshot({ path: path.join(outDir, 'watch-stalled.png') });
  // New settings (a relative tolerance of 0.2: each answer off by one is within it): the
  // watch reads what it holds again under them, so the panel's numbers, its first failures
  // and the run so far are those of `evalboard score --rel-tol 0.2`.
  const { dir } = folder(DIR, { 'run.jsonl': qaLines(16).join('') });
  const loose = JSON.parse(cli(['score', dir, '--json', '--rel-tol', '0.2']));
  assert.equal(loose.numerical_accuracy, 1);
  await page.locator('.eb-run__name', { hasText: SO_FAR }).click();
  await page.click('#eb-tab-settings');
  await page.fill('input[name="rel"]', '0.2');
  await page.waitForFunction((acc) => [...document.querySelectorAll('.eb-watch__item [data-field="watch-file"]')]
    .some((e) => e.textContent.startsWith(`run.jsonl: 16 items · accuracy ${acc}`)), pct(loose.numerical_accuracy), { timeout: 30000 })
    .finally(() => page.screenshot({ path: path.join(outDir, 'watch-settings.png') }));
  assert.deepEqual(await lines(page, 'watch-failure'), []);
  await waitRunAcc(page, pct(loose.numerical_accuracy));
  assert.deepEqual(rec.pageErrors, []);
  await context.close();
});

/** An Inspect `.eval` as it is written: the journal's start and the first `k` samples with
 * their summaries (`_journal/summaries/1.json`), from the finished fixture's members; base64. */
const EVAL = path.join(root, 'tests/fixtures/evallog/ok/deflate_stored_zip64/input/arith.eval');
function runningEval(k) {
  const py = `
import base64, io, json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1]); k = int(sys.argv[2])
names = [n for n in z.namelist() if n.startswith('samples/')][:k]
out = io.BytesIO()
with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as w:
    w.writestr('_journal/start.json', z.read('_journal/start.json'))
    summaries = []
    for n in names:
        w.writestr(n, z.read(n))
        s = json.loads(z.read(n))
        summaries.append({f: s[f] for f in ('id', 'epoch', 'input', 'target', 'scores') if f in s})
    w.writestr('_journal/summaries/1.json', json.dumps(summaries))
sys.stdout.write(base64.b64encode(out.getvalue()).decode())
`;
  return execFileSync('python3', ['-c', py, EVAL, String(k)], { encoding: 'utf8' });
}

test('an Inspect .eval read from its journal while it runs, replaced by the finished log; a .json log re-read when it changes, its cancellation said', async () => {
  const { page, rec, context } = await openPage(app.browser);
  await start(context, page);
  await writeFile(page, 'arith.eval', runningEval(2));
  await page.click('.eb-watch__pick');
  const evalItems = (n) => page.waitForFunction((n) => [...document.querySelectorAll('.eb-watch__item [data-field="watch-log"]')]
    .some((e) => new RegExp(`: ${n} items( \\(of \\d+\\))? · accuracy [^·]+ · status started$`).test(e.textContent)), n, { timeout: 30000 });
  await evalItems(2);
  await waitState(page, /^RUNNING · /);
  // The log grows by a sample: its end and that one member are read, not the log again.
  await writeFile(page, 'arith.eval', runningEval(3));
  await evalItems(3);
  const reads = await lines(page, 'watch-reads');
  assert.match(reads[0], /^arith\.eval: the last change read 1 member \([\d.]+ KB read; the file is [\d.]+ KB\) · \d+ members read in all$/, reads.join());
  await page.screenshot({ path: path.join(outDir, 'watch-eval-running.png') });
  // The finished log (header.json, status success) replaces the running one.
  await writeFile(page, 'arith.eval', fs.readFileSync(EVAL).toString('base64'));
  const want = JSON.parse(cli(['score', path.dirname(EVAL), '--json']));
  await page.waitForFunction((n) => [...document.querySelectorAll('.eb-watch__item [data-field="watch-log"]')]
    .some((e) => new RegExp(`: ${n} items( \\(of ${n}\\))? · accuracy [^·]+ · status success$`).test(e.textContent)), want.n_items, { timeout: 30000 });
  await waitState(page, /^FINISHED · /);
  // Its run (the folder's one log) is the CLI's: the Overview's headline.
  await page.locator('.eb-run__name', { hasText: SO_FAR }).click();
  await page.waitForFunction((w) => document.body.textContent.includes(w), pct(want.headline_score), { timeout: 30000 });
  // A .json log beside it that reports a cancellation: said; written again as a success: finished.
  // (Its text edited, not parsed: Inspect writes NaN, which JSON.parse refuses.)
  const json = fs.readFileSync(path.join(root, 'tests/fixtures/evallog/ok/inspect_epochs2_json/input/epochs2.json'), 'utf8');
  const cancelled = json.replace(/"status": *"success"/, '"status": "cancelled"');
  assert.notEqual(cancelled, json);
  await writeFile(page, 'epochs2.json', Buffer.from(cancelled).toString('base64'));
  await waitState(page, /^CANCELLED · /);
  const message = await page.locator('.eb-watch__item [data-note="watch-message"]').innerText();
  assert.match(message, /reports status cancelled: the run ended early\./);
  await page.screenshot({ path: path.join(outDir, 'watch-cancelled.png') });
  await writeFile(page, 'epochs2.json', Buffer.from(json).toString('base64'));
  await waitState(page, /^FINISHED · /);
  assert.deepEqual(rec.pageErrors, []);
  await context.close();
});

test('a dropped folder whose handle the browser gives is offered to watch, with no picker', async () => {
  const { page, rec, context } = await openPage(app.browser);
  await start(context, page);
  await append(page, 'run.jsonl', QA);
  // A drop whose item gives the OPFS folder's handle (a real folder's drop gives its own; a
  // headless drop carries files only, so the method is replaced by one returning the folder).
  await page.evaluate(async (dirName) => {
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle(dirName);
    DataTransferItem.prototype.getAsFileSystemHandle = async function () { return dir; };
    const dt = new DataTransfer();
    dt.items.add(new File([await (await dir.getFileHandle('run.jsonl')).getFile()], 'run.jsonl'));
    document.querySelector('.eb-app').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, DIR);
  const offer = page.locator('.eb-watch__dropped');
  await offer.waitFor({ timeout: 10000 });
  assert.equal(await offer.innerText(), `Watch “${DIR}” as it grows`);
  await offer.click();
  await page.screenshot({ path: path.join(outDir, 'watch-dropped-0.png') });
  await waitFile(page, 'run.jsonl', 10);
  await page.locator('.eb-run__name', { hasText: SO_FAR }).waitFor();
  assert.equal(await page.locator('.eb-watch__dropped').count(), 0, 'the offer goes once taken');
  await page.screenshot({ path: path.join(outDir, 'watch-dropped.png') });
  assert.deepEqual(rec.pageErrors, []);
  await context.close();
});

/** The test-only Python venv (scripts/test-venv.sh, inspect-ai from PyPI): the test fails, never
 * skips, when it cannot be made (CI has PyPI). */
function inspectVenv() {
  let venv;
  try {
    venv = execFileSync('bash', [path.join(root, 'scripts/test-venv.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  } catch (e) {
    throw new Error(`scripts/test-venv.sh could not make the test venv (inspect-ai from PyPI, tests/python/requirements.txt; no network?): ${e.message}`);
  }
  const inspect = path.join(venv, 'bin', 'inspect');
  if (!fs.existsSync(inspect)) throw new Error(`${inspect} is missing: the test venv has no inspect-ai (tests/python/requirements.txt)`);
  return venv;
}

/** What the watch panel and the run list show now (texts only; never waits). */
const panel = (page) => page.evaluate((so) => {
  const texts = (sel) => [...document.querySelectorAll(sel)].map((e) => e.textContent);
  const run = [...document.querySelectorAll('.eb-run')].find((r) => r.querySelector('.eb-run__name')?.textContent.includes(so));
  return {
    state: document.querySelector('.eb-watch__item [data-note="watch-state"]')?.textContent ?? '',
    logs: texts('.eb-watch__item [data-field="watch-log"]'),
    reads: texts('.eb-watch__item [data-field="watch-reads"]'),
    message: document.querySelector('.eb-watch__item [data-note="watch-message"]')?.textContent ?? null,
    run: run ? run.textContent : null,
    notices: texts('.eb-notice__text'),
  };
}, SO_FAR);

test('a log written by a real `inspect eval` (mockllm/model) is seen RUNNING part-way, is never an error mid-write, and ends with the numbers of evalboard score', async () => {
  const venv = inspectVenv();
  const { page, rec, context } = await openPage(app.browser);
  await start(context, page);
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-inspect-'));
  // The watch starts on the empty folder, as it would beside a run about to start.
  await page.click('.eb-watch__pick');
  await page.locator('.eb-watch__item').waitFor();
  const t0 = Date.now();
  // 20 samples, one at a time, each flushed to the log (--log-buffer 1), 0.4 s apart. No network:
  // a proxy that refuses makes any attempt fail at once (the task's outputs carry their usage).
  const child = spawn(path.join(venv, 'bin', 'inspect'), [
    'eval', 'watch_task.py', '--model', 'mockllm/model', '--log-dir', logDir, '--log-format', 'eval',
    '--log-buffer', '1', '--max-samples', '1', '--display', 'none', '-T', 'delay=0.4',
  ], {
    cwd: path.join(root, 'tests/python'),
    env: { ...process.env, HTTPS_PROXY: 'http://127.0.0.1:9', HTTP_PROXY: 'http://127.0.0.1:9', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => { output += d; });
  child.stderr.on('data', (d) => { output += d; });
  let code = null;
  const exited = new Promise((r) => child.on('close', (c) => { code = c; r(c); }));
  // The writer's files mirrored into the watched OPFS folder as they change (whole, in one
  // write each: a flush caught half-way by this copy is what a reader of the real folder sees).
  const seen = new Map();
  const mirror = async () => {
    for (const name of fs.readdirSync(logDir)) {
      const file = path.join(logDir, name);
      const st = fs.statSync(file, { throwIfNoEntry: false });
      if (name.startsWith('.') || !st?.isFile()) continue;
      const sig = `${st.size}:${st.mtimeMs}`;
      if (seen.get(name) === sig) continue;
      seen.set(name, sig);
      await writeFile(page, name, fs.readFileSync(file).toString('base64'));
    }
  };
  const rounds = [];
  try {
    while (code === null && Date.now() - t0 < 50000) {
      await mirror();
      rounds.push(await panel(page));
      await Promise.race([exited, new Promise((r) => setTimeout(r, 250))]);
    }
  } finally {
    if (code === null) child.kill();
  }
  assert.equal(await exited, 0, `inspect eval failed:\n${output}`);
  await mirror();
  const logs = fs.readdirSync(logDir).filter((n) => n.endsWith('.eval'));
  assert.equal(logs.length, 1, logs.join());
  const log = path.join(logDir, logs[0]);
  // The total the run declares (`eval.dataset.samples`, written with the journal's start), read
  // by inspect_ai itself (its members are zstd-compressed).
  const total = Number(execFileSync(path.join(venv, 'bin', 'python'), ['-c',
    'import sys; from inspect_ai.log import read_eval_log; print(read_eval_log(sys.argv[1], header_only=True).eval.dataset.samples)', log],
  { encoding: 'utf8' }).trim());
  assert.equal(total, 20);
  const want = JSON.parse(cli(['score', logDir, '--json']));
  assert.equal(want.n_items, total);
  await page.waitForFunction((n) => [...document.querySelectorAll('.eb-watch__item [data-field="watch-log"]')]
    .some((e) => new RegExp(`: ${n} items \\(of ${n}\\) · accuracy [^·]+ · status success$`).test(e.textContent)), want.n_items, { timeout: 30000 })
    .catch(async (e) => { throw new Error(`${e.message}: ${JSON.stringify(await panel(page))}`); });
  await waitState(page, /^FINISHED · /);
  await page.screenshot({ path: path.join(outDir, 'watch-inspect-finished.png') });
  // The run list shows an eval log's headline score as recorded (three decimals).
  await waitRunAcc(page, want.headline_score.toFixed(3))
    .catch(async (e) => { throw new Error(`${e.message}: ${want.headline_score} ${JSON.stringify(await panel(page))}`); });
  // Seen part-way: RUNNING with some but not all of the samples, the log `started`.
  const partway = rounds.filter((r) => r.state.startsWith('RUNNING') && r.logs.some((l) => {
    // Of the total the journal's start declares (the dataset's samples × epochs).
    const m = l.match(new RegExp(`: (\\d+) items \\(of ${total}\\) · accuracy [^·]+ · status started$`));
    return m && Number(m[1]) > 0 && Number(m[1]) < total;
  }));
  assert.ok(partway.length > 0, `never seen part-way: ${JSON.stringify(rounds.map((r) => [r.state, r.logs]))}`);
  // Never an error while it was written: no ERROR/STOPPED state, no message, no failed load.
  for (const r of rounds) {
    assert.doesNotMatch(r.state, /^(ERROR|STOPPED|CANCELLED)/, JSON.stringify(r));
    assert.equal(r.message, null, JSON.stringify(r));
    assert.ok(!r.notices.some((n) => /could not|failed|error/i.test(n)), JSON.stringify(r));
  }
  // Its samples are items done: a pace once two counts were seen.
  assert.ok(rounds.some((r) => /^RUNNING · \d+\.\d items\/s · last item \d+ s ago/.test(r.state)), JSON.stringify(rounds.map((r) => r.state)));
  // Each change read the log's end and its new members only, never every member again.
  const members = partway.flatMap((r) => r.reads).map((l) => l.match(/read (\d+) members? \(.* · (\d+) members read in all$/))
    .filter(Boolean).map((m) => [Number(m[1]), Number(m[2])]);
  assert.ok(members.some(([last, all]) => last > 0 && last < all / 2), JSON.stringify(partway.map((r) => r.reads)));
  const counts = [...new Set(partway.map((r) => r.logs.join()))];
  console.log(`inspect eval: ${((Date.now() - t0) / 1000).toFixed(1)} s, ${rounds.length} rounds, seen part-way ${partway.length} times (${counts.length} counts), final ${want.n_items} items, ${pct(want.headline_score)}`);
  assert.deepEqual(rec.pageErrors, []);
  assert.deepEqual(outsideRequests(rec, app.srv.origin), []);
  fs.rmSync(logDir, { recursive: true, force: true });
  await context.close();
});

/** The financial-agent-2 trace fixtures, each made conversation `k`'s (`t<k>`, `conv-<k>`). */
const TRACES = [
  'numeric_qa/ok/fa2_simulated/input/traces/1499cdf3-e676-4158-ada8-1039d2c4e711.json',
  'numeric_qa/ok/fa2_simulated/input/traces/53cd9e79-cf3d-43a1-b2cb-095336fe8273.json',
  'numeric_qa/err/fa2_nasty/input/traces/21636369-8b52-4b4a-97b7-50923ceb3ffd.json',
  'numeric_qa/err/fa2_nasty/input/traces/781f9c58-d664-4fa9-a8a8-529f035efa25.json',
  'numeric_qa/err/fa2_nasty/input/traces/795b929e-9a9a-40fd-aa7b-5bf55eb561a4.json',
];
function traceOf(k) {
  const text = fs.readFileSync(path.join(root, 'tests/fixtures', TRACES[k % TRACES.length]), 'utf8');
  const id = (key) => text.match(new RegExp(`"${key}": "([^"]*)"`))[1];
  return text.replace(id('trace_id'), `t${k}`).replace(id('conversation_id'), `conv-${k}`);
}

test('a trace folder growing by whole files: each new trace is read on its own; the live numbers equal evalboard score of the final folder', async () => {
  const { page, rec, context } = await openPage(app.browser);
  await start(context, page);
  const put = (k) => writeFile(page, `traces/t${k}.json`, Buffer.from(traceOf(k)).toString('base64'));
  await put(0);
  await page.click('.eb-watch__pick');
  const files = {};
  const waitTraces = (n) => page.waitForFunction((n) => [...document.querySelectorAll('.eb-watch__item [data-field="watch-file"]')]
    .some((e) => e.textContent.startsWith(n === 1 ? '1 trace file:' : `${n} trace files:`)), n, { timeout: 30000 });
  const line = async () => Object.entries(await fileLines(page)).find(([k]) => /trace files?$/.test(k))?.[1];
  await waitTraces(1);
  const seen = [await line()];
  files['traces/t0.json'] = traceOf(0);
  for (let k = 1; k < 6; k++) {
    await put(k);
    files[`traces/t${k}.json`] = traceOf(k);
    await waitTraces(k + 1);
    seen.push(await line());
  }
  const { score } = (() => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'eb-watch-')), DIR);
    fs.mkdirSync(path.join(dir, 'traces'), { recursive: true });
    for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), text);
    return { score: JSON.parse(cli(['score', dir, '--json'])) };
  })();
  const last = seen.at(-1);
  assert.ok(last.startsWith(`6 trace files: ${score.total_turns} items · accuracy ${pct(score.numerical_accuracy)}`), `${last} vs ${JSON.stringify(score).slice(0, 400)}`);
  // Items only grew, file by file.
  const items = seen.map((l) => Number(l.match(/: (\d+) items/)[1]));
  assert.ok(items.every((n, i) => i === 0 || n >= items[i - 1]), items.join());
  // The traces are not among the files read whole; the run loaded whole has the same headline.
  assert.doesNotMatch((await lines(page, 'watch-whole')).join(), /traces\//);
  await waitRunAcc(page, pct(score.numerical_accuracy));
  await page.screenshot({ path: path.join(outDir, 'watch-traces.png') });
  assert.deepEqual(rec.pageErrors, []);
  await context.close();
});

test('while a watch waits for the permission its run says so, with no loading bar; granted, it loads', async () => {
  const { page, rec, context } = await openPage(app.browser);
  // The worker's folder answers "prompt" for its first 4 s (as a kept folder does after the
  // browser was closed), then what the browser says (OPFS: granted).
  await context.route('**/worker_loader.js', async (route) => {
    const res = await route.fetch();
    const fake = `{const q = FileSystemHandle.prototype.queryPermission, until = Date.now() + 4000;
FileSystemHandle.prototype.queryPermission = function (o) { return Date.now() < until ? Promise.resolve('prompt') : q.call(this, o); };}\n`;
    await route.fulfill({ response: res, body: fake + await res.text() });
  });
  await start(context, page);
  await append(page, 'run.jsonl', QA);
  await page.click('.eb-watch__pick');
  const entry = page.locator('.eb-run', { hasText: SO_FAR });
  await entry.locator('.eb-run__stage', { hasText: 'waiting for your permission' }).waitFor({ timeout: 30000 });
  assert.equal(await entry.locator('.eb-progress').count(), 0, 'no loading bar while it waits');
  assert.equal(await page.locator('.eb-header__progress .eb-progress').count(), 0, 'nor in the header');
  assert.match(await stateLine(page), /^STOPPED · /);
  await page.screenshot({ path: path.join(outDir, 'watch-waiting.png') });
  // Granted: the watch goes on and its run loads.
  await waitFile(page, 'run.jsonl', 10);
  await waitRunAcc(page, pct(folder(DIR, { 'run.jsonl': QA }).score.numerical_accuracy));
  assert.deepEqual(rec.pageErrors, []);
  await context.close();
});
