"""A person's own change in the workspace reaches the project's other tabs (issue
31), as the assistant's do: HTML (tree and signal, naming the tab that made it,
which has followed already) or, in JSON mode, an event."""

from __future__ import annotations

import html
import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.test import Client

from projects.models import Project
from tests.chat.live.tabs import events_until, frames_until, opened

pytestmark = pytest.mark.django_db(transaction=True)


def _signal(frame: str) -> dict[str, Any]:
    raw = frame.split('data-signal="', 1)[1].split('"', 1)[0]
    found: dict[str, Any] = json.loads(html.unescape(raw))
    return found


@sync_to_async
def _post(user: User, url: str, data: dict[str, object], tab: str) -> int:
    client = Client()
    client.force_login(user)
    return client.post(url, data, HTTP_HX_REQUEST="true", HTTP_X_BUILTIT_TAB=tab).status_code


async def test_a_save_in_one_tab_reaches_every_tab(starter_project: Project, user: User) -> None:
    async with (
        opened(starter_project, user, as_json=False) as page,
        opened(starter_project, user, as_json=True) as script,
    ):
        await frames_until(page, 'id="chat-signal"')
        url = f"/projects/{starter_project.pk}/files/save/"
        saved = {"path": "/index.html", "content": "<h1>Mine</h1>\n", "version": 1}
        assert await _post(user, url, saved, "k3tab9") == 200

        moved = await events_until(script, "files_moved")
        assert moved[-1] == {
            "type": "files_moved",
            "paths": ["/index.html"],
            "turn": None,
            "by": "person",
        }
        shown = (await frames_until(page, 'id="file-tree"'))[-1]
        signal = _signal(shown)
        assert signal["files"] == ["/index.html"]
        assert (signal["by"], signal["tab"]) == ("person", "k3tab9")


async def test_a_rename_names_both_paths_and_a_strange_tab_name_is_not_echoed(
    starter_project: Project, user: User
) -> None:
    async with opened(starter_project, user, as_json=False) as page:
        await frames_until(page, 'id="chat-signal"')
        url = f"/projects/{starter_project.pk}/files/rename/"
        renamed = {"path": "/script.js", "new_path": "/app.js", "version": 1}
        assert await _post(user, url, renamed, '"><script>') == 200

        signal = _signal((await frames_until(page, 'data-path="/app.js"'))[-1])
        assert (signal["files"], signal["by"], signal["tab"]) == (
            ["/script.js", "/app.js"],
            "person",
            "",
        )
