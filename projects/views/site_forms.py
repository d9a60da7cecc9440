"""A site's forms, answered on the sites origin (projects.publish.forms): at a
site's own host (`/_forms/<form>`, through projects.views.published), at
`/s/<name>/_forms/<form>` and in the preview (`/preview/<token>/_forms/<form>`).

A form posted the ordinary way gets a redirect (303: a reload does not send
it again) to the page `_next` names, the site's `/thanks.html`, or a plain
thank-you page; a `fetch()` that accepts JSON gets JSON. What is refused says
why, with the status that fits, and keeps nothing."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from urllib.parse import quote

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse, QueryDict
from django.http.multipartparser import MultiPartParserError
from django.utils.html import escape
from django.utils.http import escape_leading_slashes, urlencode
from django.views.decorators.csrf import csrf_exempt

from common import threads
from projects.live_previews import OpenPreview, preview_open
from projects.publish.forms.receiving import (
    Checked,
    Posted,
    Received,
    Refused,
    form_check,
    form_receive,
    form_receive_queued,
)
from projects.publish.forms.targets import Target, preview_target, site_target
from projects.publish.forms.thanks import thanks_for
from projects.publish.live_sites import LiveSite, live_site
from projects.views.preview import secured
from projects.web.methods import Headed
from projects.web.plain import PAGES_CSP, plain_page
from projects.web.sites import SiteHost, raw_host, request_place
from projects.web.sites import published_shared as shared_headers

FORM_NAME = r"[A-Za-z0-9_-]{1,40}"
# On a site's own host, the addresses of its forms (no file's path starts with "_forms/"
# that a form would need: projects.publish.addresses says the same to the site check).
OWN_FORM = re.compile(rf"/_forms/(?P<form>{FORM_NAME})(?P<sent>/sent)?/?")
SENT = "sent"
_NOT_A_PAGE = Refused(
    405, "This address takes a form", "Open the site's page with the form, and send it from there."
)
_NOT_A_FORM = Refused(405, "Not a form's address", "This page only says thank you.")
_TEST_NOTE = "A test from the preview: it is in the inbox, and is not mailed."


def form_answer(
    request: HttpRequest, target: Target, form: str, *, sent: bool, headed: Headed
) -> HttpResponse:
    """The answer to a POST of `form` to `target`; `sent`: its thank-you page."""
    return headed(_answer(request, target, form, sent=sent))


def _answer(request: HttpRequest, target: Target, form: str, *, sent: bool) -> HttpResponse:
    if sent:
        safe = request.method in {"GET", "HEAD"}
        return _thanks(request, target) if safe else _refused(request, _NOT_A_FORM)
    if request.method == "OPTIONS":
        return _preflight()
    if request.method != "POST":
        return _refused(request, _NOT_A_PAGE)
    length = request.META.get("CONTENT_LENGTH") or "0"
    posted = (
        _too_large()
        if not length.isdigit() or int(length) > settings.BUILTIT_FORMS_MAX_BYTES
        else _posted(request, form)
    )
    result = posted if isinstance(posted, Refused) else form_receive(target=target, posted=posted)
    if isinstance(result, Refused):
        return _refused(request, result)
    return _received(request, target, form, result)


# --- a site's own host, in front of Django's handler (builtit.own_hosts) ----------


@dataclass(frozen=True)
class OwnForm:
    """A form to a live, public site's own host, checked and ready to keep."""

    target: Target
    form: str
    checked: Checked


def own_form_check(request: HttpRequest, form: str) -> OwnForm | HttpResponse | None:
    """What a POST of `form` to a site's own host comes to before it is kept
    (run in a pool thread: the site is read from the database once per change,
    the bounds from the cache): a refusal, or the row; None when the request
    is answered as every other is (a site offline, kept by a password, a host
    that is no site's), by Django's handler, the same as before."""
    place = request_place(request)
    if not isinstance(place, SiteHost):
        return None
    site = live_site(name=place.name) if place.name else live_site(domain=place.domain)
    if site is None or site.protected or _form_closed(request, site) is not None:
        return None
    target = site_target(site, prefix="/")
    posted = _posted(request, form)
    checked = posted if isinstance(posted, Refused) else form_check(target=target, posted=posted)
    if isinstance(checked, Refused):
        return _own_page(_refused(request, checked))
    return OwnForm(target=target, form=form, checked=checked)


async def own_form_keep(request: HttpRequest, own: OwnForm) -> HttpResponse:
    """Keep `own` through the process's writer, and answer as form_answer does."""
    result = await form_receive_queued(checked=own.checked)
    if isinstance(result, Refused):
        return _own_page(_refused(request, result))
    if wants_json(request):  # its words in the page's language, read from its file
        answered = await threads.run(_received, request, own.target, own.form, result)
        return _own_page(answered)
    return _own_page(_received(request, own.target, own.form, result))


def refused_answer(request: HttpRequest, status: int, title: str, message: str) -> HttpResponse:
    """A form's address that takes nothing now (a site offline, taken down, kept by a password)."""
    return _refused(request, Refused(status, title, message))


def wants_json(request: HttpRequest) -> bool:
    accept = request.headers.get("Accept", "")
    return "application/json" in accept and "text/html" not in accept


def _posted(request: HttpRequest, form: str) -> Posted | Refused:
    try:
        data = _data(request)
        has_files = bool(request.FILES) if data is request.POST else False
    except RequestDataTooBig:
        return _too_large()
    except (SuspiciousOperation, MultiPartParserError, ValueError):
        # Too many fields for Django to read, a broken multipart or JSON body.
        return Refused(400, "The form could not be read", "The form was not sent as a form.")
    return Posted(
        form=form,
        data=data,
        has_files=has_files,
        origin=request.headers.get("Origin"),
        own_origin=f"{request.scheme}://{raw_host(request)}",
        referer=request.headers.get("Referer", "")[:2000],
        address=request.META.get("REMOTE_ADDR") or None,
    )


def _data(request: HttpRequest) -> QueryDict:
    """The posted fields: a form's body, or a JSON object of strings (or lists of them)."""
    if request.content_type != "application/json":
        return request.POST
    loaded = json.loads(request.body or b"{}")
    if not isinstance(loaded, dict):
        raise ValueError("not an object")
    data = QueryDict(mutable=True)
    for name, value in loaded.items():
        for item in value if isinstance(value, list) else [value]:
            data.appendlist(str(name), "" if item is None else str(item))
    return data


def _too_large() -> Refused:
    limit = settings.BUILTIT_FORMS_MAX_BYTES // 1024
    return Refused(413, "The form is too large", f"A form here may send at most {limit} KiB.")


def _received(request: HttpRequest, target: Target, form: str, got: Received) -> HttpResponse:
    goes_to = target.prefix + quote(got.goes_to.lstrip("/")) if got.goes_to else None
    if wants_json(request):
        thanks = thanks_for(target.language(got.page))
        answer: dict[str, object] = {"ok": True, "message": thanks.text, "next": goes_to}
        if target.test:
            answer["test"] = True
        return JsonResponse(answer)
    if goes_to is None:
        query = urlencode({"back": got.page}) if got.page else ""
        goes_to = f"{target.prefix}_forms/{form}/{SENT}" + (f"?{query}" if query else "")
    return HttpResponseRedirect(escape_leading_slashes(goes_to), status=303)


def _thanks(request: HttpRequest, target: Target) -> HttpResponse:
    back = request.GET.get("back", "")
    page = back if back.startswith("/") and not back.startswith("//") else "/"
    thanks = thanks_for(target.language(page))
    link = target.prefix + page.lstrip("/")
    more = f'<p><a href="{escape(escape_leading_slashes(link))}">{escape(thanks.back)}</a></p>'
    if target.test:
        more = f"<p>{escape(_TEST_NOTE)}</p>" + more
    html = plain_page(
        thanks.title, escape(thanks.text), site=target.name, more=more, lang=thanks.lang
    )
    response = HttpResponse(html, content_type="text/html; charset=utf-8")
    response["Cache-Control"] = "no-store"
    return response


def _preflight() -> HttpResponse:
    """A fetch() sending JSON asks first: it may (the answer's CORS headers say who reads it)."""
    response = HttpResponse(status=204)
    response["Access-Control-Allow-Methods"] = "POST"
    response["Access-Control-Allow-Headers"] = "Content-Type, Accept"
    response["Access-Control-Max-Age"] = "600"
    return response


def _refused(request: HttpRequest, refused: Refused) -> HttpResponse:
    response: HttpResponse
    if wants_json(request):
        response = JsonResponse({"ok": False, "error": refused.message}, status=refused.status)
    else:
        html = plain_page(refused.title, escape(refused.message))
        response = HttpResponse(
            html, status=refused.status, content_type="text/html; charset=utf-8"
        )
    if refused.retry_after is not None:
        response["Retry-After"] = str(refused.retry_after)
    if refused is _NOT_A_PAGE:
        response["Allow"] = "POST, OPTIONS"
    elif refused is _NOT_A_FORM:
        response["Allow"] = "GET, HEAD"
    response["Cache-Control"] = "no-store"
    return response


# --- the three addresses a form is sent to ------------------------------------------


def own_host_form(
    request: HttpRequest, site: LiveSite | None, found: re.Match[str], *, holds_pass: bool
) -> HttpResponse:
    """`/_forms/<form>` on a site's own host (projects.views.published.serve_own,
    which adds the host's headers); a site kept by a password takes forms only
    from a visitor who holds its pass, as it serves its pages."""
    closed = _form_closed(request, site)
    if closed is not None or site is None:
        return _own_page(closed or refused_answer(request, 404, *_NO_SITE))
    if site.protected and not holds_pass:
        return _own_page(refused_answer(request, 403, *_KEPT))
    target = site_target(site, prefix="/")
    return form_answer(request, target, found["form"], sent=bool(found["sent"]), headed=_own_page)


@login_not_required
@csrf_exempt  # a visitor's form: no session, no cookie; its Origin is checked instead
def shared_form(request: HttpRequest, name: str, form: str, sent: str = "") -> HttpResponse:
    """`/s/<name>/_forms/<form>` on the sites host."""
    site = live_site(name=name)
    closed = _form_closed(request, site)
    if closed is not None or site is None:
        return shared_headers(closed or refused_answer(request, 404, *_NO_SITE))
    if site.protected:
        return shared_headers(refused_answer(request, 403, *_KEPT_SHARED))
    target = site_target(site, prefix=f"/s/{site.name}/")
    return form_answer(request, target, form, sent=bool(sent), headed=shared_headers)


@login_not_required
@csrf_exempt  # as shared_form
def preview_form(request: HttpRequest, token: str, form: str, sent: str = "") -> HttpResponse:
    """`/preview/<token>/_forms/<form>`: kept in the inbox as a test, never mailed."""
    preview = preview_open(token=token)
    if not isinstance(preview, OpenPreview):
        return secured(refused_answer(request, 404, *_NO_PREVIEW))
    target = preview_target(preview, prefix=f"/preview/{token}/")
    return form_answer(request, target, form, sent=bool(sent), headed=secured)


@login_not_required
@csrf_exempt  # as shared_form
def nowhere_form(request: HttpRequest, form: str) -> HttpResponse:
    """`/_forms/<form>` on the shared sites host: a page at `/s/<name>/` whose
    form names the server's root, which is no site's."""
    return secured(refused_answer(request, 404, *_NOWHERE))


def _form_closed(request: HttpRequest, site: LiveSite | None) -> HttpResponse | None:
    if site is not None and site.taken_down:
        return refused_answer(request, 410, *_TAKEN_DOWN)
    if site is None or site.version_id is None or site.gone:
        return refused_answer(request, 404, *_NO_SITE)
    return None


def _own_page(response: HttpResponse) -> HttpResponse:
    # The plain pages load their stylesheet alone (the host's other headers:
    # projects.views.published._own).
    response["Content-Security-Policy"] = PAGES_CSP
    return response


_NO_SITE = ("No form here", "No site is published at this address, so it takes no forms.")
_TAKEN_DOWN = ("This site's forms are closed", "This site was taken down: its forms take nothing.")
_KEPT = (
    "This site has a password",
    "Open the site with its password first, then send the form again. Nothing was kept.",
)
_KEPT_SHARED = (
    "This site has a password",
    "Its forms are received only at its own address. Nothing was kept.",
)
_NO_PREVIEW = ("No form here", "This preview link does not open a project (any more).")
_NOWHERE = (
    "No form here",
    "This form names the server's root, which is no site's: a site's forms are received "
    "at its own address, or at /s/<its name>/_forms/<form>. Nothing was kept.",
)
