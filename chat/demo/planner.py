"""The offline demo's mind: given a chat request (as the loop sends it), what a
careful model would do next. Stateless, like a real model: everything comes
from the messages, so it works for any number of turns, tabs and processes.

Within a turn it looks (list_project_files), reads what it will change (in
parallel), writes (edit_file for small changes), then says what happened,
naming any step that failed. It understands a few requests a newcomer types:
build a site, change a colour, change the heading, add a section, add a page,
remember something (chat.demo.remember). For anything else it says honestly
what it can do. It follows the simple parts of the owner's instructions (a
colour, a tone, a name, a font: chat.demo.rules) and its answer says which.
Offered only tools that look (a plan turn), it looks and reads as always, then
answers with the plan of the writes it would make (chat.demo.plans), and makes
none.
"""

from __future__ import annotations

import html
import re
from typing import Any, Literal

from chat.demo.colours import colour_in
from chat.demo.plans import plan_text, planned_request
from chat.demo.reading import (
    WRITES,
    Call,
    calls_since,
    listed,
    text_of,
    texts,
    tool_names,
    writes,
)
from chat.demo.remember import asks_to_remember, remember, remembered_note
from chat.demo.remember import to_read as instructions_to_read
from chat.demo.rules import Rules, asked_colour, followed_line, rules_from
from chat.demo.site import SECTIONS, brief_from, page, section_html, site_files
from chat.demo.steps import Step
from chat.demo.tones import done_line, page_text, section_words

Intent = Literal["build", "colour", "heading", "section", "page", "remember", "help"]
CAN = (
    "I'm the offline demo, a scripted stand-in for a real model: I can build a one-page "
    "site from a description, change its colours or its heading, add a section, add "
    "a page linked from the others, or remember a line in your project instructions "
    "(AGENTS.md), where I follow a colour, a tone, a name or a font. For anything else, "
    "add an OpenRouter key in Settings and pick a real model."
)
# What to ask next after each kind of change: requests the demo understands.
NEXT_STEPS: dict[Intent, tuple[str, ...]] = {
    "build": ("Add a testimonials section", "Make the header dark green", "Add an about page"),
    "colour": ("Change the heading to Welcome", "Add a FAQ section", "Add a contact page"),
    "heading": ("Add a team section", "Make the header navy", "Add a contact page"),
    "section": ("Add a pricing section", "Add an about page", "Make the header teal"),
    "page": ("Add a FAQ section", "Make the header dark blue", "Add a gallery section"),
    "remember": ("Add a FAQ section", "Add an about page", "Add a contact page"),
    "help": (),
}
_RECOLOUR = re.compile(r"\b(colou?r|header|background|make|turn|paint)\b")
# "use my brand colour": the colour the instructions name.
_MAIN_COLOUR = re.compile(r"\b(?:my|our|the)\s+(?:brand|main|primary|house)\s+colou?r\b")
_PAGE = re.compile(r"\b(?:add|create|make)\b(?:\s+(?:an?|the|one|new))*\s+([\w-]+)\s+page\b")
# "a landing page", "a one-page site": the whole site, not one more page.
_WHOLE_SITE = {"landing", "home", "web", "one", "single", "new", "first", "main", "index"}
_SECTION = re.compile(r"\badd\b(?:\s+(?:an?|the|new))*\s+([\w-]+)\s+section\b")
_HEADING = re.compile(
    r"\b(?:heading|title|headline)\b.*?\bto\s+[\"“']?(.+?)[\"”']?\s*[.!]?$", re.IGNORECASE
)


def next_step(body: dict[str, Any]) -> Step:
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    request = planned_request(text_of(messages[last_user])) if last_user >= 0 else ""
    made = calls_since(messages[last_user + 1 :])
    tools = tool_names(body)
    intent = intent_of(request)
    rules = rules_from(messages)  # read afresh each request: an edit counts next turn
    if not tools or intent == "help":
        return Step(f"The request: “{request[:200]}”. Nothing I can do with files.", CAN)
    if not made:
        return Step(
            "Before changing anything I should see what the project holds.",
            "Let me look at the project first.",
            [("list_project_files", {})],
        )
    files = listed(made)
    if not any(call.name == "read_file" for call in made) and not writes(made):
        reads = _to_read(intent, files)
        if reads:
            names = ", ".join(reads)
            return Step(
                f"I'll read {names} before writing, so my changes fit what is there.",
                f"Reading {names}.",
                [("read_file", {"path": path}) for path in reads],
            )
    if not tools & WRITES:
        return _plan(_write(intent, request, files, texts(made), rules), intent, request, rules)
    if not writes(made):
        return _write(intent, request, files, texts(made), rules)
    return _report(intent, writes(made), request, rules)


def intent_of(request: str) -> Intent:  # noqa: PLR0911  (one return per intent)
    lowered = request.lower()
    if asks_to_remember(request):
        return "remember"
    page = _PAGE.search(lowered)
    if page and page.group(1) not in _WHOLE_SITE:
        return "page"
    if _SECTION.search(lowered):
        return "section"
    if (colour_in(lowered) and _RECOLOUR.search(lowered)) or _MAIN_COLOUR.search(lowered):
        return "colour"
    if _HEADING.search(request):
        return "heading"
    if re.search(r"\b(build|create|make|design|start)\b", lowered) or re.search(
        r"\b(site|website|page|landing|portfolio)\b", lowered
    ):
        return "build"
    return "help"


# --- the steps -------------------------------------------------------------------------


def _to_read(intent: Intent, files: list[str]) -> list[str]:
    present = set(files)
    if intent == "build":
        return [p for p in ("/index.html", "/styles.css") if p in present]
    if intent == "colour":
        return [p for p in ("/styles.css", "/index.html") if p in present]
    if intent in ("heading", "section"):
        return [p for p in ("/index.html",) if p in present]
    if intent == "page":
        return [p for p in files if p.endswith(".html")][:6]
    if intent == "remember":
        return instructions_to_read(files)
    return []


def _write(  # noqa: PLR0911  (one case per intent)
    intent: Intent, request: str, files: list[str], texts: dict[str, str], rules: Rules
) -> Step:
    match intent:
        case "build":
            return _build(request, files, rules)
        case "colour":
            return _recolour(request.lower(), texts, rules)
        case "heading":
            return _reheading(request, texts)
        case "section":
            return _add_section(request.lower(), texts, rules)
        case "page":
            return _add_page(request.lower(), files, texts, rules)
        case "remember":
            return remember(request, files, texts)
        case "help":
            return Step("", CAN)


def _plan(step: Step, intent: Intent, request: str, rules: Rules) -> Step:
    """The writes `step` would make, as a plan; a step that writes nothing says
    why, as it would in any turn."""
    if not step.calls:
        return step
    said = _instructions_line(intent, request, rules)
    return Step(
        "I may only look in this turn, so I'll say what I would write instead: " + step.reasoning,
        plan_text(request, step.calls) + (f"\n\n{said}" if said else ""),
    )


def _build(request: str, files: list[str], rules: Rules) -> Step:
    brief = brief_from(request, rules)
    sections = ", ".join(heading for _, heading, _ in brief.sections)
    calls = []
    for name, content in site_files(brief).items():
        path = f"/{name}"
        tool = "update_file" if path in files else "create_file"
        calls.append((tool, {"path": path, "content": content}))
    return Step(
        f"A {brief.kind} called {brief.name}, with these sections: {sections}. "
        "Whole files are simplest for a new design: index.html, styles.css, script.js.",
        f"I'll build **{brief.name}**: a page with {sections.lower()}, its styles and a "
        "small script.",
        calls,
    )


def _recolour(lowered: str, texts: dict[str, str], rules: Rules) -> Step:
    colour = colour_in(lowered) or rules.colour  # the message wins over the instructions
    css = texts.get("/styles.css")
    if colour is None:
        return Step(
            "The message names no colour and the instructions name no main colour.",
            "Which colour? Name one (“make the header teal”), or put a main colour in "
            "your project instructions (AGENTS.md).",
        )
    if css is None:
        return Step("There is no styles.css to change.", "There is no styles.css to change. " + CAN)
    name, value = colour
    wanted = (
        "--header-bg"
        if "header" in lowered
        else ("--page-bg" if "background" in lowered else "--accent")
    )
    for variable in (wanted, "--accent", "--header-bg"):
        line = next((ln for ln in css.splitlines() if ln.strip().startswith(variable + ":")), None)
        if line is not None:
            indent = line[: len(line) - len(line.lstrip())]
            edit = {"search": line, "replace": f"{indent}{variable}: {value};"}
            where = {"--header-bg": "header", "--page-bg": "page background"}.get(
                variable, "accent colour"
            )
            return Step(
                f"styles.css keeps its colours in custom properties; {variable} is the "
                f"{where}. One edit changes it everywhere.",
                f"Changing the {where} to {name}.",
                [("edit_file", {"path": "/styles.css", "edits": [edit]})],
            )
    return Step(
        "styles.css has no colour variable I recognise.",
        "I could not find a colour setting in styles.css that I know how to change safely. " + CAN,
    )


def _reheading(request: str, texts: dict[str, str]) -> Step:
    found = _HEADING.search(request)
    page_text = texts.get("/index.html", "")
    heading = re.search(r"<h1[^>]*>.*?</h1>", page_text, re.DOTALL)
    if found is None or heading is None:
        return Step("No <h1> in index.html.", "index.html has no main heading to change. " + CAN)
    new = html.escape(found.group(1).strip())
    old = heading.group(0)
    replacement = old[: old.index(">") + 1] + new + "</h1>"
    edit = {"search": old, "replace": replacement}
    return Step(
        "The main heading is the page's <h1>.",
        f"Changing the heading to “{found.group(1).strip()}”.",
        [("edit_file", {"path": "/index.html", "edits": [edit]})],
    )


def _add_section(lowered: str, texts: dict[str, str], rules: Rules) -> Step:
    found = _SECTION.search(lowered)
    word = found.group(1) if found else "new"
    section_id, heading, text = next(
        (value for key, value in SECTIONS.items() if word.startswith(key)),
        (re.sub(r"[^a-z0-9-]", "", word) or "more", word.capitalize(), "More to come here."),
    )
    heading, text = section_words(section_id, heading, text, rules.voice)
    page_text = texts.get("/index.html", "")
    anchor = next((m for m in ("  </main>", "</main>", "</body>") if page_text.count(m) == 1), None)
    if anchor is None:
        return Step("No place for a section.", "I could not find where to add a section. " + CAN)
    edit = {"search": anchor, "replace": section_html(section_id, heading, text) + "\n" + anchor}
    return Step(
        f"A “{heading}” section goes at the end of the page's main content.",
        f"Adding a “{heading}” section to index.html.",
        [("edit_file", {"path": "/index.html", "edits": [edit]})],
    )


def _add_page(lowered: str, files: list[str], texts: dict[str, str], rules: Rules) -> Step:
    found = _PAGE.search(lowered)
    slug = re.sub(r"[^a-z0-9-]", "", found.group(1) if found else "") or "new"
    title = slug.replace("-", " ").capitalize()
    path = f"/{slug}.html"
    if path in files:
        return Step(f"{path} exists already.", f"There is already a {title} page ({path}).")
    calls: list[tuple[str, dict[str, Any]]] = []
    linked = []
    site_name = _site_name(texts.get("/index.html", "")) or "Home"
    for other, text in sorted(texts.items()):
        line = next((ln for ln in text.splitlines() if "</nav>" in ln), None)
        if line is None or text.count(line) != 1:
            continue
        indent = line[: len(line) - len(line.lstrip())] + "  "
        link = f'{indent}<a href="{slug}.html">{html.escape(title)}</a>\n{line}'
        calls.append(("edit_file", {"path": other, "edits": [{"search": line, "replace": link}]}))
        linked.append(other)
    links = [("index.html", "Home"), (f"{slug}.html", title)]
    main = f"""    <section class="section">
      <h1>{html.escape(title)}</h1>
      <p>{html.escape(page_text(title.lower(), rules.voice))}</p>
    </section>"""
    calls.insert(0, ("create_file", {"path": path, "content": page(title, site_name, links, main)}))
    where = (
        f" and linking it from {', '.join(linked)}"
        if linked
        else " (the other pages have no navigation to link it from)"
    )
    return Step(
        f"A new page {path} in the site's layout; every page with a <nav> gets a link.",
        f"Adding {path}{where}.",
        calls,
    )


def _report(intent: Intent, writes: list[Call], request: str, rules: Rules) -> Step:
    # A rewrite refused because the file already holds that text (a rebuild
    # after the instructions changed only the words) left it as wanted.
    kept = [call for call in writes if call.result.get("code") == "no_change"]
    done = [call for call in writes if call.ok or call in kept]
    failed = [call for call in writes if call not in done]
    lines = [
        f"- kept `{call.arguments.get('path', '').lstrip('/')}`: it was already as it should be"
        if call in kept
        else f"- {_did(call)}"
        for call in done
    ]
    lines += [
        f"- **Failed:** {_did(call)}: {call.result.get('error', 'unknown error')}"
        for call in failed
    ]
    if failed and not done:
        opening = "Nothing was changed: the step failed."
    elif failed:
        opening = "Part of it worked; one step failed, so the result is not complete:"
    else:
        opening = done_line(intent, rules.voice)
    said = ""
    if done:
        said = remembered_note(request) if intent == "remember" else ""
        said = said or _instructions_line(intent, request, rules)
    ending = f"\n\n{said}" if said else ""
    ending += "\n\nI'm the offline demo; add a key in Settings for a real model."
    # Not "make the header teal" where teal is the instructions' colour already.
    nexts = [s for s in NEXT_STEPS[intent] if not rules.colour or rules.colour[0] not in s.lower()]
    if done and nexts:  # as a real model is asked to (chat.agent.prompt)
        ending += "\nNext: " + " | ".join(nexts)
    return Step(
        "Summing up what each call did, failures included.",
        opening + "\n\n" + "\n".join(lines) + ending,
    )


def _instructions_line(intent: Intent, request: str, rules: Rules) -> str:
    """The answer's line on the owner's instructions: what this turn followed."""
    if intent == "build":
        asked = asked_colour(request)
        return followed_line(
            rules,
            colour=True,
            font=True,
            name=brief_from(request, rules).name == rules.name,
            overridden=_differs(asked, rules),
        )
    if intent == "colour":
        return followed_line(rules, colour=True, overridden=_differs(colour_in(request), rules))
    return followed_line(rules)


def _differs(asked: tuple[str, str] | None, rules: Rules) -> str | None:
    """The colour the message asked for, when the instructions name another."""
    if asked is None or rules.colour is None or asked[1] == rules.colour[1]:
        return None
    return asked[0]


# --- reading the conversation ------------------------------------------------------------


def _did(call: Call) -> str:
    path = call.arguments.get("path", "")
    verb = {
        "create_file": "created",
        "update_file": "rewrote",
        "edit_file": "edited",
        "rename_file": "renamed",
        "delete_file": "deleted",
    }.get(call.name, call.name)
    return f"{verb} `{path.lstrip('/')}`"


def _site_name(page_text: str) -> str:
    found = re.search(r'class="brand"[^>]*>([^<]+)<', page_text) or re.search(
        r"<title>([^<]+)</title>", page_text
    )
    return html.unescape(found.group(1).strip()) if found else ""
