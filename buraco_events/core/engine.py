"""The engine: a game's state as a fold of its events, checked by the rules of docs/rules.md.

`check(state, event)` raises `IllegalMove` naming the seq, the player, the phase and the rule
broken; `apply(state, event)` trusts its input and mutates the state in place; `play = check +
apply`; `next_state` is the pure form that returns a new state. A rejected event leaves the state
unchanged, because `check` never writes. This module dispatches every event and holds the checks
and applies of the turn's events (draw, take, discard, dead, refill, ends); the others live
beside it and it calls them directly: the phase gate and the error (`gate`), a meld's and a
lay-off's check (`playcheck`), the discard rule (`discard`), the deal (`deal`: chance's event,
built from the rng it is given; the engine draws no random numbers) and the score sheets
(`sheets`). What a seat may do next is `moves`, which imports this module. Who plays and the
players' `Action`s live in the driver, `table.py`.

Phases: start -> deal -> (draw -> play -> [dead] -> ...)* -> hand_end -> deal ... -> game_end -> over.
`dead` waits for the `took_dead` of a player whose hand just emptied (RULES 4).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Final, cast

import msgspec

from buraco_events.model.events import (
    Branched,
    Discarded,
    Drew,
    Event,
    GameEnded,
    GameStarted,
    HandEnded,
    HandStarted,
    LaidOff,
    Melded,
    Note,
    Ruling,
    StockRefilled,
    TookDead,
    TookPile,
    event_type,
)
from buraco_events.model.rules import (
    PlayerCountError,
    UnknownVariant,
    canonical_variant,
    check_players,
    find_rules,
)
from buraco_events.model.scoring import match_result

from .cards import Card, team_of
from .deal import apply_hand_started, check_hand_started
from .discard import MAY_GO, any_discard, discard_bar, discard_refusal, holds_one
from .gate import (
    card_list,
    expect_phase,
    expect_turn,
    illegal_move,
    rules_context,
)
from .lookahead import is_natural_top
from .melds import MeldShape
from .playcheck import (
    any_passes,
    any_play,
    apply_laid_off,
    apply_melded,
    check_laid_off,
    check_melded,
)
from .plays import top_play_candidates
from .sheets import hand_scores
from .state import (
    PLAYING_PHASES,
    GameState,
    add_cards,
    counted,
    elements,
    shallow_copy,
)

# -- the steps: check, apply and play --------------------------------------------------------------


def check(state: GameState, ev: Event) -> MeldShape | None:
    """Raise `IllegalMove` unless `ev` may come next; never changes the state.

    Returns what the check found that `apply` needs: the shape of the meld a meld or a lay-off
    makes (None for any other event), so that `apply(state, ev, shape)` does not classify the
    cards again.
    """
    if ev.seq != state.next_seq:
        raise illegal_move(state, ev, f"seq should be {state.next_seq}, got {ev.seq}")
    # the common events by direct calls (compiled: no call through the function objects'
    # Python entry points), the rest through the table
    kind = type(ev)
    if kind is _DISCARDED:
        _check_discarded(state, cast(Discarded, ev))
    elif kind is _DREW:
        _check_drew(state, cast(Drew, ev))
    elif kind is _LAIDOFF:
        return check_laid_off(state, cast(LaidOff, ev))
    elif kind is _MELDED:
        return check_melded(state, cast(Melded, ev))
    elif kind is _TOOKPILE:
        _check_took_pile(state, cast(TookPile, ev))
    else:
        _check_other(state, ev)
    return None


def _check_other(state: GameState, ev: Event) -> None:
    """Check an event of a class `check` and `play` do not dispatch directly (`_CHECKS`)."""
    checker = _CHECKS.get(type(ev))
    if checker is None:
        raise illegal_move(state, ev, f"unknown event type {event_type(ev)!r}")
    checker(state, ev)


def apply(state: GameState, ev: Event, shape: MeldShape | None = None) -> GameState:
    """Apply a checked event to the state in place and return it (trusts its input).

    `shape` is what `check` returned for a meld or a lay-off (the meld it makes); without it the
    cards are classified again.
    """
    kind = type(ev)  # the common events by direct calls, as in `play`
    if kind is _DISCARDED:
        _apply_discarded(state, cast(Discarded, ev))
    elif kind is _DREW:
        _apply_drew(state, cast(Drew, ev))
    elif kind is _LAIDOFF:
        apply_laid_off(state, cast(LaidOff, ev), shape)
    elif kind is _MELDED:
        apply_melded(state, cast(Melded, ev), shape)
    elif kind is _TOOKPILE:
        _apply_took_pile(state, cast(TookPile, ev))
    else:
        _APPLY[kind](state, ev)
    state.next_seq = ev.seq + 1
    return state


#: the common events' classes as compiled constants (a name imported from the uncompiled `events`
#: is looked up in the module's dict at each use)
_DISCARDED: Final = Discarded


_DREW: Final = Drew
_LAIDOFF: Final = LaidOff
_MELDED: Final = Melded
_TOOKPILE: Final = TookPile
def play(state: GameState, ev: Event) -> GameState:
    """Check an event, then apply it in place; raises `IllegalMove` and leaves state unchanged.

    `check` then `apply` fused (the audit and every replay take this step per event): one call
    and one dispatch rather than two, and the apply of a play takes the meld shape its check
    found. Errors are `check`'s own.
    """
    seq = ev.seq
    if seq != state.next_seq:
        raise illegal_move(state, ev, f"seq should be {state.next_seq}, got {seq}")
    # the common events by direct calls (compiled: no call through the function objects'
    # Python entry points), the rest through the tables
    kind = type(ev)
    if kind is _DISCARDED:
        _check_discarded(state, cast(Discarded, ev))
        _apply_discarded(state, cast(Discarded, ev))
    elif kind is _DREW:
        _check_drew(state, cast(Drew, ev))
        _apply_drew(state, cast(Drew, ev))
    elif kind is _LAIDOFF:
        apply_laid_off(state, cast(LaidOff, ev), check_laid_off(state, cast(LaidOff, ev)))
    elif kind is _MELDED:
        apply_melded(state, cast(Melded, ev), check_melded(state, cast(Melded, ev)))
    elif kind is _TOOKPILE:
        _check_took_pile(state, cast(TookPile, ev))
        _apply_took_pile(state, cast(TookPile, ev))
    else:
        _check_other(state, ev)
        _APPLY[kind](state, ev)
    state.next_seq = seq + 1
    return state


def next_state(state: GameState, ev: Event) -> GameState:
    """Return the state after a checked event, leaving `state` itself untouched (the pure fold)."""
    check(state, ev)
    return apply(state.copy(), ev)


def replay(events: Iterable[Event], state: GameState | None = None) -> GameState:
    """Fold events (each checked) into a state: the state after the last event."""
    state = GameState() if state is None else state
    for ev in events:
        play(state, ev)
    return state


def iter_states(events: Iterable[Event]) -> Iterator[tuple[Event, GameState]]:
    """Yield each event with an independent snapshot of the state after it."""
    state = GameState()
    for ev in events:
        play(state, ev)
        yield ev, state.copy()



# -- game_started ----------------------------------------------------------------------------------


def _check_game_started(state: GameState, ev: GameStarted) -> None:
    expect_phase(state, ev)
    if ev.seq != 0:
        raise illegal_move(state, ev, "game_started must be the first line")
    try:
        check_players(len(ev.players))
    except PlayerCountError as exc:
        raise illegal_move(state, ev, f"players: {exc}") from None
    if ev.rules is None:
        try:
            canonical_variant(ev.variant)
        except UnknownVariant as exc:
            raise illegal_move(state, ev, f"variant: {exc}") from None


def _apply_game_started(state: GameState, ev: GameStarted) -> None:
    rules = ev.rules if ev.rules is not None else find_rules(ev.variant)
    if ev.target is not None:
        rules = msgspec.structs.replace(rules, target=ev.target)
    state.rules = rules
    state.variant = ev.variant
    state.game_id = ev.game_id
    state.players = tuple(ev.players)
    state.totals = [0, 0]
    state.phase = "deal"


# -- drew ------------------------------------------------------------------------------------------


def _check_drew(state: GameState, ev: Drew) -> None:
    # the phase and refill tests are inlined: a drew is every fourth event of a log
    if state.phase != "draw":
        expect_phase(state, ev)
    expect_turn(state, ev)
    if state.refilling:
        _check_not_refilling(state, ev)
    stock = state.stock
    if not stock:
        raise illegal_move(state, ev, "the stock is empty")
    if ev.card != stock[-1]:
        raise illegal_move(state, ev, f"drew {ev.card} but the stock's top card is {stock[-1]}",
                    "drew a card that is not the stock's top card")


def _start_turn(state: GameState, player: int) -> None:
    team = team_of(player)
    if state.unused_seat[team] == player:
        state.unused_seat[team] = None  # RULES 4: the taker started another turn


def _apply_drew(state: GameState, ev: Drew) -> None:
    player = ev.player
    if state.unused_seat[team_of(player)] == player:
        _start_turn(state, player)
    stock = state.stock
    stock.pop()
    hand = state.hands[player]
    card = ev.card
    hand[card] = hand.get(card, 0) + 1
    state.turn_progress = True  # RULES 5: a stock draw is progress
    state.phase = "play"
    if len(stock) == 2 and rules_context(state).stock_two_left:
        state.last_turn = True  # RULES 5: this turn is the hand's last


# -- took_pile -------------------------------------------------------------------------------------


def _check_took_pile(state: GameState, ev: TookPile) -> None:
    check_take_form(state, ev)
    if not pile_allows(state, ev):
        if rules_context(state).pile_open:
            raise illegal_move(state, ev, f"no single-card return: after taking {state.pile[0]} there would be no legal discard")
        raise illegal_move(state, ev, f"closed pile: the top card {state.pile[-1]} cannot be melded at once")


def check_take_form(state: GameState, ev: TookPile) -> None:
    """Check a take's phase, turn and cards, and that the stock is not due to be refilled first."""
    expect_phase(state, ev)
    expect_turn(state, ev)
    if _refill_due(state):
        if not state.stock:
            raise illegal_move(state, ev, "the stock is empty: it is refilled (or the hand ends) first")
        _check_not_refilling(state, ev)
    if not state.pile:
        raise illegal_move(state, ev, "the discard pile is empty")
    if tuple(ev.cards) != tuple(state.pile):
        # a closed pile shows only its top: which cards differ is hidden
        public = None if rules_context(state).pile_open else "took_pile cards differ from the pile"
        raise illegal_move(state, ev, f"took_pile cards {card_list(ev.cards)} differ from the pile {card_list(state.pile)}",
                    public)


def _check_not_refilling(state: GameState, ev: Event) -> None:
    if state.refilling:
        raise illegal_move(state, ev, f"the stock is being refilled: dead {_lowest_dead(state)} joins it first (every untaken dead refills it)")


def _refill_due(state: GameState) -> bool:
    """Return whether the stock is to be refilled before anyone draws or takes (RULES 5): it is
    empty, or a refill of every dead is under way, in a variant whose stock refills (`refilling`
    is only ever set in one)."""
    return (not state.stock or state.refilling) and rules_context(state).stock_refill


def pile_allows(state: GameState, ev: TookPile) -> bool:
    """Return whether the pile's own rule lets the take of a well-formed `ev` through (RULES 2).

    An open pile of one card, with no single-card return, needs a legal discard or play after
    the take; a closed pile needs a play holding its top right after it (`_closed_take_usable`).
    """
    ctx = rules_context(state)
    if ctx.pile_open:
        if len(state.pile) == 1 and ctx.no_single_card_return:
            trial = trial_take(state, ev)
            return any_discard(trial) or any_play(trial)
        return True
    return _closed_take_usable(state, ev)


def _closed_take_usable(state: GameState, ev: TookPile) -> bool:
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
    taken seat's hand, `unused_seat`). An open pile is taken as `apply` takes it. A closed pile
    is tried with its top waiting for the next play, whatever `pile_top_use` says: the take
    needs a play holding the top at once (RULES 2).
    """
    trial = shallow_copy(state)
    trial.unused_seat = list(state.unused_seat)
    trial.hands = list(state.hands)
    trial.hands[ev.player] = state.hands[ev.player].copy()
    if rules_context(state).pile_open:
        return apply(trial, ev)
    pile = state.pile
    trial.phase, trial.pile, trial.pending_top = "play", [], pile[-1]
    trial.pending_rest, trial.next_seq = pile[:-1], ev.seq + 1
    return trial


def _apply_took_pile(state: GameState, ev: TookPile) -> None:
    _start_turn(state, ev.player)
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
    state.phase = "play"


# -- discarded -------------------------------------------------------------------------------------


def _check_discarded(state: GameState, ev: Discarded) -> None:
    if state.phase != "play":
        expect_phase(state, ev)
    player = expect_turn(state, ev)
    bar = discard_bar(state, player, ev.card, holds_one(state.hands[player]))
    if bar != MAY_GO:
        raise illegal_move(state, ev, discard_refusal(state, ev.card, bar))


def _end_turn(state: GameState) -> None:
    if state.last_turn:
        state.end_reason, state.phase = "stock_exhausted", "hand_end"
        return
    state.quiet_turns = 0 if state.turn_progress else state.quiet_turns + 1
    state.turn_progress = False
    n = len(state.players)
    rounds = rules_context(state).stalemate_rounds
    if rounds and state.quiet_turns >= rounds * n:
        state.end_reason, state.phase = "stalemate", "hand_end"  # RULES 5: no progress
        return
    state.to_play = (state.to_play + 1) % n
    state.turn += 1
    state.single_taken = None
    state.phase = "draw"


def _apply_discarded(state: GameState, ev: Discarded) -> None:
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
        _end_turn(state)
    elif state.can_take_dead(team_of(player)):
        state.phase, state.dead_mode = "dead", "indirect"
    else:
        state.closed_by, state.end_reason, state.phase = player, "closed", "hand_end"


# -- took_dead -------------------------------------------------------------------------------------


def _check_took_dead(state: GameState, ev: TookDead) -> None:
    expect_phase(state, ev)
    expect_turn(state, ev)
    dead = state.deads[ev.dead]
    if dead is None:
        raise illegal_move(state, ev, f"dead {ev.dead} is already gone ({state.dead_fate[ev.dead]})")
    team = team_of(ev.player)
    if state.rules.dead_owner == "team" and ev.dead != team:
        raise illegal_move(state, ev, f"dead {ev.dead} belongs to team {ev.dead}")
    if tuple(ev.cards) != tuple(dead):
        raise illegal_move(state, ev, f"took_dead cards differ from dead {ev.dead} as dealt")


def _apply_took_dead(state: GameState, ev: TookDead) -> None:
    team = team_of(ev.player)
    add_cards(state.hands[ev.player], ev.cards)
    state.deads[ev.dead] = None
    state.dead_fate[ev.dead] = "taken"
    state.dead_taker[ev.dead] = ev.player
    state.team_dead[team] = ev.dead
    state.team_dead_direct[team] = state.dead_mode == "direct"
    if state.dead_mode == "direct":
        state.phase = "play"  # RULES 4: goes on playing the same turn
    else:
        state.unused_seat[team] = ev.player
        _end_turn(state)
    state.dead_mode = None


# -- stock_refilled --------------------------------------------------------------------------------


def _check_stock_refilled(state: GameState, ev: StockRefilled) -> None:
    expect_phase(state, ev)
    if not rules_context(state).stock_refill:
        raise illegal_move(state, ev, "this variant never refills the stock (stock_end two_left)")
    if not _refill_due(state):
        raise illegal_move(state, ev, f"the stock still holds {len(state.stock)} cards")
    if state.deads[ev.dead] is None:
        raise illegal_move(state, ev, f"dead {ev.dead} is already gone ({state.dead_fate[ev.dead]})")
    lowest = _lowest_dead(state)
    if state.rules.refill == "all" and ev.dead != lowest:
        # RULES 5, refill all: every untaken dead joins the stock, lowest first
        raise illegal_move(state, ev, f"every untaken dead refills the stock, lowest first: dead {lowest} comes next")


def _lowest_dead(state: GameState) -> int | None:
    return next((i for i, d in enumerate(state.deads) if d is not None), None)


def must_refill(state: GameState) -> bool:
    """Return whether the table refills the stock before anyone draws (RULES 5).

    Public for the table (`table.table_event`), which refills the stock before anyone draws; a
    def rather than an alias, so that the compiled table calls it directly.
    """
    return state.phase == "draw" and _refill_due(state)


def _stock_exhausted(state: GameState) -> bool:
    """Return whether the hand ends for want of cards: a refill is due and no dead is left."""
    return must_refill(state) and _lowest_dead(state) is None


def _apply_stock_refilled(state: GameState, ev: StockRefilled) -> None:
    dead = state.deads[ev.dead]
    assert dead is not None
    # the stock is listed top last: a later dead goes below what is there (RULES 5: lowest on top)
    state.stock = list(reversed(dead)) + state.stock
    state.deads[ev.dead] = None
    state.dead_fate[ev.dead] = "stock"
    state.refilling = state.rules.refill == "all" and _lowest_dead(state) is not None


# -- hand_ended, game_ended and note ---------------------------------------------------------------


def _check_hand_ended(state: GameState, ev: HandEnded) -> None:
    n = state.rules.stalemate_rounds
    if ev.reason == "stalemate" and state.end_reason != "stalemate" and state.phase in PLAYING_PHASES:
        if not n:
            raise illegal_move(state, ev, "this variant has no stalemate end (stalemate_rounds 0)")
        raise illegal_move(state, ev, f"stalemate needs {n} round{'s' if n != 1 else ''} without progress; only {state.quiet_turns // state.n_players} so far")
    if not _stock_exhausted(state):
        expect_phase(state, ev)
    if ev.hand != state.hand_no:
        raise illegal_move(state, ev, f"hand should be {state.hand_no}, got {ev.hand}")
    reason = state.end_reason or "stock_exhausted"
    if ev.reason != reason:
        raise illegal_move(state, ev, f"reason should be {reason}, got {ev.reason}")
    if ev.closed_by != state.closed_by:
        raise illegal_move(state, ev, f"closed_by should be {state.closed_by}, got {ev.closed_by}")
    if len(ev.scores) != 2:
        raise illegal_move(state, ev, "scores: one score per team (2)")


def _apply_hand_ended(state: GameState, ev: HandEnded) -> None:
    if state.end_reason is None:
        state.end_reason = "stock_exhausted"
    result = hand_scores(state)
    state.hand_results.append(result)
    for s in result:
        state.totals[s.team] += s.total
    winner = match_result(
        state.totals, state.rules.target, team_of(state.first_of_game), len(state.hand_results)
    )
    state.winner = winner
    state.phase = "game_end" if winner is not None else "deal"


def _check_game_ended(state: GameState, ev: GameEnded) -> None:
    expect_phase(state, ev)
    if len(ev.totals) != 2:
        raise illegal_move(state, ev, "totals: one total per team (2)")


def _apply_game_ended(state: GameState, ev: GameEnded) -> None:
    state.phase = "over"


def _check_note(state: GameState, ev: Note) -> None:
    if state.phase == "start":
        raise illegal_move(state, ev, "the first event must be game_started")


def _apply_note(state: GameState, ev: Note) -> None:
    pass


def _check_branched(state: GameState, ev: Branched) -> None:
    """A branch starts right after its fork line, in the game it forks, before the game is over
    (docs/log-format.md, "Branches"). With the parent's deck the cards stay where the fork left
    them; a redealt deck (`_check_redeal`) deals the cards `seat` could not see again."""
    if state.phase == "start":
        raise illegal_move(state, ev, "the first event must be game_started")
    if state.phase == "over":
        raise illegal_move(state, ev, "a branch may not follow game_ended")
    if ev.fork_seq != ev.seq - 1:
        raise illegal_move(state, ev, f"fork_seq: a branched line follows its fork line: expected {ev.seq - 1}, got {ev.fork_seq}")
    if ev.parent != state.game_id:
        raise illegal_move(state, ev, f"parent: this log is game {state.game_id!r}, not {ev.parent!r}")
    if ev.deck == "redealt":
        _check_redeal(state, ev)
    elif ev.seat is not None or ev.hands is not None or ev.stock is not None or ev.deads is not None:
        raise illegal_move(state, ev, "a branch on the parent's deck names no seat and deals no cards")


def _check_redeal(state: GameState, ev: Branched) -> None:
    """A redealt deck: in a hand in play, every card the seat could not see dealt again into the
    same places (each hand and dead keeps its size, the seat's own hand is as it was), the cards
    on the table (melds, pile) untouched."""
    n = state.n_players
    if state.phase not in PLAYING_PHASES or state.pending_top is not None or state.pending_rest:
        raise illegal_move(state, ev, "deck redealt: only a hand in play between two plays is dealt again")
    if ev.seat is None or ev.seat >= n:
        raise illegal_move(state, ev, f"seat: a redealt deck names the seat whose knowledge it keeps (0..{n - 1})")
    if ev.hands is None or ev.stock is None or ev.deads is None:
        raise illegal_move(state, ev, "deck redealt: hands, stock and deads give the new arrangement")
    if len(ev.hands) != n or len(ev.deads) != len(state.deads):
        raise illegal_move(state, ev, f"hands, deads: one list per seat ({n}) and per dead ({len(state.deads)})")
    if counted(ev.hands[ev.seat]) != state.hands[ev.seat]:
        raise illegal_move(state, ev, f"hands: seat {ev.seat}'s own hand is dealt as it was")
    before: list[Card] = []
    after: list[Card] = []
    for s in range(n):
        if s != ev.seat:
            if len(ev.hands[s]) != sum(state.hands[s].values()):
                raise illegal_move(state, ev, f"hands: seat {s} holds {sum(state.hands[s].values())} cards")
            before.extend(elements(state.hands[s]))
            after.extend(ev.hands[s])
    if len(ev.stock) != len(state.stock):
        raise illegal_move(state, ev, f"stock: {len(state.stock)} cards")
    before.extend(state.stock)
    after.extend(ev.stock)
    for i, dead in enumerate(state.deads):
        size = 0 if dead is None else len(dead)
        if len(ev.deads[i]) != size:
            raise illegal_move(state, ev, f"deads: dead {i} holds {size} cards")
        if dead is not None:
            before.extend(dead)
            after.extend(ev.deads[i])
    if sorted(before) != sorted(after):
        raise illegal_move(state, ev, "the redealt cards are not the cards the seat could not see")


def _apply_branched(state: GameState, ev: Branched) -> None:
    if ev.deck != "redealt" or ev.hands is None or ev.stock is None or ev.deads is None:
        return
    for s, cards in enumerate(ev.hands):
        state.hands[s] = counted(cards)
    state.stock = list(reversed(ev.stock))
    state.deads = [None if dead is None else tuple(ev.deads[i]) for i, dead in enumerate(state.deads)]


def _check_ruling(state: GameState, ev: Ruling) -> None:
    raise illegal_move(state, ev, "a ruling goes in the game's rulings log, never in the game log")


# -- the other events' checks and applies, by class ------------------------------------------------


#: the checker of each event class but the five common ones (`check` and `play` call those directly)
_CHECKS: Final[dict[type, Callable[[GameState, Any], None]]] = {
    GameStarted: _check_game_started,
    HandStarted: check_hand_started,
    TookDead: _check_took_dead,
    StockRefilled: _check_stock_refilled,
    HandEnded: _check_hand_ended,
    GameEnded: _check_game_ended,
    Note: _check_note,
    Branched: _check_branched,
    Ruling: _check_ruling,
}


#: the applier of each event class but the five common ones (`apply` and `play` call those directly)
_APPLY: Final[dict[type, Callable[[GameState, Any], None]]] = {
    GameStarted: _apply_game_started,
    HandStarted: apply_hand_started,
    TookDead: _apply_took_dead,
    StockRefilled: _apply_stock_refilled,
    HandEnded: _apply_hand_ended,
    GameEnded: _apply_game_ended,
    Note: _apply_note,
    Branched: _apply_branched,
}


