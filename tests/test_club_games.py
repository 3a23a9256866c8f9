"""Tournament turns and the dead penalty after a refill (RULES 7, 8): `hands_per_game` ends a
game after that many hands, equal totals a tie (`game_ended.winner` null) that replay, share,
audit, index and stats show; `dead_penalty_after_refill` no spares a team whose deads became the
stock before it could take one."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import msgspec
import pytest
from helpers import Table
from typer.testing import CliRunner

from buraco_events.analytics.ingest import index
from buraco_events.audit.files import audit_path
from buraco_events.bots.registry import run_game, table_bots
from buraco_events.core.sheets import hand_scores, match_over, match_result
from buraco_events.log.sources import read_log
from buraco_events.log.writer import write_log
from buraco_events.model.events import GameEnded
from buraco_events.play.sim import seat_bots
from cli.main import app

TIE = Path(__file__).resolve().parent / "golden" / "tie" / "burraco-tie-3-hands.jsonl"


# -- hands_per_game: the match's end ------------------------------------------------------------


def test_a_tournament_turn_ends_after_its_hands_whatever_the_totals() -> None:
    # RULES 8: target ignored; the higher total wins, equal totals are a tie (None)
    assert match_result([2500, 100], 2000, 0, 2, hands_per_game=3) is None  # 2 of 3 hands: goes on
    assert not match_over(None, 2, 3)
    assert match_result([900, 1000], 2000, 0, 3, hands_per_game=3) == 1  # below target, yet over
    assert match_result([1410, 1410], 2000, 0, 3, hands_per_game=3) is None
    assert match_over(None, 3, 3)  # a tie: over with no winner
    # without it, an exact tie at the target goes to the team that played first (as before)
    assert match_result([2000, 2000], 2000, 1, 3) == 1
    assert not match_over(None, 3, 0)


@pytest.mark.parametrize(("variant", "hands"), [("burraco-torneo", 4), ("stbl", 3), ("fechado", 2)])
def test_games_last_exactly_hands_per_game(variant: str, hands: int) -> None:
    overrides = {} if variant == "burraco-torneo" else {"hands_per_game": hands}
    for seed in range(2):
        events, state = run_game(variant, 2, seed, table_bots(seat_bots(["greedy"], 2)), f"g{seed}",
                                 overrides=overrides)
        assert len(state.hand_results) == hands and state.phase == "over"
        last = events[-1]
        assert isinstance(last, GameEnded) and list(last.totals) == state.totals
        totals = state.totals
        assert last.winner == (None if totals[0] == totals[1] else int(totals[1] > totals[0]))


def test_a_three_hand_game_ending_tied_reads_everywhere(tmp_path: Path) -> None:
    # the log: burraco with hands_per_game 3, greedy bots, 1410 to 1410 after three hands
    lines = TIE.read_text().splitlines()
    assert json.loads(lines[0])["rules"]["hands_per_game"] == 3
    assert json.loads(lines[-1]) | {"prev": ""} == {"type": "game_ended", "seq": 313, "prev": "",
                                                    "totals": [1410, 1410], "winner": None}
    (result,) = audit_path(TIE)
    assert result.report.ok and result.report.complete and result.report.problems == []
    runner = CliRunner()
    final = json.loads(runner.invoke(app, ["replay", str(TIE), "--json"]).stdout)
    assert (final["phase"], final["winner"], final["totals"]) == ("over", None, [1410, 1410])
    text = runner.invoke(app, ["replay", str(TIE)], env={"COLUMNS": "120"}).stdout
    assert "game over: a tie, totals 1410 / 1410" in text
    page = tmp_path / "tie.html"
    assert runner.invoke(app, ["share", str(TIE), "-o", str(page)]).exit_code == 0
    assert "a tie, 1410 to 1410 after 3 hands" in page.read_text()
    db = tmp_path / "i.duckdb"
    index([TIE], db)
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT complete, winner, totals FROM games").fetchall() == [(True, None, [1410, 1410])]
        ties = con.execute("SELECT ties, team0_win_rate FROM win_rates").fetchall()
    assert ties == [(1, 0.0)]
    # a branch played on to the game's end, and its comparison with the game, say it too
    branch = tmp_path / "branch.jsonl"
    made = runner.invoke(app, ["branch", str(TIE), "--at", "311", "-o", str(branch), "--until", "game"])
    assert "game over: totals 1410 / 1410, a tie" in made.stdout
    compared = runner.invoke(app, ["compare", str(TIE), str(branch)], env={"COLUMNS": "120"}).stdout
    assert any("winner" in line and line.count("a tie") == 2 for line in compared.splitlines())


def test_the_audit_refuses_a_winner_claimed_in_a_tie(tmp_path: Path) -> None:
    events = [ev for _, _, ev in read_log(TIE)]
    events[-1] = msgspec.structs.replace(events[-1], winner=0)
    bad = tmp_path / "claimed.jsonl"
    write_log(bad, events)
    (result,) = audit_path(bad)
    assert not result.report.ok
    assert any("winner: claimed team 0, recount a tie" in p.message for p in result.report.problems)


# -- dead_penalty_after_refill (RULES 7) ----------------------------------------------------------


def _refilled(variant: str, house_rule: bool) -> Table:
    """Seat 0 to draw with an empty stock (its cards moved under the pile): the deads refill it."""
    overrides = {} if house_rule else {"dead_penalty_after_refill": False}
    hands = ["3S 4S 5S 6S 7S 8S 9S 3H 4H 5H 6H", "KC KC QC QC JC JC 10C 10C 9C 9D 8D"]
    t = Table(variant, hands, overrides=overrides)
    state = t.state
    state.pile[:0] = state.stock
    state.stock.clear()
    t.do("stock_refilled", dead=0)
    if variant == "stcl":  # refill all: dead 1 joins the stock too
        t.do("stock_refilled", dead=1)
    return t


@pytest.mark.parametrize("house_rule", [True, False])
def test_one_dead_became_the_stock_the_other_waits(house_rule: bool) -> None:
    # stbl refills one dead: dead 1 still waits, so a team without a dead could still take it
    t = _refilled("stbl", house_rule)
    assert t.state.deads.fate == ["stock", None]
    s0, s1 = hand_scores(t.state)
    assert s0.dead_penalty == s1.dead_penalty == -100


@pytest.mark.parametrize(("house_rule", "penalty"), [(True, -100), (False, 0)])
def test_every_dead_became_the_stock(house_rule: bool, penalty: int) -> None:
    # stcl refills every dead: none is left for either team, which never had a chance to take one
    t = _refilled("stcl", house_rule)
    assert t.state.deads.fate == ["stock", "stock"]
    s0, s1 = hand_scores(t.state)
    assert s0.dead_penalty == s1.dead_penalty == penalty
    assert not s0.took_dead and not s1.took_dead
    # the penalty is the only item the house rule moves
    other = hand_scores(_refilled("stcl", not house_rule).state)[0]
    assert s0.total - s0.dead_penalty == other.total - other.dead_penalty


def test_a_team_owning_its_dead_pays_while_its_own_waits() -> None:
    # dead_owner team (stbl-pl): dead 0 became the stock, so team 0 is spared; team 1's dead waits
    t = Table("stbl-pl", ["3S 4S 5S 6S 7S 8S 9S 3H 4H 5H 6H", "KC KC QC QC JC JC 10C 10C 9C 9D 8D"],
              overrides={"dead_penalty_after_refill": False})
    t.state.pile[:0] = t.state.stock
    t.state.stock.clear()
    t.do("stock_refilled", dead=0)
    s0, s1 = hand_scores(t.state)
    assert (s0.dead_penalty, s1.dead_penalty) == (0, -100)


def test_a_tied_game_is_a_difference_of_0_in_a_duplicate_match(monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:
    # a match compares the totals deal by deal: both games of a deal ending tied (the tie log
    # stands in for them) give each bot 0 over the other
    from buraco_events.core.engine import replay
    from buraco_events.play import match as match_module

    events = [ev for _, _, ev in read_log(TIE)]
    state = replay(events)
    monkeypatch.setattr(match_module, "run_game", lambda *args, **kwargs: (events, state))
    result = match_module.match(tmp_path, ["greedy", "random"], 1, variant="burraco",
                                rules={"hands_per_game": 3})
    (deal,) = result.deals
    assert (deal.a_team0, deal.a_team1, deal.diff) == (0, 0, 0)
    assert result.totals == (2820, 2820)
