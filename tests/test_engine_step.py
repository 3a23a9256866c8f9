"""`engine.play` (check and apply fused) and the meld shape `check` returns to `apply`.

`play` is `check` then `apply` in one call, and the apply of a meld or lay-off takes the shape
the check of that event returned. Here the fused step, the two entry points and a bare apply (no
shape given: the cards classified again) replay the same games to equal states, the same illegal
events fail with the same error and leave the state alone, and apply lays the shape it is given.
"""

from __future__ import annotations

import random

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from buraco_events.bots.registry import GreedyBot, run_game
from buraco_events.core.engine import apply, check, play
from buraco_events.core.gate import IllegalMove
from buraco_events.core.melds import classify
from buraco_events.core.state import GameState
from buraco_events.model.events import Event, LaidOff, Melded

#: (variant, players, target): open and closed piles, both pile_top_use kinds, 2 and 4 seats
MIX = (("stbl", 2, 0), ("stbl", 4, 0), ("fechado", 2, 2000), ("burraco", 4, 2000))


def game(i: int) -> list[Event]:
    variant, players, target = MIX[i % len(MIX)]
    return run_game(variant, players, i, [GreedyBot() for _ in range(players)], f"g{i}", target=target)[0]


def fold_play(events: list[Event]) -> GameState:
    state = GameState()
    for ev in events:
        play(state, ev)
    return state


def fold_two(events: list[Event]) -> GameState:
    state = GameState()
    for ev in events:
        apply(state, ev, check(state, ev))
    return state


def fold_bare(events: list[Event]) -> GameState:
    """Apply without checking: every shape is classified by apply itself."""
    state = GameState()
    for ev in events:
        apply(state, ev)
    return state


@settings(max_examples=12, deadline=None)
@given(st.integers(min_value=0, max_value=400))
def test_play_two_steps_and_bare_apply_fold_to_equal_states(i: int) -> None:
    events = game(i)
    assert fold_play(events) == fold_two(events) == fold_bare(events)


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(st.integers(min_value=0, max_value=400), st.randoms(use_true_random=False))
def test_play_refuses_what_check_refuses_with_the_same_error(i: int, rng: random.Random) -> None:
    events = game(i)
    cut = rng.randrange(1, len(events))
    state = fold_play(events[:cut])
    good = events[cut]
    # a wrong seq, a wrong seat, and (for a play) other cards: each refused by both alike
    bad = [msgspec_replace(good, seq=good.seq + 1)]
    if hasattr(good, "player"):
        bad.append(msgspec_replace(good, player=(good.player + 1) % 4))  # type: ignore[attr-defined]
    if isinstance(good, (Melded, LaidOff)):
        bad.append(msgspec_replace(good, cards=(*good.cards, "JK")))
    for ev in bad:
        try:
            check(state, ev)
        except IllegalMove as exc:
            two: IllegalMove | None = exc
        else:
            two = None  # other cards may happen to be legal too: then both apply them alike
        before = state.copy()
        if two is None:
            assert play(state.copy(), ev) == apply(state.copy(), ev)
            continue
        with pytest.raises(IllegalMove) as fused:
            play(state, ev)
        assert str(fused.value) == str(two)
        assert fused.value.public_text() == two.public_text()
        assert state == before  # a refused event leaves the state alone


def msgspec_replace(ev: Event, **changes: object) -> Event:
    return msgspec.structs.replace(ev, **changes)


def _first_play(kind: type) -> tuple[GameState, Event]:
    """Return the state just before the first event of `kind` in a sample game, and the event."""
    for i in range(40):
        events = game(i)
        for k, ev in enumerate(events):
            if type(ev) is kind:
                return fold_play(events[:k]), ev
    raise AssertionError(f"no {kind.__name__} in the sample games")


@pytest.mark.parametrize("kind", [Melded, LaidOff])
def test_apply_takes_the_shape_check_found_and_classifies_without_it(kind: type) -> None:
    state, ev = _first_play(kind)
    shape = check(state, ev)
    assert shape is not None
    # given, the shape is the one laid (a wrong one here shows it is not recomputed)
    wrong = classify(("3S", "4S", "5S"), state.rules)
    assert wrong is not None and wrong != shape
    assert apply(state.copy(), ev, wrong).melds[ev.meld].shape is wrong  # type: ignore[attr-defined]
    # not given, the cards are classified again, to the shape check found
    assert apply(state.copy(), ev).melds[ev.meld].shape == shape  # type: ignore[attr-defined]
    assert apply(state.copy(), ev, shape) == play(state.copy(), ev)
