"""Rules as data: the seven presets against RULES 9, aliases, overrides and errors."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from buraco_events.rules import (
    ALIASES,
    PRESETS,
    Rules,
    UnknownVariant,
    canonical_variant,
    find_rules,
    rules_dict,
)

NAMES = ("stbl", "stbl-pl", "aberto", "aberto-sujo", "fechado", "fechado-sujo", "burraco")

# RULES 9, transcribed column by column. "-" cells: a flag that does not apply is off (False), a
# bonus or value that does not exist is 0. Bonuses clean 200 / dirty 100 come from RULES 3.5, the
# close bonus and both dead penalties (100) from RULES 7; they are the same in every column.
Y, N = True, False
TABLE: dict[str, tuple[Any, ...]] = {
    #                stbl      stbl-pl   aberto    ab-sujo   fechado   fe-sujo   burraco
    "jokers":        (4,       4,        0,        4,        4,        4,        4),
    "upcard":        (N,       N,        N,        N,        N,        N,        Y),
    "pile":          ("closed", "closed", "open",  "open",   "closed", "closed", "open"),
    "wild_top_new_meld_only": (Y, Y,     N,        N,        Y,        Y,        N),
    "no_single_card_return":  (N, N,     Y,        Y,        N,        N,        Y),
    "sets":          (N,       N,        N,        Y,        Y,        Y,        Y),
    "one_set_per_rank": (N,    N,        N,        N,        N,        N,        Y),
    "ace_to_ace":    (Y,       Y,        Y,        N,        Y,        Y,        N),
    "bonus_royal":   (500,     500,      500,      500,      500,      500,      0),
    "bonus_ace_to_ace": (1000, 1000,     1000,     0,        1000,     1000,     0),
    "royal_in_one_turn": (N,   Y,        N,        N,        N,        N,        N),
    "wild_goes_low": (N,       Y,        N,        N,        N,        N,        Y),
    "two_value":     (10,      10,       10,       20,       10,       10,       20),
    "joker_value":   (20,      50,       0,        30,       20,       20,       30),
    "close_needs_clean": (Y,   Y,        Y,        N,        Y,        N,        N),
    "close_by_discard": (N,    N,        N,        Y,        N,        N,        Y),
    "no_wild_last_discard": (N, N,       N,        N,        N,        N,        Y),
    "stock_end":     ("refill", "refill", "refill", "refill", "refill", "refill", "two_left"),
    "unused_dead":   ("penalty", "penalty", "penalty", "count", "penalty", "penalty", "count"),
    "target":        (0,       0,        2000,     2000,     2000,     2000,     2000),
    "bonus_clean":   (200,) * 7,
    "bonus_dirty":   (100,) * 7,
    "close_bonus":   (100,) * 7,
    "no_dead_penalty": (100,) * 7,
    "unused_dead_penalty": (100,) * 7,
}


def test_table_covers_every_parameter() -> None:
    # every Rules field is checked against the table, and nothing else is in it
    assert set(TABLE) == set(Rules.__struct_fields__)
    assert list(PRESETS) == list(NAMES)


@pytest.mark.parametrize("param", sorted(TABLE))
def test_presets_match_rules_table(param: str) -> None:
    # RULES 9: every parameter of every column
    got = tuple(getattr(PRESETS[name], param) for name in NAMES)
    assert got == TABLE[param]


@pytest.mark.parametrize(("alias", "preset"), [("stcl", "stbl"), ("fechado-stcl", "stbl"), ("burraco-it", "burraco")])
def test_aliases(alias: str, preset: str) -> None:
    # RULES 9: stcl and fechado-stcl = stbl; burraco-it = burraco
    assert ALIASES[alias] == preset
    assert canonical_variant(alias) == preset
    assert find_rules(alias) == PRESETS[preset]


def test_names_are_case_insensitive() -> None:
    assert canonical_variant(" Fechado-Sujo ") == "fechado-sujo"
    assert find_rules("STCL") == PRESETS["stbl"]


def test_override_target() -> None:
    # RULES 9: every parameter can be overridden on top of a preset, e.g. a 3000-point target
    rules = find_rules("fechado", target=3000)
    assert rules.target == 3000
    assert rules_dict(rules) == rules_dict(PRESETS["fechado"]) | {"target": 3000}
    assert PRESETS["fechado"].target == 2000  # the preset itself is untouched


def test_override_several_and_validated() -> None:
    rules = find_rules("burraco-it", sets=False, stock_end="refill")
    assert (rules.sets, rules.stock_end, rules.upcard) == (False, "refill", True)
    with pytest.raises(msgspec.ValidationError):
        find_rules("stbl", stock_end="forever")


def test_unknown_override_named() -> None:
    with pytest.raises(ValueError, match="unknown rule parameter.*colour"):
        find_rules("stbl", colour=3)


def test_unknown_preset_names_the_valid_ones() -> None:
    with pytest.raises(UnknownVariant) as info:
        find_rules("canasta")
    msg = str(info.value)
    assert "'canasta'" in msg
    for name in (*NAMES, *ALIASES):
        assert name in msg


def test_rules_roundtrip_json() -> None:
    # the full Rules goes into each game's first event (RULES 9): it must survive JSON
    for rules in PRESETS.values():
        assert msgspec.json.decode(msgspec.json.encode(rules), type=Rules) == rules


@pytest.mark.parametrize(("name", "deck"), [("stbl", 108), ("aberto", 104), ("burraco", 108)])
def test_deck_size_property(name: str, deck: int) -> None:
    # RULES 1: 108 cards with 4 jokers, 104 without
    assert PRESETS[name].deck_size == deck
