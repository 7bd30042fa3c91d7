"""The scale-out flow's map step on Spark in local mode (issue 27 §4; docs/scale.md), bench only:
`sc.parallelize(lines, N).pipe("scale/export_shard.sh")`, one line `K<TAB>RUN...` per shard, W
executor threads (`local[W]`), each piping its partition through the script, which runs `evalboard
export --lake LAKE --shard-id K --baseline B RUN...`. Then the same reduce and checks as the Ray
flow (DuckDB SQL, `stats --from-counts`, scale/flow.py), and the reduce's SQL once more in Spark
SQL over the same lake (SPARK_* below), its counts checked equal to DuckDB's.

usage: spark_flow.py EVALBOARD HISTORY LAKE WORK --workers W --shards N (as ray_flow.py)"""

import os
import shutil
import time
from pathlib import Path

import duckdb

import flow

# The reduce in Spark SQL: DuckDB's text (scale/flow.py) with CAST for `::` and an explicit GROUP BY
# list for GROUP BY ALL (docs/scale.md shows the result).
SPARK_PER_RUN = flow.PER_RUN_SQL.replace("v.correct::INT", "CAST(v.correct AS INT)").replace(
    "GROUP BY ALL", "GROUP BY r.name, v.scorer")
SPARK_PAIRS = flow.PAIRS_SQL.replace("GROUP BY ALL", "GROUP BY rb.name, rc.name, c.scorer")


def main():
    a, evalboard, lake, runs = flow.args()
    shards = flow.plan(runs, a.shards)
    ref = os.path.join(a.work, "reference")
    flow.reference(evalboard, runs, ref)
    shutil.rmtree(lake, ignore_errors=True)

    t0 = time.monotonic()
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master(f"local[{a.workers}]").appName("evalboard-scale")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").config("spark.driver.memory", "2g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    sc = spark.sparkContext
    t_map = time.monotonic()
    lines = ["\t".join([str(k), *rs]) for k, rs in shards]
    script = str(Path(__file__).resolve().parent / "export_shard.sh")
    out = sc.parallelize(lines, len(lines)).pipe(
        script, env={"EVALBOARD": evalboard, "LAKE": lake, "BASELINE": runs[0], "PATH": os.environ["PATH"]}).collect()
    map_s = time.monotonic() - t_map
    done = [line.split("\t") for line in out]
    bad = [d for d in done if d[1] != "0"]
    if len(done) != len(shards) or bad:
        raise SystemExit(f"map: {len(done)} of {len(shards)} shards done; failed: {bad}")
    print(f"map: {len(shards)} shards piped through scale/export_shard.sh on local[{a.workers}] in {map_s:.1f} s")

    reduce_s, failures, summary = flow.reduce_and_check(evalboard, lake, runs, ref, os.path.join(a.work, "counts"))

    # The same reduce in Spark SQL, equal to DuckDB's counts.
    t = time.monotonic()
    for table in flow.TABLES:
        spark.read.parquet(f"{lake}/{table}").createOrReplaceTempView(table)
    db = duckdb.connect()
    check = flow.Checks()
    for name, sql in (("per_run", SPARK_PER_RUN), ("pairs", SPARK_PAIRS)):
        got = [tuple(r) for r in spark.sql(sql).collect()]
        want = db.execute(f"SELECT * FROM read_parquet('{a.work}/counts/{name}.parquet')").fetchall()
        check(sorted(got) == sorted(want), f"Spark SQL {name}: {len(got)} rows, DuckDB {len(want)}; "
              f"first difference {next((x for x in sorted(set(got) ^ set(want))), None)}")
        summary[f"spark_sql_{name}_rows"] = len(got)
    summary["spark_sql_s"] = round(time.monotonic() - t, 2)
    spark.stop()
    flow.report("spark", a.workers, len(shards), map_s, reduce_s, time.monotonic() - t0, failures + check.failures,
                summary, [float(d[2]) for d in done], [float(d[3]) for d in done])


if __name__ == "__main__":
    main()
