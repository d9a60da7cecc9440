"""Visual edits: the element the person picked found in the source by parsing,
and changed by the smallest edit, every other line byte for byte as it was."""

from __future__ import annotations

import difflib

import pytest

from projects.files import style_rules
from projects.files.elements import Document, Element, document_problem, document_read
from projects.files.inline_markup import inner_replace
from projects.files.visual import (
    Picked,
    VisualRefused,
    attribute_add_flag,
    attribute_set,
    class_add,
    element_delete,
    element_find,
    element_move,
    text_replace,
)

PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Bakery</title>
  <link rel="stylesheet" href="style.css">
</head>
<body>
  <h1 class="title">Fresh &amp; <b>warm</b> bread</h1>
  <ul id="menu">
    <li>Rye</li>
    <li>Spelt</li>
    <li>Sourdough</li>
  </ul>
  <p>Find us <a href='/map.html' class=link>on the map</a>.</p>
  <img src="bread.jpg" alt="A loaf">
  <ol><li>One<li>Two</ol>
</body>
</html>
"""


def _at(path: tuple[int, ...], text: str = PAGE) -> tuple[Document, Element]:
    document = document_read(text)
    element = document.at(list(path))
    assert element is not None
    return document, element


def _changed_lines(old: str, new: str) -> list[str]:
    """The lines that differ, as a diff lists them (- old, + new)."""
    return [
        line
        for line in difflib.ndiff(old.splitlines(keepends=True), new.splitlines(keepends=True))
        if line[:1] in "+-"
    ]


def test_the_tree_matches_the_browsers_paths_from_html() -> None:
    document = document_read(PAGE)
    assert [child.name for child in document.root.children] == ["head", "body"]
    assert [child.name for child in document.root.children[1].children] == [
        "h1",
        "ul",
        "p",
        "img",
        "ol",
    ]
    item = document.at([1, 1, 2])
    assert item is not None
    assert PAGE[item.start : item.end] == "<li>Sourdough</li>"


def test_text_edit_changes_only_the_words_that_changed() -> None:
    document, h1 = _at((1, 0))
    new = text_replace(
        document,
        h1,
        before=["Fresh & ", "warm", " bread"],
        after=["Fresh & ", "warm", " loaves <3"],
    )
    assert isinstance(new, str)
    assert _changed_lines(PAGE, new) == [
        '-   <h1 class="title">Fresh &amp; <b>warm</b> bread</h1>\n',
        '+   <h1 class="title">Fresh &amp; <b>warm</b> loaves &lt;3</h1>\n',
    ]


def test_text_edit_keeps_bold_and_refuses_a_changed_structure() -> None:
    document, h1 = _at((1, 0))
    refused = text_replace(
        document, h1, before=["Fresh & ", "warm", " bread"], after=["Fresh bread"]
    )
    assert isinstance(refused, VisualRefused)
    assert "bold, italic and links" in refused.message


def test_text_written_by_a_script_is_refused() -> None:
    document, h1 = _at((1, 0))
    refused = text_replace(document, h1, before=["Hello from JS"], after=["Hi"])
    assert isinstance(refused, VisualRefused)
    assert "script" in refused.message


def test_a_script_made_element_is_refused_in_words() -> None:
    document = document_read(PAGE)
    beyond = element_find(document, Picked((1, 9), "div", "Made by a script"))
    assert isinstance(beyond, VisualRefused)
    assert "a script made it" in beyond.message
    other = element_find(document, Picked((1, 0), "h1", "Breaking news"))
    assert isinstance(other, VisualRefused)
    assert "script" in other.message
    found = element_find(document, Picked((1, 0), "h1", "Fresh & warm bread"))
    assert isinstance(found, Element)
    assert found.name == "h1"


def test_link_address_in_single_quotes_and_unquoted() -> None:
    document, link = _at((1, 2, 0))
    new = attribute_set(document, link, "href", "/shop.html#hours")
    assert isinstance(new, str)
    assert _changed_lines(PAGE, new) == [
        "-   <p>Find us <a href='/map.html' class=link>on the map</a>.</p>\n",
        "+   <p>Find us <a href='/shop.html#hours' class=link>on the map</a>.</p>\n",
    ]
    document, link = _at((1, 2, 0))
    added = attribute_set(document, link, "title", 'Say "hi"')
    assert isinstance(added, str)
    assert 'class=link title="Say &quot;hi&quot;">' in added


def test_alt_and_src_of_an_image() -> None:
    document, image = _at((1, 3))
    new = attribute_set(document, image, "alt", "A rye loaf & butter")
    assert isinstance(new, str)
    assert _changed_lines(PAGE, new) == [
        '-   <img src="bread.jpg" alt="A loaf">\n',
        '+   <img src="bread.jpg" alt="A rye loaf &amp; butter">\n',
    ]


def test_hide_writes_the_hidden_attribute() -> None:
    document, item = _at((1, 1, 1))
    new = attribute_add_flag(document, item, "hidden")
    assert isinstance(new, str)
    assert _changed_lines(PAGE, new) == ["-     <li>Spelt</li>\n", "+     <li hidden>Spelt</li>\n"]


def test_delete_takes_the_elements_own_line() -> None:
    document, item = _at((1, 1, 1))
    new = element_delete(document, item)
    assert isinstance(new, str)
    assert _changed_lines(PAGE, new) == ["-     <li>Spelt</li>\n"]


def test_move_swaps_lines_and_stops_at_the_ends() -> None:
    document, item = _at((1, 1, 1))
    up = element_move(document, item, up=True)
    assert isinstance(up, str)
    assert up.splitlines()[10:12] == ["    <li>Spelt</li>", "    <li>Rye</li>"]
    assert sorted(PAGE.splitlines()) == sorted(up.splitlines())
    document, first = _at((1, 1, 0))
    refused = element_move(document, first, up=True)
    assert isinstance(refused, VisualRefused)
    assert "already the first" in refused.message


def test_an_element_without_its_end_tag_is_not_moved_or_deleted() -> None:
    document, item = _at((1, 4, 0))
    refused = element_delete(document, item)
    assert isinstance(refused, VisualRefused)
    assert "ends" in refused.message


def test_a_class_is_added_to_the_attribute_as_written() -> None:
    document, h1 = _at((1, 0))
    new = class_add(document, h1, "h1-fresh-warm")
    assert isinstance(new, str)
    assert '<h1 class="title h1-fresh-warm">' in new
    assert len(_changed_lines(PAGE, new)) == 2


CSS = """/* Bakery */
:root { --brand: #b45309; }
body {
  color: #1f2937;
  background: #fffbeb;
}

.title {
  color: #b45309;
  font-size: 2rem
}

.one { margin: 0 }
.empty {}
"""


def test_a_declaration_is_changed_in_place() -> None:
    new = style_rules.declaration_set(CSS, selector=".title", prop="color", value="#7c2d12")
    assert new is not None
    assert _changed_lines(CSS, new) == ["-   color: #b45309;\n", "+   color: #7c2d12;\n"]


def test_a_declaration_is_added_with_the_rules_indentation() -> None:
    new = style_rules.declaration_set(CSS, selector=".title", prop="text-align", value="center")
    assert new is not None
    assert _changed_lines(CSS, new) == [
        "-   font-size: 2rem\n",
        "+   font-size: 2rem;\n",
        "+   text-align: center;\n",
    ]
    one = style_rules.declaration_set(CSS, selector=".one", prop="padding", value="1rem")
    assert one is not None
    assert ".one { margin: 0; padding: 1rem; }" in one
    empty = style_rules.declaration_set(CSS, selector=".empty", prop="color", value="red")
    assert empty is not None
    assert ".empty { color: red; }" in empty
    assert style_rules.declaration_set(CSS, selector=".none", prop="color", value="red") is None


def test_a_new_rule_goes_at_the_end() -> None:
    new = style_rules.rule_add(CSS, selector=".h1-fresh", prop="color", value="#fff")
    assert new == CSS + "\n.h1-fresh {\n  color: #fff;\n}\n"


def test_values_that_could_break_out_of_the_declaration_are_refused() -> None:
    assert style_rules.value_problem("color", "red; } body { display: none") is not None
    assert style_rules.value_problem("color", "red /* x") is not None
    assert style_rules.value_problem("position", "fixed") is not None
    assert style_rules.value_problem("color", "rgb(1 2 3 / 50%)") is None


def test_site_colours_most_used_first() -> None:
    assert style_rules.site_colours([CSS])[:3] == ["#b45309", "#1f2937", "#fffbeb"]


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_other_line_breaks_keep_their_offsets(newline: str) -> None:
    text = PAGE.replace("\n", newline)
    document, image = _at((1, 3), text)
    new = attribute_set(document, image, "alt", "Bread")
    assert isinstance(new, str)
    assert new == text.replace('alt="A loaf"', 'alt="Bread"')


def test_formatting_changed_in_place_is_written_from_inline_markup_only() -> None:
    document, h1 = _at((1, 0))
    # The bold word deleted: the content written anew, only what differs.
    new = inner_replace(document, h1, "Fresh &amp;  bread")
    assert isinstance(new, str)
    assert _changed_lines(PAGE, new) == [
        '-   <h1 class="title">Fresh &amp; <b>warm</b> bread</h1>\n',
        '+   <h1 class="title">Fresh &amp;  bread</h1>\n',
    ]
    # Ctrl+B on a word: a new <b> is what the person's keys make.
    bolder = inner_replace(document, h1, "<b>Fresh</b> &amp; <b>warm</b> bread")
    assert isinstance(bolder, str)
    assert "<b>Fresh</b> &amp; <b>warm</b> bread</h1>" in bolder


@pytest.mark.parametrize(
    "markup",
    [
        'Fresh <span style="color:red">warm</span> bread',
        "Fresh <div>warm</div> bread",
        "Fresh <script>alert(1)</script> bread",
        'Fresh <a href="https://elsewhere.example">warm</a> bread',
        'Fresh <b onclick="x()">warm</b> bread',
    ],
)
def test_markup_the_content_did_not_have_is_refused(markup: str) -> None:
    document, h1 = _at((1, 0))
    refused = inner_replace(document, h1, markup)
    assert isinstance(refused, VisualRefused)
    assert "formatting" in refused.message


def test_pages_html5lib_would_read_for_too_long_are_not_read() -> None:
    deep = "<!doctype html><body>" + "<div>" * 300 + "x" + "</div>" * 300
    assert document_problem(deep) == "its elements nest more than 256 deep"
    many = "<!doctype html><body><a " + "<a " * 5000 + ">"
    assert document_problem(many) is not None
    # Many paragraphs and list items (closed by the next of their kind) are not deep.
    assert document_problem(PAGE + "<ul>" + "<li>x" * 2000 + "</ul>" + "<p>y" * 2000) is None
