"""What the projects app announces, for the apps built on it (projects never
imports chat: chat listens)."""

from __future__ import annotations

from django.dispatch import Signal

# A project went to the trash (sender: Project; project=the instance).
project_trashed = Signal()

# A person changed files from the workspace (sender: Project; project=, paths=,
# tab=: the page that made the change, which has followed it already), so the
# project's other open tabs can follow too.
files_changed = Signal()

# Who may use a project changed (sender: Project; project=, user_id=: the person
# whose access changed; role=: "viewer", "editor" or "owner" now, or None when
# they were removed or left), so their open tabs follow at once: a removed
# person's socket closes with words, a changed role shows without a reload.
access_changed = Signal()
