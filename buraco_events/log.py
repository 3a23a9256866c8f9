"""Log files: read, check, append to and repair game logs, and find them (the shell over `events`).

A log is one game's JSON Lines file (the log format). Readers stream it line by line, keep at most
`MAX_LINE` bytes of a line, and name the first bad line; `decode_line` is the one place bytes
become an event, so whatever a hostile line makes the decoder raise is that line's `LogError`.
Input with no event at all (empty, or a first line that is not a JSON object naming its `type`)
is `NotALogError`: commands exit 2 for it, as for a missing file, and 1 for a log with problems.
The chain helpers (`Chain`, `verify_chain`, `decode_lines`) do no I/O, so the
audit can run them on lines from anywhere. The one writer of a log holds an exclusive `flock` and
appends one `os.write` per line on an `O_APPEND` descriptor, so a crash leaves at most a torn last
line, which `repair` truncates after a backup. Stored lines are never rewritten.
"""

from __future__ import annotations

import ctypes
import fcntl
import functools
import itertools
import os
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NamedTuple

import msgspec

from .events import (
    SCHEMA_VERSION,
    ZERO_HASH,
    AnyEvent,
    Event,
    EventFormatError,
    GameEnded,
    HandEnded,
    decode_canonical,
    decode_event,
    encode_event,
    event_type,
    line_hash,
    seal_lines,
)
from .upcast import upcast

StrPath = str | os.PathLike[str]
FsyncPolicy = Literal["hand", "event", "none"]
FSYNC_POLICIES: tuple[FsyncPolicy, ...] = ("hand", "event", "none")

_BOM = b"\xef\xbb\xbf"
_strict_decoder = msgspec.json.Decoder(AnyEvent)
#: the same, for a batch of lines written at once (`write_log`)
_strict_lines_decoder = msgspec.json.Decoder(list[AnyEvent])
#: the longest line a reader accepts, in bytes. A deal is under 1 KB and a `game_started` with
#: its rules a few KB; a longer line is not an event, and holding it whole would let any file
#: take any memory, so readers keep at most this much of a line (writers refuse longer ones).
MAX_LINE = 1 << 20


class LogError(Exception):
    """A log that cannot be read, checked or written; its str is one line naming file, line, seq."""

    def __init__(
        self, path: StrPath, lineno: int | None, seq: int | None, field: str | None, message: str
    ) -> None:
        super().__init__(os.fspath(path), lineno, seq, field, message)
        self.path = os.fspath(path)
        self.lineno = lineno
        self.seq = seq
        self.field = field
        self.message = message

    def __str__(self) -> str:
        where = self.path
        if self.lineno is not None:
            where += f": line {self.lineno}"
            if self.seq is not None:
                where += f" (seq {self.seq})"
        return f"{where}: {self.message}"


class NotALogError(LogError):
    """Input that is not a log at all: empty, or its first line is not an event (exit code 2)."""


class TornTailError(LogError):
    """The last line has no newline: a write was cut short (see `repair`)."""


class CorruptLogError(LogError):
    """Damage other than a torn last line: reported, never repaired automatically."""


class LockedError(LogError):
    """Another writer (maybe another process) holds the log."""


class ConflictError(LogError):
    """An append expected another seq: someone appended first (optimistic concurrency)."""


# -- reading -------------------------------------------------------------------------------------


class RawLines:
    """The whole lines of one log as stored (bytes without `\\n`); `tail` holds a torn last line."""

    def __init__(self, name: str, lines: Iterable[bytes] = (), tail: bytes = b"") -> None:
        self.name = name
        self.tail = tail
        self._lines = lines

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._lines)

    @property
    def torn(self) -> bool:
        """Return whether the last line lacks its newline (known once the lines were read)."""
        return bool(self.tail)


class _FileLines(RawLines):
    """The lines of a log file, read lazily on each iteration; `tail` is set once read to the end."""

    def __init__(self, path: Path) -> None:
        super().__init__(str(path))
        self.path = path

    def __iter__(self) -> Iterator[bytes]:
        self.tail = b""
        with open(self.path, "rb") as f:
            while chunk := f.readline(MAX_LINE + 1):
                if chunk[-1] == 10:
                    yield chunk[:-1]
                elif len(chunk) <= MAX_LINE:
                    self.tail = chunk  # the end of the file: a torn last line
                else:
                    # too long to be an event: `decode_lines` rejects it by its length; a reader
                    # that goes on (the audit) skips the rest of it in bounded steps
                    yield chunk
                    while (rest := f.readline(1 << 16)) and rest[-1] != 10:
                        pass


def raw_lines(path: StrPath) -> RawLines:
    """Return the lines of a log file, streamed on iteration; check `.torn` after reading.

    Files only: `sources.open_source` also opens one log inside an archive (`ARCHIVE.bza/NAME`).
    """
    return _FileLines(Path(path))


def _schema_version(first_line: bytes) -> int:
    """Return the schema version a log's first line declares (the current one when absent)."""
    try:
        raw = msgspec.json.decode(first_line)
    except Exception:  # not JSON, not UTF-8, nested too deeply: decoding the line says which
        return SCHEMA_VERSION
    if isinstance(raw, dict) and raw.get("type") == "game_started":
        version = raw.get("schema_version")
        if isinstance(version, int) and not isinstance(version, bool):
            return version
    return SCHEMA_VERSION


def _decode_old(line: bytes, version: int) -> AnyEvent:
    """Decode a line of an older schema through `upcast`."""
    try:
        raw = msgspec.json.decode(line)
    except (msgspec.DecodeError, UnicodeDecodeError):
        return decode_event(line)  # raises its clear error
    if not isinstance(raw, dict):
        return decode_event(line)
    return decode_event(msgspec.json.encode(upcast(raw, version)))


_BLANK = "blank line (every line holds one event)"


def _names_an_event(line: bytes) -> bool:
    """Return whether a line is a JSON object with a string `type`: an event, maybe a bad one."""
    try:
        raw = msgspec.json.decode(line.removeprefix(_BOM))
    except Exception:  # not JSON, not UTF-8, nested too deeply
        return False
    return isinstance(raw, dict) and isinstance(raw.get("type"), str)


def _line_error(name: str, lineno: int, line: bytes, exc: EventFormatError) -> LogError:
    """Return the error for a line that does not decode, refining what msgspec says.

    A first line that is not even a JSON object naming its `type` makes the input not a log at
    all (`NotALogError`): every log starts with an event (the log format).
    """
    message, field = str(exc), exc.field
    if lineno == 1 and line.startswith(_BOM):
        message, field = "starts with a byte order mark (a log is UTF-8 without BOM)", None
    else:
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as bad:
            message = f"not UTF-8: byte 0x{line[bad.start]:02x} at column {bad.start + 1}"
            field = None
    if lineno == 1 and not _names_an_event(line):
        return NotALogError(name, lineno, exc.seq, field, f"not a log: {message}")
    return LogError(name, lineno, exc.seq, field, message)


def decode_line(line: bytes, lineno: int, name: str = "<log>",
                decode: Callable[[bytes], AnyEvent] = decode_event) -> AnyEvent:
    """Return one stored line's event; raise `LogError` naming file, line, seq and field.

    This is where every reader turns untrusted bytes into an event: whatever a line makes the
    decoder raise (a nesting too deep, a value of the wrong type) becomes that line's `LogError`.
    """
    if decode is decode_event and len(line) <= MAX_LINE:
        # the common line (the current schema, canonical cards) takes the typed decoder alone;
        # any line it refuses (blank, lenient, broken) is decoded again below, by the general path
        try:
            return decode_canonical(line)
        except Exception:  # a log is untrusted input: worded below
            pass
    blank = not line or line.isspace()
    if blank or len(line) > MAX_LINE:
        error = NotALogError if lineno == 1 else LogError
        what = "not a log: " if lineno == 1 else ""
        why = _BLANK if blank else f"line longer than {MAX_LINE:,} bytes (no event is that long)"
        raise error(name, lineno, None, None, what + why)
    try:
        return decode(line)
    except EventFormatError as exc:
        raise _line_error(name, lineno, line, exc) from None
    except Exception as exc:  # a log is untrusted input: no traceback, whatever the bytes
        why = "nested too deeply" if isinstance(exc, RecursionError) else type(exc).__name__
        raise _line_error(name, lineno, line, EventFormatError(f"not an event ({why})")) from None


def line_decoder(first_line: bytes) -> Callable[[bytes], AnyEvent]:
    """Return the decoder of a log's lines: line 1 declares the schema (older ones are upcast)."""
    version = _schema_version(first_line) if len(first_line) <= MAX_LINE else SCHEMA_VERSION
    if version < SCHEMA_VERSION:
        return functools.partial(_decode_old, version=version)
    return decode_event


def decode_lines(
    lines: Iterable[bytes], name: str = "<log>"
) -> Iterator[tuple[int, bytes, AnyEvent]]:
    """Yield (line number from 1, line, event) for whole lines, upcasting an older schema."""
    decode: Callable[[bytes], AnyEvent] = decode_event
    for lineno, line in enumerate(lines, 1):
        if lineno == 1:
            decode = line_decoder(line)
        yield lineno, line, decode_line(line, lineno, name, decode)


def is_torn_write(tail: bytes, events: int) -> bool:
    """Return whether a last line without its newline, after `events` whole lines, is a write
    cut short (repairable) rather than input that is not a log: a first line must start an event."""
    return bool(tail) and (events > 0 or tail.startswith(b"{"))


def torn_error(name: str, lineno: int, tail: bytes) -> TornTailError:
    """Return the one error every reader gives for a torn last line (line `lineno`, bytes `tail`)."""
    return TornTailError(
        name, lineno, None, None,
        f"torn last line ({len(tail)} bytes without a final newline: a write was cut short); "
        "`buraco log repair` truncates it after a backup",
    )


def _end_error(lines: RawLines, events: int, name: str | None = None) -> LogError | None:
    """Return what is wrong with the end of lines read whole (`events` of them), if anything.

    A torn last line is a `TornTailError` (`repair` truncates it), unless it is all there is and
    does not start an event: then, as for an empty file, the input is not a log. Errors name
    the log `name`, else `lines.name`.
    """
    name = lines.name if name is None else name
    if lines.torn and is_torn_write(lines.tail, events):
        return torn_error(name, events + 1, lines.tail)
    if not events:
        what = "not a log: no whole line" if lines.torn else "empty file: not a log"
        return NotALogError(name, None, None, None,
                            f"{what} (a log holds at least its game_started line)")
    return None


# -- the hash chain ------------------------------------------------------------------------------


class Link(NamedTuple):
    """How one decoded line stands in its log's chain (`Chain.link`); each field is None when
    that part holds."""

    seq: int | None  # the seq the line should have had, when it has another
    prev: str | None  # the prev it should have carried, when it carries another
    after_end: int | None  # the seq of game_ended, when the line comes after it


@dataclass(frozen=True, slots=True)
class ChainStatus:
    """What a check of a whole log found: its events, whether it is sealed, and its head.

    `complete`: the last line is `game_ended` (the log format); otherwise the log is unfinished (a
    live game, or one cut short).
    """

    events: int
    sealed: bool
    head: str | None
    complete: bool = False


class Chain:
    """Follows a log's lines in order, checking `seq` (0, 1, 2...), the `prev` links and that
    nothing follows `game_ended` (the log format's rules for readers); no I/O.

    The one chain check of every reader (`EventReader`). A line that breaks it is not taken in;
    a reader that goes on past it (`Collect`) calls `skip`, so the next line is checked against
    the line as stored, and its seq against the seq that line gave.
    """

    def __init__(self, name: str = "<log>") -> None:
        self.name = name
        self.events = 0  # lines taken in, good or skipped
        self.sealed = False
        self.complete = False
        self._last: bytes | None = None
        self._next_seq = 0
        self._ended: int | None = None  # the seq of game_ended, once read

    def _error(self, event: Event, field: str, message: str) -> LogError:
        return LogError(self.name, self.events + 1, event.seq, field, f"field {field}: {message}")

    def expected_prev(self) -> str:
        """Return the `prev` the next line must carry: the SHA-256 of the line before it as
        stored, or 64 zeros on line 1."""
        return ZERO_HASH if self._last is None else line_hash(self._last)

    @property
    def ended(self) -> int | None:
        """Return the seq of the log's game_ended, once taken in (None before)."""
        return self._ended

    def link(self, event: Event) -> Link:
        """Return how the next line, decoded as `event`, stands in the chain (nothing is taken
        in: `add` or `skip` does that). A line without `prev` is not judged here: whether a log
        is sealed is the reader's policy (line 1 decides in `add`, the whole log in the audit)."""
        prev = None
        if event.prev is not None:
            expected = self.expected_prev()
            prev = None if event.prev == expected else expected
        return Link(None if event.seq == self._next_seq else self._next_seq, prev, self._ended)

    def position(self) -> tuple[bytes | None, int]:
        """Return the last line taken in (None before any) and the seq the next line must have."""
        return self._last, self._next_seq

    def take(self, line: bytes, seq: int, lines: int = 1) -> None:
        """Take in a line that continues the chain and is no `game_ended` (`skip` without its
        first-line and end-of-game cases), or the last of `lines` such lines in a row."""
        self._last = line
        self.events += lines
        self._next_seq = seq + 1
        self.complete = False

    def add(self, line: bytes, event: Event) -> None:
        """Check the next stored line and its decoded event; raise `LogError` if they break."""
        n = self.events
        if n and event.seq == self._next_seq and self._ended is None:
            # the common line: the next seq, linked as the log's first line says (`link` and
            # the checks below come to this; they word whatever is wrong with any other line)
            prev, last = event.prev, self._last
            if not self.sealed:
                linked = prev is None
            else:
                linked = prev is not None and last is not None and prev == line_hash(last)
            if linked:
                self.skip(line, event)
                return
        link = self.link(event)
        if link.after_end is not None:
            raise LogError(self.name, n + 1, event.seq, "type",
                           f"{event_type(event)} after game_ended (seq {link.after_end}): nothing"
                           " may follow game_ended (a remark on a finished game goes in its own file)")
        if link.seq is not None:
            what = "a gap" if event.seq > link.seq else "out of order"
            raise self._error(event, "seq", f"expected {link.seq}, got {event.seq} ({what})")
        if n == 0:
            self.sealed = event.prev is not None
        if event.prev is None:
            if self.sealed:
                raise self._error(event, "prev", "missing, but the log is sealed (line 1 has prev)")
        elif not self.sealed:
            raise self._error(
                event, "prev", "present, but line 1 has none (a log is sealed on every line or none)"
            )
        elif link.prev is not None:
            what = "line 1 links to 64 zeros" if n == 0 else f"line {n} was changed or removed"
            raise self._error(
                event, "prev",
                f"does not match ({what}): expected {link.prev[:16]}..., got {event.prev[:16]}...",
            )
        self.skip(line, event)

    def skip(self, line: bytes, event: Event | None = None, seq: int | None = None) -> None:
        """Take in a line without checking it (it broke the chain, or `event` None: it did not
        decode, and `seq` is the seq it gave, if any), so that reading can go on from it."""
        if self.events == 0 and event is not None:
            self.sealed = event.prev is not None
        self._last = line
        self.events += 1
        if event is not None:
            seq = event.seq
        self._next_seq = (self._next_seq if seq is None else seq) + 1
        self.complete = isinstance(event, GameEnded)
        if self.complete and self._ended is None:
            assert event is not None  # complete means a game_ended event
            self._ended = event.seq

    @property
    def head(self) -> str | None:
        """Return the hex SHA-256 of the last line added (None before any)."""
        return None if self._last is None else self.expected_prev()

    def status(self) -> ChainStatus:
        """Return what the chain has seen so far."""
        return ChainStatus(self.events, self.sealed, self.head, self.complete)


# -- the one reader ------------------------------------------------------------------------------

#: what a reader does with each problem it meets (a bad line, a broken chain, a torn end):
#: `strict` raises it, a `Collect` keeps it and lets the reading go on
ErrorPolicy = Callable[[LogError], None]
#: a consumer's fast way with common lines (`EventReader(fast=...)`): after each line the reader
#: read itself (after line 1, in a log of the current schema), it is given the iterator of the
#: remaining lines; it takes as many lines as it wholly deals with itself, and returns how many
#: it took and the first line it did not take (None when none is left), which the reader reads
FastRun = Callable[[Iterator[bytes]], tuple[int, bytes | None]]


def strict(error: LogError) -> None:
    """Raise the problem: reading stops at the first one (log check, replay, index, resume)."""
    raise error


class Collect:
    """An error policy that keeps every problem, in the order met, and lets reading go on."""

    def __init__(self) -> None:
        self.errors: list[LogError] = []

    def __call__(self, error: LogError) -> None:
        """Keep the problem."""
        self.errors.append(error)


class EventReader:
    """The one reader of a log's lines, for every command (like python-chess's `read_game` with
    its `handle_error`): each line is decoded by `decode_line` (older schemas upcast) and checked
    by `Chain`; then the end: a torn last line, or no event at all. Every problem goes to
    `on_error`, which raises it (`strict`) or keeps it and lets the reading go on (`Collect`).

    Iterating yields (line number from 1, line, event) for each line that decodes, in order; with
    a policy that goes on, an event that broke the chain is yielded too (the chain resumes from
    it, see `Chain.skip`), a line that does not decode is not. Line 1 not being an event ends the
    reading (`NotALogError`: the input is not a log). With `tail`, a torn last line is also read
    as a line, before its torn-line error (the audit judges what it says). `line` is the line
    being read, for a policy that wants its bytes. With `chain` False the chain is not checked
    (the audit words its own integrity findings). With `fast` (chain False), runs of common lines
    are left to the consumer (`FastRun`: the audit's regular lines), which deals with them whole:
    they are neither yielded nor counted in the reader's `chain`, only in the line numbers.
    Errors name the log `name`, else `lines.name`.
    """

    def __init__(self, lines: RawLines, on_error: ErrorPolicy = strict, *,
                 tail: bool = False, chain: bool = True, name: str | None = None,
                 fast: FastRun | None = None) -> None:
        if fast is not None and chain:
            raise ValueError("a reader with `fast` leaves the chain to it: pass chain=False")
        self.lines = lines
        self.name = lines.name if name is None else name
        self.on_error = on_error
        self.tail = tail
        self.chain = Chain(self.name)
        self.check_chain = chain
        self.fast = fast
        self.line = b""
        self._whole = 0  # the whole lines read (not the torn tail), once read to the end
        self._in_tail = False  # the line being read is the torn tail
        self._stop = False  # the line being read is not a log's first line: reading stops

    def __iter__(self) -> Iterator[tuple[int, bytes, AnyEvent]]:
        if self.fast is not None:
            return self._read_fast(self.fast)
        return self._read()

    def _read(self) -> Iterator[tuple[int, bytes, AnyEvent]]:
        chain = self.chain
        decode: Callable[[bytes], AnyEvent] = decode_event
        check_chain = self.check_chain
        self._whole = 0
        self._in_tail = False
        self._stop = False
        lineno = 0
        # the whole lines, then (with `tail`) a torn last line: `_tail` runs only once they are
        # read, and flags that the line it yields is no whole one
        for lineno, line in enumerate(itertools.chain(self.lines, self._tail()), 1):
            self.line = line
            if lineno == 1:
                decode = line_decoder(line)
            event = self._decode(lineno, line, decode)
            if event is None:
                if self._stop:
                    self._whole = lineno - self._in_tail
                    return
                continue
            try:
                if check_chain:
                    chain.add(line, event)
                elif chain.events and type(event) is not GameEnded:
                    chain.take(line, event.seq)  # what `skip` comes to for such a line
                else:
                    chain.skip(line, event)
            except LogError as exc:
                self.on_error(exc)
                chain.skip(line, event)
            yield lineno, line, event
        self._whole = lineno - self._in_tail
        self._end()

    def _read_fast(self, fast: FastRun) -> Iterator[tuple[int, bytes, AnyEvent]]:
        """`_read` with runs of common lines left to `fast` (see `FastRun`); no chain kept."""
        decode: Callable[[bytes], AnyEvent] = decode_event
        self._whole = 0
        self._in_tail = False
        self._stop = False
        source = itertools.chain(self.lines, self._tail())
        lineno = 0
        line = next(source, None)
        while line is not None:
            lineno += 1
            self.line = line
            if lineno == 1:
                decode = line_decoder(line)
            event = self._decode(lineno, line, decode)
            if event is None and self._stop:
                self._whole = lineno - self._in_tail
                return
            if event is not None:
                yield lineno, line, event
            if decode is decode_event:
                taken, line = fast(source)
                lineno += taken
            else:  # an older schema: every line is upcast, so none is common
                line = next(source, None)
        self._whole = lineno - self._in_tail
        self._end()

    def _decode(self, lineno: int, line: bytes,
                decode: Callable[[bytes], AnyEvent]) -> AnyEvent | None:
        """Return the line's event, or None once its problem is reported (`_decode_or_report`)."""
        # `decode_line`'s first step inlined: the common line decodes at once (see there)
        if decode is decode_event and len(line) <= MAX_LINE:
            try:
                return decode_canonical(line)
            except Exception:  # a log is untrusted input: `decode_line` words it
                pass
        return self._decode_or_report(lineno, line, decode)

    def _decode_or_report(self, lineno: int, line: bytes,
                          decode: Callable[[bytes], AnyEvent]) -> AnyEvent | None:
        """Return the event of a line the typed decoder refused, or report why it is none (then
        `_stop` says whether the input is not a log at all, which ends the reading)."""
        try:
            return decode_line(line, lineno, self.name, decode)
        except LogError as exc:
            if isinstance(exc, NotALogError) and self._in_tail and is_torn_write(line, 0):
                # a first line cut short while written is a torn log, not "not a log"
                exc = LogError(exc.path, exc.lineno, exc.seq, exc.field,
                               exc.message.removeprefix("not a log: "))
            self.on_error(exc)
            self.chain.skip(line)
            self._stop = isinstance(exc, NotALogError)
            return None

    def _end(self) -> None:
        """Report what is wrong with the end of the lines read, if anything."""
        error = _end_error(self.lines, self._whole, self.name)
        if error is not None:
            self.on_error(error)

    def _tail(self) -> Iterator[bytes]:
        """Yield (with `tail`) a torn last line, once the whole lines are read."""
        if self.tail and self.lines.torn:
            self._in_tail = True
            yield self.lines.tail

    def status(self) -> ChainStatus:
        """Return what the reading has seen so far: lines, sealed, head, complete."""
        return self.chain.status()


def verify_chain(lines: Iterable[bytes], name: str = "<log>") -> ChainStatus:
    """Decode and check whole lines (seq and prev chain); raise `LogError` at the first bad one."""
    chain = Chain(name)
    for _, line, event in decode_lines(lines, name):
        chain.add(line, event)
    return chain.status()


def check_lines(lines: RawLines) -> ChainStatus:
    """Check a log's lines as `verify_chain` does; a torn tail raises `TornTailError`, and
    input with no event at all (empty, or line 1 not an event) `NotALogError`."""
    reader = EventReader(lines)
    for _ in reader:
        pass
    return reader.status()


def check_log(path: StrPath) -> ChainStatus:
    """Check a log file: every line decodes, seq has no gaps, the chain holds, no torn tail."""
    return check_lines(raw_lines(path))


def head(path: StrPath) -> str:
    """Return a log's head, the hex SHA-256 of its last line, once the whole log checks.

    The head seals the log, so it is only given for a log that is one: every line decodes, seq
    has no gaps, the chain holds, nothing follows `game_ended` and no line is torn (`check_log`,
    streaming in bounded memory). Legality is the audit's question: an illegal log still has a
    head, which a referee needs to name the disputed log.
    """
    status = check_log(path)
    assert status.head is not None  # check_log refuses a log without lines
    return status.head


# -- writing -------------------------------------------------------------------------------------


def _check_line(line: bytes) -> None:
    """Refuse to store a line its own readers would reject (constraints hold only on decode)."""
    if len(line) > MAX_LINE:
        raise EventFormatError(
            f"refusing to write an event of {len(line):,} bytes (readers take at most {MAX_LINE:,})")
    try:
        _strict_decoder.decode(line)
    except msgspec.ValidationError as exc:
        raise EventFormatError(f"refusing to write an invalid event: {exc}") from None


def _lock(fd: int, path: Path) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise LockedError(
            path, None, None, None, "locked: another writer has this log open (one writer per log)"
        ) from None


def _sync_dir(path: Path) -> None:
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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
            _write_all(self._fd, data)
        except OSError as exc:
            self._failed = f"{exc.strerror}; the last line may be torn (see `buraco log repair`)"
            raise LogError(self.path, None, self.next_seq, None, f"write failed: {self._failed}") from exc

    def sync(self) -> None:
        """Flush the appended lines to disk (fdatasync; the folder too for a new file)."""
        os.fdatasync(self._fd)
        if self._new_file:
            _sync_dir(self.path)
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
        _lock(fd, p)
        lines = raw_lines(p)
        status = verify_chain(lines, lines.name)
        error = _end_error(lines, status.events)
        if error is not None and (status.events or lines.torn):  # an empty file is a new log
            raise error
    except BaseException:
        os.close(fd)
        raise
    return LogWriter(p, fd, status, fsync, created)


class LogExistsError(LogError, FileExistsError):
    """A log file already holds other content: nothing written is ever replaced."""


def write_log(path: StrPath, events: Iterable[Event], *, exist_ok: bool = False) -> str:
    """Write events as a new sealed log file (seq and prev computed here); return its head.

    The file appears whole or not at all (written aside, fsynced, then linked into place). An
    existing file is never replaced: with `exist_ok` one holding exactly these bytes is accepted
    (a rerun of the same simulation), anything else raises `LogExistsError`.
    """
    data, log_head = _sealed(events)
    target = Path(path)
    try:
        _place(target, data)
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
    placed = _place_together(items, exist_ok) if len(items) > 1 else 0
    for target, data, _ in items[placed:]:
        try:
            _place(target, data)
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


@functools.cache
def _syncfs() -> Callable[[int], int] | None:
    """Return Linux's `syncfs(fd)` (flush the file system holding `fd`), or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int]
    function.restype = ctypes.c_int
    return function


def _place_together(items: list[tuple[Path, bytes, str]], exist_ok: bool) -> int:
    """`write_logs`' group commit: write the files aside unnamed, flush their file system once,
    link them in order; return how many were placed (0 where this way is not open: the caller
    places the rest one by one). Where syncfs fails, each file is fsynced; raises what a failed
    fsync or an existing file raise (a failed flush links nothing)."""
    syncfs = _syncfs()
    tmpfile = getattr(os, "O_TMPFILE", 0)
    if syncfs is None or not tmpfile or len({target.parent for target, _, _ in items}) != 1:
        return 0
    folder = os.open(items[0][0].parent, os.O_RDONLY | os.O_DIRECTORY)
    fds: list[int] = []
    try:
        for _, data, _ in items:
            try:
                fd = os.open(".", tmpfile | os.O_WRONLY, 0o666, dir_fd=folder)
            except OSError:
                return 0  # a file system without unnamed files: nothing linked yet
            fds.append(fd)
            _write_all(fd, data)
        if syncfs(folder) != 0:  # refused (a file system that cannot): an fsync each instead
            for fd in fds:
                os.fsync(fd)
        for placed, ((target, data, _), fd) in enumerate(zip(items, fds, strict=True)):
            try:
                os.link(f"/proc/self/fd/{fd}", target.name, dst_dir_fd=folder)
            except FileExistsError:
                _accept_existing(target, data, exist_ok)
            except OSError:
                return placed  # no /proc: the rest one by one (the unnamed files go with their fds)
        return len(items)
    finally:
        for fd in fds:
            os.close(fd)
        os.close(folder)


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


def _place(target: Path, data: bytes) -> None:
    """Write `data` as the new file `target`, whole or not at all: written aside, fsynced, then
    linked into place (atomic, and FileExistsError rather than replace an existing file).

    Aside is an unnamed file in the target's folder (Linux `O_TMPFILE`, linked through
    /proc/self/fd): no name to create and remove, about a third of a short log's write cost.
    Where the system or the file system has none, a named temporary file beside the target.
    """
    if _place_unnamed(target, data):
        return
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    try:
        os.link(tmp, target)
    finally:
        tmp.unlink()


def _place_unnamed(target: Path, data: bytes) -> bool:
    """`_place` through an unnamed file; False (nothing written) where the system cannot."""
    tmpfile = getattr(os, "O_TMPFILE", 0)
    if not tmpfile:
        return False
    folder = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            fd = os.open(".", tmpfile | os.O_WRONLY, 0o666, dir_fd=folder)
        except OSError:
            return False  # a file system without unnamed files
        try:
            _write_all(fd, data)
            os.fsync(fd)
            try:
                os.link(f"/proc/self/fd/{fd}", target.name, dst_dir_fd=folder)
            except FileExistsError:
                raise
            except OSError:
                return False  # no /proc: the unnamed file goes with its descriptor
            return True
        finally:
            os.close(fd)
    finally:
        os.close(folder)


def _write_all(fd: int, data: bytes) -> None:
    """Write all of `data` to `fd` (os.write may write less than asked)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


# -- repair --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RepairResult:
    """What `repair` did: the events kept, the torn bytes removed, and the backup it made."""

    path: str
    events: int
    removed: int
    backup: str | None

    @property
    def repaired(self) -> bool:
        """Return whether a torn tail was removed."""
        return self.removed > 0


def _backup(path: Path) -> Path:
    """Copy the file to the first free `<path>.bak-<n>`, never overwriting a backup."""
    n = 1
    while True:
        bak = path.with_name(f"{path.name}.bak-{n}")
        try:
            dst = open(bak, "xb")
        except FileExistsError:
            n += 1
            continue
        with dst, open(path, "rb") as src:
            shutil.copyfileobj(src, dst)
            dst.flush()
            os.fsync(dst.fileno())
        return bak


def repair(path: StrPath) -> RepairResult:
    """Truncate a torn last line after a backup; any other damage raises and leaves the file be."""
    p = Path(path)
    fd = os.open(p, os.O_RDWR | os.O_CLOEXEC)
    try:
        _lock(fd, p)
        lines = raw_lines(p)
        try:
            status = verify_chain(lines, lines.name)
        except NotALogError:
            raise
        except LogError as exc:
            raise CorruptLogError(
                exc.path, exc.lineno, exc.seq, exc.field,
                f"{exc.message}; only a torn last line is repaired: the file is left untouched",
            ) from None
        error = _end_error(lines, status.events)
        if isinstance(error, NotALogError):
            raise error
        if not lines.torn:
            return RepairResult(str(p), status.events, 0, None)
        keep = os.fstat(fd).st_size - len(lines.tail)
        if os.pread(fd, len(lines.tail) + 1, keep) != lines.tail:
            raise CorruptLogError(p, None, None, None, "the file changed during the repair; retry")
        backup = _backup(p)
        os.ftruncate(fd, keep)
        os.fsync(fd)
        return RepairResult(str(p), status.events, len(lines.tail), str(backup))
    finally:
        os.close(fd)


# -- finding logs --------------------------------------------------------------------------------


def log_files(folder: StrPath) -> list[Path]:
    """Return every `*.jsonl` file under a folder, recursively, sorted."""
    return sorted(f for f in Path(folder).rglob("*.jsonl") if f.is_file())
