"""`buraco audit PATH...`: the referee's verdict on game logs (format, chain, deal, legality, score)."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path
from typing import Annotated

import msgspec
import typer
from rich.table import Table
from rich.text import Text

from buraco_events.archive import is_archive
from buraco_events.audit import Audit, AuditInputError, HandReport, audit_path
from buraco_events.projections import player_view
from buraco_events.render import render_view

from . import share_cmd
from .common import err, out

_HEX64 = re.compile(r"^[0-9a-fA-F]{64}$")

#: what each kind of finding breaks, in words (the rule itself comes with the message)
_BROKEN = {
    "format": "EVENTS.md: every line is one event of the contract",
    "integrity": "EVENTS.md: seq counts 0, 1, 2... and prev is the SHA-256 of the previous line",
    "deal": "RULES 1 and EVENTS.md: a deal is exactly the variant's deck, and matches its commitment",
    "illegal": "RULES.md, as the engine checks it: this event may not come here",
    "score": "RULES 7-8: the claimed score differs from the recount of the events",
}
_ITEMS = ("meld_points", "canasta_bonus", "close_bonus", "hand_penalty", "dead_penalty")


def audit(
    paths: Annotated[list[Path], typer.Argument(
        help="log files (.jsonl), folders of logs (recursive) or archives", show_default=False)],
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object per log")] = False,
    expect_head: Annotated[str | None, typer.Option(
        "--expect-head", metavar="HEX",
        help="the published head (SHA-256 of the last line) each log must end with")] = None,
    seat: Annotated[int | None, typer.Option(
        "--as", metavar="SEAT", min=0, max=3,
        help="show the table from this seat (default: the seat that acted)")] = None,
    html: Annotated[Path | None, typer.Option(
        "--html", metavar="FILE.html",
        help="also write the referee's report of one log as a page (buraco share)")] = None,
    force: Annotated[bool, typer.Option("--force", help="let --html replace an existing file")] = False,
) -> None:
    """Check game logs for format, hash chain, deals, legal play and scores; exit 1 on any problem."""
    if expect_head is not None:
        if not _HEX64.match(expect_head):
            err().print(Text.assemble(("error: ", "bold red"), "--expect-head needs 64 hex digits"))
            raise typer.Exit(2)
        expect_head = expect_head.lower()
    if html is not None:
        share_cmd.audit_page(html, paths, expect_head, force)
    # one log file: one pretty object; folders, archives, several paths: one compact line per log
    pretty = len(paths) == 1 and paths[0].is_file() and not is_archive(paths[0])
    unreadable = False
    audited = failed = 0
    for path in paths:
        try:
            for result in audit_path(path, expect_head):
                audited += 1
                failed += not result.report.ok
                if as_json:
                    _print_json(result, pretty)
                else:
                    _print_report(result, seat, expect_head, detail=pretty or not result.report.ok)
        except AuditInputError as exc:
            err().print(Text.assemble(("error: ", "bold red"), str(exc)))
            unreadable = True
    if audited > 1:  # the verdict over many logs, where the per-log lines scroll away
        err().print(f"{audited} logs audited: {audited - failed} pass, {failed} fail", markup=False)
    raise typer.Exit(2 if unreadable else 1 if failed else 0)


def _print_json(result: Audit, pretty: bool) -> None:
    data = msgspec.json.encode(result.report)
    if pretty:
        data = msgspec.json.format(data, indent=2)
    sys.stdout.write(data.decode() + "\n")


# -- the referee's report ---------------------------------------------------------------------


def _print_report(result: Audit, seat: int | None, expect_head: str | None, detail: bool) -> None:
    """Print the verdict line, then (when `detail`) problems, first finding, score sheets, command."""
    console = out()
    rep = result.report
    console.print(_verdict(result), soft_wrap=True)  # one line, whatever the width
    if not detail:
        return
    if rep.problems:
        table = Table(title="problems", title_justify="left", show_edge=False)
        for col in ("seq", "kind", "message"):
            table.add_column(col)
        for p in rep.problems:
            table.add_row(str(p.seq), p.kind, Text(p.message))
        console.print(table)
    if result.finding is not None:
        _print_finding(result, seat)
    for hand in rep.hands:
        console.print(_score_sheet(hand))
    if not rep.ok:
        console.print(Text("reproduce: ") + Text(_reproduce(result, seat, expect_head), style="bold"))


def _verdict(result: Audit) -> Text:
    rep = result.report
    failing = [p for p in rep.problems if p.kind != "unsealed"]
    seal = f"sealed, head {rep.head[:12]}…" if rep.sealed and rep.head else "UNSEALED"
    facts = [f"game {rep.game_id or '?'}", f"{rep.events} events", f"{len(rep.hands)} hands", seal]
    if failing:
        first = failing[0]
        facts.append(f"{len(failing)} problem(s), first: {first.kind} at seq {first.seq}")
    word = ("PASS", "bold green") if rep.ok else ("FAIL", "bold red")
    return Text.assemble(word, " ", rep.path, "  (" + ", ".join(facts) + ")")


def _acting_seat(result: Audit, seat: int | None) -> int | None:
    finding = result.finding
    if seat is not None and seat < result.n_players:
        return seat
    return finding.seat if finding is not None else None


def _print_finding(result: Audit, seat: int | None) -> None:
    finding = result.finding
    assert finding is not None
    console = out()
    shown = _acting_seat(result, seat)
    p = finding.problem
    who = f"seat {shown}" if shown is not None else "the referee"
    console.print(Text(f"first bad event: seq {p.seq} ({p.kind}); the table just before it, seen by {who}:",
                       style="bold"))
    if seat is not None and seat >= result.n_players:
        console.print(Text(f"  (no seat {seat} in a {result.n_players}-player game)"))
    if finding.state.n_players:
        console.print(render_view(player_view(finding.state, shown)))
    raw = finding.line.decode("utf-8", errors="replace")
    console.print(Text("  event: " + (raw if len(raw) <= 400 else raw[:400] + "…")))
    console.print(Text("  rule broken: " + p.message, style="bold"))
    console.print(Text("  (" + _BROKEN[p.kind] + ")"))


def _score_sheet(hand: HandReport) -> Table:
    if hand.reason is None:
        how = "unfinished (running recount)"
    elif hand.reason == "closed":
        how = f"closed by seat {hand.closed_by}"
    else:
        how = "stock exhausted"
    table = Table(title=f"hand {hand.hand}: {how}", title_justify="left", show_edge=False)
    table.add_column("RULES 7 item")
    for line in hand.detail:
        table.add_column(f"team {line.team}", justify="right")
    for item in _ITEMS:
        table.add_row(item.replace("_", " "), *(str(getattr(t, item)) for t in hand.detail))
    table.add_row("total (recount)", *(str(t.total) for t in hand.detail), style="bold")
    if hand.claimed is not None and hand.reason is None:
        # the replay stopped before this hand's end: the recount is partial, no difference shown
        table.add_row("claimed (end not replayed)", *(str(c) for c in hand.claimed))
    elif hand.claimed is not None:
        table.add_row("claimed", *(str(c) for c in hand.claimed))
        marks = [
            "ok" if c == r else f"{c - r:+d}"
            for c, r in zip(hand.claimed, hand.scores, strict=False)
        ]
        table.add_row("claimed - recount", *marks)
    return table


def _reproduce(result: Audit, seat: int | None, expect_head: str | None) -> str:
    """Return the one command that shows the finding again."""
    path = shlex.quote(result.report.path)
    finding = result.finding
    replayable = finding is not None and finding.problem.kind in ("illegal", "deal", "score")
    # `buraco replay` reads a log file or one log of an archive (`ARCHIVE.bza/NAME`)
    if finding is not None and replayable and finding.problem.seq > 0 and result.report.path:
        # `replay --at SEQ` shows the table after SEQ: the one before the bad event, and its error
        shown = _acting_seat(result, seat)
        where = f" --as {shown}" if shown is not None else ""
        return f"buraco replay {path} --at {finding.problem.seq - 1}{where}"
    head = f" --expect-head {expect_head}" if expect_head else ""
    return f"buraco audit {path}{head}"
