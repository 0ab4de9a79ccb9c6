"""Sacred Hill policies: uniform random, and the 1-ply ``greedy`` / ``tactician`` evaluation of
the rulebook's strategy hints (``docs/rules/sacred_hill.md`` §6), and restricted play's
classification of the legal moves (``forbidden_moves``, ``restrict``)."""

import numpy as np
from numba import njit

from kernels.bitboard import kth_set_bit, lsb, popcount
from kernels.rng import randint, random_float
from kernels.sacred_hill.layout import (
    _ONE,
    _ZERO,
    BB_EDGE,
    BB_KNIGHT,
    BB_ORTH,
    BB_VALID,
    FORBID_BATTLE_NEXT_TO_ENEMY,
    FORBID_BUILD_INTO_SIEGE,
    FORBID_FILL_SAFE_CONNECTION,
    FORBID_MANOEUVRE_NEXT_TO_ENEMY,
    FORBID_MANOEUVRE_ON_EDGE,
    KIND_BUILD_ADJACENT,
    KIND_BUILD_ANYWHERE,
    KIND_CAPTURE,
    KIND_MANOEUVRE,
    KIND_PASS,
    MOVE_PASS,
    P_EPS,
    P_W_ATARI,
    P_W_BLOCK,
    P_W_KINGDOMS,
    P_W_MANOEUVRES,
    P_W_SAFE_FILL,
    P_W_SPREAD,
    P_W_SUICIDE,
    P_W_TERRITORY,
    POLICY_RANDOM,
    S_FORTS,
    S_KNIGHT,
    S_TO_MOVE,
    S_ZONE,
)
from kernels.sacred_hill.rules import _distinct_kingdoms_touching, besieged_by, orth_neighbours


@njit(cache=True, inline="always")
def _has(mask, bit):
    return ((mask >> np.uint64(bit)) & _ONE) != _ZERO


@njit(cache=True)
def forbidden_moves(state, moves, kind, mask):
    """The moves of the legal bitboard ``moves`` (of ``kind``, for the player to move) that the
    restricted-play ``mask`` (uint64, bits ``FORBID_*``) forbids, as a bitboard.

    docs/rules/sacred_hill.md §10: a Manoeuvre (§3.1) on a hill orthogonally
    adjacent to an enemy fort, a Manoeuvre on one of the 20 edge hills (fewer than 4
    neighbours, §1), a Battle build (§3.3.2-3) next to an enemy fort, a Battle build on an empty
    hill every existing neighbour of which is the player's own fort (a safe connection, §2,
    §6.5), a build of either phase on an empty hill the opponent besieges (§2; the opponent
    must capture the fort on its next Battle turn, §3.3.1). Captures and passes are never options (the rules impose them,
    §3.3.1, §3.4): 0 for them.
    """
    if kind != KIND_MANOEUVRE and kind != KIND_BUILD_ADJACENT and kind != KIND_BUILD_ANYWHERE:
        return _ZERO
    p = np.int64(state[S_TO_MOVE])
    own = state[S_FORTS + p]
    opp = state[S_FORTS + 1 - p]
    bad = _ZERO
    if kind == KIND_MANOEUVRE:
        if _has(mask, FORBID_MANOEUVRE_NEXT_TO_ENEMY):
            bad |= orth_neighbours(opp)
        if _has(mask, FORBID_MANOEUVRE_ON_EDGE):
            bad |= BB_EDGE
    else:
        if _has(mask, FORBID_BATTLE_NEXT_TO_ENEMY):
            bad |= orth_neighbours(opp)
        if _has(mask, FORBID_FILL_SAFE_CONNECTION):
            bad |= besieged_by(own)
    if _has(mask, FORBID_BUILD_INTO_SIEGE):
        bad |= besieged_by(opp)
    return moves & bad


@njit(cache=True, inline="always")
def restrict(state, moves, kind, mask):
    """Restricted play's choice set: ``(moves, status)`` with ``moves`` the legal bitboard
    without its forbidden moves (``forbidden_moves``) when some legal move is permitted
    (``status`` 1, the decision avoided a forbidden option), ``moves`` unchanged when none is
    forbidden (``status`` 0) or when all are (``status`` 2, forced: the rules win). Call it only
    when ``mask != 0``: an unrestricted seat's moves are never touched."""
    bad = forbidden_moves(state, moves, kind, mask)
    if bad == _ZERO:
        return moves, 0
    if bad == moves:
        return moves, 2
    return moves & ~bad, 1


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
