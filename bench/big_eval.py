"""Writes a big Inspect AI `.eval` log for the big-log bench (issue 16.8): N samples whose
messages carry enough incompressible text that the archive reaches the size asked for, with
`header.json`, `summaries.json` and one deflated member per sample, laid out as inspect_ai 0.3.285
writes them (FORMATS.md §1). Plain Python (zipfile): the shapes are inspect_ai's, the bulk is
padding, so no inspect_ai install is needed to make a 1 GB log quickly.

Usage: python3 bench/big_eval.py OUT.eval [MEGABYTES (default 1024)] [SAMPLES (default 20000)]
"""

import base64
import json
import os
import random
import sys
import zipfile


def main():
    out = sys.argv[1]
    megabytes = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
    # base64 of random bytes deflates to about 3/4 of its length.
    pad = max(0, int(megabytes * 1e6 / n * 4 / 3) - 600)
    rng = random.Random(17)
    tmp = out + ".part"
    correct = 0
    summaries = []
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr("_journal/start.json", json.dumps(start()))
        for i in range(1, n + 1):
            ok = rng.random() < 0.62
            correct += ok
            answer = str(i * 7) if ok else str(i * 7 + 1)
            score = {"value": "C" if ok else "I", "answer": answer,
                     "explanation": f"ANSWER: {answer}"}
            meta = {"subject": rng.choice(["algebra", "geometry", "counting", "number theory"]),
                    "difficulty": rng.choice(["easy", "medium", "hard"])}
            question = f"What is {i} times 7?"
            usage = {"mockllm/model": {"input_tokens": 40 + i % 13, "output_tokens": 9,
                                       "total_tokens": 49 + i % 13}}
            summaries.append({
                "id": i, "epoch": 1, "input": question, "target": str(i * 7),
                "metadata": meta, "scores": {"match": score}, "model_usage": usage,
                "total_time": 1.5 + (i % 10) / 10, "working_time": 1.2,
                "uuid": f"u{i}", "retries": 0, "completed": True, "message_count": 3,
            })
            noise = base64.b64encode(os.urandom(pad * 3 // 4 + 1)).decode()[:pad]
            sample = {
                "id": i, "epoch": 1, "input": question, "target": str(i * 7),
                "messages": [
                    {"role": "system", "content": "You are a careful calculator. " + noise},
                    {"role": "user", "content": question, "source": "input"},
                    {"role": "assistant", "content": f"ANSWER: {answer}", "model": "mockllm/model"},
                ],
                "output": {"model": "mockllm/model", "completion": f"ANSWER: {answer}",
                           "choices": [{"message": {"role": "assistant", "content": f"ANSWER: {answer}"},
                                        "stop_reason": "stop"}],
                           "usage": usage["mockllm/model"]},
                "scores": {"match": score}, "metadata": meta, "model_usage": usage,
                "total_time": 1.5 + (i % 10) / 10, "uuid": f"u{i}", "events": [],
            }
            z.writestr(f"samples/{i}_epoch_1.json", json.dumps(sample))
        z.writestr("summaries.json", json.dumps(summaries))
        header = start()
        header["status"] = "success"
        header["results"] = {
            "total_samples": n, "completed_samples": n,
            "scores": [{"name": "match", "scorer": "match", "reducer": "mean", "params": {},
                        "metrics": {"accuracy": {"name": "accuracy", "value": correct / n, "params": {}},
                                    "stderr": {"name": "stderr", "value": stderr(correct, n), "params": {}}}}],
        }
        header["stats"] = {"started_at": "2026-11-26T00:00:00+00:00",
                           "completed_at": "2026-11-26T01:00:00+00:00", "model_usage": {}}
        z.writestr("header.json", json.dumps(header))
    os.replace(tmp, out)
    print(json.dumps({"path": out, "bytes": os.path.getsize(out), "samples": n, "correct": correct}))


def stderr(k, n):
    mean = k / n
    var = (k * (1 - mean) ** 2 + (n - k) * mean ** 2) / (n - 1)
    return (var / n) ** 0.5


def start():
    return {
        "version": 2,
        "status": "started",
        "eval": {"eval_id": "bigEvalBench", "run_id": "bigRunBench", "created": "2026-11-26T00:00:00+00:00",
                 "task": "times_seven", "task_id": "t7", "task_version": 0,
                 "dataset": {"name": "times_seven", "samples": 0},
                 "model": "mockllm/model", "config": {"epochs": 1},
                 "packages": {"inspect_ai": "0.3.285"}},
        "plan": {"name": "plan", "steps": [{"solver": "generate", "params": {}}]},
    }


if __name__ == "__main__":
    main()
