"""`buraco analyze LOG --as SEAT`: what each decision of a seat cost, judged only from what it knew.

Each decision is played out, with every alternative, on deals of the cards the seat could not see
until its verdict is settled, up to twice `--samples` deals (`analysis.evaluate`); the text shows
each loss with its 95% interval and the deals it took, and `too wide` where the interval cannot
tell (never `=` there). With `--db`, the analysis's decisions go into an existing index's
`decisions` table (`analytics.decisions`: the same rows as `index --analysis`). Exit codes: 0
analysed, 1 a log that stops replaying (analysed up to there, the error in the seat's words) or an
analysis the index refuses (a branch's, a game not indexed), 2 a path that cannot be read, a bad
option or a database that is not an index.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import msgspec
import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from buraco_events.analysis.evaluate import DEFAULT_SAMPLES, Analysis, analyze
from buraco_events.analytics.database import AnalyticsError, DatabaseUnavailable
from buraco_events.analytics.decisions import AnalysisRejected, check_index, store_analysis
from buraco_events.model.events import branch_of, branch_words
from buraco_events.util.pool import default_workers
from buraco_events.util.text import visible
from buraco_events.views.fit import print_fitted
from buraco_events.views.render import accuracy_words, loss_words, samples_words, verdict_of

from .common import PROBLEMS, UNREADABLE, err, fail, out, shown
from .replay_opts import open_replay, resolve_seat

#: the decisions the text lists (the marked ones first shown in seq order); --json has them all
ROWS_SHOWN = 40


def analyze_cmd(
    log: Annotated[Path, typer.Argument(help="a game log (.jsonl) or ARCHIVE.bza/NAME", show_default=False)],
    as_seat: Annotated[str, typer.Option("--as", help="the seat analysed, by index or player name")],
    samples: Annotated[int, typer.Option(
        "--samples", min=1, max=4096, metavar="K",
        help="the scale of the deals of the hidden cards a decision is played out on: each is played"
        " out until its verdict is settled, on up to twice K deals")] = DEFAULT_SAMPLES,
    seed: Annotated[str, typer.Option("--seed", help="the samples' seed: the same seed, the same output")] = "1",
    workers: Annotated[int | None, typer.Option(
        "--workers", min=1, metavar="N",
        help="processes that evaluate decisions (default: the machine's cores); the output is the same "
        "whatever N")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the analysis as one JSON object")] = False,
    db: Annotated[Path | None, typer.Option(
        "--db", metavar="DB",
        help="also store the decisions in this index's decisions table (made by `buraco index`; the"
        " game indexed; replaces this game and seat's decisions there)", show_default=False)] = None,
) -> None:
    """Mark each decision of a seat with what it cost: the chosen action and the alternatives played
    out to the hand's end on deals of the cards the seat could not see (never the real ones)."""
    _, timeline, errors = open_replay(log, public=True)
    seat = resolve_seat(as_seat, timeline.players)
    assert seat is not None
    error = errors(seat)
    events = timeline.events[:timeline.last + 1]
    if db is not None:  # refused before the analysis runs, not after
        fork = branch_of(events)
        if fork is not None:
            fail(f"{log}: a {branch_words(getattr(events[0], 'game_id', ''), fork)}: the decisions table"
                 " holds only games' decisions (nothing was analysed)", PROBLEMS)
        try:
            check_index(db)
        except DatabaseUnavailable as exc:
            fail(str(exc), UNREADABLE)
    progress = Progress(TextColumn("analyze"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=err(), transient=True, disable=not sys.stderr.isatty())
    task = progress.add_task("analyze", total=None)

    def on_decision(done: int, total: int) -> None:
        progress.update(task, completed=done, total=total)

    with progress:
        result = analyze(events, seat, samples, seed, workers or default_workers(), on_decision)
    if as_json:
        sys.stdout.write(msgspec.json.encode(result).decode() + "\n")
    else:
        _print(result)
    if error:  # a log the index would reject: its analysis is not stored either
        stored = f"; not stored in {db}" if db is not None else ""
        fail(f"{error} (analysed up to there{stored})", PROBLEMS)
    if db is not None:
        _store(db, result)


def _store(db: Path, a: Analysis) -> None:
    """Store the analysis's decisions in the index `db`, saying so on stderr (stdout is the
    analysis); exit 1 when the index refuses it, 2 when it cannot be opened."""
    try:
        outcome = store_analysis(db, a)
    except AnalysisRejected as exc:
        fail(f"{db}: the analysis of game {a.game_id} seat {a.seat} is not stored: {exc.reason}",
             PROBLEMS)
    except DatabaseUnavailable as exc:
        fail(str(exc), UNREADABLE)
    except AnalyticsError as exc:
        fail(str(exc), PROBLEMS)
    words = {"added": "stored", "replaced": "stored in place of the earlier analysis",
             "unchanged": "already stored"}[outcome]
    err().print(f"{shown(db)}: {len(a.decisions)} decisions of game {shown(a.game_id)} seat {a.seat} "
                f"{words} (the decisions table)", highlight=False, soft_wrap=True)


def _print(a: Analysis) -> None:
    console = out()
    decisions = [msgspec.to_builtins(d) for d in a.decisions]
    summary = msgspec.to_builtins(a)
    console.print(Text(f"{visible(a.game_id)}, seat {a.seat} ({visible(a.player)}): {len(a.decisions)} decisions, "
                       f"{samples_words(summary, decisions)} (seed {visible(a.seed)}); mean loss "
                       f"{a.mean_loss} points a decision, accuracy {accuracy_words(summary)}", style="bold"),
                  soft_wrap=True)
    table = Table(show_edge=False)
    for col in ("seq", "hand", "chosen", "best", "loss (95%)", "deals", "mark"):
        table.add_column(col, justify="right" if col in ("seq", "hand", "loss (95%)", "deals") else "left")
    for d, shown_d in zip(a.decisions[:ROWS_SHOWN], decisions, strict=False):
        verdict = verdict_of(shown_d)
        # `=` only where the choice stands within the interval: one too wide to say shows so
        best = d.best if d.best != d.chosen else ("none found" if verdict == "wide" else "=")
        table.add_row(str(d.seq), str(d.hand + 1), d.chosen, best, loss_words(shown_d),
                      "-" if d.samples is None else str(d.samples),
                      "too wide" if verdict == "wide" else d.mark or "")
    print_fitted(console, table)
    if len(a.decisions) > ROWS_SHOWN:
        console.print(f"… and {len(a.decisions) - ROWS_SHOWN} more decisions (--json lists them all)")
    if a.costliest:
        console.print("costliest: " + ", ".join(f"seq {s}" for s in a.costliest))


__all__ = ["analyze_cmd"]
