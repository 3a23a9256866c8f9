"""The closed pile's look-ahead: the candidate plays that hold the top card, and no others.

Taking a closed pile is legal only if its top card can be melded at once (RULES 2), and under
`pile_top_use` = turn_end a play may not leave the due top card unmeldable. The engine's general
generator (`engine._top_plays`) answers both by building every candidate meld and lay-off of the
hand filtered to the top's suit, rank and the wilds, then keeping those that hold the top. For a
natural top (not a 2, not a joker) only three kinds of candidate can hold it, so this module
builds just those:

- runs of the top's suit through the top's position (1 or 14 for an ace),
- the set of the top's rank (all its naturals, or those and one wild),
- lay-offs onto the team's runs of that suit and sets of that rank.

The candidates are exactly those of the general generator that hold the top (the same intervals,
the same wild choices, the same `classify` filter; only the order may differ, and the top laid
off alone, the most common play, comes first as well as in its place), so the engine's check of
each decides as before; the property tests compare both on random tables. A wild top
can stand in any suit or rank: there the engine keeps the general generator.

Pure and mypyc-friendly: plain functions over cards and counts, no I/O, no module state written.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Final

from .cards import RANK, RANKS, SUIT, Card
from .melds import MeldShape, classify, shape_layoffs
from .rules import Rules

#: a candidate play before its check: ("meld", -1, cards) or ("lay_off", meld id, cards)
TopPlay = tuple[str, int, tuple[Card, ...]]

#: the card at each run position 1..14 of each suit (position 14 is the high ace)
_POS_CARD: Final[dict[str, tuple[Card, ...]]] = {
    s: ("",) + tuple(RANKS[(p - 1) % 13] + s for p in range(1, 15)) for s in ("S", "H", "D", "C")
}
#: sort order of the wilds as `melds` lists them (2s by suit S H D C, then the joker); only the
#: order of generation depends on it, never which candidates exist
_WILD_ORDER: Final[dict[Card, int]] = {"2S": 0, "2H": 1, "2D": 2, "2C": 3, "JK": 4}


def is_natural_top(card: Card) -> bool:
    """Return whether this module handles a top card: any card but a 2 or a joker."""
    return RANK[card] not in (0, 2)


def top_candidates(
    held: Mapping[Card, int], top: Card, held_top: int,
    team_melds: Sequence[tuple[int, MeldShape]], rules: Rules,
) -> Iterator[TopPlay]:
    """Yield the candidate plays holding the natural `top`, from the hand `held` plus the top.

    `held_top` is how many copies of the top are added to `held` (1 while a `next_play` top waits
    apart, 0 once a `turn_end` top joined the hand); `team_melds` are the (id, shape) of the
    player's team's melds in table order. Candidates are yielded lazily, so the first legal one
    ends the search.
    """
    suit, rank = SUIT[top], RANK[top]
    n_top = held.get(top, 0) + held_top
    if n_top <= 0:
        return  # the top is not in the hand: no candidate can hold it
    yield from _top_alone(top, team_melds, rules)
    # the hand as `engine._top_plays` filters it: the top's suit, its rank and the wilds
    suit_counts = [0] * 14  # index = rank 1..13 of the top's suit (2s included)
    n_suit = n_top  # their sum
    same_rank: list[Card] = []  # the naturals of the top's rank, with repeats
    wilds: list[Card] = []
    wild_counts: list[int] = []
    for c, n in held.items():
        if n <= 0 or c == top:
            continue
        r = RANK[c]
        if r == 0 or r == 2:
            wilds.append(c)
            wild_counts.append(n)
        if SUIT[c] == suit:
            suit_counts[r] += n
            n_suit += n
        elif r == rank:
            same_rank.extend([c] * n)
    suit_counts[rank] += n_top
    same_rank.extend([top] * n_top)
    if len(wilds) > 1:
        order = sorted(range(len(wilds)), key=lambda i: _WILD_ORDER[wilds[i]])
        wilds = [wilds[i] for i in order]
        wild_counts = [wild_counts[i] for i in order]
    if n_suit >= 2:  # RULES 3.1: a run needs two natural cards
        for cards in _runs_through(suit, rank, suit_counts, wilds, wild_counts, rules):
            yield "meld", -1, cards
    if rules.sets:
        for cards in _sets_of(same_rank, wilds, rules):
            yield "meld", -1, cards
    yield from _layoffs_holding(held, top, n_top, team_melds, rules)


def _top_alone(
    top: Card, team_melds: Sequence[tuple[int, MeldShape]], rules: Rules
) -> Iterator[TopPlay]:
    """Yield the lay-offs of the top alone onto a team meld it extends (each also comes later).

    The top laid off alone is the play most takes make, and the cheapest candidate to build (no
    run interval, no lay-off search over the hand): trying it first often ends the search.
    """
    suit, rank = SUIT[top], RANK[top]
    for meld_id, shape in team_melds:
        if shape.suit != suit if shape.type == "run" else shape.rank != rank:
            continue  # a natural joins only a run of its suit or a set of its rank
        grown = classify((*shape.cards, top), rules)
        if grown is not None and grown.type == shape.type:  # what `check` asks of a lay-off
            yield "lay_off", meld_id, (top,)


def _runs_through(
    suit: str, rank: int, counts: list[int], wilds: list[Card], wild_counts: list[int],
    rules: Rules,
) -> Iterator[tuple[Card, ...]]:
    """Yield the candidate runs of `melds._suit_runs` that pass the top's position.

    The same intervals as there (every interval of 3+ positions held in full, or missing one
    position that one of the distinct wilds fills), keeping only those through `rank` (an ace
    stands at 1 or 14).
    """
    have = [False] * 15
    for p in range(1, 14):
        have[p] = counts[p] > 0
    have[14] = have[1]
    two_aces = counts[1] >= 2
    t_lo, t_hi = (1, 14) if rank == 1 else (rank, rank)
    pos_card = _POS_CARD[suit]
    for lo in range(1, min(t_hi, 12) + 1):
        if not have[lo] and not (wilds and have[lo + 1]):
            continue  # an interval may open on a wild only when the next card is held
        missing = 0
        n_missing = 0
        for hi in range(lo, 15):
            if not have[hi]:
                n_missing += 1
                if n_missing > 1:
                    break
                missing = hi
            if hi - lo < 2:
                continue
            if lo == 1 and hi == 14 and not (two_aces and rules.ace_to_ace):
                continue
            if not (lo <= t_lo <= hi or lo <= t_hi <= hi):
                continue  # the interval does not pass the top
            naturals = [pos_card[p] for p in range(lo, hi + 1) if p != missing]
            if not n_missing:
                cards = tuple(sorted(naturals))
                if classify(cards, rules) is not None:
                    yield cards
                continue
            for w, n in zip(wilds, wild_counts, strict=True):
                if n > naturals.count(w):  # an own-suit 2 may be natural and wild only if held twice
                    cards = tuple(sorted([*naturals, w]))
                    if classify(cards, rules) is not None:
                        yield cards


def _sets_of(same_rank: list[Card], wilds: list[Card], rules: Rules) -> Iterator[tuple[Card, ...]]:
    """Yield `melds.candidate_melds`'s sets of the top's rank: all its naturals, with or without a wild."""
    if len(same_rank) >= 3:
        cards = tuple(sorted(same_rank))
        if classify(cards, rules) is not None:
            yield cards
    if len(same_rank) >= 2:
        for w in wilds:
            cards = tuple(sorted([*same_rank, w]))
            if classify(cards, rules) is not None:
                yield cards


def _layoffs_holding(
    held: Mapping[Card, int], top: Card, n_top: int,
    team_melds: Sequence[tuple[int, MeldShape]], rules: Rules,
) -> Iterator[TopPlay]:
    """Yield the lay-offs holding the top onto the team's runs of its suit and sets of its rank.

    A natural card can join no other meld, so the others are skipped; for these the lay-offs are
    `melds.shape_layoffs` of the filtered hand (which keeps the same cards a meld may take).
    """
    suit, rank = SUIT[top], RANK[top]
    hand: tuple[Card, ...] | None = None
    for meld_id, shape in team_melds:
        if shape.type == "run":
            if shape.suit != suit:
                continue
        elif shape.rank != rank:
            continue
        if hand is None:
            hand = _filtered_hand(held, top, n_top)
        for layoff in shape_layoffs(hand, shape.cards, shape, rules):
            if top in layoff:
                yield "lay_off", meld_id, layoff


def _filtered_hand(held: Mapping[Card, int], top: Card, n_top: int) -> tuple[Card, ...]:
    """Return the hand `engine._top_plays` builds, as a sorted card tuple with repeats."""
    suit, rank = SUIT[top], RANK[top]
    out: list[Card] = [top] * n_top
    for c, n in held.items():
        if n > 0 and c != top and (SUIT[c] == suit or RANK[c] in (0, 2, rank)):
            out.extend([c] * n)
    out.sort()
    return tuple(out)
