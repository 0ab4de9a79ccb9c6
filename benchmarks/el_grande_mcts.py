"""El Grande ``mcts`` strength and seat effect: one policy in each seat in turn
against three others, common deals (the same seed and game indices for every rotation).

usage (from the repository root, with its venv):
    python benchmarks/el_grande_mcts.py strength GAMES [--policy mcts:...] [--vs heuristic]
        GAMES per rotation (4 rotations); prints the policy's win share over all games with
        its Wilson 95% interval and per seat, and the mean scores
    python benchmarks/el_grande_mcts.py seats GAMES POLICY
        GAMES games with POLICY in all four seats: win share per seat (seat effect)
    python benchmarks/el_grande_mcts.py speed GAMES
        CPU seconds per game (one process) of one default mcts seat against three heuristic
        seats, with the tree and with flat rollouts (``search.flat``: the same iterations,
        determinizations and rollouts, each iteration one root move in turn), and of a game
        with four mcts seats; iterations per second = searches x iterations / CPU time
    python benchmarks/el_grande_mcts.py plot RESULTS.jsonl OUT.png
        win share against iterations from ``strength`` lines (policy ``mcts:iterations=N``
        or ``mcts`` = the default), with the Wilson 95% intervals

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


def strength(games, policy, vs, players, seed, workers, chunk_size=None):
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
            chunk_size=chunk_size,
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


def _speed_run(games, seats, flat, seed):
    import kernels.el_grande as K
    from mcsim.games import el_grande as G

    T = G.build_tables()
    var = G.SPEC.variant_codes(G.SPEC.resolve_variant({}))
    hdef = np.array([p.default for p in G.HEURISTIC_PARAMS])
    npl = 4
    mp = np.tile([p.default for p in G.MCTS_PARAMS] + [float(flat)], (npl, 1))
    pp = np.tile(hdef, (npl, 1))
    cpu = 0.0
    searches = 0
    for g in range(games):
        ids = np.full(npl, K.POL_HEURISTIC)
        for k in seats(g):
            ids[k] = K.POL_MCTS
        t = time.process_time()
        r = K.play_mcts(
            np.int64(g), np.int64(1), np.uint64(seed), np.int64(npl), ids, pp, mp, hdef, var, T,
            np.zeros((4000, 4), np.int32), np.zeros(K.FIXED_SIZE, np.int32),
        )  # fmt: skip
        cpu += time.process_time() - t
        searches += int(r[11])
    it = mp[0, K.M_ITER]
    return {
        "games": games,
        "cpu_seconds_per_game": cpu / games,
        "games_per_second": games / cpu,
        "searches_per_game": searches / games,
        "iterations_per_second": searches * it / cpu,
    }


def speed(games, seed):
    one = lambda g: [g % 4]  # noqa: E731
    _speed_run(1, one, 0, seed + 1)  # compile / load the cache
    _speed_run(1, one, 1, seed + 1)
    tree = _speed_run(games, one, 0, seed)
    flat = _speed_run(games, one, 1, seed)
    four = _speed_run(max(1, games // 4), lambda g: [0, 1, 2, 3], 0, seed)
    return {
        "one_mcts_vs_three_heuristic_tree": tree,
        "one_mcts_vs_three_heuristic_flat": flat,
        "tree_cost_flat_over_tree_iterations_per_second": flat["iterations_per_second"]
        / tree["iterations_per_second"],
        "four_mcts": four,
    }


def plot(src, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mcsim.games import el_grande as G

    default = int(G.MCTS_PARAMS[0].default)
    rows = []
    with open(src) as f:
        for line in f:
            d = json.loads(line)
            it = default
            for part in d["policy"].partition(":")[2].split(","):
                if part.startswith("iterations="):
                    it = int(part.split("=")[1])
            rows.append((it, d["win_share"], d["wilson95"], d["games"]))
    rows.sort()
    x = [r[0] for r in rows]
    y = [r[1] for r in rows]
    err = [[r[1] - r[2][0] for r in rows], [r[2][1] - r[1] for r in rows]]
    fig, ax = plt.subplots(figsize=(5, 3.2), dpi=120)
    ax.errorbar(x, y, yerr=err, marker="o", capsize=3)
    ax.axhline(0.25, color="grey", lw=0.8, ls="--", label="equal share (25%)")
    ax.axhline(0.35, color="tab:red", lw=0.8, ls=":", label="goal (35%)")
    ax.set_xscale("log", base=2)
    ax.set_xticks(x, [str(v) for v in x])
    ax.set_xlabel("mcts iterations per searched decision")
    ax.set_ylabel("win share vs 3 heuristic")
    games = sorted({r[3] for r in rows})
    ax.set_title(f"El Grande, 4 players ({'/'.join(map(str, games))} games per point)")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["strength", "seats", "speed", "plot"])
    ap.add_argument("games")
    ap.add_argument("policy", nargs="?", default="mcts")
    ap.add_argument("--vs", default="heuristic")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--chunk-size", type=int, default=None)
    a = ap.parse_args()
    if a.what == "plot":
        plot(a.games, a.policy)
        return
    a.games = int(a.games)
    if a.what == "strength":
        out = strength(a.games, a.policy, a.vs, a.players, a.seed, a.workers, a.chunk_size)
    elif a.what == "speed":
        out = speed(a.games, a.seed)
    else:
        t0 = time.process_time()
        r = simulate(
            "el-grande",
            games=a.games,
            seed=a.seed,
            policies=[a.policy] * a.players,
            players=a.players,
            workers=a.workers,
            chunk_size=a.chunk_size,
        )
        ws = r.aggregate.win_share
        out = {
            "policy": a.policy,
            "games": a.games,
            "win_share_by_seat": [float(w) / a.games for w in ws],
            "cpu_seconds": time.process_time() - t0,
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
