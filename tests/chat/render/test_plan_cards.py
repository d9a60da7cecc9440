"""A plan turn's answer as the chat draws it: live and from what is
stored, the finished answer of a plan turn is a plan card whose button sends
"Build this plan:" and the plan; any other answer is drawn as an answer."""

from __future__ import annotations

import html
import re

import pytest

from chat.agent.events import ContentText, Done, TurnStarted
from chat.live.frames import Frame, parse_frame
from chat.records.turn import TurnStatus
from chat.records.user_message import UserRecord
from chat.render.fragments import TurnDrawing
from chat.render.transcript import Block

PLAN = '1. Create `a "b".html`.\n2. Link it.'
BUTTON = re.compile(r'class="plan-build"><input type="hidden" name="message" value="([^"]*)"')


def drawn(*, plan: bool, status: TurnStatus) -> str:
    drawing = TurnDrawing(TurnStarted(1, 7, "m", "Add a page", plan=plan))
    html_ = drawing.start() + drawing.show(ContentText(PLAN))
    return html_ + drawing.show(Done("stop", status, 1, 8))


def test_a_finished_plan_is_drawn_as_a_plan_with_its_build_button() -> None:
    page = drawn(plan=True, status="completed")

    assert '<section class="plan-card" id="t7-b1"' in page
    assert [html.unescape(value) for value in BUTTON.findall(page)] == [f"Build this plan:\n{PLAN}"]


@pytest.mark.parametrize("status", ["stopped", "failed", "interrupted"])
def test_a_plan_turn_that_did_not_finish_has_no_build_button(status: TurnStatus) -> None:
    page = drawn(plan=True, status=status)

    assert "Plan only" in page
    assert "plan-build" not in page


def test_the_build_message_carries_the_plan_without_a_next_line_left_on_it() -> None:
    # A plan stored with its follow-ups still on it (the loop takes a closing
    # "Next:" line off, but not every plan was stored by this loop).
    block = Block("t7-b1", "answer", text=f"{PLAN}\n\nNext: Build it | Add a map", plan=True)

    assert block.build_message == f"Build this plan:\n{PLAN}"


def test_the_turn_that_builds_a_plan_says_so_with_the_plan_folded_under_it() -> None:
    drawing = TurnDrawing(TurnStarted(1, 8, "m", f"Build this plan:\n{PLAN}"))
    page = drawing.start()

    bubble = re.search(r'<div class="bubble user">(.*?)</div>\s*<div class="steps"', page, re.S)
    assert bubble is not None
    shown = bubble.group(1)
    assert '<div class="bubble-text">Build this plan</div>' in shown
    assert '<summary class="small">The plan it follows</summary>' in shown
    assert '<li>Create <code>a "b".html</code>.</li>' in shown, "as Markdown, not backticks"
    assert "`" not in shown
    ordinary = TurnDrawing(TurnStarted(1, 9, "m", "Build this page:\n`a`")).start()
    assert "bubble-carried" not in ordinary


def test_an_ordinary_answer_is_no_plan() -> None:
    page = drawn(plan=False, status="completed")

    assert "plan-card" not in page
    assert "Plan only" not in page


@pytest.mark.parametrize(
    ("sent", "plan"),
    [(', "plan": true', True), (', "plan": "on"', True), (', "plan": false', False), ("", False)],
)
def test_the_plan_flag_as_a_script_or_the_composers_switch_sends_it(sent: str, plan: bool) -> None:
    assert parse_frame(f'{{"message": "hi"{sent}}}') == Frame("message", "hi", plan=plan)


def test_a_stored_message_says_whether_it_asked_for_a_plan() -> None:
    assert UserRecord.from_stored(UserRecord("m", plan=True).to_stored()).plan
    assert UserRecord("m").to_stored() == {"model": "m"}, "records stored before read the same"
    assert not UserRecord.from_stored({"model": "m", "plan": "yes"}).plan
