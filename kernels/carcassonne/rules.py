"""Carcassonne rules (base game, C2/C3, farmers, The Gifts): the Numba functions that change or
read a ``GameState``.

Rule source: ``docs/rules/carcassonne.md`` (§1 tile model, §3 base rules, §4 The Gifts,
§6 readings); each function that implements a rule cites its section. Python
(``mcsim.games.carcassonne``) loads and validates the tile data and builds the tables
(``layout.TB_*``); this package never imports ``mcsim``.

Here: the state (``new_game_state``), tile placement and the feature union-find (§1.2), scoring
during play and at the end (§3.3), move generation (placements, meeples, gift targets and
Change Position moves), the gift effects (§4.4), the draws (§3.2.1, §4.2), setup (§3.1, §4.1)
and the end of a turn (``finish_turn``). Board coordinates: ``cell_xy`` / ``xy_cell``.

Helpers ``inline="always"``: the small steps of a larger function (``place_tile``,
``score_final``, ``evaluate_placement``, ``_gift_gain``, the gift effects), each called from one or
two places and inlining nothing big themselves. Numba copies their IR into the caller, which
costs little for a leaf; as separately compiled functions each cost 0.3-1 s of a first run's
compile (CONTRIBUTING.md, "Kernels, compile time") and the heuristic's split helpers slowed it
by about 5%.
"""

import numpy as np
from numba import njit

from kernels.bitboard import popcount
from kernels.carcassonne.layout import (
    _CAT_MONASTERY,
    _FALSE,
    _INTERNAL,
    _NONE,
    _OFF,
    _OFF8,
    _ONE,
    _PARTNER,
    _TRUE,
    _ZERO,
    BOARD_W,
    CAT_CITY,
    CAT_FARM,
    CAT_GIFT,
    CAT_ROAD,
    CENTER,
    CENTER_CELL,
    EDGE_FIELD,
    F_ADJ,
    F_DONE,
    F_MTOT,
    F_OPEN,
    F_PEN,
    FARMS_NONE,
    FARMS_V2,
    FARMS_V3,
    FB_FARMERS,
    FB_GIFT,
    FB_GIFTS,
    FB_MONASTERIES,
    G_POINTS,
    G_RECEIVED,
    G_TURNS,
    G_UNPLACEABLE,
    GIFT_CASHOUT,
    GIFT_CHANGE,
    GIFT_SWEEPER,
    GIFT_SYNOD,
    GST_COLS,
    KIND_CITY,
    KIND_CLOISTER,
    KIND_FIELD,
    KIND_ROAD,
    MAX_FRONT,
    MAX_MEEPLES,
    MAX_NODES,
    MAX_OPT,
    MAX_PLAYERS,
    MAX_SEG,
    MAX_TILES,
    MODE_PLAY,
    MODE_REPLAY,
    N_CAT,
    N_GIFT,
    N_SC,
    P_CASH_OUT,
    P_CITY_END_PEN,
    P_CITY_END_TILE,
    P_CITY_PEN,
    P_CITY_TILE,
    P_FARM,
    P_FARM_V1,
    P_GIFT_UNOPENED,
    P_MEEPLES,
    P_MON_COMPLETE,
    P_MON_END_BASE,
    P_MON_END_NEIGHBOUR,
    P_ROAD,
    P_TINY_CITY,
    S_CUR,
    S_DRAWN,
    S_GDRAWN,
    S_NFRONT,
    S_NPLACED,
    S_NPLAYERS,
    S_PILE_N,
    S_PILE_POS,
    TB_CL_SEG,
    TB_COUNTS,
    TB_EDGE,
    TB_FIT,
    TB_GIFT_COUNTS,
    TB_NSEG,
    TB_PORT_SEG,
    TB_PTS,
    TB_ROT_OK,
    TB_SEG_ADJ,
    TB_SEG_KIND,
    TB_SEG_NSIDES,
    TB_SEG_PEN,
    TB_SIDE_SEG,
    TB_START,
    V_CASH_OUT,
    V_CHANGE_COMPLETED,
    V_FARMS,
    V_GIFT_COMPLETED,
    V_GIFT_JUDGED,
    V_GIFT_SHARED,
    V_GIFTS,
    V_TINY_CITY,
    GameState,
)
from kernels.rng import randint

# --------------------------------------------------------------------------------------------
# state and tile placement
# --------------------------------------------------------------------------------------------


@njit(cache=True)
def new_game_state():
    """Allocate one game state (a ``GameState`` namedtuple of arrays, fields and shapes in the
    table of ``kernels.carcassonne.layout``), reset and reused for every game of a batch."""
    ww = BOARD_W * BOARD_W
    board = np.full(ww, -1, dtype=np.int32)
    pat = np.zeros(ww, dtype=np.int32)
    nb8 = np.zeros(ww, dtype=np.int32)
    fpos = np.full(ww, -1, dtype=np.int32)
    front = np.zeros(MAX_FRONT, dtype=np.int32)
    tinfo = np.zeros((MAX_TILES, 3), dtype=np.int32)  # type, rotation, cell
    parent = np.arange(MAX_NODES).astype(np.int32)
    fsize = np.ones(MAX_NODES, dtype=np.int32)
    lo = np.zeros(MAX_NODES, dtype=np.uint64)
    hi = np.zeros(MAX_NODES, dtype=np.uint64)
    # per node (valid at roots): open half-edges, pennants, meeple total, done, field-city adjacencies
    fint = np.zeros((MAX_NODES, 5), dtype=np.int32)
    fmee = np.zeros((MAX_NODES, MAX_PLAYERS), dtype=np.int32)
    mnode = np.full((MAX_PLAYERS, MAX_MEEPLES), -1, dtype=np.int32)
    score = np.zeros(MAX_PLAYERS, dtype=np.int32)
    brk = np.zeros((MAX_PLAYERS, N_CAT), dtype=np.int32)
    pile = np.zeros(128, dtype=np.int32)
    avail = np.zeros(32, dtype=np.int32)  # tiles of each type still in the draw pile
    hand = np.zeros((MAX_PLAYERS, N_GIFT), dtype=np.int32)
    gdeck = np.zeros(N_GIFT, dtype=np.int32)
    gdisc = np.zeros(N_GIFT, dtype=np.int32)
    # per-game statistics ``gst[player, G_*]`` (``layout``): turns, unplaceable tiles drawn, gift
    # cards received / opened per type, points credited to each gift type (see _award)
    gst = np.zeros((MAX_PLAYERS, GST_COLS), dtype=np.int32)
    sc = np.zeros(N_SC, dtype=np.int64)
    opt = np.zeros((MAX_OPT, 4), dtype=np.int32)
    scratch = np.zeros(64, dtype=np.int64)
    # per meeple: 1 placed by Synod, 2 moved by Change Position
    mflag = np.zeros((MAX_PLAYERS, MAX_MEEPLES), dtype=np.int32)
    srng = np.zeros(4, dtype=np.uint64)
    # farm scoring scratch (score_final)
    fpm = np.zeros(MAX_PLAYERS, dtype=np.uint64)
    fcnt = np.zeros((64, MAX_PLAYERS), dtype=np.int32)
    return GameState(
        board,
        pat,
        nb8,
        fpos,
        front,
        tinfo,
        parent,
        fsize,
        lo,
        hi,
        fint,
        fmee,
        mnode,
        score,
        brk,
        pile,
        avail,
        hand,
        gdeck,
        gdisc,
        gst,
        sc,
        opt,
        scratch,
        mflag,
        srng,
        fpm,
        fcnt,
    )


@njit(cache=True, inline="always")
def _reset(state):
    board = state.board
    pat = state.pat
    nb8 = state.nb8
    fpos = state.fpos
    tinfo = state.tinfo
    mnode = state.mnode
    score = state.score
    brk = state.brk
    hand = state.hand
    gst = state.gst
    sc = state.sc
    mflag = state.mflag
    mflag[:, :] = 0
    for i in range(sc[S_NPLACED]):
        c = tinfo[i, 2]
        board[c] = -1
        for k in range(8):
            d = c + _OFF8[k]
            nb8[d] = 0
            pat[d] = 0
            fpos[d] = -1
        nb8[c] = 0
        pat[c] = 0
        fpos[c] = -1
    mnode[:, :] = -1
    score[:] = 0
    brk[:, :] = 0
    hand[:, :] = 0
    gst[:, :] = 0
    sc[:] = 0


@njit(cache=True)
def find(parent, x):
    """Root of node ``x`` (int) in ``parent`` (int32[MAX_NODES]), with path halving."""
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit(cache=True, inline="always")
def _union(state, a, b):
    parent, fsize, lo, hi, fint, fmee = (
        state.parent,
        state.fsize,
        state.lo,
        state.hi,
        state.fint,
        state.fmee,
    )
    ra = find(parent, a)
    rb = find(parent, b)
    if ra == rb:
        return ra
    if fsize[ra] < fsize[rb]:
        ra, rb = rb, ra
    parent[rb] = ra
    fsize[ra] += fsize[rb]
    lo[ra] |= lo[rb]
    hi[ra] |= hi[rb]
    for k in range(5):
        if k != F_DONE:
            fint[ra, k] += fint[rb, k]
    for p in range(MAX_PLAYERS):
        fmee[ra, p] += fmee[rb, p]
    return ra


@njit(cache=True)
def feature_tiles(state, r):
    """Number of distinct tiles of the feature with root ``r`` (popcount of its 128-bit tile set;
    a tile the feature passes through twice counts once, §1.2, §6 #16)."""
    return popcount(state.lo[r]) + popcount(state.hi[r])


@njit(cache=True, inline="always")
def _new_nodes(state, tables, t, idx, conn):
    """Features of their own for the segments of tile type ``t`` placed as tile ``idx`` (§1.2):
    node ``idx * MAX_SEG + s`` is a root with the segment's open sides, pennants, adjacent
    cities, no meeples, and the tile set {idx}; ``conn[s] = 0``."""
    parent, fsize, lo, hi, fint, fmee = (
        state.parent,
        state.fsize,
        state.lo,
        state.hi,
        state.fint,
        state.fmee,
    )
    nseg, seg_kind, seg_nsides, seg_pen, seg_adj = (
        tables[TB_NSEG],
        tables[TB_SEG_KIND],
        tables[TB_SEG_NSIDES],
        tables[TB_SEG_PEN],
        tables[TB_SEG_ADJ],
    )
    base = idx * MAX_SEG
    w = idx >> 6
    b = _ONE << np.uint64(idx & 63)
    for s in range(nseg[t]):
        n = base + s
        parent[n] = n
        fsize[n] = 1
        if w == 0:
            lo[n] = b
            hi[n] = 0
        else:
            lo[n] = 0
            hi[n] = b
        k = seg_kind[t, s]
        fint[n, F_OPEN] = seg_nsides[t, s] if k <= KIND_ROAD else 0
        fint[n, F_PEN] = seg_pen[t, s]
        fint[n, F_MTOT] = 0
        fint[n, F_DONE] = 0
        fint[n, F_ADJ] = 0
        if k == KIND_FIELD:
            fint[n, F_ADJ] = (seg_adj[t, s, 0] >= 0) + (seg_adj[t, s, 1] >= 0)
        fmee[n, :] = 0
        conn[s] = 0


@njit(cache=True, inline="always")
def _majority_before(state, rb):
    """How feature ``rb`` stood for ``sc[S_CUR]`` before the merge (the "judged before
    placement" reading, §6 #2): 2 when another player held more meeples in it, 4 when another
    player only tied, else 0."""
    fmee, sc = state.fmee, state.sc
    if state.fint[rb, F_MTOT] == 0:
        return 0
    cur = sc[S_CUR]
    mx = 0
    for p in range(sc[S_NPLAYERS]):
        if p != cur and fmee[rb, p] > mx:
            mx = fmee[rb, p]
    if mx > fmee[rb, cur]:
        return 2
    if mx > 0 and mx == fmee[rb, cur]:
        return 4
    return 0


@njit(cache=True, inline="always")
def _update_frontier(state, tables, t, rot, cell):
    """After tile ``t``/``rot`` is put on ``cell``: the cell leaves the frontier, its empty
    neighbours join it with the new side's requirement in ``pat`` (2 bits per side, §1.1), and
    the 8-neighbour counts ``nb8`` around it grow (monasteries, §3.3)."""
    board, pat, nb8, fpos, front, sc = (
        state.board,
        state.pat,
        state.nb8,
        state.fpos,
        state.front,
        state.sc,
    )
    edge = tables[TB_EDGE]
    k = fpos[cell]
    if k >= 0:
        last = sc[S_NFRONT] - 1
        lc = front[last]
        front[k] = lc
        fpos[lc] = k
        fpos[cell] = -1
        sc[S_NFRONT] = last
    for d in range(4):
        nc = cell + _OFF[d]
        if board[nc] < 0:
            pat[nc] |= (edge[t, rot, d] + 1) << (2 * ((d + 2) & 3))
            if fpos[nc] < 0:
                fpos[nc] = sc[S_NFRONT]
                front[sc[S_NFRONT]] = nc
                sc[S_NFRONT] += 1
    for k in range(8):
        nb8[cell + _OFF8[k]] += 1


@njit(cache=True)
def place_tile(state, tables, t, rot, cell, conn):
    """Put tile type ``t`` with rotation ``rot`` (quarter turns clockwise) on ``cell`` (int,
    ``y * BOARD_W + x``); legality is checked by the caller. ``conn``: int64[>= MAX_SEG], output.

    Merges its segments into the features on the board (§1.2), updates the frontier and the
    8-neighbour counts. ``conn[s]`` gets bit 1 for each city/road segment that joined a feature
    already on the board ("extended", §4.2); bit 2 when, before the merge, that feature held
    more meeples of another player than of ``sc[S_CUR]``, bit 4 when another player only tied
    ``sc[S_CUR]``'s count (for the "judged before placement" reading, §6 #2). Returns the new
    tile index.
    """
    board, tinfo, parent, fint, sc = state.board, state.tinfo, state.parent, state.fint, state.sc
    edge, side_seg, port_seg = tables[TB_EDGE], tables[TB_SIDE_SEG], tables[TB_PORT_SEG]
    idx = sc[S_NPLACED]
    base = idx * MAX_SEG
    _new_nodes(state, tables, t, idx, conn)
    for d in range(4):
        nc = cell + _OFF[d]
        j = board[nc]
        if j < 0:
            continue
        tj = tinfo[j, 0]
        rj = tinfo[j, 1]
        e = edge[t, rot, d]
        od = (d + 2) & 3
        if e != EDGE_FIELD:
            s = side_seg[t, rot, d]
            nb = j * MAX_SEG + side_seg[tj, rj, od]
            conn[s] |= _majority_before(state, find(parent, nb))
            r = _union(state, base + s, nb)
            fint[r, F_OPEN] -= 2
            conn[s] |= 1
        for q in range(2):
            p = 2 * d + q
            fa = port_seg[t, rot, p]
            fb = port_seg[tj, rj, _PARTNER[p]]
            if fa >= 0 and fb >= 0:
                _union(state, base + fa, j * MAX_SEG + fb)
    board[cell] = idx
    tinfo[idx, 0] = t
    tinfo[idx, 1] = rot
    tinfo[idx, 2] = cell
    sc[S_NPLACED] = idx + 1
    _update_frontier(state, tables, t, rot, cell)
    return idx


# --------------------------------------------------------------------------------------------
# scoring
# --------------------------------------------------------------------------------------------


@njit(cache=True, **_INTERNAL)
def _award(state, r, pts, cat, gift_kind):
    """Give ``pts`` to every player with the most meeples in feature ``r`` (ties score in full).

    Points a player gets only thanks to a meeple placed by Synod (or moved by Change Position)
    -- without it they would not be in the majority -- are also credited to that gift type
    (``gst[p, G_POINTS + type]``); ``gift_kind >= 0`` credits the points to that gift (Road
    Sweeper).
    """
    parent, fmee, mnode, score, brk, gst, mflag = (
        state.parent,
        state.fmee,
        state.mnode,
        state.score,
        state.brk,
        state.gst,
        state.mflag,
    )
    n = state.sc[S_NPLAYERS]
    mx = 0
    for p in range(n):
        if fmee[r, p] > mx:
            mx = fmee[r, p]
    if mx == 0 or pts == 0:
        return
    for p in range(n):
        if fmee[r, p] == mx:
            score[p] += pts
            brk[p, cat] += pts
            if gift_kind >= 0:
                gst[p, G_POINTS + gift_kind] += pts
            syn = 0
            chg = 0
            for k in range(MAX_MEEPLES):
                if mflag[p, k] != 0 and find(parent, mnode[p, k]) == r:
                    if mflag[p, k] == 1:
                        syn += 1
                    else:
                        chg += 1
            if syn + chg > 0:
                other = _second_max(fmee, r, p, n)
                if syn > 0 and (mx - syn == 0 or mx - syn < other):
                    gst[p, G_POINTS + GIFT_SYNOD] += pts
                if chg > 0 and (mx - chg == 0 or mx - chg < other):
                    gst[p, G_POINTS + GIFT_CHANGE] += pts


@njit(cache=True, inline="always")
def _second_max(fmee, r, p, n):
    """Most meeples any player other than ``p`` has in feature ``r``."""
    m = 0
    for q in range(n):
        if q != p and fmee[r, q] > m:
            m = fmee[r, q]
    return m


@njit(cache=True, inline="always")
def _return_meeples(state, r):
    """Every meeple in feature ``r`` goes back to its owner's supply (§3.2 step 3)."""
    parent, fint, fmee, mnode = state.parent, state.fint, state.fmee, state.mnode
    n = state.sc[S_NPLAYERS]
    if fint[r, F_MTOT] == 0:
        return
    for p in range(n):
        if fmee[r, p] == 0:
            continue
        for k in range(MAX_MEEPLES):
            m = mnode[p, k]
            if m >= 0 and find(parent, m) == r:
                mnode[p, k] = -1
                state.mflag[p, k] = 0
        fmee[r, p] = 0
    fint[r, F_MTOT] = 0


@njit(cache=True, inline="always")
def road_city_points(state, tables, r, kind, complete, variant):
    """Points of the road/city with root ``r`` (§3.3): completed during play (``complete``) or
    at game end; ``kind`` is ``KIND_ROAD`` or ``KIND_CITY``; ``variant[V_TINY_CITY]`` = 1 gives a
    completed 2-tile city ``pts[P_TINY_CITY]`` (§6 #17)."""
    pts = tables[TB_PTS]
    tiles = feature_tiles(state, r)
    pen = state.fint[r, F_PEN]
    if kind == KIND_ROAD:
        return tiles * pts[P_ROAD]
    if complete:
        if tiles == 2 and variant[V_TINY_CITY] == 1:
            return pts[P_TINY_CITY]
        return tiles * pts[P_CITY_TILE] + pen * pts[P_CITY_PEN]
    return tiles * pts[P_CITY_END_TILE] + pen * pts[P_CITY_END_PEN]


@njit(cache=True, inline="always")
def score_completed(state, tables, idx, variant):
    """Step 3 of §3.2 for the tile just placed: completed roads, cities, monasteries."""
    board, nb8, tinfo, parent, fint = state.board, state.nb8, state.tinfo, state.parent, state.fint
    nseg, seg_kind, cl_seg, pts = (
        tables[TB_NSEG],
        tables[TB_SEG_KIND],
        tables[TB_CL_SEG],
        tables[TB_PTS],
    )
    t = tinfo[idx, 0]
    cell = tinfo[idx, 2]
    for s in range(nseg[t]):
        k = seg_kind[t, s]
        if k > KIND_ROAD:
            continue
        r = find(parent, idx * MAX_SEG + s)
        if fint[r, F_OPEN] == 0 and fint[r, F_DONE] == 0:
            fint[r, F_DONE] = 1
            _award(
                state,
                r,
                road_city_points(state, tables, r, k, _TRUE, variant),
                np.int64(CAT_ROAD if k == KIND_ROAD else CAT_CITY),
                _NONE,
            )
            _return_meeples(state, r)
    for k in range(9):
        c = cell + (_OFF8[k] if k < 8 else 0)
        j = board[c]
        if j < 0:
            continue
        cs = cl_seg[tinfo[j, 0]]
        if cs < 0 or nb8[c] < 8:
            continue
        n = j * MAX_SEG + cs
        if fint[n, F_DONE] == 0:
            fint[n, F_DONE] = 1
            _award(state, n, pts[P_MON_COMPLETE], _CAT_MONASTERY, _NONE)
            _return_meeples(state, n)


@njit(cache=True, inline="always")
def _score_unfinished(state, tables, variant):
    """End of game, features (§3.3): every occupied incomplete road, city and monastery scores
    for its majority. Numbers the completed cities ``0 .. ncity - 1`` in ``fsize[root] = -1 -
    id`` (``fsize`` is no longer needed) for the farms; returns ``ncity`` (int64)."""
    nb8, tinfo, parent, fsize, fint = state.nb8, state.tinfo, state.parent, state.fsize, state.fint
    nseg, seg_kind, pts = tables[TB_NSEG], tables[TB_SEG_KIND], tables[TB_PTS]
    ncity = 0
    for i in range(state.sc[S_NPLACED]):
        t = tinfo[i, 0]
        for s in range(nseg[t]):
            n = i * MAX_SEG + s
            if parent[n] != n:
                continue
            k = seg_kind[t, s]
            if k <= KIND_ROAD:
                if fint[n, F_OPEN] == 0:
                    if k == KIND_CITY:
                        fsize[n] = -1 - ncity  # completed city id (fsize no longer needed)
                        ncity += 1
                elif fint[n, F_MTOT] > 0:
                    _award(
                        state,
                        n,
                        road_city_points(state, tables, n, k, _FALSE, variant),
                        np.int64(CAT_ROAD if k == KIND_ROAD else CAT_CITY),
                        _NONE,
                    )
            elif k == KIND_CLOISTER:
                if fint[n, F_DONE] == 0 and fint[n, F_MTOT] > 0:
                    _award(
                        state,
                        n,
                        pts[P_MON_END_BASE] + pts[P_MON_END_NEIGHBOUR] * nb8[tinfo[i, 2]],
                        _CAT_MONASTERY,
                        _NONE,
                    )
    return ncity


@njit(cache=True, inline="always")
def _field_cities(state, tables):
    """Farms (§3.3): for every occupied field root, the uint64 mask of the completed cities it
    touches (city ids of ``_score_unfinished``), written in ``lo[root]`` (the tile sets are no
    longer needed)."""
    tinfo, parent, fsize, lo, fint = state.tinfo, state.parent, state.fsize, state.lo, state.fint
    nseg, seg_kind, seg_adj = tables[TB_NSEG], tables[TB_SEG_KIND], tables[TB_SEG_ADJ]
    nplaced = state.sc[S_NPLACED]
    for i in range(nplaced):
        t = tinfo[i, 0]
        for s in range(nseg[t]):
            n = i * MAX_SEG + s
            if seg_kind[t, s] == KIND_FIELD and parent[n] == n:
                lo[n] = 0
    for i in range(nplaced):
        t = tinfo[i, 0]
        for s in range(nseg[t]):
            if seg_kind[t, s] != KIND_FIELD:
                continue
            fr = find(parent, i * MAX_SEG + s)
            if fint[fr, F_MTOT] == 0:
                continue
            for q in range(2):
                c = seg_adj[t, s, q]
                if c < 0:
                    continue
                cr = find(parent, i * MAX_SEG + c)
                if fint[cr, F_OPEN] == 0:
                    lo[fr] |= _ONE << np.uint64(-1 - fsize[cr])


@njit(cache=True, inline="always")
def _farms_v2(state, tables):
    """Farms ``v2`` (§3.3, §6): 3 per completed city a player's majority fields touch, each
    city at most once per player."""
    tinfo, parent, lo, fint, fmee = state.tinfo, state.parent, state.lo, state.fint, state.fmee
    nseg, seg_kind, pts = tables[TB_NSEG], tables[TB_SEG_KIND], tables[TB_PTS]
    npl = state.sc[S_NPLAYERS]
    pm = state.fpm  # scratch (no allocation: rollouts run inside the NRT-free loop)
    for p in range(MAX_PLAYERS):
        pm[p] = 0
    for i in range(state.sc[S_NPLACED]):
        t = tinfo[i, 0]
        for s in range(nseg[t]):
            n = i * MAX_SEG + s
            if seg_kind[t, s] == KIND_FIELD and parent[n] == n and fint[n, F_MTOT] > 0:
                mx = 0
                for p in range(npl):
                    mx = max(mx, fmee[n, p])
                for p in range(npl):
                    if fmee[n, p] == mx:
                        pm[p] |= lo[n]
    for p in range(npl):
        v = pts[P_FARM] * popcount(pm[p])
        state.score[p] += v
        state.brk[p, CAT_FARM] += v


@njit(cache=True, inline="always")
def _farms_v1(state, tables, ncity):
    """Farms ``v1`` (§3.3, §6): per completed city, 4 to the majority of farmers summed over
    all fields touching it."""
    tinfo, parent, lo, fint, fmee = state.tinfo, state.parent, state.lo, state.fint, state.fmee
    nseg, seg_kind, pts = tables[TB_NSEG], tables[TB_SEG_KIND], tables[TB_PTS]
    npl = state.sc[S_NPLAYERS]
    cnt = state.fcnt
    for c in range(64):
        for p in range(MAX_PLAYERS):
            cnt[c, p] = 0
    for i in range(state.sc[S_NPLACED]):
        t = tinfo[i, 0]
        for s in range(nseg[t]):
            n = i * MAX_SEG + s
            if seg_kind[t, s] == KIND_FIELD and parent[n] == n and fint[n, F_MTOT] > 0:
                m = lo[n]
                for c in range(ncity):
                    if (m >> np.uint64(c)) & _ONE:
                        for p in range(npl):
                            cnt[c, p] += fmee[n, p]
    for c in range(ncity):
        mx = 0
        for p in range(npl):
            mx = max(mx, cnt[c, p])
        if mx > 0:
            for p in range(npl):
                if cnt[c, p] == mx:
                    state.score[p] += pts[P_FARM_V1]
                    state.brk[p, CAT_FARM] += pts[P_FARM_V1]


@njit(cache=True)
def score_final(state, tables, variant):
    """End-of-game scoring (§3.3, §4.5): incomplete roads/cities/monasteries
    (``_score_unfinished``), farms, unopened gifts.

    Farms by ``variant[V_FARMS]``: v3 = 3 per completed adjacent city, each field on its own
    (current rule); v2 = same but each city at most once per player (``_farms_v2``); v1 =
    city-centric, 4 per city to the majority over all fields touching it (``_farms_v1``); none =
    no farm points.
    """
    tinfo, parent, lo, fint = state.tinfo, state.parent, state.lo, state.fint
    nseg, seg_kind, pts = tables[TB_NSEG], tables[TB_SEG_KIND], tables[TB_PTS]
    ncity = _score_unfinished(state, tables, variant)
    farms = variant[V_FARMS]
    if farms != FARMS_NONE and ncity > 0:
        _field_cities(state, tables)
        if farms == FARMS_V3:
            for i in range(state.sc[S_NPLACED]):
                t = tinfo[i, 0]
                for s in range(nseg[t]):
                    n = i * MAX_SEG + s
                    if seg_kind[t, s] == KIND_FIELD and parent[n] == n and fint[n, F_MTOT] > 0:
                        _award(state, n, pts[P_FARM] * popcount(lo[n]), np.int64(CAT_FARM), _NONE)
        elif farms == FARMS_V2:
            _farms_v2(state, tables)
        else:
            _farms_v1(state, tables, ncity)
    if variant[V_GIFTS] == 1:
        for p in range(state.sc[S_NPLAYERS]):
            for g in range(N_GIFT):
                v = pts[P_GIFT_UNOPENED] * state.hand[p, g]
                state.score[p] += v
                state.brk[p, CAT_GIFT] += v
                state.gst[p, G_POINTS + g] += v


# --------------------------------------------------------------------------------------------
# move generation
# --------------------------------------------------------------------------------------------


@njit(cache=True)
def placements(state, tables, t, distinct, out):
    """Legal placements of tile type ``t``: rows (cell, rotation) into ``out`` (int32[n, >=2]);
    returns the count n. A placement is an empty cell next to a placed tile with every shared
    edge matching (``fit[t, pattern]``).

    ``distinct``: skip rotations that give the same oriented tile as a smaller one (symmetric
    tiles), so a uniform choice is uniform over distinct placements (§3.2 step 1).
    """
    pat, front, sc = state.pat, state.front, state.sc
    fit, rot_ok = tables[TB_FIT], tables[TB_ROT_OK]
    m_ok = rot_ok[t] if distinct else 15
    n = 0
    for i in range(sc[S_NFRONT]):
        c = front[i]
        m = fit[t, pat[c]] & m_ok
        while m:
            r = 0
            while not (m >> r) & 1:
                r += 1
            m &= ~(1 << r)
            out[n, 0] = c
            out[n, 1] = r
            n += 1
    return n


@njit(cache=True, inline="always")
def placeable(state, tables, t):
    """Whether tile type ``t`` has any legal placement (§3.2 step 1; else it is removed)."""
    pat, front, sc = state.pat, state.front, state.sc
    fit = tables[TB_FIT]
    for i in range(sc[S_NFRONT]):
        if fit[t, pat[front[i]]]:
            return True
    return False


@njit(cache=True, inline="always")
def meeple_options(state, tables, idx, player, out):
    """Segments of tile ``idx`` a meeple of ``player`` may go on (§3.2 step 2): into ``out``
    (int64[>= 9]) after ``out[0] = -1`` (no meeple); returns the count. A segment qualifies when
    its feature holds no meeple (a monastery on the new tile always does); none when the
    player's supply is empty."""
    tinfo, parent, fint, mnode = state.tinfo, state.parent, state.fint, state.mnode
    nseg, seg_kind = tables[TB_NSEG], tables[TB_SEG_KIND]
    out[0] = -1
    n = 1
    have = False
    for k in range(MAX_MEEPLES):
        if mnode[player, k] == -1:
            have = True
            break
    if not have:
        return n
    t = tinfo[idx, 0]
    for s in range(nseg[t]):
        if seg_kind[t, s] == KIND_CLOISTER or fint[find(parent, idx * MAX_SEG + s), F_MTOT] == 0:
            out[n] = s
            n += 1
    return n


@njit(cache=True, inline="always")
def put_meeple(state, node, player):
    parent, fint, fmee, mnode = state.parent, state.fint, state.fmee, state.mnode
    for k in range(MAX_MEEPLES):
        if mnode[player, k] == -1:
            mnode[player, k] = node
            r = find(parent, node)
            fmee[r, player] += 1
            fint[r, F_MTOT] += 1
            return k
    return -1


@njit(cache=True, inline="always")
def supply(state, player):
    """Meeples of ``player`` in supply (§3.1: 7 per player)."""
    c = 0
    for k in range(MAX_MEEPLES):
        if state.mnode[player, k] == -1:
            c += 1
    return c


# --------------------------------------------------------------------------------------------
# gifts
# --------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def gift_earned(state, tables, idx, player, conn, variant):
    """§4.2: does the tile just placed extend a road/city that belongs to someone else?

    Default (§6 #1-#4): judged on the merged feature, before the meeple step; a gift when the
    feature has meeples and ``player`` is not among the players with the most.
    ``variant[V_GIFT_SHARED] == 1``: also when the player only shares the majority.
    ``variant[V_GIFT_COMPLETED] == 1``: features completed by this tile give no gift.
    ``variant[V_GIFT_JUDGED] == 1``: majority judged on each extended feature as it was before
    the merge (``conn`` bits 2/4 from ``place_tile``). (§6 #4, whether the step-2 meeple counts,
    cannot change the outcome: that meeple only goes on an unoccupied feature, which gives no gift.)
    """
    tinfo, parent, fint, fmee = state.tinfo, state.parent, state.fint, state.fmee
    nseg, seg_kind = tables[TB_NSEG], tables[TB_SEG_KIND]
    npl = state.sc[S_NPLAYERS]
    t = tinfo[idx, 0]
    for s in range(nseg[t]):
        if seg_kind[t, s] > KIND_ROAD or conn[s] == 0:
            continue
        r = find(parent, idx * MAX_SEG + s)
        if variant[V_GIFT_COMPLETED] == 1 and fint[r, F_OPEN] == 0:
            continue
        if variant[V_GIFT_JUDGED] == 1:
            if conn[s] & 2 or (variant[V_GIFT_SHARED] == 1 and conn[s] & 4):
                return True
            continue
        if fint[r, F_MTOT] == 0:
            continue
        mx = 0
        for p in range(npl):
            mx = max(mx, fmee[r, p])
        mine = fmee[r, player]
        if mine < mx:
            return True
        if variant[V_GIFT_SHARED] == 1:
            for p in range(npl):
                if p != player and fmee[r, p] == mx:
                    return True
    return False


@njit(cache=True, inline="always")
def _draw_gift_card(state, gift_rng, mode, gscript, gpos):
    """Top card of the gift deck (reshuffling the discards when empty); -1 = none left.

    Drawing a uniform card from the remaining multiset is the same as drawing the top card of a
    shuffled deck; the deck rebuilt from the discards (§4.2, §6 #12) is drawn the same way, so a
    record's list of cards drawn also replays every reshuffle. In replay mode the card comes from
    ``gscript`` (validated: must be in the deck); past the end of ``gscript`` a deck of a single
    card type still gives that card (the draw has no choice, e.g. a one-card reshuffled pile).
    """
    gdeck, gdisc = state.gdeck, state.gdisc
    tot = 0
    for g in range(N_GIFT):
        tot += gdeck[g]
    if tot == 0:
        for g in range(N_GIFT):
            gdeck[g] = gdisc[g]
            gdisc[g] = 0
            tot += gdeck[g]
    if tot == 0:
        return -1
    if mode == MODE_REPLAY:
        if gpos >= gscript.shape[0]:
            only = -1
            for g in range(N_GIFT):
                if gdeck[g] > 0:
                    only = g if only == -1 else -2
            if only < 0:
                return -2
            gdeck[only] -= 1
            return only
        g = gscript[gpos]
        if g < 0 or g >= N_GIFT or gdeck[g] == 0:
            return -2
        gdeck[g] -= 1
        return g
    k = randint(gift_rng, tot)
    for g in range(N_GIFT):
        if k < gdeck[g]:
            gdeck[g] -= 1
            return g
        k -= gdeck[g]
    return -1


@njit(cache=True, inline="always")
def unfinished_monasteries(state, tables, out):
    """Nodes of the monasteries on the board that are not complete (Synod targets, §4.4.1),
    into ``out`` (int array); returns the count."""
    tinfo, nb8, sc = state.tinfo, state.nb8, state.sc
    cl_seg = tables[TB_CL_SEG]
    n = 0
    for i in range(sc[S_NPLACED]):
        cs = cl_seg[tinfo[i, 0]]
        if cs >= 0 and nb8[tinfo[i, 2]] < 8:
            out[n] = i * MAX_SEG + cs
            n += 1
    return n


@njit(cache=True, inline="always")
def unfinished_roads(state, tables, out):
    """Root nodes of the unfinished roads (Road Sweeper targets, §4.4.2), into ``out``; returns
    the count."""
    tinfo, parent, fint, sc = state.tinfo, state.parent, state.fint, state.sc
    nseg, seg_kind = tables[TB_NSEG], tables[TB_SEG_KIND]
    n = 0
    for i in range(sc[S_NPLACED]):
        t = tinfo[i, 0]
        for s in range(nseg[t]):
            nd = i * MAX_SEG + s
            if seg_kind[t, s] == KIND_ROAD and parent[nd] == nd and fint[nd, F_OPEN] > 0:
                out[n] = nd
                n += 1
    return n


@njit(cache=True, inline="always")
def own_meeples(state, player, out):
    """Distinct nodes holding a meeple of ``player`` (Cash Out / Change Position sources), into
    ``out``; returns the count."""
    mnode = state.mnode
    n = 0
    for k in range(MAX_MEEPLES):
        m = mnode[player, k]
        if m < 0:
            continue  # -1 in supply, -2 not in the game
        dup = False
        for q in range(n):
            if out[q] == m:
                dup = True
        if not dup:
            out[n] = m
            n += 1
    return n


@njit(cache=True, inline="always")
def change_targets(state, tables, node, variant, out):
    """Segments of the same tile a meeple on ``node`` may switch to (§4.4.4, §6 #8, #9), into
    ``out``; returns the count. Standing (road/city/monastery) -> any field segment; lying ->
    any road/city/monastery segment, occupied or not, except completed ones unless
    ``variant[V_CHANGE_COMPLETED] == 1``."""
    tinfo, parent, nb8, fint = state.tinfo, state.parent, state.nb8, state.fint
    nseg, seg_kind = tables[TB_NSEG], tables[TB_SEG_KIND]
    idx = node // MAX_SEG
    s0 = node % MAX_SEG
    t = tinfo[idx, 0]
    lying = seg_kind[t, s0] == KIND_FIELD
    n = 0
    for s in range(nseg[t]):
        k = seg_kind[t, s]
        if lying == (k == KIND_FIELD):
            continue
        if lying and variant[V_CHANGE_COMPLETED] == 0:
            if k == KIND_CLOISTER:
                if nb8[tinfo[idx, 2]] == 8:
                    continue
            elif fint[find(parent, idx * MAX_SEG + s), F_OPEN] == 0:
                continue
        out[n] = s
        n += 1
    return n


@njit(cache=True, inline="always")
def move_meeple(state, player, frm, to):
    parent, fint, fmee, mnode = state.parent, state.fint, state.fmee, state.mnode
    for k in range(MAX_MEEPLES):
        if mnode[player, k] == frm:
            r = find(parent, frm)
            fmee[r, player] -= 1
            fint[r, F_MTOT] -= 1
            if to < 0:
                mnode[player, k] = -1
                state.mflag[player, k] = 0
            else:
                mnode[player, k] = to
                state.mflag[player, k] = 2
                r2 = find(parent, to)
                fmee[r2, player] += 1
                fint[r2, F_MTOT] += 1
            return


@njit(cache=True, inline="always")
def cash_out_points(state, tables, node, player, variant):
    """Cash Out (§4.4.3, §6 #7): 2 (``pts[P_CASH_OUT]``) per meeple in the feature of ``node``,
    counting all players' meeples (default) or the player's own only."""
    r = find(state.parent, node)
    if variant[V_CASH_OUT] == 0:
        return tables[TB_PTS][P_CASH_OUT] * state.fint[r, F_MTOT]
    return tables[TB_PTS][P_CASH_OUT] * state.fmee[r, player]


@njit(cache=True, inline="always")
def road_sweep(state, tables, root):
    """Road Sweeper (§4.4.2): score the unfinished road with root ``root`` as at game end (1 per
    tile) for the majority, then return all its meeples; the road stays open and empty."""
    _award(
        state,
        root,
        feature_tiles(state, root) * tables[TB_PTS][P_ROAD],
        np.int64(CAT_GIFT),
        np.int64(GIFT_SWEEPER),
    )
    _return_meeples(state, root)


# gift targets and Change Position moves: listed the same way by the play loop's decisions and
# by the search steps (``_s_legal``, ``_s_open``), hence the ``_s_`` names
@njit(cache=True, **_INTERNAL)
def _s_targets(state, tables, cur, g, out):
    """Targets (nodes) of gift ``g`` (Synod, Road Sweeper, Cash Out) for ``cur`` into ``out``."""
    if g == GIFT_SYNOD:
        return unfinished_monasteries(state, tables, out) if supply(state, cur) > 0 else 0
    if g == GIFT_SWEEPER:
        return unfinished_roads(state, tables, out)
    return own_meeples(state, cur, out)


@njit(cache=True, **_INTERNAL)
def _s_changes(state, tables, cur, variant, mo, conn, out):
    """Change Position moves of ``cur``: rows (from node, to segment) into ``out``."""
    nm = own_meeples(state, cur, mo)
    no = 0
    for i in range(nm):
        k = change_targets(state, tables, mo[i], variant, conn)
        for q in range(k):
            out[no, 0] = mo[i]
            out[no, 1] = conn[q]
            no += 1
    return no


# restricted play (docs/rules/carcassonne.md §6.1): which options a seat's ``forbid`` mask
# (int64, bits ``FB_*``) forbids; the play loop's decisions (which count them) and the search
# steps (which filter the searching seat's moves) classify moves with these two
@njit(cache=True, inline="always")
def forbidden_segment(tables, t, s, forbid):
    """Whether ``forbid`` forbids a meeple on segment ``s`` (>= 0) of tile type ``t`` (§6.1):
    a field with ``FB_FARMERS``, a monastery with ``FB_MONASTERIES``. The same test serves the
    meeple step (§3.2 step 2), the start-tile meeple (§3.5) and Change Position's target
    segment (§4.4.4)."""
    k = tables[TB_SEG_KIND][t, s]
    if k == KIND_FIELD:
        return (forbid >> FB_FARMERS) & 1 == 1
    if k == KIND_CLOISTER:
        return (forbid >> FB_MONASTERIES) & 1 == 1
    return False


@njit(cache=True, **_INTERNAL)
def forbidden_open(state, tables, variant, cur, g, forbid, tg, mo, conn, out):
    """Whether ``forbid`` forbids seat ``cur`` to open a gift card of type ``g`` now (§4.3,
    §6.1): its type's bit or ``FB_GIFTS``; a Synod with a target under ``FB_MONASTERIES``
    (its only effect is a meeple on a monastery, §4.4.1); a Change Position whose moves all
    go to forbidden segments (``forbidden_segment``; at least one move, §4.4.4). A card
    without effect is never forbidden by the meeple options (opening it only discards it).
    Scratch: ``tg`` (Synod targets, as ``_s_targets``), ``mo``, ``conn``, ``out`` (as
    ``_s_changes``)."""
    if (forbid >> (FB_GIFT + g)) & 1 == 1 or (forbid >> FB_GIFTS) & 1 == 1:
        return True
    if g == GIFT_SYNOD and (forbid >> FB_MONASTERIES) & 1 == 1:
        return _s_targets(state, tables, cur, g, tg) > 0
    if g == GIFT_CHANGE and ((forbid >> FB_FARMERS) | (forbid >> FB_MONASTERIES)) & 1 == 1:
        n = _s_changes(state, tables, cur, variant, mo, conn, out)
        for i in range(n):
            t = state.tinfo[out[i, 0] // MAX_SEG, 0]
            if not forbidden_segment(tables, t, out[i, 1], forbid):
                return False
        return n > 0
    return False


@njit(cache=True, **_INTERNAL)
def apply_gift_target(state, tables, variant, g, target, cur):
    """Synod (a meeple from the supply onto monastery node ``target``), Road Sweeper (score the
    road with root ``target``) or Cash Out (score and take back the meeple on ``target``);
    §4.4.1-§4.4.3."""
    if g == GIFT_SYNOD:
        state.mflag[cur, put_meeple(state, target, cur)] = 1
    elif g == GIFT_SWEEPER:
        road_sweep(state, tables, target)
    else:
        v = cash_out_points(state, tables, target, cur, variant)
        state.score[cur] += v
        state.brk[cur, CAT_GIFT] += v
        state.gst[cur, G_POINTS + GIFT_CASHOUT] += v
        move_meeple(state, cur, target, _NONE)


# --------------------------------------------------------------------------------------------
# draws, coordinates, setup and the end of a turn
# --------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _draw_tile(state, deal_rng, mode, tscript, tlog):
    """Next tile of the draw pile (§3.2 step 1); -1 when the pile is empty.

    Replay: -2 when the record's draw list ends first (an unfinished game), -3 when the recorded
    tile is not in the remaining pile.
    """
    pile, avail, sc = state.pile, state.avail, state.sc
    if sc[S_PILE_N] == 0:
        return -1
    if mode == MODE_REPLAY:
        k = sc[S_DRAWN]
        if k >= tscript.shape[0]:
            return -2
        t = tscript[k]
        if t < 0 or t >= avail.shape[0] or avail[t] == 0:
            return -3
    else:
        t = pile[sc[S_PILE_POS]]
        sc[S_PILE_POS] += 1
    avail[t] -= 1
    sc[S_PILE_N] -= 1
    if sc[S_DRAWN] < tlog.shape[0]:
        tlog[sc[S_DRAWN]] = t
    sc[S_DRAWN] += 1
    return t


@njit(cache=True, inline="always")
def _return_tile(state, t, gift_rng, mode):
    """Take 2: shuffle tile ``t`` back into the draw pile at a uniform position (§4.4.5, §6 #10)."""
    pile, avail, sc = state.pile, state.avail, state.sc
    if mode == MODE_PLAY:
        pos = sc[S_PILE_POS]
        n = sc[S_PILE_N]
        k = randint(gift_rng, n + 1)
        for i in range(pos + n, pos + k, -1):
            pile[i] = pile[i - 1]
        pile[pos + k] = t
    avail[t] += 1
    sc[S_PILE_N] += 1


@njit(cache=True)
def cell_xy(cell):
    return cell % BOARD_W - CENTER, cell // BOARD_W - CENTER


@njit(cache=True)
def xy_cell(x, y):
    """Cell of human coordinates (x, y); -1 when off the board."""
    if x < -CENTER + 1 or x > CENTER - 1 or y < -CENTER + 1 or y > CENTER - 1:
        return -1
    return (y + CENTER) * BOARD_W + (x + CENTER)


@njit(cache=True, inline="always")
def _node_at(state, tables, x, y, s):
    """Node of segment ``s`` of the tile at (x, y); -1 when there is none."""
    c = xy_cell(x, y)
    if c < 0:
        return -1
    j = state.board[c]
    if j < 0 or s < 0 or s >= tables[TB_NSEG][state.tinfo[j, 0]]:
        return -1
    return j * MAX_SEG + s


@njit(cache=True, **_INTERNAL)
def _setup(state, tables, npl, variant, mode, deal_rng):
    """Reset ``state``; meeples in supply, the start tile, the draw pile (shuffled with
    ``deal_rng`` in play mode) and the gift deck (§3.1, §4.1)."""
    _reset(state)
    pts, counts = tables[TB_PTS], tables[TB_COUNTS]
    start_t = tables[TB_START][0]
    gift_counts = tables[TB_GIFT_COUNTS]
    state.sc[S_NPLAYERS] = npl
    nmee = min(pts[P_MEEPLES], MAX_MEEPLES)
    for p in range(npl):
        for k in range(nmee, MAX_MEEPLES):
            state.mnode[p, k] = -2  # not in the game (fewer meeples than slots)
    place_tile(state, tables, start_t, _ZERO, np.int64(CENTER_CELL), state.scratch[0:8])
    pile = state.pile
    n = 0
    for t in range(counts.shape[0]):
        c = counts[t] - (1 if t == start_t else 0)
        state.avail[t] = c
        for _ in range(c):
            pile[n] = t
            n += 1
    state.sc[S_PILE_N] = n
    state.sc[S_PILE_POS] = 0
    if mode == MODE_PLAY:
        for i in range(n - 1, 0, -1):
            j = randint(deal_rng, i + 1)
            tmp = pile[i]
            pile[i] = pile[j]
            pile[j] = tmp
    for g in range(N_GIFT):
        state.gdeck[g] = gift_counts[g] if variant[V_GIFTS] == 1 else 0
        state.gdisc[g] = 0


@njit(cache=True, **_INTERNAL)
def _draw_placeable(state, tables, cur, deal_rng, mode, tscript, tlog):
    """Draw until a placeable tile (§3.2.1, §6 #14; the others are removed and counted in
    ``gst[cur, G_UNPLACEABLE]``); the codes of ``_draw_tile`` when there is none."""
    t = _draw_tile(state, deal_rng, mode, tscript, tlog)
    while t >= 0 and not placeable(state, tables, t):
        state.gst[cur, G_UNPLACEABLE] += 1
        t = _draw_tile(state, deal_rng, mode, tscript, tlog)
    return t


@njit(cache=True, **_INTERNAL)
def finish_turn(state, tables, variant, cur, idx, s, earned, gift_rng, mode, gscript):
    """After the placement of tile ``idx``: the meeple on segment ``s`` (-1 none, §3.2.2), the
    gift card earned (§4.2; drawn after the meeple step), scoring (§3.2.3). Returns the gift
    card received (-1 none), -2 when a replay's gift list is wrong."""
    if s >= 0:
        put_meeple(state, idx * MAX_SEG + s, cur)
    g = -1
    if earned:
        g = _draw_gift_card(state, gift_rng, mode, gscript, state.sc[S_GDRAWN])
        if g == -2:
            return g
        if g >= 0:
            state.hand[cur, g] += 1
            state.gst[cur, G_RECEIVED + g] += 1
    score_completed(state, tables, idx, variant)
    state.gst[cur, G_TURNS] += 1
    return g
