"""The offline demo's plans: in a plan turn (its tools only look) it works out
the calls it would make, as in any turn, and says them as numbered steps
instead of making them. Its plan names the request it answers, so the turn
that builds it ("Build this plan: …") does what the plan said.
"""

from __future__ import annotations

import html
import re
from typing import Any

_HEADER = "My plan for “{request}”:"
_PLANNED = re.compile(r"^My plan for “([^”\n]+)”:", re.MULTILINE)
_SHOWN_REQUEST = 200
_TAIL = "Nothing is changed yet. Ask me to build this plan and I'll make these changes."


def plan_text(request: str, calls: list[tuple[str, dict[str, Any]]]) -> str:
    """The plan for `request`: one numbered step per call the demo would make."""
    shown = " ".join(request.replace("”", '"').split())[:_SHOWN_REQUEST]
    steps = [
        f"{number}. {_step(name, arguments)}" for number, (name, arguments) in enumerate(calls, 1)
    ]
    return "\n\n".join([_HEADER.format(request=shown), "\n".join(steps), _TAIL])


def planned_request(text: str) -> str:
    """The request a message carrying one of the demo's plans asks to build, or
    the message itself."""
    found = _PLANNED.search(text)
    return found.group(1) if found else text


def _step(name: str, arguments: dict[str, Any]) -> str:
    path = str(arguments.get("path", "")).lstrip("/")
    if name in ("create_file", "update_file"):
        verb = "Create" if name == "create_file" else "Rewrite"
        return f"{verb} `{path}`{_what(path, str(arguments.get('content', '')))}."
    if name == "edit_file":
        edits = [edit for edit in arguments.get("edits") or [] if isinstance(edit, dict)]
        changes = "; ".join(
            _change(str(edit.get("search", "")), str(edit.get("replace", ""))) for edit in edits
        )
        return f"Edit `{path}`: {changes or 'a small change'}."
    return f"{name.replace('_', ' ').capitalize()} `{path}`."


def _what(path: str, content: str) -> str:
    """What a whole file the demo would write holds, in a few words."""
    if path.endswith(".html"):
        title = _texts(r"<h1[^>]*>(.*?)</h1>", content)
        sections = _texts(r"<h2[^>]*>(.*?)</h2>", content)
        headed = f" headed “{title[0]}”" if title else ""
        listed = f", with sections {_listed(sections)}" if sections else ""
        return f": the page{headed}{listed}, and navigation shared by every page"
    if path.endswith(".css"):
        names = re.findall(r"^\s*(--[\w-]+):", content, re.MULTILINE)
        kept = f" ({', '.join(names)})" if names else ""
        return f": the layout and the colours, kept in CSS custom properties{kept}"
    if path.endswith(".js"):
        comment = re.search(r"^//\s*(.+)$", content, re.MULTILINE)
        return (
            f": a small script ({comment.group(1).rstrip('.').lower()})"
            if comment
            else ": a small script"
        )
    return ""


def _change(search: str, replacement: str) -> str:
    """What one search/replace edit the demo would make does, in a few words."""
    said = (describe(search, replacement) for describe in _DESCRIBERS)
    return next((words for words in said if words), "a small change")


def _section_added(search: str, replacement: str) -> str:
    if replacement.count("<section") <= search.count("<section"):
        return ""
    heading = _texts(r"<h2[^>]*>(.*?)</h2>", replacement)
    return f"add a “{heading[0] if heading else 'new'}” section to the page"


def _heading_changed(search: str, replacement: str) -> str:
    before = _texts(r"<h[1-6][^>]*>(.*?)</h[1-6]>", search)
    after = _texts(r"<h[1-6][^>]*>(.*?)</h[1-6]>", replacement)
    if not after or before == after:
        return ""
    was = f"the heading “{before[0]}”" if before else "the main heading"
    return f"{was} becomes “{after[0]}”"


def _link_changed(search: str, replacement: str) -> str:
    links = re.findall(r'<a href="([^"]*)">([^<]*)</a>', replacement)
    was = re.findall(r'<a href="([^"]*)">([^<]*)</a>', search)
    if not links or links == was:
        return ""
    if len(links) > len(was):
        return f"link to the {html.unescape(links[-1][1])} page from the navigation"
    (href, label), (old_href, old_label) = links[-1], (was or links)[-1]
    if href == old_href:
        return f"the “{html.unescape(old_label)}” link now says “{html.unescape(label)}”"
    return f"the “{html.unescape(label)}” link leads to {href}"


def _variable_set(search: str, replacement: str) -> str:
    variable = re.search(r"(--[\w-]+):\s*([^;]+);", replacement)
    if variable is None or variable.group(0) in search:
        return ""
    return f"set `{variable.group(1)}` to `{variable.group(2).strip()}`"


def _image_described(search: str, replacement: str) -> str:
    alt = re.search(r'<img alt="([^"]*)"', replacement)
    if alt is None or alt.group(0) in search:
        return ""
    return f"describe an image as “{html.unescape(alt.group(1))}”"


_DESCRIBERS = (_section_added, _heading_changed, _link_changed, _variable_set, _image_described)


def _texts(pattern: str, text: str) -> list[str]:
    return [html.unescape(found.strip()) for found in re.findall(pattern, text, re.DOTALL)]


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
