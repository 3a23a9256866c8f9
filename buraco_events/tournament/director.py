"""The director's commands: each reads the tournament log under its writer's lock, checks what is
asked against the state and the game logs, and appends its events, or refuses in one line with
nothing appended (`store.append`).

`new`, `enter`, `withdraw`, `pair`, `record`, `adjust`, `close`, `play`; `audit` reads only.
`at` (RFC 3339 UTC) is given by the caller: the library reads no clock.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from buraco_events.model.events import Event
from buraco_events.model.rules import UnknownVariant, canonical_variant, find_rules
from buraco_events.util.pool import ordered_map

from . import movements
from .events import (
    MAX_ENTRIES,
    Adjusted,
    Entered,
    PairedTable,
    Result,
    RoundClosed,
    RoundPaired,
    Standing,
    TournamentEnded,
    TournamentStarted,
    Withdrawn,
    decode,
)
from .games import (
    Verdict,
    check_bots,
    game_id_of,
    keep_copy,
    play_table,
    read_game,
    result_points,
    table_job,
    table_seed,
    verify_file,
    verify_log,
)
from .scale import Scale, check_scale
from .standings import Standings, Verify, ranked, standings, table_outcomes
from .state import TournamentError, TournamentState, apply
from .store import Command, TournamentLog, append, check_events, create, games_dir, read_tournament


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:24] or "t"


#: a tournament id given by the director: what game ids start with, so letters, digits and `-`
TOURNAMENT_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")


def new(path: Path, *, name: str, form: str, variant: str, rules: dict[str, object] | None,
        movement: str, rounds: int, deals: str, scale: Scale, director: str, at: str,
        tournament_id: str | None = None) -> bytes:
    """Start a tournament log at `path`; return its first line. Without `tournament_id`, the
    id is the name's slug and a hash of the name and `at` (two events of one name differ)."""
    if tournament_id is not None and not TOURNAMENT_ID.fullmatch(tournament_id):
        raise TournamentError(f"--id {tournament_id!r}: 1 to 40 of a-z, 0-9 and '-', starting with"
                              " a letter or digit (game ids start with it)", 2)
    try:
        variant = canonical_variant(variant)
        if rules:
            find_rules(variant, **rules)
    except (UnknownVariant, ValueError) as exc:
        raise TournamentError(f"--rules/--variant: {exc}", 2) from None
    check_scale(scale)
    tid = tournament_id or f"{_slug(name)}-{hashlib.sha256(f'{name}|{at}'.encode()).hexdigest()[:8]}"
    event = TournamentStarted(
        seq=0, at=at, tournament_id=tid, name=name, form=form, variant=variant,  # type: ignore[arg-type]
        rules=rules or None, movement=movement, rounds=rounds, deals=deals,  # type: ignore[arg-type]
        vp_scale=scale, director=director)
    return create(path, event)


def enter(path: Path, players: Sequence[str], name: str | None, at: str) -> Entered:
    """Add an entry; return its event."""
    def command(log: TournamentLog) -> list[Event]:
        if len(log.state.entries) >= MAX_ENTRIES:
            raise TournamentError(f"{path}: the tournament has {MAX_ENTRIES} entries already")
        return [Entered(seq=0, at=at, entry=len(log.state.entries) + 1,
                        players=tuple(p.strip() for p in players), name=name or None)]
    return _one(path, command)  # type: ignore[return-value]


def withdraw(path: Path, entry: int, reason: str, at: str) -> Withdrawn:
    """Withdraw an entry: it is not paired again."""
    def command(log: TournamentLog) -> list[Event]:
        return [Withdrawn(seq=0, at=at, entry=entry, reason=reason)]
    return _one(path, command)  # type: ignore[return-value]


def _one(path: Path, command: Command) -> Event:
    _, lines = append(path, command)
    return decode(lines[0])


def games_of(log: TournamentLog, games: Path | None) -> Path:
    """Return the folder of the tournament's game logs: `games`, else `T/` beside `T.jsonl`."""
    return games if games is not None else games_dir(log.path)


def pairing(log: TournamentLog, games: Path | None = None,
            verify: Verify | None = None) -> movements.Pairing:
    """Return the next round's pairing by the tournament's movement."""
    state = log.state
    info = state.info
    round_no = len(state.rounds) + 1
    active = state.active()
    if state.rounds:
        first = state.rounds[0].paired
        field_ = sorted([e for t in first.tables for e in t.entries] + list(first.idle)
                        + ([first.bye] if first.bye is not None else []))
    else:
        field_ = active
    if len(active) < 2:
        raise TournamentError(f"{log.path}: {len(active)} active entries: a round needs two")
    most = movements.max_rounds(info.movement, len(field_))
    if most is not None and info.rounds > most:
        raise TournamentError(f"{log.path}: a {info.movement} of {len(field_)} entries has at most "
                              f"{most} rounds without a repeat; this tournament has {info.rounds}")
    if info.movement == "mitchell":
        return movements.mitchell(field_, round_no, set(active))
    if info.movement == "round_robin":
        return movements.round_robin(field_, round_no, set(active))
    order = ranked(state, table_outcomes(state, games_of(log, games), verify)) if state.rounds else active
    byes: dict[int, int] = {}
    for rnd in state.rounds:
        if rnd.paired.bye is not None:
            byes[rnd.paired.bye] = byes.get(rnd.paired.bye, 0) + 1
    if info.movement == "danish":
        return movements.danish(order, byes)
    played = {frozenset(t.entries) for rnd in state.rounds for t in rnd.paired.tables}
    return movements.swiss(order, played, byes)


def paired_event(log: TournamentLog, plan: movements.Pairing, at: str) -> RoundPaired:
    """Return the `round_paired` of a pairing: each table's game id and seed."""
    info = log.state.info
    round_no = len(log.state.rounds) + 1
    tables = []
    for i, (a, b) in enumerate(plan.pairs, 1):
        seed = table_seed(info.tournament_id, round_no, None if info.deals == "duplicate" else i)
        tables.append(PairedTable(table=i, entries=(a, b), seed=seed,
                                  game_id=f"{info.tournament_id}-r{round_no}-t{i}"))
    return RoundPaired(seq=0, at=at, round=round_no, tables=tuple(tables), bye=plan.bye,
                       idle=tuple(plan.idle))


def pair(path: Path, at: str, games: Path | None = None) -> RoundPaired:
    """Pair the next round by the movement."""
    def command(log: TournamentLog) -> list[Event]:
        return [paired_event(log, pairing(log, games), at)]
    return _one(path, command)  # type: ignore[return-value]


def _result_for(log: TournamentLog, data: bytes, name: str, disputed: bool, at: str) -> Result:
    """Return the result a game log makes for its table, or raise naming what differs."""
    state = log.state
    game_id = game_id_of(data, name)
    for i, rnd in enumerate(state.rounds, 1):
        for table in rnd.paired.tables:
            if table.game_id != game_id:
                continue
            if rnd.closed:
                raise TournamentError(f"{name}: round {i} is closed: no more results for it")
            verdict = verify_log(data, name, state.info, table, state.entries)
            if not verdict.ok and not disputed:
                raise TournamentError(f"{verdict.problem} (refused; --disputed stores it as "
                                      "disputed, counting nothing)")
            if verdict.ok:
                totals = verdict.totals or (0, 0)
                vp = result_points(verdict, state.info)
                why = "stored as disputed by the director" if disputed else None
            else:
                totals, vp, why = (0, 0), (0, 0), verdict.problem
            return Result(seq=0, at=at, round=i, table=table.table, game_id=game_id,
                          head=verdict.head or "0" * 64, totals=totals, vp=vp, disputed=why)
    raise TournamentError(f"{name}: field game_id: {game_id!r} is no table of this tournament")


def record(path: Path, logs: Sequence[Path], *, disputed: bool, at: str,
           games: Path | None = None) -> list[Result]:
    """Bind finished game logs to their tables, all or none; return the results appended."""
    datas = [(str(p), read_game(p)) for p in logs]

    def command(log: TournamentLog) -> list[Event]:
        results = [_result_for(log, data, name, disputed, at) for name, data in datas]
        check_events(log, results)  # all or none: the copies below only for results appended
        folder = games_of(log, games)
        for result, (_, data) in zip(results, datas, strict=True):
            if result.disputed is None:
                keep_copy(folder, result.game_id, data)
        return list(results)
    _, lines = append(path, command)
    return [decode(line) for line in lines]  # type: ignore[misc]


def adjust(path: Path, *, round_no: int, entry: int, vp: int, by: str, reason: str,
           at: str) -> Adjusted:
    """Record a director's penalty or award."""
    def command(log: TournamentLog) -> list[Event]:
        return [Adjusted(seq=0, at=at, round=round_no, entry=entry, vp=vp, by=by, reason=reason)]
    return _one(path, command)  # type: ignore[return-value]


def close(path: Path, at: str, games: Path | None = None) -> list[Event]:
    """Close the open round; after the last round, also end the tournament with its standings."""
    def command(log: TournamentLog) -> list[Event]:
        rnd = log.state.open_round()
        if rnd is None:
            raise TournamentError(f"{path}: no open round to close")
        out: list[Event] = [RoundClosed(seq=0, at=at, round=rnd.paired.round)]
        if rnd.paired.round == log.state.info.rounds:
            rnd.closed = True  # the standings as they are once it is closed
            try:
                table = standings(log.state, table_outcomes(log.state, games_of(log, games)))
            finally:
                rnd.closed = False
            out.append(TournamentEnded(seq=0, at=at, standings=tuple(
                Standing(entry=r.entry, vp=r.vp, place=r.place) for r in table.rows)))
        return out
    _, lines = append(path, command)
    return [decode(line) for line in lines]


def play(path: Path, bots: Sequence[str], *, out: Path | None, workers: int, at: str) -> list[Result]:
    """Play the open round's tables without a result with bots, write each game's log into
    `out` (default: the tournament's games folder) and record the results."""
    names = check_bots(bots)
    log = read_tournament(path)
    rnd = log.state.open_round()
    if rnd is None:
        raise TournamentError(f"{path}: no open round to play (pair one first)")
    folder = out if out is not None else games_dir(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TournamentError(f"{folder}: cannot create: {os.strerror(exc.errno or 0)}", 2) from None
    jobs = [table_job(log.state.info, t, log.state.entries, names, folder)
            for t in rnd.paired.tables if t.table not in rnd.results]
    written = [Path(p) for p, _ in ordered_map(play_table, jobs, workers)]
    return record(path, written, disputed=False, at=at, games=games_dir(path)) if written else []


def current(path: Path, games: Path | None = None) -> tuple[TournamentLog, Standings]:
    """Return the log as read and its standings."""
    log = read_tournament(path)
    return log, standings(log.state, table_outcomes(log.state, games_of(log, games)))


@dataclass
class AuditResult:
    """A tournament log's audit: the findings (each one line) and the standings recomputed."""

    log: TournamentLog
    standings: Standings
    findings: list[str]


def audit(path: Path, games: Path | None = None) -> AuditResult:
    """Audit a tournament log: its chain and checks (reading it), every result recomputed from its
    game log, every pairing of a fixed movement re-derived, and the final standings claimed."""
    log = read_tournament(path)
    folder = games_of(log, games)
    verdicts: dict[str, Verdict] = {}

    def verify(paired: PairedTable) -> Verdict:  # each game log audited once
        if paired.game_id not in verdicts:
            verdicts[paired.game_id] = verify_file(folder / f"{paired.game_id}.jsonl", log.state.info,
                                                   paired, log.state.entries)
        return verdicts[paired.game_id]

    table = standings(log.state, table_outcomes(log.state, folder, verify))
    findings: list[str] = []
    for o in table.tables:
        where = f"round {o.round} table {o.table} ({o.game_id})"
        for d in o.disputed:
            if d["stored_disputed"] and o.status == "counted":
                continue  # the director stored it as disputed, and a clean result followed
            findings.append(f"{where}: result seq {d['seq']} is disputed: {d['reason']}")
        if o.claims:
            findings.append(f"{where}: {o.claims}")
    findings += _pairing_findings(log, folder, verify)
    ended = log.state.ended
    if ended is not None:
        recount = {r.entry: (r.vp, r.place) for r in table.rows}
        for s in ended.standings:
            got = recount.get(s.entry)
            if got != (s.vp, s.place):
                findings.append(f"tournament_ended seq {ended.seq}: entry {s.entry} claims vp {s.vp} "
                                f"place {s.place}; the recount gives "
                                + (f"vp {got[0]} place {got[1]}" if got else "no such entry"))
    return AuditResult(log, table, findings)


def _pairing_findings(log: TournamentLog, games: Path, verify: Verify) -> list[str]:
    """Return the rounds whose pairing is not the one the movement gives from the events before
    it (and, for danish and swiss, the standings from the game logs as they stand)."""
    findings = []
    state = TournamentState()
    for i, event in enumerate(log.events):
        if isinstance(event, RoundPaired):
            before = TournamentLog(log.path, log.events[:i], state, None, [])
            try:
                expect = pairing(before, games, verify)
            except TournamentError as exc:
                findings.append(f"round_paired seq {event.seq}: round {event.round}: {exc}")
                expect = None
            if expect is not None and ([tuple(p) for p in expect.pairs] != [t.entries for t in event.tables]
                                       or expect.bye != event.bye):
                findings.append(f"round_paired seq {event.seq}: round {event.round} is not the pairing "
                                f"the {state.info.movement} movement gives from the events before it")
        apply(state, event)
    return findings
