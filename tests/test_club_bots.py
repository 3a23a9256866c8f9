"""The greedy bot knows the club kinds (RULES 3.5): its valuation scores a canasta's kind through
the one bonus function, so under `bonus_semiclean` it prefers a semi-clean canasta to a dirty one."""

from __future__ import annotations

import random

import pytest
from helpers import Table

from buraco_events.bots.greedy import GreedyBot
from buraco_events.bots.rating import GameMemory, Position
from buraco_events.core.choices import Action, legal_actions
from buraco_events.core.seatview import player_view


def _two_dirty_runs(overrides: dict[str, int]) -> Table:
    """Two dirty canastas of seat 0's team: 4H..9H JK (the joker at the high end) and
    4S 5S JK 7S..10S (the joker inside); seat 0 plays on holding 10H and JS.

    Seat 0 melds the hearts and 4S 5S JK 7S 8S, which empties its hand: it takes dead 0 at once
    and lays off 9S 10S."""
    t = Table("stbl", ["4H 5H 6H 7H 8H 9H JK 4S 5S JK 7S", "AS AD AC KD KC QD QS JD JC 9D 9C"],
              stock="8S", deads=["9S 10S 10H JS 3C 3C 4C 4C 5D 5D 6D", ""], overrides=overrides)
    t.do("drew")
    t.do("melded", cards="4H 5H 6H 7H 8H 9H JK")
    t.do("melded", cards="4S 5S JK 7S 8S")
    t.do("took_dead", dead=0)
    t.do("laid_off", meld=1, cards="9S 10S")
    assert t.state.phase == "play" and t.state.to_play == 0
    assert [m.canasta(t.state.rules) for m in t.state.melds] == ["dirty", "dirty"]
    return t


def _lay_offs(t: Table) -> tuple[Action, Action]:
    """Return the lay-offs of 10H onto the hearts (the joker goes to an end: 7 naturals and a wild
    at an end) and of JS onto the spades (the joker stays inside): 8 cards each."""
    actions = legal_actions(t.state)
    hearts = next(a for a in actions if a.kind == "add" and a.cards == ("10H",))
    spades = next(a for a in actions if a.kind == "add" and a.cards == ("JS",))
    return hearts, spades


@pytest.mark.parametrize(("bonus", "gain"), [(0, 0), (150, 50), (300, 200)])
def test_the_rating_scores_the_semiclean_bonus(bonus: int, gain: int) -> None:
    t = _two_dirty_runs({"bonus_semiclean": bonus})
    hearts, spades = _lay_offs(t)
    position = Position(player_view(t.state, 0), GameMemory(t.state.rules))
    # the same points laid and the same length: they differ by the bonuses' difference alone
    assert position.play_score(hearts) - position.play_score(spades) == gain


def test_under_bonus_semiclean_the_bot_makes_the_semiclean_canasta_first() -> None:
    t = _two_dirty_runs({"bonus_semiclean": 150})
    hearts, _ = _lay_offs(t)
    choice = GreedyBot().choose(player_view(t.state, 0), legal_actions(t.state), t.state.rules, random.Random(0))
    assert choice == hearts
    t.do("laid_off", meld=choice.meld, cards=" ".join(choice.cards))
    assert t.state.melds[0].canasta(t.state.rules) == "semiclean"
