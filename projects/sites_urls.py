"""What the sites origin serves, and all it serves (builtit.sites_origin routes
its requests here): project content, never a page of the app."""

from __future__ import annotations

from django.urls import path, re_path

from projects.publish.names import NAME_PATTERN, RESERVED
from projects.views import preview, preview_past, published, site_forms
from projects.web.past_seals import SEAL_PATTERN
from projects.web.plain import PAGES_CSS_PATH

_FORM = rf"_forms/(?P<form>{site_forms.FORM_NAME})(?:/(?P<sent>sent))?/?"
_NAME = rf"(?!(?:{'|'.join(sorted(RESERVED))})/)(?P<name>{NAME_PATTERN})"

urlpatterns = [
    # For the proxy's certificates on demand (Caddy's on_demand_tls `ask`).
    path("domain-check", published.domain_check, name="domain_check"),
    # The preview's bridge, at an address that names its content (preview.BRIDGE_PATH).
    path(preview.BRIDGE_PATH.lstrip("/"), preview.bridge, name="preview_bridge"),
    # The stylesheet of this origin's own pages (projects.web.plain), served on
    # a site's own host too (projects.views.published.serve_own).
    path(PAGES_CSS_PATH.lstrip("/"), preview.pages_css, name="pages_css"),
    # The project as it was ("@" is in no file's path): projects.views.preview_past.
    re_path(
        rf"^preview/(?P<token>[^/]+)/@(?P<point>[0-9]{{1,18}})-(?P<seal>{SEAL_PATTERN})/(?P<path>.*)$",
        preview_past.serve_point,
        name="preview_past",
    ),
    re_path(
        rf"^preview/(?P<token>[^/]+)/@file-(?P<revision>[0-9]{{1,18}})-(?P<seal>{SEAL_PATTERN})/(?P<path>.*)$",
        preview_past.serve_version,
        name="preview_version",
    ),
    re_path(
        rf"^preview/(?P<token>[^/]+)/@v(?P<number>[0-9]{{1,9}})-(?P<seal>{SEAL_PATTERN})/(?P<path>.*)$",
        preview_past.serve_published,
        name="preview_published",
    ),
    # A site's forms (projects.views.site_forms): before the files, whose paths
    # they are not.
    re_path(rf"^preview/(?P<token>[^/]+)/{_FORM}$", site_forms.preview_form, name="preview_form"),
    re_path(rf"^{_FORM}$", site_forms.nowhere_form, name="nowhere_form"),
    path("preview/<str:token>/", preview.serve, {"path": ""}, name="preview_root"),
    path("preview/<str:token>/<path:path>", preview.serve, name="preview"),
    # Under /s/, not at the root: a page's root-absolute reference ("/app.js"),
    # in a preview or a published site, must never reach another person's site.
    re_path(rf"^s/{_NAME}/{_FORM}$", site_forms.shared_form, name="shared_form"),
    re_path(rf"^s/{_NAME}/$", published.serve, name="published_root"),
    re_path(rf"^s/{_NAME}/(?P<path>.+)$", published.serve, name="published"),
]

# Not the app's error pages (they need the app's URLs): nothing on this origin
# looks like the app.
handler400 = preview.bad_request
handler403 = preview.bad_request
handler404 = preview.not_found
handler500 = preview.server_error
