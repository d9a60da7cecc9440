"""Sharing a project (projects.sharing): the owner adds people as viewers or
editors, changes their roles, removes them and offers the project to someone,
who owns it once they accept; a member leaves. Each refusal says why in
words; each change is a line in the owner's activity list and, once
committed, an `access_changed` for the person."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.test import Client
from django.utils import timezone

from projects.access import project_access
from projects.activity import activity_list
from projects.lifecycle import project_create
from projects.models import GitRemote, HandOverOffer, Membership, Project, ProjectActivity
from projects.sharing import (
    ShareRefused,
    hand_over_offer_accept,
    hand_over_offer_decline,
    hand_over_offer_make,
    hand_over_offer_withdraw,
    membership_add,
    membership_leave,
    membership_remove,
    membership_role_set,
)
from projects.signals import access_changed
from projects.usage import project_stored, storage_used

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def erin(db: None) -> User:
    return User.objects.create_user("erin", "erin@example.com", "a long enough secret")


@pytest.fixture
def sent() -> Iterator[list[dict[str, Any]]]:
    """What `access_changed` sent, after each commit."""
    heard: list[dict[str, Any]] = []

    def listen(sender: type[Project], **kwargs: Any) -> None:
        heard.append({"user_id": kwargs["user_id"], "role": kwargs["role"]})

    access_changed.connect(listen, dispatch_uid="test_sharing")
    yield heard
    access_changed.disconnect(dispatch_uid="test_sharing")


def _refused(result: object) -> str:
    assert isinstance(result, ShareRefused), result
    return result.message


def _lines(project: Project) -> list[str]:
    return [line.text for line in activity_list(project=project)]


def test_the_owner_shares_with_a_person_who_then_finds_it(
    project: Project, erin: User, sent: list[dict[str, Any]]
) -> None:
    added = membership_add(project=project, by=project.owner, username="erin", role="editor")
    assert isinstance(added, Membership)
    assert project_access(erin, project.pk).role == "editor"  # type: ignore[union-attr]
    assert _lines(project) == ["ada shared it with erin as editor"]
    assert sent == [{"user_id": erin.pk, "role": "editor"}]


def test_a_username_typed_in_another_case_finds_the_person(project: Project, erin: User) -> None:
    added = membership_add(project=project, by=project.owner, username=" Erin ", role="viewer")
    assert isinstance(added, Membership)
    assert added.user == erin


@pytest.mark.parametrize(
    ("username", "role", "words"),
    [
        ("nobody", "viewer", "No one here has the username nobody."),
        ("", "viewer", "Type the username of the person."),
        ("ada", "viewer", "ada is you: you own this project already."),
        ("erin", "owner", "Choose a role: Viewer or Editor."),
    ],
)
def test_adding_is_refused_in_words(
    project: Project, erin: User, username: str, role: str, words: str
) -> None:
    result = membership_add(project=project, by=project.owner, username=username, role=role)
    assert _refused(result) == words
    assert not Membership.objects.exists()
    assert not ProjectActivity.objects.exists()


def test_an_account_switched_off_is_not_added(project: Project, erin: User) -> None:
    erin.is_active = False
    erin.save()
    result = membership_add(project=project, by=project.owner, username="erin", role="viewer")
    assert _refused(result) == "erin's account is switched off: they cannot sign in."


def test_a_member_added_again_is_told_to_change_the_role_instead(
    project: Project, erin: User, sent: list[dict[str, Any]]
) -> None:
    membership_add(project=project, by=project.owner, username="erin", role="viewer")
    again = membership_add(project=project, by=project.owner, username="erin", role="viewer")
    assert _refused(again) == "erin is already a viewer of this project."
    other = membership_add(project=project, by=project.owner, username="erin", role="editor")
    assert _refused(other) == (
        "erin is already a viewer of this project: change their role in the list."
    )
    assert Membership.objects.get().role == "viewer"
    assert len(sent) == 1


def test_only_the_owner_changes_who_is_in(project: Project, erin: User, other_user: User) -> None:
    membership_add(project=project, by=project.owner, username="erin", role="editor")
    by_editor = membership_add(project=project, by=erin, username="mallory", role="viewer")
    assert _refused(by_editor) == "Only the project's owner can share it."
    role = membership_role_set(project=project, by=erin, user=erin, role="viewer")
    assert _refused(role) == "Only the project's owner can share it."
    removed = membership_remove(project=project, by=erin, user=erin)
    assert _refused(removed) == "Only the project's owner can share it."
    offered = hand_over_offer_make(project=project, by=erin, username="erin")
    assert _refused(offered) == "Only the project's owner can hand it over."
    withdrawn = hand_over_offer_withdraw(project=project, by=erin)
    assert _refused(withdrawn) == "Only the project's owner can hand it over."
    assert Membership.objects.get().role == "editor"
    assert Project.objects.get().owner == project.owner


def test_a_role_changed_holds_and_says_so(
    project: Project, erin: User, sent: list[dict[str, Any]]
) -> None:
    membership_add(project=project, by=project.owner, username="erin", role="editor")
    changed = membership_role_set(project=project, by=project.owner, user=erin, role="viewer")
    assert isinstance(changed, Membership)
    assert project_access(erin, project.pk).role == "viewer"  # type: ignore[union-attr]
    same = membership_role_set(project=project, by=project.owner, user=erin, role="viewer")
    assert isinstance(same, Membership)
    assert _lines(project) == ["ada made erin a viewer", "ada shared it with erin as editor"]
    assert sent[1:] == [{"user_id": erin.pk, "role": "viewer"}]


def test_a_removed_person_loses_the_project(
    project: Project, erin: User, sent: list[dict[str, Any]]
) -> None:
    membership_add(project=project, by=project.owner, username="erin", role="editor")
    assert membership_remove(project=project, by=project.owner, user=erin) is None
    assert project_access(erin, project.pk) is None
    assert _lines(project)[0] == "ada removed erin"
    assert sent[-1] == {"user_id": erin.pk, "role": None}
    again = membership_remove(project=project, by=project.owner, user=erin)
    assert _refused(again) == "erin is not a member of this project (any more)."
    role = membership_role_set(project=project, by=project.owner, user=erin, role="editor")
    assert _refused(role) == "erin is not a member of this project (any more)."


def test_a_member_leaves_and_the_owner_cannot(
    project: Project, erin: User, sent: list[dict[str, Any]]
) -> None:
    membership_add(project=project, by=project.owner, username="erin", role="viewer")
    assert membership_leave(project=project, user=erin) is None
    assert project_access(erin, project.pk) is None
    assert _lines(project)[0] == "erin left"
    assert sent[-1] == {"user_id": erin.pk, "role": None}
    assert _refused(membership_leave(project=project, user=erin)) == (
        "You are not a member of this project."
    )
    assert _refused(membership_leave(project=project, user=project.owner)).startswith(
        "You own this project, so you cannot leave it"
    )


@pytest.mark.parametrize("how", ["removed", "left"])
def test_a_person_who_is_out_no_longer_opens_the_preview_link(
    starter_project: Project, erin: User, sites_client: Client, how: str
) -> None:
    """They knew the secret preview address; after a removal or a leave it is replaced."""
    project = starter_project
    membership_add(project=project, by=project.owner, username="erin", role="viewer")
    known = f"/preview/{project.preview_token}/"
    assert sites_client.get(known).status_code == 200
    if how == "removed":
        assert membership_remove(project=project, by=project.owner, user=erin) is None
    else:
        assert membership_leave(project=project, user=erin) is None
    gone = sites_client.get(known)
    assert gone.status_code == 410
    assert "This link was replaced" in gone.content.decode()
    fresh = Project.objects.get(pk=project.pk).preview_token
    assert fresh == project.preview_token
    assert sites_client.get(f"/preview/{fresh}/").status_code == 200


def _offer(project: Project, to: str) -> HandOverOffer:
    offer = hand_over_offer_make(project=project, by=project.owner, username=to)
    assert isinstance(offer, HandOverOffer), offer
    return offer


def _owner_of(project: Project) -> str:
    return Project.objects.get(pk=project.pk).owner.get_username()


def test_a_hand_over_is_an_offer_that_moves_nothing_until_the_receiver_accepts(
    project: Project, erin: User, sent: list[dict[str, Any]]
) -> None:
    ada = project.owner
    membership_add(project=project, by=ada, username="erin", role="viewer")
    sent.clear()
    offer = _offer(project, "erin")
    assert offer.expires_at > timezone.now() + timedelta(days=6)
    assert _owner_of(project) == "ada"
    assert project_access(erin, project.pk).role == "viewer"  # type: ignore[union-attr]
    assert _lines(project)[0] == "ada offered it to erin"
    assert sent == []
    accepted = hand_over_offer_accept(project_id=project.pk, user=erin)
    assert isinstance(accepted, Project)
    assert _owner_of(project) == "erin"
    assert project_access(erin, project.pk).role == "owner"  # type: ignore[union-attr]
    assert project_access(ada, project.pk).role == "editor"  # type: ignore[union-attr]
    assert list(Membership.objects.values_list("user__username", "role")) == [("ada", "editor")]
    assert _lines(project)[:2] == [
        "erin accepted it from ada, and owns it now",
        "ada offered it to erin",
    ]
    assert sent == [
        {"user_id": erin.pk, "role": "owner"},
        {"user_id": ada.pk, "role": "editor"},
    ]
    assert not HandOverOffer.objects.exists()
    # Now erin's: ada may no longer offer it, and the offer is spent.
    back = hand_over_offer_make(project=project, by=ada, username="ada")
    assert _refused(back) == "Only the project's owner can hand it over."
    again = hand_over_offer_accept(project_id=project.pk, user=erin)
    assert _refused(again) == (
        "This project is not offered to you (any more): the offer was answered or taken back."
    )


def test_the_receiver_declines_and_the_owner_takes_an_offer_back(
    project: Project, erin: User, other_user: User, sent: list[dict[str, Any]]
) -> None:
    _offer(project, "erin")
    # Only the person it was offered to answers it.
    assert _refused(hand_over_offer_accept(project_id=project.pk, user=other_user)).startswith(
        "This project is not offered to you"
    )
    assert hand_over_offer_decline(project_id=project.pk, user=erin) is None
    assert _owner_of(project) == "ada"
    assert _lines(project)[0] == "erin declined the offer of it"
    assert _refused(hand_over_offer_accept(project_id=project.pk, user=erin)).startswith(
        "This project is not offered to you"
    )
    _offer(project, "erin")
    assert hand_over_offer_withdraw(project=project, by=project.owner) is None
    assert _lines(project)[0] == "ada took back the offer to erin"
    assert _refused(hand_over_offer_accept(project_id=project.pk, user=erin)).startswith(
        "This project is not offered to you"
    )
    assert _refused(hand_over_offer_withdraw(project=project, by=project.owner)) == (
        "There is no offer to take back: it was answered or taken back."
    )
    assert _owner_of(project) == "ada"
    assert sent == []


def test_a_project_has_one_open_offer_and_an_offer_lapses(
    project: Project, erin: User, other_user: User
) -> None:
    _offer(project, "erin")
    second = hand_over_offer_make(project=project, by=project.owner, username="mallory")
    assert _refused(second) == "You offered it to erin already: take that offer back first."
    HandOverOffer.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    lapsed = hand_over_offer_accept(project_id=project.pk, user=erin)
    assert _refused(lapsed) == "The offer lapsed after 7 days: ask ada to offer it again."
    assert _owner_of(project) == "ada"
    _offer(project, "mallory")  # in the lapsed one's place
    assert HandOverOffer.objects.get().to_user == other_user
    assert isinstance(hand_over_offer_accept(project_id=project.pk, user=other_user), Project)
    assert _owner_of(project) == "mallory"


def test_a_hand_over_leaves_the_old_owner_s_git_credentials_behind(
    project: Project, erin: User
) -> None:
    """The remote's token is the old owner's: the new owner does not push with it."""
    GitRemote.objects.create(
        project=project, url="https://github.com/ada/site.git", username="ada", token_sealed="x"
    )
    _offer(project, "erin")
    assert GitRemote.objects.filter(project=project).exists()  # offered: still ada's
    assert isinstance(hand_over_offer_accept(project_id=project.pk, user=erin), Project)
    assert not GitRemote.objects.filter(project=project).exists()


def test_an_offer_to_someone_with_a_project_of_that_name_is_refused(
    project: Project, erin: User, sent: list[dict[str, Any]]
) -> None:
    assert isinstance(project_create(owner=erin, name="EMPTY site"), Project)
    result = hand_over_offer_make(project=project, by=project.owner, username="erin")
    assert _refused(result) == (
        "erin already has a project named EMPTY site: rename this one (or ask them to "
        "rename theirs), then hand it over."
    )
    assert not HandOverOffer.objects.exists()
    assert not ProjectActivity.objects.exists()
    assert sent == []


def test_a_name_taken_after_the_offer_is_refused_at_accept(
    project: Project, erin: User, sent: list[dict[str, Any]]
) -> None:
    _offer(project, "erin")
    assert isinstance(project_create(owner=erin, name="EMPTY site"), Project)
    result = hand_over_offer_accept(project_id=project.pk, user=erin)
    assert _refused(result) == (
        "You already have a project named EMPTY site: rename yours, then accept this one."
    )
    assert _owner_of(project) == "ada"
    assert HandOverOffer.objects.exists()  # still open: erin may rename and accept
    assert sent == []


def test_a_name_taken_in_the_same_moment_keeps_the_offer_and_the_membership(
    project: Project, erin: User, sent: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database's rule catches what the check read too early: nothing of
    the accept is kept, so erin is still in, and may rename and accept."""
    membership_add(project=project, by=project.owner, username="erin", role="viewer")
    _offer(project, "erin")
    assert isinstance(project_create(owner=erin, name=project.name), Project)
    monkeypatch.setattr("projects.sharing.name_taken", lambda **_: None)  # read before it
    result = hand_over_offer_accept(project_id=project.pk, user=erin)
    assert _refused(result).startswith("You already have a project named")
    assert _owner_of(project) == "ada"
    assert HandOverOffer.objects.filter(project=project, to_user=erin).exists()
    assert Membership.objects.get(project=project).user == erin


def test_storage_is_checked_at_the_offer_and_again_at_accept(
    settings: Any, project: Project, erin: User, sent: list[dict[str, Any]]
) -> None:
    theirs = project_create(owner=erin, name="Erin's own", starter=True)
    assert isinstance(theirs, Project)
    assert isinstance(project_create(owner=project.owner, name="Big", starter=True), Project)
    big = Project.objects.get(owner=project.owner, name="Big")
    settings.BUILTIT_MAX_USER_STORAGE_BYTES = storage_used(erin.pk) + project_stored(big.pk) - 1
    words = _refused(hand_over_offer_make(project=big, by=project.owner, username="erin"))
    assert words.startswith("Big takes ")
    assert "it would pass their storage" in words
    settings.BUILTIT_MAX_USER_STORAGE_BYTES += 1  # room for it exactly
    _offer(big, "erin")
    settings.BUILTIT_MAX_USER_STORAGE_BYTES -= 1  # erin's storage filled meanwhile
    words = _refused(hand_over_offer_accept(project_id=big.pk, user=erin))
    assert words.startswith("Big takes ")
    assert "it would pass your storage. Make room first, then accept it." in words
    assert _owner_of(big) == "ada"
    assert sent == []
    settings.BUILTIT_MAX_USER_STORAGE_BYTES += 1
    assert isinstance(hand_over_offer_accept(project_id=big.pk, user=erin), Project)
    assert _owner_of(big) == "erin"


@pytest.mark.parametrize(
    ("username", "words"),
    [
        ("nobody", "No one here has the username nobody."),
        ("ada", "You own this project already: name the person to hand it to."),
    ],
)
def test_an_offer_to_no_one_is_refused(project: Project, username: str, words: str) -> None:
    result = hand_over_offer_make(project=project, by=project.owner, username=username)
    assert _refused(result) == words


def test_nothing_is_sent_when_the_change_is_rolled_back(
    project: Project, erin: User, sent: list[dict[str, Any]]
) -> None:
    with transaction.atomic():
        membership_add(project=project, by=project.owner, username="erin", role="viewer")
        transaction.set_rollback(True)
    assert sent == []
    assert not Membership.objects.exists()
