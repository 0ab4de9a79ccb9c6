"""The ``mcts`` policy: time per game, iterations per second, tree overhead.

* Game time: complete games played by ``play_chunk`` (one process, one core, CPU time):
  Sacred Hill between two default ``mcts`` players, Don Quixote solo at the default.
* Iterations per second: ``kernels.search.search`` on positions taken from real games (Sacred
  Hill: plies 4, 14, 24, 34 of tactician games; Don Quixote: placements 0, 5, 10, 15, 19 of
  heuristic games), at the default iterations, parameters and rollout policy.
* Flat: ``kernels.search.flat``, the same number of iterations with the same determinizations
  and rollouts but no tree (each iteration plays one root move in turn and rolls out). The
  ratio flat / tree iterations per second is the tree's cost (issue goal: at most 2x).

Usage::

    python benchmarks/bench_search.py
"""

from __future__ import annotations

import time

import numpy as np

import kernels.don_quixote as DK
import kernels.sacred_hill as SK
from kernels import search
from kernels.rng import new_state
from mcsim.games import don_quixote as DQ
from mcsim.games import sacred_hill as SH
from mcsim.runner import resolve_config


def _game_seconds(game, policies, players, n):
    module = SH if game == "sacred-hill" else DQ
    _, cfg = resolve_config(game, players, policies)
    prep = module.prepare(cfg)
    module.play_chunk(prep, 10_000, 1, 1)  # compile / load the cache
    t = time.process_time()
    module.play_chunk(prep, 0, n, 1)
    return (time.process_time() - t) / n


def _sh_positions(n_games=5, plies=(4, 14, 24, 34)):
    _, cfg = resolve_config("sacred-hill", 2, ["tactician"])
    prep = SH.prepare(cfg)
    out = []
    for g in range(n_games):
        rec = SH.record_games(prep, 1, [g])[0]["moves"]
        for k in plies:
            if k < len(rec):
                st = np.zeros(SK.S_SIZE, np.uint64)
                for m in rec[:k]:
                    SH.play(st, m)
                out.append(st)
    return out


def bench_sacred_hill():
    _, cfg = resolve_config("sacred-hill", 2, ["mcts"])
    params = SH.prepare(cfg).policy_params[0]
    n_iter = int(params[SK.P_MCTS_ITER])
    scr = SK.search_scratch(n_iter + 1)
    work, tree, value, logs, mv, untried, mark, path, scores, reward, base_w, pts = scr
    base_w[:] = params[SK.P_MCTS_BASE : SK.P_MCTS_BASE + SK.N_HEURISTIC_PARAMS]
    base_w[SK.P_EPS] = params[SK.P_MCTS_ROLLOUT_EPS]
    ctx = SK.search_steps.SacredHillSearchContext(
        SK.TRANSITION_BOX, SK.BB_ZONE_KNIGHT12, np.int64(params[SK.P_MCTS_ROLLOUT]), base_w, pts
    )
    totals = np.zeros(64)
    pos = _sh_positions()
    rows = []
    for name, fn in (("tree", "search"), ("flat", "flat")):
        for _rep in range(2):  # the first pass compiles
            t = time.process_time()
            for k, st in enumerate(pos):
                rng = new_state(1, k, 16)
                if fn == "search":
                    search.search(
                        st,
                        ctx,
                        n_iter,
                        params[SK.P_MCTS_C],
                        0,
                        SK.MARGIN_SCALE,
                        rng,
                        work,
                        tree,
                        value,
                        logs,
                        mv,
                        untried,
                        mark,
                        path,
                        scores,
                        reward,
                    )
                else:
                    search.flat(
                        st, ctx, n_iter, 0, SK.MARGIN_SCALE, rng, work, mv, totals, scores, reward
                    )
            dt = time.process_time() - t
        rows.append((name, len(pos) * n_iter / dt))
    return n_iter, len(pos), rows


def bench_don_quixote():
    _, cfg = resolve_config("don-quixote", 1, ["mcts"])
    prep = DQ.prepare(cfg)
    params = prep.policy_params[0]
    tiles = prep.tables["tiles"]
    n_iter = int(params[DK.M_ITER])
    scr = DK.search_scratch(tiles, n_iter + 1)
    (
        root,
        work,
        tree,
        value,
        logs,
        mv,
        untried,
        mark,
        path,
        scores,
        reward,
        w,
        log,
        saved,
        open_ws,
        nobd,
        moves2,
    ) = scr
    ctx = DK.search_steps.DonQuixoteSearchContext(
        tiles,
        False,
        np.int64(params[DK.M_ROLLOUT]),
        w,
        log,
        saved,
        open_ws,
        nobd,
        moves2,
        np.zeros(DK.restrict.RS_WIDTH, np.int64),
    )
    n_land = tiles.shape[0] - 2
    roots = []
    for g in range(4):
        castles = np.zeros(2, np.int64)
        cells = np.zeros(DK.N_PLACE, np.int64)
        seq = np.zeros((1, n_land), np.int64)
        last_rot = np.zeros(1, np.int64)
        DK.deal(np.uint64(1), g, 1, n_land, castles, cells, seq, last_rot)
        S = DK.setup_estate(tiles, castles)
        hand = np.full(16, -1, np.int64)
        nh = 0
        bank = 0
        lg = np.zeros(DK.LOGN, np.int64)
        for pos in range(20):
            nh = DK.reveal(hand, nh, seq[0], pos)
            if pos in (0, 5, 10, 15, 19):
                r = np.zeros((8, DK.N_NODES), np.int64)
                DK.search_root(S, tiles, cells, seq[0], pos, hand, nh, bank, 3, False, r)
                roots.append(r)
            t = hand[0]
            hand[0] = hand[nh - 1]
            nh -= 1
            DK.place(S, tiles, cells[pos], t, 0, lg)
            rnd = DK.round_of(pos)
            if pos == DK.ROUND_END[rnd - 1]:
                bank += DK.score_round(S, rnd)
    totals = np.zeros(32)
    rows = []
    for name in ("tree", "flat"):
        for _rep in range(2):
            t = time.process_time()
            for k, r in enumerate(roots):
                rng = new_state(1, k, 16)
                if name == "tree":
                    search.search(
                        r,
                        ctx,
                        n_iter,
                        params[DK.M_C],
                        search.REWARD_MARGIN,
                        DK.SEARCH_SCALE,
                        rng,
                        work,
                        tree,
                        value,
                        logs,
                        mv,
                        untried,
                        mark,
                        path,
                        scores,
                        reward,
                    )
                else:
                    search.flat(
                        r,
                        ctx,
                        n_iter,
                        search.REWARD_MARGIN,
                        DK.SEARCH_SCALE,
                        rng,
                        work,
                        mv,
                        totals,
                        scores,
                        reward,
                    )
            dt = time.process_time() - t
        rows.append((name, len(roots) * n_iter / dt))
    return n_iter, len(roots), rows


def main():
    sh_game = _game_seconds("sacred-hill", ["mcts"], 2, 60)
    dq_game = _game_seconds("don-quixote", ["mcts"], 1, 30)
    print("| game | complete game, default mcts (s, 1 core, CPU time) | issue goal |")
    print("|---|---|---|")
    print(f"| sacred-hill, mcts vs mcts (60 games) | {sh_game:.4f} | <= 0.1 |")
    print(f"| don-quixote, solo (30 games) | {dq_game:.3f} | <= 0.5 |")
    print()
    print(
        "| game | iterations per decision | positions | tree iterations/s | flat iterations/s "
        "| tree cost (flat / tree) |"
    )
    print("|---|---|---|---|---|---|")
    for game, fn in (("sacred-hill", bench_sacred_hill), ("don-quixote", bench_don_quixote)):
        n_iter, n_pos, rows = fn()
        d = dict(rows)
        print(
            f"| {game} | {n_iter:,} | {n_pos} | {d['tree']:,.0f} | {d['flat']:,.0f} | "
            f"{d['flat'] / d['tree']:.2f}x |",
            flush=True,
        )


if __name__ == "__main__":
    main()
