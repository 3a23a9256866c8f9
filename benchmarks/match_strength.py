"""The expert bot's strength: a duplicate match against the greedy bot (`buraco match`).

Run `python benchmarks/match_strength.py [--deals N] [--samples S] [--players P] [--workers W]`
(the issue's figure is `--deals 200` at the default budget); it prints the match and writes
`benchmarks/results/match_strength.json`: the settings, each bot's total, the mean per-deal
difference with its 95% interval, and the CPU seconds per deal. Not part of `run.py`: at the
default budget a deal takes about a minute of CPU on 4 players.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

from buraco_events.analysis.expert import EXPERT_SAMPLES
from buraco_events.play.match import match

HERE = Path(__file__).resolve().parent


def _cpu() -> float:
    """CPU seconds of this process and its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--samples", type=int, default=EXPERT_SAMPLES)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    expert = f"expert:samples={args.samples}"
    cpu, wall = _cpu(), time.perf_counter()

    def on_game(done: int, total: int) -> None:
        print(f"\r{done}/{total} games, {time.perf_counter() - wall:.0f} s", end="", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        result = match(tmp, [expert, "greedy"], args.deals, args.seed, "stbl", args.players, args.workers, on_game)
    print(file=sys.stderr)
    cpu, wall = _cpu() - cpu, time.perf_counter() - wall
    doc = {
        "bots": list(result.bots), "variant": result.variant, "players": result.players, "seed": result.seed,
        "deals": len(result.deals), "totals": list(result.totals), "mean_diff": result.mean_diff,
        "stderr": result.stderr, "ci95": result.ci95, "cpu_s_per_deal": round(cpu / len(result.deals), 1),
        "wall_s": round(wall, 1), "workers": args.workers,
    }
    print(json.dumps(doc, indent=2))
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "match_strength.json").write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
