"""The lay-off gate (`MeldFits.gate`): every lay-off onto a meld holds a card of its gate, so a
hand holding none has none. Checked against the oracles: `classify` of the meld plus one card
(every card that joins alone is in the gate) and the reference lay-offs (`tests/reference_melds.py`)
over many seeded and hypothesis melds and hands, under every preset's rules."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_melds import classify as reference_classify
from reference_melds import shape_lay_offs as reference_shape_lay_offs

from buraco_events.core.cards import ALL_CARDS, make_deck
from buraco_events.core.fits import gate_bit, meld_fits, shape_lay_offs
from buraco_events.core.hand_melds import candidate_melds, hand_melds
from buraco_events.core.melds import classify
from buraco_events.model.rules import PRESETS, Rules, find_rules

DECK = make_deck(4)
RULES = [find_rules(v) for v in PRESETS] + [
    find_rules(v, ace_to_ace=a, wild_goes_low=w, sets=s)
    for v in ("stbl", "fechado") for a in (False, True) for w in (False, True) for s in (False, True)
]
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
WILDS = ["JK", "2S", "2H", "2D", "2C"]


def random_meld(rng: random.Random, rules: Rules) -> tuple[str, ...] | None:
    """A legal meld's canonical cards, or None: a stretch of run positions (a card left out at
    times, the suit's 2 and wilds thrown in) or naturals of one rank with a wild at times."""
    suit = rng.choice("SHDC")
    if rng.random() < 0.75:
        lo = rng.randint(0, 12)
        cards = [r + suit for r in RANKS[lo:lo + rng.randint(2, 14)]]
        if rng.random() < 0.5 and len(cards) > 2:
            cards.pop(rng.randrange(len(cards)))
        if rng.random() < 0.3:
            cards.append("2" + suit)
    else:
        rank = rng.choice(["A", "3", "7", "10", "K"])
        cards = [rank + rng.choice("SHDC") for _ in range(rng.randint(2, 6))]
    cards += [rng.choice(WILDS) for _ in range(rng.choice([0, 0, 1, 1, 2]))]
    shape = classify(cards, rules)
    return None if shape is None else shape.cards


def near_hand(rng: random.Random, meld: tuple[str, ...]) -> tuple[str, ...]:
    """A sorted hand crowded around the meld: its suit's or rank's cards and wilds, some others."""
    suit = meld[0][-1] if meld[0] != "JK" else "S"
    pool = [c for c in DECK if c[-1] == suit or c in WILDS or c[:-1] == meld[0][:-1]]
    n = rng.randint(0, 12)
    return tuple(sorted(rng.choice(pool if rng.random() < 0.8 else DECK) for _ in range(n)))


def check(meld: tuple[str, ...], held: tuple[str, ...], rules: Rules) -> bool:
    """Assert the gate's promise on one meld and hand; return whether the hand misses the gate."""
    shape = reference_classify(meld, rules)
    assert shape is not None
    gate = meld_fits(meld, rules).gate
    want = reference_shape_lay_offs(held, meld, shape, rules)
    assert want == shape_lay_offs(held, meld, shape, rules)
    for lay_off in want:
        assert gate.intersection(lay_off), (meld, lay_off, sorted(gate))
    missed = gate.isdisjoint(held)
    if missed:
        assert want == ()
    # the masks: the gate's, and the hand's as `hand_melds` gives it (a count of 0 is no card)
    entry = meld_fits(meld, rules)
    assert entry.gate_mask == sum({gate_bit(c) for c in gate})
    hand = {c: 0 for c in ("9D", "JK", "2H") if c not in held} | {c: held.count(c) for c in held}
    found, hand_mask = hand_melds(hand, rules)
    assert found == candidate_melds(hand, rules)
    assert hand_mask == sum({gate_bit(c) for c in held})
    assert (entry.gate_mask & hand_mask == 0) == missed
    return missed


@pytest.mark.slow
def test_every_card_that_joins_alone_is_in_the_gate() -> None:
    rng = random.Random(20250101)
    melds = 0
    for _ in range(4000):
        rules = rng.choice(RULES)
        meld = random_meld(rng, rules)
        if meld is None:
            continue
        melds += 1
        gate = meld_fits(meld, rules).gate
        for c in ALL_CARDS:
            if reference_classify((*meld, c), rules) is not None:
                assert c in gate, (meld, c, sorted(gate))
    assert melds > 2000


@pytest.mark.slow
def test_a_hand_that_misses_the_gate_has_no_lay_off() -> None:
    rng = random.Random(20250102)
    missed = found = 0
    for _ in range(30000):
        rules = rng.choice(RULES)
        meld = random_meld(rng, rules)
        if meld is None:
            continue
        held = near_hand(rng, meld)
        if check(meld, held, rules):
            missed += 1
        elif meld_fits(meld, rules).lay_offs_in(held):
            found += 1
    assert missed > 1000 and found > 1000  # both sides of the gate are exercised


@st.composite
def meld_and_hand(draw: st.DrawFn) -> tuple[tuple[str, ...], tuple[str, ...], Rules]:
    rules = draw(st.sampled_from(RULES))
    suits = draw(st.sampled_from(["S", "H", "SH", "DC"]))
    pool = [c for c in DECK if c[-1] in suits or c == "JK" or c.startswith("2")]
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=3, max_size=14, unique=True))
    shape = reference_classify([pool[i] for i in picks], rules)
    if shape is None:
        shape = reference_classify(["5S", "6S", "7S", *draw(st.sampled_from([[], ["JK"], ["2D"], ["2S"]]))], rules)
    assert shape is not None
    held = draw(st.lists(st.sampled_from(pool), max_size=14))
    return shape.cards, tuple(sorted(held)), rules


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(meld_and_hand())
def test_the_gate_on_hypothesis_melds_and_hands(case: tuple[tuple[str, ...], tuple[str, ...], Rules]) -> None:
    check(*case)
