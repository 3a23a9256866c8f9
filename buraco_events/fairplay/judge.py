"""Each decision of a player, judged twice: on the information set and on each oracle.

At each decision (`evaluate.decision_points`, the same as `buraco analyze`'s), the alternatives
`analyze` weighs (`evaluate.alternatives`, the chosen one first) are played out to the hand's end
(`evaluate.play_outs`, the analysis's play-out bot in every seat) on `samples` deals of each side:

- the information set: tables dealt from what the seat could know (`infoset.dealt_table`), as
  `analyze` deals them; nothing of this side reads a hidden card;
- each oracle (`oracle`): tables that keep the hidden cards the oracle knows where they truly are.

Every side plays its deals with the same bots' seeds whatever the alternative (common random
numbers), so the differences between alternatives are paired. A decision is *informative* for an
oracle when the oracle's best action differs from the information set's best and beats it on the
oracle's deals by more than `NOISE` standard errors of the paired differences (two deals at the
least: one shows no noise): there, only a seat that knew what the oracle knows would prefer it. The number of deals is fixed (no adaptive
rounds): both sides of a decision are measured alike, and the same seed gives the same values.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import msgspec

from buraco_events.analysis.evaluate import Point, alternatives, decision_points, play_outs
from buraco_events.core.choices import Choices
from buraco_events.core.engine import play
from buraco_events.core.infoset import dealt_table
from buraco_events.core.state import GameState, elements
from buraco_events.model.events import Event
from buraco_events.play.commands import action_words
from buraco_events.util.pool import ordered_map

from .oracle import hidden_words, oracle_table, oracles_for

#: the deals each side of a decision is played out on by default
DEFAULT_SAMPLES = 8
#: standard errors by which an oracle's best must beat the information set's best (two, as the
#: analysis's 95% marks)
NOISE = 2.0


class UnfinishedGame(ValueError):
    """A log whose game has not ended: the oracle side never runs on a live table."""


class OracleSide(msgspec.Struct, frozen=True):
    """One decision on one oracle's deals: each alternative's mean value, the best, how much
    the best beat the information set's best on these deals and the standard error of that
    gain, whether the decision is informative, and what the oracle saw."""

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


class Judged(msgspec.Struct, frozen=True):
    """One decision of the player: where, what the seat saw, the alternatives (the chosen one
    first), their mean values on the information set, its best, and each oracle's side."""

    seq: int
    hand: int
    phase: str
    seen: str
    candidates: list[str]
    values: list[float]
    best: int
    oracles: list[OracleSide]


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _stderr(values: Sequence[float]) -> float:
    n = len(values)
    if n < 2:
        return 0.0
    mean = _mean(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)


def _best(values: Sequence[Sequence[int]]) -> int:
    return max(range(len(values)), key=lambda i: (_mean(values[i]), -i))


def _paired(values: Sequence[Sequence[int]], a: int, b: int) -> list[float]:
    return [float(x - y) for x, y in zip(values[a], values[b], strict=True)]


def infoset_side(point: Point, samples: int, seed: str) -> tuple[list, list[list[int]]]:
    """Return the alternatives of a decision and their values on deals of the information set
    alone (the true hidden cards are never read: every deal re-deals them)."""
    seat = point.info.seat
    deals = [dealt_table(point.state, point.info, random.Random(f"fairplay/{seed}/{point.seq}/{k}"))
             for k in range(samples)]
    offered = [a for a, _ in Choices(deals[0]).all()]
    candidates = alternatives(deals[0], seat, offered, point.chosen)
    values = play_outs(deals, seat, candidates, f"fairplay/{seed}/{point.seq}", point.info.known)
    return candidates, values


def judge(point: Point, samples: int, seed: str) -> Judged:
    """Judge one decision on the information set and on each oracle (see the module)."""
    seat, state = point.info.seat, point.state
    candidates, values = infoset_side(point, samples, seed)
    best = _best(values)
    sides = []
    for oracle in oracles_for(state.n_players):
        base = f"fairplay/{seed}/{point.seq}/{oracle}"
        deals = [oracle_table(state, point.info, oracle, random.Random(f"{base}/{k}")) for k in range(samples)]
        ovalues = play_outs(deals, seat, candidates, base, point.info.known)
        obest = _best(ovalues)
        gain = _paired(ovalues, obest, best)
        mean, se = _mean(gain), _stderr(gain)
        informative = obest != best and len(gain) > 1 and mean > NOISE * se and mean > 0  # one deal shows no noise
        sides.append(OracleSide(oracle, [round(_mean(v), 1) for v in ovalues], obest, round(mean, 1), round(se, 1),
                                informative, hidden_words(state, seat, oracle),
                                round(_stderr(_paired(values, best, obest)), 1)))
    own = " ".join(sorted(elements(state.hands[seat])))
    top = state.pile[-1] if state.pile else "none"
    return Judged(point.seq, state.hand_no, state.phase, f"hand: {own}; pile top: {top}",
                  [action_words(c) for c in candidates], [round(_mean(v), 1) for v in values], best, sides)


def _judge_all(job: tuple[list[Point], int, str]) -> list[Judged]:
    points, samples, seed = job
    return [judge(p, samples, seed) for p in points]


def finished(events: Sequence[Event]) -> bool:
    """Return whether a log's game is over (its hidden cards may then be read)."""
    state = GameState()
    for event in events:
        play(state, event)
    return state.phase == "over"


def judge_game(events: Sequence[Event], seat: int, samples: int = DEFAULT_SAMPLES, seed: str = "1",
               workers: int = 1) -> list[Judged]:
    """Judge every decision of `seat` in a finished game's log; raise `UnfinishedGame` for a
    game in progress. Each decision draws from its own rngs (the seed and its seq), so the
    result is the same for any number of `workers`."""
    if not finished(events):
        raise UnfinishedGame("the game has not ended: a fair-play check runs only on finished games")
    jobs = [([p], samples, seed) for p in decision_points(events, seat)]
    return [j for done in ordered_map(_judge_all, jobs, workers) for j in done]


__all__ = ["DEFAULT_SAMPLES", "NOISE", "Judged", "OracleSide", "UnfinishedGame", "finished", "infoset_side", "judge",
           "judge_game"]
