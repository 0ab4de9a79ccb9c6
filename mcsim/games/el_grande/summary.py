"""El Grande's summary block: per-chunk totals, the merged block and its text (the summary hooks of
``mcsim.games.base.GameModule``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from kernels import el_grande as K
from mcsim.games.base import Prepared
from mcsim.games.el_grande import SOURCES, load_data


# =============================================================================================
# summary
# =============================================================================================
def _diff_obs(scores: np.ndarray, shares: np.ndarray, g: np.ndarray, seat: np.ndarray):
    """Per observation (game g, taker seat): taker minus mean of the other seats."""
    n = scores.shape[1]
    s_t = scores[g, seat]
    w_t = shares[g, seat]
    s_o = (scores[g].sum(axis=1) - s_t) / (n - 1)
    w_o = (shares[g].sum(axis=1) - w_t) / (n - 1)
    return s_t - s_o, w_t - w_o


def _card_types() -> list[str]:
    return [c["id"] for c in load_data()["cards"]["cards"]]


def _first_round(prep: Prepared) -> int:
    return 2 if int(prep.variant_codes[K.V_ROUNDS]) == 1 else 1


def partial_summary(games, prep: Prepared) -> dict:
    """Additive sums over a chunk of games (merged across chunks by addition, see
    ``mcsim.aggregate``); ``finalize_summary`` turns them into the ``"el_grande"`` block.

    The table is read once as a float64 matrix (every column is numeric and exact in float64):
    pandas column selection per card would cost more than playing the games."""
    npl = prep.config.players
    data = load_data()
    A = games.to_numpy(dtype=np.float64)
    pos = {c: i for i, c in enumerate(games.columns)}

    def cols(names):
        return A[:, [pos[c] for c in names]]

    def icols(names):
        return cols(names).astype(np.int64)

    def seat_cols(prefix):
        return cols([f"{prefix}_{k}" for k in range(npl)])

    scores = seat_cols("score")
    shares = seat_cols("win_share")
    taker = icols([f"take_{cid}" for cid in data["card_ids"][:44]])
    tround = icols([f"take_round_{cid}" for cid in data["card_ids"][:44]])
    kingby = icols([f"king_r{r}" for r in range(1, 10)])
    cards = {}
    for t in _card_types():
        gs, seats, rounds = [], [], []
        if t == "K":
            for r in range(1, 10):
                col = kingby[:, r - 1]
                m = col >= 0
                gs.append(np.nonzero(m)[0])
                seats.append(col[m])
                rounds.append(np.full(int(m.sum()), r, dtype=np.int64))
        else:
            for c, ct in enumerate(data["card_types"][:44]):
                if ct == t:
                    col = taker[:, c]
                    m = col >= 0
                    gs.append(np.nonzero(m)[0])
                    seats.append(col[m])
                    rounds.append(tround[m, c])
        g, st, rd = np.concatenate(gs), np.concatenate(seats), np.concatenate(rounds)
        sd, wd = _diff_obs(scores, shares, g, st) if g.size else (np.zeros(0), np.zeros(0))
        cards[t] = {
            "taken": int(g.size),
            "seat": np.bincount(st, minlength=npl)[:npl].tolist(),
            "round": np.bincount(rd, minlength=10)[1:10].tolist(),
            "sd": [float(sd.sum()), float((sd * sd).sum())],
            "wd": [float(wd.sum()), float((wd * wd).sum())],
        }
    by_round = []
    for r in range(1, 10):
        vals = seat_cols(f"power_r{r}").astype(np.int64).ravel()
        by_round.append(np.bincount(vals, minlength=14)[1:14].tolist())
    fr = _first_round(prep)
    vals = seat_cols(f"power_r{fr}").astype(np.int64).ravel()
    first_n = np.bincount(vals, minlength=14)[1:14].tolist()
    first_w = np.bincount(vals, weights=shares.ravel(), minlength=14)[1:14].tolist()
    src = {}
    for name in SOURCES:
        arr = seat_cols(f"pts_{name}")
        src[name] = {
            "sum": float(arr.sum()),
            "sumsq": float((arr * arr).sum()),
            "n": int(arr.size),
            "by_seat": arr.sum(axis=0).tolist(),
        }
    taken = seat_cols("intake_taken")
    allowed = seat_cols("intake_max")
    vetoes = icols(["vetoes_all", "vetoes_partial"]).sum(axis=0)
    return {
        "n": len(games),
        "cards": cards,
        "power_by_round": by_round,
        "first_n": first_n,
        "first_w": first_w,
        "src": src,
        "total": float(scores.sum()),
        "intake": [float(taken.sum()), float((taken * taken).sum()), float(allowed.sum())],
        "vetoes": [int(vetoes[0]), int(vetoes[1])],
    }


def _mi(s: float, ss: float, n: int) -> dict:
    """Mean with a Student-t 95% interval from a sum and a sum of squares."""
    from mcsim import stats

    if n == 0:
        return {"mean": math.nan, "low": math.nan, "high": math.nan, "sd": math.nan, "n": 0}
    m = s / n
    sd = math.sqrt(max(0.0, (ss - s * s / n) / (n - 1))) if n > 1 else 0.0
    half = stats.t_quantile(n) * sd / math.sqrt(n) if n > 1 else math.nan
    return {"mean": m, "low": m - half, "high": m + half, "sd": sd, "n": int(n)}


def finalize_summary(t: dict, prep: Prepared) -> dict:
    """The ``"el_grande"`` summary block (docs/outputs.md, "JSON summary") from the summed partials.

    Returns
    -------
    dict
        ``action_cards``: per card type (copies merged; ``K`` = the King's card, one observation
        per round): ``deck``, ``copies``, ``text``, ``taken`` (count), ``taken_per_game``,
        ``by_seat`` and ``by_round`` (fractions of the takes), ``score_diff`` (taker's final
        points minus the mean of the other seats: mean with 95% t interval) and ``win_diff``
        (the same for the win share). ``power_cards``: ``by_round`` {round: {value: fraction of
        plays}}, ``first_round``, ``win_rate_by_first_value`` {value: Wilson interval of the win
        rate of the seats that played it in the first round played, plus ``n``}.
        ``points_by_source``: per source, mean points per seat-game with 95% interval, ``share``
        of all points, ``by_seat`` means. ``court_intake``: ``taken`` (mean caballeros taken at
        the court intakes per seat-game, 95% interval), ``allowed`` (mean of the most that could
        have been taken), ``share`` (taken / allowed). ``vetoes``: ``per_game``, ``all`` and
        ``partial`` (counts of Vetoes used with the cut ``all`` / ``after_K``).
        ``players``, ``games``.
    """
    from mcsim import stats

    npl = prep.config.players
    n = t["n"]
    rows = {c["id"]: c for c in load_data()["cards"]["cards"]}
    out: dict[str, Any] = {"players": npl, "games": n}
    cards = {}
    for ct, e in t["cards"].items():
        k = e["taken"]
        entry: dict[str, Any] = {
            "deck": rows[ct]["deck"],
            "copies": rows[ct]["copies"],
            "text": rows[ct]["text"],
            "taken": k,
            "taken_per_game": k / n if n else math.nan,
        }
        if k:
            entry["by_seat"] = {s: c / k for s, c in enumerate(e["seat"])}
            entry["by_round"] = {r + 1: c / k for r, c in enumerate(e["round"]) if c}
            entry["score_diff"] = _mi(e["sd"][0], e["sd"][1], k)
            entry["win_diff"] = _mi(e["wd"][0], e["wd"][1], k)
        cards[ct] = entry
    out["action_cards"] = cards
    by_round = {}
    for r, cnt in enumerate(t["power_by_round"]):
        tot = sum(cnt)
        if tot:
            by_round[r + 1] = {v + 1: c / tot for v, c in enumerate(cnt) if c}
    fr = _first_round(prep)
    wr = {}
    for v in range(13):
        m = int(t["first_n"][v])
        if m:
            wr[v + 1] = dict(stats.proportion(float(t["first_w"][v]), m), n=m)
    out["power_cards"] = {"by_round": by_round, "first_round": fr, "win_rate_by_first_value": wr}
    src = {}
    for name in SOURCES:
        d = t["src"][name]
        x = _mi(d["sum"], d["sumsq"], d["n"])
        x["share"] = d["sum"] / t["total"] if t["total"] else math.nan
        x["by_seat"] = [v / n for v in d["by_seat"]] if n else []
        src[name] = x
    out["points_by_source"] = src
    tk, tk2, al = t["intake"]
    m = n * npl
    out["court_intake"] = {
        "taken": _mi(tk, tk2, m),
        "allowed": al / m if m else math.nan,
        "share": tk / al if al else math.nan,
    }
    va, vp = t["vetoes"]
    out["vetoes"] = {"per_game": (va + vp) / n if n else math.nan, "all": va, "partial": vp}
    return out


def summarize(games, prep: Prepared) -> dict:
    """The ``"el_grande"`` block from the full per-game table (see ``finalize_summary``)."""
    return finalize_summary(partial_summary(games, prep), prep)


def format_summary(block: dict, summary: dict | None = None) -> str:
    """Readable tables of the ``"el_grande"`` block: action cards, power cards, point sources."""
    from mcsim.stats import interval_text

    lines = [
        "action cards (taker minus mean of the others; 95% CI)",
        f"{'card':5s} {'taken/game':>10s}  {'score diff':>26s}  {'win-share diff':>28s}  text",
    ]
    for cid, e in block["action_cards"].items():
        if e["taken"]:
            sd, wd = e["score_diff"], e["win_diff"]
            lines.append(
                f"{cid:5s} {e['taken_per_game']:10.3f}  {sd['mean']:+7.2f} {interval_text(sd, '+7.2f')}"
                f"  {wd['mean']:+7.3f} {interval_text(wd, '+7.3f')}  {e['text'][:50]}"
            )
        else:
            lines.append(f"{cid:5s} {0.0:10.3f}  (never taken)")
    pc = block["power_cards"]
    if pc.get("win_rate_by_first_value"):
        lines.append(f"win rate by the power card played in round {pc['first_round']}")
        for v, w in pc["win_rate_by_first_value"].items():
            lines.append(
                f"  {int(v):2d}: {w['estimate']:.4f} {interval_text(w, '.4f')}  n={w['n']}"
            )
    lines.append("points by source (mean per seat-game, share of all points)")
    for name, d in block["points_by_source"].items():
        lines.append(
            f"  {name:9s} {d['mean']:7.2f} {interval_text(d, '7.2f')}  {100 * d['share']:5.1f}%"
        )
    ci, v = block.get("court_intake"), block.get("vetoes")
    if ci:
        tk = ci["taken"]
        lines.append(
            f"court intake per seat-game: {tk['mean']:.2f} {interval_text(tk, '.2f')} taken of "
            f"{ci['allowed']:.2f} allowed ({100 * ci['share']:.1f}%)"
        )
    if v:
        lines.append(
            f"vetoes per game: {v['per_game']:.3f} (whole action {v['all']}, remaining part {v['partial']})"
        )
    return "\n".join(lines)
