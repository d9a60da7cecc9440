"""The assistant's answers as sanitised Markdown: what renders, what never becomes markup,
and hostile input that must neither raise nor hang. Plus the plain-text excerpts."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from html.parser import HTMLParser

import pytest
from django.utils.safestring import SafeString

import chat.render.markdown
from chat.render.markdown import (
    LINK_SCAN_BUDGET,
    MAX_MARKDOWN_CHARS,
    MAX_QUOTE_DEPTH,
    render_markdown,
)
from common.text import plain_excerpt

ALLOWED_ATTRIBUTES = {
    "a": {"href", "title", "rel", "target"},
    "code": {"class"},
    "th": {"align"},
    "td": {"align"},
}
ALLOWED_TAGS = {
    *("p", "br", "hr", "h3", "h4", "h5", "h6", "strong", "em", "del", "code", "pre"),
    *("blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td"),
}
LINK_REL = "noopener noreferrer nofollow"
COPY_WRAPPER = (
    '<div class="code-block"><button type="button" class="small code-copy" data-copy-code>'
    "Copy</button><pre>"
)


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    text: str = ""


class Parsed(HTMLParser):
    """The rendered HTML as the browser would read it: elements in order, and the text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self.text = ""
        self._open: list[Element] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {name: value or "" for name, value in attrs})
        self.elements.append(element)
        if tag not in {"br", "hr"}:
            self._open.append(element)

    def handle_endtag(self, tag: str) -> None:
        if self._open and self._open[-1].tag == tag:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        self.text += data
        for element in self._open:
            element.text += data

    def tags(self) -> list[str]:
        return [element.tag for element in self.elements]

    def all(self, tag: str) -> list[Element]:
        return [element for element in self.elements if element.tag == tag]

    def one(self, tag: str) -> Element:
        found = self.all(tag)
        assert len(found) == 1, f"expected one <{tag}>, got {self.tags()}"
        return found[0]


def render(text: str) -> Parsed:
    """Renders, checks the output is within the allowlist whatever the input, and parses."""
    html = render_markdown(text)
    assert isinstance(html, SafeString)
    # Each code block's Copy wrapper is fixed markup around a <pre>, never the model's.
    assert html.count(COPY_WRAPPER) == html.count("<pre>") == html.count("</pre></div>")
    parsed = Parsed()
    parsed.feed(html.replace(COPY_WRAPPER, "<pre>").replace("</pre></div>", "</pre>"))
    parsed.close()
    for element in parsed.elements:
        assert element.tag in ALLOWED_TAGS, f"<{element.tag}> in {html[:300]!r}"
        assert set(element.attrs) <= ALLOWED_ATTRIBUTES.get(element.tag, set()), element
        href = element.attrs.get("href")
        assert href is None or re.match(r"(https?|mailto):", href), element
    return parsed


def link(parsed: Parsed) -> Element:
    return parsed.one("a")


# --- what Markdown gives --------------------------------------------------------------


def test_headings_are_demoted_two_levels_keeping_their_order():
    parsed = render("# One\n\n## Two\n\n### Three\n\n#### Four\n\n##### Five\n\n###### Six")
    assert parsed.tags() == ["h3", "h4", "h5", "h6", "h6", "h6"]
    assert [element.text for element in parsed.elements] == [
        *("One", "Two", "Three", "Four", "Five", "Six")
    ]


def test_a_code_block_has_a_copy_button_and_inline_code_has_none():
    html = render_markdown("Run `ls`:\n\n```sh\nls -l\n```\n\nand\n\n    indented\n")
    assert html.count(COPY_WRAPPER) == 2
    assert "<code>ls</code>" in html
    # A model writing the wrapper's markup gets text, not a second button.
    forged = render_markdown('<div class="code-block"><button data-copy-code>Copy</button>')
    assert "<button" not in forged


def test_single_newlines_stay_inside_one_paragraph():
    parsed = render("first line\nsecond line\n\nnext paragraph")
    assert parsed.tags() == ["p", "p"]
    assert parsed.elements[0].text == "first line\nsecond line"


def test_lists_nest_and_number():
    parsed = render("- apples\n- pears\n    - conference\n\n1. first\n2. second")
    assert parsed.tags() == ["ul", "li", "li", "ul", "li", "ol", "li", "li"]
    assert [element.text for element in parsed.all("li")][-2:] == ["first", "second"]


def test_a_list_right_under_a_line_of_text_is_a_list_as_on_github():
    # A summary's headings, an answer's "Done:": without a blank line first, the
    # items ran into the line above as one paragraph of dashes.
    parsed = render("Done:\n- a menu page\n- a green header\n\nSteps:\n1. read\n2. write")

    assert parsed.tags() == ["p", "ul", "li", "li", "p", "ol", "li", "li"]
    assert parsed.all("p")[0].text == "Done:"
    assert [item.text for item in parsed.all("li")] == [
        *("a menu page", "a green header", "read", "write")
    ]


def test_what_only_looks_like_a_list_under_a_line_stays_as_it_was():
    # A line going on inside a list item, a number that does not start at 1, a fence.
    assert render("- one\ngoing on\n- two").tags() == ["ul", "li", "li"]
    assert render("The year 2024\n2. not a list").tags() == ["p"]
    code = render("Run:\n```\nlines\n- not an item\n```")
    assert code.tags() == ["p", "pre", "code"]
    assert code.one("code").text == "lines\n- not an item\n"


def test_tables_keep_header_body_and_alignment_without_style():
    parsed = render("| Page | Size |\n|:-----|-----:|\n| index.html | 2 KB |")
    assert parsed.tags() == ["table", "thead", "tr", "th", "th", "tbody", "tr", "td", "td"]
    assert [cell.attrs for cell in parsed.all("th")] == [{"align": "left"}, {"align": "right"}]
    assert parsed.all("td")[0].text == "index.html"


def test_emphasis_strong_and_strikethrough():
    parsed = render("*soft* **loud** ~~gone~~ snake_case_name")
    assert [(element.tag, element.text) for element in parsed.elements[1:]] == [
        ("em", "soft"),
        ("strong", "loud"),
        ("del", "gone"),
    ]
    assert "snake_case_name" in parsed.text


def test_inline_code_shows_markup_as_text():
    parsed = render('Wrap it in `<main class="x">` first.')
    assert parsed.one("code").text == '<main class="x">'
    assert parsed.tags() == ["p", "code"]


def test_fenced_code_keeps_language_indentation_blank_lines_and_shows_html():
    source = "```html\n<h1>Hello</h1>\n\n<ul>\n    <li>indented</li>\n</ul>\n```"
    parsed = render(source)
    assert parsed.tags() == ["pre", "code"]
    code = parsed.one("code")
    assert code.attrs == {"class": "language-html"}
    assert code.text == "<h1>Hello</h1>\n\n<ul>\n    <li>indented</li>\n</ul>\n"


@pytest.mark.parametrize(
    ("fence", "expected"),
    [
        ("```python", {"class": "language-python"}),
        ("~~~ js", {"class": "language-js"}),
        ("``` { .python .evil #x }", {"class": "language-python"}),
        ("```c#", {}),
        ("```", {}),
    ],
)
def test_code_keeps_only_a_language_class(fence, expected):
    parsed = render(f"{fence}\nx = 1\n{fence[:3]}")
    assert parsed.all("pre")[0].attrs == {}
    assert parsed.one("code").attrs == expected


def test_unterminated_fence_still_shows_as_code():
    parsed = render("Here it is:\n\n```python\ndef f():\n    return 1")
    assert parsed.tags() == ["p", "pre", "code"]
    assert parsed.one("code").text == "def f():\n    return 1\n"


# --- links ----------------------------------------------------------------------------


def test_links_open_in_a_new_tab_without_referrer_or_ranking():
    parsed = render('See [the docs](https://example.com/a?b=1&c=2 "Docs").')
    assert link(parsed).attrs == {
        "href": "https://example.com/a?b=1&c=2",
        "title": "Docs",
        "target": "_blank",
        "rel": LINK_REL,
    }
    assert link(parsed).text == "the docs"


@pytest.mark.parametrize(
    ("source", "href"),
    [
        ("<https://example.com>", "https://example.com"),
        ("[mail](mailto:ada@example.com)", "mailto:ada@example.com"),
        # Python-Markdown hides automatic mail links behind entities; they must survive.
        ("<ada@example.com>", "mailto:ada@example.com"),
        ("[ref][1]\n\n[1]: http://example.com/x", "http://example.com/x"),
    ],
)
def test_safe_links_keep_their_target(source, href):
    assert link(render(source)).attrs["href"] == href


@pytest.mark.parametrize(
    "href",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "&#106;avascript:alert(1)",
        "&#x6A;&#x61;vascript:alert(1)",
        "java&#9;script:alert(1)",
        "java&#10;script:alert(1)",
        "%6Aavascript:alert(1)",
        " javascript:alert(1)",
        "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
        "vbscript:msgbox(1)",
        "file:///etc/passwd",
        # Allowed by nh3's default list, but not by ours.
        "ftp://example.com/file",
        "tel:+15555550100",
        "magnet:?xt=urn:btih:abc",
        "//evil.example/steal",
    ],
)
def test_dangerous_link_targets_are_never_followed(href):
    for source in (f"[click me]({href})", f"[click me][x]\n\n[x]: {href}"):
        parsed = render(source)
        assert "click me" in parsed.text
        assert all("href" not in element.attrs for element in parsed.elements), source


def test_relative_links_show_their_path_as_code_instead_of_navigating():
    parsed = render("Open [the about page](/about.html) or [css/site.css](css/site.css).")
    assert "a" not in parsed.tags()
    assert [element.text for element in parsed.all("code")] == ["/about.html", "css/site.css"]
    assert parsed.text == "Open the about page (/about.html) or css/site.css."


def test_link_with_an_empty_target_is_just_its_label():
    assert render("[nowhere]() and [also](<>)").tags() == ["p"]
    assert render("[nowhere]() and [also](<>)").text == "nowhere and also"


def test_relative_link_with_markup_in_its_label_keeps_the_label():
    parsed = render("[**Contact** form](contact.html#form)")
    assert parsed.tags() == ["p", "strong", "code"]
    assert parsed.text == "Contact form (contact.html#form)"


# --- raw HTML and images --------------------------------------------------------------


@pytest.mark.parametrize(
    "markup",
    [
        "<script>alert(document.cookie)</script>",
        "<img src=x onerror=alert(1)>",
        '<iframe src="https://evil.example"></iframe>',
        "<svg onload=alert(1)><circle r=5></circle></svg>",
        '<a href="https://example.com" onclick="alert(1)">x</a>',
        '<p style="position:fixed;inset:0">cover</p>',
        '<form action="https://evil.example"><input name=p></form>',
        "<!-- hidden --><style>body{display:none}</style>",
        '<object data="https://evil.example/x.swf"></object>',
        '<meta http-equiv="refresh" content="0;url=https://evil.example">',
        '<base href="https://evil.example/">',
    ],
)
def test_raw_html_is_shown_as_text_never_as_markup(markup):
    for source in (markup, f"Inline {markup} here", f"- item {markup}", f"> {markup}"):
        parsed = render(source)
        assert markup in parsed.text
        assert set(parsed.tags()) <= {"p", "ul", "li", "blockquote"}


def test_prose_naming_an_element_keeps_the_element_visible():
    assert render("Add a <nav> element & a <footer>.").text == "Add a <nav> element & a <footer>."


def test_entities_written_by_the_model_stay_text():
    parsed = render("&lt;script&gt; and &amp;")
    assert parsed.tags() == ["p"]
    assert parsed.text == "<script> and &"


def test_images_become_links_so_nothing_loads_by_itself():
    parsed = render("![a red door](https://example.com/door.png)")
    assert "img" not in parsed.tags()
    assert link(parsed).attrs["href"] == "https://example.com/door.png"
    assert link(parsed).text == "a red door"


def test_images_without_alt_hostile_src_or_inside_links():
    parsed = render("![](https://example.com/x.png) ![x](javascript:alert(1)) ![logo](logo.png)")
    assert parsed.text == "image x logo (logo.png)"
    assert [element.attrs.get("href") for element in parsed.all("a")] == [
        "https://example.com/x.png",
        None,
    ]
    linked = render("[![badge](https://example.com/b.svg)](https://example.com)")
    assert link(linked).attrs["href"] == "https://example.com"
    assert link(linked).text == "badge"


# --- hostile and huge input -----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "source", "shown"),
    [
        ("200 KB", "A long answer with *words*. " * 8_000, "A long answer"),
        ("deep quote", ">" * 5_000 + " deep", "deep"),
        ("quote lines", "\n".join(">" * depth + " x" for depth in range(1, 500)), "x"),
        ("deep list", "\n".join("    " * depth + "- item" for depth in range(300)), "item"),
        ("nested list", "\n".join("    " * depth + "- item" for depth in range(80)), "item"),
        ("open brackets", "[" * 20_000 + "end", "end"),
        ("open link", "[a](b " * 5_000 + "end", "end"),
        ("quoted links", '[a]("x)' * 5_000 + "end", "end"),
        ("nested brackets", "[" * 10_000 + "x" + "]" * 10_000, "x"),
        ("escapes", "\\[" * 20_000 + "end", "end"),
        ("emphasis", "*a" * 20_000 + "end", "end"),
        ("many fences", "```\n" * 20_001 + "end", "end"),
        ("wide table", "|a" * 3_000 + "\n" + "|-" * 3_000 + "\n" + "|x" * 3_000, "x"),
        ("flat list", "- a\n" * 8_000 + "end", "end"),
        ("NUL", "be\x00fore\x00 after", "before after"),
        ("placeholders", "\x02wzxhzdk:0\x03 \x02klzzwxh:0\x03 text", "wzxhzdk:0 klzzwxh:0 text"),
        ("lone surrogates", "broken \ud800 half \udfff end", "broken \ufffd half \ufffd end"),
        ("split emoji", "smile \ud83d\ude00", "smile \U0001f600"),
    ],
)
def test_hostile_input_renders_readably(name, source, shown):
    assert shown in render(source).text


def test_forged_placeholders_cannot_repeat_stashed_code():
    parsed = render("```\n<b>once</b>\n```\n\n\x02wzxhzdk:0\x03\n\n\x02wzxhzdk:1\x03")
    assert parsed.text.count("<b>once</b>") == 1


def test_huge_answer_is_plain_escaped_text_with_its_line_breaks():
    source = "**not bold** <b>x</b>\nsecond line\n\n" + "filler " * MAX_MARKDOWN_CHARS
    assert set(render(source).tags()) == {"p", "br"}
    assert render_markdown(source).startswith(
        "<p>**not bold** &lt;b&gt;x&lt;/b&gt;<br>second line</p>\n\n<p>filler filler"
    )


def test_quotes_past_the_depth_limit_are_plain_text():
    assert "blockquote" in render(">" * MAX_QUOTE_DEPTH + " ok").tags()
    assert render(">" * (MAX_QUOTE_DEPTH + 1) + " no").tags() == ["p"]


def test_markdown_failure_falls_back_to_escaped_paragraphs(monkeypatch):
    def broken(text: str) -> str:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(chat.render.markdown, "_convert", broken)
    html = render_markdown("<script>x</script>\nline two\n\n**second** paragraph")
    assert html == (
        "<p>&lt;script&gt;x&lt;/script&gt;<br>line two</p>\n\n<p>**second** paragraph</p>"
    )


def test_a_long_realistic_answer_keeps_its_formatting():
    code = "\n".join(f"    items[{n}] = values[{n}] * factor_{n}  # *{n}*" for n in range(400))
    source = (
        "## Changes\n\n"
        + "".join(f"- [page {n}](https://example.com/{n}) updated **today**\n" for n in range(120))
        + f"\n```python\n{code}\n```\n\n"
        + "Some *closing* words with `code`. " * 200
    )
    assert 30_000 < len(source) < MAX_MARKDOWN_CHARS
    parsed = render(source)
    assert len(parsed.all("a")) == 120
    assert len(parsed.all("strong")) == 120
    assert parsed.all("code")[0].text.startswith("    items[0] = values[0] * factor_0  # *0*")


def test_link_scanning_budget_leaves_later_brackets_as_text():
    # Each unclosed "[" is scanned to the end of its window, so the budget runs out early.
    source = "[" * (LINK_SCAN_BUDGET // 200) + " [real](https://example.com)"
    parsed = render(source)
    assert "a" not in parsed.tags()
    assert parsed.text.endswith("[real](https://example.com)")


def test_reference_definitions_do_not_leak_into_the_next_answer():
    assert link(render("[x][ref]\n\n[ref]: https://example.com")).attrs["href"]
    assert render("[x][ref]").text == "[x][ref]"


def test_rendering_from_many_threads_matches_rendering_alone():
    sources = [f"# Title {n}\n\n[ref {n}][r]\n\n[r]: https://example.com/{n}" for n in range(40)]
    alone = [render_markdown(source) for source in sources]
    with ThreadPoolExecutor(max_workers=8) as pool:
        together = list(pool.map(render_markdown, sources * 5))
    assert together == alone * 5


# --- plain excerpts -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "excerpt"),
    [
        ("Short answer.", "Short answer."),
        ("", ""),
        ("# Hello **world**\n\nI made _three_ pages.", "Hello world I made three pages."),
        ("- one\n- two\n1. three\n> quoted", "one two three quoted"),
        ("See [the docs](https://x.example) and ![logo](logo.png).", "See the docs and logo."),
        ("```html\n<h1>Hi</h1>\n```\nDone", "<h1>Hi</h1> Done"),
        ("Keep snake_case_names and `code`", "Keep snake_case_names and code"),
        ("| a | b |\n|---|---|\n| 1 | 2 |", "a b 1 2"),
        ("line\n\n\n   spaced\t\tout\x00", "line spaced out"),
        ("~~old~~ new\n\n---\n\nafter", "old new after"),
    ],
)
def test_plain_excerpt_removes_markdown_and_collapses_whitespace(source, excerpt):
    assert plain_excerpt(source) == excerpt


def test_plain_excerpt_cuts_at_a_word_boundary():
    source = "Built the landing page with a hero, three feature cards, and a contact form today."
    excerpt = plain_excerpt(source, limit=40)
    assert excerpt == "Built the landing page with a hero…"
    assert len(excerpt) <= 40


def test_plain_excerpt_cuts_one_long_word_hard():
    assert plain_excerpt("x" * 100, limit=10) == "x" * 9 + "…"


def test_plain_excerpt_is_one_line_for_huge_input():
    excerpt = plain_excerpt("word\n" * 100_000)
    assert "\n" not in excerpt
    assert len(excerpt) <= 80
    assert excerpt.endswith("word…")


def test_dense_inline_markup_in_one_paragraph_is_plain_text():
    parsed = render("*a" * 20_000)
    assert parsed.tags() == ["p"]
    assert parsed.text.startswith("*a*a*a")
