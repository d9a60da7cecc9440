"""What the fake OpenRouter says: the vocabulary of scripted replies.

The low-level events live in `events` and are re-exported here, so tests import
everything from this module. A `Reply` renders into the stream OpenRouter really
sends, quirks included: `delta.role` on every chunk, `content: null` on
tool-call chunks, a usage chunk that repeats the finish reason, a leading
`: OPENROUTER PROCESSING` comment.
"""

from __future__ import annotations

import copy
import itertools
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from fakes.events import (
    Action,
    Chunk,
    Comment,
    Done,
    Drop,
    Endless,
    Event,
    HttpError,
    Json,
    Pause,
    Raw,
    RecordedRequest,
    Stall,
    Stream,
)

__all__ = [
    "DEFAULT_USAGE",
    "Action",
    "Chunk",
    "Comment",
    "Done",
    "Drop",
    "Endless",
    "Event",
    "HttpError",
    "Json",
    "Pause",
    "Raw",
    "RecordedRequest",
    "Reply",
    "Scripted",
    "Stall",
    "Stream",
    "ToolCallScript",
    "in_stream_error",
    "never_stops",
    "text",
    "tool_calls",
]

# Serial numbers make generation and tool-call ids unique across replies, so a
# turn of several scripted replies never reuses an id, as with the real service.
_serials = itertools.count(1)

DEFAULT_USAGE: Mapping[str, Any] = {
    "prompt_tokens": 100,
    "completion_tokens": 20,
    "total_tokens": 120,
    "cost": 0.00042,
    "completion_tokens_details": {"reasoning_tokens": 0},
    "prompt_tokens_details": {"cached_tokens": 0},
}


@dataclass(frozen=True)
class ToolCallScript:
    name: str
    arguments: str | Mapping[str, Any] | None = None  # None: the key is omitted
    id: str | None = "auto"  # "auto": generated; None: omitted; else sent as given

    def arguments_text(self) -> str | None:
        if self.arguments is None or isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments, ensure_ascii=False)


def _default_usage() -> Mapping[str, Any]:
    return copy.deepcopy(dict(DEFAULT_USAGE))


def _split(text: str, pieces: int) -> list[str]:
    count = max(1, min(pieces, len(text)))
    bounds = [len(text) * k // count for k in range(count + 1)]
    return [text[a:b] for a, b in itertools.pairwise(bounds) if a < b]


@dataclass(frozen=True)
class Reply:
    content: str | None = None
    reasoning: str | None = None
    reasoning_details: Sequence[Mapping[str, Any]] = ()
    tool_calls: Sequence[ToolCallScript] = ()
    finish_reason: str | None = "auto"
    usage: Mapping[str, Any] | None = field(default_factory=_default_usage)
    model: str = "openai/gpt-4o-mini"
    provider: str = "OpenAI"
    content_pieces: int = 3
    argument_pieces: int = 3
    keepalive: bool = True
    done: bool = True
    line_ending: Literal["\n", "\r\n"] = "\n"
    piece_size: int | None = None
    pause: float = 0.0
    usage_repeats_finish: bool = True
    tool_call_indexes: Sequence[int] | None = None
    serial: int = field(init=False, repr=False, compare=False, default=0)
    created: int = field(init=False, repr=False, compare=False, default=0)

    def __post_init__(self) -> None:
        indexes = self.tool_call_indexes
        if indexes is not None and len(indexes) != len(self.tool_calls):
            raise ValueError("tool_call_indexes needs one index per tool call")
        object.__setattr__(self, "serial", next(_serials))
        object.__setattr__(self, "created", int(time.time()))

    @property
    def id(self) -> str:
        return f"gen-{self.created}-fake{self.serial:06d}"

    @property
    def finish(self) -> str | None:
        if self.finish_reason == "auto":
            return "tool_calls" if self.tool_calls else "stop"
        return self.finish_reason

    def call_id(self, position: int) -> str | None:
        given = self.tool_calls[position].id
        return f"call_{self.serial}_{position}" if given == "auto" else given

    def call_index(self, position: int) -> int:
        return position if self.tool_call_indexes is None else self.tool_call_indexes[position]

    def to_stream(self) -> Stream:
        events: list[Event] = [Comment()] if self.keepalive else []
        events += [self._chunk({"content": "", "reasoning": piece}) for piece in self._reasoning()]
        events += [
            self._chunk({"content": "", "reasoning_details": [d]}) for d in self.reasoning_details
        ]
        events += [self._chunk({"content": piece}) for piece in self._content()]
        for position in range(len(self.tool_calls)):
            events += [
                self._chunk({"content": None, "tool_calls": [fragment]})
                for fragment in self._fragments(position)
            ]
        if self.finish is not None:
            events.append(self._chunk({"content": ""}, self.finish))
        if self.usage is not None:
            repeated = self.finish if self.usage_repeats_finish else None
            events.append(self._chunk({"content": ""}, repeated, usage=self.usage))
        if self.done:
            events.append(Done())
        return Stream(events, self.line_ending, self.piece_size, self.pause)

    def to_json(self) -> dict[str, Any]:
        message: dict[str, Any] = {
            "role": "assistant",
            "content": self.content,
            "refusal": None,
            "reasoning": self.reasoning,
        }
        if self.reasoning_details:
            message["reasoning_details"] = [dict(d) for d in self.reasoning_details]
        if self.tool_calls:
            message["tool_calls"] = [self._whole_call(i) for i in range(len(self.tool_calls))]
        choice: dict[str, Any] = {"index": 0, "logprobs": None, "message": message}
        choice |= {"finish_reason": self.finish, "native_finish_reason": self.finish}
        body = self._envelope("chat.completion", choice)
        if self.usage is not None:
            body["usage"] = dict(self.usage)
        return body

    def _reasoning(self) -> list[str]:
        return _split(self.reasoning or "", self.content_pieces)

    def _content(self) -> list[str]:
        return _split(self.content or "", self.content_pieces)

    def _head(self, position: int) -> dict[str, Any]:
        head: dict[str, Any] = {"index": self.call_index(position)}
        call_id = self.call_id(position)
        if call_id is not None:
            head["id"] = call_id
        return head | {"type": "function"}

    def _whole_call(self, position: int) -> dict[str, Any]:
        function: dict[str, Any] = {"name": self.tool_calls[position].name}
        arguments = self.tool_calls[position].arguments_text()
        if arguments is not None:
            function["arguments"] = arguments
        return self._head(position) | {"function": function}

    def _fragments(self, position: int) -> list[dict[str, Any]]:
        whole = self._whole_call(position)
        arguments = self.tool_calls[position].arguments_text()
        if arguments is None or self.argument_pieces <= 1:
            return [whole]
        first = self._head(position) | {
            "function": {"name": self.tool_calls[position].name, "arguments": ""}
        }
        index = self.call_index(position)
        rest = [
            {"index": index, "function": {"arguments": piece}}
            for piece in _split(arguments, self.argument_pieces)
        ]
        return [first, *rest]

    def _envelope(self, kind: str, choice: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "id": self.id,
            "provider": self.provider,
            "model": self.model,
            "object": kind,
            "created": self.created,
            "choices": [choice],
        }

    def _chunk(
        self,
        delta: Mapping[str, Any],
        finish: str | None = None,
        *,
        usage: Mapping[str, Any] | None = None,
    ) -> Chunk:
        choice = {
            "index": 0,
            "delta": {"role": "assistant", **delta},
            "finish_reason": finish,
            "native_finish_reason": finish,
            "logprobs": None,
        }
        data = self._envelope("chat.completion.chunk", choice)
        if usage is not None:
            data["usage"] = dict(usage)
        return Chunk(data)


def in_stream_error(
    code: int | str,
    message: str,
    *,
    after: Sequence[Event] = (),
    finish_reason: str | None = "error",
) -> Stream:
    """Events in `after` first, then an error chunk; HTTP 200 and no [DONE], as OpenRouter does."""
    error = {
        "id": f"gen-{int(time.time())}-fake{next(_serials):06d}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": "openai/gpt-4o-mini",
        "provider": "OpenAI",
        "error": {"code": code, "message": message},
        "choices": [
            {
                "index": 0,
                "delta": {"content": ""},
                "finish_reason": finish_reason,
                "native_finish_reason": finish_reason,
            }
        ],
    }
    return Stream([*after, Chunk(error)])


Endlessly = Literal["content", "reasoning", "arguments"]
# What `never_stops` writes again and again: a piece of about a hundred characters.
ENDLESS_PIECE = "All work and no play makes a model write on past max_tokens, and on, and on. "


def never_stops(kind: Endlessly = "content", piece: str = ENDLESS_PIECE) -> Stream:
    """An answer from a provider that ignores `max_tokens` and never finishes:
    chunks of `kind` carrying `piece` again and again (for "arguments", after
    the head of a `create_file` call whose content never closes), until the
    client hangs up. No finish reason, no usage, no [DONE] ever comes."""
    head = Reply(content="")
    opening: list[Event] = [Comment()]
    if kind == "arguments":
        call = {"index": 0, "id": f"call_{head.serial}_0", "type": "function"}
        function = {"name": "create_file", "arguments": '{"path": "/index.html", "content": "'}
        opening.append(
            head._chunk({"content": None, "tool_calls": [call | {"function": function}]})
        )
        again = head._chunk(
            {"content": None, "tool_calls": [{"index": 0, "function": {"arguments": piece}}]}
        )
    elif kind == "reasoning":
        again = head._chunk({"content": "", "reasoning": piece})
    else:
        again = head._chunk({"content": piece})
    return Stream([*opening, Endless(again.encode("\n"))])


def text(content: str, **kw: Any) -> Reply:
    return Reply(content=content, **kw)


def tool_calls(*calls: ToolCallScript, **kw: Any) -> Reply:
    return Reply(tool_calls=calls, **kw)


Scripted: TypeAlias = Stream | HttpError | Json | Reply
