"""Thurn and Taxis' summary block: per-chunk totals, the merged block and its text (the summary hooks
of ``mcsim.games.base.GameModule``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from kernels import thurn_and_taxis as K
from mcsim.games.base import Prepared
from mcsim.games.thurn_and_taxis import END_REASONS, OFFICIALS, STACK_COUNTS, STACK_IDS

_USE_BINS = ((0, 1), (1, 2), (2, 3), (3, 5), (5, 10), (10, 20), (20, 10**9))


def _bin_label(lo: int, hi: int) -> str:
    return str(lo) if hi == lo + 1 else (f"{lo}-{hi - 1}" if hi < 10**9 else f"{lo}+")


def partial_summary(games: pd.DataFrame, prep: Prepared) -> dict:
    """Additive sums over a chunk of games (merged across chunks key by key by
    ``mcsim.aggregate``; ``finalize_summary`` turns the total into the summary block).

    The table is read once as a float64 matrix (every column used is an integer count or a
    win share, exact in float64), so a chunk costs one conversion rather than a pandas
    selection per column."""
    k = prep.config.players
    n = len(games)
    f8 = np.float64
    i8 = np.int64
    max_rounds = int(prep.tables["var"][K.V_MAX_TURNS]) + 1
    matrix = games.to_numpy(dtype=f8)
    where = {name: j for j, name in enumerate(games.columns)}

    def col(name: str) -> np.ndarray:
        return matrix[:, where[name]]

    def seats(prefix: str) -> np.ndarray:  # (k, n): one row per seat
        return np.stack([col(f"{prefix}_{s}") for s in range(k)]) if n else np.zeros((k, 0))

    rounds = col("rounds").astype(i8)
    win = seats("win_share")
    score = seats("score")
    won = win.reshape(-1)
    out: dict[str, Any] = {
        "n": n,
        "win_share": [float(x) for x in win.sum(axis=1)],
        "score_sum": [float(x) for x in score.sum(axis=1)],
        "score_sumsq": [float(x) for x in (score**2).sum(axis=1)],
        "end": [int((col("end_reason") == code).sum()) for code in END_REASONS],
        "rounds_sum": float(rounds.sum()),
        "rounds_sumsq": float((rounds.astype(f8) ** 2).sum()),
        "rounds_hist": np.bincount(np.minimum(rounds, max_rounds - 1), minlength=max_rounds),
        "forced": int(seats("forced_postmaster").sum()),
        "officials": {},
        "closed_len": np.array([col(f"closed_len_{L}").sum() for L in range(3, 11)], dtype=i8),
        "route_cards": int(seats("route_cards_closed").sum()),
        "tiles_taken": np.array([col(f"tiles_{sid}").sum() for sid in STACK_IDS], dtype=i8),
        "tiles_ran_out": np.array(
            [(col(f"tiles_{sid}") >= STACK_COUNTS[i]).sum() for i, sid in enumerate(STACK_IDS)],
            dtype=i8,
        ),
    }
    carr = seats("carriage").reshape(-1).astype(i8)
    out["carriages"] = np.bincount(carr, minlength=8)[[0, 3, 4, 5, 6, 7]].astype(i8)
    for name in OFFICIALS:
        used = seats(f"used_{name}")
        per_game = used.sum(axis=0)
        uses = used.reshape(-1)
        players = np.array([((uses >= lo) & (uses < hi)).sum() for lo, hi in _USE_BINS], i8)
        wins = np.array([won[(uses >= lo) & (uses < hi)].sum() for lo, hi in _USE_BINS], f8)
        out["officials"][name] = {
            "sum": float(per_game.sum()),
            "sumsq": float((per_game**2).sum()),
            "bin_players": players,
            "bin_wins": wins,
        }
    return out


def _mean_from_sums(total: float, sumsq: float, n: int) -> dict:
    from mcsim import stats

    if n == 0:
        return {"mean": math.nan, "low": math.nan, "high": math.nan, "sd": math.nan, "n": 0}
    m = total / n
    sd = math.sqrt(max((sumsq - n * m * m) / (n - 1), 0.0)) if n > 1 else 0.0
    half = stats.t_quantile(n) * sd / math.sqrt(n) if n > 1 else math.nan
    return {"mean": m, "low": m - half, "high": m + half, "sd": sd, "n": int(n)}


def _hist_quantile(hist: np.ndarray, q: float) -> float:
    """The smallest value whose cumulative share reaches ``q`` (histogram quantile)."""
    c = np.cumsum(hist)
    if c[-1] == 0:
        return math.nan
    return float(np.searchsorted(c, q * c[-1] - 1e-9))


def finalize_summary(t: dict, prep: Prepared) -> dict:
    """The Thurn and Taxis block of the summary (issue §4) from summed partials.

    Keys: ``by_players`` (per seat under the run's player count: win rate with Wilson 95%
    interval, mean score with t interval), ``end`` (share of games ended by the 7-carriage, by
    the last house, by the turn cap; rounds: mean with t interval and 5/50/95% quantiles),
    ``officials`` (per official: uses per game with t interval, uses per player, win rate of
    players by how often they used it; forced Postmasters per player), ``closed_routes``
    (per game, mean length in cards, share by length), ``bonus_tiles`` (per stack: tiles taken
    per game, share of games the stack ran out), ``carriages`` (share of players by highest
    carriage, mean highest).
    """
    from mcsim import stats

    n = int(t["n"])
    k = prep.config.players
    labels = [p.label() for p in prep.config.policies]
    seats = [
        {
            "seat": s,
            "policy": labels[s],
            "win_rate": stats.proportion(float(t["win_share"][s]), n),
            "score": _mean_from_sums(float(t["score_sum"][s]), float(t["score_sumsq"][s]), n),
        }
        for s in range(k)
    ]
    out: dict[str, Any] = {"by_players": {str(k): seats}}
    out["end"] = {
        name: stats.proportion(float(t["end"][i]), n) for i, name in enumerate(END_REASONS.values())
    }
    out["end"]["rounds"] = _mean_from_sums(float(t["rounds_sum"]), float(t["rounds_sumsq"]), n)
    hist = np.asarray(t["rounds_hist"])
    out["end"]["rounds_quantiles"] = {
        q: _hist_quantile(hist, float(q) / 100) for q in ("5", "50", "95")
    }
    off: dict[str, Any] = {}
    for name in OFFICIALS:
        o = t["officials"][name]
        bins = {}
        for (lo, hi), m, w in zip(
            _USE_BINS, np.asarray(o["bin_players"]), np.asarray(o["bin_wins"])
        ):
            if m:
                bins[_bin_label(lo, hi)] = {
                    "players": int(m),
                    "win_rate": stats.proportion(float(w), int(m)),
                }
        off[name] = {
            "per_game": _mean_from_sums(float(o["sum"]), float(o["sumsq"]), n),
            "per_player": float(o["sum"]) / (n * k) if n else math.nan,
            "win_rate_by_uses": bins,
        }
    off["postmaster"]["forced_per_player"] = float(t["forced"]) / (n * k) if n else math.nan
    out["officials"] = off
    counts = np.asarray(t["closed_len"], dtype=np.float64)
    total = counts.sum()
    out["closed_routes"] = {
        "per_game": float(total / n) if n else math.nan,
        "mean_length": float(t["route_cards"] / total) if total else math.nan,
        "share_by_length": {
            (str(L) if L < 10 else "10+"): (float(c / total) if total else math.nan)
            for L, c in zip(range(3, 11), counts)
        },
    }
    out["bonus_tiles"] = {
        sid: {
            "mean_taken": float(t["tiles_taken"][i]) / n if n else math.nan,
            "ran_out": stats.proportion(float(t["tiles_ran_out"][i]), n),
        }
        for i, sid in enumerate(STACK_IDS)
    }
    carr = np.asarray(t["carriages"], dtype=np.float64)
    m = carr.sum()
    out["carriages"] = {
        ("none" if v == 0 else str(v)): (float(c / m) if m else math.nan)
        for v, c in zip((0, 3, 4, 5, 6, 7), carr)
    }
    out["carriages"]["mean_highest"] = (
        float((carr * np.array([0, 3, 4, 5, 6, 7])).sum() / m) if m else math.nan
    )
    return out


def summarize(games: pd.DataFrame, prep: Prepared) -> dict:
    """The ``"thurn_and_taxis"`` block of a whole per-game table (see ``finalize_summary``)."""
    return finalize_summary(partial_summary(games, prep), prep)


def format_summary(block: dict, summary: dict | None = None) -> str:
    """Readable text of the ``thurn_and_taxis`` summary block (printed by ``mcsim simulate``)."""
    from mcsim.stats import interval_text

    def pct(d):
        return f"{100 * d['estimate']:.1f}% {interval_text(d, '.1f', 100)}"

    end = block["end"]
    lines = [
        f"end: 7-carriage {pct(end['carriage7'])}, last house {pct(end['houses'])}, "
        f"turn cap {pct(end['turn_cap'])}; rounds {end['rounds']['mean']:.2f} "
        f"{interval_text(end['rounds'], '.2f')} "
        f"(5/50/95%: {end['rounds_quantiles']['5']:.0f}/{end['rounds_quantiles']['50']:.0f}/"
        f"{end['rounds_quantiles']['95']:.0f})"
    ]
    lines.append("officials (uses per player; win rate by uses):")
    for name in OFFICIALS:
        o = block["officials"][name]
        bins = "  ".join(
            f"{k}: {100 * v['win_rate']['estimate']:.1f}% (n={v['players']})"
            for k, v in o["win_rate_by_uses"].items()
        )
        extra = f", forced {o['forced_per_player']:.2f}" if "forced_per_player" in o else ""
        lines.append(f"  {name:<15} {o['per_player']:6.2f}{extra}   {bins}")
    cr = block["closed_routes"]
    shares = " ".join(f"{k}:{100 * v:.1f}%" for k, v in cr["share_by_length"].items() if v == v)
    if cr["mean_length"] == cr["mean_length"]:  # not NaN: some route was closed
        lines.append(
            f"closed routes: {cr['per_game']:.2f} per game, mean length "
            f"{cr['mean_length']:.2f}; by length {shares}"
        )
    else:
        lines.append("closed routes: none")
    lines.append(
        "bonus tiles taken per game (stack ran out): "
        + ", ".join(
            f"{k} {v['mean_taken']:.2f} ({100 * v['ran_out']['estimate']:.0f}%)"
            for k, v in block["bonus_tiles"].items()
        )
    )
    c = block["carriages"]
    lines.append(
        "highest carriage per player: "
        + " ".join(f"{k}:{100 * v:.1f}%" for k, v in c.items() if k != "mean_highest")
        + f"  (mean {c['mean_highest']:.2f})"
    )
    return "\n".join(lines)
