"""What the sites origin serves, and all it serves (builtit.sites_origin routes
its requests here): project content, never a page of the app."""

from __future__ import annotations

from django.urls import path, re_path

from projects.publish.names import NAME_PATTERN, RESERVED
from projects.views import preview, published

# A site's name, never a reserved one: "/preview/<token>" (no slash) must not be
# taken for a site named "preview", or Django would not add the slash.
_NAME = rf"(?!(?:{'|'.join(sorted(RESERVED))})/)(?P<name>{NAME_PATTERN})"

urlpatterns = [
    path("preview/<str:token>/", preview.serve, {"path": ""}, name="preview_root"),
    path("preview/<str:token>/<path:path>", preview.serve, name="preview"),
    re_path(rf"^{_NAME}/$", published.serve, name="published_root"),
    re_path(rf"^{_NAME}/(?P<path>.+)$", published.serve, name="published"),
]

# Not the app's error pages: nothing on this origin looks like the app.
handler404 = preview.not_found
handler500 = preview.server_error
