"""Events: JSON and msgpack round trips, lenient cards, and one clear error per malformed line.

`make_game` (a synthetic game built from event Structs on a real shuffled 108-card deck) is the
test data of the log, archive and schema tests too.
"""

from __future__ import annotations

import msgspec
import pytest
from helpers import game_lines, make_game
from hypothesis import given
from hypothesis import strategies as st

from buraco_events.core.cards import ALL_CARDS, make_deck
from buraco_events.log.lines import LogError, decode_lines
from buraco_events.model.events import (
    EVENT_TYPES,
    RULING_KINDS,
    ZERO_HASH,
    Branched,
    Discarded,
    Drew,
    Event,
    EventFormatError,
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
    decode_event,
    decode_msgpack,
    encode_event,
    encode_msgpack,
)

# -- round trips ---------------------------------------------------------------------------------


def test_own_lines_decode_and_encode_back_byte_for_byte() -> None:
    lines = game_lines(1, hands=2)
    for i, line in enumerate(lines):
        event = decode_event(line)
        assert event.seq == i
        assert encode_event(event) == line
    assert decode_event(lines[0]).prev == ZERO_HASH


def test_msgpack_round_trip_gives_the_same_events() -> None:
    for line in game_lines(2):
        event = decode_event(line)
        assert decode_msgpack(encode_msgpack(event)) == event


def test_the_deal_is_the_whole_deck() -> None:
    deal = next(e for e in make_game(3) if isinstance(e, HandStarted))
    cards = [c for h in deal.hands for c in h] + [c for d in deal.deads for c in d]
    assert sorted(cards + list(deal.stock)) == sorted(make_deck(4))
    assert [len(h) for h in deal.hands] == [11, 11, 11, 11]


cards_st = st.sampled_from(ALL_CARDS)
card_lists = st.lists(cards_st, max_size=12).map(tuple)
seats = st.integers(0, 3)
small = st.integers(0, 2**31)
texts = st.text(st.characters(codec="utf-8"), max_size=20)  # no lone surrogates
hashes = st.none() | st.text("0123456789abcdef", min_size=64, max_size=64)
common = {"seq": st.integers(0, 2**53), "prev": hashes, "at": st.none() | texts}

BUILDERS = {
    GameStarted: st.builds(
        GameStarted, game_id=texts, variant=texts, players=st.lists(texts).map(tuple),
        target=st.none() | small, schema_version=st.none() | small, **common),
    HandStarted: st.builds(
        HandStarted, hand=small, first=seats, hands=st.lists(card_lists, max_size=4).map(tuple),
        deads=st.lists(card_lists, max_size=2).map(tuple), stock=card_lists, discard=card_lists,
        commitment=hashes, **common),
    Drew: st.builds(Drew, player=seats, card=cards_st, **common),
    Discarded: st.builds(Discarded, player=seats, card=cards_st, **common),
    TookPile: st.builds(TookPile, player=seats, cards=card_lists, **common),
    Melded: st.builds(Melded, player=seats, meld=small, cards=card_lists, **common),
    LaidOff: st.builds(LaidOff, player=seats, meld=small, cards=card_lists, **common),
    TookDead: st.builds(TookDead, player=seats, dead=st.integers(0, 1), cards=card_lists, **common),
    StockRefilled: st.builds(StockRefilled, dead=st.integers(0, 1), **common),
    HandEnded: st.builds(
        HandEnded, hand=small, reason=st.sampled_from(["closed", "stock_exhausted"]),
        closed_by=st.none() | seats, scores=st.lists(st.integers(-999, 9999)).map(tuple),
        salt=st.none() | texts, **common),
    GameEnded: st.builds(GameEnded, totals=st.lists(st.integers(-999, 9999)).map(tuple),
                         winner=st.integers(0, 1), **common),
    Note: st.builds(Note, by=texts, text=texts, **common),
    Branched: st.builds(
        Branched, parent=texts, fork_seq=st.integers(0, 2**53), deck=st.sampled_from(["parent", "redealt"]),
        seat=st.none() | seats, seed=texts, by=texts, reason=texts,
        hands=st.none() | st.lists(card_lists, max_size=4).map(tuple), stock=st.none() | card_lists,
        deads=st.none() | st.lists(card_lists, max_size=2).map(tuple), **common),
    Ruling: st.builds(
        Ruling, game_id=texts, game_seq=st.integers(0, 2**53),
        game_head=st.text("0123456789abcdef", min_size=64, max_size=64),
        kind=st.sampled_from(RULING_KINDS), hand=st.none() | small,
        points=st.none() | st.lists(st.integers(-999, 9999), max_size=2).map(tuple),
        team=st.none() | st.integers(0, 1), branch_head=hashes, ruling_seq=st.none() | st.integers(0, 2**53),
        by=texts, reason=texts, **common),
}
events_st = st.one_of(*BUILDERS.values())


def test_the_strategy_covers_every_event_type() -> None:
    assert set(BUILDERS) == set(EVENT_TYPES)


@given(events_st)
def test_any_event_round_trips_through_json_and_msgpack(event: Event) -> None:
    line = encode_event(event)
    assert decode_event(line) == event
    assert encode_event(decode_event(line)) == line
    assert decode_msgpack(encode_msgpack(event)) == event



# -- lenient cards -------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["10H", "th", "TH", "T♥", "10h", "t♡", " 10H "])
def test_lenient_card_forms_read_as_the_canonical_card(text: str) -> None:
    line = msgspec.json.encode({"type": "drew", "seq": 2, "player": 1, "card": text})
    assert decode_event(line) == Drew(seq=2, player=1, card="10H")


def test_lenient_cards_inside_a_deal() -> None:
    line = msgspec.json.encode({
        "type": "hand_started", "seq": 1, "hand": 0, "first": 0, "hands": [["as", "jk"]],
        "deads": [["2♣"], []], "stock": ["qd"], "discard": ["Td"],
    })
    event = decode_event(line)
    assert isinstance(event, HandStarted)
    assert event.hands == (("AS", "JK"),) and event.deads == (("2C",), ())
    assert event.stock == ("QD",) and event.discard == ("10D",)


# -- malformed lines -----------------------------------------------------------------------------

GOOD = b'{"type":"drew","seq":6,"player":0,"card":"7S"}'
MALFORMED = [
    ("unknown type", b'{"type":"drawn","seq":6,"player":0,"card":"7S"}', "type",
     "unknown event type 'drawn' (known: game_started, "),
    ("missing field", b'{"type":"drew","seq":6,"player":0}', "card", "field card: missing"),
    ("wrong type", b'{"type":"drew","seq":6,"player":"0","card":"7S"}', "player",
     "field player: Expected `int`, got `str`"),
    ("out of range", b'{"type":"drew","seq":6,"player":4,"card":"7S"}', "player",
     "field player: Expected `int` <= 3"),
    ("bad card", b'{"type":"drew","seq":6,"player":0,"card":"XH"}', "card",
     "field card: not a card: 'XH' (expected rank A 2-10 J Q K and suit S H D C, or JK)"),
    ("bad card in a list", b'{"type":"melded","seq":6,"player":0,"meld":0,"cards":["3H","1H"]}',
     "cards", "field cards: not a card: '1H'"),
    ("no type", b'{"seq":6,"player":0,"card":"7S"}', "type", "field type: missing"),
    ("bad prev", b'{"type":"drew","seq":6,"prev":"abc","player":0,"card":"7S"}', "prev",
     "field prev: Expected `str` of length >= 64"),
]


@pytest.mark.parametrize(("kind", "line", "field", "message"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_line_names_its_field_and_seq(
    kind: str, line: bytes, field: str, message: str
) -> None:
    with pytest.raises(EventFormatError) as exc:
        decode_event(line)
    assert exc.value.field == field
    assert exc.value.seq == 6
    assert str(exc.value).startswith(message)
    with pytest.raises(LogError) as err:
        list(decode_lines([GOOD.replace(b'"seq":6', b'"seq":0')] * 6 + [line], "game.jsonl"))
    assert str(err.value).startswith(f"game.jsonl: line 7 (seq 6): {message}")
    assert "\n" not in str(err.value)
    assert (err.value.lineno, err.value.seq, err.value.field) == (7, 6, field)


UNREADABLE = [
    ("not JSON", b'{"type":"drew","seq":6,', "not JSON: Input data was truncated"),
    ("trailing junk", GOOD + b" x", "not JSON: JSON is malformed: trailing characters"),
    ("not an object", b'["drew", 6]', "an event must be a JSON object"),
    ("bad UTF-8", b'{"type":"note","seq":6,"by":"r\xe9f","text":"x"}', "not UTF-8: byte 0xe9 at column 31"),
    ("blank", b"", "blank line (every line holds one event)"),
    ("spaces", b"   ", "blank line (every line holds one event)"),
]


@pytest.mark.parametrize(("kind", "line", "message"), UNREADABLE, ids=[u[0] for u in UNREADABLE])
def test_unreadable_line_gives_one_clear_line(kind: str, line: bytes, message: str) -> None:
    with pytest.raises(EventFormatError):
        decode_event(line)
    with pytest.raises(LogError) as err:
        list(decode_lines([GOOD, line], "game.jsonl"))
    assert str(err.value).startswith(f"game.jsonl: line 2: {message}")
    assert "\n" not in str(err.value)


def test_byte_order_mark_is_named() -> None:
    with pytest.raises(LogError, match="line 1: starts with a byte order mark"):
        list(decode_lines([b"\xef\xbb\xbf" + GOOD], "game.jsonl"))
