"""Archives: every log comes back byte for byte, own or foreign, and own logs pack compactly."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_events import game_lines, make_game
from typer.testing import CliRunner

from buraco_events import archive
from buraco_events.archive import ArchiveError, iter_archive, pack, unpack
from buraco_events.events import decode_event, line_hash
from buraco_events.log import check_lines, iter_logs, write_log
from cli.main import app


def files_under(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def round_trip(tmp_path: Path, logs: dict[str, bytes]) -> archive.PackResult:
    """Pack `logs` (name -> file bytes), unpack them elsewhere and assert nothing changed."""
    src, out = tmp_path / "src", tmp_path / "out"
    for name, data in logs.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_bytes(data)
    result = pack(src, tmp_path / "games.bza")
    assert unpack(tmp_path / "games.bza", out).logs == len(logs)
    assert files_under(out) == files_under(src)
    return result


def joined(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


def test_own_logs_come_back_byte_for_byte_all_compact(tmp_path: Path) -> None:
    logs = {f"g{i}.jsonl": joined(game_lines(i, hands=2, turns=24)) for i in range(12)}
    logs["sub/dir/late.jsonl"] = joined(game_lines(99))
    result = round_trip(tmp_path, logs)
    assert result.logs == 13 and result.verbatim == 0
    assert result.events == sum(d.count(b"\n") for d in logs.values())
    assert result.input_bytes == sum(map(len, logs.values()))


def test_own_logs_take_at_most_4_bytes_per_event(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for i in range(20):  # about 80 events per hand, as in real games
        write_log(src / f"g{i:02d}.jsonl", make_game(i, hands=2, turns=33))
    result = pack(src, tmp_path / "games.bza")
    assert result.events > 3000
    assert result.bytes_per_event <= 4.0, result


def _foreign(line: bytes, **dumps: object) -> bytes:
    """Return a line as another program could write it: json.dumps with its own options."""
    return json.dumps(json.loads(line), **dumps).encode()  # type: ignore[arg-type]


def test_foreign_logs_come_back_byte_for_byte(tmp_path: Path) -> None:
    lines = game_lines(1, turns=16)
    reordered = [json.dumps(dict(reversed(json.loads(x).items()))).encode() for x in lines]
    unsealed = [msgspec.json.encode(msgspec.structs.replace(decode_event(x), prev=None))
                for x in lines]
    extra = [x[:-1] + b',"server":"eu-1","latency_ms":12}' for x in lines]
    lenient = [x.replace(b'"10H"', b'"th"').replace(b'"AS"', b'"a\xe2\x99\xa0"') for x in lines]
    broken = list(lines)
    broken[4] = broken[4].replace(b'"player":0', b'"player":1')  # the chain no longer holds
    logs = {
        "spaces.jsonl": joined([_foreign(x) for x in lines]),
        "indent.jsonl": joined([_foreign(x, indent=None, separators=(", ", ": ")) for x in lines]),
        "reordered.jsonl": joined(reordered),
        "unsealed.jsonl": joined(unsealed),
        "extra-fields.jsonl": joined(extra),
        "lenient-cards.jsonl": joined(lenient),
        "broken-chain.jsonl": joined(broken),
        "crlf.jsonl": b"".join(x + b"\r\n" for x in lines),
        "torn.jsonl": joined(lines[:5]) + lines[5][:20],
        "no-final-newline.jsonl": joined(lines[:-1]) + lines[-1],
        "bad-lines.jsonl": joined([lines[0], b"", b"not json", b"\xff\xfe", b"[1,2]", lines[1]]),
        "empty.jsonl": b"",
        "mixed.jsonl": joined(lines[:3] + [_foreign(lines[3])] + lines[4:]),
    }
    result = round_trip(tmp_path, logs)
    assert 0 < result.verbatim < result.events
    assert check_lines(next(lines for name, lines in iter_archive(tmp_path / "games.bza")
                            if name == "unsealed.jsonl")).sealed is False


def test_timestamps_come_back_in_every_form(tmp_path: Path) -> None:
    times = ["2026-11-29T17:53:40Z", "2026-11-29T17:53:41.5Z", "2026-11-29T17:53:41.500Z",
             "2026-11-29T17:53:40.123456789Z", "2026-11-29T18:00:00+00:00", "yesterday",
             "2026-11-29T17:53:42.001Z", "2026-12-31T23:59:60Z", "0000-01-01T00:00:00Z"]
    events = make_game(2, turns=len(times))
    timed = [msgspec.structs.replace(e, at=times[i % len(times)]) for i, e in enumerate(events)]
    src = tmp_path / "src"
    src.mkdir()
    write_log(src / "timed.jsonl", timed)
    result = round_trip(tmp_path, {"timed.jsonl": (src / "timed.jsonl").read_bytes()})
    assert result.verbatim == 0  # odd times stay strings inside compact records


def test_an_archive_is_read_like_a_folder_of_logs(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for i in range(3):
        write_log(src / f"g{i}.jsonl", make_game(i))
    (src / "torn.jsonl").write_bytes(joined(game_lines(5)[:2]) + b'{"ty')
    pack([src / "g0.jsonl", src / "g1.jsonl", src / "g2.jsonl", src / "torn.jsonl"],
         tmp_path / "a.bza")
    assert archive.is_archive(tmp_path / "a.bza") and not archive.is_archive(src / "g0.jsonl")
    from_folder = [(Path(n).name, list(x), x.tail) for n, x in iter_logs(src)]
    from_archive = [(n, list(x), x.tail) for n, x in iter_logs(tmp_path / "a.bza")]
    assert [n.split("/")[-1] for n, _, _ in from_archive] == [n for n, _, _ in from_folder]
    assert [x[1:] for x in from_archive] == [x[1:] for x in from_folder]
    assert from_archive[0][0] == f"{tmp_path / 'a.bza'}/g0.jsonl"
    heads = [check_lines(lines).head for name, lines in iter_archive(tmp_path / "a.bza")
             if name != "torn.jsonl"]
    assert heads == [line_hash(game_lines(i)[-1]) for i in range(3)]


def test_unpack_does_not_overwrite(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    write_log(tmp_path / "src" / "g.jsonl", make_game(1))
    pack(tmp_path / "src", tmp_path / "a.bza")
    with pytest.raises(ArchiveError, match="already exists"):
        unpack(tmp_path / "a.bza", tmp_path / "src")
    assert unpack(tmp_path / "a.bza", tmp_path / "src", overwrite=True).logs == 1


def test_duplicate_names_are_refused(tmp_path: Path) -> None:
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        write_log(tmp_path / d / "g.jsonl", make_game(1))
    with pytest.raises(ArchiveError, match="two logs would be named 'g.jsonl'"):
        pack([tmp_path / "a" / "g.jsonl", tmp_path / "b" / "g.jsonl"], tmp_path / "x.bza")
    assert not (tmp_path / "x.bza").exists()


@pytest.fixture
def packed(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    for i in range(4):
        write_log(tmp_path / "src" / f"g{i}.jsonl", make_game(i))
    pack(tmp_path / "src", tmp_path / "a.bza")
    return tmp_path / "a.bza"


def test_a_truncated_archive_is_an_error(packed: Path) -> None:
    data = packed.read_bytes()
    packed.write_bytes(data[: len(data) - 30])
    with pytest.raises(ArchiveError, match="truncated|corrupt"):
        list(iter_archive(packed))


def test_a_changed_byte_in_an_archive_is_an_error(packed: Path) -> None:
    data = bytearray(packed.read_bytes())
    data[len(data) // 2] ^= 0x40
    packed.write_bytes(bytes(data))
    with pytest.raises(ArchiveError, match="corrupt"):
        list(iter_archive(packed))


def test_not_an_archive_or_another_format_version(packed: Path, tmp_path: Path) -> None:
    with pytest.raises(ArchiveError, match="not a buraco archive"):
        list(iter_archive(tmp_path / "src" / "g0.jsonl"))
    data = bytearray(packed.read_bytes())
    data[len(archive.MAGIC)] = 9
    packed.write_bytes(bytes(data))
    with pytest.raises(ArchiveError, match="archive format 9, this version reads 1"):
        list(iter_archive(packed))


def test_unsafe_names_are_refused_on_unpack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "src").mkdir()
    write_log(tmp_path / "src" / "g.jsonl", make_game(1))
    monkeypatch.setattr(archive, "log_sources",
                        lambda paths: [("../escape.jsonl", tmp_path / "src" / "g.jsonl")])
    pack(tmp_path / "src", tmp_path / "evil.bza")
    with pytest.raises(ArchiveError, match="unsafe log name"):
        unpack(tmp_path / "evil.bza", tmp_path / "out")
    assert not (tmp_path / "escape.jsonl").exists()


line_bytes = st.binary(max_size=40).map(lambda b: b.replace(b"\n", b""))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(game_lines(3, turns=6)) | line_bytes, max_size=8), line_bytes)
def test_any_bytes_come_back(tmp_path_factory: pytest.TempPathFactory, lines: list[bytes],
                             tail: bytes) -> None:
    tmp = tmp_path_factory.mktemp("any")
    round_trip(tmp, {"x.jsonl": joined(lines) + tail})


# -- the `buraco archive` commands ---------------------------------------------------------------

runner = CliRunner(env={"COLUMNS": "200", "NO_COLOR": "1"})


def test_archive_pack_and_unpack_commands(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "deep").mkdir(parents=True)
    write_log(src / "g1.jsonl", make_game(1))
    write_log(src / "deep" / "g2.jsonl", make_game(2))
    result = runner.invoke(app, ["archive", "pack", str(src), "-o", str(tmp_path / "a.bza")])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"{tmp_path / 'a.bza'}: 2 logs, ")
    assert "bytes/event (0 lines kept verbatim)" in result.stdout
    result = runner.invoke(app, ["archive", "unpack", str(tmp_path / "a.bza"), "-o",
                                 str(tmp_path / "out")])
    assert result.exit_code == 0 and result.stdout.startswith(f"{tmp_path / 'out'}: 2 logs")
    assert files_under(tmp_path / "out") == files_under(src)
    again = runner.invoke(app, ["archive", "unpack", str(tmp_path / "a.bza"), "-o",
                                str(tmp_path / "out")])
    assert again.exit_code == 1 and "already exists and is not empty" in again.stderr
    # input that cannot be read is exit 2, as in every command
    wrong = runner.invoke(app, ["archive", "unpack", str(src / "g1.jsonl"), "-o", str(tmp_path)])
    assert wrong.exit_code == 2 and "not a buraco archive" in wrong.stderr
    missing = runner.invoke(app, ["archive", "pack", str(tmp_path / "none"), "-o", "x.bza"])
    assert missing.exit_code == 2 and "no such file or folder" in missing.stderr


def test_one_archived_log_reads_by_its_archive_path(tmp_path: Path) -> None:
    # `ARCHIVE.bza/NAME` names one log inside an archive: read_log gives the very same events and
    # lines as the file that was packed, and `buraco replay` shows it like a file
    from conftest import random_game

    from buraco_events.log import read_log

    src = tmp_path / "src"
    (src / "deep").mkdir(parents=True)
    game = random_game("fechado", 4, 3)
    write_log(src / "g1.jsonl", game)
    write_log(src / "deep" / "g2.jsonl", make_game(2))
    pack(src, tmp_path / "a.bza")
    for name in ("g1.jsonl", "deep/g2.jsonl"):
        assert list(read_log(tmp_path / "a.bza" / name)) == list(read_log(src / name))
    with pytest.raises(FileNotFoundError, match="no log 'nope.jsonl' in the archive"):
        list(read_log(tmp_path / "a.bza" / "nope.jsonl"))
    result = CliRunner().invoke(app, ["replay", str(tmp_path / "a.bza" / "g1.jsonl"), "--json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["last_seq"] == len(game) - 1
    missing = CliRunner().invoke(app, ["replay", str(tmp_path / "a.bza" / "nope.jsonl")])
    assert missing.exit_code == 2 and "no log 'nope.jsonl' in the archive" in missing.stderr
