"""How stable `buraco analyze`'s marks are, and how well they agree with a larger budget.

Usage: python benchmarks/analysis_stability.py [--samples 16] [--per-seat 4] [--full LOG ...]
       [--logs GLOB] [--exclude GLOB] [--extra LOG ...] [--workers 1] [--label NAME] [--cache FILE]
       [--no-compute]
       [--out benchmarks/results/analysis_stability.json]

Over the logs (`data/samples/*-s0-*.jsonl`, the 16 sample logs: the one-hand presets, the
`burraco-torneo` ones left out by `--exclude`; and any `--extra` log: the README's 4-player game), every seat, it evaluates decisions (`evaluate.evaluate`) and measures:

- seeds: the share of decisions given the same mark (none, inaccuracy, mistake, blunder) with
  seeds 1 and 2 at the default budget (`--samples`);
- budget: the share given the same mark at the default budget and at 4x it (seed 1 both);
- agreement: of the decisions marked at the default budget (seed 1), the share whose best action
  is the best action of a reference analysis at 16x the budget (seed `ref`);
- accuracy: per seat of the `--full` logs (every decision of every seat), the accuracy figure with
  seeds 1 and 2 and how far it moves, its 95% interval (`evaluate.accuracy_interval`) and whether
  the other seed's figure lies inside it, and the mean of the decisions' lower ends;
- wild discards: how often the best action found is the discard of a wild (a 2 or a joker) that
  the seat did not choose, of all decisions and of those where the best is not the chosen one.

`--per-seat N` evaluates N decisions of each seat, evenly spread over its game (0: every
decision, and then every seat's accuracy as well, as if each log were given to `--full`), which
keeps the run affordable: the 4x and 16x budgets cost 4 and 16 times as much per decision.

`--cache FILE` makes a long run resumable: each evaluation is appended to FILE (a JSON line keyed
by log, seat, seq, budget and seed) as soon as it is done, and a run finds there what an earlier
one evaluated. The work goes seat by seat, the `--extra` games first, then the games with the
fewest decisions, each seat through every phase (seeds 1 and 2 at the default budget, 4x, the 16x
reference of its marked decisions) before the next, so a run stopped part way has every figure
for the seats it finished. `--no-compute` evaluates nothing and reports from the cache alone: a
figure then covers the decisions the cache holds, and `coverage` says how many.
Progress goes to stderr, a line a decision. Its times are CPU seconds (`time.process_time` of each evaluation, in whichever
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
from fnmatch import fnmatch
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
    accuracy_interval,
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
    for name in ("loss_stderr", "low", "high", "samples"):
        if hasattr(d, name):
            row[name] = getattr(d, name)
    return row


Key = tuple[str, int, int, int, str]  # log, seat, seq, samples, seed
Job = tuple[Key, Point]


def _job(job: tuple[Point, int, str]) -> tuple[dict[str, Any], float]:
    """Evaluate one decision at a budget and seed (runs in a worker); return it and its CPU."""
    start = time.process_time()
    point, samples, seed = job
    return summary(evaluate(point, samples, seed)), time.process_time() - start


class Cache:
    """The evaluations done, by key: read from a JSON Lines file (if any) and appended to it as
    each new one is done, so that a run stopped part way resumes where it stood."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.rows: dict[Key, tuple[dict[str, Any], float]] = {}
        if path is not None and path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    entry = json.loads(line)
                    log, seat, seq, samples, seed = entry["key"]
                    self.rows[(log, seat, seq, samples, seed)] = (entry["row"], entry["cpu"])

    def add(self, key: Key, row: dict[str, Any], cpu: float) -> None:
        self.rows[key] = (row, cpu)
        if self.path is not None:
            with self.path.open("a", encoding="utf-8") as f:
                f.write(json.dumps({"key": list(key), "row": row, "cpu": round(cpu, 3)}) + "\n")


def evaluated(jobs: Sequence[Job], workers: int, cache: Cache, compute: bool = True,
              phase: str = "") -> tuple[list[dict[str, Any] | None], float]:
    """Return the evaluations of `jobs`, in order (None: not in the cache, with `compute` off),
    and the CPU seconds they took (where they were first evaluated)."""
    todo = [key for key in dict.fromkeys(key for key, _ in jobs) if key not in cache.rows] if compute else []
    points = {key: point for key, point in jobs}
    started = time.perf_counter()
    done_cpu = 0.0
    for i, (key, (row, seconds)) in enumerate(zip(todo, ordered_map(_job, [(points[k], k[3], k[4]) for k in todo],
                                                                    workers), strict=True)):
        cache.add(key, row, seconds)
        done_cpu += seconds
        print(f"{phase} {i + 1}/{len(todo)} {key[0]} seat {key[1]} seq {key[2]} x{key[3]} seed {key[4]}: "
              f"{row['mark'] or '-'} {row['loss']} ({row.get('samples')} deals, {seconds:.1f} s CPU; "
              f"{done_cpu:.0f} s CPU, {time.perf_counter() - started:.0f} s wall in this phase)",
              file=sys.stderr, flush=True)
    rows: list[dict[str, Any] | None] = []
    cpu = 0.0
    for key, _ in jobs:
        got = cache.rows.get(key)
        rows.append(None if got is None else got[0])
        cpu += 0.0 if got is None else got[1]
    return rows, cpu


def as_decision(row: dict[str, Any]) -> Decision:
    """Return the decision a row summarizes, as far as a seat's accuracy reads it."""
    return Decision(0, 0, "", row["chosen"], row["best"], row["loss"], row.get("loss_stderr"), row["mark"], [],
                    row.get("low"), row.get("high"), row.get("samples"))


def mean_of(values: Sequence[float]) -> float:
    return round(statistics.fmean(values), 1) if values else 0.0


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
    parser.add_argument("--exclude", default="*-torneo-*", help="a glob of log names --logs leaves out")
    parser.add_argument("--extra", nargs="*", default=[], help="more logs, every seat")
    parser.add_argument("--full", nargs="*", default=[],
                        help="logs whose every seat is analysed in full at both seeds (accuracy)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--label", default="", help="a name for this run in the results (before, after)")
    parser.add_argument("--cache", type=Path, default=None, help="a JSON Lines file of the evaluations done")
    parser.add_argument("--no-compute", action="store_true", help="report from the cache alone")
    parser.add_argument("--out", default=str(HERE / "results/analysis_stability.json"))
    args = parser.parse_args(argv)
    k = args.samples
    cache = Cache(args.cache)
    compute = not args.no_compute

    # the decisions compared across seeds and budgets
    logs = [p for p in sorted(glob(args.logs)) if not fnmatch(Path(p).name, args.exclude)] + list(args.extra)
    full = list(args.full) or (logs if args.per_seat == 0 else [])
    chosen: list[tuple[str, int, Point]] = []
    for path in logs:
        events = [event for _, _, event in read_log(Path(path))]
        n_players = len(getattr(events[0], "players", ()))
        for seat in range(n_players):
            chosen += [(Path(path).name, seat, p) for p in spread(decision_points(events, seat), args.per_seat)]

    def jobs(picked: Sequence[tuple[str, int, Point]], samples: int, seed: str) -> list[Job]:
        return [((log, seat, p.seq, samples, seed), p) for log, seat, p in picked]

    if compute:  # seat by seat, the `--extra` games first, then the cheapest, each seat through every phase
        extra = {Path(path).name for path in args.extra}
        for log, seat in sorted(dict.fromkeys((log, seat) for log, seat, _ in chosen),
                                key=lambda unit: (unit[0] not in extra, sum(log == unit[0] for log, _, _ in chosen),
                                                  unit)):
            mine = [item for item in chosen if item[:2] == (log, seat)]
            rows, _ = evaluated([job for item in mine for seed in SEEDS for job in jobs([item], k, seed)],
                                args.workers, cache, True, "seeds")
            evaluated(jobs(mine, CHECK_FACTOR * k, SEEDS[0]), args.workers, cache, True, "4x")
            evaluated(jobs([item for item, row in zip(mine, rows[0::2], strict=True) if row and row["mark"]],
                           REFERENCE_FACTOR * k, REFERENCE_SEED), args.workers, cache, True, "16x")

    # the figures, from the evaluations done (all of them, or those in the cache)
    compute = False
    seeds_jobs = [job for item in chosen for seed in SEEDS for job in jobs([item], k, seed)]
    both, cpu = evaluated(seeds_jobs, args.workers, cache, compute, "seeds")
    larger, cpu4 = evaluated(jobs(chosen, CHECK_FACTOR * k, SEEDS[0]), args.workers, cache, compute, "4x")
    cpu += cpu4
    first, second = both[0::2], both[1::2]
    n = len(chosen)
    pairs = [(a, b) for a, b in zip(first, second, strict=True) if a is not None and b is not None]
    budget = [(a, c) for a, c in zip(first, larger, strict=True) if a is not None and c is not None]
    marked = [i for i in range(n) if first[i] is not None and first[i]["mark"]]  # type: ignore[index]
    refs, ref_cpu = evaluated(jobs([chosen[i] for i in marked], REFERENCE_FACTOR * k, REFERENCE_SEED), args.workers,
                              cache, compute, "16x")
    judged = [(first[i], r) for i, r in zip(marked, refs, strict=True) if r is not None]
    agree = sum(a["best"] == r["best"] for a, r in judged)  # type: ignore[index]
    done_first = [r for r in first if r is not None]
    advised = [r for r in done_first if r["best"] != r["chosen"]]
    wild = [r for r in advised if wild_discard(r["best"])]

    # the accuracy of whole seats across seeds: the mean of the losses' point estimates (the
    # figure `analyze` gives) and the mean of their intervals' lower ends
    seats: list[dict[str, Any]] = []
    full_cpu = 0.0
    for path in full:
        events = [event for _, _, event in read_log(Path(path))]
        for seat in range(len(getattr(events[0], "players", ()))):
            points = [(Path(path).name, seat, p) for p in decision_points(events, seat)]
            runs, c = zip(*(evaluated(jobs(points, k, seed), args.workers, cache, compute, "full") for seed in SEEDS),
                          strict=True)
            full_cpu += sum(c) if args.full else 0.0  # with --per-seat 0 the seeds' phase counted them
            if not points or any(r is None for run in runs for r in run):
                continue  # a seat is measured whole or not at all
            means = [mean_of([r["loss"] for r in run]) for run in runs]
            acc = [accuracy_of(m) for m in means]
            lows = [mean_of([r.get("low") or 0.0 for r in run]) for run in runs]
            intervals = [accuracy_interval([as_decision(r) for r in run if r is not None]) for run in runs]
            # each seed's accuracy inside the other seed's interval
            held = [iv is not None and iv[0] <= other <= iv[1] for iv, other in zip(intervals, acc[::-1], strict=True)]
            seats.append({"log": Path(path).name, "seat": seat, "decisions": len(points), "mean_loss": means,
                          "accuracy": acc, "moved": round(abs(acc[0] - acc[1]), 1), "interval": intervals,
                          "other_seed_inside": held, "mean_low": lows,
                          "mean_low_moved": round(abs(lows[0] - lows[1]), 1)})

    figures = {
        "decisions": n,
        "coverage": {"two_seeds": len(pairs), "default_vs_4x": len(budget), "reference_16x": len(judged),
                     "seats_whole": len(seats)},
        "same_mark_two_seeds_pct": share(sum(a["mark"] == b["mark"] for a, b in pairs), len(pairs)),
        "same_mark_default_vs_4x_pct": share(sum(a["mark"] == c["mark"] for a, c in budget), len(budget)),
        "marked_at_default": len(marked),
        "marked_pct": share(len(marked), len(done_first)),
        "marked_best_agrees_with_16x_pct": share(agree, len(judged)),
        "seat_accuracy_moved_max": max((s["moved"] for s in seats), default=None),
        "seat_accuracy_moved_median": statistics.median(s["moved"] for s in seats) if seats else None,
        "seats_within_3_points_pct": share(sum(s["moved"] <= 3 for s in seats), len(seats)),
        "accuracy_interval_width_median": (round(statistics.median(iv[1] - iv[0] for s in seats for iv in s["interval"]
                                                                   if iv is not None), 1) if seats else None),
        "other_seed_inside_interval_pct": share(sum(h for s in seats for h in s["other_seed_inside"]),
                                                2 * len(seats)),
        "seat_mean_low_moved_max": max((s["mean_low_moved"] for s in seats), default=None),
        "best_is_wild_discard_pct_of_decisions": share(len(wild), len(done_first)),
        "best_is_wild_discard_pct_of_advised": share(len(wild), len(advised)),
        "mean_samples_default": (mean_of([r["samples"] for r in done_first])
                                 if done_first and "samples" in done_first[0] else k),
        "cpu_seconds": {"seeds_and_4x": round(cpu, 1), "reference_16x": round(ref_cpu, 1),
                        "full_seats": round(full_cpu, 1), "total": round(cpu + ref_cpu + full_cpu, 1)},
    }
    result = {
        "label": args.label, "samples": k, "per_seat": args.per_seat, "logs": [Path(p).name for p in logs],
        "full": [Path(p).name for p in full], "figures": figures, "seats": seats,
        "rows": [{"log": log, "seat": seat, "seq": p.seq, "default": a, "seed2": b, "x4": c}
                 for (log, seat, p), a, b, c in zip(chosen, first, second, larger, strict=True)],
        "reference": [{"seq": chosen[i][2].seq, "log": chosen[i][0], "seat": chosen[i][1], **r}
                      for i, r in zip(marked, refs, strict=True) if r is not None],
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dumped(result), encoding="utf-8")
    for name, value in figures.items():
        print(f"{name}: {value}")
    print(f"written: {out}")


if __name__ == "__main__":
    main()
