"""The one method of Channels' that the chat consumer overrides is still what it
was when the override was written. `ChatConsumer.dispatch` is Channels' own
(find the handler by the message's type, call it) without closing old database
connections first: measured with bench/ws_fanout.py (bench/README.md, "One route
to a tab"), that close hops through asgiref's one shared thread for every
message of every tab, and made 50 tabs' p99 227 to 241 ms instead of 61 to 64 and one
tab's server CPU 40% more a chunk. A Channels upgrade that changes `dispatch`
fails here: read the override against the new one, then update the digest."""

from __future__ import annotations

from tests.builtit.server.test_upstream import _definition, _parameters, code_digest


def test_channels_dispatch_is_still_the_one_our_consumer_overrides() -> None:
    text, function = _definition("channels.consumer", "AsyncConsumer.dispatch")
    where = "channels.consumer.AsyncConsumer.dispatch: read ChatConsumer.dispatch again"
    assert _parameters(function) == ("self", "message"), f"its parameters changed, {where}"
    assert code_digest(text, function) == "1311d472cce74a43", f"its code changed, {where}"
