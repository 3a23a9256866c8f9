"""`buraco league --bots A,B,C... --deals N`: every pair of bots plays a duplicate match, and the
bots are rated (`play.league`, OpenSkill).

Exit codes: 0 played, 1 a bot that fails or a game that does not end, 2 a bad option or an output
folder that cannot be written.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import msgspec
import typer
from rich.table import Table
from rich.text import Text

from buraco_events.play.league import LeagueResult, against, league
from buraco_events.util.text import plural, visible
from buraco_events.views.fit import print_fitted

from .bouts import Deals, Json, Players, Seed, Variant, Workers, play_deals
from .common import BOT_NAMES_WORDS, RulesOption, fail, out, rule_overrides


def league_cmd(
    bots: Annotated[str, typer.Option(
        "--bots", metavar="A,B,C...",
        help=f"the bots rated, comma-separated, each playing every other; a bot is {BOT_NAMES_WORDS}")],
    deals: Deals = 20,
    seed: Seed = 0,
    variant: Variant = "stbl",
    players: Players = 2,
    out_dir: Annotated[Path, typer.Option("--out", help="folder for every game's log, a folder per pair (created)")]
    = Path("league"),
    workers: Workers = None,
    plot: Annotated[Path | None, typer.Option(
        "--plot", metavar="FILE", help="also draw the ratings and the points a game between the bots (png, svg, pdf)")]
    = None,
    as_json: Json = False,
    rules: RulesOption = None,
) -> None:
    """Rate bots fairly: every pair plays a duplicate match (the same deals, every deal twice with the
    teams' seats swapped), and OpenSkill rates the results; print the ratings and each pair's points
    a deal with a 95% confidence interval."""
    names = [n.strip() for n in bots.split(",")]
    if plot is not None:
        from buraco_events.analytics.plots import ChartsUnavailable, plot_formats

        try:
            formats = plot_formats()
        except ChartsUnavailable as exc:
            fail(f"--plot: {exc}")
        if plot.suffix.lstrip(".").lower() not in formats:
            fail(f"--plot: {plot.name}: the file's extension names no chart format ({', '.join(formats)})")
    overrides = rule_overrides(rules, variant)
    result = play_deals("league", names, players, out_dir, workers, lambda n, on_game: league(
        out_dir, names, deals, seed, variant, players, n, on_game, overrides))
    if plot is not None:
        try:
            plot_league(result, plot)
        except OSError as exc:
            fail(f"--plot: {exc}")
    if as_json:
        sys.stdout.write(msgspec.json.encode(result).decode() + "\n")
        return
    _print(result)
    if plot is not None:
        out().print(f"plot: {visible(str(plot))}")


def _print(r: LeagueResult) -> None:
    console = out()
    console.print(Text(f"league of {len(r.bots)} bots, {plural(r.deals, 'deal')} of {r.variant} a pair (each twice), "
                       f"{r.players} players, seed {r.seed}", style="bold"), soft_wrap=True)
    table = Table(show_edge=False)
    table.add_column("#", justify="right")
    table.add_column("bot")
    table.add_column("rating", justify="right")
    table.add_column("±", justify="right")
    for other in r.bots:
        table.add_column(f"vs {visible(other)}", justify="right")
    for place, rating in enumerate(r.ratings, 1):
        cells = []
        for other in r.bots:
            p = against(r, rating.bot, other)
            if p is None:
                cells.append("")
            elif p.ci95 is None:
                cells.append(f"{p.mean_diff:+.0f}")
            else:
                cells.append(f"{p.mean_diff:+.0f} ±{(p.ci95[1] - p.ci95[0]) / 2:.0f}")
        table.add_row(str(place), visible(rating.bot), f"{rating.ordinal:.1f}", f"{rating.sigma:.1f}", *cells)
    print_fitted(console, table)
    console.print("rating: OpenSkill's mu - 3 sigma (± is sigma); vs: the points a game it wins by against "
                  "that bot, ± the half-width of the 95% interval (--json has the intervals)", soft_wrap=True)
    console.print(f"logs: {visible(r.out)} (a folder per pair)")


def plot_league(r: LeagueResult, path: Path) -> None:
    """Draw the ratings (mu with ±3 sigma) and the points a game between each pair."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from buraco_events.analytics.plots import chart_label

    names = [x.bot for x in r.ratings]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, max(3.5, 0.6 * len(names) + 2)))
    ys = list(range(len(names)))[::-1]
    ax1.errorbar([x.mu for x in r.ratings], ys, xerr=[3 * x.sigma for x in r.ratings], fmt="o", capsize=4)
    ax1.set_yticks(ys, [chart_label(n) for n in names])
    ax1.set_xlabel("OpenSkill mu (bars: ±3 sigma)")
    ax1.set_title("ratings")
    grid = [[(p.mean_diff if (p := against(r, a, b)) is not None else 0.0) for b in names] for a in names]
    bound = max(1.0, *(abs(v) for row in grid for v in row))
    image = ax2.imshow(grid, cmap="RdBu", vmin=-bound, vmax=bound)
    ax2.set_xticks(range(len(names)), [chart_label(n) for n in names], rotation=30, ha="right")
    ax2.set_yticks(range(len(names)), [chart_label(n) for n in names])
    for a in range(len(names)):
        for b in range(len(names)):
            if a != b:
                dark = abs(grid[a][b]) > bound / 2
                ax2.text(b, a, f"{grid[a][b]:+.0f}", ha="center", va="center", fontsize=8,
                         color="white" if dark else "black")
    ax2.set_title("points a game, row against column")
    fig.colorbar(image, ax=ax2)
    fig.suptitle(f"league: {r.deals} deals of {chart_label(r.variant)} a pair, {r.players} players, seed {r.seed}")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


__all__ = ["league_cmd", "plot_league"]
