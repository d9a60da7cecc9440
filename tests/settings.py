"""Test settings: the real settings, served over plain HTTP, with a fast hasher."""

import os
import tempfile

os.environ.setdefault("BUILTIT_HTTPS", "0")
os.environ.setdefault("BUILTIT_DATA_DIR", tempfile.mkdtemp(prefix="builtit-test-"))
# Nothing in the tests may reach the real OpenRouter, whatever the shell exports:
# tests that talk to a model point at the fake server in tests/fakes/.
os.environ["OPENROUTER_BASE_URL"] = "http://127.0.0.1:9/api/v1"
os.environ["OPENROUTER_API_KEY"] = ""

from builtit.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
