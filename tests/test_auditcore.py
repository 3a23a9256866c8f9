"""The audit's regular-line step (`auditcore.Regular`, compiled in the compiled build).

`Regular.run` takes runs of regular lines (a play event of the current contract that continues
the chain and passes the engine) and hands back the first other line untaken. Here it is run on
the sample logs directly: what it takes is exactly what the engine replays, it stops at every
kind of irregular line with the state untouched, and a changed byte in a sealed log stops it at
the changed line or the next. `test_audit_regular_lines` checks the audits it makes against the general
path's; the reader's side (`EventReader(fast=...)`) is checked at the end.
"""

from __future__ import annotations

import random
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from buraco_events.audit.auditcore import PLAIN, Regular
from buraco_events.core.engine import play
from buraco_events.core.state import GameState
from buraco_events.log.lines import MAX_LINE, RawLines
from buraco_events.log.reader import Collect, EventReader
from buraco_events.model.events import decode_canonical

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "data" / "samples").glob("*.jsonl"))[:6]


def lines_of(path: Path) -> list[bytes]:
    """Return a log file's lines without their newlines."""
    return path.read_bytes().split(b"\n")[:-1]


def start(lines: list[bytes]) -> tuple[Regular, int]:
    """Return a `Regular` over a fresh state with the log's leading non-plain lines played, and
    the index of the first plain line (the deal is line 2: runs start after it)."""
    state = GameState()
    i = 0
    while type(decode_canonical(lines[i])) not in PLAIN:
        play(state, decode_canonical(lines[i]))
        i += 1
    return Regular(state, decode_canonical, MAX_LINE, 3), i


def replayed(lines: list[bytes]) -> GameState:
    """Return the state after playing every line."""
    state = GameState()
    for line in lines:
        play(state, decode_canonical(line))
    return state


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_a_run_takes_the_play_lines_up_to_the_hand_end(path: Path) -> None:
    lines = lines_of(path)
    regular, i = start(lines)
    it = iter(lines[i:])
    taken, line = regular.run(it, lines[i - 1], i)
    assert taken > 50
    stop = i + taken
    assert line == lines[stop] and decode_canonical(line).__struct_config__.tag == "hand_ended"
    assert all(type(decode_canonical(x)) in PLAIN for x in lines[i:stop])
    assert regular.state == replayed(lines[:stop])
    assert (regular.last_line, regular.last_seq) == (lines[stop - 1], stop - 1)
    assert (regular.with_prev, regular.n_without_prev) == (taken, 0)
    assert next(it) == lines[stop + 1]  # the line handed back was taken from the iterator


def test_a_run_to_the_end_of_the_lines_hands_back_none() -> None:
    lines = lines_of(SAMPLES[0])
    regular, i = start(lines)
    assert regular.run(iter(lines[i:i + 5]), lines[i - 1], i) == (5, None)
    assert regular.run(iter([]), lines[i + 4], i + 5) == (0, None)
    assert regular.last_seq == i + 4  # an empty run remembers nothing new


def _edited(line: bytes, **fields: object) -> bytes:
    """Return the line with fields changed (None removes one), keys in their order."""
    raw = msgspec.json.decode(line)
    for name, value in fields.items():
        if value is None:
            del raw[name]
        else:
            raw[name] = value
    return msgspec.json.encode(raw)


def _lenient(line: bytes) -> bytes:
    """Return the line with its first card in lowercase, a form only the lenient decoder takes."""
    raw = msgspec.json.decode(line)
    if "cards" in raw:
        return _edited(line, cards=[raw["cards"][0].lower(), *raw["cards"][1:]])
    return _edited(line, card=raw["card"].lower())


#: irregular versions of a plain line (`before` is the line before it): each must stop a run
IRREGULAR = {
    "undecodable": lambda line, before: line[:-3],
    "lenient card": lambda line, before: _lenient(line),
    "too long": lambda line, before: line + b" " * MAX_LINE,
    "not plain": lambda line, before: before,
    "broken prev": lambda line, before: _edited(line, prev="f" * 64),
    "seq gap": lambda line, before: _edited(line, seq=msgspec.json.decode(line)["seq"] + 1),
    "illegal": lambda line, before: _edited(line, player=(msgspec.json.decode(line)["player"] + 1) % 4),
}


@pytest.mark.parametrize("kind", sorted(IRREGULAR))
def test_a_run_stops_at_an_irregular_line_and_leaves_it_untaken(kind: str) -> None:
    lines = lines_of(SAMPLES[1])
    regular, i = start(lines)
    k = next(j for j in range(i + 7, len(lines)) if b'"card' in lines[j])  # a line naming cards
    bad = IRREGULAR[kind](lines[k], lines[k - 1])
    assert bad != lines[k]
    taken, line = regular.run(iter([*lines[i:k], bad, *lines[k + 1:]]), lines[i - 1], i)
    assert (taken, line) == (k - i, bad)
    assert regular.state == replayed(lines[:k])  # the refused line changed nothing


def test_lines_without_prev_are_counted_and_the_first_ones_kept() -> None:
    lines = [_edited(x, prev=None) for x in lines_of(SAMPLES[0])]
    regular, i = start(lines)
    taken, _ = regular.run(iter(lines[i:]), lines[i - 1], i)
    assert (regular.with_prev, regular.n_without_prev) == (0, taken)
    assert regular.without_prev == [i, i + 1, i + 2]  # kept: 3
    regular.count_prev(99, "a" * 64)
    assert regular.with_prev == 1


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_a_changed_byte_stops_a_run_at_the_changed_line_or_the_next(seed: int) -> None:
    # any changed byte in a sealed log is detected: a run may take a changed line
    # only if it still decodes and plays, and then the next line's prev no longer links to it
    rng = random.Random(seed)
    lines = lines_of(rng.choice(SAMPLES))
    regular, i = start(lines)
    k = rng.randrange(i, i + 40)
    pos = rng.randrange(len(lines[k]))
    changed = bytearray(lines[k])
    changed[pos] = rng.choice([b for b in range(32, 127) if b != changed[pos]])
    tampered = [*lines[:k], bytes(changed), *lines[k + 1:]]
    taken, line = regular.run(iter(tampered[i:]), lines[i - 1], i)
    assert i + taken in (k, k + 1)
    assert line == tampered[i + taken]
    assert regular.state == replayed(tampered[:i + taken])


def test_a_fast_reader_counts_the_taken_lines_in_its_line_numbers() -> None:
    # every second line is taken by `fast`: errors and yielded lines keep their true numbers
    lines = lines_of(SAMPLES[0])[:10]
    lines[6] = b"not json"  # line 7

    def take_one(source):  # type: ignore[no-untyped-def]
        next(source, None)
        return 1, next(source, None)

    errors = Collect()
    read = [n for n, _, _ in EventReader(RawLines("x", lines), errors, chain=False, fast=take_one)]
    assert read == [1, 3, 5, 9]
    assert [e.lineno for e in errors.errors] == [7]


def test_a_fast_reader_leaves_the_chain_to_its_consumer() -> None:
    with pytest.raises(ValueError, match="chain=False"):
        EventReader(RawLines("x", []), fast=lambda source: (0, next(source, None)))
