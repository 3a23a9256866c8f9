"""What-if branches and rulings: `play.branch`, `audit.rulings`, `views.compare` and the commands
`buraco branch`, `buraco compare` and `buraco rule` (docs/log-format.md, "Branches" and "Rulings").

The parent is a real two-hand match (greedy against random bots, deals committed); the branches are
forked from it at any seq and played on by bots; the rulings' standings are computed by hand from
the parent's recounted hands.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from helpers import write_match
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from buraco_events.audit.files import audit_path
from buraco_events.audit.rulings import log_facts, rulings_path, rulings_report
from buraco_events.bots.registry import run_game, table_bots
from buraco_events.core.engine import replay
from buraco_events.log.sources import read_log
from buraco_events.log.writer import write_log
from buraco_events.model.events import (
    Branched,
    Drew,
    GameEnded,
    HandStarted,
    StockRefilled,
    decode_event,
)
from buraco_events.play.branch import make_branch, play_out, read_parent, start_branch
from buraco_events.views.compare import compare_logs
from buraco_events.views.projections import player_view
from cli.main import app

runner = CliRunner()
SAMPLE = Path(__file__).parent.parent / "data" / "samples" / "stbl-2p-s0-00000.jsonl"


@pytest.fixture(scope="module")
def parent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A two-hand match to 1500 (seed 3: 1420/350 then 935/480), deals committed."""
    path = tmp_path_factory.mktemp("parent") / "g.jsonl"
    assert len(write_match(path).hand_results) == 2
    return path


def _events(path: Path) -> list:
    return [event for _, _, event in read_log(path)]


def _view(state) -> bytes:
    """The whole table as the referee sees it, but the seq (a branch is one line ahead)."""
    return msgspec.json.encode(msgspec.structs.replace(player_view(state, None), seq=0))


# -- the branch: prefix, state at the fork, the parent's deck ----------------------------------------


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.floats(0, 1), bots=st.sampled_from(["random", "greedy", "greedy,random"]))
def test_a_branch_keeps_the_prefix_the_state_and_the_parents_deck(parent: Path, where: float, bots: str) -> None:
    """Branches: lines 0..SEQ are the parent's bytes; the state there is the parent's; the stock
    after the fork is drawn in the parent's order and later hands are the parent's deals."""
    par = read_parent(parent)
    at = int(where * (len(par.events) - 2))  # any line but game_ended
    table, lines = start_branch(par, at, by="t", reason="r", seed="4")
    assert lines[:at + 1] == par.lines[:at + 1]
    assert _view(table.state) == _view(replay(par.events[:at + 1]))
    fork_state = replay(par.events[:at + 1])
    stock_top_first = list(reversed(fork_state.stock))
    play_out(table, [], bots.split(","), "game", lines, sealed=True)
    branch = [decode_event(line) for line in lines]
    assert isinstance(branch[at + 1], Branched) and branch[at + 1].fork_seq == at
    # the stock of the hand in play is drawn top first as the parent dealt it, up to a refill
    drawn = []
    for event in branch[at + 2:]:
        if isinstance(event, StockRefilled | HandStarted):
            break
        if isinstance(event, Drew):
            drawn.append(event.card)
    if fork_state.phase not in ("deal", "start"):
        assert drawn == stock_top_first[:len(drawn)]
    # every later hand the parent dealt is dealt again as recorded (one it never dealt comes
    # from the seed: test_a_hand_the_parent_never_dealt_comes_from_the_seed)
    parent_deals = {e.hand: e for e in par.events if isinstance(e, HandStarted)}
    for event in branch[at + 2:]:
        if isinstance(event, HandStarted) and event.hand in parent_deals:
            want = parent_deals[event.hand]
            assert (event.hands, event.deads, event.stock, event.discard) == (want.hands, want.deads, want.stock, want.discard)
    assert isinstance(branch[-1], GameEnded)


def test_a_branch_finished_by_bots_audits_clean_at_many_seqs(parent: Path, tmp_path: Path) -> None:
    n = len(read_parent(parent).events)
    for at in (0, 1, 2, n // 4, n // 2, n - 2):
        out = tmp_path / f"b{at}.jsonl"
        result = make_branch(parent, at, out, by="t", reason="r", bots=["random"], until="game")
        audit = next(iter(audit_path(out)))
        assert audit.report.ok, (at, audit.report.first)
        assert out.read_bytes().split(b"\n")[:at + 1] == parent.read_bytes().split(b"\n")[:at + 1]
        assert result.state.phase == "over"


def test_a_hand_the_parent_never_dealt_comes_from_the_seed(tmp_path: Path) -> None:
    """Branches: a parent cut after hand 0 never dealt hand 1; a branch that plays on deals it from
    its seed, the same for the same seed and other for another."""
    match_events, _ = run_game("stbl", 2, 3, table_bots(["greedy", "random"]), "g-m", target=1500)
    cut = next(i for i, e in enumerate(match_events) if isinstance(e, HandStarted) and e.hand == 1)
    short = tmp_path / "short.jsonl"
    write_log(short, match_events[:cut])  # an unfinished match: hand 0 over, hand 1 not dealt
    a = make_branch(short, 5, tmp_path / "a.jsonl", by="t", reason="r", seed="x", until="game", bots=["random"])
    b = make_branch(short, 5, tmp_path / "b.jsonl", by="t", reason="r", seed="x", until="game", bots=["random"])
    c = make_branch(short, 5, tmp_path / "c.jsonl", by="t", reason="r", seed="y", until="game", bots=["random"])
    deal1 = {p: next(e for e in _events(p) if isinstance(e, HandStarted) and e.hand == 1)
             for p in (a.path, b.path, c.path)}
    assert a.path.read_bytes() == b.path.read_bytes()
    assert deal1[a.path].hands != deal1[c.path].hands
    assert deal1[a.path].hands != match_events[cut].hands


# -- buraco branch ---------------------------------------------------------------------------------


def test_branch_command_writes_a_branch_and_says_so(parent: Path, tmp_path: Path) -> None:
    out = tmp_path / "b.jsonl"
    result = runner.invoke(app, ["branch", str(parent), "--at", "57", "-o", str(out), "--play", "draw; discard 4D",
                                 "--bots", "random", "--by", "ana", "--reason", "what if I draw", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["fork_seq"] == 57 and doc["branched"]["by"] == "ana" and doc["branched"]["deck"] == "parent"
    events = _events(out)
    assert isinstance(events[58], Branched) and events[58].reason == "what if I draw"
    assert isinstance(events[59], Drew)
    assert events[60].card == "4D"  # the scripted discard
    text = runner.invoke(app, ["branch", str(parent), "--at", "57", "-o", str(tmp_path / "c.jsonl"), "--by", "x"])
    assert "branch of g-multi at seq 57" in text.stdout


@pytest.mark.parametrize(("args", "code", "words"), [
    (["--at", "9999"], 2, "--at"),
    (["--at", "489"], 2, "game_ended"),  # the parent's last line
    (["--at", "57", "--play", "pile"], 1, "closed pile"),  # stbl: the pile's top must meld at once
    (["--at", "57", "--play", "jump 3"], 2, "unknown command"),
    (["--at", "57", "--play", "hint"], 2, "not a move"),
    (["--at", "57", "--until", "forever"], 2, "--until"),
    (["--at", "57", "--bots", "nobody"], 2, "--bots"),
])
def test_branch_command_errors_are_one_line(parent: Path, tmp_path: Path, args: list[str], code: int, words: str) -> None:
    out = tmp_path / "b.jsonl"
    result = runner.invoke(app, ["branch", str(parent), "-o", str(out), *args])
    assert result.exit_code == code, result.output
    assert words in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not out.exists()


def test_branch_never_replaces_a_file_and_reads_no_garbage(parent: Path, tmp_path: Path) -> None:
    out = tmp_path / "b.jsonl"
    out.write_text("mine\n")
    assert runner.invoke(app, ["branch", str(parent), "--at", "3", "-o", str(out)]).exit_code == 2
    assert out.read_text() == "mine\n"
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"\x00\xff not a log\n")
    result = runner.invoke(app, ["branch", str(junk), "--at", "0", "-o", str(tmp_path / "x.jsonl")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    missing = runner.invoke(app, ["branch", str(tmp_path / "none.jsonl"), "--at", "0", "-o", str(tmp_path / "y.jsonl")])
    assert missing.exit_code == 2 and "cannot read" in missing.output


# -- buraco compare --------------------------------------------------------------------------------


def test_compare_shows_where_they_part_and_the_hands(parent: Path, tmp_path: Path) -> None:
    out = tmp_path / "b.jsonl"
    make_branch(parent, 57, out, by="t", reason="r", bots=["random"], until="game")
    result = runner.invoke(app, ["compare", str(parent), str(out), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    facts_p, facts_b = log_facts(parent.read_bytes().split(b"\n")[:-1]), log_facts(out.read_bytes().split(b"\n")[:-1])
    assert doc["fork_seq"] == 57
    assert [row["parent"] for row in doc["hands"]][:len(facts_p.hands)] == facts_p.hands
    assert doc["parent"]["totals"] == facts_p.totals and doc["branch"]["totals"] == facts_b.totals
    first = doc["differences"][0]
    assert first["parent_seqs"] is not None or first["branch_seqs"] is not None
    assert first["parent_seqs"] is None or first["parent_seqs"][0] >= 58
    assert first["branch_seqs"] is None or first["branch_seqs"][0] >= 59
    text = runner.invoke(app, ["compare", str(parent), str(out)], env={"COLUMNS": "120"}).stdout
    assert "branch of g-multi at seq 57" in text and "they part after seq 57" in text


def test_compare_finds_no_difference_when_the_branch_plays_as_the_parent(tmp_path: Path) -> None:
    """The greedy bots decide without chance: forked and played by them again, a greedy game
    repeats itself, and compare says so."""
    out = tmp_path / "b.jsonl"
    make_branch(SAMPLE, 40, out, by="t", reason="r", bots=["greedy"], until="game")
    result = compare_logs(SAMPLE.read_bytes().split(b"\n")[:-1], out.read_bytes().split(b"\n")[:-1])
    assert result.differences == [] and result.differing_events == 0
    assert result.branch.totals == result.parent.totals


def test_compare_refuses_logs_that_are_not_parent_and_branch(parent: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["compare", str(parent), str(SAMPLE)])
    assert result.exit_code == 1 and "not a branch" in result.output
    out = tmp_path / "b.jsonl"
    make_branch(parent, 20, out, by="t", reason="r", bots=["random"])
    lines = out.read_bytes().split(b"\n")
    lines[5] = lines[5].replace(b'"player":0', b'"player":1', 1) if b'"player":0' in lines[5] else lines[5] + b" "
    edited = tmp_path / "edited.jsonl"
    edited.write_bytes(b"\n".join(lines))
    result = runner.invoke(app, ["compare", str(parent), str(edited)])
    assert result.exit_code == 1 and "Traceback" not in result.output


# -- rulings ---------------------------------------------------------------------------------------


def _rule(log: Path, *args: str) -> object:
    return runner.invoke(app, ["rule", str(log), "--by", "ref", "--reason", "because", *args])


def test_rulings_give_standings_as_a_referee_computes_them(parent: Path, tmp_path: Path) -> None:
    """Rulings: hand_voided counts a hand 0, score_adjusted adds points, withdrawn cancels,
    game_awarded names the winner; the recount stays as the log says."""
    log = tmp_path / "g.jsonl"
    log.write_bytes(parent.read_bytes())
    hands = log_facts(log.read_bytes().split(b"\n")[:-1]).hands  # seed 3: [[1420, 350], [935, 480]]
    assert _rule(log, "--kind", "hand_voided", "--hand", "1").exit_code == 0  # the first hand
    report = rulings_report(log)
    assert report.after.totals == hands[1] and report.recount.totals == [hands[0][t] + hands[1][t] for t in (0, 1)]
    assert report.after.winner is None  # 935 and 480: no team reaches 1500 any more
    assert _rule(log, "--kind", "score_adjusted", "--hand", "2", "--points=600,-20").exit_code == 0
    report = rulings_report(log)
    assert report.after.totals == [hands[1][0] + 600, hands[1][1] - 20]
    assert report.after.winner == 0  # 1535 reaches 1500
    assert _rule(log, "--kind", "withdrawn", "--ruling-seq", "0").exit_code == 0
    report = rulings_report(log)
    assert report.after.totals == [hands[0][0] + hands[1][0] + 600, hands[0][1] + hands[1][1] - 20]
    assert [r.applies for r in report.rulings] == [False, True, True]
    assert report.rulings[0].why_not == "withdrawn by ruling 2"
    assert _rule(log, "--kind", "game_awarded", "--team", "1").exit_code == 0
    report = rulings_report(log)
    assert report.after.winner == 1 and report.after.awarded
    assert report.recount.winner == 0  # the log's own result is never replaced
    assert _rule(log, "--kind", "warning").exit_code == 0
    assert rulings_report(log).after == report.after


def test_replay_from_takes_the_hands_from_the_branch(parent: Path, tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    log.write_bytes(parent.read_bytes())
    facts = log_facts(log.read_bytes().split(b"\n")[:-1])
    hand1 = next(e.seq for e in _events(log) if isinstance(e, HandStarted) and e.hand == 1)
    branch = tmp_path / "b.jsonl"
    make_branch(log, hand1 + 3, branch, by="ref", reason="replay hand 1", bots=["random"], until="game")
    b = log_facts(branch.read_bytes().split(b"\n")[:-1])
    result = _rule(log, "--kind", "replay_from", "--branch", str(branch), "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["ruling"]["hand"] == 1 and doc["ruling"]["branch_head"] == b.head
    after = doc["report"]["after"]
    assert after["hands"] == [facts.hands[0], *b.hands[1:]]
    other = tmp_path / "other.jsonl"
    make_branch(SAMPLE, 3, other, by="x", reason="y", bots=["random"])
    refused = _rule(log, "--kind", "replay_from", "--branch", str(other))
    assert refused.exit_code == 1 and "branch of game" in refused.output


def test_a_ruling_on_a_changed_log_is_refused_and_reported(parent: Path, tmp_path: Path) -> None:
    """Rulings bind the game log as it was: an edit of a line up to game_seq unbinds them."""
    log = tmp_path / "g.jsonl"
    log.write_bytes(parent.read_bytes())
    assert _rule(log, "--kind", "hand_voided", "--hand", "1").exit_code == 0
    data = bytearray(log.read_bytes())
    at = data.index(b'"card":"') + 8
    data[at:at + 1] = b"Q" if data[at:at + 1] != b"Q" else b"K"
    log.write_bytes(bytes(data))
    report = rulings_report(log)
    assert not report.rulings[0].applies and "changed" in report.rulings[0].why_not
    result = _rule(log, "--kind", "warning")
    assert result.exit_code == 1 and "changed" in result.output
    assert len(rulings_path(log).read_bytes().splitlines()) == 1  # nothing appended


@pytest.mark.parametrize(("args", "code"), [
    (["--kind", "pardon"], 2),
    (["--kind", "hand_voided"], 2),  # no hand
    (["--kind", "hand_voided", "--hand", "7"], 2),  # no such hand
    (["--kind", "score_adjusted", "--hand", "1", "--points", "5"], 2),  # one team only
    (["--kind", "score_adjusted", "--hand", "1", "--points", "a,b"], 2),
    (["--kind", "hand_voided", "--hand", "0"], 2),  # hands are counted from 1
    (["--kind", "game_awarded"], 2),
    (["--kind", "withdrawn", "--ruling-seq", "4"], 2),
    (["--kind", "replay_from"], 2),
])
def test_rule_errors_are_one_line(parent: Path, tmp_path: Path, args: list[str], code: int) -> None:
    log = tmp_path / "g.jsonl"
    log.write_bytes(parent.read_bytes())
    result = _rule(log, *args)
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    assert not rulings_path(log).exists()


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(data=st.binary(max_size=400))
def test_any_bytes_as_a_log_or_a_rulings_log_get_one_line(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    log = folder / "g.jsonl"
    log.write_bytes(data)
    for args in (["rule", str(log), "--kind", "warning", "--by", "r", "--reason", "x"],
                 ["branch", str(log), "--at", "0", "-o", str(folder / "b.jsonl")],
                 ["compare", str(log), str(SAMPLE)], ["compare", str(SAMPLE), str(log)]):
        result = runner.invoke(app, args)
        assert result.exit_code in (0, 1, 2) and "Traceback" not in result.output, args
    good = folder / "ok.jsonl"
    good.write_bytes(SAMPLE.read_bytes())
    rulings_path(good).write_bytes(data)
    result = runner.invoke(app, ["rule", str(good), "--kind", "warning", "--by", "r", "--reason", "x"])
    assert result.exit_code in (0, 1, 2) and "Traceback" not in result.output
