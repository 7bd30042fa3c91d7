"""Python baseline for an Inspect AI log: how long inspect_ai's own reader takes on a `.eval`.

Usage: python inspect_baseline.py LOG.eval

Times `inspect_ai.log.read_eval_log(path)` (the whole log: header, every sample parsed into
its pydantic model) and `read_eval_log(path, header_only=True)` (header.json alone), each in a
fresh process (this one, then a child), the imports not counted. Prints one JSON line. Needs
inspect_ai (bench/run.sh installs it into a venv under bench/out: a benchmark tool only, never
a dependency of evalboard).
"""

import json
import os
import resource
import subprocess
import sys
import time


def rss_now() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def timed(path: str, header_only: bool) -> dict:
    import inspect_ai
    from inspect_ai.log import read_eval_log

    base = rss_now()
    t0 = time.perf_counter()
    log = read_eval_log(path, header_only=header_only)
    total = time.perf_counter() - t0
    samples = len(log.samples or [])
    return {
        "total_s": total,
        "samples": samples,
        "peak_bytes": max(0, peak_rss() - base),
        "inspect_ai": inspect_ai.__version__,
        "accuracy": log.results.scores[0].metrics["accuracy"].value if log.results else None,
    }


def main() -> None:
    path = sys.argv[1]
    if len(sys.argv) > 2 and sys.argv[2] == "--header-only":
        print(json.dumps(timed(path, True)))
        return
    full = timed(path, False)
    # header_only in a fresh process, so that it pays what a first read pays.
    out = subprocess.run([sys.executable, __file__, path, "--header-only"], check=True,
                         capture_output=True, text=True).stdout
    header = json.loads(out)
    size = os.path.getsize(path)
    print(json.dumps({
        "path": path, "tool": "inspect_ai.log.read_eval_log", "inspect_ai": full["inspect_ai"],
        "samples": full["samples"], "input_bytes": size, "total_s": full["total_s"],
        "samples_per_s": full["samples"] / full["total_s"], "peak_bytes": full["peak_bytes"],
        "peak_over_input": full["peak_bytes"] / size, "accuracy": full["accuracy"],
        "header_only_s": header["total_s"],
    }))


if __name__ == "__main__":
    main()
