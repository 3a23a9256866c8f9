"""Where people and programs see the club kinds (RULES 3.5): the seat view and replay, the audit's
recount and score sheet, `index` (`melds.kind`, `team_hands.canastas`, the canasta_rates view)
and `--json`, on games played with every club kind on."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from buraco_events.analytics.ingest import index
from buraco_events.audit.files import audit_path
from buraco_events.core.cards import parse_cards
from buraco_events.core.melds import canasta_bonus, canasta_kind, classify
from buraco_events.model.rules import find_rules
from buraco_events.play.sim import simulate
from cli.main import app

CLUB = {"bonus_semiclean": 150, "bonus_super": 1000, "bonus_super_dirty": 500,
        "bonus_royal_dirty": 300, "bonus_ace_to_ace_dirty": 600}
RULES = find_rules("fechado", **CLUB)


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six single-hand fechado games of greedy bots with every club kind on (seed 0)."""
    folder = tmp_path_factory.mktemp("club")
    summary = simulate(folder, 6, "fechado", 2, 0, ["greedy"], target=0, rules=CLUB)
    # the summary counts a club kind once one is met
    assert summary.canasta_rate["semiclean"] != (0.0, 0.0)
    return folder


@pytest.fixture(scope="module")
def db(games: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("db") / "club.duckdb"
    index([games], path)
    return path


def test_index_holds_each_melds_club_kind(db: Path) -> None:
    with duckdb.connect(str(db), read_only=True) as con:
        melds = con.execute("SELECT cards, kind FROM melds").fetchall()
        per_team = con.execute("SELECT game_id, hand, team, canastas, canasta_bonus FROM team_hands").fetchall()
        counted = con.execute("SELECT game_id, hand, team, count(*) FILTER (WHERE kind <> 'none'), "
                              "list(kind) FROM melds GROUP BY ALL").fetchall()
        rates = dict(con.execute("SELECT kind, canastas FROM canasta_rates").fetchall())
    kinds = Counter(kind for _, kind in melds)
    assert kinds["semiclean"] and kinds["super_dirty"]  # these games made them
    for cards, kind in melds:
        shape = classify(parse_cards(" ".join(cards)), RULES)
        assert shape is not None
        # the kind the index holds is the rules' kind (fechado: no royal_in_one_turn)
        assert kind == (canasta_kind(shape, RULES) or "none"), (cards, kind)
    # team_hands counts every canasta, the club kinds with the rest, and its bonus is theirs
    by_team = {(g, h, t): (n, bonus) for g, h, t, n, bonus in per_team}
    for g, h, t, n, kinds_list in counted:
        assert by_team[g, h, t][0] == n
        assert by_team[g, h, t][1] == sum(canasta_bonus(k, RULES) for k in kinds_list if k != "none")
    # the canned view counts the new kinds
    assert rates["semiclean"] == kinds["semiclean"] and rates["super_dirty"] == kinds["super_dirty"]


def test_audit_recounts_the_club_bonuses(games: Path) -> None:
    for path in sorted(games.glob("*.jsonl")):
        (result,) = audit_path(path)
        assert result.report.ok and result.report.problems == [], path
        for hand in result.report.hands:
            assert [sum((d.meld_points, d.canasta_bonus, d.close_bonus, d.hand_penalty, d.dead_penalty))
                    for d in hand.detail] == list(hand.scores)


def _with_semiclean(games: Path) -> Path:
    for path in sorted(games.glob("*.jsonl")):
        final = json.loads(CliRunner().invoke(app, ["replay", str(path), "--json"]).stdout)
        if any(m["kind"] == "semiclean" for m in final["melds"]):
            return path
    raise AssertionError("no game with a semi-clean canasta")


def test_replay_and_the_seat_view_name_the_semiclean_canasta(games: Path) -> None:
    path = _with_semiclean(games)
    runner = CliRunner()
    seat = json.loads(runner.invoke(app, ["replay", str(path), "--as", "0", "--json"]).stdout)
    assert "semiclean" in {m["kind"] for m in seat["melds"]}
    text = runner.invoke(app, ["replay", str(path)], env={"COLUMNS": "200"}).stdout
    assert "semi-clean canasta" in text
    history = runner.invoke(app, ["replay", str(path), "--history"], env={"COLUMNS": "200"}).stdout
    assert "semi-clean canasta" in history
    page = path.with_suffix(".html")
    assert runner.invoke(app, ["share", str(path), "-o", str(page)]).exit_code == 0
    assert "semi-clean canasta" in page.read_text()
