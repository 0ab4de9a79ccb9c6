"""Sacred Hill's summary block: per-chunk totals, the merged block and its text (the summary hooks of
``mcsim.games.base.GameModule``).
"""

from __future__ import annotations

import numpy as np

from mcsim import stats
from mcsim.games.base import Prepared
from mcsim.text import counted


def match_points(games) -> np.ndarray:
    """Match totals ``[n_matches, 2]`` per player (player k = seat k of the main game)."""
    if "match_points_0" in games:
        return games[["match_points_0", "match_points_1"]].to_numpy()
    s = games[["score_0", "score_1"]].to_numpy()
    n = (len(s) // 2) * 2
    a, b = s[0:n:2], s[1:n:2]
    # player A starts game 2j (seat 0) and sits in seat 1 in game 2j+1
    return np.stack([a[:, 0] + b[:, 1], a[:, 1] + b[:, 0]], axis=1)


def partial_summary(games, prep: Prepared) -> dict:
    """Additive sums over a chunk of games (merged across chunks by addition)."""
    mp = match_points(games)
    return {
        "n": len(games),
        "win_share": [float(games[f"win_share_{k}"].sum()) for k in range(2)],
        "decided_by_kingdoms": int(games["decided_by_kingdoms"].sum()),
        "captures": int((games["captures_0"].astype(np.int64) + games["captures_1"]).sum()),
        "manoeuvre_forts": [
            int(games[f"manoeuvre_forts_{k}"].astype(np.int64).sum()) for k in range(2)
        ],
        "kingdoms": [int(games[f"kingdoms_{k}"].astype(np.int64).sum()) for k in range(2)],
        "territory": [int(games[f"territory_{k}"].astype(np.int64).sum()) for k in range(2)],
        "matches": len(mp),
        "match_wins_a": float((mp[:, 0] > mp[:, 1]).sum() + 0.5 * (mp[:, 0] == mp[:, 1]).sum()),
        "match_draws": int((mp[:, 0] == mp[:, 1]).sum()),
    }


def finalize_summary(t: dict, prep: Prepared) -> dict:
    """The ``"sacred_hill"`` summary block from the summed partials.

    ``balance`` is seat 0's win rate minus seat 1's (the first-player advantage, -1..1);
    ``decided_by_territory`` the share of games with equal kingdoms (§3.5);
    ``captures_per_game`` the mean captures by both seats; ``manoeuvre_forts``, ``kingdoms``,
    ``territory`` means per seat; ``match_win_rate`` per player with Wilson 95% intervals
    (a drawn match counts 1/2), ``match_draw_rate`` and ``matches`` (§3.6).
    """
    n = t["n"]
    n_m = t["matches"]
    wins_a = t["match_wins_a"]
    return {
        "balance": (t["win_share"][0] - t["win_share"][1]) / n,
        "decided_by_territory": 1.0 - t["decided_by_kingdoms"] / n,
        "captures_per_game": t["captures"] / n,
        "manoeuvre_forts": [x / n for x in t["manoeuvre_forts"]],
        "kingdoms": [x / n for x in t["kingdoms"]],
        "territory": [x / n for x in t["territory"]],
        "match_win_rate": [stats.proportion(wins_a, n_m), stats.proportion(n_m - wins_a, n_m)]
        if n_m
        else [],
        "match_draw_rate": t["match_draws"] / n_m if n_m else None,
        "matches": n_m,
        "games": n,
    }


def summarize(games, prep: Prepared) -> dict:
    """The ``"sacred_hill"`` block of a whole per-game table (see ``finalize_summary``)."""
    return finalize_summary(partial_summary(games, prep), prep)


def format_summary(block: dict, summary: dict | None = None) -> str:
    """Readable lines for the ``"sacred_hill"`` block (``summary``: the whole summary)."""
    mixed = summary is not None and len(set(summary["policies"])) > 1
    label = (
        "seat balance (win rate seat 0 - seat 1; the seats' policies differ, so this mixes "
        "the seat and policy effects: see `mcsim tournament`)"
        if mixed
        else "first-player balance (win rate seat 0 - seat 1)"
    )
    lines = [
        f"{label}: {block['balance']:+.4f}",
        f"decided by territory: {block['decided_by_territory']:.1%}   "
        f"captures per game: {block['captures_per_game']:.2f}",
        "mean per seat (0 / 1): kingdoms {:.2f} / {:.2f}, territory {:.2f} / {:.2f}, "
        "Manoeuvre forts {:.2f} / {:.2f}".format(
            *block["kingdoms"], *block["territory"], *block["manoeuvre_forts"]
        ),
    ]
    if block["match_win_rate"]:
        a, b = block["match_win_rate"]
        if mixed:
            how = (
                f"{block['matches']:,} matches: each game plus a return game with the seats "
                f"swapped ({block['matches']:,} extra games played)"
            )
            who = summary["policies"]
        else:
            how = f"{counted(block['matches'], 'match', 'matches')}: games 2j and 2j+1, each player starting once"
            who = ["player starting game 2j", "the other"]
        lines.append(
            f"match win rate ({how}): {who[0]} {a['estimate']:.4f} "
            f"{stats.interval_text(a, '.4f')}, {who[1]} {b['estimate']:.4f}; "
            f"drawn {block['match_draw_rate']:.2%}"
        )
    return "\n".join(lines)
