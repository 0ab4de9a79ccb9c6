"""Don Quixote kernel layout: board geometry, tile table, estate array, codes (no Numba).

Rule source: ``docs/rules/don_quixote.md`` (sections cited per constant).

* Cells: ``cell = row * 3 + col`` (row 0..7 = A..H top to bottom, col 0..2 = 1..3 left to right),
  names ``CELL_NAMES`` (``"A1" .. "H3"``); bitboards ``BB_*`` use bit ``cell``.
* Tiles lie landscape with halves L (left) and R (right). Ports (§1.3), index = bit in a 6-bit
  port mask: ``LW=0, LN=1, LS=2, RE=3, RN=4, RS=5``. A 180° turn maps LW<->RE, LN<->RS,
  LS<->RN (``ROT_PORT``). The whole port-to-neighbour geometry is built by
  ``build_geometry()``: a corrected geometry is a change there only.
* A tile is compiled (by ``mcsim.games.don_quixote``) into ``tables`` int64[T, 2, TW]: per
  orientation, up to ``MAXP`` road pieces with their port masks, feature counts (knights, shield
  sum, churches, windmills), castle id (-1 none, 0 = first castle (6), 1 = second (4)), the
  port -> piece map, the defence shields the tile gives on each cell, the number of pieces and
  the castle value (table ``tables[t, o, :]`` below). Tiles ``0 .. T-3`` are landscape tiles,
  ``T-2`` the 6-castle, ``T-1`` the 4-castle.
* A player's estate is one int64[8, 96] array ``state`` (table ``state[row, :]`` below): rows
  PAR/SIZE/KN/SH/CH/WM over the 96 road-piece nodes (node = cell * MAXP + piece; PAR = -1 for an
  unused node), row CELLS (tile per cell in 0..23, rotation in 24..47, -1 = empty) and row SC
  (scalars, table ``state[SC, :]`` below). Union-find is union by size without path compression so
  a placement can be undone exactly (the undo log ``log`` records each union).
* The search state (``kernels.search``) is an estate whose SC row also carries, after the
  scalars of ``place`` (columns < ``SC_SAVE``), the placement index, the face-up hand, the
  points banked, the orientation mask of the set-aside tile, the position-card order and the
  reveal order. Its ctx tuple is (tables, last_rand, rollout policy id, rollout weights, log,
  saved, open_ends, empty breakdown, moves scratch); ``CTX_*`` are positions in it.

Compile time: Numba compiles a jitted callee once per literal value it is called with
(``f(state, 0)`` and ``f(state, 1)`` are two compiles of ``f``), so calls pass variables or
``np.int64(k)``, never a bare constant, to a function that also takes variables.
"""

import numpy as np

from kernels.state_layout import StateLayout

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
TILE = StateLayout("tables[t, o, :]", "int64[TW]: one tile in one orientation")
T_PORTS = TILE.field("T_PORTS", MAXP, "port mask of each piece")
T_KN = TILE.field("T_KN", MAXP, "knights on each piece")
T_SH = TILE.field("T_SH", MAXP, "shield sum on each piece")
T_CH = TILE.field("T_CH", MAXP, "churches on each piece")
T_WM = TILE.field("T_WM", MAXP, "windmills on each piece")
T_CASTLE = TILE.field("T_CASTLE", MAXP, "castle id of a stub piece, -1 otherwise")
T_PP = TILE.field("T_PP", 6, "piece holding each port, -1 none")
T_DEF = TILE.field("T_DEF", N_CELLS, "defence shields this tile gives when lying on each cell")
T_NP = TILE.field("T_NP", 1, "number of pieces")
T_CVAL = TILE.field("T_CVAL", 1, "castle value (0 for landscape tiles)")
TW = TILE.size
TILE.verify(globals())
__doc__ += TILE.table()

# ---------------------------------------------------------------- estate state layout
ROWS = StateLayout("state[row, :]", "int64[S_ROWS, N_NODES]: one player's estate, by row")
PAR = ROWS.field("PAR", 1, "union-find parent of each node (-1 unused)")
SIZE = ROWS.field("SIZE", 1, "nodes in the network (at a root)")
KN = ROWS.field("KN", 1, "knights in the network (at a root)")
SH = ROWS.field("SH", 1, "shield sum of the network (at a root)")
CH = ROWS.field("CH", 1, "churches in the network (at a root)")
WM = ROWS.field("WM", 1, "windmills in the network (at a root)")
CELLS = ROWS.field("CELLS", 1, "tile per cell in 0..23, its rotation in 24..47 (-1 empty)")
SC = ROWS.field("SC", 1, "scalars (``state[SC, :]``)")
S_ROWS = ROWS.size
ROWS.verify(globals())
__doc__ += ROWS.table()

# The columns keep the offsets they always had (spare columns 5..7 and 14..15), so the search
# fields start at 16 and MAX_SEARCH_LAND stays 38.
SCALARS = StateLayout("state[SC, :]", "int64[N_NODES]: the scalar row of an estate / search state")
SC_CHURCH = SCALARS.field("SC_CHURCH", 1, "church points (running)")
SC_MILL = SCALARS.field("SC_MILL", 1, "windmill points (running)")
SC_DEF = SCALARS.field("SC_DEF", 1, "defence shield sum")
SC_BONUS = SCALARS.field("SC_BONUS", 1, "best knight group (shields of a network with >= 2)")
SC_NPLACED = SCALARS.field("SC_NPLACED", 1, "tiles placed (castles included)")
SC_SPARE_A = SCALARS.field("SC_SPARE_A", 3, "unused (0)")
SC_STUB = SCALARS.field("SC_STUB", 2 * N_CASTLES, "stub nodes of castle 0, then castle 1 (-1)")
SC_CVAL = SCALARS.field("SC_CVAL", N_CASTLES, "castle values")
SC_SPARE_B = SCALARS.field("SC_SPARE_B", 2, "unused (0)")
SC_SAVE = SCALARS.size  # scalars saved/restored around a trial placement
SC_POS = SCALARS.field("SC_POS", 1, "search: next placement index (0..22)")
SC_NH = SCALARS.field("SC_NH", 1, "search: face-up unplaced tiles in the hand (after reveals)")
SC_LROT = SCALARS.field("SC_LROT", 1, "search: orientation mask of the set-aside tile")
SC_BANK = SCALARS.field("SC_BANK", 1, "search: points of the scorings done")
SC_HAND = SCALARS.field("SC_HAND", HAND_SLOTS, "search: the hand")
SC_FCELLS = SCALARS.field("SC_FCELLS", N_PLACE, "search: the cell of each placement")
SC_SEQ = SCALARS.field("SC_SEQ", N_NODES - SCALARS.size, "search: the reveal order (n_land slots)")
MAX_SEARCH_LAND = N_NODES - SC_SEQ  # 38
SCALARS.verify(globals())
assert SC_SAVE == 16 and SC_SEQ == 58 and SCALARS.size == N_NODES
__doc__ += SCALARS.table()

#: undo log of one placement (``place`` / ``unplace``): the number of unions, then per union
#: the two roots joined (kept root, absorbed root); at most 32 unions per placement
LOG = StateLayout("log", "int64[LOGN]: undo log of one placement")
LOG_COUNT = LOG.field("LOG_COUNT", 1, "unions logged")
LOG_UNIONS = LOG.field("LOG_UNIONS", 2 * 32, "(kept root, absorbed root) per union")
LOGN = LOG.size
LOG.verify(globals())
__doc__ += LOG.table()

#: positions in the search ctx (as built by ``choose_mcts`` and unpacked by ``_search_rollout``)
CTX_TABLES, CTX_LAST_RAND, CTX_LOG = 0, 1, 4

# ---------------------------------------------------------------- policies
POL_RANDOM, POL_GREEDY, POL_HEURISTIC, POL_ROLLOUT, POL_ORACLE, POL_MCTS = 0, 1, 2, 3, 4, 5
POL_HINDSIGHT = 6
#: ``mcts`` parameter positions: iterations per placement, UCB1 constant, rollout policy id
#: (0 random, 1 greedy, 2 heuristic at ``HEUR_DEFAULT``), endgame (0 the search, 1 the exact
#: round-3 solver ``kernels.don_quixote.hindsight.r3_choose``), then from ``M_WEIGHTS`` the
#: ``N_HEUR`` heuristic weights of the rollout policy 2 (order ``HEUR_DEFAULT``)
M_ITER, M_C, M_ROLLOUT, M_ENDGAME, M_WEIGHTS = range(5)
#: ``hindsight`` parameter positions: sampled futures per placement, beam width of the
#: full-knowledge start plan, annealing steps per candidate and sample, endgame (0 sampled
#: futures in round 3 too, 1 the exact solver)
HS_K, HS_BEAM, HS_ITERS, HS_ENDGAME, HS_HORIZON = range(5)
#: ``rollout`` parameter positions: completions per candidate, base policy id (as M_ROLLOUT),
#: then from ``R_WEIGHTS`` the ``N_HEUR`` heuristic weights of base 2 (order ``HEUR_DEFAULT``)
R_COMPLETIONS, R_BASE, R_WEIGHTS = range(3)
#: ``oracle`` parameter positions: beam width, annealing steps
O_BEAM, O_ITERS = range(2)
#: restricted play (docs/rules/don_quixote.md §8): each policy's forbid mask is its last
#: parameter, so its column in the parameter vector is the policy's parameter count (by
#: policy id: random 0, greedy 0, heuristic 9 weights, rollout k + base + 9 weights, oracle
#: beam + iters, mcts 4 + 9 weights, hindsight 5); ``mcsim.games.don_quixote`` checks it
FORBID_COL = np.array([0, 0, 9, 11, 2, 13, 5], dtype=np.int64)
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
