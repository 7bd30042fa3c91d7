"""`evalboard diff A B` against `evalboard score A B` (issue 25: diff at most 1.5x score), timed
as whole commands in interleaved rounds (this machine's speed drifts from minute to minute, so
each round's ratio is taken on its own and the median reported).

usage: diff_ratio.py EVALBOARD A B ROUNDS
"""
import json
import statistics
import subprocess
import sys
import time


def timed(cmd):
    t = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dt = time.perf_counter() - t
    if r.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)} exited {r.returncode}")
    return dt


def main():
    exe, a, b, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    timed([exe, "score", a, b])  # warm the page cache
    scores, diffs, ratios = [], [], []
    for _ in range(rounds):
        s = timed([exe, "score", a, b])
        d = timed([exe, "diff", a, b])
        scores.append(s)
        diffs.append(d)
        ratios.append(d / s)
    med = statistics.median
    print(json.dumps({
        "score_s": round(med(scores), 3),
        "diff_s": round(med(diffs), 3),
        "diff_over_score": round(med(ratios), 3),
        "range": [round(min(ratios), 3), round(max(ratios), 3)],
        "rounds": rounds,
        "target": 1.5,
    }))


main()
