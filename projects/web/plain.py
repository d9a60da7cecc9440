"""The sites origin's own few words (a page that is missing, replaced or gone, a
site's password): plain pages that look like nothing of the app's, styled by
one stylesheet of their own (`PAGES_CSS`) that every host of the sites origin
serves at `PAGES_CSS_PATH`, so they load nothing else and need no inline style
under the strictest policy.

The path holds "@", which no file's path may (projects.files.paths): on a
site's own host, where every other path is the site's, it names no page of it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from django.utils.html import escape

PAGES_CSS = (Path(__file__).resolve().parent / "plain_page.css").read_bytes()
PAGES_CSS_PATH = f"/@builtit/pages-{hashlib.sha256(PAGES_CSS).hexdigest()[:16]}.css"
# What the pages may load, where they are not sandboxed (a site's own host).
PAGES_CSP = "default-src 'none'; style-src 'self'; base-uri 'none'"

_PAGE = (
    '<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title>'
    '<meta name="viewport" content="width=device-width, initial-scale=1">'
    f'<link rel="stylesheet" href="{PAGES_CSS_PATH}"></head>'
    '<body><main class="page">{site}<h1>{heading}</h1><p>{text}</p>{more}</main></body></html>'
)


def plain_page(title: str, html: str, *, site: str = "", more: str = "", lang: str = "en") -> str:
    """A page titled `title` (text) saying `html` (already safe HTML), then
    `more` (safe HTML: a form); `site`, the name of the site it speaks for,
    above the title and in the tab; `lang`, the language it is written in."""
    named = f'<p class="site">{escape(site)}</p>' if site else ""
    tab = f"{title} · {site}" if site else title
    return _PAGE.format(
        lang=escape(lang),
        title=escape(tab),
        site=named,
        heading=escape(title),
        text=html,
        more=more,
    )
