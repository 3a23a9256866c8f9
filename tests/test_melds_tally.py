"""The meld tally (`melds._Tally`): whether cards form a meld, as arithmetic on their counts,
equals `classify(cards) is not None` (the oracle), on random cards and on melds grown by cards."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from buraco_events.cards import make_deck
from buraco_events.melds import classify, meld_fits, tally
from buraco_events.rules import PRESETS, Rules, find_rules

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
