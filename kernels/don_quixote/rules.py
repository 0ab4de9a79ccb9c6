"""Don Quixote rules: union-find road networks, placing and undoing a tile, scoring, the deal.

Rule source: ``docs/rules/don_quixote.md``; each function cites the section it implements.

Rules card (§3): 24 cells (8 x 3); the 6-castle and the 4-castle are dealt first, never
8-adjacent (§3.1). 22 landscape tiles per player: 9 revealed for round 1 (9 placements), 7
for round 2 (7), 5 + a set-aside tile for round 3 (5, then the set-aside tile last), one
position card per placement common to all players, any face-up tile in either orientation
(§3.2). Road pieces joined through facing road ports form networks (§3.3). Scoring after each
round r (§3.4, §3.5): castle V if its attached networks hold >= r distinct knights; church and
windmill groups per network (0 / 2 / 2n); defence 5 if the border shields reach 4r; in scoring
3 also the best knight group (shields of a network with >= 2 knights). Players do not interact
(§3.1.5).

The building blocks ``place`` / ``unplace`` / ``score_round`` / ``score_breakdown`` are used by
the replay and the tests. jit-compiled; the caller (``mcsim.games.don_quixote``) validates all
input.
"""

import numpy as np
from numba import njit

from kernels.don_quixote.layout import (
    BB_CELLS,
    BB_NEAR,
    CAT_CASTLE,
    CAT_CHURCHES,
    CAT_DEFENCE,
    CAT_KNIGHT_BONUS,
    CAT_WINDMILLS,
    CELLS,
    CH,
    DEFENCE_POINTS,
    DEFENCE_STEP,
    KN,
    LOG_COUNT,
    LOG_UNIONS,
    LOGN,
    MAXP,
    N_CASTLES,
    N_CAT,
    N_CELLS,
    N_NODES,
    N_PLACE,
    NB_CELL,
    NB_PORT,
    PAR,
    ROUND_END,
    ROUND_SIZES,
    S_ROWS,
    SC,
    SC_BONUS,
    SC_CHURCH,
    SC_CVAL,
    SC_DEF,
    SC_MILL,
    SC_NPLACED,
    SC_SAVE,
    SC_STUB,
    SH,
    SIZE,
    T_CASTLE,
    T_CH,
    T_CVAL,
    T_DEF,
    T_KN,
    T_NP,
    T_PP,
    T_SH,
    T_WM,
    WM,
)
from kernels.rng import STREAM_DEAL, new_state, randint


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
    """An empty estate ``state`` (int64[S_ROWS, N_NODES]); layout in
    ``kernels.don_quixote.layout``."""
    state = np.zeros((S_ROWS, N_NODES), dtype=np.int64)
    state[PAR, :] = -1
    state[CELLS, :] = -1
    for k in range(4):
        state[SC, SC_STUB + k] = -1
    state[SC, SC_CVAL] = 0
    state[SC, SC_CVAL + 1] = 0
    return state


@njit(cache=True)
def find(state, x):
    """Root of node ``x``: its network (§3.3; no path compression, so unions stay undoable)."""
    while state[PAR, x] != x:
        x = state[PAR, x]
    return x


@njit(cache=True)
def union(state, a, b, log):
    """Join the networks of nodes ``a`` and ``b`` (union by size; §3.3), updating the running
    church/windmill points and best knight group and logging the union in ``log``."""
    ra = find(state, a)
    rb = find(state, b)
    if ra == rb:
        return
    if state[SIZE, ra] < state[SIZE, rb]:
        ra, rb = rb, ra
    ca = state[CH, ra]
    cb = state[CH, rb]
    state[SC, SC_CHURCH] += group_points(ca + cb) - group_points(ca) - group_points(cb)
    wa = state[WM, ra]
    wb = state[WM, rb]
    state[SC, SC_MILL] += group_points(wa + wb) - group_points(wa) - group_points(wb)
    state[PAR, rb] = ra
    state[SIZE, ra] += state[SIZE, rb]
    state[KN, ra] += state[KN, rb]
    state[SH, ra] += state[SH, rb]
    state[CH, ra] += state[CH, rb]
    state[WM, ra] += state[WM, rb]
    if state[KN, ra] >= 2 and state[SH, ra] > state[SC, SC_BONUS]:
        state[SC, SC_BONUS] = state[SH, ra]
    n = log[LOG_COUNT]
    log[LOG_UNIONS + 2 * n] = ra
    log[LOG_UNIONS + 2 * n + 1] = rb
    log[LOG_COUNT] = n + 1


@njit(cache=True)
def place(state, tables, cell, t, o, log):
    """Put tile ``t`` in orientation ``o`` (0 = 0°, 1 = 180°) on empty ``cell`` (§3.2, §3.3).

    Creates the tile's road-piece nodes, joins each road port to a facing road port of a
    placed neighbour (both must have a road, §1.3) and updates the running church/windmill
    points, defence sum and best knight group. ``log`` (int64[LOGN]) receives the unions so
    ``unplace`` can undo the move; save ``state[SC, :SC_SAVE]`` before calling if you will undo.
    """
    log[LOG_COUNT] = 0
    npc = tables[t, o, T_NP]
    base = cell * MAXP
    for k in range(npc):
        nd = base + k
        state[PAR, nd] = nd
        state[SIZE, nd] = 1
        kn = tables[t, o, T_KN + k]
        sh = tables[t, o, T_SH + k]
        ch = tables[t, o, T_CH + k]
        wm = tables[t, o, T_WM + k]
        state[KN, nd] = kn
        state[SH, nd] = sh
        state[CH, nd] = ch
        state[WM, nd] = wm
        state[SC, SC_CHURCH] += group_points(ch)
        state[SC, SC_MILL] += group_points(wm)
        if kn >= 2 and sh > state[SC, SC_BONUS]:
            state[SC, SC_BONUS] = sh
        c = tables[t, o, T_CASTLE + k]
        if c >= 0:
            if state[SC, SC_STUB + 2 * c] < 0:
                state[SC, SC_STUB + 2 * c] = nd
            else:
                state[SC, SC_STUB + 2 * c + 1] = nd
            state[SC, SC_CVAL + c] = tables[t, o, T_CVAL]
    state[CELLS, cell] = t
    state[CELLS, N_CELLS + cell] = o
    state[SC, SC_DEF] += tables[t, o, T_DEF + cell]
    state[SC, SC_NPLACED] += 1
    for p in range(6):
        k = tables[t, o, T_PP + p]
        if k < 0:
            continue
        nc = NB_CELL[cell, p]
        if nc < 0:
            continue
        nt = state[CELLS, nc]
        if nt < 0:
            continue
        kk = tables[nt, state[CELLS, N_CELLS + nc], T_PP + NB_PORT[cell, p]]
        if kk < 0:
            continue
        union(state, base + k, nc * MAXP + kk, log)


@njit(cache=True)
def unplace(state, tables, cell, log, saved):
    """Undo the last ``place`` on ``cell`` (``saved`` = ``state[SC, :SC_SAVE]`` from before it)."""
    for i in range(log[LOG_COUNT] - 1, -1, -1):
        ra = log[LOG_UNIONS + 2 * i]
        rb = log[LOG_UNIONS + 2 * i + 1]
        state[PAR, rb] = rb
        state[SIZE, ra] -= state[SIZE, rb]
        state[KN, ra] -= state[KN, rb]
        state[SH, ra] -= state[SH, rb]
        state[CH, ra] -= state[CH, rb]
        state[WM, ra] -= state[WM, rb]
    t = state[CELLS, cell]
    base = cell * MAXP
    for k in range(tables[t, 0, T_NP]):
        state[PAR, base + k] = -1
    state[CELLS, cell] = -1
    state[CELLS, N_CELLS + cell] = -1
    for k in range(SC_SAVE):
        state[SC, k] = saved[k]
    log[LOG_COUNT] = 0


@njit(cache=True)
def castle_knights(state, c):
    """Distinct knights in the networks attached to castle ``c`` (0 = 6-castle, 1 = 4-castle;
    §3.3, §3.4)."""
    a = state[SC, SC_STUB + 2 * c]
    if a < 0:
        return 0
    ra = find(state, a)
    k = state[KN, ra]
    b = state[SC, SC_STUB + 2 * c + 1]
    if b >= 0:
        rb = find(state, b)
        if rb != ra:
            k += state[KN, rb]
    return k


@njit(cache=True)
def score_round(state, rnd):
    """Points of scoring ``rnd`` (1..3) for the estate as it stands (§3.4)."""
    v = 0
    for c in range(N_CASTLES):
        v += castle_points(state[SC, SC_CVAL + c], rnd, castle_knights(state, c))
    v += state[SC, SC_CHURCH] + state[SC, SC_MILL] + defence_points(rnd, state[SC, SC_DEF])
    if rnd == 3:
        v += state[SC, SC_BONUS]
    return v


@njit(cache=True)
def score_breakdown(state, rnd, out_breakdown):
    """Scoring ``rnd`` per category into ``out`` (int64[6], order ``CAT_NAMES``; §3.4); returns
    the sum."""
    for c in range(N_CASTLES):
        out_breakdown[CAT_CASTLE + c] = castle_points(
            state[SC, SC_CVAL + c], rnd, castle_knights(state, c)
        )
    out_breakdown[CAT_CHURCHES] = state[SC, SC_CHURCH]
    out_breakdown[CAT_WINDMILLS] = state[SC, SC_MILL]
    out_breakdown[CAT_DEFENCE] = defence_points(rnd, state[SC, SC_DEF])
    out_breakdown[CAT_KNIGHT_BONUS] = state[SC, SC_BONUS] if rnd == 3 else 0
    total = 0
    for k in range(N_CAT):
        total += out_breakdown[k]
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
    """Draw one game's deal from stream ``STREAM_DEAL`` (shared by every policy; §3.1, §3.2).

    Parameters
    ----------
    castles : int64[2]  out: cells of the 6-castle and the 4-castle (§3.1 with redraw)
    cells : int64[22]  out: the position-card order of the 22 placements
    seq : int64[n_players, n_land]  out: each player's reveal order (first 9 = round 1, next 7
        = round 2, next 5 = round 3, last = the set-aside tile)
    last_rot : int64[n_players]  out: orientation of the set-aside tile for variant
        ``last_tile_rotation=random`` (always drawn, so the stream is variant-independent)
    """
    rng = new_state(root_seed, game_index, np.int64(STREAM_DEAL))
    deck = np.arange(N_CELLS)
    _shuffle(rng, deck, np.int64(0))
    castles[0] = deck[0]
    # the rest of the deck is deck[1:]; redraw the 4-castle while adjacent, reshuffling
    while BB_NEAR[deck[0]] & BB_CELLS[deck[1]]:
        _shuffle(rng, deck, np.int64(1))
    castles[1] = deck[1]
    for i in range(N_PLACE):
        cells[i] = deck[2 + i]
    for p in range(n_players):
        for i in range(n_land):
            seq[p, i] = i
        _shuffle_row(rng, seq, p)
        last_rot[p] = randint(rng, 2)


@njit(cache=True)
def _shuffle(rng, arr, start):
    n = arr.shape[0] - start
    for i in range(n - 1, 0, -1):
        j = randint(rng, i + 1)
        tmp = arr[start + i]
        arr[start + i] = arr[start + j]
        arr[start + j] = tmp


@njit(cache=True)
def _shuffle_row(rng, arr, row):
    n = arr.shape[1]
    for i in range(n - 1, 0, -1):
        j = randint(rng, i + 1)
        tmp = arr[row, i]
        arr[row, i] = arr[row, j]
        arr[row, j] = tmp


@njit(cache=True)
def setup_estate(tables, castles):
    """A new estate with both castles placed (tile n_tiles-2 on ``castles[0]``, tile n_tiles-1
    on ``castles[1]``; §3.1)."""
    state = new_estate()
    log = np.zeros(LOGN, dtype=np.int64)
    n_tiles = tables.shape[0]
    for c in range(N_CASTLES):
        place(state, tables, castles[c], n_tiles - 2 + c, np.int64(0), log)
    return state


@njit(cache=True)
def reveal(hand, nh, seq, pos):
    """Add the tiles revealed before placement ``pos`` to ``hand`` (§3.2); returns the new
    count."""
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
    """Tiles ``reveal`` adds to the hand at placement ``pos`` (§3.2)."""
    if pos == 0:
        return ROUND_SIZES[0]
    if pos == ROUND_END[0] + 1:
        return ROUND_SIZES[1]
    if pos == ROUND_END[1] + 1:
        return ROUND_SIZES[2] - 1
    if pos == N_PLACE - 1:
        return 1
    return 0
