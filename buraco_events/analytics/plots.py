"""Plots: the `stats` results drawn as a chart file (canasta rates, score distributions).

Its own module because it changes with the chart, not with the queries behind it; matplotlib is
imported only when a chart is drawn.
"""

from __future__ import annotations

import os
from pathlib import Path

from buraco_events.core.melds import CANASTA_KINDS
from buraco_events.views.text import visible

from .queries import Result


def chart_label(text: str) -> str:
    """Return a variant name as a chart label: control characters visible, `$` not mathtext."""
    return visible(text).replace("$", r"\$")


def plot_formats() -> list[str]:
    """Return the file extensions a chart can be written as (png, svg, pdf, ...), sorted."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    return sorted(FigureCanvasAgg.get_supported_filetypes())


def plot_stats(results: dict[str, Result], path: str | os.PathLike[str]) -> None:
    """Write a chart (its format from the file's extension, see `plot_formats`): canasta rates by
    kind per variant, and score distributions per variant."""
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5))
    rates = results["canasta_rates"].records()
    variants = sorted({r["variant"] for r in rates})
    labels = [chart_label(v) for v in variants]
    width = 0.8 / max(len(CANASTA_KINDS), 1)
    for k, kind in enumerate(CANASTA_KINDS):
        per = {r["variant"]: r["per_hand"] for r in rates if r["kind"] == kind}
        xs = [i + k * width for i in range(len(variants))]
        ax1.bar(xs, [per.get(v, 0.0) for v in variants], width, label=kind)
    ax1.set_xticks([i + 0.4 - width / 2 for i in range(len(variants))], labels, rotation=30)
    ax1.set_ylabel("canastas per hand")
    ax1.set_title("canasta rates by kind")
    ax1.legend()
    boxes = [
        {"label": f"{chart_label(r['variant'])}\n{r['measure'].replace('_total', '')}", "whislo": r["p10"],
         "q1": r["p25"], "med": r["p50"], "q3": r["p75"], "whishi": r["p90"], "fliers": []}
        for r in results["score_quantiles"].records()
    ]
    if boxes:
        ax2.bxp(boxes, showfliers=False)
        ax2.tick_params(axis="x", labelrotation=30)
    ax2.set_ylabel("points (whiskers p10-p90)")
    ax2.set_title("score distribution")
    fig.tight_layout()
    # the format named, not guessed: savefig would add its default extension to a bare name
    fig.savefig(path, dpi=100, format=Path(path).suffix.lstrip(".").lower())
    plt.close(fig)
