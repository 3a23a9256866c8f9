"""The referee's gate: the error of an illegal event (`IllegalMove`, and the `Refusal` a returning
check gives before making it), the phase and turn gates every check passes first (`TRANSITIONS`:
each phase, the events it expects and how an error names them), and the seating (`team_of`).

Its own module because every check asks it: the engine's fold (`engine`) and the checks of a meld
and a lay-off (`playcheck`) both import it, and it imports neither.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final, NamedTuple

from buraco_events.model import events
from buraco_events.model.events import Event, event_type

from .cards import Card
from .state import GameState, Hand, Phase, RulesContext


class IllegalMove(ValueError):
    """An event the rules do not allow here; the state is left unchanged.

    `reason` is the referee's: it may name hidden cards (the stock's top, a closed pile, the card
    a play would leave in a hand). `public` says which rule was broken naming only cards every
    seat sees: the table's face-up cards (melds, an open pile, a closed pile's top, the top of a
    pile just taken, the one card taken from an open pile) and those the event itself lays face
    up (a meld, a lay-off, a discard). What a seat is shown is `public` (`projections.seat_error`).
    """

    def __init__(self, seq: int | None, player: int | None, phase: Phase, reason: str,
                 public: str | None = None):
        # the message is made when shown (`__str__`), not here: the bots' and the look-ahead's
        # refused candidates raise by the thousand and are never shown; `args` stays the
        # constructor's, so an error pickles (a worker's error reaches its parent whole)
        super().__init__(seq, player, phase, reason, public)
        self.seq, self.player, self.phase, self.reason = seq, player, phase, reason
        self.public = reason if public is None else public

    def __str__(self) -> str:
        return self._text(self.reason)

    def _text(self, reason: str) -> str:
        who = f"seat {self.player}, " if self.player is not None else ""
        return f"seq {self.seq}: {who}phase {self.phase}: {reason}"

    def public_text(self) -> str:
        """Return the error as `str()` does, with the public reason."""
        return self._text(self.public)


def team_of(seat: int) -> int:
    """Return the team of a seat (RULES 1: seats 0..3 clockwise, team = seat % 2): who plays with
    whom is the seating's rule, beside whose turn it is."""
    return seat % 2


def rules_context(state: GameState) -> RulesContext:
    """Return the rules context of the state's rules (made once per rules object the state
    holds, normally once per game, at `game_started`)."""
    context = state.context
    if context.rules is not state.rules:
        context = state.context = RulesContext(state.rules)
    return context


def illegal_move(state: GameState, ev: Event, reason: str, public: str | None = None) -> IllegalMove:
    """Return the error for `ev`; `public` when `reason` names a card some seat cannot see."""
    return refusal_of(state, ev, reason, public).error()


class Refusal:
    """Why a returning check refuses a play, before its `IllegalMove` is made (`error`).

    The table and the look-ahead check candidate plays by the thousand and only ask whether
    they pass: compiled, making an `IllegalMove` (its ValueError base set up through Python
    calls) costs several times this. `check` raises `error()`: the same words, one source.
    """

    __slots__ = ("ev", "phase", "reason", "public")

    def __init__(self, ev: Event, phase: Phase, reason: str, public: str | None) -> None:
        self.ev, self.phase, self.reason, self.public = ev, phase, reason, public

    def error(self) -> IllegalMove:
        """Return the error `check` raises (every `IllegalMove` of the checks is made here)."""
        ev = self.ev
        return IllegalMove(ev.seq, getattr(ev, "player", None), self.phase, self.reason, self.public)


def refusal_of(state: GameState, ev: Event, reason: str, public: str | None = None) -> Refusal:
    """Return the refusal of `ev` (`illegal_move`'s error, not made yet)."""
    return Refusal(ev, state.phase, reason, public)


def cards_taken(hand: Hand, cards: Sequence[Card]) -> dict[Card, int] | None:
    """Return how many of each card a play takes from the hand, or None if it holds too few."""
    need: dict[Card, int] = {}
    for c in cards:
        need[c] = need.get(c, 0) + 1
    for c, n in need.items():
        if hand.get(c, 0) < n:
            return None
    return need


def card_list(cards: Iterable[Card]) -> str:
    return " ".join(cards)


# -- the phase and turn gates ----------------------------------------------------------------------


def expect_phase(state: GameState, ev: Event) -> None:
    """Raise unless the state's phase expects events of `ev`'s class (`TRANSITIONS`)."""
    if type(ev) not in TRANSITIONS[state.phase].events:
        raise illegal_move(state, ev, phase_reason(state, ev))


def phase_reason(state: GameState, ev: Event) -> str:
    """Return why `ev` may not come in this phase (`expect_phase` raises it, a returning check
    refuses with it: `Refusal`)."""
    if state.phase == "over":
        return "the game is over"
    return f"{event_type(ev)} is not allowed now; expected {TRANSITIONS[state.phase].words}"


def expect_turn(state: GameState, ev: Event) -> int:
    player: int = ev.player  # type: ignore[attr-defined]
    if player != state.to_play:  # the seat to play always exists: test the seat only when off turn
        raise illegal_move(state, ev, turn_reason(state, player))
    return player


def turn_reason(state: GameState, player: int) -> str:
    """Return why `player`, who is not the seat to play, may not act (`expect_turn` raises it,
    a returning check refuses with it: `Refusal`)."""
    if player >= state.n_players:
        return f"no seat {player} in a {state.n_players}-player game"
    return f"it is seat {state.to_play}'s turn, not seat {player}'s"



class Transition(NamedTuple):
    """What a phase expects: the event classes `check` lets in (a note comes in any phase, and a
    hand may end in a playing phase once the stock is exhausted) and how an error names them.
    The legal events of each phase are the moves' (`moves.LEGAL`)."""

    events: tuple[type, ...]
    words: str


#: the state machine as data: each phase, the events it expects and their words
#: (start -> deal -> (draw -> play -> [dead])* -> hand_end -> deal ... -> game_end -> over)
TRANSITIONS: Final[dict[Phase, Transition]] = {
    "start": Transition((events.GameStarted,), "game_started"),
    "deal": Transition((events.HandStarted,), "hand_started"),
    "draw": Transition((events.Drew, events.TookPile, events.StockRefilled), "a draw (drew or took_pile)"),
    "play": Transition((events.Melded, events.LaidOff, events.Discarded), "a meld, a lay-off or a discard"),
    "dead": Transition((events.TookDead,), "took_dead"),
    "hand_end": Transition((events.HandEnded,), "hand_ended"),
    "game_end": Transition((events.GameEnded,), "game_ended"),
    "over": Transition((), "nothing (the game is over)"),
}
