"""`make lint` refuses an import the contracts forbid, in a module no contract names.

`lint-imports`, as `make lint` runs it, checks a copy of the apps' sources with
new modules added; the contracts are read from the project's own pyproject.toml.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("builtit", "common", "accounts", "chat", "projects", "demo", "fakes")
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"

AGENT = "the agent is reached only through the live turn"
PROVIDER = "the provider's client is reached only through"
DEMO = "the offline demo is a provider reached only through chat.providers.client_for"
TOOLS = "the tools are the agent's"
FAKES = "the fakes (a fake OpenRouter serving the demo, sample files) are for tests"
NO_PAGES = "the agent, its tools, the provider's client and the offline demo know no Channels"

# A module written tomorrow in each package, with the imports it may not make.
TOMORROW = {
    "chat/render/tomorrow.py": {
        "from chat.agent import state": ("chat.agent.state", AGENT),
        "from chat.agent import compaction": ("chat.agent.compaction", AGENT),
        "from chat.agent import read_cache": ("chat.agent.read_cache", AGENT),
        "from chat import tools": ("chat.tools", TOOLS),
    },
    "chat/live/tomorrow.py": {
        "from chat.agent import loop": ("chat.agent.loop", AGENT),
        "from chat.llm import get_client": ("chat.llm", PROVIDER),
        "from demo import transport": ("demo.transport", DEMO),
    },
    "chat/agent/tomorrow_too.py": {"from demo import transport": ("demo.transport", DEMO)},
    "chat/agent/tomorrow.py": {"import channels": ("channels", NO_PAGES)},
    "chat/tools/tomorrow.py": {
        "from projects.views import files": ("projects.views.files", NO_PAGES),
    },
    "demo/tomorrow.py": {
        "from chat.render import panel": ("chat.render.panel", NO_PAGES),
        "from fakes import openrouter": ("fakes.openrouter", FAKES),
    },
    "projects/tomorrow.py": {"from fakes import images": ("fakes.images", FAKES)},
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package,
            tmp_path / package,
            ignore=shutil.ignore_patterns("__pycache__", "migrations", "*.js", "*.css"),
        )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603 (the project's own lint-imports)
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_new_modules_with_forbidden_imports_break_the_contracts(tree: Path) -> None:
    kept = lint_imports(tree)
    for path, imports in TOMORROW.items():
        (tree / path).write_text("".join(f"{line}\n" for line in imports))

    broken = lint_imports(tree)

    assert kept.returncode == 0, kept.stdout
    assert broken.returncode != 0
    report = " ".join(broken.stdout.split("Broken contracts", 1)[1].split())
    for path, imports in TOMORROW.items():
        module = path.removesuffix(".py").replace("/", ".")
        for imported, contract in imports.values():
            assert f"{module} -> {imported} " in report
            assert contract in report
