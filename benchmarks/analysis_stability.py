"""How stable `buraco analyze`'s marks are, and how well they agree with a larger budget.

Usage: python benchmarks/analysis_stability.py [--samples 16] [--per-seat 4] [--full LOG ...]
       [--logs GLOB] [--extra LOG ...] [--workers 1] [--label NAME]
       [--out benchmarks/results/analysis_stability.json]

Over the logs (`data/samples/*-s0-*.jsonl`, the 16 sample logs, and any `--extra` log: the README's
4-player game), every seat, it evaluates decisions (`evaluate.evaluate`) and measures:

- seeds: the share of decisions given the same mark (none, inaccuracy, mistake, blunder) with
  seeds 1 and 2 at the default budget (`--samples`);
- budget: the share given the same mark at the default budget and at 4x it (seed 1 both);
- agreement: of the decisions marked at the default budget (seed 1), the share whose best action
  is the best action of a reference analysis at 16x the budget (seed `ref`);
- accuracy: per seat of the `--full` logs (every decision of every seat), the accuracy figure with
  seeds 1 and 2 and how far it moves;
- wild discards: how often the best action found is the discard of a wild (a 2 or a joker) that
  the seat did not choose, of all decisions and of those where the best is not the chosen one.

`--per-seat N` evaluates N decisions of each seat, evenly spread over its game (0: every
decision), which keeps the run affordable: the 4x and 16x budgets cost 4 and 16 times as much
per decision. Its times are CPU seconds (`time.process_time` of each evaluation, in whichever
process ran it), not wall clock: the machine may be shared. The result is the same for any
number of workers.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from glob import glob
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from buraco_events.analysis.evaluate import (  # noqa: E402  (the sources beside this file)
    DEFAULT_SAMPLES,
    Decision,
    Point,
    accuracy_of,
    decision_points,
    evaluate,
)
from buraco_events.core.cards import RANK, is_wild_card  # noqa: E402
from buraco_events.log.sources import read_log  # noqa: E402
from buraco_events.util.pool import ordered_map  # noqa: E402

#: the seeds of the two default-budget analyses, and of the reference
SEEDS = ("1", "2")
REFERENCE_SEED = "ref"
#: the larger budgets, as multiples of the default
CHECK_FACTOR, REFERENCE_FACTOR = 4, 16


def spread(points: list[Point], n: int) -> list[Point]:
    """Return `n` of the points, evenly spread (all of them when `n` is 0 or covers them)."""
    if n <= 0 or n >= len(points):
        return points
    if n == 1:
        return [points[len(points) // 2]]
    return [points[round(i * (len(points) - 1) / (n - 1))] for i in range(n)]


def wild_discard(words: str) -> bool:
    """Return whether an action's words discard a wild card."""
    parts = words.split(" ")
    return parts[0] == "discard" and len(parts) == 2 and parts[1] in RANK and is_wild_card(parts[1])


def summary(d: Decision) -> dict[str, Any]:
    """Return what the figures read of a decision (the interval and samples when it has them)."""
    row: dict[str, Any] = {"chosen": d.chosen, "best": d.best, "loss": d.loss, "mark": d.mark}
    for name in ("low", "high", "samples"):
        if hasattr(d, name):
            row[name] = getattr(d, name)
    return row


def _job(job: tuple[Point, int, str]) -> tuple[dict[str, Any], float]:
    """Evaluate one decision at a budget and seed (runs in a worker); return it and its CPU."""
    start = time.process_time()
    point, samples, seed = job
    return summary(evaluate(point, samples, seed)), time.process_time() - start


def evaluated(jobs: Sequence[tuple[Point, int, str]], workers: int) -> tuple[list[dict[str, Any]], float]:
    """Return the evaluations of `jobs`, in order, and the CPU seconds they took."""
    rows, cpu = [], 0.0
    for row, seconds in ordered_map(_job, jobs, workers):
        rows.append(row)
        cpu += seconds
    return rows, cpu


def dumped(result: dict[str, Any]) -> str:
    """Return the results as JSON: a field a line, each row of a list of rows on a line of its own."""
    out = ["{"]
    items = list(result.items())
    for i, (key, value) in enumerate(items):
        end = "," if i < len(items) - 1 else ""
        if isinstance(value, list) and value and isinstance(value[0], dict):
            out.append(f" {json.dumps(key)}: [")
            out += [f"  {json.dumps(r, separators=(',', ':'))}" + ("," if j < len(value) - 1 else "")
                    for j, r in enumerate(value)]
            out.append(" ]" + end)
        else:
            out.append(f" {json.dumps(key)}: {json.dumps(value)}{end}")
    return "\n".join([*out, "}"]) + "\n"


def share(hits: int, total: int) -> float | None:
    return round(100.0 * hits / total, 1) if total else None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    parser.add_argument("--per-seat", type=int, default=4, help="decisions a seat (0: all)")
    parser.add_argument("--logs", default=str(ROOT / "data/samples/*-s0-*.jsonl"))
    parser.add_argument("--extra", nargs="*", default=[], help="more logs, every seat")
    parser.add_argument("--full", nargs="*", default=[],
                        help="logs whose every seat is analysed in full at both seeds (accuracy)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--label", default="", help="a name for this run in the results (before, after)")
    parser.add_argument("--out", default=str(HERE / "results/analysis_stability.json"))
    args = parser.parse_args(argv)
    k = args.samples

    # the decisions compared across seeds and budgets
    logs = sorted(glob(args.logs)) + list(args.extra)
    chosen: list[tuple[str, int, Point]] = []
    for path in logs:
        events = [event for _, _, event in read_log(Path(path))]
        n_players = len(getattr(events[0], "players", ()))
        for seat in range(n_players):
            chosen += [(Path(path).name, seat, p) for p in spread(decision_points(events, seat), args.per_seat)]
    jobs = [(p, k, seed) for _, _, p in chosen for seed in SEEDS] + [(p, CHECK_FACTOR * k, SEEDS[0]) for _, _, p in chosen]
    rows, cpu = evaluated(jobs, args.workers)
    n = len(chosen)
    first, second, larger = rows[0:2 * n:2], rows[1:2 * n:2], rows[2 * n:]
    marked = [i for i in range(n) if first[i]["mark"]]
    refs, ref_cpu = evaluated([(chosen[i][2], REFERENCE_FACTOR * k, REFERENCE_SEED) for i in marked], args.workers)
    agree = sum(first[i]["best"] == r["best"] for i, r in zip(marked, refs, strict=True))
    advised = [r for r in first if r["best"] != r["chosen"]]
    wild = [r for r in advised if wild_discard(r["best"])]

    # the accuracy of whole seats across seeds
    seats: list[dict[str, Any]] = []
    full_cpu = 0.0
    for path in args.full:
        events = [event for _, _, event in read_log(Path(path))]
        for seat in range(len(getattr(events[0], "players", ()))):
            points = decision_points(events, seat)
            both, c = evaluated([(p, k, seed) for seed in SEEDS for p in points], args.workers)
            full_cpu += c
            runs = [both[i * len(points):(i + 1) * len(points)] for i in range(2)]
            means = [round(statistics.fmean(r["loss"] for r in run), 1) for run in runs]
            acc = [accuracy_of(m) for m in means]
            # the mean of the intervals' lower ends, where the analysis has them
            lows = [round(statistics.fmean(r["low"] or 0.0 for r in run), 1) if "low" in run[0] else None
                    for run in runs]
            seats.append({"log": Path(path).name, "seat": seat, "decisions": len(points), "mean_loss": means,
                          "accuracy": acc, "moved": round(abs(acc[0] - acc[1]), 1), "mean_low": lows})

    figures = {
        "decisions": n,
        "same_mark_two_seeds_pct": share(sum(a["mark"] == b["mark"] for a, b in zip(first, second, strict=True)), n),
        "same_mark_default_vs_4x_pct": share(sum(a["mark"] == b["mark"] for a, b in zip(first, larger, strict=True)), n),
        "marked_at_default": len(marked),
        "marked_pct": share(len(marked), n),
        "marked_best_agrees_with_16x_pct": share(agree, len(marked)),
        "seat_accuracy_moved_max": max((s["moved"] for s in seats), default=None),
        "seats_within_3_points_pct": share(sum(s["moved"] <= 3 for s in seats), len(seats)),
        "best_is_wild_discard_pct_of_decisions": share(len(wild), n),
        "best_is_wild_discard_pct_of_advised": share(len(wild), len(advised)),
        "mean_samples_default": (round(statistics.fmean(r["samples"] for r in first), 1)
                                 if first and "samples" in first[0] else k),
        "cpu_seconds": {"seeds_and_4x": round(cpu, 1), "reference_16x": round(ref_cpu, 1),
                        "full_seats": round(full_cpu, 1), "total": round(cpu + ref_cpu + full_cpu, 1)},
    }
    result = {
        "label": args.label, "samples": k, "per_seat": args.per_seat, "logs": [Path(p).name for p in logs],
        "full": [Path(p).name for p in args.full], "figures": figures, "seats": seats,
        "rows": [{"log": log, "seat": seat, "seq": p.seq, "default": a, "seed2": b, "x4": c}
                 for (log, seat, p), a, b, c in zip(chosen, first, second, larger, strict=True)],
        "reference": [{"seq": chosen[i][2].seq, "log": chosen[i][0], "seat": chosen[i][1], **r}
                      for i, r in zip(marked, refs, strict=True)],
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dumped(result), encoding="utf-8")
    for name, value in figures.items():
        print(f"{name}: {value}")
    print(f"written: {out}")


if __name__ == "__main__":
    main()
