"""The live preview: /preview/<token>/<path>, reachable by token alone, always sandboxed."""

from __future__ import annotations

import html
import json
import re
from urllib.parse import urljoin

import pytest
from django.test import Client

from common.bridge import FIELD_CHARS, PROBLEMS_PER_PAGE
from projects.files.results import FileWrite
from projects.lifecycle import RETIRED_TOKENS_KEPT, project_create, project_rotate_preview_token
from projects.models import FileRevision, Project, ProjectFile
from projects.services import Author, file_create, file_update
from projects.starter import STARTER_FILES
from projects.views.preview import (
    BRIDGE_PATH,
    PAGE_REPORT_SCRIPT,
    SHARED_PAGE_SCRIPT,
    page_report_script,
)
from projects.web.sandbox import SANDBOX
from tests.conftest import SITES_HOST

SECRET = "MALLORY-ONLY-SECRET-4242"

CONTENT_TYPES = {
    "html": "text/html; charset=utf-8",
    "htm": "text/html; charset=utf-8",
    "css": "text/css; charset=utf-8",
    "js": "text/javascript; charset=utf-8",
    "mjs": "text/javascript; charset=utf-8",
    "json": "application/json; charset=utf-8",
    "svg": "image/svg+xml; charset=utf-8",
    "txt": "text/plain; charset=utf-8",
    "md": "text/markdown; charset=utf-8",
    "xml": "application/xml; charset=utf-8",
    "webmanifest": "application/manifest+json; charset=utf-8",
}


def _add(project: Project, path: str, content: str) -> None:
    result = file_create(
        project=project, path=path, content=content, author=Author.person(project.owner)
    )
    assert isinstance(result, FileWrite), result


def _assert_sandboxed(response) -> None:
    csp = response["Content-Security-Policy"]
    assert csp.startswith("sandbox")
    assert "allow-same-origin" not in csp
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "no-referrer"
    assert response["Cache-Control"] == "no-store"


@pytest.fixture
def anonymous(sites_client: Client) -> Client:
    return sites_client


@pytest.fixture
def site(starter_project: Project) -> Project:
    _add(starter_project, "/a/b/index.html", '<link rel="stylesheet" href="style.css"><p>deep</p>')
    _add(starter_project, "/a/b/style.css", "p { color: teal; }")
    _add(starter_project, "/a/index.html", '<a href="b/">down</a>')
    _add(starter_project, "/docs/readme.md", "# Docs")
    return starter_project


@pytest.fixture
def others_project(other_user) -> Project:
    result = project_create(owner=other_user, name="Mallory's site")
    assert isinstance(result, Project)
    _add(result, "/secret.html", f"<p>{SECRET}</p>")
    _add(result, "/index.html", f"<p>{SECRET}</p>")
    return result


def _base(project: Project) -> str:
    return f"/preview/{project.preview_token}/"


@pytest.mark.parametrize(("extension", "content_type"), sorted(CONTENT_TYPES.items()))
def test_every_allowed_extension_is_served_with_its_content_type(
    anonymous, project, extension, content_type
):
    _add(project, f"/file.{extension}", f"content of {extension} ✓")
    response = anonymous.get(f"{_base(project)}file.{extension}")
    assert response.status_code == 200
    assert response["Content-Type"] == content_type
    expected = f"content of {extension} ✓"
    if content_type.startswith("text/html"):
        # HTML pages tell the workspace which page they are (see the page report below).
        expected = page_report_script(expected) + expected
    assert response.content == expected.encode()
    _assert_sandboxed(response)


def test_the_root_serves_index_html(anonymous, starter_project):
    response = anonymous.get(_base(starter_project))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert b"<h1>Hello, world</h1>" in response.content
    _assert_sandboxed(response)


def test_the_token_without_a_trailing_slash_leads_to_the_root(anonymous, starter_project):
    response = anonymous.get(_base(starter_project).rstrip("/"), follow=True)
    assert response.status_code == 200
    assert response.redirect_chain[-1][0] == _base(starter_project)
    assert b"<h1>Hello, world</h1>" in response.content


def test_the_workspace_may_frame_the_preview_but_other_sites_may_not(anonymous, starter_project):
    """The app's pages frame the preview from another origin now: frame-ancestors
    names the app's hosts (any port), never the sites host, and no
    X-Frame-Options (even SAMEORIGIN) refuses the app."""
    response = anonymous.get(_base(starter_project))
    ancestors = response["Content-Security-Policy"].split("frame-ancestors ", 1)[1].split()
    assert ancestors == ["127.0.0.1:*", "localhost:*", "testserver:*"]
    assert "X-Frame-Options" not in response


def test_the_root_of_a_project_without_index_html_is_404(anonymous, project):
    _add(project, "/about.html", "<p>about</p>")
    response = anonymous.get(_base(project))
    assert response.status_code == 404
    _assert_sandboxed(response)


def test_nested_folder_index_is_served_at_its_folder_address(anonymous, site):
    response = anonymous.get(f"{_base(site)}a/b/")
    assert response.status_code == 200
    assert b"<p>deep</p>" in response.content


def test_relative_links_resolve_against_the_folder_address(anonymous, site):
    page = f"{_base(site)}a/b/"
    stylesheet = anonymous.get(urljoin(page, "style.css"))
    assert stylesheet.status_code == 200
    assert stylesheet.content == b"p { color: teal; }"
    assert stylesheet["Content-Type"] == "text/css; charset=utf-8"
    # From /a/, the link "b/" leads to the nested page; "../styles.css" from /a/b/ climbs
    # inside the project the way a browser resolves it, before the request is made.
    assert anonymous.get(urljoin(f"{_base(site)}a/", "b/")).status_code == 200
    up = anonymous.get(urljoin(page, "../../styles.css"))
    assert up.status_code == 200
    assert b"--accent" in up.content


def test_a_folder_without_a_trailing_slash_redirects_to_it(anonymous, site):
    response = anonymous.get(f"{_base(site)}a")
    assert response.status_code == 302
    assert response["Location"] == f"{_base(site)}a/"
    _assert_sandboxed(response)
    nested = anonymous.get(f"{_base(site)}a/b")
    assert nested.status_code == 302
    assert nested["Location"] == f"{_base(site)}a/b/"


def test_a_folder_without_index_html_is_404(anonymous, site):
    assert anonymous.get(f"{_base(site)}docs/").status_code == 404
    assert anonymous.get(f"{_base(site)}docs").status_code == 404


def test_an_unknown_file_is_404_with_the_sandbox_headers(anonymous, starter_project):
    response = anonymous.get(f"{_base(starter_project)}missing.html")
    assert response.status_code == 404
    assert b"Page not found" in response.content
    _assert_sandboxed(response)


def test_paths_are_case_sensitive(anonymous, starter_project):
    assert anonymous.get(f"{_base(starter_project)}INDEX.html").status_code == 404


def test_an_unknown_token_is_404_with_the_sandbox_headers(anonymous, starter_project):
    for url in ("/preview/not-a-real-token/", "/preview/not-a-real-token/index.html"):
        response = anonymous.get(url)
        assert response.status_code == 404
        assert b"Hello, world" not in response.content
        _assert_sandboxed(response)


def test_a_prefix_of_the_token_is_not_enough(anonymous, starter_project):
    token = starter_project.preview_token
    assert anonymous.get(f"/preview/{token[:-1]}/").status_code == 404
    assert anonymous.get(f"/preview/{token.upper()}/").status_code == 404


@pytest.mark.parametrize(
    "suffix",
    [
        "../{other}/secret.html",
        "..%2F{other}%2Fsecret.html",
        "%2e%2e/{other}/secret.html",
        "%2E%2E/%2E%2E/preview/{other}/secret.html",
        "a/../../{other}/secret.html",
        "index.html%00",
        "index.html%00.txt",
        "%00/../{other}/secret.html",
        "..\\{other}\\secret.html",
        "..%5C{other}%5Csecret.html",
        "a\\b\\index.html",
        "/{other}/secret.html",
        "//{other}/secret.html",
        ".%2F.%2Fsecret.html",
        "secret.html",
        "%2Fsecret.html",
    ],
)
def test_hostile_paths_are_404_and_never_leak_other_projects(
    anonymous, site, others_project, suffix
):
    url = _base(site) + suffix.format(other=others_project.preview_token)
    response = anonymous.get(url)
    assert response.status_code == 404, url
    assert SECRET.encode() not in response.content
    _assert_sandboxed(response)


def test_preview_needs_no_session_and_sets_no_cookie(anonymous, starter_project):
    response = anonymous.get(_base(starter_project))
    assert response.status_code == 200
    assert not response.cookies
    assert response.wsgi_request.COOKIES == {}  # not even read


def test_preview_works_for_a_signed_in_stranger_too(other_client, starter_project):
    # The token is the credential, so a shared link works for anyone who has it;
    # the stranger's session cookie (a test client sends it to any host) is not read.
    response = other_client.get(_base(starter_project), HTTP_HOST=SITES_HOST)
    assert response.status_code == 200
    assert response.wsgi_request.COOKIES == {}  # not even read
    assert not response.cookies


def test_head_returns_the_headers_without_a_body(anonymous, starter_project):
    response = anonymous.head(f"{_base(starter_project)}styles.css")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/css; charset=utf-8"
    assert response.content == b""
    _assert_sandboxed(response)


@pytest.mark.parametrize("method", ["post", "put", "delete", "patch"])
def test_writing_methods_are_refused(anonymous, starter_project, method):
    response = getattr(anonymous, method)(f"{_base(starter_project)}index.html")
    assert response.status_code == 405
    assert starter_project.files.count() == len(STARTER_FILES)


def test_a_refused_method_still_carries_the_sandbox_headers(anonymous, starter_project):
    response = anonymous.post(f"{_base(starter_project)}index.html")
    assert response.status_code == 405
    _assert_sandboxed(response)


def test_preview_is_not_cached_and_shows_the_latest_save(anonymous, starter_project, user):
    url = f"{_base(starter_project)}styles.css"
    assert b"--accent" in anonymous.get(url).content
    file_update(
        project=starter_project,
        path="/styles.css",
        content="body{}",
        author=Author.person(user),
    )
    response = anonymous.get(url)
    assert response.content == b"body{}"
    assert response["Cache-Control"] == "no-store"


def test_a_query_string_does_not_change_what_is_served(anonymous, starter_project):
    response = anonymous.get(f"{_base(starter_project)}index.html?reload=3")
    assert response.status_code == 200
    assert b"<h1>Hello, world</h1>" in response.content


# --- the page report: HTML pages tell the workspace which page the frame shows ---

DOCUMENT = (
    '<!doctype html>\n<html lang="en">\n<head>\n  <meta charset="utf-8">\n'
    "  <title>Home</title>\n</head>\n<body><h1>Home</h1></body>\n</html>\n"
)
# A byte-order mark, an XML declaration, a quoted ">" in an attribute, a comment.
XML_PROLOGUE = (
    '\ufeff<?xml version="1.0"?>\n<!DOCTYPE html>\n<html data-x="a > b">\n<!-- c -->\n<head>'
)


@pytest.mark.parametrize(
    ("stored", "before"),
    [
        (DOCUMENT, '<!doctype html>\n<html lang="en">\n<head>'),
        ("<p>No head, no doctype</p>", ""),
        ("<!doctype html>", "<!doctype html>"),
        (
            "<!DOCTYPE HTML><HTML LANG=EN><HEAD ><TITLE>Up</TITLE></HEAD ><BODY>x</BODY></HTML>",
            "<!DOCTYPE HTML><HTML LANG=EN><HEAD >",
        ),
        (
            "<!-- an old </head> --><!doctype html><head><title>t</title></head>",
            "<!-- an old </head> --><!doctype html><head>",
        ),
        (
            "<!doctype html><html><body><script>const s = '</head>';</script></body></html>",
            "<!doctype html><html>",
        ),
        (XML_PROLOGUE + "<title>t</title>", XML_PROLOGUE),
        ('<!doctype html><html a"b><head>', "<!doctype html>"),
        ("<!doctype html><header>Top</header>", "<!doctype html>"),
        ("<!-- never closed <head>", ""),
    ],
)
def test_html_pages_get_the_page_report_where_it_cannot_change_the_page(
    anonymous, project, stored, before
):
    _add(project, "/page.html", stored)
    response = anonymous.get(f"{_base(project)}page.html")
    assert response.status_code == 200
    assert stored.startswith(before)
    assert response.content.decode() == before + page_report_script(stored) + stored[len(before) :]


def test_the_starter_page_gets_the_page_report_once_at_the_top_of_its_head(
    anonymous, starter_project
):
    body = anonymous.get(_base(starter_project)).content.decode()
    stored = ProjectFile.objects.get(project=starter_project, path="/index.html").content
    script = page_report_script(stored)
    assert body.count(script) == 1
    assert body.index("<head>") < body.index(script) < body.index("<title>")


def test_a_huge_page_gets_the_page_report_once(anonymous, project):
    stored = "<!doctype html><html><head><title>Big</title></head><body>" + "<p>row</p>" * 50_000
    _add(project, "/big.html", stored)
    body = anonymous.get(f"{_base(project)}big.html").content.decode()
    assert body.count(page_report_script(stored)) == 1
    assert body == "<!doctype html><html><head>" + page_report_script(stored) + stored[27:]


@pytest.mark.parametrize("extension", ["css", "js", "mjs", "svg", "json", "txt", "md", "xml"])
def test_other_files_are_served_exactly_as_stored(anonymous, project, extension):
    stored = '<!doctype html><html><head></head><svg xmlns="http://www.w3.org/2000/svg"/>'
    _add(project, f"/file.{extension}", stored)
    response = anonymous.get(f"{_base(project)}file.{extension}")
    assert response.status_code == 200
    assert response.content == stored.encode()
    assert b"builtitPreview" not in response.content


def test_the_page_report_is_in_the_response_not_the_stored_file(anonymous, starter_project):
    before = ProjectFile.objects.get(project=starter_project, path="/index.html")
    revisions = FileRevision.objects.filter(project=starter_project).count()
    response = anonymous.get(f"{_base(starter_project)}index.html")
    assert page_report_script(before.content).encode() in response.content
    after = ProjectFile.objects.get(project=starter_project, path="/index.html")
    assert after.content == before.content
    assert PAGE_REPORT_SCRIPT not in after.content
    assert after.version == before.version
    assert FileRevision.objects.filter(project=starter_project).count() == revisions


def test_a_page_with_the_report_keeps_its_sandbox(anonymous, starter_project):
    response = anonymous.get(f"{_base(starter_project)}index.html")
    assert b"data-source=" in response.content
    assert response["Content-Type"] == "text/html; charset=utf-8"
    _assert_sandboxed(response)
    assert response["Content-Security-Policy"] == (
        f"sandbox {SANDBOX}; frame-ancestors 127.0.0.1:* localhost:* testserver:*"
    )


def test_head_of_a_page_reports_the_length_of_the_page_with_its_report(anonymous, starter_project):
    url = f"{_base(starter_project)}index.html"
    body = anonymous.get(url).content
    response = anonymous.head(url)
    assert response.status_code == 200
    assert response.content == b""
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert int(response["Content-Length"]) == len(body)
    _assert_sandboxed(response)


def test_the_not_found_page_reports_too(anonymous, starter_project):
    # After a broken link, a reload returns to that address, which may exist by then.
    response = anonymous.get(f"{_base(starter_project)}missing.html")
    assert response.status_code == 404
    assert response.content.count(PAGE_REPORT_SCRIPT.encode()) == 1
    start = b'<!doctype html><html lang="en"><head>'
    assert response.content.startswith(start + PAGE_REPORT_SCRIPT.encode())
    _assert_sandboxed(response)


def test_the_preview_keeps_its_own_policy_and_the_app_pages_get_theirs(
    client, starter_project
) -> None:
    """The app's Content-Security-Policy (django-csp) never replaces the preview's
    sandboxing one: the preview runs the site's inline scripts, the app runs none."""
    preview = client.get(f"/preview/{starter_project.preview_token}/", HTTP_HOST=SITES_HOST)
    app = client.get("/accounts/login/")
    assert preview["Content-Security-Policy"].startswith("sandbox ")
    assert "script-src 'self'" not in preview["Content-Security-Policy"]
    assert "script-src 'self'" in app["Content-Security-Policy"]
    assert "object-src 'none'" in app["Content-Security-Policy"]


def test_a_blank_project_says_there_is_no_index_yet_and_how_to_make_one(anonymous, project):
    answer = anonymous.get(f"/preview/{project.preview_token}/")
    assert answer.status_code == 404
    assert "no <code>index.html</code> yet" in answer.content.decode()
    elsewhere = anonymous.get(f"/preview/{project.preview_token}/missing.html")
    assert "no file at this address" in elsewhere.content.decode()


def test_a_replaced_link_says_it_was_replaced(anonymous, project):
    first = project.preview_token
    project_rotate_preview_token(project=project)
    answer = anonymous.get(f"/preview/{first}/")
    assert answer.status_code == 410
    assert "This link was replaced" in answer.content.decode()
    assert anonymous.get("/preview/never-was-a-token/").status_code == 404
    for _ in range(RETIRED_TOKENS_KEPT):
        project_rotate_preview_token(project=project)
    forgotten = anonymous.get(f"/preview/{first}/")
    assert forgotten.status_code == 404, "only the last few are remembered"


def test_the_bridge_goes_only_to_a_page_in_a_frame(anonymous, starter_project):
    url = f"/preview/{starter_project.preview_token}/"
    framed = anonymous.get(url, headers={"Sec-Fetch-Dest": "iframe"}).content.decode()
    alone = anonymous.get(url, headers={"Sec-Fetch-Dest": "document"}).content.decode()
    unknown = anonymous.get(url).content.decode()
    assert BRIDGE_PATH in framed
    assert BRIDGE_PATH in unknown, "a browser that does not say: the bridge (inert alone)"
    assert BRIDGE_PATH not in alone, "a shared link opened on its own"
    assert SHARED_PAGE_SCRIPT in alone
    stored = starter_project.files.get(path="/index.html").content
    assert "preview-bridge" not in stored, "never written into the project's files"


def test_the_bridge_is_a_script_of_its_own_that_browsers_keep(anonymous):
    response = anonymous.get(BRIDGE_PATH)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript; charset=utf-8"
    assert b"builtitPreview" in response.content
    assert response["Cache-Control"] == "public, max-age=31536000, immutable"
    assert response["Content-Security-Policy"].startswith("sandbox")
    assert anonymous.post(BRIDGE_PATH).status_code == 405
    assert anonymous.get("/preview-bridge/0000000000000000.js").status_code == 404


def test_the_bridge_is_given_the_servers_bounds_on_its_tag():
    found = re.search(r'<script src="[^"]+" data-bounds="([^"]*)"></script>', PAGE_REPORT_SCRIPT)
    assert found, "the bridge's tag carries its bounds"
    assert json.loads(html.unescape(found.group(1))) == {
        "problems": PROBLEMS_PER_PAGE,
        "cut": dict(FIELD_CHARS),
    }


def test_a_served_page_keeps_every_line_of_the_stored_file(anonymous, project):
    # Errors in a page's inline scripts are numbered from the top of the page
    # as served: they must be the stored file's lines.
    stored = (
        "<!doctype html>\n<html>\n<head>\n<title>t</title>\n</head>\n<body>\n<script>\nboom();\n"
    )
    _add(project, "/page.html", stored)
    served = anonymous.get(f"{_base(project)}page.html", headers={"Sec-Fetch-Dest": "iframe"})
    lines = served.content.decode().splitlines()
    assert len(lines) == len(stored.splitlines())
    assert lines[2] == "<head>" + page_report_script(stored), "on a line the page already has"
    assert [line for number, line in enumerate(lines) if number != 2] == [
        line for number, line in enumerate(stored.splitlines()) if number != 2
    ]
