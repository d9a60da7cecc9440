"""Access tokens that may only read: made on the Settings page, which says
what each token may do."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from chat.models import AccessToken
from projects.models import Project

pytestmark = pytest.mark.django_db


def test_the_settings_page_makes_a_read_only_token_and_says_so(
    user_client: Client, user: User
) -> None:
    made = user_client.post(
        "/settings/", {"action": "create_token", "name": "pull only", "scope": "read"}
    )
    assert "made, for reading only" in made.content.decode()
    user_client.post("/settings/", {"action": "create_token", "name": "deploy"})
    rows = dict(AccessToken.objects.filter(user=user).values_list("name", "can_write"))
    assert rows == {"pull only": False, "deploy": True}
    page = user_client.get("/settings/").content.decode()
    assert '<td data-label="May">read only</td>' in page
    assert '<td data-label="May">read and write</td>' in page


def test_the_workspace_shows_the_projects_git_address(
    user_client: Client, project: Project
) -> None:
    page = user_client.get(f"/projects/{project.pk}/").content.decode()
    assert f"git clone http://testserver/git/{project.pk}.git" in page
    assert 'href="/settings/#tokens-heading">Make a token</a>' in page


def test_the_git_address_in_a_browser_says_what_it_is(client: Client, project: Project) -> None:
    page = client.get(f"/git/{project.pk}.git")
    assert page.status_code == 200
    assert "git clone http://testserver/git/" in page.content.decode()
