"""Don Quixote search policies: rollout, oracle and mcts choosers and the search steps.

* rollout: ``_choose_rollout`` (k completions per candidate with a base policy on futures
  sampled from the hidden information, the same futures for every candidate).
* oracle: ``oracle_full`` on the whole deal (beam + exact round 3 + annealing); an upper
  reference for regret, not a playable policy; its result is a lower bound on the optimum.
* mcts: ``choose_mcts``, information-set MCTS by ``kernels.search`` over this player's
  placements; the cell is part of a move, so tree nodes are what the player has seen.

The step interface of ``kernels.search`` for one player's estate (``_search_*``, registered
below for ``DonQuixoteSearchContext``): the search state is an estate whose SC row carries the search
fields (``SC_POS`` .. ``SC_SEQ``, see ``kernels.don_quixote.layout``); scratch from
``search_scratch`` sized by ``search_capacity``; the context is a ``DonQuixoteSearchContext``.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from kernels import search
from kernels.don_quixote.layout import (
    CELLS,
    CTX_LAST_RAND,
    CTX_LOG,
    CTX_TABLES,
    HAND_SLOTS,
    HEUR_DEFAULT,
    LOGN,
    M_C,
    M_ITER,
    M_ROLLOUT,
    M_WEIGHTS,
    N_CAT,
    N_CELLS,
    N_HEUR,
    N_NODES,
    N_PLACE,
    POL_MCTS,
    R_BASE,
    R_COMPLETIONS,
    R_WEIGHTS,
    ROT_BOTH,
    ROUND_END,
    ROUND_SIZES,
    S_ROWS,
    SC,
    SC_BANK,
    SC_FCELLS,
    SC_HAND,
    SC_LROT,
    SC_NH,
    SC_POS,
    SC_SAVE,
    SC_SEQ,
    SEARCH_SCALE,
)
from kernels.don_quixote.policies import (
    PlacementScratch,
    SeatOutputs,
    _run_simple,
    heuristic_value,
)
from kernels.don_quixote.restrict import (
    ALLOW_ALL,
    RS_AVOIDED,
    RS_FORCED,
    RS_MASK,
    RS_WIDTH,
    allowed,
    permitted,
)
from kernels.don_quixote.rules import (
    _revealed_at,
    n_revealed,
    place,
    reveal,
    round_of,
    score_round,
    unplace,
)
from kernels.rng import next_u64, randint, random_float, seed_state

#: the search context of Don Quixote (``kernels.search.register``): the tile table, whether the
#: last tile is rotated at random, the rollout policy id and weights, and the rollout's scratch
#: (placement log, saved estate, open ends per network, empty breakdown, moves); ``CTX_*`` index it;
#: ``forbid``: None (unrestricted) or the player's restriction (int64[RS_WIDTH],
#: ``kernels.don_quixote.restrict``): the tree's moves and the rollouts' placements obey its mask
DonQuixoteSearchContext = namedtuple(
    "DonQuixoteSearchContext",
    ["tables", "last_rand", "rollout_policy", "rollout_weights", "log", "saved", "open_ends",
     "no_breakdown", "moves", "forbid"],
)  # fmt: skip


@njit(cache=True)
def _choose_rollout(
    params, state, tables, cells, seq, pos, hand, nh, rotmask, last_rand, rng, scratch, rs,
    allow,
):  # fmt: skip
    """Rollout policy: each candidate is scored by the mean of K completions (base policy)
    on K futures sampled from what is hidden (cell order after ``pos``, unrevealed tiles);
    all candidates see the same K futures and base-policy draws. ``scratch``: a
    ``PlacementScratch``. Restricted play (§8): ``rs`` None or the seat's restriction
    (``restrict``; its counts are left as they were), ``allow`` the permitted candidates (bits
    ``2 * i + o``); the completions obey the mask too."""
    K = max(int(params[R_COMPLETIONS]), 1)
    base = int(params[R_BASE])
    cell = cells[pos]
    rnd = round_of(pos)
    if pos < ROUND_END[0] + 1:
        nrev = ROUND_SIZES[0]
    elif pos < ROUND_END[1] + 1:
        nrev = ROUND_SIZES[0] + ROUND_SIZES[1]
    else:
        nrev = N_PLACE
    n_land = seq.shape[0]
    fut_cells = np.empty((K, N_PLACE), dtype=np.int64)
    fut_seq = np.empty((K, n_land), dtype=np.int64)
    fut_seed = np.empty(K, dtype=np.uint64)
    fut_lrot = np.empty(K, dtype=np.int64)
    for k in range(K):
        for j in range(N_PLACE):
            fut_cells[k, j] = cells[j]
        for j in range(n_land):
            fut_seq[k, j] = seq[j]
        for j in range(N_PLACE - 1, pos + 1, -1):  # shuffle cells pos+1 .. 21
            m = pos + 1 + randint(rng, j - pos)
            tmp = fut_cells[k, j]
            fut_cells[k, j] = fut_cells[k, m]
            fut_cells[k, m] = tmp
        for j in range(n_land - 1, nrev, -1):  # shuffle unrevealed tiles
            m = nrev + randint(rng, j - nrev + 1)
            tmp = fut_seq[k, j]
            fut_seq[k, j] = fut_seq[k, m]
            fut_seq[k, m] = tmp
        fut_seed[k] = next_u64(rng)
        fut_lrot[k] = (1 << randint(rng, 2)) if last_rand else ROT_BOTH
    work = np.empty_like(state)
    hand2 = np.empty(HAND_SLOTS, dtype=np.int64)
    rollout_moves = np.empty((N_PLACE, 2), dtype=np.int64)
    rollout_rng = np.empty(4, dtype=np.uint64)
    outputs = SeatOutputs(np.zeros((0, 3, N_CAT), dtype=np.int64), np.int64(0), rollout_moves)
    weights = np.empty(N_HEUR, dtype=np.float64)
    for k in range(N_HEUR):
        weights[k] = params[R_WEIGHTS + k]
    # one _run_simple for both: None (unrestricted, no restricted-play code compiled) or the
    # seat's own restriction, whose counts the completions must not change
    fmask = np.int64(0)
    if rs is not None:
        fmask = rs[RS_MASK]
        counted = (rs[RS_AVOIDED], rs[RS_FORCED])
    best_i = 0
    best_o = 0
    best_v = -1.0e300
    first = nh - 1 if pos == N_PLACE - 1 else 0
    for i in range(first, nh):
        for o in range(2):
            if not (rotmask >> o) & 1:
                continue
            if fmask != 0 and not allowed(allow, i, o):
                continue
            acc = 0.0
            for k in range(K):
                work[:, :] = state
                nh2 = np.int64(0)
                for j in range(nh):
                    if j != i:
                        hand2[nh2] = hand[j]
                        nh2 += 1
                place(work, tables, cell, hand[i], o, scratch.log)
                v = 0
                if pos == ROUND_END[rnd - 1]:
                    v += score_round(work, rnd)
                seed_state(rollout_rng, fut_seed[k])
                v += _run_simple(
                    work,
                    tables,
                    fut_cells[k],
                    fut_seq[k],
                    pos + 1,
                    hand2,
                    nh2,
                    base,
                    weights,
                    fut_lrot[k],
                    rollout_rng,
                    scratch,
                    outputs,
                    rs,
                )
                acc += v
            if acc > best_v:
                best_v = acc
                best_i = i
                best_o = o
    if rs is not None:
        rs[RS_AVOIDED], rs[RS_FORCED] = counted
    return best_i, best_o


@njit(cache=True)
def _exact_round3(state, tables, cells, seq, last_rotmask, plan):
    """Best scoring-3 total over every order/orientation of round 3 (§3.2: all six tiles and
    cells known once the cell order is known). Writes (tile, rot) for placements 16..21 into
    ``plan[16:22]`` and returns the best scoring 3. Iterative depth-first search with undo."""
    base_pos = ROUND_END[1] + 1
    nfree = N_PLACE - 1 - base_pos  # 5 chosen tiles
    tl = np.empty(nfree + 1, dtype=np.int64)
    for j in range(nfree + 1):
        tl[j] = seq[base_pos + j]
    logs = np.zeros((nfree + 1, LOGN), dtype=np.int64)
    saved = np.zeros((nfree + 1, SC_SAVE), dtype=np.int64)
    ci = np.full(nfree + 1, -1, dtype=np.int64)
    cur = np.zeros((nfree + 1, 2), dtype=np.int64)
    used = 0
    best = -1
    d = 0
    while d >= 0:
        cell = cells[base_pos + d]
        ci[d] += 1
        # advance to the next valid candidate
        if d < nfree:
            while ci[d] < 2 * nfree and (used >> (ci[d] >> 1)) & 1:
                ci[d] += 1
            ncand = 2 * nfree
        else:
            while ci[d] < 2 and not (last_rotmask >> ci[d]) & 1:
                ci[d] += 1
            ncand = 2
        if ci[d] >= ncand:
            ci[d] = -1
            d -= 1
            if d >= 0:
                unplace(state, tables, cells[base_pos + d], logs[d], saved[d])
                if d < nfree:
                    used &= ~(1 << (ci[d] >> 1))
            continue
        if d < nfree:
            j = ci[d] >> 1
            t = tl[j]
            o = ci[d] & 1
        else:
            j = nfree
            t = tl[nfree]
            o = ci[d]
        for k in range(SC_SAVE):
            saved[d, k] = state[SC, k]
        place(state, tables, cell, t, o, logs[d])
        cur[d, 0] = t
        cur[d, 1] = o
        if d == nfree:
            v = score_round(state, np.int64(3))
            if v > best:
                best = v
                for q in range(nfree + 1):
                    plan[base_pos + q, 0] = cur[q, 0]
                    plan[base_pos + q, 1] = cur[q, 1]
            unplace(state, tables, cell, logs[d], saved[d])
        else:
            used |= 1 << j
            d += 1
            ci[d] = -1
    return best


@njit(cache=True)
def oracle_plan(state, tables, cells, seq, last_rotmask, beam, plan):
    """Full-knowledge search for the highest total (the ``oracle`` policy; not playable).

    Beam search of width ``beam`` over placements 0..15 (ranked by banked points + the default
    heuristic), then an exact search of round 3 from every surviving state. With beam >= the
    number of reachable states this is exact; otherwise the result is a **lower bound** on the
    optimum. Writes (tile, rot) per placement into ``plan`` (int64[22, 2]) and returns the total.
    ``state`` (castles placed, nothing else) is left unchanged.
    """
    B = max(beam, 1)
    beam_states = np.empty((B, S_ROWS, N_NODES), dtype=np.int64)
    next_states = np.empty((B, S_ROWS, N_NODES), dtype=np.int64)
    placed = np.zeros(B, dtype=np.int64)
    placed2 = np.zeros(B, dtype=np.int64)
    banked = np.zeros(B, dtype=np.int64)
    banked2 = np.zeros(B, dtype=np.int64)
    plans = np.zeros((B, N_PLACE, 2), dtype=np.int64)
    plans2 = np.zeros((B, N_PLACE, 2), dtype=np.int64)
    beam_states[0, :, :] = state
    nb = 1
    maxc = B * 2 * HAND_SLOTS
    cb = np.empty(maxc, dtype=np.int64)
    ct = np.empty(maxc, dtype=np.int64)
    co = np.empty(maxc, dtype=np.int64)
    cv = np.empty(maxc, dtype=np.float64)
    cgain = np.empty(maxc, dtype=np.int64)
    log = np.zeros(LOGN, dtype=np.int64)
    saved = np.zeros(SC_SAVE, dtype=np.int64)
    open_ends = np.zeros(N_NODES, dtype=np.int64)
    weights = HEUR_DEFAULT.copy()
    last_pos = ROUND_END[1]
    for pos in range(last_pos + 1):
        rnd = round_of(pos)
        nrev = ROUND_SIZES[0] if rnd == 1 else ROUND_SIZES[0] + ROUND_SIZES[1]
        cell = cells[pos]
        nc = 0
        for b in range(nb):
            beam_state = beam_states[b]
            for k in range(SC_SAVE):
                saved[k] = beam_state[SC, k]
            for j in range(nrev):
                t = seq[j]
                if (placed[b] >> t) & 1:
                    continue
                for o in range(2):
                    place(beam_state, tables, cell, t, o, log)
                    gain = 0
                    nxt = rnd
                    if pos == ROUND_END[rnd - 1]:
                        gain = score_round(beam_state, rnd)
                        nxt = rnd + 1
                    cb[nc] = b
                    ct[nc] = t
                    co[nc] = o
                    cgain[nc] = gain
                    cv[nc] = (
                        banked[b]
                        + gain
                        + heuristic_value(beam_state, tables, nxt, weights, open_ends)
                    )
                    nc += 1
                    unplace(beam_state, tables, cell, log, saved)
        order = np.argsort(-cv[:nc], kind="mergesort")
        nb2 = min(B, nc)
        for q in range(nb2):
            c = order[q]
            b = cb[c]
            next_states[q, :, :] = beam_states[b]
            place(next_states[q], tables, cell, ct[c], co[c], log)
            placed2[q] = placed[b] | (1 << ct[c])
            banked2[q] = banked[b] + cgain[c]
            plans2[q, :, :] = plans[b]
            plans2[q, pos, 0] = ct[c]
            plans2[q, pos, 1] = co[c]
        beam_states, next_states = next_states, beam_states
        placed, placed2 = placed2, placed
        banked, banked2 = banked2, banked
        plans, plans2 = plans2, plans
        nb = nb2
    best = -1
    tmp_plan = np.zeros((N_PLACE, 2), dtype=np.int64)
    for b in range(nb):
        v = banked[b] + _exact_round3(beam_states[b], tables, cells, seq, last_rotmask, tmp_plan)
        if v > best:
            best = v
            plan[:, :] = plans[b]
            plan[ROUND_END[1] + 1 :, :] = tmp_plan[ROUND_END[1] + 1 :, :]
    return best


@njit(cache=True)
def plan_total(state, tables, cells, plan, work, log):
    """Total of the three scorings when ``plan`` (int64[22, 2]: tile, rotation per placement)
    is played on a copy of ``state`` (castles placed) into scratch estate ``work``."""
    work[:, :] = state
    total = 0
    for pos in range(N_PLACE):
        place(work, tables, cells[pos], plan[pos, 0], plan[pos, 1], log)
        if pos == ROUND_END[0] or pos == ROUND_END[1] or pos == ROUND_END[2]:
            total += score_round(work, round_of(pos))
    return total


@njit(cache=True, inline="always")
def _swap_plan_rows(plan, p, q):
    """Exchange placements p and q (tile and rotation) of a plan (int[N_PLACE, 2])."""
    for k in range(2):
        tmp = plan[p, k]
        plan[p, k] = plan[q, k]
        plan[q, k] = tmp


@njit(cache=True)
def improve_plan(state, tables, cells, last_rotmask, plan, iters, rng):
    """Simulated annealing over a full-knowledge plan (``oracle``); returns the best total.

    With the whole deal known, only which tile (and rotation) goes to which cell *within each
    round* matters (every tile revealed in a round is placed in that round, §3.2), so a move
    swaps the tiles of two placements of one round (never the set-aside last tile) or turns
    one tile. Temperature falls geometrically from 3 to 0.05 points. ``plan`` (int64[22, 2]) is
    replaced by the best plan found (never worse than the one given).
    """
    work = np.empty_like(state)
    log = np.zeros(LOGN, dtype=np.int64)
    best = plan_total(state, tables, cells, plan, work, log)
    if iters <= 0:
        return best
    cur_plan = plan.copy()
    cur = best
    t0 = 3.0
    t1 = 0.05
    decay = (t1 / t0) ** (1.0 / iters)
    temp = t0
    starts = (0, ROUND_END[0] + 1, ROUND_END[1] + 1)
    sizes = (ROUND_SIZES[0], ROUND_SIZES[1], ROUND_SIZES[2] - 1)
    for _ in range(iters):
        temp *= decay
        p = randint(rng, N_PLACE)
        q = -1
        if randint(rng, 2) == 0 or p == N_PLACE - 1:
            if p == N_PLACE - 1 and last_rotmask != ROT_BOTH:
                continue
            cur_plan[p, 1] ^= 1
        else:
            r = round_of(p) - 1
            q = starts[r] + randint(rng, sizes[r])
            if q == p:
                continue
            _swap_plan_rows(cur_plan, p, q)
        v = plan_total(state, tables, cells, cur_plan, work, log)
        if v >= cur or random_float(rng) < np.exp((v - cur) / temp):
            cur = v
            if v > best:
                best = v
                plan[:, :] = cur_plan
        else:  # undo the move
            if q < 0:
                cur_plan[p, 1] ^= 1
            else:
                _swap_plan_rows(cur_plan, p, q)
    return best


@njit(cache=True)
def oracle_full(state, tables, cells, seq, last_rotmask, beam, iters, rng, plan):
    """The ``oracle`` policy's plan: ``oracle_plan`` (beam + exact round 3), then
    ``improve_plan`` (annealing), then an exact round 3 again on the improved rounds 1-2.
    Writes the plan into ``plan`` (int64[22, 2]) and returns its total, a lower bound on the
    best achievable total of the deal (exact only if every stage was exhaustive)."""
    oracle_plan(state, tables, cells, seq, last_rotmask, beam, plan)
    best = improve_plan(state, tables, cells, last_rotmask, plan, iters, rng)
    work = state.copy()
    log = np.zeros(LOGN, dtype=np.int64)
    banked = 0
    for pos in range(ROUND_END[1] + 1):
        place(work, tables, cells[pos], plan[pos, 0], plan[pos, 1], log)
        if pos == ROUND_END[0] or pos == ROUND_END[1]:
            banked += score_round(work, round_of(pos))
    tmp = plan.copy()
    v = banked + _exact_round3(work, tables, cells, seq, last_rotmask, tmp)
    if v > best:
        best = v
        plan[ROUND_END[1] + 1 :, :] = tmp[ROUND_END[1] + 1 :, :]
    return best


@njit(cache=True)
def _search_copy(dst, src):
    for r in range(S_ROWS):
        for k in range(N_NODES):
            dst[r, k] = src[r, k]


@njit(cache=True)
def _shuffle_sc(state, rng, start, stop):
    """Fisher-Yates over ``state[SC, start:stop]``."""
    for j in range(stop - 1, start, -1):
        m = start + randint(rng, j - start + 1)
        tmp = state[SC, j]
        state[SC, j] = state[SC, m]
        state[SC, m] = tmp


@njit(cache=True)
def _search_determinize(state, ctx, rng):
    """Sample what the player has not seen: the cells of the later placements (the empty cells
    but the current one), the order of the unrevealed tiles (the tiles not yet revealed), and
    the set-aside tile's orientation (variant random, before it is revealed). Each is rebuilt
    in ascending order from what is known and shuffled, so the old values are never read."""
    tables, last_rand = ctx[CTX_TABLES], ctx[CTX_LAST_RAND]
    n_land = tables.shape[0] - 2
    pos = state[SC, SC_POS]
    if pos >= N_PLACE - 1:
        return
    cur = state[SC, SC_FCELLS + pos]
    k = SC_FCELLS + pos + 1
    for c in range(N_CELLS):
        if state[CELLS, c] < 0 and c != cur:
            state[SC, k] = c
            k += 1
    _shuffle_sc(state, rng, SC_FCELLS + pos + 1, SC_FCELLS + N_PLACE)
    nrev = n_revealed(pos)
    seen = 0
    for j in range(nrev):
        seen |= 1 << state[SC, SC_SEQ + j]
    k = SC_SEQ + nrev
    for t in range(n_land):
        if not (seen >> t) & 1:
            state[SC, k] = t
            k += 1
    _shuffle_sc(state, rng, SC_SEQ + nrev, SC_SEQ + n_land)
    if last_rand:
        state[SC, SC_LROT] = 1 << randint(rng, 2)


@njit(cache=True)
def _tree_allow(state, tables, cell, hand, nh, rotmask, forbid, log, saved):
    """The permitted options of a tree node (bits ``2 * i + o``): all when ``forbid`` is None
    (pruned by type) or its mask is 0 or every option is forbidden (§8)."""
    if forbid is None:
        return ALLOW_ALL
    if forbid[RS_MASK] == 0:
        return ALLOW_ALL
    allow, legal = permitted(state, tables, cell, hand, nh, rotmask, forbid[RS_MASK], log, saved)
    return legal if allow == 0 else allow


@njit(cache=True)
def _search_legal(state, ctx, moves):
    """Moves ``(cell * n_tiles + tile) * 2 + rotation``: the cell is part of the move, so a node's
    children differ with the position card seen (information sets, not open loop). Under a
    restriction (``ctx.forbid``'s mask, §8) only the permitted moves, or all when every one is
    forbidden."""
    pos = state[SC, SC_POS]
    if pos >= N_PLACE:
        return 0
    n_tiles = ctx[CTX_TABLES].shape[0]
    cell = state[SC, SC_FCELLS + pos]
    nh = state[SC, SC_NH]
    n = 0
    if pos == N_PLACE - 1:
        rotmask = state[SC, SC_LROT]
        first = nh - 1
    else:
        rotmask = ROT_BOTH
        first = 0
    allow = _tree_allow(
        state, ctx.tables, cell, state[SC, SC_HAND + first : SC_HAND + nh], nh - first, rotmask,
        ctx.forbid, ctx.log, ctx.saved,
    )  # fmt: skip
    for i in range(first, nh):
        base = (cell * n_tiles + state[SC, SC_HAND + i]) * 2
        for o in range(2):
            if (rotmask >> o) & 1 and allowed(allow, i - first, o):
                moves[n] = base + o
                n += 1
    return n


@njit(cache=True)
def _search_to_move(state, ctx):
    return 0


@njit(cache=True)
def _search_apply(state, ctx, move):
    tables = ctx[CTX_TABLES]
    n_tiles = tables.shape[0]
    t = (move >> 1) % n_tiles
    o = move & 1
    pos = state[SC, SC_POS]
    nh = state[SC, SC_NH]
    i = 0
    while state[SC, SC_HAND + i] != t:
        i += 1
    state[SC, SC_HAND + i] = state[SC, SC_HAND + nh - 1]
    nh -= 1
    place(state, tables, state[SC, SC_FCELLS + pos], t, o, ctx[CTX_LOG])
    rnd = round_of(pos)
    if pos == ROUND_END[rnd - 1]:
        state[SC, SC_BANK] += score_round(state, rnd)
    pos += 1
    if pos < N_PLACE:
        n_land = tables.shape[0] - 2
        nh = reveal(
            state[SC, SC_HAND : SC_HAND + HAND_SLOTS], nh, state[SC, SC_SEQ : SC_SEQ + n_land], pos
        )
    state[SC, SC_POS] = pos
    state[SC, SC_NH] = nh


@njit(cache=True)
def _search_rollout(state, ctx, rng, scores):
    tables, last_rand, base, weights, log, saved, open_ends, no_breakdown, rollout_moves, rs = ctx
    pos = state[SC, SC_POS]
    total = state[SC, SC_BANK]
    if pos < N_PLACE:
        n_land = tables.shape[0] - 2
        total += _run_simple(
            state,
            tables,
            state[SC, SC_FCELLS : SC_FCELLS + N_PLACE],
            state[SC, SC_SEQ : SC_SEQ + n_land],
            pos,
            state[SC, SC_HAND : SC_HAND + HAND_SLOTS],
            state[SC, SC_NH] - _revealed_at(pos),
            base,
            weights,
            state[SC, SC_LROT],
            rng,
            PlacementScratch(log, saved, open_ends),
            SeatOutputs(no_breakdown, np.int64(0), rollout_moves),
            rs,
        )
    scores[0] = total


search.register(
    DonQuixoteSearchContext,
    copy=lambda dst, src, ctx: _search_copy(dst, src),
    determinize=lambda state, ctx, rng: _search_determinize(state, ctx, rng),
    legal=lambda state, ctx, moves: _search_legal(state, ctx, moves),
    to_move=lambda state, ctx: _search_to_move(state, ctx),
    apply=lambda state, ctx, move: _search_apply(state, ctx, move),
    rollout=lambda state, ctx, rng, scores: _search_rollout(state, ctx, rng, scores),
)


@njit(cache=True)
def search_root(state, tables, cells, seq, pos, hand, nh, bank, last_rotmask, last_rand, root):
    """Write the search state of placement ``pos`` into ``root`` (int64[S_ROWS, N_NODES]): the
    estate ``state``, the hand ``hand[:nh]`` (after the reveals of ``pos``), the points banked and
    what the player has seen of the deal. Hidden values (later cells, unrevealed tiles, the
    set-aside tile's orientation before it is revealed under variant random) are written as
    -1 / 3."""
    n_land = tables.shape[0] - 2
    root[:, :] = state
    root[SC, SC_POS] = pos
    root[SC, SC_NH] = nh
    root[SC, SC_BANK] = bank
    root[SC, SC_LROT] = last_rotmask if (pos == N_PLACE - 1 or not last_rand) else ROT_BOTH
    for i in range(HAND_SLOTS):
        root[SC, SC_HAND + i] = hand[i] if i < nh else -1
    for j in range(N_PLACE):
        root[SC, SC_FCELLS + j] = cells[j] if j <= pos else -1
    nrev = n_revealed(pos)
    for j in range(n_land):
        root[SC, SC_SEQ + j] = seq[j] if j < nrev else -1


@njit(cache=True)
def choose_mcts(
    params, state, tables, cells, seq, pos, hand, nh, bank, last_rotmask, last_rand, rng, scratch,
    rs,
):  # fmt: skip
    """(hand index, orientation) of placement ``pos`` by ISMCTS (``kernels.search``) with the
    ``mcts`` parameters ``M_*``; ``scratch`` from ``search_scratch``. Reads of the deal only what
    the player has seen (``search_root``). ``rs``: None or the player's restriction (§8,
    ``kernels.don_quixote.restrict``), whose mask the tree's moves (the root's too) and the
    rollouts obey (its counts are not changed)."""
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
        weights,
        log,
        saved,
        open_ends,
        no_breakdown,
        rollout_moves,
    ) = scratch
    search_root(state, tables, cells, seq, pos, hand, nh, bank, last_rotmask, last_rand, root)
    for k in range(N_HEUR):
        weights[k] = params[M_WEIGHTS + k]
    forbid = rs  # None: the unrestricted search compiles no restricted-play code
    if rs is not None:
        forbid = np.zeros(RS_WIDTH, dtype=np.int64)  # the rollouts' counts are scratch
        forbid[RS_MASK] = rs[RS_MASK]
    ctx = DonQuixoteSearchContext(
        tables,
        last_rand,
        np.int64(params[M_ROLLOUT]),
        weights,
        log,
        saved,
        open_ends,
        no_breakdown,
        rollout_moves,
        forbid,
    )
    move = search.search(
        root,
        ctx,
        np.int64(params[M_ITER]),
        params[M_C],
        search.REWARD_MARGIN,
        SEARCH_SCALE,
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
    n_tiles = tables.shape[0]
    t = (move >> 1) % n_tiles
    i = 0
    while hand[i] != t:
        i += 1
    return i, move & 1


@njit(cache=True)
def search_scratch(tables, capacity):
    """Scratch of ``choose_mcts`` for trees of ``capacity`` nodes (a tuple of arrays)."""
    n_tiles = tables.shape[0]
    return (
        np.zeros((S_ROWS, N_NODES), np.int64),
        np.zeros((S_ROWS, N_NODES), np.int64),
        np.zeros((capacity, search.TREE_COLS), np.int64),
        np.zeros(capacity, np.float64),
        np.zeros(capacity, np.float64),
        np.zeros(32, np.int64),
        np.zeros(32, np.int64),
        np.zeros(N_CELLS * n_tiles * 2, np.int64),
        np.zeros(N_PLACE + 2, np.int64),
        np.zeros(1, np.float64),
        np.zeros(1, np.float64),
        HEUR_DEFAULT.copy(),
        np.zeros(LOGN, np.int64),
        np.zeros(SC_SAVE, np.int64),
        np.zeros(N_NODES, np.int64),
        np.zeros((0, 3, N_CAT), np.int64),
        np.zeros((N_PLACE, 2), np.int64),
    )


@njit(cache=True)
def search_capacity(policy_ids, policy_params):
    """Tree nodes needed by the ``mcts`` seats of a game (iterations + 1; 2 if none)."""
    cap = 2
    for p in range(policy_ids.shape[0]):
        if policy_ids[p] == POL_MCTS:
            cap = max(cap, np.int64(policy_params[p, M_ITER]) + 1)
    return cap
