"""What the offline demo says: what it can do, what each turn did (failures
included, a write the file already matched counted as done), which of the
owner's instructions it followed, and what to ask next (chosen by
demo.suggestions)."""

from __future__ import annotations

from dataclasses import replace

from demo.colours import colour_in
from demo.describing import help_subject
from demo.intents import Intent
from demo.reading import Call
from demo.rules import Rules, asked_colour, followed_line
from demo.site import brief_from
from demo.steps import Step
from demo.tones import TONE_NAMES, done_line, tone_asked

CAN = (
    "I'm the offline demo, a scripted stand-in for a real model. Tell me what the site is "
    "for, as you would tell a friend (“a bakery called Crumb with a menu and a contact "
    "section”, “my yoga studio, with class times and prices”), and I'll build a one-page "
    "site for it. Then I can change its colours, its name or its main heading, change the "
    "text of an element you pick in the preview, round or square its buttons, add a "
    "section or a page, fix simple findings of the site check (a missing alt, title, "
    "language or viewport, a link to a file whose name is close), or remember a line in "
    "your project instructions (AGENTS.md). For anything else, add an OpenRouter key in "
    "Settings and pick a real model."
)
# The help answer's suggestions after the first ("Build a site for …"): sites
# the demo builds well, each said the way people say them.
_STARTERS = (
    "Build a site for a bakery called Crumb, with a menu and a contact section",
    "A portfolio for a photographer called Ana Lima, with a gallery",
    "A landing page for an app called Tally, with pricing and a FAQ",
)
NOTHING_CHANGED = "I changed nothing."
_DEMO_LINE = "I'm the offline demo; add a key in Settings for a real model."
SUGGESTION_CHARS = 150  # of a suggestion the demo writes: a chip's text is cut at 160


def help_next(request: str) -> tuple[str, ...]:
    """The help answer's suggestions: to build a site for the person's own words
    where they name something ("hiking", "my candles"), then sites the demo
    builds well."""
    subject = help_subject(request)
    first = (f"Build a site for {subject}"[:SUGGESTION_CHARS],) if subject else ()
    return (*first, *_STARTERS)[:3]


def report(
    intent: Intent,
    writes: list[Call],
    request: str,
    rules: Rules,
    *,
    notes: str = "",
    nexts: tuple[str, ...] = (),
) -> Step:
    """The turn's answer once its writes are made; `notes`: what else the
    answer must say (what it could not do, details that are examples);
    `nexts`: what to ask next (demo.suggestions), offered when a write
    worked."""
    # A write refused because the file already holds that text left it as wanted.
    kept = [call for call in writes if call.result.get("code") == "no_change"]
    done = [call for call in writes if call.ok or call in kept]
    failed = [call for call in writes if call not in done]
    lines = [
        f"- kept `{call.arguments.get('path', '').lstrip('/')}`: it was already as it should be"
        if call in kept
        else f"- {did(call)}"
        for call in done
    ]
    lines += [
        f"- **Failed:** {did(call)}: {call.result.get('error', 'unknown error')}" for call in failed
    ]
    if failed and not done:
        opening = "Nothing was changed: the step failed."
    elif failed:
        opening = "Part of it worked; one step failed, so the result is not complete:"
    else:
        opening = done_line(intent, rules.voice)
    said = notes if done else ""
    if done and not (intent == "remember" and notes):
        said = "\n\n".join(
            part for part in (said, instructions_line(intent, request, rules)) if part
        )
    ending = f"\n\n{said}" if said else ""
    ending += f"\n\n{_DEMO_LINE}"
    if done and nexts:  # as a real model is asked to (chat.agent.prompt)
        ending += "\nNext: " + " | ".join(nexts)
    return Step(
        "Summing up what each call did, failures included.",
        opening + "\n\n" + "\n".join(lines) + ending,
    )


def instructions_line(intent: Intent, request: str, rules: Rules) -> str:
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
    if intent == "tone":  # the message's tone wins over the instructions' for these texts
        tone = tone_asked(request)
        if rules.tone is None or tone is None or tone == rules.tone:
            return followed_line(rules)
        said = followed_line(replace(rules, tone=None))
        wins = (
            f"Your message asked for {TONE_NAMES[tone]}, so it wins over the "
            f"{TONE_NAMES[rules.tone].removeprefix('a ')} of your instructions."
        )
        return f"{said} {wins}".strip()
    if intent == "colour":
        return followed_line(
            rules, colour=True, texts=False, overridden=_differs(colour_in(request), rules)
        )
    # Its tone shows only in texts it writes: a section's, a page's.
    return followed_line(rules, texts=intent in {"section", "page"})


def did(call: Call) -> str:
    path = call.arguments.get("path", "")
    verb = {
        "create_file": "created",
        "update_file": "rewrote",
        "edit_file": "edited",
        "rename_file": "renamed",
        "delete_file": "deleted",
    }.get(call.name, call.name)
    return f"{verb} `{path.lstrip('/')}`"


def _differs(asked: tuple[str, str] | None, rules: Rules) -> str | None:
    """The colour the message asked for, when the instructions name another."""
    if asked is None or rules.colour is None or asked[1] == rules.colour[1]:
        return None
    return asked[0]
