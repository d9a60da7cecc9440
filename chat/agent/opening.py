"""A turn's opening (DESIGN §6, step 1): what the model is sent first (the
system prompt with the project's files, limits and the owner's standing
instructions, the earlier turns and their summary, the person's message), what
the turn may spend, and the person's message stored. Runs in a pool thread."""

from __future__ import annotations

from chat.agent import prompt
from chat.agent.allowance import Allowance
from chat.agent.attachments import for_model
from chat.agent.attachments import to_json as attachments_json
from chat.agent.compaction import latest_summary
from chat.agent.context import Opening
from chat.agent.instructions import project_instructions
from chat.agent.recorder import TurnRecorder
from chat.agent.runner import ToolRunner
from chat.agent.state import TurnState, payer_id
from chat.images import images_as_urls
from chat.llm import ChatMessage
from chat.models import Message
from chat.selectors.askers import turn_asker
from chat.selectors.past_turns import past_turns
from projects import selectors
from projects.files.limits import current_limits


def turn_opened(
    state: TurnState, runner: ToolRunner, recorder: TurnRecorder
) -> tuple[Message, Opening]:
    """The person's message stored, and what the first request is made of (its
    history is fitted once the model's context window is known: chat.agent.loop)."""
    request = state.request
    project, conversation = request.project, request.conversation
    files = selectors.file_list(project)
    runner.known_versions.update({info.path: info.version for info in files})
    allowance = Allowance.open(
        user_id=payer_id(request),  # their caps; the project's cap is the project's
        project_id=project.pk,
        project_cap=state.limits.project_cost_limit,
        seconds=state.limits.turn_time_limit,
    )
    state.spend.allowance = allowance
    recorder.hold_id = allowance.hold_id if allowance is not None else None
    text = for_model(request.text, request.attachments)
    opening = Opening(
        prompt.system_parts(
            project_name=project.name,
            description=project.description,
            files=files,
            limits=current_limits(),
            instructions=project_instructions(project),  # read again every turn
        ),
        past_turns(conversation=conversation),  # before this turn's message exists
        latest_summary(conversation=conversation),
        ChatMessage("user", text, images=tuple(images_as_urls(list(request.images)))),
        attachment_chars=len(text) - len(request.text),
        notes=[prompt.plan_note()] if request.plan else [],
    )
    state.asked_by = turn_asker(project=project, sender=request.user)
    state.asked_by_id = request.user.pk if state.asked_by and request.user is not None else 0
    stored = recorder.begin(
        request.text,
        attachments=attachments_json(request.attachments),
        images=list(request.images),
        plan=request.plan,
    )
    return stored, opening
