#!/usr/bin/env bash
# `bench/run.sh scale` (issue 27 §4, Must hold): the scale-out flow's full case (scale/run.sh full:
# 200 runs x 10,000 items = 2M samples, 16 shards) on a local Ray cluster with 1, 2 and 4 worker
# processes, wall time of the map step and of the whole flow, with the core count (on 2 cores:
# expect >= 1.6x from 1 to 2 workers and nothing beyond); then the map step on Spark in local mode
# (pyspark from bench/requirements-spark.txt into the test venv, Debian's Java) with 1 and 2
# executor threads, and the reduce in Spark SQL too (Java: Debian's openjdk-17-jre-headless, installed
# here when missing). Every run checks every number
# (scale/flow.py). One JSON line per run in bench/out/scale.jsonl (the whole output in scale.log).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=bench/out
export SCALE_OUT=$OUT/scale
: > "$OUT/scale.log"
# One flow: its output (less Ray's and Spark's INFO/WARN lines) on the console and in scale.log.
flow() { bash scale/run.sh full "$1" "$2" 2>&1 | grep -v ' INFO \|WARN\|^Token' | tee -a "$OUT/scale.log"; }
echo "cores (nproc): $(nproc); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for w in 1 2 4; do flow "$w" ray; done
VENV=$(scripts/test-venv.sh)
# Spark needs a Java runtime: Debian's, installed here (bench only, so make test's fresh clone does
# not pay for it; scripts/setup.sh leaves it out).
if ! command -v java >/dev/null; then
  echo "installing openjdk-17-jre-headless (apt) for the Spark map step"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq openjdk-17-jre-headless >/dev/null; } || true
fi
if ! command -v java >/dev/null; then
  echo "spark: skipped: no Java runtime, and apt-get could not install openjdk-17-jre-headless"
else
  "$VENV/bin/pip" install -q --disable-pip-version-check -r bench/requirements-spark.txt
  for w in 1 2; do flow "$w" spark; done
fi
grep '^{' "$OUT/scale.log" > "$OUT/scale.jsonl"
python3 - "$OUT/scale.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
for e in ("ray", "spark"):
    rs = {r["workers"]: r for r in rows if r["engine"] == e}
    if 1 not in rs:
        continue
    one = rs[1]
    print(f"{e}: {one['runs']} runs, {one['samples']} samples, {one['shards']} shards, {one['cores']} cores: " + "; ".join(
        f"{w} worker(s): map {r['map_s']} s ({one['map_s'] / r['map_s']:.2f}x), whole flow {r['total_s']} s"
        for w, r in sorted(rs.items())))
PY
