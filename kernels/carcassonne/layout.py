"""Carcassonne kernel layout: board geometry, codes, table slots and the game state's arrays.

No Numba here: plain constants and NumPy arrays (Numba reads module globals as compile-time
constants). The other modules of ``kernels.carcassonne`` import from this one.

Board and tiles
---------------
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

Turn log
--------
Turn log row (``LOG_COLS`` int32 columns, ``L_*`` below): player, tile type placed, gift opened
(-1), gift args a, b, c, d, x, y, rotation, meeple segment (-1), gift received (-1). Gift args:
Synod (x, y) of the monastery; Road Sweeper / Cash Out (x, y, segment); Change Position (x, y,
from, to); Take 2: a = the tile type kept. -99 (``NO_EFFECT``) = the gift had no effect.

Move codes of the search
------------------------
One range for ``kernels.search.search``'s mark array (``N_CODES`` codes)::

    placement: cell * 4 + rotation                   (PH_PLACE)
    meeple:    BASE_MEEPLE + segment + 1 (0 = none)  (PH_MEEPLE)
    open gift: BASE_OPEN + type (N_GIFT = none)      (PH_OPEN)
    target:    BASE_NODE + node                      (PH_TARGET: Synod, Road Sweeper, Cash Out)
    change:    BASE_CHANGE + from node * 8 + to seg  (PH_CHANGE)
    Take 2:    BASE_KEEP + tile type kept            (PH_KEEP)

The slot tables of the arrays (state scalars ``sc``, statistics ``gst``, feature counters
``fint``, turn log rows, variant codes, points table, tile tables ``tables``, heuristic and ``mcts``
parameters) and of ``GameState`` follow.
"""

from collections import namedtuple

import numpy as np

from kernels.rng import STREAM_DEAL
from kernels.state_layout import StateLayout

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

# variant codes ``variant[V_*]``
VARIANT = StateLayout("variant", "int64[n_variants]: codes in the order of SPEC.variants")
V_GIFTS = VARIANT.field("V_GIFTS", 1, "1 = The Gifts in play")
V_FARMS = VARIANT.field("V_FARMS", 1, "farm scoring, FARMS_*")
V_TINY_CITY = VARIANT.field("V_TINY_CITY", 1, "1 = a completed 2-tile city scores P_TINY_CITY")
V_GIFT_SHARED = VARIANT.field("V_GIFT_SHARED", 1, "1 = a shared majority also earns a gift")
V_GIFT_COMPLETED = VARIANT.field("V_GIFT_COMPLETED", 1, "1 = completing a feature earns none")
V_CASH_OUT = VARIANT.field("V_CASH_OUT", 1, "Cash Out counts 0 all meeples, 1 own only")
V_CHANGE_COMPLETED = VARIANT.field("V_CHANGE_COMPLETED", 1, "1 = may change to completed")
V_TAKE2_OTHER = VARIANT.field("V_TAKE2_OTHER", 1, "Take 2's other tile: 0 shuffled back")
V_GIFT_JUDGED = VARIANT.field("V_GIFT_JUDGED", 1, "1 = majority judged before the merge")
V_GIFT_DECK = VARIANT.field("V_GIFT_DECK", 1, "unused here: the gift deck is in TB_GIFT_COUNTS")
V_START_BALANCE = VARIANT.field(
    "V_START_BALANCE", 1, "1 = tournament start balance (3-4 players: start meeple, seat 1 draws)"
)
VARIANT.verify(globals())
FARMS_V3, FARMS_V2, FARMS_V1, FARMS_NONE = 0, 1, 2, 3

# points table ``T[TB_PTS][P_*]`` (mcsim/data/carcassonne/scoring.json)
POINTS = StateLayout("pts", "int64[14]: the points table (mcsim/data/carcassonne/scoring.json)")
P_ROAD = POINTS.field("P_ROAD", 1, "road, per tile")
P_CITY_TILE = POINTS.field("P_CITY_TILE", 1, "completed city, per tile")
P_CITY_PEN = POINTS.field("P_CITY_PEN", 1, "completed city, per pennant")
P_CITY_END_TILE = POINTS.field("P_CITY_END_TILE", 1, "city at game end, per tile")
P_CITY_END_PEN = POINTS.field("P_CITY_END_PEN", 1, "city at game end, per pennant")
P_TINY_CITY = POINTS.field("P_TINY_CITY", 1, "completed 2-tile city (tiny_city variant)")
P_MON_COMPLETE = POINTS.field("P_MON_COMPLETE", 1, "completed monastery")
P_MON_END_BASE = POINTS.field("P_MON_END_BASE", 1, "monastery at game end, base")
P_MON_END_NEIGHBOUR = POINTS.field("P_MON_END_NEIGHBOUR", 1, "... per neighbouring tile")
P_FARM = POINTS.field("P_FARM", 1, "farm, per completed city (v3, v2)")
P_FARM_V1 = POINTS.field("P_FARM_V1", 1, "farm, per city to the majority (v1)")
P_MEEPLES = POINTS.field("P_MEEPLES", 1, "meeples per player")
P_GIFT_UNOPENED = POINTS.field("P_GIFT_UNOPENED", 1, "per gift card held at the end")
P_CASH_OUT = POINTS.field("P_CASH_OUT", 1, "Cash Out, per meeple")
POINTS.verify(globals())

POLICY_RANDOM, POLICY_HEURISTIC, POLICY_MCTS = 0, 1, 2

# heuristic parameters ``params[H_*]`` (ParamSpec order in mcsim.games.carcassonne)
HEURISTIC = StateLayout("params", "float64[11]: heuristic weights (ParamSpec order)")
H_W_OPP = HEURISTIC.field("H_W_OPP", 1, "weight of points going to an opponent")
H_POT = HEURISTIC.field("H_POT", 1, "potential factor of open features")
H_OPEN_PEN = HEURISTIC.field("H_OPEN_PEN", 1, "penalty per open city edge")
H_MEEPLE = HEURISTIC.field("H_MEEPLE", 1, "cost of a meeple locked in an open feature")
H_SCARCITY = HEURISTIC.field("H_SCARCITY", 1, "extra meeple cost as the supply empties")
H_FARM = HEURISTIC.field("H_FARM", 1, "farmer worth per adjacent city segment")
H_FARM_TURN = HEURISTIC.field("H_FARM_TURN", 1, "no farmers before this many tiles")
H_MON = HEURISTIC.field("H_MON", 1, "weight of monastery worth")
H_HOLD = HEURISTIC.field("H_HOLD", 1, "a gift is opened when its gain exceeds this")
H_TAKE2 = HEURISTIC.field("H_TAKE2", 1, "Take 2 when the best placement is below this")
H_GIFT = HEURISTIC.field("H_GIFT", 1, "worth of earning a gift card")
HEURISTIC.verify(globals())

# ``mcts`` parameters ``params[M_*]`` (ParamSpec order in mcsim.games.carcassonne)
MCTS = StateLayout("mcts params", "float64[18]: mcts parameters (ParamSpec order)")
M_ITER = MCTS.field("M_ITER", 1, "iterations per decision")
M_C = MCTS.field("M_C", 1, "exploration constant")
M_REWARD = MCTS.field("M_REWARD", 1, "reward kind (kernels.search)")
M_ROLLOUT = MCTS.field("M_ROLLOUT", 1, "rollout policy id, POLICY_*")
M_SCALE = MCTS.field("M_SCALE", 1, "points per reward unit of the margin reward")
M_WIDTH = MCTS.field("M_WIDTH", 1, "> 0: keep only the heuristic's best placements")
M_DEPTH = MCTS.field("M_DEPTH", 1, "> 0: rollout turns before scoring as if the game ended")
# the seat's own heuristic weights (``H_*`` order) for everything the search asks the heuristic:
# heuristic rollouts, the other seats' modelled moves, the ``width`` ranking of placements
M_HEUR = MCTS.field("M_HEUR", HEURISTIC.size, "the search's heuristic weights, H_* order")
MCTS.verify(globals())

MODE_PLAY, MODE_REPLAY = 0, 1

# restricted play (docs/rules/carcassonne.md §6.1): the bits of a seat's forbidden-options mask
# (``forbid``, int64, from the policy parameter ``forbid_mask``; the bit order of
# ``mcsim.games.carcassonne.RESTRICTIONS``)
FB_GIFT = 0  # bits FB_GIFT + g (g = GIFT_*): never open a gift card of type g (§4.3)
FB_GIFTS = N_GIFT  # never open any gift card (§4.3)
FB_FARMERS = N_GIFT + 1  # never put a meeple on a field (§3.2 step 2, §3.5, §4.4.4)
FB_MONASTERIES = N_GIFT + 2  # never put a meeple on a monastery (§3.2 step 2, §4.4.1, §4.4.4)
#: column of the ``forbid_mask`` parameter in ``params`` per policy id: it is appended after
#: each policy's own parameters (``random`` has none, the heuristic ``HEURISTIC.size``, ``mcts``
#: ``MCTS.size``; checked against the ParamSpecs by tests/test_carcassonne_restricted_play.py)
FORBID_COL = (0, HEURISTIC.size, MCTS.size)

# tile tables ``tables`` (a tuple built by ``mcsim.games.carcassonne.build_tables``, in this order)
TABLES = StateLayout("tables", "tuple of the tile tables (mcsim.games.carcassonne.build_tables)")
TB_EDGE = TABLES.field("TB_EDGE", 1, "edge[t, r, side]: EDGE_* code")
TB_SIDE_SEG = TABLES.field("TB_SIDE_SEG", 1, "side_seg[t, r, side]: segment, -1 on a field")
TB_PORT_SEG = TABLES.field("TB_PORT_SEG", 1, "port_seg[t, r, port]: field segment or -1")
TB_NSEG = TABLES.field("TB_NSEG", 1, "nseg[t]: segments of a type")
TB_SEG_KIND = TABLES.field("TB_SEG_KIND", 1, "seg_kind[t, s]: KIND_*")
TB_SEG_NSIDES = TABLES.field("TB_SEG_NSIDES", 1, "seg_nsides[t, s]: sides of a segment")
TB_SEG_PEN = TABLES.field("TB_SEG_PEN", 1, "seg_pen[t, s]: pennants")
TB_SEG_ADJ = TABLES.field("TB_SEG_ADJ", 1, "seg_adj[t, s, 2]: city segments a field touches")
TB_FIT = TABLES.field("TB_FIT", 1, "fit[t, pattern]: mask of legal rotations")
TB_CL_SEG = TABLES.field("TB_CL_SEG", 1, "cl_seg[t]: monastery segment or -1")
TB_PTS = TABLES.field("TB_PTS", 1, "pts[P_*]: the points table")
TB_ROT_OK = TABLES.field("TB_ROT_OK", 1, "rot_ok[t]: mask of distinct rotations")
TB_COUNTS = TABLES.field("TB_COUNTS", 1, "counts[t]: tiles of each type")
TB_START = TABLES.field("TB_START", 1, "start[0]: the start tile type")
TB_GIFT_COUNTS = TABLES.field("TB_GIFT_COUNTS", 1, "gift_counts[g]: cards of each gift type")
TABLES.verify(globals())

# turn log columns ``log[row, L_*]``
LOG = StateLayout("log row", "int32[LOG_COLS]: one turn of the turn log (see above)")
L_PLAYER = LOG.field("L_PLAYER", 1, "seat")
L_TILE = LOG.field("L_TILE", 1, "tile type placed")
L_OPEN = LOG.field("L_OPEN", 1, "gift opened (-1 none)")
L_GA = LOG.field("L_GA", 1, "gift argument a")
L_GB = LOG.field("L_GB", 1, "gift argument b")
L_GC = LOG.field("L_GC", 1, "gift argument c")
L_GD = LOG.field("L_GD", 1, "gift argument d")
L_X = LOG.field("L_X", 1, "x of the placement")
L_Y = LOG.field("L_Y", 1, "y of the placement")
L_ROT = LOG.field("L_ROT", 1, "rotation (quarter turns clockwise)")
L_MEEPLE = LOG.field("L_MEEPLE", 1, "meeple segment (-1 none)")
L_RECEIVED = LOG.field("L_RECEIVED", 1, "gift card received (-1 none)")
LOG_COLS = LOG.size
LOG.verify(globals())

# scalar state slots ``sc[S_*]``
SC = StateLayout("sc", "int64[N_SC]: the scalars of a GameState")
S_NPLACED = SC.field("S_NPLACED", 1, "tiles placed (start tile included) = next tile index")
S_NFRONT = SC.field("S_NFRONT", 1, "frontier cells (``front[:n]``)")
S_PILE_POS = SC.field("S_PILE_POS", 1, "next draw position in ``pile``")
S_PILE_N = SC.field("S_PILE_N", 1, "tiles left in the draw pile")
S_CUR = SC.field("S_CUR", 1, "seat to move")
S_NPLAYERS = SC.field("S_NPLAYERS", 1, "players")
S_TURN = SC.field("S_TURN", 1, "turns played")
S_DRAWN = SC.field("S_DRAWN", 1, "tiles drawn (position in ``tlog``)")
S_GDRAWN = SC.field("S_GDRAWN", 1, "gift cards drawn (position in ``glog``)")
S_ERR = SC.field("S_ERR", 1, "replay: error kind ERR_* (0 none)")
S_ERR_TURN = SC.field("S_ERR_TURN", 1, "replay: turn of the error")
S_START_SEG = SC.field("S_START_SEG", 1, "start_balance: seat 0's start-tile meeple segment")
S_NOPT = SC.field("S_NOPT", 1, "replay: legal options left in ``opt`` at the error")
S_FINISHED = SC.field("S_FINISHED", 1, "1 = the game ended (the pile is empty)")
# search state (``kernels.search``): where the seat to move ``S_CUR`` stands within its turn
S_PHASE = SC.field("S_PHASE", 1, "search: decision at hand, PH_*")
S_T = SC.field("S_T", 1, "search: tile in hand")
S_T2 = SC.field("S_T2", 1, "search: Take 2's second tile (PH_KEEP)")
S_OPENED = SC.field("S_OPENED", 1, "search: gift opened this turn (-1 none)")
S_IDX = SC.field("S_IDX", 1, "search: tile index just placed (PH_MEEPLE)")
S_EARNED = SC.field("S_EARNED", 1, "search: 1 = the placement earned a gift card (§4.2)")
S_PLAN_C = SC.field("S_PLAN_C", 1, "heuristic rollouts: planned cell (-2 = no plan)")
S_PLAN_R = SC.field("S_PLAN_R", 1, "heuristic rollouts: planned rotation")
S_PLAN_S = SC.field("S_PLAN_S", 1, "heuristic rollouts: planned segment (-2 = no plan)")
# unused: with 23 slots instead of 24, random play measured about 15% slower (cause not found)
S_PAD = SC.field("S_PAD", 1, "unused (keeps 24 slots: random play is faster so)")
N_SC = SC.size
SC.verify(globals())
PH_OPEN, PH_TARGET, PH_CHANGE, PH_KEEP, PH_PLACE, PH_MEEPLE, PH_OVER = range(7)

# per-node feature counters ``fint[root, F_*]`` (valid at roots)
FEATURE = StateLayout("fint row", "int32[5]: counters of a feature, valid at its root")
F_OPEN = FEATURE.field("F_OPEN", 1, "open half-edges (road, city)")
F_PEN = FEATURE.field("F_PEN", 1, "pennants")
F_MTOT = FEATURE.field("F_MTOT", 1, "meeples, all players")
F_DONE = FEATURE.field("F_DONE", 1, "1 = scored as completed")
F_ADJ = FEATURE.field("F_ADJ", 1, "field: adjacent city segments")
FEATURE.verify(globals())

# per-seat statistics ``gst[player, G_*]`` (what ``play_batch`` returns as ``gst``)
GST = StateLayout("gst row", "int32[GST_COLS]: statistics of one seat in one game")
G_TURNS = GST.field("G_TURNS", 1, "turns (tiles placed)")
G_UNPLACEABLE = GST.field("G_UNPLACEABLE", 1, "unplaceable tiles drawn")
G_RECEIVED = GST.field("G_RECEIVED", N_GIFT, "gift cards received, + type")
G_OPENED = GST.field("G_OPENED", N_GIFT, "gift cards opened, + type")
G_POINTS = GST.field("G_POINTS", N_GIFT, "points credited to a gift type, + type (see _award)")
G_AVOIDED = GST.field("G_AVOIDED", 1, "restricted play: decisions with a forbidden option avoided")
G_FORCED = GST.field("G_FORCED", 1, "restricted play: decisions with only forbidden options")
GST_COLS = GST.size
GST.verify(globals())

#: the game state's arrays: (name, shape, dtype, meaning), in ``GameState`` order
STATE_ARRAYS = (
    ("board", "W*W", "int32", "tile index on a cell, -1 empty"),
    ("pat", "W*W", "int32", "neighbour edge pattern of an empty cell"),
    ("nb8", "W*W", "int32", "placed 8-neighbours of a cell"),
    ("fpos", "W*W", "int32", "position of a cell in ``front``, -1 none"),
    ("front", "MAX_FRONT", "int32", "frontier cells (``sc[S_NFRONT]`` used)"),
    ("tinfo", "72, 3", "int32", "type, rotation, cell per tile index"),
    ("parent", "MAX_NODES", "int32", "union-find parent of a node"),
    ("fsize", "MAX_NODES", "int32", "union-find size (end: completed city id)"),
    ("lo", "MAX_NODES", "uint64", "distinct tiles of a feature, low word"),
    ("hi", "MAX_NODES", "uint64", "distinct tiles of a feature, high word"),
    ("fint", "MAX_NODES, 5", "int32", "feature counters ``F_*``"),
    ("fmee", "MAX_NODES, 5", "int32", "meeples per player in a feature"),
    ("mnode", "5, 7", "int32", "node of each meeple; -1 supply, -2 not in the game"),
    ("score", "5", "int32", "points per player"),
    ("brk", "5, N_CAT", "int32", "points per player by category ``CAT_*``"),
    ("pile", "128", "int32", "draw pile (tile types)"),
    ("avail", "32", "int32", "tiles of each type still in the draw pile"),
    ("hand", "5, 5", "int32", "gift cards held per player and type"),
    ("gdeck", "5", "int32", "gift deck, cards per type"),
    ("gdisc", "5", "int32", "gift discards, cards per type"),
    ("gst", "5, GST_COLS", "int32", "statistics per player ``G_*``"),
    ("sc", "N_SC", "int64", "scalars ``S_*``"),
    ("opt", "MAX_OPT, 4", "int32", "move lists (scratch)"),
    ("scratch", "64", "int64", "scratch"),
    ("mflag", "5, 7", "int32", "per meeple: 1 placed by Synod, 2 moved by Change Position"),
    ("srng", "4", "uint64", "chance stream of a search state"),
    ("fpm", "5", "uint64", "farm scoring scratch (cities per player)"),
    ("fcnt", "64, 5", "int32", "farm scoring scratch (farmers per city)"),
)

#: one game state (``new_game_state``); a namedtuple of arrays, so its Numba type is the search
#: state type of this game (``kernels.search.register``)
GameState = namedtuple("GameState", [name for name, _, _, _ in STATE_ARRAYS])

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
    ERR_START,
) = range(10)
#: a step's return value when a replay stopped at an illegal record (``_fail`` was called)
BAD = -1000

BASE_MEEPLE = BOARD_W * BOARD_W * 4
BASE_OPEN = BASE_MEEPLE + MAX_SEG + 1
BASE_NODE = BASE_OPEN + N_GIFT + 1
BASE_CHANGE = BASE_NODE + MAX_NODES
BASE_KEEP = BASE_CHANGE + MAX_NODES * MAX_SEG
N_CODES = BASE_KEEP + 32
MAX_PLIES = 4 * MAX_TILES + 2

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
_STREAM_DEAL = np.uint64(STREAM_DEAL)
_STREAM_GIFTS = np.uint64(STREAM_GIFTS)
#: options of the compiled helpers that only other kernels call: no CPython or C wrapper is
#: generated for them (compile time). Never call one from Python: with numba 0.68.1 such a
#: call crashes the interpreter (segmentation fault), so none of them is a public name
_INTERNAL = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}


def _state_table() -> str:
    rows = [("field", "shape", "dtype", "meaning")] + [tuple(r) for r in STATE_ARRAYS]
    widths = [max(len(r[k]) for r in rows) for k in range(4)]
    rule = "  ".join("=" * w for w in widths)
    lines = [rule, "  ".join(c.ljust(w) for c, w in zip(rows[0], widths)).rstrip(), rule]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows[1:]]
    lines.append(rule)
    return (
        "\n\n``GameState`` (a namedtuple of arrays, W = BOARD_W, reached by field name)\n\n"
        + "\n".join(lines)
        + "\n"
    )


for _layout in (SC, GST, FEATURE, LOG, TABLES, VARIANT, POINTS, HEURISTIC, MCTS):
    __doc__ += _layout.table()
__doc__ += _state_table()
del _layout
