"""A move visits few modules of the core: each rule's check and apply live together.

`engine.play` of every event of the sample games is traced (`sys.settrace`, pure build: compiled
functions are not traced) and the core modules it calls into are collected. The common path of
each kind of move (the path most of its events take) is held to the modules named here: a draw
and a discard go through the machine, the turn and the gate; a meld and a lay-off through the
machine, the play's check, the gate and the meld rule.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import buraco_events
from buraco_events.core.engine import play
from buraco_events.core.state import GameState
from buraco_events.log.sources import read_log

SAMPLES = sorted((Path(__file__).resolve().parents[1] / "data" / "samples").glob("*.jsonl"))
#: the modules of each kind of move's common path, in the order first called
COMMON = {
    "Drew": ("engine", "turn", "gate"),
    "Discarded": ("engine", "turn", "gate"),
    "Melded": ("engine", "playcheck", "gate", "melds"),
    "LaidOff": ("engine", "playcheck", "gate", "melds"),
}

pytestmark = pytest.mark.skipif(buraco_events.build() == "compiled", reason="compiled functions are not traced")


def core_paths() -> Counter[tuple[str, tuple[str, ...]]]:
    """Return how many events of each kind took each path (the core modules called, in order)."""
    paths: Counter[tuple[str, tuple[str, ...]]] = Counter()
    for sample in SAMPLES:
        state = GameState()
        for _, _, ev in read_log(str(sample)):
            visited: list[str] = []

            def tracer(frame: FrameType, event: str, arg: Any, visited: list[str] = visited) -> None:
                name = frame.f_code.co_filename
                if event == "call" and f"{Path('buraco_events', 'core')}" in name:
                    module = Path(name).stem
                    if module not in visited:
                        visited.append(module)

            sys.settrace(tracer)
            try:
                play(state, ev)
            finally:
                sys.settrace(None)
            paths[(type(ev).__name__, tuple(visited))] += 1
    return paths


def test_each_kind_of_move_takes_its_common_path_through_at_most_four_modules() -> None:
    paths = core_paths()
    for kind, modules in COMMON.items():
        taken = Counter({path: n for (k, path), n in paths.items() if k == kind})
        assert taken, kind
        common, _ = taken.most_common(1)[0]
        assert common == modules, (kind, taken.most_common(3))
        assert len(common) <= 4


def test_the_trace_sees_a_module_added_to_a_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # the probe can fail: a discard that asks the deal module on the way is seen there
    from buraco_events.core import deal, turn

    original = turn.apply_discarded

    def detour(state: GameState, ev: Any) -> None:
        deal.all_cards(state)
        original(state, ev)

    monkeypatch.setattr(turn, "apply_discarded", detour)
    from buraco_events.core import engine

    monkeypatch.setattr(engine, "apply_discarded", detour, raising=False)
    paths = core_paths()
    discards = Counter({path: n for (k, path), n in paths.items() if k == "Discarded"})
    assert "deal" in discards.most_common(1)[0][0]
