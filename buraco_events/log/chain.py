"""The hash chain of a log: each line's `seq` follows the one before, its `prev` is the SHA-256 of
the line before it as stored, and nothing follows `game_ended` (the log format's rules for readers).

Its own module because it does no I/O and changes only with those rules: the reader (`log`), the
writer (`writer`, which finds seq and head by it), `repair` and the audit all check lines from
anywhere through it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from buraco_events.model.events import ZERO_HASH, Event, GameEnded, event_type, line_hash

from .lines import LogError, decode_lines


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


def verify_chain(lines: Iterable[bytes], name: str = "<log>") -> ChainStatus:
    """Decode and check whole lines (seq and prev chain); raise `LogError` at the first bad one."""
    chain = Chain(name)
    for _, line, event in decode_lines(lines, name):
        chain.add(line, event)
    return chain.status()
