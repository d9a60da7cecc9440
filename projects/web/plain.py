"""The sites origin's own few words (a page that is missing, replaced or gone):
plain pages that look like nothing of the app's and load nothing."""

from __future__ import annotations

from django.utils.html import escape

_PAGE = (
    "<!doctype html><meta charset=utf-8><title>{title}</title>"
    '<meta name="viewport" content="width=device-width, initial-scale=1">'
    '<body style="font-family:system-ui;padding:2rem;color:#374151;max-width:40rem">'
    "<h1>{title}</h1><p>{text}</p>"
)


def plain_page(title: str, html: str) -> str:
    """A page titled `title` (text) saying `html` (already safe HTML)."""
    return _PAGE.format(title=escape(title), text=html)
