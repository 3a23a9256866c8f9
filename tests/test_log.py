"""Log files: appends and the chain, optimistic concurrency, one writer across processes, torn
tails and their repair, corruption left alone, and any changed byte of a sealed log detected."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import msgspec
import pytest
from helpers import game_lines, make_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from buraco_events.log.chain import verify_chain
from buraco_events.log.lines import (
    MAX_LINE,
    ConflictError,
    CorruptLogError,
    LockedError,
    LogError,
    LogExistsError,
    NotALogError,
    RawLines,
    TornTailError,
    raw_lines,
)
from buraco_events.log.reader import Collect, EventReader, check_lines, check_log, head
from buraco_events.log.repair import repair
from buraco_events.log.sources import iter_logs, read_log
from buraco_events.log.writer import open_log, write_log, write_logs
from buraco_events.model.events import (
    ZERO_HASH,
    Drew,
    EventFormatError,
    Note,
    decode_event,
    line_hash,
    seal_lines,
)
from cli.main import app

ROOT = Path(__file__).resolve().parents[1]


def write_lines(path: Path, lines: list[bytes], tail: bytes = b"") -> Path:
    path.write_bytes(b"".join(line + b"\n" for line in lines) + tail)
    return path


def run_child(code: str, *args: str) -> subprocess.Popen[str]:
    """Start a Python child running `code` (the log module imported as `log`)."""
    prelude = "import os, sys\nfrom buraco_events.log.writer import open_log\nfrom buraco_events.model.events import Note\n"
    return subprocess.Popen(
        [sys.executable, "-c", prelude + textwrap.dedent(code), *args], cwd=ROOT, text=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )


# -- appending -----------------------------------------------------------------------------------


def test_appends_set_seq_and_the_chain(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    events = make_game(1)
    with open_log(path) as w:
        stored = [w.append(e) for e in events]
        assert w.next_seq == len(events)
    assert stored == game_lines(1)  # the same bytes as sealing the game in memory
    assert path.read_bytes() == b"".join(line + b"\n" for line in stored)
    status = check_log(path)
    assert (status.events, status.sealed, status.head) == (len(events), True, line_hash(stored[-1]))
    assert head(path) == status.head
    assert [seq for seq, _, _ in read_log(path)] == list(range(1, len(events) + 1))


def test_reopening_continues_seq_and_chain(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    events = make_game(2)
    with open_log(path) as w:
        for e in events[:5]:
            w.append(e)
    with open_log(path, create=False) as w:
        assert (w.next_seq, w.head) == (5, head(path))
        for e in events[5:]:
            w.append(e)
    assert path.read_bytes().splitlines() == game_lines(2)


def test_an_unsealed_log_stays_unsealed(tmp_path: Path) -> None:
    lines = [msgspec.json.encode(msgspec.structs.replace(decode_event(x), prev=None))
             for x in game_lines(3)[:4]]
    path = write_lines(tmp_path / "u.jsonl", lines)
    assert not check_log(path).sealed
    with open_log(path) as w:
        line = w.append(Note(seq=0, by="ref", text="hi"))
    assert decode_event(line).prev is None and decode_event(line).seq == 4
    assert check_log(path).events == 5 and not check_log(path).sealed


def test_expected_seq_conflict_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    events = make_game(4)
    with open_log(path) as w:
        w.append(events[0], expected_seq=0)
        w.append(events[1], expected_seq=1)
        before = path.read_bytes()
        with pytest.raises(ConflictError) as exc:
            w.append(events[2], expected_seq=1)
        assert "expected seq 1, but the log is at seq 2" in str(exc.value)
        assert path.read_bytes() == before
        w.append(events[2], expected_seq=2)


def test_invalid_events_are_refused(tmp_path: Path) -> None:
    with open_log(tmp_path / "g.jsonl") as w, pytest.raises(ValueError, match=r"\$\.card"):
        w.append(Drew(seq=0, player=0, card="th"))  # the writer stores canonical cards only
    assert (tmp_path / "g.jsonl").read_bytes() == b""


@pytest.mark.parametrize(("policy", "syncs"), [("event", 14), ("hand", 2), ("none", 0)])
def test_fsync_policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, policy: str,
                      syncs: int) -> None:
    calls: list[int] = []
    monkeypatch.setattr(os, "fdatasync", calls.append)
    events = make_game(5, turns=4)  # 14 events, ending with hand_ended then game_ended
    with open_log(tmp_path / "g.jsonl", fsync=policy) as w:  # type: ignore[arg-type]
        for e in events:
            w.append(e)
    assert len(events) == 14 and len(calls) == syncs


def test_write_log_writes_a_sealed_log_once(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    assert write_log(path, make_game(6)) == head(path)
    assert path.read_bytes().splitlines() == game_lines(6)
    # the same bytes again are accepted with exist_ok; other bytes never replace a log
    assert write_log(path, make_game(6), exist_ok=True) == head(path)
    with pytest.raises(FileExistsError):
        write_log(path, make_game(6))
    with pytest.raises(LogExistsError, match="exists already with other content"):
        write_log(path, make_game(7), exist_ok=True)
    assert path.read_bytes().splitlines() == game_lines(6)
    assert [p.name for p in tmp_path.iterdir()] == ["g.jsonl"]  # no temporary file left behind
    with pytest.raises(ValueError, match="at least one event"):
        write_log(tmp_path / "empty.jsonl", [])


def take_away(aside: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Take away what writing a file aside may use: `O_TMPFILE` ("no O_TMPFILE"), a file system's
    support for it ("file system without"), or /proc to link it by ("no /proc")."""
    if aside == "no O_TMPFILE":
        monkeypatch.delattr(os, "O_TMPFILE", raising=False)
    elif aside == "file system without":
        real_open = os.open

        def no_tmpfile(path: str, flags: int, *args: object, **kw: object) -> int:
            if flags & getattr(os, "O_TMPFILE", 0) == getattr(os, "O_TMPFILE", -1):
                raise OSError(errno.EOPNOTSUPP, "not supported")
            return real_open(path, flags, *args, **kw)  # type: ignore[arg-type]

        monkeypatch.setattr(os, "open", no_tmpfile)
    elif aside == "no /proc":
        link = os.link

        def no_proc(src: str, dst: str, **kw: object) -> None:
            if str(src).startswith("/proc/"):
                raise FileNotFoundError(src)
            link(src, dst, **kw)  # type: ignore[arg-type]

        monkeypatch.setattr(os, "link", no_proc)


@pytest.mark.parametrize("aside", ["unnamed", "no O_TMPFILE", "file system without", "no /proc"])
def test_write_log_places_the_file_whole_every_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  aside: str) -> None:
    # the unnamed file aside (O_TMPFILE) and both fallbacks to a named one give the same file
    take_away(aside, monkeypatch)
    path = tmp_path / "g.jsonl"
    assert write_log(path, make_game(6)) == head(path)
    assert path.read_bytes().splitlines() == game_lines(6)
    with pytest.raises(LogExistsError, match="exists already with other content"):
        write_log(path, make_game(7), exist_ok=True)
    assert path.read_bytes().splitlines() == game_lines(6)
    assert [p.name for p in tmp_path.iterdir()] == ["g.jsonl"]


def test_write_logs_writes_each_log_as_write_log_with_one_flush(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The group commit: the same files and heads as one write_log each, made durable by one
    syncfs of the folder's file system before any is linked, and no fsync."""
    import buraco_events.log.atomic as atomic

    syncfs = atomic.syncfs()
    if syncfs is None:
        pytest.skip("no syncfs here: write_logs writes one log after another (tested below)")
    flushed: list[list[str]] = []

    def counting_syncfs(fd: int) -> int:
        flushed.append(sorted(p.name for p in tmp_path.iterdir()))  # what is linked at the flush
        return syncfs(fd)

    def no_fsync(fd: int) -> None:
        raise AssertionError("write_logs flushes the file system once, not each file")

    monkeypatch.setattr(atomic, "syncfs", lambda: counting_syncfs)
    monkeypatch.setattr(os, "fsync", no_fsync)
    heads = write_logs([(tmp_path / f"g{i}.jsonl", make_game(i)) for i in range(5)])
    assert flushed == [[]]  # one flush, before any file was linked
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"g{i}.jsonl" for i in range(5)]
    for i in range(5):
        assert (tmp_path / f"g{i}.jsonl").read_bytes().splitlines() == game_lines(i)
        assert heads[i] == head(tmp_path / f"g{i}.jsonl")


def test_write_logs_never_replaces_a_log_and_stops_at_the_first_conflict(tmp_path: Path) -> None:
    write_log(tmp_path / "g1.jsonl", make_game(1))
    write_log(tmp_path / "g2.jsonl", make_game(7))  # other content than game 2 below
    # the same bytes again are accepted with exist_ok
    write_logs([(tmp_path / f"g{i}.jsonl", make_game(i)) for i in (0, 1)], exist_ok=True)
    with pytest.raises(LogExistsError, match="exists already with other content"):
        write_logs([(tmp_path / f"g{i}.jsonl", make_game(i)) for i in (3, 2, 4)], exist_ok=True)
    # the log before the conflict is in place, none after it; the conflicting one is untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g0.jsonl", "g1.jsonl", "g2.jsonl", "g3.jsonl"]
    assert (tmp_path / "g2.jsonl").read_bytes().splitlines() == game_lines(7)
    assert (tmp_path / "g3.jsonl").read_bytes().splitlines() == game_lines(3)
    with pytest.raises(FileExistsError):
        write_logs([(tmp_path / "g5.jsonl", make_game(5)), (tmp_path / "g1.jsonl", make_game(1))])
    # an invalid log in the batch: nothing of the batch is written
    bad = Drew(seq=0, player=0, card="1Z")
    game = make_game(8)
    with pytest.raises(EventFormatError):
        write_logs([(tmp_path / "g6.jsonl", make_game(6)), (tmp_path / "g8.jsonl", [*game[:3], bad, *game[3:]])])
    assert not (tmp_path / "g6.jsonl").exists() and not (tmp_path / "g8.jsonl").exists()


@pytest.mark.parametrize("aside", ["no syncfs", "no O_TMPFILE", "file system without", "no /proc",
                                   "two folders"])
def test_write_logs_falls_back_to_one_log_after_another(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, aside: str) -> None:
    import buraco_events.log.atomic as atomic

    if aside == "no syncfs":
        monkeypatch.setattr(atomic, "syncfs", lambda: None)
    else:
        take_away(aside, monkeypatch)
    folders = [tmp_path / "a", tmp_path / ("b" if aside == "two folders" else "a")]
    for folder in folders:
        folder.mkdir(exist_ok=True)
    paths = [folders[i % 2] / f"g{i}.jsonl" for i in range(4)]
    heads = write_logs([(path, make_game(i)) for i, path in enumerate(paths)])
    for i, path in enumerate(paths):
        assert path.read_bytes().splitlines() == game_lines(i)
        assert heads[i] == head(path)
    assert sorted(p.name for f in set(folders) for p in f.iterdir()) == [f"g{i}.jsonl" for i in range(4)]


def test_write_logs_fsyncs_each_file_when_syncfs_fails_and_links_nothing_when_that_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ctypes

    import buraco_events.log.atomic as atomic

    if not getattr(os, "O_TMPFILE", 0):
        pytest.skip("no unnamed files here: write_logs writes one log after another")

    def failing_syncfs(fd: int) -> int:
        ctypes.set_errno(errno.EINVAL)
        return -1

    monkeypatch.setattr(atomic, "syncfs", lambda: failing_syncfs)
    synced: list[int] = []
    real_fsync = os.fsync

    def counting_fsync(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counting_fsync)
    write_logs([(tmp_path / f"g{i}.jsonl", make_game(i)) for i in range(3)])
    assert len(synced) == 3  # the flush refused: each file fsynced before any was linked
    assert [(tmp_path / f"g{i}.jsonl").read_bytes().splitlines() for i in range(3)] == [
        game_lines(i) for i in range(3)]

    def failing_fsync(fd: int) -> None:
        raise OSError(errno.EIO, "I/O error")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="I/O error"):
        write_logs([(tmp_path / f"h{i}.jsonl", make_game(i)) for i in range(3)])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g0.jsonl", "g1.jsonl", "g2.jsonl"]


def test_write_log_refuses_an_invalid_event_and_writes_nothing(tmp_path: Path) -> None:
    events = make_game(6)
    bad = Drew(seq=0, player=0, card="1Z")  # no such card: the readers would refuse the line
    with pytest.raises(EventFormatError, match=r"refusing to write an invalid event: .*\$\.card"):
        write_log(tmp_path / "g.jsonl", [*events[:3], bad, *events[3:]])
    assert list(tmp_path.iterdir()) == []
    # nor a game that goes on after its end (the log format)
    with pytest.raises(ValueError, match="nothing may follow game_ended"):
        write_log(tmp_path / "g.jsonl", [*events, Note(seq=0, by="referee", text="late")])
    assert list(tmp_path.iterdir()) == []


# -- one writer ----------------------------------------------------------------------------------


def test_second_writer_in_the_same_process_is_locked_out(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    with open_log(path), pytest.raises(LockedError, match="another writer has this log open"):
        open_log(path)
    open_log(path).close()  # released on close


def test_second_writer_in_another_process_is_locked_out(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    child = run_child("""
        w = open_log(sys.argv[1])
        w.append(Note(seq=0, by="child", text="mine"))
        print("locked", flush=True)
        sys.stdin.read()
        w.close()
    """, str(path))
    try:
        assert child.stdout is not None and child.stdout.readline() == "locked\n"
        with pytest.raises(LockedError) as exc:
            open_log(path)
        assert str(exc.value) == f"{path}: locked: another writer has this log open (one writer per log)"
        with pytest.raises(LockedError):
            repair(path)
    finally:
        child.communicate("", timeout=10)
    with open_log(path) as w:
        assert w.next_seq == 1


# -- torn tails and corruption -------------------------------------------------------------------


def test_torn_tail_from_a_killed_writer_is_detected_and_repaired(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    child = run_child("""
        import signal
        w = open_log(sys.argv[1], fsync="event")
        for i in range(3):
            w.append(Note(seq=0, by="child", text=str(i)))
        os.write(w._fd, b'{"type":"note","seq":3,"prev":"ab')  # cut short by the kill
        os.kill(os.getpid(), signal.SIGKILL)
    """, str(path))
    child.communicate(timeout=10)
    assert child.returncode == -9
    damaged = path.read_bytes()
    assert not damaged.endswith(b"\n")

    with pytest.raises(TornTailError) as exc:
        open_log(path)
    assert "line 4: torn last line (33 bytes without a final newline" in str(exc.value)
    assert path.read_bytes() == damaged  # nothing appended after the torn line
    with pytest.raises(TornTailError):
        check_log(path)
    with pytest.raises(TornTailError):
        head(path)
    got = []
    with pytest.raises(TornTailError):
        for lineno, _, _ in read_log(path):
            got.append(lineno)
    assert got == [1, 2, 3]  # the whole lines were read before the error

    result = repair(path)
    assert (result.events, result.removed, result.repaired) == (3, 33, True)
    assert result.backup == f"{path}.bak-1"
    assert Path(result.backup).read_bytes() == damaged
    assert path.read_bytes() == damaged[: len(damaged) - 33]
    with open_log(path) as w:
        assert w.next_seq == 3
        w.append(Note(seq=0, by="parent", text="after repair"))
    assert check_log(path).events == 4


def test_repair_never_overwrites_a_backup(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "g.jsonl", game_lines(7)[:3], tail=b'{"type"')
    (tmp_path / "g.jsonl.bak-1").write_bytes(b"older backup")
    assert repair(path).backup == f"{path}.bak-2"
    assert (tmp_path / "g.jsonl.bak-1").read_bytes() == b"older backup"
    again = repair(path)
    assert (again.repaired, again.backup, again.events) == (False, None, 3)


@pytest.mark.parametrize("where", ["middle", "last whole line", "before a torn tail"])
def test_a_bad_line_is_corruption_and_the_file_is_left_alone(tmp_path: Path, where: str) -> None:
    lines = game_lines(8)[:6]
    if where == "middle":
        lines[2] = lines[2][:40]
        tail = b""
    elif where == "last whole line":
        lines[5] = b"garbage"
        tail = b""
    else:
        lines[5] = lines[5][:-1]
        tail = b'{"type":"no'
    path = write_lines(tmp_path / "g.jsonl", lines, tail)
    before = path.read_bytes()
    with pytest.raises(CorruptLogError) as exc:
        repair(path)
    assert "the file is left untouched" in str(exc.value)
    assert path.read_bytes() == before
    assert list(tmp_path.iterdir()) == [path]  # no backup either
    with pytest.raises(LogError):
        open_log(path)
    assert path.read_bytes() == before


# -- the chain -----------------------------------------------------------------------------------


def _relinked(lines: list[bytes], i: int, **changes: object) -> list[bytes]:
    """Change line i's fields, then re-link the lines after it (a forger's best effort)."""
    out = list(lines)
    out[i] = msgspec.json.encode(msgspec.structs.replace(decode_event(lines[i]), **changes))
    return out


def test_chain_errors_name_the_line_seq_and_field() -> None:
    lines = game_lines(9)[:6]
    with pytest.raises(LogError) as exc:
        verify_chain(lines[:2] + lines[3:], "g.jsonl")
    assert str(exc.value) == "g.jsonl: line 3 (seq 3): field seq: expected 2, got 3 (a gap)"

    changed = _relinked(lines, 2, player=3)
    with pytest.raises(LogError) as exc:
        verify_chain(changed, "g.jsonl")
    assert str(exc.value).startswith(
        "g.jsonl: line 4 (seq 3): field prev: does not match (line 3 was changed or removed): "
        f"expected {line_hash(changed[2])[:16]}..., got {line_hash(lines[2])[:16]}..."
    )
    with pytest.raises(LogError, match=r"line 1 \(seq 0\): field prev: does not match \(line 1 links to 64 zeros"):
        verify_chain(_relinked(lines, 0, prev="1" * 64), "g.jsonl")
    with pytest.raises(LogError, match=r"line 5 \(seq 4\): field prev: missing, but the log is sealed"):
        verify_chain(_relinked(lines, 4, prev=None), "g.jsonl")
    unsealed = [msgspec.json.encode(msgspec.structs.replace(decode_event(x), prev=None)) for x in lines]
    unsealed[3] = lines[3]
    with pytest.raises(LogError, match=r"line 4 \(seq 3\): field prev: present, but line 1 has none"):
        verify_chain(unsealed, "g.jsonl")


def test_an_empty_file_is_not_a_log_but_a_writer_may_start_one(tmp_path: Path) -> None:
    # an empty file is not "ok, 0 events" and has no head; a writer starts a log in it
    path = write_lines(tmp_path / "e.jsonl", [])
    for reader in (check_log, head, lambda p: list(read_log(p))):
        with pytest.raises(NotALogError, match="empty file: not a log"):
            reader(path)
    with open_log(path) as w:
        assert w.next_seq == 0
        w.append(make_game(3)[0])
    assert check_log(path).events == 1


SEALED = game_lines(10, turns=4)
SEALED_BYTES = b"".join(line + b"\n" for line in SEALED)
LAST_LINE_START = len(SEALED_BYTES) - len(SEALED[-1]) - 1


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(SEALED_BYTES) - 1), st.integers(0, 255))
def test_any_changed_byte_of_a_sealed_log_is_detected(position: int, value: int) -> None:
    if SEALED_BYTES[position] == value:
        return
    data = bytearray(SEALED_BYTES)
    data[position] = value
    *whole, tail = bytes(data).split(b"\n")
    lines = RawLines("g.jsonl", whole, tail)
    try:
        status = check_lines(lines)
    except LogError:
        return  # detected by decoding, the seq or the chain
    # only the last line is not covered by a later prev: the published head covers it
    assert position >= LAST_LINE_START
    assert status.head != line_hash(SEALED[-1])


# -- finding logs --------------------------------------------------------------------------------


def test_iter_logs_reads_a_file_or_a_folder_recursively_sorted(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    write_lines(tmp_path / "b" / "z.jsonl", game_lines(11))
    write_lines(tmp_path / "a.jsonl", game_lines(12), tail=b"{")
    (tmp_path / "notes.txt").write_text("not a log")
    found = [(name, list(lines), lines.torn) for name, lines in iter_logs(tmp_path)]
    assert [(n, t) for n, _, t in found] == [
        (str(tmp_path / "a.jsonl"), True), (str(tmp_path / "b" / "z.jsonl"), False)
    ]
    assert found[1][1] == game_lines(11)
    [(name, lines)] = list(iter_logs(tmp_path / "a.jsonl"))
    assert list(lines) == game_lines(12) and lines.tail == b"{"


def test_reading_streams_line_by_line(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "g.jsonl", game_lines(13), tail=b"junk")
    first = next(read_log(path))
    assert first[0] == 1 and first[2].seq == 0 and first[1] == game_lines(13)[0]


def test_first_line_links_to_zeros() -> None:
    assert decode_event(game_lines(14)[0]).prev == ZERO_HASH


def test_writer_rejects_bad_fsync_policy(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown fsync policy"):
        open_log(tmp_path / "g.jsonl", fsync="sometimes")  # type: ignore[arg-type]
    assert not os.path.exists(tmp_path / "g.jsonl")


# -- the `buraco log` commands -------------------------------------------------------------------

runner = CliRunner(env={"COLUMNS": "200", "NO_COLOR": "1"})


def test_log_check_and_head_commands(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    hex_head = write_log(path, make_game(15))
    result = runner.invoke(app, ["log", "check", str(path)])
    assert result.exit_code == 0
    assert result.stdout == (
        f"{path}: ok, sealed, complete, {len(make_game(15))} events, head {hex_head}\n")
    result = runner.invoke(app, ["log", "head", str(path)])
    assert (result.exit_code, result.stdout) == (0, hex_head + "\n")


def test_log_check_command_prints_one_line_errors(tmp_path: Path) -> None:
    lines = game_lines(16)
    lines[3] = lines[3].replace(b'"card":"', b'"card":"X')
    path = write_lines(tmp_path / "g.jsonl", lines)
    result = runner.invoke(app, ["log", "check", str(path)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {path}: line 4 (seq 3): field card: not a card: 'X")
    assert len(result.stderr.strip().splitlines()) == 1 and result.stdout == ""
    missing = runner.invoke(app, ["log", "check", str(tmp_path / "none.jsonl")])
    assert missing.exit_code == 2 and "cannot read: no such file or folder" in missing.stderr


def test_log_repair_command(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "g.jsonl", game_lines(17)[:4], tail=b'{"type":"dr')
    result = runner.invoke(app, ["log", "repair", str(path)])
    assert result.exit_code == 0
    assert result.stdout == (f"{path}: removed a torn last line (11 bytes), kept 4 events; "
                             f"backup at {path}.bak-1\n")
    assert runner.invoke(app, ["log", "repair", str(path)]).stdout == (
        f"{path}: nothing to repair (4 events)\n")
    lines = game_lines(17)[:4]
    lines[1] = b"{oops"
    bad = write_lines(tmp_path / "bad.jsonl", lines)
    result = runner.invoke(app, ["log", "repair", str(bad)])
    assert result.exit_code == 1 and "the file is left untouched" in result.stderr


def test_log_check_says_when_a_log_is_unfinished(tmp_path: Path) -> None:
    # the log format: a log whose last line is not game_ended is unfinished, and tools say so
    path = write_lines(tmp_path / "live.jsonl", game_lines(15)[:-1])
    assert not check_log(path).complete and check_log(write_lines(
        tmp_path / "done.jsonl", game_lines(15))).complete
    result = runner.invoke(app, ["log", "check", str(path)])
    assert result.exit_code == 0 and ", unfinished (no game_ended yet" in result.stdout


# -- hostile input: every reader gives a LogError naming the line, in bounded memory ----------

NOT_EVENTS = {
    "nested": b"[" * 1000,
    "type is a list": b'{"type":[],"seq":0}',
    "no type": b'{"hello":"world"}',
    "binary": b"\x00\xff\xfe\x80",
    "long": b"x" * (MAX_LINE + 1),
}


@pytest.mark.parametrize("bad", NOT_EVENTS.values(), ids=NOT_EVENTS.keys())
def test_a_bad_first_line_is_not_a_log_and_a_later_one_a_bad_line(tmp_path: Path, bad: bytes) -> None:
    first = write_lines(tmp_path / "first.jsonl", [bad])
    for reader in (check_log, head, lambda p: list(read_log(p))):
        with pytest.raises(NotALogError, match=r"line 1( \(seq 0\))?: not a log: "):
            reader(first)
    lines = game_lines(18)
    lines[4] = bad
    later = write_lines(tmp_path / "later.jsonl", lines)
    with pytest.raises(LogError, match=r"line 5\b") as caught:
        check_log(later)
    assert not isinstance(caught.value, NotALogError)
    with pytest.raises(CorruptLogError, match="line 5"):
        repair(later)


def test_an_over_long_line_is_read_in_bounded_memory(tmp_path: Path) -> None:
    import tracemalloc

    path = tmp_path / "x.jsonl"
    path.write_bytes(b"\n".join(game_lines(19)[:3]) + b"\n" + b"x" * (20 * MAX_LINE))
    tracemalloc.start()
    try:
        with pytest.raises(LogError, match="line 4: line longer than 1,048,576 bytes"):
            check_log(path)
        lines = list(raw_lines(path))  # a reader that goes on past it keeps at most MAX_LINE + 1
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(lines) == 4 and len(lines[3]) == MAX_LINE + 1
    assert peak < 4 * MAX_LINE


def test_nothing_may_follow_game_ended(tmp_path: Path) -> None:
    events = make_game(20)
    path = write_lines(tmp_path / "g.jsonl", game_lines(20))
    with open_log(path) as w:  # the writer refuses to extend a finished game
        with pytest.raises(LogError, match="nothing may follow game_ended"):
            w.append(Note(seq=0, by="referee", text="well played"))
    with pytest.raises(ValueError, match="nothing may follow game_ended"):
        write_log(tmp_path / "new.jsonl", [*events, Note(seq=0, by="r", text="x")])
    extended = seal_lines([*events, Note(seq=0, by="referee", text="well played")])
    path = write_lines(tmp_path / "extended.jsonl", extended)
    with pytest.raises(LogError, match=rf"line {len(extended)} \(seq {len(events)}\): note after "
                                       rf"game_ended \(seq {len(events) - 1}\): nothing may follow"):
        check_log(path)


@pytest.mark.slow
def test_log_commands_on_input_that_is_not_a_log_or_breaks_exit_2_or_1(tmp_path: Path) -> None:
    empty = write_lines(tmp_path / "empty.jsonl", [])
    hello = write_lines(tmp_path / "hello.jsonl", [b'{"hello":"world"}'])
    junk = tmp_path / "x.jsonl"
    junk.write_bytes(b"x" * (3 * MAX_LINE))
    lines = game_lines(21)
    lines[6] = lines[6].replace(b'"seq":6', b'"seq":6,"at":"2026-01-01T00:00:00Z"')
    broken = write_lines(tmp_path / "broken.jsonl", lines)
    for command in ("check", "head", "repair"):
        for path, code, words in ((empty, 2, "empty file: not a log"), (hello, 2, "not a log"),
                                  (junk, 2, "not a log"), (broken, 1, "line 8 (seq 7): field prev")):
            result = runner.invoke(app, ["log", command, str(path)])
            assert (result.exit_code, result.stdout) == (code, ""), (command, path, result.output)
            assert result.stderr.startswith(f"error: {path}") and words in result.stderr
            assert len(result.stderr.splitlines()) == 1


# -- the reader's fast decoding ------------------------------------------------------------------


def test_reader_reads_lenient_cards_as_decode_event_does() -> None:
    # the typed decoder alone refuses "th": the reader then decodes the line leniently
    first = game_lines(5)[0]
    lenient = msgspec.json.encode(
        {"type": "note", "seq": 1, "prev": line_hash(first), "by": "x", "text": "t"})
    lenient = lenient[:-1] + b',"extra":"th"}'  # an unknown field: still the same event
    drew = msgspec.json.encode(
        {"type": "drew", "seq": 2, "prev": line_hash(lenient), "player": 0, "card": "th"})
    events = [ev for _, _, ev in EventReader(RawLines("g.jsonl", [first, lenient, drew]))]
    assert events == [decode_event(first), decode_event(lenient), decode_event(drew)]
    assert events[2] == Drew(seq=2, prev=line_hash(lenient), player=0, card="10H")


def test_reader_refuses_a_valid_event_longer_than_max_line() -> None:
    # a line the typed decoder would accept is still refused for its length, as `decode_line` does
    first = game_lines(5)[0]
    note = Note(seq=1, prev=line_hash(first), by="x", text="n" * MAX_LINE)
    long_line = msgspec.json.encode(note)
    assert decode_event(long_line) == note
    errors = Collect()
    events = [ev for _, _, ev in EventReader(RawLines("g.jsonl", [first, long_line]), errors)]
    assert len(events) == 1
    assert [e.message for e in errors.errors] == [
        f"line longer than {MAX_LINE:,} bytes (no event is that long)"]
