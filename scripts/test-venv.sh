#!/usr/bin/env bash
# Prints the path of the one test-only Python virtual environment (target/test-venv, or
# $TEST_VENV), creating it or installing tests/python/requirements.txt into it when that file
# changed since the last install (a stamp holds its hash). Tests, benchmarks and fixture
# generators all reuse it, so a fresh clone installs each package once.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${TEST_VENV:-$ROOT/target/test-venv}
REQ=$ROOT/tests/python/requirements.txt
STAMP=$VENV/.requirements.sha256
WANT=$(sha256sum "$REQ" | cut -d' ' -f1)
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]; then
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV" >&2
  "$VENV/bin/pip" install -q --disable-pip-version-check -r "$REQ" >&2
  echo "$WANT" > "$STAMP"
fi
echo "$VENV"
