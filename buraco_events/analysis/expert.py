"""The expert bot: it decides by the analysis's own evaluation, at play time (`--bots expert`).

At each decision with a choice, it deals the cards it cannot see `samples` times from its
information set (`infoset.Unseen`, which the table gives it: never the true hidden cards), plays
each of the alternatives the analysis would weigh (`evaluate.alternatives`) out to the hand's end
on those same deals with the analysis's play-out bot in every seat (`evaluate.play_outs`,
`playout`: the greedy bot using the cards each seat is known to hold), and takes the one
with the best mean of its team's hand total less the other team's. Its samples come from the rng
the table gives it, so a game with it replays the same from the same seed.

A budget is given in its name: `expert:samples=32` (`expert_from_spec`). Where nothing hidden is
in question (a closed pile being taken) or one action is legal, it plays as the greedy bot does.

Softmax noise, `expert:samples=16:noise=T` (T in points, 0 by default): instead of the best
mean it draws an alternative with probability proportional to `exp(mean / T)` from the table's
rng (`softmax_pick`), so a game replays the same from the same seed. It makes the weaker honest
players of the fair-play check's reference population; T near 0 is the plain expert, large T
nearly uniform among the alternatives.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from buraco_events.bots.greedy import GreedyBot
from buraco_events.core.choices import Action, Choices
from buraco_events.core.infoset import Unseen
from buraco_events.core.state import GameState
from buraco_events.model.rules import Rules
from buraco_events.model.views import View

from .evaluate import alternatives, play_outs

#: the deals each decision is played out on by default
EXPERT_SAMPLES = 16
#: the budget's bounds: a name on a command line never asks for more
MAX_EXPERT_SAMPLES = 1024
#: the softmax noise's bound (points): beyond it every alternative is about as likely
MAX_NOISE = 100_000.0


def softmax_pick(totals: Sequence[float], noise: float, rng: random.Random) -> int:
    """Return the alternative a bot takes from its values' totals: the best (the first of equal
    ones) with no `noise`, else one drawn with probability proportional to `exp(value / noise)`
    (one draw from `rng`)."""
    if noise <= 0:
        return max(range(len(totals)), key=lambda i: (totals[i], -i))
    top = max(totals)
    weights = [math.exp((v - top) / noise) for v in totals]
    r = rng.random() * sum(weights)
    for i, w in enumerate(weights):
        r -= w
        if r < 0:
            return i
    return len(weights) - 1


def check_noise(who: str, noise: float) -> float:
    """Return a softmax noise from a bot's name, or raise ValueError naming the bot."""
    if not 0.0 <= noise <= MAX_NOISE:
        raise ValueError(f"{who}: noise must be 0 to {MAX_NOISE:g} points, got {noise:g}")
    return noise


class ExpertBot:
    """Decides by playing its alternatives out on deals of the cards it cannot see."""

    name = "expert"

    def __init__(self, samples: int = EXPERT_SAMPLES, noise: float = 0.0) -> None:
        if not 1 <= samples <= MAX_EXPERT_SAMPLES:
            raise ValueError(f"expert: samples must be 1 to {MAX_EXPERT_SAMPLES}, got {samples}")
        self.samples = samples
        self.noise = check_noise("expert", noise)
        self.fallback = GreedyBot()

    def choose(self, view: View, actions: list[Action], rules: Rules, rng: random.Random) -> Action:
        """Without a table's information set (called as a plain bot): the greedy bot's choice."""
        return self.fallback.choose(view, actions, rules, rng)

    def decide_unseen(self, view: View, choices: Choices, rules: Rules, unseen: Unseen | None,
                      rng: random.Random) -> Action:
        """Return the action with the best mean value over `samples` deals of what it cannot see
        (or one drawn by its softmax noise)."""
        offered = [a for a, _ in choices.all()]
        if unseen is None or len(offered) == 1:
            return self.fallback.choose(view, offered, rules, rng)
        seed = f"expert/{rng.getrandbits(64):016x}"
        deals = [unseen.deal(random.Random(f"{seed}/{k}")) for k in range(self.samples)]
        return pick_on(deals, unseen, offered, seed, self.noise, rng)


def pick_on(deals: Sequence[GameState], unseen: Unseen, offered: list[Action], seed: str, noise: float,
            rng: random.Random) -> Action:
    """Return the offered action with the best mean play-out value over `deals` (or one drawn by
    the softmax of temperature `noise`): the expert's choice on whatever tables it is given."""
    candidates = alternatives(deals[0], unseen.seat, offered)
    values = play_outs(deals, unseen.seat, candidates, seed, unseen.info.known)
    means = [sum(v) / len(v) for v in values]
    return candidates[softmax_pick(means, noise, rng)]


def expert_from_spec(spec: str) -> ExpertBot:
    """Return an expert bot from its command-line name: `expert`, `expert:samples=N`,
    `expert:noise=T` or both (`:` or `,` between settings). Raises ValueError with one line
    naming what is wrong."""
    _, _, params = spec.partition(":")
    samples, noise = EXPERT_SAMPLES, 0.0
    for part in filter(None, (p.strip() for p in params.replace(",", ":").split(":"))):
        key, eq, value = part.partition("=")
        key = key.strip()
        if key not in ("samples", "noise") or not eq:
            raise ValueError(f"expert: unknown setting {part!r}; settings: samples=N, noise=T")
        try:
            if key == "samples":
                samples = int(value)
            else:
                noise = float(value)
        except ValueError:
            kind = "a whole number" if key == "samples" else "a number of points"
            raise ValueError(f"expert: {key} must be {kind}, got {value!r}") from None
        if key == "noise" and not math.isfinite(noise):
            raise ValueError(f"expert: noise must be a number of points, got {value!r}")
    return ExpertBot(samples, noise)


__all__ = ["EXPERT_SAMPLES", "MAX_EXPERT_SAMPLES", "MAX_NOISE", "ExpertBot", "check_noise", "expert_from_spec",
           "softmax_pick"]
