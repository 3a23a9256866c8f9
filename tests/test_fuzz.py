"""Fuzzing every log reader: any bytes, and any damage to a real log, get a documented answer from
`log check`, `log head`, `replay --json` and `audit --json`: exit 0, 1 (a problem in a log that was
read) or 2 (not a log), one line on stderr when it fails, never a traceback or another exception,
in bounded time. The same holds for a branch (any damage to it, or to its parent, audited with
`--parent`) and for a rulings log (any bytes or damage, read by `read_rulings`, judged by
`rulings_report`, shown by `audit` beside its game). `compare`, `rule` and `branch` answer any
damage to a game, a branch or its parent (JSON nested past any stack included) the same way, and
an edited line of a sealed game log or rulings log never counts."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from buraco_events.audit.files import audit_path
from buraco_events.audit.rulings import (
    RulingError,
    RulingRequest,
    append_ruling,
    judge,
    new_ruling,
    read_facts,
    read_rulings,
    rulings_path,
    rulings_report,
)
from buraco_events.play.branch import make_branch
from cli.main import app

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "data" / "samples").glob("*-2p-*.jsonl"))
runner = CliRunner(env={"COLUMNS": "120", "NO_COLOR": "1"})
#: the commands that read one log, and the stdout each prints when it succeeds
READERS = (("log", "check"), ("log", "head"), ("replay", "--json"), ("audit", "--json"))
#: seconds any reader may take on a small input, even on a loaded machine
BOUND = 20.0


def _read_everywhere(path: Path) -> dict[tuple[str, ...], int]:
    """Run every reader on `path`; check each answers as documented; return their exit codes."""
    codes = {}
    for command in READERS:
        args = [command[0], str(path), *command[1:]] if command[0] != "log" else [*command, str(path)]
        start = time.monotonic()
        result = runner.invoke(app, args)
        assert time.monotonic() - start < BOUND, command
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            command, repr(result.exception))
        assert "Traceback" not in result.output, command
        assert result.exit_code in (0, 1, 2), command
        if command[0] == "audit" and result.exit_code < 2:
            # a log that was read gets its report, on stdout: the verdict is in it
            assert json.loads(result.stdout)["ok"] is (result.exit_code == 0) and not result.stderr
        elif result.exit_code:
            lines = result.stderr.splitlines()
            assert len(lines) == 1 and lines[0].startswith("error: "), (command, result.stderr)
        if command[-1] == "--json" and result.stdout:
            json.loads(result.stdout)  # whatever the input, the JSON is whole
        codes[command] = result.exit_code
    # the same words for the same thing: a file that is not a log is exit 2 for every reader
    if any(code == 2 for code in codes.values()):
        assert set(codes.values()) == {2}, codes
    return codes


@pytest.mark.slow
@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300) | st.lists(
    st.sampled_from([b"\n", b"[", b"{", b"}", b'"type":', b'"seq":0', b'"game_started"', b"\x00",
                     b"\xff", b"\xef\xbb\xbf", b" ", b"\r", b"\x1b[2J", b'"prev":"', b"0" * 64,
                     b'"branched"', b'"fork_seq":', b'"parent":"', b'"ruling"', b'"game_head":']),
    max_size=60).map(b"".join))
def test_any_bytes_get_a_documented_answer(tmp_path_factory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "any.jsonl"
    path.write_bytes(data)
    _read_everywhere(path)


def _mutate(data: bytes, how: str, where: float, size: int, junk: bytes) -> bytes:
    """Return a sample log damaged one way: a byte changed, a range cut or doubled, junk put in,
    the file cut short, or a line moved."""
    i = int(where * len(data))
    if how == "flip":
        return data[:i] + bytes([data[i] ^ (size % 255 + 1)]) + data[i + 1:]
    if how == "cut":
        return data[:i] + data[i + size:]
    if how == "double":
        return data[:i] + data[i:i + size] + data[i:]
    if how == "insert":
        return data[:i] + junk + data[i:]
    if how == "truncate":
        return data[:i]
    lines = data.splitlines(keepends=True)
    j = int(where * len(lines))
    return b"".join(lines[:j] + lines[j + 1:] + lines[j:j + 1])  # one line moved to the end


@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    sample=st.sampled_from(SAMPLES),
    how=st.sampled_from(["flip", "cut", "double", "insert", "truncate", "move"]),
    where=st.floats(0, 1, exclude_max=True), size=st.integers(1, 400),
    junk=st.binary(min_size=1, max_size=40),
)
@pytest.mark.slow
def test_any_damage_to_a_real_log_gets_a_documented_answer(
    tmp_path_factory, sample: Path, how: str, where: float, size: int, junk: bytes
) -> None:
    data = sample.read_bytes()
    damaged = _mutate(data, how, where, size, junk)
    path = tmp_path_factory.mktemp("fuzz") / "damaged.jsonl"
    path.write_bytes(damaged)
    codes = _read_everywhere(path)
    if damaged != data:
        # a sample is a complete sealed game: no damage passes the audit (a cut at the very end
        # leaves a shorter log that is unfinished; the head catches what the chain cannot)
        assert codes[("audit", "--json")] != 0


@pytest.mark.parametrize("sample", SAMPLES[:2], ids=[s.stem for s in SAMPLES[:2]])
def test_an_undamaged_sample_passes_every_reader(sample: Path) -> None:
    assert set(_read_everywhere(sample).values()) == {0}


# -- branches and rulings ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def branched(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A sample and a branch of it at seq 30, finished by bots."""
    folder = tmp_path_factory.mktemp("branch")
    out = folder / "branch.jsonl"
    make_branch(SAMPLES[0], 30, out, by="fuzz", reason="what if", seed="3", bots=["random"], until="game")
    return SAMPLES[0], out


@pytest.fixture(scope="module")
def ruled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """A copy of a sample with a rulings log of every kind but replay_from; return the game log
    and the rulings log's bytes."""
    log = tmp_path_factory.mktemp("ruled") / "game.jsonl"
    log.write_bytes(SAMPLES[0].read_bytes())
    for request in (RulingRequest("score_adjusted", "ref", "miscount", hand=0, points=[50, -50]),
                    RulingRequest("hand_voided", "ref", "marked cards", hand=0),
                    RulingRequest("warning", "ref", "slow play"),
                    RulingRequest("withdrawn", "ref", "on appeal", ruling_seq=1),
                    RulingRequest("game_awarded", "ref", "forfeit", team=0)):
        ruling, path = new_ruling(log, request)
        append_ruling(path, ruling)
    return log, rulings_path(log).read_bytes()


def _audit_answers(args: list[str]) -> int:
    """Run `buraco audit ARGS`; check it answers as documented; return its exit code."""
    start = time.monotonic()
    result = runner.invoke(app, ["audit", *args])
    assert time.monotonic() - start < BOUND, args
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 1, 2)
    errors = result.stderr.splitlines()
    assert all(line.startswith("error: ") for line in errors), result.stderr
    if result.exit_code == 2:
        assert len(errors) == 1, result.stderr
    if "--json" in args and result.stdout:
        json.loads(result.stdout)
    return result.exit_code


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    which=st.sampled_from(["branch", "parent"]),
    how=st.sampled_from(["flip", "cut", "double", "insert", "truncate", "move"]),
    where=st.floats(0, 1, exclude_max=True), size=st.integers(1, 400),
    junk=st.binary(min_size=1, max_size=40), as_json=st.booleans(),
)
@pytest.mark.slow
def test_any_damage_to_a_branch_or_its_parent_gets_a_documented_answer(
    tmp_path_factory, branched: tuple[Path, Path], which: str, how: str, where: float, size: int,
    junk: bytes, as_json: bool,
) -> None:
    parent, branch = branched
    folder = tmp_path_factory.mktemp("fuzz")
    damaged = folder / "damaged.jsonl"
    source = branch if which == "branch" else parent
    data = _mutate(source.read_bytes(), how, where, size, junk)
    damaged.write_bytes(data)
    log, against = (damaged, parent) if which == "branch" else (branch, damaged)
    code = _audit_answers([str(log), "--parent", str(against), *(["--json"] if as_json else [])])
    if which == "branch":
        assert (code == 0) is (data == branch.read_bytes())  # no damage to a sealed branch passes
    else:
        # the branch (forked at seq 30) proves against a damaged parent exactly when the parent's
        # lines 0..30 are untouched
        prefix = b"".join(line + b"\n" for line in parent.read_bytes().split(b"\n")[:31])
        assert (code == 0) is data.startswith(prefix)


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300) | st.lists(
    st.sampled_from([b"\n", b"{", b"}", b'"type":"ruling",', b'"seq":0,', b'"seq":1,', b'"kind":"warning",',
                     b'"kind":"withdrawn","ruling_seq":0,', b'"game_id":"x",', b'"game_seq":0,',
                     b'"game_head":"' + b"0" * 64 + b'",', b'"by":"r","reason":"\x1b[2J"', b"\xff", b" "]),
    max_size=40).map(b"".join))
def test_any_bytes_as_a_rulings_log_get_a_documented_answer(
    tmp_path_factory, ruled: tuple[Path, bytes], data: bytes
) -> None:
    _rulings_answer(tmp_path_factory, ruled[0], data)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    how=st.sampled_from(["flip", "cut", "double", "insert", "truncate", "move"]),
    where=st.floats(0, 1, exclude_max=True), size=st.integers(1, 400),
    junk=st.binary(min_size=1, max_size=40),
)
@pytest.mark.slow
def test_any_damage_to_a_rulings_log_gets_a_documented_answer(
    tmp_path_factory, ruled: tuple[Path, bytes], how: str, where: float, size: int, junk: bytes
) -> None:
    _rulings_answer(tmp_path_factory, ruled[0], _mutate(ruled[1], how, where, size, junk))


def _rulings_answer(tmp_path_factory: pytest.TempPathFactory, game: Path, data: bytes) -> None:
    """Put `data` beside a copy of `game` as its rulings log; check the readers and `audit`."""
    log = tmp_path_factory.mktemp("fuzz") / "game.jsonl"
    log.write_bytes(game.read_bytes())
    path = rulings_path(log)
    path.write_bytes(data)
    start = time.monotonic()
    read = read_rulings(path)  # never raises for a file that reads
    rulings, problem = read.rulings, read.problem
    assert problem is None or "\n" not in problem
    try:
        report = rulings_report(log)
    except RulingError as exc:  # the documented refusal, in one line
        assert "\n" not in str(exc)
    else:
        assert report is not None and len(report.rulings) == len(rulings)
        assert report.recount.totals == [sum(h[t] for h in report.recount.hands) for t in range(2)]
    assert time.monotonic() - start < BOUND
    for args in ([str(log)], [str(log), "--json"]):
        code = _audit_answers(args)
        # the verdict is about the game log alone: the game passes, the rulings log only adds a 1
        assert code == (1 if problem is not None else 0)


_ANY_VALUE = (st.none() | st.booleans() | st.integers(-3, 2**70) | st.text(max_size=12)
              | st.lists(st.integers(0, 3), max_size=3))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    fields=st.fixed_dictionaries({}, optional={
        "parent": _ANY_VALUE | st.just("stbl-2p-s0-00000"), "fork_seq": _ANY_VALUE | st.integers(0, 40),
        "deck": _ANY_VALUE | st.sampled_from(["parent", "redealt"]), "seat": _ANY_VALUE,
        "seed": _ANY_VALUE, "by": _ANY_VALUE, "reason": _ANY_VALUE, "seq": _ANY_VALUE,
        "prev": _ANY_VALUE, "extra": _ANY_VALUE,
    }),
    drop=st.sets(st.sampled_from(["parent", "fork_seq", "deck", "seed", "by", "reason", "prev"])),
    rechain=st.booleans(),
)
@pytest.mark.slow
def test_any_branched_line_gets_a_documented_answer(
    tmp_path_factory, branched: tuple[Path, Path], fields: dict, drop: set[str], rechain: bool
) -> None:
    parent, branch = branched
    lines = branch.read_bytes().split(b"\n")[:-1]
    line = json.loads(lines[31])
    assert line["type"] == "branched"
    line.update(fields)
    for name in drop:
        line.pop(name, None)
    lines[31] = json.dumps(line, separators=(",", ":")).encode()
    if rechain:  # the prev of every later line rewritten to follow the new line
        for place in range(32, len(lines)):
            i = lines[place].index(b'"prev":"') + len(b'"prev":"')
            new_prev = hashlib.sha256(lines[place - 1]).hexdigest().encode()
            lines[place] = lines[place][:i] + new_prev + lines[place][i + 64:]
    forged = tmp_path_factory.mktemp("fuzz") / "forged.jsonl"
    forged.write_bytes(b"".join(line + b"\n" for line in lines))
    for extra in ([], ["--json"]):
        code = _audit_answers([str(forged), "--parent", str(parent), *extra])
        if not rechain and forged.read_bytes() != branch.read_bytes():
            assert code == 1  # the chain breaks after the changed line


# -- compare, rule and branch on damaged input ------------------------------------------------------

HOWS = st.sampled_from(["flip", "cut", "double", "insert", "truncate", "move"])


def _one_line_answer(args: list[str]) -> tuple[int, str]:
    """Run any command; check it answers as documented (exit 0, or 1 or 2 with one line on
    stderr, never a traceback, in bounded time); return its exit code and stdout."""
    start = time.monotonic()
    result = runner.invoke(app, args)
    assert time.monotonic() - start < BOUND, args
    assert result.exception is None or isinstance(result.exception, SystemExit), (args, repr(result.exception))
    assert "Traceback" not in result.output, args
    assert result.exit_code in (0, 1, 2), (args, result.exit_code)
    if result.exit_code:
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (args, result.stderr)
    if "--json" in args and result.stdout:
        json.loads(result.stdout)
    return result.exit_code, result.stdout


def _flipped_before_last_line(data: bytes, how: str, where: float) -> bool:
    """Return whether a "flip" damage hit a byte before the last line's first byte (so a line
    that a later line's prev links to changed: the chain shows it)."""
    i = int(where * len(data))
    return how == "flip" and i < data.rstrip(b"\n").rfind(b"\n")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.sampled_from(["branch", "parent"]), how=HOWS, where=st.floats(0, 1, exclude_max=True),
       size=st.integers(1, 400), junk=st.binary(min_size=1, max_size=40), as_json=st.booleans())
@pytest.mark.slow
def test_compare_answers_any_damage_to_a_branch_or_its_parent_in_one_line(
    tmp_path_factory, branched: tuple[Path, Path], which: str, how: str, where: float, size: int,
    junk: bytes, as_json: bool,
) -> None:
    parent, branch = branched
    source = branch if which == "branch" else parent
    data = _mutate(source.read_bytes(), how, where, size, junk)
    damaged = tmp_path_factory.mktemp("fuzz") / "damaged.jsonl"
    damaged.write_bytes(data)
    pair = [str(parent), str(damaged)] if which == "branch" else [str(damaged), str(branch)]
    code, out = _one_line_answer(["compare", *pair, *(["--json"] if as_json else [])])
    if _flipped_before_last_line(source.read_bytes(), how, where):
        assert code == 1 and "plays exactly as the parent did" not in out  # the chain shows the edit


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(how=HOWS, where=st.floats(0, 1, exclude_max=True), size=st.integers(1, 400),
       junk=st.binary(min_size=1, max_size=40), kind=st.sampled_from(["warning", "replay_from"]))
@pytest.mark.slow
def test_rule_answers_any_damage_to_a_game_or_a_branch_in_one_line(
    tmp_path_factory, branched: tuple[Path, Path], how: str, where: float, size: int, junk: bytes,
    kind: str,
) -> None:
    parent, branch = branched
    folder = tmp_path_factory.mktemp("fuzz")
    source = parent if kind == "warning" else branch
    data = _mutate(source.read_bytes(), how, where, size, junk)
    damaged = folder / "damaged.jsonl"
    damaged.write_bytes(data)
    game = damaged if kind == "warning" else folder / "game.jsonl"
    if kind == "replay_from":
        game.write_bytes(parent.read_bytes())
    args = ["rule", str(game), "--kind", kind, "--by", "fuzz", "--reason", "x"]
    code, _ = _one_line_answer(args + (["--branch", str(damaged)] if kind == "replay_from" else []))
    if _flipped_before_last_line(source.read_bytes(), how, where):
        assert code in (1, 2) and not rulings_path(game).exists()  # nothing binds a changed log


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(how=HOWS, where=st.floats(0, 1, exclude_max=True), size=st.integers(1, 400),
       junk=st.binary(min_size=1, max_size=40), at=st.integers(0, 60))
@pytest.mark.slow
def test_branch_answers_any_damage_to_its_parent_in_one_line(
    tmp_path_factory, how: str, where: float, size: int, junk: bytes, at: int,
) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    data = _mutate(SAMPLES[0].read_bytes(), how, where, size, junk)
    damaged = folder / "damaged.jsonl"
    damaged.write_bytes(data)
    out = folder / "b.jsonl"
    code, _ = _one_line_answer(["branch", str(damaged), "--at", str(at), "-o", str(out), "--until", "moves"])
    assert out.exists() is (code == 0)  # a refused branch leaves no file behind


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=200) | st.just(b'{"a":' * 2_000 + b"1" + b"}" * 2_000),
       line=st.integers(0, 40))
@pytest.mark.slow
def test_compare_rule_and_branch_answer_any_line_in_one_line(
    tmp_path_factory, branched: tuple[Path, Path], data: bytes, line: int,
) -> None:
    """Any bytes (JSON nested deeper than any decoder's stack among them) in place of a line of
    the parent or the branch, after the fork or before it."""
    parent, branch = branched
    folder = tmp_path_factory.mktemp("fuzz")
    for source, name in ((parent, "p.jsonl"), (branch, "b.jsonl")):
        lines = source.read_bytes().split(b"\n")
        place = 30 + line if name == "b.jsonl" else line
        lines[place] = data.replace(b"\n", b" ")
        (folder / name).write_bytes(b"\n".join(lines))
    _one_line_answer(["compare", str(folder / "p.jsonl"), str(branch)])
    _one_line_answer(["compare", str(parent), str(folder / "b.jsonl"), "--json"])
    _one_line_answer(["rule", str(folder / "p.jsonl"), "--kind", "warning", "--by", "f", "--reason", "x"])
    _one_line_answer(["rule", str(folder / "g.jsonl"), "--kind", "replay_from", "--branch", str(folder / "b.jsonl"),
                      "--by", "f", "--reason", "x"])
    _one_line_answer(["branch", str(folder / "p.jsonl"), "--at", "20", "-o", str(folder / "o.jsonl"),
                      "--until", "moves"])


# -- an edited line of a sealed log never counts ----------------------------------------------------


def _edit_byte(line: bytes, at: float, byte: int) -> bytes:
    """Return `line` with one byte replaced by another (never a newline), so it differs."""
    i = int(at * len(line))
    new = byte if byte != line[i] else (byte + 1) % 256
    new = new if new != 10 else 11
    return line[:i] + bytes([new]) + line[i + 1:]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.sampled_from(["game", "rulings"]), line=st.floats(0, 1, exclude_max=True),
       at=st.floats(0, 1, exclude_max=True), byte=st.integers(0, 255))
@pytest.mark.slow
def test_an_edited_line_of_a_sealed_log_never_counts(
    tmp_path_factory, ruled: tuple[Path, bytes], which: str, line: float, at: float, byte: int,
) -> None:
    """Any one byte changed in a line of a sealed game log or rulings log that a later line links
    to: the game fails its audit and no ruling binds it any more; in a rulings log, neither the
    edited ruling nor any after it applies, and the standings are those of the rulings before it."""
    game, rulings = ruled
    log = tmp_path_factory.mktemp("fuzz") / "game.jsonl"
    log.write_bytes(game.read_bytes())
    rpath = rulings_path(log)
    rpath.write_bytes(rulings)
    whole = rulings_report(log)
    assert whole is not None and whole.problem is None
    target = log if which == "game" else rpath
    lines = target.read_bytes().split(b"\n")[:-1]
    k = int(line * (len(lines) - 1))  # never the last line: the chain proves a line by the next
    lines[k] = _edit_byte(lines[k], at, byte)
    target.write_bytes(b"".join(x + b"\n" for x in lines))
    if which == "game":
        (result,) = audit_path(log)
        assert not result.report.ok
        try:
            report = rulings_report(log)
        except RulingError:  # the game log no longer reads as a log at all
            return
        assert report is not None and not any(r.applies for r in report.rulings)
        assert report.after.totals == report.recount.totals
        return
    report = rulings_report(log)
    read = read_rulings(rpath)
    assert report is not None and report.problem is not None
    # the reading stops at the edited line or the next one: the line before a line that does not
    # read is not proved either, so at most the rulings before the edited one count
    assert k - 1 <= read.counted <= k
    assert not any(r.applies for r in report.rulings[read.counted:])
    before = judge(read.rulings[:read.counted], read_facts(log))
    assert report.after == before.after
    assert [r.applies for r in report.rulings[:read.counted]] == [r.applies for r in before.rulings]
