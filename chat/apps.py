from __future__ import annotations

from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "chat"
    verbose_name = "Chat"

    def ready(self) -> None:
        # Imported for what importing does: checks register, receivers connect.
        from chat import checks, images  # noqa: F401, PLC0415
        from chat.git_access import git_turn_requests  # noqa: PLC0415
        from chat.live import broadcast, connect_cache, session_signals  # noqa: F401, PLC0415
        from chat.version_turns import turn_requests  # noqa: PLC0415
        from projects.git.turns import turn_requests_register  # noqa: PLC0415
        from projects.publish.notes import turns_reader_register  # noqa: PLC0415
        from projects.usage import keeper_register  # noqa: PLC0415

        # A connect's checks kept while nothing they read changes.
        connect_cache.connect()
        # Chat pictures count in a person's storage, and unsent ones are swept.
        keeper_register(images.KEEPER)
        # A published version names the requests of the turns it holds.
        turns_reader_register(turn_requests)
        # A turn's commit says what the person asked for.
        turn_requests_register(git_turn_requests)
