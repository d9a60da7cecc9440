from __future__ import annotations

from django.urls import include, path

from chat.views import changes, compaction, images, improve, start, workspace

# What concerns one project, under projects/<id>/.
project_patterns = [
    path("", workspace.workspace, name="workspace"),
    path("conversations/new/", workspace.conversation_new, name="conversation_new"),
    path(
        "conversations/<int:conversation_id>/earlier/",
        workspace.conversation_earlier,
        name="conversation_earlier",
    ),
    path("compact/", compaction.conversation_compact, name="conversation_compact"),
    path(
        "conversations/<int:conversation_id>/export.md",
        compaction.conversation_export,
        name="conversation_export",
    ),
    path("turns/<int:turn_id>/changes/", changes.turn_changes, name="turn_changes"),
    path("turns/<int:turn_id>/undo/", changes.turn_undo, name="turn_undo"),
    path("turns/<int:turn_id>/restore/", changes.turn_restore, name="turn_restore"),
    path("turns/<int:turn_id>/preview/", changes.turn_preview, name="turn_preview"),
    path("reversals/<int:reversal_id>/revert/", changes.reversal_revert, name="reversal_revert"),
    path("improve/", improve.draft_improve_view, name="draft_improve"),
    path("chat-images/", images.image_upload, name="chat_image_upload"),
    path("messages/<int:message_id>/turn/", workspace.message_turn, name="message_turn"),
]

urlpatterns = [
    path("projects/start/", start.project_start_view, name="project_start"),
    path("chat-images/<int:image_id>/", images.image_show, name="chat_image"),
    path(
        "chat-images/<int:image_id>/to-project/",
        images.image_to_project,
        name="chat_image_to_project",
    ),
    path("messages/<int:message_id>/<str:part>.txt", workspace.message_text, name="message_text"),
    path("projects/<uuid:project_id>/", include(project_patterns)),
]
