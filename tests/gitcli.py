"""The `git` command line as a person runs it in a terminal, with a home of its
own (none of the machine's configuration), for tests that drive a server."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Git:
    """The `git` command line, with a home of its own (no config of the machine's)."""

    home: Path

    def __call__(self, *args: str, cwd: Path | None = None, check: bool = True) -> str:
        done = self.run(*args, cwd=cwd)
        if check and done.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
        return done.stdout

    def run(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(self.home),
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "Ada",
            "GIT_AUTHOR_EMAIL": "ada@example.com",
            "GIT_COMMITTER_NAME": "Ada",
            "GIT_COMMITTER_EMAIL": "ada@example.com",
            "LC_ALL": "C",
        }
        return subprocess.run(  # noqa: S603
            ["git", *args],  # noqa: S607
            cwd=cwd or self.home,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
