"""A player's decisions weighed: how often the chosen action was an oracle's best, against how
often an honest player of the same strength would have chosen it.

The honest player is modelled as the reference bots are built (the greedy and expert bots with
softmax noise on their values): at a decision it picks alternative `a` with probability
proportional to `exp(value(a) / T)`, the values those of the information set. `T` is the
player's own strength: the temperature at which this model's expected loss on the player's
decisions that are informative for no oracle equals the loss the player measured there
(`temperature`). On each informative decision, the model's chance of picking the oracle's best is
its expected match; `T` is never taken below the standard error with which the information set
tells the two actions apart, since an honest seat cannot tell them apart more finely than that.

The test: the number of matches against the sum of the per-decision chances, as a one-sided
exact Poisson-binomial tail (the exact binomial test, with a chance per decision: the
probability that an honest player matches at least as often). Levels: `review` when the
p-value is below `REVIEW_P` with at least `MIN_INFORMATIVE` informative decisions, `note` below
`NOTE_P`, else `none`. A level weighs evidence; it names no one a cheat.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import msgspec

from .judge import Judged, OracleSide
from .oracle import ORACLES

#: the p-values below which an oracle's level is `note`, `review` (set from the calibration,
#: benchmarks/fairplay_calibration.py; docs/fairplay.md gives the figures)
NOTE_P, REVIEW_P = 1e-9, 1e-10
#: the informative decisions an oracle needs before it can reach `review`
MIN_INFORMATIVE = 10
#: the temperature's bounds (points): from nearly always the best to nearly uniform
T_MIN, T_MAX = 1.0, 5000.0


class OracleReport(msgspec.Struct, frozen=True):
    """The `--json` shape of one oracle's figures."""

    oracle: str
    decisions: int
    informative: int
    matches: int
    expected: float
    p_value: float
    level: str


def softmax(values: Sequence[float], t: float) -> list[float]:
    """Return the honest model's chance of each alternative at temperature `t`."""
    top = max(values)
    weights = [math.exp((v - top) / t) for v in values]
    total = sum(weights)
    return [w / total for w in weights]


def expected_loss(decisions: Sequence[Judged], t: float) -> float:
    """Return the honest model's mean loss (points) per decision at temperature `t`."""
    losses = []
    for d in decisions:
        top = max(d.values)
        losses.append(sum(p * (top - v) for p, v in zip(softmax(d.values, t), d.values, strict=True)))
    return sum(losses) / len(losses)


def measured_loss(decisions: Sequence[Judged]) -> float:
    """Return the player's mean loss per decision on the information set's values."""
    return sum(max(d.values) - d.values[0] for d in decisions) / len(decisions)


def temperature(decisions: Sequence[Judged]) -> float:
    """Return the temperature at which the honest model loses what the player lost on its
    decisions that are informative for no oracle (bisection on a log scale; `T_MAX` with none)."""
    plain = [d for d in decisions if not any(s.informative for s in d.oracles)]
    if not plain:
        return T_MAX
    target = measured_loss(plain)
    lo, hi = math.log(T_MIN), math.log(T_MAX)
    for _ in range(50):
        mid = (lo + hi) / 2
        if expected_loss(plain, math.exp(mid)) < target:
            lo = mid
        else:
            hi = mid
    return math.exp(hi)


def match_chance(d: Judged, side: OracleSide, t: float) -> float:
    """Return the honest model's chance of choosing the oracle's best at a decision."""
    return softmax(d.values, max(t, side.infoset_stderr))[side.best]


def tail(chances: Sequence[float], k: int) -> float:
    """Return P(at least `k` successes) of independent trials with these chances (exact)."""
    if k <= 0:
        return 1.0
    dist = [1.0]
    for p in chances:
        nxt = [0.0] * (len(dist) + 1)
        for i, q in enumerate(dist):
            nxt[i] += q * (1 - p)
            nxt[i + 1] += q * p
        dist = nxt
    return min(1.0, sum(dist[k:]))


def level_of(p_value: float, informative: int) -> str:
    """Return an oracle's level (`none`, `note`, `review`)."""
    if p_value < REVIEW_P and informative >= MIN_INFORMATIVE:
        return "review"
    return "note" if p_value < NOTE_P else "none"


def weigh(decisions: Sequence[Judged], oracles: Sequence[str], t: float | None = None) -> list[OracleReport]:
    """Return each oracle's figures over a player's decisions (of one or many games)."""
    t = temperature(decisions) if t is None else t
    reports = []
    for oracle in (o for o in ORACLES if o in oracles):
        chances, matches, count = [], 0, 0
        for d in decisions:
            side = next((s for s in d.oracles if s.oracle == oracle), None)
            if side is None:
                continue
            count += 1
            if side.informative:
                chances.append(match_chance(d, side, t))
                matches += side.best == 0
        p = tail(chances, matches)
        reports.append(OracleReport(oracle, count, len(chances), matches, round(sum(chances), 2), p,
                                    level_of(p, len(chances))))
    return reports


__all__ = ["MIN_INFORMATIVE", "NOTE_P", "REVIEW_P", "OracleReport", "expected_loss", "level_of", "match_chance",
           "measured_loss", "softmax", "tail", "temperature", "weigh"]
