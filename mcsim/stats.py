"""Statistics over per-game results: Wilson intervals, score summaries, paired differences.

Everything here takes pandas/numpy data and returns plain floats/dicts ready for JSON.
Proportions get Wilson 95% intervals; means get a Student-t 95% interval; paired differences
get the t interval of the per-game differences (``shared/DESIGN.md``, Summary).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats as _st

Z95 = 1.959963984540054  # standard normal 97.5% quantile


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``successes / n``.

    ``successes`` may be fractional (a shared win counts 1/k). Returns ``(low, high)``;
    ``(nan, nan)`` for ``n == 0``.

    >>> [round(x, 4) for x in wilson_interval(50, 100)]
    [0.4038, 0.5962]
    """
    if n <= 0:
        return (math.nan, math.nan)
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # exact ends at p = 0 and p = 1 (centre - half leaves a round-off residue there, e.g. 5.6e-17)
    return (
        0.0 if successes <= 0 else max(0.0, centre - half),
        1.0 if successes >= n else min(1.0, centre + half),
    )


def proportion(successes: float, n: int) -> dict:
    """``{"estimate", "low", "high"}`` with a Wilson 95% interval."""
    lo, hi = wilson_interval(successes, n)
    return {"estimate": (successes / n) if n else math.nan, "low": lo, "high": hi}


def seated_share(shares, seatings: int) -> dict:
    """A win share averaged per deal over ``seatings`` seat orders on that deal (a policy seated
    in each seat in turn on common deals), with a Wilson 95% interval on the effective number
    of games ``n * p(1-p) / s**2`` (Kish's design effect: ``s**2`` the variance of the per-deal
    shares, ``n`` the deals), kept between ``n`` (as if a deal were one game: the most a
    per-deal share can vary) and ``n * seatings`` (every game independent, the interval of a
    plain count). So it is never wider than the per-deal Wilson interval, and never narrower
    than the games themselves allow; with every game won (``s**2 = 0``) it is the Wilson
    interval of ``n * seatings`` games.

    ``shares``: float[n], each deal's share in [0, 1]. Returns ``{"estimate", "low", "high",
    "effective_games"}``; NaN bounds for no deal.

    >>> iv = seated_share([1.0, 0.5, 0.5, 0.0], 2)
    >>> iv["estimate"], iv["effective_games"]
    (0.5, 6.0)
    """
    x = np.asarray(shares, dtype=np.float64)
    n = int(x.size)
    if n == 0:
        return {"estimate": math.nan, "low": math.nan, "high": math.nan, "effective_games": 0.0}
    p = float(x.mean())
    most = float(n * seatings)
    var = float(x.var(ddof=1)) if n > 1 else 0.0
    pq = p * (1.0 - p)
    n_eff = most if var <= 0.0 or pq <= 0.0 else min(max(n * pq / var, float(n)), most)
    lo, hi = wilson_interval(p * n_eff, n_eff)
    return {"estimate": p, "low": lo, "high": hi, "effective_games": n_eff}


def t_quantile(n: int) -> float:
    """Student-t 97.5% quantile with ``n - 1`` degrees of freedom (for 95% mean intervals)."""
    return float(_st.t.ppf(0.975, n - 1)) if n > 1 else math.nan


#: how an interval whose bounds are undefined prints (a mean of fewer than 2 values, a
#: proportion of none): ``interval_text``, the one convention of every text output
UNDEFINED_INTERVAL = "[undefined]"


def interval_text(d: dict, spec: str = ".3f", scale: float = 1.0) -> str:
    """``"[low, high]"`` of an interval dict (keys ``low``, ``high``) with the format ``spec``
    (e.g. ``".3f"``, ``"+7.2f"``), both bounds times ``scale`` (100 for percent);
    ``UNDEFINED_INTERVAL`` when a bound is None or NaN. Every text output prints intervals
    this way (docs/outputs.md, "Intervals").

    >>> interval_text({"low": 0.25, "high": 1.5}, ".2f")
    '[0.25, 1.50]'
    >>> interval_text({"low": float("nan"), "high": float("nan")}, "+.2f")
    '[undefined]'
    """
    lo, hi = d.get("low"), d.get("high")
    if lo is None or hi is None or lo != lo or hi != hi:
        return UNDEFINED_INTERVAL
    return f"[{format(scale * lo, spec)}, {format(scale * hi, spec)}]"


def clip_to_range(d: dict, bounds: tuple[float | None, float | None] = (None, None)) -> dict:
    """``d`` (a dict with ``low``, ``high``) with its interval clipped to the quantity's range
    ``bounds`` (``(low, high)``, None = unbounded; e.g. ``(0, None)`` for a count), so that no
    interval leaves the values the quantity can take; NaN bounds stay NaN. Returns ``d``.

    >>> clip_to_range({"mean": 0.1, "low": -0.126, "high": 0.326}, (0, None))["low"]
    0.0
    """
    lo, hi = bounds
    if lo is not None and d["low"] == d["low"]:
        d["low"] = max(float(lo), d["low"])
    if hi is not None and d["high"] == d["high"]:
        d["high"] = min(float(hi), d["high"])
    return d


def mean_interval(values, bounds: tuple[float | None, float | None] = (None, None)) -> dict:
    """Mean with a Student-t 95% interval: ``{"mean", "low", "high", "sd", "n"}``; the interval
    is clipped to the quantity's range ``bounds`` (``clip_to_range``; e.g. ``(0, None)`` for a
    count). Fewer than 2 values: NaN bounds (undefined)."""
    x = np.asarray(values, dtype=np.float64)
    n = x.size
    if n == 0:
        return {"mean": math.nan, "low": math.nan, "high": math.nan, "sd": math.nan, "n": 0}
    m = float(x.mean())
    sd = float(x.std(ddof=1)) if n > 1 else math.nan  # undefined for one value
    half = t_quantile(n) * sd / math.sqrt(n) if n > 1 else math.nan
    out = {"mean": m, "low": m - half, "high": m + half, "sd": sd, "n": int(n)}
    return clip_to_range(out, bounds)


def moments(values) -> dict:
    """Mergeable moments of some values: ``{"n", "sum", "sumsq"}`` (add them key by key)."""
    x = np.asarray(values, dtype=np.float64)
    return {"n": int(x.size), "sum": float(x.sum()), "sumsq": float((x * x).sum())}


def mean_interval_from_moments(
    m: dict, bounds: tuple[float | None, float | None] = (None, None)
) -> dict:
    """``mean_interval`` computed from merged ``moments`` (same keys, meaning and ``bounds``)."""
    n = m["n"]
    if n == 0:
        return {"mean": math.nan, "low": math.nan, "high": math.nan, "sd": math.nan, "n": 0}
    mean = m["sum"] / n
    sd = math.sqrt(max((m["sumsq"] - n * mean * mean) / (n - 1), 0.0)) if n > 1 else math.nan
    half = t_quantile(n) * sd / math.sqrt(n) if n > 1 else math.nan
    out = {"mean": mean, "low": mean - half, "high": mean + half, "sd": sd, "n": int(n)}
    return clip_to_range(out, bounds)


def score_summary(values) -> dict:
    """Score summary of one seat: mean with 95% interval, sd, min, median, max (points)."""
    x = np.asarray(values, dtype=np.float64)
    mi = mean_interval(x)
    return {
        "mean": mi["mean"],
        "low": mi["low"],
        "high": mi["high"],
        "sd": mi["sd"],
        "min": float(x.min()),
        "p50": float(np.median(x)),
        "max": float(x.max()),
    }


def difference_bounds(
    bounds: tuple[float | None, float | None] = (None, None),
) -> tuple[float | None, float | None]:
    """The range of a difference ``a - b`` of two values that each lie in ``bounds``
    (``(low, high)``, None = unbounded): ``(low - high, high - low)`` when both ends are
    finite (a difference of win rates, range ``(0, 1)``, lies in ``(-1, 1)``), else unbounded.

    >>> difference_bounds((0, 1)), difference_bounds((0, None))
    ((-1.0, 1.0), (None, None))
    """
    lo, hi = bounds
    if lo is None or hi is None:
        return (None, None)
    w = float(hi) - float(lo)
    return (-w, w)


def paired_difference(a, b, bounds: tuple[float | None, float | None] = (None, None)) -> dict:
    """Mean of ``a - b`` over paired games with a t 95% interval (common random numbers), as
    ``mean_interval``; the interval is clipped to the range of a difference of two values in
    ``bounds``, the range of ``a`` and ``b`` (``difference_bounds``: a win-rate difference
    stays in [-1, 1])."""
    x = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    return mean_interval(x, difference_bounds(bounds))


def tells_nothing(d: dict, bounds: tuple[float | None, float | None] = (None, None)) -> bool:
    """True when the interval of ``d`` (keys ``low``, ``high``) is undefined (NaN or None
    bounds) or covers the whole of the quantity's range ``bounds`` (both ends finite): then
    every value is possible and no verdict may be read from it ("not enough games")."""
    lo, hi = d.get("low"), d.get("high")
    if lo is None or hi is None or lo != lo or hi != hi:
        return True
    b_lo, b_hi = bounds
    return b_lo is not None and b_hi is not None and lo <= b_lo and hi >= b_hi


def ranks_and_shares(scores: np.ndarray, win_share: np.ndarray | None = None):
    """Ranks (1 = best, ties share the best rank) and win shares from a score matrix.

    Parameters
    ----------
    scores : array[n_games, n_seats]
        Points.
    win_share : float64[n_games, n_seats] or None
        The game's own win shares (e.g. after a tie-break); by default seats with the top
        score share the win equally (1/k each).

    Returns
    -------
    rank : int8[n_games, n_seats], win_share : float64[n_games, n_seats], winner : int8[n_games]
        ``winner`` is the winning seat, or -1 when the win is shared.
    """
    s = np.asarray(scores, dtype=np.float64)
    n, k = s.shape
    rank = np.ones((n, k), dtype=np.int8)
    for j in range(k):
        rank[:, j] += (s > s[:, j : j + 1]).sum(axis=1).astype(np.int8)
    if win_share is None:
        top = s == s.max(axis=1, keepdims=True)
        win_share = top / top.sum(axis=1, keepdims=True)
    else:
        win_share = np.asarray(win_share, dtype=np.float64)
    winner = np.where(win_share.max(axis=1) >= 1.0 - 1e-9, win_share.argmax(axis=1), -1)
    return rank, win_share, winner.astype(np.int8)


def long_seats(games: pd.DataFrame, players: int, policy_labels: list[str]) -> pd.DataFrame:
    """The tidy per-seat view: ``game_index, seat, policy, score, rank, won`` (one row per seat)."""
    parts = []
    for k in range(players):
        parts.append(
            pd.DataFrame(
                {
                    "game_index": games["game_index"].to_numpy(),
                    "seat": np.full(len(games), k, dtype=np.int8),
                    "policy": pd.Categorical(
                        [policy_labels[k]] * len(games), categories=sorted(set(policy_labels))
                    ),
                    "score": games[f"score_{k}"].to_numpy(),
                    "rank": games[f"rank_{k}"].to_numpy(),
                    "won": games[f"win_share_{k}"].to_numpy(),
                }
            )
        )
    return pd.concat(parts, ignore_index=True).sort_values(
        ["game_index", "seat"], kind="stable", ignore_index=True
    )


def seat_summaries(games: pd.DataFrame, players: int, policy_labels: list[str]) -> list[dict]:
    """Per seat: win rate (Wilson 95%; a tie counts 1/k) and score summary. A solo game
    (``players == 1``) has no winner: its ``win_rate`` is None."""
    n = len(games)
    out = []
    for k in range(players):
        wins = float(games[f"win_share_{k}"].sum())
        out.append(
            {
                "seat": k,
                "policy": policy_labels[k],
                "win_rate": proportion(wins, n) if players > 1 else None,
                "score": score_summary(games[f"score_{k}"].to_numpy()),
            }
        )
    return out


def length_summary(lengths) -> dict:
    x = np.asarray(lengths)
    return {"mean": float(x.mean()), "min": int(x.min()), "max": int(x.max())}
