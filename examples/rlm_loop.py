"""An RLM-style loop on a plain dict namespace, with jupyter_kernel_state.repl.

The context (a long order log) stays in a variable; the model only sees variable cards
and the last steps, and answers by writing code. The "model" here is a stand-in that
returns prepared code strings in turn — put a real LLM call in ``model()``.

    python examples/rlm_loop.py            # prints each prompt and the final result
"""

from __future__ import annotations

import json
import random

from jupyter_kernel_state.repl import History, Result, cards, format_cards, run

QUESTION = "What is the total revenue of the orders paid in EUR?"

#: What the stand-in model answers, turn after turn: (reasoning, code).
SCRIPT = [
    ("Look at the shape of the log first.",
     "lines = context.splitlines()\nprint(len(lines))\nprint(lines[:3])"),
    ("Each line ends with currency and amount; sum the EUR ones.",
     "eur = [float(line.split()[-1]) for line in lines if line.split()[-2] == 'EUR']\n"
     "print(len(eur), round(sum(eur), 2))"),
    ("Check that no line was malformed before answering.",
     "bad = [line for line in lines if len(line.split()) != 5]\nprint(bad[:5])"),
    ("Done.", "answer = round(sum(eur), 2)"),
]


def make_context(n: int = 5_000, seed: int = 7) -> str:
    """A long order log: ``date order <id> <currency> <amount>`` per line."""
    rng = random.Random(seed)
    return "\n".join(
        f"2024-10-{rng.randint(1, 28):02d} order {i} {rng.choice(['EUR', 'USD', 'GBP'])} "
        f"{rng.randint(100, 99_999) / 100:.2f}" for i in range(n))


def build_prompt(namespace: dict[str, object], history: History) -> str:
    """What the model receives each turn: the question, the cards, the last steps."""
    variables = cards(namespace, descriptions={
        "context": "the order log, one order a line",
        "api_key": "the payment service's key (use it in code only)",
    }, constraints={"context": "read-only"})
    return (f"Question: {QUESTION}\n\nVariables:\n{format_cards(variables)}\n\n"
            f"History:\n{history.format(max_steps=10, max_output_chars=2_000)}\n\n"
            "Write Python code; set `answer` when you know it.")


def model(prompt: str, turn: int) -> tuple[str, str]:
    """The stand-in LLM: the next prepared (reasoning, code)."""
    return SCRIPT[min(turn, len(SCRIPT) - 1)]


def rlm_loop(namespace: dict[str, object], max_steps: int = 8,
             verbose: bool = True) -> Result:
    """Ask, run, record — until the code binds ``answer`` or the steps run out."""
    history = History()
    for turn in range(max_steps):
        prompt = build_prompt(namespace, history)
        if verbose:
            print(f"===== prompt {turn + 1} ({len(prompt):,} characters) =====\n{prompt}\n")
        reasoning, code = model(prompt, turn)
        result = run(code, namespace)
        history = history.append(code=code, reasoning=reasoning, result=result)
        if "answer" in namespace:
            return Result.final(namespace["answer"], history)
    return Result("max_steps", history)


def main() -> Result:
    namespace: dict[str, object] = {
        "context": make_context(),
        "api_key": "sk-live-" + "0123456789abcdef" * 2,  # masked on every card
    }
    result = rlm_loop(namespace)
    print("===== result =====")
    print(json.dumps({k: v for k, v in result.to_dict().items() if k != "history"}, indent=2))
    return result


if __name__ == "__main__":
    main()
