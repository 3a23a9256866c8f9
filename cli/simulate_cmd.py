"""`buraco simulate`: play seeded bot games into a folder of sealed logs and summarise them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import msgspec
import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from buraco_events.core.table import BotError, EndlessGame
from buraco_events.model.rules import UnknownVariant, canonical_variant
from buraco_events.play.sim import Summary, seat_bots
from buraco_events.play.sim import simulate as run_simulation
from buraco_events.util.pool import default_workers
from buraco_events.views.fit import print_fitted

from .common import RulesOption, SeatBots, err, fail, import_bots_from_cwd, out, rule_overrides


def simulate(
    out_dir: Annotated[Path, typer.Option("--out", help="folder for the game logs (created)")],
    games: Annotated[int, typer.Option("--games", help="number of games")] = 100,
    variant: Annotated[str, typer.Option("--variant", help="preset name or alias")] = "stbl",
    players: Annotated[int, typer.Option("--players", help="2 or 4")] = 2,
    seed: Annotated[int, typer.Option("--seed", help="run seed: same seed, same logs")] = 0,
    bots: SeatBots = "greedy",
    workers: Annotated[int | None, typer.Option(
        "--workers", metavar="N",
        help="worker processes (default: the machine's cores); the logs are the same whatever N")] = None,
    target: Annotated[int | None, typer.Option(
        "--target", help="match target (0 = one hand); default: the preset's"
    )] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the summary as JSON")] = False,
    commit: Annotated[bool, typer.Option(
        "--commit", help="commit every deal (its hand_ended reveals the salt; buraco audit checks it); "
        "the salts come from the seed, so the bytes stay reproducible"
    )] = False,
    rules: RulesOption = None,
) -> None:
    """Play bot games, write one sealed log per game into --out, and print a summary."""
    try:
        canonical_variant(variant)
    except UnknownVariant as exc:
        fail(str(exc))
    overrides = rule_overrides(rules, variant)
    if players not in (2, 4):
        fail(f"--players: Buraco is for 2 or 4 players, got {players}")
    if workers is None:
        workers = default_workers()
    if games < 0 or workers < 1 or (target is not None and target < 0):
        fail("--games and --target must be >= 0, --workers >= 1")
    import_bots_from_cwd(bots.split(","))
    try:
        seat_bots(bots.split(","), players)
    except ValueError as exc:
        fail(f"--bots: {exc}")
    if out_dir.exists() and not out_dir.is_dir():
        fail(f"--out: {out_dir} is not a folder")
    console = err()
    progress = Progress(
        TextColumn("simulating"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.fields[hands]} hands"), TimeElapsedColumn(),
        console=console, transient=True, disable=not console.is_terminal,
    )
    task = progress.add_task("simulate", total=games, hands=0)

    def on_progress(done: int, hands: int) -> None:
        progress.update(task, completed=done, hands=hands)

    try:
        with progress:
            summary = run_simulation(
                out_dir, games, variant, players, seed, bots.split(","), workers, target, on_progress,
                commit, overrides,
            )
    except OSError as exc:
        fail(f"--out: {exc}")
    except EndlessGame as exc:
        fail(f"a game did not end (a bot bug; the logs before it are written): {exc}", 1)
    except BotError as exc:
        fail(f"--bots: {exc}")
    if as_json:
        print(json.dumps(msgspec.to_builtins(summary), indent=2))
        return
    print_fitted(out(), _table(summary))


def _table(s: Summary) -> Table:
    """Return the summary as a table: one row per figure, one column per team."""
    table = Table(title=f"{s.games} games of {s.variant}, {s.players} players, seed {s.seed}")
    table.add_column("")
    table.add_column("team 0")
    table.add_column("team 1")
    teams = [", ".join(sorted({b for i, b in enumerate(s.bots) if i % 2 == t})) for t in (0, 1)]
    table.add_row("bots", *teams)
    table.add_row("wins", *(str(w) for w in s.wins))
    table.add_row("avg hand score", *(f"{v:.1f}" for v in s.avg_hand_score))
    table.add_row("closes", *(str(c) for c in s.closes))
    for kind, rates in s.canasta_rate.items():
        table.add_row(f"{kind} canastas / hand", *(f"{r:.3f}" for r in rates))
    table.add_row("hands", str(s.hands), "")
    table.add_row("closing rate", f"{s.closing_rate:.3f}", "")
    table.add_row("events", str(s.events), "")
    table.add_row("elapsed", f"{s.elapsed:.2f} s", "")
    table.add_row("hands/s", f"{s.hands_per_s:.1f}", "")
    return table
