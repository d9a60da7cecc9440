"""The project's activity list: what was done to its sharing and its site, by
whom, for its owner to read. One writer (`activity_add`), called by the
services that do those things, inside their transactions; one reader."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User

from projects.models import Project, ProjectActivity

SHOWN = 50  # the owner reads the latest, newest first

Kind = ProjectActivity.Kind


def activity_add(
    *,
    project: Project,
    actor: User | None,
    kind: ProjectActivity.Kind,
    subject_name: str = "",
    detail: str = "",
) -> ProjectActivity:
    """A line in the list. Names are copied: the line outlives the people in it.
    No actor is the server itself (a management command)."""
    return ProjectActivity.objects.create(
        project=project,
        actor=actor,
        actor_name=actor.get_username() if actor is not None else "",
        kind=kind,
        subject_name=subject_name,
        detail=detail,
    )


@dataclass(frozen=True, slots=True)
class ActivityLine:
    text: str
    at: datetime


def activity_list(*, project: Project, limit: int = SHOWN) -> list[ActivityLine]:
    rows = ProjectActivity.objects.filter(project=project).order_by("-created_at", "-pk")
    return [ActivityLine(activity_sentence(row), row.created_at) for row in rows[:limit]]


# Each kind of line, from who did it, to whom, and the role or version.
_SENTENCES: dict[str, str] = {
    Kind.SHARED: "{who} shared it with {subject} as {detail}",
    Kind.ROLE_CHANGED: "{who} made {subject} {role}",
    Kind.REMOVED: "{who} removed {subject}",
    Kind.LEFT: "{who} left",
    Kind.HANDED_OVER: "{who} handed it over to {subject}",
    Kind.OFFERED: "{who} offered it to {subject}",
    Kind.OFFER_ACCEPTED: "{who} accepted it from {subject}, and owns it now",
    Kind.OFFER_DECLINED: "{who} declined the offer of it",
    Kind.OFFER_WITHDRAWN: "{who} took back the offer to {subject}",
    Kind.PUBLISHED: "{who} published {detail}",
    Kind.UNPUBLISHED: "{who} took the site offline",
}


def activity_sentence(row: ProjectActivity) -> str:
    """The line as the owner reads it: "ada shared it with erin as editor"."""
    sentence = _SENTENCES.get(row.kind, "{who} {subject}")
    said = sentence.format(
        who=row.actor_name or "The server",
        subject=row.subject_name,
        detail=row.detail,
        role=a_role(row.detail),
    )
    return said.strip()


def a_role(role: str) -> str:
    """A member's role in a sentence: "an editor", "a viewer"."""
    return "an editor" if role == "editor" else "a viewer"
