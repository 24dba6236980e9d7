"""The prompt is cache-friendly: after one change, the new prompt starts with most of the
previous one (providers cache a prompt's unchanged prefix).

Pure cases on crafted digests (a demo-like state, a 300-variable session), then the same
end to end: a real server, a real kernel running the demo notebook, the prompt route.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jupyter_kernel_state.prompt import build_prompt
from jupyter_kernel_state.prompt_model import PromptInput, PromptResult, StablePart

from .kernel_utils import get_json

MIN_RATIO = 0.8
DEMO = Path(__file__).parent.parent / "examples" / "demo.ipynb"


def common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of two texts."""
    n = min(len(a), len(b))
    return next((i for i in range(n) if a[i] != b[i]), n)


def ratio(before: str, after: str) -> float:
    """The previous prompt's longest common prefix with the new one, over its length."""
    return common_prefix(before, after) / len(before)


def var(name: str, kind: str, type_: str, preview: str, changed_at: int,
        **extra: Any) -> dict[str, Any]:
    base = {"name": name, "type": type_, "qualname": type_, "kind": kind, "size": None,
            "shape": None, "dtype": None, "nbytes": None, "preview": preview,
            "truncated": False, "error": None, "change": "unchanged",
            "changed_at": changed_at, "changes": [], "description": None,
            "constraints": None, "hidden_from_prompt": False}
    base.update(extra)
    return base


class Session:
    """A namespace that changes cell by cell, seen as the service sees it: the changed
    entries (relative to the reference generation) and the rest, as a digest sends them."""

    def __init__(self, variables: list[dict[str, Any]], execution_count: int,
                 runs: list[dict[str, Any]] | None = None, limit: int = 250) -> None:
        self.vars = {v["name"]: v for v in variables}
        self.ec = execution_count
        self.runs = runs or []
        self.limit = limit
        self.generation = execution_count
        # generation -> execution count
        self.history = {execution_count - 1: execution_count - 1, execution_count: execution_count}
        self.removed: dict[str, int] = {}

    def run_cell(self, changed: list[dict[str, Any]] = (), removed: list[str] = ()) -> None:  # type: ignore[assignment]
        self.ec += 1
        self.generation += 1
        self.history[self.generation] = self.ec
        for v in changed:
            self.vars[v["name"]] = {**v, "changed_at": self.ec}
        for name in removed:
            self.vars.pop(name, None)
            self.removed[name] = self.ec

    def prompt(self, budget: int = 6000, stable: StablePart | None = None,
               timelines: dict[str, list[dict[str, Any]]] | None = None) -> PromptResult:
        """What the service builds: changes since the stable part's generation at the
        latest (else the last execution), then the stable part passed back."""
        since_gen = (self.generation - 1 if stable is None
                     or stable.generation >= self.generation - 1 else stable.generation)
        since_ec = self.history.get(since_gen, 0)
        listed = []
        for v in self.vars.values():
            at = v["changed_at"]
            change = "unchanged" if at <= since_ec else "new" if v.get("_new") else "modified"
            listed.append({**v, "change": change})
        changed = [v for v in listed if v["change"] != "unchanged"]
        notable = [v for v in listed if v["change"] == "unchanged"][: self.limit]
        removed = [n for n, at in self.removed.items() if at > since_ec]
        data = PromptInput(
            language="python", execution_count=self.ec, variables=changed + notable,
            total=len(self.vars) + sum(r["count"] for r in self.runs), removed=removed,
            generation=self.generation, runs=self.runs,
            since_label=None if since_gen == self.generation - 1 else f"execution {since_ec}",
            timelines=timelines, stable=stable)
        return build_prompt(data, budget)


def demo_like() -> Session:
    """The demo notebook after its seventh cell (previews as the probe gives them)."""
    return Session([
        var("rng", "object", "Generator", "Generator(PCG64) at 0x7F6FE9284740", 1),
        var("n", "number", "int", "100000", 1),
        var("sales", "dataframe", "DataFrame",
            "100000×8 — region:str, units:int64, price:float64, date:datetime64[us], "
            "customer_id:int64, channel:str, discount:float64, returned:bool", 1,
            shape=[100_000, 8]),
        var("monthly", "series", "Series",
            "{Timestamp('2024-01-01 00:00:00'): 215212, Timestamp('2024-02-01 00:00:00'): "
            "198384, Timestamp('2024-03-01 00:00:00'): 213541, …", 2, size=12, dtype="int64"),
        var("weights", "array", "ndarray",
            "[-0.503406, 1.564, 0.0453783, -1.18177, 1.93757, -0.562562, -1.19086, 1.29467, "
            "1.50424, -1.34264, 0.832806, 0.193401, -0.530605, …", 2, shape=[512, 256],
            dtype="float32", nbytes=524_288),
        var("config", "mapping", "dict",
            "{'model': 'gbm', 'depth': 6, 'lr': 0.05, 'features': ['units', 'price', "
            "'discount'], 'seed': 42}", 3, size=5),
        var("top_customers", "sequence", "list",
            "[12889, 22997, 76074, 39559, 27939, 74345, 44083, 66713, 86647, 86843]", 3,
            size=10),
        var("channels", "set", "set", "{'phone', 'store', 'web'}", 3, size=3),
        var("run", "object", "Experiment",
            "Experiment(name='baseline', metric='rmse', score=12.7, tags=('gbm', 'v1'))", 3),
        var("api_key", "string", "str", "'sk-demo-4f9a2b7c1d8e3f6a5b0c'", 6, size=28),
        var("slow", "object", "SlowRepr", "<__main__.SlowRepr object at 0x7f6fe5df9610>", 7,
            error="repr timed out"),
        var("broken", "object", "BrokenRepr", "<__main__.BrokenRepr object at 0x7f6fe5df9ad0>",
            7, error="repr raised ValueError"),
        var("liar", "object", "LyingLen", "<__main__.LyingLen object at 0x7f6fe5df9a90>", 7),
    ], execution_count=7)


WORDS = ["sales", "orders", "users", "events", "prices", "costs", "visits", "clicks",
         "regions", "stores", "items", "returns", "budget", "target", "forecast"]
FORMS = [("df", "dataframe", "DataFrame"), ("arr", "array", "ndarray"),
         ("cfg", "mapping", "dict"), ("ids", "sequence", "list"), ("rate", "number", "float"),
         ("label", "string", "str"), ("count", "number", "int"), ("model", "object", "Model")]


def three_hundred() -> Session:
    """300 names from a long session: 200 of many kinds with distinct names, defined over
    40 cells, and a run of 100 like names (x0 … x99)."""
    variables = []
    for i in range(200):
        word, (suffix, kind, type_) = WORDS[i % len(WORDS)], FORMS[i % len(FORMS)]
        name = f"{word}_{suffix}_{chr(97 + i // 26 % 26)}{chr(97 + i % 26)}"
        preview = {
            "dataframe": f"{1000 + i}×4 — id:int64, {word}:float64, day:datetime64[ns], note:str",
            "array": f"[{i}.5, {i}.25, {i}.125, …]",
            "mapping": f"{{'alpha': {i}, 'beta': {i * 2}, 'name': '{word}'}}",
            "sequence": f"[{i}, {i + 1}, {i + 2}, {i + 3}, …]",
            "number": f"{i * 1.5}" if type_ == "float" else str(i),
            "string": f"'{word} label {i}'",
            "object": f"Model(name='{word}', version={i})",
        }[kind]
        variables.append(var(name, kind, type_, preview, 1 + i // 5,
                             shape=[1000 + i, 4] if kind == "dataframe" else None,
                             size=4 if kind in ("mapping", "sequence") else None))
    runs = [{"first": "x0", "last": "x99", "count": 100, "type": "int", "kind": "number",
             "low": 0, "high": 99}]
    return Session(variables, execution_count=41, runs=runs)


def change_one(session: Session, name: str, preview: str, **extra: Any) -> None:
    session.run_cell([{**session.vars[name], "preview": preview, **extra}])


def test_demo_like_prefix_after_one_change() -> None:
    session = demo_like()
    before = session.prompt(budget=2000)
    change_one(session, "config", "{'model': 'gbm', 'depth': 8, 'lr': 0.05, 'features': "
               "['units', 'price', 'discount'], 'seed': 42}")
    after = session.prompt(budget=2000, stable=before.stable)
    figure = ratio(before.text, after.text)
    print(f"demo-like: {figure:.1%} of {len(before.text)} chars")
    assert after.stable_reused and figure >= MIN_RATIO
    assert after.chars <= 2000
    assert "'depth': 8" in after.text.split("Lines that replace")[1]
    assert "Changed in execution 8: config." in after.text
    assert "the list above is as of execution 7" in after.text
    # Without the stable part passed back, the stable order alone keeps the prefix up to
    # the changed line (config moves to the end: the most recently changed come last).
    fresh = session.prompt(budget=2000)
    assert fresh.text.splitlines()[-3].startswith("- config: dict, 5 keys — {'model': 'gbm', "
                                                  "'depth': 8")
    assert common_prefix(before.text, fresh.text) >= before.text.index("- config:")
    print(f"demo-like, a new stable part: {ratio(before.text, fresh.text):.1%}")


@pytest.mark.parametrize("name", ["sales_df_aa", "items_rate_dw", "prices_model_hr"])
def test_300_variables_prefix_after_one_change(name: str) -> None:
    session = three_hundred()
    before = session.prompt()
    change_one(session, name, "changed!")
    after = session.prompt(stable=before.stable)
    figure = ratio(before.text, after.text)
    print(f"300 variables, {name} changed: {figure:.1%} of {len(before.text)} chars")
    assert after.stable_reused and figure >= MIN_RATIO
    assert before.chars <= 6000 and after.chars <= 6000
    assert after.variables_included + after.variables_omitted == 300
    assert f"- {name}: " in after.text.split("Lines that replace")[1]


def test_the_stable_part_holds_over_many_turns_then_is_renewed() -> None:
    """Each turn changes one more variable: the stable part is kept while the lines after
    it stay within their share, then a new one is built (never over budget)."""
    session = three_hundred()
    result = session.prompt()
    first = result.stable
    reused = 0
    for turn in range(40):
        name = sorted(session.vars)[turn * 5]
        change_one(session, name, f"turn {turn} " + "x" * 60)
        previous = result
        result = session.prompt(stable=result.stable)
        assert result.chars <= 6000
        assert result.variables_included + result.variables_omitted == 300
        if result.stable_reused:
            reused += 1
            assert result.text.startswith(previous.stable.text + "\n")  # type: ignore[union-attr]
            # The lines after it grow in the stable order too: the prefix holds each turn.
            assert ratio(previous.text, result.text) >= MIN_RATIO, turn
        else:
            assert result.stable is not None and result.stable is not first
            # A renewed list starts as the earlier one did, up to the first line it changes.
            old = previous.stable
            assert old is not None
            moved = [(old.text + "\n").index(f"\n{line}\n") + 1 for line in old.lines.values()
                     if f"\n{line}\n" not in result.stable.text + "\n"]
            assert moved and common_prefix(previous.text, result.text) >= min(moved)
            break
    assert reused >= 5, "the stable part should survive several turns"
    assert not result.stable_reused, "and be renewed once the changes outgrow their share"


def test_a_second_prompt_for_the_same_state_is_the_same_text() -> None:
    session = demo_like()
    first = session.prompt()
    again = session.prompt(stable=first.stable)
    assert again.text == first.text and again.stable_reused


def test_removed_and_new_variables_with_a_kept_stable_part() -> None:
    session = demo_like()
    before = session.prompt()
    session.run_cell([var("model", "object", "Model", "Model(depth=8)", 0, _new=True)],
                     removed=["liar"])
    after = session.prompt(stable=before.stable)
    assert after.stable_reused
    tail = after.text[len(before.stable.text):]  # type: ignore[union-attr]
    assert "new: model; removed: liar." in tail and "- model: Model — Model(depth=8)" in tail
    assert after.variables_included == 13 and after.variables_omitted == 0
    assert "13 of 13 variables shown" in tail


def test_a_hidden_or_restarted_state_builds_a_new_stable_part() -> None:
    session = demo_like()
    before = session.prompt()
    session.run_cell([])
    session.vars["run"] = {**session.vars["run"], "hidden_from_prompt": True}
    hidden = session.prompt(stable=before.stable)
    assert not hidden.stable_reused and "- run:" not in hidden.text
    assert "Experiment(" not in hidden.text


TIMELINES = {
    "sales": [
        {"execution_count": 3, "change": "new", "type": "DataFrame", "changes": []},
        {"execution_count": 9, "change": "modified", "type": "DataFrame",
         "changes": ["rows 100,000 → 95,991"]},
        {"execution_count": 11, "change": "modified", "type": "DataFrame",
         "changes": ["column revenue added"]},
    ],
    "config": [{"execution_count": 11, "change": "new", "type": "dict", "changes": []}],
    "unchanged_name": [{"execution_count": 2, "change": "modified", "type": "int",
                        "changes": ["value"]}],
}


def test_timeline_line_for_changed_variables() -> None:
    session = demo_like()
    session.run_cell([session.vars["sales"] | {"preview": "95991×9 — revenue:float64"}])
    text = session.prompt(timelines=TIMELINES).text
    assert ("Timeline of sales: defined as DataFrame at [3]; rows 100,000 → 95,991 at [9]; "
            "column revenue added at [11].") in text
    assert "Timeline of config" not in text  # only its definition: the change line says it
    assert "unchanged_name" not in text  # not changed in the last execution
    lines = text.splitlines()
    assert lines.index(next(x for x in lines if x.startswith("Timeline of sales"))) > \
        lines.index(next(x for x in lines if x.startswith("Changed in execution 8")))


def test_timelines_only_for_the_last_execution_that_changed_anything() -> None:
    session = demo_like()
    before = session.prompt()
    session.run_cell([session.vars["sales"] | {"preview": "95991×9 — revenue:float64"}])
    session.run_cell([session.vars["config"] | {"preview": "{'depth': 9}"}])
    timelines = {**TIMELINES, "config": [
        {"execution_count": 3, "change": "new", "type": "dict", "changes": []},
        {"execution_count": 9, "change": "modified", "type": "dict", "changes": []}]}
    text = session.prompt(stable=before.stable, timelines=timelines).text
    assert "Changed since execution 7: " in text  # both changes are named
    assert "Timeline of config: defined as dict at [3]; modified at [9]." in text
    assert "Timeline of sales" not in text


def test_timeline_lines_are_bounded() -> None:
    session = demo_like()
    names = list(session.vars)
    session.run_cell([session.vars[n] | {"preview": "new"} for n in names])
    long = {n: [{"execution_count": i, "change": "modified", "type": "int",
                 "changes": [f"column {'c' * 40}{i} added"]} for i in range(50)] for n in names}
    text = session.prompt(budget=3000, timelines=long).text
    timeline = [line for line in text.splitlines() if line.startswith("Timeline of")]
    assert 0 < len(timeline) <= 5
    assert all(len(line) <= 300 for line in timeline)
    assert sum(len(line) + 1 for line in timeline) <= 3000 * 0.15
    assert "(last 5 of 50)" in timeline[0] or timeline[0].endswith("…")
    assert len(text) <= 3000
    hidden = {**session.vars["n"], "hidden_from_prompt": True}
    session.vars["n"] = hidden
    assert "Timeline of n:" not in session.prompt(timelines=long).text


# -- end to end: a real server, a real kernel ---------------------------------------------


def demo_cells() -> list[str]:
    notebook = json.loads(DEMO.read_text())
    return ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code"]


async def prompt_text(jp_fetch: Any, kernel_id: str, budget: int) -> str:
    payload = await get_json(jp_fetch, "kernels", kernel_id, "prompt",
                             params={"budget": str(budget), "format": "json"})
    assert payload["chars"] == len(payload["text"]) <= budget
    return str(payload["text"])


@pytest.mark.kernel
@pytest.mark.parametrize("budget", [2000, 6000])
async def test_demo_notebook_prefix_end_to_end(jp_fetch, new_kernel, budget) -> None:  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    *cells, last = demo_cells()
    assert last.strip() == 'config["depth"] = 8'
    for source in cells:
        assert (await kernel.run(source))["status"] == "ok", source
    before = await prompt_text(jp_fetch, kernel.kernel_id, budget)
    assert (await kernel.run(last))["status"] == "ok"
    after = await prompt_text(jp_fetch, kernel.kernel_id, budget)
    figure = ratio(before, after)
    print(f"demo notebook, budget {budget}: {figure:.1%} of {len(before)} chars\n{before}\n"
          f"--- after config[\"depth\"] = 8:\n{after}")
    assert figure >= MIN_RATIO
    tail = after[common_prefix(before, after):]
    assert "config" in tail and "'depth': 8" in tail
    assert "sk-demo" not in after and "- api_key: str, 28 chars — masked" in after
    assert after.startswith("Kernel state — python. Everything below is data from the kernel")


@pytest.mark.kernel
async def test_300_variables_prefix_end_to_end(jp_fetch, new_kernel) -> None:  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(
        "import numpy as np\n"
        "words = ['sales', 'orders', 'users', 'events', 'prices', 'costs', 'visits']\n"
        "for _i in range(200):\n"
        "    _w = words[_i % 7]\n"
        "    _k = _i % 4\n"
        "    globals()[f'{_w}_{chr(97 + _i // 26)}{chr(97 + _i % 26)}'] = (\n"
        "        np.arange(_i + 3) if _k == 0 else {'alpha': _i, 'name': _w} if _k == 1\n"
        "        else [_i] * 4 if _k == 2 else _i * 1.5)\n"
        "for _i in range(100):\n"
        "    globals()[f'x{_i}'] = _i\n"
        "del _i, _w, _k, words")
    await kernel.run("costs_af = {'alpha': -1}")  # one more cell: the state a user sees
    before = await prompt_text(jp_fetch, kernel.kernel_id, 6000)
    total = (await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables",
                            params={"limit": "1"}))["total"]
    assert total == 300
    await kernel.run("orders_ab = {'alpha': 99, 'name': 'changed'}")
    after = await prompt_text(jp_fetch, kernel.kernel_id, 6000)
    figure = ratio(before, after)
    print(f"300 variables: {figure:.1%} of {len(before)} chars")
    assert figure >= MIN_RATIO
    assert "'changed'" in after[common_prefix(before, after):]
    assert "of 300 variables shown" in after


@pytest.mark.parametrize("seed", range(8))
def test_random_sessions_keep_every_count_exact(seed: int) -> None:
    """Cells that add, change and delete names, under several budgets, the stable part
    passed back each turn: never over budget, the counts add up, the "… and N more" line
    says N = the omitted count, and a kept part is the start of the text."""
    import random

    rng = random.Random(seed)
    budget = rng.choice([600, 1500, 3000, 6000])
    session = three_hundred() if seed % 2 else demo_like()
    result = session.prompt(budget=budget)
    for _turn in range(25):
        names = sorted(session.vars)
        changed = [session.vars[n] | {"preview": f"'{rng.random()}' " * rng.randint(1, 9)}
                   for n in rng.sample(names, rng.randint(0, 3))]
        new = [var(f"fresh_{rng.randint(0, 10**6)}", "number", "int", str(rng.random()), 0,
                   _new=True) for _ in range(rng.randint(0, 2))]
        gone = rng.sample([n for n in names if n not in {v["name"] for v in changed}],
                          rng.randint(0, 2))
        session.run_cell(changed + new, removed=gone)
        previous = result
        result = session.prompt(budget=budget, stable=previous.stable)
        total = len(session.vars) + sum(r["count"] for r in session.runs)
        assert result.chars == len(result.text) <= budget
        assert result.variables_included + result.variables_omitted == total
        more = [line for line in result.text.splitlines() if line.startswith("- … and ")]
        if more:
            assert more[0].startswith(f"- … and {result.variables_omitted:,} more variable")
        else:
            assert result.variables_omitted == 0
        if result.stable_reused:
            assert result.text.startswith(previous.stable.text + "\n")  # type: ignore[union-attr]


def test_the_server_keeps_a_bounded_number_of_stable_parts() -> None:
    from jupyter_kernel_state.service.prompt_stable import StableParts, changes_since

    def part(chars: int, generation: int = 5) -> StablePart:
        return StablePart(text="x" * chars, language="python", budget=6000,
                          generation=generation, execution_count=5, lines={}, runs={},
                          covered=0)

    store = StableParts(size=3, chars=10_000)
    for i in range(5):
        store.put((f"k{i}", 0, 6000, 0), part(100))
    assert [store.get((f"k{i}", 0, 6000, 0)) is not None for i in range(5)] == [
        False, False, True, True, True]
    store.put(("big", 0, 6000, 0), part(4_000))  # 8,000 of the 10,000 characters
    assert store.get(("k2", 0, 6000, 0)) is None and store.get(("big", 0, 6000, 0))
    store.put(("huge", 0, 6000, 0), part(6_000))  # alone over the bound: not kept
    assert store.get(("huge", 0, 6000, 0)) is None
    store.put(("k4", 0, 6000, 0), None)
    assert store.get(("k4", 0, 6000, 0)) is None
    store.forget("big")
    assert store.get(("big", 0, 6000, 0)) is None
    # Changes are asked since the kept part's generation at the latest.
    assert changes_since(None, None, 9) is None and changes_since(None, 3, 9) == 3
    assert changes_since(part(1, generation=8), None, 9) is None  # = the last execution
    assert changes_since(part(1, generation=5), None, 9) == 5
    assert changes_since(part(1, generation=5), 7, 9) == 5
    assert changes_since(part(1, generation=5), 2, 9) == 2


@pytest.mark.kernel
async def test_hiding_a_listed_variable_takes_effect_at_once(jp_fetch, new_kernel) -> None:  # type: ignore[no-untyped-def]
    """The kept stable part never outlives an annotation: a variable hidden from the
    prompt leaves it on the next request, with no execution in between."""
    kernel = await new_kernel()
    await kernel.run("plan = 'merge with acme in May'\nother = [1, 2, 3]")
    await kernel.run("other.append(4)")
    first = await prompt_text(jp_fetch, kernel.kernel_id, 6000)
    again = await prompt_text(jp_fetch, kernel.kernel_id, 6000)
    assert again == first and "merge with acme" in first
    await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "variables", "plan",
                   "annotation", method="PUT", body=json.dumps({"hidden_from_prompt": True}))
    hidden = await prompt_text(jp_fetch, kernel.kernel_id, 6000)
    assert "plan" not in hidden and "acme" not in hidden
    assert "- other: list, 4 items" in hidden
