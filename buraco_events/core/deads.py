"""The dead hands (docs/rules.md, sections 4 and 5): who may take which dead, when a dead is taken,
and a dead refilling the stock.

"When is a dead taken?" is answered here: a hand that empties (`empty_hand`) takes its team's dead
while the team may (`can_take_dead`, `may_take`): at once and plays on when a meld or a lay-off
emptied it (direct), after the discard that emptied it and the turn ends (indirect); otherwise the
hand is closed. The take's check and apply, the legal takes, and the stock's refill from the
deads nobody took (RULES 5) live beside it. The phase machine (`engine.FLOW`) calls these and
sets the next phase.
"""

from __future__ import annotations

from buraco_events.model.events import Event, StockRefilled, TookDead
from buraco_events.model.terms import DeadMode

from .gate import expect_phase, expect_turn, illegal_move, rules_context, team_of
from .state import GameState, add_cards

# -- who may take which dead -------------------------------------------------------------------------


def may_take(state: GameState, team: int, dead: int) -> bool:
    """Return whether dead `dead` is still there for `team` to take: not gone, and the team's own
    where each dead belongs to one team (`dead_owner` team; RULES 4)."""
    return state.deads.left[dead] is not None and (state.rules.dead_owner != "team" or dead == team)


def deads_became_stock(state: GameState, team: int) -> bool:
    """Return whether no dead is left for `team` because the deads it might have taken became
    the stock (RULES 5): none of them waits, and one at least refilled the stock. Where
    `dead_penalty_after_refill` is no, such a team is spared the no-dead penalty (RULES 7)."""
    deads = state.deads
    refilled = False
    for i in range(len(deads.left)):
        if state.rules.dead_owner == "team" and i != team:
            continue
        if deads.left[i] is not None:
            return False  # a dead still waits for the team
        refilled = refilled or deads.fate[i] == "stock"
    return refilled


def can_take_dead(state: GameState, team: int) -> bool:
    """Return whether the team may still take a dead (none taken yet, one left for it)."""
    if state.deads.team_took[team] is not None:
        return False
    for i in range(len(state.deads.left)):
        if may_take(state, team, i):
            return True
    return False


def empty_hand(state: GameState, player: int, mode: DeadMode) -> None:
    """Record that the hand of `player` emptied, by a play (`direct`) or by a discard
    (`indirect`): the team takes a dead while it may (RULES 4: the machine's next phase is
    `dead`), else the hand is closed (RULES 6)."""
    if can_take_dead(state, team_of(player)):
        state.dead_mode = mode
    else:
        state.closed_by, state.end_reason = player, "closed"


# -- taking a dead -------------------------------------------------------------------------------------


def check_took_dead(state: GameState, ev: TookDead) -> None:
    expect_phase(state, ev)
    expect_turn(state, ev)
    dead = state.deads.left[ev.dead]
    if dead is None:
        raise illegal_move(state, ev, f"dead {ev.dead} is already gone ({state.deads.fate[ev.dead]})")
    if not may_take(state, team_of(ev.player), ev.dead):
        raise illegal_move(state, ev, f"dead {ev.dead} belongs to team {ev.dead}")
    if tuple(ev.cards) != tuple(dead):
        raise illegal_move(state, ev, f"took_dead cards differ from dead {ev.dead} as dealt")


def apply_took_dead(state: GameState, ev: TookDead) -> bool:
    """Take the dead into the hand; return whether the turn ends with it (an indirect dead: the
    machine ends the turn as a discard does) or goes on (a direct dead, RULES 4)."""
    direct = state.dead_mode == "direct"
    state.deads.take(ev.dead, ev.player, team_of(ev.player), direct)
    add_cards(state.hands[ev.player], ev.cards)  # the check holds them equal to the dead's
    state.dead_mode = None
    return not direct


def legal_dead_takes(state: GameState) -> list[TookDead]:
    """Return the deads the player whose hand emptied may take."""
    if state.phase != "dead":
        return []
    team = team_of(state.to_play)
    return [
        TookDead(seq=state.next_seq, player=state.to_play, dead=i, cards=d)
        for i, d in enumerate(state.deads.left)
        if d is not None and may_take(state, team, i)
    ]


# -- a dead refilling the stock -------------------------------------------------------------------


def refill_due(state: GameState) -> bool:
    """Return whether the stock is to be refilled before anyone draws or takes (RULES 5): it is
    empty, or a refill of every dead is under way, in a variant whose stock refills (`refilling`
    is only ever set in one)."""
    return (not state.stock or state.refilling) and rules_context(state).stock_refill


def must_refill(state: GameState) -> bool:
    """Return whether the table refills the stock before anyone draws (RULES 5).

    Public for the table (`table.table_event`), which refills the stock before anyone draws; a
    def rather than an alias, so that the compiled table calls it directly.
    """
    return state.phase == "draw" and refill_due(state)


def check_not_refilling(state: GameState, ev: Event) -> None:
    if state.refilling:
        raise illegal_move(state, ev, f"the stock is being refilled: dead {lowest_dead(state)} joins it first (every untaken dead refills it)")


def lowest_dead(state: GameState) -> int | None:
    return state.deads.lowest()


def stock_exhausted(state: GameState) -> bool:
    """Return whether the hand ends for want of cards: a refill is due and no dead is left."""
    return must_refill(state) and lowest_dead(state) is None


def check_stock_refilled(state: GameState, ev: StockRefilled) -> None:
    expect_phase(state, ev)
    if not rules_context(state).stock_refill:
        raise illegal_move(state, ev, "this variant never refills the stock (stock_end two_left)")
    if not refill_due(state):
        raise illegal_move(state, ev, f"the stock still holds {len(state.stock)} cards")
    if state.deads.left[ev.dead] is None:
        raise illegal_move(state, ev, f"dead {ev.dead} is already gone ({state.deads.fate[ev.dead]})")
    lowest = lowest_dead(state)
    if state.rules.refill == "all" and ev.dead != lowest:
        # RULES 5, refill all: every untaken dead joins the stock, lowest first
        raise illegal_move(state, ev, f"every untaken dead refills the stock, lowest first: dead {lowest} comes next")


def apply_stock_refilled(state: GameState, ev: StockRefilled) -> None:
    # the stock is listed top last: a later dead goes below what is there (RULES 5: lowest on top)
    state.stock = list(reversed(state.deads.to_stock(ev.dead))) + state.stock
    state.refilling = state.rules.refill == "all" and lowest_dead(state) is not None
