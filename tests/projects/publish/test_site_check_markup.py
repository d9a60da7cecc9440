"""The check of a whole site: markup and styles browsers read
differently from how they are written, ids used twice and images without a
text alternative, each with the line it is on."""

from __future__ import annotations

from projects.publish.site_check import MAX_FINDINGS, site_check

HEAD = (
    '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
    "<title>Bakery</title>\n</head>\n<body>\n"
)  # the body starts on line 9


def page(body: str) -> str:
    return f"{HEAD}{body}\n</body>\n</html>\n"


def told(files: dict[str, str | None], kind: str) -> list[tuple[str, int | None, str]]:
    return [(f.path, f.line, f.text) for f in site_check(files).findings if f.kind == kind]


def test_markup_a_browser_repairs_as_it_was_meant_is_not_told() -> None:
    body = (
        "<ul><li>Bread<li>Cakes</ul><p>Tom & Jerry &copy 2026<p>Open daily<br/>"
        '<img src="a.png" alt="" /><link rel="stylesheet" href="a.css"><div><section>'
        "<table><tr><td>1</table>"
    )
    files: dict[str, str | None] = {"/index.html": page(body), "/a.png": None, "/a.css": ""}
    assert site_check(files).clean


def test_markup_read_differently_is_told_once_a_kind_with_its_line() -> None:
    body = (
        "<div/>\n"  # line 9
        '<p class="a" class="b">Two classes</p>\n'
        '<a href="#one">One <a href="#two">two</a></a>\n'
        "<span/>\n"  # the same as line 9: said once
        "<p>x<div>y</div></p>\n"  # a fourth kind: past the three a page is told
    )
    assert told({"/index.html": page(body)}, "markup") == [
        (
            "/index.html",
            9,
            "<div/> does not close itself in HTML: what follows goes inside the <div>. "
            "Write <div></div>.",
        ),
        (
            "/index.html",
            10,
            "A tag names the same attribute twice: browsers keep the first and drop the other.",
        ),
        (
            "/index.html",
            11,
            "A <a> inside a <a>: they cannot nest, so browsers close the first <a> here.",
        ),
    ]


def test_what_swallows_the_rest_of_a_page_is_told() -> None:
    no_doctype = "<html lang='en'><title>x</title><p>Hello</p>"
    files: dict[str, str | None] = {
        "/comment.html": page("<!-- the menu\n<nav>Menu</nav>"),
        "/script.html": page("<script>let a = 1;"),
        "/quote.html": page('<a href="menu.html>Menu</a>'),
        "/plain.html": no_doctype,
    }
    texts = {path: text for path, _, text in told(files, "markup")}
    assert texts["/comment.html"].startswith("The file ends inside a comment")
    assert texts["/script.html"].startswith("The <script> is never closed")
    assert texts["/quote.html"].startswith("The file ends inside a tag")
    assert texts["/plain.html"].startswith("The page does not start with <!doctype html>")


def test_an_id_used_twice_is_named_with_its_lines() -> None:
    body = (
        '<h2 id="menu">Menu</h2>\n'  # line 9
        '<svg><linearGradient id="shine"/></svg>\n'
        '<div id="menu">\n<svg><linearGradient id="shine"/></svg>\n'
        '<p id="menu" ID="other">x</p><p id="once">y</p>'
    )
    assert told({"/index.html": page(body)}, "duplicate_id") == [
        (
            "/index.html",
            11,
            'id="menu" is on 3 elements (lines 9, 11 and 13): a link to #menu, a <label for> '
            "and a script each find only the first.",
        ),
        (
            "/index.html",
            12,
            'id="shine" is on 2 elements (lines 10 and 12): a link to #shine, a <label for> '
            "and a script each find only the first.",
        ),
    ]


def test_an_image_without_alt_is_named_and_decoration_with_an_empty_alt_is_not() -> None:
    images = "\n".join(f'<img src="img/{n}.png">' for n in range(7))
    body = f'<img src="logo.png" alt="">\n<img src="cake.png" alt="A cake">\n{images}'
    files: dict[str, str | None] = {"/index.html": page(body)}
    files |= {f"/img/{n}.png": None for n in range(7)} | {"/logo.png": None, "/cake.png": None}
    missing = told(files, "missing_alt")
    assert [(line, text.split(" has no alt")[0]) for _, line, text in missing[:2]] == [
        (11, "The image img/0.png"),
        (12, "The image img/1.png"),
    ]
    assert len(missing) == 6
    assert missing[-1] == ("/index.html", 16, "And 2 more images on this page have no alt.")


def test_styles_browsers_skip_are_told_with_the_line_of_the_file() -> None:
    files: dict[str, str | None] = {
        "/site.css": "body { margin: 0 }\nh1 { color red; }\n\n}\np { color: blue }",
        "/index.html": page(
            '<p style="color: red; background: url(a b.png)">x</p>\n'  # line 9
            "<style>\nh2 { color: green }\nh3 { content: 'open\n}\n</style>"
        ),
    }
    assert [(path, line, text.split(":")[0]) for path, line, text in told(files, "css")] == [
        ("/index.html", 9, "A url(…) here holds a space, a quote or a ( outside quotes"),
        ("/index.html", 12, "A string here runs to the end of its line without its closing quote"),
        ("/site.css", 2, "Something here is neither a property (name"),
        ("/site.css", 4, "A } here closes nothing"),
    ]


def test_what_a_stylesheet_names_is_read_from_its_tokens_not_its_comments() -> None:
    files: dict[str, str | None] = {
        "/site.css": (
            '/* background: url(old.png) */\n@import url("reset.css");\n'
            'a::after { content: "url(quoted.png)"; background: url( "gone.png" ) }'
        ),
        "/reset.css": "",
    }
    assert told(files, "broken_link") == [("/site.css", 3, "gone.png leads to no file.")]


def test_a_page_is_read_as_browsers_read_it() -> None:
    files: dict[str, str | None] = {
        # An icon's <title> is not the page's; a later <html> tag's lang joins the page's.
        "/icon.html": page("<svg><title>Icon</title></svg>")
        .replace("<title>Bakery</title>", "")
        .replace(' lang="en"', "")
        + '<html lang="pt">',
        # Words after an entity are one text, and two elements' texts stay apart.
        "/words.html": page("<p>Call 555&#45;0123</p><p>TODO</p><p>Next</p>"),
    }
    assert [text.split(":")[0] for _, _, text in told(files, "page")] == ["It has no <title>"]
    assert [text for _, _, text in told(files, "placeholder")] == [
        "“555-0123” looks like text left from a template.",
        "“TODO” looks like text left from a template.",
    ]


def test_every_finding_is_counted_though_not_every_one_is_listed() -> None:
    pages = {f"/p{n}.html": "<p>x" for n in range(MAX_FINDINGS)}
    check = site_check(dict(pages))
    assert len(check.findings) == MAX_FINDINGS
    assert dict(check.counts) == {"markup": MAX_FINDINGS, "page": 3 * MAX_FINDINGS}
    assert check.more == 3 * MAX_FINDINGS
