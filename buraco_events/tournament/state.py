"""A tournament's state as a fold of its events, and the checks an event passes before it is
applied (`check` apart from `apply`; `fold` = check + apply for every event, as a file is input).

Everything that decides whether an event may follow another lives here: who may enter, which
round may be paired, which table may take a result, when a round may close. What the state does
not know (whether a game log audits clean, what it recounts to) is `games`' and `standings`'.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from buraco_events.model.events import Event, event_type
from buraco_events.model.rules import UnknownVariant, canonical_variant

from .events import (
    Adjusted,
    Entered,
    PairedTable,
    Result,
    RoundClosed,
    RoundPaired,
    TournamentEnded,
    TournamentEvent,
    TournamentStarted,
    Withdrawn,
)
from .scale import ScaleError, check_scale


class TournamentError(ValueError):
    """A command or a line the tournament refuses, in one line; `exit_code` 1 (a problem in what
    was read or asked) or 2 (input that cannot be read)."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class Refused(ValueError):
    """An event that may not follow the state: `field` names the field, the message says why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"field {field}: {message}")
        self.field = field


@dataclass
class EntryState:
    """One entry: its players, its name, and why it withdrew (None while it plays)."""

    entry: int
    players: tuple[str, ...]
    name: str | None = None
    withdrawn: str | None = None

    @property
    def label(self) -> str:
        """Return the entry as people name it: its name, else its players joined."""
        return self.name or " & ".join(self.players)


@dataclass
class RoundState:
    """One round: its pairing, the results recorded for each table (in order), its adjustments."""

    paired: RoundPaired
    results: dict[int, list[Result]] = field(default_factory=dict)
    adjustments: list[Adjusted] = field(default_factory=list)
    closed: bool = False

    def table(self, number: int) -> PairedTable | None:
        """Return table `number` of the round, or None."""
        for t in self.paired.tables:
            if t.table == number:
                return t
        return None


@dataclass
class TournamentState:
    """What the events say so far."""

    started: TournamentStarted | None = None
    entries: dict[int, EntryState] = field(default_factory=dict)
    rounds: list[RoundState] = field(default_factory=list)
    ended: TournamentEnded | None = None
    game_ids: set[str] = field(default_factory=set)

    @property
    def info(self) -> TournamentStarted:
        """Return the first line (a state is only used once it has one)."""
        assert self.started is not None, "a tournament starts with tournament_started"
        return self.started

    def active(self) -> list[int]:
        """Return the entries that have not withdrawn, in entry order."""
        return [e for e, s in self.entries.items() if s.withdrawn is None]

    def round(self, number: int) -> RoundState | None:
        """Return round `number` (from 1), or None when it is not paired."""
        return self.rounds[number - 1] if 1 <= number <= len(self.rounds) else None

    def open_round(self) -> RoundState | None:
        """Return the last paired round when it is not closed, else None."""
        return self.rounds[-1] if self.rounds and not self.rounds[-1].closed else None


def players_per_entry(form: str) -> int:
    """Return how many players an entry has: 2 in pairs, 1 in singles."""
    return 2 if form == "pairs" else 1


def check(state: TournamentState, event: Event) -> None:
    """Raise `Refused` when `event` may not follow `state` (the state is left unchanged)."""
    if state.started is None:
        if not isinstance(event, TournamentStarted):
            raise Refused("type", f"the first line is tournament_started, not {event_type(event)}")
        _check_started(event)
        return
    if isinstance(event, TournamentStarted):
        raise Refused("type", "a second tournament_started (it is the first line only)")
    if state.ended is not None:
        raise Refused("type", f"{event_type(event)} after tournament_ended (the tournament is over)")
    if isinstance(event, Entered):
        _check_entered(state, event)
    elif isinstance(event, Withdrawn):
        _entry(state, event.entry, "entry", active=True)
    elif isinstance(event, RoundPaired):
        _check_paired(state, event)
    elif isinstance(event, Result):
        _check_result(state, event)
    elif isinstance(event, Adjusted):
        if state.round(event.round) is None:
            raise Refused("round", f"round {event.round} is not paired")
        _entry(state, event.entry, "entry")
    elif isinstance(event, RoundClosed):
        _check_closed(state, event)
    elif isinstance(event, TournamentEnded):
        if len(state.rounds) < state.info.rounds or state.open_round() is not None:
            raise Refused("type", f"tournament_ended before its {state.info.rounds} rounds closed")


def _check_started(event: TournamentStarted) -> None:
    try:
        canonical_variant(event.variant)
    except UnknownVariant as exc:
        raise Refused("variant", str(exc)) from None
    try:
        check_scale(event.vp_scale)
    except ScaleError as exc:
        raise Refused("vp_scale", str(exc)) from None


def _entry(state: TournamentState, entry: int, name: str, active: bool = False) -> EntryState:
    found = state.entries.get(entry)
    if found is None:
        raise Refused(name, f"no entry {entry} (entries are 1..{len(state.entries)})")
    if active and found.withdrawn is not None:
        raise Refused(name, f"entry {entry} has withdrawn")
    return found


def _check_entered(state: TournamentState, event: Entered) -> None:
    if event.entry != len(state.entries) + 1:
        raise Refused("entry", f"expected entry {len(state.entries) + 1}, got {event.entry}")
    info = state.info
    need = players_per_entry(info.form)
    if len(event.players) != need:
        raise Refused("players", f"a {info.form} entry has {need} player(s), got {len(event.players)}")
    if any(not p.strip() for p in event.players) or len(set(event.players)) != len(event.players):
        raise Refused("players", "players are distinct, non-empty names")
    for other in state.entries.values():
        if other.withdrawn is None and set(other.players) & set(event.players):
            taken = sorted(set(other.players) & set(event.players))[0]
            raise Refused("players", f"{taken!r} plays in entry {other.entry} already")
    if state.rounds and info.movement in ("mitchell", "round_robin"):
        raise Refused("entry", f"a {info.movement} movement is fixed once round 1 is paired")


def _check_paired(state: TournamentState, event: RoundPaired) -> None:
    expected = len(state.rounds) + 1
    if event.round != expected:
        raise Refused("round", f"expected round {expected}, got {event.round}")
    if event.round > state.info.rounds:
        raise Refused("round", f"the tournament has {state.info.rounds} rounds")
    if state.open_round() is not None:
        raise Refused("round", f"round {len(state.rounds)} is not closed")
    seen: set[int] = set()
    named = [e for t in event.tables for e in t.entries] + list(event.idle)
    named += [event.bye] if event.bye is not None else []
    for e in named:
        _entry(state, e, "tables", active=True)
        if e in seen:
            raise Refused("tables", f"entry {e} is named twice in round {event.round}")
        seen.add(e)
    for i, t in enumerate(event.tables, 1):
        if t.table != i:
            raise Refused("tables", f"tables are numbered 1, 2, ... in order; got {t.table} at {i}")
        if t.game_id in state.game_ids:
            raise Refused("tables", f"game_id {t.game_id!r} is another table's already")
    ids = [t.game_id for t in event.tables]
    if len(set(ids)) != len(ids):
        raise Refused("tables", "two tables share a game_id")


def _check_result(state: TournamentState, event: Result) -> None:
    rnd = state.round(event.round)
    if rnd is None:
        raise Refused("round", f"round {event.round} is not paired")
    if rnd.closed:
        raise Refused("round", f"round {event.round} is closed: no more results for it")
    table = rnd.table(event.table)
    if table is None:
        raise Refused("table", f"round {event.round} has no table {event.table}")
    if table.game_id != event.game_id:
        raise Refused("game_id", f"table {event.table} plays {table.game_id!r}, not {event.game_id!r}")
    earlier = [r for r in rnd.results.get(event.table, []) if r.disputed is None]
    if earlier:
        raise Refused("table", f"round {event.round} table {event.table} has a result already "
                      f"(seq {earlier[-1].seq}); a second one is refused")


def _check_closed(state: TournamentState, event: RoundClosed) -> None:
    rnd = state.round(event.round)
    if rnd is None:
        raise Refused("round", f"round {event.round} is not paired")
    if rnd.closed:
        raise Refused("round", f"round {event.round} is closed already")
    missing = [t.table for t in rnd.paired.tables if t.table not in rnd.results]
    if missing:
        raise Refused("round", f"round {event.round}: table(s) {', '.join(map(str, missing))} have "
                      "no result (record one, --disputed if need be)")


def apply(state: TournamentState, event: Event) -> TournamentState:
    """Apply a checked event to the state (in place) and return it."""
    if isinstance(event, TournamentStarted):
        state.started = event
    elif isinstance(event, Entered):
        state.entries[event.entry] = EntryState(event.entry, tuple(event.players), event.name)
    elif isinstance(event, Withdrawn):
        state.entries[event.entry].withdrawn = event.reason
    elif isinstance(event, RoundPaired):
        state.rounds.append(RoundState(event))
        state.game_ids.update(t.game_id for t in event.tables)
    elif isinstance(event, Result):
        state.rounds[event.round - 1].results.setdefault(event.table, []).append(event)
    elif isinstance(event, Adjusted):
        state.rounds[event.round - 1].adjustments.append(event)
    elif isinstance(event, RoundClosed):
        state.rounds[event.round - 1].closed = True
    elif isinstance(event, TournamentEnded):
        state.ended = event
    return state


def fold(events: Iterable[TournamentEvent]) -> TournamentState:
    """Return the state after `events`, each checked first (raises `Refused` at the first bad one)."""
    state = TournamentState()
    for event in events:
        check(state, event)
        apply(state, event)
    return state
