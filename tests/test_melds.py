"""Melds: runs, sets, wild placement, canonical arrangement, canastas and candidates (RULES 3)."""

from __future__ import annotations

from collections import Counter

import msgspec
import pytest

from buraco_events.core import melds
from buraco_events.core.cards import parse_cards
from buraco_events.core.fits import candidate_lay_offs, meld_fits
from buraco_events.core.hand_melds import candidate_melds
from buraco_events.core.melds import (
    CANASTA_SIZE,
    MeldShape,
    caches_for,
    canasta_bonus,
    canasta_kind,
    canonical_rules,
    classify,
    is_closing_canasta,
    is_meld,
)
from buraco_events.core.sheets import cards_value
from buraco_events.model.rules import find_rules

STBL = find_rules("stbl")  # ace_to_ace, no sets, wild high
PL = find_rules("stbl-pl")  # wild_goes_low, royal_in_one_turn
FECHADO = find_rules("fechado")  # sets
SUJO = find_rules("aberto-sujo")  # sets, no ace_to_ace
BURRACO = find_rules("burraco")  # sets, no royal bonus, wild_goes_low

SPADES_A_K = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"


def shape(text: str, rules=STBL) -> MeldShape | None:
    """Classify a space-separated list of cards."""
    return classify(parse_cards(text), rules)


def arranged(text: str, rules=STBL) -> str:
    """Return the canonical arrangement of a legal meld as a string."""
    s = shape(text, rules)
    assert s is not None, f"{text} should be a meld"
    return " ".join(s.cards)


# -- 3.1 runs ------------------------------------------------------------------------------------


def test_ace_low_and_high() -> None:
    # RULES 3.1: the ace is low (A-2-3) or high (Q-K-A); 2S in its own place is natural
    low = shape("3S AS 2S")
    assert low is not None and low.cards == ("AS", "2S", "3S") and low.is_clean
    high = shape("AS KS QS")
    assert high is not None and high.cards == ("QS", "KS", "AS") and (high.low, high.high) == (12, 14)
    assert shape("KS AS 2S 3S") is None  # no wrapping round the ace (K-A-2-3)
    assert arranged("KS AS 2S") == "2S KS AS"  # here 2S can only be the wild, standing for QS


def test_run_needs_consecutive_ranks_of_one_suit() -> None:
    # RULES 3.1
    assert shape("3S 4S 6S") is None
    assert shape("3S 4S 5H") is None
    assert shape("3S 3S 4S") is None
    assert shape("3S 4S") is None  # 3 or more cards


def test_ace_to_ace_on() -> None:
    # RULES 3.1: with ace_to_ace a run holds two natural aces, one at each end (14 cards)
    s = shape(SPADES_A_K + " AS")
    assert s is not None and s.is_clean and len(s) == 14
    assert s.cards[0] == "AS" and s.cards[-1] == "AS"
    assert shape("AS 2S 3S AS") is None  # two aces only at the ends of a full A..A run


def test_ace_to_ace_off() -> None:
    # RULES 3.1: without it a run holds at most one natural ace ...
    assert shape(SPADES_A_K + " AS", SUJO) is None
    # ... but A..K plus a wild standing for the other ace is legal (14 cards, dirty)
    s = shape(SPADES_A_K + " JK", SUJO)
    assert s is not None and len(s) == 14 and s.wild == "JK"
    assert s.cards == parse_cards(SPADES_A_K + " JK")  # the wild stands for the high ace
    # and no 15th card: A..K..A + wild has no free slot
    assert shape(SPADES_A_K + " AS JK", STBL) is None


def test_one_wild_per_meld() -> None:
    # RULES 3.1: at most one wild per meld
    assert shape("3S JK 5S 2H") is None
    assert shape("3S 4S JK JK") is None
    assert shape("5S 6S 2H 2D") is None
    assert shape("5S 6S 7S JK") is not None


def test_natural_two_and_wild_two_in_one_run() -> None:
    # RULES 3.1: a 2 of the suit in its own place is natural, so a run may hold two 2s
    assert arranged("2S 2S 3S 4S") == "2S 3S 4S 2S"
    assert arranged("AS 2S 3S 2H") == "AS 2S 3S 2H"
    assert shape("2S 2S JK") is None  # a natural 2 and two wilds
    assert shape("2S 2S 2S 3S") is None  # at most one 2 natural, one wild


def test_no_meld_of_only_wilds() -> None:
    # RULES 3.1 / 3.2: a meld of only wilds is illegal, sets on or off
    for rules in (STBL, FECHADO):
        assert shape("JK 2H 2S", rules) is None
        assert shape("JK JK JK", rules) is None


def test_run_needs_two_naturals() -> None:
    # RULES 3.1: one natural plus wilds is never a run; a natural own-suit 2 counts as natural
    assert shape("3S JK 2H") is None
    assert arranged("2S JK 4S") == "2S JK 4S"
    assert arranged("2S 3S JK") == "2S 3S JK"


# -- 3.2 sets ------------------------------------------------------------------------------------


def test_sets_on_and_off() -> None:
    # RULES 3.2: sets only where `sets` is on; suits free, at most one wild
    assert shape("5S 5H 5D", STBL) is None
    s = shape("5S 5H 5D", FECHADO)
    assert s is not None and s.type == "set" and s.rank == 5 and s.is_clean
    s = shape("5S 5S JK", FECHADO)
    assert s is not None and s.type == "set" and s.wild == "JK"
    assert shape("5S 5H JK 2C", FECHADO) is None
    assert shape("5S JK 2C", FECHADO) is None


def test_no_set_of_twos() -> None:
    # RULES 3.2: no set of 2s (2s are wild)
    assert shape("2S 2H 2D", FECHADO) is None
    assert shape("2S 2H 2D 2C", FECHADO) is None


def test_set_max_nine() -> None:
    # RULES 3.2: eight natural copies of a rank plus one wild = 9 cards at most
    eight = "QS QS QH QH QD QD QC QC"
    s = shape(eight + " JK", FECHADO)
    assert s is not None and len(s) == 9
    assert shape(eight + " JK 2H", FECHADO) is None


# -- 3.3 / 3.4 wild placement and canonical arrangement -------------------------------------------


def test_rules_example_wild_two_returns_home() -> None:
    # RULES 3.3: 3S 2S 5S + 4S -> 2S 3S 4S 5S, now clean
    before = shape("3S 2S 5S")
    assert before is not None and before.cards == ("3S", "2S", "5S") and before.wild == "2S"
    after = shape("3S 2S 5S 4S")
    assert after is not None and after.cards == ("2S", "3S", "4S", "5S") and after.is_clean


@pytest.mark.parametrize(("rules", "want"), [(STBL, "JS QS KS 2H"), (PL, "2H JS QS KS")])
def test_rules_example_freed_wild_goes_to_an_end(rules, want: str) -> None:
    # RULES 3.3: JS 2H KS + QS -> the wild goes to an open end: high, or low with wild_goes_low
    assert arranged("JS 2H KS", rules) == "JS 2H KS"
    assert arranged("JS 2H KS QS", rules) == want
    assert shape("JS 2H KS QS", rules).wild == "2H"


def test_rules_example_natural_two_becomes_wild() -> None:
    # RULES 3.3: 2H..7H + 9H -> 3H..7H 2H 9H, now dirty
    assert shape("2H 3H 4H 5H 6H 7H").is_clean
    after = shape("2H 3H 4H 5H 6H 7H 9H")
    assert after is not None
    assert " ".join(after.cards) == "3H 4H 5H 6H 7H 2H 9H"
    assert after.wild == "2H"


def test_canonical_prefers_clean_then_natural_two() -> None:
    # RULES 3.4: clean first; else a 2 of the suit natural; a free wild high (low with wild_goes_low)
    assert shape("2S 3S 4S").is_clean
    assert arranged("2S 3S 4S JK") == "2S 3S 4S JK"
    assert arranged("2S 3S 4S JK", PL) == "JK 2S 3S 4S"
    assert arranged("3S 5S 2S") == "3S 2S 5S"  # the 2 must fill the hole


def test_canonical_blocked_end() -> None:
    # RULES 3.4: the free wild goes to the other end when its end is blocked by the ace
    assert arranged("QS KS AS JK") == "JK QS KS AS"
    assert arranged("AS 2S 3S JK", PL) == "AS 2S 3S JK"
    assert arranged("AS 2S 3S JK", STBL) == "AS 2S 3S JK"


def test_set_arrangement_wild_last() -> None:
    assert arranged("JK 9H 9S 9C", FECHADO) == "9S 9H 9C JK"


# -- 3.5 canastas --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rules", "kind", "bonus"),
    [
        (SPADES_A_K + " AS", STBL, "ace_to_ace", 1000),
        (SPADES_A_K, STBL, "royal", 500),
        ("2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", STBL, "royal", 500),  # 2..K-A
        ("3S 4S 5S 6S 7S 8S 9S", STBL, "clean", 200),
        ("3S 4S 5S 6S 7S 8S JK", STBL, "dirty", 100),
        ("3S 4S 5S 6S 7S 8S", STBL, None, 0),  # 6 cards: no canasta
        (SPADES_A_K + " JK", SUJO, "dirty", 100),
        (SPADES_A_K, SUJO, "royal", 500),  # aberto-sujo: royal 500, no ace-to-ace
        (SPADES_A_K, BURRACO, "clean", 200),  # burraco: no royal bonus
        ("QS QS QH QH QD QD QC", FECHADO, "clean", 200),
        ("QS QS QH QH QD QD JK", FECHADO, "dirty", 100),
        ("3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2H", STBL, "dirty", 100),  # 13 cards with a wild
    ],
)
def test_canasta_kinds(text: str, rules, kind: str | None, bonus: int) -> None:
    # RULES 3.5: only the highest kind scores
    s = shape(text, rules)
    assert s is not None
    got = canasta_kind(s, rules)
    assert got == kind
    assert canasta_bonus(got, rules) == bonus


def test_royal_meld_points() -> None:
    # RULES 7: hearts A..K: 15 + 10 (2H) + 5*5 (3-7) + 6*10 (8-K) = 110, + royal 500
    s = shape("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH")
    assert cards_value(s.cards, STBL) == 15 + 10 + 25 + 60 == 110
    assert canasta_bonus(canasta_kind(s, STBL), STBL) == 500


def test_royal_in_one_turn() -> None:
    # RULES 3.5: with royal_in_one_turn the royal and ace-to-ace bonuses need a meld laid in one turn
    royal = shape(SPADES_A_K, PL)
    a2a = shape(SPADES_A_K + " AS", PL)
    assert canasta_kind(royal, PL, one_turn=True) == "royal"
    assert canasta_kind(royal, PL, one_turn=False) == "clean"
    assert canasta_kind(a2a, PL, one_turn=True) == "ace_to_ace"
    assert canasta_kind(a2a, PL, one_turn=False) == "clean"
    assert canasta_kind(royal, STBL, one_turn=False) == "royal"  # stbl does not need it


# -- candidates (perft-style exact lists) --------------------------------------------------------


def hand(text: str) -> Counter[str]:
    """Return a hand multiset."""
    return Counter(parse_cards(text))


def test_candidate_melds_plain_run() -> None:
    # 3S 4S 5S 6S, no wild: intervals held in full of 3+ cards: 3-5, 4-6, 3-6 -> 3
    got = candidate_melds(hand("3S 4S 5S 6S KD"), STBL)
    assert got == [("3S", "4S", "5S"), ("3S", "4S", "5S", "6S"), ("4S", "5S", "6S")]


def test_candidate_melds_with_joker() -> None:
    # 3S 4S 5S JK: full 3-5; with JK filling one missing slot: [2..4] -> 3S 4S JK,
    # [2..5] = [3..6] -> 3S 4S 5S JK, [4..6] -> 4S 5S JK  => 4 candidates
    got = candidate_melds(hand("3S 4S 5S JK"), STBL)
    assert got == [("3S", "4S", "5S"), ("3S", "4S", "5S", "JK"), ("3S", "4S", "JK"), ("4S", "5S", "JK")]


def test_candidate_melds_sets() -> None:
    # fechado, QS QH QD 2C 5H: no run (no two same-suit cards near each other); sets of Q:
    # the three naturals, and the three plus the 2C as wild => 2. Without sets (stbl): none.
    h = hand("QS QH QD 2C 5H")
    assert candidate_melds(h, FECHADO) == [("2C", "QD", "QH", "QS"), ("QD", "QH", "QS")]
    assert candidate_melds(h, STBL) == []


def test_candidate_melds_ace_high_and_wild() -> None:
    # burraco, AS KS QS 2H: Q-K-A full; [J..K] missing J -> 2H QS KS; [J..A] missing J -> +AS => 3
    got = candidate_melds(hand("AS KS QS 2H"), BURRACO)
    assert got == [("2H", "AS", "KS", "QS"), ("2H", "KS", "QS"), ("AS", "KS", "QS")]


def test_candidate_melds_ace_to_ace() -> None:
    # 14 spades A..K..A: the full A..A run is a candidate with ace_to_ace only
    h = hand(SPADES_A_K + " AS")
    full = tuple(sorted(parse_cards(SPADES_A_K + " AS")))
    assert full in candidate_melds(h, STBL)
    assert full not in candidate_melds(h, SUJO)
    assert all(classify(c, SUJO) is not None for c in candidate_melds(h, SUJO))


def test_candidate_lay_offs_run() -> None:
    # meld 5H 6H 7H, hand 3H 4H 8H 9H JK KS:
    # single cards: 4H, 8H, JK (9H or 3H alone leave a hole; KS is off-suit) -> 3
    # high end from 8: 8H 9H, 8H 9H JK (JK at 10); low end from 4: 3H 4H, 3H 4H JK (JK at 2) -> 4
    got = candidate_lay_offs(hand("4H 8H 9H 3H JK KS"), parse_cards("5H 6H 7H"), STBL)
    assert got == [
        ("3H", "4H"), ("3H", "4H", "JK"), ("4H",), ("8H",), ("8H", "9H"), ("8H", "9H", "JK"), ("JK",),
    ]


def test_candidate_lay_offs_dirty_run() -> None:
    # meld 5H JK 7H already holds its wild: 6H (frees the JK to an end) and 8H; the 2C would be
    # a second wild; no run of two naturals at either end -> 2
    got = candidate_lay_offs(hand("6H 8H 2C"), parse_cards("5H JK 7H"), STBL)
    assert got == [("6H",), ("8H",)]


def test_candidate_lay_offs_set() -> None:
    # fechado, set 7S 7H 7D, hand 7C 7C 7S JK 8S: singles 7C, 7S, JK; all sevens together -> 4
    got = candidate_lay_offs(hand("7C 7C 7S JK 8S"), parse_cards("7S 7H 7D"), FECHADO)
    assert got == [("7C",), ("7C", "7C", "7S"), ("7S",), ("JK",)]


@pytest.mark.parametrize("rules", [STBL, PL, FECHADO, SUJO, BURRACO])
def test_every_candidate_is_legal(rules) -> None:
    # each candidate meld is a legal meld, each lay-off keeps the meld legal
    h = hand("AS 2S 3S 4S 5S 7S 9S 9H 9D 9C JK 2H KS QS AH")
    melds = candidate_melds(h, rules)
    assert melds
    for cards in melds:
        assert is_meld(cards, rules), cards
        assert not Counter(cards) - h  # only held cards
    base = parse_cards("6S 7S 8S")
    for add in candidate_lay_offs(h, base, rules):
        assert is_meld(base + add, rules), add


@pytest.mark.parametrize(
    ("size", "clean", "needs_clean", "closes"),
    [
        (6, True, True, False),  # below a canasta: never
        (7, True, True, True),
        (7, False, True, False),  # close_needs_clean: a dirty canasta is not enough
        (7, False, False, True),
        (6, False, False, False),
        (13, True, True, True),
    ],
)
def test_closing_canasta(size: int, clean: bool, needs_clean: bool, closes: bool) -> None:
    # RULES 6: closing needs a canasta (7+ cards, RULES 3.5), a clean one where close_needs_clean
    rules = find_rules("stbl", close_needs_clean=needs_clean)
    assert CANASTA_SIZE == 7
    assert is_closing_canasta(size, clean, rules) is closes


def test_equal_rules_objects_share_one_rules_context() -> None:
    # the answers kept per rules depend on the rules' values: an equal rules object (another
    # object) gets a context of its own that shares the first one's answers and canonical rules
    first = find_rules("stbl", bonus_clean=211)
    other = msgspec.structs.replace(first)
    assert other == first and other is not first
    context = caches_for(first)
    assert caches_for(first) is context  # the same object asks again: the same context
    assert context.rules is first and caches_for(other).rules is other
    assert caches_for(other).classified is context.classified and caches_for(other).fits is context.fits
    assert canonical_rules(other) is canonical_rules(first) is first
    meld = parse_cards("5H 6H 7H")
    assert meld_fits(meld, other) is meld_fits(meld, first)
    assert context.classify_sorted(tuple(sorted(meld))) == classify(meld, other)


def test_the_rules_contexts_are_bounded() -> None:
    # many rules objects (a new one per game, say) never grow the registries past their bound
    for i in range(3 * melds._CACHES_MAX):
        caches_for(find_rules("stbl", bonus_clean=1000 + i))
    assert len(melds._CACHES_BY_ID) <= melds._CACHES_MAX
    assert len(melds._CACHES_BY_VALUE) <= melds._CACHES_MAX
