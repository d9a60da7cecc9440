"""Pictures with a message over the socket: sent to a model that reads
them as image parts, kept with the message and mentioned (not resent) in later
turns; refused before any request for a model that does not read them."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User

from chat.live import turns
from chat.models import ChatImage, Message
from demo.transport import DEMO_MODEL
from fakes.images import png
from fakes.openrouter import FakeOpenRouter
from fakes.script import RecordedRequest, Reply
from projects.models import Project
from tests.chat.live.tabs import events_until, next_event, opened, send

pytestmark = pytest.mark.django_db(transaction=True)


def completions(fake: FakeOpenRouter) -> list[RecordedRequest]:
    return [request for request in fake.requests if request.path.endswith("/chat/completions")]


@sync_to_async
def waiting_picture(user: User, project: Project) -> ChatImage:
    return ChatImage.objects.create(
        user=user,
        project=project,
        name="mockup.png",
        content_type="image/png",
        size=len(png()),
        width=2,
        height=1,
        data=png(),
    )


async def test_a_picture_reaches_a_model_that_reads_it_once(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    picture = await waiting_picture(user, project)
    scripted.script(Reply(content="I see a red strip."), Reply(content="Done."))
    async with opened(project, user) as socket:
        await send(
            socket,
            message="Like this",
            model="google/gemini-2.5-flash",
            images=json.dumps([picture.pk]),
        )
        started = (await events_until(socket, "done"))[0]
        await turns.wait_all()
        await send(socket, message="Now bigger", model="google/gemini-2.5-flash")
        await events_until(socket, "done")
    assert started["images"] == [picture.pk]
    asked = completions(scripted)
    first = asked[0].json["messages"][-1]["content"]
    assert first[0] == {"type": "text", "text": "Like this"}
    assert first[1]["type"] == "image_url"
    assert first[1]["image_url"]["url"].startswith("data:image/png;base64,iVBOR")
    later = json.dumps(asked[1].json["messages"])
    assert "image_url" not in later, "an earlier picture is not sent again"
    assert "[The person attached 1 picture to this message.]" in later
    stored = await sync_to_async(Message.objects.get)(role=Message.Role.USER, content="Like this")
    assert stored.metadata["images"] == [picture.pk]
    await sync_to_async(picture.refresh_from_db)()
    assert picture.message_id == stored.pk


async def test_a_model_that_does_not_read_pictures_is_refused_before_any_request(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    picture = await waiting_picture(user, project)
    async with opened(project, user) as socket:
        await send(
            socket,
            message="Like this",
            model="deepseek/deepseek-chat-v3.1",
            images=json.dumps([picture.pk]),
        )
        refused = await next_event(socket)
    assert refused["code"] == "bad_images"
    assert "deepseek/deepseek-chat-v3.1 does not read pictures" in refused["message"]
    assert completions(scripted) == []
    assert not await sync_to_async(Message.objects.exists)()


async def test_the_offline_demo_refuses_a_picture_with_advice_a_keyless_person_can_follow(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    picture = await waiting_picture(user, project)
    async with opened(project, user) as socket:
        await send(socket, message="Like this", model=DEMO_MODEL, images=json.dumps([picture.pk]))
        refused = await next_event(socket)
    assert refused["code"] == "bad_images"
    assert refused["message"] == (
        "The offline demo cannot see pictures. Send the message without them, or add your "
        "OpenRouter key in Settings to use a model that reads them."
    )
    assert scripted.requests == [], "no model and no list was asked"


async def test_someone_elses_picture_cannot_be_sent(
    scripted: FakeOpenRouter, project: Project, user: User, other_user: User
) -> None:
    theirs = await waiting_picture(other_user, project)
    async with opened(project, user) as socket:
        await send(
            socket, message="Steal", model="google/gemini-2.5-flash", images=json.dumps([theirs.pk])
        )
        refused = await next_event(socket)
    assert "is gone; attach it again" in refused["message"]
    assert scripted.requests == [], "not even the model list"


async def test_the_providers_model_list_decides_which_models_read_pictures(
    scripted: FakeOpenRouter, project: Project, user: User
) -> None:
    """The list says this one reads text only, though its name matches the
    fallback patterns (BUILTIT_IMAGE_MODELS): the list wins."""
    picture = await waiting_picture(user, project)
    async with opened(project, user) as socket:
        await send(
            socket,
            message="Like this",
            model="google/gemini-text-only-test",
            images=json.dumps([picture.pk]),
        )
        refused = await next_event(socket)
    assert "google/gemini-text-only-test does not read pictures" in refused["message"]
    assert len(scripted.model_lists) == 1
    assert scripted.requests == [], "only the list was asked"
