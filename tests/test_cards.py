"""Cards: notation round trips, lenient reading, values and deck sizes (RULES 1, 7; log format, Cards)."""

from __future__ import annotations

from collections import Counter

import pytest

from buraco_events.core.cards import (
    ALL_CARDS,
    JOKER,
    CardError,
    card_value,
    is_wild_card,
    make_deck,
    parse_card,
    parse_cards,
    sorted_cards,
)
from buraco_events.model.rules import PRESETS, find_rules


@pytest.mark.parametrize("card", ALL_CARDS)
def test_a_canonical_card_parses_to_itself(card: str) -> None:
    # log format, Cards: logs write exactly the canonical form, so a card is its own notation and
    # parsing it is the identity for all 53 kinds (no separate printer to keep in step)
    assert parse_card(card) == card
    assert parse_card(card.lower()) == card


def test_all_cards_are_52_plus_joker() -> None:
    # RULES 1: 4 suits x 13 ranks, plus the joker
    assert len(ALL_CARDS) == 53
    assert len(set(ALL_CARDS)) == 53
    assert ALL_CARDS[-1] == JOKER


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("10h", "10H"), ("as", "AS"), ("jk", "JK"), ("qd", "QD"),  # lower case
        ("TH", "10H"), ("tc", "10C"),  # T for 10
        ("A♠", "AS"), ("10♥", "10H"), ("K♦", "KD"), ("2♣", "2C"),  # suit symbols
        ("q♥", "QH"), ("T♠", "10S"),  # symbols combined with lenient ranks
        (" 7D ", "7D"),  # surrounding blanks
    ],
)
def test_lenient_forms(text: str, card: str) -> None:
    # log format, Cards: readers accept lower case, T for 10 and the suit symbols
    assert parse_card(text) == card


@pytest.mark.parametrize("text", ["", "1H", "11H", "AX", "10", "H", "ZZ", "KK", "0S", "10HH", "JKR"])
def test_unknown_cards_rejected_with_clear_message(text: str) -> None:
    # log format, Cards: anything else is rejected with a clear error naming the input
    with pytest.raises(CardError) as info:
        parse_card(text)
    msg = str(info.value)
    assert repr(text) in msg
    assert "not a card" in msg
    assert "\n" not in msg


def test_card_error_is_a_value_error() -> None:
    # callers that catch ValueError (the CLI) also catch bad cards
    with pytest.raises(ValueError):
        parse_card("XX")


def test_parse_cards_from_string_and_list() -> None:
    assert parse_cards("AS, 10h  JK,2c") == ("AS", "10H", "JK", "2C")
    assert parse_cards(["th", "K♦"]) == ("10H", "KD")
    with pytest.raises(CardError, match="'1S'"):
        parse_cards("AS 1S")


@pytest.mark.parametrize(
    ("card", "value"),
    [
        ("3S", 5), ("5H", 5), ("7D", 5),  # RULES 7: 3-7 = 5
        ("8C", 10), ("10S", 10), ("JH", 10), ("QD", 10), ("KC", 10),  # 8-K = 10
        ("AS", 15), ("AH", 15),  # A = 15
    ],
)
def test_fixed_values(card: str, value: int) -> None:
    # RULES 7: these values do not depend on the variant
    for rules in PRESETS.values():
        assert card_value(card, rules.two_value, rules.joker_value) == value


@pytest.mark.parametrize(
    ("variant", "two", "joker"),
    [
        # RULES 9 row two_value / joker_value
        ("stbl", 10, 20), ("stbl-pl", 10, 50), ("aberto-sujo", 20, 30),
        ("fechado", 10, 20), ("fechado-sujo", 10, 20), ("burraco", 20, 30),
    ],
)
def test_two_and_joker_values_per_preset(variant: str, two: int, joker: int) -> None:
    rules = find_rules(variant)
    for suit in "SHDC":
        assert card_value("2" + suit, rules.two_value, rules.joker_value) == two
    assert card_value(JOKER, rules.two_value, rules.joker_value) == joker


def test_aberto_two_value_and_no_jokers() -> None:
    # RULES 9: aberto plays without jokers ("-" joker value), 2 = 10
    rules = find_rules("aberto")
    assert card_value("2H", rules.two_value, rules.joker_value) == 10
    assert JOKER not in make_deck(rules.jokers)


def test_wild_cards() -> None:
    # RULES terms: a wild is a joker or a 2
    assert is_wild_card(JOKER)
    assert all(is_wild_card("2" + s) for s in "SHDC")
    assert not any(is_wild_card(c) for c in ALL_CARDS if c != JOKER and not c.startswith("2"))


@pytest.mark.parametrize(("jokers", "size"), [(4, 108), (0, 104)])
def test_deck_sizes(jokers: int, size: int) -> None:
    # RULES 1: two 52-card decks plus 4 jokers = 108, or 104 without jokers; two copies of each
    deck = make_deck(jokers)
    assert len(deck) == size
    counts = Counter(deck)
    assert all(counts[c] == 2 for c in ALL_CARDS if c != JOKER)
    assert counts[JOKER] == jokers


@pytest.mark.parametrize(
    ("variant", "n_players", "stock"),
    [
        # RULES 1: 108 - 11 n - 22 (- 1 upcard); 104 cards without jokers
        ("stbl", 4, 42), ("stbl", 2, 64),  # 108-44-22 = 42, 108-22-22 = 64
        ("burraco", 4, 41), ("burraco", 2, 63),  # with upcard
        ("aberto", 4, 38), ("aberto", 2, 60),  # 104 cards
    ],
)
def test_stock_sizes(variant: str, n_players: int, stock: int) -> None:
    rules = find_rules(variant)
    assert rules.stock_size(n_players) == stock
    assert rules.deck_size == (104 if variant == "aberto" else 108)


def test_sorted_cards_suit_then_rank_jokers_last() -> None:
    assert sorted_cards(["JK", "KH", "AS", "10S", "2H", "3C"]) == ["AS", "10S", "2H", "KH", "3C", "JK"]
