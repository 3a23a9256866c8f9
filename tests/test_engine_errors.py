"""The checks of a meld and a lay-off return their error (`playcheck._melded`, `playcheck._laid_off`)
and `check` raises it: the same rule, one source.

`checked_play` and the look-ahead ask the returning checks (compiled, an error raised and caught
costs more than the check), so here, at every play of sample games, each candidate play and
some broken ones get from them exactly the error `check` raises (message and public text), or
None where `check` passes. The lay-off's grown meld comes from the meld's kept entry
(`playcheck.meld_entry`, `MeldFits.grown`): it is `classify` of the meld's cards and the lay-off's,
what the check classified before (RULES 3.4).
"""

from __future__ import annotations

import copy
import pickle
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from buraco_events.bots.registry import GreedyBot, run_game
from buraco_events.core import gate, playcheck
from buraco_events.core.cards import make_deck
from buraco_events.core.engine import check, play
from buraco_events.core.fits import meld_fits
from buraco_events.core.gate import IllegalMove
from buraco_events.core.melds import classify
from buraco_events.core.playcheck import checked_play, meld_entry
from buraco_events.core.plays import raw_plays
from buraco_events.core.state import GameState, RulesContext
from buraco_events.model.events import Event, LaidOff, Melded
from buraco_events.model.rules import find_rules

#: (variant, players, target): open and closed piles, both pile_top_use kinds, sets or none
MIX = (("stbl", 2, 0), ("fechado", 2, 2000), ("burraco", 4, 2000), ("stcl", 2, 0), ("aberto", 2, 2000))
DECK = make_deck(4)


def game(i: int) -> list[Event]:
    variant, players, target = MIX[i % len(MIX)]
    return run_game(variant, players, i, [GreedyBot() for _ in range(players)], f"e{i}", target=target)[0]


def raised(state: GameState, ev: Event) -> IllegalMove | None:
    """Return the error `check` raises for `ev`, or None."""
    try:
        check(state, ev)
    except IllegalMove as exc:
        return exc
    return None


def returned(state: GameState, ev: Melded | LaidOff) -> IllegalMove | None:
    """Return the error of the refusal the returning check of `ev` gives (`Refusal.error`)."""
    refusal = playcheck._melded(state, ev) if isinstance(ev, Melded) else playcheck._laid_off(state, ev)
    if not isinstance(refusal, gate.Refusal):
        return None
    err = refusal.error()
    assert err.reason == refusal.reason and err.phase == refusal.phase == state.phase
    return err


def broken(state: GameState, ev: Melded | LaidOff, rng: random.Random) -> list[Melded | LaidOff]:
    """Plays like `ev` that break a rule or may: a card swapped, one more, another meld, another seat."""
    cards = list(ev.cards)
    out: list[Melded | LaidOff] = [
        _replace(ev, cards=(*cards, rng.choice(DECK))),
        _replace(ev, cards=tuple(cards[:-1])),
        _replace(ev, player=(ev.player + 1) % len(state.players)),
    ]
    cards[rng.randrange(len(cards))] = rng.choice(DECK)
    out.append(_replace(ev, cards=tuple(cards)))
    if isinstance(ev, LaidOff):
        out.append(_replace(ev, meld=rng.randrange(len(state.melds) + 1)))
    else:
        out.append(_replace(ev, meld=ev.meld + 1))
    return out


def _replace(ev: Melded | LaidOff, **changes: object) -> Melded | LaidOff:
    fields = {"seq": ev.seq, "player": ev.player, "meld": ev.meld, "cards": ev.cards, **changes}
    return type(ev)(**fields)  # type: ignore[arg-type]


def assert_same_answer(state: GameState, ev: Melded | LaidOff) -> None:
    before = state.copy()
    want = raised(state, ev)
    got = returned(state, ev)
    assert state == before  # a check never changes the state
    if want is None:
        assert got is None
        return
    assert got is not None
    assert (str(got), got.public_text(), got.args) == (str(want), want.public_text(), want.args)


def assert_grown_as_classify(state: GameState, ev: LaidOff) -> None:
    """The meld a lay-off grows (its kept entry's `grown`) is `classify` of the meld's cards and
    the lay-off's; a lay-off passes only when that is a meld of the meld's type, and is refused
    by the shape rule only when it is not."""
    if state.phase != "play" or ev.player != state.to_play or ev.meld >= len(state.melds):
        return
    old = state.melds[ev.meld]
    shape = classify(old.cards + tuple(ev.cards), state.rules)
    found = playcheck._laid_off(state, ev)
    err = found if isinstance(found, gate.Refusal) else None
    words = f"adding {' '.join(ev.cards)} to meld {ev.meld} ({' '.join(old.cards)}) does not make a legal meld"
    assert meld_entry(old, state.rules).grown(tuple(ev.cards)) == shape
    if err is None:
        assert shape is not None and shape.type == old.shape.type
    elif err.reason == words:
        assert shape is None or shape.type != old.shape.type
    # a lay-off that passes returns the shape it makes, which `check` hands to `apply`
    if err is None:
        assert found == shape == check(state, ev)


@pytest.mark.slow
@settings(max_examples=10, deadline=None)
@given(st.integers(min_value=0, max_value=400), st.randoms(use_true_random=False))
def test_returning_checks_give_the_error_check_raises(i: int, rng: random.Random) -> None:
    state = GameState()
    for ev in game(i):
        if state.phase == "play":
            for kind, meld_id, cards in raw_plays(state):
                seq, player = state.next_seq, state.to_play
                cand: Melded | LaidOff = (
                    Melded(seq=seq, player=player, meld=len(state.melds), cards=cards) if kind == "meld"
                    else LaidOff(seq=seq, player=player, meld=meld_id or 0, cards=cards)
                )
                # `checked_play` offers a candidate exactly when `check` passes it
                assert (checked_play(state, (kind, meld_id, cards)) is None) == (raised(state, cand) is not None)
                assert_same_answer(state, cand)
                if isinstance(cand, LaidOff):
                    assert_grown_as_classify(state, cand)
                for bad in broken(state, cand, rng):
                    assert_same_answer(state, bad)
                    if isinstance(bad, LaidOff):
                        assert_grown_as_classify(state, bad)
        else:  # a play out of its phase: the phase's error, by either check
            seq, player = state.next_seq, getattr(ev, "player", 0)
            assert_same_answer(state, Melded(seq=seq, player=player, meld=len(state.melds), cards=("3S", "4S", "5S")))
            assert_same_answer(state, LaidOff(seq=seq, player=player, meld=0, cards=("3S",)))
        play(state, ev)


@pytest.mark.parametrize("phase", ["draw", "over"])
def test_a_play_out_of_phase_or_turn_keeps_its_words(phase: str) -> None:
    state, _ = _first_play()
    ev = LaidOff(seq=state.next_seq, player=state.to_play, meld=0, cards=("3S",))
    state.phase = phase  # type: ignore[assignment]
    want = ("the game is over" if phase == "over"
            else "laid_off is not allowed now; expected a draw (drew or took_pile)")
    err = playcheck._laid_off(state, ev)
    assert isinstance(err, gate.Refusal) and err.reason == want
    state.phase = "play"
    other = (state.to_play + 1) % len(state.players)
    err = playcheck._laid_off(state, _replace(ev, player=other))  # type: ignore[arg-type]
    assert isinstance(err, gate.Refusal) and err.reason == f"it is seat {state.to_play}'s turn, not seat {other}'s"
    err = playcheck._laid_off(state, _replace(ev, player=7))  # type: ignore[arg-type]
    assert isinstance(err, gate.Refusal) and err.reason == f"no seat 7 in a {len(state.players)}-player game"


def _first_play() -> tuple[GameState, LaidOff]:
    """Return the state just before the first lay-off of a sample game, and the lay-off."""
    for i in range(40):
        state = GameState()
        for ev in game(i):
            if isinstance(ev, LaidOff):
                return state, ev
            play(state, ev)
    raise AssertionError("no lay-off in the sample games")


def test_meld_entry_is_the_meld_fits_of_its_cards_kept_by_identity() -> None:
    state, ev = _first_play()
    rules = state.rules
    m = state.melds[ev.meld]
    entry = meld_entry(m, rules)
    assert entry is meld_fits(m.shape.cards, rules) and entry.shape == m.shape
    assert meld_entry(m, rules) is entry
    other = find_rules("burraco") if rules != find_rules("burraco") else find_rules("stbl")
    assert meld_entry(m, other).rules == other  # other rules: the entry of those rules
    # the lay-off replaces the meld: its entry is the grown meld's
    play(state, ev)
    grown = state.melds[ev.meld]
    assert meld_entry(grown, rules).shape == grown.shape == entry.grown(tuple(ev.cards))


def test_a_melds_kept_entry_is_no_part_of_its_value() -> None:
    # `meld_entry` keeps the entry on the meld: equality, hashing, repr and pickling ignore it
    state, ev = _first_play()
    m = state.melds[ev.meld]
    fresh = pickle.loads(pickle.dumps(m))
    assert fresh._fits is None
    meld_entry(m, state.rules)
    assert m._fits is not None
    assert m == fresh and hash(m) == hash(fresh) and repr(m) == repr(fresh)
    assert pickle.loads(pickle.dumps(m))._fits is None and copy.copy(m) == m


def test_grown_shape_is_classify_with_or_without_a_kept_entry() -> None:
    # RULES 3: a lay-off's meld is the classify of the meld's cards and the lay-off's; a meld with
    # no kept entry (a replay, an audit) gets none built, one with an entry grows from it
    state, ev = _first_play()
    rules, cards = state.rules, tuple(ev.cards)
    bare = pickle.loads(pickle.dumps(state.melds[ev.meld]))  # no entry kept
    want = classify(bare.cards + cards, rules)
    context = RulesContext(rules)
    assert playcheck.grown_shape(bare, cards, context) == want
    assert bare._fits is None
    meld_entry(bare, rules)
    assert playcheck.grown_shape(bare, cards, context) == want
    other = find_rules("burraco") if rules != find_rules("burraco") else find_rules("stbl")
    assert playcheck.grown_shape(bare, cards, RulesContext(other)) == classify(bare.cards + cards, other)
