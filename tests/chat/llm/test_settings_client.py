"""The process's client comes from settings, one per event loop, and the fake
OpenRouter also runs on its own as the offline demo."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import httpx

from chat.llm import ChatMessage, ChatRequest, MessageAssembler, close_client, get_client
from demo.answering import demo_step
from fakes.script import text

ROOT = Path(__file__).resolve().parents[3]


async def test_get_client_follows_settings_and_is_shared(settings, fake_openrouter) -> None:
    settings.OPENROUTER_BASE_URL = fake_openrouter.base_url
    settings.OPENROUTER_API_KEY = "sk-or-v1-from-settings"
    settings.BUILTIT_APP_URL = "https://builder.example.com"
    fake_openrouter.script(text("From settings"))

    client = get_client()
    assembler = MessageAssembler()
    request = ChatRequest(model="openai/gpt-4o-mini", messages=[ChatMessage.user("hi")])
    async with client.stream(request) as pieces:
        async for piece in pieces:
            assembler.add(piece)

    assert get_client() is client
    assert assembler.message().content == "From settings"
    headers = fake_openrouter.requests[0].headers
    assert headers["authorization"] == "Bearer sk-or-v1-from-settings"
    assert headers["http-referer"] == "https://builder.example.com"
    await client.aclose()


async def test_changed_settings_give_a_new_client(settings) -> None:
    settings.OPENROUTER_BASE_URL = "http://127.0.0.1:9/one/v1"
    first = get_client()
    settings.OPENROUTER_BASE_URL = "http://127.0.0.1:9/two/v1"
    second = get_client()

    assert first is not second
    assert second.config.base_url == "http://127.0.0.1:9/two/v1"
    await first.aclose()
    await second.aclose()


async def test_closing_the_loops_client_closes_its_connections(settings, fake_openrouter) -> None:
    # At shutdown (builtit.server.shutdown): the pool closes its sockets, and a later
    # request on the loop gets a client of its own.
    settings.OPENROUTER_BASE_URL = fake_openrouter.base_url
    fake_openrouter.script(text("Before the shutdown"))
    client = get_client()
    request = ChatRequest(model="openai/gpt-4o-mini", messages=[ChatMessage.user("hi")])
    async with client.stream(request) as pieces:
        async for _ in pieces:
            pass

    await close_client()

    assert client._http.is_closed
    assert get_client() is not client
    await close_client()
    await close_client()  # nothing left to close


def test_each_event_loop_gets_its_own_client() -> None:
    # httpx connections belong to the loop that opened them; sharing a client
    # across loops (e.g. two management commands in one process) would break.
    clients = []

    async def remember() -> None:
        client = get_client()
        assert get_client() is client
        clients.append(client)
        await client.aclose()

    asyncio.run(remember())
    asyncio.run(remember())

    assert clients[0] is not clients[1]


def test_the_fake_runs_on_its_own_with_the_demo() -> None:
    process = subprocess.Popen(
        [sys.executable, "-u", "-m", "fakes.openrouter", "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        url = next(word for word in line.split() if word.startswith("http://127.0.0.1:"))
        tools = ("list_project_files", "read_file", "create_file", "update_file")
        body = {
            "model": "openai/gpt-4o-mini",
            "messages": [{"role": "user", "content": "A bakery called Crumb"}],
            "tools": [{"type": "function", "function": {"name": name}} for name in tools],
        }
        answer = httpx.post(f"{url}/chat/completions", json=body, timeout=10).json()
    finally:
        process.terminate()
        process.wait(timeout=10)

    # The product's demo answers (it looks at the project before it builds).
    calls = answer["choices"][0]["message"]["tool_calls"]
    expected = [name for name, _ in demo_step(body).calls]
    assert [call["function"]["name"] for call in calls] == expected == ["list_project_files"]
