"""`manage.py chat` as the web: without a key the turn goes to the offline demo,
which the workspace also picks then, and `--model builtit/demo` reaches the
demo whatever is set; descriptions written the ways people write them build
their site from the terminal too."""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from pytest_django.fixtures import Settings as SettingsWrapper

from chat.llm.config import OPENROUTER_URL
from demo.transport import DEMO_MODEL
from fakes.openrouter import FakeOpenRouter
from projects.models import Project, ProjectFile
from tests.demo.phrasings import PHRASINGS, Phrasing, assert_built

pytestmark = pytest.mark.django_db(transaction=True)

# A good part of the table, kept short: the loop's tests run all of it.
SOME = PHRASINGS[::4]


@pytest.fixture
def no_key(settings: SettingsWrapper) -> SettingsWrapper:
    settings.OPENROUTER_BASE_URL = OPENROUTER_URL
    settings.OPENROUTER_API_KEY = ""
    return settings


def run(*args: str) -> tuple[str, str, int]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("chat", *args, stdout=out, stderr=err)
    except SystemExit as exit_:
        return out.getvalue(), err.getvalue(), int(exit_.code or 0)
    return out.getvalue(), err.getvalue(), 0


def home_page(out: str) -> str:
    created = json.loads(out.splitlines()[0])
    assert created["type"] == "project_created"
    return ProjectFile.objects.get(project_id=created["project_id"], path="/index.html").content


def test_without_a_key_the_readmes_example_builds_with_the_demo(
    no_key: SettingsWrapper, user: User
) -> None:
    out, err, status = run(
        "--new-project", "Bakery", "--owner", user.username, "Build a site for my bakery"
    )

    assert status == 0, err
    assert "no API key" not in out + err
    assert "I'll build **Your bakery**, a bakery" in out
    assert "✓ create_file: Created /index.html" in out
    assert "Done: the site is built." in out
    assert "3 files changed:" in out


@pytest.mark.parametrize("phrasing", SOME, ids=str)
def test_without_a_key_a_description_builds_from_the_terminal(
    no_key: SettingsWrapper, user: User, phrasing: Phrasing
) -> None:
    out, err, status = run(
        "--new-project", "Started", "--owner", user.username, phrasing.words, "--json"
    )

    assert status == 0, err
    started = json.loads(out.splitlines()[1])
    assert started["type"] == "turn_started"
    assert started["model"] == DEMO_MODEL
    assert_built(home_page(out), phrasing)


def test_the_demo_model_is_reached_whatever_is_set(
    settings: SettingsWrapper, fake_openrouter: FakeOpenRouter, starter_project: Project
) -> None:
    settings.OPENROUTER_BASE_URL = fake_openrouter.base_url
    settings.OPENROUTER_API_KEY = "sk-test"

    out, err, status = run(str(starter_project.pk), "a bakery called Crumb", "--model", DEMO_MODEL)

    assert status == 0, err
    assert fake_openrouter.requests == [], "the demo answers in-process"
    assert "Done: the site is built." in out
    page = ProjectFile.objects.get(project=starter_project, path="/index.html").content
    assert "<h1>Crumb</h1>" in page


def test_a_greeting_from_the_terminal_gets_help_and_changes_nothing(
    no_key: SettingsWrapper, starter_project: Project
) -> None:
    before = dict(starter_project.files.values_list("path", "content"))

    out, _, status = run(str(starter_project.pk), "hello")

    assert status == 0
    assert "I'm the offline demo" in out
    assert dict(starter_project.files.values_list("path", "content")) == before
