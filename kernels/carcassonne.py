"""Carcassonne (base game, C2/C3, farmers) + The Gifts: Numba kernel.

Rule source: ``docs/rules/carcassonne.md`` (§1 tile model, §3 base rules, §4 The Gifts,
§6 readings).
Python (``mcsim.games.carcassonne``) loads and validates the tile data and builds the tables below;
this module never imports ``mcsim``.

Layout
------
* Board: a fixed ``BOARD_W x BOARD_W`` array, cell = ``y * BOARD_W + x``; the start tile sits on
  ``CENTER_CELL``; at most 72 tiles are placed, so no coordinate leaves the array (±71 plus one
  frontier ring). Human coordinates are ``(x - CENTER, y - CENTER)``, y grows southwards (§5).
* Sides ``N=0, E=1, S=2, W=3``; edge codes ``EDGE_CITY=0, EDGE_ROAD=1, EDGE_FIELD=2``; field ports
  0..7 clockwise from the north-west corner; ``partner(p)`` across the side (§1.1).
* Tile tables per (type, rotation): ``edge[t, r, side]``, ``side_seg[t, r, side]`` (segment on a
  city/road side, -1 on a field side), ``port_seg[t, r, port]`` (field segment, -1 on a city side).
  Segment data per type: ``seg_kind[t, s]`` (``KIND_CITY/ROAD/FIELD/CLOISTER``),
  ``seg_nsides``, ``seg_pen`` (pennants), ``seg_adj[t, s, 2]`` (city segments a field touches).
* ``fit[t, pattern]``: uint8 mask of legal rotations of type ``t`` in a cell whose neighbour
  requirements are ``pattern`` (2 bits per side: 0 = empty, 1 + edge code otherwise).
* Features: union-find over nodes ``tile_index * MAX_SEG + segment`` (tile index = placement
  order). Per root: open half-edges, pennants, meeples per player, and the set of distinct tiles as
  a 128-bit bitboard (two uint64 words), so a feature passing twice through one tile counts it once.
* Meeples: ``mnode[player, k]`` = node the k-th meeple stands on, -1 = in supply.

Decisions go through one place per kind (open a gift, gift target, Take 2 choice, placement,
meeple), so the same loop plays policies (``MODE_PLAY``, optionally writing the turn log) and
validates a record (``MODE_REPLAY``): the turn log is the record's move list in integer form.

Turn log row (``LOG_COLS`` int32 columns): player, tile type placed, gift opened (-1), gift args
a, b, c, d, x, y, rotation, meeple segment (-1), gift received (-1). Gift args: Synod (x, y) of the
monastery; Road Sweeper / Cash Out (x, y, segment); Change Position (x, y, from, to); Take 2: a =
the tile type kept. -99 = the gift had no effect.
"""

from collections import namedtuple

import numpy as np
from numba import njit, types

from kernels import search
from kernels.bitboard import popcount
from kernels.rng import STREAM_DEAL, STREAM_POLICY, game_seed, next_u64, randint, seed_state

BOARD_W = 147
CENTER = 73
CENTER_CELL = CENTER * BOARD_W + CENTER
MAX_TILES = 72
MAX_SEG = 8
MAX_NODES = MAX_TILES * MAX_SEG
MAX_PLAYERS = 5
MAX_MEEPLES = 7
MAX_FRONT = 400
MAX_OPT = 2048
# gift deck draws and the Take 2 shuffle-back: a stream of their own keeps the tile order common
STREAM_GIFTS = STREAM_DEAL + 1

EDGE_CITY, EDGE_ROAD, EDGE_FIELD = 0, 1, 2
KIND_CITY, KIND_ROAD, KIND_FIELD, KIND_CLOISTER = 0, 1, 2, 3

# score categories (breakdown columns)
CAT_ROAD, CAT_CITY, CAT_MONASTERY, CAT_FARM, CAT_GIFT = 0, 1, 2, 3, 4
N_CAT = 5

# gift card types (order of mcsim/data/carcassonne/gifts.json)
GIFT_SYNOD, GIFT_SWEEPER, GIFT_CASHOUT, GIFT_CHANGE, GIFT_TAKE2 = 0, 1, 2, 3, 4
N_GIFT = 5
NO_EFFECT = -99

# variant vector indices (order of SPEC.variants in mcsim.games.carcassonne)
(
    V_GIFTS,
    V_FARMS,
    V_TINY_CITY,
    V_GIFT_SHARED,
    V_GIFT_COMPLETED,
    V_CASH_OUT,
    V_CHANGE_COMPLETED,
    V_TAKE2_OTHER,
    V_GIFT_JUDGED,
) = 0, 1, 2, 3, 4, 5, 6, 7, 8
FARMS_V3, FARMS_V2, FARMS_V1, FARMS_NONE = 0, 1, 2, 3

# points table indices (mcsim/data/carcassonne/scoring.json)
(
    P_ROAD,
    P_CITY_TILE,
    P_CITY_PEN,
    P_CITY_END_TILE,
    P_CITY_END_PEN,
    P_TINY_CITY,
    P_MON_COMPLETE,
    P_MON_END_BASE,
    P_MON_END_NEIGHBOUR,
    P_FARM,
    P_FARM_V1,
    P_MEEPLES,
    P_GIFT_UNOPENED,
    P_CASH_OUT,
) = range(14)

POLICY_RANDOM, POLICY_HEURISTIC, POLICY_MCTS = 0, 1, 2
# heuristic parameter indices (ParamSpec order in mcsim.games.carcassonne)
(
    H_W_OPP,
    H_POT,
    H_OPEN_PEN,
    H_MEEPLE,
    H_SCARCITY,
    H_FARM,
    H_FARM_TURN,
    H_MON,
    H_HOLD,
    H_TAKE2,
    H_GIFT,
) = range(11)

MODE_PLAY, MODE_REPLAY = 0, 1

# tile tables ``T`` (built by ``mcsim.games.carcassonne.build_tables``, in this order)
(
    TB_EDGE,
    TB_SIDE_SEG,
    TB_PORT_SEG,
    TB_NSEG,
    TB_SEG_KIND,
    TB_SEG_NSIDES,
    TB_SEG_PEN,
    TB_SEG_ADJ,
    TB_FIT,
    TB_CL_SEG,
    TB_PTS,
    TB_ROT_OK,
    TB_COUNTS,
    TB_START,
    TB_GIFT_COUNTS,
) = range(15)

LOG_COLS = 12
L_PLAYER, L_TILE, L_OPEN, L_GA, L_GB, L_GC, L_GD, L_X, L_Y, L_ROT, L_MEEPLE, L_RECEIVED = range(12)

# scalar state slots (sc[...])
(
    S_NPLACED,
    S_NFRONT,
    S_PILE_POS,
    S_PILE_N,
    S_CUR,
    S_NPLAYERS,
    S_TURN,
    S_DRAWN,
    S_GDRAWN,
    S_ERR,
    S_ERR_TURN,
    S_ERR_KIND,
    S_NOPT,
    S_FINISHED,
) = range(14)
# search state (``kernels.search``): where the seat to move ``S_CUR`` stands within its turn
(
    S_PHASE,  # PH_*
    S_T,  # tile in hand
    S_T2,  # Take 2's second tile (PH_KEEP)
    S_OPENED,  # gift opened this turn (-1 none)
    S_IDX,  # tile index just placed (PH_MEEPLE)
    S_EARNED,  # 1 = the placement earned a gift card (§4.2)
    S_PLAN_C,  # heuristic rollouts: planned cell, rotation, segment (-2 = no plan)
    S_PLAN_R,
    S_PLAN_S,
) = range(14, 23)
N_SC = 24
PH_OPEN, PH_TARGET, PH_CHANGE, PH_KEEP, PH_PLACE, PH_MEEPLE, PH_OVER = range(7)

#: one game state (``new_game_state``); a namedtuple of arrays, so its Numba type is the search
#: state type of this game (``kernels.search.register``)
GameState = namedtuple(
    "GameState",
    [
        "board",
        "pat",
        "nb8",
        "fpos",
        "front",
        "tinfo",
        "parent",
        "fsize",
        "lo",
        "hi",
        "fint",
        "fmee",
        "mnode",
        "score",
        "brk",
        "pile",
        "avail",
        "hand",
        "gdeck",
        "gdisc",
        "gst",
        "sc",
        "opt",
        "scratch",
        "mflag",
        "srng",
        "fpm",
        "fcnt",
    ],
)

# replay error kinds
(
    ERR_NONE,
    ERR_DRAW,
    ERR_OPEN,
    ERR_GIFT_ARG,
    ERR_PLACE,
    ERR_MEEPLE,
    ERR_GIFT_DRAW,
    ERR_LENGTH,
    ERR_TILE,
) = range(9)

_DX = np.array([0, 1, 0, -1], dtype=np.int64)
_DY = np.array([-1, 0, 1, 0], dtype=np.int64)
_OFF = np.array([-BOARD_W, 1, BOARD_W, -1], dtype=np.int64)
_PARTNER = np.array([5, 4, 7, 6, 1, 0, 3, 2], dtype=np.int64)
_OFF8 = np.array(
    [-BOARD_W - 1, -BOARD_W, -BOARD_W + 1, -1, 1, BOARD_W - 1, BOARD_W, BOARD_W + 1], dtype=np.int64
)
_ONE = np.uint64(1)
# constant arguments of jitted helpers: a literal (``0``, ``True``, ``KIND_CLOISTER``) makes
# Numba compile the callee once per literal value (and once more for int64), so constants are
# passed as typed values
_ZERO = np.int64(0)
_NONE = np.int64(-1)
_TRUE = np.bool_(True)
_FALSE = np.bool_(False)
_CLOISTER = np.int64(KIND_CLOISTER)
_CAT_MONASTERY = np.int64(CAT_MONASTERY)
#: options of the compiled helpers that only other kernels call: no CPython or C wrapper is
#: generated for them (compile time; a call from Python raises TypeError)
_INTERNAL = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}
# Helpers ``inline="always"``: the small steps of a larger function (``place_tile``,
# ``score_final``, ``evaluate_placement``, ``_gift_gain``, the gift effects), each called from
# one or two places and inlining nothing big themselves. Numba copies their IR into the
# caller, which costs little for a leaf; as separately compiled functions each cost 0.3-1 s of
# a first run's compile (CONTRIBUTING.md, "Kernels, compile time") and the heuristic's split
# helpers slowed it by about 5%.


# --------------------------------------------------------------------------------------------
# state
# --------------------------------------------------------------------------------------------


@njit(cache=True)
def new_game_state():
    """Allocate one game state (a ``GameState`` namedtuple of arrays), reset and reused for
    every game of a batch.

    Returns
    -------
    GameState
        ``board`` int32[W*W] (tile index or -1), ``pat`` int32[W*W] (neighbour edge pattern of
        empty cells), ``nb8`` int32[W*W] (placed 8-neighbours), ``fpos`` int32[W*W] (frontier
        position or -1), ``front`` int32[MAX_FRONT] (frontier cells), ``tinfo`` int32[72, 3]
        (type, rotation, cell per tile index), ``parent``, ``fsize`` int32[MAX_NODES]
        (union-find), ``lo``/``hi`` uint64[MAX_NODES] (distinct tiles of a feature, 128-bit
        bitboard), ``fint`` int32[MAX_NODES, 5] (``F_OPEN, F_PEN, F_MTOT, F_DONE, F_ADJ``),
        ``fmee`` int32[MAX_NODES, 5] (meeples per player), ``mnode`` int32[5, 7] (node of each
        meeple; -1 supply, -2 not in the game), ``score`` int32[5], ``brk`` int32[5, N_CAT]
        (breakdown), ``pile`` int32[128], ``avail`` int32[32] (tiles per type left), ``hand``
        int32[5, 5] (gift cards held), ``gdeck``/``gdisc`` int32[5] (gift deck / discards per
        type), ``gst`` int32[5, 17] (statistics, see ``play_batch``), ``sc`` int64[N_SC]
        (scalars ``S_*``), ``opt`` int32[MAX_OPT, 4] (move lists), ``scratch`` int64[64],
        ``mflag`` int32[5, 7] (1 = meeple placed by Synod, 2 = moved by Change Position),
        ``srng`` uint64[4] (chance stream of a search state, see "search"), ``fpm`` uint64[5]
        and ``fcnt`` int32[64, 5] (farm scoring scratch).
    """
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
    # per-game statistics: [player, what]: 0 turns, 1 unplaceable drawn, 2+k received k, 7+k opened k,
    # 12+k points credited to gift k (see _award)
    gst = np.zeros((MAX_PLAYERS, 17), dtype=np.int32)
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


F_OPEN, F_PEN, F_MTOT, F_DONE, F_ADJ = 0, 1, 2, 3, 4


@njit(cache=True, inline="always")
def _reset(S):
    board = S.board
    pat = S.pat
    nb8 = S.nb8
    fpos = S.fpos
    tinfo = S.tinfo
    mnode = S.mnode
    score = S.score
    brk = S.brk
    hand = S.hand
    gst = S.gst
    sc = S.sc
    mflag = S.mflag
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
def _union(S, a, b):
    parent, fsize, lo, hi, fint, fmee = S.parent, S.fsize, S.lo, S.hi, S.fint, S.fmee
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
def feature_tiles(S, r):
    """Number of distinct tiles of the feature with root ``r`` (popcount of its 128-bit tile set;
    a tile the feature passes through twice counts once, §1.2, §6 #16)."""
    return popcount(S.lo[r]) + popcount(S.hi[r])


@njit(cache=True, inline="always")
def _new_nodes(S, T, t, idx, conn):
    """Features of their own for the segments of tile type ``t`` placed as tile ``idx`` (§1.2):
    node ``idx * MAX_SEG + s`` is a root with the segment's open sides, pennants, adjacent
    cities, no meeples, and the tile set {idx}; ``conn[s] = 0``."""
    parent, fsize, lo, hi, fint, fmee = S.parent, S.fsize, S.lo, S.hi, S.fint, S.fmee
    nseg, seg_kind, seg_nsides, seg_pen, seg_adj = (
        T[TB_NSEG],
        T[TB_SEG_KIND],
        T[TB_SEG_NSIDES],
        T[TB_SEG_PEN],
        T[TB_SEG_ADJ],
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
def _majority_before(S, rb):
    """How feature ``rb`` stood for ``sc[S_CUR]`` before the merge (the "judged before
    placement" reading, §6 #2): 2 when another player held more meeples in it, 4 when another
    player only tied, else 0."""
    fmee, sc = S.fmee, S.sc
    if S.fint[rb, F_MTOT] == 0:
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
def _update_frontier(S, T, t, rot, cell):
    """After tile ``t``/``rot`` is put on ``cell``: the cell leaves the frontier, its empty
    neighbours join it with the new side's requirement in ``pat`` (2 bits per side, §1.1), and
    the 8-neighbour counts ``nb8`` around it grow (monasteries, §3.3)."""
    board, pat, nb8, fpos, front, sc = S.board, S.pat, S.nb8, S.fpos, S.front, S.sc
    edge = T[TB_EDGE]
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
def place_tile(S, T, t, rot, cell, conn):
    """Put tile type ``t`` with rotation ``rot`` (quarter turns clockwise) on ``cell`` (int,
    ``y * BOARD_W + x``); legality is checked by the caller. ``conn``: int64[>= MAX_SEG], output.

    Merges its segments into the features on the board (§1.2), updates the frontier and the
    8-neighbour counts. ``conn[s]`` gets bit 1 for each city/road segment that joined a feature
    already on the board ("extended", §4.2); bit 2 when, before the merge, that feature held
    more meeples of another player than of ``sc[S_CUR]``, bit 4 when another player only tied
    ``sc[S_CUR]``'s count (for the "judged before placement" reading, §6 #2). Returns the new
    tile index.
    """
    board, tinfo, parent, fint, sc = S.board, S.tinfo, S.parent, S.fint, S.sc
    edge, side_seg, port_seg = T[TB_EDGE], T[TB_SIDE_SEG], T[TB_PORT_SEG]
    idx = sc[S_NPLACED]
    base = idx * MAX_SEG
    _new_nodes(S, T, t, idx, conn)
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
            conn[s] |= _majority_before(S, find(parent, nb))
            r = _union(S, base + s, nb)
            fint[r, F_OPEN] -= 2
            conn[s] |= 1
        for q in range(2):
            p = 2 * d + q
            fa = port_seg[t, rot, p]
            fb = port_seg[tj, rj, _PARTNER[p]]
            if fa >= 0 and fb >= 0:
                _union(S, base + fa, j * MAX_SEG + fb)
    board[cell] = idx
    tinfo[idx, 0] = t
    tinfo[idx, 1] = rot
    tinfo[idx, 2] = cell
    sc[S_NPLACED] = idx + 1
    _update_frontier(S, T, t, rot, cell)
    return idx


# --------------------------------------------------------------------------------------------
# scoring
# --------------------------------------------------------------------------------------------


@njit(cache=True, **_INTERNAL)
def _award(S, r, pts, cat, gift_kind):
    """Give ``pts`` to every player with the most meeples in feature ``r`` (ties score in full).

    Points a player gets only thanks to a meeple placed by Synod (or moved by Change Position)
    -- without it they would not be in the majority -- are also credited to that gift type
    (``gst[p, 12 + type]``); ``gift_kind >= 0`` credits the points to that gift (Road Sweeper).
    """
    parent, fmee, mnode, score, brk, gst, mflag = (
        S.parent,
        S.fmee,
        S.mnode,
        S.score,
        S.brk,
        S.gst,
        S.mflag,
    )
    n = S.sc[S_NPLAYERS]
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
                gst[p, 12 + gift_kind] += pts
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
                    gst[p, 12 + GIFT_SYNOD] += pts
                if chg > 0 and (mx - chg == 0 or mx - chg < other):
                    gst[p, 12 + GIFT_CHANGE] += pts


@njit(cache=True, inline="always")
def _second_max(fmee, r, p, n):
    """Most meeples any player other than ``p`` has in feature ``r``."""
    m = 0
    for q in range(n):
        if q != p and fmee[r, q] > m:
            m = fmee[r, q]
    return m


@njit(cache=True, inline="always")
def _return_meeples(S, r):
    """Every meeple in feature ``r`` goes back to its owner's supply (§3.2 step 3)."""
    parent, fint, fmee, mnode = S.parent, S.fint, S.fmee, S.mnode
    n = S.sc[S_NPLAYERS]
    if fint[r, F_MTOT] == 0:
        return
    for p in range(n):
        if fmee[r, p] == 0:
            continue
        for k in range(MAX_MEEPLES):
            m = mnode[p, k]
            if m >= 0 and find(parent, m) == r:
                mnode[p, k] = -1
                S.mflag[p, k] = 0
        fmee[r, p] = 0
    fint[r, F_MTOT] = 0


@njit(cache=True, inline="always")
def road_city_points(S, T, r, kind, complete, variant):
    """Points of the road/city with root ``r`` (§3.3): completed during play (``complete``) or
    at game end; ``kind`` is ``KIND_ROAD`` or ``KIND_CITY``; ``variant[V_TINY_CITY]`` = 1 gives a
    completed 2-tile city ``pts[P_TINY_CITY]`` (§6 #17)."""
    pts = T[TB_PTS]
    tiles = feature_tiles(S, r)
    pen = S.fint[r, F_PEN]
    if kind == KIND_ROAD:
        return tiles * pts[P_ROAD]
    if complete:
        if tiles == 2 and variant[V_TINY_CITY] == 1:
            return pts[P_TINY_CITY]
        return tiles * pts[P_CITY_TILE] + pen * pts[P_CITY_PEN]
    return tiles * pts[P_CITY_END_TILE] + pen * pts[P_CITY_END_PEN]


@njit(cache=True, inline="always")
def _score_completed(S, T, idx, variant):
    """Step 3 of §3.2 for the tile just placed: completed roads, cities, monasteries."""
    board, nb8, tinfo, parent, fint = S.board, S.nb8, S.tinfo, S.parent, S.fint
    nseg, seg_kind, cl_seg, pts = T[TB_NSEG], T[TB_SEG_KIND], T[TB_CL_SEG], T[TB_PTS]
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
                S,
                r,
                road_city_points(S, T, r, k, _TRUE, variant),
                np.int64(CAT_ROAD if k == KIND_ROAD else CAT_CITY),
                _NONE,
            )
            _return_meeples(S, r)
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
            _award(S, n, pts[P_MON_COMPLETE], _CAT_MONASTERY, _NONE)
            _return_meeples(S, n)


@njit(cache=True, inline="always")
def _score_unfinished(S, T, variant):
    """End of game, features (§3.3): every occupied incomplete road, city and monastery scores
    for its majority. Numbers the completed cities ``0 .. ncity - 1`` in ``fsize[root] = -1 -
    id`` (``fsize`` is no longer needed) for the farms; returns ``ncity`` (int64)."""
    nb8, tinfo, parent, fsize, fint = S.nb8, S.tinfo, S.parent, S.fsize, S.fint
    nseg, seg_kind, pts = T[TB_NSEG], T[TB_SEG_KIND], T[TB_PTS]
    ncity = 0
    for i in range(S.sc[S_NPLACED]):
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
                        S,
                        n,
                        road_city_points(S, T, n, k, _FALSE, variant),
                        np.int64(CAT_ROAD if k == KIND_ROAD else CAT_CITY),
                        _NONE,
                    )
            elif k == KIND_CLOISTER:
                if fint[n, F_DONE] == 0 and fint[n, F_MTOT] > 0:
                    _award(
                        S,
                        n,
                        pts[P_MON_END_BASE] + pts[P_MON_END_NEIGHBOUR] * nb8[tinfo[i, 2]],
                        _CAT_MONASTERY,
                        _NONE,
                    )
    return ncity


@njit(cache=True, inline="always")
def _field_cities(S, T):
    """Farms (§3.3): for every occupied field root, the uint64 mask of the completed cities it
    touches (city ids of ``_score_unfinished``), written in ``lo[root]`` (the tile sets are no
    longer needed)."""
    tinfo, parent, fsize, lo, fint = S.tinfo, S.parent, S.fsize, S.lo, S.fint
    nseg, seg_kind, seg_adj = T[TB_NSEG], T[TB_SEG_KIND], T[TB_SEG_ADJ]
    nplaced = S.sc[S_NPLACED]
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
def _farms_v2(S, T):
    """Farms ``v2`` (§3.3, §6): 3 per completed city a player's majority fields touch, each
    city at most once per player."""
    tinfo, parent, lo, fint, fmee = S.tinfo, S.parent, S.lo, S.fint, S.fmee
    nseg, seg_kind, pts = T[TB_NSEG], T[TB_SEG_KIND], T[TB_PTS]
    npl = S.sc[S_NPLAYERS]
    pm = S.fpm  # scratch (no allocation: rollouts run inside the NRT-free loop)
    for p in range(MAX_PLAYERS):
        pm[p] = 0
    for i in range(S.sc[S_NPLACED]):
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
        S.score[p] += v
        S.brk[p, CAT_FARM] += v


@njit(cache=True, inline="always")
def _farms_v1(S, T, ncity):
    """Farms ``v1`` (§3.3, §6): per completed city, 4 to the majority of farmers summed over
    all fields touching it."""
    tinfo, parent, lo, fint, fmee = S.tinfo, S.parent, S.lo, S.fint, S.fmee
    nseg, seg_kind, pts = T[TB_NSEG], T[TB_SEG_KIND], T[TB_PTS]
    npl = S.sc[S_NPLAYERS]
    cnt = S.fcnt
    for c in range(64):
        for p in range(MAX_PLAYERS):
            cnt[c, p] = 0
    for i in range(S.sc[S_NPLACED]):
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
                    S.score[p] += pts[P_FARM_V1]
                    S.brk[p, CAT_FARM] += pts[P_FARM_V1]


@njit(cache=True)
def score_final(S, T, variant):
    """End-of-game scoring (§3.3, §4.5): incomplete roads/cities/monasteries
    (``_score_unfinished``), farms, unopened gifts.

    Farms by ``variant[V_FARMS]``: v3 = 3 per completed adjacent city, each field on its own
    (current rule); v2 = same but each city at most once per player (``_farms_v2``); v1 =
    city-centric, 4 per city to the majority over all fields touching it (``_farms_v1``); none =
    no farm points.
    """
    tinfo, parent, lo, fint = S.tinfo, S.parent, S.lo, S.fint
    nseg, seg_kind, pts = T[TB_NSEG], T[TB_SEG_KIND], T[TB_PTS]
    ncity = _score_unfinished(S, T, variant)
    farms = variant[V_FARMS]
    if farms != FARMS_NONE and ncity > 0:
        _field_cities(S, T)
        if farms == FARMS_V3:
            for i in range(S.sc[S_NPLACED]):
                t = tinfo[i, 0]
                for s in range(nseg[t]):
                    n = i * MAX_SEG + s
                    if seg_kind[t, s] == KIND_FIELD and parent[n] == n and fint[n, F_MTOT] > 0:
                        _award(S, n, pts[P_FARM] * popcount(lo[n]), np.int64(CAT_FARM), _NONE)
        elif farms == FARMS_V2:
            _farms_v2(S, T)
        else:
            _farms_v1(S, T, ncity)
    if variant[V_GIFTS] == 1:
        for p in range(S.sc[S_NPLAYERS]):
            for g in range(N_GIFT):
                v = pts[P_GIFT_UNOPENED] * S.hand[p, g]
                S.score[p] += v
                S.brk[p, CAT_GIFT] += v
                S.gst[p, 12 + g] += v


# --------------------------------------------------------------------------------------------
# move generation
# --------------------------------------------------------------------------------------------


@njit(cache=True)
def placements(S, T, t, distinct, out):
    """Legal placements of tile type ``t``: rows (cell, rotation) into ``out`` (int32[n, >=2]);
    returns the count n. A placement is an empty cell next to a placed tile with every shared
    edge matching (``fit[t, pattern]``).

    ``distinct``: skip rotations that give the same oriented tile as a smaller one (symmetric
    tiles), so a uniform choice is uniform over distinct placements (§3.2 step 1).
    """
    pat, front, sc = S.pat, S.front, S.sc
    fit, rot_ok = T[TB_FIT], T[TB_ROT_OK]
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
def placeable(S, T, t):
    """Whether tile type ``t`` has any legal placement (§3.2 step 1; else it is removed)."""
    pat, front, sc = S.pat, S.front, S.sc
    fit = T[TB_FIT]
    for i in range(sc[S_NFRONT]):
        if fit[t, pat[front[i]]]:
            return True
    return False


@njit(cache=True, inline="always")
def meeple_options(S, T, idx, player, out):
    """Segments of tile ``idx`` a meeple of ``player`` may go on (§3.2 step 2): into ``out``
    (int64[>= 9]) after ``out[0] = -1`` (no meeple); returns the count. A segment qualifies when
    its feature holds no meeple (a monastery on the new tile always does); none when the
    player's supply is empty."""
    tinfo, parent, fint, mnode = S.tinfo, S.parent, S.fint, S.mnode
    nseg, seg_kind = T[TB_NSEG], T[TB_SEG_KIND]
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
def _put_meeple(S, node, player):
    parent, fint, fmee, mnode = S.parent, S.fint, S.fmee, S.mnode
    for k in range(MAX_MEEPLES):
        if mnode[player, k] == -1:
            mnode[player, k] = node
            r = find(parent, node)
            fmee[r, player] += 1
            fint[r, F_MTOT] += 1
            return k
    return -1


@njit(cache=True, inline="always")
def supply(S, player):
    """Meeples of ``player`` in supply (§3.1: 7 per player)."""
    c = 0
    for k in range(MAX_MEEPLES):
        if S.mnode[player, k] == -1:
            c += 1
    return c


# --------------------------------------------------------------------------------------------
# gifts
# --------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def gift_earned(S, T, idx, player, conn, variant):
    """§4.2: does the tile just placed extend a road/city that belongs to someone else?

    Default (§6 #1-#4): judged on the merged feature, before the meeple step; a gift when the
    feature has meeples and ``player`` is not among the players with the most.
    ``variant[V_GIFT_SHARED] == 1``: also when the player only shares the majority.
    ``variant[V_GIFT_COMPLETED] == 1``: features completed by this tile give no gift.
    ``variant[V_GIFT_JUDGED] == 1``: majority judged on each extended feature as it was before
    the merge (``conn`` bits 2/4 from ``place_tile``). (§6 #4, whether the step-2 meeple counts,
    cannot change the outcome: that meeple only goes on an unoccupied feature, which gives no gift.)
    """
    tinfo, parent, fint, fmee = S.tinfo, S.parent, S.fint, S.fmee
    nseg, seg_kind = T[TB_NSEG], T[TB_SEG_KIND]
    npl = S.sc[S_NPLAYERS]
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
def _draw_gift_card(S, grng, mode, gscript, gpos):
    """Top card of the gift deck (reshuffling the discards when empty); -1 = none left.

    Drawing a uniform card from the remaining multiset is the same as drawing the top card of a
    shuffled deck; the deck rebuilt from the discards (§4.2, §6 #12) is drawn the same way, so a
    record's list of cards drawn also replays every reshuffle. In replay mode the card comes from
    ``gscript`` (validated: must be in the deck); past the end of ``gscript`` a deck of a single
    card type still gives that card (the draw has no choice, e.g. a one-card reshuffled pile).
    """
    gdeck, gdisc = S.gdeck, S.gdisc
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
    k = randint(grng, tot)
    for g in range(N_GIFT):
        if k < gdeck[g]:
            gdeck[g] -= 1
            return g
        k -= gdeck[g]
    return -1


@njit(cache=True, inline="always")
def unfinished_monasteries(S, T, out):
    """Nodes of the monasteries on the board that are not complete (Synod targets, §4.4.1),
    into ``out`` (int array); returns the count."""
    tinfo, nb8, sc = S.tinfo, S.nb8, S.sc
    cl_seg = T[TB_CL_SEG]
    n = 0
    for i in range(sc[S_NPLACED]):
        cs = cl_seg[tinfo[i, 0]]
        if cs >= 0 and nb8[tinfo[i, 2]] < 8:
            out[n] = i * MAX_SEG + cs
            n += 1
    return n


@njit(cache=True, inline="always")
def unfinished_roads(S, T, out):
    """Root nodes of the unfinished roads (Road Sweeper targets, §4.4.2), into ``out``; returns
    the count."""
    tinfo, parent, fint, sc = S.tinfo, S.parent, S.fint, S.sc
    nseg, seg_kind = T[TB_NSEG], T[TB_SEG_KIND]
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
def own_meeples(S, player, out):
    """Distinct nodes holding a meeple of ``player`` (Cash Out / Change Position sources), into
    ``out``; returns the count."""
    mnode = S.mnode
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
def change_targets(S, T, node, variant, out):
    """Segments of the same tile a meeple on ``node`` may switch to (§4.4.4, §6 #8, #9), into
    ``out``; returns the count. Standing (road/city/monastery) -> any field segment; lying ->
    any road/city/monastery segment, occupied or not, except completed ones unless
    ``variant[V_CHANGE_COMPLETED] == 1``."""
    tinfo, parent, nb8, fint = S.tinfo, S.parent, S.nb8, S.fint
    nseg, seg_kind = T[TB_NSEG], T[TB_SEG_KIND]
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
def _move_meeple(S, player, frm, to):
    parent, fint, fmee, mnode = S.parent, S.fint, S.fmee, S.mnode
    for k in range(MAX_MEEPLES):
        if mnode[player, k] == frm:
            r = find(parent, frm)
            fmee[r, player] -= 1
            fint[r, F_MTOT] -= 1
            if to < 0:
                mnode[player, k] = -1
                S.mflag[player, k] = 0
            else:
                mnode[player, k] = to
                S.mflag[player, k] = 2
                r2 = find(parent, to)
                fmee[r2, player] += 1
                fint[r2, F_MTOT] += 1
            return


@njit(cache=True, inline="always")
def cash_out_points(S, T, node, player, variant):
    """Cash Out (§4.4.3, §6 #7): 2 (``pts[P_CASH_OUT]``) per meeple in the feature of ``node``,
    counting all players' meeples (default) or the player's own only."""
    r = find(S.parent, node)
    if variant[V_CASH_OUT] == 0:
        return T[TB_PTS][P_CASH_OUT] * S.fint[r, F_MTOT]
    return T[TB_PTS][P_CASH_OUT] * S.fmee[r, player]


@njit(cache=True, inline="always")
def road_sweep(S, T, root):
    """Road Sweeper (§4.4.2): score the unfinished road with root ``root`` as at game end (1 per
    tile) for the majority, then return all its meeples; the road stays open and empty."""
    _award(
        S,
        root,
        feature_tiles(S, root) * T[TB_PTS][P_ROAD],
        np.int64(CAT_GIFT),
        np.int64(GIFT_SWEEPER),
    )
    _return_meeples(S, root)


# --------------------------------------------------------------------------------------------
# heuristic evaluation
# --------------------------------------------------------------------------------------------


@njit(cache=True, **_INTERNAL)
def _meeple_cost(S, player, params):
    return params[H_MEEPLE] + params[H_SCARCITY] * (MAX_MEEPLES - supply(S, player)) / MAX_MEEPLES


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
def _root_util(S, r, kind, cur, params, pot, mcost, progress, extra_me, mee):
    fint, fmee = S.fint, S.fmee
    npl = S.sc[S_NPLAYERS]
    for p in range(npl):
        mee[p] = fmee[r, p]
    mee[cur] += extra_me
    return _util(
        kind,
        fint[r, F_OPEN] == 0 and kind <= KIND_ROAD,
        np.int64(fint[r, F_OPEN]),
        feature_tiles(S, r),
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
def _neighbour_roots(S, T, t, rot, cell, roots, nr, conn, grp):
    """The features on the board each segment of ``t``/``rot`` on ``cell`` would join (§1.2).

    Writes, per segment ``s`` of the new tile: ``roots[s, :nr[s]]`` (int64[8, 8], int64[8]) the
    distinct roots of the neighbouring features it touches (city/road sides and field ports),
    ``conn[s]`` (int64[8]) the number of city/road sides it joins, and ``grp[s] = s`` (each
    segment its own group, see ``_group_segments``).
    """
    board, tinfo, parent = S.board, S.tinfo, S.parent
    edge, side_seg, port_seg = T[TB_EDGE], T[TB_SIDE_SEG], T[TB_PORT_SEG]
    for s in range(T[TB_NSEG][t]):
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
def _merged_feature(S, T, t, g, k, cur, params, pot, mcost, progress, H):
    """The feature group ``g`` (kind ``k``) of the new tile would form, merged virtually.

    Sums the new segments' and each distinct neighbouring root's open sides, pennants and
    adjacent city segments, unions their tile sets (the new tile included), and adds up the
    roots' meeples into ``H[4]`` (int64[5]). Returns (open sides, pennants, adjacent cities,
    distinct tiles, the roots' worth to ``cur`` before the merge (points-like units), number of
    neighbouring roots).
    """
    fint, fmee, lo, hi = S.fint, S.fmee, S.lo, S.hi
    nseg, seg_nsides, seg_pen, seg_adj = T[TB_NSEG], T[TB_SEG_NSIDES], T[TB_SEG_PEN], T[TB_SEG_ADJ]
    roots, nr, conn, grp, mee = H
    npl = S.sc[S_NPLAYERS]
    nplaced = S.sc[S_NPLACED]
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
                old += _root_util(S, r, k, cur, params, pot, mcost, progress, _ZERO, mee)
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
def _neighbour_monasteries(S, T, cell, cur, params, pot, mcost, progress, mee, total):
    """``total`` (float64, the placement's running value) plus what each occupied unfinished
    monastery around ``cell`` gains by one more neighbour (§3.3), in the order of ``_OFF8``."""
    board, nb8, tinfo, fint, fmee = S.board, S.nb8, S.tinfo, S.fint, S.fmee
    cl_seg = T[TB_CL_SEG]
    npl = S.sc[S_NPLAYERS]
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
def evaluate_placement(S, T, t, rot, cell, cur, params, variant, H):
    """Heuristic value of placing ``t``/``rot`` on ``cell`` for ``cur``; returns (value, best
    segment) (float64 in points-like units, int64; segment -1 = no meeple).

    Simulates the merge without changing the state ("virtual merge", §1.2): the neighbouring
    feature roots of each new segment (``_neighbour_roots``), the segments grouped when they
    reach a common root (``_group_segments``), then per group the change in worth of the merged
    feature (``_merged_feature``), a gift card it would earn (§4.2) and the worth of a meeple
    on it (§3.2 step 2); the monastery on the new tile; neighbouring monasteries gaining a
    neighbour (§3.3). ``H`` = (roots int64[8, 8], nroots int64[8], conn int64[8], grp int64[8],
    mee int64[5]), scratch (``new_scratch``).
    """
    nb8, sc = S.nb8, S.sc
    seg_kind, cl_seg = T[TB_SEG_KIND], T[TB_CL_SEG]
    roots, nr, conn, grp, mee = H
    npl = sc[S_NPLAYERS]
    pot = params[H_POT] * sc[S_PILE_N] / 71.0
    progress = sc[S_NPLACED] / 72.0
    mcost = _meeple_cost(S, cur, params)
    have_meeple = supply(S, cur) > 0
    farm_ok = sc[S_NPLACED] >= params[H_FARM_TURN]
    ns = T[TB_NSEG][t]
    _neighbour_roots(S, T, t, rot, cell, roots, nr, conn, grp)
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
            S, T, t, g, k, cur, params, pot, mcost, progress, H
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
    if cs >= 0 and have_meeple:
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
    total = _neighbour_monasteries(S, T, cell, cur, params, pot, mcost, progress, mee, total)
    if gift_hit:
        total += params[H_GIFT]
    return total + best_extra, best_seg


@njit(cache=True, **_INTERNAL)
def best_placement(S, T, t, cur, params, variant, H, opts):
    """Heuristic best (cell, rotation, segment, value) for tile ``t``; value -1e18 if none."""
    n = placements(S, T, t, _TRUE, opts)
    bv = -1e18
    bc = -1
    br = -1
    bs = -1
    for i in range(n):
        v, s = evaluate_placement(S, T, t, opts[i, 1], opts[i, 0], cur, params, variant, H)
        if v > bv:
            bv = v
            bc = opts[i, 0]
            br = opts[i, 1]
            bs = s
    return bc, br, bs, bv


@njit(cache=True, inline="always")
def _synod_gain(S, T, cur, params, pot, mcost, progress, mee, nodes):
    """Synod (§4.4.1): the best gain of a meeple on an unfinished monastery (points-like units,
    the meeple's cost deducted) and its node; (-1e18, -1) when there is none. ``nodes``:
    int32[>= 72] scratch."""
    tinfo, nb8, fmee = S.tinfo, S.nb8, S.fmee
    npl = S.sc[S_NPLAYERS]
    best = -1e18
    bn = -1
    n = unfinished_monasteries(S, T, nodes)
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
def _sweeper_gain(S, T, cur, params, pot, mcost, progress, mee, nodes):
    """Road Sweeper (§4.4.2): the best gain of scoring an occupied unfinished road now (its
    points as the heuristic values them, meeples returned, against its worth left on the board)
    and its root; (-1e18, -1) when there is none. ``nodes``: int32[>= 72 * 8] scratch."""
    fint, fmee = S.fint, S.fmee
    npl = S.sc[S_NPLAYERS]
    best = -1e18
    bn = -1
    n = unfinished_roads(S, T, nodes)
    for i in range(n):
        r = np.int64(nodes[i])
        if fint[r, F_MTOT] == 0:
            continue
        tiles = feature_tiles(S, r)
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
            S, r, np.int64(KIND_ROAD), cur, params, pot, mcost, progress, _ZERO, mee
        )
        if v > best:
            best = v
            bn = r
    return best, bn


@njit(cache=True, inline="always")
def _cash_out_gain(S, T, cur, params, variant, pot, mcost, progress, mee, nodes):
    """Cash Out (§4.4.3): the best gain of cashing out one of ``cur``'s meeples (its points,
    the meeple back, the feature's worth without it) and its node; (-1e18, -1) when ``cur``
    has no meeple out. ``nodes``: int32[>= 7] scratch."""
    parent, tinfo = S.parent, S.tinfo
    seg_kind = T[TB_SEG_KIND]
    best = -1e18
    bn = -1
    n = own_meeples(S, cur, nodes)
    for i in range(n):
        nd = np.int64(nodes[i])
        r = find(parent, nd)
        k = seg_kind[tinfo[nd // MAX_SEG, 0], nd % MAX_SEG]
        before = _root_util(S, r, k, cur, params, pot, mcost, progress, _ZERO, mee)
        after = _root_util(S, r, k, cur, params, pot, mcost, progress, _NONE, mee)
        v = cash_out_points(S, T, nd, cur, variant) + mcost + after - before
        if v > best:
            best = v
            bn = nd
    return best, bn


@njit(cache=True, **_INTERNAL)
def _gift_gain(S, T, H, cur, g, t, params, variant, opts):
    """Heuristic gain of opening gift ``g`` now (before placing ``t``), in points-like units:
    (gain, target node or -1, segment -1); gain -1e18 when the gift has nothing worth doing.
    Synod, Road Sweeper and Cash Out value their best target (``_synod_gain``,
    ``_sweeper_gain``, ``_cash_out_gain``; §4.4.1-§4.4.3); Take 2 (§4.4.5) is worth
    ``params[H_HOLD] + 1`` when the best placement of ``t`` is below ``params[H_TAKE2]``;
    Change Position is never opened. ``opts``: int32[MAX_OPT, 4] scratch."""
    sc = S.sc
    pot = params[H_POT] * sc[S_PILE_N] / 71.0
    progress = sc[S_NPLACED] / 72.0
    mcost = _meeple_cost(S, cur, params)
    mee = H[4]
    best = -1e18
    bn = -1
    bs = -1
    if g == GIFT_SYNOD:
        if supply(S, cur) == 0:
            return best, bn, bs
        best, bn = _synod_gain(S, T, cur, params, pot, mcost, progress, mee, opts[:, 3])
    elif g == GIFT_SWEEPER:
        best, bn = _sweeper_gain(S, T, cur, params, pot, mcost, progress, mee, opts[:, 3])
    elif g == GIFT_CASHOUT:
        best, bn = _cash_out_gain(S, T, cur, params, variant, pot, mcost, progress, mee, opts[:, 3])
    elif g == GIFT_TAKE2:
        if sc[S_PILE_N] > 0:
            c, r, s, v = best_placement(S, T, t, cur, params, variant, H, opts)
            if v < params[H_TAKE2]:
                best = params[H_HOLD] + 1.0
    return best, bn, bs


@njit(cache=True, inline="always")
def _draw_tile(S, drng, mode, tscript, tlog):
    """Next tile of the draw pile (§3.2 step 1); -1 when the pile is empty.

    Replay: -2 when the record's draw list ends first (an unfinished game), -3 when the recorded
    tile is not in the remaining pile.
    """
    pile, avail, sc = S.pile, S.avail, S.sc
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
def _return_tile(S, t, grng, mode):
    """Take 2: shuffle tile ``t`` back into the draw pile at a uniform position (§4.4.5, §6 #10)."""
    pile, avail, sc = S.pile, S.avail, S.sc
    if mode == MODE_PLAY:
        pos = sc[S_PILE_POS]
        n = sc[S_PILE_N]
        k = randint(grng, n + 1)
        for i in range(pos + n, pos + k, -1):
            pile[i] = pile[i - 1]
        pile[pos + k] = t
    avail[t] += 1
    sc[S_PILE_N] += 1


@njit(cache=True)
def _xy(cell):
    return cell % BOARD_W - CENTER, cell // BOARD_W - CENTER


@njit(cache=True)
def _cell(x, y):
    """Cell of human coordinates (x, y); -1 when off the board."""
    if x < -CENTER + 1 or x > CENTER - 1 or y < -CENTER + 1 or y > CENTER - 1:
        return -1
    return (y + CENTER) * BOARD_W + (x + CENTER)


@njit(cache=True, inline="always")
def _node_at(S, T, x, y, s):
    """Node of segment ``s`` of the tile at (x, y); -1 when there is none."""
    c = _cell(x, y)
    if c < 0:
        return -1
    j = S.board[c]
    if j < 0 or s < 0 or s >= T[TB_NSEG][S.tinfo[j, 0]]:
        return -1
    return j * MAX_SEG + s


# inlined: called with 8 different ERR_* literals, each a compile of its own otherwise
@njit(cache=True, inline="always")
def _fail(S, kind, turn):
    S.sc[S_ERR] = kind
    S.sc[S_ERR_TURN] = turn


#: what the steps of one game share (built once per game by ``_play``): tables ``T``,
#: variant codes, the seats' policy ids and parameters, the mode, the
#: replay scripts, the logs written, and the deal / gift / per-seat policy random streams.
Run = namedtuple(
    "Run",
    [
        "T",
        "variant",
        "pol_ids",
        "pol_params",
        "mode",
        "tscript",
        "gscript",
        "rscript",
        "log",
        "tlog",
        "glog",
        "drng",
        "grng",
        "prng",
    ],
)
#: a step's return value when a replay stopped at an illegal record (``_fail`` was called)
BAD = -1000


@njit(cache=True, **_INTERNAL)
def _setup(S, T, npl, variant, mode, drng):
    """Reset ``S``; meeples in supply, the start tile, the draw pile (shuffled with ``drng`` in
    play mode) and the gift deck (§3.1, §4.1)."""
    _reset(S)
    pts, counts = T[TB_PTS], T[TB_COUNTS]
    start_t = T[TB_START][0]
    gift_counts = T[TB_GIFT_COUNTS]
    S.sc[S_NPLAYERS] = npl
    nmee = min(pts[P_MEEPLES], MAX_MEEPLES)
    for p in range(npl):
        for k in range(nmee, MAX_MEEPLES):
            S.mnode[p, k] = -2  # not in the game (fewer meeples than slots)
    place_tile(S, T, start_t, _ZERO, np.int64(CENTER_CELL), S.scratch[0:8])
    pile = S.pile
    n = 0
    for t in range(counts.shape[0]):
        c = counts[t] - (1 if t == start_t else 0)
        S.avail[t] = c
        for _ in range(c):
            pile[n] = t
            n += 1
    S.sc[S_PILE_N] = n
    S.sc[S_PILE_POS] = 0
    if mode == MODE_PLAY:
        for i in range(n - 1, 0, -1):
            j = randint(drng, i + 1)
            tmp = pile[i]
            pile[i] = pile[j]
            pile[j] = tmp
    for g in range(N_GIFT):
        S.gdeck[g] = gift_counts[g] if variant[V_GIFTS] == 1 else 0
        S.gdisc[g] = 0


@njit(cache=True, **_INTERNAL)
def _draw_placeable(S, T, cur, drng, mode, tscript, tlog):
    """Draw until a placeable tile (§3.2.1, §6 #14; the others are removed and counted in
    ``gst[cur, 1]``); the codes of ``_draw_tile`` when there is none."""
    t = _draw_tile(S, drng, mode, tscript, tlog)
    while t >= 0 and not placeable(S, T, t):
        S.gst[cur, 1] += 1
        t = _draw_tile(S, drng, mode, tscript, tlog)
    return t


# The decisions of a turn (``_choose_*``, ``_gift_*`` below, one call site each in ``_play``)
# are compiled on their own, called with the ``H`` and ``mscr`` of ``_play``: each compile
# prunes the heuristic and search branches the lineup does not use before typing them. Inlined
# into ``_play`` they cost 3 s more of a first run (Numba inlines by deep-copying the callee's
# IR block by block, each block copying the whole variable scope, search branches included),
# and inlined one into another (the former ``_play_turns`` -> ``_turn`` -> ``_open_gift``
# levels) about 10 s more.
@njit(cache=True, **_INTERNAL)
def _choose_open(S, R, cur, t, turn, H, mscr):
    """The gift card ``cur`` opens this turn (§4.3): a held type, -1 none, ``BAD`` when a
    replay's choice is illegal."""
    hand, opt, sc = S.hand, S.opt, S.sc
    nheld = 0
    if R.variant[V_GIFTS] == 1:
        for g in range(N_GIFT):
            nheld += hand[cur, g]
    if nheld == 0:
        if R.mode == MODE_REPLAY and R.rscript[turn, L_OPEN] != -1:
            opt[0, 0] = -1
            sc[S_NOPT] = 1
            _fail(S, ERR_OPEN, turn)
            return BAD
        return -1
    pid = R.pol_ids[cur]
    params = R.pol_params[cur]
    rng = R.prng[cur]
    opened = -1
    if R.mode == MODE_REPLAY:
        opened = np.int64(R.rscript[turn, L_OPEN])
        if opened != -1 and (opened < 0 or opened >= N_GIFT or hand[cur, opened] == 0):
            opt[0, 0] = -1
            k = 1
            for g in range(N_GIFT):
                if hand[cur, g] > 0:
                    opt[k, 0] = g
                    k += 1
            sc[S_NOPT] = k
            _fail(S, ERR_OPEN, turn)
            return BAD
    elif pid == POLICY_RANDOM:
        cnt = 0  # none or one of the held types, uniformly
        for g in range(N_GIFT):
            if hand[cur, g] > 0:
                cnt += 1
        k = randint(rng, cnt + 1) - 1
        if k >= 0:
            for g in range(N_GIFT):
                if hand[cur, g] > 0:
                    if k == 0:
                        opened = g
                        break
                    k -= 1
    elif pid == POLICY_MCTS:
        if mscr is not None:
            m = mcts_move(S, R.T, H, R.variant, cur, PH_OPEN, t, -1, -1, -1, 0, params, rng, mscr)
            opened = m - BASE_OPEN if m - BASE_OPEN < N_GIFT else -1
    elif H is not None:  # the heuristic (H is None when no seat plays it: not compiled then)
        bestg = -1e18
        for g in range(N_GIFT):
            if hand[cur, g] > 0:
                v, _a, _b = _gift_gain(S, R.T, H, cur, g, t, params, R.variant, opt)
                if v > bestg:
                    bestg = v
                    if v > params[H_HOLD]:
                        opened = g
    return opened


@njit(cache=True, **_INTERNAL)
def _gift_target(S, R, cur, t, opened, turn, row, H, mscr):
    """Synod, Road Sweeper or Cash Out (§4.4.1-§4.4.3): choose the target and apply it; an
    opening without target has no effect (§6 #5, #6). False when a replay stopped."""
    T, opt, rscript, log = R.T, S.opt, R.rscript, R.log
    no = _s_targets(S, T, cur, opened, opt[:, 3])
    pid = R.pol_ids[cur]
    target = -1
    if no > 0:
        if R.mode == MODE_REPLAY:
            if opened == GIFT_SYNOD:
                c = _cell(rscript[turn, L_GA], rscript[turn, L_GB])
                nd = -1
                if c >= 0 and S.board[c] >= 0:
                    cs = T[TB_CL_SEG][S.tinfo[S.board[c], 0]]
                    if cs >= 0:
                        nd = S.board[c] * MAX_SEG + cs
            else:
                nd = _node_at(S, T, rscript[turn, L_GA], rscript[turn, L_GB], rscript[turn, L_GC])
            if nd >= 0 and opened == GIFT_SWEEPER:
                nd = find(S.parent, nd)
            for i in range(no):
                if opt[i, 3] == nd:
                    target = nd
            if target < 0:
                S.sc[S_NOPT] = no
                _fail(S, ERR_GIFT_ARG, turn)
                return False
        elif pid == POLICY_RANDOM:
            target = opt[randint(R.prng[cur], no), 3]
        elif pid == POLICY_MCTS:
            if mscr is not None:
                target = (
                    mcts_move(
                        S,
                        T,
                        H,
                        R.variant,
                        cur,
                        PH_TARGET,
                        t,
                        -1,
                        opened,
                        -1,
                        0,
                        R.pol_params[cur],
                        R.prng[cur],
                        mscr,
                    )
                    - BASE_NODE
                )
        elif H is not None:  # the heuristic
            v, target, _b = _gift_gain(S, T, H, cur, opened, t, R.pol_params[cur], R.variant, opt)
            if target < 0:
                target = opt[0, 3]
    elif R.mode == MODE_REPLAY and rscript[turn, L_GA] != NO_EFFECT:
        S.sc[S_NOPT] = 0
        _fail(S, ERR_GIFT_ARG, turn)
        return False
    if target >= 0:
        if log.shape[0] > 0:
            x, y = _xy(np.int64(S.tinfo[target // MAX_SEG, 2]))
            log[row, L_GA] = x
            log[row, L_GB] = y
            if opened != GIFT_SYNOD:
                log[row, L_GC] = target % MAX_SEG
        apply_gift_target(S, T, R.variant, opened, target, cur)
    return True


@njit(cache=True, **_INTERNAL)
def _gift_change(S, R, cur, t, opened, turn, row, H, mscr):
    """Change Position (§4.4.4): move one of ``cur``'s meeples to another segment of its tile.
    False when a replay stopped."""
    T, opt, rscript, log = R.T, S.opt, R.rscript, R.log
    no = _s_changes(S, T, cur, R.variant, S.scratch[8:24], S.scratch[0:8], opt)
    pid = R.pol_ids[cur]
    choice = -1
    if no > 0:
        if R.mode == MODE_REPLAY:
            nd = _node_at(S, T, rscript[turn, L_GA], rscript[turn, L_GB], rscript[turn, L_GC])
            for i in range(no):
                if opt[i, 0] == nd and opt[i, 1] == rscript[turn, L_GD]:
                    choice = i
            if choice < 0:
                S.sc[S_NOPT] = no
                _fail(S, ERR_GIFT_ARG, turn)
                return False
        elif pid == POLICY_MCTS:
            if mscr is not None:
                m = (
                    mcts_move(
                        S,
                        T,
                        H,
                        R.variant,
                        cur,
                        PH_CHANGE,
                        t,
                        -1,
                        opened,
                        -1,
                        0,
                        R.pol_params[cur],
                        R.prng[cur],
                        mscr,
                    )
                    - BASE_CHANGE
                )
                for i in range(no):
                    if opt[i, 0] == m // MAX_SEG and opt[i, 1] == m % MAX_SEG:
                        choice = i
        else:
            choice = randint(R.prng[cur], no)  # the heuristic never opens it
    elif R.mode == MODE_REPLAY and rscript[turn, L_GA] != NO_EFFECT:
        S.sc[S_NOPT] = 0
        _fail(S, ERR_GIFT_ARG, turn)
        return False
    if choice >= 0:
        frm = np.int64(opt[choice, 0])
        to = (frm // MAX_SEG) * MAX_SEG + np.int64(opt[choice, 1])
        if log.shape[0] > 0:
            x, y = _xy(np.int64(S.tinfo[frm // MAX_SEG, 2]))
            log[row, L_GA] = x
            log[row, L_GB] = y
            log[row, L_GC] = frm % MAX_SEG
            log[row, L_GD] = opt[choice, 1]
        _move_meeple(S, cur, frm, to)
    return True


@njit(cache=True, **_INTERNAL)
def _gift_take2(S, R, cur, t, opened, turn, row, H, mscr):
    """Take 2 (§4.4.5): draw a second tile, keep one, shuffle the other back (``take2_other``,
    §6 #10). Returns (ok, tile kept, planned cell, rotation, segment: -2 = none)."""
    T, variant, opt = R.T, R.variant, S.opt
    pc = -1
    pr = -1
    ps = -2
    t2 = _draw_placeable(S, T, cur, R.drng, R.mode, R.tscript, R.tlog)
    if t2 <= -2:
        _fail(S, ERR_DRAW, turn)
        return False, t, pc, pr, ps
    if t2 < 0:
        return True, t, pc, pr, ps
    pid = R.pol_ids[cur]
    params = R.pol_params[cur]
    keep = t
    if R.mode == MODE_REPLAY:
        keep = np.int64(R.rscript[turn, L_GA])
        if keep != t and keep != t2:
            opt[0, 0] = t
            opt[1, 0] = t2
            S.sc[S_NOPT] = 2
            _fail(S, ERR_GIFT_ARG, turn)
            return False, t, pc, pr, ps
    elif pid == POLICY_RANDOM:
        if randint(R.prng[cur], 2) == 1:
            keep = t2
    elif pid == POLICY_MCTS:
        if mscr is not None:
            keep = (
                mcts_move(
                    S,
                    T,
                    H,
                    variant,
                    cur,
                    PH_KEEP,
                    t,
                    t2,
                    opened,
                    -1,
                    0,
                    params,
                    R.prng[cur],
                    mscr,
                )
                - BASE_KEEP
            )
    elif H is not None:  # the heuristic
        c1, r1, s1, v1 = best_placement(S, T, t, cur, params, variant, H, opt)
        c2, r2, s2, v2 = best_placement(S, T, t2, cur, params, variant, H, opt)
        if v2 > v1:
            keep = t2
            pc, pr, ps = c2, r2, s2
        else:
            pc, pr, ps = c1, r1, s1
    other = t2 if keep == t else t
    if R.log.shape[0] > 0:
        R.log[row, L_GA] = keep
    if variant[V_TAKE2_OTHER] == 0:
        _return_tile(S, other, R.grng, R.mode)
    return True, keep, pc, pr, ps


@njit(cache=True, **_INTERNAL)
def _choose_place(S, R, cur, t, opened, turn, pc, pr, ps, H, mscr):
    """Placement of tile ``t`` (§3.2.1): (cell, rotation, the heuristic's planned meeple
    segment); cell ``BAD`` when a replay stopped. ``pc, pr, ps``: a plan made by Take 2."""
    T, opt, rscript = R.T, S.opt, R.rscript
    if R.mode == MODE_REPLAY:
        if rscript[turn, L_TILE] != t:
            opt[0, 0] = t
            S.sc[S_NOPT] = 1
            _fail(S, ERR_TILE, turn)
            return BAD, 0, ps
        c = _cell(rscript[turn, L_X], rscript[turn, L_Y])
        r = rscript[turn, L_ROT]
        if c < 0 or S.fpos[c] < 0 or r < 0 or r > 3 or not (T[TB_FIT][t, S.pat[c]] >> r) & 1:
            S.sc[S_NOPT] = placements(S, T, t, _FALSE, opt)
            _fail(S, ERR_PLACE, turn)
            return BAD, 0, ps
        return np.int64(c), np.int64(r), ps
    if ps != -2:
        return np.int64(pc), np.int64(pr), ps
    pid = R.pol_ids[cur]
    rng = R.prng[cur]
    if pid == POLICY_RANDOM:
        no = placements(S, T, t, _TRUE, opt)
        k = randint(rng, no)
        return np.int64(opt[k, 0]), np.int64(opt[k, 1]), ps
    if pid == POLICY_MCTS:
        m = -1
        if mscr is not None:
            m = mcts_move(
                S,
                T,
                H,
                R.variant,
                cur,
                PH_PLACE,
                t,
                -1,
                opened,
                -1,
                0,
                R.pol_params[cur],
                rng,
                mscr,
            )
        return np.int64(m // 4), np.int64(m % 4), ps
    if H is not None:  # the heuristic
        c, r, ps, v = best_placement(S, T, t, cur, R.pol_params[cur], R.variant, H, opt)
        return np.int64(c), np.int64(r), ps
    return np.int64(BAD), _NONE, ps


@njit(cache=True, **_INTERNAL)
def _choose_meeple(S, R, cur, t, opened, idx, earned, turn, ps, H, mscr):
    """Segment of tile ``idx`` for ``cur``'s meeple (§3.2.2; -1 none), ``BAD`` when a replay
    stopped. ``ps``: the heuristic's planned segment."""
    mopts = S.scratch[8:24]
    nm = meeple_options(S, R.T, idx, cur, mopts)
    pid = R.pol_ids[cur]
    if R.mode == MODE_REPLAY:
        s = np.int64(R.rscript[turn, L_MEEPLE])
        for i in range(nm):
            if mopts[i] == s:
                return s
        for i in range(nm):
            S.opt[i, 0] = mopts[i]
        S.sc[S_NOPT] = nm
        _fail(S, ERR_MEEPLE, turn)
        return BAD
    if pid == POLICY_RANDOM:
        return mopts[randint(R.prng[cur], nm)]
    if pid == POLICY_MCTS:
        s = -1
        if mscr is not None:
            s = (
                mcts_move(
                    S,
                    R.T,
                    H,
                    R.variant,
                    cur,
                    PH_MEEPLE,
                    t,
                    -1,
                    opened,
                    idx,
                    1 if earned else 0,
                    R.pol_params[cur],
                    R.prng[cur],
                    mscr,
                )
                - BASE_MEEPLE
                - 1
            )
        return s
    s = -1
    for i in range(nm):
        if mopts[i] == ps:
            s = ps
    return s


# --------------------------------------------------------------------------------------------
# search (kernels.search): the game as a sequence of single decisions
# --------------------------------------------------------------------------------------------
# The search state is a ``GameState`` whose ``sc`` also says where the seat to move stands in
# its turn (``S_PHASE`` and the ``S_T .. S_PLAN_S`` slots); the chance events of a
# determinized state (tile draws, gift cards, Take 2 shuffle-back) come from the pile order
# and from ``srng``, both set by ``_s_determinize``, so ``_s_apply`` is deterministic.
# Move codes (one range for ``search.search``'s mark array):
#   placement: cell * 4 + rotation                 (PH_PLACE)
#   meeple:    BASE_MEEPLE + segment + 1 (0 = none)  (PH_MEEPLE)
#   open gift: BASE_OPEN + type (N_GIFT = none)      (PH_OPEN)
#   target:    BASE_NODE + node                      (PH_TARGET: Synod, Road Sweeper, Cash Out)
#   change:    BASE_CHANGE + from node * 8 + to seg  (PH_CHANGE)
#   Take 2:    BASE_KEEP + tile type kept            (PH_KEEP)
# ctx = (T, variant, H, rollout policy id, heuristic parameters float64[11], opt2 int32[MAX_OPT,
# 4], lst int64[MAX_OPT], e0 int32[0], rollout moves int64[MAX_OPT], width, depth, vals
# float64[MAX_OPT]): ``width`` > 0 keeps only the placements the heuristic values highest
# (``evaluate_placement``), for every seat and in the rollouts too; ``depth`` > 0 stops a
# rollout after that many turns and scores the position as if the game ended (``score_final``).
BASE_MEEPLE = BOARD_W * BOARD_W * 4
BASE_OPEN = BASE_MEEPLE + MAX_SEG + 1
BASE_NODE = BASE_OPEN + N_GIFT + 1
BASE_CHANGE = BASE_NODE + MAX_NODES
BASE_KEEP = BASE_CHANGE + MAX_NODES * MAX_SEG
N_CODES = BASE_KEEP + 32
MAX_PLIES = 4 * MAX_TILES + 2
#: ``mcts`` parameter positions (ParamSpec order in mcsim.games.carcassonne)
M_ITER, M_C, M_REWARD, M_ROLLOUT, M_SCALE, M_WIDTH, M_DEPTH = range(7)


@njit(cache=True)
def _s_copy(dst, src):
    """Copy game state ``src`` into ``dst`` (the parts a game changes: the cells around the
    placed tiles, the feature nodes in use, the small arrays); scratch (``opt``) is not copied."""
    for i in range(dst.sc[S_NPLACED]):
        c = dst.tinfo[i, 2]
        for k in range(9):
            d = c + (_OFF8[k] if k < 8 else 0)
            dst.board[d] = -1
            dst.nb8[d] = 0
            dst.pat[d] = 0
            dst.fpos[d] = -1
    n = src.sc[S_NPLACED]
    for i in range(n):
        c = src.tinfo[i, 2]
        for k in range(9):
            d = c + (_OFF8[k] if k < 8 else 0)
            dst.board[d] = src.board[d]
            dst.nb8[d] = src.nb8[d]
            dst.pat[d] = src.pat[d]
            dst.fpos[d] = src.fpos[d]
        dst.tinfo[i, 0] = src.tinfo[i, 0]
        dst.tinfo[i, 1] = src.tinfo[i, 1]
        dst.tinfo[i, 2] = src.tinfo[i, 2]
    for i in range(src.sc[S_NFRONT]):
        dst.front[i] = src.front[i]
    for x in range(n * MAX_SEG):
        dst.parent[x] = src.parent[x]
        dst.fsize[x] = src.fsize[x]
        dst.lo[x] = src.lo[x]
        dst.hi[x] = src.hi[x]
        for k in range(5):
            dst.fint[x, k] = src.fint[x, k]
        for p in range(MAX_PLAYERS):
            dst.fmee[x, p] = src.fmee[x, p]
    # explicit loops: slice assignment may allocate (overlap check), and the play loop that
    # calls this is compiled without NRT
    for p in range(MAX_PLAYERS):
        for k in range(MAX_MEEPLES):
            dst.mnode[p, k] = src.mnode[p, k]
            dst.mflag[p, k] = src.mflag[p, k]
        dst.score[p] = src.score[p]
        for k in range(N_CAT):
            dst.brk[p, k] = src.brk[p, k]
        for k in range(N_GIFT):
            dst.hand[p, k] = src.hand[p, k]
        for k in range(src.gst.shape[1]):
            dst.gst[p, k] = src.gst[p, k]
    for k in range(src.pile.shape[0]):
        dst.pile[k] = src.pile[k]
    for k in range(src.avail.shape[0]):
        dst.avail[k] = src.avail[k]
    for k in range(N_GIFT):
        dst.gdeck[k] = src.gdeck[k]
        dst.gdisc[k] = src.gdisc[k]
    for k in range(N_SC):
        dst.sc[k] = src.sc[k]
    for k in range(4):
        dst.srng[k] = src.srng[k]


@njit(cache=True)
def _s_determinize(S, ctx, rng):
    """Resample what the seat to move (``sc[S_CUR]``) cannot see: the order of the remaining
    tiles (rebuilt from the public counts ``avail``), the other seats' gift cards (each keeps
    its public count, dealt from the cards not in the seat's hand nor the face-up discards) and
    the gift deck, and the chance stream of later draws (``srng``). §3.1, §4.3, §6 #13."""
    T, variant = ctx[0], ctx[1]
    sc, pile, avail = S.sc, S.pile, S.avail
    pos = sc[S_PILE_POS]
    k = pos
    for t in range(avail.shape[0]):
        for _ in range(avail[t]):
            pile[k] = t
            k += 1
    for i in range(k - 1, pos, -1):
        j = pos + randint(rng, i - pos + 1)
        tmp = pile[i]
        pile[i] = pile[j]
        pile[j] = tmp
    if variant[V_GIFTS] == 1:
        me = sc[S_CUR]
        hand, gdeck, gdisc = S.hand, S.gdeck, S.gdisc
        gift_counts = T[TB_GIFT_COUNTS]
        tot = 0
        for g in range(N_GIFT):
            gdeck[g] = gift_counts[g] - hand[me, g] - gdisc[g]
            tot += gdeck[g]
        for p in range(sc[S_NPLAYERS]):
            if p == me:
                continue
            m = 0
            for g in range(N_GIFT):
                m += hand[p, g]
                hand[p, g] = 0
            for _ in range(m):
                x = randint(rng, tot)
                g = 0
                while x >= gdeck[g]:
                    x -= gdeck[g]
                    g += 1
                gdeck[g] -= 1
                hand[p, g] += 1
                tot -= 1
    for i in range(4):
        S.srng[i] = next_u64(rng)


@njit(cache=True, **_INTERNAL)
def _s_targets(S, T, cur, g, out):
    """Targets (nodes) of gift ``g`` (Synod, Road Sweeper, Cash Out) for ``cur`` into ``out``."""
    if g == GIFT_SYNOD:
        return unfinished_monasteries(S, T, out) if supply(S, cur) > 0 else 0
    if g == GIFT_SWEEPER:
        return unfinished_roads(S, T, out)
    return own_meeples(S, cur, out)


@njit(cache=True, **_INTERNAL)
def _s_changes(S, T, cur, variant, mo, conn, out):
    """Change Position moves of ``cur``: rows (from node, to segment) into ``out``."""
    nm = own_meeples(S, cur, mo)
    no = 0
    for i in range(nm):
        k = change_targets(S, T, mo[i], variant, conn)
        for q in range(k):
            out[no, 0] = mo[i]
            out[no, 1] = conn[q]
            no += 1
    return no


@njit(cache=True)
def _s_begin_turn(S, T, variant, e0):
    """Start the turn of ``sc[S_CUR]``: draw until placeable (§3.2.1, §6 #14); the game is over
    (``PH_OVER``) when the pile is empty."""
    sc = S.sc
    cur = sc[S_CUR]
    t = _draw_tile(S, S.srng, MODE_PLAY, e0, e0)
    while t >= 0 and not placeable(S, T, t):
        S.gst[cur, 1] += 1
        t = _draw_tile(S, S.srng, MODE_PLAY, e0, e0)
    sc[S_PLAN_S] = -2
    sc[S_OPENED] = -1
    if t < 0:
        sc[S_PHASE] = PH_OVER
        return
    sc[S_T] = t
    sc[S_PHASE] = PH_PLACE
    if variant[V_GIFTS] == 1:
        for g in range(N_GIFT):
            if S.hand[cur, g] > 0:
                sc[S_PHASE] = PH_OPEN


@njit(cache=True)
def _s_legal(S, ctx, moves):
    """Legal move codes of the decision at hand (see the codes above); 0 when the game is over."""
    T, variant, opt2, lst = ctx[0], ctx[1], ctx[5], ctx[6]
    sc = S.sc
    ph = sc[S_PHASE]
    cur = sc[S_CUR]
    if ph == PH_PLACE:
        t = sc[S_T]
        n = placements(S, T, t, _TRUE, opt2)
        width = ctx[9]
        if width <= 0 or n <= width:
            for i in range(n):
                moves[i] = opt2[i, 0] * 4 + opt2[i, 1]
            return n
        vals = ctx[11]
        for i in range(n):
            v, _s = evaluate_placement(
                S, T, t, opt2[i, 1], opt2[i, 0], cur, ctx[4], variant, ctx[2]
            )
            vals[i] = v
        for k in range(width):
            b = 0
            for i in range(1, n):
                if vals[i] > vals[b]:
                    b = i
            moves[k] = opt2[b, 0] * 4 + opt2[b, 1]
            vals[b] = -np.inf
        return width
    if ph == PH_MEEPLE:
        n = meeple_options(S, T, sc[S_IDX], cur, lst)
        for i in range(n):
            moves[i] = BASE_MEEPLE + lst[i] + 1
        return n
    if ph == PH_OPEN:
        moves[0] = BASE_OPEN + N_GIFT
        n = 1
        for g in range(N_GIFT):
            if S.hand[cur, g] > 0:
                moves[n] = BASE_OPEN + g
                n += 1
        return n
    if ph == PH_TARGET:
        n = _s_targets(S, T, cur, sc[S_OPENED], lst)
        for i in range(n):
            moves[i] = BASE_NODE + lst[i]
        return n
    if ph == PH_CHANGE:
        n = _s_changes(S, T, cur, variant, lst, S.scratch[0:8], opt2)
        for i in range(n):
            moves[i] = BASE_CHANGE + opt2[i, 0] * MAX_SEG + opt2[i, 1]
        return n
    if ph == PH_KEEP:
        moves[0] = BASE_KEEP + sc[S_T]
        if sc[S_T2] == sc[S_T]:
            return 1
        moves[1] = BASE_KEEP + sc[S_T2]
        return 2
    return 0


@njit(cache=True)
def _s_to_move(S, ctx):
    return S.sc[S_CUR]


@njit(cache=True)
def _s_open(S, T, variant, g, lst, opt2, e0):
    """Open gift ``g`` (``N_GIFT`` = none) and move to the decision it asks for (§4.3, §4.4)."""
    sc = S.sc
    cur = sc[S_CUR]
    sc[S_PHASE] = PH_PLACE
    if g == N_GIFT:
        return
    sc[S_OPENED] = g
    S.hand[cur, g] -= 1
    S.gdisc[g] += 1
    S.gst[cur, 7 + g] += 1
    if g == GIFT_SYNOD or g == GIFT_SWEEPER or g == GIFT_CASHOUT:
        if _s_targets(S, T, cur, g, lst) > 0:
            sc[S_PHASE] = PH_TARGET
    elif g == GIFT_CHANGE:
        if _s_changes(S, T, cur, variant, lst, S.scratch[0:8], opt2) > 0:
            sc[S_PHASE] = PH_CHANGE
    else:
        t2 = _draw_tile(S, S.srng, MODE_PLAY, e0, e0)
        while t2 >= 0 and not placeable(S, T, t2):
            S.gst[cur, 1] += 1
            t2 = _draw_tile(S, S.srng, MODE_PLAY, e0, e0)
        if t2 >= 0:
            sc[S_T2] = t2
            sc[S_PHASE] = PH_KEEP


@njit(cache=True, **_INTERNAL)
def apply_gift_target(S, T, variant, g, target, cur):
    """Synod (a meeple from the supply onto monastery node ``target``), Road Sweeper (score the
    road with root ``target``) or Cash Out (score and take back the meeple on ``target``);
    §4.4.1-§4.4.3."""
    if g == GIFT_SYNOD:
        S.mflag[cur, _put_meeple(S, target, cur)] = 1
    elif g == GIFT_SWEEPER:
        road_sweep(S, T, target)
    else:
        v = cash_out_points(S, T, target, cur, variant)
        S.score[cur] += v
        S.brk[cur, CAT_GIFT] += v
        S.gst[cur, 12 + GIFT_CASHOUT] += v
        _move_meeple(S, cur, target, _NONE)


@njit(cache=True, **_INTERNAL)
def finish_turn(S, T, variant, cur, idx, s, earned, grng, mode, gscript):
    """After the placement of tile ``idx``: the meeple on segment ``s`` (-1 none, §3.2.2), the
    gift card earned (§4.2; drawn after the meeple step), scoring (§3.2.3). Returns the gift
    card received (-1 none), -2 when a replay's gift list is wrong."""
    if s >= 0:
        _put_meeple(S, idx * MAX_SEG + s, cur)
    g = -1
    if earned:
        g = _draw_gift_card(S, grng, mode, gscript, S.sc[S_GDRAWN])
        if g == -2:
            return g
        if g >= 0:
            S.hand[cur, g] += 1
            S.gst[cur, 2 + g] += 1
    _score_completed(S, T, idx, variant)
    S.gst[cur, 0] += 1
    return g


@njit(cache=True)
def _s_apply(S, ctx, move):
    """Play move code ``move`` (legal in ``S``) and advance to the next decision."""
    T, variant, opt2, lst, e0 = ctx[0], ctx[1], ctx[5], ctx[6], ctx[7]
    sc = S.sc
    ph = sc[S_PHASE]
    cur = sc[S_CUR]
    if ph == PH_PLACE:
        idx = place_tile(S, T, sc[S_T], move % 4, move // 4, S.scratch[0:8])
        sc[S_IDX] = idx
        sc[S_EARNED] = variant[V_GIFTS] == 1 and gift_earned(
            S, T, idx, cur, S.scratch[0:8], variant
        )
        sc[S_PHASE] = PH_MEEPLE
    elif ph == PH_MEEPLE:
        g = finish_turn(
            S,
            T,
            variant,
            cur,
            sc[S_IDX],
            move - BASE_MEEPLE - 1,
            sc[S_EARNED],
            S.srng,
            MODE_PLAY,
            e0,
        )
        if g >= 0:
            sc[S_GDRAWN] += 1
        sc[S_TURN] += 1
        sc[S_CUR] = (cur + 1) % sc[S_NPLAYERS]
        _s_begin_turn(S, T, variant, e0)
    elif ph == PH_OPEN:
        _s_open(S, T, variant, move - BASE_OPEN, lst, opt2, e0)
    elif ph == PH_TARGET:
        apply_gift_target(S, T, variant, sc[S_OPENED], move - BASE_NODE, cur)
        sc[S_PHASE] = PH_PLACE
    elif ph == PH_CHANGE:
        m = move - BASE_CHANGE
        frm = m // MAX_SEG
        _move_meeple(S, cur, frm, (frm // MAX_SEG) * MAX_SEG + m % MAX_SEG)
        sc[S_PHASE] = PH_PLACE
    elif ph == PH_KEEP:
        keep = move - BASE_KEEP
        other = sc[S_T2] if keep == sc[S_T] else sc[S_T]
        sc[S_T] = keep
        if variant[V_TAKE2_OTHER] == 0:
            _return_tile(S, other, S.srng, MODE_PLAY)
        sc[S_PHASE] = PH_PLACE


@njit(cache=True)
def _s_heuristic_move(S, ctx, rng, moves):
    """The ``heuristic`` policy's move code at the decision at hand (as in ``_play``)."""
    T, variant, H, params, lst = ctx[0], ctx[1], ctx[2], ctx[4], ctx[6]
    sc, opt = S.sc, S.opt
    ph = sc[S_PHASE]
    cur = sc[S_CUR]
    t = sc[S_T]
    if ph == PH_PLACE:
        if sc[S_PLAN_S] == -2:
            c, r, s, v = best_placement(S, T, t, cur, params, variant, H, opt)
            sc[S_PLAN_S] = s
            return c * 4 + r
        return sc[S_PLAN_C] * 4 + sc[S_PLAN_R]
    if ph == PH_MEEPLE:
        n = meeple_options(S, T, sc[S_IDX], cur, lst)
        for i in range(n):
            if lst[i] == sc[S_PLAN_S]:
                return BASE_MEEPLE + lst[i] + 1
        return BASE_MEEPLE
    if ph == PH_OPEN:
        opened = N_GIFT
        bestg = -1e18
        for g in range(N_GIFT):
            if S.hand[cur, g] > 0:
                v, _a, _b = _gift_gain(S, T, H, cur, g, t, params, variant, opt)
                if v > bestg:
                    bestg = v
                    if v > params[H_HOLD]:
                        opened = g
        return BASE_OPEN + opened
    if ph == PH_TARGET:
        v, target, _b = _gift_gain(S, T, H, cur, sc[S_OPENED], t, params, variant, opt)
        if target < 0:
            _s_targets(S, T, cur, sc[S_OPENED], lst)
            target = lst[0]
        return BASE_NODE + target
    if ph == PH_KEEP:
        c1, r1, s1, v1 = best_placement(S, T, t, cur, params, variant, H, opt)
        c2, r2, s2, v2 = best_placement(S, T, sc[S_T2], cur, params, variant, H, opt)
        if v2 > v1:
            sc[S_PLAN_C], sc[S_PLAN_R], sc[S_PLAN_S] = c2, r2, s2
            return BASE_KEEP + sc[S_T2]
        sc[S_PLAN_C], sc[S_PLAN_R], sc[S_PLAN_S] = c1, r1, s1
        return BASE_KEEP + t
    n = _s_legal(S, ctx, moves)
    return moves[randint(rng, n)]


@njit(cache=True)
def _s_rollout(S, ctx, rng, scores):
    """Finish the game with the rollout policy (ctx[3]: ``POLICY_RANDOM`` uniform over the legal
    moves, ``POLICY_HEURISTIC`` the heuristic at ctx[4]); final points into ``scores``."""
    T, variant, moves = ctx[0], ctx[1], ctx[8]
    heur = ctx[3] == POLICY_HEURISTIC
    stop = S.sc[S_TURN] + ctx[10] if ctx[10] > 0 else MAX_TILES + 1
    while S.sc[S_PHASE] != PH_OVER and S.sc[S_TURN] < stop:
        if heur:
            mv = _s_heuristic_move(S, ctx, rng, moves)
        else:
            n = _s_legal(S, ctx, moves)
            mv = moves[randint(rng, n)]
        _s_apply(S, ctx, mv)
    score_final(S, T, variant)
    for p in range(scores.shape[0]):
        scores[p] = S.score[p]


search.register(
    lambda t: isinstance(t, types.NamedTuple) and t.instance_class is GameState,
    copy=lambda dst, src: _s_copy(dst, src),
    determinize=lambda state, ctx, rng: _s_determinize(state, ctx, rng),
    legal=lambda state, ctx, moves: _s_legal(state, ctx, moves),
    to_move=lambda state, ctx: _s_to_move(state, ctx),
    apply=lambda state, ctx, move: _s_apply(state, ctx, move),
    rollout=lambda state, ctx, rng, scores: _s_rollout(state, ctx, rng, scores),
)


@njit(cache=True)
def search_scratch(npl, capacity, rollout_params):
    """Scratch of ``mcts_move`` for trees of ``capacity`` nodes and ``npl`` seats (a tuple);
    ``rollout_params`` float64[11]: the heuristic weights of heuristic rollouts and ``width``.

    Slots: 0 root, 1 work (``GameState``); 2 tree, 3 value, 4 logs (``search.search``); 5
    moves, 6 untried int64[MAX_OPT]; 7 mark int64[N_CODES]; 8 path int64[MAX_PLIES]; 9 scores,
    10 reward float64[npl]; 11 opt2 int32[MAX_OPT, 4]; 12 lst int64[MAX_OPT]; 13 e0
    int32[0]; 14 heuristic weights; 15 rollout moves int64[MAX_OPT]; 16 vals, 17 totals
    (``flat_move``) float64[MAX_OPT]."""
    return (
        new_game_state(),
        new_game_state(),
        np.zeros((capacity, search.TREE_COLS), np.int64),
        np.zeros(capacity, np.float64),
        np.zeros(capacity, np.float64),
        np.zeros(MAX_OPT, np.int64),
        np.zeros(MAX_OPT, np.int64),
        np.zeros(N_CODES, np.int64),
        np.zeros(MAX_PLIES, np.int64),
        np.zeros(npl, np.float64),
        np.zeros(npl, np.float64),
        np.zeros((MAX_OPT, 4), np.int32),
        np.zeros(MAX_OPT, np.int64),
        np.zeros(0, np.int32),
        rollout_params.copy(),
        np.zeros(MAX_OPT, np.int64),
        np.zeros(MAX_OPT, np.float64),
        np.zeros(MAX_OPT, np.float64),
    )


@njit(cache=True)
def _search_root(S, root, cur, phase, t, t2, opened, idx, earned):
    """Copy ``S`` into ``root`` and mark the decision at hand (``sc[S_PHASE ..]``)."""
    _s_copy(root, S)
    rsc = root.sc
    rsc[S_CUR] = cur
    rsc[S_PHASE] = phase
    rsc[S_T] = t
    rsc[S_T2] = t2
    rsc[S_OPENED] = opened
    rsc[S_IDX] = idx
    rsc[S_EARNED] = earned
    rsc[S_PLAN_S] = -2


@njit(cache=True)
def _search_ctx(T, variant, H, params, scr):
    """The step functions' ``ctx`` (see "search" above) for ``mcts`` parameters ``params``."""
    return (
        T,
        variant,
        H,
        np.int64(params[M_ROLLOUT]),
        scr[14],
        scr[11],
        scr[12],
        scr[13],
        scr[15],
        np.int64(params[M_WIDTH]),
        np.int64(params[M_DEPTH]),
        scr[16],
    )


@njit(cache=True)
def mcts_move(S, T, H, variant, cur, phase, t, t2, opened, idx, earned, params, rng, scr):
    """Move code (see "search" above) of seat ``cur`` at the decision ``phase`` of its turn
    (tile ``t``, Take 2's ``t2``, gift ``opened``, tile index ``idx`` placed and gift ``earned``
    where they apply) by ISMCTS (``kernels.search``) with the ``mcts`` parameters ``params``
    (``M_*``); ``rng`` uint64[4] the seat's stream, ``scr`` from ``search_scratch``. The root
    copies ``S``; what the seat cannot see is never read, only resampled in each iteration
    (``_s_determinize``)."""
    root = scr[0]
    _search_root(S, root, cur, phase, t, t2, opened, idx, earned)
    return search.search(
        root,
        _search_ctx(T, variant, H, params, scr),
        np.int64(params[M_ITER]),
        params[M_C],
        np.int64(params[M_REWARD]),
        params[M_SCALE],
        rng,
        scr[1],
        scr[2],
        scr[3],
        scr[4],
        scr[5],
        scr[6],
        scr[7],
        scr[8],
        scr[9],
        scr[10],
    )


@njit(cache=True)
def flat_move(S, T, H, variant, cur, phase, t, t2, opened, idx, earned, params, rng, scr):
    """``mcts_move`` without the tree (``kernels.search.flat``: the same number of
    determinizations and rollouts, the root moves in turn; benchmarks only)."""
    root = scr[0]
    _search_root(S, root, cur, phase, t, t2, opened, idx, earned)
    return search.flat(
        root,
        _search_ctx(T, variant, H, params, scr),
        np.int64(params[M_ITER]),
        np.int64(params[M_REWARD]),
        params[M_SCALE],
        rng,
        scr[1],
        scr[5],
        scr[17],
        scr[9],
        scr[10],
    )


@njit(cache=True)
def new_scratch():
    """Scratch arrays of the heuristic (see ``evaluate_placement``)."""
    return (
        np.zeros((8, 8), dtype=np.int64),
        np.zeros(8, dtype=np.int64),
        np.zeros(8, dtype=np.int64),
        np.zeros(8, dtype=np.int64),
        np.zeros(MAX_PLAYERS, dtype=np.int64),
    )


# Numba's reference counting (atomic NRT_incref/NRT_decref on every array passed to the
# helpers; S alone holds 28 arrays) was about 40% of the time of random play; the refcount
# pruning pass cannot remove them across the branches (numba/numba#2345, #2350). The games
# allocate nothing (the state, random states, scratch and result arrays come from ``_run``), so
# the entry is compiled without NRT (``_nrt=False``, the workaround in those issues); being
# called from Python, no compiled caller links and re-optimises the whole engine once more.
# Everything it calls (the search included) must not allocate (a compile error says so).
# It is long: its docstring documents every argument and result of the one compiled entry, and
# its body holds the game loop and the turn's steps in the rules' order (setup, draw, gift,
# placement, meeple, scoring) rather than in ``_play_turns`` / ``_turn`` levels: inlined,
# each level deep-copied the IR of everything below it (about 10 s of the cold compile, see
# the comment above ``_choose_open``); compiled on their own, each would link and compile
# the whole engine below it again.
@njit(cache=True, _nrt=False)
def _play(
    S,
    H,
    first_game_index,
    n_games,
    root_seed,
    npl,
    pol_ids,
    pol_params,
    variant,
    T,
    mode,
    tscript,
    gscript,
    rscript,
    log,
    tlog,
    glog,
    drng,
    grng,
    prng,
    score,
    brk,
    gst,
    held,
    length,
    mscr,
):
    """The one compiled entry of play, records and replay (``play_batch``, ``record_game``,
    ``replay_game`` are Python wrappers that pass every argument with the same types, so they
    share its machine code). Plays (``MODE_PLAY``) or validates (``MODE_REPLAY``) games
    ``first_game_index .. + n_games - 1``.

    Parameters
    ----------
    S : GameState
        From ``new_game_state()``; reset for each game, holds the last game's final state.
    H : tuple or None
        Heuristic scratch (``new_scratch()``) when a seat plays ``heuristic`` or ``mcts``, else
        None: then the heuristic code is not compiled (the ``H is not None`` branches are
        pruned at compile time): random play and replays compile without it.
    first_game_index, n_games : int64
    root_seed : uint64
        Game i's deal is drawn from ``STREAM_DEAL``, its gift deck and Take 2 shuffle-backs from
        ``STREAM_GIFTS``, seat k's choices from ``STREAM_POLICY + k``.
    npl : int64
        Players, 2..5.
    pol_ids : int64[npl]; pol_params : float64[npl, n_params]
    variant : int64[n_variants]
        Codes in ``SPEC.variants`` order (``V_*``).
    T : tuple
        Tile tables built by ``mcsim.games.carcassonne.build_tables`` (slots ``TB_*``).
    mode : int64
        ``MODE_PLAY`` or ``MODE_REPLAY``.
    tscript, gscript : int32[k]
        Replay only: tile types in draw order, gift cards in draw order.
    rscript : int32[n_turns, LOG_COLS]
        Replay only: the turn rows (see module docstring).
    log : int32[>= 72, LOG_COLS]; tlog, glog : int32[256]
        Written in both modes when non-empty (one game): turn rows, tiles drawn, gift cards drawn.
    drng, grng : uint64[4]; prng : uint64[npl, 4]
        Scratch for the random states of the deal, the gifts and the seats.
    score, brk, gst, held, length
        Results, written (see below).
    mscr : tuple or None
        ``search_scratch`` when a seat plays ``mcts``, else None (then the search code is not
        compiled: the ``mscr is not None`` branches are pruned at compile time).

    Results (written into the arrays passed)
    ----------------------------------------
    score : int32[n_games, npl]
        Final scores (points).
    brk : int32[n_games, npl, N_CAT]
        Points by road, city, monastery, farm, gift (Road Sweeper, Cash Out, unopened cards).
    gst : int32[n_games, npl, 17]
        Per seat: turns (tiles placed), unplaceable tiles drawn, gifts received by type (5),
        opened by type (5), points credited to each gift type (5): Road Sweeper and Cash Out
        points, points won only thanks to a Synod / Change Position meeple, and 2 per card of
        that type still held at the end.
    held : int32[n_games, npl, N_GIFT]
        Unopened gift cards at the end, by type.
    length : int32[n_games]
        Turns played (= tiles placed after the start tile).
    S
        The last game's final state. In replay mode an illegal record sets ``sc[S_ERR]``
        (``ERR_*``), ``sc[S_ERR_TURN]`` and leaves the legal options in ``opt`` rows
        ``0 .. sc[S_NOPT]-1`` and stops.

    Notes
    -----
    jit-compiled; the caller validates inputs.
    Rules: ``docs/rules/carcassonne.md`` §3 (base game), §4 (The Gifts).
    """
    for i in range(n_games):
        gi = np.uint64(first_game_index + i)
        seed_state(drng, game_seed(root_seed, gi, _STREAM_DEAL))
        seed_state(grng, game_seed(root_seed, gi, _STREAM_GIFTS))
        for p in range(npl):
            seed_state(prng[p], game_seed(root_seed, gi, np.uint64(STREAM_POLICY + p)))
        R = Run(
            T,
            variant,
            pol_ids,
            pol_params,
            mode,
            tscript,
            gscript,
            rscript,
            log,
            tlog,
            glog,
            drng,
            grng,
            prng,
        )
        # setup (§3.1, §4.1), then turns until the pile is empty (finished) or a replay stops
        _setup(S, T, npl, variant, mode, drng)
        cur = _ZERO  # int64, not a literal: a literal would compile every callee twice
        turn = _ZERO
        while True:
            t = _draw_placeable(S, T, cur, drng, mode, tscript, tlog)
            if t == -3:
                _fail(S, ERR_DRAW, turn)
            if t == -1:  # the pile is empty: the game is over
                if mode == MODE_REPLAY and turn != rscript.shape[0]:
                    _fail(S, ERR_LENGTH, turn)
                else:
                    S.sc[S_FINISHED] = 1
                    score_final(S, T, variant)
            if t < 0 or (mode == MODE_REPLAY and turn >= rscript.shape[0]):
                break  # over, or a replay stopped: an illegal or unfinished record
            # one turn of seat ``cur`` holding tile ``t``: gift (§4.3), placement (§3.2.1),
            # meeple (§3.2.2), gift card earned (§4.2), scoring (§3.2.3)
            nlog = log.shape[0]
            row = turn if turn < nlog else nlog - 1
            if nlog > 0:
                log[row, :] = -1
                log[row, L_PLAYER] = cur
                log[row, L_GA : L_GD + 1] = NO_EFFECT
            opened = _choose_open(S, R, cur, t, turn, H, mscr)
            if opened == BAD:
                break
            pc = -1
            pr = -1
            ps = -2  # the heuristic's planned meeple segment (-2 = no plan yet)
            if opened >= 0:  # to the face-up discards (§4.3), then its effect (§4.4)
                S.hand[cur, opened] -= 1
                S.gdisc[opened] += 1
                S.gst[cur, 7 + opened] += 1
                if nlog > 0:
                    log[row, L_OPEN] = opened
                if opened == GIFT_TAKE2:
                    ok, t, pc, pr, ps = _gift_take2(S, R, cur, t, opened, turn, row, H, mscr)
                elif opened == GIFT_CHANGE:
                    ok = _gift_change(S, R, cur, t, opened, turn, row, H, mscr)
                else:
                    ok = _gift_target(S, R, cur, t, opened, turn, row, H, mscr)
                if not ok:
                    break
            c, r, ps = _choose_place(S, R, cur, t, opened, turn, pc, pr, ps, H, mscr)
            if c == BAD:
                break
            S.sc[S_CUR] = cur
            idx = place_tile(S, T, t, r, c, S.scratch[0:8])
            if nlog > 0:
                x, y = _xy(c)
                log[row, L_TILE] = t
                log[row, L_X] = x
                log[row, L_Y] = y
                log[row, L_ROT] = r
            # receiving a gift (§4.2), judged before the meeple step (§6 #4); drawn after it
            earned = variant[V_GIFTS] == 1 and gift_earned(S, T, idx, cur, S.scratch[0:8], variant)
            s = _choose_meeple(S, R, cur, t, opened, idx, earned, turn, ps, H, mscr)
            if s == BAD:
                break
            if nlog > 0:
                log[row, L_MEEPLE] = s
            g = finish_turn(S, T, variant, cur, idx, s, earned, grng, mode, gscript)
            if g == -2:
                _fail(S, ERR_GIFT_DRAW, turn)
                break
            if g >= 0:
                if S.sc[S_GDRAWN] < glog.shape[0]:
                    glog[S.sc[S_GDRAWN]] = g
                S.sc[S_GDRAWN] += 1
                if nlog > 0:
                    log[row, L_RECEIVED] = g
            turn += 1
            S.sc[S_TURN] = turn
            cur = (cur + 1) % npl
        for p in range(npl):
            score[i, p] = S.score[p]
            for k in range(N_CAT):
                brk[i, p, k] = S.brk[p, k]
            for k in range(17):
                gst[i, p, k] = S.gst[p, k]
            for k in range(N_GIFT):
                held[i, p, k] = S.hand[p, k]
        length[i] = S.sc[S_TURN]


_STREAM_DEAL = np.uint64(STREAM_DEAL)
_STREAM_GIFTS = np.uint64(STREAM_GIFTS)


def _i32(a, ndim):
    """``a`` as a C-contiguous int32 array (the one type ``_play`` is compiled for)."""
    a = np.ascontiguousarray(a, dtype=np.int32)
    if a.ndim != ndim:
        raise ValueError(f"expected a {ndim}-d array, got shape {a.shape}")
    return a


def _run(
    first_game_index,
    n_games,
    root_seed,
    npl,
    pol_ids,
    pol_params,
    variant,
    T,
    mode,
    tscript,
    gscript,
    rscript,
    log,
    tlog,
    glog,
    mscr,
):
    """``_play`` with every argument cast to its one compiled type and the state, scratch and
    result arrays allocated; (score, brk, gst, held, length, final state) (see ``_play``)."""
    npl = int(npl)
    n_games = int(n_games)
    S = new_game_state.py_func()  # NumPy allocates: nothing to compile
    H = None  # random play and replays: the heuristic is not compiled (see ``_play``)
    if any(int(pol_ids[p]) != POLICY_RANDOM for p in range(npl)) or mscr is not None:
        H = new_scratch.py_func()
    out = (
        np.zeros((n_games, npl), dtype=np.int32),
        np.zeros((n_games, npl, N_CAT), dtype=np.int32),
        np.zeros((n_games, npl, 17), dtype=np.int32),
        np.zeros((n_games, npl, N_GIFT), dtype=np.int32),
        np.zeros(n_games, dtype=np.int32),
    )
    _play(
        S,
        H,
        np.int64(first_game_index),
        np.int64(n_games),
        np.uint64(root_seed),
        np.int64(npl),
        np.ascontiguousarray(pol_ids, dtype=np.int64),
        np.ascontiguousarray(pol_params, dtype=np.float64),
        np.ascontiguousarray(variant, dtype=np.int64),
        T,
        np.int64(mode),
        _i32(tscript, 1),
        _i32(gscript, 1),
        _i32(rscript, 2),
        _i32(log, 2),
        _i32(tlog, 1),
        _i32(glog, 1),
        np.zeros(4, dtype=np.uint64),
        np.zeros(4, dtype=np.uint64),
        np.zeros((npl, 4), dtype=np.uint64),
        *out,
        mscr,
    )
    return out + (S,)


def _no_script():
    """Empty replay scripts and logs (play without a record): tscript, gscript, rscript, log,
    tlog, glog."""
    e1 = np.zeros(1, dtype=np.int32)
    return (
        e1,
        e1,
        np.zeros((1, LOG_COLS), dtype=np.int32),
        np.zeros((0, LOG_COLS), dtype=np.int32),
        np.zeros(0, dtype=np.int32),
        np.zeros(0, dtype=np.int32),
    )


def _mcts_scratch(npl, pol_ids, pol_params, rollout_params):
    """``search_scratch`` sized for the ``mcts`` seats' iterations (at least 2 nodes)."""
    cap = 2
    for p in range(npl):
        if pol_ids[p] == POLICY_MCTS:
            cap = max(cap, int(pol_params[p, M_ITER]) + 1)
    return search_scratch(
        np.int64(npl), np.int64(cap), np.ascontiguousarray(rollout_params, dtype=np.float64)
    )


def play_batch(first_game_index, n_games, root_seed, npl, pol_ids, pol_params, variant, T):
    """Play games ``first_game_index .. + n_games - 1`` (no ``mcts`` seat: the search code is
    not compiled); (score, brk, gst, held, length) as ``_play`` returns them.

    Python wrapper of ``_play`` (``MODE_PLAY``); the caller validates inputs.
    """
    r = _run(
        first_game_index,
        n_games,
        root_seed,
        npl,
        pol_ids,
        pol_params,
        variant,
        T,
        MODE_PLAY,
        *_no_script(),
        None,
    )
    return r[:5]


def play_batch_mcts(
    first_game_index, n_games, root_seed, npl, pol_ids, pol_params, variant, T, rollout_params
):
    """``play_batch`` for lineups with ``mcts`` seats; ``rollout_params`` float64[11]: the
    heuristic weights its heuristic rollouts use."""
    mscr = _mcts_scratch(npl, pol_ids, pol_params, rollout_params)
    r = _run(
        first_game_index,
        n_games,
        root_seed,
        npl,
        pol_ids,
        pol_params,
        variant,
        T,
        MODE_PLAY,
        *_no_script(),
        mscr,
    )
    return r[:5]


def record_game(game_index, root_seed, npl, pol_ids, pol_params, variant, T, rollout_params=None):
    """Play one game and return its record arrays: (turn rows int32[turns, LOG_COLS], tiles
    drawn int32[k], gifts drawn int32[m], scores int32[npl], breakdown int32[npl, N_CAT]).
    ``rollout_params``: given when a seat plays ``mcts`` (see ``play_batch_mcts``)."""
    mscr = None
    if rollout_params is not None:
        mscr = _mcts_scratch(npl, pol_ids, pol_params, rollout_params)
    log = np.zeros((80, LOG_COLS), dtype=np.int32)
    tlog = np.zeros(256, dtype=np.int32)
    glog = np.zeros(256, dtype=np.int32)
    e = _no_script()
    S = _run(
        game_index,
        1,
        root_seed,
        npl,
        pol_ids,
        pol_params,
        variant,
        T,
        MODE_PLAY,
        e[0],
        e[1],
        e[2],
        log,
        tlog,
        glog,
        mscr,
    )[5]
    sc = S.sc
    return (
        log[: sc[S_TURN]].copy(),
        tlog[: sc[S_DRAWN]].copy(),
        glog[: sc[S_GDRAWN]].copy(),
        S.score[:npl].copy(),
        S.brk[:npl].copy(),
    )


def record_game_mcts(game_index, root_seed, npl, pol_ids, pol_params, variant, T, rollout_params):
    """``record_game`` for lineups with ``mcts`` seats (see ``play_batch_mcts``)."""
    return record_game(game_index, root_seed, npl, pol_ids, pol_params, variant, T, rollout_params)


def replay_state(npl, variant, T, tscript, gscript, rscript):
    """Replay a record in integer form (``MODE_REPLAY``) as far as it goes; (final
    ``GameState``, turn rows as replayed int32[80, LOG_COLS], tiles drawn int32[256], gift cards
    drawn int32[256]) (see ``_play``)."""
    log = np.zeros((80, LOG_COLS), dtype=np.int32)
    tlog = np.zeros(256, dtype=np.int32)
    glog = np.zeros(256, dtype=np.int32)
    S = _run(
        0,
        1,
        0,
        npl,
        np.zeros(npl, dtype=np.int64),
        np.zeros((npl, 11), dtype=np.float64),
        variant,
        T,
        MODE_REPLAY,
        tscript,
        gscript,
        rscript,
        log,
        tlog,
        glog,
        None,
    )[5]
    return S, log, tlog, glog


def replay_game(npl, variant, T, tscript, gscript, rscript):
    """Validate a record in integer form (``MODE_REPLAY``).

    Returns
    -------
    tuple
        (error kind ``ERR_*`` (0 = valid), turn of the error, legal options int32[k, 4] at the
        error, scores int32[npl], breakdown int32[npl, N_CAT], turn rows as replayed
        int32[turns, LOG_COLS], tiles drawn, gift cards drawn, finished (0/1), gift cards held
        int32[npl, N_GIFT], tile info int32[placed, 3] (type, rotation, cell)).
    """
    S, log, _tlog, _glog = replay_state(npl, variant, T, tscript, gscript, rscript)
    sc = S.sc
    nopt = sc[S_NOPT] if sc[S_ERR] != ERR_NONE else 0
    return (
        sc[S_ERR],
        sc[S_ERR_TURN],
        S.opt[:nopt].copy(),
        S.score[:npl].copy(),
        S.brk[:npl].copy(),
        log[: sc[S_TURN]].copy(),
        sc[S_DRAWN],
        sc[S_GDRAWN],
        sc[S_FINISHED],
        S.hand[:npl].copy(),
        S.tinfo[: sc[S_NPLACED]].copy(),
    )
