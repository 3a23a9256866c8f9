"""The analysis's play-out bot (`analysis.playout`): the greedy bot that uses what every seat knows
of the others' hands, feeds no opponent a card it is known to want, and keeps its wilds."""

from __future__ import annotations

from collections import Counter

import pytest

from buraco_events.analysis.playout import (
    PlayoutBot,
    blocks_pile,
    preferred_discards,
    wanted,
    wild_pays,
)
from buraco_events.bots.greedy import TableMemory
from buraco_events.core.cards import is_wild_card
from buraco_events.core.choices import Action, Choices
from buraco_events.core.infoset import Knowledge
from buraco_events.core.seatview import player_view
from buraco_events.core.table import Table
from buraco_events.model.events import Discarded, HandEnded
from buraco_events.model.rules import PRESETS


def known(*cards: str) -> Counter[str]:
    return Counter(cards)


@pytest.mark.parametrize(("card", "held", "sets", "want"), [
    ("7H", ("5H", "6H"), False, True),  # 5 6 7
    ("7H", ("8H", "9H"), False, True),  # 7 8 9
    ("7H", ("6H", "8H"), False, True),  # 6 7 8
    ("7H", ("6H",), False, False),  # one card: no meld of three
    ("7H", ("6H", "JK"), False, True),  # a neighbour and a wild
    ("7H", ("9H", "2C"), False, True),  # a gap a wild fills: 7 (2) 9
    ("7H", ("5S", "6S"), False, False),  # another suit
    ("7H", ("7C", "7D"), True, True),  # a set, where sets are played
    ("7H", ("7C", "7D"), False, False),  # no sets in the variant
    ("AH", ("QH", "KH"), False, True),  # the ace high
    ("AH", ("3H", "4H"), False, False),  # A 3 4 is no run
    ("7H", ("7H", "8H"), False, False),  # the other copy of the card is no neighbour
    ("2C", ("3C", "4C"), True, False),  # a wild is never "wanted": it melds anywhere
    ("7H", (), True, False),
])
def test_a_card_is_wanted_when_it_melds_with_known_cards(card, held, sets, want):
    rules = PRESETS["fechado"] if sets else PRESETS["stbl"]
    assert rules.sets == sets
    assert wanted(card, known(*held), rules) is want


def _table(variant: str, seed: int) -> tuple[Table, Knowledge]:
    """A table of play-out bots sharing one knowledge, fed every event."""
    knowledge = Knowledge(4)
    shared = TableMemory()
    table = Table.start(variant, [f"p{i}" for i in range(4)], game_id=f"t-{variant}-{seed}",
                        seats=[PlayoutBot(shared, knowledge) for _ in range(4)], rng=seed)
    return table, knowledge


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "seed"), [("stbl", 1), ("fechado", 2), ("burraco", 3), ("aberto-sujo", 4)])
def test_play_out_bots_feed_no_known_want_and_keep_their_wilds(variant: str, seed: int) -> None:
    """A hand of play-out bots: each discard feeds the next player a card it is known to want only
    when every natural would, and is a wild only when no natural may go or the rules make it
    pay (the pile blocked for a short hand, the short hand of `no_wild_last_discard`)."""
    table, knowledge = _table(variant, seed)
    discards = fed = 0
    while True:
        state = table.state
        before = [Counter(k) for k in knowledge.known]
        seat, offered = state.to_play, None
        if state.phase == "play" and table.to_move == seat:
            offered = [a for a, _ in Choices(state).all() if a.kind == "discard"]
            view = player_view(state, seat, scores=False)
        event = table.step()
        if event is None or isinstance(event, HandEnded):
            break
        knowledge.see(event)
        if not isinstance(event, Discarded) or offered is None or len(offered) < 2:
            continue
        discards += 1
        rules = state.rules
        after = (seat + 1) % 4
        naturals = [a.cards[0] for a in offered if not is_wild_card(a.cards[0])]
        card = event.card
        if is_wild_card(card):
            every_natural_feeds = all(wanted(c, before[after], rules) for c in naturals)
            assert (not naturals or wild_pays(view, rules)
                    or (every_natural_feeds and blocks_pile(view, rules, after))), (variant, event.seq, card)
        elif wanted(card, before[after], rules):
            fed += 1
            assert all(wanted(c, before[after], rules) for c in naturals), (variant, event.seq, card)
    assert discards > 5


def test_preferred_discards_drop_the_wanted_card_and_the_wild() -> None:
    """On a real table: the seat holding 7H 9S 2C, the next player known to hold 5H 6H."""
    table, knowledge = _table("stbl", 5)
    while table.state.phase != "play" or table.to_move is None:
        event = table.step()
        assert event is not None
        knowledge.see(event)
    state = table.state
    seat = state.to_play
    view = player_view(state, seat, scores=False)
    rules = state.rules
    discards = [Action("discard", (c,)) for c in ("7H", "9S", "2C")]
    memory = [Counter() for _ in range(4)]
    memory[(seat + 1) % 4] = known("5H", "6H")
    assert preferred_discards(view, discards, rules, memory) == [Action("discard", ("9S",))]
    # every natural wanted: a natural all the same (the pile stays open to a hand that can meld)
    memory[(seat + 1) % 4] = known("5H", "6H", "8S", "10S")
    assert preferred_discards(view, discards, rules, memory) == discards[:2]
    # a teammate's wants are no feeding: in four, the next player is always an opponent
    assert preferred_discards(view, discards, rules, [Counter()] * 4) == discards[:2]
