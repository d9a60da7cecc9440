"""Text that can always be stored, sent and shown: characters the wire split
joined again (`well_formed`), control characters and lone surrogates out
(`clean_text`), whether a database can store text at all (`storable`), and
one line without Markdown for titles and lists (`plain_excerpt`). Below
everything that shows text (chat's services name conversations with it;
chat.render's Markdown starts from the same cleaning)."""

from __future__ import annotations

import re
from collections.abc import Mapping

# C0 controls but tab and newline. Python-Markdown uses STX/ETX as its own placeholders,
# so text that carried them could pose as stashed HTML.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# What no database here stores as text: PostgreSQL refuses NUL (in JSON too),
# and a lone surrogate has no UTF-8 form.
_UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")


def well_formed(text: str) -> str:
    """`text` with surrogate halves re-paired and any lone half replaced by U+FFFD.

    JSON escapes an emoji as two halves (\\ud83d\\ude00); a provider that puts
    them in two chunks gives two strings that cannot be encoded on their own,
    but join into one valid character.
    """
    try:
        text.encode()
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def storable(text: str) -> bool:
    """Whether every database the app runs on can store `text` as text."""
    return _UNSTORABLE.search(text) is None


def storable_cookies(cookies: Mapping[str, str]) -> dict[str, str]:
    """`cookies` without those `storable` refuses (`"\\000…"` is NUL once
    unquoted): a session key is looked up in the database."""
    return {name: value for name, value in cookies.items() if storable(name) and storable(value)}


def clean_text(text: str) -> str:
    # Lone surrogates cannot be encoded, so nh3 (Rust) would refuse the string.
    text = well_formed(text)
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


_FENCE_LINE = re.compile(r"^ *(```|~~~).*$", re.MULTILINE)
_IMAGE_OR_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
_LINE_MARKER = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+|\d+[.)][ \t]+)+", re.M)
_RULE = re.compile(r"^[ \t]*([-*_])(?:[ \t]*\1){2,}[ \t]*$", re.MULTILINE)
_TABLE_RULE = re.compile(r"^[ \t|:]*-[ \t|:-]*$", re.MULTILINE)
_EMPHASIS = re.compile(r"\*+|~~|`+|(?<!\w)_+|_+(?!\w)")
_WHITESPACE = re.compile(r"\s+")


def plain_excerpt(text: str, limit: int = 80) -> str:
    """One line of plain text for titles and lists: Markdown roughly removed, cut at a word."""
    # Only the start can show; cutting first keeps a huge answer cheap.
    text = clean_text(text[: limit * 50])
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
    # At the last word boundary, unless that would throw most of the excerpt away.
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"
