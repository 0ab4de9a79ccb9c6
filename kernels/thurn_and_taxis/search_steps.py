"""Thurn and Taxis search steps: information-set MCTS (``kernels.search``) for ``mcts``.

Compiled only through ``kernels.thurn_and_taxis.play.play_batch_mcts``: the Python side picks
that entry kernel when a seat plays ``mcts``, so a random or route run never compiles the
search. The search state is the game's own ``int64[ST_SIZE]`` vector; the search tells this game
apart by its context class, ``ThurnAndTaxisSearchContext``. The step functions are inlined into the search's per-step lambdas
(``search.register``), each of which is compiled on its own: one compiled level fewer below the
search than plain calls, and the moves are applied by ``_advance``, the play engine (so the
search compiles no move code of its own).
"""

from collections import namedtuple

import numpy as np
from numba import njit

from kernels import search
from kernels.rng import next_u64, seed_state, shuffle_fast
from kernels.thurn_and_taxis.layout import (
    A_START,
    DISPLAY,
    MAX_ACTIONS,
    MAX_SEATS,
    N_CARDS,
    N_CITIES,
    N_MOVE_CODES,
    N_PARAMS,
    P_FORBID,
    P_MCTS_BASE,
    P_MCTS_C,
    P_MCTS_ITER,
    P_MCTS_OWN,
    P_MCTS_REWARD,
    P_MCTS_ROLLOUT,
    PH_PLAY1,
    PH_PLAY2,
    POL_MCTS,
    POL_MCTS_RESTRICTED,
    POL_RANDOM,
    POL_ROUTE,
    ROUTE_SLOTS,
    S_CUR,
    S_DECK,
    S_DECK_END,
    S_DECK_TOP,
    S_DISC,
    S_DISC_N,
    S_DISPLAY,
    S_HAND,
    S_HAND_N,
    S_HMASK,
    S_KNOWN,
    S_NP,
    S_OVER,
    S_PHASE,
    S_RHI,
    S_RLO,
    S_ROUTE,
    SEARCH_DEPTH,
    ST_SIZE,
    ZERO,
)
from kernels.thurn_and_taxis.policies import (
    _advance,
    _random_move,
    _route_policy,
    restricted_choice,
)
from kernels.thurn_and_taxis.rules import (
    legal_moves,
    restrict_moves,
    restricts_phase,
    score_final,
    winner_of,
)

#: points per unit of the margin and points rewards
MARGIN_SCALE = 10.0
#: bonus in a playout's points for the seat that wins the tie-break (§5), so that the win
#: reward goes to it alone; below one point, so it never reorders different scores
TIE_BREAK_BONUS = 0.5


#: the search context of Thurn and Taxis (``kernels.search.register``; see ``search_scratch``)
ThurnAndTaxisSearchContext = namedtuple(
    "ThurnAndTaxisSearchContext",
    ["tables", "variant", "reshuffle_rng", "actions", "card_pool", "city_counts",
     "rollout_policy", "rollout_params", "points", "script", "reshuffle_log",
     "engine_policy_ids", "engine_params", "engine_streams",
     "own_seat", "own_mask", "own_params"],
)  # fmt: skip


@njit(cache=True, inline="always")
def _search_copy(dst, src):
    for k in range(ST_SIZE):
        dst[k] = src[k]


@njit(cache=True, inline="always")
def _search_determinize(state, ctx, rng):
    """Deal what the seat to move cannot see (§7 #12: the deck order and the other seats' hand
    cards not known from the display) anew: the unseen cards (3 per city minus its own hand,
    the display, the discard pile, every route and the known cards of the others) are shuffled
    and dealt to the others' unknown hand cards (their sizes are public) and to the deck. Reads
    only what the seat sees."""
    (
        tables,
        variant,
        reshuffle_rng,
        actions,
        card_pool,
        city_counts,
        rollout_policy,
        rollout_params,
        points,
        script,
        reshuffle_log,
        engine_policy_ids,
        engine_params,
        engine_rngs,
        own_seat,
        own_mask,
        own_params,
    ) = ctx
    p = state[S_CUR]
    n = state[S_NP]
    for c in range(N_CITIES):
        city_counts[c] = 3 - state[S_HAND + p * N_CITIES + c]
    for i in range(DISPLAY):
        c = state[S_DISPLAY + i]
        if c >= 0:
            city_counts[c] -= 1
    for i in range(state[S_DISC_N]):
        city_counts[state[S_DISC + i]] -= 1
    for q in range(n):
        base = S_ROUTE + q * ROUTE_SLOTS
        for i in range(state[S_RLO + q], state[S_RHI + q]):
            city_counts[state[base + i]] -= 1
        if q != p:
            for c in range(N_CITIES):
                city_counts[c] -= state[S_KNOWN + q * N_CITIES + c]
    k = 0
    for c in range(N_CITIES):
        for _ in range(city_counts[c]):
            card_pool[k] = c
            k += 1
    shuffle_fast(rng, card_pool[:k])
    pos = 0
    for q in range(n):
        if q == p:
            continue
        h = S_HAND + q * N_CITIES
        kn = S_KNOWN + q * N_CITIES
        unknown = state[S_HAND_N + q]
        hm = 0
        for c in range(N_CITIES):
            state[h + c] = state[kn + c]
            unknown -= state[kn + c]
            if state[kn + c] > 0:
                hm |= 1 << c
        for _ in range(unknown):
            c = card_pool[pos]
            pos += 1
            state[h + c] += 1
            hm |= 1 << c
        state[S_HMASK + q] = hm
    m = k - pos  # = cards left in the deck
    for i in range(m):
        state[S_DECK + i] = card_pool[pos + i]
    state[S_DECK_TOP] = 0
    state[S_DECK_END] = m


# Restricted play (rules §11) in the search: the searching seat's own moves filtered by its
# mask. ``own_params`` is None in the scratch of a run without restricted seats
# (``search_scratch``), and these helpers are compiled on their own, so there the branch is
# pruned and the search compiles no restricted-play code (an mcts run compiles as before). A
# mask with such a scratch (only a direct caller can make one) is refused by ``_fill_own``.


@njit(cache=True)
def _own_filter(state, tables, variant, out_moves, n, mask, own_params):
    """``restrict_moves`` of the searching seat: the permitted moves first, their count (all
    ``n`` when none is permitted)."""
    if own_params is None:
        return n  # not reached: choose_mcts refuses a mask without the buffer
    k = restrict_moves(state, tables, variant, out_moves, n, mask)
    return k if k > 0 else n


@njit(cache=True)
def _own_choice(state, tables, variant, rollout_policy, mask, own_params, rng, actions):
    """The searching seat's rollout move under its mask (``restricted_choice``)."""
    if own_params is None:
        return np.int64(-1)  # not reached: choose_mcts refuses a mask without the buffer
    return restricted_choice(state, tables, variant, rollout_policy, mask, own_params, rng, actions)


@njit(cache=True)
def _own_buffer(restrictions):
    """The route parameters of the searching seat's own rollout moves: float64[N_PARAMS] when a
    seat of the run is restricted (``restrictions`` its masks), else None."""
    if restrictions is None:
        return None
    return np.zeros(N_PARAMS, np.float64)


@njit(cache=True)
def _fill_own(own_params, params, mask):
    """Copy the searching seat's own rollout parameters (``P_MCTS_OWN``) when it is restricted;
    ``ValueError`` for a mask with a scratch made without ``restrictions``."""
    if own_params is None:
        if mask != 0:
            raise ValueError("a forbid mask needs the scratch of search_scratch(..., restrictions)")
        return
    if mask != 0:
        for k in range(N_PARAMS):
            own_params[k] = params[P_MCTS_OWN + k]


@njit(cache=True, inline="always")
def _search_legal(state, ctx, out_moves):
    """The moves the search considers: the legal moves, except that in a play phase the route
    is discarded (restart) only when no card extends it (as ``random`` plays; the ``route``
    policy restarts only then too), and that the searching seat's own moves are only those its
    forbid mask permits when any is (``own_mask``, rules §11; all of them when none is)."""
    if state[S_OVER] != 0:
        return 0
    n = legal_moves(state, ctx[0], out_moves)
    if (
        ctx.own_mask != 0
        and state[S_CUR] == ctx.own_seat
        and restricts_phase(state[S_PHASE], ctx.own_mask)
    ):
        return _own_filter(state, ctx[0], ctx[1], out_moves, n, ctx.own_mask, ctx.own_params)
    ph = state[S_PHASE]
    if (ph == PH_PLAY1 or ph == PH_PLAY2) and out_moves[0] < A_START:
        k = 1
        while k < n and out_moves[k] < A_START:
            k += 1
        return k
    return n


@njit(cache=True, inline="always")
def _search_to_move(state, ctx):
    return state[S_CUR]


@njit(cache=True, inline="always")
def _search_step(state, ctx, move, rng):
    """``apply_move`` in the search: the play engine (``_advance``, one move: no seat plays
    ``random`` or ``route`` there), ``rng`` the reshuffle stream."""
    (
        tables,
        variant,
        reshuffle_rng,
        actions,
        card_pool,
        city_counts,
        rollout_policy,
        rollout_params,
        points,
        script,
        reshuffle_log,
        engine_policy_ids,
        engine_params,
        engine_rngs,
        own_seat,
        own_mask,
        own_params,
    ) = ctx
    _advance(
        state,
        tables,
        variant,
        np.int64(move),
        engine_policy_ids,
        engine_params,
        engine_rngs,
        actions,
        rng,
        script,
        reshuffle_log,
        reshuffle_log,
        ZERO,
        None,
    )


@njit(cache=True, inline="always")
def _search_apply(state, ctx, move):
    _search_step(state, ctx, move, ctx[2])


@njit(cache=True, inline="always")
def _search_rollout(state, ctx, rng, out_scores):
    """Finish the game with ``rollout_policy`` (``POL_RANDOM`` or ``POL_ROUTE`` with
    ``rollout_params``) for every seat; ``out_scores`` = final points (§5) + ``TIE_BREAK_BONUS``
    for the tie-break winner. With a forbid mask (``own_mask``, rules §11) the searching seat
    ``own_seat`` plays the same policy restricted by it (``restricted_choice``, the ``route``
    parameters ``own_params``); the other seats play unrestricted."""
    (
        tables,
        variant,
        reshuffle_rng,
        actions,
        card_pool,
        city_counts,
        rollout_policy,
        rollout_params,
        points,
        script,
        reshuffle_log,
        engine_policy_ids,
        engine_params,
        engine_rngs,
        own_seat,
        own_mask,
        own_params,
    ) = ctx
    # restricted play (rules §11): the searching seat's own moves under its mask
    if rollout_policy == POL_RANDOM:
        while state[S_OVER] == 0:
            if own_mask != 0 and state[S_CUR] == own_seat:
                a = _own_choice(
                    state, tables, variant, rollout_policy, own_mask, own_params, rng, actions
                )
            else:
                a = _random_move(state, tables, actions, rng)
            _search_step(state, ctx, a, rng)
    else:
        while state[S_OVER] == 0:
            if own_mask != 0 and state[S_CUR] == own_seat:
                a = _own_choice(
                    state, tables, variant, rollout_policy, own_mask, own_params, rng, actions
                )
            else:
                n = legal_moves(state, tables, actions)
                a = _route_policy(state, tables, actions, n, rollout_params, rng)
            _search_step(state, ctx, a, rng)
    score_final(state, tables, points)
    w = winner_of(state, points)
    for q in range(state[S_NP]):
        out_scores[q] = points[q] + (TIE_BREAK_BONUS if q == w else 0.0)


search.register(
    ThurnAndTaxisSearchContext,
    copy=lambda dst, src, ctx: _search_copy(dst, src),
    determinize=lambda state, ctx, rng: _search_determinize(state, ctx, rng),
    legal=lambda state, ctx, moves: _search_legal(state, ctx, moves),
    to_move=lambda state, ctx: _search_to_move(state, ctx),
    apply=lambda state, ctx, move: _search_apply(state, ctx, move),
    rollout=lambda state, ctx, rng, scores: _search_rollout(state, ctx, rng, scores),
)


# The search compiled for this game without its own cache entry: ``search.search`` caches under
# kernels/search.py, and Numba's cache does not see that the step functions above (inlined into
# it) changed when only this game's files change, so a cached ``search.search`` would keep the
# old ones. Compiled here, the search is cached inside ``choose_mcts`` (this module) and
# recompiled with it.
tree_search = njit(search.search.py_func)
#: ``search.flat`` likewise (benchmarks: the same playouts without the tree)
flat_search = njit(search.flat.py_func)


@njit(cache=True)
def search_capacity(policy_ids, policy_params):
    """Tree nodes needed by the ``mcts`` seats of a game (iterations + 1; 2 if none)."""
    cap = 2
    for p in range(policy_ids.shape[0]):
        if policy_ids[p] == POL_MCTS or policy_ids[p] == POL_MCTS_RESTRICTED:
            cap = max(cap, np.int64(policy_params[p, P_MCTS_ITER]) + 1)
    return cap


@njit(cache=True)
def search_scratch(tables, variant, capacity, restrictions=None):
    """Scratch of ``choose_mcts`` for trees of ``capacity`` nodes: (ctx, work state, tree,
    value, logs, moves, untried, mark, path, scores, reward). ``ctx`` is the search's game
    context: (tables, variant, reshuffle stream uint64[4], actions int64[MAX_ACTIONS], card pool
    int64[66], city counts int64[22], rollout policy id int64[1] holder, route parameters
    float64[N_PARAMS], points int64[MAX_SEATS], empty script, 1-slot reshuffle log, and for
    ``_advance`` policy ids int64[MAX_SEATS] with no ``random`` or ``route`` seat, unused
    parameters float64[MAX_SEATS, N_PARAMS] and streams uint64[MAX_SEATS, 4]; restricted play,
    rules §11: the searching seat int64 (-1), its forbid mask int64 (0: none) and the route
    parameters of its own rollout moves, float64[N_PARAMS] when ``restrictions`` (the run's
    forbid masks, ``play_batch_mcts``) is given, else None: then no restricted-play code is
    compiled into the search)."""
    ctx = ThurnAndTaxisSearchContext(
        tables,
        variant,
        np.zeros(4, np.uint64),
        np.zeros(MAX_ACTIONS, np.int64),
        np.zeros(N_CARDS, np.int64),
        np.zeros(N_CITIES, np.int64),
        np.int64(POL_ROUTE),
        np.zeros(N_PARAMS, np.float64),
        np.zeros(MAX_SEATS, np.int64),
        np.empty(0, np.int64),
        np.zeros(1, np.int64),
        np.full(MAX_SEATS, -1, np.int64),
        np.zeros((MAX_SEATS, N_PARAMS), np.float64),
        np.zeros((MAX_SEATS, 4), np.uint64),
        np.int64(-1),
        np.int64(0),
        _own_buffer(restrictions),
    )
    return (
        ctx,
        np.zeros(ST_SIZE, np.int64),
        np.zeros((capacity, search.TREE_COLS), np.int64),
        np.zeros(capacity, np.float64),
        np.zeros(capacity, np.float64),
        np.zeros(MAX_ACTIONS, np.int64),
        np.zeros(MAX_ACTIONS, np.int64),
        np.zeros(N_MOVE_CODES, np.int64),
        np.zeros(SEARCH_DEPTH + 2, np.int64),
        np.zeros(MAX_SEATS, np.float64),
        np.zeros(MAX_SEATS, np.float64),
    )


@njit(cache=True)
def choose_mcts(state, params, rng, scratch):
    """The ``mcts`` decision of the seat to move in ``state`` (int64[ST_SIZE], read only; the
    hidden parts are only resampled in a copy) by ISMCTS with the parameters ``P_MCTS_*`` of
    ``params`` (float64[>= N_MCTS_PARAMS]); ``rng`` the seat's policy stream (uint64[4], the only
    source of randomness); ``scratch`` from ``search_scratch``. Returns a legal action. With a
    forbid mask in ``params[P_FORBID]`` (rules §11) the seat's own moves in the tree and in the
    rollouts are those the mask permits (all of them where none is); it does not count the
    decision (``play_batch_mcts`` does, for real decisions only)."""
    base_ctx, work, tree, value, logs, moves, untried, mark, path, scores, reward = scratch
    (
        tables,
        variant,
        reshuffle_rng,
        actions,
        card_pool,
        city_counts,
        base_rollout_policy,
        rollout_params,
        points,
        script,
        reshuffle_log,
        engine_policy_ids,
        engine_params,
        engine_rngs,
        own_seat,
        own_mask,
        own_params,
    ) = base_ctx
    for k in range(N_PARAMS):
        rollout_params[k] = params[P_MCTS_BASE + k]
    mask = np.int64(params[P_FORBID])
    _fill_own(own_params, params, mask)
    seed_state(reshuffle_rng, next_u64(rng))
    rollout_policy = np.int64(params[P_MCTS_ROLLOUT])
    ctx = ThurnAndTaxisSearchContext(
        tables,
        variant,
        reshuffle_rng,
        actions,
        card_pool,
        city_counts,
        rollout_policy,
        rollout_params,
        points,
        script,
        reshuffle_log,
        engine_policy_ids,
        engine_params,
        engine_rngs,
        np.int64(state[S_CUR]),
        mask,
        own_params,
    )
    n = state[S_NP]
    return tree_search(
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
        moves,
        untried,
        mark,
        path,
        scores[:n],
        reward[:n],
    )
