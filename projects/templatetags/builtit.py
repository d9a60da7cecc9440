from __future__ import annotations

from django import template

from projects.limits import human_size
from projects.preview import SANDBOX

register = template.Library()


@register.filter(name="human_size")
def human_size_filter(size: int | None) -> str:
    return human_size(int(size or 0))


@register.filter
def basename(path: str) -> str:
    return path.rsplit("/", 1)[-1]


@register.simple_tag
def preview_sandbox() -> str:
    return SANDBOX
