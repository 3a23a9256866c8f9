"""A duplicate match between two bots (`buraco match`): the luck of the deal cancels.

Every deal is one hand, played twice from the same cards: first with bot A in the even seats
(team 0) and bot B in the odd ones, then with the teams' seats swapped. A deal's *difference* is
A's team hand total less B's, summed over its two games: a deal that favours one side favours A in
one game and B in the other, so what is left is the bots' play. The match reports each bot's
total over every game, the per-deal differences, their mean and a 95% confidence interval of the
mean (normal approximation: mean ± 1.96 standard errors, fair from a few dozen deals), and writes
every game's log.

Deal i's cards come from its own seed (`sim.game_seed(seed, i)`, the deal stream of
`seeds.SeedStreams`, which no bot draws from), so both of its games get the same hand, stock and
deads, and the match is the same for any number of workers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from buraco_events.bots.registry import run_game, table_bots
from buraco_events.core.gate import team_of
from buraco_events.log.writer import write_logs
from buraco_events.model.events import Event
from buraco_events.model.rules import canonical_variant, check_players, find_rules
from buraco_events.util.pool import ordered_map

from .sim import game_seed, seat_bots

#: the 95% two-sided normal quantile
Z95 = 1.959964


class DealResult(msgspec.Struct, frozen=True):
    """One deal played twice: A's team total less B's with A in team 0, then with A in team 1, and
    their sum (the deal's difference); the two logs' game ids."""

    deal: int
    a_team0: int
    a_team1: int
    diff: int
    games: tuple[str, str]


class MatchResult(msgspec.Struct, frozen=True):
    """The exact `--json` shape of `buraco match`."""

    bots: tuple[str, str]
    variant: str
    players: int
    seed: int
    deals: list[DealResult]
    totals: tuple[int, int]  # each bot's team hand totals over every game
    mean_diff: float  # A's mean per-deal difference (positive: A played better)
    stderr: float | None  # of the mean; None under two deals
    ci95: tuple[float, float] | None
    out: str


def match_id(variant: str, players: int, seed: int, deal: int, swapped: bool) -> str:
    """Return the id (and log file stem) of one game of a match."""
    return f"match-{variant}-{players}p-s{seed}-{deal:05d}-{'ba' if swapped else 'ab'}"


_Job = tuple[str, str, int, int, tuple[str, str], int, dict[str, Any] | None]
_Played = tuple[DealResult, list[tuple[str, list[Event]]], tuple[int, int]]


def _play_deal(job: _Job) -> _Played:
    """Play deal `deal` twice (runs in a worker); return its result, its logs and the bots' totals."""
    out_dir, variant, players, seed, bots, deal, rules = job
    logs: list[tuple[str, list[Event]]] = []
    ids: list[str] = []
    diffs: list[int] = []
    totals = [0, 0]
    for swapped in (False, True):
        order = (bots[1], bots[0]) if swapped else bots
        names = seat_bots(order, players)
        gid = match_id(variant, players, seed, deal, swapped)
        events, state = run_game(variant, players, game_seed(seed, deal), table_bots(names), gid, target=0, overrides=rules)
        logs.append((str(Path(out_dir) / f"{gid}.jsonl"), events))
        ids.append(gid)
        team_total = [0, 0]
        for result in state.hand_results:
            for sheet in result:
                team_total[sheet.team] += sheet.total
        a_team = team_of(1) if swapped else team_of(0)
        totals[0] += team_total[a_team]
        totals[1] += team_total[1 - a_team]
        diffs.append(team_total[a_team] - team_total[1 - a_team])
    return DealResult(deal, diffs[0], diffs[1], diffs[0] + diffs[1], (ids[0], ids[1])), logs, (totals[0], totals[1])


def match(
    out_dir: str | Path,
    bots: Sequence[str],
    deals: int,
    seed: int = 0,
    variant: str = "stbl",
    players: int = 2,
    workers: int = 1,
    on_deal: Callable[[int, int], None] | None = None,
    rules: Mapping[str, Any] | None = None,
) -> MatchResult:
    """Play a duplicate match of `deals` deals between two bots and write every log into `out_dir`.

    `rules` changes parameters of the preset's rules (`--rules`; a tournament turn of
    `hands_per_game` makes each deal that many hands). Raises ValueError for bad bots, counts,
    variant or rules; a log already there with other bytes is
    never replaced (`log.LogExistsError`).
    """
    name = canonical_variant(variant)
    check_players(players)
    if len(bots) != 2:
        raise ValueError(f"a match is between two bots: give A,B (got {len(bots)})")
    if deals < 1:
        raise ValueError("a match needs at least one deal")
    pair = (bots[0].strip(), bots[1].strip())
    seat_bots(pair, players)  # names checked before anything is played
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    overrides = dict(rules) if rules else None
    if overrides:
        find_rules(name, **overrides)  # a bad parameter is named before anything is played
    jobs = [(str(out), name, players, seed, pair, d, overrides) for d in range(deals)]
    results: list[DealResult] = []
    totals = [0, 0]
    for result, logs, (a, b) in ordered_map(_play_deal, jobs, workers):
        write_logs(logs, exist_ok=True)
        results.append(result)
        totals[0] += a
        totals[1] += b
        if on_deal is not None:
            on_deal(len(results), deals)
    diffs = [r.diff for r in results]
    mean = sum(diffs) / len(diffs)
    stderr = None
    ci = None
    if len(diffs) > 1:
        var = sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)
        stderr = math.sqrt(var / len(diffs))
        ci = (round(mean - Z95 * stderr, 1), round(mean + Z95 * stderr, 1))
    return MatchResult(pair, name, players, seed, results, (totals[0], totals[1]), round(mean, 1),
                       None if stderr is None else round(stderr, 1), ci, str(out))


__all__ = ["Z95", "DealResult", "MatchResult", "match", "match_id"]
