"""`buraco branch`, `buraco compare` and `buraco rule`: what-if branches and referees' rulings.

A branch is a new log that shares its parent's lines up to the fork byte for byte, then says
`branched` and plays on (`play.branch`); `compare` sets it beside its parent. A ruling is a line
of the game's rulings log, never an edit of the game log (`audit.rulings`).

Exit codes: 0 done, 1 a problem in what was read (a parent not legal up to the fork, an illegal
scripted move, a ruling that does not fit the game, logs that are not parent and branch), 2 input
that cannot be read or a bad option (an existing output is never replaced).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import msgspec
import typer
from rich.table import Table
from rich.text import Text

from buraco_events.audit.rulings import (
    RulingError,
    RulingRequest,
    RulingsReport,
    append_ruling,
    new_ruling,
    rulings_report,
)
from buraco_events.core.choices import Action
from buraco_events.log.lines import LogError, LogExistsError
from buraco_events.log.sources import open_source
from buraco_events.model.events import RULING_KINDS, Branched, branch_words
from buraco_events.play.branch import UNTIL, BranchError, make_branch
from buraco_events.play.commands import CommandError, parse_command
from buraco_events.util.text import plural, visible
from buraco_events.views.compare import CompareError, Comparison, compare_logs, move_words
from buraco_events.views.fit import print_fitted
from buraco_events.views.text import hand_words

from .common import PROBLEMS, UNREADABLE, SeatBots, fail, import_bots_from_cwd, os_reason, out

#: runs of differing events the text shows, and events per side of a run (--json has them all)
RUNS_SHOWN = 5
EVENTS_SHOWN = 4


#: who a branch is by when `--by` is not given: the role, never the login name (a log travels)
DEFAULT_BY = "analysis"


def _moves(play: str | None) -> list[Action]:
    """Return the scripted moves of `--play` ("pile; meld 5H 6H 7H; discard 9C")."""
    moves: list[Action] = []
    for i, text in enumerate((play or "").split(";"), 1):
        if not text.strip():
            continue
        try:
            parsed = parse_command(text)
        except CommandError as exc:
            fail(f"--play: move {i} ({text.strip()}): {exc}", UNREADABLE)
        if not isinstance(parsed, Action):
            fail(f"--play: move {i} ({text.strip()}): not a move (draw, pile, meld, add, discard)", UNREADABLE)
        moves.append(parsed)
    return moves


def branch(
    log: Annotated[Path, typer.Argument(
        help="the parent: a game log (.jsonl) or ARCHIVE.bza/NAME.jsonl", show_default=False)],
    at: Annotated[int, typer.Option("--at", metavar="SEQ", min=0,
                                    help="fork after this seq: the branch keeps the parent's lines 0..SEQ")],
    output: Annotated[Path, typer.Option("-o", "--output", metavar="BRANCH.jsonl",
                                         help="the branch log to write (never replaced)", show_default=False)],
    play: Annotated[str | None, typer.Option(
        "--play", metavar="MOVES",
        help="moves played first, by whoever is to move, in the words of buraco play, split by ';': "
        "\"pile; meld 5H 6H 7H; discard 9C\"")] = None,
    bots: SeatBots = "greedy",
    until: Annotated[str, typer.Option(
        "--until", help="play on to the end of the hand in play at the fork (hand), to the end of the game "
        "(game), or stop after the scripted moves (moves; continue by hand with buraco play --resume)")] = "hand",
    seed: Annotated[str, typer.Option(
        "--seed", help="deals the hands the parent never dealt and the bots' choices (written in the "
        "branched line)")] = "1",
    by: Annotated[str | None, typer.Option("--by", metavar="NAME", help=f"whose what-if it is: a name or a role, written in the branch (default: {DEFAULT_BY})",
                                           show_default=False)] = None,
    reason: Annotated[str | None, typer.Option("--reason", metavar="TEXT", help="why (default: what if, and the moves)",
                                               show_default=False)] = None,
    as_seat: Annotated[int | None, typer.Option(
        "--as", metavar="SEAT", min=0, max=3,
        help="a fair what-if for this seat: the cards it could not see at the fork are dealt again at "
        "random from --seed (deck redealt), and later hands too")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the result as one JSON object")] = False,
) -> None:
    """Fork a game at any seq and play it on: a new log, the parent's lines up to SEQ byte for byte,
    then a branched line, then the branch's own moves.

    The deck stays the parent's: the stock, the deads and any later hand the parent dealt come as the
    parent recorded them; a hand the parent never reached is dealt from --seed. With --as SEAT, what
    that seat could not see is dealt again instead (a fair what-if: no knowledge it did not have).
    """
    if until not in UNTIL:
        fail(f"--until: choose from {', '.join(UNTIL)}, got {until!r}", UNREADABLE)
    if output.exists():
        fail(f"{output}: exists; a log is never replaced (choose another -o)", UNREADABLE)
    moves = _moves(play)
    names = [b.strip() for b in bots.split(",") if b.strip()]
    import_bots_from_cwd(names)
    words = reason if reason is not None else ("what if: " + play.strip() if play and play.strip() else "what if")
    try:
        result = make_branch(log, at, output, moves=moves, bots=names, until=until,  # type: ignore[arg-type]
                             by=by if by is not None else DEFAULT_BY, reason=words, seed=seed, seat=as_seat)
    except BranchError as exc:
        fail(str(exc), exc.exit_code)
    except LogExistsError as exc:
        fail(str(exc), UNREADABLE)
    state = result.state
    label = branch_words(state.game_id, result.branched)
    played = result.events - result.fork_seq - 2
    if as_json:
        doc = {
            "path": str(result.path), "head": result.head, "game_id": state.game_id, "fork_seq": result.fork_seq,
            "branched": msgspec.to_builtins(result.branched), "events": result.events, "played": played,
            "hands": [[s.total for s in r] for r in state.hand_results], "totals": list(state.totals),
            "winner": state.winner if state.phase == "over" else None, "complete": state.phase == "over",
        }
        sys.stdout.write(msgspec.json.encode(doc).decode() + "\n")
        return
    if state.phase == "over":
        result_words = "a tie" if state.winner is None else f"team {state.winner} wins"
        where = f"game over: totals {' / '.join(map(str, state.totals))}, {result_words}"
    else:
        where = f"stopped at seq {state.next_seq - 1} ({hand_words(state.hand_no)}, {state.phase}); continue it with " \
                f"buraco play --resume {visible(str(output))} --parent {visible(str(log))}"
    console = out()
    console.print(Text(f"{visible(str(output))}: {visible(label)}, {played} events after the fork; {where}"),
                  soft_wrap=True)
    console.print(Text(f"head {result.head}; compare: buraco compare {visible(str(log))} {visible(str(output))}"),
                  soft_wrap=True)


def _lines(path: Path) -> list[bytes]:
    try:
        return list(open_source(path))
    except LogError as exc:  # a torn last line, or no whole line
        fail(str(exc), UNREADABLE)
    except OSError as exc:
        fail(f"{path}: cannot read: {os_reason(exc)}", UNREADABLE)
    except ValueError as exc:  # a damaged archive
        fail(f"{path}: {exc}", UNREADABLE)


def compare(
    parent: Annotated[Path, typer.Argument(help="the parent log", show_default=False)],
    branch_log: Annotated[Path, typer.Argument(metavar="BRANCH", help="a branch of it", show_default=False)],
    as_json: Annotated[bool, typer.Option("--json", help="print the comparison as one JSON object")] = False,
) -> None:
    """Set a branch beside its parent: where they part, each hand's totals side by side, the
    standings, and the events that differ after the fork."""
    try:
        result = compare_logs(_lines(parent), _lines(branch_log), str(parent), str(branch_log))
    except CompareError as exc:
        fail(str(exc), PROBLEMS)
    if as_json:
        sys.stdout.write(msgspec.json.encode(result).decode() + "\n")
        return
    _print_comparison(result, move_words(_lines(parent)), move_words(_lines(branch_log)))


def _pair(scores: list[int] | None) -> str:
    return "-" if scores is None else " / ".join(map(str, scores))


def _winner(side_winner: int | None, complete: bool) -> str:
    # a complete game without a winner is a tie (`hands_per_game`, docs/rules.md section 8)
    return f"team {side_winner}" if side_winner is not None else ("a tie" if complete else "not over")


def _print_comparison(c: Comparison, parent_words: Callable[[str], str], branch_words_of: Callable[[str], str]) -> None:
    """Print a comparison; the events that differ in the move list's words (`*_words`)."""
    console = out()
    by = c.branched.get("by", "")
    why = c.branched.get("reason", "")
    console.print(Text(f"{visible(c.branch.path)}: {visible(branch_words(c.branch.game_id, _fork(c)))}"
                       f" (by {visible(str(by))}: {visible(str(why))})", style="bold"), soft_wrap=True)
    console.print(Text(f"they part after seq {c.fork_seq}: {c.fork_seq + 1} lines shared byte for byte; "
                       f"the parent has {c.parent.events - c.fork_seq - 1} events after it, the branch "
                       f"{c.branch.events - c.fork_seq - 2} (after its branched line)"), soft_wrap=True)
    table = Table(title="hands (recounted)", title_justify="left", show_edge=False)
    for col in ("hand", "parent", "branch", "branch - parent"):
        table.add_column(col, justify="right")
    for row in c.hands:
        diff = "-" if row.parent is None or row.branch is None else \
            " / ".join(f"{b - a:+d}" for a, b in zip(row.parent, row.branch, strict=False))
        table.add_row(str(row.hand + 1), _pair(row.parent), _pair(row.branch), diff)  # counted from 1
    table.add_row("total", _pair(c.parent.totals), _pair(c.branch.totals),
                  " / ".join(f"{b - a:+d}" for a, b in zip(c.parent.totals, c.branch.totals, strict=False)),
                  style="bold")
    table.add_row("winner", _winner(c.parent.winner, c.parent.complete), _winner(c.branch.winner, c.branch.complete), "")
    print_fitted(console, table)
    if not c.compared:
        console.print("the logs are too long after the fork to compare event by event")
    elif not c.differences:
        console.print("after the fork the branch plays exactly as the parent did")
    else:
        console.print(Text(f"events that differ after the fork: {c.differing_events} in "
                           f"{plural(len(c.differences), 'run')}", style="bold"))
        for block in c.differences[:RUNS_SHOWN]:
            for title, seqs, lines, words in (("parent", block.parent_seqs, block.parent_events, parent_words),
                                              ("branch", block.branch_seqs, block.branch_events, branch_words_of)):
                span = "nothing" if seqs is None else f"seq {seqs[0]}" if seqs[0] == seqs[1] else f"seqs {seqs[0]}..{seqs[1]}"
                console.print(Text(f"  {title}: {span}"))
                for line in lines[:EVENTS_SHOWN]:
                    console.print(Text("    " + visible(words(line))), soft_wrap=True)
                hidden = 0 if seqs is None else seqs[1] - seqs[0] + 1 - min(len(lines), EVENTS_SHOWN)
                if hidden > 0:
                    console.print(Text(f"    … {hidden} more"))
        if len(c.differences) > RUNS_SHOWN:
            console.print(Text(f"… and {len(c.differences) - RUNS_SHOWN} more runs (--json lists them all)"))


def _fork(c: Comparison) -> Branched:
    return msgspec.convert({**c.branched, "seq": c.fork_seq + 1}, Branched)


def _points(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        return [int(p) for p in text.split(",")]
    except ValueError:
        fail(f"--points: give one whole number per team, comma-separated (e.g. -100,50), got {text!r}", UNREADABLE)


def rule(
    log: Annotated[Path, typer.Argument(help="the game log the ruling is about", show_default=False)],
    kind: Annotated[str, typer.Option("--kind", help=f"what is decided: {', '.join(RULING_KINDS)}")],
    reason: Annotated[str, typer.Option("--reason", metavar="TEXT", help="why, in words")],
    by: Annotated[str, typer.Option("--by", metavar="NAME", help="the referee")],
    hand: Annotated[int | None, typer.Option(
        "--hand", metavar="N",
        help="the hand ruled on, counted from 1 (score_adjusted, hand_voided; optional for a warning)")] = None,
    points: Annotated[str | None, typer.Option(
        "--points", metavar="A,B", help="score_adjusted: points added to each team's total for the hand")] = None,
    team: Annotated[int | None, typer.Option("--team", min=0, max=1, help="game_awarded: the team that wins")] = None,
    branch_log: Annotated[Path | None, typer.Option(
        "--branch", metavar="BRANCH.jsonl", help="replay_from: the branch the game continues as (bound by its head)")] = None,
    ruling_seq: Annotated[int | None, typer.Option(
        "--ruling-seq", metavar="SEQ", min=0, help="withdrawn: the seq of the ruling withdrawn")] = None,
    rulings: Annotated[Path | None, typer.Option(
        "--rulings", metavar="FILE", help="the rulings log (default: GAME.rulings.jsonl beside GAME.jsonl)",
        show_default=False)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the ruling and the standings as one JSON object")] = False,
) -> None:
    """Record a referee's ruling on a game: one line appended to its rulings log, binding the game
    log as it is now; the game log itself is never changed."""
    if kind not in RULING_KINDS:
        fail(f"--kind: choose from {', '.join(RULING_KINDS)}, got {kind!r}", UNREADABLE)
    if hand is not None and hand < 1:
        fail(f"--hand {hand}: hands are counted from 1", 2)
    request = RulingRequest(kind, by, reason, hand=None if hand is None else hand - 1, points=_points(points), team=team, branch=branch_log,
                            ruling_seq=ruling_seq)
    try:
        ruling, path = new_ruling(log, request, rulings)
        line = append_ruling(path, ruling)
        report = rulings_report(log, rulings_file=path)
    except RulingError as exc:
        fail(str(exc), exc.exit_code)
    except LogError as exc:
        fail(str(exc), PROBLEMS)
    except OSError as exc:
        fail(f"{exc.filename or path}: cannot write: {exc.strerror or exc}", UNREADABLE)
    assert report is not None
    if as_json:
        doc = {"ruling": msgspec.json.decode(line), "rulings_log": str(path), "report": msgspec.to_builtins(report)}
        sys.stdout.write(msgspec.json.encode(doc).decode() + "\n")
        return
    console = out()
    what = f"{ruling.kind}" + (f" on {hand_words(ruling.hand)}" if ruling.hand is not None else "")
    console.print(Text(f"ruling {ruling.seq} ({visible(what)}) appended to {visible(str(path))}; it binds "
                       f"{visible(str(log))} at seq {ruling.game_seq} (line hash {ruling.game_head[:12]}…)"),
                  soft_wrap=True)
    print_standings(report)


def print_standings(report: RulingsReport) -> None:
    """Print the recounted standings and, apart, the standings after the rulings that apply."""
    console = out()
    table = Table(title="standings", title_justify="left", show_edge=False)
    for col in ("", "team 0", "team 1", "winner"):
        table.add_column(col, justify="right")
    for title, s in (("recount (the log)", report.recount), ("after rulings", report.after)):
        winner = f"team {s.winner}" + (" (awarded)" if s.awarded else "") if s.winner is not None else "not decided"
        table.add_row(title, *(str(t) for t in s.totals), winner)
    print_fitted(console, table)
    skipped = [r for r in report.rulings if not r.applies]
    for r in skipped:
        console.print(Text(f"ruling {r.seq} ({r.kind}) does not apply: {visible(r.why_not or '')}"), soft_wrap=True)
    console.print(Text(f"{report.applied} of {plural(len(report.rulings), 'ruling')} "
                       f"{'applies' if report.applied == 1 else 'apply'}"))


__all__ = ["branch", "compare", "print_standings", "rule"]
