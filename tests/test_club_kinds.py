"""The club and tournament canasta kinds (RULES 3.5), on concrete melds at each kind's edges.

Each kind exists only where its bonus is set; the highest kind alone scores; a kind that is off
scores as the next kind down; `royal_in_one_turn` holds the dirty royal kinds as the clean ones.
"""

from __future__ import annotations

from typing import Any

import pytest

from buraco_events.core.cards import parse_cards
from buraco_events.core.melds import MeldShape, canasta_bonus, canasta_kind, classify
from buraco_events.core.sheets import score_team
from buraco_events.model.rules import Rules, find_rules
from buraco_events.model.terms import KIND_WORDS, CanastaKind

#: every club kind on, with bonuses that tell them apart
CLUB: dict[str, Any] = {"bonus_semiclean": 150, "bonus_super": 1000, "bonus_super_dirty": 500,
                        "bonus_royal_dirty": 300, "bonus_ace_to_ace_dirty": 600}
RUNS = find_rules("stbl", **CLUB)  # runs only, ace_to_ace, wild high
SETS = find_rules("fechado", **CLUB)  # runs and sets, ace_to_ace
RUNS_OFF = find_rules("stbl")
SETS_OFF = find_rules("fechado")
SPADES_A_K = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"


def shape(text: str, rules: Rules) -> MeldShape:
    found = classify(parse_cards(text), rules)
    assert found is not None, text
    return found


def kind(text: str, rules: Rules, one_turn: bool = True) -> CanastaKind | None:
    return canasta_kind(shape(text, rules), rules, one_turn)


@pytest.mark.parametrize(("text", "want"), [
    # semi-clean: the wild at an end of a run leaves 7 naturals in sequence
    ("3H 4H 5H 6H 7H 8H 9H JK", "semiclean"),  # RULES 3.5's own example, the joker high
    ("JK 4H 5H 6H 7H 8H 9H 10H", "semiclean"),  # the wild low (it stands for the 3)
    ("4H 5H 6H 7H 8H 9H 10H 2H", "semiclean"),  # the suit's own 2 as the wild, at the high end
    ("3H 4H JK 6H 7H 8H 9H 10H", "dirty"),  # the wild inside: taken out, the run has a hole
    ("3H 4H 5H 6H 7H 8H JK", "dirty"),  # 6 naturals and a wild at the end: 7 cards, not semi-clean
    ("2H 3H 4H 2H 6H 7H 8H 9H", "dirty"),  # a natural 2 at the low end, the wild 2 inside
    ("3H 4H 5H 6H 7H 8H 9H", "clean"),  # no wild: clean stays clean
])
def test_semiclean_runs_at_their_edges(text: str, want: str) -> None:
    assert kind(text, RUNS) == want


@pytest.mark.parametrize(("text", "want"), [
    ("7H 7D 7S 7C 7H 7D 7S 2C", "semiclean"),  # RULES 3.5's example: 7 naturals and a wild
    ("7H 7D 7S 7C 7H 7D 2C", "dirty"),  # 6 naturals and a wild
    ("7H 7D 7S 7C 7H 7D 7S 7C", "super"),  # all 8 naturals, no wild
    ("7H 7D 7S 7C 7H 7D 7S 7C JK", "super_dirty"),  # all 8 naturals and a wild
    ("7H 7D 7S 7C 7H 7D 7S", "clean"),  # 7 naturals: clean, not super
])
def test_sets_at_their_edges(text: str, want: str) -> None:
    assert kind(text, SETS) == want


@pytest.mark.parametrize(("text", "want"), [
    ("AC 2C 3C 4C 5C JK 7C 8C 9C 10C JC QC KC", "royal_dirty"),  # RULES 3.5's example, 13 cards
    ("2C 3C 4C 5C JK 7C 8C 9C 10C JC QC KC AC", "royal_dirty"),  # 2..K-A with a wild inside
    ("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH 2S", "ace_to_ace_dirty"),  # 14: 2S for the high ace
    ("AH 2H 3H 4H 5H JK 7H 8H 9H 10H JH QH KH AH", "ace_to_ace_dirty"),  # 14: JK for the 6
    ("2C 3C 4C 5C JK 7C 8C 9C 10C JC QC KC", "dirty"),  # 12 cards, the wild inside: no kind
    (SPADES_A_K, "royal"),  # clean royal above the dirty kinds
])
def test_dirty_royal_kinds_of_13_and_14_cards(text: str, want: str) -> None:
    assert kind(text, RUNS) == want


def test_a_dirty_ace_to_ace_needs_ace_to_ace() -> None:
    # without ace_to_ace, A..K and a wild for the other ace is legal (RULES 3.1) but would not be
    # an ace-to-ace: the wild at an end leaves 13 naturals, so it is semi-clean
    rules = find_rules("stbl", ace_to_ace=False, **CLUB)
    assert kind("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH 2S", rules) == "semiclean"


@pytest.mark.parametrize(("text", "off", "want"), [
    # a kind that is off does not exist: the meld scores as the next kind down
    ("AC 2C 3C 4C 5C JK 7C 8C 9C 10C JC QC KC", "bonus_royal_dirty", "dirty"),  # wild inside
    ("JK 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC", "bonus_royal_dirty", "semiclean"),  # wild at the end
    ("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH 2S", "bonus_ace_to_ace_dirty", "semiclean"),
    ("AH 2H 3H 4H 5H JK 7H 8H 9H 10H JH QH KH AH", "bonus_ace_to_ace_dirty", "dirty"),
    ("7H 7D 7S 7C 7H 7D 7S 7C JK", "bonus_super_dirty", "semiclean"),
    ("7H 7D 7S 7C 7H 7D 7S 7C", "bonus_super", "clean"),
    ("3H 4H 5H 6H 7H 8H 9H JK", "bonus_semiclean", "dirty"),
])
def test_a_kind_that_is_off_scores_as_the_next_kind_down(text: str, off: str, want: str) -> None:
    rules = find_rules("fechado", **(CLUB | {off: 0}))
    assert kind(text, rules) == want


@pytest.mark.parametrize("text", [
    "3H 4H 5H 6H 7H 8H 9H JK", "7H 7D 7S 7C 7H 7D 7S 7C", "7H 7D 7S 7C 7H 7D 7S 7C JK",
    "AC 2C 3C 4C 5C JK 7C 8C 9C 10C JC QC KC", "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH 2S",
])
def test_every_preset_without_the_club_kinds_scores_as_before(text: str) -> None:
    # the club kinds are off in every preset: clean or dirty, as before they existed
    got = kind(text, SETS_OFF)
    assert got in ("clean", "dirty")
    assert canasta_bonus(got, SETS_OFF) == (200 if got == "clean" else 100)


def test_the_highest_kind_alone_scores() -> None:
    # a dirty royal whose wild stands at an end is also semi-clean: only the dirty royal scores
    royal_dirty = shape("JK 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC", RUNS)
    assert canasta_kind(royal_dirty, RUNS) == "royal_dirty"
    # a super dirty set is semi-clean too: only the super dirty scores
    super_dirty = shape("7H 7D 7S 7C 7H 7D 7S 7C JK", SETS)
    sheet = score_team(SETS, 0, [(royal_dirty.cards, "royal_dirty"),
                                 (super_dirty.cards, canasta_kind(super_dirty, SETS))],
                       [], [], closed=False, took_dead=True, dead_unused=False)
    assert sheet.canastas == {"royal_dirty": 1, "super_dirty": 1}
    assert sheet.canasta_bonus == 300 + 500


def test_royal_in_one_turn_holds_the_dirty_royal_kinds() -> None:
    rules = find_rules("stbl-pl", **CLUB)  # royal_in_one_turn
    royal = shape("AC 2C 3C 4C 5C JK 7C 8C 9C 10C JC QC KC", rules)
    a2a = shape("AH 2H 3H 4H 5H JK 7H 8H 9H 10H JH QH KH AH", rules)
    assert canasta_kind(royal, rules, one_turn=True) == "royal_dirty"
    assert canasta_kind(royal, rules, one_turn=False) == "dirty"  # the wild inside: no semi-clean
    assert canasta_kind(a2a, rules, one_turn=True) == "ace_to_ace_dirty"
    assert canasta_kind(a2a, rules, one_turn=False) == "dirty"
    # laid over several turns with the wild at an end: it is still semi-clean
    at_end = shape("JK 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC", rules)
    assert canasta_kind(at_end, rules, one_turn=False) == "semiclean"
    assert canasta_kind(royal, RUNS, one_turn=False) == "royal_dirty"  # stbl does not need it


@pytest.mark.parametrize(("name", "bonus"), [
    ("semiclean", 150), ("super", 1000), ("super_dirty", 500), ("royal_dirty", 300),
    ("ace_to_ace_dirty", 600), ("clean", 200), ("dirty", 100),
])
def test_each_kind_scores_its_own_bonus(name: CanastaKind, bonus: int) -> None:
    assert canasta_bonus(name, SETS) == bonus
    assert canasta_bonus(name, SETS_OFF) == (bonus if name in ("clean", "dirty") else 0)


def test_every_kind_has_its_words() -> None:
    assert KIND_WORDS["semiclean"] == "semi-clean canasta"
    assert all(words.endswith("canasta") for words in KIND_WORDS.values())
