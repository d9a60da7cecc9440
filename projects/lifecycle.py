"""Project-level services: create (blank or starter), rename, the trash (move
there, restore, purge), preview token.

A person's projects never share a name (compared as a person reads them: case
and spacing aside), so the dashboard, the trash and a download always say
which one is meant. A new, imported or restored project whose name is taken
gets the next free number ("Crumb (2)"); a rename to a taken name is refused.
The database holds the rule too (projects.models.Project's constraint), for
two tabs creating at once."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from common.refusals import Refusal
from projects.files.results import FileError
from projects.locks import lock_current
from projects.models import BinaryBlob, Project, RetiredPreviewToken, new_preview_token
from projects.services import Author, file_create
from projects.signals import project_trashed
from projects.starter import STARTER_FILES, STARTER_INSTRUCTIONS
from projects.sweep import stored_files_delete

# Replaced preview addresses remembered per project, to tell visitors they were replaced.
RETIRED_TOKENS_KEPT = 20

MAX_NAME = 100
MAX_DESCRIPTION = 2_000
# Tries at a free name when another tab takes the one found meanwhile.
_NAME_TRIES = 5
_NUMBERED = re.compile(r"(?P<base>.*\S) \((?P<number>[0-9]{1,9})\)")


@dataclass(frozen=True)
class ProjectRefused(Refusal):
    """A project's name, description or change refused."""


def clean_name(raw: object) -> str | ProjectRefused:
    name = " ".join(str(raw or "").split())
    if not name:
        return ProjectRefused("Give the project a name.")
    if len(name) > MAX_NAME:
        return ProjectRefused(f"Project names are at most {MAX_NAME} characters.")
    if not name.isprintable():
        return ProjectRefused(
            "Project names may not contain control characters or other invisible ones."
        )
    return name


@transaction.atomic
def project_create(
    *,
    owner: User,
    name: str,
    description: str = "",
    starter: bool = False,
    instructions: bool = False,
) -> Project | ProjectRefused:
    """A project: blank, with the starter site (and its /AGENTS.md), or with
    only the starter's /AGENTS.md (`instructions`). Named `name`, or numbered
    when the owner has a project of that name (`name_free`)."""
    cleaned = clean_name(name)
    if isinstance(cleaned, ProjectRefused):
        return cleaned
    if len(description) > MAX_DESCRIPTION:
        return ProjectRefused(f"Descriptions are at most {MAX_DESCRIPTION} characters.")
    project = _created(owner, cleaned, description.strip())
    if project is None:
        return ProjectRefused("Could not find a free name for the project: try another name.")
    files = STARTER_FILES if starter else STARTER_INSTRUCTIONS if instructions else {}
    for path, content in files.items():
        result = file_create(
            project=project, path=path, content=content, author=Author.person(owner)
        )
        if isinstance(result, FileError):
            # The starter files are ours: a failure here is a limit (the owner's
            # storage full, or limits set smaller than the starter). Undo it all.
            transaction.set_rollback(True)
            said = "Could not add the starter site" if starter else "No project was made"
            return ProjectRefused(f"{said}: {result.message}")
    return project


def _created(owner: User, name: str, description: str) -> Project | None:
    for _ in range(_NAME_TRIES):
        free = name_free(owner_id=owner.pk, name=name)
        try:
            with transaction.atomic():
                return Project.objects.create(owner=owner, name=free, description=description)
        except IntegrityError:  # another tab took `free` meanwhile: look again
            continue
    return None


def name_free(*, owner_id: int, name: str, project: Project | None = None) -> str:
    """`name`, or, when another of the owner's projects (`project` aside) has
    it, `name` with the lowest free number: "Crumb (2)"; for a taken
    "Crumb (2)", "Crumb (3)"."""
    taken = {_key(other) for other in _other_names(owner_id, project)}
    if _key(name) not in taken:
        return name
    numbered = _NUMBERED.fullmatch(name)
    base, first = (numbered["base"], int(numbered["number"]) + 1) if numbered else (name, 2)
    for number in itertools.count(first):
        suffix = f" ({number})"
        candidate = base[: MAX_NAME - len(suffix)].rstrip() + suffix
        if _key(candidate) not in taken:
            return candidate
    raise AssertionError("unreachable: count() never ends")


def name_taken(*, owner_id: int, name: str, project: Project | None = None) -> str | None:
    """The name of the owner's other project (`project` aside) that reads as `name`."""
    wanted = _key(name)
    return next((other for other in _other_names(owner_id, project) if _key(other) == wanted), None)


def _other_names(owner_id: int, project: Project | None) -> list[str]:
    """The names of the owner's projects out of the trash (`project` aside)."""
    others = Project.objects.filter(owner_id=owner_id)
    if project is not None:
        others = others.exclude(pk=project.pk)
    return list(others.values_list("name", flat=True))


def _key(name: str) -> str:
    """A name as a person reads it: "Crumb", "crumb" and "CRUMB " are one."""
    return " ".join(name.split()).casefold()


def project_rename(*, project: Project, name: str) -> Project | ProjectRefused:
    cleaned = clean_name(name)
    if isinstance(cleaned, ProjectRefused):
        return cleaned
    other = name_taken(owner_id=project.owner_id, name=cleaned, project=project)
    if other is not None:
        return _name_in_use(other)
    previous, project.name = project.name, cleaned
    try:
        with transaction.atomic():
            project.save(update_fields=["name", "updated_at"])
    except IntegrityError:  # another tab gave that name to another project meanwhile
        project.name = previous
        return _name_in_use(cleaned)
    return project


def _name_in_use(name: str) -> ProjectRefused:
    return ProjectRefused(f"You already have a project named {name}: choose another name.")


def project_remember_model(*, project: Project, model: str) -> None:
    """The model picked for this project's next turns."""
    if model != project.default_model:
        project.default_model = model
        project.save(update_fields=["default_model"])


_WORKING = (
    "The assistant is working on this project right now. Stop the turn first "
    "(Stop in the chat panel), then try again."
)


@transaction.atomic
def project_trash(*, project: Project) -> ProjectRefused | None:
    """Into the trash: gone from everywhere, kept whole until purged. Refused while
    a turn runs, so no tool call finds its project gone halfway."""
    if lock_current(project) is not None:
        return ProjectRefused(_WORKING)
    project.deleted_at = timezone.now()
    project.save(update_fields=["deleted_at"])
    transaction.on_commit(lambda: project_trashed.send(Project, project=project))
    return None


def project_restore(*, project: Project) -> Project:
    """Out of the trash, whole; numbered if a project made since has its name
    ("Crumb (2)": `project.name` says which it got)."""
    for _ in range(_NAME_TRIES):
        project.name = name_free(owner_id=project.owner_id, name=project.name, project=project)
        project.deleted_at = None
        try:
            with transaction.atomic():
                project.save(update_fields=["name", "deleted_at", "updated_at"])
                return project
        except IntegrityError:  # another tab took that name meanwhile: look again
            continue
    raise IntegrityError(f"no free name for the restored project {project.pk}")


@transaction.atomic
def project_purge(*, project: Project) -> ProjectRefused | None:
    """Deleted for good, files, history and conversations with it."""
    if lock_current(project) is not None:
        return ProjectRefused(_WORKING)
    # The database deletes the rows; files in Django's storage go once it has.
    stored = list(
        BinaryBlob.objects.filter(project=project)
        .exclude(stored_name="")
        .values_list("stored_name", flat=True)
    )
    project.delete()
    transaction.on_commit(lambda: stored_files_delete(stored))
    return None


def trash_purge_expired(*, now: datetime | None = None) -> int:
    """Purge what has been in the trash longer than BUILTIT_TRASH_DAYS; the count."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.BUILTIT_TRASH_DAYS)
    expired = Project.all_objects.filter(deleted_at__lte=cutoff)
    return sum(1 for project in expired if project_purge(project=project) is None)


def trash_purge_date(project: Project) -> datetime | None:
    if project.deleted_at is None:
        return None
    return project.deleted_at + timedelta(days=settings.BUILTIT_TRASH_DAYS)


@transaction.atomic
def project_rotate_preview_token(*, project: Project) -> str:
    """A new secret preview address; the old one stops working at once, and
    says it was replaced (the last few are remembered)."""
    RetiredPreviewToken.objects.create(project=project, token=project.preview_token)
    kept = RetiredPreviewToken.objects.filter(project=project).order_by("-retired_at", "-pk")
    stale = kept.values_list("pk", flat=True)[RETIRED_TOKENS_KEPT:]
    RetiredPreviewToken.objects.filter(pk__in=list(stale)).delete()
    project.preview_token = new_preview_token()
    project.save(update_fields=["preview_token"])
    return project.preview_token
