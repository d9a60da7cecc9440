"""A person's workspace preferences: panel sizes, hidden panels, line
wrap and theme, saved on the server so they follow the person; only known
names with sane values are kept."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.test import Client

from projects.models import Project
from projects.selectors import preferences_of

pytestmark = pytest.mark.django_db


def post(client: Client, value: object) -> tuple[int, dict[str, object]]:
    answer = client.post("/preferences/", json.dumps(value), content_type="application/json")
    return answer.status_code, answer.json() if answer["Content-Type"] == "application/json" else {}


def test_preferences_are_merged_and_come_back_with_every_page(
    user_client: Client, user: User, starter_project: Project
) -> None:
    assert post(user_client, {"chatWidth": 420, "wrap": True})[0] == 200
    status, saved = post(user_client, {"theme": "dark", "filesCollapsed": True})
    assert status == 200
    assert saved == {"chatWidth": 420, "wrap": True, "theme": "dark", "filesCollapsed": True}
    page = user_client.get(f"/projects/{starter_project.pk}/").content.decode()
    assert '"chatWidth": 420' in page
    assert '<html lang="en" data-theme-preference="dark" ' in page
    assert 'data-theme-preference="dark"' in user_client.get("/").content.decode()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"chatWidth": 5}, "chatWidth is a width in pixels, from 120 to 2000."),
        ({"chatWidth": True}, "chatWidth is a width in pixels"),
        ({"wrap": "yes"}, "wrap is true or false."),
        ({"theme": "purple"}, "theme is one of auto, light, dark."),
        ({"password": "x"}, "There is no preference called 'password'."),
        ([1, 2], "Send an object of preferences to change."),
        ({}, "Send an object of preferences to change."),
    ],
)
def test_anything_else_is_refused_and_nothing_is_kept(
    user_client: Client, user: User, value: object, message: str
) -> None:
    status, answer = post(user_client, value)
    assert status == 400
    assert str(answer["error"]).startswith(message)
    assert preferences_of(user=user) == {}


def test_not_json_is_refused(user_client: Client) -> None:
    answer = user_client.post("/preferences/", "{oops", content_type="application/json")
    assert answer.status_code == 400


def test_json_nested_past_the_parser_is_refused_in_words(user_client: Client) -> None:
    """json.loads lets RecursionError escape: this body was a 500."""
    deep = "[" * 100_000 + "]" * 100_000
    answer = user_client.post("/preferences/", deep, content_type="application/json")
    assert answer.status_code == 400
    assert answer.json() == {"error": "Send an object of preferences to change."}


def test_only_a_signed_in_person_has_preferences(client: Client) -> None:
    answer = client.post("/preferences/", "{}", content_type="application/json")
    assert answer.status_code == 302
    assert answer["Location"].startswith("/accounts/login/")
