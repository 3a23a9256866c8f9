"""The view's and the offer's shortcuts against the plain computations they replace (oracles):
`seatview._display_hand` is `sorted_cards` of the cards held, `moves.legal_discards` keeps the
cards `engine.check` accepts, `moves.legal_draws`'s draw passes it, and the table's kept
event-class test is `isinstance`."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from buraco_events.bots.registry import GreedyBot, RandomBot
from buraco_events.core.cards import make_deck, sorted_cards
from buraco_events.core.choices import legal_choices
from buraco_events.core.engine import check
from buraco_events.core.gate import IllegalMove
from buraco_events.core.seatview import _display_hand
from buraco_events.core.seeds import SharedStream
from buraco_events.core.state import GameState
from buraco_events.core.table import _CHECKED_WHEN_OFFERED, Table, _checked_when_offered
from buraco_events.core.turn import legal_discards, legal_draws
from buraco_events.model.events import Discarded, Drew
from buraco_events.model.rules import PRESETS


def _oracle_discards(state: GameState) -> list[Discarded]:
    """The discards `check` accepts, card by card in sorted order (no phase: none)."""
    if state.phase != "play":
        return []
    out = []
    for card in sorted(state.hands[state.to_play]):
        ev = Discarded(seq=state.next_seq, player=state.to_play, card=card)
        try:
            check(state, ev)
        except IllegalMove:
            continue
        out.append(ev)
    return out


@pytest.fixture(scope="module")
def decision_states() -> list[GameState]:
    """The states of every decision of greedy and random hands on every preset (2 and 4 seats)."""
    out: list[GameState] = []
    for i, variant in enumerate(PRESETS):
        for players, bots in ((2, [GreedyBot(), RandomBot()]), (4, [RandomBot(), GreedyBot()] * 2)):
            table = Table.start(variant, [f"p{s}" for s in range(players)], game_id="v", target=0,
                                seats=bots, rng=SharedStream(random.Random(100 + i * 7 + players)))
            while table.step() is not None:
                if table.to_move is not None:
                    out.append(table.state.copy())
    assert len(out) > 500
    return out


def test_legal_discards_are_the_cards_check_accepts(decision_states: list[GameState]) -> None:
    """At every decision of real hands (closed piles' tops waiting or due, single cards taken,
    last cards): the same discards as checking each card held."""
    phases: Counter[str] = Counter()
    for state in decision_states:
        assert legal_discards(state) == _oracle_discards(state)
        if state.phase == "play":
            phases["top_due" if state.top_due is not None else "single" if state.single_taken else "play"] += 1
    assert phases["play"] > 100 and phases["top_due"] + phases["single"] > 0


_DECK = make_deck(4)


def test_the_offered_draw_passes_check(decision_states: list[GameState]) -> None:
    """The table commits an offered draw unchecked (`table._CHECKED_WHEN_OFFERED`): `check`
    accepts each, and a draw is offered in most draw phases (no test if none were)."""
    draws = [ev for state in decision_states for ev in legal_draws(state) if type(ev) is Drew]
    assert len(draws) > 200
    for state in decision_states:
        for ev in legal_draws(state):
            if type(ev) is Drew:
                check(state, ev)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.data())
def test_legal_discards_on_any_hand(decision_states: list[GameState], data: st.DataObject) -> None:
    """A real play-phase state, the player to move holding any cards (one card: the closing
    rules), with or without a single card taken or a top due: the same discards as `check`."""
    plays = [s for s in decision_states if s.phase == "play"]
    state = data.draw(st.sampled_from(plays)).copy()
    picks = data.draw(st.lists(st.sampled_from(_DECK), min_size=1, max_size=6))
    state.hands[state.to_play] = dict(Counter(picks))
    state.single_taken = data.draw(st.sampled_from([None, picks[0], picks[-1]]))
    state.top_due = data.draw(st.sampled_from([None, None, picks[0]]))
    assert legal_discards(state) == _oracle_discards(state)


def test_display_hand_in_real_hands(decision_states: list[GameState]) -> None:
    """Every hand of every decision state shows as its cards sorted by `sorted_cards`."""
    for state in decision_states:
        for hand in state.hands:
            assert _display_hand(hand) == tuple(sorted_cards(Counter(hand).elements()))


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(_DECK), st.integers(min_value=-1, max_value=7), max_size=20))
def test_display_hand_with_any_counts(hand: dict[str, int]) -> None:
    """Any counts, past what a deck holds (the plain way) and below one (not shown)."""
    assert _display_hand(hand) == tuple(sorted_cards(Counter({c: n for c, n in hand.items() if n > 0}).elements()))


def test_checked_when_offered_is_isinstance(decision_states: list[GameState]) -> None:
    """The kept answer per event class is `isinstance(event, _CHECKED_WHEN_OFFERED)`, for the
    events offered in real hands and a subclass of an offered one (asked twice: kept answers)."""
    class Sub(Discarded):
        pass

    events = [Sub(seq=1, player=0, card="3H")]
    for state in decision_states[:200]:
        events.extend(ev for _, ev in legal_choices(state))
    assert len({type(e) for e in events}) >= 4
    for _ in range(2):
        for e in events:
            assert _checked_when_offered(e) is isinstance(e, _CHECKED_WHEN_OFFERED)
