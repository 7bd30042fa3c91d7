// The by-hand check of "Watch a folder…" on a real folder (issue 30, docs/dashboard.md
// § Checking the permission prompt by hand), driven as far as this machine allows: a headful
// Debian Chromium on an X server (Xvfb), its native GTK folder chooser and its permission
// prompts driven with xdotool, every step's screen taken with ImageMagick's `import -window root`
// into tests/manual/out/ (look at them: the prompts are the browser's, not the page's).
//
// Not part of `make test`: `make manual-watch` runs it (needs `apt-get install xvfb xdotool
// imagemagick`, and dist/ built). Headless Chromium cannot show the picker nor answer the
// prompts (docs/dashboard.md says why), so this drives the real ones; coordinates are the
// dialogs' at the window size set here (1500×950 at 0,0 on a 1600×1000 screen), and each step
// checks the page's text after it, so a click that missed fails the step, not silently.
//
// Steps: pick a real folder holding a QA JSONL and allow the prompt; append lines (and a half
// line) from here and see the numbers move; reload (the grant holds while the tab is open);
// restart the browser on the same profile (the grant is gone: the watch stops and offers
// Resume); Resume and "Allow this time"; remove the folder (the watch stops: gone); restart
// and answer the Resume prompt "Don't allow"; drop the folder from an X drag source
// (tests/manual/drag_source.py) and watch the dropped folder's handle.
//
//   node tests/manual/real_folder.mjs            # DIST=dist PORT=18731 DISPLAY=:99 by default
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const require = createRequire(path.join(root, 'tools', 'package.json'));
const { chromium } = require('playwright-core');

const DIST = path.resolve(process.env.DIST || path.join(root, 'dist'));
const PORT = +(process.env.PORT || 18731);
const DISPLAY = process.env.DISPLAY || ':99';
const OUT = path.join(here, 'out');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
fs.mkdirSync(OUT, { recursive: true });
const env = { ...process.env, DISPLAY };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.log(new Date().toISOString().slice(11, 19), ...a);

// ---- the X server, screenshots, keys and clicks ----
let xvfb = null;
try {
  execFileSync('xdotool', ['getdisplaygeometry'], { env, stdio: 'ignore' });
} catch {
  log(`starting Xvfb on ${DISPLAY}`);
  xvfb = spawn('Xvfb', [DISPLAY, '-screen', '0', '1600x1000x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
  await sleep(1500);
}
const x = (...args) => execFileSync('xdotool', args, { env }).toString().trim();
const shot = (name) => {
  execFileSync('import', ['-window', 'root', path.join(OUT, `${name}.png`)], { env });
  log(`screenshot ${name}.png`);
};
const click = (px, py) => x('mousemove', String(px), String(py), 'click', '1');
/** The X window named `name`, waited for. */
async function windowNamed(name, timeout = 15000) {
  const end = Date.now() + timeout;
  while (Date.now() < end) {
    try {
      const id = x('search', '--onlyvisible', '--name', name).split('\n')[0];
      if (id) return id;
    } catch { /* not yet */ }
    await sleep(250);
  }
  throw new Error(`no window named “${name}”`);
}

// ---- the app, on a fixed port (the permission and IndexedDB are the origin's) ----
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json' };
const server = http.createServer((req, res) => {
  const p = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/evalboard\//, '') || 'index.html';
  const file = path.join(DIST, p);
  if (!file.startsWith(DIST) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) { res.writeHead(404); res.end(); return; }
  res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
  fs.createReadStream(file).pipe(res);
});
await new Promise((r) => server.listen(PORT, '127.0.0.1', r));
const URL_ = `http://127.0.0.1:${PORT}/evalboard/`;

// ---- the real folder: a QA JSONL the script grows ----
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-real-'));
const folder = path.join(tmp, 'qa-run');
fs.mkdirSync(folder);
const jsonl = path.join(folder, 'run.jsonl');
/** QA turn `i` (every third wrong), as tests/e2e/watch.test.mjs's `qaLines`. */
const turn = (i) => JSON.stringify({
  conversation_id: `café-${i % 3}`, turn_idx: Math.floor(i / 3), question: `¿cuánto? ${i} 🙂`,
  expected: String(10 + i), predicted: i % 3 === 0 ? 11 + i : 10 + i, latency_ms: 100 + i,
}) + '\n';
let written = 0;
const write = (n) => { let s = ''; for (let k = 0; k < n; k++) s += turn(written++); fs.appendFileSync(jsonl, s); };
write(5);

// ---- the browser: spawned (so it can be closed and started again on its profile) ----
const profile = path.join(tmp, 'profile');
let chrome = null;
let browser = null;
let page = null;
const rec = { errors: [] };
async function startBrowser() {
  chrome = spawn(CHROMIUM, ['--no-sandbox', '--test-type', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
    '--no-default-browser-check', '--disable-sync', '--disable-component-update', `--user-data-dir=${profile}`,
    '--remote-debugging-port=9341', '--window-position=0,0', '--window-size=1500,950', 'about:blank'], { env, stdio: 'ignore' });
  for (let i = 0; i < 60 && !browser; i++) {
    await sleep(500);
    browser = await chromium.connectOverCDP('http://127.0.0.1:9341').catch(() => null);
  }
  page = browser.contexts()[0].pages()[0];
  page.on('console', (m) => { if (m.type() === 'error') rec.errors.push(m.text()); });
  page.on('pageerror', (e) => rec.errors.push(String(e)));
  await page.addInitScript(() => localStorage.setItem('evalboard.demo-dismissed', '1'));
  await page.goto(URL_);
  await page.waitForSelector('.eb-watch__pick');
}
async function closeBrowser() {
  const s = await browser.newBrowserCDPSession();
  await s.send('Browser.close').catch(() => {});
  await new Promise((r) => (chrome.exitCode !== null ? r() : chrome.once('exit', r)));
  browser = null;
}
/** The browser window, focused (the permission prompt takes its keys). */
const focusBrowser = async () => x('windowfocus', '--sync', await windowNamed('Chromium'));

// ---- what the page shows ----
const panel = () => page.locator('.eb-watch').innerText();
const waitText = async (text, timeout = 20000) => {
  await page.waitForFunction((t) => document.querySelector('.eb-watch')?.innerText.includes(t), text, { timeout })
    .catch(async (e) => { shot('failed'); throw new Error(`the watch panel never showed “${text}”:\n${await panel()}\n${e}`); });
};
const panelShot = async (name) => {
  await page.locator('.eb-watch').scrollIntoViewIfNeeded();
  await page.locator('.eb-watch').screenshot({ path: path.join(OUT, `${name}.png`) });
};

/** Drives the GTK folder chooser: the path typed in its location bar (ctrl+L), then its accept
 * button (bottom right, "Open"). */
async function chooseFolder(dir, name) {
  const d = await windowNamed('Select a folder this site can view');
  x('windowfocus', '--sync', d);
  x('key', 'ctrl+l');
  await sleep(300);
  x('type', '--delay', '15', dir);
  await sleep(600);
  shot(name);
  const g = Object.fromEntries(x('getwindowgeometry', '--shell', d).split('\n').map((l) => l.split('=')));
  click(+g.X + +g.WIDTH - 50, +g.Y + +g.HEIGHT - 29);
}

const result = [];
const step = (s) => { result.push(s); log('ok:', s); };
try {
  await startBrowser();
  log('Chromium', browser.version(), '·', await page.evaluate(() => navigator.userAgent));
  shot('01-start');

  // 1. Watch a folder…: the native chooser, then "Allow this site to view and copy files?".
  page.click('.eb-watch__pick');
  await chooseFolder(folder, '02-chooser');
  await sleep(1500);
  shot('03-prompt');
  await focusBrowser();
  x('key', 'Tab'); // from "Don't Allow" (the default) to "Allow"
  await sleep(300);
  x('key', 'Return');
  await waitText('run.jsonl: 5 items');
  step('picked a real folder in the GTK chooser and allowed the prompt: run.jsonl: 5 items');

  // 2. The folder grows: whole lines, then a half line (never a problem), then its end.
  const t0 = Date.now();
  write(3);
  await waitText('run.jsonl: 8 items');
  const lag = Date.now() - t0;
  const half = turn(written++);
  fs.appendFileSync(jsonl, half.slice(0, 25));
  await sleep(2500);
  assert.ok(!(await panel()).includes('problem'), 'a half line is no problem');
  fs.appendFileSync(jsonl, half.slice(25));
  await waitText('run.jsonl: 9 items');
  await page.locator('.eb-run__name', { hasText: 'qa-run · so far' }).click();
  await sleep(1500);
  shot('04-running');
  await panelShot('04-panel');
  step(`appended lines (and a half line) to the real file: 9 items (3 lines seen ${lag} ms after their write), ${(await panel()).match(/RUNNING[^\n]*/)?.[0]}`);

  // 3. Reload: the grant holds while a tab of the origin is open.
  await page.reload();
  await page.waitForSelector('.eb-watch__item');
  write(1);
  await waitText('run.jsonl: 10 items');
  step('reloaded: the watch came back with no prompt (the grant holds while the tab is open), 10 items after one more line');

  // 4. Restart the browser: the grant is gone; the watch stops and offers Resume.
  await closeBrowser();
  write(1);
  await startBrowser();
  await waitText('needs your permission again');
  await page.waitForSelector('.eb-watch__item [data-testid="watch-message"] button');
  shot('05-restarted');
  await panelShot('05-panel');
  step(`browser restarted: ${(await panel()).split('\n').find((l) => l.includes('permission'))}`);

  // 5. Resume: Chrome's restore prompt ("View and edit files from the last time…"): allow
  // this time (the bubble takes no keys: clicked, at its place under the address bar).
  page.click('.eb-watch__item [data-testid="watch-message"] button');
  await sleep(1500);
  shot('06-resume-prompt');
  click(280, 293); // "Allow this time"
  await waitText('run.jsonl: 11 items');
  write(2);
  await waitText('run.jsonl: 13 items');
  shot('07-resumed');
  await panelShot('07-panel');
  step('Resume → "Allow this time": the same run watched again, 13 items after two more lines');

  // 6. The permission revoked while watching (Chromium's settings, "File editing" → the site's
  // "Remove"): the watch waits with Resume; Resume → Chromium's first prompt again → Allow.
  const settings = await page.context().newPage();
  await settings.goto('chrome://settings/content/filesystem');
  await settings.locator('#removeGrants').click();
  await sleep(800);
  await settings.screenshot({ path: path.join(OUT, '08-settings-removed.png') });
  await settings.close();
  await page.bringToFront();
  write(1);
  await waitText('was revoked', 30000);
  shot('09-revoked');
  const revoked = (await panel()).split('\n').find((l) => l.includes('revoked'));
  await panelShot('09-panel');
  page.click('.eb-watch__item [data-testid="watch-message"] button');
  await sleep(1500);
  shot('10-revoked-prompt');
  await focusBrowser();
  x('key', 'Tab');
  await sleep(300);
  x('key', 'Return');
  await waitText('run.jsonl: 14 items');
  step(`revoked in chrome://settings/content/filesystem while watching: “${revoked}” then Resume → "Allow": 14 items`);

  // 7. The folder removed: the watch stops with a message; the run keeps its numbers.
  fs.renameSync(folder, `${folder}.moved`);
  await waitText('is gone', 30000);
  shot('11-gone');
  await panelShot('11-panel');
  step(`folder moved away: ${(await panel()).split('\n').find((l) => l.includes('gone'))}`);
  fs.renameSync(`${folder}.moved`, folder);

  // 8. Restart, Resume, "Don't allow": the watch stays stopped, nothing breaks.
  await closeBrowser();
  await startBrowser();
  await waitText('needs your permission again');
  page.click('.eb-watch__item [data-testid="watch-message"] button');
  await sleep(1500);
  click(280, 373); // "Don't allow"
  await sleep(2000);
  shot('12-denied');
  assert.ok((await panel()).includes('STOPPED'), 'still stopped after "Don\'t allow"');
  step('Resume → "Don\'t allow": the watch stays STOPPED with its message');

  // 9. A folder dropped from an X drag source: its handle offered to watch, no picker.
  // (And whether FileSystemObserver takes a dropped folder's handle, asked beside the page.)
  await page.evaluate(() => window.addEventListener('drop', (e) => {
    const item = [...e.dataTransfer.items].find((i) => i.kind === 'file');
    window.__observe = item.getAsFileSystemHandle().then(async (h) => {
      if (typeof FileSystemObserver !== 'function') return 'no FileSystemObserver';
      try { await new FileSystemObserver(() => {}).observe(h, { recursive: true }); return `${h.kind} observed`; } catch (err) { return `${err.name}: ${err.message}`; }
    });
  }, true));
  const drag = spawn('/usr/bin/python3', [path.join(here, 'drag_source.py'), folder, '1300'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((r) => drag.stdout.once('data', r));
  await sleep(500);
  x('mousemove', '1430', '360');
  x('mousedown', '1');
  for (const px of [1400, 1300, 1100, 900, 700]) { x('mousemove', String(px), '450'); await sleep(150); }
  await sleep(400);
  x('mouseup', '1');
  await page.locator('.eb-watch__dropped').waitFor({ timeout: 20000 });
  shot('13-dropped');
  await page.click('.eb-watch__dropped');
  write(1);
  await page.waitForFunction(() => [...document.querySelectorAll('.eb-watch__item')].some((e) => /RUNNING/.test(e.innerText) && /run\.jsonl: 15 items/.test(e.innerText)), null, { timeout: 20000 });
  shot('14-dropped-watch');
  await panelShot('14-panel');
  drag.kill();
  const observed = await page.evaluate(() => window.__observe);
  log('FileSystemObserver on the dropped handle:', observed);
  step(`dropped the real folder from an X drag source: “Watch “qa-run” as it grows” offered and watching with no prompt, 15 items (FileSystemObserver.observe on the dropped handle, beside the page: ${observed}; the watch's state line: ${(await panel()).split('\n').filter((l) => /RUNNING/.test(l)).pop()})`);
  assert.deepEqual(rec.errors, [], 'no console or page error');
} finally {
  console.log(`\n${result.length} steps passed:\n- ${result.join('\n- ')}`);
  if (browser) await closeBrowser().catch(() => {});
  server.close();
  xvfb?.kill();
  fs.rmSync(tmp, { recursive: true, force: true });
}
