"""What the model is told: the system prompt, and earlier turns as bounded history
(grouped from the stored messages by `past_turns`)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from chat.agent import budget
from chat.agent.prompt import (
    estimate_tokens,
    final_answer_note,
    history_messages,
    last_round_note,
    system_prompt,
)
from chat.llm import ChatMessage
from chat.models import Conversation, Message
from chat.records.reply import AssistantRecord
from chat.records.tool_result import ToolRecord
from chat.selectors.past_turns import PastTurn, past_turns
from chat.services import conversation_create, message_create, message_user_create
from chat.tools import PATH_RULES
from common.jsontypes import JSONObject
from projects.files.limits import Limits, current_limits
from projects.files.results import FileInfo
from projects.models import Project
from projects.selectors import file_list
from projects.starter import STARTER_FILES

LIMITS = Limits(
    max_file_bytes=200 * 1024,
    max_files=50,
    max_project_bytes=5 * 1024 * 1024,
    max_user_storage_bytes=0,
)
NOW = datetime(2025, 1, 1, tzinfo=UTC)


def info(path: str, size: int) -> FileInfo:
    return FileInfo(path, size, 1, NOW)


def prompt(
    files: list[FileInfo], *, name: str = "Bakery", description: str = "", limits: Limits = LIMITS
) -> str:
    return system_prompt(project_name=name, description=description, files=files, limits=limits)


def turn(
    request: str,
    answer: str = "Done.",
    files: tuple[str, ...] = (),
    status: str = "completed",
) -> PastTurn:
    return PastTurn(request, answer, files, status)


def cost(past: PastTurn) -> int:
    """What one turn costs in the history budget, by the history's own measure."""
    pair = history_messages([past], budget_tokens=10**9)
    return sum(estimate_tokens(message.content or "") for message in pair)


def contents(messages: list[ChatMessage]) -> list[tuple[str, str | None]]:
    return [(message.role, message.content) for message in messages]


class Chat:
    """A conversation written message by message, as the loop stores it."""

    def __init__(self, project: Project) -> None:
        self.conversation: Conversation = conversation_create(project=project)
        self.sequence = 0

    def _next(self) -> int:
        self.sequence += 1
        return self.sequence

    def user(self, text: str) -> Message:
        return message_user_create(
            conversation=self.conversation, sequence=self._next(), text=text, model="m"
        )

    def assistant(
        self, text: str = "", *, turn: JSONObject | None = None, calls: JSONObject | None = None
    ) -> Message:
        metadata: JSONObject = {"model": "m", "iteration": 1}
        if turn is not None:
            metadata["turn"] = turn
        return message_create(
            conversation=self.conversation,
            sequence=self._next(),
            role=Message.Role.ASSISTANT,
            content=text,
            tool_calls=[calls] if calls else None,
            record=AssistantRecord.from_stored(metadata),
        )

    def tool(self, result: JSONObject) -> Message:
        return message_create(
            conversation=self.conversation,
            sequence=self._next(),
            role=Message.Role.TOOL,
            content=json.dumps(result),
            tool_call_id="call_1",
            record=ToolRecord.from_stored({"name": "read_file", "ok": True}),
        )

    def turns(self) -> list[PastTurn]:
        return past_turns(conversation=self.conversation, before_sequence=self.sequence + 1)


@pytest.fixture
def chat(project: Project) -> Chat:
    return Chat(project)


# --- the system prompt ---------------------------------------------------------


def test_system_prompt_lists_the_files_with_their_sizes(starter_project):
    text = prompt(file_list(starter_project))
    sizes = {path: len(content.encode()) for path, content in STARTER_FILES.items()}
    assert (
        "Current files:\n"
        f"- /AGENTS.md ({sizes['/AGENTS.md']} bytes)\n"
        f"- /index.html ({sizes['/index.html']} bytes)\n"
        f"- /script.js ({sizes['/script.js']} bytes)\n"
        f"- /styles.css ({sizes['/styles.css']} bytes)"
    ) in text


def test_system_prompt_gives_large_sizes_in_readable_units():
    text = prompt([info("/a.css", 2048), info("/b.js", 3 * 1024 * 1024 + 1)])
    assert "- /a.css (2 KiB)" in text
    assert "- /b.js (3 MiB)" in text


def test_system_prompt_states_the_path_rules_and_limits():
    text = prompt([info("/index.html", 10)])
    assert PATH_RULES in text
    assert "Limits: 200 KiB per file, 50 files and 5 MiB per project." in text


def test_system_prompt_uses_the_configured_limits(settings):
    settings.BUILTIT_MAX_FILE_BYTES = 1000
    settings.BUILTIT_MAX_FILES = 7
    text = prompt([], limits=current_limits())
    assert "Limits: 1000 bytes per file, 7 files and" in text


def test_system_prompt_includes_the_owners_description():
    text = prompt([], name="Bakery", description="  A site for a small bakery in Lyon.\n ")
    about = 'About the project "Bakery" (from its owner):\nA site for a small bakery in Lyon.'
    assert about in text


@pytest.mark.parametrize("description", ["", "   \n\t"])
def test_system_prompt_without_description_still_names_the_project(description):
    text = prompt([], name="Bakery", description=description)
    assert 'The project is called "Bakery".' in text
    assert "About the project" not in text


def test_system_prompt_says_when_the_project_is_empty():
    text = prompt([])
    assert "Current files: none yet; the project is empty." in text
    assert "\n- /" not in text


def test_system_prompt_ends_with_the_file_list():
    text = prompt([info("/index.html", 10)], description="Shop")
    assert text.endswith("Current files:\n- /index.html (10 bytes)")


def test_system_prompt_cuts_a_long_file_list_and_points_to_the_tool():
    files = [info(f"/page{number:03}.html", 100) for number in range(205)]
    text = prompt(files)
    assert "- /page199.html (100 bytes)" in text
    assert "/page200.html" not in text
    assert text.endswith("- … and 5 more (list_project_files)")


def test_system_prompt_explains_how_to_work_with_the_tools():
    text = prompt([])
    for name in ("list_project_files", "read_file", "edit_file", "update_file", "create_file"):
        assert name in text
    assert "/index.html" in text
    assert "relative paths" in text
    assert "read it again" in text


def test_system_prompt_never_contains_file_contents(starter_project):
    text = prompt(file_list(starter_project))
    assert "Hello, world" not in text
    assert "getElementById" not in text


# --- history -------------------------------------------------------------------


def test_history_of_no_turns_is_empty():
    assert history_messages([], budget_tokens=10_000) == []


def test_history_gives_each_turn_as_a_user_and_an_assistant_message_oldest_first():
    messages = history_messages(
        [turn("Make it blue", "I made it blue."), turn("Add a footer", "Footer added.")],
        budget_tokens=10_000,
    )
    assert contents(messages) == [
        ("user", "Make it blue"),
        ("assistant", "I made it blue."),
        ("user", "Add a footer"),
        ("assistant", "Footer added."),
    ]


def test_history_notes_which_files_each_turn_changed():
    messages = history_messages(
        [turn("Restyle", "Restyled.", files=("/index.html", "/css/site.css"))],
        budget_tokens=10_000,
    )
    assert messages[1].content == (
        "Restyled.\n\n[Files changed in this turn: /index.html, /css/site.css]"
    )


def test_history_adds_no_note_when_no_file_changed():
    [_, answer] = history_messages([turn("Hi", "Hello!")], budget_tokens=10_000)
    assert answer.content == "Hello!"


def test_history_marks_a_stopped_turn():
    [_, answer] = history_messages(
        [turn("Build a shop", "I started on", files=("/shop.html",), status="stopped")],
        budget_tokens=10_000,
    )
    assert answer.content == (
        "I started on\n\n[Files changed in this turn: /shop.html]\n\n"
        "[This turn was stopped before it finished.]"
    )


def test_history_marks_a_failed_turn():
    [_, answer] = history_messages([turn("Go", "", status="failed")], budget_tokens=10_000)
    assert answer.content == "[This turn ended with an error.]"


def test_history_of_a_stopped_turn_without_answer_is_only_the_note():
    [_, answer] = history_messages([turn("Go", "", status="stopped")], budget_tokens=10_000)
    assert answer.content == "[This turn was stopped before it finished.]"


def test_history_never_sends_an_empty_answer():
    [_, answer] = history_messages([turn("Go", "  \n")], budget_tokens=10_000)
    assert answer.content == "[No answer.]"


def test_history_trims_the_whitespace_around_an_answer():
    [_, answer] = history_messages([turn("Go", "\n  Done.  \n")], budget_tokens=10_000)
    assert answer.content == "Done."


def test_history_keeps_the_newest_turns_within_the_budget():
    turns = [turn(f"Request {n}", f"Answer {n}. " * 20) for n in range(1, 6)]
    budget = cost(turns[3]) + cost(turns[4])
    messages = history_messages(turns, budget_tokens=budget)
    assert [m.content for m in messages if m.role == "user"] == ["Request 4", "Request 5"]


def test_history_keeps_a_turn_that_exactly_fills_the_budget():
    turns = [turn("Old", "x" * 400), turn("New", "y" * 400)]
    assert len(history_messages(turns, budget_tokens=cost(turns[1]))) == 2
    assert len(history_messages(turns, budget_tokens=cost(turns[1]) - 1)) == 0


def test_history_drops_older_turns_first_and_never_skips_one_to_fit_an_older():
    turns = [turn("Tiny and old"), turn("Huge", "z" * 40_000), turn("Newest")]
    budget = cost(turns[2]) + cost(turns[0]) + 10  # room for the two small ones, not the huge
    messages = history_messages(turns, budget_tokens=budget)
    assert contents(messages) == [("user", "Newest"), ("assistant", "Done.")]


def test_history_counts_the_notes_against_the_budget():
    plain = turn("Go", "Done.")
    noted = turn("Go", "Done.", files=tuple(f"/page{n}.html" for n in range(50)))
    assert cost(noted) > cost(plain)
    assert history_messages([noted], budget_tokens=cost(plain)) == []


def test_history_with_no_budget_is_empty():
    assert history_messages([turn("Go")], budget_tokens=0) == []


def test_estimate_tokens_counts_three_characters_each_plus_overhead_as_the_caps_do():
    assert estimate_tokens("") == 4
    assert estimate_tokens("x" * 300) == 104
    assert estimate_tokens("x" * 300) == budget.message_tokens(ChatMessage("user", "x" * 300))


# --- notes -----------------------------------------------------------------------


def test_last_round_note_says_it_is_the_last():
    note = last_round_note(1)
    assert note.role == "system"
    assert "last round of tool calls" in (note.content or "")


def test_round_note_counts_the_rounds_left():
    assert last_round_note(3).content == "Note: 3 rounds of tool calls are left in this turn."


def test_final_answer_note_forbids_tools_and_gives_the_reason():
    note = final_answer_note("The turn reached its spending limit.")
    assert note.role == "system"
    assert (note.content or "").startswith("The turn reached its spending limit. Do not call")


# --- past_turns: grouping the stored messages -------------------------------------

FILE_TEXT = "<h1>The secret contents of index.html</h1>"


def _a_full_turn(chat: Chat) -> None:
    chat.user("Make the heading bigger")
    chat.assistant(
        "Let me look at the page first.",
        calls={
            "id": "call_1",
            "type": "function",
            "function": {"name": "read_file", "arguments": '{"path": "/index.html"}'},
        },
    )
    chat.tool({"success": True, "path": "/index.html", "content": FILE_TEXT})
    chat.assistant(
        "",
        calls={
            "id": "call_2",
            "type": "function",
            "function": {
                "name": "update_file",
                "arguments": json.dumps({"path": "/index.html", "content": FILE_TEXT * 2}),
            },
        },
    )
    chat.tool({"success": True, "path": "/index.html", "action": "update", "size": 84})
    chat.assistant(
        "The heading is bigger now.",
        turn={"status": "completed", "files_changed": ["/index.html"], "iterations": 3},
    )


def test_past_turns_groups_a_turn_into_its_request_and_final_answer(chat):
    _a_full_turn(chat)
    assert chat.turns() == [
        PastTurn(
            "Make the heading bigger", "The heading is bigger now.", ("/index.html",), "completed"
        )
    ]


def test_past_turns_keeps_every_turn_oldest_first(chat):
    _a_full_turn(chat)
    chat.user("Thanks! Now a footer")
    chat.assistant("Added.", turn={"status": "completed", "files_changed": ["/a.html", "/b.css"]})
    assert [(t.request, t.answer, t.files_changed) for t in chat.turns()] == [
        ("Make the heading bigger", "The heading is bigger now.", ("/index.html",)),
        ("Thanks! Now a footer", "Added.", ("/a.html", "/b.css")),
    ]


def test_past_turns_stops_before_the_given_sequence(chat):
    _a_full_turn(chat)
    current = chat.user("What next?")
    turns = past_turns(conversation=chat.conversation, before_sequence=current.sequence)
    assert [t.request for t in turns] == ["Make the heading bigger"]


def test_past_turns_keeps_the_status_of_the_closing_message(chat):
    chat.user("Build a shop")
    chat.assistant("Partly done", turn={"status": "failed", "files_changed": []})
    assert chat.turns() == [PastTurn("Build a shop", "Partly done", (), "failed")]


def test_past_turns_counts_a_closing_message_without_status_as_completed(chat):
    chat.user("Hello")
    chat.assistant("Hi!", turn={})
    assert chat.turns() == [PastTurn("Hello", "Hi!", (), "completed")]


def test_past_turns_treats_an_unclosed_turn_as_stopped(chat):
    chat.user("Build a shop")
    chat.assistant("Let me start", calls={"id": "c", "type": "function", "function": {}})
    chat.tool({"success": True})
    chat.user("Hello?")
    chat.assistant("Hi again.", turn={"status": "completed"})
    assert chat.turns() == [
        PastTurn("Build a shop", "", (), "stopped"),
        PastTurn("Hello?", "Hi again.", (), "completed"),
    ]


def test_past_turns_treats_a_last_unclosed_turn_as_stopped(chat):
    _a_full_turn(chat)
    chat.user("And a contact page")
    chat.assistant("Working on it")
    assert chat.turns()[-1] == PastTurn("And a contact page", "", (), "stopped")


def test_past_turns_ignores_a_closing_message_before_any_request(chat):
    chat.assistant("Stray", turn={"status": "completed"})
    chat.user("Hi")
    chat.assistant("Hello.", turn={"status": "completed"})
    assert chat.turns() == [PastTurn("Hi", "Hello.", (), "completed")]


def test_past_turns_of_a_new_conversation_is_empty(chat):
    assert chat.turns() == []


def test_history_from_stored_turns_never_contains_file_contents(chat):
    _a_full_turn(chat)
    chat.user("Add a gallery")
    chat.assistant("", turn={"status": "stopped", "files_changed": ["/gallery.html"]})
    messages = history_messages(chat.turns(), budget_tokens=10_000)
    text = json.dumps([message.to_wire() for message in messages])
    assert "secret contents" not in text
    assert "Let me look at the page first." not in text
    assert contents(messages) == [
        ("user", "Make the heading bigger"),
        (
            "assistant",
            "The heading is bigger now.\n\n[Files changed in this turn: /index.html]",
        ),
        ("user", "Add a gallery"),
        (
            "assistant",
            "[Files changed in this turn: /gallery.html]\n\n"
            "[This turn was stopped before it finished.]",
        ),
    ]
    assert all(not message.tool_calls for message in messages)


def test_system_prompt_tells_how_to_make_a_form_that_works_when_published():
    text = prompt([info("/index.html", 10)])
    assert 'method="post" and action="/_forms/<name>"' in text
    assert 'name="_gotcha"' in text
    assert "/thanks.html" in text
    assert "Forms cannot send files." in text
