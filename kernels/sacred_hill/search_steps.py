"""Sacred Hill's steps of ``kernels.search`` and the ``mcts`` policy built on them.

The state is the ``uint64[S_SIZE]`` array; the context is a ``SacredHillSearchContext``
(transition rule, zone masks uint64[64], rollout policy id, rollout weights
float64[N_HEURISTIC_PARAMS], int64[2] points scratch, and restricted play's searching seat and
its mask: that seat's moves are filtered by the mask in the tree (``legal``) and in the
rollouts, the other seat's never). Perfect information: nothing to determinize.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from kernels import search
from kernels.bitboard import lsb, popcount
from kernels.sacred_hill.layout import (
    _ONE,
    _ZERO,
    KIND_PASS,
    KIND_TERMINAL,
    MARGIN_SCALE,
    MAX_PLIES,
    MOVE_PASS,
    N_HEURISTIC_PARAMS,
    P_EPS,
    P_FORBID,
    P_MCTS_BASE,
    P_MCTS_C,
    P_MCTS_ITER,
    P_MCTS_REUSE,
    P_MCTS_REWARD,
    P_MCTS_ROLLOUT,
    P_MCTS_ROLLOUT_EPS,
    POLICY_MCTS,
    REUSE_CAPACITY,
    S_PLIES,
    S_SIZE,
    S_TO_MOVE,
)
from kernels.sacred_hill.policies import choose_move, restrict
from kernels.sacred_hill.rules import apply_move, legal_moves, score_final

#: the search context of Sacred Hill (``kernels.search.register``); ``forbid_seat`` (int64) and
#: ``forbid_mask`` (uint64, restricted play's ``FORBID_*`` bits) default to no restriction
SacredHillSearchContext = namedtuple(
    "SacredHillSearchContext",
    [
        "transition",
        "zone",
        "rollout_policy",
        "rollout_weights",
        "points",
        "forbid_seat",
        "forbid_mask",
    ],
    defaults=(np.int64(-1), np.uint64(0)),
)


@njit(cache=True)
def _search_copy(dst, src):
    for k in range(S_SIZE):
        dst[k] = src[k]


@njit(cache=True)
def _search_determinize(state, ctx, rng):
    pass


@njit(cache=True)
def _search_legal(state, ctx, moves):
    if state[S_PLIES] >= MAX_PLIES:
        return 0
    m, kind = legal_moves(state)
    if kind == KIND_TERMINAL:
        return 0
    if ctx.forbid_mask != _ZERO and np.int64(state[S_TO_MOVE]) == ctx.forbid_seat:
        m = restrict(state, m, kind, ctx.forbid_mask)[0]
    if kind == KIND_PASS:
        moves[0] = MOVE_PASS
        return 1
    n = 0
    while m != _ZERO:
        moves[n] = lsb(m)
        m &= m - _ONE
        n += 1
    return n


@njit(cache=True)
def _search_to_move(state, ctx):
    return np.int64(state[S_TO_MOVE])


@njit(cache=True)
def _search_apply(state, ctx, move):
    kind = legal_moves(state)[1]
    apply_move(state, move, kind, ctx.transition, ctx.zone)


@njit(cache=True)
def _search_rollout(state, ctx, rng, scores):
    transition, zone, rollout_policy, rollout_weights, points, forbid_seat, forbid_mask = ctx
    while state[S_PLIES] < MAX_PLIES:
        moves, kind = legal_moves(state)
        if kind == KIND_TERMINAL:
            break
        if forbid_mask != _ZERO and np.int64(state[S_TO_MOVE]) == forbid_seat:
            moves = restrict(state, moves, kind, forbid_mask)[0]
        mv = choose_move(state, moves, kind, rollout_policy, rollout_weights, rng, zone)
        apply_move(state, mv, kind, transition, zone)
    score_final(state, points)
    scores[0] = points[0]
    scores[1] = points[1]


search.register(
    SacredHillSearchContext,
    copy=lambda dst, src, ctx: _search_copy(dst, src),
    determinize=lambda state, ctx, rng: _search_determinize(state, ctx, rng),
    legal=lambda state, ctx, moves: _search_legal(state, ctx, moves),
    to_move=lambda state, ctx: _search_to_move(state, ctx),
    apply=lambda state, ctx, move: _search_apply(state, ctx, move),
    rollout=lambda state, ctx, rng, scores: _search_rollout(state, ctx, rng, scores),
)


#: the entries of the ``mcts`` scratch (``search_scratch``), in order
SCRATCH_FIELDS = (
    "work",
    "tree",
    "value",
    "logs",
    "moves",
    "untried",
    "mark",
    "path",
    "scores",
    "reward",
    "rollout_weights",
    "points",
    "trees",
    "values",
    "n_nodes",
    "root_ply",
    "played",
    "remap",
)


@njit(cache=True)
def search_scratch(capacity):
    """Scratch of ``choose_move_search`` for trees of ``capacity`` nodes (a tuple of arrays,
    ``SCRATCH_FIELDS``): work state, tree, value, logs (log k, filled here), moves, untried,
    mark, path, scores, reward, rollout weights, points; then tree reuse's: each seat's kept
    tree and values (``trees`` int64[2, capacity, TREE_COLS], ``values``), its node count
    ``n_nodes`` int64[2] (0: none kept) and the ply of its tree's root ``root_ply`` int64[2],
    the game's moves so far ``played`` int64[MAX_PLIES + 1] and ``reroot``'s ``remap``."""
    logs = np.zeros(capacity, np.float64)
    for k in range(1, capacity):
        logs[k] = np.log(np.float64(k))
    return (
        np.zeros(S_SIZE, np.uint64),
        np.zeros((capacity, search.TREE_COLS), np.int64),
        np.zeros(capacity, np.float64),
        logs,
        np.zeros(64, np.int64),
        np.zeros(64, np.int64),
        np.zeros(MOVE_PASS + 1, np.int64),
        np.zeros(MAX_PLIES + 2, np.int64),
        np.zeros(2, np.float64),
        np.zeros(2, np.float64),
        np.zeros(N_HEURISTIC_PARAMS, np.float64),
        np.zeros(2, np.int64),
        np.zeros((2, capacity, search.TREE_COLS), np.int64),
        np.zeros((2, capacity), np.float64),
        np.zeros(2, np.int64),
        np.full(2, -1, np.int64),
        np.zeros(MAX_PLIES + 1, np.int64),
        np.zeros(capacity, np.int64),
    )


@njit(cache=True)
def search_new_game(scratch):
    """Forget the seats' kept trees (a new game starts: decisions depend on the game only)."""
    n_nodes = scratch[14]
    root_ply = scratch[15]
    for p in range(2):
        n_nodes[p] = 0
        root_ply[p] = -1


@njit(cache=True)
def search_played(scratch, ply, move):
    """Note that ``move`` was played at ``ply`` (the line a reusing seat's tree descends)."""
    played = scratch[16]
    if ply < played.shape[0]:
        played[ply] = move


@njit(cache=True)
def search_capacity(policy_ids, policy_params):
    """Tree nodes needed by the ``mcts`` seats of a game (iterations + 1, ``REUSE_CAPACITY``
    times the iterations + 1 for a seat that reuses its tree; 2 if none)."""
    cap = 2
    for p in range(policy_ids.shape[0]):
        if policy_ids[p] == POLICY_MCTS:
            n = np.int64(policy_params[p, P_MCTS_ITER])
            if policy_params[p, P_MCTS_REUSE] != 0.0:
                n *= REUSE_CAPACITY
            cap = max(cap, n + 1)
    return cap


@njit(cache=True)
def choose_move_search(state, moves, kind, policy_id, params, rng, zone, transition, scratch):
    """``choose_move`` for every policy including ``POLICY_MCTS`` (UCT by ``kernels.search``
    with the parameters ``P_MCTS_*``; ``scratch`` from ``search_scratch``). Allocates nothing.

    ``moves`` are the seat's choices (restricted already by the caller); an ``mcts`` seat's
    restricted-play mask ``params[P_FORBID]`` filters its own moves inside the search too (tree
    and rollouts, ``SacredHillSearchContext``)."""
    if policy_id != POLICY_MCTS:
        return choose_move(state, moves, kind, policy_id, params, rng, zone)
    if kind == KIND_PASS:
        return MOVE_PASS
    if popcount(moves) == 1:
        return lsb(moves)
    (
        work,
        tree,
        value,
        logs,
        search_moves,
        untried,
        mark,
        path,
        scores,
        reward,
        rollout_weights,
        points,
        trees,
        values,
        n_nodes,
        root_ply,
        played,
        remap,
    ) = scratch
    for k in range(N_HEURISTIC_PARAMS):
        rollout_weights[k] = params[P_MCTS_BASE + k]
    rollout_weights[P_EPS] = params[P_MCTS_ROLLOUT_EPS]
    ctx = SacredHillSearchContext(
        transition,
        zone,
        np.int64(params[P_MCTS_ROLLOUT]),
        rollout_weights,
        points,
        np.int64(state[S_TO_MOVE]),
        np.uint64(params[P_FORBID]),
    )
    if params[P_MCTS_REUSE] == 0.0:
        return search.search(
            state,
            ctx,
            np.int64(params[P_MCTS_ITER]),
            params[P_MCTS_C],
            np.int64(params[P_MCTS_REWARD]),
            MARGIN_SCALE,
            rng,
            work,
            tree,
            value,
            logs,
            search_moves,
            untried,
            mark,
            path,
            scores,
            reward,
        )
    # tree reuse: descend the seat's kept tree along the plies played since its last root
    p = np.int64(state[S_TO_MOVE])
    ply = np.int64(state[S_PLIES])
    nn = n_nodes[p]
    tree_p = trees[p]
    value_p = values[p]
    if nn > 0 and 0 <= root_ply[p] < ply:
        node = 0
        for k in range(root_ply[p], ply):
            node = search.child_of(tree_p, node, played[k])
            if node < 0:
                break
        nn = search.reroot(tree_p, value_p, nn, node, remap) if node > 0 else 0
    else:
        nn = 0
    mv, nn = search.search_from(
        state,
        ctx,
        np.int64(params[P_MCTS_ITER]),
        params[P_MCTS_C],
        np.int64(params[P_MCTS_REWARD]),
        MARGIN_SCALE,
        rng,
        work,
        tree_p,
        value_p,
        logs,
        search_moves,
        untried,
        mark,
        path,
        scores,
        reward,
        nn,
    )
    n_nodes[p] = nn
    root_ply[p] = ply
    return mv
