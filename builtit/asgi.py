"""ASGI entry point: HTTP through Django, websockets through Channels."""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "builtit.settings")
# Django must be set up before anything imports models.
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from builtit.own_hosts import OwnHostsFirst  # noqa: E402
from builtit.routing import websocket_urlpatterns  # noqa: E402
from builtit.server import client_address, patches  # noqa: E402
from builtit.server.bodystream import BodyFromFile  # noqa: E402
from builtit.sockets import ChatSockets  # noqa: E402

# Bodies bounded before they are read, turns drained on SIGTERM, and daphne's
# --proxy-headers reading the visitor's address as the application does.
patches.install()

# The visitor's address is decided at the edge, for pages and sockets alike:
# the entry our own proxies added to X-Forwarded-For, never one the client
# wrote. A site's own host (its pages, its forms) is answered before Django's
# handler. A socket's one layer also decides who opens it (a personal access
# token, or a session from this site's own pages) and whether its address may
# hold one more.
application = ProtocolTypeRouter(
    {
        "http": client_address.ClientAddress(BodyFromFile(OwnHostsFirst(django_asgi_app))),
        "websocket": ChatSockets(URLRouter(websocket_urlpatterns)),
    }
)
