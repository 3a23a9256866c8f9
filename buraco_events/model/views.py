"""The views: what anyone may see of a game, as plain data (msgspec Structs).

`seatview.player_view` builds them (compiled in the compiled build); `projections` re-exports
both. The Structs live in a module of their own, which stays Python: mypyc would drop their
options (frozen, kw_only) in a compiled module.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from .cards import Card
from .scoring import TeamScore
from .terms import CanastaKind, DeadFate, MeldType, Phase

#: a meld's kind as shown and indexed: its canasta kind, or `none` below a canasta
MeldKind = CanastaKind | Literal["none"]


class MeldView(msgspec.Struct, frozen=True, kw_only=True):
    """A meld as shown: canonical cards, run or set (`type`), clean or dirty, canasta kind."""

    id: int
    team: int
    cards: tuple[Card, ...]
    type: MeldType
    clean: bool
    kind: MeldKind
    laid_by: int
    laid_seq: int
    canasta_seq: int | None = None


class PileView(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """The discard pile: size, top card, and all cards when they are visible (else omitted)."""

    size: int
    top: Card | None
    cards: tuple[Card, ...] | None = None


class DeadView(msgspec.Struct, frozen=True, kw_only=True):
    """A dead: who took it (fate `taken`, or `stock` when it refilled the stock), cards or count.

    `cards` counts the cards still in the dead (0 once it is gone) when they are hidden.
    """

    taken_by: int | None
    fate: DeadFate | None
    cards: tuple[Card, ...] | int
    unused: bool = False


class PendingView(msgspec.Struct, frozen=True, kw_only=True):
    """A closed pile just taken: the top card that must be played and the rest (or a count)."""

    top: Card
    rest: tuple[Card, ...] | int


class View(msgspec.Struct, frozen=True, kw_only=True):
    """The table after an event, as seen from `seat` (None: the referee, who sees all).

    `scores` is the running total per team (previous hands plus this hand's sheet);
    `hands_counted` is False when the sheet leaves out the cards still held (hidden hands).
    """

    seq: int
    game_id: str
    variant: str
    players: tuple[str, ...]
    seat: int | None
    hand: int
    to_play: int
    phase: Phase
    hands: tuple[tuple[Card, ...] | int, ...]
    melds: tuple[MeldView, ...]
    pile: PileView
    stock: int
    deads: tuple[DeadView, ...]
    pending: PendingView | None
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    hand_scores: tuple[TeamScore, ...]
    hands_counted: bool = True
    winner: int | None = None
    #: `pile_top_use` turn_end: the top card taken from the closed pile, yet to be melded this turn
    top_due: Card | None = None


def meld_kind(canasta: CanastaKind | None) -> MeldKind:
    """Return the analytics kind of a meld: none, dirty, clean, royal or ace_to_ace."""
    return canasta or "none"
