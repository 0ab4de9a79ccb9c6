"""Don Quixote restricted play: which placements a seat's forbid mask forbids, and the filter.

Rule source: ``docs/rules/don_quixote.md`` §8 (restricted play). A seat's mask (the last
parameter of every policy, column ``FORBID_COL[policy id]`` of its parameter vector) holds
the bits ``FORBID_*``:

* ``FORBID_TURN_TILE``: a placement at 180° (every tile, §8.1);
* ``FORBID_CHURCH_APART``: a tile with a church placed so that, after the placement, none of
  its churches shares a road network with another church, while the estate already held a
  church before it (§8.2);
* ``FORBID_WINDMILL_APART``: the same for windmills (§8.3);
* ``FORBID_KNIGHT_OFF_DEFENCE``: a placement on a border cell in the orientation in which the
  tile gives the cell no defence shields while the other orientation gives some (a knight
  turned so that its own half has no boundary road, §8.4, §3.4).

One decision is one placement: the legal options are the (face-up tile, orientation) pairs of
§3.2 (the set-aside tile alone at placement 22, in the orientations the variant allows). When
some legal option is forbidden and some is not, the seat chooses among the permitted ones (an
*avoided* decision); when every legal option is forbidden the rules win and it chooses among
all (a *forced* decision).

A restriction ``rs`` is None (no seat restricted: Numba prunes every branch that reads it, so
unrestricted runs compile none of this) or int64[RS_WIDTH]: the mask, then the counts of
avoided and forced decisions. jit-compiled; the caller validates the mask.
"""

import numpy as np
from numba import njit

from kernels.don_quixote.layout import (
    CH,
    MAXP,
    N_NODES,
    PAR,
    SC,
    SC_SAVE,
    T_CH,
    T_DEF,
    T_NP,
    T_WM,
    WM,
)
from kernels.don_quixote.rules import find, place, unplace

#: bits of a seat's forbid mask (``mcsim.games.don_quixote.RESTRICTIONS``)
FORBID_TURN_TILE, FORBID_CHURCH_APART, FORBID_WINDMILL_APART = 0, 1, 2
FORBID_KNIGHT_OFF_DEFENCE = 3
#: the kinds whose test needs the estate after a trial placement
FORBID_NEEDS_PLACE = (1 << FORBID_CHURCH_APART) | (1 << FORBID_WINDMILL_APART)
#: positions in a restriction ``rs``: the mask, decisions avoided, decisions forced
RS_MASK, RS_AVOIDED, RS_FORCED = 0, 1, 2
RS_WIDTH = 3
#: every option permitted (the ``allow`` of an unrestricted decision)
ALLOW_ALL = np.int64(-1)


@njit(cache=True)
def feature_total(state, row):
    """Churches (``row`` = CH) or windmills (WM) on the estate: the sum over network roots."""
    n = 0
    for x in range(N_NODES):
        if state[PAR, x] == x:
            n += state[row, x]
    return n


@njit(cache=True)
def _apart(state, tables, cell, t, o, t_field, row):
    """After tile ``t`` (orientation ``o``) was placed on ``cell``: it carries the feature
    (``t_field`` T_CH / T_WM) and no piece carrying it lies in a network holding >= 2."""
    has = False
    for k in range(tables[t, o, T_NP]):
        if tables[t, o, t_field + k] > 0:
            has = True
            if state[row, find(state, cell * MAXP + k)] >= 2:
                return False
    return has


@njit(cache=True)
def _orientation_forbidden(tables, cell, t, o, mask):
    """The options read from the tile table alone: turn-tile (§8.1), knight-off-defence
    (§8.4: no defence shields on ``cell`` at ``o``, some at the other orientation)."""
    if (mask >> FORBID_TURN_TILE) & 1 and o == 1:
        return True
    if (mask >> FORBID_KNIGHT_OFF_DEFENCE) & 1:
        if tables[t, o, T_DEF + cell] == 0 and tables[t, 1 - o, T_DEF + cell] > 0:
            return True
    return False


@njit(cache=True)
def forbidden_placed(state, tables, cell, t, o, mask, churches_before, mills_before):
    """Whether the placement just made (tile ``t`` at orientation ``o`` on ``cell``, already on
    ``state``) is forbidden by ``mask`` (§8); ``churches_before`` / ``mills_before``: the
    estate's churches / windmills before it (``feature_total``)."""
    if _orientation_forbidden(tables, cell, t, o, mask):
        return True
    if (mask >> FORBID_CHURCH_APART) & 1 and churches_before > 0:
        if _apart(state, tables, cell, t, o, T_CH, CH):
            return True
    if (mask >> FORBID_WINDMILL_APART) & 1 and mills_before > 0:
        if _apart(state, tables, cell, t, o, T_WM, WM):
            return True
    return False


@njit(cache=True)
def forbidden_move(state, tables, cell, t, o, mask, log, saved):
    """Whether placing tile ``t`` at orientation ``o`` on empty ``cell`` is forbidden by
    ``mask`` (§8); ``state`` is restored (trial placement with ``log`` / ``saved``)."""
    if not mask & FORBID_NEEDS_PLACE:
        return _orientation_forbidden(tables, cell, t, o, mask)
    nc = feature_total(state, CH)
    nw = feature_total(state, WM)
    for k in range(SC_SAVE):
        saved[k] = state[SC, k]
    place(state, tables, cell, t, o, log)
    f = forbidden_placed(state, tables, cell, t, o, mask, nc, nw)
    unplace(state, tables, cell, log, saved)
    return f


@njit(cache=True)
def permitted(state, tables, cell, hand, nh, rotmask, mask, log, saved):
    """``(allow, legal)``: bit ``2 * i + o`` of ``legal`` for each legal option (hand index
    ``i`` < ``nh`` <= 16, orientation ``o`` in ``rotmask``), of ``allow`` for those ``mask``
    permits (§8). ``state`` is restored."""
    legal = np.int64(0)
    allow = np.int64(0)
    needs = mask & FORBID_NEEDS_PLACE
    nc = feature_total(state, CH) if needs else 0
    nw = feature_total(state, WM) if needs else 0
    for k in range(SC_SAVE):
        saved[k] = state[SC, k]
    for i in range(nh):
        t = hand[i]
        for o in range(2):
            if not (rotmask >> o) & 1:
                continue
            b = np.int64(1) << np.int64(2 * i + o)
            legal |= b
            if needs:
                place(state, tables, cell, t, o, log)
                f = forbidden_placed(state, tables, cell, t, o, mask, nc, nw)
                unplace(state, tables, cell, log, saved)
            else:
                f = _orientation_forbidden(tables, cell, t, o, mask)
            if not f:
                allow |= b
    return allow, legal


@njit(cache=True)
def restrict(state, tables, cell, hand, nh, rotmask, rs, log, saved):
    """The options a restricted seat may choose at one decision (bit ``2 * i + o``, as
    ``permitted``), counting it in ``rs`` (int64[RS_WIDTH]): avoided when some legal option is
    forbidden and some is not (the permitted ones are returned), forced when all are (all are
    returned, §8). ``rs[RS_MASK] == 0`` permits everything and counts nothing."""
    mask = rs[RS_MASK]
    if mask == 0:
        return ALLOW_ALL
    allow, legal = permitted(state, tables, cell, hand, nh, rotmask, mask, log, saved)
    if allow == legal:
        return legal
    if allow == 0:
        rs[RS_FORCED] += 1
        return legal
    rs[RS_AVOIDED] += 1
    return allow


@njit(cache=True)
def allowed(allow, i, o):
    """Whether option (hand index ``i``, orientation ``o``) is in ``allow`` (bits
    ``2 * i + o``; ``ALLOW_ALL`` = every option)."""
    return (allow >> np.int64(2 * i + o)) & 1 == 1


@njit(cache=True)
def nth_allowed(allow, n):
    """(hand index, orientation) of the ``n``-th set bit of ``allow`` (0-based)."""
    b = 0
    while True:
        if (allow >> np.int64(b)) & 1:
            if n == 0:
                return b >> 1, b & 1
            n -= 1
        b += 1


@njit(cache=True)
def n_allowed(allow, nh, rotmask):
    """Options of ``allow`` among the ``nh`` hand tiles and ``rotmask`` orientations."""
    n = 0
    for i in range(nh):
        for o in range(2):
            if (rotmask >> o) & 1 and allowed(allow, i, o):
                n += 1
    return n
