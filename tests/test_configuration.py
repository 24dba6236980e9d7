"""Every server default has one home (``Limits``): the traits read it, and the
configuration reference documents the same values."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from traitlets import TraitError, TraitType

from jupyter_kernel_state.app import KernelStateApp
from jupyter_kernel_state.probe import protocol
from jupyter_kernel_state.service import Limits

DOC = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"
_ROW = re.compile(r"^\| `(\w+)` \| `([^`]*)`", re.MULTILINE)


def test_the_apps_limits_by_default_are_limits_defaults() -> None:
    assert KernelStateApp().limits() == Limits()


def test_the_configuration_reference_lists_every_trait_with_its_default() -> None:
    documented = dict(_ROW.findall(DOC.read_text(encoding="utf-8")))
    traits: dict[str, TraitType] = KernelStateApp.class_traits(config=True)
    ours = {name: trait for name, trait in traits.items()
            if trait.this_class is KernelStateApp}
    assert set(ours) <= set(documented), sorted(set(ours) - set(documented))
    for name, trait in ours.items():
        if name == "annotations_path":  # computed from the Jupyter data dir
            continue
        assert documented[name] == repr(trait.default_value), name


@pytest.mark.parametrize(("trait", "value", "ok"), [
    ("max_page_size", protocol.MAX_LIMIT, True),
    ("max_page_size", protocol.MAX_LIMIT + 1, False),
    ("page_size", protocol.MAX_LIMIT + 1, False),
    ("page_size", 0, False),
])
def test_a_page_size_past_the_probes_bound_is_refused_at_startup(
        trait: str, value: int, ok: bool) -> None:
    """The probe refuses a page past its bound: configuring one is an error at once, not
    a 400 on every request."""
    app = KernelStateApp()
    if ok:
        setattr(app, trait, value)
        assert getattr(app, trait) == value
    else:
        with pytest.raises(TraitError):
            setattr(app, trait, value)
