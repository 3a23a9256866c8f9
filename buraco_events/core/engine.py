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

The rules live by rule, each event's check and apply beside its legal moves: the turn (`turn`:
draw, take the pile, the discard rule, the turn's end), melds and lay-offs (`playcheck`, with `plays`,
`lookahead`, `fits`, `hand_melds`, `melds`), the dead hands and the stock's refill (`deads`),
closing (`closing`), the deal (`deal`: chance's event, built from the rng it is given; the
engine draws no random numbers), the score sheets and the hand's end (`sheets`); the phase gate
and the error are `gate`'s. This module holds the machine, the fold, and the events around the
turn (the game's start and end, a hand's end, notes, branches). What a seat may do next is
`moves`; who plays and the players' `Action`s live in the driver, `table.py`.

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

from .cards import Card
from .deads import (
    apply_stock_refilled,
    apply_took_dead,
    check_stock_refilled,
    check_took_dead,
    stock_exhausted,
)
from .deal import apply_hand_started, check_hand_started
from .gate import (
    expect_phase,
    illegal_move,
    phase_reason,
    team_of,
)
from .melds import MeldShape
from .playcheck import (
    apply_laid_off,
    apply_melded,
    check_laid_off,
    check_melded,
)
from .sheets import hand_scores, match_over, match_result
from .state import (
    PLAYING_PHASES,
    GameState,
    Phase,
    counted,
    elements,
)
from .turn import (
    apply_discarded,
    apply_drew,
    apply_took_pile,
    check_discarded,
    check_drew,
    check_took_pile,
    end_turn,
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
                check_discarded(state, cast(Discarded, ev))
            if todo & _APPLY:
                apply_discarded(state, cast(Discarded, ev))
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
                check_drew(state, cast(Drew, ev))
            if todo & _APPLY:
                apply_drew(state, cast(Drew, ev))
                state.phase = _to_play(state, ev)
            return None
        if kind is _TOOKPILE:
            if todo & _CHECK:
                check_took_pile(state, cast(TookPile, ev))
            if todo & _APPLY:
                apply_took_pile(state, cast(TookPile, ev))
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


# -- took_pile -------------------------------------------------------------------------------------


# -- discarded -------------------------------------------------------------------------------------


# -- took_dead -------------------------------------------------------------------------------------


# -- stock_refilled --------------------------------------------------------------------------------


# -- hand_ended, game_ended and note ---------------------------------------------------------------


def _check_hand_ended(state: GameState, ev: HandEnded) -> None:
    n = state.rules.stalemate_rounds
    if ev.reason == "stalemate" and state.end_reason != "stalemate" and state.phase in PLAYING_PHASES:
        if not n:
            raise illegal_move(state, ev, "this variant has no stalemate end (stalemate_rounds 0)")
        raise illegal_move(state, ev, f"stalemate needs {n} round{'s' if n != 1 else ''} without progress; only {state.quiet_turns // state.n_players} so far")
    if not stock_exhausted(state):
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
        state.totals, state.rules.target, team_of(state.first_of_game), len(state.hand_results),
        state.rules.hands_per_game,
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
    if len(ev.hands) != n or len(ev.deads) != len(state.deads.left):
        raise illegal_move(state, ev, f"hands, deads: one list per seat ({n}) and per dead ({len(state.deads.left)})")
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
    for i, dead in enumerate(state.deads.left):
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
    deads = state.deads = state.deads.copy()  # its own: a shallow copy of the state shares the old
    deads.left = [None if dead is None else tuple(ev.deads[i]) for i, dead in enumerate(deads.left)]


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
    if state.deads.direct[team_of(cast(TookDead, ev).player)]:
        return "play"
    if state.end_reason is not None:
        return "hand_end"
    return "draw"


def after_hand_end(state: GameState, ev: Event) -> Phase:
    """The phase after a hand's scores: the next deal, or the game's end once a team won or a
    tournament turn played its hands (RULES 8)."""
    over = match_over(state.winner, len(state.hand_results), state.rules.hands_per_game)
    return "game_end" if over else "deal"


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


def _take_dead(state: GameState, ev: TookDead, found: MeldShape | None) -> None:
    """Take the dead; an indirect one ends the turn, as the discard before it would have."""
    if apply_took_dead(state, ev):
        end_turn(state)


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
        ("draw", Drew): Row(check_drew, _plain(apply_drew), _to_play),
        ("draw", TookPile): Row(check_took_pile, _plain(apply_took_pile), _to_play),
        ("draw", StockRefilled): Row(check_stock_refilled, _plain(apply_stock_refilled), _stay),
        # the stock exhausted, no dead left to refill it: the hand ends before anyone draws
        ("draw", HandEnded): Row(_check_hand_ended, _plain(_apply_hand_ended), after_hand_end),
        ("play", Melded): Row(check_melded, apply_melded, after_play),
        ("play", LaidOff): Row(check_laid_off, apply_laid_off, after_play),
        ("play", Discarded): Row(check_discarded, _plain(apply_discarded), after_discard),
        # a stalemate claimed too early is refused in its own words
        ("play", HandEnded): Row(_check_hand_ended),
        ("dead", HandEnded): Row(_check_hand_ended),
        ("dead", TookDead): Row(check_took_dead, _take_dead, after_dead),
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
