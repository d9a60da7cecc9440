"""Each user's own OpenRouter API key: checked, encrypted, stored, read back.

This is the only module that encrypts or decrypts `PersonalKey.ciphertext`.
The Fernet key is derived from SECRET_KEY (common.sealed), and
SECRET_KEY_FALLBACKS are tried when decrypting, so rotating the secret the
Django way (new SECRET_KEY, old one in the fallbacks) keeps saved keys readable.
A key that no secret can open is reported as unreadable, never as an
exception: the user pastes it again.

Keys are opaque secrets: no message, log line or error report here contains one.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction
from django.views.decorators.debug import sensitive_variables

from chat.models import PersonalKey
from common.refusals import Refusal
from common.sealed import Sealer

logger = logging.getLogger(__name__)

_SALT = b"builtit.personal-openrouter-key"
_INFO = b"fernet-key-v1"
MIN_LENGTH = 16
MAX_LENGTH = 512


@dataclass(frozen=True)
class KeyRefused(Refusal):
    """A personal API key not saved, and why."""


@dataclass(frozen=True)
class KeyStatus:
    stored: bool
    last_four: str
    # Whether the stored key decrypts; False when nothing is stored.
    readable: bool
    saved_at: datetime | None


_SEALER = Sealer(salt=_SALT, info=_INFO)


@sensitive_variables("key")
def _encrypt(key: str) -> str:
    return _SEALER.seal(key)


def _decrypt(ciphertext: str) -> str | None:
    return _SEALER.unseal(ciphertext)


def _problem_with_characters(key: str) -> KeyRefused | None:
    for char in key:
        if not char.isascii():
            return KeyRefused(
                "The key can only contain plain ASCII letters, digits and punctuation: "
                "check that nothing else was copied along with it."
            )
        if char.isspace() or not char.isprintable():
            return KeyRefused(
                "The key cannot contain spaces, line breaks or other invisible characters: "
                "copy it again in one piece."
            )
    return None


@sensitive_variables("raw", "key")
def clean_key(raw: object) -> str | KeyRefused:
    """The pasted key without surrounding whitespace, or why it cannot be a key.

    The `sk-or-` prefix is not required: OPENROUTER_BASE_URL may point at another
    OpenAI-compatible server with its own key format.
    """
    key = raw.strip() if isinstance(raw, str) else ""
    if not key:
        return KeyRefused("Paste your key first.")
    problem = _problem_with_characters(key)
    if problem is not None:
        return problem
    if len(key) < MIN_LENGTH:
        return KeyRefused(
            f"That is too short to be an API key (at least {MIN_LENGTH} characters): "
            "copy the whole key."
        )
    if len(key) > MAX_LENGTH:
        return KeyRefused(
            f"That is too long to be an API key (at most {MAX_LENGTH} characters): "
            "copy only the key."
        )
    return key


@sensitive_variables("raw", "key")
@transaction.atomic
def key_save(*, user: User, raw: object) -> PersonalKey | KeyRefused:
    """Store the user's key, replacing any key they saved before."""
    key = clean_key(raw)
    if isinstance(key, KeyRefused):
        return key
    personal_key, _ = PersonalKey.objects.update_or_create(
        user=user, defaults={"ciphertext": _encrypt(key), "last_four": key[-4:]}
    )
    return personal_key


def key_delete(*, user: User) -> bool:
    """Remove the user's key; False when there was none."""
    deleted, _ = PersonalKey.objects.filter(user=user).delete()
    return deleted > 0


@sensitive_variables("key")
def key_exists(*, user_id: int) -> bool:
    """Whether the user has saved a key of their own (readable or not)."""
    return PersonalKey.objects.filter(user_id=user_id).exists()


def key_for(user: User) -> str | None:
    """The user's decrypted key, or None when they have none or it cannot be read.

    Synchronous on purpose: the websocket code calls it from a worker thread.
    """
    personal_key = PersonalKey.objects.filter(user=user).first()
    if personal_key is None:
        return None
    key = _decrypt(personal_key.ciphertext)
    if key is None:
        logger.warning(
            "The personal OpenRouter key of user %s cannot be decrypted "
            "(SECRET_KEY changed without the old one in SECRET_KEY_FALLBACKS?).",
            user.pk,
        )
    return key


def key_status(user: User) -> KeyStatus:
    """What the Settings page may say about the user's key: never the key itself."""
    personal_key = PersonalKey.objects.filter(user=user).first()
    if personal_key is None:
        return KeyStatus(stored=False, last_four="", readable=False, saved_at=None)
    return KeyStatus(
        stored=True,
        last_four=personal_key.last_four,
        readable=_decrypt(personal_key.ciphertext) is not None,
        saved_at=personal_key.updated_at,
    )
