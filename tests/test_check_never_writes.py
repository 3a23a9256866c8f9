"""`check` never writes to the state it is given: over whole games (the samples, and random games of
every preset), every legal event and many illegal ones (other cards, seats, melds, deads, seqs)
leave the state equal to a deep snapshot taken before the check.

A second watch, in the pure build, catches a write even when it is undone before `check` returns
(a field set and restored): the state checked is a `GameState` whose every field assignment is
recorded.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest
from helpers import random_game

import buraco_events
from buraco_events.core.cards import ALL_CARDS
from buraco_events.core.engine import check, play
from buraco_events.core.gate import IllegalMove, rules_context
from buraco_events.core.moves import legal_events
from buraco_events.core.state import GameState
from buraco_events.log.sources import read_log
from buraco_events.model.events import Event
from buraco_events.model.rules import PRESETS

SAMPLES = sorted((Path(__file__).resolve().parents[1] / "data" / "samples").glob("*.jsonl"))
#: fields that hold caches, no part of the state's value: a check may fill them
CACHES = {"context", "scored"}


def snapshot(state: GameState) -> tuple[GameState, bytes]:
    """Return a deep copy of the state and its pickled bytes (hands' order of cards included)."""
    return copy.deepcopy(state), pickle.dumps(state)


def mutants(state: GameState, ev: Event, rng: random.Random) -> list[Event]:
    """Return events made from `ev` by changing one field: its cards, its seat, its meld, its dead,
    its seq; most are illegal, some are legal."""
    out: list[Event] = []
    fields = {f: getattr(ev, f) for f in ev.__struct_fields__}
    n = max(state.n_players, 1)
    out.append(msgspec.structs.replace(ev, seq=ev.seq + rng.choice((-1, 1))))
    if "player" in fields:
        out.append(msgspec.structs.replace(ev, player=(fields["player"] + rng.randrange(1, n + 1)) % (n + 1)))
    if "card" in fields:
        out.append(msgspec.structs.replace(ev, card=rng.choice(ALL_CARDS)))
    if "cards" in fields and fields["cards"]:
        cards = list(fields["cards"])
        swapped = cards.copy()
        swapped[rng.randrange(len(cards))] = rng.choice(ALL_CARDS)
        out.append(msgspec.structs.replace(ev, cards=tuple(swapped)))
        out.append(msgspec.structs.replace(ev, cards=tuple(cards[:-1])))
        out.append(msgspec.structs.replace(ev, cards=(*cards, rng.choice(ALL_CARDS))))
    if "meld" in fields:
        out.append(msgspec.structs.replace(ev, meld=rng.randrange(len(state.melds) + 2)))
    if "dead" in fields:
        out.append(msgspec.structs.replace(ev, dead=1 - fields["dead"]))
    return out


def assert_check_leaves(state: GameState, ev: Event) -> None:
    """Check `ev` (legal or not) and assert the state is as before, field by field and as bytes."""
    before, raw = snapshot(state)
    try:
        check(state, ev)
    except IllegalMove:
        pass
    assert state == before, f"check wrote to the state: {ev!r}"
    assert pickle.dumps(state) == raw, f"check wrote to the state: {ev!r}"


def walk(events: list[Event], seed: int, check_state=assert_check_leaves) -> int:
    """Fold the events; before each, check it, the legal events and mutants of both; return how
    many checks ran."""
    rng = random.Random(seed)
    state = GameState()
    checks = 0
    for ev in events:
        tried = [ev, *mutants(state, ev, rng)]
        for legal in legal_events(state)[:6]:
            tried += [legal, *mutants(state, legal, rng)]
        for candidate in tried:
            check_state(state, candidate)
            checks += 1
        play(state, ev)
    return checks


def test_check_never_writes_over_the_first_hands_of_two_games() -> None:
    """The quick form of the two tests below: the first 200 events of a sample and of a random
    game of a closed-pile preset."""
    sample = [event for _, _, event in read_log(SAMPLES[0])][:200]
    simulated = random_game("stcl", 2, seed=11, target=500)[:200]
    assert walk(sample, seed=1) > len(sample) and walk(simulated, seed=2) > len(simulated)


@pytest.mark.slow
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_check_never_writes_over_the_samples(path: Path) -> None:
    events = [event for _, _, event in read_log(path)]
    assert walk(events, seed=len(events)) > len(events)


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(PRESETS))
@pytest.mark.parametrize("players", [2, 4])
def test_check_never_writes_over_random_games(variant: str, players: int) -> None:
    events = random_game(variant, players, seed=11, target=500)
    assert walk(events, seed=players) > len(events)


# -- every assignment recorded (pure build: a compiled GameState takes no Python subclass) -------


class _Watched(GameState):
    """A `GameState` that records the name of every field assigned while `writes` is a list."""

    writes: list[str] | None

    def __setattr__(self, name: str, value: Any) -> None:
        watching = self.__dict__.get("writes")
        if watching is not None and name not in CACHES:
            watching.append(name)
        object.__setattr__(self, name, value)


def watched(state: GameState) -> _Watched:
    """Return a recording copy of the state (its own lists: the original is never touched)."""
    rules_context(state)  # the rules context is a cache the first check may fill: filled here
    source = state.copy()
    out = _Watched.__new__(_Watched)
    out.__dict__["writes"] = None
    for f in dataclasses.fields(GameState):
        object.__setattr__(out, f.name, getattr(source, f.name))
    out.__dict__["writes"] = []
    return out


def assert_check_assigns_nothing(state: GameState, ev: Event) -> None:
    w = watched(state)
    try:
        check(w, ev)
    except IllegalMove:
        pass
    assert w.__dict__["writes"] == [], f"check of {ev!r} assigned {w.__dict__['writes']}"
    assert_check_leaves(state, ev)


#: the watch needs a Python subclass of `GameState`, which a compiled `GameState` does not take
PURE_ONLY = pytest.mark.skipif(buraco_events.build() == "compiled", reason="a compiled GameState takes no Python subclass")


@PURE_ONLY
@pytest.mark.parametrize("variant", ["stbl", "stcl", pytest.param("fechado", marks=pytest.mark.slow),
                                     pytest.param("aberto", marks=pytest.mark.slow)])
def test_check_assigns_no_field_even_for_a_moment(variant: str) -> None:
    events = random_game(variant, 2, seed=5, target=500)[:300]
    assert walk(events, seed=3, check_state=assert_check_assigns_nothing) > len(events)


@PURE_ONLY
def test_the_watch_sees_a_field_set_and_restored() -> None:
    """The recording state catches a write undone before the end (what the watch is for)."""
    state = GameState()
    w = watched(state)
    saved = w.phase
    w.phase = "play"
    w.phase = saved
    assert w.phase == state.phase and w.__dict__["writes"] == ["phase", "phase"]
