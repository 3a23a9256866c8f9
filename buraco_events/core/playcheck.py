"""The checks and applies of a meld and a lay-off, and whether the seat to play has a legal one.

A play's check is the longest of the rules (the cards held, the meld's shape, one set per rank,
the closed pile's top, what the play leaves in the hand): its own module, beside the fold that
calls it (`engine`), which also asks it whether a take leaves a legal play (`any_play`). The
checks return their refusal (`Refusal`) rather than raise it: the table and the look-ahead check
candidate plays by the thousand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import cast

from buraco_events.model.events import Event, LaidOff, Melded
from buraco_events.model.rules import Rules

from .cards import Card, is_wild_card
from .closing import NO_CANASTA, WILD_LAST, canasta_need, closing_bar, has_closing_canasta
from .deads import can_take_dead, empty_hand
from .fits import MeldFits, meld_fits
from .gate import (
    Refusal,
    card_list,
    cards_taken,
    phase_reason,
    refusal_of,
    rules_context,
    team_of,
    turn_reason,
)
from .lookahead import TopPlay, is_natural_top
from .melds import CANASTA_SIZE, Meld, MeldShape, classify_in
from .plays import CardPlay, iter_raw_plays, top_play_candidates, top_plays
from .state import GameState, RulesContext, add_cards, shallow_copy


def _play_need(state: GameState, ev: Melded | LaidOff) -> dict[Card, int] | Refusal:
    """Check turn, phase and card ownership; return the cards the play takes from the hand of
    its player (`ev.player`, the seat to play), or the error."""
    if state.phase != "play":
        return refusal_of(state, ev, phase_reason(state, ev))
    player = ev.player
    if player != state.to_play:
        return refusal_of(state, ev, turn_reason(state, player))
    cards: Sequence[Card] = ev.cards
    if not cards:
        return refusal_of(state, ev, "cards: empty")
    top = state.pending_top
    held = state.hands[player]
    if top is not None:
        if top not in cards:
            return refusal_of(state, ev, f"closed pile: the top card {top} must go into the first play after taking the pile")
        rest = list(cards)  # the top comes from the pile, the other cards from the hand
        rest.remove(top)
        cards = rest
    need = cards_taken(held, cards)
    if need is None:
        missing = Counter(cards) - Counter(held)
        return refusal_of(state, ev, f"cards not in hand: {card_list(sorted(missing.elements()))}")
    return need


def _kept(state: GameState, player: int, need: dict[Card, int]) -> set[Card]:
    """Return the distinct cards a play leaves in the hand (with a closed pile's rest)."""
    kept = {c for c, n in state.hands[player].items() if n - need.get(c, 0) > 0}
    kept.update(state.pending_rest)
    return kept


def _after_play_error(
    state: GameState, ev: Event, player: int, need: dict[Card, int], meld: Callable[[], Meld]
) -> Refusal | None:
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
            return refusal_of(state, ev, "in this variant a hand may only empty by a discard")
        if can_take_dead(state, team):
            return None  # direct dead
        if state.rules.close_by_discard:
            return refusal_of(state, ev, "only a discard may close in this variant; this play would empty the hand")
        if not has_closing_canasta(state, team, meld()):
            return refusal_of(state, ev, "cannot close: the team has no " + canasta_need(state))
        return None
    # the kept cards matter only for a single card taken from an open pile, or one card left
    if state.single_taken is not None and _kept(state, player, need) == {state.single_taken}:
        return refusal_of(state, ev, f"this play leaves only {state.single_taken}, which may not go back to the pile (no single-card return)")
    if state.top_due is not None and state.top_due not in need:
        err = _top_still_usable_error(state, ev, player, need, meld)
        if err is not None:
            return err
    if left != 1:
        return None
    (last,) = _kept(state, player, need)
    # the one card left must be able to go by a discard: the discard rule's last card
    bar = closing_bar(state, team, last, meld)
    if bar == NO_CANASTA:
        return refusal_of(state, ev, f"this play leaves the single card {last}, which could not be discarded: the team has no {canasta_need(state)} to close",
                       f"this play leaves a single card, which could not be discarded: the team has no {canasta_need(state)} to close")
    if bar == WILD_LAST:
        return refusal_of(state, ev, f"this play leaves the single card {last}, a wild, which may not be the closing discard",
                       "this play leaves a single card, a wild, which may not be the closing discard")
    return None


def _top_still_usable_error(
    state: GameState, ev: Event, player: int, need: dict[Card, int], meld: Callable[[], Meld]
) -> Refusal | None:
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
        return refusal_of(state, ev, f"this play leaves no way to meld the top card {state.top_due} taken from the pile, which must be melded before the turn ends")
    return None


def _top_still_playable(trial: GameState, player: int, top: Card) -> bool:
    """Return whether the due top card (held) can still be melded: `any_play(trial, True)`."""
    if not is_natural_top(top):
        return any_play(trial, top_plays_only=True)
    return any_passes(trial, player, top_play_candidates(trial, player, top, 0))


def check_melded(state: GameState, ev: Melded) -> MeldShape:
    """Return the shape of the new meld `ev`; raise the error `_melded` finds, if any."""
    found = _melded(state, ev)
    if isinstance(found, Refusal):
        raise found.error()
    return found


def _melded(state: GameState, ev: Melded) -> MeldShape | Refusal:
    """Return the shape of the new meld `ev`, or why `check` refuses it (the seq aside: it is the
    caller's).

    The check of a meld returns its error rather than raise it: the table and the look-ahead
    check candidate plays by the thousand, and compiled, an error raised and caught costs more
    than the check.
    """
    need = _play_need(state, ev)
    if isinstance(need, Refusal):
        return need
    player = ev.player
    if ev.meld != len(state.melds):
        return refusal_of(state, ev, f"meld: the next meld number is {len(state.melds)}, got {ev.meld}")
    shape = classify_in(rules_context(state).melds, ev.cards)
    if shape is None:
        return refusal_of(state, ev, f"{card_list(ev.cards)} is not a legal {_meld_words(state.rules)}")
    team = team_of(player)
    if shape.type == "set" and rules_context(state).one_set_per_rank:
        if any(m.team == team and m.shape.type == "set" and m.shape.rank == shape.rank for m in state.melds):
            return refusal_of(state, ev, "one set per rank: the team already has a set of that rank")
    refused = _after_play_error(
        state, ev, player, need, lambda: Meld(len(state.melds), team, shape, player, ev.seq, state.turn, state.turn)
    )
    return shape if refused is None else refused


def _meld_words(rules: Rules) -> str:
    return "run or set" if rules.sets else "run (this variant has no sets)"


def apply_melded(state: GameState, ev: Melded, shape: MeldShape | None) -> None:
    """Lay the new meld: `shape` as its check found it, or classified here when not given."""
    if shape is None:
        shape = classify_in(rules_context(state).melds, ev.cards)
        assert shape is not None
    seq, player = ev.seq, ev.player
    canasta_seq = seq if len(shape.cards) >= CANASTA_SIZE else None
    state.melds.append(
        Meld(ev.meld, team_of(player), shape, player, seq, state.turn, state.turn, canasta_seq)
    )
    _after_play(state, player, ev.cards)


def check_laid_off(state: GameState, ev: LaidOff) -> MeldShape:
    """Return the shape of the meld the lay-off `ev` makes; raise the error `_laid_off` finds,
    if any."""
    found = _laid_off(state, ev)
    if isinstance(found, Refusal):
        raise found.error()
    return found


def _laid_off(state: GameState, ev: LaidOff) -> MeldShape | Refusal:
    """Return the shape of the meld the lay-off `ev` makes, or why `check` refuses it (returned
    rather than raised, as `_melded`).

    The meld it makes is `grown_shape`: `classify` of the meld's cards and the lay-off's.
    """
    need = _play_need(state, ev)
    if isinstance(need, Refusal):
        return need
    player = ev.player
    if ev.meld >= len(state.melds):
        return refusal_of(state, ev, f"meld: there is no meld {ev.meld}")
    old = state.melds[ev.meld]
    team = team_of(player)
    if old.team != team:
        return refusal_of(state, ev, f"meld {ev.meld} belongs to the other team")
    shape = grown_shape(old, tuple(ev.cards), rules_context(state))
    if shape is None or shape.type != old.shape.type:
        return refusal_of(state, ev, f"adding {card_list(ev.cards)} to meld {ev.meld} ({card_list(old.cards)}) does not make a legal meld")
    top = state.pending_top or state.top_due
    # RULES 2: a wild on top only starts a new meld; a 2 laid off in its own place is no wild (terms)
    if (
        top is not None and rules_context(state).wild_top_new_meld_only and is_wild_card(top)
        and shape.wild == top and top in ev.cards
    ):
        return refusal_of(state, ev, f"closed pile: the wild {top} on top may only start a new meld")
    refused = _after_play_error(
        state, ev, player, need, lambda: old.with_shape(shape, old.last_turn, old.canasta_seq))
    return shape if refused is None else refused


def grown_shape(m: Meld, cards: tuple[Card, ...], context: RulesContext) -> MeldShape | None:
    """Return `classify` of a table meld's cards and `cards` (a lay-off's meld, or None) under
    the rules of a game's context.

    From the meld's kept entry (`MeldFits.grown`, kept per lay-off while the meld stands) when it
    has one under these rules: a table whose bots list the lay-offs made it already. Otherwise
    `classify` (cached by cards): building an entry costs more than one classify, and a replay
    or an audit, which never lists lay-offs, would build one for every meld laid off onto.
    """
    entry = m._fits
    if entry is not None and m._fits_rules is context.rules:
        return cast(MeldFits, entry).grown(cards)
    return classify_in(context.melds, m.cards + cards)


def meld_entry(m: Meld, rules: Rules) -> MeldFits:
    """Return the kept entry of a table meld under `rules` (`fits.meld_fits` of its cards).

    Kept on the meld itself: a meld is immutable (a lay-off replaces it), so its entry never
    goes stale, and reading an attribute costs less than looking the meld up by its id()."""
    kept = m._fits
    if kept is not None and m._fits_rules is rules:
        return cast(MeldFits, kept)
    entry = meld_fits(m.shape.cards, rules)
    m._fits, m._fits_rules = entry, rules
    return entry


def apply_laid_off(state: GameState, ev: LaidOff, shape: MeldShape | None) -> None:
    """Grow the meld: to `shape` as its check found it, or classified here when not given."""
    meld_id = ev.meld
    old = state.melds[meld_id]
    if shape is None:
        shape = grown_shape(old, tuple(ev.cards), rules_context(state))
        assert shape is not None
    canasta_seq = old.canasta_seq
    if canasta_seq is None and len(shape.cards) >= CANASTA_SIZE:
        canasta_seq = ev.seq
    state.melds[meld_id] = old.with_shape(shape, state.turn, canasta_seq)
    _after_play(state, ev.player, ev.cards)


def _after_play(state: GameState, player: int, cards: Sequence[Card]) -> None:
    hand = state.hands[player]
    state.turn_progress = True  # RULES 5: a meld or a lay-off is progress
    if state.top_due is not None and state.top_due in cards:
        state.top_due = None  # RULES 2, turn_end: the top card is melded
    if state.pending_top is not None:
        rest = list(cards)
        rest.remove(state.pending_top)
        cards = rest
        add_cards(hand, state.pending_rest)  # RULES 2: the rest joins the hand after that play
        state.pending_top = None
        state.pending_rest = []
    for c in cards:  # each card leaves the hand, a card no longer held leaves the dict
        n = hand[c] - 1
        if n:
            hand[c] = n
        else:
            del hand[c]
    if not hand:
        empty_hand(state, player, "direct")



# -- whether a legal play exists ------------------------------------------------------------------


def any_passes(state: GameState, player: int, candidates: list[TopPlay]) -> bool:
    """Return whether some candidate play passes `check` (their seq is the next one by construction)."""
    for kind, meld_id, cards in candidates:
        if kind == "meld":
            found = _melded(state, Melded(seq=state.next_seq, player=player, meld=len(state.melds), cards=cards))
        else:
            found = _laid_off(state, LaidOff(seq=state.next_seq, player=player, meld=meld_id, cards=cards))
        if not isinstance(found, Refusal):
            return True
    return False



def any_play(state: GameState, top_plays_only: bool = False) -> bool:
    """Return whether the player to move has at least one legal meld or lay-off.

    With `top_plays_only`, only plays that meld the due top card count (`pile_top_use` turn_end).
    """
    return next(iter_plays(state, top_plays_only), None) is not None


def iter_plays(state: GameState, top_plays_only: bool = False) -> Iterator[Event]:
    """Yield the legal melds and lay-offs lazily (an early exit stops the generation)."""
    if state.phase != "play":
        return
    player = state.to_play
    raw = (
        top_plays(state, player, state.top_due, 0)
        if top_plays_only and state.top_due is not None else iter_raw_plays(state, player)
    )
    for play in raw:
        ev = checked_play(state, play)
        if ev is not None:
            yield ev


def checked_play(state: GameState, play: CardPlay) -> Melded | LaidOff | None:
    """Return the event of a candidate play of the player to move, or None when `check` refuses it."""
    kind, meld_id, cards = play
    player, seq = state.to_play, state.next_seq
    # what `check` runs for these events (their seq is the next one by construction)
    if kind == "meld":
        melded = Melded(seq=seq, player=player, meld=len(state.melds), cards=cards)
        return None if isinstance(_melded(state, melded), Refusal) else melded
    laid = LaidOff(seq=seq, player=player, meld=meld_id, cards=cards)  # type: ignore[arg-type]
    return None if isinstance(_laid_off(state, laid), Refusal) else laid


