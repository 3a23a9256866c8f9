"""The reference GreedyBot helpers bots.py used before their faster versions: the oracles of the
tests that the new ones answer the same (tests/test_bots.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from buraco_events.cards import RANK, SUIT, Card, is_wild_card
from buraco_events.melds import candidate_melds, classify, shape_layoffs
from buraco_events.projections import MeldView, View
from buraco_events.rules import Rules, team_of


def _useful_cards(view: View, pile: Sequence[Card], rules: Rules) -> int:
    """Return how many distinct natural pile cards would join a meld or a lay-off right away."""
    seat = view.seat if view.seat is not None else view.to_play
    own = view.hands[seat]
    hand = Counter(own if isinstance(own, tuple) else ())
    pile_cards = {c for c in pile if not is_wild_card(c)}
    suits, ranks = {SUIT[c] for c in pile_cards}, {RANK[c] for c in pile_cards}
    # runs hold one suit and sets one rank: hand cards sharing neither with the pile change nothing
    together = Counter(pile)
    together.update({
        c: n for c, n in hand.items() if is_wild_card(c) or SUIT[c] in suits or RANK[c] in ranks
    })
    used: set[Card] = set()
    # only wild-free plays count: the play phase will not spend a wild short of a canasta, and a
    # pile taken for a play it will not make is passed back and forth for ever
    for cards in candidate_melds(together, rules):
        if not any(is_wild_card(c) for c in cards):
            used.update(c for c in cards if c in pile_cards)
    team = team_of(seat)
    held: tuple[Card, ...] | None = None
    for m in view.melds:
        if m.team == team:
            # `candidate_layoffs`, with the hand sorted once for all the melds
            shape = classify(m.cards, rules)
            if shape is None:
                continue
            if held is None:
                held = tuple(sorted(together.elements()))
            for layoff in shape_layoffs(held, tuple(m.cards), shape, rules):
                if not any(is_wild_card(c) for c in layoff):
                    used.update(c for c in layoff if c in pile_cards)
    return len(used)


def keep_melds(melds: Sequence[MeldView], team: int, card: Card, rules: Rules) -> float:
    """`GreedyBot`'s meld worth of a card as it was: a classify per meld (its first natural card
    skips the runs of other suits and the sets of other ranks), 300 when it feeds an opponent's
    meld, 50 when it fits the team's."""
    score = 0.0
    fed = owned = False
    for m in melds:
        mine = m.team == team
        if owned if mine else fed:
            continue
        if RANK[card] not in (0, 2):
            anchor = next(c for c in m.cards if RANK[c] not in (0, 2))
            if (SUIT[anchor] != SUIT[card]) if m.type == "run" else (RANK[anchor] != RANK[card]):
                continue
        if classify(m.cards + (card,), rules) is None:
            continue
        if mine:
            owned, score = True, score + 50
        else:
            fed, score = True, score + 300
    return score
