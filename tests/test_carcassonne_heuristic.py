"""Carcassonne's heuristic (``kernels/carcassonne/policies.py``): what its virtual merge reads.

The heuristic values a placement by merging the new tile's segments with the neighbouring
features without changing the state (``_merged_feature``); the meeples it counts on the merged
feature decide who has the majority (docs/rules/carcassonne.md §3.2 step 3, §4.2). Positions are
built with ``mcsim.games.carcassonne.Position``, coordinates as in ``tests/test_carcassonne_rules.py``.
"""

import numpy as np

import kernels.carcassonne as K
from kernels.carcassonne.layout import H_OPEN_PEN, H_W_OPP
from kernels.carcassonne.policies import _group_segments, _merged_feature, _neighbour_roots
from mcsim.games.carcassonne import Position

RED, BLUE = 0, 1

# weights chosen so the values below are exact binary fractions
_PARAMS = np.zeros(11, dtype=np.float64)
_PARAMS[H_W_OPP] = 0.5
_PARAMS[H_OPEN_PEN] = 0.25


def _virtual_merge(pos, letter, x, y, rot, cur):
    """``_merged_feature`` of every segment group of ``letter``/``rot`` at (x, y), as
    ``evaluate_placement`` runs it (pot 0, meeple cost 1, progress 0): per group's first segment,
    (meeples per player, open sides, pennants, tiles, worth before the merge, roots)."""
    T, S = pos.T, pos.S
    t = pos.letters.index(letter)
    cell = K.xy_cell(x, y)
    scratch = K.new_scratch.py_func()
    roots, nr, conn, grp, mee = scratch[:5]
    _neighbour_roots(S, T, t, rot, cell, roots, nr, conn, grp)
    ns = int(T[K.TB_NSEG][t])
    _group_segments(T[K.TB_SEG_KIND], t, ns, roots, nr, grp)
    out = {}
    for g in range(ns):
        k = int(T[K.TB_SEG_KIND][t, g])
        if grp[g] != g or k == K.KIND_CLOISTER:
            continue
        opn, pen, _adj, tiles, old, nroots = _merged_feature(
            S, T, t, g, k, cur, _PARAMS, 0.0, 1.0, 0.0, scratch
        )
        out[pos.segs[t][g]] = (
            [int(v) for v in mee[: pos.players]],
            int(opn),
            int(pen),
            int(tiles),
            float(old),
            int(nroots),
        )
    return out


def _three_caps(red_w, blue_e, red_n):
    """Three separate one-tile cities (E caps) around the empty cell (0, 0), facing it from the
    west, east and north, with these meeples; R at (0, 0) (city N, E, W) would join them."""
    pos = Position(start=False)
    pos.place("E", -1, 0, 1, check=False)  # city on its east side
    pos.place("E", 1, 0, 3, check=False)  # city on its west side
    pos.place("E", 0, -1, 2, check=False)  # city on its south side
    for x, y, n, p in ((-1, 0, red_w, RED), (1, 0, blue_e, BLUE), (0, -1, red_n, RED)):
        for _ in range(n):
            pos.add_meeple(x, y, "city0", p)
    return pos


def test_merged_city_counts_each_seats_meeples_once():
    """docs/rules/carcassonne.md §3.2 step 3, §4.2: a tile joining two occupied cities (Red 1 on
    one, Blue 1 on the other) forms one city with Red 1, Blue 1, a shared majority. The virtual
    merge once summed the meeples into the same array that valued each root, so it counted the
    last occupied root's meeples twice and the others not at all (here Red 2, Blue 0)."""
    pos = Position(start=False)
    pos.place("E", -1, 0, 1, check=False)  # a one-tile city facing (0, 0) from the west
    pos.place("E", 1, 0, 3, check=False)  # and one facing it from the east
    pos.add_meeple(-1, 0, "city0", RED)
    pos.add_meeple(1, 0, "city0", BLUE)
    got = _virtual_merge(pos, "G", 0, 0, 0, RED)  # G: the city band W-E, closes both caps
    # worth before, to Red: Red's cap v = 1 - 0.25 (one open side), Blue's cap -0.5 v
    assert got["city0"] == ([1, 1], 0, 0, 3, 0.375, 2)
    pos.place("G", 0, 0, 0, score=False)  # the kernel's own merge agrees
    assert pos.feature(0, 0, "city0")["meeples"] == [1, 1]


def test_merged_city_of_three_occupied_caps():
    """docs/rules/carcassonne.md §3.2 step 3: R joining three caps (Red 1, Blue 1, Red 1) forms
    one city with Red 2, Blue 1, Red's majority, whatever order the roots are met in."""
    pos = _three_caps(1, 1, 1)
    got = _virtual_merge(pos, "R", 0, 0, 0, BLUE)
    # to Blue: Red's two caps each -0.5 * 0.75, Blue's own cap +0.75
    assert got["city0"] == ([2, 1], 0, 0, 4, 0.0, 3)  # complete: no open side
    pos.place("R", 0, 0, 0, score=False)
    assert pos.feature(0, 0, "city0")["meeples"] == [2, 1]


def test_merged_road_counts_one_meeple_once():
    """docs/rules/carcassonne.md §3.2 step 3: extending Blue's road, the merged road holds Blue's
    one meeple (counted twice before: the meeples a completed feature gives back were doubled)."""
    pos = Position()
    pos.add_meeple(0, 0, "road0", BLUE)  # D's road, open E and W
    got = _virtual_merge(pos, "U", 1, 0, 1, RED)  # U turned: road W-E
    assert got["road0"][0] == [0, 1]
    assert got["road0"][1:] == (2, 0, 2, -0.5 * 1.0, 1)
