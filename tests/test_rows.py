"""Row building: the per-class field readers of `rows` match the generic getattr reader."""

from __future__ import annotations

import pytest

from buraco_events import rows
from buraco_events.events import (
    EVENT_TYPES,
    Discarded,
    Drew,
    Event,
    GameEnded,
    GameStarted,
    HandEnded,
    HandStarted,
    LaidOff,
    Melded,
    Note,
    StockRefilled,
    TookDead,
    TookPile,
)

#: one event of every class of the contract, every optional field that feeds a column set
SAMPLES: list[Event] = [
    GameStarted(seq=0, game_id="g", variant="stbl", players=("a", "b")),
    HandStarted(seq=1, hand=0, first=1, hands=(("AS",),), deads=(), stock=("3H",), discard=()),
    Drew(seq=2, player=1, card="4C", at="2024-01-01T00:00:00Z"),
    TookPile(seq=3, player=0, cards=("5D", "JK")),
    Melded(seq=4, player=1, meld=0, cards=("3S", "4S", "5S")),
    LaidOff(seq=5, player=3, meld=2, cards=("6S",)),
    Discarded(seq=6, player=2, card="2H"),
    TookDead(seq=7, player=0, dead=1, cards=("KH", "KD")),
    StockRefilled(seq=8, dead=0),
    HandEnded(seq=9, hand=0, reason="closed", closed_by=1, scores=(10, -20)),
    GameEnded(seq=10, totals=(10, -20), winner=0),
    Note(seq=11, by="referee", text="a remark"),
]


def test_samples_cover_every_event_class() -> None:
    assert {type(ev) for ev in SAMPLES} == set(EVENT_TYPES)
    assert set(rows._PARTS) == set(EVENT_TYPES)


@pytest.mark.parametrize("ev", SAMPLES, ids=lambda ev: type(ev).__name__)
def test_class_reader_matches_generic_reader(ev: Event) -> None:
    assert rows._PARTS[type(ev)](ev) == rows._generic_parts(ev)


def test_generic_reader_fields() -> None:
    # the reference itself: a took_dead has player, cards and dead; a drew a card as its cards
    assert rows._generic_parts(SAMPLES[7]) == (0, ["KH", "KD"], None, None, 1, None)
    assert rows._generic_parts(SAMPLES[2]) == (1, ["4C"], "4C", None, None, None)
    assert rows._generic_parts(SAMPLES[11]) == (None, None, None, None, None, "a remark")


def test_add_values_is_add_in_column_order() -> None:
    by_name, by_order = rows.Columns(), rows.Columns()
    values = tuple(f"v{i}" for i in range(len(rows.COLUMNS["melds"])))
    by_name.add("melds", **dict(zip(rows.COLUMNS["melds"], values, strict=True)))
    by_order.add_values("melds", values)
    assert by_order.data == by_name.data and by_order.count("melds") == 1
    with pytest.raises(ValueError):
        by_order.add_values("melds", values[:-1])  # every column must be given
