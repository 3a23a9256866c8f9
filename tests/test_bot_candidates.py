"""The bots' fast path against what it replaces: the table's own candidate list is the engine's
(`plays.raw_plays`, in the same order), `Choices.discard_actions` is `discards()` without its
events, and `player_view` is the view built field by field as before (kept below as the oracle)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from buraco_events.bots.registry import GreedyBot, RandomBot
from buraco_events.core.cards import make_deck
from buraco_events.core.choices import Choices, _play_action
from buraco_events.core.gate import team_of
from buraco_events.core.plays import raw_plays
from buraco_events.core.seatview import _display_hand, _meld_views
from buraco_events.core.seeds import SeedStreams, SharedStream
from buraco_events.core.sheets import hand_scores, table_scores
from buraco_events.core.state import PLAYING_PHASES, GameState
from buraco_events.core.table import Table
from buraco_events.model.rules import PRESETS
from buraco_events.views.projections import DeadView, PendingView, PileView, View, player_view


def _reference_view(state: GameState, seat: int | None = None, *, scores: bool = True) -> View:
    """`projections.player_view` built plainly, each dead's view made anew (the oracle)."""
    rules = state.rules
    playing = state.phase in PLAYING_PHASES
    hands: list[tuple[str, ...] | int] = []
    for s, h in enumerate(state.hands):
        if seat is None or s == seat or not playing:
            hands.append(_display_hand(h))
        else:
            hands.append(sum(h.values()))
    melds = _meld_views(state.melds, rules)
    pile_visible = seat is None or rules.pile == "open"
    pile = PileView(size=len(state.pile), top=state.pile[-1] if state.pile else None,
                    cards=tuple(state.pile) if pile_visible else None)
    deads = []
    for i, d in enumerate(state.deads.left):
        taker = state.deads.taker[i]
        if d is not None:
            deads.append(DeadView(taken_by=None, fate=None, cards=tuple(d) if seat is None else len(d)))
        else:
            unused = taker is not None and state.deads.unused[team_of(taker)] == taker
            deads.append(DeadView(taken_by=taker, fate=state.deads.fate[i], cards=0, unused=unused))
    pending = None
    if state.pending_top is not None:
        rest: tuple[str, ...] | int = (
            tuple(state.pending_rest) if seat is None or seat == state.to_play else len(state.pending_rest)
        )
        pending = PendingView(top=state.pending_top, rest=rest)
    counted = True
    if not scores:
        sheet, running, counted = (), tuple(state.totals), False
    elif state.phase in (*PLAYING_PHASES, "hand_end"):
        if seat is not None and playing:
            sheet, counted = table_scores(state), False
        else:
            sheet = hand_scores(state)
        running = tuple(t + sc.total for t, sc in zip(state.totals, sheet, strict=True))
    else:
        sheet = state.hand_results[-1] if state.hand_results else ()
        running = tuple(state.totals)
    return View(
        seq=state.next_seq - 1, game_id=state.game_id, variant=state.variant,
        players=state.players, seat=seat, hand=state.hand_no, to_play=state.to_play,
        phase=state.phase, hands=tuple(hands), melds=melds, pile=pile, stock=len(state.stock),
        deads=tuple(deads), pending=pending, top_due=state.top_due, scores=running, totals=tuple(state.totals),
        hand_scores=tuple(sheet), hands_counted=counted, winner=state.winner,
    )


def _assert_offer_is_the_engines(state: GameState) -> int:
    """Assert the table's candidates and discard actions equal the engine's; return how many
    candidates there were."""
    choices = Choices(state)
    candidates = choices.candidates()
    expected = raw_plays(state) if choices.phase == "play" else []
    assert choices._raw == expected
    assert candidates == [_play_action(play) for play in expected]
    full = Choices(state).discards()
    actions = choices.discard_actions()
    assert actions == [a for a, _ in full]
    for action, event in full:
        assert choices.event_of(action) == event
    return len(candidates)


def _play(variant: str, players: int, seed: int, bots: list, seen: list[GameState]) -> None:
    table = Table.start(variant, [f"b{i}" for i in range(players)], game_id="t", target=0,
                        seats=bots, rng=SeedStreams(seed))
    while table.step() is not None:
        if table.to_move is not None:
            seen.append(table.state.copy())


@pytest.mark.parametrize("variant", list(PRESETS))
def test_the_offer_and_the_views_equal_the_old_ones_in_real_hands(variant: str) -> None:
    """At every decision of greedy and random hands: the same candidates in the same order, the
    same discards, and for every seat (and the referee) the same view as the oracle's."""
    states: list[GameState] = []
    _play(variant, 2, 3, [GreedyBot(), GreedyBot()], states)
    _play(variant, 4, 5, [GreedyBot(), RandomBot(), GreedyBot(), RandomBot()], states)
    offered = 0
    for state in states:
        offered += _assert_offer_is_the_engines(state)
        for seat in (None, *range(len(state.players))):
            for scores in (True, False):
                assert player_view(state, seat, scores=scores) == _reference_view(state, seat, scores=scores)
    assert offered > 50


@pytest.fixture(scope="module")
def play_states() -> list[GameState]:
    """Play-phase states of random hands on every preset, with melds of both teams on the table."""
    out: list[GameState] = []
    for i, variant in enumerate(PRESETS):
        table = Table.start(variant, ["a", "b", "c", "d"], game_id="h", target=0,
                            seats=[RandomBot()] * 4, rng=SharedStream(random.Random(i)))
        while table.step() is not None:
            state = table.state
            if state.phase == "play" and table.to_move is not None and len(state.melds) >= 2:
                out.append(state.copy())
    assert len(out) > 100
    return out


_DECK = make_deck(4)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.data())
def test_candidates_equal_the_engines_on_any_hand(play_states: list[GameState], data: st.DataObject) -> None:
    """A table of a real hand, the player to move holding any cards (pairs, wilds, both aces):
    the table's candidates are `plays.raw_plays`, in its order, and so are its discards."""
    state = data.draw(st.sampled_from(play_states)).copy()
    picks = data.draw(st.lists(st.sampled_from(_DECK), min_size=1, max_size=16))
    state.hands[state.to_play] = Counter(picks)
    state.single_taken = data.draw(st.sampled_from([None, picks[0]]))
    _assert_offer_is_the_engines(state)
    # asked twice: the second answer comes from the kept lay-off plays
    _assert_offer_is_the_engines(state)
