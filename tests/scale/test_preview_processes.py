"""A preview shows every save in every process at once: each process keeps its
projects' tokens and files (projects.live_previews) under the project's
generation, which a save moves on in Redis. Two real daphne processes on
PostgreSQL and Redis."""

from __future__ import annotations

from django.contrib.auth.models import User

from projects.files.results import FileWrite
from projects.lifecycle import project_purge, project_rotate_preview_token
from projects.models import Project
from projects.services import Author, file_create, file_delete, file_update
from tests.scale.conftest import Servers
from tests.scale.test_published import PAGE, fetch


def test_every_process_serves_each_save_and_closes_with_the_project_at_once(
    servers: Servers, django_user_model: type[User]
) -> None:
    owner = django_user_model.objects.create_user("ines", password="a long passphrase here")
    project = Project.objects.create(owner=owner, name="Bakery")
    author = Author.person(owner)
    page = "/index.html"
    assert isinstance(
        file_create(project=project, path=page, content=PAGE.format("v1"), author=author), FileWrite
    )
    assert isinstance(
        file_create(project=project, path="/a.css", content="a{}", author=author), FileWrite
    )
    a, b = servers.start("A"), servers.start("B")
    base = f"/preview/{project.preview_token}/"
    for server in (a, b):  # both read it, and keep what they read
        for _ in range(2):
            assert fetch(server, base + "a.css") == (200, "a{}")
            assert fetch(server, base)[0] == 200

    assert isinstance(
        file_update(project=project, path="/a.css", content="b{}", author=author), FileWrite
    )
    assert isinstance(file_delete(project=project, path=page, author=author), FileWrite)
    for server in (a, b):
        assert fetch(server, base + "a.css") == (200, "b{}")
        assert fetch(server, base)[0] == 404

    new = project_rotate_preview_token(project=project)
    for server in (a, b):
        assert fetch(server, base + "a.css")[0] == 410
        assert fetch(server, f"/preview/{new}/a.css") == (200, "b{}")

    assert project_purge(project=project) is None
    for server in (a, b):
        assert fetch(server, f"/preview/{new}/a.css")[0] == 404
