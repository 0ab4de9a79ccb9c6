"""Thurn and Taxis rules: setup, legal decisions, apply, scoring, terminal test.

Rule source: ``docs/rules/thurn_und_taxis.md`` (§3 setup, §4 turn, §5 end and score, §6
officials, §7 ambiguity defaults). Numba only; never imports ``mcsim``. State layout and codes:
``kernels.thurn_and_taxis.layout``.

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

The moves are applied by ``_apply_move``, inlined only into the play engine
(``kernels.thurn_and_taxis.policies._advance``); ``apply_move`` (there too) is its Python entry.
"""

import numpy as np
from numba import njit

from kernels.bitboard import ctpop, cttz
from kernels.rng import randint, shuffle, shuffle_fast
from kernels.thurn_and_taxis.layout import (
    A_CLOSE,
    A_CLOSE_CART,
    A_DRAW_DECK,
    A_DRAW_DISPLAY,
    A_HOUSE,
    A_HOUSE_SKIP,
    A_LEFT,
    A_MODE_EACH,
    A_MODE_REGION,
    A_NO,
    A_RESTART,
    A_RIGHT,
    A_START,
    A_TRIM,
    A_YES,
    DISPLAY,
    END_CAP,
    END_CARRIAGE,
    END_HOUSES,
    END_NONE,
    HOUSES,
    MAX_SEATS,
    MAX_TILES,
    N_CARDS,
    N_CITIES,
    N_REGIONS,
    N_STACKS,
    OFF_ADMINISTRATOR,
    OFF_CARTWRIGHT,
    OFF_NONE,
    OFF_POSTAL_CARRIER,
    OFF_POSTMASTER,
    PH_ADMIN,
    PH_CLOSE,
    PH_DRAW1,
    PH_DRAW2,
    PH_HOUSE_MODE,
    PH_HOUSE_PICK,
    PH_OVER,
    PH_PC,
    PH_PLAY1,
    PH_PLAY2,
    PH_PM,
    PH_TRIM,
    ROUTE_MID,
    ROUTE_SLOTS,
    S_CARRIAGE,
    S_CLOSE_LEN,
    S_CLOSED_LEN_SUM,
    S_CUR,
    S_DECK,
    S_DECK_END,
    S_DECK_TOP,
    S_DISC,
    S_DISC_N,
    S_DISPLAY,
    S_END_REASON,
    S_END_SEAT,
    S_ERROR,
    S_FORCED,
    S_GROUPS,
    S_HAND,
    S_HAND_N,
    S_HMASK,
    S_HOUSES,
    S_HOUSES_LEFT,
    S_KNOWN,
    S_N_CLOSED,
    S_N_DISCARDED,
    S_N_FORCED,
    S_N_OFFICIAL,
    S_NP,
    S_OFFICIAL,
    S_OVER,
    S_PENDING,
    S_PHASE,
    S_PICK_MODE,
    S_PLAYS,
    S_RHI,
    S_RLO,
    S_RMASK,
    S_ROUTE,
    S_ROUTE_HIST,
    S_SCRIPT_POS,
    S_SLOG_N,
    S_STACK,
    S_TILE_PTS,
    S_TILES_TAKEN,
    S_TURN,
    STK_ALL_REGIONS,
    STK_GAME_END,
    T_ADJ,
    T_ALL_REG,
    T_CARR_VP,
    T_GROUP,
    T_REGMASK,
    T_ROUTE_LEN,
    T_STACK_N,
    T_STACK_VAL,
    V_ALL_REGIONS_BAIERN,
    V_CASCADE,
    V_HAND_LIMIT,
    V_MAX_TURNS,
)

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
    """Take the top deck card (reshuffling the discard pile if the deck is empty, §4A); -1 if
    none."""
    if st[S_DECK_TOP] == st[S_DECK_END]:
        _reshuffle(st, rng, script, slog)
        if st[S_DECK_TOP] == st[S_DECK_END]:
            return -1
    c = st[S_DECK + st[S_DECK_TOP]]
    st[S_DECK_TOP] += 1
    return c


@njit(cache=True, inline="always")
def _refill_display(st, rng, script, slog):
    """Fill the empty display slots from the deck at once (§4A)."""
    for i in range(DISPLAY):
        if st[S_DISPLAY + i] < 0:
            st[S_DISPLAY + i] = _deck_card(st, rng, script, slog)


@njit(cache=True, inline="always")
def _discard(st, c):
    """City card c onto the discard pile (§4A Administrator, §4C.4)."""
    st[S_DISC + st[S_DISC_N]] = c
    st[S_DISC_N] += 1


@njit(cache=True)
def deal_deck(deal_rng, deck):
    """The shuffled 66-card deck (3 cards per city, §2) from the deal stream."""
    for c in range(N_CITIES):
        for k in range(3):
            deck[3 * c + k] = c
    shuffle(deal_rng, deck)


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
    """Start the turn of the seat to move: no official yet; an empty hand forces the
    Postmaster (§4A, §6)."""
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
    """Next seat's turn, or the game's end: the round is finished after the trigger (§5);
    the turn cap ends it too (``V_MAX_TURNS``)."""
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
    """End of the optional close phase: every-turn hand limit variant (§7.7), then next turn."""
    p = st[S_CUR]
    if var[V_HAND_LIMIT] == 1 and st[S_HAND_N + p] > 3:
        st[S_PHASE] = PH_TRIM
        return
    _end_turn(st, var)


# ----------------------------------------------------------------------------- legal actions


@njit(cache=True, inline="always")
def _draw_options(st, out, n):
    """Draw decisions (§4A): each display city once (slot order), then the deck if it or
    the discard pile holds a card; A_NO if nothing can be drawn (§7 #10). Returns the new n."""
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
    """Play decisions (§4B): left and right extensions (adjacent, not on the route), then
    restarts (or starts on an empty route); A_NO with an empty hand. Returns the new n."""
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
    """Route cities of the region being served that still lack an own house (§4C.1)."""
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
    """Top tile of stack s to seat p (§2.2, §4C.2); returns its value (0 if the stack is
    empty)."""
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
    """The first end trigger (7-carriage or last house) gives seat p the game-end tile (§5)."""
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
    card of c in that hand, if any was known (``S_KNOWN``, §7 #12)."""
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
    """A house of seat p in city c (§4C.1)."""
    st[S_HOUSES + p] |= 1 << c
    st[S_HOUSES_LEFT + p] -= 1


@njit(cache=True, inline="always")
def _draw_done(st):
    """After a draw: the Postmaster's second draw (taken, or offered while no official is
    used), else the play phase (§4A)."""
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
    """After a play: the Postal Carrier's offer, else the close phase (§4B, §6)."""
    p = st[S_CUR]
    st[S_PLAYS] += 1
    if st[S_PHASE] == PH_PLAY1 and st[S_OFFICIAL] == OFF_NONE and st[S_HAND_N + p] > 0:
        st[S_PHASE] = PH_PC
    else:
        _to_close(st, var)


@njit(cache=True, inline="always")
def _to_close(st, var):
    """The optional close phase when the route has at least 3 cards, else the turn's end
    (§4C)."""
    p = st[S_CUR]
    if st[S_RHI + p] - st[S_RLO + p] >= 3:
        st[S_PHASE] = PH_CLOSE
    else:
        _after_turn_body(st, var)


@njit(cache=True)
def _pick_next(st, tab, var):
    """Advance the house-pick phase: skip regions with nothing to place; finish when done
    (§4C.1)."""
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


# The ``random`` policy's fast draws (definition: ``policies.choose_action``) are here, not in
# ``policies``: ``_apply_move`` draws a ``random`` seat's decision in its dispatch on the phase.


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
    """True when the game is over (§5)."""
    return st[S_OVER] == 1
