"""`buraco replay LOG`: the table after any event of a game log, static, as JSON or interactive.

`--at SEQ` shows the table after that event (default: the log's last event); `--hand N` jumps to
hand N's deal, the table right after its `hand_started`. `--as SEAT` (a seat index or a player's
name) shows what that seat could see; the default is the referee's view of every card. A log that
stops replaying (a line that does not decode, a broken chain, an illegal event) is shown up to its
last good event, with the error on one line and exit code 1; a path that cannot be read, or a
file that is not a log (empty, its first line not an event), exits 2. With `--as`, the error of an
illegal event is the engine's public reason: it names no card that seat cannot see.

A branch (a log holding a `branched` line) is named on every screen, "branch of GAME at seq N
(by BY: REASON)", before or after the fork; `--json` gives it as `branch`. The game's rulings log
(`GAME.rulings.jsonl` beside the log, or `--rulings FILE`) is judged against the log: the screen
of a hand's end lists the rulings on that hand, the last screen every ruling and the standings
after them apart from the recount; `--json` gives the report as `rulings`. A rulings log that
stops being read (a bad line, a broken chain) is shown up to there, with its error and exit 1.

`--analysis A.json` (with `--as`, the analysis's seat: `buraco analyze LOG --as SEAT --json`)
shows, under the event of each of the seat's analysed decisions, its mark, the loss and the better
action (`render.decision_line`); `--json` gives that decision as `decision` (None at other seqs);
the viewer's x jumps to the next marked one. The file is held against the log first
(`analysis.load`): one that does not fit exits 1, one that is not an analysis exits 2, each with
one line naming the file and the field.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import msgspec
import typer

from buraco_events.util.text import visible
from buraco_events.views.projections import Timeline, branch_object
from buraco_events.views.render import render_view
from buraco_events.views.replays import rulings_object

from .common import PROBLEMS, err, fail, out, shows_symbols
from .common import error as print_error
from .replay_keys import keys_text
from .replay_opts import (
    AnalysisOption,
    RulingsOption,
    analysis_decisions,
    open_analysis,
    open_replay,
    open_rulings,
    resolve_seat,
    resolve_seq,
)


def replay_help() -> str:
    """Return the help of `buraco replay`: what it does, then the interactive viewer's keys, a key
    a line (`replay_keys.KEYS`, the viewer's own)."""
    return (f"{replay.__doc__}\n\nOn a terminal the viewer opens; its keys (? lists them there too):"
            f"\n\n\b\n{keys_text()}")


def first_deal(timeline: Timeline, otherwise: int) -> int:
    """Return the seq of the first deal, or `otherwise` when the log has none."""
    try:
        return timeline.hand_start(0)
    except IndexError:
        return otherwise


def replay(
    log: Annotated[Path, typer.Argument(help="a game log (.jsonl)", show_default=False)],
    at: Annotated[int | None, typer.Option(
        "--at", help="show the table after this seq (default: the last event; the interactive viewer opens at "
        "the first deal, as a share page does)")] = None,
    hand: Annotated[int | None, typer.Option(
        "--hand", metavar="N", help="show hand N (counted from 1) right after its deal (its hand_started)")] = None,
    as_seat: Annotated[str | None, typer.Option("--as", help="see as this seat, by index or player name (default: the referee, all cards)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the table as one JSON object")] = False,
    static: Annotated[bool, typer.Option("--static", "--no-interactive", help="print once even on a terminal (no interactive viewer)")] = False,
    history: Annotated[bool, typer.Option("--history", help="show each meld's history under it")] = False,
    rulings_file: RulingsOption = None,
    analysis_file: AnalysisOption = None,
) -> None:
    """Show the table after any event of a game log (interactive on a terminal)."""
    loaded, timeline, errors = open_replay(log, public=as_seat is not None)
    seat = resolve_seat(as_seat, timeline.players)
    error = errors(seat)
    seq = resolve_seq(timeline, at, hand, error is not None)
    analysis = open_analysis(analysis_file, timeline, seat)
    decisions = analysis_decisions(analysis)
    report = open_rulings(log, rulings_file)
    rulings = rulings_object(report)
    if not as_json and not static and sys.stdout.isatty():
        from .replay_app import ReplayApp  # textual loads only for the interactive viewer

        if at is None and hand is None:
            seq = first_deal(timeline, seq)  # stepped through from the start, as a share page is
        ReplayApp(timeline, seq=seq, seat=seat, error_for=errors, history=history, log=log, rulings=rulings,
                  analysis=analysis, symbols=shows_symbols(out())).run()
    elif as_json:
        doc = timeline.replay_object(seq, seat, sealed=loaded.sealed, error=error, rulings=rulings,
                                     decisions=decisions)
        sys.stdout.write(msgspec.json.encode(doc).decode() + "\n")
    else:
        histories = timeline.meld_histories(timeline.hand_at(seq), seq) if history else ()
        out().print(render_view(
            timeline.view(seq, seat), timeline.describe(seq), last=timeline.last, histories=histories,
            branch=branch_object(timeline.final.game_id, timeline.branched, seq), rulings=rulings, final=seq == timeline.last,
            decision=decisions.get(seq) if decisions is not None else None,
        ))
        if not loaded.sealed:
            err().print(f"note: {visible(str(log))} is unsealed (no prev chain): replayed and"
                        " checked, not sealed", markup=False)
    if report is not None and report.problem:  # shown up to where it stops, then exit 1
        print_error(f"{report.problem} (the rulings read before it are shown, each saying whether it counts)")
    if error:
        fail(error, PROBLEMS)
    if report is not None and report.problem:
        raise typer.Exit(PROBLEMS)
