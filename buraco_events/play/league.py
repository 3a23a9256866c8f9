"""A league of bots (`buraco league`): every pair plays a duplicate match, and OpenSkill rates them.

Each pair of bots plays `play.match` on the same deals (the same seed), every deal twice with the
teams' seats swapped, its logs in a folder of its own (`pair-I-J`, I and J the bots' places in
the list, from 1). The ratings come from OpenSkill's Plackett-Luce model (the `openskill`
package): every deal of every pair is one game between the two bots, won by the one whose team
scored more over the deal's two games (a tie when even), taken deal by deal and, within a deal,
pair by pair in the list's order, so no pair's results all come first. A bot's rating is its
`mu` and uncertainty `sigma`; the table sorts by the conservative `ordinal` (mu - 3 sigma).
The same seed gives the same league for any number of workers.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from .match import MatchResult, match
from .sim import seat_bots


class Rating(msgspec.Struct, frozen=True):
    """One bot's rating: OpenSkill's mu and sigma, and the ordinal (mu - 3 sigma) it is ranked by."""

    bot: str
    mu: float
    sigma: float
    ordinal: float


class Pairing(msgspec.Struct, frozen=True):
    """One pair's match, from the first bot's side: the mean points a game it won by (a deal's two
    seatings averaged; negative: lost by), its standard error and 95% interval, the bots' totals,
    the logs' folder."""

    a: str
    b: str
    mean_diff: float
    stderr: float | None
    ci95: tuple[float, float] | None
    totals: tuple[int, int]
    wins: tuple[int, int, int]  # deals won by a, tied, won by b
    out: str


class LeagueResult(msgspec.Struct, frozen=True):
    """The exact `--json` shape of `buraco league`."""

    bots: list[str]
    variant: str
    players: int
    seed: int
    deals: int
    ratings: list[Rating]  # best first
    pairs: list[Pairing]
    out: str


def pair_folder(i: int, j: int) -> str:
    """Return the folder (under the league's) of the match between the i-th and j-th bots (0-based)."""
    return f"pair-{i + 1}-{j + 1}"


def league(
    out_dir: str | Path,
    bots: Sequence[str],
    deals: int,
    seed: int = 0,
    variant: str = "stbl",
    players: int = 2,
    workers: int = 1,
    on_game: Callable[[int, int], None] | None = None,
    rules: Mapping[str, Any] | None = None,
) -> LeagueResult:
    """Play every pair of `bots` a duplicate match of `deals` deals, write every log under
    `out_dir`, and rate the bots; `on_game(done, total)` hears of the games played, every pair's
    counted, from (0, total) before the first. Raises ValueError for fewer than two bots, a bot named twice or an
    unknown bot (before anything is played)."""
    from openskill.models import PlackettLuce

    names = [b.strip() for b in bots]
    if len(names) < 2:
        raise ValueError(f"a league needs at least two bots, got {len(names)}")
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"bot {twice!r} is named twice: each bot plays once")
    for name in names:
        seat_bots([name], players)  # an unknown bot is named before anything is played
    out = Path(out_dir)
    pairs = list(itertools.combinations(range(len(names)), 2))
    total = 2 * deals * len(pairs)
    done = 0
    results: dict[tuple[int, int], MatchResult] = {}
    for i, j in pairs:
        def step(k: int, _n: int, base: int = done) -> None:
            if on_game is not None:
                on_game(base + k, total)

        results[i, j] = match(out / pair_folder(i, j), [names[i], names[j]], deals, seed, variant, players,
                              workers, step, rules)
        done += 2 * deals
    model = PlackettLuce()
    ratings = [model.rating(name=n) for n in names]
    for d in range(deals):
        for i, j in pairs:
            diff = results[i, j].deals[d].diff
            ranks = [0.0, 0.0] if diff == 0 else [0.0, 1.0] if diff > 0 else [1.0, 0.0]
            [[ratings[i]], [ratings[j]]] = model.rate([[ratings[i]], [ratings[j]]], ranks=ranks)
    rated = [Rating(n, round(r.mu, 2), round(r.sigma, 2), round(r.ordinal(), 2))
             for n, r in zip(names, ratings, strict=True)]
    table = sorted(rated, key=lambda r: (-r.ordinal, names.index(r.bot)))
    pairings = []
    for (i, j), m in results.items():
        diffs = [d.diff for d in m.deals]
        wins = (sum(x > 0 for x in diffs), sum(x == 0 for x in diffs), sum(x < 0 for x in diffs))
        pairings.append(Pairing(names[i], names[j], m.mean_diff, m.stderr, m.ci95, m.totals, wins, m.out))
    first = next(iter(results.values()))
    return LeagueResult(names, first.variant, players, seed, deals, table, pairings, str(out))


def against(result: LeagueResult, bot: str, other: str) -> Pairing | None:
    """Return the pairing of `bot` against `other` seen from `bot`'s side (None if they did not meet)."""
    for p in result.pairs:
        if (p.a, p.b) == (bot, other):
            return p
        if (p.a, p.b) == (other, bot):
            ci = None if p.ci95 is None else (_neg(p.ci95[1]), _neg(p.ci95[0]))
            return Pairing(bot, other, _neg(p.mean_diff), p.stderr, ci, (p.totals[1], p.totals[0]),
                           (p.wins[2], p.wins[1], p.wins[0]), p.out)
    return None


def _neg(x: float) -> float:
    """Return -x, never -0.0."""
    return -x if x else 0.0


__all__ = ["LeagueResult", "Pairing", "Rating", "against", "league", "pair_folder"]
