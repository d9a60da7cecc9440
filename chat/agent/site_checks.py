"""The check of the whole site at the end of a turn (DESIGN §6, point 12): a
turn that changed files ends with its site checked, for the person to read
under the turn (and ask the assistant to fix); a turn that changed none shows
what the last check the model asked for found (which, if no round was left,
reaches nobody else).

Checks wait for a worker process and for it to finish (up to twice
CHECK_SECONDS): they run apart from the threads turns store and run their
tools on (chat.agent.background.run_apart), and a turn stopped meanwhile
tells its check to stop and waits only for that."""

from __future__ import annotations

import asyncio
import threading

from chat.agent.background import Background, run_apart
from chat.agent.state import TurnState
from chat.records.site_check import SiteCheckRecord
from common import threads
from common.jsontypes import JSONObject
from projects.publish.checking import CHECK_SECONDS
from projects.publish.for_model import site_check_for_model
from projects.publish.selectors import site_files_for_check

# How long a round waits for what the last left running: a check's own bound
# (a free slot, then the check), and a little.
BACKGROUND_WAIT = 2 * CHECK_SECONDS + 5


async def site_checked(state: TurnState, background: Background) -> SiteCheckRecord | None:
    if state.files_changed:
        await background.cancel()  # the files changed since it began: checked anew
        files = await threads.run(site_files_for_check, state.request.project)

        def check(stop: threading.Event) -> JSONObject:
            return site_check_for_model(files, cancelled=stop)

        return SiteCheckRecord.from_check(await run_apart(check, threading.Event()))
    try:
        await background.settle(BACKGROUND_WAIT)
    except asyncio.CancelledError:
        await background.cancel()
        raise
    background.take_finished()
    last = background.last
    return SiteCheckRecord.from_check(last.result) if last is not None else None
