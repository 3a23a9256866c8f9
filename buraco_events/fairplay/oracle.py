"""The oracles: a seat's information set plus hidden knowledge, and tables dealt from it.

An oracle is what a cheating seat could learn beside its information set (`infoset.InfoSet`):
`partner` the partner's hand (4-player games), `hands` every other hand, `stock` the stock's
order. A table dealt for an oracle keeps those cards where they truly are and deals only the rest
of the pool, every consistent arrangement equally likely (`infoset.sample`). This is the one
module of the fair-play check that reads the true hidden cards; the information-set side never
calls it.
"""

from __future__ import annotations

import random
from collections import Counter

from buraco_events.core.cards import Card
from buraco_events.core.infoset import InfoSet, dealt_table
from buraco_events.core.state import GameState, elements

#: every oracle, in report order
ORACLES: tuple[str, ...] = ("partner", "hands", "stock")


def oracles_for(n_players: int) -> tuple[str, ...]:
    """Return the oracles of a game of `n_players`: `partner` only where there is one."""
    return ORACLES if n_players == 4 else tuple(o for o in ORACLES if o != "partner")


def fixed_seats(oracle: str, seat: int, n_players: int) -> tuple[int, ...]:
    """Return the seats whose hands an oracle knows, besides `seat` itself."""
    if oracle == "partner":
        if n_players != 4:
            raise ValueError(f"no partner in a {n_players}-player game")
        return ((seat + 2) % 4,)
    if oracle == "hands":
        return tuple(s for s in range(n_players) if s != seat)
    if oracle == "stock":
        return ()
    raise ValueError(f"unknown oracle {oracle!r}; oracles: {', '.join(ORACLES)}")


def oracle_info(state: GameState, info: InfoSet, oracle: str) -> InfoSet:
    """Return `info` with what `oracle` knows of the true table `state` taken out of the pool:
    the hands it sees become known cards, the stock it sees leaves the places to deal."""
    pool: Counter[Card] = Counter(info.pool)
    known, hidden = list(info.known), list(info.hidden)
    for s in fixed_seats(oracle, info.seat, state.n_players):
        true = sorted(elements(state.hands[s]))
        pool -= Counter(true) - Counter(info.known[s])
        known[s], hidden[s] = tuple(true), 0
    stock = info.stock
    if oracle == "stock":
        pool -= Counter(state.stock)
        stock = 0
    return InfoSet(info.seat, info.own, tuple(known), tuple(hidden), stock, info.deads,
                   tuple(sorted(pool.elements())))


def fixes_nothing(info: InfoSet, known: InfoSet) -> bool:
    """Return whether an oracle's information set `known` (`oracle_info`) fixes no card that a
    deal of `info` would place: the partner's hand all known already, an empty stock."""
    return known.pool == info.pool


def oracle_table(state: GameState, info: InfoSet, oracle: str, rng: random.Random) -> GameState:
    """Return a table dealt from `rng` that keeps what `oracle` knows of `state` as it truly is."""
    table = dealt_table(state, oracle_info(state, info, oracle), rng)
    if oracle == "stock":
        table.stock = list(state.stock)
    return table


def hidden_words(state: GameState, seat: int, oracle: str, top: int = 3) -> str:
    """Return in words what an oracle saw that the seat could not: the hands it knows, or the
    stock's next cards."""
    if oracle == "stock":
        nxt = list(reversed(state.stock))[:top]
        return "stock next: " + (" ".join(nxt) if nxt else "(empty)")
    return "; ".join(f"seat {s}: {' '.join(sorted(elements(state.hands[s])))}"
                     for s in fixed_seats(oracle, seat, state.n_players))


__all__ = ["ORACLES", "fixed_seats", "fixes_nothing", "hidden_words", "oracle_info", "oracle_table", "oracles_for"]
