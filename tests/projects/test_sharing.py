"""Sharing a project (projects.sharing): the owner adds people as viewers or
editors, changes their roles, removes them and hands the project over; a
member leaves. Each refusal says why in words; each change is a line in the
owner's activity list and, once committed, an `access_changed` for the person."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.test import Client

from projects.access import project_access
from projects.activity import activity_list
from projects.lifecycle import project_create
from projects.models import GitRemote, Membership, Project, ProjectActivity
from projects.sharing import (
    ShareRefused,
    membership_add,
    membership_leave,
    membership_remove,
    membership_role_set,
    project_hand_over,
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
    handed = project_hand_over(project=project, by=erin, username="erin")
    assert _refused(handed) == "Only the project's owner can hand it over."
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


def test_the_owner_hands_the_project_over_and_stays_on_as_an_editor(
    project: Project, erin: User, sent: list[dict[str, Any]]
) -> None:
    ada = project.owner
    membership_add(project=project, by=ada, username="erin", role="viewer")
    handed = project_hand_over(project=project, by=ada, username="erin")
    assert isinstance(handed, Project)
    assert handed.owner == erin
    assert Project.objects.get(pk=project.pk).owner == erin
    assert project_access(erin, project.pk).role == "owner"  # type: ignore[union-attr]
    assert project_access(ada, project.pk).role == "editor"  # type: ignore[union-attr]
    assert list(Membership.objects.values_list("user__username", "role")) == [("ada", "editor")]
    assert _lines(project)[0] == "ada handed it over to erin"
    assert sent[-2:] == [
        {"user_id": erin.pk, "role": "owner"},
        {"user_id": ada.pk, "role": "editor"},
    ]
    # Now erin's: ada may no longer share it.
    back = project_hand_over(project=project, by=ada, username="ada")
    assert _refused(back) == "Only the project's owner can hand it over."


def test_a_hand_over_leaves_the_old_owner_s_git_credentials_behind(
    project: Project, erin: User
) -> None:
    """The remote's token is the old owner's: the new owner does not push with it."""
    GitRemote.objects.create(
        project=project, url="https://github.com/ada/site.git", username="ada", token_sealed="x"
    )
    handed = project_hand_over(project=project, by=project.owner, username="erin")
    assert isinstance(handed, Project)
    assert not GitRemote.objects.filter(project=project).exists()


def test_a_hand_over_to_someone_with_a_project_of_that_name_is_refused(
    project: Project, erin: User, sent: list[dict[str, Any]]
) -> None:
    assert isinstance(project_create(owner=erin, name="EMPTY site"), Project)
    result = project_hand_over(project=project, by=project.owner, username="erin")
    assert _refused(result) == (
        "erin already has a project named EMPTY site: rename this one (or ask them to "
        "rename theirs), then hand it over."
    )
    assert Project.objects.get(pk=project.pk).owner == project.owner
    assert not ProjectActivity.objects.exists()
    assert sent == []


def test_a_hand_over_that_would_pass_the_new_owner_s_storage_is_refused(
    settings: Any, project: Project, erin: User, sent: list[dict[str, Any]]
) -> None:
    theirs = project_create(owner=erin, name="Erin's own", starter=True)
    assert isinstance(theirs, Project)
    assert isinstance(project_create(owner=project.owner, name="Big", starter=True), Project)
    big = Project.objects.get(owner=project.owner, name="Big")
    settings.BUILTIT_MAX_USER_STORAGE_BYTES = storage_used(erin.pk) + project_stored(big.pk) - 1
    result = project_hand_over(project=big, by=project.owner, username="erin")
    words = _refused(result)
    assert words.startswith("Big takes ")
    assert "it would pass their storage" in words
    assert Project.objects.get(pk=big.pk).owner == project.owner
    assert sent == []
    settings.BUILTIT_MAX_USER_STORAGE_BYTES += 1  # room for it exactly
    assert isinstance(project_hand_over(project=big, by=project.owner, username="erin"), Project)
    assert Project.objects.get(pk=big.pk).owner == erin


@pytest.mark.parametrize(
    ("username", "words"),
    [
        ("nobody", "No one here has the username nobody."),
        ("ada", "You own this project already: name the person to hand it to."),
    ],
)
def test_a_hand_over_to_no_one_is_refused(project: Project, username: str, words: str) -> None:
    result = project_hand_over(project=project, by=project.owner, username=username)
    assert _refused(result) == words


def test_nothing_is_sent_when_the_change_is_rolled_back(
    project: Project, erin: User, sent: list[dict[str, Any]]
) -> None:
    with transaction.atomic():
        membership_add(project=project, by=project.owner, username="erin", role="viewer")
        transaction.set_rollback(True)
    assert sent == []
    assert not Membership.objects.exists()
