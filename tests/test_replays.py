"""`replays`: a log read for replay and share (its good events, sealed, head, first error) and the
error each view of it shows; and the one `read_log` of the package."""

from __future__ import annotations

import ast
from pathlib import Path

import msgspec
import pytest
from helpers import random_game

import buraco_events
from buraco_events.log.archive import pack
from buraco_events.log.lines import NotALogError
from buraco_events.log.reader import head
from buraco_events.log.writer import write_log
from buraco_events.model.events import Drew, Event
from buraco_events.views.projections import Timeline
from buraco_events.views.replays import error_for, load


@pytest.fixture(scope="module")
def game() -> list[Event]:
    return random_game("stbl", 2, 3)


def test_a_whole_log_loads_sealed_with_its_head_and_no_error(tmp_path: Path, game: list[Event]) -> None:
    path = tmp_path / "g.jsonl"
    write_log(path, game)
    loaded = load(path)
    unsealed = [msgspec.structs.replace(e, prev=None) for e in loaded.events]
    assert unsealed == game and loaded.sealed and loaded.error is None
    assert loaded.head == head(path)
    assert error_for(path, loaded, Timeline(loaded.events))(None) is None


def test_a_log_inside_an_archive_loads_as_its_file_does(tmp_path: Path, game: list[Event]) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    write_log(folder / "g.jsonl", game)
    pack(folder, tmp_path / "a.bza")
    assert load(tmp_path / "a.bza" / "g.jsonl") == load(folder / "g.jsonl")


def test_a_bad_line_keeps_the_events_before_it_and_its_error(tmp_path: Path, game: list[Event]) -> None:
    path = tmp_path / "g.jsonl"
    write_log(path, game)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:5]) + b"{not json}\n" + b"".join(lines[6:]))
    loaded = load(path)
    assert len(loaded.events) == 5 and loaded.error is not None and loaded.error.startswith(f"{path}: line 6")
    timeline = Timeline(loaded.events)
    assert {error_for(path, loaded, timeline)(seat) for seat in (None, 0, 1)} == {loaded.error}


def test_input_that_is_not_a_log_raises(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    with pytest.raises(NotALogError):
        load(path)


def test_an_illegal_event_is_named_in_the_words_each_view_may_read(tmp_path: Path, game: list[Event]) -> None:
    k = next(i for i, e in enumerate(game) if isinstance(e, Drew) and i > 10)
    drew = game[k]
    assert isinstance(drew, Drew)
    wrong = "JK" if drew.card != "JK" else "AS"
    path = tmp_path / "f.jsonl"
    write_log(path, [*game[:k], msgspec.structs.replace(drew, card=wrong)])
    loaded = load(path)
    assert loaded.error is None  # every line reads: the engine refuses the event
    errors = error_for(path, loaded, Timeline(loaded.events))
    referee = errors(None)
    assert referee is not None and referee.startswith(f"{path}: line {k + 1}: illegal event: ")
    assert drew.card in referee
    for seat in (0, 1):
        said = errors(seat)
        assert said is not None and drew.card not in said and wrong not in said.split(":", 3)[-1]


def test_the_package_has_one_read_log() -> None:
    folder = Path(buraco_events.__file__).parent
    defining = sorted(
        p.stem for p in folder.rglob("*.py")
        if any(isinstance(node, ast.FunctionDef) and node.name == "read_log"
               for node in ast.parse(p.read_text(encoding="utf-8")).body)
    )
    assert defining == ["sources"]
