"""Carcassonne ``mcts``: time per game, iterations per second, tree overhead, and a
small curve of win rate against iterations.

* Game time: complete 2-player games played by ``play_chunk`` (one process, one core, CPU
  time): default ``mcts`` against ``heuristic`` and ``mcts`` against ``mcts``.
* Iterations per second: ``kernels.search.search`` as ``kernels.carcassonne.mcts_move`` runs it
  at the default parameters on placement decisions taken from heuristic games (turns 5, 20, 35,
  50, 65 of four games, The Gifts off); "flat" is ``kernels.search.flat`` (``flat_move``): the
  same number of determinizations and rollouts, the root moves in turn, no tree. The ratio flat
  / tree iterations per second is the tree's cost (goal: at most 2x).
* ``--curve N``: win share of ``mcts:iterations=K`` against ``heuristic`` for K in 25, 100, 300,
  N deals each played in both seat orders (common deals), written to
  ``benchmarks/carcassonne_mcts_curve.png``.

Usage::

    python benchmarks/bench_search_carcassonne.py [--curve N]
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np

import kernels.carcassonne as K
from kernels.rng import new_state
from mcsim.games import carcassonne as G
from mcsim.games.carcassonne.records import record_to_arrays
from mcsim.games.carcassonne.show import state_after_turns
from mcsim.runner import resolve_config


def _decide(S, T, H, codes, cur, t, params, rng, scr, flat):
    """``K.mcts_move`` (``K.flat_move`` with ``flat``) at a placement decision."""
    choose = K.flat_move if flat else K.mcts_move
    return choose(S, T, codes, cur, K.PH_PLACE, t, params, rng, scr, heuristic_scratch=H)


def _prep(policies, variant=None):
    _, cfg = resolve_config("carcassonne", 2, policies, variant or {})
    return G.prepare(cfg)


def _game_seconds(policies, n):
    prep = _prep(policies)
    G.play_chunk(prep, 10_000, 1, 1)  # compile / load the cache
    t = time.process_time()
    G.play_chunk(prep, 0, n, 1)
    return (time.process_time() - t) / n


def _positions(n_games=4, turns=(5, 20, 35, 50, 65)):
    prep = _prep(["heuristic"])
    T = prep.tables["T"]
    out = []
    for g in range(n_games):
        rec = G.record_games(prep, 1, [g])[0]
        players, variant, tscript, gscript, rows = record_to_arrays(rec)
        codes = G.SPEC.variant_codes(variant)
        for k in turns:
            if k < len(rows):
                S = state_after_turns(players, codes, T, tscript, gscript, rows[:k])
                out.append((S, int(rows[k, K.L_PLAYER]), int(rows[k, K.L_TILE]), codes))
    return T, out


def bench_iterations():
    prep = _prep(["mcts"])
    params = prep.policy_params[0]
    n_iter = int(params[K.M_ITER])
    hdef = np.array([p.default for p in G.HEURISTIC_PARAMS], dtype=np.float64)
    scr = K.search_scratch(2, n_iter + 1, hdef)
    H = K.new_scratch()
    T, pos = _positions()
    rows = []
    for name in ("tree", "flat"):
        for _rep in range(2):  # the first pass compiles
            t = time.process_time()
            for k, (S, cur, tile, codes) in enumerate(pos):
                rng = new_state(1, k, 16)
                _decide(S, T, H, codes, cur, tile, params, rng, scr, name == "flat")
            dt = time.process_time() - t
        rows.append((name, len(pos) * n_iter / dt))
    return n_iter, len(pos), dict(rows)


def win_share(policy, deals, seed=1):
    """(win share of ``policy`` against heuristic, Wilson 95% interval, CPU s per game) over
    ``deals`` deals, each in both seat orders (ties count one half)."""
    wins = 0.0
    t = None
    for seat in (0, 1):
        pols = [policy, "heuristic"] if seat == 0 else ["heuristic", policy]
        prep = _prep(pols)
        if t is None:
            G.play_chunk(prep, 10_000, 1, seed)
            t = time.process_time()
        s = G.play_chunk(prep, 0, deals, seed)["score"]
        wins += (s[:, seat] > s[:, 1 - seat]).sum() + 0.5 * (s[:, seat] == s[:, 1 - seat]).sum()
    n = 2 * deals
    p = wins / n
    z = 1.96
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return p, (mid - half, mid + half), (time.process_time() - t) / n


def curve(deals, iterations=(25, 100, 300)):
    """Win share against iterations (printed as a table and drawn to a PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pts = []
    for k in iterations:
        p, (lo, hi), sec = win_share(f"mcts:iterations={k}", deals)
        print(f"| {k} | {2 * deals} | {p:.3f} [{lo:.3f}, {hi:.3f}] | {sec:.2f} |", flush=True)
        pts.append((k, p, lo, hi))
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ks = [q[0] for q in pts]
    ax.errorbar(
        ks,
        [q[1] for q in pts],
        yerr=[[q[1] - q[2] for q in pts], [q[3] - q[1] for q in pts]],
        marker="o",
        capsize=3,
    )
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_xlabel("mcts iterations per decision")
    ax.set_ylabel("win share against heuristic")
    ax.set_title(f"Carcassonne, 2 players ({2 * deals} games per point, 95% Wilson)")
    fig.tight_layout()
    out = Path(__file__).parent / "carcassonne_mcts_curve.png"
    fig.savefig(out, dpi=100)
    print("wrote", out)


def main():
    if "--curve" in sys.argv:
        curve(int(sys.argv[sys.argv.index("--curve") + 1]))
        return
    g1 = _game_seconds(["mcts", "heuristic"], 10)
    g2 = _game_seconds(["mcts", "mcts"], 6)
    print("| lineup (2 players, default mcts) | s per game (1 core, CPU time) | goal |")
    print("|---|---|---|")
    print(f"| mcts vs heuristic (10 games) | {g1:.2f} | <= 2 |")
    print(f"| mcts vs mcts (6 games) | {g2:.2f} | <= 2 |")
    n_iter, n_pos, d = bench_iterations()
    print()
    print("| iterations per decision | positions | tree iterations/s | flat iterations/s | cost |")
    print("|---|---|---|---|---|")
    print(
        f"| {n_iter:,} | {n_pos} | {d['tree']:,.0f} | {d['flat']:,.0f} | "
        f"{d['flat'] / d['tree']:.2f}x |",
        flush=True,
    )


if __name__ == "__main__":
    main()
