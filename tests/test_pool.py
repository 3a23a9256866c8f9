"""Workers: `index` and `audit` give the same database and the same report with 1 or 2 workers.

The logs are many (several chunks per worker) and include every kind of trouble a worker must
report as one process would: logs with a gap and a repeated event, a file that is not a log, a
game offered twice (the same head: skipped; another head: a conflict), an archive, and a damaged
archive.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from buraco_events.analytics.ingest import CHUNK_LOGS
from buraco_events.analytics.schema import TABLES
from buraco_events.log.archive import pack
from buraco_events.play.sim import simulate
from buraco_events.util.pool import WorkerError, chunked, ordered_map
from cli.main import app

runner = CliRunner()


def cli(*args: str):
    """Run the app; return the result (stdout and stderr apart)."""
    return runner.invoke(app, list(args))


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Paths to index or audit: a folder of good and bad logs, an archive, a damaged archive."""
    base = tmp_path_factory.mktemp("inputs")
    good = base / "sim"
    simulate(good, 3 * CHUNK_LOGS + 5, "stbl", 2, 5, ["greedy", "random"], target=0)
    logs = sorted(good.glob("*.jsonl"))
    folder = base / "logs"
    shutil.copytree(good, folder)
    lines = logs[0].read_bytes().splitlines(keepends=True)
    # another head of game 0 (a game in progress): a conflict, after the first is stored
    (folder / "zz-partial.jsonl").write_bytes(b"".join(lines[:6]))
    (folder / "zz-copy.jsonl").write_bytes(logs[1].read_bytes())  # the same head: skipped
    broken = lines[:]
    broken[3] = broken[3].replace(b'"seq":3', b'"seq":4')
    (folder / "m-broken.jsonl").write_bytes(b"".join(broken))
    (folder / "m-junk.jsonl").write_bytes(b"not a log\n")
    repeated = logs[2].read_bytes().splitlines(keepends=True)
    repeated.insert(5, repeated[4])  # an event logged twice
    (folder / "m-repeated.jsonl").write_bytes(b"".join(repeated))
    archive = base / "some.bza"
    pack(logs[:CHUNK_LOGS + 3], archive)
    damaged = base / "damaged.bza"
    data = archive.read_bytes()
    damaged.write_bytes(data[: len(data) * 2 // 3])
    return [folder, archive, damaged]


def table_rows(db: Path) -> dict[str, list[tuple]]:
    """Return every table's rows in stored order (no ORDER BY: the order is part of the output)."""
    with duckdb.connect(str(db), read_only=True) as con:
        return {t: con.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in TABLES}


@pytest.mark.slow
def test_index_gives_the_same_database_and_report_with_1_or_2_workers(inputs, tmp_path: Path):
    runs = {}
    for n in (1, 2):
        db = tmp_path / f"w{n}.duckdb"
        result = cli("index", *map(str, inputs), "--db", str(db), "--workers", str(n))
        runs[n] = (result.exit_code, result.stdout.replace(str(db), "DB"), result.stderr,
                   table_rows(db))
    assert runs[1] == runs[2]
    code, out, err, rows = runs[1]
    assert code == 1  # logs were rejected
    # games were added from the folder and the archive; each bad log, the conflict and the
    # damaged archive are reported once
    assert " 0 games added" not in out and "1 conflict " in out, out
    for name in ("m-broken.jsonl", "m-junk.jsonl", "m-repeated.jsonl", "damaged.bza"):
        assert err.count(name) == 1, (name, err)
    assert "conflict: " in err and "zz-partial.jsonl" in err
    assert len(rows["events"]) > 1000


@pytest.mark.slow
def test_audit_gives_the_same_report_with_1_or_2_workers(inputs):
    for form in ((), ("--json",)):
        runs = [cli("audit", *map(str, inputs), *form, "--workers", str(n)) for n in (1, 2)]
        one, two = ((r.exit_code, r.stdout, r.stderr) for r in runs)
        assert one == two
        assert one[0] == 2  # the damaged archive cannot be read whole
        assert "m-repeated.jsonl" in one[1] and "damaged.bza" in one[2]


def test_ordered_map_keeps_order_and_raises_after_the_work_before():
    def source():
        yield from (-n for n in range(9))
        raise OSError("disk gone")

    got: list[int] = []
    with pytest.raises(OSError, match="disk gone"):
        for chunk in ordered_map(sum, chunked(source(), 2), workers=2):
            got.append(chunk)
    assert got == [-1, -5, -9, -13, -8]  # every chunk before the failure, in order


def test_ordered_map_gives_the_one_chunk_before_a_failure():
    def source():
        yield -1
        raise OSError("damaged")

    got: list[int] = []
    with pytest.raises(OSError, match="damaged"):
        for chunk in ordered_map(sum, chunked(source(), 2), workers=2):
            got.append(chunk)
    assert got == [-1]


def test_collector_paused_freezes_and_restores() -> None:
    import gc

    from buraco_events.util.pool import collector_paused

    assert gc.isenabled() and gc.get_freeze_count() == 0
    with collector_paused():
        assert not gc.isenabled()
        assert gc.get_freeze_count() > 0  # the objects there before the block are out of view
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.disable()
    try:
        with pytest.raises(KeyError), collector_paused():
            raise KeyError("the block fails")
        assert not gc.isenabled() and gc.get_freeze_count() == 0  # left off as it was found
    finally:
        gc.enable()


def test_collector_paused_frees_the_blocks_cycles_and_leaves_older_ones_alone() -> None:
    """A block's end collects what the block made (its cycles go at once) and scans nothing older:
    a cycle made before the block is still there after it, until a collection of its own."""
    import gc
    import weakref

    from buraco_events.util.pool import collector_paused

    class Node:
        def __init__(self) -> None:
            self.me = self  # a cycle: only the collector frees it

    gc.disable()
    try:
        older = Node()
        old_ref = weakref.ref(older)
        del older
        with collector_paused():
            garbage = Node()
            alive = [[i] for i in range(1_000)]  # survivors
            ref = weakref.ref(garbage)
            del garbage
            assert ref() is not None  # no collection while the block runs
        assert ref() is None  # freed at the block's end
        assert old_ref() is not None  # older than the block: not scanned
        assert gc.get_count()[0] < 100  # the survivors left the young generation
        assert len(alive) == 1_000
    finally:
        gc.collect()
        gc.enable()
    assert old_ref() is None


def _pid_after(chunk: list[int]) -> tuple[int, int]:
    time.sleep(0.005)  # long enough that the worker is still busy when its fill is reached
    return sum(chunk), os.getpid()


def test_share_makes_this_process_one_of_the_workers():
    # `share`: 2 workers are this process and one more, never three processes on two cores
    got = list(ordered_map(_pid_after, chunked(range(60), 2), 2, share=True))
    assert [total for total, _ in got] == [sum(c) for c in chunked(range(60), 2)]
    pids = {pid for _, pid in got}
    assert len(pids) == 2 and os.getpid() in pids, pids
    # without it, 2 workers are two processes, this one never computing
    got = list(ordered_map(_pid_after, chunked(range(60), 2), 2))
    assert os.getpid() not in {pid for _, pid in got}


def _fails_at_7(chunk: list[int]) -> int:
    if 7 in chunk:
        raise ValueError("seven")
    time.sleep(0.002)
    return sum(chunk)


@pytest.mark.parametrize("workers", [2, 3])
def test_share_raises_in_its_turn_whoever_computed_the_chunk(workers: int):
    got: list[int] = []
    with pytest.raises(ValueError, match="seven"):
        for total in ordered_map(_fails_at_7, chunked(range(40), 2), workers, share=True):
            got.append(total)
    assert got == [1, 5, 9]  # every chunk before the failing one, in order


@settings(max_examples=25, deadline=None)
@given(values=st.lists(st.integers(-1000, 1000), max_size=60), size=st.integers(1, 7),
       workers=st.integers(1, 4), share=st.booleans())
def test_ordered_map_gives_what_map_gives_for_any_workers(values: list[int], size: int,
                                                         workers: int, share: bool):
    chunks = list(chunked(values, size))
    assert list(ordered_map(sum, chunks, workers, share=share)) == list(map(sum, chunks))


def _killed_at_7(chunk: list[int]) -> int:
    if 7 in chunk:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.002)
    return sum(chunk)


@pytest.mark.parametrize("share", [False, True])
def test_a_killed_worker_is_a_broken_pool_naming_its_chunk(share: bool):
    got: list[int] = []
    with pytest.raises(BrokenProcessPool) as info:
        for total in ordered_map(_killed_at_7, chunked(range(40), 2), 3, share=share,
                                 name=lambda c: f"chunk from {c[0]}"):
            got.append(total)
    assert isinstance(info.value, WorkerError)
    assert str(info.value) == "chunk from 6: a worker process was killed (SIGKILL: out of memory?)"
    # results before it come in order; those the dead worker's end cut short never come
    assert got == [1, 5, 9][:len(got)]
    assert multiprocessing.active_children() == []  # the other workers are gone too


def test_results_left_unread_stop_the_workers():
    results = ordered_map(_pid_after, chunked(range(200), 2), 3)
    assert next(results)[0] == 1
    started = time.monotonic()
    results.close()  # as a command that fails on the first result does
    assert time.monotonic() - started < 5
    assert multiprocessing.active_children() == []
