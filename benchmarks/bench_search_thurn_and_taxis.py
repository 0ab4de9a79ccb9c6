"""The ``mcts`` policy in Thurn and Taxis: time per game, iterations per second,
the tree's cost against flat rollouts, and a curve of win rate against iterations.

* Game time: complete 3-player games by ``play_chunk`` (one process, one core, CPU time), one
  default ``mcts`` seat against two ``route`` seats, and three default ``mcts`` seats.
* Iterations per second: ``kernels.search.search`` (compiled for this game as
  ``kernels.thurn_and_taxis.tree_search``) at the default parameters on positions of
  real ``route`` games (decisions 30, 90, 150, 210 of four games, 3 players); "flat" is
  ``kernels.search.flat`` (``flat_search``) with the same iterations, determinizations and rollouts, no tree.
  flat / tree is the tree's cost (issue goal: at most 2x).
* ``--curve N``: win share of one ``mcts`` seat against two ``route`` seats at 10, 30, 100 and
  300 iterations, N games per seat rotation (3N games per point, common deals), written to
  ``benchmarks/tt_mcts_iterations.png``.
* ``--random N``: games per second of random 3-player play (one process, CPU time).

Usage::

    python benchmarks/bench_search_thurn_and_taxis.py [--games 20] [--curve 20] [--random 2000]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from kernels import thurn_and_taxis as K
from kernels.rng import new_state
from mcsim.games import thurn_and_taxis as G
from mcsim.runner import resolve_config

SEED = 1
HERE = Path(__file__).parent


def _prep(policies):
    _, cfg = resolve_config("thurn-and-taxis", len(policies), policies)
    return G.prepare(cfg)


def game_seconds(policies, n):
    """CPU seconds per complete game of ``policies`` (one process)."""
    prep = _prep(policies)
    G.play_chunk(prep, 10_000, 1, SEED)  # compile / load the cache
    t = time.process_time()
    out = G.play_chunk(prep, 0, n, SEED)
    return (time.process_time() - t) / n, out


def positions(n_games=4, plies=(30, 90, 150, 210)):
    prep = _prep(["route"] * 3)
    out = []
    for g in range(n_games):
        _, actions, deck, reshuffles = G.play_logged_game(prep, SEED, g)
        game = G.Game(3, deck, reshuffles=reshuffles)
        for k, a in enumerate(actions):
            if k in plies:
                out.append(game.st.copy())
            game.apply(a)
    return out


def iterations_per_second():
    prep = _prep(["mcts", "route", "route"])
    params = prep.policy_params[0]
    n_iter = int(params[K.P_MCTS_ITER])
    scr = K.search_scratch(prep.tables["tab"], prep.tables["var"], n_iter + 1)
    ctx0, work, tree, value, logs, moves, untried, mark, path, scores, reward = scr
    ctx0.rollout_params[:] = params[K.P_MCTS_BASE : K.P_MCTS_BASE + K.N_PARAMS]
    ctx = ctx0._replace(rollout_policy=np.int64(params[K.P_MCTS_ROLLOUT]))
    totals = np.zeros(K.MAX_ACTIONS)
    pos = positions()
    mode = np.int64(params[K.P_MCTS_REWARD])
    rows = []
    for name in ("tree", "flat"):
        for _rep in range(2):  # the first pass compiles
            t = time.process_time()
            for k, st in enumerate(pos):
                rng = new_state(1, k, 16)
                ctx.reshuffle_rng[:] = new_state(2, k, 16)
                n = int(st[K.S_NP])
                if name == "tree":
                    K.tree_search(
                        st,
                        ctx,
                        n_iter,
                        params[K.P_MCTS_C],
                        mode,
                        K.MARGIN_SCALE,
                        rng,
                        work,
                        tree,
                        value,
                        logs,
                        moves,
                        untried,
                        mark,
                        path,
                        scores[:n],
                        reward[:n],
                    )
                else:
                    K.flat_search(
                        st,
                        ctx,
                        n_iter,
                        mode,
                        K.MARGIN_SCALE,
                        rng,
                        work,
                        moves,
                        totals,
                        scores[:n],
                        reward[:n],
                    )
            dt = time.process_time() - t
        rows.append((name, len(pos) * n_iter / dt))
    return n_iter, len(pos), rows


def win_share(label, n):
    """Win share of ``label`` in seat s against two route seats, s = 0, 1, 2 (n games each,
    the same deals); returns (share, low, high) with a Wilson 95% interval over 3n games."""
    from mcsim import stats

    wins = []
    for s in range(3):
        pol = ["route"] * 3
        pol[s] = label
        prep = _prep(pol)
        out = G.play_chunk(prep, 0, n, SEED)
        wins.append(out["win_share"][:, s])
    w = np.concatenate(wins)
    lo, hi = stats.wilson_interval(float(w.sum()), len(w))
    return float(w.mean()), lo, hi


def curve(n, iters=(10, 30, 100, 300)):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pts = []
    for it in iters:
        share, lo, hi = win_share(f"mcts:iterations={it}", n)
        pts.append((it, share, lo, hi))
        print(f"  {it:5d} iterations: {share:.3f} [{lo:.3f}, {hi:.3f}] ({3 * n} games)")
    fig, ax = plt.subplots(figsize=(5, 3.2))
    x = [p[0] for p in pts]
    y = [p[1] for p in pts]
    err = [[p[1] - p[2] for p in pts], [p[3] - p[1] for p in pts]]
    ax.errorbar(x, y, yerr=err, marker="o", capsize=3)
    ax.axhline(1 / 3, ls=":", c="grey", label="equal share")
    ax.set_xscale("log")
    ax.set_xlabel("mcts iterations per decision")
    ax.set_ylabel("win share vs two route seats")
    ax.set_title(f"Thurn and Taxis, 3 players, {3 * n} games per point", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = HERE / "tt_mcts_iterations.png"
    fig.savefig(path, dpi=110)
    print(f"  wrote {path}")
    return pts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=20, help="games per game-time row")
    ap.add_argument("--curve", type=int, default=0, help="games per seat rotation and point")
    ap.add_argument("--random", type=int, default=0, help="random 3-player games to time")
    a = ap.parse_args()
    if a.random:
        sec, _ = game_seconds(["random"] * 3, a.random)
        print(f"random 3p: {1 / sec:,.0f} games/s ({a.random} games, 1 core, CPU time)")
    for pol in (["mcts", "route", "route"], ["mcts"] * 3):
        sec, out = game_seconds(pol, a.games)
        print(
            f"{'/'.join(pol)}: {sec:.3f} s per game ({a.games} games, 1 core, CPU time), "
            f"{1 / sec:.2f} games/s"
        )
    n_iter, n_pos, rows = iterations_per_second()
    tree = dict(rows)
    print(
        f"iterations/s at {n_iter} per decision, {n_pos} positions: tree {tree['tree']:,.0f}, "
        f"flat {tree['flat']:,.0f}, tree cost {tree['flat'] / tree['tree']:.2f}x"
    )
    if a.curve:
        curve(a.curve)


if __name__ == "__main__":
    main()
