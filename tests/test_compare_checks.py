"""`compare` and `rule` read branches, games and rulings logs through the checked reader: a line
after the fork that does not read, a chain that breaks after the fork, a `branched` line the
engine refuses, JSON nested past any stack: one line naming the file, the line and what is wrong,
exit 1 or 2, never a traceback and never "the branch plays exactly as the parent did"."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import write_match
from typer.testing import CliRunner

from buraco_events.play.branch import make_branch
from cli.main import app

runner = CliRunner(env={"COLUMNS": "200", "NO_COLOR": "1"})
FORK = 20
#: the line (from 0) edited after the fork: well inside the branch's own moves
AFTER = FORK + 12
DEEP = b'{"a":' * 100_000 + b"1" + b"}" * 100_000


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A match and a branch of it, forked at seq 20 and played to the end by greedy bots."""
    folder = tmp_path_factory.mktemp("pair")
    parent = folder / "g.jsonl"
    write_match(parent)
    branch = folder / "b.jsonl"
    make_branch(parent, FORK, branch, by="t", reason="r", bots=["greedy"], until="game")
    return parent, branch


def _obj_edit(change: Callable[[dict], None]) -> Callable[[bytes], bytes]:
    def edit(line: bytes) -> bytes:
        obj = json.loads(line)
        change(obj)
        return json.dumps(obj, separators=(",", ":")).encode()
    return edit


def _flip_prev(obj: dict) -> None:
    prev = obj["prev"]
    obj["prev"] = prev[:5] + ("0" if prev[5] != "0" else "1") + prev[6:]


def _edited(src: Path, dst: Path, index: int, edit: Callable[[bytes], bytes]) -> Path:
    lines = src.read_bytes().split(b"\n")
    lines[index] = edit(lines[index])
    dst.write_bytes(b"\n".join(lines))
    return dst


def _one_line(result, code: int = 1) -> str:
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output and result.stderr.count("\n") == 1, result.stderr
    assert "plays exactly as the parent did" not in result.stdout
    return result.stderr


MALFORMED = {
    "broken JSON": lambda line: line[:-5],
    "a missing field": _obj_edit(lambda o: o.pop("player")),
    "bad UTF-8": lambda line: line.replace(b'"seq"', b'"s\xffq"', 1),
    "a prev of the wrong length": _obj_edit(lambda o: o.update(prev=o["prev"][:-1])),
    "JSON nested past any stack": lambda line: DEEP,
    "a changed byte of prev": _obj_edit(_flip_prev),
}


@pytest.mark.parametrize("what", sorted(MALFORMED))
def test_a_branch_line_after_the_fork_that_does_not_read_or_link_is_one_line(
        pair: tuple[Path, Path], tmp_path: Path, what: str) -> None:
    parent, branch = pair
    sound = runner.invoke(app, ["compare", str(parent), str(branch)])
    assert sound.exit_code == 0, sound.output
    bad = _edited(branch, tmp_path / "bad.jsonl", AFTER, MALFORMED[what])
    for args in ([], ["--json"]):
        error = _one_line(runner.invoke(app, ["compare", str(parent), str(bad), *args]))
        assert f"bad.jsonl: line {AFTER + 1}" in error and "not compared" in error, error


@pytest.mark.parametrize("what", ["broken JSON", "a changed byte of prev", "JSON nested past any stack"])
def test_a_parent_line_after_the_fork_that_does_not_read_or_link_is_one_line(
        pair: tuple[Path, Path], tmp_path: Path, what: str) -> None:
    parent, branch = pair
    bad = _edited(parent, tmp_path / "p.jsonl", AFTER, MALFORMED[what])
    error = _one_line(runner.invoke(app, ["compare", str(bad), str(branch)]))
    assert "p.jsonl: line" in error and "not compared" in error


BAD_BRANCHED = {
    "fork_seq": (_obj_edit(lambda o: o.update(fork_seq=FORK - 1)), "fork_seq"),
    "parent": (_obj_edit(lambda o: o.update(parent="another-game")), "another-game"),
    "redeal": (_obj_edit(lambda o: o.update(deck="redealt")), "redealt deck"),
}


@pytest.mark.parametrize("what", sorted(BAD_BRANCHED))
def test_a_bad_branched_line_is_named_for_what_is_wrong(pair: tuple[Path, Path], tmp_path: Path, what: str) -> None:
    parent, branch = pair
    edit, words = BAD_BRANCHED[what]
    bad = _edited(branch, tmp_path / "bad.jsonl", FORK + 1, edit)
    error = _one_line(runner.invoke(app, ["compare", str(parent), str(bad)]))
    assert "has no branched line" not in error
    assert f"line {FORK + 2}: its branched line does not hold" in error and words in error, error
    ruled = tmp_path / "g.jsonl"
    ruled.write_bytes(parent.read_bytes())
    error = _one_line(runner.invoke(app, ["rule", str(ruled), "--kind", "replay_from", "--branch", str(bad),
                                          "--by", "r", "--reason", "x"]))
    assert "has no branched line" not in error and "its branched line does not hold" in error


def test_rule_reads_json_nested_past_any_stack_in_one_line(pair: tuple[Path, Path], tmp_path: Path) -> None:
    parent, branch = pair
    args = ["--kind", "warning", "--by", "r", "--reason", "x"]
    game = _edited(parent, tmp_path / "g.jsonl", AFTER, lambda line: DEEP)
    error = _one_line(runner.invoke(app, ["rule", str(game), *args]))
    assert f"line {AFTER + 1}" in error
    first = _edited(parent, tmp_path / "h.jsonl", 0, lambda line: DEEP)
    _one_line(runner.invoke(app, ["rule", str(first), *args]), 2)
    sound = tmp_path / "s.jsonl"
    sound.write_bytes(parent.read_bytes())
    (tmp_path / "s.rulings.jsonl").write_bytes(DEEP + b"\n")
    error = _one_line(runner.invoke(app, ["rule", str(sound), *args]))
    assert "s.rulings.jsonl: line 1" in error and "nested too deeply" in error
    bad = _edited(branch, tmp_path / "b.jsonl", AFTER, lambda line: DEEP)
    _one_line(runner.invoke(app, ["rule", str(sound.with_name("t.jsonl")), *args]), 2)
    (tmp_path / "s.rulings.jsonl").unlink()
    error = _one_line(runner.invoke(app, ["rule", str(sound), "--kind", "replay_from", "--branch", str(bad),
                                          "--by", "r", "--reason", "x"]))
    assert f"line {AFTER + 1}" in error


def test_a_disputed_parent_with_an_illegal_event_is_still_compared(tmp_path: Path) -> None:
    """A parent sealed as played, whose illegal event comes after the fork, is why a what-if is
    made: it reads whole, so compare sets the branch beside it (its recount stops at that event)."""
    parent = Path(__file__).resolve().parent.parent / "data" / "disputes" / "illegal_close.jsonl"
    branch = tmp_path / "b.jsonl"
    make_branch(parent, 10, branch, by="t", reason="r", bots=["greedy"], until="hand")
    result = runner.invoke(app, ["compare", str(parent), str(branch), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["fork_seq"] == 10 and doc["differing_events"] > 0
