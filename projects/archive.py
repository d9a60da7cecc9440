"""ZIP export and import. Import goes through the same path rules, limits and
file service as every other write, in one transaction. A file the archive holds
that cannot be used (a name the rules refuse, text that is not UTF-8, an image
that is not what its name says…) is skipped and named with the reason; the
archive is refused whole only when it cannot be read, is over the limits, or
holds nothing usable."""

from __future__ import annotations

import io
import zipfile
import zlib
from dataclasses import dataclass
from typing import IO

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from common.refusals import Refusal
from common.sizes import human_size
from projects.files.binaries import Sniffed, storage_written
from projects.files.exported import file_bytes, zip_entry
from projects.files.limits import current_limits, storage_problem
from projects.files.media.budget import decoding_shared
from projects.files.paths import PathError, is_binary_path, normalize_path
from projects.files.results import ErrorCode, FileError
from projects.lifecycle import ProjectRefused, project_create
from projects.models import FormSubmission, Project, ProjectFile
from projects.publish.forms.table import submissions_csv
from projects.services import Author, file_create, file_upload_checked
from projects.sweep import stored_files_delete
from projects.usage import storage_used
from projects.write_checks import upload_checked

# Files that operating systems add to archives on their own; skipped, not refused.
# What an export holds besides the site's files, when asked (project_export_zip).
FORMS_CSV = "form-submissions.csv"
_JUNK_NAMES = frozenset({".DS_Store", "Thumbs.db", "desktop.ini", FORMS_CSV})
_JUNK_FOLDERS = ("__MACOSX/",)
# Files an import's refusal or report names one by one; the rest as a count.
_MAX_FILES_LISTED = 10
_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError, ValueError)
# Refusals about the project or its owner rather than one file: the import stops.
_WHOLE_ARCHIVE = frozenset(
    {ErrorCode.STORAGE_FULL, ErrorCode.PROJECT_TOO_LARGE, ErrorCode.TOO_MANY_FILES}
)
# Written into the ZIP comment of our own exports: their folders are the
# project's own and must come back as they were, never unwrapped.
EXPORT_MARK = b"Built-It project export"


@dataclass(frozen=True)
class ImportRefused(Refusal):
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class Imported:
    project: Project
    # Each file left out, with why, named as the archive names it.
    skipped: tuple[str, ...] = ()
    folder: str = ""  # the one top folder taken off ("site/"), if there was one


def project_export_zip(project: Project, *, with_forms: bool = False) -> bytes:
    """The project's files as a ZIP; `with_forms`: and what its site's forms
    received, as FORMS_CSV (asked for: visitors' words are not the site's)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.comment = EXPORT_MARK
        for record in ProjectFile.objects.filter(project=project).order_by("path"):
            entry = zip_entry(record.path, record.updated_at)
            archive.writestr(entry, file_bytes(project, record.content))
        if with_forms:
            rows = FormSubmission.objects.filter(project=project).order_by("-created_at", "-pk")
            entry = zip_entry("/" + FORMS_CSV, timezone.now())
            archive.writestr(entry, submissions_csv(rows.iterator()))
    return buffer.getvalue()


def project_import_zip(
    *, owner: User, name: str, upload: IO[bytes], upload_size: int
) -> Imported | ImportRefused:
    if upload_size > settings.BUILTIT_MAX_IMPORT_BYTES:
        return ImportRefused(
            f"The ZIP file is {human_size(upload_size)}; the largest accepted is "
            f"{human_size(settings.BUILTIT_MAX_IMPORT_BYTES)}."
        )
    try:
        # Images are decoded here, before the import's transaction (on SQLite it
        # holds every other writer), sharing one budget: an import cannot make
        # us decode for long.
        with zipfile.ZipFile(upload) as archive, decoding_shared():
            files = _read_archive(archive)
    except NotImplementedError:
        return ImportRefused(
            "The archive uses a compression method Built-It cannot read (such as Deflate64 or "
            "AES encryption). Create it again with standard ZIP compression."
        )
    except _ZIP_ERRORS:
        return ImportRefused("That file is not a readable ZIP archive.")
    if isinstance(files, ImportRefused):
        return files
    full = _storage_refusal(owner, files.files)
    if full is not None:
        return full
    with storage_written() as stored:
        created = _create_project(owner, name, files)
    if isinstance(created, ImportRefused):
        # Its rows were rolled back; the files it saved in storage go too.
        stored_files_delete(stored)
    return created


def _storage_refusal(owner: User, files: dict[str, str | _Binary]) -> ImportRefused | None:
    """The whole archive against the owner's storage, before anything of it is kept."""
    limits = current_limits()
    if not limits.max_user_storage_bytes:
        return None
    size = sum(
        len(content.encode("utf-8")) if isinstance(content, str) else len(content.data)
        for content in files.values()
    )
    problem = storage_problem("this archive", storage_used(owner.pk), size, limits)
    return None if problem is None else ImportRefused(problem.message)


@dataclass(frozen=True)
class _Binary:
    data: bytes
    sniffed: Sniffed  # what upload_checked found it to be


_Read = tuple[dict[str, str | _Binary], list[str]]


@dataclass(frozen=True)
class _Unpacked:
    files: dict[str, str | _Binary]  # by their path in the project
    skipped: list[str]
    prefix: str  # the top folder taken off, as a path ("/site"), or ""

    def name_of(self, path: str) -> str:
        """A project path as the archive names it (a path taken is never repaired)."""
        return (self.prefix + path).lstrip("/")


def _read_archive(archive: zipfile.ZipFile) -> _Unpacked | ImportRefused:
    entries = [info for info in archive.infolist() if not info.is_dir() and not _is_junk(info)]
    limits = current_limits()
    if not entries:
        return ImportRefused("The ZIP archive contains no files.")
    if len(entries) > limits.max_files:
        return ImportRefused(
            f"The ZIP archive holds {len(entries)} files; a project may hold at most "
            f"{limits.max_files}."
        )
    declared = sum(info.file_size for info in entries)
    if declared > limits.max_project_bytes:
        return ImportRefused(
            f"Unpacked, the archive would be {human_size(declared)}; a project may hold at "
            f"most {human_size(limits.max_project_bytes)}."
        )
    ours = archive.comment == EXPORT_MARK
    prefix = "" if ours else _common_folder([info.filename for info in entries])
    paths, skipped = _entry_paths(entries, prefix)
    read = _read_entries(archive, paths)
    if isinstance(read, ImportRefused):
        return read
    files, unreadable = read
    return _Unpacked(files, skipped + unreadable, prefix)


def _entry_paths(
    entries: list[zipfile.ZipInfo], prefix: str
) -> tuple[dict[str, zipfile.ZipInfo], list[str]]:
    paths: dict[str, zipfile.ZipInfo] = {}
    seen: set[str] = set()
    problems: list[str] = []
    for info in entries:
        name = info.filename
        if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
            problems.append(f"{name}: absolute paths are not allowed in an archive.")
            continue
        if info.flag_bits & 0x1:
            problems.append(f"{name}: encrypted entries cannot be imported.")
            continue
        # The whole name obeys the rules before a wrapper folder is taken off, so
        # nothing ("../x", ".git/x", "a//x") is ever repaired by the unwrapping.
        path = normalize_path(name)
        if isinstance(path, PathError):
            # "Invalid path 'x': why." names it already; the list starts each line with it.
            why = path.message.split(": ", 1)[-1] if path.message.startswith("Invalid") else ""
            problems.append(f"{name}: {why}" if why else _named(name, path.message))
            continue
        path = path.removeprefix(prefix)
        if path.lower() in seen:
            problems.append(f"{name}: another entry has the same path (ignoring case).")
        else:
            seen.add(path.lower())
            paths[path] = info
    return paths, problems


def _read_entries(
    archive: zipfile.ZipFile, paths: dict[str, zipfile.ZipInfo]
) -> _Read | ImportRefused:
    limits = current_limits()
    files: dict[str, str | _Binary] = {}
    total = 0
    problems: list[str] = []
    for path, info in paths.items():
        binary = is_binary_path(path)
        limit = settings.BUILTIT_MAX_BINARY_BYTES if binary else limits.max_file_bytes
        # Read at most one byte past the limit: sizes declared in the archive can lie.
        with archive.open(info) as handle:
            data = handle.read(limit + 1)
        if len(data) > limit:
            problems.append(f"{info.filename} is larger than {human_size(limit)}.")
            continue
        total += len(data)
        if total > limits.max_project_bytes:
            return ImportRefused(
                f"Unpacked, the archive is larger than {human_size(limits.max_project_bytes)}."
            )
        if binary:
            checked = upload_checked(path, data)
            if isinstance(checked, FileError):
                problems.append(_named(info.filename, checked.message, path))
            else:
                files[path] = _Binary(data, checked[1])
            continue
        try:
            files[path] = data.decode("utf-8")
        except UnicodeDecodeError:
            problems.append(f"{info.filename} is not UTF-8 text.")
    return files, problems


@transaction.atomic
def _create_project(owner: User, name: str, unpacked: _Unpacked) -> Imported | ImportRefused:
    project = project_create(owner=owner, name=name)
    if isinstance(project, ProjectRefused):
        return ImportRefused(project.message)
    created = _files_written(project, Author.person(owner), unpacked)
    skipped = unpacked.skipped
    if isinstance(created, ImportRefused) or not created:
        transaction.set_rollback(True)
        return created if isinstance(created, ImportRefused) else _refused(skipped)
    folder = unpacked.prefix.lstrip("/") + "/" if unpacked.prefix else ""
    return Imported(project, tuple(skipped), folder)


def _files_written(project: Project, author: Author, unpacked: _Unpacked) -> int | ImportRefused:
    """How many files were written; each one refused is added to `unpacked.skipped`."""
    created = 0
    files = unpacked.files
    for path in sorted(files):
        content = files[path]
        result = (
            file_create(project=project, path=path, content=content, author=author)
            if isinstance(content, str)
            else file_upload_checked(
                project=project,
                path=path,
                data=content.data,
                sniffed=content.sniffed,
                author=author,
            )
        )
        if isinstance(result, FileError) and result.code in _WHOLE_ARCHIVE:
            # A limit of the project or the person, not a fault of this file.
            return ImportRefused("The archive could not be imported.", (result.message,))
        if isinstance(result, FileError):  # nothing of it was written: skip it
            unpacked.skipped.append(_named(unpacked.name_of(path), result.message, path))
        else:
            created += 1
    return created


def _named(name: str, message: str, path: str = "") -> str:
    """`message` about the entry `name`, naming it as the archive does, first:
    the list of what was left out reads one way whatever found the fault."""
    if path:
        message = message.replace(path, name)
    if message.startswith((name, repr(name))):
        return message
    return f"{name}: {message}"


def _is_junk(info: zipfile.ZipInfo) -> bool:
    name = info.filename
    return name.startswith(_JUNK_FOLDERS) or name.rsplit("/", 1)[-1] in _JUNK_NAMES


def _common_folder(names: list[str]) -> str:
    """`/site` when every entry sits inside one top folder (as most downloads do)."""
    firsts = {name.split("/", 1)[0] for name in names}
    if len(firsts) == 1 and all("/" in name for name in names):
        return "/" + firsts.pop()
    return ""


def _refused(problems: list[str]) -> ImportRefused:
    shown = tuple(problems[:_MAX_FILES_LISTED])
    more = len(problems) - len(shown)
    if more:
        shown += (f"…and {more} more.",)
    noun = "file" if len(problems) == 1 else "files"
    return ImportRefused(
        f"Nothing was imported: the {noun} in the archive cannot be used ({len(problems)} {noun}).",
        shown,
    )


def skipped_shown(skipped: tuple[str, ...]) -> tuple[str, ...]:
    """What an import left out, as a page lists it (the first few, then a count)."""
    shown = skipped[:_MAX_FILES_LISTED]
    more = len(skipped) - len(shown)
    return shown + ((f"…and {more} more.",) if more else ())
