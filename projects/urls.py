from __future__ import annotations

from django.urls import path

from projects.views import dashboard, files, history, preferences, publish, search

urlpatterns = [
    path("", dashboard.dashboard, name="dashboard"),
    path("projects/new/", dashboard.project_new, name="project_new"),
    path("projects/import/", dashboard.project_import, name="project_import"),
    path(
        "projects/<uuid:project_id>/rename/", dashboard.project_rename_view, name="project_rename"
    ),
    path(
        "projects/<uuid:project_id>/delete/", dashboard.project_delete_view, name="project_delete"
    ),
    path(
        "projects/<uuid:project_id>/restore/",
        dashboard.project_restore_view,
        name="project_restore",
    ),
    path("projects/<uuid:project_id>/purge/", dashboard.project_purge_view, name="project_purge"),
    path("trash/", dashboard.trash, name="trash"),
    path("preferences/", preferences.preferences, name="preferences"),
    path("projects/<uuid:project_id>/export.zip", dashboard.project_export, name="project_export"),
    path(
        "projects/<uuid:project_id>/preview-token/",
        files.preview_token_rotate,
        name="preview_token_rotate",
    ),
    path("projects/<uuid:project_id>/files/open/", files.file_open, name="file_open"),
    path("projects/<uuid:project_id>/files/save/", files.file_save, name="file_save"),
    path("projects/<uuid:project_id>/files/new/", files.file_new, name="file_new"),
    path("projects/<uuid:project_id>/files/search/", search.search, name="file_search"),
    path("projects/<uuid:project_id>/files/upload/", files.file_upload_view, name="file_upload"),
    path("projects/<uuid:project_id>/files/rename/", files.file_rename_view, name="file_rename"),
    path("projects/<uuid:project_id>/files/delete/", files.file_delete_view, name="file_delete"),
    path("projects/<uuid:project_id>/files/history/", history.history, name="file_history"),
    path(
        "projects/<uuid:project_id>/revisions/<int:revision_id>/",
        history.revision,
        name="file_revision",
    ),
    path(
        "projects/<uuid:project_id>/revisions/<int:revision_id>/diff/",
        history.revision_diff_view,
        name="revision_diff",
    ),
    path(
        "projects/<uuid:project_id>/revisions/<int:revision_id>/preview/",
        history.revision_preview,
        name="revision_preview",
    ),
    path("projects/<uuid:project_id>/files/restore/", history.restore, name="file_restore"),
    path("projects/<uuid:project_id>/publish/", publish.publish_panel, name="site_panel"),
    path("projects/<uuid:project_id>/publish/go/", publish.publish, name="site_publish"),
    path("projects/<uuid:project_id>/publish/off/", publish.unpublish, name="site_unpublish"),
    path("projects/<uuid:project_id>/publish/password/", publish.password, name="site_password"),
    path("projects/<uuid:project_id>/publish/domain/", publish.domain, name="site_domain"),
    path(
        "projects/<uuid:project_id>/publish/domain/check/",
        publish.domain_check,
        name="site_domain_check",
    ),
    path(
        "projects/<uuid:project_id>/publish/domain/state/",
        publish.domain_state,
        name="site_domain_state",
    ),
    path(
        "projects/<uuid:project_id>/publish/versions/<int:number>/live/",
        publish.version_live,
        name="site_version_live",
    ),
    path(
        "projects/<uuid:project_id>/publish/versions/<int:number>/zip/",
        publish.version_zip,
        name="site_version_zip",
    ),
]
# Previews are served on the sites origin only: projects/sites_urls.py.
