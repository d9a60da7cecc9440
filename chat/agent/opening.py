"""A turn's opening (DESIGN §6, step 1): what the model is sent first (the
system prompt with the project's files, limits and the owner's standing
instructions, the history within its budget, the person's message), what the
turn may spend, and the person's message stored. Runs in a pool thread."""

from __future__ import annotations

from chat import spending
from chat.agent import prompt
from chat.agent.attachments import for_model
from chat.agent.attachments import to_json as attachments_json
from chat.agent.instructions import project_instructions
from chat.agent.person_limits import person_budget
from chat.agent.recorder import TurnRecorder
from chat.agent.runner import ToolRunner
from chat.agent.state import TurnState
from chat.images import images_as_urls
from chat.llm import ChatMessage
from chat.models import Message
from chat.selectors import past_turns
from projects import selectors
from projects.files.limits import current_limits


def turn_opened(state: TurnState, runner: ToolRunner, recorder: TurnRecorder) -> Message:
    request = state.request
    project, conversation = request.project, request.conversation
    files = selectors.file_list(project)
    runner.known_versions.update({info.path: info.version for info in files})
    state.spend.spent_before = spending.project_spent(project_id=project.pk)
    state.spend.person = person_budget(user_id=project.owner_id)
    history = past_turns(conversation=conversation)  # before this turn's message exists
    system = prompt.system_prompt(
        project_name=project.name,
        description=project.description,
        files=files,
        limits=current_limits(),
        instructions=project_instructions(project),  # read again every turn
    )
    state.messages = [
        ChatMessage.system(system),
        *prompt.history_messages(history, budget_tokens=state.limits.history_tokens),
        ChatMessage(
            "user",
            for_model(request.text, request.attachments),
            images=tuple(images_as_urls(list(request.images))),
        ),
        *([prompt.plan_note()] if request.plan else []),
    ]
    return recorder.begin(
        request.text,
        attachments=attachments_json(request.attachments),
        images=list(request.images),
        plan=request.plan,
    )
