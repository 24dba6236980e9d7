"""Hostile and counting objects shared by the probe tests."""

from __future__ import annotations

import threading
import time


class ReprRaises:
    def __repr__(self) -> str:
        raise ValueError("no repr")


class ReprSleeps:
    def __repr__(self) -> str:
        time.sleep(5)
        return "slept"


class ReprBlocks:
    lock = threading.Lock()

    def __repr__(self) -> str:
        self.lock.acquire()  # held by the test: blocks until the guard fires
        self.lock.release()
        return "unblocked"


class ReprHuge:
    def __repr__(self) -> str:
        return "x" * 50_000_000


class ReprNotStr:
    def __repr__(self):  # type: ignore[no-untyped-def]
        return 42


class ReprSwallowsTimeout:
    """Catches everything (even the guard's timeout) and keeps sleeping."""

    def __repr__(self) -> str:
        for _ in range(100):
            try:  # noqa: SIM105 (a hostile object swallows everything, on purpose)
                time.sleep(0.05)
            except BaseException:
                pass
        return "stubborn"


class LenRaises:
    def __len__(self) -> int:
        raise TypeError("no len")

    def __repr__(self) -> str:
        return "LenRaises()"


class LenNegative(LenRaises):
    def __len__(self) -> int:
        return -1


class LenHuge(LenRaises):
    def __len__(self) -> int:
        return 2**100


class LenNotInt(LenRaises):
    def __len__(self):  # type: ignore[no-untyped-def]
        return "3"


class AttributesRaise:
    """Every attribute access, ``dir``, ``==`` and ``hash`` raise."""

    def __getattribute__(self, name: str):  # type: ignore[no-untyped-def]
        raise RuntimeError("no attributes")

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        raise RuntimeError("no attributes")

    def __dir__(self):  # type: ignore[no-untyped-def]
        raise RuntimeError("no dir")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no eq")

    def __hash__(self) -> int:
        raise RuntimeError("no hash")


class ClassProperty:
    @property  # type: ignore[misc]
    def __class__(self):  # type: ignore[no-untyped-def]
        raise RuntimeError("__class__ was read")

    def __repr__(self) -> str:
        return "ClassProperty()"


class PropertyCounter:
    """Counts property reads: the probe must never evaluate properties."""

    reads = 0

    def __init__(self) -> None:
        self.plain = 1

    @property
    def expensive(self) -> int:
        PropertyCounter.reads += 1
        return 2


class CountingRepr:
    calls = 0

    def __repr__(self) -> str:
        CountingRepr.calls += 1
        return "CountingRepr()"


class Prints:
    def __repr__(self) -> str:
        print("printed from repr")
        import sys

        print("to stderr", file=sys.stderr)
        return "Prints()"


class DescribesItself:
    def _repr_llm_(self) -> str:
        return "a table of 3 customers"


class DescribesBadly:
    def _repr_llm_(self):  # type: ignore[no-untyped-def]
        return 7


def cycle_list() -> list:
    items: list = [1]
    items.append(items)
    return items


def cycle_dict() -> dict:
    d: dict = {"a": 1}
    d["self"] = d
    return d


def deep_list(depth: int = 10_000) -> list:
    root: list = []
    node = root
    for _ in range(depth):
        child: list = []
        node.append(child)
        node = child
    return root


class EqRaises:
    """Hashable, but comparing or printing it raises: fine as a dict key."""

    def __hash__(self) -> int:
        return 1

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no eq")

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class CustomBase(BaseException):
    """A user's own BaseException subclass."""


#: Every BaseException a user method may raise (the process keeps running).
BASE_EXCEPTIONS = (SystemExit, KeyboardInterrupt, GeneratorExit, CustomBase)


def raising(kind: type[BaseException], where: str) -> object:
    """An object whose ``where`` (repr, len, llm) raises ``kind``; the rest works."""

    class Raises:
        def __repr__(self) -> str:
            if where == "repr":
                raise kind("from repr")
            return "Raises()"

        def __len__(self) -> int:
            if where == "len":
                raise kind("from len")
            return 3

        if where == "llm":

            def _repr_llm_(self) -> str:
                raise kind("from llm")

    return Raises()


class DisplaysFromRepr:
    """Calls IPython's ``display``, warns and logs inside ``__repr__``."""

    def __repr__(self) -> str:
        import logging
        import warnings

        try:
            from IPython.display import display

            display("DISPLAYED FROM REPR")
        except ImportError:
            pass
        warnings.warn("warned from repr", UserWarning, stacklevel=1)
        logging.getLogger("hostile").error("logged from repr")
        return "DisplaysFromRepr()"
