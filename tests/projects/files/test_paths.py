"""The path rules of DESIGN §3: every hostile spelling refused with a message that names
the problem, every valid spelling normalised to one canonical form."""

from __future__ import annotations

import pytest

from projects.files.paths import (
    ALLOWED_EXTENSIONS,
    BINARY_EXTENSIONS,
    MAX_DEPTH,
    MAX_LENGTH,
    TEXT_EXTENSIONS,
    PathError,
    content_type_for,
    extension_of,
    normalize_path,
    parent_folders,
)

TRAVERSAL = "'.' and '..' are not allowed"
EMPTY_SEGMENT = "empty folder or file name"
CONTROL = "control characters"
BACKSLASH = "not \\"
NON_ASCII = "non-ASCII"
HIDDEN = "hidden names starting with '.'"
BAD_CHARS = "may only contain ASCII letters, digits"
TOO_LONG = f"longer than {MAX_LENGTH} characters"
TOO_DEEP = f"nested deeper than {MAX_DEPTH} levels"
NO_EXTENSION = "needs an extension"
RESERVED = "reserved device name on Windows"
EMPTY = "The path is empty"
NOT_TEXT = "must be text"


def refused(raw: object) -> PathError:
    result = normalize_path(raw)
    assert isinstance(result, PathError), f"{raw!r} was accepted as {result!r}"
    return result


# --- hostile inputs ----------------------------------------------------------

HOSTILE = [
    # traversal, in every spelling
    ("..", TRAVERSAL),
    (".", TRAVERSAL),
    ("/..", TRAVERSAL),
    ("../x.html", TRAVERSAL),
    ("../../etc/passwd.txt", TRAVERSAL),
    ("/../x.html", TRAVERSAL),
    ("a/../b.html", TRAVERSAL),
    ("a/b/../../../x.html", TRAVERSAL),
    ("./a.html", TRAVERSAL),
    ("/./a.html", TRAVERSAL),
    ("a/./b.html", TRAVERSAL),
    ("a/..", TRAVERSAL),
    # URL-encoding is not decoded: '%' is simply not an allowed character
    ("%2e%2e/x.html", BAD_CHARS),
    ("%2e%2e%2fx.html", BAD_CHARS),
    ("a%2fb.html", BAD_CHARS),
    # absolute-ish and doubled or trailing separators
    ("//x.html", EMPTY_SEGMENT),
    ("///x.html", EMPTY_SEGMENT),
    ("a//b.html", EMPTY_SEGMENT),
    ("a/", EMPTY_SEGMENT),
    ("/a/b.html/", EMPTY_SEGMENT),
    # backslashes, Windows drive letters and UNC paths
    ("a\\b.html", BACKSLASH),
    ("..\\x.html", BACKSLASH),
    ("\\x.html", BACKSLASH),
    ("C:\\x.html", BACKSLASH),
    ("\\\\server\\share\\x.html", BACKSLASH),
    ("C:/x.html", BAD_CHARS),
    # NUL and control characters anywhere
    ("x.html\x00", CONTROL),
    ("x\x00.html", CONTROL),
    ("x.html\x00.php", CONTROL),
    ("\x00", CONTROL),
    ("a\tb.html", CONTROL),
    ("a\nb.html", CONTROL),
    ("x.html\n", CONTROL),
    ("a\rb.html", CONTROL),
    ("\x1b[31mx.html", CONTROL),
    ("a\x7fb.html", CONTROL),
    ("a\x0bb.html", CONTROL),
    # hidden segments
    (".env", HIDDEN),
    (".env.txt", HIDDEN),
    ("/.htaccess.txt", HIDDEN),
    ("a/.git/x.html", HIDDEN),
    (".well-known/x.json", HIDDEN),
    ("...", HIDDEN),
    ("a/.../b.html", HIDDEN),
    ("/a/.html", HIDDEN),
    # non-ASCII lookalikes and other non-ASCII text
    ("\u0456ndex.html", NON_ASCII),  # Cyrillic small i (U+0456)
    ("index.h\u0442ml", NON_ASCII),  # Cyrillic small te (U+0442)
    ("\uff49\uff4e\uff44\uff45\uff58.html", NON_ASCII),  # fullwidth "index"
    ("index\uff0ehtml", NON_ASCII),  # fullwidth full stop
    ("a\uff0fb.html", NON_ASCII),  # fullwidth solidus
    ("caf\u00e9.html", NON_ASCII),
    ("x\u200b.html", NON_ASCII),  # zero-width space
    ("x\u202egnp.html", NON_ASCII),  # right-to-left override
    ("x\u2028.html", NON_ASCII),  # line separator
    ("x\u0085.html", NON_ASCII),  # C1 control NEL
    ("\U0001f600.html", NON_ASCII),
    # spaces and other symbols
    ("my page.html", BAD_CHARS),
    (" index.html", BAD_CHARS),
    ("index.html ", BAD_CHARS),
    (" ", BAD_CHARS),
    ("a:b.html", BAD_CHARS),
    ("a*b.html", BAD_CHARS),
    ("a?b.html", BAD_CHARS),
    ("a<b>.html", BAD_CHARS),
    ('a"b.html', BAD_CHARS),
    ("a|b.html", BAD_CHARS),
    ("~/x.html", BAD_CHARS),
    ("x.html;rm -rf", BAD_CHARS),
    ("x.html#frag", BAD_CHARS),
    ("x.html?q=1", BAD_CHARS),
    ("$HOME.txt", BAD_CHARS),
    # length and depth
    ("a" * 196 + ".html", TOO_LONG),  # 202 with the leading slash
    ("/" + "a" * 195 + ".html", TOO_LONG),  # 201
    ("a/" * 100 + "x.html", TOO_LONG),
    ("x" * 10_000, TOO_LONG),
    ("a/b/c/d/e/f/g/h/x.html", TOO_DEEP),  # 9 segments
    ("/1/2/3/4/5/6/7/8/9/10/x.html", TOO_DEEP),
    # extensions: text files only, from the allowed list
    ("index.php", "'.php' files are not allowed"),
    ("app.py", "'.py' files are not allowed"),
    ("setup.exe", "'.exe' files are not allowed"),
    ("logo.bmp", "'.bmp' files are not allowed"),
    ("photo.TIFF", "'.tiff' files are not allowed"),
    ("index.html.php", "'.php' files are not allowed"),
    ("shell.sh", "'.sh' files are not allowed"),
    ("x.", "may not end with '.'"),
    ("/a./x.html", "may not end with '.'"),
    ("README", NO_EXTENSION),
    ("a/Makefile", NO_EXTENSION),
    ("html", NO_EXTENSION),
    # Windows reserved device names, in files and folders, any case
    ("con.html", RESERVED),
    ("CON.html", RESERVED),
    ("nul.txt", RESERVED),
    ("prn.css", RESERVED),
    ("aux.js", RESERVED),
    ("com1.json", RESERVED),
    ("LPT9.txt", RESERVED),
    ("con.min.js", RESERVED),
    ("aux/x.html", RESERVED),
    ("a/Nul/x.html", RESERVED),
    # empty
    ("", EMPTY),
    ("/", EMPTY),
    # not text at all
    (None, NOT_TEXT),
    (5, NOT_TEXT),
    (b"/index.html", NOT_TEXT),
    (["/index.html"], NOT_TEXT),
    (("index.html",), NOT_TEXT),
]


@pytest.mark.parametrize(("raw", "problem"), HOSTILE)
def test_hostile_path_is_refused_naming_the_problem(raw: object, problem: str) -> None:
    assert problem in refused(raw).message


@pytest.mark.parametrize(("raw", "problem"), HOSTILE)
def test_refusal_message_carries_no_raw_control_or_invisible_character(
    raw: object, problem: str
) -> None:
    message = refused(raw).message
    assert all(ch.isprintable() for ch in message), repr(message)


def test_refusal_of_unknown_extension_lists_every_allowed_extension() -> None:
    message = refused("index.php").message
    for extension in ALLOWED_EXTENSIONS:
        assert f".{extension}" in message


def test_refusal_message_quotes_the_offending_input() -> None:
    assert "'my page.html'" in refused("my page.html").message


def test_refusal_message_escapes_the_control_character_it_quotes() -> None:
    message = refused("a\nb.html").message
    assert "\\n" in message
    assert "\n" not in message


def test_refusal_message_of_a_huge_input_stays_short() -> None:
    error = refused("x" * 100_000 + ".html")
    assert len(error.message) < 2 * MAX_LENGTH + 200
    assert len(error.path) <= MAX_LENGTH + 20


def test_refusal_keeps_the_input_for_context() -> None:
    assert refused("../x.html").path == "../x.html"
    assert refused(None).path == "None"


# --- valid inputs ------------------------------------------------------------

VALID = [
    ("index.html", "/index.html"),
    ("/index.html", "/index.html"),
    ("/a/b-c_d.1.css", "/a/b-c_d.1.css"),
    ("a/b-c_d.1.css", "/a/b-c_d.1.css"),
    ("/A.HTML", "/A.HTML"),
    ("/Index.Html", "/Index.Html"),
    ("js/app.min.js", "/js/app.min.js"),
    ("/data.json", "/data.json"),
    ("/logo.svg", "/logo.svg"),
    ("/notes.txt", "/notes.txt"),
    ("/README.md", "/README.md"),
    ("/sitemap.xml", "/sitemap.xml"),
    ("/site.webmanifest", "/site.webmanifest"),
    ("/module.mjs", "/module.mjs"),
    ("/old.htm", "/old.htm"),
    ("/a..b.html", "/a..b.html"),
    ("/-dash.html", "/-dash.html"),
    ("/_partial.html", "/_partial.html"),
    ("/2024/01/post.html", "/2024/01/post.html"),
    ("/folder.with.dots/x.css", "/folder.with.dots/x.css"),
    ("/console.html", "/console.html"),  # only the exact device stems are reserved
    ("/com10.txt", "/com10.txt"),
    ("/connect.js", "/connect.js"),
    ("/1/2/3/4/5/6/7/x.html", "/1/2/3/4/5/6/7/x.html"),  # exactly 8 levels
    ("a" * 194 + ".html", "/" + "a" * 194 + ".html"),  # exactly 200 characters
]


@pytest.mark.parametrize(("raw", "canonical"), VALID)
def test_valid_path_is_normalised_to_its_canonical_form(raw: str, canonical: str) -> None:
    assert normalize_path(raw) == canonical


@pytest.mark.parametrize(("raw", "canonical"), VALID)
def test_canonical_form_is_a_fixed_point(raw: str, canonical: str) -> None:
    assert normalize_path(canonical) == canonical


def test_longest_allowed_path_is_exactly_the_limit() -> None:
    path = normalize_path("a" * 194 + ".html")
    assert isinstance(path, str)
    assert len(path) == MAX_LENGTH


@pytest.mark.parametrize("extension", ALLOWED_EXTENSIONS)
def test_every_allowed_extension_is_accepted_in_any_case(extension: str) -> None:
    assert normalize_path(f"page.{extension}") == f"/page.{extension}"
    assert normalize_path(f"page.{extension.upper()}") == f"/page.{extension.upper()}"


# --- helpers -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "extension"),
    [("/index.html", "html"), ("/A.HTML", "html"), ("/a.b/c.min.JS", "js")],
)
def test_extension_of_is_the_lower_cased_last_suffix(path: str, extension: str) -> None:
    assert extension_of(path) == extension


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("/index.html", "text/html; charset=utf-8"),
        ("/OLD.HTM", "text/html; charset=utf-8"),
        ("/styles.css", "text/css; charset=utf-8"),
        ("/app.js", "text/javascript; charset=utf-8"),
        ("/mod.mjs", "text/javascript; charset=utf-8"),
        ("/data.json", "application/json; charset=utf-8"),
        ("/logo.svg", "image/svg+xml; charset=utf-8"),
        ("/notes.txt", "text/plain; charset=utf-8"),
        ("/README.md", "text/markdown; charset=utf-8"),
        ("/feed.xml", "application/xml; charset=utf-8"),
        ("/site.webmanifest", "application/manifest+json; charset=utf-8"),
        ("/a.unknown", "application/octet-stream"),
    ],
)
def test_content_type_follows_the_extension(path: str, content_type: str) -> None:
    assert content_type_for(path) == content_type


def test_every_allowed_extension_has_its_content_type() -> None:
    for extension in TEXT_EXTENSIONS:
        assert "charset=utf-8" in content_type_for(f"/x.{extension}")
    for extension in BINARY_EXTENSIONS:
        assert content_type_for(f"/x.{extension}") != "application/octet-stream"
        assert "charset" not in content_type_for(f"/x.{extension}")
    assert set(TEXT_EXTENSIONS) | set(BINARY_EXTENSIONS) == set(ALLOWED_EXTENSIONS)


@pytest.mark.parametrize(
    ("path", "folders"),
    [
        ("/index.html", []),
        ("/a/x.html", ["/a"]),
        ("/a/b/c.html", ["/a", "/a/b"]),
        ("/x.y/z/w.css", ["/x.y", "/x.y/z"]),
    ],
)
def test_parent_folders_lists_every_implied_folder(path: str, folders: list[str]) -> None:
    assert parent_folders(path) == folders
