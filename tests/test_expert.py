"""The expert bot (`analysis.expert`, `--bots expert`) and the duplicate match (`buraco match`).

Fair: the expert decides from its information set only (`infoset.Unseen`): re-deal the cards its
seat never saw, and it makes the same choice. The match: every deal is played twice from the same
cards with the teams' seats swapped, so a bot against itself comes out exactly even.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from buraco_events.analysis.evaluate import decision_points
from buraco_events.analysis.expert import EXPERT_SAMPLES, ExpertBot
from buraco_events.audit.files import audit_path
from buraco_events.bots.registry import bot_by_name
from buraco_events.core.choices import action_of
from buraco_events.core.infoset import Unseen, dealt_table, knowledge_of
from buraco_events.core.seeds import PositionSeeds
from buraco_events.core.table import Table
from buraco_events.log.sources import read_log
from buraco_events.model.events import HandStarted
from buraco_events.play.match import match
from cli.main import app

runner = CliRunner()
SAMPLES = Path(__file__).parent.parent / "data" / "samples"


def _events(path: Path) -> list:
    return [event for _, _, event in read_log(path)]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "seat"), [("stbl-2p-s0-00000.jsonl", 1), ("burraco-4p-s0-00000.jsonl", 2)])
def test_the_expert_chooses_the_same_whatever_the_cards_its_seat_never_saw(name: str, seat: int) -> None:
    """Fair: at its decisions, a table whose hidden cards are dealt otherwise gets the same choice."""
    events = _events(SAMPLES / name)
    points = decision_points(events, seat)
    assert points
    for point in points[:: max(1, len(points) // 3)]:
        prefix = [e for e in events if e.seq < point.seq]
        true = Table.resume(prefix, seats={seat: ExpertBot(2)}, rng=PositionSeeds(7))
        other = Table.resume(prefix, seats={seat: ExpertBot(2)}, rng=PositionSeeds(7))
        other.state = dealt_table(true.state, point.info, random.Random(point.seq))
        assert other.state.hands != true.state.hands or other.state.stock != true.state.stock
        chosen, again = true.step(), other.step()
        assert chosen is not None and again is not None
        assert action_of(chosen) == action_of(again)


def test_the_tables_an_expert_is_dealt_depend_on_its_information_set_alone() -> None:
    events = _events(SAMPLES / "stbl-4p-s0-00000.jsonl")
    point = decision_points(events, 3)[5]
    knowledge = knowledge_of(e for e in events if e.seq < point.seq)
    one = Unseen(point.state, knowledge, 3)
    other = Unseen(dealt_table(point.state, point.info, random.Random(9)), knowledge, 3)
    assert one.info == other.info == point.info
    assert one.deal(random.Random(4)) == other.deal(random.Random(4))
    assert one.deal(random.Random(4)).hands[3] == point.state.hands[3]  # its own hand stays its own


@pytest.mark.parametrize(("name", "samples"), [("expert", EXPERT_SAMPLES), ("EXPERT:samples=3", 3),
                                               (" expert:samples=1 ", 1)])
def test_the_expert_is_named_with_its_budget(name: str, samples: int) -> None:
    bot = bot_by_name(name)
    assert isinstance(bot, ExpertBot) and bot.samples == samples and bot.name == "expert"


@pytest.mark.parametrize(("name", "words"), [("expert:samples=0", "samples must be 1 to"),
                                             ("expert:samples=x", "whole number"),
                                             ("expert:depth=2", "unknown setting")])
def test_a_bad_expert_budget_is_refused_in_one_line(name: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        bot_by_name(name)
    result = runner.invoke(app, ["simulate", "--games", "1", "--bots", name, "--out", "unused"])
    assert result.exit_code == 2 and words in result.output and "Traceback" not in result.output


@pytest.mark.slow
def test_a_hand_with_an_expert_is_legal_and_plays_the_same_from_the_same_seed(tmp_path: Path) -> None:
    args = ["simulate", "--games", "1", "--players", "4", "--target", "0", "--seed", "3", "--workers", "1",
            "--bots", "expert:samples=1,greedy,greedy,greedy"]
    for run in ("one", "two"):
        result = runner.invoke(app, [*args, "--out", str(tmp_path / run)])
        assert result.exit_code == 0, result.output
    (log,) = (tmp_path / "one").glob("*.jsonl")
    assert log.read_bytes() == (tmp_path / "two" / log.name).read_bytes()
    assert b'"expert-0"' in log.read_bytes()
    audit = next(iter(audit_path(log)))
    assert audit.report.ok, audit.report.first


def test_a_match_plays_every_deal_twice_on_the_same_cards(tmp_path: Path) -> None:
    result = match(tmp_path, ["greedy", "random"], 3, seed=5, players=4, workers=1)
    assert [d.deal for d in result.deals] == [0, 1, 2]
    for d in result.deals:
        ab, ba = (_events(tmp_path / f"{g}.jsonl") for g in d.games)
        deal_ab, deal_ba = (next(e for e in evs if isinstance(e, HandStarted)) for evs in (ab, ba))
        assert (deal_ab.hands, deal_ab.stock, deal_ab.deads) == (deal_ba.hands, deal_ba.stock, deal_ba.deads)
        assert ab[0].players != ba[0].players  # the teams' seats swapped
        assert d.diff == (d.a_team0 + d.a_team1) / 2  # the seatings' mean: the deal's luck cancels
    assert result.mean_diff == round(sum(d.diff for d in result.deals) / 3, 1)
    assert result.ci95 is not None and result.ci95[0] <= result.mean_diff <= result.ci95[1]
    assert result.totals[0] - result.totals[1] == 2 * sum(d.diff for d in result.deals)
    assert result == match(tmp_path, ["greedy", "random"], 3, seed=5, players=4, workers=2)  # same logs kept


def test_a_bot_against_itself_comes_out_exactly_even(tmp_path: Path) -> None:
    """Duplicate: the same cards, the same bot on both sides: every deal's difference is 0."""
    result = match(tmp_path, ["greedy", "greedy"], 4, seed=2, workers=1)
    assert [d.diff for d in result.deals] == [0, 0, 0, 0]
    assert any(d.a_team0 != 0 for d in result.deals)  # the deals themselves were not even


def test_match_command_json_and_text(tmp_path: Path) -> None:
    result = runner.invoke(app, ["match", "--bots", "greedy,random", "--deals", "2", "--out", str(tmp_path / "m"),
                                 "--workers", "1", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert set(doc) == {"bots", "variant", "players", "seed", "deals", "totals", "mean_diff", "stderr", "ci95", "out"}
    assert doc["bots"] == ["greedy", "random"] and len(doc["deals"]) == 2
    assert len(list((tmp_path / "m").glob("*.jsonl"))) == 4
    text = runner.invoke(app, ["match", "--bots", "greedy,random", "--deals", "2", "--out", str(tmp_path / "m"),
                               "--workers", "1"])
    assert text.exit_code == 0 and "95% interval" in text.stdout and "greedy minus random" in text.stdout


@pytest.mark.parametrize(("args", "words"), [
    (["--bots", "greedy"], "two bots"),
    (["--bots", "greedy,nosuchbot"], "unknown bot"),
    (["--bots", "greedy,random", "--deals", "0"], "--deals"),
    (["--bots", "greedy,random", "--variant", "nope"], "--variant"),
])
def test_match_refuses_bad_options_in_one_line(tmp_path: Path, args: list[str], words: str) -> None:
    result = runner.invoke(app, ["match", *args, "--out", str(tmp_path / "m")])
    assert result.exit_code == 2 and words in result.output and "Traceback" not in result.output


def test_match_never_replaces_a_log_with_other_bytes(tmp_path: Path) -> None:
    runner.invoke(app, ["match", "--bots", "greedy,random", "--deals", "1", "--out", str(tmp_path), "--workers", "1"])
    log = next(tmp_path.glob("*-ab.jsonl"))
    log.write_bytes(log.read_bytes()[:-10] + b"0000000000")
    before = log.read_bytes()
    result = runner.invoke(app, ["match", "--bots", "greedy,random", "--deals", "1", "--out", str(tmp_path),
                                 "--workers", "1"])
    assert result.exit_code == 2 and "--out" in result.output and log.read_bytes() == before


def test_play_seats_the_expert_at_the_other_seats(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    result = runner.invoke(app, ["play", "--players", "4", "--seat", "3", "--seed", "4", "--log", str(log),
                                 "--bots", "expert:samples=1"], input="quit\n")
    assert result.exit_code == 0, result.output
    events = _events(log)
    assert any(getattr(e, "player", None) in (0, 1, 2) for e in events[3:])  # the experts played first
    (audit,) = audit_path(log, partial=True)
    assert audit.report.ok, audit.report.problems
