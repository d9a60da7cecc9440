from __future__ import annotations

import pytest

from tests.fakes.script import ToolCallScript, text, tool_calls
from tests.loop_support import fake_client, kinds, turn_events


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("n", range(15))
async def test_exp(project, fake_openrouter, n) -> None:
    fake_openrouter.script(
        tool_calls(ToolCallScript("list_project_files", {})),
        tool_calls(
            ToolCallScript("create_file", {"path": "/index.html", "content": "<h1>Hi</h1>"}),
            ToolCallScript("create_file", {"path": "/styles.css", "content": "h1{}"}),
            ToolCallScript("create_file", {"path": "/script.js", "content": "1;"}),
        ),
        text("Done: a page."),
    )
    async with fake_client(fake_openrouter) as client:
        events = await turn_events(client, project, "Make a site")
    print("\nKINDS", kinds(events))
