"""`buraco replay LOG`: the table after any event of a game log, static, as JSON or interactive.

`--at SEQ` shows the table after that event (default: the log's last event); `--hand N` jumps to
hand N's deal, the table right after its `hand_started`. `--as SEAT` (a seat index or a player's
name) shows what that seat could see; the default is the referee's view of every card. A log that
stops replaying (a line that does not decode, a broken chain, an illegal event) is shown up to its
last good event, with the error on one line and exit code 1; a path that cannot be read, or a
file that is not a log (empty, its first line not an event), exits 2. With `--as`, the error of an
illegal event is the engine's public reason: it names no card that seat cannot see.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import msgspec
import typer

from buraco_events.archive import ArchiveError
from buraco_events.events import Event
from buraco_events.log import EventReader, LogError, NotALogError
from buraco_events.projections import Timeline, seat_error
from buraco_events.render import render_view
from buraco_events.sources import open_source
from buraco_events.text import visible

from .common import PROBLEMS, err, fail, fail_read, out

#: the error to show a seat (None: the referee), or None when the log replays to its end
ErrorFor = Callable[[int | None], str | None]


class Loaded(msgspec.Struct, frozen=True):
    """A log read as far as it goes: its good events, whether it is sealed, the first error,
    and the head (SHA-256 of the last good line; None when no line was read)."""

    events: list[Event]
    sealed: bool
    error: str | None
    head: str | None = None


def load(path: Path) -> Loaded:
    """Read a log's events up to the first bad line (decode, seq or chain).

    OSError and `NotALogError` (input that is not a log at all) propagate.
    """
    reader = EventReader(open_source(path))
    events: list[Event] = []
    error: str | None = None
    try:
        events.extend(event for _, _, event in reader)
    except NotALogError:
        raise
    except LogError as exc:
        error = str(exc)
    status = reader.status()
    return Loaded(events, status.sealed, error, status.head)


def open_replay(log: Path, public: bool = False) -> tuple[Loaded, Timeline, ErrorFor]:
    """Read a log (a file or `ARCHIVE.bza/NAME`) and fold it: the loaded events, their timeline
    and the error each view shows (None for a whole legal log; see `error_for`).

    Exits 2 when the path cannot be read, 1 when not one event replays (with the words any seat
    may read when `public`: no seat is known yet to check what it may see).
    """
    if log.is_dir():
        fail(f"{log}: is a folder; give one log file", 2)
    try:
        loaded = load(log)
    except (OSError, NotALogError, ArchiveError) as exc:  # ArchiveError: ARCHIVE.bza/NAME
        fail_read(exc)
    timeline = Timeline(loaded.events)
    errors = error_for(log, loaded, timeline)
    if timeline.last < 0:
        fail(errors(0 if public else None) or f"{log}: no event replays", PROBLEMS)
    return loaded, timeline, errors


def timeline_error(path: Path, timeline: Timeline, seat: int | None = None) -> str | None:
    """Return the illegal event that stopped the replay, as one line naming file, line and seq,
    in the words `seat` may read (None: the referee's, naming every card)."""
    exc = timeline.error
    if exc is None:
        return None
    line = f": line {exc.seq + 1}" if exc.seq is not None else ""
    return f"{path}{line}: illegal event: {seat_error(exc, seat)}"


def error_for(path: Path, loaded: Loaded, timeline: Timeline) -> ErrorFor:
    """Return the error each view shows: the first bad line's, else the illegal event's."""
    return lambda seat: loaded.error or timeline_error(path, timeline, seat)


def resolve_seat(text: str | None, players: tuple[str, ...]) -> int | None:
    """Return the seat `--as` names (an index or a player's name); None for the referee."""
    if text is None:
        return None
    if text in players:
        return players.index(text)
    if text.isdigit() and int(text) < len(players):
        return int(text)
    fail(f"--as {text}: no such seat (seats 0..{len(players) - 1}: {', '.join(players)})")


def resolve_seq(timeline: Timeline, at: int | None, hand: int | None, broken: bool) -> int:
    """Return the seq to show from `--at` / `--hand` (default: the last good event)."""
    if at is not None and hand is not None:
        fail("--at and --hand: give one or the other", 2)
    last = timeline.last
    if hand is not None:
        try:
            return timeline.hand_start(hand)
        except IndexError as exc:
            if broken:
                return last  # the hand lies past the error: show how far the log goes
            fail(f"--hand {hand}: {exc}", 2)
    if at is None:
        return last
    if at < 0:
        fail(f"--at {at}: a seq is 0 or more", 2)
    if at > last:
        if broken:
            return last
        fail(f"--at {at}: the log ends at seq {last}", 2)
    return at


def replay(
    log: Annotated[Path, typer.Argument(help="a game log (.jsonl)", show_default=False)],
    at: Annotated[int | None, typer.Option("--at", help="show the table after this seq (default: the last event)")] = None,
    hand: Annotated[int | None, typer.Option("--hand", help="show hand N right after its deal (its hand_started)")] = None,
    as_seat: Annotated[str | None, typer.Option("--as", help="see as this seat, by index or player name (default: the referee, all cards)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the table as one JSON object")] = False,
    static: Annotated[bool, typer.Option("--static", "--no-interactive", help="print once even on a terminal (no interactive viewer)")] = False,
    history: Annotated[bool, typer.Option("--history", help="show each meld's history under it")] = False,
) -> None:
    """Show the table after any event of a game log (interactive on a terminal)."""
    loaded, timeline, errors = open_replay(log, public=as_seat is not None)
    seat = resolve_seat(as_seat, timeline.players)
    error = errors(seat)
    seq = resolve_seq(timeline, at, hand, error is not None)
    if not as_json and not static and sys.stdout.isatty():
        from .replay_app import ReplayApp  # textual loads only for the interactive viewer

        ReplayApp(timeline, seq=seq, seat=seat, error_for=errors, history=history).run()
    elif as_json:
        doc = timeline.replay_object(seq, seat, sealed=loaded.sealed, error=error)
        sys.stdout.write(msgspec.json.encode(doc).decode() + "\n")
    else:
        histories = timeline.meld_histories(timeline.hand_at(seq), seq) if history else ()
        out().print(render_view(
            timeline.view(seq, seat), timeline.describe(seq), last=timeline.last, histories=histories,
        ))
        if not loaded.sealed:
            err().print(f"note: {visible(str(log))} is unsealed (no prev chain): replayed and"
                        " checked, not sealed", markup=False)
    if error:
        fail(error, PROBLEMS)
