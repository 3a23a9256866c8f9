"""Reading a log's lines: the file as whole lines, one line's bytes turned into an event, and the
errors that name the file, line, seq and field of what is wrong.

A log is one game's JSON Lines file (the log format). Readers stream it line by line, keep at most
`MAX_LINE` bytes of a line, and name the first bad line; `decode_line` is the one place bytes
become an event, so whatever a hostile line makes the decoder raise is that line's `LogError`.
Input with no event at all (empty, or a first line that is not a JSON object naming its `type`)
is `NotALogError`: commands exit 2 for it, as for a missing file, and 1 for a log with problems.
These are what every reader, writer and repair of a log shares, so they form the bottom module of
the log's shell: the chain (`chain`), the reader (`reader`), the writer (`writer`) and `repair`
build on it.
"""

from __future__ import annotations

import errno
import functools
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import msgspec

from buraco_events.model.events import (
    SCHEMA_VERSION,
    AnyEvent,
    EventFormatError,
    decode_canonical,
    decode_event,
)

from .upcast import upcast

StrPath = str | os.PathLike[str]

_BOM = b"\xef\xbb\xbf"
#: the longest line a reader accepts, in bytes. A deal is under 1 KB and a `game_started` with
#: its rules a few KB; a longer line is not an event, and holding it whole would let any file
#: take any memory, so readers keep at most this much of a line (writers refuse longer ones).
MAX_LINE = 1 << 20


class SourceError(Exception):
    """A log (`LogError`) or an archive (`ArchiveError`) that cannot be read, checked or written:
    its str is one line, the file and the place in it (`where`), then what is wrong (`message`)."""

    def __init__(self, path: StrPath, message: str, *args: object) -> None:
        # `args` are the subclass's own arguments, in its order: an error is rebuilt from them
        # when it comes back from a worker process (pickled)
        super().__init__(*args)
        self.path = os.fspath(path)
        self.message = message

    def where(self) -> str:
        """Return the file and the place in it the error is about."""
        return self.path

    def __str__(self) -> str:
        return f"{self.where()}: {self.message}"


class LogError(SourceError):
    """A log that cannot be read, checked or written; its str is one line naming file, line, seq."""

    def __init__(
        self, path: StrPath, lineno: int | None, seq: int | None, field: str | None, message: str
    ) -> None:
        super().__init__(path, message, os.fspath(path), lineno, seq, field, message)
        self.lineno = lineno
        self.seq = seq
        self.field = field

    def where(self) -> str:
        where = self.path
        if self.lineno is not None:
            where += f": line {self.lineno}"
            if self.seq is not None:
                where += f" (seq {self.seq})"
        return where


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


class LogExistsError(LogError, FileExistsError):
    """A log file already holds other content: nothing written is ever replaced."""


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


def end_error(lines: RawLines, events: int, name: str | None = None) -> LogError | None:
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


def os_reason(exc: OSError) -> str:
    """Return why a file operation failed in the words every command uses: "no such file or
    folder", "is a folder", "permission denied" (the system's words, in lower case, say
    "directory" where the commands say "folder"); a reason of the program's own (a log the
    archive does not hold) is kept as it is."""
    text = str(exc.strerror or exc)
    if exc.errno is None or text != os.strerror(exc.errno):
        return text
    if exc.errno == errno.ENOENT:
        return "no such file or folder"
    return (text[:1].lower() + text[1:]).replace("directory", "folder")


#: the name ending of a game's rulings log (docs/log-format.md, "Rulings"): not a game log
RULINGS_SUFFIX = ".rulings.jsonl"


#: how a tournament log's first line starts (docs/log-format.md, "Tournament logs"): not a game log
TOURNAMENT_START = b'{"type":"tournament_started"'


def is_tournament_log(path: StrPath) -> bool:
    """Return whether a file is a tournament log by its first bytes (False when unreadable)."""
    try:
        with open(path, "rb") as f:
            return f.read(len(TOURNAMENT_START)) == TOURNAMENT_START
    except OSError:
        return False


def log_files(folder: StrPath) -> list[Path]:
    """Return every game log under a folder: its `*.jsonl` files, recursively, sorted, but the
    rulings logs (`*.rulings.jsonl`), which are read beside their games."""
    return sorted(f for f in Path(folder).rglob("*.jsonl")
                  if f.is_file() and not f.name.endswith(RULINGS_SUFFIX))


def tournament_files(path: StrPath) -> list[Path]:
    """Return the tournament logs a path holds: the file itself, or a folder's, recursively."""
    p = Path(path)
    if p.is_file():
        return [p] if is_tournament_log(p) else []
    return sorted(f for f in p.rglob("*.jsonl") if f.is_file() and is_tournament_log(f))
