"""The legal moves: what the seat to move (or the table) may record next, as events, by phase
(`legal_events`, `LEGAL`). Each rule generates its own (the draws and discards `turn`, the melds
and lay-offs `playcheck`, the dead takes `deads`, the ends of a hand and a game `sheets`); this
module gathers them for bots and UIs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from buraco_events.model.events import Event

from .deads import legal_dead_takes
from .playcheck import iter_plays
from .sheets import end_of_game, end_of_hand
from .state import GameState, Phase
from .turn import legal_discards, legal_draws


def candidate_plays(state: GameState) -> list[Event]:
    """Return the candidate melds and lay-offs for the player to move that pass `check`."""
    return list(iter_plays(state))


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
