"""The table: the one driver of a game, over the engine's rules (as h11's Connection over its state).

Everything that runs a game goes through a `Table`: `sim.simulate` and `bots.run_game`, `buraco
play`, the tests' random games, and a game server or a club's scoring app (`docs/api.md`). The
engine knows the rules and nothing of who plays; the table knows who sits where and where chance
comes from, and does no I/O itself:

- seats: a seat holding a `Bot` is answered by the table itself (the bot sees only its seat's
  view and the `choices.Choices` offered); a seat without one is a human or a remote player,
  whose `choices.Action` comes in by `act`;
- a `record` callback gets each event once the engine has checked it and before the table applies
  it, so a log writer appends it first (write-ahead) and a failed write leaves the state alone;
- an explicit `seeds.RngPolicy` says which `random.Random` deals each hand and which one a bot
  deciding at a given seq gets.

Every event the table records carries the seq the table gives it, the live state's `next_seq`
(`choices.action_event`, the engine's offers and the table's own events all take it from the
state); a log writer checks it against its own line count (`log.LogWriter.append`'s
`expected_seq`). `table_event` is what the
table (not a player) records next. The deal itself stays in the engine (`deal.deal`): it is the
rules' chance event, built from whatever rng the policy gives.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, Protocol

import msgspec
from mypy_extensions import mypyc_attr

from buraco_events.model.events import (
    Discarded,
    Drew,
    Event,
    GameStarted,
    HandEnded,
    HandStarted,
    LaidOff,
    Melded,
    TookPile,
)
from buraco_events.model.rules import Rules, canonical_variant, check_players, find_rules
from buraco_events.model.views import View

from .choices import Action, Choices, action_event, legal_actions
from .commit import SaltSource, deal_commitment
from .deads import must_refill
from .deal import deal
from .engine import apply, check
from .gate import IllegalMove
from .infoset import InfoSetError, Unseen, knowledge_of
from .melds import MeldShape
from .seatview import player_view
from .seeds import PositionSeeds, RngPolicy
from .sheets import end_of_game, end_of_hand
from .state import PLAYING_PHASES, GameState
from .turn import legal_draws

#: a hand longer than this many turns is a bug in a bot or the engine, never a real game
MAX_TURNS_PER_HAND = 2000
#: a match longer than this many hands is stopped (bots that keep scoring below zero)
MAX_HANDS_PER_GAME = 200


def table_event(state: GameState, rng: random.Random | None = None) -> Event | None:
    """Return the event the table (not a player) records next, or None when a player must act.

    Deals with the injected `rng` (needed in the deal phase only); refills the stock from the
    lowest untaken dead; ends hands and the match with the engine's own scores.
    """
    phase = state.phase
    if phase == "deal":
        if rng is None:
            raise ValueError("the deal needs an rng")
        return deal(state, rng)
    if must_refill(state):
        return legal_draws(state)[0]
    if phase == "hand_end":
        return end_of_hand(state)
    if phase == "game_end":
        return end_of_game(state)
    return None


# -- seats and their errors ----------------------------------------------------------------------


class Bot(Protocol):
    """A player the table asks: picks one of the legal actions from what its seat may see.

    The bot protocol of `docs/api.md`: a `name`, and `choose(view, actions, rules, rng)` returning
    one of `actions`. `view` is `projections.player_view(state, seat, scores=False)`; `rng` is the
    table's (`RngPolicy.seat_rng`), so a bot that draws only from it plays reproducibly. A bot may
    also have `decide(view, choices, rules, rng)`, which the table calls instead: `choices` is the
    lazy `Choices` offer (docs/api.md), and the answer is one of its actions. A bot that plays by
    sampling the cards it cannot see has `decide_unseen(view, choices, rules, unseen, rng)` instead:
    `unseen` is an `infoset.Unseen` (its information set, and tables dealt from it), or None
    while a closed pile is being taken.
    """

    name: str

    def choose(self, view: View, actions: list[Action], rules: Rules, rng: random.Random) -> Action:
        """Return one of `actions`."""
        ...


# mypyc compiles no subclass of RuntimeError: in the compiled build this stays a Python class
@mypyc_attr(native_class=False)
class EndlessGame(RuntimeError):
    """A hand or a match ran past the safety bound (a bug: real games end far sooner)."""


class WrongSeat(IllegalMove):
    """An action by a seat that is not the one to move; the table is left unchanged."""


class BotError(ValueError):
    """A bot failed, or answered with an action the engine did not offer."""


#: gets each event after the engine checked it and before the table applies it
Recorder = Callable[[Event], None]
#: the deal of the hand about to start when it is fixed already (a branch deals its parent's
#: recorded hands), else None: the rng policy deals it
DealSource = Callable[[GameState], "HandStarted | None"]

#: the event kinds `legal_choices` offers only once they passed `engine.check` (a draw by
#: construction: see `moves.legal_draws`)
_CHECKED_WHEN_OFFERED: Final = (Melded, LaidOff, Discarded, TookPile, Drew)
#: `isinstance(event, _CHECKED_WHEN_OFFERED)` by the event's class, asked once per class (a
#: Struct class's isinstance goes through its metaclass: slow at every step)
_CHECKED_BY_TYPE: Final[dict[type, bool]] = {}


def _checked_when_offered(event: Event) -> bool:
    """Return `isinstance(event, _CHECKED_WHEN_OFFERED)`, kept per class."""
    cls = type(event)
    known = _CHECKED_BY_TYPE.get(cls)
    if known is None:
        known = _CHECKED_BY_TYPE[cls] = isinstance(event, _CHECKED_WHEN_OFFERED)
    return known


def start_event(
    variant: str, players: Sequence[str], game_id: str, target: int | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> GameStarted:
    """Return the `game_started` of a new game, with the full rules written into it.

    `variant` is a preset name or alias, `target` (0 = a single hand) and `overrides` change the
    preset's rules. Raises ValueError (`rules.UnknownVariant`) for an unknown variant or a player
    count other than 2 or 4.
    """
    check_players(len(players))
    name = canonical_variant(variant)
    rules = find_rules(name, **(overrides or {}))
    if target is not None:
        rules = msgspec.structs.replace(rules, target=target)
    return GameStarted(
        seq=0, game_id=game_id, variant=name, players=tuple(players), rules=rules, target=rules.target,
    )


# a game server may subclass the table: allowed in the compiled build too
@mypyc_attr(allow_interpreted_subclasses=True)
class Table:
    """A game being played: the live state, who sits where, where chance comes from.

    `step` records the next event the table or a bot seat owes (None when a seat without a bot must
    act, or the game is over); `advance` steps as far as it can; `act` applies the action of the
    seat to move and advances. Every event is checked by the engine before `record` sees it and
    before it is applied: an illegal one raises `IllegalMove` and changes nothing.

    `salts` commits every deal (docs/log-format.md): the table's `hand_started` carries the
    commitment of the salt `salts(hand)` and its `hand_ended` reveals that salt (`log/commit.py`
    has the sources); a salt source may answer None for a hand whose salt is unknown (its deal is
    then not committed, or its commitment stays unrevealed). `deals` gives a deal that is fixed
    already (a branch's parent recorded it: `play.branch`), taken as it is; the rng deals the
    others. `seats`, `rng`, `salts`, `deals` and `record` are plain attributes: a resumed game may
    set them once its setup is known. `state` is the live state: read it, never change it.
    """

    def __init__(
        self,
        seats: Mapping[int, Bot] | Sequence[Bot | None] = (),
        rng: RngPolicy | None = None,
        record: Recorder | None = None,
        *,
        ask_forced: bool = False,
        salts: SaltSource | None = None,
        deals: DealSource | None = None,
    ) -> None:
        self.seats: dict[int, Bot] = _seat_map(seats)
        self.rng = rng
        self.record = record
        #: the salt of each hand's deal commitment (None: deals are not committed)
        self.salts = salts
        #: the deals fixed already (None: every deal comes from the rng policy)
        self.deals = deals
        #: ask a bot even when one action is legal (by default a forced move is made for it,
        #: with no view built and no rng drawn)
        self.ask_forced = ask_forced
        self.state = GameState()
        #: every event committed, in order: what a bot that samples the unseen cards
        #: (`decide_unseen`) remembers of the public ones (`infoset.knowledge_of`)
        self.history: list[Event] = []

    # -- starting and resuming -------------------------------------------------------------

    @classmethod
    def start(
        cls,
        variant: str,
        players: Sequence[str],
        *,
        game_id: str,
        seats: Mapping[int, Bot] | Sequence[Bot | None] = (),
        rng: RngPolicy | int | None = None,
        target: int | None = None,
        overrides: Mapping[str, Any] | None = None,
        record: Recorder | None = None,
        ask_forced: bool = False,
        salts: SaltSource | None = None,
    ) -> Table:
        """Return a new table that has recorded its `game_started` (see `start_event`).

        `players` are the names in seat order; `seats` the bots (a list with None for the other
        seats, or a seat -> bot mapping); `rng` a policy, or an int seed for `PositionSeeds`;
        `salts` commits each deal (see the class).
        """
        if isinstance(rng, int):
            rng = PositionSeeds(rng)
        table = cls(seats, rng, record, ask_forced=ask_forced, salts=salts)
        table.append(start_event(variant, players, game_id, target, overrides))
        return table

    @classmethod
    def resume(
        cls,
        events: Iterable[Event],
        *,
        seats: Mapping[int, Bot] | Sequence[Bot | None] = (),
        rng: RngPolicy | int | None = None,
        record: Recorder | None = None,
        ask_forced: bool = False,
        salts: SaltSource | None = None,
    ) -> Table:
        """Return a table that replayed `events` (checked, not passed to `record`).

        Raises `IllegalMove` at the first event the rules refuse. With a position-keyed policy
        (`PositionSeeds`, or an int seed) the game continues as it would have uninterrupted.
        """
        if isinstance(rng, int):
            rng = PositionSeeds(rng)
        table = cls(seats, rng, None, ask_forced=ask_forced, salts=salts)
        for event in events:
            table.append(event)
        table.record = record
        return table

    # -- what a program asks -----------------------------------------------------------------

    @property
    def over(self) -> bool:
        """Return whether the match is over."""
        return self.state.phase == "over"

    @property
    def to_move(self) -> int | None:
        """Return the seat whose action the table waits for, or None when the table records next."""
        state = self.state
        if state.phase not in PLAYING_PHASES or must_refill(state):
            return None
        return state.to_play

    def legal_actions(self) -> list[Action]:
        """Return the legal actions of the seat to move (empty when none is to move)."""
        return legal_actions(self.state)

    def view(self, seat: int | None) -> View:
        """Return what `seat` may see now (`projections.player_view`; None: everything)."""
        return player_view(self.state, seat)

    # -- what a program does -----------------------------------------------------------------

    def append(self, event: Event) -> Event:
        """Check `event`, record it, apply it and return it (a note, or an event from elsewhere)."""
        return self._commit(event, check(self.state, event))

    def act(self, seat: int, action: Action, *, advance: bool = True) -> list[Event]:
        """Apply the action of `seat` and return the events appended (with `advance`, also the
        table's and the bot seats' that follow, up to the next seat without a bot).

        Raises `WrongSeat` when `seat` is not the one to move and `IllegalMove` (naming the rule)
        when the engine refuses the action; either way the table is left unchanged.
        """
        state, to_move = self.state, self.to_move
        if to_move != seat:
            if state.phase == "over":
                raise WrongSeat(state.next_seq, seat, state.phase, "the game is over")
            waits = "the table records the next event" if to_move is None else f"it is seat {to_move}'s turn"
            raise WrongSeat(state.next_seq, seat, state.phase, f"{waits}, not seat {seat}'s")
        events = [self.append(action_event(state, action))]
        if advance:
            events += self.advance()
        return events

    def step(self) -> Event | None:
        """Record the next event the table or a bot seat owes; None when a seat without a bot
        must act or the game is over. Raises `EndlessGame` past the safety bounds."""
        state = self.state
        if state.phase == "over":
            return None
        if state.phase == "deal":
            if state.hand_no + 1 >= MAX_HANDS_PER_GAME:
                raise EndlessGame(f"{self._name()}: no team reached {state.rules.target} in {MAX_HANDS_PER_GAME} hands")
            fixed = self.deals(state) if self.deals is not None else None
            if fixed is not None:
                return self.append(fixed)
            hand = deal(state, self._policy().deal_rng(state.hand_no + 1))
            salt = self.salts(hand.hand) if self.salts is not None else None
            if salt is not None:
                hand = msgspec.structs.replace(hand, commitment=deal_commitment(salt, hand))
            return self.append(hand)
        event = table_event(state)
        if event is not None:
            if self.salts is not None and isinstance(event, HandEnded):
                # the hand ends (closed, or the stock ran out): reveal its deal's salt
                event = msgspec.structs.replace(event, salt=self.salts(state.hand_no))
            return self.append(event)
        seat = state.to_play
        bot = self.seats.get(seat)
        if bot is None:
            return None
        if state.turn > MAX_TURNS_PER_HAND:
            raise EndlessGame(f"{self._name()}: hand {state.hand_no} passed {MAX_TURNS_PER_HAND} turns")
        choices = Choices(state)
        single = None if self.ask_forced else choices.single()
        if single is not None:
            event = single[1]  # a forced move: no view to build, no choice to ask for
        else:
            event = self._ask(bot, seat, choices)
        # the offered event equals `action_event(state, action)`; the engine checked it on this
        # very state unless it is a dead take, so only those are checked again
        if _checked_when_offered(event):
            return self._commit(event)
        return self.append(event)

    def advance(self) -> list[Event]:
        """Step until a seat without a bot must act or the game is over; return the events."""
        events = []
        while (event := self.step()) is not None:
            events.append(event)
        return events

    def run(self) -> GameState:
        """Play to the end with bots in every seat and return the final state."""
        self.advance()
        if not self.over:
            raise ValueError(f"seat {self.state.to_play} has no bot: give it one, or drive it with `act`")
        return self.state

    # -- inside ----------------------------------------------------------------------------

    def _ask(self, bot: Bot, seat: int, choices: Choices) -> Event:
        """Return the event of the choice `bot` makes at `seat` (`decide` when it has one)."""
        state = self.state
        rng = self._policy().seat_rng(state.next_seq)
        view = player_view(state, seat, scores=False)
        # a user's bot may answer anything, and the checks below say so in both builds: called
        # as a `Bot` (`-> Action`), mypyc's compiled code would raise TypeError first
        player: Any = bot
        unseen = getattr(player, "decide_unseen", None)
        decide = getattr(player, "decide", None) if _prefers_decide(type(player)) else None
        event: Event | None = None
        action: object = None
        try:
            if unseen is not None:
                # tables dealt from the seat's information set: never the true hidden cards
                action = unseen(view, choices, state.rules, _unseen(state, self.history, seat), rng)
                event = choices.event_of(action)
            elif decide is not None:
                action = decide(view, choices, state.rules, rng)
                event = choices.event_of(action)
            else:
                offered = choices.all()
                actions = [a for a, _ in offered]
                action = player.choose(view, actions, state.rules, rng)
                for offered_action, offered_event in offered:
                    if offered_action == action:
                        event = offered_event
                        break
        except Exception as exc:  # a user's bot (docs/api.md) failed: name it, in one line
            raise BotError(f"{state.game_id}: bot {bot.name} at seat {seat} failed: {type(exc).__name__}: {exc}") from exc
        if event is None:
            raise BotError(f"{state.game_id}: bot {bot.name} at seat {seat} chose an action not offered: {action}")
        return event

    def _commit(self, event: Event, shape: MeldShape | None = None) -> Event:
        """Record a checked event, then apply it (write-ahead: a failed record applies nothing);
        `shape` is what its check found, if it was checked here."""
        if self.record is not None:
            self.record(event)
        apply(self.state, event, shape)
        self.history.append(event)
        return event

    def _policy(self) -> RngPolicy:
        if self.rng is None:
            raise ValueError("this table has no rng policy: give one to deal and to ask bots")
        return self.rng

    def _name(self) -> str:
        seed = self.rng.seed if self.rng is not None else None
        return self.state.game_id if seed is None else f"{self.state.game_id} (seed {seed})"


_DECIDES: Final[dict[type, bool]] = {}


def _prefers_decide(cls: type) -> bool:
    """Return whether a bot of class `cls` is asked through `decide` rather than `choose`.

    `decide` is used only where it is at least as specific as `choose`: a user's subclass of a
    built-in bot that overrides `choose` alone meant its own `choose` to be asked.
    """
    known = _DECIDES.get(cls)
    if known is None:
        known = False
        for klass in cls.__mro__:
            names = vars(klass)
            if "decide" in names:
                known = True
                break
            if "choose" in names:
                break
        _DECIDES[cls] = known
    return known


def _unseen(state: GameState, history: list[Event], seat: int) -> Unseen | None:
    """Return what `seat` may use of the cards it cannot see, or None while cards are in passage
    (a closed pile being taken): then nothing hidden is in question."""
    try:
        return Unseen(state, knowledge_of(history), seat)
    except InfoSetError:
        return None


def _seat_map(seats: Mapping[int, Bot] | Sequence[Bot | None]) -> dict[int, Bot]:
    """Return the seat -> bot mapping of a list (None = no bot) or of a mapping."""
    if isinstance(seats, Mapping):
        return dict(seats)
    return {seat: bot for seat, bot in enumerate(seats) if bot is not None}


__all__ = [
    "MAX_HANDS_PER_GAME", "MAX_TURNS_PER_HAND", "Bot", "BotError", "EndlessGame", "Recorder", "Table", "WrongSeat",
    "start_event", "table_event",
]
