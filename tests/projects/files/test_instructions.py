"""The owner's instructions to the assistant (/AGENTS.md, issue 30) are the
owner's file but not part of the site: the starter has one, the workspace shows
it, the ZIP export keeps it (tests/projects/test_archive.py); the preview, a
publish and the site check leave it out."""

from __future__ import annotations

import pytest
from django.test import Client

from projects.files.instructions import is_instructions
from projects.files.results import FileWrite
from projects.models import Project
from projects.publish.selectors import site_changes, site_files_for_check
from projects.publish.services import PublishRefused, site_publish
from projects.selectors import instructions_text
from projects.services import Author, file_create, file_delete, file_update
from projects.starter import STARTER_FILES

pytestmark = pytest.mark.django_db


def _update(project: Project, path: str, content: str) -> None:
    result = file_update(
        project=project, path=path, content=content, author=Author.person(project.owner)
    )
    assert isinstance(result, FileWrite), result


@pytest.mark.parametrize("path", ["/AGENTS.md", "/agents.md", "/Agents.MD"])
def test_the_instructions_are_agents_md_at_the_root_in_any_letter_case(path: str) -> None:
    assert is_instructions(path)


@pytest.mark.parametrize("path", ["/docs/AGENTS.md", "/AGENTS.txt", "/README.md"])
def test_no_other_file_is_the_instructions(path: str) -> None:
    assert not is_instructions(path)


def test_a_starter_project_begins_with_short_instructions_to_edit(starter_project) -> None:
    text = instructions_text(starter_project)
    assert text == STARTER_FILES["/AGENTS.md"]
    assert len(text) < 1_000
    for topic in ("Language:", "Tone:", "Accessibility:"):
        assert topic in text


def test_a_blank_project_has_no_instructions(project) -> None:
    assert instructions_text(project) is None


def test_the_preview_answers_404_for_the_instructions(starter_project, sites_client) -> None:
    base = f"/preview/{starter_project.preview_token}/"
    assert sites_client.get(base + "index.html").status_code == 200
    for path in ("AGENTS.md", "agents.md"):
        response = sites_client.get(base + path)
        assert response.status_code == 404
        assert "no file at this address" in response.content.decode()


def test_a_publish_leaves_the_instructions_out(starter_project) -> None:
    version = site_publish(project=starter_project, user=starter_project.owner, name="bakery")
    assert not isinstance(version, PublishRefused), version

    published = sorted(version.files.values_list("path", flat=True))
    assert published == ["/index.html", "/script.js", "/styles.css"]
    assert version.file_count == 3
    # Changing them changes nothing that is published.
    _update(starter_project, "/AGENTS.md", "Be brief.\n")
    changes = site_changes(version.site)
    assert changes is not None
    assert changes.total == 0


def test_instructions_alone_are_nothing_to_publish(project) -> None:
    made = file_create(
        project=project,
        path="/AGENTS.md",
        content="Be brief.\n",
        author=Author.person(project.owner),
    )
    assert isinstance(made, FileWrite)

    refused = site_publish(project=project, user=project.owner, name="empty")

    assert isinstance(refused, PublishRefused)
    assert "no files" in refused.message


def test_the_site_check_does_not_read_the_instructions(starter_project) -> None:
    # What a template leaves would be found in any other .md file.
    _update(starter_project, "/AGENTS.md", "Sign as [your name here]. Lorem ipsum.\n")

    assert sorted(site_files_for_check(starter_project)) == [
        "/index.html",
        "/script.js",
        "/styles.css",
    ]


def test_the_workspace_shows_the_instructions_with_a_way_to_edit_them(
    user_client: Client, starter_project
) -> None:
    html = user_client.get(f"/projects/{starter_project.pk}/").content.decode()

    assert 'id="instructions-excerpt"' in html
    assert "Language: write the site&#x27;s text in English." in html
    assert 'data-action="open-file" data-path="/AGENTS.md"' in html


def test_the_workspace_says_when_the_instructions_are_too_long_to_be_read_whole(
    user_client: Client, starter_project
) -> None:
    url = f"/projects/{starter_project.pk}/"
    assert "too long to be read whole" not in user_client.get(url).content.decode()
    _update(starter_project, "/AGENTS.md", "Use a playful tone.\n" + "x" * 12_000)

    html = user_client.get(url).content.decode()

    assert "too long to be read whole" in html
    assert "reads its first 8,000 characters, and not the last 4,020" in html


def test_the_workspace_offers_to_add_instructions_when_there_are_none(
    user_client: Client, starter_project
) -> None:
    deleted = file_delete(
        project=starter_project, path="/AGENTS.md", author=Author.person(starter_project.owner)
    )
    assert isinstance(deleted, FileWrite)

    html = user_client.get(f"/projects/{starter_project.pk}/").content.decode()

    assert 'id="instructions-excerpt"' not in html
    assert '<input type="hidden" name="path" value="AGENTS.md">' in html
    assert "Add AGENTS.md" in html
