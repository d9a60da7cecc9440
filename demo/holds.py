"""What a site already has, as the offline demo saw it in one turn: the files
listed, the texts it read, and its own writes applied to them (so an answer
can speak of the site as the turn left it). The follow-up chips
(demo.suggestions) and Improve (demo.vague) ask it what is there
before they propose anything, so they never offer a section, a page, a colour
or a look the site has already.

    site = site_after(files, read, writes(made))
    site.has_topic("faq"), site.header_colour, site.buttons_rounded
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from demo.reading import Call
from demo.site import SECTIONS

HOME = "/index.html"
STYLES = "/styles.css"
_PAGE = (".html", ".htm")
_IDS = re.compile(r"""<(?:section|div|article|aside)\b[^>]*\bid\s*=\s*["']([^"']+)["']""", re.I)
_HEADINGS = re.compile(r"<h[1-3]\b[^>]*>(.*?)</h[1-3]>", re.IGNORECASE | re.DOTALL)
_TAGS = re.compile(r"<[^>]+>")
_BUTTON = re.compile(r"<button\b|class\s*=\s*[\"'][^\"']*\bbutton\b", re.IGNORECASE)
_PICTURE = re.compile(r"<img\b|<picture\b|class\s*=\s*[\"'][^\"']*\bgallery\b", re.IGNORECASE)
# A rule's radius on buttons, where the stylesheet has no --button-radius.
_BUTTON_RULE = re.compile(
    r"(?:^|[,}\s])(?:\.button|button)\b[^{}]*\{[^}]*?border-radius\s*:\s*([^;}]+)"
)
# The words that name each section of demo.site (its id, the words a
# request names it by, a few more), and its heading there.
_NAMES: dict[str, set[str]] = {}
_HEADING: dict[str, str] = {}
for _word, (_id, _heading, _) in SECTIONS.items():
    _NAMES.setdefault(_id, {_id}).add(_word)
    _HEADING[_id] = _heading.lower()
_NAMES["faq"] |= {"faqs", "questions"}
_NAMES["testimonials"] |= {"reviews", "quotes"}
_NAMES["hours"] |= {"times"}


@dataclass(frozen=True)
class Site:
    """The project's files (paths, after the turn's writes) and the texts the
    turn read, as its writes left them."""

    files: tuple[str, ...]
    texts: Mapping[str, str]

    @property
    def home(self) -> str:
        return self.texts.get(HOME, "")

    @property
    def styles(self) -> str:
        return self.texts.get(STYLES, "")

    @cached_property
    def pages(self) -> tuple[str, ...]:
        return tuple(path for path in self.files if path.endswith(_PAGE))

    @cached_property
    def sections(self) -> frozenset[str]:
        """The ids of the home page's sections."""
        return frozenset(found.lower() for found in _IDS.findall(self.home))

    @cached_property
    def headings(self) -> tuple[str, ...]:
        """The home page's headings, as plain lowered text."""
        return tuple(
            " ".join(html.unescape(_TAGS.sub(" ", found)).lower().split())
            for found in _HEADINGS.findall(self.home)
        )

    def has_page(self, slug: str) -> bool:
        return any(path in self.files for path in (f"/{slug}.html", f"/{slug}/index.html"))

    def has_topic(self, topic: str) -> bool:
        """Whether the site covers `topic` (a section id of demo.site:
        "faq", "about"…) already: a section of the home page by that name or
        with its heading, or a page of that name."""
        names = _NAMES.get(topic, {topic})
        if self.sections & names or any(self.has_page(name) for name in names):
            return True
        return any(
            heading == _HEADING.get(topic) or _names_any(heading, names)
            for heading in self.headings
        )

    def variable(self, name: str) -> str | None:
        """A custom property's value in styles.css; None where it declares none."""
        found = re.search(rf"^\s*{re.escape(name)}\s*:\s*([^;\n]+);", self.styles, re.MULTILINE)
        return found.group(1).strip() if found else None

    @property
    def header_colour(self) -> str | None:
        return _hex(self.variable("--header-bg"))

    @cached_property
    def has_buttons(self) -> bool:
        return any(_BUTTON.search(self.texts.get(page, "")) for page in self.pages)

    @cached_property
    def buttons_rounded(self) -> bool:
        """Whether the buttons' corners are well rounded already (a pill, or
        at least about a line's height)."""
        radius = self.variable("--button-radius")
        if radius is None:
            rule = _BUTTON_RULE.search(self.styles)
            radius = rule.group(1).strip() if rule else None
        return radius is not None and _rounded(radius)

    @cached_property
    def has_pictures(self) -> bool:
        return _PICTURE.search(self.home) is not None


def site_after(files: list[str], read: dict[str, str], writes: list[Call]) -> Site:
    """The site as `writes` (this turn's, in order) left the files listed and read."""
    paths = dict.fromkeys(files)
    texts = dict(read)
    for call in writes:
        if not (call.ok or call.result.get("code") == "no_change"):
            continue
        path = str(call.arguments.get("path", ""))
        match call.name:
            case "create_file" | "update_file":
                texts[path] = str(call.arguments.get("content", ""))
                paths[path] = None
            case "edit_file" if path in texts:
                texts[path] = _edited(texts[path], call.arguments.get("edits"))
            case "delete_file":
                texts.pop(path, None)
                paths.pop(path, None)
            case "rename_file":
                new = str(call.arguments.get("new_path", ""))
                if path in texts:
                    texts[new] = texts.pop(path)
                paths.pop(path, None)
                paths[new] = None
    return Site(tuple(paths), texts)


def _names_any(heading: str, names: set[str]) -> bool:
    """Whether a word of `heading` is one of `names`, or its plural."""
    words = re.findall(r"[\w'-]+", heading)
    return any(word in names or word.removesuffix("s") in names for word in words)


def _edited(text: str, edits: object) -> str:
    for edit in edits if isinstance(edits, list) else []:
        if not isinstance(edit, dict):
            continue
        search, replace = str(edit.get("search", "")), str(edit.get("replace", ""))
        if search and text.count(search) == 1:
            text = text.replace(search, replace)
    return text


def _hex(value: str | None) -> str | None:
    if value is None or not re.fullmatch(r"#(?:[0-9a-fA-F]{3}){1,2}", value):
        return None
    return value.lower()


def _rounded(radius: str) -> bool:
    found = re.fullmatch(r"(\d+(?:\.\d+)?)(px|rem|em|%)", (radius.split() or [""])[0])
    if found is None:
        return False
    size, unit = float(found.group(1)), found.group(2)
    return size >= {"px": 16.0, "rem": 1.0, "em": 1.0, "%": 25.0}[unit]
