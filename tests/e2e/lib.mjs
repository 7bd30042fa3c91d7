// Shared harness for the end-to-end browser tests: a static server for dist/ on 127.0.0.1, and a
// headless Debian Chromium driven by playwright-core that records console errors and every request.
import http from 'node:http';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { before, after } from 'node:test';

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '../..');
export const dist = path.join(root, 'dist');
export const outDir = path.join(here, 'out');
fs.mkdirSync(outDir, { recursive: true });

const require = createRequire(path.join(root, 'tools', 'package.json'));
const { chromium } = require('playwright-core');

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml',
};

/** Serves `dir` on 127.0.0.1 under `prefix` (to prove sub-path hosting). */
export async function serve(dir = dist, prefix = '/') {
  const server = http.createServer((req, res) => {
    let p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (!p.startsWith(prefix)) { res.writeHead(404); res.end(); return; }
    p = p.slice(prefix.length) || 'index.html';
    const file = path.join(dir, p);
    if (!file.startsWith(dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404); res.end('not found'); return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}${prefix}`, origin: `http://127.0.0.1:${port}`, close: () => server.close() };
}

export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
];

export async function launch(extraArgs = []) {
  return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: [...CHROMIUM_ARGS, ...extraArgs] });
}

/** A page that records console errors, page errors, dialogs and every request URL. */
export async function openPage(browser, opts = {}) {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1400, height: 900 }, ...opts });
  const page = await context.newPage();
  const rec = { consoleErrors: [], pageErrors: [], requests: [], dialogs: [] };
  page.on('console', (m) => { if (m.type() === 'error') rec.consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => rec.pageErrors.push(String(e)));
  page.on('dialog', async (d) => { rec.dialogs.push(d.message()); await d.dismiss(); });
  context.on('request', (r) => rec.requests.push(r.url()));
  return { context, page, rec };
}

/** Requests that left the page's own origin (data:/blob: URLs are local). */
export function outsideRequests(rec, origin) {
  return rec.requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:'));
}

/** A page session stayed quiet: no console or page error, no dialog, nothing requested outside
 * `origin` (the app's own server). */
export function assertQuiet(rec, origin) {
  assert.deepEqual(rec.consoleErrors, [], 'console errors');
  assert.deepEqual(rec.pageErrors, [], 'page errors');
  assert.deepEqual(rec.dialogs, [], 'dialogs');
  assert.deepEqual(outsideRequests(rec, origin), [], 'requests outside the origin');
}

/** Reads a folder into [{path, b64}] with paths relative to the folder's parent (like a drop). */
export function folderPayload(dir) {
  const base = path.basename(dir);
  const out = [];
  const walk = (d, rel) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      const r = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(full, r); else out.push({ path: r, b64: fs.readFileSync(full).toString('base64') });
    }
  };
  walk(dir, base);
  return out;
}

/** Dispatches a synthetic drop of `files` ([{path, b64}]) on `selector`. */
export async function dropFiles(page, selector, files) {
  await page.evaluate(async ({ selector, files }) => {
    const dt = new DataTransfer();
    for (const f of files) {
      const bin = Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0));
      const file = new File([bin], f.path.split('/').pop());
      Object.defineProperty(file, 'webkitRelativePath', { value: f.path });
      dt.items.add(file);
    }
    const el = document.querySelector(selector);
    for (const type of ['dragenter', 'dragover', 'drop']) {
      el.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  }, { selector, files });
}

/**
 * The dist/ app served under /evalboard/ and one browser, for a test file: started before its
 * tests, closed after. `h.srv` and `h.browser` are set once the tests run.
 */
export function withApp() {
  const h = {};
  before(async () => {
    if (!fs.existsSync(path.join(root, 'dist', 'index.html'))) throw new Error('build dist/ first: trunk build --release');
    h.srv = await serve(undefined, '/evalboard/');
    h.browser = await launch();
  });
  after(async () => {
    await h.browser?.close();
    h.srv?.close();
  });
  return h;
}

/** Waits until the numeric-QA run `name` is on screen with its headline cards. */
export async function waitRun(page, name, timeout = 60000) {
  await page.waitForFunction(
    (n) => document.querySelector('.eb-runhead__title')?.textContent.trim().startsWith(n)
      && document.querySelector('[data-metric="numerical_accuracy"]'),
    name, { timeout },
  );
}

/** Opens run `name` from the sidebar's run list (its own entry: while a drop is still being
 * read the name shows first in the "Watch “name”" offer, which is not the run) and waits until
 * the route holds it. */
export async function openRun(page, name, timeout = 60000) {
  const exact = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  const entry = page.locator('.eb-runlist .eb-run__select')
    .filter({ has: page.locator('.eb-run__name', { hasText: exact }) }).first();
  await entry.waitFor({ timeout });
  await entry.click();
  await page.waitForFunction((n) => new URLSearchParams(location.hash.slice(1)).get('run') === n, name, { timeout });
}

// ---- dashboard helpers (tests/e2e/app.test.mjs) ----
import { execFileSync } from 'node:child_process';
import os from 'node:os';

/** Runs the evalboard CLI (same engine as the worker) and returns stdout. */
export function cli(args) {
  return execFileSync('cargo', ['run', '-q', '-p', 'evalboard-cli', '--', ...args], {
    cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20,
  });
}

/** statistics.json of one run folder, as the CLI computes it. */
export function cliStats(dir, extra = []) {
  return JSON.parse(cli(['score', dir, '--json', ...extra]));
}

/** The CLI's output files for one run folder: { 'turns.csv': text, ... }. */
export function cliOutputs(dir, extra = []) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-cli-'));
  cli(['score', dir, '--out', out, ...extra]);
  const files = {};
  for (const f of fs.readdirSync(out)) files[f] = fs.readFileSync(path.join(out, f), 'utf8');
  fs.rmSync(out, { recursive: true, force: true });
  return files;
}

/** A rate as the dashboard prints it: 0.6667 → "66.7%". */
export function pct(x) {
  return x === null || x === undefined ? '—' : `${(x * 100).toFixed(1)}%`;
}

/** Text of a headline card's value. */
export async function metric(page, key) {
  return (await page.locator(`[data-metric="${key}"] .eb-card__value`).first().innerText()).trim();
}

/** Drops in-page generated text files ([{path, text}]) — for inputs too big to ship from node. */
export async function dropGenerated(page, selector, makeFilesSource) {
  await page.evaluate(({ selector, src }) => {
    // eslint-disable-next-line no-new-func
    const files = new Function(`return (${src})();`)();
    const dt = new DataTransfer();
    for (const f of files) {
      const file = new File([f.text], f.path.split('/').pop());
      Object.defineProperty(file, 'webkitRelativePath', { value: f.path });
      dt.items.add(file);
    }
    const el = document.querySelector(selector);
    for (const type of ['dragenter', 'dragover', 'drop']) {
      el.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  }, { selector, src: makeFilesSource.toString() });
}

// ---- load-test helpers (tests/e2e/perf.test.mjs) ----

/** A seeded generator (xorshift) so every clone makes the same synthetic run. */
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 4294967296; };
}

const GEN_QUESTIONS = [
  'what was the change in net revenue from 2016 to 2017?', 'what is that as a percentage of the 2016 value?',
  'and what was the difference between them?', 'what is the sum of the two years?',
  'what was the total operating expense in 2009?', 'what is the ratio of cash to total assets?',
];
const GEN_PROGRAMS = [
  ['subtract(5829, 5735)', ['subtract']], ['divide(94, 5735)', ['divide']], ['add(4241, 2441)', ['add']],
  ['subtract(5829, 5735), divide(#0, 5735)', ['subtract', 'divide']],
  ['divide(1563, 6482), multiply(#0, const_100)', ['divide', 'multiply']],
];

/**
 * Writes `n` turns of evalboard QA JSONL to `file` (the same shape as
 * `evalboard-bench gen jsonl`: 1–6-turn conversations, mixed right/near/sign/string/null answers,
 * percent and dollar expectations, plans and token counts). Reuses the file when it exists.
 */
export function genJsonl(file, n) {
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const r = rng(42);
  const below = (k) => Math.floor(r() * k);
  const parts = [];
  let i = 0;
  let c = 0;
  while (i < n) {
    const len = Math.min(1 + below(6), n - i);
    const id = `Single_SYN/${2000 + (c % 20)}/page_${c}.pdf-${c % 4}`;
    for (let t = 0; t < len; t++, i++) {
      const q = GEN_QUESTIONS[below(GEN_QUESTIONS.length)];
      const [program, ops] = GEN_PROGRAMS[below(GEN_PROGRAMS.length)];
      const value = Math.round((r() * 2000 - 500 * r())) / 100;
      const pctQ = below(4) === 0;
      const expected = pctQ ? `${value.toFixed(1)}%` : below(10) === 0 ? `$${(Math.abs(value) * 100).toFixed(2)}` : `${value}`;
      const k = below(100);
      const predicted = k < 60 ? (pctQ ? value / 100 : value) : k < 70 ? value * 1.004 : k < 78 ? -value
        : k < 85 ? `${value}` : k < 90 ? null : value * 3 + 1;
      const plan = below(5) === 0 ? [...ops].reverse() : ops;
      parts.push(JSON.stringify({
        conversation_id: id, turn_idx: t, question: `${q} (#${i})`, expected, predicted, model: 'synthetic-1',
        plan_operations: plan, ground_truth_program: program,
        prompt_tokens: 900 + below(600), completion_tokens: 100 + below(200),
        features: { num_dialogue_turns: len, has_type2_question: c % 3 === 0, has_duplicate_columns: false,
          has_non_numeric_values: c % 5 === 0 },
      }));
    }
    c++;
  }
  fs.writeFileSync(file, parts.join('\n') + '\n');
  return file;
}

/** Merges `values` into tests/e2e/out/metrics.json. */
export function writeMetrics(values) {
  const file = path.join(outDir, 'metrics.json');
  let cur = {};
  try { cur = JSON.parse(fs.readFileSync(file, 'utf8')); } catch { /* first write */ }
  fs.writeFileSync(file, JSON.stringify({ ...cur, ...values }, null, 2) + '\n');
}

/** A real OS drag of `paths` (files or folders) onto the page through CDP (entries API). */
export async function osDrop(context, page, paths) {
  const cdp = await context.newCDPSession(page);
  const data = { items: [], files: paths, dragOperationsMask: 1 };
  for (const type of ['dragEnter', 'dragOver', 'drop']) {
    // A renderer that crashes during the drop never answers: fail then, never hang the suite.
    let timer;
    const crashed = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`osDrop: no answer to ${type} in 120 s (the page crashed?)`)), 120000);
    });
    try {
      await Promise.race([cdp.send('Input.dispatchDragEvent', { type, x: 700, y: 400, data }), crashed]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Downloads "Export the workspace as a lake" and gives the unzipped lake's folder. */
export async function workspaceLake(page, shot) {
  await page.click('#eb-tab-export');
  await page.waitForSelector('[data-export="workspace-lake"]');
  if (shot) await page.screenshot({ path: path.join(outDir, shot) });
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 60000 }), page.click('[data-export="workspace-lake"]')]);
  assert.equal(dl.suggestedFilename(), 'workspace.evalboard-lake.zip');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-ws-'));
  const zipPath = path.join(tmp, 'ws.zip');
  fs.copyFileSync(await dl.path(), zipPath);
  execFileSync('unzip', ['-q', zipPath, '-d', tmp]);
  return { tmp, zipPath, lake: path.join(tmp, 'workspace.evalboard-lake') };
}
