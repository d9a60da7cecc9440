from __future__ import annotations

from django.urls import path

from projects import history_views, preview, views, workspace

urlpatterns = [
    path("", views.dashboard, name="dashboard"),
    path("projects/new/", views.project_new, name="project_new"),
    path("projects/import/", views.project_import, name="project_import"),
    path("projects/<uuid:project_id>/rename/", views.project_rename_view, name="project_rename"),
    path("projects/<uuid:project_id>/delete/", views.project_delete_view, name="project_delete"),
    path("projects/<uuid:project_id>/restore/", views.project_restore_view, name="project_restore"),
    path("projects/<uuid:project_id>/purge/", views.project_purge_view, name="project_purge"),
    path("trash/", views.trash, name="trash"),
    path("projects/<uuid:project_id>/export.zip", views.project_export, name="project_export"),
    path(
        "projects/<uuid:project_id>/preview-token/",
        workspace.preview_token_rotate,
        name="preview_token_rotate",
    ),
    path("projects/<uuid:project_id>/files/open/", workspace.file_open, name="file_open"),
    path("projects/<uuid:project_id>/files/save/", workspace.file_save, name="file_save"),
    path("projects/<uuid:project_id>/files/new/", workspace.file_new, name="file_new"),
    path(
        "projects/<uuid:project_id>/files/rename/", workspace.file_rename_view, name="file_rename"
    ),
    path(
        "projects/<uuid:project_id>/files/delete/", workspace.file_delete_view, name="file_delete"
    ),
    path("projects/<uuid:project_id>/files/history/", history_views.history, name="file_history"),
    path(
        "projects/<uuid:project_id>/revisions/<int:revision_id>/",
        history_views.revision,
        name="file_revision",
    ),
    path("projects/<uuid:project_id>/files/restore/", history_views.restore, name="file_restore"),
    path("preview/<str:token>/", preview.serve, {"path": ""}, name="preview_root"),
    path("preview/<str:token>/<path:path>", preview.serve, name="preview"),
]
