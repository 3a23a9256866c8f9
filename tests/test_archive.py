"""Archives: every log comes back byte for byte, own or foreign, and own logs pack compactly."""

from __future__ import annotations

import functools
import json
import tempfile
import tracemalloc
from pathlib import Path

import msgspec
import pytest
import zstandard
from helpers import game_lines, make_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from buraco_events.log import archive, archive_codec, archive_format
from buraco_events.log.archive import pack, unpack
from buraco_events.log.archive_format import ArchiveError
from buraco_events.log.archive_read import iter_archive
from buraco_events.log.reader import check_lines
from buraco_events.log.sources import iter_logs
from buraco_events.log.writer import write_log
from buraco_events.model.events import decode_event, line_hash
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
    data[len(archive_format.MAGIC)] = 9
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
    from helpers import random_game

    from buraco_events.log.sources import read_log

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


# -- hostile archives: bounded work, checked frames, typed errors ---------------------------------
#
# The archives below are written by hand, blob by blob, as a hostile program could: the reader
# must refuse each with an ArchiveError naming the archive and the member, within its limits.

_enc = msgspec.msgpack.Encoder()
SMALL = archive_format.Limits(member=256 * 1024, archive=4 * 1024 * 1024)


def _framed(blobs: list[bytes]) -> bytes:
    return b"".join(archive_format.LEN.pack(len(b)) + b for b in blobs)


def _header_blob(logs: int | None) -> bytes:
    header = archive_codec.header_tables() | ({} if logs is None else {"logs": logs})
    return _enc.encode([archive_format.HEADER, header])


@functools.cache
def _codec() -> archive_codec.Codec:
    return archive_codec.Codec(archive_codec.header_tables())


def _log_blob(name: str, lines: list[bytes], tail: bytes = b"") -> bytes:
    return archive_codec.log_blob(_codec(), name, lines, tail)[0]


def write_raw(path: Path, logs: list[tuple[str, list[bytes]]], *, count: int | None = -1,
              checksum: bool = True, end: bool = True, after: bytes = b"") -> Path:
    """Write an archive blob by blob: `count` in the header (-1: the true count, None: none)."""
    blobs = [_header_blob(len(logs) if count == -1 else count)]
    blobs += [_log_blob(name, lines) for name, lines in logs]
    if end:
        blobs.append(_enc.encode([archive_format.END, len(logs), sum(len(x) for _, x in logs)]))
    z = zstandard.ZstdCompressor(write_checksum=checksum)
    path.write_bytes(archive_format.MAGIC + bytes([archive_format.FORMAT]) + z.compress(_framed(blobs)) + after)
    return path


def write_bomb(path: Path, size: int) -> Path:
    """Write an archive of one log holding one line of `size` bytes of `x`, streamed (no copy)."""
    prefix = (b"\x96\x01" + _enc.encode("bomb.jsonl") + _enc.encode(b"\0" * 8) + b"\xc2\x91\xc6"
              + size.to_bytes(4, "big"))
    with open(path, "wb") as f:
        f.write(archive_format.MAGIC + bytes([archive_format.FORMAT]))
        z = zstandard.ZstdCompressor(level=1, write_checksum=True).stream_writer(f, closefd=False)
        z.write(_framed([_header_blob(1)]))
        z.write(archive_format.LEN.pack(len(prefix) + size + 2) + prefix)
        chunk = b"x" * (1 << 20)
        for _ in range(size >> 20):
            z.write(chunk)
        z.write(b"\xc4\x00")
        z.write(_framed([_enc.encode([archive_format.END, 1, 1])]))
        z.flush(zstandard.FLUSH_FRAME)
    return path


def read_peak(path: Path, limits: archive_format.Limits | None = None) -> tuple[Exception | None, int]:
    """Read every log of an archive; return the error (None if it read) and the peak memory."""
    tracemalloc.start()
    try:
        list(iter_archive(path, limits))
        error: Exception | None = None
    except ArchiveError as exc:
        error = exc
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return error, peak


def siblings(folder: Path) -> list[str]:
    """Return what an unpack into `folder` left beside it (a temporary folder must not remain)."""
    return sorted(p.name for p in folder.parent.iterdir() if p.name.startswith(f".{folder.name}."))


def test_a_log_far_over_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    # a small archive that restores to a huge log (a 256 MiB line in 25 KB) stops at the limit
    # per log, in bounded memory
    bomb = write_bomb(tmp_path / "bomb.bza", 256 << 20)
    assert bomb.stat().st_size < 64_000
    error, peak = read_peak(bomb)  # the default limits: 64 MiB per log
    assert isinstance(error, ArchiveError) and error.member == 1 and error.name is None
    assert "stored in 268,435,488 bytes, so it restores to more than 64 MiB, the limit per log" in str(
        error)
    assert "--max-member-size" in str(error) and error.exit_code == 2
    assert peak < 16 << 20, peak
    with pytest.raises(ArchiveError, match="the limit per log"):
        unpack(bomb, tmp_path / "out")
    assert not (tmp_path / "out").exists() and siblings(tmp_path / "out") == []


def test_a_log_that_restores_past_the_limit_stops_there(tmp_path: Path) -> None:
    # stored within the limit, but its lines restore to more: reading stops at the limit
    line = b"y" * 1000
    path = write_raw(tmp_path / "a.bza", [("g.jsonl", [line] * 300)])
    error, peak = read_peak(path, SMALL)
    assert isinstance(error, ArchiveError) and (error.member, error.name) == (1, "g.jsonl")
    assert "restores to more than 256 KiB, the limit per log" in str(error)
    assert peak < 4 << 20, peak
    raised = archive_format.Limits(member=1 << 20, archive=SMALL.archive)
    assert [len(list(x)) for _, x in iter_archive(path, raised)] == [300]


def test_a_flood_of_empty_lines_counts_each_line(tmp_path: Path) -> None:
    # 200,000 empty lines are 200 KB but cost what holding them costs: 64 bytes a line
    path = write_raw(tmp_path / "a.bza", [("g.jsonl", [b""] * 200_000)])
    error, peak = read_peak(path, archive_format.Limits(member=1 << 20))
    assert isinstance(error, ArchiveError)
    assert "200,000 lines: restores to more than 1 MiB, the limit per log" in str(error)
    assert peak < 8 << 20, peak


def test_a_flood_of_empty_logs_is_bounded_by_the_archive_limit(tmp_path: Path) -> None:
    # each log counts at least 4 KiB (a disk block): 4 MiB allows 1024 of them, not 2000
    path = write_raw(tmp_path / "a.bza", [(f"{i}.jsonl", []) for i in range(2000)])
    error, _ = read_peak(path, SMALL)
    assert isinstance(error, ArchiveError) and error.member == 1025
    assert "the archive restores to more than 4 MiB, the limit per archive" in str(error)
    assert "--max-archive-size" in str(error) and error.unread == 2000 - 1024
    with pytest.raises(ArchiveError, match="the limit per archive"):
        unpack(path, tmp_path / "out", limits=SMALL)
    assert not (tmp_path / "out").exists() and siblings(tmp_path / "out") == []


def test_limits_come_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_raw(tmp_path / "a.bza", [("g.jsonl", [b"z" * 100] * 50)])
    assert len(list(iter_archive(path))) == 1
    monkeypatch.setenv("BURACO_MAX_MEMBER_SIZE", "4KiB")
    with pytest.raises(ArchiveError, match="more than 4 KiB, the limit per log"):
        list(iter_archive(path))
    monkeypatch.setenv("BURACO_MAX_MEMBER_SIZE", "lots")
    with pytest.raises(ArchiveError, match="BURACO_MAX_MEMBER_SIZE: 'lots' is not a size"):
        list(iter_archive(path))


def test_pack_refuses_a_log_over_the_limit(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    write_log(tmp_path / "src" / "g.jsonl", make_game(1))
    with pytest.raises(ArchiveError, match="the limit per log") as info:
        pack(tmp_path / "src", tmp_path / "a.bza", limits=archive_format.Limits(member=4096))
    assert info.value.exit_code == 1 and not (tmp_path / "a.bza").exists()


# -- the frame: checksum, nothing after it, nothing cut --------------------------------------------


def test_the_frame_checksum_is_written_and_checked(packed: Path) -> None:
    data = packed.read_bytes()
    frame = data[len(archive_format.MAGIC) + 1:]
    assert zstandard.get_frame_parameters(frame).has_checksum
    bad = bytearray(data)
    bad[-1] ^= 0x01  # the checksum itself: every log still matches its digest
    packed.write_bytes(bytes(bad))
    with pytest.raises(ArchiveError, match="checksum") as info:
        list(iter_archive(packed))
    assert str(info.value).startswith(f"{packed}: after its 4 logs: corrupt archive")


def test_a_frame_without_checksum_is_refused(tmp_path: Path) -> None:
    # every archive pack has written carries one: a frame without it was made by another program
    path = write_raw(tmp_path / "a.bza", [("g.jsonl", game_lines(1))], checksum=False)
    with pytest.raises(ArchiveError, match="the zstd frame has no checksum") as info:
        list(iter_archive(path))
    assert info.value.member is None and info.value.exit_code == 2


@pytest.mark.parametrize("after", [
    zstandard.ZstdCompressor(write_checksum=True).compress(b"more"),  # a second frame
    b"\x50\x2a\x4d\x18\x04\x00\x00\x00data",  # a skippable frame
    b"\n",  # garbage
])
def test_anything_after_the_frame_is_an_error(tmp_path: Path, after: bytes) -> None:
    path = write_raw(tmp_path / "a.bza", [("g.jsonl", game_lines(1))], after=after)
    with pytest.raises(ArchiveError, match="bytes follow the compressed stream"):
        list(iter_archive(path))


@pytest.mark.parametrize("cut", [1, 4, 5, 40])
def test_a_cut_frame_is_an_error(packed: Path, cut: int) -> None:
    packed.write_bytes(packed.read_bytes()[:-cut])
    with pytest.raises(ArchiveError, match="truncated archive"):
        list(iter_archive(packed))


def test_header_and_end_marker_must_agree(tmp_path: Path) -> None:
    logs = [("a.jsonl", game_lines(1)), ("b.jsonl", game_lines(2))]
    with pytest.raises(ArchiveError, match="its header counts 3 logs"):
        list(iter_archive(write_raw(tmp_path / "count.bza", logs, count=3)))
    with pytest.raises(ArchiveError, match="ends without its end marker") as info:
        list(iter_archive(write_raw(tmp_path / "end.bza", logs, end=False)))
    assert str(info.value).startswith(f"{tmp_path / 'end.bza'}: after its 2 logs: ")


def test_an_archive_packed_before_the_count_still_reads(tmp_path: Path) -> None:
    logs = [("a.jsonl", game_lines(1)), ("b.jsonl", game_lines(2))]
    path = write_raw(tmp_path / "old.bza", logs, count=None)
    assert [(n, list(x)) for n, x in iter_archive(path)] == logs


def test_damage_names_the_member_and_what_was_not_read(tmp_path: Path) -> None:
    logs = [(f"g{i}.jsonl", game_lines(i, turns=40)) for i in range(6)]
    path = write_raw(tmp_path / "a.bza", logs)
    blobs = [_header_blob(6)] + [_log_blob(n, x) for n, x in logs]
    at = len(archive_format.MAGIC) + 1
    plain = _framed(blobs)
    start = len(_framed(blobs[:4])) + 40  # inside the 4th log (member 4, g3.jsonl)
    changed = plain[:start] + bytes([plain[start] ^ 0x01]) + plain[start + 1:]
    end = _framed([_enc.encode([archive_format.END, 6, sum(len(x) for _, x in logs)])])
    path.write_bytes(path.read_bytes()[:at] + zstandard.ZstdCompressor(write_checksum=True)
                     .compress(changed + end))
    read: list[str] = []
    with pytest.raises(ArchiveError) as info:
        for name, _ in iter_archive(path):
            read.append(name)
    assert read == ["g0.jsonl", "g1.jsonl", "g2.jsonl"]
    assert (info.value.member, info.value.name, info.value.total, info.value.unread) == (
        4, "g3.jsonl", 6, 3)
    assert str(info.value).startswith(f"{path}: member 4 ('g3.jsonl'): ")


# -- unpack: nothing outside, nothing through links, whole or not at all ----------------------------


def test_unpack_never_writes_through_a_link_in_the_folder(tmp_path: Path) -> None:
    # unpack never writes through a symlink already in the output folder
    victim = tmp_path / "victim.jsonl"
    victim.write_bytes(b"precious\n")
    (tmp_path / "elsewhere").mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "g.jsonl").symlink_to(victim)
    (out / "sub").symlink_to(tmp_path / "elsewhere")
    for name in ("g.jsonl", "sub/g.jsonl"):
        path = write_raw(tmp_path / "a.bza", [(name, game_lines(1))])
        with pytest.raises(ArchiveError, match="never replaces a file nor follows a link") as info:
            unpack(path, out, overwrite=True)
        assert info.value.exit_code == 1
    assert victim.read_bytes() == b"precious\n" and list((tmp_path / "elsewhere").iterdir()) == []
    with pytest.raises(ArchiveError, match="already exists and is not empty"):
        unpack(path, out)
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ArchiveError, match="is a link"):
        unpack(path, tmp_path / "link")
    assert siblings(out) == [] and siblings(tmp_path / "link") == []


@pytest.mark.parametrize("name", [".", "..", "", "/etc/x.jsonl", "a\\b.jsonl", "a\0.jsonl",
                                  "../x.jsonl", "a/../../x.jsonl", "a/./b.jsonl", "a//b.jsonl",
                                  "a/", "x" * 256])
def test_unpack_refuses_unsafe_names_before_writing(tmp_path: Path, name: str) -> None:
    path = write_raw(tmp_path / "a.bza", [("fine.jsonl", game_lines(1)), (name, game_lines(2))])
    with pytest.raises(ArchiveError, match="unsafe log name") as info:
        unpack(path, tmp_path / "out")
    assert (info.value.member, info.value.name, info.value.exit_code) == (2, name, 1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.bza"]  # nothing written anywhere


@pytest.mark.parametrize("names", [["g.jsonl", "g.jsonl"], ["a", "a/b.jsonl"],
                                   ["a/b.jsonl", "a"]])
def test_unpack_refuses_repeated_names_before_writing(tmp_path: Path, names: list[str]) -> None:
    # a duplicate member name is refused before anything is written: no partial unpack
    path = write_raw(tmp_path / "a.bza", [(n, game_lines(i)) for i, n in enumerate(names)])
    with pytest.raises(ArchiveError, match="the same name as member 1") as info:
        unpack(path, tmp_path / "out")
    assert info.value.member == 2 and info.value.exit_code == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.bza"]


def test_unpack_appears_whole_or_not_at_all(packed: Path, tmp_path: Path) -> None:
    out = tmp_path / "fresh"
    out.mkdir()  # an empty folder is taken as fresh
    result = unpack(packed, out)
    assert result.logs == 4 and files_under(out) == files_under(tmp_path / "src")
    assert siblings(out) == [] and oct(out.stat().st_mode & 0o777) != "0o700"
    data = bytearray(packed.read_bytes())
    data[len(data) // 2] ^= 0x40
    packed.write_bytes(bytes(data))
    with pytest.raises(ArchiveError, match="corrupt"):
        unpack(packed, tmp_path / "broken")
    assert not (tmp_path / "broken").exists() and siblings(tmp_path / "broken") == []


def test_unpack_into_the_current_empty_folder(packed: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    assert unpack(packed, ".").logs == 4
    assert files_under(tmp_path / "here") == files_under(tmp_path / "src")


def test_unpack_overwrite_adds_beside_and_never_replaces(packed: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "mine").mkdir(parents=True)
    (out / "mine" / "notes.txt").write_text("keep")
    assert unpack(packed, out, overwrite=True).logs == 4
    assert unpack(packed, out, overwrite=True).logs == 4  # the same bytes again: accepted
    (out / "g3.jsonl").write_bytes(b"other\n")
    (out / "g0.jsonl").unlink()
    with pytest.raises(ArchiveError, match="exists already with other content"):
        unpack(packed, out, overwrite=True)
    assert not (out / "g0.jsonl").exists()  # checked before any file was added
    assert (out / "g3.jsonl").read_bytes() == b"other\n" and siblings(out) == []


# -- fuzz: any bytes, any damage: an ArchiveError, never another exception, bounded memory ---------
#
# Documented errors: ArchiveError for anything in the file; OSError only when the file cannot be
# read at all (none here).


@functools.cache
def real_archive() -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp, "src")
        src.mkdir()
        for i in range(3):
            write_log(src / f"g{i}.jsonl", make_game(i, hands=2, turns=30))
        (src / "odd.jsonl").write_bytes(joined([b"", b"not json", game_lines(4)[0]]) + b"torn")
        pack(src, Path(tmp, "a.bza"))
        return Path(tmp, "a.bza").read_bytes()


def read_all(path: Path) -> list[tuple[str, list[bytes], bytes]] | ArchiveError:
    """Read an archive under SMALL limits within bounded memory; return its logs or its error."""
    tracemalloc.start()
    try:
        return [(n, list(x), x.tail) for n, x in iter_archive(path, SMALL)]
    except ArchiveError as exc:
        assert str(exc).startswith(str(path)) and "\n" not in str(exc)
        return exc
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 24 << 20, peak  # SMALL allows 256 KiB a log, 8 MiB per zstd step


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400), st.booleans())
def test_fuzz_any_bytes(tmp_path_factory: pytest.TempPathFactory, data: bytes, magic: bool) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "x.bza"
    path.write_bytes((archive_format.MAGIC + bytes([archive_format.FORMAT]) if magic else b"") + data)
    assert isinstance(read_all(path), ArchiveError)


mutation = st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 10**6), st.integers(1, 255)),
    st.tuples(st.just("cut"), st.integers(1, 10**6), st.just(0)),
    st.tuples(st.just("insert"), st.integers(0, 10**6), st.integers(0, 255)),
    st.tuples(st.just("append"), st.integers(0, 3), st.just(0)),
)


@pytest.mark.slow
@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(mutation, min_size=1, max_size=3))
def test_fuzz_damaged_archives(tmp_path_factory: pytest.TempPathFactory,
                               mutations: list[tuple[str, int, int]]) -> None:
    good = real_archive()
    data = bytearray(good)
    for kind, at, value in mutations:
        at %= len(data) + 1
        if kind == "flip" and at < len(data):
            data[at] ^= value
        elif kind == "cut":
            del data[len(data) - min(at, len(data)):]
        elif kind == "insert":
            data[at:at] = bytes([value])
        elif kind == "append":
            data += [zstandard.ZstdCompressor().compress(b"x" * 1000), b"\0",
                     good[len(archive_format.MAGIC) + 1:], b"\x50\x2a\x4d\x18\0\0\0\0"][value]
    path = tmp_path_factory.mktemp("fuzz") / "x.bza"
    path.write_bytes(bytes(data))
    reference = tmp_path_factory.mktemp("fuzz") / "good.bza"
    reference.write_bytes(good)
    result = read_all(path)
    # a change zstd ignores (a window size, a reserved bit) may leave the logs intact: then
    # exactly the same logs come back; anything else is an ArchiveError
    assert isinstance(result, ArchiveError) or result == read_all(reference)
    out = path.parent / "out"
    try:
        unpack(path, out, limits=SMALL)
    except ArchiveError:
        assert not out.exists()
    assert siblings(out) == []


# -- the commands on damaged archives: one line, the right exit code, every log accounted for ------


@pytest.fixture
def damaged(tmp_path: Path) -> Path:
    """An archive of 5 legal logs cut in its 3rd (g2.jsonl): the 2 before it read, 3 do not."""
    samples = sorted(Path(__file__).parent.parent.glob("data/samples/*.jsonl"))[:5]
    logs = [(f"g{i}.jsonl", p.read_bytes().splitlines()) for i, p in enumerate(samples)]
    path = write_raw(tmp_path / "d.bza", logs)
    plain = _framed([_header_blob(5)] + [_log_blob(n, x) for n, x in logs])
    cut = len(_framed([_header_blob(5)] + [_log_blob(n, x) for n, x in logs[:2]])) + 30
    at = len(archive_format.MAGIC) + 1
    path.write_bytes(path.read_bytes()[:at] + zstandard.ZstdCompressor(write_checksum=True)
                     .compress(plain[:cut]))
    return path


def test_commands_report_a_damaged_archive_in_one_line(damaged: Path, tmp_path: Path) -> None:
    line = f"error: {damaged}: member 3"
    for args in (["replay", f"{damaged}/g4.jsonl", "--static"],
                 ["log", "check", f"{damaged}/g4.jsonl"],
                 ["archive", "unpack", str(damaged), "-o", str(tmp_path / "out")],
                 ["archive", "list", str(damaged)]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr.startswith(line) and result.stderr.count("\n") == 1, result.stderr
        assert "Traceback" not in result.output
    ok = runner.invoke(app, ["log", "check", f"{damaged}/g1.jsonl"])  # before the damage
    assert ok.exit_code == 0, ok.output
    index = runner.invoke(app, ["index", str(damaged), "--db", str(tmp_path / "x.duckdb")])
    assert index.exit_code == 1 and f"rejected: {damaged}: member 3: truncated" in index.stderr
    assert "2 games added" in index.stdout


def test_audit_accounts_for_every_log_of_a_damaged_archive(damaged: Path) -> None:
    # a damaged archive: the logs before the damage are audited and the rest are counted as
    # unread, never left out in silence
    result = runner.invoke(app, ["audit", str(damaged)])
    assert result.exit_code == 2
    assert result.stdout.count("PASS") == 2 and "FAIL" not in result.stdout
    assert result.stderr.splitlines()[-1] == (
        f"2 logs audited: 2 pass, 0 fail, 3 unreadable ({damaged} is damaged at member 3 of 5)")


def test_archive_list_shows_names_events_heads(tmp_path: Path) -> None:
    logs = [("g1.jsonl", game_lines(1)), ("\x1b[2J[red]x\u202e.jsonl", game_lines(2))]
    path = write_raw(tmp_path / "a.bza", logs)
    result = runner.invoke(app, ["archive", "list", str(path)])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.stdout and "\u202e" not in result.stdout
    assert "\\x1b[2J[red]x\\u202e.jsonl" in result.stdout  # escaped, markup shown as text
    for _, lines in logs:
        assert line_hash(lines[-1]) in result.stdout.replace("\n", "").replace("│", "").replace(" ", "")
    assert result.stdout.splitlines()[-1] == (
        f"{path}: 2 logs, {sum(len(x) for _, x in logs)} events, "
        f"{sum(len(joined(x)) for _, x in logs):,} bytes")
    rows = [json.loads(x) for x in runner.invoke(app, ["archive", "list", str(path), "--json"])
            .stdout.splitlines()]
    assert rows == [{"name": n, "events": len(x), "bytes": len(joined(x)),
                     "head": line_hash(x[-1])} for n, x in logs]


def test_archive_limit_options(tmp_path: Path) -> None:
    path = write_raw(tmp_path / "a.bza", [("g.jsonl", game_lines(1, turns=40))])
    small = runner.invoke(app, ["archive", "unpack", str(path), "-o", str(tmp_path / "o"),
                                "--max-member-size", "8KiB"])
    assert small.exit_code == 2 and "more than 8 KiB, the limit per log" in small.stderr
    fine = runner.invoke(app, ["archive", "list", str(path), "--max-member-size", "1MiB",
                               "--max-archive-size", "1GB"])
    assert fine.exit_code == 0, fine.output
    bad = runner.invoke(app, ["archive", "list", str(path), "--max-archive-size", "big"])
    assert bad.exit_code == 2 and "--max-archive-size: 'big' is not a size" in bad.stderr


def test_archive_error_shows_quoted_input_escaped() -> None:
    """A decoder's message quoting a damaged field name (a byte flipped into a newline) stays one
    visible line: found by the damaged-archive fuzz test, `sch\\nma_version`."""
    from buraco_events.log.archive_format import ArchiveError

    err = ArchiveError("a.bra", "Unexpected keyword argument 'sch\nma_version'", member=1, name="x")
    assert "\n" not in str(err)
    assert "sch\\x0ama_version" in str(err)


def test_a_frame_asking_for_a_huge_window_is_damage_not_a_lack_of_memory(tmp_path) -> None:
    """A byte inserted in the frame header can claim a window past the format's bound: libzstd
    refuses it before allocating, and the archive is reported damaged (found by the fuzz test)."""
    import zstandard

    from buraco_events.log.archive_read import WINDOW_LOG, _Frame

    params = zstandard.ZstdCompressionParameters(window_log=WINDOW_LOG + 4)
    stream = zstandard.ZstdCompressor(compression_params=params).compressobj()  # no content size
    big = stream.compress(b"x" * 100) + stream.flush()
    path = tmp_path / "f.zst"
    path.write_bytes(big)
    with open(path, "rb") as f, pytest.raises(zstandard.ZstdError, match="damaged"):
        _Frame(f).read(10)
