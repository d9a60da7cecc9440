"""The dashboard's thumbnails: each card shows its home page as it is
now, framed from the sites origin with no scripts, forms or focus; a project
without a home page shows a placeholder."""

from __future__ import annotations

import re

from django.test import Client

from projects.models import Project
from tests.conftest import SITES_HOST


def _card(html: str, project: Project) -> str:
    match = re.search(rf'<li class="project-card" id="project-{project.pk}">(.*?)</li>', html, re.S)
    assert match, f"no card for {project.name}"
    return match.group(1)


def test_a_card_frames_the_home_page_from_the_sites_origin_without_scripts(
    user_client: Client, starter_project: Project
) -> None:
    page = user_client.get("/")
    card = _card(page.content.decode(), starter_project)
    frame = re.search(r"<iframe[^>]*>", card)
    assert frame, card
    tag = frame.group(0)
    address = f"http://{SITES_HOST}/preview/{starter_project.preview_token}/"
    assert f'data-src="{address}"' in tag
    # An empty sandbox: the site's scripts, forms and popups do not run on the dashboard.
    assert 'sandbox=""' in tag
    assert 'tabindex="-1"' in tag
    assert 'aria-hidden="true"' in tag
    assert 'loading="lazy"' in tag
    policy = dict(
        (part.split()[0], part.split()[1:]) for part in page["Content-Security-Policy"].split("; ")
    )
    assert policy["frame-src"] == ["'self'", f"http://{SITES_HOST}"]
    assert policy["script-src"] == ["'self'"]


def test_a_project_without_a_home_page_shows_a_placeholder(
    user_client: Client, project: Project
) -> None:
    card = _card(user_client.get("/").content.decode(), project)
    assert "<iframe" not in card
    assert "No home page yet" in card
