// What the browser benches share: interleaved rounds of modes, and the median.

/** The median of numbers (the mean of the middle two for an even count). */
export const median = (xs) => { const v = [...xs].sort((x, y) => x - y); const k = v.length >> 1; return v.length % 2 ? v[k] : (v[k - 1] + v[k]) / 2; };

/**
 * `rounds` interleaved rounds: in each, every mode in order, `measure(mode)` giving its row
 * (this machine's speed drifts minute to minute, so modes compared are measured side by side).
 * Each row gets its round, is printed as a JSON line, and all are returned.
 */
export async function interleaved(rounds, modes, measure) {
  const rows = [];
  for (let r = 1; r <= rounds; r++) {
    for (const m of modes) {
      const row = await measure(m);
      row.round = r;
      console.log(JSON.stringify(row));
      rows.push(row);
    }
  }
  return rows;
}

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { root, dist } from '../tests/e2e/lib.mjs';

/**
 * A temporary copy of dist/ whose worker keeps its function names (for a CPU profile): the
 * worker.wasm cargo left in the target dir (`make dist` / `trunk build`) through wasm-bindgen
 * --keep-debug, then wasm-opt with index.html's flags plus -g. Returns the folder (the caller
 * removes it).
 */
export function namedWorkerDist() {
  const named = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-prof-'));
  fs.cpSync(dist, named, { recursive: true });
  const bindgen = path.join(named, '.bindgen');
  const wasmOpt = [path.join(root, 'tools/node_modules/.bin/wasm-opt'), 'wasm-opt'].find((p) => p === 'wasm-opt' || fs.existsSync(p));
  const html = fs.readFileSync(path.join(root, 'index.html'), 'utf8');
  const params = (html.match(/data-bin="worker"[^>]*data-wasm-opt-params="([^"]*)"/) || [, ''])[1].split(/\s+/).filter(Boolean);
  const target = path.resolve(root, process.env.CARGO_TARGET_DIR || 'target');
  execFileSync('wasm-bindgen', ['--target=no-modules', `--out-dir=${bindgen}`, '--out-name=worker', '--keep-debug', '--no-typescript',
    path.join(target, 'wasm32-unknown-unknown/release/worker.wasm')], { stdio: 'inherit' });
  execFileSync(wasmOpt, ['-Oz', '-g', ...params, `--output=${path.join(named, 'worker_bg.wasm')}`, path.join(bindgen, 'worker_bg.wasm')], { stdio: 'inherit' });
  fs.copyFileSync(path.join(bindgen, 'worker.js'), path.join(named, 'worker.js'));
  return named;
}

/**
 * Watches the workers `page` starts (CDP auto-attach, non-flat sessions: messages to a worker go
 * through Target.sendMessageToTarget). Call before the worker starts; `send(method, params)`
 * then talks to the last worker attached.
 */
export async function workerSessions(context, page) {
  const cdp = await context.newCDPSession(page);
  const attached = [];
  const pending = new Map();
  let id = 0;
  cdp.on('Target.attachedToTarget', (e) => { if (e.targetInfo.type === 'worker') attached.push(e); });
  cdp.on('Target.receivedMessageFromTarget', (e) => {
    const m = JSON.parse(e.message);
    if (pending.has(m.id)) { pending.get(m.id)(m); pending.delete(m.id); }
  });
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
  return {
    count: () => attached.length,
    send: (method, params = {}, at = attached.length - 1) => new Promise((resolve, reject) => {
      const w = attached[at];
      if (!w) { reject(new Error('no worker attached')); return; }
      pending.set(++id, resolve);
      cdp.send('Target.sendMessageToTarget', { sessionId: w.sessionId, message: JSON.stringify({ id, method, params }) });
    }),
  };
}

/** Prints a V8 CPU profile's functions with the most self and inclusive time (`k` of each). */
export function printProfile(prof, k = 30) {
  // A sample's time is the gap to the next one.
  const nodes = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const dt = [...prof.timeDeltas.slice(1), 0];
  const self = new Map();
  const incl = new Map();
  const add = (m, key, v) => m.set(key, (m.get(key) || 0) + v);
  const name = (n) => n.callFrame.functionName || `(anonymous ${n.callFrame.url.split('/').pop()})`;
  let total = 0;
  prof.samples.forEach((s, i) => {
    add(self, name(nodes.get(s)), dt[i]);
    if (name(nodes.get(s)) !== '(idle)') total += dt[i];
    const seen = new Set();
    for (let n = s; nodes.has(n); n = parent.get(n)) {
      const f = name(nodes.get(n));
      if (!seen.has(f)) { seen.add(f); add(incl, f, dt[i]); }
    }
  });
  const top = (m) => [...m].filter(([f]) => f !== '(idle)' && f !== '(root)').sort((a, b) => b[1] - a[1]).slice(0, k);
  console.log(`${(total / 1000).toFixed(0)} ms sampled off idle`);
  console.log('-- self time');
  for (const [f, us] of top(self)) console.log(`${(us / 1000).toFixed(1).padStart(8)} ms  ${f.slice(0, 140)}`);
  console.log('-- inclusive time');
  for (const [f, us] of top(incl)) console.log(`${(us / 1000).toFixed(1).padStart(8)} ms  ${f.slice(0, 140)}`);
}
