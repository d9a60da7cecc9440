"""The assistant's answers as Markdown, sanitised for the chat panel, and plain-text excerpts.

The model's text is untrusted: a page it read may have told it to write markup. So raw HTML
is never parsed (the serializer escapes it and the person sees it as text), and whatever
Markdown builds passes through an nh3 allowlist before it reaches the page.
"""

from __future__ import annotations

import html
import re
import threading
from typing import Any
from xml.etree.ElementTree import Element

import markdown
import nh3
from django.utils.html import linebreaks
from django.utils.safestring import SafeString, mark_safe
from markdown.extensions.fenced_code import FencedBlockPreprocessor
from markdown.inlinepatterns import SimpleTagInlineProcessor

from common.text import clean_text

# Python-Markdown is quick on answers but slower than linear on hostile text, where a few
# kilobytes could hold a worker for minutes. Three bounds keep every answer under a second;
# an answer past the first two is shown as plain text.
# 1. Its block parser (long flat lists, many fences) grows with the length, and faster
# with the depth of quotes in quotes, which no answer needs many of.
MAX_MARKDOWN_CHARS = 50_000
MAX_QUOTE_DEPTH = 16
# 2. Its inline parser copies a paragraph again for each match in it, so a paragraph costs
# its length times its markers; fenced code is not inline-parsed and does not count.
INLINE_WORK_BUDGET = 30_000_000
# 3. Its link patterns scan from each "[" for the closing "]" and ")", to the end of the
# paragraph when there is none ("[" * 10_000 takes minutes). A scan sees LINK_WINDOW
# characters at most; past LINK_SCAN_BUDGET scanned characters, brackets stay text.
LINK_WINDOW = 2_000
LINK_SCAN_BUDGET = 200_000
_LINK_PATTERNS = (
    *("reference", "link", "image_link", "image_reference", "short_reference"),
    "short_image_ref",
)
_INLINE_MARKER = re.compile(r"[`\\\[*_~&<]")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_DEEP_QUOTE = re.compile(rf"^(?:[ \t]*>){{{MAX_QUOTE_DEPTH + 1}}}", re.MULTILINE)
_FENCED_BLOCK = FencedBlockPreprocessor.FENCED_BLOCK_RE

_ALLOWED_TAGS = {
    *("p", "br", "hr", "h3", "h4", "h5", "h6", "strong", "em", "del", "code", "pre"),
    *("blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td"),
}
_ALIGN = {"align": {"left", "center", "right"}}
_LANGUAGE_CLASS = re.compile(r"language-[A-Za-z0-9_+-]+")

# Answers sit in a narrow panel under the page's own headings: h1/h2 would shout and would
# also claim the top of the page's outline for screen readers. Shifting every level down by
# two keeps the answer's own hierarchy (h1 > h2 > h3) while starting below the page's.
_DEMOTED = {"h1": "h3", "h2": "h4", "h3": "h5", "h4": "h6", "h5": "h6"}

# A URL scheme as browsers read it, once they have dropped tabs and newlines.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
# Python-Markdown hides "&" behind this marker until its last step (automail links use it).
_AMP_MARKER = "\x02amp\x03"
# An opening fence as the fenced_code extension reads one, without the rare hl_lines.
FENCE_OPENING = re.compile(r"(`{3,}|~{3,}) *(?:\{[^\n]*\}|\.?[\w#.+-]* *)")
# A line that begins a list where CommonMark lets one interrupt a paragraph: a bullet,
# or an ordered list that starts at 1.
_LIST_START = re.compile(r" {0,3}(?:[-*+]|1[.)])[ \t]+\S")


def render_markdown(text: str) -> SafeString:
    """The answer as sanitised HTML; never raises, whatever the model wrote."""
    text = clean_text(text)
    source = _close_open_fence(text)
    if not _too_costly(source):
        try:
            return mark_safe(_with_copy(_CLEANER.clean(_convert(source))))  # noqa: S308 - nh3 made it safe
        except Exception:  # noqa: S110 - the answer must still show, never a stack trace
            pass
    return mark_safe(linebreaks(text, autoescape=True))  # noqa: S308 - escaped


# Each code block gets a Copy button (static/builtit/chat/log.js copies its text). Added
# after cleaning, as fixed markup: the model's text can neither add nor shape one, and a
# "</pre>" it wrote is escaped text by now, so each tag here is a real block's.
_COPY = (
    '<div class="code-block"><button type="button" class="small code-copy" data-copy-code>'
    "Copy</button><pre>"
)


def _with_copy(cleaned: str) -> str:
    return cleaned.replace("<pre>", _COPY).replace("</pre>", "</pre></div>")


def fence_after(line: str, fence: str) -> str:
    """The code fence open after `line` ("" for none), given the one open before it."""
    if fence:
        return "" if line.rstrip(" ") == fence else fence
    opening = FENCE_OPENING.fullmatch(line)
    return opening.group(1) if opening else ""


def _close_open_fence(text: str) -> str:
    # An answer cut off by the token limit often ends inside a code block; closing it keeps
    # the code readable instead of running it into one paragraph.
    fence = ""
    for line in text.split("\n"):
        fence = fence_after(line, fence)
    return f"{text}\n{fence}" if fence else text


def _too_costly(source: str) -> bool:
    if len(source) > MAX_MARKDOWN_CHARS:
        return True
    # No inline match crosses a blank line, so each block bounds the paragraphs within it.
    prose = _FENCED_BLOCK.sub("\n\n", source)
    if _DEEP_QUOTE.search(prose):
        return True
    work = sum(
        len(block) * len(_INLINE_MARKER.findall(block)) for block in _BLANK_LINE.split(prose)
    )
    return work > INLINE_WORK_BUDGET


class _Renderer:
    """One Markdown instance, and how much link scanning the current answer has left."""

    def __init__(self) -> None:
        self.link_budget = 0
        self.md = _new_markdown()
        for name in _LINK_PATTERNS:
            self._bound_link_scans(self.md.inlinePatterns[name])

    def convert(self, text: str) -> str:
        self.link_budget = LINK_SCAN_BUDGET
        self.md.reset()
        result: str = self.md.convert(text)
        return result

    def _bound_link_scans(self, pattern: Any) -> None:
        # Wrapped per instance: the patterns call self.getText / self.getLink, and these
        # wrappers window the text and count what each scan actually read.
        handle_match, get_text, get_link = pattern.handleMatch, pattern.getText, pattern.getLink

        def windowed(match: re.Match[str], data: str) -> Any:
            return handle_match(match, data[: match.start() + LINK_WINDOW])

        def text_scan(data: str, index: int) -> tuple[str, int, bool]:
            if self.link_budget <= 0:
                return "", index, False
            label, end, handled = get_text(data, index)
            self.link_budget -= end - index
            return label, end, handled

        def link_scan(data: str, index: int) -> tuple[str, str | None, int, bool]:
            if self.link_budget <= 0:
                return "", None, index, False
            href, title, end, handled = get_link(data, index)
            # A quote makes getLink read on to the end and then step back, so a quoted or
            # unclosed "(" is counted as read to the end.
            quoted = "'" in data[index:end] or '"' in data[index:end]
            read_all = data.startswith("(", index) and (quoted or not handled)
            self.link_budget -= (len(data) if read_all else end) - index
            return href, title, end, handled

        pattern.handleMatch, pattern.getText, pattern.getLink = windowed, text_scan, link_scan


# Building a Markdown instance costs more than rendering a short answer, but an instance
# keeps per-document state and is not thread-safe. One per thread, reset before each use,
# is both: render_markdown never yields, so one thread never interleaves two runs.
_local = threading.local()


def _convert(text: str) -> str:
    renderer: _Renderer = getattr(_local, "renderer", None) or _Renderer()
    # A run that raises may leave its instance half-way, so it is only kept once done.
    _local.renderer = None
    result = renderer.convert(text)
    _local.renderer = renderer
    return result


def _new_markdown() -> Any:
    md = markdown.Markdown(
        extensions=["fenced_code", "tables", "sane_lists"],
        # align="…" rather than style="text-align: …", so style stays off the allowlist.
        extension_configs={"tables": {"use_align_attribute": True}},
    )
    # Without these two, raw HTML is never parsed: it stays text and the serializer
    # escapes it, so "add a <nav> element" shows <nav> instead of silently losing it.
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    # Models write GitHub's ~~strikethrough~~, which core Markdown lacks.
    md.inlinePatterns.register(SimpleTagInlineProcessor(r"(~~)(.+?)~~", "del"), "del", 65)
    # After fenced_code (25), so a fence's lines are out of its sight.
    md.preprocessors.register(_ListsAfterALine(), "lists_after_a_line", 15)
    # Last, once inline patterns have made the links and images.
    md.treeprocessors.register(_ChatTree(), "chat_tree", -10)
    return md


class _ListsAfterALine:
    """Models write Markdown as GitHub reads it, where a list may follow a line of text
    ("Done:\n- a menu page\n- a green header"); Python-Markdown wants a blank line
    first and would run the items into that line. The blank line is put in where such a
    list begins. Duck-typed as a Preprocessor, as _ChatTree is a Treeprocessor."""

    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        in_list = False  # this block (since the last blank line) has a list item
        for line in lines:
            if not line.strip():
                in_list = False
            elif _LIST_START.match(line):
                if out and out[-1].strip() and not in_list:
                    out.append("")
                in_list = True
            out.append(line)
        return out


class _ChatTree:
    """Fits Markdown's tree to the chat panel. Duck-typed as a Treeprocessor (Python-Markdown
    only calls run): its base class is untyped, so mypy would refuse the subclass."""

    def run(self, root: Element) -> None:
        for element in root.iter():
            element.tag = _DEMOTED.get(element.tag, element.tag)
        for link in root.iter("a"):
            for image in link.iter("img"):
                _image_as_text(image)
        for image in list(root.iter("img")):
            _image_as_link(image)
        for link in list(root.iter("a")):
            if _is_relative(link.get("href", "")):
                _relative_link_as_code(link)


def _image_as_text(image: Element) -> None:
    # Inside a link the alt text is enough; nh3 drops the span and keeps its text.
    alt = image.get("alt") or "image"
    image.attrib.clear()
    image.tag, image.text = "span", alt


def _image_as_link(image: Element) -> None:
    # A remote image would load as soon as the answer shows, telling its server the
    # viewer's address (and that they read it); a link loads it only if they choose to.
    src, alt = image.get("src", ""), image.get("alt") or "image"
    image.attrib.clear()
    image.tag, image.text = "a", alt
    image.set("href", src)


def _is_relative(href: str) -> bool:
    decoded = html.unescape(href.replace(_AMP_MARKER, "&"))
    return not _SCHEME.match(re.sub(r"[\t\n\r]", "", decoded).strip())


def _relative_link_as_code(link: Element) -> None:
    # A relative link names a project file ("/about.html") but would open Built-It's own
    # URL inside the workspace. Showing the path as code keeps what it pointed at, and the
    # person can open that file from the file tree.
    href, label = link.get("href", ""), "".join(link.itertext())
    link.attrib.clear()
    if label == href:
        link.tag = "code"
        return
    # "label (<code>href</code>)", or just the label for an empty target; nh3 drops the
    # span and keeps its content.
    link.tag = "span"
    if not href:
        return
    if len(link):
        link[-1].tail = (link[-1].tail or "") + " ("
    else:
        link.text = (link.text or "") + " ("
    code = Element("code")
    code.text, code.tail = href, ")"
    link.append(code)


def _keep_language_class(tag: str, attribute: str, value: str) -> str | None:
    if (tag, attribute) != ("code", "class"):
        return value
    kept = [name for name in value.split() if _LANGUAGE_CLASS.fullmatch(name)]
    return " ".join(kept) or None


_CLEANER = nh3.Cleaner(
    tags=_ALLOWED_TAGS,
    attributes={"a": {"href", "title"}, "code": {"class"}},
    attribute_filter=_keep_language_class,
    tag_attribute_values={"th": _ALIGN, "td": _ALIGN},
    set_tag_attribute_values={"a": {"target": "_blank"}},
    link_rel="noopener noreferrer nofollow",
    url_schemes={"http", "https", "mailto"},
    # Relative links became code above; one that got past that is dropped, never followed.
    url_relative="deny",
)
