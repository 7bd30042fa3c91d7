#!/usr/bin/env bash
# `make test-lake`: a small lake exported from the compare fixtures, read back by pyarrow and
# DuckDB (from PyPI, in the one test-only virtual environment of scripts/test-venv.sh),
# with row counts and per-run / per-pair numbers from SQL checked against `evalboard score
# --json` and `evalboard compare --json` on the original runs (tests/lake/check_lake.py).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VENV=$("$ROOT/scripts/test-venv.sh")
cd "$ROOT"
cargo build --locked -q -p evalboard-cli
EVALBOARD=${CARGO_TARGET_DIR:-$ROOT/target}/debug/evalboard
"$VENV/bin/python" tests/lake/check_lake.py "$EVALBOARD" tests/fixtures/compare
