"""Writes a realistic N-sample Inspect AI `.eval` log for the benchmarks, with inspect_ai itself.

Usage: python gen_inspect_log.py SOURCE.eval N OUT.eval

Needs `inspect_ai` (bench/run.sh installs it from PyPI into a venv under bench/out; it is a
benchmark tool only, never a dependency of evalboard). SOURCE is a real small log (the
default in bench/run.sh is the `popularity` fixture from the inspect_ai repository: a real
openai/gpt-4o-mini run of 10 samples, one `match` scorer, messages, events and attachments,
~9 KB a sample). Its samples are replicated to N with distinct integer ids 1..N, a varied
statement in the input (and everywhere the input is repeated: messages, attachments), and the
model's answer flipped for about one sample in five, its `match` score, the model and score
events following; the header (dataset, results recomputed as Inspect's `accuracy` and
`stderr` metrics compute them, usage, reductions) says N samples. The log is written by
`inspect_ai.log.write_eval_log(..., format="eval")`: members as this inspect_ai writes them
(zstd since 0.3.206), `header.json`, `summaries.json`, `reductions.json`,
`samples/<id>_epoch_1.json`.
"""

import random
import sys

import numpy as np
import inspect_ai
from inspect_ai.log import EvalSampleReductions, EvalSampleScore, read_eval_log, write_eval_log
from inspect_ai.scorer import Score

ADJECTIVES = ["quietly", "often", "sometimes", "rarely", "openly", "usually", "always", "never"]
TOPICS = ["my work", "my friends", "the news", "my goals", "sports", "music", "my family",
          "politics", "travel", "technology", "cooking", "my health"]


def vary(statement: str, rng: random.Random, k: int) -> str:
    """The statement with a few words changed, and its number, so no two samples are alike."""
    words = statement.split(" ")
    for _ in range(1 + rng.randrange(3)):
        words.insert(rng.randrange(len(words) + 1), rng.choice(ADJECTIVES))
    return " ".join(words) + f" (about {rng.choice(TOPICS)}, #{k})"


def main() -> None:
    source, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    rng = random.Random(42)
    log = read_eval_log(source)
    base = log.samples or []
    if not base:
        sys.exit(f"{source}: no samples")
    samples = []
    for k in range(1, n + 1):
        s = base[(k - 1) % len(base)].model_copy(deep=True)
        s.id = k
        s.uuid = f"bench{k:017d}"
        old_input = s.input if isinstance(s.input, str) else None
        if old_input is not None:
            head, sep, statement = old_input.partition("\n")
            new_input = head + sep + vary(statement, rng, k) if sep else vary(old_input, rng, k)
            s.input = new_input
            for m in s.messages:
                if m.role == "user" and m.content == old_input:
                    m.content = new_input
            for key, text in (s.attachments or {}).items():
                if text == old_input:
                    s.attachments[key] = new_input
        # About one answer in five flipped (Yes <-> No), the score following it.
        target = s.target if isinstance(s.target, str) else s.target[0]
        answer = s.output.completion
        if rng.random() < 0.2:
            answer = {"Yes": "No", "No": "Yes"}.get(answer, answer)
        correct = answer.strip() == target.strip()
        for outputs in [s.output] + [e.output for e in s.events if e.event == "model"]:
            outputs.completion = answer
            for c in outputs.choices:
                c.message.content = answer
        if s.messages and s.messages[-1].role == "assistant":
            s.messages[-1].content = answer
        score = Score(value="C" if correct else "I", answer=answer, explanation=answer)
        s.scores = {"match": score}
        for e in s.events:
            if e.event == "score":
                e.score = score
            elif e.event == "sample_init":
                e.sample.id = k
                if old_input is not None:
                    e.sample.input = s.input
        samples.append(s)

    values = [1.0 if s.scores["match"].value == "C" else 0.0 for s in samples]
    log.samples = samples
    log.eval.dataset.samples = n
    log.eval.dataset.sample_ids = list(range(1, n + 1))
    log.eval.config.limit = n
    log.eval.packages = {"inspect_ai": inspect_ai.__version__}
    log.results.total_samples = n
    log.results.completed_samples = n
    metrics = log.results.scores[0].metrics
    metrics["accuracy"].value = float(np.mean(values))
    metrics["stderr"].value = float(np.std(values, ddof=1) / np.sqrt(n))
    for usage in log.stats.model_usage.values():
        per = [next(iter(s.model_usage.values())) for s in samples if s.model_usage]
        usage.input_tokens = sum(u.input_tokens for u in per)
        usage.output_tokens = sum(u.output_tokens for u in per)
        usage.total_tokens = sum(u.total_tokens for u in per)
    log.reductions = [
        EvalSampleReductions(
            scorer="match",
            samples=[
                EvalSampleScore(value=v, answer=s.scores["match"].answer,
                                explanation=s.scores["match"].explanation, sample_id=s.id)
                for s, v in zip(samples, values)
            ],
        )
    ]
    write_eval_log(log, out, format="eval")
    print(f"{out}: {n} samples, accuracy {metrics['accuracy'].value:.4f}, "
          f"written by inspect_ai {inspect_ai.__version__}")


if __name__ == "__main__":
    main()
