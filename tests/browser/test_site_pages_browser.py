"""The pages a visitor of a published site may meet instead of it, in real
Chromium: its password page and its "not published" page, styled by the sites
origin's own stylesheet under a policy that allows nothing inline (nothing is
refused: the console says nothing of the policy), naming the site, at a
phone's width and a desktop's, light and dark."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from projects.files.results import FileWrite
from projects.lifecycle import project_create
from projects.models import Project
from projects.publish.services import PublishRefused, site_protect, site_publish, site_unpublish
from projects.services import Author, file_create
from tests.browser.conftest import ARTIFACTS
from tests.browser.test_layout_browser import CONTRAST
from tests.servers import sites_url_of

pytestmark = pytest.mark.django_db(transaction=True)


def _published(owner: User) -> Project:
    project = project_create(owner=owner, name="Crumb")
    assert isinstance(project, Project)
    page = '<!doctype html><html lang="en"><title>Crumb</title><h1>Crumb</h1></html>'
    written = file_create(
        project=project, path="/index.html", content=page, author=Author.person(owner)
    )
    assert isinstance(written, FileWrite)
    assert not isinstance(site_publish(project=project, user=owner, name="crumb"), PublishRefused)
    return project


@pytest.mark.parametrize(("width", "scheme"), [(390, "light"), (1440, "dark")])
def test_the_password_and_offline_pages_are_styled_and_name_the_site(
    browser, live_server, browser_user: User, width: int, scheme: str
) -> None:
    project = _published(browser_user)
    address = sites_url_of(live_server.url).replace("://sites.", "://crumb.sites.") + "/"
    site = project.site
    assert site_protect(site=site, password="flour and water") is None
    context = browser.new_context(viewport={"width": width, "height": 800}, color_scheme=scheme)
    try:
        visitor = context.new_page()
        refused: list[str] = []
        visitor.on(
            "console",
            lambda message: (
                refused.append(message.text) if "Content Security Policy" in message.text else None
            ),
        )
        asked = visitor.goto(address)
        assert asked is not None
        assert asked.status == 403
        main = visitor.locator("main.page")
        expect(main.locator(".site")).to_have_text("crumb")
        expect(main.locator("h1")).to_have_text("This site has a password")
        expect(visitor.locator("#password")).to_be_focused()
        # Styled: the card has its border and rounded corners, the button its colour.
        assert main.evaluate("(el) => getComputedStyle(el).borderRadius") == "12px"
        button = visitor.locator("button")
        assert button.evaluate("(el) => getComputedStyle(el).fontWeight") == "600"
        box = visitor.locator("#password").bounding_box()
        assert box is not None
        assert box["x"] + box["width"] <= width
        visitor.keyboard.type("bread and butter")
        with visitor.expect_navigation():
            visitor.keyboard.press("Enter")
        expect(visitor.locator(".said")).to_have_text("That is not the password.")
        assert visitor.evaluate(CONTRAST) == []
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        visitor.screenshot(path=str(ARTIFACTS / f"site-password-{width}-{scheme}.png"))

        site.refresh_from_db()
        site_unpublish(site=site)
        gone = visitor.goto(address)
        assert gone is not None
        assert gone.status == 410
        expect(main.locator(".site")).to_have_text("crumb")
        expect(main.locator("h1")).to_have_text("This site is not published")
        assert main.evaluate("(el) => getComputedStyle(el).borderRadius") == "12px"
        assert visitor.evaluate(CONTRAST) == []
        visitor.screenshot(path=str(ARTIFACTS / f"site-offline-{width}-{scheme}.png"))
        assert refused == []
    finally:
        context.close()
