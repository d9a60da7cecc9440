"""Project-level services: create (blank or starter), rename, the trash (move
there, restore, purge), preview token."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

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


@dataclass(frozen=True)
class ProjectError:
    message: str


def clean_name(raw: object) -> str | ProjectError:
    name = " ".join(str(raw or "").split())
    if not name:
        return ProjectError("Give the project a name.")
    if len(name) > MAX_NAME:
        return ProjectError(f"Project names are at most {MAX_NAME} characters.")
    if not name.isprintable():
        return ProjectError(
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
) -> Project | ProjectError:
    """A project: blank, with the starter site (and its /AGENTS.md), or with
    only the starter's /AGENTS.md (`instructions`)."""
    cleaned = clean_name(name)
    if isinstance(cleaned, ProjectError):
        return cleaned
    if len(description) > MAX_DESCRIPTION:
        return ProjectError(f"Descriptions are at most {MAX_DESCRIPTION} characters.")
    project = Project.objects.create(owner=owner, name=cleaned, description=description.strip())
    files = STARTER_FILES if starter else STARTER_INSTRUCTIONS if instructions else {}
    for path, content in files.items():
        result = file_create(
            project=project, path=path, content=content, author=Author.person(owner)
        )
        if isinstance(result, FileError):
            # The starter files are ours; a failure here means the limits are
            # set smaller than the starter site. Undo the whole project.
            transaction.set_rollback(True)
            return ProjectError(f"Could not add the starter site: {result.message}")
    return project


def project_rename(*, project: Project, name: str) -> Project | ProjectError:
    cleaned = clean_name(name)
    if isinstance(cleaned, ProjectError):
        return cleaned
    project.name = cleaned
    project.save(update_fields=["name", "updated_at"])
    return project


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
def project_trash(*, project: Project) -> ProjectError | None:
    """Into the trash: gone from everywhere, kept whole until purged. Refused while
    a turn runs, so no tool call finds its project gone halfway."""
    if lock_current(project) is not None:
        return ProjectError(_WORKING)
    project.deleted_at = timezone.now()
    project.save(update_fields=["deleted_at"])
    transaction.on_commit(lambda: project_trashed.send(Project, project=project))
    return None


def project_restore(*, project: Project) -> None:
    project.deleted_at = None
    project.save(update_fields=["deleted_at", "updated_at"])


@transaction.atomic
def project_purge(*, project: Project) -> ProjectError | None:
    """Deleted for good, files, history and conversations with it."""
    if lock_current(project) is not None:
        return ProjectError(_WORKING)
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
