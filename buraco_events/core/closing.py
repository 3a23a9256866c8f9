"""Closing (docs/rules.md, section 6): what a team needs to close a hand, and whether a seat's last
card may go by the discard that closes.

"May this hand close?" is answered here: the team needs a canasta (a clean one in some variants:
`has_closing_canasta`, `canasta_need`); a last card goes only as `closing_bar` allows (a team that
may still take its dead takes it instead; some variants forbid a wild as the closing discard).
The discard rule (`turn.discard_bar`) and the check of a play that empties or nearly empties the
hand (`playcheck`) ask it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from .cards import Card, is_wild_card
from .deads import can_take_dead
from .melds import Meld, is_closing_canasta
from .state import GameState

#: `closing_bar`'s answers besides `turn.MAY_GO` (0): the team has no canasta to close with, or
#: the last card is a wild and may not be the closing discard (ints, as the discard rule's)
NO_CANASTA: Final = 5
WILD_LAST: Final = 6


def canasta_need(state: GameState) -> str:
    """Return the words of the canasta closing needs in these rules."""
    return "clean canasta" if state.rules.close_needs_clean else "canasta"


def has_closing_canasta(state: GameState, team: int, extra: Meld | None = None) -> bool:
    """Return whether the team holds the canasta closing needs (RULES 6).

    `extra` is a meld as a play would leave it (grown, or new): it counts in place of its old
    self.
    """
    melds = state.melds if extra is None else [*(m for m in state.melds if m.id != extra.id), extra]
    rules = state.rules
    return any(
        m.team == team and is_closing_canasta(len(m.shape.cards), m.shape.is_clean, rules)
        for m in melds
    )


def closing_bar(state: GameState, team: int, card: Card, meld: Callable[[], Meld] | None) -> int:
    """Return whether `card`, the last card of a seat of `team`, may be discarded (0, `turn.MAY_GO`) or
    why not (`NO_CANASTA`, `WILD_LAST`).

    A hand that empties takes the team's dead while it may; otherwise the discard closes, which
    needs a canasta (RULES 6) and, in some variants, a natural card. `meld` builds the meld a play
    leaves on the table (it counts for the canasta), only when the answer needs it.
    """
    if can_take_dead(state, team):
        return 0  # `turn.MAY_GO`: an indirect dead
    if not has_closing_canasta(state, team, None if meld is None else meld()):
        return NO_CANASTA
    if state.rules.no_wild_last_discard and is_wild_card(card):
        return WILD_LAST
    return 0  # `turn.MAY_GO`
