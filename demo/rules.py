"""What the offline demo understands of the owner's standing instructions
(/AGENTS.md), read as a model reads them: from the section the
system prompt frames (chat.agent.instructions), fresh in every request, so an
edit to the file counts from the next one.

It follows the simple ones: a main colour, a tone, the business's name, a
serif or sans-serif font, and English (the only language it writes). It reads
the instructions a sentence at a time; a later sentence wins over an earlier
one (a line the person asked it to remember is added at the end). What it
does not understand it does not pretend to follow: when it understood nothing,
its answer says so in one line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Literal

from demo.colours import colour_in
from demo.reading import text_of
from demo.tones import TONE_NAMES, Tone
from projects.files.instructions import INSTRUCTIONS_PATH

Font = Literal["serif", "sans"]

# The framing of chat.agent.instructions.instructions_section (the demo sits
# below the agent and cannot import it; tests/demo/test_demo_rules.py checks
# that the two agree).
_START = f"--- {INSTRUCTIONS_PATH} ---\n"
_END = f"\n--- end of {INSTRUCTIONS_PATH} ---"
_CUT_NOTE = re.compile(r"\n\[Cut here: [^\n]*\]\s*$")

_BULLET = re.compile(r"^(?:[-*+]|\d+[.)])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"“])")
_NEGATED = re.compile(r"\b(?:no|not|never|avoid|don't|do not|without|instead of)\b")
_COLOUR_WORDS = re.compile(
    r"\b(?:colou?rs?|brand|primary|main|accent|theme|palette|header|use|using)\b"
)
_BUILD_COLOUR = re.compile(r"\b(?:colou?rs?|theme|palette|accent)\b")
_NOT_MAIN_COLOUR = re.compile(r"\b(?:text|font|link)\s+colou?r|\bbackground\b|\bwhite\s?space\b")
# Tones, the first that matches a sentence wins. Strong words name a tone on
# their own; weak ones only in a sentence about words ("Tone: warm and plain"),
# so "keep the design simple" is not taken for a tone.
_TONES: tuple[tuple[Tone, str, str], ...] = (
    ("playful", r"playful(?:ly)?|whimsical|witty|cheeky|quirky", r"fun|funny|cheerful|upbeat"),
    ("formal", r"formal(?:ly)?|businesslike|business-like", r"professional|polite|serious"),
    ("friendly", r"friendly|casual(?:ly)?|informal|conversational|chatty|laid-back", r"relaxed"),
    ("plain", r"short sentences|no jargon|plain english", r"plain|simple|clear|concise|warm"),
)
_ABOUT_WORDS = re.compile(
    r"\b(?:tone|voice|write|writing|written|wording|words|texts?|copy|sentences|sound|style)\b"
)
_NAME_WORD = r"[A-Z][\w'\u2019&.-]*"  # a capitalised word of a name (re reads \u2019)
_NAMED = re.compile(
    rf"\b(?i:called|named)\s+[\"“']?({_NAME_WORD}(?:\s+{_NAME_WORD}){{0,3}})"
    rf"|^(?i:(?:(?:(?:the|our|my)\s+)?(?:business|brand|company|shop|site)(?:'s)?\s+)?name\s*(?:is|:))"
    rf"\s*[\"“']?({_NAME_WORD}(?:\s+{_NAME_WORD}){{0,3}})"
)
_LANGUAGES = (
    "english|french|german|spanish|italian|portuguese|dutch|polish|swedish|danish|norwegian"
    "|finnish|greek|turkish|russian|ukrainian|arabic|hebrew|hindi|japanese|chinese|korean"
)
_LANGUAGE = re.compile(rf"\b(?:in|language:?)\s+({_LANGUAGES})\b|\b({_LANGUAGES})\s+only\b")
_QUOTED = 60


@dataclass(frozen=True)
class Rules:
    """What the demo understood of the instructions; `present` whether the
    project has any, `unread` the sentences it understood nothing of."""

    present: bool = False
    colour: tuple[str, str] | None = None  # (the words used, a CSS value)
    tone: Tone | None = None
    name: str | None = None
    font: Font | None = None
    language: str | None = None  # "English", "French"…
    unread: tuple[str, ...] = ()
    cut: bool = False  # the file is too long: the prompt carries only its beginning

    @property
    def voice(self) -> Tone:
        return self.tone or "plain"

    @property
    def understood(self) -> bool:
        return any((self.colour, self.tone, self.name, self.font, self.language))


def rules_from(messages: list[dict[str, Any]]) -> Rules:
    """The instructions in the request's system message, as far as the demo
    understands them."""
    framed = _framed(messages)
    if framed is None:
        return Rules()
    body = _CUT_NOTE.sub("", framed)
    return replace(rules_of(body), cut=body != framed)


def rules_of(body: str) -> Rules:
    """What the demo understands of the instructions' text `body`."""
    found: dict[str, Any] = {}
    bullets: list[str] = []
    others: list[str] = []
    for sentence, bulleted in _sentences(body):
        learned = _learn(sentence)
        if learned:
            found |= learned
        else:
            (bullets if bulleted else others).append(sentence)
    return Rules(present=True, unread=tuple(bullets + others), **found)


def _framed(messages: list[dict[str, Any]]) -> str | None:
    """What the system message frames as the instructions, with the note of a cut."""
    system = next((m for m in messages if m.get("role") == "system"), None)
    text = text_of(system) if system is not None else ""
    start = text.find(_START)
    end = text.rfind(_END)
    if start < 0 or end < start:
        return None
    return text[start + len(_START) : end]


def followed_line(
    rules: Rules,
    *,
    colour: bool = False,
    font: bool = False,
    name: bool = False,
    texts: bool = True,
    overridden: str | None = None,
) -> str:
    """The answer's one line on the instructions in this turn: which it
    followed (`colour`, `font`, `name`: whether the turn used them; the tone
    and the language when it wrote texts, `texts`; the language only beside
    something else: English alone is no news), that the message won over them (`overridden`: the
    colour the message asked for), or that the demo understood none of them;
    and, as a model is told to, that the file was too long to read whole.
    "" when there is nothing to say."""
    said = _followed_line(
        rules, colour=colour, font=font, name=name, texts=texts, overridden=overridden
    )
    if not rules.cut:
        return said
    cut = "Your AGENTS.md is too long to read whole: I read its beginning only, so shorten it."
    return f"{said} {cut}".strip()


def _followed_line(
    rules: Rules, *, colour: bool, font: bool, name: bool, texts: bool, overridden: str | None
) -> str:
    if not rules.present:
        return ""
    if not rules.understood:
        if not rules.unread:
            return ""
        return (
            "I read your project instructions (AGENTS.md); as the offline demo I can follow "
            f"a colour, a tone, a name or a font there, not “{_shortened(rules.unread[0])}”."
        )
    said = _followed(rules, colour=colour and not overridden, font=font, name=name, texts=texts)
    lines = [f"Following your instructions: {'; '.join(said)}."] if said else []
    if rules.colour and overridden:
        lines.append(
            f"Your message asked for {overridden}, so it wins over the {rules.colour[0]} "
            "of your instructions."
        )
    if rules.language not in (None, "English"):
        lines.append(f"I can't write {rules.language}: the offline demo writes English only.")
    return " ".join(lines)


def _followed(rules: Rules, *, colour: bool, font: bool, name: bool, texts: bool) -> list[str]:
    said = []
    if colour and rules.colour:
        said.append(f"{rules.colour[0]} as the main colour")
    if name and rules.name:
        said.append(f"the name {rules.name}")
    if font and rules.font:
        said.append(f"a {'sans-serif' if rules.font == 'sans' else 'serif'} font")
    if texts and rules.tone:
        said.append(TONE_NAMES[rules.tone])
    if said and texts and rules.language == "English":
        said.append("English")
    return said


def asked_colour(request: str) -> tuple[str, str] | None:
    """The colour a request to build asks for ("a navy site", "in teal", "with
    a dark green theme"), or None: a colour in a name ("the Red Lion") is not one."""
    found = colour_in(request)
    if found is None or found[0].startswith("#"):
        return found
    lowered = request.lower()
    words = re.escape(found[0])
    near = (
        rf"\b(?:in|with)\s+(?:an?\s+)?{words}\b"
        rf"|\b{words}\s+(?:site|website|page|design|look|header)\b"
        rf"|\b(?:make|paint)\s+it\s+{words}\b"
    )
    return found if _BUILD_COLOUR.search(lowered) or re.search(near, lowered) else None


def _learn(sentence: str) -> dict[str, Any]:
    """What one sentence says that the demo understands, as Rules' fields."""
    learned: dict[str, Any] = {}
    lowered = sentence.lower()
    negated = _NEGATED.search(lowered) is not None
    colour = colour_in(sentence)
    if (
        colour
        and not negated
        and _COLOUR_WORDS.search(lowered)
        and not _NOT_MAIN_COLOUR.search(lowered)
    ):
        learned["colour"] = colour
    tone = _tone(lowered)
    if tone:
        learned["tone"] = tone
    named = _NAMED.search(sentence)
    if named:
        learned["name"] = (named.group(1) or named.group(2)).strip(" .,")[:60]
    if not negated and re.search(r"\bsans[- ]?(?:serif)?\b", lowered):
        learned["font"] = "sans"
    elif not negated and re.search(r"\bserif\b", lowered):
        learned["font"] = "serif"
    language = _LANGUAGE.search(lowered)
    if language and not negated:
        learned["language"] = (language.group(1) or language.group(2)).capitalize()
    return learned


def _tone(lowered: str) -> Tone | None:
    about_words = _ABOUT_WORDS.search(lowered) is not None
    for tone, strong, weak in _TONES:
        if re.search(rf"\b(?:{strong})\b", lowered):
            return tone
        if about_words and re.search(rf"\b(?:{weak})\b", lowered):
            return tone
    return None


def _sentences(body: str) -> list[tuple[str, bool]]:
    """The instructions' sentences, each with whether it is in a list item.
    Markdown headings are titles, not instructions; an indented line goes on
    the item above it."""
    items: list[tuple[str, bool]] = []
    open_item = False
    for raw in body.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or line.startswith("<!--"):
            open_item = False
            continue
        bullet = _BULLET.match(line)
        if open_item and not bullet:
            text, bulleted = items[-1]
            items[-1] = (f"{text} {line}", bulleted)
            continue
        items.append((_BULLET.sub("", line).replace("**", ""), bullet is not None))
        open_item = True
    return [
        (sentence.strip(), bulleted)
        for text, bulleted in items
        for sentence in _SENTENCE_END.split(text)
        if sentence.strip()
    ]


def _shortened(sentence: str) -> str:
    sentence = sentence.rstrip(".")  # the quote ends the answer's sentence
    if len(sentence) <= _QUOTED:
        return sentence
    return sentence[: _QUOTED - 1].rstrip() + "…"
