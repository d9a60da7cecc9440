"""The dashboard's thumbnails, in Chromium: a card shows its site's
home page, whose scripts do not run there; a project without one shows a
placeholder."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from projects.lifecycle import project_create
from projects.models import Project
from projects.services import Author, file_create
from tests.browser.conftest import sign_in

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)

HOME = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Night owl</title></head>
<body><h1>Night owl</h1>
<script>document.querySelector("h1").textContent = "Scripts ran";</script>
</body></html>
"""


def _project(owner: User, name: str) -> Project:
    project = project_create(owner=owner, name=name)
    assert isinstance(project, Project)
    return project


@pytest.mark.parametrize("size", [(1440, 900), (390, 844)], ids=["wide", "phone"])
def test_a_card_shows_its_home_page_without_running_its_scripts(
    page: Page, live_server, browser_user: User, size: tuple[int, int]
) -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    blank = _project(browser_user, "Nothing yet")
    site = _project(browser_user, "Night owl")
    file_create(project=site, path="/index.html", content=HOME, author=Author.person(browser_user))
    sign_in(page, live_server.url)

    card = page.locator(f"#project-{site.pk}")
    frame = card.locator(".project-thumb iframe")
    expect(frame).to_have_attribute("sandbox", "")
    thumbnail = card.frame_locator(".project-thumb iframe")
    expect(thumbnail.locator("h1")).to_have_text("Night owl")
    box = card.locator(".project-thumb").bounding_box()
    assert box is not None
    assert box["x"] + box["width"] <= size[0]
    expect(page.locator(f"#project-{blank.pk} .thumb-empty")).to_have_text("No home page yet")
    # A click on the thumbnail is a click on the card's link.
    card.locator(".project-thumb").click()
    page.wait_for_url(f"{live_server.url}/projects/{site.pk}/")
