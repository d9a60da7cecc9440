"""The README is a front door and the guide in docs/ holds the rest: every
setting the server reads is on the configuration page, the README opens with
the two commands, stays short, and its links lead to files that exist (the
guide's own links are checked by `mkdocs build --strict` in `make lint`)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A setting's name as the settings read it: env_int("BUILTIT_MAX_FILES", …),
# os.environ.get("REDIS_URL", …).
_READ = re.compile(
    r"""(?:\benv_\w+|environ\.get|getenv)\(\s*(?:#[^\n]*\n\s*)*["']([A-Z][A-Z0-9_]+)["']"""
)
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _settings_read() -> set[str]:
    sources = [*ROOT.joinpath("builtit").rglob("*.py")]
    return {name for source in sources for name in _READ.findall(source.read_text())}


def test_every_setting_the_server_reads_is_on_the_configuration_page() -> None:
    names = _settings_read()
    assert {"BUILTIT_MAX_FILES", "DATABASE_URL"} <= names  # the pattern still finds them
    page = ROOT.joinpath("docs", "configuration.md").read_text()
    missing = sorted(name for name in names if f"`{name}`" not in page)
    assert missing == []


def test_the_readme_opens_with_the_two_commands_and_stays_short() -> None:
    readme = ROOT.joinpath("README.md").read_text()
    first_block = readme.split("```sh\n", 1)[1].split("```", 1)[0]
    assert first_block.splitlines()[0].startswith("make run ")
    assert first_block.splitlines()[1].startswith("make test ")
    assert len(readme.splitlines()) <= 300


def test_the_readmes_links_lead_to_files_that_exist() -> None:
    readme = ROOT.joinpath("README.md").read_text()
    local = [link for link in _LINK.findall(readme) if "://" not in link]
    assert local, "the README links into the guide"
    assert [link for link in local if not ROOT.joinpath(link).exists()] == []


def test_every_daphne_the_guide_starts_pings_an_idle_socket_every_50_seconds() -> None:
    """daphne's own default is 20 s: 10,000 idle tabs were 500 pings a second
    (docs/production.md says why 50)."""
    pages = [ROOT.joinpath("README.md"), *ROOT.joinpath("docs").rglob("*.md")]
    commands = [
        line for page in pages for line in page.read_text().splitlines() if "bin/daphne " in line
    ]
    assert commands, "the guide gives daphne's command line"
    assert [line for line in commands if "--ping-interval 50 " not in line] == []
