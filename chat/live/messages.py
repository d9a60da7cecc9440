"""The messages that travel on the channel layer (chat.live.layer), one TypedDict each.

Channels routes a message by its "type" to the consumer method of that name
("turn.events" to `turn_events`). Everything that sends or handles one of
these uses the types below, so a field is named and typed in one place.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from common.jsontypes import JSONObject

Mover = Literal["history", "person"]


class NumberedEvent(TypedDict):
    seq: int  # 1, 2, 3 … within one turn; a tab skips what it has seen
    event: JSONObject  # chat.agent.events.to_json


class TurnEvents(TypedDict):
    """A running turn's events, to every tab of the project (chat.live.layer)."""

    type: Literal["turn.events"]
    turn: str  # the lock holder's key
    conversation: int
    events: list[NumberedEvent]
    # The number of the first event covered (a merged run carries its last):
    # a tab that showed less than the one before knows it missed a batch.
    first: NotRequired[int]


class TurnStop(TypedDict):
    type: Literal["turn.stop"]


class SessionCheck(TypedDict):
    type: Literal["session.check"]
    ended: NotRequired[str]  # the session key signed out, if one was
    everywhere: NotRequired[bool]  # the person signed out everywhere


class SessionMoved(TypedDict):
    """A password change kept its session under a new key: tabs on the old one follow."""

    type: Literal["session.moved"]
    old_key: str
    new_key: str


class FilesMoved(TypedDict):
    """Files changed outside a turn, to every tab: by an undo, a redo or a restore
    of a turn ("history"), or by the person in the workspace ("person")."""

    type: Literal["files.moved"]
    paths: list[str]
    turn: int | None  # the turn whose summary changed (its first message), if any
    by: Mover
    tab: str  # the workspace tab that made a person's change (it has followed already)
    # Who made a person's change, for the others' tabs: "Erin saved this file."
    person: NotRequired[int]
    name: NotRequired[str]


class ConversationCompacted(TypedDict):
    """A conversation's earlier turns were summarised by hand: tabs showing it
    redraw its latest turn, which the summary's mark now sits above."""

    type: Literal["conversation.compacted"]
    conversation: int


class TurnLost(TypedDict):
    """A turn's server stopped (its lock lapsed): tabs following it redraw. Or,
    from the watchdog to a tab, "turn.unseen": it ended, its `done` not seen."""

    type: Literal["turn.lost", "turn.unseen"]
    turn: str


class AccessChanged(TypedDict):
    """To a person's sockets (chat.live.socket_auth.user_group): their access to
    a project changed (projects.signals.access_changed). Those open on it close
    with words when `role` is None (removed, or they left), else show the role."""

    type: Literal["access.changed"]
    project: str  # the project's id, as hex
    role: str | None  # projects.access.Role


class ProjectGone(TypedDict):
    type: Literal["project.gone"]


class AnswerRedraw(TypedDict):
    """From a tab to itself (chat.live.following): words shown as plain text at the
    streaming answer's end are due to be drawn as Markdown, though the model has
    sent nothing more since. It comes in turn with the tab's other messages."""

    type: Literal["answer.redraw"]


class OpenDue(TypedDict):
    """From a tab to itself (chat.live.consumers): the file its editor has open,
    held back by the bound on "open" frames, may be shown to the others now. It
    comes in turn with the tab's other messages."""

    type: Literal["open.due"]


class Person(TypedDict):
    """One person with the project open (chat.live.presence), their latest tab's file."""

    user: int
    name: str
    role: str  # projects.access.Role
    path: str  # the file open in their editor, "" for none


class PresenceChanged(TypedDict):
    """Who has the project open now, to every tab of it (chat.live.presence):
    a tab keeps the list with the highest `version` it has seen."""

    type: Literal["presence.changed"]
    version: int
    people: list[Person]  # by name, at most chat.live.presence.LISTED
    total: int  # how many people in all


def turn_events(
    *, turn: str, conversation: int, events: list[NumberedEvent], first: int | None = None
) -> TurnEvents:
    message: TurnEvents = {
        "type": "turn.events",
        "turn": turn,
        "conversation": conversation,
        "events": events,
    }
    if first is not None:
        message["first"] = first
    return message
