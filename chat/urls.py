from __future__ import annotations

from django.urls import path

from chat.views import workspace

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
        "messages/<int:message_id>/<str:part>.txt",
        workspace.message_text,
        name="message_text",
    ),
]
