"""The closed pile's look-ahead: the candidate plays that hold the top card, and no others.

Taking a closed pile is legal only if its top card can be melded at once (RULES 2), and under
`pile_top_use` = turn_end a play may not leave the due top card unmeldable. The engine's general
generator (`plays.top_plays`) answers both by building every candidate meld and lay-off of the
hand filtered to the top's suit, rank and the wilds, then keeping those that hold the top. For a
natural top (not a 2, not a joker) only three kinds of candidate can hold it, so this module
builds just those:

- runs of the top's suit through the top's position (1 or 14 for an ace),
- the set of the top's rank (all its naturals, or those and one wild),
- lay-offs onto the team's runs of that suit and sets of that rank.

The candidates are exactly those of the general generator that hold the top (the same intervals,
the same wild choices, the same lay-offs; only the order may differ: the top laid off alone, the
most common play and the cheapest to find, comes first), so the engine's check of each decides as
before; the property tests compare both on random tables. A wild top can stand in any suit or
rank: there the engine keeps the general generator.

Most asks find no candidate at all (a closed pile is mostly left alone), so the hand is read once
into native ints (the top suit's positions as a bitmask) and card tuples are built only for
candidates that exist. Pure and mypyc-friendly: plain functions over cards and counts, no
generators, no I/O, no module state written.
"""

from __future__ import annotations

from buraco_events.model.rules import Rules

from .cards import (
    POS_CARDS,
    RANK,
    RUN_CARDS,
    SET_CARDS,
    SUIT,
    SUIT_RANK,
    WILD_RANKS,
    Card,
    is_wild_card,
)
from .fits import MeldFits, fits_in
from .hand_melds import run_spans
from .melds import MeldShape, caches_for

#: a candidate play before its check: ("meld", -1, cards) or ("lay_off", meld id, cards)
TopPlay = tuple[str, int, tuple[Card, ...]]


def is_natural_top(card: Card) -> bool:
    """Return whether this module handles a top card: any card but a 2 or a joker."""
    return not is_wild_card(card)


def top_candidates(
    held: dict[Card, int], top: Card, held_top: int,
    team_melds: list[tuple[int, MeldShape]], rules: Rules,
) -> list[TopPlay]:
    """Return the candidate plays holding the natural `top`, from the hand `held` plus the top.

    `held_top` is how many copies of the top are added to `held` (1 while a `next_play` top waits
    apart, 0 once a `turn_end` top joined the hand); `team_melds` are the (id, shape) of the
    player's team's melds in table order: only its runs of the top's suit and sets of its rank
    can take the top, so the engine passes only those (others would cost time, not answers).
    The top laid off alone comes first.
    """
    n_top = held.get(top, 0) + held_top
    if n_top <= 0:
        return []  # the top is not in the hand: no candidate can hold it
    code = SUIT_RANK[top]
    suit, rank = code >> 4, code & 15
    out: list[TopPlay] = []
    targets: list[tuple[int, MeldShape, MeldFits]] = []
    caches = caches_for(rules)
    for meld_id, shape in team_melds:
        entry = fits_in(caches, shape.cards)
        targets.append((meld_id, shape, entry))
        if entry.fit(top):
            out.append(("lay_off", meld_id, (top,)))
    # one pass over the hand as `plays.top_plays` filters it: the top's suit, its rank, the wilds
    mask = 1 << rank  # the ranks of the top's suit held (bit r: rank r), the top's own included
    n_suit = n_top  # the cards of the top's suit held, the top's copies included
    aces = n_top if rank == 1 else 0  # the aces of the top's suit
    same_rank: list[Card] = [top] * n_top  # the naturals of the top's rank, with repeats
    wilds: list[Card] = []  # the distinct wilds held
    wild_counts: list[int] = []
    for c, n in held.items():
        cc = SUIT_RANK[c]
        if n <= 0 or cc == code:
            continue  # the top's copies are counted apart
        r = cc & 15
        if WILD_RANKS >> r & 1:
            wilds.append(c)
            wild_counts.append(n)
        if cc >> 4 == suit:
            mask |= 1 << r
            n_suit += n
            if r == 1:
                aces += n
        elif r == rank:
            same_rank.extend([c] * n)
    have = mask | (mask >> 1 & 1) << 14  # the run positions held: an ace stands at 1 and at 14
    if n_suit >= 2:  # RULES 3.1: a run needs two natural cards
        _runs_through(out, suit, rank, have, aces >= 2, wilds, wild_counts, rules)
    if len(same_rank) >= 2 and rules.sets:
        _sets_of(out, same_rank, wilds)
    if targets:
        _longer_lay_offs(out, held, top, n_top, targets, have, len(same_rank), len(wilds) > 0)
    return out


def _runs_through(
    out: list[TopPlay], suit: int, rank: int, have: int, two_aces: bool, wilds: list[Card],
    wild_counts: list[int], rules: Rules,
) -> None:
    """Append the candidate runs of `hand_melds._suit_runs` that pass the top's position.

    The same intervals (`hand_melds.run_spans`), asked only for those through `rank` (an ace
    stands at 1 or 14). `have` has bit p set for each run position p of the suit held.
    """
    t_lo, t_hi = (1, 14) if rank == 1 else (rank, rank)
    if not have & (0b11011 << t_lo | 0b11011 << t_hi) >> 2:
        return  # a run through the top holds one of the two positions either side of it at least
    pos_card = POS_CARDS[suit]
    for span in run_spans(have, 1 << t_lo | 1 << t_hi, len(wilds) > 0, two_aces and rules.ace_to_ace):
        lo, hi, hole = span & 15, span >> 4 & 15, span >> 8
        naturals = [pos_card[p] for p in range(lo, hi + 1) if p != hole]
        if not hole:
            naturals.sort()
            out.append(("meld", -1, tuple(naturals)))
            continue
        for i in range(len(wilds)):
            w = wilds[i]
            if wild_counts[i] > naturals.count(w):  # an own-suit 2 may be natural and wild only if held twice
                cards = [*naturals, w]
                cards.sort()
                out.append(("meld", -1, tuple(cards)))


def _sets_of(out: list[TopPlay], same_rank: list[Card], wilds: list[Card]) -> None:
    """Append `hand_melds.candidate_melds`'s sets of the top's rank: all its naturals (two or more
    held), with or without a wild."""
    same_rank.sort()
    if len(same_rank) >= 3:
        out.append(("meld", -1, tuple(same_rank)))
    for w in wilds:
        cards = [*same_rank, w]
        cards.sort()
        out.append(("meld", -1, tuple(cards)))


def _longer_lay_offs(
    out: list[TopPlay], held: dict[Card, int], top: Card, n_top: int,
    targets: list[tuple[int, MeldShape, MeldFits]], have: int, n_same: int, has_wild: bool,
) -> None:
    """Append the lay-offs of two cards or more holding the top onto the `targets` melds.

    They are `fits.shape_lay_offs` of the filtered hand (the meld's kept entry, which keeps the
    same cards a meld may take), asked only of the melds where one can hold the top: a set
    needs another natural of its rank (its lay-off of two cards or more is all of them), a run
    a stretch from one of its ends that reaches the top (`_stretch_reaches`). The top alone is
    there already. `have` is the top suit's run positions held, `n_same` the naturals of the
    top's rank held (the top's copies included).
    """
    rank = RANK[top]
    positions = (1, 14) if rank == 1 else (rank, rank)
    hand: tuple[Card, ...] | None = None
    for meld_id, shape, entry in targets:
        if shape.type == "run":
            free = has_wild and shape.wild is None  # a stretch takes a wild only onto a clean run
            if not (_stretch_reaches(have, positions[0], shape.low, shape.high, free)
                    or _stretch_reaches(have, positions[1], shape.low, shape.high, free)):
                continue
        elif n_same < 2:
            continue
        if hand is None:
            hand = _filtered_hand(held, top, n_top)
        for lay_off in entry.lay_offs_in(hand):
            if len(lay_off) > 1 and top in lay_off:
                out.append(("lay_off", meld_id, lay_off))


def _stretch_reaches(have: int, p: int, low: int, high: int, free: bool) -> bool:
    """Return False when no stretch of `fits._new_lay_offs` onto the run low..high holds position p.

    A stretch of two cards or more starts next to an end of the run and goes on through the
    positions held (`have`), one of them filled by a wild when `free`: it holds p only if each
    position between the run and p is held but one that the wild fills, and, when p is next to
    the run, if it goes on past p. A cheap filter on the positions bitmask (a True asks the
    lay-offs themselves).
    """
    if p > high:
        gaps = ((1 << p) - (2 << high)) & ~have  # the positions high+1..p-1 not held
        beyond = p + 1 if p < 14 else 0
        next_to = p == high + 1
    elif p < low:
        gaps = ((1 << low) - (2 << p)) & ~have  # the positions p+1..low-1 not held
        beyond = p - 1
        next_to = p == low - 1
    else:
        return False  # inside the run: a stretch only reaches beyond its ends
    if gaps and (not free or gaps & (gaps - 1)):
        return False  # a hole and no wild for it, or two holes
    if not next_to:
        return True
    return beyond > 0 and (free or have >> beyond & 1 == 1)


def _filtered_hand(held: dict[Card, int], top: Card, n_top: int) -> tuple[Card, ...]:
    """Return the hand `plays.top_plays` builds, as a sorted card tuple with repeats."""
    run_cards, set_cards = RUN_CARDS[SUIT[top]], SET_CARDS[RANK[top]]
    out: list[Card] = [top] * n_top
    for c, n in held.items():
        if n > 0 and c != top and (c in run_cards or c in set_cards):
            out.extend([c] * n)
    out.sort()
    return tuple(out)
