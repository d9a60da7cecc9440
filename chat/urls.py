from __future__ import annotations

from django.urls import path

from chat import workspace_views

urlpatterns = [
    path("projects/<uuid:project_id>/", workspace_views.workspace, name="workspace"),
    path(
        "projects/<uuid:project_id>/conversations/new/",
        workspace_views.conversation_new,
        name="conversation_new",
    ),
    path(
        "projects/<uuid:project_id>/conversations/<int:conversation_id>/earlier/",
        workspace_views.conversation_earlier,
        name="conversation_earlier",
    ),
    path(
        "messages/<int:message_id>/<str:part>.txt",
        workspace_views.message_text,
        name="message_text",
    ),
]
