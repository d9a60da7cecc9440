"""The workspace page's parts that more than one view draws: its files, tree and
editor as template context (the chat app adds its panel to the page), and the
file tree as an out-of-band swap for whoever changed the files (a view here, a
chat socket there). No views: they are in projects.views."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.template.loader import render_to_string

from projects.access import ACTIONS, Access
from projects.files.instructions import (
    MAX_INSTRUCTIONS_CHARS,
    instructions_unread,
    is_instructions,
)
from projects.files.paths import extension_of
from projects.files.results import FileContent, FileError, FileInfo
from projects.history.revisions import deleted_files
from projects.models import GitRemote, Project
from projects.publish.forms.selectors import unread_count
from projects.selectors import file_list, file_read, preferences_of
from projects.web.tree import build_tree

_ACE_MODES = {
    "html": "html",
    "htm": "html",
    "css": "css",
    "js": "javascript",
    "mjs": "javascript",
    "json": "json",
    "webmanifest": "json",
    "svg": "svg",
    "xml": "xml",
    "md": "markdown",
    "txt": "text",
}


def workspace_context(access: Access, person: User) -> dict[str, object]:
    """The workspace page's files, tree and editor (the chat app adds its panel),
    drawn for `person`'s role in the project."""
    project = access.project
    files = file_list(project)
    paths = [f.path for f in files]
    # A file of the site: the owner's instructions are a click away in the top bar.
    site = [path for path in paths if not is_instructions(path)]
    first = "/index.html" if "/index.html" in site else (site[0] if site else None)
    opened = file_read(project, first) if first else None
    return {
        "project": project,
        **role_context(access),
        # The person's own: each one the project is shared with keeps theirs.
        "preferences": preferences_of(user=person),
        # What the site's forms received and the owner has not read yet.
        "unread_forms": unread_count(project=project),
        # The Git host it syncs with, if any (projects.git.remotes).
        "git_remote": GitRemote.objects.filter(project=project).first(),
        **_instructions_context(project, paths),
        **_tree_context(project, files),
        **editor_context(opened),
    }


def tree_html(project: Project) -> str:
    """The file tree as an out-of-band swap, for whoever changed the files."""
    return render_to_string(
        "projects/partials/tree.html",
        {"project": project, "oob": True, **_tree_context(project, file_list(project))},
    )


def editor_context(opened: FileContent | FileError | None) -> dict[str, object]:
    """The editor for `opened`, or the empty editor when there is no file to show."""
    if not isinstance(opened, FileContent):
        return {"file": None, "mode": "text"}
    return {"file": opened, "mode": _ACE_MODES.get(extension_of(opened.path), "text")}


def _instructions_context(project: Project, paths: list[str]) -> dict[str, object]:
    """The owner's instructions to the assistant (/AGENTS.md), shown in the
    page's top bar (None when the project has none), and how much of them the
    assistant leaves unread."""
    path = next((path for path in paths if is_instructions(path)), None)
    opened = file_read(project, path) if path else None
    if not isinstance(opened, FileContent):
        return {"instructions": None}
    unread = instructions_unread(opened.content)
    return {
        "instructions": opened,
        # In words for the page ("8,000"); "" when every character is read.
        "instructions_read": f"{MAX_INSTRUCTIONS_CHARS:,}",
        "instructions_unread": f"{unread:,}" if unread else "",
    }


def _tree_context(project: Project, files: list[FileInfo]) -> dict[str, object]:
    return {"tree": build_tree(files), "deleted": deleted_files(project)}


def role_context(access: Access) -> dict[str, object]:
    """What the page shows for the person's role: `may.<action>` for the
    template, and `may_list` on the page's root, where the stylesheet hides
    every control marked `data-needs="<action>"` the role does not allow (parts
    drawn later, a turn's Undo sent over the socket to everyone, included)."""
    return {
        "access": access,
        "may": {action: access.allows(action) for action in ACTIONS["owner"]},
        "may_list": " ".join(sorted(ACTIONS[access.role])),
    }
