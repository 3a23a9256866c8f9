"""The lazy offer (`choices.Choices`) and the bots' `decide`: the same choices, the same moves."""

from __future__ import annotations

import random

import pytest

from buraco_events.bots.registry import GreedyBot, RandomBot
from buraco_events.core.choices import Choices, action_of
from buraco_events.core.deads import must_refill
from buraco_events.core.moves import legal_events
from buraco_events.core.seeds import SharedStream
from buraco_events.core.table import Table
from buraco_events.core.turn import has_two_discards, legal_discards
from buraco_events.model.rules import PRESETS
from buraco_events.views.projections import player_view


def _table(variant: str, players: int, seed: int) -> Table:
    """Return a one-hand table without bots: the test drives every seat."""
    return Table.start(variant, [f"p{i}" for i in range(players)], game_id="c", target=0,
                       rng=SharedStream(random.Random(seed)))


@pytest.mark.parametrize("variant", list(PRESETS))
def test_choices_equal_the_engine_offer_and_decide_equals_choose(variant: str) -> None:
    """At every decision of two random hands: `all()` is `legal_events` paired with its actions,
    `single()` is the one choice exactly when one is legal, and the greedy and random bots'
    `decide` picks what `choose` picks from the full list (the same rng state for both)."""
    for players, seed in ((2, 1), (4, 2)):
        table = _table(variant, players, seed)
        rng = random.Random(seed)
        decisions = 0
        while not table.over:
            state = table.state
            seat = table.to_move
            if seat is None:
                table.step()
                continue
            assert not must_refill(state)
            choices = Choices(state)
            expected = [(action_of(ev), ev) for ev in legal_events(state)]
            single = Choices(state).single()
            assert (single is not None) == (len(expected) == 1)
            assert single is None or single == expected[0]
            view = player_view(state, seat, scores=False)
            actions = [a for a, _ in expected]
            for bot in (GreedyBot(), RandomBot()):
                r1, r2 = random.Random(decisions), random.Random(decisions)
                lazy = bot.decide(view, Choices(state), state.rules, r1)
                assert lazy == bot.choose(view, actions, state.rules, r2)
                assert r1.random() == r2.random()  # the same draws from the rng
            assert choices.all() == expected
            action, _ = expected[rng.randrange(len(expected))]
            table.act(seat, action, advance=False)
            decisions += 1
        assert decisions > 20


@pytest.mark.parametrize("variant", ["stbl", "fechado", "burraco"])
def test_has_two_discards_never_claims_more_than_the_engine_offers(variant: str) -> None:
    """The cheap forced-move test: True only where `legal_discards` lists two or more (RULES 2:
    any card held may go, but the single card just taken, a closed pile's top and the last card
    follow their own rules), and True at most play decisions of a random hand."""
    table = _table(variant, 4, 7)
    rng = random.Random(7)
    said = plays = 0
    while not table.over:
        state, seat = table.state, table.to_move
        if seat is None:
            table.step()
            continue
        if state.phase == "play":
            plays += 1
            if has_two_discards(state):
                said += 1
                assert len(legal_discards(state)) >= 2
        else:
            assert not has_two_discards(state)
        offered = Choices(state).all()
        table.act(seat, offered[rng.randrange(len(offered))][0], advance=False)
    assert plays > 20 and said > plays // 2


def test_has_two_discards_leaves_out_the_single_card_taken() -> None:
    """No single-card return (RULES 2): holding the card just taken and one other is one discard."""
    table = _table("stbl", 2, 3)
    while table.state.phase != "play":
        table.step() if table.to_move is None else table.act(table.to_move, Choices(table.state).draws()[0][0],
                                                              advance=False)
    state = table.state
    hand = state.hands[state.to_play]
    keep = sorted(hand)[:2]
    hand.clear()
    hand.update({keep[0]: 1, keep[1]: 1})
    assert has_two_discards(state)
    state.single_taken = keep[0]
    assert not has_two_discards(state)
    assert [ev.card for ev in legal_discards(state)] == [keep[1]]
