"""El Grande kernel layout: the state vector's slots, the table and setup vectors, the buffer
tuples, every code (opcodes, decision kinds, policies, modes, engine steps) and parameter
position; no Numba.

Rules: ``docs/rules/el_grande.md``. ``mcsim.games.el_grande`` builds the table vector ``tables``
from the data files and names every integer used here. The compiled modules read these module
constants as compile-time constants.

Places: 0..8 are the nine regions in the order of ``board.json`` (Galicia .. Granada), 9 is the
Castillo (``CASTILLO``). Seats 0..n-1; "clockwise" = increasing seat index modulo n. A field
"per seat" has one slot per seat (``O_COURT + seat``); ``O_CAB`` is indexed place*5 + seat.
Every layout below is declared with ``kernels.state_layout.StateLayout`` (offsets follow from
the widths; the tables at the end of this docstring are generated from the declarations).
"""

from kernels.state_layout import StateLayout

MAXP = 5
NREG = 9
NPLACE = 10
CASTILLO = 9
STOP = 10  # option value: stop / court (angry king)

# ---- state (state: int32[STATE_SIZE]) ----------------------------------------------------------
STATE = StateLayout("state", "int32[STATE_SIZE]: one game of El Grande")
O_CAB = STATE.field("O_CAB", 50, "caballeros, index place*5 + seat (place 9 = Castillo)")
O_COURT = STATE.field("O_COURT", MAXP, "caballeros in each seat's court")
O_PROV = STATE.field("O_PROV", MAXP, "caballeros in each seat's province (general supply)")
O_GRANDE = STATE.field("O_GRANDE", MAXP, "home region (region of the Grande) per seat")
O_SCORE = STATE.field("O_SCORE", MAXP, "points per seat")
O_SRC = STATE.field("O_SRC", MAXP * 5, "points per seat and source, index seat*5 + SRC_*")
O_HAND = STATE.field("O_HAND", MAXP, "bitmask of power cards in hand (bit v = value v, 1..13)")
O_PLAYED = STATE.field("O_PLAYED", MAXP, "power card value played this round (0 = none yet)")
O_BOARD = STATE.field(
    "O_BOARD", 2, "place of mobile scoreboard 0 (8/4/0) and 1 (4/0/0); -1 = off board"
)
O_KING = STATE.field("O_KING", 1, "the King's region")
O_NP = STATE.field("O_NP", 1, "players")
O_ROUND = STATE.field("O_ROUND", 1, "round 1..9")
O_START = STATE.field("O_START", 1, "start seat of the bidding")
O_LAST = STATE.field("O_LAST", 1, "last seat")
O_VETO_HOLDER = STATE.field("O_VETO_HOLDER", 2, "seat holding each Veto card (-1 none)")
O_VETO_EXP = STATE.field("O_VETO_EXP", 2, "round at whose end the held Veto is discarded")
O_FACE = STATE.field("O_FACE", 5, "face-up action cards this round (card index, -1 = taken/none)")
O_DECK = STATE.field("O_DECK", 44, "shuffled decks 1-4, 11 cards each (card indices)")
O_DECKPTR = STATE.field("O_DECKPTR", 4, "next card of each deck")
O_ORDER = STATE.field("O_ORDER", MAXP, "turn order this round (seats)")
O_PWR = STATE.field("O_PWR", 9 * MAXP, "power value played per round and seat, (round-1)*5 + seat")
O_TAKER = STATE.field("O_TAKER", 45, "seat that took each action card (-1 = never taken)")
O_TAKEROUND = STATE.field("O_TAKEROUND", 45, "round in which each card was taken (0 = never)")
O_KINGBY = STATE.field("O_KINGBY", 9, "seat that took the King's card per round (-1 = not played)")
O_VPEND = STATE.field("O_VPEND", 1, "1 while a partial Veto is pending on the special action")
O_VCUT = STATE.field("O_VCUT", 1, "steps of that action still allowed before the Veto cancels")
O_ITAKE = STATE.field("O_ITAKE", MAXP, "caballeros taken at court intakes (§3 step 4a) per seat")
O_IMAX = STATE.field("O_IMAX", MAXP, "caballeros that could have been taken at those intakes")
O_VCOUNT = STATE.field("O_VCOUNT", 2, "Vetoes used: whole action cancelled, partial")
O_FAVOID = STATE.field(
    "O_FAVOID", MAXP, "restricted play: decisions with a forbidden option and a permitted one"
)
O_FFORCED = STATE.field(
    "O_FFORCED", MAXP, "restricted play: decisions whose every option was forbidden"
)
STATE_SIZE = STATE.size

# point sources (the 5 slots of each seat in O_SRC)
SOURCES = StateLayout("sources", "the points of one seat by source (``O_SRC + seat*5``)")
SRC_GENERAL = SOURCES.field("SRC_GENERAL", 1, "region points at the general scorings (§5)")
SRC_SPECIAL = SOURCES.field("SRC_SPECIAL", 1, "region points at special scorings (§6, no Castillo)")
SRC_KING = SOURCES.field("SRC_KING", 1, "King bonus (§1.4)")
SRC_GRANDE = SOURCES.field("SRC_GRANDE", 1, "Grande bonus (§1.4)")
SRC_CASTILLO = SOURCES.field("SRC_CASTILLO", 1, "points for scoring the Castillo (general/special)")
N_SRC = SOURCES.size

# ---- tables (tables: int32[T_SIZE], built by mcsim.games.el_grande.build_tables) -----------------
TABLES = StateLayout("tables", "int32[T_SIZE]: component tables (``mcsim.games.el_grande``)")
T_VAL = TABLES.field("T_VAL", NPLACE * 3, "printed values, place*3 + rank-1")
T_BVAL = TABLES.field("T_BVAL", 2 * 3, "mobile scoreboard values, board*3 + rank-1")
T_ADJ = TABLES.field("T_ADJ", NREG, "adjacency bitmasks over regions")
T_PCAB = TABLES.field("T_PCAB", 14, "caballeros to court per power value (index 1..13)")
T_COP = TABLES.field("T_COP", 45, "card opcodes (OP_*)")
T_CARG = TABLES.field("T_CARG", 45, "card limits")
T_CCLS = TABLES.field("T_CCLS", 45, "class masks (bit v = first value v) for class scorings")
T_CDECK = TABLES.field("T_CDECK", 45, "deck numbers 1..5")
T_PAY = TABLES.field("T_PAY", 6, "paying ranks by player count")
T_KB = TABLES.field("T_KB", 1, "King bonus")
T_GB = TABLES.field("T_GB", 1, "Grande bonus")
T_HOME = TABLES.field("T_HOME", 1, "caballeros in the home region at setup")
T_COURT0 = TABLES.field("T_COURT0", 1, "caballeros in court at setup")
T_PROV0 = TABLES.field("T_PROV0", 1, "caballeros in the province at setup")
T_DECKSTART = TABLES.field("T_DECKSTART", 5, "first card index of each deck")
T_DECKLEN = TABLES.field("T_DECKLEN", 5, "cards per deck")
T_CTYPE = TABLES.field(
    "T_CTYPE", 45, "restricted play: the mask bit (``FB_*``) of each card's type"
)
T_SIZE = TABLES.size
KING_CARD = 44

# ---- setup vector (fixed: int32[FIXED_SIZE], see rules.setup) -------------------------------
FIXED = StateLayout("fixed", "int32[FIXED_SIZE]: a setup to play / the setup played")
F_GIVEN = FIXED.field("F_GIVEN", 1, "1: play this setup instead of the deal's")
F_KING = FIXED.field("F_KING", 1, "the King's region")
F_HOMES = FIXED.field("F_HOMES", MAXP, "home region per seat (-1 unused)")
F_START = FIXED.field("F_START", 1, "start seat")
F_DECKS = FIXED.field("F_DECKS", 44, "decks 1-4, 11 card indices each, top first")
FIXED_SIZE = FIXED.size

# ---- opcodes (tables[T_COP + card]) --------------------------------------------------------------
OP_MOVE_OWN_ONE = 1
OP_PLACE_ANY = 2
OP_CHOOSE_1A1B = 3
OP_MOVE_FROM_ONE = 4
OP_MOVE_OPP = 5
OP_MOVE_ANY = 6
OP_MOVE_OWN_OPP = 7
OP_MOVE_OWN = 8
OP_VETO = 9
OP_DECAY_ALL = 10
OP_DECAY_N = 11
OP_ANGRY = 12
OP_REMOVE_EACH = 13
OP_SECRET_REM2 = 14
OP_SECRET_REMALL = 15
OP_SCORE_CHOICE = 16
OP_SCORE_CLASS = 17
OP_SCORE_CASTILLO = 18
OP_SCORE_FIRSTS = 19
OP_SCORE_MOST = 20
OP_SCORE_FEWEST = 21
OP_BOARD = 22
OP_ADVISOR = 23
OP_EVICT = 24
OP_GRANDE = 25
OP_POWERBACK = 26
OP_COURT = 27
OP_SECRET_SCORE = 28
OP_KING = 29
N_OPS = 30

# ---- restricted play: a seat's forbidden options (``ctx[C_FMASK + seat]``, int64) ----------
# bit ``tables[T_CTYPE + card]`` (0..32): the card's type (``mcsim.games.el_grande``'s
# ``CARD_TYPES`` order) in ``K_CARD``; bit ``FB_CASTILLO``: the Castillo as a destination in
# ``K_PLACE``, ``K_PLACE_ANY`` and ``K_MOVE_DST``; bit ``FB_POWER + v``: power value v in
# ``K_POWER``. ``mcsim.games.el_grande.forbid_words`` builds it from ``forbid_mask`` (card types,
# the Castillo) and ``forbid_mask2`` (bit v: power value v) as ``forbid_mask | forbid_mask2 << FB_POWER``
FB_CASTILLO = 33
FB_POWER = 40

# ---- decision kinds ----------------------------------------------------------------------
K_POWER = 0  # power card value
K_SHORT = 1  # intake shortfall: region to take one caballero from (STOP too: card 4f)
K_CARD = 2  # action card index
K_ORDER = 3  # 0 = placement first, 1 = special action first
K_PLACE = 4  # placement: place 0..9 or STOP
K_EXEC = 5  # execute the special action: 0/1
K_VETO = 6  # veto holder: 0 = let it pass, 1 = veto
K_CHOICE = 7  # card 1c: 0 = move own caballeros of one region (1a), 1 = place 2 anywhere (1b)
K_SRC_REGION = 8  # cards 1a/1d: the region to move out of
K_MOVE_SRC = 9  # one move: place*5 + colour of the caballero taken
K_MOVE_DST = 10  # one move: destination place (1a: the source itself = leave it)
K_PLACE_ANY = 11  # card 1b: place 0..9 (not the King's region)
K_ANGRY = 12  # angry King: STOP(10) = from court, else region
K_REMOVE1 = 13  # card 2e: region of the victim (aux = victim seat)
K_SECRET_REM = 14  # cards 2f/2g: own region to lose (secret)
K_SCORE_REGION = 15  # cards 2h/3h: place to score
K_BOARD = 16  # card 4a: board*10 + place
K_KING_TO = 17  # Royal Advisor / King's card: region
K_EVICT_REGION = 18  # card 4c: region evicted
K_EVICT_DST = 19  # card 4c: own destination (secret); King's region = to court
K_GRANDE_TO = 20  # card 4d: region
K_POWERBACK = 21  # card 4e: power value back to hand
K_SECRET_SCORE = 22  # card 4g: region (secret)
K_DISC = 23  # general scoring: Castillo disc region (secret)
K_INTAKE = 24  # court intake: number of caballeros taken, 0..m (aux = power-card allowance)
K_VETO_CUT = 25  # veto holder: steps of the vetoed action allowed before the cancel, 0..n-1
N_KINDS = 26

# ---- policies ----------------------------------------------------------------------------
POL_RANDOM = 0
POL_HEURISTIC = 1
POL_MCTS = 2
# heuristic parameter positions (mcsim.games.el_grande HEURISTIC_PARAMS order)
HEUR = StateLayout("heuristic parameters", "float64[P]: one seat's heuristic parameters")
HP_W_BOARD = HEUR.field("HP_W_BOARD", 1, "weight of the points every place would pay now")
HP_W_COURT = HEUR.field("HP_W_COURT", 1, "weight of a caballero in court")
HP_BID_CAB = HEUR.field("HP_BID_CAB", 1, "bid: value of a caballero to court")
HP_BID_ORDER = HEUR.field("HP_BID_ORDER", 1, "bid: value of a power point (turn order)")
HP_VETO_THR = HEUR.field("HP_VETO_THR", 1, "Veto a scoring that favours the actor by this much")
HP_SHORT_MIN = HEUR.field("HP_SHORT_MIN", 1, "take an intake shortfall below this court")
HP_EPS = HEUR.field("HP_EPS", 1, "probability of a uniform random choice")
HP_W_SPECIAL = HEUR.field("HP_W_SPECIAL", 1, "weight of a card's static special-action value")
HP_BID_SPREAD = HEUR.field("HP_BID_SPREAD", 1, "bid: weight of the spread of the card values")
HP_BID_SAVE = HEUR.field("HP_BID_SAVE", 1, "bid: cost of a high card early in the game")
HP_VETO_HARM = HEUR.field("HP_VETO_HARM", 1, "Veto an action costing me this many caballeros")
HP_COURT_TARGET = HEUR.field("HP_COURT_TARGET", 1, "intake: court size aimed at")

# variant positions (mcsim.games.el_grande SPEC.variants order)
VARIANTS = StateLayout("variant", "int64[n_variants]: variant codes")
V_TIE = VARIANTS.field("V_TIE", 1, "tie_rank: 0 rulebook, 1 competition")
V_VETO = VARIANTS.field("V_VETO", 1, "veto: 0 on, 1 off")
V_ROUNDS = VARIANTS.field("V_ROUNDS", 1, "rounds: 0 -> 9 rounds, 1 -> 6 rounds")
V_FINALTIE = VARIANTS.field("V_FINALTIE", 1, "final_tie: 0 shared, 1 unplayed power cards")

# ---- decision buffers ``buffers`` (a tuple, ``policies.make_buffers``; see ``rules._decide_any``)
DBUF = StateLayout("buffers", "tuple: the decision buffers")
D_POL = DBUF.field("D_POL", 1, "int64[5] policy id per seat")
D_PAR = DBUF.field("D_PAR", 1, "float64[5, P] policy parameters per seat")
D_RNG = DBUF.field("D_RNG", 1, "uint64[5, 4] policy random stream per seat")
D_LOG = DBUF.field("D_LOG", 1, "int32[L, 4] decision log (kind, seat, value, aux)")
D_CTX = DBUF.field("D_CTX", 1, "int64[C_SIZE] (C_* below)")
D_OPTS = DBUF.field("D_OPTS", 1, "int32[64] options of the current decision")
D_ERRBUF = DBUF.field("D_ERRBUF", 1, "int32[64] replay error / driven stop: kind, seat, options")
D_EV = DBUF.field("D_EV", 1, "int32[E, 8] scoring events")
D_SCR = DBUF.field("D_SCR", 1, "int32[N_SCRATCH, STATE_SIZE] scratch rows (R_*)")
D_HEUR = DBUF.field("D_HEUR", 1, "the heuristic (``policy_function``) behind a function pointer")

# ---- ctx (buffers[D_CTX]: int64[C_SIZE]) ---------------------------------------------------------
CTX = StateLayout("ctx", "int64[C_SIZE]: the decision context (mode, pointers, driven play)")
C_MODE = CTX.field("C_MODE", 1, "MODE_*")
C_PTR = CTX.field("C_PTR", 1, "decisions made / log pointer")
C_ERR = CTX.field("C_ERR", 1, "first replay error ply, -1 none")
C_LOGCAP = CTX.field("C_LOGCAP", 1, "log rows to read/write")
C_EVPTR = CTX.field("C_EVPTR", 1, "events written")
C_EVCAP = CTX.field("C_EVCAP", 1, "event rows to write")
C_NERR = CTX.field("C_NERR", 1, "options count at the error")
# driven play (``MODE_SEARCH``: the mcts driver ``play._drive_game`` and the search's replays,
# see ``search_steps``); unused by the other modes
C_STOPPED = CTX.field("C_STOPPED", 1, "1 once the run stopped at a searched decision")
C_NREAL = CTX.field("C_NREAL", 1, "decisions forced from ``log[:, 2]`` from the run's start")
C_TPTR = CTX.field("C_TPTR", 1, "searched decisions forced so far from the tree moves")
C_NTREE = CTX.field("C_NTREE", 1, "tree moves given")
C_SMASK = CTX.field("C_SMASK", 1, "bitmask of the seats whose searched decisions stop the run")
C_SCOPE = CTX.field("C_SCOPE", 1, "bit p: seat p's SCOPE_* (which decisions are searched)")
C_QUERY = CTX.field("C_QUERY", 1, "1: stop at the first searched decision after the tree moves")
C_LOGFRESH = CTX.field("C_LOGFRESH", 1, "1: log decisions made by a policy into ``log``")
C_CKR = CTX.field("C_CKR", 1, "round whose start was passed last with every forced decision used")
C_CKPTR = CTX.field("C_CKPTR", 1, "decisions made before that round start (state: R_CKPT)")
C_QAUX = CTX.field("C_QAUX", 1, "``aux`` of the decision the run stopped at")
C_QPTR = CTX.field("C_QPTR", 1, "index of the decision the run stopped at")
C_NSEARCH = CTX.field("C_NSEARCH", 1, "searches made (``play.play_mcts``, benchmarks)")
C_FMASK = CTX.field(
    "C_FMASK", MAXP, "restricted play: each seat's forbidden options (FB_*), 0 none"
)
C_SIZE = CTX.size
MODE_PLAY = 0
MODE_RECORD = 1
MODE_REPLAY = 2
MODE_SEARCH = 3
RESAMPLE = -1  # forced value meaning "hidden from the searching seat: the policy decides"
SCOPE_ALL = 0  # every decision with two or more options
SCOPE_KEY = 1  # all but the single steps of placements and moves (``rules.searched_kind``)

# ---- scratch rows (buffers[D_SCR]: int32[N_SCRATCH, STATE_SIZE]) ---------------------------------
# the play loop allocates nothing (it runs without NRT, see rules.engine), so the heuristic's
# look-ahead states and the per-seat point vectors live here
SCRATCH = StateLayout("scratch", "rows of buffers[D_SCR], each int32[STATE_SIZE]")
R_LOOK1 = SCRATCH.field("R_LOOK1", 1, "heuristic: state after an option / a card's placements")
R_LOOK2 = SCRATCH.field("R_LOOK2", 1, "heuristic: card_value's state after one more option")
R_EVAL = SCRATCH.field("R_EVAL", 1, "evaluate: points per seat of one place")
R_POT = SCRATCH.field("R_POT", 1, "evaluate: points per seat if every place were scored now")
R_OUT = SCRATCH.field("R_OUT", 1, "points per seat of a scoring (engine and heuristic)")
R_SPEC = SCRATCH.field("R_SPEC", 1, "special_scoring / _primitive / general scoring: one place")
R_CHOICE = SCRATCH.field("R_CHOICE", 1, "engine: secret choices per seat, -1 none")
R_CKPT = SCRATCH.field("R_CKPT", 1, "driven play: the state at the start of round ctx[C_CKR]")
N_SCRATCH = SCRATCH.size

# ---- engine steps (``rules.engine``'s ``what``) ---------------------------------------------
STEP_PLACEMENT = 0
STEP_SPECIAL = 1
STEP_GENERAL_SCORING = 2
STEP_COURT_INTAKE = 3
STEP_ROUND = 4
STEP_GAMES = 5

# ---- game buffers ``game`` (a tuple, ``play.game_buffers``): what ``engine`` needs for whole games
GBUF = StateLayout("game", "tuple: the game buffers")
G_SEEDS = GBUF.field("G_SEEDS", 1, "uint64[2, 4]: [0, 0] root seed; row 1 the game's deal stream")
G_FIXED = GBUF.field("G_FIXED", 1, "int32[FIXED_SIZE]: setup override / setup used (``setup``)")
G_RESULTS = GBUF.field(
    "G_RESULTS", 11, "the eleven result arrays of ``play_batch``, one row per game"
)
G_SPECIAL = GBUF.field("G_SPECIAL", 1, "``special_action`` compiled on its own (a cfunc)")
N_RESULTS = G_SPECIAL - G_RESULTS

# ---- search state (int32[S_ROWS, STATE_SIZE], see ``search_steps``) -------------------------
SEARCH = StateLayout("search state", "rows of int32[S_ROWS, STATE_SIZE]")
S_CKPT = SEARCH.field("S_CKPT", 1, "the state at the round start (unrevealed cards in order)")
S_HEAD = SEARCH.field("S_HEAD", 1, "the header H_*")
S_PREFIX = SEARCH.field("S_PREFIX", 4, "values of the decisions since the round start")
S_ROWS = SEARCH.size
PREFIX_CAP = (S_ROWS - S_PREFIX) * STATE_SIZE
TREE_CAP = 256  # deepest tree path (moves)
HEAD = StateLayout("search header", "row S_HEAD of the search state")
H_R0 = HEAD.field("H_R0", 1, "round of the start state")
H_NREAL = HEAD.field("H_NREAL", 1, "decisions since the round start (prefix)")
H_NTREE = HEAD.field("H_NTREE", 1, "tree moves applied (codes kind * 64 + value)")
H_SEAT = HEAD.field("H_SEAT", 1, "the searching seat")
H_SEED0 = HEAD.field("H_SEED0", 1, "per-iteration seed of the replays' policy streams, low half")
H_SEED1 = HEAD.field("H_SEED1", 1, "the seed's high half (two 31-bit halves)")
H_TREE = HEAD.field("H_TREE", TREE_CAP, "tree moves")
N_MOVE_CODES = N_KINDS * 64

# ---- mcts parameters (mcsim.games.el_grande MCTS_PARAMS order) ------------------------------
MCTS = StateLayout("mcts parameters", "float64[N_MPARAMS]: one mcts seat's parameters (+ M_FLAT)")
M_ITER = MCTS.field("M_ITER", 1, "iterations per search")
M_C = MCTS.field("M_C", 1, "UCB1 exploration constant")
M_REWARD = MCTS.field("M_REWARD", 1, "search.REWARD_WIN / REWARD_MARGIN")
M_ROLLOUT = MCTS.field("M_ROLLOUT", 1, "POL_RANDOM / POL_HEURISTIC for every seat of a rollout")
M_SCOPE = MCTS.field("M_SCOPE", 1, "SCOPE_*")
M_HORIZON = MCTS.field("M_HORIZON", 1, "rounds after the current one rollouts play (0: to the end)")
N_MPARAMS = MCTS.size
M_FLAT = MCTS.field("M_FLAT", 1, "benchmarks only (a 7th column): != 0 runs ``search.flat``")
#: points per reward unit for ``reward = margin``
MARGIN_SCALE = 20.0
# search config (the search context's int64 vector)
CONFIG = StateLayout("search config", "int64[N_CF]: the search's rollout configuration")
CF_ROLLOUT = CONFIG.field("CF_ROLLOUT", 1, "rollout policy (M_ROLLOUT)")
CF_SCOPE = CONFIG.field("CF_SCOPE", 1, "searched decisions (M_SCOPE)")
CF_HORIZON = CONFIG.field("CF_HORIZON", 1, "rollout horizon (M_HORIZON)")
N_CF = CONFIG.size

assert H_TREE + TREE_CAP <= STATE_SIZE

for _layout in (STATE, SOURCES, TABLES, FIXED, HEUR, VARIANTS, DBUF, CTX, SCRATCH, GBUF, SEARCH,
                HEAD, MCTS, CONFIG):  # fmt: skip
    _layout.verify(globals())
    __doc__ += _layout.table()
del _layout
