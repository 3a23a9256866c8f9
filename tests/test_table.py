"""The table: the one driver of a game (seats, the record callback, the rng policy)."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from buraco_events import (
    Action,
    IllegalMove,
    PositionSeeds,
    SeedStreams,
    SharedStream,
    Table,
    WrongSeat,
)
from buraco_events.bots.registry import GreedyBot, RandomBot, bot_by_name
from buraco_events.core.deal import deal
from buraco_events.core.engine import replay
from buraco_events.core.state import GameState
from buraco_events.log.commit import keyed_salts
from buraco_events.model.events import Event, decode_event, seal_lines
from buraco_events.play.commands import action_command
from buraco_events.play.setup import Setup
from buraco_events.play.sim import game_id, game_seed, simulate
from cli.main import app
from cli.session import new_session, resume_session

runner = CliRunner()


def _first(table: Table) -> list[Event]:
    """Play seat 0 (no bot) with the first legal action to the end; return every event."""
    events: list[Event] = []
    while not table.over:
        events += table.act(0, table.legal_actions()[0]) if table.to_move == 0 else table.advance()
    return events


# -- the same bytes as before ----------------------------------------------------------------


@pytest.mark.parametrize(("variant", "players"), [("stbl", 2), ("burraco", 4), ("aberto-sujo", 2)])
def test_table_writes_the_bytes_simulate_writes(tmp_path: Path, variant: str, players: int) -> None:
    simulate(tmp_path, 2, variant, players, 11, ["greedy", "random"], target=0)
    for index in range(2):
        gid = game_id(variant, players, 11, index)
        bots = [GreedyBot() if seat % 2 == 0 else RandomBot() for seat in range(players)]
        events: list[Event] = []
        table = Table.start(variant, [f"{b.name}-{s}" for s, b in enumerate(bots)], game_id=gid, seats=bots,
                            rng=SeedStreams(game_seed(11, index)), target=0, record=events.append)
        table.run()
        lines = b"".join(line + b"\n" for line in seal_lines(events))
        assert lines == (tmp_path / f"{gid}.jsonl").read_bytes()


def test_table_writes_the_events_a_play_session_logs(tmp_path: Path) -> None:
    """`buraco play` with seat 0 typing the first legal action: the table alone gives the same log."""
    path = tmp_path / "game.jsonl"
    session = new_session("stbl", 2, 0, ["random"], 5, path, lambda r: None)
    try:
        assert session.run(lambda state: action_command(session.table.legal_actions()[0]))
    finally:
        session.close()
    logged = [msgspec.structs.replace(decode_event(line), prev=None) for line in path.read_bytes().splitlines()]
    events: list[Event] = []
    key = bytes.fromhex(path.with_name(path.name + ".key").read_text())  # the session's secret salts
    table = Table.start("stbl", ["you", "Bruno"], game_id="play-stbl-2p-s5", seats=[None, RandomBot()],
                        rng=PositionSeeds(5), record=events.append, salts=keyed_salts(key))
    table.append(Setup(0, ("random",), 5, commit=True).note())
    _first(table)
    assert logged == events


# -- refusals leave the table alone ------------------------------------------------------------


def _waiting_table(record: list[Event] | None = None) -> Table:
    table = Table.start("stbl", ["ana", "bruno"], game_id="t", rng=PositionSeeds(3),
                        record=None if record is None else record.append)
    table.advance()
    return table


def test_a_wrong_seat_is_refused_and_changes_nothing() -> None:
    log: list[Event] = []
    table = _waiting_table(log)
    seat = table.to_move
    assert seat is not None
    before, logged = table.state.copy(), list(log)
    with pytest.raises(WrongSeat, match=f"it is seat {seat}'s turn, not seat {1 - seat}'s"):
        table.act(1 - seat, table.legal_actions()[0])
    assert table.state == before and log == logged


def test_an_illegal_action_raises_the_rule_and_changes_nothing() -> None:
    log: list[Event] = []
    table = _waiting_table(log)
    seat = table.to_move
    assert seat is not None
    before, logged = table.state.copy(), list(log)
    with pytest.raises(IllegalMove, match="discarded is not allowed now; expected a draw"):
        table.act(seat, Action("discard", ("AS",)))
    assert table.state == before and log == logged
    table.act(seat, Action("draw"))
    assert table.state.phase == "play" and len(log) == len(logged) + 1


def test_a_failing_record_applies_nothing() -> None:
    """Write-ahead: the event reaches the log before the state; a failed write leaves the state."""
    table = _waiting_table()

    def broken(event: Event) -> None:
        raise OSError("disk full")

    table.record = broken
    before = table.state.copy()
    with pytest.raises(OSError, match="disk full"):
        table.act(table.to_move or 0, Action("draw"))
    assert table.state == before


def test_a_table_without_bots_waits_and_run_says_which_seat() -> None:
    table = _waiting_table()
    assert table.step() is None and table.advance() == []
    with pytest.raises(ValueError, match=f"seat {table.to_move} has no bot"):
        table.run()


# -- chance ----------------------------------------------------------------------------------


def test_rng_policies_are_explicit_and_deterministic() -> None:
    position = PositionSeeds(7)
    assert position.deal_rng(2).random() == random.Random("7:2").random() == position.deal_rng(2).random()
    assert position.seat_rng(40).random() == random.Random("7:bot:40").random()
    streams = SeedStreams(7)
    assert streams.deal_rng(0) is streams.deal_rng(5) and streams.seat_rng(0) is streams.seat_rng(9)
    assert streams.deal_rng(0).random() == random.Random("deal/7").random()
    shared = random.Random(1)
    assert SharedStream(shared).deal_rng(0) is shared is SharedStream(shared).seat_rng(3)

    def game(seed: int) -> list[Event]:
        events: list[Event] = []
        Table.start("stcl", ["a", "b"], game_id="g", seats=[RandomBot(), RandomBot()], rng=PositionSeeds(seed),
                    target=0, record=events.append).run()
        return events

    assert game(1) == game(1) != game(2)
    # the deal of hand 0 is the engine's chance event, from the policy's rng for that hand
    first = GameState()
    replay(game(1)[:1], first)
    assert deal(first, PositionSeeds(1).deal_rng(0)) == game(1)[1]


# -- resuming ----------------------------------------------------------------------------------


@pytest.mark.parametrize("cut", [2, 40, 117])
def test_a_resumed_table_continues_identically(cut: int) -> None:
    log: list[Event] = []
    whole = Table.start("fechado", ["ana", "greedy"], game_id="r", seats=[None, GreedyBot()],
                        rng=PositionSeeds(9), record=log.append)
    _first(whole)
    again = Table.resume(log[:cut], seats=[None, GreedyBot()], rng=9)
    assert again.state.next_seq == cut
    assert log[:cut] + _first(again) == log and again.state.totals == whole.state.totals


def test_resume_refuses_an_illegal_history() -> None:
    events: list[Event] = []
    Table.start("stbl", ["a", "b"], game_id="g", seats=[GreedyBot(), GreedyBot()], rng=3, target=0,
                record=events.append).run()
    forged = [*events[:3], msgspec.structs.replace(events[3], seq=7)]
    with pytest.raises(IllegalMove, match="seq should be 3, got 7"):
        Table.resume(forged)


# -- a user's bot: --bots module:Class ------------------------------------------------------------

USER_BOT = '''
class FirstBot:
    name = "first"

    def choose(self, view, actions, rules, rng):
        return actions[0]


class Nameless:
    def choose(self, view, actions, rules, rng):
        return actions[0]


class Liar:
    name = "liar"

    def choose(self, view, actions, rules, rng):
        from buraco_events import Action
        return Action("meld", ("AS", "AS", "AS"))
'''


@pytest.fixture
def user_bots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A module `h16_userbots` in the working folder, as a user would write it."""
    (tmp_path / "h16_userbots.py").write_text(USER_BOT)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    return tmp_path


def test_simulate_seats_a_users_bot(user_bots: Path) -> None:
    result = runner.invoke(app, ["simulate", "--out", "logs", "--games", "2", "--seed", "1", "--target", "0",
                                 "--bots", "h16_userbots:FirstBot,greedy", "--json"])
    assert result.exit_code == 0, result.output
    assert '"h16_userbots:FirstBot"' in result.stdout
    first = decode_event((user_bots / "logs" / "stbl-2p-s1-00000.jsonl").read_bytes().splitlines()[0])
    assert first.players == ("first-0", "greedy-1")  # type: ignore[attr-defined]


@pytest.mark.parametrize(("spec", "message"), [
    ("h16_nowhere:Bot", "cannot import module 'h16_nowhere'"),
    ("h16_userbots:Nope", "module 'h16_userbots' has no class 'Nope'"),
    ("h16_userbots:Nameless", "not a bot: it needs a string `name`"),
    (":FirstBot", "write module:Class"),
    ("chess", "unknown bot 'chess'; valid bots: random, greedy, expert, or module:Class"),
])
def test_bad_bot_specs_are_one_line_and_exit_2(user_bots: Path, spec: str, message: str) -> None:
    for command in (["simulate", "--out", "logs", "--games", "1"], ["play", "--log", "p.jsonl"]):
        result = runner.invoke(app, [*command, "--bots", spec], input="quit\n")
        assert result.exit_code == 2, (command, result.output)
        assert message in result.stderr and result.stderr.count("\n") == 1, result.stderr
        assert "Traceback" not in result.output


def test_a_bot_that_cheats_is_named_in_one_line(user_bots: Path) -> None:
    result = runner.invoke(app, ["simulate", "--out", "logs", "--games", "1", "--bots", "h16_userbots:Liar"])
    assert result.exit_code == 2
    assert "bot liar at seat 1 chose an action not offered" in result.stderr


def test_play_seats_a_users_bot_and_resumes_it(user_bots: Path) -> None:
    result = runner.invoke(app, ["play", "--seed", "4", "--log", "p.jsonl", "--bots", "h16_userbots:FirstBot"],
                           input="draw\nquit\n")
    assert result.exit_code == 0, result.output
    assert 'h16_userbots:FirstBot' in (user_bots / "p.jsonl").read_text()  # the setup note names it
    session = resume_session(user_bots / "p.jsonl", lambda r: None)
    try:
        assert session.table.seats[1].name == "first"
    finally:
        session.close()
    assert bot_by_name(" Greedy ").name == "greedy"


def test_the_table_is_pure() -> None:
    code = "import sys, buraco_events.core.table; print(sorted(m for m in ('duckdb', 'typer') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
