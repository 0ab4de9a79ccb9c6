"""Thurn and Taxis kernel: state layout, legal decisions, apply, scoring, policies, play_batch.

Rule source: ``docs/rules/thurn_und_taxis.md`` (§3 setup, §4 turn, §5 end and score, §6
officials, §7 ambiguity defaults). Numba only; never imports ``mcsim``.

State layout
------------
One game is one ``int64`` vector ``st`` of length ``ST_SIZE`` (offsets ``S_*`` below). Cities are
0..21 in the order of the rules file §1.1; a set of cities is a 22-bit mask (bit = city id) kept
in an int64 so that the masks live in the same vector as the counters (22 bits never reach the
sign bit, and int64-only arithmetic avoids Numba's uint64/int64 -> float64 promotion). Seats are
0..n-1, seat 0 starts, play runs in seat order (§3.4).

The deck is ``st[S_DECK : S_DECK+66]``; the next card is ``st[S_DECK + st[S_DECK_TOP]]`` and the
deck holds ``st[S_DECK_END] - st[S_DECK_TOP]`` cards. The discard pile is a stack
``st[S_DISC : S_DISC + st[S_DISC_N]]``. The display has 6 slots (-1 = empty). Hands are counts
per city. A route is stored in a ``ROUTE_SLOTS`` (44) window per seat, cities ``[lo, hi)``; extending at the
left end decrements ``lo`` (§4B).

A turn is a sequence of decisions (phases ``PH_*``); every phase has at least one legal action,
so the loop is always ``legal_moves`` -> choose -> ``apply_move``. Actions (``A_*``):

==============  =====================================================================
0 / 1           no / yes (use the official offered in this phase; do not close; pass)
2 + c           draw the display card of city c            (phase draw)
24              draw the top card of the deck              (phase draw)
32 + c          play c at the left end of the route        (phase play)
64 + c          play c at the right end of the route       (phase play)
96 + c          start a new route with c (route empty)     (phase play)
128 + c         discard the open route, start anew with c  (phase play)
160 / 161       close the route / close with the Cartwright (phase close)
170             houses: one per region on the route        (phase house mode, §4C.1 i)
171 + r         houses: every route city of region r       (phase house mode, §4C.1 ii)
192 + c         place a house in c                          (phase house pick)
214             place no house for this region (only when houses run short, §7.5)
224 + c         discard a card of city c from hand          (phase trim, §4C.4)
==============  =====================================================================

Tables (``tab``, int64, offsets ``T_*``) are built by ``mcsim.games.thurn_and_taxis`` from the
data files; variants (``var``, int64) are indexed ``V_*``.
"""

import numpy as np
from numba import njit, types

from kernels import search
from kernels.bitboard import ctpop, cttz
from kernels.rng import (
    STREAM_DEAL,
    STREAM_POLICY,
    game_seed,
    next_u64,
    randint,
    random_float,
    seed_state,
    shuffle,
    shuffle_fast,
)

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

# actions
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
V_ALL_REGIONS_BAIERN = 0  # 0: 8 non-Baiern regions (default), 1: all 9 regions (§7.1)
V_CASCADE = 1  # 0: route tile falls back to lower stacks (default), 1: no fallback (§7.3)
V_HAND_LIMIT = 2  # 0: trim to 3 only after closing (default), 1: at the end of every turn (§7.7)
V_MAX_TURNS = 3  # safety cap on turns per game (the game is then ended, reason END_CAP)
N_VARIANT_SLOTS = 4

# tables
T_ADJ = 0  # [22] neighbour mask per city
T_REGION = 22  # [22] region of each city
T_REGMASK = 44  # [9] city mask of each region
T_GROUP = 53  # [10] city mask a region-group stack needs (0 for other stacks)
T_STACK_N = 63  # [10] initial tile count per stack
T_STACK_VAL = 73  # [10 * 4] tile values, top first
T_CARR_VP = 113  # [8] points of the carriage of value v (index v, 3..7)
T_ALL_REG = 121  # [2] region mask the all-regions tile needs: [without Baiern, with Baiern]
T_ROUTE_LEN = 123  # [3] route length of stacks route5, route6, route7
T_CITY_GROUP = 126  # [22] region-group stack of each city (-1: none, Polen)
TAB_SIZE = 148

# state offsets
S_NP = 0
S_CUR = 1
S_PHASE = 2
S_OFFICIAL = 3
S_FORCED = 4
S_TURN = 5
S_OVER = 6
S_END_SEAT = 7  # who took the game-end tile (-1)
S_END_REASON = 8
S_DECK_TOP = 9
S_DECK_END = 10
S_DISC_N = 11
S_CLOSE_LEN = 12
S_PENDING = 13  # house pick: region mask still to serve (mode i) or region (mode ii)
S_PICK_MODE = 14  # 0 = one per region, 1 = whole region
S_ERROR = 15  # replay: a scripted reshuffle was not a permutation of the discard pile
S_SCRIPT_POS = 16
S_ALOG_N = 17
S_SLOG_N = 18
S_PLAYS = 19
S_DECK = 24
S_DISC = S_DECK + N_CARDS
S_DISPLAY = S_DISC + N_CARDS
S_HAND = S_DISPLAY + DISPLAY  # [4 * 22]
S_HAND_N = S_HAND + MAX_SEATS * N_CITIES
S_ROUTE = S_HAND_N + MAX_SEATS  # [4 * ROUTE_SLOTS]
S_RLO = S_ROUTE + MAX_SEATS * ROUTE_SLOTS
S_RHI = S_RLO + MAX_SEATS
S_RMASK = S_RHI + MAX_SEATS
S_HOUSES = S_RMASK + MAX_SEATS  # mask of own houses
S_HOUSES_LEFT = S_HOUSES + MAX_SEATS
S_CARRIAGE = S_HOUSES_LEFT + MAX_SEATS  # highest carriage value (0 = none)
S_TILE_PTS = S_CARRIAGE + MAX_SEATS
S_GROUPS = S_TILE_PTS + MAX_SEATS  # mask of region stacks taken (bit = stack id)
S_STACK = S_GROUPS + MAX_SEATS  # [10] tiles left per stack
S_N_OFFICIAL = S_STACK + N_STACKS  # [4 * 5] officials used per seat (index OFF_*)
S_N_FORCED = S_N_OFFICIAL + MAX_SEATS * 5
S_N_CLOSED = S_N_FORCED + MAX_SEATS
S_ROUTE_HIST = S_N_CLOSED + MAX_SEATS  # [23] closed routes by length
S_TILES_TAKEN = S_ROUTE_HIST + 23  # [10] tiles taken per stack
S_N_DISCARDED = S_TILES_TAKEN + N_STACKS  # routes discarded (restart) per seat
S_CLOSED_LEN_SUM = S_N_DISCARDED + MAX_SEATS
S_HMASK = S_CLOSED_LEN_SUM + MAX_SEATS  # mask of cities with >= 1 card in hand
# [4 * 22] cards every seat knows a seat holds (taken from the display and not yet played or
# trimmed: public, §7 #12); the information-set search deals these to that seat (``mcts``)
S_KNOWN = S_HMASK + MAX_SEATS
ST_SIZE = S_KNOWN + MAX_SEATS * N_CITIES


#: set bits of a non-negative city mask (one ``popcnt``; an intrinsic, so no call and nothing
#: to inline)
_popcount = ctpop
#: index of the lowest set bit of a non-zero mask (one ``tzcnt``; an intrinsic)
_lowbit = cttz


# ----------------------------------------------------------------------------- cards


@njit(cache=True)
def _reshuffle(st, rng, script, slog):
    """Discard pile -> new deck (§4A). From ``script`` when replaying, else shuffled by ``rng``."""
    k = st[S_DISC_N]
    if k == 0:
        return
    for i in range(k):
        st[S_DECK + i] = st[S_DISC + i]
    st[S_DECK_TOP] = 0
    st[S_DECK_END] = k
    st[S_DISC_N] = 0
    if script.shape[0] > 0:
        pos = st[S_SCRIPT_POS]
        if pos + k > script.shape[0]:
            st[S_ERROR] = 1
            return
        # the scripted order must be a permutation of the pile (no allocation here: this runs
        # inside the NRT-free play loop, see play_batch)
        for i in range(k):
            c = script[pos + i]
            if c < 0 or c >= N_CITIES:
                st[S_ERROR] = 1
                return
        for c in range(N_CITIES):
            d = 0
            for i in range(k):
                d += (st[S_DECK + i] == c) - (script[pos + i] == c)
            if d != 0:
                st[S_ERROR] = 1
                return
        for i in range(k):
            st[S_DECK + i] = script[pos + i]
        st[S_SCRIPT_POS] = pos + k
    else:
        shuffle_fast(rng, st[S_DECK : S_DECK + k])
    if slog.shape[0] > 1:
        # log: the pile size, then the new deck order
        n = st[S_SLOG_N]
        if n + k + 1 <= slog.shape[0]:
            slog[n] = k
            for i in range(k):
                slog[n + 1 + i] = st[S_DECK + i]
            st[S_SLOG_N] = n + k + 1


@njit(cache=True, inline="always")
def _deck_card(st, rng, script, slog):
    """Take the top deck card (reshuffling the discard pile if the deck is empty); -1 if none."""
    if st[S_DECK_TOP] == st[S_DECK_END]:
        _reshuffle(st, rng, script, slog)
        if st[S_DECK_TOP] == st[S_DECK_END]:
            return -1
    c = st[S_DECK + st[S_DECK_TOP]]
    st[S_DECK_TOP] += 1
    return c


@njit(cache=True, inline="always")
def _refill_display(st, rng, script, slog):
    for i in range(DISPLAY):
        if st[S_DISPLAY + i] < 0:
            st[S_DISPLAY + i] = _deck_card(st, rng, script, slog)


@njit(cache=True, inline="always")
def _discard(st, c):
    st[S_DISC + st[S_DISC_N]] = c
    st[S_DISC_N] += 1


@njit(cache=True)
def init_state(st, n_players, deck):
    """Set up a game (§3): ``deck`` int64[66] city ids in deal order; the first 6 form the display.

    Parameters
    ----------
    st : int64[ST_SIZE]
        Filled in place.
    n_players : int
        2..4.
    deck : int64[66]
        The shuffled city cards, deal order (first card dealt first).

    Notes
    -----
    jit-compiled; caller validates. Seat 0 starts (§3.4). The bonus stacks are set by
    ``init_stacks`` (they depend on the tables).
    """
    st[:] = 0
    st[S_NP] = n_players
    st[S_END_SEAT] = -1
    st[S_END_REASON] = END_NONE
    for i in range(N_CARDS):
        st[S_DECK + i] = deck[i]
    st[S_DECK_TOP] = DISPLAY
    st[S_DECK_END] = N_CARDS
    for i in range(DISPLAY):
        st[S_DISPLAY + i] = deck[i]
    for p in range(MAX_SEATS):
        st[S_RLO + p] = ROUTE_MID
        st[S_RHI + p] = ROUTE_MID
        st[S_HOUSES_LEFT + p] = HOUSES
    _begin_turn(st)


@njit(cache=True)
def init_stacks(st, tab):
    """Fill the bonus stacks from the tables (§2.2, all 30 tiles for every player count, §7.6)."""
    for s in range(N_STACKS):
        st[S_STACK + s] = tab[T_STACK_N + s]


@njit(cache=True, inline="always")
def _begin_turn(st):
    p = st[S_CUR]
    st[S_OFFICIAL] = OFF_NONE
    st[S_FORCED] = 0
    st[S_PLAYS] = 0
    if st[S_HAND_N + p] == 0:
        # forced Postmaster (§4A): two draws, no other official this turn
        _use_official(st, OFF_POSTMASTER)
        st[S_FORCED] = 1
        st[S_N_FORCED + p] += 1
        st[S_PHASE] = PH_DRAW1
    else:
        st[S_PHASE] = PH_ADMIN


@njit(cache=True, _nrt=False)
def _end_turn(st, var):
    p = st[S_CUR]
    n = st[S_NP]
    st[S_TURN] += 1
    if st[S_END_SEAT] >= 0 and p == n - 1:
        st[S_OVER] = 1
        st[S_PHASE] = PH_OVER
        return
    if st[S_TURN] >= var[V_MAX_TURNS]:
        st[S_OVER] = 1
        st[S_PHASE] = PH_OVER
        if st[S_END_REASON] == END_NONE:
            st[S_END_REASON] = END_CAP
        return
    st[S_CUR] = p + 1 if p + 1 < n else 0
    _begin_turn(st)


@njit(cache=True, inline="always")
def _after_turn_body(st, var):
    """End of the optional close phase: every-turn hand limit variant, then next turn."""
    p = st[S_CUR]
    if var[V_HAND_LIMIT] == 1 and st[S_HAND_N + p] > 3:
        st[S_PHASE] = PH_TRIM
        return
    _end_turn(st, var)


# ----------------------------------------------------------------------------- legal actions


@njit(cache=True, inline="always")
def _draw_options(st, out, n):
    seen = 0
    for i in range(DISPLAY):
        c = st[S_DISPLAY + i]
        if c >= 0 and (seen >> c) & 1 == 0:
            seen |= 1 << c
            out[n] = A_DRAW_DISPLAY + c
            n += 1
    if st[S_DECK_END] > st[S_DECK_TOP] or st[S_DISC_N] > 0:
        out[n] = A_DRAW_DECK
        n += 1
    if n == 0:
        out[n] = A_NO  # nothing to draw (§7.10): the draw is skipped
        n += 1
    return n


@njit(cache=True, inline="always")
def _play_options(st, tab, out, n):
    p = st[S_CUR]
    hm = st[S_HMASK + p]
    if hm == 0:
        out[n] = A_NO
        return n + 1
    lo = st[S_RLO + p]
    hi = st[S_RHI + p]
    if hi == lo:
        m = hm
        while m:
            c = _lowbit(m)
            m &= m - 1
            out[n] = A_START + c
            n += 1
        return n
    rmask = st[S_RMASK + p]
    right = st[S_ROUTE + p * ROUTE_SLOTS + hi - 1]
    if hi - lo > 1:
        m = tab[T_ADJ + st[S_ROUTE + p * ROUTE_SLOTS + lo]] & ~rmask & hm
        while m:
            c = _lowbit(m)
            m &= m - 1
            out[n] = A_LEFT + c
            n += 1
    m = tab[T_ADJ + right] & ~rmask & hm
    while m:
        c = _lowbit(m)
        m &= m - 1
        out[n] = A_RIGHT + c
        n += 1
    m = hm
    while m:
        c = _lowbit(m)
        m &= m - 1
        out[n] = A_RESTART + c
        n += 1
    return n


@njit(cache=True)
def _pick_candidates(st, tab):
    """Route cities of the region being served that still lack an own house."""
    p = st[S_CUR]
    if st[S_PICK_MODE] == 0:
        r = _lowbit(st[S_PENDING])
    else:
        r = st[S_PENDING]
    return st[S_RMASK + p] & tab[T_REGMASK + r] & ~st[S_HOUSES + p]


@njit(cache=True, inline="always")
def _regions_to_serve(st, tab):
    """Mode (i) house pick: pending regions (the one being served included) with a route city
    still lacking an own house (§4C.1: fully housed regions are passed over, not served)."""
    p = st[S_CUR]
    open_ = st[S_RMASK + p] & ~st[S_HOUSES + p]
    pend = st[S_PENDING]
    k = 0
    while pend:
        r = _lowbit(pend)
        pend &= pend - 1
        if open_ & tab[T_REGMASK + r]:
            k += 1
    return k


@njit(cache=True, _nrt=False)
def legal_moves(st, tab, out):
    """Write the legal actions of the position into ``out`` (int64[>= MAX_ACTIONS]); return count.

    Parameters
    ----------
    st : int64[ST_SIZE]
    tab : int64[TAB_SIZE]
    out : int64[MAX_ACTIONS]

    Returns
    -------
    int
        Number of actions written (>= 1 unless the game is over, then 0).

    Notes
    -----
    jit-compiled once (no NRT: it allocates nothing) and called, not inlined, by every play
    loop, the search and the replay, which share its machine code. Rules:
    docs/rules/thurn_und_taxis.md §4 (phases A-C) and §6 (officials).
    """
    ph = st[S_PHASE]
    p = st[S_CUR]
    n = 0
    if ph == PH_ADMIN:
        out[0] = A_NO
        out[1] = A_YES
        return 2
    if ph == PH_DRAW1 or ph == PH_DRAW2:
        return _draw_options(st, out, 0)
    if ph == PH_PM or ph == PH_PC:
        out[0] = A_NO
        out[1] = A_YES
        return 2
    if ph == PH_PLAY1 or ph == PH_PLAY2:
        return _play_options(st, tab, out, 0)
    if ph == PH_CLOSE:
        out[0] = A_NO
        out[1] = A_CLOSE
        n = 2
        if st[S_OFFICIAL] == OFF_NONE:
            out[2] = A_CLOSE_CART
            n = 3
        return n
    if ph == PH_HOUSE_MODE:
        # placing is mandatory (§4C.1, §7.13): an option that places no house (a region whose
        # route cities all hold his house) is legal only when no option places any; houses left
        # are > 0 here (_step_close), so mode (i) places one as soon as any route city lacks one
        out[0] = A_MODE_EACH
        n = 1
        rm = st[S_RMASK + p]
        open_ = rm & ~st[S_HOUSES + p]
        for r in range(N_REGIONS):
            if rm & tab[T_REGMASK + r] and (open_ == 0 or open_ & tab[T_REGMASK + r]):
                out[n] = A_MODE_REGION + r
                n += 1
        return n
    if ph == PH_HOUSE_PICK:
        cand = _pick_candidates(st, tab)
        while cand:
            c = _lowbit(cand)
            cand &= cand - 1
            out[n] = A_HOUSE + c
            n += 1
        if st[S_PICK_MODE] == 0 and st[S_HOUSES_LEFT + p] < _regions_to_serve(st, tab):
            # houses short (§4C.1, §7.5): he may leave out a region only while fewer houses
            # are left than regions that still lack his house on the route
            out[n] = A_HOUSE_SKIP
            n += 1
        return n
    if ph == PH_TRIM:
        m = st[S_HMASK + p]
        while m:
            c = _lowbit(m)
            m &= m - 1
            out[n] = A_TRIM + c
            n += 1
        return n
    return 0


# ----------------------------------------------------------------------------- apply


@njit(cache=True)
def _take(st, tab, p, s):
    """Top tile of stack s to seat p; returns its value (0 if the stack is empty)."""
    left = st[S_STACK + s]
    if left == 0:
        return 0
    v = tab[T_STACK_VAL + s * MAX_TILES + tab[T_STACK_N + s] - left]
    st[S_STACK + s] = left - 1
    st[S_TILE_PTS + p] += v
    st[S_TILES_TAKEN + s] += 1
    return v


@njit(cache=True)
def _trigger_end(st, tab, p, reason):
    if st[S_END_SEAT] < 0:
        st[S_END_SEAT] = p
        st[S_END_REASON] = reason
        _take(st, tab, p, np.int64(STK_GAME_END))


@njit(cache=True)
def _score_close(st, tab, var):
    """§4C steps 2-4 after the houses are placed: tiles, carriage, discard, trim."""
    p = st[S_CUR]
    L = st[S_CLOSE_LEN]
    # route tile with cascade (§4C.2, §7.3)
    s = -1
    for k in range(2, -1, -1):
        if tab[T_ROUTE_LEN + k] <= L:
            s = k
            break
    while s >= 0:
        if st[S_STACK + s] > 0:
            _take(st, tab, p, s)
            break
        if var[V_CASCADE] == 1:
            break
        s -= 1
    # region groups, one tile per group per player
    hm = st[S_HOUSES + p]
    for g in range(N_STACKS):
        gm = tab[T_GROUP + g]
        if gm != 0 and (st[S_GROUPS + p] >> g) & 1 == 0 and (hm & gm) == gm:
            if st[S_STACK + g] > 0:
                st[S_GROUPS + p] |= 1 << g
                _take(st, tab, p, g)
    # all regions (outside Baiern by default)
    if (st[S_GROUPS + p] >> STK_ALL_REGIONS) & 1 == 0 and st[S_STACK + STK_ALL_REGIONS] > 0:
        need = tab[T_ALL_REG + var[V_ALL_REGIONS_BAIERN]]
        ok = True
        for r in range(N_REGIONS):
            if (need >> r) & 1 and (hm & tab[T_REGMASK + r]) == 0:
                ok = False
                break
        if ok:
            st[S_GROUPS + p] |= 1 << STK_ALL_REGIONS
            _take(st, tab, p, np.int64(STK_ALL_REGIONS))
    # carriage: strictly the next one; Cartwright counts the route as 2 longer (§4C.3)
    nxt = 3 if st[S_CARRIAGE + p] == 0 else st[S_CARRIAGE + p] + 1
    if nxt <= 7:
        eff = L + 2 if st[S_OFFICIAL] == OFF_CARTWRIGHT else L
        if eff >= nxt:
            st[S_CARRIAGE + p] = nxt
            if nxt == 7:
                _trigger_end(st, tab, p, np.int64(END_CARRIAGE))
    if st[S_HOUSES_LEFT + p] == 0:
        _trigger_end(st, tab, p, np.int64(END_HOUSES))
    # route cards to the discard pile
    base = S_ROUTE + p * ROUTE_SLOTS
    for i in range(st[S_RLO + p], st[S_RHI + p]):
        _discard(st, st[base + i])
    st[S_RLO + p] = ROUTE_MID
    st[S_RHI + p] = ROUTE_MID
    st[S_RMASK + p] = 0
    st[S_N_CLOSED + p] += 1
    st[S_CLOSED_LEN_SUM + p] += L
    st[S_ROUTE_HIST + min(L, 22)] += 1
    if st[S_HAND_N + p] > 3:
        st[S_PHASE] = PH_TRIM
    else:
        _end_turn(st, var)


@njit(cache=True, inline="always")
def _hand_out(st, p, c):
    """A card of city c leaves seat p's hand, face up (played or trimmed): one fewer known
    card of c in that hand, if any was known (``S_KNOWN``)."""
    h = S_HAND + p * N_CITIES
    st[h + c] -= 1
    st[S_HAND_N + p] -= 1
    if st[h + c] == 0:
        st[S_HMASK + p] &= ~(1 << c)
    k = S_KNOWN + p * N_CITIES + c
    if st[k] > 0:
        st[k] -= 1


@njit(cache=True, inline="always")
def _place(st, p, c):
    st[S_HOUSES + p] |= 1 << c
    st[S_HOUSES_LEFT + p] -= 1


@njit(cache=True, inline="always")
def _draw_done(st):
    ph = st[S_PHASE]
    if ph == PH_DRAW1:
        if st[S_OFFICIAL] == OFF_POSTMASTER:
            st[S_PHASE] = PH_DRAW2
        elif st[S_OFFICIAL] == OFF_NONE:
            st[S_PHASE] = PH_PM
        else:
            st[S_PHASE] = PH_PLAY1
    else:
        st[S_PHASE] = PH_PLAY1


@njit(cache=True, inline="always")
def _play_done(st, var):
    p = st[S_CUR]
    st[S_PLAYS] += 1
    if st[S_PHASE] == PH_PLAY1 and st[S_OFFICIAL] == OFF_NONE and st[S_HAND_N + p] > 0:
        st[S_PHASE] = PH_PC
    else:
        _to_close(st, var)


@njit(cache=True, inline="always")
def _to_close(st, var):
    p = st[S_CUR]
    if st[S_RHI + p] - st[S_RLO + p] >= 3:
        st[S_PHASE] = PH_CLOSE
    else:
        _after_turn_body(st, var)


@njit(cache=True)
def _pick_next(st, tab, var):
    """Advance the house-pick phase: skip regions with nothing to place; finish when done."""
    p = st[S_CUR]
    if st[S_PICK_MODE] == 0:
        while st[S_PENDING] != 0 and st[S_HOUSES_LEFT + p] > 0:
            if _pick_candidates(st, tab) != 0:
                return
            st[S_PENDING] &= st[S_PENDING] - 1
    else:
        if st[S_HOUSES_LEFT + p] > 0 and _pick_candidates(st, tab) != 0:
            return
    _score_close(st, tab, var)


@njit(cache=True, inline="always")
def _use_official(st, off):
    """The player to move takes official ``off`` this turn (at most one per turn, §4)."""
    st[S_OFFICIAL] = off
    st[S_N_OFFICIAL + st[S_CUR] * 5 + off] += 1


@njit(cache=True, inline="always")
def _step_admin(st, a, rng, script, slog):
    """Phase Administrator offer (§6): ``a`` = A_YES replaces the whole display."""
    if a == A_YES:
        _use_official(st, OFF_ADMINISTRATOR)
        for i in range(DISPLAY):
            if st[S_DISPLAY + i] >= 0:
                _discard(st, st[S_DISPLAY + i])
                st[S_DISPLAY + i] = -1
        _refill_display(st, rng, script, slog)
    st[S_PHASE] = PH_DRAW1


@njit(cache=True, inline="always")
def _step_draw(st, a, rng, script, slog):
    """Phase draw (§4A): the deck's top card, a display card, or nothing (A_NO)."""
    p = st[S_CUR]
    h = S_HAND + p * N_CITIES
    if a == A_DRAW_DECK:
        c = _deck_card(st, rng, script, slog)
        if c >= 0:
            st[h + c] += 1
            st[S_HAND_N + p] += 1
            st[S_HMASK + p] |= 1 << c
    elif a >= A_DRAW_DISPLAY and a < A_DRAW_DISPLAY + N_CITIES:
        c = a - A_DRAW_DISPLAY
        for i in range(DISPLAY):
            if st[S_DISPLAY + i] == c:
                st[S_DISPLAY + i] = -1
                break
        st[h + c] += 1
        st[S_HAND_N + p] += 1
        st[S_HMASK + p] |= 1 << c
        st[S_KNOWN + p * N_CITIES + c] += 1
        _refill_display(st, rng, script, slog)
    _draw_done(st)


@njit(cache=True, inline="always")
def _step_postmaster(st, a):
    """Postmaster offer after the first draw (§6): A_YES gives a second draw."""
    if a == A_YES:
        _use_official(st, OFF_POSTMASTER)
        st[S_PHASE] = PH_DRAW2
    else:
        st[S_PHASE] = PH_PLAY1


@njit(cache=True, inline="always")
def _step_postal_carrier(st, var, a):
    """Postal Carrier offer after the first play (§6): A_YES gives a second play."""
    if a == A_YES:
        _use_official(st, OFF_POSTAL_CARRIER)
        st[S_PHASE] = PH_PLAY2
    else:
        _to_close(st, var)


@njit(cache=True, inline="always")
def _step_play(st, var, a):
    """Phase play (§4B): extend either end, start a route, discard and restart, or pass."""
    if a == A_NO:
        _to_close(st, var)
        return
    p = st[S_CUR]
    base = S_ROUTE + p * ROUTE_SLOTS
    if a >= A_START:  # a new route of one card (restart: after discarding the open one)
        if a >= A_RESTART:
            c = a - A_RESTART
            for i in range(st[S_RLO + p], st[S_RHI + p]):
                _discard(st, st[base + i])
            st[S_N_DISCARDED + p] += 1
        else:
            c = a - A_START
        st[S_RLO + p] = ROUTE_MID
        st[S_RHI + p] = ROUTE_MID + 1
        st[base + ROUTE_MID] = c
        st[S_RMASK + p] = 1 << c
    elif a >= A_RIGHT:
        c = a - A_RIGHT
        st[base + st[S_RHI + p]] = c
        st[S_RHI + p] += 1
        st[S_RMASK + p] |= 1 << c
    else:
        c = a - A_LEFT
        st[S_RLO + p] -= 1
        st[base + st[S_RLO + p]] = c
        st[S_RMASK + p] |= 1 << c
    _hand_out(st, p, c)
    _play_done(st, var)


@njit(cache=True, inline="always")
def _step_close(st, tab, var, a):
    """Phase close (§4C): keep the route open, close it, or close it with the Cartwright."""
    if a == A_NO:
        _after_turn_body(st, var)
        return
    p = st[S_CUR]
    if a == A_CLOSE_CART:
        _use_official(st, OFF_CARTWRIGHT)
    st[S_CLOSE_LEN] = st[S_RHI + p] - st[S_RLO + p]
    if st[S_HOUSES_LEFT + p] > 0:
        st[S_PHASE] = PH_HOUSE_MODE
    else:
        _score_close(st, tab, var)


@njit(cache=True, inline="always")
def _step_house_mode(st, tab, var, a):
    """Phase house mode (§4C.1): one house per route region (then pick them), or every route
    city of one region (placed at once when the houses suffice, else picked)."""
    p = st[S_CUR]
    rm = st[S_RMASK + p]
    if a == A_MODE_EACH:
        pend = 0
        for r in range(N_REGIONS):
            if rm & tab[T_REGMASK + r]:
                pend |= 1 << r
        st[S_PICK_MODE] = 0
        st[S_PENDING] = pend
        st[S_PHASE] = PH_HOUSE_PICK
        _pick_next(st, tab, var)
        return
    r = a - A_MODE_REGION
    cand = rm & tab[T_REGMASK + r] & ~st[S_HOUSES + p]
    if _popcount(cand) <= st[S_HOUSES_LEFT + p]:
        while cand:
            _place(st, p, _lowbit(cand))
            cand &= cand - 1
        _score_close(st, tab, var)
    else:
        st[S_PICK_MODE] = 1
        st[S_PENDING] = r
        st[S_PHASE] = PH_HOUSE_PICK


@njit(cache=True, inline="always")
def _step_house_pick(st, tab, var, a):
    """Phase house pick (§4C.1, §7.5): place a house in a route city, or leave a region out."""
    if a != A_HOUSE_SKIP:
        _place(st, st[S_CUR], a - A_HOUSE)
    if st[S_PICK_MODE] == 0:
        st[S_PENDING] &= st[S_PENDING] - 1
    _pick_next(st, tab, var)


@njit(cache=True, inline="always")
def _step_trim(st, var, a):
    """Phase trim (§4C.4, §7.7): discard one hand card; the turn ends at 3 cards."""
    p = st[S_CUR]
    c = a - A_TRIM
    _hand_out(st, p, c)
    _discard(st, c)
    if st[S_HAND_N + p] <= 3:
        _end_turn(st, var)


@njit(cache=True, inline="always")
def _apply_move(st, tab, var, a, rng, script, slog, prng, acts):
    """Body of ``apply_move`` (documented there), inlined only into ``_advance``, the one
    compiled function that applies moves; returns the action applied. ``a < 0``: the ``random``
    policy's decision, drawn from ``prng`` as ``_random_move`` draws it (``acts`` scratch),
    with one dispatch on the phase for the draw and the move."""
    ph = st[S_PHASE]
    if ph == PH_ADMIN:
        if a < 0:
            a = randint(prng, 2)  # A_NO = 0, A_YES = 1
        _step_admin(st, a, rng, script, slog)
        return a
    if ph == PH_DRAW1 or ph == PH_DRAW2:
        if a < 0:
            a = _random_draw(st, prng)
        _step_draw(st, a, rng, script, slog)
        return a
    if ph == PH_PM:
        if a < 0:
            a = randint(prng, 2)
        _step_postmaster(st, a)
        return a
    if ph == PH_PC:
        if a < 0:
            a = randint(prng, 2)
        _step_postal_carrier(st, var, a)
        return a
    if ph == PH_PLAY1 or ph == PH_PLAY2:
        if a < 0:
            a = _random_play(st, tab, prng)
        _step_play(st, var, a)
        return a
    if ph == PH_CLOSE:
        if a < 0:
            a = _random_close(st, prng)
        _step_close(st, tab, var, a)
        return a
    if a < 0:
        a = _random_other(st, tab, acts, prng)
    if ph == PH_HOUSE_MODE:
        _step_house_mode(st, tab, var, a)
    elif ph == PH_HOUSE_PICK:
        _step_house_pick(st, tab, var, a)
    elif ph == PH_TRIM:
        _step_trim(st, var, a)
    return a


# ----------------------------------------------------------------------------- scoring


@njit(cache=True)
def score_final(st, tab, scores):
    """Final scores (§5): best carriage VP + bonus tiles - houses not placed.

    Parameters
    ----------
    st : int64[ST_SIZE]
    tab : int64[TAB_SIZE]
    scores : int64[>= n_players]
        Written in place (points).
    """
    for p in range(st[S_NP]):
        scores[p] = tab[T_CARR_VP + st[S_CARRIAGE + p]] + st[S_TILE_PTS + p] - st[S_HOUSES_LEFT + p]


@njit(cache=True)
def winner_of(st, scores):
    """Winning seat under the tie-break of §5: among the tied leaders, the game-end tile holder,
    else the first tied leader clockwise after the holder. -1 (shared) only if nobody holds it
    (a game stopped by the turn cap)."""
    n = st[S_NP]
    best = scores[0]
    for p in range(1, n):
        if scores[p] > best:
            best = scores[p]
    holder = st[S_END_SEAT]
    if holder < 0:
        cnt = 0
        w = -1
        for p in range(n):
            if scores[p] == best:
                cnt += 1
                w = p
        return w if cnt == 1 else -1
    for d in range(n):
        p = (holder + d) % n
        if scores[p] == best:
            return p
    return -1


@njit(cache=True)
def is_terminal(st):
    return st[S_OVER] == 1


# ----------------------------------------------------------------------------- policies

POL_RANDOM = 0
POL_ROUTE = 1

# route-planner parameters (index into the policy parameter vector)
P_CLOSE_LEN = 0  # close a route once it has this many cards
P_W_REGION = 1  # weight of a card in a region group the player still needs
P_W_HOUSE = 2  # weight of a card where the player has no house yet
P_W_OPEN = 3  # weight per free neighbour of the new route end (room to grow)
P_W_HAND = 4  # weight per hand card that can follow the new end
P_DECK_VALUE = 5  # value of the blind deck draw relative to display cards
P_ADMIN_BELOW = 6  # use the Administrator when the best display card is worth less than this
P_PM_HAND_MAX = 7  # use the Postmaster while the hand has at most this many cards
P_CART = 8  # 1: keep the official for the Cartwright when it buys the next carriage
P_CHASE = 9  # 1: keep building until the route buys the next carriage (with the Cartwright)
N_PARAMS = 10


@njit(cache=True)
def _city_value(st, tab, p, c, prm):
    """How much seat p wants city c on a route (regions and houses still needed)."""
    v = 1.0
    hm = st[S_HOUSES + p]
    if (hm >> c) & 1 == 0:
        v += prm[P_W_HOUSE]
        r = tab[T_REGION + c]
        g = tab[T_CITY_GROUP + c]
        if g >= 0 and (st[S_GROUPS + p] >> g) & 1 == 0 and st[S_STACK + g] > 0:
            v += prm[P_W_REGION] / _popcount(tab[T_GROUP + g] & ~hm)
        if (hm & tab[T_REGMASK + r]) == 0:
            v += 0.5 * prm[P_W_REGION]
    return v


@njit(cache=True)
def _end_value(st, tab, p, end, rmask, prm):
    """Growth prospects at a route end: free neighbours and hand cards that can follow."""
    free = tab[T_ADJ + end] & ~rmask
    v = prm[P_W_OPEN] * _popcount(free)
    h = S_HAND + p * N_CITIES
    while free:
        c = _lowbit(free)
        free &= free - 1
        if st[h + c] > 0:
            v += prm[P_W_HAND]
    return v


@njit(cache=True)
def _hand_extensions(st, tab, p):
    """Number of hand cards that can extend the open route now."""
    lo = st[S_RLO + p]
    hi = st[S_RHI + p]
    if hi == lo:
        return st[S_HAND_N + p]
    rmask = st[S_RMASK + p]
    m = (
        tab[T_ADJ + st[S_ROUTE + p * ROUTE_SLOTS + lo]]
        | tab[T_ADJ + st[S_ROUTE + p * ROUTE_SLOTS + hi - 1]]
    ) & ~rmask
    return _popcount(m & st[S_HMASK + p])


@njit(cache=True)
def _draw_value(st, tab, p, c, prm):
    """Value of drawing city c: a card that extends the route now, or helps one in hand."""
    lo = st[S_RLO + p]
    hi = st[S_RHI + p]
    v = 0.0
    if hi > lo:
        rmask = st[S_RMASK + p]
        if (rmask >> c) & 1:
            return 0.0
        ends = (
            tab[T_ADJ + st[S_ROUTE + p * ROUTE_SLOTS + lo]]
            | tab[T_ADJ + st[S_ROUTE + p * ROUTE_SLOTS + hi - 1]]
        )
        if (ends >> c) & 1:
            v += 2.0 + _city_value(st, tab, p, c, prm)
        else:
            # neighbour of a hand card that extends the route: one step away
            h = S_HAND + p * N_CITIES
            m = ends & ~rmask
            near = False
            while m:
                d = _lowbit(m)
                m &= m - 1
                if st[h + d] > 0 and (tab[T_ADJ + d] >> c) & 1:
                    near = True
                    break
            if near:
                v += 1.0 + 0.5 * _city_value(st, tab, p, c, prm)
    else:
        v += 0.5 * _city_value(st, tab, p, c, prm)
        h = S_HAND + p * N_CITIES
        m = tab[T_ADJ + c]
        while m:
            d = _lowbit(m)
            m &= m - 1
            if st[h + d] > 0:
                v += 0.5
    return v


@njit(cache=True)
def _target_len(st, p, prm):
    """Route length the planner aims for: close_len, or what the next carriage needs."""
    t = prm[P_CLOSE_LEN]
    if prm[P_CHASE] > 0:
        nxt = 3 if st[S_CARRIAGE + p] == 0 else st[S_CARRIAGE + p] + 1
        if nxt <= 7:
            need = nxt - 2 if (prm[P_CART] > 0 and st[S_OFFICIAL] == OFF_NONE) else nxt
            if need > t:
                t = need
    return t


@njit(cache=True)
def _want_close(st, tab, p, prm):
    L = st[S_RHI + p] - st[S_RLO + p]
    if L < 3:
        return False
    if _target_len(st, p, prm) <= L:
        return True
    if st[S_END_SEAT] >= 0:
        return True  # last round: take what there is
    # stuck: no hand card extends the route
    if _hand_extensions(st, tab, p) == 0:
        return True
    return False


@njit(cache=True)
def _cart_pays(st, p, L):
    nxt = 3 if st[S_CARRIAGE + p] == 0 else st[S_CARRIAGE + p] + 1
    return nxt <= 7 and L < nxt <= L + 2


@njit(cache=True)
def _house_option_value(st, tab, p, a, prm):
    """Houses placed + tile values completed for house mode a (approximate for mode i)."""
    hm = st[S_HOUSES + p]
    rm = st[S_RMASK + p]
    add = 0
    if a == A_MODE_EACH:
        for r in range(N_REGIONS):
            cand = rm & tab[T_REGMASK + r] & ~hm
            if cand:
                add |= cand & (~cand + 1)
    else:
        add = rm & tab[T_REGMASK + a - A_MODE_REGION] & ~hm
    k = _popcount(add)
    left = st[S_HOUSES_LEFT + p]
    if k > left:
        k = left
    v = float(k)
    new = hm | add
    for g in range(N_STACKS):
        gm = tab[T_GROUP + g]
        if gm != 0 and (st[S_GROUPS + p] >> g) & 1 == 0 and st[S_STACK + g] > 0:
            if (new & gm) == gm:
                v += tab[T_STACK_VAL + g * MAX_TILES + tab[T_STACK_N + g] - st[S_STACK + g]]
    return v


@njit(cache=True)
def _route_admin(st, tab, p, prm):
    """Administrator: when no display card is worth ``admin_below`` and at most one hand card
    extends the route."""
    best = 0.0
    for i in range(DISPLAY):
        c = st[S_DISPLAY + i]
        if c >= 0:
            v = _draw_value(st, tab, p, c, prm)
            if v > best:
                best = v
    if best < prm[P_ADMIN_BELOW] and _hand_extensions(st, tab, p) <= 1:
        return A_YES
    return A_NO


@njit(cache=True)
def _route_draw(st, tab, p, acts, n, prm, rng):
    """The draw of the highest ``_draw_value`` (the deck is worth ``deck_value``)."""
    best_a = acts[0]
    best = -1e9
    for i in range(n):
        a = acts[i]
        if a == A_DRAW_DECK:
            v = prm[P_DECK_VALUE]
        else:
            v = _draw_value(st, tab, p, a - A_DRAW_DISPLAY, prm)
        v += 1e-3 * random_float(rng)
        if v > best:
            best = v
            best_a = a
    return best_a


@njit(cache=True)
def _route_postmaster(st, tab, p, L, prm):
    """Postmaster while the hand is small, unless the official buys the next carriage as the
    Cartwright."""
    if (
        prm[P_CART] > 0
        and _cart_pays(st, p, L + 1)
        and L + 1 >= 3
        and _hand_extensions(st, tab, p) > 0
    ):
        return A_NO
    if st[S_HAND_N + p] <= prm[P_PM_HAND_MAX]:
        return A_YES
    return A_NO


@njit(cache=True)
def _route_postal_carrier(st, tab, p, L, prm):
    """Postal Carrier when a second extension is in hand and the route is short of its
    target, unless the official buys the next carriage as the Cartwright."""
    if _hand_extensions(st, tab, p) > 0 and _target_len(st, p, prm) > L:
        if not (prm[P_CART] > 0 and _cart_pays(st, p, L) and L >= 3):
            return A_YES
    return A_NO


@njit(cache=True)
def _route_play(st, tab, p, L, acts, n, prm, rng):
    """The play of the highest value: extensions (10 + city + room to grow at both ends),
    new routes (city + room to grow), restarts (penalised by the route length lost)."""
    best_a = acts[0]
    best = -1e9
    rmask = st[S_RMASK + p]
    lo = st[S_RLO + p]
    hi = st[S_RHI + p]
    for i in range(n):
        a = acts[i]
        if a >= A_RESTART:
            c = a - A_RESTART
            v = (
                -5.0
                - 2.0 * L
                + _city_value(st, tab, p, c, prm)
                + _end_value(st, tab, p, c, 1 << c, prm)
            )
        elif a >= A_START:
            c = a - A_START
            v = _city_value(st, tab, p, c, prm) + 2.0 * _end_value(st, tab, p, c, 1 << c, prm)
        elif a >= A_RIGHT:
            c = a - A_RIGHT
            other = st[S_ROUTE + p * ROUTE_SLOTS + lo]
            nm = rmask | (1 << c)
            v = 10.0 + _city_value(st, tab, p, c, prm) + _end_value(st, tab, p, c, nm, prm)
            v += 0.5 * _end_value(st, tab, p, other, nm, prm)
        else:
            c = a - A_LEFT
            other = st[S_ROUTE + p * ROUTE_SLOTS + hi - 1]
            nm = rmask | (1 << c)
            v = 10.0 + _city_value(st, tab, p, c, prm) + _end_value(st, tab, p, c, nm, prm)
            v += 0.5 * _end_value(st, tab, p, other, nm, prm)
        v += 1e-3 * random_float(rng)
        if v > best:
            best = v
            best_a = a
    return best_a


@njit(cache=True)
def _route_close(st, tab, p, L, n, prm):
    """Close when ``_want_close``; with the Cartwright when it buys the next carriage."""
    if _want_close(st, tab, p, prm):
        if n == 3 and prm[P_CART] > 0 and _cart_pays(st, p, L):
            return A_CLOSE_CART
        return A_CLOSE
    return A_NO


@njit(cache=True)
def _route_house_mode(st, tab, p, acts, n, prm, rng):
    """The house option with the most houses + tile points (``_house_option_value``).

    One tie-break draw per option in the list (mode i, then every route region, legal or not),
    so the policy's random stream does not depend on which options place a house: an option
    that places none scores below any that places one, and was never chosen while it was
    (wrongly) offered (issue 11: same route games before and after)."""
    best_a = acts[0]
    best = -1e9
    rm = st[S_RMASK + p]
    i = 0
    for r in range(-1, N_REGIONS):
        a = A_MODE_EACH
        if r >= 0:
            if rm & tab[T_REGMASK + r] == 0:
                continue
            a = A_MODE_REGION + r
        v = _house_option_value(st, tab, p, a, prm) + 1e-3 * random_float(rng)
        if i < n and acts[i] == a:
            i += 1
            if v > best:
                best = v
                best_a = a
    return best_a


@njit(cache=True)
def _route_house_pick(st, tab, p, acts, n, prm, rng):
    """The house in the city of the highest ``_city_value``.

    The skip is never chosen (any house scores more). Its tie-break draw is made whenever the
    list offered it before issue 11 (pending regions counted whether or not they still lack a
    house), so the policy's random stream and its games are unchanged."""
    old_skip = st[S_PICK_MODE] == 0 and st[S_HOUSES_LEFT + p] < _popcount(st[S_PENDING])
    k = n - 1 if acts[n - 1] == A_HOUSE_SKIP else n
    if k + old_skip == 1:
        return acts[0]
    best_a = acts[0]
    best = -1e9
    for i in range(k):
        a = acts[i]
        v = _city_value(st, tab, p, a - A_HOUSE, prm) + 1e-3 * random_float(rng)
        if v > best:
            best = v
            best_a = a
    if old_skip:
        random_float(rng)
    return best_a


@njit(cache=True)
def _route_trim(st, tab, p, acts, n, prm, rng):
    """Drop the card with the fewest neighbours among the other hand cards (duplicates
    first)."""
    h = S_HAND + p * N_CITIES
    best_a = acts[0]
    best = 1e9
    for i in range(n):
        c = acts[i] - A_TRIM
        v = _city_value(st, tab, p, c, prm) + 0.5 * _popcount(tab[T_ADJ + c])
        m = tab[T_ADJ + c]
        while m:
            d = _lowbit(m)
            m &= m - 1
            if st[h + d] > 0:
                v += 1.0
        if st[h + c] > 1:
            v -= 3.0
        v += 1e-3 * random_float(rng)
        if v < best:
            best = v
            best_a = acts[i]
    return best_a


@njit(cache=True)
def _route_policy(st, tab, acts, n, prm, rng):
    """Route-planning heuristic (issue §3): draw and play towards long routes through needed
    regions, close at a length threshold, use officials when they pay (one function per
    phase, ``_route_*``)."""
    ph = st[S_PHASE]
    p = st[S_CUR]
    if n == 1 and ph != PH_HOUSE_PICK:
        return acts[0]
    L = st[S_RHI + p] - st[S_RLO + p]
    if ph == PH_ADMIN:
        return _route_admin(st, tab, p, prm)
    if ph == PH_DRAW1 or ph == PH_DRAW2:
        return _route_draw(st, tab, p, acts, n, prm, rng)
    if ph == PH_PM:
        return _route_postmaster(st, tab, p, L, prm)
    if ph == PH_PC:
        return _route_postal_carrier(st, tab, p, L, prm)
    if ph == PH_PLAY1 or ph == PH_PLAY2:
        return _route_play(st, tab, p, L, acts, n, prm, rng)
    if ph == PH_CLOSE:
        return _route_close(st, tab, p, L, n, prm)
    if ph == PH_HOUSE_MODE:
        return _route_house_mode(st, tab, p, acts, n, prm, rng)
    if ph == PH_HOUSE_PICK:
        return _route_house_pick(st, tab, p, acts, n, prm, rng)
    if ph == PH_TRIM:
        return _route_trim(st, tab, p, acts, n, prm, rng)
    return acts[randint(rng, n)]


@njit(cache=True)
def choose_action(st, tab, acts, n, pol_id, prm, rng):
    """Policy decision: ``acts[:n]`` legal; returns one of them.

    ``POL_RANDOM``: uniform over the legal decisions of the phase, except that in a play phase
    the route is discarded only when no extension is possible. ``POL_ROUTE``: ``_route_policy``.

    This is the reference definition; the play loop (``_advance``) draws ``random`` decisions
    as ``_random_move`` does (in ``_apply_move``'s dispatch on the phase), which gives the same
    actions from the same random draws without listing every legal action, and calls
    ``_route_policy`` for ``route``.
    """
    if pol_id == POL_ROUTE:
        return _route_policy(st, tab, acts, n, prm, rng)
    return _random_choice(st, acts, n, rng)


@njit(cache=True, inline="always")
def _random_choice(st, acts, n, rng):
    if n == 1:
        return acts[0]
    ph = st[S_PHASE]
    if (ph == PH_PLAY1 or ph == PH_PLAY2) and acts[0] < A_START:
        # random: uniform over the extensions; the route is discarded only when none exists
        k = 0
        while k < n and acts[k] < A_START:
            k += 1
        return acts[randint(rng, k)]
    return acts[randint(rng, n)]


@njit(inline="always")
def _select_bit(m, r):
    """Index of the r-th (0-based, lowest first) set bit of a mask with more than r bits set."""
    for _ in range(r):
        m &= m - 1
    return _lowbit(m)


@njit(cache=True, inline="always")
def _random_play(st, tab, rng):
    """``random`` in a play phase: a play phase lists left extensions, right extensions, then
    route restarts (or starts), each in city order, so the r-th extension is the r-th set bit of
    ``left`` then of ``right``; restarts only when no extension exists (``choose_action``)."""
    p = st[S_CUR]
    hm = st[S_HMASK + p]
    if hm == 0:
        return A_NO
    lo = st[S_RLO + p]
    hi = st[S_RHI + p]
    if hi == lo:
        k = _popcount(hm)
        if k == 1:
            return A_START + _lowbit(hm)
        return A_START + _select_bit(hm, randint(rng, k))
    rmask = st[S_RMASK + p]
    left = 0
    if hi - lo > 1:
        left = tab[T_ADJ + st[S_ROUTE + p * ROUTE_SLOTS + lo]] & ~rmask & hm
    right = tab[T_ADJ + st[S_ROUTE + p * ROUTE_SLOTS + hi - 1]] & ~rmask & hm
    nl = _popcount(left)
    k = nl + _popcount(right)
    if k > 0:
        r = randint(rng, k)
        if r < nl:
            return A_LEFT + _select_bit(left, r)
        return A_RIGHT + _select_bit(right, r - nl)
    k = _popcount(hm)
    if k == 1:
        return A_RESTART + _lowbit(hm)
    return A_RESTART + _select_bit(hm, randint(rng, k))


@njit(cache=True, inline="always")
def _random_draw(st, rng):
    """``random`` in a draw phase: display cities in slot order (first copy of each), then the
    deck, as ``_draw_options`` lists them; A_NO when nothing can be drawn."""
    seen = 0
    k = 0
    for i in range(DISPLAY):
        c = st[S_DISPLAY + i]
        if c >= 0 and (seen >> c) & 1 == 0:
            seen |= 1 << c
            k += 1
    deck = 1 if st[S_DECK_END] > st[S_DECK_TOP] or st[S_DISC_N] > 0 else 0
    if k + deck == 0:
        return A_NO
    r = 0 if k + deck == 1 else randint(rng, k + deck)
    if r == k:
        return A_DRAW_DECK
    seen = 0
    for i in range(DISPLAY):
        c = st[S_DISPLAY + i]
        if c >= 0 and (seen >> c) & 1 == 0:
            if r == 0:
                return A_DRAW_DISPLAY + c
            seen |= 1 << c
            r -= 1
    return A_NO  # not reached


@njit(cache=True, inline="always")
def _random_close(st, rng):
    """``random`` in the close phase: no / close / close with the Cartwright (if no official)."""
    r = randint(rng, 3 if st[S_OFFICIAL] == OFF_NONE else 2)
    return A_NO if r == 0 else A_CLOSE + r - 1


@njit(cache=True, inline="always")
def _random_other(st, tab, acts, rng):
    """``random`` in the remaining phases: uniform over ``legal_moves``."""
    n = legal_moves(st, tab, acts)
    if n == 1:
        return acts[0]
    return acts[randint(rng, n)]


@njit(cache=True, inline="always")
def _random_move(st, tab, acts, rng):
    """The ``random`` policy's decision (definition: ``choose_action``), drawn fast.

    Same action and same random draws as ``_random_choice`` over ``legal_moves`` (tested in
    ``tests/test_thurn_and_taxis_run.py``), but the yes/no, draw, play and close phases are
    drawn without listing every legal action.
    """
    ph = st[S_PHASE]
    if ph == PH_ADMIN or ph == PH_PM or ph == PH_PC:
        return randint(rng, 2)  # A_NO = 0, A_YES = 1
    if ph == PH_PLAY1 or ph == PH_PLAY2:
        return _random_play(st, tab, rng)
    if ph == PH_DRAW1 or ph == PH_DRAW2:
        return _random_draw(st, rng)
    if ph == PH_CLOSE:
        return _random_close(st, rng)
    return _random_other(st, tab, acts, rng)


@njit(cache=True, _nrt=False)
def _advance(
    st, tab, var, a, policy_ids, policy_params, prngs, acts, deal_rng, script, slog, alog, plies
):
    """Apply decision ``a`` (if ``a >= 0``), then play the decisions of ``random`` and ``route``
    seats until a seat with another policy (``mcts``) is to move or the game is over; returns
    the decisions taken so far.

    Parameters
    ----------
    st, tab, var, deal_rng, script, slog
        As in ``apply_move``.
    a : int64
        A legal action of the seat to move, or -1 (none: start with the ``random`` seats).
    policy_ids : int64[>= n_players]
        Seat k plays ``random`` here iff ``policy_ids[k] == POL_RANDOM``, ``route`` iff
        ``POL_ROUTE``; any other id stops the loop when that seat is to move.
    policy_params : float64[>= n_players, >= N_PARAMS] or None
        The ``route`` seats' parameters. None compiles an engine without the ``route`` policy
        (random runs, replays: issue 13 §5); then a ``route`` seat stops the loop like ``mcts``.
    prngs : uint64[MAX_SEATS, 4]
        The seats' policy streams (row k: seat k).
    acts : int64[MAX_ACTIONS]
        Scratch.
    alog : int64[m]
        Action log (m > 1 to log): decision number i is written to ``alog[i]`` (if i < m).
    plies : int64
        Decisions taken before this call.

    Notes
    -----
    This is the only compiled function holding the engine's move code (``_apply_move``
    inlined), so that a run, its records, their replays and the search share its machine code
    (compile time, issue 13 §5); the ``random`` and ``route`` decisions are taken in its loop,
    without a call per decision (a call per decision would cost a third of the speed of a
    random game). The decisions are ``choose_action``'s.
    Compiled without NRT (it allocates nothing, see ``play_batch``).
    """
    n_log = alog.shape[0] if alog.shape[0] > 1 else 0  # log decisions 0 .. n_log - 1
    while True:
        if a < 0:
            if st[S_OVER] != 0:
                break
            p = st[S_CUR]
            pid = policy_ids[p]
            if pid != POL_RANDOM:  # (random, the fast path: one test per decision)
                if pid != POL_ROUTE:
                    break
                if policy_params is None:  # pruned at compile time: no route code compiled
                    break
                n = legal_moves(st, tab, acts)
                a = _route_policy(st, tab, acts, n, policy_params[p], prngs[p])
        # random (a < 0): drawn in _apply_move's dispatch on the phase
        a = _apply_move(st, tab, var, a, deal_rng, script, slog, prngs[st[S_CUR]], acts)
        if plies < n_log:
            alog[plies] = a
        plies += 1
        a = -1
    return plies


NO_MOVE = np.int64(-1)  # ``_advance``: no decision given (int64 constants: no literal compiles)
ZERO = np.int64(0)
_NOT_RANDOM = np.full(MAX_SEATS, -1, dtype=np.int64)  # policy ids: no random or route seat
_NO_STREAMS = np.zeros((MAX_SEATS, 4), dtype=np.uint64)
_NO_ACTS = np.zeros(MAX_ACTIONS, dtype=np.int64)
_NO_LOG = np.zeros(1, dtype=np.int64)


def apply_move(st, tab, var, a, rng, script, slog):
    """Apply legal action ``a`` (see the module docstring) to ``st`` in place.

    Parameters
    ----------
    st : int64[ST_SIZE]
    tab : int64[TAB_SIZE]
    var : int64[N_VARIANT_SLOTS]
    a : int
        Must be one of ``legal_moves`` (not checked here).
    rng : uint64[4]
        Deal stream, used only to reshuffle the discard pile (§4A).
    script : int64[k]
        Replay: concatenated reshuffle orders (empty array: shuffle with ``rng``).
    slog : int64[m]
        Reshuffle log (size <= 1: no logging).

    Notes
    -----
    Plain Python: calls the compiled ``_advance`` (one move, no seat playing ``random``), the
    engine compiled for random play (no ``route`` code), so that replays compile nothing of
    their own after a random run (issue 13 §5).
    Caller validates. docs/rules/thurn_und_taxis.md §4-§6.
    """
    _advance(
        st,
        tab,
        var,
        np.int64(a),
        _NOT_RANDOM,
        None,
        _NO_STREAMS,
        _NO_ACTS,
        rng,
        script,
        slog,
        _NO_LOG,
        np.int64(0),
    )


# ----------------------------------------------------------------------------- games


@njit(cache=True)
def deal_deck(deal_rng, deck):
    """The shuffled 66-card deck (3 cards per city, §2) from the deal stream."""
    for c in range(N_CITIES):
        for k in range(3):
            deck[3 * c + k] = c
    shuffle(deal_rng, deck)


@njit(cache=True, _nrt=False)
def _setup_game(st, tab, n_players, game_index, root_seed, deck, deal_rng, prngs):
    """Deal game ``game_index`` (§3) into ``st`` and ``deck`` and seed its streams in place:
    ``deal_rng`` (uint64[4]) from ``STREAM_DEAL``, row k of ``prngs`` (uint64[MAX_SEATS, 4])
    from ``STREAM_POLICY + k`` (as ``kernels.rng.new_state``, without allocating)."""
    seed_state(
        deal_rng, game_seed(np.uint64(root_seed), np.uint64(game_index), np.uint64(STREAM_DEAL))
    )
    deal_deck(deal_rng, deck)
    init_state(st, n_players, deck)
    init_stacks(st, tab)
    for p in range(n_players):
        seed_state(
            prngs[p],
            game_seed(np.uint64(root_seed), np.uint64(game_index), np.uint64(STREAM_POLICY + p)),
        )


@njit(cache=True)
def _store_game(st, tab, n_players, g, n_plies, out, sc):
    """Row ``g`` of the ``play_batch`` outputs ``out`` from the final state ``st``
    (``sc`` int64[MAX_SEATS] scratch)."""
    (
        score,
        win,
        plies,
        turns,
        end_reason,
        end_seat,
        officials,
        forced,
        carriage,
        houses_left,
        tile_pts,
        closed,
        closed_len,
        route_hist,
        tiles_taken,
    ) = out
    plies[g] = n_plies
    score_final(st, tab, sc)
    w = winner_of(st, sc)
    if w >= 0:
        win[g, w] = 1.0
    else:
        best = sc[0]
        for p in range(1, n_players):
            best = max(best, sc[p])
        k = 0
        for p in range(n_players):
            if sc[p] == best:
                k += 1
        for p in range(n_players):
            if sc[p] == best:
                win[g, p] = 1.0 / k
    turns[g] = st[S_TURN]
    end_reason[g] = st[S_END_REASON]
    end_seat[g] = st[S_END_SEAT]
    for p in range(n_players):
        score[g, p] = sc[p]
        for o in range(5):
            officials[g, p, o] = st[S_N_OFFICIAL + p * 5 + o]
        forced[g, p] = st[S_N_FORCED + p]
        carriage[g, p] = st[S_CARRIAGE + p]
        houses_left[g, p] = st[S_HOUSES_LEFT + p]
        tile_pts[g, p] = st[S_TILE_PTS + p]
        closed[g, p] = st[S_N_CLOSED + p]
        closed_len[g, p] = st[S_CLOSED_LEN_SUM + p]
    for k in range(23):
        route_hist[g, k] = st[S_ROUTE_HIST + k]
    for s in range(N_STACKS):
        tiles_taken[g, s] = st[S_TILES_TAKEN + s]


#: the outputs of ``play_batch`` (name, dtype, shape after (n_games,): "p" = n_players)
OUTPUTS = (
    ("score", np.int64, "p"),  # final points (§5)
    ("win", np.float64, "p"),  # 1 for the tie-break winner (§5), shared equally if no holder
    ("plies", np.int32, ""),  # decisions taken
    ("turns", np.int32, ""),  # turns played
    ("end_reason", np.int8, ""),  # END_CARRIAGE / END_HOUSES / END_CAP
    ("end_seat", np.int8, ""),  # seat that took the game-end tile (-1)
    ("officials", np.int32, "p5"),  # officials used (index OFF_*; forced Postmaster included)
    ("forced", np.int32, "p"),  # forced Postmaster turns
    ("carriage", np.int8, "p"),  # highest carriage (0 = none)
    ("houses_left", np.int8, "p"),
    ("tile_pts", np.int16, "p"),
    ("closed", np.int16, "p"),  # routes closed
    ("closed_len", np.int32, "p"),  # sum of closed route lengths
    ("route_hist", np.int32, "23"),  # closed routes by length (index = length)
    ("tiles_taken", np.int8, "10"),  # tiles taken per stack
)


def new_outputs(n_games, n_players):
    """The zeroed output arrays of ``play_batch`` (a tuple in ``OUTPUTS`` order), allocated by
    NumPy outside the kernels (no compile)."""
    dims = {"": (), "p": (n_players,), "p5": (n_players, 5), "23": (23,), "10": (N_STACKS,)}
    return tuple(np.zeros((n_games,) + dims[d], dtype=t) for _, t, d in OUTPUTS)


def new_scratch(log_actions=0, log_reshuffles=0):
    """The scratch of ``play_batch``: (st int64[ST_SIZE], deck int64[66], deal stream
    uint64[4], policy streams uint64[MAX_SEATS, 4], actions int64[MAX_ACTIONS], empty reshuffle
    script int64[0], action log int64[max(1, log_actions)], reshuffle log
    int64[max(1, log_reshuffles)], points int64[MAX_SEATS]). A log of size 1 logs nothing."""
    return (
        np.zeros(ST_SIZE, dtype=np.int64),
        np.zeros(N_CARDS, dtype=np.int64),
        np.zeros(4, dtype=np.uint64),
        np.zeros((MAX_SEATS, 4), dtype=np.uint64),
        np.zeros(MAX_ACTIONS, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
        np.full(max(1, log_actions), -1, dtype=np.int64),
        np.zeros(max(1, log_reshuffles), dtype=np.int64),
        np.zeros(MAX_SEATS, dtype=np.int64),
    )


# Numba's reference counting (atomic NRT_incref/NRT_decref calls on every array passed
# through the inlined helpers) cost about two thirds of the time of the play loop; the refcount
# pruning pass cannot remove them across its many branches (numba/numba#2345, #2350). The loop
# allocates nothing (outputs and scratch come from NumPy, ``new_outputs``, ``new_scratch``), so
# it is compiled without NRT (``_nrt=False``, the Numba developers' workaround in those issues):
# 2.9x faster, same results. Everything it calls must not allocate (a compile error says so).
#
# Compile time (issue 13 §5): Numba links the machine code of every callee into each compiled
# caller and optimises it again, and an ``inline="always"`` helper is copied (as Numba IR) into
# every caller. So the engine is compiled once, in ``legal_moves`` and ``apply_move`` (their
# phase steps inlined into them), and called from here, from the search and from the replay;
# the game loop is inlined into this single entry kernel, which also plays the games of records
# (with logs), so a run, its records and their replays compile the engine once.
@njit(cache=True, _nrt=False)
def play_batch(
    first_game_index, n_games, root_seed, n_players, policy_ids, policy_params, var, tab, out, scr
):
    """Play games ``first_game_index .. + n_games - 1``; one row per game in each output.

    Parameters
    ----------
    first_game_index, n_games : int64
    root_seed : uint64
        The deck is shuffled from stream ``STREAM_DEAL`` (also used for reshuffles), seat k's
        policy draws from ``STREAM_POLICY + k``: game i depends only on (root_seed, i), and
        every policy sees the same deal.
    n_players : int64
        2..4.
    policy_ids : int64[n_players]  (no ``POL_MCTS``: see ``play_batch_mcts``)
    policy_params : float64[n_players, >= N_PARAMS], or None when no seat plays ``route``
        (then no ``route`` code is compiled, see ``_advance``)
    var : int64[N_VARIANT_SLOTS]
    tab : int64[TAB_SIZE]
    out : tuple
        ``new_outputs(n_games, n_players)``, written in place (``OUTPUTS``: name, dtype, shape).
    scr : tuple
        ``new_scratch(...)``; after the call it holds the last game: its final state
        (``st[S_ALOG_N]`` = decisions taken), dealt deck, action log (if longer than 1) and
        reshuffle log (if longer than 1: for each reshuffle, the pile size then the new deck
        order).

    Notes
    -----
    jit-compiled without NRT; caller validates.
    """
    st, deck, deal_rng, prngs, acts, script, alog, slog, sc = scr
    for g in range(n_games):
        _setup_game(st, tab, n_players, first_game_index + g, root_seed, deck, deal_rng, prngs)
        # every seat plays random or route (the Python side checks): the whole game
        plies = _advance(
            st,
            tab,
            var,
            NO_MOVE,
            policy_ids,
            policy_params,
            prngs,
            acts,
            deal_rng,
            script,
            slog,
            alog,
            ZERO,
        )
        st[S_ALOG_N] = plies
        _store_game(st, tab, n_players, g, plies, out, sc)


# ----------------------------------------------------------------------------- search (mcts)
#
# Information-set MCTS (``kernels.search``) for the ``mcts`` policy. Compiled only through
# ``play_batch_mcts``: the Python side picks that entry kernel when a seat
# plays ``mcts``, so a random or route run never compiles the search. The search state is the
# game's own ``int64[ST_SIZE]`` vector (the only 1-D int64 state registered with the search:
# Sacred Hill's is uint64 1-D, Don Quixote's int64 2-D, El Grande's int32 2-D). The step
# functions are inlined into the search's per-step lambdas (``search.register``), each of
# which is compiled on its own: one compiled level fewer below the search than plain calls,
# and the moves are applied by ``_advance``, the play engine (compile time, issue 13 §5).

POL_MCTS = 2

#: ``mcts`` parameter positions: iterations per decision, UCB1 constant, reward
#: (``search.REWARD_WIN`` / ``REWARD_MARGIN`` / ``REWARD_POINTS``), rollout policy (``POL_RANDOM`` / ``POL_ROUTE``),
#: then from ``P_MCTS_BASE`` the rollout's ``route`` parameters (filled in by the Python side with
#: the ``route`` defaults)
P_MCTS_ITER, P_MCTS_C, P_MCTS_REWARD, P_MCTS_ROLLOUT = range(4)
P_MCTS_BASE = 4
N_MCTS_PARAMS = P_MCTS_BASE + N_PARAMS
#: points per unit of the margin and points rewards
MARGIN_SCALE = 10.0
#: bonus in a playout's points for the seat that wins the tie-break (§5), so that the win
#: reward goes to it alone; below one point, so it never reorders different scores
TIE_BREAK_BONUS = 0.5
#: deepest tree path (decisions below the root); a game has far fewer decisions per iteration
SEARCH_DEPTH = 512
N_MOVE_CODES = 256


def _is_tt_state(t):
    return (
        isinstance(t, types.Array)
        and t.ndim == 1
        and t.dtype == types.int64
        and t.layout in ("C", "A")
    )


@njit(cache=True, inline="always")
def _search_copy(dst, src):
    for k in range(ST_SIZE):
        dst[k] = src[k]


@njit(cache=True, inline="always")
def _search_determinize(st, ctx, rng):
    """Deal what the seat to move cannot see (§7 #12: the deck order and the other seats' hand
    cards not known from the display) anew: the unseen cards (3 per city minus its own hand,
    the display, the discard pile, every route and the known cards of the others) are shuffled
    and dealt to the others' unknown hand cards (their sizes are public) and to the deck. Reads
    only what the seat sees."""
    tab, var, srng, acts, pool, cnt, kind, prm, sc, script, slog, noids, noprm, nostreams = ctx
    p = st[S_CUR]
    n = st[S_NP]
    for c in range(N_CITIES):
        cnt[c] = 3 - st[S_HAND + p * N_CITIES + c]
    for i in range(DISPLAY):
        c = st[S_DISPLAY + i]
        if c >= 0:
            cnt[c] -= 1
    for i in range(st[S_DISC_N]):
        cnt[st[S_DISC + i]] -= 1
    for q in range(n):
        base = S_ROUTE + q * ROUTE_SLOTS
        for i in range(st[S_RLO + q], st[S_RHI + q]):
            cnt[st[base + i]] -= 1
        if q != p:
            for c in range(N_CITIES):
                cnt[c] -= st[S_KNOWN + q * N_CITIES + c]
    k = 0
    for c in range(N_CITIES):
        for _ in range(cnt[c]):
            pool[k] = c
            k += 1
    shuffle_fast(rng, pool[:k])
    pos = 0
    for q in range(n):
        if q == p:
            continue
        h = S_HAND + q * N_CITIES
        kn = S_KNOWN + q * N_CITIES
        unknown = st[S_HAND_N + q]
        hm = 0
        for c in range(N_CITIES):
            st[h + c] = st[kn + c]
            unknown -= st[kn + c]
            if st[kn + c] > 0:
                hm |= 1 << c
        for _ in range(unknown):
            c = pool[pos]
            pos += 1
            st[h + c] += 1
            hm |= 1 << c
        st[S_HMASK + q] = hm
    m = k - pos  # = cards left in the deck
    for i in range(m):
        st[S_DECK + i] = pool[pos + i]
    st[S_DECK_TOP] = 0
    st[S_DECK_END] = m


@njit(cache=True, inline="always")
def _search_legal(st, ctx, moves):
    """The moves the search considers: the legal moves, except that in a play phase the route
    is discarded (restart) only when no card extends it (as ``random`` plays; the ``route``
    policy restarts only then too)."""
    if st[S_OVER] != 0:
        return 0
    n = legal_moves(st, ctx[0], moves)
    ph = st[S_PHASE]
    if (ph == PH_PLAY1 or ph == PH_PLAY2) and moves[0] < A_START:
        k = 1
        while k < n and moves[k] < A_START:
            k += 1
        return k
    return n


@njit(cache=True, inline="always")
def _search_to_move(st, ctx):
    return st[S_CUR]


@njit(cache=True, inline="always")
def _search_step(st, ctx, move, rng):
    """``apply_move`` in the search: the play engine (``_advance``, one move: no seat plays
    ``random`` or ``route`` there), ``rng`` the reshuffle stream."""
    tab, var, srng, acts, pool, cnt, kind, prm, sc, script, slog, noids, noprm, nostreams = ctx
    _advance(
        st, tab, var, np.int64(move), noids, noprm, nostreams, acts, rng, script, slog, slog, ZERO
    )


@njit(cache=True, inline="always")
def _search_apply(st, ctx, move):
    _search_step(st, ctx, move, ctx[2])


@njit(cache=True, inline="always")
def _search_rollout(st, ctx, rng, scores):
    """Finish the game with ``kind`` (``POL_RANDOM`` or ``POL_ROUTE`` with ``prm``) for every
    seat; ``scores`` = final points (§5) + ``TIE_BREAK_BONUS`` for the tie-break winner."""
    tab, var, srng, acts, pool, cnt, kind, prm, sc, script, slog, noids, noprm, nostreams = ctx
    if kind == POL_RANDOM:
        while st[S_OVER] == 0:
            _search_step(st, ctx, _random_move(st, tab, acts, rng), rng)
    else:
        while st[S_OVER] == 0:
            n = legal_moves(st, tab, acts)
            _search_step(st, ctx, _route_policy(st, tab, acts, n, prm, rng), rng)
    score_final(st, tab, sc)
    w = winner_of(st, sc)
    for q in range(st[S_NP]):
        scores[q] = sc[q] + (TIE_BREAK_BONUS if q == w else 0.0)


search.register(
    _is_tt_state,
    copy=lambda dst, src: _search_copy(dst, src),
    determinize=lambda state, ctx, rng: _search_determinize(state, ctx, rng),
    legal=lambda state, ctx, moves: _search_legal(state, ctx, moves),
    to_move=lambda state, ctx: _search_to_move(state, ctx),
    apply=lambda state, ctx, move: _search_apply(state, ctx, move),
    rollout=lambda state, ctx, rng, scores: _search_rollout(state, ctx, rng, scores),
)


# The search compiled for this game without its own cache entry: ``search.search`` caches under
# kernels/search.py, and Numba's cache does not see that the step functions above (inlined into
# it) changed when only this file changes, so a cached ``search.search`` would keep the old ones.
# Compiled here, the search is cached inside ``choose_mcts`` (this file) and recompiled with it.
_search = njit(search.search.py_func)
#: ``search.flat`` likewise (benchmarks: the same playouts without the tree)
flat_search = njit(search.flat.py_func)


@njit(cache=True)
def search_capacity(policy_ids, policy_params):
    """Tree nodes needed by the ``mcts`` seats of a game (iterations + 1; 2 if none)."""
    cap = 2
    for p in range(policy_ids.shape[0]):
        if policy_ids[p] == POL_MCTS:
            cap = max(cap, np.int64(policy_params[p, P_MCTS_ITER]) + 1)
    return cap


@njit(cache=True)
def search_scratch(tab, var, capacity):
    """Scratch of ``choose_mcts`` for trees of ``capacity`` nodes: (ctx, work state, tree,
    value, logs, moves, untried, mark, path, scores, reward). ``ctx`` is the search's game
    context: (tab, var, reshuffle stream uint64[4], actions int64[MAX_ACTIONS], card pool
    int64[66], city counts int64[22], rollout policy id int64[1] holder, route parameters
    float64[N_PARAMS], points int64[MAX_SEATS], empty script, 1-slot reshuffle log, and for
    ``_advance`` policy ids int64[MAX_SEATS] with no ``random`` or ``route`` seat, unused
    parameters float64[MAX_SEATS, N_PARAMS] and streams uint64[MAX_SEATS, 4])."""
    ctx = (
        tab,
        var,
        np.zeros(4, np.uint64),
        np.zeros(MAX_ACTIONS, np.int64),
        np.zeros(N_CARDS, np.int64),
        np.zeros(N_CITIES, np.int64),
        np.int64(POL_ROUTE),
        np.zeros(N_PARAMS, np.float64),
        np.zeros(MAX_SEATS, np.int64),
        np.empty(0, np.int64),
        np.zeros(1, np.int64),
        np.full(MAX_SEATS, -1, np.int64),
        np.zeros((MAX_SEATS, N_PARAMS), np.float64),
        np.zeros((MAX_SEATS, 4), np.uint64),
    )
    return (
        ctx,
        np.zeros(ST_SIZE, np.int64),
        np.zeros((capacity, search.TREE_COLS), np.int64),
        np.zeros(capacity, np.float64),
        np.zeros(capacity, np.float64),
        np.zeros(MAX_ACTIONS, np.int64),
        np.zeros(MAX_ACTIONS, np.int64),
        np.zeros(N_MOVE_CODES, np.int64),
        np.zeros(SEARCH_DEPTH + 2, np.int64),
        np.zeros(MAX_SEATS, np.float64),
        np.zeros(MAX_SEATS, np.float64),
    )


@njit(cache=True)
def choose_mcts(st, prm, rng, scr):
    """The ``mcts`` decision of the seat to move in ``st`` (int64[ST_SIZE], read only; the
    hidden parts are only resampled in a copy) by ISMCTS with the parameters ``P_MCTS_*`` of
    ``prm`` (float64[>= N_MCTS_PARAMS]); ``rng`` the seat's policy stream (uint64[4], the only
    source of randomness); ``scr`` from ``search_scratch``. Returns a legal action."""
    ctx0, work, tree, value, logs, moves, untried, mark, path, scores, reward = scr
    tab, var, srng, acts, pool, cnt, kind0, rprm, sc, script, slog, noids, noprm, nostreams = ctx0
    for k in range(N_PARAMS):
        rprm[k] = prm[P_MCTS_BASE + k]
    seed_state(srng, next_u64(rng))
    kind = np.int64(prm[P_MCTS_ROLLOUT])
    ctx = (tab, var, srng, acts, pool, cnt, kind, rprm, sc, script, slog, noids, noprm, nostreams)
    n = st[S_NP]
    return _search(
        st,
        ctx,
        np.int64(prm[P_MCTS_ITER]),
        prm[P_MCTS_C],
        np.int64(prm[P_MCTS_REWARD]),
        MARGIN_SCALE,
        rng,
        work,
        tree,
        value,
        logs,
        moves,
        untried,
        mark,
        path,
        scores[:n],
        reward[:n],
    )


@njit(cache=True)
def play_batch_mcts(
    first_game_index, n_games, root_seed, n_players, policy_ids, policy_params, var, tab, out, scr
):
    """``play_batch`` (same arguments, outputs and streams) for lineups with ``mcts`` seats:
    the search is compiled only into this entry kernel (with NRT: the search allocates)."""
    st, deck, deal_rng, prngs, acts, script, alog, slog, sc = scr
    for g in range(n_games):
        # fresh search scratch per game: a game's result must not depend on its chunk
        sscr = search_scratch(tab, var, search_capacity(policy_ids, policy_params))
        _setup_game(st, tab, n_players, first_game_index + g, root_seed, deck, deal_rng, prngs)
        a = NO_MOVE
        plies = ZERO
        while True:
            plies = _advance(
                st,
                tab,
                var,
                a,
                policy_ids,
                policy_params,
                prngs,
                acts,
                deal_rng,
                script,
                slog,
                alog,
                plies,
            )
            if st[S_OVER] != 0:
                break
            p = st[S_CUR]  # an mcts seat is to move
            a = choose_mcts(st, policy_params[p], prngs[p], sscr)
        st[S_ALOG_N] = plies
        _store_game(st, tab, n_players, g, plies, out, sc)
