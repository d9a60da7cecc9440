"""Secrets kept encrypted at rest (a person's OpenRouter key, a Git remote's
token): Fernet, with a key derived from SECRET_KEY for each purpose, and
SECRET_KEY_FALLBACKS tried when opening, so rotating the secret the Django way
(new SECRET_KEY, old one in the fallbacks) keeps them readable. A value that
no secret opens is None, never an exception: the person enters it again."""

from __future__ import annotations

import base64

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.utils.encoding import force_bytes
from django.views.decorators.debug import sensitive_variables


class Sealer:
    """Seals and opens the secrets of one purpose (`salt`, `info`)."""

    def __init__(self, *, salt: bytes, info: bytes) -> None:
        self._salt, self._info = salt, info

    def _fernet(self, secret: str | bytes) -> Fernet:
        derived = HKDF(
            algorithm=hashes.SHA256(), length=32, salt=self._salt, info=self._info
        ).derive(force_bytes(secret))
        return Fernet(base64.urlsafe_b64encode(derived))

    def _cipher(self) -> MultiFernet:
        # MultiFernet encrypts with the first key and decrypts with any of them.
        secrets = [settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS]
        return MultiFernet([self._fernet(secret) for secret in secrets])

    @sensitive_variables("text")
    def seal(self, text: str) -> str:
        return self._cipher().encrypt(text.encode("utf-8")).decode("ascii")

    def unseal(self, sealed: str) -> str | None:
        try:
            return self._cipher().decrypt(sealed.encode("ascii")).decode("utf-8")
        except (InvalidToken, UnicodeError):
            return None
