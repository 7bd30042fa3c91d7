#!/usr/bin/env bash
# evalboard benchmark: synthetic runs → native timing (100k traces, 100k JSONL, 1M JSONL), the
# Python baseline on the same trace folder, and the wasm engine in headless Chromium (dist/ worker).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=bench/out
mkdir -p "$OUT"
cargo build --release --locked -p evalboard-bench -q
B=target/release/evalboard-bench
[ -d "$OUT/traces100k" ] || $B gen traces 100000 "$OUT/traces100k"
[ -f "$OUT/run100k.jsonl" ] || $B gen jsonl 100000 "$OUT/run100k.jsonl"
[ -f "$OUT/run1m.jsonl" ] || $B gen jsonl 1000000 "$OUT/run1m.jsonl"

echo "== native (parse + score + aggregate; input already in memory)"
for p in "$OUT/traces100k" "$OUT/run100k.jsonl" "$OUT/run1m.jsonl"; do
  $B time "$p" | tee -a "$OUT/native.jsonl"
done

echo "== python baseline (json module + doc-v1 rules) on the 100k trace folder"
python3 bench/baseline.py "$OUT/traces100k" | tee "$OUT/python.json"
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
native = [json.loads(l) for l in open(f"{out}/native.jsonl")][-3:]
py = json.load(open(f"{out}/python.json"))
t = native[0]
print(f"traces100k: evalboard {t['read_plus_total_s']:.3f}s (read {t['read_s']:.3f}s + parse/score {t['total_s']:.3f}s) vs python {py['total_s']:.3f}s (read+parse+score) -> {py['total_s']/t['read_plus_total_s']:.1f}x faster (target >= 8x)")
print(f"jsonl100k: {native[1]['total_s']:.3f}s (target <= 0.3s); jsonl1M: {native[2]['total_s']:.3f}s (target <= 3s)")
for n in native:
    print(f"  {n['path']}: {n['turns_per_s']:.0f} turns/s, peak memory {n['peak_over_input']:.2f}x input")
PY

echo "== wasm (the dashboard's worker, headless Chromium)"
if [ -d dist ]; then
  node bench/wasm.mjs "$OUT/run100k.jsonl" "$OUT/native.jsonl"
else
  echo "dist/ missing: run 'make dist' first for the wasm numbers"
fi
