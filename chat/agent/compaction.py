"""Compaction: when a conversation's earlier turns no longer fit the history's
budget, the oldest are summarised by the model into one stored summary
(chat.models.Compaction), which the model reads instead of them from then on.
The turns themselves stay, shown and exported as they were.

    history = history_for(turns, summary=latest, budget=8_000)
    if history.left_out:                       # some turns would not be read at all
        part = due(history, budget=8_000)      # the oldest to summarise, the rest kept
        stored = await compacted(project=..., conversation=..., part=part, ...)

A turn compacts before its first request (chat.agent.loop); the person can
compact by hand (chat.views.compaction). The summary of a later compaction
covers the earlier summary too, so one summary is ever read.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from django.contrib.auth.models import User

from chat import services
from chat.agent import prompt
from chat.agent.model_choice import choose_model
from chat.agent.one_shot import Answer, AskRefused, ask_once
from chat.agent.state import Spend
from chat.asks import SUMMARY_TASK
from chat.llm import ChatMessage, LLMClient
from chat.models import Compaction, Conversation
from chat.personal_keys import key_for
from chat.selectors.conversations import compaction_latest, last_model
from chat.selectors.past_turns import PastTurn, past_turns
from common import threads
from projects.locks import LockHeld, lock_acquire, lock_release
from projects.models import Project

logger = logging.getLogger(__name__)

SUMMARY_TOKENS = 1_200  # the longest summary asked for
SUMMARY_SECONDS = 120.0
# After a compaction the turns still read in full fill at most this share of
# the budget, so the next one is not due at the very next turn.
KEPT_SHARE = 0.5
# What the summary request may carry of each turn, and of all of them (about
# 20,000 tokens); longer answers are cut, the oldest first.
_TURN_REQUEST_CHARS = 2_000
_TURN_ANSWER_CHARS = (3_000, 1_000, 300, 0)
_INPUT_CHARS = 60_000

_SUMMARY_RULES = f"""\
{SUMMARY_TASK} You will continue the work from your summary alone: the \
conversation's turns will no longer be shown to you, only this summary and the project's \
current files.

Write, in the person's language, at most 300 words of short bullet points under these \
headings: "The site" (what it is for, its audience, its pages and sections as they \
stand), "The person's wishes" (preferences, decisions, wording, colours, names and \
facts they gave; keep their exact words where they matter), "Done" (what was built or \
changed, turn by turn where useful, including undos and restores), "Open" (requests \
not done yet, problems found, questions left). Never include file contents or code. \
Answer with the summary only."""


@dataclass(frozen=True)
class Summary:
    """What the model reads instead of the turns before `before_sequence`."""

    text: str
    turns: int
    before_sequence: int

    @classmethod
    def of(cls, stored: Compaction | None) -> Summary | None:
        if stored is None:
            return None
        return cls(stored.summary, stored.turns, stored.before_sequence)


@dataclass(frozen=True)
class History:
    """What the model reads of a conversation's earlier turns."""

    summary: Summary | None
    read: list[PastTurn] = field(default_factory=list)  # in full, within the budget
    unread: list[PastTurn] = field(default_factory=list)  # not covered, past the budget

    @property
    def left_out(self) -> int:
        return len(self.unread)

    def messages(self, *, budget: int) -> list[ChatMessage]:
        summary = [summary_message(self.summary)] if self.summary else []
        return summary + prompt.history_messages(self.read, budget_tokens=budget)


@dataclass(frozen=True)
class Part:
    """The turns a compaction summarises (with the summary before them), and
    those it leaves to be read in full."""

    previous: Summary | None
    summarised: list[PastTurn]
    kept: list[PastTurn]

    @property
    def turns(self) -> int:
        return len(self.summarised) + (self.previous.turns if self.previous else 0)

    @property
    def before_sequence(self) -> int:
        if self.kept:
            return self.kept[0].sequence
        return self.summarised[-1].sequence + 1


def history_for(turns: list[PastTurn], *, summary: Summary | None, budget: int) -> History:
    """The conversation's `turns` (oldest first) as the model reads them: the
    summary, then the newest turns it does not cover that fit the budget."""
    covered = summary.before_sequence if summary else 0
    uncovered = [turn for turn in turns if turn.sequence >= covered]
    room = budget - (prompt.estimate_tokens(summary.text) if summary else 0)
    read = _newest_within(uncovered, room)
    return History(summary, read, uncovered[: len(uncovered) - len(read)])


def due(history: History, *, budget: int, by_hand: bool = False) -> Part | None:
    """What a compaction now would summarise: the turns not covered but the
    newest that fill KEPT_SHARE of the budget (by hand: all but the latest).
    None when there is nothing to summarise."""
    uncovered = history.unread + history.read
    if by_hand:  # all but the latest turn, when there are two or more
        keep = 1 if len(uncovered) > 1 else len(uncovered)
    else:
        keep = len(_newest_within(uncovered, int(budget * KEPT_SHARE)))
    split = len(uncovered) - keep
    if split == 0:
        return None
    return Part(history.summary, uncovered[:split], uncovered[split:])


def summary_message(summary: Summary) -> ChatMessage:
    """The summary as the model reads it, where the turns it covers would be."""
    plural = "s" if summary.turns != 1 else ""
    return ChatMessage.system(
        f"Summary of the first {summary.turns} turn{plural} of this conversation, written "
        "when it grew long (the person can still see them; you read this instead):\n" + summary.text
    )


def summary_request(part: Part, *, project_name: str) -> list[ChatMessage]:
    """The request for `part`'s summary: the rules, then the earlier summary and
    the turns, each cut so the whole stays within _INPUT_CHARS."""
    for answer_chars in _TURN_ANSWER_CHARS:
        turns = [_turn_text(turn, answer_chars) for turn in part.summarised]
        if sum(len(text) for text in turns) <= _INPUT_CHARS:
            break
    else:  # even the requests alone are too long: the newest are kept
        kept: list[str] = []
        for text in reversed(turns):
            if sum(len(item) for item in kept) + len(text) > _INPUT_CHARS:
                break
            kept.insert(0, text)
        turns = kept
    earlier = [f"Summary of the turns before these:\n{part.previous.text}"] if part.previous else []
    body = "\n\n".join([*earlier, *turns])
    return [
        ChatMessage.system(_SUMMARY_RULES),
        ChatMessage.user(f'The project is called "{project_name}".\n\n{body}'),
    ]


async def compacted(
    *,
    project: Project,
    conversation: Conversation,
    part: Part,
    model: str,
    api_key: str | None,
    by_hand: bool = False,
    spend: Spend | None = None,
    client: LLMClient | None = None,
    payer_id: int | None = None,
) -> Compaction | AskRefused:
    """`part` summarised by the model and stored; or why it could not be.
    Outside a turn (no `spend`), paid by `payer_id` (None: the owner)."""
    answer = await ask_once(
        project=project,
        model=model,
        api_key=api_key,
        messages=summary_request(part, project_name=project.name),
        max_tokens=SUMMARY_TOKENS,
        seconds=SUMMARY_SECONDS,
        spend=spend,
        client=client,
        payer_id=payer_id,
    )
    if isinstance(answer, AskRefused):
        return answer
    if not answer.text:
        return AskRefused("The model answered with an empty summary.", code="empty_reply")
    return await threads.run(_stored, conversation, part, answer, model=model, by_hand=by_hand)


def _stored(
    conversation: Conversation, part: Part, answer: Answer, *, model: str, by_hand: bool
) -> Compaction:
    before = prompt.estimate_tokens(part.previous.text) if part.previous else 0
    before += sum(_history_tokens(turn) for turn in part.summarised)
    return services.compaction_create(
        conversation=conversation,
        before_sequence=part.before_sequence,
        turns=part.turns,
        summary=answer.text,
        tokens_before=before,
        tokens_after=prompt.estimate_tokens(answer.text),
        model=model,
        cost=answer.cost,
        by_hand=by_hand,
    )


def latest_summary(*, conversation: Conversation) -> Summary | None:
    """The summary the model reads now (a pool thread: it reads the database)."""
    return Summary.of(compaction_latest(conversation=conversation))


def _newest_within(turns: list[PastTurn], budget: int) -> list[PastTurn]:
    spent, count = 0, 0
    for turn in reversed(turns):
        spent += _history_tokens(turn)
        if spent > budget:
            break
        count += 1
    return turns[len(turns) - count :]


def _history_tokens(turn: PastTurn) -> int:
    """A turn's cost as history (as chat.agent.prompt.history_messages counts it)."""
    return prompt.estimate_tokens(turn.request) + prompt.estimate_tokens(prompt.answer_text(turn))


def _turn_text(turn: PastTurn, answer_chars: int) -> str:
    request = turn.request.strip()
    if len(request) > _TURN_REQUEST_CHARS:
        request = request[:_TURN_REQUEST_CHARS] + " […]"
    lines = [f"The person: {request}"]
    answer = prompt.answer_text(turn)
    if answer_chars and answer:
        cut = answer[:answer_chars] + (" […]" if len(answer) > answer_chars else "")
        lines.append(f"You: {cut}")
    elif turn.files_changed:
        lines.append(f"[Files changed: {', '.join(turn.files_changed)}]")
    return "\n".join(lines)


# --- by hand -----------------------------------------------------------------------

COMPACTION_LOCK = "compaction"
NOTHING_TO_COMPACT = "There is nothing to summarise yet: compacting needs two turns or more."
# Said instead when a summary already covers every turn but the latest (perhaps
# made from another tab, which this one did not hear of).
ALREADY_COMPACTED = (
    "The earlier turns are summarised already: the model reads the summary and your "
    "latest turn. There is more to compact once the conversation goes on."
)


async def compact_by_hand(
    *,
    project: Project,
    conversation: Conversation,
    client: LLMClient | None = None,
    user: User | None = None,
) -> Compaction | AskRefused:
    """Every turn of `conversation` but the latest, summarised now, as `user`
    asked (None: the owner), with their key and paid by them; while it runs no
    turn can start on the project (and it cannot start while one runs)."""
    acquiring = asyncio.ensure_future(
        threads.run(
            lock_acquire,
            project=project,
            purpose=COMPACTION_LOCK,
            details={"conversation": conversation.pk},
            ttl=SUMMARY_SECONDS + 30,
        )
    )
    try:
        lock = await asyncio.shield(acquiring)
    except asyncio.CancelledError:
        # Left while the lock was being taken: its thread takes it anyway, and
        # the project would stay busy until it lapsed.
        taken = await acquiring
        if not isinstance(taken, LockHeld):
            await threads.run(lock_release, taken)
        raise
    if isinstance(lock, LockHeld):
        return AskRefused(
            "The assistant is busy on this project: compact once it is done.", code="busy"
        )
    try:
        history, summary, key, last_model = await threads.run(
            _gathered, project, conversation, user
        )
        part = due(history_for(history, summary=summary, budget=0), budget=0, by_hand=True)
        if part is None:
            return AskRefused(ALREADY_COMPACTED if summary else NOTHING_TO_COMPACT, code="nothing")
        model = choose_model(last_model or None, project, personal_key=bool(key))
        return await compacted(
            project=project,
            conversation=conversation,
            part=part,
            model=model,
            api_key=key,
            by_hand=True,
            client=client,
            payer_id=user.pk if user is not None else None,
        )
    finally:
        await threads.run(lock_release, lock)


def _gathered(
    project: Project, conversation: Conversation, user: User | None
) -> tuple[list[PastTurn], Summary | None, str | None, str]:
    """The turns, the summary read now, the asking person's own key (if any;
    None: the owner's), and the model the conversation's latest turn was sent
    to (the one summarising)."""
    turns = past_turns(conversation=conversation)
    key = key_for(user if user is not None else project.owner)
    return (
        turns,
        latest_summary(conversation=conversation),
        key,
        last_model(conversation=conversation),
    )
