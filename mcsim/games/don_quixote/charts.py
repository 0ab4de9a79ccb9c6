"""Don Quixote's report figures (``mcsim report``; the game's ``CHARTS`` hook).

Each builder takes the report's context (``mcsim.report``: ``.games``, ``.summary``,
``.players``, ``.seat_label(k)``, ``.footer()``) and returns a ``mcsim.charts.Figure``; it
raises ``mcsim.charts.MissingData`` when the run lacks what it draws (the report lists the chart
as skipped with that reason).
"""

from __future__ import annotations

import re

import numpy as np

from mcsim import charts as ch
from mcsim import stats


def categories(ctx) -> ch.Figure:
    block = ch.block(ctx, "mean_per_category")
    g = ctx.games
    cats = list(block)
    ch.need(g, [f"{c}_{s}" for c in cats for s in range(ctx.players)])
    mi = [
        stats.mean_interval(
            np.concatenate([g[f"{c}_{s}"].to_numpy(np.float64) for s in range(ctx.players)])
        )
        for c in cats
    ]
    m = [r["mean"] for r in mi]
    fig, (ax,) = ch.figure()
    x = np.arange(len(cats))
    ax.bar(
        x,
        m,
        yerr=ch.err(m, [r["low"] for r in mi], [r["high"] for r in mi]),
        capsize=5,
        color=[ch.COLORS[i % 10] for i in x],
        alpha=0.85,
    )
    for xi, v, h in zip(x, m, [r["high"] for r in mi]):
        ax.annotate(
            f"{v:.2f}",
            (xi, h if h == h else v),
            textcoords="offset points",
            xytext=(0, 3),
            ha="center",
            fontsize=8,
        )
    ax.set_xticks(x, [c.replace("_", " ") for c in cats])
    ax.set_xlabel("scoring category")
    ax.set_ylabel("mean points per estate (all scorings)")
    return ch.done(
        fig,
        ctx,
        "",
        "Don Quixote: points by category",
        "Mean points per estate (seats pooled) by category over the three scorings; "
        "error bars: Student-t 95% intervals.",
    )


def scoring_rounds(ctx) -> ch.Figure:
    block = ch.block(ctx, "mean_per_scoring_category")
    cats = list(ch.block(ctx, "mean_per_category"))
    rounds = sorted({int(m.group(1)) for k in block if (m := re.match(r"s(\d+)_", k))})
    if not rounds:
        raise ch.MissingData("no per-scoring categories in the summary block")
    fig, (ax,) = ch.figure()
    bottoms = np.zeros(len(rounds))
    for i, c in enumerate(cats):
        h = np.array([block.get(f"s{r}_{c}") or 0.0 for r in rounds], dtype=np.float64)
        ax.bar(
            np.arange(len(rounds)),
            h,
            bottom=bottoms,
            color=ch.COLORS[i % 10],
            alpha=0.85,
            label=c.replace("_", " "),
        )
        bottoms += h
    for xi, t in enumerate(bottoms):
        ax.annotate(
            f"{t:.2f}", (xi, t), textcoords="offset points", xytext=(0, 4), ha="center", fontsize=9
        )
    ax.set_xticks(np.arange(len(rounds)), [f"scoring {r}" for r in rounds])
    ax.set_xlabel("scoring round")
    ax.set_ylabel("mean points per estate")
    ax.legend(fontsize=8, ncols=2)
    return ch.done(
        fig,
        ctx,
        "",
        "Don Quixote: points by scoring round and category",
        "Mean points per estate (seats pooled) scored in each scoring round, stacked by category.",
    )


#: the game's report figures: ``[(slug, builder)]`` in report order
CHARTS = [
    ("don_quixote_categories", categories),
    ("don_quixote_scoring_rounds", scoring_rounds),
]
