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
from pathlib import Path
from typing import Any

import duckdb

from buraco_events import build
from buraco_events.audit.rulings import rulings_path
from buraco_events.core.gate import IllegalMove
from buraco_events.log.chain import ChainStatus
from buraco_events.log.lines import LogError, RawLines
from buraco_events.log.reader import EventReader
from buraco_events.log.sources import CHUNK_BYTES, chunk_bytes, first_name, held_bytes, iter_logs
from buraco_events.model.events import Branched, Event, branch_of
from buraco_events.util.pool import WorkerError, chunked, collector_paused, ordered_map, popped

from .arrowrows import MISFIT_ERRORS, arrow_table, arrow_tables, first_misfit
from .database import (
    DEFAULT_DB,
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
from .decisions import AnalysisStore
from .indexrun import Checked, CheckedChunk, Indexer, IndexReport, Rejected, error_reason
from .rows import Columns, game_rows
from .schema import TABLES


class InputUnreadable(DatabaseUnavailable):
    """The logs could not be read to the end: a worker process died or ran out of memory (exit 2,
    nothing was indexed)."""


def _decode_log(lines: RawLines) -> tuple[list[Event], ChainStatus]:
    """Decode a log's lines, checking seq and the hash chain; raises `LogError` at a bad line."""
    reader = EventReader(lines)
    events: list[Event] = [event for _, _, event in reader]
    return events, reader.status()


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
        return Rejected(source, error_reason(exc, source), "unreadable")
    except LogError as exc:
        return Rejected(source, error_reason(exc, source), "format", exc.seq)
    except IllegalMove as exc:
        return Rejected(source, error_reason(exc, source), "illegal", exc.seq)
    except ValueError as exc:  # e.g. an unknown variant in game_started
        return Rejected(source, error_reason(exc, source), "illegal")
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
            yield Rejected(str(path), error_reason(exc, str(path)))
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
        run = Indexer(con, replace, batch_events, strict)
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
