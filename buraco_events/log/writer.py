"""Writing logs: the one writer of a live log (`open_log`, `LogWriter`) with its fsync policies,
and new sealed logs written whole (`write_log`, `write_logs`).

The one writer of a log holds an exclusive `flock` and appends one `os.write` per line on an
`O_APPEND` descriptor, so a crash leaves at most a torn last line, which `repair` truncates after
a backup. Stored lines are never rewritten, and a writer refuses any line its own readers would
reject. Its own module because it changes with the durability and concurrency policy, not with
how lines are read.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

import msgspec

from buraco_events.model.events import (
    ZERO_HASH,
    AnyEvent,
    Event,
    EventFormatError,
    GameEnded,
    HandEnded,
    encode_event,
    line_hash,
    seal_lines,
)

from .atomic import place, place_together, sync_dir, write_all
from .chain import ChainStatus, verify_chain
from .lines import (
    MAX_LINE,
    ConflictError,
    LockedError,
    LogError,
    LogExistsError,
    StrPath,
    end_error,
    raw_lines,
)

FsyncPolicy = Literal["hand", "event", "none"]
FSYNC_POLICIES: tuple[FsyncPolicy, ...] = ("hand", "event", "none")

_strict_decoder = msgspec.json.Decoder(AnyEvent)
#: the same, for a batch of lines written at once (`write_log`)
_strict_lines_decoder = msgspec.json.Decoder(list[AnyEvent])


def _check_line(line: bytes) -> None:
    """Refuse to store a line its own readers would reject (constraints hold only on decode)."""
    if len(line) > MAX_LINE:
        raise EventFormatError(
            f"refusing to write an event of {len(line):,} bytes (readers take at most {MAX_LINE:,})")
    try:
        _strict_decoder.decode(line)
    except msgspec.ValidationError as exc:
        raise EventFormatError(f"refusing to write an invalid event: {exc}") from None


def lock_log(fd: int, path: Path) -> None:
    """Take the exclusive lock of the one writer (`repair` too) on a log's open descriptor."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise LockedError(
            path, None, None, None, "locked: another writer has this log open (one writer per log)"
        ) from None


class LogWriter:
    """The one writer of a log: appends events with `seq` and `prev` set, one write per line."""

    def __init__(
        self, path: Path, fd: int, status: ChainStatus, fsync: FsyncPolicy, created: bool
    ) -> None:
        self.path = path
        self.fsync: FsyncPolicy = fsync
        self.next_seq = status.events
        self.head = status.head
        self.sealed = status.sealed or status.events == 0
        self.complete = status.complete  # a game_ended was the last line: nothing may follow
        self._fd = fd
        self._unsynced = False
        self._new_file = created
        self._failed: str | None = None

    def append(self, event: Event, expected_seq: int | None = None) -> bytes:
        """Append an event as the next line (its seq and prev are set here); return that line."""
        if self._fd < 0:
            raise LogError(self.path, None, None, None, "the log writer is closed")
        if self._failed:
            raise LogError(self.path, None, None, None, f"an earlier write failed: {self._failed}")
        if self.complete:
            raise LogError(
                self.path, None, self.next_seq, None,
                "the game is over (its last line is game_ended): nothing may follow game_ended",
            )
        if expected_seq is not None and expected_seq != self.next_seq:
            raise ConflictError(
                self.path, None, self.next_seq, "seq",
                f"conflict: the append expected seq {expected_seq}, but the log is at seq "
                f"{self.next_seq} (another append came first)",
            )
        prev = (self.head or ZERO_HASH) if self.sealed else None
        line = encode_event(msgspec.structs.replace(event, seq=self.next_seq, prev=prev))
        _check_line(line)
        self._write(line + b"\n")
        self.next_seq += 1
        self.head = line_hash(line)
        self.complete = isinstance(event, GameEnded)
        self._unsynced = True
        if self.fsync == "event" or (
            self.fsync == "hand" and isinstance(event, HandEnded | GameEnded)
        ):
            self.sync()
        return line

    def _write(self, data: bytes) -> None:
        try:  # one write per line; a short write (disk full) is finished or fails
            write_all(self._fd, data)
        except OSError as exc:
            self._failed = f"{exc.strerror}; the last line may be torn (see `buraco log repair`)"
            raise LogError(self.path, None, self.next_seq, None, f"write failed: {self._failed}") from exc

    def sync(self) -> None:
        """Flush the appended lines to disk (fdatasync; the folder too for a new file)."""
        os.fdatasync(self._fd)
        if self._new_file:
            sync_dir(self.path)
            self._new_file = False
        self._unsynced = False

    def close(self) -> None:
        """Sync (unless the policy is "none"), release the lock and close; idempotent."""
        if self._fd < 0:
            return
        try:
            if self._unsynced and self.fsync != "none" and not self._failed:
                self.sync()
        finally:
            os.close(self._fd)  # closing the descriptor releases the flock
            self._fd = -1

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_log(path: StrPath, create: bool = True, fsync: FsyncPolicy = "hand") -> LogWriter:
    """Open a log to append to it as its only writer, after checking it to find seq and head."""
    if fsync not in FSYNC_POLICIES:
        raise ValueError(f"unknown fsync policy {fsync!r} (choose from {', '.join(FSYNC_POLICIES)})")
    p = Path(path)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC
    created = False
    if create:
        try:
            fd = os.open(p, flags | os.O_CREAT | os.O_EXCL, 0o644)
            created = True
        except FileExistsError:
            fd = os.open(p, flags)
    else:
        fd = os.open(p, flags)
    try:
        lock_log(fd, p)
        lines = raw_lines(p)
        status = verify_chain(lines, lines.name)
        error = end_error(lines, status.events)
        if error is not None and (status.events or lines.torn):  # an empty file is a new log
            raise error
    except BaseException:
        os.close(fd)
        raise
    return LogWriter(p, fd, status, fsync, created)


def write_log(path: StrPath, events: Iterable[Event], *, exist_ok: bool = False) -> str:
    """Write events as a new sealed log file (seq and prev computed here); return its head.

    The file appears whole or not at all (written aside, fsynced, then linked into place). An
    existing file is never replaced: with `exist_ok` one holding exactly these bytes is accepted
    (a rerun of the same simulation), anything else raises `LogExistsError`.
    """
    data, log_head = _sealed(events)
    target = Path(path)
    try:
        place(target, data)
    except FileExistsError:
        _accept_existing(target, data, exist_ok)
    return log_head


def write_logs(logs: Iterable[tuple[StrPath, Iterable[Event]]], *, exist_ok: bool = False) -> list[str]:
    """`write_log` for several new logs at once, flushed to disk together; return their heads.

    Every log is sealed and checked first: an invalid one raises before anything is written.
    Then the files of one folder are written aside (unnamed), made durable by one flush of their
    file system (Linux `syncfs`: one write-back for all of them instead of an fsync each, which
    costs a short log about two thirds of its writing), and linked into place in order. Each file
    still appears whole or not at all, and none is linked before its bytes are on disk. An
    existing file is never replaced (`write_log`'s `exist_ok`); a `LogExistsError` leaves the
    logs before it in place and none after it. Where there is no `syncfs`, no unnamed file or no
    /proc, or the logs are in several folders, they are written one `write_log` after another.
    """
    items = [(Path(path), *_sealed(events)) for path, events in logs]
    placed = 0
    if len(items) > 1:
        placed = place_together([(target, data) for target, data, _ in items],
                                lambda target, data: _accept_existing(target, data, exist_ok))
    for target, data, _ in items[placed:]:
        try:
            place(target, data)
        except FileExistsError:
            _accept_existing(target, data, exist_ok)
    return [log_head for _, _, log_head in items]


def _sealed(events: Iterable[Event]) -> tuple[bytes, str]:
    """Return the bytes of a new sealed log of `events` and its head (refusing what readers would)."""
    events = list(events)
    if not events:
        raise ValueError("a log holds at least one event")
    # asked per class (an event class's isinstance goes through msgspec's metaclass: slow per event)
    if any(issubclass(cls, GameEnded) for cls in set(map(type, events[:-1]))):
        raise ValueError("nothing may follow game_ended (a rule of the log format)")
    lines = seal_lines(events)
    _check_batch(lines)
    return b"\n".join(lines) + b"\n", line_hash(lines[-1])


def _accept_existing(target: Path, data: bytes, exist_ok: bool) -> None:
    """An existing file at `target`: accepted when `exist_ok` and it holds `data`, else refused."""
    if not (exist_ok and target.read_bytes() == data):
        raise LogExistsError(
            target, None, None, None,
            "exists already with other content; a log is never replaced (choose another folder)",
        ) from None


def _check_batch(lines: list[bytes]) -> None:
    """`_check_line` on every line, decoding them in one call (the error names the first bad one)."""
    for line in lines:
        if len(line) > MAX_LINE:
            _check_line(line)
    try:
        _strict_lines_decoder.decode(b"[" + b",".join(lines) + b"]")
    except msgspec.ValidationError as exc:
        for line in lines:
            _check_line(line)  # raises for the first bad line
        raise EventFormatError(f"refusing to write an invalid event: {exc}") from None
