"""The audit tells an edit of the file from a player's act (issue: trust).

A line changed without sealing again breaks the chain at the next line: the chain then proves
the change, so the verdict's headline is the edit, and a legality, deal or score finding on or
after the edited line says it follows from the edit. A change sealed again leaves no trace in
the chain: only a published head (`--expect-head`) shows it, and the findings say so. An
unsealed log cannot tell an edit from a play, and the verdict says that too.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from buraco_events.audit.auditor import audit_lines
from cli.main import app

DISPUTES = Path(__file__).resolve().parent.parent / "data" / "disputes"
CLEAN = (DISPUTES / "clean.jsonl").read_bytes().split(b"\n")[:-1]
runner = CliRunner()


def _seq_of(lines: list[bytes], tag: str) -> int:
    return next(i for i, line in enumerate(lines) if json.loads(line)["type"] == tag)


def _edit(lines: list[bytes], seq: int, key: str, value: object) -> list[bytes]:
    """Return the lines with one field of line `seq` changed, nothing sealed again."""
    obj = json.loads(lines[seq])
    if value is None:
        del obj[key]
    else:
        obj[key] = value
    return [*lines[:seq], json.dumps(obj, separators=(",", ":")).encode(), *lines[seq + 1:]]


def _reseal(lines: list[bytes]) -> list[bytes]:
    """Return the lines with every prev set again from the line before (an edit sealed anew)."""
    out: list[bytes] = []
    prev = "0" * 64
    for line in lines:
        obj = json.loads(line)
        obj["prev"] = prev
        out.append(json.dumps(obj, separators=(",", ":")).encode())
        prev = hashlib.sha256(out[-1]).hexdigest()
    return out


def _first_discard(lines: list[bytes]) -> tuple[int, str]:
    """Return the seq of the first discard and a card its player does not hold then (a joker
    is never dealt to the discarder here: clean.jsonl's first discarder holds none)."""
    seq = _seq_of(lines, "discarded")
    return seq, "JK"


def test_a_changed_discard_is_the_edit_not_the_players_illegal_move() -> None:
    # the first discard's card changed to one the player does not hold, the chain not redone
    seq, card = _first_discard(CLEAN)
    result = audit_lines(_edit(CLEAN, seq, "card", card), "edited.jsonl")
    rep = result.report
    assert not rep.ok
    assert rep.changed == seq
    assert rep.first is not None and rep.first.kind == "integrity" and rep.first.seq == seq + 1
    illegal = [p for p in rep.problems if p.kind == "illegal"]
    assert [p.seq for p in illegal] == [seq]
    assert "follows from the edit, not from play" in illegal[0].message
    assert result.finding is not None and "follows from the edit" in result.finding.problem.message


def test_the_same_change_in_the_text_verdict_headline_and_json(tmp_path: Path) -> None:
    seq, card = _first_discard(CLEAN)
    path = tmp_path / "edited.jsonl"
    path.write_bytes(b"\n".join(_edit(CLEAN, seq, "card", card)) + b"\n")
    text = runner.invoke(app, ["audit", str(path)], env={"COLUMNS": "300", "NO_COLOR": "1"})
    data = runner.invoke(app, ["audit", str(path), "--json"])
    assert text.exit_code == 1 and data.exit_code == 1
    verdict = text.stdout.splitlines()[0]
    assert verdict.startswith("FAIL ")
    assert f"first: the file was edited at seq {seq}" in verdict
    assert "first: illegal" not in verdict
    assert f"first finding, on the edited line: seq {seq} (illegal)" in text.stdout
    assert "what the edited file shows: JK is not in the hand" in text.stdout
    assert "rule broken" not in text.stdout
    obj = json.loads(data.stdout)
    assert obj["changed"] == seq
    assert obj["first"]["kind"] == "integrity" and obj["first"]["seq"] == seq + 1


def test_a_changed_score_claim_is_the_edit() -> None:
    seq = _seq_of(CLEAN, "hand_ended")
    claim = json.loads(CLEAN[seq])["scores"]
    rep = audit_lines(_edit(CLEAN, seq, "scores", [claim[0] + 100, claim[1]]), "x").report
    assert rep.changed == seq and rep.first is not None and rep.first.kind == "integrity"
    scores = [p for p in rep.problems if p.kind == "score"]
    assert scores and scores[0].seq == seq
    assert "follows from the edit" in scores[0].message


def test_a_removed_salt_is_the_edit_though_reported_at_the_deal() -> None:
    seq = _seq_of(CLEAN, "hand_ended")
    rep = audit_lines(_edit(CLEAN, seq, "salt", None), "x").report
    deal = [p for p in rep.problems if p.kind == "deal"]
    assert [p.seq for p in deal] == [_seq_of(CLEAN, "hand_started")]  # where the deal is
    assert rep.changed == seq  # the edit is the hand_ended line: the deal problem rests on it
    assert f"the line at seq {seq} is the one the chain shows was edited" in deal[0].message


def test_a_removed_salt_sealed_again_is_the_deals_problem() -> None:
    # sealed anew, the chain holds: nothing tells this file from one written so; the finding
    # stands as the deal's, and no edit is claimed
    seq = _seq_of(CLEAN, "hand_ended")
    rep = audit_lines(_reseal(_edit(CLEAN, seq, "salt", None)), "x").report
    assert rep.changed is None
    assert rep.first is not None and rep.first.kind == "deal"
    assert "edit" not in rep.first.message


def test_a_published_head_shows_an_edit_sealed_again() -> None:
    seq = _seq_of(CLEAN, "hand_ended")
    claim = json.loads(CLEAN[seq])["scores"]
    head = hashlib.sha256(CLEAN[-1]).hexdigest()
    edited = _reseal(_edit(CLEAN, seq, "scores", [claim[0] + 100, claim[1]]))
    rep = audit_lines(edited, "x", expect_head=head).report
    assert rep.changed is None
    assert rep.first is not None and rep.first.kind == "integrity"
    assert rep.first.message.startswith("head ")
    score = next(p for p in rep.problems if p.kind == "score")
    assert "not the published log" in score.message


def test_a_players_illegal_move_before_an_edit_stays_the_players() -> None:
    # an illegal discard sealed as played (a player's act, the chain intact), then a later line
    # changed without sealing: the headline is the edit; the earlier finding is not excused
    seq, card = _first_discard(CLEAN)
    played = _reseal(_edit(CLEAN, seq, "card", card))
    later = _seq_of(CLEAN, "hand_ended")
    rep = audit_lines(_edit(played, later, "at", "2026-03-14T20:00:00Z"), "x").report
    assert rep.changed == later
    illegal = next(p for p in rep.problems if p.kind == "illegal")
    assert illegal.seq == seq and "edit" not in illegal.message


def test_an_unsealed_log_says_edits_cannot_be_told_from_plays(tmp_path: Path) -> None:
    seq, card = _first_discard(CLEAN)
    unsealed = []
    for line in _edit(CLEAN, seq, "card", card):
        obj = json.loads(line)
        del obj["prev"]
        unsealed.append(json.dumps(obj, separators=(",", ":")))
    (tmp_path / "u.jsonl").write_text("\n".join(unsealed) + "\n")
    text = runner.invoke(app, ["audit", str(tmp_path / "u.jsonl")],
                         env={"COLUMNS": "300", "NO_COLOR": "1"})
    verdict = text.stdout.splitlines()[0]
    assert text.exit_code == 1
    assert f"first: illegal at seq {seq} (the log is unsealed: an edit cannot be told from a play)" \
        in verdict
    assert "nothing tells an edit of the file from a play" in text.stdout


def test_the_audit_page_leads_with_the_edit(tmp_path: Path) -> None:
    seq, card = _first_discard(CLEAN)
    log = tmp_path / "edited.jsonl"
    log.write_bytes(b"\n".join(_edit(CLEAN, seq, "card", card)) + b"\n")
    page = tmp_path / "report.html"
    result = runner.invoke(app, ["audit", str(log), "--html", str(page)])
    assert result.exit_code == 1
    html = page.read_text()
    assert f"first: the file was edited at seq {seq}" in html
    assert "id=headline>The file was edited" in html


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_any_changed_byte_is_named_as_an_edit_and_excuses_what_follows(data: st.DataObject) -> None:
    # one byte of one line (not the last: only a published head covers the last) changed, the
    # chain not redone: the headline is an edit at that line (or at the line before, when the
    # byte is in this line's own prev), and no legality, deal or score finding from there on
    # reads as a player's act
    index = data.draw(st.integers(1, len(CLEAN) - 2), label="line")  # line 0 garbled: not a log
    line = CLEAN[index]
    at = data.draw(st.integers(0, len(line) - 1), label="byte")
    byte = data.draw(st.integers(0x20, 0x7E).filter(lambda b: b != line[at]), label="new byte")
    lines = [*CLEAN[:index], line[:at] + bytes([byte]) + line[at + 1:], *CLEAN[index + 1:]]
    rep = audit_lines(lines, "x").report
    assert not rep.ok
    assert rep.changed in (index - 1, index)
    assert rep.first is not None and rep.first.kind == "integrity"
    for p in rep.problems:
        if p.kind in ("illegal", "score") and p.seq >= rep.changed:
            assert "edit" in p.message, p


#: a forged claim: points added to team 0 alone, team 1 alone, or both
FORGERIES = {"team 0": (100, 0), "team 1": (0, 100), "both": (100, -40)}


def _forged(claim: list[int], teams: tuple[int, int]) -> list[int]:
    return [claim[0] + teams[0], claim[1] + teams[1]]


def _words(teams: tuple[int, int]) -> str:
    return ", ".join(f"team {t} {d:+d}" for t, d in enumerate(teams) if d)


@pytest.mark.parametrize("who", sorted(FORGERIES))
def test_a_forged_hand_claim_of_either_team_is_a_score_problem(who: str) -> None:
    """Sealed anew, so only the recount shows it, whichever team's score was forged."""
    teams = FORGERIES[who]
    seq = _seq_of(CLEAN, "hand_ended")
    claim = json.loads(CLEAN[seq])["scores"]
    rep = audit_lines(_reseal(_edit(CLEAN, seq, "scores", _forged(claim, teams))), "x").report
    assert not rep.ok and rep.first is not None and rep.first.kind == "score" and rep.first.seq == seq
    assert rep.first.message.endswith(f"({_words(teams)})"), rep.first.message
    assert rep.hands[0].claimed == _forged(claim, teams) and rep.hands[0].scores == claim


@pytest.mark.parametrize("who", sorted(FORGERIES))
def test_forged_game_totals_of_either_team_are_a_score_problem(who: str) -> None:
    teams = FORGERIES[who]
    seq = len(CLEAN) - 1
    totals = json.loads(CLEAN[seq])["totals"]
    rep = audit_lines(_reseal(_edit(CLEAN, seq, "totals", _forged(totals, teams))), "x").report
    problems = [p for p in rep.problems if p.kind == "score"]
    assert not rep.ok and [p.seq for p in problems] == [seq]
    assert problems[0].message.startswith("game totals: claimed") and f"({_words(teams)})" in problems[0].message
