from __future__ import annotations

from django.urls import include, path

from projects.views import (
    dashboard,
    files,
    forms,
    git,
    history,
    preferences,
    publish,
    search,
    visual,
)

# What concerns one project, under projects/<id>/.
project_patterns = [
    path("rename/", dashboard.project_rename_view, name="project_rename"),
    path("delete/", dashboard.project_delete_view, name="project_delete"),
    path("restore/", dashboard.project_restore_view, name="project_restore"),
    path("purge/", dashboard.project_purge_view, name="project_purge"),
    path("export.zip", dashboard.project_export, name="project_export"),
    path("preview-token/", files.preview_token_rotate, name="preview_token_rotate"),
    path("files/open/", files.file_open, name="file_open"),
    path("files/save/", files.file_save, name="file_save"),
    path("files/new/", files.file_new, name="file_new"),
    path("files/search/", search.search, name="file_search"),
    path("files/upload/", files.file_upload_view, name="file_upload"),
    path("files/rename/", files.file_rename_view, name="file_rename"),
    path("files/delete/", files.file_delete_view, name="file_delete"),
    path("files/history/", history.history, name="file_history"),
    path("revisions/<int:revision_id>/", history.revision, name="file_revision"),
    path("revisions/<int:revision_id>/diff/", history.revision_diff_view, name="revision_diff"),
    path("revisions/<int:revision_id>/preview/", history.revision_preview, name="revision_preview"),
    path("files/restore/", history.restore, name="file_restore"),
    path("git/remote/", git.remote_save_view, name="git_remote_save"),
    path("git/remote/delete/", git.remote_delete_view, name="git_remote_delete"),
    path("git/remote/push/", git.remote_push_view, name="git_remote_push"),
    path("git/remote/pull/", git.remote_pull_view, name="git_remote_pull"),
    path("preview-edit/", visual.preview_edit_view, name="preview_edit"),
    path("preview-edit/choices/", visual.preview_edit_choices, name="preview_edit_choices"),
    path("preview-edit/undo/", visual.preview_edit_undo, name="preview_edit_undo"),
    path("publish/", publish.publish_panel, name="site_panel"),
    path("publish/go/", publish.publish, name="site_publish"),
    path("publish/off/", publish.unpublish, name="site_unpublish"),
    path("publish/password/", publish.password, name="site_password"),
    path("publish/domain/", publish.domain, name="site_domain"),
    path("publish/domain/check/", publish.domain_check, name="site_domain_check"),
    path("publish/domain/state/", publish.domain_state, name="site_domain_state"),
    path("publish/versions/<int:number>/live/", publish.version_live, name="site_version_live"),
    path("publish/versions/<int:number>/zip/", publish.version_zip, name="site_version_zip"),
    path("forms/", forms.inbox, name="forms_inbox"),
    path("forms.csv", forms.inbox_csv, name="forms_csv"),
    path("forms/read/", forms.inbox_read, name="forms_read"),
    path("forms/delete/", forms.inbox_delete, name="forms_delete"),
    path("forms/settings/", forms.inbox_settings, name="forms_settings"),
]

urlpatterns = [
    path("", dashboard.dashboard, name="dashboard"),
    path("projects/new/", dashboard.project_new, name="project_new"),
    path("projects/import/", dashboard.project_import, name="project_import"),
    path("projects/import-git/", git.project_import_git_view, name="project_import_git"),
    path("trash/", dashboard.trash, name="trash"),
    path("preferences/", preferences.preferences, name="preferences"),
    path("projects/<uuid:project_id>/", include(project_patterns)),
]
# Previews are served on the sites origin only: projects/sites_urls.py.
