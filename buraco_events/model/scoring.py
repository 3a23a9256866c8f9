"""Score sheets as the formats hold them: one team's breakdown of a hand (RULES 7) and the names
people read its items by. The arithmetic that fills them is the rules' (`core.sheets`)."""

from __future__ import annotations

import msgspec

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
