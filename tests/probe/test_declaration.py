"""The Python probe's declaration at ``ping``: every operation it handles, with the
optional fields it applies, generated from ``protocol.OPERATIONS`` (it cannot drift)."""

from __future__ import annotations

import base64
import json

import pytest

from jupyter_kernel_state.probe import entry, protocol
from jupyter_kernel_state.service.capabilities import Capabilities
from jupyter_kernel_state.service.languages import python


def ping() -> dict[str, object]:
    """The ping reply as the server reads it: through ``call``, as JSON text."""
    encoded = base64.urlsafe_b64encode(json.dumps({"op": "ping"}).encode()).decode()
    reply = json.loads(repr(entry.call(encoded)))
    assert reply["ok"] is True
    return reply


def test_ping_declares_every_operation_it_handles() -> None:
    declared = ping()["operations"]
    assert isinstance(declared, dict)
    assert set(declared) == set(entry.HANDLERS) == set(protocol.OPERATIONS)


@pytest.mark.parametrize("op", sorted(protocol.OPERATIONS))
def test_ping_declares_each_operations_optional_fields(op: str) -> None:
    declared = ping()["operations"]
    assert isinstance(declared, dict)
    optional = [f.name for f in protocol.OPERATIONS[op].fields if not f.required]
    assert declared[op] == optional
    assert not {f.name for f in protocol.OPERATIONS[op].fields if f.required} & set(declared[op])


def test_the_server_reads_the_declaration() -> None:
    capabilities = Capabilities.from_ping(ping(), python.SUPPORT)
    assert capabilities.declared
    assert capabilities.operations == frozenset(protocol.OPERATIONS)
    assert capabilities.applies("snapshot", "changed_in") is True
    assert capabilities.applies("snapshot", "name") is False  # not a snapshot field
    assert capabilities.applies("rows", "name") is False  # required: not declared
    assert capabilities.applies("digest", "pinned") is True


def test_a_probe_that_declares_nothing_is_taken_as_its_language_was() -> None:
    """An older probe's ping said nothing: the language's set stands, fields unknown."""
    older = {"ok": True, "probe_id": "p"}
    capabilities = Capabilities.from_ping(older, python.SUPPORT)
    assert not capabilities.declared
    assert capabilities.operations == python.SUPPORT.operations | {"ping", "snapshot",
                                                                   "detail"}
    assert capabilities.applies("snapshot", "changed_in") is None
