"""`manage.py chat --plan`: a plan turn from the terminal, read-only
as in the browser, readable or as JSON events."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from pytest_django.fixtures import Settings as SettingsWrapper

from chat.models import Message
from fakes.openrouter import FakeOpenRouter
from fakes.script import Reply, ToolCallScript
from projects.models import FileRevision, Project, ProjectFile

pytestmark = pytest.mark.django_db(transaction=True)


PLAN = "1. Rewrite `index.html` as a bakery's page.\n2. Add `menu.html`."


@pytest.fixture
def planner(settings: SettingsWrapper, fake_openrouter: FakeOpenRouter) -> FakeOpenRouter:
    """A model that reads the page, then answers with a plan."""
    settings.OPENROUTER_BASE_URL = fake_openrouter.base_url
    settings.OPENROUTER_API_KEY = "sk-test"
    settings.OPENROUTER_MAX_RETRIES = 0
    fake_openrouter.script(
        Reply(tool_calls=[ToolCallScript("read_file", {"path": "/index.html"})]),
        Reply(content=PLAN),
    )
    return fake_openrouter


def run(*args: str) -> tuple[str, int]:
    out = io.StringIO()
    try:
        call_command("chat", *args, stdout=out, stderr=io.StringIO())
    except SystemExit as exit_:
        return out.getvalue(), int(exit_.code or 0)
    return out.getvalue(), 0


def project_state(project: Project) -> tuple[dict[str, str], int]:
    files = dict(ProjectFile.objects.filter(project=project).values_list("path", "content"))
    return files, FileRevision.objects.filter(project=project).count()


def offered(fake: FakeOpenRouter) -> list[set[str]]:
    requests: list[Any] = fake.requests
    return [{tool["function"]["name"] for tool in r.json.get("tools") or []} for r in requests]


def test_plan_prints_the_plan_and_changes_nothing(
    planner: FakeOpenRouter, starter_project: Project
) -> None:
    before = project_state(starter_project)

    out, status = run(str(starter_project.pk), "Build a site for my bakery", "--plan")

    assert status == 0
    assert "plan only: nothing is changed" in out
    assert PLAN in out
    assert "files changed: none" in out
    assert project_state(starter_project) == before
    looking = {"list_project_files", "read_file", "search_files", "check_site"}
    assert offered(planner)
    assert all(names == looking for names in offered(planner))
    asked = Message.objects.get(role=Message.Role.USER)
    assert asked.metadata["plan"] is True


def test_plan_in_json_mode_says_the_turn_is_a_plan(
    planner: FakeOpenRouter, starter_project: Project
) -> None:
    out, status = run(str(starter_project.pk), "Build a site for my bakery", "--plan", "--json")

    events = [json.loads(line) for line in out.splitlines()]
    assert status == 0
    assert events[0]["type"] == "turn_started"
    assert events[0]["plan"] is True
    assert events[-1] == {"type": "changes", "turn": events[0]["message_id"], "files": []}
