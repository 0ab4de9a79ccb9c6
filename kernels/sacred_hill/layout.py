"""Sacred Hill kernel layout: the board geometry, the state array's slots and every code.

Rules: ``docs/rules/sacred_hill.md`` (section numbers below refer to it). No Numba here: plain
constants and NumPy tables, read by the compiled modules as compile-time constants.

Board
-----
Padded 8x8: ``bit = 8 * row + col`` with row 0..6 = rows "1".."7" and col 0..6 = columns A..G.
Column 7, row 7 and the four removed corners (A1, G1, A7, G7) are never set, so orthogonal
neighbour sets are plain shifts masked with ``BB_VALID`` (§1: adjacency is orthogonal only).
Every set of hills is a uint64 bitboard.

Moves
-----
A move is a cell index 0..63 (build on an empty hill or capture the enemy fort there) or
``MOVE_PASS``. ``rules.legal_moves`` returns the legal set as a bitboard plus its ``KIND_*``.

State
-----
One game's state is a ``uint64[S_SIZE]`` array: both players' forts, the running unions of
their knight and proximity masks (for the Manoeuvre rule, §3.1), their phases, the player to
move and counters. A field of width 2 holds one slot per seat (``S_FORTS + seat``).
"""

import numpy as np

from kernels.state_layout import StateLayout

# ---------------------------------------------------------------- geometry (§1, §2)
WIDTH = 8
N_ROWS = 7
N_COLS = 7
COL_NAMES = "ABCDEFG"
_CORNERS = ((0, 0), (0, 6), (6, 0), (6, 6))


def _cell(col, row):
    return 8 * row + col


def _build_masks():
    valid = 0
    for r in range(N_ROWS):
        for c in range(N_COLS):
            if (r, c) not in _CORNERS:
                valid |= 1 << _cell(c, r)

    def on(c, r):
        return 0 <= c < N_COLS and 0 <= r < N_ROWS and (r, c) not in _CORNERS

    orth = np.zeros(64, dtype=np.uint64)
    knight = np.zeros(64, dtype=np.uint64)
    zone12 = np.zeros(64, dtype=np.uint64)
    zone8 = np.zeros(64, dtype=np.uint64)
    knight_steps = [(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)]
    for r in range(N_ROWS):
        for c in range(N_COLS):
            if not on(c, r):
                continue
            i = _cell(c, r)
            for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                if on(c + dc, r + dr):
                    orth[i] |= np.uint64(1 << _cell(c + dc, r + dr))
            for dc, dr in knight_steps:
                if on(c + dc, r + dr):
                    knight[i] |= np.uint64(1 << _cell(c + dc, r + dr))
            for dc in range(-2, 3):
                for dr in range(-2, 3):
                    if (dc, dr) == (0, 0) or not on(c + dc, r + dr):
                        continue
                    b = np.uint64(1 << _cell(c + dc, r + dr))
                    if max(abs(dc), abs(dr)) == 1:
                        zone8[i] |= b
                        zone12[i] |= b
                    elif (abs(dc) == 2 and dr == 0) or (abs(dr) == 2 and dc == 0):
                        zone12[i] |= b  # straight two-steps: inside the knight ring (§2)
    return np.uint64(valid), orth, knight, zone12, zone8


#: All 45 hills.
BB_VALID, BB_ORTH, BB_KNIGHT, BB_ZONE_KNIGHT12, BB_ZONE_CHEBYSHEV8 = _build_masks()
#: The 20 hills with fewer than 4 neighbours (§1: 12 edge hills with 3, 8 next to a removed
#: corner with 2), where a lone fort needs only 3 or 2 besiegers (§2).
BB_EDGE = np.uint64(
    sum(1 << i for i in range(64) if int(BB_ORTH[i]) and bin(int(BB_ORTH[i])).count("1") < 4)
)
#: Cell indices of the 45 hills in bit order, and their names ("B1", ...).
CELLS = np.array([i for i in range(64) if (int(BB_VALID) >> i) & 1], dtype=np.int64)
CELL_NAMES = {int(i): f"{COL_NAMES[i % 8]}{i // 8 + 1}" for i in CELLS}
N_HILLS = len(CELLS)  # 45

# ---------------------------------------------------------------- state layout
STATE = StateLayout("state", "uint64[S_SIZE], one game of Sacred Hill")
S_FORTS = STATE.field("S_FORTS", 2, "forts bitboard, + seat")
S_KNIGHT = STATE.field("S_KNIGHT", 2, "union of BB_KNIGHT[f] over the seat's forts, + seat")
S_ZONE = STATE.field("S_ZONE", 2, "union of the zone masks over the seat's forts, + seat")
S_PHASE = STATE.field("S_PHASE", 2, "PHASE_*, + seat")
S_TO_MOVE = STATE.field("S_TO_MOVE", 1, "seat to move (0 or 1)")
S_PLIES = STATE.field("S_PLIES", 1, "plies played")
S_CAPTURES = STATE.field("S_CAPTURES", 2, "captures made by the seat, + seat")
S_PASSES = STATE.field("S_PASSES", 1, "passes played (both seats)")
S_MANOEUVRE_FORTS = STATE.field("S_MANOEUVRE_FORTS", 2, "forts built as Manoeuvres, + seat")
S_FORBID_AVOIDED = STATE.field(
    "S_FORBID_AVOIDED", 2, "restricted play: decisions that avoided a forbidden option, + seat"
)
S_FORBID_FORCED = STATE.field(
    "S_FORBID_FORCED", 2, "restricted play: decisions where every legal move was forbidden, + seat"
)
S_SIZE = STATE.size
STATE.verify(globals())
__doc__ += STATE.table()

PHASE_MANOEUVRE = 0
PHASE_GRACE = 1  # box rule: exactly one more Manoeuvre if able, then Battle (§3.2)
PHASE_BATTLE = 2

KIND_TERMINAL = -1
KIND_MANOEUVRE = 0
KIND_CAPTURE = 1
KIND_BUILD_ADJACENT = 2
KIND_BUILD_ANYWHERE = 3
KIND_PASS = 4

MOVE_PASS = 64
TRANSITION_BOX = 0
TRANSITION_WEB2014 = 1

POLICY_RANDOM = 0
POLICY_GREEDY = 1
POLICY_TACTICIAN = 2
POLICY_MCTS = 3
#: positions in the policy parameter vector (shared by greedy and tactician)
(
    P_EPS,
    P_W_KINGDOMS,
    P_W_TERRITORY,
    P_W_SUICIDE,
    P_W_ATARI,
    P_W_BLOCK,
    P_W_SAFE_FILL,
    P_W_MANOEUVRES,
    P_W_SPREAD,
) = range(9)
N_HEURISTIC_PARAMS = 9
#: positions in the ``mcts`` parameter vector: iterations per decision, UCB1 constant, reward
#: (``search.REWARD_*``), rollout policy id (random / greedy / tactician), the rollout policy's
#: eps, tree reuse (0: a fresh tree per decision; 1: the seat keeps its tree between its
#: decisions, ``search.search_from``), the RAVE equivalence ``k`` (0: plain UCT;
#: ``search_steps.search_rave``), then (from ``P_MCTS_BASE``) the rollout policy's 9
#: weights (filled in by ``mcsim.games.sacred_hill.prepare`` from that policy's defaults)
(
    P_MCTS_ITER,
    P_MCTS_C,
    P_MCTS_REWARD,
    P_MCTS_ROLLOUT,
    P_MCTS_ROLLOUT_EPS,
    P_MCTS_REUSE,
    P_MCTS_RAVE,
) = range(7)
P_MCTS_BASE = 7
#: tree nodes per iteration of a reusing ``mcts`` seat: its tree holds what it keeps from its
#: earlier decisions besides this decision's iterations (when it is full, iterations go on
#: without expanding)
REUSE_CAPACITY = 4
N_MCTS_PARAMS = P_MCTS_BASE + N_HEURISTIC_PARAMS
#: the column of the policy parameter matrix that holds a seat's restricted-play mask (the
#: ``forbid_mask`` parameter, which each policy declares last: ``prepare`` copies it here so the
#: kernel finds it at one place whatever the policy); width of that matrix
P_FORBID = N_MCTS_PARAMS
N_POLICY_COLS = P_FORBID + 1
#: restricted play (docs/rules/sacred_hill.md §10): bit ``FORBID_*`` of a seat's
#: mask forbids that option. Manoeuvres (§3.1) next to an enemy fort / on an edge hill; Battle
#: builds (§3.3.2-3) next to an enemy fort / on a hill the seat besieges itself (a "safe
#: connection", §2, §6.5); any build on a hill the opponent besieges (captured on its next Battle turn, §3.3.1)
(
    FORBID_MANOEUVRE_NEXT_TO_ENEMY,
    FORBID_MANOEUVRE_ON_EDGE,
    FORBID_BATTLE_NEXT_TO_ENEMY,
    FORBID_FILL_SAFE_CONNECTION,
    FORBID_BUILD_INTO_SIEGE,
) = range(5)
N_FORBID = 5

#: points per reward unit for ``reward = margin`` (search.REWARD_MARGIN)
MARGIN_SCALE = 10.0

#: an upper bound on plies: 45 builds + at most one capture per hill + passes (§3.4)
MAX_PLIES = 140

_ZERO = np.uint64(0)
_ONE = np.uint64(1)
