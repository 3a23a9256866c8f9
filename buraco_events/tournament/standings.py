"""Standings: every table's outcome recomputed from its game log, and the ranking that follows.

A `result` counts only when its game log is at hand (`GAMES/GAME_ID.jsonl`), has the recorded
head, audits clean and is the table's game (`games.verify_log`); its totals and victory points
are recomputed, never taken from the claim. Anything else is disputed: shown apart, counting
nothing. Entries rank by victory points (results and adjustments), then the sum of their
totals' differences, then the victory points won against the entries they are tied with.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from .events import Adjusted, PairedTable, Result
from .games import Verdict, result_points, verify_file
from .state import TournamentState

#: the verdict on the game log of a table (`verify_file` on the tournament's games folder)
Verify = Callable[[PairedTable], Verdict]


class Outcome(msgspec.Struct, kw_only=True):
    """A table of a round as the logs stand: `status` counted, disputed or pending (no result)."""

    round: int
    table: int
    game_id: str
    entries: tuple[int, int]
    status: str
    totals: tuple[int, int] | None = None
    vp: tuple[int, int] | None = None
    head: str | None = None
    result_seq: int | None = None
    claims: str | None = None  # how the counted result's claims differ from the recount
    reason: str | None = None  # why a result is disputed
    disputed: list[dict[str, object]] = msgspec.field(default_factory=list)


class RoundCell(msgspec.Struct, kw_only=True):
    """One entry's round: its table and opponent (None: a bye or idle) and what it scored."""

    round: int
    table: int | None
    opponent: int | None
    status: str  # counted, disputed, pending, bye, idle, absent
    game_id: str | None = None
    totals: tuple[int, int] | None = None  # own, opponent's
    vp: int | None = None


class Row(msgspec.Struct, kw_only=True):
    """One entry's line of the standings."""

    place: int
    entry: int
    name: str
    players: tuple[str, ...]
    vp: int
    diff: int
    adjusted: int
    withdrawn: bool
    rounds: list[RoundCell]


class Standings(msgspec.Struct, kw_only=True):
    """The standings: rows best first, every table's outcome, the adjustments and disputes apart."""

    tournament_id: str
    name: str
    movement: str
    deals: str
    rounds: int
    rounds_paired: int
    rounds_closed: int
    rows: list[Row]
    tables: list[Outcome]
    adjustments: list[dict[str, object]]
    disputed: list[dict[str, object]]


def outcome(rnd: int, table: PairedTable, results: list[Result], verify: Verify,
            scale_points: Callable[[Verdict], tuple[int, int]]) -> Outcome:
    """Return a table's outcome: its last result that rests on a clean log counts."""
    out = Outcome(round=rnd, table=table.table, game_id=table.game_id, entries=table.entries,
                  status="pending" if not results else "disputed")
    verdict: Verdict | None = None
    for result in results:
        why = result.disputed
        if why is None:
            verdict = verdict or verify(table)
            if not verdict.ok:
                why = verdict.problem
            elif verdict.head != result.head:
                why = (f"the game log changed after its result was recorded (head {verdict.head}"
                       f", recorded {result.head})")
        if why is not None:
            out.disputed.append({"seq": result.seq, "head": result.head, "reason": why,
                                 "stored_disputed": result.disputed is not None})
            out.reason = why
            continue
        assert verdict is not None and verdict.totals is not None
        vp = scale_points(verdict)
        out.status, out.totals, out.vp = "counted", verdict.totals, vp
        out.head, out.result_seq, out.reason = result.head, result.seq, None
        if tuple(result.totals) != verdict.totals or tuple(result.vp) != vp:
            out.claims = (f"result seq {result.seq} claims totals {list(result.totals)} vp "
                          f"{list(result.vp)}; the game log recounts totals "
                          f"{list(verdict.totals)} vp {list(vp)}")
    return out


def table_outcomes(state: TournamentState, games: Path,
                   verify: Verify | None = None) -> list[Outcome]:
    """Return every paired table's outcome, round by round, reading logs from `games`."""
    info = state.info

    def default(table: PairedTable) -> Verdict:
        return verify_file(games / f"{table.game_id}.jsonl", info, table, state.entries)

    check = verify or default
    return [outcome(i, t, rnd.results.get(t.table, []), check, lambda v: result_points(v, info))
            for i, rnd in enumerate(state.rounds, 1) for t in rnd.paired.tables]


@dataclass
class _Tally:
    vp: int = 0
    diff: int = 0
    adjusted: int = 0
    against: dict[int, int] = field(default_factory=dict)  # vp won against each opponent


def _cells(state: TournamentState, outcomes: list[Outcome]) -> dict[int, list[RoundCell]]:
    by_round: dict[tuple[int, int], Outcome] = {}
    for o in outcomes:
        for e in o.entries:
            by_round[(o.round, e)] = o
    cells: dict[int, list[RoundCell]] = {e: [] for e in state.entries}
    for i, rnd in enumerate(state.rounds, 1):
        for e in state.entries:
            found = by_round.get((i, e))
            if found is None:
                status = ("bye" if rnd.paired.bye == e else "idle" if e in rnd.paired.idle
                          else "absent")
                cells[e].append(RoundCell(round=i, table=None, opponent=None, status=status))
                continue
            o = found
            side = o.entries.index(e)
            own = None
            if o.totals is not None and o.vp is not None:
                own = o.totals[side], o.totals[1 - side]
            cells[e].append(RoundCell(
                round=i, table=o.table, opponent=o.entries[1 - side], status=o.status,
                game_id=o.game_id, totals=own, vp=o.vp[side] if o.vp is not None else None))
    return cells


def standings(state: TournamentState, outcomes: list[Outcome]) -> Standings:
    """Return the standings from the state and the tables' outcomes."""
    info = state.info
    tally = {e: _Tally() for e in state.entries}
    for o in outcomes:
        if o.status != "counted" or o.totals is None or o.vp is None:
            continue
        for side, e in enumerate(o.entries):
            other = o.entries[1 - side]
            t = tally[e]
            t.vp += o.vp[side]
            t.diff += o.totals[side] - o.totals[1 - side]
            t.against[other] = t.against.get(other, 0) + o.vp[side]
    adjustments: list[Adjusted] = [a for rnd in state.rounds for a in rnd.adjustments]
    for a in adjustments:
        tally[a.entry].vp += a.vp
        tally[a.entry].adjusted += a.vp

    def base(e: int) -> tuple[int, int]:
        return tally[e].vp, tally[e].diff

    def head_to_head(e: int) -> int:
        tied = [o for o in state.entries if o != e and base(o) == base(e)]
        return sum(tally[e].against.get(o, 0) for o in tied)

    keys = {e: (tally[e].vp, tally[e].diff, head_to_head(e)) for e in state.entries}
    order = sorted(state.entries, key=lambda e: (-keys[e][0], -keys[e][1], -keys[e][2], e))
    cells = _cells(state, outcomes)
    rows: list[Row] = []
    for i, e in enumerate(order):
        place = rows[-1].place if rows and keys[order[i - 1]] == keys[e] else i + 1
        entry = state.entries[e]
        rows.append(Row(place=place, entry=e, name=entry.label, players=entry.players,
                        vp=tally[e].vp, diff=tally[e].diff, adjusted=tally[e].adjusted,
                        withdrawn=entry.withdrawn is not None, rounds=cells[e]))
    disputed = [{"round": o.round, "table": o.table, "game_id": o.game_id, **d}
                for o in outcomes for d in o.disputed]
    return Standings(
        tournament_id=info.tournament_id, name=info.name, movement=info.movement, deals=info.deals,
        rounds=info.rounds, rounds_paired=len(state.rounds),
        rounds_closed=sum(1 for r in state.rounds if r.closed), rows=rows, tables=outcomes,
        adjustments=[{"seq": a.seq, "round": a.round, "entry": a.entry, "vp": a.vp, "by": a.by,
                      "reason": a.reason} for a in adjustments],
        disputed=disputed)


def ranked(state: TournamentState, outcomes: list[Outcome]) -> list[int]:
    """Return the active entries best first (the order Danish and Swiss pair by)."""
    rows = standings(state, outcomes).rows
    return [r.entry for r in rows if not r.withdrawn]
