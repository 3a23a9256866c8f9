"""Cheating bots, for calibrating the fair-play check only: the expert given what it should not
have (`--bots peek:partner`, `peek:hands`, `peek:stock`, with `:rate=R` for the fraction of its
decisions on which it peeks, 1.0 by default).

It decides as the expert bot does (`analysis.expert`: the alternatives played out on deals, the
best mean taken), except that on a fraction `rate` of its decisions the deals keep what an oracle
knows where it truly is (`oracle.oracle_table`): the true table reaches it through the table's
offer of choices, which holds the state. Its name says it cheats (`cheat-peek-partner`), so a log
it played is an ordinary log whose seat names give it away. `partner` in a 2-player game has no
one to peek at: it plays honestly there.
"""

from __future__ import annotations

import random

from buraco_events.analysis.evaluate import alternatives, play_outs
from buraco_events.analysis.expert import EXPERT_SAMPLES
from buraco_events.bots.greedy import GreedyBot
from buraco_events.core.choices import Action, Choices
from buraco_events.core.infoset import Unseen
from buraco_events.core.state import GameState
from buraco_events.model.rules import Rules
from buraco_events.model.views import View

from .oracle import ORACLES, oracle_table, oracles_for


class PeekBot:
    """The expert bot that, on a fraction of its decisions, sees what an oracle sees."""

    def __init__(self, oracle: str, rate: float = 1.0, samples: int = EXPERT_SAMPLES) -> None:
        if oracle not in ORACLES:
            raise ValueError(f"peek: unknown oracle {oracle!r}; oracles: {', '.join(ORACLES)}")
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"peek: rate must be 0 to 1, got {rate}")
        self.oracle, self.rate, self.samples = oracle, rate, samples
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
        truth: GameState = choices._state  # the cheat: the true table behind the offer
        peeks = rng.random() < self.rate and self.oracle in oracles_for(truth.n_players)
        seed = f"peek/{rng.getrandbits(64):016x}"
        if peeks:
            deals = [oracle_table(truth, unseen.info, self.oracle, random.Random(f"{seed}/{k}"))
                     for k in range(self.samples)]
        else:
            deals = [unseen.deal(random.Random(f"{seed}/{k}")) for k in range(self.samples)]
        candidates = alternatives(deals[0], unseen.seat, offered)
        values = play_outs(deals, unseen.seat, candidates, seed, unseen.info.known)
        best = max(range(len(candidates)), key=lambda i: (sum(values[i]), -i))
        return candidates[best]


def peek_from_spec(spec: str) -> PeekBot:
    """Return a cheating bot from its name: `peek:ORACLE` with optional `:rate=R` and
    `:samples=N` (or comma-separated). Raises ValueError with one line naming what is wrong."""
    parts = [p.strip() for p in spec.replace(",", ":").split(":")[1:] if p.strip()]
    if not parts or "=" in parts[0]:
        raise ValueError(f"peek: name an oracle: peek:{'|'.join(ORACLES)}[:rate=R]")
    oracle, rate, samples = parts[0].lower(), 1.0, EXPERT_SAMPLES
    for part in parts[1:]:
        key, eq, value = part.partition("=")
        try:
            if key == "rate" and eq:
                rate = float(value)
            elif key == "samples" and eq:
                samples = int(value)
            else:
                raise ValueError(f"peek: unknown setting {part!r}; settings: rate=R, samples=N")
        except ValueError as exc:
            if "unknown setting" in str(exc):
                raise
            raise ValueError(f"peek: {key} must be a number, got {value!r}") from None
    if not 1 <= samples <= 1024:
        raise ValueError(f"peek: samples must be 1 to 1024, got {samples}")
    return PeekBot(oracle, rate, samples)


__all__ = ["PeekBot", "peek_from_spec"]
