"""Carcassonne's report figures (``mcsim report``; the game's ``CHARTS`` hook).

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


def features(ctx) -> ch.Figure:
    g = ctx.games
    feats = sorted(
        {m.group(1) for c in g.columns if (m := re.match(r"points_([a-z_]+)_(\d+)$", c))},
        key=lambda f: (
            ["road", "city", "monastery", "farm", "gift"].index(f)
            if f in ("road", "city", "monastery", "farm", "gift")
            else 99
        ),
    )
    from mcsim.games.carcassonne import CATEGORIES, point_categories

    shown = point_categories(ctx.summary.get("variant") or {})  # no "gift" without The Gifts
    feats = [f for f in feats if f in shown or f not in CATEGORIES]
    if not feats:
        raise ch.MissingData("the game has no points_<feature>_<seat> columns yet")
    k = ctx.players
    w = 0.8 / k
    x = np.arange(len(feats))
    fig, (ax,) = ch.figure()
    for s in range(k):
        # points are never negative: the intervals start at 0 (docs/outputs.md, "Intervals")
        mi = [
            stats.mean_interval(g[f"points_{f}_{s}"].to_numpy(np.float64), (0, None)) for f in feats
        ]
        m = [r["mean"] for r in mi]
        ax.bar(
            x + (s - (k - 1) / 2) * w,
            m,
            width=w,
            color=ch.COLORS[s % 10],
            alpha=0.85,
            yerr=ch.err(m, [r["low"] for r in mi], [r["high"] for r in mi]),
            capsize=3,
            label=ctx.seat_label(s),
        )
    ax.set_xticks(x, feats)
    ax.set_xlabel("feature")
    ax.set_ylabel("mean points per game")
    ax.legend(fontsize=8)
    return ch.done(
        fig,
        ctx,
        "",
        "Carcassonne: points by feature",
        "Mean points per game each seat scored from each feature; error bars: "
        "Student-t 95% intervals.",
    )


def gift_cards(ctx) -> ch.Figure:
    if ctx.summary.get("variant", {}).get("gifts") != "true":
        raise ch.MissingData("gifts=false: no gift cards in play (use --variant gifts=true)")
    gifts = ch.block(ctx, "gifts")
    names = list(gifts)
    fig, axes = ch.figure(11, 4.6, ncols=2)
    x = np.arange(len(names))
    w = 0.27
    for i, (key, lab) in enumerate(
        (
            ("received_per_game", "received"),
            ("opened_per_game", "opened"),
            ("held_per_game", "held at the end"),
        )
    ):
        m = [gifts[n][key]["mean"] for n in names]
        axes[0].bar(
            x + (i - 1) * w,
            m,
            width=w,
            color=ch.COLORS[i],
            alpha=0.85,
            label=lab,
            yerr=ch.err(
                m, [gifts[n][key]["low"] for n in names], [gifts[n][key]["high"] for n in names]
            ),
            capsize=3,
        )
    axes[0].set_xticks(x, [n.replace("_", " ") for n in names], fontsize=8)
    axes[0].set_xlabel("gift card")
    axes[0].set_ylabel("cards per game (all players)")
    axes[0].legend(fontsize=8)
    axes[0].set_title("cards received, opened, held", fontsize=9)
    key = "points_per_game"
    have = [n for n in names if isinstance(gifts[n].get(key), dict)]
    if have:
        m = [gifts[n][key]["mean"] for n in have]
        xs = np.array([names.index(n) for n in have])
        axes[1].bar(
            xs,
            m,
            color=ch.COLORS[3],
            alpha=0.85,
            capsize=4,
            yerr=ch.err(
                m, [gifts[n][key]["low"] for n in have], [gifts[n][key]["high"] for n in have]
            ),
        )
        tops = [gifts[n][key]["high"] for n in have]
        for xi, n, v in zip(xs, have, [t if t == t else 0.0 for t in tops]):
            ppo = gifts[n].get("points_per_opened")
            txt = (
                "n/a"
                if ppo is None or (isinstance(ppo, float) and math.isnan(ppo))
                else f"{ppo:.2f}"
            )
            axes[1].annotate(
                f"{txt} per\nopened card",
                (xi, max(v, 0)),
                textcoords="offset points",
                xytext=(0, 10),
                ha="center",
                fontsize=7,
            )
    axes[1].set_xticks(x, [n.replace("_", " ") for n in names], fontsize=8)
    axes[1].set_xlabel("gift card")
    axes[1].set_ylabel("points per game from the card (all players)")
    axes[1].set_title("points from each card type", fontsize=9)
    return ch.done(
        fig,
        ctx,
        "",
        "Carcassonne: The Gifts, observational (who took it, not what it is worth)",
        "Left: gift cards per game by type; right: points per game credited to each "
        "card type (as the game counts them, cards held at the end included), "
        "labelled with the points per opened card (n/a: never opened). Means with "
        "Student-t 95% intervals.",
    )


#: the game's report figures: ``[(slug, builder)]`` in report order
CHARTS = [
    ("carcassonne_points_by_feature", features),
    ("carcassonne_gifts", gift_cards),
]
