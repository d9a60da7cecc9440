"""A compaction summary only ever holds its own conversation's turns, and
reaches no other conversation or person: what the summary request carries,
where the stored summary is read, which tabs hear of it, and who may ask for
one. Through the socket, the views and the fake OpenRouter."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.test import Client

from chat import services
from chat.asks import SUMMARY_TASK
from chat.models import Compaction, Conversation
from fakes.openrouter import FakeOpenRouter
from fakes.script import Reply, ToolCallScript, text
from projects.models import Project
from tests.chat.live.tabs import events_until, opened, send

pytestmark = pytest.mark.django_db(transaction=True)

SUMMARY = "The site: a bakery. Done: a blue header and a menu."


async def signed_in(user: User) -> Client:
    client = Client()
    await sync_to_async(client.force_login)(user)
    return client


async def conversation(project: Project) -> Conversation:
    return await sync_to_async(services.conversation_create)(project=project)


async def turn(project: Project, user: User, talk: Conversation, message: str) -> int:
    """One turn of `talk`, through its tab; the turn's id."""
    async with opened(project, user, query=f"conversation={talk.pk}") as tab:
        await send(tab, message=message)
        events = await events_until(tab, "done")
    started: int = events[0]["message_id"]
    return started


def summary_requests(fake: FakeOpenRouter) -> list[str]:
    """What each summary request asked to summarise."""
    return [
        str(request.json["messages"][1]["content"])
        for request in fake.requests
        if str(request.json["messages"][0]["content"]).startswith(SUMMARY_TASK)
    ]


async def test_a_summary_holds_only_its_own_conversations_turns_and_reaches_no_other(
    scripted: FakeOpenRouter, starter_project: Project, user: User
) -> None:
    project = starter_project
    mine, other = await conversation(project), await conversation(project)
    about = {"path": "/about.html", "content": "<h1>Bluefin about</h1>\n"}
    scripted.script(
        text("Anchovy: the header is blue."),
        Reply(tool_calls=[ToolCallScript("create_file", about)]),
        text("Bluefin: an about page."),
        text("Anchovy: a menu."),
        text("Anchovy: a footer."),
    )
    await turn(project, user, mine, "Anchovy one: make the header blue")
    # Another conversation of the same project: a turn, undone from its history.
    undone = await turn(project, user, other, "Bluefin secret: add an about page")
    ada = await signed_in(user)
    undo = await sync_to_async(ada.post)(f"/projects/{project.pk}/turns/{undone}/undo/")
    assert undo.status_code == 200
    await turn(project, user, mine, "Anchovy two: add a menu")
    await turn(project, user, mine, "Anchovy three: add a footer")
    scripted.script(text(SUMMARY))

    async with (
        opened(project, user, query=f"conversation={mine.pk}") as here,
        opened(project, user, query=f"conversation={other.pk}") as there,
    ):
        compacted = await sync_to_async(ada.post)(
            f"/projects/{project.pk}/compact/", {"conversation": str(mine.pk)}
        )
        assert compacted.status_code == 200
        heard = json.loads(await here.receive_from(timeout=10))
        assert heard == {"type": "compacted", "conversation": mine.pk}
        assert await there.receive_nothing(timeout=0.5)

    (asked,) = summary_requests(scripted)
    assert "Anchovy one" in asked
    assert "Anchovy two" in asked
    assert "Bluefin" not in asked  # neither its turn nor the undo of it
    stored = await sync_to_async(
        lambda: list(Compaction.objects.values_list("conversation_id", "summary"))
    )()
    assert stored == [(mine.pk, SUMMARY)]

    # The other conversation's next turn reads nothing of it.
    scripted.script(text("Bluefin: a contact page."))
    await turn(project, user, other, "Bluefin again: add a contact page")
    sent = json.dumps(scripted.requests[-1].json["messages"])
    assert SUMMARY not in sent
    assert "Anchovy" not in sent
    export = await sync_to_async(ada.get)(
        f"/projects/{project.pk}/conversations/{other.pk}/export.md"
    )
    assert SUMMARY not in export.content.decode()


async def test_no_one_else_can_compact_or_read_a_persons_conversation(
    scripted: FakeOpenRouter, starter_project: Project, user: User, other_user: User
) -> None:
    project = starter_project
    mine = await conversation(project)
    scripted.script(text("A blue header."), text("A menu."))
    await turn(project, user, mine, "Anchovy one: make the header blue")
    await turn(project, user, mine, "Anchovy two: add a menu")
    theirs = await sync_to_async(Project.objects.create)(owner=other_user, name="Mallory's")
    mallory = await signed_in(other_user)
    asked = len(scripted.requests)

    for where in (project.pk, theirs.pk):  # the person's project, or one's own
        refused = await sync_to_async(mallory.post)(
            f"/projects/{where}/compact/", {"conversation": str(mine.pk)}
        )
        assert refused.status_code == 404
        export = await sync_to_async(mallory.get)(
            f"/projects/{where}/conversations/{mine.pk}/export.md"
        )
        assert export.status_code == 404
    assert len(scripted.requests) == asked  # no summary was asked for
    assert not await sync_to_async(Compaction.objects.exists)()
