"""Don Quixote simple policies: random, greedy and heuristic choosers, their evaluation.

* random: uniform over (face-up tile, rotation), from the seat's policy stream.
* greedy: the candidate maximising the current round's score if scored now; ties broken by
  the defence shield sum, then knights attached to castles, then lower tile index, then 0°.
* heuristic: maximise ``heuristic_value`` (weights = policy parameters, ``HEUR_DEFAULT``).

``_run_simple`` (a seat's placements with one of these) is here, not in ``play``: the rollout
policy and the search's rollout step call it too.
"""

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


@njit(cache=True)
def _castles_knights(S):
    """Knights attached to both castles."""
    k = 0
    for c in range(N_CASTLES):
        k += castle_knights(S, c)
    return k


@njit(cache=True)
def _greedy_key(S, rnd):
    # documented order: immediate score, then defence sum, then knights attached to castles
    return score_round(S, rnd) * 4096 + min(S[SC, SC_DEF], 63) * 64 + min(_castles_knights(S), 63)


@njit(cache=True)
def heuristic_value(S, tiles, rnd, w, open_ws):
    """Heuristic value of an estate during round ``rnd`` (weights ``w``, order HEUR_DEFAULT).

    ``w[H_NOW]`` x score if scored now + ``w[H_CASTLE]`` x sum over castles of value/6 x
    min(knights, 3) + ``w[H_DEF]`` x min(defence shields, 12) + ``w[H_BONUS]`` x best knight
    group + ``w[H_OPEN]`` x open road ends facing empty cells + ``w[H_GROW]`` x church/windmill
    growth (one more feature's value, for groups in networks with open ends) + ``w[H_KOPEN]`` x
    knights in networks with open ends + ``w[H_CASTLE_OPEN]`` x open ends of castle networks
    still short of 3 knights. (``w[H_END]``, the extra weight at a round's last placement, is
    applied by the caller.)
    ``open_ws`` is int64[96] scratch, all zero on entry and on return.

    Not modelled: which of the tiles still to come could connect a given open end (a tried
    "dead end" term, open ends no unplaced tile can serve, moved the mean by < 0.1 point on
    the placeholder set and 4 ensemble sets, so it was left out).
    """
    v = w[H_NOW] * score_round(S, rnd)
    kc = 0.0
    for c in range(N_CASTLES):
        k = castle_knights(S, c)
        kc += S[SC, SC_CVAL + c] / 6.0 * min(k, 3)
    v += w[H_CASTLE] * kc + w[H_DEF] * min(S[SC, SC_DEF], 12) + w[H_BONUS] * S[SC, SC_BONUS]
    total_open = 0
    for cell in range(N_CELLS):
        t = S[CELLS, cell]
        if t < 0:
            continue
        o = S[CELLS, N_CELLS + cell]
        for p in range(6):
            k = tiles[t, o, T_PP + p]
            if k < 0:
                continue
            nc = NB_CELL[cell, p]
            if nc < 0 or S[CELLS, nc] >= 0:
                continue
            r = find(S, cell * MAXP + k)
            open_ws[r] += 1
            total_open += 1
    v += w[H_OPEN] * total_open
    if total_open == 0:
        return v
    grow = 0.0
    kopen = 0.0
    for r in range(N_NODES):
        if open_ws[r] == 0:
            continue
        ch = S[CH, r]
        if ch >= 1:
            grow += group_points(ch + 1) - group_points(ch)
        wm = S[WM, r]
        if wm >= 1:
            grow += group_points(wm + 1) - group_points(wm)
        kopen += S[KN, r]
    castle_open = 0.0
    for c in range(N_CASTLES):
        if castle_knights(S, c) >= 3:
            continue
        for j in range(2):
            a = S[SC, SC_STUB + 2 * c + j]
            if a >= 0:
                castle_open += min(open_ws[find(S, a)], 2)
    for r in range(N_NODES):
        open_ws[r] = 0
    return v + w[H_GROW] * grow + w[H_KOPEN] * kopen + w[H_CASTLE_OPEN] * castle_open


@njit(cache=True)
def _choose_simple(
    pol, w, S, tiles, cell, hand, nh, rotmask, rnd, at_end, rng, log, saved, open_ws
):
    """(hand index, orientation) chosen by random / greedy / heuristic. ``at_end``: this
    placement ends the round (the heuristic adds ``w[H_END]`` x the round's score)."""
    if pol == POL_RANDOM:
        i = randint(rng, nh)
        if rotmask == ROT_BOTH:
            return i, randint(rng, 2)
        return i, (0 if rotmask == 1 else 1)
    best_i = 0
    best_o = 0
    best_t = 1 << 30
    best_k = -1.0e300
    for k in range(SC_SAVE):
        saved[k] = S[SC, k]
    for i in range(nh):
        t = hand[i]
        for o in range(2):
            if not (rotmask >> o) & 1:
                continue
            place(S, tiles, cell, t, o, log)
            if pol == POL_GREEDY:
                key = np.float64(_greedy_key(S, rnd))
            else:
                key = heuristic_value(S, tiles, rnd, w, open_ws)
                if at_end:
                    key += w[H_END] * score_round(S, rnd)
            unplace(S, tiles, cell, log, saved)
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
    S,
    tiles,
    cells,
    seq,
    pos0,
    hand,
    nh,
    pol,
    w,
    last_rotmask,
    rng,
    log,
    saved,
    open_ws,
    bd,
    bd_row,
    moves,
):
    """Play placements ``pos0 .. 21`` with a simple policy; return the sum of scorings done.

    ``hand[:nh]`` holds the face-up unplaced tiles before the reveals of ``pos0``. If ``bd``
    has rows, scoring r's categories go to ``bd[bd_row, r - 1, :]``. ``moves`` (int64[22, 2])
    receives (tile, rotation) per placement.
    """
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
        i, o = _choose_simple(
            pol,
            w,
            S,
            tiles,
            cells[pos],
            hand[first:nh],
            nh - first,
            rotmask,
            rnd,
            pos == ROUND_END[rnd - 1],
            rng,
            log,
            saved,
            open_ws,
        )
        i += first
        t = hand[i]
        hand[i] = hand[nh - 1]
        nh -= 1
        moves[pos, 0] = t
        moves[pos, 1] = o
        place(S, tiles, cells[pos], t, o, log)
        if pos == ROUND_END[rnd - 1]:
            if bd.shape[0] > 0:
                total += score_breakdown(S, rnd, bd[bd_row, rnd - 1])
            else:
                total += score_round(S, rnd)
    return total
