"""Refusals are one family: every `…Refused` of the apps is a frozen `Refusal`
that carries the words of why something was not done."""

from __future__ import annotations

import dataclasses
import importlib
import re
from pathlib import Path

import pytest
from django.conf import settings

from common.refusals import Refusal

ROOT = Path(settings.BASE_DIR)
APPS = ("accounts", "builtit", "chat", "common", "demo", "projects")
_DEFINED = re.compile(r"^class (\w+)\(Refusal\):", re.MULTILINE)


def _defined() -> dict[str, str]:
    """Each Refusal subclass the apps' source defines, by name, with its module."""
    found: dict[str, str] = {}
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            for name in _DEFINED.findall(path.read_text()):
                found[name] = module
    return found


def _family() -> list[type[Refusal]]:
    for module in set(_defined().values()):
        importlib.import_module(module)
    family: list[type[Refusal]] = []
    pending = list(Refusal.__subclasses__())
    while pending:
        kind = pending.pop()
        family.append(kind)
        pending.extend(kind.__subclasses__())
    return sorted(family, key=lambda kind: kind.__name__)


def _one(kind: type[Refusal], message: str) -> Refusal:
    more = {
        field.name: "x"
        for field in dataclasses.fields(kind)
        if field.name != "message"
        and field.default is dataclasses.MISSING
        and field.default_factory is dataclasses.MISSING
    }
    return kind(message, **more)


def test_the_family_is_every_refusal_the_apps_define() -> None:
    defined = _defined()
    assert len(defined) >= 15
    assert {kind.__name__ for kind in _family()} == set(defined)


@pytest.mark.parametrize("kind", _family(), ids=lambda kind: kind.__name__)
def test_each_refusal_carries_its_message(kind: type[Refusal]) -> None:
    assert kind.__name__.endswith("Refused")
    refusal = _one(kind, "Why it was not done.")
    assert isinstance(refusal, Refusal)
    assert refusal.message == "Why it was not done."
    with pytest.raises(dataclasses.FrozenInstanceError):
        refusal.message = "other words"  # type: ignore[misc]
