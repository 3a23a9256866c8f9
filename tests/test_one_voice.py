"""One voice for referees: `compare` tells moves in the move list's words, `branch` is by a role
unless `--by` names someone (never the login name), `branch --play` refuses in the words `play`
uses, and a lay-off that would be a meld's second wild names the one-wild rule."""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from buraco_events.core.cards import SUIT, is_wild_card
from buraco_events.core.gate import team_of
from buraco_events.log.sources import read_log
from buraco_events.model.events import Branched, decode_event
from buraco_events.model.rules import PRESETS
from buraco_events.play.branch import BranchError, make_branch
from buraco_events.play.commands import ONE_WILD, broken_rule, parse_command
from buraco_events.views.projections import Timeline
from cli.main import app

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "data" / "samples").glob("*-s0-00000.jsonl"))
runner = CliRunner()


@pytest.fixture(scope="module")
def parent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("voice")
    result = runner.invoke(app, ["simulate", "--games", "1", "--players", "2", "--seed", "3", "--out", str(out),
                                 "--bots", "greedy,random"])
    assert result.exit_code == 0, result.output
    (log,) = out.glob("*.jsonl")
    return log


def test_a_branch_is_by_analysis_unless_by_names_someone(parent: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["branch", str(parent), "--at", "20", "-o", str(tmp_path / "b.jsonl")])
    assert result.exit_code == 0, result.output
    branched = next(e for e in map(decode_event, (tmp_path / "b.jsonl").read_bytes().splitlines())
                    if isinstance(e, Branched))
    assert branched.by == "analysis" and branched.by != getpass.getuser()
    named = runner.invoke(app, ["branch", str(parent), "--at", "20", "-o", str(tmp_path / "c.jsonl"),
                                "--by", "ana"])
    assert named.exit_code == 0 and '"by":"ana"' in (tmp_path / "c.jsonl").read_text()


def test_compare_lists_moves_in_the_move_list_s_words(parent: Path, tmp_path: Path) -> None:
    branch = tmp_path / "b.jsonl"
    assert runner.invoke(app, ["branch", str(parent), "--at", "20", "-o", str(branch), "--seed", "9"]).exit_code == 0
    result = runner.invoke(app, ["compare", str(parent), str(branch)], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    parent_tl = Timeline([e for _, _, e in read_log(parent)])
    moves = [line.strip() for line in result.stdout.splitlines() if line.startswith("    seq ")]
    assert moves, result.stdout
    said = {parent_tl.describe(s) for s in range(parent_tl.last + 1)}
    assert any(m in said for m in moves)  # the parent's moves as the replay tells them
    assert all(" player " not in m and "took_pile" not in m and "melded" not in m for m in moves)


def test_branch_play_refuses_in_play_s_words(parent: Path, tmp_path: Path) -> None:
    tl = Timeline([e for _, _, e in read_log(parent)])
    at = next(s for s in range(5, tl.last) if tl.state(s).phase == "draw")
    result = runner.invoke(app, ["branch", str(parent), "--at", str(at), "-o", str(tmp_path / "x.jsonl"),
                                 "--play", "discard KC"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "draw first: take the stock's top card (`draw`) or the whole pile (`pile`)" in result.output


def _second_wild() -> tuple[Path, int, str] | None:
    """Find, in the samples, a seat in its play phase holding a wild while its team has a meld with
    a wild: (log, seq, the `add` command that would lay the second wild)."""
    for log in SAMPLES:
        tl = Timeline([e for _, _, e in read_log(log)])
        for seq in range(tl.last):
            state = tl.state(seq)
            if state.phase != "play" or state.to_play is None:
                continue
            for m in state.melds:
                if m.team != team_of(state.to_play) or m.shape.type != "run" or m.shape.wild is None:
                    continue
                suit = next(SUIT[c] for c in m.cards if not is_wild_card(c))
                if SUIT.get(m.shape.wild) == suit:
                    continue  # a 2 of the run's suit may yet stand as itself
                # a joker or a 2 of another suit can only be a wild: the meld's second
                wilds = [c for c in state.hands[state.to_play] if is_wild_card(c) and SUIT.get(c) != suit]
                if wilds:
                    return log, seq, f"add {m.id} {wilds[0]}"
    return None


def test_a_lay_off_that_would_be_a_second_wild_names_the_one_wild_rule(tmp_path: Path) -> None:
    found = _second_wild()
    assert found is not None
    log, seq, command = found
    action = parse_command(command)
    assert not isinstance(action, str | None)
    with pytest.raises(BranchError) as refused:
        make_branch(log, seq, tmp_path / "w.jsonl", moves=[action], by="analysis", reason="test")
    assert ONE_WILD in str(refused.value) and "has one already" in str(refused.value)
    assert "does not make a legal meld" not in str(refused.value)


def test_the_2_of_a_run_s_suit_that_fits_nowhere_is_a_second_wild() -> None:
    rules = PRESETS["stbl"]
    assert broken_rule(("6H", "7H", "8H", "9H", "2C", "2H"), rules) == ONE_WILD
    assert broken_rule(("6H", "7H", "2H", "10H"), rules).startswith("a run needs consecutive ranks")
