"""Fair-play speed: judging one player's games (`buraco fairplay`), adaptive deals against fixed.

Run `python benchmarks/bench_fairplay.py [--quick] [--games N] [--baseline-games M]`; the figures
go to `benchmarks/results/fairplay_speed.json` (not with --quick). `measure(quick)` gives the rows
`benchmarks/run.py` prints, `figures(...)` the whole record.

- *adaptive*: the CPU seconds of judging seat 0 of each of N fresh 4-player stbl games (greedy
  bots, one hand: the preset's target) at the default deals (`judge.DEFAULT_SAMPLES`, rounds of
  `judge.FIRST_ROUND`), each game in a fresh process; their sum over two cores is the wall time
  20 games would take on a 2-core machine with nothing else running (the decisions spread over
  the workers, `--workers 2`), beside the goal of 5 minutes.
- *fixed* (the baseline, in the same run): the same judging with every side on the default
  deals and no adaptive stop (`first=DEFAULT_SAMPLES`, the check as it was before its rounds),
  on the first M of the same games.

Beside the times: the decisions, the informative ones per oracle and the deals played, so the
saving can be weighed against what it changes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fresh import CPU, fresh, row  # noqa: E402

from buraco_events.bots.registry import bot_by_name, run_game  # noqa: E402
from buraco_events.fairplay.judge import DEFAULT_SAMPLES, FIRST_ROUND, judge_game  # noqa: E402

GOAL_WALL = 300.0  # seconds for 20 games of one player on 2 cores


def judged(seed: int, samples: int, first: int) -> dict[str, Any]:
    """In a fresh process: judge seat 0 of fresh game `seed`; return the CPU seconds and counts."""
    bots = [bot_by_name("greedy") for _ in range(4)]
    events = run_game("stbl", 4, seed, bots, f"bench-fairplay-{seed}")[0]
    start = time.process_time()
    result = judge_game(events, 0, samples, "bench", first=first)
    cpu = time.process_time() - start
    informative: dict[str, int] = {}
    deals = sum(j.deals for j in result)
    for j in result:
        for side in j.oracles:
            informative[side.oracle] = informative.get(side.oracle, 0) + side.informative
            deals += side.deals
    return {"cpu": cpu, "decisions": len(result), "informative": informative, "deals": deals}


def figures(games: int, baseline_games: int, samples: int) -> dict[str, Any]:
    """Return the figures of `games` adaptive judgings and `baseline_games` fixed ones."""
    seeds = list(range(1, games + 1))
    adaptive = [fresh(judged, s, samples, FIRST_ROUND) for s in seeds]
    fixed = [fresh(judged, s, samples, samples) for s in seeds[:baseline_games]]

    def total(rows: list[dict[str, Any]], key: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in rows:
            for k, v in r[key].items():
                out[k] = out.get(k, 0) + v
        return out

    per_game = sum(r["cpu"] for r in adaptive) / len(adaptive)
    same = adaptive[:baseline_games]
    return {
        "unit": CPU, "samples": samples, "first_round": FIRST_ROUND, "games": games,
        "adaptive_cpu_per_game": round(per_game, 2),
        "adaptive_20_games_wall_on_2_cores": round(20 * per_game / 2, 1), "goal_wall": GOAL_WALL,
        "decisions_per_game": round(sum(r["decisions"] for r in adaptive) / len(adaptive), 1),
        "adaptive_informative": total(adaptive, "informative"),
        "baseline_games": baseline_games,
        "fixed_cpu_per_game": round(sum(r["cpu"] for r in fixed) / max(1, len(fixed)), 2),
        "adaptive_cpu_per_game_same_games": round(sum(r["cpu"] for r in same) / max(1, len(same)), 2),
        "fixed_informative": total(fixed, "informative"),
        "adaptive_informative_same_games": total(same, "informative"),
        "fixed_deals": sum(r["deals"] for r in fixed), "adaptive_deals_same_games": sum(r["deals"] for r in same),
        "per_game": [{"seed": s, **r} for s, r in zip(seeds, adaptive, strict=True)],
    }


def measure(quick: bool) -> list[dict[str, Any]]:
    """Return the rows for `benchmarks/run.py` (quick: two games at 2 deals, to check the code runs)."""
    found = figures(2, 1, 2) if quick else figures(20, 5, DEFAULT_SAMPLES)
    return [
        row(f"fairplay: judge seat 0 of a 4-player stbl game, adaptive, {found['samples']} deals at most",
            found["adaptive_cpu_per_game"], f"s ({CPU})"),
        row(f"fairplay: 20 games of one player on 2 cores ({found['decisions_per_game']:.0f} decisions a game)",
            found["adaptive_20_games_wall_on_2_cores"], f"s ({CPU} / 2)", "goal", GOAL_WALL),
        row(f"fairplay: the same games, adaptive (first {found['baseline_games']})",
            found["adaptive_cpu_per_game_same_games"], f"s ({CPU})", "fixed deals", found["fixed_cpu_per_game"]),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two games at 2 deals: checks the code runs")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--baseline-games", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/fairplay_speed.json"))
    args = parser.parse_args()
    if args.quick:
        found = figures(2, 1, 2)
    else:
        found = figures(args.games, args.baseline_games, DEFAULT_SAMPLES)
        args.out.write_text(json.dumps(found, indent=1) + "\n")
    print(json.dumps({k: v for k, v in found.items() if k != "per_game"}, indent=1))


if __name__ == "__main__":
    main()
