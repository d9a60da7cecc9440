"""Turn events as readable terminal output, for `manage.py chat`."""

from __future__ import annotations

from django.core.management.base import OutputWrapper

from chat.agent.events import (
    ContentText,
    Done,
    ErrorEvent,
    Event,
    ReasoningText,
    StreamReset,
    ToolResultEvent,
    TurnStarted,
    UsageEvent,
)
from chat.money import dollars

_GREEN, _RED, _DIM, _RESET = "\033[32m", "\033[31m", "\033[2m", "\033[0m"


class ConsoleRenderer:
    """Streams text as it comes; one line per finished tool call; a summary at the end."""

    def __init__(self, out: OutputWrapper, err: OutputWrapper, *, color: bool) -> None:
        self.out = out
        self.err = err
        self.color = color
        self.mid_line = False
        self.thinking = False

    def show(self, event: Event) -> None:
        match event:
            case TurnStarted(conversation_id=conversation, model=model):
                self._line(self._dim(f"Conversation {conversation} · {model}"))
            case ContentText(text):
                self._text(text)
            case ReasoningText():
                if not self.thinking:
                    self.thinking = True
                    self._line(self._dim("(thinking…)"))
            case StreamReset():
                self._line(self._dim("(the answer was interrupted; asking again)"))
            case ToolResultEvent():
                self._tool(event)
            case UsageEvent():
                self.thinking = False
            case ErrorEvent(message=message):
                self._end_text()
                self.err.write(self._paint(f"Error: {message}", _RED))
            case Done():
                self._summary(event)
            case _:
                pass  # announcements and progress: the result line says it all

    def _tool(self, event: ToolResultEvent) -> None:
        mark = self._paint("✓", _GREEN) if event.ok else self._paint("✗", _RED)
        timing = self._dim(f"({event.duration_ms:.0f} ms)")
        self._line(f"  {mark} {event.name}: {event.summary} {timing}")

    def _summary(self, done: Done) -> None:
        self._end_text()
        cost = dollars(done.cost) or "cost not reported"
        files = ", ".join(done.files_changed) if done.files_changed else "none"
        self.out.write(
            self._dim(
                f"{done.status} ({done.finish_reason}) · {done.iterations} requests · "
                f"{done.total_tokens:,} tokens · {cost} · files changed: {files}"
            )
        )

    def _text(self, text: str) -> None:
        self.out.write(text, ending="")
        self.out.flush()
        self.mid_line = not text.endswith("\n")

    def _line(self, text: str) -> None:
        self._end_text()
        self.out.write(text)

    def _end_text(self) -> None:
        if self.mid_line:
            self.out.write("")
            self.mid_line = False

    def _dim(self, text: str) -> str:
        return self._paint(text, _DIM)

    def _paint(self, text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if self.color else text
