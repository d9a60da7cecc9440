"""The dashboard and project-level pages: list, create, rename, delete, export, import."""

from __future__ import annotations

import io
import json
import re
import zipfile
from html import unescape

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from projects.lifecycle import project_create
from projects.models import FileRevision, Project, ProjectFile
from projects.services import Author, file_create
from projects.starter import STARTER_FILES


def _zip(entries: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in entries.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def _upload(data: bytes, name: str = "site.zip") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="application/zip")


def _page(response) -> str:
    return unescape(response.content.decode())


def _without_csrf(response) -> str:
    return re.sub(r"[A-Za-z0-9]{64}", "<csrf>", response.content.decode())


@pytest.fixture
def others_project(other_user) -> Project:
    result = project_create(owner=other_user, name="Mallory's secret site", starter=True)
    assert isinstance(result, Project)
    return result


@pytest.fixture
def csrf_client(user) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


# --- listing --------------------------------------------------------------------------


def test_dashboard_lists_the_users_projects_with_their_file_counts(
    user_client, project, starter_project
):
    response = user_client.get("/")
    assert response.status_code == 200
    page = _page(response)
    assert "Empty site" in page
    assert "Starter site" in page
    assert f'id="project-{starter_project.pk}"' in page
    starter_card = page.split(f'id="project-{starter_project.pk}"')[1].split("</li>")[0]
    empty_card = page.split(f'id="project-{project.pk}"')[1].split("</li>")[0]
    assert f'<span class="file-count">{len(STARTER_FILES)} files</span>' in starter_card
    assert '<span class="file-count">0 files</span>' in empty_card


def test_dashboard_lists_the_most_recently_changed_project_first(
    user_client, project, starter_project
):
    page = _page(user_client.get("/"))
    assert page.index("Starter site") < page.index("Empty site")
    user_client.post(f"/projects/{project.pk}/files/new/", {"path": "/index.html"})
    page = _page(user_client.get("/"))
    assert page.index("Empty site") < page.index("Starter site")
    assert '<span class="file-count">1 file</span>' in page


def test_dashboard_never_lists_other_users_projects(user_client, project, others_project):
    page = _page(user_client.get("/"))
    assert "Empty site" in page
    assert "Mallory's secret site" not in page
    assert str(others_project.pk) not in page


def test_dashboard_without_projects_invites_to_create_one(user_client):
    page = _page(user_client.get("/"))
    assert "No projects yet" in page


# --- create ---------------------------------------------------------------------------


def test_creating_a_starter_project_opens_its_workspace_with_three_files(user, user_client):
    response = user_client.post("/projects/new/", {"name": "Portfolio", "start": "starter"})
    created = Project.objects.get(owner=user, name="Portfolio")
    assert response.status_code == 302
    assert response["Location"] == f"/projects/{created.pk}/"
    assert sorted(created.files.values_list("path", flat=True)) == sorted(STARTER_FILES)
    assert user_client.get(response["Location"]).status_code == 200


def test_creating_a_blank_project_opens_an_empty_workspace(user, user_client):
    response = user_client.post(
        "/projects/new/", {"name": "  Blank   page ", "description": "notes", "start": "blank"}
    )
    created = Project.objects.get(owner=user)
    assert response.status_code == 302
    assert response["Location"] == f"/projects/{created.pk}/"
    assert created.name == "Blank page"
    assert created.description == "notes"
    assert created.files.count() == 0


def test_creating_a_project_without_a_name_is_refused_with_a_message(user_client):
    response = user_client.post("/projects/new/", {"name": "   ", "start": "starter"}, follow=True)
    assert response.redirect_chain == [("/", 302)]
    assert "Give the project a name." in _page(response)
    assert Project.objects.count() == 0


def test_creating_a_project_by_get_is_refused(user_client):
    assert user_client.get("/projects/new/?name=Sneaky").status_code == 405
    assert Project.objects.count() == 0


# --- rename ---------------------------------------------------------------------------


def test_renaming_a_project_from_the_dashboard(user_client, project):
    response = user_client.post(f"/projects/{project.pk}/rename/", {"name": "New name"})
    assert response.status_code == 302
    assert response["Location"] == "/"
    project.refresh_from_db()
    assert project.name == "New name"


def test_renaming_from_the_workspace_returns_to_the_workspace(user_client, project):
    response = user_client.post(
        f"/projects/{project.pk}/rename/", {"name": "Renamed", "next": "workspace"}
    )
    assert response["Location"] == f"/projects/{project.pk}/"
    project.refresh_from_db()
    assert project.name == "Renamed"


def test_renaming_to_a_blank_name_is_refused_with_a_message(user_client, project):
    response = user_client.post(f"/projects/{project.pk}/rename/", {"name": ""}, follow=True)
    assert "Give the project a name." in _page(response)
    project.refresh_from_db()
    assert project.name == "Empty site"


# --- delete ---------------------------------------------------------------------------


def test_delete_by_get_shows_a_confirmation_and_deletes_nothing(user_client, starter_project):
    response = user_client.get(f"/projects/{starter_project.pk}/delete/")
    assert response.status_code == 200
    page = _page(response)
    assert "Delete “Starter site”?" in page
    assert f"its {len(STARTER_FILES)} files" in page
    assert '<form method="post"' in page
    assert Project.objects.filter(pk=starter_project.pk).exists()
    assert ProjectFile.objects.filter(project=starter_project).count() == len(STARTER_FILES)


def test_delete_by_post_moves_the_project_to_the_trash_keeping_everything(
    user_client, starter_project
):
    response = user_client.post(f"/projects/{starter_project.pk}/delete/", follow=True)
    assert response.redirect_chain == [("/", 302)]
    assert "Moved Starter site to the trash." in _page(response)
    assert not Project.objects.filter(pk=starter_project.pk).exists()
    assert ProjectFile.objects.filter(project_id=starter_project.pk).count() == len(STARTER_FILES)
    assert FileRevision.objects.filter(project_id=starter_project.pk).count() == len(STARTER_FILES)


def test_dashboard_links_to_the_confirmation_page_not_a_direct_delete(user_client, starter_project):
    page = _page(user_client.get("/"))
    assert f'href="/projects/{starter_project.pk}/delete/"' in page
    assert f'action="/projects/{starter_project.pk}/delete/"' not in page


# --- other people's projects ----------------------------------------------------------


def test_other_users_projects_are_404_for_every_get(user_client, others_project):
    base = f"/projects/{others_project.pk}"
    for url in (
        f"{base}/",
        f"{base}/delete/",
        f"{base}/export.zip",
        f"{base}/files/open/?path=/index.html",
        f"{base}/files/history/?path=/index.html",
        f"{base}/revisions/{others_project.revisions.all()[0].pk}/",
    ):
        response = user_client.get(url)
        assert response.status_code == 404, url
        assert b"Mallory" not in response.content
        assert b"Hello, world" not in response.content


def test_other_users_projects_are_404_for_every_post_and_nothing_changes(
    user_client, others_project
):
    base = f"/projects/{others_project.pk}"
    token = others_project.preview_token
    requests = {
        f"{base}/rename/": {"name": "Pwned"},
        f"{base}/delete/": {},
        f"{base}/preview-token/": {},
        f"{base}/files/save/": {"path": "/index.html", "content": "pwned", "version": "1"},
        f"{base}/files/new/": {"path": "/pwned.html", "content": "pwned"},
        f"{base}/files/rename/": {"path": "/index.html", "new_path": "/x.html", "version": "1"},
        f"{base}/files/delete/": {"path": "/index.html", "version": "1"},
        f"{base}/files/restore/": {"revision": str(others_project.revisions.all()[0].pk)},
    }
    for url, data in requests.items():
        response = user_client.post(url, data)
        assert response.status_code == 404, url
        assert response.status_code != 403
    others_project.refresh_from_db()
    assert others_project.name == "Mallory's secret site"
    assert others_project.preview_token == token
    assert sorted(others_project.files.values_list("path", flat=True)) == sorted(STARTER_FILES)
    assert others_project.files.get(path="/index.html").content == STARTER_FILES["/index.html"]
    assert FileRevision.objects.filter(project=others_project).count() == len(STARTER_FILES)


def test_another_projects_revision_cannot_be_read_or_restored_through_your_own(
    user_client, project, others_project
):
    foreign = others_project.revisions.get(path="/index.html")
    shown = user_client.get(f"/projects/{project.pk}/revisions/{foreign.pk}/")
    assert shown.status_code == 404
    assert b"Hello, world" not in shown.content
    restored = user_client.post(
        f"/projects/{project.pk}/files/restore/", {"revision": str(foreign.pk)}
    )
    assert restored.status_code == 404
    assert project.files.count() == 0


def test_a_project_that_does_not_exist_looks_the_same_as_someone_elses(user_client, others_project):
    missing = user_client.get("/projects/00000000-0000-0000-0000-000000000000/")
    foreign = user_client.get(f"/projects/{others_project.pk}/")
    assert missing.status_code == foreign.status_code == 404
    # The pages differ only in the per-request CSRF token.
    assert _without_csrf(missing) == _without_csrf(foreign)


# --- CSRF -----------------------------------------------------------------------------


def test_posts_without_a_csrf_token_are_refused_and_change_nothing(csrf_client, starter_project):
    base = f"/projects/{starter_project.pk}"
    token = starter_project.preview_token
    requests = {
        "/projects/new/": {"name": "Forged", "start": "starter"},
        "/projects/import/": {"archive": _upload(_zip({"index.html": "<p>forged</p>"}))},
        f"{base}/rename/": {"name": "Forged"},
        f"{base}/delete/": {},
        f"{base}/preview-token/": {},
        f"{base}/files/save/": {"path": "/index.html", "content": "forged", "version": "1"},
        f"{base}/files/new/": {"path": "/forged.html", "content": "forged"},
        f"{base}/files/rename/": {"path": "/index.html", "new_path": "/x.html", "version": "1"},
        f"{base}/files/delete/": {"path": "/index.html", "version": "1"},
        f"{base}/files/restore/": {"revision": str(starter_project.revisions.all()[0].pk)},
        "/accounts/logout/": {},
    }
    for url, data in requests.items():
        assert csrf_client.post(url, data).status_code == 403, url
    assert Project.objects.count() == 1
    starter_project.refresh_from_db()
    assert starter_project.name == "Starter site"
    assert starter_project.preview_token == token
    index = starter_project.files.get(path="/index.html")
    assert (index.content, index.version) == (STARTER_FILES["/index.html"], 1)
    assert starter_project.files.count() == len(STARTER_FILES)
    assert csrf_client.get("/").status_code == 200  # still signed in


def test_posts_with_the_token_the_page_gives_htmx_are_accepted(csrf_client, starter_project):
    page = csrf_client.get(f"/projects/{starter_project.pk}/").content.decode()
    match = re.search(r"hx-headers='(\{[^']+\})'", page)
    assert match
    headers = json.loads(match.group(1))
    response = csrf_client.post(
        f"/projects/{starter_project.pk}/files/save/",
        {"path": "/styles.css", "content": "p{}", "version": "1"},
        headers={**headers, "HX-Request": "true"},
    )
    assert response.status_code == 200
    assert starter_project.files.get(path="/styles.css").content == "p{}"


def test_the_rename_form_carries_a_working_csrf_token(csrf_client, starter_project):
    page = csrf_client.get("/").content.decode()
    form = page.split(f'action="/projects/{starter_project.pk}/rename/"')[1].split("</form>")[0]
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
    assert token
    response = csrf_client.post(
        f"/projects/{starter_project.pk}/rename/",
        {"name": "Legit", "csrfmiddlewaretoken": token.group(1)},
    )
    assert response.status_code == 302
    starter_project.refresh_from_db()
    assert starter_project.name == "Legit"


# --- export ---------------------------------------------------------------------------


def test_export_downloads_a_zip_with_every_file(user_client, starter_project, author):
    file_create(project=starter_project, path="/blog/post.md", content="# Hi\n", author=author)
    response = user_client.get(f"/projects/{starter_project.pk}/export.zip")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"] == 'attachment; filename="starter-site.zip"'
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        assert sorted(archive.namelist()) == [
            "AGENTS.md",
            "blog/post.md",
            "index.html",
            "script.js",
            "styles.css",
        ]
        assert archive.read("index.html").decode() == STARTER_FILES["/index.html"]
        assert archive.read("blog/post.md").decode() == "# Hi\n"


def test_export_of_a_name_without_letters_still_gets_a_file_name(user, user_client):
    project = project_create(owner=user, name="???")
    assert isinstance(project, Project)
    response = user_client.get(f"/projects/{project.pk}/export.zip")
    assert response["Content-Disposition"] == 'attachment; filename="site.zip"'
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        assert archive.namelist() == []


def test_an_exported_zip_imports_back_as_an_identical_project(user, user_client, starter_project):
    file_create(
        project=starter_project, path="/a/b/deep.txt", content="x\r\ny", author=Author.person(user)
    )
    exported = user_client.get(f"/projects/{starter_project.pk}/export.zip").content
    response = user_client.post("/projects/import/", {"archive": _upload(exported, "copy.zip")})
    copy = Project.objects.exclude(pk=starter_project.pk).get()
    assert response["Location"] == f"/projects/{copy.pk}/"
    original = dict(starter_project.files.values_list("path", "content"))
    assert dict(copy.files.values_list("path", "content")) == original


# --- import ---------------------------------------------------------------------------


def test_import_creates_a_project_from_the_zip_and_opens_it(user, user_client):
    data = _zip({"index.html": "<h1>Hi</h1>", "css/site.css": "body{}"})
    response = user_client.post(
        "/projects/import/", {"archive": _upload(data, "my-site.zip")}, follow=True
    )
    created = Project.objects.get(owner=user)
    assert response.redirect_chain == [(f"/projects/{created.pk}/", 302)]
    assert created.name == "my-site"
    assert "Imported my-site." in _page(response)
    assert dict(created.files.values_list("path", "content")) == {
        "/index.html": "<h1>Hi</h1>",
        "/css/site.css": "body{}",
    }


def test_import_uses_the_given_name(user, user_client):
    data = _zip({"index.html": "<h1>Hi</h1>"})
    user_client.post("/projects/import/", {"archive": _upload(data), "name": "Chosen"})
    assert Project.objects.get(owner=user).name == "Chosen"


def test_import_of_a_zip_slip_entry_leaves_it_out_and_says_why(user_client):
    data = _zip({"index.html": "<h1>Hi</h1>", "../../evil.html": "<p>evil</p>"})
    response = user_client.post("/projects/import/", {"archive": _upload(data)}, follow=True)
    page = _page(response)
    assert "Left out 1 file (named as in the ZIP):" in page
    assert "'.' and '..' are not allowed" in page
    assert list(ProjectFile.objects.values_list("path", flat=True)) == ["/index.html"]


def test_import_of_an_archive_whose_every_entry_climbs_out_is_refused(user_client):
    data = _zip({"../index.html": "<h1>escaped</h1>", "../about.html": "<p>escaped</p>"})
    response = user_client.post("/projects/import/", {"archive": _upload(data)}, follow=True)
    assert "'.' and '..' are not allowed" in _page(response)
    assert Project.objects.count() == 0


def test_import_of_an_absolute_entry_leaves_it_out(user_client):
    data = _zip({"index.html": "<h1>Hi</h1>", "/etc/passwd.txt": "root"})
    page = _page(user_client.post("/projects/import/", {"archive": _upload(data)}, follow=True))
    assert "absolute paths are not allowed" in page
    assert list(ProjectFile.objects.values_list("path", flat=True)) == ["/index.html"]


def test_import_of_something_that_is_not_a_zip_shows_the_error_and_creates_nothing(
    user_client,
):
    upload = SimpleUploadedFile("site.zip", b"this is not a zip at all", "application/zip")
    response = user_client.post("/projects/import/", {"archive": upload}, follow=True)
    assert response.redirect_chain == [("/", 302)]
    assert "That file is not a readable ZIP archive." in _page(response)
    assert Project.objects.count() == 0


def test_import_without_a_file_asks_for_one(user_client):
    response = user_client.post("/projects/import/", {}, follow=True)
    assert "Choose a ZIP file to import." in _page(response)
    assert Project.objects.count() == 0


def test_import_of_a_file_that_is_not_text_leaves_it_out_with_its_name(user_client):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("index.html", "<h1>Hi</h1>")
        archive.writestr("data.json", b"\xff\xfe\x00binary")
    upload = _upload(buffer.getvalue())
    page = _page(user_client.post("/projects/import/", {"archive": upload}, follow=True))
    assert "data.json is not UTF-8 text." in page
    assert list(ProjectFile.objects.values_list("path", flat=True)) == ["/index.html"]


def test_import_over_the_size_limit_is_refused_before_opening(user_client, settings):
    settings.BUILTIT_MAX_IMPORT_BYTES = 100
    data = _zip({"index.html": "x" * 500})
    page = _page(user_client.post("/projects/import/", {"archive": _upload(data)}, follow=True))
    assert "the largest accepted is 100 bytes" in page
    assert Project.objects.count() == 0


def test_an_import_says_where_a_top_folder_went_and_its_list_can_be_closed(user_client):
    data = _zip({"site/index.html": "<h1>Hi</h1>", "site/run.php": "x", "site/css/a.php": "x"})
    page = _page(user_client.post("/projects/import/", {"archive": _upload(data)}, follow=True))

    assert "inside the folder site/, so that folder's files are at the project's top level" in page
    assert "Left out 2 files (named as in the ZIP):" in page
    assert re.search(r'class="message import detail warning">site/css/a\.php: ', page)
    assert re.search(r'class="message import detail warning">site/run\.php: ', page)
    assert 'data-action="close-messages" aria-label="Close these messages"' in page
    assert list(ProjectFile.objects.values_list("path", flat=True)) == ["/index.html"]
