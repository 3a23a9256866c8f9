"""`buraco audit PATH...`: the referee's verdict on game logs (format, chain, deal, legality, score).

Exit codes: 0 every log passes, 1 a problem in a log that was read (or in a rulings log read
beside it), 2 a path that cannot be read (missing, unreadable, not a log, a `--parent` or
`--rulings` file likewise) or a `--as` seat a game does not have. Log text (paths, game ids,
messages quoting a line) is shown through `visible`; the JSON is exact. The table of problems
shows the first `ROWS_SHOWN` and counts the rest, so a hostile file prints in bounded time.

A branch (a log holding a `branched` line) is audited as any log and named "branch of GAME at seq
N" in its verdict; `--parent` proves each log given against one parent log. A log file's rulings
log (`GAME.rulings.jsonl` beside it, or `--rulings`) is shown after the verdict, with the
standings after the rulings apart from the recount: the verdict is about the game log alone.
"""

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

from buraco_events.audit.auditor import ParentLog
from buraco_events.audit.files import AuditInputError, audit_path, read_parent_log
from buraco_events.audit.report import Audit, HandReport, headline
from buraco_events.audit.rulings import (
    RulingError,
    RulingsReport,
    RulingView,
    Standings,
    rulings_path,
    rulings_report,
)
from buraco_events.audit.verdicts import PLAY_KINDS
from buraco_events.log.archive import is_archive
from buraco_events.model.scoring import SHEET_ROWS
from buraco_events.play.branch import branch_words
from buraco_events.util.pool import default_workers
from buraco_events.util.text import plural, visible
from buraco_events.views.fit import print_fitted
from buraco_events.views.projections import player_view
from buraco_events.views.render import render_view
from buraco_events.views.text import hand_words

from . import pages
from .common import OK, PROBLEMS, UNREADABLE, err, error, os_reason, out

_HEX64 = re.compile(r"^[0-9a-fA-F]{64}$")
#: problem rows the human report shows; the rest are counted by kind
ROWS_SHOWN = 50

#: what each kind of finding breaks, in words (the rule itself comes with the message)
_BROKEN = {
    "format": "log format (docs/log-format.md): every line is one event of the contract",
    "integrity": "log format: seq counts 0, 1, 2... and prev is the SHA-256 of the previous line",
    "deal": "rules §1 and log format: a deal is exactly the variant's deck, and matches its commitment",
    "illegal": "the rules (docs/rules.md), as the engine checks them: this event may not come here",
    "score": "rules §7-8: the claimed score differs from the recount of the events",
    "unfinished": "log format: a complete log ends with game_ended (--partial audits a game in progress)",
    "branch": "log format, branches: a branch's lines up to its fork are its parent's, byte for byte",
}


def audit(
    paths: Annotated[list[Path], typer.Argument(
        help="log files (.jsonl), folders of logs (recursive) or archives", show_default=False)],
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object per log")] = False,
    expect_head: Annotated[str | None, typer.Option(
        "--expect-head", metavar="HEX",
        help="the published head (SHA-256 of the last line) each log must end with")] = None,
    as_seat: Annotated[str | None, typer.Option(
        "--as", metavar="SEAT",
        help="show the table from this seat, by index or player name (default: the seat that"
        " acted)")] = None,
    partial: Annotated[bool, typer.Option(
        "--partial",
        help="audit a game in progress: a log without game_ended passes as far as it goes")] = False,
    html: Annotated[Path | None, typer.Option(
        "--html", metavar="FILE.html",
        help="also write the referee's report of one log as a page (buraco share)")] = None,
    force: Annotated[bool, typer.Option("--force", help="let --html replace an existing file")] = False,
    workers: Annotated[int | None, typer.Option(
        "--workers", min=1, metavar="N",
        help="processes that audit logs, this one among them (default: the machine's cores); the "
        "report is the same whatever N")] = None,
    parent: Annotated[Path | None, typer.Option(
        "--parent", metavar="PARENT",
        help="prove each log against this parent log (a file or ARCHIVE.bza/NAME): a branch's "
        "lines up to its fork must be the parent's byte for byte, a log without a branched line "
        "must be the parent or its first lines; exit 1 where not, 2 if PARENT cannot be read")] = None,
    rulings: Annotated[Path | None, typer.Option(
        "--rulings", metavar="FILE",
        help="the rulings log to show beside the verdict of the one log file given (default: "
        "GAME.rulings.jsonl beside each log file, when there is one)")] = None,
) -> None:
    """Check game logs for format, hash chain, deals, legal play and scores; exit 1 on any problem.

    A log that does not end with game_ended is unfinished, a problem unless --partial is given.
    A branch is named "branch of GAME at seq N"; --parent proves its prefix is the parent's.
    Rulings are shown beside the verdict, with the standings after them apart from the recount;
    they never change the verdict (exit 1 if a rulings log does not read to its end).
    """
    if expect_head is not None:
        if not _HEX64.match(expect_head):
            error("--expect-head needs 64 hex digits")
            raise typer.Exit(UNREADABLE)
        expect_head = expect_head.lower()
    if rulings is not None:
        if len(paths) != 1 or not paths[0].is_file() or is_archive(paths[0]):
            error("--rulings: names the rulings log of one log file: give one log file (without"
                  " --rulings, each log file's GAME.rulings.jsonl is shown)")
            raise typer.Exit(UNREADABLE)
        if not rulings.is_file():
            error(f"--rulings: {rulings}: cannot read: no such file or folder")
            raise typer.Exit(UNREADABLE)
    parent_log: ParentLog | None = None
    if parent is not None:
        try:
            parent_log = read_parent_log(parent)
        except AuditInputError as exc:
            error(str(exc))
            raise typer.Exit(UNREADABLE) from None
    if html is not None:
        pages.audit_page(html, paths, expect_head, force, parent_log, rulings)
    n_workers = workers or default_workers()
    # one log file: one pretty object; folders, archives, several paths: one compact line per log
    pretty = len(paths) == 1 and paths[0].is_file() and not is_archive(paths[0])
    unreadable = troubled = False
    audited = failed = unread = 0
    damages: list[str] = []
    for path in paths:
        try:
            for result in audit_path(path, expect_head, partial, n_workers, parent_log):
                if result.not_a_log is not None:
                    error(result.not_a_log)
                    unreadable = True
                    continue
                seat, wrong = _seat_of(as_seat, result)
                if wrong is not None:
                    error(f"{result.report.path}: --as {as_seat}: {wrong}")
                    unreadable = True
                    continue
                audited += 1
                failed += not result.report.ok
                beside, code = _rulings_of(result, rulings)
                detail = pretty or not result.report.ok
                if as_json:
                    _print_json(result, beside, pretty)
                else:
                    _print_report(result, seat, expect_head, detail=detail)
                    if beside is not None:
                        _print_rulings(beside, detail)
                if beside is not None and beside.problem is not None:
                    error(beside.problem)  # after the verdict, which stands
                    troubled = True
                unreadable |= code == UNREADABLE
        except AuditInputError as exc:
            error(str(exc))
            unreadable = True
            unread += exc.unread  # the logs of a damaged archive from the damage on
            damages += [exc.damage] if exc.damage else []
    if audited + unread > 1 or damages:  # the verdict over many logs, where the lines scroll away
        tally = f"{audited} logs audited: {audited - failed} pass, {failed} fail"
        if damages:
            tally += f", {unread} unreadable ({'; '.join(damages)})"
        err().print(tally, markup=False)
    raise typer.Exit(UNREADABLE if unreadable else PROBLEMS if failed or troubled else OK)


def _rulings_of(result: Audit, rulings: Path | None) -> tuple[RulingsReport | None, int]:
    """Return the rulings beside an audited log file (`--rulings`, else its own rulings log when
    there is one) and an exit code: OK, or UNREADABLE after a one-line error when the rulings log
    or the game log cannot be read for them. Logs in archives have no rulings log beside them."""
    log = Path(result.report.path)
    if rulings is None and not (log.is_file() and rulings_path(log).is_file()):
        return None, OK
    try:
        return rulings_report(log, rulings_file=rulings), OK
    except RulingError as exc:
        error(f"rulings: {exc}")
        return None, UNREADABLE
    except OSError as exc:
        error(f"{exc.filename or log}: rulings: cannot read: {os_reason(exc)}")
        return None, UNREADABLE


def _print_json(result: Audit, beside: RulingsReport | None, pretty: bool) -> None:
    """Print the report as JSON (`AuditReport`), and `rulings` (a `RulingsReport`) when a
    rulings log was read beside the log: like `branch` and `parent`, the key is there only when
    it holds something, so a game without them reads exactly as the report page embeds it."""
    obj = msgspec.to_builtins(result.report)
    if beside is not None:
        obj["rulings"] = msgspec.to_builtins(beside)
    data = msgspec.json.encode(obj)
    if pretty:
        data = msgspec.json.format(data, indent=2)
    sys.stdout.write(data.decode() + "\n")


# -- the referee's report ---------------------------------------------------------------------


def _seat_of(text: str | None, result: Audit) -> tuple[int | None, str | None]:
    """Return the seat `--as` names in this log's game (an index or a player's name, as `replay`
    takes it) and why it names none (None when it does).

    The players' names are known where the report shows a table (the finding's); a log without a
    finding shows no seat's view, so a name there is not looked up.
    """
    if text is None:
        return None, None
    n = result.n_players
    players = result.finding.state.players if result.finding is not None else ()
    if text in players:
        return players.index(text), None
    if text.isdigit() and (n <= 0 or int(text) < n):
        return int(text), None
    if not text.isdigit() and result.finding is None:
        return None, None
    names = f": {', '.join(players)}" if players else ""
    what = f"no seat {text}" if text.isdigit() else "no such player"
    return None, f"{what} in this {n}-player game (seats 0..{n - 1}{names})"


def _print_report(result: Audit, seat: int | None, expect_head: str | None, detail: bool) -> None:
    """Print the verdict line, then (when `detail`) problems, first finding, score sheets, command."""
    console = out()
    rep = result.report
    console.print(_verdict(result), soft_wrap=True)  # one line, whatever the width
    if not detail:
        return
    branch = rep.branch
    if result.branched is not None and branch is not None:
        words = branch_words(rep.game_id or branch.parent, result.branched)
        console.print(Text(visible(
            f"{words}: a what-if, not the game (its branched line, seq {branch.seq}: by"
            f" {branch.by!r}, {branch.reason!r}; deck {branch.deck}, seed {branch.seed!r}); this"
            " verdict is about the branch"), style="bold"), soft_wrap=True)
    if rep.problems:
        table = Table(title="problems", title_justify="left", show_edge=False)
        for col in ("seq", "kind", "message"):
            table.add_column(col)
        for p in rep.problems[:ROWS_SHOWN]:
            table.add_row(str(p.seq), p.kind, Text(visible(p.message)))
        print_fitted(console, table)
        more = rep.problems_total - min(len(rep.problems), ROWS_SHOWN)
        if more:
            console.print(Text(f"… and {more:,} more problems ({_kinds(result)} in all;"
                               f" --json lists the first {len(rep.problems)})"), soft_wrap=True)
    if result.finding is not None:
        _print_finding(result, seat)
    for hand in rep.hands:
        print_fitted(console, _score_sheet(hand))
    if not rep.ok:
        console.print(Text("reproduce: ") + Text(visible(_reproduce(result, seat, expect_head)), style="bold"))


def _kinds(result: Audit) -> str:
    """Return the count of problems of each kind, in words (`format 999,999, unfinished 1`)."""
    return ", ".join(f"{kind} {n:,}" for kind, n in sorted(result.kind_counts.items()) if n)


def _verdict(result: Audit) -> Text:
    """Return the one-line verdict: PASS, PASS (partial...) of an unfinished game, or FAIL."""
    rep = result.report
    failing = [p for p in rep.problems if p.kind != "unsealed"]
    n_failing = rep.problems_total - result.kind_counts.get("unsealed", 0)
    seal = f"sealed, head {rep.head[:12]}…" if rep.sealed and rep.head else "UNSEALED"
    if result.branched is not None:  # a branch is never named as the game
        name = branch_words(rep.game_id or result.branched.parent, result.branched)
    else:
        name = f"game {rep.game_id or '?'}"
    facts = [visible(name), plural(rep.events, "event"), plural(len(rep.hands), "hand"),
             "complete" if rep.complete else "unfinished", seal]
    if rep.parent is not None and not result.kind_counts.get("branch"):
        proved = "lines up to the fork" if rep.branch is not None else "lines"
        facts.append(f"{proved} are {visible(rep.parent)}'s")
    first = headline(rep)
    if failing and first is not None:
        facts.append(f"{plural(n_failing, 'problem')}, first: {first}")
    if not rep.ok:
        word = ("FAIL", "bold red")
    elif rep.complete:
        word = ("PASS", "bold green")
    else:  # --partial: never a plain PASS of the whole game
        done = sum(h.reason is not None for h in rep.hands)
        word = (f"PASS (partial, {done} hand{'' if done == 1 else 's'} so far)", "bold yellow")
    return Text.assemble(word, " ", visible(rep.path), "  (" + ", ".join(facts) + ")")


def _acting_seat(result: Audit, seat: int | None) -> int | None:
    """Return the seat whose view shows the finding: `--as` (checked against the game), else the
    seat that acted."""
    finding = result.finding
    if seat is not None:
        return seat
    return finding.seat if finding is not None else None


def _print_finding(result: Audit, seat: int | None) -> None:
    finding = result.finding
    assert finding is not None
    console = out()
    shown = _acting_seat(result, seat)
    p = finding.problem
    rep = result.report
    who = f"seat {shown}" if shown is not None else "the referee"
    # a finding is the edit's when the line it rests on is the edited one or comes after it
    edited = rep.changed is not None and finding.rests_on >= rep.changed
    if rep.changed is not None and rep.first is not None:
        console.print(Text(visible(headline(rep) or ""), style="bold"))
        what = ("first bad event" if not edited else
                "first finding, on the edited line" if finding.rests_on == rep.changed else
                "first finding, after the edited line")
    elif not rep.sealed and p.kind in PLAY_KINDS:
        console.print(Text("the log is unsealed: nothing tells an edit of the file from a play",
                           style="bold"))
        what = "first bad event"
    else:
        what = "first bad event"
    console.print(Text(f"{what}: seq {p.seq} ({p.kind}); the table just before it, seen by {who}:",
                       style="bold"))
    if finding.state.n_players:
        console.print(render_view(player_view(finding.state, shown)))
    raw = finding.line[:400].decode("utf-8", errors="replace")
    console.print(Text("  event: " + visible(raw) + ("…" if len(finding.line) > 400 else "")))
    label = "  what the edited file shows: " if edited else "  rule broken: "
    console.print(Text(label + visible(p.message), style="bold"))
    if edited:
        console.print(Text("  (log format: a line the chain shows changed is no player's move;"
                           " the rule is not judged on it)"))
    else:
        console.print(Text("  (" + _BROKEN[p.kind] + ")"))


def _score_sheet(hand: HandReport) -> Table:
    if hand.reason is None:
        how = "unfinished (running recount)"
    elif hand.reason == "closed":
        how = f"closed by seat {hand.closed_by}"
    else:
        how = "stock exhausted"
    table = Table(title=f"{hand_words(hand.hand)}: {how}", title_justify="left", show_edge=False)
    table.add_column("RULES 7 item")
    for line in hand.detail:
        table.add_column(f"team {line.team}", justify="right")
    for item, name in SHEET_ROWS:
        table.add_row(name, *(str(getattr(t, item)) for t in hand.detail))
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
    parent = f" --parent {shlex.quote(result.report.parent)}" if result.report.parent else ""
    return f"buraco audit {path}{head}{parent}"


# -- rulings beside the verdict -------------------------------------------------------------------


def _ruling_kind(view: RulingView) -> str:
    """Return a ruling's kind with what it gives (points, the team awarded, the branch, the
    ruling withdrawn)."""
    if view.kind == "score_adjusted" and view.points is not None:
        return f"score_adjusted {', '.join(f'{p:+d}' for p in view.points)}"
    if view.kind == "game_awarded" and view.team is not None:
        return f"game_awarded to team {view.team}"
    if view.kind == "replay_from" and view.branch_head is not None:
        return f"replay_from branch {view.branch_head[:12]}…"
    if view.kind == "withdrawn" and view.ruling_seq is not None:
        return f"withdrawn ruling {view.ruling_seq}"
    return view.kind


def _standings(standings: Standings) -> str:
    """Return standings in words: the totals per team and the winner."""
    totals = ", ".join(f"team {t} {n}" for t, n in enumerate(standings.totals))
    if standings.winner is None:
        winner = "no winner (not decided)"
    else:
        winner = f"winner team {standings.winner}" + (" (awarded)" if standings.awarded else "")
    return f"totals {totals}; {winner}"


#: how a ruling that no longer binds the game log says why (`rulings._why_not`)
_UNBOUND = ("the game log changed", "the game log has no line")


def _print_rulings(report: RulingsReport, detail: bool) -> None:
    """Print a log's rulings after its verdict: a table of them (whether each applies, and why
    not), then the standings after them, apart from the recount (one line when not `detail`)."""
    console = out()
    where = visible(report.path)
    n = len(report.rulings)
    after = f"standings after rulings: {_standings(report.after)}"
    unbound = sum(1 for v in report.rulings if (v.why_not or "").startswith(_UNBOUND))
    if not detail:
        stale = f" ({unbound} no longer bind: the game log changed)" if unbound else ""
        console.print(Text(f"  rulings ({where}): {n} ruling{'' if n == 1 else 's'},"
                           f" {report.applied} apply{stale}; {after}"), soft_wrap=True)
        return
    if not n:
        console.print(Text(f"rulings ({where}): none reads"), soft_wrap=True)
        return
    table = Table(title=f"rulings ({where}): beside the verdict, which they never change",
                  title_justify="left", show_edge=False)
    for col in ("seq", "kind", "hand", "by", "reason", "applies"):
        table.add_column(col)
    for view in report.rulings[:ROWS_SHOWN]:
        applies = "yes" if view.applies else f"no: {view.why_not}"
        table.add_row(str(view.seq), Text(visible(_ruling_kind(view))),
                      "-" if view.hand is None else str(view.hand + 1), Text(visible(view.by)),
                      Text(visible(view.reason)), Text(visible(applies)))
    print_fitted(console, table)
    if n > ROWS_SHOWN:
        console.print(Text(f"… and {n - ROWS_SHOWN:,} more rulings (--json lists them all)"))
    if unbound:
        console.print(Text(f"{unbound} of {n} rulings no longer bind this log: the game log changed"
                           " after they were made, so they do not apply"), style="bold", soft_wrap=True)
    console.print(Text(f"recount (the events): {_standings(report.recount)}"), soft_wrap=True)
    console.print(Text(f"{after} ({report.applied} of {n} apply; apart from the recount)"),
                  soft_wrap=True)
