"""The preview of the project as it was (projects.history.past), before anything
is restored: served from the sites origin like the live preview, with the same
token, sandbox and headers (projects.views.preview), at a point of its history.

- `/preview/<token>/@<revision>/<path>`: every file as it was right after the
  revision (a turn's "Preview" names the turn's last one);
- `/preview/<token>/@file-<revision>/<path>`: the files as they are now, with
  the one the revision changed as that revision left it (what its Restore
  brings back);
- `/preview/<token>/@v<number>/<path>`: a published version of the site, its
  addresses read as its host reads them (a folder's index.html, its own
  404.html), to look at before making it live again.

Its pages get no bridge, only the notices for blocked dialogs: the problems
of a past page are not the site's problems now, and the workspace listens to
the live frame alone.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.http import escape_leading_slashes
from django.views.decorators.csrf import csrf_exempt

from projects.files.instructions import is_instructions
from projects.files.paths import content_type_for, normalize_path
from projects.history.past import PastText, past_files, past_version
from projects.models import SiteVersion
from projects.publish.addresses import file_for
from projects.publish.serving import Stored, content_of, version_index
from projects.views.preview import (
    SHARED_PAGE_SCRIPT,
    live_file,
    not_found_page,
    project_for,
    secured,
    with_page_report,
)
from projects.web.past_seals import past_seal_valid
from projects.web.plain import plain_page
from projects.web.static_files import content_response

# A shared preview link shows the site as it is, never its history
# (projects.web.past_seals); an old view's address lapses after some hours.
_SEAL_LAPSED = plain_page(
    "This view of the past has lapsed",
    "Press Preview again beside the turn or the version in the workspace.",
)
_NO_VERSION = plain_page(
    "No such version",
    "That version of the published site is no longer kept: the newest are.",
)
_NOTHING_THEN = plain_page(
    "Nothing to show at that time",
    "The project had no <code>index.html</code> then, the page a site opens with.",
)


@login_not_required
@csrf_exempt  # as the live preview: only GET and HEAD, no cookie read
def serve_point(request: HttpRequest, token: str, point: str, seal: str, path: str) -> HttpResponse:
    preview = project_for(request, token)
    if isinstance(preview, HttpResponse):
        return preview
    if not past_seal_valid(
        project_id=preview.project.pk, kind="point", number=int(point), seal=seal
    ):
        return not_found_page(_SEAL_LAPSED)
    files = past_files(project_id=preview.project.pk, point=int(point))
    found = file_for("/" + path, files)
    if found is None or is_instructions(found.path):
        return not_found_page(_NOTHING_THEN) if path in {"", "index.html"} else not_found_page()
    if found.folder:
        return secured(HttpResponseRedirect(escape_leading_slashes(request.path + "/")))
    return _past_text(request, files[found.path], found.path)


@login_not_required
@csrf_exempt
def serve_version(
    request: HttpRequest, token: str, revision: str, seal: str, path: str
) -> HttpResponse:
    preview = project_for(request, token)
    if isinstance(preview, HttpResponse):
        return preview
    if not past_seal_valid(
        project_id=preview.project.pk, kind="file", number=int(revision), seal=seal
    ):
        return not_found_page(_SEAL_LAPSED)
    version = past_version(project_id=preview.project.pk, revision_id=int(revision))
    if version is None or is_instructions(version.path):
        return not_found_page()
    wanted = path + "index.html" if path == "" or path.endswith("/") else path
    if normalize_path(wanted) != version.path:
        return live_file(request, preview, path, script=SHARED_PAGE_SCRIPT)
    return _past_text(request, version.text, version.path)


@login_not_required
@csrf_exempt
def serve_published(
    request: HttpRequest, token: str, number: str, seal: str, path: str
) -> HttpResponse:
    preview = project_for(request, token)
    if isinstance(preview, HttpResponse):
        return preview
    if not past_seal_valid(
        project_id=preview.project.pk, kind="published", number=int(number), seal=seal
    ):
        return not_found_page(_SEAL_LAPSED)
    version = SiteVersion.objects.filter(site__project=preview.project, number=int(number)).first()
    if version is None:
        return not_found_page(_NO_VERSION, status=410)
    files = version_index(version.pk, version.created_at)
    found = file_for("/" + path, files)
    if found is None:
        return _not_published(files)
    if found.folder:
        return secured(HttpResponseRedirect(escape_leading_slashes(request.path + "/")))
    return _stored(request, files[found.path], found.path)


def _not_published(files: dict[str, Stored]) -> HttpResponse:
    """What the site's host answers for an address with no file: its own 404.html."""
    stored = files.get("/404.html")
    own = content_of(stored, "/404.html") if stored is not None else None
    if own is None:
        return not_found_page()
    page = with_page_report(own.data.decode("utf-8", "replace"), script=SHARED_PAGE_SCRIPT)
    return secured(HttpResponse(page.encode("utf-8"), status=404, content_type=own.content_type))


def _past_text(request: HttpRequest, text: PastText | None, path: str) -> HttpResponse:
    """A file's text as it was (None: it was empty), served as the live preview
    serves it; binary files (their marker) as their bytes."""
    if text is None:
        return secured(HttpResponse(b"", content_type=content_type_for(path)))
    return _stored(request, Stored(text.blob_id, text.digest), path)


def _stored(request: HttpRequest, stored: Stored, path: str) -> HttpResponse:
    content = content_of(stored, path)
    if content is None:
        return not_found_page()
    if content.content_type.startswith("text/html"):
        page = with_page_report(content.data.decode("utf-8", "replace"), script=SHARED_PAGE_SCRIPT)
        return secured(HttpResponse(page.encode("utf-8"), content_type=content.content_type))
    response = content_response(
        request, content.data, content.content_type, content.digest, gzipped=content.gzipped
    )
    return secured(response)
