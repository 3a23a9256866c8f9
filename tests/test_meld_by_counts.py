"""The meld tally (`melds._Tally`): whether cards form a meld, as arithmetic on their counts,
equals `classify(cards) is not None` (the oracle), on random cards and on melds grown by cards."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from buraco_events.core.cards import SUIT_RANK, make_deck
from buraco_events.core.fits import meld_fits
from buraco_events.core.melds import canasta_kind, classify, meld_wild, size_kind, tally
from buraco_events.model.rules import PRESETS, Rules, find_rules

DECK = make_deck(4)
RULES = [find_rules(v) for v in PRESETS]


@st.composite
def crowded_cards(draw: st.DrawFn) -> list[str]:
    """0-16 cards crowded into few suits with wilds, a card repeated at times (any multiset)."""
    suits = draw(st.sampled_from(["S", "H", "SH", "DC", "SHDC"]))
    pool = [c for c in DECK if c[-1] in suits or c == "JK" or c.startswith("2")]
    picks = draw(st.lists(st.integers(0, len(pool) - 1), max_size=16, unique=True))
    cards = [pool[i] for i in picks]
    return cards + draw(st.lists(st.sampled_from(cards), max_size=2)) if cards else cards


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(crowded_cards(), st.sampled_from(RULES))
def test_tally_ok_is_classify_on_any_cards(cards: list[str], rules: Rules) -> None:
    assert tally(cards).ok(rules) == (classify(cards, rules) is not None)


def test_tally_ok_is_classify_on_runs_and_sets_with_cards_added() -> None:
    # seeded: a meld (a run of one suit with wilds, or a set) plus up to three cards, so that many
    # cases are melds; the tally grown by copies equals classify of all the cards
    rng = random.Random(20240611)
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    wilds = ["JK", "2S", "2H", "2D", "2C"]
    melds = 0
    for _ in range(6000):
        rules = rng.choice(RULES)
        suit = rng.choice("SHDC")
        if rng.random() < 0.7:  # a stretch of run positions 1..14, a card left out at times
            lo = rng.randint(0, 11)
            base = [r + suit for r in ranks[lo:lo + rng.randint(2, 9)]]
            if rng.random() < 0.5:
                base.pop(rng.randrange(len(base)))
            pool = [c for c in DECK if c[-1] == suit] + wilds
        else:  # naturals of one rank
            rank = rng.choice(["A", "3", "7", "K"])
            base = [rank + rng.choice("SHDC") for _ in range(rng.randint(1, 4))]
            pool = [rank + s for s in "SHDC"] + wilds
        base += [rng.choice(wilds) for _ in range(rng.choice([0, 0, 1, 2]))]
        added = [rng.choice(pool if rng.random() < 0.8 else DECK) for _ in range(rng.randint(0, 3))]
        t = tally(base).copy()
        for c in added:
            t.add(c)
        want = classify([*base, *added], rules) is not None
        melds += want
        assert t.ok(rules) == want, (base, added, rules)
        assert tally(base).ok(rules) == (classify(base, rules) is not None)
    assert melds > 1000  # the cases reach legal melds often, not only refusals


def test_meld_fits_answers_as_classify_for_every_card() -> None:
    rng = random.Random(7)
    for _ in range(300):
        rules = rng.choice(RULES)
        suit = rng.choice("SHDC")
        pool = [c for c in DECK if c[-1] == suit or c == "JK" or c.startswith("2")]
        shape = classify(rng.sample(pool, rng.randint(3, 8)), rules)
        if shape is None:
            continue
        entry = meld_fits(shape.cards, rules)
        for c in sorted(set(DECK)):
            assert entry.fit(c) == (classify((*shape.cards, c), rules) is not None)


def expected_wild(cards: list[str], rules: Rules) -> int:
    shape = classify(cards, rules)
    return -2 if shape is None else -1 if shape.wild is None else SUIT_RANK[shape.wild]


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(crowded_cards(), st.sampled_from(RULES))
def test_wild_code_is_the_wild_of_classify_on_any_cards(cards: list[str], rules: Rules) -> None:
    assert meld_wild(tuple(cards), rules) == expected_wild(cards, rules)


def test_wild_code_of_melds_grown_by_cards_is_the_wild_of_classify() -> None:
    # seeded: a run (its suit's 2 and wilds thrown in) or a set, grown by up to three cards
    rng = random.Random(20250103)
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    wilds = ["JK", "2S", "2H", "2D", "2C"]
    melds = 0
    for _ in range(8000):
        rules = rng.choice(RULES)
        suit = rng.choice("SHDC")
        if rng.random() < 0.7:
            lo = rng.randint(0, 12)
            base = [r + suit for r in ranks[lo:lo + rng.randint(2, 14)]]
            if rng.random() < 0.5 and len(base) > 2:
                base.pop(rng.randrange(len(base)))
            pool = [c for c in DECK if c[-1] == suit] + wilds
        else:
            rank = rng.choice(["A", "3", "7", "K"])
            base = [rank + rng.choice("SHDC") for _ in range(rng.randint(1, 8))]
            pool = [rank + s for s in "SHDC"] + wilds
        base += [rng.choice(wilds) for _ in range(rng.choice([0, 0, 1, 2]))]
        shape = classify(base, rules)
        if shape is None:
            continue
        melds += 1
        added = tuple(rng.choice(pool if rng.random() < 0.8 else DECK) for _ in range(rng.randint(1, 3)))
        want = expected_wild([*shape.cards, *added], rules)
        assert meld_fits(shape.cards, rules).grown_wild(added) == want, (shape.cards, added)
        assert meld_wild(shape.cards, rules) == expected_wild(list(shape.cards), rules)
    assert melds > 3000


def test_size_kind_with_the_run_told_by_size_is_canasta_kind() -> None:
    # the greedy bot's canasta kind from a meld's size and cleanness (13 cards or more: a run; a
    # set holds at most the 8 naturals of its rank and a wild), on runs and sets of every size
    rng = random.Random(20250104)
    run = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    kinds = set()
    for _ in range(4000):
        rules = rng.choice(RULES)
        suit = rng.choice("SHDC")
        if rng.random() < 0.7:
            lo = rng.randint(0, 7)
            cards = [r + suit for r in run[lo:lo + rng.randint(3, 14)]]
        else:
            rank = rng.choice(["A", "3", "7", "K"])
            cards = [rank + s for s in "SHDC" * 2][: rng.randint(2, 8)]
        shape = classify(cards + rng.choice([[], ["JK"], ["2" + suit]]), rules)
        if shape is None:
            continue
        n = len(shape.cards)
        for one_turn in (False, True):
            want = canasta_kind(shape, rules, one_turn)
            kinds.add(want)
            assert size_kind(n, shape.wild is None, n >= 13, rules, one_turn) == want
    assert {"clean", "dirty", "royal", "ace_to_ace", None} <= kinds
