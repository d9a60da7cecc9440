"""The live preview: `/preview/<token>/<path>` on the sites origin (never the
app's: projects.web.sites) serves a project's stored files, as they are now,
through what the process keeps of them (projects.live_previews).

The token is the only credential (no cookies are needed), and every response
carries `Content-Security-Policy: sandbox` without `allow-same-origin`, so the
generated JavaScript runs in an opaque origin and can never act as the user,
even when the page is opened outside the workspace's sandboxed iframe.

HTML pages get two scripts in the response (never in the stored file), on a
line the page already has: the bridge, which tells the workspace which page
the frame shows and what went wrong in it, and a notice of why a dialog did
not open (the sandbox blocks them); see `PAGE_REPORT_SCRIPT`.
"""

from __future__ import annotations

import hashlib
import json
import re

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.html import escape
from django.utils.http import content_disposition_header, escape_leading_slashes
from django.views.decorators.csrf import csrf_exempt

from common.bridge import FIELD_CHARS, PROBLEMS_PER_PAGE
from projects.files.binaries import is_marker
from projects.files.instructions import is_instructions
from projects.files.paths import PathError, content_type_for, normalize_path
from projects.live_previews import OpenPreview, PreviewFile, preview_file, preview_open
from projects.preview_edits import page_digest
from projects.web.methods import method_refused, safe_only
from projects.web.plain import PAGES_CSS, plain_page
from projects.web.sandbox import SANDBOX
from projects.web.sites import app_sources, sandboxed
from projects.web.static_files import content_response

# Stands in for the dialogs the sandbox blocks (alert, confirm, prompt, print),
# so the site's author sees why nothing opened: a small notice inside the page
# (text only, cut short, at most three per load), confirm answering "cancel"
# and prompt "nothing", as a blocked dialog does.
DIALOG_SCRIPT = (
    "<script>(()=>{let n=0;const note=(kind,text)=>{if(n>=3)return;n++;"
    "let said='';try{said=String(text??'').slice(0,200)}catch(e){}"
    'const box=document.createElement("div");box.setAttribute("role","status");'
    'box.style.cssText="position:fixed;left:8px;right:8px;bottom:8px;z-index:2147483647;'
    "padding:8px 12px;background:#fffbeb;color:#92400e;border:1px solid #f59e0b;"
    'border-radius:6px;font:13px/1.4 system-ui,sans-serif";'
    'box.textContent="This page tried to open a dialog ("+kind+")"'
    '+(said?": \u201c"+said+"\u201d":"")'
    '+". Dialogs are blocked in the preview.";'
    "const add=()=>(document.body||document.documentElement).appendChild(box);"
    'document.body?add():addEventListener("DOMContentLoaded",add);'
    "setTimeout(()=>box.remove(),10000)};"
    'alert=m=>{note("alert",m)};confirm=m=>{note("confirm",m);return false};'
    'prompt=m=>{note("prompt",m);return null};print=()=>{note("print","")}})()</script>'
)

# A site's forms post to `/_forms/<name>` at its own host's root
# (projects.views.site_forms); in the preview that root is the sites host's, so
# a form (or a fetch) sent there goes to this preview's own form address,
# `/preview/<token>/_forms/<name>`, where it is kept as a test.
FORMS_SCRIPT = (
    "<script>(()=>{const m=location.pathname.match(/^\\/preview\\/[^/]+\\//);if(!m)return;"
    "const to=u=>{try{const a=new URL(u,location.href);"
    'if(a.host===location.host&&a.pathname.startsWith("/_forms/"))'
    "return m[0]+a.pathname.slice(1)+a.search}catch(e){}return null};"
    'addEventListener("submit",e=>{const f=e.target,s=e.submitter;'
    "if(!(f instanceof HTMLFormElement))return;"
    'const own=s&&s.hasAttribute("formaction"),there=to(own?s.formAction:f.action);'
    'if(there)(own?s:f).setAttribute(own?"formaction":"action",there)},true);'
    "const send=window.fetch;window.fetch=(i,o)=>{"
    'const there=typeof i=="string"||i instanceof URL?to(String(i)):null;'
    "return send.call(window,there||i,o)}})()</script>"
)

# The bridge's page end (static/builtit/bridge/page.js): what the page reports to the
# workspace that frames it. Adding it to the person's pages is safe: the frame
# is sandboxed without allow-same-origin (an opaque origin, nothing of the
# app's to reach), it only ever posts messages, and the workspace accepts them
# only from its own preview frame and checks every field (bridge/workspace.js).
#
# It is a script of its own (`bridge`), not inlined: what goes into a page is
# one tag, with no line break, so every line of the page is the line of the
# stored file. The browser numbers an inline script's lines from the top of
# the document, and an error on line 40 of index.html must say line 40, in the
# problems panel, the editor and what the model reads. Reporting an
# offset for the bridge to subtract instead would have to be right for every
# way a line number comes out of a page (inline scripts, event-handler
# attributes, a stack in a console message), and the source the browser's own
# tools show would still differ from the file; nothing added is nothing to
# subtract. The file's address names its content, so browsers keep it.
_BRIDGE = (settings.BASE_DIR / "static" / "builtit" / "bridge" / "page.js").read_bytes()
BRIDGE_PATH = f"/preview-bridge/{hashlib.sha256(_BRIDGE).hexdigest()[:16]}.js"

# The bridge's bounds (common.bridge), on its tag for the script to read.
_BRIDGE_BOUNDS = escape(
    json.dumps({"problems": PROBLEMS_PER_PAGE, "cut": dict(FIELD_CHARS)}, separators=(",", ":"))
)

# What an HTML page gets in the workspace's frame (or when the browser does not
# say where it is loaded: a page opened on its own has no parent, and the bridge
# then does nothing), and what a page opened on its own, as a shared link, gets.
# A classic script without async or defer: it runs before anything after it
# in the page, so it hears the page's first error.
PAGE_REPORT_SCRIPT = (
    DIALOG_SCRIPT
    + FORMS_SCRIPT
    + f'<script src="{BRIDGE_PATH}" data-bounds="{_BRIDGE_BOUNDS}"></script>'
)
SHARED_PAGE_SCRIPT = DIALOG_SCRIPT + FORMS_SCRIPT
if any(mark in PAGE_REPORT_SCRIPT for mark in "\r\n\f"):  # see above
    raise ImproperlyConfigured("What the preview adds to a page must fit on one line.")

# Where the script goes: after what may come before a page's first element --
# a byte-order mark, white space, comments, the doctype, `<?xml ...?>` -- and
# the <html> and <head> start tags, if written. Everything it skips is a whole
# token, so the script never lands inside a comment, a script, a style or an
# attribute, as it could before the first "</head>", which may sit in any of
# these. It never precedes the doctype either (that would switch the page to
# quirks mode). A start tag of unusual syntax ends the scan before it: the
# parser then opens <html> and <head> itself and merges that <html> tag's
# attributes, so the page renders as written. Atomic groups and possessive
# repeats keep the scan linear however large the document.
_SPACE = "[\t\n\f\r ]"
_ATTRIBUTES = (
    f"(?>{_SPACE}++[^\t\n\f\r \"'>/=]++"
    f"(?:{_SPACE}*+={_SPACE}*+(?:\"[^\"]*+\"|'[^']*+'|[^\t\n\f\r \"'=<>`]++))?)*+"
    f"{_SPACE}*+/?>"
)
_COMMENT = "<!--(?:>|->|.*?--!?>)"
_PROLOGUE = re.compile(
    f"\ufeff?(?>{_SPACE}++|{_COMMENT}|<!(?!--)[^>]*+>|<\\?[^>]*+>)*+"
    f"(?:<html{_ATTRIBUTES}(?>{_SPACE}++|{_COMMENT})*+)?"
    f"(?:<head{_ATTRIBUTES})?",
    re.IGNORECASE | re.DOTALL,
)
_NOT_FOUND_PAGE = plain_page("Page not found", "This project has no file at this address.")
_NO_INDEX_PAGE = plain_page(
    "Nothing to show yet",
    "This project has no <code>index.html</code> yet, the page a site opens with. "
    "Ask the assistant to build the site, or add a file named <code>index.html</code>.",
)
_TAKEN_DOWN_PAGE = plain_page(
    "This site was taken down", "Staff took this site down, and its preview with it."
)
_REPLACED_PAGE = plain_page(
    "This link was replaced",
    "The owner of this site made a new preview link, so this one no longer works. "
    "Ask whoever shared it for the new link.",
)


def secured(response: HttpResponse) -> HttpResponse:
    # Framed by the app's pages only (the sites origin is another origin now);
    # the token is in the address: never sent to other sites as a referrer.
    ancestors = " ".join(app_sources()) or "'none'"
    policy = f"sandbox {SANDBOX}; frame-ancestors {ancestors}"
    response = sandboxed(response, policy=policy, referrer="no-referrer")
    response["Cache-Control"] = "no-store"
    return response


@login_not_required
@csrf_exempt  # only GET and HEAD are served, and no cookie is read: a POST gets 405
def serve(request: HttpRequest, token: str, path: str) -> HttpResponse:
    preview = project_for(request, token)
    if isinstance(preview, HttpResponse):
        return preview
    return live_file(request, preview, path, script=_script_for(request))


def project_for(request: HttpRequest, token: str) -> OpenPreview | HttpResponse:
    """The preview `token` opens, or the answer that says why none does."""
    refused = method_refused(request, secured)
    if refused is not None:
        return refused
    preview = preview_open(token=token)
    if preview == "taken_down":
        return not_found_page(_TAKEN_DOWN_PAGE, status=410)
    if preview == "replaced":
        return not_found_page(_REPLACED_PAGE, status=410)
    if preview == "unknown":
        return not_found_page()
    return preview


def live_file(
    request: HttpRequest, preview: OpenPreview, path: str, *, script: str
) -> HttpResponse:
    """The project's file at `path` as it is now; an HTML page with `script` added."""
    wanted = path + "index.html" if path == "" or path.endswith("/") else path
    canonical = normalize_path(wanted)
    record = (
        None
        # The owner's instructions to the assistant are not part of the site.
        if isinstance(canonical, PathError) or is_instructions(canonical)
        else preview_file(preview=preview, path=canonical)
    )
    if record is None:
        return _missing(request, preview, path, wanted)
    if is_marker(record.content):
        return _binary(request, record)
    content_type = content_type_for(record.path)
    content = record.content
    if content_type.startswith("text/html"):
        content = with_page_report(content, script=_with_source(script, record.content))
    return secured(HttpResponse(content.encode("utf-8"), content_type=content_type))


@login_not_required
@csrf_exempt  # as `serve`
@safe_only(secured)
def bridge(request: HttpRequest) -> HttpResponse:
    """The bridge's script (at BRIDGE_PATH: its address changes with it)."""
    response = secured(HttpResponse(_BRIDGE, content_type="text/javascript; charset=utf-8"))
    response["Cache-Control"] = "public, max-age=31536000, immutable"
    return response


@login_not_required
@csrf_exempt  # as `serve`
@safe_only(secured)
def pages_css(request: HttpRequest) -> HttpResponse:
    """The stylesheet of the sites origin's own pages (at PAGES_CSS_PATH: its
    address changes with it), on the sites host and every site's own host."""
    response = secured(HttpResponse(PAGES_CSS, content_type="text/css; charset=utf-8"))
    response["Cache-Control"] = "public, max-age=31536000, immutable"
    return response


def _binary(request: HttpRequest, record: PreviewFile) -> HttpResponse:
    """A binary file's bytes, with its type, an ETag from its content and byte
    ranges (projects.web.static_files)."""
    blob = record.blob
    if blob is None:
        return not_found_page()
    response = content_response(request, blob.data, blob.content_type, blob.digest)
    if request.GET.get("download") and response.status_code == 200:
        # The editor's Download link: the app's page is another origin, where
        # a link's `download` attribute is ignored.
        name = record.path.rsplit("/", 1)[-1]
        response["Content-Disposition"] = content_disposition_header(True, name)
    answer = secured(response)
    # Unlike the pages, bytes named by their content may be kept, if checked first.
    answer["Cache-Control"] = "no-cache"
    return answer


def _missing(request: HttpRequest, preview: OpenPreview, path: str, wanted: str) -> HttpResponse:
    if wanted == path and _is_folder(preview, path):
        # /about -> /about/ so the folder's index.html resolves its relative links.
        return secured(HttpResponseRedirect(escape_leading_slashes(request.path + "/")))
    if wanted == "index.html":
        return not_found_page(_NO_INDEX_PAGE)
    return not_found_page()


def with_page_report(html: str, *, script: str = PAGE_REPORT_SCRIPT) -> str:
    """`html` with `script` added where it cannot change the page."""
    match = _PROLOGUE.match(html)
    at = match.end() if match else 0
    return html[:at] + script + html[at:]


def page_report_script(text: str) -> str:
    """The bridge's tag for a page of `text`, naming it (projects.preview_edits.
    page_digest): a visual edit made on this load is refused if the page changed since."""
    return PAGE_REPORT_SCRIPT.replace(
        " data-bounds=", f' data-source="{page_digest(text)}" data-bounds=', 1
    )


def _with_source(script: str, text: str) -> str:
    return page_report_script(text) if script is PAGE_REPORT_SCRIPT else script


def _script_for(request: HttpRequest) -> str:
    """The bridge for a page loaded in a frame (the workspace's); a page opened
    on its own, as a shared link, only gets the dialog notices. Browsers send
    Sec-Fetch-Dest only to secure origins: without it the bridge goes in, and
    does nothing unless the page is framed."""
    opened_alone = request.headers.get("Sec-Fetch-Dest") == "document"
    return SHARED_PAGE_SCRIPT if opened_alone else PAGE_REPORT_SCRIPT


def _is_folder(preview: OpenPreview, path: str) -> bool:
    index = normalize_path(path + "/index.html")
    if isinstance(index, PathError):
        return False
    return preview_file(preview=preview, path=index) is not None


def not_found_page(page: str = _NOT_FOUND_PAGE, *, status: int = 404) -> HttpResponse:
    return secured(
        # The script here too: after a broken link, a reload returns to the
        # missing page, which may exist by then.
        HttpResponse(with_page_report(page), status=status, content_type="text/html; charset=utf-8")
    )


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Any other address on the sites origin (its URLconf's 404)."""
    return not_found_page()


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """A request Django refuses (too many fields, a bad host…), said plainly."""
    page = plain_page("Bad request", "The server could not make sense of this request.")
    return secured(HttpResponse(page, status=400, content_type="text/html; charset=utf-8"))


def server_error(request: HttpRequest) -> HttpResponse:
    page = plain_page("Something went wrong", "Try again in a moment.")
    return secured(HttpResponse(page, status=500, content_type="text/html; charset=utf-8"))
