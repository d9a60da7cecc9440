"""The Share dialog's pages (projects.views.sharing): the owner adds, changes,
removes and offers the project to someone, who accepts or declines it; an
editor and a viewer see who is in and may leave, and are refused the rest
with a 403; to a stranger the project does not exist. The dashboard lists
a shared project for each person, marked by whom, and what is offered to them."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from common.sizes import human_size
from projects.access import project_access
from projects.lifecycle import project_create, project_trash
from projects.models import Membership, Project, ProjectActivity
from projects.services import Author, file_create
from projects.sharing import membership_add

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def _person(username: str) -> tuple[User, Client]:
    person = User.objects.create_user(username, f"{username}@example.com", "a long enough secret")
    client = Client()
    client.force_login(person)
    return person, client


def _shared(project: Project, username: str, role: str) -> tuple[User, Client]:
    person, client = _person(username)
    added = membership_add(project=project, by=project.owner, username=username, role=role)
    assert isinstance(added, Membership)
    return person, client


def _page(response) -> str:
    return unescape(response.content.decode())


def _words(page: str) -> str:
    """The page's text, its tags left out."""
    return re.sub(r"<[^>]+>", "", page)


def _storage(page: str) -> str:
    found = re.search(r'data-testid="storage">\s*(Storage: [^ ]+ [^ ]+?) ', page)
    assert found, page
    return found[1]


def _url(name: str, project: Project, *args: object) -> str:
    return reverse(name, args=[project.pk, *args])


def test_the_owner_adds_a_person_and_sees_everyone_with_their_role(
    user_client: Client, project: Project
) -> None:
    erin, _ = _person("erin")
    response = user_client.post(
        _url("share_add", project), {"username": "erin", "role": "editor"}, headers=HTMX
    )
    page = _page(response)
    assert response.status_code == 200
    assert "Shared with erin as editor." in page
    assert f'id="share-member-{erin.pk}"' in page
    assert '<option value="editor" selected>Editor</option>' in page
    assert "ada shared it with erin as editor" in page  # the activity list
    assert "Hand the project over" in page


def test_a_refused_add_says_why_and_keeps_what_was_typed(
    user_client: Client, project: Project
) -> None:
    response = user_client.post(
        _url("share_add", project), {"username": "nobody", "role": "viewer"}, headers=HTMX
    )
    page = _page(response)
    assert "No one here has the username nobody." in page
    assert 'value="nobody"' in page
    assert not Membership.objects.exists()


def test_the_owner_changes_a_role_and_removes_a_person(
    user_client: Client, project: Project
) -> None:
    erin, _ = _shared(project, "erin", "viewer")
    changed = user_client.post(
        _url("share_role", project, erin.pk), {"role": "editor"}, headers=HTMX
    )
    assert "erin is now an editor." in _page(changed)
    assert Membership.objects.get().role == "editor"
    removed = user_client.post(_url("share_remove", project, erin.pk), headers=HTMX)
    assert "Removed erin." in _page(removed)
    assert not Membership.objects.exists()
    gone = user_client.post(_url("share_remove", project, erin.pk), headers=HTMX)
    assert gone.status_code == 404


def test_the_owner_offers_the_project_and_the_receiver_answers_on_their_dashboard(
    user_client: Client, project: Project, other_client: Client
) -> None:
    erin, erin_client = _person("erin")  # not in the project: the offer lets them answer
    offered = _page(
        user_client.post(_url("share_hand_over", project), {"username": "erin"}, headers=HTMX)
    )
    assert "Offered to erin: it is theirs once they accept" in offered
    assert "Take back the offer" in offered
    assert Project.objects.get().owner.username == "ada"
    dashboard = _page(erin_client.get("/"))
    assert "ada offers you Empty site" in _words(dashboard)
    assert _url("hand_over_accept", project) in dashboard
    assert "offers you" not in _page(other_client.get("/"))
    # Declined: it stays ada's, and erin's dashboard says so.
    declined = erin_client.post(
        _url("hand_over_decline", project), {"back": "dashboard"}, follow=True
    )
    assert declined.redirect_chain == [(reverse("dashboard"), 302)]
    assert "Offer declined: the project stays its owner's." in _page(declined)
    assert "offers you" not in _page(declined)
    # Offered again and accepted: erin owns it, and opens it.
    user_client.post(_url("share_hand_over", project), {"username": "erin"}, headers=HTMX)
    accepted = erin_client.post(_url("hand_over_accept", project), {"back": "dashboard"})
    assert accepted["Location"] == reverse("workspace", args=[project.pk])
    assert Project.objects.get().owner == erin
    page = _page(user_client.get(_url("share_panel", project), headers=HTMX))
    assert "Hand the project over" not in page  # ada sees it as a member now


def test_a_member_answers_an_offer_in_share_and_the_owner_may_take_it_back(
    user_client: Client, project: Project
) -> None:
    vera, vera_client = _shared(project, "vera", "viewer")
    user_client.post(_url("share_hand_over", project), {"username": "vera"}, headers=HTMX)
    panel = _page(vera_client.get(_url("share_panel", project), headers=HTMX))
    assert "ada offers you Empty site" in _words(panel)
    assert _url("hand_over_decline", project) in panel
    # Another offer waits for no one: the owner takes this one back first.
    again = _page(
        user_client.post(_url("share_hand_over", project), {"username": "vera"}, headers=HTMX)
    )
    assert "You offered it to vera already: take that offer back first." in again
    taken = _page(user_client.post(_url("share_hand_over_withdraw", project), headers=HTMX))
    assert "Offer taken back: the project stays yours." in taken
    assert "offers you" not in _page(vera_client.get(_url("share_panel", project), headers=HTMX))
    # Accept, now: refused in words, back in the project.
    late = vera_client.post(_url("hand_over_accept", project), follow=True)
    assert late.redirect_chain == [(reverse("workspace", args=[project.pk]), 302)]
    assert "This project is not offered to you (any more)" in _page(late)
    assert Project.objects.get().owner.username == "ada"
    assert vera.memberships.get().role == "viewer"


@pytest.mark.parametrize("role", ["editor", "viewer"])
def test_a_member_sees_who_is_in_read_only_and_may_leave(project: Project, role: str) -> None:
    _, client = _shared(project, "erin", role)
    page = _page(client.get(_url("share_panel", project), headers=HTMX))
    assert "erin (you)" in page
    assert role.capitalize() in page
    assert "Only ada, its owner, can add people" in page
    assert "<select" not in page
    assert "Hand the project over" not in page
    assert "shared it with" not in page  # the activity list is the owner's
    left = client.post(_url("share_leave", project), headers=HTMX)
    assert left.headers["HX-Redirect"] == reverse("dashboard")
    assert not Membership.objects.exists()
    assert ProjectActivity.objects.filter(kind="left").count() == 1


@pytest.mark.parametrize("role", ["editor", "viewer"])
def test_a_member_cannot_change_who_is_in(project: Project, role: str) -> None:
    erin, client = _shared(project, "erin", role)
    _person("vera")
    asks = [
        (_url("share_add", project), {"username": "vera", "role": "editor"}),
        (_url("share_role", project, erin.pk), {"role": "editor"}),
        (_url("share_remove", project, erin.pk), {}),
        (_url("share_hand_over", project), {"username": "erin"}),
        (_url("share_hand_over_withdraw", project), {}),
    ]
    for url, data in asks:
        assert client.post(url, data, headers=HTMX).status_code == 403, url
    assert list(Membership.objects.values_list("user__username", "role")) == [("erin", role)]
    assert Project.objects.get().owner.username == "ada"


def test_a_stranger_finds_no_such_project(project: Project, other_client: Client) -> None:
    erin, _ = _shared(project, "erin", "viewer")
    asks = [
        ("get", _url("share_panel", project), {}),
        ("post", _url("share_add", project), {"username": "mallory", "role": "editor"}),
        ("post", _url("share_role", project, erin.pk), {"role": "editor"}),
        ("post", _url("share_remove", project, erin.pk), {}),
        ("post", _url("share_leave", project), {}),
        ("post", _url("share_hand_over", project), {"username": "mallory"}),
        ("post", _url("share_hand_over_withdraw", project), {}),
        ("post", _url("hand_over_accept", project), {}),
        ("post", _url("hand_over_decline", project), {}),
    ]
    for method, url, data in asks:
        assert getattr(other_client, method)(url, data, headers=HTMX).status_code == 404, url
    assert list(Membership.objects.values_list("user__username", flat=True)) == ["erin"]


def test_the_owner_cannot_leave_their_own_project(user_client: Client, project: Project) -> None:
    page = _page(user_client.post(_url("share_leave", project), headers=HTMX))
    assert "You own this project, so you cannot leave it" in page


def test_each_dashboard_lists_the_shared_project_marked_by_whom(
    user_client: Client, user: User, project: Project
) -> None:
    file_create(project=project, path="/index.html", content="x" * 5000, author=Author.person(user))
    erin, erin_client = _shared(project, "erin", "editor")
    _, vera_client = _shared(project, "vera", "viewer")
    mine = project_create(owner=erin, name="Erin's own")
    assert isinstance(mine, Project)

    owner_page = _page(user_client.get("/"))
    assert "Shared with 2" in owner_page
    assert "Shared by" not in owner_page

    erin_page = _page(erin_client.get("/"))
    assert "Empty site" in erin_page
    assert "Erin's own" in erin_page
    assert "Shared by ada" in erin_page
    assert "· Editor" in erin_page
    # Renaming and deleting are the owner's: not offered on a shared card.
    assert _url("project_delete", project) not in erin_page
    assert _url("project_delete", mine) in erin_page
    # Erin's storage counts her own projects only (an empty one), not ada's.
    assert _storage(erin_page) == f"Storage: {human_size(0)}"
    assert _storage(owner_page) != f"Storage: {human_size(0)}"

    vera_page = _page(vera_client.get("/"))
    assert "Shared by ada" in vera_page
    assert "· Viewer" in vera_page


def test_a_stranger_and_a_removed_person_do_not_see_it_on_their_dashboard(
    project: Project, other_client: Client
) -> None:
    erin, erin_client = _shared(project, "erin", "viewer")
    assert "Empty site" not in _page(other_client.get("/"))
    Membership.objects.filter(user=erin).delete()
    assert "Empty site" not in _page(erin_client.get("/"))
    assert project_access(erin, project.pk) is None


def test_a_shared_project_in_the_trash_is_only_in_its_owners_trash(
    user_client: Client, project: Project
) -> None:
    _, erin_client = _shared(project, "erin", "editor")
    assert project_trash(project=project) is None
    assert "Empty site" not in _page(erin_client.get("/"))
    assert "Empty site" not in _page(erin_client.get(reverse("trash")))
    assert "Empty site" in _page(user_client.get(reverse("trash")))
