"""The int-coded candidate generator (`hand_melds.candidate_melds`) gives exactly the list of the
plain string-coded one (`tests/reference_melds.py`): same candidates, same order."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_melds import candidate_melds as reference_candidate_melds

from buraco_events.core.cards import make_deck
from buraco_events.core.hand_melds import candidate_melds
from buraco_events.core.melds import classify
from buraco_events.model.rules import PRESETS, find_rules

DECK = make_deck(4)
RULES = [find_rules(v) for v in PRESETS]


@st.composite
def hands(draw: st.DrawFn) -> Counter[str]:
    """A hand of 0-22 cards from the double deck (two copies of a card at most, jokers too)."""
    picks = draw(st.lists(st.integers(0, len(DECK) - 1), max_size=22, unique=True))
    return Counter(DECK[i] for i in picks)


@st.composite
def suited_hands(draw: st.DrawFn) -> Counter[str]:
    """A hand crowded into one or two suits with wilds: long runs, holes, both aces, own 2s."""
    suits = draw(st.sampled_from(["S", "H", "SH", "DC"]))
    pool = [c for c in DECK if c[-1] in suits or c == "JK" or c.startswith("2")]
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=2, max_size=24, unique=True))
    return Counter(pool[i] for i in picks)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(hands(), st.sampled_from(RULES))
def test_int_generator_equals_the_reference_on_random_hands(hand: Counter[str], rules: object) -> None:
    assert candidate_melds(hand, rules) == reference_candidate_melds(hand, rules)  # type: ignore[arg-type]


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(suited_hands(), st.sampled_from(RULES))
def test_int_generator_equals_the_reference_on_crowded_suits(hand: Counter[str], rules: object) -> None:
    assert candidate_melds(hand, rules) == reference_candidate_melds(hand, rules)  # type: ignore[arg-type]


def test_every_candidate_is_a_legal_meld_without_the_classify_filter() -> None:
    # RULES 3.1/3.4: A-2-3 with the own 2 natural, Q-K-A with the ace high, a hole filled by the
    # joker or by a second copy of the own-suit 2; both aces only where ace_to_ace is on
    hand = Counter("AS 2S 2S 3S 5S QS KS JK 7H 7D 7C".split())
    for rules in RULES:
        got = candidate_melds(hand, rules)
        assert got == reference_candidate_melds(hand, rules)
        assert all(classify(c, rules) is not None for c in got)
        assert ("2S", "3S", "AS") in got and ("AS", "KS", "QS") in got
        assert ("2S", "2S", "3S", "5S") in got  # 2S natural at 2, the other 2S in the hole at 4
        assert (("7C", "7D", "7H") in got) == rules.sets
