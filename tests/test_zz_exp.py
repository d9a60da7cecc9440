from __future__ import annotations

import pytest

from tests.fakes.script import ToolCallScript, text, tool_calls
from tests.loop_support import fake_client, kinds, turn_events

W = 1 << 20

@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("n", range(30))
async def test_exp(project, fake_openrouter, n) -> None:
    fake_openrouter.script(
        tool_calls(ToolCallScript("list_project_files", {}), piece_size=W),
        tool_calls(
            ToolCallScript("create_file", {"path": "/index.html", "content": "<h1>Hi</h1>"}),
            ToolCallScript("create_file", {"path": "/styles.css", "content": "h1{}"}),
            ToolCallScript("create_file", {"path": "/script.js", "content": "1;"}),
            piece_size=W,
        ),
        text("Done: a page.", piece_size=W),
    )
    async with fake_client(fake_openrouter) as client:
        events = await turn_events(client, project, "Make a site")
    print("\nKINDS", kinds(events))
