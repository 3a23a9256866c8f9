"""Simulation figures: hands per second per core with greedy and random bots, scaling on 2 workers.

Run `python benchmarks/bench_sim.py [--quick] [--profile]` for a table (`--profile` adds the
cProfile hot spots of greedy play); `measure(quick)` returns the rows. The per-core figures play
single hands (target 0) of every preset with 2 and 4 players through `sim.simulate` with one
worker, logs written, so they are what `buraco simulate` delivers.
"""

from __future__ import annotations

import cProfile
import io
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from buraco_events.bots import bot_by_name, run_game
from buraco_events.rules import PRESETS
from buraco_events.sim import simulate

Row = dict[str, Any]
GOAL_GREEDY = 200.0  # hands/s per core asked for in the simulation brief

#: functions whose cumulative share of greedy play the profile reports
_HOT = (
    ("table.legal_choices", "table.py", "legal_choices"),
    ("engine.candidate_plays", "engine.py", "candidate_plays"),
    ("engine._check_took_pile", "engine.py", "_check_took_pile"),
    ("melds.shape_layoffs", "melds.py", "shape_layoffs"),
    ("melds.candidate_melds", "melds.py", "candidate_melds"),
    ("melds.classify", "melds.py", "classify"),
    ("projections.player_view", "projections.py", "player_view"),
    ("engine.table_scores", "engine.py", "table_scores"),
    ("bots.GreedyBot.choose", "bots.py", "choose"),
    ("engine.play (check+apply)", "engine.py", "play"),
)


def _row(name: str, value: float, unit: str, baseline: str | None = None,
         baseline_value: float | None = None) -> Row:
    return {"name": name, "value": value, "unit": unit, "baseline": baseline,
            "baseline_value": baseline_value}


def _rate(bots: str, games: int, out: Path) -> float:
    """Return hands per CPU second of one worker over single hands of every preset, 2 and 4 players.

    CPU time (not wall time) makes it a per-core figure even on a busy machine.
    """
    hands = 0
    start = time.process_time()
    for variant in PRESETS:
        for players in (2, 4):
            hands += simulate(out / bots, games, variant, players, 0, [bots], target=0).hands
    return hands / (time.process_time() - start)


def _scaling(games: int, out: Path) -> tuple[float, float]:
    """Return greedy hands/s with 1 and with 2 workers on the same fechado 4-player run."""
    rates = []
    for workers in (1, 2):
        s = simulate(out / f"w{workers}", games, "fechado", 4, 1, ["greedy"], workers, target=0)
        rates.append(s.hands / s.elapsed)
    return rates[0], rates[1]


def profile_greedy(games: int) -> tuple[pstats.Stats, float]:
    """Return the cProfile stats of greedy single hands on every preset and their total time."""
    prof = cProfile.Profile()
    start = time.perf_counter()
    prof.enable()
    for variant in PRESETS:
        for players in (2, 4):
            for seed in range(games):
                bots = [bot_by_name("greedy") for _ in range(players)]
                run_game(variant, players, seed, bots, "profile", target=0)
    prof.disable()
    return pstats.Stats(prof, stream=io.StringIO()), time.perf_counter() - start


def _cumulative(stats: pstats.Stats, file: str, func: str) -> float:
    """Return the cumulative seconds of every function named `func` in a file ending with `file`."""
    total = 0.0
    for (path, _line, name), (_cc, _nc, _tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        if name == func and path.endswith(file):
            total += ct
    return total


def measure(quick: bool) -> list[Row]:
    """Return the simulation figures (quick: one game per preset and player count)."""
    games = 1 if quick else 6
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        greedy = _rate("greedy", games, out)
        rand = _rate("random", games, out)
        one, two = _scaling(8 if quick else 60, out)
    rows = [
        _row("greedy bots, per core", greedy, "hands/s", "goal", GOAL_GREEDY),
        _row("random bots, per core", rand, "hands/s", "greedy bots", greedy),
        _row("greedy bots, 2 workers (wall)", two, "hands/s", "1 worker (wall)", one),
    ]
    stats, total = profile_greedy(1 if quick else 3)
    for label, file, func in _HOT:
        share = 100 * _cumulative(stats, file, func) / total
        rows.append(_row(f"profile: {label}", share, "% time"))
    return rows


def main() -> None:
    """Print the figures as a table (and the profile's top functions with --profile)."""
    from report import print_table

    quick = "--quick" in sys.argv
    print_table(measure(quick), f"simulation ({'quick' if quick else 'full'})")
    if "--profile" in sys.argv:
        stats, _ = profile_greedy(1 if quick else 3)
        text = io.StringIO()
        stats.stream = text  # type: ignore[attr-defined]
        stats.sort_stats("cumulative").print_stats(30)
        stats.sort_stats("tottime").print_stats(15)
        print(text.getvalue())


if __name__ == "__main__":
    main()
