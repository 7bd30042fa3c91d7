"""An Inspect task that a browser test watches while `inspect eval` writes its log
(tests/e2e/watch.test.mjs, issue 30). Its model is `mockllm/model` with custom outputs: sample
`k` expects "Answer k"; the model gives it, except for samples 1, 4, 7, … (wrong: "I do not
know"). Each output carries its token usage, so mockllm counts no tokens itself (that would load a
tiktoken encoding from the network). Each sample sleeps `delay` seconds before the model is
called, so with `--max-samples 1 --log-buffer 1` the log grows one sample at a time.
"""

import asyncio

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes
from inspect_ai.solver import Generate, TaskState, solver


@solver
def slow_generate(delay: float):
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        await asyncio.sleep(delay)
        return await generate(state)

    return solve


def answer(messages, tools, tool_choice, config) -> ModelOutput:
    question = messages[-1].text
    k = int(question.split(":")[0].split()[-1])
    out = ModelOutput.from_content(
        model="mockllm", content=f"Answer {k}" if (k - 1) % 3 else "I do not know"
    )
    out.usage = ModelUsage(input_tokens=10, output_tokens=3, total_tokens=13)
    return out


@task
def watch_task(n: int = 20, delay: float = 0.3) -> Task:
    samples = [
        Sample(
            id=i + 1,
            input=f"Question {i + 1}: what answers it?",
            target=f"Answer {i + 1}",
        )
        for i in range(n)
    ]
    return Task(
        dataset=samples,
        solver=slow_generate(delay),
        scorer=includes(),
        model=get_model("mockllm/model", custom_outputs=answer),
    )
