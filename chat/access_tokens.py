"""Personal access tokens: made, listed, revoked, and checked on the socket;
and "Sign out everywhere", which ends them with every session of the person.

A token is 32 random bytes (`bit_` + URL-safe base64), shown to its owner once;
the database keeps its SHA-256, so a leaked dump opens nothing. A high-entropy
secret needs no slow hash: looking the digest up is the comparison.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from accounts.services import user_sessions_end
from chat.models import AccessToken
from common.refusals import Refusal

PREFIX = "bit_"
MAX_TOKENS = 20
MAX_NAME = 60


@dataclass(frozen=True)
class TokenRefused(Refusal):
    """An access token not made, and why."""


@dataclass(frozen=True)
class NewToken:
    row: AccessToken
    secret: str  # shown once


@dataclass(frozen=True)
class SignedOut:
    sessions: int
    tokens: int


# Every session and token of a person was ended (sender: User; user_id=int):
# chat.live closes their sockets, saying why.
signed_out_everywhere = Signal()


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@transaction.atomic
def token_create(*, user: User, name: object, can_write: bool = True) -> NewToken | TokenRefused:
    cleaned = name.strip() if isinstance(name, str) else ""
    if not cleaned:
        return TokenRefused("Give the token a name, e.g. the script that will use it.")
    if len(cleaned) > MAX_NAME:
        return TokenRefused(f"A token's name has at most {MAX_NAME} characters.")
    # Locks the person's row: two requests at once cannot both pass the count.
    User.objects.select_for_update().filter(pk=user.pk).first()
    if AccessToken.objects.filter(user=user).count() >= MAX_TOKENS:
        return TokenRefused(f"You have {MAX_TOKENS} tokens already. Revoke one first.")
    secret = PREFIX + secrets.token_urlsafe(32)
    row = AccessToken.objects.create(
        user=user,
        name=cleaned,
        digest=_digest(secret),
        prefix=secret[: len(PREFIX) + 4],
        can_write=can_write,
    )
    return NewToken(row, secret)


def token_list(*, user: User) -> list[AccessToken]:
    return list(AccessToken.objects.filter(user=user))


def token_revoke(*, user: User, token_id: object) -> bool:
    if not isinstance(token_id, str) or not token_id.isdigit() or len(token_id) > 18:
        return False
    deleted, _ = AccessToken.objects.filter(user=user, pk=int(token_id)).delete()
    return deleted > 0


@dataclass(frozen=True)
class TokenAccess:
    user: User
    token_id: int
    can_write: bool  # False: reading only (clone and pull)


def token_access(secret: str) -> TokenAccess | None:
    """Whose token `secret` is and what it may do; None if it is no token of an
    active person. Its use is recorded."""
    if not secret.startswith(PREFIX) or len(secret) > 100:
        return None
    row = AccessToken.objects.filter(digest=_digest(secret)).select_related("user").first()
    if row is None or not row.user.is_active:
        return None
    AccessToken.objects.filter(pk=row.pk).update(last_used_at=timezone.now())
    return TokenAccess(row.user, row.pk, row.can_write)


def token_may_write(secret: str) -> bool:
    """Whether `secret` is a token of an active person that may write; nothing
    is recorded (a request's body limit asks before the request is handled)."""
    if not secret.startswith(PREFIX) or len(secret) > 100:
        return False
    return AccessToken.objects.filter(
        digest=_digest(secret), can_write=True, user__is_active=True
    ).exists()


def token_authenticate(secret: str) -> tuple[User, int] | None:
    """The active user a token that may write belongs to, and the token's id
    (the chat socket changes projects: a read-only token does not open it);
    None if it is no such token."""
    found = token_access(secret)
    if found is None or not found.can_write:
        return None
    return found.user, found.token_id


def token_exists(token_id: int) -> bool:
    return AccessToken.objects.filter(pk=token_id, user__is_active=True).exists()


@transaction.atomic
def user_sign_out_everywhere(*, user: User) -> SignedOut:
    """End every session of the person (wherever made, the caller's too) and
    revoke every token they made: whoever holds any of them is shut out."""
    # Announced first: the sockets hear "signed out everywhere" once this
    # commits, before each revoked token's own notice.
    signed_out_everywhere.send(sender=User, user_id=user.pk)
    sessions = user_sessions_end(user_id=user.pk)
    tokens, _ = AccessToken.objects.filter(user=user).delete()
    return SignedOut(sessions=sessions, tokens=tokens)
