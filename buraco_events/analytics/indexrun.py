"""One index run's writer: checked chunks of logs taken in order into the database.

The workers check and replay logs (`ingest.check_chunk`) into a `CheckedChunk`: each log's outcome
(`Checked`, or `Rejected` and why) and the rows of the accepted ones. `Indexer`, in the one process
that writes, admits each log against the heads already stored (the same head: skipped; another:
a `Conflict`, or replaced), batches the rows, reads each game's rulings log, flushes batches into
the tables and keeps the run's `IndexReport`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import duckdb
import pyarrow as pa

from buraco_events.audit.rulings import RulingError, RulingsReport, rulings_path, rulings_report
from buraco_events.audit.verdicts import FAILING

from .arrowrows import MISFIT_ERRORS, ipc_stream
from .database import SCHEMAS, one_line
from .decisions import AnalysesReport
from .schema import TABLES, int_range

#: why a log (or an input path) was not indexed: `Rejected.kind`, the `rejects` table's kind
#: (`deal`, `score`, `unfinished`: a game that fails the audit, refused by `index --strict`;
#: `unmatched`: an analysis that does not judge an indexed game, `decisions`)
RejectKind = Literal["unreadable", "format", "illegal", "range", "internal", "conflict", "deal",
                     "score", "unfinished", "unmatched"]


@dataclass(frozen=True)
class Rejected:
    """A log that was not indexed: which file and why (one line), the kind of failure and the seq
    it concerns (when one event stands behind it)."""

    source: str
    reason: str
    kind: RejectKind = "unreadable"
    seq: int | None = None

    def __str__(self) -> str:
        return f"{self.source}: {self.reason}"


@dataclass(frozen=True)
class Conflict:
    """A game stored with another head than the log now offered."""

    game_id: str
    source: str
    stored_head: str
    new_head: str
    stored_source: str

    def __str__(self) -> str:
        return (
            f"{self.source}: game {self.game_id} is stored with head {self.stored_head[:12]} "
            f"(from {self.stored_source}), this log has head {self.new_head[:12]}"
        )


@dataclass
class IndexReport:
    """What one index run did."""

    added: int = 0
    replaced: int = 0
    skipped: int = 0  # games and branches already stored with the same head
    branches: int = 0  # branches stored (in `branches`, apart from the games)
    ruled: int = 0  # games whose rulings were read (a rulings log beside them) or cleared
    events: int = 0
    failing: int = 0  # games stored that fail the audit (`games.audit_ok` false)
    rejected: list[Rejected] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    #: the analyses read (`index --analysis`): stored per game and seat, and their decisions
    analyses: AnalysesReport = field(default_factory=AnalysesReport)

    @property
    def ok(self) -> bool:
        """Return whether every log offered is now in the database."""
        return not self.rejected and not self.conflicts


@dataclass(frozen=True)
class Checked:
    """One accepted log of a chunk: its game and head, and how many rows it has in each table."""

    source: str
    game_id: str
    head: str
    events: int
    counts: dict[str, int]
    audit_problems: tuple[str, ...] = ()  # the kinds of the audit's problems (`verdicts.KINDS`)
    branch: bool = False  # a branch: its one row is in `branches`, none in the game tables
    #: whether a rulings log was beside the game log when it was checked (looked for by the
    #: worker that checked it, not by the one process that writes the database)
    has_rulings: bool = False

    @property
    def failing(self) -> list[str]:
        """Return the kinds of problems that make the game fail the audit."""
        return [kind for kind in self.audit_problems if kind in FAILING]


@dataclass(frozen=True)
class CheckedChunk:
    """A chunk of logs checked: each log's outcome in order, and the rows of the accepted ones as
    one Arrow table per table (each log's rows follow the previous log's)."""

    outcomes: list[Checked | Rejected]
    tables: dict[str, pa.Table]

    def __reduce__(self) -> tuple[Any, ...]:
        # from a worker to the writer: each table as one Arrow IPC stream, which the writer
        # reads back in one call (zero-copy), where pickling a table rebuilt every column and
        # buffer one Python object at a time, in the one process that writes
        return _unpack_chunk, (self.outcomes, {t: ipc_stream(rows)
                                               for t, rows in self.tables.items()})


def _unpack_chunk(outcomes: list[Checked | Rejected], streams: dict[str, bytes]) -> CheckedChunk:
    return CheckedChunk(outcomes, {t: pa.ipc.open_stream(data).read_all()
                                   for t, data in streams.items()})


def error_reason(exc: BaseException, source: str) -> str:
    """Return an error's one-line text without the source name it may start with."""
    text = one_line(exc)
    return text[len(source) + 2:] if text.startswith(source + ": ") else text


class Indexer:
    """One index run: the heads already stored, the rows waiting for the next flush, the report."""

    def __init__(self, con: duckdb.DuckDBPyConnection, replace: bool, batch_events: int,
                 strict: bool = False):
        self.con = con
        self.replace = replace
        self.strict = strict
        self.batch_events = batch_events
        self.batch: dict[str, list[pa.Table]] = {t: [] for t in TABLES}
        self.batched = 0
        self.report = IndexReport()
        self.stored: dict[str, tuple[str, str]] = {}
        #: the games stored with their totals after rulings not judged (NULL: stored before the
        #: column existed, or their rulings did not fit): judged when their log comes again
        self.unjudged: set[str] = set()
        for gid, head, src, unjudged in con.execute(
                "SELECT game_id, head, source, rulings IS NULL FROM games").fetchall():
            self.stored[gid] = (head, src)
            if unjudged:
                self.unjudged.add(gid)
        #: the games with rows in `rulings` (cleared when their rulings log is gone)
        self.ruled: set[str] = {
            gid for (gid,) in con.execute("SELECT DISTINCT game_id FROM rulings").fetchall()}
        self.branch_heads: set[str] = {
            head for (head,) in con.execute("SELECT head FROM branches").fetchall()}
        #: per game, its rulings to store once its rows are in (`flush`): the game log read,
        #: and the report (None: no rulings log any more)
        self.pending: dict[str, tuple[str, RulingsReport | None]] = {}
        self.this_run: set[str] = set()

    def take(self, chunk: CheckedChunk, on_game: Callable[[str, int], None] | None) -> None:
        """Store a checked chunk's accepted logs (or record why not), calling `on_game` per log."""
        # the rows of consecutive admitted logs are sliced as one run (usually the whole chunk):
        # every Arrow chunk costs DuckDB's insert a fixed setup, a slice per log many times it
        offsets = dict.fromkeys(TABLES, 0)
        starts: dict[str, int] | None = None  # where the current run of admitted logs began
        for outcome in chunk.outcomes:
            n = 0
            if isinstance(outcome, Rejected):
                self.report.rejected.append(outcome)
            else:
                if self.admit_branch(outcome) if outcome.branch else self.admit(outcome):
                    if starts is None:
                        starts = dict(offsets)
                    n = 0 if outcome.branch else outcome.events
                    self.batched += n
                elif starts is not None:
                    self._keep(chunk, starts, offsets)
                    starts = None
                for table in TABLES:
                    offsets[table] += outcome.counts[table]
            if on_game is not None:
                on_game(outcome.source, n)
        if starts is not None:
            self._keep(chunk, starts, offsets)
        if self.batched >= self.batch_events:
            self.flush()

    def _keep(self, chunk: CheckedChunk, starts: dict[str, int], ends: dict[str, int]) -> None:
        """Batch the chunk's rows from `starts` to `ends` (a run of admitted logs), per table."""
        for table in TABLES:
            start = starts[table]
            self.batch[table].append(chunk.tables[table].slice(start, ends[table] - start))

    def admit_branch(self, log: Checked) -> bool:
        """Return whether a branch's row is to be stored (not when its head is), counting it."""
        if log.head in self.branch_heads:
            self.report.skipped += 1
            return False
        self.branch_heads.add(log.head)
        self.report.branches += 1
        return True

    def rule(self, log: Checked, stored: bool) -> None:
        """Read the rulings log beside a game log to store (or `stored` already, same head):
        its rulings go in with the next flush. Without a rulings log, a stored game's rulings
        are cleared when it was read from this very log (another copy of it elsewhere, without
        its rulings log, leaves them), and judged (none) when they never were."""
        game_id = log.game_id
        if not log.has_rulings:
            if stored and (game_id in self.unjudged
                           or (game_id in self.ruled and self.stored[game_id][1] == log.source)):
                self.pending[game_id] = (log.source, None)
            return
        path = str(rulings_path(log.source))
        try:
            report = rulings_report(log.source)
        except RulingError as exc:
            self.report.rejected.append(Rejected(
                path, error_reason(exc, path), "unreadable" if exc.exit_code == 2 else "format"))
            return
        except Exception as exc:  # a bug must not abort the run nor print a traceback
            self.report.rejected.append(Rejected(
                path, f"internal error {type(exc).__name__}: {one_line(exc)}", "internal"))
            return
        if report is None:  # gone since it was looked for
            return
        if report.problem is not None:
            self.report.rejected.append(Rejected(
                report.path, f"{error_reason(ValueError(report.problem), report.path)} (the rulings "
                "read before it are stored, each saying whether it counts)", "format"))
        self.pending[game_id] = (log.source, report)

    def admit(self, log: Checked) -> bool:
        """Return whether the log's rows are to be stored, counting it in the report either way."""
        report = self.report
        failing = log.failing
        if failing and self.strict:
            report.rejected.append(Rejected(
                log.source, f"fails the audit ({', '.join(failing)}; `buraco audit` says where):"
                " --strict stores only games that pass", cast(RejectKind, failing[0])))
            return False
        old = self.stored.get(log.game_id)
        if old is not None:
            old_head, old_source = old
            if old_head == log.head:
                report.skipped += 1
                self.rule(log, stored=True)
                return False
            if not self.replace or log.game_id in self.this_run:
                # two logs of one game in one run: neither is obviously the right one
                report.conflicts.append(
                    Conflict(log.game_id, log.source, old_head, log.head, old_source))
                return False
            for table in TABLES:
                if table != "branches":  # the game's branches are logs of their own
                    self.con.execute(f"DELETE FROM {table} WHERE game_id = ?", [log.game_id])
            self.ruled.discard(log.game_id)
            report.replaced += 1
        else:
            report.added += 1
        self.stored[log.game_id] = (log.head, log.source)
        self.unjudged.discard(log.game_id)
        self.this_run.add(log.game_id)
        self.rule(log, stored=False)
        report.events += log.events
        report.failing += bool(failing)
        return True

    def flush(self) -> None:
        """Insert the waiting rows, one Arrow table per table."""
        for table in TABLES:
            if self.batch[table]:
                # the chunks as they are: DuckDB 2.0 inserts a table of many chunks about as fast
                # as one, and joining them first copied every value again
                rows = pa.concat_tables(self.batch[table])
                if rows.num_rows:
                    self.con.from_arrow(rows).insert_into(table)
        self.batch = {t: [] for t in TABLES}
        self.batched = 0
        for game_id, (source, ruled) in self.pending.items():
            self._store_rulings(game_id, source, ruled)
        self.pending = {}

    def _store_rulings(self, game_id: str, source: str, ruled: RulingsReport | None) -> None:
        """Replace a stored game's rulings rows and its totals after rulings (the raw ones when
        no ruling applies or it has no rulings log); when a value does not fit its column, the
        rulings log is reported, its rows left out and the totals after rulings left NULL."""
        con = self.con
        con.execute("DELETE FROM rulings WHERE game_id = ?", [game_id])
        self.ruled.discard(game_id)
        self.report.ruled += 1
        try:
            rows = pa.Table.from_pylist([] if ruled is None else _rulings_rows(game_id, ruled),
                                        schema=SCHEMAS["rulings"])
            totals, winner, applying = _after(ruled)
        except MISFIT_ERRORS as exc:
            self.report.rejected.append(Rejected(
                str(rulings_path(source)), f"a value does not fit: {one_line(exc)} (the game's "
                "totals after rulings are left NULL)", "range"))
            con.execute("UPDATE games SET ruled_totals = NULL, ruled_winner = NULL, "
                        "rulings = NULL WHERE game_id = ?", [game_id])
            self.unjudged.add(game_id)
            return
        if rows.num_rows:
            con.from_arrow(rows).insert_into("rulings")
            self.ruled.add(game_id)
        if applying == 0:  # no ruling applies: the raw totals and winner
            con.execute("UPDATE games SET ruled_totals = totals, ruled_winner = winner, "
                        "rulings = 0 WHERE game_id = ?", [game_id])
        else:
            con.execute("UPDATE games SET ruled_totals = ?, ruled_winner = ?, rulings = ? "
                        "WHERE game_id = ?", [totals, winner, applying, game_id])
        self.unjudged.discard(game_id)


def _rulings_rows(game_id: str, report: RulingsReport) -> list[dict[str, Any]]:
    """Return a game's `rulings` rows (each ruling as judged)."""
    return [
        {"game_id": game_id, "file": report.path, "seq": r.seq, "kind": r.kind, "hand": r.hand,
         "points": r.points, "team": r.team, "branch_head": r.branch_head,
         "ruling_seq": r.ruling_seq, "ruled_by": r.by, "reason": r.reason, "applies": r.applies,
         "why_not": r.why_not}
        for r in report.rulings
    ]


def _after(report: RulingsReport | None) -> tuple[list[int] | None, int | None, int]:
    """Return (totals, winner, rulings applying) after a game's rulings: (None, None, 0) when
    none applies (the raw ones stand); raises `OverflowError` for a total the column cannot
    hold."""
    if report is None or report.applied == 0:
        return None, None, 0
    totals = report.after.totals
    lo, hi = int_range("int32") or (0, 0)
    if not all(lo <= t <= hi for t in totals) or report.applied > 32767:
        raise OverflowError(f"totals after rulings {totals} are out of range for INTEGER")
    return totals, report.after.winner, report.applied
