"""What the preview may attach to a message (issue 17): problems and picked
elements, checked and cut as they arrive on the socket, read by the model as
context after the person's words, shown as chips, stored with the message."""

from __future__ import annotations

import json

import pytest

from chat.agent.attachments import (
    MAX_PROBLEMS,
    AttachmentError,
    PickedElement,
    Problem,
    attachments_from,
    for_model,
    label,
)
from chat.live.frames import Frame, FrameError, parse_frame
from chat.render.transcript import chip_labels

ERROR = {
    "type": "problem",
    "kind": "error",
    "message": "Uncaught ReferenceError: go is not defined",
    "file": "/app.js",
    "line": 2,
    "column": 1,
    "page": "/index.html",
}
ELEMENT = {
    "type": "element",
    "selector": "#title",
    "tag": "h1",
    "page": "/index.html",
    "html": '<h1 id="title">Hello</h1>',
}


def test_a_frame_carries_its_attachments_as_a_form_field_or_a_list() -> None:
    as_field = parse_frame(
        json.dumps({"message": "fix it", "attachments": json.dumps([ERROR, ELEMENT])})
    )
    as_list = parse_frame(json.dumps({"message": "fix it", "attachments": [ERROR, ELEMENT]}))
    assert isinstance(as_field, Frame)
    assert as_field == as_list
    problem, element = as_field.attachments
    assert isinstance(problem, Problem)
    assert (problem.file, problem.line, problem.column) == ("/app.js", 2, 1)
    assert isinstance(element, PickedElement)
    assert element.selector == "#title"
    empty = parse_frame(json.dumps({"message": "hi", "attachments": ""}))
    assert isinstance(empty, Frame)
    assert empty.attachments == ()


@pytest.mark.parametrize(
    ("attachments", "why"),
    [
        ("{not json", "Attachments must be a list."),
        ({"type": "problem"}, "Attachments must be a list."),
        ([{"type": "virus"}], "Unknown attachment"),
        ([{**ERROR, "kind": "format-disk"}], "A problem needs a known kind and a message."),
        ([{**ELEMENT, "selector": ""}], "An element needs a selector and a tag."),
        ([ERROR] * (MAX_PROBLEMS + 1), "at most 10 problems and 5 elements"),
        (["text"], "Each attachment must be an object."),
    ],
)
def test_anything_else_refuses_the_frame_with_a_reason(attachments: object, why: str) -> None:
    frame = parse_frame(json.dumps({"message": "fix it", "attachments": attachments}))
    assert isinstance(frame, FrameError)
    assert why in frame.message


def test_fields_are_cut_and_cleaned_whatever_the_page_sent() -> None:
    hostile = {
        **ERROR,
        "message": "x" * 10_000 + "\x00\x1b[31m",
        "line": -5,
        "column": "7",
        "stack": "s" * 10_000,
        "extra": "ignored",
    }
    (problem,) = attachments_from([hostile])  # type: ignore[misc]
    assert isinstance(problem, Problem)
    assert len(problem.message) == 500
    assert "\x00" not in problem.message
    assert (problem.line, problem.column) == (0, 0)
    assert len(problem.stack) == 1500


def test_the_model_reads_the_context_after_the_words_and_the_person_sees_chips() -> None:
    found = attachments_from([ERROR, ELEMENT])
    assert not isinstance(found, AttachmentError)
    text = for_model("Fix it", found)
    assert text.startswith("Fix it\n\nContext from the live preview (reported by the page")
    assert "- Error at /app.js:2:1: Uncaught ReferenceError: go is not defined" in text
    assert "- The person pointed at the element `#title` (<h1>) on /index.html" in text
    assert for_model("Just words", ()) == "Just words"
    assert [label(item) for item in found] == ["Error in app.js:2", "#title in index.html"]
    assert chip_labels([ERROR, {"type": "bogus"}]) == [], "stored JSON is checked again"
    assert chip_labels(None) == []
