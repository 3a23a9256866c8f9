"""Each decision of a player, judged twice: on the information set and on each oracle.

At each decision (`evaluate.decision_points`, the same as `buraco analyze`'s), the alternatives
`analyze` weighs (`evaluate.alternatives`, the chosen one first) are played out to the hand's end
(`evaluate.play_outs`, the analysis's play-out bot in every seat) on deals of each side:

- the information set: tables dealt from what the seat could know (`infoset.dealt_table`), as
  `analyze` deals them; nothing of this side reads a hidden card, and how many deals it takes
  depends on its own values alone;
- each oracle (`oracle`): tables that keep the hidden cards the oracle knows where they truly are.

Common random numbers: deal k of every side, for every alternative, is dealt from the same rng
and played out by bots drawing from the same seed, so the differences between alternatives (and
between sides) are paired, and the sides share what they can of a deal.

Adaptive deals, as `analyze` plays them: each side plays `FIRST_ROUND` deals, then `ROUND` more
at a time, up to `samples` deals (the cap), until it is settled. A round leaves out the
alternatives its deals already show worse than the side's best (their 95% interval clear of 0).

- The information set is settled when its best and runner-up are separated (the 95% interval of
  the gap clear of 0), within `EQUIVALENT` points of each other (95%), or lost in the noise (the
  gap at most `WITHIN` standard errors).
- An oracle is settled when its best is the information set's best, or when the gain of its best
  over the information set's best is separated, within `EQUIVALENT` points or lost in the noise,
  as above. Most decisions are settled by the first round.

A decision is *informative* for an oracle when the oracle's best differs from the information
set's best and beats it on the oracle's deals, the 95% interval of the paired gain clear of 0 (as
`analyze`'s marks; two deals at the least: one shows no noise). There, only a seat that knew what
the oracle knows would prefer it. An oracle that fixes nothing a deal would vary (the partner's
hand all known, an empty stock) is not played: the decision cannot be informative for it. The
same seed gives the same values, whatever the workers.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

import msgspec

from buraco_events.analysis.evaluate import (
    EQUIVALENT,
    Point,
    alternatives,
    decision_points,
    play_outs,
    t95,
)
from buraco_events.core.cards import Card
from buraco_events.core.choices import Action, Choices
from buraco_events.core.engine import play
from buraco_events.core.infoset import dealt_table
from buraco_events.core.state import GameState, elements
from buraco_events.model.events import Event
from buraco_events.play.commands import action_words
from buraco_events.util.pool import ordered_map

from .oracle import fixes_nothing, hidden_words, oracle_info, oracle_table, oracles_for

#: the deals each side of a decision is played out on at the most by default (the cap)
DEFAULT_SAMPLES = 8
#: the deals of a side's first round, and the deals each later round adds
FIRST_ROUND, ROUND = 4, 4
#: standard errors within which a gain is lost in the noise: more deals are not played for it
WITHIN = 1.0


class UnfinishedGame(ValueError):
    """A log whose game has not ended: the oracle side never runs on a live table."""


class OracleSide(msgspec.Struct, frozen=True):
    """One decision on one oracle's deals: each alternative's mean value, the best, how much
    the best beat the information set's best on these deals and the standard error of that
    gain, whether the decision is informative, what the oracle saw, and the deals played (0:
    the oracle fixes nothing a deal would vary, so its values are the information set's)."""

    oracle: str
    values: list[float]
    best: int
    gain: float
    gain_stderr: float
    informative: bool
    hidden: str
    #: the standard error of the information set's best less the oracle's best on the
    #: information set's deals: how finely an honest seat could tell them apart
    infoset_stderr: float
    deals: int = 0


class Judged(msgspec.Struct, frozen=True):
    """One decision of the player: where, what the seat saw, the alternatives (the chosen one
    first), their mean values on the information set, its best, each oracle's side, and the
    deals the information set was played out on."""

    seq: int
    hand: int
    phase: str
    seen: str
    candidates: list[str]
    values: list[float]
    best: int
    oracles: list[OracleSide]
    deals: int = 0


Values = list[list[int]]
#: one round's verdict on a side: (settled, the alternatives the next round plays)
Step = Callable[[Values, list[int]], tuple[bool, list[int]]]


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _stderr(values: Sequence[float]) -> float:
    n = len(values)
    if n < 2:
        return 0.0
    mean = _mean(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)


def _best(values: Values, alive: Sequence[int]) -> int:
    return max(alive, key=lambda i: (_mean(values[i]), -i))


def _paired(values: Values, a: int, b: int) -> list[float]:
    """Return a's value less b's on the deals both were played on (every alternative plays the
    first deals, so these are the first of both)."""
    return [float(x - y) for x, y in zip(values[a], values[b], strict=False)]


def _interval(diffs: Sequence[float]) -> tuple[float, float] | None:
    """Return the 95% interval of the mean of paired differences (None: one deal shows no noise)."""
    if len(diffs) < 2:
        return None
    mean, half = _mean(diffs), t95(len(diffs) - 1) * _stderr(diffs)
    return mean - half, mean + half


def _settled(values: Values, alive: list[int], top: int, other: int, keep: tuple[int, ...]) -> tuple[bool, list[int]]:
    """Return whether `top`'s gain over `other` is clear of 0 or below `EQUIVALENT` (95%), and
    the alternatives still worth playing: those in `keep`, and each whose shortfall from `top`
    may yet be 0."""
    diffs = _paired(values, top, other)
    interval = _interval(diffs)
    if interval is not None and (interval[0] > 0 or interval[1] <= EQUIVALENT
                                 or _mean(diffs) <= WITHIN * _stderr(diffs)):
        return True, alive
    kept = []
    for i in alive:
        shortfall = _interval(_paired(values, top, i))
        if i in keep or shortfall is None or shortfall[0] <= 0:
            kept.append(i)
    return False, kept


def _infoset_step(values: Values, alive: list[int]) -> tuple[bool, list[int]]:
    """The information set's round verdict: its best against its runner-up."""
    best = _best(values, alive)
    others = [i for i in alive if i != best]
    if not others:
        return True, alive
    return _settled(values, alive, best, _best(values, others), (0, best))


def _oracle_step(best: int) -> Step:
    """An oracle's round verdict: its best against the information set's `best`."""
    def step(values: Values, alive: list[int]) -> tuple[bool, list[int]]:
        top = _best(values, alive)
        if top == best:
            return True, alive
        return _settled(values, alive, top, best, (best, top))
    return step


def _rounds(deal: Callable[[int], GameState], seat: int, candidates: Sequence[Action], seed: str,
            known: Sequence[Sequence[Card]], cap: int, first: int, step: Step) -> tuple[Values, int]:
    """Play a side's rounds of deals (`deal(k)`: deal k) until `step` says it is settled or
    `cap` deals are played; return each alternative's values (a left-out one's on the first
    deals) and the deals played."""
    values: Values = [[] for _ in candidates]
    alive = list(range(len(candidates)))
    played, size = 0, min(cap, first)
    while True:
        deals = [deal(k) for k in range(played, played + size)]
        rows = play_outs(deals, seat, [candidates[i] for i in alive], seed, known, played)
        for i, row in zip(alive, rows, strict=True):
            values[i].extend(row)
        played += size
        if played >= cap:
            return values, played
        settled, alive = step(values, alive)
        if settled:
            return values, played
        size = min(ROUND, cap - played)


def _rng(seed: str, seq: int, k: int) -> random.Random:
    """Deal k's rng of a decision, the same on every side (common random numbers)."""
    return random.Random(f"fairplay/{seed}/{seq}/{k}")


def infoset_side(point: Point, samples: int, seed: str, first: int = FIRST_ROUND) -> tuple[list[Action], Values, int]:
    """Return the alternatives of a decision, their values on deals of the information set
    alone and the deals played (the true hidden cards are never read: every deal re-deals them,
    and the rounds stop on these values alone)."""
    seat = point.info.seat
    first_deal = dealt_table(point.state, point.info, _rng(seed, point.seq, 0))
    offered = [a for a, _ in Choices(first_deal).all()]
    candidates = alternatives(first_deal, seat, offered, point.chosen)

    def deal(k: int) -> GameState:
        return first_deal if k == 0 else dealt_table(point.state, point.info, _rng(seed, point.seq, k))

    values, played = _rounds(deal, seat, candidates, f"fairplay/{seed}/{point.seq}", point.info.known,
                             max(1, samples), first, _infoset_step)
    return candidates, values, played


def judge(point: Point, samples: int, seed: str, oracles: Sequence[str] | None = None,
          first: int = FIRST_ROUND) -> Judged:
    """Judge one decision on the information set and on each oracle (all of the game's, or
    those of `oracles`); `first` is the deals of a side's first round (`samples`: fixed deals,
    no adaptive stop). See the module."""
    seat, state = point.info.seat, point.state
    candidates, values, played = infoset_side(point, samples, seed, first)
    alive = [i for i, v in enumerate(values) if len(v) == played]
    best = _best(values, alive)
    means = [round(_mean(v), 1) for v in values]
    sides = []
    for oracle in (o for o in oracles_for(state.n_players) if oracles is None or o in oracles):
        hidden = hidden_words(state, seat, oracle)
        known = oracle_info(state, point.info, oracle)
        if fixes_nothing(point.info, known):
            sides.append(OracleSide(oracle, means, best, 0.0, 0.0, False, hidden, 0.0, 0))
            continue

        def deal(k: int, oracle: str = oracle) -> GameState:
            return oracle_table(state, point.info, oracle, _rng(seed, point.seq, k))

        ovalues, oplayed = _rounds(deal, seat, candidates, f"fairplay/{seed}/{point.seq}", point.info.known,
                                   max(1, samples), first, _oracle_step(best))
        obest = _best(ovalues, [i for i, v in enumerate(ovalues) if len(v) == oplayed])
        gain = _paired(ovalues, obest, best)
        interval = _interval(gain)
        informative = obest != best and interval is not None and interval[0] > 0
        sides.append(OracleSide(oracle, [round(_mean(v), 1) for v in ovalues], obest, round(_mean(gain), 1),
                                round(_stderr(gain), 1), informative, hidden,
                                round(_stderr(_paired(values, best, obest)), 1), oplayed))
    own = " ".join(sorted(elements(state.hands[seat])))
    top = state.pile[-1] if state.pile else "none"
    return Judged(point.seq, state.hand_no, state.phase, f"hand: {own}; pile top: {top}",
                  [action_words(c) for c in candidates], means, best, sides, played)


def _judge_all(job: tuple[list[Point], int, str, tuple[str, ...] | None, int]) -> list[Judged]:
    points, samples, seed, oracles, first = job
    return [judge(p, samples, seed, oracles, first) for p in points]


def finished(events: Sequence[Event]) -> bool:
    """Return whether a log's game is over (its hidden cards may then be read)."""
    state = GameState()
    for event in events:
        play(state, event)
    return state.phase == "over"


def judge_game(events: Sequence[Event], seat: int, samples: int = DEFAULT_SAMPLES, seed: str = "1",
               workers: int = 1, oracles: Sequence[str] | None = None, first: int = FIRST_ROUND) -> list[Judged]:
    """Judge every decision of `seat` in a finished game's log (on every oracle of the game, or
    those of `oracles`); raise `UnfinishedGame` for a game in progress. Each decision draws from
    its own rngs (the seed and its seq), so the result is the same for any number of `workers`."""
    if not finished(events):
        raise UnfinishedGame("the game has not ended: a fair-play check runs only on finished games")
    chosen = None if oracles is None else tuple(oracles)
    jobs = [([p], samples, seed, chosen, first) for p in decision_points(events, seat)]
    return [j for done in ordered_map(_judge_all, jobs, workers) for j in done]


__all__ = ["DEFAULT_SAMPLES", "FIRST_ROUND", "ROUND", "Judged", "OracleSide", "UnfinishedGame", "finished",
           "infoset_side", "judge", "judge_game"]
