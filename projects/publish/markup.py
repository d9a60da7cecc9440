"""Which of the repairs a browser makes to a page's markup a person should
hear about, in words.

HTML parsing never fails: a browser repairs whatever it is given, the same
way in every browser, and most repairs give what the writer meant (an end tag
left out, a bare "&", a <link> in the body). Told only here are those where
the page a visitor sees differs from the page as written: text swallowed by an
unfinished tag, comment or <script>; attributes dropped or garbled; elements
that cannot nest as written; content moved out of a table; no doctype, which
puts the page in quirks mode. Each is said once a page, at most MAX_PER_PAGE:
one missing quote can set off dozens of errors after it, and the first says
where to look.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from projects.publish.findings import Finding
from projects.publish.pages import ParseError

MAX_PER_PAGE = 3

_NO_DOCTYPE = (
    "The page does not start with <!doctype html>: browsers draw it in quirks mode, "
    "where sizes and spacing differ from other pages."
)
_ENDS_IN_TAG = (
    "The file ends inside a tag (a quote or a > is missing): browsers drop the unfinished "
    "tag and whatever follows it."
)
_ENDS_IN_COMMENT = (
    "The file ends inside a comment: a <!-- is never closed with -->, so everything after "
    "it is hidden."
)
_GARBLED = (
    "A tag's attributes are garbled here (a quote missing or one too many): browsers read "
    "them differently from what is written."
)
_IN_TABLE = (
    "Content inside a <table> but outside its cells: browsers move it out, before the table."
)

# html5lib's error codes (html5lib.constants.E) and what each means for a
# visitor; {name}, {startName} and {endName} are the tags it is about.
_TOLD: dict[str, str] = {
    **dict.fromkeys(
        (
            "expected-doctype-but-got-start-tag",
            "expected-doctype-but-got-end-tag",
            "expected-doctype-but-got-chars",
        ),
        _NO_DOCTYPE,
    ),
    **dict.fromkeys(
        (
            "eof-in-tag-name",
            "eof-in-attribute-name",
            "eof-in-attribute-value-double-quote",
            "eof-in-attribute-value-single-quote",
            "eof-in-attribute-value-no-quotes",
            "expected-attribute-name-but-got-eof",
            "expected-attribute-value-but-got-eof",
            "expected-end-of-tag-name-but-got-eof",
            "unexpected-EOF-after-attribute-value",
            "unexpected-EOF-after-solidus-in-tag",
        ),
        _ENDS_IN_TAG,
    ),
    **dict.fromkeys(
        (
            "eof-in-comment",
            "eof-in-comment-double-dash",
            "eof-in-comment-end-dash",
            "eof-in-comment-end-bang-state",
            "eof-in-comment-end-space-state",
        ),
        _ENDS_IN_COMMENT,
    ),
    "expected-named-closing-tag-but-got-eof": (
        "The <{name}> is never closed: everything after it is read as part of it."
    ),
    "eof-in-script-in-script": (
        "A <script> is never closed (a <!-- in it hides its </script>): everything after it "
        "is read as script."
    ),
    "expected-dashes-or-doctype": (
        "A <! that opens neither a comment (<!--) nor the doctype: browsers hide it, and what "
        "follows, up to the next >."
    ),
    "expected-tag-name-but-got-question-mark": (
        "A <? … > is hidden by browsers: HTML has no such tags, and a static host runs no PHP."
    ),
    "duplicate-attribute": (
        "A tag names the same attribute twice: browsers keep the first and drop the other."
    ),
    "invalid-character-in-attribute-name": _GARBLED,
    "unexpected-character-in-unquoted-attribute-value": _GARBLED,
    "equals-in-unquoted-attribute-value": _GARBLED,
    "non-void-element-with-trailing-solidus": (
        "<{name}/> does not close itself in HTML: what follows goes inside the <{name}>. "
        "Write <{name}></{name}>."
    ),
    "unexpected-start-tag-implies-end-tag": (
        "A <{startName}> inside a <{endName}>: they cannot nest, so browsers close the "
        "first <{endName}> here."
    ),
    "unexpected-end-tag": (
        "</{name}> closes nothing that is open here: browsers ignore it (or, for </p>, add an "
        "empty paragraph). A tag before it is missing or closed twice."
    ),
    "unexpected-start-tag-implies-table-voodoo": _IN_TABLE,
    "unexpected-char-implies-table-voodoo": _IN_TABLE,
}


def markup_findings(path: str, errors: tuple[ParseError, ...]) -> Iterator[Finding]:
    said: set[str] = set()
    for error in errors:
        told = _TOLD.get(error.code)
        if told is None or told in said:
            continue
        said.add(told)
        yield Finding("markup", path, _filled(told, error.names), error.line)
        if len(said) >= MAX_PER_PAGE:
            return


def _filled(told: str, names: Mapping[str, str]) -> str:
    # Not str.format: a tag's name, as written, may hold a { or a }.
    for key, value in names.items():
        told = told.replace("{" + key + "}", value)
    return told
