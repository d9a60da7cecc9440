"""What the projects app announces, for the apps built on it (projects never
imports chat: chat listens)."""

from __future__ import annotations

from django.dispatch import Signal

# A project went to the trash (sender: Project; project=the instance).
project_trashed = Signal()
