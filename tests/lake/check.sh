#!/usr/bin/env bash
# `make test-lake`: a small lake exported from the compare fixtures, read back by pyarrow and
# DuckDB (from PyPI, in one test-only virtual environment, created here when missing and reused),
# with row counts and per-run / per-pair numbers from SQL checked against `evalboard score
# --json` and `evalboard compare --json` on the original runs (tests/lake/check_lake.py).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VENV=${LAKE_VENV:-$ROOT/target/lake-venv}
REQUIREMENTS=(pyarrow==26.0.1 duckdb==2.0.1)
if ! "$VENV/bin/python" -c 'import pyarrow, duckdb' 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "${REQUIREMENTS[@]}"
fi
cd "$ROOT"
cargo build --locked -q -p evalboard-cli
EVALBOARD=${CARGO_TARGET_DIR:-$ROOT/target}/debug/evalboard
"$VENV/bin/python" tests/lake/check_lake.py "$EVALBOARD" tests/fixtures/compare
