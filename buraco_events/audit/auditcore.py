"""The audit's regular line: the step the audit takes for almost every line of a sound log.

A log's lines are almost all regular: a play event (`PLAIN`: no claim, no deal, not the end)
that decodes as the current contract with canonical cards, continues the hash chain (the next
seq, a `prev` that is the SHA-256 of the line before it, or none) and passes the engine's check.
Auditing such a line comes down to counting it and applying it. `Regular.run` takes runs of
such lines from an iterator of raw lines and hands back the first line that is anything else,
untouched, for the audit's general path (`auditor._Auditor`), which finds and words whatever is
irregular about it. Nothing here reads files or defines msgspec Structs: mypyc compiles this
module with the engine (setup.py), so the loop and `engine.play` run as one native step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from hashlib import sha256
from typing import Final

from buraco_events.core.engine import play
from buraco_events.core.gate import IllegalMove
from buraco_events.core.state import GameState
from buraco_events.model.events import (
    Discarded,
    Drew,
    Event,
    LaidOff,
    Melded,
    Note,
    StockRefilled,
    TookDead,
    TookPile,
)

#: the events a regular line may hold: they make no claim, deal nothing, end nothing (Final:
#: compiled, a constant is no lookup in the module's globals)
PLAIN: Final[frozenset[type]] = frozenset(
    {Drew, TookPile, Melded, LaidOff, Discarded, TookDead, StockRefilled, Note}
)
_SHA256: Final = sha256


class Regular:
    """The audit's counts that regular lines change, and the loop that takes runs of them.

    `state` is the audit's replay (changed in place), `decode` the typed decoder of the current
    contract (it raises on any other line), `max_line` the longest line a reader decodes, `kept`
    how many seqs of lines without `prev` are kept. The counts of lines with and without `prev`
    cover every decoded line of the log: the general path counts its lines with `count_prev`.
    """

    def __init__(self, state: GameState, decode: Callable[[bytes], Event], max_line: int,
                 kept: int) -> None:
        self.state = state
        self.decode = decode
        self.max_line = max_line
        self.kept = kept
        self.with_prev = 0
        self.n_without_prev = 0
        self.without_prev: list[int] = []  # the first `kept` seqs of lines without prev
        self.last_line = b""  # the last line `run` took (when it took any)
        self.last_seq = -1  # its seq

    def count_prev(self, seq: int, prev: str | None) -> None:
        """Count a decoded line with or without `prev` (the seqs without are kept, up to a bound)."""
        if prev is None:
            self.n_without_prev += 1
            if len(self.without_prev) < self.kept:
                self.without_prev.append(seq)
        else:
            self.with_prev += 1

    def run(self, lines: Iterator[bytes], last: bytes, next_seq: int) -> tuple[int, bytes | None]:
        """Take regular lines from `lines`; return how many were taken and the first line that is
        not regular, untaken (None when `lines` ran out).

        `last` is the line before the next one as stored (the chain's last line: never the
        first line's absence) and `next_seq` the seq the chain expects next; the caller knows
        that nothing has ended the game and that the replay goes on. A line is taken whole:
        applied to `state`, counted, and remembered as `last_line` and `last_seq`; a line that
        is not regular changes nothing (`engine.play` leaves the state as it was when it
        refuses an event).
        """
        state = self.state
        decode = self.decode
        max_line = self.max_line
        taken = 0
        for line in lines:
            if len(line) > max_line:
                break
            try:
                ev = decode(line)
            except Exception:  # a log is untrusted input: the general path words it
                break
            if type(ev) not in PLAIN:
                break
            seq = ev.seq
            if seq != next_seq or seq != state.next_seq:
                break
            prev = ev.prev
            if prev is not None and prev != _SHA256(last).hexdigest():
                break
            try:
                play(state, ev)  # check, then apply what passes
            except IllegalMove:
                break
            if prev is None:
                self.count_prev(seq, None)
            else:
                self.with_prev += 1
            taken += 1
            last = line
            next_seq = seq + 1
        else:
            return self._took(taken, last, next_seq - 1), None
        return self._took(taken, last, next_seq - 1), line

    def _took(self, taken: int, last: bytes, seq: int) -> int:
        """Remember the last line taken and its seq (when any was); return how many were."""
        if taken:
            self.last_line = last
            self.last_seq = seq
        return taken
