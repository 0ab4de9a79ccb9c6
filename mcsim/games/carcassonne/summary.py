"""Carcassonne's summary block: per-chunk totals, the merged block and its text (the summary hooks of
``mcsim.games.base.GameModule``).
"""

from __future__ import annotations

import math

import numpy as np

from mcsim.games.base import Prepared
from mcsim.games.carcassonne import CATEGORIES, GIFT_IDS, point_categories


def _mean(x) -> dict:
    from mcsim import stats

    return stats.mean_interval(np.asarray(x, dtype=np.float64))


def score_matrix(games, players: int) -> np.ndarray:
    """float64[n_games, players] of final scores from the per-game frame."""
    return np.column_stack([games[f"score_{k}"].to_numpy(dtype=np.float64) for k in range(players)])


def margins(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per game: winner margin (best - second best) and score spread (best - worst), points."""
    s = np.sort(scores, axis=1)
    return s[:, -1] - s[:, -2], s[:, -1] - s[:, 0]


def partial_summary(games, prep: Prepared) -> dict:
    """Additive tallies of a chunk of games (moments, sums and counts; see ``finalize_summary``).
    Chunks merge by addition (``mcsim.aggregate``), so any number of games fits in flat memory."""
    from mcsim.stats import moments

    npl = prep.config.players
    out: dict = {"tiles": [moments(games[f"tiles_{k}"]) for k in range(npl)], "features": {}}
    for name in CATEGORIES:
        cols = np.column_stack([games[f"points_{name}_{k}"].to_numpy() for k in range(npl)])
        out["features"][name] = {
            "per_game": moments(cols.sum(axis=1)),
            "by_seat": [float(cols[:, k].sum()) for k in range(npl)],
        }
    un = games["unplaceable"].to_numpy()
    out["unplaceable"] = moments(un)
    out["with_unplaceable"] = int((un > 0).sum())
    margin, spread = margins(score_matrix(games, npl))
    out["margin"] = moments(margin)
    out["spread"] = moments(spread)
    if prep.config.variant.get("gifts") == "true":
        g = {}
        for name in GIFT_IDS:
            opened = games[f"gift_opened_{name}"].to_numpy()
            pts = games[f"gift_points_{name}"].to_numpy()
            held = games[f"gift_held_{name}"].to_numpy()
            g[name] = {
                "received": moments(games[f"gift_received_{name}"]),
                "opened": moments(opened),
                "held": moments(held),
                "points": moments(pts),
            }
        out["gifts"] = g
        out["gift_cards"] = [moments(games[f"gift_cards_{k}"]) for k in range(npl)]
    return out


def finalize_summary(t: dict, prep: Prepared) -> dict:
    """The ``"carcassonne"`` block of the summary.

    Keys: ``tiles_per_seat`` (mean tiles placed by each seat), ``points_by_feature`` (per
    category of ``point_categories``, so ``gift`` only with The Gifts: mean per game over all
    seats and per seat), ``unplaceable_per_game``,
    ``winner_margin`` and ``score_spread`` (points, mean with 95% interval); with gifts:
    ``gifts`` per card type (received / opened / held at the end per game, points per game and
    per opened card) and ``gift_cards_per_seat``. Means carry Student-t 95% intervals.
    """
    from mcsim import stats

    def mi(m):  # every quantity here is a count or points, never negative: clipped at 0
        return stats.mean_interval_from_moments(m, (0, None))

    n = t["unplaceable"]["n"]
    out: dict = {"tiles_per_seat": [mi(m) for m in t["tiles"]]}
    shown = point_categories(prep.config.variant)  # no "gift" without The Gifts
    out["points_by_feature"] = {
        name: {"per_game": mi(f["per_game"]), "by_seat": [x / n for x in f["by_seat"]]}
        for name, f in t["features"].items()
        if name in shown
    }
    out["unplaceable_per_game"] = mi(t["unplaceable"])
    out["games_with_unplaceable"] = stats.proportion(float(t["with_unplaceable"]), n)
    out["winner_margin"] = mi(t["margin"])
    out["score_spread"] = mi(t["spread"])
    if "gifts" in t:
        g = {}
        for name, m in t["gifts"].items():
            opened = m["opened"]["sum"]
            g[name] = {
                "received_per_game": mi(m["received"]),
                "opened_per_game": mi(m["opened"]),
                "held_per_game": mi(m["held"]),
                "points_per_game": mi(m["points"]),
                "points_per_opened": ((m["points"]["sum"] - 2 * m["held"]["sum"]) / opened)
                if opened
                else math.nan,
            }
        out["gifts"] = g
        out["gift_cards_per_seat"] = [mi(m) for m in t["gift_cards"]]
    return out


def summarize(games, prep: Prepared) -> dict:
    """The ``"carcassonne"`` block of a whole per-game table (see ``finalize_summary``)."""
    return finalize_summary(partial_summary(games, prep), prep)


def format_summary(block: dict, summary: dict | None = None) -> str:
    """Readable text of the ``"carcassonne"`` summary block (printed by ``mcsim simulate``)."""

    from mcsim.stats import interval_text

    def ci(d, f="{:.2f}"):
        return f"{f.format(d['mean'])} {interval_text(d, f[2:-1])}"

    lines = [
        "tiles placed per seat: " + ", ".join(f"{d['mean']:.2f}" for d in block["tiles_per_seat"])
    ]
    lines.append(
        "points per game by feature (all seats): "
        + ", ".join(f"{k} {ci(v['per_game'])}" for k, v in block["points_by_feature"].items())
    )
    lines.append(
        f"unplaceable tiles per game: {ci(block['unplaceable_per_game'], '{:.3f}')}; "
        f"winner margin {ci(block['winner_margin'])}; score spread {ci(block['score_spread'])}"
    )
    if "gifts" in block:
        lines.append("gift cards per game      received  opened  held   points  points/opened")
        for name, g in block["gifts"].items():
            ppo = g["points_per_opened"]
            lines.append(
                f"  {name:<22} {g['received_per_game']['mean']:8.3f} "
                f"{g['opened_per_game']['mean']:7.3f} "
                f"{g['held_per_game']['mean']:5.3f} {g['points_per_game']['mean']:8.3f} "
                f"{'-' if ppo != ppo else f'{ppo:.3f}':>14}"
            )
        lines.append(
            "gift cards received per seat: "
            + ", ".join(f"{d['mean']:.3f}" for d in block["gift_cards_per_seat"])
        )
    return "\n".join(lines)
