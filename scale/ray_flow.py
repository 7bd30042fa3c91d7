"""The scale-out flow on a local Ray cluster (issue 27 §4; docs/scale.md). Map: Ray Data runs one
`evalboard export --lake LAKE --shard-id K --baseline B RUN...` per shard, in W worker processes
(`ray.init(num_cpus=W)`, one CPU per task). Reduce: DuckDB SQL over the lake, then `evalboard
stats --from-counts`; every number is checked against `evalboard score` / `compare` on the
unsharded input, and the shards' union against the unsharded export (scale/flow.py).

usage: ray_flow.py EVALBOARD HISTORY LAKE WORK --workers W --shards N
  HISTORY  a folder of run-*.jsonl (evalboard-bench gen history), run-0000 the baseline
  LAKE     the lake to write (removed first)
  WORK     the reference (unsharded score/compare/export, reused when present) and the counts
Prints one JSON line (map, reduce and total seconds, per-shard seconds); exit 1 on a mismatch."""

import logging
import os
import shutil
import time

import flow


def main():
    a, evalboard, lake, runs = flow.args()
    baseline = runs[0]
    shards = flow.plan(runs, a.shards)
    # The reference first, so the timed flow does not share the cores with it.
    flow.reference(evalboard, runs, os.path.join(a.work, "reference"))
    shutil.rmtree(lake, ignore_errors=True)

    t0 = time.monotonic()
    import ray
    import ray.data

    ray.init(num_cpus=a.workers, include_dashboard=False, log_to_driver=False,
             logging_level=logging.WARNING, configure_logging=False)
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.print_on_execution_start = False
    t_map = time.monotonic()

    def export(batch):
        shard, rc, s, cpu, pid, err = flow.export_shard(evalboard, lake, baseline, int(batch["shard"][0]),
                                                        list(batch["runs"][0]))
        return {"shard": [shard], "rc": [rc], "seconds": [s], "cpu": [cpu], "pid": [pid], "stderr": [err]}

    ds = ray.data.from_items([{"shard": k, "runs": rs} for k, rs in shards], override_num_blocks=len(shards))
    done = ds.map_batches(export, batch_size=1, num_cpus=1,
                          compute=ray.data.TaskPoolStrategy(size=a.workers)).take_all()
    map_s = time.monotonic() - t_map
    ray.shutdown()
    bad = [d for d in done if d["rc"] != 0]
    if len(done) != len(shards) or bad:
        raise SystemExit(f"map: {len(done)} of {len(shards)} shards done; failed: "
                         + "; ".join(f"shard {d['shard']} exit {d['rc']}: {d['stderr']}" for d in bad))
    print(f"map: {len(shards)} shards on {len({d['pid'] for d in done})} Ray worker processes in {map_s:.1f} s")
    reduce_s, failures, summary = flow.reduce_and_check(evalboard, lake, runs, os.path.join(a.work, "reference"),
                                                        os.path.join(a.work, "counts"))
    flow.report("ray", a.workers, len(shards), map_s, reduce_s, time.monotonic() - t0, failures, summary,
                [d["seconds"] for d in done], [d["cpu"] for d in done])


if __name__ == "__main__":
    main()
