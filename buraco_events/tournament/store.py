"""A tournament log on disk: read with its chain checked and its events folded (`read_tournament`), and
appended to by one writer at a time (`append`), all checks done before anything is written.

It reuses the game log's shell: `lines.raw_lines` (lines of at most `MAX_LINE` bytes, a torn last
line kept apart), `chain.Chain` (seq and the `prev` links), the writer's `flock` and `write_all`.
Only the decoding is the tournament's own (`events.decode`): a game log is not a tournament log.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import msgspec

from buraco_events.log.atomic import sync_dir, write_all
from buraco_events.log.chain import Chain
from buraco_events.log.lines import MAX_LINE, LogError, os_reason, raw_lines
from buraco_events.log.writer import lock_log
from buraco_events.model.events import ZERO_HASH, Event, EventFormatError, line_hash

from .events import TournamentEvent, decode, encode
from .state import Refused, TournamentError, TournamentState, apply, check

#: the most lines a tournament log holds (a season of weekly events is a few thousand)
MAX_EVENTS = 200_000
#: the largest tournament log read, in bytes (a 512-entry event of 64 rounds is a few MB)
MAX_BYTES = 64 * 1024 * 1024


@dataclass
class TournamentLog:
    """A tournament log as read: its events, its state, its head and its lines as stored."""

    path: Path
    events: list[TournamentEvent]
    state: TournamentState
    head: str | None
    lines: list[bytes]


def games_dir(path: str | os.PathLike[str]) -> Path:
    """Return the default folder of a tournament's game logs: `T/` beside `T.jsonl`."""
    p = Path(path)
    return p.with_name(p.name[:-len(".jsonl")] if p.name.endswith(".jsonl") else p.name + ".games")


def _where(name: str, lineno: int, seq: int | None) -> str:
    return f"{name}: line {lineno}" + (f" (seq {seq})" if seq is not None else "")


def read_lines(lines: Sequence[bytes] | None, name: str, path: Path,
               tail: bytes = b"") -> TournamentLog:
    """Return the log of stored lines: each decoded, chained and checked against the state
    before it; raises `TournamentError` naming the file, line, seq and field at the first bad one."""
    chain = Chain(name)
    state = TournamentState()
    events: list[TournamentEvent] = []
    stored = list(lines or [])
    if len(stored) > MAX_EVENTS:
        raise TournamentError(f"{name}: more than {MAX_EVENTS:,} lines: not a tournament log")
    for lineno, line in enumerate(stored, 1):
        if len(line) > MAX_LINE or not line.strip():
            why = "longer than a line may be" if line.strip() else "a blank line"
            raise TournamentError(f"{_where(name, lineno, None)}: {why}", 2 if lineno == 1 else 1)
        try:
            event = decode(line)
        except EventFormatError as exc:
            code = 2 if lineno == 1 else 1
            raise TournamentError(f"{_where(name, lineno, _seq(line))}: {exc}", code) from None
        if lineno == 1 and event.prev is None:
            raise TournamentError(f"{_where(name, 1, event.seq)}: field prev: missing (a tournament"
                                  " log is sealed on every line)")
        try:
            chain.add(line, event)
            check(state, event)
        except LogError as exc:
            raise TournamentError(str(exc)) from None
        except Refused as exc:
            raise TournamentError(f"{_where(name, lineno, event.seq)}: {exc}") from None
        apply(state, event)
        events.append(event)
    if tail:
        raise TournamentError(f"{_where(name, len(stored) + 1, None)}: torn last line ({len(tail)} "
                              "bytes without a newline: a write was cut short)")
    if not events:
        raise TournamentError(f"{name}: empty file: not a tournament log", 2)
    return TournamentLog(path, events, state, chain.head, stored)


def _seq(line: bytes) -> int | None:
    try:
        seq = msgspec.json.decode(line).get("seq")
    except Exception:  # untrusted input: no seq to name
        return None
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else None


def read_tournament(path: str | os.PathLike[str]) -> TournamentLog:
    """Read and check a tournament log file; raises `TournamentError` (2: cannot be read)."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_BYTES:
            raise TournamentError(f"{p}: {size:,} bytes: larger than a tournament log may be "
                                  f"({MAX_BYTES:,})", 2)
        raw = raw_lines(p)
        lines = list(raw)
    except OSError as exc:
        raise TournamentError(f"{p}: cannot read: {os_reason(exc)}", 2) from None
    if not lines:
        what = "no whole line" if raw.tail else "empty file"
        raise TournamentError(f"{p}: line 1: {what}: not a tournament log (its first line is "
                              "tournament_started)", 2)
    return read_lines(lines, str(p), p, raw.tail)


def check_events(log: TournamentLog, events: Sequence[Event]) -> None:
    """Raise `TournamentError` when `events` may not follow the log (nothing is written)."""
    _sealed(log, events, str(log.path))


#: a command under the writer's lock: given the log as read, it returns the events to append
#: (their seq and prev are set on writing) or raises `TournamentError`
Command = Callable[[TournamentLog], list[Event]]


def _sealed(log: TournamentLog | None, events: Sequence[Event], name: str) -> bytes:
    """Return the lines of `events` after the log, each checked against the state it follows
    (a copy of the log's: the log as read is left as it is)."""
    state = TournamentState() if log is None else read_lines(log.lines, name, log.path).state
    seq = 0 if log is None else len(log.events)
    prev = ZERO_HASH if log is None or log.head is None else log.head
    out: list[bytes] = []
    for event in events:
        line = encode(msgspec.structs.replace(event, seq=seq, prev=prev))
        if len(line) > MAX_LINE:
            raise TournamentError(f"refusing to write an event of {len(line):,} bytes")
        decoded = decode(line)  # what readers will read: constraints hold only on decode
        try:
            check(state, decoded)
        except Refused as exc:
            raise TournamentError(f"{name}: seq {seq}: {exc} (refused: nothing written)") from None
        apply(state, decoded)
        out.append(line + b"\n")
        prev, seq = line_hash(line), seq + 1
    return b"".join(out)


def create(path: str | os.PathLike[str], first: Event) -> bytes:
    """Write a new tournament log holding `first`; refuses an existing file. Returns the line."""
    p = Path(path)
    data = _sealed(None, [first], str(p))
    try:
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    except FileExistsError:
        raise TournamentError(f"{p}: exists already (a tournament log is never replaced)") from None
    except OSError as exc:
        raise TournamentError(f"{p}: cannot write: {os_reason(exc)}", 2) from None
    try:
        write_all(fd, data)
        os.fdatasync(fd)
    finally:
        os.close(fd)
    sync_dir(p)
    return data


def append(path: str | os.PathLike[str], command: Command) -> tuple[TournamentLog, list[bytes]]:
    """Run `command` on the log as read under its writer's lock and append what it returns, in
    one write, synced; return the log as it was read and the lines appended. Nothing is written
    when the log does not read or the command refuses."""
    p = Path(path)
    try:
        fd = os.open(p, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
    except OSError as exc:
        raise TournamentError(f"{p}: cannot open: {os_reason(exc)}", 2) from None
    try:
        try:
            lock_log(fd, p)
        except LogError as exc:
            raise TournamentError(str(exc), 2) from None
        log = read_tournament(p)
        events = command(log)
        if not events:
            return log, []
        data = _sealed(log, events, str(p))
        write_all(fd, data)
        os.fdatasync(fd)
        return log, data.splitlines()
    finally:
        os.close(fd)
