"""Log files: the one reader of a log's lines (`EventReader`), and the checks built on it.

A log is one game's JSON Lines file (the log format). `EventReader` decodes each line
(`lines.decode_line`, older schemas upcast), checks the chain (`chain.Chain`) and then the end
(a torn last line, or no event at all), handing every problem to an error policy that raises it
(`strict`) or keeps it and lets the reading go on (`Collect`). `check_log` and `head` check a whole
file with it.

The rest of a log's shell lives beside it: lines, decoding and errors in `lines`, the hash
chain in `chain`, the writer in `writer` (one writer per log, under an exclusive `flock`, one
`os.write` per line, so a crash leaves at most a torn last line), `repair` for that torn line.
This module also gives the names the commands import from it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

from buraco_events.model.events import AnyEvent, GameEnded, decode_canonical, decode_event

from .chain import Chain, ChainStatus
from .lines import (
    MAX_LINE,
    LogError,
    NotALogError,
    RawLines,
    StrPath,
    decode_line,
    end_error,
    is_torn_write,
    line_decoder,
    raw_lines,
)
from .lines import LockedError as LockedError
from .repair import repair as repair

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
        error = end_error(self.lines, self._whole, self.name)
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
