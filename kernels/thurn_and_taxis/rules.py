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
    FB_ADMINISTRATOR,
    FB_CARTWRIGHT,
    FB_POSTAL_CARRIER,
    FB_POSTMASTER,
    FB_ROUTE_TILE,
    FB_ROUTE_UNDER,
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
def _reshuffle(state, rng, script, reshuffle_log):
    """Discard pile -> new deck (§4A). From ``script`` when replaying, else shuffled by ``rng``."""
    k = state[S_DISC_N]
    if k == 0:
        return
    for i in range(k):
        state[S_DECK + i] = state[S_DISC + i]
    state[S_DECK_TOP] = 0
    state[S_DECK_END] = k
    state[S_DISC_N] = 0
    if script.shape[0] > 0:
        pos = state[S_SCRIPT_POS]
        if pos + k > script.shape[0]:
            state[S_ERROR] = 1
            return
        # the scripted order must be a permutation of the pile (no allocation here: this runs
        # inside the NRT-free play loop, see play_batch)
        for i in range(k):
            c = script[pos + i]
            if c < 0 or c >= N_CITIES:
                state[S_ERROR] = 1
                return
        for c in range(N_CITIES):
            d = 0
            for i in range(k):
                d += (state[S_DECK + i] == c) - (script[pos + i] == c)
            if d != 0:
                state[S_ERROR] = 1
                return
        for i in range(k):
            state[S_DECK + i] = script[pos + i]
        state[S_SCRIPT_POS] = pos + k
    else:
        shuffle_fast(rng, state[S_DECK : S_DECK + k])
    if reshuffle_log.shape[0] > 1:
        # log: the pile size, then the new deck order
        n = state[S_SLOG_N]
        if n + k + 1 <= reshuffle_log.shape[0]:
            reshuffle_log[n] = k
            for i in range(k):
                reshuffle_log[n + 1 + i] = state[S_DECK + i]
            state[S_SLOG_N] = n + k + 1


@njit(cache=True, inline="always")
def _deck_card(state, rng, script, reshuffle_log):
    """Take the top deck card (reshuffling the discard pile if the deck is empty, §4A); -1 if
    none."""
    if state[S_DECK_TOP] == state[S_DECK_END]:
        _reshuffle(state, rng, script, reshuffle_log)
        if state[S_DECK_TOP] == state[S_DECK_END]:
            return -1
    c = state[S_DECK + state[S_DECK_TOP]]
    state[S_DECK_TOP] += 1
    return c


@njit(cache=True, inline="always")
def _refill_display(state, rng, script, reshuffle_log):
    """Fill the empty display slots from the deck at once (§4A)."""
    for i in range(DISPLAY):
        if state[S_DISPLAY + i] < 0:
            state[S_DISPLAY + i] = _deck_card(state, rng, script, reshuffle_log)


@njit(cache=True, inline="always")
def _discard(state, c):
    """City card c onto the discard pile (§4A Administrator, §4C.4)."""
    state[S_DISC + state[S_DISC_N]] = c
    state[S_DISC_N] += 1


@njit(cache=True)
def deal_deck(deal_rng, deck):
    """The shuffled 66-card deck (3 cards per city, §2) from the deal stream."""
    for c in range(N_CITIES):
        for k in range(3):
            deck[3 * c + k] = c
    shuffle(deal_rng, deck)


@njit(cache=True)
def init_state(state, n_players, deck):
    """Set up a game (§3): ``deck`` int64[66] city ids in deal order; the first 6 form the display.

    Parameters
    ----------
    state : int64[ST_SIZE]
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
    state[:] = 0
    state[S_NP] = n_players
    state[S_END_SEAT] = -1
    state[S_END_REASON] = END_NONE
    for i in range(N_CARDS):
        state[S_DECK + i] = deck[i]
    state[S_DECK_TOP] = DISPLAY
    state[S_DECK_END] = N_CARDS
    for i in range(DISPLAY):
        state[S_DISPLAY + i] = deck[i]
    for p in range(MAX_SEATS):
        state[S_RLO + p] = ROUTE_MID
        state[S_RHI + p] = ROUTE_MID
        state[S_HOUSES_LEFT + p] = HOUSES
    _begin_turn(state)


@njit(cache=True)
def init_stacks(state, tables):
    """Fill the bonus stacks from the tables (§2.2, all 30 tiles for every player count, §7.6)."""
    for s in range(N_STACKS):
        state[S_STACK + s] = tables[T_STACK_N + s]


@njit(cache=True, inline="always")
def _begin_turn(state):
    """Start the turn of the seat to move: no official yet; an empty hand forces the
    Postmaster (§4A, §6)."""
    p = state[S_CUR]
    state[S_OFFICIAL] = OFF_NONE
    state[S_FORCED] = 0
    state[S_PLAYS] = 0
    if state[S_HAND_N + p] == 0:
        # forced Postmaster (§4A): two draws, no other official this turn
        _use_official(state, OFF_POSTMASTER)
        state[S_FORCED] = 1
        state[S_N_FORCED + p] += 1
        state[S_PHASE] = PH_DRAW1
    else:
        state[S_PHASE] = PH_ADMIN


@njit(cache=True, _nrt=False)
def _end_turn(state, variant):
    """Next seat's turn, or the game's end: the round is finished after the trigger (§5);
    the turn cap ends it too (``V_MAX_TURNS``)."""
    p = state[S_CUR]
    n = state[S_NP]
    state[S_TURN] += 1
    if state[S_END_SEAT] >= 0 and p == n - 1:
        state[S_OVER] = 1
        state[S_PHASE] = PH_OVER
        return
    if state[S_TURN] >= variant[V_MAX_TURNS]:
        state[S_OVER] = 1
        state[S_PHASE] = PH_OVER
        if state[S_END_REASON] == END_NONE:
            state[S_END_REASON] = END_CAP
        return
    state[S_CUR] = p + 1 if p + 1 < n else 0
    _begin_turn(state)


@njit(cache=True, inline="always")
def _after_turn_body(state, variant):
    """End of the optional close phase: every-turn hand limit variant (§7.7), then next turn."""
    p = state[S_CUR]
    if variant[V_HAND_LIMIT] == 1 and state[S_HAND_N + p] > 3:
        state[S_PHASE] = PH_TRIM
        return
    _end_turn(state, variant)


# ----------------------------------------------------------------------------- legal actions


@njit(cache=True, inline="always")
def _draw_options(state, out_moves, n):
    """Draw decisions (§4A): each display city once (slot order), then the deck if it or
    the discard pile holds a card; A_NO if nothing can be drawn (§7 #10). Returns the new n."""
    seen = 0
    for i in range(DISPLAY):
        c = state[S_DISPLAY + i]
        if c >= 0 and (seen >> c) & 1 == 0:
            seen |= 1 << c
            out_moves[n] = A_DRAW_DISPLAY + c
            n += 1
    if state[S_DECK_END] > state[S_DECK_TOP] or state[S_DISC_N] > 0:
        out_moves[n] = A_DRAW_DECK
        n += 1
    if n == 0:
        out_moves[n] = A_NO  # nothing to draw (§7.10): the draw is skipped
        n += 1
    return n


@njit(cache=True, inline="always")
def _play_options(state, tables, out_moves, n):
    """Play decisions (§4B): left and right extensions (adjacent, not on the route), then
    restarts (or starts on an empty route); A_NO with an empty hand. Returns the new n."""
    p = state[S_CUR]
    hm = state[S_HMASK + p]
    if hm == 0:
        out_moves[n] = A_NO
        return n + 1
    lo = state[S_RLO + p]
    hi = state[S_RHI + p]
    if hi == lo:
        m = hm
        while m:
            c = _lowbit(m)
            m &= m - 1
            out_moves[n] = A_START + c
            n += 1
        return n
    rmask = state[S_RMASK + p]
    right = state[S_ROUTE + p * ROUTE_SLOTS + hi - 1]
    if hi - lo > 1:
        m = tables[T_ADJ + state[S_ROUTE + p * ROUTE_SLOTS + lo]] & ~rmask & hm
        while m:
            c = _lowbit(m)
            m &= m - 1
            out_moves[n] = A_LEFT + c
            n += 1
    m = tables[T_ADJ + right] & ~rmask & hm
    while m:
        c = _lowbit(m)
        m &= m - 1
        out_moves[n] = A_RIGHT + c
        n += 1
    m = hm
    while m:
        c = _lowbit(m)
        m &= m - 1
        out_moves[n] = A_RESTART + c
        n += 1
    return n


@njit(cache=True)
def _pick_candidates(state, tables):
    """Route cities of the region being served that still lack an own house (§4C.1)."""
    p = state[S_CUR]
    if state[S_PICK_MODE] == 0:
        r = _lowbit(state[S_PENDING])
    else:
        r = state[S_PENDING]
    return state[S_RMASK + p] & tables[T_REGMASK + r] & ~state[S_HOUSES + p]


@njit(cache=True, inline="always")
def _regions_to_serve(state, tables):
    """Mode (i) house pick: pending regions (the one being served included) with a route city
    still lacking an own house (§4C.1: fully housed regions are passed over, not served)."""
    p = state[S_CUR]
    open_ = state[S_RMASK + p] & ~state[S_HOUSES + p]
    pend = state[S_PENDING]
    k = 0
    while pend:
        r = _lowbit(pend)
        pend &= pend - 1
        if open_ & tables[T_REGMASK + r]:
            k += 1
    return k


@njit(cache=True, _nrt=False)
def legal_moves(state, tables, out_moves):
    """Write the legal actions of the position into ``out_moves`` (int64[>= MAX_ACTIONS]); return
    count.

    Parameters
    ----------
    state : int64[ST_SIZE]
    tables : int64[TAB_SIZE]
    out_moves : int64[MAX_ACTIONS]

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
    ph = state[S_PHASE]
    p = state[S_CUR]
    n = 0
    if ph == PH_ADMIN:
        out_moves[0] = A_NO
        out_moves[1] = A_YES
        return 2
    if ph == PH_DRAW1 or ph == PH_DRAW2:
        return _draw_options(state, out_moves, 0)
    if ph == PH_PM or ph == PH_PC:
        out_moves[0] = A_NO
        out_moves[1] = A_YES
        return 2
    if ph == PH_PLAY1 or ph == PH_PLAY2:
        return _play_options(state, tables, out_moves, 0)
    if ph == PH_CLOSE:
        out_moves[0] = A_NO
        out_moves[1] = A_CLOSE
        n = 2
        if state[S_OFFICIAL] == OFF_NONE:
            out_moves[2] = A_CLOSE_CART
            n = 3
        return n
    if ph == PH_HOUSE_MODE:
        # placing is mandatory (§4C.1, §7.13): an option that places no house (a region whose
        # route cities all hold his house) is legal only when no option places any; houses left
        # are > 0 here (_step_close), so mode (i) places one as soon as any route city lacks one
        out_moves[0] = A_MODE_EACH
        n = 1
        rm = state[S_RMASK + p]
        open_ = rm & ~state[S_HOUSES + p]
        for r in range(N_REGIONS):
            if rm & tables[T_REGMASK + r] and (open_ == 0 or open_ & tables[T_REGMASK + r]):
                out_moves[n] = A_MODE_REGION + r
                n += 1
        return n
    if ph == PH_HOUSE_PICK:
        cand = _pick_candidates(state, tables)
        while cand:
            c = _lowbit(cand)
            cand &= cand - 1
            out_moves[n] = A_HOUSE + c
            n += 1
        if state[S_PICK_MODE] == 0 and state[S_HOUSES_LEFT + p] < _regions_to_serve(state, tables):
            # houses short (§4C.1, §7.5): he may leave out a region only while fewer houses
            # are left than regions that still lack his house on the route
            out_moves[n] = A_HOUSE_SKIP
            n += 1
        return n
    if ph == PH_TRIM:
        m = state[S_HMASK + p]
        while m:
            c = _lowbit(m)
            m &= m - 1
            out_moves[n] = A_TRIM + c
            n += 1
        return n
    return 0


# ----------------------------------------------------------------------------- apply


@njit(cache=True)
def _take(state, tables, p, s):
    """Top tile of stack s to seat p (§2.2, §4C.2); returns its value (0 if the stack is
    empty)."""
    left = state[S_STACK + s]
    if left == 0:
        return 0
    v = tables[T_STACK_VAL + s * MAX_TILES + tables[T_STACK_N + s] - left]
    state[S_STACK + s] = left - 1
    state[S_TILE_PTS + p] += v
    state[S_TILES_TAKEN + s] += 1
    return v


@njit(cache=True)
def _trigger_end(state, tables, p, reason):
    """The first end trigger (7-carriage or last house) gives seat p the game-end tile (§5)."""
    if state[S_END_SEAT] < 0:
        state[S_END_SEAT] = p
        state[S_END_REASON] = reason
        _take(state, tables, p, np.int64(STK_GAME_END))


@njit(cache=True)
def _score_close(state, tables, variant):
    """§4C steps 2-4 after the houses are placed: tiles, carriage, discard, trim."""
    p = state[S_CUR]
    L = state[S_CLOSE_LEN]
    # route tile with cascade (§4C.2, §7.3)
    s = -1
    for k in range(2, -1, -1):
        if tables[T_ROUTE_LEN + k] <= L:
            s = k
            break
    while s >= 0:
        if state[S_STACK + s] > 0:
            _take(state, tables, p, s)
            break
        if variant[V_CASCADE] == 1:
            break
        s -= 1
    # region groups, one tile per group per player
    hm = state[S_HOUSES + p]
    for g in range(N_STACKS):
        gm = tables[T_GROUP + g]
        if gm != 0 and (state[S_GROUPS + p] >> g) & 1 == 0 and (hm & gm) == gm:
            if state[S_STACK + g] > 0:
                state[S_GROUPS + p] |= 1 << g
                _take(state, tables, p, g)
    # all regions (outside Baiern by default)
    if (state[S_GROUPS + p] >> STK_ALL_REGIONS) & 1 == 0 and state[S_STACK + STK_ALL_REGIONS] > 0:
        need = tables[T_ALL_REG + variant[V_ALL_REGIONS_BAIERN]]
        ok = True
        for r in range(N_REGIONS):
            if (need >> r) & 1 and (hm & tables[T_REGMASK + r]) == 0:
                ok = False
                break
        if ok:
            state[S_GROUPS + p] |= 1 << STK_ALL_REGIONS
            _take(state, tables, p, np.int64(STK_ALL_REGIONS))
    # carriage: strictly the next one; Cartwright counts the route as 2 longer (§4C.3)
    nxt = 3 if state[S_CARRIAGE + p] == 0 else state[S_CARRIAGE + p] + 1
    if nxt <= 7:
        eff = L + 2 if state[S_OFFICIAL] == OFF_CARTWRIGHT else L
        if eff >= nxt:
            state[S_CARRIAGE + p] = nxt
            if nxt == 7:
                _trigger_end(state, tables, p, np.int64(END_CARRIAGE))
    if state[S_HOUSES_LEFT + p] == 0:
        _trigger_end(state, tables, p, np.int64(END_HOUSES))
    # route cards to the discard pile
    base = S_ROUTE + p * ROUTE_SLOTS
    for i in range(state[S_RLO + p], state[S_RHI + p]):
        _discard(state, state[base + i])
    state[S_RLO + p] = ROUTE_MID
    state[S_RHI + p] = ROUTE_MID
    state[S_RMASK + p] = 0
    state[S_N_CLOSED + p] += 1
    state[S_CLOSED_LEN_SUM + p] += L
    state[S_ROUTE_HIST + min(L, 22)] += 1
    if state[S_HAND_N + p] > 3:
        state[S_PHASE] = PH_TRIM
    else:
        _end_turn(state, variant)


@njit(cache=True, inline="always")
def _hand_out(state, p, c):
    """A card of city c leaves seat p's hand, face up (played or trimmed): one fewer known
    card of c in that hand, if any was known (``S_KNOWN``, §7 #12)."""
    h = S_HAND + p * N_CITIES
    state[h + c] -= 1
    state[S_HAND_N + p] -= 1
    if state[h + c] == 0:
        state[S_HMASK + p] &= ~(1 << c)
    k = S_KNOWN + p * N_CITIES + c
    if state[k] > 0:
        state[k] -= 1


@njit(cache=True, inline="always")
def _place(state, p, c):
    """A house of seat p in city c (§4C.1)."""
    state[S_HOUSES + p] |= 1 << c
    state[S_HOUSES_LEFT + p] -= 1


@njit(cache=True, inline="always")
def _draw_done(state):
    """After a draw: the Postmaster's second draw (taken, or offered while no official is
    used), else the play phase (§4A)."""
    ph = state[S_PHASE]
    if ph == PH_DRAW1:
        if state[S_OFFICIAL] == OFF_POSTMASTER:
            state[S_PHASE] = PH_DRAW2
        elif state[S_OFFICIAL] == OFF_NONE:
            state[S_PHASE] = PH_PM
        else:
            state[S_PHASE] = PH_PLAY1
    else:
        state[S_PHASE] = PH_PLAY1


@njit(cache=True, inline="always")
def _play_done(state, variant):
    """After a play: the Postal Carrier's offer, else the close phase (§4B, §6)."""
    p = state[S_CUR]
    state[S_PLAYS] += 1
    if state[S_PHASE] == PH_PLAY1 and state[S_OFFICIAL] == OFF_NONE and state[S_HAND_N + p] > 0:
        state[S_PHASE] = PH_PC
    else:
        _to_close(state, variant)


@njit(cache=True, inline="always")
def _to_close(state, variant):
    """The optional close phase when the route has at least 3 cards, else the turn's end
    (§4C)."""
    p = state[S_CUR]
    if state[S_RHI + p] - state[S_RLO + p] >= 3:
        state[S_PHASE] = PH_CLOSE
    else:
        _after_turn_body(state, variant)


@njit(cache=True)
def _pick_next(state, tables, variant):
    """Advance the house-pick phase: skip regions with nothing to place; finish when done
    (§4C.1)."""
    p = state[S_CUR]
    if state[S_PICK_MODE] == 0:
        while state[S_PENDING] != 0 and state[S_HOUSES_LEFT + p] > 0:
            if _pick_candidates(state, tables) != 0:
                return
            state[S_PENDING] &= state[S_PENDING] - 1
    else:
        if state[S_HOUSES_LEFT + p] > 0 and _pick_candidates(state, tables) != 0:
            return
    _score_close(state, tables, variant)


@njit(cache=True, inline="always")
def _use_official(state, off):
    """The player to move takes official ``off`` this turn (at most one per turn, §4)."""
    state[S_OFFICIAL] = off
    state[S_N_OFFICIAL + state[S_CUR] * 5 + off] += 1


@njit(cache=True, inline="always")
def _step_admin(state, a, rng, script, reshuffle_log):
    """Phase Administrator offer (§6): ``a`` = A_YES replaces the whole display."""
    if a == A_YES:
        _use_official(state, OFF_ADMINISTRATOR)
        for i in range(DISPLAY):
            if state[S_DISPLAY + i] >= 0:
                _discard(state, state[S_DISPLAY + i])
                state[S_DISPLAY + i] = -1
        _refill_display(state, rng, script, reshuffle_log)
    state[S_PHASE] = PH_DRAW1


@njit(cache=True, inline="always")
def _step_draw(state, a, rng, script, reshuffle_log):
    """Phase draw (§4A): the deck's top card, a display card, or nothing (A_NO)."""
    p = state[S_CUR]
    h = S_HAND + p * N_CITIES
    if a == A_DRAW_DECK:
        c = _deck_card(state, rng, script, reshuffle_log)
        if c >= 0:
            state[h + c] += 1
            state[S_HAND_N + p] += 1
            state[S_HMASK + p] |= 1 << c
    elif a >= A_DRAW_DISPLAY and a < A_DRAW_DISPLAY + N_CITIES:
        c = a - A_DRAW_DISPLAY
        for i in range(DISPLAY):
            if state[S_DISPLAY + i] == c:
                state[S_DISPLAY + i] = -1
                break
        state[h + c] += 1
        state[S_HAND_N + p] += 1
        state[S_HMASK + p] |= 1 << c
        state[S_KNOWN + p * N_CITIES + c] += 1
        _refill_display(state, rng, script, reshuffle_log)
    _draw_done(state)


@njit(cache=True, inline="always")
def _step_postmaster(state, a):
    """Postmaster offer after the first draw (§6): A_YES gives a second draw."""
    if a == A_YES:
        _use_official(state, OFF_POSTMASTER)
        state[S_PHASE] = PH_DRAW2
    else:
        state[S_PHASE] = PH_PLAY1


@njit(cache=True, inline="always")
def _step_postal_carrier(state, variant, a):
    """Postal Carrier offer after the first play (§6): A_YES gives a second play."""
    if a == A_YES:
        _use_official(state, OFF_POSTAL_CARRIER)
        state[S_PHASE] = PH_PLAY2
    else:
        _to_close(state, variant)


@njit(cache=True, inline="always")
def _step_play(state, variant, a):
    """Phase play (§4B): extend either end, start a route, discard and restart, or pass."""
    if a == A_NO:
        _to_close(state, variant)
        return
    p = state[S_CUR]
    base = S_ROUTE + p * ROUTE_SLOTS
    if a >= A_START:  # a new route of one card (restart: after discarding the open one)
        if a >= A_RESTART:
            c = a - A_RESTART
            for i in range(state[S_RLO + p], state[S_RHI + p]):
                _discard(state, state[base + i])
            state[S_N_DISCARDED + p] += 1
        else:
            c = a - A_START
        state[S_RLO + p] = ROUTE_MID
        state[S_RHI + p] = ROUTE_MID + 1
        state[base + ROUTE_MID] = c
        state[S_RMASK + p] = 1 << c
    elif a >= A_RIGHT:
        c = a - A_RIGHT
        state[base + state[S_RHI + p]] = c
        state[S_RHI + p] += 1
        state[S_RMASK + p] |= 1 << c
    else:
        c = a - A_LEFT
        state[S_RLO + p] -= 1
        state[base + state[S_RLO + p]] = c
        state[S_RMASK + p] |= 1 << c
    _hand_out(state, p, c)
    _play_done(state, variant)


@njit(cache=True, inline="always")
def _step_close(state, tables, variant, a):
    """Phase close (§4C): keep the route open, close it, or close it with the Cartwright."""
    if a == A_NO:
        _after_turn_body(state, variant)
        return
    p = state[S_CUR]
    if a == A_CLOSE_CART:
        _use_official(state, OFF_CARTWRIGHT)
    state[S_CLOSE_LEN] = state[S_RHI + p] - state[S_RLO + p]
    if state[S_HOUSES_LEFT + p] > 0:
        state[S_PHASE] = PH_HOUSE_MODE
    else:
        _score_close(state, tables, variant)


@njit(cache=True, inline="always")
def _step_house_mode(state, tables, variant, a):
    """Phase house mode (§4C.1): one house per route region (then pick them), or every route
    city of one region (placed at once when the houses suffice, else picked)."""
    p = state[S_CUR]
    rm = state[S_RMASK + p]
    if a == A_MODE_EACH:
        pend = 0
        for r in range(N_REGIONS):
            if rm & tables[T_REGMASK + r]:
                pend |= 1 << r
        state[S_PICK_MODE] = 0
        state[S_PENDING] = pend
        state[S_PHASE] = PH_HOUSE_PICK
        _pick_next(state, tables, variant)
        return
    r = a - A_MODE_REGION
    cand = rm & tables[T_REGMASK + r] & ~state[S_HOUSES + p]
    if _popcount(cand) <= state[S_HOUSES_LEFT + p]:
        while cand:
            _place(state, p, _lowbit(cand))
            cand &= cand - 1
        _score_close(state, tables, variant)
    else:
        state[S_PICK_MODE] = 1
        state[S_PENDING] = r
        state[S_PHASE] = PH_HOUSE_PICK


@njit(cache=True, inline="always")
def _step_house_pick(state, tables, variant, a):
    """Phase house pick (§4C.1, §7.5): place a house in a route city, or leave a region out."""
    if a != A_HOUSE_SKIP:
        _place(state, state[S_CUR], a - A_HOUSE)
    if state[S_PICK_MODE] == 0:
        state[S_PENDING] &= state[S_PENDING] - 1
    _pick_next(state, tables, variant)


@njit(cache=True, inline="always")
def _step_trim(state, variant, a):
    """Phase trim (§4C.4, §7.7): discard one hand card; the turn ends at 3 cards."""
    p = state[S_CUR]
    c = a - A_TRIM
    _hand_out(state, p, c)
    _discard(state, c)
    if state[S_HAND_N + p] <= 3:
        _end_turn(state, variant)


# The ``random`` policy's fast draws (definition: ``policies.choose_action``) are here, not in
# ``policies``: ``_apply_move`` draws a ``random`` seat's decision in its dispatch on the phase.


@njit(inline="always")
def _select_bit(m, r):
    """Index of the r-th (0-based, lowest first) set bit of a mask with more than r bits set."""
    for _ in range(r):
        m &= m - 1
    return _lowbit(m)


@njit(cache=True, inline="always")
def _random_play(state, tables, rng):
    """``random`` in a play phase: a play phase lists left extensions, right extensions, then
    route restarts (or starts), each in city order, so the r-th extension is the r-th set bit of
    ``left`` then of ``right``; restarts only when no extension exists (``choose_action``)."""
    p = state[S_CUR]
    hm = state[S_HMASK + p]
    if hm == 0:
        return A_NO
    lo = state[S_RLO + p]
    hi = state[S_RHI + p]
    if hi == lo:
        k = _popcount(hm)
        if k == 1:
            return A_START + _lowbit(hm)
        return A_START + _select_bit(hm, randint(rng, k))
    rmask = state[S_RMASK + p]
    left = 0
    if hi - lo > 1:
        left = tables[T_ADJ + state[S_ROUTE + p * ROUTE_SLOTS + lo]] & ~rmask & hm
    right = tables[T_ADJ + state[S_ROUTE + p * ROUTE_SLOTS + hi - 1]] & ~rmask & hm
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
def _random_draw(state, rng):
    """``random`` in a draw phase: display cities in slot order (first copy of each), then the
    deck, as ``_draw_options`` lists them; A_NO when nothing can be drawn."""
    seen = 0
    k = 0
    for i in range(DISPLAY):
        c = state[S_DISPLAY + i]
        if c >= 0 and (seen >> c) & 1 == 0:
            seen |= 1 << c
            k += 1
    deck = 1 if state[S_DECK_END] > state[S_DECK_TOP] or state[S_DISC_N] > 0 else 0
    if k + deck == 0:
        return A_NO
    r = 0 if k + deck == 1 else randint(rng, k + deck)
    if r == k:
        return A_DRAW_DECK
    seen = 0
    for i in range(DISPLAY):
        c = state[S_DISPLAY + i]
        if c >= 0 and (seen >> c) & 1 == 0:
            if r == 0:
                return A_DRAW_DISPLAY + c
            seen |= 1 << c
            r -= 1
    return A_NO  # not reached


@njit(cache=True, inline="always")
def _random_close(state, rng):
    """``random`` in the close phase: no / close / close with the Cartwright (if no official)."""
    r = randint(rng, 3 if state[S_OFFICIAL] == OFF_NONE else 2)
    return A_NO if r == 0 else A_CLOSE + r - 1


@njit(cache=True, inline="always")
def _random_other(state, tables, actions, rng):
    """``random`` in the remaining phases: uniform over ``legal_moves``."""
    n = legal_moves(state, tables, actions)
    if n == 1:
        return actions[0]
    return actions[randint(rng, n)]


@njit(cache=True, inline="always")
def _apply_move(state, tables, variant, a, rng, script, reshuffle_log, policy_rng, actions):
    """Body of ``apply_move`` (documented there), inlined only into ``_advance``, the one
    compiled function that applies moves; returns the action applied. ``a < 0``: the ``random``
    policy's decision, drawn from ``policy_rng`` as ``_random_move`` draws it (``actions`` scratch),
    with one dispatch on the phase for the draw and the move."""
    ph = state[S_PHASE]
    if ph == PH_ADMIN:
        if a < 0:
            a = randint(policy_rng, 2)  # A_NO = 0, A_YES = 1
        _step_admin(state, a, rng, script, reshuffle_log)
        return a
    if ph == PH_DRAW1 or ph == PH_DRAW2:
        if a < 0:
            a = _random_draw(state, policy_rng)
        _step_draw(state, a, rng, script, reshuffle_log)
        return a
    if ph == PH_PM:
        if a < 0:
            a = randint(policy_rng, 2)
        _step_postmaster(state, a)
        return a
    if ph == PH_PC:
        if a < 0:
            a = randint(policy_rng, 2)
        _step_postal_carrier(state, variant, a)
        return a
    if ph == PH_PLAY1 or ph == PH_PLAY2:
        if a < 0:
            a = _random_play(state, tables, policy_rng)
        _step_play(state, variant, a)
        return a
    if ph == PH_CLOSE:
        if a < 0:
            a = _random_close(state, policy_rng)
        _step_close(state, tables, variant, a)
        return a
    if a < 0:
        a = _random_other(state, tables, actions, policy_rng)
    if ph == PH_HOUSE_MODE:
        _step_house_mode(state, tables, variant, a)
    elif ph == PH_HOUSE_PICK:
        _step_house_pick(state, tables, variant, a)
    elif ph == PH_TRIM:
        _step_trim(state, variant, a)
    return a


# ----------------------------------------------------------------------------- scoring


@njit(cache=True)
def score_final(state, tables, out_scores):
    """Final scores (§5): best carriage VP + bonus tiles - houses not placed.

    Parameters
    ----------
    state : int64[ST_SIZE]
    tables : int64[TAB_SIZE]
    out_scores : int64[>= n_players]
        Written in place (points).
    """
    for p in range(state[S_NP]):
        out_scores[p] = (
            tables[T_CARR_VP + state[S_CARRIAGE + p]]
            + state[S_TILE_PTS + p]
            - state[S_HOUSES_LEFT + p]
        )


@njit(cache=True)
def winner_of(state, scores):
    """Winning seat under the tie-break of §5: among the tied leaders, the game-end tile holder,
    else the first tied leader clockwise after the holder. -1 (shared) only if nobody holds it
    (a game stopped by the turn cap)."""
    n = state[S_NP]
    best = scores[0]
    for p in range(1, n):
        if scores[p] > best:
            best = scores[p]
    holder = state[S_END_SEAT]
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
def is_terminal(state):
    """True when the game is over (§5)."""
    return state[S_OVER] == 1


# ----------------------------------------------------------------------------- restricted play
# docs/rules/thurn_und_taxis.md §11: the options a seat can be forbidden (mask bits ``FB_*``),
# and which legal actions of a position a mask forbids. A bonus-tile family is forbidden as a
# close that earns a tile of it: an action (close, house mode, house) is forbidden when every
# way to finish the close from it earns one (the house choices still to come included), so
# the seat closes only when it can score the route without such a tile, and then places its
# houses so that it does not take one.

#: family bits of ``_close_earns`` (the bonus bits of a mask shifted down by FB_ROUTE_TILE)
_FAM_ROUTE = 1
_FAM_REGION = 2
_FAM_ALL = 4
_FAM_END = 8


@njit(cache=True)
def _route_tile_due(state, tables, variant, L):
    """True when closing a route of L cards takes a route tile (§4C.2 with the cascade of
    §7.3, as ``_score_close`` takes it)."""
    s = -1
    for k in range(2, -1, -1):
        if tables[T_ROUTE_LEN + k] <= L:
            s = k
            break
    while s >= 0:
        if state[S_STACK + s] > 0:
            return True
        if variant[V_CASCADE] == 1:
            return False
        s -= 1
    return False


@njit(cache=True)
def _close_earns(state, tables, variant, p, hm, left, L, cart7, fam):
    """True when a close of seat p that ends with own houses ``hm`` and ``left`` houses left
    (route of L cards; ``cart7``: it takes the 7-carriage) earns a tile of a family in ``fam``
    (``_FAM_*``), as ``_score_close`` awards them (§4C.2, §5)."""
    if fam & _FAM_ROUTE and _route_tile_due(state, tables, variant, L):
        return True
    if fam & _FAM_END and state[S_END_SEAT] < 0 and (cart7 or left == 0):
        return True
    taken = state[S_GROUPS + p]
    if fam & _FAM_REGION:
        for g in range(N_STACKS):
            gm = tables[T_GROUP + g]
            if gm != 0 and (taken >> g) & 1 == 0 and state[S_STACK + g] > 0 and hm & gm == gm:
                return True
    if fam & _FAM_ALL and (taken >> STK_ALL_REGIONS) & 1 == 0 and state[S_STACK + STK_ALL_REGIONS]:
        need = tables[T_ALL_REG + variant[V_ALL_REGIONS_BAIERN]]
        for r in range(N_REGIONS):
            if (need >> r) & 1 and hm & tables[T_REGMASK + r] == 0:
                return False
        return True
    return False


@njit(cache=True)
def _each_avoidable(state, tables, variant, p, hm, left, pend, L, cart7, fam):
    """Mode (i) from here (§4C.1): seat p, own houses ``hm``, ``left`` houses, regions
    ``pend`` still to serve. True when some way to finish places its houses without earning a
    tile of ``fam``.

    Mode (i) serves k = min(left, R) of the R pending regions that still lack his house on the
    route (any k of them: a region may be left out while houses are short), one house each. A
    group's tile then comes only from the regions missing exactly one city, that city on the
    route (the house there is the only one the region can take), so which house a region takes
    never matters: the finish avoids a group's tile iff it leaves out one of those regions,
    and the all-regions tile iff it leaves out one region still without a house. The R - k
    regions left out must hit every such set; the group sets are disjoint (a region belongs to
    one group), so the fewest needed are one per group, plus one when no group's set meets
    the all-regions set."""
    rm = state[S_RMASK + p]
    open_ = rm & ~hm
    served = 0  # pending regions that can take a house
    n_open = 0
    m = pend
    while m:
        r = _lowbit(m)
        m &= m - 1
        if open_ & tables[T_REGMASK + r]:
            served |= 1 << r
            n_open += 1
    k = min(left, n_open)
    slack = n_open - k
    if fam & _FAM_ROUTE and _route_tile_due(state, tables, variant, L):
        return False
    if fam & _FAM_END and state[S_END_SEAT] < 0 and (cart7 or left - k == 0):
        return False
    taken = state[S_GROUPS + p]
    all_set = 0
    if fam & _FAM_ALL and (taken >> STK_ALL_REGIONS) & 1 == 0 and state[S_STACK + STK_ALL_REGIONS]:
        need = tables[T_ALL_REG + variant[V_ALL_REGIONS_BAIERN]]
        for r in range(N_REGIONS):
            if (need >> r) & 1 and hm & tables[T_REGMASK + r] == 0:
                all_set |= 1 << r
        if all_set == 0:
            return False  # held already (not reached in play: it would have been taken)
        if all_set & ~served:
            all_set = 0  # a region no house can reach now: the tile cannot come
    n_sets = 0
    shared = False
    if fam & _FAM_REGION:
        for g in range(N_STACKS):
            gm = tables[T_GROUP + g]
            if gm == 0 or (taken >> g) & 1 or state[S_STACK + g] == 0:
                continue
            if hm & gm == gm:
                return False
            f = 0
            for r in range(N_REGIONS):
                miss = tables[T_REGMASK + r] & gm & ~hm
                if miss == 0:
                    continue
                if miss & (miss - 1) == 0 and miss & rm and (served >> r) & 1:
                    f |= 1 << r
                else:
                    f = -1
                    break
            if f > 0:
                n_sets += 1
                if f & all_set:
                    shared = True
    if all_set != 0 and not shared:
        n_sets += 1
    return n_sets <= slack


@njit(cache=True)
def _region_avoidable(state, tables, variant, p, hm, left, r, L, cart7, fam):
    """Mode (ii) in region r from here (§4C.1): True when some way to finish earns no tile of
    ``fam``. With houses enough every route city of r lacking his house takes one; with fewer,
    ``left`` of them do, and leaving out one keeps r's group open (the all-regions tile sees a
    house in r either way)."""
    cand = state[S_RMASK + p] & tables[T_REGMASK + r] & ~hm
    c = _popcount(cand)
    if c <= left:
        return not _close_earns(state, tables, variant, p, hm | cand, left - c, L, cart7, fam)
    if left == 0:
        return not _close_earns(state, tables, variant, p, hm, left, L, cart7, fam)
    return not _close_earns(state, tables, variant, p, hm | (cand & (cand - 1)), 0, L, cart7, fam)


@njit(cache=True)
def _cart7(state, p, L, cartwright):
    """True when this close takes the 7-carriage (§4C.3: the next carriage only; the
    Cartwright counts the route 2 longer)."""
    nxt = 3 if state[S_CARRIAGE + p] == 0 else state[S_CARRIAGE + p] + 1
    eff = L + 2 if cartwright else L
    return nxt == 7 and eff >= 7


@njit(cache=True)
def _close_avoidable(state, tables, variant, p, L, cart7, fam):
    """Closing now (before the houses, §4C): True when some house mode (the ones
    ``legal_moves`` would offer) and its finish earn no tile of ``fam``."""
    hm = state[S_HOUSES + p]
    left = state[S_HOUSES_LEFT + p]
    if left == 0:  # no house to place: scored at once
        return not _close_earns(state, tables, variant, p, hm, left, L, cart7, fam)
    rm = state[S_RMASK + p]
    pend = 0
    for r in range(N_REGIONS):
        if rm & tables[T_REGMASK + r]:
            pend |= 1 << r
    if _each_avoidable(state, tables, variant, p, hm, left, pend, L, cart7, fam):
        return True
    open_ = rm & ~hm
    for r in range(N_REGIONS):
        if rm & tables[T_REGMASK + r] and (open_ == 0 or open_ & tables[T_REGMASK + r]):
            if _region_avoidable(state, tables, variant, p, hm, left, r, L, cart7, fam):
                return True
    return False


@njit(cache=True, inline="always")
def restricts_phase(phase, mask):
    """True when forbid ``mask`` can forbid an action of ``phase`` (§11): the official offers,
    the close and the house decisions; drawing, playing and trimming are never restricted."""
    if phase == PH_ADMIN:
        return (mask >> FB_ADMINISTRATOR) & 1 != 0
    if phase == PH_PM:
        return (mask >> FB_POSTMASTER) & 1 != 0
    if phase == PH_PC:
        return (mask >> FB_POSTAL_CARRIER) & 1 != 0
    if phase == PH_CLOSE:
        return (mask >> FB_CARTWRIGHT) != 0
    if phase == PH_HOUSE_MODE or phase == PH_HOUSE_PICK:
        return (mask >> FB_ROUTE_TILE) != 0
    return False


@njit(cache=True)
def is_forbidden(state, tables, variant, a, mask):
    """True when legal action ``a`` of the seat to move is one forbid ``mask`` (bits ``FB_*``)
    forbids (docs/rules/thurn_und_taxis.md §11): an official's offer taken (Postmaster,
    Administrator, Postal Carrier; the Cartwright's close), a close of fewer than k cards
    (route-under-k), or a close, house mode or house from which every finish of the close
    earns a tile of a forbidden family (route-length, region-group, all-regions, game-end)."""
    ph = state[S_PHASE]
    p = state[S_CUR]
    fam = (mask >> FB_ROUTE_TILE) & 15
    if ph == PH_ADMIN:
        return a == A_YES and (mask >> FB_ADMINISTRATOR) & 1 != 0
    if ph == PH_PM:
        return a == A_YES and (mask >> FB_POSTMASTER) & 1 != 0
    if ph == PH_PC:
        return a == A_YES and (mask >> FB_POSTAL_CARRIER) & 1 != 0
    if ph == PH_CLOSE:
        if a == A_NO:
            return False
        if a == A_CLOSE_CART and (mask >> FB_CARTWRIGHT) & 1:
            return True
        L = state[S_RHI + p] - state[S_RLO + p]
        for k in range(7, 2, -1):
            if (mask >> (FB_ROUTE_UNDER + k - 3)) & 1:
                if k > L:
                    return True
                break
        if fam == 0:
            return False
        cart7 = _cart7(state, p, L, a == A_CLOSE_CART)
        return not _close_avoidable(state, tables, variant, p, L, cart7, fam)
    if fam == 0 or (ph != PH_HOUSE_MODE and ph != PH_HOUSE_PICK):
        return False
    L = state[S_CLOSE_LEN]
    cart7 = _cart7(state, p, L, state[S_OFFICIAL] == OFF_CARTWRIGHT)
    hm = state[S_HOUSES + p]
    left = state[S_HOUSES_LEFT + p]
    if ph == PH_HOUSE_MODE:
        if a == A_MODE_EACH:
            rm = state[S_RMASK + p]
            pend = 0
            for r in range(N_REGIONS):
                if rm & tables[T_REGMASK + r]:
                    pend |= 1 << r
            return not _each_avoidable(state, tables, variant, p, hm, left, pend, L, cart7, fam)
        r = a - A_MODE_REGION
        return not _region_avoidable(state, tables, variant, p, hm, left, r, L, cart7, fam)
    # house pick
    if state[S_PICK_MODE] == 1:
        r = state[S_PENDING]
        h = hm | (1 << (a - A_HOUSE))
        return not _region_avoidable(state, tables, variant, p, h, left - 1, r, L, cart7, fam)
    rest = state[S_PENDING] & (state[S_PENDING] - 1)
    if a == A_HOUSE_SKIP:
        return not _each_avoidable(state, tables, variant, p, hm, left, rest, L, cart7, fam)
    h = hm | (1 << (a - A_HOUSE))
    return not _each_avoidable(state, tables, variant, p, h, left - 1, rest, L, cart7, fam)


@njit(cache=True)
def restrict_moves(state, tables, variant, actions, n, mask):
    """Move the actions of ``actions[:n]`` that forbid ``mask`` permits (``is_forbidden``) to
    the front, in their order, and return how many there are; with none permitted (0) the
    list is left as it was (the rules then leave the seat only forbidden options, §11)."""
    k = 0
    for i in range(n):
        a = actions[i]
        if not is_forbidden(state, tables, variant, a, mask):
            actions[k] = a
            k += 1
    return k
