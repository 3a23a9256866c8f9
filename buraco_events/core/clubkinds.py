"""The club and tournament canasta kinds (RULES 3.5): semi-clean, super, super dirty, royal dirty
and ace-to-ace dirty, each existing only where its bonus (`bonus_<kind>`) is set.

`melds.canasta_kind` asks here once a canasta is clean or dirty and a club kind exists under the
rules (`club_kinds_on`, read once per rules object into `melds.MeldRules`); `melds.canasta_bonus`
asks `club_bonus` for their bonuses. A module of its own so that the meld rule (`melds`) stays to
what every variant plays; it reads a meld's shape, never builds one.
"""

from __future__ import annotations

from typing import Protocol

from buraco_events.model.rules import Rules
from buraco_events.model.terms import CanastaKind, MeldType

from .cards import SUIT_POS_CARDS, Card


class MeldShape(Protocol):
    """What the club kinds read of a meld's shape (`melds.MeldShape`, which builds on this module)."""

    @property
    def type(self) -> MeldType: ...
    @property
    def cards(self) -> tuple[Card, ...]: ...
    @property
    def wild(self) -> Card | None: ...
    @property
    def suit(self) -> str | None: ...
    @property
    def low(self) -> int: ...
    @property
    def high(self) -> int: ...


def club_kind(shape: MeldShape, rules: Rules, one_turn: bool = True) -> CanastaKind | None:
    """Return the club or tournament kind a canasta is (RULES 3.5), the highest whose bonus is
    set, or None when it is none of them (it scores as clean or dirty).

    A clean canasta is super when it is a set of all 8 naturals of its rank. A dirty one is, from
    the highest: ace-to-ace dirty (a run of 14: it would be ace-to-ace were its wild the card it
    stands for; needs `ace_to_ace`), royal dirty (a run of 13), super dirty (a set of all 8
    naturals and the wild), semi-clean (the wild taken out leaves a clean canasta: 7 naturals or
    more, in a run the wild at one of its ends). The clean royal and ace-to-ace kinds come first
    (`size_kind`); `royal_in_one_turn` holds the dirty royal kinds as it holds the clean ones.
    """
    n = len(shape.cards)
    if n < 7:
        return None  # no canasta (`melds.CANASTA_SIZE`)
    run = shape.type == "run"
    if shape.wild is None:
        return "super" if not run and n == 8 and rules.bonus_super else None
    if run:
        royal_counts = one_turn or not rules.royal_in_one_turn
        if n == 14 and royal_counts and rules.ace_to_ace and rules.bonus_ace_to_ace_dirty:
            return "ace_to_ace_dirty"
        if n == 13 and royal_counts and rules.bonus_royal_dirty:
            return "royal_dirty"
    elif n == 9 and rules.bonus_super_dirty:
        return "super_dirty"
    if n > 7 and rules.bonus_semiclean and (not run or _wild_at_end(shape)):
        return "semiclean"
    return None


def _wild_at_end(shape: MeldShape) -> bool:
    """Return whether a dirty run's wild stands at one of its ends: the card at an end is not the
    natural of that position (a wild never stands where its own card would be natural)."""
    row = SUIT_POS_CARDS[shape.suit or ""]
    cards = shape.cards
    return cards[0] != row[shape.low] or cards[-1] != row[shape.high]


def club_kinds_on(rules: Rules) -> bool:
    """Return whether any club or tournament kind exists under the rules (its bonus set)."""
    return bool(rules.bonus_semiclean or rules.bonus_super or rules.bonus_super_dirty
                or rules.bonus_royal_dirty or rules.bonus_ace_to_ace_dirty)


def club_bonus(kind: CanastaKind, rules: Rules) -> int:
    """Return a club kind's bonus (RULES 3.5); `melds.canasta_bonus` answers the other kinds."""
    if kind == "semiclean":
        return rules.bonus_semiclean
    if kind == "super":
        return rules.bonus_super
    if kind == "super_dirty":
        return rules.bonus_super_dirty
    if kind == "royal_dirty":
        return rules.bonus_royal_dirty
    if kind == "ace_to_ace_dirty":
        return rules.bonus_ace_to_ace_dirty
    raise ValueError(f"{kind} is no club kind")
