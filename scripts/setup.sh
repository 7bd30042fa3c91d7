#!/usr/bin/env bash
# Installs everything evalboard needs that a fresh machine lacks. Idempotent: each step is skipped
# when the exact version is already present. Sources: rustup (wasm target), crates.io (trunk,
# wasm-bindgen-cli), npm (binaryen's wasm-opt, playwright-core), Debian (chromium, chromedriver,
# poppler-utils and firefox-esr for the HTML report's tests).
# See ../shared/TOOLCHAIN.md for why each version is pinned.
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
BINARYEN_VERSION=132.0.0
# wasm-bindgen-cli must match the wasm-bindgen crate in Cargo.lock exactly.
WB_VERSION=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/,""); print; exit}' Cargo.lock 2>/dev/null || true)
WB_VERSION=${WB_VERSION:-0.2.130}

log() { printf '\033[1;34m[setup]\033[0m %s\n' "$*" >&2; }

export PATH="$HOME/.cargo/bin:$PWD/tools/node_modules/.bin:$PATH"

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  log "adding rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
if ! rustup component list --installed 2>/dev/null | grep -q '^clippy'; then rustup component add clippy || true; fi
if ! rustup component list --installed 2>/dev/null | grep -q '^rustfmt'; then rustup component add rustfmt || true; fi

if ! (trunk --version 2>/dev/null | grep -q "$TRUNK_VERSION"); then
  log "installing trunk $TRUNK_VERSION (takes ~8 min on 2 cores)"
  cargo install trunk --version "$TRUNK_VERSION" --locked
fi

if ! (wasm-bindgen --version 2>/dev/null | grep -q "$WB_VERSION"); then
  log "installing wasm-bindgen-cli $WB_VERSION (takes ~3 min)"
  # no --locked: its lockfile pins a crate version the registry mirror lacks
  cargo install wasm-bindgen-cli --version "$WB_VERSION"
fi

if [ ! -x tools/node_modules/.bin/wasm-opt ] || [ ! -d tools/node_modules/playwright-core ] || [ ! -d tools/node_modules/terser ] || [ ! -d tools/node_modules/csso ]; then
  log "installing node tools (binaryen $BINARYEN_VERSION, playwright-core, terser, csso) into tools/"
  (cd tools && npm ci --no-audit --no-fund --loglevel=error)
fi

if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  log "installing chromium + chromium-driver (apt)"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# The HTML report's tests: pdftoppm renders the printed PDF's pages (poppler-utils); firefox-esr
# takes a headless screenshot as a second-browser smoke test (skipped with a note when absent).
if ! command -v pdftoppm >/dev/null || ! command -v firefox-esr >/dev/null; then
  log "installing poppler-utils + firefox-esr (apt) for the report tests"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq poppler-utils firefox-esr >/dev/null
fi

# The lake worker's Parquet reader links zstd's C library (zstd-sys): for wasm32 it is compiled by
# clang and archived by llvm-ar (.cargo/config.toml names them for wasm32-unknown-unknown).
if ! command -v clang >/dev/null || ! command -v llvm-ar >/dev/null; then
  log "installing clang + llvm (apt) for the lake worker's zstd"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang llvm >/dev/null
fi

# The one test-only Python venv (scripts/test-venv.sh: pyarrow, DuckDB, inspect-ai, Ray from
# PyPI, for the lake, scale-out and watch tests) needs Debian's venv module (ensurepip).
if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  log "installing python3-venv (apt) for the test venv"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
fi

# `make test` builds native tests, wasm tests and three release wasm binaries: a fresh clone's
# target dir grows to ~20 GB. Say so up front rather than fail later with a bare rustc exit status.
TARGET_FS=${CARGO_TARGET_DIR:-target}; [ -d "$TARGET_FS" ] || TARGET_FS=.
FREE_GB=$(df -Pk "$TARGET_FS" 2>/dev/null | awk 'NR==2{print int($4/1048576)}')
if [ -n "${FREE_GB:-}" ] && [ "$FREE_GB" -lt 20 ]; then
  log "warning: only ${FREE_GB} GB free under $TARGET_FS; a full build wants ~20 GB (a full disk shows up as a failed cargo call)"
fi

log "toolchain ready: $(trunk --version), wasm-bindgen $(wasm-bindgen --version | awk '{print $2}'), wasm-opt $(wasm-opt --version | head -1)"
