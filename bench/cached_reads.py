"""The tokens a turn saves when reads it already made are not sent again
(chat.agent.read_cache, issue 29).

Not a test: prints figures. Run with `.venv/bin/python bench/cached_reads.py`.

A project holds the demo's three-file bakery site (demo.site.site_files:
an HTML page, a stylesheet, a script). A scripted model, served by the fake
OpenRouter on 127.0.0.1, reads the three files, edits the page, reads all
three again to check its work, then answers: a turn that re-reads three files,
one of which it changed. The same turn runs twice through the real loop, with
the cache and with it switched off (the earlier-call lookup answering "none"),
and the requests the fake received are measured: the tokens of each request's
prompt as chat.agent.budget estimates them (what the caps are reckoned in) and
its bytes.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ["BUILTIT_DATA_DIR"] = tempfile.mkdtemp(prefix="builtit-bench-")
os.environ.setdefault("BUILTIT_HTTPS", "0")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "builtit.settings")

import django

django.setup()

from django.contrib.auth.models import User
from django.core.management import call_command

from chat.agent import budget
from chat.agent.limits import TurnLimits
from chat.agent.loop import TurnRequest, run_turn
from chat.agent.read_cache import ReadCache
from chat.llm import ChatMessage, ClientConfig, LLMClient
from chat.services import conversation_create
from common import threads
from demo.site import brief_from, site_files
from fakes.openrouter import FakeOpenRouter
from fakes.script import Reply, ToolCallScript
from projects.files.results import FileWrite
from projects.lifecycle import project_create
from projects.models import Project
from projects.services import Author, file_create

LIMITS = TurnLimits(
    max_iterations=10,
    history_tokens=16_000,
    turn_cost_limit=None,
    project_cost_limit=None,
    tool_timeout=30.0,
)
PATHS = ("/index.html", "/styles.css", "/script.js")


def script(*, edit: bool) -> list[Reply]:
    """Read the three files; edit the page (or look for the button); read all
    three again; answer."""
    reads = [ToolCallScript("read_file", {"path": path}) for path in PATHS]
    footer = {"search": "</footer>", "replace": " · Open daily</footer>"}
    between = (
        ToolCallScript("edit_file", {"path": "/index.html", "edits": [footer]})
        if edit
        else ToolCallScript("search_files", {"query": "button"})
    )
    return [
        Reply(content="Let me look at the site.", tool_calls=reads),
        Reply(content="Now the footer.", tool_calls=[between]),
        Reply(content="Checking the result.", tool_calls=reads),
        Reply(content="Done: the footer now says the bakery opens daily."),
    ]


def setup() -> Project:
    call_command("migrate", verbosity=0)
    owner, _ = User.objects.get_or_create(username="bench")
    project = project_create(owner=owner, name="Bakery")
    assert isinstance(project, Project)
    author = Author.person(owner)
    for path, content in site_files(brief_from("a bakery called Crumb & Co.")).items():
        project.files.filter(path=f"/{path}").delete()
        written = file_create(project=project, path=f"/{path}", content=content, author=author)
        assert isinstance(written, FileWrite), written
    return project


async def one_turn(fake: FakeOpenRouter, project: Project, *, edit: bool) -> list[dict[str, Any]]:
    fake.requests.clear()
    fake.script(*script(edit=edit))
    conversation = await threads.run(conversation_create, project=project)
    client = LLMClient(ClientConfig(base_url=fake.base_url, api_key="sk-bench", max_retries=0))
    try:
        request = TurnRequest(project, conversation, "Add the opening hours to the footer")
        async for _ in run_turn(request, client=client, limits=LIMITS):
            pass
    finally:
        await client.aclose()
    return [recorded.json for recorded in fake.requests if recorded.json.get("messages")]


def measured(bodies: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """(estimated prompt tokens, bytes) of each request."""
    sizes = []
    for body in bodies:
        messages = [_message(m) for m in body["messages"]]
        tokens = budget.prompt_tokens(messages, [])
        sizes.append((tokens, len(json.dumps(body["messages"]).encode())))
    return sizes


def _message(raw: dict[str, Any]) -> ChatMessage:
    content = raw.get("content") or ""
    if raw.get("tool_calls"):
        content += json.dumps(raw["tool_calls"])
    return ChatMessage(raw["role"], content if isinstance(content, str) else json.dumps(content))


async def main() -> None:
    for edit, title in (
        (False, "Re-reading three unchanged files (read, search, read again)"),
        (True, "Re-reading three files after editing one (read, edit the page, read again)"),
    ):
        project = await threads.run(setup)
        with FakeOpenRouter() as fake:
            cached = measured(await one_turn(fake, project, edit=edit))
            project = await threads.run(setup)
            original = ReadCache.earlier
            ReadCache.earlier = lambda self, call, stamps: None  # type: ignore[method-assign]
            try:
                uncached = measured(await one_turn(fake, project, edit=edit))
            finally:
                ReadCache.earlier = original  # type: ignore[method-assign]
        report(title, uncached, cached)


def report(title: str, uncached: list[tuple[int, int]], cached: list[tuple[int, int]]) -> None:
    print(f"\n{title}")
    print("request  tokens (cache off)  tokens (cache on)  bytes (off)  bytes (on)")
    for number, (off, on) in enumerate(zip(uncached, cached, strict=True), 1):
        print(f"{number:>7}  {off[0]:>18,}  {on[0]:>17,}  {off[1]:>11,}  {on[1]:>10,}")
    total_off = sum(tokens for tokens, _ in uncached)
    total_on = sum(tokens for tokens, _ in cached)
    print(
        f"turn total: {total_off:,} prompt tokens without the cache, {total_on:,} with it: "
        f"{total_off - total_on:,} saved ({(total_off - total_on) / total_off:.0%}); "
        f"last request {uncached[-1][0]:,} -> {cached[-1][0]:,}"
    )


if __name__ == "__main__":
    asyncio.run(main())
