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
]
