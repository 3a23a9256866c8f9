"""The greedy bot: a one-ply player that rates every meld, lay-off and discard it is offered.

`GreedyBot` ranks the plays by points laid, canasta bonus gained, length reached and cleanliness
(`rating.Position.play_score`), and the discards by what a card is worth to keep
(`Position.cheapest_discard`); it takes the pile when enough of its cards meld
(`rating.useful_cards`). Bots never decide what is legal: the engine does (`choices.Choices`).
"""

from __future__ import annotations

import random

from mypy_extensions import mypyc_attr

from buraco_events.core.choices import Action, Choices
from buraco_events.model.rules import Rules
from buraco_events.model.views import View

from .rating import GameMemory, Position, TableMemory, is_late, useful_cards


@mypyc_attr(allow_interpreted_subclasses=True)  # users' bots may build on it
class GreedyBot:
    """A sensible one-ply player (see the module weights); deterministic, it uses no randomness.

    Draw: takes the pile when the engine allows it and enough of its cards meld (a closed pile is
    offered only when its top melds, so it is taken unless it is big late in the hand). Play: ranks
    every meld and lay-off by points laid, canasta bonus gained (via `melds.canasta_kind`), length
    reached and cleanliness, with a cost for spending a wild that completes nothing and for
    dirtying a clean meld the team still needs; plays the best one while it is worth more than
    zero; emptying the hand (a direct dead or a close) always wins. Discard: keeps wilds, never
    feeds an opponent's visible meld when it can help it, keeps cards with neighbours, and drops
    high cards late in the hand. Dead: takes the first dead offered.
    """

    name = "greedy"
    #: where the bot keeps the memory of the game it plays (None before its first decision)
    _shared: TableMemory | None = None

    def __init__(self, shared: TableMemory | None = None) -> None:
        self._shared = shared

    def join(self, shared: TableMemory) -> None:
        """Share `shared` with the other greedy bots of a table, unless the bot has a memory
        already (its own, or one it was given)."""
        if self._shared is None:
            self._shared = shared

    def _memory(self, rules: Rules) -> GameMemory:
        """Return the memory of the game played under `rules`, built afresh when the rules
        object is not the last one's (the bot, or the bots sharing it, play one game at a time)."""
        shared = self._shared
        if shared is None:
            shared = self._shared = TableMemory()
        game = shared.game
        if game is None or game.rules is not rules:
            game = shared.game = GameMemory(rules, game)
        return game

    def choose(self, view: View, actions: list[Action], rules: Rules, rng: random.Random) -> Action:
        """Return the best-ranked action."""
        if len(actions) == 1:
            return actions[0]
        if view.phase == "draw":
            return self._draw(view, actions, rules)
        if view.phase == "dead":
            return actions[0]
        return self._play(view, actions, rules)

    def decide(self, view: View, choices: Choices, rules: Rules, rng: random.Random) -> Action:
        """`choose` on the table's lazy offer: the same action, with fewer plays checked.

        The plays are scored before their check and checked best first, so the first legal one
        is the one `choose` would rank first; the discards are listed only when it plays none.
        """
        phase = view.phase  # read once: the view is a msgspec struct
        if phase == "draw":
            draws = [a for a, _ in choices.draws()]
            return draws[0] if len(draws) == 1 else self._draw(view, draws, rules)
        if phase == "dead":
            return choices.deads()[0][0]
        return self._play_lazy(view, choices, rules)

    # -- draw ------------------------------------------------------------------------------

    def _draw(self, view: View, actions: list[Action], rules: Rules) -> Action:
        take: Action | None = None
        draw: Action | None = None
        for a in actions:  # the first of each kind (a loop: no generator frames)
            if take is None and a.kind == "pile":
                take = a
            elif draw is None and a.kind == "draw":
                draw = a
        if take is None or draw is None:
            return take or draw or actions[0]
        late = is_late(view, self._memory(rules).refill)
        pile = view.pile
        cards, size = pile.cards, pile.size  # read once: the pile view is a msgspec struct
        if cards is None:  # closed pile: legal only when its top melds at once
            return draw if late and size > 6 else take
        seat = view.seat
        held = view.hands[seat if seat is not None else view.to_play]
        if size <= 2 and isinstance(held, tuple) and len(held) <= 4:
            return draw  # a short hand swapping one-card piles with the opponent never ends
        # taken when a third of its cards are useful, or (early in the hand) any one of them
        need = -(-size // 3)
        if not late:
            need = min(need, 1)
        return take if useful_cards(view, cards, rules, need) >= need else draw

    # -- play ------------------------------------------------------------------------------

    def _play(self, view: View, actions: list[Action], rules: Rules) -> Action:
        pos = Position(view, self._memory(rules))
        best: Action | None = None
        best_score = 0
        discards: list[Action] = []
        for a in actions:
            if a.kind == "discard":
                discards.append(a)
                continue
            score = pos.play_score(a)
            if best is None or score > best_score:
                best, best_score = a, score
        if best is not None and (best_score > 0 or not discards):
            return best
        return pos.cheapest_discard(discards)

    def _play_lazy(self, view: View, choices: Choices, rules: Rules) -> Action:
        """`_play` over unchecked candidates: the first legal one in (score desc, offer order) is
        `_play`'s best, and once scores reach 0 a discard wins whenever there is one."""
        pos = Position(view, self._memory(rules))
        candidates = choices.candidates()
        # (score desc, offer place) as one int each: -score << shift | place; the plays worth
        # more than 0 apart, since the others are checked only when no discard is offered
        shift = len(candidates).bit_length()
        worth: list[int] = []
        rest: list[int] = []
        for i, a in enumerate(candidates):
            score = pos.play_score(a)
            if score > 0:
                worth.append((-score << shift) + i)
            else:
                rest.append((-score << shift) + i)
        mask = (1 << shift) - 1
        worth.sort()
        for key in worth:
            if choices.play_event(key & mask) is not None:
                return candidates[key & mask]
        discards = choices.discard_actions()
        if not discards:
            rest.sort()
            for key in rest:
                if choices.play_event(key & mask) is not None:
                    return candidates[key & mask]
        return pos.cheapest_discard(discards)


__all__ = ["GreedyBot", "TableMemory"]
