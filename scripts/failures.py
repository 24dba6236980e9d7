"""The failing tests of the UI suites, one line each with the first line of the error:
printed last by the test command, so that the end of its output names them."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _failures(suite: dict[str, Any], path: tuple[str, ...] = ()) -> Iterator[str]:
    title = suite.get("title") or ""
    here = (*path, title) if title else path
    for spec in suite.get("specs", []):
        if spec.get("ok", True):
            continue
        error = ""
        for test in spec.get("tests", []):
            for result in test.get("results", []):
                message = (result.get("error") or {}).get("message") or ""
                if message and not error:
                    error = ANSI.sub("", message).strip().splitlines()[0][:200]
        where = f"{spec.get('file', '')}:{spec.get('line', '')}"
        named = " › ".join((*here[1:], spec.get("title", "")))
        yield f"{where} › {named}: {error}"
    for child in suite.get("suites", []):
        yield from _failures(child, here)


def main(reports: list[str]) -> int:
    found = 0
    for name in reports:
        path = Path(name)
        if not path.exists():
            continue
        report = json.loads(path.read_text())
        for suite in report.get("suites", []):
            for line in _failures(suite):
                print(f"failed: {line}")
                found += 1
    return found


if __name__ == "__main__":
    main(sys.argv[1:])
