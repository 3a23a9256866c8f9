"""The measured spread of `buraco analyze`'s losses: the figures its classes and accuracy stand on.

Usage: python benchmarks/analysis_spread.py [--samples 16] [--seed 1] [--seats 0] [--workers 1]
       [--logs GLOB] [--out benchmarks/results/analysis_spread.json]

Analyzes one sample log per preset and table size (`data/samples/*-s0-*.jsonl`: every variant, 2
and 4 players) as seat 0, at the default samples (`evaluate.DEFAULT_SAMPLES`: the figures are
those of a plain `buraco analyze`), and collects every decision's loss and its standard error. It
prints the distribution of the losses (percentiles of all losses, of the nonzero ones and of those
above two standard errors, which are the ones a class may mark; the share of zero losses), the
seats' mean losses, and the thresholds and accuracy scale it suggests: an inaccuracy, a mistake
and a blunder from about the 80th, 93rd and 98th percentiles of the nonzero losses, and the scale
at which the median seat's accuracy is 75. The same figures, with every loss, go to a JSON file
(`docs/analysis.md` quotes them).

One core (`--workers 1`) takes about 6 minutes of CPU (10 on a busy machine); the result is the
same for any number of workers (each decision draws from its own rngs).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from buraco_events.analysis.evaluate import (  # noqa: E402  (the sources beside this file)
    ACCURACY_SCALE,
    BLUNDER,
    DEFAULT_SAMPLES,
    INACCURACY,
    MISTAKE,
    analyze,
)
from buraco_events.log.sources import read_log  # noqa: E402

#: the percentiles printed and written
PERCENTILES = (50, 75, 80, 90, 93, 95, 98, 99)
#: the percentiles of the nonzero losses the suggested inaccuracy, mistake and blunder sit at
SUGGESTED_AT = (80, 93, 98)
#: the accuracy the median seat gets with the suggested scale
MEDIAN_ACCURACY = 75.0


def percentiles(values: list[float]) -> dict[str, float]:
    """Return the PERCENTILES of `values` (linear between the nearest ranks), keyed "p50", ..."""
    if not values:
        return {}
    if len(values) == 1:
        return {f"p{p}": values[0] for p in PERCENTILES}
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return {f"p{p}": round(cuts[p - 1], 1) for p in PERCENTILES}


def round_to(value: float, step: int) -> int:
    """Round a threshold to a step a player remembers (10 points below 100, 50 above)."""
    return max(step, int(round(value / step)) * step)


def suggest(losses: list[float], seat_means: list[float]) -> dict[str, float]:
    """Return the suggested thresholds (from the nonzero losses) and the accuracy scale at which
    the median seat's mean loss gives MEDIAN_ACCURACY."""
    nonzero = sorted(x for x in losses if x > 0)
    cuts = statistics.quantiles(nonzero, n=100, method="inclusive") if len(nonzero) > 1 else [0.0] * 99
    raw = [cuts[p - 1] for p in SUGGESTED_AT]
    inaccuracy, mistake, blunder = (round_to(x, 10 if x < 100 else 50) for x in raw)
    median_mean = statistics.median(seat_means) if seat_means else 0.0
    scale = median_mean / math.log(100.0 / MEDIAN_ACCURACY)
    return {"inaccuracy": inaccuracy, "mistake": mistake, "blunder": blunder,
            "raw": [round(x, 1) for x in raw], "median_seat_mean_loss": round(median_mean, 1),
            "accuracy_scale": round(scale, 1)}


def measure(logs: list[Path], seats: list[int], samples: int, seed: str, workers: int) -> dict:
    """Analyze every seat of every log; return the figures (and every loss) as one JSON object."""
    rows = []
    losses: list[float] = []
    stderrs: list[float | None] = []
    stands_out: list[float] = []  # the losses above two standard errors: the ones a class may mark
    marked = 0
    started = time.perf_counter()
    for path in logs:
        events = [event for _, _, event in read_log(path)]
        for seat in seats:
            start = time.perf_counter()
            result = analyze(events, seat, samples=samples, seed=seed, workers=workers)
            seconds = time.perf_counter() - start
            seat_losses = [d.loss for d in result.decisions]
            losses.extend(seat_losses)
            stderrs.extend(d.loss_stderr for d in result.decisions)
            stands_out.extend(d.loss for d in result.decisions
                              if d.loss_stderr is not None and d.loss > 2 * d.loss_stderr)
            marked += sum(d.mark is not None for d in result.decisions)
            rows.append({"log": path.name, "seat": seat, "decisions": len(seat_losses),
                         "mean_loss": result.mean_loss, "seconds": round(seconds, 1)})
            print(f"{path.name} seat {seat}: {len(seat_losses)} decisions, mean loss {result.mean_loss}, "
                  f"{seconds:.0f} s", file=sys.stderr)
    nonzero = [x for x in losses if x > 0]
    seat_means = [r["mean_loss"] for r in rows if r["decisions"]]
    return {
        "command": " ".join(["python", "benchmarks/analysis_spread.py", *sys.argv[1:]]),
        "samples": samples, "seed": seed, "seats": seats, "logs": [p.name for p in logs],
        "decisions": len(losses), "zero_share": round(1 - len(nonzero) / len(losses), 3) if losses else None,
        "all": percentiles(sorted(losses)), "nonzero": percentiles(sorted(nonzero)),
        "stands_out": percentiles(sorted(stands_out)),
        "stands_out_share": round(len(stands_out) / len(losses), 3) if losses else None,
        "mean_loss": round(statistics.fmean(losses), 1) if losses else None,
        "seat_mean_loss": percentiles(sorted(seat_means)),
        "marked_share": round(marked / len(losses), 3) if losses else None,
        "current": {"inaccuracy": INACCURACY, "mistake": MISTAKE, "blunder": BLUNDER,
                    "accuracy_scale": ACCURACY_SCALE},
        "suggested": suggest(losses, seat_means),
        "seconds": round(time.perf_counter() - started, 1),
        "rows": rows, "losses": losses, "loss_stderrs": stderrs,
    }


def show(doc: dict) -> None:
    """Print the distribution, the seats and the suggestion."""
    print(f"{doc['decisions']} decisions ({len(doc['logs'])} logs, seats {doc['seats']}, {doc['samples']} samples, "
          f"seed {doc['seed']}, {doc['seconds']:.0f} s)")
    print(f"zero losses: {doc['zero_share']:.1%}; mean loss {doc['mean_loss']}; marked {doc['marked_share']:.1%} "
          f"(with the thresholds in force)")
    head = "".join(f"{k:>8}" for k in doc["all"])
    print(f"{'':>18}{head}")
    print(f"losses above two standard errors (may be marked): {doc['stands_out_share']:.1%}")
    for name in ("all", "nonzero", "stands_out", "seat_mean_loss"):
        print(f"{name:>18}" + "".join(f"{v:>8.1f}" for v in doc[name].values()))
    s = doc["suggested"]
    print(f"suggested: inaccuracy {s['inaccuracy']}, mistake {s['mistake']}, blunder {s['blunder']} "
          f"(nonzero p{SUGGESTED_AT[0]}/p{SUGGESTED_AT[1]}/p{SUGGESTED_AT[2]} = {s['raw']}); accuracy scale "
          f"{s['accuracy_scale']} (median seat mean loss {s['median_seat_mean_loss']} -> {MEDIAN_ACCURACY:.0f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    parser.add_argument("--seed", default="1")
    parser.add_argument("--seats", default="0")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--logs", default="*-s0-*.jsonl", help="a glob in data/samples")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "analysis_spread.json")
    args = parser.parse_args()
    logs = sorted((ROOT / "data" / "samples").glob(args.logs))
    if not logs:
        parser.error(f"no log matches {args.logs} in data/samples")
    doc = measure(logs, [int(s) for s in args.seats.split(",")], args.samples, args.seed, args.workers)
    show(doc)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"written: {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")


if __name__ == "__main__":
    main()
