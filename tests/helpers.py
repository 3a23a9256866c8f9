"""Helpers shared by several test modules, so no test module imports another.

`Table` drives a scenario game event by event from a literal deal (RULES scenarios, with rejection
checks); `make_game`/`game_lines` build synthetic logs for the log, archive and schema tests;
`random_game` plays whole legal games (it lives in conftest, which also offers it as a fixture).
"""

from __future__ import annotations

import importlib
import random
import re
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from conftest import random_game, required_stages

from buraco_events.bots.registry import run_game, table_bots
from buraco_events.core.cards import make_deck, parse_cards, sort_key
from buraco_events.core.deal import all_cards
from buraco_events.core.engine import play
from buraco_events.core.gate import IllegalMove
from buraco_events.core.state import GameState
from buraco_events.log.writer import write_log
from buraco_events.model.events import (
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
    seal_lines,
)
from buraco_events.model.rules import Rules, find_rules
from buraco_events.model.scoring import TeamScore

__all__ = [
    "DIRECT", "PLAYERS", "Table", "deal_event", "direct_dead_table", "game_lines", "make_game",
    "random_game", "sheet",
]

# -- scenario tables (RULES scenarios) -----------------------------------------------------------

KINDS: dict[str, type[Event]] = {
    "drew": Drew, "took_pile": TookPile, "melded": Melded, "laid_off": LaidOff,
    "discarded": Discarded, "took_dead": TookDead, "stock_refilled": StockRefilled,
    "hand_ended": HandEnded, "game_ended": GameEnded, "hand_started": HandStarted,
}
NO_PLAYER = ("stock_refilled", "hand_ended", "game_ended", "hand_started")


def deal_event(
    rules: Rules, hands: Sequence[str], *, deads: Sequence[str] = ("", ""), stock: str = "",
    stock_bottom: str = "", discard: str = "", first: int = 0, hand: int = 0, seq: int = 1,
) -> HandStarted:
    """Build a `hand_started` from literal cards; hands, deads and the stock are filled in deck order.

    `stock` lists the top cards (top first), `stock_bottom` the last cards of the stock.
    """
    parts = [list(parse_cards(h)) for h in hands]
    dead_parts = [list(parse_cards(d)) for d in deads]
    top, bottom, up = parse_cards(stock), parse_cards(stock_bottom), parse_cards(discard)
    left = Counter(make_deck(rules.jokers))
    for group in [*parts, *dead_parts, top, bottom, up]:
        left.subtract(group)
    assert not -left, f"more copies than the deck holds: {sorted((-left).elements())}"
    filler = [c for c in dict.fromkeys(make_deck(rules.jokers)) for _ in range(left[c])]
    for group in [*parts, *dead_parts]:
        while len(group) < 11:
            group.append(filler.pop(0))
    if rules.upcard and not up:
        up = (filler.pop(0),)
    n_fill = rules.stock_size(len(hands)) - len(top) - len(bottom)
    full_stock = (*top, *filler[:n_fill], *bottom)
    assert len(filler) == n_fill
    return HandStarted(
        seq=seq, hand=hand, first=first, hands=tuple(tuple(h) for h in parts),
        deads=tuple(tuple(d) for d in dead_parts), stock=full_stock, discard=tuple(up),
    )


class Table:
    """One game driven event by event from a literal first deal, with rejection checks."""

    def __init__(self, variant: str, hands: Sequence[str], **deal: Any) -> None:
        overrides = deal.pop("overrides", {})
        self.rules = find_rules(variant, **overrides)
        self.state = GameState()
        self.events: list[Event] = []
        self.do_event(GameStarted(
            seq=0, game_id="scenario", variant=variant,
            players=tuple(f"p{i}" for i in range(len(hands))), rules=self.rules,
        ))
        self.do_event(deal_event(self.rules, hands, **deal))

    def make(self, kind: str, **fields: Any) -> Event:
        """Return the event `kind` at the next seq, filling the obvious fields from the state."""
        st = self.state
        fields.setdefault("seq", st.next_seq)
        if kind not in NO_PLAYER:
            fields.setdefault("player", st.to_play)
        for key in ("cards", "card"):
            if isinstance(fields.get(key), str):
                parsed = parse_cards(fields[key])
                fields[key] = parsed[0] if key == "card" else parsed
        if kind == "drew" and "card" not in fields:
            fields["card"] = st.stock[-1]
        elif kind == "took_pile":
            fields.setdefault("cards", tuple(st.pile))
        elif kind == "melded":
            fields.setdefault("meld", len(st.melds))
        elif kind == "took_dead":
            fields.setdefault("dead", 0)
            fields.setdefault("cards", st.deads.left[fields["dead"]])
        return KINDS[kind](**fields)

    def do_event(self, ev: Event) -> Event:
        """Play an event that must be legal."""
        play(self.state, ev)
        self.events.append(ev)
        assert all_cards(self.state) == Counter(make_deck(self.rules.jokers)) or self.state.phase == "deal"
        return ev

    def do(self, kind: str, **fields: Any) -> Event:
        """Build and play a legal event."""
        return self.do_event(self.make(kind, **fields))

    def reject(self, kind: str, why: str, **fields: Any) -> IllegalMove:
        """Assert the event is illegal for `why` (a substring) and leaves the state unchanged."""
        ev = self.make(kind, **fields)
        before = self.state.copy()
        with pytest.raises(IllegalMove, match=re.escape(why)) as info:
            play(self.state, ev)
        assert self.state == before
        return info.value

    def pass_turn(self) -> None:
        """Draw the stock's top card and discard it."""
        drew = self.do("drew")
        self.do("discarded", card=drew.card)  # type: ignore[attr-defined]

    def hand(self, seat: int) -> Counter[str]:
        """Return a seat's hand as a Counter (a copy: absent cards count 0)."""
        return Counter(self.state.hands[seat])


def sheet(score: TeamScore) -> tuple[int, int, int, int, int, int]:
    """Return a score sheet's items: melds, canasta bonus, close, hand, dead, total."""
    return (score.meld_points, score.canasta_bonus, score.close_bonus, score.hand_penalty,
            score.dead_penalty, score.total)


DIRECT = {
    "hands": ["3S 4S 5S 6S 3H 4H 5H 6H 3D 4D 5D", "KC KC QC QC JC JC 10C 10C 9C 2C JK"],
    "stock": "6D",
    "deads": ["7S 8S 9S 7H 8H 9H 7D 8D 9D 10D JD", ""],
}


def direct_dead_table(variant: str = "stbl", **deal: Any) -> Table:
    """Seat 0 draws 6D and melds its 12 cards as three runs: the hand empties by a play."""
    spec = DIRECT | deal
    t = Table(variant, **spec)
    t.do("drew")
    t.do("melded", cards="3S 4S 5S 6S")
    t.do("melded", cards="3H 4H 5H 6H")
    t.do("melded", cards="3D 4D 5D 6D")
    return t


# -- synthetic logs (random moves, not legal) ---------------------------------------------------

PLAYERS = ("ana", "bruno", "caio", "dora")


def make_game(seed: int = 0, hands: int = 1, turns: int = 12) -> list[Event]:
    """Return a synthetic 4-player game: real deals, then draws, melds, lay-offs and discards.

    The moves are random, not legal; seq and prev are placeholders until the game is sealed.
    """
    rng = random.Random(seed)
    events: list[Event] = [
        GameStarted(seq=0, game_id=f"g-{seed:04d}", variant="stbl", players=PLAYERS)
    ]
    for h in range(hands):
        deck = list(make_deck(4))
        rng.shuffle(deck)
        held = [deck[i * 11:(i + 1) * 11] for i in range(4)]  # 11/11/11/11, 2 deads of 11
        stock, melds = deck[66:], 0
        pile: list[str] = []
        events.append(HandStarted(
            seq=0, hand=h, first=0, hands=tuple(map(tuple, held)),
            deads=(tuple(deck[44:55]), tuple(deck[55:66])), stock=tuple(stock), discard=(),
        ))
        for turn in range(turns):
            seat = turn % 4
            hand = held[seat]
            if pile and turn % 7 == 6:
                events.append(TookPile(seq=0, player=seat, cards=tuple(pile)))
                hand += pile
                pile = []
            else:
                card = stock.pop(0)
                events.append(Drew(seq=0, player=seat, card=card))
                hand.append(card)
            if turn % 3 == 1:
                cards = sorted(rng.sample(hand, 3), key=sort_key)
                events.append(Melded(seq=0, player=seat, meld=melds, cards=tuple(cards)))
                melds += 1
            elif turn % 3 == 2 and melds:
                cards = rng.sample(hand, 1)
                events.append(LaidOff(seq=0, player=seat, meld=melds - 1, cards=tuple(cards)))
            else:
                cards = []
            for card in cards:
                hand.remove(card)
            if turn == 5:
                events.append(Note(seq=0, by="referee", text="ok, play on ♥"))
            card = rng.choice(hand)
            hand.remove(card)
            pile.append(card)
            events.append(Discarded(seq=0, player=seat, card=card))
        events.append(HandEnded(
            seq=0, hand=h, reason="closed", closed_by=1, scores=(120, -35), salt="s" * 8
        ))
    events.append(GameEnded(seq=0, totals=(120 * hands, -35 * hands), winner=0))
    return events


def game_lines(seed: int = 0, hands: int = 1, turns: int = 12) -> list[bytes]:
    """Return the sealed JSON lines of `make_game`."""
    return seal_lines(make_game(seed, hands, turns))


def write_match(path: Path, target: int = 1500, game_id: str = "g-multi") -> GameState:
    """Write a match of a greedy bot (team 0) against a random one (team 1), seed 3, every deal
    committed, to `path` and return its final state: two hands to 1500 (1420/350, 935/480), three
    to 3000. The parent of the branch and rulings tests."""
    events, state = run_game("stbl", 2, 3, table_bots(["greedy", "random"]), game_id, target=target, commit=True)
    write_log(path, events)
    return state


def hide_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make matplotlib unimportable, as on an install without the `plot` extra."""
    for name in ("matplotlib", "matplotlib.pyplot", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)


def import_or_skip(module: str, stage: str) -> Any:
    """Return `module` imported, or skip the test module without it, as `pytest.importorskip`
    does; but when `stage` (browser, spark, rl) is required (`BURACO_REQUIRE`, set by `.ci/run`),
    a missing module is an error: that stage passes only by running its tests."""
    if stage in required_stages():
        return importlib.import_module(module)
    return pytest.importorskip(module)


def with_marks(events: Sequence[Any], a: Any, lows: Sequence[float] = (620.0, 380.0)) -> Any:
    """Return a real analysis (`analysis.evaluate.Analysis`) with its costliest decisions whose
    best is not the chosen one given the narrower intervals a larger budget measures, lower ends
    `lows`, and the marks those give (`mark_of`): at the few samples a test affords, no interval
    clears a mark, and the display of marks is what the view tests check."""
    import msgspec

    from buraco_events.analysis.evaluate import mark_of, summarize

    movable = sorted((d for d in a.decisions if d.best != d.chosen), key=lambda d: (-d.loss, d.seq))
    assert len(movable) >= len(lows), "the analysis has too few decisions with a better action"
    lows_at = {d.seq: low for d, low in zip(movable, lows, strict=False)}
    decisions = []
    for d in a.decisions:
        low = lows_at.get(d.seq)
        if low is not None:
            loss = max(d.loss, low + 40.0)
            d = msgspec.structs.replace(d, loss=loss, low=low, high=max(d.high or 0.0, loss + 40.0),
                                        loss_stderr=20.0, mark=mark_of(low))
        decisions.append(d)
    return summarize(events, a.seat, a.samples, a.seed, decisions)
