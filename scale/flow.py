"""The scale-out flow's shared parts (issue 27 §4, docs/scale.md): the shard plan, the map task
(one `evalboard export --lake LAKE --shard-id K --baseline B RUN...`), the reduce (DuckDB SQL over
the lake, its counts through `evalboard stats --from-counts`) and the checks against evalboard on
the unsharded input. ray_flow.py and spark_flow.py run the map step on their engine and call the
rest from here. Exit 1 naming every mismatch."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb

TABLES = ("runs", "samples", "verdicts", "aggregates", "comparisons", "sample_text", "messages")
# `score --json`'s accuracy field for each of the doc profile's scorers.
SCORE_FIELDS = {
    "numerical_match@doc-v1": "numerical_accuracy",
    "exact_match@doc-v1": "exact_match_accuracy",
    "soft_match@doc-v1": "soft_match_accuracy",
    "unit_agnostic_match@doc-v1": "unit_agnostic_accuracy",
    "sign_agnostic_match@doc-v1": "sign_agnostic_accuracy",
    "general_match@doc-v1": "general_match_accuracy",
}
# The scorer behind compare's headline (`Numerical accuracy`).
HEADLINE = "numerical_match@doc-v1"

PER_RUN_SQL = """
SELECT r.name, v.scorer, count(v.correct) AS n_scored, sum(v.correct::INT) AS n_correct
FROM verdicts v JOIN runs r USING (run_id)
GROUP BY ALL ORDER BY 1, 2"""

# The scored verdicts both sides of a pair are read from.
V_SQL = "SELECT run_id, item_key, scorer, correct FROM verdicts WHERE correct IS NOT NULL"
PAIRS_BODY = """
SELECT rb.name AS baseline, rc.name AS candidate, c.scorer,
       count(*) FILTER (WHERE b.correct AND k.correct)         AS n11,
       count(*) FILTER (WHERE b.correct AND NOT k.correct)     AS n10,
       count(*) FILTER (WHERE NOT b.correct AND k.correct)     AS n01,
       count(*) FILTER (WHERE NOT b.correct AND NOT k.correct) AS n00
FROM comparisons c
JOIN v b ON b.run_id = c.baseline_run_id AND b.scorer = c.scorer
JOIN v k ON k.run_id = c.candidate_run_id AND k.scorer = c.scorer AND k.item_key = b.item_key
JOIN runs rb ON rb.run_id = c.baseline_run_id
JOIN runs rc ON rc.run_id = c.candidate_run_id
GROUP BY ALL ORDER BY candidate, scorer"""
# The pairs query as docs/scale.md gives it (`v` a CTE). DuckDB runs PAIRS_BODY over `v` made a
# temporary table first: over the full case's 18M verdicts the CTE took 470 s here (375 s as
# `MATERIALIZED`), the table 11 s + 27 s.
PAIRS_SQL = f"WITH v AS ({V_SQL}){PAIRS_BODY}"


def args():
    """The flows' command line: EVALBOARD HISTORY LAKE WORK --workers W --shards N; returns the
    parsed arguments, evalboard's and the lake's absolute paths, and the runs (absolute)."""
    import argparse
    ap = argparse.ArgumentParser()
    for a in ("evalboard", "history", "lake", "work"):
        ap.add_argument(a)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--shards", type=int, default=8)
    a = ap.parse_args()
    runs = [os.path.abspath(r) for r in runs_of(a.history)]
    return a, os.path.abspath(a.evalboard), os.path.abspath(a.lake), runs


def runs_of(history):
    """The history's run files, in order; the first is the baseline."""
    runs = sorted(str(p) for p in Path(history).glob("run-*.jsonl"))
    if not runs:
        sys.exit(f"scale: no run-*.jsonl in {history} (evalboard-bench gen history RUNS ITEMS DIR)")
    return runs


def plan(runs, shards):
    """`shards` contiguous slices of the runs, as (shard id, runs)."""
    n = len(runs)
    return [(k, runs[k * n // shards:(k + 1) * n // shards]) for k in range(shards)]


def export_shard(evalboard, lake, baseline, shard, runs):
    """The map task: one shard's export; returns (shard, exit code, seconds, CPU seconds of the
    export (user + sys), pid, stderr)."""
    t, c = time.monotonic(), os.times()
    p = subprocess.run(
        [evalboard, "export", "--lake", lake, "--shard-id", str(shard), "--baseline", baseline, *runs],
        capture_output=True, text=True)
    e = os.times()
    cpu = e.children_user + e.children_system - c.children_user - c.children_system
    return shard, p.returncode, time.monotonic() - t, cpu, os.getpid(), p.stderr[-2000:]


def evalboard_out(evalboard, *args):
    p = subprocess.run([evalboard, *args], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"evalboard {' '.join(args[:3])} ...: exit {p.returncode}\n{p.stderr[-2000:]}")
    return p.stdout


def reference(evalboard, runs, ref):
    """evalboard on the unsharded input, kept in `ref` (computed once, reused by every flow of
    the same history): `score --json`, `compare --json` (baseline first) and the lake exported
    in one go."""
    ref = Path(ref)
    done = ref / "done"
    if not done.exists():
        ref.mkdir(parents=True, exist_ok=True)
        t = time.monotonic()
        (ref / "score.json").write_text(evalboard_out(evalboard, "score", "--json", *runs))
        (ref / "compare.json").write_text(evalboard_out(evalboard, "compare", "--json", *runs))
        lake = ref / "lake"
        evalboard_out(evalboard, "export", "--lake", str(lake), "--force", "--baseline", runs[0], *runs)
        done.write_text(f"{time.monotonic() - t:.1f}\n")
        print(f"reference (score, compare, unsharded export): {time.monotonic() - t:.1f} s")
    return (json.loads((ref / "score.json").read_text()), json.loads((ref / "compare.json").read_text()),
            ref / "lake")


def views(db, lake, prefix=""):
    for t in TABLES:
        db.sql(f"CREATE OR REPLACE VIEW {prefix}{t} AS SELECT * FROM read_parquet('{lake}/{t}/*.parquet')")


class Checks:
    def __init__(self):
        self.failures = []

    def __call__(self, ok, what):
        if not ok:
            self.failures.append(what)
            if len(self.failures) <= 40:
                print("MISMATCH", what)


def close(a, b):
    return a is not None and b is not None and abs(a - b) <= 1e-12 * max(1.0, abs(b))


def reduce_and_check(evalboard, lake, runs, ref, out):
    """The reduce (DuckDB SQL over LAKE, counts written to OUT/*.parquet, then `evalboard stats
    --from-counts`), checked against the reference; then the union of the shards against the
    unsharded export, row for row. Returns (seconds of the reduce, failures, summary)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    score, compare, ref_lake = reference(evalboard, runs, ref)
    check = Checks()
    t = time.monotonic()
    db = duckdb.connect()
    views(db, lake)
    per_run = out / "per_run.parquet"
    pairs = out / "pairs.parquet"
    db.sql(f"COPY ({PER_RUN_SQL}) TO '{per_run}' (FORMAT parquet)")
    db.sql(f"CREATE TEMP TABLE v AS {V_SQL}")
    db.sql(f"COPY ({PAIRS_BODY}) TO '{pairs}' (FORMAT parquet)")
    sql_s = time.monotonic() - t
    run_stats = json.loads(evalboard_out(evalboard, "stats", "--from-counts", str(per_run), "--json"))
    pair_stats = json.loads(evalboard_out(evalboard, "stats", "--from-counts", str(pairs), "--json"))
    reduce_s = time.monotonic() - t

    # Per run and scorer: the SQL counts equal the lake's own aggregates and `score --json`;
    # `stats --from-counts` on them gives compare's headline accuracy and its Wilson CI.
    rows = db.sql(PER_RUN_SQL).fetchall()
    aggs = {(r, s): (n, c) for r, s, n, c in db.sql(
        "SELECT r.name, a.scorer, a.n_scored, a.n_correct FROM aggregates a JOIN runs r USING (run_id) "
        "WHERE a.slice_field = ''").fetchall()}
    by_name = {s["run_name"]: s for s in score}
    by_run = {r["run"]: r for r in compare["runs"]}
    check(sorted({r[0] for r in rows}) == sorted(by_name),
          f"runs: {len({r[0] for r in rows})} in the lake, {len(by_name)} scored")
    check(len(run_stats) == len(rows), f"stats --from-counts on per_run: {len(run_stats)} rows for {len(rows)}")
    for (name, scorer, n, c), st in zip(rows, run_stats):
        check(aggs.get((name, scorer)) == (n, c), f"{name} {scorer}: verdicts {c}/{n}, aggregates {aggs.get((name, scorer))}")
        s = by_name.get(name, {})
        check(n == s.get("total_turns"), f"{name} {scorer}: SQL n {n}, score total_turns {s.get('total_turns')}")
        field = SCORE_FIELDS.get(scorer)
        if field:
            check(close(c / n, s.get(field)), f"{name} {scorer}: SQL {c}/{n}, score {field} {s.get(field)}")
        if scorer == HEADLINE:
            r = by_run.get(name, {})
            check(c == s.get("correct_turns") and c == r.get("correct"),
                  f"{name}: SQL {c} correct, score {s.get('correct_turns')}, compare {r.get('correct')}")
            ci = {k: (st.get("ci95") or {}).get(k) for k in ("low", "high")}
            check(st.get("accuracy") == r.get("headline") and ci == r.get("ci95"),
                  f"{name}: stats accuracy {st.get('accuracy')} {st.get('ci95')}, compare {r.get('headline')} {r.get('ci95')}")

    # Per pair and scorer: the SQL 2x2 equals the lake's comparisons rows (all scorers) and, for
    # the headline scorer, `compare --json`; `stats --from-counts` gives their statistics.
    comps = {(b, c, s): row for b, c, s, *row in db.sql(
        "SELECT baseline, candidate, scorer, n11, n10, n01, n00, delta, mcnemar_p, ci_low, ci_high "
        "FROM comparisons").fetchall()}
    check(len(pair_stats) == len(comps), f"pairs: {len(pair_stats)} from SQL, {len(comps)} comparisons rows")
    n_headline = 0
    for st in pair_stats:
        key = (st.get("baseline"), st.get("candidate"), st.get("scorer"))
        got = (st["n11"], st["n10"], st["n01"], st["n00"])
        cr = comps.get(key)
        check(cr is not None and tuple(cr[:4]) == got, f"{key}: SQL 2x2 {got}, comparisons {cr and cr[:4]}")
        if cr is not None:
            check(close(st["delta"], cr[4]) and close(st["mcnemar_exact_p"], cr[5])
                  and close(st["bootstrap_ci"]["low"], cr[6]) and close(st["bootstrap_ci"]["high"], cr[7]),
                  f"{key}: stats {st['delta']} p {st['mcnemar_exact_p']} {st['bootstrap_ci']}, comparisons {cr[4:]}")
        if key[2] == HEADLINE:
            n_headline += 1
            r = by_run.get(key[1], {})
            ci = r.get("bootstrap_ci") or {}
            check((st["n10"], st["n01"], st["n_items"]) == (r.get("regressed"), r.get("improved"), r.get("n_paired")),
                  f"{key[1]}: SQL 2x2 {got}, compare regressed {r.get('regressed')} improved {r.get('improved')} n {r.get('n_paired')}")
            check(st["delta"] == r.get("delta") and st["mcnemar_exact_p"] == r.get("mcnemar_exact_p")
                  and st["bootstrap_ci"]["low"] == ci.get("low") and st["bootstrap_ci"]["high"] == ci.get("high"),
                  f"{key[1]}: stats {st['delta']} p {st['mcnemar_exact_p']} {st['bootstrap_ci']}, "
                  f"compare {r.get('delta')} {r.get('mcnemar_exact_p')} {ci}")
    check(n_headline == len(runs) - 1, f"headline pairs: {n_headline} from SQL, {len(runs) - 1} candidates")

    # The union of the shards equals the unsharded export, row for row, as multisets (the
    # shards' files are read in any order): per table the row count, and the sum and the xor
    # of a 64-bit hash of every whole row, a fingerprint read in one streaming pass; when they
    # differ, EXCEPT ALL both ways counts the rows on one side only (and names them).
    views(db, ref_lake, "full_")
    counts = {}
    for t in TABLES:
        fp = "SELECT count(*), sum(hash(x)::HUGEINT), bit_xor(hash(x)) FROM {} x"
        a = db.execute(fp.format(t)).fetchone()
        b = db.execute(fp.format(f"full_{t}")).fetchone()
        if a != b:
            (extra,) = db.execute(f"SELECT count(*) FROM (SELECT * FROM {t} EXCEPT ALL SELECT * FROM full_{t})").fetchone()
            (missing,) = db.execute(f"SELECT count(*) FROM (SELECT * FROM full_{t} EXCEPT ALL SELECT * FROM {t})").fetchone()
            check(False, f"table {t}: shards {a[0]} rows, unsharded {b[0]}; "
                         f"{extra} rows only in the shards, {missing} only unsharded")
        counts[t] = a[0]
    summary = {"sql_s": round(sql_s, 2), "stats_s": round(reduce_s - sql_s, 2),
               "runs": len(runs), "samples": counts["samples"], "verdicts": counts["verdicts"],
               "pairs": len(pair_stats), "per_run_rows": len(rows)}
    return reduce_s, check.failures, summary


def report(engine, workers, shards, map_s, reduce_s, total_s, failures, summary, times, cpu=None):
    """One JSON line: wall times, the shards' wall and (when known) CPU seconds, the machine's
    load average (a shared machine's wall times also count waiting for a core)."""
    line = {"engine": engine, "workers": workers, "shards": shards, "cores": os.cpu_count(),
            "load_avg_1m": os.getloadavg()[0],
            "map_s": round(map_s, 2), "reduce_and_stats_s": round(reduce_s, 2), "total_s": round(total_s, 2),
            "shard_s": sorted(round(x, 2) for x in times), **summary, "mismatches": len(failures)}
    if cpu is not None:
        line["map_cpu_s"] = round(sum(cpu), 2)
    print(json.dumps(line))
    if failures:
        sys.exit(f"scale ({engine}): {len(failures)} mismatch(es); first: {failures[0]}")
    print(f"scale ({engine}, {workers} workers, {shards} shards): {summary['runs']} runs, {summary['samples']} samples; "
          f"every per-run and per-pair number equals score/compare, and the shards add up to the unsharded lake")


def selftest(evalboard, history, lake, work):
    """The checks catch a wrong lake: one verdict flipped in a copy of LAKE (shard 1's first
    `numerical_match@doc-v1` row) must give mismatches in the per-run numbers, the pairs and the
    union. Exit 1 if they pass."""
    import shutil
    runs = [os.path.abspath(r) for r in runs_of(history)]
    bad = Path(work) / "tampered"
    shutil.rmtree(bad, ignore_errors=True)
    shutil.copytree(lake, bad)
    f = bad / "verdicts" / "part-1.parquet"
    db = duckdb.connect()
    db.sql(f"""COPY (SELECT * EXCLUDE (correct),
                       CASE WHEN row_number() OVER () = (SELECT min(rn) FROM (SELECT row_number() OVER () AS rn, scorer
                            FROM read_parquet('{f}')) WHERE scorer = '{HEADLINE}') THEN NOT correct ELSE correct END AS correct
                FROM read_parquet('{f}')) TO '{f}.new' (FORMAT parquet)""")
    os.replace(f"{f}.new", f)
    print("selftest: one verdict flipped in a copy of the lake; the checks must fail:")
    _, failures, _ = reduce_and_check(evalboard, str(bad), runs, Path(work) / "reference", Path(work) / "counts-tampered")
    kinds = {"per-run": any("score " in x for x in failures), "pairs": any("SQL 2x2" in x for x in failures),
             "union": any(x.startswith("table verdicts") for x in failures)}
    shutil.rmtree(bad)
    if not all(kinds.values()):
        sys.exit(f"selftest: a flipped verdict was not caught by every check: {kinds}")
    print(f"selftest: {len(failures)} mismatches caught ({', '.join(kinds)})")


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "selftest":
        selftest(*sys.argv[2:])
    else:
        sys.exit("usage: flow.py selftest EVALBOARD HISTORY LAKE WORK")
