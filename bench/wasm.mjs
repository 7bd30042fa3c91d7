// Times the wasm engine (the dashboard's Web Worker, built in dist/) on a run file in headless
// Chromium: posts a Load request with the file's bytes and reads the worker's own timing.
// Usage: node bench/wasm.mjs RUN.jsonl [native.jsonl]
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, openPage } from '../tests/e2e/lib.mjs';

const [file, nativeLog] = process.argv.slice(2);
const bytes = fs.readFileSync(file);
const srv = await serve();
const browser = await launch();
try {
  const { page } = await openPage(browser);
  await page.route('**/bench-input', (route) => route.fulfill({ body: bytes, contentType: 'application/octet-stream' }));
  await page.goto(srv.url + 'index.html');
  const result = await page.evaluate(async ({ name }) => {
    const buf = await (await fetch('./bench-input')).arrayBuffer();
    const w = new Worker('./worker_loader.js');
    const msg = (pred) => new Promise((resolve) => {
      const h = (e) => { const m = JSON.parse(e.data); if (pred(m)) { w.removeEventListener('message', h); resolve(m); } };
      w.addEventListener('message', h);
    });
    await msg((m) => m.type === 'ready');
    const t0 = performance.now();
    const done = msg((m) => m.type === 'loaded' || m.type === 'load_failed');
    w.postMessage([JSON.stringify({ type: 'load', run_id: 1, name, paths: [name], demo: false }), [buf]], [buf]);
    const m = await done;
    return { wall_ms: performance.now() - t0, msg: m };
  }, { name: path.basename(file) });
  const info = result.msg.info || {};
  const out = {
    file, turns: info.n_turns, worker_ms: info.load_ms, wall_ms: result.wall_ms,
    turns_per_s: info.n_turns / (info.load_ms / 1000), wasm_memory_bytes: info.wasm_memory_bytes ?? null,
    input_bytes: bytes.length,
  };
  if (out.wasm_memory_bytes) out.memory_over_input = out.wasm_memory_bytes / bytes.length;
  // The worker's load also copies the transferred buffers and SHA-256-hashes them (the report's
  // provenance), which the native engine timing does not do: compare parse + score with parse + score.
  const stages = Object.fromEntries(info.stage_ms || []);
  out.stage_ms = stages;
  if (stages.parse !== undefined && stages.score !== undefined) out.engine_ms = stages.parse + stages.score;
  if (nativeLog && fs.existsSync(nativeLog)) {
    const native = fs.readFileSync(nativeLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
      .filter((n) => n.path === file && (n.threads ?? 1) === 1).pop();
    if (native) {
      out.worker_load_over_native_total = (info.load_ms / 1000) / native.total_s;
      if (out.engine_ms !== undefined) {
        out.wasm_over_native = (out.engine_ms / 1000) / (native.parse_s + native.score_s);
      }
    }
  }
  console.log(JSON.stringify(out));
  if (result.msg.type !== 'loaded') process.exitCode = 1;
} finally {
  await browser.close();
  srv.close();
}
