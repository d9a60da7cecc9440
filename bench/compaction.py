"""The tokens a 40-turn conversation sends with and without compaction
(chat.agent.compaction, issue 30).

Not a test: prints figures. Run with `.venv/bin/python bench/compaction.py`.

A scripted model, served by the fake OpenRouter on 127.0.0.1, answers 40 turns
of one conversation through the real loop: each request about 30 words, each
answer a summary of what was done of a given length (a model's usual closing
answer), one request per turn (the tool rounds of a real turn resend the same
history each round, so these figures multiply by its rounds). The same
conversation runs with compaction on (a summary is asked for when the earlier
turns pass the history's budget; the scripted summary is 300 words, the most
the prompt asks for) and off (the oldest turns are left out). Figures: each
turn's prompt as the context gauge counts it (chat.agent.context), the history
part of it, and the earlier turns the model read in full, as a summary, or not
at all; and the summary requests' own tokens, which compaction adds.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ["BUILTIT_DATA_DIR"] = tempfile.mkdtemp(prefix="builtit-bench-")
os.environ.setdefault("BUILTIT_HTTPS", "0")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "builtit.settings")

import django

django.setup()

from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command

from chat.agent import budget
from chat.agent.events import ContextEvent
from chat.agent.limits import TurnLimits
from chat.agent.loop import TurnRequest, run_turn
from chat.asks import SUMMARY_TASK
from chat.llm import ChatMessage, ClientConfig, LLMClient
from chat.services import conversation_create
from common import threads
from fakes.openrouter import FakeOpenRouter, RecordedRequest
from fakes.script import Reply, Scripted
from projects.lifecycle import project_create
from projects.models import Project

TURNS = 40
LIMITS = TurnLimits(
    max_iterations=10,
    history_tokens=settings.BUILTIT_HISTORY_TOKENS,
    turn_cost_limit=None,
    project_cost_limit=None,
    tool_timeout=30.0,
)
REQUEST = (
    "Turn {n}: on the menu page, add a section for our seasonal {thing}, with three "
    "items, their prices and a short line about where the flour comes from."
)
THINGS = ("pies", "breads", "cakes", "tarts", "buns", "cookies", "scones", "loaves")
SENTENCE = "I changed the menu page and the stylesheet so the new section matches the rest. "
SUMMARY = "- " + "The bakery's site so far, its wishes, what was done and what is open. " * 22


@dataclass
class Run:
    prompt: list[int] = field(default_factory=list)  # each turn's first request, as gauged
    history: list[int] = field(default_factory=list)
    summarised: list[int] = field(default_factory=list)
    left_out: list[int] = field(default_factory=list)
    summary_requests: list[int] = field(default_factory=list)  # prompt + answer tokens


def answer(words: int) -> str:
    sentence_words = len(SENTENCE.split())
    return (SENTENCE * (words // sentence_words + 1)).strip() + "\nNext: Add a gallery | Add prices"


def setup() -> Project:
    call_command("migrate", verbosity=0)
    owner, _ = User.objects.get_or_create(username="bench")
    project = project_create(owner=owner, name="Bakery", starter=True)
    assert isinstance(project, Project)
    return project


async def conversation(model: str, words: int, *, compaction: bool) -> Run:
    settings.BUILTIT_COMPACTION = compaction
    project = await threads.run(setup)
    chat = await threads.run(conversation_create, project=project)
    run = Run()

    def respond(request: RecordedRequest) -> Scripted:
        first = request.json["messages"][0]["content"]
        if first.startswith(SUMMARY_TASK):
            messages = [ChatMessage(m["role"], m["content"]) for m in request.json["messages"]]
            run.summary_requests.append(
                budget.prompt_tokens(messages, []) + budget.chars_tokens(len(SUMMARY))
            )
            return Reply(content=SUMMARY)
        return Reply(content=answer(words))

    with FakeOpenRouter(responder=respond) as fake:
        client = LLMClient(ClientConfig(base_url=fake.base_url, api_key="sk-bench", max_retries=0))
        try:
            for n in range(1, TURNS + 1):
                text = REQUEST.format(n=n, thing=THINGS[n % len(THINGS)])
                request = TurnRequest(project, chat, text, model)
                async for event in run_turn(request, client=client, limits=LIMITS):
                    if isinstance(event, ContextEvent):
                        record = event.record
                        run.prompt.append(record.total)
                        run.history.append(record.tokens("history"))
                        run.summarised.append(record.summarised)
                        run.left_out.append(record.left_out)
        finally:
            await client.aclose()
    return run


def report(title: str, off: Run, on: Run) -> None:
    print(f"\n{title}")
    print("turn  prompt off  prompt on  history off  history on  unread off  summarised on")
    for n in (1, 10, 20, 25, 30, 35, 40):
        i = n - 1
        print(
            f"{n:>4}  {off.prompt[i]:>10,}  {on.prompt[i]:>9,}  {off.history[i]:>11,}  "
            f"{on.history[i]:>10,}  {off.left_out[i]:>10}  {on.summarised[i]:>13}"
        )
    total_off, total_on = sum(off.prompt), sum(on.prompt)
    extra = sum(on.summary_requests)
    print(
        f"40 first requests: {total_off:,} prompt tokens without compaction, {total_on:,} "
        f"with it, plus {extra:,} for its {len(on.summary_requests)} summary request(s) "
        f"({total_on + extra:,} in all). At turn 40 the model reads "
        f"{TURNS - 1 - off.left_out[-1]} of 39 earlier turns without compaction "
        f"({off.left_out[-1]} left out), and all 39 with it "
        f"({on.summarised[-1]} as a summary, {on.left_out[-1]} left out)."
    )


async def main() -> None:
    budget_tokens = settings.BUILTIT_HISTORY_TOKENS
    print(f"History budget: {budget_tokens:,} tokens, or a quarter of the window.")
    for model, window, words in (
        ("openai/gpt-4o-mini", "128k", 150),
        ("openai/gpt-4o-mini", "128k", 400),
        ("local/unlisted-model", "unknown: 32k assumed", 150),
    ):
        off = await conversation(model, words, compaction=False)
        on = await conversation(model, words, compaction=True)
        report(f"{model} (window {window}), answers of about {words} words", off, on)


if __name__ == "__main__":
    asyncio.run(main())
