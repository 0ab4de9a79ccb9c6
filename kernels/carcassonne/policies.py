"""Carcassonne policies: the heuristic's evaluation of placements and gift cards.

The ``random`` policy is a uniform draw at each decision (in the turn's decisions of
``kernels.carcassonne.play``); the ``heuristic`` values each placement by a virtual merge
(``evaluate_placement``, ``best_placement``) and each gift card it holds (``_gift_gain``), in
points-like units, with the weights ``params[H_*]`` (``layout``). Its scratch is
``new_scratch()`` (``scratch``), passed as None when no seat plays it so its code is not compiled.
"""

import numpy as np
from numba import njit

from kernels.bitboard import popcount
from kernels.carcassonne.layout import (
    _CLOISTER,
    _FALSE,
    _INTERNAL,
    _NONE,
    _OFF,
    _OFF8,
    _ONE,
    _PARTNER,
    _TRUE,
    _ZERO,
    EDGE_FIELD,
    F_ADJ,
    F_DONE,
    F_MTOT,
    F_OPEN,
    F_PEN,
    FB_FARMERS,
    FB_MONASTERIES,
    GIFT_CASHOUT,
    GIFT_SWEEPER,
    GIFT_SYNOD,
    GIFT_TAKE2,
    H_FARM,
    H_FARM_TURN,
    H_GIFT,
    H_HOLD,
    H_MEEPLE,
    H_MON,
    H_OPEN_PEN,
    H_POT,
    H_SCARCITY,
    H_TAKE2,
    H_W_OPP,
    KIND_CITY,
    KIND_CLOISTER,
    KIND_FIELD,
    KIND_ROAD,
    MAX_MEEPLES,
    MAX_PLAYERS,
    MAX_SEG,
    S_NPLACED,
    S_NPLAYERS,
    S_PILE_N,
    TB_CL_SEG,
    TB_EDGE,
    TB_NSEG,
    TB_PORT_SEG,
    TB_SEG_ADJ,
    TB_SEG_KIND,
    TB_SEG_NSIDES,
    TB_SEG_PEN,
    TB_SIDE_SEG,
    V_GIFT_COMPLETED,
    V_GIFT_SHARED,
    V_GIFTS,
)
from kernels.carcassonne.rules import (
    cash_out_points,
    feature_tiles,
    find,
    forbidden_segment,
    own_meeples,
    placements,
    supply,
    unfinished_monasteries,
    unfinished_roads,
)


@njit(cache=True, **_INTERNAL)
def _meeple_cost(state, player, params):
    return (
        params[H_MEEPLE] + params[H_SCARCITY] * (MAX_MEEPLES - supply(state, player)) / MAX_MEEPLES
    )


@njit(cache=True, inline="always")
def _monastery_util(complete, n8, mee, cur, npl, params, pot, mcost, progress):
    """``_util`` of a monastery with ``n8`` neighbouring tiles (its complete flag given)."""
    return _util(
        _CLOISTER,
        complete,
        _ZERO,
        np.int64(n8),
        _ZERO,
        _ZERO,
        mee,
        cur,
        npl,
        params,
        pot,
        mcost,
        progress,
    )


@njit(cache=True, **_INTERNAL)
def _util(kind, complete, opn, tiles, pen, adj, mee, cur, npl, params, pot, mcost, progress):
    """Heuristic worth of one feature to ``cur`` (points-like units); ``mee[p]`` meeples per player.

    Value V: city 2/tile+2/pennant when complete, else (tiles+pennants)(1+pot) - open_pen*open;
    road tiles (+pot if open); field farm*adjacent-city-segments*progress; monastery
    1+neighbours+pot*(8-neighbours) (``tiles`` carries the neighbour count), 9 when complete.
    Worth = V if cur has the majority, minus w_opp*V if an opponent has it; a completed feature
    also gives back cur's meeples (``mcost`` each).
    """
    mx = 0
    for p in range(npl):
        if mee[p] > mx:
            mx = mee[p]
    if mx == 0:
        return 0.0
    if kind == KIND_CITY:
        if complete:
            v = 2.0 * tiles + 2.0 * pen
        else:
            v = (tiles + pen) * (1.0 + pot) - params[H_OPEN_PEN] * opn
    elif kind == KIND_ROAD:
        v = float(tiles)
        if not complete:
            v += pot
    elif kind == KIND_FIELD:
        v = params[H_FARM] * adj * progress
    else:
        if complete:
            v = 9.0
        else:
            v = 1.0 + tiles + pot * (8 - tiles)
        v *= params[H_MON]
    u = 0.0
    if mee[cur] == mx:
        u += v
    for p in range(npl):
        if p != cur and mee[p] == mx:
            u -= params[H_W_OPP] * v
            break
    if complete:
        u += mcost * mee[cur]
    return u


@njit(cache=True, **_INTERNAL)
def _root_util(state, r, kind, cur, params, pot, mcost, progress, extra_me, mee):
    fint, fmee = state.fint, state.fmee
    npl = state.sc[S_NPLAYERS]
    for p in range(npl):
        mee[p] = fmee[r, p]
    mee[cur] += extra_me
    return _util(
        kind,
        fint[r, F_OPEN] == 0 and kind <= KIND_ROAD,
        np.int64(fint[r, F_OPEN]),
        feature_tiles(state, r),
        np.int64(fint[r, F_PEN]),
        np.int64(fint[r, F_ADJ]),
        mee,
        cur,
        npl,
        params,
        pot,
        mcost,
        progress,
    )


@njit(cache=True, inline="always")
def _add_root(roots, nr, s, r):
    """Add feature root ``r`` to new segment ``s``'s list ``roots[s, :nr[s]]`` unless there."""
    dup = False
    for q in range(nr[s]):
        if roots[s, q] == r:
            dup = True
    if not dup:
        roots[s, nr[s]] = r
        nr[s] += 1


@njit(cache=True, inline="always")
def _neighbour_roots(state, tables, t, rot, cell, roots, nr, conn, grp):
    """The features on the board each segment of ``t``/``rot`` on ``cell`` would join (§1.2).

    Writes, per segment ``s`` of the new tile: ``roots[s, :nr[s]]`` (int64[8, 8], int64[8]) the
    distinct roots of the neighbouring features it touches (city/road sides and field ports),
    ``conn[s]`` (int64[8]) the number of city/road sides it joins, and ``grp[s] = s`` (each
    segment its own group, see ``_group_segments``).
    """
    board, tinfo, parent = state.board, state.tinfo, state.parent
    edge, side_seg, port_seg = tables[TB_EDGE], tables[TB_SIDE_SEG], tables[TB_PORT_SEG]
    for s in range(tables[TB_NSEG][t]):
        nr[s] = 0
        conn[s] = 0
        grp[s] = s
    for d in range(4):
        j = board[cell + _OFF[d]]
        if j < 0:
            continue
        tj = tinfo[j, 0]
        rj = tinfo[j, 1]
        if edge[t, rot, d] != EDGE_FIELD:
            s = side_seg[t, rot, d]
            conn[s] += 1
            _add_root(roots, nr, s, find(parent, j * MAX_SEG + side_seg[tj, rj, (d + 2) & 3]))
        for q2 in range(2):
            p = 2 * d + q2
            fa = port_seg[t, rot, p]
            fb = port_seg[tj, rj, _PARTNER[p]]
            if fa >= 0 and fb >= 0:
                _add_root(roots, nr, fa, find(parent, j * MAX_SEG + fb))


@njit(cache=True, inline="always")
def _group_segments(seg_kind, t, ns, roots, nr, grp):
    """Group the new tile's segments of one kind that reach a common feature root: they become
    one feature when the tile is placed (§1.2). ``grp[s]`` (int64[8]) = the smallest segment of
    ``s``'s group."""
    for s1 in range(ns):
        for s2 in range(s1 + 1, ns):
            if seg_kind[t, s1] != seg_kind[t, s2] or grp[s1] == grp[s2]:
                continue
            share = False
            for a in range(nr[s1]):
                for b in range(nr[s2]):
                    if roots[s1, a] == roots[s2, b]:
                        share = True
            if share:
                g_old = grp[s2]
                g_new = grp[s1]
                for s3 in range(ns):
                    if grp[s3] == g_old:
                        grp[s3] = g_new


@njit(cache=True, inline="always")
def _merged_feature(state, tables, t, g, k, cur, params, pot, mcost, progress, scratch):
    """The feature group ``g`` (kind ``k``) of the new tile would form, merged virtually.

    Sums the new segments' and each distinct neighbouring root's open sides, pennants and
    adjacent city segments, unions their tile sets (the new tile included), and adds up the
    roots' meeples into ``scratch[4]`` (int64[5]): the merged feature's meeples per player, whose
    majority decides it (§3.2 step 3, §4.2). Each root's worth before the merge is valued with
    its own meeples in ``scratch[5]`` (int64[5]), so that sum is not overwritten. Returns (open
    sides, pennants, adjacent cities, distinct tiles, the roots' worth to ``cur`` before the
    merge (points-like units), number of neighbouring roots).
    """
    fint, fmee, lo, hi = state.fint, state.fmee, state.lo, state.hi
    nseg, seg_nsides, seg_pen, seg_adj = (
        tables[TB_NSEG],
        tables[TB_SEG_NSIDES],
        tables[TB_SEG_PEN],
        tables[TB_SEG_ADJ],
    )
    roots, nr, conn, grp, mee, root_mee = scratch
    npl = state.sc[S_NPLAYERS]
    nplaced = state.sc[S_NPLACED]
    opn = _ZERO  # int64 from the start (see _ZERO)
    pen = _ZERO
    adj = _ZERO
    ml = np.uint64(0)
    mh = np.uint64(0)
    if nplaced >> 6 == 0:
        ml = _ONE << np.uint64(nplaced & 63)
    else:
        mh = _ONE << np.uint64(nplaced & 63)
    for p in range(npl):
        mee[p] = 0
    old = 0.0
    nroot_seen = 0
    for s in range(nseg[t]):
        if grp[s] != g:
            continue
        if k <= KIND_ROAD:
            opn += seg_nsides[t, s] - 2 * conn[s]
        pen += seg_pen[t, s]
        if k == KIND_FIELD:
            adj += (seg_adj[t, s, 0] >= 0) + (seg_adj[t, s, 1] >= 0)
        for q in range(nr[s]):
            r = roots[s, q]
            dup = False
            for s0 in range(s):
                if grp[s0] == g:
                    for q0 in range(nr[s0]):
                        if roots[s0, q0] == r:
                            dup = True
            for q0 in range(q):
                if roots[s, q0] == r:
                    dup = True
            if dup:
                continue
            nroot_seen += 1
            opn += fint[r, F_OPEN]
            pen += fint[r, F_PEN]
            adj += fint[r, F_ADJ]
            ml |= lo[r]
            mh |= hi[r]
            if fint[r, F_MTOT] > 0:
                old += _root_util(state, r, k, cur, params, pot, mcost, progress, _ZERO, root_mee)
                for p in range(npl):
                    mee[p] += fmee[r, p]
    return opn, pen, adj, popcount(ml) + popcount(mh), old, nroot_seen


@njit(cache=True, inline="always")
def _earns_gift(variant, k, complete, mee, cur, npl):
    """Whether extending an occupied road/city of kind ``k`` with meeples ``mee`` (int64[5],
    the merged feature's) earns ``cur`` a gift card (§4.2; ``gift_shared``,
    ``gift_completed``: §6 #2, #3)."""
    if variant[V_GIFTS] != 1 or k > KIND_ROAD or (complete and variant[V_GIFT_COMPLETED] == 1):
        return False
    mx = 0
    for p in range(npl):
        mx = max(mx, mee[p])
    if mee[cur] < mx:
        return True
    if variant[V_GIFT_SHARED] == 1:
        for p in range(npl):
            if p != cur and mee[p] == mx:
                return True
    return False


@njit(cache=True, inline="always")
def _neighbour_monasteries(state, tables, cell, cur, params, pot, mcost, progress, mee, total):
    """``total`` (float64, the placement's running value) plus what each occupied unfinished
    monastery around ``cell`` gains by one more neighbour (§3.3), in the order of ``_OFF8``."""
    board, nb8, tinfo, fint, fmee = state.board, state.nb8, state.tinfo, state.fint, state.fmee
    cl_seg = tables[TB_CL_SEG]
    npl = state.sc[S_NPLAYERS]
    for k8 in range(8):
        c = cell + _OFF8[k8]
        j = board[c]
        if j < 0:
            continue
        cs2 = cl_seg[tinfo[j, 0]]
        if cs2 < 0:
            continue
        nd = j * MAX_SEG + cs2
        if fint[nd, F_MTOT] == 0 or fint[nd, F_DONE] == 1:
            continue
        n8 = nb8[c]
        for p in range(npl):
            mee[p] = fmee[nd, p]
        before = _monastery_util(_FALSE, n8, mee, cur, npl, params, pot, mcost, progress)
        after = _monastery_util(n8 + 1 == 8, n8 + 1, mee, cur, npl, params, pot, mcost, progress)
        total += after - before
    return total


@njit(cache=True, **_INTERNAL)
def evaluate_placement(state, tables, t, rot, cell, cur, params, variant, scratch, forbid):
    """Heuristic value of placing ``t``/``rot`` on ``cell`` for ``cur``; returns (value, best
    segment) (float64 in points-like units, int64; segment -1 = no meeple). ``forbid``: the
    seat's restricted-play mask (int64, docs/rules/carcassonne.md §6.1; 0 = none): a meeple is
    never planned on a field under ``FB_FARMERS`` nor on a monastery under ``FB_MONASTERIES``.

    Simulates the merge without changing the state ("virtual merge", §1.2): the neighbouring
    feature roots of each new segment (``_neighbour_roots``), the segments grouped when they
    reach a common root (``_group_segments``), then per group the change in worth of the merged
    feature (``_merged_feature``), a gift card it would earn (§4.2) and the worth of a meeple
    on it (§3.2 step 2); the monastery on the new tile; neighbouring monasteries gaining a
    neighbour (§3.3). ``scratch`` (``new_scratch``) = (roots int64[8, 8], nroots int64[8], conn
    int64[8], grp int64[8], mee int64[5], root_mee int64[5]).
    """
    nb8, sc = state.nb8, state.sc
    seg_kind, cl_seg = tables[TB_SEG_KIND], tables[TB_CL_SEG]
    roots, nr, conn, grp, mee = scratch[0], scratch[1], scratch[2], scratch[3], scratch[4]
    npl = sc[S_NPLAYERS]
    pot = params[H_POT] * sc[S_PILE_N] / 71.0
    progress = sc[S_NPLACED] / 72.0
    mcost = _meeple_cost(state, cur, params)
    have_meeple = supply(state, cur) > 0
    farm_ok = sc[S_NPLACED] >= params[H_FARM_TURN] and (forbid >> FB_FARMERS) & 1 == 0
    ns = tables[TB_NSEG][t]
    _neighbour_roots(state, tables, t, rot, cell, roots, nr, conn, grp)
    _group_segments(seg_kind, t, ns, roots, nr, grp)
    total = 0.0
    best_extra = 0.0
    best_seg = -1
    gift_hit = False
    for g in range(ns):
        k = seg_kind[t, g]
        if grp[g] != g or k == KIND_CLOISTER:
            continue
        opn, pen, adj, tiles, old, nroot_seen = _merged_feature(
            state, tables, t, g, k, cur, params, pot, mcost, progress, scratch
        )
        complete = k <= KIND_ROAD and opn == 0
        mtot = 0
        for p in range(npl):
            mtot += mee[p]
        new = _util(k, complete, opn, tiles, pen, adj, mee, cur, npl, params, pot, mcost, progress)
        total += new - old
        if nroot_seen > 0 and mtot > 0 and _earns_gift(variant, k, complete, mee, cur, npl):
            gift_hit = True
        if mtot == 0 and have_meeple and (k != KIND_FIELD or farm_ok):
            mee[cur] = 1
            withm = _util(
                k, complete, opn, tiles, pen, adj, mee, cur, npl, params, pot, mcost, progress
            )
            mee[cur] = 0
            extra = withm - new
            if not complete:
                extra -= mcost
            if extra > best_extra:
                best_extra = extra
                best_seg = g
    # a meeple on the monastery of the new tile (§3.2 step 2, §3.3)
    cs = cl_seg[t]
    if cs >= 0 and have_meeple and (forbid >> FB_MONASTERIES) & 1 == 0:
        n8 = nb8[cell]
        for p in range(npl):
            mee[p] = 0
        mee[cur] = 1
        extra = _monastery_util(n8 == 8, n8, mee, cur, npl, params, pot, mcost, progress)
        if n8 < 8:
            extra -= mcost
        if extra > best_extra:
            best_extra = extra
            best_seg = cs
    total = _neighbour_monasteries(
        state, tables, cell, cur, params, pot, mcost, progress, mee, total
    )
    if gift_hit:
        total += params[H_GIFT]
    return total + best_extra, best_seg


@njit(cache=True, **_INTERNAL)
def best_placement(state, tables, t, cur, params, variant, scratch, opts, forbid):
    """Heuristic best (cell, rotation, segment, value) for tile ``t``; value -1e18 if none.
    ``forbid``: the seat's restricted-play mask (``evaluate_placement``)."""
    n = placements(state, tables, t, _TRUE, opts)
    bv = -1e18
    bc = -1
    br = -1
    bs = -1
    for i in range(n):
        v, s = evaluate_placement(
            state, tables, t, opts[i, 1], opts[i, 0], cur, params, variant, scratch, forbid
        )
        if v > bv:
            bv = v
            bc = opts[i, 0]
            br = opts[i, 1]
            bs = s
    return bc, br, bs, bv


@njit(cache=True, **_INTERNAL)
def start_meeple_choice(state, tables, cur, params, scratch, mopts, nm, forbid):
    """The heuristic's segment for the start-tile meeple of ``start_balance=tournament``
    (docs/rules/carcassonne.md §6 #21): among ``mopts[1:nm]`` (``meeple_options`` of tile 0;
    ``mopts[0]`` is "none", not offered: the meeple is placed) the one whose feature gains most
    from one more meeple of ``cur`` (``_root_util``, the meeple's cost deducted, as in
    ``evaluate_placement``); a field only from ``farm_turn`` on (the first option when only
    fields are left). ``forbid``: the seat's restricted-play mask (§6.1): its forbidden
    segments (``forbidden_segment``) are skipped, the first permitted option is the fallback.
    ``scratch``: ``new_scratch()``."""
    sc = state.sc
    t = state.tinfo[0, 0]
    pot = params[H_POT] * sc[S_PILE_N] / 71.0
    progress = sc[S_NPLACED] / 72.0
    mcost = _meeple_cost(state, cur, params)
    farm_ok = sc[S_NPLACED] >= params[H_FARM_TURN]
    mee = scratch[4]
    best = -1e18
    bs = mopts[1]
    if forbid != 0:
        for i in range(nm - 1, 0, -1):
            if not forbidden_segment(tables, t, mopts[i], forbid):
                bs = mopts[i]
    for i in range(1, nm):
        s = mopts[i]
        k = tables[TB_SEG_KIND][t, s]
        if k == KIND_FIELD and not farm_ok:
            continue
        if forbid != 0 and forbidden_segment(tables, t, s, forbid):
            continue
        r = find(state.parent, np.int64(s))
        extra = (
            _root_util(state, r, k, cur, params, pot, mcost, progress, np.int64(1), mee)
            - _root_util(state, r, k, cur, params, pot, mcost, progress, _ZERO, mee)
            - mcost
        )
        if extra > best:
            best = extra
            bs = s
    return bs


@njit(cache=True, inline="always")
def _synod_gain(state, tables, cur, params, pot, mcost, progress, mee, nodes):
    """Synod (§4.4.1): the best gain of a meeple on an unfinished monastery (points-like units,
    the meeple's cost deducted) and its node; (-1e18, -1) when there is none. ``nodes``:
    int32[>= 72] scratch."""
    tinfo, nb8, fmee = state.tinfo, state.nb8, state.fmee
    npl = state.sc[S_NPLAYERS]
    best = -1e18
    bn = -1
    n = unfinished_monasteries(state, tables, nodes)
    for i in range(n):
        nd = nodes[i]
        n8 = nb8[tinfo[nd // MAX_SEG, 2]]
        for p in range(npl):
            mee[p] = fmee[nd, p]
        before = _monastery_util(_FALSE, n8, mee, cur, npl, params, pot, mcost, progress)
        mee[cur] += 1
        after = _monastery_util(_FALSE, n8, mee, cur, npl, params, pot, mcost, progress)
        v = after - before - mcost
        if v > best:
            best = v
            bn = nd
    return best, bn


@njit(cache=True, inline="always")
def _sweeper_gain(state, tables, cur, params, pot, mcost, progress, mee, nodes):
    """Road Sweeper (§4.4.2): the best gain of scoring an occupied unfinished road now (its
    points as the heuristic values them, meeples returned, against its worth left on the board)
    and its root; (-1e18, -1) when there is none. ``nodes``: int32[>= 72 * 8] scratch."""
    fint, fmee = state.fint, state.fmee
    npl = state.sc[S_NPLAYERS]
    best = -1e18
    bn = -1
    n = unfinished_roads(state, tables, nodes)
    for i in range(n):
        r = np.int64(nodes[i])
        if fint[r, F_MTOT] == 0:
            continue
        tiles = feature_tiles(state, r)
        mx = 0
        for p in range(npl):
            mx = max(mx, fmee[r, p])
        now = 0.0
        if fmee[r, cur] == mx:
            now += tiles
        for p in range(npl):
            if p != cur and fmee[r, p] == mx:
                now -= params[H_W_OPP] * tiles
                break
        now += mcost * fmee[r, cur]
        for p in range(npl):
            if p != cur:
                now -= params[H_W_OPP] * params[H_MEEPLE] * fmee[r, p]
        v = now - _root_util(
            state, r, np.int64(KIND_ROAD), cur, params, pot, mcost, progress, _ZERO, mee
        )
        if v > best:
            best = v
            bn = r
    return best, bn


@njit(cache=True, inline="always")
def _cash_out_gain(state, tables, cur, params, variant, pot, mcost, progress, mee, nodes):
    """Cash Out (§4.4.3): the best gain of cashing out one of ``cur``'s meeples (its points,
    the meeple back, the feature's worth without it) and its node; (-1e18, -1) when ``cur``
    has no meeple out. ``nodes``: int32[>= 7] scratch."""
    parent, tinfo = state.parent, state.tinfo
    seg_kind = tables[TB_SEG_KIND]
    best = -1e18
    bn = -1
    n = own_meeples(state, cur, nodes)
    for i in range(n):
        nd = np.int64(nodes[i])
        r = find(parent, nd)
        k = seg_kind[tinfo[nd // MAX_SEG, 0], nd % MAX_SEG]
        before = _root_util(state, r, k, cur, params, pot, mcost, progress, _ZERO, mee)
        after = _root_util(state, r, k, cur, params, pot, mcost, progress, _NONE, mee)
        v = cash_out_points(state, tables, nd, cur, variant) + mcost + after - before
        if v > best:
            best = v
            bn = nd
    return best, bn


@njit(cache=True, **_INTERNAL)
def _gift_gain(state, tables, scratch, cur, g, t, params, variant, opts, forbid):
    """Heuristic gain of opening gift ``g`` now (before placing ``t``), in points-like units:
    (gain, target node or -1, segment -1); gain -1e18 when the gift has nothing worth doing.
    Synod, Road Sweeper and Cash Out value their best target (``_synod_gain``,
    ``_sweeper_gain``, ``_cash_out_gain``; §4.4.1-§4.4.3); Take 2 (§4.4.5) is worth
    ``params[H_HOLD] + 1`` when the best placement of ``t`` is below ``params[H_TAKE2]``;
    Change Position is never opened. ``opts``: int32[MAX_OPT, 4] scratch; ``forbid``: the
    seat's restricted-play mask, for Take 2's best placement (``best_placement``)."""
    sc = state.sc
    pot = params[H_POT] * sc[S_PILE_N] / 71.0
    progress = sc[S_NPLACED] / 72.0
    mcost = _meeple_cost(state, cur, params)
    mee = scratch[4]
    best = -1e18
    bn = -1
    bs = -1
    if g == GIFT_SYNOD:
        if supply(state, cur) == 0:
            return best, bn, bs
        best, bn = _synod_gain(state, tables, cur, params, pot, mcost, progress, mee, opts[:, 3])
    elif g == GIFT_SWEEPER:
        best, bn = _sweeper_gain(state, tables, cur, params, pot, mcost, progress, mee, opts[:, 3])
    elif g == GIFT_CASHOUT:
        best, bn = _cash_out_gain(
            state, tables, cur, params, variant, pot, mcost, progress, mee, opts[:, 3]
        )
    elif g == GIFT_TAKE2:
        if sc[S_PILE_N] > 0:
            c, r, s, v = best_placement(
                state, tables, t, cur, params, variant, scratch, opts, forbid
            )
            if v < params[H_TAKE2]:
                best = params[H_HOLD] + 1.0
    return best, bn, bs


@njit(cache=True)
def new_scratch():
    """Scratch arrays of the heuristic (see ``evaluate_placement``)."""
    return (
        np.zeros((8, 8), dtype=np.int64),
        np.zeros(8, dtype=np.int64),
        np.zeros(8, dtype=np.int64),
        np.zeros(8, dtype=np.int64),
        np.zeros(MAX_PLAYERS, dtype=np.int64),
        np.zeros(MAX_PLAYERS, dtype=np.int64),
    )
