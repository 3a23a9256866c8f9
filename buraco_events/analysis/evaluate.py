"""What each decision of a seat cost, judged only from what the seat could know (`buraco analyze`).

At each decision of seat S (a draw or a pile, each play or stopping to discard, a discard, a dead
where it is a choice), the action S chose and its alternatives are played out to the hand's end on
deals of the cards S could not see (`infoset.sample`), the same deals for every alternative
(common random numbers), the analysis's play-out bot then playing every seat (`playout`: the
greedy bot using what every seat knows of the others' hands). An action's value is S's team hand
total minus the other team's on a deal. The deals alternate: the even ones pick the best action,
the odd ones measure how much better it did than the chosen one, so the luck of the pick does not
count as a loss. Nothing here reads the true hidden cards: every play-out starts from a sampled
table, and the alternatives are offered on it.

Adaptive samples: a decision is played out on `FIRST_ROUND` deals, then `ROUND` more at a time,
until the verdict is settled (`settled`) or the deals reach the cap, `CAP_FACTOR` times the
samples asked for (`--samples` is the cap's scale). A round leaves out the alternatives that the
picking deals already show worse than the best (`_prune`). The deals do not depend on the cap,
so a decision settled under one cap is judged the same under a larger one.

The alternatives: all of them when there are at most `MAX_ALTERNATIVES`, else the chosen one, the
greedy bot's choice and the others as the table offers them, plays and discards in turn, up to
that many (`alternatives`).

Classes: the loss's 95% interval (`t95` standard errors of the paired differences either side of
the mean) decides them, its lower end: an inaccuracy from `INACCURACY`, a mistake from `MISTAKE`, a
blunder from `BLUNDER`. More samples narrow the interval, so they confirm or raise a mark rather
than undo it. Accuracy per seat is `100 * exp(-mean loss / ACCURACY_SCALE)`: 100 for no loss,
about 37 when the average decision costs `ACCURACY_SCALE` points. The thresholds are the measured
spread's round figures (`benchmarks/analysis_spread.py`; docs/analysis.md gives the figures).

A seat's accuracy comes with its 95% interval (`accuracy_interval`): the mean loss give or take
`Z95` standard errors of a mean of the decisions' estimates, each decision's the standard error
of its loss (`loss_noise`). The decisions draw from rngs of their own, so their errors are
independent. Each estimate is noisy (a play-out's paired difference spreads over hundreds of
points), so at the default budget the interval of a seat of 16 to 30 decisions spans tens of
points of accuracy: the figure of one game is read with it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import msgspec

from buraco_events.bots.greedy import GreedyBot, TableMemory
from buraco_events.core.cards import Card
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

from .playout import PlayoutBot

#: the alternatives evaluated per decision at the most
MAX_ALTERNATIVES = 8
#: the samples asked for by default: the scale of a decision's cap
DEFAULT_SAMPLES = 16
#: a decision's cap on deals, as a multiple of the samples asked for
CAP_FACTOR = 2
#: the deals of a decision's first round, and the deals each later round adds
FIRST_ROUND, ROUND = 16, 8
#: standard errors either side of a mean that make its 95% interval: Student's t at 97.5% by
#: degrees of freedom (1 to 30), the normal's 1.96 beyond
T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
       2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
       2.045, 2.042)
Z95 = 1.96
#: points within which two actions count as equal (the adaptive stop)
EQUIVALENT = 20.0
#: the version of the `--json` format: 2 adds each decision's interval and samples, 3 the
#: accuracy's interval (an analysis without `version` is of version 1)
FORMAT_VERSION = 3
#: the losses (points) from which a decision is an inaccuracy, a mistake, a blunder
INACCURACY, MISTAKE, BLUNDER = 200, 350, 600
#: the mean loss (points) at which accuracy is 100/e
ACCURACY_SCALE = 110.0


class Option(msgspec.Struct, frozen=True):
    """One action evaluated: its words, its mean value over the samples and the standard error."""

    action: str
    value: float
    stderr: float


class Decision(msgspec.Struct, frozen=True):
    """One decision of the seat: where, what was chosen, the best, the loss, its 95% interval,
    its class and the deals it took (the interval and the deals: None in a version 1 file)."""

    seq: int
    hand: int
    phase: str
    chosen: str
    best: str
    loss: float
    loss_stderr: float | None  # None when the choice stands, or with one deal to measure on
    mark: str | None  # None, "inaccuracy", "mistake" or "blunder"
    options: list[Option]
    #: the loss's 95% interval, at least 0 (when the choice stands: how much the runner-up may
    #: beat it); None with one deal to measure on
    low: float | None = None
    high: float | None = None
    samples: int | None = None  # the deals this decision was played out on


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
    version: int = 1  # FORMAT_VERSION when written now; a file without it is of version 1
    #: the accuracy's 95% interval (`accuracy_interval`): None before version 3, or where a
    #: decision has no interval (one deal to measure on)
    accuracy_low: float | None = None
    accuracy_high: float | None = None


def mark_of(loss: float) -> str | None:
    """Return the class of a decision's loss (None below an inaccuracy)."""
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    if loss >= INACCURACY:
        return "inaccuracy"
    return None


def format_problem(a: Analysis) -> tuple[str, str] | None:
    """Return (field, why) where an analysis's version or a decision's interval and deals cannot
    be an analysis's (a version this code does not know, an interval that is not one around the
    loss, a mark that is not the class of its lower end, fewer than one deal), else None; the
    readers of analysis files (`load`, the index's `decisions`) refuse such a file."""
    if not 1 <= a.version <= FORMAT_VERSION:
        return "version", f"{a.version} is not a version of the analysis format (1 to {FORMAT_VERSION})"
    for i, d in enumerate(a.decisions):
        at = f"decisions[{i}]"
        if d.samples is not None and d.samples < 1:
            return f"{at}.samples", f"{d.samples} is not a number of deals (1 or more)"
        if (d.low is None) != (d.high is None):
            return f"{at}.low", "an interval has both ends or neither"
        if d.low is not None and d.high is not None:
            if not (math.isfinite(d.low) and math.isfinite(d.high) and 0 <= d.low <= d.loss <= d.high):
                return f"{at}.low", f"{d.low!r} to {d.high!r} is not an interval around the loss {d.loss!r}"
            if d.mark != mark_of(d.low):
                return f"{at}.mark", f"{d.mark!r} is not the class of the interval's lower end {d.low!r}"
    low, high = a.accuracy_low, a.accuracy_high
    if (low is None) != (high is None):
        return "accuracy_low", "an interval has both ends or neither"
    if low is not None and high is not None and not (
            math.isfinite(low) and math.isfinite(high) and 0 <= low <= a.accuracy <= high <= 100):
        return "accuracy_low", f"{low!r} to {high!r} is not an interval (0-100) around the accuracy {a.accuracy!r}"
    return None


def accuracy_of(mean_loss: float) -> float:
    """Return the accuracy figure (0-100) of a mean loss per decision."""
    return round(100.0 * math.exp(-max(mean_loss, 0.0) / ACCURACY_SCALE), 1)


def loss_noise(d: Decision) -> float | None:
    """Return the standard error of a decision's loss: its own where the analysis found a better
    action; where the choice stands, the one its interval (how much the runner-up may beat it) was
    made of; 0 where nothing else could be played; None without an interval."""
    if d.loss_stderr is not None:
        return d.loss_stderr
    if d.low is None or d.high is None or d.samples is None:
        return None
    if d.high <= d.low:
        return 0.0
    return (d.high - d.low) / (2 * t95(d.samples // 2 - 1))  # the odd deals measure (`judge`)


def accuracy_interval(decisions: Sequence[Decision]) -> tuple[float, float] | None:
    """Return the 95% interval of a seat's accuracy, (low, high): its mean loss give or take `Z95`
    standard errors of a mean of independent estimates (`loss_noise`); None when a decision has
    no interval."""
    if not decisions:
        return 100.0, 100.0
    noises = [loss_noise(d) for d in decisions]
    if any(x is None for x in noises):
        return None
    mean = sum(d.loss for d in decisions) / len(decisions)
    half = Z95 * math.sqrt(sum(x * x for x in noises if x is not None)) / len(decisions)
    return accuracy_of(mean + half), accuracy_of(mean - half)


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


def _play_out(state: GameState, seat: int, action: Action, seed: str,
              known: Sequence[Sequence[Card]] = ()) -> int:
    """Play `action` for `seat` on a copy of `state`, then the play-out bots to the hand's end;
    return the seat's team hand total less the other team's. `known`: the cards each seat is known
    to hold as the play-out starts."""
    knowledge = Knowledge(state.n_players)
    for held, cards in zip(knowledge.known, known, strict=False):
        held.update(cards)
    shared = TableMemory()  # the bots of one table share their game's memory
    table = Table([PlayoutBot(shared, knowledge) for _ in range(state.n_players)],
                  SharedStream(random.Random(seed)))
    table.state = state.copy()
    for done in table.act(seat, action, advance=False):
        knowledge.see(done)
    while True:
        event = table.step()
        if event is None or isinstance(event, HandEnded):
            break
        knowledge.see(event)
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


def play_outs(deals: Sequence[GameState], seat: int, candidates: Sequence[Action], seed: str,
              known: Sequence[Sequence[Card]] = (), first: int = 0) -> list[list[int]]:
    """Return each candidate's value on each deal (`_play_out`); the bots of the play-outs on deal
    k (counted from `first`) draw from the same seed whatever the candidate (common random
    numbers)."""
    return [[_play_out(deal, seat, action, f"{seed}/{first + k}/bots", known) for k, deal in enumerate(deals)]
            for action in candidates]


@dataclass(frozen=True)
class Verdict:
    """Where a decision's deals stand: the best action (0: the chosen), the action it is
    compared with (the best, or the runner-up when the chosen is best; None: no other), the mean
    of their paired differences on the measuring deals and its standard error (None: one deal)."""

    best: int
    rival: int | None
    mean: float
    stderr: float | None
    measured: int = 0  # the deals the mean is over

    @property
    def interval(self) -> tuple[float, float] | None:
        """Return the 95% interval of the rival's gain over the chosen action."""
        if self.stderr is None:
            return None
        half = t95(self.measured - 1) * self.stderr
        return self.mean - half, self.mean + half

    @property
    def settled(self) -> bool:
        """Return whether more deals would not change the verdict: the rival is at most
        `EQUIVALENT` points better (95%), or it is better and the class of its gain is the same
        at both ends of the interval."""
        interval = self.interval
        if self.rival is None:
            return True
        if interval is None:
            return False
        low, high = interval
        return high <= EQUIVALENT or (low > 0 and mark_of(low) == mark_of(high))


def judge(values: Sequence[Sequence[int]], alive: Sequence[int]) -> Verdict:
    """Return the verdict of the deals played so far: the best of the `alive` candidates on the
    even deals, measured against the chosen one (candidate 0) on the odd deals."""
    picked = sorted(alive, key=lambda i: (-sum(values[i][0::2]), i))
    best = picked[0]
    rival = best if best != 0 else (picked[1] if len(picked) > 1 else None)
    if rival is None:
        return Verdict(0, None, 0.0, None)
    measured = 1 if len(values[0]) > 1 else 0  # with one deal, picked and measured on it
    diffs = [b - c for b, c in zip(values[rival][measured::2], values[0][measured::2], strict=True)]
    mean = sum(diffs) / len(diffs)
    return Verdict(best, rival, mean, _stderr(diffs) if len(diffs) > 1 else None, len(diffs))


def _prune(values: Sequence[Sequence[int]], alive: list[int], best: int) -> list[int]:
    """Return the candidates still worth playing out: the chosen one, the best, and each other
    whose 95% interval of its shortfall from the best on the picking deals reaches 0."""
    kept = []
    for i in alive:
        if i in (0, best):
            kept.append(i)
            continue
        diffs = [b - c for b, c in zip(values[best][0::2], values[i][0::2], strict=True)]
        if len(diffs) < 2 or sum(diffs) / len(diffs) - t95(len(diffs) - 1) * _stderr(diffs) <= 0:
            kept.append(i)
    return kept


def evaluate(point: Point, samples: int, seed: str) -> Decision:
    """Evaluate one decision on deals of what the seat could not see: rounds of deals until the
    verdict is settled, `CAP_FACTOR * samples` deals at the most (see the module)."""
    seat = point.info.seat
    cap = max(2, CAP_FACTOR * samples)

    def deals(start: int, stop: int) -> list[GameState]:
        return [dealt_table(point.state, point.info, random.Random(f"analysis/{seed}/{point.seq}/{k}"))
                for k in range(start, stop)]

    first = deals(0, min(cap, FIRST_ROUND))
    offered = [a for a, _ in Choices(first[0]).all()]  # offered on a sampled table: the seat's own cards decide
    candidates = alternatives(first[0], seat, offered, point.chosen)
    values: list[list[int]] = [[] for _ in candidates]
    alive = list(range(len(candidates)))
    batch, played = first, 0
    while True:
        # the play-outs start from what the seat knows of the others' hands (`InfoSet.known`)
        rows = play_outs(batch, seat, [candidates[i] for i in alive], f"analysis/{seed}/{point.seq}",
                         point.info.known, played)
        for i, row in zip(alive, rows, strict=True):
            values[i].extend(row)
        played += len(batch)
        verdict = judge(values, alive)
        if verdict.settled or played >= cap:
            break
        alive = _prune(values, alive, verdict.best)
        batch = deals(played, min(cap, played + ROUND))
    return _decision(point, candidates, values, verdict, played)


def _decision(point: Point, candidates: Sequence[Action], values: Sequence[Sequence[int]], verdict: Verdict,
              played: int) -> Decision:
    """Return the decision a verdict gives: the loss and its interval, the mark of its lower end."""
    best, interval = verdict.best, verdict.interval
    loss = max(0.0, verdict.mean) if best != 0 else 0.0
    if loss == 0.0:
        best = 0  # no alternative did better where it was measured: the choice stands
    low = high = None
    if interval is not None:
        low, high = round(max(0.0, interval[0]), 1), round(max(0.0, interval[1]), 1)
    elif verdict.rival is None:
        low = high = 0.0  # nothing else to play: the choice stands for sure
    if best == 0 and low is not None:
        low = 0.0  # the choice stands: the interval says how much the runner-up may beat it
    stderr = verdict.stderr if best != 0 else None
    mark = mark_of(low) if best != 0 and low is not None else None
    options = [Option(action_words(a), round(sum(values[i]) / len(values[i]), 1), round(_stderr(values[i]), 1))
               for i, a in enumerate(candidates)]
    return Decision(point.seq, point.state.hand_no, point.state.phase, action_words(point.chosen),
                    action_words(candidates[best]), round(loss, 1), None if stderr is None else round(stderr, 1),
                    mark, options, low, high, played)


def t95(df: int) -> float:
    """Return the standard errors either side of a mean of `df + 1` values that make its 95%
    interval (Student's t: the spread is estimated from the same values)."""
    return T95[df - 1] if df <= len(T95) else Z95


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
    interval = accuracy_interval(decisions)
    return Analysis(getattr(start, "game_id", ""), seat, players[seat] if seat < len(players) else "", samples, seed,
                    decisions, round(mean, 1), accuracy_of(mean), costliest, FORMAT_VERSION,
                    *(interval if interval is not None else (None, None)))


__all__ = [
    "ACCURACY_SCALE", "BLUNDER", "CAP_FACTOR", "DEFAULT_SAMPLES", "EQUIVALENT", "FIRST_ROUND", "FORMAT_VERSION",
    "INACCURACY", "MAX_ALTERNATIVES", "MISTAKE", "ROUND", "T95", "Z95", "Analysis", "Decision", "Option", "Point", "Verdict",
    "accuracy_interval", "accuracy_of", "alternatives", "loss_noise", "format_problem", "analyze", "decision_points", "evaluate", "judge", "mark_of", "play_outs", "t95",
    "summarize",
]
