"""Shared fixtures: seeded games played by uniformly random legal actions through the engine."""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import settings

# a loaded CI machine must not turn a slow example into a failure: no per-example deadline
settings.register_profile("buraco", deadline=None, print_blob=True)
settings.load_profile("buraco")

os.environ.setdefault("COLUMNS", "120")
os.environ.setdefault("NO_COLOR", "1")
os.environ.pop("FORCE_COLOR", None)
os.environ.pop("PY_COLORS", None)

from buraco_events.engine import (  # noqa: E402
    GameState,
    action_event,
    legal_actions,
    play,
    table_event,
)
from buraco_events.events import Event, GameStarted  # noqa: E402


def random_game(variant: str = "stbl", n_players: int = 2, seed: int = 0, target: int | None = None,
                max_events: int = 20000) -> list[Event]:
    """Play a whole game with uniformly random legal actions (plays preferred) and return its events."""
    rng = random.Random(seed)
    state = GameState()
    ev: Event = GameStarted(
        seq=0, game_id=f"test-{variant}-{n_players}p-{seed}", variant=variant,
        players=tuple(f"p{i}" for i in range(n_players)), target=target,
    )
    events = [ev]
    play(state, ev)
    while state.phase != "over" and len(events) < max_events:
        ev = table_event(state, rng)
        if ev is None:
            actions = legal_actions(state)
            plays = [a for a in actions if a.kind in ("meld", "add")]
            pick = rng.choice(plays) if plays and rng.random() < 0.8 else rng.choice(actions)
            ev = action_event(state, pick)
        play(state, ev)
        events.append(ev)
    return events


@pytest.fixture
def game_factory():
    """Return `random_game`, for tests that need whole legal games."""
    return random_game
