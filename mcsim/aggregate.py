"""Mergeable partial aggregates: the summary of any number of games in bounded memory.

Each chunk of games is reduced to an ``Aggregate`` (counts, sums, sums of squares, exact
histograms of the integer scores and lengths, and the game's own additive partial block);
aggregates merge by addition, in chunk order, so the summary is exact and identical whatever the
backend, worker count or chunk size (``shared/DESIGN.md``, Scale).

A game joins in by defining in its module (optional)::

    partial_summary(games_chunk: DataFrame, prep) -> dict   # numbers / numpy arrays / nested dicts
    finalize_summary(total: dict, prep) -> dict             # the game's summary block

where the partial dicts of all chunks are added key by key (dicts and lists recurse). Every game
of the project defines them; a game that only defines ``summarize(games: DataFrame, prep)`` would
get its block from the full per-game table, so its runs would keep every row in memory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from mcsim import stats


def _hist(values: np.ndarray) -> dict[int, int]:
    v, c = np.unique(np.asarray(values), return_counts=True)
    return {int(a) if float(a).is_integer() else float(a): int(b) for a, b in zip(v, c)}


def _add_hist(a: dict, b: dict) -> dict:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return out


def add_partials(a: Any, b: Any) -> Any:
    """Add two partial blocks key by key (dicts recurse; numbers and arrays add)."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, dict):
        keys = list(a) + [k for k in b if k not in a]
        return {k: add_partials(a.get(k), b.get(k)) for k in keys}
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            raise ValueError(f"cannot add partial lists of lengths {len(a)} and {len(b)}")
        return [add_partials(x, y) for x, y in zip(a, b)]
    return a + b


@dataclass
class Aggregate:
    """Mergeable summary of some games of one run (per seat: win share sum, score sums and
    histogram; length histogram; the game's partial block)."""

    players: int
    n: int = 0
    win_share: list = field(default_factory=list)  # float per seat
    score_sum: list = field(default_factory=list)
    score_sumsq: list = field(default_factory=list)
    score_hist: list = field(default_factory=list)  # dict value -> count, per seat
    length_hist: dict = field(default_factory=dict)
    game_partial: Any = None

    @classmethod
    def empty(cls, players: int) -> Aggregate:
        return cls(
            players,
            0,
            [0.0] * players,
            [0.0] * players,
            [0.0] * players,
            [{} for _ in range(players)],
            {},
            None,
        )

    @classmethod
    def of_games(cls, games: pd.DataFrame, players: int, game_partial=None) -> Aggregate:
        """The aggregate of a per-game table (``mcsim.runner.games_frame`` columns)."""
        agg = cls.empty(players)
        agg.n = len(games)
        for k in range(players):
            s = games[f"score_{k}"].to_numpy(dtype=np.float64)
            agg.win_share[k] = float(games[f"win_share_{k}"].sum())
            agg.score_sum[k] = float(s.sum())
            agg.score_sumsq[k] = float((s * s).sum())
            agg.score_hist[k] = _hist(games[f"score_{k}"].to_numpy())
        agg.length_hist = _hist(games["length_plies"].to_numpy())
        agg.game_partial = game_partial
        return agg

    def merge(self, other: Aggregate) -> Aggregate:
        """The aggregate of both sets of games (exact; order only matters for float rounding,
        so callers merge in chunk order)."""
        return Aggregate(
            self.players,
            self.n + other.n,
            [a + b for a, b in zip(self.win_share, other.win_share)],
            [a + b for a, b in zip(self.score_sum, other.score_sum)],
            [a + b for a, b in zip(self.score_sumsq, other.score_sumsq)],
            [_add_hist(a, b) for a, b in zip(self.score_hist, other.score_hist)],
            _add_hist(self.length_hist, other.length_hist),
            add_partials(self.game_partial, other.game_partial),
        )

    # ------------------------------------------------------------ results
    def seat_summaries(
        self, policy_labels: list[str], score_bounds: tuple = (None, None)
    ) -> list[dict]:
        """Per seat: win rate (Wilson 95%; None for a solo game) and score summary, as in
        ``mcsim.stats``; the mean score's interval clipped to the game's ``score_bounds``
        (``GameSpec.score_bounds``)."""
        out = []
        for k in range(self.players):
            out.append(
                {
                    "seat": k,
                    "policy": policy_labels[k],
                    "win_rate": (
                        stats.proportion(self.win_share[k], self.n) if self.players > 1 else None
                    ),
                    "score": stats.clip_to_range(self._score(k), score_bounds),
                }
            )
        return out

    def _score(self, k: int) -> dict:
        n = self.n
        mean = self.score_sum[k] / n
        var = (self.score_sumsq[k] - n * mean * mean) / (n - 1) if n > 1 else math.nan
        sd = math.sqrt(max(var, 0.0)) if n > 1 else math.nan  # undefined for one game
        half = stats.t_quantile(n) * sd / math.sqrt(n) if n > 1 else math.nan
        hist = self.score_hist[k]
        return {
            "mean": mean,
            "low": mean - half,
            "high": mean + half,
            "sd": sd,
            "min": float(min(hist)),
            "p50": _median(hist),
            "max": float(max(hist)),
        }

    def length_summary(self) -> dict:
        h = self.length_hist
        total = sum(v * c for v, c in h.items())
        return {"mean": total / self.n, "min": int(min(h)), "max": int(max(h))}

    # ------------------------------------------------------------ JSON (resume files)
    def to_json(self) -> dict:
        return {
            "players": self.players,
            "n": self.n,
            "win_share": self.win_share,
            "score_sum": self.score_sum,
            "score_sumsq": self.score_sumsq,
            "score_hist": [[[k, v] for k, v in sorted(h.items())] for h in self.score_hist],
            "length_hist": [[k, v] for k, v in sorted(self.length_hist.items())],
            "game_partial": _jsonable(self.game_partial),
        }

    @classmethod
    def from_json(cls, d: dict) -> Aggregate:
        return cls(
            d["players"],
            d["n"],
            d["win_share"],
            d["score_sum"],
            d["score_sumsq"],
            [{k: v for k, v in h} for h in d["score_hist"]],
            {k: v for k, v in d["length_hist"]},
            d["game_partial"],
        )


def _median(hist: dict) -> float:
    """Median of a histogram (the mean of the two middle values for an even count)."""
    items = sorted(hist.items())
    n = sum(c for _, c in items)
    lo_rank, hi_rank = (n - 1) // 2, n // 2
    seen = 0
    lo = hi = None
    for v, c in items:
        if lo is None and seen + c > lo_rank:
            lo = v
        if seen + c > hi_rank:
            hi = v
            break
        seen += c
    return (float(lo) + float(hi)) / 2.0


def _jsonable(o):
    if isinstance(o, dict):
        return {k: _jsonable(v) for k, v in o.items()}
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, (list, tuple)):
        return [_jsonable(v) for v in o]
    return o
