"""What the accounts app announces, for the apps built on it (accounts never
imports them: they listen)."""

from __future__ import annotations

from django.dispatch import Signal

# A person changed their password and their session went on under a new key
# (sender: User; user_id=int, old_key=str, new_key=str): what was open on the
# old key belongs to the new one (chat.live's sockets follow it).
session_moved = Signal()
