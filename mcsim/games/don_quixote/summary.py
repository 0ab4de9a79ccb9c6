"""Don Quixote's summary block: per-chunk totals, the merged block and its text (the summary hooks of
``mcsim.games.base.GameModule``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mcsim import stats
from mcsim.games.base import Prepared
from mcsim.games.don_quixote import BANDS, CATEGORY_COLUMNS, DETAIL_COLUMNS, SCORING_COLUMNS


def _seat_values(games, name: str, seats: int) -> np.ndarray:
    cols = [f"{name}_{k}" for k in range(seats)]
    if all(c in games.columns for c in cols):
        return games[cols].to_numpy().ravel()
    if seats == 1 and name in games.columns:
        return games[name].to_numpy()
    return np.zeros(0)


def partial_summary(games, prep: Prepared) -> dict:
    """Additive tallies of a chunk of games (estates pooled over seats): the estate count, the
    sum of every category / scoring column and the count of totals over each band. Chunks merge
    by addition (``mcsim.aggregate``), so any number of games fits in flat memory."""
    seats = int(prep.policy_ids.shape[0])
    total = _seat_values(games, "score", seats)
    return {
        "n": int(total.size),
        "sums": {
            c: int(_seat_values(games, c, seats).astype(np.int64).sum())
            for c in CATEGORY_COLUMNS + SCORING_COLUMNS + DETAIL_COLUMNS
        },
        "over": {str(b): int((total > b).sum()) for b in BANDS},
    }


def finalize_summary(t: dict, prep: Prepared) -> dict:
    """The ``"don_quixote"`` summary block: per-category and per-scoring means (all seats
    pooled), P(total > 70/85/100) with Wilson 95% intervals (rulebook bands, rules §3.6), and
    the tile set in use. Bands are ``{"estimate", "low", "high"}`` (``mcsim.stats.proportion``)."""
    n = t["n"]
    out: dict[str, Any] = {"tileset": dict(prep.info.get("tileset", {})), "n_estates": n}
    for key, cols in (
        ("mean_per_category", CATEGORY_COLUMNS),
        ("mean_per_scoring", SCORING_COLUMNS),
        ("mean_per_scoring_category", DETAIL_COLUMNS),
    ):
        out[key] = {c: t["sums"][c] / n if n else None for c in cols}
    out["bands"] = {f"p_over_{b}": stats.proportion(float(t["over"][str(b)]), n) for b in BANDS}
    return out


def summarize(games, prep: Prepared) -> dict:
    """The ``"don_quixote"`` block of a whole per-game table (see ``finalize_summary``)."""
    return finalize_summary(partial_summary(games, prep), prep)


def format_summary(block: dict, summary: dict | None = None) -> str:
    """Readable lines of the ``"don_quixote"`` summary block (for ``mcsim simulate``)."""
    ts = block.get("tileset", {})
    cat = block["mean_per_category"]
    sc = block["mean_per_scoring"]
    bands = ", ".join(
        f"P(>{k.split('_')[-1]}) {v['estimate']:.4f} {stats.interval_text(v, '.4f')}"
        for k, v in block["bands"].items()
    )
    return "\n".join(
        [
            f"tile set {ts.get('id')} ({ts.get('provenance')}); mean points per estate:",
            "  per category: " + ", ".join(f"{k} {v:.2f}" for k, v in cat.items()),
            "  per scoring: " + ", ".join(f"{k} {v:.2f}" for k, v in sc.items()),
            "  " + bands,
        ]
    )
