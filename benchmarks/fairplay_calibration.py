"""Calibrate the fair-play check: false positives on honest players, detection of cheating bots.

Plays populations of games with the player under test at seat 0 (its partner at seat 2 in
4-player games is the same bot; the others greedy), judges seat 0's decisions
(`fairplay.judge`), cuts each population's games into samples of `--sample-games` games, and
weighs each sample at the default thresholds (`fairplay.verdict`). Reports per population the
share of samples at `review` (and at `note` or above) for each oracle: for an honest population
that is the false-positive rate, for a `peek:ORACLE` population its own oracle's share is the
detection rate. The ROC plot sweeps the `review` p-value threshold: the share of honest samples
against the share of cheating samples at or below it, both on the cheater's oracle.

The full run the method asks for (200 games per population, 4-player stbl and 2-player burraco,
rates 1.0, 0.5, 0.2, samples of 20 games, the default deals):

    python benchmarks/fairplay_calibration.py --games 200 --sample-games 20 \
        --variants stbl:4,burraco:2 --rates 1.0,0.5,0.2 --out benchmarks/results/fairplay_calibration.json

Every game and its judging draws from its own seed, so a run is the same for any --workers.
"""

from __future__ import annotations

import argparse
import json
import time
from itertools import zip_longest
from pathlib import Path
from typing import Any

from buraco_events.bots.registry import bot_by_name, run_game
from buraco_events.fairplay.judge import DEFAULT_SAMPLES, Judged, judge_game
from buraco_events.fairplay.oracle import oracles_for
from buraco_events.fairplay.verdict import weigh
from buraco_events.util.pool import ordered_map

HONEST = ("greedy", "expert:samples=4", "expert:samples=16")


def _game(job: tuple[str, int, str, int, int, int]) -> list[Judged]:
    """Play one game of a population and judge seat 0 (runs in a worker)."""
    variant, players, spec, seed, samples, target = job
    names = [spec if s % 2 == 0 else "greedy" for s in range(players)]
    bots = [bot_by_name(n) for n in names]
    events, _ = run_game(variant, players, seed, bots, f"cal-{variant}-{seed}", target=target)
    return judge_game(events, 0, samples, f"cal/{seed}")


def _population(variant: str, players: int, spec: str, args: argparse.Namespace, offset: int) -> dict[str, Any]:
    jobs = [(variant, players, spec, offset + g, args.samples, args.target) for g in range(args.games)]
    games = list(ordered_map(_game, jobs, args.workers))
    oracles = oracles_for(players)
    samples = [games[i:i + args.sample_games] for i in range(0, len(games) - args.sample_games + 1, args.sample_games)]
    weighed = [weigh([d for g in sample for d in g], oracles) for sample in samples]
    out: dict[str, Any] = {"variant": variant, "players": players, "bot": spec, "games": len(games),
                           "samples": len(samples), "decisions": sum(len(g) for g in games), "oracles": {}}
    for i, oracle in enumerate(oracles):
        reports = [w[i] for w in weighed]
        out["oracles"][oracle] = {
            "review": sum(r.level == "review" for r in reports) / max(1, len(reports)),
            "note_or_review": sum(r.level != "none" for r in reports) / max(1, len(reports)),
            "informative": sum(r.informative for r in reports), "matches": sum(r.matches for r in reports),
            "expected": round(sum(r.expected for r in reports), 2), "p_values": [r.p_value for r in reports],
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per population")
    parser.add_argument("--sample-games", type=int, default=20, help="games per sample weighed")
    parser.add_argument("--variants", default="stbl:4,burraco:2", help="VARIANT:PLAYERS, comma-separated")
    parser.add_argument("--rates", default="1.0,0.5,0.2", help="the cheating bots' peeking rates")
    parser.add_argument("--honest", default=",".join(HONEST), help="the honest bots")
    parser.add_argument("--oracles", default="partner,hands,stock", help="the cheating bots' oracles")
    parser.add_argument("--peek-samples", type=int, default=16, help="the cheating bots' deals per decision")
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES, help="the check's deals per side")
    parser.add_argument("--target", type=int, default=None, help="match target (0 = one hand a game)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/fairplay_calibration.json"))
    parser.add_argument("--plot", type=Path, default=None, help="the ROC plot (PNG)")
    args = parser.parse_args()
    start = time.perf_counter()
    populations = []
    for v, variant in enumerate(args.variants.split(",")):
        name, _, players_text = variant.partition(":")
        players = int(players_text or 2)
        honest = [(h, "honest") for h in args.honest.split(",") if h]
        cheats = [(f"peek:{o}:rate={r}:samples={args.peek_samples}", o) for o in args.oracles.split(",")
                  for r in args.rates.split(",") if o in oracles_for(players)]
        # honest and cheating populations in turn, so that a run cut short has both kinds
        specs = [s for pair in zip_longest(honest, cheats) for s in pair if s is not None]
        for p, (spec, kind) in enumerate(specs):
            result = _population(name, players, spec, args, 1_000_000 * v + 10_000 * p)
            result["kind"] = kind
            populations.append(result)
            _write(args, populations, start)  # after each population: a run cut short keeps what it measured
            print(json.dumps({k: result[k] for k in ("variant", "bot", "games", "decisions")}
                             | {o: (f["review"], f["note_or_review"]) for o, f in result["oracles"].items()}),
                  flush=True)
    summary = _write(args, populations, start)
    print(json.dumps(summary, indent=1))
    if args.plot is not None:
        _roc(populations, args.plot)


def _write(args: argparse.Namespace, populations: list[dict[str, Any]], start: float) -> dict[str, Any]:
    """Write the figures so far to `--out`; return the summary."""
    honest = [p for p in populations if p["kind"] == "honest"]
    summary = {
        "false_positive_review": max((f["review"] for p in honest for f in p["oracles"].values()), default=None),
        "detection_review": {f"{p['variant']} {p['bot']}": p["oracles"][p["kind"]]["review"]
                             for p in populations if p["kind"] != "honest"},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "summary": summary,
                                    "seconds": round(time.perf_counter() - start, 1),
                                    "populations": populations}, indent=1) + "\n")
    return summary


def _roc(populations: list[dict[str, Any]], path: Path) -> None:
    """Plot, per cheating population, the share flagged against the honest share flagged as the
    review threshold sweeps."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 5))
    for p in (p for p in populations if p["kind"] != "honest"):
        # the honest samples of the same game on the same oracle: the test the cheater faces
        honest = [q for h in populations if h["kind"] == "honest" and h["variant"] == p["variant"]
                  for q in h["oracles"][p["kind"]]["p_values"]]
        cheat = p["oracles"][p["kind"]]["p_values"]
        cuts = sorted(set(honest + cheat + [0.0, 1.0]))
        xs = [sum(h <= c for h in honest) / max(1, len(honest)) for c in cuts]
        ys = [sum(q <= c for q in cheat) / max(1, len(cheat)) for c in cuts]
        ax.plot(xs, ys, marker=".", label=f"{p['variant']} {p['bot']}")
    ax.plot([0, 1], [0, 1], ls=":", color="grey")
    ax.set_xlabel("honest samples flagged")
    ax.set_ylabel("cheating samples flagged")
    ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
