"""`buraco match --bots A,B --deals N`: a duplicate match between two bots (`play.match`).

Exit codes: 0 played, 1 a bot that fails or a game that does not end, 2 a bad option or an output
folder that cannot be written.
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

from buraco_events.core.table import BotError, EndlessGame
from buraco_events.log.writer import LogExistsError
from buraco_events.model.rules import UnknownVariant
from buraco_events.play.match import MatchResult, match
from buraco_events.util.pool import default_workers
from buraco_events.views.text import visible

from .common import PROBLEMS, err, fail, import_bots_from_cwd, out

#: the deals the text lists one by one (`--json` has them all)
ROWS_SHOWN = 20


def match_cmd(
    bots: Annotated[str, typer.Option(
        "--bots", metavar="A,B",
        help="the two bots: greedy, random, expert, expert:samples=N or module:Class")],
    deals: Annotated[int, typer.Option("--deals", min=1, max=100_000, metavar="N",
                                       help="deals, each played twice with the teams' seats swapped")] = 20,
    seed: Annotated[int, typer.Option("--seed", help="the deals' seed: the same seed, the same cards")] = 0,
    variant: Annotated[str, typer.Option("--variant", help="preset name or alias")] = "stbl",
    players: Annotated[int, typer.Option("--players", help="2 or 4")] = 2,
    out_dir: Annotated[Path, typer.Option("--out", help="folder for every game's log (created)")] = Path("match"),
    workers: Annotated[int | None, typer.Option(
        "--workers", min=1, metavar="N",
        help="processes that play deals (default: the machine's cores); the match is the same whatever N")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the match as one JSON object")] = False,
) -> None:
    """Play a duplicate match: every deal twice, the same cards for both bots with the teams' seats
    swapped, so the luck of the deal cancels; print each bot's total and the per-deal differences
    with a 95% confidence interval."""
    names = [n.strip() for n in bots.split(",")]
    if len(names) != 2 or not all(names):
        fail(f"--bots: give two bots, A,B (got {bots!r})")
    if players not in (2, 4):
        fail(f"--players: Buraco is for 2 or 4 players, got {players}")
    if out_dir.exists() and not out_dir.is_dir():
        fail(f"--out: {out_dir} is not a folder")
    import_bots_from_cwd(names)
    progress = Progress(TextColumn("match"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=err(), transient=True, disable=not sys.stderr.isatty())
    task = progress.add_task("match", total=deals)

    def on_deal(done: int, total: int) -> None:
        progress.update(task, completed=done)

    try:
        with progress:
            result = match(out_dir, names, deals, seed, variant, players, workers or default_workers(), on_deal)
    except (OSError, LogExistsError) as exc:
        fail(f"--out: {exc}")
    except UnknownVariant as exc:
        fail(f"--variant: {exc}")
    except ValueError as exc:
        fail(f"--bots: {exc}")
    except EndlessGame as exc:
        fail(f"a game did not end (a bot bug; the deals before it are written): {exc}", PROBLEMS)
    except BotError as exc:
        fail(f"--bots: {exc}", PROBLEMS)
    if as_json:
        sys.stdout.write(msgspec.json.encode(result).decode() + "\n")
        return
    _print(result)


def _print(m: MatchResult) -> None:
    console = out()
    a, b = (visible(n) for n in m.bots)
    console.print(Text(f"duplicate match, {len(m.deals)} deals of {m.variant}, {m.players} players, seed {m.seed}: "
                       f"{a} against {b}", style="bold"), soft_wrap=True)
    table = Table(show_edge=False)
    for col in ("deal", f"{a} as team 0", f"{a} as team 1", "difference"):
        table.add_column(col, justify="right")
    for d in m.deals[:ROWS_SHOWN]:
        table.add_row(str(d.deal + 1), f"{d.a_team0:+d}", f"{d.a_team1:+d}", f"{d.diff:+d}")
    console.print(table)
    if len(m.deals) > ROWS_SHOWN:
        console.print(f"… and {len(m.deals) - ROWS_SHOWN} more deals (--json lists them all)")
    console.print(f"totals: {a} {m.totals[0]}, {b} {m.totals[1]}")
    if m.ci95 is None:
        console.print(f"{a} minus {b}: {m.mean_diff:+g} points a deal (one deal: no confidence interval)")
    else:
        lo, hi = m.ci95
        verdict = (f"{a} is stronger" if lo > 0 else f"{b} is stronger" if hi < 0
                   else "no difference shown at 95%: play more deals")
        console.print(f"{a} minus {b}: {m.mean_diff:+g} points a deal, 95% interval [{lo:+g}, {hi:+g}]: {verdict}",
                      soft_wrap=True)
    console.print(f"logs: {visible(m.out)} ({2 * len(m.deals)} games)")


__all__ = ["match_cmd"]
