"""`manage.py chat`: one turn of the tool loop in the terminal.

    manage.py chat <project-uuid> "Add a contact page" [--conversation ID] [--model M] [--json]
    manage.py chat --new-project "Bakery" --owner ada "Build a site for my bakery"

Readable progress by default; `--json` prints one event per line, with the
same names and fields as the websocket's JSON mode. Exit status: 0 when the
turn finished, 1 when it failed, 130 when it was interrupted.
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from chat import services
from chat.agent.events import Done, Event, to_json
from chat.agent.loop import TurnRequest
from chat.agent.model_choice import ModelError, clean_model_id
from chat.live import turns
from chat.llm import ClientConfig, LLMClient
from chat.models import Conversation
from chat.render.console import ConsoleRenderer
from projects.lifecycle import ProjectError, project_create
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
        parser.add_argument("--new-project", metavar="NAME", help="Create a project first.")
        parser.add_argument("--owner", metavar="USERNAME", help="Owner of --new-project.")

    def handle(self, *args: Any, **options: Any) -> None:
        as_json: bool = options["json"]
        project, text = self._target(options)
        conversation = self._conversation(project, options["conversation"])
        cleaned = services.clean_user_message(text)
        if isinstance(cleaned, services.MessageError):
            raise CommandError(cleaned.message)
        model = None if options["model"] is None else clean_model_id(options["model"])
        if isinstance(model, ModelError):
            raise CommandError(model.message)
        order = TurnRequest(project, conversation, cleaned, model, project.owner)
        try:
            done = asyncio.run(self._run(order, as_json))
        except KeyboardInterrupt:
            self.stderr.write("\nStopped; the turn is recorded as stopped.")
            sys.exit(_INTERRUPTED)
        if done is None or done.status != "completed":
            sys.exit(_FAILED)

    async def _run(self, order: TurnRequest, as_json: bool) -> Done | None:
        """The turn runs as the web's do (chat.live.turns): it holds the project's lock,
        so it never overlaps a turn from the browser, and open tabs can follow it."""
        renderer = ConsoleRenderer(self.stdout, self.stderr, color=self.stdout.isatty())

        def show(event: Event) -> None:
            if as_json:
                self.stdout.write(json.dumps(to_json(event), ensure_ascii=False))
                self.stdout.flush()
            else:
                renderer.show(event)

        client = LLMClient(ClientConfig.from_settings())
        try:
            started = await turns.start(order, client=client, observer=show)
            if isinstance(started, turns.Busy):
                raise CommandError(started.message)
            assert started.task is not None
            await started.task
            return started.done
        finally:
            await client.aclose()

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
        if isinstance(project, ProjectError):
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
        conversation = services.conversation_get(project=project, conversation_id=conversation_id)
        if conversation is None:
            raise CommandError(f"Project {project.pk} has no conversation {conversation_id}.")
        return conversation

    def _text(self, raw: str) -> str:
        return sys.stdin.read() if raw == "-" else raw
