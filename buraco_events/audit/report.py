"""The report of an audit: the public shapes of `buraco audit --json` (`AuditReport` and the
Structs it holds), what a human report needs beside it (`Audit`, its first `Finding`), the bounded
list of problems an audit keeps, and the verdict's headline in words.

The checking is `auditor.audit_lines`; the files (paths, archives, parents, workers) are `files`.
"""

from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import dataclass

import msgspec

from buraco_events.core.state import GameState
from buraco_events.model.events import AnyEvent, Branched
from buraco_events.model.scoring import SheetLine, TeamScore

from .verdicts import ProblemKind
from .verdicts import headline as verdict_headline

#: how many problems a report keeps (the first ones in seq order, plus the first of each kind);
#: `problems_total` counts them all, so a hostile file cannot make a report of any size
PROBLEMS_KEPT = 100


class Problem(msgspec.Struct, frozen=True):
    """One finding: where (seq), what kind, and a one-line message."""

    seq: int
    kind: ProblemKind
    message: str


class HandReport(msgspec.Struct, frozen=True):
    """A hand's recount (`reason` None while unfinished) beside the claim of its `hand_ended`."""

    hand: int
    reason: str | None
    closed_by: int | None
    scores: list[int]
    claimed: list[int] | None
    detail: list[SheetLine]


class BranchInfo(msgspec.Struct, frozen=True):
    """A branch's fork as its `branched` line states it (docs/log-format.md, "Branches"): the
    line's own `seq`, the parent game, the fork and who made the branch and why."""

    seq: int
    parent: str
    fork_seq: int
    deck: str
    seat: int | None
    seed: str
    by: str
    reason: str


class AuditReport(msgspec.Struct, frozen=True, omit_defaults=True):
    """The verdict on one log: the `--json` shape of `buraco audit` (which adds `rulings`, a
    `rulings.RulingsReport`, when a rulings log is read beside the log).

    `ok` is the verdict on the log as far as it goes; `complete` says whether that is the whole
    game (the last line is `game_ended`): without `--partial`, an unfinished log is never ok.
    `problems` holds the first `PROBLEMS_KEPT` problems in seq order (and the first of each
    kind); `problems_total` counts every problem found.

    `first` is the headline: where the file itself shows an edit (`changed`: the seq of the
    first line the chain proves is not as sealed, or after which a line is missing; or a head
    other than the published one), that edit; else the first failing problem. A legality, deal
    or score finding on or after an edited line says in its message that it follows from the
    edit, so no player is blamed for what the file shows was changed.

    `branch` is the fork of a log that holds a `branched` line (its last one): such a log is a
    what-if, never the game, and its verdict is about the branch. `parent` names the parent log
    its lines were compared with (`audit_lines(parent=...)`); a line that is not the parent's
    where it must be is a problem of kind `branch`, the headline unless the chain shows an edit
    before it. Both keys are there only when they hold something: a game's report, audited
    without a parent, encodes as it always has.
    """

    path: str
    game_id: str | None
    ok: bool
    first: Problem | None
    changed: int | None
    complete: bool
    sealed: bool
    head: str | None
    events: int
    hands: list[HandReport]
    problems: list[Problem]
    problems_total: int
    branch: BranchInfo | None = None
    parent: str | None = None


@dataclass(frozen=True, slots=True)
class Finding:
    """The first failing problem met while the replay was still going, with the table before it."""

    problem: Problem
    line: bytes
    event: AnyEvent | None
    state: GameState  # the state just before the line (independent copy)
    seat: int | None  # the acting seat: the event's player, else the seat to play
    #: the place in the file of the line the problem rests on (its seq while no line is missing;
    #: a deal problem rests on its hand_ended), which an edit the chain shows is compared with
    rests_on: int = -1


@dataclass(frozen=True, slots=True)
class Audit:
    """An audit's report plus what a human report needs: the first finding, the number of seats,
    the count of problems of each kind, and why the input is not a log at all (if it is not)."""

    report: AuditReport
    finding: Finding | None
    n_players: int
    kind_counts: dict[str, int]
    not_a_log: str | None = None
    branched: Branched | None = None  # the log's last branched line (`branch_words` names it)


def headline(report: AuditReport) -> str | None:
    """Return the verdict's headline in words (`verdicts.headline` of the report's `first`)."""
    first = report.first
    return None if first is None else verdict_headline(first.kind, first.seq, first.message, report.changed,
                                                       report.sealed)


def team_line(score: TeamScore) -> SheetLine:
    """Return the RULES 7 items of a team's score sheet, as recomputed from the events."""
    return SheetLine(
        team=score.team, meld_points=score.meld_points, canasta_bonus=score.canasta_bonus,
        close_bonus=score.close_bonus, hand_penalty=score.hand_penalty,
        dead_penalty=score.dead_penalty, total=score.total,
    )


class KeptProblems:
    """The problems of one audit, in bounded memory: the `PROBLEMS_KEPT` lowest seqs (ties in the
    order found), the first of each kind, and a count of every kind."""

    def __init__(self) -> None:
        self._heap: list[tuple[int, int, Problem]] = []  # (-seq, -order): the kept one to drop first
        self._first: dict[str, tuple[int, int, Problem]] = {}
        self._order = 0
        self.counts: Counter[str] = Counter()

    def add(self, problem: Problem) -> None:
        """Count a problem, and keep it if it is among the first ones."""
        self._order += 1
        self.counts[problem.kind] += 1
        if not self.keeps(problem.seq, problem.kind):
            return
        key = (problem.seq, self._order)
        first = self._first.get(problem.kind)
        if first is None or key < first[:2]:
            self._first[problem.kind] = (*key, problem)
        entry = (-problem.seq, -self._order, problem)
        if len(self._heap) < PROBLEMS_KEPT:
            heapq.heappush(self._heap, entry)
        elif entry > self._heap[0]:
            heapq.heapreplace(self._heap, entry)

    def keeps(self, seq: int, kind: str) -> bool:
        """Return whether a problem found now at `seq` would be kept (else it is only counted)."""
        heap = self._heap
        return len(heap) < PROBLEMS_KEPT or seq < -heap[0][0] or kind not in self._first

    def count(self, kind: str, n: int) -> None:
        """Count `n` more problems of a kind that are not kept (beyond the first ones)."""
        if n:
            self.counts[kind] += n

    @property
    def total(self) -> int:
        """Return how many problems were found."""
        return sum(self.counts.values())

    def kept(self) -> list[Problem]:
        """Return the kept problems in seq order (ties in the order they were found)."""
        entries = {(-e[0], -e[1]): e[2] for e in self._heap}
        entries.update({(seq, order): p for seq, order, p in self._first.values()})
        return [entries[key] for key in sorted(entries)]
