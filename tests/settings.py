"""Test settings: the real settings, served over plain HTTP, with a fast hasher."""

import os
import tempfile

os.environ.setdefault("BUILTIT_HTTPS", "0")
os.environ.setdefault("BUILTIT_DATA_DIR", tempfile.mkdtemp(prefix="builtit-test-"))

from builtit.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
