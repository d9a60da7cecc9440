"""Generations (projects.generations): a new word whenever what they guard
changes, and never a word something was kept under when the word is unsure."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_django.fixtures import Settings as SettingsWrapper

from projects import generations
from projects.generations import (
    generation,
    generation_advance,
    generation_drop,
    generation_watched,
)


@pytest.fixture(params=["file", "cache"])
def store(
    request: pytest.FixtureRequest,
    settings: SettingsWrapper,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> str:
    """In the data directory, or in the cache (Redis's part played by the
    test's own cache, whatever its backend)."""
    settings.DATA_DIR = tmp_path
    monkeypatch.setattr(generations, "_shared_by_cache", lambda: request.param == "cache")
    return str(request.param)


def test_a_word_stays_until_it_is_moved_on(store: str, db: None) -> None:
    first = generation("preview-a")
    assert generation("preview-a") == first
    generation_advance("preview-a")
    moved = generation("preview-a")
    assert moved != first
    assert generation("preview-b") != moved
    generation_drop("preview-a")
    assert generation("preview-a") not in {first, moved}


@pytest.mark.parametrize("store", ["file"], indirect=True)
def test_a_word_read_while_its_file_is_made_matches_nothing(store: str, tmp_path: Path) -> None:
    generation("preview-a")
    made = tmp_path / "generations" / "preview-a"
    made.write_text("")  # as a reader finds it between its making and its word
    assert generation("preview-a") != generation("preview-a")


def test_a_watched_word_is_the_word_and_moves_with_it_at_once(store: str, db: None) -> None:
    first = generation_watched("sites-w")
    assert first == generation("sites-w")
    assert generation_watched("sites-w") == first
    generation_advance("sites-w")
    moved = generation_watched("sites-w")
    assert moved != first
    assert moved == generation("sites-w")


def test_a_watched_file_put_in_place_of_the_mapped_one_is_read_once_looked_at_again(
    tmp_path: Path, settings: SettingsWrapper, monkeypatch: pytest.MonkeyPatch, db: None
) -> None:
    settings.DATA_DIR = tmp_path
    monkeypatch.setattr(generations, "_shared_by_cache", lambda: False)
    monkeypatch.setattr(generations, "_MAPPED_CHECK", 0.0)  # looked at on every read
    generation_advance("sites-x")
    first = generation_watched("sites-x")
    path = tmp_path / "generations" / "sites-x"
    path.unlink()
    path.write_text("b" * 16)  # another file, as a restore of the data directory makes
    assert generation_watched("sites-x") == "b" * 16 != first
