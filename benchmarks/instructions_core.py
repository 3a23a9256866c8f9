"""The core's work in instructions (valgrind's callgrind): greedy self-play, replay, audit and the
index's check, for two trees side by side.

Run `python benchmarks/instructions_core.py BASE HEAD [--logs DIR] [--steps selfplay,replay,...]
[--out FILE]` with valgrind installed, where BASE and HEAD are trees of the project (compiled in
place for the compiled build: `BURACO_COMPILE=1 python setup.py build_ext --inplace` in each).
Not part of the suite: an instruction count repeats to within a few parts in a thousand where this
machine's neighbours swing CPU time by up to 2x. Without `--logs` it simulates 28 greedy games
with HEAD into a temporary folder (`LOGS`: aberto 2 players 6, fechado 4 players 6, stbl 4 players
8, stcl 2 players 8; seed 3); the self-play step plays `GAMES`.

Each step runs in its own interpreter under callgrind with `PYTHONHASHSEED=0` and
`PYTHONPATH=TREE`, twice: over the logs, and over an empty folder with the same imports and setup;
the difference is the step's own work. Before the step the child collects and freezes the heap
(`gc.freeze`): the objects the imports made move to the collector's permanent generation, so a
full collection during the step walks only what the step allocated. Without it a tree that
imports more (a larger heap, one more full collection in a run) reads as slower per event when
its per-event work is the same.

It prints each step's instructions for both trees and HEAD's change in percent, and writes them as
JSON with `--out`.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

STEPS = ("selfplay", "replay", "audit", "index")
#: the self-play games: (variant, players)
GAMES = (("stbl", 4), ("stcl", 2), ("burraco", 4))
#: the logs replayed, audited and checked when none are given: (variant, players, games)
LOGS = (("aberto", 2, 6), ("fechado", 4, 6), ("stbl", 4, 8), ("stcl", 2, 8))


def _step(mode: str, logs: str, games: int) -> None:
    """Run one step over `logs` (the child's side), with the heap frozen before it."""
    from buraco_events.log.sources import iter_logs

    run_game = table_bots = None
    if mode == "selfplay":
        try:
            from buraco_events.bots.registry import run_game, table_bots  # type: ignore[no-redef]
        except ImportError:  # a tree from before the bots' own package
            from buraco_events.core.bots import run_game, table_bots  # type: ignore[import-not-found,no-redef]
    found = list(iter_logs(logs))
    if mode == "replay":
        from buraco_events.core.engine import play
        from buraco_events.core.state import GameState
        from buraco_events.log.chain import Chain
        from buraco_events.log.lines import decode_lines
    elif mode == "audit":
        try:
            from buraco_events.audit.auditor import audit_lines
        except ImportError:  # a tree from before the audit's split
            from buraco_events.audit.report import audit_lines  # type: ignore[attr-defined,no-redef]
    elif mode == "index":
        from buraco_events.analytics.ingest import check_chunk
    gc.collect()
    gc.freeze()
    if mode == "selfplay":
        assert run_game is not None and table_bots is not None
        for variant, players in GAMES[:games]:
            run_game(variant, players, 7, table_bots(["greedy"] * players), f"g-{variant}")
    elif mode == "replay":
        for name, lines in found:
            state, chain = GameState(), Chain(name)
            for _, line, ev in decode_lines(lines, name):
                chain.add(line, ev)
                play(state, ev)
    elif mode == "audit":
        for name, lines in found:
            audit_lines(lines, name)
    elif mode == "index" and found:
        check_chunk(found)


def _total(path: Path) -> int:
    """Return the instructions a callgrind output file counts in all."""
    total = 0
    for line in path.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            total = int(line.split()[1])
    return total


def measure(tree: Path, mode: str, logs: Path, empty: Path, work: Path) -> int:
    """Return the instructions of `mode` over `logs` less the same over `empty`, in `tree`."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(tree)}
    counts = []
    for folder, games in ((logs, len(GAMES)), (empty, 0)):
        out = work / f"{tree.name}.{mode}.{games}.out"
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
                        __file__, "--step", mode, str(folder), str(games)],
                       env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        counts.append(_total(out))
    return counts[0] - counts[1]


def simulate(tree: Path, folder: Path) -> None:
    """Write the default logs with `tree`'s simulate."""
    for variant, players, games in LOGS:
        subprocess.run([sys.executable, "-m", "cli.main", "simulate", "--games", str(games),
                        "--variant", variant, "--players", str(players), "--seed", "3", "--bots", "greedy",
                        "--out", str(folder)],
                       env={**os.environ, "PYTHONPATH": str(tree)}, check=True, stdout=subprocess.DEVNULL)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--step":
        _step(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path)
    parser.add_argument("head", type=Path)
    parser.add_argument("--logs", type=Path)
    parser.add_argument("--steps", default=",".join(STEPS))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        logs = args.logs
        if logs is None:
            logs = work / "logs"
            simulate(args.head.resolve(), logs)
        empty = work / "empty"
        empty.mkdir()
        results = {}
        for mode in args.steps.split(","):
            base = measure(args.base.resolve(), mode, logs, empty, work)
            head = measure(args.head.resolve(), mode, logs, empty, work)
            results[mode] = {"base": base, "head": head, "change_percent": round(100 * (head - base) / base, 2)}
            print(f"{mode:9} base {base:>15,}  head {head:>15,}  {results[mode]['change_percent']:+.2f}%", flush=True)
    if args.out:
        args.out.write_text(json.dumps({"base": str(args.base), "head": str(args.head), "steps": results}, indent=1) + "\n")


if __name__ == "__main__":
    main()
