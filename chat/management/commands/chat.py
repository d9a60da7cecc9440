"""`manage.py chat`: one turn of the tool loop in the terminal.

    manage.py chat <project-uuid> "Add a contact page" [--conversation ID] [--model M] [--json]
    manage.py chat <project-uuid> "Add a contact page" --plan    (a plan; no file changes)
    manage.py chat --new-project "Bakery" --owner ada "Build a site for my bakery"
    manage.py chat --undo-turn MESSAGE_ID [--keep-changed] [--json]

The model is chosen as the workspace chooses it (chat.agent.model_choice):
`--model`, else the project's, else the server's default, which is the
offline demo (`builtit/demo`) while no key is set; `--model builtit/demo`
uses the demo whatever is set (unless `BUILTIT_DEMO=0`). Readable progress
by default; `--json` prints one event per line, with the same names and
fields as the websocket's JSON mode, and after a turn one line of type
"changes": the files it changed, with lines added and removed.
`--undo-turn` puts back every file the turn holding that message changed, as
the chat panel's "Undo this turn" does (as the project's owner). Exit status:
0 when the turn finished (or was undone), 1 when it failed (or the undo was
refused), 130 when it was interrupted.
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from chat import changes, services
from chat.agent.events import Done, Event, TurnStarted, to_json
from chat.agent.loop import TurnRequest
from chat.agent.model_choice import ModelRefused, clean_model_id
from chat.live import turns
from chat.live.broadcast import files_moved
from chat.live.layer import close_layer
from chat.llm import close_client
from chat.models import Conversation, Message
from chat.render.console import ConsoleRenderer
from chat.selectors.conversations import conversation_get
from chat.selectors.turns import turn_of
from projects.history.undo import UndoRefused
from projects.lifecycle import ProjectRefused, project_create
from projects.models import Project

_FAILED = 1
_INTERRUPTED = 130


class Command(BaseCommand):
    help = "Run one chat turn on a project: the model builds or edits its files."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("project", nargs="?", help="The project's id (a UUID).")
        parser.add_argument("message", nargs="?", help='What to ask; "-" reads standard input.')
        parser.add_argument("--conversation", type=int, help="Continue this conversation.")
        parser.add_argument("--model", help="Model id for this turn, e.g. openai/gpt-5-mini.")
        parser.add_argument("--json", action="store_true", help="One JSON event per line.")
        parser.add_argument(
            "--plan",
            action="store_true",
            help="Ask for a plan only: the model may look at the files but not change them.",
        )
        parser.add_argument("--new-project", metavar="NAME", help="Create a project first.")
        parser.add_argument("--owner", metavar="USERNAME", help="Owner of --new-project.")
        parser.add_argument(
            "--undo-turn", type=int, metavar="MESSAGE_ID", help="Undo the turn of this message."
        )
        parser.add_argument(
            "--keep-changed",
            action="store_true",
            help="With --undo-turn: leave files changed since the turn as they are.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        as_json: bool = options["json"]
        if options["undo_turn"] is not None:
            self._undo(options["undo_turn"], keep_changed=options["keep_changed"], as_json=as_json)
            return
        project, text = self._target(options)
        conversation = self._conversation(project, options["conversation"])
        cleaned = services.clean_user_message(text)
        if isinstance(cleaned, services.MessageRefused):
            raise CommandError(cleaned.message)
        model = None if options["model"] is None else clean_model_id(options["model"])
        if isinstance(model, ModelRefused):
            raise CommandError(model.message)
        order = TurnRequest(
            project, conversation, cleaned, model, project.owner, plan=options["plan"]
        )
        try:
            done = asyncio.run(self._run(order, as_json))
        except KeyboardInterrupt:
            self.stderr.write("\nStopped; the turn is recorded as stopped.")
            sys.exit(_INTERRUPTED)
        if self.turn_id is not None:
            self._changes(self.turn_id, as_json)
        if done is None or done.status != "completed":
            sys.exit(_FAILED)

    async def _run(self, order: TurnRequest, as_json: bool) -> Done | None:
        """The turn runs as the web's do (chat.live.turns): it holds the project's lock,
        so it never overlaps a turn from the browser, and open tabs can follow it."""
        renderer = ConsoleRenderer(self.stdout, self.stderr, color=self.stdout.isatty())

        def show(event: Event) -> None:
            if isinstance(event, TurnStarted):
                self.turn_id = event.message_id
            if as_json:
                self.stdout.write(json.dumps(to_json(event), ensure_ascii=False))
                self.stdout.flush()
            else:
                renderer.show(event)

        try:
            # No client of its own: the turn takes the one that serves its model,
            # as the web's do (the offline demo's, or the provider's).
            started = await turns.start(order, observer=show)
            if isinstance(started, turns.TurnRefused):
                raise CommandError(started.message)
            assert started.task is not None
            await started.task
            return started.done
        finally:
            await close_client()
            await close_layer()

    turn_id: int | None = None  # the person's message that began the turn run here

    def _changes(self, turn_id: int, as_json: bool) -> None:
        turn = Message.objects.select_related("conversation").get(pk=turn_id)
        files = changes.turn_changes(turn).files
        if as_json:
            line = {"type": "changes", "turn": turn_id, "files": [_file_json(f) for f in files]}
            self.stdout.write(json.dumps(line, ensure_ascii=False))
        elif files:
            self.stdout.write(f"{len(files)} file{'s' if len(files) != 1 else ''} changed:")
            for file in files:
                counts = f" (+{file.counts.added} -{file.counts.removed})" if file.counts else ""
                self.stdout.write(f"  {file.action} {file.path}{counts}")

    def _undo(self, message_id: int, *, keep_changed: bool, as_json: bool) -> None:
        message = Message.objects.select_related("conversation__project").filter(pk=message_id)
        found = message.first()
        if found is None:
            raise CommandError(f"There is no message {message_id}.")
        project = found.conversation.project
        turn = turn_of(project=project, message_id=message_id)
        if turn is None:
            raise CommandError(f"Message {message_id} is not part of a turn.")
        result = changes.turn_undo(user=project.owner, turn=turn, keep_changed=keep_changed)
        if isinstance(result, UndoRefused):
            if as_json:
                conflicts = [{"path": c.path, "reason": c.reason} for c in result.conflicts]
                refused = {
                    "type": "undo_refused",
                    "message": result.message,
                    "conflicts": conflicts,
                }
                self.stdout.write(json.dumps(refused, ensure_ascii=False))
                sys.exit(_FAILED)
            hint = " (--keep-changed undoes the rest)" if result.conflicts else ""
            raise CommandError(result.message + hint)
        paths = sorted({row.path for row in result.revisions.all()})
        files_moved(project, paths=paths, turn_id=turn.pk)
        if as_json:
            line: dict[str, object] = {
                "type": "undone",
                "reversal": result.pk,
                "summary": result.summary,
                "paths": paths,
            }
            self.stdout.write(json.dumps(line, ensure_ascii=False))
        else:
            self.stdout.write(result.summary)

    def _target(self, options: dict[str, Any]) -> tuple[Project, str]:
        name, owner = options["new_project"], options["owner"]
        positional = [
            value for value in (options["project"], options["message"]) if value is not None
        ]
        if name is not None:
            if len(positional) != 1:
                raise CommandError(
                    "With --new-project, give only the message: "
                    '--new-project NAME --owner USER "message"'
                )
            project = self._new_project(name, owner, options["json"])
            return project, self._text(positional[0])
        if len(positional) != 2:
            raise CommandError(
                'Give a project id and a message: manage.py chat <project-uuid> "message"'
            )
        return self._project(positional[0]), self._text(positional[1])

    def _new_project(self, name: str, owner_name: str | None, as_json: bool) -> Project:
        if not owner_name:
            raise CommandError("--new-project needs --owner USERNAME.")
        owner = User.objects.filter(username=owner_name).first()
        if owner is None:
            raise CommandError(f"There is no user named {owner_name!r}.")
        project = project_create(owner=owner, name=name)
        if isinstance(project, ProjectRefused):
            raise CommandError(project.message)
        if as_json:
            line = {"type": "project_created", "project_id": str(project.pk), "name": project.name}
            self.stdout.write(json.dumps(line, ensure_ascii=False))
        else:
            self.stdout.write(f"Created project {project.name!r}: {project.pk}")
        return project

    def _project(self, raw: str) -> Project:
        try:
            project_id = uuid.UUID(raw)
        except ValueError:
            raise CommandError(
                f"{raw!r} is not a project id (a UUID, as the workspace address shows)."
            ) from None
        project = Project.objects.select_related("owner").filter(pk=project_id).first()
        if project is None:
            raise CommandError(f"There is no project {project_id}.")
        return project

    def _conversation(self, project: Project, conversation_id: int | None) -> Conversation:
        if conversation_id is None:
            return services.conversation_create(project=project)
        conversation = conversation_get(project=project, conversation_id=conversation_id)
        if conversation is None:
            raise CommandError(f"Project {project.pk} has no conversation {conversation_id}.")
        return conversation

    def _text(self, raw: str) -> str:
        return sys.stdin.read() if raw == "-" else raw


def _file_json(file: changes.ChangedFile) -> dict[str, Any]:
    return {
        "path": file.path,
        "action": file.action,
        "old_path": file.old_path,
        "added": file.counts.added if file.counts else None,
        "removed": file.counts.removed if file.counts else None,
    }
