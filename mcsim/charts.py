"""The figure toolkit of ``mcsim report`` and of each game's ``charts`` module.

``figure()`` makes a matplotlib figure (Agg, constrained layout), ``done()`` titles it with the
run's footer and renders it to a PNG ``Figure``; ``need()`` and ``block()`` raise
``MissingData`` when a run lacks a chart's columns or summary keys; ``pct()`` and ``err()``
convert shares and intervals for plotting.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
import pandas as pd

DPI = 110
#: seat colours (matplotlib tab10)
COLORS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)


class MissingData(Exception):
    """A per-game chart's columns or summary keys are absent (the chart is skipped)."""


@dataclass
class Figure:
    """One written figure."""

    slug: str
    title: str
    caption: str
    png: bytes

    @property
    def file(self) -> str:
        return f"{self.slug}.png"


def figure(w: float = 8.0, h: float = 4.6, ncols: int = 1):
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(w, h), dpi=DPI, layout="constrained")
    axes = fig.subplots(1, ncols, squeeze=False)[0]
    return fig, axes


def done(fig, ctx, slug: str, title: str, caption: str, games_note: str | None = None) -> Figure:
    fig.suptitle(f"{title}\n{ctx.footer(games_note)}", fontsize=11)
    for ax in fig.axes:
        ax.grid(True, axis="y", alpha=0.3)
        ax.set_axisbelow(True)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return Figure(slug, title, caption, buf.getvalue())


def need(games: pd.DataFrame, cols) -> None:
    missing = [c for c in cols if c not in games.columns]
    if missing:
        raise MissingData(f"the game has no column {missing[0]!r} yet")


def block(ctx, *keys):
    b = ctx.summary.get(ctx.spec.summary_key)
    if not isinstance(b, dict):
        raise MissingData(f"no {ctx.spec.summary_key!r} summary block")
    for k in keys:
        if not isinstance(b, dict) or k not in b:
            raise MissingData(f"the summary block has no {k!r}")
        b = b[k]
    return b


def pct(x: float) -> float:
    return 100.0 * x


def err(mean, low, high):
    """Error-bar half widths ``[[below], [above]]`` from an interval (NaN -> 0)."""
    lo = np.nan_to_num(np.asarray(mean, float) - np.asarray(low, float))
    hi = np.nan_to_num(np.asarray(high, float) - np.asarray(mean, float))
    return np.vstack([np.maximum(lo, 0), np.maximum(hi, 0)])
