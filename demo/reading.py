"""What the demo reads of a chat request, as a model would: the person's last
words, the tools it is offered, and the calls made since with their results
(the files listed, the texts read, the writes)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from common.jsontypes import decoded_object

WRITES = {"create_file", "update_file", "edit_file", "rename_file", "delete_file"}


@dataclass(frozen=True)
class Call:
    name: str
    arguments: dict[str, Any]
    result: dict[str, Any]

    @property
    def ok(self) -> bool:
        return bool(self.result.get("success"))


def calls_since(since: list[dict[str, Any]]) -> list[Call]:
    results = {
        str(m.get("tool_call_id")): _object(m.get("content"))
        for m in since
        if m.get("role") == "tool"
    }
    made = []
    for message in since:
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            made.append(
                Call(
                    str(function.get("name", "")),
                    _object(function.get("arguments")),
                    results.get(str(call.get("id")), {}),
                )
            )
    return made


def listed(made: list[Call]) -> list[str]:
    for call in made:
        if call.name == "list_project_files" and call.ok:
            entries = call.result.get("files") or []
            return [str(e.get("path")) for e in entries if isinstance(e, dict)]
    return []


def texts(made: list[Call]) -> dict[str, str]:
    return {
        str(call.result.get("path")): str(call.result.get("content", ""))
        for call in made
        if call.name == "read_file" and call.ok
    }


def writes(made: list[Call]) -> list[Call]:
    return [call for call in made if call.name in WRITES]


def text_of(message: dict[str, Any]) -> str:
    """A message's words; a tool's result as it came (a file's text is exact),
    anything else with each run of white space made one space or one line
    break, so no pattern of the demo's meets a long run of them: a message of
    20,000 spaces cost its cubic patterns hours (a review found it)."""
    content = message.get("content")
    if isinstance(content, list):
        content = " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    if not isinstance(content, str):
        return ""
    return content if message.get("role") == "tool" else tidy(content)


_RUNS = re.compile(r"\s{2,}")


def tidy(text: str) -> str:
    """`text` with each run of white space one space, or one line break."""
    return _RUNS.sub(_one, text)


def _one(run: re.Match[str]) -> str:
    return "\n" if "\n" in run.group() else " "


def tool_names(body: dict[str, Any]) -> set[str]:
    names = set()
    for tool in body.get("tools") or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict):
            names.add(str(function.get("name", "")))
    return names


def _object(raw: object) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    return (decoded_object(raw) or {}) if isinstance(raw, str) else {}
