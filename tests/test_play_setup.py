"""The play session's library pieces: the setup note written and read back, and the key file
that keeps a game's salts secret beside its log and gives them back on resume."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import RenderableType
from rich.text import Text

from buraco_events.log.commit import keyed_salts
from buraco_events.model.events import Event, GameStarted, Note
from buraco_events.play.keys import key_path, read_key, write_key
from buraco_events.play.setup import NOTE_BY, Setup, SetupError
from cli.session import new_session, resume_session


@st.composite
def setups(draw: st.DrawFn) -> tuple[Setup, int]:
    """Draw a setup that fits its game: the human's seat and one bot name per other seat."""
    players = draw(st.sampled_from([2, 4]))
    human = draw(st.integers(0, players - 1))
    bots = draw(st.lists(st.text(max_size=12), min_size=players - 1, max_size=players - 1))
    seed = draw(st.integers(-(2**70), 2**70))
    return Setup(human, tuple(bots), seed, commit=draw(st.booleans())), players


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(setups())
def test_the_setup_note_reads_back_as_the_setup_it_records(drawn: tuple[Setup, int]) -> None:
    setup, players = drawn
    note = setup.note()
    assert note.seq == 1 and note.by == NOTE_BY
    assert Setup.from_note(note, players) == setup


@settings(max_examples=100, deadline=None)
@given(setups())
def test_the_setup_note_omits_commit_unless_the_deals_are_committed(drawn: tuple[Setup, int]) -> None:
    setup, _ = drawn
    assert ("commit" in json.loads(setup.note().text)) is setup.commit


NOT_SETUPS: dict[str, Event] = {
    "another writer's note": Note(seq=1, by="someone", text='{"human": 0, "bots": ["greedy"], "seed": 1}'),
    "not json": Note(seq=1, by=NOTE_BY, text="human 0"),
    "a missing field": Note(seq=1, by=NOTE_BY, text='{"human": 0, "bots": ["greedy"]}'),
    "a seat outside the game": Note(seq=1, by=NOTE_BY, text='{"human": 2, "bots": ["greedy"], "seed": 1}'),
    "too many bots": Note(seq=1, by=NOTE_BY, text='{"human": 0, "bots": ["a", "b"], "seed": 1}'),
    "not a note": GameStarted(seq=1, game_id="g", variant="stbl", players=("a", "b")),
}


@pytest.mark.parametrize("event", NOT_SETUPS.values(), ids=NOT_SETUPS.keys())
def test_what_is_not_a_setup_note_is_refused_in_one_line_with_exit_code_2(event: Event) -> None:
    with pytest.raises(SetupError) as raised:
        Setup.from_note(event, 2)
    assert raised.value.exit_code == 2 and "\n" not in str(raised.value) and "seq 1" in str(raised.value)


def test_a_key_reads_back_and_a_missing_or_garbled_key_file_reads_as_none(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl.key"
    assert read_key(path) is None
    write_key(path, b"\x00\xffsecret")
    assert read_key(path) == b"\x00\xffsecret"
    path.write_text("not hex\n")
    assert read_key(path) is None


def _quit_at_once(path: Path, said: list[RenderableType]) -> None:
    session = new_session("stbl", 2, 0, ["greedy"], 11, path, said.append)
    try:
        assert session.run(lambda state: "quit") is False
    finally:
        session.close()


def test_a_new_game_keeps_its_key_beside_the_log_readable_by_its_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    _quit_at_once(path, [])
    assert key_path(path) == tmp_path / "g.jsonl.key"
    assert os.stat(key_path(path)).st_mode & 0o777 == 0o600
    key = read_key(key_path(path))
    assert key is not None and len(key) == 32
    assert key.hex().encode() not in path.read_bytes()  # the key is never in the log


def test_a_resumed_game_reuses_the_key_file_for_its_salts(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    _quit_at_once(path, [])
    before = key_path(path).read_bytes()
    said: list[RenderableType] = []
    session = resume_session(path, said.append)
    try:
        key = read_key(key_path(path))
        assert key is not None and session.table.salts is not None
        assert [session.table.salts(h) for h in range(3)] == [keyed_salts(key)(h) for h in range(3)]
    finally:
        session.close()
    assert key_path(path).read_bytes() == before  # read, never rewritten
    assert not any("is missing" in str(line) for line in said)


def test_a_resumed_game_without_its_key_file_says_the_salts_are_lost(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    _quit_at_once(path, [])
    key_path(path).unlink()
    said: list[RenderableType] = []
    resume_session(path, said.append).close()
    missing = [line for line in said if isinstance(line, Text) and "is missing" in line.plain]
    assert len(missing) == 1 and "cannot be revealed" in missing[0].plain
