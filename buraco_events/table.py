"""The table: the one driver of a game, over the engine's rules (as h11's Connection over its state).

Everything that runs a game goes through a `Table`: `sim.simulate` and `bots.run_game`, `buraco
play`, the tests' random games, and a game server or a club's scoring app (`docs/api.md`). The
engine knows the rules and nothing of who plays; the table knows who sits where and where chance
comes from, and does no I/O itself:

- seats: a seat holding a `Bot` is answered by the table itself (the bot sees only its seat's
  view); a seat without one is a human or a remote player, whose action comes in by `act`;
- a `record` callback gets each event once the engine has checked it and before the table applies
  it, so a log writer appends it first (write-ahead) and a failed write leaves the state alone;
- an explicit `RngPolicy` says which `random.Random` deals each hand and which one a bot deciding
  at a given seq gets. Three schemes exist and each reproduces its logs' bytes: `SeedStreams`
  (`buraco simulate`), `PositionSeeds` (`buraco play`, resumable) and `SharedStream` (one rng for
  everything: the tests' random games and the disputed logs' generator).

The player's side of the engine lives here too: an `Action` is a choice free of hidden information
(a draw does not name the card), `legal_choices` offers them with the events that record them,
`action_event` turns one into its event, and `table_event` is what the table (not a player)
records next. The deal itself stays in the engine (`engine.deal`): it is the rules' chance event,
built from whatever rng it is given; choosing that rng is this module's business.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, Protocol

import msgspec
from mypy_extensions import mypyc_attr

from .cards import Card, team_of, value_repr
from .commit import SaltSource, deal_commitment
from .deal import deal
from .discard import MAY_GO, card_bar
from .engine import PLAYING_PHASES, GameState, IllegalMove, apply, check, must_refill, sorted_held
from .events import (
    Discarded,
    Drew,
    Event,
    GameStarted,
    HandEnded,
    LaidOff,
    Melded,
    TookDead,
    TookPile,
    event_type,
)
from .hand_melds import hand_melds
from .melds import MeldShape
from .moves import (
    end_of_game,
    end_of_hand,
    has_two_discards,
    legal_dead_takes,
    legal_discards,
    legal_draws,
)
from .playcheck import checked_play, meld_entry
from .plays import Play, raw_plays
from .rules import Rules, canonical_variant, check_players, find_rules
from .seatview import player_view
from .views import View

#: a hand longer than this many turns is a bug in a bot or the engine, never a real game
MAX_TURNS_PER_HAND = 2000
#: a match longer than this many hands is stopped (bots that keep scoring below zero)
MAX_HANDS_PER_GAME = 200


# -- actions: legal moves without hidden information ------------------------------------------


#: the fields of an action, in constructor order
_ACTION_FIELDS: Final = ("kind", "cards", "meld", "dead")


class Action:
    """A player's choice, free of hidden information (a draw does not name the card).

    Kinds: `draw`, `pile`, `meld` (cards), `add` (meld, cards), `discard` (cards = one card),
    `dead` (dead). Immutable, compared and hashed by value.
    """

    __slots__ = (*_ACTION_FIELDS, "_memo")

    def __init__(
        self, kind: str, cards: tuple[Card, ...] = (), meld: int | None = None, dead: int | None = None
    ) -> None:
        self.kind: Final = kind
        self.cards: Final = cards
        self.meld: Final = meld
        self.dead: Final = dead
        #: a built-in bot's note on this action (the greedy bot's rating of a play, checked for
        #: the meld and rules it is for before use); no part of the action's value
        self._memo: object = None

    def _values(self) -> tuple[Any, ...]:
        return (self.kind, self.cards, self.meld, self.dead)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Action):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return value_repr("Action", _ACTION_FIELDS, self._values())

    def __reduce__(self) -> tuple[Any, ...]:
        return (Action, self._values())


_DRAW: Final = Action("draw")
_DISCARDS: Final[dict[Card, Action]] = {}


def action_of(ev: Event) -> Action:
    """Return the action a player's event records."""
    cls = type(ev)
    if cls is Discarded:  # the commonest offer: one shared (immutable) action per card
        action = _DISCARDS.get(ev.card)  # type: ignore[attr-defined]
        if action is None:
            action = _DISCARDS[ev.card] = Action("discard", (ev.card,))  # type: ignore[attr-defined]
        return action
    if cls is Drew:
        return _DRAW
    if cls is TookPile:  # offered at most draws, once per draw phase
        return Action("pile")
    if isinstance(ev, Drew):
        return Action("draw")
    if isinstance(ev, TookPile):
        return Action("pile")
    if isinstance(ev, Melded):
        return Action("meld", tuple(ev.cards))
    if isinstance(ev, LaidOff):
        return Action("add", tuple(ev.cards), ev.meld)
    if isinstance(ev, Discarded):
        return Action("discard", (ev.card,))
    if isinstance(ev, TookDead):
        return Action("dead", dead=ev.dead)
    raise ValueError(f"{event_type(ev)} is not a player's action")


#: the action of each candidate play seen lately: actions are immutable, so one is shared
#: rather than built each time a play is offered again
_PLAY_ACTIONS: Final[dict[Play, Action]] = {}
_PLAY_ACTIONS_MAX: Final = 1 << 16


def _play_action(play: Play) -> Action:
    """Return the action of a candidate play (a meld, or a lay-off onto a meld id)."""
    action = _PLAY_ACTIONS.get(play)
    if action is None:
        kind, meld_id, cards = play
        action = Action("meld", cards) if kind == "meld" else Action("add", cards, meld_id)
        if len(_PLAY_ACTIONS) >= _PLAY_ACTIONS_MAX:
            _PLAY_ACTIONS.clear()
        _PLAY_ACTIONS[play] = action
    return action


def _discard_action(card: Card) -> Action:
    """Return the (shared) action discarding `card`."""
    action = _DISCARDS.get(card)
    if action is None:
        action = _DISCARDS[card] = Action("discard", (card,))
    return action


def _hand_plays(state: GameState) -> tuple[list[Play], list[Action]]:
    """Return `engine.raw_plays` (no closed-pile top waiting) and the action of each play.

    The same plays in the same order: the hand's new melds (`melds.candidate_melds`, sorted),
    then, per team meld in table order, its lay-offs (`melds.shape_layoffs`, sorted). Lay-offs
    come from the meld's kept entry found by identity (`engine.meld_entry`); their plays and
    actions are kept with the entry's answer for those cards, so a decision that meets the same
    lay-offs again (the next decision of the turn, or of the next turn) builds nothing.
    """
    player, rules = state.to_play, state.rules
    hand = state.hands[player]
    raw: list[Play] = []
    actions: list[Action] = []
    found_melds, hand_mask = hand_melds(hand, rules)
    for cards in found_melds:
        play: Play = ("meld", None, cards)
        raw.append(play)
        actions.append(_play_action(play))
    team = team_of(player)
    held: tuple[Card, ...] | None = None
    for m in state.melds:
        if m.team != team:
            continue
        entry = meld_entry(m, rules)
        if not entry.gate_mask & hand_mask:
            continue  # every lay-off holds a card of the gate (`melds._gate`): none here
        if held is None:
            held = sorted_held(hand)
        found = entry.layoffs_in(held)
        if not found:
            continue
        kept = _LAYOFF_PLAYS.get(id(found))
        if kept is None or kept[0] is not found or kept[1] != m.id:
            plays: list[Play] = [("lay_off", m.id, cards) for cards in found]
            kept = (found, m.id, plays, [_play_action(play) for play in plays])
            if len(_LAYOFF_PLAYS) >= _LAYOFF_PLAYS_MAX:
                _LAYOFF_PLAYS.clear()
            _LAYOFF_PLAYS[id(found)] = kept
        raw.extend(kept[2])
        actions.extend(kept[3])
    return raw, actions


#: the plays and actions of a meld's lay-offs, by the id() of the kept answer of
#: `MeldFits.layoffs_of` (kept alive here) and the meld's id
_LAYOFF_PLAYS: Final[dict[int, tuple[tuple[tuple[Card, ...], ...], int, list[Play], list[Action]]]] = {}
_LAYOFF_PLAYS_MAX: Final = 1 << 14


def legal_actions(state: GameState) -> list[Action]:
    """Return the choices of the player to move (draw, play and dead phases)."""
    return [action for action, _ in legal_choices(state)]


def legal_choices(state: GameState) -> list[tuple[Action, Event]]:
    """Return the choices of the player to move, each with the event `action_event` gives for it.

    The melds, lay-offs, discards, draws and pile takes among them have passed `check` on this
    state (see `engine.legal_events` and `engine.legal_draws`); dead takes have not.
    """
    return Choices(state).all()


#: one choice: an action and the event that records it
Choice = tuple[Action, Event]


class Choices:
    """The choices of the player to move, generated per kind on first use (the table's lazy offer).

    `all()` is `legal_choices` (the same pairs in the same order); `draws()`, `plays()`,
    `discards()` and `deads()` are its parts, each computed only when asked, so a bot that decides
    from one kind (the greedy bot plays its best play without listing the discards) does not pay
    for the others. `candidates()` are the plays before their check, for a bot that ranks them and
    checks only the best with `play_event`. Only the table builds one; a bot reads it in `decide`.
    """

    def __init__(self, state: GameState) -> None:
        self._state = state
        #: the phase whose choices these are ("" when none is to move: refills, hand end, ...)
        self.phase: str = state.phase if state.phase in PLAYING_PHASES and not must_refill(state) else ""
        self._draws: list[Choice] | None = None
        self._plays: list[Choice] | None = None
        self._discards: list[Choice] | None = None
        self._deads: list[Choice] | None = None
        self._discard_actions: list[Action] | None = None
        self._raw: list[Play] | None = None
        self._candidates: list[Action] | None = None
        #: the check of each candidate so far: its event, or None when refused
        self._checked: dict[int, Event | None] = {}

    def draws(self) -> list[Choice]:
        """Return the draw phase's choices: the draw, then the pile take when `check` allows it."""
        if self._draws is None:
            events = legal_draws(self._state) if self.phase == "draw" else []
            self._draws = [(action_of(ev), ev) for ev in events]
        return self._draws

    def candidates(self) -> list[Action]:
        """Return the play phase's melds and lay-offs before their check, in `plays()` order.

        Some may be refused by the rules: `play_event(i)` says which (None) and `plays()` keeps
        the others.
        """
        if self._candidates is None:
            state = self._state
            if self.phase != "play":
                self._raw, self._candidates = [], []
            elif state.pending_top is not None:  # a closed pile's top waits: the engine's own list
                self._raw = raw_plays(state)
                self._candidates = [_play_action(play) for play in self._raw]
            else:
                self._raw, self._candidates = _hand_plays(state)
        return self._candidates

    def play_event(self, index: int) -> Event | None:
        """Return the checked event of candidate `index`, or None when the rules refuse it."""
        checked = self._checked
        if index in checked:
            return checked[index]
        self.candidates()
        assert self._raw is not None
        event = checked[index] = checked_play(self._state, self._raw[index])
        return event

    def plays(self) -> list[Choice]:
        """Return the legal melds and lay-offs (`engine.candidate_plays`, in its order)."""
        if self._plays is None:
            candidates = self.candidates()
            out: list[Choice] = []
            for i, action in enumerate(candidates):
                event = self.play_event(i)
                if event is not None:
                    out.append((action, event))
            self._plays = out
        return self._plays

    def discards(self) -> list[Choice]:
        """Return the legal discards (`engine.legal_discards`)."""
        if self._discards is None:
            events = legal_discards(self._state) if self.phase == "play" else []
            self._discards = [(action_of(ev), ev) for ev in events]
        return self._discards

    def discard_actions(self) -> list[Action]:
        """Return the actions of `discards()`, in its order, building their events only when
        `discards()` must check the cards one by one.

        Where `moves.has_two_discards` holds (two distinct cards or more may go) no card asked is
        the last one held, so the discard rule (`discard.card_bar`) answers each card held
        without an event; `event_of` builds the chosen one's event.
        """
        if self._discard_actions is None:
            state = self._state
            if self._discards is None and self.phase == "play" and has_two_discards(state):
                player = state.to_play
                held = [c for c in state.hands[player] if card_bar(state, player, c, False) == MAY_GO]
                held.sort()
                self._discard_actions = [_discard_action(c) for c in held]
            else:
                self._discard_actions = [a for a, _ in self.discards()]
        return self._discard_actions

    def deads(self) -> list[Choice]:
        """Return the dead phase's choices: the deads the player may take."""
        if self._deads is None:
            events = legal_dead_takes(self._state) if self.phase == "dead" else []
            self._deads = [(action_of(ev), ev) for ev in events]
        return self._deads

    def all(self) -> list[Choice]:
        """Return every choice (`legal_choices`): draws, or plays then discards, or deads."""
        if self.phase == "draw":
            return list(self.draws())
        if self.phase == "play":
            return [*self.plays(), *self.discards()]
        return list(self.deads())

    def single(self) -> Choice | None:
        """Return the one choice when exactly one is legal, else None (a forced move).

        In the play phase the discards are counted first: two of them settle it without a check
        of any play (`engine.has_two_discards` most often settles it without listing them).
        """
        if self.phase != "play":
            choices = self.all()
            return choices[0] if len(choices) == 1 else None
        if has_two_discards(self._state):
            return None  # settled without listing the discards (the bot may not need them)
        discards = self.discards()
        if len(discards) >= 2:
            return None
        found: list[Choice] = list(discards)
        for i, action in enumerate(self.candidates()):
            event = self.play_event(i)
            if event is not None:
                found.append((action, event))
                if len(found) >= 2:
                    return None
        return found[0] if len(found) == 1 else None

    def event_of(self, action: object) -> Event | None:
        """Return the event of an offered `action` (None when it is not a legal choice, or not an
        `Action` at all: a user's bot may answer anything)."""
        if not isinstance(action, Action):
            return None
        kind = action.kind
        if kind in ("meld", "add"):
            if self.phase != "play":
                return None
            candidates = self.candidates()
            for i, offered in enumerate(candidates):  # the bot's own object: found by identity
                if offered is action:
                    return self.play_event(i)
            for i, offered in enumerate(candidates):
                if offered == action:
                    return self.play_event(i)
            return None
        if kind == "discard" and self._discards is None and self._discard_actions is not None:
            # offered by `discard_actions` without events: the event of the one chosen
            for offered in self._discard_actions:
                if offered is action or offered == action:
                    state = self._state
                    return Discarded(seq=state.next_seq, player=state.to_play, card=offered.cards[0])
            return None
        group = self.discards() if kind == "discard" else self.deads() if kind == "dead" else self.draws()
        for offered, event in group:  # the bot's own object first: no value __eq__ on the way
            if offered is action:
                return event
        for offered, event in group:  # no two offered actions of a group are equal
            if offered == action:
                return event
        return None


def action_event(state: GameState, action: Action) -> Event:
    """Return the event recording `action` by the player to move (not yet checked)."""
    seq, player = state.next_seq, state.to_play
    kind = action.kind
    if kind == "draw":
        if not state.stock:
            raise IllegalMove(seq, player, state.phase, "the stock is empty")
        return Drew(seq=seq, player=player, card=state.stock[-1])
    if kind == "pile":
        return TookPile(seq=seq, player=player, cards=tuple(state.pile))
    if kind == "meld":
        return Melded(seq=seq, player=player, meld=len(state.melds), cards=action.cards)
    if kind == "add":
        return LaidOff(seq=seq, player=player, meld=action.meld or 0, cards=action.cards)
    if kind == "discard":
        return Discarded(seq=seq, player=player, card=action.cards[0])
    if kind == "dead":
        index = action.dead or 0
        if not 0 <= index < len(state.deads):
            raise IllegalMove(seq, player, state.phase, f"there is no dead {index}: the deads are 0 and 1")
        dead = state.deads[index]
        return TookDead(seq=seq, player=player, dead=index, cards=dead or ())
    raise ValueError(f"unknown action kind {kind!r}")


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


# -- seats and chance --------------------------------------------------------------------------


class Bot(Protocol):
    """A player the table asks: picks one of the legal actions from what its seat may see.

    The bot protocol of `docs/api.md`: a `name`, and `choose(view, actions, rules, rng)` returning
    one of `actions`. `view` is `projections.player_view(state, seat, scores=False)`; `rng` is the
    table's (`RngPolicy.seat_rng`), so a bot that draws only from it plays reproducibly. A bot may
    also have `decide(view, choices, rules, rng)`, which the table calls instead: `choices` is the
    lazy `Choices` offer (docs/api.md), and the answer is one of its actions.
    """

    name: str

    def choose(self, view: View, actions: list[Action], rules: Rules, rng: random.Random) -> Action:
        """Return one of `actions`."""
        ...


class RngPolicy(Protocol):
    """Where chance comes from: the rng that deals each hand and the one a deciding bot gets.

    The engine draws no random numbers; a policy is the table's only source of them, so the same
    policy (and the same seats) give the same events. A policy whose rngs depend only on the
    position in the game (`PositionSeeds`) also continues a resumed game exactly.
    """

    #: what the game's seed was, for error messages (None when the policy has none)
    seed: int | None

    def deal_rng(self, hand: int) -> random.Random:
        """Return the rng that deals hand `hand` (0-based)."""
        ...

    def seat_rng(self, seq: int) -> random.Random:
        """Return the rng of the bot deciding the event at `seq`."""
        ...


class SeedStreams:
    """`buraco simulate`'s scheme: one stream for every deal, another for every bot decision.

    Deals come from `Random(f"deal/{seed}")` and bots draw from `Random(f"bots/{seed}")` in play
    order (string seeds hash with SHA-512: stable across runs and processes), so the deals do not
    depend on the bots. A stream's position depends on what came before: a resumed game deals on
    legally, but not as the uninterrupted game would have.
    """

    def __init__(self, seed: int):
        self.seed: int | None = seed
        self._deals = random.Random(f"deal/{seed}")
        self._bots = random.Random(f"bots/{seed}")

    def deal_rng(self, hand: int) -> random.Random:
        """Return the deal stream (the hand number is not used)."""
        return self._deals

    def seat_rng(self, seq: int) -> random.Random:
        """Return the bot stream (the seq is not used)."""
        return self._bots


class PositionSeeds:
    """`buraco play`'s scheme: chance depends only on the seed and the position in the game.

    Hand N is dealt from `Random(f"{seed}:{N}")` and the bot deciding at seq S gets
    `Random(f"{seed}:bot:{S}")`, so a game resumed from its log continues exactly as the
    uninterrupted one would with the same input.
    """

    def __init__(self, seed: int):
        self.seed: int | None = seed

    def deal_rng(self, hand: int) -> random.Random:
        """Return a fresh rng for hand `hand`."""
        return random.Random(f"{self.seed}:{hand}")

    def seat_rng(self, seq: int) -> random.Random:
        """Return a fresh rng for the decision at `seq`."""
        return random.Random(f"{self.seed}:bot:{seq}")


class SharedStream:
    """One rng for everything, deals and decisions in play order (the tests' random games)."""

    def __init__(self, rng: random.Random, seed: int | None = None):
        self.rng, self.seed = rng, seed

    def deal_rng(self, hand: int) -> random.Random:
        """Return the shared rng."""
        return self.rng

    def seat_rng(self, seq: int) -> random.Random:
        """Return the shared rng."""
        return self.rng


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

#: the event kinds `legal_choices` offers only once they passed `engine.check` (a draw by
#: construction: see `engine.legal_draws`)
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
    commitment of the salt `salts(hand)` and its `hand_ended` reveals that salt (`commit.py`
    has the sources). `seats`, `rng`, `salts` and `record` are plain attributes: a resumed game
    may set them once its setup is known. `state` is the live state: read it, never change it.
    """

    def __init__(
        self,
        seats: Mapping[int, Bot] | Sequence[Bot | None] = (),
        rng: RngPolicy | None = None,
        record: Recorder | None = None,
        *,
        ask_forced: bool = False,
        salts: SaltSource | None = None,
    ) -> None:
        self.seats: dict[int, Bot] = _seat_map(seats)
        self.rng = rng
        self.record = record
        #: the salt of each hand's deal commitment (None: deals are not committed)
        self.salts = salts
        #: ask a bot even when one action is legal (by default a forced move is made for it,
        #: with no view built and no rng drawn)
        self.ask_forced = ask_forced
        self.state = GameState()

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
            hand = deal(state, self._policy().deal_rng(state.hand_no + 1))
            if self.salts is not None:
                salt = self.salts(hand.hand)
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
        decide = getattr(player, "decide", None) if _prefers_decide(type(player)) else None
        event: Event | None = None
        action: object = None
        try:
            if decide is not None:
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


def _seat_map(seats: Mapping[int, Bot] | Sequence[Bot | None]) -> dict[int, Bot]:
    """Return the seat -> bot mapping of a list (None = no bot) or of a mapping."""
    if isinstance(seats, Mapping):
        return dict(seats)
    return {seat: bot for seat, bot in enumerate(seats) if bot is not None}


__all__ = [
    "MAX_HANDS_PER_GAME", "MAX_TURNS_PER_HAND", "Action", "Bot", "BotError", "Choice", "Choices", "EndlessGame",
    "PositionSeeds", "Recorder", "RngPolicy", "SeedStreams", "SharedStream", "Table", "WrongSeat",
    "action_event", "action_of", "legal_actions", "legal_choices", "start_event", "table_event",
]
