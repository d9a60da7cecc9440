from __future__ import annotations

from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "chat"
    verbose_name = "Chat"

    def ready(self) -> None:
        # Imported for what importing does: checks register, receivers connect.
        from chat import checks  # noqa: F401, PLC0415
        from chat.live import session_signals  # noqa: F401, PLC0415
