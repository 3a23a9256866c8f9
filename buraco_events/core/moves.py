"""The legal moves: what the seat to move (or the table) may record next, as events: the draws,
the checked melds and lay-offs, the discards, the dead takes and the ends of a hand and a game
(`legal_events`, by phase: `LEGAL`).

Its own module: the moves are generated from the rules (`engine`, `playcheck`, `discard`) and
change with what bots and UIs are offered, not with the rules themselves; it imports the engine,
never the reverse.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from buraco_events.model.events import (
    Discarded,
    Drew,
    Event,
    GameEnded,
    HandEnded,
    StockRefilled,
    TookDead,
    TookPile,
)

from .cards import team_of
from .discard import MAY_GO, card_bar, holds_one, turn_bar
from .engine import check_take_form, must_refill, pile_allows
from .gate import IllegalMove
from .playcheck import iter_plays
from .sheets import hand_scores
from .state import GameState, Phase


def candidate_plays(state: GameState) -> list[Event]:
    """Return the candidate melds and lay-offs for the player to move that pass `check`."""
    return list(iter_plays(state))


def legal_discards(state: GameState) -> list[Discarded]:
    """Return each distinct legal discard for the player to move (the discard rule:
    `discard.turn_bar`, then `discard.card_bar` of every card held)."""
    if state.phase != "play" or turn_bar(state) != MAY_GO:
        return []
    player, seq = state.to_play, state.next_seq
    hand = state.hands[player]
    last = holds_one(hand)
    out = []
    for card in sorted(hand):
        if card_bar(state, player, card, last) == MAY_GO:
            out.append(Discarded(seq=seq, player=player, card=card))
    return out


def has_two_discards(state: GameState) -> bool:
    """Return True when the player to move surely has two legal discards or more (False says
    nothing): the table's forced-move test, which stops at the second.

    Two distinct cards held make two cards held, so no card asked is the last one.
    """
    if state.phase != "play" or turn_bar(state) != MAY_GO:
        return False
    player = state.to_play
    distinct = 0
    for card in state.hands[player]:
        if card_bar(state, player, card, False) == MAY_GO:
            distinct += 1
            if distinct >= 2:
                return True
    return False


def legal_draws(state: GameState) -> list[Event]:
    """Return the legal ways to start the turn (draw, take the pile) or to refill/end the hand."""
    if state.phase != "draw":
        return []
    seq, player = state.next_seq, state.to_play
    if must_refill(state):
        refills: list[Event] = [
            StockRefilled(seq=seq, dead=i) for i, d in enumerate(state.deads) if d is not None
        ]
        if state.rules.refill == "all":
            refills = refills[:1]  # RULES 5: every dead in turn, lowest first
        return refills or [end_of_hand(state)]
    out: list[Event] = []
    if state.stock:
        # passes `check` by construction: the phase, the turn, the stock's top, and no refill
        # due (`refilling` is set only where the stock refills: `must_refill` answered above)
        out.append(Drew(seq=seq, player=player, card=state.stock[-1]))
    if state.pile:
        ev = TookPile(seq=seq, player=player, cards=tuple(state.pile))
        # what `check` runs for the take (its seq is the next one by construction), the pile's
        # rule as a bool: most takes of a closed pile are refused, and an error raised and caught
        # would cost more than the look-ahead that refuses them
        try:
            check_take_form(state, ev)
        except IllegalMove:
            return out
        if pile_allows(state, ev):
            out.append(ev)
    return out


def legal_dead_takes(state: GameState) -> list[TookDead]:
    """Return the deads the player whose hand emptied may take."""
    if state.phase != "dead":
        return []
    team = team_of(state.to_play)
    return [
        TookDead(seq=state.next_seq, player=state.to_play, dead=i, cards=d)
        for i, d in enumerate(state.deads)
        if d is not None and (state.rules.dead_owner == "first" or i == team)
    ]


def end_of_hand(state: GameState, salt: str | None = None) -> HandEnded:
    """Return the `hand_ended` event the engine would record now, with the recomputed scores."""
    scores = tuple(s.total for s in hand_scores(state))
    return HandEnded(
        seq=state.next_seq, hand=state.hand_no, reason=state.end_reason or "stock_exhausted",
        closed_by=state.closed_by, scores=scores, salt=salt,
    )


def end_of_game(state: GameState) -> GameEnded:
    """Return the `game_ended` event for a finished match."""
    assert state.winner is not None
    return GameEnded(seq=state.next_seq, totals=tuple(state.totals), winner=state.winner)


def legal_events(state: GameState) -> list[Event]:
    """Return every legal next event except deals (see `deal.deal`): what bots and UIs choose from."""
    return LEGAL[state.phase](state)


def _no_events(state: GameState) -> list[Event]:
    return []


def _plays_and_discards(state: GameState) -> list[Event]:
    return [*candidate_plays(state), *legal_discards(state)]




#: the legal events of a state in each phase (a deal, chance's event, is made by `chance.deal`)
LEGAL: Final[dict[Phase, Callable[[GameState], list[Event]]]] = {
    "start": _no_events,
    "deal": _no_events,
    "draw": legal_draws,
    "play": _plays_and_discards,
    "dead": lambda state: list(legal_dead_takes(state)),
    "hand_end": lambda state: [end_of_hand(state)],
    "game_end": lambda state: [end_of_game(state)],
    "over": _no_events,
}
