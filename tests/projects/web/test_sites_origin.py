"""Project content on an origin of its own: the app's pages never
serve it, the sites origin serves nothing of the app, reads no cookie and sets
none, and the workspace points its preview there."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.core.checks import Error
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

from common.sites import OriginError, origin_parsed, sites_allowed_hosts, sites_domain_for
from fakes.images import png
from projects.checks import check_sites_origin
from projects.files.results import FileWrite
from projects.models import Project
from projects.services import Author, file_upload
from tests.conftest import SITES_HOST

APP_PAGES = ["/", "/accounts/login/", "/accounts/signup/", "/admin/", "/settings/", "/healthz"]


def _preview(project: Project, path: str = "") -> str:
    return f"/preview/{project.preview_token}/{path}"


def test_the_app_never_serves_project_content(user_client: Client, starter_project: Project):
    for path in (_preview(starter_project), _preview(starter_project, "index.html")):
        response = user_client.get(path)
        assert response.status_code == 404, path
        assert b"Hello, world" not in response.content


@pytest.mark.parametrize("path", APP_PAGES)
def test_the_sites_origin_serves_no_page_of_the_app(
    sites_client: Client, starter_project: Project, path: str
) -> None:
    response = sites_client.get(path, follow=True)  # /healthz: to /healthz/, no site's name
    assert response.status_code == 404
    assert b"Built-It" not in response.content  # not the app's 404 page either
    assert response["Content-Security-Policy"].startswith("sandbox ")
    assert not response.cookies


def test_a_signed_in_persons_cookies_are_neither_read_nor_set_on_the_sites_origin(
    user_client: Client, starter_project: Project
) -> None:
    # A test client sends its cookies to any host; a browser would not, unless
    # a cookie domain covered the sites host (projects.checks refuses that).
    assert user_client.get("/").status_code == 200  # signed in on the app
    for path in (_preview(starter_project), "/", "/accounts/login/"):
        response = user_client.get(path, HTTP_HOST=SITES_HOST)
        # Not even read: the sites origin never reaches the session middleware.
        assert response.wsgi_request.COOKIES == {}, path
        assert not hasattr(response.wsgi_request, "user"), path
        assert not response.cookies, path


def test_a_post_to_the_sites_origin_is_refused_plainly(sites_client: Client, starter_project):
    response = sites_client.post(_preview(starter_project), {"a": "b"})
    assert response.status_code == 405  # not the app's CSRF page
    assert b"CSRF" not in response.content


def test_the_workspace_frames_the_preview_from_the_sites_origin(
    user_client: Client, starter_project: Project
) -> None:
    page = user_client.get(f"/projects/{starter_project.pk}/")
    html = page.content.decode()
    origin = f"http://{SITES_HOST}"
    base = _preview(starter_project)
    assert f'data-preview-origin="{origin}"' in html
    assert f'data-preview-base="{base}"' in html
    assert re.search(rf'id="preview-frame"[^>]*src="{re.escape(origin + base)}"', html)
    assert re.search(rf'id="preview-open" href="{re.escape(origin + base)}"', html)
    policy = dict(
        (part.split()[0], part.split()[1:]) for part in page["Content-Security-Policy"].split("; ")
    )
    assert policy["frame-src"] == ["'self'", origin]
    assert policy["img-src"] == ["'self'", "data:", origin]
    assert policy["script-src"] == ["'self'"]  # nothing of the sites origin runs here
    assert policy["connect-src"] == ["'self'"]


def test_a_binary_file_shows_and_downloads_from_the_sites_origin(
    user: User, user_client: Client, sites_client: Client, starter_project: Project
) -> None:
    data = png(1, 1)
    stored = file_upload(
        project=starter_project, path="/img/dot.png", data=data, author=Author.person(user)
    )
    assert isinstance(stored, FileWrite), stored
    editor = user_client.get(
        f"/projects/{starter_project.pk}/files/open/", {"path": "/img/dot.png"}
    ).content.decode()
    address = f"http://{SITES_HOST}{_preview(starter_project, 'img/dot.png')}"
    assert f'src="{address}?v=' in editor
    assert f'href="{address}?download=1"' in editor

    download = sites_client.get(_preview(starter_project, "img/dot.png"), {"download": "1"})
    assert download["Content-Disposition"] == 'attachment; filename="dot.png"'
    assert download.content == data
    shown = sites_client.get(_preview(starter_project, "img/dot.png"))
    assert "Content-Disposition" not in shown


def test_the_admin_links_the_preview_on_the_sites_origin(
    admin_client: Client, starter_project: Project
) -> None:
    page = admin_client.get(f"/admin/projects/project/{starter_project.pk}/change/")
    assert page.status_code == 200
    assert f'href="http://{SITES_HOST}{_preview(starter_project)}"' in page.content.decode()


def test_a_configured_sites_origin_is_the_only_one(
    settings: SettingsWrapper, user_client: Client, starter_project: Project
) -> None:
    settings.BUILTIT_SITES_ORIGIN = "https://sites.example.com"
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "sites.example.com"]
    html = user_client.get(f"/projects/{starter_project.pk}/").content.decode()
    assert f'src="https://sites.example.com{_preview(starter_project)}"' in html

    configured = Client(HTTP_HOST="sites.example.com")
    assert configured.get(_preview(starter_project)).status_code == 200
    # The name the default would have picked is then just another app host.
    assert Client(HTTP_HOST=SITES_HOST).get(_preview(starter_project)).status_code == 404


@pytest.mark.parametrize(
    ("raw", "origin"),
    [
        ("https://Sites.Example.com", "https://sites.example.com"),
        ("https://sites.example.com/", "https://sites.example.com"),
        ("https://sites.example.com.", "https://sites.example.com"),
        ("http://127.0.0.1:8001", "http://127.0.0.1:8001"),
        ("http://[::1]:9000", "http://[::1]:9000"),
    ],
)
def test_a_sites_origin_is_read_as_an_origin(raw: str, origin: str) -> None:
    assert origin_parsed(raw) == origin


@pytest.mark.parametrize(
    "raw",
    [
        "sites.example.com",
        "ftp://sites.example.com",
        "https://sites.example.com/sites/",
        "https://sites.example.com/?a=1",
        "https://user:pw@sites.example.com",
        "https://sites.example.com:99999",
        "https://",
    ],
)
def test_anything_but_an_origin_is_refused_with_the_reason(raw: str) -> None:
    with pytest.raises(OriginError):
        origin_parsed(raw)


def test_the_default_sites_host_is_sites_dot_the_apps_name() -> None:
    assert sites_domain_for("127.0.0.1") == "sites.localhost"
    assert sites_domain_for("[::1]") == "sites.localhost"
    assert sites_domain_for("localhost") == "sites.localhost"
    assert sites_domain_for("Builder.Example.com.") == "sites.builder.example.com"
    assert sites_allowed_hosts(["127.0.0.1", "localhost", "[::1]"], None) == ["sites.localhost"]
    assert sites_allowed_hosts(["app.example.com", ".example.org", "*"], None) == [
        "sites.app.example.com"
    ]
    assert sites_allowed_hosts(["app.example.com"], "https://s.example.net") == ["s.example.net"]


@pytest.mark.parametrize(
    ("domain", "configured", "refused"),
    [
        (".example.com", "https://sites.example.com", True),
        ("example.com", "https://sites.example.com", True),
        ("app.example.com", "https://sites.example.com", False),
        (".example.com", "https://sites.example.net", False),
        (".example.com", None, True),  # sites.<the app's name> is under it
        (None, None, False),
    ],
)
def test_a_cookie_domain_that_reaches_the_sites_origin_is_an_error(
    settings: SettingsWrapper, domain: str | None, configured: str | None, refused: bool
) -> None:
    settings.SESSION_COOKIE_DOMAIN = domain
    settings.BUILTIT_SITES_ORIGIN = configured
    errors = [m for m in check_sites_origin() if isinstance(m, Error)]
    assert [e.id for e in errors] == (["projects.E001"] if refused else [])


def test_a_request_django_refuses_is_answered_plainly_on_the_sites_origin(
    user: User, sites_client: Client, starter_project: Project
) -> None:
    """The app's 400 page needs the app's URLs: on the sites origin it was a 500."""
    stored = file_upload(
        project=starter_project, path="/dot.png", data=png(1, 1), author=Author.person(user)
    )
    assert isinstance(stored, FileWrite)
    fields = "&".join(f"a{n}=1" for n in range(1200))  # past DATA_UPLOAD_MAX_NUMBER_FIELDS
    response = sites_client.get(_preview(starter_project, f"dot.png?{fields}"))
    assert response.status_code == 400
    assert "could not make sense of this request" in response.content.decode()
    assert response["Content-Security-Policy"].startswith("sandbox ")


def test_an_app_reached_by_an_ip_address_is_told_to_name_a_sites_origin(
    settings: SettingsWrapper,
) -> None:
    settings.BUILTIT_SITES_ORIGIN = None
    settings.ALLOWED_HOSTS = ["127.0.0.1", "[::1]", "192.168.1.5", "builder.example.com"]
    warned = [m for m in check_sites_origin() if m.id == "projects.W001"]
    assert [m.msg.split(",")[0] for m in warned] == ["People may reach the app at 192.168.1.5"]
    assert "sites.192.168.1.5" in warned[0].msg
    settings.BUILTIT_SITES_ORIGIN = "https://sites.example.com"
    assert not [m for m in check_sites_origin() if m.id == "projects.W001"]
