"""The phase machine (`engine.FLOW`) owns the flow: `check`, `apply` and `play` go through it, its
fast path for the turn's common events decides as its rows do, and only the machine writes
`GameState.phase`.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import msgspec
import pytest
from helpers import random_game

from buraco_events.core import engine
from buraco_events.core.cards import ALL_CARDS
from buraco_events.core.engine import FLOW, check, play, step_by_table
from buraco_events.core.gate import TRANSITIONS, IllegalMove
from buraco_events.core.moves import legal_events
from buraco_events.core.state import GameState
from buraco_events.log.sources import read_log
from buraco_events.model.events import Event, HandEnded, Note

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "buraco_events" / "core"
SAMPLES = sorted((ROOT / "data" / "samples").glob("*.jsonl"))


def refusal(step, state: GameState, ev: Event) -> tuple[str, str] | None:
    """Return the error (referee's and public words) of a check, or None when it passes."""
    try:
        step(state, ev)
    except IllegalMove as exc:
        return str(exc), exc.public_text()
    return None


def check_by_table(state: GameState, ev: Event) -> object:
    if ev.seq != state.next_seq:
        return check(state, ev)  # the seq is checked before any row
    return step_by_table(state, ev, engine._CHECK)


def variants(state: GameState, ev: Event, rng: random.Random) -> list[Event]:
    """Return `ev`, the legal events, and events with another card, seat or meld."""
    out = [ev, *legal_events(state)[:4]]
    for base in list(out):
        fields = base.__struct_fields__
        if "card" in fields:
            out.append(msgspec.structs.replace(base, card=rng.choice(ALL_CARDS)))
        if "player" in fields:
            out.append(msgspec.structs.replace(base, player=(base.player + 1) % max(state.n_players, 1)))
        if "cards" in fields and base.cards:
            out.append(msgspec.structs.replace(base, cards=(*base.cards[1:], rng.choice(ALL_CARDS))))
        if "meld" in fields:
            out.append(msgspec.structs.replace(base, meld=base.meld + 1))
    out.append(Note(seq=ev.seq, by="referee", text="a note"))
    out.append(HandEnded(seq=ev.seq, hand=max(state.hand_no, 0), reason="stalemate", closed_by=None,
                          scores=(0, 0)))
    return out


def fold_both_ways(events: list[Event], seed: int) -> None:
    """Fold `events` by `play` (the fast path) and by the table alone; at every step the states
    are equal and every variant of the event is judged the same, in the same words."""
    rng = random.Random(seed)
    fast, slow = GameState(), GameState()
    for ev in events:
        for candidate in variants(fast, ev, rng):
            assert refusal(check, fast, candidate) == refusal(check_by_table, slow, candidate), candidate
        play(fast, ev)
        step_by_table(slow, ev)
        slow.next_seq = ev.seq + 1
        assert fast == slow


def test_the_fast_path_decides_as_the_table_over_a_sample_and_random_games() -> None:
    fold_both_ways([event for _, _, event in read_log(SAMPLES[0])][:300], seed=0)
    for variant in ("stcl", "aberto", "burraco"):
        fold_both_ways(random_game(variant, 4, seed=3, target=0), seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_the_fast_path_decides_as_the_table_over_every_sample(path: Path) -> None:
    fold_both_ways([event for _, _, event in read_log(path)], seed=2)


def test_each_phase_takes_the_events_its_words_name() -> None:
    """`gate.TRANSITIONS` (the words of a phase error) names exactly the classes with a row that
    applies in that phase, besides what comes outside the turn (notes, branches) and the end of a
    hand whose stock ran out."""
    for phase, transition in TRANSITIONS.items():
        applied = {cls for (p, cls), row in FLOW.items() if p == phase and row.apply is not None}
        outside = {cls.__name__ for cls in applied - set(transition.events)}
        assert set(transition.events) <= applied
        assert outside <= {"Note", "Branched", "HandEnded"}, (phase, outside)


#: the functions that may write `GameState.phase` (a `self.phase` is another class's): the machine's steps, and the copies (a state's
#: copies, and the trial of a take, a new state as the take leaves it)
PHASE_WRITERS = {("engine.py", "_step"), ("engine.py", "step_by_table"), ("turn.py", "trial_take"),
                 ("state.py", "shallow_copy")}


def test_only_the_machine_writes_the_phase() -> None:
    writers = set()
    for path in sorted(CORE.glob("*.py")):
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(fn):
                targets = node.targets if isinstance(node, ast.Assign) else (
                    [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else [])
                for target in targets:
                    for t in ast.walk(target):
                        if (isinstance(t, ast.Attribute) and t.attr == "phase"
                                and not (isinstance(t.value, ast.Name) and t.value.id == "self")):
                            writers.add((path.name, fn.name))
    assert writers == PHASE_WRITERS
