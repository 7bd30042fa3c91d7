#!/usr/bin/env bash
# `bench/run.sh lake` (issue 27, Must hold): `evalboard export --lake` against `evalboard score
# --json` on the same 100k-turn numeric QA JSONL (bound: 3x), against the pyarrow floor — the
# lake just written read into pyarrow Tables and written again with zstd, timed around
# `pq.write_table` only (bench/lake_floor.py; bound: 1.5x) — and its peak RSS against the input's
# size (bound: 2x). 3 interleaved rounds, medians; wall time and CPU time (user + sys: on a shared
# machine the wall time also counts waiting for a core). pyarrow and DuckDB come from the test venv
# of scripts/test-venv.sh (target/test-venv, created when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=bench/out
mkdir -p "$OUT"
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release --locked -q -p evalboard-bench -p evalboard-cli
E=$TARGET/release/evalboard
IN="$OUT/run100k.jsonl"
[ -f "$IN" ] || "$TARGET/release/evalboard-bench" gen jsonl 100000 "$IN"
VENV=$(scripts/test-venv.sh)
LAKE="$OUT/lake100k"
: > "$OUT/lake-times.txt"
for i in 1 2 3; do
  /usr/bin/time -f "score %e %U %S %M" "$E" score "$IN" --json > /dev/null 2>> "$OUT/lake-times.txt"
  rm -rf "$LAKE"
  /usr/bin/time -f "export %e %U %S %M" "$E" export --lake "$LAKE" "$IN" 2>&1 >/dev/null \
    | grep '^export ' >> "$OUT/lake-times.txt"
done
FLOOR=$("$VENV/bin/python" bench/lake_floor.py "$LAKE" 3)
python3 - "$OUT/lake-times.txt" "$IN" "$FLOOR" "$(nproc)" <<'PY'
import json, os, statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.split() and l.split()[0] in ("score", "export")]
med = lambda k, f: statistics.median(f(r) for r in rows if r[0] == k)
wall = lambda r: float(r[1]); cpu = lambda r: float(r[2]) + float(r[3]); rss = lambda r: int(r[4]) * 1024
fl = json.loads(sys.argv[3])
floor, floor_cpu = fl["pyarrow_write_s"], fl.get("pyarrow_write_cpu_s")
size = os.path.getsize(sys.argv[2])
out = {
    "cores": int(sys.argv[4]),
    "input_mb": round(size / 1e6, 1),
    "score_wall_s": med("score", wall), "score_cpu_s": round(med("score", cpu), 2),
    "export_wall_s": med("export", wall), "export_cpu_s": round(med("export", cpu), 2),
    "pyarrow_floor_s": floor, "pyarrow_floor_cpu_s": floor_cpu,
    "score_peak_mb": round(med("score", rss) / 1e6), "export_peak_mb": round(med("export", rss) / 1e6),
}
out["export_over_score_wall"] = round(out["export_wall_s"] / out["score_wall_s"], 2)
out["export_over_score_cpu"] = round(out["export_cpu_s"] / out["score_cpu_s"], 2)
out["export_over_pyarrow_floor"] = round(out["export_wall_s"] / floor, 2)
out["export_over_pyarrow_floor_cpu"] = round(out["export_cpu_s"] / floor_cpu, 2) if floor_cpu else None
out["export_peak_over_input"] = round(med("export", rss) / size, 2)
print(json.dumps(out))
print(f"export --lake / score: {out['export_over_score_wall']}x wall, {out['export_over_score_cpu']}x CPU (bound 3x); "
      f"/ pyarrow floor: {out['export_over_pyarrow_floor']}x wall, {out['export_over_pyarrow_floor_cpu']}x CPU (bound 1.5x); peak / input: {out['export_peak_over_input']}x (bound 2x; score alone: "
      f"{round(med('score', rss) / size, 2)}x)")
PY
