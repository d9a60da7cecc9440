"""What the model is told: the system prompt, the bounded history, the notes.

Pure functions: the loop gathers the facts (files, earlier turns, limits) and
these turn them into messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from chat.agent import budget
from chat.llm import ChatMessage
from chat.selectors.past_turns import PastTurn
from chat.tools import PATH_RULES
from common.sizes import human_size
from projects.files.limits import Limits
from projects.files.results import FileInfo

_MAX_LISTED_FILES = 200

_HOW_TO_WORK = """\
You are Built-It, a web developer who builds and edits a static website for a person by \
calling file tools on their project. The site is plain HTML, CSS and JavaScript served as \
it is stored: no build step, no server code, no package installs.

How to work:
- Look before you change anything: the current files are listed below; call \
list_project_files if you need the list again, and read_file before editing or replacing \
a file.
- Prefer edit_file for small changes. Use update_file only to rewrite most of a file, and \
create_file for new files.
- Every create_file or update_file call carries one complete file: never a placeholder, \
"..." or "rest unchanged".
- The entry page is /index.html. Link files with relative paths (href="styles.css", \
src="js/app.js"), never with a leading slash: the site is served under a sub-path.
- Write accessible, responsive pages that work without network access to other sites \
where you can (no images to download: use CSS, inline SVG or .svg files).
- Forms work on the published site with nothing else to run: give a form \
method="post" and action="/_forms/<name>", with a short name of letters, digits, - or _ \
(contact, booking, signup); this one address starts with a slash, as it is the server's, \
not a file. What visitors send reaches the owner's inbox and mail. Give every field a \
name and a visible <label>, and add a honeypot that holds spam back: \
<p hidden aria-hidden="true"><label>Leave this empty <input type="text" name="_gotcha" \
tabindex="-1" autocomplete="off"></label></p>. After sending, visitors see /thanks.html \
if the site has one (or the page of the site a hidden _next field names), else a plain \
thank-you page. Forms cannot send files. Never post a form to another service, a \
mailto: address or "#".
- If a tool call fails, read its error and correct the call; do not repeat it unchanged.
- The person may edit files while you work. If a write is refused because the file \
changed, read it again and redo the change on the new content.
- The file /AGENTS.md holds the owner's standing instructions for you (shown below when it has \
any); it is not part of the site and is never published. Change it only when the person \
asks you to remember something ("remember…", "from now on…", "always…"): then add a \
short line, keeping what is there. Otherwise leave it alone; a write to it is refused.
- When you are done, answer with a short summary for the person of what you did, in \
their language. Do not paste whole files into the answer.
- End that answer with one last line of two or three short follow-up requests the person \
could send next, as they would write them, separated by " | ", for example: \
"Next: Add a contact form | Make the header dark green | Add an about page". That line \
is shown as buttons, not as text."""


@dataclass(frozen=True)
class SystemPrompt:
    """The system prompt by part, as the context gauge counts them."""

    base: str  # how to work, the project's rules, what the project is
    instructions: str  # the owner's (chat.agent.instructions), "" for none
    files: str  # the current file list

    @property
    def text(self) -> str:
        return _JOIN.join(part for part in (self.base, self.instructions, self.files) if part)


_JOIN = "\n\n"


def system_parts(
    *,
    project_name: str,
    description: str,
    files: Sequence[FileInfo],
    limits: Limits,
    instructions: str = "",
) -> SystemPrompt:
    """`instructions`: the owner's, as chat.agent.instructions frames them."""
    parts = [_HOW_TO_WORK, _rules(limits)]
    if description.strip():
        parts.append(f'About the project "{project_name}" (from its owner):\n{description.strip()}')
    else:
        parts.append(f'The project is called "{project_name}".')
    return SystemPrompt(_JOIN.join(parts), instructions, _file_list(files))


def system_prompt(
    *,
    project_name: str,
    description: str,
    files: Sequence[FileInfo],
    limits: Limits,
    instructions: str = "",
) -> str:
    return system_parts(
        project_name=project_name,
        description=description,
        files=files,
        limits=limits,
        instructions=instructions,
    ).text


def history_messages(turns: Sequence[PastTurn], *, budget_tokens: int) -> list[ChatMessage]:
    """Earlier turns, newest kept first, as user/assistant pairs within the budget.

    Only what was asked and answered, and which files each turn changed; file
    contents are never repeated (the model reads the current ones)."""
    kept: list[ChatMessage] = []
    spent = 0
    for turn in reversed(turns):
        answer = answer_text(turn)
        cost = estimate_tokens(turn.request) + estimate_tokens(answer)
        if spent + cost > budget_tokens:
            break
        spent += cost
        kept[:0] = [ChatMessage.user(turn.request), ChatMessage("assistant", answer)]
    return kept


def last_round_note(iterations_left: int) -> ChatMessage:
    return ChatMessage.system(
        "Note: this is your last round of tool calls in this turn. Make the changes that "
        "matter most now; after this round you must answer the person without tools."
        if iterations_left <= 1
        else f"Note: {iterations_left} rounds of tool calls are left in this turn."
    )


def final_answer_note(reason: str) -> ChatMessage:
    """Asked with tool_choice "none" when the turn must end without more tools."""
    return ChatMessage.system(
        f"{reason} Do not call any tools. Answer the person now: summarise what was done "
        'and what is left, and end with the "Next: … | …" line of what they could ask for.'
    )


def plan_note() -> ChatMessage:
    """Said after the person's message in a plan turn, whose tools only look."""
    return ChatMessage.system(
        "This is a plan turn: the person wants a plan to review before anything changes. "
        "You can look at the project (list, read, search, check the site) but not change "
        "it, and you must not try. Answer with the plan: numbered steps, each naming the "
        "files you would create or change and what you would put in them. Keep it short "
        "and concrete. The person builds it with a button under your plan: do not offer "
        'building it as a "Next:" suggestion; suggest changes to the plan instead.'
    )


def estimate_tokens(text: str) -> int:
    """A message of `text`, as chat.agent.budget counts it (high): so the history's
    budget, the caps and the context gauge count alike."""
    return budget.message_tokens(ChatMessage("user", text))


def answer_text(turn: PastTurn) -> str:
    """An earlier turn's answer as the history carries it, with notes of what happened."""
    notes = []
    if turn.files_changed:
        notes.append(f"[Files changed in this turn: {', '.join(turn.files_changed)}]")
    if turn.status == "stopped":
        notes.append("[This turn was stopped before it finished.]")
    elif turn.status == "interrupted":
        notes.append("[This turn was cut short: the server stopped before it finished.]")
    elif turn.status == "failed":
        notes.append("[This turn ended with an error.]")
    notes += [
        f"[Afterwards the person used Built-It's history: {summary} Do not make that "
        "change again unless they ask for it.]"
        for summary in turn.afterwards
    ]
    if turn.edited:
        notes.append(
            "[Afterwards the person changed the site themselves, in the preview: "
            + "; ".join(turn.edited)
            + ". Keep these changes unless they ask otherwise.]"
        )
    return "\n\n".join([turn.answer.strip(), *notes]).strip() or "[No answer.]"


def _rules(limits: Limits) -> str:
    return (
        f"Project rules: {PATH_RULES} Limits: {human_size(limits.max_file_bytes)} per file, "
        f"{limits.max_files} files and {human_size(limits.max_project_bytes)} per project."
    )


def _file_list(files: Sequence[FileInfo]) -> str:
    if not files:
        return "Current files: none yet; the project is empty."
    lines = [
        f"- {info.path} ({human_size(info.size)}"
        + (f", binary: {info.binary.describe()})" if info.binary else ")")
        for info in files[:_MAX_LISTED_FILES]
    ]
    if len(files) > _MAX_LISTED_FILES:
        lines.append(f"- … and {len(files) - _MAX_LISTED_FILES} more (list_project_files)")
    return "Current files:\n" + "\n".join(lines)
