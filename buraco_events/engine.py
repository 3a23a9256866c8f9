"""The engine: a game's state as a fold of its events, and every rule of docs/rules.md.

Everything that affects the state machine lives in this file. `check(state, event)` raises
`IllegalMove` naming the seq, the player, the phase and the rule broken; `apply(state, event)`
trusts its input and mutates the state in place; `play = check + apply`; `advance` is the pure
form that returns a new state. A rejected event leaves the state unchanged, because `check` never
writes. The engine draws no random numbers: chance is the deal event (see `deal`), built from
the rng it is given. Who plays, where chance comes from and the players' `Action`s live in the
driver, `table.py`; this file keeps the rules only.

Phases: start -> deal -> (draw -> play -> [dead] -> ...)* -> hand_end -> deal ... -> game_end -> over.
`dead` waits for the `took_dead` of a player whose hand just emptied (RULES 4).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import chain
from typing import Any, Final, Literal, NamedTuple, cast

import msgspec

from .cards import (
    ALL_CARDS,
    HAND_SIZE,
    RANK,
    SUIT,
    Card,
    is_wild_card,
    make_deck,
    team_of,
)
from .events import (
    AnyEvent,
    Discarded,
    Drew,
    Event,
    GameEnded,
    GameStarted,
    HandEnded,
    HandStarted,
    LaidOff,
    Melded,
    Note,
    StockRefilled,
    TookDead,
    TookPile,
    event_type,
)
from .fits import MeldFits, may_lay_off, meld_fits, shape_layoffs
from .hand_melds import candidate_melds
from .lookahead import TopPlay, is_natural_top, top_candidates
from .melds import CANASTA_SIZE, CanastaKind, MeldShape, classify
from .rules import (
    PlayerCountError,
    Rules,
    UnknownVariant,
    canonical_variant,
    check_players,
    find_rules,
)
from .scoring import TeamScore, match_result, score_team
from .state import (
    PLAYING_PHASES,
    DeadFate,
    DeadMode,
    GameState,
    Hand,
    Meld,
    Phase,
    RuleBits,
    elements,
    shallow_copy,
    sorted_held,
)


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


def _bits(state: GameState) -> RuleBits:
    """Return the rule bits of the state's rules (made once per rules object the state holds)."""
    bits = state.bits
    if bits.rules is not state.rules:
        bits = state.bits = RuleBits(state.rules)
    return bits


def _fail(state: GameState, ev: Event, reason: str, public: str | None = None) -> IllegalMove:
    """Return the error for `ev`; `public` when `reason` names a card some seat cannot see."""
    return _refuse(state, ev, reason, public).error()


class _Refusal:
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


def _refuse(state: GameState, ev: Event, reason: str, public: str | None = None) -> _Refusal:
    """Return the refusal of `ev` (`_fail`'s error, not made yet)."""
    return _Refusal(ev, state.phase, reason, public)


def _need(hand: Hand, cards: Sequence[Card]) -> dict[Card, int] | None:
    """Return how many of each card a play takes from the hand, or None if it holds too few."""
    need: dict[Card, int] = {}
    for c in cards:
        need[c] = need.get(c, 0) + 1
    for c, n in need.items():
        if hand.get(c, 0) < n:
            return None
    return need


def _fmt(cards: Iterable[Card]) -> str:
    return " ".join(cards)


# -- the steps: check, apply and play --------------------------------------------------------------


def check(state: GameState, ev: Event) -> MeldShape | None:
    """Raise `IllegalMove` unless `ev` may come next; never changes the state.

    Returns what the check found that `apply` needs: the shape of the meld a meld or a lay-off
    makes (None for any other event), so that `apply(state, ev, shape)` does not classify the
    cards again.
    """
    if ev.seq != state.next_seq:
        raise _fail(state, ev, f"seq should be {state.next_seq}, got {ev.seq}")
    # the common events by direct calls (compiled: no call through the function objects'
    # Python entry points), the rest through the table
    kind = type(ev)
    if kind is _DISCARDED:
        _check_discarded(state, cast(Discarded, ev))
    elif kind is _DREW:
        _check_drew(state, cast(Drew, ev))
    elif kind is _LAIDOFF:
        return _check_laid_off(state, cast(LaidOff, ev))
    elif kind is _MELDED:
        return _check_melded(state, cast(Melded, ev))
    elif kind is _TOOKPILE:
        _check_took_pile(state, cast(TookPile, ev))
    else:
        _check_other(state, ev)
    return None


def _check_other(state: GameState, ev: Event) -> None:
    """Check an event of a class `check` and `play` do not dispatch directly (`_CHECKS`)."""
    checker = _CHECKS.get(type(ev))
    if checker is None:
        raise _fail(state, ev, f"unknown event type {event_type(ev)!r}")
    checker(state, ev)


def apply(state: GameState, ev: Event, shape: MeldShape | None = None) -> GameState:
    """Apply a checked event to the state in place and return it (trusts its input).

    `shape` is what `check` returned for a meld or a lay-off (the meld it makes); without it the
    cards are classified again.
    """
    kind = type(ev)  # the common events by direct calls, as in `play`
    if kind is _DISCARDED:
        _apply_discarded(state, cast(Discarded, ev))
    elif kind is _DREW:
        _apply_drew(state, cast(Drew, ev))
    elif kind is _LAIDOFF:
        _apply_laid_off(state, cast(LaidOff, ev), shape)
    elif kind is _MELDED:
        _apply_melded(state, cast(Melded, ev), shape)
    elif kind is _TOOKPILE:
        _apply_took_pile(state, cast(TookPile, ev))
    else:
        _APPLY[kind](state, ev)
    state.next_seq = ev.seq + 1
    return state


#: the common events' classes as compiled constants (a name imported from the uncompiled `events`
#: is looked up in the module's dict at each use)
_DISCARDED: Final = Discarded


_DREW: Final = Drew
_LAIDOFF: Final = LaidOff
_MELDED: Final = Melded
_TOOKPILE: Final = TookPile
def play(state: GameState, ev: Event) -> GameState:
    """Check an event, then apply it in place; raises `IllegalMove` and leaves state unchanged.

    `check` then `apply` fused (the audit and every replay take this step per event): one call
    and one dispatch rather than two, and the apply of a play takes the meld shape its check
    found. Errors are `check`'s own.
    """
    seq = ev.seq
    if seq != state.next_seq:
        raise _fail(state, ev, f"seq should be {state.next_seq}, got {seq}")
    # the common events by direct calls (compiled: no call through the function objects'
    # Python entry points), the rest through the tables
    kind = type(ev)
    if kind is _DISCARDED:
        _check_discarded(state, cast(Discarded, ev))
        _apply_discarded(state, cast(Discarded, ev))
    elif kind is _DREW:
        _check_drew(state, cast(Drew, ev))
        _apply_drew(state, cast(Drew, ev))
    elif kind is _LAIDOFF:
        _apply_laid_off(state, cast(LaidOff, ev), _check_laid_off(state, cast(LaidOff, ev)))
    elif kind is _MELDED:
        _apply_melded(state, cast(Melded, ev), _check_melded(state, cast(Melded, ev)))
    elif kind is _TOOKPILE:
        _check_took_pile(state, cast(TookPile, ev))
        _apply_took_pile(state, cast(TookPile, ev))
    else:
        _check_other(state, ev)
        _APPLY[kind](state, ev)
    state.next_seq = seq + 1
    return state


def advance(state: GameState, ev: Event) -> GameState:
    """Return the state after a checked event, leaving `state` itself untouched (the pure fold)."""
    check(state, ev)
    return apply(state.copy(), ev)


def replay(events: Iterable[Event], state: GameState | None = None) -> GameState:
    """Fold events (each checked) into a state: the state after the last event."""
    state = GameState() if state is None else state
    for ev in events:
        play(state, ev)
    return state


def iter_states(events: Iterable[Event]) -> Iterator[tuple[Event, GameState]]:
    """Yield each event with an independent snapshot of the state after it."""
    state = GameState()
    for ev in events:
        play(state, ev)
        yield ev, state.copy()


# -- the phase and turn gates ----------------------------------------------------------------------


def _expect_phase(state: GameState, ev: Event) -> None:
    """Raise unless the state's phase expects events of `ev`'s class (`TRANSITIONS`)."""
    if type(ev) not in TRANSITIONS[state.phase].events:
        raise _fail(state, ev, _phase_reason(state, ev))


def _phase_reason(state: GameState, ev: Event) -> str:
    """Return why `ev` may not come in this phase (`_expect_phase` raises it, a returning check
    refuses with it: `_Refusal`)."""
    if state.phase == "over":
        return "the game is over"
    return f"{event_type(ev)} is not allowed now; expected {TRANSITIONS[state.phase].words}"


def _expect_turn(state: GameState, ev: Event) -> int:
    player: int = ev.player  # type: ignore[attr-defined]
    if player != state.to_play:  # the seat to play always exists: test the seat only when off turn
        raise _fail(state, ev, _turn_reason(state, player))
    return player


def _turn_reason(state: GameState, player: int) -> str:
    """Return why `player`, who is not the seat to play, may not act (`_expect_turn` raises it,
    a returning check refuses with it: `_Refusal`)."""
    if player >= state.n_players:
        return f"no seat {player} in a {state.n_players}-player game"
    return f"it is seat {state.to_play}'s turn, not seat {player}'s"


# -- game_started ----------------------------------------------------------------------------------


def _check_game_started(state: GameState, ev: GameStarted) -> None:
    _expect_phase(state, ev)
    if ev.seq != 0:
        raise _fail(state, ev, "game_started must be the first line")
    try:
        check_players(len(ev.players))
    except PlayerCountError as exc:
        raise _fail(state, ev, f"players: {exc}") from None
    if ev.rules is None:
        try:
            canonical_variant(ev.variant)
        except UnknownVariant as exc:
            raise _fail(state, ev, f"variant: {exc}") from None


def _apply_game_started(state: GameState, ev: GameStarted) -> None:
    rules = ev.rules if ev.rules is not None else find_rules(ev.variant)
    if ev.target is not None:
        rules = msgspec.structs.replace(rules, target=ev.target)
    state.rules = rules
    state.variant = ev.variant
    state.game_id = ev.game_id
    state.players = tuple(ev.players)
    state.totals = [0, 0]
    state.phase = "deal"


# -- hand_started ----------------------------------------------------------------------------------


def _check_hand_started(state: GameState, ev: HandStarted) -> None:
    _expect_phase(state, ev)
    n, rules = state.n_players, state.rules
    if ev.hand != state.hand_no + 1:
        raise _fail(state, ev, f"hand should be {state.hand_no + 1}, got {ev.hand}")
    if ev.first >= n:
        raise _fail(state, ev, f"first: no seat {ev.first} in a {n}-player game")
    if ev.hand > 0 and ev.first != (state.first_of_game + ev.hand) % n:
        want = (state.first_of_game + ev.hand) % n
        raise _fail(state, ev, f"first: hand {ev.hand} starts at seat {want} (one seat clockwise per hand)")
    if len(ev.hands) != n or any(len(h) != HAND_SIZE for h in ev.hands):
        raise _fail(state, ev, f"hands: the deal gives {HAND_SIZE} cards to each of {n} seats")
    if len(ev.deads) != 2 or any(len(d) != HAND_SIZE for d in ev.deads):
        raise _fail(state, ev, f"deads: the deal sets aside two deads of {HAND_SIZE} cards")
    want_stock = rules.stock_size(n)
    if len(ev.stock) != want_stock:
        raise _fail(state, ev, f"stock: {want_stock} cards expected, got {len(ev.stock)}")
    if len(ev.discard) != (1 if rules.upcard else 0):
        raise _fail(state, ev, "discard: the upcard" if rules.upcard else "discard: no upcard in this variant")
    dealt = Counter(chain.from_iterable(ev.hands))
    dealt.update(chain.from_iterable(ev.deads))
    dealt.update(ev.stock)
    dealt.update(ev.discard)
    deck = _deck_counts(rules.jokers)
    # both count only cards present (no zero counts), so equal items mean equal multisets; the
    # item views compare in C where `Counter.__eq__` runs a Python generator over every card
    if dealt.items() != deck.items():
        extra = dealt - deck
        short = deck - dealt
        parts = []
        if extra:
            parts.append("extra " + _fmt(sorted(extra.elements())))
        if short:
            parts.append("missing " + _fmt(sorted(short.elements())))
        raise _fail(state, ev, f"the deal is not the {rules.deck_size}-card deck: " + "; ".join(parts),
                    f"the deal is not the {rules.deck_size}-card deck")


@lru_cache(maxsize=8)
def _deck_counts(jokers: int) -> Counter[Card]:
    """Return the deck as a multiset (shared: callers only read it)."""
    return Counter(make_deck(jokers))


def _apply_hand_started(state: GameState, ev: HandStarted) -> None:
    state.hand_no = ev.hand
    state.first = ev.first
    if ev.hand == 0:
        state.first_of_game = ev.first
    state.to_play = ev.first
    state.turn = 0
    state.hands = [_counted(h) for h in ev.hands]
    state.stock = list(reversed(ev.stock))
    state.pile = list(ev.discard)
    state.deads = [tuple(d) for d in ev.deads]
    state.dead_fate = [None, None]
    state.dead_taker = [None, None]
    state.team_dead = [None, None]
    state.team_dead_direct = [False, False]
    state.unused_seat = [None, None]
    state.dead_mode = None
    state.pending_top = None
    state.pending_rest = []
    state.top_due = None
    state.refilling = False
    state.quiet_turns = 0
    state.turn_progress = False
    state.single_taken = None
    state.last_turn = False
    state.melds = []
    state.closed_by = None
    state.end_reason = None
    state.phase = "draw"


# -- drew ------------------------------------------------------------------------------------------


def _check_drew(state: GameState, ev: Drew) -> None:
    # the phase and refill tests are inlined: a drew is every fourth event of a log
    if state.phase != "draw":
        _expect_phase(state, ev)
    _expect_turn(state, ev)
    if state.refilling:
        _check_not_refilling(state, ev)
    stock = state.stock
    if not stock:
        raise _fail(state, ev, "the stock is empty")
    if ev.card != stock[-1]:
        raise _fail(state, ev, f"drew {ev.card} but the stock's top card is {stock[-1]}",
                    "drew a card that is not the stock's top card")


def _start_turn(state: GameState, player: int) -> None:
    team = team_of(player)
    if state.unused_seat[team] == player:
        state.unused_seat[team] = None  # RULES 4: the taker started another turn


def _apply_drew(state: GameState, ev: Drew) -> None:
    player = ev.player
    if state.unused_seat[team_of(player)] == player:
        _start_turn(state, player)
    stock = state.stock
    stock.pop()
    hand = state.hands[player]
    card = ev.card
    hand[card] = hand.get(card, 0) + 1
    state.turn_progress = True  # RULES 5: a stock draw is progress
    state.phase = "play"
    if len(stock) == 2 and _bits(state).stock_two_left:
        state.last_turn = True  # RULES 5: this turn is the hand's last


# -- took_pile -------------------------------------------------------------------------------------


def _check_took_pile(state: GameState, ev: TookPile) -> None:
    _check_take_form(state, ev)
    if not _pile_allows(state, ev):
        if _bits(state).pile_open:
            raise _fail(state, ev, f"no single-card return: after taking {state.pile[0]} there would be no legal discard")
        raise _fail(state, ev, f"closed pile: the top card {state.pile[-1]} cannot be melded at once")


def _check_take_form(state: GameState, ev: TookPile) -> None:
    """Check a take's phase, turn and cards, and that the stock is not due to be refilled first."""
    _expect_phase(state, ev)
    _expect_turn(state, ev)
    if _refill_due(state):
        if not state.stock:
            raise _fail(state, ev, "the stock is empty: it is refilled (or the hand ends) first")
        _check_not_refilling(state, ev)
    if not state.pile:
        raise _fail(state, ev, "the discard pile is empty")
    if tuple(ev.cards) != tuple(state.pile):
        # a closed pile shows only its top: which cards differ is hidden
        public = None if _bits(state).pile_open else "took_pile cards differ from the pile"
        raise _fail(state, ev, f"took_pile cards {_fmt(ev.cards)} differ from the pile {_fmt(state.pile)}",
                    public)


def _check_not_refilling(state: GameState, ev: Event) -> None:
    if state.refilling:
        raise _fail(state, ev, f"the stock is being refilled: dead {_lowest_dead(state)} joins it first (every untaken dead refills it)")


def _refill_due(state: GameState) -> bool:
    """Return whether the stock is to be refilled before anyone draws or takes (RULES 5): it is
    empty, or a refill of every dead is under way, in a variant whose stock refills (`refilling`
    is only ever set in one)."""
    return (not state.stock or state.refilling) and _bits(state).stock_refill


def _pile_allows(state: GameState, ev: TookPile) -> bool:
    """Return whether the pile's own rule lets the take of a well-formed `ev` through (RULES 2).

    An open pile of one card, with no single-card return, needs a legal discard or play after
    the take; a closed pile needs a play holding its top right after it (`_closed_take_usable`).
    """
    bits = _bits(state)
    if bits.pile_open:
        if len(state.pile) == 1 and bits.no_single_card_return:
            trial = _trial_take(state, ev)
            # `has_two_discards` answers most hands without checking every discard
            return has_two_discards(trial) or bool(legal_discards(trial)) or _any_play(trial)
        return True
    return _closed_take_usable(state, ev)


def _closed_take_usable(state: GameState, ev: TookPile) -> bool:
    """Return whether some play holding the closed pile's top is legal right after the take.

    `_any_play` over the state as taken decides it too; for a natural top the look-ahead builds
    only the plays that hold it, and sets the state as taken only once there is one to check.
    """
    top = state.pile[-1]
    if not is_natural_top(top):
        return _as_taken(state, ev, lambda: _any_play(state))
    candidates = _top_candidates(state, ev.player, top, 1)
    if not candidates:
        return False
    return _as_taken(state, ev, lambda: _any_passes(state, ev.player, candidates))


def _as_taken(state: GameState, ev: TookPile, decide: Callable[[], bool]) -> bool:
    """Return `decide()` asked of the state as a closed take leaves it, then left as it was.

    Rather than a trial copy (a copy of every field), the few fields a closed take
    changes that a play's check reads are set on the state itself and put back whatever happens,
    so the state is the same afterwards. (The take also clears the taker's `unused_seat`, which
    no check reads.)
    """
    pile = state.pile
    saved = state.phase, state.pending_top, state.pending_rest, state.next_seq
    state.phase, state.pile, state.pending_top = "play", [], pile[-1]
    state.pending_rest, state.next_seq = pile[:-1], ev.seq + 1
    try:
        return decide()
    finally:
        state.phase, state.pending_top, state.pending_rest, state.next_seq = saved
        state.pile = pile


def _top_candidates(state: GameState, player: int, top: Card, held_top: int) -> list[TopPlay]:
    """Return the look-ahead's candidate plays holding the natural `top` (see `lookahead`)."""
    team = team_of(player)
    suit, rank = SUIT[top], RANK[top]
    # a natural joins only a run of its suit or a set of its rank (a run has no rank, a set no suit)
    team_melds = [
        (m.id, m.shape) for m in state.melds
        if m.team == team and (m.shape.suit == suit or m.shape.rank == rank)
    ]
    return top_candidates(state.hands[player], top, held_top, team_melds, state.rules)


def _any_passes(state: GameState, player: int, candidates: list[TopPlay]) -> bool:
    """Return whether some candidate play passes `check` (their seq is the next one by construction)."""
    for kind, meld_id, cards in candidates:
        if kind == "meld":
            found = _melded(state, Melded(seq=state.next_seq, player=player, meld=len(state.melds), cards=cards))
        else:
            found = _laid_off(state, LaidOff(seq=state.next_seq, player=player, meld=meld_id, cards=cards))
        if not isinstance(found, _Refusal):
            return True
    return False


def _trial_take(state: GameState, ev: TookPile) -> GameState:
    """Return the state after taking an open pile, for a look-ahead that only checks.

    A cheaper `apply(state.copy(), ev)`: the take writes only `unused_seat` and the taker's hand
    in place (it rebinds the other zones it changes), so the trial shares every other list. (A
    closed pile's look-ahead sets the state as taken instead: `_as_taken`.)
    """
    trial = shallow_copy(state)
    trial.unused_seat = list(state.unused_seat)
    trial.hands = list(state.hands)
    trial.hands[ev.player] = state.hands[ev.player].copy()
    return apply(trial, ev)


def _apply_took_pile(state: GameState, ev: TookPile) -> None:
    _start_turn(state, ev.player)
    pile = state.pile
    state.pile = []
    bits = _bits(state)
    if bits.closed_next_play:
        state.pending_top = pile[-1]
        state.pending_rest = pile[:-1]
    elif not bits.pile_open:
        _add_cards(state.hands[ev.player], pile)  # RULES 2, turn_end: the whole pile joins the hand
        state.top_due = pile[-1]
    else:
        _add_cards(state.hands[ev.player], pile)
        if len(pile) == 1 and bits.no_single_card_return:
            state.single_taken = pile[0]
    state.phase = "play"


# -- melded and laid_off ---------------------------------------------------------------------------


def _play_need(state: GameState, ev: Melded | LaidOff) -> dict[Card, int] | _Refusal:
    """Check turn, phase and card ownership; return the cards the play takes from the hand of
    its player (`ev.player`, the seat to play), or the error."""
    if state.phase != "play":
        return _refuse(state, ev, _phase_reason(state, ev))
    player = ev.player
    if player != state.to_play:
        return _refuse(state, ev, _turn_reason(state, player))
    cards: Sequence[Card] = ev.cards
    if not cards:
        return _refuse(state, ev, "cards: empty")
    top = state.pending_top
    held = state.hands[player]
    if top is not None:
        if top not in cards:
            return _refuse(state, ev, f"closed pile: the top card {top} must go into the first play after taking the pile")
        rest = list(cards)  # the top comes from the pile, the other cards from the hand
        rest.remove(top)
        cards = rest
    need = _need(held, cards)
    if need is None:
        missing = Counter(cards) - Counter(held)
        return _refuse(state, ev, f"cards not in hand: {_fmt(sorted(missing.elements()))}")
    return need


def _kept(state: GameState, player: int, need: dict[Card, int]) -> set[Card]:
    """Return the distinct cards a play leaves in the hand (with a closed pile's rest)."""
    kept = {c for c, n in state.hands[player].items() if n - need.get(c, 0) > 0}
    kept.update(state.pending_rest)
    return kept


def _after_play_error(
    state: GameState, ev: Event, player: int, need: dict[Card, int], meld: Callable[[], Meld]
) -> _Refusal | None:
    """Return why a play that takes `need` from the hand may not leave it as it does (RULES 4
    and 6), or None.

    `meld` builds the played meld as it would stand, only when closing needs it.
    """
    hand = state.hands[player]
    if state.single_taken is None and state.top_due is None and len(hand) - len(need) >= 2:
        return None  # the common case: two distinct cards the play leaves alone stay, no constraint
    left = sum(hand.values()) - sum(need.values()) + len(state.pending_rest)
    if left > 1 and state.single_taken is None and state.top_due is None:
        return None  # more than one card stays, nothing taken that constrains it
    team = team_of(player)
    if left == 0:
        if state.rules.dead_by_discard:
            return _refuse(state, ev, "in this variant a hand may only empty by a discard")
        if state.can_take_dead(team):
            return None  # direct dead
        if state.rules.close_by_discard:
            return _refuse(state, ev, "only a discard may close in this variant; this play would empty the hand")
        if not state.has_closing_canasta(team, meld()):
            return _refuse(state, ev, "cannot close: the team has no " + _canasta_need(state))
        return None
    # the kept cards matter only for a single card taken from an open pile, or one card left
    if state.single_taken is not None and _kept(state, player, need) == {state.single_taken}:
        return _refuse(state, ev, f"this play leaves only {state.single_taken}, which may not go back to the pile (no single-card return)")
    if state.top_due is not None and state.top_due not in need:
        err = _top_still_usable_error(state, ev, player, need, meld)
        if err is not None:
            return err
    if left != 1:
        return None
    (last,) = _kept(state, player, need)
    if not state.can_take_dead(team):
        if not state.has_closing_canasta(team, meld()):
            return _refuse(state, ev, f"this play leaves the single card {last}, which could not be discarded: the team has no {_canasta_need(state)} to close",
                         f"this play leaves a single card, which could not be discarded: the team has no {_canasta_need(state)} to close")
        if state.rules.no_wild_last_discard and is_wild_card(last):
            return _refuse(state, ev, f"this play leaves the single card {last}, a wild, which may not be the closing discard",
                         "this play leaves a single card, a wild, which may not be the closing discard")
    return None


def _top_still_usable_error(
    state: GameState, ev: Event, player: int, need: dict[Card, int], meld: Callable[[], Meld]
) -> _Refusal | None:
    """Return the error of a play that would leave the due top card no legal way to be melded
    this turn, or None.

    Under `pile_top_use` = turn_end the turn may not end until the top card is melded (RULES 2):
    a play that made that impossible would leave the player with no legal way on.
    """
    top = state.top_due
    assert top is not None  # the caller checks it
    trial = shallow_copy(state)
    trial.hands = list(state.hands)
    hand = trial.hands[player] = state.hands[player].copy()
    for c, n in need.items():
        hand[c] -= n
        if hand[c] == 0:
            del hand[c]
    played = meld()
    trial.melds = [m for m in state.melds if m.id != played.id]
    trial.melds.insert(min(played.id, len(trial.melds)), played)
    trial.next_seq = ev.seq + 1
    if not _top_still_playable(trial, player, top):
        return _refuse(state, ev, f"this play leaves no way to meld the top card {state.top_due} taken from the pile, which must be melded before the turn ends")
    return None


def _top_still_playable(trial: GameState, player: int, top: Card) -> bool:
    """Return whether the due top card (held) can still be melded: `_any_play(trial, True)`."""
    if not is_natural_top(top):
        return _any_play(trial, top_plays_only=True)
    return _any_passes(trial, player, _top_candidates(trial, player, top, 0))


def _canasta_need(state: GameState) -> str:
    return "clean canasta" if state.rules.close_needs_clean else "canasta"


def _check_melded(state: GameState, ev: Melded) -> MeldShape:
    """Return the shape of the new meld `ev`; raise the error `_melded` finds, if any."""
    found = _melded(state, ev)
    if isinstance(found, _Refusal):
        raise found.error()
    return found


def _melded(state: GameState, ev: Melded) -> MeldShape | _Refusal:
    """Return the shape of the new meld `ev`, or why `check` refuses it (the seq aside: it is the
    caller's).

    The check of a meld returns its error rather than raise it: the table and the look-ahead
    check candidate plays by the thousand, and compiled, an error raised and caught costs more
    than the check.
    """
    need = _play_need(state, ev)
    if isinstance(need, _Refusal):
        return need
    player = ev.player
    if ev.meld != len(state.melds):
        return _refuse(state, ev, f"meld: the next meld number is {len(state.melds)}, got {ev.meld}")
    rules = state.rules
    shape = classify(ev.cards, rules)
    if shape is None:
        return _refuse(state, ev, f"{_fmt(ev.cards)} is not a legal {_meld_words(state.rules)}")
    team = team_of(player)
    if shape.type == "set" and _bits(state).one_set_per_rank:
        if any(m.team == team and m.shape.type == "set" and m.shape.rank == shape.rank for m in state.melds):
            return _refuse(state, ev, "one set per rank: the team already has a set of that rank")
    refused = _after_play_error(
        state, ev, player, need, lambda: Meld(len(state.melds), team, shape, player, ev.seq, state.turn, state.turn)
    )
    return shape if refused is None else refused


def _meld_words(rules: Rules) -> str:
    return "run or set" if rules.sets else "run (this variant has no sets)"


def _apply_melded(state: GameState, ev: Melded, shape: MeldShape | None) -> None:
    """Lay the new meld: `shape` as its check found it, or classified here when not given."""
    if shape is None:
        shape = classify(ev.cards, state.rules)
        assert shape is not None
    seq, player = ev.seq, ev.player
    canasta_seq = seq if len(shape.cards) >= CANASTA_SIZE else None
    state.melds.append(
        Meld(ev.meld, team_of(player), shape, player, seq, state.turn, state.turn, canasta_seq)
    )
    _after_play(state, player, ev.cards)


def _check_laid_off(state: GameState, ev: LaidOff) -> MeldShape:
    """Return the shape of the meld the lay-off `ev` makes; raise the error `_laid_off` finds,
    if any."""
    found = _laid_off(state, ev)
    if isinstance(found, _Refusal):
        raise found.error()
    return found


def _laid_off(state: GameState, ev: LaidOff) -> MeldShape | _Refusal:
    """Return the shape of the meld the lay-off `ev` makes, or why `check` refuses it (returned
    rather than raised, as `_melded`).

    The meld it makes is `grown_shape`: `classify` of the meld's cards and the lay-off's.
    """
    need = _play_need(state, ev)
    if isinstance(need, _Refusal):
        return need
    player = ev.player
    if ev.meld >= len(state.melds):
        return _refuse(state, ev, f"meld: there is no meld {ev.meld}")
    old = state.melds[ev.meld]
    team = team_of(player)
    if old.team != team:
        return _refuse(state, ev, f"meld {ev.meld} belongs to the other team")
    rules = state.rules
    shape = grown_shape(old, tuple(ev.cards), rules)
    if shape is None or shape.type != old.shape.type:
        return _refuse(state, ev, f"adding {_fmt(ev.cards)} to meld {ev.meld} ({_fmt(old.cards)}) does not make a legal meld")
    top = state.pending_top or state.top_due
    # RULES 2: a wild on top only starts a new meld; a 2 laid off in its own place is no wild (terms)
    if (
        top is not None and _bits(state).wild_top_new_meld_only and is_wild_card(top)
        and shape.wild == top and top in ev.cards
    ):
        return _refuse(state, ev, f"closed pile: the wild {top} on top may only start a new meld")
    refused = _after_play_error(
        state, ev, player, need, lambda: old.with_shape(shape, old.last_turn, old.canasta_seq))
    return shape if refused is None else refused


def grown_shape(m: Meld, cards: tuple[Card, ...], rules: Rules) -> MeldShape | None:
    """Return `classify` of a table meld's cards and `cards` (a lay-off's meld, or None).

    From the meld's kept entry (`MeldFits.grown`, kept per lay-off while the meld stands) when it
    has one under these rules: a table whose bots list the lay-offs made it already. Otherwise
    `classify` (cached by cards): building an entry costs more than one classify, and a replay
    or an audit, which never lists lay-offs, would build one for every meld laid off onto.
    """
    entry = m._fits
    if entry is not None and m._fits_rules is rules:
        return entry.grown(cards)
    return classify(m.cards + cards, rules)


def meld_entry(m: Meld, rules: Rules) -> MeldFits:
    """Return the kept entry of a table meld under `rules` (`melds.meld_fits` of its cards).

    Kept on the meld itself: a meld is immutable (a lay-off replaces it), so its entry never
    goes stale, and reading an attribute costs less than looking the meld up by its id()."""
    entry = m._fits
    if entry is not None and m._fits_rules is rules:
        return entry
    entry = meld_fits(m.shape.cards, rules)
    m._fits, m._fits_rules = entry, rules
    return entry


def _apply_laid_off(state: GameState, ev: LaidOff, shape: MeldShape | None) -> None:
    """Grow the meld: to `shape` as its check found it, or classified here when not given."""
    meld_id = ev.meld
    old = state.melds[meld_id]
    if shape is None:
        shape = grown_shape(old, tuple(ev.cards), state.rules)
        assert shape is not None
    canasta_seq = old.canasta_seq
    if canasta_seq is None and len(shape.cards) >= CANASTA_SIZE:
        canasta_seq = ev.seq
    state.melds[meld_id] = old.with_shape(shape, state.turn, canasta_seq)
    _after_play(state, ev.player, ev.cards)


def _counted(cards: Iterable[Card]) -> Hand:
    """Return the hand holding `cards`."""
    hand: Hand = {}
    for c in cards:
        hand[c] = hand.get(c, 0) + 1
    return hand


def _add_cards(hand: Hand, cards: Iterable[Card]) -> None:
    """Add `cards` to the hand."""
    for c in cards:
        hand[c] = hand.get(c, 0) + 1


def _after_play(state: GameState, player: int, cards: Sequence[Card]) -> None:
    hand = state.hands[player]
    state.turn_progress = True  # RULES 5: a meld or a lay-off is progress
    if state.top_due is not None and state.top_due in cards:
        state.top_due = None  # RULES 2, turn_end: the top card is melded
    if state.pending_top is not None:
        rest = list(cards)
        rest.remove(state.pending_top)
        cards = rest
        _add_cards(hand, state.pending_rest)  # RULES 2: the rest joins the hand after that play
        state.pending_top = None
        state.pending_rest = []
    for c in cards:  # each card leaves the hand, a card no longer held leaves the dict
        n = hand[c] - 1
        if n:
            hand[c] = n
        else:
            del hand[c]
    if not hand:
        team = team_of(player)
        if state.can_take_dead(team):
            state.phase, state.dead_mode = "dead", "direct"
        else:
            state.closed_by, state.end_reason, state.phase = player, "closed", "hand_end"


# -- discarded -------------------------------------------------------------------------------------


def _check_discarded(state: GameState, ev: Discarded) -> None:
    if state.phase != "play":
        _expect_phase(state, ev)
    player = _expect_turn(state, ev)
    _check_discard_card(state, ev, player, _holds_one(state.hands[player]))


def _holds_one(hand: Hand) -> bool:
    """Return whether the hand holds exactly one card."""
    if len(hand) != 1:
        return False
    for n in hand.values():
        return n == 1
    return False


def _check_discard_card(state: GameState, ev: Discarded, player: int, last: bool) -> None:
    """Check the card of a discard by the player to move; `last`: it is the one card held."""
    if state.pending_top is not None:
        raise _fail(state, ev, f"closed pile: the top card {state.pending_top} must go into the first play after taking the pile")
    if state.top_due is not None:
        raise _fail(state, ev, f"the top card {state.top_due} taken from the pile must be melded before the turn ends")
    card = ev.card
    if card not in state.hands[player]:
        raise _fail(state, ev, f"{card} is not in the hand")
    if state.single_taken is not None and card == state.single_taken:
        raise _fail(state, ev, f"no single-card return: {card} was the one card taken from the pile")
    if last:
        team = team_of(player)
        if state.can_take_dead(team):
            return  # indirect dead
        if not state.has_closing_canasta(team):
            raise _fail(state, ev, f"cannot close: the team has no {_canasta_need(state)}")
        if state.rules.no_wild_last_discard and is_wild_card(ev.card):
            raise _fail(state, ev, f"the closing discard may not be a wild ({ev.card})")


def _end_turn(state: GameState) -> None:
    if state.last_turn:
        state.end_reason, state.phase = "stock_exhausted", "hand_end"
        return
    state.quiet_turns = 0 if state.turn_progress else state.quiet_turns + 1
    state.turn_progress = False
    n = len(state.players)
    rounds = _bits(state).stalemate_rounds
    if rounds and state.quiet_turns >= rounds * n:
        state.end_reason, state.phase = "stalemate", "hand_end"  # RULES 5: no progress
        return
    state.to_play = (state.to_play + 1) % n
    state.turn += 1
    state.single_taken = None
    state.phase = "draw"


def _apply_discarded(state: GameState, ev: Discarded) -> None:
    player = ev.player
    hand = state.hands[player]
    card = ev.card
    n = hand[card] - 1
    if n:
        hand[card] = n
    else:
        del hand[card]
    state.pile.append(card)
    if hand:
        _end_turn(state)
    elif state.can_take_dead(team_of(player)):
        state.phase, state.dead_mode = "dead", "indirect"
    else:
        state.closed_by, state.end_reason, state.phase = player, "closed", "hand_end"


# -- took_dead -------------------------------------------------------------------------------------


def _check_took_dead(state: GameState, ev: TookDead) -> None:
    _expect_phase(state, ev)
    _expect_turn(state, ev)
    dead = state.deads[ev.dead]
    if dead is None:
        raise _fail(state, ev, f"dead {ev.dead} is already gone ({state.dead_fate[ev.dead]})")
    team = team_of(ev.player)
    if state.rules.dead_owner == "team" and ev.dead != team:
        raise _fail(state, ev, f"dead {ev.dead} belongs to team {ev.dead}")
    if tuple(ev.cards) != tuple(dead):
        raise _fail(state, ev, f"took_dead cards differ from dead {ev.dead} as dealt")


def _apply_took_dead(state: GameState, ev: TookDead) -> None:
    team = team_of(ev.player)
    _add_cards(state.hands[ev.player], ev.cards)
    state.deads[ev.dead] = None
    state.dead_fate[ev.dead] = "taken"
    state.dead_taker[ev.dead] = ev.player
    state.team_dead[team] = ev.dead
    state.team_dead_direct[team] = state.dead_mode == "direct"
    if state.dead_mode == "direct":
        state.phase = "play"  # RULES 4: goes on playing the same turn
    else:
        state.unused_seat[team] = ev.player
        _end_turn(state)
    state.dead_mode = None


# -- stock_refilled --------------------------------------------------------------------------------


def _check_stock_refilled(state: GameState, ev: StockRefilled) -> None:
    _expect_phase(state, ev)
    if not _bits(state).stock_refill:
        raise _fail(state, ev, "this variant never refills the stock (stock_end two_left)")
    if not _refill_due(state):
        raise _fail(state, ev, f"the stock still holds {len(state.stock)} cards")
    if state.deads[ev.dead] is None:
        raise _fail(state, ev, f"dead {ev.dead} is already gone ({state.dead_fate[ev.dead]})")
    lowest = _lowest_dead(state)
    if state.rules.refill == "all" and ev.dead != lowest:
        # RULES 5, refill all: every untaken dead joins the stock, lowest first
        raise _fail(state, ev, f"every untaken dead refills the stock, lowest first: dead {lowest} comes next")


def _lowest_dead(state: GameState) -> int | None:
    return next((i for i, d in enumerate(state.deads) if d is not None), None)


def must_refill(state: GameState) -> bool:
    """Return whether the table refills the stock before anyone draws (RULES 5).

    Public for the table (`table.table_event`), which refills the stock before anyone draws; a
    def rather than an alias, so that the compiled table calls it directly.
    """
    return state.phase == "draw" and _refill_due(state)


def _stock_exhausted(state: GameState) -> bool:
    """Return whether the hand ends for want of cards: a refill is due and no dead is left."""
    return must_refill(state) and _lowest_dead(state) is None


def _apply_stock_refilled(state: GameState, ev: StockRefilled) -> None:
    dead = state.deads[ev.dead]
    assert dead is not None
    # the stock is listed top last: a later dead goes below what is there (RULES 5: lowest on top)
    state.stock = list(reversed(dead)) + state.stock
    state.deads[ev.dead] = None
    state.dead_fate[ev.dead] = "stock"
    state.refilling = state.rules.refill == "all" and _lowest_dead(state) is not None


# -- hand_ended, game_ended and note ---------------------------------------------------------------


def _check_hand_ended(state: GameState, ev: HandEnded) -> None:
    n = state.rules.stalemate_rounds
    if ev.reason == "stalemate" and state.end_reason != "stalemate" and state.phase in PLAYING_PHASES:
        if not n:
            raise _fail(state, ev, "this variant has no stalemate end (stalemate_rounds 0)")
        raise _fail(state, ev, f"stalemate needs {n} round{'s' if n != 1 else ''} without progress; only {state.quiet_turns // state.n_players} so far")
    if not _stock_exhausted(state):
        _expect_phase(state, ev)
    if ev.hand != state.hand_no:
        raise _fail(state, ev, f"hand should be {state.hand_no}, got {ev.hand}")
    reason = state.end_reason or "stock_exhausted"
    if ev.reason != reason:
        raise _fail(state, ev, f"reason should be {reason}, got {ev.reason}")
    if ev.closed_by != state.closed_by:
        raise _fail(state, ev, f"closed_by should be {state.closed_by}, got {ev.closed_by}")
    if len(ev.scores) != 2:
        raise _fail(state, ev, "scores: one score per team (2)")


def _apply_hand_ended(state: GameState, ev: HandEnded) -> None:
    if state.end_reason is None:
        state.end_reason = "stock_exhausted"
    result = hand_scores(state)
    state.hand_results.append(result)
    for s in result:
        state.totals[s.team] += s.total
    winner = match_result(
        state.totals, state.rules.target, team_of(state.first_of_game), len(state.hand_results)
    )
    state.winner = winner
    state.phase = "game_end" if winner is not None else "deal"


def _check_game_ended(state: GameState, ev: GameEnded) -> None:
    _expect_phase(state, ev)
    if len(ev.totals) != 2:
        raise _fail(state, ev, "totals: one total per team (2)")


def _apply_game_ended(state: GameState, ev: GameEnded) -> None:
    state.phase = "over"


def _check_note(state: GameState, ev: Note) -> None:
    if state.phase == "start":
        raise _fail(state, ev, "the first event must be game_started")


def _apply_note(state: GameState, ev: Note) -> None:
    pass


# -- the other events' checks and applies, by class ------------------------------------------------


#: the checker of each event class but the five common ones (`check` and `play` call those directly)
_CHECKS: Final[dict[type, Callable[[GameState, Any], None]]] = {
    GameStarted: _check_game_started,
    HandStarted: _check_hand_started,
    TookDead: _check_took_dead,
    StockRefilled: _check_stock_refilled,
    HandEnded: _check_hand_ended,
    GameEnded: _check_game_ended,
    Note: _check_note,
}


#: the applier of each event class but the five common ones (`apply` and `play` call those directly)
_APPLY: Final[dict[type, Callable[[GameState, Any], None]]] = {
    GameStarted: _apply_game_started,
    HandStarted: _apply_hand_started,
    TookDead: _apply_took_dead,
    StockRefilled: _apply_stock_refilled,
    HandEnded: _apply_hand_ended,
    GameEnded: _apply_game_ended,
    Note: _apply_note,
}


# -- scoring the current hand ----------------------------------------------------------------------


def hand_scores(state: GameState) -> tuple[TeamScore, TeamScore]:
    """Return both teams' score sheets for the hand as it stands (RULES 7); kept on the state
    (`GameState.scored`) for the next ask of the same position."""
    key = _sheets_key(state)
    last = state.scored
    if last is not None and last[0] == key:
        return last[1]
    sheets = _sheets(state, True)
    state.scored = (key, sheets)
    return sheets


def _sheets_key(state: GameState) -> tuple[object, ...]:
    """Return what `_sheets` reads of a state to count the cards held, by value (the hands are
    copied: they change in place; melds are immutable)."""
    return (
        state.rules, tuple(state.melds), tuple([h.copy() for h in state.hands]), tuple(state.unused_seat),
        tuple(state.team_dead), state.closed_by, state.to_play, state.pending_top, tuple(state.pending_rest),
    )


def table_scores(state: GameState) -> tuple[TeamScore, TeamScore]:
    """Return both teams' sheets without the cards still held (their `hand_penalty` is 0).

    What every seat may see during a hand: the cards held (and an unused dead counted as hand
    cards) would tell what the hands hold.
    """
    return _sheets(state, False)


def _sheets(state: GameState, count_hands: bool) -> tuple[TeamScore, TeamScore]:
    rules = state.rules
    by_team: tuple[list[tuple[tuple[Card, ...], CanastaKind | None]], ...] = ([], [])
    for m in state.melds:
        by_team[m.team].append((m.shape.cards, m.canasta(rules)))
    out = []
    for team in (0, 1):
        unused = state.unused_seat[team]
        hand_cards: list[Card] = []
        dead_cards: list[Card] = []
        if count_hands:
            for seat in range(state.n_players):
                if team_of(seat) == team:
                    (dead_cards if seat == unused else hand_cards).extend(elements(state.hands[seat]))
            if state.pending_top is not None and team_of(state.to_play) == team:
                hand_cards.append(state.pending_top)
                hand_cards.extend(state.pending_rest)
        out.append(
            score_team(
                rules, team, by_team[team], hand_cards, dead_cards,
                closed=state.closed_by is not None and team_of(state.closed_by) == team,
                took_dead=state.team_dead[team] is not None,
                dead_unused=unused is not None,
            )
        )
    return out[0], out[1]


# -- legal moves -----------------------------------------------------------------------------------


#: a candidate play before its check: a new meld, or a lay-off onto meld id (the cards played)
Play = tuple[Literal["meld", "lay_off"], int | None, tuple[Card, ...]]
_Play = Play


#: per natural card, the cards that may share a meld with it: its suit, its rank, the wilds
_MELDS_WITH: Final[dict[Card, frozenset[Card]]] = {
    c: frozenset([d for d in ALL_CARDS if SUIT[d] == SUIT[c] or RANK[d] in (0, 2, RANK[c])])
    for c in ALL_CARDS if not is_wild_card(c)
}


def _top_plays(
    state: GameState, player: int, top: Card, held_top: int = 1
) -> Iterator[_Play]:
    """Yield the plays that use the closed pile's top card with the cards held.

    `held_top` is how many copies of the top the hand lacks: 1 while the top waits apart
    (`next_play`), 0 once it has joined the hand (`turn_end`).
    """
    held = state.hands[player]
    hand: Hand = {}  # the cards held plus the top (built in one pass)
    if is_wild_card(top):
        for c, n in held.items():
            if n > 0:
                hand[c] = n
    else:
        # only the top's suit (runs), its rank (sets) and the wilds can meld with it
        with_top = _MELDS_WITH[top]
        for c, n in held.items():
            if n > 0 and c in with_top:
                hand[c] = n
    hand[top] = held.get(top, 0) + held_top
    team = team_of(player)
    for cards in candidate_melds(hand, state.rules):
        if top in cards:
            yield "meld", None, cards
    # lay-offs of a wild top are generated too: `check` keeps only those where it stands natural
    yield from _layoff_plays(state, hand, team, top)


def candidate_plays(state: GameState) -> list[Event]:
    """Return the candidate melds and lay-offs for the player to move that pass `check`."""
    return list(_iter_plays(state))


def _any_play(state: GameState, top_plays_only: bool = False) -> bool:
    """Return whether the player to move has at least one legal meld or lay-off.

    With `top_plays_only`, only plays that meld the due top card count (`pile_top_use` turn_end).
    """
    return next(_iter_plays(state, top_plays_only), None) is not None


def _iter_plays(state: GameState, top_plays_only: bool = False) -> Iterator[Event]:
    """Yield the legal melds and lay-offs lazily (an early exit stops the generation)."""
    if state.phase != "play":
        return
    player = state.to_play
    raw = (
        _top_plays(state, player, state.top_due, 0)
        if top_plays_only and state.top_due is not None else _raw_plays(state, player)
    )
    for play in raw:
        ev = checked_play(state, play)
        if ev is not None:
            yield ev


def raw_plays(state: GameState) -> list[_Play]:
    """Return the candidate plays of the player to move before their check, in the order
    `candidate_plays` keeps the legal ones (empty outside the play phase).

    A bot that ranks plays can score these first and check (`checked_play`) only the best,
    instead of paying a check for every candidate.
    """
    if state.phase != "play":
        return []
    top = state.pending_top
    if top is not None and is_natural_top(top):
        return _natural_top_plays(state, state.to_play, top)  # no generator frames
    return list(_raw_plays(state, state.to_play))


def _natural_top_plays(state: GameState, player: int, top: Card) -> list[_Play]:
    """Return `_top_plays` of a natural closed-pile top waiting apart, in its very order, built
    from the look-ahead's candidates (`lookahead.top_candidates`: the same plays, found without
    listing every meld of the hand).

    `_top_plays` yields the new melds holding the top sorted (`candidate_melds` is sorted),
    then per team meld in table order its lay-offs holding the top, sorted (`shape_layoffs`).
    The look-ahead may find a run twice (the wild at either end of the same naturals): the
    sorted melds (and lay-offs) are kept once each. A meld's id is its place on the table (`Melded.meld` is
    `len(state.melds)`, a lay-off replaces `state.melds[id]`), so the lay-offs sorted by
    (meld id, cards) come in table order.
    """
    melds: list[tuple[Card, ...]] = []
    layoffs: list[tuple[int, tuple[Card, ...]]] = []
    for kind, meld_id, cards in _top_candidates(state, player, top, 1):
        if kind == "meld":
            melds.append(cards)
        else:
            layoffs.append((meld_id, cards))
    out: list[_Play] = []
    if melds:
        melds.sort()
        last: tuple[Card, ...] = ()
        for cards in melds:
            if cards != last:
                out.append(("meld", None, cards))
                last = cards
    if layoffs:
        layoffs.sort()
        seen: tuple[int, tuple[Card, ...]] = (-1, ())
        for entry in layoffs:  # each once, as `shape_layoffs` gives them
            if entry != seen:
                out.append(("lay_off", entry[0], entry[1]))
                seen = entry
    return out


def checked_play(state: GameState, play: _Play) -> Melded | LaidOff | None:
    """Return the event of a candidate play of the player to move, or None when `check` refuses it."""
    kind, meld_id, cards = play
    player, seq = state.to_play, state.next_seq
    # what `check` runs for these events (their seq is the next one by construction)
    if kind == "meld":
        melded = Melded(seq=seq, player=player, meld=len(state.melds), cards=cards)
        return None if isinstance(_melded(state, melded), _Refusal) else melded
    laid = LaidOff(seq=seq, player=player, meld=meld_id, cards=cards)  # type: ignore[arg-type]
    return None if isinstance(_laid_off(state, laid), _Refusal) else laid


def _raw_plays(state: GameState, player: int) -> Iterator[_Play]:
    top = state.pending_top
    if top is not None:
        if is_natural_top(top):
            yield from _natural_top_plays(state, player, top)
        else:
            yield from _top_plays(state, player, top)
        return
    hand, team, rules = state.hands[player], team_of(player), state.rules
    for cards in candidate_melds(hand, rules):
        yield "meld", None, cards
    yield from _layoff_plays(state, hand, team, None)


def _layoff_plays(
    state: GameState, hand: Hand, team: int, top: Card | None
) -> Iterator[_Play]:
    """Yield the team's candidate lay-offs from `hand` (with `top` in them, when given)."""
    held: tuple[Card, ...] | None = None
    rules = state.rules
    for m in state.melds:
        if m.team != team:
            continue
        if top is not None and not may_lay_off(m.shape.cards, top, rules):
            continue  # no lay-off on this meld can hold the top: none is generated
        if held is None:
            held = sorted_held(hand)
        # a meld's shape is `classify` of its cards: `candidate_layoffs` without classifying again
        for layoff in shape_layoffs(held, m.shape.cards, m.shape, rules):
            if top is None or top in layoff:
                yield "lay_off", m.id, layoff


def legal_discards(state: GameState) -> list[Discarded]:
    """Return each distinct legal discard for the player to move."""
    if state.phase != "play" or state.pending_top is not None or state.top_due is not None:
        return []  # `_check_discard_card` refuses every card while a closed pile's top waits
    player, seq = state.to_play, state.next_seq
    hand = state.hands[player]
    last = _holds_one(hand)
    single_taken = state.single_taken
    out = []
    for card in sorted(hand):
        if not last:
            # what `_check_discard_card` asks of a card held (a key of the hand) when it is not
            # the last one: only the single card just taken is refused
            if card != single_taken:
                out.append(Discarded(seq=seq, player=player, card=card))
            continue
        ev = Discarded(seq=seq, player=player, card=card)
        try:
            # what `check` runs once the seq, the phase and the turn hold, as they do here
            _check_discard_card(state, ev, player, last)
        except IllegalMove:
            continue
        out.append(ev)
    return out


def has_two_discards(state: GameState) -> bool:
    """Return True when the player to move surely has two legal discards or more (False says
    nothing): the table's forced-move test without checking every card.

    What `_check_discard_card` asks, short: with no closed-pile top waiting (pending or due) and
    two cards or more held, every card held may go except the single card just taken.
    """
    if state.phase != "play" or state.pending_top is not None or state.top_due is not None:
        return False
    single_taken = state.single_taken
    distinct = 0  # two distinct cards held make two cards held: the last-card rules stay out
    for card, n in state.hands[state.to_play].items():
        if n > 0 and card != single_taken:
            distinct += 1
            if distinct >= 2:
                return True
    return False


def legal_draws(state: GameState) -> list[Event]:
    """Return the legal ways to start the turn (draw, take the pile) or to refill/end the hand."""
    if state.phase != "draw":
        return []
    seq, player = state.next_seq, state.to_play
    if must_refill(state):
        refills: list[Event] = [
            StockRefilled(seq=seq, dead=i) for i, d in enumerate(state.deads) if d is not None
        ]
        if state.rules.refill == "all":
            refills = refills[:1]  # RULES 5: every dead in turn, lowest first
        return refills or [end_of_hand(state)]
    out: list[Event] = []
    if state.stock:
        # passes `check` by construction: the phase, the turn, the stock's top, and no refill
        # due (`refilling` is set only where the stock refills: `must_refill` answered above)
        out.append(Drew(seq=seq, player=player, card=state.stock[-1]))
    if state.pile:
        ev = TookPile(seq=seq, player=player, cards=tuple(state.pile))
        # what `check` runs for the take (its seq is the next one by construction), the pile's
        # rule as a bool: most takes of a closed pile are refused, and an error raised and caught
        # would cost more than the look-ahead that refuses them
        try:
            _check_take_form(state, ev)
        except IllegalMove:
            return out
        if _pile_allows(state, ev):
            out.append(ev)
    return out


def legal_dead_takes(state: GameState) -> list[TookDead]:
    """Return the deads the player whose hand emptied may take."""
    if state.phase != "dead":
        return []
    team = team_of(state.to_play)
    return [
        TookDead(seq=state.next_seq, player=state.to_play, dead=i, cards=d)
        for i, d in enumerate(state.deads)
        if d is not None and (state.rules.dead_owner == "first" or i == team)
    ]


def end_of_hand(state: GameState, salt: str | None = None) -> HandEnded:
    """Return the `hand_ended` event the engine would record now, with the recomputed scores."""
    scores = tuple(s.total for s in hand_scores(state))
    return HandEnded(
        seq=state.next_seq, hand=state.hand_no, reason=state.end_reason or "stock_exhausted",
        closed_by=state.closed_by, scores=scores, salt=salt,
    )


def end_of_game(state: GameState) -> GameEnded:
    """Return the `game_ended` event for a finished match."""
    assert state.winner is not None
    return GameEnded(seq=state.next_seq, totals=tuple(state.totals), winner=state.winner)


def legal_events(state: GameState) -> list[Event]:
    """Return every legal next event except deals (see `deal`): what bots and UIs choose from."""
    return TRANSITIONS[state.phase].legal(state)


def _no_events(state: GameState) -> list[Event]:
    return []


def _plays_and_discards(state: GameState) -> list[Event]:
    return [*candidate_plays(state), *legal_discards(state)]


class Transition(NamedTuple):
    """What a phase expects: the event classes `check` lets in (a note comes in any phase, and a
    hand may end in a playing phase once the stock is exhausted), how an error names them, and
    the legal events of a state in that phase (a deal, chance's event, is made by `deal`)."""

    events: tuple[type, ...]
    words: str
    legal: Callable[[GameState], list[Event]]


#: the state machine as data: each phase, the events it expects, their words and the legal ones
#: (start -> deal -> (draw -> play -> [dead])* -> hand_end -> deal ... -> game_end -> over)
TRANSITIONS: Final[dict[Phase, Transition]] = {
    "start": Transition((GameStarted,), "game_started", _no_events),
    "deal": Transition((HandStarted,), "hand_started", _no_events),
    "draw": Transition((Drew, TookPile, StockRefilled), "a draw (drew or took_pile)",
                       legal_draws),
    "play": Transition((Melded, LaidOff, Discarded), "a meld, a lay-off or a discard",
                       _plays_and_discards),
    "dead": Transition((TookDead,), "took_dead", lambda state: list(legal_dead_takes(state))),
    "hand_end": Transition((HandEnded,), "hand_ended", lambda state: [end_of_hand(state)]),
    "game_end": Transition((GameEnded,), "game_ended", lambda state: [end_of_game(state)]),
    "over": Transition((), "nothing (the game is over)", _no_events),
}


# -- chance ----------------------------------------------------------------------------------------


#: whether `random.Random.shuffle` draws as `shuffle` below: each place from the top down swaps
#: with `_randbelow(i + 1)`, which asks `getrandbits` (CPython 3.11 and later)
_SHUFFLE_BY_BITS: Final = (
    getattr(random.Random, "_randbelow", None) is getattr(random.Random, "_randbelow_with_getrandbits", 0)
)


def shuffle(rng: random.Random, cards: list[Card]) -> None:
    """Shuffle `cards` in place exactly as `rng.shuffle(cards)` does: the same order, the rng left
    in the same state.

    For a plain `random.Random` the loop of `Random.shuffle` and `Random._randbelow` runs here
    (compiled: no Python frame per card, `getrandbits` called directly); any other rng (a
    subclass may draw otherwise) shuffles itself.
    """
    if type(rng) is not random.Random or not _SHUFFLE_BY_BITS:
        rng.shuffle(cards)
        return
    getrandbits = rng.getrandbits
    i = len(cards) - 1
    while i > 0:
        n = i + 1
        k = n.bit_length()
        j: int = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]
        i -= 1


def deal(state: GameState, rng: random.Random, first: int | None = None) -> HandStarted:
    """Return the next `hand_started` event: a shuffled deck from the injected `rng`."""
    rules, n = state.rules, state.n_players
    deck = list(make_deck(rules.jokers))
    shuffle(rng, deck)
    hand = state.hand_no + 1
    if hand > 0 or first is None:
        first = (state.first_of_game + hand) % n if hand > 0 else rng.randrange(n)
    hands = tuple(tuple(deck[i * HAND_SIZE:(i + 1) * HAND_SIZE]) for i in range(n))
    pos = HAND_SIZE * n
    deads = (tuple(deck[pos:pos + HAND_SIZE]), tuple(deck[pos + HAND_SIZE:pos + 2 * HAND_SIZE]))
    pos += 22
    upcard = 1 if rules.upcard else 0
    stock = tuple(deck[pos:len(deck) - upcard])
    discard = tuple(deck[len(deck) - upcard:]) if upcard else ()
    return HandStarted(
        seq=state.next_seq, hand=hand, first=first, hands=hands, deads=deads, stock=stock, discard=discard
    )


def all_cards(state: GameState) -> Counter[Card]:
    """Return the multiset of every card on the table, for conservation checks."""
    total: Counter[Card] = Counter()
    for h in state.hands:
        total.update(elements(h))
    total.update(state.stock)
    total.update(state.pile)
    for d in state.deads:
        if d is not None:
            total.update(d)
    if state.pending_top is not None:
        total[state.pending_top] += 1
    total.update(state.pending_rest)
    for m in state.melds:
        total.update(m.cards)
    return total


__all__ = [
    "AnyEvent", "GameState", "IllegalMove", "Meld", "RANK", "advance", "all_cards",
    "apply", "candidate_plays", "check", "deal", "end_of_game", "end_of_hand",
    "hand_scores", "iter_states", "table_scores", "legal_dead_takes", "legal_discards", "legal_draws",
    "legal_events", "must_refill", "play", "replay", "team_of",
    "DeadFate", "DeadMode", "PLAYING_PHASES", "Phase",
]
