"""Monte Carlo tree search, written once and compiled against each game's step functions.

UCT (Kocsis and Szepesvari 2006) with information-set MCTS over determinizations (SO-ISMCTS,
Cowling, Powley and Whitehouse 2012): each iteration copies the root state, lets the game
resample what the deciding seat cannot see (``game_determinize``), descends the tree by UCB1
over the children whose move is legal in that determinization, expands one untried legal move,
finishes the game with the game's base policy (``game_rollout``) and backs up the reward of
each seat into the nodes it chose. With perfect information (nothing to resample) this is plain
UCT with one expansion per iteration.

Game interface
--------------
A game kernel registers its step functions with ``register(context_type, **impls)`` at import;
the search calls them through the stubs below, which Numba resolves by the type of ``ctx``: a
``collections.namedtuple`` class that belongs to one game (``SacredHillSearchContext``, ...),
so no two games can be confused whatever their state arrays look like, and ``register``
refuses a class that is already registered. So ``search`` is one function, specialised per game
by the compiler, and caches like any other kernel. The step functions (all ``@njit``):

``game_copy(dst, src, ctx)``
    Copy a state into another of the same shape.
``game_determinize(state, ctx, rng)``
    Replace, in place, everything the seat to move at the root cannot see by a sample
    consistent with what it has seen (no-op with perfect information). Must not read the hidden
    values it replaces.
``game_legal(state, ctx, moves) -> int``
    Write the legal moves (int64 codes in ``0 .. len(mark) - 1``) into ``moves``; return their
    count, 0 when the game is over.
``game_to_move(state, ctx) -> int``  seat to move (0 .. n_seats - 1).
``game_apply(state, ctx, move)``  play a legal move.
``game_rollout(state, ctx, rng, scores)``
    Finish the game with the base policy; write the final points of each seat into
    ``scores`` (float64[n_seats]).

``ctx`` is the game's search context: an instance of its registered namedtuple class holding
its tables and scratch arrays, passed through unchanged.

Tree layout
-----------
``tree`` int64[capacity, TREE_COLS] (columns ``T_*``) and ``value`` float64[capacity]: node 0
is the root; the children of a node form a linked list (``T_CHILD`` first, ``T_SIBLING`` next).
``value[n]`` sums the rewards of the seat that chose node n's move (``T_SEAT``), ``T_VISITS``
counts the iterations through n and ``T_AVAIL`` the visits of its parent in which n's move was
legal (ISMCTS availability; equal to the parent's visits with perfect information).
All arrays are preallocated by the caller: nothing is allocated per iteration.
"""

import numpy as np
from numba import njit, types
from numba.extending import overload

from kernels.rng import randint

T_MOVE, T_SEAT, T_CHILD, T_SIBLING, T_VISITS, T_AVAIL = range(6)
TREE_COLS = 6

#: reward of a finished playout, per seat: ``REWARD_WIN`` the win share (seats with the top
#: score share 1 equally), ``REWARD_MARGIN`` (own points - best other seat's points) / scale,
#: ``REWARD_POINTS`` own points / scale (each seat maximises its own score, "max-n"); with one
#: seat all three are the seat's points / scale.
REWARD_WIN = 0
REWARD_MARGIN = 1
REWARD_POINTS = 2

#: registered games: search context class -> step functions
_GAMES: dict = {}
STEP_NAMES = ("copy", "determinize", "legal", "to_move", "apply", "rollout")


def register(context_type, **impls):
    """Register a game's step functions (``copy, determinize, legal, to_move, apply,
    rollout``; see the module docstring) for the search context class ``context_type``.

    ``context_type`` must be a ``collections.namedtuple`` class used by this game only: the
    search picks a game's steps by the type of ``ctx``. Raises ``TypeError`` for another kind of
    class, ``ValueError`` when the class is already registered (two games would share one
    match) or the step names are not exactly the six.
    """
    if not (
        isinstance(context_type, type)
        and issubclass(context_type, tuple)
        and hasattr(context_type, "_fields")
    ):
        raise TypeError(
            f"search.register needs a namedtuple class as the context type, not {context_type!r}"
        )
    if set(impls) != set(STEP_NAMES):
        raise ValueError(f"search.register needs exactly {sorted(STEP_NAMES)}")
    if context_type in _GAMES:
        raise ValueError(
            f"search.register: {context_type.__module__}.{context_type.__name__} is registered "
            "already; each game needs a context class of its own"
        )
    _GAMES[context_type] = dict(impls)


def steps_for(context_type) -> dict:
    """The step functions registered for ``context_type`` (``{name: function}``), callable
    from Python too (the kernel test battery plays through them). Raises ``KeyError`` for an
    unregistered class."""
    return _GAMES[context_type]


def _impl(ctx, name):
    if isinstance(ctx, types.BaseNamedTuple):
        impls = _GAMES.get(ctx.instance_class)
        if impls is not None:
            return impls[name]
    return None


def game_copy(dst, src, ctx):
    """Stub resolved per game (see the module docstring)."""
    raise NotImplementedError


def game_determinize(state, ctx, rng):
    """Stub resolved per game (see the module docstring)."""
    raise NotImplementedError


def game_legal(state, ctx, moves):
    """Stub resolved per game (see the module docstring)."""
    raise NotImplementedError


def game_to_move(state, ctx):
    """Stub resolved per game (see the module docstring)."""
    raise NotImplementedError


def game_apply(state, ctx, move):
    """Stub resolved per game (see the module docstring)."""
    raise NotImplementedError


def game_rollout(state, ctx, rng, scores):
    """Stub resolved per game (see the module docstring)."""
    raise NotImplementedError


@overload(game_copy)
def _ol_copy(dst, src, ctx):
    return _impl(ctx, "copy")


@overload(game_determinize)
def _ol_determinize(state, ctx, rng):
    return _impl(ctx, "determinize")


@overload(game_legal)
def _ol_legal(state, ctx, moves):
    return _impl(ctx, "legal")


@overload(game_to_move)
def _ol_to_move(state, ctx):
    return _impl(ctx, "to_move")


@overload(game_apply)
def _ol_apply(state, ctx, move):
    return _impl(ctx, "apply")


@overload(game_rollout)
def _ol_rollout(state, ctx, rng, scores):
    return _impl(ctx, "rollout")


@njit(cache=True)
def rewards(scores, mode, scale, out):
    """Per-seat reward of final ``scores`` (float64[n_seats]) into ``out`` (``REWARD_*``)."""
    n = scores.shape[0]
    if n == 1:
        out[0] = scores[0] / scale
        return
    top = scores[0]
    for s in range(1, n):
        if scores[s] > top:
            top = scores[s]
    if mode == REWARD_POINTS:
        for s in range(n):
            out[s] = scores[s] / scale
        return
    if mode == REWARD_WIN:
        k = 0
        for s in range(n):
            if scores[s] == top:
                k += 1
        for s in range(n):
            out[s] = 1.0 / k if scores[s] == top else 0.0
        return
    for s in range(n):
        best_other = -np.inf
        for q in range(n):
            if q != s and scores[q] > best_other:
                best_other = scores[q]
        out[s] = (scores[s] - best_other) / scale


# ``search`` is one function of about 115 lines on purpose: the iteration's steps (determinize,
# select and expand, roll out, back up) share a dozen scratch arrays and the path, and the
# steps that call the game (``game_legal``, ``game_apply``, ``game_rollout``) would, as
# compiled functions of their own, each link and compile the game's engine again (compile
# time; CONTRIBUTING.md "Kernels, compile time").
@njit(cache=True)
def search(
    root,
    ctx,
    n_iter,
    c,
    mode,
    scale,
    rng,
    work,
    tree,
    value,
    logs,
    moves,
    untried,
    mark,
    path,
    scores,
    reward,
):
    """Choose a move for the seat to move in ``root`` by ``n_iter`` ISMCTS iterations.

    Parameters
    ----------
    root : game state array (read only; hidden parts are never read, only resampled in
        ``work`` by ``game_determinize``)
    ctx : tuple  the game's tables and scratch (see the module docstring)
    n_iter : int  iterations (>= 1); c : float  UCB1 exploration constant
    mode : int  ``REWARD_WIN``, ``REWARD_MARGIN`` or ``REWARD_POINTS``; scale : float  points per reward unit
    rng : uint64[4]  the seat's xoshiro256** stream (the only source of randomness)
    work : state array like ``root`` (scratch)
    tree : int64[capacity, TREE_COLS], value, logs : float64[capacity]  (scratch; capacity >= 2;
        ``logs[k]`` caches log(k) for the UCB1 term)
    moves, untried : int64[max legal moves]; mark : int64[number of move codes]
    path : int64[max plies + 2]; scores, reward : float64[n_seats]  (scratch)

    Returns
    -------
    int
        The move code of the root child with the most visits (ties: the higher mean reward,
        then the earlier expanded). With one legal move it is returned without search; -1 when
        the root is terminal.
    """
    n = game_legal(root, ctx, moves)
    if n <= 1:
        return moves[0] if n == 1 else -1
    cap = tree.shape[0]
    max_depth = path.shape[0] - 1
    for k in range(mark.shape[0]):
        mark[k] = -1
    for k in range(TREE_COLS):
        tree[0, k] = 0
    tree[0, T_MOVE] = -1
    tree[0, T_SEAT] = -1
    tree[0, T_CHILD] = -1
    tree[0, T_SIBLING] = -1
    value[0] = 0.0
    n_nodes = 1
    stamp = 0
    for k in range(1, min(n_iter + 1, cap)):
        logs[k] = np.log(np.float64(k))
    for _ in range(n_iter):
        game_copy(work, root, ctx)
        game_determinize(work, ctx, rng)
        node = 0
        depth = 0
        path[0] = 0
        while depth < max_depth:
            n = game_legal(work, ctx, moves)
            if n == 0:
                break
            stamp += 2
            for k in range(n):
                mark[moves[k]] = stamp
            seat = game_to_move(work, ctx)
            n_seen = 0
            best = -1
            best_u = -np.inf
            ch = tree[node, T_CHILD]
            while ch >= 0:
                m = tree[ch, T_MOVE]
                if mark[m] == stamp:
                    mark[m] = stamp + 1
                    n_seen += 1
                    tree[ch, T_AVAIL] += 1
                    nv = np.float64(tree[ch, T_VISITS])
                    u = value[ch] / nv + c * np.sqrt(logs[tree[ch, T_AVAIL]] / nv)
                    if u > best_u:
                        best_u = u
                        best = ch
                ch = tree[ch, T_SIBLING]
            if n_seen < n and n_nodes < cap:
                nu = 0
                for k in range(n):
                    if mark[moves[k]] == stamp:
                        untried[nu] = moves[k]
                        nu += 1
                mv = untried[randint(rng, nu)]
                new = n_nodes
                n_nodes += 1
                tree[new, T_MOVE] = mv
                tree[new, T_SEAT] = seat
                tree[new, T_CHILD] = -1
                tree[new, T_SIBLING] = tree[node, T_CHILD]
                tree[new, T_VISITS] = 0
                tree[new, T_AVAIL] = 1
                value[new] = 0.0
                tree[node, T_CHILD] = new
                game_apply(work, ctx, mv)
                depth += 1
                path[depth] = new
                break
            if best < 0:
                break  # tree full and no child legal here: roll out from this node
            game_apply(work, ctx, tree[best, T_MOVE])
            depth += 1
            path[depth] = best
            node = best
        game_rollout(work, ctx, rng, scores)
        rewards(scores, mode, scale, reward)
        tree[0, T_VISITS] += 1
        for d in range(1, depth + 1):
            nd = path[d]
            tree[nd, T_VISITS] += 1
            value[nd] += reward[tree[nd, T_SEAT]]
    best = -1
    best_n = -1
    best_q = -np.inf
    ch = tree[0, T_CHILD]
    while ch >= 0:
        nv = tree[ch, T_VISITS]
        q = value[ch] / nv if nv > 0 else -np.inf
        if nv > best_n or (nv == best_n and q > best_q):
            best = ch
            best_n = nv
            best_q = q
        ch = tree[ch, T_SIBLING]
    return tree[best, T_MOVE]


@njit(cache=True)
def flat(root, ctx, n_iter, mode, scale, rng, work, moves, totals, scores, reward):
    """The same playouts without a tree (benchmarks): ``n_iter`` iterations, each a fresh
    determinization, the root's legal moves in turn, one rollout; returns the move with the
    best mean reward of the seat to move. ``totals`` float64[max legal moves] (scratch)."""
    n = game_legal(root, ctx, moves)
    if n <= 1:
        return moves[0] if n == 1 else -1
    seat = game_to_move(root, ctx)
    for k in range(n):
        totals[k] = 0.0
    for it in range(n_iter):
        k = it % n
        game_copy(work, root, ctx)
        game_determinize(work, ctx, rng)
        mv = moves[k]
        game_apply(work, ctx, mv)
        game_rollout(work, ctx, rng, scores)
        rewards(scores, mode, scale, reward)
        totals[k] += reward[seat]
    best = 0
    for k in range(1, n):
        if totals[k] > totals[best]:
            best = k
    return moves[best]


# ---------------------------------------------------------------- tree reuse (Sacred Hill)
# ``search_from``, ``child_of`` and ``reroot`` keep a seat's tree between its decisions. They
# are separate functions so that the games that do not reuse their trees compile exactly the
# code they compiled before (``search`` is unchanged). With perfect information the subtree of
# the position actually reached is exact; an imperfect-information game would also have to
# prune the branches that contradict what the seat has seen since (a move it now knows was not
# possible in the real deal), see benchmarks/RESULTS.md ("Search", tree reuse).
@njit(cache=True)
def child_of(tree, node, move):
    """The child of ``node`` whose move is ``move``, or -1 when it was never expanded."""
    ch = tree[node, T_CHILD]
    while ch >= 0:
        if tree[ch, T_MOVE] == move:
            return ch
        ch = tree[ch, T_SIBLING]
    return -1


@njit(cache=True)
def reroot(tree, value, n_nodes, node, remap):
    """Make ``node``'s subtree the whole tree, in place: its nodes move to ``0 ..`` in their
    order (``node`` becomes the root 0, every other node keeps its statistics and its children
    in the same order); returns the new node count. ``remap`` int64[capacity] (scratch).

    A node's children always come after it (``search_from`` appends), so the subtree's nodes,
    renumbered in increasing order, never move up: each is read before its new row is
    written."""
    for k in range(node, n_nodes):
        remap[k] = -1
    remap[node] = 0
    cnt = 1
    for k in range(node, n_nodes):
        if remap[k] < 0:
            continue
        if k != node:
            remap[k] = cnt
            cnt += 1
        ch = tree[k, T_CHILD]
        while ch >= 0:
            remap[ch] = n_nodes  # in the subtree; numbered when the loop reaches it
            ch = tree[ch, T_SIBLING]
    for k in range(node, n_nodes):
        j = remap[k]
        if j < 0:
            continue
        ch = tree[k, T_CHILD]
        sib = tree[k, T_SIBLING]
        for col in range(TREE_COLS):
            tree[j, col] = tree[k, col]
        value[j] = value[k]
        tree[j, T_CHILD] = remap[ch] if ch >= 0 else -1
        tree[j, T_SIBLING] = remap[sib] if (sib >= 0 and k != node) else -1
    tree[0, T_MOVE] = -1
    tree[0, T_SEAT] = -1
    value[0] = 0.0
    return cnt


@njit(cache=True)
def search_from(
    root,
    ctx,
    n_iter,
    c,
    mode,
    scale,
    rng,
    work,
    tree,
    value,
    logs,
    moves,
    untried,
    mark,
    path,
    scores,
    reward,
    n_nodes,
):
    """``search`` continued from the tree already in ``tree`` / ``value`` (``n_nodes`` nodes,
    node 0 the node of ``root``; 0: a fresh tree, exactly ``search``'s). Returns ``(move,
    n_nodes)``: the move (as ``search``'s; -1 terminal) and the tree's node count afterwards,
    to keep for the next decision (``child_of`` and ``reroot`` move the root to the position
    then reached). Nothing is searched with one legal move or none (the tree is left as it
    is). ``logs`` float64[L] must hold log(k) for ``1 <= k < L`` on entry (it is not filled
    here); an availability count of L or more takes ``np.log``. When the tree is full
    (``capacity`` nodes) iterations go on without expanding, rolling out from the leaf.
    """
    n = game_legal(root, ctx, moves)
    if n <= 1:
        return (moves[0] if n == 1 else -1), n_nodes
    cap = tree.shape[0]
    n_logs = logs.shape[0]
    max_depth = path.shape[0] - 1
    for k in range(mark.shape[0]):
        mark[k] = -1
    if n_nodes <= 0:
        for k in range(TREE_COLS):
            tree[0, k] = 0
        tree[0, T_MOVE] = -1
        tree[0, T_SEAT] = -1
        tree[0, T_CHILD] = -1
        tree[0, T_SIBLING] = -1
        value[0] = 0.0
        n_nodes = 1
    stamp = 0
    for _ in range(n_iter):
        game_copy(work, root, ctx)
        game_determinize(work, ctx, rng)
        node = 0
        depth = 0
        path[0] = 0
        while depth < max_depth:
            n = game_legal(work, ctx, moves)
            if n == 0:
                break
            stamp += 2
            for k in range(n):
                mark[moves[k]] = stamp
            seat = game_to_move(work, ctx)
            n_seen = 0
            best = -1
            best_u = -np.inf
            ch = tree[node, T_CHILD]
            while ch >= 0:
                m = tree[ch, T_MOVE]
                if mark[m] == stamp:
                    mark[m] = stamp + 1
                    n_seen += 1
                    tree[ch, T_AVAIL] += 1
                    nv = np.float64(tree[ch, T_VISITS])
                    a = tree[ch, T_AVAIL]
                    la = logs[a] if a < n_logs else np.log(np.float64(a))
                    u = value[ch] / nv + c * np.sqrt(la / nv)
                    if u > best_u:
                        best_u = u
                        best = ch
                ch = tree[ch, T_SIBLING]
            if n_seen < n and n_nodes < cap:
                nu = 0
                for k in range(n):
                    if mark[moves[k]] == stamp:
                        untried[nu] = moves[k]
                        nu += 1
                mv = untried[randint(rng, nu)]
                new = n_nodes
                n_nodes += 1
                tree[new, T_MOVE] = mv
                tree[new, T_SEAT] = seat
                tree[new, T_CHILD] = -1
                tree[new, T_SIBLING] = tree[node, T_CHILD]
                tree[new, T_VISITS] = 0
                tree[new, T_AVAIL] = 1
                value[new] = 0.0
                tree[node, T_CHILD] = new
                game_apply(work, ctx, mv)
                depth += 1
                path[depth] = new
                break
            if best < 0:
                break  # tree full and no child legal here: roll out from this node
            game_apply(work, ctx, tree[best, T_MOVE])
            depth += 1
            path[depth] = best
            node = best
        game_rollout(work, ctx, rng, scores)
        rewards(scores, mode, scale, reward)
        tree[0, T_VISITS] += 1
        for d in range(1, depth + 1):
            nd = path[d]
            tree[nd, T_VISITS] += 1
            value[nd] += reward[tree[nd, T_SEAT]]
    best = -1
    best_n = -1
    best_q = -np.inf
    ch = tree[0, T_CHILD]
    while ch >= 0:
        nv = tree[ch, T_VISITS]
        q = value[ch] / nv if nv > 0 else -np.inf
        if nv > best_n or (nv == best_n and q > best_q):
            best = ch
            best_n = nv
            best_q = q
        ch = tree[ch, T_SIBLING]
    return tree[best, T_MOVE], n_nodes
