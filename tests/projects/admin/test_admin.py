"""The Django admin as staff use it: browse everything, write files through the file service."""

from __future__ import annotations

from html import unescape

import pytest
from django.contrib.auth.models import User
from django.test import Client

from projects.files.results import FileWrite
from projects.history.undo import project_restore
from projects.models import FileRevision, Project, ProjectFile, Reversal
from projects.services import Author, file_update
from projects.starter import STARTER_FILES
from tests.conftest import SITES_HOST

PROJECTS = "/admin/projects/project/"
FILES = "/admin/projects/projectfile/"
REVISIONS = "/admin/projects/filerevision/"


@pytest.fixture
def admin_user(db) -> User:
    return User.objects.create_superuser("root", "root@example.com", "staff passphrase")


@pytest.fixture
def admin_client(admin_user) -> Client:
    client = Client()
    client.force_login(admin_user)
    return client


def _page(response) -> str:
    return unescape(response.content.decode())


def _add_file(client: Client, project: Project, path: str, content: str):
    return client.post(
        f"{FILES}add/", {"project": str(project.pk), "path": path, "content": content}
    )


def _change_file(client: Client, record: ProjectFile, **changes: str):
    data = {"project": str(record.project_id), "path": record.path, "content": record.content}
    data.update(changes)
    return client.post(f"{FILES}{record.pk}/change/", data)


# --- browsing -------------------------------------------------------------------------


def test_project_pages_render(admin_client, starter_project):
    pk = starter_project.pk
    for url in (
        PROJECTS,
        f"{PROJECTS}?q=Starter",
        f"{PROJECTS}?q=ada",
        f"{PROJECTS}?created_at__gte=2000-01-01+00%3A00%3A00%2B00%3A00",
        f"{PROJECTS}?o=3",
        f"{PROJECTS}add/",
        f"{PROJECTS}{pk}/change/",
        f"{PROJECTS}{pk}/history/",
    ):
        assert admin_client.get(url).status_code == 200, url


def test_project_list_shows_file_count_and_finds_by_owner(admin_client, starter_project, project):
    found = _page(admin_client.get(f"{PROJECTS}?q=ada"))
    assert "Starter site" in found
    assert "Empty site" in found
    assert f'<td class="field-file_count">{len(STARTER_FILES)}</td>' in found
    nothing = _page(admin_client.get(f"{PROJECTS}?q=nobody-has-this-name"))
    assert "Starter site" not in nothing
    assert "0 projects" in nothing


def test_project_change_page_links_to_its_preview(admin_client, starter_project):
    page = _page(admin_client.get(f"{PROJECTS}{starter_project.pk}/change/"))
    assert f'href="http://{SITES_HOST}/preview/{starter_project.preview_token}/"' in page


def test_file_pages_render(admin_client, starter_project):
    record = starter_project.files.get(path="/index.html")
    for url in (
        FILES,
        f"{FILES}?q=index",
        f"{FILES}?q=Starter",
        f"{FILES}?updated_at__gte=2000-01-01+00%3A00%3A00%2B00%3A00",
        f"{FILES}add/",
        f"{FILES}{record.pk}/change/",
        f"{FILES}{record.pk}/delete/",
    ):
        assert admin_client.get(url).status_code == 200, url


def test_file_search_finds_by_path(admin_client, starter_project):
    page = _page(admin_client.get(f"{FILES}?q=styles"))
    assert "/styles.css" in page
    assert "/script.js" not in page


def test_revision_pages_render(admin_client, starter_project):
    revision = FileRevision.objects.filter(project=starter_project)[0]
    for url in (
        REVISIONS,
        f"{REVISIONS}?q=index",
        f"{REVISIONS}?action__exact=create",
        f"{REVISIONS}?actor__exact=user",
        f"{REVISIONS}?created_at__gte=2000-01-01+00%3A00%3A00%2B00%3A00",
        f"{REVISIONS}?created_at__year={revision.created_at.year}",
        f"{REVISIONS}{revision.pk}/change/",
    ):
        assert admin_client.get(url).status_code == 200, url


def test_revision_filters_select_the_right_rows(admin_client, starter_project):
    _change_file(admin_client, starter_project.files.get(path="/script.js"), content="go()")
    updates = _page(admin_client.get(f"{REVISIONS}?action__exact=update"))
    creates = _page(admin_client.get(f"{REVISIONS}?action__exact=create"))
    assert "1 file revision" in updates
    assert f"{len(STARTER_FILES)} file revisions" in creates


def test_admin_pages_are_refused_to_a_signed_in_non_staff_user(user_client, starter_project):
    for url in (PROJECTS, FILES, REVISIONS):
        response = user_client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/admin/login/")


# --- writing files --------------------------------------------------------------------


def test_adding_a_file_with_a_bad_path_shows_the_rule_and_creates_nothing(
    admin_client, starter_project
):
    response = _add_file(admin_client, starter_project, "../escape.html", "<p>x</p>")
    assert response.status_code == 200
    assert "'.' and '..' are not allowed" in _page(response)
    assert starter_project.files.count() == len(STARTER_FILES)
    assert FileRevision.objects.filter(project=starter_project).count() == len(STARTER_FILES)


def test_adding_a_file_with_a_refused_extension_lists_the_allowed_ones(admin_client, project):
    response = _add_file(admin_client, project, "/photo.bmp", "x")
    page = _page(response)
    assert "'.bmp' files are not allowed" in page
    assert ".html, .htm, .css" in page
    assert project.files.count() == 0


def test_adding_a_valid_file_creates_it_and_a_revision(admin_client, admin_user, project):
    response = _add_file(admin_client, project, "pages/about.html", "<h1>About</h1>")
    assert response.status_code == 302
    record = ProjectFile.objects.get(project=project)
    assert (record.path, record.content, record.version) == (
        "/pages/about.html",
        "<h1>About</h1>",
        1,
    )
    assert record.size == len(b"<h1>About</h1>")
    revision = FileRevision.objects.get(project=project)
    assert (revision.action, revision.path, revision.actor, revision.user) == (
        "create",
        "/pages/about.html",
        "user",
        admin_user,
    )
    assert revision.content_after == "<h1>About</h1>"


def test_save_and_continue_after_adding_opens_the_stored_file(admin_client, project):
    response = admin_client.post(
        f"{FILES}add/",
        {"project": str(project.pk), "path": "/a.txt", "content": "a", "_continue": "1"},
    )
    record = ProjectFile.objects.get(project=project, path="/a.txt")
    assert response.status_code == 302
    assert response["Location"] == f"{FILES}{record.pk}/change/"
    assert admin_client.get(response["Location"]).status_code == 200


def test_adding_a_case_only_duplicate_is_refused_with_a_clear_message(
    admin_client, starter_project
):
    response = _add_file(admin_client, starter_project, "/Index.html", "<p>dup</p>")
    assert response.status_code == 200
    assert "/Index.html differs only in letter case from the existing /index.html" in _page(
        response
    )
    assert starter_project.files.count() == len(STARTER_FILES)
    assert starter_project.files.get(path="/index.html").content == STARTER_FILES["/index.html"]


def test_adding_an_exact_duplicate_is_refused(admin_client, starter_project):
    response = _add_file(admin_client, starter_project, "/index.html", "<p>dup</p>")
    assert response.status_code == 200
    assert "/index.html already exists" in _page(response)
    assert starter_project.files.get(path="/index.html").content == STARTER_FILES["/index.html"]


def test_adding_a_file_over_the_size_limit_is_refused(admin_client, project, settings):
    settings.BUILTIT_MAX_FILE_BYTES = 10
    response = _add_file(admin_client, project, "/big.txt", "x" * 11)
    assert "the limit is 10 bytes per file" in _page(response)
    assert project.files.count() == 0


def test_editing_content_in_the_admin_records_an_update(admin_client, admin_user, starter_project):
    record = starter_project.files.get(path="/styles.css")
    response = _change_file(admin_client, record, content="body { margin: 0; }")
    assert response.status_code == 302
    record.refresh_from_db()
    assert (record.content, record.version) == ("body { margin: 0; }", 2)
    revision = FileRevision.objects.filter(project=starter_project)[0]
    assert (revision.action, revision.path, revision.user) == ("update", "/styles.css", admin_user)
    assert revision.content_before == STARTER_FILES["/styles.css"]
    assert revision.content_after == "body { margin: 0; }"
    assert revision.version_after == 2


def test_renaming_in_the_admin_records_a_rename(admin_client, admin_user, project):
    # No surrounding whitespace in the content, so only the rename is under test here.
    assert _add_file(admin_client, project, "/script.js", "go();").status_code == 302
    record = project.files.get(path="/script.js")
    response = _change_file(admin_client, record, path="js/app.js")
    assert response.status_code == 302
    record.refresh_from_db()
    assert (record.path, record.content, record.version) == ("/js/app.js", "go();", 2)
    revision = FileRevision.objects.filter(project=project)[0]
    assert (revision.action, revision.old_path, revision.path) == (
        "rename",
        "/script.js",
        "/js/app.js",
    )


def test_renaming_in_the_admin_onto_a_case_twin_is_refused(admin_client, starter_project):
    record = starter_project.files.get(path="/script.js")
    response = _change_file(admin_client, record, path="/Styles.css")
    assert response.status_code == 200
    assert "differs only in letter case from the existing /styles.css" in _page(response)
    record.refresh_from_db()
    assert (record.path, record.version) == ("/script.js", 1)


def test_saving_the_admin_form_unchanged_leaves_the_file_unchanged(admin_client, starter_project):
    record = starter_project.files.get(path="/index.html")
    assert record.content.endswith("</html>\n")
    response = _change_file(admin_client, record)
    assert response.status_code == 302
    record.refresh_from_db()
    assert (record.content, record.version) == (STARTER_FILES["/index.html"], 1)
    assert FileRevision.objects.filter(project=starter_project).count() == len(STARTER_FILES)


def test_moving_a_file_to_another_project_in_the_admin_is_not_a_server_error(
    admin_client, starter_project, project
):
    record = starter_project.files.get(path="/script.js")
    response = admin_client.post(
        f"{FILES}{record.pk}/change/",
        {"project": str(project.pk), "path": record.path, "content": record.content},
    )
    assert response.status_code in (200, 302)
    record.refresh_from_db()
    moved = record.project_id == project.pk
    # Either moved (with a revision in the new project) or refused with the file untouched.
    assert moved == FileRevision.objects.filter(project=project).exists()


def test_deleting_a_file_in_the_admin_leaves_a_delete_revision(admin_client, starter_project):
    record = starter_project.files.get(path="/script.js")
    confirm = admin_client.get(f"{FILES}{record.pk}/delete/")
    assert confirm.status_code == 200
    response = admin_client.post(f"{FILES}{record.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not starter_project.files.filter(path="/script.js").exists()
    revision = FileRevision.objects.filter(project=starter_project)[0]
    assert (revision.action, revision.path, revision.content_before, revision.content_after) == (
        "delete",
        "/script.js",
        STARTER_FILES["/script.js"],
        None,
    )


def test_bulk_deleting_files_in_the_admin_leaves_a_revision_for_each(admin_client, starter_project):
    pks = list(starter_project.files.values_list("pk", flat=True))
    response = admin_client.post(
        FILES, {"action": "delete_selected", "_selected_action": pks, "post": "yes"}
    )
    assert response.status_code == 302
    assert starter_project.files.count() == 0
    deleted = FileRevision.objects.filter(project=starter_project, action="delete")
    assert sorted(deleted.values_list("path", flat=True)) == sorted(STARTER_FILES)


# --- revisions are read-only ----------------------------------------------------------------


def test_revisions_cannot_be_added(admin_client, starter_project):
    assert admin_client.get(f"{REVISIONS}add/").status_code == 403
    response = admin_client.post(
        f"{REVISIONS}add/",
        {
            "project": str(starter_project.pk),
            "action": "create",
            "path": "/x.html",
            "actor": "user",
        },
    )
    assert response.status_code == 403
    assert FileRevision.objects.count() == len(STARTER_FILES)


def test_revisions_cannot_be_changed(admin_client, starter_project):
    revision = FileRevision.objects.filter(project=starter_project)[0]
    page = _page(admin_client.get(f"{REVISIONS}{revision.pk}/change/"))
    assert 'name="_save"' not in page
    response = admin_client.post(
        f"{REVISIONS}{revision.pk}/change/",
        {
            "project": str(starter_project.pk),
            "action": "delete",
            "path": "/x.html",
            "actor": "user",
        },
    )
    assert response.status_code == 403
    revision.refresh_from_db()
    assert revision.action == "create"


def test_revisions_cannot_be_deleted(admin_client, starter_project):
    revision = FileRevision.objects.filter(project=starter_project)[0]
    assert admin_client.get(f"{REVISIONS}{revision.pk}/delete/").status_code == 403
    assert (
        admin_client.post(f"{REVISIONS}{revision.pk}/delete/", {"post": "yes"}).status_code == 403
    )
    bulk = admin_client.post(
        REVISIONS, {"action": "delete_selected", "_selected_action": [revision.pk], "post": "yes"}
    )
    assert bulk.status_code in (200, 302)
    assert FileRevision.objects.filter(pk=revision.pk).exists()


# --- project actions ------------------------------------------------------------------


def test_rotate_preview_token_action_changes_the_selected_tokens_only(
    admin_client, starter_project, project
):
    old_selected, old_other = starter_project.preview_token, project.preview_token
    response = admin_client.post(
        PROJECTS,
        {"action": "rotate_preview_tokens", "_selected_action": [str(starter_project.pk)]},
        follow=True,
    )
    assert response.status_code == 200
    assert "Rotated 1 preview link(s)." in _page(response)
    starter_project.refresh_from_db()
    project.refresh_from_db()
    assert starter_project.preview_token != old_selected
    assert project.preview_token == old_other
    assert (
        Client(HTTP_HOST=SITES_HOST).get(f"/preview/{old_selected}/").status_code == 410
    )  # replaced, and says so
    assert (
        Client(HTTP_HOST=SITES_HOST).get(f"/preview/{starter_project.preview_token}/").status_code
        == 200
    )


def test_an_admin_edit_over_a_newer_change_is_refused(admin_client, user, starter_project):
    record = starter_project.files.get(path="/styles.css")
    opened_at = record.version
    newer = file_update(
        project=starter_project,
        path="/styles.css",
        content="/* the owner's newer work */\n",
        author=Author.person(user),
    )
    assert isinstance(newer, FileWrite)

    response = _change_file(
        admin_client, record, content="body { color: red; }", loaded_version=str(opened_at)
    )

    assert response.status_code == 200
    assert "changed since it was opened" in response.content.decode()
    record.refresh_from_db()
    assert record.content == "/* the owner's newer work */\n"


def test_an_admin_edit_keeps_the_files_line_endings(admin_client, starter_project):
    record = starter_project.files.get(path="/script.js")
    # A browser submits a textarea's lines with CRLF.
    typed = record.content.replace("\n", "\r\n") + "// more\r\n"

    response = _change_file(admin_client, record, content=typed, loaded_version=str(record.version))

    assert response.status_code == 302
    record.refresh_from_db()
    assert "\r" not in record.content
    assert record.content.endswith("// more\n")


def test_a_revisions_page_shows_its_diff_as_the_workspace_does(admin_client, starter_project):
    _change_file(
        admin_client, starter_project.files.get(path="/script.js"), content="go()\n// <b>\n"
    )
    revision = FileRevision.objects.get(project=starter_project, action="update")
    raw = admin_client.get(f"{REVISIONS}{revision.pk}/change/").content.decode()
    assert 'class="diff diff-inline"' in raw
    assert 'class="code added"' in raw
    assert "&lt;b&gt;" in raw
    assert "<b>" not in raw, "the file's text is escaped"
    assert "builtit/diff.css" in raw


def test_undos_and_restores_are_listed_for_staff_to_read(admin_client, starter_project, user):
    _change_file(admin_client, starter_project.files.get(path="/script.js"), content="go()\n")
    first = FileRevision.objects.filter(project=starter_project).order_by("pk").last()
    assert first is not None
    restored = project_restore(
        project=starter_project, point=first.pk - 1, user=user, summary="Put script.js back."
    )
    assert isinstance(restored, Reversal)
    listing = _page(admin_client.get("/admin/projects/reversal/"))
    assert "Put script.js back." in listing
    assert admin_client.get(f"/admin/projects/reversal/{restored.pk}/change/").status_code == 200


def test_staff_can_delete_a_person_whose_projects_have_history(admin_client, starter_project, user):
    """Revisions and undos are read-only on their own pages; a person's deletion
    takes theirs along (the admin refused it: no permission to delete them)."""
    _change_file(admin_client, starter_project.files.get(path="/script.js"), content="go()\n")
    first = FileRevision.objects.filter(project=starter_project).order_by("pk").first()
    assert first is not None
    restored = project_restore(project=starter_project, point=first.pk, user=user, summary="Back.")
    assert isinstance(restored, Reversal)
    assert admin_client.get(f"/admin/projects/reversal/{restored.pk}/delete/").status_code == 403

    owner = starter_project.owner
    url = f"/admin/auth/user/{owner.pk}/delete/"
    assert "Are you sure" in _page(admin_client.get(url))
    assert admin_client.post(url, {"post": "yes"}).status_code == 302
    assert not User.objects.filter(pk=owner.pk).exists()
    assert not FileRevision.objects.filter(project_id=starter_project.pk).exists()


def test_the_admin_is_branded(admin_client):
    page = _page(admin_client.get("/admin/"))
    assert "<title>Projects, people, chats and limits | Built-It admin</title>" in page
    assert "Built-It administration" in page
