"""Whether PostgreSQL and Redis are there for `make test-services`.

Exit 0: both answer. Exit 3: one does not, and the run is skipped with the
reason (a laptop without them). With BUILTIT_REQUIRE_SERVICES=1 (CI), a missing
service is a failure instead (exit 1)."""

from __future__ import annotations

import os
import socket
import sys
from urllib.parse import urlparse

DEFAULTS = {
    "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/postgres",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
}
PORTS = {"DATABASE_URL": 5432, "REDIS_URL": 6379}
NAMES = {"DATABASE_URL": "PostgreSQL", "REDIS_URL": "Redis"}


def missing() -> list[str]:
    problems = []
    for variable, default in DEFAULTS.items():
        address = urlparse(os.environ.get(variable) or default)
        host, port = address.hostname or "127.0.0.1", address.port or PORTS[variable]
        try:
            with socket.create_connection((host, port), timeout=3):
                pass
        except OSError as error:
            problems.append(f"{NAMES[variable]} at {host}:{port} is not reachable ({error}).")
    return problems


def main() -> int:
    problems = missing()
    if not problems:
        return 0
    required = os.environ.get("BUILTIT_REQUIRE_SERVICES") == "1"
    for problem in problems:
        print(("FAILED: " if required else "Skipped: ") + problem, file=sys.stderr)
    return 1 if required else 3


if __name__ == "__main__":
    sys.exit(main())
