"""`buraco audit` on branches and beside rulings (docs/log-format.md, "Branches" and "Rulings").

A branch made by `make_branch` (bots finish it) audits clean and is named "branch of GAME at seq
N"; `--parent` proves its lines up to the fork are the parent's byte for byte, and catches one
changed byte of the prefix (even re-sealed, where the chain alone cannot), a branch passed off
without its `branched` line, and a `branched` line naming another game. A game's rulings log is
shown beside the verdict, never changing it; a ruling on a log changed since does not apply.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from buraco_events.audit.files import audit_path, parent_log, read_parent_log
from buraco_events.audit.rulings import RulingRequest, append_ruling, new_ruling, rulings_path
from buraco_events.log.lines import decode_line
from buraco_events.model.events import encode_event
from buraco_events.play.branch import make_branch
from cli.main import app

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "data" / "samples").glob("*.jsonl"))
runner = CliRunner(env={"COLUMNS": "200", "NO_COLOR": "1"})


def _lines(path: Path) -> list[bytes]:
    data = path.read_bytes()
    assert data.endswith(b"\n")
    return data[:-1].split(b"\n")


def _write(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


def _resealed(lines: list[bytes], start: int) -> list[bytes]:
    """Return `lines` with seq renumbered and `prev` recomputed from line `start` on, as a forger
    who rewrites the chain after an edit would."""
    out = list(lines[:start])
    for place in range(start, len(lines)):
        ev = decode_line(lines[place], place + 1)
        prev = hashlib.sha256(out[-1]).hexdigest() if out else "0" * 64
        out.append(encode_event(msgspec.structs.replace(ev, seq=place, prev=prev)))
    return out


def _branch(tmp: Path, sample: Path, at: int, name: str = "b.jsonl") -> Path:
    out = tmp / name
    make_branch(sample, at, out, by="ana", reason="what if seat 1 kept the pile", seed="7",
                bots=["random"], until="game")
    return out


def _audit(path: Path, parent: Path | None = None, partial: bool = False):
    (result,) = audit_path(path, partial=partial,
                           parent=read_parent_log(parent) if parent is not None else None)
    return result


def _forks(sample: Path) -> list[int]:
    n = len(_lines(sample))
    return sorted({0, n // 3, n - 2})  # right after game_started, mid-hand, just before game_ended


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.stem for s in SAMPLES])
def test_a_branch_of_every_sample_audits_clean_against_its_parent(tmp_path: Path, sample: Path) -> None:
    game_id = json.loads(_lines(sample)[0])["game_id"]
    for at in _forks(sample):
        branch = _branch(tmp_path, sample, at, f"b{at}.jsonl")
        lines = _lines(branch)
        assert lines[:at + 1] == _lines(sample)[:at + 1]  # the premise: the parent's lines as stored
        result = _audit(branch, sample)
        rep = result.report
        assert rep.ok and rep.complete and rep.first is None, (at, rep.problems)
        assert rep.branch is not None and rep.branch.fork_seq == at and rep.branch.seq == at + 1
        assert (rep.branch.parent, rep.branch.by, rep.branch.seed) == (game_id, "ana", "7")
        assert rep.parent == str(sample) and "branch" not in result.kind_counts
        # without --parent it is audited as any log, and still named a branch
        alone = _audit(branch).report
        assert alone.ok and alone.branch == rep.branch and alone.parent is None


def _rechained(lines: list[bytes], start: int) -> list[bytes]:
    """Return `lines` with the `prev` of every line after `start` rewritten in place to the
    SHA-256 of the line before it (the rest of each line's bytes kept as they are)."""
    out = list(lines[:start + 1])
    for line in lines[start + 1:]:
        i = line.index(b'"prev":"') + len(b'"prev":"')
        out.append(line[:i] + hashlib.sha256(out[-1]).hexdigest().encode() + line[i + 64:])
    return out


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_one_byte_changed_in_the_prefix_is_caught_at_its_seq(tmp_path_factory, data) -> None:
    sample = data.draw(st.sampled_from(SAMPLES[:2]))
    n = len(_lines(sample))
    at = data.draw(st.integers(1, n - 2), label="fork")
    changed = data.draw(st.integers(0, at), label="changed line")
    branch = _branch(tmp_path_factory.mktemp("b"), sample, at)
    assert _audit(branch, sample).report.ok  # a branch at any seq proves against its parent
    lines = _lines(branch)
    line = lines[changed]
    # a hex digit of the line's prev changed: the chain shows it too
    i = line.index(b'"prev":"') + len(b'"prev":"') + data.draw(st.integers(0, 63), label="byte")
    flipped = list(lines)
    flipped[changed] = line[:i] + (b"1" if line[i:i + 1] != b"1" else b"2") + line[i + 1:]
    # a space after the line's first comma, the chain rewritten after it: the same event, the
    # chain sound, only the bytes differ from the parent's
    j = line.index(b",") + 1
    spaced = _rechained([*lines[:changed], line[:j] + b" " + line[j:], *lines[changed + 1:]], changed)
    assert _audit(_write(branch.with_name("spaced.jsonl"), spaced)).report.ok
    for forged in (flipped, spaced):
        path = _write(branch.with_name("forged.jsonl"), forged)
        rep = _audit(path, sample).report
        assert not rep.ok
        proofs = [p for p in rep.problems if p.kind == "branch"]
        assert [p.seq for p in proofs] == [changed], rep.problems
        assert proofs[0].message.startswith(f"line {changed} differs from the parent's")
        if forged is spaced:  # only the parent shows the edit, and it heads the verdict
            assert rep.changed is None and rep.first == proofs[0]
        else:
            # the chain shows it as well (a prev that is not the line before's: that line or
            # this one was changed), and heads the verdict
            assert rep.changed == max(changed - 1, 0) and rep.first is not None
            assert rep.first.kind == "integrity"


def test_a_resealed_edit_only_the_parent_shows(tmp_path: Path) -> None:
    sample = SAMPLES[0]
    branch = _branch(tmp_path, sample, 30)
    lines = _lines(branch)
    lines[0] = lines[0].replace(b'"greedy-0"', b'"greedy-X"')
    forged = _write(tmp_path / "forged.jsonl", _resealed(lines, 0))
    assert _audit(forged).report.ok  # a sound log on its own: only its parent tells
    rep = _audit(forged, sample).report
    assert not rep.ok and rep.first is not None and rep.first.kind == "branch" and rep.first.seq == 0
    assert "greedy-X" in rep.first.message and "greedy-0" in rep.first.message
    result = runner.invoke(app, ["audit", str(forged), "--parent", str(sample)])
    assert result.exit_code == 1
    verdict = result.stdout.splitlines()[0]
    game_id = json.loads(_lines(sample)[0])["game_id"]
    assert verdict.startswith(f"FAIL {forged}  (branch of {game_id} at seq 30, ")
    assert "not the parent's where it must be: line 0 differs from the parent's" in verdict
    assert f"reproduce: buraco audit {forged} --parent {sample}" in result.stdout
    page = tmp_path / "report.html"  # the referee's page holds the same verdict
    result = runner.invoke(app, ["audit", str(forged), "--parent", str(sample), "--html", str(page)])
    assert result.exit_code == 1 and "line 0 differs from the parent" in page.read_text()


@pytest.mark.parametrize("resealed", [False, True])
def test_a_branch_passed_off_without_its_branched_line_is_caught(tmp_path: Path, resealed: bool) -> None:
    sample = SAMPLES[0]
    at = 25
    lines = _lines(_branch(tmp_path, sample, at))
    assert json.loads(lines[at + 1])["type"] == "branched"
    del lines[at + 1]
    forged = _write(tmp_path / "passed-off.jsonl", _resealed(lines, at + 1) if resealed else lines)
    alone = _audit(forged).report
    assert alone.branch is None  # nothing in it says branch any more
    if resealed:
        assert alone.ok  # the chain and the rules alone cannot tell it from the game
    else:
        assert not alone.ok and alone.changed == at  # the chain breaks after the fork line
    rep = _audit(forged, sample).report
    assert not rep.ok
    (proof,) = [p for p in rep.problems if p.kind == "branch"]
    assert proof.seq == at + 1
    assert proof.message.startswith(f"seq {at + 1} differs from the parent's")
    assert proof.message.endswith("no branched line says this is a branch")


def test_a_branched_line_naming_another_game_is_caught(tmp_path: Path) -> None:
    sample = SAMPLES[0]
    at = 12
    lines = _lines(_branch(tmp_path, sample, at))
    game_id = json.loads(lines[0])["game_id"]
    lines[at + 1] = lines[at + 1].replace(f'"parent":"{game_id}"'.encode(), b'"parent":"other-game"')
    forged = _write(tmp_path / "other.jsonl", _resealed(lines, at + 1))
    rep = _audit(forged, sample).report
    assert not rep.ok and rep.branch is not None and rep.branch.parent == "other-game"
    (proof,) = [p for p in rep.problems if p.kind == "branch"]
    assert proof.seq == at + 1 and "'other-game'" in proof.message and repr(game_id) in proof.message
    assert any(p.kind == "illegal" and p.seq == at + 1 for p in rep.problems)  # the engine too


def test_the_parent_itself_and_its_first_lines_pass_and_a_longer_log_does_not(tmp_path: Path) -> None:
    sample = SAMPLES[0]
    assert _audit(sample, sample).report.ok
    lines = _lines(sample)
    head = _write(tmp_path / "head.jsonl", lines[:40])
    assert _audit(head, sample, partial=True).report.ok
    # the parent audited against its branch parts from it at the branched line
    branch = _branch(tmp_path, sample, 40)
    rep = _audit(sample, branch).report
    (proof,) = [p for p in rep.problems if p.kind == "branch"]
    assert proof.seq == 41 and '"branched"' in proof.message
    # a log that goes on past its parent is not the parent
    rep = _audit(sample, head).report
    (proof,) = [p for p in rep.problems if p.kind == "branch"]
    assert proof.seq == 40 and "past the parent's last line (seq 39)" in proof.message


def test_a_branch_of_a_branch_proves_against_its_own_parent_only(tmp_path: Path) -> None:
    sample = SAMPLES[0]
    first = _branch(tmp_path, sample, 10, "b1.jsonl")
    second = _branch(tmp_path, first, 60, "b2.jsonl")
    rep = _audit(second, first).report
    assert rep.ok and rep.branch is not None and rep.branch.fork_seq == 60
    rep = _audit(second, sample).report
    (proof,) = [p for p in rep.problems if p.kind == "branch"]
    assert proof.seq == 11 and not rep.ok  # the first branch's branched line is not the game's


def test_cli_names_a_branch_and_its_proof(tmp_path: Path) -> None:
    sample = SAMPLES[0]
    game_id = json.loads(_lines(sample)[0])["game_id"]
    branch = _branch(tmp_path, sample, 33)
    result = runner.invoke(app, ["audit", str(branch), "--parent", str(sample)])
    assert result.exit_code == 0, result.output
    verdict = result.stdout.splitlines()[0]
    assert verdict.startswith(f"PASS {branch}  (branch of {game_id} at seq 33, ")
    assert f"game {game_id}" not in verdict  # never named as the game
    assert f"lines up to the fork are {sample}'s" in verdict
    result = runner.invoke(app, ["audit", str(branch), "--parent", str(sample), "--json"])
    obj = json.loads(result.stdout)
    assert obj["branch"] == {"seq": 34, "parent": game_id, "fork_seq": 33, "deck": "parent", "seat": None,
                             "seed": "7", "by": "ana", "reason": "what if seat 1 kept the pile"}
    assert obj["parent"] == str(sample) and obj["ok"] is True and "rulings" not in obj
    # a game audited alone: none of the three keys, its JSON as it always was
    obj = json.loads(runner.invoke(app, ["audit", str(sample), "--json"]).stdout)
    assert not {"branch", "parent", "rulings"} & set(obj)


@pytest.mark.parametrize("bad", ["missing.jsonl", "empty.jsonl", "notalog.jsonl", "folder"])
def test_an_unreadable_parent_is_exit_2_in_one_line(tmp_path: Path, bad: str) -> None:
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "notalog.jsonl").write_bytes(b"\x1b[2J hello\n")
    (tmp_path / "folder").mkdir()
    result = runner.invoke(app, ["audit", str(SAMPLES[0]), "--parent", str(tmp_path / bad)])
    assert result.exit_code == 2 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "--parent" in lines[0]
    assert "\x1b" not in result.stderr


def test_parent_log_refuses_a_first_line_that_is_not_game_started() -> None:
    from buraco_events.audit.files import AuditInputError

    lines = _lines(SAMPLES[0])
    with pytest.raises(AuditInputError, match="first event of a log is game_started"):
        parent_log("x", lines[1:])


# -- rulings beside the verdict --------------------------------------------------------------------


def _ruled(tmp_path: Path) -> tuple[Path, list[int]]:
    """A copy of a sample with two rulings: +50/-50 on hand 0, and the game awarded to the
    team that lost it; return the log and its recounted totals."""
    log = tmp_path / "game.jsonl"
    log.write_bytes(SAMPLES[0].read_bytes())
    totals = json.loads(_lines(log)[-1])["totals"]
    loser = 0 if totals[0] < totals[1] else 1
    for request in (RulingRequest("score_adjusted", "ref", "a miscount", hand=0, points=[50, -50]),
                    RulingRequest("game_awarded", "ref", "seat 1 left\x1b[2J", team=loser)):
        ruling, path = new_ruling(log, request)
        append_ruling(path, ruling)
    return log, totals


def test_rulings_are_shown_beside_the_verdict_and_never_change_it(tmp_path: Path) -> None:
    log, totals = _ruled(tmp_path)
    loser = 0 if totals[0] < totals[1] else 1
    result = runner.invoke(app, ["audit", str(log)])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith(f"PASS {log}  (game ")
    assert "score_adjusted +50, -50" in out and f"game_awarded to team {loser}" in out
    assert "seat 1 left\\x1b[2J" in out and "\x1b" not in out  # shown escaped
    assert f"recount (the events): totals team 0 {totals[0]}, team 1 {totals[1]}; winner team {1 - loser}" in out
    assert (f"standings after rulings: totals team 0 {totals[0] + 50}, team 1 {totals[1] - 50}; winner team"
            f" {loser} (awarded) (2 of 2 apply; apart from the recount)") in out
    obj = json.loads(runner.invoke(app, ["audit", str(log), "--json"]).stdout)
    assert obj["ok"] is True and obj["rulings"]["path"] == str(rulings_path(log))
    assert [r["applies"] for r in obj["rulings"]["rulings"]] == [True, True]
    assert obj["rulings"]["recount"]["totals"] == totals
    assert obj["rulings"]["after"] == {"hands": [[totals[0] + 50, totals[1] - 50]],
                                       "totals": [totals[0] + 50, totals[1] - 50], "winner": loser,
                                       "awarded": True}
    # the same log without its rulings log: the same verdict, the same report but for rulings
    rulings_path(log).rename(tmp_path / "kept.rulings.jsonl")
    plain = json.loads(runner.invoke(app, ["audit", str(log), "--json"]).stdout)
    assert "rulings" not in plain and {**plain, "rulings": obj["rulings"]} == obj
    # --rulings names a rulings log elsewhere
    named = json.loads(runner.invoke(app, ["audit", str(log), "--json", "--rulings",
                                           str(tmp_path / "kept.rulings.jsonl")]).stdout)
    assert named["rulings"]["after"] == obj["rulings"]["after"]


def test_a_ruling_on_a_changed_log_does_not_apply(tmp_path: Path) -> None:
    log, totals = _ruled(tmp_path)
    lines = _lines(log)
    # the last line rewritten (another winner claimed): the rulings bind it as it was
    last = json.loads(lines[-1])
    last["winner"] = 1 - last["winner"]
    lines[-1] = json.dumps(last, separators=(",", ":")).encode()
    _write(log, lines)
    result = runner.invoke(app, ["audit", str(log)])
    assert result.exit_code == 1 and result.stdout.startswith("FAIL ")
    out = result.stdout
    assert out.count("no: the game log changed: its line") == 2
    assert "2 of 2 rulings no longer bind this log: the game log changed after they were made" in out
    assert (f"standings after rulings: totals team 0 {totals[0]}, team 1 {totals[1]}; winner team"
            f" {0 if totals[0] > totals[1] else 1} (0 of 2 apply") in out
    obj = json.loads(runner.invoke(app, ["audit", str(log), "--json"]).stdout)
    assert [r["applies"] for r in obj["rulings"]["rulings"]] == [False, False]
    assert obj["rulings"]["after"]["awarded"] is False


def test_a_garbled_rulings_log_is_one_line_after_the_verdict(tmp_path: Path) -> None:
    log, _ = _ruled(tmp_path)
    path = rulings_path(log)
    rulings = _lines(path)
    bad = json.loads(rulings[1])
    bad["points"] = "lots"
    _write(path, [rulings[0], json.dumps(bad).encode()])
    for args in ([], ["--json"]):
        result = runner.invoke(app, ["audit", str(log), *args])
        assert result.exit_code == 1, result.output
        errors = result.stderr.splitlines()
        assert len(errors) == 1 and errors[0].startswith(f"error: {path}: line 2 (seq 1): field points:")
        if args:
            obj = json.loads(result.stdout)
            assert obj["ok"] is True and obj["rulings"]["problem"] is not None
            assert len(obj["rulings"]["rulings"]) == 1  # the ruling before it is judged
        else:
            assert result.stdout.startswith(f"PASS {log}")  # the verdict stands


def test_rulings_option_errors(tmp_path: Path) -> None:
    log, _ = _ruled(tmp_path)
    result = runner.invoke(app, ["audit", str(log), "--rulings", str(tmp_path / "none.jsonl")])
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1
    result = runner.invoke(app, ["audit", str(tmp_path), "--rulings", str(rulings_path(log))])
    assert result.exit_code == 2 and "one log file" in result.stderr


def test_a_folder_with_rulings_logs_audits_its_games_only(tmp_path: Path) -> None:
    log, _ = _ruled(tmp_path)
    (tmp_path / "other.jsonl").write_bytes(SAMPLES[1].read_bytes())
    result = runner.invoke(app, ["audit", str(tmp_path)])
    assert result.exit_code == 0, result.output
    verdicts = [line for line in result.stdout.splitlines() if not line.startswith("  ")]
    assert [v.split()[:2] for v in verdicts] == [["PASS", str(log)], ["PASS", str(tmp_path / "other.jsonl")]]
    assert "rulings.jsonl" not in "".join(verdicts)
    assert result.stderr == "2 logs audited: 2 pass, 0 fail\n"
    (summary,) = [line for line in result.stdout.splitlines() if line.startswith("  rulings")]
    assert "2 rulings, 2 apply; standings after rulings:" in summary


def test_help_names_the_new_options() -> None:
    result = runner.invoke(app, ["audit", "--help"])
    assert result.exit_code == 0
    assert "--parent" in result.stdout and "--rulings" in result.stdout


def test_the_parent_may_be_a_log_in_an_archive(tmp_path: Path) -> None:
    sample = SAMPLES[0]
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "game.jsonl").write_bytes(sample.read_bytes())
    archive = tmp_path / "a.bza"
    assert runner.invoke(app, ["archive", "pack", str(folder), "-o", str(archive)]).exit_code == 0
    branch = _branch(tmp_path, sample, 44)
    result = runner.invoke(app, ["audit", str(branch), "--parent", f"{archive}/game.jsonl"])
    assert result.exit_code == 0 and f"lines up to the fork are {archive}/game.jsonl's" in result.stdout
    result = runner.invoke(app, ["audit", str(branch), "--parent", f"{archive}/other.jsonl"])
    assert result.exit_code == 2 and "no log 'other.jsonl' in the archive" in result.stderr


def test_a_branch_is_never_proved_against_itself_or_a_sibling_of_its_fork(tmp_path: Path) -> None:
    """`--parent` must be the log the branch forks from: the branch itself (or a copy of it) and
    another branch of the same fork hold a branched line at that fork, and prove nothing; a
    branch of a branch, forked later, is proved against its parent branch as against a game."""
    sample = SAMPLES[0]
    branch = _branch(tmp_path, sample, 30)
    sibling = tmp_path / "sibling.jsonl"
    make_branch(sample, 30, sibling, by="bia", reason="another what-if", seed="8", bots=["random"], until="game")
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(branch.read_bytes())
    for parent in (branch, copy, sibling):
        result = _audit(branch, parent)
        report = result.report
        assert not report.ok and report.first is not None and report.first.kind == "branch"
        assert report.first.seq == 31 and "has a branched line at this fork too" in report.first.message
        cli = runner.invoke(app, ["audit", str(branch), "--parent", str(parent)])
        assert cli.exit_code == 1 and cli.stdout.startswith("FAIL ") and "PASS" not in cli.stdout
    assert _audit(branch, sample).report.ok
    deeper = tmp_path / "deeper.jsonl"
    make_branch(branch, 60, deeper, by="ana", reason="and then", seed="9", bots=["random"], until="game")
    assert _audit(deeper, branch).report.ok
    report = _audit(deeper, deeper).report
    assert not report.ok and report.first is not None and "at this fork too" in report.first.message
