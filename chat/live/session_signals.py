"""Sockets follow the session and the project: signing out (here or
everywhere), changing a password and revoking a token (in Settings or the admin)
reach the person's open chat sockets (chat.live.socket_auth), wherever they were
made; a project moved to the trash closes the sockets open on it; a person
removed from a project, or given another role in it, has their sockets on it
closed with words, or shown the role, and a turn they sent stopped if they may
no longer chat (projects.signals.access_changed)."""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.auth.models import User
from django.contrib.auth.signals import user_logged_out
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.http import HttpRequest

from accounts.signals import session_moved
from chat.access_tokens import signed_out_everywhere
from chat.live import turns
from chat.live.messages import AccessChanged, ProjectGone
from chat.live.socket_auth import session_moved as tell_session_moved
from chat.live.socket_auth import sessions_changed, user_group
from chat.live.turns import group_name
from chat.models import AccessToken
from projects.access import ACTIONS, allows
from projects.models import Project
from projects.signals import access_changed, project_trashed


@receiver(user_logged_out)
def _signed_out(sender: object, request: HttpRequest | None, user: User | None, **_: Any) -> None:
    if user is None:
        return
    key = request.session.session_key if request is not None else None
    sessions_changed(user.pk, ended_session=key)


@receiver(post_save, sender=User)
def _saved(sender: object, instance: User, **_: Any) -> None:
    # set_password() leaves the new password here until save() has run; every way
    # of changing one (the site, the admin, manage.py changepassword) goes there.
    if getattr(instance, "_password", None) is not None or not instance.is_active:
        user_id = instance.pk
        transaction.on_commit(lambda: sessions_changed(user_id))


@receiver(session_moved)
def _moved(sender: object, user_id: int, old_key: str, new_key: str, **_: Any) -> None:
    tell_session_moved(user_id, old_key=old_key, new_key=new_key)


@receiver(signed_out_everywhere)
def _everywhere(sender: object, user_id: int, **_: Any) -> None:
    # Robust: the sessions and tokens are gone either way, and each socket checks
    # again before any turn; a channel layer that is down is logged, not a 500.
    transaction.on_commit(lambda: sessions_changed(user_id, everywhere=True), robust=True)


@receiver(post_delete, sender=AccessToken)
def _token_revoked(sender: object, instance: AccessToken, **_: Any) -> None:
    user_id = instance.user_id
    transaction.on_commit(lambda: sessions_changed(user_id))


@receiver(project_trashed)
def _trashed(sender: object, project: Project, **_: Any) -> None:
    layer = get_channel_layer()
    if layer is not None:
        gone = ProjectGone(type="project.gone")
        async_to_sync(layer.group_send)(group_name(project.pk), gone)


@receiver(access_changed)
def _access_changed(
    sender: object, project: Project, user_id: int, role: str | None, **_: Any
) -> None:
    # To the person's own group, which every one of their sockets joined, on any
    # process (chat.live.layer); each on another project lets it pass. Once the
    # change is committed, so a socket that checks again reads it; robust, as a
    # signing-out: a channel layer that is down must not undo the change, and
    # each socket reads the person's role again before any turn. A turn the
    # person sent, still running, is stopped as Stop would (wherever it runs):
    # they may no longer chat, so it must not go on changing the project for them.
    message = AccessChanged(type="access.changed", project=project.pk.hex, role=role)

    def tell() -> None:
        layer = get_channel_layer()
        if layer is not None:
            async_to_sync(layer.group_send)(user_group(user_id), message)
        if role is None or (role in ACTIONS and not allows(role, "chat")):
            async_to_sync(turns.stop)(project.pk, sent_by=user_id)

    transaction.on_commit(tell, robust=True)
