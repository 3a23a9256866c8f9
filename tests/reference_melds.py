"""Reference (string-coded) meld code: the oracles of the property tests that the int-coded
`hand_melds.candidate_melds`, the bitmask `melds.classify` and the lay-off generator
(`fits.shape_lay_offs`) give the same results in the same order."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from buraco_events.core.cards import ALL_CARDS, JOKER, RANK, SUIT, SUITS, Card, pos_card, sort_key
from buraco_events.core.melds import MeldShape, caches_for
from buraco_events.model.rules import Rules

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
        out.update(c for c in sets if caches_for(rules).classify_sorted(c) is not None)
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
            naturals = [pos_card(p, suit) for p in range(lo, hi + 1) if p not in missing]
            if not missing:
                out.add(tuple(sorted(naturals)))
                continue
            if len(naturals) < 2:
                continue
            for w, n in zip(wilds, wild_counts, strict=True):
                if n > naturals.count(w):  # an own-suit 2 may be natural and wild only if held twice
                    out.add(tuple(sorted(naturals + [w])))
    return tuple(c for c in out if caches_for(rules).classify_sorted(c) is not None)

# -- classify and the lay-offs as they were before the bitmask run shape and the fits cache -----


def _run_shape(cards: Sequence[Card], rules: Rules) -> MeldShape | None:
    naturals: list[int] = []
    suit = ""
    forced_wild: list[Card] = []
    twos: list[Card] = []
    for c in cards:
        r = RANK[c]
        if r == 0:
            forced_wild.append(c)
        elif r == 2:
            twos.append(c)
        else:
            s = SUIT[c]
            if suit and s != suit:
                return None
            suit = s
            naturals.append(r)
    if not suit:
        return None  # only wilds: RULES 3.1, a run needs two natural cards
    own2 = 0
    for c in twos:
        if SUIT[c] == suit:
            own2 += 1
        else:
            forced_wild.append(c)
    if len(forced_wild) > 1:
        return None  # RULES 3.1: at most one wild per meld
    # options: (wild card, number of own-suit 2s standing as natural), best first (RULES 3.4)
    options: list[tuple[Card | None, int]]
    if forced_wild:
        if own2 > 1:
            return None
        options = [(forced_wild[0], own2)]
    elif own2 == 0:
        options = [(None, 0)]
    elif own2 == 1:
        options = [(None, 1), ("2" + suit, 0)]
    elif own2 == 2:
        options = [("2" + suit, 1)]
    else:
        return None
    aces = naturals.count(1)
    others = [r for r in naturals if r != 1]
    if len(set(others)) != len(others) or aces > 2:
        return None
    if aces == 2:
        if not rules.ace_to_ace:
            return None  # RULES 3.1: without ace_to_ace a run holds one natural ace
        ace_options: list[list[int]] = [[1, 14]]
    elif aces == 1:
        ace_options = [[1], [14]]
    else:
        ace_options = [[]]
    for wild, nat2 in options:
        for ace_pos in ace_options:
            pos = sorted(others + ace_pos + [2] * nat2)
            if len(set(pos)) != len(pos) or len(pos) < 2:
                continue
            lo, hi = pos[0], pos[-1]
            gaps = hi - lo + 1 - len(pos)
            if wild is None:
                if gaps:
                    continue
                arranged = tuple(pos_card(p, suit) for p in pos)
                return MeldShape("run", arranged, None, suit, None, lo, hi)
            if gaps > 1:
                continue
            if gaps == 1:
                hole = next(p for p in range(lo, hi + 1) if p not in pos)
            else:
                can_low, can_high = lo > 1, hi < 14
                if not (can_low or can_high):
                    continue
                go_low = (rules.wild_goes_low and can_low) or not can_high
                hole = lo - 1 if go_low else hi + 1
            full = sorted(pos + [hole])
            arranged = tuple(wild if p == hole else pos_card(p, suit) for p in full)
            return MeldShape("run", arranged, wild, suit, None, full[0], full[-1])
    return None


def _set_shape(cards: Sequence[Card]) -> MeldShape | None:
    wilds = [c for c in cards if RANK[c] in (0, 2)]
    naturals = [c for c in cards if RANK[c] not in (0, 2)]
    if len(wilds) > 1 or len(naturals) < 2:
        return None  # RULES 3.2: at most one wild; no set of 2s
    rank = RANK[naturals[0]]
    if any(RANK[c] != rank for c in naturals):
        return None
    arranged = tuple(sorted(naturals, key=sort_key)) + tuple(wilds)
    return MeldShape("set", arranged, wilds[0] if wilds else None, None, rank)


def classify_sorted(cards: tuple[Card, ...], rules: Rules) -> MeldShape | None:
    if len(cards) < 3:
        return None
    shape = _run_shape(cards, rules)
    if shape is None and rules.sets:
        shape = _set_shape(cards)
    return shape


def classify(cards: Iterable[Card], rules: Rules) -> MeldShape | None:
    """Return the meld the cards form under the rules (canonical arrangement), or None."""
    return classify_sorted(tuple(sorted(cards)), rules)


#: the cards that may join a run of each suit: its naturals and every wild
_RUN_CARDS = {s: frozenset(c for c in ALL_CARDS if SUIT[c] == s or RANK[c] in (0, 2)) for s in SUITS}
#: the cards that may join a set of each rank: its naturals and every wild
_SET_CARDS = {r: frozenset(c for c in ALL_CARDS if RANK[c] in (0, 2, r)) for r in range(1, 14)}


def _may_fit(card: Card, shape: MeldShape) -> bool:
    """Return False when a single card surely cannot join the meld (a cheap filter)."""
    r = RANK[card]
    if shape.type == "set":
        return r == shape.rank or (r in (0, 2) and shape.wild is None)
    if "2" + (shape.suit or "") in shape.cards:
        return True  # a 2 of the suit may switch between natural and wild (RULES 3.3)
    if r == 0:
        return shape.wild is None
    if r == 2 or shape.wild is not None:
        return r == 2 or SUIT[card] == shape.suit
    if SUIT[card] != shape.suit:
        return False
    # a natural of the suit joins a clean run only at an end (the ace at 1 or 14)
    if r == 1:
        return shape.low == 2 or shape.high == 13
    return r == shape.low - 1 or r == shape.high + 1


def shape_lay_offs(
    held: tuple[Card, ...], meld: tuple[Card, ...], shape: MeldShape, rules: Rules
) -> tuple[tuple[Card, ...], ...]:
    """Return `candidate_lay_offs` for a hand given as a sorted card tuple and a meld's `classify` shape."""
    # only the cards of the run's suit or the set's rank, and the wilds, may join the meld
    fits = _RUN_CARDS[shape.suit or ""] if shape.type == "run" else _SET_CARDS[shape.rank or 0]
    relevant = tuple([c for c in held if c in fits])  # a list comprehension: no generator frames
    if not relevant:
        return ()
    return _lay_offs(meld, relevant, rules)


def _lay_offs(
    meld: tuple[Card, ...], relevant: tuple[Card, ...], rules: Rules
) -> tuple[tuple[Card, ...], ...]:
    """Return the candidate additions to a meld from the hand cards that could matter to it."""
    shape = classify(meld, rules)
    assert shape is not None
    hand: dict[Card, int] = {}  # a plain dict: cheaper than a Counter on this cache-miss path
    for c in relevant:
        hand[c] = hand.get(c, 0) + 1
    out: set[tuple[Card, ...]] = set()
    held = list(hand)
    for c in held:
        if _may_fit(c, shape) and classify_sorted(tuple(sorted((*meld, c))), rules) is not None:
            out.add((c,))
    if shape.type == "run":
        suit = shape.suit or ""
        wilds = _wild_kinds(hand) if shape.wild is None else []
        for step, start in ((1, shape.high + 1), (-1, shape.low - 1)):
            for wild in [None, *wilds]:
                added: list[Card] = []
                used_wild = False
                p = start
                while 1 <= p <= 14:
                    card = pos_card(p, suit)
                    if hand.get(card, 0) > added.count(card):
                        added.append(card)
                    elif wild is not None and not used_wild:
                        added.append(wild)
                        used_wild = True
                    else:
                        break
                    if len(added) >= 2:
                        out.add(tuple(sorted(added)))
                    p += step
    else:
        same = [c for c in held for _ in range(hand[c]) if RANK[c] == shape.rank]
        if len(same) >= 2:
            out.add(tuple(sorted(same)))
    return tuple(sorted(a for a in out if classify_sorted(tuple(sorted(meld + a)), rules) is not None))
