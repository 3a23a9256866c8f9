"""`buraco demo`: the whole product in one command, on a fresh folder.

Simulates games across every preset, indexes them into an embedded DuckDB file, prints the stats,
replays a few steps of one game from a seat, and audits a deliberately tampered copy. Each step
runs the same command a user would type, so the demo shows real output.
"""

from __future__ import annotations

import shlex
import shutil
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.rule import Rule
from rich.text import Text

from buraco_events.model.rules import PRESETS

from .common import fail, out

MARKER = ".buraco-demo"


def command_line(args: list[str]) -> str:
    """Return the command as a user types it in a shell: `$ buraco ...`, each word quoted as the
    shell needs (a query in quotes), so it can be copied and run."""
    return "$ " + shlex.join(["buraco", *args])


def _run(args: list[str]) -> int:
    """Run one `buraco` command in-process, as typed, and return its exit code."""
    from typer.main import get_command

    from .main import app

    out().print(Rule())
    out().print(Text(command_line(args), style="bold"), soft_wrap=True)  # whole, wrapped if long
    try:
        get_command(app).main(args=args, prog_name="buraco", standalone_mode=False)
    except typer.Exit as exc:
        return exc.exit_code
    return 0


def _fresh(folder: Path) -> None:
    if folder.exists():
        if not (folder / MARKER).exists():
            fail(f"{folder} exists and was not made by `buraco demo`; choose another --out")
    try:
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        (folder / MARKER).write_text("made by buraco demo; safe to delete\n")
    except OSError as exc:
        fail(f"{folder}: cannot make the demo folder ({exc.strerror or exc})")


def _tamper(src: Path, dst: Path) -> int:
    """Copy a log, changing the card of its first discard to another card; return that seq."""
    lines = src.read_bytes().split(b"\n")
    for i, line in enumerate(lines):
        if b'"type":"discarded"' in line:
            card = line.rsplit(b'"card":"', 1)[1].split(b'"', 1)[0]
            other = b"KS" if card != b"KS" else b"QH"
            lines[i] = line.replace(b'"card":"' + card + b'"', b'"card":"' + other + b'"')
            dst.write_bytes(b"\n".join(lines))
            return i
    raise ValueError(f"{src}: no discard to tamper with")


def demo(
    out_dir: Annotated[Path, typer.Option("--out", help="folder for the demo's logs and database (made fresh)")] = Path("buraco-demo"),
    games: Annotated[int, typer.Option("--games", help="games per preset")] = 40,
    seed: Annotated[int, typer.Option("--seed", help="seed of the simulation")] = 2026,
    workers: Annotated[int, typer.Option("--workers", help="worker processes for the simulation")] = 2,
) -> None:
    """Simulate, index, query, replay and audit: the product end to end in under a minute."""
    started = time.perf_counter()
    # checked before anything runs: each step would otherwise fail on its own, once per preset
    if games < 1 or workers < 1:
        fail("--games and --workers must be at least 1")
    _fresh(out_dir)
    logs = out_dir / "logs"
    db = out_dir / "buraco.duckdb"
    for i, variant in enumerate(PRESETS):
        players = "4" if i % 2 else "2"
        code = _run([
            "simulate", "--games", str(games), "--variant", variant, "--players", players,
            "--seed", str(seed + i), "--bots", "greedy,random" if i == 0 else "greedy",
            "--out", str(logs / variant), "--workers", str(workers), "--target", "0",
        ])
        if code:
            fail(f"simulate {variant} failed (exit {code})")
    if _run(["index", str(logs), "--db", str(db)]):
        fail("index failed")
    _run(["stats", "--db", str(db)])
    _run(["sql", "SELECT variant, count(*) AS games, round(avg(hands), 2) AS hands_per_game "
                 "FROM games GROUP BY variant ORDER BY variant", "--db", str(db)])
    game = sorted((logs / "stbl").glob("*.jsonl"))[0]
    for at in (12, 13):
        _run(["replay", str(game), "--at", str(at), "--as", "0", "--static"])
    tampered = out_dir / f"tampered-{game.name}"
    seq = _tamper(game, tampered)
    out().print(f"[dim]changed the card of the discard at seq {seq} in {tampered.name}[/]")
    _run(["audit", str(tampered)])
    out().print(Rule())
    out().print(
        f"demo done in {time.perf_counter() - started:.1f} s; logs in {logs}, database {db}. "
        f"Try: buraco sql \"SELECT * FROM canasta_rates\" --db {db}"
    )
