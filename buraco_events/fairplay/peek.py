"""Cheating bots, for calibrating the fair-play check only: the expert given what it should not
have (`--bots peek:partner`, `peek:hands`, `peek:stock`, with `:rate=R` for the fraction of its
decisions on which it peeks, 1.0 by default, `:samples=N` its deals, `:noise=T` its softmax noise
as the expert's, `analysis.expert.softmax_pick`).

It decides as the expert bot does (`analysis.expert`: the alternatives played out on deals, the
best mean taken), except that on a fraction `rate` of its decisions the deals keep what an oracle
knows where it truly is (`oracle.oracle_table`): the true table reaches it through the offer's
one named way in for calibration bots, `Choices.calibration_truth`. Its name says it cheats (`cheat-peek-partner`), so a log
it played is an ordinary log whose seat names give it away. `partner` in a 2-player game has no
one to peek at: it plays honestly there.
"""

from __future__ import annotations

import math
import random

from buraco_events.analysis.expert import EXPERT_SAMPLES, check_noise, pick_on
from buraco_events.bots.greedy import GreedyBot
from buraco_events.core.choices import Action, Choices
from buraco_events.core.infoset import Unseen
from buraco_events.core.state import GameState
from buraco_events.model.rules import Rules
from buraco_events.model.views import View

from .oracle import ORACLES, oracle_table, oracles_for


class PeekBot:
    """The expert bot that, on a fraction of its decisions, sees what an oracle sees."""

    def __init__(self, oracle: str, rate: float = 1.0, samples: int = EXPERT_SAMPLES, noise: float = 0.0) -> None:
        if oracle not in ORACLES:
            raise ValueError(f"peek: unknown oracle {oracle!r}; oracles: {', '.join(ORACLES)}")
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"peek: rate must be 0 to 1, got {rate}")
        self.oracle, self.rate, self.samples = oracle, rate, samples
        self.noise = check_noise("peek", noise)
        self.name = f"cheat-peek-{oracle}" + ("" if rate == 1.0 else f"-{rate:g}")
        self.fallback = GreedyBot()

    def choose(self, view: View, actions: list[Action], rules: Rules, rng: random.Random) -> Action:
        """Without a table's information set: the greedy bot's choice."""
        return self.fallback.choose(view, actions, rules, rng)

    def decide_unseen(self, view: View, choices: Choices, rules: Rules, unseen: Unseen | None,
                      rng: random.Random) -> Action:
        """Return the best action on deals of the information set, or of the oracle when it
        peeks at this decision."""
        offered = [a for a, _ in choices.all()]
        if unseen is None or len(offered) == 1:
            return self.fallback.choose(view, offered, rules, rng)
        peeks = rng.random() < self.rate and self.oracle in oracles_for(len(unseen.info.hidden))
        seed = f"peek/{rng.getrandbits(64):016x}"
        if peeks:
            truth: GameState = choices.calibration_truth()  # the cheat: the true table behind the offer
            deals = [oracle_table(truth, unseen.info, self.oracle, random.Random(f"{seed}/{k}"))
                     for k in range(self.samples)]
        else:
            deals = [unseen.deal(random.Random(f"{seed}/{k}")) for k in range(self.samples)]
        return pick_on(deals, unseen, offered, seed, self.noise, rng)


def peek_from_spec(spec: str) -> PeekBot:
    """Return a cheating bot from its name: `peek:ORACLE` with optional `:rate=R` and
    `:samples=N` and `:noise=T` (or comma-separated). Raises ValueError with one line naming what is wrong."""
    parts = [p.strip() for p in spec.replace(",", ":").split(":")[1:] if p.strip()]
    if not parts or "=" in parts[0]:
        raise ValueError(f"peek: name an oracle: peek:{'|'.join(ORACLES)}[:rate=R]")
    oracle, rate, samples, noise = parts[0].lower(), 1.0, EXPERT_SAMPLES, 0.0
    for part in parts[1:]:
        key, eq, value = part.partition("=")
        try:
            if key == "rate" and eq:
                rate = float(value)
            elif key == "samples" and eq:
                samples = int(value)
            elif key == "noise" and eq:
                noise = float(value)
            else:
                raise ValueError(f"peek: unknown setting {part!r}; settings: rate=R, samples=N, noise=T")
        except ValueError as exc:
            if "unknown setting" in str(exc):
                raise
            raise ValueError(f"peek: {key} must be a number, got {value!r}") from None
    if not 1 <= samples <= 1024:
        raise ValueError(f"peek: samples must be 1 to 1024, got {samples}")
    if not (math.isfinite(rate) and math.isfinite(noise)):
        raise ValueError("peek: rate and noise must be finite numbers")
    return PeekBot(oracle, rate, samples, noise)


__all__ = ["PeekBot", "peek_from_spec"]
