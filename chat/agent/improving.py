"""Improve my request: the draft in the message box rewritten by the model so
that it is specific and complete, for the person to read, edit and send
themselves (nothing is sent here). One request without tools
(chat.agent.one_shot): the model a turn would use, the person's own key if they
have one, their caps, their ledger.

    improved = await draft_improve(project=p, user=u, draft="make a site for my bakery",
                                   model="", conversation_id=c)
    if isinstance(improved, AskRefused): ...  # improved.message says why, for the person
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import User

from chat import services
from chat.agent.model_choice import ModelRefused, choose_model, clean_model_id
from chat.agent.one_shot import AskRefused, ask_once
from chat.asks import IMPROVE_TASK
from chat.llm import ChatMessage
from chat.personal_keys import key_for
from chat.selectors.conversations import latest_answer
from common import threads
from projects import selectors as project_selectors
from projects.files.results import FileContent
from projects.models import Project

# A rewrite is a few lines; a long draft may need a little more room.
MAX_TOKENS = 700
MAX_TOKENS_LONG = 2000
SECONDS = 60.0
_LISTED_FILES = 100
_ANSWER_SHOWN = 600
# Of the home page and its stylesheet, what the model is shown (characters
# each): enough of a usual page to draw a concrete change from.
SHOWN_CHARS = 8000

SYSTEM = f"""{IMPROVE_TASK} Rewrite it so that the builder can do it well in one \
go; the person reads and edits your version before sending it.

- Keep their intent, their language (write in the language they wrote in) and \
every detail they gave: names, words they chose, colours, pages.
- Make it specific and complete: which pages and sections, what each one holds, \
the tone of the words and the look (colours, fonts, layout, phones). Add what a \
site like theirs usually needs when they left it out.
- Never invent facts about them or their business. Where a name, price, address, \
phone number, opening hours, date or the like is needed and not given, write a \
placeholder in square brackets for them to fill in, e.g. [opening hours].
- When the project has files already, ask for changes to what is there, not a \
rebuild, unless they asked for one.
- Keep it short enough to read in a minute: a few lines, or a short list.
- When the request is vague ("make it nicer", "improve the site", "looks \
boring"), turn it into one or two concrete changes drawn from the site shown \
below: a colour pair that reads poorly, cramped spacing, an unclear call to \
action, no picture, a section a site like this needs. Never answer that it is \
fine as it is.
- If the text is not a request to the builder (a greeting, a question about \
something else), return it unchanged.
- Answer with the rewritten request only, as the person would send it: no \
preamble, no explanation, no quotes around it, no code fences."""


@dataclass(frozen=True)
class Improved:
    text: str
    changed: bool  # False: the model left the request as it was


@dataclass(frozen=True)
class _Project:
    """What the model is told about the project the request is for."""

    name: str
    description: str
    paths: list[str]
    last_answer: str
    shown: tuple[tuple[str, str], ...] = ()  # (path, text): the home page, its stylesheet


async def draft_improve(
    *, project: Project, user: User, draft: object, model: object, conversation_id: int | None
) -> Improved | AskRefused:
    """`draft` rewritten by the model a turn would use (`model`: the person's
    pick, if any); or why not, in words for the person."""
    text = services.clean_user_message(draft)
    if isinstance(text, services.MessageRefused):
        return AskRefused(text.message, code="bad_message")
    requested = clean_model_id(model) if model else None
    if isinstance(requested, ModelRefused):
        return AskRefused(requested.message, code="bad_model")
    if user.pk in _WRITING:
        return AskRefused("Your request is already being improved: wait for that one.", code="busy")
    _WRITING.add(user.pk)
    try:
        return await _improved(project, user, text, requested, conversation_id)
    finally:
        _WRITING.discard(user.pk)


# One rewrite at a time per person in each server process (the browser sends one;
# a script could send hundreds, and a keyless local model costs nothing to ask).
_WRITING: set[int] = set()


async def _improved(
    project: Project, user: User, text: str, requested: str | None, conversation_id: int | None
) -> Improved | AskRefused:
    api_key = await threads.run(key_for, user)
    about = await threads.run(_about, project, conversation_id)
    answer = await ask_once(
        project=project,
        model=choose_model(requested, project, personal_key=bool(api_key)),
        api_key=api_key,
        messages=_messages(about, text),
        max_tokens=min(MAX_TOKENS_LONG, MAX_TOKENS + len(text) // 4),
        seconds=SECONDS,
        # Paid by whoever asked, with their key or from their share of the server's.
        payer_id=user.pk,
    )
    if isinstance(answer, AskRefused):
        return answer
    rewritten = cleaned(answer.text)[: settings.BUILTIT_MAX_MESSAGE_CHARS]
    if not rewritten:
        return AskRefused(
            "The model answered with nothing; your request is as it was.", code="empty_answer"
        )
    return Improved(rewritten, changed=rewritten.split() != text.split())


def _messages(about: _Project, draft: str) -> list[ChatMessage]:
    return [ChatMessage.system(f"{SYSTEM}\n\n{_context(about)}"), ChatMessage.user(draft)]


def _context(about: _Project) -> str:
    lines = [f"The project: “{about.name}”."]
    if about.description:
        lines.append(f"Its description: {about.description}")
    if about.paths:
        shown = ", ".join(about.paths[:_LISTED_FILES])
        more = len(about.paths) - _LISTED_FILES
        lines.append(f"Its files: {shown}" + (f" and {more} more." if more > 0 else "."))
    else:
        lines.append("It has no files yet.")
    if about.last_answer:
        answer = " ".join(about.last_answer.split())
        if len(answer) > _ANSWER_SHOWN:
            answer = answer[:_ANSWER_SHOWN].rstrip() + "…"
        lines.append(f"The builder's last answer in this conversation: {answer}")
    for path, text in about.shown:
        lines.append(f"\n--- {path} ---\n{text}\n--- end of {path} ---")
    return "\n".join(lines)


def _about(project: Project, conversation_id: int | None) -> _Project:
    last = (
        latest_answer(project=project, conversation_id=conversation_id)
        if conversation_id is not None
        else ""
    )
    paths = sorted(project_selectors.file_paths(project))
    return _Project(project.name, project.description, paths, last, _shown(project, paths))


def _shown(project: Project, paths: list[str]) -> tuple[tuple[str, str], ...]:
    """The home page and the stylesheet, as far as the model is shown them."""
    pages = [p for p in paths if p.endswith((".html", ".htm"))]
    sheets = [p for p in paths if p.endswith(".css")]
    home = "/index.html" if "/index.html" in paths else next(iter(pages), None)
    sheet = "/styles.css" if "/styles.css" in paths else next(iter(sheets), None)
    shown = []
    for path in (home, sheet):
        read = project_selectors.file_read(project, path) if path else None
        if not isinstance(read, FileContent) or not read.content:
            continue  # none, or a picture: nothing to read
        text = read.content
        if len(text) > SHOWN_CHARS:
            text = text[:SHOWN_CHARS] + "\n[… the rest of the file is not shown]"
        shown.append((read.path, text))
    return tuple(shown)


# --- the answer, as the box shows it --------------------------------------------------

_PREAMBLE = re.compile(
    r"\A(?:here(?:'s| is)\b|(?:the |your )?(?:improved|rewritten|revised) request\b)"
    r"[^\n]{0,80}:[ \t]*\n+",
    re.IGNORECASE,
)
_FENCE = re.compile(r"\A```[\w-]*[ \t]*\n(?P<body>.*?)\n?[ \t]*```\Z", re.DOTALL)
_QUOTES = {'"': '"', "“": "”", "„": "“", "«": "»", "'": "'", "‘": "’"}  # noqa: RUF001


def cleaned(answer: str) -> str:
    """The rewrite without what models wrap it in despite being asked not to: a
    line announcing it, a code fence, quotes around the whole of it."""
    text = _PREAMBLE.sub("", answer.strip(), count=1).strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group("body").strip()
    closing = _QUOTES.get(text[:1])
    if closing and len(text) >= 2 and text.endswith(closing):
        inner = text[1:-1]
        if text[0] not in inner and closing not in inner:  # one quotation, not two
            text = inner.strip()
    return text
