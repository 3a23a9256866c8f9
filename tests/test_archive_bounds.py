"""Archives that cost too much: how many logs, how deep or long their names, where a cut file
ends, and the memory of reading one with worker processes (one log's worth per worker, whatever
the archive holds; a worker that dies or runs out of memory ends the run in one line, exit 2)."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import textwrap
import time
import weakref
from pathlib import Path

import pytest
import zstandard
from helpers import game_lines
from test_archive import _enc, _framed, _header_blob, _log_blob, write_raw
from typer.testing import CliRunner

from buraco_events.log import archive_format
from buraco_events.log.archive import pack, unpack
from buraco_events.log.archive_format import ArchiveError, Limits
from buraco_events.log.archive_read import iter_archive
from buraco_events.util.pool import WorkerError, chunked, ordered_map
from cli.main import app

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def empty_logs(path: Path, logs: int, *, count: bool = True) -> Path:
    """Write an archive of `logs` empty logs (the header counting them, or not), streamed."""
    with open(path, "wb") as f:
        f.write(archive_format.MAGIC + bytes([archive_format.FORMAT]))
        z = zstandard.ZstdCompressor(level=1, write_checksum=True).stream_writer(f, closefd=False)
        z.write(_framed([_header_blob(logs if count else None)]))
        empty = archive_format.log_digest([], b"")
        for i in range(logs):
            z.write(_framed([_enc.encode([archive_format.LOG, f"{i}.jsonl", empty, False, [], b""])]))
        z.write(_framed([_enc.encode([archive_format.END, logs, 0])]))
        z.flush(zstandard.FLUSH_FRAME)
    return path


def no_traceback(result) -> None:
    assert "Traceback" not in result.output and result.exception is None or isinstance(
        result.exception, SystemExit), result.output


# -- how many logs --------------------------------------------------------------------------------


def test_the_limit_on_logs_is_documented_and_raisable(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Limits().members == archive_format.MAX_MEMBERS == 250_000
    monkeypatch.setenv("BURACO_MAX_MEMBERS", "1,000,000")
    assert Limits.from_env().members == 1_000_000
    monkeypatch.setenv("BURACO_MAX_MEMBERS", "lots")
    with pytest.raises(ValueError, match="BURACO_MAX_MEMBERS: 'lots' is not a count"):
        Limits.from_env()


@pytest.mark.parametrize("count", [True, False])
def test_an_archive_of_more_logs_than_the_limit_is_refused(tmp_path: Path, count: bool) -> None:
    path = empty_logs(tmp_path / "five.bza", 5, count=count)
    with pytest.raises(ArchiveError, match="more than 3 logs, the limit per archive "
                       r"\(raise it with --max-members or BURACO_MAX_MEMBERS\)") as info:
        list(iter_archive(path, Limits(members=3)))
    # the header's count refuses it at once; without one, the 4th log does
    assert info.value.member == (None if count else 4)
    assert len(list(iter_archive(path, Limits(members=5)))) == 5
    for args in (["archive", "list", str(path), "--max-members", "3"],
                 ["archive", "unpack", str(path), "-o", str(tmp_path / "out"), "--max-members", "3"],
                 ["audit", str(path)]):
        result = runner.invoke(app, args, env={"BURACO_MAX_MEMBERS": "3"})
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr.count("the limit per archive") == 1, result.stderr
        no_traceback(result)
    assert not (tmp_path / "out").exists()
    bad = runner.invoke(app, ["archive", "list", str(path), "--max-members", "some"])
    assert bad.exit_code == 2 and "--max-members: 'some' is not a count" in bad.stderr


def test_an_archive_over_the_limit_without_a_count_is_refused_before_any_log(tmp_path: Path) -> None:
    """A header without the count (an archive packed before it was written): the logs are
    counted before the first is restored, so audit, list and unpack judge, list or write none."""
    path = empty_logs(tmp_path / "many.bza", 400, count=False)
    with pytest.raises(ArchiveError, match="more than 50 logs") as info:
        next(iter_archive(path, Limits(members=50)))
    assert info.value.member == 51
    for args in (["audit", str(path)], ["audit", str(path), "--json"], ["archive", "list", str(path)]):
        result = runner.invoke(app, args, env={"BURACO_MAX_MEMBERS": "50"})
        assert result.exit_code == 2 and result.stdout == "", (args, result.stdout[:300])
        assert "more than 50 logs, the limit per archive" in result.stderr
        no_traceback(result)
    assert len(list(iter_archive(path, Limits(members=400)))) == 400


def test_pack_refuses_more_logs_than_the_limit(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for i in range(4):
        (src / f"g{i}.jsonl").write_bytes(b"".join(x + b"\n" for x in game_lines(i, turns=2)))
    with pytest.raises(ArchiveError, match="the logs are 4, more than 3 logs") as info:
        pack(src, tmp_path / "a.bza", limits=Limits(members=3))
    assert info.value.exit_code == 1 and not (tmp_path / "a.bza").exists()


@pytest.mark.slow
def test_a_flood_of_logs_is_listed_streaming(tmp_path: Path) -> None:
    # a flood of tiny logs: `archive list` streams its rows rather than build a table whole
    path = empty_logs(tmp_path / "flood.bza", 30_000)
    start = time.process_time()
    result = runner.invoke(app, ["archive", "list", str(path)])
    took = time.process_time() - start
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 30_000 + 4  # title, header, rule, rows, total
    assert lines[3].split() == ["1", "│", "0.jsonl", "│", "0", "│", "0", "│", "-"]
    assert lines[-1] == f"{path}: 30000 logs, 0 events, 0 bytes"
    assert took < 10, took  # about 0.5 s here
    js = runner.invoke(app, ["archive", "list", str(path), "--json"])
    assert js.stdout.count("\n") == 30_000


# -- names ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name, words", [
    ("a/" * 2000 + "g.jsonl", "a log name 2,000 folders deep, over 64, the limit"),
    ("a/" * 65 + "g.jsonl", "a log name 65 folders deep, over 64, the limit"),
    ("x" * 2000 + ".jsonl", "a log name of 2,006 bytes, over 1,024, the limit"),
    ("é" * 600 + ".jsonl", "a log name of 1,206 bytes, over 1,024, the limit"),
    ("y" * 100_000, "a log name of more than 65,536 bytes, over 1,024, the limit"),
], ids=["2000-deep", "65-deep", "2006-bytes", "1206-bytes-utf8", "100k-bytes"])
def test_deep_or_long_names_are_refused_in_one_line(tmp_path: Path, name: str, words: str) -> None:
    # a name of 2,000 nested folders is refused in one line, never a RecursionError
    path = write_raw(tmp_path / "n.bza", [("ok.jsonl", game_lines(1)), (name, game_lines(2))])
    with pytest.raises(ArchiveError, match=words) as info:
        list(iter_archive(path))
    assert info.value.member == 2 and "\n" not in str(info.value) and len(str(info.value)) < 300
    out = tmp_path / "out"
    for args in (["archive", "unpack", str(path), "-o", str(out)], ["archive", "list", str(path)],
                 ["audit", str(path)]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        first = result.stderr.splitlines()[0]
        assert first.startswith(f"error: {path}: member 2") and words in first, first
        no_traceback(result)
    assert not out.exists()


def test_a_name_64_folders_deep_unpacks(tmp_path: Path) -> None:
    name = "a/" * 64 + "g.jsonl"
    path = write_raw(tmp_path / "n.bza", [(name, game_lines(1))])
    assert unpack(path, tmp_path / "out").logs == 1
    assert (tmp_path / "out" / name).is_file()


def test_pack_refuses_a_name_too_deep(tmp_path: Path) -> None:
    deep = tmp_path / "src" / Path(*["d"] * 65)
    deep.mkdir(parents=True)
    (deep / "g.jsonl").write_bytes(b"".join(x + b"\n" for x in game_lines(1, turns=2)))
    with pytest.raises(ArchiveError, match="65 folders deep, over 64") as info:
        pack(tmp_path / "src", tmp_path / "a.bza")
    assert info.value.exit_code == 1


# -- a cut archive: where the file ends ---------------------------------------------------------


def blocks(path: Path, logs: list[tuple[str, list[bytes]]]) -> list[int]:
    """Write an archive whose header, logs and end marker each end a zstd block; return the
    file's size after each of them (header, logs..., end marker) and at the end."""
    ends = []
    with open(path, "wb") as f:
        f.write(archive_format.MAGIC + bytes([archive_format.FORMAT]))
        z = zstandard.ZstdCompressor(write_checksum=True).stream_writer(f, closefd=False)
        blobs = [_header_blob(len(logs))] + [_log_blob(n, x) for n, x in logs]
        blobs.append(_enc.encode([archive_format.END, len(logs), sum(len(x) for _, x in logs)]))
        for blob in blobs:
            z.write(_framed([blob]))
            z.flush(zstandard.FLUSH_BLOCK)
            ends.append(f.tell())
        z.flush(zstandard.FLUSH_FRAME)
        ends.append(f.tell())
    return ends


def test_a_cut_archive_is_reported_where_it_is_cut(tmp_path: Path) -> None:
    # an archive cut short is damaged where it is cut, never "in its header"
    logs = [(f"g{i}.jsonl", game_lines(i, turns=30)) for i in range(3)]
    whole = tmp_path / "whole.bza"
    header, m1, m2, m3, end, size = blocks(whole, logs)
    assert [n for n, _ in iter_archive(whole)] == ["g0.jsonl", "g1.jsonl", "g2.jsonl"]
    data = whole.read_bytes()
    cuts = {
        header - 3: "before its header could be read",
        (m1 + m2) // 2: "member 2: truncated archive",
        m3 + 2: "after its 3 logs: truncated archive",
        size - 5: "after its 3 logs: truncated archive",
        size - 2: "after its 3 logs: truncated archive",
    }
    for cut, words in cuts.items():
        path = tmp_path / f"cut{cut}.bza"
        path.write_bytes(data[:cut])
        read: list[str] = []
        with pytest.raises(ArchiveError) as info:
            for name, _ in iter_archive(path):
                read.append(name)
        message = str(info.value)
        assert words in message, (cut, message)
        assert f"the file ends at byte {cut:,}, inside the" in message, (cut, message)
        assert "in its header" not in message
        assert len(read) == {"before": 0, "member": 1}.get(words.split()[0], 3)


# -- worker processes: bounded memory, never a hang --------------------------------------------


def test_chunked_cuts_at_a_weight() -> None:
    weights = [1, 2, 3, 10, 1, 1, 4]
    got = list(chunked(weights, 3, weight=lambda w: w, budget=5))
    assert got == [[1, 2], [3], [10], [1, 1], [4]]
    assert list(chunked(weights, 3)) == [[1, 2, 3], [10, 1, 1], [4]]


class Chunk(list):
    """A chunk that can be watched (a weak reference): alive while some process holds it."""


def _heavy(chunk: Chunk) -> int:
    return sum(chunk)


@pytest.mark.parametrize("share", [False, True])
def test_heavy_chunks_are_held_one_at_a_time_here(share: bool) -> None:
    # heavy chunks: this process holds one read ahead, never the workers' (pickled and sent);
    # with `share` (index, audit) it computes chunks too, one at a time
    alive: set[int] = set()

    def source():
        for n in range(12):
            chunk = Chunk([n])
            alive.add(n)
            weakref.finalize(chunk, alive.discard, n)
            yield chunk
            del chunk

    got, held = [], []
    for result in ordered_map(_heavy, source(), 2, weight=lambda c: 100, budget=10, share=share):
        got.append(result)
        held.append(len(alive))
    assert got == list(range(12))
    assert max(held) <= 1, held  # the one read ahead: the workers' are pickled and sent


def _dies(chunk: list[int]) -> int:
    if 5 in chunk:
        os.kill(os.getpid(), signal.SIGKILL)
    return sum(chunk)


def _no_memory(chunk: list[int]) -> int:
    if 5 in chunk:
        raise MemoryError
    return sum(chunk)


def test_a_worker_that_dies_or_runs_out_of_memory_ends_the_run() -> None:
    name = "chunk from {}".format
    with pytest.raises(WorkerError, match=r"^chunk from 4: a worker process was killed "
                                          r"\(SIGKILL: out of memory\?\)$"):
        list(ordered_map(_dies, chunked(range(20), 2), 2, name=lambda c: name(c[0])))
    got = []
    with pytest.raises(WorkerError, match="^chunk from 4: a worker process ran out of memory$"):
        for result in ordered_map(_no_memory, chunked(range(20), 2), 2,
                                  name=lambda c: name(c[0])):
            got.append(result)
    assert got == [1, 5]  # the results before it, in order


_UNDER_LIMIT = textwrap.dedent("""
    import os, resource, sys
    from buraco_events.util.pool import WorkerError, ordered_map

    def grab(chunk):
        return len(bytes(chunk[0] << 20))  # really allocated: zeroed

    with open("/proc/self/status") as f:
        size = next(int(x.split()[1]) for x in f if x.startswith("VmSize")) << 10
    limit = size + (int(sys.argv[1]) << 20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        print(list(ordered_map(grab, [[1], [2], [400], [3]], 2, name=lambda c: f"{c[0]} MiB")))
    except WorkerError as exc:
        print(exc)
""")


def test_a_worker_out_of_its_address_space_ends_the_run_in_one_line() -> None:
    # under an address-space limit a worker runs out of memory: one line, never a hang
    done = subprocess.run([sys.executable, "-c", _UNDER_LIMIT, "200"], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "400 MiB: a worker process ran out of memory\n"
    assert done.stderr == ""  # the worker printed nothing


def _limited(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


#: the command line, telling its peak address space (VmPeak) on stderr as it ends
_PEAK = ("import atexit, sys\n"
         "def peak():\n"
         "    with open('/proc/self/status') as f:\n"
         "        sys.__stderr__.write(next(x for x in f if x.startswith('VmPeak')))\n"
         "atexit.register(peak)\n"
         "from cli.main import main\n"
         "main()\n")


@pytest.mark.slow
@pytest.mark.parametrize("command", ["audit", "index"])
def test_a_command_out_of_memory_ends_in_one_line(tmp_path: Path, command: str) -> None:
    """`audit` and `index` of an archive of big logs, under an address-space limit a little over
    what reading a small one takes: one line, exit 2, never a traceback or a hang."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_bombs
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    small, big = tmp_path / "small.bza", tmp_path / "big.bza"
    bench_bombs.members_bomb(small, 2, 64 << 10)
    bench_bombs.members_bomb(big, 6, 48 << 20)
    env = os.environ | {"PYTHONPATH": str(ROOT), "COLUMNS": "200", "NO_COLOR": "1"}

    def run(path: Path, limit: int | None = None) -> subprocess.CompletedProcess[str]:
        args = [command, str(path), "--workers", "2"]
        if command == "index":
            args += ["--db", str(tmp_path / f"{path.stem}.duckdb")]
        return subprocess.run(
            [sys.executable, "-c", _PEAK, *args], capture_output=True, text=True, env=env,
            timeout=120, cwd=tmp_path, preexec_fn=None if limit is None else lambda: _limited(limit))

    normal = run(small)
    peak = int(next(x for x in normal.stderr.splitlines() if x.startswith("VmPeak")).split()[1])
    done = run(big, (peak << 10) + (64 << 20))  # reading one 48 MiB log takes about twice that
    errors = [x for x in done.stderr.splitlines() if not x.startswith("VmPeak")]
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert len(errors) == 1 and errors[0].startswith("error: ") and "out of memory" in errors[0], errors


def test_a_paused_block_frees_the_input_its_cycles_hold_at_its_end() -> None:
    """A cycle a block leaves may hold its whole input (an audit's reader holds the log's lines,
    untracked bytes no object count sees): the block's end frees it, so an archive of big logs
    does not pile up in memory however many blocks run."""
    import gc

    from buraco_events.util import pool

    class Reader:
        def __init__(self, lines: bytes) -> None:
            self.lines = lines
            self.me = self  # a cycle: only the collector frees it

    refs = []
    for _ in range(3):
        with pool.collector_paused(held=64 << 20):
            reader = Reader(bytes(64 << 20))
            refs.append(weakref.ref(reader))
            del reader
        assert refs[-1]() is None  # freed with its 64 MiB before the next block
    assert gc.isenabled() and gc.get_freeze_count() == 0

