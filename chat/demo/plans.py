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
        changes = "; ".join(_change(str(edit.get("replace", ""))) for edit in edits)
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


def _change(replacement: str) -> str:
    """What one search/replace edit the demo would make does, in a few words."""
    heading = _texts(r"<h1[^>]*>(.*?)</h1>", replacement)
    section = _texts(r"<h2[^>]*>(.*?)</h2>", replacement)
    link = _texts(r"<a [^>]*>(.*?)</a>", replacement)
    variable = re.search(r"(--[\w-]+):\s*([^;]+);", replacement)
    if heading:
        return f"the main heading becomes “{heading[0]}”"
    if section:
        return f"add a “{section[0]}” section at the end of the main content"
    if link:
        return f"link to the {link[0]} page from the navigation"
    if variable:
        return f"set `{variable.group(1)}` to `{variable.group(2).strip()}`"
    return "a small change"


def _texts(pattern: str, text: str) -> list[str]:
    return [html.unescape(found.strip()) for found in re.findall(pattern, text, re.DOTALL)]


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
