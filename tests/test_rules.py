"""Rules as data: the seven presets against RULES 9, aliases, overrides and errors."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from buraco_events.core.gate import team_of
from buraco_events.model.rules import (
    ALIASES,
    PARAMETERS,
    PLAYER_COUNTS,
    PRESETS,
    PlayerCountError,
    Rules,
    UnknownVariant,
    canonical_variant,
    check_players,
    explain,
    find_rules,
    parse_overrides,
    presets_markdown,
    read_rules,
    rules_dict,
)

NAMES = ("stbl", "stcl", "stbl-pl", "aberto", "aberto-sujo", "fechado", "fechado-sujo", "burraco",
         "burraco-torneo")

# RULES 9, transcribed column by column. "-" cells: a flag that does not apply is off (False), a
# bonus or value that does not exist is 0, and a choice that does not apply keeps its default
# (pile_top_use next_play where the pile is open, refill one where the stock never refills).
# Bonuses clean 200 / dirty 100 come from RULES 3.5, the close bonus and both dead penalties
# (100) from RULES 7; they are the same in every column.
Y, N = True, False
TABLE: dict[str, tuple[Any, ...]] = {
    #                stbl      stcl      stbl-pl   aberto    ab-sujo   fechado   fe-sujo   burraco  torneo
    "jokers":        (4,       4,        4,        0,        4,        4,        4,        4, 4),
    "upcard":        (N,       N,        N,        N,        N,        N,        N,        Y, Y),
    "pile":          ("closed", "closed", "closed", "open",  "open",   "closed", "closed", "open", "open"),
    "wild_top_new_meld_only": (Y, Y,     Y,        N,        N,        Y,        Y,        N, N),
    "no_single_card_return":  (N, N,     N,        Y,        Y,        N,        N,        Y, Y),
    "sets":          (N,       N,        N,        N,        Y,        Y,        Y,        Y, Y),
    "one_set_per_rank": (N,    N,        N,        N,        N,        N,        N,        Y, Y),
    "ace_to_ace":    (Y,       Y,        Y,        Y,        N,        Y,        Y,        N, N),
    "bonus_royal":   (500,     500,      500,      500,      500,      500,      500,      0, 0),
    "bonus_ace_to_ace": (1000, 1000,     1000,     1000,     0,        1000,     1000,     0, 0),
    "royal_in_one_turn": (N,   N,        Y,        N,        N,        N,        N,        N, N),
    "wild_goes_low": (N,       N,        Y,        N,        N,        N,        N,        Y, Y),
    "two_value":     (10,      10,       10,       10,       20,       10,       10,       20, 20),
    "joker_value":   (20,      20,       50,       0,        30,       20,       20,       30, 30),
    "close_needs_clean": (Y,   Y,        Y,        Y,        N,        Y,        N,        N, N),
    "close_by_discard": (N,    N,        N,        N,        Y,        N,        N,        Y, Y),
    "no_wild_last_discard": (N, N,       N,        N,        N,        N,        N,        Y, Y),
    "stock_end":     ("refill",) * 7 + ("two_left", "two_left"),
    "unused_dead":   ("penalty", "penalty", "penalty", "penalty", "count", "penalty", "penalty", "count", "count"),
    "pile_top_use":  ("turn_end", "next_play", "next_play", "next_play", "next_play", "next_play", "next_play", "next_play", "next_play"),
    "dead_owner":    ("first", "first",  "team",   "first",  "first",  "first",  "first",  "first", "first"),
    "dead_by_discard": (N,     N,        N,        N,        Y,        N,        N,        N, N),
    "refill":        ("one",   "all",    "one",    "all",    "all",    "all",    "all",    "one", "one"),
    "stalemate_rounds": (0,    0,        0,        0,        0,        0,        0,        2, 2),
    "target":        (0,       2000,     0,        2000,     2000,     2000,     2000,     2000, 2000),
    "bonus_clean":   (200,) * 9,
    "bonus_dirty":   (100,) * 9,
    "close_bonus":   (100,) * 9,
    "no_dead_penalty": (100,) * 9,
    "unused_dead_penalty": (100,) * 9,
    # RULES 3.5, 7, 8: the club and tournament parameters, off (yes for the dead penalty) but
    # burraco-torneo's tournament turn of 4 hands
    "bonus_semiclean": (0,) * 9,
    "bonus_super":   (0,) * 9,
    "bonus_super_dirty": (0,) * 9,
    "bonus_royal_dirty": (0,) * 9,
    "bonus_ace_to_ace_dirty": (0,) * 9,
    "dead_penalty_after_refill": (Y,) * 9,
    "hands_per_game": (0,) * 8 + (4,),
}


def test_table_covers_every_parameter() -> None:
    # every Rules field is checked against the table, and nothing else is in it
    assert set(TABLE) == set(PARAMETERS)
    assert list(PRESETS) == list(NAMES)


@pytest.mark.parametrize("param", sorted(TABLE))
def test_presets_match_rules_table(param: str) -> None:
    # RULES 9: every parameter of every column
    got = tuple(getattr(PRESETS[name], param) for name in NAMES)
    assert got == TABLE[param]


@pytest.mark.parametrize(("alias", "preset"), [("fechado-stcl", "stcl"), ("burraco-it", "burraco")])
def test_aliases(alias: str, preset: str) -> None:
    # RULES 9: fechado-stcl = stcl (its own preset now, no longer an alias of stbl); burraco-it = burraco
    assert ALIASES[alias] == preset
    assert canonical_variant(alias) == preset
    assert find_rules(alias) == PRESETS[preset]


def test_names_are_case_insensitive() -> None:
    assert canonical_variant(" Fechado-Sujo ") == "fechado-sujo"
    assert find_rules("STCL") == PRESETS["stcl"] != PRESETS["stbl"]


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


def test_rules_object_without_the_new_parameters_reads_as_before() -> None:
    # RULES 9, last paragraph: a logged rules object lacking the five parameters added after the
    # first release takes next_play, first, no, one and 0 (the behaviour before they existed)
    old = {k: v for k, v in rules_dict(PRESETS["stbl"]).items()
           if k not in ("pile_top_use", "dead_owner", "dead_by_discard", "refill", "stalemate_rounds")}
    rules = msgspec.convert(old, Rules)
    assert (rules.pile_top_use, rules.dead_owner, rules.dead_by_discard, rules.refill,
            rules.stalemate_rounds) == ("next_play", "first", False, "one", 0)
    assert rules != PRESETS["stbl"]  # stbl itself now follows seed 001: turn_end


def test_stalemate_rounds_may_not_be_negative() -> None:
    with pytest.raises(msgspec.ValidationError, match="stalemate_rounds"):
        find_rules("burraco", stalemate_rounds=-1)


# -- buraco rules --------------------------------------------------------------------------------


def _cli(*args: str) -> Any:
    from typer.testing import CliRunner

    from cli.main import app
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "250"})  # no wrapped sentences


def test_cli_explains_every_parameter_beside_its_value() -> None:
    result = _cli("rules", "fechado-stcl")
    assert result.exit_code == 0, result.output
    assert "rules of stcl, following seed 002/003" in result.output
    rules = PRESETS["stcl"]
    for name in PARAMETERS:
        # the sentence for this preset's value, on the parameter's own line
        line = next(row for row in result.output.splitlines() if row.startswith(f"│ {name} "))
        assert explain(rules, name) in line, name
    assert "into the very next play" in result.output and "before the turn ends" not in result.output


def test_explanations_follow_the_value() -> None:
    stbl, stcl = PRESETS["stbl"], PRESETS["stcl"]
    for name in ("pile_top_use", "refill", "target"):
        assert explain(stbl, name) != explain(stcl, name)
    assert "before the turn ends" in explain(stbl, "pile_top_use")
    assert "2 rounds" in explain(PRESETS["burraco"], "stalemate_rounds")


def test_cli_json_is_the_rules_object() -> None:
    import json
    result = _cli("rules", "stbl-pl", "--json")
    assert result.exit_code == 0
    assert read_rules(json.loads(result.stdout)) == PRESETS["stbl-pl"]
    everything = json.loads(_cli("rules", "--json").stdout)
    assert list(everything) == list(NAMES)


@pytest.mark.parametrize("doc", ["README.md", "docs/rules.md"])
def test_docs_preset_table_is_the_code(doc: str) -> None:
    # the preset table of RULES 9 in the docs is exactly what `buraco rules --markdown` prints
    from pathlib import Path
    text = (Path(__file__).resolve().parent.parent / doc).read_text()
    table = text.split("<!-- presets:begin -->\n", 1)[1].split("<!-- presets:end -->", 1)[0]
    assert table == presets_markdown()
    assert _cli("rules", "--markdown").stdout == table


@pytest.mark.parametrize("n", range(7))
def test_only_two_or_four_players_sit_at_a_table(n: int) -> None:
    # RULES 1: two players, each a team, or four in two fixed teams
    if n in (2, 4):
        check_players(n)
    else:
        with pytest.raises(PlayerCountError, match=f"^Buraco is for 2 or 4 players, got {n}$"):
            check_players(n)
    assert PLAYER_COUNTS == (2, 4)


def test_partners_sit_opposite() -> None:
    # RULES 1: seats 0..3 clockwise; seats 0 and 2 are team 0, seats 1 and 3 team 1
    assert [team_of(seat) for seat in range(4)] == [0, 1, 0, 1]


# -- the club and tournament parameters (RULES 3.5, 7, 8, 9) ----------------------------------------

CLUB = ("bonus_semiclean", "bonus_super", "bonus_super_dirty", "bonus_royal_dirty",
        "bonus_ace_to_ace_dirty", "dead_penalty_after_refill", "hands_per_game")


def test_rules_object_without_the_club_parameters_reads_them_as_off() -> None:
    # RULES 9: a logged rules object lacking them takes 0, 0, 0, 0, 0, yes and 0
    old = {k: v for k, v in rules_dict(PRESETS["burraco"]).items() if k not in CLUB}
    rules = read_rules(old)
    assert tuple(getattr(rules, k) for k in CLUB) == (0, 0, 0, 0, 0, True, 0)
    assert rules == PRESETS["burraco"]


@pytest.mark.parametrize("name", NAMES[:-1])
def test_a_preset_is_written_without_the_club_parameters(name: str) -> None:
    # a game of any earlier preset writes its rules object byte for byte as before they existed
    encoded = msgspec.json.decode(msgspec.json.encode(PRESETS[name]))
    assert not set(encoded) & set(CLUB)
    # and giving one at its off value changes nothing: the same rules, the same bytes
    given = find_rules(name, bonus_semiclean=0, dead_penalty_after_refill=True, hands_per_game=0)
    assert given == PRESETS[name]
    assert msgspec.json.encode(given) == msgspec.json.encode(PRESETS[name])


def test_burraco_torneo_is_burraco_in_a_turn_of_four_hands() -> None:
    torneo, burraco = PRESETS["burraco-torneo"], PRESETS["burraco"]
    assert torneo.hands_per_game == 4
    assert rules_dict(torneo) == rules_dict(burraco) | {"hands_per_game": 4}
    assert msgspec.json.decode(msgspec.json.encode(torneo))["hands_per_game"] == 4
    # a tournament may set 3 and the semi-clean bonus on top
    three = find_rules("burraco-torneo", hands_per_game=3, bonus_semiclean=150)
    assert (three.hands_per_game, three.bonus_semiclean, three.target) == (3, 150, 2000)


def test_club_parameters_roundtrip_and_validate() -> None:
    rules = find_rules("stbl", bonus_semiclean=150, bonus_super=1000, bonus_super_dirty=500,
                       bonus_royal_dirty=300, bonus_ace_to_ace_dirty=600,
                       dead_penalty_after_refill=False, hands_per_game=3)
    assert msgspec.json.decode(msgspec.json.encode(rules), type=Rules) == rules
    assert tuple(getattr(rules, k) for k in CLUB) == (150, 1000, 500, 300, 600, False, 3)
    for name in ("bonus_semiclean", "hands_per_game"):
        with pytest.raises(msgspec.ValidationError, match=name):
            find_rules("stbl", **{name: -1})


def test_parse_overrides_reads_each_parameter_as_its_type() -> None:
    got = parse_overrides(["bonus_semiclean=150,dead_penalty_after_refill=no", "hands_per_game=3",
                           "close_needs_clean=yes", "pile=open"])
    assert got == {"bonus_semiclean": 150, "dead_penalty_after_refill": False, "hands_per_game": 3,
                   "close_needs_clean": True, "pile": "open"}


@pytest.mark.parametrize(("text", "named"), [
    ("colour=3", "colour: no such rule parameter"),
    ("bonus_super=lots", "bonus_super=lots: Expected `int`"),
    ("hands_per_game=-1", "hands_per_game=-1: Expected `int` >= 0"),
    ("pile=half", "pile=half"),
    ("semiclean", "give a rule as name=value"),
])
def test_parse_overrides_names_the_text_at_fault(text: str, named: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_overrides([text])
    assert named in str(info.value)


def test_cli_explains_the_club_parameters() -> None:
    result = _cli("rules", "burraco-torneo")
    assert result.exit_code == 0, result.output
    assert "The game lasts 4 hands whatever the totals" in result.output
    assert "There is no semi-clean canasta" in result.output
    assert "The target (2000) is ignored: the game lasts 4 hands." in result.output
