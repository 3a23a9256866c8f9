"""The card notation of the log format: a card's canonical string, the deck's ranks and suits, and
the parse of what people and logs write (`parse_card`).

A card is its canonical string (`10H`, `AS`, `2C`, `JK`). The two copies of a card are the same
string, so every zone is a multiset. What follows from the notation for the rules (values, the
run positions, which cards are wild, the int codes the engine works on) is `core.cards`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

Card = str

RANKS: Final[tuple[str, ...]] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: Final[tuple[str, ...]] = ("S", "H", "D", "C")
JOKER: Final[Card] = "JK"

_SUIT_ALIASES: Final = {
    "S": "S", "H": "H", "D": "D", "C": "C",
    "♠": "S", "♥": "H", "♦": "D", "♣": "C",
    "♤": "S", "♡": "H", "♢": "D", "♧": "C",
}

#: every canonical card, jokers last
ALL_CARDS: Final[tuple[Card, ...]] = tuple(r + s for s in SUITS for r in RANKS) + (JOKER,)
_CANONICAL: Final = frozenset(ALL_CARDS)
#: the cards dealt to each seat, and to each of the two deads (RULES 1)
HAND_SIZE: Final = 11


class CardError(ValueError):
    """A string that is not a card of the notation."""


def parse_card(text: str) -> Card:
    """Return the canonical card for `text` (accepts lower case, `T` for 10, suit symbols)."""
    if not isinstance(text, str):
        raise CardError(f"not a card: {text!r} (expected a string like '10H', 'AS' or 'JK')")
    if text in _CANONICAL:
        return text
    t = text.strip()
    up = t.upper()
    if up in ("JK", "JOKER", "🃏"):
        return JOKER
    if len(t) >= 2:
        rank, suit = up[:-1], _SUIT_ALIASES.get(up[-1]) or _SUIT_ALIASES.get(t[-1])
        if rank == "T":
            rank = "10"
        if suit and rank in RANKS:
            return rank + suit
    raise CardError(f"not a card: {text!r} (expected rank A 2-10 J Q K and suit S H D C, or JK)")


def parse_cards(texts: Iterable[str] | str) -> tuple[Card, ...]:
    """Parse a list of cards, or a string of cards separated by spaces or commas."""
    if isinstance(texts, str):
        texts = texts.replace(",", " ").split()
    return tuple(parse_card(t) for t in texts)
