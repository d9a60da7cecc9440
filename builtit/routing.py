"""Websocket routes. The chat consumer (ws/projects/<uuid>/chat/) joins here."""

from __future__ import annotations

from django.urls import URLPattern

websocket_urlpatterns: list[URLPattern] = []
