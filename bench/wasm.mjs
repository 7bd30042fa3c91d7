// Times the wasm engine (the dashboard's Web Worker, built in dist/) on a run file in headless
// Chromium: posts a Load request with the file's bytes and reads the worker's own timing.
// Usage: node bench/wasm.mjs RUN.jsonl [native.jsonl] [REPS (default 3)] [--blank] [--same-worker] [--buffer]
// RUN may be any file the dashboard reads: an Inspect `.eval` log is timed the same way, its
// `engine_ms` the worker's "parse + score" stage (an eval log is read and scored in one step);
// `turns` is then its samples (RunInfo.n_turns: a run's items).
//
// By default the loads happen as a user's drops do: on the dashboard (demo workspace dismissed),
// a second after it opened, each into a fresh worker of the same page — V8 shares a module's
// compiled code between the workers of a page, so they run the code the dashboard's own worker
// compiled and warmed up at start (src/warmup.rs). `--blank` loads from a blank page instead:
// every worker then compiles the module afresh and each load includes V8's compilation.
// `--same-worker` makes every load after the first go into the first load's worker (its run
// removed first), as a user's later drops into the dashboard's one worker do: that memory has
// been touched already, where a fresh worker pays a page fault per 4 KB of wasm memory it grows
// into (~15 ms of a 100k-turn parse; docs/performance.md, session 5).
import fs from 'node:fs';
import path from 'node:path';
import { serve, launch, openPage } from '../tests/e2e/lib.mjs';

const args = process.argv.slice(2);
const blank = args.includes('--blank');
const sameWorker = args.includes('--same-worker');
// --buffer: post the bytes as a transferred ArrayBuffer (as the demo's fetched assets go), which
// the worker copies whole, instead of a File, which it reads (and streams when over 16 MB).
const asBuffer = args.includes('--buffer');
const [file, nativeLog, repsArg] = args.filter((a) => !a.startsWith('--'));
const reps = Math.max(1, Number(repsArg) || 3);
const bytes = fs.readFileSync(file);
const srv = await serve();
const browser = await launch();
try {
  const { page } = await openPage(browser);
  await page.route('**/bench-input', (route) => route.fulfill({ body: bytes, contentType: 'application/octet-stream' }));
  if (blank) {
    await page.route('**/bench.html', (route) => route.fulfill({ body: '<!doctype html><title>bench</title>', contentType: 'text/html' }));
    await page.goto(srv.url + 'bench.html');
  } else {
    // No demo workspace: it would be loading while the benchmark runs.
    await page.addInitScript(() => localStorage.setItem('evalboard.demo-dismissed', '1'));
    await page.goto(srv.url + 'index.html');
    await page.waitForTimeout(1000);
  }
  const result = await page.evaluate(async ({ name, reps, sameWorker, asBuffer }) => {
    // The worker speaks postcard (src/protocol.rs): varints, length-prefixed UTF-8, fields in
    // declaration order, enum variants by index. Just enough of it to send a Load and read the
    // RunInfo prefix of its answer.
    const enc = new TextEncoder();
    const dec = new TextDecoder();
    const out = [];
    const varint = (n) => { do { let b = n % 128; n = Math.floor(n / 128); out.push(n ? b | 128 : b); } while (n); };
    const str = (s) => { const b = enc.encode(s); varint(b.length); out.push(...b); };
    varint(0); varint(1); str(name); varint(1); str(name); out.push(0, 0); // Request::Load { run_id: 1, name, paths: [name], demo: false, stored: None }
    const load = new Uint8Array(out);
    const reader = (bytes) => {
      let i = 0;
      const r = {
        varint: () => { let n = 0; let m = 1; for (;;) { const b = bytes[i++]; n += (b & 127) * m; m *= 128; if (b < 128) return n; } },
        str: () => { const n = r.varint(); const s = dec.decode(bytes.subarray(i, i + n)); i += n; return s; },
        bool: () => bytes[i++] === 1,
        f64: () => { const v = new DataView(bytes.buffer, bytes.byteOffset + i, 8).getFloat64(0, true); i += 8; return v; },
        opt: (f) => (bytes[i++] ? f() : null),
        vec: (f) => Array.from({ length: r.varint() }, f),
      };
      return r;
    };
    // Response variants: 0 Ready, 1 Progress, 2 Loaded, 3 LoadFailed.
    const TYPES = ['ready', 'progress', 'loaded', 'load_failed'];
    // RunInfo.family: the Family enum's variant index (engine::family::Family, declaration order).
    const FAMILIES = ['numeric-qa', 'codegen', 'evalset', 'eval-log'];
    const decode = (bytes) => {
      const r = reader(bytes);
      const type = TYPES[r.varint()] || 'other';
      if (type !== 'loaded') return { type };
      const info = {
        run_id: r.varint(), name: r.str(), demo: r.bool(), family: FAMILIES[r.varint()],
        n_conversations: r.varint(), n_turns: r.varint(),
      };
      // files: InputFileReport { path, bytes, format?, status, reason? }
      r.vec(() => [r.str(), r.varint(), r.opt(r.str), r.varint(), r.opt(r.str)]);
      // diagnostics: Diagnostic { severity, file, line?, record?, message }
      r.vec(() => [r.varint(), r.str(), r.opt(r.varint), r.opt(r.str), r.str()]);
      info.headline = r.opt(r.f64);
      info.load_ms = r.f64();
      info.wasm_memory_bytes = r.opt(r.varint);
      // stage_ms: Vec<(String, f64)>
      info.stage_ms = r.vec(() => [r.str(), r.f64()]);
      return { type, info };
    };
    // Each repetition loads the file into a fresh worker (a cold wasm instance, as a first drop),
    // or with --same-worker into the first repetition's worker.
    const runs = [];
    for (let k = 0; k < reps; k++) {
      const buf = await (await fetch('./bench-input')).arrayBuffer();
      const tw = performance.now();
      const reuse = sameWorker && k > 0;
      const w = reuse ? window.__ebWorker : new Worker('./worker_loader.js');
      window.__ebWorker = w;
      const msg = (pred) => new Promise((resolve) => {
        const h = (e) => { const m = decode(e.data); if (pred(m)) { w.removeEventListener('message', h); resolve(m); } };
        w.addEventListener('message', h);
      });
      // Request::Remove { run_id: 1 } (variant 2) in a reused worker; a fresh one says Ready.
      if (reuse) w.postMessage(new Uint8Array([2, 1]));
      else await msg((m) => m.type === 'ready');
      const t0 = performance.now();
      const readyMs = reuse ? null : t0 - tw;
      const done = msg((m) => m.type === 'loaded' || m.type === 'load_failed');
      // As a drop does: the page posts the File and the worker reads it (FileReaderSync).
      if (asBuffer) w.postMessage([load, [buf]], [buf]);
      else w.postMessage([load, [new File([buf], name)]]);
      const m = await done;
      runs.push({ wall_ms: performance.now() - t0, ready_ms: readyMs, msg: m });
      if (!sameWorker) w.terminate();
    }
    return runs;
  }, { name: path.basename(file), reps, sameWorker, asBuffer });
  // One line per repetition, then a summary line: the median run's numbers (by parse + score)
  // with the ranges over all repetitions.
  const median = (xs) => { const v = [...xs].sort((x, y) => x - y); return v[Math.floor((v.length - 1) / 2)]; };
  const range = (xs) => [Math.min(...xs), Math.max(...xs)];
  let native = null;
  if (nativeLog && fs.existsSync(nativeLog)) {
    // Every one-thread native run of this file in the log; their median parse + score.
    const rows = fs.readFileSync(nativeLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
      .filter((n) => n.path === file && (n.threads ?? 1) === 1 && (n.mode ?? 'in-memory') === 'in-memory');
    if (rows.length) {
      const engine = rows.map((n) => n.parse_s + n.score_s);
      native = { runs: rows.length, engine_s: median(engine), engine_s_range: range(engine),
        parse_s: median(rows.map((n) => n.parse_s)), score_s: median(rows.map((n) => n.score_s)),
        total_s: median(rows.map((n) => n.total_s)) };
    }
  }
  const outs = result.map((r) => {
    const info = r.msg.info || {};
    const out = {
      file, family: info.family, turns: info.n_turns, worker_ms: info.load_ms, wall_ms: r.wall_ms,
      // From `new Worker` to its Ready: fetching and compiling the wasm, and the warm-up.
      worker_ready_ms: r.ready_ms,
      turns_per_s: info.n_turns / (info.load_ms / 1000), wasm_memory_bytes: info.wasm_memory_bytes ?? null,
      input_bytes: bytes.length,
    };
    if (out.wasm_memory_bytes) out.memory_over_input = out.wasm_memory_bytes / bytes.length;
    // The worker's load also copies the transferred buffers and SHA-256-hashes them (the report's
    // provenance), which the native engine timing does not do: compare parse + score with parse + score.
    const stages = Object.fromEntries(info.stage_ms || []);
    out.stage_ms = stages;
    if (stages.parse !== undefined && stages.score !== undefined) out.engine_ms = stages.parse + stages.score;
    // An eval log (an Inspect .eval, lm-eval, …) is read and scored in one step.
    else if (stages['parse + score'] !== undefined) out.engine_ms = stages['parse + score'];
    if (native) {
      out.worker_load_over_native_total = (info.load_ms / 1000) / native.total_s;
      if (out.engine_ms !== undefined) out.wasm_over_native = (out.engine_ms / 1000) / native.engine_s;
    }
    console.log(JSON.stringify(out));
    if (r.msg.type !== 'loaded') process.exitCode = 1;
    return out;
  });
  const ok = outs.filter((o) => o.engine_ms !== undefined);
  if (ok.length) {
    const mid = ok.find((o) => o.engine_ms === median(ok.map((o) => o.engine_ms)));
    const summary = { summary: true, reps: ok.length, ...mid, engine_ms_range: range(ok.map((o) => o.engine_ms)) };
    for (const st of Object.keys(mid.stage_ms)) summary[`${st}_ms_range`] = range(ok.map((o) => o.stage_ms[st]));
    if (native) {
      summary.native = native;
      summary.wasm_over_native_range = range(ok.map((o) => o.wasm_over_native));
    }
    console.log(JSON.stringify(summary));
  }
} finally {
  await browser.close();
  srv.close();
}
