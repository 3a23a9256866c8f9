"""Ingest: game logs checked, replayed into rows and indexed into a DuckDB database.

The shell around `rows`: it reads logs, replays each game through the engine (via `rows`), turns
the rows into Arrow tables and loads them into DuckDB (`database`). Its own module because it
changes with how logs are read, checked and written, not with how a database is queried.

Ingest policy (one transaction per run): each log is decoded, chain-checked, replayed and its rows
checked against the column types before any of them reach the database, so an illegal or
unreadable log, or one whose values do not fit (a `target` of 2**31), is skipped and reported
while the valid logs of the same run are committed together; an interrupted or crashed run
commits nothing. The database must be a DuckDB file (or not exist yet). A damaged archive is
reported too; the logs read from it before the damage (each checked against its digest) are kept.
A game already stored with the same head is skipped; with another head it is a conflict, left
alone unless `replace` is set (then its old rows are deleted and the new ones inserted).

A branch (a log holding a `branched` line: a what-if, never the game) goes into no game table:
it is one row of `branches`, keyed by its head (the same branch again is skipped; two branches of
one game are both kept), and never a conflict with its parent, whose game id and first lines it
shares. A game's rulings log (`rulings.rulings_path` beside a game log read from a file) is read
whenever the game is offered, stored anew or already stored: its rulings replace the game's rows
of `rulings` and its `ruled_*` columns (the raw columns never change), so a rulings log that grew
since the last run is picked up. A rulings log that cannot be read whole is reported (rejected,
the game kept: exit 1) with what it read judged.

Analyses (`index --analysis`, `decisions`) are read after the logs, in the same transaction, and
matched against the games as stored by then: an analysis is a reject like a log, never a game.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

import duckdb
import pyarrow as pa

from buraco_events import build
from buraco_events.audit.rulings import RulingError, RulingsReport, rulings_path, rulings_report
from buraco_events.audit.verdicts import FAILING
from buraco_events.core.gate import IllegalMove
from buraco_events.log.chain import ChainStatus
from buraco_events.log.lines import LogError, RawLines
from buraco_events.log.reader import EventReader
from buraco_events.log.sources import CHUNK_BYTES, chunk_bytes, first_name, held_bytes, iter_logs
from buraco_events.model.events import Branched, Event, branch_of
from buraco_events.util.pool import WorkerError, chunked, collector_paused, ordered_map, popped

from .arrowrows import MISFIT_ERRORS, arrow_table, arrow_tables, first_misfit, ipc_stream
from .database import (
    DEFAULT_DB,
    SCHEMAS,
    AnalyticsError,
    DatabaseUnavailable,
    clear_stale,
    connect,
    creating_path,
    discard,
    ensure_schema,
    one_line,
    publish,
)
from .decisions import AnalysesReport, AnalysisStore
from .rows import Columns, game_rows
from .schema import TABLES, int_range


class InputUnreadable(DatabaseUnavailable):
    """The logs could not be read to the end: a worker process died or ran out of memory (exit 2,
    nothing was indexed)."""


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


def _decode_log(lines: RawLines) -> tuple[list[Event], ChainStatus]:
    """Decode a log's lines, checking seq and the hash chain; raises `LogError` at a bad line."""
    reader = EventReader(lines)
    events: list[Event] = [event for _, _, event in reader]
    return events, reader.status()


def _reason(exc: BaseException, source: str) -> str:
    """Return an error's one-line text without the source name it may start with."""
    text = one_line(exc)
    return text[len(source) + 2:] if text.startswith(source + ": ") else text


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


def _replay_log(source: str, lines: RawLines, into: Columns) -> Checked | Rejected:
    """Decode, chain-check and replay one log, appending its rows to `into` (all or none, and
    their values not yet checked against the column types); or the log's rejection."""
    before = into.counts()
    fork = None
    try:
        events, status = _decode_log(lines)
        head = status.head or ""
        fork = branch_of(events)
        if fork is None:
            game_rows(events, source, head, status.sealed, into)
        else:
            _branch_row(events, fork, source, head, status.sealed, into)
    except OSError as exc:
        return Rejected(source, _reason(exc, source), "unreadable")
    except LogError as exc:
        return Rejected(source, _reason(exc, source), "format", exc.seq)
    except IllegalMove as exc:
        return Rejected(source, _reason(exc, source), "illegal", exc.seq)
    except ValueError as exc:  # e.g. an unknown variant in game_started
        return Rejected(source, _reason(exc, source), "illegal")
    except Exception as exc:  # an engine bug must not abort the run nor print a traceback
        reason = f"internal error {type(exc).__name__}: {one_line(exc)}"
        return Rejected(source, reason, "internal")
    after = into.counts()
    counts = {t: after[t] - before[t] for t in TABLES}
    games = into.data["games" if fork is None else "branches"]
    return Checked(source, games["game_id"][-1], head, len(events), counts,
                   tuple(games["audit_problems"][-1]), branch=fork is not None,
                   has_rulings=fork is None and _has_rulings(source))


def _has_rulings(source: str) -> bool:
    """Return whether a game log's rulings log (`rulings.rulings_path`) is a file beside it."""
    try:
        return rulings_path(source).is_file()
    except (OSError, ValueError):  # a name the file system cannot hold
        return False


def _branch_row(events: list[Event], fork: Branched, source: str, head: str, sealed: bool,
                into: Columns) -> None:
    """Replay a branch as a game is replayed (raises as `game_rows` does) and append its one
    `branches` row: its fork, its recount and its verdict; no row of any game table."""
    game = game_rows(events, source, head, sealed).data["games"]
    into.add(
        "branches", game_id=game["game_id"][0], head=head, file=source, parent=fork.parent,
        fork_seq=fork.fork_seq, deck=fork.deck, seat=fork.seat, seed=fork.seed,
        branched_by=fork.by, reason=fork.reason, variant=game["variant"][0],
        n_players=game["n_players"][0], events=game["events"][0], hands=game["hands"][0],
        totals=game["totals"][0], winner=game["winner"][0], complete=game["complete"][0],
        sealed=sealed, audit_ok=game["audit_ok"][0], audit_problems=game["audit_problems"][0],
    )


def _without_misfits(outcomes: list[Checked | Rejected], batch: Columns
                     ) -> tuple[list[Checked | Rejected], Columns]:
    """Return the outcomes with each log whose rows do not fit (`first_misfit`) rejected, and the
    rows of the others."""
    kept = Columns()
    out: list[Checked | Rejected] = []
    offsets = dict.fromkeys(TABLES, 0)
    for outcome in outcomes:
        if isinstance(outcome, Checked):
            rows = batch.rows(offsets, outcome.counts)
            for table in TABLES:
                offsets[table] += outcome.counts[table]
            misfit = first_misfit(rows)
            if misfit is not None:
                outcome = Rejected(outcome.source, misfit[1], "range", misfit[0])
            else:
                kept.extend(rows)
        out.append(outcome)
    return out, kept


#: whether `check_chunk` builds the events rows natively (`rows.EventBuffers`): in the compiled
#: build, where appending a machine int costs a few instructions; the pure build's plain lists
#: are the faster there (each append a call either way, and pyarrow converts lists in C)
_NATIVE_ROWS = build() == "compiled"


def check_chunk(logs: Sequence[tuple[str, RawLines]]) -> CheckedChunk:
    """Check a chunk of logs into their outcomes and Arrow rows (a worker's job): each log
    decoded, chain-checked and replayed (`_replay_log`), its values checked against their column
    types. The one check of a log: `index` (in process or in its workers) and `spark-index` both
    take it, and a log's outcome and rows are the same alone or in any chunk.

    The values are checked by the conversion to Arrow, the whole chunk at once; only when one
    does not fit is each log's rows checked alone (`first_misfit`), so that the logs that do not
    fit are rejected (with the seq and column `first_misfit` names) and the others kept.
    """
    batch = Columns(native=_NATIVE_ROWS)
    outcomes = [_replay_log(source, lines, batch) for source, lines in logs]
    try:
        tables = {table: arrow_table(batch, table) for table in TABLES}
    except MISFIT_ERRORS:
        batch.to_lists()
        outcomes, batch = _without_misfits(outcomes, batch)
        tables = arrow_tables(batch)
    return CheckedChunk(outcomes, tables)


#: logs per chunk sent to a worker: big enough that a chunk's work dwarfs sending it (64 cut the
#: Arrow conversions' fixed costs a little more, but an archive's chunk is held in memory: 16
#: logs of the 64 MiB a log may hold are the bound kept)
CHUNK_LOGS = 16


def _work(paths: Iterable[str | os.PathLike[str]], chunk_logs: int
          ) -> Iterator[list[tuple[str, RawLines]] | Rejected]:
    """Yield chunks of (name, lines) of the logs under `paths`, in order, and a `Rejected` for a
    path that cannot be read (after the logs read from it) or holds no log.

    Lines are sent unread where they come from a file (a worker opens it); an archive's logs are
    read here, as its members come.
    """
    for path in paths:
        found = False
        logs = iter_logs(path)
        try:
            for chunk in chunked(logs, chunk_logs, held_bytes, CHUNK_BYTES):
                found = True
                yield chunk
        except (OSError, ValueError) as exc:  # an unreadable folder or a damaged archive
            yield Rejected(str(path), _reason(exc, str(path)))
        else:
            if not found:
                yield Rejected(str(path), "no .jsonl logs found")


def _held(item: list[tuple[str, RawLines]] | Rejected) -> int:
    return 0 if isinstance(item, Rejected) else chunk_bytes(item)


def _first_name(item: list[tuple[str, RawLines]] | Rejected) -> str:
    return item.source if isinstance(item, Rejected) else first_name(item)


def _check_work(item: list[tuple[str, RawLines]] | Rejected) -> CheckedChunk | Rejected:
    if isinstance(item, Rejected):
        return item
    with collector_paused(held=_held(item)):  # many small objects, few cycles: see the pool
        return check_chunk(item)


class _Indexer:
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
                path, _reason(exc, path), "unreadable" if exc.exit_code == 2 else "format"))
            return
        except Exception as exc:  # a bug must not abort the run nor print a traceback
            self.report.rejected.append(Rejected(
                path, f"internal error {type(exc).__name__}: {one_line(exc)}", "internal"))
            return
        if report is None:  # gone since it was looked for
            return
        if report.problem is not None:
            self.report.rejected.append(Rejected(
                report.path, f"{_reason(ValueError(report.problem), report.path)} (the rulings "
                "before it are stored)", "format"))
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


#: events rows a batch holds before it is inserted (`index`): one insert per table a batch, each
#: of about a third of 2,000 games' rows (an insert's fixed cost spread over many rows, and the
#: last batch, inserted after the workers are done, small beside the run)
BATCH_EVENTS = 125_000


#: connect settings of the index's connection: DuckDB inserts and checkpoints on one thread (its
#: threads there cost about a fifth more CPU for the same work, and the workers, when there are
#: some, use the other cores); each full row group of a table (122,880 rows) is written to the
#: file as soon as it is inserted (DuckDB's optimistic write, which by default waits for five):
#: with workers, while they check the next logs, so the commit, which this process alone runs
#: after them, has only the last rows to write (and the run holds less in memory); the commit
#: checkpoints at once (a threshold of 0 bytes) rather than write the run's rows to the
#: write-ahead log that closing then checkpoints anyway
_INDEX_CONFIG: dict[str, Any] = {"threads": 1, "write_buffer_row_group_count": 1,
                                 "checkpoint_threshold": "0b"}


def _rollback(con: duckdb.DuckDBPyConnection) -> None:
    with contextlib.suppress(duckdb.Error):  # a connection DuckDB already invalidated
        con.rollback()


def index(
    paths: Iterable[str | os.PathLike[str]],
    db: str | os.PathLike[str] = DEFAULT_DB,
    replace: bool = False,
    on_game: Callable[[str, int], None] | None = None,
    batch_events: int = BATCH_EVENTS,
    workers: int = 1,
    chunk_logs: int = CHUNK_LOGS,
    strict: bool = False,
    analyses: Iterable[str | os.PathLike[str]] = (),
) -> IndexReport:
    """Index every log under `paths` into `db` in one transaction; see the module docstring.

    Each game is stored with the audit's verdict (`games.audit_ok`, `games.audit_problems`);
    with `strict`, a game that fails the audit is rejected instead (its kind the first of its
    failing kinds). A branch is stored in `branches` whatever its verdict (it is not a game), and
    each game's rulings log beside it is read into `rulings` and `games.ruled_*`.

    `workers` processes check and replay the logs, `chunk_logs` at a time; this process alone
    writes the database, taking the chunks in order, so the database is the same whatever
    `workers` is.

    Then the analysis files under `analyses` (`decisions`: files, or folders of `*.json`) are
    read into `decisions`, matched against the games as stored by then; each that is not stored
    is a reject like a log's (kind `unreadable`, `format`, `range`, `unmatched` or `conflict`).
    """
    path = Path(db)
    # a new database is built under another name and takes its own once committed: an index
    # stopped while creating it (killed, a full disk) leaves no half-made database at `db`
    creating = not path.exists()
    target = creating_path(path) if creating else path
    clear_stale(creating_path(path), path)
    con = connect(target, config=_INDEX_CONFIG)
    committed = False
    # with workers, the first chunks are given out before the schema is made, so that the
    # workers check logs while this process prepares the database
    results = ordered_map(_check_work, _work(paths, chunk_logs), workers, weight=_held,
                          budget=CHUNK_BYTES, name=_first_name, share=True)
    try:
        con.begin()
        ahead = list(itertools.islice(results, 1))  # the first result: the pool is started
        ensure_schema(con)
        # one batch size whatever `workers` is: the batches end after the same chunks, so the
        # rows are stored in the same order (a game's rulings, stored after its batch, move its
        # games row); with workers, this process inserts a batch while the workers replay the
        # next chunks, and the few inserts each cost DuckDB's fixed setup once
        run = _Indexer(con, replace, batch_events, strict)
        for done in popped(ahead, results):
            if isinstance(done, Rejected):  # a path, not a log: no game to count
                run.report.rejected.append(done)
            else:
                run.take(done, on_game)
        run.flush()
        store = AnalysisStore(con)
        store.read(analyses)
        run.report.analyses = store.report
        run.report.rejected += [Rejected(source, reason, kind, seq)
                                for source, reason, kind, seq in store.report.rejected]
        con.commit()
        committed = True
    except duckdb.Error as exc:  # e.g. a database written by another schema, a full disk
        _rollback(con)
        raise AnalyticsError(f"{db}: {one_line(exc)} (nothing was indexed)") from None
    except (WorkerError, MemoryError) as exc:  # a worker's names the chunk's first log
        _rollback(con)
        why = str(exc) if isinstance(exc, WorkerError) else "out of memory reading the logs"
        raise InputUnreadable(f"{why} (nothing was indexed; fewer --workers or lower limits "
                              "need less memory)") from None
    except BaseException:
        _rollback(con)
        raise
    finally:
        results.close()  # the workers stop (at once when the run failed)
        con.close()
        if creating and not committed:
            discard(target)
    if creating:
        publish(target, path)
    return run.report
