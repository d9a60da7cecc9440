"""The workspace page and its HTMX endpoints: open, save, new, rename, delete, preview link."""

from __future__ import annotations

import json
import re
from html import unescape
from html.parser import HTMLParser
from urllib.parse import urlencode

import pytest
from django.test import Client

from projects.files.results import FileWrite
from projects.models import FileRevision, Membership, Project, ProjectFile
from projects.services import Author, file_create
from projects.starter import STARTER_FILES
from tests.conftest import SITES_HOST

HOSTILE = "<p>hi</p></textarea><b>x</b></script><script>alert(1)</script>"


class _Elements(HTMLParser):
    """Every start tag with its attributes, in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _elements(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Elements()
    parser.feed(html)
    return parser.tags


def _by_id(html: str, element_id: str) -> tuple[str, dict[str, str | None]]:
    found = [(tag, attrs) for tag, attrs in _elements(html) if attrs.get("id") == element_id]
    assert len(found) == 1, f"expected one #{element_id}, found {len(found)}"
    return found[0]


def _json_script(html: str, element_id: str) -> str:
    match = re.search(
        rf'<script id="{element_id}" type="application/json">(.*?)</script>', html, re.DOTALL
    )
    assert match, f"no json_script #{element_id}"
    return match.group(1)


def _url(project: Project, name: str) -> str:
    return f"/projects/{project.pk}/files/{name}/"


def _trigger(response) -> object:
    return json.loads(response["HX-Trigger"])


def _version(project: Project, path: str) -> int:
    return ProjectFile.objects.get(project=project, path=path).version


@pytest.fixture
def nested_project(starter_project: Project, author: Author) -> Project:
    for path in ("/blog/2024/first-post.html", "/blog/index.html", "/assets/data.json"):
        result = file_create(project=starter_project, path=path, content="{}", author=author)
        assert isinstance(result, FileWrite), result
    return starter_project


@pytest.fixture
def htmx_client(user) -> Client:
    client = Client(headers={"HX-Request": "true"})
    client.force_login(user)
    return client


# --- the page -------------------------------------------------------------------------


def test_workspace_renders_the_tree_with_nested_folders(user_client, nested_project):
    response = user_client.get(f"/projects/{nested_project.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    tree = html.split('id="file-tree"')[1].split("</nav>")[0]
    summaries = re.findall(r"<summary[^>]*>(.*?)</summary>", tree, re.DOTALL)
    folders = [re.sub(r"<[^>]+>|▸", "", summary).strip() for summary in summaries]
    assert folders == ["assets", "blog", "2024"]
    buttons = [attrs["data-path"] for tag, attrs in _elements(tree) if "data-path" in attrs]
    assert buttons == [
        "/assets/data.json",
        "/blog/2024/first-post.html",
        "/blog/index.html",
        "/AGENTS.md",
        "/index.html",
        "/script.js",
        "/styles.css",
    ]
    # The deep file sits inside the 2024 folder, which sits inside blog.
    blog = tree.split("blog</summary>")[1]
    assert blog.index("2024</summary>") < blog.index('data-path="/blog/2024/first-post.html"')


def test_every_htmx_target_the_endpoints_use_exists_on_the_page(user_client, starter_project):
    html = user_client.get(f"/projects/{starter_project.pk}/").content.decode()
    for element_id in (
        "editor-pane",
        "editor-status",
        "new-file-error",
        "file-tree",
        "preview-pane",
    ):
        _by_id(html, element_id)


def test_workspace_opens_index_html_by_default(user_client, nested_project):
    html = user_client.get(f"/projects/{nested_project.pk}/").content.decode()
    _, form = _by_id(html, "editor-form")
    assert form["data-path"] == "/index.html"
    assert form["data-mode"] == "html"
    assert json.loads(_json_script(html, "editor-content")) == STARTER_FILES["/index.html"]
    _, version = _by_id(html, "editor-version")
    assert version["value"] == "1"


def test_workspace_without_index_opens_the_first_file(user_client, project, author):
    file_create(project=project, path="/b.css", content="b{}", author=author)
    file_create(project=project, path="/a.js", content="a()", author=author)
    html = user_client.get(f"/projects/{project.pk}/").content.decode()
    _, form = _by_id(html, "editor-form")
    assert form["data-path"] == "/a.js"
    assert form["data-mode"] == "javascript"


def test_workspace_opens_a_file_of_the_site_never_the_instructions(user_client, project, author):
    file_create(project=project, path="/AGENTS.md", content="Be brief.", author=author)
    html = user_client.get(f"/projects/{project.pk}/").content.decode()
    assert 'id="editor-form"' not in html, "only the instructions: nothing opened"
    file_create(project=project, path="/z.css", content="z{}", author=author)
    html = user_client.get(f"/projects/{project.pk}/").content.decode()
    _, form = _by_id(html, "editor-form")
    assert form["data-path"] == "/z.css"


def test_empty_workspace_shows_no_editor_and_an_empty_tree(user_client, project):
    html = user_client.get(f"/projects/{project.pk}/").content.decode()
    assert 'id="editor-form"' not in html
    assert "Select a file on the left, or add a new one." in html
    assert "No files yet." in html


def test_file_content_is_embedded_as_json_that_cannot_close_the_script(
    user_client, project, author
):
    file_create(project=project, path="/index.html", content=HOSTILE, author=author)
    html = user_client.get(f"/projects/{project.pk}/").content.decode()
    assert "<script>alert(1)" not in html
    assert "</script><script>" not in html
    assert "</textarea><b>" not in html
    embedded = _json_script(html, "editor-content")
    assert "\\u003C/script\\u003E\\u003Cscript\\u003Ealert(1)" in embedded
    assert json.loads(embedded) == HOSTILE
    # The plain-text fallback is escaped too, and round-trips to the same text.
    fallback = re.search(r'id="editor-fallback"[^>]*>(.*?)</textarea>', html, re.DOTALL)
    assert fallback
    assert unescape(fallback.group(1)) == HOSTILE
    scripts = [attrs for tag, attrs in _elements(html) if tag == "script"]
    assert all(attrs.get("src") or attrs.get("type") == "application/json" for attrs in scripts)


def test_a_file_name_with_markup_never_reaches_the_page_raw(user_client, project):
    project.name = "<img src=x onerror=alert(1)>"
    project.save()
    html = user_client.get(f"/projects/{project.pk}/").content.decode()
    assert "<img src=x" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_preview_iframe_is_sandboxed_without_same_origin(user_client, starter_project):
    html = user_client.get(f"/projects/{starter_project.pk}/").content.decode()
    tag, frame = _by_id(html, "preview-frame")
    assert tag == "iframe"
    assert frame["src"] == f"http://{SITES_HOST}/preview/{starter_project.preview_token}/"
    sandbox = frame["sandbox"]
    assert sandbox is not None
    assert "allow-scripts" in sandbox.split()
    assert "allow-same-origin" not in sandbox
    assert frame["referrerpolicy"] == "no-referrer"


# --- open -----------------------------------------------------------------------------


def test_file_open_returns_the_editor_for_that_file(htmx_client, starter_project):
    response = htmx_client.get(_url(starter_project, "open"), {"path": "/styles.css"})
    assert response.status_code == 200
    html = response.content.decode()
    _, form = _by_id(html, "editor-form")
    assert (form["data-path"], form["data-mode"]) == ("/styles.css", "css")
    assert json.loads(_json_script(html, "editor-content")) == STARTER_FILES["/styles.css"]


def test_file_open_of_a_missing_path_is_a_404_fragment_retargeted(htmx_client, starter_project):
    response = htmx_client.get(_url(starter_project, "open"), {"path": "/nope.html"})
    assert response.status_code == 404
    assert response["HX-Retarget"] == "#editor-status"
    assert response["HX-Reswap"] == "innerHTML"
    html = response.content.decode()
    assert "File /nope.html does not exist." in unescape(html)
    assert "<html" not in html  # a fragment, not the site's 404 page


def test_file_open_of_an_invalid_path_is_a_422_fragment(htmx_client, starter_project):
    response = htmx_client.get(_url(starter_project, "open"), {"path": "../secret.html"})
    assert response.status_code == 422
    assert response["HX-Retarget"] == "#editor-status"
    assert "'.' and '..' are not allowed" in unescape(response.content.decode())


# --- save -----------------------------------------------------------------------------


def test_file_save_with_the_right_version_saves_and_refreshes_tree_and_preview(
    htmx_client, starter_project
):
    response = htmx_client.post(
        _url(starter_project, "save"),
        {"path": "/styles.css", "content": "body { color: red; }\n", "version": "1"},
    )
    assert response.status_code == 200
    record = ProjectFile.objects.get(project=starter_project, path="/styles.css")
    assert (record.content, record.version) == ("body { color: red; }\n", 2)
    assert _trigger(response) == {"filesChanged": {"paths": ["/styles.css"]}}
    html = response.content.decode()
    assert "Saved · version 2" in html
    tag, tree = _by_id(html, "file-tree")
    assert (tag, tree["hx-swap-oob"]) == ("nav", "true")
    _, version = _by_id(html, "editor-version")
    assert (version["value"], version["hx-swap-oob"]) == ("2", "true")
    revision = FileRevision.objects.filter(project=starter_project)[0]
    assert (revision.action, revision.path, revision.version_after) == ("update", "/styles.css", 2)


def test_file_save_with_a_stale_version_is_a_409_and_keeps_the_saved_content(
    htmx_client, starter_project
):
    first = {"path": "/styles.css", "content": "a {}", "version": "1"}
    assert htmx_client.post(_url(starter_project, "save"), first).status_code == 200
    stale = {"path": "/styles.css", "content": "b {}", "version": "1"}
    response = htmx_client.post(_url(starter_project, "save"), stale)
    assert response.status_code == 409
    assert response["HX-Retarget"] == "#editor-status"
    assert "HX-Trigger" not in response
    message = unescape(response.content.decode())
    assert "/styles.css changed since it was opened" in message
    assert "you have version 1, it is now version 2" in message
    assert 'data-action="overwrite" data-version="2"' in message
    record = ProjectFile.objects.get(project=starter_project, path="/styles.css")
    assert (record.content, record.version) == ("a {}", 2)


def test_a_save_over_another_persons_newer_save_is_refused_in_words(
    htmx_client, starter_project, other_user
):
    # Two people with the file open at version 1: the owner saves first; the
    # editor's save, based on the older version, is refused and changes nothing.
    Membership.objects.create(
        project=starter_project, user=other_user, role="editor", added_by=starter_project.owner
    )
    editor = Client(headers={"HX-Request": "true"})
    editor.force_login(other_user)
    first = {"path": "/styles.css", "content": "a {}", "version": "1"}
    assert htmx_client.post(_url(starter_project, "save"), first).status_code == 200
    theirs = {"path": "/styles.css", "content": "b {}", "version": "1"}
    response = editor.post(_url(starter_project, "save"), theirs)
    assert response.status_code == 409
    assert "/styles.css changed since it was opened" in unescape(response.content.decode())
    record = ProjectFile.objects.get(project=starter_project, path="/styles.css")
    assert (record.content, record.version) == ("a {}", 2)


def test_file_save_keeps_carriage_returns(htmx_client, project, author):
    file_create(project=project, path="/win.txt", content="one\r\ntwo\r\n", author=author)
    response = htmx_client.post(
        _url(project, "save"),
        {"path": "/win.txt", "content": "one\r\ntwo\r\nthree\r\n", "version": "1"},
    )
    assert response.status_code == 200
    saved = ProjectFile.objects.get(project=project, path="/win.txt").content
    assert saved == "one\r\ntwo\r\nthree\r\n"


def test_file_save_keeps_carriage_returns_when_form_encoded(htmx_client, project, author):
    # htmx sends application/x-www-form-urlencoded, not multipart.
    file_create(project=project, path="/win.txt", content="one\r\ntwo\r\n", author=author)
    body = urlencode({"path": "/win.txt", "content": "one\r\n2\r\n", "version": "1"})
    response = htmx_client.post(
        _url(project, "save"), body, content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 200
    assert ProjectFile.objects.get(project=project, path="/win.txt").content == "one\r\n2\r\n"


def test_carriage_returns_reach_the_editor_intact(htmx_client, project, author):
    # The JSON copy is what the editor loads: HTML parsing of the textarea would drop CRs.
    file_create(project=project, path="/win.txt", content="one\r\ntwo\r\n", author=author)
    response = htmx_client.get(_url(project, "open"), {"path": "/win.txt"})
    html = response.content.decode()
    assert json.loads(_json_script(html, "editor-content")) == "one\r\ntwo\r\n"


def test_a_file_within_the_size_limit_saves_through_the_editors_encoding(
    htmx_client, starter_project, settings
):
    content = "<p>" + "日本語のテキスト。" * 15_000 + "</p>\n"
    assert len(content.encode()) < settings.BUILTIT_MAX_FILE_BYTES
    body = urlencode({"path": "/index.html", "content": content, "version": "1"})
    response = htmx_client.post(
        _url(starter_project, "save"), body, content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 200
    assert starter_project.files.get(path="/index.html").content == content


def test_a_file_over_the_size_limit_is_refused_with_the_limit_in_the_message(
    htmx_client, starter_project, settings
):
    content = "x" * (settings.BUILTIT_MAX_FILE_BYTES + 1)
    body = urlencode({"path": "/index.html", "content": content, "version": "1"})
    response = htmx_client.post(
        _url(starter_project, "save"), body, content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 422
    assert "the limit is 512 KiB per file" in unescape(response.content.decode())
    assert starter_project.files.get(path="/index.html").version == 1


def test_file_save_of_identical_content_changes_nothing(htmx_client, starter_project):
    response = htmx_client.post(
        _url(starter_project, "save"),
        {"path": "/styles.css", "content": STARTER_FILES["/styles.css"], "version": "1"},
    )
    assert response.status_code == 200
    assert "No changes to save." in response.content.decode()
    assert _version(starter_project, "/styles.css") == 1
    assert FileRevision.objects.filter(project=starter_project).count() == len(STARTER_FILES)


def test_file_save_of_a_deleted_file_is_a_404_that_offers_save_as_new(htmx_client, starter_project):
    ProjectFile.objects.filter(project=starter_project, path="/styles.css").delete()
    response = htmx_client.post(
        _url(starter_project, "save"), {"path": "/styles.css", "content": "x", "version": "1"}
    )
    assert response.status_code == 404
    assert response["HX-Retarget"] == "#editor-status"
    assert 'data-action="save-as-new"' in response.content.decode()
    assert not ProjectFile.objects.filter(project=starter_project, path="/styles.css").exists()


def test_file_save_over_the_size_limit_is_refused(htmx_client, starter_project, settings):
    settings.BUILTIT_MAX_FILE_BYTES = 100
    response = htmx_client.post(
        _url(starter_project, "save"), {"path": "/script.js", "content": "x" * 101, "version": "1"}
    )
    assert response.status_code == 422
    assert "the limit is 100 bytes per file" in unescape(response.content.decode())
    assert _version(starter_project, "/script.js") == 1


# --- new ------------------------------------------------------------------------------


def test_file_new_creates_the_file_and_opens_it(htmx_client, starter_project):
    response = htmx_client.post(_url(starter_project, "new"), {"path": "about/team.html"})
    assert response.status_code == 200
    record = ProjectFile.objects.get(project=starter_project, path="/about/team.html")
    assert record.content.startswith("<!doctype html>")
    assert response["HX-Retarget"] == "#editor-pane"
    assert _trigger(response) == {"filesChanged": {"paths": ["/about/team.html"]}}
    html = response.content.decode()
    _, form = _by_id(html, "editor-form")
    assert form["data-path"] == "/about/team.html"
    _, tree = _by_id(html, "file-tree")
    assert tree["hx-swap-oob"] == "true"
    assert 'data-path="/about/team.html"' in html.split('id="file-tree"')[1]
    revision = FileRevision.objects.filter(project=starter_project)[0]
    assert (revision.action, revision.path, revision.user_id) == (
        "create",
        "/about/team.html",
        starter_project.owner_id,
    )


def test_file_new_of_a_non_html_file_starts_empty(htmx_client, project):
    htmx_client.post(_url(project, "new"), {"path": "/notes.md"})
    assert ProjectFile.objects.get(project=project, path="/notes.md").content == ""


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("../escape.html", "'.' and '..' are not allowed"),
        ("photo.bmp", "'.bmp' files are not allowed"),
        ("my page.html", "may only contain ASCII letters"),
        ("", "No file was named."),
        ("folder/", "empty folder or file name"),
    ],
)
def test_file_new_refuses_bad_paths_with_a_422_in_the_new_file_error(
    htmx_client, starter_project, path, message
):
    response = htmx_client.post(_url(starter_project, "new"), {"path": path})
    assert response.status_code == 422
    assert response["HX-Retarget"] == "#new-file-error"
    assert response["HX-Reswap"] == "innerHTML"
    assert message in unescape(response.content.decode())
    assert "HX-Trigger" not in response
    assert starter_project.files.count() == len(STARTER_FILES)


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/index.html", "There is already a file called /index.html."),
        ("/INDEX.html", "differs only in letter case from the existing /index.html"),
    ],
)
def test_file_new_refuses_duplicates_with_a_422_in_the_new_file_error(
    htmx_client, starter_project, path, message
):
    response = htmx_client.post(_url(starter_project, "new"), {"path": path, "content": "dup"})
    assert response.status_code == 422
    assert response["HX-Retarget"] == "#new-file-error"
    assert message in unescape(response.content.decode())
    assert starter_project.files.count() == len(STARTER_FILES)
    assert starter_project.files.get(path="/index.html").content == STARTER_FILES["/index.html"]


# --- rename and delete ----------------------------------------------------------------


def test_file_rename_with_the_right_version_moves_the_file(htmx_client, starter_project):
    response = htmx_client.post(
        _url(starter_project, "rename"),
        {"path": "/styles.css", "new_path": "css/main.css", "version": "1"},
    )
    assert response.status_code == 200
    assert response["HX-Retarget"] == "#editor-pane"
    assert _trigger(response) == {"filesChanged": {"paths": ["/css/main.css"]}}
    paths = set(starter_project.files.values_list("path", flat=True))
    assert paths == {"/AGENTS.md", "/index.html", "/script.js", "/css/main.css"}
    moved = starter_project.files.get(path="/css/main.css")
    assert (moved.content, moved.version) == (STARTER_FILES["/styles.css"], 2)
    html = response.content.decode()
    _, form = _by_id(html, "editor-form")
    assert form["data-path"] == "/css/main.css"
    revision = FileRevision.objects.filter(project=starter_project)[0]
    assert (revision.action, revision.old_path, revision.path) == (
        "rename",
        "/styles.css",
        "/css/main.css",
    )


def test_file_rename_with_a_stale_version_is_a_409_and_moves_nothing(htmx_client, starter_project):
    response = htmx_client.post(
        _url(starter_project, "rename"),
        {"path": "/styles.css", "new_path": "/main.css", "version": "7"},
    )
    assert response.status_code == 409
    assert response["HX-Retarget"] == "#editor-status"
    assert "changed since it was opened" in unescape(response.content.decode())
    assert starter_project.files.filter(path="/styles.css").exists()
    assert not starter_project.files.filter(path="/main.css").exists()


def test_file_rename_onto_an_existing_file_is_refused(htmx_client, starter_project):
    response = htmx_client.post(
        _url(starter_project, "rename"),
        {"path": "/styles.css", "new_path": "/script.js", "version": "1"},
    )
    assert response.status_code == 422
    assert "There is already a file called /script.js." in unescape(response.content.decode())
    assert starter_project.files.get(path="/script.js").content == STARTER_FILES["/script.js"]
    assert starter_project.files.filter(path="/styles.css").exists()


def test_file_delete_with_the_right_version_removes_it(htmx_client, starter_project):
    response = htmx_client.post(
        _url(starter_project, "delete"), {"path": "/script.js", "version": "1"}
    )
    assert response.status_code == 200
    assert response["HX-Retarget"] == "#editor-pane"
    assert _trigger(response) == {"filesChanged": {"paths": []}}
    assert not starter_project.files.filter(path="/script.js").exists()
    html = response.content.decode()
    assert "Select a file on the left" in html
    assert 'data-path="/script.js"' not in html
    revision = FileRevision.objects.filter(project=starter_project)[0]
    assert (revision.action, revision.content_before) == ("delete", STARTER_FILES["/script.js"])


def test_file_delete_with_a_stale_version_is_a_409_and_keeps_the_file(htmx_client, starter_project):
    response = htmx_client.post(
        _url(starter_project, "delete"), {"path": "/script.js", "version": "0"}
    )
    assert response.status_code == 409
    assert response["HX-Retarget"] == "#editor-status"
    assert starter_project.files.filter(path="/script.js").exists()


def test_file_endpoints_refuse_get(htmx_client, starter_project):
    for name in ("save", "new", "rename", "delete"):
        assert htmx_client.get(_url(starter_project, name)).status_code == 405, name
    assert htmx_client.get(f"/projects/{starter_project.pk}/preview-token/").status_code == 405


# --- preview link ---------------------------------------------------------------------


def test_rotating_the_preview_token_changes_the_link_and_kills_the_old_one(
    htmx_client, starter_project
):
    old = starter_project.preview_token
    assert Client(HTTP_HOST=SITES_HOST).get(f"/preview/{old}/").status_code == 200
    response = htmx_client.post(f"/projects/{starter_project.pk}/preview-token/")
    assert response.status_code == 200
    starter_project.refresh_from_db()
    new = starter_project.preview_token
    assert new != old
    html = response.content.decode()
    _, frame = _by_id(html, "preview-frame")
    assert frame["src"] == f"http://{SITES_HOST}/preview/{new}/"
    assert "allow-same-origin" not in (frame["sandbox"] or "")
    assert old not in html
    assert (
        Client(HTTP_HOST=SITES_HOST).get(f"/preview/{old}/").status_code == 410
    )  # replaced, and says so
    assert Client(HTTP_HOST=SITES_HOST).get(f"/preview/{old}/styles.css").status_code == 410
    assert Client(HTTP_HOST=SITES_HOST).get(f"/preview/{new}/").status_code == 200
