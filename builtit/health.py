"""`/healthz` for load balancers: 200 when this process reaches the database and
the channel layer, 503 (saying which) otherwise, and 503 "draining" once it has
begun a clean shutdown (chat.live.draining), so that new people go elsewhere.
The channel layer is "resubscribing" while Redis answers but this process has
not yet heard again what Redis stopped telling it (its tabs miss other
processes' messages meanwhile). No session, no secrets."""

from __future__ import annotations

import logging
from typing import Literal

from channels.layers import get_channel_layer
from django.contrib.auth.decorators import login_not_required
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from redis import Redis
from redis.exceptions import RedisError

from chat.live import turns
from chat.live.layer import LiveLayer

logger = logging.getLogger(__name__)

LayerState = Literal["ok", "down", "resubscribing"]


@login_not_required
@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    if not turns.accepting():
        return JsonResponse({"status": "draining"}, status=503)
    checks = {"database": "ok" if _database() else "down", "channel_layer": _channel_layer()}
    healthy = all(state == "ok" for state in checks.values())
    body = {"status": "ok" if healthy else "unavailable", **checks}
    return JsonResponse(body, status=200 if healthy else 503)


def _database() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return bool(cursor.fetchone() == (1,))
    except Exception:  # any failure means "not healthy", said in the answer
        logger.warning("Health check: the database is not reachable", exc_info=True)
        return False


def _channel_layer() -> LayerState:
    """The channel layer is there and, with Redis, Redis answers and this process
    hears the other processes (in memory, a process's layer is always there)."""
    layer = get_channel_layer()
    if layer is None:
        return "down"
    url = getattr(layer, "redis_url", "")
    if not url:
        return "ok"
    try:
        with Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2) as redis:
            if not redis.ping():
                return "down"
    except (RedisError, OSError):
        logger.warning("Health check: the channel layer's Redis is not reachable", exc_info=True)
        return "down"
    # Redis answers, but this process's tabs miss what other processes send them
    # until the layer has subscribed again.
    if isinstance(layer, LiveLayer) and layer.resubscribing:
        return "resubscribing"
    return "ok"
