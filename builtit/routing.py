"""Websocket routes (DESIGN §7)."""

from __future__ import annotations

from django.urls import URLPattern, path

from chat.live.consumers import ChatConsumer

websocket_urlpatterns: list[URLPattern] = [
    path("ws/projects/<uuid:project_id>/chat/", ChatConsumer.as_asgi(), name="chat_socket"),
]
