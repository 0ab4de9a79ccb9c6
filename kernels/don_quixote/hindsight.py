"""Don Quixote: the exact round-3 endgame and the hindsight policy.

* ``r3_choose`` / ``r3_value``: round 3 solved exactly (``docs/rules/don_quixote.md`` §3.2).
  All tiles of round 3 are face up (the five to choose from and the set-aside one) and the
  empty cells are known; only the order in which the remaining cells are called is random,
  uniform over the empty cells, and the set-aside tile goes to the last one (in either
  orientation under ``last_tile_rotation=free``, §3.7.4; under ``random`` its orientation
  is one of the two with probability 1/2 until placement 21, where it is seen). Expectimax:
  a chance node per called cell, the best (tile, orientation) per placement, memoised over
  the partial assignment (which tile, in which orientation, lies on which empty cell: at
  most 11^6 keys); the value of a full estate is scoring 3 (knight bonus included). The
  points of scorings 1 and 2 are banked and do not depend on round-3 moves.
* ``choose_hindsight``: hindsight optimisation (determinization in hindsight; Chong, Givan
  and Chang 2000; Yoon, Fern, Givan and Kambhampati 2008). At a placement it samples K
  futures consistent with what the player has seen (the cells of the later placements, the
  order of the unrevealed tiles, the set-aside tile's orientation under variant random),
  solves each sampled future with full knowledge by a beam search (``hindsight_beam``) for
  every candidate (tile, orientation), the same K futures for every candidate, and plays the
  best mean. In round 3 it plays ``r3_choose`` (``endgame=1``) or the same sampled search.
"""

import numpy as np
from numba import njit

from kernels.don_quixote.layout import (
    CELLS,
    CH,
    HAND_SLOTS,
    HEUR_DEFAULT,
    HS_BEAM,
    HS_ENDGAME,
    HS_HORIZON,
    HS_ITERS,
    HS_K,
    LOGN,
    N_CELLS,
    N_NODES,
    N_PLACE,
    ROT_BOTH,
    ROUND_END,
    ROUND_SIZES,
    S_ROWS,
    SC,
    SC_SAVE,
    WM,
)
from kernels.don_quixote.policies import heuristic_value
from kernels.don_quixote.restrict import (
    ALLOW_ALL,
    allowed,
    feature_total,
    forbidden_placed,
)
from kernels.don_quixote.rules import n_revealed, place, round_of, score_round, unplace
from kernels.rng import next_u64, randint, random_float, seed_state

#: codes of an empty cell and of (tile j, orientation o) in a memo key digit: 0, 1 + 2j + o
R3_MAX_CELLS = 6
#: points one forbidden placement costs a sampled future's plan in the annealing of a
#: restricted player (§8): more than any plan can score, so fewer forbidden placements
#: always rank first (and a worse step of that size is never accepted at 2 points or less)
FORBID_PENALTY = 1000.0


@njit(cache=True)
def _r3_leaf(state, tables, cell, last_t, last_rotmask, last_avg, log, saved, fmask):
    """Scoring 3 after the set-aside tile ``last_t`` goes to ``cell``: the best allowed
    orientation (the best permitted one under forbid mask ``fmask``, §8, unless both are
    forbidden), or the mean of both when it is not known yet (``last_avg``)."""
    nc = feature_total(state, CH) if fmask != 0 else 0
    nw = feature_total(state, WM) if fmask != 0 else 0
    for k in range(SC_SAVE):
        saved[k] = state[SC, k]
    best = -1.0
    best_ok = -1.0
    acc = 0.0
    for o in range(2):
        if not last_avg and not (last_rotmask >> o) & 1:
            continue
        place(state, tables, cell, last_t, o, log)
        v = np.float64(score_round(state, np.int64(3)))
        ok = fmask == 0 or not forbidden_placed(state, tables, cell, last_t, o, fmask, nc, nw)
        unplace(state, tables, cell, log, saved)
        acc += v
        if v > best:
            best = v
        if ok and v > best_ok:
            best_ok = v
    if last_avg:
        return acc / 2.0
    return best_ok if best_ok >= 0.0 else best


@njit(cache=True)
def _r3_value(
    state, tables, slots, m, tl, nt, last_t, last_rotmask, last_avg, filled, used, key, depth,
    pw, memo, logs, saved, fmask,
):  # fmt: skip
    """Expected scoring 3 of the estate with slots ``filled`` (bit s = ``slots[s]`` taken) and
    tiles ``used`` (bit j = ``tl[j]`` placed), before the next cell is called. Under forbid
    mask ``fmask`` (0 none, §8) each placement takes the best permitted move, or the best of
    all when every move is forbidden."""
    if memo[key] >= 0.0:
        return memo[key]
    n_empty = m - depth
    if n_empty == 1:
        s = 0
        while (filled >> s) & 1:
            s += 1
        v = _r3_leaf(state, tables, slots[s], last_t, last_rotmask, last_avg, logs[depth],
                     saved[depth], fmask)  # fmt: skip
        memo[key] = v
        return v
    acc = 0.0
    nc = feature_total(state, CH) if fmask != 0 else 0
    nw = feature_total(state, WM) if fmask != 0 else 0
    for s in range(m):
        if (filled >> s) & 1:
            continue
        for k in range(SC_SAVE):
            saved[depth, k] = state[SC, k]
        best = -1.0
        best_ok = -1.0
        for j in range(nt):
            if (used >> j) & 1:
                continue
            for o in range(2):
                place(state, tables, slots[s], tl[j], o, logs[depth])
                ok = fmask == 0 or not forbidden_placed(
                    state, tables, slots[s], tl[j], o, fmask, nc, nw
                )
                v = _r3_value(
                    state, tables, slots, m, tl, nt, last_t, last_rotmask, last_avg,
                    filled | (1 << s), used | (1 << j), key + (1 + 2 * j + o) * pw[s],
                    depth + 1, pw, memo, logs, saved, fmask,
                )  # fmt: skip
                unplace(state, tables, slots[s], logs[depth], saved[depth])
                if v > best:
                    best = v
                if ok and v > best_ok:
                    best_ok = v
        acc += best_ok if best_ok >= 0.0 else best
    v = acc / n_empty
    memo[key] = v
    return v


@njit(cache=True)
def r3_choose(
    state, tables, cells, seq, pos, hand, nh, last_rotmask, last_rand, out_value, fmask, allow
):
    """The move of maximal expected scoring 3 at round-3 placement ``pos`` (16..21).

    Parameters
    ----------
    state : int64[S_ROWS, N_NODES]  the estate (rounds 1-2 and placements 16..pos-1 done);
        restored on return
    cells : int64[22]  position-card order; only ``cells[:pos + 1]`` is read (the cells called
        so far) and the set of empty cells
    seq : int64[n_land]  reveal order; only ``seq[21]``, the set-aside tile, face up since
        round 3 began (§3.2), is read
    hand : int64[HAND_SLOTS]  face-up unplaced tiles ``hand[:nh]`` (the set-aside tile among
        them only at ``pos == 21``)
    last_rotmask : int  allowed orientations of the set-aside tile (seen only at ``pos ==
        21`` under variant random, ``last_rand``)
    out_value : float64[1]  out: the expected scoring 3 of the chosen move
    fmask : int  forbid mask of restricted play (0 none; docs/rules/don_quixote.md §8): the
        later placements of the expectimax take the best permitted move (all moves when
        every one is forbidden), as the player will
    allow : int  the moves permitted now (bits ``2 * hand index + orientation``,
        ``kernels.don_quixote.restrict``; read only when ``fmask`` is not 0)

    Returns
    -------
    (hand index, orientation)
    """
    cell = cells[pos]
    last_t = seq[N_PLACE - 1]
    last_avg = last_rand and pos < N_PLACE - 1
    log = np.zeros(LOGN, dtype=np.int64)
    saved0 = np.zeros(SC_SAVE, dtype=np.int64)
    if pos == N_PLACE - 1:
        i = 0
        while hand[i] != last_t:
            i += 1
        for k in range(SC_SAVE):
            saved0[k] = state[SC, k]
        best_o = 0
        best = -1.0
        for o in range(2):
            if not (last_rotmask >> o) & 1:
                continue
            if fmask != 0 and not allowed(allow, i, o):
                continue
            place(state, tables, cell, last_t, o, log)
            v = np.float64(score_round(state, np.int64(3)))
            unplace(state, tables, cell, log, saved0)
            if v > best:
                best = v
                best_o = o
        out_value[0] = best
        return i, best_o
    # slots: the empty cells, the current one first; tiles: the hand (set-aside tile excluded)
    slots = np.empty(R3_MAX_CELLS, dtype=np.int64)
    slots[0] = cell
    m = np.int64(1)
    for c in range(N_CELLS):
        if state[CELLS, c] < 0 and c != cell:
            slots[m] = c
            m += 1
    tl = np.empty(R3_MAX_CELLS, dtype=np.int64)
    hi = np.empty(R3_MAX_CELLS, dtype=np.int64)
    nt = np.int64(0)
    for i in range(nh):
        if hand[i] != last_t:
            tl[nt] = hand[i]
            hi[nt] = i
            nt += 1
    base = 2 * nt + 1
    pw = np.empty(R3_MAX_CELLS, dtype=np.int64)
    size = 1
    for s in range(m):
        pw[s] = size
        size *= base
    memo = np.full(size, -1.0)
    logs = np.zeros((R3_MAX_CELLS + 1, LOGN), dtype=np.int64)
    saved = np.zeros((R3_MAX_CELLS + 1, SC_SAVE), dtype=np.int64)
    for k in range(SC_SAVE):
        saved0[k] = state[SC, k]
    best = -1.0
    best_j = 0
    best_o = 0
    for j in range(nt):
        for o in range(2):
            if fmask != 0 and not allowed(allow, hi[j], o):
                continue
            place(state, tables, cell, tl[j], o, log)
            v = _r3_value(
                state, tables, slots, m, tl, nt, last_t, last_rotmask, last_avg,
                np.int64(1), np.int64(1 << j), (1 + 2 * j + o) * pw[0], np.int64(1), pw, memo,
                logs, saved, fmask,
            )  # fmt: skip
            unplace(state, tables, cell, log, saved0)
            if v > best:
                best = v
                best_j = j
                best_o = o
    out_value[0] = best
    return hi[best_j], best_o


@njit(cache=True)
def r3_value(state, tables, cells, seq, pos, hand, nh, last_rotmask, last_rand):
    """Expected scoring 3 of optimal play from round-3 placement ``pos`` (before its cell's
    tile is chosen; arguments as ``r3_choose``)."""
    out = np.zeros(1)
    r3_choose(
        state, tables, cells, seq, pos, hand, nh, last_rotmask, last_rand, out, np.int64(0),
        ALLOW_ALL,
    )  # fmt: skip
    return out[0]


# ---------------------------------------------------------------- full-knowledge beam
@njit(cache=True)
def hindsight_beam(state, tables, cells, seq, pos0, avail, last_rotmask, beam, bufs, plan, fmask):
    """Points of scorings after placement ``pos0 - 1`` that a full-knowledge beam search
    reaches on one known future (``cells``, ``seq``, the set-aside tile's ``last_rotmask``).

    ``state`` is the estate before placement ``pos0`` (left unchanged); ``avail`` the bit mask
    of the face-up unplaced tiles before the reveals of ``pos0``. Each step ranks every
    (beam state, tile, orientation) by points banked + scoring now (if the round ends) + the
    default heuristic (``heuristic_value``) and keeps the ``beam`` best.
    ``bufs`` from ``hindsight_buffers``. Returns the best banked total at the end (int) and
    writes its (tile, orientation) per placement ``pos0 .. 21`` into ``plan`` (int64[22, 2]).
    ``fmask``: the player's forbid mask (0 none, §8): from each beam state only its permitted
    (tile, orientation) pairs are expanded, or all when every one is forbidden.
    """
    (beam_states, next_states, av, av2, banked, banked2, cb, ct, co, cv, cgain, log, saved,
     open_ends, weights, plans, plans2, cbad) = bufs  # fmt: skip
    B = beam
    beam_states[0, :, :] = state
    av[0] = avail
    banked[0] = 0
    nb = 1
    for pos in range(pos0, N_PLACE):
        rnd = round_of(pos)
        add = 0
        if pos == ROUND_END[0] + 1:
            for j in range(ROUND_SIZES[0], ROUND_SIZES[0] + ROUND_SIZES[1]):
                add |= 1 << seq[j]
        elif pos == ROUND_END[1] + 1:
            for j in range(ROUND_SIZES[0] + ROUND_SIZES[1], N_PLACE - 1):
                add |= 1 << seq[j]
        last = pos == N_PLACE - 1
        cell = cells[pos]
        at_end = pos == ROUND_END[rnd - 1]
        nxt = rnd + 1 if at_end else rnd
        nc = 0
        for b in range(nb):
            av[b] |= add
            bs = beam_states[b]
            for k in range(SC_SAVE):
                saved[k] = bs[SC, k]
            m = (1 << seq[N_PLACE - 1]) if last else av[b]
            t = np.int64(0)
            nc0 = nc
            n_ok = 0
            f_nc = feature_total(bs, CH) if fmask != 0 else 0
            f_nw = feature_total(bs, WM) if fmask != 0 else 0
            while m:
                if m & 1:
                    for o in range(2):
                        if last and not (last_rotmask >> o) & 1:
                            continue
                        place(bs, tables, cell, t, o, log)
                        if fmask != 0:
                            bad = forbidden_placed(bs, tables, cell, t, o, fmask, f_nc, f_nw)
                            cbad[nc] = bad
                            if not bad:
                                n_ok += 1
                        gain = score_round(bs, rnd) if at_end else 0
                        cb[nc] = b
                        ct[nc] = t
                        co[nc] = o
                        cgain[nc] = gain
                        if last:
                            cv[nc] = banked[b] + gain
                        else:
                            cv[nc] = (
                                banked[b]
                                + gain
                                + heuristic_value(bs, tables, min(nxt, 3), weights, open_ends)
                            )
                        nc += 1
                        unplace(bs, tables, cell, log, saved)
                m >>= 1
                t += 1
            if fmask != 0 and 0 < n_ok < nc - nc0:
                # keep only this state's permitted candidates (in order)
                q = nc0
                for c in range(nc0, nc):
                    if not cbad[c]:
                        cb[q] = cb[c]
                        ct[q] = ct[c]
                        co[q] = co[c]
                        cgain[q] = cgain[c]
                        cv[q] = cv[c]
                        q += 1
                nc = q
        if last:
            best = -1
            for c in range(nc):
                v = banked[cb[c]] + cgain[c]
                if v > best:
                    best = v
                    for j in range(pos0, N_PLACE - 1):
                        plan[j, 0] = plans[cb[c], j, 0]
                        plan[j, 1] = plans[cb[c], j, 1]
                    plan[N_PLACE - 1, 0] = ct[c]
                    plan[N_PLACE - 1, 1] = co[c]
            return best
        nb2 = min(B, nc)
        # partial selection of the nb2 best (deterministic order)
        for q in range(nb2):
            bi = q
            for c in range(q + 1, nc):
                if cv[c] > cv[bi]:
                    bi = c
            if bi != q:
                cb[q], cb[bi] = cb[bi], cb[q]
                ct[q], ct[bi] = ct[bi], ct[q]
                co[q], co[bi] = co[bi], co[q]
                cv[q], cv[bi] = cv[bi], cv[q]
                cgain[q], cgain[bi] = cgain[bi], cgain[q]
        for q in range(nb2):
            b = cb[q]
            next_states[q, :, :] = beam_states[b]
            place(next_states[q], tables, cell, ct[q], co[q], log)
            av2[q] = av[b] & ~(1 << ct[q])
            banked2[q] = banked[b] + cgain[q]
            for j in range(pos0, pos):
                plans2[q, j, 0] = plans[b, j, 0]
                plans2[q, j, 1] = plans[b, j, 1]
            plans2[q, pos, 0] = ct[q]
            plans2[q, pos, 1] = co[q]
        plans, plans2 = plans2, plans
        beam_states, next_states = next_states, beam_states
        av, av2 = av2, av
        banked, banked2 = banked2, banked
        nb = nb2
    return 0


@njit(cache=True)
def hindsight_buffers(beam):
    """Scratch of ``hindsight_beam`` for a beam of width ``beam`` (a tuple of arrays)."""
    B = max(beam, 1)
    maxc = B * 2 * HAND_SLOTS
    return (
        np.empty((B, S_ROWS, N_NODES), dtype=np.int64),
        np.empty((B, S_ROWS, N_NODES), dtype=np.int64),
        np.zeros(B, dtype=np.int64),
        np.zeros(B, dtype=np.int64),
        np.zeros(B, dtype=np.int64),
        np.zeros(B, dtype=np.int64),
        np.empty(maxc, dtype=np.int64),
        np.empty(maxc, dtype=np.int64),
        np.empty(maxc, dtype=np.int64),
        np.empty(maxc, dtype=np.float64),
        np.empty(maxc, dtype=np.int64),
        np.zeros(LOGN, dtype=np.int64),
        np.zeros(SC_SAVE, dtype=np.int64),
        np.zeros(N_NODES, dtype=np.int64),
        HEUR_DEFAULT.copy(),
        np.zeros((B, N_PLACE, 2), dtype=np.int64),
        np.zeros((B, N_PLACE, 2), dtype=np.int64),
        np.zeros(maxc, dtype=np.bool_),
    )


@njit(cache=True)
def _sample_total(state, tables, cells, plan, pos0, stop, work, log, weights, open_ends, fmask):
    """``(points, forbidden)``: the points of the scorings at or after placement ``pos0`` when
    ``plan`` (int64[22, 2]) is played from ``pos0`` to ``stop`` on a copy (``work``) of
    ``state``, plus, when ``stop`` < 21, the default heuristic of the estate for the next
    round; and how many of those placements forbid mask ``fmask`` forbids (0 when 0, §8)."""
    work[:, :] = state
    total = 0.0
    n_bad = 0
    for pos in range(pos0, stop + 1):
        if fmask != 0:
            f_nc = feature_total(work, CH)
            f_nw = feature_total(work, WM)
        place(work, tables, cells[pos], plan[pos, 0], plan[pos, 1], log)
        if fmask != 0:
            if forbidden_placed(
                work, tables, cells[pos], plan[pos, 0], plan[pos, 1], fmask, f_nc, f_nw
            ):
                n_bad += 1
        if pos == ROUND_END[0] or pos == ROUND_END[1] or pos == ROUND_END[2]:
            total += score_round(work, round_of(pos))
    if stop < N_PLACE - 1:
        total += heuristic_value(work, tables, round_of(stop + 1), weights, open_ends)
    return total, n_bad


@njit(cache=True)
def anneal_sample(
    state, tables, cells, pos0, stop, last_rotmask, plan, iters, rng, work, cur, log, weights,
    open_ends, fmask,
):  # fmt: skip
    """Best total of the scorings at or after ``pos0`` found by simulated annealing of
    ``plan``'s placements ``pos0 .. 21`` on one known future (moves as the oracle's
    ``improve_plan``: swap the tiles of two placements of one round, never the set-aside
    tile, or turn one tile; temperature 2 -> 0.05 points). ``plan`` becomes the best plan;
    ``cur`` (int64[22, 2]) and ``work`` (an estate) are scratch. Under forbid mask ``fmask``
    (§8) a plan is ranked first by its forbidden placements (fewer is better: a step that adds
    one is never taken while the best has fewer), then by points; the points are returned."""
    pts, n_bad = _sample_total(
        state, tables, cells, plan, pos0, stop, work, log, weights, open_ends, fmask
    )
    best = pts - FORBID_PENALTY * n_bad
    if iters <= 0 or pos0 > stop:
        return pts
    best_pts = pts
    cur[:, :] = plan
    v_cur = best
    temp = 2.0
    decay = (0.05 / 2.0) ** (1.0 / iters)
    n = stop + 1 - pos0
    for _ in range(iters):
        temp *= decay
        p = pos0 + randint(rng, n)
        q = -1
        if randint(rng, 2) == 0 or p == N_PLACE - 1:
            if p == N_PLACE - 1 and last_rotmask != ROT_BOTH:
                continue
            cur[p, 1] ^= 1
        else:
            r = round_of(p) - 1
            lo = max(pos0, 0 if r == 0 else ROUND_END[r - 1] + 1)
            hi = ROUND_END[r] if r < 2 else N_PLACE - 2
            if hi <= lo:
                continue
            q = lo + randint(rng, hi - lo + 1)
            if q == p:
                continue
            for k in range(2):
                tmp = cur[p, k]
                cur[p, k] = cur[q, k]
                cur[q, k] = tmp
        pts, n_bad = _sample_total(
            state, tables, cells, cur, pos0, stop, work, log, weights, open_ends, fmask
        )
        v = pts - FORBID_PENALTY * n_bad
        if v >= v_cur or random_float(rng) < np.exp((v - v_cur) / temp):
            v_cur = v
            if v > best:
                best = v
                best_pts = pts
                plan[:, :] = cur
        else:
            if q < 0:
                cur[p, 1] ^= 1
            else:
                for k in range(2):
                    tmp = cur[p, k]
                    cur[p, k] = cur[q, k]
                    cur[q, k] = tmp
    return best_pts


@njit(cache=True)
def choose_hindsight(
    params, state, tables, cells, seq, pos, hand, nh, rotmask, last_rand, rng, fmask, allow
):
    """(hand index, orientation) of placement ``pos`` by the ``hindsight`` policy (parameters
    ``HS_*``: samples K, beam width of the start plans, annealing steps per candidate and
    sample, endgame 1 = ``r3_choose`` in round 3).

    Reads of the deal only what the player has seen: ``cells[:pos + 1]``, the empty cells,
    ``seq[:n_revealed(pos)]`` (and ``seq[21]`` in round 3, face up, §3.2), the hand, and
    ``rotmask`` at ``pos == 21``. Draws from ``rng`` (the seat's policy stream) the K futures,
    the same for every candidate.

    Restricted play (§8): ``fmask`` the player's forbid mask (0 none), ``allow`` the permitted
    candidates now (bits ``2 * hand index + orientation``, ``kernels.don_quixote.restrict``);
    the sampled futures' own placements obey the mask too (``hindsight_beam``,
    ``anneal_sample``), as does the round-3 solver.
    """
    rnd = round_of(pos)
    if rnd == 3 and params[HS_ENDGAME] >= 1:
        out = np.zeros(1)
        return r3_choose(
            state, tables, cells, seq, pos, hand, nh, rotmask, last_rand, out, fmask, allow
        )
    first = nh - 1 if pos == N_PLACE - 1 else 0
    if fmask == 0:
        allow = ALLOW_ALL
    n_cand = 0
    for i in range(first, nh):
        for o in range(2):
            if (rotmask >> o) & 1 and allowed(allow, i, o):
                n_cand += 1
    if n_cand == 1:
        for i in range(first, nh):
            for o in range(2):
                if (rotmask >> o) & 1 and allowed(allow, i, o):
                    return i, o
    K = max(int(params[HS_K]), 1)
    B = max(int(params[HS_BEAM]), 1)
    cell = cells[pos]
    nrev = n_revealed(pos)
    if rnd == 3:
        nrev = N_PLACE  # the set-aside tile is face up (§3.2)
    n_land = seq.shape[0]
    # K futures: the empty cells but the current one, shuffled; the unrevealed tiles shuffled
    fut_cells = np.empty((K, N_PLACE), dtype=np.int64)
    fut_seq = np.empty((K, n_land), dtype=np.int64)
    fut_lrot = np.empty(K, dtype=np.int64)
    for k in range(K):
        for j in range(pos + 1):
            fut_cells[k, j] = cells[j]
        q = pos + 1
        for c in range(N_CELLS):
            if state[CELLS, c] < 0 and c != cell:
                fut_cells[k, q] = c
                q += 1
        for j in range(N_PLACE - 1, pos + 1, -1):
            m = pos + 1 + randint(rng, j - pos)
            tmp = fut_cells[k, j]
            fut_cells[k, j] = fut_cells[k, m]
            fut_cells[k, m] = tmp
        seen = 0
        for j in range(nrev):
            fut_seq[k, j] = seq[j]
            seen |= 1 << seq[j]
        q = nrev
        for t in range(n_land):
            if not (seen >> t) & 1:
                fut_seq[k, q] = t
                q += 1
        for j in range(n_land - 1, nrev, -1):
            m = nrev + randint(rng, j - nrev + 1)
            tmp = fut_seq[k, j]
            fut_seq[k, j] = fut_seq[k, m]
            fut_seq[k, m] = tmp
        if last_rand and pos < N_PLACE - 1:
            fut_lrot[k] = 1 << randint(rng, 2)
        else:
            fut_lrot[k] = rotmask if pos == N_PLACE - 1 else ROT_BOTH
    iters = int(params[HS_ITERS])
    bufs = hindsight_buffers(B)
    log = np.zeros(LOGN, dtype=np.int64)
    saved = np.zeros(SC_SAVE, dtype=np.int64)
    for k in range(SC_SAVE):
        saved[k] = state[SC, k]
    hand_mask = np.int64(0)
    for i in range(nh):
        hand_mask |= 1 << hand[i]
    at_end = pos == ROUND_END[rnd - 1]
    # per sample: a start plan of placements pos .. 21 by the full-knowledge beam (the current
    # placement free), then per candidate that plan with the candidate forced at ``pos``
    # (its tile swapped in from where the plan put it) and annealed with the sample's own
    # move stream (the same for every candidate)
    start = np.zeros((K, N_PLACE, 2), dtype=np.int64)
    fut_seed = np.empty(K, dtype=np.uint64)
    for k in range(K):
        if iters > 0:
            hindsight_beam(
                state, tables, fut_cells[k], fut_seq[k], pos, hand_mask, fut_lrot[k], B, bufs,
                start[k], fmask,
            )  # fmt: skip
        fut_seed[k] = next_u64(rng)
    plan = np.zeros((N_PLACE, 2), dtype=np.int64)
    cur = np.zeros((N_PLACE, 2), dtype=np.int64)
    work = np.empty_like(state)
    work_log = np.zeros(LOGN, dtype=np.int64)  # not ``log``: that one undoes the candidate
    local = np.empty(4, dtype=np.uint64)
    rend = ROUND_END[rnd - 1] if rnd < 3 else N_PLACE - 2
    stop = N_PLACE - 1 if params[HS_HORIZON] < 1 else ROUND_END[rnd - 1]
    weights = HEUR_DEFAULT.copy()
    open_ends = np.zeros(N_NODES, dtype=np.int64)
    best_v = -1.0e300
    best_i = first
    best_o = 0
    for i in range(first, nh):
        t = hand[i]
        for o in range(2):
            if not (rotmask >> o) & 1:
                continue
            if not allowed(allow, i, o):
                continue
            place(state, tables, cell, t, o, log)
            gain = score_round(state, rnd) if at_end else 0
            acc = 0.0
            if pos < N_PLACE - 1 and iters <= 0:
                # no annealing: each candidate's own full-knowledge beam to the end
                for k in range(K):
                    acc += hindsight_beam(
                        state, tables, fut_cells[k], fut_seq[k], pos + 1, hand_mask & ~(1 << t),
                        fut_lrot[k], B, bufs, plan, fmask,
                    )  # fmt: skip
            elif pos < N_PLACE - 1:
                for k in range(K):
                    plan[:, :] = start[k]
                    for j in range(pos + 1, rend + 1):
                        if plan[j, 0] == t:
                            plan[j, 0] = plan[pos, 0]
                            plan[j, 1] = plan[pos, 1]
                    plan[pos, 0] = t
                    plan[pos, 1] = o
                    seed_state(local, fut_seed[k])
                    acc += anneal_sample(
                        state, tables, fut_cells[k], pos + 1, stop, fut_lrot[k], plan, iters,
                        local, work, cur, work_log, weights, open_ends, fmask,
                    )  # fmt: skip
            unplace(state, tables, cell, log, saved)
            v = gain + acc / K
            if v > best_v:
                best_v = v
                best_i = i
                best_o = o
    return best_i, best_o
