"""The front end's shape: ES modules of at most 400 lines each, whose page-level
handlers all go through static/builtit/events.js (one listener per event type
on the page), loaded as modules by the templates."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

STATIC = Path(settings.BASE_DIR) / "static" / "builtit"
# The preview bridge's page end runs in the person's page, on the sites origin:
# a classic script of its own, with that page's listeners.
PAGE_END = STATIC / "bridge" / "page.js"
TEMPLATES = Path(settings.BASE_DIR) / "templates"


def _scripts() -> list[Path]:
    return sorted(path for path in STATIC.rglob("*.js") if path != PAGE_END)


def test_no_script_is_over_400_lines() -> None:
    long = [str(path) for path in _scripts() if len(path.read_text().splitlines()) > 400]
    assert long == []


def test_page_level_listeners_go_through_the_pages_one_listener() -> None:
    direct = re.compile(r"\b(document|window|document\.body)\.addEventListener\(")
    found = [
        str(path)
        for path in _scripts()
        if path.name != "events.js" and direct.search(path.read_text())
    ]
    assert found == []


def test_the_templates_load_the_apps_scripts_as_modules() -> None:
    # theme.js runs before the page paints (not deferred): a classic script.
    classic = re.compile(r"<script src=\"\{% static 'builtit/(?!theme\.js)[^']+' %\}\"")
    found = [str(path) for path in TEMPLATES.rglob("*.html") if classic.search(path.read_text())]
    assert found == []


def test_the_bridges_ends_keep_no_copy_of_the_servers_bounds() -> None:
    # How many problems a page reports, and where a field is cut: the server's
    # numbers (common.bridge), read from the page's limits and the bridge's tag.
    copied = re.compile(
        r"\b(MAX_PROBLEMS|PROBLEMS_PER_PAGE)\s*=\s*\d|cut\((message|file|where\(\)|"
        r"selectorOf\(el\)|location\.pathname), \d"
    )
    bridge = sorted((STATIC / "bridge").glob("*.js"))
    assert bridge
    assert [str(path) for path in bridge if copied.search(path.read_text())] == []
    assert "document.currentScript.dataset.bounds" in PAGE_END.read_text()
