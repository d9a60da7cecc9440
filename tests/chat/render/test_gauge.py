"""The context gauge as the message box shows it: the parts add up
to what it says, a part with nothing in it is left out, and from 80% of the
model's window it warns and offers to compact, unless the earlier turns were
summarised since it was measured."""

from __future__ import annotations

from chat.records.context_window import ContextRecord
from chat.records.turn import TurnRecord
from chat.render.gauge import ContextGauge
from chat.render.panel import composer_gauge_html


def _record(history: int, *, window: int = 10_000, known: bool = True) -> ContextRecord:
    parts = (
        ("system", 1_500),
        ("files", 300),
        ("history", history),
        ("message", 200),
        ("tools", 0),
    )
    return ContextRecord(parts, window, known, summarised=4, left_out=0)  # type: ignore[arg-type]


def _gauge_html(record: ContextRecord) -> str:
    return composer_gauge_html(record)


def test_the_parts_add_up_and_empty_parts_are_left_out() -> None:
    gauge = ContextGauge.of(_record(3_000))

    assert gauge.percent == 50
    assert [part.part for part in gauge.parts] == ["system", "files", "history", "message"]
    assert sum(part.tokens for part in gauge.parts) == 5_000
    assert gauge.summary == "Context 50% full: about 5,000 of 10,000 tokens"
    assert gauge.history == "Earlier turns: 4 earlier turns read as a summary."
    assert gauge.warning == ""


def test_from_eighty_percent_the_gauge_warns_and_offers_to_compact() -> None:
    below, at = _gauge_html(_record(6_000 - 1)), _gauge_html(_record(6_000))

    assert "Compact now" not in below
    assert "context-warning" not in below
    assert "The model&#x27;s context is 80% full" in at
    assert 'data-action="compact">Compact now' in at


def test_a_context_full_without_the_earlier_turns_is_not_offered_compacting() -> None:
    # A small window (4,096 tokens, say) that Built-It's own part nearly fills:
    # summarising the few earlier turns would leave it as full as it was.
    small = ContextRecord(
        (("system", 950), ("tools", 2_400), ("history", 60), ("message", 10)),
        4_096,
        True,
    )

    html = _gauge_html(small)

    assert "The model&#x27;s context is 83% full, and 82% without the earlier turns" in html
    assert "compacting would not be enough" in html
    assert "a model with a larger context" in html
    assert "Compact now" not in html


def test_once_compacted_the_gauge_says_the_next_message_starts_from_less() -> None:
    html = composer_gauge_html(_record(6_000), compacted_since=True)

    assert "summarised since, so your next message starts from less" in html
    assert "Compact now" not in html


def test_no_turn_measured_yet_no_gauge() -> None:
    assert 'id="composer-gauge" class="composer-gauge" hidden' in composer_gauge_html(None)


def test_an_assumed_window_says_so() -> None:
    assert "(assumed)" in ContextGauge.of(_record(100, known=False)).summary


def test_the_gauge_is_kept_with_the_turn_and_read_back() -> None:
    record = _record(2_000)
    stored = TurnRecord(context=record).to_stored()

    assert TurnRecord.from_stored(stored).context == record
    assert TurnRecord.from_stored({**stored, "context": {"window": "x"}}).context is None
