"""Turn events as readable terminal output, for `manage.py chat`."""

from __future__ import annotations

from django.core.management.base import OutputWrapper

from chat.agent.events import (
    CompactionEvent,
    ContentText,
    ContextEvent,
    Done,
    ErrorEvent,
    Event,
    FilesChanged,
    ReasoningText,
    StreamReset,
    ToolCallsAnnounced,
    ToolExecuting,
    ToolResultEvent,
    TurnStarted,
    UsageEvent,
)
from chat.money import dollars
from chat.render.events import draw
from chat.render.gauge import compaction_line, context_warning

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
        draw(self, event)

    # --- one method per event (chat.render.events.EventRenderer) ------------------

    def turn_started(self, event: TurnStarted) -> None:
        plan = " · plan only: nothing is changed" if event.plan else ""
        self._line(self._dim(f"Conversation {event.conversation_id} · {event.model}{plan}"))

    def content(self, event: ContentText) -> None:
        self._text(event.text)

    def reasoning(self, event: ReasoningText) -> None:
        if not self.thinking:
            self.thinking = True
            self._line(self._dim("(thinking…)"))

    def stream_reset(self, event: StreamReset) -> None:
        self._line(self._dim("(the answer was interrupted; asking again)"))

    # Announced, running, files changed: the result line says it all.
    def tool_calls(self, event: ToolCallsAnnounced) -> None:
        pass

    def tool_executing(self, event: ToolExecuting) -> None:
        pass

    def files_changed(self, event: FilesChanged) -> None:
        pass

    def tool_result(self, event: ToolResultEvent) -> None:
        self._tool(event)

    def usage(self, event: UsageEvent) -> None:
        self.thinking = False

    def context(self, event: ContextEvent) -> None:
        record = event.record
        if record.warning:
            self._line(self._dim(context_warning(record)))

    def compaction(self, event: CompactionEvent) -> None:
        self._line(self._dim(compaction_line(event)))

    def error(self, event: ErrorEvent) -> None:
        self._end_text()
        self.err.write(self._paint(f"Error: {event.message}", _RED))

    def done(self, event: Done) -> None:
        self._summary(event)

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
