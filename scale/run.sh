#!/usr/bin/env bash
# The scale-out flow (issue 27 §4, docs/scale.md): `scale/run.sh SIZE WORKERS [ENGINE]`.
#   SIZE    small: 16 runs x 200 items, 8 shards, debug build (make test-scale, in make test);
#           full: 200 runs x 10,000 items (2M samples), 16 shards, release build (bench/run.sh scale)
#   WORKERS worker processes of the map step (Ray: ray.init(num_cpus=WORKERS); Spark: local[WORKERS])
#   ENGINE  ray (default) or spark (bench only: pyspark + Debian's Java, scale/spark_flow.py)
# The history is generated once (evalboard-bench gen history) into $SCALE_OUT (default
# $CARGO_TARGET_DIR/scale/SIZE), with the unsharded reference (score, compare, export) beside it;
# each call rewrites the lake. Python from the one test venv (scripts/test-venv.sh: ray[data],
# duckdb, pyarrow). Exit non-zero on any mismatch, naming it.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIZE=${1:-small} WORKERS=${2:-2} ENGINE=${3:-ray}
case "$SIZE" in
  small) RUNS=16 ITEMS=200 SHARDS=8 PROFILE=debug BUILD=() ;;
  full) RUNS=200 ITEMS=10000 SHARDS=16 PROFILE=release BUILD=(--release) ;;
  *) echo "usage: scale/run.sh small|full WORKERS [ray|spark]" >&2; exit 2 ;;
esac
cd "$ROOT"
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
cargo build "${BUILD[@]}" --locked -q -p evalboard-cli -p evalboard-bench
BIN=$TARGET/$PROFILE
OUT=${SCALE_OUT:-$TARGET/scale/$SIZE}
HIST=$OUT/history-${RUNS}x$ITEMS
if [ ! -f "$HIST/done" ]; then
  rm -rf "$HIST" "$OUT/work"
  "$BIN/evalboard-bench" gen history "$RUNS" "$ITEMS" "$HIST"
  touch "$HIST/done"
fi
VENV=$(scripts/test-venv.sh)
"$VENV/bin/python" "scale/${ENGINE}_flow.py" "$BIN/evalboard" "$HIST" "$OUT/lake" "$OUT/work" \
  --workers "$WORKERS" --shards "$SHARDS"
if [ "$SIZE" = small ]; then
  # The checks themselves: a lake with one verdict flipped must fail them.
  "$VENV/bin/python" scale/flow.py selftest "$BIN/evalboard" "$HIST" "$OUT/lake" "$OUT/work"
fi
