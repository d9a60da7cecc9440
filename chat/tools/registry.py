"""The tool registry: what a tool is, how its arguments are checked, how it answers.

A tool is a name, a description written for a model, a pydantic model for its
arguments (the JSON Schema the model sees is generated from it, and the same
model validates what comes back), metadata, and a plain synchronous handler.
Whatever goes wrong, a tool answers with a `ToolOutcome` whose `result` is the
JSON object the model reads: `{"success": true, ...}` or
`{"success": false, "error": "...", ...context}`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from chat.llm import ToolSpec
from common.jsontypes import NOT_JSON, JSONObject, JSONValue, decoded, json_problem
from projects.models import Project
from projects.services import Author

A = TypeVar("A", bound=BaseModel)

# What a tool does, as people and scripts read it (DESIGN §6.11). "other" is for a
# tool that fits none, and for a name no tool has.
ToolCategory = Literal["list", "read", "search", "write", "move", "delete", "check", "other"]
# Quiet steps (looking around) are folded into one line of the chat; primary ones
# (what changes the project) are each shown as a card of their own.
Visibility = Literal["primary", "quiet"]

# Enough of a bad argument to recognise it, not enough to echo a whole file back.
_MAX_ECHO = 200


class Arguments(BaseModel):
    """Base of every tool's argument model: unknown keys are ignored, not fatal."""

    model_config = ConfigDict(extra="ignore", frozen=True)


@dataclass(frozen=True)
class ToolContext:
    project: Project
    author: Author
    # The version of each file the model has seen in this turn (canonical path →
    # version); writes must name it, so a file changed by someone else is refused.
    known_versions: Mapping[str, int]
    # The person's message of this turn asks to remember something, so the
    # owner's instructions (/AGENTS.md) may change (chat.tools.instructions).
    may_change_instructions: bool = False


@dataclass(frozen=True)
class ToolOutcome:
    ok: bool
    result: JSONObject
    # One line for a person: "Created /index.html (1.2 KiB)", or why it failed.
    summary: str
    path: str | None = None
    # Paths whose content or existence changed (both names of a rename).
    changed: tuple[str, ...] = ()
    # File versions the model now knows (None: the file is gone).
    seen: Mapping[str, int | None] = field(default_factory=dict)
    # Slower work the call leaves running beside the turn (chat.agent.background):
    # given an Event set if the turn stops; what it returns reaches the model later.
    background: Callable[[threading.Event], JSONObject] | None = None

    @classmethod
    def failure(
        cls,
        error: str,
        *,
        summary: str | None = None,
        context: Mapping[str, JSONValue] | None = None,
    ) -> ToolOutcome:
        """An error result: `context` sits beside "error", empty values left out."""
        result: JSONObject = {"success": False, "error": error}
        context = context or {}
        result.update({key: value for key, value in context.items() if value not in (None, [], ())})
        path = context.get("path")
        return cls(False, result, summary or error, path if isinstance(path, str) else None)


@dataclass(frozen=True)
class Tool(Generic[A]):
    name: str
    description: str
    arguments: type[A]
    handler: Callable[[A, ToolContext], ToolOutcome]
    writes: bool
    category: ToolCategory
    visibility: Visibility
    label: str = ""  # what it does, in the words a person reads on its card

    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, tool_schema(self.arguments))

    def parse(self, raw: str) -> A | ToolOutcome:
        """The model's argument text as a validated model, or the error result to send back."""
        value = decoded(raw) if raw.strip() else {}
        if value is NOT_JSON:
            return ToolOutcome.failure(
                f"The arguments for {self.name} are not valid JSON ({_short(json_problem(raw))}). "
                "Send one JSON object with the fields the tool's schema lists.",
                summary="Arguments were not valid JSON",
                context={"code": "invalid_json", "received": _short(raw)},
            )
        if not isinstance(value, dict):
            return ToolOutcome.failure(
                f"The arguments for {self.name} must be a JSON object, not {_json_kind(value)}.",
                summary="Arguments were not a JSON object",
                context={"code": "invalid_arguments", "received": _short(raw)},
            )
        try:
            return self.arguments.model_validate(value)
        except ValidationError as error:
            return ToolOutcome.failure(
                f"The arguments for {self.name} do not match its schema: {_problems(error)}.",
                summary="Arguments did not match the schema",
                context={"code": "invalid_arguments", "expected": tool_schema(self.arguments)},
            )


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool[Any]]) -> None:
        self._tools: dict[str, Tool[Any]] = {}
        self._specs: list[ToolSpec] | None = None
        for tool in tools:
            if tool.name in self._tools:
                raise ValueError(f"Two tools are named {tool.name}")
            self._tools[tool.name] = tool

    def get(self, name: str) -> Tool[Any] | None:
        return self._tools.get(name)

    def specs(self) -> list[ToolSpec]:
        # Built once: generating the schemas costs milliseconds, on every request.
        if self._specs is None:
            self._specs = [tool.spec() for tool in self._tools.values()]
        return self._specs

    def names(self) -> list[str]:
        return list(self._tools)

    def only(self, categories: Collection[ToolCategory]) -> ToolRegistry:
        """The tools of these categories that write nothing: the set a turn that
        may only look is given, so a call to any other is an unknown tool."""
        return ToolRegistry(
            tool for tool in self._tools.values() if tool.category in categories and not tool.writes
        )

    def unknown(self, name: str) -> ToolOutcome:
        return ToolOutcome.failure(
            f"There is no tool named {_short(name)!r}. The tools are: {', '.join(self.names())}.",
            summary=f"Unknown tool {_short(name, 60)}",
            context={"code": "unknown_tool", "available_tools": list(self.names())},
        )


def tool_schema(model: type[BaseModel]) -> JSONObject:
    """The JSON Schema sent to the model: no titles, and nested models inlined,
    because several providers (Gemini among them) refuse `$ref`."""
    schema: JSONObject = model.model_json_schema()
    definitions = schema.pop("$defs", {})
    cleaned: JSONObject = _clean(schema, definitions if isinstance(definitions, dict) else {})
    return cleaned


def _clean(node: JSONValue, definitions: Mapping[str, JSONValue]) -> Any:
    if isinstance(node, list):
        return [_clean(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    reference = node.get("$ref")
    if isinstance(reference, str):
        return _clean(definitions[reference.rsplit("/", 1)[-1]], definitions)
    options = node.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
        # An optional field: plain `{"type": "integer"}`, left out of "required",
        # reads better to every provider than anyOf-with-null.
        kept = next(option for option in options if option != {"type": "null"})
        rest = {
            k: v for k, v in node.items() if k != "anyOf" and not (k == "default" and v is None)
        }
        return _clean({**rest, **(kept if isinstance(kept, dict) else {})}, definitions)
    return {
        key: _clean(value, definitions)
        for key, value in node.items()
        if key != "title" or not isinstance(value, str)
    }


def _problems(error: ValidationError) -> str:
    parts = []
    for problem in error.errors(include_url=False)[:5]:
        where = ".".join(str(part) for part in problem["loc"]) or "arguments"
        parts.append(f"{where}: {problem['msg'].lower()}")
    return "; ".join(parts)


def _json_kind(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    return (
        "a number"
        if isinstance(value, int | float) and not isinstance(value, bool)
        else "a boolean"
    )


def _short(text: str, limit: int = _MAX_ECHO) -> str:
    return text if len(text) <= limit else text[:limit] + "…"
