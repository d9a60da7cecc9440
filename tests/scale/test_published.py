"""A publish is served by every process at once: each process keeps
what a site's address serves (projects.publish.live_sites) until a change moves
the generation on, in Redis, and what else it caches (a version's index, a
file's bytes) never changes. Two real daphne processes on PostgreSQL and Redis."""

from __future__ import annotations

import httpx
from django.contrib.auth.models import User

from projects.files.results import FileWrite
from projects.models import Project, Site
from projects.publish.services import (
    PublishRefused,
    site_publish,
    site_unpublish,
    site_version_make_live,
)
from projects.services import Author, file_create, file_update
from tests.scale.conftest import Servers
from tests.servers import ServerProcess

PAGE = '<!doctype html><html lang="en"><head><title>Bakery</title></head><body><h1>{}</h1>'


def fetch(server: ServerProcess, path: str) -> tuple[int, str]:
    """`path` on the sites host (sites.localhost), of the server at 127.0.0.1."""
    answer = httpx.get(
        server.url + path, headers={"Host": "sites.localhost"}, timeout=10, trust_env=False
    )
    return answer.status_code, answer.text


def test_every_process_serves_each_update_rollback_and_unpublish_at_once(
    servers: Servers, django_user_model: type[User]
) -> None:
    owner = django_user_model.objects.create_user("ines", password="a long passphrase here")
    project = Project.objects.create(owner=owner, name="Bakery")
    author = Author.person(owner)
    assert isinstance(
        file_create(project=project, path="/index.html", content=PAGE.format("v1"), author=author),
        FileWrite,
    )
    first = site_publish(project=project, user=owner, name="bakery")
    assert not isinstance(first, PublishRefused)
    a, b = servers.start("A"), servers.start("B")
    for server in (a, b):  # both read it, and keep what they read
        assert fetch(server, "/s/bakery/") == (200, PAGE.format("v1"))

    assert isinstance(
        file_update(project=project, path="/index.html", content=PAGE.format("v2"), author=author),
        FileWrite,
    )
    second = site_publish(project=project, user=owner)
    assert not isinstance(second, PublishRefused)
    for server in (a, b):
        assert fetch(server, "/s/bakery/") == (200, PAGE.format("v2"))

    site_unpublish(site=second.site)
    for server in (a, b):
        assert fetch(server, "/s/bakery/")[0] == 410

    assert site_version_make_live(site=second.site, version=first) is None  # a rollback
    for server in (a, b):
        assert fetch(server, "/s/bakery/") == (200, PAGE.format("v1"))

    site = Site.objects.get(name="bakery")
    site.taken_down = "Phishing."
    site.save()  # as staff do, in the admin
    for server in (a, b):
        assert fetch(server, "/s/bakery/")[0] == 410
