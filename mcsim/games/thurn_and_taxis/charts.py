"""Thurn and Taxis's report figures (``mcsim report``; the game's ``CHARTS`` hook).

Each builder takes the report's context (``mcsim.report``: ``.games``, ``.summary``,
``.players``, ``.seat_label(k)``, ``.footer()``) and returns a ``mcsim.charts.Figure``; it
raises ``mcsim.charts.MissingData`` when the run lacks what it draws (the report lists the chart
as skipped with that reason).
"""

from __future__ import annotations

import math
import re

import numpy as np

from mcsim import charts as ch
from mcsim import stats


def officials(ctx) -> ch.Figure:
    off = ch.block(ctx, "officials")
    g = ctx.games
    names = [n for n in off if isinstance(off[n], dict)]
    ch.need(g, [f"used_{n}_{s}" for n in names for s in range(ctx.players)])
    fig, axes = ch.figure(11, 4.8, ncols=2)
    mi = [
        stats.mean_interval(  # a count of uses: its interval starts at 0
            np.concatenate([g[f"used_{n}_{s}"].to_numpy(np.float64) for s in range(ctx.players)]),
            (0, None),
        )
        for n in names
    ]
    m = [r["mean"] for r in mi]
    x = np.arange(len(names))
    axes[0].bar(
        x,
        m,
        yerr=ch.err(m, [r["low"] for r in mi], [r["high"] for r in mi]),
        capsize=5,
        color=[ch.COLORS[i % 10] for i in x],
        alpha=0.85,
    )
    axes[0].set_xticks(x, [n.replace("_", " ") for n in names], fontsize=8)
    axes[0].set_xlabel("official")
    axes[0].set_ylabel("uses per player and game (count)")
    axes[0].set_title("how often each official is used", fontsize=9)

    def lead(b):  # "3-4" -> 3, "20+" -> 20
        m = re.match(r"\d+", str(b))
        return int(m.group(0)) if m else 0

    all_labs = sorted({b for n in names for b in (off[n].get("win_rate_by_uses") or {})}, key=lead)
    pos = {b: j for j, b in enumerate(all_labs)}
    for i, n in enumerate(names):
        bins = off[n].get("win_rate_by_uses") or {}
        labs = sorted(bins, key=lead)
        if not labs:
            continue
        e = [ch.pct(bins[b]["win_rate"]["estimate"]) for b in labs]
        lo = [ch.pct(bins[b]["win_rate"]["low"]) for b in labs]
        hi = [ch.pct(bins[b]["win_rate"]["high"]) for b in labs]
        xs = np.array([pos[b] for b in labs]) + (i - (len(names) - 1) / 2) * 0.12
        axes[1].errorbar(
            xs,
            e,
            yerr=ch.err(e, lo, hi),
            fmt="o-",
            color=ch.COLORS[i % 10],
            capsize=3,
            label=n.replace("_", " "),
            markersize=4,
        )
    if all_labs:
        axes[1].set_xticks(np.arange(len(all_labs)), all_labs, fontsize=8)
        axes[1].legend(fontsize=7)
    axes[1].axhline(100.0 / ctx.players, color="gray", linestyle="--", linewidth=1)
    axes[1].set_xlabel("uses of the official in the game (count bin; per official)")
    axes[1].set_ylabel("win rate of those players (%)")
    axes[1].set_title("win rate by uses (Wilson 95%)", fontsize=9)
    return ch.done(
        fig,
        ctx,
        "",
        "Thurn and Taxis: officials, observational (who took it, not what it is worth)",
        "Left: mean uses per player and game (Student-t 95% intervals). Right: win rate "
        "of the players by how often they used each official (bins differ by "
        "official; dashed line: equal share). An association, not a causal value.",
    )


def route_lengths(ctx) -> ch.Figure:
    share = ch.block(ctx, "closed_routes", "share_by_length")
    g = ctx.games
    labs = list(share)
    vals = [ch.pct(share[k]) if share[k] is not None else math.nan for k in labs]
    fig, (ax,) = ch.figure()
    x = np.arange(len(labs))
    ax.bar(x, vals, color=ch.COLORS[2], alpha=0.85)
    for xi, v in zip(x, vals):
        if not math.isnan(v):
            ax.annotate(
                f"{v:.1f}%",
                (xi, v),
                textcoords="offset points",
                xytext=(0, 3),
                ha="center",
                fontsize=8,
            )
    ax.set_xticks(x, labs)
    ax.set_xlabel("length of the closed route (cards)")
    ax.set_ylabel("share of closed routes (%)")
    cr = ch.block(ctx, "closed_routes")
    per_game = cr.get("per_game")
    mean_len = cr.get("mean_length")
    cap = "Share of all closed routes by their length"
    if per_game is not None and mean_len is not None and mean_len == mean_len:  # NaN: none
        cap += f"; {per_game:.2f} routes closed per game, mean length {mean_len:.2f} cards"
    _ = g
    return ch.done(fig, ctx, "", "Thurn and Taxis: closed route lengths", cap + ".")


#: the game's report figures: ``[(slug, builder)]`` in report order
CHARTS = [
    ("thurn_and_taxis_officials", officials),
    ("thurn_and_taxis_route_lengths", route_lengths),
]
