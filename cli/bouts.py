"""What `buraco match` and `buraco league` share: their options, and playing duplicate deals with
a progress bar counting games from the start, each failure told as one line naming the option at fault.

Exit codes: 0 played, 1 a bot that fails or a game that does not end, 2 a bad option or an output
folder that cannot be written.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypeVar

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from buraco_events.core.table import BotError, EndlessGame
from buraco_events.model.rules import UnknownVariant
from buraco_events.util.pool import default_workers

from .common import PROBLEMS, err, fail, import_bots_from_cwd

T = TypeVar("T")

Deals = Annotated[int, typer.Option(
    "--deals", min=1, max=100_000, metavar="N",
    help="deals per pair of bots, each played twice with the teams' seats swapped")]
Seed = Annotated[int, typer.Option("--seed", help="the deals' seed: the same seed, the same cards")]
Variant = Annotated[str, typer.Option("--variant", help="preset name or alias")]
Players = Annotated[int, typer.Option("--players", help="2 or 4")]
Workers = Annotated[int | None, typer.Option(
    "--workers", min=1, metavar="N",
    help="processes that play deals (default: the machine's cores); the result is the same whatever N")]
Json = Annotated[bool, typer.Option("--json", help="print the result as one JSON object")]

#: what a run is given: the workers, and what to call before the first game and after each (games
#: done, games in all)
Run = Callable[[int, Callable[[int, int], None]], T]


def play_deals(label: str, names: list[str], players: int, out_dir: Path, workers: int | None,
               run: Run[T]) -> T:
    """Check the options the two commands share, then `run` with a progress bar on a terminal;
    exit with one line on a bad option, a failing bot or a game that does not end."""
    if players not in (2, 4):
        fail(f"--players: Buraco is for 2 or 4 players, got {players}")
    if out_dir.exists() and not out_dir.is_dir():
        fail(f"--out: {out_dir} is not a folder")
    import_bots_from_cwd(names)
    progress = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TextColumn("games"),
                        TimeElapsedColumn(), console=err(), transient=True, disable=not sys.stderr.isatty())
    task = progress.add_task(label, total=None)

    def on_game(done: int, total: int) -> None:
        progress.update(task, completed=done, total=total)

    try:
        with progress:
            return run(workers or default_workers(), on_game)
    except OSError as exc:  # a log already there with other bytes too (`LogExistsError`)
        fail(f"--out: {exc}")
    except UnknownVariant as exc:
        fail(f"--variant: {exc}")
    except ValueError as exc:
        fail(f"--bots: {exc}")
    except EndlessGame as exc:
        fail(f"a game did not end (a bot bug; the deals before it are written): {exc}", PROBLEMS)
    except BotError as exc:
        fail(f"--bots: {exc}", PROBLEMS)
