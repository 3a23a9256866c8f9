"""The fair-play check (`fairplay`): oracles keep what they know where it truly is, the
information-set side never reads a hidden card, only finished games are judged, the statistic
is exact, and the cheating bots are named as such."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from buraco_events.analysis.evaluate import Point, decision_points
from buraco_events.analysis.expert import ExpertBot, softmax_pick
from buraco_events.bots.registry import BOT_NAMES, bot_by_name, run_game
from buraco_events.core.choices import Choices
from buraco_events.core.infoset import dealt_table
from buraco_events.core.state import elements
from buraco_events.fairplay.judge import (
    FIRST_ROUND,
    Judged,
    OracleSide,
    UnfinishedGame,
    infoset_side,
    judge,
    judge_game,
)
from buraco_events.fairplay.oracle import fixes_nothing, oracle_info, oracle_table, oracles_for
from buraco_events.fairplay.peek import PeekBot, peek_from_spec
from buraco_events.fairplay.verdict import (
    NOTE_P,
    REVIEW_P,
    expected_loss,
    level_of,
    softmax,
    tail,
    temperature,
    weigh,
)
from buraco_events.log.sources import read_log

SAMPLES = Path(__file__).parent.parent / "data" / "samples"


def _events(name: str) -> list:
    return [event for _, _, event in read_log(SAMPLES / name)]


def _cards(state) -> Counter:
    total: Counter = Counter(state.stock)
    for hand in state.hands:
        total.update(elements(hand))
    for dead in state.deads.left:
        total.update(dead or ())
    return total


@pytest.mark.parametrize("oracle", ["partner", "hands", "stock"])
def test_an_oracle_table_keeps_what_the_oracle_knows_and_deals_the_rest(oracle: str) -> None:
    point = decision_points(_events("stbl-4p-s0-00000.jsonl"), 0)[6]
    truth, seat = point.state, point.info.seat
    tables = [oracle_table(truth, point.info, oracle, random.Random(k)) for k in range(6)]
    for table in tables:
        assert _cards(table) == _cards(truth)  # the same cards, only placed otherwise
        assert table.hands[seat] == truth.hands[seat]
        if oracle == "partner":
            assert table.hands[2] == truth.hands[2]
        if oracle == "hands":
            assert table.hands == truth.hands
        if oracle == "stock":
            assert table.stock == truth.stock
    moved = {0: lambda t: t.stock != truth.stock, 1: lambda t: t.hands != truth.hands}
    assert any(moved[0](t) for t in tables) if oracle != "stock" else any(moved[1](t) for t in tables)
    assert oracle_info(truth, point.info, oracle).pool != point.info.pool


def test_partner_is_an_oracle_only_with_four_players() -> None:
    assert oracles_for(4) == ("partner", "hands", "stock")
    assert oracles_for(2) == ("hands", "stock")


@pytest.mark.slow
def test_the_information_set_side_is_the_same_whatever_the_cards_the_seat_never_saw() -> None:
    points = decision_points(_events("stbl-4p-s0-00000.jsonl"), 1)
    for point in points[::8]:
        other = Point(point.seq, dealt_table(point.state, point.info, random.Random(point.seq)), point.info,
                      point.chosen)
        assert other.state.hands != point.state.hands
        assert infoset_side(other, 2, "x") == infoset_side(point, 2, "x")


def test_an_unfinished_game_is_refused() -> None:
    events = _events("stbl-2p-s0-00000.jsonl")
    with pytest.raises(UnfinishedGame):
        judge_game(events[:60], 0, samples=1)


@pytest.mark.slow
def test_a_game_is_judged_the_same_for_any_workers() -> None:
    events = _events("stbl-2p-s0-00000.jsonl")
    one = judge_game(events, 0, samples=2, seed="s", workers=1)
    assert one == judge_game(events, 0, samples=2, seed="s", workers=2)
    assert all(d.candidates and [s.oracle for s in d.oracles] == ["hands", "stock"] for d in one)


def test_one_decision_is_judged_on_every_oracle_with_the_chosen_action_first() -> None:
    point = decision_points(_events("stbl-4p-s0-00000.jsonl"), 0)[3]
    judged = judge(point, 2, "t")
    assert [s.oracle for s in judged.oracles] == ["partner", "hands", "stock"]
    assert judged.values and len(judged.values) == len(judged.candidates)
    for side in judged.oracles:
        assert side.informative <= (side.best != judged.best)
        assert "seat" in side.hidden or "stock" in side.hidden


def test_the_tail_is_the_exact_poisson_binomial() -> None:
    assert tail([0.5] * 4, 2) == pytest.approx(11 / 16)
    assert tail([0.1, 0.2], 2) == pytest.approx(0.02)
    assert tail([0.3, 0.9], 0) == 1.0
    assert tail([], 0) == 1.0


def _decision(values: list[float], obest: int, informative: bool, seq: int = 1) -> Judged:
    side = OracleSide("hands", values, obest, 300.0, 50.0, informative, "", 10.0)
    return Judged(seq, 0, "play", "", [f"a{i}" for i in range(len(values))], values,
                  max(range(len(values)), key=lambda i: values[i]), [side])


def test_the_temperature_matches_the_players_loss() -> None:
    # loses 100 points on half its decisions, nothing on the others: 50 a decision
    plain = [_decision([0.0, 100.0, -50.0] if s % 2 else [100.0, 0.0, -50.0], 1, False, s) for s in range(10)]
    t = temperature(plain)
    assert expected_loss(plain, t) == pytest.approx(50.0, abs=0.5)
    sharp = [_decision([100.0, 0.0, -50.0], 0, False, s) for s in range(10)]  # never loses
    assert temperature(sharp) < t


def test_a_player_who_keeps_choosing_the_oracles_best_is_weighed_for_review_and_a_fair_one_not() -> None:
    plain = [_decision([100.0, 0.0, -200.0], 0, False, s) for s in range(20)]
    cheat = [_decision([0.0, 200.0, 150.0], 0, True, 100 + s) for s in range(12)]
    fair = [_decision([200.0, 0.0, 150.0], 1, True, 100 + s) for s in range(12)]
    [caught] = weigh(plain + cheat, ["hands"])
    assert (caught.informative, caught.matches, caught.level) == (12, 12, "review")
    assert caught.expected < 1 and caught.p_value < 1e-6
    [cleared] = weigh(plain + fair, ["hands"])
    assert (cleared.matches, cleared.level) == (0, "none") and cleared.p_value == 1.0


def test_levels_and_the_honest_model() -> None:
    assert level_of(REVIEW_P / 10, 3) == "note"  # too few informative decisions for review
    assert level_of(REVIEW_P / 10, 30) == "review" and level_of(0.5, 30) == "none"
    assert level_of(NOTE_P / 2, 30) == "note" and level_of(NOTE_P * 2, 30) == "none"
    assert REVIEW_P < NOTE_P < 1e-3  # set from the calibration's honest players: far below usual levels
    assert sum(softmax([1.0, 2.0, 3.0], 10.0)) == pytest.approx(1.0)


def test_the_cheating_bots_are_named_as_cheats() -> None:
    bot = bot_by_name("peek:partner:rate=0.3")
    assert isinstance(bot, PeekBot) and (bot.oracle, bot.rate) == ("partner", 0.3)
    assert "cheat" in bot.name and "cheat" in bot_by_name("PEEK:hands").name
    for bad in ("peek", "peek:eyes", "peek:stock:rate=2", "peek:stock:rate=x", "peek:stock:speed=1"):
        with pytest.raises(ValueError, match="peek"):
            peek_from_spec(bad) if bad != "PEEK" else None


@pytest.mark.slow
def test_a_cheating_bot_plays_an_ordinary_game_that_names_it() -> None:
    bots = [bot_by_name("peek:hands:samples=2"), bot_by_name("greedy")]
    events, state = run_game("stbl", 2, 3, bots, "g", target=0)
    assert state.phase == "over" and events[0].players[0].startswith("cheat-peek-hands")


def test_one_deal_makes_no_decision_informative() -> None:
    points = decision_points(_events("stbl-4p-s0-00000.jsonl"), 0)[:6]
    assert not any(side.informative for p in points for side in judge(p, 1, "t").oracles)


def test_fixed_deals_play_every_side_on_the_samples_and_adaptive_ones_stop_within_the_cap() -> None:
    point = decision_points(_events("stbl-4p-s0-00000.jsonl"), 0)[3]
    fixed = judge(point, 4, "t", first=4)
    assert fixed.deals == 4 and all(side.deals == 4 for side in fixed.oracles)
    adaptive = judge(point, 8, "t")
    assert FIRST_ROUND <= adaptive.deals <= 8
    assert all(FIRST_ROUND <= side.deals <= 8 for side in adaptive.oracles)
    # the first round is the fixed deals' first deals (common random numbers): a side that stops
    # after it has the values the fixed judging has
    if adaptive.deals == 4:
        assert adaptive.values == fixed.values and adaptive.best == fixed.best
    only = judge(point, 4, "t", oracles=("hands",), first=4)
    assert [s.oracle for s in only.oracles] == ["hands"] and only.oracles[0] == fixed.oracles[1]


def test_an_oracle_that_fixes_nothing_is_not_played() -> None:
    point = decision_points(_events("stbl-4p-s0-00000.jsonl"), 0)[3]
    truth = point.state.copy()
    truth.stock = []  # nothing left to know of the stock
    assert fixes_nothing(point.info, oracle_info(truth, point.info, "stock"))
    assert not fixes_nothing(point.info, oracle_info(point.state, point.info, "stock"))
    judged = judge(Point(point.seq, truth, point.info, point.chosen), 2, "t", oracles=("stock",))
    [side] = judged.oracles
    assert (side.deals, side.informative, side.best, side.values) == (0, False, judged.best, judged.values)


def test_softmax_noise_picks_the_best_without_noise_and_spreads_with_it() -> None:
    totals = [10.0, 300.0, 290.0, -500.0]
    assert softmax_pick(totals, 0.0, random.Random(1)) == 1
    rng = random.Random(5)
    picks = Counter(softmax_pick(totals, 50.0, rng) for _ in range(20_000))
    assert picks[1] > picks[2] > picks[0] > picks[3]  # ordered by value
    assert 1.1 < picks[1] / picks[2] < 1.35  # exp(10/50), about 1.22, between the two best
    assert [softmax_pick(totals, 50.0, random.Random(k)) for k in range(50)] == [
        softmax_pick(totals, 50.0, random.Random(k)) for k in range(50)]


def test_noise_is_a_setting_of_the_expert_and_peek_bots() -> None:
    bot = bot_by_name("expert:samples=4:noise=50")
    assert isinstance(bot, ExpertBot) and (bot.samples, bot.noise) == (4, 50.0)
    assert bot_by_name("expert:noise=25,samples=2").noise == 25.0 and bot_by_name("expert").noise == 0.0
    cheat = bot_by_name("peek:hands:rate=0.5:noise=30")
    assert isinstance(cheat, PeekBot) and (cheat.rate, cheat.noise) == (0.5, 30.0)
    for bad in ("expert:noise=-1", "expert:noise=x", "expert:noise=inf", "expert:speed=2", "expert:noise"):
        with pytest.raises(ValueError, match="^expert: ") as caught:
            bot_by_name(bad)
        assert "\n" not in str(caught.value)
    for bad in ("peek:hands:noise=-2", "peek:hands:noise=nan", "peek:stock:rate=inf"):
        with pytest.raises(ValueError, match="^peek: "):
            bot_by_name(bad)


def test_a_noisy_expert_plays_the_same_game_from_the_same_seed() -> None:
    def game(spec: str) -> list:
        events, state = run_game("stbl", 2, 5, [bot_by_name(spec), bot_by_name("greedy")], "n", target=0)
        assert state.phase == "over"
        return events

    noisy = game("expert:samples=1:noise=200")
    assert noisy == game("expert:samples=1:noise=200")
    assert noisy != game("expert:samples=1")  # the noise changes some choice


def test_the_cheating_bots_read_the_true_table_through_the_named_hook_only(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    original = Choices.calibration_truth

    def counted(self: Choices):
        calls.append(1)
        return original(self)

    monkeypatch.setattr(Choices, "calibration_truth", counted)
    bots = [bot_by_name("peek:hands:samples=1"), bot_by_name("greedy")]
    run_game("stbl", 2, 3, bots, "h", target=0)
    assert calls  # it peeked through the hook
    calls.clear()
    run_game("stbl", 2, 3, [bot_by_name("expert:samples=1"), bot_by_name("greedy")], "h", target=0)
    assert not calls  # an honest bot never does
    root = Path(__file__).parent.parent
    users = {p.relative_to(root).as_posix() for folder in ("buraco_events", "cli") for p in (root / folder).rglob("*.py")
             if "calibration_truth(" in p.read_text() and p.name != "choices.py"}
    assert users == {"buraco_events/fairplay/peek.py"}
    private = [p.name for folder in ("buraco_events", "cli") for p in (root / folder).rglob("*.py")
               if "choices._state" in p.read_text()]
    assert private == []


def test_a_server_never_seats_a_cheating_bot(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli.main import app

    for name in ("peek:hands", "peek:partner:rate=0.5"):
        result = CliRunner().invoke(app, ["serve", "--dir", str(tmp_path), "--bots", f"greedy,{name}"])
        assert result.exit_code == 2 and "a server seats built-in bots only" in result.stderr
        assert "peek" not in result.stderr.rsplit(":", 1)[1]  # the bots it offers instead
    assert not any(name.startswith("peek") for name in BOT_NAMES)
