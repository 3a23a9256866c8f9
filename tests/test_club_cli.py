"""`--rules NAME=VALUE` wherever rules are chosen: simulate, match, league, play (and the serve
request's `rules`): the game's first event holds the changed rules, and bad input is one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app


def _run(*args: str) -> object:
    return CliRunner().invoke(app, list(args))


def _first_rules(folder: Path) -> list[dict[str, object]]:
    return [json.loads(p.read_text().splitlines()[0])["rules"] for p in sorted(folder.rglob("*.jsonl"))]


def test_simulate_writes_the_rules_given(tmp_path: Path) -> None:
    result = _run("simulate", "--out", str(tmp_path), "--games", "1", "--workers", "1",
                  "--rules", "bonus_semiclean=150,dead_penalty_after_refill=no", "--rules", "bonus_super=1000")
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    (rules,) = _first_rules(tmp_path)
    assert (rules["bonus_semiclean"], rules["bonus_super"], rules["dead_penalty_after_refill"]) == (150, 1000, False)
    assert "hands_per_game" not in rules  # a parameter not given is not written


@pytest.mark.parametrize("command", ["match", "league"])
def test_match_and_league_write_the_rules_given(command: str, tmp_path: Path) -> None:
    result = _run(command, "--bots", "greedy,random", "--deals", "1", "--workers", "1",
                  "--out", str(tmp_path), "--rules", "bonus_royal_dirty=300")
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    found = _first_rules(tmp_path)
    assert len(found) == 2 and all(r["bonus_royal_dirty"] == 300 for r in found)


@pytest.mark.parametrize(("command", "extra"), [
    ("simulate", ["--out", "OUT", "--games", "1"]),
    ("match", ["--bots", "greedy,random", "--out", "OUT"]),
    ("league", ["--bots", "greedy,random", "--out", "OUT"]),
    ("play", ["--line", "--log", "OUT/game.jsonl"]),
])
@pytest.mark.parametrize(("text", "words"), [
    ("bonus_semiclen=150", "--rules: bonus_semiclen: no such rule parameter"),
    ("hands_per_game=three", "--rules: hands_per_game=three: Expected `int`"),
    ("bonus_super", "--rules: 'bonus_super': give a rule as name=value"),
])
def test_a_bad_rule_is_one_line_and_plays_nothing(command: str, extra: list[str], text: str, words: str,
                                                   tmp_path: Path) -> None:
    args = [a.replace("OUT", str(tmp_path / "out")) for a in extra]
    result = _run(command, *args, "--rules", text)
    assert result.exit_code == 2  # type: ignore[attr-defined]
    output = result.output  # type: ignore[attr-defined]
    assert words in output and "Traceback" not in output
    assert not list(tmp_path.rglob("*.jsonl"))


def test_play_writes_the_rules_given(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    result = CliRunner().invoke(app, ["play", "--line", "--seed", "3", "--log", str(log), "--rules",
                                      "bonus_semiclean=150"], input="quit\n")
    assert "--rules" not in result.output, result.output
    rules = json.loads(log.read_text().splitlines()[0])["rules"]
    assert rules["bonus_semiclean"] == 150
