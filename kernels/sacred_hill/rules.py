"""Sacred Hill rules: kingdoms, sieges and captures, legal moves, applying a move, scoring.

Rules: ``docs/rules/sacred_hill.md``; each function cites the section it implements. States are
``uint64[S_SIZE]`` arrays (``kernels.sacred_hill.layout``).
"""

import numpy as np
from numba import njit

from kernels.bitboard import lsb, popcount
from kernels.sacred_hill.layout import (
    _ONE,
    _ZERO,
    BB_KNIGHT,
    BB_VALID,
    KIND_BUILD_ADJACENT,
    KIND_BUILD_ANYWHERE,
    KIND_CAPTURE,
    KIND_MANOEUVRE,
    KIND_PASS,
    KIND_TERMINAL,
    MOVE_PASS,
    PHASE_BATTLE,
    PHASE_GRACE,
    PHASE_MANOEUVRE,
    S_CAPTURES,
    S_FORTS,
    S_KNIGHT,
    S_MANOEUVRE_FORTS,
    S_PASSES,
    S_PHASE,
    S_PLIES,
    S_TO_MOVE,
    S_ZONE,
    TRANSITION_BOX,
)


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
def recompute_unions(state, seat, zone):
    """Rebuild the seat's knight and zone unions (``S_KNIGHT``, ``S_ZONE``) from its forts
    (§3.1), after a capture removed one of them."""
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
                recompute_unions(state, o, zone)
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
