"""The admin's memberships: who is in each project, on the project's page with
its activity list, and a list of its own searched by username or project.
Read-only: who is in changes through the owner's Share dialog."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.contrib.auth.models import User
from django.test import Client

from projects.models import HandOverOffer, Membership, Project
from projects.sharing import hand_over_offer_make, membership_add

pytestmark = pytest.mark.django_db

MEMBERSHIPS = "/admin/projects/membership/"


@pytest.fixture
def admin_client(db: None) -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("root", "root@example.com", "staff pass"))
    return client


@pytest.fixture
def erin_in(project: Project) -> Membership:
    User.objects.create_user("erin", "erin@example.com", "a long enough secret")
    added = membership_add(project=project, by=project.owner, username="erin", role="editor")
    assert isinstance(added, Membership)
    return added


def _page(response) -> str:
    assert response.status_code == 200
    return unescape(response.content.decode())


def test_the_project_page_lists_who_is_in_and_its_activity(
    admin_client: Client, project: Project, erin_in: Membership
) -> None:
    page = _page(admin_client.get(f"/admin/projects/project/{project.pk}/change/"))
    assert "Shared with" in page
    assert ">erin<" in page
    assert ">Editor<" in page
    assert "Activity" in page
    assert ">shared<" in page
    assert ">erin<" not in page.split("Hand-over offer", 1)[1].split("Activity", 1)[0]

    offered = hand_over_offer_make(project=project, by=project.owner, username="erin")
    assert isinstance(offered, HandOverOffer)
    page = _page(admin_client.get(f"/admin/projects/project/{project.pk}/change/"))
    offer = page.split("Hand-over offer", 1)[1].split("Activity", 1)[0]
    assert ">erin<" in offer


def test_memberships_are_listed_and_searched_by_username_and_project(
    admin_client: Client, project: Project, erin_in: Membership
) -> None:
    assert "Empty site" in _page(admin_client.get(MEMBERSHIPS))
    assert "1 membership" in _page(admin_client.get(MEMBERSHIPS, {"q": "erin"}))
    assert "1 membership" in _page(admin_client.get(MEMBERSHIPS, {"q": "Empty"}))
    assert "0 memberships" in _page(admin_client.get(MEMBERSHIPS, {"q": "nobody"}))
    assert "Add membership" not in _page(admin_client.get(MEMBERSHIPS))
    _page(admin_client.get(f"{MEMBERSHIPS}{erin_in.pk}/change/"))


def test_staff_cannot_change_a_project_s_owner_around_the_hand_over(
    admin_client: Client, project: Project, other_user: User
) -> None:
    """A hand-over is the owner's, through Share: the admin shows the owner, read only."""
    change = f"/admin/projects/project/{project.pk}/change/"
    page = _page(admin_client.get(change))
    assert 'name="owner"' not in page
    assert "ada" in page
    management = {
        f"{prefix}-{key}": value
        for prefix in re.findall(r'name="([\w-]+)-TOTAL_FORMS"', page)
        for key, value in {"TOTAL_FORMS": "0", "INITIAL_FORMS": "0"}.items()
    }
    response = admin_client.post(
        change, {"owner": other_user.pk, "name": project.name, **management}
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Project.objects.get(pk=project.pk).owner_id == project.owner_id
