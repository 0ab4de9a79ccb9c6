"""Don Quixote: how much of the oracle's lead is information and how much is planning?

A diagnostic, not a policy: ``mcts`` (the project's search, ``choose_mcts``'s code with its
default parameters) whose determinizations are partly or wholly the true future. Mode 0
samples what the player has not seen (exactly ``mcts``: the script reproduces ``mcsim evaluate
-p mcts`` deal by deal, checked below); mode 1 puts the true order of the position cards into
every determinization (the tiles still sampled); mode 2 the true order of the unrevealed tiles
(the cells still sampled); mode 3 both: every iteration searches the real future, so the
search plans with the oracle's knowledge and only its planning differs from the oracle's.

    python benchmarks/dq_peek_mcts.py -n 100 --seed 4 --modes 0 1 2 3

The deals are those of ``mcsim evaluate`` (``kernels.don_quixote.rules.deal``), the seat's
policy stream ``STREAM_POLICY`` as ``_play_games`` uses it for seat 0.
"""

import argparse
import time
from collections import namedtuple

import numpy as np
from numba import njit

import kernels.search as search
from kernels.don_quixote.layout import (
    HAND_SLOTS,
    M_C,
    M_ITER,
    M_ROLLOUT,
    M_WEIGHTS,
    N_HEUR,
    N_PLACE,
    ROT_BOTH,
    ROUND_END,
    SC,
    SC_FCELLS,
    SC_POS,
    SC_SEQ,
    SEARCH_SCALE,
)
from kernels.don_quixote.rules import (
    deal,
    n_revealed,
    place,
    reveal,
    round_of,
    score_round,
    setup_estate,
)
from kernels.don_quixote.search_steps import (
    DonQuixoteSearchContext,
    _search_apply,
    _search_copy,
    _search_determinize,
    _search_legal,
    _search_rollout,
    _search_to_move,
    search_root,
    search_scratch,
)
from kernels.rng import STREAM_POLICY, new_state

PeekContext = namedtuple(
    "PeekContext", DonQuixoteSearchContext._fields + ("true_cells", "true_seq", "mode")
)


@njit(cache=True)
def _peek_determinize(state, ctx, rng):
    """``_search_determinize`` (the same draws, so mode 0 is ``mcts``), then the true future
    written over the sampled one: the cells (mode bit 1) and / or the unrevealed tiles (bit 2)."""
    _search_determinize(state, _base(ctx), rng)
    pos = state[SC, SC_POS]
    if pos >= N_PLACE - 1:
        return
    if ctx.mode & 1:
        for j in range(pos + 1, N_PLACE):
            state[SC, SC_FCELLS + j] = ctx.true_cells[j]
    if ctx.mode & 2:
        n_land = ctx.true_seq.shape[0]
        for j in range(n_revealed(pos), n_land):
            state[SC, SC_SEQ + j] = ctx.true_seq[j]


@njit(cache=True)
def _base(ctx):
    """The ``DonQuixoteSearchContext`` inside a ``PeekContext`` (its first ten fields)."""
    return DonQuixoteSearchContext(
        ctx[0], ctx[1], ctx[2], ctx[3], ctx[4], ctx[5], ctx[6], ctx[7], ctx[8], ctx[9]
    )


search.register(
    PeekContext,
    copy=lambda dst, src, ctx: _search_copy(dst, src),
    determinize=lambda state, ctx, rng: _peek_determinize(state, ctx, rng),
    legal=lambda state, ctx, moves: _search_legal(state, _base(ctx), moves),
    to_move=lambda state, ctx: _search_to_move(state, _base(ctx)),
    apply=lambda state, ctx, move: _search_apply(state, _base(ctx), move),
    rollout=lambda state, ctx, rng, scores: _search_rollout(state, _base(ctx), rng, scores),
)


@njit(cache=True)
def _choose(params, state, tables, cells, seq, pos, hand, nh, bank, rng, scratch, mode):
    """``choose_mcts`` with a ``PeekContext`` (unrestricted, variant last_tile_rotation=free)."""
    (root, work, tree, value, logs, mv, untried, mark, path, scores, reward, weights, log,
     saved, open_ends, no_breakdown, rollout_moves) = scratch  # fmt: skip
    search_root(state, tables, cells, seq, pos, hand, nh, bank, ROT_BOTH, False, root)
    for k in range(N_HEUR):
        weights[k] = params[M_WEIGHTS + k]
    ctx = PeekContext(
        tables, False, np.int64(params[M_ROLLOUT]), weights, log, saved, open_ends,
        no_breakdown, rollout_moves, None, cells, seq, mode,
    )  # fmt: skip
    move = search.search(
        root, ctx, np.int64(params[M_ITER]), params[M_C], search.REWARD_MARGIN, SEARCH_SCALE,
        rng, work, tree, value, logs, mv, untried, mark, path, scores, reward,
    )  # fmt: skip
    n_tiles = tables.shape[0]
    t = (move >> 1) % n_tiles
    i = 0
    while hand[i] != t:
        i += 1
    return i, move & 1


@njit(cache=True)
def play(root_seed, first, n, tables, params, mode, out, out_s):
    """Games ``first .. first + n - 1`` of ``root_seed`` (one seat); ``out[g]`` the total,
    ``out_s[g, r]`` the points of scoring r + 1."""
    n_land = tables.shape[0] - 2
    castles = np.empty(2, dtype=np.int64)
    cells = np.empty(N_PLACE, dtype=np.int64)
    seq = np.empty((1, n_land), dtype=np.int64)
    last_rot = np.empty(1, dtype=np.int64)
    hand = np.empty(HAND_SLOTS, dtype=np.int64)
    log = np.zeros(65, dtype=np.int64)
    scratch = search_scratch(tables, np.int64(params[M_ITER]) + 1)
    for g in range(n):
        gi = first + g
        deal(root_seed, gi, 1, n_land, castles, cells, seq, last_rot)
        state = setup_estate(tables, castles)
        rng = new_state(root_seed, gi, STREAM_POLICY)
        nh = np.int64(0)
        total = np.int64(0)
        for pos in range(N_PLACE):
            nh = reveal(hand, nh, seq[0], pos)
            rnd = round_of(pos)
            i, o = _choose(params, state, tables, cells, seq[0], pos, hand, nh, total, rng,
                           scratch, mode)  # fmt: skip
            t = hand[i]
            hand[i] = hand[nh - 1]
            nh -= 1
            place(state, tables, cells[pos], t, o, log)
            if pos == ROUND_END[rnd - 1]:
                s = score_round(state, rnd)
                out_s[g, rnd - 1] = s
                total += s
        out[g] = total


def main():
    from mcsim.games import get_game
    from mcsim.runner import resolve_config

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--modes", type=int, nargs="+", default=[0, 1, 2, 3])
    ap.add_argument("--check", action="store_true", help="mode 0 against mcsim evaluate's mcts")
    a = ap.parse_args()
    module = get_game("don-quixote")
    _, cfg = resolve_config("don-quixote", 1, ["mcts"], None, None)
    prep = module.prepare(cfg)
    tables = prep.tables["tiles"]
    params = prep.policy_params[0].astype(np.float64)
    names = {0: "mcts (sampled future)", 1: "true cell order", 2: "true tile order",
             3: "true future (both)"}  # fmt: skip
    res = {}
    for m in a.modes:
        out = np.zeros(a.n, dtype=np.int64)
        out_s = np.zeros((a.n, 3), dtype=np.int64)
        play(a.seed, 0, 1, tables, params, np.int64(m), out[:1], out_s[:1])  # compile
        t0 = time.process_time()
        play(a.seed, 0, a.n, tables, params, np.int64(m), out, out_s)
        cpu = time.process_time() - t0
        res[m] = out
        x = out.astype(float)
        h = 1.96 * x.std(ddof=1) / np.sqrt(a.n)
        s = out_s.mean(0)
        print(f"mode {m} {names[m]:<22} {x.mean():6.2f} [{x.mean() - h:.2f}, {x.mean() + h:.2f}]"
              f"  scorings {s[0]:.2f} / {s[1]:.2f} / {s[2]:.2f}  {cpu / a.n:.2f} CPU s/game",
              flush=True)  # fmt: skip
        if m != 0 and 0 in res:
            d = x - res[0].astype(float)
            hd = 1.96 * d.std(ddof=1) / np.sqrt(a.n)
            print(f"       minus mode 0, paired: {d.mean():+.2f} [{d.mean() - hd:+.2f}, "
                  f"{d.mean() + hd:+.2f}]", flush=True)  # fmt: skip
    if a.check and 0 in res:
        import mcsim

        r = mcsim.simulate("don-quixote", games=a.n, seed=a.seed, policies=["mcts"], workers=1)
        same = np.array_equal(r.games["score_0"].to_numpy(), res[0])
        print(f"mode 0 equals mcsim simulate -p mcts deal by deal: {same}")


if __name__ == "__main__":
    main()
