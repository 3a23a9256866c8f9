"""The action table: every choice a seat may make as one fixed id of a `Discrete` space.

An id means the same thing in every state (docs/rl.md has the table). In id order:

- `DRAW` (0): draw from the stock; `PILE` (1): take the discard pile; `DEAD` + i (2, 3): take
  dead i;
- `DISCARD` + c: discard card c, where c is the card's index in `CARDS` (`cards.ALL_CARDS`: the
  spades A..K, then hearts, diamonds, clubs, then the joker);
- `MELD` + m: put down the new meld `MELDS[m]`, a multiset of cards: first every run (by suit,
  then its naturals' span, the position the wild fills inside that span or none, the wild card),
  then every set (by rank, then how many naturals of each suit, then the wild card). Each meld
  the rules of any preset accept has exactly one entry;
- `LAY_OFF` + k * `LAY_OFF_BLOCK` + j: lay off onto meld k of the table (its id: the k-th meld put
  down this hand, either team's, k < `MELD_SLOTS`) the cards that description j of the block
  names *for that meld*: a single card (`CARDS` order); all the naturals of a set's rank, given as
  a count per suit; or a stretch of a run beyond one of its ends (up or down, its length, and the
  place and card of the one wild in it, if any).

Melds, discards and the fixed ids decode without a state; a lay-off id names its cards through the
meld's suit and ends, so it decodes against a state (`decode`). Two descriptions of one block may
name the same cards (a stretch down to the ace holding a wild and one up to the ace holding the
same wild; the suit's own 2 as a wild in its own place): such cards have one id, the first
description in block order (`encode` finds it), and the later description decodes to nothing.

This module is pure Python (no numpy): the engine's `Action` in, an int out, and back.
"""

from __future__ import annotations

from itertools import product
from typing import Final

from buraco_events.core.cards import ALL_CARDS, RANK, RANKS, SUIT, SUIT_POS_CARDS, SUITS, Card
from buraco_events.core.choices import Action
from buraco_events.core.melds import classify
from buraco_events.core.state import GameState
from buraco_events.model.rules import Rules

#: the cards in id order (`cards.ALL_CARDS`: by suit S H D C, ranks A..K, then the joker)
CARDS: Final[tuple[Card, ...]] = ALL_CARDS
#: each card's index in `CARDS`
CARD_INDEX: Final[dict[Card, int]] = {c: i for i, c in enumerate(CARDS)}
#: the wild cards, in the order the tables list them
WILDS: Final[tuple[Card, ...]] = ("JK", "2S", "2H", "2D", "2C")
#: the most melds a hand can hold: every meld has three cards or more, the deck at most 108
MELD_SLOTS: Final = 36
#: the longest stretch a lay-off adds to a run: a run spans at most 14 positions, a meld three
MAX_STRETCH: Final = 11

DRAW: Final = 0
PILE: Final = 1
DEAD: Final = 2
DISCARD: Final = 4
MELD: Final = DISCARD + len(CARDS)

#: rules under which every meld of any preset classifies (two aces in a run, sets on)
_ANY_RULES: Final = Rules(sets=True, ace_to_ace=True)


def _run_melds() -> list[tuple[Card, ...]]:
    """Return every run multiset, each once, in table order (see the module docstring)."""
    out: list[tuple[Card, ...]] = []
    for suit in SUITS:
        row = SUIT_POS_CARDS[suit]
        for low in range(1, 15):
            for high in range(low + 1, 15):
                for hole in [None, *range(low + 1, high)]:
                    for wild in [None, *WILDS]:
                        if hole is not None and wild is None:
                            continue
                        cards = [row[p] for p in range(low, high + 1) if p != hole]
                        if wild is not None:
                            cards.append(wild)
                        out.append(tuple(sorted(cards)))
    return out


#: naturals of one rank in a set: a count per suit (S H D C), each 0..2, two naturals or more
SET_COUNTS: Final[tuple[tuple[int, ...], ...]] = tuple(
    counts for counts in product(range(3), repeat=len(SUITS)) if sum(counts) >= 2
)


def _set_melds() -> list[tuple[Card, ...]]:
    """Return every set multiset in table order (see the module docstring)."""
    out: list[tuple[Card, ...]] = []
    for rank in RANKS:
        if rank == "2":
            continue
        for counts in SET_COUNTS:
            naturals = [rank + s for s, n in zip(SUITS, counts, strict=True) for _ in range(n)]
            for wild in [None, *WILDS]:
                out.append(tuple(sorted(naturals + ([wild] if wild else []))))
    return out


def _meld_table() -> tuple[tuple[Card, ...], ...]:
    """Return the new melds: each multiset some rules accept as a meld, once, first place kept."""
    seen: set[tuple[Card, ...]] = set()
    table: list[tuple[Card, ...]] = []
    for cards in _run_melds() + _set_melds():
        if cards in seen or classify(cards, _ANY_RULES) is None:
            continue
        seen.add(cards)
        table.append(cards)
    return tuple(table)


#: the new melds in id order (`MELD + m`), each a sorted card tuple (the engine's form)
MELDS: Final[tuple[tuple[Card, ...], ...]] = _meld_table()
#: each new meld's index in `MELDS`
MELD_INDEX: Final[dict[tuple[Card, ...], int]] = {cards: i for i, cards in enumerate(MELDS)}

#: a run stretch: (direction +1 up / -1 down, length, the wild's place in it or -1, wild or "")
Stretch = tuple[int, int, int, Card]


def _stretches() -> tuple[Stretch, ...]:
    out: list[Stretch] = []
    for step in (1, -1):
        for length in range(2, MAX_STRETCH + 1):
            out.append((step, length, -1, ""))
            for place in range(length):
                for wild in WILDS:
                    out.append((step, length, place, wild))
    return tuple(out)


#: the run stretches of a lay-off block, in block order
STRETCHES: Final[tuple[Stretch, ...]] = _stretches()
#: where each part of a lay-off block starts
_SINGLES: Final = 0
_SET_NATURALS: Final = len(CARDS)
_RUN_STRETCHES: Final = _SET_NATURALS + len(SET_COUNTS)
#: the ids of one meld's lay-offs
LAY_OFF_BLOCK: Final = _RUN_STRETCHES + len(STRETCHES)
LAY_OFF: Final = MELD + len(MELDS)
#: the size of the `Discrete` action space
N_ACTIONS: Final = LAY_OFF + MELD_SLOTS * LAY_OFF_BLOCK

_SET_INDEX: Final[dict[tuple[int, ...], int]] = {c: i for i, c in enumerate(SET_COUNTS)}


def _by_length() -> dict[int, tuple[tuple[int, Stretch], ...]]:
    found: dict[int, list[tuple[int, Stretch]]] = {}
    for i, stretch in enumerate(STRETCHES):
        found.setdefault(stretch[1], []).append((_RUN_STRETCHES + i, stretch))
    return {length: tuple(entries) for length, entries in found.items()}


#: the stretch descriptions of each length, with their place in the block, in block order
_BY_LENGTH: Final[dict[int, tuple[tuple[int, Stretch], ...]]] = _by_length()


class NoId(ValueError):
    """An engine action the table has no id for (a bug: every legal action has one)."""


def _stretch_cards(row: tuple[Card, ...], start: int, stretch: Stretch) -> tuple[Card, ...] | None:
    """Return the sorted cards of a stretch from run position `start` on, None past the ends."""
    step, length, place, wild = stretch
    end = start + step * (length - 1)
    if not (1 <= start <= 14 and 1 <= end <= 14):
        return None
    cards = [wild if j == place else row[start + step * j] for j in range(length)]
    cards.sort()
    return tuple(cards)


def _lay_off_cards(state: GameState, meld: int, j: int) -> tuple[Card, ...] | None:
    """Return the cards description `j` of a lay-off block names for meld `meld`, or None when
    the meld does not exist or the description names no cards for it."""
    if not 0 <= meld < len(state.melds):
        return None
    shape = state.melds[meld].shape
    if j < _SET_NATURALS:
        return (CARDS[j],)
    if j < _RUN_STRETCHES:
        if shape.type != "set":
            return None
        rank = RANKS[(shape.rank or 1) - 1]
        counts = SET_COUNTS[j - _SET_NATURALS]
        return tuple(sorted(rank + s for s, n in zip(SUITS, counts, strict=True) for _ in range(n)))
    if shape.type != "run":
        return None
    stretch = STRETCHES[j - _RUN_STRETCHES]
    start = shape.high + 1 if stretch[0] == 1 else shape.low - 1
    return _stretch_cards(SUIT_POS_CARDS[shape.suit or ""], start, stretch)


def _lay_off_offset(state: GameState, meld: int, cards: tuple[Card, ...]) -> int | None:
    """Return the first description of meld `meld`'s block naming `cards`, or None."""
    if len(cards) == 1:
        return _SINGLES + CARD_INDEX[cards[0]]
    shape = state.melds[meld].shape
    if shape.type == "set":
        counts = [0] * len(SUITS)
        for c in cards:
            if RANK[c] != shape.rank:
                return None
            counts[SUITS.index(SUIT[c])] += 1
        found = _SET_INDEX.get(tuple(counts))
        return None if found is None else _SET_NATURALS + found
    row = SUIT_POS_CARDS[shape.suit or ""]
    for j, stretch in _BY_LENGTH.get(len(cards), ()):
        start = shape.high + 1 if stretch[0] == 1 else shape.low - 1
        if _stretch_cards(row, start, stretch) == cards:
            return j
    return None


def encode(state: GameState | None, action: Action) -> int:
    """Return the id of an engine action offered in `state` (None: a meld, a discard or a fixed
    id, which need no state); raises `NoId` when it has none."""
    kind = action.kind
    found: int | None = None
    if kind == "draw":
        found = DRAW
    elif kind == "pile":
        found = PILE
    elif kind == "dead" and action.dead in (0, 1):
        found = DEAD + (action.dead or 0)
    elif kind == "discard" and len(action.cards) == 1:
        found = DISCARD + CARD_INDEX[action.cards[0]]
    elif kind == "meld":
        m = MELD_INDEX.get(action.cards)
        found = None if m is None else MELD + m
    elif kind == "add" and state is not None and action.meld is not None and 0 <= action.meld < min(len(state.melds), MELD_SLOTS):
        j = _lay_off_offset(state, action.meld, action.cards)
        found = None if j is None else LAY_OFF + action.meld * LAY_OFF_BLOCK + j
    if found is None:
        raise NoId(f"no action id for {action!r}")
    return found


def decode(state: GameState | None, action_id: int) -> Action | None:
    """Return the engine action of an id, or None when the id names none in `state` (a lay-off
    onto a meld not on the table, a stretch past a run's end, a later description of cards an
    earlier one names). Melds, discards and the fixed ids need no state (None)."""
    if not 0 <= action_id < N_ACTIONS:
        raise ValueError(f"action id {action_id} is not in 0..{N_ACTIONS - 1}")
    if action_id == DRAW:
        return Action("draw")
    if action_id == PILE:
        return Action("pile")
    if action_id < DISCARD:
        return Action("dead", dead=action_id - DEAD)
    if action_id < MELD:
        return Action("discard", (CARDS[action_id - DISCARD],))
    if action_id < LAY_OFF:
        return Action("meld", MELDS[action_id - MELD])
    if state is None:
        raise ValueError(f"action id {action_id} is a lay-off: it decodes against a state")
    meld, j = divmod(action_id - LAY_OFF, LAY_OFF_BLOCK)
    cards = _lay_off_cards(state, meld, j)
    if cards is None or _lay_off_offset(state, meld, cards) != j:
        return None
    return Action("add", cards, meld)


def describe(action_id: int) -> str:
    """Return an id's meaning in words (the action table of docs/rl.md), without a state."""
    if action_id == DRAW:
        return "draw from the stock"
    if action_id == PILE:
        return "take the discard pile"
    if action_id < DISCARD:
        return f"take dead {action_id - DEAD}"
    if action_id < MELD:
        return f"discard {CARDS[action_id - DISCARD]}"
    if action_id < LAY_OFF:
        return "meld " + " ".join(MELDS[action_id - MELD])
    meld, j = divmod(action_id - LAY_OFF, LAY_OFF_BLOCK)
    if j < _SET_NATURALS:
        return f"lay off {CARDS[j]} onto meld {meld}"
    if j < _RUN_STRETCHES:
        counts = SET_COUNTS[j - _SET_NATURALS]
        suits = " ".join(f"{n}x{s}" for s, n in zip(SUITS, counts, strict=True) if n)
        return f"lay off the set's rank in {suits} onto meld {meld}"
    step, length, place, wild = STRETCHES[j - _RUN_STRETCHES]
    where = "above its high end" if step == 1 else "below its low end"
    with_wild = f", {wild} standing at place {place + 1}" if wild else ", no wild"
    return f"lay off a stretch of {length} onto run {meld} {where}{with_wild}"


__all__ = [
    "CARDS", "CARD_INDEX", "DEAD", "DISCARD", "DRAW", "LAY_OFF", "LAY_OFF_BLOCK", "MELD", "MELDS",
    "MELD_SLOTS", "MAX_STRETCH", "N_ACTIONS", "NoId", "PILE", "SET_COUNTS", "STRETCHES", "WILDS",
    "decode", "describe", "encode",
]
