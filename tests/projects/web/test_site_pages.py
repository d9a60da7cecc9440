"""The sites origin's own pages a visitor of a published site may meet (its
password, "not published", taken down) are styled by a stylesheet the origin
serves on every host, with no inline style under a policy that allows nothing
else, and name the site they speak for."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache
from django.test import Client

from projects.models import Project, Site
from projects.publish.services import site_protect, site_unpublish
from projects.web.plain import PAGES_CSS_PATH
from tests.conftest import SITES_HOST
from tests.projects.publish.test_publish import published, site_project

__all__ = ["site_project"]  # a fixture, used by name

HOST = "lisbon-bakery." + SITES_HOST
INLINE = re.compile(r"<style|\sstyle=|<script", re.IGNORECASE)


@pytest.fixture(autouse=True)
def _no_guesses_counted():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def visitor() -> Client:
    return Client(HTTP_HOST=HOST)


def assert_styled_alone(html: str, policy: str) -> None:
    assert f'<link rel="stylesheet" href="{PAGES_CSS_PATH}">' in html
    assert not INLINE.search(html), "no inline style or script"
    assert "default-src 'none'" in policy
    assert "style-src 'self'" in policy
    assert "unsafe-inline" not in policy


def test_the_password_page_is_styled_without_inline_style_and_names_the_site(
    visitor: Client, site_project: Project
) -> None:
    site = published(site_project)
    assert site_protect(site=site, password="correct horse battery") is None
    gate = visitor.get("/")
    assert gate.status_code == 403
    html = gate.content.decode()
    assert_styled_alone(html, gate["Content-Security-Policy"])
    assert "form-action 'self'" in gate["Content-Security-Policy"]
    assert '<p class="site">lisbon-bakery</p><h1>This site has a password</h1>' in html
    assert "<title>This site has a password · lisbon-bakery</title>" in html
    assert 'type=password required autofocus maxlength="128"' in html
    wrong = visitor.post("/", {"password": "not the password"})
    assert '<p class="said" role="alert">That is not the password.</p>' in wrong.content.decode()
    # Its stylesheet is served before the password is given: it is no page of the site.
    sheet = visitor.get(PAGES_CSS_PATH)
    assert sheet.status_code == 200
    assert sheet["Content-Type"] == "text/css; charset=utf-8"
    assert b".page {" in sheet.content
    assert "immutable" in sheet["Cache-Control"]


def test_the_not_published_page_is_styled_and_names_the_site(
    visitor: Client, sites_client: Client, site_project: Project
) -> None:
    site = published(site_project)
    site_unpublish(site=site)
    gone = visitor.get("/about")
    assert gone.status_code == 410
    html = gone.content.decode()
    assert_styled_alone(html, gone["Content-Security-Policy"])
    assert '<p class="site">lisbon-bakery</p><h1>This site is not published</h1>' in html
    # At the shared address too, sandboxed as everything there is.
    shared = sites_client.get("/s/lisbon-bakery/")
    assert shared.status_code == 410
    assert '<p class="site">lisbon-bakery</p>' in shared.content.decode()
    assert shared["Content-Security-Policy"].startswith("sandbox ")
    assert sites_client.get(PAGES_CSS_PATH).status_code == 200


def test_a_site_taken_down_says_so_under_its_name(visitor: Client, site_project: Project) -> None:
    published(site_project)
    Site.objects.filter(name="lisbon-bakery").update(taken_down="It broke the rules.")
    down = visitor.get("/")
    assert down.status_code == 410
    html = down.content.decode()
    assert_styled_alone(html, down["Content-Security-Policy"])
    assert '<p class="site">lisbon-bakery</p><h1>This site was taken down</h1>' in html
    assert "It broke the rules." in html


def test_the_stylesheets_path_can_never_be_a_file_of_the_site(
    visitor: Client, site_project: Project
) -> None:
    published(site_project)
    # Its "@" is in no file's path: the site's own addresses stay the site's.
    assert "@" in PAGES_CSS_PATH
    assert visitor.get("/@builtit/other.css").status_code == 404
    assert visitor.post(PAGES_CSS_PATH).status_code == 405
