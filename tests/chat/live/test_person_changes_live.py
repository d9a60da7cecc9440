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

from projects.models import Membership, Project
from projects.selectors import revision_newest
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


async def test_a_tab_back_after_its_socket_was_down_gets_the_files_as_they_are(
    starter_project: Project, user: User
) -> None:
    # While the tab's socket was down, the person saved the home page elsewhere.
    url = f"/projects/{starter_project.pk}/files/save/"
    saved = {"path": "/index.html", "content": "<h1>Saved elsewhere</h1>\n", "version": 1}
    assert await _post(user, url, saved, "other1") == 200

    async with opened(starter_project, user, as_json=False) as page:
        await frames_until(page, 'id="chat-signal"')
        # The editor holds the version it had: the tree, and news of that file.
        await page.send_to(
            text_data=json.dumps({"action": "files", "open": "/index.html", "version": 1})
        )
        shown = (await frames_until(page, 'id="file-tree"'))[-1]
        signal = _signal(shown)
        assert (signal["files"], signal["by"]) == (["/index.html"], "person")

        # The version it holds is the latest: the tree alone.
        await page.send_to(
            text_data=json.dumps({"action": "files", "open": "/index.html", "version": 2})
        )
        shown = (await frames_until(page, 'id="file-tree"'))[-1]
        assert "data-signal" not in shown

        # An empty editor hears that the home page exists.
        await page.send_to(text_data=json.dumps({"action": "files", "open": "", "version": 0}))
        shown = (await frames_until(page, 'id="file-tree"'))[-1]
        assert _signal(shown)["files"] == ["/index.html"]

        await page.send_to(text_data=json.dumps({"action": "files", "version": "two"}))
        refused = await frames_until(page, "chat-notice")
        assert "version must be a number" in refused[-1]


@sync_to_async
def _newest(project: Project) -> int:
    return revision_newest(project=project)


async def test_a_tabs_first_socket_hears_what_changed_since_its_page_was_drawn(
    starter_project: Project, user: User, other_user: User
) -> None:
    """Changes committed between the page's drawing and its socket's joining
    the project reached no message of the tab's: its first "files" frame,
    with the revision the page was drawn from, asks for them."""
    drawn = await _newest(starter_project)
    await sync_to_async(Membership.objects.create)(
        project=starter_project, user=other_user, role="editor", added_by=user
    )
    url = f"/projects/{starter_project.pk}/files/"
    saved = {"path": "/index.html", "content": "<h1>Meanwhile</h1>\n", "version": 1}
    assert await _post(other_user, url + "save/", saved, "hers01") == 200
    renamed = {"path": "/script.js", "new_path": "/app.js", "version": 1}
    assert await _post(other_user, url + "rename/", renamed, "hers01") == 200

    async with opened(starter_project, user, as_json=False) as page:
        await frames_until(page, 'id="chat-signal"')
        await page.send_to(text_data=json.dumps({"action": "files", "since": drawn}))
        shown = (await frames_until(page, 'id="file-tree"'))[-1]
        assert 'data-path="/app.js"' in shown
        signal = _signal(shown)
        assert signal["files"] == ["/app.js", "/index.html", "/script.js"]
        assert (signal["by"], signal["tab"], signal["who"]) == ("person", "", "mallory")

        # Drawn from the newest revision: nothing changed, nothing is sent (the
        # next frame is the answer to a refused one).
        await page.send_to(
            text_data=json.dumps({"action": "files", "since": await _newest(starter_project)})
        )
        await page.send_to(text_data=json.dumps({"action": "files", "since": -1}))
        refused = await frames_until(page, "chat-notice")
        assert len(refused) == 1
        assert "drawn from must be a number" in refused[-1]
