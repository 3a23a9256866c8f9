"""Projections: what anyone may see of a state, as plain data (pure folds of the engine).

`player_view(state, seat)` is the one place hidden cards are removed: other hands become counts,
the stock and untaken deads become counts, a closed pile shows only its top card and size. With
`seat=None` it is the referee's view, where everything is shown.
"""

from __future__ import annotations

import msgspec

from .cards import Card, sorted_cards
from .engine import GameState, hand_scores, team_of
from .scoring import TeamScore


class MeldView(msgspec.Struct, frozen=True, kw_only=True):
    """A meld as shown: canonical cards, run or set, clean or dirty, canasta kind."""

    id: int
    team: int
    cards: tuple[Card, ...]
    type: str
    clean: bool
    kind: str
    laid_by: int
    laid_seq: int
    canasta_seq: int | None = None


class PileView(msgspec.Struct, frozen=True, kw_only=True):
    """The discard pile: size, top card, and all cards when they are visible."""

    size: int
    top: Card | None
    cards: tuple[Card, ...] | None = None


class DeadView(msgspec.Struct, frozen=True, kw_only=True):
    """A dead: who took it (or `stock` when it refilled the stock), its cards or count."""

    taken_by: int | None
    fate: str | None
    cards: tuple[Card, ...] | int
    unused: bool = False


class PendingView(msgspec.Struct, frozen=True, kw_only=True):
    """A closed pile just taken: the top card that must be played and the rest (or a count)."""

    top: Card
    rest: tuple[Card, ...] | int


class View(msgspec.Struct, frozen=True, kw_only=True):
    """The table after an event, as seen from `seat` (None: the referee, who sees all)."""

    seq: int
    game_id: str
    variant: str
    players: tuple[str, ...]
    seat: int | None
    hand: int
    to_play: int
    phase: str
    hands: tuple[tuple[Card, ...] | int, ...]
    melds: tuple[MeldView, ...]
    pile: PileView
    stock: int
    deads: tuple[DeadView, ...]
    pending: PendingView | None
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    hand_scores: tuple[TeamScore, ...]
    winner: int | None = None


def meld_kind(canasta: str | None) -> str:
    """Return the analytics kind of a meld: none, dirty, clean, royal or ace_to_ace."""
    return canasta or "none"


def player_view(state: GameState, seat: int | None = None) -> View:
    """Return what `seat` may see of the state (`None`: everything)."""
    rules = state.rules
    hands: list[tuple[Card, ...] | int] = []
    for s, h in enumerate(state.hands):
        if seat is None or s == seat:
            hands.append(tuple(sorted_cards(h.elements())))
        else:
            hands.append(sum(h.values()))
    melds = tuple(
        MeldView(
            id=m.id, team=m.team, cards=m.cards, type=m.shape.kind, clean=m.shape.is_clean,
            kind=meld_kind(m.canasta(rules)), laid_by=m.laid_by, laid_seq=m.laid_seq,
            canasta_seq=m.canasta_seq,
        )
        for m in state.melds
    )
    pile_visible = seat is None or rules.pile == "open"
    pile = PileView(
        size=len(state.pile),
        top=state.pile[-1] if state.pile else None,
        cards=tuple(state.pile) if pile_visible else None,
    )
    deads = []
    for i, d in enumerate(state.deads):
        taker = state.dead_taker[i]
        if d is not None:
            deads.append(DeadView(taken_by=None, fate=None, cards=tuple(d) if seat is None else len(d)))
        else:
            unused = taker is not None and state.unused_seat[team_of(taker)] == taker
            deads.append(DeadView(taken_by=taker, fate=state.dead_fate[i], cards=0, unused=unused))
    pending = None
    if state.pending_top is not None:
        rest: tuple[Card, ...] | int = (
            tuple(state.pending_rest) if seat is None or seat == state.to_play else len(state.pending_rest)
        )
        pending = PendingView(top=state.pending_top, rest=rest)
    in_hand = state.phase in ("draw", "play", "dead", "hand_end")
    if in_hand:
        sheet: tuple[TeamScore, ...] = hand_scores(state)
        running = tuple(t + sc.total for t, sc in zip(state.totals, sheet, strict=True))
    else:
        sheet = state.hand_results[-1] if state.hand_results else ()
        running = tuple(state.totals)
    return View(
        seq=state.next_seq - 1, game_id=state.game_id, variant=state.variant,
        players=state.players, seat=seat, hand=state.hand_no, to_play=state.to_play,
        phase=state.phase, hands=tuple(hands), melds=melds, pile=pile, stock=len(state.stock),
        deads=tuple(deads), pending=pending, scores=running, totals=tuple(state.totals),
        hand_scores=tuple(sheet), winner=state.winner,
    )

