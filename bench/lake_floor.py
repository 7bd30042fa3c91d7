"""The pyarrow floor of `export --lake` (issue 27): every table of the lake at LAKE read into
memory as pyarrow Tables, then written again with zstd, timed around `pq.write_table` only.
The same layout as evalboard's files: row groups of 262,144 rows, page statistics, dictionary
on. Prints JSON: {"pyarrow_write_s": seconds (best of REPEATS), "rows": {table: n}}.

usage: lake_floor.py LAKE [REPEATS]"""
import glob
import io
import json
import os
import sys
import time

import pyarrow.parquet as pq

lake = sys.argv[1]
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
tables = {}
for path in sorted(glob.glob(os.path.join(lake, "*", "*.parquet"))):
    name = os.path.basename(os.path.dirname(path))
    tables[name] = pq.read_table(path)
best = None
for _ in range(repeats):
    t0 = time.perf_counter()
    for name, t in tables.items():
        pq.write_table(t, io.BytesIO(), compression="zstd", compression_level=3,
                       row_group_size=262144, write_statistics=True)
    dt = time.perf_counter() - t0
    best = dt if best is None else min(best, dt)
print(json.dumps({"pyarrow_write_s": round(best, 4),
                  "rows": {k: v.num_rows for k, v in tables.items()}}))
