"""check_site (DESIGN §6, point 12): the check of the whole site a person runs
before publishing (projects.publish), for the model. It answers at once and
leaves the check running beside the turn (chat.agent.background): the files
are read now, checked in a process of their own, and the findings reach the
model in its next round."""

from __future__ import annotations

import threading

from chat.tools.registry import Arguments, ToolContext, ToolOutcome
from common.jsontypes import JSONObject
from projects.publish.for_model import site_check_for_model
from projects.publish.selectors import site_files_for_check


class CheckArgs(Arguments):
    pass


def check_site(args: CheckArgs, context: ToolContext) -> ToolOutcome:
    files = site_files_for_check(context.project)  # as they are at this call

    def work(cancelled: threading.Event) -> JSONObject:
        return site_check_for_model(files, cancelled=cancelled)

    return ToolOutcome(
        True,
        {
            "success": True,
            "started": True,
            "files": len(files),
            "note": "The check of the whole site runs beside your other calls; its findings "
            "come in your next round. Carry on meanwhile.",
        },
        f"Started a check of the whole site ({len(files)} files)",
        background=work,
    )
