"""Text no database stores (NUL; a lone surrogate, if one could arrive) never
reaches one from a request: every URL pattern of the app and of the sites
origin, with such a value in each path part and in every query parameter the
code reads, as a signed-in person (staff, owner of real rows) and as a
stranger, is answered 404 or 400, never 500. PostgreSQL refuses NUL where
SQLite stores it: run under `make test-services` too."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from chat import services
from chat.models import Message
from projects.models import FileRevision, Project
from projects.web.sites import URLCONF
from tests.conftest import SITES_HOST
from tests.projects.publish.test_publish import page, published, write

ROOT = Path(__file__).resolve().parents[2]
NUL = "a%00b"
# A surrogate's UTF-8 form: no valid UTF-8, so it must arrive as U+FFFD at most.
SURROGATE = "a%ED%A0%80b"
SITE = "nul-bakery"
# Query parameters the admin reads, beside those the code reads (found below).
ADMIN_PARAMETERS = ("q", "o", "p", "e", "all", "_changelist_filters", "_to_field", "_popup", "term")


@pytest.fixture
def staff(db: None) -> User:
    return User.objects.create_superuser("root", "root@example.com", "a long staff password")


@pytest.fixture
def rows(staff: User) -> dict[str, str]:
    """Real values for every path part, so each URL reaches its view with only
    the one part (or the query) wrong."""
    project = Project.objects.create(owner=staff, name="Nul Bakery")
    write(project, "/index.html", page("<h1>Bread</h1>"))
    published(project, SITE)
    conversation = services.conversation_create(project=project)
    turn = Message.objects.create(
        conversation=conversation, sequence=1, role=Message.Role.USER, content="Make a page"
    )
    revision = FileRevision.objects.filter(project=project).first()
    assert revision is not None
    return {
        "project_id": str(project.pk),
        "conversation_id": str(conversation.pk),
        "turn_id": str(turn.pk),
        "message_id": str(turn.pk),
        "revision_id": str(revision.pk),
        "token": project.preview_token,
        "name": SITE,
        "path": "index.html",
        "part": "content",
        "app_label": "projects",
        "number": "1",
    }


def query_names() -> list[str]:
    """Every query parameter the code reads by name, and the admin's."""
    names = set(ADMIN_PARAMETERS)
    for package in ("accounts", "builtit", "chat", "projects", "common"):
        for source in (ROOT / package).rglob("*.py"):
            names |= set(re.findall(r"GET(?:\.get|\.getlist|\[)\(?\"(\w+)\"", source.read_text()))
    return sorted(names)


def templates(entries: list[URLPattern | URLResolver], prefix: str = "") -> Iterator[str]:
    """Each URL pattern as a template: `projects/{project_id}/files/open/`."""
    for entry in entries:
        shape = prefix + _template(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from templates(entry.url_patterns, shape)
        else:
            yield shape


def _template(pattern: object) -> str:
    route = getattr(pattern, "_route", None)
    if route is not None:  # path(): `<uuid:project_id>`
        return re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)
    return _regex_template(str(pattern._regex))  # type: ignore[attr-defined]


def _regex_template(regex: str) -> str:
    """A re_path's regex as a template: each named group a field, lookaheads
    dropped, escapes undone."""
    regex = regex.removeprefix("^").removesuffix("$").removesuffix(r"\Z")
    out: list[str] = []
    index = 0
    while index < len(regex):
        if regex[index] == "(":
            end = _group_end(regex, index)
            named = re.match(r"\(\?P<(\w+)>", regex[index:])
            if named:
                out.append("{" + named.group(1) + "}")
            index = end + 1
        elif regex[index] == "\\":
            out.append(regex[index + 1])
            index += 2
        else:
            out.append(regex[index])
            index += 1
    return "".join(out)


def _group_end(regex: str, start: int) -> int:
    depth, index = 0, start
    while True:
        if regex[index] == "\\":
            index += 2
            continue
        depth += {"(": 1, ")": -1}.get(regex[index], 0)
        if depth == 0:
            return index
        index += 1


def addresses(template: str, rows: dict[str, str], values: tuple[str, ...]) -> Iterator[str]:
    """`template` with each of its fields in turn holding each of `values`,
    the others real; and with every field real and NUL in every query
    parameter."""
    fields = re.findall(r"{(\w+)}", template)
    real = {name: quote(rows.get(name, "1"), safe="") for name in fields}
    query = "&".join(f"{name}={NUL}" for name in query_names()) + f"&{NUL}=1"
    yield "/" + template.format(**real) + "?" + query
    for name in fields:
        for value in values:
            yield "/" + template.format(**{**real, name: value})


def walk(client: Client, urls: list[str]) -> list[str]:
    """The URLs `client` was answered 500 at. A query is posted too: a view
    that takes only POST reads its query then (HEAD is answered as GET)."""
    failed = []
    for url in urls:
        for method in (client.get, client.post) if "?" in url else (client.get,):
            answer = method(url)
            if answer.status_code >= 500:
                failed.append(f"{method.__name__.upper()} {url}: {answer.status_code}")
    return failed


def every_address(urlconf: str | None, rows: dict[str, str], values: tuple[str, ...]) -> list[str]:
    patterns = get_resolver(urlconf).url_patterns
    return [url for template in templates(patterns) for url in addresses(template, rows, values)]


@pytest.mark.django_db
def test_no_nul_in_any_address_or_query_reaches_the_database(
    staff: User, rows: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, "django.request")  # a line per 400 and 404: a thousand
    signed_in = Client(raise_request_exception=False)
    signed_in.force_login(staff)
    stranger = Client(raise_request_exception=False)
    failed = []
    # A surrogate's bytes reach the views (as U+FFFD): deepest as staff.
    for person, values in ((signed_in, (NUL, SURROGATE)), (stranger, (NUL,))):
        app, sites = (every_address(urlconf, rows, values) for urlconf in (None, URLCONF))
        assert len(app) > 200  # the walk found the patterns
        assert len(sites) > 10
        failed += walk(person, app)
        person.defaults["HTTP_HOST"] = SITES_HOST
        failed += walk(person, sites)
        person.defaults["HTTP_HOST"] = f"{SITE}.{SITES_HOST}"
        failed += walk(person, [f"/{NUL}/index.html", f"/index.html?x={NUL}", f"/{SURROGATE}"])
    assert not failed, "\n".join(failed)


@pytest.mark.django_db
def test_a_nul_is_answered_in_the_words_of_the_host_it_came_to(rows: dict[str, str]) -> None:
    """In an address nothing is ever found (404); in a query, the request is bad."""
    sites = Client(HTTP_HOST=SITES_HOST)
    missing = sites.get(f"/preview/{NUL}/x.html")
    assert missing.status_code == 404
    assert b"This project has no file at this address" in missing.content
    refused = sites.get(f"/domain-check?domain={NUL}")
    assert refused.status_code == 400
    assert b"could not make sense of this request" in refused.content
    for answer in (missing, refused):
        assert answer["Content-Security-Policy"].startswith("sandbox")
    app = Client()
    assert app.get(f"/{NUL}/").status_code == 404
    bad = app.get(f"/projects/{rows['project_id']}/files/open/?path={NUL}")
    assert bad.status_code == 400
    assert b"That request could not be handled" in bad.content


@pytest.mark.django_db
def test_a_nul_in_a_header_is_refused_and_in_a_cookie_is_not_sent(staff: User) -> None:
    """django-axes writes a failed sign-in's User-Agent down; a session key is
    looked up. A cookie another site set for the whole domain must not lock
    the visitor out: it is dropped, as if never sent."""
    sign_in = {"username": "root", "password": "not the password"}
    agent = Client(HTTP_USER_AGENT="Mozilla\x00")
    assert agent.post("/accounts/login/", sign_in).status_code == 400
    cookie = Client(HTTP_COOKIE='sessionid="\\000abcdefghijkl"; theme=dark')
    home = cookie.get("/")
    assert home.status_code == 302
    assert home["Location"].startswith("/accounts/login/")
    assert home.wsgi_request.COOKIES == {"theme": "dark"}
