"""The rule a request still arriving must keep (builtit.server.bodypace), without sockets:
the server's side is tests/builtit/server/test_body_limits.py."""

from __future__ import annotations

from builtit.server.bodypace import Pace


def body_pace() -> Pace:
    pace = Pace(window=20.0, rate=500, started=0.0)
    pace.body(0.0)
    return pace


def test_a_byte_every_twenty_seconds_has_stalled_at_the_first_window() -> None:
    pace = body_pace()
    pace.moved(1)
    assert not pace.stalled(19.0)
    assert pace.stalled(20.0)


def test_a_slow_upload_that_keeps_the_rate_goes_on_window_after_window() -> None:
    pace = body_pace()
    for window in range(1, 100):  # 33 minutes at 4 kbit/s
        pace.moved(20 * 500)
        assert not pace.stalled(window * 20.0)


def test_a_fast_start_does_not_pay_for_a_later_stall() -> None:
    pace = body_pace()
    pace.moved(10 * 2**20)
    assert not pace.stalled(20.0)
    assert pace.stalled(40.0)


def test_the_head_must_be_in_within_one_window() -> None:
    pace = Pace(window=20.0, rate=500, started=0.0)
    assert not pace.stalled(19.0)
    assert pace.stalled(20.0)


def test_the_time_the_server_does_not_read_is_not_counted() -> None:
    pace = body_pace()
    pace.pause()
    assert not pace.stalled(60.0)
    pace.body(60.0)
    pace.moved(10_000)
    assert not pace.stalled(80.0)


def test_a_request_all_in_is_not_timed() -> None:
    pace = body_pace()
    pace.done()
    assert not pace.stalled(3600.0)
