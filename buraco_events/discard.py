"""The rule of a discard: which card the seat to play may discard now, and why not (RULES 2, 4
and 6), in one place.

Every question about a discard asks `discard_bar`: the check of a discard (`engine`), the
take of an open pile of one card, which needs a legal discard after it (`any_discard`), the legal
moves and the forced-move test (`moves.legal_discards`, `moves.has_two_discards`, the table). The
check of a play asks `closing_bar`, the part of the rule for a hand's last card, of the card the
play would leave. Its own module: the engine, the checks of a play and the moves all ask it, and
it asks only the state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from .cards import Card, is_wild_card, team_of
from .state import GameState, Hand, Meld

#: the answers of the rule (`discard_bar`): the card may go, or why not: a closed pile's top waits
#: for the next play, or to be melded this turn; the card is not held; it is the single card just
#: taken from an open pile; it is the last card and the team has no canasta to close with, or it
#: is a wild and may not be the closing discard. Ints, so that the moves ask the rule of every card
#: without making the words (`discard_refusal` makes them for the check's error).
MAY_GO: Final = 0
TOP_PENDING: Final = 1
TOP_DUE: Final = 2
NOT_HELD: Final = 3
SINGLE_TAKEN: Final = 4
NO_CANASTA: Final = 5
WILD_LAST: Final = 6


def canasta_need(state: GameState) -> str:
    """Return the words of the canasta closing needs in these rules."""
    return "clean canasta" if state.rules.close_needs_clean else "canasta"


def holds_one(hand: Hand) -> bool:
    """Return whether the hand holds exactly one card."""
    if len(hand) != 1:
        return False
    for n in hand.values():
        return n == 1
    return False


def closing_bar(state: GameState, team: int, card: Card, meld: Callable[[], Meld] | None) -> int:
    """Return whether `card`, the last card of a seat of `team`, may be discarded (`MAY_GO`) or
    why not (`NO_CANASTA`, `WILD_LAST`).

    A hand that empties takes the team's dead while it may; otherwise the discard closes, which
    needs a canasta (RULES 6) and, in some variants, a natural card. `meld` builds the meld a play
    leaves on the table (it counts for the canasta), only when the answer needs it.
    """
    if state.can_take_dead(team):
        return MAY_GO  # an indirect dead
    if not state.has_closing_canasta(team, None if meld is None else meld()):
        return NO_CANASTA
    if state.rules.no_wild_last_discard and is_wild_card(card):
        return WILD_LAST
    return MAY_GO


def discard_bar(state: GameState, player: int, card: Card, last: bool) -> int:
    """Return whether `player`, the seat to play in the play phase, may discard `card` now
    (`MAY_GO`) or why not. `last`: the card is the one card held (`holds_one`).

    While a closed pile's top waits (to go into the next play, or to be melded before the turn
    ends) no card may go; a single card taken from an open pile may not go back (no single-card
    return); the last card goes only as `closing_bar` allows.
    """
    if state.pending_top is not None:
        return TOP_PENDING
    if state.top_due is not None:
        return TOP_DUE
    if card not in state.hands[player]:
        return NOT_HELD
    if state.single_taken is not None and card == state.single_taken:
        return SINGLE_TAKEN
    if last:
        return closing_bar(state, team_of(player), card, None)
    return MAY_GO


def discard_refusal(state: GameState, card: Card, bar: int) -> str:
    """Return the words of `discard_bar`'s answer `bar` (not `MAY_GO`) for a discard of `card`."""
    if bar == TOP_PENDING:
        return f"closed pile: the top card {state.pending_top} must go into the first play after taking the pile"
    if bar == TOP_DUE:
        return f"the top card {state.top_due} taken from the pile must be melded before the turn ends"
    if bar == NOT_HELD:
        return f"{card} is not in the hand"
    if bar == SINGLE_TAKEN:
        return f"no single-card return: {card} was the one card taken from the pile"
    if bar == NO_CANASTA:
        return f"cannot close: the team has no {canasta_need(state)}"
    return f"the closing discard may not be a wild ({card})"


def any_discard(state: GameState) -> bool:
    """Return whether the seat to play may discard some card now (in the play phase)."""
    if state.phase != "play":
        return False
    player = state.to_play
    hand = state.hands[player]
    last = holds_one(hand)
    for card in hand:
        if discard_bar(state, player, card, last) == MAY_GO:
            return True
    return False
