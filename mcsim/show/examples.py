"""Example games of a run, drawn with ``mcsim show`` beside a balance report.

Which games: the longest game (the game-length finding), a typical game (length closest to the
median; the headline numbers are about such games) and, with two or more seats, the most
one-sided game (largest winner margin; the score-distribution and seat-advantage findings).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd


def pick_examples(games: pd.DataFrame, players: int) -> list[dict]:
    """``[{"slug", "title", "game_index", "why"}]`` for the games of a run (one row per game,
    columns ``game_index``, ``length_plies``, ``score_<k>``); a game may be picked twice.

    >>> df = pd.DataFrame({"game_index": [0, 1, 2], "length_plies": [45, 50, 47],
    ...                    "score_0": [3, 0, 9], "score_1": [0, 2, 0]})
    >>> [(e["slug"], e["game_index"]) for e in pick_examples(df, 2)]
    [('longest', 1), ('typical', 2), ('one_sided', 2)]
    """
    if games is None or len(games) == 0:
        return []
    idx = games["game_index"].to_numpy()
    length = games["length_plies"].to_numpy()
    out = []
    k = int(np.argmax(length))
    out.append(
        {
            "slug": "longest",
            "game_index": int(idx[k]),
            "title": f"the longest game (game {int(idx[k])}, {int(length[k])} plies)",
            "why": "game length",
        }
    )
    med = float(np.median(length))
    k = int(np.argmin(np.abs(length - med)))
    out.append(
        {
            "slug": "typical",
            "game_index": int(idx[k]),
            "title": f"a typical game (game {int(idx[k])}, {int(length[k])} plies; median "
            f"length {med:g})",
            "why": "headline numbers",
        }
    )
    cols = [f"score_{s}" for s in range(players)]
    if players > 1 and all(c in games for c in cols):
        sc = np.sort(games[cols].to_numpy(dtype=float), axis=1)
        margin = sc[:, -1] - sc[:, -2]
        k = int(np.argmax(margin))
        out.append(
            {
                "slug": "one_sided",
                "game_index": int(idx[k]),
                "title": f"the most one-sided game (game {int(idx[k])}, winner ahead by "
                f"{margin[k]:g} points)",
                "why": "score distribution, seat advantage",
            }
        )
    return out


def write_examples(module, prep, seed: int, out: Path, games: pd.DataFrame) -> list[dict]:
    """Write ``show_<slug>_game<i>.html`` into ``out`` for each picked game (its record from the
    game's ``record_games`` with the run's ``prep`` and ``seed``); returns the picks with their
    ``file``."""
    from mcsim.show import show_html

    picks = pick_examples(games, prep.config.players)
    wanted = sorted({p["game_index"] for p in picks})
    recs = dict(zip(wanted, module.record_games(prep, int(seed), wanted)))
    written = {}
    for p in picks:
        gi = p["game_index"]
        if gi not in written:
            name = f"show_{p['slug']}_game{gi}.html"
            (Path(out) / name).write_text(show_html(module.SPEC.id, recs[gi]), encoding="utf-8")
            written[gi] = name
        p["file"] = written[gi]
    return picks
