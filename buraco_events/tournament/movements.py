"""Movements: who meets whom in a round. Pure functions of the field, the round and what came
before; `director.pair` turns their pairs into a `round_paired` event.

- `mitchell`: the field splits into two lines (entries 1st, 3rd, 5th... stay at their tables;
  2nd, 4th, 6th... move one table up each round); with an even number of tables the moving line
  skips a table after half the rounds, so it never meets a stationary entry twice. An odd field
  has a phantom in the moving line: whoever it visits has the bye, so byes rotate.
- `round_robin`: the circle method (one entry fixed, the others turning), every entry meets
  every other once; an odd field has a phantom, so each entry has one bye.
- `danish`: by the standings, 1 against 2, 3 against 4 (rematches allowed).
- `swiss`: by the standings, never a pair that met before while a pairing without one exists.

Danish and Swiss give an odd field's bye to the lowest-ranked entry among those with the fewest
byes so far. In the fixed movements (mitchell, round_robin) an entry whose opponent withdrew is
`idle`: it sits out the round.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

#: the most steps the Swiss search takes before pairing by rank (a field near exhaustion only)
SWISS_BUDGET = 200_000


@dataclass(frozen=True)
class Pairing:
    """A round's pairs (team 0 first), its bye and the entries left without an opponent."""

    pairs: list[tuple[int, int]]
    bye: int | None = None
    idle: list[int] = field(default_factory=list)


def max_rounds(movement: str, entries: int) -> int | None:
    """Return the most rounds a movement gives a field of `entries` without a repeat (None: any)."""
    if movement == "mitchell":
        tables = (entries + 1) // 2
        return tables if tables % 2 or tables == 1 else tables - 1
    if movement == "round_robin":
        return entries - 1 if entries % 2 == 0 else entries
    return None


def _sit(a: int | None, b: int | None, active: Collection[int], pairs: list[tuple[int, int]],
         byes: list[int], idle: list[int]) -> None:
    """Seat a table of a fixed movement: a phantom gives a bye, a withdrawn entry leaves its
    opponent idle."""
    if a is not None and b is not None and a in active and b in active:
        pairs.append((a, b))
        return
    for e, other in ((a, b), (b, a)):
        if e is not None and e in active:
            (byes if other is None else idle).append(e)


def mitchell(field_: Sequence[int], round_no: int, active: Collection[int]) -> Pairing:
    """Return round `round_no` (from 1) of a Mitchell movement of `field_` (the entries of round
    1, in order); the stationary line is team 0."""
    stay = list(field_[0::2])
    move: list[int | None] = list(field_[1::2])
    if len(move) < len(stay):
        move.append(None)  # the phantom
    tables = len(stay)
    skip = 1 if tables % 2 == 0 and tables > 1 and round_no > tables // 2 else 0
    at: list[int | None] = [None] * tables
    for i, e in enumerate(move):
        at[(i + round_no - 1 + skip) % tables] = e
    pairs: list[tuple[int, int]] = []
    byes: list[int] = []
    idle: list[int] = []
    for t in range(tables):
        _sit(stay[t], at[t], active, pairs, byes, idle)
    return Pairing(pairs, byes[0] if byes else None, idle + byes[1:])


def round_robin(field_: Sequence[int], round_no: int, active: Collection[int]) -> Pairing:
    """Return round `round_no` (from 1) of a round robin of `field_` (the entries of round 1)."""
    ring: list[int | None] = list(field_)
    if len(ring) % 2:
        ring.append(None)
    m = len(ring)
    if m < 2:
        return Pairing([], ring[0] if ring and ring[0] in active else None)
    rest = ring[1:]
    k = (round_no - 1) % (m - 1)
    turned = [ring[0]] + rest[-k:] + rest[:-k] if k else ring
    pairs: list[tuple[int, int]] = []
    byes: list[int] = []
    idle: list[int] = []
    for i in range(m // 2):
        a, b = turned[i], turned[m - 1 - i]
        if i == 0 and round_no % 2 == 0:
            a, b = b, a  # the fixed entry changes sides every other round
        _sit(a, b, active, pairs, byes, idle)
    return Pairing(pairs, byes[0] if byes else None, idle + byes[1:])


def _bye_order(ranked: Sequence[int], byes: dict[int, int]) -> list[int]:
    """Return who may take the bye, first choice first: fewest byes, then lowest ranked."""
    low_first = list(reversed(ranked))
    return sorted(low_first, key=lambda e: byes.get(e, 0))


def danish(ranked: Sequence[int], byes: dict[int, int]) -> Pairing:
    """Return a Danish round: `ranked` (active entries, best first) paired 1-2, 3-4, ..."""
    field_ = list(ranked)
    bye = None
    if len(field_) % 2:
        bye = _bye_order(field_, byes)[0]
        field_.remove(bye)
    return Pairing([(field_[i], field_[i + 1]) for i in range(0, len(field_) - 1, 2)], bye)


def _met(a: int, b: int, played: Collection[frozenset[int]]) -> bool:
    return frozenset((a, b)) in played


def _match(field_: list[int], played: Collection[frozenset[int]],
           budget: list[int]) -> list[tuple[int, int]] | None:
    """Return pairs of `field_` (best first) where no pair met before, the best entry with the
    best opponent it may have; None when there is none (or the budget ran out)."""
    if not field_:
        return []
    budget[0] -= 1
    if budget[0] < 0:
        return None
    top, rest = field_[0], field_[1:]
    for i, other in enumerate(rest):
        if _met(top, other, played):
            continue
        sub = _match(rest[:i] + rest[i + 1:], played, budget)
        if sub is not None:
            return [(top, other), *sub]
        if budget[0] < 0:
            return None
    return None


def swiss(ranked: Sequence[int], played: Collection[frozenset[int]], byes: dict[int, int]) -> Pairing:
    """Return a Swiss round: `ranked` (active entries, best first) paired by rank with no pair
    that met before (`played`), while such a pairing exists; else as `danish` pairs."""
    budget = [SWISS_BUDGET]
    candidates: list[int | None] = list(_bye_order(ranked, byes)) if len(ranked) % 2 else [None]
    for bye in candidates:
        field_ = [e for e in ranked if e != bye]
        pairs = _match(field_, played, budget)
        if pairs is not None:
            return Pairing(pairs, bye)
        if budget[0] < 0:
            break
    return danish(ranked, byes)
