"""Don Quixote simple policies: random, greedy and heuristic choosers, their evaluation.

* random: uniform over (face-up tile, rotation), from the seat's policy stream.
* greedy: the candidate maximising the current round's score if scored now; ties broken by
  the defence shield sum, then knights attached to castles, then lower tile index, then 0°.
* heuristic: maximise ``heuristic_value`` (weights = policy parameters, ``HEUR_DEFAULT``).

``_run_simple`` (a seat's placements with one of these) is here, not in ``play``: the rollout
policy and the search's rollout step call it too.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from kernels.don_quixote.layout import (
    CELLS,
    CH,
    H_BONUS,
    H_CASTLE,
    H_CASTLE_OPEN,
    H_DEF,
    H_END,
    H_GROW,
    H_KOPEN,
    H_NOW,
    H_OPEN,
    KN,
    MAXP,
    N_CASTLES,
    N_CELLS,
    N_NODES,
    N_PLACE,
    NB_CELL,
    POL_GREEDY,
    POL_RANDOM,
    ROT_BOTH,
    ROUND_END,
    SC,
    SC_BONUS,
    SC_CVAL,
    SC_DEF,
    SC_SAVE,
    SC_STUB,
    T_PP,
    WM,
)
from kernels.don_quixote.restrict import ALLOW_ALL, allowed, n_allowed, nth_allowed, restrict
from kernels.don_quixote.rules import (
    castle_knights,
    find,
    group_points,
    place,
    reveal,
    round_of,
    score_breakdown,
    score_round,
    unplace,
)
from kernels.rng import randint

#: the trial-placement scratch of the simple choosers (``_choose_simple``, ``_run_simple``, the
#: rollouts): the undo ``log`` (int64[LOGN]), the ``saved`` scalars (int64[SC_SAVE]) and
#: ``open_ends`` (int64[N_NODES], all zero between calls; ``heuristic_value``)
PlacementScratch = namedtuple("PlacementScratch", ["log", "saved", "open_ends"])
#: where ``_run_simple`` writes one seat's game: ``breakdown`` (int64[rows, 3, N_CAT]; row
#: ``row`` gets the points per scoring and category, none when it has no rows) and ``moves``
#: (int64[22, 2]: tile, rotation per placement)
SeatOutputs = namedtuple("SeatOutputs", ["breakdown", "row", "moves"])


@njit(cache=True)
def _castles_knights(state):
    """Knights attached to both castles."""
    k = 0
    for c in range(N_CASTLES):
        k += castle_knights(state, c)
    return k


@njit(cache=True)
def _greedy_key(state, rnd):
    # documented order: immediate score, then defence sum, then knights attached to castles
    return (
        score_round(state, rnd) * 4096
        + min(state[SC, SC_DEF], 63) * 64
        + min(_castles_knights(state), 63)
    )


@njit(cache=True)
def heuristic_value(state, tables, rnd, weights, open_ends):
    """Heuristic value of an estate during round ``rnd`` (``weights``, order HEUR_DEFAULT).

    ``weights[H_NOW]`` x score if scored now + ``weights[H_CASTLE]`` x sum over castles of
    value/6 x min(knights, 3) + ``weights[H_DEF]`` x min(defence shields, 12) +
    ``weights[H_BONUS]`` x best knight group + ``weights[H_OPEN]`` x open road ends facing
    empty cells + ``weights[H_GROW]`` x church/windmill growth (one more feature's value, for
    groups in networks with open ends) + ``weights[H_KOPEN]`` x knights in networks with open
    ends + ``weights[H_CASTLE_OPEN]`` x open ends of castle networks still short of 3 knights.
    (``weights[H_END]``, the extra weight at a round's last placement, is applied by the
    caller.) ``open_ends`` is int64[96] scratch (open ends per network root), all zero on entry
    and on return.

    Not modelled: which of the tiles still to come could connect a given open end (a tried
    "dead end" term, open ends no unplaced tile can serve, moved the mean by < 0.1 point on
    the placeholder set and 4 ensemble sets, so it was left out).
    """
    v = weights[H_NOW] * score_round(state, rnd)
    kc = 0.0
    for c in range(N_CASTLES):
        k = castle_knights(state, c)
        kc += state[SC, SC_CVAL + c] / 6.0 * min(k, 3)
    v += (
        weights[H_CASTLE] * kc
        + weights[H_DEF] * min(state[SC, SC_DEF], 12)
        + weights[H_BONUS] * state[SC, SC_BONUS]
    )
    total_open = 0
    for cell in range(N_CELLS):
        t = state[CELLS, cell]
        if t < 0:
            continue
        o = state[CELLS, N_CELLS + cell]
        for p in range(6):
            k = tables[t, o, T_PP + p]
            if k < 0:
                continue
            nc = NB_CELL[cell, p]
            if nc < 0 or state[CELLS, nc] >= 0:
                continue
            r = find(state, cell * MAXP + k)
            open_ends[r] += 1
            total_open += 1
    v += weights[H_OPEN] * total_open
    if total_open == 0:
        return v
    grow = 0.0
    kopen = 0.0
    for r in range(N_NODES):
        if open_ends[r] == 0:
            continue
        ch = state[CH, r]
        if ch >= 1:
            grow += group_points(ch + 1) - group_points(ch)
        wm = state[WM, r]
        if wm >= 1:
            grow += group_points(wm + 1) - group_points(wm)
        kopen += state[KN, r]
    castle_open = 0.0
    for c in range(N_CASTLES):
        if castle_knights(state, c) >= 3:
            continue
        for j in range(2):
            a = state[SC, SC_STUB + 2 * c + j]
            if a >= 0:
                castle_open += min(open_ends[find(state, a)], 2)
    for r in range(N_NODES):
        open_ends[r] = 0
    return (
        v + weights[H_GROW] * grow + weights[H_KOPEN] * kopen + weights[H_CASTLE_OPEN] * castle_open
    )


@njit(cache=True)
def _choose_simple(
    policy_id,
    weights,
    state,
    tables,
    cell,
    hand,
    nh,
    rotmask,
    rnd,
    at_end,
    rng,
    scratch,
    allow,
):
    """(hand index, orientation) chosen by random / greedy / heuristic. ``at_end``: this
    placement ends the round (the heuristic adds ``weights[H_END]`` x the round's score);
    ``scratch`` a ``PlacementScratch``; ``allow`` None (every option) or the options a
    restricted seat may choose (bits ``2 * i + o``, ``kernels.don_quixote.restrict``; random
    is then uniform over them)."""
    log, saved, open_ends = scratch
    if allow is not None:
        if policy_id == POL_RANDOM and allow != ALLOW_ALL:
            return nth_allowed(allow, randint(rng, n_allowed(allow, nh, rotmask)))
    if policy_id == POL_RANDOM:
        i = randint(rng, nh)
        if rotmask == ROT_BOTH:
            return i, randint(rng, 2)
        return i, (0 if rotmask == 1 else 1)
    best_i = 0
    best_o = 0
    best_t = 1 << 30
    best_k = -1.0e300
    for k in range(SC_SAVE):
        saved[k] = state[SC, k]
    for i in range(nh):
        t = hand[i]
        for o in range(2):
            if not (rotmask >> o) & 1:
                continue
            if allow is not None:
                if not allowed(allow, i, o):
                    continue
            place(state, tables, cell, t, o, log)
            if policy_id == POL_GREEDY:
                key = np.float64(_greedy_key(state, rnd))
            else:
                key = heuristic_value(state, tables, rnd, weights, open_ends)
                if at_end:
                    key += weights[H_END] * score_round(state, rnd)
            unplace(state, tables, cell, log, saved)
            # ties: lower tile index, then 0° before 180°
            if key > best_k or (key == best_k and t < best_t):
                best_k = key
                best_i = i
                best_o = o
                best_t = t
    return best_i, best_o


# In policies, not play: the rollout chooser and the search's rollout step call it too.
# Numba's reference counting (atomic NRT_incref/NRT_decref on every array passed to the
# helpers) was about half of the kernel time of random and greedy play; the refcount pruning
# pass cannot remove them across the branches (numba/numba#2345, #2350). The placements
# allocate nothing (the caller passes every buffer), so they are compiled without NRT
# (``_nrt=False``, the workaround in those issues). Everything called from here must not
# allocate (a compile error says so if it does).
@njit(cache=True, _nrt=False)
def _run_simple(
    state,
    tables,
    cells,
    seq,
    pos0,
    hand,
    nh,
    policy_id,
    weights,
    last_rotmask,
    rng,
    scratch,
    outputs,
    rs,
):
    """Play placements ``pos0 .. 21`` with a simple policy; return the sum of scorings done.

    ``hand[:nh]`` holds the face-up unplaced tiles before the reveals of ``pos0``; ``scratch``
    a ``PlacementScratch``; the moves and (if its breakdown has rows) the points per scoring
    go to ``outputs`` (a ``SeatOutputs``); ``rs`` None or the seat's restriction
    (int64[RS_WIDTH], ``kernels.don_quixote.restrict``: its mask filters every placement, its
    counts grow, docs/rules/don_quixote.md §8).
    """
    log = scratch.log
    out_breakdown, breakdown_row, out_moves = outputs
    total = 0
    for pos in range(pos0, N_PLACE):
        nh = reveal(hand, nh, seq, pos)
        rnd = round_of(pos)
        if pos == N_PLACE - 1:  # the set-aside tile, revealed last, is placed last (§3.2)
            first = nh - 1
            rotmask = last_rotmask
        else:
            first = 0
            rotmask = ROT_BOTH
        if rs is None:
            i, o = _choose_simple(
                policy_id,
                weights,
                state,
                tables,
                cells[pos],
                hand[first:nh],
                nh - first,
                rotmask,
                rnd,
                pos == ROUND_END[rnd - 1],
                rng,
                scratch,
                None,
            )
        else:
            allow = restrict(
                state, tables, cells[pos], hand[first:nh], nh - first, rotmask, rs, log,
                scratch.saved,
            )  # fmt: skip
            i, o = _choose_simple(
                policy_id,
                weights,
                state,
                tables,
                cells[pos],
                hand[first:nh],
                nh - first,
                rotmask,
                rnd,
                pos == ROUND_END[rnd - 1],
                rng,
                scratch,
                allow,
            )
        i += first
        t = hand[i]
        hand[i] = hand[nh - 1]
        nh -= 1
        out_moves[pos, 0] = t
        out_moves[pos, 1] = o
        place(state, tables, cells[pos], t, o, log)
        if pos == ROUND_END[rnd - 1]:
            if out_breakdown.shape[0] > 0:
                total += score_breakdown(state, rnd, out_breakdown[breakdown_row, rnd - 1])
            else:
                total += score_round(state, rnd)
    return total
