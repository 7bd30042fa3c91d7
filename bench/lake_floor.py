"""The pyarrow floor of `export --lake` (issue 27): every table of the lake at LAKE read into
memory as pyarrow Tables, then written again, timed around `pq.write_table` only. The same
layout as evalboard's files, read from each file's footer: zstd at the level evalboard writes
(1), row groups of the rows of the file's first one (evalboard cuts a group at 65,536 rows or
2 MB of strings), a dictionary for the columns whose chunks have one, statistics for the
columns whose chunks have them (per chunk: pyarrow writes no page index by default).
Prints JSON: {"pyarrow_write_s": wall seconds (best of REPEATS), "pyarrow_write_cpu_s": CPU
seconds of this process (best of REPEATS), "rows": {table: n}}.

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
    meta = pq.ParquetFile(path).metadata
    dictionary, statistics, group_rows = [], [], 65536
    if meta.num_row_groups:
        rg = meta.row_group(0)
        group_rows = max(rg.num_rows, 1)
        for i in range(rg.num_columns):
            c = rg.column(i)
            if c.dictionary_page_offset is not None:
                dictionary.append(c.path_in_schema)
            if c.is_stats_set:
                statistics.append(c.path_in_schema)
    tables[name] = (pq.read_table(path), dictionary, statistics, group_rows)
best = best_cpu = None
for _ in range(repeats):
    t0, c0 = time.perf_counter(), time.process_time()
    for name, (t, dictionary, statistics, group_rows) in tables.items():
        pq.write_table(t, io.BytesIO(), compression="zstd", compression_level=1,
                       row_group_size=group_rows,
                       use_dictionary=dictionary or False,
                       write_statistics=statistics or False)
    dt, dc = time.perf_counter() - t0, time.process_time() - c0
    best = dt if best is None else min(best, dt)
    best_cpu = dc if best_cpu is None else min(best_cpu, dc)
print(json.dumps({"pyarrow_write_s": round(best, 4), "pyarrow_write_cpu_s": round(best_cpu, 4),
                  "rows": {k: v[0].num_rows for k, v in tables.items()}}))
