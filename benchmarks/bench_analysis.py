"""Analysis figures: `buraco analyze` of one 4-player stbl game, and the expert bot's time a decision.

Run `python benchmarks/bench_analysis.py [--quick]` for a table; `measure(quick)` returns the rows.

- *analyze, 2 workers*: the wall seconds of analysing seat 0 of a fresh 4-player stbl game (one
  hand: the preset's target is a single hand) with the default samples on 2 worker processes,
  beside the goal of 30 s; the same on 1 worker is the baseline (wall time, because the goal is
  about waiting, and the workers are the point). Each run is a fresh process (cold caches).
- *expert, a decision*: the CPU milliseconds the expert bot (`expert:samples=16`, the default budget)
  spends per decision with a choice, playing seat 0 of a 4-player stbl hand against greedy bots,
  beside the goal of a second (1,000 ms); a greedy decision in the same hand is the baseline.

Quick sizes (CI) analyse with 2 samples and give the expert 1: they check the code runs, not the
goals.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fresh import CPU, WALL, fresh, row  # noqa: E402

from buraco_events.analysis.evaluate import DEFAULT_SAMPLES, analyze, decision_points  # noqa: E402
from buraco_events.analysis.expert import EXPERT_SAMPLES  # noqa: E402
from buraco_events.bots.registry import bot_by_name, run_game  # noqa: E402

Row = dict[str, Any]
GOAL_ANALYZE = 30.0  # wall seconds for one 4-player stbl game from one seat on 2 cores
GOAL_EXPERT = 1000.0  # CPU milliseconds a decision


def _game(seed: int) -> list[Any]:
    """A fresh 4-player stbl game of greedy bots."""
    bots = [bot_by_name("greedy") for _ in range(4)]
    return run_game("stbl", 4, seed, bots, f"bench-{seed}")[0]


def analyze_wall(seed: int, samples: int, workers: int) -> tuple[float, int]:
    """In a fresh process: the wall seconds of analysing seat 0 of game `seed`, and its decisions."""
    events = _game(seed)
    start = time.perf_counter()
    result = analyze(events, 0, samples, "bench", workers)
    return time.perf_counter() - start, len(result.decisions)


def bot_cpu(seed: int, name: str) -> tuple[float, int]:
    """In a fresh process: the CPU seconds of seat 0's bot `name` over one hand against greedy
    bots, and the decisions with a choice it made."""
    bot = bot_by_name(name)
    seconds = 0.0
    asked = 0
    choose = getattr(bot, "decide_unseen", None)
    wrapped: Any = bot

    class Timed:
        """Seat 0's bot, its decisions timed."""

        name = bot.name

        def decide_unseen(self, *args: Any) -> Any:
            nonlocal seconds, asked
            start = time.process_time()
            action = choose(*args) if choose is not None else wrapped.decide(*args[:3], args[4])
            seconds += time.process_time() - start
            asked += 1
            return action

        def choose(self, *args: Any) -> Any:
            return wrapped.choose(*args)

    bots = [Timed(), *(bot_by_name("greedy") for _ in range(3))]
    events, _ = run_game("stbl", 4, seed, bots, f"bench-{seed}", target=0)
    assert decision_points(events, 0)
    return seconds, asked


def measure(quick: bool) -> list[Row]:
    """Return the analysis figures (quick: a few samples, to check the code runs)."""
    samples = 2 if quick else DEFAULT_SAMPLES
    budget = 1 if quick else EXPERT_SAMPLES
    seeds = [1] if quick else [1, 2, 3]
    rows: list[Row] = []
    two = [fresh(analyze_wall, s, samples, 2) for s in seeds]
    one = [fresh(analyze_wall, s, samples, 1) for s in seeds]
    mean_two = sum(t for t, _ in two) / len(two)
    mean_one = sum(t for t, _ in one) / len(one)
    decisions = sum(n for _, n in two) / len(two)
    rows.append(row(f"analyze a 4-player stbl game, seat 0, {samples} samples, 2 workers", mean_two,
                    f"s ({WALL})", "goal", GOAL_ANALYZE))
    rows.append(row(f"analyze the same, 1 worker ({decisions:.0f} decisions a game)", mean_one,
                    f"s ({WALL})", "2 workers", mean_two))
    expert = [fresh(bot_cpu, s, f"expert:samples={budget}") for s in seeds]
    greedy = [fresh(bot_cpu, s, "greedy") for s in seeds]
    per_expert = 1000 * sum(t for t, _ in expert) / max(1, sum(n for _, n in expert))
    per_greedy = 1000 * sum(t for t, _ in greedy) / max(1, sum(n for _, n in greedy))
    rows.append(row(f"expert:samples={budget}, a decision (4-player stbl)", per_expert, f"ms ({CPU})",
                    "goal", GOAL_EXPERT))
    rows.append(row("greedy, a decision (the same hands)", per_greedy, f"ms ({CPU})",
                    f"expert:samples={budget}", per_expert))
    return rows


def main() -> None:
    """Print the figures as a table."""
    from report import print_table

    quick = "--quick" in sys.argv
    print_table(measure(quick), f"analysis ({'quick' if quick else 'full'})")


if __name__ == "__main__":
    main()
