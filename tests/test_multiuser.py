"""Many users at once (short version of ``benchmarks/multiuser.py``): 8 users behind a real
JupyterHub, 2 kernels each on one token-protected Kernel Gateway on another address (a
network namespace), 30 s of cells and reads of variables, rows and the prompt each. No
answer carries another user's data; every kernel is culled by the gateway's culler once
the users have left; memory and latencies are recorded (and printed)."""

from __future__ import annotations

import asyncio
import json

import pytest

from .multiuser import run
from .netns import Namespace

# Eight users' requests at once against one gateway: run alone (scripts/test.sh), not beside
# another test file's kernels, so that it measures this server, not the machine's load.
pytestmark = [pytest.mark.hub, pytest.mark.slow, pytest.mark.alone]


def test_many_users_one_gateway_on_another_host(tmp_path) -> None:  # type: ignore[no-untyped-def]
    why_not = Namespace.available()
    assert why_not is None, why_not  # root and iproute2 (scripts/setup.sh) are required
    report = asyncio.run(run(tmp_path, users=8, kernels=2, duration_s=30.0))
    print(json.dumps(report.summary(), indent=1))
    assert report.foreign == []  # no answer ever carries another user's data
    assert report.errors == []
    latencies = report.percentiles()
    assert set(latencies) == {"variables", "rows", "prompt", "cell"}
    assert all(n >= 8 for _, _, n in latencies.values())  # every user made requests
    assert len(report.server_rss_mb) == 8
    assert report.kernels_left == 0 and report.culled_after_s is not None  # all culled
