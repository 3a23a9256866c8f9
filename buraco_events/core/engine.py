"""The engine: a game's state as a fold of its events, checked by the rules of docs/rules.md.

`check(state, event)` raises `IllegalMove` naming the seq, the player, the phase and the rule
broken; `apply(state, event)` trusts its input and mutates the state in place; `play = check +
apply`; `next_state` is the pure form that returns a new state. A rejected event leaves the state
unchanged, because `check` never writes.

The phase machine owns the flow: `FLOW` maps each (phase, event class) to the event's check, its
apply and the resolver of the next phase (`after_discard`, `after_play`, `after_dead`,
`after_hand_end` for the exits that branch), and `check`, `apply` and `play` all go through it
(`_step`, whose fast path for the turn's common events a test holds equal to the table). Only the
machine writes `GameState.phase`; an apply records what happened (a hand emptied, a turn ended)
and the resolver reads it.

This module holds the checks and applies of the turn's events (draw, take, discard, dead, refill,
ends); the others live beside it: the phase gate and the error (`gate`), a meld's and a lay-off's
check (`playcheck`), the discard rule (`discard`), the deal (`deal`: chance's event, built from
the rng it is given; the engine draws no random numbers) and the score sheets (`sheets`). What a
seat may do next is `moves`, which imports this module. Who plays and the players' `Action`s live
in the driver, `table.py`.

Phases: start -> deal -> (draw -> play -> [dead] -> ...)* -> hand_end -> deal ... -> game_end -> over.
`dead` waits for the `took_dead` of a player whose hand just emptied (RULES 4).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Final, cast, get_args

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

from .cards import Card, team_of
from .deal import apply_hand_started, check_hand_started
from .discard import MAY_GO, any_discard, discard_bar, discard_refusal, holds_one
from .gate import (
    card_list,
    expect_phase,
    expect_turn,
    illegal_move,
    phase_reason,
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
from .sheets import hand_scores, match_result
from .state import (
    PLAYING_PHASES,
    GameState,
    Phase,
    add_cards,
    counted,
    elements,
    shallow_copy,
)

# -- the steps: check, apply and play, all through the phase machine -------------------------------


def check(state: GameState, ev: Event) -> MeldShape | None:
    """Raise `IllegalMove` unless `ev` may come next; never changes the state.

    Returns what the check found that `apply` needs: the shape of the meld a meld or a lay-off
    makes (None for any other event), so that `apply(state, ev, shape)` does not classify the
    cards again.
    """
    if ev.seq != state.next_seq:
        raise illegal_move(state, ev, f"seq should be {state.next_seq}, got {ev.seq}")
    return _step(state, ev, _CHECK, None)


def apply(state: GameState, ev: Event, shape: MeldShape | None = None) -> GameState:
    """Apply a checked event to the state in place and return it (trusts its input).

    `shape` is what `check` returned for a meld or a lay-off (the meld it makes); without it the
    cards are classified again.
    """
    _step(state, ev, _APPLY, shape)
    state.next_seq = ev.seq + 1
    return state


def play(state: GameState, ev: Event) -> GameState:
    """Check an event, then apply it in place; raises `IllegalMove` and leaves state unchanged.

    `check` then `apply` fused (the audit and every replay take this step per event): one call
    and one dispatch rather than two, and the apply of a play takes the meld shape its check
    found. Errors are `check`'s own.
    """
    seq = ev.seq
    if seq != state.next_seq:
        raise illegal_move(state, ev, f"seq should be {state.next_seq}, got {seq}")
    _step(state, ev, _CHECK | _APPLY, None)
    state.next_seq = seq + 1
    return state


#: what `_step` does: the row's check, its apply and next phase, or both
_CHECK: Final = 1
_APPLY: Final = 2
#: the common events' classes as compiled constants (a name imported from the uncompiled `events`
#: is looked up in the module's dict at each use)
_DISCARDED: Final = Discarded
_DREW: Final = Drew
_LAIDOFF: Final = LaidOff
_MELDED: Final = Melded
_TOOKPILE: Final = TookPile


def _step(state: GameState, ev: Event, todo: int, found: MeldShape | None) -> MeldShape | None:
    """Run the row of `FLOW` for the state's phase and `ev`'s class: its check (`_CHECK`), then
    its apply and the phase its resolver names (`_APPLY`); return what the check found.

    The fast path: the five rows of the turn's common events (a draw, a take, a meld, a lay-off,
    a discard: nearly every event of a log) are called here directly, so that the compiled build
    calls them without going through function objects; `tests/test_flow.py` holds them equal to
    their rows. Every other event goes through the table (`step_by_table`).
    """
    kind = type(ev)
    phase = state.phase
    if phase == "play":
        if kind is _DISCARDED:
            if todo & _CHECK:
                _check_discarded(state, cast(Discarded, ev))
            if todo & _APPLY:
                _apply_discarded(state, cast(Discarded, ev))
                state.phase = after_discard(state, ev)
            return None
        if kind is _LAIDOFF:
            if todo & _CHECK:
                found = check_laid_off(state, cast(LaidOff, ev))
            if todo & _APPLY:
                apply_laid_off(state, cast(LaidOff, ev), found)
                state.phase = after_play(state, ev)
            return found
        if kind is _MELDED:
            if todo & _CHECK:
                found = check_melded(state, cast(Melded, ev))
            if todo & _APPLY:
                apply_melded(state, cast(Melded, ev), found)
                state.phase = after_play(state, ev)
            return found
    elif phase == "draw":
        if kind is _DREW:
            if todo & _CHECK:
                _check_drew(state, cast(Drew, ev))
            if todo & _APPLY:
                _apply_drew(state, cast(Drew, ev))
                state.phase = _to_play(state, ev)
            return None
        if kind is _TOOKPILE:
            if todo & _CHECK:
                _check_took_pile(state, cast(TookPile, ev))
            if todo & _APPLY:
                _apply_took_pile(state, cast(TookPile, ev))
                state.phase = _to_play(state, ev)
            return None
    return step_by_table(state, ev, todo, found)


def step_by_table(state: GameState, ev: Event, todo: int = _CHECK | _APPLY,
                  found: MeldShape | None = None) -> MeldShape | None:
    """Run the row of `FLOW` for the state's phase and `ev`'s class as `_step` does, every row
    through the table (the fast path aside); an event no row takes is refused in the phase's
    words (`gate.phase_reason`)."""
    row = FLOW.get((state.phase, type(ev)))
    if row is None:
        if type(ev) not in EVENT_CLASSES:
            raise illegal_move(state, ev, f"unknown event type {event_type(ev)!r}")
        raise illegal_move(state, ev, phase_reason(state, ev))
    if todo & _CHECK or row.apply is None:
        found = row.check(state, ev)
    if row.apply is None:  # a refusal in the event's own words: its check raises
        raise illegal_move(state, ev, phase_reason(state, ev))
    if todo & _APPLY:
        row.apply(state, ev, found)
        state.phase = row.resolve(state, ev)
    return found


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


# -- discarded -------------------------------------------------------------------------------------


def _check_discarded(state: GameState, ev: Discarded) -> None:
    if state.phase != "play":
        expect_phase(state, ev)
    player = expect_turn(state, ev)
    bar = discard_bar(state, player, ev.card, holds_one(state.hands[player]))
    if bar != MAY_GO:
        raise illegal_move(state, ev, discard_refusal(state, ev.card, bar))


def _end_turn(state: GameState) -> None:
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
        state.dead_mode = "indirect"
    else:
        state.closed_by, state.end_reason = player, "closed"


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
    if state.dead_mode != "direct":  # direct: goes on playing the same turn (RULES 4)
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


def _check_game_ended(state: GameState, ev: GameEnded) -> None:
    expect_phase(state, ev)
    if len(ev.totals) != 2:
        raise illegal_move(state, ev, "totals: one total per team (2)")


def _apply_game_ended(state: GameState, ev: GameEnded) -> None:
    pass


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


# -- the phase machine: what comes next after each event ----------------------------------------


def _to_deal(state: GameState, ev: Event) -> Phase:
    return "deal"


def _to_draw(state: GameState, ev: Event) -> Phase:
    return "draw"


def _to_play(state: GameState, ev: Event) -> Phase:
    return "play"


def _to_over(state: GameState, ev: Event) -> Phase:
    return "over"


def _stay(state: GameState, ev: Event) -> Phase:
    """The phase an event outside the turn leaves as it was (a note, a branch, a refill)."""
    return state.phase


def after_play(state: GameState, ev: Event) -> Phase:
    """The phase after a meld or a lay-off: play on, or, the hand emptied, the team's dead
    (direct, RULES 4) or the hand's end (closed, RULES 6)."""
    if state.dead_mode is not None:
        return "dead"
    if state.end_reason is not None:
        return "hand_end"
    return "play"


def after_discard(state: GameState, ev: Event) -> Phase:
    """The phase after a discard: the next seat draws, or the hand ends (closed, stock exhausted,
    stalemate: RULES 5 and 6), or, the hand emptied, the team's dead waits (indirect, RULES 4)."""
    if state.dead_mode is not None:
        return "dead"
    if state.end_reason is not None:
        return "hand_end"
    return "draw"


def after_dead(state: GameState, ev: Event) -> Phase:
    """The phase after a dead is taken: a direct dead plays on in the same turn (RULES 4), an
    indirect one ends the turn as a discard does."""
    if state.team_dead_direct[team_of(cast(TookDead, ev).player)]:
        return "play"
    if state.end_reason is not None:
        return "hand_end"
    return "draw"


def after_hand_end(state: GameState, ev: Event) -> Phase:
    """The phase after a hand's scores: the next deal, or the game's end once a team won."""
    return "game_end" if state.winner is not None else "deal"


class Row:
    """One row of the phase machine: the check of an event in a phase, its apply, and the
    resolver of the phase that follows; a row without apply is a refusal in the event's own
    words (its check always raises there)."""

    __slots__ = ("check", "apply", "resolve")

    def __init__(
        self,
        check: Callable[[GameState, Any], MeldShape | None],
        apply: Callable[[GameState, Any, MeldShape | None], None] | None = None,
        resolve: Callable[[GameState, Event], Phase] = _stay,
    ) -> None:
        self.check = check
        self.apply = apply
        self.resolve = resolve


def _plain(apply: Callable[[GameState, Any], None]) -> Callable[[GameState, Any, MeldShape | None], None]:
    """Return an event's apply taking the check's finding, which it does not need."""

    def run(state: GameState, ev: Any, found: MeldShape | None) -> None:
        apply(state, ev)

    return run


def _rows() -> dict[tuple[Phase, type], Row]:
    """Return the phase machine (`FLOW`)."""
    flow: dict[tuple[Phase, type], Row] = {
        ("start", GameStarted): Row(_check_game_started, _plain(_apply_game_started), _to_deal),
        ("deal", HandStarted): Row(check_hand_started, _plain(apply_hand_started), _to_draw),
        ("draw", Drew): Row(_check_drew, _plain(_apply_drew), _to_play),
        ("draw", TookPile): Row(_check_took_pile, _plain(_apply_took_pile), _to_play),
        ("draw", StockRefilled): Row(_check_stock_refilled, _plain(_apply_stock_refilled), _stay),
        # the stock exhausted, no dead left to refill it: the hand ends before anyone draws
        ("draw", HandEnded): Row(_check_hand_ended, _plain(_apply_hand_ended), after_hand_end),
        ("play", Melded): Row(check_melded, apply_melded, after_play),
        ("play", LaidOff): Row(check_laid_off, apply_laid_off, after_play),
        ("play", Discarded): Row(_check_discarded, _plain(_apply_discarded), after_discard),
        # a stalemate claimed too early is refused in its own words
        ("play", HandEnded): Row(_check_hand_ended),
        ("dead", HandEnded): Row(_check_hand_ended),
        ("dead", TookDead): Row(_check_took_dead, _plain(_apply_took_dead), after_dead),
        ("hand_end", HandEnded): Row(_check_hand_ended, _plain(_apply_hand_ended), after_hand_end),
        ("game_end", GameEnded): Row(_check_game_ended, _plain(_apply_game_ended), _to_over),
    }
    # outside the turn: a note and a branch in any phase, each refused in its own words where
    # it may not come; a ruling never (it belongs to the rulings log)
    for phase in get_args(Phase):
        flow[(phase, Note)] = Row(_check_note) if phase == "start" else Row(_check_note, _plain(_apply_note))
        flow[(phase, Branched)] = (
            Row(_check_branched) if phase in ("start", "over") else Row(_check_branched, _plain(_apply_branched)))
        flow[(phase, Ruling)] = Row(_check_ruling)
    return flow


#: the phase machine: for each phase and event class, the event's check, its apply and the
#: resolver of the next phase (the only writer of `GameState.phase`); a pair not listed is
#: refused in the phase's words
FLOW: Final[dict[tuple[Phase, type], Row]] = _rows()
#: every class of the log's events (any other class is an unknown event type)
EVENT_CLASSES: Final = frozenset(cls for _, cls in FLOW)
