"""Projections: what anyone may see of a game, as plain data (pure folds of the engine).

`player_view(state, seat)` is the one place hidden cards are removed: during a hand other hands
become counts, the stock and untaken deads become counts, a closed pile shows only its top card
and size, a closed pile just taken shows its rest only to the taker, and the score sheet leaves
out the cards still held (their values would tell what the hands hold). Once the hand is over the
hands are laid open for counting (RULES 7), so the sheet is complete. With `seat=None` it is the
referee's view, where everything is shown. The views' Structs live in `views` and `player_view`
in `seatview` (compiled in the compiled build: a bot gets a view at every decision); this module
re-exports both.

`Timeline` folds a log's events through the engine once (each event checked) and keeps a snapshot
every few events, so the state after any seq is a copy plus a short fold; the events stay the
truth. It also records each meld's history. `describe` tells an event in words, with only what
the table sees (a draw does not name its card; a closed pile shows its top card and size).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from buraco_events.core.cards import RANKS, Card
from buraco_events.core.engine import apply, play
from buraco_events.core.gate import IllegalMove, team_of
from buraco_events.core.melds import MeldShape
from buraco_events.core.seatview import player_view
from buraco_events.core.state import GameState
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
    StockRefilled,
    TookDead,
    TookPile,
    branch_words,
)
from buraco_events.model.terms import kind_phrase
from buraco_events.model.views import (
    DeadView,
    MeldKind,
    MeldView,
    PendingView,
    PileView,
    View,
    meld_kind,
)

from .text import hand_words

#: a snapshot of the state every this many events (seeking folds at most this many)
SNAPSHOT_EVERY = 64


# -- meld histories --------------------------------------------------------------------------


class MeldStep(msgspec.Struct, frozen=True, kw_only=True):
    """One step in a meld's life: who laid or added which cards at which seq, and what followed.

    `canasta` is the kind it reached at this step (only on the step that made it a canasta);
    `wild` tells in words what happened to the wild, when something did (RULES 3.3).
    """

    seq: int
    player: int
    action: str
    cards: tuple[Card, ...]
    size: int
    canasta: str | None = None
    wild: str | None = None


class MeldHistory(msgspec.Struct, frozen=True, kw_only=True):
    """Every step of one meld of one hand, in log order."""

    hand: int
    meld: int
    team: int
    steps: tuple[MeldStep, ...]


def wild_stands_for(shape: MeldShape) -> Card | None:
    """Return the card a run's wild stands in for (None: no wild, or a set's wild)."""
    if shape.wild is None or shape.type != "run" or shape.suit is None:
        return None
    # the canonical arrangement runs low to high, one position per card (RULES 3.4)
    for i, card in enumerate(shape.cards):
        own = RANKS[(shape.low + i - 1) % 13] + shape.suit
        if card == shape.wild and card != own:
            return own
    return None


def wild_change(before: MeldShape | None, after: MeldShape, added: Sequence[Card]) -> str | None:
    """Return in words what a play did to the meld's wild (RULES 3.3), or None if nothing."""
    wild, place = after.wild, wild_stands_for(after)
    where = f" for {place}" if place else ""
    if before is None or before.wild is None:
        if wild is None:
            return None
        if before is not None and wild not in added:
            return f"the natural {wild} became the wild{where}"
        return f"wild {wild} laid{where}"
    old_place = wild_stands_for(before)
    if wild is None:
        return f"{before.wild} went to its own place: the meld is clean"
    if wild == before.wild and place == old_place:
        return None
    if wild == before.wild:
        return f"wild {wild} moved from {old_place} to {place}"
    return f"wild is now {wild}{where}"


# -- describing events -----------------------------------------------------------------------


def team_label(players: Sequence[str], team: int) -> str:
    """Return a team's name: its player (2 players) or both partners joined by `&`."""
    return " & ".join(p for s, p in enumerate(players) if team_of(s) == team)


def _cards(cards: Sequence[Card]) -> str:
    return " ".join(cards)


def _count(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _after_play(after: GameState, player: int) -> str:
    """Return what an emptied hand led to: a dead to take, or the close (RULES 4, 6)."""
    if after.phase == "dead":
        return ", emptying the hand: takes a dead"
    if after.phase == "hand_end" and after.closed_by == player:
        return ", closing the hand"
    if after.phase == "hand_end":
        return "; the stock is down to 2, so the hand ends (RULES 5)"
    return ""


def describe(event: Event, state_before: GameState, players: Sequence[str]) -> str:
    """Return the event in words, telling only what the table sees (the state is not changed)."""
    head = f"seq {event.seq}: "
    if isinstance(event, GameStarted):
        target = f", target {event.target}" if event.target is not None else ""
        return head + f"game {event.game_id} started: {event.variant}, {', '.join(event.players)}{target}"
    if isinstance(event, Note):
        return head + f"note by {event.by}: {event.text}"
    if isinstance(event, Branched):
        return head + (f"{branch_words(state_before.game_id, event)}: from here on a hypothesis, not the"
                       f" game (by {event.by}: {event.reason}; deck: {event.deck})")
    after = apply(state_before.copy(), event)
    if isinstance(event, HandStarted):
        upcard = f", upcard {_cards(event.discard)}" if event.discard else ""
        return head + f"{hand_words(event.hand)} dealt; {players[event.first]} plays first{upcard}"
    if isinstance(event, StockRefilled):
        return head + f"the stock ran out; dead {event.dead} became the stock ({len(after.stock)} cards)"
    if isinstance(event, HandEnded):
        sheet = after.hand_results[-1]
        how = f"{players[event.closed_by]} closed" if event.closed_by is not None else "stock exhausted"
        text = head + f"{hand_words(event.hand)} ended ({how}); scores " + " / ".join(str(s.total) for s in sheet)
        if tuple(event.scores) != tuple(s.total for s in sheet):
            text += " (the log claims " + " / ".join(map(str, event.scores)) + ")"
        return text
    if isinstance(event, GameEnded):
        totals = " / ".join(map(str, after.totals))
        winner = after.winner
        if winner is None:  # RULES 8: a tournament turn may end with equal totals
            return head + f"game over: a tie, totals {totals}"
        verb = "wins" if len(players) == 2 else "win"
        return head + f"game over: {team_label(players, winner)} {verb}, totals {totals}"
    name = players[event.player]  # type: ignore[attr-defined]
    if isinstance(event, Drew):
        return head + f"{name} drew from the stock ({len(after.stock)} left)"
    if isinstance(event, TookPile):
        top, size = event.cards[-1], len(event.cards)
        if state_before.rules.pile == "closed":
            return head + f"{name} took the pile ({_count(size)}), top {top}"
        return head + f"{name} took the pile ({_count(size)}): {_cards(event.cards)}"
    if isinstance(event, Melded | LaidOff):
        meld = after.melds[event.meld]
        old = state_before.melds[event.meld].shape if isinstance(event, LaidOff) else None
        if isinstance(event, Melded):
            text = f"{name} laid meld #{event.meld}, a {meld.shape.type}: {_cards(meld.cards)}"
        else:
            text = f"{name} added {_cards(event.cards)} to meld #{event.meld}: {_cards(meld.cards)}"
        if meld.canasta_seq == event.seq:
            text += f", {kind_phrase(meld.canasta(after.rules))}"
        wild = wild_change(old, meld.shape, event.cards)
        if wild:
            text += f" ({wild})"
        return head + text + _after_play(after, event.player)
    if isinstance(event, Discarded):
        text = f"{name} discarded {event.card}"
        if after.phase == "dead":
            return head + text + ", emptying the hand: takes a dead for the next turn"
        return head + text + _after_play(after, event.player)
    if isinstance(event, TookDead):
        how = "plays on" if after.phase == "play" else "it waits for the next turn"
        return head + f"{name} took dead {event.dead} ({len(event.cards)} cards); {how}"
    return head + type(event).__name__


# -- branches --------------------------------------------------------------------------------


def branch_object(game_id: str, branched: Branched | None, seq: int) -> dict[str, Any] | None:
    """Return the `branch` object of a replay step: None for the game itself, else what the
    branch is (`words`, `parent`, `fork_seq`, `deck`, `seat`, `by`, `reason`) and whether the step
    lies after the fork (`after_fork`: the `branched` line and what the branch played; before
    it, the parent's own events). The seed stays out: with a redealt deck it would tell a seat
    the hidden cards."""
    if branched is None:
        return None
    return {
        "words": branch_words(game_id, branched), "parent": branched.parent, "fork_seq": branched.fork_seq,
        "deck": branched.deck, "seat": branched.seat, "by": branched.by, "reason": branched.reason,
        "after_fork": seq > branched.fork_seq,
    }


# -- the timeline ----------------------------------------------------------------------------


def seat_error(exc: IllegalMove, seat: int | None) -> str:
    """Return an illegal event's error as `seat` may read it (None: the referee, all of it).

    A seat's output never holds what the seat cannot see, errors included: a seat gets the
    engine's public reason, which names only cards every seat sees (`IllegalMove.public`).
    """
    return str(exc) if seat is None else exc.public_text()


class Timeline:
    """A game's states after every seq, folded once from its (checked) events; seeks at once.

    The fold stops at the first illegal event: `events` is the good prefix and `error` the
    `IllegalMove` that stopped it (None for a legal log).
    """

    def __init__(self, events: Sequence[Event], every: int = SNAPSHOT_EVERY) -> None:
        self.every = every
        self.events: list[Event] = []
        self.error: IllegalMove | None = None
        self._snaps: list[GameState] = []
        self._hand_starts: list[int] = []
        self._turns: list[tuple[int, int]] = []  # (seq of a turn's first event, seat)
        self._steps: dict[tuple[int, int], list[MeldStep]] = {}
        self._teams: dict[tuple[int, int], int] = {}
        state = GameState()
        for ev in events:
            old = state.melds[ev.meld].shape if isinstance(ev, LaidOff) and ev.meld < len(state.melds) else None
            try:
                play(state, ev)
            except IllegalMove as exc:
                self.error = exc
                break
            self._record(ev, state, old)
            self.events.append(ev)
            if ev.seq % every == 0:
                self._snaps.append(state.copy())
        self.final = state
        #: the fork that makes this log a branch (its last `branched` event), None for the game
        self.branched: Branched | None = None
        for ev in self.events:
            if isinstance(ev, Branched):
                self.branched = ev

    def _record(self, ev: Event, state: GameState, old: MeldShape | None) -> None:
        if isinstance(ev, HandStarted):
            self._hand_starts.append(ev.seq)
        elif isinstance(ev, Drew | TookPile):
            self._turns.append((ev.seq, ev.player))
        elif isinstance(ev, Melded | LaidOff):
            meld = state.melds[ev.meld]
            key = (state.hand_no, ev.meld)
            self._teams[key] = meld.team
            self._steps.setdefault(key, []).append(MeldStep(
                seq=ev.seq, player=ev.player, action="laid" if isinstance(ev, Melded) else "added",
                cards=tuple(ev.cards), size=len(meld.cards),
                canasta=meld.canasta(state.rules) if meld.canasta_seq == ev.seq else None,
                wild=wild_change(old, meld.shape, ev.cards),
            ))

    @property
    def last(self) -> int:
        """Return the seq of the last good event (-1 when there is none)."""
        return len(self.events) - 1

    @property
    def players(self) -> tuple[str, ...]:
        """Return the players' names in seat order."""
        return self.final.players

    @property
    def n_hands(self) -> int:
        """Return the number of hands dealt."""
        return len(self._hand_starts)

    def state(self, seq: int) -> GameState:
        """Return an independent copy of the state after `seq` (-1: before the first event)."""
        if not -1 <= seq <= self.last:
            raise IndexError(f"seq {seq} is outside 0..{self.last}")
        if seq < 0:
            return GameState()
        k = seq // self.every
        state = self._snaps[k].copy()
        for ev in self.events[k * self.every + 1:seq + 1]:
            apply(state, ev)  # checked when the timeline was built
        return state

    def view(self, seq: int, seat: int | None = None) -> View:
        """Return what `seat` sees after `seq` (None: the referee)."""
        return player_view(self.state(seq), seat)

    def describe(self, seq: int) -> str:
        """Return the event at `seq` in words."""
        return describe(self.events[seq], self.state(seq - 1), self.players)

    def replay_object(self, seq: int, seat: int | None, *, sealed: bool, error: str | None,
                      rulings: Any = None, decisions: Mapping[int, Any] | None = None) -> dict[str, Any]:
        """Return the table after `seq` seen by `seat` as JSON-ready builtins: the object of
        `buraco replay --at SEQ --json [--as SEAT]`, and of each step of a `buraco share` page.

        It is the view's fields plus `event` (in words), `last_seq`, `sealed`, `error` (the
        reason the log stops replaying, or None), `branch` (`branch_object`: what a branch is, None
        for the game) and `rulings` (the game's rulings report as builtins, from its rulings log
        beside it, or None): one builder, so the two can never differ. With `decisions` (the
        seat's analysed decisions as builtins, by seq: `analysis.load.decision_objects`) it also
        has `decision`: the one whose event is this seq's, or None.
        """
        view = msgspec.to_builtins(self.view(seq, seat))
        obj = view | {"event": self.describe(seq), "last_seq": self.last, "sealed": sealed, "error": error,
                      "branch": branch_object(self.final.game_id, self.branched, seq), "rulings": rulings}
        if decisions is not None:
            obj["decision"] = decisions.get(seq)
        return obj

    def hand_start(self, hand: int) -> int:
        """Return the seq of hand `hand`'s `hand_started`; raises IndexError if never dealt."""
        if not 0 <= hand < len(self._hand_starts):
            dealt = len(self._hand_starts)
            raise IndexError(f"{hand_words(hand)} was not dealt ({'hands 1 to ' + str(dealt) if dealt else 'no hand'}"
                             " dealt)")
        return self._hand_starts[hand]

    def hand_at(self, seq: int) -> int:
        """Return the hand a seq belongs to (-1 before the first deal)."""
        return sum(1 for s in self._hand_starts if s <= seq) - 1

    def next_turn(self, seat: int | None, after: int) -> int | None:
        """Return the seq just before `seat`'s next turn after `after` (None: any seat), or None."""
        for seq, who in self._turns:
            if seq - 1 > after and (seat is None or who == seat):
                return seq - 1
        return None

    def meld_histories(self, hand: int, upto: int | None = None) -> list[MeldHistory]:
        """Return the history of each meld of `hand` (steps up to seq `upto`), by meld number."""
        out = []
        for (h, meld), steps in sorted(self._steps.items()):
            shown = tuple(s for s in steps if upto is None or s.seq <= upto)
            if h == hand and shown:
                out.append(MeldHistory(hand=h, meld=meld, team=self._teams[(h, meld)], steps=shown))
        return out


__all__ = [
    "DeadView", "MeldHistory", "MeldKind", "MeldStep", "MeldView", "PendingView", "PileView", "SNAPSHOT_EVERY",
    "Timeline", "View", "branch_object", "describe", "meld_kind", "player_view", "seat_error", "team_label",
    "wild_change", "wild_stands_for",
]
