from __future__ import annotations

from django.urls import path

from chat.views import changes, workspace

urlpatterns = [
    path("projects/<uuid:project_id>/", workspace.workspace, name="workspace"),
    path(
        "projects/<uuid:project_id>/conversations/new/",
        workspace.conversation_new,
        name="conversation_new",
    ),
    path(
        "projects/<uuid:project_id>/conversations/<int:conversation_id>/earlier/",
        workspace.conversation_earlier,
        name="conversation_earlier",
    ),
    path(
        "projects/<uuid:project_id>/turns/<int:turn_id>/changes/",
        changes.turn_changes,
        name="turn_changes",
    ),
    path(
        "projects/<uuid:project_id>/turns/<int:turn_id>/undo/",
        changes.turn_undo,
        name="turn_undo",
    ),
    path(
        "projects/<uuid:project_id>/turns/<int:turn_id>/restore/",
        changes.turn_restore,
        name="turn_restore",
    ),
    path(
        "projects/<uuid:project_id>/reversals/<int:reversal_id>/revert/",
        changes.reversal_revert,
        name="reversal_revert",
    ),
    path(
        "messages/<int:message_id>/<str:part>.txt",
        workspace.message_text,
        name="message_text",
    ),
]
