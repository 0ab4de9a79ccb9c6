"""Don Quixote: a learned afterstate value function (fitted Monte Carlo regression) as a policy.

Prototype for the brief dq26 (a playable policy toward 80 points). Not a policy of mcsim: on
the 300 deals of seed 4 its best form (the rollouts below) scores 70.86, level with ``mcts``
(benchmarks/RESULTS.md, "Don Quixote: a learned afterstate value function").

Method ("approximate policy iteration" with Monte Carlo targets):

* ``features`` (``phi``): a fixed vector of the estate right after a placement, the face-up
  tiles still in the hand and the tiles not yet placed (known as a set: the player knows its
  22 tiles): per castle the knights attached (>= 1 / 2 / 3) and the open road ends of its
  networks, church and windmill networks by size class with open ends, the running group
  points, the border shield sum against 4 / 8 / 12 with the shields still to come that could
  defend on the empty border cells, the best knight group and the best open knight network,
  open ends and the empty cells they face, the counts of knights / churches / windmills in
  the hand and among the unseen tiles.
* ``V_pos(phi) = W[pos] . phi``, one linear fit per placement index ``pos`` (0..20) of the
  points the game still scores after ``pos`` (scorings after it), least squares on games
  played by the current policy (``X'X`` and ``X'y`` summed in the kernel, ridge solve in
  numpy). The policy plays argmax over (tile, orientation) of (points of the scoring this
  placement ends, if any) + V. Iteration 0 plays the default heuristic.
* Round 3: the exact expectimax ``r3_choose`` (``endgame``), as ``mcts:endgame=1`` and
  ``hindsight``; placement 22 (the set-aside tile) the better orientation.
* ``depth=2``: a one-ply lookahead over the next called cell inside a round (chance uniform
  over the empty cells, the best reply from the remaining hand valued by V); at a round's
  last placement depth 1.
* ``--k K --top T`` (mode 2): rollouts. The T best candidates by depth-1 V, each valued by its
  immediate points + the mean of K completions on K futures sampled from what the player has
  not seen (the order of the empty cells still to be called, the order of the unrevealed
  tiles; the same futures for every candidate), the completions played by the depth-1 V
  policy (``--base 0``) or greedy (``--base 1``). Mode 3 calls the project's own
  ``rollout`` chooser (``_choose_rollout``) in the same loop: with its seat stream it
  reproduces ``mcsim evaluate -p rollout:base=1,k=128`` game by game.

The deals are those of ``mcsim evaluate`` (``kernels.don_quixote.rules.deal(seed, i, 1, ...)``);
``check`` proves it on the built-in heuristic, game by game.

Usage (PYTHONPATH=the worktree, the project's venv):

    python benchmarks/dq_value_policy.py check -n 40 --seed 7
    python benchmarks/dq_value_policy.py train --iters 4 --games 100000 --out /tmp/dqv
    python benchmarks/dq_value_policy.py eval --weights /tmp/dqv/w3.npy -n 40 --seed 7
    python benchmarks/dq_value_policy.py eval --weights benchmarks/dq_value_weights.json \
        --k 128 --top 18 -n 300 --seed 4 --ref /tmp/dqv/builtin_mcts_4_300.npy
    python benchmarks/dq_value_policy.py builtin --policy mcts -n 300 --seed 4 --out /tmp/dqv
"""

import argparse
import time
from pathlib import Path

import numpy as np
from numba import njit

from kernels.don_quixote.hindsight import r3_choose
from kernels.don_quixote.layout import (
    BB_BORDER,
    CELLS,
    CH,
    HAND_SLOTS,
    HEUR_DEFAULT,
    KN,
    LOGN,
    MAXP,
    N_CELLS,
    N_NODES,
    N_PLACE,
    NB_CELL,
    PAR,
    POL_GREEDY,
    POL_HEURISTIC,
    ROT_BOTH,
    ROUND_END,
    SC,
    SC_BONUS,
    SC_CHURCH,
    SC_CVAL,
    SC_DEF,
    SC_MILL,
    SC_SAVE,
    SC_STUB,
    SH,
    T_CH,
    T_DEF,
    T_KN,
    T_NP,
    T_PP,
    T_SH,
    T_WM,
    WM,
)
from kernels.don_quixote.policies import PlacementScratch, _choose_simple
from kernels.don_quixote.restrict import ALLOW_ALL
from kernels.don_quixote.rules import (
    castle_knights,
    deal,
    find,
    n_revealed,
    place,
    reveal,
    round_of,
    score_round,
    setup_estate,
    unplace,
)
from kernels.don_quixote.search_steps import _choose_rollout
from kernels.rng import STREAM_POLICY, new_state

NF = 64  # feature vector length (``features``)


@njit(cache=True)
def tile_attrs(tables):
    """Per landscape tile: knights, shield sum, churches, windmills (int64[n_land, 4])."""
    n = tables.shape[0] - 2
    a = np.zeros((n, 4), dtype=np.int64)
    for t in range(n):
        for k in range(tables[t, 0, T_NP]):
            a[t, 0] += tables[t, 0, T_KN + k]
            a[t, 1] += tables[t, 0, T_SH + k]
            a[t, 2] += tables[t, 0, T_CH + k]
            a[t, 3] += tables[t, 0, T_WM + k]
    return a


@njit(cache=True)
def features(state, tables, rnd, hnd, rem, unplaced, n_unplaced, oe, facing, x):
    """phi of the estate ``state`` (after a placement in round ``rnd``) into ``x`` (float64[NF]).

    ``hnd`` / ``rem`` int64[4]: knights, shields, churches, windmills in the hand / among all
    unplaced tiles (hand included); ``unplaced[:n_unplaced]`` the unplaced tiles; ``oe``
    int64[N_NODES] and ``facing`` int64[N_CELLS] zero scratch (zero again on return).
    """
    for i in range(NF):
        x[i] = 0.0
    x[0] = 1.0
    total_open = 0
    for cell in range(N_CELLS):
        t = state[CELLS, cell]
        if t < 0:
            continue
        o = state[CELLS, N_CELLS + cell]
        for p in range(6):
            k = tables[t, o, T_PP + p]
            if k < 0:
                continue
            nc = NB_CELL[cell, p]
            if nc < 0 or state[CELLS, nc] >= 0:
                continue
            r = find(state, cell * MAXP + k)
            oe[r] += 1
            facing[nc] += 1
            total_open += 1
    # castles: 1..14
    j = 1
    for c in range(2):
        k = castle_knights(state, c)
        a = state[SC, SC_STUB + 2 * c]
        b = state[SC, SC_STUB + 2 * c + 1]
        o_c = 0
        ra = -1
        if a >= 0:
            ra = find(state, a)
            o_c += oe[ra]
        if b >= 0:
            rb = find(state, b)
            if rb != ra:
                o_c += oe[rb]
        oc = min(o_c, 4)
        x[j] = 1.0 if k >= 1 else 0.0
        x[j + 1] = 1.0 if k >= 2 else 0.0
        x[j + 2] = 1.0 if k >= 3 else 0.0
        x[j + 3] = oc
        x[j + 4] = 1.0 if o_c > 0 else 0.0
        x[j + 5] = oc if k < 2 else 0.0
        x[j + 6] = oc if k < 3 else 0.0
        j += 7
    # networks: churches 15..21, windmills 22..28, knights 29..33
    x[15] = state[SC, SC_CHURCH]
    x[22] = state[SC, SC_MILL]
    best_open_sh = 0
    best_open_kn = 0
    kn_open = 0
    for r in range(N_NODES):
        if state[PAR, r] != r:
            continue
        o_r = oe[r]
        if o_r == 0:
            continue
        oc = min(o_r, 3)
        for q in range(2):
            n = state[CH, r] if q == 0 else state[WM, r]
            base = 16 if q == 0 else 23
            if n == 1:
                x[base] += 1.0
                x[base + 3] += oc
            elif n == 2:
                x[base + 1] += 1.0
                x[base + 4] += oc
            elif n >= 3:
                x[base + 2] += 1.0
                x[base + 5] += oc
                x[base + 6] += n
        kn = state[KN, r]
        if kn >= 1:
            kn_open += kn
            if state[SH, r] > best_open_sh:
                best_open_sh = state[SH, r]
            if kn > best_open_kn:
                best_open_kn = kn
    x[29] = state[SC, SC_BONUS]
    x[30] = best_open_sh
    x[31] = best_open_kn
    x[32] = kn_open
    x[33] = 1.0 if state[SC, SC_BONUS] > 0 else 0.0
    # defence 34..41
    S = state[SC, SC_DEF]
    x[34] = min(S, 12)
    x[35] = 1.0 if S >= 4 else 0.0
    x[36] = 1.0 if S >= 8 else 0.0
    x[37] = 1.0 if S >= 12 else 0.0
    # shields still to come that could defend on an empty border cell (upper bound)
    pot = 0
    for i in range(n_unplaced):
        t = unplaced[i]
        bestd = 0
        for cell in range(N_CELLS):
            if state[CELLS, cell] >= 0:
                continue
            for o in range(2):
                d = tables[t, o, T_DEF + cell]
                if d > bestd:
                    bestd = d
        pot += bestd
    x[38] = min(pot, 16)
    x[39] = 1.0 if S + pot >= 8 else 0.0
    x[40] = 1.0 if S + pot >= 12 else 0.0
    nb = 0
    for cell in range(N_CELLS):
        if state[CELLS, cell] < 0 and (BB_BORDER >> np.uint64(cell)) & np.uint64(1):
            nb += 1
    x[41] = nb
    # open ends and the empty cells they face 42..45
    x[42] = total_open
    f1 = 0
    f2 = 0
    for cell in range(N_CELLS):
        if facing[cell] == 1:
            f1 += 1
        elif facing[cell] >= 2:
            f2 += 1
        facing[cell] = 0
    x[43] = f1
    x[44] = f2
    # tiles: hand 46..49, unseen 50..53
    for q in range(4):
        x[46 + q] = hnd[q]
        x[50 + q] = rem[q] - hnd[q]
    # the score if the round were scored now, and its parts 54..56
    x[54] = score_round(state, rnd)
    x[55] = state[SC, SC_CHURCH] * (1.0 if rnd >= 1 else 0.0) + state[SC, SC_MILL]
    x[56] = 1.0 if 4 * rnd <= S else 0.0
    # castle knights short of the next scoring, weighted by value 57..58
    for c in range(2):
        k = castle_knights(state, c)
        x[57 + c] = state[SC, SC_CVAL + c] * (1.0 if k >= rnd + 1 else 0.0)
    # interactions 59..63
    x[59] = x[16] * (rem[2] - hnd[2])  # single open churches x unseen churches
    x[60] = x[23] * (rem[3] - hnd[3])
    x[61] = best_open_sh * (rem[0] - hnd[0])
    x[62] = x[16] * hnd[2]
    x[63] = x[23] * hnd[3]
    for r in range(N_NODES):
        oe[r] = 0
    return x


@njit(cache=True)
def _counts(hand, nh, attrs, out):
    for q in range(4):
        out[q] = 0
    for i in range(nh):
        for q in range(4):
            out[q] += attrs[hand[i], q]


@njit(cache=True)
def _value(state, tables, pos, W, hnd, rem, unplaced, n_unplaced, oe, facing, x):
    rnd = round_of(pos)
    features(state, tables, rnd, hnd, rem, unplaced, n_unplaced, oe, facing, x)
    v = 0.0
    for i in range(NF):
        v += W[pos, i] * x[i]
    return v


@njit(cache=True)
def choose_v(state, tables, cells, pos, hand, nh, W, attrs, unplaced, nu, depth, bufs, x):
    """(hand index, orientation) maximising immediate scoring + V (depth 1) or the one-ply
    expectimax over the next cell within the round (depth 2)."""
    log, saved, oe, facing, hnd, rem, log2, saved2, hand2, unpl2 = bufs
    cell = cells[pos]
    rnd = round_of(pos)
    at_end = pos == ROUND_END[rnd - 1]
    for k in range(SC_SAVE):
        saved[k] = state[SC, k]
    _counts(hand, nh, attrs, hnd)
    _counts(unplaced, nu, attrs, rem)
    best = -1e300
    bi = 0
    bo = 0
    for i in range(nh):
        t = hand[i]
        # the hand and the unplaced tiles without t
        m = 0
        for q in range(nu):
            if unplaced[q] != t:
                unpl2[m] = unplaced[q]
                m += 1
        mh = 0
        for q in range(nh):
            if q != i:
                hand2[mh] = hand[q]
                mh += 1
        for q in range(4):
            hnd[q] -= attrs[t, q]
            rem[q] -= attrs[t, q]
        for o in range(2):
            place(state, tables, cell, t, o, log)
            if depth >= 2 and not at_end and mh > 0:
                v = _lookahead(state, tables, pos + 1, hand2, mh, W, attrs, unpl2, m, bufs, x)
            else:
                v = _value(state, tables, pos, W, hnd, rem, unpl2, m, oe, facing, x)
                if at_end:
                    v += score_round(state, rnd)
            unplace(state, tables, cell, log, saved)
            if v > best:
                best = v
                bi = i
                bo = o
        for q in range(4):
            hnd[q] += attrs[t, q]
            rem[q] += attrs[t, q]
    return bi, bo


@njit(cache=True)
def _lookahead(state, tables, pos, hand, nh, W, attrs, unplaced, nu, bufs, x):
    """Expected best (immediate + V) at placement ``pos`` over the uniformly random next cell
    (the empty cells), from ``hand[:nh]`` (no reveal before ``pos``)."""
    log, saved, oe, facing, hnd, rem, log2, saved2, hand2, unpl2 = bufs
    rnd = round_of(pos)
    at_end = pos == ROUND_END[rnd - 1]
    for k in range(SC_SAVE):
        saved2[k] = state[SC, k]
    h = np.zeros(4, dtype=np.int64)
    rr = np.zeros(4, dtype=np.int64)
    _counts(hand, nh, attrs, h)
    _counts(unplaced, nu, attrs, rr)
    acc = 0.0
    ne = 0
    u3 = np.empty(nu, dtype=np.int64)
    for cell in range(N_CELLS):
        if state[CELLS, cell] >= 0:
            continue
        ne += 1
        best = -1e300
        for i in range(nh):
            t = hand[i]
            m = 0
            for q in range(nu):
                if unplaced[q] != t:
                    u3[m] = unplaced[q]
                    m += 1
            for q in range(4):
                h[q] -= attrs[t, q]
                rr[q] -= attrs[t, q]
            for o in range(2):
                place(state, tables, cell, t, o, log2)
                v = _value(state, tables, pos, W, h, rr, u3, m, oe, facing, x)
                if at_end:
                    v += score_round(state, rnd)
                unplace(state, tables, cell, log2, saved2)
                if v > best:
                    best = v
            for q in range(4):
                h[q] += attrs[t, q]
                rr[q] += attrs[t, q]
        acc += best
    return acc / ne


@njit(cache=True)
def _simulate(
    state, tables, cells, seq, pos0, hand, nh, unplaced, nu, W, attrs, bufs, x, base, scratch, rng
):
    """Play placements ``pos0 .. 21`` of a sampled future (``cells``, ``seq``) with the depth-1
    V policy (base 0; base 1 greedy; base 2 the V policy stopped after scoring 2, round 3 valued
    by V) (the set-aside tile: its better orientation); returns the points scored. Changes
    ``state``, ``hand`` and ``unplaced`` (pass copies)."""
    log = bufs[0]
    saved = bufs[1]
    total = 0.0
    for pos in range(pos0, N_PLACE):
        nh = reveal(hand, nh, seq, pos)
        rnd = round_of(pos)
        cell = cells[pos]
        if pos == N_PLACE - 1:
            i = nh - 1
            for k in range(SC_SAVE):
                saved[k] = state[SC, k]
            o = 0
            bestv = -1
            for oo in range(2):
                place(state, tables, cell, hand[i], oo, log)
                v = score_round(state, np.int64(3))
                unplace(state, tables, cell, log, saved)
                if v > bestv:
                    bestv = v
                    o = oo
        elif base == 1:
            i, o = _choose_simple(
                POL_GREEDY,
                HEUR_DEFAULT,
                state,
                tables,
                cell,
                hand,
                nh,
                ROT_BOTH,
                rnd,
                pos == ROUND_END[rnd - 1],
                rng,
                scratch,
                None,
            )
        else:
            i, o = choose_v(
                state, tables, cells, pos, hand, nh, W, attrs, unplaced, nu, np.int64(1), bufs, x
            )
        t = hand[i]
        hand[i] = hand[nh - 1]
        nh -= 1
        for q in range(nu):
            if unplaced[q] == t:
                unplaced[q] = unplaced[nu - 1]
                nu -= 1
                break
        place(state, tables, cell, t, o, log)
        if pos == ROUND_END[rnd - 1]:
            total += score_round(state, rnd)
            if base == 2 and pos == ROUND_END[1]:
                # truncated: round 3 valued by V after scoring 2 (fitted on exact round-3 play)
                hnd, rem = bufs[4], bufs[5]
                for q in range(4):
                    hnd[q] = 0
                _counts(unplaced, nu, attrs, rem)
                return total + _value(
                    state, tables, pos, W, hnd, rem, unplaced, nu, bufs[2], bufs[3], x
                )
    return total


@njit(cache=True)
def choose_rollout_v(
    state,
    tables,
    cells,
    seq,
    pos,
    hand,
    nh,
    W,
    attrs,
    unplaced,
    nu,
    k,
    top,
    bufs,
    x,
    base,
    scratch,
    rng,
):
    """(hand index, orientation): the ``top`` candidates by depth-1 V, each valued by its
    immediate scoring + the mean of ``k`` completions by the V policy on ``k`` sampled futures
    (the same futures for every candidate: the order of the empty cells still to be called and
    of the unseen tiles, both uniformly shuffled; nothing unseen is read but as a set)."""
    log = bufs[0]
    saved = bufs[1]
    oe, facing, hnd, rem = bufs[2], bufs[3], bufs[4], bufs[5]
    cell = cells[pos]
    rnd = round_of(pos)
    at_end = pos == ROUND_END[rnd - 1]
    nc = nh * 2
    cand_i = np.empty(nc, dtype=np.int64)
    cand_o = np.empty(nc, dtype=np.int64)
    cand_v = np.empty(nc)
    cand_imm = np.empty(nc)
    for kk in range(SC_SAVE):
        saved[kk] = state[SC, kk]
    _counts(hand, nh, attrs, hnd)
    _counts(unplaced, nu, attrs, rem)
    unpl2 = np.empty(nu, dtype=np.int64)
    c = 0
    for i in range(nh):
        t = hand[i]
        m = 0
        for q in range(nu):
            if unplaced[q] != t:
                unpl2[m] = unplaced[q]
                m += 1
        for q in range(4):
            hnd[q] -= attrs[t, q]
            rem[q] -= attrs[t, q]
        for o in range(2):
            place(state, tables, cell, t, o, log)
            v = _value(state, tables, pos, W, hnd, rem, unpl2, m, oe, facing, x)
            imm = score_round(state, rnd) if at_end else 0
            unplace(state, tables, cell, log, saved)
            cand_i[c] = i
            cand_o[c] = o
            cand_v[c] = v + imm
            cand_imm[c] = imm
            c += 1
        for q in range(4):
            hnd[q] += attrs[t, q]
            rem[q] += attrs[t, q]
    order = np.argsort(-cand_v)
    ntop = min(top, nc)
    # sampled futures
    n_land = seq.shape[0]
    nrev = n_revealed(pos)
    cs = np.empty((k, N_PLACE), dtype=np.int64)
    ss = np.empty((k, n_land), dtype=np.int64)
    for s in range(k):
        for q in range(N_PLACE):
            cs[s, q] = cells[q]
        for q in range(n_land):
            ss[s, q] = seq[q]
        for q in range(N_PLACE - 1, pos + 1, -1):
            j = pos + 1 + np.random.randint(q - pos)
            tmp = cs[s, q]
            cs[s, q] = cs[s, j]
            cs[s, j] = tmp
        for q in range(n_land - 1, nrev, -1):
            j = nrev + np.random.randint(q - nrev + 1)
            tmp = ss[s, q]
            ss[s, q] = ss[s, j]
            ss[s, j] = tmp
    st = state.copy()
    h2 = np.empty(HAND_SLOTS, dtype=np.int64)
    u2 = np.empty(nu, dtype=np.int64)
    best = -1e300
    bi = cand_i[order[0]]
    bo = cand_o[order[0]]
    for r in range(ntop):
        ci_ = order[r]
        i = cand_i[ci_]
        o = cand_o[ci_]
        t = hand[i]
        acc = 0.0
        for s in range(k):
            st[:, :] = state
            place(st, tables, cell, t, o, log)
            mh = 0
            for q in range(nh):
                if q != i:
                    h2[mh] = hand[q]
                    mh += 1
            m = 0
            for q in range(nu):
                if unplaced[q] != t:
                    u2[m] = unplaced[q]
                    m += 1
            acc += _simulate(
                st,
                tables,
                cs[s],
                ss[s],
                pos + 1,
                h2,
                mh,
                u2,
                m,
                W,
                attrs,
                bufs,
                x,
                base,
                scratch,
                rng,
            )
        v = cand_imm[ci_] + acc / k
        if v > best:
            best = v
            bi = i
            bo = o
    return bi, bo


@njit(cache=True)
def play(
    root_seed,
    first,
    n,
    tables,
    W,
    mode,
    endgame,
    depth,
    eps,
    XtX,
    Xty,
    out,
    out_s,
    explore_seed,
    k,
    top,
    base,
):
    """Play games ``first .. first+n-1`` of seed ``root_seed`` with one seat.

    mode 0: the default heuristic (iteration 0); mode 1: argmax immediate + V (``depth`` 1 or
    2); mode 2: ``choose_rollout_v`` (``k``, ``top``, ``base``); mode 3: the project's
    ``rollout`` chooser with ``k`` and ``base``. endgame 1:
    round 3 by ``r3_choose``. With ``XtX`` of shape [22, NF, NF] the chosen afterstates'
    features and the points still to come are accumulated (eps: chance of a uniformly random
    move, for exploration). ``out[g]`` total, ``out_s[g, r]`` points of scoring r.
    """
    n_land = tables.shape[0] - 2
    attrs = tile_attrs(tables)
    castles = np.empty(2, dtype=np.int64)
    cells = np.empty(N_PLACE, dtype=np.int64)
    seq = np.empty((1, n_land), dtype=np.int64)
    last_rot = np.empty(1, dtype=np.int64)
    hand = np.empty(HAND_SLOTS, dtype=np.int64)
    unplaced = np.empty(n_land, dtype=np.int64)
    bufs = (
        np.zeros(LOGN, dtype=np.int64),
        np.zeros(SC_SAVE, dtype=np.int64),
        np.zeros(N_NODES, dtype=np.int64),
        np.zeros(N_CELLS, dtype=np.int64),
        np.zeros(4, dtype=np.int64),
        np.zeros(4, dtype=np.int64),
        np.zeros(LOGN, dtype=np.int64),
        np.zeros(SC_SAVE, dtype=np.int64),
        np.zeros(HAND_SLOTS, dtype=np.int64),
        np.zeros(n_land, dtype=np.int64),
    )
    scratch = PlacementScratch(
        np.zeros(LOGN, dtype=np.int64),
        np.zeros(SC_SAVE, dtype=np.int64),
        np.zeros(N_NODES, dtype=np.int64),
    )
    weights = HEUR_DEFAULT.copy()
    x = np.zeros(NF)
    phis = np.zeros((N_PLACE, NF))
    banked = np.zeros(N_PLACE)
    r3_out = np.zeros(1)
    hnd = np.zeros(4, dtype=np.int64)
    rem = np.zeros(4, dtype=np.int64)
    learn = XtX.shape[0] > 0
    rparams = np.zeros(12)
    rparams[0] = k
    rparams[1] = base
    np.random.seed(explore_seed)
    for g in range(n):
        gi = first + g
        deal(root_seed, gi, 1, n_land, castles, cells, seq, last_rot)
        state = setup_estate(tables, castles)
        rng = new_state(root_seed, gi, np.int64(STREAM_POLICY))
        nh = np.int64(0)
        for i in range(n_land):
            unplaced[i] = i
        nu = n_land
        total = 0
        for pos in range(N_PLACE):
            nh = reveal(hand, nh, seq[0], pos)
            rnd = round_of(pos)
            at_end = pos == ROUND_END[rnd - 1]
            cell = cells[pos]
            if pos == N_PLACE - 1:
                i = nh - 1
                for kk in range(SC_SAVE):
                    bufs[1][kk] = state[SC, kk]
                o = 0
                bestv = -1
                for oo in range(2):
                    place(state, tables, cell, hand[i], oo, bufs[0])
                    v = score_round(state, np.int64(3))
                    unplace(state, tables, cell, bufs[0], bufs[1])
                    if v > bestv:
                        bestv = v
                        o = oo
            elif rnd == 3 and endgame == 1:
                i, o = r3_choose(
                    state,
                    tables,
                    cells,
                    seq[0],
                    pos,
                    hand,
                    nh,
                    ROT_BOTH,
                    False,
                    r3_out,
                    np.int64(0),
                    ALLOW_ALL,
                )
            elif eps > 0.0 and np.random.random() < eps:
                i = np.random.randint(nh)
                o = np.random.randint(2)
            elif mode == 0:
                i, o = _choose_simple(
                    POL_HEURISTIC,
                    weights,
                    state,
                    tables,
                    cell,
                    hand,
                    nh,
                    ROT_BOTH,
                    rnd,
                    at_end,
                    rng,
                    scratch,
                    None,
                )
            elif mode == 3:
                i, o = _choose_rollout(
                    rparams,
                    state,
                    tables,
                    cells,
                    seq[0],
                    pos,
                    hand,
                    nh,
                    ROT_BOTH,
                    False,
                    rng,
                    scratch,
                    None,
                    ALLOW_ALL,
                )
            elif mode == 2:
                i, o = choose_rollout_v(
                    state,
                    tables,
                    cells,
                    seq[0],
                    pos,
                    hand,
                    nh,
                    W,
                    attrs,
                    unplaced,
                    nu,
                    k,
                    top,
                    bufs,
                    x,
                    base,
                    scratch,
                    rng,
                )
            else:
                i, o = choose_v(
                    state, tables, cells, pos, hand, nh, W, attrs, unplaced, nu, depth, bufs, x
                )
            t = hand[i]
            hand[i] = hand[nh - 1]
            nh -= 1
            for q in range(nu):
                if unplaced[q] == t:
                    unplaced[q] = unplaced[nu - 1]
                    nu -= 1
                    break
            place(state, tables, cell, t, o, scratch.log)
            if at_end:
                s = score_round(state, rnd)
                total += s
                out_s[g, rnd - 1] = s
            banked[pos] = total
            if learn and pos < N_PLACE - 1:
                _counts(hand, nh, attrs, hnd)
                _counts(unplaced, nu, attrs, rem)
                features(state, tables, rnd, hnd, rem, unplaced, nu, bufs[2], bufs[3], x)
                for kk in range(NF):
                    phis[pos, kk] = x[kk]
        out[g] = total
        if learn:
            for pos in range(N_PLACE - 1):
                y = total - banked[pos]
                for a in range(NF):
                    xa = phis[pos, a]
                    if xa == 0.0:
                        continue
                    Xty[pos, a] += xa * y
                    for b in range(NF):
                        XtX[pos, a, b] += xa * phis[pos, b]


def load_tables():
    from mcsim.games.don_quixote import build_tables, load_tileset

    return build_tables(load_tileset(), {})


def load_weights(path):
    """float64[22, NF] from a ``.npy`` or from the JSON of ``benchmarks/dq_value_weights.json``."""
    if str(path).endswith(".json"):
        import json

        return np.asarray(json.loads(Path(path).read_text())["weights"], dtype=np.float64)
    return np.load(path)


def fit(XtX, Xty, ridge=1e-3):
    W = np.zeros((N_PLACE, NF))
    for pos in range(N_PLACE - 1):
        A = XtX[pos].copy()
        d = np.diag(A).copy()
        A[np.diag_indices(NF)] += ridge * (d + 1.0)
        W[pos] = np.linalg.solve(A, Xty[pos])
    return W


def run(
    tables,
    seed,
    n,
    W,
    mode,
    endgame,
    depth,
    eps=0.0,
    learn=False,
    first=0,
    xseed=1,
    k=0,
    top=0,
    base=0,
):
    Z = np.zeros((N_PLACE, NF, NF)) if learn else np.zeros((0, NF, NF))
    z = np.zeros((N_PLACE, NF)) if learn else np.zeros((0, NF))
    out = np.zeros(n, dtype=np.int64)
    out_s = np.zeros((n, 3), dtype=np.int64)
    play(
        np.uint64(seed),
        np.int64(first),
        np.int64(n),
        tables,
        W,
        np.int64(mode),
        np.int64(endgame),
        np.int64(depth),
        float(eps),
        Z,
        z,
        out,
        out_s,
        np.int64(xseed),
        np.int64(k),
        np.int64(top),
        np.int64(base),
    )
    return out, out_s, Z, z


def ci(a):
    a = np.asarray(a, dtype=float)
    h = 1.96 * a.std(ddof=1) / np.sqrt(len(a))
    return f"{a.mean():.2f} [{a.mean() - h:.2f}, {a.mean() + h:.2f}]"


def builtin(seed, n, policy):
    """Per-deal points of a built-in policy, played by ``play_chunk`` as ``mcsim evaluate``
    plays them (one seat, deal i of seed ``seed``)."""
    from mcsim.runner import resolve_config

    module, config = resolve_config("don-quixote", 1, [policy])
    prep = module.prepare(config)
    cols = module.play_chunk(prep, 0, n, seed)
    return cols["score"][:, 0], np.stack([cols[f"scoring{r}"][:, 0] for r in (1, 2, 3)], 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["check", "train", "eval", "builtin"])
    ap.add_argument("-n", type=int, default=40)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--games", type=int, default=50000)
    ap.add_argument("--train-seed", type=int, default=1001)
    ap.add_argument("--endgame", type=int, default=1)
    ap.add_argument("--depth", type=int, default=1)
    ap.add_argument("--eps", type=float, default=0.0)
    ap.add_argument("--ridge", type=float, default=1e-3)
    ap.add_argument("--weights")
    ap.add_argument("--policy", default="mcts")
    ap.add_argument("--k", type=int, default=0, help="eval: rollouts per candidate (mode 2)")
    ap.add_argument("--top", type=int, default=6, help="eval: candidates rolled out")
    ap.add_argument(
        "--base",
        type=int,
        default=0,
        help="eval: rollout base, 0 V, 1 greedy, 2 V truncated after scoring 2",
    )
    ap.add_argument(
        "--project-rollout",
        action="store_true",
        help="eval: the project's rollout chooser (k, base) in this loop (mode 3)",
    )
    ap.add_argument("--ref", help="per-deal points (.npy) to pair against")
    ap.add_argument("--out", default="/tmp/dqv")
    a = ap.parse_args()
    tables = load_tables()
    W0 = np.zeros((N_PLACE, NF))
    if a.cmd == "check":
        out, out_s, _, _ = run(tables, a.seed, a.n, W0, 0, 0, 1)
        ref, _ = builtin(a.seed, a.n, "heuristic")
        print(
            "heuristic (script):",
            ci(out),
            "play_chunk:",
            ci(ref),
            "per-deal equal:",
            bool((out == ref).all()),
        )
        return
    if a.cmd == "builtin":
        t1 = time.process_time()
        ref, ref_s = builtin(a.seed, a.n, a.policy)
        t2 = time.process_time()
        print(
            f"{a.policy} -n {a.n} --seed {a.seed}: {ci(ref)} scorings {ref_s.mean(0).round(2)} "
            f"({(t2 - t1) / a.n:.3f} CPU s/game)"
        )
        Path(a.out).mkdir(parents=True, exist_ok=True)
        np.save(Path(a.out) / f"builtin_{a.policy}_{a.seed}_{a.n}.npy", ref)
        return
    if a.cmd == "train":
        Path(a.out).mkdir(parents=True, exist_ok=True)
        W = W0 if a.weights is None else load_weights(a.weights)
        mode = 0 if a.weights is None else 1
        for it in range(a.iters):
            t0 = time.process_time()
            out, out_s, Z, z = run(
                tables,
                a.train_seed + it,
                a.games,
                W,
                mode,
                a.endgame,
                1,
                a.eps,
                learn=True,
                xseed=it + 1,
            )
            W = fit(Z, z, a.ridge)
            np.save(Path(a.out) / f"w{it}.npy", W)
            t1 = time.process_time()
            ev, ev_s, _, _ = run(tables, a.seed, a.n, W, 1, a.endgame, a.depth)
            t2 = time.process_time()
            print(
                f"iter {it}: data policy {'heuristic' if mode == 0 else 'V'} "
                f"{out.mean():.2f} on {a.games} training games ({t1 - t0:.1f} CPU s); "
                f"new V on -n {a.n} --seed {a.seed}: {ci(ev)} scorings "
                f"{ev_s.mean(0).round(2)} ({(t2 - t1) / a.n:.3f} CPU s/game)",
                flush=True,
            )
            mode = 1
        return
    W = load_weights(a.weights)
    t1 = time.process_time()
    mode = 3 if a.project_rollout else (2 if a.k > 0 else 1)
    ev, ev_s, _, _ = run(
        tables, a.seed, a.n, W, mode, a.endgame, a.depth, k=a.k, top=a.top, base=a.base
    )
    t2 = time.process_time()
    print(
        f"mode {mode} depth {a.depth} k {a.k} top {a.top} base {a.base} endgame {a.endgame} "
        f"-n {a.n} --seed {a.seed}: {ci(ev)} "
        f"scorings {ev_s.mean(0).round(2)} ({(t2 - t1) / a.n:.3f} CPU s/game)"
    )
    Path(a.out).mkdir(parents=True, exist_ok=True)
    name = f"eval_m{mode}_{a.seed}_{a.n}_d{a.depth}_k{a.k}_t{a.top}_b{a.base}_e{a.endgame}.npy"
    np.save(Path(a.out) / name, ev)
    if a.ref:
        print("minus ref, paired:", ci(ev - np.load(a.ref)))


if __name__ == "__main__":
    main()
