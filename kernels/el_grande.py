"""El Grande kernels (Numba): state layout, scoring, the round engine, policies, ``play_batch``.

Rules: ``docs/rules/el_grande.md``. Never imports ``mcsim``; ``mcsim.games.el_grande`` builds
the table vector ``T`` from the data files and names every integer used here.

Places: 0..8 are the nine regions in the order of ``board.json`` (Galicia .. Granada), 9 is the
Castillo (``CASTILLO``). Seats 0..n-1; "clockwise" = increasing seat index modulo n.

State (``st``: int32[STATE_SIZE]); offsets ``O_*``:

=============  =======  ===============================================================
offset         length   meaning
=============  =======  ===============================================================
O_CAB          50       caballeros, index place*5 + seat (place 9 = Castillo)
O_COURT        5        caballeros in each seat's court
O_PROV         5        caballeros in each seat's province (general supply)
O_GRANDE       5        home region (region of the Grande) per seat
O_SCORE        5        points per seat
O_SRC          25       points per seat and source, index seat*5 + SRC_*
O_HAND         5        bitmask of power cards in hand (bit v = value v, 1..13)
O_PLAYED       5        power card value played this round (0 = none yet)
O_BOARD        2        place of mobile scoreboard 0 (8/4/0) and 1 (4/0/0); -1 = off board
O_KING         1        King's region
O_NP, O_ROUND, O_START, O_LAST   players, round 1..9, start seat of the bidding, last seat
O_VETO_HOLDER  2        seat holding each Veto card (-1 none)
O_VETO_EXP     2        round at whose end the held Veto is discarded
O_FACE         5        face-up action cards this round (card index, -1 = taken / none)
O_DECK         44       shuffled decks 1-4, 11 cards each (card indices)
O_DECKPTR      4        next card of each deck
O_ORDER        5        turn order this round (seats)
O_PWR          45       power card value played per round and seat, (round-1)*5 + seat
O_TAKER        45       seat that took each action card (-1 = never taken)
O_TAKEROUND    45       round in which each action card was taken (0 = never)
O_KINGBY       9        seat that took the King's card in each round (-1 = round not played)
O_VPEND        1        1 while a partial Veto is pending on the special action being executed
O_VCUT         1        steps of that action still allowed before the Veto cancels the rest
O_ITAKE        5        caballeros taken at court intakes (§3 step 4a) per seat (statistics)
O_IMAX         5        caballeros that could have been taken at those intakes (statistics)
O_VCOUNT       2        Vetoes used: whole action cancelled, partial (statistics)
=============  =======  ===============================================================

Decisions: every choice goes through ``decide`` with a list of legal integer options (kind
``K_*``). The random policy picks uniformly among the options of each decision; the
heuristic policy evaluates options on a copy of the state. In record mode every decision is
logged as ``(kind, seat, value, aux)``; in replay mode the logged value is checked against the
options (the first mismatch is reported, play continues with the first legal option).

Court intake (§3 step 4a, A13; ``court_intake``): one ``K_INTAKE`` decision, the number n in
0..m taken (m = min(power-card allowance, province + own caballeros in regions other than the
King's)); min(n, province) come from the province, the rest one at a time from regions
(``K_SHORT``, a region each). No decision when m = 0. The random policy's count is uniform on
0..m (one decision), unlike placement, which is a sequence of place-or-stop decisions.

Partial Veto (§6 2a): after ``K_VETO`` = 1 on a multi-step action (``nominal_steps`` >= 2, see
there) the holder chooses ``K_VETO_CUT`` k in 0..n-1: k steps happen, then the rest is cancelled
(0 = the whole action, the only possibility for single-step actions). The Veto is discarded
when declared, even if the action ends before its k-th step. ``veto_stop`` is called before
every step.

Legacy mode (``ctx[C_FLAGS] & FLAG_V1``, replay of format-1 records): the maximum intake is
taken from the province with the shortfall decided per caballero (``take_to_court``) and a Veto
always cancels the whole action at its announcement.
"""

import functools
import gc
import warnings

import numpy as np
from numba import cfunc, njit, types
from numba.core.errors import NumbaExperimentalFeatureWarning

from kernels import search
from kernels.rng import (
    STREAM_DEAL,
    STREAM_POLICY,
    game_seed,
    new_state,  # noqa: F401 (tests and callers use K.new_state)
    next_u64,
    randint,
    random_float,
    seed_state,
    shuffle,
)

MAXP = 5
NREG = 9
NPLACE = 10
CASTILLO = 9
STOP = 10  # option value: stop / court (angry king)

# ---- state offsets ------------------------------------------------------------------------
O_CAB = 0
O_COURT = 50
O_PROV = 55
O_GRANDE = 60
O_SCORE = 65
O_SRC = 70
O_HAND = 95
O_PLAYED = 100
O_BOARD = 105
O_KING = 107
O_NP = 108
O_ROUND = 109
O_START = 110
O_LAST = 111
O_VETO_HOLDER = 112
O_VETO_EXP = 114
O_FACE = 116
O_DECK = 121
O_DECKPTR = 165
O_ORDER = 169
O_PWR = 174
O_TAKER = 219
O_TAKEROUND = 264
O_KINGBY = 309
O_VPEND = 318
O_VCUT = 319
O_ITAKE = 320
O_IMAX = 325
O_VCOUNT = 330
STATE_SIZE = 332

# point sources (O_SRC)
SRC_GENERAL = 0  # region points at the general scorings (§5)
SRC_SPECIAL = 1  # region points at special scorings (§6, Castillo excluded)
SRC_KING = 2  # King bonus (§1.4)
SRC_GRANDE = 3  # Grande bonus (§1.4)
SRC_CASTILLO = 4  # points for scoring the Castillo (general or special)

# ---- table offsets (T: int32[T_SIZE], built by mcsim.games.el_grande.build_tables) ---------
T_VAL = 0  # 10*3 printed values, place*3 + rank-1
T_BVAL = 30  # 2*3 mobile scoreboard values
T_ADJ = 36  # 9 adjacency bitmasks over regions
T_PCAB = 45  # 14: caballeros to court per power value (index 1..13)
T_COP = 59  # 45 card opcodes
T_CARG = 104  # 45 card limits
T_CCLS = 149  # 45 class masks (bit v = first value v) for class scorings
T_CDECK = 194  # 45 deck numbers 1..5
T_PAY = 239  # 6: paying ranks by player count
T_KB = 245  # King bonus
T_GB = 246  # Grande bonus
T_HOME = 247  # caballeros in the home region at setup
T_COURT0 = 248  # caballeros in court at setup
T_PROV0 = 249  # caballeros in the province at setup
T_DECKSTART = 250  # 5: first card index of each deck
T_DECKLEN = 255  # 5: cards per deck
T_SIZE = 260
KING_CARD = 44
# setup vector ``fixed`` (int32[FIXED_SIZE], see ``setup``)
F_GIVEN = 0  # 1: play this setup instead of the deal's
F_KING = 1  # King's region
F_HOMES = 2  # 5: home region per seat (-1 unused)
F_START = 7  # start seat
F_DECKS = 8  # 44: decks 1-4, 11 card indices each, top first
FIXED_SIZE = 52

# ---- opcodes ------------------------------------------------------------------------------
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

# ---- decision kinds -----------------------------------------------------------------------
K_POWER = 0  # power card value
K_SHORT = 1  # intake shortfall: region to take one caballero from (STOP too: card 4f, legacy)
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

# policies
POL_RANDOM = 0
POL_HEURISTIC = 1
POL_MCTS = 2
# heuristic parameter indices (mcsim.games.el_grande HEURISTIC_PARAMS)
HP_W_BOARD = 0
HP_W_COURT = 1
HP_BID_CAB = 2
HP_BID_ORDER = 3
HP_VETO_THR = 4
HP_SHORT_MIN = 5
HP_EPS = 6
HP_W_SPECIAL = 7
HP_BID_SPREAD = 8
HP_BID_SAVE = 9
HP_VETO_HARM = 10
HP_COURT_TARGET = 11

# variant indices (mcsim.games.el_grande SPEC.variants order)
V_TIE = 0  # 0 rulebook, 1 competition
V_VETO = 1  # 0 on, 1 off
V_ROUNDS = 2  # 0 -> 9 rounds, 1 -> 6 rounds
V_FINALTIE = 3  # 0 shared, 1 unplayed power cards break ties

# decision buffers D (a tuple, ``make_buffers``; see ``_decide``)
D_POL = 0  # int64[5] policy id per seat
D_PAR = 1  # float64[5, P] policy parameters per seat
D_RNG = 2  # uint64[5, 4] policy random stream per seat
D_LOG = 3  # int32[L, 4] decision log (kind, seat, value, aux)
D_CTX = 4  # int64[C_SIZE] (C_* below)
D_OPTS = 5  # int32[64] options of the current decision
D_ERRBUF = 6  # int32[64] replay error / driven stop: kind, seat, options
D_EV = 7  # int32[E, 8] scoring events
D_SCR = 8  # int32[N_SCRATCH, STATE_SIZE] scratch rows (R_*)
D_HEUR = 9  # the heuristic policy (``policy_function``): a compiled function behind a pointer

# ctx (int64[C_SIZE])
C_MODE = 0  # 0 play, 1 record, 2 replay
C_PTR = 1  # decisions made / log pointer
C_ERR = 2  # first replay error ply, -1 none
C_LOGCAP = 3
C_EVPTR = 4
C_EVCAP = 5
C_NERR = 6  # options count at the error
C_FLAGS = 7  # FLAG_* bits (``_play``'s mode // 4)
# driven play (``MODE_SEARCH``: the mcts driver ``_drive_game`` and the search's replays, see
# "Search" below); unused by the other modes
C_STOPPED = 8  # 1 once the run stopped at a searched decision (then every choice is option 0)
C_NREAL = 9  # decisions forced from ``log[:, 2]`` from the run's start (RESAMPLE: by policy)
C_TPTR = 10  # searched decisions forced so far from ``log[C_NREAL + j, 2]`` (tree moves)
C_NTREE = 11  # tree moves given
C_SMASK = 12  # bitmask of the seats whose searched decisions are tree moves / stop the run
C_SCOPE = 13  # bit p: seat p's SCOPE_* (which of its decisions are searched)
C_QUERY = 14  # 1: stop at the first searched decision after the tree moves; 0: policy plays it
C_LOGFRESH = 15  # 1: log decisions made by a policy into ``log`` (the driver's game log)
C_CKR = 16  # round whose start was passed last with every forced decision used (-1 none)
C_CKPTR = 17  # decisions made before that round start (its state: scratch row R_CKPT)
C_QAUX = 18  # ``aux`` of the decision the run stopped at
C_QPTR = 19  # index of the decision the run stopped at
C_NSEARCH = 20  # searches made (``_play_mcts``, benchmarks)
C_SIZE = 21
FLAG_V1 = 1  # legacy rules of format-1 records: maximum intake, Veto only at announcement
MODE_PLAY = 0
MODE_RECORD = 1
MODE_REPLAY = 2
MODE_SEARCH = 3
RESAMPLE = -1  # forced value meaning "hidden from the searching seat: the policy decides"
SCOPE_ALL = 0  # every decision with two or more options
SCOPE_KEY = 1  # all but the single steps of placements and moves (SCOPE_STEP_KINDS)

# scratch rows (D[D_SCR]: int32[N_SCRATCH, STATE_SIZE], see make_buffers): the play loop allocates
# nothing (it runs without NRT, see engine), so the heuristic's look-ahead states and the
# per-seat point vectors live here
R_LOOK1 = 0  # heuristic: state after an option / after a card's placements (card_value)
R_LOOK2 = 1  # heuristic: card_value's state after one more option
R_EVAL = 2  # evaluate: points per seat of one place
R_POT = 3  # evaluate: points per seat if every place were scored now
R_OUT = 4  # points per seat of a scoring (engine and heuristic)
R_SPEC = 5  # special_scoring / _primitive / general_scoring_regions: points of one place
R_CHOICE = 6  # engine: secret choices per seat, -1 none (held across decisions)
R_CKPT = 7  # driven play: the state at the start of round ctx[C_CKR]
N_SCRATCH = 8

# static special-action value (points-like) used by the heuristic to rank cards by opcode
_STATIC = np.array(
    [
        0.0,
        2.0,
        2.0,
        2.5,
        3.0,
        2.5,
        2.5,
        2.5,
        2.5,
        2.0,
        2.0,
        1.5,
        2.0,
        1.5,
        1.5,
        2.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        2.0,
        1.5,
        2.0,
        1.0,
        1.5,
        1.5,
        1.0,
        3.0,
    ],
    dtype=np.float64,
)


#: options of the compiled helpers that only other kernels call: no CPython or C wrapper is
#: generated for them (compile time; a call from Python raises TypeError)
_INTERNAL = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}


# =============================================================================================
# scoring (§4, §5, §7)
# =============================================================================================
@njit(cache=True, inline="always")
def _copy_state(src, dst):
    """``dst[:] = src`` for a state vector, as a loop (no temporary: the NRT-free play loop)."""
    for i in range(STATE_SIZE):
        dst[i] = src[i]


@njit(cache=True, inline="always")
def _no_choices(scr):
    """``scr[R_CHOICE]`` with the per-seat choices reset to -1 (none)."""
    choice = scr[R_CHOICE]
    for q in range(MAXP):
        choice[q] = -1
    return choice


@njit(cache=True, **_INTERNAL)
def board_at(st, place):
    """Mobile scoreboard lying on ``place`` (0/1) or -1."""
    if st[O_BOARD] == place:
        return 0
    if st[O_BOARD + 1] == place:
        return 1
    return -1


@njit(cache=True, **_INTERNAL)
def place_value(st, T, place, k):
    """Current value for rank ``k+1`` (k = 0, 1, 2) of ``place``: mobile board if one lies there
    (§1.3), else the printed values (§1.1)."""
    b = board_at(st, place)
    if b >= 0:
        return T[T_BVAL + b * 3 + k]
    return T[T_VAL + place * 3 + k]


@njit(inline="always")
def score_place(st, T, var, place, firsts_only, src, apply, out):
    """Score one place (see ``_score_place``; int64/bool casts: one compiled version)."""
    _score_place(st, T, var, np.int64(place), bool(firsts_only), np.int64(src), bool(apply), out)


@njit(cache=True, **_INTERNAL)
def _score_place(st, T, var, place, firsts_only, src, apply, out):
    """Score one place (region or Castillo) with bonuses; §4, §1.4, §7.

    Parameters
    ----------
    st : int32[STATE_SIZE]
    T : int32[T_SIZE]
    var : int64[n_variants]
    place : int
        0..8 region, 9 Castillo.
    firsts_only : bool
        Only rank 1 pays (card 3e).
    src : int
        ``SRC_GENERAL`` or ``SRC_SPECIAL`` for the region points (Castillo points always go to
        ``SRC_CASTILLO``).
    apply : bool
        Add the points to ``st`` (scores and sources); otherwise only report them.
    out : int32[>= 5]
        Points per seat including bonuses (written).
    """
    npl = st[O_NP]
    base = O_CAB + place * 5
    pay = 1 if firsts_only else T[T_PAY + npl]
    tie_rank = var[V_TIE]
    for p in range(npl):
        out[p] = 0
    # distinct positive counts from the top; a group of k >= 2 tied players slides back one
    # place; the next group starts 2 places lower (rulebook) or at 1 + players above (competition)
    r = 1
    above = 0
    prev = 1 << 30
    while True:
        lvl = 0
        for p in range(npl):
            c = st[base + p]
            if c < prev and c > lvl:
                lvl = c
        if lvl == 0:
            break
        k = 0
        for p in range(npl):
            if st[base + p] == lvl:
                k += 1
        rank = r if k == 1 else r + 1
        tot = 0
        if rank <= pay:
            tot = place_value(st, T, place, np.int64(rank - 1))
        for p in range(npl):
            if st[base + p] != lvl:
                continue
            kb = 0
            gb = 0
            if place != CASTILLO and rank == 1:
                if st[O_KING] == place:
                    kb = T[T_KB]
                if st[O_GRANDE + p] == place:
                    gb = T[T_GB]
            out[p] = tot + kb + gb
            if apply:
                st[O_SCORE + p] += tot + kb + gb
                if place == CASTILLO:
                    st[O_SRC + p * 5 + SRC_CASTILLO] += tot
                else:
                    st[O_SRC + p * 5 + src] += tot
                st[O_SRC + p * 5 + SRC_KING] += kb
                st[O_SRC + p * 5 + SRC_GRANDE] += gb
        above += k
        if tie_rank == 0:
            r += 1 if k == 1 else 2
        else:
            r = above + 1
        prev = lvl


@njit(cache=True, **_INTERNAL)
def total_in(st, place):
    npl = st[O_NP]
    s = 0
    for p in range(npl):
        s += st[O_CAB + place * 5 + p]
    return s


@njit(cache=True, **_INTERNAL)
def special_scoring(st, T, var, op, arg_place, cls_mask, apply, out, scr):
    """Apply a special-scoring opcode (cards 2h, 3a-3h); ``out`` gets the points per seat
    (``scr``: scratch rows, ``make_buffers``; uses ``R_SPEC``)."""
    npl = st[O_NP]
    tmp = scr[R_SPEC]
    for p in range(npl):
        out[p] = 0
    if op == OP_SCORE_CHOICE:
        score_place(st, T, var, arg_place, False, SRC_SPECIAL, apply, tmp)
        for p in range(npl):
            out[p] += tmp[p]
    elif op == OP_SCORE_CLASS:
        for r in range(NREG):
            v1 = place_value(st, T, np.int64(r), np.int64(0))
            if v1 < 31 and ((cls_mask >> v1) & 1) == 1:
                score_place(st, T, var, r, False, SRC_SPECIAL, apply, tmp)
                for p in range(npl):
                    out[p] += tmp[p]
    elif op == OP_SCORE_CASTILLO:
        score_place(st, T, var, CASTILLO, False, SRC_SPECIAL, apply, tmp)
        for p in range(npl):
            out[p] += tmp[p]
    elif op == OP_SCORE_FIRSTS:
        for r in range(NREG):
            score_place(st, T, var, r, True, SRC_SPECIAL, apply, tmp)
            for p in range(npl):
                out[p] += tmp[p]
    elif op == OP_SCORE_MOST or op == OP_SCORE_FEWEST:
        best = -1
        for r in range(NREG):
            t = total_in(st, r)
            if t == 0:
                continue
            if (
                best < 0
                or (op == OP_SCORE_MOST and t > best)
                or (op == OP_SCORE_FEWEST and t < best)
            ):
                best = t
        if best > 0:
            for r in range(NREG):
                if total_in(st, r) == best:
                    score_place(st, T, var, r, False, SRC_SPECIAL, apply, tmp)
                    for p in range(npl):
                        out[p] += tmp[p]


@njit(cache=True, **_INTERNAL)
def general_scoring_regions(st, T, var, scr):
    """Score the nine regions at a general scoring (§5 step 4); uses ``scr[R_SPEC]``."""
    tmp = scr[R_SPEC]
    for r in range(NREG):
        score_place(st, T, var, r, False, SRC_GENERAL, True, tmp)


# =============================================================================================
# evaluation (heuristic)
# =============================================================================================
@njit(cache=True, **_INTERNAL)
def evaluate(st, T, var, p, w_board, w_court, scr):
    """Heuristic value of the position for seat ``p``: own (score + w_board * points if every
    place were scored now + w_court * court) minus the opponents' mean of the same.
    Uses ``scr[R_EVAL]`` and ``scr[R_POT]`` (integer points: the same floats as a float sum)."""
    npl = st[O_NP]
    pot = scr[R_POT]
    tmp = scr[R_EVAL]
    for q in range(npl):
        pot[q] = 0
    for pl in range(NPLACE):
        score_place(st, T, var, pl, False, SRC_GENERAL, False, tmp)
        for q in range(npl):
            pot[q] += tmp[q]
    own = st[O_SCORE + p] + w_board * pot[p] + w_court * st[O_COURT + p]
    opp = 0.0
    for q in range(npl):
        if q != p:
            opp += st[O_SCORE + q] + w_board * pot[q] + w_court * st[O_COURT + q]
    return own - opp / (npl - 1)


# =============================================================================================
# primitives (shared by the engine and the heuristic's look-ahead)
# =============================================================================================
@njit(inline="always")
def primitive(st, T, var, kind, p, v, aux, scr):
    """Apply the direct effect of option ``v`` of a decision of kind ``kind`` by seat ``p``
    (int64 casts: one compiled ``_primitive``; ``scr``: scratch rows, uses ``R_SPEC``)."""
    _primitive(st, T, var, np.int64(kind), np.int64(p), np.int64(v), np.int64(aux), scr)


@njit(cache=True, inline="always")
def _send_all(st, p, src, dst, king):
    """Move all of colour ``p``'s caballeros from region ``src`` to ``dst``; a destination in
    the King's region means the court (Eviction, Castillo discs)."""
    n = st[O_CAB + src * 5 + p]
    st[O_CAB + src * 5 + p] = 0
    if dst == king:
        st[O_COURT + p] += n
    else:
        st[O_CAB + dst * 5 + p] += n


@njit(cache=True, **_INTERNAL)
def _primitive(st, T, var, kind, p, v, aux, scr):
    """Body of ``primitive``."""
    npl = st[O_NP]
    king = st[O_KING]
    if kind == K_PLACE or kind == K_PLACE_ANY:
        if v != STOP:
            st[O_CAB + v * 5 + p] += 1
            st[O_COURT + p] -= 1
    elif kind == K_SHORT:
        if v != STOP:
            st[O_CAB + v * 5 + p] -= 1
            st[O_COURT + p] += 1
    elif kind == K_MOVE_DST:
        s = aux // 5
        c = aux % 5
        st[O_CAB + s * 5 + c] -= 1
        st[O_CAB + v * 5 + c] += 1
    elif kind == K_ANGRY:
        if v == STOP:
            st[O_COURT + p] -= 1
        else:
            st[O_CAB + v * 5 + p] -= 1
        st[O_PROV + p] += 1
    elif kind == K_REMOVE1:
        st[O_CAB + v * 5 + aux] -= 1
        st[O_PROV + aux] += 1
    elif kind == K_SECRET_REM:
        n = st[O_CAB + v * 5 + p]
        if aux > 0 and n > aux:
            n = aux
        st[O_CAB + v * 5 + p] -= n
        st[O_PROV + p] += n
    elif kind == K_SCORE_REGION or kind == K_SECRET_SCORE:
        score_place(st, T, var, v, False, SRC_SPECIAL, True, scr[R_SPEC])
    elif kind == K_BOARD:
        st[O_BOARD + v // 10] = v % 10
    elif kind == K_KING_TO:
        st[O_KING] = v
    elif kind == K_GRANDE_TO:
        st[O_GRANDE + p] = v
    elif kind == K_EVICT_DST:
        _send_all(st, p, aux, v, king)
    elif kind == K_DISC:
        _send_all(st, p, CASTILLO, v, king)
    elif kind == K_EVICT_REGION:
        # look-ahead approximation only: opponents' caballeros leave to their courts
        for q in range(npl):
            if q != p:
                st[O_COURT + q] += st[O_CAB + v * 5 + q]
                st[O_CAB + v * 5 + q] = 0
    elif kind == K_POWERBACK:
        st[O_HAND + p] |= 1 << v


# =============================================================================================
# decisions and policies
# =============================================================================================
@njit(cache=True, **_INTERNAL)
def _opt_eval(st, T, var, kind, p, v, aux, wb, wc, scr, row):
    """Evaluation after option ``v``, on a copy of ``st`` in ``scr[row]``."""
    tmp = scr[row]
    _copy_state(st, tmp)
    primitive(tmp, T, var, kind, p, v, aux, scr)
    return evaluate(tmp, T, var, p, wb, wc, scr)


@njit(cache=True, **_INTERNAL)
def _best_dst_eval(st, T, var, p, src_code, wb, wc, scr):
    """Best evaluation over destinations of one caballero taken from ``src_code``."""
    s = src_code // 5
    king = st[O_KING]
    best = -1e18
    for d in range(NPLACE):
        if d == s or d == king:
            continue
        e = _opt_eval(
            st,
            T,
            var,
            np.int64(K_MOVE_DST),
            np.int64(p),
            np.int64(d),
            np.int64(src_code),
            wb,
            wc,
            scr,
            np.int64(R_LOOK1),
        )
        if e > best:
            best = e
    return best


@njit(cache=True, **_INTERNAL)
def card_value(st, T, var, p, c, par, scr):
    """Heuristic value of action card ``c`` for seat ``p`` (placement look-ahead + special);
    the look-ahead state is ``scr[R_LOOK1]``."""
    wb = par[HP_W_BOARD]
    wc = par[HP_W_COURT]
    base = evaluate(st, T, var, p, wb, wc, scr)
    tmp = scr[R_LOOK1]
    _copy_state(st, tmp)
    n = T[T_CDECK + c]
    king = tmp[O_KING]
    adj = T[T_ADJ + king]
    for _ in range(n):
        if tmp[O_COURT + p] <= 0:
            break
        best = -1e18
        bt = -1
        for t in range(NPLACE):
            if t == CASTILLO or ((adj >> t) & 1) == 1:
                e = _opt_eval(
                    tmp,
                    T,
                    var,
                    np.int64(K_PLACE),
                    np.int64(p),
                    np.int64(t),
                    np.int64(0),
                    wb,
                    wc,
                    scr,
                    np.int64(R_LOOK2),
                )
                if e > best:
                    best = e
                    bt = t
        if bt < 0:
            break
        primitive(tmp, T, var, K_PLACE, p, bt, 0, scr)
    val = evaluate(tmp, T, var, p, wb, wc, scr) - base
    op = T[T_COP + c]
    if op == OP_SCORE_CHOICE:
        before = evaluate(tmp, T, var, p, wb, wc, scr)
        best = -1e18
        for pl in range(NPLACE):
            e = (
                _opt_eval(
                    tmp,
                    T,
                    var,
                    np.int64(K_SCORE_REGION),
                    np.int64(p),
                    np.int64(pl),
                    np.int64(0),
                    wb,
                    wc,
                    scr,
                    np.int64(R_LOOK2),
                )
                - before
            )
            if e > best:
                best = e
        if best > 0:
            val += best
    elif op >= OP_SCORE_CLASS and op <= OP_SCORE_FEWEST:
        before = evaluate(tmp, T, var, p, wb, wc, scr)
        special_scoring(
            tmp,
            T,
            var,
            np.int64(op),
            np.int64(0),
            np.int64(T[T_CCLS + c]),
            np.int64(1),
            scr[R_OUT],
            scr,
        )
        g = evaluate(tmp, T, var, p, wb, wc, scr) - before
        if g > 0:
            val += g
    else:
        val += par[HP_W_SPECIAL] * _STATIC[op]
    return val


@njit(cache=True, **_INTERNAL)
def _option_index(opts, nopt, want):
    """Index of option ``want`` among ``opts[:nopt]``; 0 (the first option) if it is absent."""
    for i in range(nopt):
        if opts[i] == want:
            return i
    return 0


@njit(inline="always")  # one call site: no compiled level of its own
def _h_bid(st, T, var, p, nopt, opts, par, scr):
    """Heuristic power bid (§3 step 3): caballeros to court and turn order (see HP_BID_*)."""
    best = -1e18
    bi = 0
    prov = st[O_PROV + p]
    spread = 0.0
    if par[HP_BID_SPREAD] != 0.0:
        hi = -1e18
        lo = 1e18
        for i in range(5):
            c = st[O_FACE + i]
            if c >= 0:
                x = card_value(st, T, var, p, c, par, scr)
                if x > hi:
                    hi = x
                if x < lo:
                    lo = x
        spread = hi - lo
    left = 9 - st[O_ROUND]
    for i in range(nopt):
        v = opts[i]
        cab = T[T_PCAB + v]
        if cab > prov:
            cab = prov
        e = (
            par[HP_BID_CAB] * cab
            + par[HP_BID_ORDER] * v
            + par[HP_BID_SPREAD] * spread * v / 13.0
            - par[HP_BID_SAVE] * v * left / 9.0
        )
        if e > best:
            best = e
            bi = i
    return bi


@njit(inline="always")  # one call site: no compiled level of its own
def _h_execute(st, T, var, p, nopt, aux, opts, wb, wc, scr):
    """Heuristic ``K_EXEC``: execute the special action of card ``aux``?"""
    # aux = card index; scorings only if they gain, everything else executes
    op = T[T_COP + aux]
    want = 1
    if op >= OP_SCORE_CLASS and op <= OP_SCORE_FEWEST:
        tmp = scr[R_LOOK1]
        _copy_state(st, tmp)
        before = evaluate(tmp, T, var, p, wb, wc, scr)
        special_scoring(
            tmp,
            T,
            var,
            np.int64(op),
            np.int64(0),
            np.int64(T[T_CCLS + aux]),
            np.int64(1),
            scr[R_OUT],
            scr,
        )
        if evaluate(tmp, T, var, p, wb, wc, scr) - before <= 0:
            want = 0
    return _option_index(opts, nopt, want)


@njit(inline="always")  # one call site: no compiled level of its own
def _h_intake(st, p, nopt, aux, opts, par):
    """Heuristic court intake (§3 step 4a): the number of caballeros taken (= option index)."""
    # aux = allowance; province caballeros up to a court of court_target, then the
    # shortfall from regions while the court is below short_min_court
    prov = st[O_PROV + p]
    court = st[O_COURT + p]
    n = aux if aux < prov else prov
    room = par[HP_COURT_TARGET] - court
    if n > room:
        n = int(room) if room > 0 else 0
    if n == prov and aux > prov:
        need = par[HP_SHORT_MIN] - (court + prov)
        if need > 0:
            k = int(np.ceil(need))
            n += k if k < aux - prov else aux - prov
    if n > opts[nopt - 1]:
        n = opts[nopt - 1]
    return n


@njit(inline="always")  # one call site: no compiled level of its own
def _h_veto(st, T, var, p, nopt, aux, opts, par, scr):
    """Heuristic Veto (§6 2a): cancel the special action of card ``aux % 64`` by seat
    ``aux // 64``?"""
    # aux = actor*64 + card; veto scorings that favour the actor by >= threshold, and
    # per-opponent actions that would cost me >= veto_harm caballeros
    actor = aux // 64
    c = aux % 64
    op = T[T_COP + c]
    want = 0
    out = scr[R_OUT]
    if op == OP_DECAY_ALL or op == OP_DECAY_N or op == OP_ANGRY or op == OP_REMOVE_EACH:
        lim = T[T_CARG + c]
        loss = st[O_COURT + p]
        if op == OP_ANGRY or op == OP_REMOVE_EACH:
            for s in range(NREG):
                if s != st[O_KING]:
                    loss += st[O_CAB + s * 5 + p]
            if op == OP_REMOVE_EACH:
                loss -= st[O_COURT + p]
        if op != OP_DECAY_ALL and loss > lim:
            loss = lim
        if loss > 0 and loss >= par[HP_VETO_HARM]:
            want = 1
    elif op >= OP_SCORE_CLASS and op <= OP_SCORE_FEWEST:
        special_scoring(
            st, T, var, np.int64(op), np.int64(0), np.int64(T[T_CCLS + c]), np.int64(0), out, scr
        )  # apply=False
        if out[actor] - out[p] >= par[HP_VETO_THR]:
            want = 1
    elif op == OP_SCORE_CHOICE:
        bestg = -1000
        bo = 0
        for pl in range(NPLACE):
            score_place(st, T, var, pl, False, SRC_SPECIAL, False, out)
            if out[actor] > bestg:
                bestg = out[actor]
                bo = out[p]
        if bestg - bo >= par[HP_VETO_THR]:
            want = 1
    return _option_index(opts, nopt, want)


def heuristic_choice(st, T, var, opts, pars, scr, kind, p, nopt, aux):
    """Index of the heuristic's option among ``opts[:nopt]`` for seat ``p`` (parameters
    ``pars[p]``, scratch rows ``scr``; see ``_decide_any``). Compiled by ``policy_function``
    (signature ``HEUR_SIG``) only for lineups with a heuristic seat."""
    par = pars[p]
    wb = par[HP_W_BOARD]
    wc = par[HP_W_COURT]
    npl = st[O_NP]
    best = -1e18
    bi = 0
    if kind == K_POWER:
        return _h_bid(st, T, var, p, nopt, opts, par, scr)
    if kind == K_CARD:
        for i in range(nopt):
            e = card_value(st, T, var, p, opts[i], par, scr)
            if e > best:
                best = e
                bi = i
        return bi
    if kind == K_ORDER:
        op = aux
        want = 1 if (op == OP_KING or op == OP_ADVISOR) else 0
        return _option_index(opts, nopt, want)
    if kind == K_EXEC:
        return _h_execute(st, T, var, p, nopt, aux, opts, wb, wc, scr)
    if kind == K_VETO_CUT:
        # aux = actor*64 + card; per-opponent actions: let the steps on the players before me
        # happen, cancel before mine; anything else: cancel the whole action
        actor = aux // 64
        op = T[T_COP + aux % 64]
        want = 0
        if op == OP_DECAY_ALL or op == OP_DECAY_N or op == OP_ANGRY or op == OP_REMOVE_EACH:
            want = (p - actor - 1 + npl) % npl
        return _option_index(opts, nopt, want)
    if kind == K_INTAKE:
        return _h_intake(st, p, nopt, aux, opts, par)
    if kind == K_VETO:
        return _h_veto(st, T, var, p, nopt, aux, opts, par, scr)
    if kind == K_CHOICE:
        want = 1 if st[O_COURT + p] >= 2 else 0
        return _option_index(opts, nopt, want)
    if kind == K_SHORT:
        if st[O_COURT + p] >= par[HP_SHORT_MIN]:
            for i in range(nopt):
                if opts[i] == STOP:
                    return i
    if kind == K_POWERBACK:
        for i in range(nopt):
            if opts[i] > best:
                best = opts[i]
                bi = i
        return bi
    if kind == K_MOVE_SRC:
        for i in range(nopt):
            e = _best_dst_eval(st, T, var, np.int64(p), np.int64(opts[i]), wb, wc, scr)
            if e > best:
                best = e
                bi = i
        return bi
    if kind == K_SRC_REGION:
        # 1a/1d: region whose caballeros (own for 1a, opponents' for 1d) are best relocated;
        # approximated by one caballero of the right kind moved to its best destination
        for i in range(nopt):
            s = opts[i]
            e = -1e18
            for c in range(npl):
                if st[O_CAB + s * 5 + c] > 0 and ((aux == 0 and c == p) or (aux == 1 and c != p)):
                    x = _best_dst_eval(st, T, var, np.int64(p), np.int64(s * 5 + c), wb, wc, scr)
                    if x > e:
                        e = x
            if e > best:
                best = e
                bi = i
        return bi
    if kind == K_REMOVE1 or kind == K_SECRET_REM or kind == K_ANGRY:
        # the mover's own evaluation (victims choose their least harmful loss)
        pass
    # generic: one-step look-ahead of the primitive
    for i in range(nopt):
        e = _opt_eval(
            st,
            T,
            var,
            np.int64(kind),
            np.int64(p),
            np.int64(opts[i]),
            np.int64(aux),
            wb,
            wc,
            scr,
            np.int64(R_LOOK1),
        )
        if e > best:
            best = e
            bi = i
    return bi


@njit(inline="always")
def decide(st, T, var, D, kind, p, nopt, aux):
    """``_decide`` with the random fast path inlined at the call site: used at the frequent
    decisions (bids, cards, order, placements, intakes, moves, execute), where a call passing
    ``D`` (nine arrays) at every decision costs about 20% of random play; the rare decisions
    call ``_decide`` directly (each inlined copy costs compile time). int64 arguments."""
    ctx = D[D_CTX]
    if ctx[C_MODE] == MODE_PLAY and D[D_POL][p] == POL_RANDOM:  # fast path, same draws as _decide
        ctx[C_PTR] += 1
        if nopt > 1:
            return np.int64(D[D_OPTS][randint(D[D_RNG][p], nopt)])
        return np.int64(D[D_OPTS][0])
    return _decide(st, T, var, D, kind, p, nopt, aux)


@njit(cache=True, **_INTERNAL)
def _decide(st, T, var, D, kind, p, nopt, aux):
    """Choose one of ``D[D_OPTS][:nopt]`` for seat ``p`` (see ``_decide_any``). Every caller
    passes int64 ``kind``, ``p``, ``nopt``, ``aux`` (``np.int64(...)``, never a literal), so that
    it compiles once; a compiled function, not inlined at its call sites (compile time)."""
    ctx = D[D_CTX]
    if ctx[C_MODE] == MODE_PLAY and D[D_POL][p] == POL_RANDOM:  # fast path, same draws
        ctx[C_PTR] += 1
        if nopt > 1:
            return np.int64(D[D_OPTS][randint(D[D_RNG][p], nopt)])
        return np.int64(D[D_OPTS][0])
    return np.int64(_decide_any(st, T, var, D, kind, p, nopt, aux))


@njit(inline="always")  # one call site: no compiled level of its own
def _decide_any(st, T, var, D, kind, p, nopt, aux):
    """Choose one of ``D[D_OPTS][:nopt]`` (the legal options) for seat ``p``.

    ``D`` = (policy_ids int64[5], policy_params float64[5, P], rng uint64[5, 4],
    log int32[L, 4], ctx int64[C_SIZE], opts int32[64], errbuf int32[64], events int32[E, 8],
    scratch int32[N_SCRATCH, STATE_SIZE] (rows ``R_*``), the heuristic (``policy_function``)).
    Returns the chosen option value. Logs it in record/replay mode. In replay mode a log of
    ``4 + STATE_SIZE`` columns also receives the position before decision ``ptr`` in columns
    ``4 ..`` (``mcsim.games.el_grande.show``; the usual 4-column log is unaffected).
    """
    opts = D[D_OPTS]
    ctx = D[D_CTX]
    log = D[D_LOG]
    mode = ctx[C_MODE]
    ptr = ctx[C_PTR]
    idx = 0
    if mode == MODE_REPLAY:
        if log.shape[1] >= 4 + STATE_SIZE and ptr < log.shape[0]:
            # a wide log asks for the position before each decision (``mcsim show``)
            for i in range(STATE_SIZE):
                log[ptr, 4 + i] = st[i]
        found = -1
        if ptr < ctx[C_LOGCAP] and log[ptr, 0] == kind and log[ptr, 1] == p:
            want = log[ptr, 2]
            for i in range(nopt):
                if opts[i] == want:
                    found = i
                    break
        if found < 0:
            if ctx[C_ERR] < 0:
                ctx[C_ERR] = ptr
                ctx[C_NERR] = nopt
                eb = D[D_ERRBUF]
                eb[0] = kind
                eb[1] = p
                for i in range(nopt):
                    if i + 2 < eb.shape[0]:
                        eb[i + 2] = opts[i]
            found = 0
        idx = found
    elif mode == MODE_SEARCH:
        return _decide_driven(st, T, var, D, kind, p, nopt, aux)
    elif nopt > 1:
        idx = _policy_index(st, T, var, D, kind, p, nopt, aux)
    v = opts[idx]
    if mode == MODE_RECORD and ptr < ctx[C_LOGCAP]:
        log[ptr, 0] = kind
        log[ptr, 1] = p
        log[ptr, 2] = v
        log[ptr, 3] = aux
    ctx[C_PTR] = ptr + 1
    return v


@njit(inline="always")  # two small call sites: no compiled level of its own
def _policy_index(st, T, var, D, kind, p, nopt, aux):
    """Index of seat ``p``'s policy choice among ``nopt >= 2`` options: uniform for
    ``POL_RANDOM``, else the heuristic (after an ``eps`` draw); ``mcts`` seats reach it only for
    the decisions they do not search, with the heuristic's parameters in ``D[D_PAR][p]``."""
    rng = D[D_RNG][p]
    if D[D_POL][p] == POL_RANDOM:
        return randint(rng, nopt)
    if D[D_PAR][p, HP_EPS] > 0.0 and random_float(rng) < D[D_PAR][p, HP_EPS]:
        return randint(rng, nopt)
    return D[D_HEUR](st, T, var, D[D_OPTS], D[D_PAR], D[D_SCR], kind, p, nopt, aux)


# The heuristic sits behind a function pointer (a first-class function, ``D[D_HEUR]``): the
# engine is compiled once for every lineup and calls whatever function the lineup's buffers
# hold, so the heuristic (about a fifth of the engine's code) is compiled only for lineups that
# use it and is linked into no other compiled function (compile time, issue 13 §5). A call
# through the pointer costs nothing next to the heuristic's look-ahead.
HEUR_SIG = types.int64(
    types.int32[::1],  # st
    types.int32[::1],  # T
    types.int64[::1],  # var
    types.int32[::1],  # opts
    types.float64[:, ::1],  # policy parameters per seat
    types.int32[:, ::1],  # scratch rows
    types.int64,  # kind
    types.int64,  # seat
    types.int64,  # options
    types.int64,  # aux
)
warnings.filterwarnings(
    "ignore", "First-class function type feature is experimental", NumbaExperimentalFeatureWarning
)


def _no_heuristic(st, T, var, opts, pars, scr, kind, p, nopt, aux):
    """``D[D_HEUR]`` of lineups without a heuristic seat (never called: their seats draw)."""
    return np.int64(0)


_POLICY_FUNCTIONS = {}


def policy_function(heuristic):
    """The compiled function for ``D[D_HEUR]`` (a ``numba.cfunc`` of signature ``HEUR_SIG``,
    compiled on first use and cached on disk): ``heuristic_choice`` if ``heuristic``, else a
    stub for lineups whose seats never ask the heuristic (``POL_RANDOM`` only, and replays)."""
    heuristic = bool(heuristic)
    if heuristic not in _POLICY_FUNCTIONS:
        body = heuristic_choice if heuristic else _no_heuristic
        _POLICY_FUNCTIONS[heuristic] = cfunc(HEUR_SIG, cache=True, _nrt=False)(body)
    return _POLICY_FUNCTIONS[heuristic]


# ``D`` as the engine receives it from ``make_buffers`` (every array C-contiguous)
D_TYPE = types.Tuple(
    [
        types.int64[::1],
        types.float64[:, ::1],
        types.uint64[:, ::1],
        types.int32[:, ::1],
        types.int64[::1],
        types.int32[::1],
        types.int32[::1],
        types.int32[:, ::1],
        types.int32[:, ::1],
        types.FunctionType(HEUR_SIG),
    ]
)
SPECIAL_SIG = types.void(
    types.int32[::1], types.int32[::1], types.int64[::1], D_TYPE, types.int64, types.int64
)
_SPECIAL_FUNCTION = []


def special_function():
    """``special_action`` compiled on its own (a ``numba.cfunc`` of signature ``SPECIAL_SIG``,
    cached on disk; ``G[G_SPECIAL]``). The engine calls it through a pointer, so the special
    actions, the largest part of the engine, are compiled and optimised once and not again
    inside ``engine`` (each compiled caller links and optimises its callees' code again:
    compile time, issue 13 §5); a call per special action costs nothing measurable."""
    if not _SPECIAL_FUNCTION:
        _SPECIAL_FUNCTION.append(cfunc(SPECIAL_SIG, cache=True, _nrt=False)(special_action))
    return _SPECIAL_FUNCTION[0]


@njit(cache=True, inline="always")
def searched_kind(kind, scope):
    """True if decisions of ``kind`` are searched under ``scope`` (``SCOPE_*``)."""
    if scope == SCOPE_ALL:
        return True
    return not (
        kind == K_PLACE
        or kind == K_SHORT
        or kind == K_MOVE_SRC
        or kind == K_MOVE_DST
        or kind == K_PLACE_ANY
        or kind == K_ANGRY
    )


@njit(inline="always")  # one call site: no compiled level of its own
def _decide_driven(st, T, var, D, kind, p, nopt, aux):
    """``_decide`` in ``MODE_SEARCH``: the decision ``ctx[C_PTR]`` of a run started at a round
    start. Forced from ``log[ptr, 2]`` while ``ptr < ctx[C_NREAL]`` (``RESAMPLE``: the policy
    decides); after that a searched decision (seat in ``C_SMASK``, kind searched under
    ``C_SCOPE``, two or more options) takes the next tree move (code ``kind * 64 + value`` in
    ``log[C_NREAL + j, 2]``), or, when they are used up and ``C_QUERY`` is set, stops the run:
    the options go to ``D[D_ERRBUF]`` (``[kind, seat, options...]``, count in ``C_NERR``) and every
    later choice is option 0 without drawing. Other decisions: the seat's policy
    (``_policy_index``), logged when ``C_LOGFRESH`` is set."""
    opts = D[D_OPTS]
    ctx = D[D_CTX]
    log = D[D_LOG]
    ptr = ctx[C_PTR]
    ctx[C_PTR] = ptr + 1
    if ctx[C_STOPPED] != 0:
        return opts[0]
    want = RESAMPLE
    if ptr < ctx[C_NREAL]:
        want = log[ptr, 2]
    elif (
        nopt > 1 and ((ctx[C_SMASK] >> p) & 1) == 1 and searched_kind(kind, (ctx[C_SCOPE] >> p) & 1)
    ):
        j = ctx[C_TPTR]
        if j < ctx[C_NTREE]:
            ctx[C_TPTR] = j + 1
            want = log[ctx[C_NREAL] + j, 2] - kind * 64
        elif ctx[C_QUERY] != 0:
            eb = D[D_ERRBUF]
            eb[0] = kind
            eb[1] = p
            for i in range(nopt):
                eb[2 + i] = opts[i]
            ctx[C_NERR] = nopt
            ctx[C_QAUX] = aux
            ctx[C_QPTR] = ptr
            ctx[C_STOPPED] = 1
            return opts[0]
    if want != RESAMPLE:
        for i in range(nopt):
            if opts[i] == want:
                return want
        if ctx[C_ERR] < 0:  # never expected: a forced value that is not legal here
            ctx[C_ERR] = ptr
        return opts[0]
    idx = 0
    if nopt > 1:
        idx = _policy_index(st, T, var, D, kind, p, nopt, aux)
    v = opts[idx]
    if ctx[C_LOGFRESH] != 0 and ptr < log.shape[0]:
        log[ptr, 0] = kind
        log[ptr, 1] = p
        log[ptr, 2] = v
        log[ptr, 3] = aux
    return v


@njit(cache=True, **_INTERNAL)
def _event(st, D, code, arg):
    """Record a scoring event (replay printing): (ply, code, arg, scores...)."""
    ctx = D[D_CTX]
    ev = D[D_EV]
    k = ctx[C_EVPTR]
    if k < ctx[C_EVCAP]:
        ev[k, 0] = ctx[C_PTR]
        ev[k, 1] = code
        ev[k, 2] = arg
        for p in range(MAXP):
            ev[k, 3 + p] = st[O_SCORE + p] if p < st[O_NP] else 0
        ctx[C_EVPTR] = k + 1


# =============================================================================================
# option generators
# =============================================================================================
@njit(cache=True, **_INTERNAL)
def _place_targets(st, T, opts, with_stop):
    n = 0
    if with_stop:
        opts[n] = STOP
        n += 1
    adj = T[T_ADJ + st[O_KING]]
    for t in range(NREG):
        if ((adj >> t) & 1) == 1:
            opts[n] = t
            n += 1
    opts[n] = CASTILLO
    return n + 1


@njit(cache=True, **_INTERNAL)
def _move_sources(st, p, cls, only_region, opts):
    """Options place*5+colour for one move. cls: 0 own, 1 opponents', 2 any.
    only_region >= 0 restricts the source region. Never the King's region or the Castillo."""
    npl = st[O_NP]
    king = st[O_KING]
    n = 0
    for s in range(NREG):
        if s == king:
            continue
        if only_region >= 0 and s != only_region:
            continue
        for c in range(npl):
            if st[O_CAB + s * 5 + c] <= 0:
                continue
            if cls == 0 and c != p:
                continue
            if cls == 1 and c == p:
                continue
            opts[n] = s * 5 + c
            n += 1
    return n


@njit(cache=True, **_INTERNAL)
def _move_dsts(st, src, opts, include_src):
    king = st[O_KING]
    n = 0
    for d in range(NPLACE):
        if d == king:
            continue
        if d == src and include_src == 0:
            continue
        opts[n] = d
        n += 1
    return n


# =============================================================================================
# engine pieces
# =============================================================================================
@njit(cache=True, **_INTERNAL)
def veto_stop(st):
    """Step boundary of a multi-step special action (§6 2a, partial Veto): True when a pending
    Veto cancels the rest of the action now, else counts one more step allowed."""
    if st[O_VPEND] == 0:
        return False
    if st[O_VCUT] == 0:
        st[O_VPEND] = 0
        return True
    st[O_VCUT] -= 1
    return False


@njit(cache=True, **_INTERNAL)
def nominal_steps(st, T, p, c):
    """Steps of card ``c``'s special action for the partial Veto (§6 2a): one step per
    caballero moved or placed (1a: the own caballeros of the region holding most of them outside
    the King's region; 1b, 1d-1i: the card's limit, 1g both limits; 1c: the larger of 1a and 1b),
    one step per opponent clockwise from the actor's left for 2b-2e; 1 for every other card
    (scorings, secret choices, King/Grande/scoreboard moves, 4e, 4f)."""
    op = T[T_COP + c]
    lim = T[T_CARG + c]
    if op == OP_DECAY_ALL or op == OP_DECAY_N or op == OP_ANGRY or op == OP_REMOVE_EACH:
        return st[O_NP] - 1
    if op == OP_MOVE_OWN_OPP:
        return 2 * lim
    if (
        op == OP_PLACE_ANY
        or op == OP_MOVE_FROM_ONE
        or op == OP_MOVE_OPP
        or op == OP_MOVE_ANY
        or op == OP_MOVE_OWN
    ):
        return lim
    if op == OP_MOVE_OWN_ONE or op == OP_CHOOSE_1A1B:
        king = st[O_KING]
        m = 0
        for s in range(NREG):
            if s != king and st[O_CAB + s * 5 + p] > m:
                m = st[O_CAB + s * 5 + p]
        if op == OP_CHOOSE_1A1B and lim > m:
            m = lim
        return m
    return 1


@njit(inline="always")  # one call site (_special_moves): no compiled level of its own
def do_move(st, T, var, D, p, cls, limit, only_region):
    """Up to ``limit`` single-caballero moves (as many as possible once executed; §6)."""
    opts = D[D_OPTS]
    for _ in range(limit):
        if veto_stop(st):
            return
        n = _move_sources(st, p, cls, only_region, opts)
        if n == 0:
            return
        code = decide(st, T, var, D, np.int64(K_MOVE_SRC), np.int64(p), np.int64(n), np.int64(0))
        n = _move_dsts(st, np.int64(code // 5), opts, np.int64(0))
        d = decide(st, T, var, D, np.int64(K_MOVE_DST), np.int64(p), np.int64(n), np.int64(code))
        primitive(st, T, var, K_MOVE_DST, p, d, code, D[D_SCR])


@njit(inline="always")  # one call site (_special_moves): no compiled level of its own
def do_move_own_opp(st, T, var, D, p, limit):
    """Card 1g: up to ``limit`` own and ``limit`` opponents' caballeros, any order."""
    opts = D[D_OPTS]
    own_left = limit
    opp_left = limit
    while own_left + opp_left > 0:
        if veto_stop(st):
            return
        npl = st[O_NP]
        king = st[O_KING]
        n = 0
        for s in range(NREG):
            if s == king:
                continue
            for c in range(npl):
                if st[O_CAB + s * 5 + c] <= 0:
                    continue
                if (c == p and own_left > 0) or (c != p and opp_left > 0):
                    opts[n] = s * 5 + c
                    n += 1
        if n == 0:
            return
        code = decide(st, T, var, D, np.int64(K_MOVE_SRC), np.int64(p), np.int64(n), np.int64(0))
        if code % 5 == p:
            own_left -= 1
        else:
            opp_left -= 1
        n = _move_dsts(st, np.int64(code // 5), opts, np.int64(0))
        d = decide(st, T, var, D, np.int64(K_MOVE_DST), np.int64(p), np.int64(n), np.int64(code))
        primitive(st, T, var, K_MOVE_DST, p, d, code, D[D_SCR])


@njit(inline="always")  # one call site (_special_moves): no compiled level of its own
def do_move_own_one_region(st, T, var, D, p):
    """Card 1a: all own caballeros of one region are taken out and put anywhere (or back)."""
    opts = D[D_OPTS]
    king = st[O_KING]
    n = 0
    for s in range(NREG):
        if s != king and st[O_CAB + s * 5 + p] > 0:
            opts[n] = s
            n += 1
    if n == 0:
        return
    s = _decide(st, T, var, D, np.int64(K_SRC_REGION), np.int64(p), np.int64(n), np.int64(0))
    k = st[O_CAB + s * 5 + p]
    code = s * 5 + p
    for _ in range(k):
        if veto_stop(st):
            return
        n = _move_dsts(st, np.int64(s), opts, np.int64(1))
        d = decide(st, T, var, D, np.int64(K_MOVE_DST), np.int64(p), np.int64(n), np.int64(code))
        primitive(st, T, var, K_MOVE_DST, p, d, code, D[D_SCR])


@njit(inline="always")  # one call site (_special_moves): no compiled level of its own
def do_place_any(st, T, var, D, p, limit):
    """Card 1b: up to ``limit`` caballeros from court into any region (not the King's) or the
    Castillo (as many as possible once executed)."""
    opts = D[D_OPTS]
    king = st[O_KING]
    for _ in range(limit):
        if veto_stop(st) or st[O_COURT + p] <= 0:
            return
        n = 0
        for t in range(NPLACE):
            if t != king:
                opts[n] = t
                n += 1
        t = _decide(st, T, var, D, np.int64(K_PLACE_ANY), np.int64(p), np.int64(n), np.int64(0))
        primitive(st, T, var, K_PLACE_ANY, p, t, 0, D[D_SCR])


@njit(cache=True, **_INTERNAL)
def do_placement(st, T, var, D, p, limit):
    """Placement step (§3 step 4c): up to ``limit`` caballeros from court into regions adjacent
    to the King's region and/or the Castillo; STOP ends it early."""
    opts = D[D_OPTS]
    for _ in range(limit):
        if st[O_COURT + p] <= 0:
            return
        n = _place_targets(st, T, opts, True)
        t = decide(st, T, var, D, np.int64(K_PLACE), np.int64(p), np.int64(n), np.int64(0))
        if t == STOP:
            return
        primitive(st, T, var, K_PLACE, p, t, 0, D[D_SCR])


@njit(cache=True, **_INTERNAL)
def take_to_court(st, T, var, D, p, want):
    """Court intake of ``want`` caballeros (§3 step 4a, card 4f): province first, then the
    shortfall optionally from own caballeros in regions (not the King's region, not the
    Castillo), one decision per caballero (STOP ends)."""
    opts = D[D_OPTS]
    k = want
    if k > st[O_PROV + p]:
        k = st[O_PROV + p]
    st[O_PROV + p] -= k
    st[O_COURT + p] += k
    short = want - k
    king = st[O_KING]
    for _ in range(short):
        n = 1
        opts[0] = STOP
        for s in range(NREG):
            if s != king and st[O_CAB + s * 5 + p] > 0:
                opts[n] = s
                n += 1
        if n == 1:
            return
        s = decide(st, T, var, D, np.int64(K_SHORT), np.int64(p), np.int64(n), np.int64(0))
        if s == STOP:
            return
        primitive(st, T, var, K_SHORT, p, s, 0, D[D_SCR])


@njit(cache=True, **_INTERNAL)
def court_intake(st, T, var, D, p, want):
    """Court intake at the start of a turn (§3 step 4a, §3.1, A13): one ``K_INTAKE`` decision,
    the number n = 0..m taken, m = min(``want``, province + own caballeros in regions other than
    the King's region; never the Castillo); min(n, province) come from the province, the rest
    one at a time from regions (``K_SHORT``, a region each, no stop). Legacy mode: the old
    maximum intake (``take_to_court``)."""
    if D[D_CTX][C_FLAGS] & FLAG_V1:
        take_to_court(st, T, var, D, p, want)
        return
    opts = D[D_OPTS]
    prov = st[O_PROV + p]
    king = st[O_KING]
    m = prov
    if want > prov:
        for s in range(NREG):
            if s != king:
                m += st[O_CAB + s * 5 + p]
    if m > want:
        m = want
    st[O_IMAX + p] += m
    if m == 0:
        return
    for i in range(m + 1):
        opts[i] = i
    n = decide(st, T, var, D, np.int64(K_INTAKE), np.int64(p), np.int64(m + 1), np.int64(want))
    st[O_ITAKE + p] += n
    k = n if n < prov else prov
    st[O_PROV + p] -= k
    st[O_COURT + p] += k
    for _ in range(n - k):
        cnt = 0
        for s in range(NREG):
            if s != king and st[O_CAB + s * 5 + p] > 0:
                opts[cnt] = s
                cnt += 1
        s = decide(st, T, var, D, np.int64(K_SHORT), np.int64(p), np.int64(cnt), np.int64(0))
        primitive(st, T, var, K_SHORT, p, s, 0, D[D_SCR])


@njit(cache=True, **_INTERNAL)
def secret_regions_with(st, p, minimum, opts):
    """Regions (not the King's) where seat p has >= minimum caballeros."""
    king = st[O_KING]
    n = 0
    for s in range(NREG):
        if s != king and st[O_CAB + s * 5 + p] >= minimum:
            opts[n] = s
            n += 1
    return n


@njit(inline="always")  # one call site: no compiled level of its own
def _special_moves(st, T, var, D, p, op, lim):
    """Deck 1 (§6: 1a-1i): moves and the extra placement of 1b. Each helper has one call site
    (it is inlined here: no compiled level of its own)."""
    opts = D[D_OPTS]
    king = st[O_KING]
    what = op  # OP_MOVE_OWN_ONE (1a), OP_PLACE_ANY (1b), or a do_move card
    if op == OP_CHOOSE_1A1B:
        opts[0] = 0
        opts[1] = 1
        ch = _decide(st, T, var, D, np.int64(K_CHOICE), np.int64(p), np.int64(2), np.int64(0))
        what = OP_MOVE_OWN_ONE if ch == 0 else OP_PLACE_ANY
    if what == OP_MOVE_OWN_ONE:
        do_move_own_one_region(st, T, var, D, p)
    elif what == OP_PLACE_ANY:
        do_place_any(st, T, var, D, p, lim)
    elif what == OP_MOVE_OWN_OPP:
        do_move_own_opp(st, T, var, D, p, lim)
    elif what >= OP_MOVE_FROM_ONE:  # 1d-1f, 1h, 1i
        cls = np.int64(0)  # OP_MOVE_OWN
        only = np.int64(-1)
        if what == OP_MOVE_OPP:
            cls = np.int64(1)
        elif what == OP_MOVE_ANY:
            cls = np.int64(2)
        elif what == OP_MOVE_FROM_ONE:
            cls = np.int64(2)
            n = 0
            for s in range(NREG):
                if s != king and total_in(st, s) > 0:
                    opts[n] = s
                    n += 1
            if n == 0:
                return
            only = np.int64(
                _decide(
                    st, T, var, D, np.int64(K_SRC_REGION), np.int64(p), np.int64(n), np.int64(1)
                )
            )
        do_move(st, T, var, D, p, cls, lim, only)


@njit(inline="always")  # one call site: no compiled level of its own
def _special_opponents(st, T, var, D, p, op, lim):
    """Deck 2 actions against the opponents (§6: 2b-2g), one step per opponent from the
    actor's left (partial Veto) except the secret choices of 2f/2g."""
    opts = D[D_OPTS]
    npl = st[O_NP]
    king = st[O_KING]
    if op == OP_DECAY_ALL or op == OP_DECAY_N:
        for j in range(1, npl):  # one step per opponent from the left (partial Veto)
            if veto_stop(st):
                return
            q = (p + j) % npl
            k = st[O_COURT + q]
            if op == OP_DECAY_N and k > lim:
                k = lim
            st[O_PROV + q] += k
            st[O_COURT + q] -= k
    elif op == OP_ANGRY:
        for j in range(1, npl):
            if veto_stop(st):
                return
            q = (p + j) % npl
            for _ in range(lim):
                n = 0
                if st[O_COURT + q] > 0:
                    opts[n] = STOP
                    n += 1
                for s in range(NREG):
                    if s != king and st[O_CAB + s * 5 + q] > 0:
                        opts[n] = s
                        n += 1
                if n == 0:
                    break
                v = _decide(st, T, var, D, np.int64(K_ANGRY), np.int64(q), np.int64(n), np.int64(0))
                primitive(st, T, var, K_ANGRY, q, v, 0, D[D_SCR])
    elif op == OP_REMOVE_EACH:
        for j in range(1, npl):
            if veto_stop(st):
                return
            q = (p + j) % npl
            n = secret_regions_with(st, np.int64(q), np.int64(1), opts)
            if n == 0:
                continue
            v = _decide(st, T, var, D, np.int64(K_REMOVE1), np.int64(p), np.int64(n), np.int64(q))
            primitive(st, T, var, K_REMOVE1, p, v, q, D[D_SCR])
    elif op == OP_SECRET_REM2 or op == OP_SECRET_REMALL:
        choice = _no_choices(D[D_SCR])
        for j in range(1, npl):
            q = (p + j) % npl
            n = 0
            if op == OP_SECRET_REM2:
                n = secret_regions_with(st, np.int64(q), np.int64(2), opts)
            if n == 0:
                n = secret_regions_with(st, np.int64(q), np.int64(1), opts)
            if n == 0:
                continue
            choice[q] = _decide(
                st, T, var, D, np.int64(K_SECRET_REM), np.int64(q), np.int64(n), np.int64(lim)
            )
        for q in range(npl):
            if choice[q] >= 0:
                primitive(st, T, var, K_SECRET_REM, q, choice[q], lim, D[D_SCR])


@njit(inline="always")  # one call site: no compiled level of its own
def _special_scorings(st, T, var, D, p, c, op):
    """Special scorings (§6: 2h, 3a-3h, 4g)."""
    opts = D[D_OPTS]
    npl = st[O_NP]
    if op == OP_SCORE_CHOICE:
        for t in range(NPLACE):
            opts[t] = t
        v = _decide(
            st, T, var, D, np.int64(K_SCORE_REGION), np.int64(p), np.int64(NPLACE), np.int64(0)
        )
        special_scoring(
            st,
            T,
            var,
            np.int64(op),
            np.int64(v),
            np.int64(0),
            np.int64(1),
            D[D_SCR][R_OUT],
            D[D_SCR],
        )
        _event(st, D, np.int64(200 + c), np.int64(v))
    elif op >= OP_SCORE_CLASS and op <= OP_SCORE_FEWEST:
        special_scoring(
            st,
            T,
            var,
            np.int64(op),
            np.int64(0),
            np.int64(T[T_CCLS + c]),
            np.int64(1),
            D[D_SCR][R_OUT],
            D[D_SCR],
        )
        _event(st, D, np.int64(200 + c), np.int64(-1))
    elif op == OP_SECRET_SCORE:
        choice = _no_choices(D[D_SCR])
        for j in range(npl):
            q = (p + j) % npl
            for t in range(NREG):
                opts[t] = t
            choice[q] = _decide(
                st, T, var, D, np.int64(K_SECRET_SCORE), np.int64(q), np.int64(NREG), np.int64(0)
            )
        out = D[D_SCR][R_OUT]
        for j in range(npl):
            q = (p + j) % npl
            k = 0
            for q2 in range(npl):
                if choice[q2] == choice[q]:
                    k += 1
            if k == 1:
                score_place(st, T, var, choice[q], False, SRC_SPECIAL, True, out)
                _event(st, D, np.int64(200 + c), np.int64(choice[q]))


@njit(inline="always")  # one call site: no compiled level of its own
def _special_board(st, T, var, D, p, op, lim):
    """Actions on the board's pieces (§6: 4a-4f and the King's card)."""
    opts = D[D_OPTS]
    npl = st[O_NP]
    king = st[O_KING]
    if op == OP_BOARD:
        n = 0
        for b in range(2):
            cur = st[O_BOARD + b]
            if cur == king:
                continue
            other = st[O_BOARD + 1 - b]
            for t in range(NPLACE):
                if t != king and t != cur and t != other:
                    opts[n] = b * 10 + t
                    n += 1
        if n > 0:
            v = _decide(st, T, var, D, np.int64(K_BOARD), np.int64(p), np.int64(n), np.int64(0))
            primitive(st, T, var, K_BOARD, p, v, 0, D[D_SCR])
    elif op == OP_ADVISOR:
        adj = T[T_ADJ + king]
        n = 0
        for t in range(NREG):
            if ((adj >> t) & 1) == 1:
                opts[n] = t
                n += 1
        v = _decide(st, T, var, D, np.int64(K_KING_TO), np.int64(p), np.int64(n), np.int64(0))
        primitive(st, T, var, K_KING_TO, p, v, 0, D[D_SCR])
    elif op == OP_KING:
        for t in range(NREG):
            opts[t] = t
        v = _decide(st, T, var, D, np.int64(K_KING_TO), np.int64(p), np.int64(NREG), np.int64(0))
        primitive(st, T, var, K_KING_TO, p, v, 0, D[D_SCR])
    elif op == OP_EVICT:
        n = 0
        for s in range(NREG):
            if s != king:
                opts[n] = s
                n += 1
        r = _decide(st, T, var, D, np.int64(K_EVICT_REGION), np.int64(p), np.int64(n), np.int64(0))
        choice = _no_choices(D[D_SCR])
        for j in range(1, npl):
            q = (p + j) % npl
            if st[O_CAB + r * 5 + q] == 0:
                continue
            n = 0
            for s in range(NREG):
                if s != r:
                    opts[n] = s
                    n += 1
            choice[q] = _decide(
                st, T, var, D, np.int64(K_EVICT_DST), np.int64(q), np.int64(n), np.int64(r)
            )
        for q in range(npl):
            if choice[q] >= 0:
                primitive(st, T, var, K_EVICT_DST, q, choice[q], r, D[D_SCR])
    elif op == OP_GRANDE:
        g = st[O_GRANDE + p]
        if g != king:
            n = 0
            for s in range(NREG):
                if s != king and s != g:
                    opts[n] = s
                    n += 1
            v = _decide(st, T, var, D, np.int64(K_GRANDE_TO), np.int64(p), np.int64(n), np.int64(0))
            primitive(st, T, var, K_GRANDE_TO, p, v, 0, D[D_SCR])
    elif op == OP_POWERBACK:
        n = 0
        for v in range(1, 14):
            if ((st[O_HAND + p] >> v) & 1) == 0:
                opts[n] = v
                n += 1
        if n > 0:
            v = _decide(st, T, var, D, np.int64(K_POWERBACK), np.int64(p), np.int64(n), np.int64(0))
            primitive(st, T, var, K_POWERBACK, p, v, 0, D[D_SCR])
    elif op == OP_COURT:
        take_to_court(st, T, var, D, p, lim)


def special_action(st, T, var, D, p, c):
    """Optional special action with the Veto check (§6 deck 2 Veto, A2): holders clockwise
    from the actor's left are asked ``K_VETO`` until one vetoes; he discards his Veto and, for a
    multi-step action, chooses the cut ``K_VETO_CUT`` (steps allowed before the cancel).
    Compiled by ``special_function`` (``SPECIAL_SIG``); the engine calls it through
    ``G[G_SPECIAL]``."""
    opts = D[D_OPTS]
    npl = st[O_NP]
    op = T[T_COP + c]
    if op == OP_VETO:
        return  # taking the card is its action: the holder keeps it (see engine)
    opts[0] = 0
    opts[1] = 1
    ex = decide(st, T, var, D, np.int64(K_EXEC), np.int64(p), np.int64(2), np.int64(c))
    if ex == 0:
        return
    cut = -1
    if var[V_VETO] == 0:
        for j in range(1, npl):
            h = (p + j) % npl
            asked = False
            for k in range(2):
                if st[O_VETO_HOLDER + k] == h:
                    asked = True
                    opts[0] = 0
                    opts[1] = 1
                    v = _decide(
                        st,
                        T,
                        var,
                        D,
                        np.int64(K_VETO),
                        np.int64(h),
                        np.int64(2),
                        np.int64(p * 64 + c),
                    )
                    if v == 1:
                        st[O_VETO_HOLDER + k] = -1
                        st[O_VETO_EXP + k] = 0
                        cut = 0
                        if (D[D_CTX][C_FLAGS] & FLAG_V1) == 0:
                            n = nominal_steps(st, T, p, c)
                            if n > 1:
                                for i in range(n):
                                    opts[i] = i
                                cut = _decide(
                                    st,
                                    T,
                                    var,
                                    D,
                                    np.int64(K_VETO_CUT),
                                    np.int64(h),
                                    np.int64(n),
                                    np.int64(p * 64 + c),
                                )
                    break
            if asked and cut >= 0:
                break
    if cut == 0:
        st[O_VCOUNT] += 1
        return
    if cut > 0:
        st[O_VCOUNT + 1] += 1
        st[O_VPEND] = 1
        st[O_VCUT] = cut
    # the action, by group of cards (§6; not a function of its own: compile time)
    lim = np.int64(T[T_CARG + c])
    if op <= OP_MOVE_OWN:
        _special_moves(st, T, var, D, p, op, lim)
    elif op >= OP_DECAY_ALL and op <= OP_SECRET_REMALL:
        _special_opponents(st, T, var, D, p, op, lim)
    elif (op >= OP_SCORE_CHOICE and op <= OP_SCORE_FEWEST) or op == OP_SECRET_SCORE:
        _special_scorings(st, T, var, D, p, c, op)
    else:
        _special_board(st, T, var, D, p, op, lim)
    st[O_VPEND] = 0


@njit(cache=True, **_INTERNAL)
def general_scoring(st, T, var, D):
    """General scoring (§5): secret Castillo discs, Castillo, discs revealed, nine regions."""
    opts = D[D_OPTS]
    npl = st[O_NP]
    choice = _no_choices(D[D_SCR])
    for q in range(npl):
        if st[O_CAB + CASTILLO * 5 + q] > 0:
            for t in range(NREG):
                opts[t] = t
            choice[q] = _decide(
                st, T, var, D, np.int64(K_DISC), np.int64(q), np.int64(NREG), np.int64(0)
            )
    score_place(st, T, var, CASTILLO, False, SRC_GENERAL, True, D[D_SCR][R_OUT])
    for q in range(npl):
        if choice[q] >= 0:
            primitive(st, T, var, K_DISC, q, choice[q], 0, D[D_SCR])
    general_scoring_regions(st, T, var, D[D_SCR])
    _event(st, D, np.int64(100 + st[O_ROUND]), np.int64(-1))


@njit(cache=True)
def setup(st, T, var, npl, deal, fixed):
    """Initial position (§2) from the deal generator ``deal`` (uint64[4]).

    ``fixed`` int32[FIXED_SIZE]: if ``fixed[F_GIVEN] == 1`` the King's region (``F_KING``), home
    regions (``F_HOMES``, 5), start seat (``F_START``) and deck orders (``F_DECKS``, 44) are
    taken from it instead of the deal; the setup used is always written back into it. With
    ``veto=off`` (``var[V_VETO] == 1``) the two Veto cards leave the game (A2): they go below the
    nine cards of deck 2 that the rounds reveal (the same shuffle, the other cards' order kept).
    """
    for i in range(STATE_SIZE):
        st[i] = 0
    st[O_NP] = npl
    # the permutations are drawn in ``st[O_TAKER ..]`` (set at the end): no allocation here
    perm = st[O_TAKER : O_TAKER + NREG]
    for i in range(NREG):
        perm[i] = i
    shuffle(deal, perm)
    st[O_KING] = perm[0]
    for p in range(npl):
        home = perm[1 + p]
        st[O_GRANDE + p] = home
        st[O_CAB + home * 5 + p] = T[T_HOME]
        st[O_COURT + p] = T[T_COURT0]
        st[O_PROV + p] = T[T_PROV0]
        st[O_HAND + p] = 0x3FFE
    for p in range(npl, MAXP):
        st[O_GRANDE + p] = -1
    st[O_BOARD] = -1
    st[O_BOARD + 1] = -1
    st[O_VETO_HOLDER] = -1
    st[O_VETO_HOLDER + 1] = -1
    for d in range(4):
        cards = st[O_TAKER + NREG : O_TAKER + NREG + 11]
        for i in range(11):
            cards[i] = T[T_DECKSTART + d] + i
        shuffle(deal, cards)
        k = 0
        if var[V_VETO] == 1:  # veto=off: the Vetoes leave the game (A2), below the last card dealt
            for i in range(11):
                if T[T_COP + cards[i]] != OP_VETO:
                    st[O_DECK + d * 11 + k] = cards[i]
                    k += 1
        for i in range(11):
            if var[V_VETO] == 0 or T[T_COP + cards[i]] == OP_VETO:
                st[O_DECK + d * 11 + k] = cards[i]
                k += 1
    st[O_START] = randint(deal, npl)
    if fixed[F_GIVEN] == 1:
        st[O_KING] = fixed[F_KING]
        for p in range(npl):
            st[O_CAB + st[O_GRANDE + p] * 5 + p] = 0
        for p in range(npl):
            st[O_GRANDE + p] = fixed[F_HOMES + p]
            st[O_CAB + fixed[F_HOMES + p] * 5 + p] = T[T_HOME]
        st[O_START] = fixed[F_START]
        for k in range(44):
            st[O_DECK + k] = fixed[F_DECKS + k]
    fixed[F_KING] = st[O_KING]
    for p in range(MAXP):
        fixed[F_HOMES + p] = st[O_GRANDE + p]
    fixed[F_START] = st[O_START]
    for k in range(44):
        fixed[F_DECKS + k] = st[O_DECK + k]
    for c in range(45):
        st[O_TAKER + c] = -1
    for r in range(9):
        st[O_KINGBY + r] = -1
    for i in range(5):
        st[O_FACE + i] = -1


# Numba's reference counting (atomic NRT_incref/NRT_decref on every array passed through the
# helpers, D's arrays included) was about 40% of the time of random play and 25% of heuristic
# play, with small allocations (look-ahead copies, point vectors) another 5%; the refcount
# pruning pass cannot remove them across the branches (numba/numba#2345, #2350). The rounds
# allocate nothing (scratch rows in D[D_SCR]), so they are compiled without NRT (``_nrt=False``,
# the workaround in those issues). Everything
# they call must not allocate (a compile error says so if it does).
STEP_PLACEMENT = 0
STEP_SPECIAL = 1
STEP_GENERAL_SCORING = 2
STEP_COURT_INTAKE = 3
STEP_ROUND = 4
STEP_GAMES = 5

# game buffers G (a tuple, ``game_buffers``): what ``engine`` needs to play whole games
G_SEEDS = 0  # uint64[2, 4]: [0, 0] the root seed; row 1 the deal stream of the game being set up
G_FIXED = 1  # int32[FIXED_SIZE]: setup override / setup used (``setup``)
# G[2:12]: the ten result arrays of ``play_batch`` (score, src, plies, pwr, taker, takeround,
# kingby, unplayed, intake, vetoes), one row per game of the call
G_SPECIAL = 12  # ``special_action`` compiled on its own (``special_function``)


@njit(cache=True, _nrt=False)
def engine(st, T, var, D, G, what, seat, a, b):
    """The engine's one compiled entry (int64 ``what``, ``seat``, ``a``, ``b``), called from
    Python (``play_batch``, ``run_logged``, ``step``) and by the search (``_mcts_games``):

    * ``what == STEP_GAMES``: games ``a .. a + b - 1`` of a batch of ``seat`` players, each set
      up from (root seed ``G[G_SEEDS][0, 0]``, game index; ``G[G_FIXED]`` as in ``setup``),
      played to the end and written to rows ``0 .. b - 1`` of ``G``'s result arrays (``D``'s
      mode, flags and capacities set by the caller);
    * ``what == STEP_ROUND``: rounds ``a .. b`` of the game in ``st``;
    * otherwise one piece of a turn (see ``step``; ``a`` is its argument).

    One function that Python calls directly, so that play, records, replays, search and the
    tests share one compiled engine and no compiled level above it optimises it again (compile
    time, issue 13 §5)."""
    if what == STEP_PLACEMENT:
        do_placement(st, T, var, D, seat, a)
        return
    if what == STEP_SPECIAL:
        G[G_SPECIAL](st, T, var, D, seat, a)
        return
    if what == STEP_GENERAL_SCORING:
        general_scoring(st, T, var, D)
        return
    if what == STEP_COURT_INTAKE:
        court_intake(st, T, var, D, seat, a)
        return
    ctx = D[D_CTX]
    opts = D[D_OPTS]
    n_games = b if what == STEP_GAMES else np.int64(1)
    first = a
    last = b
    for g in range(n_games):
        if what == STEP_GAMES:
            if ctx[C_MODE] == MODE_PLAY:
                G[G_FIXED][F_GIVEN] = 0
            ctx[C_PTR] = 0
            ctx[C_EVPTR] = 0
            start_game(st, T, var, D, G, seat, a + g)
            first = np.int64(1)
            last = np.int64(9)
        # rounds ``first .. last`` (those the variant plays; §3: reveal, bid, turns, end of
        # round) of a game whose state ``st`` is at the start of round ``first``. In
        # ``MODE_SEARCH`` the state at a round start is kept (``R_CKPT``) when every forced
        # decision is used, and a stopped run returns after the turn it stopped in (see
        # ``_decide_driven``). The round body is written here, not in a function of its own:
        # every compiled level re-optimises all the code below it.
        for r in range(first, last + 1):
            if var[V_ROUNDS] == 1 and (r == 1 or r == 4 or r == 7):
                continue
            npl = st[O_NP]
            if ctx[C_MODE] == MODE_SEARCH and ctx[C_STOPPED] == 0 and ctx[C_PTR] >= ctx[C_NREAL]:
                _copy_state(st, D[D_SCR][R_CKPT])
                ctx[C_CKR] = r
                ctx[C_CKPTR] = ctx[C_PTR]
            st[O_ROUND] = r
            for d in range(4):
                st[O_FACE + d] = st[O_DECK + d * 11 + st[O_DECKPTR + d]]
                st[O_DECKPTR + d] += 1
            st[O_FACE + 4] = KING_CARD
            # bidding
            used = 0
            for p in range(npl):
                st[O_PLAYED + p] = 0
            for j in range(npl):
                p = (st[O_START] + j) % npl
                n = 0
                for v in range(1, 14):
                    if ((st[O_HAND + p] >> v) & 1) == 1 and ((used >> v) & 1) == 0:
                        opts[n] = v
                        n += 1
                v = decide(st, T, var, D, np.int64(K_POWER), np.int64(p), np.int64(n), np.int64(0))
                used |= 1 << v
                st[O_HAND + p] &= ~(1 << v)
                st[O_PLAYED + p] = v
                st[O_PWR + (r - 1) * 5 + p] = v
            # turn order: descending power value
            k = 0
            for v in range(13, 0, -1):
                for p in range(npl):
                    if st[O_PLAYED + p] == v:
                        st[O_ORDER + k] = p
                        k += 1
            for j in range(npl):
                p = np.int64(st[O_ORDER + j])
                court_intake(st, T, var, D, p, np.int64(T[T_PCAB + st[O_PLAYED + p]]))
                n = 0
                for i in range(5):
                    if st[O_FACE + i] >= 0:
                        opts[n] = st[O_FACE + i]
                        n += 1
                c = np.int64(
                    decide(st, T, var, D, np.int64(K_CARD), np.int64(p), np.int64(n), np.int64(0))
                )
                for i in range(5):
                    if st[O_FACE + i] == c:
                        st[O_FACE + i] = -1
                if c == KING_CARD:
                    st[O_KINGBY + r - 1] = p
                else:
                    st[O_TAKER + c] = p
                    st[O_TAKEROUND + c] = r
                op = T[T_COP + c]
                if op == OP_VETO:
                    for k2 in range(2):
                        if st[O_VETO_HOLDER + k2] < 0:
                            st[O_VETO_HOLDER + k2] = p
                            nxt = r + 1
                            if var[V_ROUNDS] == 1 and (nxt == 4 or nxt == 7):
                                nxt += 1
                            st[O_VETO_EXP + k2] = nxt
                            break
                opts[0] = 0
                opts[1] = 1
                order = decide(
                    st, T, var, D, np.int64(K_ORDER), np.int64(p), np.int64(2), np.int64(op)
                )
                lim = np.int64(T[T_CDECK + c])
                for phase in range(2):  # one call site each (compile time)
                    if (phase == 0) == (order == 0):
                        do_placement(st, T, var, D, p, lim)
                    else:
                        G[G_SPECIAL](st, T, var, D, p, c)
                if ctx[C_STOPPED] != 0:
                    return
            st[O_START] = st[O_ORDER + npl - 1]
            st[O_LAST] = st[O_START]
            for i in range(5):
                st[O_FACE + i] = -1
            for k2 in range(2):
                if st[O_VETO_HOLDER + k2] >= 0 and st[O_VETO_EXP + k2] <= r:
                    st[O_VETO_HOLDER + k2] = -1
                    st[O_VETO_EXP + k2] = 0
            if r == 3 or r == 6 or r == 9:
                general_scoring(st, T, var, D)
            if ctx[C_STOPPED] != 0:  # a driven run stopped at a Castillo disc
                return
        if what == STEP_GAMES:
            _collect_game(st, ctx[C_PTR], g, G)


@njit(inline="always")
def start_game(st, T, var, D, G, npl, game_index):
    """Seed the seats' policy streams (``D[D_RNG]``) and set up game ``game_index`` in ``st``
    (§2) from the root seed ``G[G_SEEDS][0, 0]`` (deal stream in ``G[G_SEEDS][1]``)."""
    seeds = G[G_SEEDS]
    root = seeds[0, 0]
    gi = np.uint64(game_index)
    rng = D[D_RNG]
    for p in range(MAXP):
        seed_state(rng[p], game_seed(root, gi, np.uint64(STREAM_POLICY + p)))
    deal = seeds[1]
    seed_state(deal, game_seed(root, gi, np.uint64(STREAM_DEAL)))
    setup(st, T, var, npl, deal, G[G_FIXED])


def _gc_paused(fn):
    """``fn`` with Python's cyclic garbage collector paused during the call. A call that
    compiles the kernels spends about 15% of its CPU time in the collector scanning Numba's
    compiler objects, which it cannot free while the compile runs (El Grande, 2026-12-01:
    17.1 -> 14.5 s, peak memory 400 -> 580 MB; the garbage goes at the next collection). Warm
    calls allocate no Python objects, so the pause changes nothing for them."""

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()

    return call


def make_buffers(log_cap, ev_cap, n_params, heuristic=True):
    """Decision buffers ``D`` (NumPy; see ``_decide_any``): ``log`` int32[log_cap, 4], events
    int32[ev_cap, 8], ``n_params`` policy parameters per seat, mode ``MODE_PLAY``; the heuristic
    in ``D[D_HEUR]`` if ``heuristic`` (else a stub: no seat may ask it)."""
    ctx = np.zeros(C_SIZE, dtype=np.int64)
    ctx[C_ERR] = -1
    ctx[C_LOGCAP] = log_cap
    ctx[C_EVCAP] = ev_cap
    return (
        np.zeros(MAXP, dtype=np.int64),
        np.zeros((MAXP, n_params), dtype=np.float64),
        np.zeros((MAXP, 4), dtype=np.uint64),
        np.zeros((log_cap, 4), dtype=np.int32),
        ctx,
        np.zeros(64, dtype=np.int32),
        np.zeros(64, dtype=np.int32),
        np.zeros((ev_cap, 8), dtype=np.int32),
        np.zeros((N_SCRATCH, STATE_SIZE), dtype=np.int32),
        policy_function(heuristic),
    )


def game_buffers(n_games, npl, root_seed, fixed):
    """Game buffers ``G`` (NumPy; see ``G_*``) for ``n_games`` games of ``npl`` players: the
    root seed (uint64), ``fixed`` int32[FIXED_SIZE] (``setup``) and the ten result arrays of
    ``play_batch`` (initial values)."""
    seeds = np.zeros((2, 4), dtype=np.uint64)
    seeds[0, 0] = np.uint64(root_seed)
    return (
        seeds,
        fixed,
        np.zeros((n_games, npl), dtype=np.int32),
        np.zeros((n_games, npl, 5), dtype=np.int32),
        np.zeros(n_games, dtype=np.int32),
        np.zeros((n_games, 9, npl), dtype=np.int8),
        np.full((n_games, 45), -1, dtype=np.int8),
        np.zeros((n_games, 45), dtype=np.int8),
        np.full((n_games, 9), -1, dtype=np.int8),
        np.zeros((n_games, npl), dtype=np.int32),
        np.zeros((n_games, npl, 2), dtype=np.int32),
        np.zeros((n_games, 2), dtype=np.int32),
        special_function(),
    )


def play_batch(first_game_index, n_games, root_seed, npl, policy_ids, policy_params, var, T):
    """Play ``n_games`` games; game i depends only on (root_seed, first_game_index + i).

    Parameters
    ----------
    first_game_index, n_games : int
    root_seed : uint64
    npl : int
        Players 2..5.
    policy_ids : int64[npl]
        ``POL_RANDOM`` or ``POL_HEURISTIC`` per seat.
    policy_params : float64[npl, n_params]
    var : int64[n_variants]
        Variant codes (``V_*``).
    T : int32[T_SIZE]
        Component tables (``T_*``).

    Returns
    -------
    score : int32[n_games, npl]
        Final points.
    src : int32[n_games, npl, 5]
        Points by source ``SRC_*``.
    plies : int32[n_games]
        Decisions made.
    pwr : int8[n_games, 9, npl]
        Power card value per round (0 = round not played).
    taker : int8[n_games, 45]
        Seat that took each action card (-1 never); the King's card column is unused.
    takeround : int8[n_games, 45]
        Round in which the card was taken (0 never).
    kingby : int8[n_games, 9]
        Seat that took the King's card per round (-1 round not played).
    unplayed : int32[n_games, npl]
        Sum of power values still in hand at the end (tie-break variant, A6).
    intake : int32[n_games, npl, 2]
        Caballeros taken at the court intakes (§3 step 4a) and the most that could have been taken.
    vetoes : int32[n_games, 2]
        Vetoes used with cut 0 (the whole action) and with a cut k >= 1 (its remaining part, §6 2a).

    Notes
    -----
    Allocates the buffers and calls the compiled ``engine`` (``STEP_GAMES``; the entry shared
    with ``run_logged``, ``step`` and the search); the caller validates all inputs.
    """
    r = _play(
        first_game_index,
        n_games,
        root_seed,
        npl,
        policy_ids,
        policy_params,
        var,
        T,
        MODE_PLAY,
        np.zeros((1, 4), np.int32),
        np.zeros((1, 8), np.int32),
        np.zeros(FIXED_SIZE, np.int32),
    )
    return r[:10]


def run_logged(
    root_seed,
    game_index,
    npl,
    policy_ids,
    policy_params,
    var,
    T,
    mode,
    log,
    ev,
    fixed,
    legacy=False,
):
    """Play one game in record (mode 1) or replay (mode 2) mode (mode 0: plain play).

    ``fixed`` int32[FIXED_SIZE]: setup override / setup used (see ``setup``).
    ``legacy``: the rules of format-1 records (``FLAG_V1``: maximum intake, whole-action Veto).
    ``log`` int32[L, 4]: decisions (written in record mode, read in replay mode);
    ``ev`` int32[E, 8]: scoring events (ply, code, arg, score_0..4).
    Returns (st int32[STATE_SIZE], n_decisions, n_events, err_ply (-1 none), errbuf int32[64],
    n_err_options).
    """
    r = _play(
        game_index,
        1,
        root_seed,
        npl,
        policy_ids,
        policy_params,
        var,
        T,
        mode + 4 * FLAG_V1 * bool(legacy),
        log,
        ev,
        fixed,
    )
    st, ctx, eb = r[10], r[11], r[12]
    return st, int(ctx[C_PTR]), int(ctx[C_EVPTR]), int(ctx[C_ERR]), eb, int(ctx[C_NERR])


@_gc_paused
def _play(
    first_game_index,
    n_games,
    root_seed,
    npl,
    policy_ids,
    policy_params,
    var,
    T,
    mode,
    log,
    ev,
    fixed,
):
    """The batch behind ``play_batch`` and ``run_logged``: buffers allocated here (NumPy), the
    games played by ``engine`` (``STEP_GAMES``). ``mode``: ``MODE_*`` + 4 x ``FLAG_*`` bits.
    Returns ``play_batch``'s ten arrays plus the last state, ctx and the error buffer."""
    policy_params = np.ascontiguousarray(policy_params, dtype=np.float64)
    policy_ids = np.asarray(policy_ids, dtype=np.int64)[:npl]
    heuristic = mode % 4 != MODE_REPLAY and bool(np.any(policy_ids != POL_RANDOM))
    D = make_buffers(1, 1, policy_params.shape[1], heuristic)
    D = D[:D_LOG] + (log,) + D[D_LOG + 1 : D_EV] + (ev,) + D[D_EV + 1 :]
    D[D_POL][:npl] = policy_ids
    D[D_PAR][:npl] = policy_params[:npl]
    ctx = D[D_CTX]
    ctx[C_FLAGS] = mode // 4
    mode = mode % 4
    ctx[C_MODE] = mode
    ctx[C_LOGCAP] = 0 if mode == MODE_PLAY else log.shape[0]
    ctx[C_EVCAP] = 0 if mode == MODE_PLAY else ev.shape[0]
    G = game_buffers(n_games, npl, root_seed, fixed)
    st = np.zeros(STATE_SIZE, dtype=np.int32)
    engine(
        st,
        T,
        np.ascontiguousarray(var, dtype=np.int64),
        D,
        G,
        np.int64(STEP_GAMES),
        np.int64(npl),
        np.int64(first_game_index),
        np.int64(n_games),
    )
    return G[2:12] + (st, ctx, D[D_ERRBUF])


@njit(cache=True, **_INTERNAL)
def _collect_game(st, n_decisions, g, G):
    """Write game ``g``'s results from its final state into ``G``'s result arrays."""
    score, src, plies, pwr, taker, takeround, kingby, unplayed, intake, vetoes = G[2:12]
    npl = score.shape[1]
    plies[g] = n_decisions
    for p in range(npl):
        score[g, p] = st[O_SCORE + p]
        for s in range(5):
            src[g, p, s] = st[O_SRC + p * 5 + s]
        for r in range(9):
            pwr[g, r, p] = st[O_PWR + r * 5 + p]
        u = 0
        for v in range(1, 14):
            if ((st[O_HAND + p] >> v) & 1) == 1:
                u += v
        unplayed[g, p] = u
        intake[g, p, 0] = st[O_ITAKE + p]
        intake[g, p, 1] = st[O_IMAX + p]
    vetoes[g, 0] = st[O_VCOUNT]
    vetoes[g, 1] = st[O_VCOUNT + 1]
    for c in range(45):
        taker[g, c] = st[O_TAKER + c]
        takeround[g, c] = st[O_TAKEROUND + c]
    for r in range(9):
        kingby[g, r] = st[O_KINGBY + r]


_NO_GAMES = []  # ``G`` of single steps (made on first use: it compiles ``special_action``)


@_gc_paused
def step(st, T, var, D, what, seat, arg):
    """One engine piece on ``st`` (tests, examples): ``engine(st, T, var, D, G, what, seat, arg,
    arg)`` with int64 arguments, the compiled code that ``play_batch`` runs (no other entry
    kernel to compile). ``what``: ``STEP_PLACEMENT`` (placement of up to ``arg`` caballeros by
    ``seat``), ``STEP_SPECIAL`` (special action of card ``arg`` by ``seat``, with the Veto
    check), ``STEP_GENERAL_SCORING``, ``STEP_COURT_INTAKE`` (intake of up to ``arg`` caballeros
    by ``seat``), ``STEP_ROUND`` (round ``arg``; nothing in a round the variant skips)."""
    if not _NO_GAMES:
        _NO_GAMES.append(game_buffers(0, 1, 0, np.zeros(FIXED_SIZE, np.int32)))
    a = np.int64(arg)
    engine(st, T, var, D, _NO_GAMES[0], np.int64(what), np.int64(seat), a, a)


# =============================================================================================
# Search (the ``mcts`` policy; issue 15): ISMCTS by ``kernels.search`` over driven replays
# =============================================================================================
# The engine decides inline (``decide`` deep inside ``engine``), so a position between two
# decisions cannot be copied. A search state is instead a round start plus the decisions made
# since then: the engine replays them (``MODE_SEARCH``, ``_decide_driven``) and stops at the
# next searched decision (``game_legal``) or plays on with the rollout policy (``game_rollout``).
# Replaying forced decisions costs little next to a rollout (no policy runs). The tree holds the
# searching seat's own decisions only (one tree per information set): the other seats, and the
# searching seat's unsearched single steps (``SCOPE_KEY``), play the rollout policy also inside
# the tree, with random streams seeded per iteration so that every replay of an iteration
# repeats them. The game itself is played the same way (``_drive_game``): from the last round
# start, the policies' decisions logged, stopping at each searched decision of an mcts seat.
#
# Search state ``int32[S_ROWS, STATE_SIZE]``: row 0 the state at the round start (``S_CKPT``)
# with the unrevealed deck cards in card order (hidden), row ``S_HEAD`` the header ``H_*``,
# rows ``S_PREFIX ..`` the values of the decisions since the round start (``RESAMPLE`` for the
# other seats' secret choices of the group being decided: hidden). ``search_root`` builds it
# from what the deciding seat has seen only, so its decision cannot depend on the hidden part.
#
# What the deciding seat cannot see (rules §10 A5; docs/rules/el_grande.md): the order of the
# unrevealed action cards of decks 1-4 (resampled by ``game_determinize``), the other seats'
# secret choices not yet revealed (Castillo discs §5, cards 2f/2g, 4c destinations, 4g; chosen
# by the rollout policy in each iteration). Power cards in hand are public (13 minus the played
# ones, §3); the Castillo's contents are public (A5); the other seats' future choices are
# played by the rollout policy.
S_CKPT = 0
S_HEAD = 1
S_PREFIX = 2
S_ROWS = 6
PREFIX_CAP = (S_ROWS - S_PREFIX) * STATE_SIZE
H_R0 = 0  # round of the start state
H_NREAL = 1  # decisions since the round start (prefix)
H_NTREE = 2  # tree moves applied (codes kind * 64 + value)
H_SEAT = 3  # the searching seat
H_SEED0 = 4  # per-iteration seed of the replays' policy streams (two 31-bit halves)
H_SEED1 = 5
H_TREE = 8  # tree moves
TREE_CAP = 256  # deepest tree path (moves)
N_MOVE_CODES = N_KINDS * 64

# mcts parameters (mcsim.games.el_grande MCTS_PARAMS order)
M_ITER = 0
M_C = 1
M_REWARD = 2  # search.REWARD_WIN / REWARD_MARGIN
M_ROLLOUT = 3  # POL_RANDOM / POL_HEURISTIC (default heuristic weights) for every seat
M_SCOPE = 4  # SCOPE_*
M_HORIZON = 5  # rounds after the current one the rollouts play (0: to the end)
N_MPARAMS = 6
M_FLAT = 6  # benchmarks only (a 7th column): != 0 runs ``search.flat`` instead of the tree
#: points per reward unit for ``reward = margin``
MARGIN_SCALE = 20.0
# search config (ctx[4], int64)
CF_ROLLOUT = 0
CF_SCOPE = 1
CF_HORIZON = 2
N_CF = 3

# secret decisions (hidden from the other seats until the group is revealed)


@njit(cache=True, inline="always")
def _secret_kind(kind):
    return kind == K_DISC or kind == K_SECRET_REM or kind == K_EVICT_DST or kind == K_SECRET_SCORE


@njit(cache=True, **_INTERNAL)
def _unrevealed(ck, T, var, d, pos):
    """Positions in deck ``d`` of the cards not revealed by the start of round ck[O_ROUND]+1's
    reveal ... i.e. after the reveal of the round starting at state ``ck`` (positions ``>
    O_DECKPTR``), without the Vetoes with ``veto=off`` (out of the game, known to stay at the
    bottom); written into ``pos``, count returned."""
    n = 0
    for k in range(ck[O_DECKPTR + d] + 1, 11):
        c = ck[O_DECK + d * 11 + k]
        if var[V_VETO] == 1 and T[T_COP + c] == OP_VETO:
            continue
        pos[n] = k
        n += 1
    return n


@njit(cache=True)
def search_root(root, ck, r0, log, first, stop, seat, kind, T, var, pos):
    """Write the search state of seat ``seat``'s decision of kind ``kind`` into ``root``
    (int32[S_ROWS, STATE_SIZE]): the state ``ck`` at the start of round ``r0`` and the
    decisions ``log[first:stop]`` since then, with what the seat cannot see canonicalised (the
    unrevealed deck cards in card order, the other seats' secret choices of the current group
    ``RESAMPLE``). Returns False if the prefix does not fit (``PREFIX_CAP``)."""
    n = stop - first
    if n > PREFIX_CAP:
        return False
    for j in range(STATE_SIZE):
        root[S_CKPT, j] = ck[j]
        root[S_HEAD, j] = 0
    for d in range(4):
        m = _unrevealed(ck, T, var, d, pos)
        for a in range(1, m):  # insertion sort of the unrevealed cards by index
            x = root[S_CKPT, O_DECK + d * 11 + pos[a]]
            b = a - 1
            while b >= 0 and root[S_CKPT, O_DECK + d * 11 + pos[b]] > x:
                root[S_CKPT, O_DECK + d * 11 + pos[b + 1]] = root[S_CKPT, O_DECK + d * 11 + pos[b]]
                b -= 1
            root[S_CKPT, O_DECK + d * 11 + pos[b + 1]] = x
    root[S_HEAD, H_R0] = r0
    root[S_HEAD, H_NREAL] = n
    root[S_HEAD, H_SEAT] = seat
    for i in range(n):
        root[S_PREFIX + i // STATE_SIZE, i % STATE_SIZE] = log[first + i, 2]
    if _secret_kind(kind):
        i = stop - 1
        while i >= first and log[i, 0] == kind and log[i, 1] != seat:
            root[S_PREFIX + (i - first) // STATE_SIZE, (i - first) % STATE_SIZE] = RESAMPLE
            i -= 1
    return True


@njit(cache=True, **_INTERNAL)
def _search_copy(dst, src):
    rows = S_PREFIX + (src[S_HEAD, H_NREAL] + STATE_SIZE - 1) // STATE_SIZE
    for i in range(rows):
        for j in range(STATE_SIZE):
            dst[i, j] = src[i, j]


@njit(cache=True, **_INTERNAL)
def _search_determinize(state, ctx, rng):
    """Shuffle the unrevealed deck cards (each deck apart) and draw the iteration's seed."""
    T, var, pos = ctx[0], ctx[1], ctx[5]
    for d in range(4):
        m = _unrevealed(state[S_CKPT], T, var, d, pos)
        for a in range(m - 1, 0, -1):
            b = randint(rng, a + 1)
            ia = O_DECK + d * 11 + pos[a]
            ib = O_DECK + d * 11 + pos[b]
            x = state[S_CKPT, ia]
            state[S_CKPT, ia] = state[S_CKPT, ib]
            state[S_CKPT, ib] = x
    x = next_u64(rng)
    state[S_HEAD, H_SEED0] = np.int32(x & np.uint64(0x7FFFFFFF))
    state[S_HEAD, H_SEED1] = np.int32((x >> np.uint64(31)) & np.uint64(0x7FFFFFFF))


@njit(cache=True, **_INTERNAL)
def _search_last_round(state, ctx):
    h = ctx[4][CF_HORIZON]
    if h <= 0:
        return np.int64(9)
    return min(np.int64(9), np.int64(state[S_HEAD, H_R0]) + h)


@njit(inline="always")  # two call sites (legal, rollout): no compiled level of its own
def _search_run(state, ctx, query):
    """Replay ``state`` (prefix, then its tree moves) in the search buffers ``ctx[2]`` on the
    state row ``ctx[3]``; ``query``: stop at the next searched decision."""
    T, var, Ds, st, cf = ctx[0], ctx[1], ctx[2], ctx[3], ctx[4]
    for j in range(STATE_SIZE):
        st[j] = state[S_CKPT, j]
    nreal = state[S_HEAD, H_NREAL]
    ntree = state[S_HEAD, H_NTREE]
    seat = state[S_HEAD, H_SEAT]
    log = Ds[D_LOG]
    for i in range(nreal):
        log[i, 2] = state[S_PREFIX + i // STATE_SIZE, i % STATE_SIZE]
    for j in range(ntree):
        log[nreal + j, 2] = state[S_HEAD, H_TREE + j]
    c = Ds[D_CTX]
    c[C_MODE] = MODE_SEARCH
    c[C_PTR] = 0
    c[C_NREAL] = nreal
    c[C_NTREE] = ntree
    c[C_TPTR] = 0
    c[C_STOPPED] = 0
    c[C_SMASK] = 1 << seat
    c[C_SCOPE] = cf[CF_SCOPE] << seat
    c[C_QUERY] = query
    c[C_LOGFRESH] = 0
    c[C_ERR] = -1
    c[C_EVCAP] = 0
    c[C_CKR] = -1
    seed = np.uint64(state[S_HEAD, H_SEED0]) | (np.uint64(state[S_HEAD, H_SEED1]) << np.uint64(31))
    for q in range(st[O_NP]):
        seed_state(Ds[D_RNG][q], game_seed(seed, np.uint64(0), np.uint64(STREAM_POLICY + q)))
    engine(
        st,
        T,
        var,
        Ds,
        ctx[6],
        np.int64(STEP_ROUND),
        np.int64(0),
        np.int64(state[S_HEAD, H_R0]),
        np.int64(_search_last_round(state, ctx)),
    )


@njit(cache=True, **_INTERNAL)
def _search_legal(state, ctx, moves):
    _search_run(state, ctx, np.int64(1))
    Ds = ctx[2]
    if Ds[D_CTX][C_STOPPED] == 0:
        return 0
    eb = Ds[D_ERRBUF]
    kind = eb[0]
    n = Ds[D_CTX][C_NERR]
    for i in range(n):
        moves[i] = kind * 64 + eb[2 + i]
    return n


@njit(cache=True, **_INTERNAL)
def _search_to_move(state, ctx):
    return np.int64(state[S_HEAD, H_SEAT])


@njit(cache=True, **_INTERNAL)
def _search_apply(state, ctx, move):
    j = state[S_HEAD, H_NTREE]
    state[S_HEAD, H_TREE + j] = move
    state[S_HEAD, H_NTREE] = j + 1


@njit(cache=True, **_INTERNAL)
def _search_rollout(state, ctx, rng, scores):
    """Play on with the rollout policy; ``scores``: final points (final_tie=unplayed: plus the
    unplayed power values / 1000), or with a horizon before the end, points plus what every
    place would pay now (§4, no bonus weighting)."""
    _search_run(state, ctx, np.int64(0))
    T, var, Ds, st = ctx[0], ctx[1], ctx[2], ctx[3]
    npl = st[O_NP]
    for q in range(npl):
        scores[q] = st[O_SCORE + q]
    if _search_last_round(state, ctx) >= 9:
        if var[V_FINALTIE] == 1:
            for q in range(npl):
                u = 0
                for v in range(1, 14):
                    if ((st[O_HAND + q] >> v) & 1) == 1:
                        u += v
                scores[q] += u / 1000.0
        return
    tmp = Ds[D_SCR][R_EVAL]
    for pl in range(NPLACE):
        score_place(st, T, var, pl, False, SRC_GENERAL, False, tmp)
        for q in range(npl):
            scores[q] += tmp[q]


search.register(
    lambda t: isinstance(t, types.Array) and t.ndim == 2 and t.dtype == types.int32,
    copy=lambda dst, src: _search_copy(dst, src),
    determinize=lambda state, ctx, rng: _search_determinize(state, ctx, rng),
    legal=lambda state, ctx, moves: _search_legal(state, ctx, moves),
    to_move=lambda state, ctx: _search_to_move(state, ctx),
    apply=lambda state, ctx, move: _search_apply(state, ctx, move),
    rollout=lambda state, ctx, rng, scores: _search_rollout(state, ctx, rng, scores),
)


def search_scratch(npl, capacity, hpar):
    """Scratch of ``choose_mcts`` for trees of ``capacity`` nodes (NumPy): (root, work, tree,
    value, logs, moves, untried, mark, path, scores, reward, pos, cf, Ds, st). ``hpar``
    float64[P]: the heuristic parameters of the rollouts and the mcts seats' unsearched
    decisions."""
    hpar = np.asarray(hpar, dtype=np.float64)
    Ds = make_buffers(1, 1, hpar.shape[0])
    Ds = Ds[:D_LOG] + (np.zeros((PREFIX_CAP + TREE_CAP + 1, 4), np.int32),) + Ds[D_LOG + 1 :]
    Ds[D_PAR][:] = hpar
    return (
        np.zeros((S_ROWS, STATE_SIZE), np.int32),
        np.zeros((S_ROWS, STATE_SIZE), np.int32),
        np.zeros((capacity, search.TREE_COLS), np.int64),
        np.zeros(capacity, np.float64),
        np.zeros(capacity, np.float64),
        np.zeros(64, np.int64),
        np.zeros(64, np.int64),
        np.zeros(N_MOVE_CODES, np.int64),
        np.zeros(TREE_CAP + 1, np.int64),
        np.zeros(npl, np.float64),
        np.zeros(npl, np.float64),
        np.zeros(16, np.int64),
        np.zeros(N_CF, np.int64),
        Ds,
        np.zeros(STATE_SIZE, np.int32),
    )


@njit(inline="always")  # one call site: no compiled level of its own
def choose_mcts(ck, r0, log, first, stop, seat, kind, T, var, G, mpar, rng, scr):
    """Value chosen by ISMCTS (``kernels.search``) for seat ``seat``'s decision of kind
    ``kind``, the decision ``stop`` of a game whose round ``r0`` started in state ``ck`` after
    decision ``first`` (``log[first:stop]``: the decisions since then); ``G`` the game buffers
    that the search's ``engine`` calls pass on (unused there). ``mpar`` float64: the
    seat's mcts parameters ``M_*``; ``rng`` uint64[4]: its stream; ``scr``: ``search_scratch``.
    Returns -1 if the round's decisions do not fit the search state (the caller decides then)."""
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
        pos,
        cf,
        Ds,
        st,
    ) = scr
    if not search_root(root, ck, r0, log, first, stop, seat, kind, T, var, pos):
        return np.int64(-1)
    cf[CF_ROLLOUT] = np.int64(mpar[M_ROLLOUT])
    cf[CF_SCOPE] = np.int64(mpar[M_SCOPE])
    cf[CF_HORIZON] = np.int64(mpar[M_HORIZON])
    for q in range(MAXP):
        Ds[D_POL][q] = cf[CF_ROLLOUT]
    ctx = (T, var, Ds, st, cf, pos, G)
    n_iter = min(np.int64(mpar[M_ITER]), np.int64(tree.shape[0] - 1))
    if mpar.shape[0] > M_FLAT and mpar[M_FLAT] != 0.0:
        move = search.flat(
            root, ctx, n_iter, np.int64(mpar[M_REWARD]), MARGIN_SCALE, rng, work, mv, value,
            scores, reward,
        )  # fmt: skip
    else:
        move = search.search(
            root,
            ctx,
            n_iter,
            mpar[M_C],
            np.int64(mpar[M_REWARD]),
            MARGIN_SCALE,
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
    if move < 0:
        return np.int64(-1)
    return move - kind * 64


@njit(inline="always")  # one call site: no compiled level of its own
def _drive_game(st, T, var, D, G, npl, game_index, mparams, scr, ck):
    """Play one game with mcts seats (``D[D_POL][p] == POL_MCTS``; their parameters ``mparams[p]``,
    their unsearched decisions by the heuristic with ``D[D_PAR][p]``) into ``st``; every decision
    is logged in ``D[D_LOG]`` (int32[L, 4]). Returns the number of decisions."""
    start_game(st, T, var, D, G, npl, game_index)
    ctx = D[D_CTX]
    log = D[D_LOG]
    mask = 0
    scope = 0
    for p in range(npl):
        if D[D_POL][p] == POL_MCTS:
            mask |= 1 << p
            scope |= np.int64(mparams[p, M_SCOPE]) << p
    _copy_state(st, ck)
    r0 = np.int64(1)
    first = np.int64(0)
    n_real = np.int64(0)
    while True:
        _copy_state(ck, st)
        ctx[C_MODE] = MODE_SEARCH
        ctx[C_PTR] = first
        ctx[C_NREAL] = n_real
        ctx[C_NTREE] = 0
        ctx[C_TPTR] = 0
        ctx[C_STOPPED] = 0
        ctx[C_SMASK] = mask
        ctx[C_SCOPE] = scope
        ctx[C_QUERY] = 1
        ctx[C_LOGFRESH] = 1
        ctx[C_CKR] = -1
        ctx[C_EVCAP] = 0
        engine(st, T, var, D, G, np.int64(STEP_ROUND), np.int64(0), r0, np.int64(9))
        if ctx[C_CKR] >= 0:
            r0 = ctx[C_CKR]
            first = ctx[C_CKPTR]
            _copy_state(D[D_SCR][R_CKPT], ck)
        if ctx[C_STOPPED] == 0:
            return ctx[C_PTR]
        q = ctx[C_QPTR]
        eb = D[D_ERRBUF]
        kind = np.int64(eb[0])
        p = np.int64(eb[1])
        v = choose_mcts(ck, r0, log, first, q, p, kind, T, var, G, mparams[p], D[D_RNG][p], scr)
        D[D_CTX][C_NSEARCH] += 1
        if v < 0:  # a round too long for the search state (never seen): the first option
            v = np.int64(eb[2])
        if q >= log.shape[0]:
            return q  # the log is full (never with 4,000 rows)
        log[q, 0] = kind
        log[q, 1] = p
        log[q, 2] = v
        log[q, 3] = ctx[C_QAUX]
        n_real = q + 1


@njit(cache=True)
def _mcts_games(first_game_index, n_games, npl, mparams, T, var, D, G, scr):
    """The batch kernel of lineups with mcts seats (compiled only for them): games
    ``first_game_index ..`` into ``G``'s result arrays (``engine``'s ``STEP_GAMES``), every
    decision of the last game in ``D[D_LOG]``. Returns (the last game's decision count, the
    number of searches)."""
    st = np.zeros(STATE_SIZE, dtype=np.int32)
    ck = np.zeros(STATE_SIZE, dtype=np.int32)
    fixed = G[G_FIXED]
    nd = 0
    keep = fixed[F_GIVEN] == 1 and n_games == 1
    for g in range(n_games):
        if not keep:
            fixed[F_GIVEN] = 0
        nd = _drive_game(st, T, var, D, G, npl, first_game_index + g, mparams, scr, ck)
        _collect_game(st, nd, g, G)
    return nd, D[D_CTX][C_NSEARCH]


@_gc_paused
def _play_mcts(
    first_game_index,
    n_games,
    root_seed,
    npl,
    policy_ids,
    policy_params,
    mparams,
    hpar,
    var,
    T,
    log,
    fixed,
):
    """Buffers (NumPy) and ``_mcts_games`` for ``play_batch_mcts`` and ``record_mcts``:
    ``play_batch``'s ten arrays plus the last game's decision count and the number of
    searches; ``log`` int32[L, 4] receives the last game's decisions, ``fixed`` its setup
    (``setup``)."""
    policy_ids = np.ascontiguousarray(policy_ids, dtype=np.int64)
    policy_params = np.ascontiguousarray(policy_params, dtype=np.float64)
    mparams = np.ascontiguousarray(mparams, dtype=np.float64)
    hpar = np.ascontiguousarray(hpar, dtype=np.float64)
    D = make_buffers(1, 1, hpar.shape[0])
    D = D[:D_LOG] + (log,) + D[D_LOG + 1 :]
    cap = 66  # >= 64: value doubles as flat's totals (at most 64 options)
    for p in range(npl):
        D[D_POL][p] = policy_ids[p]
        if policy_ids[p] == POL_MCTS:
            cap = max(cap, int(mparams[p, M_ITER]) + 2)
            D[D_PAR][p] = hpar
        else:
            D[D_PAR][p] = policy_params[p, : hpar.shape[0]]
    G = game_buffers(n_games, npl, root_seed, fixed)
    nd, ns = _mcts_games(
        np.int64(first_game_index),
        np.int64(n_games),
        np.int64(npl),
        mparams,
        T,
        np.ascontiguousarray(var, dtype=np.int64),
        D,
        G,
        search_scratch(npl, cap, hpar),
    )
    return G[2:12] + (nd, ns)


def play_batch_mcts(
    first_game_index,
    n_games,
    root_seed,
    npl,
    policy_ids,
    policy_params,
    mcts_params,
    heur_params,
    var,
    T,
):
    """``play_batch`` for lineups with ``POL_MCTS`` seats (same ten arrays).

    ``policy_ids`` int64[npl] (``POL_*``); ``policy_params`` float64[npl, P]: the random and
    heuristic seats' parameters (``play_batch``); ``mcts_params`` float64[npl, N_MPARAMS] (the
    rows of the mcts seats are used); ``heur_params`` float64[P]: the heuristic parameters of
    the mcts seats' unsearched decisions and of the rollouts (the heuristic's defaults).
    """
    r = _play_mcts(
        np.int64(first_game_index),
        np.int64(n_games),
        np.uint64(root_seed),
        np.int64(npl),
        np.ascontiguousarray(policy_ids, dtype=np.int64),
        np.ascontiguousarray(policy_params, dtype=np.float64),
        np.ascontiguousarray(mcts_params, dtype=np.float64),
        np.ascontiguousarray(heur_params, dtype=np.float64),
        np.ascontiguousarray(var, dtype=np.int64),
        T,
        np.zeros((4000, 4), np.int32),
        np.zeros(FIXED_SIZE, np.int32),
    )
    return r[:10]


def record_mcts(
    root_seed,
    game_index,
    npl,
    policy_ids,
    policy_params,
    mcts_params,
    heur_params,
    var,
    T,
    log,
    fixed=None,
):
    """Play one game of an mcts lineup (arguments as ``play_batch_mcts``); its decisions go to
    ``log`` (int32[L, 4]). ``fixed``: a setup to play instead of the deal's (``setup``; tests).
    Returns (n_decisions, fixed int32[FIXED_SIZE]: the setup)."""
    fixed = np.zeros(FIXED_SIZE, np.int32) if fixed is None else fixed.copy()
    r = _play_mcts(
        np.int64(game_index),
        np.int64(1),
        np.uint64(root_seed),
        np.int64(npl),
        np.ascontiguousarray(policy_ids, dtype=np.int64),
        np.ascontiguousarray(policy_params, dtype=np.float64),
        np.ascontiguousarray(mcts_params, dtype=np.float64),
        np.ascontiguousarray(heur_params, dtype=np.float64),
        np.ascontiguousarray(var, dtype=np.int64),
        T,
        log,
        fixed,
    )
    return int(r[10]), fixed
