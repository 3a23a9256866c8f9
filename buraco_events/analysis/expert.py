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
"""

from __future__ import annotations

import random

from buraco_events.bots.greedy import GreedyBot
from buraco_events.core.choices import Action, Choices
from buraco_events.core.infoset import Unseen
from buraco_events.model.rules import Rules
from buraco_events.model.views import View

from .evaluate import alternatives, play_outs

#: the deals each decision is played out on by default
EXPERT_SAMPLES = 16
#: the budget's bounds: a name on a command line never asks for more
MAX_EXPERT_SAMPLES = 1024


class ExpertBot:
    """Decides by playing its alternatives out on deals of the cards it cannot see."""

    name = "expert"

    def __init__(self, samples: int = EXPERT_SAMPLES) -> None:
        if not 1 <= samples <= MAX_EXPERT_SAMPLES:
            raise ValueError(f"expert: samples must be 1 to {MAX_EXPERT_SAMPLES}, got {samples}")
        self.samples = samples
        self.fallback = GreedyBot()

    def choose(self, view: View, actions: list[Action], rules: Rules, rng: random.Random) -> Action:
        """Without a table's information set (called as a plain bot): the greedy bot's choice."""
        return self.fallback.choose(view, actions, rules, rng)

    def decide_unseen(self, view: View, choices: Choices, rules: Rules, unseen: Unseen | None,
                      rng: random.Random) -> Action:
        """Return the action with the best mean value over `samples` deals of what it cannot see."""
        offered = [a for a, _ in choices.all()]
        if unseen is None or len(offered) == 1:
            return self.fallback.choose(view, offered, rules, rng)
        seed = f"expert/{rng.getrandbits(64):016x}"
        deals = [unseen.deal(random.Random(f"{seed}/{k}")) for k in range(self.samples)]
        candidates = alternatives(deals[0], unseen.seat, offered)
        values = play_outs(deals, unseen.seat, candidates, seed, unseen.info.known)
        best = max(range(len(candidates)), key=lambda i: (sum(values[i]), -i))
        return candidates[best]


def expert_from_spec(spec: str) -> ExpertBot:
    """Return an expert bot from its command-line name: `expert` or `expert:samples=N`. Raises
    ValueError with one line naming what is wrong."""
    _, _, params = spec.partition(":")
    samples = EXPERT_SAMPLES
    for part in filter(None, (p.strip() for p in params.split(","))):
        key, eq, value = part.partition("=")
        if key.strip() != "samples" or not eq:
            raise ValueError(f"expert: unknown setting {part!r}; the one setting is samples=N")
        try:
            samples = int(value)
        except ValueError:
            raise ValueError(f"expert: samples must be a whole number, got {value!r}") from None
    return ExpertBot(samples)


__all__ = ["EXPERT_SAMPLES", "MAX_EXPERT_SAMPLES", "ExpertBot", "expert_from_spec"]
