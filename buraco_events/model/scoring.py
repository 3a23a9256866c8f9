"""Scoring: the per-team breakdown of a hand (RULES 7) and the match result (RULES 8)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

import msgspec

from buraco_events.core.cards import ALL_CARDS, Card, card_value
from buraco_events.core.melds import CanastaKind, canasta_bonus

from .rules import Rules

#: the score sheet's items in the order every sheet lists them, each with the one name people read
#: it by (docs/rules.md §7): play, replay, the share page, audit and its page all show these
SHEET_ROWS: tuple[tuple[str, str], ...] = (
    ("meld_points", "cards in melds"),
    ("canasta_bonus", "canastas"),
    ("close_bonus", "closing"),
    ("hand_penalty", "cards left in hand"),
    ("dead_penalty", "dead penalty"),
)
#: the name of a sheet's sum, the hand's points
HAND_TOTAL = "hand total"


class SheetLine(msgspec.Struct, frozen=True, kw_only=True):
    """The five items of one team's score sheet for one hand and their sum (`total`): what an
    audit report lists of a sheet."""

    team: int
    meld_points: int
    canasta_bonus: int
    close_bonus: int
    hand_penalty: int
    dead_penalty: int
    total: int


class TeamScore(SheetLine, frozen=True, kw_only=True):
    """One team's score sheet for one hand; `total` is the sum of the five items."""

    canastas: dict[str, int] = {}
    took_dead: bool = False
    dead_unused: bool = False


@lru_cache(maxsize=64)
def _values(two_value: int, joker_value: int) -> dict[Card, int]:
    return {c: card_value(c, two_value, joker_value) for c in ALL_CARDS}


def cards_value(cards: Iterable[Card], rules: Rules) -> int:
    """Return the summed card values (RULES 7)."""
    values = _values(rules.two_value, rules.joker_value)
    return sum(map(values.__getitem__, cards))


def score_team(
    rules: Rules,
    team: int,
    melds: Iterable[tuple[Sequence[Card], CanastaKind | None]],
    hand_cards: Iterable[Card],
    unused_dead_cards: Sequence[Card],
    closed: bool,
    took_dead: bool,
    dead_unused: bool,
) -> TeamScore:
    """Return a team's breakdown.

    `melds` are the team's melds as (cards, canasta kind or None); `hand_cards` are the cards left
    in the team's hands except an unused dead's, which come apart in `unused_dead_cards`.
    """
    value = _values(rules.two_value, rules.joker_value).__getitem__
    meld_points = 0
    bonus = 0
    canastas: dict[str, int] = {}
    for cards, kind in melds:
        meld_points += sum(map(value, cards))
        if kind is not None:
            bonus += canasta_bonus(kind, rules)
            canastas[kind] = canastas.get(kind, 0) + 1
    hand_penalty = -sum(map(value, hand_cards))
    dead_penalty = 0
    if not took_dead:
        dead_penalty -= rules.no_dead_penalty
    elif dead_unused:
        if rules.unused_dead == "penalty":
            dead_penalty -= rules.unused_dead_penalty  # RULES 7: its cards are not counted
        else:
            hand_penalty -= cards_value(unused_dead_cards, rules)  # counted as hand cards
    close_bonus = rules.close_bonus if closed else 0
    return TeamScore(
        team=team, meld_points=meld_points, canasta_bonus=bonus, close_bonus=close_bonus,
        hand_penalty=hand_penalty, dead_penalty=dead_penalty,
        total=meld_points + bonus + close_bonus + hand_penalty + dead_penalty,
        canastas=canastas, took_dead=took_dead, dead_unused=dead_unused,
    )


def match_result(totals: Sequence[int], target: int, first_team: int, hands_played: int) -> int | None:
    """Return the winning team once the match is over, else None (RULES 8).

    Over after one hand when `target` is 0, else when a team reaches `target`; the higher total
    wins, an exact tie goes to `first_team` (the team that played first in hand 0).
    """
    if hands_played == 0:
        return None
    if target > 0 and max(totals) < target:
        return None
    best = max(totals)
    leaders = [t for t, v in enumerate(totals) if v == best]
    return leaders[0] if len(leaders) == 1 else first_team
