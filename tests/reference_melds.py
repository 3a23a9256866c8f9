"""The reference (string-coded) candidate generator melds.py used before its int coding: the
oracle of the property tests that the int-coded `melds.candidate_melds` gives the same list."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from functools import lru_cache

from buraco_events.cards import ALL_CARDS, JOKER, RANK, SUIT, Card, sort_key
from buraco_events.melds import _classify_sorted, _pos_card
from buraco_events.rules import Rules

#: `cards.sort_key` as a table
_SORT_KEY = {c: sort_key(c) for c in ALL_CARDS}


def _wild_kinds(hand: Mapping[Card, int]) -> list[Card]:
    return sorted((c for c, n in hand.items() if n > 0 and RANK[c] in (0, 2)), key=_SORT_KEY.__getitem__)


def candidate_melds(hand: Counter[Card], rules: Rules) -> list[tuple[Card, ...]]:
    """Return every candidate new meld from a hand, each a sorted card tuple.

    Runs: every interval of positions of one suit held in full, or missing one position filled
    by one of the distinct wild cards held. Sets (where on): all the naturals of a rank held, and
    the same plus each distinct wild held. Each candidate is a legal meld.
    """
    wilds = tuple(_wild_kinds(hand))
    wild_counts = tuple(hand[w] for w in wilds)
    out: set[tuple[Card, ...]] = set()
    per_suit: dict[str, list[int]] = {}
    for c, n in hand.items():
        if n > 0 and c != JOKER:
            counts = per_suit.get(SUIT[c])
            if counts is None:
                counts = per_suit[SUIT[c]] = [0] * 13
            counts[RANK[c] - 1] += n
    for suit, counts in per_suit.items():
        if sum(counts) >= 2:  # RULES 3.1: a run needs two natural cards
            out.update(_suit_runs(suit, tuple(counts), wilds, wild_counts, rules))
    if rules.sets:
        by_rank: dict[int, list[Card]] = {}
        for c, n in hand.items():
            if n > 0 and RANK[c] not in (0, 2):
                by_rank.setdefault(RANK[c], []).extend([c] * n)
        sets: list[tuple[Card, ...]] = []
        for cards in by_rank.values():
            if len(cards) >= 3:
                sets.append(tuple(sorted(cards)))
            if len(cards) >= 2:
                sets.extend(tuple(sorted(cards + [w])) for w in wilds)
        out.update(c for c in sets if _classify_sorted(c, rules) is not None)
    return sorted(out)


@lru_cache(maxsize=1 << 16)
def _suit_runs(
    suit: str, counts: tuple[int, ...], wilds: tuple[Card, ...], wild_counts: tuple[int, ...],
    rules: Rules,
) -> tuple[tuple[Card, ...], ...]:
    """Return the candidate runs of one suit that form a meld, given how many of each rank are held."""
    out: set[tuple[Card, ...]] = set()
    have = [False, *(n > 0 for n in counts), counts[0] > 0]
    two_aces = counts[0] >= 2
    for lo in range(1, 13):
        if not have[lo] and not (wilds and have[lo + 1]):
            continue  # an interval may open on a wild only when the next card is held
        missing: list[int] = []
        for hi in range(lo, 15):
            if not have[hi]:
                missing.append(hi)
                if len(missing) > 1:
                    break
            if hi - lo < 2:
                continue
            if lo == 1 and hi == 14 and not (two_aces and rules.ace_to_ace):
                continue
            naturals = [_pos_card(p, suit) for p in range(lo, hi + 1) if p not in missing]
            if not missing:
                out.add(tuple(sorted(naturals)))
                continue
            if len(naturals) < 2:
                continue
            for w, n in zip(wilds, wild_counts, strict=True):
                if n > naturals.count(w):  # an own-suit 2 may be natural and wild only if held twice
                    out.add(tuple(sorted(naturals + [w])))
    return tuple(c for c in out if _classify_sorted(c, rules) is not None)
