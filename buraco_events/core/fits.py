"""Lay-offs: which hand cards join a meld on the table, alone or as a stretch (RULES 3, 4).

Its own module because lay-offs change for other reasons than the meld shapes (`melds`) and the
new melds of a hand (`hand_melds`): a meld lives on across many turns, so its answers are kept in
its entry (`MeldFits`: its shape, the cards that join it alone, its gate, its lay-offs by the
hand cards), kept per meld in the rules' caches (`melds.MeldRules`). The gates and relevant
cards are cheap filters the engine, the table and the bots ask before listing lay-offs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Final

from buraco_events.model.rules import Rules

from .cards import (
    ALL_CARDS,
    RANK,
    RUN_CARDS,
    SET_CARDS,
    SORT_CODES,
    SUIT_INDEX,
    SUIT_POS_CARDS,
    WILD_RANKS,
    WILDS_SHOWN,
    Card,
)
from .melds import UNKNOWN_SHAPE, MeldRules, MeldShape, caches_for, classify, tally_of

#: the most entries the caches of one rules object keep (`MeldRules.fits`; cleared when full)
_FITS_MAX: Final = 1 << 14


def candidate_lay_offs(
    hand: Counter[Card], meld: Sequence[Card], rules: Rules
) -> list[tuple[Card, ...]]:
    """Return every candidate addition of hand cards to a meld, each a sorted card tuple.

    Single cards that keep the meld legal; for runs, runs of consecutive naturals (and at most one
    wild) extending either end; for sets, all naturals of the rank held.
    """
    shape = classify(meld, rules)
    if shape is None:
        return []
    return list(shape_lay_offs(tuple(sorted(hand.elements())), tuple(meld), shape, rules))


def shape_lay_offs(
    held: tuple[Card, ...], meld: tuple[Card, ...], shape: MeldShape, rules: Rules
) -> tuple[tuple[Card, ...], ...]:
    """Return `candidate_lay_offs` for a hand given as a sorted card tuple and a meld's `classify` shape."""
    return meld_fits(meld, rules).lay_offs_in(held)  # its shape is `shape`: the meld's classify


class MeldFits:
    """One meld's shape and, per card tried so far, whether it joins the meld alone."""

    def __init__(self, meld: tuple[Card, ...], caches: MeldRules) -> None:
        #: the rules' caches the entry is kept in: its `classify` answers serve `grown`
        self.caches = caches
        self.rules = caches.rules
        #: the meld's cards as given (the key of its entry)
        self.meld = meld
        #: the meld's cards sorted as strings, sorted once: its shape is classified from them,
        #: and `grown` sorts them with the cards added
        self.sorted = tuple(sorted(meld))
        self.shape = caches.classify_sorted(self.sorted)
        self.fits: dict[Card, bool] = {}
        shape = self.shape
        #: the meld's cards as counts: whether cards join it is arithmetic on a copy (`_Tally.ok`)
        self.tally = tally_of(meld)
        #: the hand cards that may take part in a lay-off: a run's suit and the wilds, but not
        #: the naturals 3..K it holds already (a rank twice is no run, and its stretches only
        #: reach beyond its ends); a set's rank and the wilds
        self.relevant: frozenset[Card] = (
            frozenset() if shape is None
            else _run_relevant(shape.suit or "", meld)
            if shape.type == "run" else SET_CARDS[shape.rank or 0]
        )
        #: the gate: every lay-off onto the meld (`_new_lay_offs`) holds one of these cards, so a
        #: hand holding none of them has none (`_gate`)
        self.gate: frozenset[Card] = frozenset()
        #: the gate's mask (`gate_bit`): a hand's mask (`hand_melds`) and this one share no bit
        #: when the hand holds no lay-off onto the meld
        self.gate_mask = 0
        if shape is not None:
            self.gate, self.gate_mask = _gate(shape, meld)
        #: per addition asked of `grown`: the meld it makes (None: none)
        self.grows: dict[tuple[Card, ...], MeldShape | None] = {}
        #: per lay-off of two cards or more tried so far (a sorted tuple), whether it joins
        self.joins: dict[tuple[Card, ...], bool] = {}
        #: the lay-offs by the relevant hand cards (a sorted tuple)
        self.lay_offs: dict[tuple[Card, ...], tuple[tuple[Card, ...], ...]] = {}

    def fit(self, card: Card) -> bool:
        """Return whether `card` joins the meld alone (`fits_alone`)."""
        fit = self.fits.get(card)
        if fit is None:
            if self.shape is None:
                fit = False
            else:  # `classify(meld + (card,)) is not None`, on the meld's counts
                t = self.tally.copy()
                t.add(card)
                fit = t.ok(self.rules)
            self.fits[card] = fit
        return fit


    def lay_offs_of(self, relevant: tuple[Card, ...]) -> tuple[tuple[Card, ...], ...]:
        """Return the lay-offs onto the meld from the hand cards `relevant` (the hand's cards
        in `relevant`, sorted): `shape_lay_offs`, kept per those cards."""
        if not relevant:
            return ()
        found = self.lay_offs.get(relevant)
        if found is None:
            found = self.lay_offs[relevant] = _new_lay_offs(self, self.meld, relevant, self.rules)
        return found

    def lay_offs_in(self, held: tuple[Card, ...]) -> tuple[tuple[Card, ...], ...]:
        """Return the lay-offs onto the meld from a hand given as a sorted card tuple: only the
        cards that may take part in one (`relevant`) are kept, then `lay_offs_of`."""
        relevant = self.relevant
        return self.lay_offs_of(tuple([c for c in held if c in relevant]))  # no generator frames

    def grown_wild(self, cards: tuple[Card, ...]) -> int:
        """Return `_Tally.wild_code` of the meld grown by `cards`: the code of the wild of
        `grown(cards)`, -1 when it is clean, -2 when it is no meld (no card tuple classified)."""
        t = self.tally.copy()
        for c in cards:
            t.add(c)
        return t.wild_code(self.rules)

    def grown(self, cards: tuple[Card, ...]) -> MeldShape | None:
        """Return `classify(meld + cards)`: the meld grown by a lay-off, kept per addition (a
        bot scores the same lay-offs turn after turn while the meld stands)."""
        grows = self.grows
        shape = grows.get(cards, UNKNOWN_SHAPE)
        if shape is UNKNOWN_SHAPE:
            shape = grows[cards] = self.caches.classify_sorted(tuple(sorted(self.sorted + cards)))
        return shape


#: `_run_relevant` by one int: the suit's index and the ranks 3..K the run holds (bit r: rank r)
_RUN_RELEVANT: Final[dict[int, frozenset[Card]]] = {}


def _run_relevant(suit: str, meld: tuple[Card, ...]) -> frozenset[Card]:
    """Return the cards that may take part in a lay-off onto a run of `suit` (`MeldFits.relevant`):
    the suit's cards and the wilds, but not the naturals 3..K the run holds. Kept per those
    ranks: a run's naturals 3..K are all of its suit, so they and the suit make the answer."""
    held = 0
    for c in meld:
        rank = RANK[c]
        if rank >= 3:
            held |= 1 << rank
    key = held << 2 | SUIT_INDEX[suit]
    found = _RUN_RELEVANT.get(key)
    if found is None:
        found = _RUN_RELEVANT[key] = RUN_CARDS[suit].difference([c for c in meld if RANK[c] >= 3])
    return found


#: the gates kept by one int: a set's rank and cleanness, or a run's suit, ends, wild's position,
#: cleanness and whether it holds its suit's 2 (`_gate`)
_GATES: Final[dict[int, tuple[frozenset[Card], int]]] = {}


def gate_bit(card: Card) -> int:
    """Return a card's bit in a gate's or a hand's mask: bit suit index * 14 + rank, the joker
    bit 0 (the mask `hand_melds` gives along)."""
    _, suit, rank = SORT_CODES[card]
    return 1 if suit < 0 else 1 << (suit * 14 + rank)


def _gate(shape: MeldShape, meld: tuple[Card, ...]) -> tuple[frozenset[Card], int]:
    """Return cards of which every lay-off onto the meld (`_new_lay_offs`) holds one, and their
    mask (`gate_bit`).

    A lay-off is a single card that joins the meld alone (`MeldFits.fit`) or a longer one: all
    the naturals of a set's rank held (each joins alone), or a run's stretch from one end, whose
    first card is a natural at `low - 1` or `high + 1` (it joins alone: the meld's arrangement
    with it beside that end) or a wild (clean runs only). So the gate holds every card that may
    join alone. A set: its rank's naturals, and the wilds when it is clean (a second wild makes
    no set, and a set plus one card is never a run). A run: its suit's naturals at positions
    `low - 2 .. high + 2` but those it holds (a natural joins at a position beside the other
    naturals, or two away with the wild between; aces and the suit's 2, which may change places
    or roles, only move within that span), its suit's 2, and the other wilds when it is clean or
    holds its suit's 2 (with a wild standing already, a joker or another suit's 2 joins only
    when the suit's 2 turns natural). Tested against `classify` and the reference lay-offs over
    many melds and hands (`tests/test_lay_off_gate.py`).
    """
    clean = shape.wild is None
    if shape.type == "set":
        rank = shape.rank or 0
        key = rank << 1 | clean
        found = _GATES.get(key)
        if found is None:
            cards = [c for c in ALL_CARDS if RANK[c] == rank]
            if clean:
                cards.extend(WILDS_SHOWN)
            found = _GATES[key] = _gate_entry(cards)
        return found
    lo, hi = shape.low, shape.high
    arranged = shape.cards
    suit = shape.suit or ""
    row = SUIT_POS_CARDS[suit]
    own_two = row[2]
    hole = 0  # the wild's position (0: none)
    if not clean:  # the arrangement is the row with the wild at one position (its suit's 2 may be both)
        for p in range(lo, hi + 1):
            if arranged[p - lo] != row[p]:
                hole = p
                break
    holds_two = own_two in meld
    key = 1 << 30 | SORT_CODES[own_two][1] | hole << 2 | lo << 6 | hi << 10 | clean << 14 | holds_two << 15
    found = _GATES.get(key)
    if found is None:
        # the naturals 3..K at the meld's positions but the wild's are held already, and a rank
        # twice is no run (nor a relevant card: `MeldFits.relevant`)
        cards = [
            row[p] for p in range(max(lo - 2, 1), min(hi + 2, 14) + 1)
            if not (lo <= p <= hi and 3 <= p <= 13 and p != hole)
        ]
        cards.append(own_two)
        if clean or holds_two:
            cards.extend(WILDS_SHOWN)
        found = _GATES[key] = _gate_entry(cards)
    return found


def _gate_entry(cards: list[Card]) -> tuple[frozenset[Card], int]:
    mask = 0
    for c in cards:
        mask |= gate_bit(c)
    return frozenset(cards), mask


def meld_fits(meld: tuple[Card, ...], rules: Rules) -> MeldFits:
    """Return the kept entry of a meld (made on first use): its shape, which cards join it alone
    (`MeldFits.fit`), which may take part in a lay-off, its lay-offs by the hand cards."""
    return fits_in(caches_for(rules), meld)


def fits_in(caches: MeldRules, meld: tuple[Card, ...]) -> MeldFits:
    """Return `meld_fits` under the rules of the caches a caller holds (`melds.caches_for`)."""
    fits = caches.fits
    entry: MeldFits | None = fits.get(meld)
    if entry is None:
        if len(fits) >= _FITS_MAX:
            fits.clear()
        entry = fits[meld] = MeldFits(meld, caches)
    return entry


def may_lay_off(meld: tuple[Card, ...], card: Card, rules: Rules) -> bool:
    """Return False when no lay-off onto the meld (`shape_lay_offs`) can hold `card`: it is
    none of the cards that take part in them (a cheap filter, from the meld's kept entry)."""
    return card in meld_fits(meld, rules).relevant


def fits_alone(meld: tuple[Card, ...], card: Card, rules: Rules) -> bool:
    """Return whether `card` joins the meld on its own: `classify(meld + (card,))` is a meld.

    A meld lives on across many turns (and views), so the answers are kept per meld: a bot's
    "does this card fit" and the single-card lay-offs become a dict lookup once asked. False
    when `meld` is no meld.
    """
    return meld_fits(meld, rules).fit(card)


def _new_lay_offs(
    entry: MeldFits, meld: tuple[Card, ...], relevant: tuple[Card, ...], rules: Rules
) -> tuple[tuple[Card, ...], ...]:
    """Return the lay-offs onto a meld from the relevant hand cards: the single cards that fit
    (`fits_alone`), for a run the stretches of naturals (at most one wild) extending either end,
    for a set all its naturals."""
    shape = entry.shape
    assert shape is not None
    if len(relevant) == 1 and not WILD_RANKS >> RANK[relevant[0]] & 1:
        # one natural, no wild: no stretch of two cards, no set of two naturals, so the card alone
        return ((relevant[0],),) if entry.fit(relevant[0]) else ()
    hand: dict[Card, int] = {}  # a plain dict: cheaper than a Counter on this cache-miss path
    for c in relevant:
        hand[c] = hand.get(c, 0) + 1
    # `entry.fit`, not a bound method kept aside: compiled, that is a direct native call
    singles = [(c,) for c in hand if entry.fit(c)]  # checked already: no classify below
    longer: set[tuple[Card, ...]] = set()
    if shape.type == "run":
        row = SUIT_POS_CARDS[shape.suit or ""]
        # the wilds held, in display order (`cards.sort_key`: the 2s by suit, then the joker)
        wilds = [w for w in WILDS_SHOWN if w in hand] if shape.wild is None else []
        high, low = shape.high + 1, shape.low - 1
        _stretches(longer, row, hand, high, 1, None)
        for wild in wilds:
            _stretches(longer, row, hand, high, 1, wild)
        _stretches(longer, row, hand, low, -1, None)
        for wild in wilds:
            _stretches(longer, row, hand, low, -1, wild)
    else:
        same = [c for c in hand for _ in range(hand[c]) if RANK[c] == shape.rank]
        if len(same) >= 2:
            longer.add(tuple(sorted(same)))
    # whether a longer lay-off joins the meld is kept per meld: the same stretches come back
    # with every new hand, and the short key spares sorting and hashing the grown meld
    joins = entry.joins
    out: list[tuple[Card, ...]] = []
    for a in longer:
        ok = joins.get(a)
        if ok is None:  # `classify(meld + a) is not None`, on the meld's counts
            t = entry.tally.copy()
            for c in a:
                t.add(c)
            ok = joins[a] = t.ok(rules)
        if ok:
            out.append(a)
    out.extend(singles)
    out.sort()
    return tuple(out)


def _stretches(
    longer: set[tuple[Card, ...]], row: tuple[Card, ...], hand: dict[Card, int], start: int, step: int,
    wild: Card | None,
) -> None:
    """Add to `longer` the stretches of two cards or more from run position `start` on, one
    position a step: the naturals held, `wild` (if any) standing once for a natural not held."""
    added: list[Card] = []
    used_wild = False
    p = start
    while 1 <= p <= 14:
        card = row[p]
        # the copies of `card` in `added`: only as the wild (a position is visited once, and
        # the ace's two positions 1 and 14 are never both on one walk)
        if hand.get(card, 0) > (1 if used_wild and card == wild else 0):
            added.append(card)
        elif wild is not None and not used_wild:
            added.append(wild)
            used_wild = True
        else:
            break
        if len(added) >= 2:
            longer.add(tuple(sorted(added)))
        p += step
