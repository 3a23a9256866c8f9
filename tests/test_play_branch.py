"""`buraco play --resume BRANCH.jsonl`: a branch continued by hand.

The parent is a three-hand match played by bots (`run_game`, committed deals), written as a log; a
branch forks it (`make_branch(..., until="moves")`) and the session continues it with a greedy
auto-pilot for the human. What is checked: the branch file only grows (its bytes so far stay its
prefix), later hands are dealt as the parent recorded them, a deal that must come from the parent
stops the session (exit 2, one line) when no `--parent` is given, every screen names the branch,
and the options meant for a branch are refused for a game.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import msgspec
import pytest
from helpers import write_match
from rich.text import Text
from typer.testing import CliRunner

from buraco_events.audit.files import audit_path
from buraco_events.bots.registry import GreedyBot
from buraco_events.core.choices import legal_actions
from buraco_events.core.state import GameState
from buraco_events.log.commit import keyed_salts
from buraco_events.log.writer import write_log
from buraco_events.model.events import Branched, HandEnded, HandStarted, Note, decode_event
from buraco_events.play.branch import make_branch
from buraco_events.play.commands import action_command
from buraco_events.play.keys import key_path, read_key
from buraco_events.play.setup import SetupError
from buraco_events.views.projections import player_view
from cli.main import app
from cli.session import new_session, resume_session

runner = CliRunner()


def _events(path: Path) -> list:
    return [decode_event(line) for line in path.read_bytes().splitlines()]


def _deals(path: Path) -> dict[int, HandStarted]:
    return {e.hand: e for e in _events(path) if isinstance(e, HandStarted)}


def _cards(deal: HandStarted) -> tuple:
    return deal.hands, deal.deads, deal.stock, deal.discard


class Greedy:
    """Types the greedy bot's move for the human at each prompt, `limit` times, then ends input."""

    def __init__(self, seat: int, limit: int | None = None) -> None:
        self.seat, self.limit = seat, limit
        self.script: list[str] = []

    def __call__(self, state: GameState) -> str | None:
        assert state.to_play == self.seat
        if self.limit is not None and len(self.script) >= self.limit:
            return None
        action = GreedyBot().choose(player_view(state, self.seat), legal_actions(state), state.rules,
                                    random.Random(0))
        self.script.append(action_command(action))
        return self.script[-1]


@pytest.fixture(scope="module")
def parent(tmp_path_factory) -> Path:
    """A three-hand match between bots, every deal committed (the salts revealed at each hand's end)."""
    path = tmp_path_factory.mktemp("parent") / "g.jsonl"
    state = write_match(path, 3000)
    assert state.phase == "over" and len(state.hand_results) == 3
    return path


def _fork_in_hand_0(parent: Path) -> int:
    """A seq in hand 0 after which seat 0 is to draw (its turn starts)."""
    state = GameState()
    from buraco_events.core.engine import play

    for event in _events(parent):
        play(state, event)
        if state.hand_no == 0 and state.phase == "draw" and state.to_play == 0 and state.turn > 4:
            return event.seq
    raise AssertionError("no such seq")


def _branch(parent: Path, at: int, out: Path) -> Path:
    make_branch(parent, at, out, until="moves", by="tester", reason="what if", seed="7")
    return out


def _play_cli(*args: str, input: str = ""):
    return runner.invoke(app, ["play", "--line", *args], input=input)


def test_a_branch_resumed_with_its_parent_plays_to_the_end_dealing_the_parents_hands(parent, tmp_path):
    at = _fork_in_hand_0(parent)
    branch = _branch(parent, at, tmp_path / "b.jsonl")
    before = branch.read_bytes()
    said: list = []
    session = resume_session(branch, said.append, parent=parent, seat=0)
    try:
        assert session.run(Greedy(0))  # the match ends
    finally:
        session.close()
    after = branch.read_bytes()
    assert after.startswith(before) and len(after) > len(before)  # appended, never rewritten
    events = _events(branch)
    assert sum(isinstance(e, Branched) for e in events) == 1 and events[at + 1].fork_seq == at
    # hand 1 was dealt by the parent: the branch deals it again card for card, with its commitment
    mine, theirs = _deals(branch), _deals(parent)
    assert 1 in mine and _cards(mine[1]) == _cards(theirs[1])
    assert mine[1].commitment == theirs[1].commitment is not None
    assert mine[1].seq != theirs[1].seq or _cards(mine[0]) == _cards(theirs[0])
    ends = {e.hand: e.salt for e in events if isinstance(e, HandEnded)}
    parent_ends = {e.hand: e.salt for e in _events(parent) if isinstance(e, HandEnded)}
    assert ends[0] == parent_ends[0] and ends[1] == parent_ends[1]  # the salts the parent revealed
    for hand in set(mine) - set(theirs):  # a hand the parent never reached: not committed
        assert mine[hand].commitment is None
    (result,) = audit_path(branch, partial=True)
    assert result.report.ok, result.report
    # every screen (the compact screen, the score sheets, the result) names the branch first
    label = f"branch of g-multi at seq {at}"
    sheets = [i for i, r in enumerate(said) if not isinstance(r, Text)]  # the hands' score sheets
    prompts = [i for i, r in enumerate(said) if isinstance(r, Text) and r.plain.startswith("you may:")]
    assert len(sheets) >= 2 and len(prompts) > 10
    for i in [*sheets, *(i - 1 for i in prompts)]:  # a prompt's screen comes right before it
        assert isinstance(said[i - 1], Text) and said[i - 1].plain == label
    assert said[0].plain.startswith(f"resumed the {label}, now at seq {at + 1}")
    assert said[-3].plain == label and said[-2].plain.startswith(("you win", "you lose"))


def test_the_next_deal_comes_from_the_parent_or_stops_for_it(parent, tmp_path):
    deals = _deals(parent)
    at = deals[1].seq - 1  # the parent's hand_ended of hand 0: the branch deals hand 1 first
    branch = _branch(parent, at, tmp_path / "d.jsonl")
    before = branch.read_bytes()
    result = _play_cli("--resume", str(branch), "--seat", "1", input="draw\n")
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--parent" in lines[0] and "hand 2" in lines[0]
    assert branch.read_bytes() == before  # no other hand was dealt
    # with the parent the deal is the parent's hand 1, card for card
    result = _play_cli("--resume", str(branch), "--seat", "1", "--parent", str(parent), input="")
    assert result.exit_code == 0, result.output
    mine = _deals(branch)[1]
    assert mine.seq == at + 2 and _cards(mine) == _cards(deals[1]) and mine.commitment == deals[1].commitment
    assert f"buraco play --resume {branch} --parent {parent} --seat 1" in result.stdout


def test_cli_resume_plays_typed_moves_and_names_the_branch_on_every_screen(parent, tmp_path):
    at = _fork_in_hand_0(parent)
    first = _branch(parent, at, tmp_path / "one.jsonl")
    second = tmp_path / "two.jsonl"
    shutil.copyfile(first, second)
    pilot = Greedy(0, limit=4)
    session = resume_session(first, lambda r: None, parent=parent, seat=0)
    try:
        assert not session.run(pilot)
    finally:
        session.close()
    assert len(pilot.script) == 4
    result = _play_cli("--resume", str(second), "--parent", str(parent), "--seat", "0",
                       input="".join(line + "\n" for line in pilot.script))
    assert result.exit_code == 0, result.output
    assert second.read_bytes() == first.read_bytes()  # the same moves, the same lines
    label = f"branch of g-multi at seq {at}"
    prompts = result.stdout.count("you may:")
    assert prompts >= 4 and result.stdout.count(label + "\n") >= prompts
    assert "end of input" in result.stdout
    (audit,) = audit_path(second, partial=True)
    assert audit.report.ok


def test_a_branch_of_a_play_game_takes_its_setup_and_the_parents_key(tmp_path):
    log = tmp_path / "game.jsonl"
    session = new_session("stbl", 2, 1, ["greedy"], 5, log, lambda r: None)
    try:
        session.run(Greedy(1, limit=3))
    finally:
        session.close()
    events = _events(log)
    at = len(events) - 1
    assert isinstance(events[1], Note) and events[-1].seq == at and at > 3
    branch = tmp_path / "game-b.jsonl"
    make_branch(log, at, branch, until="moves", by="t", reason="r")
    with pytest.raises(SetupError) as exc:  # hand 0 is the parent's: its salt is in its key file
        resume_session(branch, lambda r: None, seat=0, bots=["nosuchbot"], parent=log)
    assert exc.value.exit_code == 2 and "--bots" in str(exc.value)

    def until_hand_1(state: GameState) -> str | None:
        return None if state.hand_no >= 1 else pilot(state)

    pilot = Greedy(1)
    session = resume_session(branch, lambda r: None, parent=log)  # the setup note: seat 1 plays
    try:
        assert session.setup.human == 1
        session.run(until_hand_1)
    finally:
        session.close()
    (end,) = [e for e in _events(branch) if isinstance(e, HandEnded) and e.hand == 0]
    key = read_key(key_path(log))
    assert key is not None and end.salt == keyed_salts(key)(0)  # revealed from the parent's key file
    (audit,) = audit_path(branch, partial=True)
    assert audit.report.ok


def test_branch_options_are_refused_for_a_game_and_checked_for_a_branch(parent, tmp_path):
    log = tmp_path / "g.jsonl"
    session = new_session("stbl", 2, 0, ["greedy"], 3, log, lambda r: None)
    session.close()
    for args in (["--seat", "1"], ["--parent", str(parent)], ["--bots", "random"]):
        result = _play_cli("--resume", str(log), *args)
        assert result.exit_code == 2 and "only for a branch" in result.stderr, result.output
        assert len(result.stderr.strip().splitlines()) == 1
    result = _play_cli("--parent", str(parent), "--log", str(tmp_path / "x.jsonl"))
    assert result.exit_code == 2 and "--parent: only with --resume" in result.stderr
    # a branch of a simulated log has no setup note: --seat is needed
    branch = _branch(parent, _fork_in_hand_0(parent), tmp_path / "b.jsonl")
    result = _play_cli("--resume", str(branch), "--parent", str(parent))
    assert result.exit_code == 2 and "--seat N" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    result = _play_cli("--resume", str(branch), "--seat", "2")
    assert result.exit_code == 2 and "--seat: seats are 0..1" in result.stderr
    # a --parent that is not the branch's parent
    other = tmp_path / "other.jsonl"
    events = _events(parent)
    write_log(other, [msgspec.structs.replace(events[0], game_id="g-other"), *events[1:]])
    result = _play_cli("--resume", str(branch), "--seat", "0", "--parent", str(other))
    assert result.exit_code == 2 and "is not the parent of" in result.stderr and "seq 0" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_branch_file_names_a_new_file_beside_the_log_or_in_the_working_folder(tmp_path, monkeypatch):
    from buraco_events.play import branch_setup
    from buraco_events.play.branch_setup import branch_file

    log = tmp_path / "logs" / "g.jsonl"
    log.parent.mkdir()
    log.write_text("")
    assert branch_file(log, 12) == log.parent / "g-branch-12.jsonl"
    (log.parent / "g-branch-12.jsonl").write_text("")
    (log.parent / "g-branch-12-2.jsonl.key").write_text("")  # a key file's name is taken too
    assert branch_file(log, 12) == log.parent / "g-branch-12-3.jsonl"
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr(branch_setup.os, "access", lambda path, mode: Path(path) != log.parent)
    assert branch_file(log, 12) == work / "g-branch-12.jsonl"  # the log's folder is not writable
    monkeypatch.undo()
    monkeypatch.chdir(work)
    assert branch_file(tmp_path / "games.bza" / "g.jsonl", 3) == work / "g-branch-3.jsonl"  # in an archive
