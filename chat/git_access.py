"""What projects' Git endpoint (projects.git.http) asks of chat, which it may
not import: who an access token belongs to, counting wrong ones toward the
sign-in lockout; and the request that began each turn, for its commit message.
The wiring (builtit/urls.py) hands the first to the endpoint; ChatConfig
registers the second."""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Iterable

from axes.handlers.proxy import AxesProxyHandler
from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.http import HttpRequest

from chat.access_tokens import token_access
from chat.models import Message
from projects.git.http import GitCaller, GitRefused
from projects.git.turns import TurnRequest

_USERNAME = "git"  # counted as, when the client sends no name


def git_caller(request: HttpRequest, username: str, secret: str) -> GitCaller | GitRefused | None:
    """The person whose token `secret` is (None: it is none). A wrong token is a
    failed sign-in of `username` from the client's address, as a wrong password
    is; once they lock that out, no token opens anything from there."""
    credentials = {"username": username or _USERNAME}
    if AxesProxyHandler.is_locked(request, credentials):
        return _locked_out()
    found = token_access(secret)
    if found is None:
        user_login_failed.send(sender=__name__, credentials=credentials, request=request)
        if getattr(request, "axes_locked_out", False):
            # Our answer, in words Git shows, rather than the sign-in page's.
            request.axes_locked_out = False  # type: ignore[attr-defined]
            return _locked_out()
        return None
    return GitCaller(found.user, can_write=found.can_write)


def _locked_out() -> GitRefused:
    minutes = math.ceil(settings.AXES_COOLOFF_TIME.total_seconds() / 60)
    return GitRefused(
        f"Too many wrong sign-ins from here: try again in {minutes} minutes.", status=429
    )


def git_turn_requests(message_ids: Iterable[int]) -> dict[int, TurnRequest]:
    """For each assistant message, the person's message that began its turn."""
    rows = Message.objects.filter(pk__in=list(message_ids)).values_list(
        "pk", "conversation_id", "sequence"
    )
    placed = {pk: (conversation, sequence) for pk, conversation, sequence in rows}
    conversations = {conversation for conversation, _ in placed.values()}
    asked_in: dict[int, list[tuple[int, int]]] = {}
    for conversation_id, sequence, pk in (
        Message.objects.filter(conversation_id__in=conversations, role=Message.Role.USER)
        .order_by("conversation_id", "sequence")
        .values_list("conversation_id", "sequence", "pk")
    ):
        asked_in.setdefault(conversation_id, []).append((sequence, pk))
    request_of: dict[int, int] = {}
    for message_id, (conversation_id, sequence) in placed.items():
        asked = asked_in.get(conversation_id, [])
        index = bisect_left(asked, (sequence,)) - 1
        if index >= 0:
            request_of[message_id] = asked[index][1]
    texts = dict(
        Message.objects.filter(pk__in=set(request_of.values())).values_list("pk", "content")
    )
    return {
        message_id: TurnRequest(request_id, texts[request_id])
        for message_id, request_id in request_of.items()
        if request_id in texts
    }
