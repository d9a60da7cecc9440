"""The offline demo as a provider: an httpx transport that answers
`POST …/chat/completions` in-process, streaming the planner's step as OpenRouter
does (server-sent events: reasoning, text, tool calls in fragments, the finish,
usage at zero cost), and `GET …/models` with its one model at no price. The
chat client reads it like any provider, so every part of the page (streaming,
cards, usage) shows in the demo; no network, no key, no second process.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
import weakref
from collections.abc import AsyncIterator
from typing import Any

import httpx
from django.conf import settings

from chat.llm import ClientConfig, LLMClient
from common.jsontypes import NOT_JSON, decoded
from demo.answering import demo_step
from demo.steps import Step

DEMO_MODEL = "builtit/demo"
DEMO_LABEL = "Demo (offline, scripted)"
_BASE_URL = "http://demo.builtit.invalid/api/v1"
_PIECE = 14  # characters of text per streamed piece
_ARGUMENT_PIECE = 120
# The provider's model list as OpenRouter writes it: the demo costs nothing.
_MODEL_LIST = {"data": [{"id": DEMO_MODEL, "pricing": {"prompt": "0", "completion": "0"}}]}


def demo_client() -> LLMClient:
    """A new client whose provider is the demo."""
    config = ClientConfig(base_url=_BASE_URL, api_key="demo", max_retries=0)
    return LLMClient(config, transport=DemoTransport())


_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LLMClient] = (
    weakref.WeakKeyDictionary()
)


def running_demo_client() -> LLMClient:
    """The running event loop's demo client; it holds no connection, so there
    is nothing to close."""
    loop = asyncio.get_running_loop()
    client = _clients.get(loop)
    if client is None:
        client = _clients[loop] = demo_client()
    return client


class DemoTransport(httpx.AsyncBaseTransport):
    def __init__(self, *, pause: float | None = None) -> None:
        self._pause = pause

    @property
    def pause(self) -> float:
        """Seconds between streamed pieces: as given, else as the settings say now."""
        return settings.BUILTIT_DEMO_PAUSE if self._pause is None else self._pause

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET" and request.url.path.endswith("/models"):
            return httpx.Response(200, json=_MODEL_LIST)
        if request.method != "POST" or not request.url.path.endswith("/chat/completions"):
            return httpx.Response(404, json={"error": {"code": 404, "message": "Not found"}})
        body = decoded(await request.aread())
        if body is NOT_JSON:
            return httpx.Response(400, json={"error": {"code": 400, "message": "Not JSON"}})
        # Off the event loop: the demo's reading is plain Python, and a socket
        # or another turn must never wait on it.
        step = await asyncio.to_thread(demo_step, body if isinstance(body, dict) else {})
        prompt_tokens = max(1, len(request.content) // 4)
        return httpx.Response(
            200,
            headers={"content-type": "text/event-stream"},
            stream=_Events(step, prompt_tokens, self.pause),
        )


class _Events(httpx.AsyncByteStream):
    def __init__(self, step: Step, prompt_tokens: int, pause: float) -> None:
        self.step = step
        self.prompt_tokens = prompt_tokens
        self.pause = pause
        self.id = f"gen-demo-{uuid.uuid4().hex[:12]}"
        self.created = int(time.time())

    async def __aiter__(self) -> AsyncIterator[bytes]:
        step = self.step
        for piece in _pieces(step.reasoning, _PIECE):
            yield self._chunk({"content": "", "reasoning": piece})
            await asyncio.sleep(self.pause)
        for piece in _pieces(step.content, _PIECE):
            yield self._chunk({"content": piece})
            await asyncio.sleep(self.pause)
        for index, (name, arguments) in enumerate(step.calls):
            text = json.dumps(arguments, ensure_ascii=False)
            head = {"index": index, "id": f"call_{uuid.uuid4().hex[:16]}", "type": "function"}
            yield self._chunk(
                {
                    "content": None,
                    "tool_calls": [head | {"function": {"name": name, "arguments": ""}}],
                }
            )
            for piece in _pieces(text, _ARGUMENT_PIECE):
                yield self._chunk(
                    {
                        "content": None,
                        "tool_calls": [{"index": index, "function": {"arguments": piece}}],
                    }
                )
            await asyncio.sleep(self.pause)
        finish = "tool_calls" if step.calls else "stop"
        yield self._chunk({"content": ""}, finish)
        completion = max(1, (len(step.reasoning) + len(step.content)) // 4)
        completion += sum(len(json.dumps(args)) for _, args in step.calls) // 4
        usage = {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": completion,
            "total_tokens": self.prompt_tokens + completion,
            "cost": 0,
        }
        yield self._chunk({"content": ""}, None, usage=usage)
        yield b"data: [DONE]\n\n"

    def _chunk(
        self,
        delta: dict[str, Any],
        finish: str | None = None,
        *,
        usage: dict[str, Any] | None = None,
    ) -> bytes:
        data: dict[str, Any] = {
            "id": self.id,
            "provider": "Built-It demo",
            "model": DEMO_MODEL,
            "object": "chat.completion.chunk",
            "created": self.created,
            "choices": [
                {"index": 0, "delta": {"role": "assistant", **delta}, "finish_reason": finish}
            ],
        }
        if usage is not None:
            data["usage"] = usage
        return b"data: " + json.dumps(data, ensure_ascii=False).encode() + b"\n\n"


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]
