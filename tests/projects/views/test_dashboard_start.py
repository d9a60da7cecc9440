"""The dashboard's "What do you want to build?" beyond the box: example requests
under it that start a project at one click, the empty list pointing at the box,
and a start that is refused making nothing and keeping the person's words."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse
from pytest_django.fixtures import Settings as SettingsWrapper

from chat.models import Conversation
from projects.models import Project, ProjectFile
from projects.starter import STARTING_POINTS

EXAMPLE = re.compile(r'<button type="submit" name="request" value="([^"]+)" class="example">')


def examples_on(page: str) -> list[str]:
    return [unescape(value) for value in EXAMPLE.findall(page)]


def dashboard(client: Client) -> str:
    return client.get(reverse("dashboard")).content.decode()


def test_the_dashboard_offers_example_requests_under_the_box(user_client: Client) -> None:
    page = dashboard(user_client)
    offered = examples_on(page)
    assert offered == [point.request for point in STARTING_POINTS]
    assert len(offered) >= 6
    # Under the box, in a form of their own that starts a project as the box does.
    assert page.index('id="start-request"') < page.index('id="start-examples"')
    assert page.index('id="start-examples"') < page.index('id="projects-heading"')
    form = page.split('id="start-examples"')[0].rsplit("<form", 1)[1]
    assert f'action="{reverse("project_start")}"' in form


def test_the_examples_cover_the_kinds_people_start_with_in_their_own_words() -> None:
    kinds = {
        "bakery": "bakery",
        "portfolio": "portfolio",
        "restaurant": "restaurant",
        "event": "wedding",
        "local business": "plumbing business",
        "app landing page": "landing page",
    }
    requests = [point.request.lower() for point in STARTING_POINTS]
    for kind, word in kinds.items():
        assert any(word in request for request in requests), kind
    for point in STARTING_POINTS:
        assert not point.request.lower().startswith(("build", "create", "make")), point
        assert len(point.request) <= 100, "short enough to read at a glance"


@pytest.mark.parametrize("point", STARTING_POINTS, ids=lambda point: point.label)
def test_an_example_starts_a_project_from_its_request(
    user: User, user_client: Client, point: object
) -> None:
    request = point.request  # type: ignore[attr-defined]
    response = user_client.post(reverse("project_start"), {"request": request})
    conversation = Conversation.objects.select_related("project").get()
    workspace = reverse("workspace", kwargs={"project_id": conversation.project_id})
    assert response["Location"] == f"{workspace}?conversation={conversation.pk}"
    assert conversation.opening == request
    assert conversation.project.owner == user
    assert conversation.project.name  # named from its words


def test_the_empty_list_points_at_the_box_above_whatever_the_width(user_client: Client) -> None:
    page = dashboard(user_client)
    empty = page.split('class="empty card"')[1].split("</div>")[0]
    assert "No projects yet" in empty
    assert "box above" in empty
    # "On the right" is true only on a wide screen: a phone has it below.
    assert "on the right" not in empty
    assert "below" not in empty


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("x" * 101, "Messages are at most 100 characters; this one has 101."),
        ("   ", "Write a message first."),
    ],
)
def test_a_refused_request_makes_nothing_and_waits_in_the_box_once(
    user_client: Client, settings: SettingsWrapper, text: str, said: str
) -> None:
    settings.BUILTIT_MAX_MESSAGE_CHARS = 100
    response = user_client.post(reverse("project_start"), {"request": text})
    assert response["Location"] == reverse("dashboard")
    assert any(said in str(message) for message in get_messages(response.wsgi_request))
    assert not Project.objects.exists()
    page = dashboard(user_client)
    box = page.split('id="start-request"')[1].split("</textarea>")[0]
    assert box.endswith(">" + text), "the words are back in the box"
    again = dashboard(user_client).split('id="start-request"')[1].split("</textarea>")[0]
    assert again.endswith('aria-describedby="start-help">'), "once: a reload starts afresh"


def test_a_start_with_the_storage_full_makes_no_project_and_keeps_the_words(
    user_client: Client, settings: SettingsWrapper
) -> None:
    settings.BUILTIT_MAX_USER_STORAGE_BYTES = 10
    request = STARTING_POINTS[0].request
    response = user_client.post(reverse("project_start"), {"request": request})
    assert response["Location"] == reverse("dashboard")
    (message,) = [str(message) for message in get_messages(response.wsgi_request)]
    assert message.startswith("No project was made: ")
    assert "storage" in message
    assert not Project.objects.exists()
    assert not ProjectFile.objects.exists()
    assert not Conversation.objects.exists()
    page = dashboard(user_client)
    assert page.split('id="start-request"')[1].split("</textarea>")[0].endswith(">" + request)
