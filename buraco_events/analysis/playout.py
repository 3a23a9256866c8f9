"""The play-out policy of the analysis: the greedy bot, with what every seat knows of the others.

A play-out (`evaluate.play_outs`) plays a decision's alternative to the hand's end with this bot
in every seat. It plays as the greedy bot does (`bots.greedy`: the same draws, melds and lay-offs,
the same discard when nothing below applies), and it also reads what every seat knows of the
others' hands: the cards each seat took from the pile and has not laid down since
(`infoset.Knowledge`, one per play-out, fed every event of it). A play-out starts from what the
deciding seat knows (`InfoSet.known`): the others' known cards; what the others know of the
deciding seat's own hand is not in its information set, so that starts empty. Its discard
differs from the greedy bot's in two ways:

- it does not feed the next player, an opponent, a card that player is known to want: one that
  melds with two of its known cards, or with one of them and a known wild (`wanted`), while
  another discard exists;
- it does not discard a wild while a natural may go, unless the rules make the wild the better
  discard: when every natural would feed the next player and a wild on top blocks the pile for
  it (`blocks_pile`: a closed pile whose top wild only starts a new meld, and a hand too short to
  start one), or under `no_wild_last_discard` in a short hand (`wild_pays`: a wild kept to the
  hand's last cards cannot be the closing discard), where the wild may go as the greedy bot
  rates it.

What it does not model: what a seat may infer from the discards others made or did not make,
the cards a seat drew (known to it alone), and any plan longer than the greedy bot's one ply.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from buraco_events.bots.greedy import GreedyBot, TableMemory
from buraco_events.core.cards import RANK, SUIT, Card, is_wild_card
from buraco_events.core.choices import Action, Choices
from buraco_events.core.gate import team_of
from buraco_events.core.infoset import Knowledge
from buraco_events.model.rules import Rules
from buraco_events.model.views import View

#: a hand this short (after the discard) under `no_wild_last_discard` may drop a wild: kept to
#: the end, the wild cannot be the closing discard
SHORT_HAND = 3


def _positions(rank: int) -> tuple[int, ...]:
    """Return the run positions of a natural's rank (the ace at both ends, 1 and 14)."""
    return (1, 14) if rank == 1 else (rank,)


def wanted(card: Card, known: Counter[Card], rules: Rules) -> bool:
    """Return whether `card` melds with the cards a seat is known to hold: a run of three with two
    known naturals of its suit, or with one of them and a known wild; a set of three of its rank
    (where sets are played) likewise."""
    if is_wild_card(card) or not known:
        return False
    wilds = any(is_wild_card(c) for c in known)
    suit, rank = SUIT[card], RANK[card]
    held = {p for c in known if not is_wild_card(c) and SUIT[c] == suit and c != card
            for p in _positions(RANK[c])}
    for at in _positions(rank):
        for first in range(max(1, at - 2), min(at, 12) + 1):  # the runs of three holding `at`
            others = [p for p in range(first, first + 3) if p != at]
            found = sum(p in held for p in others)
            if found == 2 or (found == 1 and wilds):
                return True
    if rules.sets:
        same = sum(n for c, n in known.items() if not is_wild_card(c) and RANK[c] == rank)
        if same >= 2 or (same and wilds):
            return True
    return False


def wild_pays(view: View, rules: Rules) -> bool:
    """Return whether the rules make a wild a discard worth making at this table (see the
    module): the short hand of a `no_wild_last_discard` game."""
    seat = view.seat if view.seat is not None else view.to_play
    held = view.hands[seat]
    size = len(held) if isinstance(held, tuple) else held
    return rules.no_wild_last_discard and size - 1 <= SHORT_HAND


def blocks_pile(view: View, rules: Rules, seat: int) -> bool:
    """Return whether a wild on top of the pile keeps `seat` from taking it: a closed pile whose
    top wild only starts a new meld, and a hand too short to start one (two cards) and still
    discard."""
    held = view.hands[seat]
    size = len(held) if isinstance(held, tuple) else held
    return rules.pile == "closed" and rules.wild_top_new_meld_only and size < 3


def preferred_discards(view: View, discards: Sequence[Action], rules: Rules,
                       known: Sequence[Counter[Card]]) -> list[Action]:
    """Return the discards the policy chooses among (all of `discards` when none is to avoid)."""
    seat = view.seat if view.seat is not None else view.to_play
    n = len(view.hands)
    after = (seat + 1) % n
    wants = known[after] if after < len(known) and team_of(after) != team_of(seat) else Counter()
    naturals = [a for a in discards if not is_wild_card(a.cards[0])]
    wilds = [a for a in discards if is_wild_card(a.cards[0])]
    if not naturals:
        return list(discards)
    safe = [a for a in naturals if not wanted(a.cards[0], wants, rules)]
    if not safe and wilds and blocks_pile(view, rules, after):
        return wilds  # every natural feeds the next player: the wild shuts the pile
    chosen = safe or naturals
    return chosen + wilds if wilds and wild_pays(view, rules) else chosen


class PlayoutBot:
    """The greedy bot with the discards of `preferred_discards`; `known` is the play-out's
    knowledge of every hand, which the play-out keeps up to date."""

    name = "playout"

    def __init__(self, shared: TableMemory, known: Knowledge) -> None:
        self.greedy = GreedyBot(shared)
        self.known = known

    def choose(self, view: View, actions: list[Action], rules: Rules, rng: random.Random) -> Action:
        """Choose among listed actions (the table asks `decide`; this is the bot protocol's)."""
        action = self.greedy.choose(view, actions, rules, rng)
        return self._discard(view, action, [a for a in actions if a.kind == "discard"], rules, rng)

    def decide(self, view: View, choices: Choices, rules: Rules, rng: random.Random) -> Action:
        """The greedy bot's action, its discard replaced when the policy avoids it."""
        action = self.greedy.decide(view, choices, rules, rng)
        if action.kind != "discard":
            return action
        return self._discard(view, action, choices.discard_actions(), rules, rng)

    def _discard(self, view: View, action: Action, discards: list[Action], rules: Rules,
                 rng: random.Random) -> Action:
        if action.kind != "discard" or len(discards) < 2:
            return action
        keep = preferred_discards(view, discards, rules, self.known.known)
        if action in keep:
            return action
        return self.greedy.choose(view, keep, rules, rng) if len(keep) > 1 else keep[0]


__all__ = ["SHORT_HAND", "PlayoutBot", "blocks_pile", "preferred_discards", "wanted", "wild_pays"]
