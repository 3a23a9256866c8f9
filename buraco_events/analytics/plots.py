"""Plots: the `stats` results drawn as a chart file (canasta rates, score distributions).

Its own module because it changes with the chart, not with the queries behind it. matplotlib is
the `plot` extra (`pip install 'buraco-events[plot]'`), imported only when a chart is drawn: the
rest of the package never needs it, and a fresh install is quicker without it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from buraco_events.core.melds import CANASTA_KINDS
from buraco_events.util.text import visible

from .queries import Result


def chart_label(text: str) -> str:
    """Return a variant name as a chart label: control characters visible, `$` not mathtext."""
    return visible(text).replace("$", r"\$")


#: what a user runs to draw charts
PLOT_EXTRA = "pip install 'buraco-events[plot]'"


class ChartsUnavailable(RuntimeError):
    """matplotlib, which draws the charts, is not installed."""


def plot_formats() -> list[str]:
    """Return the file extensions a chart can be written as (png, svg, pdf, ...), sorted.

    Raises `ChartsUnavailable` (saying what to install) where matplotlib is not installed, so that
    a command asked for a chart says so before it does any work.
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
    except ImportError as exc:
        raise ChartsUnavailable(f"charts need matplotlib, which is not installed: {PLOT_EXTRA}") from exc

    return sorted(FigureCanvasAgg.get_supported_filetypes())


#: the players the standings panel shows at the most (those with the most games)
PLAYERS_SHOWN = 15


def plot_stats(results: dict[str, Result], path: str | os.PathLike[str]) -> None:
    """Write a chart (its format from the file's extension, see `plot_formats`): canasta rates by
    kind per variant, score distributions per variant, and (over every variant) the players'
    win rates, so that bots or people are compared."""
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    standings = results["player_standings"].records() if "player_standings" in results else []
    panels = 3 if standings else 2
    fig, axes = plt.subplots(1, panels, figsize=(6.5 * panels, 5.5))
    ax1, ax2 = axes[0], axes[1]
    rates = results["canasta_rates"].records()
    variants = sorted({r["variant"] for r in rates})
    labels = [chart_label(v) for v in variants]
    width = 0.8 / max(len(CANASTA_KINDS), 1)
    for k, kind in enumerate(CANASTA_KINDS):
        per = {r["variant"]: r["per_hand"] for r in rates if r["kind"] == kind}
        xs = [i + k * width for i in range(len(variants))]
        ax1.bar(xs, [per.get(v, 0.0) for v in variants], width, label=kind)
    ax1.set_xticks([i + 0.4 - width / 2 for i in range(len(variants))], labels, rotation=30, ha="right")
    ax1.set_ylabel("canastas per hand")
    ax1.set_title("canasta rates by kind")
    ax1.legend()
    _score_boxes(ax2, results["score_quantiles"].records())
    if standings:
        _standings(axes[2], standings)
    fig.tight_layout()
    # the format named, not guessed: savefig would add its default extension to a bare name
    fig.savefig(path, dpi=100, format=Path(path).suffix.lstrip(".").lower())
    plt.close(fig)


_QUANTILES = ("p10", "p25", "p50", "p75", "p90")


def score_boxes(quantiles: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return the boxes of each variant's score distributions (`score_quantiles` rows): a game's
    team totals and a hand's team totals, the game's left out where it is the hand's (one-hand
    games: the same numbers twice)."""
    hands = {r["variant"]: [r[q] for q in _QUANTILES] for r in quantiles if r["measure"] == "team_hand_total"}
    boxes = []
    for r in quantiles:
        measure = r["measure"].removesuffix("_total")
        if measure == "game" and hands.get(r["variant"]) == [r[q] for q in _QUANTILES]:
            continue
        boxes.append({"label": f"{chart_label(r['variant'])}\n{measure.replace('_', ' ')}", "whislo": r["p10"],
                      "q1": r["p25"], "med": r["p50"], "q3": r["p75"], "whishi": r["p90"], "fliers": []})
    return boxes


def _score_boxes(ax: Any, quantiles: list[dict[str, Any]]) -> None:
    """Draw `score_boxes`."""
    boxes = score_boxes(quantiles)
    if boxes:
        ax.bxp(boxes, showfliers=False)
        ax.tick_params(axis="x", labelrotation=30, labelsize=8)
        for label in ax.get_xticklabels():
            label.set_horizontalalignment("right")
    ax.set_ylabel("team points (whiskers p10-p90)")
    ax.set_title("score distribution")


def _standings(ax: Any, standings: list[dict[str, Any]]) -> None:
    """Draw the players' win rates (the most-played first), each bar saying wins/games and the
    average team total."""
    shown = sorted(standings, key=lambda r: (-r["games"], r["player"]))[:PLAYERS_SHOWN]
    shown.sort(key=lambda r: (r["win_rate"], r["player"]))
    ys = range(len(shown))
    ax.barh(ys, [r["win_rate"] for r in shown], color="tab:blue")
    ax.set_yticks(ys, [chart_label(str(r["player"])) for r in shown], fontsize=8)
    for y, r in zip(ys, shown, strict=True):
        ax.text(min(r["win_rate"], 1.0) + 0.01, y, f"{r['wins']}/{r['games']}, avg {r['avg_team_total']:.0f}",
                va="center", fontsize=7)
    ax.set_xlim(0, 1.35)
    ax.set_xlabel("win rate (wins/games, average team total)")
    title = "players" if len(standings) <= PLAYERS_SHOWN else f"players (the {PLAYERS_SHOWN} with the most games)"
    ax.set_title(title)
