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
from kernels.rng import randint
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
    P_MCTS_RAVE,
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


@njit(cache=True)
def _rollout_amaf(state, ctx, rng, scores, seen):
    """``_search_rollout`` that also marks the hills each seat builds on in ``seen``
    (uint64[2] bitboards, or-ed in; passes are not marked)."""
    transition, zone, rollout_policy, rollout_weights, points, forbid_seat, forbid_mask = ctx
    while state[S_PLIES] < MAX_PLIES:
        moves, kind = legal_moves(state)
        if kind == KIND_TERMINAL:
            break
        p = np.int64(state[S_TO_MOVE])
        if forbid_mask != _ZERO and p == forbid_seat:
            moves = restrict(state, moves, kind, forbid_mask)[0]
        mv = choose_move(state, moves, kind, rollout_policy, rollout_weights, rng, zone)
        if mv != MOVE_PASS:
            seen[p] |= _ONE << np.uint64(mv)
        apply_move(state, mv, kind, transition, zone)
    score_final(state, points)
    scores[0] = points[0]
    scores[1] = points[1]


#: the value of a move with neither visits nor all-moves-as-first samples (first-play urgency:
#: tried before any move whose values are known, as UCT tries every move once)
RAVE_FPU = 1.0


# One function on purpose, as ``kernels.search.search`` (its comment): the steps share the
# scratch arrays and the path.
@njit(cache=True)
def search_rave(
    root,
    ctx,
    n_iter,
    c,
    k_rave,
    mode,
    rng,
    work,
    tree,
    value,
    amaf_n,
    amaf_w,
    logs,
    moves,
    kid,
    mark,
    path,
    scores,
    reward,
    seen,
    n_nodes,
):
    """UCT with RAVE (Gelly and Silver 2011, "Monte-Carlo tree search and rapid action value
    estimation in computer Go"): Sacred Hill's ``mcts`` with ``rave=k > 0``.

    Every node keeps, besides its children's visits and rewards (``tree``, ``value`` as
    ``kernels.search``), the all-moves-as-first (AMAF) statistics of every move code
    (``amaf_n``, ``amaf_w``): after each iteration, a node on the path counts, for each hill
    its seat to move built on later in that iteration (in the tree or the rollout), one sample
    of that seat's reward. A legal move is valued ``(1 - b) q + b q_amaf + c sqrt(log N / n)``
    with ``b = sqrt(k / (3 n + k))`` (n its visits, N the node's visits; an unvisited move
    ``q_amaf + c sqrt(log N)``, ``RAVE_FPU`` without samples), over all legal moves, so the
    move expanded next is the best by AMAF rather than a random one; ties go to the first in a
    random rotation of the legal moves. The move returned is the root's most visited (ties:
    the higher mean). Passes (``MOVE_PASS``) are never AMAF samples. Perfect information: no
    determinization. ``n_nodes``: the nodes of a kept tree to continue (node 0 the node of
    ``root``, as ``kernels.search.search_from``), 0 for a fresh one; returns ``(move,
    n_nodes)``. ``logs[k]`` must hold log(k) for ``1 <= k < len(logs)``; ``kid``
    int64[MOVE_PASS + 1], ``seen`` uint64[2]; the other arguments as ``kernels.search.search``.
    """
    n = _search_legal(root, ctx, moves)
    if n <= 1:
        return (moves[0] if n == 1 else -1), n_nodes
    cap = tree.shape[0]
    n_logs = logs.shape[0]
    n_codes = amaf_n.shape[1]
    max_depth = path.shape[0] - 1
    for k in range(mark.shape[0]):
        mark[k] = -1
    if n_nodes <= 0:
        for k in range(search.TREE_COLS):
            tree[0, k] = 0
        tree[0, search.T_MOVE] = -1
        tree[0, search.T_SEAT] = -1
        tree[0, search.T_CHILD] = -1
        tree[0, search.T_SIBLING] = -1
        value[0] = 0.0
        for m in range(n_codes):
            amaf_n[0, m] = 0.0
            amaf_w[0, m] = 0.0
        n_nodes = 1
    stamp = 0
    for _ in range(n_iter):
        _search_copy(work, root)
        node = 0
        depth = 0
        path[0] = 0
        while depth < max_depth:
            n = _search_legal(work, ctx, moves)
            if n == 0:
                break
            stamp += 1
            for k in range(n):
                mark[moves[k]] = stamp
                kid[moves[k]] = -1
            ch = tree[node, search.T_CHILD]
            while ch >= 0:
                m = tree[ch, search.T_MOVE]
                if mark[m] == stamp:
                    kid[m] = ch
                ch = tree[ch, search.T_SIBLING]
            nn = tree[node, search.T_VISITS]
            lg = 0.0
            if nn > 0:
                lg = logs[nn] if nn < n_logs else np.log(np.float64(nn))
            best_m = -1
            best_u = -np.inf
            j = randint(rng, n) if n > 1 else 0
            for _k in range(n):
                m = moves[j]
                j += 1
                if j == n:
                    j = 0
                ch = kid[m]
                if ch < 0 and n_nodes >= cap:
                    continue  # the tree is full: only expanded moves
                na = amaf_n[node, m]
                qa = amaf_w[node, m] / na if na > 0.0 else RAVE_FPU
                if ch < 0 or tree[ch, search.T_VISITS] == 0:
                    u = qa + c * np.sqrt(lg)
                else:
                    nv = np.float64(tree[ch, search.T_VISITS])
                    q = value[ch] / nv
                    b = np.sqrt(k_rave / (3.0 * nv + k_rave)) if na > 0.0 else 0.0
                    u = (1.0 - b) * q + b * qa + c * np.sqrt(lg / nv)
                if u > best_u:
                    best_u = u
                    best_m = m
            if best_m < 0:
                break  # tree full and no expanded child legal here: roll out from this node
            ch = kid[best_m]
            if ch < 0:
                ch = n_nodes
                n_nodes += 1
                tree[ch, search.T_MOVE] = best_m
                tree[ch, search.T_SEAT] = np.int64(work[S_TO_MOVE])
                tree[ch, search.T_CHILD] = -1
                tree[ch, search.T_SIBLING] = tree[node, search.T_CHILD]
                tree[ch, search.T_VISITS] = 0
                tree[ch, search.T_AVAIL] = 0
                value[ch] = 0.0
                for m in range(n_codes):
                    amaf_n[ch, m] = 0.0
                    amaf_w[ch, m] = 0.0
                tree[node, search.T_CHILD] = ch
                _search_apply(work, ctx, best_m)
                depth += 1
                path[depth] = ch
                break
            _search_apply(work, ctx, best_m)
            depth += 1
            path[depth] = ch
            node = ch
        seen[0] = _ZERO
        seen[1] = _ZERO
        _rollout_amaf(work, ctx, rng, scores, seen)
        search.rewards(scores, mode, MARGIN_SCALE, reward)
        tree[0, search.T_VISITS] += 1
        for d in range(depth, 0, -1):
            nd = path[d]
            s = tree[nd, search.T_SEAT]
            m = tree[nd, search.T_MOVE]
            r = reward[s]
            tree[nd, search.T_VISITS] += 1
            value[nd] += r
            if m != MOVE_PASS:
                seen[s] |= _ONE << np.uint64(m)
            parent = path[d - 1]
            bits = seen[s]
            while bits != _ZERO:
                b = lsb(bits)
                bits &= bits - _ONE
                amaf_n[parent, b] += 1.0
                amaf_w[parent, b] += r
    best = -1
    best_n = -1
    best_q = -np.inf
    ch = tree[0, search.T_CHILD]
    while ch >= 0:
        nv = tree[ch, search.T_VISITS]
        q = value[ch] / nv if nv > 0 else -np.inf
        if nv > best_n or (nv == best_n and q > best_q):
            best = ch
            best_n = nv
            best_q = q
        ch = tree[ch, search.T_SIBLING]
    return tree[best, search.T_MOVE], n_nodes


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
    "amaf_n",
    "amaf_w",
    "kid",
    "seen",
)


@njit(cache=True)
def search_scratch(capacity):
    """Scratch of ``choose_move_search`` for trees of ``capacity = (plain, kept, amaf)`` nodes
    (``search_capacity``; a tuple of arrays,
    ``SCRATCH_FIELDS``): work state, tree, value, logs (log k, filled here), moves, untried,
    mark, path, scores, reward, rollout weights, points; then tree reuse's: each seat's kept
    tree and values (``trees`` int64[2, capacity, TREE_COLS], ``values``), its node count
    ``n_nodes`` int64[2] (0: none kept) and the ply of its tree's root ``root_ply`` int64[2],
    the game's moves so far ``played`` int64[MAX_PLIES + 1] and ``reroot``'s ``remap``; then
    RAVE's (``search_rave``): each seat's all-moves-as-first counts and reward sums per node
    and move ``amaf_n``, ``amaf_w`` float64[2, capacity, MOVE_PASS + 1], the child of each move ``kid``
    int64[MOVE_PASS + 1] and each seat's hills built in an iteration ``seen`` uint64[2]."""
    plain, kept, amaf = capacity
    n_logs = max(plain, kept)
    logs = np.zeros(n_logs, np.float64)
    for k in range(1, n_logs):
        logs[k] = np.log(np.float64(k))
    return (
        np.zeros(S_SIZE, np.uint64),
        np.zeros((plain, search.TREE_COLS), np.int64),
        np.zeros(plain, np.float64),
        logs,
        np.zeros(64, np.int64),
        np.zeros(64, np.int64),
        np.zeros(MOVE_PASS + 1, np.int64),
        np.zeros(MAX_PLIES + 2, np.int64),
        np.zeros(2, np.float64),
        np.zeros(2, np.float64),
        np.zeros(N_HEURISTIC_PARAMS, np.float64),
        np.zeros(2, np.int64),
        np.zeros((2, kept, search.TREE_COLS), np.int64),
        np.zeros((2, kept), np.float64),
        np.zeros(2, np.int64),
        np.full(2, -1, np.int64),
        np.zeros(MAX_PLIES + 1, np.int64),
        np.zeros(kept, np.int64),
        np.zeros((2, amaf, MOVE_PASS + 1), np.float64),
        np.zeros((2, amaf, MOVE_PASS + 1), np.float64),
        np.zeros(MOVE_PASS + 1, np.int64),
        np.zeros(2, np.uint64),
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
def seat_tree_capacity(params):
    """Tree nodes an ``mcts`` seat with parameter vector ``params`` searches in: iterations +
    1, ``REUSE_CAPACITY`` times the iterations + 1 for a seat that keeps its tree. A seat's
    search never sees more nodes than its own parameters ask for, so its play does not depend
    on the other seat's budget."""
    n = np.int64(params[P_MCTS_ITER])
    if params[P_MCTS_REUSE] != 0.0:
        n *= REUSE_CAPACITY
    return n + 1


@njit(cache=True)
def search_capacity(policy_ids, policy_params):
    """Tree nodes of the scratch for the ``mcts`` seats of a game, ``(plain, kept, amaf)``:
    ``plain`` for the seats that search a fresh tree by plain UCT, ``kept`` for each seat's own
    tree of RAVE or tree reuse, ``amaf`` for RAVE's rows per node (``seat_tree_capacity`` of
    the seats concerned; 2 for the plain tree and 1 for the others where no seat needs one, so
    that, for example, ``mcts1`` allocates no RAVE rows)."""
    plain = 2
    kept = 1
    amaf = 1
    for p in range(policy_ids.shape[0]):
        if policy_ids[p] == POLICY_MCTS:
            params = policy_params[p]
            cap = seat_tree_capacity(params)
            if params[P_MCTS_REUSE] == 0.0 and params[P_MCTS_RAVE] == 0.0:
                plain = max(plain, cap)
            else:
                kept = max(kept, cap)
                if params[P_MCTS_RAVE] > 0.0:
                    amaf = max(amaf, cap)
    return plain, kept, amaf


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
        amaf_n,
        amaf_w,
        kid,
        seen,
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
    if params[P_MCTS_REUSE] == 0.0 and params[P_MCTS_RAVE] == 0.0:
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
    rave = params[P_MCTS_RAVE] > 0.0
    nn = n_nodes[p] if params[P_MCTS_REUSE] != 0.0 else 0
    cap = seat_tree_capacity(params)  # this seat's own nodes, whatever the scratch holds
    tree_p = trees[p][:cap]
    value_p = values[p][:cap]
    if nn > 0 and 0 <= root_ply[p] < ply:
        node = 0
        for k in range(root_ply[p], ply):
            node = search.child_of(tree_p, node, played[k])
            if node < 0:
                break
        if node > 0:
            old_n = nn
            nn = search.reroot(tree_p, value_p, nn, node, remap)
            if rave:  # the nodes' AMAF rows move as reroot moved them (never up)
                an = amaf_n[p][:cap]
                aw = amaf_w[p][:cap]
                for k in range(node, old_n):
                    j = remap[k]
                    if j >= 0:
                        for m in range(an.shape[1]):
                            an[j, m] = an[k, m]
                            aw[j, m] = aw[k, m]
        else:
            nn = 0
    else:
        nn = 0
    if rave:
        mv, nn = search_rave(
            state,
            ctx,
            np.int64(params[P_MCTS_ITER]),
            params[P_MCTS_C],
            params[P_MCTS_RAVE],
            np.int64(params[P_MCTS_REWARD]),
            rng,
            work,
            tree_p,
            value_p,
            amaf_n[p][:cap],
            amaf_w[p][:cap],
            logs,
            search_moves,
            kid,
            mark,
            path,
            scores,
            reward,
            seen,
            nn,
        )
        n_nodes[p] = nn
        root_ply[p] = ply
        return mv
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
