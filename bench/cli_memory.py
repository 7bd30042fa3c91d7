"""Peak memory of `evalboard score` and `evalboard diff` against the size of what they read.

Each command runs in its own child process; its peak resident set comes from the kernel
(getrusage of the waited-for child, ru_maxrss), so nothing is sampled and nothing is missed.
Usage: cli_memory.py EVALBOARD RUN.jsonl. One JSON line per command, then a verdict
against the target (peak <= 2x the inputs' total size).
"""
import json, os, resource, shutil, subprocess, sys, tempfile

def peak_of(cmd):
    # A fresh interpreter per command: RUSAGE_CHILDREN holds the largest child waited for, so a
    # wrapper process per command keeps each measurement its own.
    code = ("import resource, subprocess, sys; "
            "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
            "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code, *cmd], capture_output=True, text=True, check=True)
    rc, kb = out.stdout.split()
    return int(rc), int(kb) * 1024

def main():
    evalboard, big = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="eb-mem-")
    try:
        # diff compares two runs: the second is a copy, so both are read from disk.
        other = os.path.join(tmp, "candidate.jsonl")
        shutil.copyfile(big, other)
        size = os.path.getsize(big)
        cases = [
            ("score --json", [evalboard, "score", big, "--json"], size),
            ("score --out", [evalboard, "score", big, "--out", os.path.join(tmp, "out")], size),
            ("diff --json", [evalboard, "diff", big, other, "--json"], 2 * size),
            ("diff", [evalboard, "diff", big, other], 2 * size),
        ]
        worst = 0.0
        for name, cmd, inputs in cases:
            rc, peak = peak_of(cmd)
            ratio = peak / inputs
            worst = max(worst, ratio)
            print(json.dumps({"command": name, "input": os.path.basename(big), "input_bytes": inputs,
                              "peak_rss_bytes": peak, "peak_over_input": round(ratio, 3), "exit": rc}))
        verdict = "within" if worst <= 2.0 else "OVER"
        print(f"# worst peak / input: {worst:.2f}x ({verdict} the 2x target)", file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

if __name__ == "__main__":
    main()
