"""The same words and exits across commands: a whole archive where one log is asked for, a missing
file, `--as` by index or name."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import random_game
from typer.testing import CliRunner

from buraco_events.log.archive import pack
from buraco_events.log.writer import write_log
from cli.main import app

runner = CliRunner()


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    """An archive of two logs, `games.bza`."""
    folder = tmp_path_factory.mktemp("arch")
    (folder / "logs").mkdir()
    for i in range(2):
        write_log(folder / "logs" / f"g{i}.jsonl", random_game("stbl", 2, i))
    pack([folder / "logs"], folder / "games.bza")
    return folder / "games.bza"


#: the commands that read one log, as `ARGS...` around the log's path
ONE_LOG = [
    ["replay", "{}"],
    ["share", "{}", "-o", "{out}"],
    ["log", "check", "{}"],
    ["log", "head", "{}"],
    ["log", "repair", "{}"],
    ["compare", "{}", "{}"],
]


def _args(template: list[str], path: Path, out: Path) -> list[str]:
    return [a.format(path, out=out) for a in template]


@pytest.mark.parametrize("template", ONE_LOG, ids=lambda t: " ".join(t[:2]))
def test_an_archive_where_one_log_is_asked_for_says_how_to_name_a_member(archive, tmp_path, template):
    before = archive.read_bytes()
    result = runner.invoke(app, _args(template, archive, tmp_path / "x.html"))
    assert result.exit_code == 2, result.output
    assert result.stderr == (f"error: {archive}: an archive: name a member ({archive}/NAME), see"
                             f" `buraco archive list {archive}`\n")
    assert archive.read_bytes() == before and not (tmp_path / "x.html").exists()


def test_a_branch_of_an_archive_says_so_too(archive, tmp_path):
    result = runner.invoke(app, ["branch", str(archive), "--at", "3", "-o", str(tmp_path / "b.jsonl"),
                                 "--by", "ana", "--reason", "what if"])
    assert result.exit_code == 2 and "an archive: name a member" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_a_member_of_the_archive_still_reads(archive):
    result = runner.invoke(app, ["replay", f"{archive}/g0.jsonl", "--static"])
    assert result.exit_code == 0, result.stderr
    result = runner.invoke(app, ["audit", str(archive)])  # a whole archive is logs to audit
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize("template", [*ONE_LOG, ["audit", "{}"], ["archive", "list", "{}"],
                                      ["index", "{}", "--db", "{out}"]],
                         ids=lambda t: " ".join(t[:2]))
def test_a_missing_file_is_said_the_same_way_everywhere(tmp_path, template):
    missing = tmp_path / "none.jsonl"
    result = runner.invoke(app, _args(template, missing, tmp_path / "out.x"))
    assert result.exit_code == 2, result.output
    assert "no such file or folder" in result.stderr
    assert "No such file" not in result.stderr and "directory" not in result.stderr


def test_replay_share_and_audit_take_a_seat_by_name(tmp_path):
    log = tmp_path / "g.jsonl"
    write_log(log, random_game("stbl", 2, 5))
    players = ["p0", "p1"]  # random_game's names
    replayed = runner.invoke(app, ["replay", str(log), "--as", players[1], "--json"])
    assert replayed.exit_code == 0 and '"seat":1' in replayed.stdout
    shared = runner.invoke(app, ["share", str(log), "--as", players[1], "-o", str(tmp_path / "p.html")])
    assert shared.exit_code == 0 and "seen by seat 1 (p1)" in shared.stdout
    audited = runner.invoke(app, ["audit", str(log), "--as", players[1]])
    assert audited.exit_code == 0, audited.stderr


def test_the_system_words_are_the_commands_and_a_reason_of_our_own_is_kept():
    import errno
    import os

    from cli.common import os_reason

    assert os_reason(FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), "x")) == "no such file or folder"
    assert os_reason(IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), "x")) == "is a folder"
    own = FileNotFoundError(errno.ENOENT, "no log 'x.jsonl' in the archive", "a.bza")
    assert os_reason(own) == "no log 'x.jsonl' in the archive"
