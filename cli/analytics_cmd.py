"""`buraco index | sql | stats | export`: game logs in DuckDB, queried with SQL, sent to Parquet."""

from __future__ import annotations

import csv
import itertools
import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from typer.core import TyperCommand, TyperOption

from buraco_events.analytics import arrowrows, ingest, plots, queries
from buraco_events.analytics.database import DEFAULT_DB, AnalyticsError, DatabaseUnavailable
from buraco_events.analytics.queries import Result
from buraco_events.analytics.sqlviews import relations
from buraco_events.util.pool import default_workers
from buraco_events.util.sizes import UNITS_HELP
from buraco_events.util.text import plural, visible
from buraco_events.views.fit import print_fitted

from .common import err, fail, out, shown

DbOption = Annotated[Path, typer.Option("--db", help="the DuckDB database file")]
WorkersOption = Annotated[int | None, typer.Option(
    "--workers", min=1, metavar="N",
    help="processes that check and replay logs, this one among them (default: the machine's "
    "cores); the output is the same whatever N")]
PassedOnlyOption = Annotated[bool, typer.Option(
    "--passed-only",
    help="the views count only the games that pass the audit (games.audit_ok)")]
TimeoutOption = Annotated[float, typer.Option(
    "--timeout", metavar="SECONDS",
    help="stop the query after this many seconds (exit 1); 0 for no limit")]
MaxMemoryOption = Annotated[str, typer.Option(
    "--max-memory", metavar="SIZE",
    help=f"stop the query when it needs more memory than this (512MB, 2GB, 1GiB...; {UNITS_HELP}; "
    "exit 1); nothing spills to disk")]
ParquetOption = Annotated[Path | None, typer.Option(
    "--parquet", metavar="DIR",
    help="read a Parquet folder written by `buraco export` or `buraco spark-index` instead of --db")]


def _json_default(value: Any) -> Any:
    return str(value)  # dates, decimals, UUIDs...: their text form


def _cell(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list | dict):
        return json.dumps(value, default=_json_default)
    return str(value)


def _table(result: Result, title: str | None = None) -> Table:
    # names and cells are data (a query's aliases, players' names): shown, never markup
    table = Table(title=title)
    for name in result.columns:
        table.add_column(shown(name))
    for row in result.rows:
        table.add_row(*(shown(_cell(v)) for v in row))
    return table


def _unruled(result: Result) -> Result:
    """Return the players' standings without their `ruled_` columns when rulings change none of
    them (the usual case: the table then fits a terminal); `--json` keeps every column."""
    columns = result.columns
    pairs = [(i, columns.index(c.removeprefix("ruled_"))) for i, c in enumerate(columns)
             if c.startswith("ruled_") and c.removeprefix("ruled_") in columns]
    if any(row[i] != row[j] for row in result.rows for i, j in pairs):
        return result
    keep = [i for i, c in enumerate(columns) if not c.startswith("ruled_")]
    return Result([columns[i] for i in keep], [tuple(row[i] for i in keep) for row in result.rows])


def _limits(timeout: float, max_memory: str) -> queries.Limits:
    """Return the query limits the options give, or exit 2 on a value that is not one."""
    if not timeout >= 0:  # NaN too
        fail(f"--timeout: {timeout:g} is not a number of seconds (0 for no limit)", 2)
    try:
        queries.parse_memory(max_memory)
    except ValueError as exc:
        fail(f"--max-memory: {exc}", 2)
    return queries.Limits(timeout=timeout or None, max_memory=max_memory)


def _csv_rows(result: Result, exact: bool) -> Iterator[list[Any]]:
    """Yield the header and the rows as `csv` writes them: lists and maps as JSON; unless
    `exact` (for a terminal), text with its control and bidi characters as visible escapes."""
    rows: Iterator[list[Any]] = itertools.chain([list(result.columns)], (
        [json.dumps(v, default=_json_default) if isinstance(v, list | dict) else v for v in row]
        for row in result.rows))
    if exact:
        return rows
    return ([visible(v) if isinstance(v, str) else v for v in row] for row in rows)


@contextmanager
def _database_errors() -> Iterator[None]:
    """Turn the database's errors into one line: exit 2 when it cannot be opened, 1 otherwise."""
    try:
        yield
    except DatabaseUnavailable as exc:
        fail(str(exc), 2)
    except AnalyticsError as exc:
        fail(str(exc), 1)


def index(
    paths: Annotated[list[Path] | None, typer.Argument(
        help="log files, folders of logs, or archives", show_default=False)] = None,
    db: DbOption = Path(DEFAULT_DB),
    replace: Annotated[bool, typer.Option(
        "--replace", help="replace a stored game whose log changed (other head)"
    )] = False,
    workers: WorkersOption = None,
    strict: Annotated[bool, typer.Option(
        "--strict", help="reject the games that fail the audit (deal, score, unfinished) instead "
        "of storing them with their verdict")] = False,
    analysis: Annotated[list[Path] | None, typer.Option(
        "--analysis", metavar="DIR",
        help="analyses of `buraco analyze --json` (a folder of *.json, e.g. GAME.s0.analysis.json,"
        " or one file; repeatable) into the decisions table, each matched to its indexed game",
        show_default=False)] = None,
) -> None:
    """Index logs into DuckDB (skips games already stored; exit 1 if a log was rejected).

    Every game is stored with the audit's verdict (games.audit_ok, games.audit_problems); the
    views and stats leave the failing ones out with --passed-only, and --strict rejects them.
    A branch (a what-if log) is one row of the branches table, never a game. A game's rulings
    log beside it (GAME.rulings.jsonl) fills the rulings table and games.ruled_totals,
    ruled_winner and rulings, read again on every run; the raw totals stay as recounted.
    An analysis (--analysis) fills the decisions table (views player_accuracy,
    mistakes_by_phase) when it judges an indexed game: its seat, player and every chosen action
    as the game's log has them; a branch's, or another game's, is rejected.
    """
    paths = paths or []
    analyses = analysis or []
    if not paths and not analyses:
        fail("give the logs to index, or --analysis DIR", 2)
    for p in [*paths, *analyses]:
        if not p.exists():
            fail(f"{p}: no such file or folder")
    console = err()
    progress = Progress(
        SpinnerColumn(), TextColumn("indexing"), BarColumn(),
        TextColumn("{task.completed} logs, {task.fields[events]:,} events"), TimeElapsedColumn(),
        console=console, transient=True, disable=not console.is_terminal,
    )
    task = progress.add_task("index", total=None, events=0)
    events = 0

    def on_game(source: str, n: int) -> None:
        nonlocal events
        events += n
        progress.update(task, advance=1, events=events)

    arrowrows.skip_pandas_probe()  # this process never hands pyarrow a pandas object
    with _database_errors(), progress:
        report = ingest.index(paths, db, replace=replace, on_game=on_game,
                                 workers=workers or default_workers(), strict=strict,
                                 analyses=analyses)
    for rejected in report.rejected:  # names and reasons may hold a log's text: shown
        console.print(f"rejected: {shown(rejected)}", highlight=False)
    for conflict in report.conflicts:
        console.print(f"conflict: {shown(conflict)} (--replace to accept it)", highlight=False)
    failing = (f", {report.failing} of them failing the audit (games.audit_ok false; "
               "--passed-only leaves them out of views and stats, --strict rejects them)"
               if report.failing else "")
    # branches are not games: counted apart, and only when there are some
    branches = (f"; {report.branches} branch{'es' if report.branches != 1 else ''} added to the "
                "branches table (never counted as games)" if report.branches else "")
    if report.ruled:  # rulings read (or cleared) beside the games: standings after them apart
        branches += (f"; rulings read for {report.ruled} game{'s' if report.ruled != 1 else ''} "
                     "(the rulings table; games.ruled_totals, ruled_winner)")
    if analyses:  # asked for: said even when none was stored
        done = report.analyses
        branches += (f"; analyses: {done.added} added, {done.replaced} replaced, "
                     f"{done.unchanged} already indexed ({done.decisions:,} decisions stored; "
                     f"the decisions table)")
    with _database_errors():
        tournaments, refused = _index_tournaments(paths, db)
    for line in refused:
        console.print(f"rejected: {shown(line)}", highlight=False)
    if tournaments:
        branches += (f"; {tournaments} tournament{'s' if tournaments != 1 else ''} indexed (the "
                     "tournaments, tournament_entries and tournament_results tables)")
    print(
        f"{db}: {plural(report.added, 'game')} added, {report.replaced} replaced, {report.skipped} "
        f"already indexed, {len(report.rejected)} rejected, {plural(len(report.conflicts), 'conflict')} "
        f"({report.events:,} events){failing}{branches}"
    )
    if not report.ok or refused:
        raise typer.Exit(1)


def _index_tournaments(paths: list[Path], db: Path) -> tuple[int, list[str]]:
    """Index the tournament logs under `paths` (each with its games folder beside it); return
    how many were stored and a line for each that does not read."""
    from buraco_events.analytics.tournaments import store_tournaments
    from buraco_events.log.lines import tournament_files
    from buraco_events.tournament.rows import tournament_rows
    from buraco_events.tournament.state import TournamentError

    rows = []
    refused = []
    for path in paths:
        for found in tournament_files(path):
            try:
                rows.append(tournament_rows(found))
            except TournamentError as exc:
                refused.append(str(exc))
    return (store_tournaments(db, rows) if rows else 0), refused


#: an option given as `--name=value` (its value may hold spaces and newlines)
_OPTION_WITH_VALUE = re.compile(r"--?[A-Za-z][\w-]*=")


def _is_query(arg: str) -> bool:
    """Return whether a command-line argument that begins with `-` is a query, not an option: a
    `--` comment (`--` then a space), or text over several lines. No option looks like either."""
    if arg.startswith("--") and len(arg) > 2 and arg[2].isspace():
        return True
    return arg.startswith("-") and "\n" in arg and not _OPTION_WITH_VALUE.match(arg)


class QueryCommand(TyperCommand):
    """`buraco sql`: a query that begins with a `--` comment is the query, not an option.

    click takes every argument that begins with `-` for an option; the query found among the
    arguments (not as an option's value) moves after `--`, which makes it the positional argument
    whatever follows. Arguments that already hold a `--` are left as given.
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # click's Context
        """Move a query that begins with `-` after `--`, then parse as usual."""
        if "--" not in args:
            takes_value = {
                name for param in self.params if isinstance(param, TyperOption)
                and not param.is_flag for name in param.opts
            }
            i = 0
            while i < len(args):
                if args[i] in takes_value:
                    i += 2  # the option and its value, whatever the value looks like
                    continue
                if _is_query(args[i]):
                    args = [*args[:i], *args[i + 1:], "--", args[i]]
                    break
                i += 1
        return super().parse_args(ctx, args)


def sql_help() -> str:
    """Return the help of `buraco sql`: what a query may do, and the tables and views it can use
    (listed from the definitions that create them)."""
    names = relations()
    width = max(len(name) for name, _ in names)
    listing = "\n".join(f"{name.ljust(width)}  {escape(about)}" for name, about in names)
    return (
        "Run one read-only SQL query (a SELECT) on the database.\n\n"
        "Nothing is written, attached, installed or fetched from the network; files may be read "
        "(read_csv, read_text, ...) under the working folder and the database's folder. With "
        "--parquet DIR the same tables and views stand over the Parquet files of DIR, and "
        "rejects (path, seq, kind, message: the logs `buraco spark-index` did not index; empty "
        "over an export).\n\n"
        "Each game carries the audit's verdict: games.audit_ok (true when the game passes "
        "`buraco audit`) and games.audit_problems (the kinds of its problems, in the words of "
        "`audit --json`: deal, score, unfinished, unsealed; logs with format, integrity or "
        "illegal problems are never stored). With --passed-only every view counts only the "
        "games that pass (the counted_games view); in your own queries add "
        "`WHERE audit_ok`.\n\n"
        "Branches (what-if logs) are rows of branches, never of games. The rulings beside a "
        "game log are rows of rulings; games.ruled_totals and ruled_winner (and the views' "
        "ruled_ columns) give the standings after them, beside the raw totals and winner.\n\n"
        f"A query stops after --timeout seconds ({queries.DEFAULT_TIMEOUT:g} by default) and "
        f"when it needs more than --max-memory ({queries.DEFAULT_MAX_MEMORY} by default), so "
        "that a runaway query cannot slow the machine; it then exits 1 saying which limit.\n\n"
        "A query may begin with a -- comment; a query beginning with - may also be given after "
        "-- (buraco sql -- '-- note' ...).\n\n"
        "Output shows text as it is, except that control and bidi characters (escape sequences, "
        "right-to-left overrides) are written as visible escapes (\\x1b, \\u202e) on a "
        "terminal: in the table always, and in --csv when stdout is a terminal. --csv into a pipe "
        "or a file, and --json everywhere (its own escapes), keep the data exact.\n\n"
        "`buraco sql --schema [TABLE]` prints every column of the tables and views with its type and "
        "meaning, and five example queries (the same as docs/analytics.md).\n\n"
        f"Tables and views:\n\n\b\n{listing}"
    )


def sql(
    query: Annotated[str | None, typer.Argument(
        help="the SQL query: one SELECT (WITH, FROM, DESCRIBE, ...); with --schema, a table or view")] = None,
    schema: Annotated[bool, typer.Option(
        "--schema", help="print the data dictionary: every table and view, each column's type and meaning, "
        "and five example queries (docs/analytics.md); with a table or view name, that one only")] = False,
    db: DbOption = Path(DEFAULT_DB),
    as_json: Annotated[bool, typer.Option("--json", help="print a JSON array of objects")] = False,
    as_csv: Annotated[bool, typer.Option("--csv", help="print CSV with a header row")] = False,
    parquet: ParquetOption = None,
    passed_only: PassedOnlyOption = False,
    timeout: TimeoutOption = queries.DEFAULT_TIMEOUT,
    max_memory: MaxMemoryOption = queries.DEFAULT_MAX_MEMORY,
) -> None:
    """Run one read-only SQL query on the database (its help lists the tables and views)."""
    if schema:
        _print_schema(query)
        return
    if query is None:
        fail("give a query (buraco sql \"SELECT ...\"), or --schema for the tables and their columns")
    if as_json and as_csv:
        fail("choose one of --json and --csv")
    limits = _limits(timeout, max_memory)
    with _database_errors():
        result = queries.query(db, query, parquet=parquet, limits=limits,
                                 passed_only=passed_only)
    if as_json:
        print(json.dumps(result.records(), default=_json_default, indent=1))
    elif as_csv:
        # a terminal shows the cells (escapes visible); a pipe or a file gets the exact data
        exact = not sys.stdout.isatty()
        csv.writer(sys.stdout, lineterminator="\n").writerows(_csv_rows(result, exact))
    else:
        print_fitted(out(), _table(result))


def _print_schema(name: str | None) -> None:
    """Print the data dictionary, or one table's or view's part of it (exit 2 for another name)."""
    from buraco_events.analytics import dictionary

    width = max(40, min(out().width, 100))
    try:
        text = dictionary.text(name.strip() if name else None, width)
    except KeyError:
        names = ", ".join(name for name, _ in relations())
        fail(f"--schema: no table or view is called {name!r}; there are: {names}")
    sys.stdout.write(text)


def stats(
    db: DbOption = Path(DEFAULT_DB),
    variant: Annotated[
        str | None, typer.Option("--variant", help="only games of this variant")] = None,
    plot: Annotated[
        Path | None, typer.Option(
            "--plot", help="also write a chart to this file (.png, .svg, .pdf, ...)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the figures as JSON")] = False,
    parquet: ParquetOption = None,
    passed_only: PassedOnlyOption = False,
    timeout: TimeoutOption = queries.DEFAULT_TIMEOUT,
    max_memory: MaxMemoryOption = queries.DEFAULT_MAX_MEMORY,
) -> None:
    """Print canasta, penalty, closing and win rates, hand lengths and score quantiles."""
    if plot is not None:
        try:
            formats = plots.plot_formats()
        except plots.ChartsUnavailable as exc:
            fail(f"--plot: {exc}")
        if plot.suffix.lower().lstrip(".") not in formats:
            fail(f"{plot}: a chart is written as one of "
                 f"{', '.join('.' + f for f in formats)}; got {plot.suffix or 'no extension'}")
    limits = _limits(timeout, max_memory)
    with _database_errors():
        results = queries.stats(db, variant, parquet=parquet, limits=limits,
                                 passed_only=passed_only)
    if not any(r.rows for r in results.values()):
        fail("no indexed games" + (f" of variant {variant!r}" if variant else ""), 1)
    if plot is not None:
        try:
            plots.plot_stats(results, plot)
        except OSError as exc:
            fail(f"{plot}: cannot write the chart ({exc.strerror})", 1)
    if as_json:
        doc = {name: r.records() for name, r in results.items()}
        print(json.dumps(doc, default=_json_default, indent=1))
        return
    for name, result in results.items():
        if name == queries.STANDINGS_VIEW:
            result = _unruled(result)
        print_fitted(out(), _table(result, title=name.replace("_", " ")))
    if plot is not None:
        err().print(f"chart written to {shown(plot)}")


def export(
    parquet: Annotated[
        Path, typer.Option("--parquet", help="output folder (DIR/<table>/variant=<v>/)")],
    db: DbOption = Path(DEFAULT_DB),
) -> None:
    """Export every table to zstd Parquet partitioned by variant (hive style)."""
    try:
        with _database_errors():
            counts = queries.export_parquet(db, parquet)
    except OSError as exc:
        fail(f"{parquet}: {exc.strerror}", 1)
    table = Table(title=f"exported to {shown(parquet)}")
    table.add_column("table")
    table.add_column("rows", justify="right")
    for name, n in counts.items():
        table.add_row(name, f"{n:,}")
    print_fitted(out(), table)
