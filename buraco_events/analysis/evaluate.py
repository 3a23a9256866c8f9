"""What each decision of a seat cost, judged only from what the seat could know (`buraco analyze`).

At each decision of seat S (a draw or a pile, each play or stopping to discard, a discard, a dead
where it is a choice), the action S chose and its alternatives are played out to the hand's end on
K deals of the cards S could not see (`infoset.sample`), the same K deals for every alternative
(common random numbers), the greedy bot then playing every seat. An action's value is S's team hand
total minus the other team's, averaged over the deals. The best action is picked on the first half
of the deals and the loss (the best's value less the chosen one's, at least 0) is measured on the
other half, so the luck of the pick does not count as a loss. Nothing here reads the true hidden cards: every play-out starts from a sampled table, and
the alternatives are offered on it.

The alternatives: all of them when there are at most `MAX_ALTERNATIVES`, else the chosen one, the
greedy bot's choice and the others as the table offers them, plays and discards in turn, up to
that many (`alternatives`).

Classes, by the loss in points: an inaccuracy from `INACCURACY`, a mistake from `MISTAKE`, a
blunder from `BLUNDER`, and only where the loss is more than two standard errors of the paired
differences (so sampling noise marks nothing). Accuracy per seat is `100 * exp(-mean loss / ACCURACY_SCALE)`: 100 for no
loss, about 37 when the average decision costs `ACCURACY_SCALE` points. The thresholds are the
measured spread's round figures: about the 80th, 93rd and 98th percentiles of the nonzero losses
of the sample logs' decisions at the default samples, and the scale puts the median seat's accuracy
near 75 (`benchmarks/analysis_spread.py` measures them; docs/analysis.md gives the figures).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import msgspec

from buraco_events.bots.greedy import GreedyBot, TableMemory
from buraco_events.core.choices import Action, Choices
from buraco_events.core.engine import play
from buraco_events.core.gate import team_of
from buraco_events.core.infoset import InfoSet, Knowledge, dealt_table, info_set
from buraco_events.core.seatview import player_view
from buraco_events.core.seeds import SharedStream
from buraco_events.core.state import PLAYING_PHASES, GameState
from buraco_events.core.table import Table
from buraco_events.model.events import Event, HandEnded
from buraco_events.play.commands import action_words
from buraco_events.util.pool import ordered_map

#: the alternatives evaluated per decision at the most
MAX_ALTERNATIVES = 8
#: the samples per decision by default
DEFAULT_SAMPLES = 16
#: the losses (points) from which a decision is an inaccuracy, a mistake, a blunder
INACCURACY, MISTAKE, BLUNDER = 200, 350, 600
#: the mean loss (points) at which accuracy is 100/e
ACCURACY_SCALE = 160.0


class Option(msgspec.Struct, frozen=True):
    """One action evaluated: its words, its mean value over the samples and the standard error."""

    action: str
    value: float
    stderr: float


class Decision(msgspec.Struct, frozen=True):
    """One decision of the seat: where, what was chosen, the best, the loss and its class."""

    seq: int
    hand: int
    phase: str
    chosen: str
    best: str
    loss: float
    loss_stderr: float | None  # None when the choice stands, or with one deal to measure on
    mark: str | None  # None, "inaccuracy", "mistake" or "blunder"
    options: list[Option]


class Analysis(msgspec.Struct, frozen=True):
    """The exact `--json` shape of `buraco analyze`."""

    game_id: str
    seat: int
    player: str
    samples: int
    seed: str
    decisions: list[Decision]
    mean_loss: float
    accuracy: float
    costliest: list[int]  # the seqs of the three costliest decisions


def mark_of(loss: float) -> str | None:
    """Return the class of a decision's loss (None below an inaccuracy)."""
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    if loss >= INACCURACY:
        return "inaccuracy"
    return None


def accuracy_of(mean_loss: float) -> float:
    """Return the accuracy figure (0-100) of a mean loss per decision."""
    return round(100.0 * math.exp(-max(mean_loss, 0.0) / ACCURACY_SCALE), 1)


@dataclass(frozen=True)
class Point:
    """A decision to evaluate: the table before it (true; only its public part and the seat's hand
    are read, through the information set), the information set, and the chosen action."""

    seq: int
    state: GameState
    info: InfoSet
    chosen: Action


def decision_points(events: Sequence[Event], seat: int) -> list[Point]:
    """Return the decisions of `seat` in a log: each event of the seat where it had a choice."""
    state, knowledge = GameState(), Knowledge()
    points: list[Point] = []
    for event in events:
        if (state.phase in PLAYING_PHASES and state.to_play == seat and getattr(event, "player", None) == seat
                and state.pending_top is None and not state.pending_rest):
            choices = Choices(state)
            if choices.single() is None:
                bare = msgspec.structs.replace(event, prev=None, at=None)  # as the table offers it
                chosen = next((a for a, e in choices.all() if e == bare), None)
                if chosen is not None:
                    points.append(Point(event.seq, state.copy(), info_set(state, knowledge, seat), chosen))
        play(state, event)
        knowledge.see(event)
    return points


def _play_out(state: GameState, seat: int, action: Action, seed: str) -> int:
    """Play `action` for `seat` on a copy of `state`, then greedy bots to the hand's end; return the
    seat's team hand total less the other team's."""
    shared = TableMemory()  # the greedy bots of one table share their game's memory
    table = Table([GreedyBot(shared) for _ in range(state.n_players)], SharedStream(random.Random(seed)))
    table.state = state.copy()
    table.act(seat, action, advance=False)
    while True:
        event = table.step()
        if event is None or isinstance(event, HandEnded):
            break
    result = table.state.hand_results[-1]
    team = team_of(seat)
    ours = sum(s.total for s in result if s.team == team)
    return 2 * ours - sum(s.total for s in result)


def alternatives(table: GameState, seat: int, offered: Sequence[Action], chosen: Action | None = None) -> list[Action]:
    """Return the actions to evaluate at a decision: the chosen one (if any), the greedy bot's
    pick on `table`, then the others as offered, plays and discards in turn (so that neither kind
    crowds the other out), `MAX_ALTERNATIVES` at the most."""
    pick = GreedyBot().choose(player_view(table, seat, scores=False), list(offered), table.rules,
                                            random.Random(0))
    plays = [a for a in offered if a.kind != "discard"]
    discards = [a for a in offered if a.kind == "discard"]
    mixed = [a for pair in zip(plays, discards, strict=False) for a in pair]
    mixed += plays[len(discards):] + discards[len(plays):]
    candidates: list[Action] = [] if chosen is None else [chosen]
    for action in [pick, *mixed]:
        if len(candidates) >= MAX_ALTERNATIVES:
            break
        if action not in candidates:
            candidates.append(action)
    return candidates


def play_outs(deals: Sequence[GameState], seat: int, candidates: Sequence[Action], seed: str) -> list[list[int]]:
    """Return each candidate's value on each deal (`_play_out`); the bots of the play-outs on deal
    k draw from the same seed whatever the candidate (common random numbers)."""
    return [[_play_out(deal, seat, action, f"{seed}/{k}/bots") for k, deal in enumerate(deals)]
            for action in candidates]


def evaluate(point: Point, samples: int, seed: str) -> Decision:
    """Evaluate one decision on `samples` deals of what the seat could not see."""
    seat = point.info.seat
    deals = [dealt_table(point.state, point.info, random.Random(f"analysis/{seed}/{point.seq}/{k}"))
             for k in range(samples)]
    offered = [a for a, _ in Choices(deals[0]).all()]  # offered on a sampled table: the seat's own cards decide
    candidates = alternatives(deals[0], seat, offered, point.chosen)
    values = play_outs(deals, seat, candidates, f"analysis/{seed}/{point.seq}")
    means = [sum(v) / samples for v in values]
    # the best is picked on one half of the deals and its gain measured on the other half: picked
    # and measured on the same deals, the luckiest alternative would look better than it is
    half = samples // 2 if samples > 1 else samples
    judged = half if samples > 1 else 0
    best = max(range(len(candidates)), key=lambda i: (sum(values[i][:half]), -i))
    diffs = [b - c for b, c in zip(values[best][judged:], values[0][judged:], strict=True)]
    loss = max(0.0, sum(diffs) / len(diffs)) if best != 0 else 0.0
    if loss == 0.0:
        best = 0  # no alternative did better where it was measured: the choice stands
    options = [Option(action_words(a), round(means[i], 1), round(_stderr(values[i]), 1))
               for i, a in enumerate(candidates)]
    stderr = _stderr(diffs) if len(diffs) > 1 and best != 0 else None
    # a decision is marked only when its loss stands out of the samples' noise (two standard
    # errors); with one deal to measure on, the noise is unknown and nothing is marked
    mark = mark_of(loss) if stderr is not None and loss > 2 * stderr else None
    return Decision(point.seq, point.state.hand_no, point.state.phase, action_words(point.chosen),
                    action_words(candidates[best]), round(loss, 1), None if stderr is None else round(stderr, 1),
                    mark, options)


def _stderr(values: Sequence[float]) -> float:
    n = len(values)
    if n < 2:
        return 0.0
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)


def _evaluate_all(job: tuple[list[Point], int, str]) -> list[Decision]:
    """Evaluate a chunk of decisions (runs in a worker)."""
    points, samples, seed = job
    return [evaluate(point, samples, seed) for point in points]


def analyze(events: Sequence[Event], seat: int, samples: int = DEFAULT_SAMPLES, seed: str = "1",
            workers: int = 1, on_decision: Callable[[int, int], None] | None = None) -> Analysis:
    """Analyze every decision of `seat` in a log (`on_decision(done, total)` reports progress).

    Each decision draws from its own rngs (the seed and its seq), so the result is the same for
    any number of `workers`."""
    points = decision_points(events, seat)
    jobs = [([p], samples, seed) for p in points]
    decisions: list[Decision] = []
    for done in ordered_map(_evaluate_all, jobs, workers):
        decisions.extend(done)
        if on_decision is not None:
            on_decision(len(decisions), len(points))
    return summarize(events, seat, samples, seed, decisions)


def summarize(events: Sequence[Event], seat: int, samples: int, seed: str, decisions: list[Decision]) -> Analysis:
    """Return the analysis of a seat from its evaluated decisions."""
    start = events[0]
    players = getattr(start, "players", ())
    mean = sum(d.loss for d in decisions) / len(decisions) if decisions else 0.0
    costliest = [d.seq for d in sorted(decisions, key=lambda d: (-d.loss, d.seq))[:3] if d.loss > 0]
    return Analysis(getattr(start, "game_id", ""), seat, players[seat] if seat < len(players) else "", samples, seed,
                    decisions, round(mean, 1), accuracy_of(mean), costliest)


__all__ = [
    "ACCURACY_SCALE", "BLUNDER", "DEFAULT_SAMPLES", "INACCURACY", "MAX_ALTERNATIVES", "MISTAKE", "Analysis",
    "Decision", "Option", "Point", "accuracy_of", "alternatives", "analyze", "decision_points", "evaluate", "mark_of", "play_outs", "summarize",
]
