"""Text that can always be stored, sent and shown."""

from __future__ import annotations

from common.text import clean_text, plain_excerpt, storable, storable_cookies, well_formed


def test_surrogate_halves_split_by_the_wire_are_joined_again() -> None:
    assert well_formed("\ud83d" + "\ude00") == "😀"


def test_a_lone_surrogate_half_becomes_the_replacement_character() -> None:
    assert well_formed("a\ud800b") == "a\ufffdb"
    assert well_formed("plain é") == "plain é"


def test_nul_and_lone_surrogates_are_not_storable() -> None:
    assert storable("héllo, 😀\t\n")
    assert not storable("a\x00b")
    assert not storable("a\udc00")


def test_cookies_a_database_could_not_store_are_left_out() -> None:
    cookies = {"sessionid": "abc", "bad": "\x00x", "\x00": "v"}
    assert storable_cookies(cookies) == {"sessionid": "abc"}


def test_clean_text_has_unix_lines_and_no_controls_but_tab_and_newline() -> None:
    assert clean_text("a\r\nb\rc\x00\x02\x03d\te\x7f\n") == "a\nb\ncd\te\n"
    assert clean_text("x\ud800") == "x\ufffd"


def test_an_excerpt_is_one_line_without_markdown() -> None:
    text = (
        "# Title\n\n**Bold** and _it_ [a link](http://x) ![pic](p.png)\n\n- one\n- two\n\n"
        "```py\ncode\n```\n---\n| a | b |\n|---|---|"
    )
    assert plain_excerpt(text) == "Title Bold and it a link pic one two code a b"


def test_a_long_excerpt_is_cut_at_a_word() -> None:
    excerpt = plain_excerpt("word " * 100, 20)
    assert excerpt == "word word word…"
    assert len(excerpt) <= 20


def test_one_long_word_is_cut_inside_it() -> None:
    assert plain_excerpt("x" * 100, 20) == "x" * 19 + "…"
    assert plain_excerpt("short", 20) == "short"
