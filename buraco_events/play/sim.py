"""Simulation: many seeded bot games, one sealed log per game, and a summary of the results.

The shell around `bots.run_game` (a `table.Table` of bots): it derives each game's id and seed
from the run's seed, writes `DIR/<game_id>.jsonl` with `log.write_logs` (a batch's logs flushed
to disk together), and spreads batches of games over a process pool. A game depends only on its
id and seed, never on the worker that plays it or on the clock, so the same arguments give the
same bytes with any number of workers.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from buraco_events.bots.registry import bot_by_name, bot_spec, run_game, table_bots
from buraco_events.core.gate import team_of
from buraco_events.core.melds import CANASTA_KINDS
from buraco_events.log.writer import write_logs
from buraco_events.model.events import Event, HandEnded
from buraco_events.model.rules import canonical_variant, check_players, find_rules
from buraco_events.util.pool import collector_paused

#: progress callback: (games done, hands done) so far
Progress = Callable[[int, int], None]


class Summary(msgspec.Struct, kw_only=True):
    """The outcome of a simulation run; per-team figures are (team 0, team 1)."""

    variant: str
    players: int
    seed: int
    bots: tuple[str, ...]
    games: int
    hands: int
    events: int
    wins: tuple[int, int]
    avg_hand_score: tuple[float, float]
    canasta_rate: dict[str, tuple[float, float]]
    closing_rate: float
    closes: tuple[int, int]
    elapsed: float
    hands_per_s: float


@dataclass
class _Tally:
    """Integer sums over games (order-free, so any batching gives the same totals)."""

    games: int = 0
    hands: int = 0
    events: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    score: list[int] = field(default_factory=lambda: [0, 0])
    #: per kind: the four of every variant, and a club kind once one is met (RULES 3.5)
    canastas: dict[str, list[int]] = field(default_factory=lambda: {k: [0, 0] for k in CANASTA_KINDS[:4]})
    closes: list[int] = field(default_factory=lambda: [0, 0])

    def add(self, other: _Tally) -> None:
        """Add another tally into this one."""
        self.games += other.games
        self.hands += other.hands
        self.events += other.events
        for t in (0, 1):
            self.wins[t] += other.wins[t]
            self.score[t] += other.score[t]
            self.closes[t] += other.closes[t]
            for kind, counts in other.canastas.items():
                self.canastas.setdefault(kind, [0, 0])[t] += counts[t]


def game_id(variant: str, players: int, seed: int, index: int) -> str:
    """Return the id (and log file stem) of game `index` of a run."""
    return f"{variant}-{players}p-s{seed}-{index:05d}"


def game_seed(seed: int, index: int) -> int:
    """Return game `index`'s own seed, derived from the run's seed (stable across processes)."""
    digest = hashlib.sha256(f"{seed}/{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def seat_bots(names: Sequence[str], players: int) -> tuple[str, ...]:
    """Return one bot name per seat: names go round-robin, so 2 names on 4 seats make 2 teams.

    Accepts 1 name (every seat), 2 names (one per team) or one name per seat; raises ValueError
    naming an unknown bot or a bad count.
    """
    names = tuple(bot_spec(n) for n in names)
    if not names or len(names) not in (1, 2, players):
        raise ValueError(f"give 1, 2 or {players} bot names for {players} players, got {len(names)}")
    for n in names:
        bot_by_name(n)
    return tuple(names[seat % len(names)] for seat in range(players))


def _play_batch(
    out_dir: str, variant: str, players: int, seed: int, seats: tuple[str, ...],
    target: int | None, indices: Sequence[int], commit: bool = False, rules: dict[str, Any] | None = None,
) -> _Tally:
    """Play and write games `indices` of a run; return their tally (runs in a worker)."""
    with collector_paused():
        return _play_games(out_dir, variant, players, seed, seats, target, indices, commit, rules)


def _play_games(
    out_dir: str, variant: str, players: int, seed: int, seats: tuple[str, ...],
    target: int | None, indices: Sequence[int], commit: bool, rules: dict[str, Any] | None = None,
) -> _Tally:
    """`_play_batch`'s work (the collector paused around it)."""
    tally = _Tally()
    bots = table_bots(seats)
    logs: list[tuple[Path, list[Event]]] = []  # written together at the end (one flush to disk)
    for i in indices:
        gid = game_id(variant, players, seed, i)
        events, state = run_game(variant, players, game_seed(seed, i), bots, gid, target, rules, commit=commit)
        logs.append((Path(out_dir) / f"{gid}.jsonl", events))
        tally.games += 1
        tally.events += len(events)
        tally.hands += len(state.hand_results)
        if state.winner is not None:
            tally.wins[state.winner] += 1
        for result in state.hand_results:
            for sheet in result:
                tally.score[sheet.team] += sheet.total
                for kind, n in sheet.canastas.items():
                    tally.canastas.setdefault(kind, [0, 0])[sheet.team] += n
        for ev in events:  # the table's own events: `type(ev) is`, not isinstance (slow on Structs)
            if type(ev) is HandEnded and ev.closed_by is not None:
                tally.closes[team_of(ev.closed_by)] += 1
    write_logs(logs, exist_ok=True)
    return tally


def _batches(games: int, workers: int) -> Iterator[range]:
    """Split game indices into batches small enough to balance workers and report progress."""
    size = max(1, min(50, games // (workers * 8) if workers > 1 else 10))
    for start in range(0, games, size):
        yield range(start, min(games, start + size))


def simulate(
    out_dir: str | os.PathLike[str],
    games: int,
    variant: str,
    players: int,
    seed: int,
    bots: Sequence[str],
    workers: int = 1,
    target: int | None = None,
    progress: Progress | None = None,
    commit: bool = False,
    rules: Mapping[str, Any] | None = None,
) -> Summary:
    """Play `games` seeded bot games, write `out_dir/<game_id>.jsonl` for each, and summarise.

    `bots` are bot names assigned to seats by `seat_bots`; `target` overrides the preset's (0 = a
    single hand); `commit` commits every deal with a salt derived from the game's seed
    (`commit.seeded_salts`: the same arguments still give the same bytes); `rules` changes
    parameters of the preset's rules (`--rules`). A log already in the folder with the same bytes (a rerun with the same
    arguments) is kept; one with other content is never replaced (`log.LogExistsError`). Raises ValueError for a bad variant, bot names, player count or counts.
    """
    name = canonical_variant(variant)
    check_players(players)
    if games < 0 or workers < 1:
        raise ValueError("games must be >= 0 and workers >= 1")
    seats = seat_bots(bots, players)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    total = _Tally()

    def done(t: _Tally) -> None:
        total.add(t)
        if progress is not None:
            progress(total.games, total.hands)

    overrides = dict(rules) if rules else None
    if overrides:
        find_rules(name, **overrides)  # a bad parameter is named before anything is played
    args = (str(out), name, players, seed, seats, target)
    if workers == 1 or games <= 1:
        for batch in _batches(games, 1):
            done(_play_batch(*args, batch, commit, overrides))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            pending: set[Future[_Tally]] = {
                pool.submit(_play_batch, *args, batch, commit, overrides) for batch in _batches(games, workers)
            }
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    done(fut.result())
    elapsed = time.perf_counter() - started
    return _summary(total, name, players, seed, seats, elapsed)


def _summary(
    t: _Tally, variant: str, players: int, seed: int, seats: tuple[str, ...], elapsed: float
) -> Summary:
    hands = max(t.hands, 1)
    return Summary(
        variant=variant, players=players, seed=seed, bots=seats, games=t.games, hands=t.hands,
        events=t.events, wins=(t.wins[0], t.wins[1]),
        avg_hand_score=(t.score[0] / hands, t.score[1] / hands),
        canasta_rate={k: (t.canastas[k][0] / hands, t.canastas[k][1] / hands)
                      for k in CANASTA_KINDS if k in t.canastas},
        closing_rate=(t.closes[0] + t.closes[1]) / hands, closes=(t.closes[0], t.closes[1]),
        elapsed=elapsed, hands_per_s=t.hands / elapsed if elapsed > 0 else 0.0,
    )
