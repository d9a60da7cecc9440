"""Every renderer of turn events goes through `draw`: one `match` over the
event union, ending in `assert_never`. A renderer implements `EventRenderer`,
a method per kind of event, so a new kind of event is a type error in every
renderer until each says how it shows it (or that it does not) -- never an
event dropped silently."""

from __future__ import annotations

from typing import Protocol, TypeVar, assert_never

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

R_co = TypeVar("R_co", covariant=True)


class EventRenderer(Protocol[R_co]):
    def turn_started(self, event: TurnStarted) -> R_co: ...
    def content(self, event: ContentText) -> R_co: ...
    def reasoning(self, event: ReasoningText) -> R_co: ...
    def stream_reset(self, event: StreamReset) -> R_co: ...
    def tool_calls(self, event: ToolCallsAnnounced) -> R_co: ...
    def tool_executing(self, event: ToolExecuting) -> R_co: ...
    def tool_result(self, event: ToolResultEvent) -> R_co: ...
    def files_changed(self, event: FilesChanged) -> R_co: ...
    def usage(self, event: UsageEvent) -> R_co: ...
    def context(self, event: ContextEvent) -> R_co: ...
    def compaction(self, event: CompactionEvent) -> R_co: ...
    def error(self, event: ErrorEvent) -> R_co: ...
    def done(self, event: Done) -> R_co: ...


R = TypeVar("R")


def draw(renderer: EventRenderer[R], event: Event) -> R:  # noqa: C901, PLR0911, PLR0912  (one case per event)
    match event:
        case TurnStarted():
            return renderer.turn_started(event)
        case ContentText():
            return renderer.content(event)
        case ReasoningText():
            return renderer.reasoning(event)
        case StreamReset():
            return renderer.stream_reset(event)
        case ToolCallsAnnounced():
            return renderer.tool_calls(event)
        case ToolExecuting():
            return renderer.tool_executing(event)
        case ToolResultEvent():
            return renderer.tool_result(event)
        case FilesChanged():
            return renderer.files_changed(event)
        case UsageEvent():
            return renderer.usage(event)
        case ContextEvent():
            return renderer.context(event)
        case CompactionEvent():
            return renderer.compaction(event)
        case ErrorEvent():
            return renderer.error(event)
        case Done():
            return renderer.done(event)
        case _:
            assert_never(event)
