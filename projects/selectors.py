"""Reads: projects a user may see, a person's workspace preferences, the project
a preview link opens, and a project's files (list, read, search)."""

from __future__ import annotations

import difflib
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    When,
)
from django.db.models.functions import Coalesce

from projects.access import projects_visible_to
from projects.files.binaries import MARKER, digest_of, is_marker
from projects.files.instructions import INSTRUCTIONS_PATH
from projects.files.paths import ALLOWED_EXTENSIONS, PathError, normalize_path
from projects.files.results import (
    BinaryInfo,
    ErrorCode,
    FileContent,
    FileError,
    FileInfo,
    SearchMatch,
    SearchResults,
)
from projects.files.text import bare_lines, split_lines
from projects.models import (
    BinaryBlob,
    FileRevision,
    Membership,
    Project,
    ProjectFile,
    RetiredPreviewToken,
    Site,
    WorkspacePreferences,
)

MAX_SEARCH_QUERY = 500
DEFAULT_SEARCH_RESULTS = 100
_MAX_LISTED_FILES = 50
_MAX_LINE_SHOWN = 240
HOME_PAGE = "/index.html"


def project_list_for(user: User | AnonymousUser) -> QuerySet[Project]:
    """The person's dashboard: their projects and those shared with them
    (`shared_role`, with the owner at hand to say by whom), each with how many
    people it is shared with (`member_count`, which only its owner is shown)."""
    members = (
        Membership.objects.filter(project=OuterRef("pk"))
        .order_by()
        .values("project")
        .annotate(count=Count("pk"))
        .values("count")
    )
    return (
        projects_visible_to(user)
        .select_related("owner")
        .annotate(
            member_count=Coalesce(Subquery(members), 0),
            file_count=Count("files"),
            total_size=Coalesce(Sum("files__size"), 0),
            last_file_change=Max("files__updated_at"),
            # The dashboard's thumbnail is the home page: without one, a placeholder.
            has_home_page=Exists(
                ProjectFile.objects.filter(project=OuterRef("pk"), path=HOME_PAGE)
            ),
            # Its site, when one is live: the card says so, with its address.
            published_name=Case(
                When(site__live__isnull=False, site__taken_down="", then=F("site__name")),
                default=None,
            ),
            published_protected=Q(site__password__gt=""),
        )
        .order_by("-updated_at")
    )


def trash_list_for(user: User | AnonymousUser) -> QuerySet[Project]:
    return Project.all_objects.filter(owner_id=user.pk, deleted_at__isnull=False).order_by(
        "-deleted_at"
    )


def trashed_get_for(user: User | AnonymousUser, project_id: uuid.UUID) -> Project | None:
    return trash_list_for(user).filter(pk=project_id).first()


def preferences_of(*, user: User) -> dict[str, object]:
    """A person's workspace preferences as stored (projects.web.preferences checks them)."""
    found = WorkspacePreferences.objects.filter(user=user).values_list("values", flat=True).first()
    return dict(found) if isinstance(found, dict) else {}


PreviewClosed = Literal["taken_down", "replaced", "unknown"]


def preview_project(*, token: str) -> Project | PreviewClosed:
    """The project whose preview `token` opens, or why none does: staff took its
    site down (the preview link is no way round that), the owner replaced the
    link, or it never was one."""
    project = Project.objects.filter(preview_token=token).only("pk").first()
    if project is not None and Site.objects.filter(project=project).exclude(taken_down="").exists():
        return "taken_down"
    if project is None:
        return "replaced" if RetiredPreviewToken.objects.filter(token=token).exists() else "unknown"
    return project


def file_for_preview(*, project: Project, path: str) -> ProjectFile | None:
    """The file at canonical `path`, with only what serving it needs."""
    return ProjectFile.objects.filter(project=project, path=path).only("content", "path").first()


def file_list(project: Project) -> list[FileInfo]:
    rows = ProjectFile.objects.filter(project=project).values_list(
        "path", "size", "version", "updated_at"
    )
    binaries = binary_infos(project)
    return [
        FileInfo(path, size, version, updated, binaries.get(path))
        for path, size, version, updated in rows
    ]


def file_stamps(project: Project) -> dict[str, tuple[int, datetime]]:
    """Each file's version and when it was last written, by path (one query): what
    changes whenever a file's content does, even deleted and made again."""
    rows = ProjectFile.objects.filter(project=project).values_list("path", "version", "updated_at")
    return {path: (version, updated) for path, version, updated in rows}


def open_file_news(*, project: Project, path: str, version: int) -> tuple[list[str], str]:
    """Whether the file an editor shows at `version` changed since (or, with none
    open, the home page now exists), as a signal's files and who changed it."""
    if not path:
        home = ProjectFile.objects.filter(project=project, path=HOME_PAGE).exists()
        return ([HOME_PAGE], "assistant") if home else ([], "")
    now = ProjectFile.objects.filter(project=project, path=path).values_list("version", flat=True)
    if now.first() == version:
        return [], ""
    return [path], revision_by(project=project, path=path)


def revision_newest(*, project: Project) -> int:
    """The id of the project's newest file revision (0: none yet): what a page
    is drawn from, for its socket to ask what changed after (files_moved_since)."""
    newest = FileRevision.objects.filter(project=project).aggregate(newest=Max("id"))["newest"]
    return int(newest or 0)


# Revisions files_moved_since reads at most: a page is drawn a moment before its
# socket joins; a forged `since` far back costs no more than this.
MOVED_SINCE_REVISIONS = 200


@dataclass(frozen=True)
class FilesMovedSince:
    """The paths the revisions after a page's drawing touched, who made the
    newest, in a signal's words, and the person who saved it ("person" only)."""

    paths: list[str]
    by: Literal["assistant", "history", "person"]
    user_id: int | None


def files_moved_since(*, project: Project, after: int) -> FilesMovedSince | None:
    """What changed in the project's files after revision `after` (None: nothing)."""
    rows = list(
        FileRevision.objects.filter(project=project, id__gt=after)
        .order_by("-id")
        .values_list("path", "old_path", "actor", "reversal_id", "user_id")[:MOVED_SINCE_REVISIONS]
    )
    if not rows:
        return None
    paths = sorted({path for row in rows for path in row[:2] if path})
    _, _, actor, reversal, user_id = rows[0]
    by = _said_by(actor, reversal)
    # Only a person's own save names them: the page names no one for an undo or restore.
    return FilesMovedSince(paths, by, user_id if by == "person" else None)


def revision_by(*, project: Project, path: str) -> Literal["assistant", "history", "person"]:
    """Who made the last change to `path`, in a signal's words: the assistant, an
    undo or restore ("history"), or the person."""
    last = (
        FileRevision.objects.filter(project=project)
        .filter(Q(path=path) | Q(old_path=path))
        .values_list("actor", "reversal_id")
        .first()
    )
    return "assistant" if last is None else _said_by(*last)


def _said_by(actor: str, reversal_id: int | None) -> Literal["assistant", "history", "person"]:
    """Who made a revision, in a signal's words: the assistant, an undo or
    restore ("history"), or the person."""
    if actor == FileRevision.Actor.ASSISTANT:
        return "assistant"
    return "history" if reversal_id is not None else "person"


def binary_infos(project: Project) -> dict[str, BinaryInfo]:
    """What each binary file of the project is, by path (two small queries)."""
    markers = dict(
        ProjectFile.objects.filter(project=project, content__startswith=MARKER).values_list(
            "path", "content"
        )
    )
    if not markers:
        return {}
    blobs = {
        blob.digest: blob
        for blob in BinaryBlob.objects.filter(
            project=project, digest__in=[digest_of(marker) for marker in markers.values()]
        ).defer("data")
    }
    found = {}
    for path, marker in markers.items():
        blob = blobs.get(digest_of(marker))
        if blob is not None:
            found[path] = binary_info(blob)
    return found


def binary_info(blob: BinaryBlob) -> BinaryInfo:
    return BinaryInfo(blob.content_type, blob.size, blob.digest, blob.width, blob.height)


def file_paths(project: Project) -> list[str]:
    return list(ProjectFile.objects.filter(project=project).values_list("path", flat=True))


def file_not_found(project: Project, path: str) -> FileError:
    """A not-found error that lists what does exist and suggests the likely file."""
    paths = file_paths(project)
    same_but_case = [p for p in paths if p.lower() == path.lower()]
    close = same_but_case or difflib.get_close_matches(path, paths, n=1, cutoff=0.6)
    suggestion = close[0] if close else None
    hint = f" Did you mean {suggestion}?" if suggestion else ""
    if not paths:
        hint = " The project has no files yet."
    return FileError(
        ErrorCode.NOT_FOUND,
        f"File {path} does not exist.{hint}",
        path=path,
        available_files=tuple(paths[:_MAX_LISTED_FILES]),
        suggestion=suggestion,
    )


def path_error(error: PathError) -> FileError:
    return FileError(
        ErrorCode.INVALID_PATH,
        error.message,
        path=error.path,
        allowed_extensions=ALLOWED_EXTENSIONS,
        shown=error.shown,
    )


def file_read(
    project: Project, path: str, *, start_line: int | None = None, end_line: int | None = None
) -> FileContent | FileError:
    canonical = normalize_path(path)
    if isinstance(canonical, PathError):
        return path_error(canonical)
    record = ProjectFile.objects.filter(project=project, path=canonical).first()
    if record is None:
        return file_not_found(project, canonical)
    if is_marker(record.content):
        blob = (
            BinaryBlob.objects.filter(project=project, digest=digest_of(record.content))
            .defer("data")
            .first()
        )
        info = binary_info(blob) if blob is not None else None
        return FileContent(canonical, "", record.version, record.size, 0, 0, 0, info)
    lines = split_lines(record.content)
    total = len(lines)
    if start_line is None and end_line is None:
        return FileContent(
            canonical, record.content, record.version, record.size, total, 1 if total else 0, total
        )
    first = 1 if start_line is None else start_line
    last = total if end_line is None else min(end_line, total)
    if first < 1 or (end_line is not None and end_line < first) or first > max(total, 1):
        shown_end = "the end" if end_line is None else str(end_line)
        return FileError(
            ErrorCode.INVALID_ARGUMENT,
            f"Lines {first} to {shown_end} are not a range within {canonical}, which has "
            f"{total} lines (numbered from 1).",
            path=canonical,
            size=total,
        )
    chunk = "".join(lines[first - 1 : last])
    return FileContent(canonical, chunk, record.version, record.size, total, first, last)


def instructions_text(project: Project) -> str | None:
    """The text of the project's /AGENTS.md (in any letter case), or None
    when it has none."""
    record = (
        ProjectFile.objects.filter(project=project, path__iexact=INSTRUCTIONS_PATH)
        .only("content")
        .first()
    )
    return None if record is None else record.content


def file_search(
    project: Project,
    query: str,
    *,
    case_sensitive: bool = False,
    max_results: int = DEFAULT_SEARCH_RESULTS,
) -> SearchResults | FileError:
    """Plain-text search, line by line, across every file of the project."""
    if not isinstance(query, str) or query.strip() == "":
        return FileError(ErrorCode.INVALID_ARGUMENT, "The search text is empty.")
    if len(query) > MAX_SEARCH_QUERY or "\n" in query:
        return FileError(
            ErrorCode.INVALID_ARGUMENT,
            f"Search for a single line of at most {MAX_SEARCH_QUERY} characters.",
        )
    needle = query if case_sensitive else query.lower()
    matches: list[SearchMatch] = []
    total = 0
    files = (
        ProjectFile.objects.filter(project=project)
        .exclude(content__startswith=MARKER)  # binary files have no text to search
        .values_list("path", "content")
    )
    searched = 0
    for path, content in files.iterator(chunk_size=50):
        searched += 1
        haystack = content if case_sensitive else content.lower()
        if needle not in haystack:
            continue
        for number, line in enumerate(bare_lines(content), start=1):
            if needle in (line if case_sensitive else line.lower()):
                total += 1
                if len(matches) < max_results:
                    shown = line.strip()
                    at = (shown if case_sensitive else shown.lower()).find(needle.strip())
                    matches.append(SearchMatch(path, number, _shorten(shown, max(at, 0))))
    return SearchResults(query, tuple(matches), total, searched, total > len(matches))


def _shorten(line: str, at: int) -> str:
    """`line` cut to what is shown, around its first match (at `at`) when that
    lies past the cut: in a long or minified line it would not be shown at all."""
    if len(line) <= _MAX_LINE_SHOWN:
        return line
    if at < _MAX_LINE_SHOWN * 2 // 3:
        return line[:_MAX_LINE_SHOWN] + "…"
    start = min(at - _MAX_LINE_SHOWN // 3, len(line) - _MAX_LINE_SHOWN)
    end = start + _MAX_LINE_SHOWN
    return "…" + line[start:end] + ("…" if end < len(line) else "")
