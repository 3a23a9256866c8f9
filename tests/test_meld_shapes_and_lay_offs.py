"""The bitmask run shape, the per-meld fits cache and the lay-off generator give exactly what the
code they replaced gave (`tests/reference_melds.py`): same shapes, same lay-offs, same order."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_melds import classify as reference_classify
from reference_melds import shape_lay_offs as reference_shape_lay_offs

from buraco_events.core.cards import RANK, RUN_CARDS, make_deck, parse_cards
from buraco_events.core.fits import (
    MeldFits,
    _run_relevant,
    fits_alone,
    may_lay_off,
    meld_fits,
    shape_lay_offs,
)
from buraco_events.core.melds import caches_for, classify
from buraco_events.model.rules import PRESETS, Rules, find_rules

DECK = make_deck(4)
RULES = [find_rules(v) for v in PRESETS]
STBL = find_rules("stbl")
FECHADO = find_rules("fechado")


@st.composite
def suited_cards(draw: st.DrawFn, low: int = 0, high: int = 16) -> list[str]:
    """Cards crowded into one or two suits with wilds: runs, holes, both aces, own 2s, sets."""
    suits = draw(st.sampled_from(["S", "H", "SH", "DC"]))
    pool = [c for c in DECK if c[-1] in suits or c == "JK" or c.startswith("2")]
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=low, max_size=high, unique=True))
    return [pool[i] for i in picks]


@st.composite
def meld_and_hand(draw: st.DrawFn) -> tuple[tuple[str, ...], tuple[str, ...], Rules]:
    """A legal meld (the canonical arrangement classify gives) and a sorted hand beside it."""
    rules = draw(st.sampled_from(RULES))
    cards = draw(suited_cards(3, 14))
    shape = reference_classify(cards, rules)
    if shape is None:  # most random draws are no meld: fall back on a run or a set that is one
        start = draw(st.integers(1, 9))
        suit = draw(st.sampled_from("SHDC"))
        shape = reference_classify(
            [("A" if r == 14 else {11: "J", 12: "Q", 13: "K"}.get(r, str(r))) + suit
             for r in range(start + 2, start + 5)] + draw(st.sampled_from([[], ["JK"], ["2D"]])),
            rules,
        )
    assert shape is not None
    held = tuple(sorted(draw(suited_cards(0, 14))))
    return shape.cards, held, rules


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(suited_cards(0, 15), st.sampled_from(RULES))
def test_classify_equals_the_reference(cards: list[str], rules: Rules) -> None:
    assert classify(cards, rules) == reference_classify(cards, rules)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(DECK), min_size=3, max_size=9), st.sampled_from(RULES))
def test_classify_equals_the_reference_on_any_cards(cards: list[str], rules: Rules) -> None:
    assert classify(cards, rules) == reference_classify(cards, rules)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(meld_and_hand())
def test_shape_lay_offs_equal_the_reference(case: tuple[tuple[str, ...], tuple[str, ...], Rules]) -> None:
    meld, held, rules = case
    shape = classify(meld, rules)
    assert shape is not None
    assert shape_lay_offs(held, meld, shape, rules) == reference_shape_lay_offs(held, meld, shape, rules)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(meld_and_hand())
def test_grown_is_the_classify_of_the_meld_and_the_cards(case: tuple[tuple[str, ...], tuple[str, ...], Rules]) -> None:
    # asked twice: the second answer comes from the meld's kept entry
    meld, held, rules = case
    entry = meld_fits(meld, rules)
    for _ in range(2):
        for n in range(1, min(len(held), 3) + 1):
            cards = held[:n]
            assert entry.grown(cards) == reference_classify((*meld, *cards), rules)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(meld_and_hand(), st.randoms(use_true_random=False))
def test_grown_in_any_order_is_the_engine_classify(
    case: tuple[tuple[str, ...], tuple[str, ...], Rules], rng: random.Random
) -> None:
    # RULES 3.4: the engine's lay-off check asks `grown` with the lay-off's cards in the order
    # the event gives them; the answer is `classify` of the meld and the cards, as the check
    # asked before (legal or not, of the meld's type or not), whatever the order
    meld, held, rules = case
    entry = meld_fits(meld, rules)
    for _ in range(3):
        cards = list(held[:rng.randint(1, 4)]) if held else [rng.choice(DECK)]
        rng.shuffle(cards)
        assert entry.grown(tuple(cards)) == classify(meld + tuple(cards), rules)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(meld_and_hand())
def test_meld_fits_shape_and_relevant_cards_are_as_before(case: tuple[tuple[str, ...], tuple[str, ...], Rules]) -> None:
    # the entry classifies the cards it sorted once, and keeps a run's relevant cards per suit
    # and ranks held (`_run_relevant`): both as computed before
    meld, _, rules = case
    entry = MeldFits(meld, caches_for(rules))
    shape = classify(meld, rules)
    assert entry.shape == shape and entry.sorted == tuple(sorted(meld))
    assert shape is not None
    if shape.type == "run":
        suit = shape.suit or ""
        assert entry.relevant == RUN_CARDS[suit].difference([c for c in meld if RANK[c] >= 3])
        assert _run_relevant(suit, meld) is _run_relevant(suit, tuple(reversed(meld)))


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(meld_and_hand())
def test_shape_lay_offs_equal_the_reference_asked_again(case: tuple[tuple[str, ...], tuple[str, ...], Rules]) -> None:
    # the same meld with hands that differ: its kept lay-offs and joins answer, not recomputed
    meld, held, rules = case
    shape = classify(meld, rules)
    assert shape is not None
    for hand in (held, held[1:], held[:-1], held):
        assert shape_lay_offs(hand, meld, shape, rules) == reference_shape_lay_offs(hand, meld, shape, rules)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(meld_and_hand())
def test_may_lay_off_keeps_every_card_of_a_lay_off(case: tuple[tuple[str, ...], tuple[str, ...], Rules]) -> None:
    meld, held, rules = case
    shape = classify(meld, rules)
    assert shape is not None
    for lay_off in reference_shape_lay_offs(held, meld, shape, rules):
        assert all(may_lay_off(meld, c, rules) for c in lay_off)


def test_may_lay_off_leaves_out_other_suits_and_the_ranks_held() -> None:
    # RULES 3.1: a 5-6-7 of hearts takes no spade and no second 6H; a joker or 8H may join
    run = classify(parse_cards("5H 6H 7H"), STBL)
    assert run is not None
    assert may_lay_off(run.cards, "8H", STBL) and may_lay_off(run.cards, "JK", STBL)
    assert not may_lay_off(run.cards, "8S", STBL) and not may_lay_off(run.cards, "6H", STBL)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(meld_and_hand())
def test_fits_alone_is_every_card_that_classifies(case: tuple[tuple[str, ...], tuple[str, ...], Rules]) -> None:
    meld, _held, rules = case
    for c in sorted(set(DECK)):
        assert fits_alone(meld, c, rules) == (reference_classify((*meld, c), rules) is not None)


def test_fits_alone_on_a_clean_run_and_a_set() -> None:
    # RULES 3.1: a clean run takes a natural at either end or one wild; RULES 3.2: a set its rank
    # or one wild (a 2 of the run's suit is a wild here too: 5H 6H 7H 2H is 5-6-7 plus a wild)
    run = classify(parse_cards("5H 6H 7H"), STBL)
    assert run is not None
    assert {c for c in DECK if fits_alone(run.cards, c, STBL)} == {"4H", "8H", "JK", "2H", "2S", "2D", "2C"}
    seven_set = classify(parse_cards("7S 7H 7D"), FECHADO)
    assert seven_set is not None
    want = {"7S", "7H", "7D", "7C", "JK", "2H", "2S", "2D", "2C"}
    assert {c for c in DECK if fits_alone(seven_set.cards, c, FECHADO)} == want
    assert not any(fits_alone(("5H", "9S", "KD"), c, STBL) for c in DECK)  # no meld: nothing joins


def test_shape_lay_offs_of_a_hand_with_a_stretch_and_a_wild() -> None:
    # a clean 5-6-7 of hearts: 4H and 8H alone, 8H-9H on top, the joker alone or in a stretch
    run = classify(parse_cards("5H 6H 7H"), STBL)
    assert run is not None
    held = tuple(sorted(parse_cards("4H 8H 9H JK KS")))
    got = shape_lay_offs(held, run.cards, run, STBL)
    assert got == reference_shape_lay_offs(held, run.cards, run, STBL)
    assert ("8H", "9H") in got and ("4H",) in got and ("JK",) in got and ("8H", "9H", "JK") in got
    assert all(classify((*run.cards, *a), STBL) is not None for a in got)
    assert Counter(len(a) for a in got)[1] == 3  # 4H, 8H, JK


def test_caches_follow_the_rules_object_in_use() -> None:
    # RULES 3.1: both aces make a run only with ace_to_ace; the caches are per rules (equal rules
    # objects share them), so alternating rules never answers from the other rules' cache
    both_aces = parse_cards("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS")
    stbl_again = find_rules("stbl")
    sujo = find_rules("aberto-sujo")  # no ace_to_ace
    assert stbl_again is not STBL or stbl_again == STBL
    for _ in range(2):
        assert classify(both_aces, STBL) is not None
        assert classify(both_aces, sujo) is None
        assert classify(both_aces, stbl_again) is not None
        run = classify(parse_cards("5H 6H 7H"), sujo)
        assert run is not None
        assert fits_alone(run.cards, "8H", sujo) and not fits_alone(run.cards, "8S", STBL)
