"""`evalboard diff A B` against `evalboard score A B` (issue 25: diff at most 1.5x score), or
`evalboard compare RUN...` against `evalboard score RUN...` (issue 26: compare at most 1.5x score
on 8 runs of 100,000 items), timed as whole commands in interleaved rounds (this machine's speed
drifts from minute to minute, so each round's ratio is taken on its own and the median reported).

usage: diff_ratio.py EVALBOARD A B ROUNDS
       diff_ratio.py --compare EVALBOARD ROUNDS RUN...
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
    if sys.argv[1] == "--compare":
        exe, rounds, runs, command = sys.argv[2], int(sys.argv[3]), sys.argv[4:], "compare"
    else:
        exe, runs, rounds, command = sys.argv[1], sys.argv[2:4], int(sys.argv[4]), "diff"
    timed([exe, "score", *runs])  # warm the page cache
    scores, others, ratios = [], [], []
    for _ in range(rounds):
        s = timed([exe, "score", *runs])
        d = timed([exe, command, *runs])
        scores.append(s)
        others.append(d)
        ratios.append(d / s)
    med = statistics.median
    print(json.dumps({
        "runs": len(runs),
        "score_s": round(med(scores), 3),
        f"{command}_s": round(med(others), 3),
        f"{command}_over_score": round(med(ratios), 3),
        "range": [round(min(ratios), 3), round(max(ratios), 3)],
        "rounds": rounds,
        "target": 1.5,
    }))


main()
