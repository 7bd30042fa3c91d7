// Issue 30: watching a folder while a run writes it. A writer in the page appends one numeric-QA
// JSONL turn every 100 ms (10 items/s) to a file of an OPFS folder the dashboard (dist/) watches
// ("Watch a folder…", the picker replaced by one returning the OPFS folder: the real picker cannot
// be driven headless), for SECONDS (default 60).
//
// Usage: node bench/watch_lag.mjs [SECONDS] [--soak[=SECONDS]] [--observer=off] [--dist=DIR]
//
// Measured in the page (addInitScript), all on performance.now():
//   lag        for each item, from the end of its write (the writable closed: the bytes are in the
//              file) to the first moment the watch panel shows a count that includes it (a
//              MutationObserver on the panel's file line, "run.jsonl: N items"); p50 / p95 / max;
//   long tasks every main-thread task ≥ 50 ms (PerformanceObserver 'longtask'): count, longest.
// --soak[=S] (default 300 s): the same writer for S seconds, the main worker's memory sampled
// every 10 s (its wasm memory's byteLength, from the worker's own WebAssembly.Memory, caught by a
// line served before its loader; and V8's JS heap in use, CDP Runtime.getHeapUsage): it must
// grow with the items, not with the rounds — printed as bytes per item over the second half; then
// 60 s of rounds with no new item, whose growth must be nil (the JS heap after a collection).
// --observer=off: FileSystemObserver deleted in the worker (the polling path).
//
// One JSON line per sample (soak), then a summary line.
import { serve, launch, openPage } from '../tests/e2e/lib.mjs';
import { workerSessions } from './lib.mjs';

const args = process.argv.slice(2);
const soakArg = args.find((a) => a.startsWith('--soak'));
const polling = args.includes('--observer=off');
const seconds = soakArg ? Number(soakArg.split('=')[1] || 300) : Number(args.find((a) => !a.startsWith('--')) || 60);
const DIR = 'watch-bench';

const distArg = args.find((a) => a.startsWith('--dist='));
const srv = await serve(distArg ? distArg.slice('--dist='.length) : undefined);
const browser = await launch();
try {
  const { page, context } = await openPage(browser);
  await context.route('**/worker_loader.js', async (route) => {
    const res = await route.fetch();
    // The worker's wasm memory, kept where CDP can read it (the glue keeps it in a closure).
    const hook = `const __i = WebAssembly.instantiate, __s = WebAssembly.instantiateStreaming;
WebAssembly.instantiate = async (...a) => { const r = await __i(...a); self.__ebMemory = (r.instance || r).exports.memory; return r; };
if (__s) WebAssembly.instantiateStreaming = async (...a) => { const r = await __s(...a); self.__ebMemory = r.instance.exports.memory; return r; };
${polling ? 'delete self.FileSystemObserver;' : ''}\n`;
    await route.fulfill({ response: res, body: hook + (await res.text()) });
  });
  const workers = await workerSessions(context, page);
  await page.addInitScript(([dirName]) => {
    localStorage.setItem('evalboard.demo-dismissed', '1');
    window.showDirectoryPicker = async () => (await navigator.storage.getDirectory()).getDirectoryHandle(dirName, { create: true });
    const B = (window.__watch = { long: [], shown: [] });
    new PerformanceObserver((l) => { for (const e of l.getEntries()) B.long.push(e.duration); }).observe({ type: 'longtask', buffered: true });
    // The counts the panel shows, with when each was first seen.
    const look = () => {
      for (const e of document.querySelectorAll('.eb-watch__item [data-field="watch-file"]')) {
        const m = /^run\.jsonl: (\d+) items/.exec(e.textContent);
        const n = m && Number(m[1]);
        if (n && (!B.shown.length || B.shown[B.shown.length - 1][0] < n)) B.shown.push([n, performance.now()]);
      }
    };
    new MutationObserver(look).observe(document, { subtree: true, childList: true, characterData: true });
  }, [DIR]);
  await page.goto(srv.url);
  await page.waitForSelector('.eb-watch__pick');
  await page.evaluate(async (dirName) => {
    const r = await navigator.storage.getDirectory();
    await r.removeEntry(dirName, { recursive: true }).catch(() => {});
    await r.getDirectoryHandle(dirName, { create: true });
  }, DIR);
  await page.click('.eb-watch__pick');
  await page.waitForSelector('.eb-watch__item');

  const memory = async () => {
    const m = await workers.send('Runtime.evaluate', { expression: 'self.__ebMemory ? self.__ebMemory.buffer.byteLength : null', returnByValue: true }, 0);
    // A collection first: the heap in use, not the garbage of the last rounds.
    await workers.send('HeapProfiler.collectGarbage', {}, 0);
    const h = await workers.send('Runtime.getHeapUsage', {}, 0);
    return { wasm_bytes: m.result?.result?.value ?? null, js_heap_used: h.result?.usedSize ?? null };
  };

  // The writer: one turn every 100 ms, each write's end time kept.
  await page.evaluate(([dirName, seconds]) => {
    const B = window.__watch;
    B.written = [];
    B.done = (async () => {
      const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle(dirName);
      const fh = await dir.getFileHandle('run.jsonl', { create: true });
      const t0 = performance.now();
      for (let i = 0; i < seconds * 10; i++) {
        const due = t0 + i * 100;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const expected = 10 + (i % 50);
        const line = JSON.stringify({ conversation_id: `c${Math.floor(i / 5)}`, turn_idx: i % 5, question: `q ${i}`,
          expected: String(expected), predicted: i % 4 === 0 ? expected + 1 : expected, latency_ms: 100 + (i % 17) }) + '\n';
        const size = (await fh.getFile()).size;
        const w = await fh.createWritable({ keepExistingData: true });
        await w.seek(size);
        await w.write(line);
        await w.close();
        B.written.push(performance.now());
      }
    })();
  }, [DIR, seconds]);

  const samples = [];
  const t0 = Date.now();
  if (soakArg) {
    while (Date.now() - t0 < seconds * 1000) {
      await new Promise((r) => setTimeout(r, 10000));
      const items = await page.evaluate(() => window.__watch.shown.at(-1)?.[0] ?? 0);
      const s = { t_s: Math.round((Date.now() - t0) / 1000), items, ...(await memory()) };
      console.log(JSON.stringify(s));
      samples.push(s);
    }
  }
  await page.evaluate(() => window.__watch.done);
  const n = seconds * 10;
  const idle = [];
  if (soakArg) {
    // Then rounds with no new item for 60 s: the memory must not move.
    for (let k = 1; k <= 6; k++) {
      await new Promise((r) => setTimeout(r, 10000));
      const s = { t_s: Math.round((Date.now() - t0) / 1000), idle: true, items: n, ...(await memory()) };
      console.log(JSON.stringify(s));
      idle.push(s);
    }
  }
  await page.waitForFunction((n) => (window.__watch.shown.at(-1)?.[0] ?? 0) >= n, n, { timeout: 60000 });
  const B = await page.evaluate(() => window.__watch);
  const lags = B.written.map((tw, i) => B.shown.find(([k]) => k >= i + 1)[1] - tw).sort((a, b) => a - b);
  const q = (p) => lags[Math.min(lags.length - 1, Math.ceil(p * lags.length) - 1)];
  const summary = {
    bench: soakArg ? 'watch-soak' : 'watch-lag', path: polling ? 'polling' : 'observer', seconds, items: n,
    lag_p50_ms: Math.round(q(0.5)), lag_p95_ms: Math.round(q(0.95)), lag_max_ms: Math.round(lags.at(-1)),
    updates_seen: B.shown.length, long_tasks: B.long.length, longest_task_ms: Math.round(Math.max(0, ...B.long)),
    ...(await memory()),
  };
  if (samples.length >= 4) {
    // Growth per item over the second half (the first includes the worker's start).
    const a = samples[Math.floor(samples.length / 2)];
    const b = samples.at(-1);
    summary.wasm_bytes_per_item_2nd_half = b.items > a.items ? Math.round((b.wasm_bytes - a.wasm_bytes) / (b.items - a.items)) : null;
    summary.wasm_bytes_first = samples[0].wasm_bytes;
    summary.wasm_bytes_last = b.wasm_bytes;
    summary.js_heap_bytes_per_item_2nd_half = b.items > a.items ? Math.round((b.js_heap_used - a.js_heap_used) / (b.items - a.items)) : null;
  }
  if (idle.length) {
    summary.idle_rounds_wasm_growth = idle.at(-1).wasm_bytes - idle[0].wasm_bytes;
    summary.idle_rounds_js_heap_growth = idle.at(-1).js_heap_used - idle[0].js_heap_used;
  }
  console.log(JSON.stringify(summary));
  await context.close();
} finally {
  await browser.close();
  srv.close();
}
