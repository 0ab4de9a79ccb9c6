"""Sacred Hill's report figures (``mcsim report``; the game's ``CHARTS`` hook).

Each builder takes the report's context (``mcsim.report``: ``.games``, ``.summary``,
``.players``, ``.seat_label(k)``, ``.footer()``) and returns a ``mcsim.charts.Figure``; it
raises ``mcsim.charts.MissingData`` when the run lacks what it draws (the report lists the chart
as skipped with that reason).
"""

from __future__ import annotations

import numpy as np

from mcsim import charts as ch
from mcsim import stats


def decided_by(ctx) -> ch.Figure:
    g = ctx.games
    ch.need(g, ["decided_by_kingdoms", "winner"])
    n = len(g)
    kind = g["decided_by_kingdoms"].to_numpy().astype(bool)
    winner = g["winner"].to_numpy()
    fig, (ax,) = ch.figure(7.5, 4.6)
    names = ["kingdoms", "territory\n(equal kingdoms)"]
    bottoms = np.zeros(2)
    for s in range(ctx.players):
        h = np.array(
            [ch.pct(((winner == s) & kind).sum() / n), ch.pct(((winner == s) & ~kind).sum() / n)]
        )
        ax.bar(
            [0, 1],
            h,
            bottom=bottoms,
            color=ch.COLORS[s],
            alpha=0.8,
            label=f"won by {ctx.seat_label(s)}",
        )
        bottoms += h
    tot = [stats.proportion(float(kind.sum()), n), stats.proportion(float((~kind).sum()), n)]
    est = [ch.pct(t["estimate"]) for t in tot]
    ax.errorbar(
        [0, 1],
        est,
        yerr=ch.err(est, [ch.pct(t["low"]) for t in tot], [ch.pct(t["high"]) for t in tot]),
        fmt="none",
        ecolor="black",
        capsize=6,
    )
    for xi, e in zip([0, 1], est):
        ax.annotate(f"{e:.1f}%", (xi, e), textcoords="offset points", xytext=(14, 2), fontsize=9)
    ax.set_xticks([0, 1], names)
    ax.set_xlabel("what decided the game (§3.5)")
    ax.set_ylabel("share of games (%)")
    ax.set_ylim(0, 105)
    ax.legend(fontsize=8)
    return ch.done(
        fig,
        ctx,
        "",
        "Sacred Hill: decided by kingdoms or territory",
        "Share of games decided by fewer kingdoms, or by more territory when the "
        "kingdom counts are equal, split by the winning seat; error bars: Wilson 95% "
        "intervals of the total.",
    )


def kingdoms(ctx) -> ch.Figure:
    g = ctx.games
    ch.need(g, [f"kingdoms_{s}" for s in range(ctx.players)])
    vals = [g[f"kingdoms_{s}"].to_numpy() for s in range(ctx.players)]
    lo, hi = int(min(v.min() for v in vals)), int(max(v.max() for v in vals))
    x = np.arange(lo, hi + 1)
    w = 0.8 / ctx.players
    fig, (ax,) = ch.figure()
    for s, v in enumerate(vals):
        share = np.array([ch.pct((v == c).mean()) for c in x])
        ax.bar(
            x + (s - (ctx.players - 1) / 2) * w,
            share,
            width=w,
            color=ch.COLORS[s],
            alpha=0.85,
            label=f"{ctx.seat_label(s)}: mean {v.mean():.2f}",
        )
    ax.set_xticks(x)
    ax.set_xlabel("kingdoms at the end (count; fewer is better, §3.5)")
    ax.set_ylabel("share of games (%)")
    ax.legend(fontsize=8)
    return ch.done(
        fig,
        ctx,
        "",
        "Sacred Hill: kingdom counts per seat",
        "Distribution of each seat's final number of kingdoms.",
    )


#: the game's report figures: ``[(slug, builder)]`` in report order
CHARTS = [
    ("sacred_hill_decided_by", decided_by),
    ("sacred_hill_kingdoms", kingdoms),
]
