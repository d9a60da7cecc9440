"""A person's projects never share a name (projects.lifecycle): a new, imported,
started or restored project whose name is taken gets the next number, a rename
to a taken name is refused in words, and the database holds the rule for two
tabs at once. Names are compared as a person reads them."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.urls import reverse

from projects.lifecycle import (
    MAX_NAME,
    ProjectRefused,
    project_create,
    project_rename,
    project_restore,
    project_trash,
)
from projects.models import Project


def made(owner: User, name: str) -> Project:
    project = project_create(owner=owner, name=name)
    assert isinstance(project, Project), project
    return project


def said(response: object) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]  # type: ignore[attr-defined]


def test_a_new_project_named_like_another_gets_the_next_free_number(user: User) -> None:
    assert made(user, "Crumb").name == "Crumb"
    assert made(user, "Crumb").name == "Crumb (2)"
    assert made(user, "  crumb ").name == "crumb (3)", "case and spacing aside, the same name"
    # Numbered already: the next number, not "Crumb (2) (2)".
    assert made(user, "Crumb (2)").name == "Crumb (4)"
    assert made(user, "CAFÉ").name == "CAFÉ"
    assert made(user, "café").name == "café (2)", "not only ASCII letters have cases"


def test_the_number_fits_the_longest_name(user: User) -> None:
    name = "x" * MAX_NAME
    made(user, name)
    second = made(user, name)
    assert second.name == "x" * (MAX_NAME - 4) + " (2)"
    assert len(second.name) == MAX_NAME


def test_another_persons_projects_and_the_trash_leave_a_name_free(
    user: User, other_user: User
) -> None:
    made(other_user, "Crumb")
    first = made(user, "Crumb")
    assert first.name == "Crumb"
    assert project_trash(project=first) is None
    assert made(user, "Crumb").name == "Crumb", "a name in the trash is free"


def test_a_project_restored_beside_one_of_its_name_is_numbered(user: User) -> None:
    old = made(user, "Crumb")
    assert project_trash(project=old) is None
    made(user, "Crumb")
    restored = project_restore(project=Project.all_objects.get(pk=old.pk))
    assert restored.name == "Crumb (2)"
    assert Project.objects.get(pk=old.pk).name == "Crumb (2)"


def test_a_rename_to_a_name_in_use_is_refused_in_words_and_changes_nothing(user: User) -> None:
    made(user, "Crumb")
    other = made(user, "Crust")
    refused = project_rename(project=other, name=" CRUMB ")
    assert isinstance(refused, ProjectRefused)
    assert refused.message == "You already have a project named Crumb: choose another name."
    assert Project.objects.get(pk=other.pk).name == "Crust"
    assert other.name == "Crust"


def test_a_project_may_be_renamed_to_its_own_name_in_another_case(user: User) -> None:
    project = made(user, "crumb")
    renamed = project_rename(project=project, name="Crumb")
    assert isinstance(renamed, Project)
    assert Project.objects.get(pk=project.pk).name == "Crumb"


def test_the_database_refuses_two_live_projects_of_one_name(user: User) -> None:
    made(user, "Crumb")
    with pytest.raises(IntegrityError), transaction.atomic():
        Project.objects.create(owner=user, name="crumb")


def test_the_dashboard_says_when_a_new_project_was_numbered(
    user: User, user_client: Client
) -> None:
    made(user, "Crumb")
    response = user_client.post(reverse("project_new"), {"name": "Crumb", "start": "blank"})
    project = Project.objects.get(name="Crumb (2)")
    assert response["Location"] == reverse("workspace", kwargs={"project_id": project.pk})
    assert said(response) == ["You already have a project named Crumb, so this one is Crumb (2)."]


def test_an_import_named_like_a_project_is_numbered_and_says_so(
    user: User, user_client: Client
) -> None:
    made(user, "site")
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as packed:
        packed.writestr("index.html", "<!doctype html><title>Hi</title>")
    archive.name = "site.zip"
    archive.seek(0)
    response = user_client.post(reverse("project_import"), {"archive": archive})
    assert response.status_code == 302
    assert Project.objects.filter(name="site (2)").exists()
    assert said(response) == ["Imported site as site (2) (you already have a project named site)."]


def test_a_dashboard_rename_to_a_name_in_use_says_so(user: User, user_client: Client) -> None:
    made(user, "Crumb")
    other = made(user, "Crust")
    url = reverse("project_rename", kwargs={"project_id": other.pk})
    response = user_client.post(url, {"name": "crumb"})
    assert said(response) == ["You already have a project named Crumb: choose another name."]
    assert Project.objects.get(pk=other.pk).name == "Crust"


def test_a_restore_from_the_trash_page_says_the_new_name(user: User, user_client: Client) -> None:
    old = made(user, "Crumb")
    assert project_trash(project=old) is None
    made(user, "Crumb")
    response = user_client.post(reverse("project_restore", kwargs={"project_id": old.pk}))
    assert said(response) == [
        "Restored Crumb as Crumb (2) (you already have a project named Crumb), "
        "with its files, history and chats."
    ]


def test_two_requests_for_one_site_start_two_projects_of_two_names(
    user: User, user_client: Client
) -> None:
    request = "A website for my bakery called Crumb"
    for _ in range(2):
        assert user_client.post(reverse("project_start"), {"request": request}).status_code == 302
    names = sorted(Project.objects.filter(owner=user).values_list("name", flat=True))
    assert names == ["Crumb bakery", "Crumb bakery (2)"]


@pytest.mark.django_db(transaction=True)
def test_the_migration_numbers_the_names_people_already_share() -> None:
    before = [("projects", "0012_site_password_domain_held_names")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    owner = old.get_model("auth", "User").objects.create(username="old-timer")
    other = old.get_model("auth", "User").objects.create(username="neighbour")
    OldProject = old.get_model("projects", "Project")
    made_then = [
        OldProject.objects.create(owner=owner, name=name)
        for name in ("Crumb", "crumb", "Crumb (2)", "Crumb", "Crust")
    ]
    OldProject.objects.create(owner=other, name="Crumb")

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    names = [Project.objects.get(pk=project.pk).name for project in made_then]
    assert names == ["Crumb", "crumb (3)", "Crumb (2)", "Crumb (4)", "Crust"]
    assert Project.objects.get(owner__username="neighbour").name == "Crumb"
