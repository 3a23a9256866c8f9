"""What-if branches (docs/log-format.md, "Branches"): a game forked at any seq and played on.

A branch is a log whose lines `0..fork_seq` are its parent's lines byte for byte (so the same
chain), whose line `fork_seq + 1` is a `branched` event, and whose later events are played from
the state at `fork_seq` by the same engine. Its deck is the parent's (`deck: parent`): the cards
stay where the fork left them, and a later hand the parent dealt is dealt again exactly as the
parent recorded it (`ParentDeck`); a hand the parent never reached is dealt from the seed the
`branched` line states (`seeds.BranchSeeds`).

`start_branch` forks (checks the parent up to the fork, returns a table at the fork with the
`branched` event appended); `play_out` plays scripted moves, then bots, up to a stop;
`make_branch` does both and writes the branch file whole. `branch_of` names what a log is.
Pure but for `make_branch` and `read_parent`, which read and write files.
"""

from __future__ import annotations

import hashlib
import random
import typing
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import msgspec

from buraco_events.bots.registry import table_bots
from buraco_events.core.choices import Action
from buraco_events.core.gate import IllegalMove
from buraco_events.core.infoset import InfoSetError, info_set, knowledge_of, sample
from buraco_events.core.seeds import BranchSeeds
from buraco_events.core.state import GameState
from buraco_events.core.table import EndlessGame, Table, WrongSeat
from buraco_events.log.atomic import place
from buraco_events.log.commit import keyed_salts
from buraco_events.log.lines import LogError, RawLines, decode_line, os_reason
from buraco_events.log.reader import EventReader
from buraco_events.log.sources import open_source
from buraco_events.model.events import (
    AnyEvent,
    Branched,
    Event,
    GameEnded,
    GameStarted,
    HandEnded,
    HandStarted,
    branch_words,
    encode_event,
    line_hash,
)

from .commands import refusal_text

#: how far `play_out` goes: the scripted moves only, the end of the hand in play at the fork,
#: or the end of the game
Until = Literal["moves", "hand", "game"]
UNTIL: tuple[str, ...] = typing.get_args(Until)


class BranchError(ValueError):
    """A branch that cannot be made, in one line; `exit_code` 1 (a problem in what was read:
    the parent's lines, an illegal move) or 2 (unreadable input, a bad option)."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def branch_in_lines(lines: Iterable[bytes]) -> str | None:
    """Return `branch_words` for a log's stored lines when it is a branch (its last `branched`
    line), else None; lines that do not read are passed over (the log's reader reports them)."""
    game_id, last = "", None
    for i, line in enumerate(lines):
        if i > 0 and b'"branched"' not in line:
            continue
        try:
            event = decode_line(line, i + 1)
        except LogError:
            continue
        if isinstance(event, GameStarted) and i == 0:
            game_id = event.game_id
        elif isinstance(event, Branched):
            last = event
    return branch_words(game_id, last) if last is not None else None


# -- the parent's deck -----------------------------------------------------------------------------


class ParentDeck:
    """Where a branch's later deals and the salts of its committed deals come from.

    `deal(state)` is the parent's recorded deal of the hand about to start (with the branch's
    seq), or None where the parent never dealt it (the rng policy deals it then). A recorded
    deal keeps its commitment when its salt is known (the parent revealed it, or the parent's
    key file `key` is at hand), else it is dealt without one: a commitment never revealed would
    read as a deal problem. `salt(hand)` answers the table's salt source: the known salt of a
    parent's hand, None for any other.
    """

    def __init__(self, parent_events: Iterable[Event], key: bytes | None = None) -> None:
        self.deals: dict[int, HandStarted] = {}
        self.salts: dict[int, str] = {}
        for event in parent_events:
            if isinstance(event, HandStarted):
                self.deals.setdefault(event.hand, event)
            elif isinstance(event, HandEnded) and event.salt is not None:
                self.salts.setdefault(event.hand, event.salt)
        self._keyed = keyed_salts(key) if key is not None else None

    def salt(self, hand: int) -> str | None:
        """Return the salt of the parent's deal of `hand`, if known."""
        deal = self.deals.get(hand)
        if deal is None or deal.commitment is None:
            return None
        known = self.salts.get(hand)
        if known is None and self._keyed is not None:
            known = self._keyed(hand)
        return known

    def deal(self, state: GameState) -> HandStarted | None:
        """Return the parent's deal of the next hand as this branch's next line, or None."""
        recorded = self.deals.get(state.hand_no + 1)
        if recorded is None:
            return None
        commitment = recorded.commitment if self.salt(recorded.hand) is not None else None
        return msgspec.structs.replace(recorded, seq=state.next_seq, prev=None, at=None, commitment=commitment)


# -- forking and playing on ------------------------------------------------------------------------


@dataclass(frozen=True)
class Parent:
    """A parent log as a branch needs it: its lines (bytes, without `\\n`), as far as they read
    and chain (`events` decoded alongside), its name and whether it is sealed."""

    name: str
    lines: list[bytes]
    events: list[AnyEvent]
    sealed: bool


def read_parent(path: str | Path) -> Parent:
    """Read a parent log (a file or `ARCHIVE.bza/NAME`): every line that reads and chains, up to
    the first that does not. Raises `BranchError` (2) for input that is not a log."""
    try:
        raw = open_source(path)
        lines = list(raw)
    except OSError as exc:
        raise BranchError(f"{path}: cannot read: {os_reason(exc)}", 2) from None
    except ValueError as exc:  # a damaged archive, or a whole archive where a log is asked for
        text = str(exc)
        raise BranchError(text if text.startswith(str(path)) else f"{path}: {text}", 2) from None
    good: list[bytes] = []
    events: list[AnyEvent] = []
    reader = EventReader(RawLines(raw.name, lines))
    try:
        for _, line, event in reader:
            good.append(line)
            events.append(event)
    except LogError as exc:
        if not events:
            raise BranchError(str(exc), 2) from None
    return Parent(raw.name, good, events, sealed=events[0].prev is not None if events else False)


def start_branch(parent: Parent, at: int, *, by: str, reason: str, seed: str,
                 key: bytes | None = None, seat: int | None = None) -> tuple[Table, list[bytes]]:
    """Fork `parent` after its line `at`: return a table at that point with the `branched` event
    appended, and the branch's lines so far (the parent's `0..at` as stored, then `branched`).

    The table deals the parent's recorded hands (`ParentDeck`) and any other from `seed`. With
    `seat`, the deck is `redealt`: the cards that seat could not see at the fork are dealt again
    from `seed` (`core.infoset`), and every later hand is dealt from `seed` too. Raises
    `BranchError` when `at` is not a line of the parent that reads, the parent is not legal up to
    it, or (with `seat`) no hand is in play there.
    """
    n = len(parent.events)
    if not 0 <= at < n:
        raise BranchError(f"--at: {parent.name} has seqs 0..{n - 1} that read and chain, not {at}", 2)
    if isinstance(parent.events[at], GameEnded):
        raise BranchError(f"--at: seq {at} is game_ended: a branch may not follow game_ended", 2)
    deck = ParentDeck(parent.events, key)
    table = Table(rng=BranchSeeds(seed), deals=deck.deal if seat is None else None, salts=deck.salt)
    for event in parent.events[:at + 1]:
        try:
            table.append(event)
        except IllegalMove as exc:
            raise BranchError(f"{parent.name}: the parent is not legal before the fork: {exc}") from None
    if seat is None:
        branched = Branched(seq=at + 1, parent=table.state.game_id, fork_seq=at, deck="parent", seed=seed,
                            by=by, reason=reason)
    else:
        branched = _redealt(table.state, parent.events[:at + 1], seat, by=by, reason=reason, seed=seed)
    table.append(branched)
    lines = parent.lines[:at + 1]
    lines.append(_line(branched, lines[-1] if parent.sealed else None))
    return table, lines


def _redealt(state: GameState, events: Sequence[Event], seat: int, *, by: str, reason: str,
             seed: str) -> Branched:
    """Return the `branched` line of a fair what-if for `seat`: what it could not see at the fork
    dealt again at random (`infoset.sample` from `Random(f"branch/{seed}/redeal")`)."""
    try:
        info = info_set(state, knowledge_of(events), seat)
    except InfoSetError as exc:
        raise BranchError(f"--as {seat}: {exc}", 2) from None
    dealt = sample(info, random.Random(f"branch/{seed}/redeal"))
    return Branched(
        seq=state.next_seq, parent=state.game_id, fork_seq=state.next_seq - 1, deck="redealt", seat=seat,
        seed=seed, by=by, reason=reason, hands=dealt.hands, stock=dealt.stock,
        deads=tuple(() if d is None else d for d in dealt.deads),
    )


def _line(event: Event, last: bytes | None) -> bytes:
    """Return the stored line of `event` after line `last` (None: the log is unsealed)."""
    prev = line_hash(last) if last is not None else None
    return encode_event(msgspec.structs.replace(event, prev=prev))


def play_out(table: Table, moves: Sequence[Action], bots: Sequence[str], until: Until,
             lines: list[bytes], sealed: bool) -> None:
    """Play a branch on from its table: the scripted `moves` first, each by whoever is to move
    (a dead is taken for its seat, the table records its own events), then `bots` in every seat
    (one name for all seats, one per team or one per seat) up to `until`. Appends each event's
    line to `lines`. Raises `BranchError` for an illegal move, a bad bot or an endless game."""
    recorded: list[Event] = []
    table.record = recorded.append
    state = table.state
    start_hand = state.hand_no if state.phase not in ("deal", "start") else state.hand_no + 1
    script = deque(moves)
    done = 0
    try:
        while script and not table.over:
            seat = table.to_move
            if seat is None:
                table.step()  # the table's own event: a deal, a refill, a hand's or the game's end
            elif state.phase == "dead":
                table.act(seat, table.legal_actions()[0], advance=False)  # taken as soon as the hand empties
            else:
                action = script.popleft()
                try:
                    table.act(seat, action, advance=False)
                except IllegalMove as exc:  # refused in the words `play` uses
                    raise BranchError(f"--play: move {done + 1} ({_words(action)}) by seat {seat}: "
                                      f"{refusal_text(exc, action, state)}") from None
                except WrongSeat as exc:
                    raise BranchError(f"--play: move {done + 1} ({_words(action)}) by seat {seat}: {exc}") from None
                done += 1
        if until != "moves" and not table.over:
            try:
                names = list(bots) if len(bots) in (1, 2, state.n_players) else None
                if names is None:
                    raise ValueError(f"give 1, 2 or {state.n_players} bot names, got {len(bots)}")
                table.seats = dict(enumerate(table_bots([names[s % len(names)] for s in range(state.n_players)])))
            except ValueError as exc:
                raise BranchError(f"--bots: {exc}", 2) from None
            while not table.over:
                event = table.step()
                if event is None:
                    break
                if until == "hand" and isinstance(event, HandEnded) and event.hand >= start_hand \
                        and state.phase != "game_end":
                    break
    except EndlessGame as exc:
        raise BranchError(str(exc)) from None
    finally:
        last = lines[-1]
        for event in recorded:
            last = _line(event, last if sealed else None)
            lines.append(last)
        table.record = None


def _words(action: Action) -> str:
    from .commands import action_command  # the play commands' words, for the error

    return action_command(action)


@dataclass(frozen=True)
class BranchResult:
    """What `make_branch` wrote: the file, its head, the fork, its events and the final state."""

    path: Path
    head: str
    fork_seq: int
    events: int
    state: GameState
    branched: Branched


def make_branch(parent_path: str | Path, at: int, out: Path, *, moves: Sequence[Action] = (),
                bots: Sequence[str] = ("greedy",), until: Until = "hand", by: str, reason: str,
                seed: str = "1", key: bytes | None = None, seat: int | None = None) -> BranchResult:
    """Fork the log at `parent_path` after seq `at`, play it on (`play_out`) and write the branch
    to `out`, whole or not at all; an existing `out` is never replaced (`LogExistsError`)."""
    parent = read_parent(parent_path)
    table, lines = start_branch(parent, at, by=by, reason=reason, seed=seed, key=key, seat=seat)
    play_out(table, moves, bots, until, lines, parent.sealed)
    place(out, b"".join(line + b"\n" for line in lines))
    branched = decode_line(lines[at + 1], at + 2)
    assert isinstance(branched, Branched)
    return BranchResult(out, hashlib.sha256(lines[-1]).hexdigest(), at, len(lines), table.state, branched)


__all__ = [
    "UNTIL", "BranchError", "BranchResult", "Parent", "ParentDeck", "Until", "branch_in_lines",
    "make_branch", "play_out", "read_parent", "start_branch",
]
