"""El Grande's report figures (``mcsim report``; the game's ``CHARTS`` hook).

Each builder takes the report's context (``mcsim.report``: ``.games``, ``.summary``,
``.players``, ``.seat_label(k)``, ``.footer()``) and returns a ``mcsim.charts.Figure``; it
raises ``mcsim.charts.MissingData`` when the run lacks what it draws (the report lists the chart
as skipped with that reason).
"""

from __future__ import annotations

import numpy as np

from mcsim import charts as ch


def action_cards(ctx) -> ch.Figure:
    cards = ch.block(ctx, "action_cards")
    items = [(cid, c) for cid, c in cards.items() if isinstance(c, dict) and "score_diff" in c]
    if not items:
        raise ch.MissingData("no action card was taken")
    items.sort(key=lambda t: t[1]["score_diff"]["mean"])
    fig, (ax,) = ch.figure(9, 1.8 + 0.3 * len(items))
    y = np.arange(len(items))
    m = np.array([c["score_diff"]["mean"] for _, c in items])
    lo = np.array([c["score_diff"]["low"] for _, c in items])
    hi = np.array([c["score_diff"]["high"] for _, c in items])
    ax.errorbar(m, y, xerr=ch.err(m, lo, hi), fmt="o", color=ch.COLORS[0], capsize=3)
    ax.axvline(0, color="gray", linewidth=1)

    def name(cid, c):
        t = str(c.get("text", ""))
        t = t if len(t) <= 38 else t[:36] + "..."
        return f"{cid}: {t}" if t else str(cid)

    ax.set_yticks(y, [name(cid, c) for cid, c in items], fontsize=7)
    ax.set_xlabel("taker's final score minus the mean of the other seats (points)")
    ax.set_ylabel("action card")
    ax.grid(True, axis="x", alpha=0.3)
    return ch.done(
        fig,
        ctx,
        "",
        "El Grande: action-card values, observational (who took it, not what it is worth)",
        "For each action card, the final score of the player who took it minus the "
        "mean of the other players, over every time it was taken (mean with Student-t "
        "95% interval). An association, not a causal value: strong players take "
        "strong cards.",
    )


def sources(ctx) -> ch.Figure:
    src = ch.block(ctx, "points_by_source")
    names = [k for k, v in src.items() if isinstance(v, dict) and "mean" in v]
    if not names:
        raise ch.MissingData("no points by source")
    m = [src[k]["mean"] for k in names]
    fig, (ax,) = ch.figure()
    x = np.arange(len(names))
    ax.bar(
        x,
        m,
        yerr=ch.err(m, [src[k]["low"] for k in names], [src[k]["high"] for k in names]),
        capsize=5,
        color=[ch.COLORS[i % 10] for i in x],
        alpha=0.85,
    )
    ax.set_xticks(x, names)
    ax.set_xlabel("source of points")
    ax.set_ylabel("mean points per player and game")
    return ch.done(
        fig,
        ctx,
        "",
        "El Grande: points by source",
        "Mean points per player and game from each source; error bars: Student-t 95% intervals.",
    )


#: the game's report figures: ``[(slug, builder)]`` in report order
CHARTS = [
    ("el_grande_action_cards", action_cards),
    ("el_grande_points_by_source", sources),
]
