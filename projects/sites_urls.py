"""What the sites origin serves, and all it serves (builtit.sites_origin routes
its requests here): project content, never a page of the app."""

from __future__ import annotations

from django.urls import path

from projects.views import preview

urlpatterns = [
    path("preview/<str:token>/", preview.serve, {"path": ""}, name="preview_root"),
    path("preview/<str:token>/<path:path>", preview.serve, name="preview"),
]

# Not the app's error pages: nothing on this origin looks like the app.
handler404 = preview.not_found
handler500 = preview.server_error
