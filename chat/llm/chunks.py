"""One chat-completion chunk (or non-streaming message) in, typed pieces out.

Tolerant of what providers really send: `delta.role` on every chunk,
`content: null` beside tool calls, `reasoning` or `reasoning_content`,
arguments as a string, an object or missing, a tool-call list without
`index`, and a final usage chunk whose choice repeats the finish reason.
"""

from __future__ import annotations

import json

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
from chat.llm.errors import InStreamError, error_from_chunk
from chat.llm.messages import Usage
from common.jsontypes import JSONObject, JSONValue, as_int, as_object, as_str, decoded_object

_ENDED_WITH_ERROR = "the provider ended the answer with an error"


class ChunkParser:
    def __init__(self) -> None:
        self._info_sent = False

    def parse(
        self, chunk: JSONObject, *, message_key: str = "delta"
    ) -> list[StreamEvent] | InStreamError:
        """The pieces in `chunk`, or the error it reports (detected by its `error` key)."""
        if chunk.get("error") not in (None, False):
            return error_from_chunk(chunk)
        events: list[StreamEvent] = []
        if not self._info_sent:
            self._info_sent = True
            events.append(
                ResponseInfo(
                    generation_id=as_str(chunk.get("id")),
                    model=as_str(chunk.get("model")),
                    provider=as_str(chunk.get("provider")),
                )
            )
        choices = chunk.get("choices")
        if isinstance(choices, list) and choices:
            choice = as_object(choices[0])
            _message_events(as_object(choice.get(message_key)), events)
            finish = choice.get("finish_reason")
            if isinstance(finish, str) and finish:
                if finish == "error":
                    return error_from_chunk({"error": {"message": _ENDED_WITH_ERROR}})
                events.append(Finish(finish))
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            events.append(UsageReport(Usage.from_wire(usage)))
        return events


def _message_events(delta: JSONObject, events: list[StreamEvent]) -> None:
    content = delta.get("content")
    if isinstance(content, list):  # content parts, as some providers send them
        content = "".join(as_str(as_object(part).get("text")) or "" for part in content)
    if content and isinstance(content, str):
        events.append(ContentDelta(content))
    reasoning = delta.get("reasoning") or delta.get("reasoning_content")
    if reasoning and isinstance(reasoning, str):
        events.append(ReasoningDelta(reasoning))
    details = delta.get("reasoning_details")
    if details and isinstance(details, list):
        kept = tuple(detail for detail in details if isinstance(detail, dict))
        if kept:
            events.append(ReasoningDetailsDelta(kept))
    tool_calls = delta.get("tool_calls")
    if tool_calls and isinstance(tool_calls, list):
        _tool_call_deltas(tool_calls, events)


def _tool_call_deltas(tool_calls: list[JSONValue], events: list[StreamEvent]) -> None:
    for position, raw in enumerate(tool_calls):
        call = as_object(raw)
        function = as_object(call.get("function"))
        index = as_int(call.get("index"))
        events.append(
            ToolCallDelta(
                # Without an index, the position in the list: right for a whole
                # message, and one call at a time for a stream.
                index=position if index is None else index,
                id=as_str(call.get("id")) or None,
                name=as_str(function.get("name")) or None,
                arguments=_arguments(function.get("arguments")),
            )
        )


def _arguments(raw: JSONValue) -> str:
    if isinstance(raw, str):
        return raw
    if raw is None:
        return ""
    # Some servers send the arguments as an object rather than JSON text.
    return json.dumps(raw, ensure_ascii=False)


def parse_json_chunk(data: bytes) -> JSONObject | None:
    """A `data:` payload as a JSON object, or None when it is not one."""
    return decoded_object(data)
