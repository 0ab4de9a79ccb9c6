"""Sacred Hill kernel: 45 hills as uint64 bitboards, move generation, policies, playouts.

Rules: ``docs/rules/sacred_hill.md`` (§ numbers below refer to it).

Layout
------
Padded 8x8: ``bit = 8 * row + col`` with row 0..6 = rows "1".."7" and col 0..6 = columns A..G.
Column 7, row 7 and the four removed corners (A1, G1, A7, G7) are never set, so orthogonal
neighbour sets are plain shifts masked with ``BB_VALID`` (§1: adjacency is orthogonal only).

State
-----
One game's state is a ``uint64[S_SIZE]`` array (see the ``S_*`` indices): both players' forts,
the running unions of their knight and proximity masks (for the Manoeuvre rule, §3.1), their
phases, the player to move and counters. Kernels copy it with ``state.copy()`` (perft).

Moves
-----
A move is a cell index 0..63 (build on an empty hill or capture the enemy fort there) or
``MOVE_PASS``. ``legal_moves`` returns the legal set as a bitboard plus its ``KIND_*``.
"""

import numpy as np
from numba import njit, types

from kernels import search
from kernels.bitboard import kth_set_bit, lsb, popcount
from kernels.rng import game_seed, randint, random_float, seed_state

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
#: Cell indices of the 45 hills in bit order, and their names ("B1", ...).
CELLS = np.array([i for i in range(64) if (int(BB_VALID) >> i) & 1], dtype=np.int64)
CELL_NAMES = {int(i): f"{COL_NAMES[i % 8]}{i // 8 + 1}" for i in CELLS}
N_HILLS = len(CELLS)  # 45

# ---------------------------------------------------------------- state layout
S_FORTS = 0  # + seat: forts bitboard
S_KNIGHT = 2  # + seat: union of KNIGHT[f] over the seat's forts
S_ZONE = 4  # + seat: union of ZONE[f] over the seat's forts
S_PHASE = 6  # + seat: PHASE_*
S_TO_MOVE = 8
S_PLIES = 9
S_CAPTURES = 10  # + seat: captures made by the seat
S_PASSES = 12
S_MANOEUVRE_FORTS = 13  # + seat: forts built as Manoeuvres
S_SIZE = 15

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
#: eps, then (from ``P_MCTS_BASE``) the rollout policy's 9 weights (filled in by
#: ``mcsim.games.sacred_hill.prepare`` from that policy's defaults)
P_MCTS_ITER, P_MCTS_C, P_MCTS_REWARD, P_MCTS_ROLLOUT, P_MCTS_ROLLOUT_EPS = range(5)
P_MCTS_BASE = 5
N_MCTS_PARAMS = P_MCTS_BASE + N_HEURISTIC_PARAMS
#: points per reward unit for ``reward = margin`` (search.REWARD_MARGIN)
MARGIN_SCALE = 10.0

#: an upper bound on plies: 45 builds + at most one capture per hill + passes (§3.4)
MAX_PLIES = 140

_ZERO = np.uint64(0)
_ONE = np.uint64(1)


@njit(cache=True, inline="always")
def orth_neighbours(bb):
    """Hills orthogonally adjacent to any hill of ``bb`` (uint64 -> uint64)."""
    return ((bb << _ONE) | (bb >> _ONE) | (bb << np.uint64(8)) | (bb >> np.uint64(8))) & BB_VALID


@njit(cache=True)
def count_kingdoms(forts):
    """Number of kingdoms (4-connected components) of a forts bitboard (§2)."""
    n = 0
    while forts != _ZERO:
        comp = forts & (~forts + _ONE)
        while True:
            grown = (comp | orth_neighbours(comp)) & forts
            if grown == comp:
                break
            comp = grown
        forts &= ~comp
        n += 1
    return n


@njit(cache=True)
def _distinct_kingdoms_touching(forts, touching):
    """How many distinct kingdoms of ``forts`` contain a hill of ``touching``."""
    n = 0
    touching &= forts
    while touching != _ZERO:
        comp = touching & (~touching + _ONE)
        while True:
            grown = (comp | orth_neighbours(comp)) & forts
            if grown == comp:
                break
            comp = grown
        touching &= ~comp
        n += 1
    return n


@njit(cache=True, inline="always")
def besieged_by(own):
    """Hills all of whose existing orthogonal neighbours hold ``own`` forts (§2)."""
    return BB_VALID & ~orth_neighbours(BB_VALID & ~own)


@njit(cache=True, inline="always")
def captures_for(own, opp):
    """Enemy lone forts besieged by ``own``: the mandatory captures (§3.3.1)."""
    lone = opp & ~orth_neighbours(opp)
    return lone & besieged_by(own)


@njit(cache=True)
def new_game(state):
    """Reset ``state`` (uint64[S_SIZE]) to the empty board, seat 0 to move."""
    state[:] = 0


@njit(cache=True)
def is_terminal(state):
    """Board full and no lone fort besieged (§3.4)."""
    f0 = state[S_FORTS]
    f1 = state[S_FORTS + 1]
    if (f0 | f1) != BB_VALID:
        return False
    return captures_for(f0, f1) == _ZERO and captures_for(f1, f0) == _ZERO


@njit(cache=True)
def legal_moves(state):
    """Legal moves of the player to move as ``(bitboard, kind)``.

    Implements the Manoeuvre rule (§3.1, ``legal_M = empty & OR KNIGHT & ~OR ZONE``), the box
    grace Manoeuvre and the switch to Battle (§3.2), and the Battle priorities (§3.3): mandatory
    capture, build adjacent, build anywhere, pass. ``kind`` is a ``KIND_*`` constant; the
    bitboard is 0 for ``KIND_PASS`` and ``KIND_TERMINAL``.
    """
    if is_terminal(state):
        return _ZERO, KIND_TERMINAL
    p = np.int64(state[S_TO_MOVE])
    own = state[S_FORTS + p]
    opp = state[S_FORTS + 1 - p]
    empty = BB_VALID & ~(own | opp)
    if state[S_PHASE + p] != PHASE_BATTLE:
        if own == _ZERO:
            m = empty
        else:
            m = empty & state[S_KNIGHT + p] & ~state[S_ZONE + p]
        if m != _ZERO:
            return m, KIND_MANOEUVRE
    caps = captures_for(own, opp)
    if caps != _ZERO:
        return caps, KIND_CAPTURE
    adj = orth_neighbours(own) & empty
    if adj != _ZERO:
        return adj, KIND_BUILD_ADJACENT
    if empty != _ZERO:
        return empty, KIND_BUILD_ANYWHERE
    return _ZERO, KIND_PASS


@njit(cache=True)
def _recompute_unions(state, seat, zone):
    forts = state[S_FORTS + seat]
    ku = _ZERO
    zu = _ZERO
    while forts != _ZERO:
        i = lsb(forts)
        forts &= forts - _ONE
        ku |= BB_KNIGHT[i]
        zu |= zone[i]
    state[S_KNIGHT + seat] = ku
    state[S_ZONE + seat] = zu


@njit(cache=True)
def apply_move(state, move, kind, transition, zone):
    """Play ``move`` (cell index or ``MOVE_PASS``) of ``kind`` for the player to move.

    The caller guarantees legality (``legal_moves``). ``transition`` is ``TRANSITION_BOX`` or
    ``TRANSITION_WEB2014`` (§3.2); ``zone`` is the proximity-mask table uint64[64] (§2, §7 A2).
    """
    p = np.int64(state[S_TO_MOVE])
    o = 1 - p
    if kind == KIND_MANOEUVRE:
        b = _ONE << np.uint64(move)
        state[S_FORTS + p] |= b
        state[S_KNIGHT + p] |= BB_KNIGHT[move]
        state[S_ZONE + p] |= zone[move]
        state[S_MANOEUVRE_FORTS + p] += _ONE
        if state[S_PHASE + p] == PHASE_GRACE:
            state[S_PHASE + p] = PHASE_BATTLE
    else:
        if state[S_PHASE + p] != PHASE_BATTLE:
            # no Manoeuvre left: announce Battle and move in the same turn (§3.2)
            state[S_PHASE + p] = PHASE_BATTLE
            if state[S_PHASE + o] == PHASE_MANOEUVRE:
                if transition == TRANSITION_BOX:
                    state[S_PHASE + o] = PHASE_GRACE
                else:
                    state[S_PHASE + o] = PHASE_BATTLE
        if kind == KIND_CAPTURE:
            b = _ONE << np.uint64(move)
            state[S_FORTS + o] &= ~b
            state[S_FORTS + p] |= b
            state[S_CAPTURES + p] += _ONE
            if state[S_PHASE + o] != PHASE_BATTLE:
                _recompute_unions(state, o, zone)
        elif kind == KIND_PASS:
            state[S_PASSES] += _ONE
        else:
            state[S_FORTS + p] |= _ONE << np.uint64(move)
    state[S_PLIES] += _ONE
    state[S_TO_MOVE] = np.uint64(o)


@njit(cache=True)
def points_from(k0, k1, t0, t1, out_points):
    """Points of both seats from kingdoms ``k0, k1`` and territory ``t0, t1`` (§3.5).

    Fewer kingdoms wins 2 + |K0 - K1|; equal kingdoms: more territory wins 2 + |T0 - T1|; the
    loser scores 0. Writes int64[2] ``out_points``; returns 1 if kingdoms decided, 0 if
    territory did, -1 for a draw (impossible on 45 hills, scored 0-0, §7 A7).
    """
    out_points[0] = 0
    out_points[1] = 0
    if k0 != k1:
        if k0 < k1:
            out_points[0] = 2 + k1 - k0
        else:
            out_points[1] = 2 + k0 - k1
        return 1
    if t0 > t1:
        out_points[0] = 2 + t0 - t1
    elif t1 > t0:
        out_points[1] = 2 + t1 - t0
    else:
        return -1
    return 0


@njit(cache=True)
def score_final(state, out_points):
    """Final points of a finished game (§3.5) into ``out_points`` (int64[2]); see
    ``points_from`` for the return value."""
    return points_from(
        count_kingdoms(state[S_FORTS]),
        count_kingdoms(state[S_FORTS + 1]),
        popcount(state[S_FORTS]),
        popcount(state[S_FORTS + 1]),
        out_points,
    )


# ---------------------------------------------------------------- policies (§6)
@njit(cache=True)
def _evaluate(state, move, kind, params, zone):
    """1-ply value of a move for the player to move (higher is better), from the §6 hints."""
    p = np.int64(state[S_TO_MOVE])
    own = state[S_FORTS + p]
    opp = state[S_FORTS + 1 - p]
    b = _ONE << np.uint64(move)
    nb = BB_ORTH[move]
    if kind == KIND_MANOEUVRE:
        # M1: few remaining Manoeuvres (reach Battle early); M2: spread over the board
        own2 = own | b
        empty2 = BB_VALID & ~(own2 | opp)
        ku = state[S_KNIGHT + p] | BB_KNIGHT[move]
        zu = state[S_ZONE + p] | zone[move]
        remaining = popcount(empty2 & ku & ~zu)
        spread = popcount(empty2 & zu)
        return -params[P_W_MANOEUVRES] * remaining + params[P_W_SPREAD] * spread
    # Battle (B1-B3)
    d_own_k = 1 - _distinct_kingdoms_touching(own, nb)
    if kind == KIND_CAPTURE:
        d_opp_k = -1
        margin = 2.0
    else:
        d_opp_k = 0
        margin = 1.0
    v = params[P_W_KINGDOMS] * (d_opp_k - d_own_k) + params[P_W_TERRITORY] * margin
    if kind != KIND_CAPTURE:
        if (nb & ~opp) == _ZERO:
            v -= params[P_W_SUICIDE]  # lone fort on a hill the opponent besieges
        if (nb & ~own) == _ZERO:
            v -= params[P_W_SAFE_FILL]  # B3: leave safe connections empty
        v += params[P_W_BLOCK] * popcount(nb & opp)
        # B2: enemy lone forts next to the move left with exactly one free neighbour
        own2 = own | b
        lone = nb & opp & ~orth_neighbours(opp)
        atari = 0
        while lone != _ZERO:
            f = lsb(lone)
            lone &= lone - _ONE
            free = BB_ORTH[f] & ~own2
            if free != _ZERO and (free & (free - _ONE)) == _ZERO and (free & opp) == _ZERO:
                atari += 1
        v += params[P_W_ATARI] * atari
    return v


@njit(cache=True)
def choose_move(state, moves, kind, policy_id, params, rng, zone):
    """Pick one move from the legal bitboard ``moves`` with the seat's policy.

    ``policy_id``: ``POLICY_RANDOM`` (uniform), ``POLICY_GREEDY`` / ``POLICY_TACTICIAN``
    (best ``_evaluate`` value, ties uniform, uniform with probability ``params[P_EPS]``).
    Returns a cell index, or ``MOVE_PASS`` when ``kind`` is ``KIND_PASS``.
    """
    if kind == KIND_PASS:
        return MOVE_PASS
    n = popcount(moves)
    if n == 1:
        return lsb(moves)
    if policy_id == POLICY_RANDOM or (params[P_EPS] > 0.0 and random_float(rng) < params[P_EPS]):
        return kth_set_bit(moves, randint(rng, n))
    best = -np.inf
    best_move = lsb(moves)  # a legal move even if every value compares false (NaN)
    ties = 0
    m = moves
    while m != _ZERO:
        c = lsb(m)
        m &= m - _ONE
        v = _evaluate(state, c, kind, params, zone)
        if v > best + 1e-12:
            best = v
            best_move = c
            ties = 1
        elif v > best - 1e-12:
            ties += 1
            if randint(rng, ties) == 0:  # reservoir: uniform among the tied best
                best_move = c
    return best_move


# ---------------------------------------------------------------- search (kernels.search)
# The step interface of ``kernels.search`` for Sacred Hill: the state is the uint64[S_SIZE]
# array, ctx = (transition, zone, rollout policy id, rollout weights float64[9], int64[2]
# points scratch). Perfect information: nothing to determinize.
CTX_TRANSITION, CTX_ZONE = 0, 1  # positions in ctx read by ``_search_apply``


@njit(cache=True)
def _search_copy(dst, src):
    for k in range(S_SIZE):
        dst[k] = src[k]


@njit(cache=True)
def _search_determinize(state, ctx, rng):
    pass


@njit(cache=True)
def _search_legal(state, ctx, moves):
    if state[S_PLIES] >= MAX_PLIES:
        return 0
    m, kind = legal_moves(state)
    if kind == KIND_TERMINAL:
        return 0
    if kind == KIND_PASS:
        moves[0] = MOVE_PASS
        return 1
    n = 0
    while m != _ZERO:
        moves[n] = lsb(m)
        m &= m - _ONE
        n += 1
    return n


@njit(cache=True)
def _search_to_move(state, ctx):
    return np.int64(state[S_TO_MOVE])


@njit(cache=True)
def _search_apply(state, ctx, move):
    kind = legal_moves(state)[1]
    transition, zone = ctx[CTX_TRANSITION], ctx[CTX_ZONE]
    apply_move(state, move, kind, transition, zone)


@njit(cache=True)
def _search_rollout(state, ctx, rng, scores):
    transition, zone, base_id, base_w, pts = ctx
    while state[S_PLIES] < MAX_PLIES:
        moves, kind = legal_moves(state)
        if kind == KIND_TERMINAL:
            break
        mv = choose_move(state, moves, kind, base_id, base_w, rng, zone)
        apply_move(state, mv, kind, transition, zone)
    score_final(state, pts)
    scores[0] = pts[0]
    scores[1] = pts[1]


search.register(
    lambda t: isinstance(t, types.Array) and t.ndim == 1 and t.dtype == types.uint64,
    copy=lambda dst, src: _search_copy(dst, src),
    determinize=lambda state, ctx, rng: _search_determinize(state, ctx, rng),
    legal=lambda state, ctx, moves: _search_legal(state, ctx, moves),
    to_move=lambda state, ctx: _search_to_move(state, ctx),
    apply=lambda state, ctx, move: _search_apply(state, ctx, move),
    rollout=lambda state, ctx, rng, scores: _search_rollout(state, ctx, rng, scores),
)


@njit(cache=True)
def search_scratch(capacity):
    """Scratch of ``choose_move_search`` for trees of ``capacity`` nodes (a tuple of arrays:
    work state, tree, value, logs, moves, untried, mark, path, scores, reward, rollout weights,
    points)."""
    return (
        np.zeros(S_SIZE, np.uint64),
        np.zeros((capacity, search.TREE_COLS), np.int64),
        np.zeros(capacity, np.float64),
        np.zeros(capacity, np.float64),
        np.zeros(64, np.int64),
        np.zeros(64, np.int64),
        np.zeros(MOVE_PASS + 1, np.int64),
        np.zeros(MAX_PLIES + 2, np.int64),
        np.zeros(2, np.float64),
        np.zeros(2, np.float64),
        np.zeros(N_HEURISTIC_PARAMS, np.float64),
        np.zeros(2, np.int64),
    )


@njit(cache=True)
def search_capacity(policy_ids, policy_params):
    """Tree nodes needed by the ``mcts`` seats of a game (iterations + 1; 2 if none)."""
    cap = 2
    for p in range(policy_ids.shape[0]):
        if policy_ids[p] == POLICY_MCTS:
            cap = max(cap, np.int64(policy_params[p, P_MCTS_ITER]) + 1)
    return cap


@njit(cache=True)
def choose_move_search(state, moves, kind, policy_id, params, rng, zone, transition, scr):
    """``choose_move`` for every policy including ``POLICY_MCTS`` (UCT by ``kernels.search``
    with the parameters ``P_MCTS_*``; ``scr`` from ``search_scratch``). Allocates nothing."""
    if policy_id != POLICY_MCTS:
        return choose_move(state, moves, kind, policy_id, params, rng, zone)
    if kind == KIND_PASS:
        return MOVE_PASS
    if popcount(moves) == 1:
        return lsb(moves)
    work, tree, value, logs, mv, untried, mark, path, scores, reward, base_w, pts = scr
    for k in range(N_HEURISTIC_PARAMS):
        base_w[k] = params[P_MCTS_BASE + k]
    base_w[P_EPS] = params[P_MCTS_ROLLOUT_EPS]
    ctx = (transition, zone, np.int64(params[P_MCTS_ROLLOUT]), base_w, pts)
    return search.search(
        state,
        ctx,
        np.int64(params[P_MCTS_ITER]),
        params[P_MCTS_C],
        np.int64(params[P_MCTS_REWARD]),
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


# ---------------------------------------------------------------- playouts
@njit(cache=True, inline="always")
def _seed(rng, root_seed, game_index, stream):
    """``rng.new_state(root_seed, game_index, stream)`` written into ``rng`` (uint64[4])."""
    seed_state(rng, game_seed(np.uint64(root_seed), np.uint64(game_index), np.uint64(stream)))


@njit(cache=True)
def play_game(
    state,
    root_seed,
    game_index,
    stream_base,
    policy_ids,
    policy_params,
    transition,
    zone,
    record,
    rngs,
    scr,
):
    """Play one game from the empty board to the end; ``record`` (int16[MAX_PLIES] or
    length 0) receives the moves; ``rngs`` (uint64[2, 4]) receives the seats' policy streams;
    ``scr`` is the ``mcts`` scratch (``search_scratch``) or None when no seat searches: then
    Numba prunes the search branch before typing it, so the search code is not compiled.
    Returns the number of plies."""
    new_game(state)
    _seed(rngs[0], root_seed, game_index, stream_base)
    _seed(rngs[1], root_seed, game_index, stream_base + 1)
    ply = 0
    while True:
        moves, kind = legal_moves(state)
        if kind == KIND_TERMINAL or ply >= MAX_PLIES:
            break
        p = np.int64(state[S_TO_MOVE])
        rng = rngs[p]
        if scr is None:
            mv = choose_move(state, moves, kind, policy_ids[p], policy_params[p], rng, zone)
        else:
            mv = choose_move_search(
                state, moves, kind, policy_ids[p], policy_params[p], rng, zone, transition, scr
            )
        if record.shape[0] > ply:
            record[ply] = mv
        apply_move(state, mv, kind, transition, zone)
        ply += 1
    return ply


@njit(cache=True)
def play_batch(
    first_game_index,
    n_games,
    root_seed,
    stream_base,
    policy_ids,
    policy_params,
    transition,
    zone,
    out_points,
    out_plies,
    out_kingdoms,
    out_territory,
    out_captures,
    out_manoeuvre_forts,
    out_passes,
    out_decided_by,
    out_record,
):
    """Play ``n_games`` complete games, game i seeded from ``(root_seed, first_game_index + i)``.

    Parameters
    ----------
    first_game_index, n_games : int
    root_seed : uint64
    stream_base : int
        RNG stream of seat 0's policy (seat 1 uses ``stream_base + 1``); ``STREAM_POLICY`` for a
        normal run, another value for independent mirror games.
    policy_ids : int64[2]
    policy_params : float64[2, n_params]
    transition : int
        ``TRANSITION_BOX`` or ``TRANSITION_WEB2014`` (§3.2).
    zone : uint64[64]
        Proximity masks, ``BB_ZONE_KNIGHT12`` or ``BB_ZONE_CHEBYSHEV8`` (§2, §7 A2).
    out_points, out_kingdoms, out_territory, out_captures, out_manoeuvre_forts : int16[n, 2]
        Final points (§3.5), kingdoms, forts on the board, captures made, forts built as
        Manoeuvres, per seat (seat 0 moves first).
    out_plies, out_passes : int16[n]
    out_decided_by : int8[n]
        1 kingdoms, 0 territory, -1 draw.
    out_record : int16[n_rec, MAX_PLIES]
        Moves of the first ``n_rec`` games (cell index, ``MOVE_PASS``; -1 after the end).

    Notes
    -----
    jit-compiled; the caller validates the inputs. An ``mcts`` seat needs
    ``play_batch_search`` (ValueError here).
    """
    for p in range(policy_ids.shape[0]):
        if policy_ids[p] == POLICY_MCTS:
            raise ValueError("an mcts seat needs play_batch_search")
    state = np.zeros(S_SIZE, dtype=np.uint64)
    pts = np.zeros(2, dtype=np.int64)
    empty_record = np.empty(0, dtype=np.int16)
    rngs = np.zeros((2, 4), dtype=np.uint64)
    _play_games(
        first_game_index,
        n_games,
        root_seed,
        stream_base,
        policy_ids,
        policy_params,
        transition,
        zone,
        out_points,
        out_plies,
        out_kingdoms,
        out_territory,
        out_captures,
        out_manoeuvre_forts,
        out_passes,
        out_decided_by,
        out_record,
        state,
        pts,
        empty_record,
        rngs,
        None,
    )


@njit(cache=True)
def play_batch_search(
    first_game_index,
    n_games,
    root_seed,
    stream_base,
    policy_ids,
    policy_params,
    transition,
    zone,
    out_points,
    out_plies,
    out_kingdoms,
    out_territory,
    out_captures,
    out_manoeuvre_forts,
    out_passes,
    out_decided_by,
    out_record,
):
    """``play_batch`` for a lineup with an ``mcts`` seat (same arguments and results).

    A separate entry so that runs without a searching seat never compile ``kernels.search``
    (about half of the kernel's compile time); the Python side picks it when a policy id is
    ``POLICY_MCTS``. Other seats play exactly as in ``play_batch``.
    """
    state = np.zeros(S_SIZE, dtype=np.uint64)
    pts = np.zeros(2, dtype=np.int64)
    empty_record = np.empty(0, dtype=np.int16)
    rngs = np.zeros((2, 4), dtype=np.uint64)
    scr = search_scratch(search_capacity(policy_ids, policy_params))
    _play_games(
        first_game_index,
        n_games,
        root_seed,
        stream_base,
        policy_ids,
        policy_params,
        transition,
        zone,
        out_points,
        out_plies,
        out_kingdoms,
        out_territory,
        out_captures,
        out_manoeuvre_forts,
        out_passes,
        out_decided_by,
        out_record,
        state,
        pts,
        empty_record,
        rngs,
        scr,
    )


# Numba's reference counting (atomic NRT_incref/NRT_decref on every array passed to the
# helpers) was about half of the time of random play; the refcount pruning pass cannot remove
# them across the branches (numba/numba#2345, #2350). The games allocate nothing (``play_batch``
# passes the state, points, empty record and random-state buffers), so they are compiled
# without NRT (``_nrt=False``, the workaround in those issues). Everything called from here must
# not allocate (a compile error says so if it does).
@njit(cache=True, _nrt=False)
def _play_games(
    first_game_index,
    n_games,
    root_seed,
    stream_base,
    policy_ids,
    policy_params,
    transition,
    zone,
    out_points,
    out_plies,
    out_kingdoms,
    out_territory,
    out_captures,
    out_manoeuvre_forts,
    out_passes,
    out_decided_by,
    out_record,
    state,
    pts,
    empty_record,
    rngs,
    scr,
):
    """The game loop of ``play_batch`` and ``play_batch_search`` (same arguments, then their
    scratch buffers; ``scr`` is None without an ``mcts`` seat, see ``play_game``)."""
    for g in range(n_games):
        rec = out_record[g] if g < out_record.shape[0] else empty_record
        plies = play_game(
            state,
            np.uint64(root_seed),
            np.uint64(first_game_index + g),
            np.uint64(stream_base),
            policy_ids,
            policy_params,
            transition,
            zone,
            rec,
            rngs,
            scr,
        )
        out_decided_by[g] = score_final(state, pts)
        out_plies[g] = plies
        out_passes[g] = state[S_PASSES]
        for s in range(2):
            out_points[g, s] = pts[s]
            out_kingdoms[g, s] = count_kingdoms(state[S_FORTS + s])
            out_territory[g, s] = popcount(state[S_FORTS + s])
            out_captures[g, s] = state[S_CAPTURES + s]
            out_manoeuvre_forts[g, s] = state[S_MANOEUVRE_FORTS + s]


@njit(cache=True)
def perft(state, depth, transition, zone):
    """Number of move sequences of length ``depth`` from ``state`` (chess-engine perft)."""
    if depth == 0:
        return 1
    moves, kind = legal_moves(state)
    if kind == KIND_TERMINAL:
        return 0
    if kind == KIND_PASS:
        child = state.copy()
        apply_move(child, MOVE_PASS, kind, transition, zone)
        return perft(child, depth - 1, transition, zone)
    if depth == 1:
        return popcount(moves)
    total = 0
    while moves != _ZERO:
        c = lsb(moves)
        moves &= moves - _ONE
        child = state.copy()
        apply_move(child, c, kind, transition, zone)
        total += perft(child, depth - 1, transition, zone)
    return total
