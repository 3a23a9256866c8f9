"""The observation: what one seat may see (`player_view`), as a flat float32 numpy array.

The layout (`LAYOUT`: each block's name, offset and size; docs/rl.md has the table) is fixed for
every variant and both player counts. Seats are counted from the observer: relative seat 0 is
the observer, 1 the next clockwise, and so on (a 2-player table leaves relative seats 2 and 3 at
zero). Teams likewise: "ours" is the observer's, "theirs" the other. A card row is 53 counts in
`actions.CARDS` order.

Everything is read from the seat's view, never from the state: the array of a seat is the same
whatever the cards it cannot see (tested by re-dealing them).
"""

from __future__ import annotations

from typing import Final

import numpy as np

from buraco_events.core.cards import Card
from buraco_events.core.gate import team_of
from buraco_events.core.seatview import player_view
from buraco_events.core.state import GameState
from buraco_events.model.views import View

from .actions import CARD_INDEX, CARDS, MELD_SLOTS

N_CARDS: Final = len(CARDS)
#: the phases the observation names (any other: none of them set)
PHASES: Final = ("draw", "play", "dead")
#: a meld slot: flags, then a card row
MELD_FLAGS: Final = ("present", "ours", "run", "clean", "canasta")
MELD_WIDTH: Final = len(MELD_FLAGS) + N_CARDS
#: per relative seat: cards held, whether it is to move
SEAT_FIELDS: Final = ("cards_held", "to_move")
#: per dead: still there, cards in it, taken by us, taken by them
DEAD_FIELDS: Final = ("waiting", "cards", "taken_by_us", "taken_by_them")
#: the numbers of the table: a constant 1, the stock and pile sizes, the hand (0-based), the
#: phase, the totals of the hands finished (ours, theirs)
SCALARS: Final = (
    "bias", "stock", "pile_size", "hand", "phase_draw", "phase_play", "phase_dead",
    "total_ours", "total_theirs",
)

#: each block's name and size, in array order (the comments say what it holds)
_BLOCKS: Final[tuple[tuple[str, int], ...]] = (
    ("hand", N_CARDS),  # the observer's cards, counts
    ("pile_top", N_CARDS),  # the pile's top card, one-hot
    ("pile_cards", N_CARDS),  # the pile's cards when the rules show them (open pile), counts
    ("top_due", N_CARDS),  # a closed pile's top taken and yet to be played, one-hot
    ("pending_rest", N_CARDS),  # the rest of a closed pile being taken, when shown, counts
    ("melds", MELD_SLOTS * MELD_WIDTH),  # slot k = meld id k: `MELD_FLAGS`, then a card row
    ("seats", 4 * len(SEAT_FIELDS)),  # per relative seat: `SEAT_FIELDS`
    ("deads", 2 * len(DEAD_FIELDS)),  # per dead: `DEAD_FIELDS`
    ("scalars", len(SCALARS)),  # `SCALARS`
)
#: (block, offset, size) in array order
LAYOUT: Final[tuple[tuple[str, int, int], ...]] = tuple(
    (name, sum(size for _, size in _BLOCKS[:i]), size) for i, (name, size) in enumerate(_BLOCKS)
)
OFFSET: Final[dict[str, int]] = {name: offset for name, offset, _ in LAYOUT}
SIZE: Final = LAYOUT[-1][1] + LAYOUT[-1][2]


def observe(state: GameState, seat: int) -> np.ndarray:
    """Return the observation of `seat`, built from its view alone (`player_view`, without the
    running hand's score sheet: the totals of the hands finished are in it)."""
    return observe_view(player_view(state, seat, scores=False), seat)


def observe_view(view: View, seat: int) -> np.ndarray:
    """Return the observation of `seat` from its view (see the module docstring).

    The card rows and flags are gathered as indices (one per card copy or flag set) and counted
    in one `np.bincount`; the few numbers are set after.
    """
    index = CARD_INDEX
    at: list[int] = []
    hand = view.hands[seat]
    if not isinstance(hand, int):
        at += [index[c] for c in hand]  # "hand" is the first block: offset 0
    pile = view.pile
    if pile.top is not None:
        at.append(_PILE_TOP + index[pile.top])
    if pile.cards is not None:
        at += [_PILE_CARDS + index[c] for c in pile.cards]
    due: Card | None = view.top_due
    if view.pending is not None:
        due = view.pending.top
        if not isinstance(view.pending.rest, int):
            at += [_PENDING_REST + index[c] for c in view.pending.rest]
    if due is not None:
        at.append(_TOP_DUE + index[due])
    team = team_of(seat)
    for m in view.melds:
        if m.id >= MELD_SLOTS:
            continue
        base = _MELDS + m.id * MELD_WIDTH
        at.append(base)
        if m.team == team:
            at.append(base + 1)
        if m.type == "run":
            at.append(base + 2)
        if m.clean:
            at.append(base + 3)
        if m.kind != "none":
            at.append(base + 4)
        cards = base + len(MELD_FLAGS)
        at += [cards + index[c] for c in m.cards]
    obs = np.bincount(at, minlength=SIZE).astype(np.float32)
    n = len(view.players)
    for rel in range(n):
        s = (seat + rel) % n
        held = view.hands[s]
        obs[_SEATS + rel * 2] = held if isinstance(held, int) else len(held)
        if view.to_play == s and view.phase in PHASES:
            obs[_SEATS + rel * 2 + 1] = 1
    for i, dead in enumerate(view.deads[:2]):
        base = _DEADS + i * len(DEAD_FIELDS)
        obs[base] = dead.fate is None
        obs[base + 1] = dead.cards if isinstance(dead.cards, int) else len(dead.cards)
        if dead.taken_by is not None:
            obs[base + 2 if team_of(dead.taken_by) == team else base + 3] = 1
    base = _SCALARS
    obs[base] = 1
    obs[base + 1] = view.stock
    obs[base + 2] = pile.size
    obs[base + 3] = max(view.hand, 0)
    if view.phase in PHASES:
        obs[base + 4 + PHASES.index(view.phase)] = 1
    if len(view.totals) == 2:
        obs[base + 7], obs[base + 8] = view.totals[team], view.totals[1 - team]
    return obs


_PILE_TOP: Final = OFFSET["pile_top"]
_PILE_CARDS: Final = OFFSET["pile_cards"]
_TOP_DUE: Final = OFFSET["top_due"]
_PENDING_REST: Final = OFFSET["pending_rest"]
_MELDS: Final = OFFSET["melds"]
_SEATS: Final = OFFSET["seats"]
_DEADS: Final = OFFSET["deads"]
_SCALARS: Final = OFFSET["scalars"]


__all__ = ["LAYOUT", "OFFSET", "SIZE", "observe", "observe_view"]
