"""Deal commitments (docs/log-format.md): a deal fixed before play, provable after it (pure).

A `hand_started` may carry `commitment`, the hex SHA-256 of `salt + "|" + deck` (`deck` the deal's
cards joined by `,` in the order `hands` seat by seat, `deads[0]`, `deads[1]`, `stock`, `discard`);
the hand's `hand_ended` reveals `salt`. Whoever saw the commitment before the first move can then
check (`buraco audit`) that the deal was not changed afterwards. The salt keeps the commitment
from telling anything about the deck before the salt is revealed.

Where salts come from is the caller's choice, as a `SaltSource` (hand number -> salt) handed to
the table (`table.Table(salts=...)`); two are here:

- `seeded_salts(seed)`: derived from the game's seed, so a seeded simulation writes the same
  bytes every time (the seed fixes the deck anyway: there is nothing more to hide);
- `keyed_salts(key)`: an HMAC of the hand number under a secret key (`buraco play` keeps the key
  beside the log, never in it), so nobody can work a salt out from the log or the seed, and a
  resumed game reveals the same salt the interrupted one committed to.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Callable
from typing import NamedTuple

from buraco_events.model.events import HandEnded, HandStarted

#: the salt of each hand (0-based hand number -> salt; None where it is not known)
SaltSource = Callable[[int], "str | None"]


def deck_text(ev: HandStarted) -> str:
    """Return the deal's cards joined by `,` in the commitment order of the log format."""
    cards = [c for h in ev.hands for c in h]
    for d in ev.deads:
        cards.extend(d)
    cards.extend(ev.stock)
    cards.extend(ev.discard)
    return ",".join(cards)


def deal_commitment(salt: str, ev: HandStarted) -> str:
    """Return the commitment a deal should carry: hex SHA-256 of `salt + "|" + deck`."""
    return hashlib.sha256(f"{salt}|{deck_text(ev)}".encode()).hexdigest()


class Broken(NamedTuple):
    """A deal whose commitment fails: the deal, the seq of the line that shows it (its
    `hand_ended`, or what came in its place), and why: `no_salt` (that hand_ended reveals no
    salt), `mismatch` (the salt does not give the commitment), `next_deal` or `game_ended` (the
    next deal or the end of the game came before the hand's end)."""

    deal: HandStarted
    at: int
    why: str


class Commitments:
    """The commitment rule of the log format, followed event by event: a deal that carries a
    commitment must have it revealed by its own `hand_ended` salt before anything else ends it.

    `deal` and `ended` take each `hand_started` and `hand_ended` in order, `game_ended` takes the
    end of a complete game; each returns the deal it shows broken, if any. One deal waits for its
    salt at a time.
    """

    def __init__(self) -> None:
        self.pending: HandStarted | None = None

    def deal(self, ev: HandStarted) -> Broken | None:
        """Take a new deal: the waiting one (if any) was never revealed."""
        broken = self._unrevealed(ev.seq, "next_deal")
        if ev.commitment is not None:
            self.pending = ev
        return broken

    def ended(self, ev: HandEnded) -> Broken | None:
        """Take a hand's end: its salt must reveal the waiting deal of the same hand."""
        deal = self.pending
        if deal is None or deal.hand != ev.hand:
            return None
        self.pending = None
        if ev.salt is None:
            return Broken(deal, ev.seq, "no_salt")
        if deal_commitment(ev.salt, deal) != deal.commitment:
            return Broken(deal, ev.seq, "mismatch")
        return None

    def game_ended(self, seq: int) -> Broken | None:
        """Take the end of the game at `seq`: a deal still waiting was never revealed."""
        return self._unrevealed(seq, "game_ended")

    def _unrevealed(self, seq: int, why: str) -> Broken | None:
        deal, self.pending = self.pending, None
        return None if deal is None else Broken(deal, seq, why)


def seeded_salts(seed: int) -> SaltSource:
    """Return salts drawn from `Random(f"salt/{seed}:{hand}")`: reproducible from the seed, and
    apart from the deal and bot streams, so committing changes no card and no decision."""

    def salt(hand: int) -> str:
        return f"{random.Random(f'salt/{seed}:{hand}').getrandbits(128):032x}"

    return salt


def keyed_salts(key: bytes) -> SaltSource:
    """Return salts that are HMAC-SHA256(key, hand number): secret while the key is."""

    def salt(hand: int) -> str:
        return hmac.new(key, str(hand).encode(), hashlib.sha256).hexdigest()[:32]

    return salt


__all__ = ["Broken", "Commitments", "SaltSource", "deal_commitment", "deck_text", "keyed_salts", "seeded_salts"]
