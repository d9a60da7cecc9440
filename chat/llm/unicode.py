"""Text that can always be encoded: the wire sometimes splits a character."""

from __future__ import annotations


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
