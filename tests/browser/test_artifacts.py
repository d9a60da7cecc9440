"""Where the browser tests save their screenshots: CI runs `make test` and
`make test-services` side by side in one checkout, so each suite has a folder
of its own (no browser needed)."""

from __future__ import annotations

from tests.browser.conftest import ROOT, artifacts_for


def test_each_suite_saves_its_screenshots_in_a_folder_of_its_own() -> None:
    sqlite = artifacts_for({})
    services = artifacts_for({"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/postgres"})

    assert sqlite == ROOT / "test-artifacts" / "sqlite"
    assert services == ROOT / "test-artifacts" / "services"
