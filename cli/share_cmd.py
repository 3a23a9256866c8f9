"""`buraco share LOG -o FILE.html`: a replay anyone can open, one self-contained HTML page.

The page (built by `buraco_events.views.share.replay_page`) works offline from disk and holds, per step,
the object of `buraco replay LOG --at SEQ --json [--as SEAT]`. `--as` makes it that seat's page:
the steps are the seat's views, so nothing the seat could not see is in the file. `--spoiler-free`
keeps the result out of the title and the header. `buraco audit LOG --html FILE.html` writes the
referee's report as such a page (`pages.audit_page`).

`--analysis A.json` (with `--as`, the same seat: `buraco analyze LOG --as SEAT --json`) puts each
of the seat's analysed decisions in its step (`decision`, as in `replay --json --analysis`): the
page shows its mark, the loss and the better action, and marks the marked decisions on the seq bar.
The analysis is held against the log first (`analysis.load`): it names only the seat's own cards,
so the page still holds nothing the seat could not see.

A branch's page names it ("branch of GAME at seq N") in a banner on screen at every step. The
game's rulings log (`GAME.rulings.jsonl` beside the log, or `--rulings FILE`) is judged against
the log and carried in every step: the page shows each ruling at its hand and, at the end, the
standings after rulings apart from the recount. The page does not verify the rulings log; it
names it and its head. A rulings log that stops being read is shown up to there; the page is
written and the command exits 1 with the error.

The page is written atomically (`pages.write_page`), and an existing file is never replaced
unless `--force` is given. Only a log that replays to its end is shared: a page
of a broken log is the audit's report. Exit 1 for a log that was read and is wrong, 2 for one that
cannot be read or for an output that cannot be written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import msgspec
import typer

from buraco_events.model.events import branch_words
from buraco_events.views.projections import Timeline
from buraco_events.views.render import accuracy_words
from buraco_events.views.replays import rulings_head, rulings_object, shown_name
from buraco_events.views.share import analysis_summary, audit_command, replay_page, timeline_steps

from .common import err, fail, out, shown
from .pages import check_output, write_page
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


def opening_seq(timeline: Timeline, at: int | None) -> int:
    """Return the seq the page opens at: `--at`, else the first deal (the first table to see)."""
    if at is not None:
        return resolve_seq(timeline, at, None, False)
    return timeline.hand_start(0) if timeline.n_hands else 0


def share(
    log: Annotated[Path, typer.Argument(
        help="a game log (.jsonl), or one log of an archive: ARCHIVE.bza/NAME.jsonl",
        show_default=False)],
    output: Annotated[Path, typer.Option(
        "-o", "--output", metavar="FILE.html", help="the page to write", show_default=False)],
    as_seat: Annotated[str | None, typer.Option(
        "--as", help="the page of this seat (index or player name): only what it could see")] = None,
    at: Annotated[int | None, typer.Option(
        "--at", help="open at this seq (default: the first deal)")] = None,
    spoiler_free: Annotated[bool, typer.Option(
        "--spoiler-free", help="keep totals, the winner and the number of hands out of the first screen"
        " and any summary as well")] = False,
    spoiler: Annotated[bool, typer.Option(
        "--spoiler", help="name the winner in the page's title from the start (else the title names it"
        " once the last step is reached)")] = False,
    force: Annotated[bool, typer.Option("--force", help="replace an existing output file")] = False,
    rulings_file: RulingsOption = None,
    analysis_file: AnalysisOption = None,
) -> None:
    """Write one self-contained HTML page replaying a game, to open offline anywhere."""
    if spoiler and spoiler_free:
        fail("choose one of --spoiler and --spoiler-free")
    check_output(output, force, log)
    loaded, timeline, errors = open_replay(log, public=as_seat is not None)
    seat = resolve_seat(as_seat, timeline.players)
    error = errors(seat)  # in the words the page's seat may read
    if error:
        fail(f"{error} (only a log that replays to its end is shared; `buraco audit {log} --html"
             " FILE.html` writes the referee's report of this one)", 1)
    seq = opening_seq(timeline, at)
    analysis = open_analysis(analysis_file, timeline, seat)
    report = open_rulings(log, rulings_file)
    steps = timeline_steps(timeline, seat, sealed=loaded.sealed, error=None,
                           rulings=rulings_object(report, name_only=True), decisions=analysis_decisions(analysis))
    source = shown_name(log)
    page = replay_page(
        steps, source=source, head=loaded.head, sealed=loaded.sealed, seat=seat, at=seq,
        spoiler_free=spoiler_free, spoiler=spoiler, rules=msgspec.to_builtins(timeline.final.rules),
        rulings_head=rulings_head(report) if report is not None else None,
        analysis=analysis_summary(analysis) if analysis is not None else None,
    )
    size = write_page(output, page, force)
    who = "the referee (every card)" if seat is None else f"seat {seat} ({timeline.players[seat]})"
    out().print(
        f"{shown(output)}: {len(steps)} steps, {size:,} bytes, seen by {shown(who)}, opens at seq"
        f" {seq}{', spoiler-free' if spoiler_free else ''}", soft_wrap=True,
    )
    # the sharer's own check, run from where share ran: the log as given (the page names the file)
    out().print(f"check: {shown(audit_command(str(log), loaded.head))}", soft_wrap=True)
    if analysis is not None:
        marked = sum(1 for d in analysis.decisions if d.mark)
        out().print(f"analysis: {len(analysis.decisions)} decisions of seat {seat}, {marked} marked"
                    f", accuracy {accuracy_words(msgspec.to_builtins(analysis))}, shown at their steps",
                    soft_wrap=True)
    if timeline.branched is not None:
        out().print(f"{shown(branch_words(timeline.final.game_id, timeline.branched))}: the page names it at every step",
                    soft_wrap=True)
    if report is not None:
        out().print(f"rulings: {shown(report.path)}: {len(report.rulings)}, {report.applied} apply"
                    " (shown at their hands; not verified by the page)", soft_wrap=True)
        if report.problem:  # the page shows the rulings read before it and says where the log stops
            fail(f"{report.problem} (the page shows the rulings read before it, each saying whether it counts)", 1)
    if not loaded.sealed:
        err().print(f"note: {shown(log)} is unsealed (no prev chain): the head covers only its last line")
