"""Rules as data: every parameter of RULES.md, the seven presets and their aliases.

Glossary (one word per concept across the code):
- *run*: a meld of one suit in sequence; *set*: a meld of one rank (only where `sets` is on).
- *canasta*: a meld of 7+ cards (burraco in Italy); kinds ace_to_ace, royal, clean, dirty.
- *morto* / *dead*: one of the two 11-card extra hands; we say `dead` in code, as EVENTS.md does.
- *wild*: a joker, or a 2 that does not stand in its own place.
- *pile*: the discard pile; *stock*: the face-down draw pile.
- *closing*: going out, which ends the hand (RULES 6).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

PileKind = Literal["open", "closed"]
StockEnd = Literal["refill", "two_left"]
UnusedDead = Literal["penalty", "count"]
PileTopUse = Literal["next_play", "turn_end"]
DeadOwner = Literal["first", "team"]
Refill = Literal["one", "all"]


class Rules(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The full rule set of one variant; goes into each game's first event."""

    jokers: int = 4
    upcard: bool = False
    pile: PileKind = "closed"
    wild_top_new_meld_only: bool = True
    no_single_card_return: bool = False
    sets: bool = False
    one_set_per_rank: bool = False
    ace_to_ace: bool = True
    bonus_royal: int = 500
    bonus_ace_to_ace: int = 1000
    bonus_clean: int = 200
    bonus_dirty: int = 100
    royal_in_one_turn: bool = False
    wild_goes_low: bool = False
    two_value: int = 10
    joker_value: int = 20
    close_needs_clean: bool = True
    close_by_discard: bool = False
    no_wild_last_discard: bool = False
    stock_end: StockEnd = "refill"
    unused_dead: UnusedDead = "penalty"
    close_bonus: int = 100
    no_dead_penalty: int = 100
    unused_dead_penalty: int = 100
    target: int = 0
    # added after the first release: the defaults are the behaviour from before they existed, so
    # a logged `rules` object without them keeps its meaning (RULES 9)
    pile_top_use: PileTopUse = "next_play"
    dead_owner: DeadOwner = "first"
    dead_by_discard: bool = False
    refill: Refill = "one"
    stalemate_rounds: Annotated[int, msgspec.Meta(ge=0)] = 0

    @property
    def deck_size(self) -> int:
        """Return the number of cards in the deck (108 or 104)."""
        return 104 + self.jokers

    def stock_size(self, n_players: int) -> int:
        """Return the stock size right after the deal (RULES 1)."""
        return self.deck_size - 11 * n_players - 22 - (1 if self.upcard else 0)


_BASE = Rules()
#: seeds 002/003 (the five modes of the Turkish and Portuguese texts): a match to 2000, and the
#: untaken deads "are integrated into the stock" all at once
_FIVE_MODES = msgspec.structs.replace(_BASE, refill="all", target=2000)
_OPEN = msgspec.structs.replace(
    _FIVE_MODES, pile="open", wild_top_new_meld_only=False, no_single_card_return=True
)

#: the presets of RULES 9, each following its seed text (the seed is named beside it)
PRESETS: dict[str, Rules] = {
    # seed 001 (Italian STBL): the closed pile's top card may be used any time before the turn ends
    "stbl": msgspec.structs.replace(_BASE, pile_top_use="turn_end"),
    # seeds 002/003, STCL Fechado: the top card in the very next play, every dead refills at once
    "stcl": _FIVE_MODES,
    # seed 000 (Polish): each dead belongs to one team
    "stbl-pl": msgspec.structs.replace(
        _BASE, royal_in_one_turn=True, wild_goes_low=True, joker_value=50, dead_owner="team"
    ),
    "aberto": msgspec.structs.replace(_OPEN, jokers=0, joker_value=0),
    # seed 003's Dirty Open: "to go out or close, a card must be discarded"
    "aberto-sujo": msgspec.structs.replace(
        _OPEN, sets=True, ace_to_ace=False, bonus_ace_to_ace=0, two_value=20, joker_value=30,
        close_needs_clean=False, close_by_discard=True, unused_dead="count", dead_by_discard=True,
    ),
    "fechado": msgspec.structs.replace(_FIVE_MODES, sets=True),
    "fechado-sujo": msgspec.structs.replace(_FIVE_MODES, sets=True, close_needs_clean=False),
    # seed 004 (Hungarian text of Italian Burraco): a hand of mere pile exchanges may end
    "burraco": msgspec.structs.replace(
        _OPEN, upcard=True, sets=True, one_set_per_rank=True, ace_to_ace=False, bonus_royal=0,
        bonus_ace_to_ace=0, wild_goes_low=True, two_value=20, joker_value=30,
        close_needs_clean=False, close_by_discard=True, no_wild_last_discard=True,
        stock_end="two_left", unused_dead="count", refill="one", stalemate_rounds=2,
    ),
}

#: the seed text each preset follows (RULES 9), for `buraco rules` and the docs
SEEDS: dict[str, str] = {
    "stbl": "001 (Italian, Burraco chiuso STBL)",
    "stcl": "002/003 (Turkish and Portuguese, STCL Fechado)",
    "stbl-pl": "000 (Polish, Buraco Fechado)",
    "aberto": "002/003 (Aberto)",
    "aberto-sujo": "002/003 (Aberto sujo / Dirty Open)",
    "fechado": "002/003 (Fechado)",
    "fechado-sujo": "002/003 (Fechado sujo)",
    "burraco": "004 (Hungarian, Italian Burraco)",
}

ALIASES: dict[str, str] = {"fechado-stcl": "stcl", "burraco-it": "burraco"}


class UnknownVariant(ValueError):
    """A variant name that is neither a preset nor an alias."""


def canonical_variant(name: str) -> str:
    """Return the preset name for a preset or alias name (case-insensitive)."""
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key not in PRESETS:
        valid = ", ".join(list(PRESETS) + list(ALIASES))
        raise UnknownVariant(f"unknown variant {name!r}; valid presets: {valid}")
    return key


def find_rules(name: str, **overrides: Any) -> Rules:
    """Return a preset's rules, by name or alias, with `overrides` applied on top."""
    rules = PRESETS[canonical_variant(name)]
    if overrides:
        unknown = set(overrides) - set(Rules.__struct_fields__)
        if unknown:
            raise ValueError(f"unknown rule parameter(s): {', '.join(sorted(unknown))}")
        rules = msgspec.convert(msgspec.structs.asdict(rules) | overrides, Rules)
    return rules


def rules_dict(rules: Rules) -> dict[str, Any]:
    """Return the rules as a plain dict in field order."""
    return msgspec.structs.asdict(rules)
