"""The turn: draw from the stock, take the discard pile (open or closed, and the closed pile's top
card), discard, and the turn's end (docs/rules.md, sections 2 and 5): each event's check and apply,
and the legal draws and discards of the seat to move.

"May I take the pile?" is answered here: `check_took_pile` asks the take's form
(`check_take_form`), then the pile's own rule (`pile_allows`): an open pile of one card needs a
legal discard or play after it (no single-card return), a closed pile a play holding its top at
once (`closed_take_usable`, over the look-ahead's candidates). Both try the take on a copy
(`trial_take`). "May I discard this card?" too: `discard_bar` is the discard rule whole, as the
check of a discard asks it; its parts are `turn_bar` (no card while a closed pile's top waits) and
`card_bar` (of a card held: no single-card return, the last card only as `closing.closing_bar`
allows), which the legal discards, the forced-move test and the take of an open pile of one card
ask. A hand that empties takes its dead or closes (`deads.empty_hand`); the stock's refill is the
deads' (`deads`).
The phase machine (`engine.FLOW`) calls these and sets the next phase.
"""

from __future__ import annotations

from typing import Final

from buraco_events.model.events import Discarded, Drew, Event, StockRefilled, TookPile

from .cards import Card
from .closing import NO_CANASTA, canasta_need, closing_bar
from .deads import check_not_refilling, empty_hand, must_refill, refill_due
from .gate import (
    IllegalMove,
    card_list,
    expect_phase,
    expect_turn,
    illegal_move,
    rules_context,
    team_of,
)
from .lookahead import is_natural_top
from .playcheck import any_passes, any_play
from .plays import top_play_candidates
from .sheets import end_of_hand
from .state import GameState, Hand, add_cards, shallow_copy

# -- drawing from the stock ------------------------------------------------------------------------


def start_turn(state: GameState, player: int) -> None:
    team = team_of(player)
    if state.deads.unused[team] == player:
        state.deads.unused[team] = None  # RULES 4: the taker started another turn


def check_drew(state: GameState, ev: Drew) -> None:
    # the phase and refill tests are inlined: a drew is every fourth event of a log
    if state.phase != "draw":
        expect_phase(state, ev)
    expect_turn(state, ev)
    if state.refilling:
        check_not_refilling(state, ev)
    stock = state.stock
    if not stock:
        raise illegal_move(state, ev, "the stock is empty")
    if ev.card != stock[-1]:
        raise illegal_move(state, ev, f"drew {ev.card} but the stock's top card is {stock[-1]}",
                    "drew a card that is not the stock's top card")


def apply_drew(state: GameState, ev: Drew) -> None:
    player = ev.player
    if state.deads.unused[team_of(player)] == player:
        start_turn(state, player)
    stock = state.stock
    stock.pop()
    hand = state.hands[player]
    card = ev.card
    hand[card] = hand.get(card, 0) + 1
    state.turn_progress = True  # RULES 5: a stock draw is progress
    if len(stock) == 2 and rules_context(state).stock_two_left:
        state.last_turn = True  # RULES 5: this turn is the hand's last


# -- taking the pile -------------------------------------------------------------------------------


def check_took_pile(state: GameState, ev: TookPile) -> None:
    check_take_form(state, ev)
    if not pile_allows(state, ev):
        if rules_context(state).pile_open:
            raise illegal_move(state, ev, f"no single-card return: after taking {state.pile[0]} there would be no legal discard")
        raise illegal_move(state, ev, f"closed pile: the top card {state.pile[-1]} cannot be melded at once")


def check_take_form(state: GameState, ev: TookPile) -> None:
    """Check a take's phase, turn and cards, and that the stock is not due to be refilled first."""
    expect_phase(state, ev)
    expect_turn(state, ev)
    if refill_due(state):
        if not state.stock:
            raise illegal_move(state, ev, "the stock is empty: it is refilled (or the hand ends) first")
        check_not_refilling(state, ev)
    if not state.pile:
        raise illegal_move(state, ev, "the discard pile is empty")
    if tuple(ev.cards) != tuple(state.pile):
        # a closed pile shows only its top: which cards differ is hidden
        public = None if rules_context(state).pile_open else "took_pile cards differ from the pile"
        raise illegal_move(state, ev, f"took_pile cards {card_list(ev.cards)} differ from the pile {card_list(state.pile)}",
                    public)


def pile_allows(state: GameState, ev: TookPile) -> bool:
    """Return whether the pile's own rule lets the take of a well-formed `ev` through (RULES 2).

    An open pile of one card, with no single-card return, needs a legal discard or play after
    the take; a closed pile needs a play holding its top right after it (`closed_take_usable`).
    """
    ctx = rules_context(state)
    if ctx.pile_open:
        if len(state.pile) == 1 and ctx.no_single_card_return:
            trial = trial_take(state, ev)
            return any_discard(trial) or any_play(trial)
        return True
    return closed_take_usable(state, ev)


def closed_take_usable(state: GameState, ev: TookPile) -> bool:
    """Return whether some play holding the closed pile's top is legal right after the take.

    `any_play` over the state as taken decides it too; for a natural top the look-ahead builds
    only the plays that hold it, and the trial is made only once there is one to check.
    """
    top = state.pile[-1]
    if not is_natural_top(top):
        return any_play(trial_take(state, ev))
    candidates = top_play_candidates(state, ev.player, top, 1)
    if not candidates:
        return False
    return any_passes(trial_take(state, ev), ev.player, candidates)


def trial_take(state: GameState, ev: TookPile) -> GameState:
    """Return a trial of the take `ev`: a new state as the take leaves it for the check of the
    next play, `state` itself never written (the one way a check tries a move).

    The trial shares every list the take leaves alone and owns those it writes in place (the
    taken seat's hand, and the `Deads` when the taker's dead is unused). An open pile is taken as
    `apply_took_pile` takes it. A closed pile is tried with its top waiting for the next play,
    whatever `pile_top_use` says: the take needs a play holding the top at once (RULES 2). Either way the trial is in the play
    phase at the next seq, as the phase machine leaves a take.
    """
    trial = shallow_copy(state)
    if state.deads.unused[team_of(ev.player)] == ev.player:
        trial.deads = state.deads.copy()  # the take's `start_turn` writes it: the trial's own
    trial.hands = list(state.hands)
    trial.hands[ev.player] = state.hands[ev.player].copy()
    if rules_context(state).pile_open:
        apply_took_pile(trial, ev)
    else:
        pile = state.pile
        trial.pile, trial.pending_top, trial.pending_rest = [], pile[-1], pile[:-1]
    trial.phase, trial.next_seq = "play", ev.seq + 1
    return trial


def apply_took_pile(state: GameState, ev: TookPile) -> None:
    start_turn(state, ev.player)
    pile = state.pile
    state.pile = []
    ctx = rules_context(state)
    if ctx.closed_next_play:
        state.pending_top = pile[-1]
        state.pending_rest = pile[:-1]
    elif not ctx.pile_open:
        add_cards(state.hands[ev.player], pile)  # RULES 2, turn_end: the whole pile joins the hand
        state.top_due = pile[-1]
    else:
        add_cards(state.hands[ev.player], pile)
        if len(pile) == 1 and ctx.no_single_card_return:
            state.single_taken = pile[0]


# -- discarding, and the turn's end ----------------------------------------------------------------


def check_discarded(state: GameState, ev: Discarded) -> None:
    if state.phase != "play":
        expect_phase(state, ev)
    player = expect_turn(state, ev)
    bar = discard_bar(state, player, ev.card, holds_one(state.hands[player]))
    if bar != MAY_GO:
        raise illegal_move(state, ev, discard_refusal(state, ev.card, bar))


def apply_discarded(state: GameState, ev: Discarded) -> None:
    player = ev.player
    hand = state.hands[player]
    card = ev.card
    n = hand[card] - 1
    if n:
        hand[card] = n
    else:
        del hand[card]
    state.pile.append(card)
    if hand:
        end_turn(state)
    else:
        empty_hand(state, player, "indirect")


def end_turn(state: GameState) -> None:
    """End the turn: the hand ends (`end_reason` set) or the next seat is to draw."""
    if state.last_turn:
        state.end_reason = "stock_exhausted"
        return
    state.quiet_turns = 0 if state.turn_progress else state.quiet_turns + 1
    state.turn_progress = False
    n = len(state.players)
    rounds = rules_context(state).stalemate_rounds
    if rounds and state.quiet_turns >= rounds * n:
        state.end_reason = "stalemate"  # RULES 5: no progress
        return
    state.to_play = (state.to_play + 1) % n
    state.turn += 1
    state.single_taken = None


# -- the discard rule: which card may go now, and why not -----------------------------------------

#: the answers of the rule (`discard_bar`): the card may go, or why not: a closed pile's top waits
#: for the next play, or to be melded this turn; the card is not held; it is the single card just
#: taken from an open pile; it is the last card and the team has no canasta to close with, or it
#: is a wild and may not be the closing discard (`closing.NO_CANASTA`, `closing.WILD_LAST`). Ints, so that the moves ask the rule of every card
#: without making the words (`discard_refusal` makes them for the check's error).
MAY_GO: Final = 0
TOP_PENDING: Final = 1
TOP_DUE: Final = 2
NOT_HELD: Final = 3
SINGLE_TAKEN: Final = 4


def holds_one(hand: Hand) -> bool:
    """Return whether the hand holds exactly one card."""
    if len(hand) != 1:
        return False
    for n in hand.values():
        return n == 1
    return False


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


# -- the legal draws and discards -----------------------------------------------------------------


def legal_draws(state: GameState) -> list[Event]:
    """Return the legal ways to start the turn (draw, take the pile) or to refill/end the hand."""
    if state.phase != "draw":
        return []
    seq, player = state.next_seq, state.to_play
    if must_refill(state):
        refills: list[Event] = [
            StockRefilled(seq=seq, dead=i) for i, d in enumerate(state.deads.left) if d is not None
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


def legal_discards(state: GameState) -> list[Discarded]:
    """Return each distinct legal discard for the player to move (the discard rule:
    `turn_bar`, then `card_bar` of every card held)."""
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
