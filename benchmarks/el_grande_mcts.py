"""El Grande ``mcts`` strength and seat effect (issue 15 §2): one policy in each seat in turn
against three others, common deals (the same seed and game indices for every rotation).

usage (from the repository root, with its venv):
    python benchmarks/el_grande_mcts.py strength GAMES [--policy mcts:...] [--vs heuristic]
        GAMES per rotation (4 rotations); prints the policy's win share over all games with
        its Wilson 95% interval and per seat, and the mean scores
    python benchmarks/el_grande_mcts.py seats GAMES POLICY
        GAMES games with POLICY in all four seats: win share per seat (seat effect)

Results are printed as JSON lines; nothing is asserted (speed and strength are measured here,
see benchmarks/RESULTS.md, Search, El Grande).
"""

import argparse
import json
import time

import numpy as np

from mcsim import simulate, stats

SEED = 20261130


def wilson(k, n):
    lo, hi = stats.wilson_interval(k, n)
    return float(lo), float(hi)


def strength(games, policy, vs, players, seed, workers):
    shares = []
    per_seat = []
    scores = []
    t0 = time.process_time()
    w0 = time.time()
    for seat in range(players):
        pols = [vs] * players
        pols[seat] = policy
        r = simulate(
            "el-grande",
            games=games,
            seed=seed,
            policies=pols,
            players=players,
            workers=workers,
            keep_games=True,
        )
        g = r.games
        share = g[f"win_share_{seat}"].to_numpy()
        sc = g[f"score_{seat}"].to_numpy()
        shares.append(share)
        per_seat.append(float(share.mean()))
        scores.append(float(sc.mean()))
    allw = np.concatenate(shares)
    n = allw.size
    lo, hi = wilson(float(allw.sum()), n)
    return {
        "policy": policy,
        "vs": vs,
        "games": int(n),
        "win_share": float(allw.mean()),
        "wilson95": [lo, hi],
        "win_share_by_seat": per_seat,
        "mean_score_by_seat": scores,
        "cpu_seconds": time.process_time() - t0,
        "wall_seconds": time.time() - w0,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["strength", "seats"])
    ap.add_argument("games", type=int)
    ap.add_argument("policy", nargs="?", default="mcts")
    ap.add_argument("--vs", default="heuristic")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--workers", type=int, default=1)
    a = ap.parse_args()
    if a.what == "strength":
        out = strength(a.games, a.policy, a.vs, a.players, a.seed, a.workers)
    else:
        t0 = time.process_time()
        r = simulate(
            "el-grande",
            games=a.games,
            seed=a.seed,
            policies=[a.policy] * a.players,
            players=a.players,
            workers=a.workers,
        )
        ws = r.aggregate.win_share
        out = {
            "policy": a.policy,
            "games": a.games,
            "win_share_by_seat": [float(w) for w in ws],
            "cpu_seconds": time.process_time() - t0,
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
