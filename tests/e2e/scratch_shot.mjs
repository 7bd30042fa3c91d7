import path from 'node:path';
import { serve, launch, openPage, folderPayload, dropFiles, root } from './lib.mjs';
const LOGS = path.join(root, 'tests', 'fixtures', 'evallog', 'runs');
const srv = await serve(undefined, '/evalboard/');
const browser = await launch();
const { page } = await openPage(browser, { viewport: { width: 390, height: 844 } });
await page.goto(srv.url);
await page.waitForSelector('[data-metric="numerical_accuracy"]', { timeout: 30000 });
for (const d of ['inspect_repeats_a', 'inspect_repeats_b']) {
  await dropFiles(page, '.eb-app', folderPayload(path.join(LOGS, d)));
  await page.waitForFunction((n) => [...document.querySelectorAll('.eb-run')].find((r) => r.querySelector('.eb-run__name')?.textContent.trim() === n)?.querySelector('.eb-run__acc'), d, { timeout: 60000 });
}
await page.evaluate(() => { location.hash = '#run=inspect_repeats_b&tab=compare'; });
await page.waitForSelector('[data-table="compare-items"] tbody tr', { timeout: 30000 });
const out = '/tmp/h26a/shots';
for (const [sel, name] of [['[data-table="compare-metrics"]', 'metrics'], ['[data-section="compare-slices"]', 'slices'], ['[data-table="compare-items"]', 'items'], ['.eb-cards', 'cards'], ['[data-section="run-metadata"]', 'meta']]) {
  const el = page.locator(sel).first();
  await el.screenshot({ path: `${out}/${name}.png` });
}
console.log('doc', await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]));
await browser.close(); srv.close();
