"""The offline demo's mind: given a chat request (as the loop sends it), what a
careful model would do next. Stateless, like a real model: everything comes
from the messages, so it works for any number of turns, tabs and processes.

Within a turn it looks (list_project_files), reads what it will change (in
parallel), writes (edit_file for small changes), then says what happened,
naming any step that failed. It understands what a newcomer types
(demo.intents): a description of a site to build, however it is put
("a bakery called Crumb with a menu", "I run a plumbing business"), a change
of colour, of the heading or the text of a picked element, of the site's
name, round buttons, a section or a page, fixes of simple findings of the
site check, a look into the problems the preview reported with a fix of the
safe ones (demo.runtime), something to remember. In a project with no
site yet, a description builds one, even one that also asks for a small
change ("a florist called Petal, make it pink"), and the answer says what it
assumed (demo.assumptions). It never destroys: it changes only what it
understood, and a description on a site that is there asks before replacing
it and changes nothing. For anything else it says honestly what it can do,
and offers to build a site for the person's words. What it offers next fits
the site (demo.suggestions). It follows the simple parts of the owner's
instructions (a colour, a tone, a name, a font: demo.rules) and its
answer says which.
Offered only tools that look (a plan turn), it looks and reads as always, then
answers with the plan of the writes it would make (demo.plans), and makes
none.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from demo import fixes, runtime, tweaks
from demo.answers import (
    CAN,
    NOTHING_CHANGED,
    SUGGESTION_CHARS,
    help_next,
    instructions_line,
    report,
)
from demo.asking import Asked, asked_in
from demo.assumptions import assumed_next, assumed_note
from demo.content import examples_note
from demo.describing import describes
from demo.holds import HOME, STYLES, Site, site_after
from demo.intents import Intent, asks_to_replace, intent_of, new_text
from demo.kinds import a_or_an
from demo.pages import add_page
from demo.parts import Parts, parts_in
from demo.plans import plan_text, planned_request
from demo.reading import WRITES, calls_since, listed, text_of, texts, tool_names, writes
from demo.remember import remember, remembered_note
from demo.remember import to_read as instructions_to_read
from demo.renaming import rename
from demo.retone import remember_tone, retone, retone_note
from demo.rules import Rules, rules_from
from demo.site import Brief, brief_from, site_files, site_name
from demo.steps import Step
from demo.suggestions import next_steps
from projects.starter import STARTER_FILES

_SITE_FILES = ("/index.html", "/styles.css", "/script.js")
_BUILD_VERB = re.compile(
    r"^\s*(?:please\s+)?(?:(?:can|could|would)\s+you\s+)?"
    r"(?:build|create|make|design|start|set\s+up)(?:\s+(?:me|us))?\s+",
    re.IGNORECASE,
)
# What reads well after "Replace the site with": "a bakery…", "my yoga studio…".
_AN_OBJECT = re.compile(r"^(?:an?|the|my|our|one|new|some)\s", re.IGNORECASE)
# Small changes that, in a project with no site yet, a description asking for
# them too builds the site instead ("a florist called Petal, make it pink").
_SMALL = {"colour", "heading", "section", "page", "buttons", "tone", "rename"}


def next_step(body: dict[str, Any]) -> Step:
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    asked = asked_in(text_of(messages[last_user]) if last_user >= 0 else "")
    whole = planned_request(asked.words)
    # One change a turn: the first part understood now, the rest said to ask next.
    parts = parts_in(whole, picked=asked.pick is not None)
    request = parts.now
    made = calls_since(messages[last_user + 1 :])
    tools = tool_names(body)
    intent = _intent(request, asked)
    rules = rules_from(messages)  # read afresh each request: an edit counts next turn
    if not tools or intent in ("help", "translate"):
        return _cannot(intent, request, asked)
    if not made:
        return Step(
            "Before changing anything I should see what the project holds.",
            "Let me look at the project first.",
            [("list_project_files", {})],
        )
    files = listed(made)
    if not any(call.name == "read_file" for call in made) and not writes(made):
        reads = _to_read(intent, files, request, asked)
        if _may_build(intent, request, asked):  # it builds when there is no site
            reads = list(dict.fromkeys([*reads, *_to_read("build", files, request, asked)]))
        if reads:
            names = ", ".join(reads)
            return Step(
                f"I'll read {names} before writing, so my changes fit what is there.",
                f"Reading {names}.",
                [("read_file", {"path": path}) for path in reads],
            )
    read = texts(made)
    if _may_build(intent, request, asked) and not _has_site(files, read):
        intent = "build"
    turn = _Turn(request, asked, files, read, rules)
    if not tools & WRITES:
        return _plan(_write(intent, turn), intent, whole, parts, rules)
    if not writes(made):
        return _write(intent, turn)
    notes = "\n\n".join(n for n in (parts.note(), _notes(intent, turn)) if n)
    site = site_after(files, read, writes(made))
    nexts = next_steps(
        intent,
        site,
        rules,
        asked=_asked_before(messages[:last_user]),
        first=_first_next(parts, intent, rules),
        changes=lambda chip: would_change(chip, site, rules),
    )
    return report(intent, writes(made), request, rules, notes=notes, nexts=nexts)


def _intent(request: str, asked: Asked) -> Intent:
    """What the person asks for: with problems the preview reported attached,
    to look at them, unless their words ask for something else."""
    intent = intent_of(request, picked=asked.pick is not None)
    understood = intent not in ("help", "translate")
    if asked.problems and runtime.asks_about(request, understood) and intent != "fix":
        return "problems"
    return intent


def _asked_before(messages: list[dict[str, Any]]) -> set[Intent]:
    """What the person asked for in the earlier turns the request carries."""
    said = (asked_in(text_of(m)) for m in messages if m.get("role") == "user")
    return {_intent(asked.words, asked) for asked in said}


def would_change(request: str, site: Site, rules: Rules) -> bool:
    """Whether the demo, sent `request` now, would write to `site` (the files
    as a turn read and left them): what it offers next must."""
    asked = Asked(request)
    turn = _Turn(request, asked, list(site.files), dict(site.texts), rules)
    return bool(_write(_intent(request, asked), turn).calls)


def _may_build(intent: Intent, request: str, asked: Asked) -> bool:
    """Whether a request for a small change describes a site as well, which
    builds instead when the project has no site to change."""
    return intent in _SMALL and asked.pick is None and describes(request)


def _first_next(parts: Parts, intent: Intent, rules: Rules) -> tuple[str, ...]:
    """The next steps that come first: the rest of the request; then for a
    change of tone, keeping it for later changes; for a build, changing what
    it assumed, then what the site lacks (demo.assumptions)."""
    tone = (remember_tone(parts.now),) if intent_of(parts.now) == "tone" else ()
    assumed = assumed_next(brief_from(parts.now, rules)) if intent == "build" else ()
    return (*(part.rstrip(" .") for part in parts.later), *tone, *assumed)


def _cannot(intent: Intent, request: str, asked: Asked) -> Step:
    thought = f"The request: “{request[:200]}”. Nothing I can do with files."
    if intent == "translate":
        return Step(
            thought,
            "I can't translate the site: as the offline demo I write English only, so I "
            "changed nothing. A real model can: add an OpenRouter key in Settings and pick one.",
        )
    if asked.pick is not None:
        return Step(
            thought,
            f"With the <{asked.pick.tag}> you picked I can change its text: say “change this "
            f"to …”. {NOTHING_CHANGED}\n\n{CAN}",
        )
    return Step(thought, f"{CAN}\nNext: {' | '.join(help_next(request))}")


def _to_read(intent: Intent, files: list[str], request: str, asked: Asked) -> list[str]:
    present = set(files)
    pages = [p for p in files if p.endswith((".html", ".htm"))]
    wanted: list[str]
    match intent:
        case "build":
            wanted = list(_SITE_FILES)
        case "colour":
            wanted = ["/styles.css", "/index.html"]
        case "heading" | "section":
            wanted = ["/index.html"]
        case "tone" | "page" | "rename":  # the home page comes below
            wanted = pages[:6]
        case "text":
            wanted = [asked.pick.page] if asked.pick else []
        case "buttons":
            wanted = ["/styles.css", *pages[:5]]
        case "fix":
            wanted = [*fixes.to_read(request, files), "/index.html"]
        case "remember":
            wanted = instructions_to_read(files)
        case "problems":
            wanted = runtime.to_read(asked.problems, files)
        case _:
            wanted = []
    # The home page and the stylesheet too: what to suggest next is chosen from them.
    return [path for path in dict.fromkeys([*wanted, HOME, STYLES]) if path in present]


@dataclass(frozen=True)
class _Turn:
    """What a write is worked out from: the request, what the person picked,
    the files listed and read, the instructions understood."""

    request: str
    asked: Asked
    files: list[str]
    read: dict[str, str]
    rules: Rules


def _write(intent: Intent, turn: _Turn) -> Step:
    write = _WRITERS.get(intent)
    return write(turn) if write is not None else Step("", CAN)


def _retext(turn: _Turn) -> Step:
    pick, new = turn.asked.pick, new_text(turn.request, picked=True)
    if pick is None or new is None:
        return Step("", CAN)
    return tweaks.retext(pick, new, turn.read)


_WRITERS: dict[Intent, Callable[[_Turn], Step]] = {
    "build": lambda t: _build(t.request, t.files, t.read, t.rules),
    "colour": lambda t: tweaks.recolour(t.request.lower(), t.read, t.rules),
    "heading": lambda t: tweaks.reheading(new_text(t.request, picked=False) or "", t.read),
    "text": _retext,
    "section": lambda t: tweaks.add_section(t.request, t.read, t.rules),
    "page": lambda t: add_page(t.request.lower(), t.files, t.read, t.rules),
    "buttons": lambda t: tweaks.round_buttons(t.request.lower(), t.read),
    "fix": lambda t: fixes.fix_step(t.request, t.files, t.read),
    "remember": lambda t: remember(t.request, t.files, t.read),
    "tone": lambda t: retone(t.request, t.read),
    "problems": lambda t: runtime.fix_step(t.asked.problems, t.files, t.read),
    "rename": lambda t: rename(t.request, t.read),
}


def _plan(step: Step, intent: Intent, whole: str, parts: Parts, rules: Rules) -> Step:
    """The writes `step` would make, as a plan of `whole` (what the build turn
    reads again); a step that writes nothing says why, as it would in any turn."""
    said = "\n\n".join(
        n for n in (parts.note(plan=True), instructions_line(intent, parts.now, rules)) if n
    )
    nexts = f"\nNext: {' | '.join(parts.later)}" if parts.later else ""
    if not step.calls:
        return Step(step.reasoning, step.content + (f"\n\n{said}" if said else "") + nexts)
    return Step(
        "I may only look in this turn, so I'll say what I would write instead: " + step.reasoning,
        plan_text(whole, step.calls) + (f"\n\n{said}" if said else "") + nexts,
    )


def _build(request: str, files: list[str], read: dict[str, str], rules: Rules) -> Step:
    if _has_site(files, read) and not asks_to_replace(request):
        return _ask_before_replacing(request, files, read, rules)
    brief = brief_from(request, rules)
    sections = _listed([heading.lower() for _, heading, _ in brief.sections])
    calls = []
    for name, content in site_files(brief).items():
        path = f"/{name}"
        if read.get(path) == content:  # the same again is no change, and no failed step
            continue
        tool = "update_file" if path in files else "create_file"
        calls.append((tool, {"path": path, "content": content}))
    if not calls:
        return Step(
            "Every file already holds what I would write.",
            "The site is exactly this already, so I changed nothing.",
        )
    what = "" if brief.kind == "site" else f", {a_or_an(brief.called)}"
    return Step(
        f"{a_or_an(brief.called).capitalize()} called {brief.name}, with these sections: "
        f"{sections}. Whole files are simplest for a new design: index.html, styles.css, "
        "script.js.",
        f"I'll build **{brief.name}**{what}: a page with {sections}, its styles and a "
        "small script.",
        calls,
    )


def _has_site(files: list[str], read: dict[str, str]) -> bool:
    """Whether the project holds a site a build would replace: pages other
    than the starter's (which a first build is meant to replace)."""
    home = read.get("/index.html")
    starter = STARTER_FILES["/index.html"]
    if home is not None and home.split() != starter.split():
        return True
    return any(p.endswith((".html", ".htm")) and p != "/index.html" for p in files)


def _ask_before_replacing(
    request: str, files: list[str], read: dict[str, str], rules: Rules
) -> Step:
    name = site_name(read.get("/index.html", ""))
    pages = [p.lstrip("/") for p in files if p.endswith((".html", ".htm"))]
    what = f"**{name}**" if name else "a site"
    suggestion = f"Replace the site with {_as_object(request, brief_from(request, rules))}"
    if len(suggestion) > SUGGESTION_CHARS:
        suggestion = suggestion[:SUGGESTION_CHARS].rsplit(" ", 1)[0]
    site = site_after(files, read, [])
    nexts = next_steps(
        "build",
        site,
        rules,
        first=(suggestion,),
        changes=lambda chip: would_change(chip, site, rules),
    )
    return Step(
        "There is a site here already; building would replace it. I should ask first.",
        f"This project already has a site: {what} ({', '.join(pages) or 'index.html'}). "
        "Building a new one would replace it, so I changed nothing.\n\n"
        "To change what is there, ask for one thing at a time: a colour, the heading, the "
        "name, the text of something you pick in the preview, the buttons, a section or a "
        f"page. To start over, say “{suggestion}”.\n"
        f"Next: {' | '.join(nexts)}",
    )


def _as_object(request: str, brief: Brief) -> str:
    """The site a request describes, as words that follow "Replace the site
    with": the person's own where they read well there ("a bakery called
    Crumb", "my yoga studio"), else what the demo read of them."""
    again = _BUILD_VERB.sub("", request.strip(), count=1).rstrip(" .!")
    if _AN_OBJECT.match(again):
        return again[:1].lower() + again[1:]
    called = f" called {brief.name}" if brief.named else ""
    listed = _listed([heading.lower() for _, heading, _ in brief.sections])
    sections = f", with {listed}" if brief.sections_named else ""
    return f"{a_or_an(brief.called)}{called}{sections}"


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _notes(intent: Intent, turn: _Turn) -> str:
    """What the answer says besides the writes, worked out again from the request."""
    request, files, read, rules = turn.request, turn.files, turn.read, turn.rules
    match intent:
        case "remember":
            return remembered_note(request)
        case "tone":
            return retone_note(request)
        case "fix":
            return fixes.fix_notes(request, files, read)
        case "problems":
            return runtime.fix_notes(turn.asked.problems, files, read)
        case "build":
            brief = brief_from(request, rules)
            built = site_files(brief)["index.html"]
            return "\n\n".join(n for n in (examples_note(built), assumed_note(brief)) if n)
        case _:
            return ""
