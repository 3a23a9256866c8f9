"""Archive bombs: the peak memory of reading and unpacking hostile archives, beside the limits.

Run `python benchmarks/bench_bombs.py [--quick]` for a table; `measure(quick)` returns the rows.
Each bomb is a small `.bza` that would restore to far more than its limits allow: one log of a
single huge line, a log just past the limit (its stored form within it), a log of millions of
empty lines, and a flood of empty logs. Each is read (every log, as `audit` and `index` do) and
unpacked (`--quick`: only read, under limits 4 times lower) in a fresh subprocess that reports
its peak resident memory (`ru_maxrss`), so no measurement inherits another's. Each row is the
memory a bomb took beyond the interpreter's (the first row: the same subprocess reading the
small sample archive), beside the limit it ran under: about 0 for the bombs refused before they
are read, about twice the limit for a log read up to it (its stored form and its lines). The
time each took is the child's CPU time (fresh process), given in the row's name.

Two more archives cost by their number rather than their size: many logs each just under the
limit per log, audited by 2 worker processes (the row: what the reader and both workers took
beyond three interpreters, beside the limit per log times the workers), and a flood of empty
logs listed by `buraco archive list` (its time, and its memory beyond the interpreter).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec
import zstandard

from buraco_events.log import archive, archive_codec, archive_format, archive_read

Row = dict[str, Any]
ROOT = Path(__file__).resolve().parent.parent
_enc = msgspec.msgpack.Encoder()
MiB = 1 << 20


def _framed(*blobs: bytes) -> bytes:
    return b"".join(archive_format.LEN.pack(len(b)) + b for b in blobs)


def _start(f: Any, logs: int) -> Any:
    """Write the magic and the header of an archive of `logs` logs; return its zstd writer."""
    f.write(archive_format.MAGIC + bytes([archive_format.FORMAT]))
    z = zstandard.ZstdCompressor(level=1, write_checksum=True).stream_writer(f, closefd=False)
    z.write(_framed(_enc.encode([archive_format.HEADER, archive_codec.header_tables() | {"logs": logs}])))
    return z


def _finish(z: Any, logs: int, lines: int) -> None:
    z.write(_framed(_enc.encode([archive_format.END, logs, lines])))
    z.flush(zstandard.FLUSH_FRAME)


def _verbatim_log(z: Any, lines: int, line: bytes, name: str = "bomb.jsonl",
                  digest: bytes = b"\0" * 8) -> None:
    """Write one log of `lines` copies of `line`, all kept verbatim, streamed (no copy in memory)."""
    record = b"\xc6" + len(line).to_bytes(4, "big") + line  # bin 32: a line kept verbatim
    head = (b"\x96\x01" + _enc.encode(name) + _enc.encode(digest) + b"\xc2"
            + b"\xdd" + lines.to_bytes(4, "big"))  # array 32 of the records
    z.write(archive_format.LEN.pack(len(head) + lines * len(record) + 2) + head)
    batch = max(1, MiB // len(record))
    for done in range(0, lines, batch):
        z.write(record * min(batch, lines - done))
    z.write(b"\xc4\x00")  # no torn tail


def one_line_bomb(path: Path, size: int) -> None:
    """One log holding one line of `size` bytes: refused from its stored size, unread."""
    with open(path, "wb") as f:
        z = _start(f, 1)
        head = (b"\x96\x01" + _enc.encode("bomb.jsonl") + _enc.encode(b"\0" * 8) + b"\xc2\x91\xc6"
                + size.to_bytes(4, "big"))
        z.write(archive_format.LEN.pack(len(head) + size + 2) + head)
        chunk = b"x" * MiB
        for _ in range(size // MiB):
            z.write(chunk)
        z.write(b"\xc4\x00")
        _finish(z, 1, 1)


def lines_bomb(path: Path, lines: int, line: bytes) -> None:
    """One log of `lines` copies of one line."""
    with open(path, "wb") as f:
        z = _start(f, 1)
        _verbatim_log(z, lines, line)
        _finish(z, 1, lines)


def members_bomb(path: Path, logs: int, size: int) -> None:
    """`logs` logs of `size` bytes each (1 KB lines), each under the limit per log and whole (its
    digest right): every one is read, up to the limit per archive."""
    lines, line = size // 1024, b"x" * 1023
    digest = archive_format.log_digest([line] * lines, b"")
    with open(path, "wb") as f:
        z = _start(f, logs)
        for i in range(logs):
            _verbatim_log(z, lines, line, f"{i}.jsonl", digest)
        _finish(z, logs, logs * lines)


def logs_bomb(path: Path, logs: int) -> None:
    """`logs` empty logs."""
    with open(path, "wb") as f:
        z = _start(f, logs)
        for i in range(logs):
            blob = _enc.encode([archive_format.LOG, f"{i}.jsonl", archive_format.log_digest([], b""), False, [], b""])
            z.write(archive_format.LEN.pack(len(blob)) + blob)
        _finish(z, logs, 0)


WORKERS = 2


def _child(mode: str, path: str) -> None:
    """Read, unpack, audit (with `WORKERS` processes) or list one archive; print the peak memory
    (this process's, and the largest of its workers'), the time and the outcome as JSON."""
    start = time.process_time()
    outcome = "read whole"
    try:
        if mode == "read":
            for _ in archive_read.iter_archive(path):
                pass
        elif mode == "audit":
            from buraco_events.audit.files import AuditInputError, audit_path

            try:
                for _ in audit_path(Path(path), workers=WORKERS):
                    pass
            except AuditInputError as exc:
                outcome = "refused" if "the limit" in str(exc) else f"failed: {exc}"
        elif mode == "list":
            import contextlib

            from cli.main import app

            with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
                try:
                    app(["archive", "list", path], standalone_mode=False)
                except Exception as exc:  # an exit other than 0
                    outcome = f"failed: {exc}"
        else:
            archive.unpack(path, Path(path).with_suffix(".out"))
    except archive_format.ArchiveError:
        outcome = "refused"
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(json.dumps({"peak": peak, "workers": workers, "seconds": time.process_time() - start,
                      "outcome": outcome}))


def _run(mode: str, path: Path, env: dict[str, str]) -> dict[str, Any]:
    child_env = os.environ | env | {"PYTHONPATH": os.pathsep.join(
        [str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, __file__, "--child", mode, str(path)], env=child_env,
                          capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def measure(quick: bool = False) -> list[Row]:
    """Build the bombs, read and unpack each in a subprocess; return peak-memory rows."""
    scale = 4 if quick else 1  # quick: limits and bombs 4 times smaller, the same shapes
    member = archive_format.MAX_MEMBER_SIZE // scale
    logs_limit = 64 * MiB // scale  # lowered so the flood is refused quickly: 16,384 logs
    env = {archive_format.ENV_MAX_MEMBER_SIZE: str(member), archive_format.ENV_MAX_ARCHIVE_SIZE: str(logs_limit)}
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        real = folder / "real.bza"
        samples = ROOT / "data" / "samples"
        archive.pack(samples, real)
        base = _run("read", real, env)["peak"]
        rows.append({"name": "peak memory, reading the sample archive (the interpreter)",
                     "value": base, "unit": "MiB", "baseline": None, "baseline_value": None})
        big, past, empty_lines, empty_logs = (
            1024 // scale * MiB, member * 17 // 16 // 1024, 10_000_000 // scale, 50_000 // scale)
        bombs: list[tuple[str, Any, tuple[Any, ...], int, str]] = [
            (f"one line of {big // MiB:,} MiB", one_line_bomb, (big,), member, "limit per log"),
            (f"a log just past the limit ({past // 1024:,} MiB of 1 KB lines)", lines_bomb,
             (past, b"x" * 1023), member, "limit per log"),
            (f"{empty_lines:,} empty lines", lines_bomb, (empty_lines, b""), member,
             "limit per log"),
            (f"{empty_logs:,} empty logs", logs_bomb, (empty_logs,), logs_limit,
             "limit per archive"),
        ]
        for label, build, args, limit, what in bombs:
            path = folder / f"bomb{len(rows)}.bza"
            build(path, *args)
            size = path.stat().st_size
            for mode in ("read",) if quick else ("read", "unpack"):  # quick: a subprocess less
                result = _run(mode, path, env)
                rows.append({
                    "name": f"{mode}: {label}, {size / 1024:,.0f} KB, {result['outcome']} in "
                            f"{result['seconds']:.1f} s CPU",
                    "value": result["peak"] - base, "unit": "MiB more", "baseline": what,
                    "baseline_value": limit / MiB,
                })
        rows += _by_number(folder, quick, base)
    return rows


def _by_number(folder: Path, quick: bool, base: float) -> list[Row]:
    """The two archives that cost by their number of logs: audited big ones, listed empty ones."""
    rows: list[Row] = []
    # the probe of issue 36: 80 logs of 60 MiB (quick: 20 of 15 MiB, under a 16 MiB limit)
    logs, size, member = (20, 15 * MiB, 16 * MiB) if quick else (80, 60 * MiB, 64 * MiB)
    path = folder / "big-logs.bza"
    members_bomb(path, logs, size)
    env = {archive_format.ENV_MAX_MEMBER_SIZE: str(member)}
    result = _run("audit", path, env)
    beyond = result["peak"] - base + WORKERS * (result["workers"] - base)
    rows.append({
        "name": f"audit --workers {WORKERS}: {logs} logs of {size // MiB} MiB, "
                f"{path.stat().st_size / 1024:,.0f} KB, {result['outcome']} in "
                f"{result['seconds']:.1f} s CPU (reader {result['peak'] - base:,.0f} MiB, "
                f"each worker {result['workers'] - base:,.0f} MiB)",
        "value": beyond, "unit": "MiB more", "baseline": f"limit per log x {WORKERS} workers",
        "baseline_value": member * WORKERS / MiB,
    })
    # the other probe: 1,000,000 empty logs (quick: 250,000, the default limit), listed
    count = 250_000 if quick else 1_000_000
    path = folder / "many-logs.bza"
    logs_bomb(path, count)
    result = _run("list", path, {archive_format.ENV_MAX_MEMBERS: str(count)})
    rows.append({
        "name": f"archive list: {count:,} empty logs, {path.stat().st_size / 1024:,.0f} KB, "
                f"{result['outcome']} in {result['seconds']:.1f} s CPU",
        "value": result["peak"] - base, "unit": "MiB more", "baseline": None,
        "baseline_value": None,
    })
    return rows


def main() -> None:
    """Print the figures as a table (or, as a child, measure one archive)."""
    if sys.argv[1:2] == ["--child"]:
        _child(sys.argv[2], sys.argv[3])
        return
    from report import print_table

    quick = "--quick" in sys.argv
    print_table(measure(quick), f"archive bombs ({'quick' if quick else 'full'})")


if __name__ == "__main__":
    main()
