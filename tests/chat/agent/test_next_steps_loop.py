"""The follow-ups a final answer ends with, through the real loop and the fake
OpenRouter: asked for in the system prompt, taken off the stored answer, kept on
the turn's record and on its `done`; the offline demo makes its own."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from chat.agent.events import ContentText
from chat.models import Message
from chat.records.reply import stored_turn
from demo.transport import DEMO_MODEL, demo_client
from fakes.openrouter import FakeOpenRouter
from fakes.script import text
from projects.models import Project
from tests.chat.agent.conftest import Clients
from tests.chat.agent.turns import done, turn_events

pytestmark = pytest.mark.django_db(transaction=True)

ANSWER = "I built the page for Crumb."
NEXT = "Next: Add a contact form | Make the header dark green | Add an about page"
SUGGESTIONS = ("Add a contact form", "Make the header dark green", "Add an about page")


@sync_to_async
def closing(message_id: int | None) -> Message:
    assert message_id is not None
    return Message.objects.get(pk=message_id)


async def test_the_next_line_is_asked_for_stripped_from_the_answer_and_kept_on_the_turn(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(text(f"{ANSWER}\n\n{NEXT}"))
    events = await turn_events(llm_client(), project, "A page for my bakery called Crumb")

    system = fake_openrouter.requests[-1].json["messages"][0]["content"]
    assert "Next: Add a contact form | " in system, "the model is told how to end its answer"
    # The line streamed live as the model wrote it; the turn's `done` carries it as chips.
    assert NEXT in "".join(e.text for e in events if isinstance(e, ContentText))
    finished = done(events)
    assert finished.suggestions == SUGGESTIONS
    message = await closing(finished.message_id)
    assert message.content == ANSWER
    record = stored_turn(message.metadata)
    assert record is not None
    assert record.suggestions == SUGGESTIONS


async def test_an_answer_without_the_line_is_stored_whole_with_no_suggestions(
    project: Project, fake_openrouter: FakeOpenRouter, llm_client: Clients
) -> None:
    fake_openrouter.script(text(ANSWER))
    finished = done(await turn_events(llm_client(), project, "Hello"))
    assert finished.suggestions == ()
    assert (await closing(finished.message_id)).content == ANSWER


async def test_the_demo_suggests_requests_it_can_do(starter_project: Project) -> None:
    client = demo_client()
    try:
        events = await turn_events(
            client, starter_project, "Build a site for a bakery called Crumb", model=DEMO_MODEL
        )
    finally:
        await client.aclose()
    finished = done(events)
    # Not "Add an about page": the bakery has an about section (demo.suggestions).
    assert finished.suggestions == (
        "Add a testimonials section",
        "Make the header navy",
        "Add a blog page",
    )
    message = await closing(finished.message_id)
    assert "Next:" not in message.content
    assert message.content.startswith("Done: the site is built.")
