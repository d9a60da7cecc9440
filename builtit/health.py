"""`/healthz` for load balancers: 200 when this process reaches the database and
the channel layer, 503 (saying which) otherwise, and 503 "draining" once it has
begun a clean shutdown (chat.live.draining), so that new people go elsewhere.
No session, no secrets."""

from __future__ import annotations

import logging

from channels.layers import get_channel_layer
from django.contrib.auth.decorators import login_not_required
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from redis import Redis
from redis.exceptions import RedisError

from chat.live import turns

logger = logging.getLogger(__name__)


@login_not_required
@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    if not turns.accepting():
        return JsonResponse({"status": "draining"}, status=503)
    checks = {"database": _database(), "channel_layer": _channel_layer()}
    healthy = all(checks.values())
    body = {
        "status": "ok" if healthy else "unavailable",
        **{k: "ok" if v else "down" for k, v in checks.items()},
    }
    return JsonResponse(body, status=200 if healthy else 503)


def _database() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return bool(cursor.fetchone() == (1,))
    except Exception:  # any failure means "not healthy", said in the answer
        logger.warning("Health check: the database is not reachable", exc_info=True)
        return False


def _channel_layer() -> bool:
    """The channel layer is there and, with Redis, Redis answers (in memory, a
    process's layer is always there)."""
    layer = get_channel_layer()
    if layer is None:
        return False
    url = getattr(layer, "redis_url", "")
    if not url:
        return True
    try:
        with Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2) as redis:
            return bool(redis.ping())
    except (RedisError, OSError):
        logger.warning("Health check: the channel layer's Redis is not reachable", exc_info=True)
        return False
