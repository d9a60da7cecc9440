"""The live preview: `/preview/<token>/<path>` serves a project's stored files.

The token is the only credential (no cookies are needed), and every response
carries `Content-Security-Policy: sandbox` without `allow-same-origin`, so the
generated JavaScript runs in an opaque origin and can never act as the user,
even when the page is opened outside the workspace's sandboxed iframe.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect

from projects.models import Project, ProjectFile
from projects.paths import PathError, content_type_for, normalize_path

SANDBOX = "allow-scripts allow-forms allow-popups allow-modals allow-downloads"
_CSP = f"sandbox {SANDBOX}; frame-ancestors 'self'"
_NOT_FOUND_PAGE = (
    "<!doctype html><meta charset=utf-8><title>Not found</title>"
    '<body style="font-family:system-ui;padding:2rem;color:#374151">'
    "<h1>Page not found</h1><p>This project has no file at this address.</p>"
)


@login_not_required
def serve(request: HttpRequest, token: str, path: str) -> HttpResponse:
    if request.method not in {"GET", "HEAD"}:
        return _secured(HttpResponseNotAllowed(["GET", "HEAD"]))
    project = Project.objects.filter(preview_token=token).only("pk").first()
    if project is None:
        return _not_found()
    wanted = path + "index.html" if path == "" or path.endswith("/") else path
    canonical = normalize_path(wanted)
    record = (
        None
        if isinstance(canonical, PathError)
        else ProjectFile.objects.filter(project=project, path=canonical)
        .only("content", "path")
        .first()
    )
    if record is None:
        if wanted == path and _is_folder(project, path):
            # /about -> /about/ so the folder's index.html resolves its relative links.
            return _secured(HttpResponseRedirect(request.path + "/"))
        return _not_found()
    response = HttpResponse(
        record.content.encode("utf-8"), content_type=content_type_for(record.path)
    )
    return _secured(response)


def _is_folder(project: Project, path: str) -> bool:
    index = normalize_path(path + "/index.html")
    if isinstance(index, PathError):
        return False
    return ProjectFile.objects.filter(project=project, path=index).exists()


def _not_found() -> HttpResponse:
    return _secured(
        HttpResponse(_NOT_FOUND_PAGE, status=404, content_type="text/html; charset=utf-8")
    )


def _secured(response: HttpResponse) -> HttpResponse:
    response["Content-Security-Policy"] = _CSP
    response["X-Content-Type-Options"] = "nosniff"
    # The token is in the address: never send it to other sites as a referrer.
    response["Referrer-Policy"] = "no-referrer"
    response["Cache-Control"] = "no-store"
    # Opaque-origin pages load module scripts and fetch() JSON with CORS; the
    # token, not the origin, is what grants access.
    response["Access-Control-Allow-Origin"] = "*"
    response["Cross-Origin-Resource-Policy"] = "cross-origin"
    # The workspace frames previews; X-Frame-Options would forbid it (DENY).
    response["X-Frame-Options"] = "SAMEORIGIN"
    return response
