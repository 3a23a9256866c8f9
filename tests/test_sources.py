"""Log sources and the one event reader: every kind of path, every error policy, one torn message,
and no import cycle among the package's modules."""

from __future__ import annotations

import ast
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

import buraco_events
from buraco_events.analytics.ingest import index
from buraco_events.audit.files import audit_path
from buraco_events.log.archive import pack
from buraco_events.log.lines import LogError, NotALogError, RawLines, TornTailError, torn_error
from buraco_events.log.reader import Collect, EventReader
from buraco_events.log.sources import iter_logs, open_source, read_log
from buraco_events.model.events import Note, encode_event, line_hash
from buraco_events.views.replays import load
from cli.main import app

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "data" / "samples").glob("*.jsonl"))
runner = CliRunner()


def sample_lines(i: int = 0) -> list[bytes]:
    """Return the stored lines of a legal, complete, sealed sample log."""
    return SAMPLES[i].read_bytes().splitlines()


def write(path: Path, lines: list[bytes], tail: bytes = b"") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(line + b"\n" for line in lines) + tail)
    return path


def read_all(lines: RawLines) -> tuple[list[int], list[LogError]]:
    """Read with the collecting policy; return the seqs yielded and the problems met."""
    policy = Collect()
    seqs = [event.seq for _, _, event in EventReader(lines, policy)]
    return seqs, policy.errors


# -- sources -------------------------------------------------------------------------------------


def test_every_kind_of_source_gives_the_same_names_and_lines(tmp_path: Path) -> None:
    src = tmp_path / "src"
    write(src / "b" / "z.jsonl", sample_lines(1))
    write(src / "a.jsonl", sample_lines(0), tail=b'{"ty')
    (src / "notes.txt").write_text("not a log")
    # a folder: its *.jsonl, recursive and sorted, named by their paths
    found = [(name, list(lines), lines.tail) for name, lines in iter_logs(src)]
    assert found == [(str(src / "a.jsonl"), sample_lines(0), b'{"ty'),
                     (str(src / "b" / "z.jsonl"), sample_lines(1), b"")]
    # a file: the one log, named as given
    assert [(n, list(x)) for n, x in iter_logs(src / "b" / "z.jsonl")] == [
        (str(src / "b" / "z.jsonl"), sample_lines(1))]
    # an archive: its logs in stored order, named ARCHIVE.bza/NAME, with the very same lines
    pack(src, tmp_path / "a.bza")
    archived = [(name, list(lines), lines.tail) for name, lines in iter_logs(tmp_path / "a.bza")]
    assert archived == [(f"{tmp_path / 'a.bza'}/a.jsonl", sample_lines(0), b'{"ty'),
                        (f"{tmp_path / 'a.bza'}/b/z.jsonl", sample_lines(1), b"")]
    # ARCHIVE.bza/NAME: one member, the same lines as the file packed, under the name given
    member = open_source(tmp_path / "a.bza" / "b" / "z.jsonl")
    assert member.name == str(tmp_path / "a.bza" / "b" / "z.jsonl")
    assert list(member) == sample_lines(1) and not member.torn
    assert list(read_log(tmp_path / "a.bza" / "b/z.jsonl")) == list(read_log(src / "b" / "z.jsonl"))
    with pytest.raises(FileNotFoundError, match="no log 'nope.jsonl' in the archive"):
        open_source(tmp_path / "a.bza" / "nope.jsonl")


# -- the reader's policies -----------------------------------------------------------------------


def test_a_clean_log_reads_whole_under_both_policies() -> None:
    lines = sample_lines()
    strict = EventReader(RawLines("g", lines))
    assert [e.seq for _, _, e in strict] == list(range(len(lines)))
    status = strict.status()
    assert status.complete and status.sealed and status.events == len(lines)
    assert status.head == line_hash(lines[-1])
    seqs, errors = read_all(RawLines("g", lines))
    assert seqs == list(range(len(lines))) and errors == []


def test_a_torn_log_gives_its_events_then_one_torn_error() -> None:
    lines = sample_lines()
    torn = RawLines("t.jsonl", lines[:5], lines[5][:30])
    with pytest.raises(TornTailError) as exc:
        list(EventReader(torn))
    assert str(exc.value) == ("t.jsonl: line 6: torn last line (30 bytes without a final newline:"
                              " a write was cut short); `buraco log repair` truncates it after a"
                              " backup")
    seqs, errors = read_all(torn)
    assert seqs == [0, 1, 2, 3, 4]
    assert [type(e) for e in errors] == [TornTailError] and str(errors[0]) == str(exc.value)
    # with `tail`, the torn line is read too (it does not decode here), before the torn error
    policy = Collect()
    assert len(list(EventReader(torn, policy, tail=True))) == 5
    assert [type(e) for e in policy.errors] == [LogError, TornTailError]
    assert policy.errors[0].lineno == 6


def test_a_broken_chain_stops_strict_reading_and_is_reported_once_when_collecting() -> None:
    lines = sample_lines()
    changed = list(lines)
    changed[3] = changed[3].replace(b'"player":', b'"player": ', 1)  # same event, other bytes
    assert changed[3] != lines[3]
    reader = EventReader(RawLines("c.jsonl", changed))
    with pytest.raises(LogError, match=r"^c.jsonl: line 5 \(seq 4\): field prev: does not match "
                                       r"\(line 4 was changed or removed\)"):
        list(reader)
    assert reader.status().events == 4 and reader.status().head == line_hash(changed[3])
    seqs, errors = read_all(RawLines("c.jsonl", changed))
    # every event is read; only line 5's link breaks: the chain goes on from the stored line 4
    assert seqs == list(range(len(lines)))
    assert [(e.lineno, e.field) for e in errors] == [(5, "prev")]
    dropped = lines[:4] + lines[5:]  # a line removed: a seq gap, and the next link
    seqs, errors = read_all(RawLines("d.jsonl", dropped))
    assert [(e.lineno, e.field) for e in errors] == [(5, "seq")]
    assert "expected 4, got 5 (a gap)" in str(errors[0])


def test_nothing_may_follow_game_ended_under_either_policy() -> None:
    lines = sample_lines()
    last = msgspec.json.decode(lines[-1])
    assert last["type"] == "game_ended"
    after = [encode_event(Note(seq=len(lines) + i, prev=None, by="x", text="late")) for i in range(2)]
    extended = lines + after
    with pytest.raises(LogError, match=rf"note after game_ended \(seq {len(lines) - 1}\): nothing"
                                       " may follow game_ended"):
        list(EventReader(RawLines("e.jsonl", extended)))
    seqs, errors = read_all(RawLines("e.jsonl", extended))
    assert seqs == list(range(len(extended)))
    # each line after it is reported (the first also breaks the seal: it has no prev)
    assert [e.lineno for e in errors if "after game_ended" in e.message] == [
        len(lines) + 1, len(lines) + 2]


def test_input_that_is_not_a_log_ends_the_reading() -> None:
    policy = Collect()
    assert list(EventReader(RawLines("x", [b"hello", sample_lines()[0]]), policy)) == []
    assert [type(e) for e in policy.errors] == [NotALogError]
    with pytest.raises(NotALogError, match="empty file: not a log"):
        list(EventReader(RawLines("empty.jsonl", [])))


# -- one torn message everywhere -----------------------------------------------------------------


def test_every_command_words_a_torn_last_line_alike(tmp_path: Path) -> None:
    lines = sample_lines()
    path = write(tmp_path / "t.jsonl", lines[:6], lines[6][:40])
    message = torn_error(str(path), 7, lines[6][:40]).message
    assert message.startswith("torn last line (40 bytes without a final newline")
    check = runner.invoke(app, ["log", "check", str(path)])
    assert check.exit_code == 1 and check.stderr == f"error: {path}: line 7: {message}\n"
    loaded = load(path)  # replay: the events before it, then the error
    assert len(loaded.events) == 6 and loaded.error == f"{path}: line 7: {message}"
    (audit,) = audit_path(path)
    assert f"line 7: {message}" in [p.message for p in audit.report.problems]
    report = index([path], tmp_path / "x.duckdb")
    assert [r.reason for r in report.rejected] == [f"line 7: {message}"]


# -- no import cycle -----------------------------------------------------------------------------


def _module_names(folder: Path) -> dict[str, Path]:
    """Return the package's modules by dotted name under the package (`core.engine`), packages
    by their own name (`core`)."""
    names = {}
    for p in folder.rglob("*.py"):
        parts = p.relative_to(folder).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts:
            names[".".join(parts)] = p
    return names


def _imports(name: str, module: Path, modules: set[str]) -> set[str]:
    """Return the package's modules a module imports, at any depth of its code: `from .x`,
    `from . import x`, `from buraco_events.pkg.x import` and `import buraco_events.pkg.x`."""
    package = name.rpartition(".")[0] if module.name != "__init__.py" else name
    found: set[str] = set()

    def add(dotted: str) -> None:
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        if dotted:
            found.add(dotted)

    for node in ast.walk(ast.parse(module.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                stem = ".".join(filter(None, [base, node.module or ""]))
            elif node.module and node.module.startswith("buraco_events."):
                stem = node.module.removeprefix("buraco_events.")
            else:
                continue
            for alias in node.names:
                full = f"{stem}.{alias.name}" if stem else alias.name
                add(full if full in modules else stem)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("buraco_events."):
                    add(a.name.removeprefix("buraco_events."))
    return found


def test_no_import_cycle_among_the_package_modules() -> None:
    folder = Path(buraco_events.__file__).parent
    paths = _module_names(folder)
    modules = set(paths)
    graph = {m: _imports(m, paths[m], modules) - {m} for m in modules}
    # the parser sees imports of every form
    assert "log.archive_read" in graph["log.sources"] and "log.reader" in graph["log.sources"]
    assert "log.archive_read" not in graph["log.lines"] and "log.lines" in graph["log.archive_read"]
    assert "core.state" in graph["core.seatview"]
    done: set[str] = set()

    def visit(m: str, path: list[str]) -> None:
        if m in path:
            raise AssertionError(f"import cycle: {' -> '.join(path[path.index(m):] + [m])}")
        if m in done:
            return
        for n in sorted(graph[m]):
            visit(n, path + [m])
        done.add(m)

    for m in sorted(graph):
        visit(m, [])
    assert done == modules


def test_every_package_folder_ships_in_the_wheel() -> None:
    """pyproject's `packages` lists every folder of the package: a folder left out is missing from
    a wheel (an editable install would still find it)."""
    import tomllib

    folder = Path(buraco_events.__file__).parent
    listed = set(tomllib.loads((folder.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {"buraco_events." + ".".join(p.parent.relative_to(folder).parts) if p.parent != folder else "buraco_events"
             for p in folder.rglob("__init__.py") if "build" not in p.parts}
    assert found - listed == set()
