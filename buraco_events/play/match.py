"""A duplicate match between two bots (`buraco match`): the luck of the deal cancels.

Every deal is one hand, played twice from the same cards: first with bot A in the even seats
(team 0) and bot B in the odd ones, then with the teams' seats swapped. A deal's *difference* is
the mean of A's margins (A's team hand total less B's) in its two games: a deal that favours one
side by L points adds L to A's margin in one game and takes it away in the other, so what is left
is what A's play is worth in one game of the deal. The match reports each bot's total over every
game, the per-deal differences, their mean and a 95% confidence interval of the mean (normal
approximation: mean ± 1.96 standard errors, fair from a few dozen deals), and writes every
game's log.

A game's id names the pair, the deal and the seating (`match_id`), so the games of any matches and
leagues index side by side; the same pair on the same seed plays the same games under the same ids.

Deal i's cards come from its own seed (`sim.game_seed(seed, i)`, the deal stream of
`seeds.SeedStreams`, which no bot draws from), so both of its games get the same hand, stock and
deads, and the match is the same for any number of workers.
"""

from __future__ import annotations

import math
import re
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
    """One deal played twice: A's margin (A's team total less B's) with A in team 0, then with A in
    team 1, and their mean (the deal's difference); the two logs' game ids."""

    deal: int
    a_team0: int
    a_team1: int
    diff: float
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


def _id_part(bot: str) -> str:
    """Return a bot's name as a part of a game id and file stem: letters, digits, `.` and `=` kept,
    every other run of characters one `_` (`expert:samples=8` is `expert_samples=8`)."""
    return re.sub(r"[^A-Za-z0-9.=]+", "_", bot).strip("_") or "_"


def match_id(variant: str, players: int, seed: int, bots: Sequence[str], deal: int, swapped: bool) -> str:
    """Return the id (and log file stem) of one game of a match: the pair (A and B), the deal, and
    the seating (`ab`: A in team 0, `ba`: the teams' seats swapped)."""
    a, b = (_id_part(x) for x in bots)
    return f"match-{variant}-{players}p-s{seed}-{a}-v-{b}-{deal:05d}-{'ba' if swapped else 'ab'}"


_Job = tuple[str, str, int, int, tuple[str, str], int, bool, dict[str, Any] | None]
_Played = tuple[int, tuple[str, list[Event]], tuple[int, int]]


def _play_game(job: _Job) -> _Played:
    """Play one game of deal `deal` (runs in a worker); return A's margin, its log and the bots'
    team totals (A's, B's)."""
    out_dir, variant, players, seed, bots, deal, swapped, rules = job
    order = (bots[1], bots[0]) if swapped else bots
    gid = match_id(variant, players, seed, bots, deal, swapped)
    events, state = run_game(variant, players, game_seed(seed, deal), table_bots(seat_bots(order, players)), gid,
                             target=0, overrides=rules)
    team_total = [0, 0]
    for result in state.hand_results:
        for sheet in result:
            team_total[sheet.team] += sheet.total
    a_team = team_of(1) if swapped else team_of(0)
    a, b = team_total[a_team], team_total[1 - a_team]
    return a - b, (str(Path(out_dir) / f"{gid}.jsonl"), events), (a, b)


def match(
    out_dir: str | Path,
    bots: Sequence[str],
    deals: int,
    seed: int = 0,
    variant: str = "stbl",
    players: int = 2,
    workers: int = 1,
    on_game: Callable[[int, int], None] | None = None,
    rules: Mapping[str, Any] | None = None,
) -> MatchResult:
    """Play a duplicate match of `deals` deals between two bots and write every log into `out_dir`;
    `on_game(done, total)` hears of the games played, from (0, 2 * deals) before the first.

    `rules` changes parameters of the preset's rules (`--rules`; a tournament turn of
    `hands_per_game` makes each game that many hands). Raises ValueError for bad bots, counts,
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
    jobs = [(str(out), name, players, seed, pair, d, swapped, overrides) for d in range(deals) for swapped in (False, True)]
    results: list[DealResult] = []
    totals = [0, 0]
    if on_game is not None:
        on_game(0, len(jobs))
    first: _Played | None = None
    for done, played in enumerate(ordered_map(_play_game, jobs, workers), 1):
        margin, log, (a, b) = played
        write_logs([log], exist_ok=True)
        totals[0] += a
        totals[1] += b
        if first is None:
            first = played
        else:
            ids = (Path(first[1][0]).stem, Path(log[0]).stem)
            results.append(DealResult(len(results), first[0], margin, (first[0] + margin) / 2, ids))
            first = None
        if on_game is not None:
            on_game(done, len(jobs))
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
