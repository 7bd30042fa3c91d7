"""A lake written by `evalboard export --lake` read by pyarrow and DuckDB: every table's row
count equals the manifest's; per-run accuracy from SQL equals `evalboard score --json`; the
per-pair 2x2 table from SQL equals `evalboard compare --json`; `evalboard stats --from-counts`
on the SQL result gives compare's delta, McNemar p and bootstrap CI; per-run tokens and cost
summed over `samples` equal `score --json`'s under the same price table (logs that record
tokens, tests/fixtures/evallog/prices). Exit 1 on any mismatch."""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb
import pyarrow.parquet as pq

# The per-pair 2x2 query is the scale-out flow's (docs/scale.md), in its CTE form.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scale"))
from flow import PAIRS_SQL  # noqa: E402

evalboard, fixtures = sys.argv[1], Path(sys.argv[2])
runs = [str(fixtures / f) for f in ("base", "gpt4o", "llama", "mini")]
base = runs[0]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL", what)


def run(*args):
    p = subprocess.run([evalboard, *args], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"evalboard {' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    return p.stdout


with tempfile.TemporaryDirectory() as tmp:
    lake = Path(tmp) / "lake"
    run("export", "--lake", str(lake), "--baseline", base, *runs)
    manifest = json.loads((lake / "evalboard-lake.json").read_text())
    db = duckdb.connect()
    for f in manifest["files"]:
        path = lake / f["path"]
        t = pq.read_table(path)
        check(t.num_rows == f["rows"], f"pyarrow {f['path']}: {t.num_rows} rows, manifest {f['rows']}")
        (n,) = db.execute(f"SELECT count(*) FROM read_parquet('{path}')").fetchall()[0]
        check(n == f["rows"], f"duckdb {f['path']}: {n} rows, manifest {f['rows']}")
    for table in manifest["tables"]:
        db.sql(f"CREATE VIEW {table} AS SELECT * FROM read_parquet('{lake}/{table}/*.parquet')")

    # Per run: accuracy from the verdicts (and the aggregates) equals `score --json`.
    scored = {s["run_name"]: s for s in json.loads(run("score", "--json", *runs))}
    rows = db.sql(
        """SELECT r.name, v.scorer, count(v.correct) AS n, sum(v.correct::INT) AS c,
                  a.n_scored, a.n_correct
           FROM verdicts v JOIN runs r USING (run_id)
           JOIN aggregates a ON a.run_id = v.run_id AND a.scorer = v.scorer AND a.slice_field = ''
           GROUP BY ALL ORDER BY 1, 2"""
    ).fetchall()
    check(sorted({r[0] for r in rows}) == sorted(scored), f"runs in the lake {sorted({r[0] for r in rows})} vs score {sorted(scored)}")
    for name, scorer, n, c, a_n, a_c in rows:
        check((n, c) == (a_n, a_c), f"{name} {scorer}: verdicts {c}/{n}, aggregates {a_c}/{a_n}")
        s = scored.get(name, {})
        check(c == s.get("n_correct") and abs(c / n - s.get("accuracy", -1)) < 1e-12,
              f"{name} {scorer}: SQL {c}/{n}, score {s.get('n_correct')} accuracy {s.get('accuracy')}")

    # Per pair: the 2x2 from SQL equals `compare --json`, and `stats --from-counts` its statistics.
    compared = {r["run"]: r for r in json.loads(run("compare", "--json", base, *runs[1:]))["runs"] if not r["is_baseline"]}
    counts = Path(tmp) / "counts.parquet"
    db.sql(
        f"""COPY ({PAIRS_SQL}
        ) TO '{counts}' (FORMAT parquet)"""
    )
    stats = json.loads(run("stats", "--from-counts", str(counts), "--json"))
    check(sorted(s["candidate"] for s in stats) == sorted(compared), f"pairs {[s['candidate'] for s in stats]} vs compare {sorted(compared)}")
    for s in stats:
        c = compared.get(s["candidate"], {})
        check((s["n10"], s["n01"], s["n_items"]) == (c.get("regressed"), c.get("improved"), c.get("n_paired")),
              f"{s['candidate']}: SQL 2x2 {s['n11']},{s['n10']},{s['n01']},{s['n00']} vs compare {c}")
        ci = c.get("bootstrap_ci") or {}
        check(s["delta"] == c.get("delta") and s["mcnemar_exact_p"] == c.get("mcnemar_exact_p")
              and s["bootstrap_ci"]["low"] == ci.get("low") and s["bootstrap_ci"]["high"] == ci.get("high"),
              f"{s['candidate']}: stats {s['delta']} p {s['mcnemar_exact_p']} {s['bootstrap_ci']} vs compare {c.get('delta')} {c.get('mcnemar_exact_p')} {ci}")

    # Per run: tokens by class and dollars summed over `samples` equal `score --json`'s.
    priced_lake = Path(tmp) / "priced"
    prices_dir = fixtures.parent / "evallog" / "prices"
    priced = [str(prices_dir / d) for d in ("inspect", "openai_evals")]
    prices = ["--prices", str(prices_dir / "prices.json")]
    run("export", "--lake", str(priced_lake), *prices, *priced)
    db.sql(f"CREATE VIEW priced_samples AS SELECT * FROM read_parquet('{priced_lake}/samples/*.parquet')")
    db.sql(f"CREATE VIEW priced_runs AS SELECT * FROM read_parquet('{priced_lake}/runs/*.parquet')")
    sums = db.sql(
        """SELECT r.name, sum(s.input_tokens), sum(s.output_tokens), sum(s.reasoning_tokens),
                  sum(s.cost_usd), count(s.input_tokens)
           FROM priced_samples s JOIN priced_runs r USING (run_id) GROUP BY ALL ORDER BY 1"""
    ).fetchall()
    want = {s["run_name"]: s for s in json.loads(run("score", "--json", *prices, *priced))}
    check(sorted(r[0] for r in sums) == sorted(want), f"priced runs {[r[0] for r in sums]} vs {sorted(want)}")
    for name, inp, out, reasoning, cost, n in sums:
        t, s = want.get(name, {}).get("tokens") or {}, want.get(name, {})
        check((inp, out, reasoning or 0, n) == (t.get("uncached_input", 0) + t.get("cache_read", 0) + t.get("cache_write", 0),
                                                t.get("output"), t.get("reasoning"), t.get("n_samples")),
              f"{name}: SQL tokens {inp}/{out}/{reasoning} over {n} samples vs score {t}")
        check(cost is not None and abs(cost - s.get("total_cost_usd", -1)) < 1e-12,
              f"{name}: SQL cost {cost} vs score total_cost_usd {s.get('total_cost_usd')}")

if failures:
    sys.exit(f"lake check: {len(failures)} mismatch(es)")
print(f"lake check: {len(manifest['files'])} files read by pyarrow and DuckDB; {len(scored)} runs and {len(stats)} pairs equal score/compare; tokens and cost of {len(sums)} priced runs equal score")
