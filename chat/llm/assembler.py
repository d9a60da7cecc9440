"""Streamed pieces in, the finished assistant message out.

Text is gathered in StringIO buffers: linear time, and a few objects rather than
one per piece however long the answer.
Tool calls are gathered by index, then finished: missing arguments become
"{}", provider ids (`toolu_…`, nine-character ids) are kept as given, and
empty or repeated ids are replaced by unique ones so every tool result can be
matched to its call.
"""

from __future__ import annotations

import io
import secrets
from dataclasses import dataclass, field

from chat.llm.deltas import (
    ContentDelta,
    Finish,
    ReasoningDelta,
    ReasoningDetailsDelta,
    ResponseInfo,
    StreamEvent,
    ToolCallDelta,
    UsageReport,
)
from chat.llm.messages import AssistantMessage, ToolCall, Usage
from common.jsontypes import NOT_JSON, JSONObject, decoded
from common.text import well_formed


@dataclass(slots=True)
class _CallParts:
    id: str | None = None
    name: str = ""
    arguments: io.StringIO = field(default_factory=io.StringIO)


class MessageAssembler:
    def __init__(self) -> None:
        self._content = io.StringIO()
        self._reasoning = io.StringIO()
        self._details: list[JSONObject] = []
        self._calls: list[_CallParts] = []
        self._by_index: dict[int, _CallParts] = {}
        self.finish_reason: str | None = None
        self.usage: Usage | None = None
        self._info = ResponseInfo(None, None, None)

    def add(self, event: StreamEvent) -> None:
        match event:
            case ContentDelta(text):
                self._content.write(text)
            case ReasoningDelta(text):
                self._reasoning.write(text)
            case ReasoningDetailsDelta(details):
                self._details.extend(details)
            case ToolCallDelta():
                self._add_call(event)
            case Finish(reason):
                if self.finish_reason is None:
                    self.finish_reason = reason
            case UsageReport(usage):
                # Servers that report usage on every chunk report running totals.
                self.usage = usage
            case ResponseInfo():
                self._info = event

    @property
    def content(self) -> str:
        return self._content.getvalue()

    @property
    def written(self) -> int:
        """Characters of the answer so far: text, reasoning and tool calls (for an
        estimate of its cost when the provider never reports one)."""
        calls = sum(len(parts.name) + parts.arguments.tell() for parts in self._calls)
        return self._content.tell() + self._reasoning.tell() + calls

    @property
    def call_count(self) -> int:
        """Calls begun so far; grows when a new call starts in the stream."""
        return len(self._calls)

    def settled_calls(self) -> tuple[ToolCall, ...]:
        """The calls followed by a later one, so (on every provider that sends
        calls one after another) complete; ids as `message()` will give them."""
        settled = []
        for parts in self._calls[:-1]:
            if not parts.arguments.getvalue().strip():
                break  # no arguments yet: a provider interleaving calls may still send them
            settled.append(parts)
        return _finished_calls(settled)

    def message(self) -> AssistantMessage:
        return AssistantMessage(
            content=well_formed(self._content.getvalue()),
            reasoning=well_formed(self._reasoning.getvalue()),
            reasoning_details=tuple(self._details),
            tool_calls=_finished_calls(self._calls),
            finish_reason=self.finish_reason,
            usage=self.usage,
            model=self._info.model,
            provider=self._info.provider,
            generation_id=self._info.generation_id,
        )

    def _add_call(self, delta: ToolCallDelta) -> None:
        parts = self._by_index.get(delta.index)
        if parts is None or _starts_new_call(parts, delta):
            parts = _CallParts()
            self._calls.append(parts)
            self._by_index[delta.index] = parts
        if delta.id and not parts.id:
            parts.id = delta.id
        if delta.name and delta.name != parts.name:
            parts.name += delta.name
        if delta.arguments:
            parts.arguments.write(delta.arguments)


def _starts_new_call(parts: _CallParts, delta: ToolCallDelta) -> bool:
    """Some providers number every call 0; a different id, or a second name
    after complete arguments, is the next call, not more of this one."""
    if delta.id and parts.id and delta.id != parts.id:
        return True
    if delta.name and parts.name and delta.arguments and parts.arguments.tell():
        return _is_complete_json(parts.arguments.getvalue())
    return False


def _is_complete_json(text: str) -> bool:
    return decoded(text) is not NOT_JSON


def _finished_calls(calls: list[_CallParts]) -> tuple[ToolCall, ...]:
    finished = []
    seen: set[str] = set()
    for parts in calls:
        arguments = parts.arguments.getvalue()
        if not parts.name and not arguments.strip():
            continue  # an empty fragment with nothing to call
        if not parts.id or parts.id in seen:
            # Kept on the parts, so asking for the message again gives the same id.
            parts.id = f"call_{secrets.token_hex(12)}"
        seen.add(parts.id)
        arguments = well_formed(arguments) if arguments.strip() else "{}"
        finished.append(ToolCall(parts.id, well_formed(parts.name), arguments))
    return tuple(finished)
