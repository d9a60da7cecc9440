"""Who may do what to a project: the one rule every page, socket message,
upload, Git request, token, form inbox and admin action goes through.

A project has one owner (`Project.owner`) and may be shared with other people
(`Membership`), each a viewer or an editor. `ACTIONS` says what each role may
do; `project_for_person` finds a project for a person and an action, and
`project_for` is the same for a view: a stranger gets a 404 (someone else's
project looks exactly like a missing one), a member whose role does not allow
the action a 403 that says so in words.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Literal

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef, Q, QuerySet, Subquery
from django.http import Http404, HttpRequest

from projects.models import Membership, Project

Role = Literal["owner", "editor", "viewer"]

# What a person may do to a project. `view`: its files, chat, preview, history
# and the published site's settings; `chat`: send a message, stop a turn, pick
# the model; `edit`: save, upload, rename, delete a file, undo, redo, restore,
# visual edits, push with Git; `forms`: read and manage form submissions;
# `publish`: publish, update, roll back, unpublish, domains, the site's password
# and its forms' settings; `settings`: the project's name, description and caps;
# `share`: add, change and remove people; `delete`: the trash; `hand_over`: give
# the project to another person.
Action = Literal[
    "view", "chat", "edit", "forms", "publish", "settings", "share", "delete", "hand_over"
]

ACTIONS: dict[Role, frozenset[Action]] = {
    "viewer": frozenset({"view"}),
    "editor": frozenset({"view", "chat", "edit", "forms"}),
    "owner": frozenset(
        {"view", "chat", "edit", "forms", "publish", "settings", "share", "delete", "hand_over"}
    ),
}

# Why a member is refused, in words the page shows.
_REFUSED: dict[Action, str] = {
    "view": "You cannot open this project.",
    "chat": "Viewers cannot chat with the assistant.",
    "edit": "Viewers cannot change the project's files.",
    "forms": "Viewers cannot read what the site's forms received.",
    "publish": (
        "Only the project's owner can publish, or change the site's address, domains or password."
    ),
    "settings": "Only the project's owner can change the project's settings.",
    "share": "Only the project's owner can share it.",
    "delete": "Only the project's owner can delete it.",
    "hand_over": "Only the project's owner can hand it over.",
}


class RoleRefused(PermissionDenied):
    """A member asked for something their role does not allow: the 403 says what
    (builtit.errors shows its words)."""

    def __init__(self, action: Action, role: Role) -> None:
        super().__init__(refusal(action, role))
        self.action = action
        self.role = role


@dataclass(frozen=True, slots=True)
class Access:
    """A project as a person may use it: their role, and what it allows."""

    project: Project
    role: Role

    def allows(self, action: Action) -> bool:
        return action in ACTIONS[self.role]


def allows(role: Role, action: Action) -> bool:
    return action in ACTIONS[role]


def refusal(action: Action, role: Role) -> str:
    """Why `role` may not do `action`, in the page's words."""
    if allows(role, action):
        raise ValueError(f"{role} may {action}")
    return _REFUSED[action]


def member_role(value: str) -> Role:
    """A membership's stored role as a `Role`."""
    if value == Membership.Role.EDITOR:
        return "editor"
    if value == Membership.Role.VIEWER:
        return "viewer"
    raise ValueError(f"not a role: {value!r}")


def projects_visible_to(user: User | AnonymousUser) -> QuerySet[Project]:
    """The projects (out of the trash) `user` owns or was shared, each with
    `shared_role` ("viewer", "editor", or None for the person's own)."""
    if user.pk is None:
        return Project.objects.none()
    role = Membership.objects.filter(project=OuterRef("pk"), user_id=user.pk).values("role")[:1]
    return Project.objects.annotate(shared_role=Subquery(role)).filter(
        Q(owner_id=user.pk) | Q(shared_role__isnull=False)
    )


def access_of(user: User | AnonymousUser, project: Project) -> Access | None:
    """What `user` may do with `project` (read again from the database), or None."""
    if user.pk is None:
        return None
    if project.owner_id == user.pk:
        return Access(project, "owner")
    found = (
        Membership.objects.filter(project=project, user_id=user.pk)
        .values_list("role", flat=True)
        .first()
    )
    return None if found is None else Access(project, member_role(found))


def project_access(user: User | AnonymousUser, project_id: uuid.UUID) -> Access | None:
    """The project with `user`'s role in it, or None for anyone it is not shared with."""
    project = projects_visible_to(user).filter(pk=project_id).first()
    if project is None:
        return None
    if project.owner_id == user.pk:
        return Access(project, "owner")
    shared: str = project.shared_role  # type: ignore[attr-defined]  # the annotation above
    return Access(project, member_role(shared))


def project_for_person(
    *, user: User | AnonymousUser, project_id: uuid.UUID, action: Action
) -> Project | None:
    """The project, if `user` may do `action` to it; None otherwise (a stranger
    and a member whose role does not allow it alike)."""
    found = project_access(user, project_id)
    if found is None or not found.allows(action):
        return None
    return found.project


def access_for(request: HttpRequest, project_id: uuid.UUID, action: Action) -> Access:
    """For a view: the signed-in person's access to the project, if it allows
    `action`. Anyone it is not shared with gets a 404, never a 403; a member
    whose role does not allow `action` a 403 that says why."""
    found = project_access(request.user, project_id)
    if found is None:
        raise Http404("No such project.")
    if not found.allows(action):
        raise RoleRefused(action, found.role)
    return found


def project_for(request: HttpRequest, project_id: uuid.UUID, action: Action) -> Project:
    """`access_for`'s project."""
    return access_for(request, project_id, action).project
