"""Tests of `buraco audit`: the disputed logs, the pure checks, the JSON shape and the CLI."""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from buraco_events.audit.auditor import audit_bytes, audit_lines
from buraco_events.audit.files import audit_path
from buraco_events.log.archive import pack
from buraco_events.log.commit import deal_commitment
from buraco_events.model.events import (
    ZERO_HASH,
    GameEnded,
    HandEnded,
    HandStarted,
    decode_event,
    encode_event,
    seal_lines,
)
from cli.main import app

ROOT = Path(__file__).resolve().parents[1]
DISPUTES = ROOT / "data" / "disputes"
EXPECTED: dict[str, dict] = json.loads((DISPUTES / "expected.json").read_text())
runner = CliRunner()


def lines_of(path: Path) -> list[bytes]:
    """Return a log file's lines without their newlines."""
    return path.read_bytes().split(b"\n")[:-1]


def events_of(path: Path) -> list:
    """Return a log file's events (every line decodes in the disputes)."""
    return [decode_event(line) for line in lines_of(path)]


def audit_file(name: str, expect_head: str | None = None):
    """Return the single audit of a dispute file."""
    (result,) = audit_path(DISPUTES / name, expect_head)
    return result


@pytest.fixture(scope="module")
def honest() -> list[bytes]:
    """The sealed lines of a legal 2-player game (conftest's random player)."""
    from helpers import random_game

    return seal_lines(random_game("stbl", 2, 5))


# -- the disputed logs ----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_dispute_verdicts(name: str) -> None:
    rep = audit_file(name).report
    want = EXPECTED[name]
    assert rep.ok is want["ok"]
    assert [p.kind for p in rep.problems] == want["kinds"]
    assert (rep.problems[0].seq if rep.problems else None) == want["first_seq"]


def test_make_disputes_regenerates_disputes_the_audit_agrees_with(tmp_path: Path) -> None:
    # the bots may change their play (so the seqs move), not the stories: compare verdicts
    sys.path.insert(0, str(DISPUTES))
    try:
        import make_disputes
    finally:
        sys.path.remove(str(DISPUTES))
    expected = make_disputes.build(tmp_path)
    assert sorted(expected) == sorted(EXPECTED)
    assert json.loads((tmp_path / "expected.json").read_text()) == expected
    for name, want in expected.items():
        assert want["kinds"] == EXPECTED[name]["kinds"], name
        (result,) = audit_path(tmp_path / name)
        rep = result.report
        assert rep.ok is want["ok"], name
        assert [p.kind for p in rep.problems] == want["kinds"], name
        assert (rep.problems[0].seq if rep.problems else None) == want["first_seq"], name


def test_wrong_score_is_found_at_the_lying_lines() -> None:
    events = events_of(DISPUTES / "wrong_score.jsonl")
    rep = audit_file("wrong_score.jsonl").report
    lied = next(e for e in events if isinstance(e, HandEnded) and e.hand == 1)
    end = next(e for e in events if isinstance(e, GameEnded))
    assert [p.seq for p in rep.problems][:2] == [lied.seq, end.seq]
    hand1 = rep.hands[1]
    # the claim is 100 above the recount for team 0 only, and the recount is its RULES 7 items
    assert [c - s for c, s in zip(hand1.claimed, hand1.scores, strict=True)] == [100, 0]
    for line in hand1.detail:
        items = (line.meld_points, line.canasta_bonus, line.close_bonus, line.hand_penalty,
                 line.dead_penalty)
        assert sum(items) == line.total
    # the honest hands agree with their claims
    assert all(h.claimed == h.scores for h in rep.hands if h.hand != 1)
    assert list(end.totals) == [sum(h.scores[t] for h in rep.hands) + (100 if t == 0 else 0)
                                for t in (0, 1)]


def test_changed_card_breaks_the_chain_at_the_next_line() -> None:
    lines = lines_of(DISPUTES / "changed_card.jsonl")
    illegal, chain = audit_file("changed_card.jsonl").report.problems
    k = illegal.seq
    assert "not in the hand" in illegal.message
    assert chain.seq == k + 1
    assert decode_event(lines[k + 1]).prev != hashlib.sha256(lines[k]).hexdigest()
    assert decode_event(lines[k]).prev == hashlib.sha256(lines[k - 1]).hexdigest()


def test_dropped_line_is_one_gap_and_one_broken_link() -> None:
    lines = lines_of(DISPUTES / "dropped_line.jsonl")
    problems = audit_file("dropped_line.jsonl").report.problems
    k = problems[0].seq
    assert decode_event(lines[k - 1]).seq == k  # the line at index k-1 claims seq k: one missing
    assert f"seq {k - 1} missing" in problems[0].message
    assert "prev" in problems[1].message
    assert "expected a draw" in problems[2].message


def test_illegal_close_and_closed_pile_name_the_rule() -> None:
    close = audit_file("illegal_close.jsonl").report
    assert close.problems[0].message == "cannot close: the team has no clean canasta"
    # the replay stopped there: the hand is unfinished, its claim still shown
    assert close.hands[-1].reason is None and close.hands[-1].claimed is not None
    pile = audit_file("closed_pile_top_unused.jsonl")
    seq = pile.report.problems[0].seq
    assert events_of(DISPUTES / "closed_pile_top_unused.jsonl")[seq - 1].__struct_config__.tag == "took_pile"
    assert pile.report.problems[0].message.startswith("closed pile: the top card")
    assert pile.finding is not None and pile.finding.state.pending_top is not None


def _commitment(salt: str, deal: HandStarted) -> str:
    """The log format spelled out again, independently of the audit's helper."""
    order = [*sum(deal.hands, ()), *deal.deads[0], *deal.deads[1], *deal.stock, *deal.discard]
    return hashlib.sha256((salt + "|" + ",".join(order)).encode("utf-8")).hexdigest()


def test_commitments_follow_events_md() -> None:
    for name, ok in (("clean.jsonl", True), ("bad_commitment.jsonl", False)):
        events = events_of(DISPUTES / name)
        deal = events[1]
        salt = next(e.salt for e in events if isinstance(e, HandEnded))
        assert isinstance(deal, HandStarted) and salt
        assert (_commitment(salt, deal) == deal.commitment) is ok
        assert deal_commitment(salt, deal) == _commitment(salt, deal)


def test_bad_deal_names_the_extra_and_missing_cards() -> None:
    deal, commitment = audit_file("bad_deal.jsonl").report.problems
    assert "extra AS" in deal.message and "missing" in deal.message
    assert "commitment" in commitment.message


# -- pure checks on lines in memory ---------------------------------------------------------


def test_honest_game_passes_with_its_recount(honest: list[bytes]) -> None:
    rep = audit_lines(honest, "g").report
    assert rep.ok and rep.sealed and rep.problems == []
    assert rep.events == len(honest)
    assert rep.head == hashlib.sha256(honest[-1]).hexdigest()
    claimed = [decode_event(line).scores for line in honest if b'"hand_ended"' in line]
    assert [tuple(h.claimed) for h in rep.hands] == claimed
    assert [h.claimed for h in rep.hands] == [h.scores for h in rep.hands]


def test_format_problem_names_the_field_and_stops_the_replay(honest: list[bytes]) -> None:
    lines = list(honest)
    k = next(i for i, line in enumerate(lines) if b'"drew"' in line and i > 10)
    ev = decode_event(lines[k])
    lines[k] = lines[k].replace(f'"card":"{ev.card}"'.encode(), b'"card":"XX"')
    rep = audit_lines(lines).report
    fmt = [p for p in rep.problems if p.kind == "format"]
    assert len(fmt) == 1 and fmt[0].seq == k and "card" in fmt[0].message
    # the next line links to the honest line k, not to the broken one
    assert [p.seq for p in rep.problems if p.kind == "integrity"] == [k + 1]
    assert rep.hands[-1].reason is None  # the replay stopped at the bad line


def test_one_problem_per_seq_gap_not_per_later_line(honest: list[bytes]) -> None:
    events = [decode_event(x) for x in honest]
    gapped = [e for i, e in enumerate(events) if i != 20]
    lines = [encode_event(msgspec.structs.replace(e, prev=None)) for e in gapped]
    kinds = [(p.kind, p.seq) for p in audit_lines(lines).report.problems if p.kind == "integrity"]
    assert kinds == [("integrity", 21)]


def test_missing_prev_in_a_sealed_log(honest: list[bytes]) -> None:
    lines = list(honest)
    lines[7] = encode_event(msgspec.structs.replace(decode_event(lines[7]), prev=None))
    rep = audit_lines(lines).report
    assert rep.sealed
    # line 7 lost its link; line 8 still links to the original line 7, which is gone
    assert [(p.seq, p.kind) for p in rep.problems] == [(7, "integrity"), (8, "integrity")]


def test_any_changed_byte_is_caught_with_the_head(honest: list[bytes]) -> None:
    head = hashlib.sha256(honest[-1]).hexdigest()
    rng = random.Random(6)
    data = b"".join(x + b"\n" for x in honest)
    for _ in range(40):
        i = rng.randrange(len(data) - 1)
        flipped = bytes([data[i] ^ rng.choice((1, 2, 4, 32))])
        changed = data[:i] + flipped + data[i + 1:]
        assert not audit_bytes(changed, "g", head).report.ok, (i, data[i:i + 1], flipped)


def test_expect_head_mismatch_and_match(honest: list[bytes]) -> None:
    head = hashlib.sha256(honest[-1]).hexdigest()
    assert audit_lines(honest, expect_head=head).report.ok
    rep = audit_lines(honest[:-1], expect_head=head).report  # the last line dropped
    # the head no longer matches, and without its game_ended the log is unfinished: both said
    assert [(p.kind, p.seq) for p in rep.problems] == [
        ("integrity", len(honest) - 2), ("unfinished", len(honest) - 2)]


def test_torn_tail_and_empty_log() -> None:
    empty = audit_bytes(b"", "e")
    rep = empty.report
    assert not rep.ok and rep.head is None and rep.events == 0 and not rep.complete
    assert [(p.seq, p.kind) for p in rep.problems] == [(0, "format")]
    assert empty.not_a_log == "e: empty file: not a log (a log holds at least its game_started line)"
    first = encode_event(decode_event(
        b'{"type":"game_started","seq":0,"prev":"' + ZERO_HASH.encode()
        + b'","game_id":"t","variant":"stbl","players":["a","b"]}'))
    torn = audit_bytes(first, "t")  # no final newline: a torn log, not "not a log"
    assert torn.report.events == 1 and torn.not_a_log is None
    assert [p.kind for p in torn.report.problems] == ["format", "unfinished"]
    assert "torn" in torn.report.problems[0].message
    # only game_started: well formed, but unfinished (a log cut short never passes), unless partial
    assert [p.kind for p in audit_bytes(first + b"\n", "t").report.problems] == ["unfinished"]
    partial = audit_bytes(first + b"\n", "t", partial=True).report
    assert partial.ok and not partial.complete and partial.problems == []


# -- the command ----------------------------------------------------------------------------


def invoke(*args: str):
    result = runner.invoke(app, ["audit", *args])
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), \
        result.exception
    assert "Traceback" not in result.output
    return result


@pytest.mark.slow
def test_exit_codes(tmp_path: Path) -> None:
    assert invoke(str(DISPUTES / "clean.jsonl")).exit_code == 0
    assert invoke(str(DISPUTES / "unsealed.jsonl")).exit_code == 0
    assert invoke(str(DISPUTES / "wrong_score.jsonl")).exit_code == 1
    assert invoke(str(DISPUTES)).exit_code == 1
    assert invoke(str(tmp_path / "missing.jsonl")).exit_code == 2
    assert invoke(str(tmp_path)).exit_code == 2  # a folder with no log
    assert invoke(str(DISPUTES / "clean.jsonl"), "--expect-head", "abc").exit_code == 2
    assert invoke(str(DISPUTES / "clean.jsonl"), "--as", "9").exit_code == 2
    assert invoke().exit_code == 2
    # an unreadable path among good ones still exits 2, after auditing the others
    result = invoke(str(DISPUTES / "clean.jsonl"), str(tmp_path / "nope"), "--json")
    assert result.exit_code == 2 and json.loads(result.stdout)["ok"] is True
    assert "nope" in result.stderr and result.stderr.count("\n") == 1


def _check_shape(obj: dict) -> None:
    assert list(obj) == ["path", "game_id", "ok", "first", "changed", "complete", "sealed", "head",
                         "events", "hands", "problems", "problems_total"]
    assert (obj["first"] is None) == obj["ok"] or not obj["ok"] and obj["first"] is not None
    assert obj["changed"] is None or isinstance(obj["changed"], int)
    assert isinstance(obj["path"], str) and isinstance(obj["ok"], bool)
    assert isinstance(obj["complete"], bool) and isinstance(obj["problems_total"], int)
    assert len(obj["problems"]) <= obj["problems_total"]
    assert obj["game_id"] is None or isinstance(obj["game_id"], str)
    assert isinstance(obj["sealed"], bool) and isinstance(obj["events"], int)
    assert obj["head"] is None or (isinstance(obj["head"], str) and len(obj["head"]) == 64)
    for hand in obj["hands"]:
        assert list(hand) == ["hand", "reason", "closed_by", "scores", "claimed", "detail"]
        assert isinstance(hand["hand"], int)
        assert hand["reason"] in (None, "closed", "stock_exhausted", "stalemate")
        assert hand["closed_by"] is None or isinstance(hand["closed_by"], int)
        assert len(hand["scores"]) == 2 and all(isinstance(s, int) for s in hand["scores"])
        assert hand["claimed"] is None or all(isinstance(s, int) for s in hand["claimed"])
        for line in hand["detail"]:
            assert list(line) == ["team", "meld_points", "canasta_bonus", "close_bonus",
                                  "hand_penalty", "dead_penalty", "total"]
            assert all(isinstance(v, int) for v in line.values())
    for p in obj["problems"]:
        assert list(p) == ["seq", "kind", "message"]
        assert isinstance(p["seq"], int) and isinstance(p["message"], str)
        assert p["kind"] in ("format", "integrity", "deal", "illegal", "score", "unfinished",
                             "unsealed")
    assert [p["seq"] for p in obj["problems"]] == sorted(p["seq"] for p in obj["problems"])


def test_json_one_file_one_object() -> None:
    result = invoke(str(DISPUTES / "wrong_score.jsonl"), "--json")
    obj = json.loads(result.stdout)
    _check_shape(obj)
    assert obj["ok"] is False and obj["game_id"] == "club-fechado-2p-001"


def test_json_several_logs_one_line_each() -> None:
    result = invoke(str(DISPUTES), str(DISPUTES / "clean.jsonl"), "--json")
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == len(EXPECTED) + 1
    for row in rows:
        _check_shape(row)
        assert row["ok"] is EXPECTED[Path(row["path"]).name]["ok"]


def test_json_from_an_archive(tmp_path: Path) -> None:
    archive = tmp_path / "disputes.bza"
    pack(DISPUTES, archive)
    rows = [json.loads(line) for line in invoke(str(archive), "--json").stdout.splitlines()]
    assert {Path(r["path"]).name: [p["kind"] for p in r["problems"]] for r in rows} == {
        name: want["kinds"] for name, want in EXPECTED.items()}


def test_expect_head_on_the_command_line() -> None:
    path = DISPUTES / "clean.jsonl"
    head = hashlib.sha256(lines_of(path)[-1]).hexdigest()
    assert invoke(str(path), "--expect-head", head.upper()).exit_code == 0
    other = hashlib.sha256(b"another").hexdigest()
    result = invoke(str(path), "--expect-head", other, "--json")
    assert result.exit_code == 1
    (problem,) = json.loads(result.stdout)["problems"]
    assert problem["kind"] == "integrity" and other in problem["message"]


def test_unsealed_log_passes_but_says_so() -> None:
    result = invoke(str(DISPUTES / "unsealed.jsonl"), "--json")
    obj = json.loads(result.stdout)
    assert result.exit_code == 0 and obj["ok"] is True and obj["sealed"] is False
    assert [(p["seq"], p["kind"]) for p in obj["problems"]] == [(0, "unsealed")]
    assert "UNSEALED" in invoke(str(DISPUTES / "unsealed.jsonl")).stdout.splitlines()[0]


@pytest.mark.parametrize("data", [
    b"", b"\n", b"\n\n\n", b"\x00\xff\xfe garbage \x80", b"x" * 2_000_000 + b"\n",
    b"[" * 100_000 + b"\n", b"[1, 2]\n", b"\xef\xbb\xbf{}\n", b'{"type":[],"seq":0}\n',
], ids=lambda d: repr(d[:20]))
def test_input_that_is_not_a_log_exits_2_with_one_line(tmp_path: Path, data: bytes) -> None:
    # empty, or a first line that is not an event, is input that cannot be read as a log:
    # exit 2, one line naming the file, no report
    path = tmp_path / "bad.jsonl"
    path.write_bytes(data)
    for extra in ((), ("--json",)):
        result = invoke(str(path), *extra)
        assert (result.exit_code, result.stdout) == (2, "")
        assert result.stderr.startswith(f"error: {path}") and "not a log" in result.stderr
        assert result.stderr.count("\n") == 1
    assert not audit_bytes(data, str(path)).report.ok


@pytest.mark.parametrize("data", [
    b'{"type": "nope", "seq": 0}\n',
    b'{"type":"melded","seq":0,"player":0,"meld":0,"cards":[[1]]}\n',
    b'{"type":"drew","seq":99999999999999999999999,"player":0,"card":"AS"}\n',
    b'{"type":"game_started","seq":0,"game_id":"g","variant":"nope","players":["a","b"]}\n'
    b'{"type":"hand_started","seq":1}\n{"type":"drew"',
    b'{"type":"game_started","seq":0,"game_id":"g","variant":"stbl","players":["a","b"]}\n'
    + b"[" * 100_000 + b'\n{"type":[],"seq":2}\n\x00\xff\n',
], ids=lambda d: repr(d[:20]))
def test_malformed_input_is_reported_never_a_traceback(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(data)
    for extra in ((), ("--json",)):
        result = invoke(str(path), *extra)
        assert result.exit_code == 1
    assert json.loads(invoke(str(path), "--json").stdout)["ok"] is False


def test_referee_report_of_an_illegal_event() -> None:
    path = DISPUTES / "closed_pile_top_unused.jsonl"
    result = invoke(str(path))
    out = result.stdout
    assert result.exit_code == 1
    assert out.splitlines()[0].startswith(f"FAIL {path}")
    seq = EXPECTED[path.name]["first_seq"]
    player = events_of(path)[seq].player
    assert f"first bad event: seq {seq} (illegal)" in out and f"seen by seat {player}" in out
    assert "closed pile: the top card" in out
    assert f"reproduce: buraco replay {path} --at {seq - 1} --as {player}" in out
    for item in ("cards in melds", "canastas", "closing", "cards left in hand", "dead penalty",
                 "total (recount)", "claimed"):
        assert item in out
    other = 1 - player
    assert f"seen by seat {other}" in invoke(str(path), "--as", str(other)).stdout


def test_referee_report_of_a_score_dispute() -> None:
    path = DISPUTES / "wrong_score.jsonl"
    out = invoke(str(path)).stdout
    assert "hand 2: claimed [" in out and "+100" in out
    assert out.count("claimed - recount") == 3  # one score sheet per hand


def test_passing_logs_in_a_folder_get_one_line_each(tmp_path: Path) -> None:
    for name in ("clean.jsonl", "unsealed.jsonl"):
        (tmp_path / "sub").mkdir(exist_ok=True)
        (tmp_path / "sub" / name).write_bytes((DISPUTES / name).read_bytes())
    result = invoke(str(tmp_path))
    assert result.exit_code == 0
    assert [line.split()[0] for line in result.stdout.splitlines()] == ["PASS", "PASS"]


SAMPLE_LOGS = sorted((Path(__file__).resolve().parent.parent / "data" / "samples").glob("*.jsonl"))


@pytest.mark.slow
@settings(max_examples=120)
@given(
    log=st.sampled_from(SAMPLE_LOGS), where=st.floats(0, 1, exclude_max=True),
    value=st.integers(0, 255),
)
def test_any_changed_byte_of_a_sample_log_fails_its_audit(log: Path, where: float, value: int) -> None:
    # a referee who knows the published head detects any change to any byte of a sealed log;
    # without the head, every line but the last is still covered by the next line's prev
    data = log.read_bytes()
    head = hashlib.sha256(data.rstrip(b"\n").rsplit(b"\n", 1)[-1]).hexdigest()
    position = int(where * len(data))
    if data[position] == value:
        return
    tampered = bytearray(data)
    tampered[position] = value
    assert not audit_bytes(bytes(tampered), str(log), expect_head=head).report.ok
    last_line_start = data.rstrip(b"\n").rfind(b"\n") + 1
    if position < last_line_start:
        assert not audit_bytes(bytes(tampered), str(log)).report.ok


# -- trust at the edges: cut logs, removed salts, floods of blank lines ------------------------


def _resealed(events: list, path: Path) -> Path:
    path.write_bytes(b"".join(line + b"\n" for line in seal_lines(events)))
    return path


def test_log_text_never_moves_the_screen_nor_makes_a_fail_read_as_pass(tmp_path: Path) -> None:
    # the repaint: a game id that returns to the start of the line, clears it and writes a pass
    events = events_of(DISPUTES / "wrong_score.jsonl")
    evil = "\r\x1b[2KPASS wrong_score.jsonl (all good)\x1b[8m\u202e"
    events[0] = msgspec.structs.replace(events[0], game_id=evil,
                                        players=("Dani [/]", "[bold]Bo[/bold] \x1b[31m"))
    path = _resealed(events, tmp_path / "evil\x1b[2J.jsonl")
    result = invoke(str(path))
    assert result.exit_code == 1
    out = result.stdout
    assert not any(c in out for c in "\r\x1b\u202e"), repr(out[:300])
    first = out.splitlines()[0]
    assert first.startswith("FAIL ") and "\\x1b[2J.jsonl" in first
    assert "(game \\x0d\\x1b[2KPASS wrong_score.jsonl (all good)\\x1b[8m\\u202e, 749 events" in first
    assert [line for line in out.splitlines() if line.startswith("PASS")] == []
    assert "Dani [/]" in out and "[bold]Bo[/bold] \\x1b[31m" in out  # markup shown, not eaten
    as_json = json.loads(invoke(str(path), "--json").stdout)
    assert as_json["game_id"] == evil  # JSON stays exact


def test_a_forged_seat_does_not_crash_the_report(tmp_path: Path) -> None:
    # a `drew` by seat 3 in a 2-player log made the referee's renderer raise IndexError
    events = events_of(DISPUTES / "illegal_close.jsonl")
    k = next(i for i, e in enumerate(events) if e.__struct_config__.tag == "drew")
    events[k] = msgspec.structs.replace(events[k], player=3)
    path = _resealed(events, tmp_path / "seat3.jsonl")
    result = invoke(str(path))
    assert result.exit_code == 1 and "no seat 3 in a 2-player game" in result.stdout
    assert f"first bad event: seq {k} (illegal)" in result.stdout


def test_as_a_seat_the_game_does_not_have_is_an_error(tmp_path: Path) -> None:
    result = invoke(str(DISPUTES / "illegal_close.jsonl"), "--as", "3")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith("error: ") and "--as 3: no seat 3 in this 2-player game" in result.stderr
    assert invoke(str(DISPUTES / "clean.jsonl"), "--as", "3").exit_code == 0  # a 4-player game


def test_an_unfinished_log_never_passes_unless_partial(tmp_path: Path) -> None:
    # a game cut short before its lying claim is unfinished, never a PASS with "ok": true
    lines = lines_of(DISPUTES / "wrong_score.jsonl")
    k = EXPECTED["wrong_score.jsonl"]["first_seq"]
    path = tmp_path / "cut.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines[:k]))
    result = invoke(str(path), "--json")
    report = json.loads(result.stdout)
    assert result.exit_code == 1 and report["ok"] is False and report["complete"] is False
    assert [(p["kind"], p["seq"]) for p in report["problems"]] == [("unfinished", k - 1)]
    text = invoke(str(path)).stdout.splitlines()[0]
    assert text.startswith("FAIL ") and "unfinished" in text
    partial = invoke(str(path), "--partial", "--json")
    report = json.loads(partial.stdout)
    assert partial.exit_code == 0 and report["ok"] is True and report["complete"] is False
    line = invoke(str(path), "--partial").stdout.splitlines()[0]
    assert line.startswith("PASS (partial, 1 hand so far) ") and "unfinished" in line
    whole = invoke(str(DISPUTES / "clean.jsonl"), "--partial").stdout.splitlines()[0]
    assert whole.startswith("PASS ") and not whole.startswith("PASS (") and "complete" in whole


def test_nothing_may_follow_game_ended(tmp_path: Path) -> None:
    from buraco_events.model.events import Note

    events = events_of(DISPUTES / "clean.jsonl")
    n = len(events)
    extended = [*events, Note(seq=n, by="referee", text="good game"),
                Note(seq=n + 1, by="referee", text="really")]
    report = json.loads(invoke(str(_resealed(extended, tmp_path / "x.jsonl")), "--json").stdout)
    assert [(p["kind"], p["seq"]) for p in report["problems"]] == [("integrity", n), ("integrity", n + 1)]
    assert "nothing may follow game_ended" in report["problems"][0]["message"]
    # not complete (the log format: the last line is not game_ended), yet not unfinished either
    assert report["complete"] is False and report["ok"] is False


def test_a_commitment_never_revealed_is_a_deal_problem(tmp_path: Path) -> None:
    # the deal swapped after its commitment and the salt removed: the missing salt is a problem
    events = events_of(DISPUTES / "bad_commitment.jsonl")
    events = [msgspec.structs.replace(e, salt=None) if isinstance(e, HandEnded) else e for e in events]
    report = audit_file_at(_resealed(events, tmp_path / "nosalt.jsonl"))
    assert [(p.kind, p.seq) for p in report.problems] == [("deal", 1)]
    assert "commitment is never revealed" in report.problems[0].message
    # a hand that never ends before the next deal, or the end, reveals nothing either
    honest = events_of(DISPUTES / "clean.jsonl")
    cut = [e for e in honest if not isinstance(e, HandEnded)]
    lines = [encode_event(msgspec.structs.replace(e, prev=None)) for e in cut]
    kinds = [(p.kind, p.seq) for p in audit_lines(lines).report.problems if p.kind == "deal"]
    assert kinds == [("deal", 1)]


def audit_file_at(path: Path):
    (result,) = audit_path(path)
    return result.report


def test_sealed_on_some_lines_only_is_an_integrity_problem(honest: list[bytes]) -> None:
    lines = list(honest)
    lines[0] = encode_event(msgspec.structs.replace(decode_event(lines[0]), prev=None))
    rep = audit_lines(lines).report
    assert rep.sealed and [(p.seq, p.kind) for p in rep.problems] == [(0, "integrity"), (1, "integrity")]
    assert "sealed on every line or on none" in rep.problems[0].message


def test_a_million_problems_are_counted_not_listed(tmp_path: Path) -> None:
    # a flood of blank lines: the report lists the first problems and counts the rest, so time
    # and memory stay small however many lines are bad
    first = lines_of(DISPUTES / "clean.jsonl")[0]
    path = tmp_path / "blank.jsonl"
    path.write_bytes(first + b"\n" + b"\n" * 20_000)
    result = invoke(str(path))
    rows = [line for line in result.stdout.splitlines() if "│ format │" in line]
    assert result.exit_code == 1 and len(rows) == 50
    assert "… and 19,951 more problems (format 20,000, unfinished 1 in all;" in result.stdout
    report = json.loads(invoke(str(path), "--json").stdout)
    assert report["problems_total"] == 20_001 and len(report["problems"]) == 101
    assert [p["kind"] for p in report["problems"]][-2:] == ["format", "unfinished"]
    assert [p["seq"] for p in report["problems"][:100]] == list(range(1, 101))


def test_an_audit_leaves_no_cycle_to_collect() -> None:
    # workers pause the collector over a chunk of logs (`pool.collector_paused`): an audit that
    # left a cycle behind (its reader and the reader's error callback) would keep each log's
    # lines alive until the next collection, bytes the collector does not count
    import gc

    lines = (DISPUTES / "clean.jsonl").read_bytes().split(b"\n")[:-1]
    gc.collect()
    gc.disable()
    try:
        audit_lines(lines, "clean.jsonl")
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_as_takes_a_player_name_as_replay_and_share_do() -> None:
    path = str(DISPUTES / "illegal_close.jsonl")  # players ana and bruno
    by_name, by_index = invoke(path, "--as", "bruno"), invoke(path, "--as", "1")
    assert by_name.exit_code == by_index.exit_code == 1
    assert "seen by seat 1" in by_name.stdout and by_name.stdout == by_index.stdout
    unknown = invoke(path, "--as", "carla")
    assert (unknown.exit_code, unknown.stdout) == (2, "")
    assert "--as carla: no such player in this 2-player game (seats 0..1: ana, bruno)" in unknown.stderr
