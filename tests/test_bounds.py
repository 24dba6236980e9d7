"""Bounds of the server's own buffers, on crafted input (the kernel paths are covered with
real kernels elsewhere; these are the limits too large to reach that way)."""

from __future__ import annotations

import json

import pytest

from jupyter_kernel_state.errors import InvalidRequest
from jupyter_kernel_state.service import annotations, history
from jupyter_kernel_state.service.annotations import AnnotationStore
from jupyter_kernel_state.service.history import HistoryLog


def test_annotation_count_is_bounded(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(annotations, "MAX_ANNOTATIONS", 2)
    store = AnnotationStore(tmp_path / "notes.json")
    note = {"description": "d", "constraints": None, "hidden_from_prompt": False}
    store.put("path:a.ipynb", "x", note)
    store.put("path:b.ipynb", "y", note)
    store.put("path:a.ipynb", "x", note)  # replacing one is always allowed
    with pytest.raises(InvalidRequest, match="Annotation limit reached"):
        store.put("path:a.ipynb", "z", note)
    assert json.loads((tmp_path / "notes.json").read_text())["annotations"]["path:a.ipynb"]


def test_unreadable_annotation_file_loses_nothing_else(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "notes.json"
    path.write_text("{not json")
    store = AnnotationStore(path)
    assert store.count() == 0
    store.put("kernel:k", "x", {"description": None, "constraints": None,
                                "hidden_from_prompt": True})
    assert AnnotationStore(path).for_scope("kernel:k")["x"]["hidden_from_prompt"] is True


def _msg(msg_type, parent, content):  # type: ignore[no-untyped-def]
    return {"header": {"msg_type": msg_type}, "parent_header": {"msg_id": parent},
            "content": content}


def test_history_bounds_image_ids_and_open_executions() -> None:
    log = HistoryLog()
    log.handle(_msg("execute_input", "p", {"code": "x", "execution_count": 1}), False, [])
    for n in range(history.MAX_IMAGE_IDS + 30):
        log.handle(_msg("display_data", "p", {"data": {"image/png": "…"}}), False, [f"i{n}"])
    log.handle(_msg("status", "p", {"execution_state": "idle"}), False, [])
    entry = log.listing(1)["entries"][0]
    assert len(entry["image_ids"]) == history.MAX_IMAGE_IDS
    assert entry["images_omitted"] == 30
    # Inputs whose idle never comes are not followed without end.
    for n in range(history.MAX_OPEN_EXECUTIONS + 10):
        log.handle(_msg("execute_input", f"q{n}", {"code": "", "execution_count": n}), False, [])
    assert len(log._open) == history.MAX_OPEN_EXECUTIONS
