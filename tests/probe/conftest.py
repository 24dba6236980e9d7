"""Probe tests run without a server: each starts from a fresh probe state."""

from __future__ import annotations

import pytest

from jupyter_kernel_state.probe import entry

from .stand_in import Shell


@pytest.fixture(autouse=True)
def fresh_probe():  # type: ignore[no-untyped-def]
    entry.install(shell=None)
    yield
    entry.install(shell=None)


@pytest.fixture
def shell():  # type: ignore[no-untyped-def]
    """The probe installed on a stand-in shell (modules may define their own)."""
    sh = Shell()
    entry.install(shell=sh)
    yield sh
    entry.install(shell=None)


def pytest_collection_modifyitems(config, items):  # type: ignore[no-untyped-def]
    """pytest-timeout's default method arms SIGALRM, which (correctly) makes the probe's
    time guard stand down; probe tests use the thread method so the guard is active."""
    here = str(config.rootpath / "tests" / "probe")
    for item in items:
        if str(item.path).startswith(here) and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(120, method="thread"))
