"""`/healthz`: a load balancer asks whether this process reaches the
database and the channel layer; no sign-in needed, nothing cached."""

from __future__ import annotations

import pytest
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

from chat.live import turns

pytestmark = pytest.mark.django_db


def test_a_healthy_process_says_ok_without_a_session(client: Client) -> None:
    answer = client.get("/healthz")
    assert answer.status_code == 200
    assert answer.json() == {"status": "ok", "database": "ok", "channel_layer": "ok"}
    assert "no-cache" in answer["Cache-Control"]


def test_an_unreachable_channel_layer_is_a_503_that_says_which(
    client: Client, settings: SettingsWrapper
) -> None:
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "chat.live.layer.LiveLayer",
            "CONFIG": {"redis_url": "redis://127.0.0.1:9/0"},
        }
    }
    answer = client.get("/healthz")
    assert answer.status_code == 503
    assert answer.json()["channel_layer"] == "down"
    assert answer.json()["database"] == "ok"


def test_a_process_shutting_down_is_a_503_draining(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turns, "_PROCESS", turns._Process(accepting=False))
    answer = client.get("/healthz")
    assert answer.status_code == 503
    assert answer.json() == {"status": "draining"}
