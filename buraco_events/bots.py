"""Bots and the pure game loop: players that see only their own view and choose a legal action.

A bot (the protocol `table.Bot`) gets `projections.player_view(state, seat, scores=False)`, the
list of `table.Action`s the engine offers, the rules and an injected `random.Random`; it returns one
of the actions. Bots never decide what is legal (the engine does); they only rank the choices,
using `melds.classify` and friends to judge them. `play_game` runs a whole game on a `table.Table`
with bots in every seat and `simulate`'s rng scheme (`table.SeedStreams`).
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Sequence
from typing import Any, Final

from mypy_extensions import mypyc_attr

from .cards import ALL_CARDS, RANK, SUIT, SUITS, Card, card_value, is_wild_card
from .commit import seeded_salts
from .engine import GameState, sorted_held
from .events import Event
from .melds import (
    CANASTA_SIZE,
    CanastaKind,
    MeldFits,
    canasta_bonus,
    canasta_kind,
    candidate_melds,
    classify,
    is_closing_canasta,
    meld_fits,
)
from .rules import Rules, check_players, team_of
from .table import Action, Bot, Choices, EndlessGame, SeedStreams, Table
from .views import MeldKind, MeldView, View

# `Bot` (the protocol every player here follows) and `EndlessGame` are the table's: re-exported
__all__ = [
    "BOT_NAMES", "Bot", "EndlessGame", "GreedyBot", "RandomBot", "bot_by_name", "bot_spec", "play_game", "run_game",
]


@mypyc_attr(allow_interpreted_subclasses=True)  # users' bots may build on it
class RandomBot:
    """Picks uniformly among the legal actions, preferring plays with probability `play_bias`.

    With `play_bias` = p, when at least one meld, lay-off or dead is on offer, the bot picks
    uniformly among those with probability p, and uniformly among all actions otherwise. Pure
    uniform play (p = 0) also ends its hands, only later (about 115 turns a 2-player hand against
    90 with the default 0.5, measured over the seven presets), so the bias just keeps hands short.
    """

    name = "random"

    def __init__(self, play_bias: float = 0.5):
        self.play_bias = play_bias

    def choose(self, view: View, actions: list[Action], rules: Rules, rng: random.Random) -> Action:
        """Return a uniformly random action (a play with probability `play_bias` when any)."""
        if rng.random() < self.play_bias:
            plays = [a for a in actions if a.kind in _PLAY_KINDS]
            if plays:
                return rng.choice(plays)
        return rng.choice(actions)

    def decide(self, view: View, choices: Choices, rules: Rules, rng: random.Random) -> Action:
        """`choose` on the table's lazy offer: the same action from the same rng, and the discards
        are listed only when the bot does not pick a play."""
        if rng.random() < self.play_bias:
            # the plays come first among the actions (a dead phase offers only deads)
            plays = choices.plays() or choices.deads()
            if plays:
                return rng.choice(plays)[0]
        return rng.choice(choices.all())[0]


_PLAY_KINDS: Final = frozenset(("meld", "add", "dead"))

# GreedyBot weights, in points (the unit of RULES 7)
_EMPTY_HAND: Final = 1000  # taking the dead at once, or closing: always worth it
_WILD_COST: Final = 45  # a wild spent without completing a canasta (keep wilds for canastas)
_CLEAN_RISK: Final = 12  # per card of a clean meld dirtied while the team still needs a clean canasta
_CLEANED: Final = 25  # a dirty run made clean by a natural
_PER_CARD: Final = 4  # per card laid: prefer long melds and getting rid of cards
_PER_LENGTH: Final = 2  # per card of the resulting meld: build towards a canasta
_KEEP_WILD: Final = 1000  # a wild is discarded only when nothing else may go
_FEEDS_OPPONENT: Final = 300  # a discard that fits an opponent's meld
_NEIGHBOUR: Final = (0, 40, 18)  # a natural of the same suit at rank distance 1, 2
_SAME_RANK: Final = 30  # another card of the same rank (sets variants)
_FITS_OWN: Final = 50  # a card that fits one of the team's melds (to lay off on a later turn)


def _is_late(view: View, rules: Rules) -> bool:
    """Return whether the hand is near its end: a short stock and no dead left to refill it."""
    refill_left = rules.stock_end == "refill" and any(d.fate is None for d in view.deads)
    return view.stock <= 6 and not refill_left


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
        if view.phase == "draw":
            draws = [a for a, _ in choices.draws()]
            return draws[0] if len(draws) == 1 else self._draw(view, draws, rules)
        if view.phase == "dead":
            return choices.deads()[0][0]
        return self._play_lazy(view, choices, rules)

    # -- draw ------------------------------------------------------------------------------

    def _draw(self, view: View, actions: list[Action], rules: Rules) -> Action:
        take = next((a for a in actions if a.kind == "pile"), None)
        draw = next((a for a in actions if a.kind == "draw"), None)
        if take is None or draw is None:
            return take or draw or actions[0]
        late = _is_late(view, rules)
        pile = view.pile
        if pile.cards is None:  # closed pile: legal only when its top melds at once
            return draw if late and pile.size > 6 else take
        held = view.hands[view.seat if view.seat is not None else view.to_play]
        if pile.size <= 2 and isinstance(held, tuple) and len(held) <= 4:
            return draw  # a short hand swapping one-card piles with the opponent never ends
        useful = _useful_cards(view, pile.cards, rules)
        if useful * 3 >= pile.size or (useful and not late):
            return take
        return draw

    # -- play ------------------------------------------------------------------------------

    def _play(self, view: View, actions: list[Action], rules: Rules) -> Action:
        ctx = _Context(view, rules)
        best: Action | None = None
        best_score = 0.0
        discards: list[Action] = []
        for a in actions:
            if a.kind == "discard":
                discards.append(a)
                continue
            score = ctx.play_score(a)
            if best is None or score > best_score:
                best, best_score = a, score
        if best is not None and (best_score > 0 or not discards):
            return best
        return ctx.cheapest_discard(discards)

    def _play_lazy(self, view: View, choices: Choices, rules: Rules) -> Action:
        """`_play` over unchecked candidates: the first legal one in (score desc, offer order) is
        `_play`'s best, and once scores reach 0 a discard wins whenever there is one."""
        ctx = _Context(view, rules)
        candidates = choices.candidates()
        ranked = sorted([(-ctx.play_score(a), i) for i, a in enumerate(candidates)])
        discards: list[Action] | None = None
        for negative, i in ranked:
            if negative >= 0 and discards is None:
                discards = choices.discard_actions()
                if discards:
                    break
            if choices.play_event(i) is not None:
                return candidates[i]
        if discards is None:
            discards = choices.discard_actions()
        return ctx.cheapest_discard(discards)


#: the best worth before any card is scored (a constant: compiled, `float("inf")` parses a string)
_INF: Final = float("inf")


class _Context:
    """What one play-phase decision needs from the view, computed once (or on first use)."""

    def __init__(self, view: View, rules: Rules):
        seat = view.seat if view.seat is not None else view.to_play
        self.rules = rules
        self.team = team_of(seat)
        own = view.hands[seat]
        held = own if isinstance(own, tuple) else ()
        #: the cards held (counted only by `cheapest_discard`: most decisions play instead)
        self.held: tuple[Card, ...] = held
        self.pending = view.pending
        pending_rest = view.pending.rest if view.pending is not None else ()
        self.pending_n = len(pending_rest) if isinstance(pending_rest, tuple) else pending_rest
        self.hand_n = len(held)
        #: the melds by id (built on first use: most decisions score no lay-off)
        self._melds: dict[int, MeldView] | None = None
        self.values = _value_table(rules)
        self.late = _is_late(view, rules)
        self._view = view
        self._has_close_canasta: bool | None = None
        #: per meld id: its bonus now, whether it is dirty, its length when clean (else 0)
        self._old: dict[int, tuple[int, bool, int]] = {}
        #: the team's index of the melds' kept entries, for `keep_melds` (set on first use)
        self._index: _MeldIndex | None = None
        #: naturals held per slot (`_SLOT`) and per rank, set by `cheapest_discard`
        self.counts: list[int] = []
        self.rank_counts: list[int] = []

    def meld(self, meld_id: int) -> MeldView:
        """Return the meld `meld_id` of the view."""
        melds = self._melds
        if melds is None:
            melds = self._melds = {m.id: m for m in self._view.melds}
        return melds[meld_id]

    def value(self, card: Card) -> int:
        """Return the card's points."""
        return self.values[card]

    def has_close_canasta(self) -> bool:
        """Return whether the team already holds a canasta it may close with (asked rarely)."""
        if self._has_close_canasta is None:
            team, rules = self.team, self.rules
            self._has_close_canasta = any(
                m.team == team and is_closing_canasta(len(m.cards), m.clean, rules) for m in self._view.melds
            )
        return self._has_close_canasta

    def _old_meld(self, meld_id: int) -> tuple[int, bool, int]:
        """Return (bonus, dirty, clean length) of a meld on the table, once per decision."""
        old = self._old.get(meld_id)
        if old is None:
            m = self.meld(meld_id)
            old = self._old[meld_id] = (_bonus(m.kind, self.rules), not m.clean, len(m.cards) if m.clean else 0)
        return old

    def play_score(self, action: Action) -> float:
        """Return how much a meld or a lay-off is worth now (0 = not worth playing yet)."""
        rules, cards = self.rules, action.cards
        from_hand = len(cards) - (1 if self.pending is not None else 0)
        left = self.hand_n - from_hand + self.pending_n
        if action.kind == "meld":
            shape = classify(cards, rules)
            old_bonus, old_dirty, old_clean_len = 0, False, 0
        else:
            meld_id = action.meld or 0
            # `classify(meld + cards)`, kept by the meld's entry across decisions
            shape = meld_fits(self.meld(meld_id).cards, rules).grown(cards)
            old_bonus, old_dirty, old_clean_len = self._old_meld(meld_id)
        assert shape is not None, "the engine offers only plays that make a meld"
        if left == 0:
            return _EMPTY_HAND + len(cards)
        values = self.values
        points = 0
        for c in cards:
            points += values[c]
        wild = shape.wild
        size = len(shape.cards)
        score = float(points + _PER_CARD * len(cards))
        score += _PER_LENGTH * size
        score += _bonus(canasta_kind(shape, rules), rules) - old_bonus
        if wild is not None and not old_dirty:
            if size < CANASTA_SIZE and left > 3 and not self.late:
                # a wild laid short of a canasta is gone for good: count it as a loss, not a gain
                score -= _WILD_COST + values[wild]
            if old_clean_len and rules.close_needs_clean and not self.has_close_canasta():
                score -= _CLEAN_RISK * old_clean_len
        elif old_dirty and wild is None:
            score += _CLEANED
        return score

    def cheapest_discard(self, discards: list[Action]) -> Action:
        """Return the discard whose card is worth least to keep (hand worth plus meld fits)."""
        # naturals held per (suit, rank) slot and per rank, in flat int lists (`_SLOT`)
        counts = [0] * 64
        by_rank = [0] * 14
        slot_of = _SLOT
        for c in self.held:  # card by card: the same counts as per distinct card times held
            slot = slot_of[c]
            if slot >= 0:
                counts[slot] += 1
                by_rank[slot & 15] += 1
        self.counts, self.rank_counts = counts, by_rank
        # branch and bound: the meld checks only add to a card's worth, so once a card's full
        # worth is below every other card's cheap worth, no other card needs the meld checks
        ranked = sorted([(self.keep_base(a.cards[0]), i) for i, a in enumerate(discards)])
        best, best_score = discards[ranked[0][1]], _INF
        for base, i in ranked:
            if base >= best_score:
                break
            score = base + self.keep_melds(discards[i].cards[0])
            if score < best_score:
                best, best_score = discards[i], score
        return best

    def keep_base(self, card: Card) -> float:
        """Return a card's worth from the hand alone: wilds, neighbours, same rank, its value
        (read from the counts `cheapest_discard` made)."""
        value = self.values[card]
        slot = _SLOT[card]
        if slot < 0:
            return _KEEP_WILD + value
        score = 0.0
        counts = self.counts
        for near, weight in _NEAR_SLOTS[slot]:
            n = counts[near]
            if n:
                score += weight * n
        if self.rules.sets:
            score += _SAME_RANK * (self.rank_counts[slot & 15] - 1)
        return score - (2 * value if self.late else value / 2)

    def _index_melds(self) -> _MeldIndex:
        """Return the team's index of the melds' kept entries (`melds.meld_fits`), brought up
        to this view's melds: kept per team across decisions, since few melds change between
        two discards of a team (`_MeldIndex.update`)."""
        team, rules, melds = self.team, self.rules, self._view.melds
        kept = _MELD_INDEX.get(team)
        if kept is None or kept.rules is not rules or not kept.update(melds):
            kept = _MeldIndex(rules, team)
            kept.update(melds)
            _MELD_INDEX[team] = kept
        self._index = kept
        return kept

    def keep_melds(self, card: Card) -> float:
        """Return the worth (>= 0) a card adds by fitting a meld: an opponent's, or the team's.

        Which meld it fits first does not matter: one own fit and one opponent's fit count.
        """
        index = self._index
        if index is None:
            index = self._index_melds()
        entries = index.entries
        rank = RANK[card]
        if rank != 0 and rank != 2:
            # a natural joins only a run of its suit or a set of its rank (RULES 3.1, 3.2)
            entries = [entries[i] for i in index.runs.get(SUIT[card], []) + index.sets.get(rank, [])]
        score = 0.0
        fed = owned = False
        for mine, entry in entries:
            if owned if mine else fed:
                continue
            # `classify(m.cards + (card,))` is a meld, answered from the meld's kept fits
            if not entry.fit(card):
                continue
            if mine:
                owned, score = True, score + _FITS_OWN
            else:
                fed, score = True, score + _FEEDS_OPPONENT
        return score


class _MeldIndex:
    """The kept entries of a table's melds for one team (`_Context._index_melds`).

    Per meld position: its view, (the team's, kept entry), and its bucket (a run's suit, a
    set's rank); `runs` and `sets` list the positions per bucket. A lay-off replaces a meld's
    view at the same position and keeps its type, suit and rank, so `update` only refreshes
    the positions whose view changed and appends the new melds.
    """

    def __init__(self, rules: Rules, team: int) -> None:
        self.rules = rules
        self.team = team
        self.views: list[MeldView] = []
        self.entries: list[tuple[bool, MeldFits]] = []
        self.keys: list[tuple[str, int] | None] = []
        self.runs: dict[str, list[int]] = {}
        self.sets: dict[int, list[int]] = {}

    def update(self, melds: tuple[MeldView, ...]) -> bool:
        """Bring the index up to `melds`; False when it cannot (fewer melds, or a meld at a
        known position in another bucket: a new hand), and then it must be built afresh."""
        views = self.views
        known = len(views)
        if len(melds) < known:
            return False
        team, rules = self.team, self.rules
        for i, m in enumerate(melds):
            if i < known and views[i] is m:
                continue
            entry = meld_fits(m.cards, rules)
            shape = entry.shape
            key: tuple[str, int] | None = None
            if shape is not None:
                key = (shape.suit or "", 0) if shape.type == "run" else ("", shape.rank or 0)
            item = (m.team == team, entry)
            if i < known:
                if key != self.keys[i]:
                    return False
                views[i], self.entries[i] = m, item
                continue
            views.append(m)
            self.entries.append(item)
            self.keys.append(key)
            if shape is None or key is None:
                continue  # no meld: nothing joins it (`fit` is False), in no bucket
            if shape.type == "run":
                self.runs.setdefault(key[0], []).append(i)
            else:
                self.sets.setdefault(key[1], []).append(i)
        return True


#: the meld index per team, kept across decisions (`_MeldIndex.update`)
_MELD_INDEX: Final[dict[int, _MeldIndex]] = {}


#: each card's points, per (two_value, joker_value): plain dicts, built once per pair
_VALUE_TABLES: Final[dict[tuple[int, int], dict[Card, int]]] = {}


def _value_table(rules: Rules) -> dict[Card, int]:
    """Return the card -> points table of the rules (`cards.card_value`)."""
    key = (rules.two_value, rules.joker_value)
    table = _VALUE_TABLES.get(key)
    if table is None:
        table = _VALUE_TABLES[key] = {
            c: card_value(c, rules.two_value, rules.joker_value) for c in ALL_CARDS
        }
    return table


def _neighbours(rank: int, d: int) -> tuple[int, ...]:
    """Return the ranks at run distance `d` from `rank` (the ace is 1 or 14; 14 maps to the ace)."""
    positions = (1, 14) if rank == 1 else (rank,)
    out = {(p + step - 1) % 13 + 1 for p in positions for step in (-d, d) if 1 <= p + step <= 14}
    out.discard(rank)
    return tuple(sorted(out))


#: _NEAR[rank][d]: the ranks at run distance d (1 or 2) of a natural rank
_NEAR: Final = {r: {d: _neighbours(r, d) for d in (1, 2)} for r in range(1, 14)}
#: the (rank, weight) of every neighbour of a natural rank, distance 1 first (`_NEAR`, flat)
_NEAR_WEIGHTS: Final[dict[int, tuple[tuple[int, int], ...]]] = {
    r: tuple((near, _NEIGHBOUR[d]) for d in (1, 2) for near in _NEAR[r][d]) for r in range(1, 14)
}


#: each card's slot in `_Context.cheapest_discard`'s counts: suit index * 16 + rank for a
#: natural, -1 for a wild (a joker or a 2)
_SLOT: Final[dict[Card, int]] = {
    c: -1 if is_wild_card(c) else SUITS.index(SUIT[c]) * 16 + RANK[c] for c in ALL_CARDS
}
#: per natural's slot: the (slot, weight) of its neighbours (`_NEAR_WEIGHTS` in its suit)
_NEAR_SLOTS: Final[list[tuple[tuple[int, int], ...]]] = [
    tuple((slot - slot % 16 + r, w) for r, w in _NEAR_WEIGHTS[slot % 16]) if 1 <= slot % 16 <= 13 else ()
    for slot in range(64)
]


def _bonus(kind: CanastaKind | MeldKind | None, rules: Rules) -> int:
    return 0 if kind is None or kind == "none" else canasta_bonus(kind, rules)


def _useful_cards(view: View, pile: Sequence[Card], rules: Rules) -> int:
    """Return how many distinct natural pile cards would join a meld or a lay-off right away.

    Only wild-free plays count: the play phase will not spend a wild short of a canasta, and a
    pile taken for a play it will not make is passed back and forth for ever. The wild-free
    candidates of some cards are exactly the candidates of those cards without their wilds (a
    run held in full or a set of naturals never needs one; a lay-off's stretch stops where a wild
    would be needed), so the wilds are left out from the start: fewer candidates, no wild tests.
    """
    seat = view.seat if view.seat is not None else view.to_play
    own = view.hands[seat]
    pile_cards = {c for c in pile if not is_wild_card(c)}
    suits, ranks = {SUIT[c] for c in pile_cards}, {RANK[c] for c in pile_cards}
    # runs hold one suit and sets one rank: hand cards sharing neither with the pile change nothing
    together: dict[Card, int] = {}
    for c in pile:
        if c in pile_cards:
            together[c] = together.get(c, 0) + 1
    for c in own if isinstance(own, tuple) else ():
        if not is_wild_card(c) and (SUIT[c] in suits or RANK[c] in ranks):
            together[c] = together.get(c, 0) + 1
    used: set[Card] = set()
    for cards in candidate_melds(together, rules):
        used.update(pile_cards.intersection(cards))
    team = team_of(seat)
    held: tuple[Card, ...] | None = None
    for m in view.melds:
        if m.team == team:
            # `candidate_layoffs` from the meld's kept entry (`melds.meld_fits`), as the table's
            # candidates do, with the cards sorted once for all the melds
            entry = meld_fits(m.cards, rules)
            if entry.shape is None:
                continue
            if held is None:
                held = sorted_held(together)
            for layoff in entry.layoffs_in(held):
                used.update(pile_cards.intersection(layoff))
    return len(used)


_BOTS: Final[dict[str, type[RandomBot] | type[GreedyBot]]] = {"random": RandomBot, "greedy": GreedyBot}
BOT_NAMES: Final[tuple[str, ...]] = tuple(_BOTS)


def bot_spec(name: str) -> str:
    """Return a bot name as given on a command line, normalised: a built-in name in lower case,
    a `module:Class` spec as written (module and class names are case-sensitive)."""
    name = name.strip()
    return name if ":" in name else name.lower()


def bot_by_name(name: str) -> Bot:
    """Return a new bot: a built-in by name ('random', 'greedy') or a user's `module:Class`.

    A `module:Class` spec imports `module`, instantiates `Class` with no arguments and checks it
    follows the bot protocol (`docs/api.md`): a string `name` and a callable `choose`. Raises
    ValueError with one line naming what is wrong.
    """
    spec = bot_spec(name)
    if ":" in spec:
        return _user_bot(spec)
    cls = _BOTS.get(spec)
    if cls is None:
        raise ValueError(f"unknown bot {name!r}; valid bots: {', '.join(BOT_NAMES)}, or module:Class")
    return cls()


def _user_bot(spec: str) -> Bot:
    """Return an instance of the bot class a `module:Class` spec names (see `bot_by_name`)."""
    module_name, _, class_name = spec.partition(":")
    if not module_name or not class_name:
        raise ValueError(f"bot {spec!r}: write module:Class, e.g. mybots:CautiousBot")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"bot {spec!r}: cannot import module {module_name!r} ({exc})") from None
    except Exception as exc:  # the user's module failed while loading: say so in one line
        raise ValueError(f"bot {spec!r}: importing {module_name!r} failed: {type(exc).__name__}: {exc}") from None
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        raise ValueError(f"bot {spec!r}: module {module_name!r} has no class {class_name!r}")
    try:
        bot = cls()
    except Exception as exc:
        raise ValueError(f"bot {spec!r}: {class_name}() failed: {type(exc).__name__}: {exc}") from None
    if not isinstance(getattr(bot, "name", None), str) or not callable(getattr(bot, "choose", None)):
        raise ValueError(f"bot {spec!r}: not a bot: it needs a string `name` and a method "
                         "`choose(view, actions, rules, rng)` (see docs/api.md)")
    return bot


# -- the game loop ---------------------------------------------------------------------------


def run_game(
    variant: str,
    players: int,
    seed: int,
    bots: Sequence[Bot],
    game_id: str,
    target: int | None = None,
    overrides: dict[str, Any] | None = None,
    commit: bool = False,
) -> tuple[list[Event], GameState]:
    """Play one game and return its events and the final state (see `play_game`); with
    `commit`, every deal carries a commitment whose salt comes from the seed (`seeded_salts`)."""
    check_players(players)
    if len(bots) != players:
        raise ValueError(f"one bot per seat: {players} seats, {len(bots)} bots")
    events: list[Event] = []
    names = [f"{b.name}-{s}" for s, b in enumerate(bots)]
    table = Table.start(variant, names, game_id=game_id, seats=bots, rng=SeedStreams(seed),
                        target=target, overrides=overrides, record=events.append,
                        salts=seeded_salts(seed) if commit else None)
    return events, table.run()


def play_game(
    variant: str,
    players: int,
    seed: int,
    bots: Sequence[Bot],
    game_id: str,
    target: int | None = None,
    overrides: dict[str, Any] | None = None,
) -> list[Event]:
    """Play one game deterministically from `seed` and return its (unsealed) events.

    `bots` has one bot per seat; `target` (0 = a single hand) and `overrides` change the preset's
    rules; chance follows `table.SeedStreams(seed)`. Raises `table.EndlessGame` past the safety
    bounds, which real play never reaches.
    """
    return run_game(variant, players, seed, bots, game_id, target, overrides)[0]
