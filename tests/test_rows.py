"""Row building: the per-class field readers of `rows` match the generic getattr reader, and
`game_rows` gives the rows of the reference builder (tests/reference_rows.py)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import msgspec
import pytest
import reference_rows
from helpers import random_game

from buraco_events import build
from buraco_events.analytics import arrowrows, database, rows, schema
from buraco_events.log.lines import LogError
from buraco_events.log.sources import read_log
from buraco_events.model.events import (
    EVENT_TYPES,
    Branched,
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
    Ruling,
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
    Branched(seq=12, parent="g", fork_seq=11, deck="parent", seed="7", by="ana", reason="what if"),
    Ruling(seq=13, game_id="g", game_seq=11, game_head="0" * 64, kind="warning", by="ref", reason="slow"),
]


def test_samples_cover_every_event_class() -> None:
    assert {type(ev) for ev in SAMPLES} == set(EVENT_TYPES)
    assert set(rows._TAG_OF) == set(EVENT_TYPES)


def test_column_reader_matches_generic_reader() -> None:
    # every class through `_EventColumns.add` as `game_rows` sends it: the common ones read by
    # their fields' names, the others by the generic reader
    assert set(rows._SHAPE) < set(EVENT_TYPES)
    cols = rows._EventColumns()
    for ev in SAMPLES:
        cols.add(ev, 3, 0)
    got = cols.columns("g")
    assert list(got) == list(rows.COLUMNS["events"])
    assert got["game_id"] == ["g"] * len(SAMPLES) and got["seq"] == [ev.seq for ev in SAMPLES]
    for i, ev in enumerate(SAMPLES):
        player, cards, card, meld, dead, note = (
            got[c][i] for c in ("player", "cards", "card", "meld", "dead", "note"))
        cards = None if cards is None else list(cards)  # a tuple or a list: one Arrow list
        assert (player, cards, card, meld, dead, note) == rows._generic_parts(ev), type(ev).__name__
        assert got["n_cards"][i] == (None if cards is None else len(cards))
        assert got["turn"][i] == (None if player is None else 3)  # no player, no turn
        assert got["team"][i] == (None if player is None else player % 2)


def test_column_reader_hand() -> None:
    # the hand after the event, none before the first deal (the engine's -1)
    cols = rows._EventColumns()
    cols.add(SAMPLES[0], 0, -1)
    cols.add(SAMPLES[1], 0, 0)
    assert cols.columns("g")["hand"] == [None, 0]


def _native(events: list[Event], turn: int = 3, hand: int = 0) -> dict[str, list[Any]]:
    """Return the events rows of `events` as `EventBuffers` holds them, read back as lists."""
    buf = rows.EventBuffers()
    for ev in events:
        assert buf.add(ev, turn, hand)
    buf.end_game("g")
    return arrowrows.native_events(buf).to_pydict()


def test_native_rows_are_the_lists_rows() -> None:
    # every class, both hand values (-1: before the first deal) and no turn: the same rows
    # as the plain lists (a tuple of cards there, a list in Arrow)
    for turn, hand in ((3, 0), (None, -1), (0, 7)):
        cols = rows._EventColumns()
        for ev in SAMPLES:
            cols.add(ev, turn, hand)
        lists = {c: [_plain(v) for v in vs] for c, vs in cols.columns("g").items()}
        assert _native(SAMPLES, turn, hand) == lists
        # and read back as lists (a game's rows so far, when a row does not fit)
        buf = rows.EventBuffers()
        for ev in SAMPLES:
            assert buf.add(ev, turn, hand)
        back = buf.rows_as_lists(0, len(buf)).columns("g")
        assert {c: [_plain(v) for v in vs] for c, vs in back.items()} == lists
        part = buf.rows_as_lists(3, 5).columns("g")
        assert {c: [_plain(v) for v in vs] for c, vs in part.items()} == {
            c: vs[3:5] for c, vs in lists.items()}


def test_native_rows_move_to_the_lists_in_order() -> None:
    # `Columns.to_lists`: every game's rows, in order, after the rows the lists held, each
    # named by its game; from then on the rows are built as lists
    games = [random_game("stbl", 2, 50), random_game("burraco", 4, 51), random_game("stbl", 2, 52)]
    native, lists = rows.Columns(native=True), rows.Columns()
    for i, events in enumerate(games):
        rows.game_rows(events, f"s{i}", "h", True, native)
        rows.game_rows(events, f"s{i}", "h", True, lists)
    assert native.native is not None and len(native.native) == lists.count("events")
    native.to_lists()
    assert native.native is None
    assert _plain_data(native) == _plain_data(lists)
    rows.game_rows(games[0], "again", "h", True, native)  # the lists go on
    rows.game_rows(games[0], "again", "h", True, lists)
    assert _plain_data(native) == _plain_data(lists)


def _plain_data(cols: rows.Columns) -> dict[str, dict[str, list[Any]]]:
    return {t: {c: [_plain(v) for v in vs] for c, vs in table.items()}
            for t, table in cols.data.items()}


def test_one_declaration() -> None:
    # the column names, the Arrow schemas, the DuckDB types and the misfit ranges all follow
    # from `schema.TABLES`; so do the types `EventBuffers` holds the events columns as
    assert tuple(rows.COLUMNS) == tuple(database.SCHEMAS) == tuple(schema.TABLES)
    assert set(database.ARROW_TYPES) == set(schema.TYPES)  # one Arrow type per type word
    for table, declared in schema.TABLES.items():
        assert rows.COLUMNS[table] == declared.names() == tuple(database.SCHEMAS[table].names)
        for name, word in declared.columns:
            assert database.SCHEMAS[table].field(name).type == database.ARROW_TYPES[word]
        ints = {name: (lo, hi) for name, _, lo, hi in arrowrows._INT_COLUMNS[table]}
        assert ints == {name: schema.int_range(word) for name, word in declared.columns
                        if schema.int_range(word) is not None}
    assert schema.int_range("int16") == (-32768, 32767) and schema.int_range("int32[]") == (
        -2**31, 2**31 - 1) and schema.int_range("text[]") is None
    events = schema.TABLES["events"]
    assert rows._NATIVE_TYPES == {n: events.type_of(n) for n in rows._NATIVE_TYPES}
    assert set(rows._NATIVE_TYPES) == {n for n, w in events.columns if schema.int_range(w)}
    rows._check_native_types()


def test_native_rows_refuse_what_their_columns_cannot_hold() -> None:
    # a value beyond its column (SMALLINT meld, turn and hand; TINYINT player, held 0..127),
    # a card outside the notation (even after good ones): refused, nothing appended
    buf = rows.EventBuffers()
    assert buf.add(SAMPLES[4], 1, 0)
    buf.end_game("g")
    before = arrowrows.native_events(buf).to_pydict()
    refused = [
        (Melded(seq=4, player=1, meld=32768, cards=("3S", "4S", "5S")), 1, 0),
        (Drew(seq=2, player=1, card="4C"), 32768, 0),
        (Drew(seq=2, player=1, card="4C"), 1, 32768),
        (Drew(seq=2, player=128, card="4C"), 1, 0),
        (TookPile(seq=3, player=0, cards=("9S", "ZZ")), 1, 0),
        (Discarded(seq=6, player=2, card="1H"), 1, 0),
    ]
    for ev, turn, hand in refused:
        assert not buf.add(ev, turn, hand), ev
    assert len(buf) == 1 and len(buf.card_codes) == 3
    assert arrowrows.native_events(buf).to_pydict() == before
    # the widest values that fit are held
    assert buf.add(Melded(seq=2**31 - 1, player=127, meld=-32768, cards=("3S",)), 32767, 32767)


def test_native_rows_cut_drops_a_game() -> None:
    buf = rows.EventBuffers()
    for ev in SAMPLES[:2]:
        buf.add(ev, 0, 0)
    buf.end_game("g")
    for ev in SAMPLES[2:]:
        buf.add(ev, 0, 0)
    buf.cut(2)  # the second game did not finish
    buf.end_game("h")
    assert arrowrows.native_events(buf).to_pydict() == _native(SAMPLES[:2], 0, 0)


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


# -- the builder against the reference (tests/reference_rows.py) ----------------------------

ROOT = Path(__file__).resolve().parent.parent
LOGS = sorted([*(ROOT / "data" / "samples").glob("*.jsonl"),
               *(ROOT / "data" / "disputes").glob("*.jsonl"),
               *(ROOT / "tests" / "golden" / "legacy").glob("*.jsonl")])


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _rows_or_error(build: Any, events: list[Event]) -> Any:
    """Return a builder's rows (tuples as lists), or the type and text of what it raised."""
    try:
        got = build(events, "src", "head", True)
    except Exception as exc:  # noqa: BLE001 - the error itself is compared
        return type(exc).__name__, str(exc)
    return {t: {c: [_plain(v) for v in vs] for c, vs in cols.items()} for t, cols in got.data.items()}


def assert_same_rows(events: list[Event]) -> None:
    assert _rows_or_error(rows.game_rows, events) == _rows_or_error(reference_rows.game_rows, events)


#: the disputes whose stored file is damaged (the chain breaks): read up to the damage, where the
#: reader stops; every other log reads whole
DAMAGED = {"changed_card.jsonl": 80, "dropped_line.jsonl": 120}


@pytest.mark.parametrize("path", LOGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_rows_equal_the_reference_on_every_sample_log(path: Path) -> None:
    events = []
    damaged = path.parent.name == "disputes" and path.name in DAMAGED
    try:
        for _, _, ev in read_log(path):
            events.append(ev)
    except LogError:
        if not damaged:
            raise
    else:
        assert not damaged, f"{path.name} is damaged: its reading must stop at the damage"
    assert len(events) == (DAMAGED[path.name] if damaged else len(path.read_bytes().splitlines()))
    assert_same_rows(events)


@pytest.mark.parametrize("variant,players,seed", [
    ("stbl", 2, 1), ("stbl", 4, 2), ("burraco", 2, 3), ("aberto", 4, 4), ("fechado", 2, 5),
    ("aberto-sujo", 2, 6), ("stcl", 4, 7),
])
def test_rows_equal_the_reference_with_notes_and_cut_short(variant: str, players: int,
                                                         seed: int) -> None:
    rng = random.Random(seed)
    events = random_game(variant, players, seed)
    assert_same_rows(events)
    # notes anywhere (before the deal, mid-turn, between hands, after the end), timestamps
    noted: list[Event] = []
    for ev in events:
        if rng.random() < 0.05:
            noted.append(Note(seq=0, by="referee", text=f"n{len(noted)}"))
        noted.append(ev if rng.random() < 0.5 else msgspec.structs.replace(ev, at="2026-01-01"))
    noted.append(Note(seq=0, by="p0", text="gg"))
    noted = [msgspec.structs.replace(ev, seq=i) for i, ev in enumerate(noted)]
    assert_same_rows(noted)
    for cut in (1, 2, len(noted) // 3, len(noted) - 1):
        assert_same_rows(noted[:cut])
    assert_same_rows([])
    # an illegal event: the same error from both
    bad = list(noted)
    k = next(i for i, ev in enumerate(bad) if isinstance(ev, Discarded))
    bad[k] = msgspec.structs.replace(bad[k], player=(bad[k].player + 1) % players)
    assert_same_rows(bad)


@pytest.mark.skipif(build() == "compiled", reason="rows._TAG_CODE is a compiled constant")
def test_a_row_the_native_rows_refuse_goes_on_in_the_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    # a note refused mid-game: the rows so far move to the lists, the game goes on in them and
    # its events are played once; a game that then raises leaves none of its rows
    monkeypatch.setattr(rows, "_TAG_CODE", {c: n for c, n in rows._TAG_CODE.items() if c is not Note})
    first = random_game("stbl", 2, 60)
    events = random_game("stbl", 2, 61)
    noted = [*events[:5], Note(seq=5, by="referee", text="x"),
             *(msgspec.structs.replace(ev, seq=ev.seq + 1) for ev in events[5:])]
    lists = rows.Columns()
    for evs in (first, noted):
        rows.game_rows(evs, "s", "h", True, lists)
    played: list[int] = []
    real_play = rows.play
    monkeypatch.setattr(rows, "play", lambda state, ev: played.append(ev.seq) or real_play(state, ev))
    into = rows.Columns(native=True)
    for evs in (first, noted):
        rows.game_rows(evs, "s", "h", True, into)
    assert into.native is None and _plain_data(into) == _plain_data(lists)
    assert played == [ev.seq for ev in (*first, *noted)]
    # refused, then illegal: nothing of that game is kept
    into = rows.Columns(native=True)
    rows.game_rows(first, "s", "h", True, into)
    bad = [*noted[:8], msgspec.structs.replace(noted[8], seq=99)]
    with pytest.raises(Exception, match="seq"):
        rows.game_rows(bad, "s", "h", True, into)
    only = rows.Columns()
    rows.game_rows(first, "s", "h", True, only)
    assert into.native is None and _plain_data(into) == _plain_data(only)
