"""Pictures with a chat message: uploaded from the message box,
checked by their bytes and bounded, shown only to their owner, saved into the
project in one click, sent to the model as image parts."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

from chat import images
from chat.live.frames import Frame, FrameRefused, parse_frame
from chat.llm import ChatMessage
from chat.models import ChatImage, Conversation, Message
from fakes.images import (
    gif_frame_larger_than_screen,
    jpeg,
    jpeg_with_fill_byte,
    png,
    webp,
    webp_with_chunk_first,
)
from projects.models import Membership, Project, ProjectFile

pytestmark = pytest.mark.django_db


def upload(
    client: Client, project: Project, data: bytes, name: str = "shot.png", kind: str = "image/png"
):
    picture = SimpleUploadedFile(name, data, kind)
    return client.post(f"/projects/{project.pk}/chat-images/", {"image": picture})


def test_a_picture_is_uploaded_shown_to_its_owner_only_and_saved_into_the_project(
    user_client: Client, other_client: Client, starter_project: Project
) -> None:
    answer = upload(user_client, starter_project, png(3, 2), "Screen Shot 1.png")
    assert answer.status_code == 200
    data = answer.json()
    assert data["name"] == "Screen-Shot-1.png"
    shown = user_client.get(data["url"])
    assert shown["Content-Type"] == "image/png"
    assert shown.content == png(3, 2)
    assert other_client.get(data["url"]).status_code == 404
    saved = user_client.post(f"/chat-images/{data['id']}/to-project/")
    assert saved.status_code == 200
    assert ProjectFile.objects.filter(
        project=starter_project, path="/images/Screen-Shot-1.png"
    ).exists()
    assert other_client.post(f"/chat-images/{data['id']}/to-project/").status_code == 404


def member_client(project: Project, name: str, role: str) -> Client:
    member = User.objects.create_user(name, f"{name}@example.com", "a long enough secret")
    Membership.objects.create(project=project, user=member, role=role, added_by=project.owner)
    client = Client()
    client.force_login(member)
    return client


def test_an_unsent_picture_is_its_uploaders_alone_and_shown_to_members_once_sent(
    user_client: Client, project: Project
) -> None:
    editor = member_client(project, "erin", "editor")
    other_editor = member_client(project, "finn", "editor")
    viewer = member_client(project, "vera", "viewer")
    data = upload(editor, project, png(3, 2)).json()

    assert editor.get(data["url"]).status_code == 200
    for someone in (viewer, other_editor, user_client):
        assert someone.get(data["url"]).status_code == 404
    assert other_editor.post(f"/chat-images/{data['id']}/to-project/").status_code == 404

    conversation = Conversation.objects.create(project=project)
    message = Message.objects.create(conversation=conversation, sequence=1, role="user")
    ChatImage.objects.filter(pk=data["id"]).update(message=message)
    shown = viewer.get(data["url"])
    assert shown.status_code == 200
    assert shown.content == png(3, 2)


@pytest.mark.parametrize(
    ("data", "name", "kind", "message"),
    [
        (b"<svg onload=alert(1)>", "x.svg", "image/svg+xml", "Attach a PNG, JPEG, GIF or WebP"),
        (b"<html>not a picture</html>", "x.png", "image/png", "is not a PNG image"),
        (png()[:20], "x.png", "image/png", "cut short"),
        # Past the old pixel count: each one decodes to a giant picture.
        (jpeg_with_fill_byte(60_000, 60_000), "x.jpg", "image/jpeg", "too large"),
        (gif_frame_larger_than_screen(10_000, 10_000), "x.gif", "image/gif", "too large"),
        (webp_with_chunk_first(), "x.webp", "image/webp", "damaged or cut short"),
    ],
)
def test_anything_but_a_whole_picture_is_refused(
    user_client: Client, project: Project, data: bytes, name: str, kind: str, message: str
) -> None:
    answer = upload(user_client, project, data, name, kind)
    assert answer.status_code == 422
    assert message in answer.json()["error"]
    assert not ChatImage.objects.exists()


def test_a_pasted_picture_is_read_by_its_bytes_not_its_label(
    user_client: Client, project: Project
) -> None:
    answer = upload(user_client, project, jpeg(), "image.png", "image/png")
    assert answer.status_code == 200
    assert ChatImage.objects.get().content_type == "image/jpeg"
    answer = upload(user_client, project, webp(6, 4), "image.png", "image/png")
    assert answer.status_code == 200
    assert answer.json()["name"] == "image.webp"


def test_size_and_waiting_pictures_are_bounded(
    user_client: Client, user: User, project: Project, settings: SettingsWrapper
) -> None:
    settings.BUILTIT_MAX_CHAT_IMAGE_BYTES = 40
    too_big = upload(user_client, project, png(8, 8))
    assert too_big.status_code == 422
    assert "may be at most" in too_big.json()["error"]
    settings.BUILTIT_MAX_CHAT_IMAGE_BYTES = 5 * 1024 * 1024
    for _ in range(images.MAX_WAITING + 5):
        assert upload(user_client, project, png()).status_code == 200
    assert ChatImage.objects.filter(user=user).count() == images.MAX_WAITING


def test_a_frame_carries_picture_ids_and_nothing_else() -> None:
    frame = parse_frame(json.dumps({"message": "like this", "images": "[3, 4]"}))
    assert isinstance(frame, Frame)
    assert frame.images == (3, 4)
    for bad in ('["x"]', "[true]", json.dumps(list(range(21))), '{"a": 1}'):
        refused = parse_frame(json.dumps({"message": "x", "images": bad}))
        assert isinstance(refused, FrameRefused), bad


def test_pictures_go_to_the_model_as_image_parts() -> None:
    wire = ChatMessage(
        "user", "Make it look like this", images=("data:image/png;base64,AAA",)
    ).to_wire()
    assert wire["content"] == [
        {"type": "text", "text": "Make it look like this"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAA"}},
    ]
    assert ChatMessage.user("plain").to_wire()["content"] == "plain"


def test_which_models_read_pictures(settings: SettingsWrapper) -> None:
    assert images.reads_images("google/gemini-2.5-flash")
    assert images.reads_images("anthropic/claude-sonnet-4.5")
    assert not images.reads_images("deepseek/deepseek-chat-v3.1")
    assert not images.reads_images("builtit/demo")
