"""The rule of a discard: which card the seat to play may discard now, and why not (RULES 2, 4
and 6), in one place.

`discard_bar` is the rule whole, as the check of a discard asks it (`engine`); its parts are
`turn_bar` (no card while a closed pile's top waits) and `card_bar` (of a card held: no
single-card return, the last card only as `closing_bar` allows), which the moves and the table
ask of the cards they take from the hand (`moves.legal_discards`, `moves.has_two_discards`, the
forced-move discards) and the take of an open pile of one card asks through `any_discard`. The
check of a play asks `closing_bar` of the card the play would leave. Its own module: the engine,
the checks of a play, the moves and the table all ask it, and it asks only the state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from .cards import Card, is_wild_card, team_of
from .deads import can_take_dead
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
    if can_take_dead(state, team):
        return MAY_GO  # an indirect dead
    if not state.has_closing_canasta(team, None if meld is None else meld()):
        return NO_CANASTA
    if state.rules.no_wild_last_discard and is_wild_card(card):
        return WILD_LAST
    return MAY_GO


def discard_bar(state: GameState, player: int, card: Card, last: bool) -> int:
    """Return whether `player`, the seat to play in the play phase, may discard `card` now
    (`MAY_GO`) or why not. `last`: the card is the one card held (`holds_one`).

    The rule in the order its parts are asked: no card while a closed pile's top waits
    (`turn_bar`), none not held, then `card_bar` of the card held.
    """
    bar = turn_bar(state)
    if bar != MAY_GO:
        return bar
    if card not in state.hands[player]:
        return NOT_HELD
    return card_bar(state, player, card, last)


def turn_bar(state: GameState) -> int:
    """Return `MAY_GO`, or why no card may be discarded now: a closed pile's top waits to go into
    the next play (`TOP_PENDING`) or to be melded before the turn ends (`TOP_DUE`)."""
    if state.pending_top is not None:
        return TOP_PENDING
    if state.top_due is not None:
        return TOP_DUE
    return MAY_GO


def card_bar(state: GameState, player: int, card: Card, last: bool) -> int:
    """Return whether `card`, held by `player`, may be discarded once `turn_bar` lets a discard
    through (`MAY_GO`) or why not: the single card just taken from an open pile may not go back
    (no single-card return); the last card goes only as `closing_bar` allows.

    The moves ask it of the cards they take from the hand (held by construction), after one
    `turn_bar` for them all.
    """
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
    if state.phase != "play" or turn_bar(state) != MAY_GO:
        return False
    player = state.to_play
    hand = state.hands[player]
    last = holds_one(hand)
    for card in hand:
        if card_bar(state, player, card, last) == MAY_GO:
            return True
    return False
