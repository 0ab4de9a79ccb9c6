"""Don Quixote estate kernel: geometry, union-find road networks, scoring, policies, play_batch.

Rule source: ``docs/rules/don_quixote.md`` (sections cited per function).

Layout
------
* Cells: ``cell = row * 3 + col`` (row 0..7 = A..H top to bottom, col 0..2 = 1..3 left to right),
  names ``CELL_NAMES`` (``"A1" .. "H3"``); bitboards ``BB_*`` use bit ``cell``.
* Tiles lie landscape with halves L (left) and R (right). Ports (§1.3), index = bit in a 6-bit
  port mask: ``LW=0, LN=1, LS=2, RE=3, RN=4, RS=5``. A 180° turn maps LW<->RE, LN<->RS,
  LS<->RN (``ROT_PORT``). The whole port-to-neighbour geometry is built by
  ``build_geometry()``: a corrected geometry is a change there only.
* A tile is compiled (by ``mcsim.games.don_quixote``) into ``tiles`` int64[T, 2, TW]: per
  orientation, up to ``MAXP`` road pieces with their port masks, feature counts (knights, shield
  sum, churches, windmills), castle id (-1 none, 0 = first castle (6), 1 = second (4)), the
  port -> piece map, the defence shields the tile gives on each cell, the number of pieces and
  the castle value. Tiles ``0 .. T-3`` are landscape tiles, ``T-2`` the 6-castle, ``T-1`` the
  4-castle.
* A player's estate is one int64[8, 96] array ``S``: rows PAR/SIZE/KN/SH/CH/WM over the 96
  road-piece nodes (node = cell * MAXP + piece; PAR = -1 for an unused node), row CELLS (tile
  per cell in 0..23, rotation in 24..47, -1 = empty) and row SC (scalars: church points, windmill
  points, defence shield sum, best knight group, placed count, castle stub nodes, castle values).
  Union-find is union by size without path compression so a placement can be undone exactly
  (the undo log records each union).

Policies (issue 3 §3; ids ``POL_*``)
------------------------------------
* random: uniform over (face-up tile, rotation), from the seat's policy stream.
* greedy: the candidate maximising the current round's score if scored now; ties broken by
  the defence shield sum, then knights attached to castles, then lower tile index, then 0°.
* heuristic: maximise ``heuristic_value`` (weights = policy parameters, ``HEUR_DEFAULT``).
* rollout: ``_choose_rollout`` (k completions per candidate with a base policy on futures
  sampled from the hidden information, the same futures for every candidate).
* mcts: ``choose_mcts``, information-set MCTS by ``kernels.search`` over this player's
  placements (see "search" below); the cell is part of a move, so tree nodes are what the
  player has seen.
* oracle: ``oracle_full`` on the whole deal (beam + exact round 3 + annealing); an upper
  reference for regret, not a playable policy; its result is a lower bound on the optimum.

Entry points: ``play_batch_simple`` (random / greedy / heuristic), ``play_batch`` (also
rollout and oracle), ``play_batch_search`` (also mcts), chosen by ``entry_for``: each compiles
only what its lineups need; all three also write the deal and moves of the first games
(records). The building blocks ``place`` / ``unplace`` / ``score_round`` / ``score_breakdown``
are used by the replay and the tests.

jit-compiled; the caller (``mcsim.games.don_quixote``) validates all input.
"""

import numpy as np
from numba import njit, types

from kernels import search
from kernels.rng import (
    STREAM_DEAL,
    STREAM_POLICY,
    new_state,
    next_u64,
    randint,
    random_float,
    seed_state,
)

# ---------------------------------------------------------------- board and geometry (§1)
N_ROWS = 8
N_COLS = 3
N_CELLS = 24
ROW_NAMES = "ABCDEFGH"
COL_NAMES = "123"
CELL_NAMES = tuple(r + c for r in ROW_NAMES for c in COL_NAMES)
MAXP = 4  # road pieces per tile (castle stubs and roadless features count as pieces)
N_NODES = N_CELLS * MAXP

P_LW, P_LN, P_LS, P_RE, P_RN, P_RS = 0, 1, 2, 3, 4, 5
PORT_NAMES = ("LW", "LN", "LS", "RE", "RN", "RS")
HALF_MASK = np.array([0b000111, 0b111000], dtype=np.int64)  # ports of half L, half R
ROT_PORT = np.array([P_RE, P_RS, P_RN, P_LW, P_LS, P_LN], dtype=np.int64)  # 180° turn

#: round sizes (§3.2 [H]): placements per round; the last of round 3 is the set-aside tile
ROUND_SIZES = (9, 7, 6)
N_PLACE = 22
ROUND_END = (8, 15, 21)  # placement index after which scorings 1, 2, 3 happen
HAND_SLOTS = 16  # room for the face-up unplaced tiles (at most 9 + 7 at the start of round 2)
#: orientation masks (bit 0 = 0°, bit 1 = 180°): a tile may lie either way but the set-aside
#: tile under ``last_tile_rotation=random`` (``1 << drawn orientation``)
ROT_BOTH = 3
#: scoring constants (§3.4/§3.5 [H])
DEFENCE_POINTS = 5
DEFENCE_STEP = 4  # threshold 4 * r
N_CAT = 6
CAT_NAMES = ("castle6", "castle4", "churches", "windmills", "defence", "knight_bonus")
#: positions of the categories in a scoring breakdown (``score_breakdown``, ``CAT_NAMES``);
#: castle c (0 = the 6-castle, 1 = the 4-castle) is ``CAT_CASTLE + c``
CAT_CASTLE, CAT_CHURCHES, CAT_WINDMILLS, CAT_DEFENCE, CAT_KNIGHT_BONUS = 0, 2, 3, 4, 5
N_CASTLES = 2
#: Compile time: Numba compiles a jitted callee once per literal value it is called with
#: (``f(S, 0)`` and ``f(S, 1)`` are two compiles of ``f``), so calls pass variables or
#: ``np.int64(k)``, never a bare constant, to a function that also takes variables.


def build_geometry():
    """Port adjacency of the 8x3 estate (§1.3): the single place that fixes the geometry.

    Returns
    -------
    nb_cell : int64[24, 6]
        Cell facing each port of each cell, -1 where the port lies on the outer boundary.
    nb_port : int64[24, 6]
        The facing port of that neighbour (-1 on the boundary).
    boundary : int64[24]
        6-bit mask of each cell's ports on the outer boundary.
    bb_near : uint64[24]
        Bitboard of the 8-neighbourhood of each cell (castle non-adjacency, §3.1).
    """
    nb_cell = np.full((N_CELLS, 6), -1, dtype=np.int64)
    nb_port = np.full((N_CELLS, 6), -1, dtype=np.int64)
    boundary = np.zeros(N_CELLS, dtype=np.int64)
    bb_near = np.zeros(N_CELLS, dtype=np.uint64)
    # (port, d_row, d_col, facing port): short edges horizontal, long edges half to half.
    links = (
        (P_LW, 0, -1, P_RE),
        (P_RE, 0, 1, P_LW),
        (P_LN, -1, 0, P_LS),
        (P_RN, -1, 0, P_RS),
        (P_LS, 1, 0, P_LN),
        (P_RS, 1, 0, P_RN),
    )
    for r in range(N_ROWS):
        for c in range(N_COLS):
            cell = r * N_COLS + c
            for port, dr, dc, face in links:
                rr, cc = r + dr, c + dc
                if 0 <= rr < N_ROWS and 0 <= cc < N_COLS:
                    nb_cell[cell, port] = rr * N_COLS + cc
                    nb_port[cell, port] = face
                else:
                    boundary[cell] |= 1 << port
            m = 0
            for rr in range(max(r - 1, 0), min(r + 2, N_ROWS)):
                for cc in range(max(c - 1, 0), min(c + 2, N_COLS)):
                    if (rr, cc) != (r, c):
                        m |= 1 << (rr * N_COLS + cc)
            bb_near[cell] = np.uint64(m)
    return nb_cell, nb_port, boundary, bb_near


NB_CELL, NB_PORT, BOUNDARY, BB_NEAR = build_geometry()
BB_CELLS = np.array([np.uint64(1) << np.uint64(i) for i in range(N_CELLS)], dtype=np.uint64)
BB_ALL = np.uint64((1 << N_CELLS) - 1)
BB_BORDER = np.uint64(sum(1 << i for i in range(N_CELLS) if BOUNDARY[i]))

# ---------------------------------------------------------------- tile table layout
T_PORTS = 0  # [MAXP] port mask of each piece
T_KN = 4  # [MAXP] knights on the piece
T_SH = 8  # [MAXP] shield sum on the piece
T_CH = 12  # [MAXP] churches
T_WM = 16  # [MAXP] windmills
T_CASTLE = 20  # [MAXP] castle id of a stub piece, -1 otherwise
T_PP = 24  # [6] piece holding each port, -1 none
T_DEF = 30  # [24] defence shields this tile gives when lying on each cell
T_NP = 54  # number of pieces
T_CVAL = 55  # castle value (0 for landscape tiles)
TW = 56

# ---------------------------------------------------------------- estate state layout
PAR, SIZE, KN, SH, CH, WM, CELLS, SC = 0, 1, 2, 3, 4, 5, 6, 7
SC_CHURCH, SC_MILL, SC_DEF, SC_BONUS, SC_NPLACED = 0, 1, 2, 3, 4
SC_STUB = 8  # 8, 9: stub nodes of castle 0; 10, 11: of castle 1 (-1 none)
SC_CVAL = 12  # 12, 13: castle values
SC_SAVE = 16  # scalars saved/restored around a trial placement
#: undo log of one placement (``place`` / ``unplace``): the number of unions, then per union
#: the two roots joined (kept root, absorbed root); at most 32 unions per placement
LOG_COUNT = 0
LOG_UNIONS = 1
LOGN = LOG_UNIONS + 2 * 32

# ---------------------------------------------------------------- policies
POL_RANDOM, POL_GREEDY, POL_HEURISTIC, POL_ROLLOUT, POL_ORACLE, POL_MCTS = 0, 1, 2, 3, 4, 5
#: ``mcts`` parameter positions: iterations per placement, UCB1 constant, rollout policy id
#: (0 random, 1 greedy, 2 heuristic at ``HEUR_DEFAULT``)
M_ITER, M_C, M_ROLLOUT = range(3)
#: ``rollout`` parameter positions: completions per candidate, base policy id (as M_ROLLOUT)
R_COMPLETIONS, R_BASE = range(2)
#: ``oracle`` parameter positions: beam width, annealing steps
O_BEAM, O_ITERS = range(2)
#: points per reward unit of the search (the reward is the seat's own total, §3.1.5: players
#: do not interact)
SEARCH_SCALE = 10.0
#: heuristic weights (policy parameters; names in mcsim.games.don_quixote.HEURISTIC_PARAMS)
#: tuned by coordinate search (1,500 common deals on the placeholder set + 4 ensemble sets)
HEUR_DEFAULT = np.array([1.0, 2.0, 0.6, 0.3, 0.375, 0.45, 0.0, 0.5, 0.0], dtype=np.float64)
H_NOW, H_CASTLE, H_DEF, H_BONUS, H_OPEN, H_GROW, H_KOPEN, H_CASTLE_OPEN, H_END = range(9)
N_HEUR = 9

#: variant codes (order of SPEC.variants in mcsim.games.don_quixote) and their values
V_LAST_ROT = 0
LAST_ROT_FREE, LAST_ROT_RANDOM = 0, 1


@njit(cache=True)
def group_points(n):
    """Church / windmill group value (§3.5): 0 if n < 2, 2 if n == 2, else 2n."""
    if n < 2:
        return 0
    if n == 2:
        return 2
    return 2 * n


@njit(cache=True)
def castle_points(value, rnd, knights):
    """Castle value at scoring ``rnd`` (§3.5): ``value`` if ``knights >= rnd`` else 0."""
    return value if knights >= rnd else 0


@njit(cache=True)
def defence_points(rnd, shields):
    """Defence of the realm (§3.5): 5 if ``shields >= 4 * rnd`` else 0."""
    return DEFENCE_POINTS if shields >= DEFENCE_STEP * rnd else 0


@njit(cache=True)
def new_estate():
    """An empty estate ``S`` (int64[8, 96]); see the module docstring for the layout."""
    S = np.zeros((8, N_NODES), dtype=np.int64)
    S[PAR, :] = -1
    S[CELLS, :] = -1
    for k in range(4):
        S[SC, SC_STUB + k] = -1
    S[SC, SC_CVAL] = 0
    S[SC, SC_CVAL + 1] = 0
    return S


@njit(cache=True)
def find(S, x):
    """Root of node ``x`` (no path compression, so unions stay undoable)."""
    while S[PAR, x] != x:
        x = S[PAR, x]
    return x


@njit(cache=True)
def union(S, a, b, log):
    """Join the networks of nodes ``a`` and ``b`` (union by size; §3.3), updating the running
    church/windmill points and best knight group and logging the union in ``log``."""
    ra = find(S, a)
    rb = find(S, b)
    if ra == rb:
        return
    if S[SIZE, ra] < S[SIZE, rb]:
        ra, rb = rb, ra
    ca = S[CH, ra]
    cb = S[CH, rb]
    S[SC, SC_CHURCH] += group_points(ca + cb) - group_points(ca) - group_points(cb)
    wa = S[WM, ra]
    wb = S[WM, rb]
    S[SC, SC_MILL] += group_points(wa + wb) - group_points(wa) - group_points(wb)
    S[PAR, rb] = ra
    S[SIZE, ra] += S[SIZE, rb]
    S[KN, ra] += S[KN, rb]
    S[SH, ra] += S[SH, rb]
    S[CH, ra] += S[CH, rb]
    S[WM, ra] += S[WM, rb]
    if S[KN, ra] >= 2 and S[SH, ra] > S[SC, SC_BONUS]:
        S[SC, SC_BONUS] = S[SH, ra]
    n = log[LOG_COUNT]
    log[LOG_UNIONS + 2 * n] = ra
    log[LOG_UNIONS + 2 * n + 1] = rb
    log[LOG_COUNT] = n + 1


@njit(cache=True)
def place(S, tiles, cell, t, o, log):
    """Put tile ``t`` in orientation ``o`` (0 = 0°, 1 = 180°) on empty ``cell`` (§3.2, §3.3).

    Creates the tile's road-piece nodes, joins each road port to a facing road port of a
    placed neighbour (both must have a road, §1.3) and updates the running church/windmill
    points, defence sum and best knight group. ``log`` (int64[LOGN]) receives the unions so
    ``unplace`` can undo the move; save ``S[SC, :SC_SAVE]`` before calling if you will undo.
    """
    log[LOG_COUNT] = 0
    npc = tiles[t, o, T_NP]
    base = cell * MAXP
    for k in range(npc):
        nd = base + k
        S[PAR, nd] = nd
        S[SIZE, nd] = 1
        kn = tiles[t, o, T_KN + k]
        sh = tiles[t, o, T_SH + k]
        ch = tiles[t, o, T_CH + k]
        wm = tiles[t, o, T_WM + k]
        S[KN, nd] = kn
        S[SH, nd] = sh
        S[CH, nd] = ch
        S[WM, nd] = wm
        S[SC, SC_CHURCH] += group_points(ch)
        S[SC, SC_MILL] += group_points(wm)
        if kn >= 2 and sh > S[SC, SC_BONUS]:
            S[SC, SC_BONUS] = sh
        c = tiles[t, o, T_CASTLE + k]
        if c >= 0:
            if S[SC, SC_STUB + 2 * c] < 0:
                S[SC, SC_STUB + 2 * c] = nd
            else:
                S[SC, SC_STUB + 2 * c + 1] = nd
            S[SC, SC_CVAL + c] = tiles[t, o, T_CVAL]
    S[CELLS, cell] = t
    S[CELLS, N_CELLS + cell] = o
    S[SC, SC_DEF] += tiles[t, o, T_DEF + cell]
    S[SC, SC_NPLACED] += 1
    for p in range(6):
        k = tiles[t, o, T_PP + p]
        if k < 0:
            continue
        nc = NB_CELL[cell, p]
        if nc < 0:
            continue
        nt = S[CELLS, nc]
        if nt < 0:
            continue
        kk = tiles[nt, S[CELLS, N_CELLS + nc], T_PP + NB_PORT[cell, p]]
        if kk < 0:
            continue
        union(S, base + k, nc * MAXP + kk, log)


@njit(cache=True)
def unplace(S, tiles, cell, log, saved):
    """Undo the last ``place`` on ``cell`` (``saved`` = ``S[SC, :SC_SAVE]`` from before it)."""
    for i in range(log[LOG_COUNT] - 1, -1, -1):
        ra = log[LOG_UNIONS + 2 * i]
        rb = log[LOG_UNIONS + 2 * i + 1]
        S[PAR, rb] = rb
        S[SIZE, ra] -= S[SIZE, rb]
        S[KN, ra] -= S[KN, rb]
        S[SH, ra] -= S[SH, rb]
        S[CH, ra] -= S[CH, rb]
        S[WM, ra] -= S[WM, rb]
    t = S[CELLS, cell]
    base = cell * MAXP
    for k in range(tiles[t, 0, T_NP]):
        S[PAR, base + k] = -1
    S[CELLS, cell] = -1
    S[CELLS, N_CELLS + cell] = -1
    for k in range(SC_SAVE):
        S[SC, k] = saved[k]
    log[LOG_COUNT] = 0


@njit(cache=True)
def castle_knights(S, c):
    """Distinct knights in the networks attached to castle ``c`` (0 = 6-castle, 1 = 4-castle)."""
    a = S[SC, SC_STUB + 2 * c]
    if a < 0:
        return 0
    ra = find(S, a)
    k = S[KN, ra]
    b = S[SC, SC_STUB + 2 * c + 1]
    if b >= 0:
        rb = find(S, b)
        if rb != ra:
            k += S[KN, rb]
    return k


@njit(cache=True)
def score_round(S, rnd):
    """Points of scoring ``rnd`` (1..3) for the estate as it stands (§3.4)."""
    v = 0
    for c in range(N_CASTLES):
        v += castle_points(S[SC, SC_CVAL + c], rnd, castle_knights(S, c))
    v += S[SC, SC_CHURCH] + S[SC, SC_MILL] + defence_points(rnd, S[SC, SC_DEF])
    if rnd == 3:
        v += S[SC, SC_BONUS]
    return v


@njit(cache=True)
def score_breakdown(S, rnd, out):
    """Scoring ``rnd`` per category into ``out`` (int64[6], order ``CAT_NAMES``); returns
    the sum."""
    for c in range(N_CASTLES):
        out[CAT_CASTLE + c] = castle_points(S[SC, SC_CVAL + c], rnd, castle_knights(S, c))
    out[CAT_CHURCHES] = S[SC, SC_CHURCH]
    out[CAT_WINDMILLS] = S[SC, SC_MILL]
    out[CAT_DEFENCE] = defence_points(rnd, S[SC, SC_DEF])
    out[CAT_KNIGHT_BONUS] = S[SC, SC_BONUS] if rnd == 3 else 0
    total = 0
    for k in range(N_CAT):
        total += out[k]
    return total


@njit(cache=True)
def round_of(pos):
    """Round (1..3) of placement index ``pos`` (0..21), §3.2."""
    if pos < ROUND_END[0] + 1:
        return 1
    if pos < ROUND_END[1] + 1:
        return 2
    return 3


# ---------------------------------------------------------------- deal (§3.1, §3.2)
@njit(cache=True)
def deal(root_seed, game_index, n_players, n_land, castles, cells, seq, last_rot):
    """Draw one game's deal from stream ``STREAM_DEAL`` (shared by every policy).

    Parameters
    ----------
    castles : int64[2]  out: cells of the 6-castle and the 4-castle (§3.1 with redraw)
    cells : int64[22]  out: the position-card order of the 22 placements
    seq : int64[n_players, n_land]  out: each player's reveal order (first 9 = round 1, next 7
        = round 2, next 5 = round 3, last = the set-aside tile)
    last_rot : int64[n_players]  out: orientation of the set-aside tile for variant
        ``last_tile_rotation=random`` (always drawn, so the stream is variant-independent)
    """
    st = new_state(root_seed, game_index, np.int64(STREAM_DEAL))
    deck = np.arange(N_CELLS)
    _shuffle(st, deck, np.int64(0))
    castles[0] = deck[0]
    # the rest of the deck is deck[1:]; redraw the 4-castle while adjacent, reshuffling
    while BB_NEAR[deck[0]] & BB_CELLS[deck[1]]:
        _shuffle(st, deck, np.int64(1))
    castles[1] = deck[1]
    for i in range(N_PLACE):
        cells[i] = deck[2 + i]
    for p in range(n_players):
        for i in range(n_land):
            seq[p, i] = i
        _shuffle_row(st, seq, p)
        last_rot[p] = randint(st, 2)


@njit(cache=True)
def _shuffle(st, arr, start):
    n = arr.shape[0] - start
    for i in range(n - 1, 0, -1):
        j = randint(st, i + 1)
        tmp = arr[start + i]
        arr[start + i] = arr[start + j]
        arr[start + j] = tmp


@njit(cache=True)
def _shuffle_row(st, arr, row):
    n = arr.shape[1]
    for i in range(n - 1, 0, -1):
        j = randint(st, i + 1)
        tmp = arr[row, i]
        arr[row, i] = arr[row, j]
        arr[row, j] = tmp


@njit(cache=True)
def setup_estate(tiles, castles):
    """A new estate with both castles placed (tile T-2 on ``castles[0]``, tile T-1 on
    ``castles[1]``)."""
    S = new_estate()
    log = np.zeros(LOGN, dtype=np.int64)
    T = tiles.shape[0]
    for c in range(N_CASTLES):
        place(S, tiles, castles[c], T - 2 + c, np.int64(0), log)
    return S


# ---------------------------------------------------------------- policies (issue §3)
@njit(cache=True)
def _castles_knights(S):
    """Knights attached to both castles."""
    k = 0
    for c in range(N_CASTLES):
        k += castle_knights(S, c)
    return k


@njit(cache=True)
def _greedy_key(S, rnd):
    # documented order: immediate score, then defence sum, then knights attached to castles
    return score_round(S, rnd) * 4096 + min(S[SC, SC_DEF], 63) * 64 + min(_castles_knights(S), 63)


@njit(cache=True)
def heuristic_value(S, tiles, rnd, w, open_ws):
    """Heuristic value of an estate during round ``rnd`` (weights ``w``, order HEUR_DEFAULT).

    ``w[H_NOW]`` x score if scored now + ``w[H_CASTLE]`` x sum over castles of value/6 x
    min(knights, 3) + ``w[H_DEF]`` x min(defence shields, 12) + ``w[H_BONUS]`` x best knight
    group + ``w[H_OPEN]`` x open road ends facing empty cells + ``w[H_GROW]`` x church/windmill
    growth (one more feature's value, for groups in networks with open ends) + ``w[H_KOPEN]`` x
    knights in networks with open ends + ``w[H_CASTLE_OPEN]`` x open ends of castle networks
    still short of 3 knights. (``w[H_END]``, the extra weight at a round's last placement, is
    applied by the caller.)
    ``open_ws`` is int64[96] scratch, all zero on entry and on return.

    Not modelled: which of the tiles still to come could connect a given open end (a tried
    "dead end" term, open ends no unplaced tile can serve, moved the mean by < 0.1 point on
    the placeholder set and 4 ensemble sets, so it was left out).
    """
    v = w[H_NOW] * score_round(S, rnd)
    kc = 0.0
    for c in range(N_CASTLES):
        k = castle_knights(S, c)
        kc += S[SC, SC_CVAL + c] / 6.0 * min(k, 3)
    v += w[H_CASTLE] * kc + w[H_DEF] * min(S[SC, SC_DEF], 12) + w[H_BONUS] * S[SC, SC_BONUS]
    total_open = 0
    for cell in range(N_CELLS):
        t = S[CELLS, cell]
        if t < 0:
            continue
        o = S[CELLS, N_CELLS + cell]
        for p in range(6):
            k = tiles[t, o, T_PP + p]
            if k < 0:
                continue
            nc = NB_CELL[cell, p]
            if nc < 0 or S[CELLS, nc] >= 0:
                continue
            r = find(S, cell * MAXP + k)
            open_ws[r] += 1
            total_open += 1
    v += w[H_OPEN] * total_open
    if total_open == 0:
        return v
    grow = 0.0
    kopen = 0.0
    for r in range(N_NODES):
        if open_ws[r] == 0:
            continue
        ch = S[CH, r]
        if ch >= 1:
            grow += group_points(ch + 1) - group_points(ch)
        wm = S[WM, r]
        if wm >= 1:
            grow += group_points(wm + 1) - group_points(wm)
        kopen += S[KN, r]
    castle_open = 0.0
    for c in range(N_CASTLES):
        if castle_knights(S, c) >= 3:
            continue
        for j in range(2):
            a = S[SC, SC_STUB + 2 * c + j]
            if a >= 0:
                castle_open += min(open_ws[find(S, a)], 2)
    for r in range(N_NODES):
        open_ws[r] = 0
    return v + w[H_GROW] * grow + w[H_KOPEN] * kopen + w[H_CASTLE_OPEN] * castle_open


@njit(cache=True)
def _choose_simple(
    pol, w, S, tiles, cell, hand, nh, rotmask, rnd, at_end, rng, log, saved, open_ws
):
    """(hand index, orientation) chosen by random / greedy / heuristic. ``at_end``: this
    placement ends the round (the heuristic adds ``w[H_END]`` x the round's score)."""
    if pol == POL_RANDOM:
        i = randint(rng, nh)
        if rotmask == ROT_BOTH:
            return i, randint(rng, 2)
        return i, (0 if rotmask == 1 else 1)
    best_i = 0
    best_o = 0
    best_t = 1 << 30
    best_k = -1.0e300
    for k in range(SC_SAVE):
        saved[k] = S[SC, k]
    for i in range(nh):
        t = hand[i]
        for o in range(2):
            if not (rotmask >> o) & 1:
                continue
            place(S, tiles, cell, t, o, log)
            if pol == POL_GREEDY:
                key = np.float64(_greedy_key(S, rnd))
            else:
                key = heuristic_value(S, tiles, rnd, w, open_ws)
                if at_end:
                    key += w[H_END] * score_round(S, rnd)
            unplace(S, tiles, cell, log, saved)
            # ties: lower tile index, then 0° before 180°
            if key > best_k or (key == best_k and t < best_t):
                best_k = key
                best_i = i
                best_o = o
                best_t = t
    return best_i, best_o


@njit(cache=True)
def _reveal(hand, nh, seq, pos):
    """Add the tiles revealed before placement ``pos`` to ``hand``; returns the new count."""
    if pos == 0:
        for j in range(ROUND_SIZES[0]):
            hand[nh] = seq[j]
            nh += 1
    elif pos == ROUND_END[0] + 1:
        for j in range(ROUND_SIZES[0], ROUND_SIZES[0] + ROUND_SIZES[1]):
            hand[nh] = seq[j]
            nh += 1
    elif pos == ROUND_END[1] + 1:
        for j in range(ROUND_SIZES[0] + ROUND_SIZES[1], N_PLACE - 1):
            hand[nh] = seq[j]
            nh += 1
    elif pos == N_PLACE - 1:
        hand[nh] = seq[N_PLACE - 1]  # the set-aside tile, forced last
        nh += 1
    return nh


# Numba's reference counting (atomic NRT_incref/NRT_decref on every array passed to the
# helpers) was about half of the kernel time of random and greedy play; the refcount pruning
# pass cannot remove them across the branches (numba/numba#2345, #2350). The placements
# allocate nothing (the caller passes every buffer), so they are compiled without NRT
# (``_nrt=False``, the workaround in those issues). Everything called from here must not
# allocate (a compile error says so if it does).
@njit(cache=True, _nrt=False)
def _run_simple(
    S,
    tiles,
    cells,
    seq,
    pos0,
    hand,
    nh,
    pol,
    w,
    last_rotmask,
    rng,
    log,
    saved,
    open_ws,
    bd,
    bd_row,
    moves,
):
    """Play placements ``pos0 .. 21`` with a simple policy; return the sum of scorings done.

    ``hand[:nh]`` holds the face-up unplaced tiles before the reveals of ``pos0``. If ``bd``
    has rows, scoring r's categories go to ``bd[bd_row, r - 1, :]``. ``moves`` (int64[22, 2])
    receives (tile, rotation) per placement.
    """
    total = 0
    for pos in range(pos0, N_PLACE):
        nh = _reveal(hand, nh, seq, pos)
        rnd = round_of(pos)
        if pos == N_PLACE - 1:  # the set-aside tile, revealed last, is placed last (§3.2)
            first = nh - 1
            rotmask = last_rotmask
        else:
            first = 0
            rotmask = ROT_BOTH
        i, o = _choose_simple(
            pol,
            w,
            S,
            tiles,
            cells[pos],
            hand[first:nh],
            nh - first,
            rotmask,
            rnd,
            pos == ROUND_END[rnd - 1],
            rng,
            log,
            saved,
            open_ws,
        )
        i += first
        t = hand[i]
        hand[i] = hand[nh - 1]
        nh -= 1
        moves[pos, 0] = t
        moves[pos, 1] = o
        place(S, tiles, cells[pos], t, o, log)
        if pos == ROUND_END[rnd - 1]:
            if bd.shape[0] > 0:
                total += score_breakdown(S, rnd, bd[bd_row, rnd - 1])
            else:
                total += score_round(S, rnd)
    return total


@njit(cache=True)
def _choose_rollout(
    params, S, tiles, cells, seq, pos, hand, nh, rotmask, last_rand, rng, log, saved, open_ws
):
    """Rollout policy: each candidate is scored by the mean of K completions (base policy)
    on K futures sampled from what is hidden (cell order after ``pos``, unrevealed tiles);
    all candidates see the same K futures and base-policy draws."""
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
    S2 = np.empty_like(S)
    hand2 = np.empty(HAND_SLOTS, dtype=np.int64)
    moves2 = np.empty((N_PLACE, 2), dtype=np.int64)
    rng2 = np.empty(4, dtype=np.uint64)
    nobd = np.zeros((0, 3, N_CAT), dtype=np.int64)
    w = HEUR_DEFAULT.copy()
    best_i = 0
    best_o = 0
    best_v = -1.0e300
    first = nh - 1 if pos == N_PLACE - 1 else 0
    for i in range(first, nh):
        for o in range(2):
            if not (rotmask >> o) & 1:
                continue
            acc = 0.0
            for k in range(K):
                S2[:, :] = S
                nh2 = 0
                for j in range(nh):
                    if j != i:
                        hand2[nh2] = hand[j]
                        nh2 += 1
                place(S2, tiles, cell, hand[i], o, log)
                v = 0
                if pos == ROUND_END[rnd - 1]:
                    v += score_round(S2, rnd)
                seed_state(rng2, fut_seed[k])
                v += _run_simple(
                    S2,
                    tiles,
                    fut_cells[k],
                    fut_seq[k],
                    pos + 1,
                    hand2,
                    nh2,
                    base,
                    w,
                    fut_lrot[k],
                    rng2,
                    log,
                    saved,
                    open_ws,
                    nobd,
                    np.int64(0),
                    moves2,
                )
                acc += v
            if acc > best_v:
                best_v = acc
                best_i = i
                best_o = o
    return best_i, best_o


@njit(cache=True)
def _exact_round3(S, tiles, cells, seq, last_rotmask, plan):
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
                unplace(S, tiles, cells[base_pos + d], logs[d], saved[d])
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
            saved[d, k] = S[SC, k]
        place(S, tiles, cell, t, o, logs[d])
        cur[d, 0] = t
        cur[d, 1] = o
        if d == nfree:
            v = score_round(S, 3)
            if v > best:
                best = v
                for q in range(nfree + 1):
                    plan[base_pos + q, 0] = cur[q, 0]
                    plan[base_pos + q, 1] = cur[q, 1]
            unplace(S, tiles, cell, logs[d], saved[d])
        else:
            used |= 1 << j
            d += 1
            ci[d] = -1
    return best


@njit(cache=True)
def oracle_plan(S, tiles, cells, seq, last_rotmask, beam, plan):
    """Full-knowledge search for the highest total (issue §3 ``oracle``; not a playable policy).

    Beam search of width ``beam`` over placements 0..15 (ranked by banked points + the default
    heuristic), then an exact search of round 3 from every surviving state. With beam >= the
    number of reachable states this is exact; otherwise the result is a **lower bound** on the
    optimum. Writes (tile, rot) per placement into ``plan`` (int64[22, 2]) and returns the total.
    ``S`` (castles placed, nothing else) is left unchanged.
    """
    B = max(beam, 1)
    SB = np.empty((B, 8, N_NODES), dtype=np.int64)
    SB2 = np.empty((B, 8, N_NODES), dtype=np.int64)
    placed = np.zeros(B, dtype=np.int64)
    placed2 = np.zeros(B, dtype=np.int64)
    banked = np.zeros(B, dtype=np.int64)
    banked2 = np.zeros(B, dtype=np.int64)
    plans = np.zeros((B, N_PLACE, 2), dtype=np.int64)
    plans2 = np.zeros((B, N_PLACE, 2), dtype=np.int64)
    SB[0, :, :] = S
    nb = 1
    maxc = B * 2 * HAND_SLOTS
    cb = np.empty(maxc, dtype=np.int64)
    ct = np.empty(maxc, dtype=np.int64)
    co = np.empty(maxc, dtype=np.int64)
    cv = np.empty(maxc, dtype=np.float64)
    cgain = np.empty(maxc, dtype=np.int64)
    log = np.zeros(LOGN, dtype=np.int64)
    saved = np.zeros(SC_SAVE, dtype=np.int64)
    open_ws = np.zeros(N_NODES, dtype=np.int64)
    w = HEUR_DEFAULT.copy()
    last_pos = ROUND_END[1]
    for pos in range(last_pos + 1):
        rnd = round_of(pos)
        nrev = ROUND_SIZES[0] if rnd == 1 else ROUND_SIZES[0] + ROUND_SIZES[1]
        cell = cells[pos]
        nc = 0
        for b in range(nb):
            Sb = SB[b]
            for k in range(SC_SAVE):
                saved[k] = Sb[SC, k]
            for j in range(nrev):
                t = seq[j]
                if (placed[b] >> t) & 1:
                    continue
                for o in range(2):
                    place(Sb, tiles, cell, t, o, log)
                    gain = 0
                    nxt = rnd
                    if pos == ROUND_END[rnd - 1]:
                        gain = score_round(Sb, rnd)
                        nxt = rnd + 1
                    cb[nc] = b
                    ct[nc] = t
                    co[nc] = o
                    cgain[nc] = gain
                    cv[nc] = banked[b] + gain + heuristic_value(Sb, tiles, nxt, w, open_ws)
                    nc += 1
                    unplace(Sb, tiles, cell, log, saved)
        order = np.argsort(-cv[:nc], kind="mergesort")
        nb2 = min(B, nc)
        for q in range(nb2):
            c = order[q]
            b = cb[c]
            SB2[q, :, :] = SB[b]
            place(SB2[q], tiles, cell, ct[c], co[c], log)
            placed2[q] = placed[b] | (1 << ct[c])
            banked2[q] = banked[b] + cgain[c]
            plans2[q, :, :] = plans[b]
            plans2[q, pos, 0] = ct[c]
            plans2[q, pos, 1] = co[c]
        SB, SB2 = SB2, SB
        placed, placed2 = placed2, placed
        banked, banked2 = banked2, banked
        plans, plans2 = plans2, plans
        nb = nb2
    best = -1
    tmp_plan = np.zeros((N_PLACE, 2), dtype=np.int64)
    for b in range(nb):
        v = banked[b] + _exact_round3(SB[b], tiles, cells, seq, last_rotmask, tmp_plan)
        if v > best:
            best = v
            plan[:, :] = plans[b]
            plan[ROUND_END[1] + 1 :, :] = tmp_plan[ROUND_END[1] + 1 :, :]
    return best


@njit(cache=True)
def plan_total(S0, tiles, cells, plan, S, log):
    """Total of the three scorings when ``plan`` (int64[22, 2]: tile, rotation per placement)
    is played on a copy of ``S0`` (castles placed) into scratch estate ``S``."""
    S[:, :] = S0
    total = 0
    for pos in range(N_PLACE):
        place(S, tiles, cells[pos], plan[pos, 0], plan[pos, 1], log)
        if pos == ROUND_END[0] or pos == ROUND_END[1] or pos == ROUND_END[2]:
            total += score_round(S, round_of(pos))
    return total


@njit(cache=True, inline="always")
def _swap_plan_rows(plan, p, q):
    """Exchange placements p and q (tile and rotation) of a plan (int[N_PLACE, 2])."""
    for k in range(2):
        tmp = plan[p, k]
        plan[p, k] = plan[q, k]
        plan[q, k] = tmp


@njit(cache=True)
def improve_plan(S0, tiles, cells, last_rotmask, plan, iters, rng):
    """Simulated annealing over a full-knowledge plan (``oracle``); returns the best total.

    With the whole deal known, only which tile (and rotation) goes to which cell *within each
    round* matters (every tile revealed in a round is placed in that round, §3.2), so a move
    swaps the tiles of two placements of one round (never the set-aside last tile) or turns
    one tile. Temperature falls geometrically from 3 to 0.05 points. ``plan`` (int64[22, 2]) is
    replaced by the best plan found (never worse than the one given).
    """
    S = np.empty_like(S0)
    log = np.zeros(LOGN, dtype=np.int64)
    best = plan_total(S0, tiles, cells, plan, S, log)
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
        v = plan_total(S0, tiles, cells, cur_plan, S, log)
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
def oracle_full(S, tiles, cells, seq, last_rotmask, beam, iters, rng, plan):
    """The ``oracle`` policy's plan: ``oracle_plan`` (beam + exact round 3), then
    ``improve_plan`` (annealing), then an exact round 3 again on the improved rounds 1-2.
    Writes the plan into ``plan`` (int64[22, 2]) and returns its total, a lower bound on the
    best achievable total of the deal (exact only if every stage was exhaustive)."""
    oracle_plan(S, tiles, cells, seq, last_rotmask, beam, plan)
    best = improve_plan(S, tiles, cells, last_rotmask, plan, iters, rng)
    S2 = S.copy()
    log = np.zeros(LOGN, dtype=np.int64)
    banked = 0
    for pos in range(ROUND_END[1] + 1):
        place(S2, tiles, cells[pos], plan[pos, 0], plan[pos, 1], log)
        if pos == ROUND_END[0] or pos == ROUND_END[1]:
            banked += score_round(S2, round_of(pos))
    tmp = plan.copy()
    v = banked + _exact_round3(S2, tiles, cells, seq, last_rotmask, tmp)
    if v > best:
        best = v
        plan[ROUND_END[1] + 1 :, :] = tmp[ROUND_END[1] + 1 :, :]
    return best


# ---------------------------------------------------------------- search (kernels.search)
# The step interface of ``kernels.search`` for one player's estate. The search state is an
# estate array (int64[8, 96]) whose SC row carries, after the scalars of ``place`` (columns
# < SC_SAVE), the placement index, the face-up hand, the points banked, the orientation mask of
# the set-aside tile, the position-card order and the reveal order. ctx = (tiles, last_rand,
# rollout policy id, rollout weights, log, saved, open_ws, empty breakdown, moves scratch).
SC_POS = 16  # next placement index (0..22)
SC_NH = 17  # face-up unplaced tiles in the hand (after the reveals of SC_POS)
SC_LROT = 18  # orientation mask of the set-aside tile
SC_BANK = 19  # points of the scorings done
SC_HAND = 20  # HAND_SLOTS slots: the hand
SC_FCELLS = 36  # 22 slots: the cell of each placement
SC_SEQ = 58  # n_land slots: the reveal order
MAX_SEARCH_LAND = N_NODES - SC_SEQ  # 38
#: positions in ctx (as built by ``choose_mcts`` and unpacked by ``_search_rollout``)
CTX_TILES, CTX_LAST_RAND, CTX_LOG = 0, 1, 4


@njit(cache=True)
def n_revealed(pos):
    """Tiles of the reveal order a player has seen when making placement ``pos`` (§3.2)."""
    if pos <= ROUND_END[0]:
        return ROUND_SIZES[0]
    if pos <= ROUND_END[1]:
        return ROUND_SIZES[0] + ROUND_SIZES[1]
    if pos < N_PLACE - 1:
        return N_PLACE - 1
    return N_PLACE


@njit(cache=True)
def _revealed_at(pos):
    """Tiles ``_reveal`` adds to the hand at placement ``pos``."""
    if pos == 0:
        return ROUND_SIZES[0]
    if pos == ROUND_END[0] + 1:
        return ROUND_SIZES[1]
    if pos == ROUND_END[1] + 1:
        return ROUND_SIZES[2] - 1
    if pos == N_PLACE - 1:
        return 1
    return 0


@njit(cache=True)
def _search_copy(dst, src):
    for r in range(8):
        for k in range(N_NODES):
            dst[r, k] = src[r, k]


@njit(cache=True)
def _shuffle_sc(S, rng, start, stop):
    """Fisher-Yates over ``S[SC, start:stop]``."""
    for j in range(stop - 1, start, -1):
        m = start + randint(rng, j - start + 1)
        tmp = S[SC, j]
        S[SC, j] = S[SC, m]
        S[SC, m] = tmp


@njit(cache=True)
def _search_determinize(S, ctx, rng):
    """Sample what the player has not seen: the cells of the later placements (the empty cells
    but the current one), the order of the unrevealed tiles (the tiles not yet revealed), and
    the set-aside tile's orientation (variant random, before it is revealed). Each is rebuilt
    in ascending order from what is known and shuffled, so the old values are never read."""
    tiles, last_rand = ctx[CTX_TILES], ctx[CTX_LAST_RAND]
    n_land = tiles.shape[0] - 2
    pos = S[SC, SC_POS]
    if pos >= N_PLACE - 1:
        return
    cur = S[SC, SC_FCELLS + pos]
    k = SC_FCELLS + pos + 1
    for c in range(N_CELLS):
        if S[CELLS, c] < 0 and c != cur:
            S[SC, k] = c
            k += 1
    _shuffle_sc(S, rng, SC_FCELLS + pos + 1, SC_FCELLS + N_PLACE)
    nrev = n_revealed(pos)
    seen = 0
    for j in range(nrev):
        seen |= 1 << S[SC, SC_SEQ + j]
    k = SC_SEQ + nrev
    for t in range(n_land):
        if not (seen >> t) & 1:
            S[SC, k] = t
            k += 1
    _shuffle_sc(S, rng, SC_SEQ + nrev, SC_SEQ + n_land)
    if last_rand:
        S[SC, SC_LROT] = 1 << randint(rng, 2)


@njit(cache=True)
def _search_legal(S, ctx, moves):
    """Moves ``(cell * T + tile) * 2 + rotation``: the cell is part of the move, so a node's
    children differ with the position card seen (information sets, not open loop)."""
    pos = S[SC, SC_POS]
    if pos >= N_PLACE:
        return 0
    T = ctx[CTX_TILES].shape[0]
    cell = S[SC, SC_FCELLS + pos]
    nh = S[SC, SC_NH]
    n = 0
    if pos == N_PLACE - 1:
        rotmask = S[SC, SC_LROT]
        first = nh - 1
    else:
        rotmask = ROT_BOTH
        first = 0
    for i in range(first, nh):
        base = (cell * T + S[SC, SC_HAND + i]) * 2
        for o in range(2):
            if (rotmask >> o) & 1:
                moves[n] = base + o
                n += 1
    return n


@njit(cache=True)
def _search_to_move(S, ctx):
    return 0


@njit(cache=True)
def _search_apply(S, ctx, move):
    tiles = ctx[CTX_TILES]
    T = tiles.shape[0]
    t = (move >> 1) % T
    o = move & 1
    pos = S[SC, SC_POS]
    nh = S[SC, SC_NH]
    i = 0
    while S[SC, SC_HAND + i] != t:
        i += 1
    S[SC, SC_HAND + i] = S[SC, SC_HAND + nh - 1]
    nh -= 1
    place(S, tiles, S[SC, SC_FCELLS + pos], t, o, ctx[CTX_LOG])
    rnd = round_of(pos)
    if pos == ROUND_END[rnd - 1]:
        S[SC, SC_BANK] += score_round(S, rnd)
    pos += 1
    if pos < N_PLACE:
        n_land = tiles.shape[0] - 2
        nh = _reveal(
            S[SC, SC_HAND : SC_HAND + HAND_SLOTS], nh, S[SC, SC_SEQ : SC_SEQ + n_land], pos
        )
    S[SC, SC_POS] = pos
    S[SC, SC_NH] = nh


@njit(cache=True)
def _search_rollout(S, ctx, rng, scores):
    tiles, last_rand, base, w, log, saved, open_ws, nobd, moves2 = ctx
    pos = S[SC, SC_POS]
    total = S[SC, SC_BANK]
    if pos < N_PLACE:
        n_land = tiles.shape[0] - 2
        total += _run_simple(
            S,
            tiles,
            S[SC, SC_FCELLS : SC_FCELLS + N_PLACE],
            S[SC, SC_SEQ : SC_SEQ + n_land],
            pos,
            S[SC, SC_HAND : SC_HAND + HAND_SLOTS],
            S[SC, SC_NH] - _revealed_at(pos),
            base,
            w,
            S[SC, SC_LROT],
            rng,
            log,
            saved,
            open_ws,
            nobd,
            np.int64(0),
            moves2,
        )
    scores[0] = total


search.register(
    lambda t: isinstance(t, types.Array) and t.ndim == 2 and t.dtype == types.int64,
    copy=lambda dst, src: _search_copy(dst, src),
    determinize=lambda state, ctx, rng: _search_determinize(state, ctx, rng),
    legal=lambda state, ctx, moves: _search_legal(state, ctx, moves),
    to_move=lambda state, ctx: _search_to_move(state, ctx),
    apply=lambda state, ctx, move: _search_apply(state, ctx, move),
    rollout=lambda state, ctx, rng, scores: _search_rollout(state, ctx, rng, scores),
)


@njit(cache=True)
def search_root(S, tiles, cells, seq, pos, hand, nh, bank, last_rotmask, last_rand, root):
    """Write the search state of placement ``pos`` into ``root`` (int64[8, 96]): the estate
    ``S``, the hand ``hand[:nh]`` (after the reveals of ``pos``), the points banked and what the
    player has seen of the deal. Hidden values (later cells, unrevealed tiles, the set-aside
    tile's orientation before it is revealed under variant random) are written as -1 / 3."""
    n_land = tiles.shape[0] - 2
    root[:, :] = S
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
    params, S, tiles, cells, seq, pos, hand, nh, bank, last_rotmask, last_rand, rng, scr
):
    """(hand index, orientation) of placement ``pos`` by ISMCTS (``kernels.search``) with the
    ``mcts`` parameters ``M_*``; ``scr`` from ``search_scratch``. Reads of the deal only what
    the player has seen (``search_root``)."""
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
        w,
        log,
        saved,
        open_ws,
        nobd,
        moves2,
    ) = scr
    search_root(S, tiles, cells, seq, pos, hand, nh, bank, last_rotmask, last_rand, root)
    ctx = (tiles, last_rand, np.int64(params[M_ROLLOUT]), w, log, saved, open_ws, nobd, moves2)
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
    T = tiles.shape[0]
    t = (move >> 1) % T
    i = 0
    while hand[i] != t:
        i += 1
    return i, move & 1


@njit(cache=True)
def search_scratch(tiles, capacity):
    """Scratch of ``choose_mcts`` for trees of ``capacity`` nodes (a tuple of arrays)."""
    T = tiles.shape[0]
    return (
        np.zeros((8, N_NODES), np.int64),
        np.zeros((8, N_NODES), np.int64),
        np.zeros((capacity, search.TREE_COLS), np.int64),
        np.zeros(capacity, np.float64),
        np.zeros(capacity, np.float64),
        np.zeros(32, np.int64),
        np.zeros(32, np.int64),
        np.zeros(N_CELLS * T * 2, np.int64),
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


# ---------------------------------------------------------------- playing games
# Three entry kernels with the same arguments share one game loop (``_play_games``), and each
# compiles only the policies its lineups need, so that a first run compiles quickly (issue 13
# §5): ``play_batch_simple`` random / greedy / heuristic, ``play_batch`` also rollout and
# oracle, ``play_batch_search`` also mcts (``kernels.search``). ``entry_for`` picks one. What
# a run leaves out is an argument that is None (``plan``, ``scr``): Numba prunes the branch that
# uses it before typing, so that code is never compiled. Records are written by the same
# kernels (``out_record``), so a run's records share the compiled code of its games.
# ``_play_simple`` is inlined (``inline="always"``): each compiled level of a call chain
# optimises again the machine code of everything below it (about 0.5 s per level here), and it
# only passes arguments on. It allocates nothing, so the random and greedy games keep their
# reference-count-free placements (see ``_run_simple``).
@njit(cache=True, inline="always")
def _play_simple(S, tiles, cells, seq, pol, params, last_rotmask, rng, bd, bd_row, moves, buf):
    """One player's 22 placements by random / greedy / heuristic on estate ``S`` (castles
    placed); returns the total.

    Parameters
    ----------
    cells : int64[22]  position-card order; seq : int64[n_land]  this player's reveal order
    pol : int  policy id (POL_*); params : float64[:]  its parameter vector
    last_rotmask : int  allowed orientations of the set-aside tile (``ROT_BOTH`` or one bit)
    rng : uint64[4]  the seat's policy stream
    bd : int64[rows, 3, 6]  out: per-scoring, per-category points into row ``bd_row``
    moves : int64[22, 2]  out: (tile, rotation) of each placement
    buf : (hand int64[HAND_SLOTS], log int64[LOGN], saved int64[SC_SAVE], open_ws
        int64[N_NODES] all zero, w float64[N_HEUR])  scratch
    """
    hand, log, saved, open_ws, w = buf
    for k in range(N_HEUR):
        w[k] = params[k] if pol == POL_HEURISTIC else HEUR_DEFAULT[k]
    return _run_simple(
        S,
        tiles,
        cells,
        seq,
        np.int64(0),
        hand,
        np.int64(0),
        pol,
        w,
        last_rotmask,
        rng,
        log,
        saved,
        open_ws,
        bd,
        bd_row,
        moves,
    )


@njit(cache=True)
def _play_planned(
    S,
    tiles,
    cells,
    seq,
    pol,
    params,
    last_rotmask,
    last_rand,
    rng,
    bd,
    bd_row,
    moves,
    buf,
    plan,
    scr,
):
    """One player's 22 placements by rollout, oracle or mcts; returns the total.

    The oracle plans the whole game first (``oracle_full`` into ``plan`` int64[22, 2]); the
    rollout and mcts policies choose at each placement from what the player has seen. Other
    arguments as in ``_play_simple``, and ``last_rand``: variant ``last_tile_rotation=random``
    (rollouts sample the orientation), ``plan`` and ``scr`` as in ``_play_games``.
    """
    hand, log, saved, open_ws, _ = buf
    plan[:, :] = 0
    if pol == POL_ORACLE:
        oracle_full(
            S, tiles, cells, seq, last_rotmask, int(params[O_BEAM]), int(params[O_ITERS]), rng, plan
        )
    total = 0
    nh = 0
    for pos in range(N_PLACE):
        nh = _reveal(hand, nh, seq, pos)
        rnd = round_of(pos)
        rotmask = last_rotmask if pos == N_PLACE - 1 else ROT_BOTH
        if pol == POL_ORACLE:
            i = 0
            while hand[i] != plan[pos, 0]:
                i += 1
            o = plan[pos, 1]
        elif pol == POL_ROLLOUT:
            i, o = _choose_rollout(
                params,
                S,
                tiles,
                cells,
                seq,
                pos,
                hand,
                nh,
                rotmask,
                last_rand,
                rng,
                log,
                saved,
                open_ws,
            )
        elif scr is None:  # an entry without search (Numba keeps one of these two branches)
            raise ValueError("an mcts seat needs play_batch_search")
        else:
            i, o = choose_mcts(
                params, S, tiles, cells, seq, pos, hand, nh, total, rotmask, last_rand, rng, scr
            )
        t = hand[i]
        hand[i] = hand[nh - 1]
        nh -= 1
        moves[pos, 0] = t
        moves[pos, 1] = o
        place(S, tiles, cells[pos], t, o, log)
        if pos == ROUND_END[rnd - 1]:
            total += score_breakdown(S, rnd, bd[bd_row, rnd - 1])
    return total


@njit(cache=True)
def _play_games(
    first_game_index,
    n_games,
    root_seed,
    policy_ids,
    policy_params,
    variant,
    tiles,
    out_score,
    out_bd,
    out_record,
    plan,
    scr,
):
    """The game loop of the entry kernels: their arguments, then

    plan : int64[22, 2] scratch of the planning policies (rollout, oracle, mcts), or None when
        every seat is random / greedy / heuristic (then only those are compiled)
    scr : ``search_scratch``, or None when no seat is ``mcts`` (then ``kernels.search`` is not
        compiled)

    Each seat plays its 22 placements on its own estate (castles placed) with
    ``_play_simple`` or ``_play_planned``; seat p's totals go to ``out_score[g, p]``.
    """
    P = policy_ids.shape[0]
    n_land = tiles.shape[0] - 2
    rec_castles, rec_cells, rec_seq, rec_last_rot, rec_moves = out_record
    castles = np.empty(2, dtype=np.int64)
    cells = np.empty(N_PLACE, dtype=np.int64)
    seq = np.empty((P, n_land), dtype=np.int64)
    last_rot = np.empty(P, dtype=np.int64)
    moves = np.empty((N_PLACE, 2), dtype=np.int64)
    buf = (
        np.empty(HAND_SLOTS, dtype=np.int64),
        np.zeros(LOGN, dtype=np.int64),
        np.zeros(SC_SAVE, dtype=np.int64),
        np.zeros(N_NODES, dtype=np.int64),
        np.zeros(N_HEUR, dtype=np.float64),
    )
    last_rand = variant[V_LAST_ROT] == LAST_ROT_RANDOM
    for g in range(n_games):
        gi = first_game_index + g
        kept = g < rec_castles.shape[0]  # a recorded game: its deal and moves go to out_record
        g_castles = rec_castles[g] if kept else castles
        g_cells = rec_cells[g] if kept else cells
        g_seq = rec_seq[g] if kept else seq
        g_last_rot = rec_last_rot[g] if kept else last_rot
        deal(root_seed, gi, P, n_land, g_castles, g_cells, g_seq, g_last_rot)
        for p in range(P):
            S = setup_estate(tiles, g_castles)
            rng = new_state(root_seed, gi, STREAM_POLICY + p)
            mask = (1 << g_last_rot[p]) if last_rand else ROT_BOTH
            pol = policy_ids[p]
            m = rec_moves[g, p] if kept else moves
            # with plan None, Numba prunes the else branch by the argument's type
            if plan is None or pol <= POL_HEURISTIC:
                total = _play_simple(
                    S,
                    tiles,
                    g_cells,
                    g_seq[p],
                    pol,
                    policy_params[p],
                    mask,
                    rng,
                    out_bd[g],
                    p,
                    m,
                    buf,
                )
            else:
                total = _play_planned(
                    S,
                    tiles,
                    g_cells,
                    g_seq[p],
                    pol,
                    policy_params[p],
                    mask,
                    last_rand,
                    rng,
                    out_bd[g],
                    p,
                    m,
                    buf,
                    plan,
                    scr,
                )
            out_score[g, p] = total


@njit(cache=True)
def play_batch_simple(
    first_game_index,
    n_games,
    root_seed,
    policy_ids,
    policy_params,
    variant,
    tiles,
    out_score,
    out_bd,
    out_record,
):
    """Play ``n_games`` games (indices ``first_game_index ..``) whose seats are all random,
    greedy or heuristic (ids <= POL_HEURISTIC; anything else raises ValueError).

    Parameters
    ----------
    policy_ids : int64[seats]; policy_params : float64[seats, n_params]
    variant : int64[n_variants]  codes in SPEC.variants order (V_LAST_ROT)
    tiles : int64[T, 2, TW]  compiled tile set, T = n_land + 2 (castles last)
    out_score : int64[n_games, seats]  out: game totals (points)
    out_bd : int64[n_games, seats, 3, 6]  out: points per scoring and category (CAT_NAMES)
    out_record : tuple of int64 arrays with n_rec <= n_games rows, the deal and moves of the
        first n_rec games: castles [n_rec, 2] (cells of the 6- and 4-castle), cells [n_rec,
        22] (position-card order), seq [n_rec, seats, n_land] (reveal orders), last_rot
        [n_rec, seats] (set-aside tile orientation drawn), moves [n_rec, seats, 22, 2] (tile,
        rotation per placement); ``empty_record`` in ``mcsim.games.don_quixote`` for none.

    Notes
    -----
    Game i depends only on (root_seed, i): the deal comes from stream STREAM_DEAL (common to
    every policy) and seat k's choices from STREAM_POLICY + k. Players do not interact (§3.1.5).
    The three entry kernels give the same results for the seats they can play.
    """
    for p in range(policy_ids.shape[0]):
        if policy_ids[p] > POL_HEURISTIC:
            raise ValueError("play_batch_simple plays random, greedy and heuristic seats only")
    _play_games(
        first_game_index,
        n_games,
        root_seed,
        policy_ids,
        policy_params,
        variant,
        tiles,
        out_score,
        out_bd,
        out_record,
        None,
        None,
    )


@njit(cache=True)
def play_batch(
    first_game_index,
    n_games,
    root_seed,
    policy_ids,
    policy_params,
    variant,
    tiles,
    out_score,
    out_bd,
    out_record,
):
    """``play_batch_simple`` that also plays rollout and oracle seats (not mcts: ValueError)."""
    _play_games(
        first_game_index,
        n_games,
        root_seed,
        policy_ids,
        policy_params,
        variant,
        tiles,
        out_score,
        out_bd,
        out_record,
        np.zeros((N_PLACE, 2), dtype=np.int64),
        None,
    )


@njit(cache=True)
def search_capacity(policy_ids, policy_params):
    """Tree nodes needed by the ``mcts`` seats of a game (iterations + 1; 2 if none)."""
    cap = 2
    for p in range(policy_ids.shape[0]):
        if policy_ids[p] == POL_MCTS:
            cap = max(cap, np.int64(policy_params[p, M_ITER]) + 1)
    return cap


@njit(cache=True)
def play_batch_search(
    first_game_index,
    n_games,
    root_seed,
    policy_ids,
    policy_params,
    variant,
    tiles,
    out_score,
    out_bd,
    out_record,
):
    """``play_batch`` that also plays mcts seats (``choose_mcts``)."""
    _play_games(
        first_game_index,
        n_games,
        root_seed,
        policy_ids,
        policy_params,
        variant,
        tiles,
        out_score,
        out_bd,
        out_record,
        np.zeros((N_PLACE, 2), dtype=np.int64),
        search_scratch(tiles, search_capacity(policy_ids, policy_params)),
    )


def entry_for(policy_ids):
    """The entry kernel that compiles least for a lineup (policy ids int64[seats])."""
    if (policy_ids == POL_MCTS).any():
        return play_batch_search
    if (policy_ids <= POL_HEURISTIC).all():
        return play_batch_simple
    return play_batch
