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

from .events import HandStarted

#: the salt of each hand (0-based hand number -> salt)
SaltSource = Callable[[int], str]


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


__all__ = ["SaltSource", "deal_commitment", "deck_text", "keyed_salts", "seeded_salts"]
