"""The workspace page is given the numbers its script keeps to, from the rules
the server checks: pictures per message, attachments of each kind, and where
each attached field is cut. The script has no copy of its own."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from chat.agent.attachments import MAX_ELEMENTS_PER_MESSAGE, MAX_PROBLEMS_PER_MESSAGE
from common.bridge import PROBLEMS_PER_PAGE
from projects.models import Project

pytestmark = pytest.mark.django_db


def _limits(client: Client, project: Project) -> dict[str, object]:
    page = client.get(reverse("workspace", kwargs={"project_id": project.pk})).content.decode()
    found = re.search(r'<script id="chat-limits" type="application/json">(.*?)</script>', page)
    assert found, "the page carries its limits"
    limits = json.loads(found.group(1))
    assert isinstance(limits, dict)
    return limits


def test_the_page_is_given_the_servers_limits(
    user_client: Client, starter_project: Project, settings
) -> None:
    settings.BUILTIT_MAX_CHAT_IMAGES = 2
    limits = _limits(user_client, starter_project)
    assert limits["pictures"] == 2
    attachments = limits["attachments"]
    assert isinstance(attachments, dict)
    assert attachments["problem"] == MAX_PROBLEMS_PER_MESSAGE
    assert attachments["element"] == MAX_ELEMENTS_PER_MESSAGE
    assert attachments["cut"] == {
        "message": 500,
        "file": 300,
        "page": 300,
        "selector": 200,
        "tag": 40,
        "text": 100,
    }


def test_the_page_is_given_how_many_problems_a_page_of_the_preview_reports(
    user_client: Client, starter_project: Project
) -> None:
    assert _limits(user_client, starter_project)["page_problems"] == PROBLEMS_PER_PAGE
