"""A game's state: what the table holds after some prefix of its log (`GameState`), its dead hands
(`Deads`), the hands as multisets of cards, and the rule fields read on every turn. The melds on
the table are `melds.Meld`, beside the meld rule.

The engine (`engine`) folds events into a `GameState` and holds every rule; this module holds
the data only: its fields, its copies (`GameState.copy`, `shallow_copy`) and the questions every
rule asks of it (a seat's hand size).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from buraco_events.model.events import EndReason
from buraco_events.model.rules import Rules
from buraco_events.model.scoring import TeamScore
from buraco_events.model.terms import DeadFate, DeadMode, Phase

from .cards import Card
from .melds import Meld, MeldRules, caches_for

#: the phases of a hand in progress
PLAYING_PHASES: Final[tuple[Phase, ...]] = ("draw", "play", "dead")
#: the cards a seat holds: each card held and how many copies (never a count of 0); a plain dict,
#: not a Counter, so that the compiled engine works on it with the dict's own C calls
Hand = dict[Card, int]


def sorted_held(hand: Hand) -> tuple[Card, ...]:
    """Return the cards of a hand sorted (as strings), each repeated as often as held: every
    copy listed from the hand's items, then one sort (copies are equal strings: no lookups)."""
    out: list[Card] = []
    for c, n in hand.items():
        if n == 1:
            out.append(c)
        elif n > 1:
            out.extend([c] * n)
    out.sort()
    return tuple(out)


def held_in_order(hand: Hand, order: list[Card]) -> tuple[Card, ...]:
    """Return the cards of a hand in the order of its distinct cards `order`, each repeated as
    often as held (a card held 0 times, or fewer, not at all)."""
    out: list[Card] = []
    for c in order:
        n = hand[c]
        if n == 1:
            out.append(c)
        elif n > 1:
            out.extend([c] * n)
    return tuple(out)


def elements(hand: Hand) -> list[Card]:
    """Return the cards of a hand, each repeated as often as held (as `Counter.elements`)."""
    out: list[Card] = []
    for c, n in hand.items():
        out.extend([c] * n)
    return out


def counted(cards: Iterable[Card]) -> Hand:
    """Return the hand holding `cards`."""
    hand: Hand = {}
    for c in cards:
        hand[c] = hand.get(c, 0) + 1
    return hand


def add_cards(hand: Hand, cards: Iterable[Card]) -> None:
    """Add `cards` to the hand."""
    for c in cards:
        hand[c] = hand.get(c, 0) + 1


class RulesContext:
    """A game's rules as the engine asks them on every turn: built once per rules object the
    state holds (`gate.rules_context`, normally at `game_started`) and kept on the state
    (`GameState.context`).

    The rule fields are native attributes of a compiled class (`Rules` is a msgspec Struct,
    whose fields compiled code reads by a generic attribute lookup); `melds` is the rules' meld
    answers (`melds.MeldRules`: classify answers, the melds' lay-off entries), held here so that
    a check asks it directly instead of looking it up by the rules object.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.stock_refill = rules.stock_end == "refill"
        self.stock_two_left = rules.stock_end == "two_left"
        self.pile_open = rules.pile == "open"
        self.closed_next_play = rules.pile == "closed" and rules.pile_top_use == "next_play"
        self.no_single_card_return = rules.no_single_card_return
        self.stalemate_rounds = rules.stalemate_rounds
        self.one_set_per_rank = rules.one_set_per_rank
        self.wild_top_new_meld_only = rules.wild_top_new_meld_only
        self.melds: MeldRules = caches_for(rules)

    def __reduce__(self) -> tuple[Any, ...]:
        # made again from the rules (compiled, a class without this pickles by calling
        # `__init__` with no arguments)
        return (RulesContext, (self.rules,))


#: the rules of a state before `game_started` (a frozen Struct, shared) and their context: a new
#: state builds neither (a replay, an audit and the table make one per game)
DEFAULT_RULES: Final = Rules()
DEFAULT_CONTEXT: Final = RulesContext(DEFAULT_RULES)

#: the fields of a `GameState` holding a list (or the `Deads`, a value of lists) that
#: `GameState.copy` gives the copy its own of (`hands`, a list of dicts, is copied one level
#: deeper); every other field holds an immutable value the copies share. `tests/test_engine.py` checks the list against the
#: dataclass's fields and `copy` against the list.
COPIED_LISTS: Final = (
    "stock", "pile", "deads", "pending_rest", "melds", "totals", "hand_results",
)


class Deads:
    """The dead hands of a hand (docs/rules.md, sections 4 and 5), one value in `GameState.deads`.

    Per dead: its cards while it waits (`left`, None once gone), what became of it (`fate`, None
    while it waits) and the seat that took it (`taker`). Per team: the dead it took (`team_took`),
    whether at once (`direct`: a play emptied the hand, and the taker plays on) and the taker that
    has not played again since an indirect take (`unused`: the team's dead counts as unused at the
    hand's end, RULES 7). Who may take which dead, and when, is `deads`'s rule; this value only
    records it. A plain class rather than a dataclass, whose generated `__init__` stays
    interpreted in the compiled build (a trial of every take copies it).
    """

    __slots__ = ("left", "fate", "taker", "team_took", "direct", "unused")

    def __init__(
        self,
        left: list[tuple[Card, ...] | None] | None = None,
        fate: list[DeadFate | None] | None = None,
        taker: list[int | None] | None = None,
        team_took: list[int | None] | None = None,
        direct: list[bool] | None = None,
        unused: list[int | None] | None = None,
    ) -> None:
        self.left: list[tuple[Card, ...] | None] = [] if left is None else left
        self.fate: list[DeadFate | None] = [] if fate is None else fate
        self.taker: list[int | None] = [] if taker is None else taker
        self.team_took: list[int | None] = [] if team_took is None else team_took
        self.direct: list[bool] = [] if direct is None else direct
        self.unused: list[int | None] = [] if unused is None else unused

    def _values(self) -> tuple[Any, ...]:
        return (self.left, self.fate, self.taker, self.team_took, self.direct, self.unused)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Deads) and self._values() == other._values()

    __hash__ = None  # type: ignore[assignment]  # mutable: compared by value, never hashed

    def __repr__(self) -> str:
        return "Deads(" + ", ".join(f"{n}={v!r}" for n, v in zip(self.__slots__, self._values(), strict=True)) + ")"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Deads, self._values())

    @staticmethod
    def dealt(deads: Iterable[Iterable[Card]]) -> Deads:
        """Return the deads as the deal sets them aside: every one waiting, no team's taken."""
        return Deads([tuple(d) for d in deads], [None, None], [None, None], [None, None], [False, False], [None, None])

    def copy(self) -> Deads:
        """Return an independent copy (each list its own; the cards are immutable)."""
        return Deads(self.left.copy(), self.fate.copy(), self.taker.copy(), self.team_took.copy(),
                     self.direct.copy(), self.unused.copy())

    def lowest(self) -> int | None:
        """Return the lowest dead still waiting, or None."""
        for i, d in enumerate(self.left):
            if d is not None:
                return i
        return None

    def take(self, dead: int, player: int, team: int, direct: bool) -> tuple[Card, ...]:
        """Record that `player` of `team` took `dead` (at once when `direct`); return its cards."""
        cards = self.left[dead]
        assert cards is not None
        self.left[dead], self.fate[dead], self.taker[dead] = None, "taken", player
        self.team_took[team], self.direct[team] = dead, direct
        if not direct:
            self.unused[team] = player  # unused until the taker plays again
        return cards

    def to_stock(self, dead: int) -> tuple[Card, ...]:
        """Record that `dead` joined the stock (RULES 5); return its cards."""
        cards = self.left[dead]
        assert cards is not None
        self.left[dead], self.fate[dead] = None, "stock"
        return cards

    def waiting(self) -> list[tuple[Card, ...]]:
        """Return the cards of every dead still waiting, lowest first."""
        return [d for d in self.left if d is not None]


@dataclass(slots=True)
class GameState:
    """The whole table after some prefix of a log. `copy()` gives an independent snapshot."""

    rules: Rules = field(default_factory=lambda: DEFAULT_RULES)
    variant: str = ""
    game_id: str = ""
    players: tuple[str, ...] = ()
    phase: Phase = "start"
    next_seq: int = 0
    hand_no: int = -1
    first: int = 0
    first_of_game: int = 0
    to_play: int = 0
    turn: int = 0
    hands: list[Hand] = field(default_factory=list)
    stock: list[Card] = field(default_factory=list)  # top card last
    pile: list[Card] = field(default_factory=list)  # bottom first, top last
    deads: Deads = field(default_factory=Deads)
    dead_mode: DeadMode | None = None  # set while phase == "dead"
    pending_top: Card | None = None  # pile_top_use next_play: the top card the next play must hold
    pending_rest: list[Card] = field(default_factory=list)
    top_due: Card | None = None  # pile_top_use turn_end: the top card to meld before the turn ends
    refilling: bool = False  # refill all: another untaken dead joins the stock next (RULES 5)
    quiet_turns: int = 0  # turns in a row with no stock draw, meld or lay-off (RULES 5 stalemate)
    turn_progress: bool = False  # this turn drew from the stock, melded or laid off
    single_taken: Card | None = None
    last_turn: bool = False
    melds: list[Meld] = field(default_factory=list)
    closed_by: int | None = None
    end_reason: EndReason | None = None
    totals: list[int] = field(default_factory=lambda: [0, 0])
    hand_results: list[tuple[TeamScore, ...]] = field(default_factory=list)
    winner: int | None = None
    #: the sheets `hand_scores` counted last for this game, with what they were counted from
    #: (`_sheets_key`, by value): the table counts them for the `hand_ended` it offers and the
    #: apply of that event counts the same position again. No part of the state's value.
    scored: tuple[tuple[object, ...], tuple[TeamScore, TeamScore]] | None = field(
        default=None, compare=False, repr=False)
    #: the rules context of `rules` (`gate.rules_context`): the rule fields read every turn and
    #: the meld answers; no part of the value
    context: RulesContext = field(default_factory=lambda: DEFAULT_CONTEXT, compare=False, repr=False)

    @property
    def n_players(self) -> int:
        """Return the number of seats."""
        return len(self.players)

    def copy(self) -> GameState:
        """Return an independent copy (melds are immutable and shared): `shallow_copy`, then a
        copy of each list of `COPIED_LISTS` and of each hand, written out (compiled, a loop over
        the names would look each field up by name)."""
        new = shallow_copy(self)
        new.stock = self.stock.copy()
        new.pile = self.pile.copy()
        new.deads = self.deads.copy()
        new.pending_rest = self.pending_rest.copy()
        new.melds = self.melds.copy()
        new.totals = self.totals.copy()
        new.hand_results = self.hand_results.copy()
        new.hands = [h.copy() for h in self.hands]
        return new

    def hand_size(self, seat: int) -> int:
        """Return the number of cards a seat holds (a loop: compiled, `sum` of the values is a
        generic call; every view counts the other seats' hands)."""
        n = 0
        for k in self.hands[seat].values():
            n += k
        return n


def shallow_copy(state: GameState) -> GameState:
    """Return a new state sharing every field (list and hand) with `state`.

    Field by field, written out: faster than `dataclasses.replace` or a loop over the slots, and
    the same code in both builds (a class compiled by mypyc has no `__slots__` to loop over).
    `tests/test_engine.py` checks that it names every field of the dataclass.
    """
    new = GameState.__new__(GameState)
    new.rules = state.rules
    new.variant = state.variant
    new.game_id = state.game_id
    new.players = state.players
    new.phase = state.phase
    new.next_seq = state.next_seq
    new.hand_no = state.hand_no
    new.first = state.first
    new.first_of_game = state.first_of_game
    new.to_play = state.to_play
    new.turn = state.turn
    new.hands = state.hands
    new.stock = state.stock
    new.pile = state.pile
    new.deads = state.deads
    new.dead_mode = state.dead_mode
    new.pending_top = state.pending_top
    new.pending_rest = state.pending_rest
    new.top_due = state.top_due
    new.refilling = state.refilling
    new.quiet_turns = state.quiet_turns
    new.turn_progress = state.turn_progress
    new.single_taken = state.single_taken
    new.last_turn = state.last_turn
    new.melds = state.melds
    new.closed_by = state.closed_by
    new.end_reason = state.end_reason
    new.totals = state.totals
    new.hand_results = state.hand_results
    new.winner = state.winner
    new.scored = state.scored
    new.context = state.context
    return new
