"""A branch beside its parent (`buraco compare`): where they part, each hand's totals side by side,
the standings, and the events that differ after the fork.

Pure: it takes the two logs' lines. The events after the fork are compared as moves (without
`seq`, `prev` and `at`, which differ wherever a branch has one more line), with the longest
matching runs kept in step (difflib), so a branch that plays as its parent did shows no
difference.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence

import msgspec

from buraco_events.audit.rulings import (
    LogFacts,
    broken_words,
    facts_problem,
    log_facts,
    prefix_problem,
)
from buraco_events.log.lines import LogError, decode_line
from buraco_events.model.events import Branched, encode_event, event_type

from .projections import Timeline

#: events listed per side in one block of differences (the rest are counted)
EVENTS_SHOWN = 8
#: events after the fork compared one by one; past this, longer logs are compared by count only
MAX_COMPARED = 20_000


class CompareError(ValueError):
    """Two logs that are not a parent and its branch, in one line."""


class Side(msgspec.Struct, frozen=True):
    """One log of the comparison: its name, game, head, events, and its standings."""

    path: str
    game_id: str
    head: str | None
    events: int
    complete: bool
    totals: list[int]
    winner: int | None


class HandRow(msgspec.Struct, frozen=True):
    """A hand's recounted scores in each log (None where that log did not end it)."""

    hand: int
    parent: list[int] | None
    branch: list[int] | None


class Block(msgspec.Struct, frozen=True):
    """A run of events that differ: `parent_seqs` and `branch_seqs` as [first, last] (None for an
    empty side), and the first `EVENTS_SHOWN` events of each side as their lines."""

    parent_seqs: list[int] | None
    branch_seqs: list[int] | None
    parent_events: list[str]
    branch_events: list[str]


class Comparison(msgspec.Struct, frozen=True):
    """The exact `--json` shape of `buraco compare`."""

    parent: Side
    branch: Side
    fork_seq: int
    branched: dict[str, object]
    hands: list[HandRow]
    differences: list[Block]
    differing_events: int  # events of either side inside a block
    compared: bool  # False when the logs were too long to compare event by event


def _side(path: str, facts: LogFacts) -> Side:
    return Side(path, facts.game_id, facts.head, len(facts.lines), facts.complete, facts.totals,
                facts.winner if facts.complete else None)


def _move(line: bytes, lineno: int, name: str) -> bytes:
    """Return an event's line without the fields that only place it (seq, prev, at)."""
    event = decode_line(line, lineno, name)
    return encode_event(msgspec.structs.replace(event, seq=0, prev=None, at=None))


def _seqs(lo: int, hi: int, offset: int) -> list[int] | None:
    return [lo + offset, hi - 1 + offset] if hi > lo else None


def compare_logs(parent_lines: Sequence[bytes], branch_lines: Sequence[bytes],
                 parent_name: str = "parent", branch_name: str = "branch") -> Comparison:
    """Compare a branch with its parent; raises `CompareError` when it is not its branch."""
    parent = log_facts(parent_lines, parent_name)
    branch = log_facts(branch_lines, branch_name)
    if not parent.lines:
        raise CompareError(f"{parent_name}: not a log: {parent.stopped}")
    if not branch.lines:
        raise CompareError(f"{branch_name}: not a log: {branch.stopped}")
    # both logs as sealed, the branch also legal to its end (the parent may hold an illegal
    # event, which is why it was branched: its replay stops there, and `Side.stopped` says so)
    unread = parent.stopped if parent.stopped is not None and not parent.illegal else None
    for name, problem in ((parent_name, unread or broken_words(parent, parent_name)),
                          (branch_name, facts_problem(branch, branch_name))):
        if problem is not None:
            raise CompareError(f"{problem} (so {name} is not compared; buraco audit says more)")
    problem = prefix_problem(branch, parent)
    if problem is not None:
        raise CompareError(f"{branch_name} is not a branch of {parent_name}: {problem}")
    fork = branch.fork
    assert isinstance(fork, Branched)
    start = fork.fork_seq + 1
    ours = parent.lines[start:]
    theirs = branch.lines[start + 1:]
    blocks: list[Block] = []
    differing = 0
    compared = len(ours) <= MAX_COMPARED and len(theirs) <= MAX_COMPARED
    if compared:
        try:
            a = [_move(line, start + i + 1, parent_name) for i, line in enumerate(ours)]
            b = [_move(line, start + i + 2, branch_name) for i, line in enumerate(theirs)]
        except LogError as exc:  # past where an unsealed parent's replay stopped
            raise CompareError(f"{exc} (so it is not compared; buraco audit says more)") from None
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "equal":
                continue
            differing += (i2 - i1) + (j2 - j1)
            blocks.append(Block(
                _seqs(i1, i2, start), _seqs(j1, j2, start + 1),
                [line.decode("utf-8", "replace") for line in ours[i1:min(i2, i1 + EVENTS_SHOWN)]],
                [line.decode("utf-8", "replace") for line in theirs[j1:min(j2, j1 + EVENTS_SHOWN)]],
            ))
    n_hands = max(len(parent.hands), len(branch.hands))
    hands = [
        HandRow(h, parent.hands[h] if h < len(parent.hands) else None,
                branch.hands[h] if h < len(branch.hands) else None)
        for h in range(n_hands)
    ]
    fields = {k: v for k, v in msgspec.structs.asdict(fork).items() if k not in ("seq", "prev", "at")}
    return Comparison(_side(parent_name, parent), _side(branch_name, branch), fork.fork_seq, fields,
                      hands, blocks, differing, compared)


def event_words(line: str) -> str:
    """Return an event line in short words for a table: its type and its move's fields."""
    try:
        event = decode_line(line.encode(), 0)
    except LogError:  # a line shown as it is when it does not read
        return line
    parts = []
    for name in _WORDS:
        value = getattr(event, name, None)
        if value is not None:
            parts.append(" ".join(value) if name == "cards" else f"{name} {value}")
    return f"{event.seq} {event_type(event)} " + ", ".join(parts)


def move_words(lines: Sequence[bytes]) -> Callable[[str], str]:
    """Return a function that tells an event line of the log `lines` in the move list's words
    (`Timeline.describe`: "seq 58: greedy-0 took the pile (AS 2D)"), the words of the replay, the
    share page and play; a line past where the log replays is told by `event_words`."""
    events = []
    for lineno, line in enumerate(lines, 1):
        try:
            events.append(decode_line(line, lineno))
        except LogError:
            break
    timeline = Timeline(events)

    def words(line: str) -> str:
        try:
            seq = decode_line(line.encode(), 0).seq
        except LogError:
            return line
        if 0 <= seq <= timeline.last and timeline.events[seq].seq == seq:
            return timeline.describe(seq)
        return event_words(line)

    return words


#: the fields `event_words` shows, in this order (a deal's cards are not listed)
_WORDS = ("player", "hand", "meld", "cards", "card", "dead", "reason", "scores", "totals", "winner")


__all__ = ["EVENTS_SHOWN", "Block", "CompareError", "Comparison", "HandRow", "Side", "compare_logs", "event_words",
           "move_words"]
