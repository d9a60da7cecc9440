"""The SSE decoder of DESIGN §4: bytes in, the data of each event out, whatever
the network does to the line boundaries."""

from __future__ import annotations

import pytest

from chat.llm.sse import SSEDecoder


def decode(*pieces: bytes) -> list[bytes]:
    """Every event's data from `pieces` fed one after the other, then closed."""
    decoder = SSEDecoder()
    events: list[bytes] = []
    for piece in pieces:
        events.extend(decoder.feed(piece))
    events.extend(decoder.close())
    return events


def split_at_every_byte(stream: bytes) -> list[tuple[bytes, bytes]]:
    return [(stream[:split], stream[split:]) for split in range(len(stream) + 1)]


OPENROUTER_STREAM = (
    b": OPENROUTER PROCESSING\n\n"
    b'data: {"id":"gen-1","choices":[{"delta":{"content":"Hi"}}]}\n\n'
    b": OPENROUTER PROCESSING\n\n"
    b'data: {"id":"gen-1","choices":[{"delta":{"content":" there"}}]}\n\n'
    b"data: [DONE]\n\n"
)
OPENROUTER_EVENTS = [
    b'{"id":"gen-1","choices":[{"delta":{"content":"Hi"}}]}',
    b'{"id":"gen-1","choices":[{"delta":{"content":" there"}}]}',
    b"[DONE]",
]


@pytest.mark.parametrize("ending", [b"\n", b"\r\n"], ids=["LF", "CRLF"])
def test_events_are_decoded_with_lf_and_crlf_line_endings(ending: bytes) -> None:
    stream = OPENROUTER_STREAM.replace(b"\n", ending)

    assert decode(stream) == OPENROUTER_EVENTS


def test_events_complete_only_at_the_blank_line() -> None:
    decoder = SSEDecoder()

    assert decoder.feed(b"data: one\n") == []
    assert decoder.feed(b"data: two\n") == []
    assert decoder.feed(b"\n") == [b"one\ntwo"]
    assert decoder.feed(b"data: three\n\n") == [b"three"]


def test_one_feed_may_complete_several_events() -> None:
    decoder = SSEDecoder()

    assert decoder.feed(b"data: a\n\ndata: b\n\ndata: c") == [b"a", b"b"]
    assert decoder.close() == [b"c"]


@pytest.mark.parametrize("ending", [b"\n", b"\r\n"], ids=["LF", "CRLF"])
def test_a_stream_split_in_two_at_every_byte_gives_the_same_events(ending: bytes) -> None:
    stream = OPENROUTER_STREAM.replace(b"\n", ending)

    for head, tail in split_at_every_byte(stream):
        assert decode(head, tail) == OPENROUTER_EVENTS, f"split after {len(head)} bytes"


def test_a_multibyte_character_split_across_feeds_is_kept_whole() -> None:
    text = "Grüße, 世界 🌍"
    stream = f"data: {text}\n\n".encode()

    for head, tail in split_at_every_byte(stream):
        [data] = decode(head, tail)
        assert data.decode() == text, f"split after {len(head)} bytes"


def test_a_stream_fed_one_byte_at_a_time_gives_the_same_events() -> None:
    stream = OPENROUTER_STREAM.replace(b"\n", b"\r\n")

    assert decode(*(stream[i : i + 1] for i in range(len(stream)))) == OPENROUTER_EVENTS


def test_a_very_long_line_fed_in_one_byte_pieces_arrives_whole() -> None:
    payload = b'{"content":"' + b"x" * 200_000 + b'"}'
    stream = b"data: " + payload + b"\r\n\r\n"
    decoder = SSEDecoder()
    events: list[bytes] = []

    for i in range(len(stream)):
        events.extend(decoder.feed(stream[i : i + 1]))

    assert events == [payload]
    assert decoder.close() == []


@pytest.mark.parametrize(
    "comment",
    [b": OPENROUTER PROCESSING", b":", b":keep-alive", b": data: not this"],
)
def test_comment_lines_are_ignored(comment: bytes) -> None:
    assert decode(comment + b"\n\n" + b"data: real\n\n") == [b"real"]


def test_a_comment_inside_an_event_does_not_end_or_change_it() -> None:
    assert decode(b"data: a\n: OPENROUTER PROCESSING\ndata: b\n\n") == [b"a\nb"]


@pytest.mark.parametrize(
    ("line", "data"),
    [
        (b"data: hello", b"hello"),
        (b"data:hello", b"hello"),
        (b"data:  two spaces", b" two spaces"),
        (b"data: ", b""),
        (b"data: trailing space ", b"trailing space "),
    ],
)
def test_one_space_after_data_colon_is_optional_and_removed(line: bytes, data: bytes) -> None:
    assert decode(line + b"\n\n") == [data]


def test_multi_line_data_is_joined_with_newlines() -> None:
    stream = b'data: {"a":\ndata: 1,\ndata:"b": 2}\n\n'

    assert decode(stream) == [b'{"a":\n1,\n"b": 2}']


def test_multi_line_data_with_crlf_has_no_carriage_returns() -> None:
    assert decode(b"data: one\r\ndata: two\r\n\r\n") == [b"one\ntwo"]


def test_close_flushes_an_unterminated_last_line() -> None:
    decoder = SSEDecoder()

    assert decoder.feed(b'data: {"last": true}') == []
    assert decoder.close() == [b'{"last": true}']


def test_close_flushes_an_event_without_its_blank_line() -> None:
    decoder = SSEDecoder()

    assert decoder.feed(b"data: first\n\ndata: second\n") == [b"first"]
    assert decoder.close() == [b"second"]


def test_close_flushes_an_unterminated_line_ending_in_a_carriage_return() -> None:
    decoder = SSEDecoder()
    decoder.feed(b"data: end\r")

    assert decoder.close() == [b"end"]


def test_close_after_complete_events_yields_nothing_more() -> None:
    decoder = SSEDecoder()

    assert decoder.feed(b"data: a\n\n") == [b"a"]
    assert decoder.close() == []


def test_a_stream_of_only_comments_and_blank_lines_yields_no_events() -> None:
    assert decode(b": OPENROUTER PROCESSING\n\n\n\r\n: OPENROUTER PROCESSING\n") == []


def test_empty_feeds_change_nothing() -> None:
    assert decode(b"", b"data: a", b"", b"\n", b"", b"\n", b"") == [b"a"]


def test_done_passes_through_as_data() -> None:
    assert decode(b"data: [DONE]\n\n") == [b"[DONE]"]


@pytest.mark.parametrize(
    "field",
    [b"event: message", b"id: 42", b"retry: 3000", b"unknown: x", b"Data: upper"],
)
def test_fields_other_than_data_are_ignored(field: bytes) -> None:
    assert decode(field + b"\n" + b"data: payload\n\n") == [b"payload"]


def test_an_event_of_only_other_fields_yields_nothing() -> None:
    assert decode(b"event: ping\nid: 7\nretry: 10\n\ndata: next\n\n") == [b"next"]
