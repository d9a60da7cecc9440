"""Test settings: the real settings, served over plain HTTP, with a fast hasher."""

import os
import tempfile

os.environ.setdefault("BUILTIT_HTTPS", "0")
# As `make run`: people may sign up (the production default is closed).
os.environ.setdefault("BUILTIT_ALLOW_SIGNUP", "1")
os.environ.setdefault("BUILTIT_DATA_DIR", tempfile.mkdtemp(prefix="builtit-test-"))
# Nothing in the tests may reach the real OpenRouter, whatever the shell exports:
# tests that talk to a model point at the fake server in fakes/.
os.environ["OPENROUTER_BASE_URL"] = "http://127.0.0.1:9/api/v1"
os.environ["OPENROUTER_API_KEY"] = ""

from builtit.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# A test database in a file, as in production: SQLite's shared in-memory database
# fails at once when two threads write together (the loop's tool threads do),
# where a file waits for the lock.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    DATABASES["default"]["TEST"] = {"NAME": str(DATA_DIR / "test.sqlite3")}  # noqa: F405
else:
    # Each test closes what it opened: PostgreSQL refuses to drop the test
    # database at the end while a pool thread (common.threads) still holds
    # a connection kept for reuse.
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # noqa: F405
    # A test database of this run's own: two runs on one server (an engineer's
    # and CI's, or a loop of runs) would otherwise drop each other's.
    DATABASES["default"]["TEST"] = {"NAME": f"test_builtit_{os.getpid()}"}  # noqa: F405
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":  # noqa: F405
        # Django's backend, emptying the tables between tests with DELETE:
        # TRUNCATE took seconds a test (tests/backends/postgresql/base.py).
        DATABASES["default"]["ENGINE"] = "tests.backends.postgresql"  # noqa: F405
    # Commits without waiting for the disk (2-8 ms each here, ~0.05 ms without):
    # a crash of the test server loses nothing a test needs.
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = "-c synchronous_commit=off"  # noqa: F405
BUILTIT_DEMO_PAUSE = 0.0  # the demo answers at once in tests
ALLOWED_HOSTS = [*ALLOWED_HOSTS, "sites.testserver"]  # noqa: F405  (the test client is "testserver")
