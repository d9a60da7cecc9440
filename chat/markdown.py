"""The assistant's answers as Markdown, sanitised for the chat panel, and plain-text excerpts.

The model's text is untrusted: a page it read may have told it to write markup. So raw HTML
is never parsed (the serializer escapes it and the person sees it as text), and whatever
Markdown builds is passed through an nh3 allowlist before it reaches the page.
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

# A URL scheme as browsers read it, after they drop tabs and newlines from the URL.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
# Python-Markdown hides "&" behind this marker until its last step (automail links use it).
_AMP_MARKER = "\x02amp\x03"
# C0 controls except tab, newline and carriage return. Python-Markdown uses STX/ETX as its
# own placeholders, so text that carries them could pose as stashed HTML.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def render_markdown(text: str) -> SafeString:
    """The answer as sanitised HTML; never raises, whatever the model wrote."""
    text = _clean_text(text)
    try:
        raw = _convert(text)
        return mark_safe(_CLEANER.clean(raw))  # noqa: S308 - nh3's allowlist made it safe
    except Exception:
        return mark_safe(linebreaks(text, autoescape=True))  # noqa: S308 - escaped


def _clean_text(text: str) -> str:
    # Lone surrogates cannot be encoded, so nh3 (Rust) would refuse the string; a round
    # trip through UTF-16 joins valid pairs and turns lone halves into U+FFFD.
    text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return _CONTROL.sub("", text)


# Building a Markdown instance costs about as much as rendering a short answer, but an
# instance keeps per-document state and is not thread-safe. One per thread, reset before
# each use, is both: render_markdown never yields, so one thread never interleaves two runs.
_local = threading.local()


def _convert(text: str) -> str:
    md = getattr(_local, "md", None) or _new_markdown()
    _local.md = None  # a run that raises may leave the instance half-way; build afresh then
    md.reset()
    result: str = md.convert(text)
    _local.md = md
    return result


def _new_markdown() -> Any:
    md = markdown.Markdown(
        extensions=["fenced_code", "tables", "sane_lists"],
        # align="…" rather than style="text-align: …", so style can stay off the allowlist.
        extension_configs={"tables": {"use_align_attribute": True}},
    )
    # Without these two, raw HTML is never parsed: it stays text and the serializer
    # escapes it, so "add a <nav> element" shows <nav> instead of silently losing it.
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    # Last, after inline patterns have made the links and images.
    md.treeprocessors.register(_ChatTree(), "chat_tree", -10)
    return md


class _ChatTree:
    """Fits Markdown's tree to the chat panel. Duck-typed as a Treeprocessor (Python-Markdown
    only calls run), since its base class is untyped and mypy would refuse the subclass."""

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
    # nh3 drops the span and keeps its text.
    alt = image.get("alt") or "image"
    image.tag, image.text = "span", alt
    image.attrib.clear()


def _image_as_link(image: Element) -> None:
    # A remote image would load as soon as the answer shows, telling its server the
    # viewer's address; a link loads it only if the person chooses to.
    src, alt = image.get("src", ""), image.get("alt") or "image"
    image.tag, image.text = "a", alt
    image.attrib.clear()
    image.set("href", src)


def _is_relative(href: str) -> bool:
    decoded = html.unescape(href.replace(_AMP_MARKER, "&"))
    decoded = re.sub(r"[\t\n\r]", "", decoded).strip()
    return not _SCHEME.match(decoded)


def _relative_link_as_code(link: Element) -> None:
    # A relative link names a project file ("/about.html") but would open Built-It's own
    # URL in the workspace, so it shows the path as code: the person still sees where it
    # pointed and can open the file from the file tree.
    href, label = link.get("href", ""), "".join(link.itertext())
    link.attrib.clear()
    if not href or label == href:
        link.tag = "code"
        return
    # nh3 drops the span and keeps its content: "label (<code>href</code>)".
    link.tag = "span"
    code = Element("code")
    code.text, code.tail = href, ")"
    if len(link):
        link[-1].tail = (link[-1].tail or "") + " ("
    else:
        link.text = (link.text or "") + " ("
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
    # Relative links became code above; any that got past that is dropped, not followed.
    url_relative="deny",
)


_FENCE_LINE = re.compile(r"^\s*(```|~~~).*$", re.MULTILINE)
_IMAGE_OR_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_LINE_MARKER = re.compile(r"^\s*(?:#{1,6}\s+|>+\s?|[-*+]\s+|\d+[.)]\s+)+", re.MULTILINE)
_RULE = re.compile(r"^\s*([-*_])(?:\s*\1){2,}\s*$", re.MULTILINE)
_TABLE_RULE = re.compile(r"^[\s|:-]*-[\s|:-]*$", re.MULTILINE)
_EMPHASIS = re.compile(r"\*{1,3}|~~|`+|(?<!\w)_{1,3}|_{1,3}(?!\w)")
_WHITESPACE = re.compile(r"\s+")


def plain_excerpt(text: str, limit: int = 80) -> str:
    """One line of plain text for titles and lists: Markdown roughly removed, cut at a word."""
    text = _clean_text(text)
    for pattern, replacement in (
        (_FENCE_LINE, ""),
        (_RULE, ""),
        (_TABLE_RULE, ""),
        (_IMAGE_OR_LINK, r"\1"),
        (_LINE_MARKER, ""),
        (_EMPHASIS, ""),
    ):
        text = pattern.sub(replacement, text)
    text = _WHITESPACE.sub(" ", text.replace("|", " ")).strip()
    return _cut(text, limit)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: max(limit - 1, 0)]
    space = cut.rfind(" ")
    # Cut at the last word boundary unless that throws most of the excerpt away.
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"
