"""A conversation as a Markdown file: every turn as it was asked and answered,
and each summary the model read instead of earlier turns, where it was made
(chat.agent.compaction keeps the turns; this is how a person takes them away)."""

from __future__ import annotations

from django.utils import timezone
from django.utils.text import slugify

from chat.models import Compaction, Conversation
from chat.selectors.conversations import compactions_of
from chat.selectors.past_turns import PastTurn, past_turns
from projects.models import Project


def conversation_markdown(conversation: Conversation) -> str:
    turns = past_turns(conversation=conversation)
    summaries = compactions_of(conversation=conversation)
    lines = [
        f"# {conversation.title or 'Conversation'}",
        "",
        f"Project “{conversation.project.name}”, exported "
        f"{timezone.localtime().strftime('%Y-%m-%d %H:%M')}. {len(turns)} turns.",
    ]
    for number, turn in enumerate(turns, start=1):
        lines += [_summary(item) for item in summaries if _ends_before(item, turns, number - 1)]
        lines += _turn(number, turn)
    return "\n".join(lines).rstrip() + "\n"


def export_name(project: Project, conversation: Conversation) -> str:
    name = slugify(f"{project.name} {conversation.title}")[:80] or "conversation"
    return f"{name}.md"


def _ends_before(summary: Compaction, turns: list[PastTurn], index: int) -> bool:
    """Whether `summary` ends just before the turn at `index`."""
    after = turns[index].sequence >= summary.before_sequence
    return after and (index == 0 or turns[index - 1].sequence < summary.before_sequence)


def _turn(number: int, turn: PastTurn) -> list[str]:
    asked = "**You, asking for a plan only:**" if turn.plan else "**You:**"
    # Quoted: a request's own "## …" must not read as the file's headings.
    request = "\n".join(f"> {line}" if line else ">" for line in turn.request.strip().splitlines())
    lines = ["", f"## Turn {number}", "", asked, "", request, ""]
    lines += ["**Assistant:**", "", turn.answer.strip() or "_(no answer)_"]
    if turn.files_changed:
        lines += ["", "Files changed: " + ", ".join(f"`{path}`" for path in turn.files_changed)]
    if turn.status != "completed":
        lines += ["", f"_This turn {_ENDED.get(turn.status, 'ended early')}._"]
    if turn.afterwards:
        lines += ["", *(f"_Afterwards: {note}_" for note in turn.afterwards)]
    return lines


_ENDED = {"stopped": "was stopped", "failed": "ended with an error", "interrupted": "was cut short"}


def _summary(summary: Compaction) -> str:
    how = "when you asked" if summary.by_hand else "when the conversation grew long"
    made = timezone.localtime(summary.created_at).strftime("%Y-%m-%d %H:%M")
    quoted = "\n".join(f"> {line}" if line else ">" for line in summary.summary.splitlines())
    return (
        f"\n> **Summary of the {summary.turns} turns above**, which the model read instead "
        f"of them from here on (made {made}, {how}; {summary.model}):\n>\n{quoted}"
    )
