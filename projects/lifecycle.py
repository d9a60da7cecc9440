"""Project-level services: create (blank or starter), rename, delete, preview token."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction

from projects.models import Project, new_preview_token
from projects.results import FileError
from projects.services import Author, file_create
from projects.starter import STARTER_FILES

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
    *, owner: User, name: str, description: str = "", starter: bool = False
) -> Project | ProjectError:
    cleaned = clean_name(name)
    if isinstance(cleaned, ProjectError):
        return cleaned
    if len(description) > MAX_DESCRIPTION:
        return ProjectError(f"Descriptions are at most {MAX_DESCRIPTION} characters.")
    project = Project.objects.create(owner=owner, name=cleaned, description=description.strip())
    if starter:
        for path, content in STARTER_FILES.items():
            result = file_create(
                project=project, path=path, content=content, author=Author.person(owner)
            )
            if isinstance(result, FileError):
                # The starter files are ours; a failure here means the limits are
                # set smaller than a three-file site. Undo the whole project.
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


def project_delete(*, project: Project) -> None:
    project.delete()


def project_rotate_preview_token(*, project: Project) -> str:
    """A new secret preview address; the old one stops working at once."""
    project.preview_token = new_preview_token()
    project.save(update_fields=["preview_token"])
    return project.preview_token
