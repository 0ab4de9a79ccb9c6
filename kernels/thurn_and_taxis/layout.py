"""Thurn and Taxis state layout and codes: offsets, widths, phases, actions, policy ids, shapes.

No Numba here: plain constants (Numba reads module globals as compile-time constants) and a
few NumPy ones.

One game is one ``int64`` vector ``state`` of length ``ST_SIZE`` (offsets ``S_*``, table below).
Cities are 0..21 in the order of ``docs/rules/thurn_und_taxis.md`` §1.1; seats are 0..n-1,
seat 0 starts, play runs in seat order (§3.4).

City masks are int64, not uint64
--------------------------------
CONTRIBUTING asks for uint64 bitboards; this kernel keeps its bit masks in ``int64`` on
purpose. The masks are sets of cities (22 bits, bit = city id: a route's cities ``S_RMASK``,
own houses ``S_HOUSES``, cities held in hand ``S_HMASK``, a city's neighbours ``T_ADJ``, a
region's cities ``T_REGMASK``) and the set of region stacks taken (``S_GROUPS``, bit = stack
id). They live in the same ``int64`` vector as the counters (one state array, one table array),
22 bits never reach the sign bit, and int64-only arithmetic avoids Numba's mixed
uint64/int64 -> float64 promotion. For the same reason a seat's forbid mask (restricted play,
docs/rules/thurn_und_taxis.md §11: ``N_FORBID_BITS`` = 13 bits ``FB_*``, read from the float64
parameter column ``P_FORBID``) is an ``int64`` too.

The deck is ``state[S_DECK : S_DECK+66]``; the next card is
``state[S_DECK + state[S_DECK_TOP]]`` and the deck holds ``state[S_DECK_END] - state[S_DECK_TOP]``
cards. The discard pile is a stack ``state[S_DISC : S_DISC + state[S_DISC_N]]``. The display has 6
slots (-1 = empty). Hands are counts per city. A route is stored in a ``ROUTE_SLOTS`` (44) window
per seat, cities ``[lo, hi)``; extending at the left end decrements ``lo`` (§4B).

Tables (``tables``, int64, offsets ``T_*``) are built by ``mcsim.games.thurn_and_taxis`` from
the data files; variants (``variant``, int64) are indexed ``V_*``; the ``route`` and ``mcts``
policies' parameter vectors (float64) are indexed ``P_*`` and ``P_MCTS_*``.
"""

import numpy as np

from kernels.state_layout import StateLayout

N_CITIES = 22
N_REGIONS = 9
N_CARDS = 66
DISPLAY = 6
MAX_SEATS = 4
HOUSES = 20
N_STACKS = 10
MAX_TILES = 4  # per stack
MAX_ACTIONS = 128
ROUTE_SLOTS = 2 * N_CITIES  # route window per seat (a route grows either way from the middle)
ROUTE_MID = N_CITIES  # first slot of a new route

# bonus stacks (§2.2), fixed order
STK_ROUTE5 = 0
STK_ROUTE6 = 1
STK_ROUTE7 = 2
STK_BAIERN = 3
STK_BOEHMEN_SALZBURG = 4
STK_BADEN = 5
STK_WUERTT_HOHENZ = 6
STK_SCHWEIZ_TYROL = 7
STK_ALL_REGIONS = 8
STK_GAME_END = 9

# officials (§6)
OFF_NONE = 0
OFF_POSTMASTER = 1
OFF_ADMINISTRATOR = 2
OFF_POSTAL_CARRIER = 3
OFF_CARTWRIGHT = 4

# phases
PH_ADMIN = 0
PH_DRAW1 = 1
PH_PM = 2
PH_DRAW2 = 3
PH_PLAY1 = 4
PH_PC = 5
PH_PLAY2 = 6
PH_CLOSE = 7
PH_HOUSE_MODE = 8
PH_HOUSE_PICK = 9
PH_TRIM = 10
PH_OVER = 11

# actions (the table in ``kernels.thurn_and_taxis.rules``)
A_NO = 0
A_YES = 1
A_DRAW_DISPLAY = 2
A_DRAW_DECK = 24
A_LEFT = 32
A_RIGHT = 64
A_START = 96
A_RESTART = 128
A_CLOSE = 160
A_CLOSE_CART = 161
A_MODE_EACH = 170
A_MODE_REGION = 171
A_HOUSE = 192
A_HOUSE_SKIP = 214
A_TRIM = 224

# end reasons
END_NONE = -1
END_CARRIAGE = 0
END_HOUSES = 1
END_CAP = 2

# variants
VARIANTS = StateLayout("variant", "int64[N_VARIANT_SLOTS]: the rule variants of a run")
V_ALL_REGIONS_BAIERN = VARIANTS.field(
    "V_ALL_REGIONS_BAIERN", 1, "0: 8 non-Baiern regions (default), 1: all 9 regions (§7.1)"
)
V_CASCADE = VARIANTS.field(
    "V_CASCADE", 1, "0: route tile falls back to lower stacks (default), 1: no fallback (§7.3)"
)
V_HAND_LIMIT = VARIANTS.field(
    "V_HAND_LIMIT", 1, "0: trim to 3 only after closing (default), 1: every turn's end (§7.7)"
)
V_MAX_TURNS = VARIANTS.field(
    "V_MAX_TURNS", 1, "safety cap on turns per game (the game then ends, reason END_CAP)"
)
N_VARIANT_SLOTS = VARIANTS.size

# tables
TABLE = StateLayout("tables", "int64[TAB_SIZE]: the board and bonus tables of a run")
T_ADJ = TABLE.field("T_ADJ", N_CITIES, "neighbour mask per city")
T_REGION = TABLE.field("T_REGION", N_CITIES, "region of each city")
T_REGMASK = TABLE.field("T_REGMASK", N_REGIONS, "city mask of each region")
T_GROUP = TABLE.field(
    "T_GROUP", N_STACKS, "city mask a region-group stack needs (0 for other stacks)"
)
T_STACK_N = TABLE.field("T_STACK_N", N_STACKS, "initial tile count per stack")
T_STACK_VAL = TABLE.field("T_STACK_VAL", N_STACKS * MAX_TILES, "tile values per stack, top first")
T_CARR_VP = TABLE.field("T_CARR_VP", 8, "points of the carriage of value v (index v, 3..7)")
T_ALL_REG = TABLE.field(
    "T_ALL_REG", 2, "region mask the all-regions tile needs: [without Baiern, with Baiern]"
)
T_ROUTE_LEN = TABLE.field("T_ROUTE_LEN", 3, "route length of stacks route5, route6, route7")
T_CITY_GROUP = TABLE.field(
    "T_CITY_GROUP", N_CITIES, "region-group stack of each city (-1: none, Polen)"
)
TAB_SIZE = TABLE.size

# state offsets
STATE = StateLayout("state", "int64[ST_SIZE]: one game of Thurn and Taxis")
S_NP = STATE.field("S_NP", 1, "number of players")
S_CUR = STATE.field("S_CUR", 1, "seat to move")
S_PHASE = STATE.field("S_PHASE", 1, "phase of the turn (PH_*)")
S_OFFICIAL = STATE.field("S_OFFICIAL", 1, "official used this turn (OFF_*)")
S_FORCED = STATE.field("S_FORCED", 1, "1: this turn is a forced Postmaster turn")
S_TURN = STATE.field("S_TURN", 1, "turns played")
S_OVER = STATE.field("S_OVER", 1, "1: game over")
S_END_SEAT = STATE.field("S_END_SEAT", 1, "who took the game-end tile (-1)")
S_END_REASON = STATE.field("S_END_REASON", 1, "END_*")
S_DECK_TOP = STATE.field("S_DECK_TOP", 1, "deck slot of the next card")
S_DECK_END = STATE.field("S_DECK_END", 1, "deck slots in use")
S_DISC_N = STATE.field("S_DISC_N", 1, "cards on the discard pile")
S_CLOSE_LEN = STATE.field("S_CLOSE_LEN", 1, "length of the route being closed")
S_PENDING = STATE.field(
    "S_PENDING", 1, "house pick: region mask still to serve (mode i) or region (mode ii)"
)
S_PICK_MODE = STATE.field("S_PICK_MODE", 1, "0 = one per region, 1 = whole region")
S_ERROR = STATE.field(
    "S_ERROR", 1, "replay: a scripted reshuffle was not a permutation of the discard pile"
)
S_SCRIPT_POS = STATE.field("S_SCRIPT_POS", 1, "replay: next entry of the reshuffle script")
S_ALOG_N = STATE.field("S_ALOG_N", 1, "decisions taken (after play_batch)")
S_SLOG_N = STATE.field("S_SLOG_N", 1, "reshuffle log entries written")
S_PLAYS = STATE.field("S_PLAYS", 1, "cards played this turn")
S_SPARE = STATE.field("S_SPARE", 4, "unused (keeps the later offsets as they were)")
S_DECK = STATE.field("S_DECK", N_CARDS, "the deck, city ids")
S_DISC = STATE.field("S_DISC", N_CARDS, "the discard pile, a stack")
S_DISPLAY = STATE.field("S_DISPLAY", DISPLAY, "the display (-1 = empty slot)")
S_HAND = STATE.field("S_HAND", MAX_SEATS * N_CITIES, "cards in hand per seat and city")
S_HAND_N = STATE.field("S_HAND_N", MAX_SEATS, "hand size per seat")
S_ROUTE = STATE.field("S_ROUTE", MAX_SEATS * ROUTE_SLOTS, "route window per seat")
S_RLO = STATE.field("S_RLO", MAX_SEATS, "first route slot per seat")
S_RHI = STATE.field("S_RHI", MAX_SEATS, "route slot after the last, per seat")
S_RMASK = STATE.field("S_RMASK", MAX_SEATS, "mask of the route's cities per seat")
S_HOUSES = STATE.field("S_HOUSES", MAX_SEATS, "mask of own houses")
S_HOUSES_LEFT = STATE.field("S_HOUSES_LEFT", MAX_SEATS, "houses not yet placed")
S_CARRIAGE = STATE.field("S_CARRIAGE", MAX_SEATS, "highest carriage value (0 = none)")
S_TILE_PTS = STATE.field("S_TILE_PTS", MAX_SEATS, "points of the bonus tiles taken")
S_GROUPS = STATE.field("S_GROUPS", MAX_SEATS, "mask of region stacks taken (bit = stack id)")
S_STACK = STATE.field("S_STACK", N_STACKS, "tiles left per stack")
S_N_OFFICIAL = STATE.field("S_N_OFFICIAL", MAX_SEATS * 5, "officials used per seat (OFF_*)")
S_N_FORCED = STATE.field("S_N_FORCED", MAX_SEATS, "forced Postmaster turns per seat")
S_N_CLOSED = STATE.field("S_N_CLOSED", MAX_SEATS, "routes closed per seat")
S_ROUTE_HIST = STATE.field("S_ROUTE_HIST", 23, "closed routes by length")
S_TILES_TAKEN = STATE.field("S_TILES_TAKEN", N_STACKS, "tiles taken per stack")
S_N_DISCARDED = STATE.field("S_N_DISCARDED", MAX_SEATS, "routes discarded (restart) per seat")
S_CLOSED_LEN_SUM = STATE.field("S_CLOSED_LEN_SUM", MAX_SEATS, "sum of closed route lengths")
S_HMASK = STATE.field("S_HMASK", MAX_SEATS, "mask of cities with >= 1 card in hand")
S_KNOWN = STATE.field(
    "S_KNOWN",
    MAX_SEATS * N_CITIES,
    "cards every seat knows a seat holds (taken from the display, not yet played or trimmed:"
    " public, §7 #12); the information-set search deals these to that seat (mcts)",
)
S_FORBID_AVOIDED = STATE.field(
    "S_FORBID_AVOIDED",
    MAX_SEATS,
    "restricted play: decisions per seat where a forbidden option was legal and the seat took a"
    " permitted one (rules §11)",
)
S_FORBID_FORCED = STATE.field(
    "S_FORBID_FORCED",
    MAX_SEATS,
    "restricted play: decisions per seat where every legal option was forbidden (rules §11)",
)
ST_SIZE = STATE.size

# policies
POL_RANDOM = 0
POL_ROUTE = 1
POL_MCTS = 2
#: added to a seat's kernel policy id when its forbid mask is not 0 (restricted play, rules
#: §11): the engine's fast paths test only the plain ids, so an unrestricted seat pays nothing
POL_RESTRICTED = 8
POL_RANDOM_RESTRICTED = POL_RANDOM + POL_RESTRICTED
POL_ROUTE_RESTRICTED = POL_ROUTE + POL_RESTRICTED
POL_MCTS_RESTRICTED = POL_MCTS + POL_RESTRICTED

# restricted play (docs/rules/thurn_und_taxis.md §11): bit k of a seat's forbid mask
#: officials (§6): bit OFF_* - 1
FB_POSTMASTER = 0
FB_ADMINISTRATOR = 1
FB_POSTAL_CARRIER = 2
FB_CARTWRIGHT = 3
#: never close a route of fewer than k cards, k = 3..7 (§4C): bit FB_ROUTE_UNDER + k - 3
FB_ROUTE_UNDER = 4
#: never close a route whose scoring gives a tile of the family (§4C.2, §5): route-length,
#: region-group, all-regions, game-end tiles
FB_ROUTE_TILE = 9
FB_REGION_TILE = 10
FB_ALL_REGIONS_TILE = 11
FB_GAME_END_TILE = 12
N_FORBID_BITS = 13

# route-planner parameters (index into the policy parameter vector)
PARAMS = StateLayout("params", "float64[N_PARAMS]: the route planner's parameters")
P_CLOSE_LEN = PARAMS.field("P_CLOSE_LEN", 1, "close a route once it has this many cards")
P_W_REGION = PARAMS.field(
    "P_W_REGION", 1, "weight of a card in a region group the player still needs"
)
P_W_HOUSE = PARAMS.field("P_W_HOUSE", 1, "weight of a card where the player has no house yet")
P_W_OPEN = PARAMS.field(
    "P_W_OPEN", 1, "weight per free neighbour of the new route end (room to grow)"
)
P_W_HAND = PARAMS.field("P_W_HAND", 1, "weight per hand card that can follow the new end")
P_DECK_VALUE = PARAMS.field(
    "P_DECK_VALUE", 1, "value of the blind deck draw relative to display cards"
)
P_ADMIN_BELOW = PARAMS.field(
    "P_ADMIN_BELOW", 1, "use the Administrator when the best display card is worth less"
)
P_PM_HAND_MAX = PARAMS.field(
    "P_PM_HAND_MAX", 1, "use the Postmaster while the hand has at most this many cards"
)
P_CART = PARAMS.field(
    "P_CART", 1, "1: keep the official for the Cartwright when it buys the next carriage"
)
P_CHASE = PARAMS.field(
    "P_CHASE", 1, "1: keep building until the route buys the next carriage (with the Cartwright)"
)
N_PARAMS = PARAMS.size

#: ``mcts`` parameter positions
MCTS_PARAMS = StateLayout("params (mcts)", "float64[N_MCTS_PARAMS]: the mcts policy's parameters")
P_MCTS_ITER = MCTS_PARAMS.field("P_MCTS_ITER", 1, "iterations per decision")
P_MCTS_C = MCTS_PARAMS.field("P_MCTS_C", 1, "UCB1 constant")
P_MCTS_REWARD = MCTS_PARAMS.field(
    "P_MCTS_REWARD", 1, "search.REWARD_WIN / REWARD_MARGIN / REWARD_POINTS"
)
P_MCTS_ROLLOUT = MCTS_PARAMS.field("P_MCTS_ROLLOUT", 1, "rollout policy: POL_RANDOM / POL_ROUTE")
P_MCTS_BASE = MCTS_PARAMS.field(
    "P_MCTS_BASE",
    N_PARAMS,
    "the rollout's route parameters (filled in by the Python side with the route defaults)",
)
P_MCTS_OWN = MCTS_PARAMS.field(
    "P_MCTS_OWN",
    N_PARAMS,
    "the route parameters of the searching seat's own moves in the rollouts (the rollout's, as"
    " the Python side adapts them to the seat's forbid mask; rules §11)",
)
N_MCTS_PARAMS = MCTS_PARAMS.size

#: column of every seat's parameter row holding its forbid mask (bit ``FB_*``; float64, exact
#: below 2**52), after the widest policy's parameters: ``kernel_params`` moves it there from the
#: end of the policy's own parameter list (restricted play, rules §11)
P_FORBID = N_MCTS_PARAMS
#: width of the kernel's parameter rows
N_SEAT_PARAMS = P_FORBID + 1

#: deepest tree path (decisions below the root); a game has far fewer decisions per iteration
SEARCH_DEPTH = 512
#: move codes of the search's per-move marks (every action code is below 256)
N_MOVE_CODES = 256

#: ``_advance``: no decision given (int64 constants: no literal compiles)
NO_MOVE = np.int64(-1)
ZERO = np.int64(0)

for _layout in (STATE, TABLE, VARIANTS, PARAMS, MCTS_PARAMS):
    _layout.verify(globals())
    __doc__ += _layout.table()
del _layout
