"""A new name for the site ("call it Crumb", "rename the site to Crumb", "it's
called Crumb", "change the name to Crumb"): where the pages show the old name
(the title, the brand, the main heading, the footer, the contact block, the
texts that name it), they show the new one. The old name is the one the home
page shows (demo.site.site_name); it is replaced as a whole word, with
its capitals, on every page, and nowhere else.
"""

from __future__ import annotations

import re

from demo.edits import Call, FileEdits
from demo.names import LONGEST_NAME, as_name
from demo.site import site_name, text
from demo.steps import Step

_RENAME = re.compile(
    r"\b(?:rename\s+(?:the\s+(?:site|website|business|shop)|it|the\s+name)\s+(?:to|as)"
    r"|(?:call|name)\s+(?:it|the\s+(?:site|website|business|shop))"
    r"|change\s+(?:the|its|our)\s+(?:(?:site|website|business|shop)(?:'s|\u2019s)?\s+)?name\s+to"
    r"|(?:it's|it\u2019s|it\s+is|we're|we\u2019re|we\s+are)\s+called"
    r"|(?:the|our|its)\s+(?:(?:site|website|business|shop)(?:'s|\u2019s)?\s+)?name\s+is)"
    r"\s*:?\s+[\"\u201c']?(?P<name>[^\"\u201d\n]+?)[\"\u201d']?\s*[.!]?$",
    re.IGNORECASE,
)


def renamed_to(request: str) -> str | None:
    """The new name `request` gives the site, or None when it asks for none."""
    found = _RENAME.search(request.strip())
    if found is None:
        return None
    return as_name(" ".join(found.group("name").split())[:LONGEST_NAME])


def rename(request: str, texts: dict[str, str]) -> Step:
    """The site's name, on every page read, becomes the one `request` gives."""
    new = renamed_to(request) or ""
    old = site_name(texts.get("/index.html", ""))
    if not old:
        return Step(
            "No home page with a name to change.",
            "There is no site with a name to change yet, so I changed nothing. Describe "
            "it (“a bakery called Crumb with a menu”) and I'll build it with its name.",
        )
    if old == new:
        return Step("It has that name already.", f"The site is called “{new}” already.")
    calls: list[Call] = []
    for path, page in sorted(texts.items()):
        if not path.endswith((".html", ".htm")):
            continue
        edits = FileEdits(path, page)
        _replace_all(edits, text(old), text(new))
        if edits.call is not None:
            calls.append(edits.call)
    if not calls:
        return Step(
            f"“{old}” is not written in the pages as a whole.",
            f"I could not find the name “{old}” written out in the pages, so I changed nothing.",
        )
    pages = ", ".join(str(call[1]["path"]).lstrip("/") for call in calls)
    return Step(
        f"The site is called “{old}” in its title, brand, heading and texts; every place "
        "that says it, on every page, gets the new name.",
        f"Renaming the site from “{old}” to “{new}” ({pages}).",
        calls,
    )


def _replace_all(edits: FileEdits, old: str, new: str) -> None:
    """Each whole-word `old` in the file, first to last, becomes `new`."""
    whole = re.compile(rf"(?<![\w&]){re.escape(old)}(?![\w])")
    at = 0
    while (found := whole.search(edits.text, at)) is not None:
        edits.replace(found.start(), found.end(), new)
        at = found.start() + len(new)
