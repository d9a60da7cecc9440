"""Search/replace edits (projects.files.editing): exact and unique, tolerant only when one place
matches, errors that say how to recover, sequential and all or nothing."""

from __future__ import annotations

import pytest

from projects.files.editing import Edit, apply_edits
from projects.files.results import ErrorCode, FileError


def edited(content: str, *edits: tuple[str, str]) -> str:
    result = apply_edits(content, [Edit(old, new) for old, new in edits])
    assert isinstance(result, str), result
    return result


def failed(content: str, *edits: tuple[str, str]) -> FileError:
    result = apply_edits(content, [Edit(old, new) for old, new in edits])
    assert isinstance(result, FileError), f"edit unexpectedly gave {result!r}"
    return result


# --- exact, unique matches ---------------------------------------------------


def test_unique_exact_match_is_replaced() -> None:
    assert edited("<h1>Hello</h1>\n", ("Hello", "Goodbye")) == "<h1>Goodbye</h1>\n"


def test_exact_match_keeps_everything_around_it_byte_for_byte() -> None:
    content = "a  \n\tb\r\nc\n\n"
    assert edited(content, ("b", "B")) == "a  \n\tB\r\nc\n\n"


def test_multi_line_exact_match_is_replaced() -> None:
    content = "<ul>\n  <li>one</li>\n  <li>two</li>\n</ul>\n"
    result = edited(content, ("  <li>one</li>\n  <li>two</li>\n", "  <li>1</li>\n"))
    assert result == "<ul>\n  <li>1</li>\n</ul>\n"


def test_replacement_may_be_empty_to_delete_text() -> None:
    assert edited("keep\ndrop me\nkeep\n", ("drop me\n", "")) == "keep\nkeep\n"


def test_match_at_start_and_end_of_file() -> None:
    assert edited("abc", ("a", "X")) == "Xbc"
    assert edited("abc", ("c", "X")) == "abX"
    assert edited("abc", ("abc", "")) == ""


def test_search_text_is_literal_not_a_pattern() -> None:
    content = "price: $5 (approx.)\nprice: 5 approx\n"
    assert edited(content, ("$5 (approx.)", "$6")) == "price: $6\nprice: 5 approx\n"


def test_replacement_text_is_literal_too() -> None:
    assert edited("x = 1\n", ("1", r"\1 $0 \g<0>")) == "x = \\1 $0 \\g<0>\n"


def test_non_ascii_text_is_matched_and_replaced() -> None:
    assert edited("<p>café ☕</p>\n", ("café ☕", "thé 🍵")) == "<p>thé 🍵</p>\n"


# --- refused arguments -------------------------------------------------------


def test_no_edits_is_an_invalid_argument() -> None:
    result = apply_edits("anything", [])
    assert isinstance(result, FileError)
    assert result.code == ErrorCode.INVALID_ARGUMENT


@pytest.mark.parametrize("old", ["", " ", "\n", "  \n\t\r\n"])
def test_empty_or_blank_search_text_is_an_invalid_argument(old: str) -> None:
    error = failed("some text\n \n", (old, "x"))
    assert error.code == ErrorCode.INVALID_ARGUMENT
    assert "search text is empty" in error.message
    assert error.edit_index == 1


def test_identical_search_and_replacement_is_no_change() -> None:
    error = failed("<p>same</p>\n", ("same", "same"))
    assert error.code == ErrorCode.NO_CHANGE
    assert "identical" in error.message


# --- ambiguous matches -------------------------------------------------------


def test_search_text_found_twice_is_ambiguous_with_both_line_numbers() -> None:
    content = "<p>hi</p>\n<div>\n<p>hi</p>\n</div>\n"
    error = failed(content, ("<p>hi</p>", "<p>bye</p>"))
    assert error.code == ErrorCode.AMBIGUOUS_MATCH
    assert error.match_lines == (1, 3)
    assert "2 times" in error.message
    assert "lines 1, 3" in error.message


def test_ambiguous_match_counts_every_occurrence() -> None:
    content = "x\n" * 5
    error = failed(content, ("x", "y"))
    assert error.match_lines == (1, 2, 3, 4, 5)
    assert "5 times" in error.message


def test_ambiguous_match_message_lists_at_most_twenty_lines_but_keeps_all() -> None:
    content = "item\n" * 25
    error = failed(content, ("item", "thing"))
    assert error.match_lines == tuple(range(1, 26))
    assert "25 times" in error.message
    assert "20, …" in error.message
    assert "21" not in error.message


def test_two_occurrences_on_one_line_are_ambiguous() -> None:
    error = failed("a b a\n", ("a", "c"))
    assert error.code == ErrorCode.AMBIGUOUS_MATCH
    assert error.match_lines == (1, 1)


def test_overlapping_occurrences_are_ambiguous() -> None:
    error = failed("aaa\n", ("aa", "b"))
    assert error.code == ErrorCode.AMBIGUOUS_MATCH


def test_ambiguous_match_tells_how_to_recover() -> None:
    error = failed("x\nx\n", ("x", "y"))
    assert "Include more surrounding lines" in error.message


# --- tolerant matches: trailing whitespace and line endings ------------------


def test_trailing_whitespace_in_file_is_tolerated() -> None:
    content = "<div>   \n  <p>text</p>\t\n</div>\n"
    result = edited(content, ("<div>\n  <p>text</p>\n</div>", "<section>\n</section>"))
    assert result == "<section>\n</section>\n"


def test_trailing_whitespace_in_search_text_is_tolerated() -> None:
    content = "a\nb\nc\n"
    assert edited(content, ("b   \nc  ", "B\nC")) == "a\nB\nC\n"


def test_lf_search_text_matches_a_crlf_file() -> None:
    content = "one\r\ntwo\r\nthree\r\n"
    assert edited(content, ("one\ntwo", "1\n2")) == "1\r\n2\r\nthree\r\n"


def test_crlf_file_stays_crlf_when_a_tolerant_edit_adds_lines() -> None:
    content = "a\r\nb\r\nc\r\n"
    result = edited(content, ("a\nb", "A\nB\nB2"))
    assert result == "A\r\nB\r\nB2\r\nc\r\n"
    assert "\n" not in result.replace("\r\n", "")


def test_crlf_file_stays_crlf_when_an_exact_edit_adds_lines() -> None:
    content = "<ul>\r\n  <li>b</li>\r\n</ul>\r\n"
    result = edited(content, ("<li>b</li>", "<li>b</li>\n  <li>c</li>"))
    assert result == "<ul>\r\n  <li>b</li>\r\n  <li>c</li>\r\n</ul>\r\n"


def test_crlf_search_text_matches_an_lf_file() -> None:
    content = "one\ntwo\nthree\n"
    assert edited(content, ("one\r\ntwo\r\n", "1\r\n2\r\n")) == "1\n2\nthree\n"


def test_tolerant_match_of_last_line_without_final_newline() -> None:
    content = "a\nlast  "
    assert edited(content, ("a\nlast\n", "a\nfinal\n")) == "a\nfinal"


def test_tolerant_match_with_empty_replacement_removes_the_lines() -> None:
    content = "keep\ndrop  \nme\t\nkeep\n"
    assert edited(content, ("drop\nme", "")) == "keep\nkeep\n"


def test_tolerant_match_found_twice_is_ambiguous_with_line_numbers() -> None:
    content = "x = 1  \nfoo\nx = 1\t\n"
    error = failed(content, ("x = 1 \n", "x = 2"))
    assert error.code == ErrorCode.AMBIGUOUS_MATCH
    assert error.match_lines == (1, 3)
    assert "ignoring whitespace" in error.message


# --- tolerant matches: indentation --------------------------------------------


def test_wrong_indentation_in_search_is_tolerated_and_file_indentation_reapplied() -> None:
    content = "function f() {\n    if (x) {\n        y();\n    }\n}\n"
    result = edited(content, ("if (x) {\n    y();\n}", "if (x) {\n    z();\n    w();\n}"))
    assert result == "function f() {\n    if (x) {\n        z();\n        w();\n    }\n}\n"


def test_over_indented_search_is_tolerated_and_replacement_dedented() -> None:
    content = "<body>\n  <p>a</p>\n  <p>b</p>\n</body>\n"
    result = edited(content, ("        <p>a</p>\n        <p>b</p>", "        <p>c</p>"))
    assert result == "<body>\n  <p>c</p>\n</body>\n"


def test_reindented_replacement_keeps_its_relative_indentation() -> None:
    content = "    a()\n    b()\n"
    result = edited(content, ("a()\nb()", "if (x) {\n  a()\n}\nb()"))
    assert result == "    if (x) {\n      a()\n    }\n    b()\n"


def test_reindented_replacement_leaves_blank_lines_blank() -> None:
    content = "    a()\n    b()\n"
    assert edited(content, ("a()\nb()", "a()\n\nb()")) == "    a()\n\n    b()\n"


def test_indentation_tolerant_edit_in_crlf_file_stays_crlf() -> None:
    content = "<div>\r\n    <p>x</p>\r\n    <p>w</p>\r\n</div>\r\n"
    result = edited(content, ("<p>x</p>\n<p>w</p>\n", "<p>y</p>\n<p>z</p>\n"))
    assert result == "<div>\r\n    <p>y</p>\r\n    <p>z</p>\r\n</div>\r\n"


def test_space_indented_search_in_tab_indented_file_gets_tabs() -> None:
    content = "\tif (x) {\n\t\ty();\n\t}\n"
    result = edited(
        content, ("    if (x) {\n        y();\n    }", "    if (x) {\n        z();\n    }")
    )
    assert result == "\tif (x) {\n\t\tz();\n\t}\n"


def test_indentation_tolerant_match_found_twice_is_ambiguous() -> None:
    content = "a {\n  color: red;\n}\nb {\n    color: red;\n}\n"
    error = failed(content, ("color: red;\n", "color: blue;"))
    assert error.code == ErrorCode.AMBIGUOUS_MATCH


def test_tolerant_ambiguity_counts_whole_lines_only() -> None:
    content = "    color: red;\n  x  color: red;\n"
    result = edited(content, ("color: red; \n", "color: blue;\n"))
    assert result == "    color: blue;\n  x  color: red;\n"


# --- line breaks other than \n ------------------------------------------------


def test_tolerant_edit_keeps_a_line_separator_inside_a_string_literal() -> None:
    content = "  const a = 1;\n  const s = 'x\u2028y';\n"
    result = edited(
        content, ("const a = 1;\nconst s = 'x\u2028y';", "const a = 2;\nconst s = 'x\u2028y';")
    )
    assert result == "  const a = 2;\n  const s = 'x\u2028y';\n"


def test_tolerant_ambiguity_line_numbers_count_only_newlines() -> None:
    content = '{\n  "a": "x\u2028y",\n  "b": 1 \n  "b": 1  \n}\n'
    error = failed(content, ('"b": 1\n', '"b": 2\n'))
    assert error.match_lines == (3, 4)


def test_exact_ambiguity_line_numbers_count_only_newlines() -> None:
    content = '{\n  "a": "x\u2028y",\n  "b": 1,\n  "b": 1\n}\n'
    error = failed(content, ('"b": 1', '"b": 2'))
    assert error.match_lines == (3, 4)


# --- no match -----------------------------------------------------------------


def test_missing_text_is_no_match_with_the_closest_lines() -> None:
    content = "one\ntwo\nthree\nfour\nfive\n"
    error = failed(content, ("two\nthree\nFOUR", "x"))
    assert error.code == ErrorCode.NO_MATCH
    assert error.closest_match == "two\nthree\nfour\n"
    assert error.closest_match_line == 2
    assert "line 2" in error.message


def test_no_match_suggests_a_similar_single_line() -> None:
    content = "<html>\n<body>\n<h1 class='title'>Welcome</h1>\n</body>\n"
    error = failed(content, ('<h1 class="title">Welcome</h1>', "x"))
    assert error.code == ErrorCode.NO_MATCH
    assert error.closest_match_line == 3
    assert error.closest_match == "<h1 class='title'>Welcome</h1>\n"


def test_no_match_without_anything_similar_says_to_read_again() -> None:
    error = failed("alpha\nbeta\n", ("zzzz qqqq wwww", "x"))
    assert error.code == ErrorCode.NO_MATCH
    assert error.closest_match is None
    assert error.closest_match_line is None
    assert "Read the file again" in error.message


def test_no_match_in_an_empty_file() -> None:
    error = failed("", ("anything", "x"))
    assert error.code == ErrorCode.NO_MATCH
    assert error.closest_match is None


def test_closest_match_of_a_long_search_is_capped_at_thirty_lines() -> None:
    content = "".join(f"line {n}\n" for n in range(1, 60))
    search = "".join(f"line {n}\n" for n in range(1, 50)) + "missing\n"
    error = failed(content, (search, "x"))
    assert error.closest_match_line == 1
    assert error.closest_match is not None
    assert error.closest_match.count("\n") == 30


def test_match_is_case_sensitive() -> None:
    error = failed("<P>Hello</P>\n", ("<p>hello</p>", "x"))
    assert error.code == ErrorCode.NO_MATCH


# --- several edits: sequential, all or nothing --------------------------------


def test_edits_apply_in_order() -> None:
    content = "<h1>A</h1>\n<p>B</p>\n"
    assert edited(content, ("A", "Title"), ("B", "Body")) == "<h1>Title</h1>\n<p>Body</p>\n"


def test_later_edit_sees_the_result_of_an_earlier_one() -> None:
    assert edited("color: red;\n", ("red", "green"), ("green", "blue")) == "color: blue;\n"


def test_later_edit_can_match_text_an_earlier_edit_inserted() -> None:
    content = "<ul>\n</ul>\n"
    result = edited(content, ("<ul>\n", "<ul>\n  <li>new</li>\n"), ("<li>new</li>", "<li>1</li>"))
    assert result == "<ul>\n  <li>1</li>\n</ul>\n"


def test_earlier_edit_can_make_a_later_search_ambiguous() -> None:
    error = failed("a b\n", ("a", "b"), ("b", "c"))
    assert error.code == ErrorCode.AMBIGUOUS_MATCH
    assert error.edit_index == 2


def test_earlier_edit_can_remove_what_a_later_one_searches() -> None:
    error = failed("a b\n", ("a b", "c"), ("a", "d"))
    assert error.code == ErrorCode.NO_MATCH
    assert error.edit_index == 2


@pytest.mark.parametrize(
    ("second", "code"),
    [
        (("missing", "x"), ErrorCode.NO_MATCH),
        (("x", "y"), ErrorCode.AMBIGUOUS_MATCH),
        (("", "y"), ErrorCode.INVALID_ARGUMENT),
        (("one", "one"), ErrorCode.NO_CHANGE),
    ],
)
def test_failure_in_a_later_edit_names_it_and_returns_no_text(
    second: tuple[str, str], code: ErrorCode
) -> None:
    content = "start one\nx\nx\n"
    error = failed(content, ("start", "begin"), second)
    assert error.code == code
    assert error.edit_index == 2
    assert error.message.startswith("Edit 2:")


def test_first_edit_failing_is_edit_one() -> None:
    error = failed("abc\n", ("zzz", "y"), ("abc", "d"))
    assert error.edit_index == 1
    assert error.message.startswith("Edit 1:")


def test_apply_edits_does_not_change_its_inputs() -> None:
    edits = [Edit("a", "b"), Edit("missing", "c")]
    content = "a\n"
    assert isinstance(apply_edits(content, edits), FileError)
    assert content == "a\n"
    assert edits == [Edit("a", "b"), Edit("missing", "c")]
