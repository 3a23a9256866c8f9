"""Where a game's chance comes from: the rng policies a `table.Table` deals and asks bots with.

The engine draws no random numbers and the table does no bookkeeping of seeds: a policy says
which `random.Random` deals each hand and which one a bot deciding at a given seq gets. Three
schemes exist and each reproduces its logs' bytes: `SeedStreams` (`buraco simulate`),
`PositionSeeds` (`buraco play`, resumable) and `SharedStream` (one rng for everything: the tests'
random games and the disputed logs' generator). They are a module of their own because a new
scheme changes what reproduces a log, never how a game is driven.
"""

from __future__ import annotations

import random
from typing import Protocol


class RngPolicy(Protocol):
    """Where chance comes from: the rng that deals each hand and the one a deciding bot gets.

    The engine draws no random numbers; a policy is the table's only source of them, so the same
    policy (and the same seats) give the same events. A policy whose rngs depend only on the
    position in the game (`PositionSeeds`) also continues a resumed game exactly.
    """

    #: what the game's seed was, for error messages (None when the policy has none)
    seed: int | None

    def deal_rng(self, hand: int) -> random.Random:
        """Return the rng that deals hand `hand` (0-based)."""
        ...

    def seat_rng(self, seq: int) -> random.Random:
        """Return the rng of the bot deciding the event at `seq`."""
        ...


class SeedStreams:
    """`buraco simulate`'s scheme: one stream for every deal, another for every bot decision.

    Deals come from `Random(f"deal/{seed}")` and bots draw from `Random(f"bots/{seed}")` in play
    order (string seeds hash with SHA-512: stable across runs and processes), so the deals do not
    depend on the bots. A stream's position depends on what came before: a resumed game deals on
    legally, but not as the uninterrupted game would have.
    """

    def __init__(self, seed: int):
        self.seed: int | None = seed
        self._deals = random.Random(f"deal/{seed}")
        self._bots = random.Random(f"bots/{seed}")

    def deal_rng(self, hand: int) -> random.Random:
        """Return the deal stream (the hand number is not used)."""
        return self._deals

    def seat_rng(self, seq: int) -> random.Random:
        """Return the bot stream (the seq is not used)."""
        return self._bots


class PositionSeeds:
    """`buraco play`'s scheme: chance depends only on the seed and the position in the game.

    Hand N is dealt from `Random(f"{seed}:{N}")` and the bot deciding at seq S gets
    `Random(f"{seed}:bot:{S}")`, so a game resumed from its log continues exactly as the
    uninterrupted one would with the same input.
    """

    def __init__(self, seed: int):
        self.seed: int | None = seed

    def deal_rng(self, hand: int) -> random.Random:
        """Return a fresh rng for hand `hand`."""
        return random.Random(f"{self.seed}:{hand}")

    def seat_rng(self, seq: int) -> random.Random:
        """Return a fresh rng for the decision at `seq`."""
        return random.Random(f"{self.seed}:bot:{seq}")


class BranchSeeds:
    """A branch's scheme (`play.branch`): chance after the fork depends only on the seed written in
    its `branched` line and the position, as `PositionSeeds` (so a branch resumed from its log
    continues as it would have), in streams of their own: hand N is dealt from
    `Random(f"branch/{seed}/deal/{N}")` (only a hand its parent never dealt) and the bot deciding
    at seq S gets `Random(f"branch/{seed}/bot/{S}")`.
    """

    def __init__(self, seed: str):
        self.seed: int | None = None
        self.text = seed

    def deal_rng(self, hand: int) -> random.Random:
        """Return a fresh rng for hand `hand`."""
        return random.Random(f"branch/{self.text}/deal/{hand}")

    def seat_rng(self, seq: int) -> random.Random:
        """Return a fresh rng for the decision at `seq`."""
        return random.Random(f"branch/{self.text}/bot/{seq}")


class SharedStream:
    """One rng for everything, deals and decisions in play order (the tests' random games)."""

    def __init__(self, rng: random.Random, seed: int | None = None):
        self.rng, self.seed = rng, seed

    def deal_rng(self, hand: int) -> random.Random:
        """Return the shared rng."""
        return self.rng

    def seat_rng(self, seq: int) -> random.Random:
        """Return the shared rng."""
        return self.rng



__all__ = ["BranchSeeds", "PositionSeeds", "RngPolicy", "SeedStreams", "SharedStream"]
