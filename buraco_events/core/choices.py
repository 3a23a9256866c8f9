"""A player's side of the engine: the `Action` a seat chooses and the `Choices` it is offered.

An `Action` is a choice free of hidden information (a draw does not name the card); `Choices` is
the lazy offer of the legal ones to the player to move, each with the event that records it, and
`action_event` is the one function that turns an action into its event. The shared action
objects (`_DISCARDS`, `_PLAY_ACTIONS`, `_LAY_OFF_PLAYS`) let a bot's choice be found by identity.
This is its own module because what a player may choose, and how a choice is recorded, change
with the moves the rules allow, not with how a table is driven (`table`) or where chance comes
from (`seeds`).
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, Literal

from buraco_events.model.events import (
    Discarded,
    Drew,
    Event,
    LaidOff,
    Melded,
    TookDead,
    TookPile,
    event_type,
)

from .cards import Card, Value
from .deads import legal_dead_takes, must_refill
from .gate import IllegalMove, team_of
from .hand_melds import hand_melds
from .playcheck import checked_play, meld_entry
from .plays import CardPlay, raw_plays
from .state import PLAYING_PHASES, GameState, sorted_held
from .turn import MAY_GO, card_bar, has_two_discards, legal_discards, legal_draws

#: the fields of an action, in constructor order
_ACTION_FIELDS: Final = ("kind", "cards", "meld", "dead")
#: what an action does: draw from the stock, take the pile, meld, lay off onto a meld (`add`, as
#: the public API names it; the log's event is `laid_off`), discard, take a dead
ActionKind = Literal["draw", "pile", "meld", "add", "discard", "dead"]


class Action(Value):
    """A player's choice, free of hidden information (a draw does not name the card).

    The one form of a move on its way to the log: a bot's answer, a typed command
    (`commands.parse_command`) and a remote player's move (`table.Table.act`) are all an
    `Action`, and `action_event` alone makes its event, with the seq the state gives.

    Kinds: `draw`, `pile`, `meld` (cards), `add` (meld, cards), `discard` (cards = one card),
    `dead` (dead). Immutable, compared and hashed by value.
    """

    __slots__ = _ACTION_FIELDS
    _FIELDS: ClassVar[tuple[str, ...]] = _ACTION_FIELDS

    def __init__(
        self, kind: ActionKind, cards: tuple[Card, ...] = (), meld: int | None = None, dead: int | None = None
    ) -> None:
        self.kind: Final = kind
        self.cards: Final = cards
        self.meld: Final = meld
        self.dead: Final = dead

    def _values(self) -> tuple[Any, ...]:
        return (self.kind, self.cards, self.meld, self.dead)


_DRAW: Final = Action("draw")
_DISCARDS: Final[dict[Card, Action]] = {}


def action_of(ev: Event) -> Action:
    """Return the action a player's event records (the inverse of `action_event`)."""
    cls = type(ev)
    if cls is Discarded:  # the commonest offer: one shared (immutable) action per card
        return _discard_action(ev.card)  # type: ignore[attr-defined]
    if cls is Drew:
        return _DRAW
    if cls is TookPile:  # offered at most once per draw phase
        return Action("pile")
    if isinstance(ev, Drew):
        return _DRAW
    if isinstance(ev, TookPile):
        return Action("pile")
    if isinstance(ev, Melded):
        return Action("meld", tuple(ev.cards))
    if isinstance(ev, LaidOff):
        return Action("add", tuple(ev.cards), ev.meld)
    if isinstance(ev, Discarded):
        return _discard_action(ev.card)
    if isinstance(ev, TookDead):
        return Action("dead", dead=ev.dead)
    raise ValueError(f"{event_type(ev)} is not a player's action")


#: the action of each candidate play seen lately: actions are immutable, so one is shared
#: rather than built each time a play is offered again
_PLAY_ACTIONS: Final[dict[CardPlay, Action]] = {}
_PLAY_ACTIONS_MAX: Final = 1 << 16


def _play_action(play: CardPlay) -> Action:
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


def _hand_plays(state: GameState) -> tuple[list[CardPlay], list[Action]]:
    """Return `plays.raw_plays` (no closed-pile top waiting) and the action of each play.

    The same plays in the same order: the hand's new melds (`hand_melds.candidate_melds`, sorted),
    then, per team meld in table order, its lay-offs (`fits.shape_lay_offs`, sorted). Lay-offs
    come from the meld's kept entry found by identity (`playcheck.meld_entry`); their plays and
    actions are kept with the entry's answer for those cards, so a decision that meets the same
    lay-offs again (the next decision of the turn, or of the next turn) builds nothing.
    """
    player, rules = state.to_play, state.rules
    hand = state.hands[player]
    raw: list[CardPlay] = []
    actions: list[Action] = []
    found_melds, hand_mask = hand_melds(hand, rules)
    for cards in found_melds:
        play: CardPlay = ("meld", None, cards)
        raw.append(play)
        actions.append(_play_action(play))
    team = team_of(player)
    held: tuple[Card, ...] | None = None
    for m in state.melds:
        if m.team != team:
            continue
        entry = meld_entry(m, rules)
        if not entry.gate_mask & hand_mask:
            continue  # every lay-off holds a card of the gate (`fits._gate`): none here
        if held is None:
            held = sorted_held(hand)
        found = entry.lay_offs_in(held)
        if not found:
            continue
        kept = _LAY_OFF_PLAYS.get(id(found))
        if kept is None or kept[0] is not found or kept[1] != m.id:
            plays: list[CardPlay] = [("lay_off", m.id, cards) for cards in found]
            kept = (found, m.id, plays, [_play_action(play) for play in plays])
            if len(_LAY_OFF_PLAYS) >= _LAY_OFF_PLAYS_MAX:
                _LAY_OFF_PLAYS.clear()
            _LAY_OFF_PLAYS[id(found)] = kept
        raw.extend(kept[2])
        actions.extend(kept[3])
    return raw, actions


#: the plays and actions of a meld's lay-offs, by the id() of the kept answer of
#: `MeldFits.lay_offs_of` (kept alive here) and the meld's id
_LAY_OFF_PLAYS: Final[dict[int, tuple[tuple[tuple[Card, ...], ...], int, list[CardPlay], list[Action]]]] = {}
_LAY_OFF_PLAYS_MAX: Final = 1 << 14


def legal_actions(state: GameState) -> list[Action]:
    """Return the choices of the player to move (draw, play and dead phases)."""
    return [action for action, _ in legal_choices(state)]


def legal_choices(state: GameState) -> list[tuple[Action, Event]]:
    """Return the choices of the player to move, each with the event `action_event` gives for it.

    The melds, lay-offs, discards, draws and pile takes among them have passed `check` on this
    state (see `moves.legal_events` and `moves.legal_draws`); dead takes have not.
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
        self._raw: list[CardPlay] | None = None
        self._candidates: list[Action] | None = None
        #: the check of each candidate so far: its event, or None when refused
        self._checked: dict[int, Event | None] = {}

    def calibration_truth(self) -> GameState:
        """Return a copy of the true table behind this offer, every hidden card in place.

        Only the fair-play check's cheating bots (`fairplay.peek`, named `cheat-peek-...`) call
        this: they play as a cheat would, to calibrate the check. No other bot may: an honest bot
        decides from its view and, through the table, its information set (`infoset.Unseen`). A
        server never seats a bot that calls it (its bots are chosen from the names it offers,
        which the cheating bots are never among)."""
        return self._state.copy()

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
        """Return the legal melds and lay-offs (`moves.candidate_plays`, in its order)."""
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
        """Return the legal discards (`moves.legal_discards`)."""
        if self._discards is None:
            events = legal_discards(self._state) if self.phase == "play" else []
            self._discards = [(action_of(ev), ev) for ev in events]
        return self._discards

    def discard_actions(self) -> list[Action]:
        """Return the actions of `discards()`, in its order, building their events only when
        `discards()` must check the cards one by one.

        Where `moves.has_two_discards` holds (two distinct cards or more may go) no card asked is
        the last one held, so the discard rule (`turn.card_bar`) answers each card held
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
        of any play (`moves.has_two_discards` most often settles it without listing them).
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
                    return action_event(self._state, offered)
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
        if not 0 <= index < len(state.deads.left):
            raise IllegalMove(seq, player, state.phase, f"there is no dead {index}: the deads are 0 and 1")
        dead = state.deads.left[index]
        return TookDead(seq=seq, player=player, dead=index, cards=dead or ())
    raise ValueError(f"unknown action kind {kind!r}")


__all__ = ["Action", "Choice", "Choices", "action_event", "action_of", "legal_actions", "legal_choices"]
