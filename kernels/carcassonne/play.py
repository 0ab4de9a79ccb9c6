"""Carcassonne play: the compiled game loop ``_play`` and the entry points Python calls.

Decisions go through one place per kind (open a gift, gift target, Take 2 choice, placement,
meeple: ``_choose_*``, ``_gift_*``), so the same loop plays policies (``MODE_PLAY``, optionally
writing the turn log) and validates a record (``MODE_REPLAY``): the turn log is the record's
move list in integer form (``layout``, "Turn log"). ``play_batch``, ``play_batch_mcts``,
``record_game``, ``record_game_mcts``, ``replay_state`` and ``replay_game`` are Python wrappers
that call ``_play`` with the same argument types, so they share its machine code.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from kernels.carcassonne.layout import (
    _FALSE,
    _INTERNAL,
    _NONE,
    _STREAM_DEAL,
    _STREAM_GIFTS,
    _TRUE,
    _ZERO,
    BAD,
    BASE_CHANGE,
    BASE_KEEP,
    BASE_MEEPLE,
    BASE_NODE,
    BASE_OPEN,
    ERR_DRAW,
    ERR_GIFT_ARG,
    ERR_GIFT_DRAW,
    ERR_LENGTH,
    ERR_MEEPLE,
    ERR_NONE,
    ERR_OPEN,
    ERR_PLACE,
    ERR_START,
    ERR_TILE,
    FORBID_COL,
    G_AVOIDED,
    G_FORCED,
    G_OPENED,
    GIFT_CHANGE,
    GIFT_SWEEPER,
    GIFT_SYNOD,
    GIFT_TAKE2,
    GST_COLS,
    H_HOLD,
    L_GA,
    L_GB,
    L_GC,
    L_GD,
    L_MEEPLE,
    L_OPEN,
    L_PLAYER,
    L_RECEIVED,
    L_ROT,
    L_TILE,
    L_X,
    L_Y,
    LOG_COLS,
    MAX_SEG,
    MODE_PLAY,
    MODE_REPLAY,
    N_CAT,
    N_GIFT,
    NO_EFFECT,
    PH_CHANGE,
    PH_KEEP,
    PH_MEEPLE,
    PH_OPEN,
    PH_PLACE,
    PH_TARGET,
    POLICY_MCTS,
    POLICY_RANDOM,
    S_CUR,
    S_DRAWN,
    S_ERR,
    S_ERR_TURN,
    S_FINISHED,
    S_GDRAWN,
    S_NOPT,
    S_NPLACED,
    S_START_SEG,
    S_TURN,
    TB_CL_SEG,
    TB_FIT,
    TB_START,
    V_GIFTS,
    V_START_BALANCE,
    V_TAKE2_OTHER,
)
from kernels.carcassonne.policies import (
    _gift_gain,
    best_placement,
    new_scratch,
    start_meeple_choice,
)
from kernels.carcassonne.rules import (
    _draw_placeable,
    _node_at,
    _return_tile,
    _s_changes,
    _s_targets,
    _setup,
    apply_gift_target,
    cell_xy,
    find,
    finish_turn,
    forbidden_open,
    forbidden_segment,
    gift_earned,
    meeple_options,
    move_meeple,
    new_game_state,
    place_tile,
    placements,
    put_meeple,
    score_final,
    xy_cell,
)
from kernels.carcassonne.search_steps import _mcts_move, _mcts_scratch
from kernels.rng import STREAM_POLICY, game_seed, randint, seed_state


# inlined: called with 8 different ERR_* literals, each a compile of its own otherwise
@njit(cache=True, inline="always")
def _fail(state, kind, turn):
    state.sc[S_ERR] = kind
    state.sc[S_ERR_TURN] = turn


@njit(cache=True)
def _seat_forbid(forbid, cur):
    """Seat ``cur``'s restricted-play mask (int64, bits ``FB_*``, docs/rules/carcassonne.md
    §6.1): 0 when ``forbid`` is None, the ``Run`` of a lineup without a restricted seat. Compiled
    on its own so that the None branch is pruned; then every ``fb != 0`` test of the turn folds
    away and an unrestricted run carries no restricted-play code."""
    if forbid is None:
        return np.int64(0)
    return np.int64(forbid[cur])


@njit(cache=True, inline="always")
def _tally(state, cur, nforb, nperm):
    """Restricted play's counters of one real decision of ``cur`` (docs/rules/carcassonne.md
    §6.1): ``nforb`` forbidden and ``nperm`` permitted legal choices. Avoided when both exist
    (the seat chose a permitted one), forced when only forbidden ones exist (the rules made the
    seat take one)."""
    if nforb > 0:
        if nperm > 0:
            state.gst[cur, G_AVOIDED] += 1
        else:
            state.gst[cur, G_FORCED] += 1


#: what the steps of a game share (built by ``_run``, one argument of ``_play``): tables,
#: variant codes, the seats' policy ids and parameters, their restricted-play masks (``forbid``
#: int64[npl], bits ``FB_*``, docs/rules/carcassonne.md §6.1, 0 = none), the mode, the replay
#: scripts (``rstart``: the start-tile meeple's segment of ``start_balance``), the logs written,
#: and the deal / gift / per-seat policy random streams (``_play`` seeds them per game).
Run = namedtuple(
    "Run",
    [
        "tables",
        "variant",
        "policy_ids",
        "policy_params",
        "forbid",
        "mode",
        "tscript",
        "gscript",
        "rscript",
        "rstart",
        "log",
        "tlog",
        "glog",
        "deal_rng",
        "gift_rng",
        "rngs",
    ],
)


#: the result arrays of a batch, allocated by ``_run`` and written by ``_play`` (see its
#: docstring, "Results")
CarcassonneOutputs = namedtuple("CarcassonneOutputs", ["score", "brk", "gst", "held", "length"])

#: a game's replay scripts (``MODE_REPLAY``) and the logs written (see ``_play``)
Scripts = namedtuple("Scripts", ["tscript", "gscript", "rscript", "log", "tlog", "glog", "rstart"])


# The decisions of a turn (``_choose_*``, ``_gift_*`` below, one call site each in ``_play``)
# are compiled on their own, called with the ``heuristic_scratch`` and
# ``search_scratch`` of ``_play``: each compile
# prunes the heuristic and search branches the lineup does not use before typing them. Inlined
# into ``_play`` they cost 3 s more of a first run (Numba inlines by deep-copying the callee's
# IR block by block, each block copying the whole variable scope, search branches included),
# and inlined one into another (the former ``_play_turns`` -> ``_turn`` -> ``_open_gift``
# levels) about 10 s more.
@njit(cache=True, **_INTERNAL)
def _choose_open(state, run, cur, t, turn, heuristic_scratch, search_scratch):
    """The gift card ``cur`` opens this turn (§4.3): a held type, -1 none, ``BAD`` when a
    replay's choice is illegal."""
    hand, opt, sc = state.hand, state.opt, state.sc
    nheld = 0
    if run.variant[V_GIFTS] == 1:
        for g in range(N_GIFT):
            nheld += hand[cur, g]
    if nheld == 0:
        if run.mode == MODE_REPLAY and run.rscript[turn, L_OPEN] != -1:
            opt[0, 0] = -1
            sc[S_NOPT] = 1
            _fail(state, ERR_OPEN, turn)
            return BAD
        return -1
    pid = run.policy_ids[cur]
    params = run.policy_params[cur]
    rng = run.rngs[cur]
    fb = _seat_forbid(run.forbid, cur)
    allowed = 31  # bit g: opening a card of type g is permitted (restricted play, §6.1)
    if fb != 0 and run.mode == MODE_PLAY:
        allowed = 0
        nforb = 0
        for g in range(N_GIFT):
            if hand[cur, g] > 0:
                if forbidden_open(
                    state,
                    run.tables,
                    run.variant,
                    cur,
                    np.int64(g),
                    fb,
                    opt[:, 3],
                    state.scratch[8:24],
                    state.scratch[0:8],
                    opt,
                ):
                    nforb += 1
                else:
                    allowed |= 1 << g
        _tally(state, cur, nforb, 1)  # opening none is always permitted (§4.3)
    opened = -1
    if run.mode == MODE_REPLAY:
        opened = np.int64(run.rscript[turn, L_OPEN])
        if opened != -1 and (opened < 0 or opened >= N_GIFT or hand[cur, opened] == 0):
            opt[0, 0] = -1
            k = 1
            for g in range(N_GIFT):
                if hand[cur, g] > 0:
                    opt[k, 0] = g
                    k += 1
            sc[S_NOPT] = k
            _fail(state, ERR_OPEN, turn)
            return BAD
    elif pid == POLICY_RANDOM:
        cnt = 0  # none or one of the held (permitted) types, uniformly
        for g in range(N_GIFT):
            if hand[cur, g] > 0 and (allowed >> g) & 1:
                cnt += 1
        k = randint(rng, cnt + 1) - 1
        if k >= 0:
            for g in range(N_GIFT):
                if hand[cur, g] > 0 and (allowed >> g) & 1:
                    if k == 0:
                        opened = g
                        break
                    k -= 1
    elif pid == POLICY_MCTS:
        if search_scratch is not None:
            m = _mcts_move(
                state,
                run.tables,
                heuristic_scratch,
                run.variant,
                cur,
                np.int64(PH_OPEN),
                t,
                np.int64(-1),
                np.int64(-1),
                np.int64(-1),
                np.int64(0),
                params,
                rng,
                search_scratch,
                fb,
            )
            opened = m - BASE_OPEN if m - BASE_OPEN < N_GIFT else -1
    elif heuristic_scratch is not None:  # the heuristic (None: no seat plays it, not compiled)
        bestg = -1e18
        for g in range(N_GIFT):
            if hand[cur, g] > 0 and (allowed >> g) & 1:
                v, _a, _b = _gift_gain(
                    state, run.tables, heuristic_scratch, cur, g, t, params, run.variant, opt, fb
                )
                if v > bestg:
                    bestg = v
                    if v > params[H_HOLD]:
                        opened = g
    return opened


@njit(cache=True, **_INTERNAL)
def _gift_target(state, run, cur, t, opened, turn, row, heuristic_scratch, search_scratch):
    """Synod, Road Sweeper or Cash Out (§4.4.1-§4.4.3): choose the target and apply it; an
    opening without target has no effect (§6 #5, #6). False when a replay stopped."""
    tables, opt, rscript, log = run.tables, state.opt, run.rscript, run.log
    no = _s_targets(state, tables, cur, opened, opt[:, 3])
    pid = run.policy_ids[cur]
    target = -1
    if no > 0:
        if run.mode == MODE_REPLAY:
            if opened == GIFT_SYNOD:
                c = xy_cell(rscript[turn, L_GA], rscript[turn, L_GB])
                nd = -1
                if c >= 0 and state.board[c] >= 0:
                    cs = tables[TB_CL_SEG][state.tinfo[state.board[c], 0]]
                    if cs >= 0:
                        nd = state.board[c] * MAX_SEG + cs
            else:
                nd = _node_at(
                    state, tables, rscript[turn, L_GA], rscript[turn, L_GB], rscript[turn, L_GC]
                )
            if nd >= 0 and opened == GIFT_SWEEPER:
                nd = find(state.parent, nd)
            for i in range(no):
                if opt[i, 3] == nd:
                    target = nd
            if target < 0:
                state.sc[S_NOPT] = no
                _fail(state, ERR_GIFT_ARG, turn)
                return False
        elif pid == POLICY_RANDOM:
            target = opt[randint(run.rngs[cur], no), 3]
        elif pid == POLICY_MCTS:
            if search_scratch is not None:
                target = (
                    _mcts_move(
                        state,
                        tables,
                        heuristic_scratch,
                        run.variant,
                        cur,
                        np.int64(PH_TARGET),
                        t,
                        np.int64(-1),
                        opened,
                        np.int64(-1),
                        np.int64(0),
                        run.policy_params[cur],
                        run.rngs[cur],
                        search_scratch,
                        _seat_forbid(run.forbid, cur),
                    )
                    - BASE_NODE
                )
        elif heuristic_scratch is not None:  # the heuristic
            v, target, _b = _gift_gain(
                state,
                tables,
                heuristic_scratch,
                cur,
                opened,
                t,
                run.policy_params[cur],
                run.variant,
                opt,
                _seat_forbid(run.forbid, cur),
            )
            if target < 0:
                target = opt[0, 3]
    elif run.mode == MODE_REPLAY and rscript[turn, L_GA] != NO_EFFECT:
        state.sc[S_NOPT] = 0
        _fail(state, ERR_GIFT_ARG, turn)
        return False
    if target >= 0:
        if log.shape[0] > 0:
            x, y = cell_xy(np.int64(state.tinfo[target // MAX_SEG, 2]))
            log[row, L_GA] = x
            log[row, L_GB] = y
            if opened != GIFT_SYNOD:
                log[row, L_GC] = target % MAX_SEG
        apply_gift_target(state, tables, run.variant, opened, target, cur)
    return True


@njit(cache=True, **_INTERNAL)
def _gift_change(state, run, cur, t, opened, turn, row, heuristic_scratch, search_scratch):
    """Change Position (§4.4.4): move one of ``cur``'s meeples to another segment of its tile.
    False when a replay stopped."""
    tables, opt, rscript, log = run.tables, state.opt, run.rscript, run.log
    no = _s_changes(state, tables, cur, run.variant, state.scratch[8:24], state.scratch[0:8], opt)
    pid = run.policy_ids[cur]
    fb = _seat_forbid(run.forbid, cur)
    nperm = no  # restricted play (§6.1): moves to a forbidden segment are avoided
    if fb != 0 and run.mode == MODE_PLAY and no > 0:
        nperm = 0
        for i in range(no):
            if not forbidden_segment(tables, state.tinfo[opt[i, 0] // MAX_SEG, 0], opt[i, 1], fb):
                nperm += 1
        _tally(state, cur, no - nperm, nperm)
        if nperm == 0:
            nperm = no  # forced: every move is forbidden, the rules make the seat take one
    choice = -1
    if no > 0:
        if run.mode == MODE_REPLAY:
            nd = _node_at(
                state, tables, rscript[turn, L_GA], rscript[turn, L_GB], rscript[turn, L_GC]
            )
            for i in range(no):
                if opt[i, 0] == nd and opt[i, 1] == rscript[turn, L_GD]:
                    choice = i
            if choice < 0:
                state.sc[S_NOPT] = no
                _fail(state, ERR_GIFT_ARG, turn)
                return False
        elif pid == POLICY_MCTS:
            if search_scratch is not None:
                m = (
                    _mcts_move(
                        state,
                        tables,
                        heuristic_scratch,
                        run.variant,
                        cur,
                        np.int64(PH_CHANGE),
                        t,
                        np.int64(-1),
                        opened,
                        np.int64(-1),
                        np.int64(0),
                        run.policy_params[cur],
                        run.rngs[cur],
                        search_scratch,
                        fb,
                    )
                    - BASE_CHANGE
                )
                for i in range(no):
                    if opt[i, 0] == m // MAX_SEG and opt[i, 1] == m % MAX_SEG:
                        choice = i
        elif nperm < no:  # the k-th permitted move, uniformly (the heuristic never opens it)
            k = randint(run.rngs[cur], nperm)
            for i in range(no):
                if not forbidden_segment(
                    tables, state.tinfo[opt[i, 0] // MAX_SEG, 0], opt[i, 1], fb
                ):
                    if k == 0:
                        choice = i
                        break
                    k -= 1
        else:
            choice = randint(run.rngs[cur], no)  # the heuristic never opens it
    elif run.mode == MODE_REPLAY and rscript[turn, L_GA] != NO_EFFECT:
        state.sc[S_NOPT] = 0
        _fail(state, ERR_GIFT_ARG, turn)
        return False
    if choice >= 0:
        frm = np.int64(opt[choice, 0])
        to = (frm // MAX_SEG) * MAX_SEG + np.int64(opt[choice, 1])
        if log.shape[0] > 0:
            x, y = cell_xy(np.int64(state.tinfo[frm // MAX_SEG, 2]))
            log[row, L_GA] = x
            log[row, L_GB] = y
            log[row, L_GC] = frm % MAX_SEG
            log[row, L_GD] = opt[choice, 1]
        move_meeple(state, cur, frm, to)
    return True


@njit(cache=True, **_INTERNAL)
def _gift_take2(state, run, cur, t, opened, turn, row, heuristic_scratch, search_scratch):
    """Take 2 (§4.4.5): draw a second tile, keep one, shuffle the other back (``take2_other``,
    §6 #10). Returns (ok, tile kept, planned cell, rotation, segment: -2 = none)."""
    tables, variant, opt = run.tables, run.variant, state.opt
    pc = -1
    pr = -1
    ps = -2
    t2 = _draw_placeable(state, tables, cur, run.deal_rng, run.mode, run.tscript, run.tlog)
    if t2 <= -2:
        _fail(state, ERR_DRAW, turn)
        return False, t, pc, pr, ps
    if t2 < 0:
        return True, t, pc, pr, ps
    pid = run.policy_ids[cur]
    params = run.policy_params[cur]
    keep = t
    if run.mode == MODE_REPLAY:
        keep = np.int64(run.rscript[turn, L_GA])
        if keep != t and keep != t2:
            opt[0, 0] = t
            opt[1, 0] = t2
            state.sc[S_NOPT] = 2
            _fail(state, ERR_GIFT_ARG, turn)
            return False, t, pc, pr, ps
    elif pid == POLICY_RANDOM:
        if randint(run.rngs[cur], 2) == 1:
            keep = t2
    elif pid == POLICY_MCTS:
        if search_scratch is not None:
            keep = (
                _mcts_move(
                    state,
                    tables,
                    heuristic_scratch,
                    variant,
                    cur,
                    np.int64(PH_KEEP),
                    t,
                    t2,
                    opened,
                    np.int64(-1),
                    np.int64(0),
                    params,
                    run.rngs[cur],
                    search_scratch,
                    _seat_forbid(run.forbid, cur),
                )
                - BASE_KEEP
            )
    elif heuristic_scratch is not None:  # the heuristic
        fb = _seat_forbid(run.forbid, cur)
        c1, r1, s1, v1 = best_placement(
            state, tables, t, cur, params, variant, heuristic_scratch, opt, fb
        )
        c2, r2, s2, v2 = best_placement(
            state, tables, t2, cur, params, variant, heuristic_scratch, opt, fb
        )
        if v2 > v1:
            keep = t2
            pc, pr, ps = c2, r2, s2
        else:
            pc, pr, ps = c1, r1, s1
    other = t2 if keep == t else t
    if run.log.shape[0] > 0:
        run.log[row, L_GA] = keep
    if variant[V_TAKE2_OTHER] == 0:
        _return_tile(state, other, run.gift_rng, run.mode)
    return True, keep, pc, pr, ps


@njit(cache=True, **_INTERNAL)
def _choose_place(state, run, cur, t, opened, turn, pc, pr, ps, heuristic_scratch, search_scratch):
    """Placement of tile ``t`` (§3.2.1): (cell, rotation, the heuristic's planned meeple
    segment); cell ``BAD`` when a replay stopped. ``pc, pr, ps``: a plan made by Take 2."""
    tables, opt, rscript = run.tables, state.opt, run.rscript
    if run.mode == MODE_REPLAY:
        if rscript[turn, L_TILE] != t:
            opt[0, 0] = t
            state.sc[S_NOPT] = 1
            _fail(state, ERR_TILE, turn)
            return BAD, 0, ps
        c = xy_cell(rscript[turn, L_X], rscript[turn, L_Y])
        r = rscript[turn, L_ROT]
        if (
            c < 0
            or state.fpos[c] < 0
            or r < 0
            or r > 3
            or not (tables[TB_FIT][t, state.pat[c]] >> r) & 1
        ):
            state.sc[S_NOPT] = placements(state, tables, t, _FALSE, opt)
            _fail(state, ERR_PLACE, turn)
            return BAD, 0, ps
        return np.int64(c), np.int64(r), ps
    if ps != -2:
        return np.int64(pc), np.int64(pr), ps
    pid = run.policy_ids[cur]
    rng = run.rngs[cur]
    if pid == POLICY_RANDOM:
        no = placements(state, tables, t, _TRUE, opt)
        k = randint(rng, no)
        return np.int64(opt[k, 0]), np.int64(opt[k, 1]), ps
    if pid == POLICY_MCTS:
        m = -1
        if search_scratch is not None:
            m = _mcts_move(
                state,
                tables,
                heuristic_scratch,
                run.variant,
                cur,
                np.int64(PH_PLACE),
                t,
                np.int64(-1),
                opened,
                np.int64(-1),
                np.int64(0),
                run.policy_params[cur],
                rng,
                search_scratch,
                _seat_forbid(run.forbid, cur),
            )
        return np.int64(m // 4), np.int64(m % 4), ps
    if heuristic_scratch is not None:  # the heuristic
        c, r, ps, v = best_placement(
            state,
            tables,
            t,
            cur,
            run.policy_params[cur],
            run.variant,
            heuristic_scratch,
            opt,
            _seat_forbid(run.forbid, cur),
        )
        return np.int64(c), np.int64(r), ps
    return np.int64(BAD), _NONE, ps


@njit(cache=True, **_INTERNAL)
def _choose_meeple(
    state, run, cur, t, opened, idx, earned, turn, ps, heuristic_scratch, search_scratch
):
    """Segment of tile ``idx`` for ``cur``'s meeple (§3.2.2; -1 none), ``BAD`` when a replay
    stopped. ``ps``: the heuristic's planned segment."""
    mopts = state.scratch[8:24]
    nm = meeple_options(state, run.tables, idx, cur, mopts)
    pid = run.policy_ids[cur]
    fb = _seat_forbid(run.forbid, cur)
    nperm = nm  # restricted play (§6.1): "none" (mopts[0]) is always permitted
    tt = state.tinfo[idx, 0]  # the tile placed (Take 2: the one kept)
    if fb != 0 and run.mode == MODE_PLAY:
        for i in range(1, nm):
            if forbidden_segment(run.tables, tt, mopts[i], fb):
                nperm -= 1
        _tally(state, cur, nm - nperm, nperm)
    if run.mode == MODE_REPLAY:
        s = np.int64(run.rscript[turn, L_MEEPLE])
        for i in range(nm):
            if mopts[i] == s:
                return s
        for i in range(nm):
            state.opt[i, 0] = mopts[i]
        state.sc[S_NOPT] = nm
        _fail(state, ERR_MEEPLE, turn)
        return BAD
    if pid == POLICY_RANDOM:
        if nperm < nm:  # the k-th permitted choice, uniformly
            k = randint(run.rngs[cur], nperm)
            for i in range(nm):
                if i == 0 or not forbidden_segment(run.tables, tt, mopts[i], fb):
                    if k == 0:
                        return mopts[i]
                    k -= 1
        return mopts[randint(run.rngs[cur], nm)]
    if pid == POLICY_MCTS:
        s = -1
        if search_scratch is not None:
            s = (
                _mcts_move(
                    state,
                    run.tables,
                    heuristic_scratch,
                    run.variant,
                    cur,
                    np.int64(PH_MEEPLE),
                    t,
                    np.int64(-1),
                    opened,
                    idx,
                    1 if earned else 0,
                    run.policy_params[cur],
                    run.rngs[cur],
                    search_scratch,
                    fb,
                )
                - BASE_MEEPLE
                - 1
            )
        return s
    s = -1
    for i in range(nm):
        if mopts[i] == ps:
            s = ps
    return s


@njit(cache=True, **_INTERNAL)
def _choose_start_meeple(state, run, heuristic_scratch, search_scratch):
    """``start_balance=tournament`` with 3 or 4 players (docs/rules/carcassonne.md §6 #21): the
    segment of the start tile (tile 0) on which seat 0 puts a meeple before seat 1 draws the
    first tile. The choice is seat 0's, among the segments a normal meeple step offers on that
    tile (§3.2 step 2) except "none": the rule has the meeple placed. ``BAD`` when a replay's
    segment is not one of them (the options are left in ``opt``)."""
    mopts = state.scratch[8:24]
    cur = _ZERO
    nm = meeple_options(state, run.tables, _ZERO, cur, mopts)
    pid = run.policy_ids[cur]
    fb = _seat_forbid(run.forbid, cur)
    t0 = state.tinfo[0, 0]
    nperm = nm - 1  # restricted play (§6.1): the options mopts[1:nm], "none" is not offered
    if fb != 0 and run.mode == MODE_PLAY:
        for i in range(1, nm):
            if forbidden_segment(run.tables, t0, mopts[i], fb):
                nperm -= 1
        _tally(state, cur, nm - 1 - nperm, nperm)
        if nperm == 0:
            nperm = nm - 1  # forced: every segment is forbidden
    if run.mode == MODE_REPLAY:
        s = run.rstart
        for i in range(1, nm):
            if mopts[i] == s:
                return s
        for i in range(1, nm):
            state.opt[i - 1, 0] = mopts[i]
        state.sc[S_NOPT] = nm - 1
        _fail(state, ERR_START, _ZERO)
        return BAD
    if pid == POLICY_RANDOM:
        if nperm < nm - 1:  # the k-th permitted segment, uniformly
            k = randint(run.rngs[cur], nperm)
            for i in range(1, nm):
                if not forbidden_segment(run.tables, t0, mopts[i], fb):
                    if k == 0:
                        return mopts[i]
                    k -= 1
        return mopts[1 + randint(run.rngs[cur], nm - 1)]
    if pid == POLICY_MCTS:
        s = mopts[1]
        if search_scratch is not None:
            s = (
                _mcts_move(
                    state,
                    run.tables,
                    heuristic_scratch,
                    run.variant,
                    cur,
                    np.int64(PH_MEEPLE),
                    np.int64(run.tables[TB_START][0]),
                    np.int64(-1),
                    np.int64(-1),
                    _ZERO,
                    np.int64(0),
                    run.policy_params[cur],
                    run.rngs[cur],
                    search_scratch,
                    fb,
                )
                - BASE_MEEPLE
                - 1
            )
        return s
    if heuristic_scratch is not None:  # the heuristic
        return start_meeple_choice(
            state, run.tables, cur, run.policy_params[cur], heuristic_scratch, mopts, nm, fb
        )
    return mopts[1]


# Numba's reference counting (atomic NRT_incref/NRT_decref on every array passed to the
# helpers; the state alone holds 28 arrays) was about 40% of the time of random play; the refcount
# pruning pass cannot remove them across the branches (numba/numba#2345, #2350). The games
# allocate nothing (the state, random states, scratch and result arrays come from ``_run``), so
# the entry is compiled without NRT (``_nrt=False``, the workaround in those issues); being
# called from Python, no compiled caller links and re-optimises the whole engine once more.
# Everything it calls (the search included) must not allocate (a compile error says so).
# It is long: its docstring documents every argument and result of the one compiled entry, and
# its body holds the game loop and the turn's steps in the rules' order (setup, draw, gift,
# placement, meeple, scoring) rather than in ``_play_turns`` / ``_turn`` levels: inlined,
# each level deep-copied the IR of everything below it (about 10 s of the cold compile, see
# the comment above ``_choose_open``); compiled on their own, each would link and compile
# the whole engine below it again.
@njit(cache=True, _nrt=False)
def _play(
    state,
    heuristic_scratch,
    first_game_index,
    n_games,
    root_seed,
    npl,
    run,
    out,
    search_scratch,
):
    """The one compiled entry of play, records and replay (``play_batch``, ``record_game``,
    ``replay_game`` are Python wrappers that pass every argument with the same types, so they
    share its machine code). Plays (``MODE_PLAY``) or validates (``MODE_REPLAY``) games
    ``first_game_index .. + n_games - 1``.

    Parameters
    ----------
    state : GameState
        From ``new_game_state()``; reset for each game, holds the last game's final state.
    heuristic_scratch : tuple or None
        Heuristic scratch (``new_scratch()``) when a seat plays ``heuristic`` or ``mcts``, else
        None: then the heuristic code is not compiled (the ``heuristic_scratch is not None``
        branches are pruned at compile time): random play and replays compile without it.
    first_game_index, n_games : int64
    root_seed : uint64
        Game i's deal is drawn from ``STREAM_DEAL``, its gift deck and Take 2 shuffle-backs from
        ``STREAM_GIFTS``, seat k's choices from ``STREAM_POLICY + k``.
    npl : int64
        Players, 2..5.
    run : Run
        Built by ``_run``; its fields:

        policy_ids : int64[npl]; policy_params : float64[npl, n_params]
        variant : int64[n_variants]
            Codes in ``SPEC.variants`` order (``V_*``).
        tables : tuple
            Tile tables built by ``mcsim.games.carcassonne.build_tables`` (slots ``TB_*``).
        mode : int64
            ``MODE_PLAY`` or ``MODE_REPLAY``.
        tscript, gscript : int32[k]
            Replay only: tile types in draw order, gift cards in draw order.
        rscript : int32[n_turns, LOG_COLS]
            Replay only: the turn rows (``layout``, "Turn log").
        rstart : int64
            Replay only: the segment of seat 0's start-tile meeple (``start_balance``).
        log : int32[>= 72, LOG_COLS]; tlog, glog : int32[256]
            Written in both modes when non-empty (one game): turn rows, tiles drawn, gift
            cards drawn.
        deal_rng, gift_rng : uint64[4]; rngs : uint64[npl, 4]
            Scratch for the random states of the deal, the gifts and the seats.
    out : CarcassonneOutputs
        The result arrays (score, brk, gst, held, length), written (see below).
    search_scratch : tuple or None
        ``search_scratch`` when a seat plays ``mcts``, else None (then the search code is not
        compiled: the ``search_scratch is not None`` branches are pruned at compile time).

    Results (written into the arrays of ``out``)
    --------------------------------------------
    score : int32[n_games, npl]
        Final scores (points).
    brk : int32[n_games, npl, N_CAT]
        Points by road, city, monastery, farm, gift (Road Sweeper, Cash Out, unopened cards).
    gst : int32[n_games, npl, GST_COLS]
        Per seat: turns (tiles placed), unplaceable tiles drawn, gifts received by type (5),
        opened by type (5), points credited to each gift type (5): Road Sweeper and Cash Out
        points, points won only thanks to a Synod / Change Position meeple, and 2 per card of
        that type still held at the end.
    held : int32[n_games, npl, N_GIFT]
        Unopened gift cards at the end, by type.
    length : int32[n_games]
        Turns played (= tiles placed after the start tile).
    state
        The last game's final state. In replay mode an illegal record sets ``sc[S_ERR]``
        (``ERR_*``), ``sc[S_ERR_TURN]`` and leaves the legal options in ``opt`` rows
        ``0 .. sc[S_NOPT]-1`` and stops.

    With ``start_balance=tournament`` and 3-4 players (variant ``V_START_BALANCE``,
    docs/rules/carcassonne.md §6 #21) seat 0 puts a meeple on the start tile after the setup
    (``_choose_start_meeple``; its segment in ``sc[S_START_SEG]``, -1 otherwise) and seat 1
    takes the first turn; with 5 players the variant's removed tile is in ``tables`` already.

    Notes
    -----
    jit-compiled; the caller validates inputs.
    Rules: ``docs/rules/carcassonne.md`` §3 (base game), §4 (The Gifts).
    """
    tables, variant, mode = run.tables, run.variant, run.mode
    tscript, gscript, rscript = run.tscript, run.gscript, run.rscript
    log, tlog, glog = run.log, run.tlog, run.glog
    deal_rng, gift_rng, rngs = run.deal_rng, run.gift_rng, run.rngs
    out_score, out_brk, out_gst, out_held, out_length = out
    for i in range(n_games):
        gi = np.uint64(first_game_index + i)
        seed_state(deal_rng, game_seed(root_seed, gi, _STREAM_DEAL))
        seed_state(gift_rng, game_seed(root_seed, gi, _STREAM_GIFTS))
        for p in range(npl):
            seed_state(rngs[p], game_seed(root_seed, gi, np.uint64(STREAM_POLICY + p)))
        # setup (§3.1, §4.1), then turns until the pile is empty (finished) or a replay stops
        _setup(state, tables, npl, variant, mode, deal_rng)
        cur = _ZERO  # int64, not a literal: a literal would compile every callee twice
        turn = _ZERO
        state.sc[S_START_SEG] = -1
        if variant[V_START_BALANCE] == 1 and npl >= 3 and npl <= 4:
            # tournament start balance (§6 #21): seat 0's meeple on the start tile, seat 1 draws
            s0 = _choose_start_meeple(state, run, heuristic_scratch, search_scratch)
            if s0 == BAD:
                break
            put_meeple(state, s0, cur)
            state.sc[S_START_SEG] = s0
            cur = np.int64(1)
        while True:
            t = _draw_placeable(state, tables, cur, deal_rng, mode, tscript, tlog)
            if t == -3:
                _fail(state, ERR_DRAW, turn)
            if t == -1:  # the pile is empty: the game is over
                if mode == MODE_REPLAY and turn != rscript.shape[0]:
                    _fail(state, ERR_LENGTH, turn)
                else:
                    state.sc[S_FINISHED] = 1
                    score_final(state, tables, variant)
            if t < 0 or (mode == MODE_REPLAY and turn >= rscript.shape[0]):
                break  # over, or a replay stopped: an illegal or unfinished record
            # one turn of seat ``cur`` holding tile ``t``: gift (§4.3), placement (§3.2.1),
            # meeple (§3.2.2), gift card earned (§4.2), scoring (§3.2.3)
            nlog = log.shape[0]
            row = turn if turn < nlog else nlog - 1
            if nlog > 0:
                log[row, :] = -1
                log[row, L_PLAYER] = cur
                log[row, L_GA : L_GD + 1] = NO_EFFECT
            opened = _choose_open(state, run, cur, t, turn, heuristic_scratch, search_scratch)
            if opened == BAD:
                break
            pc = -1
            pr = -1
            ps = -2  # the heuristic's planned meeple segment (-2 = no plan yet)
            if opened >= 0:  # to the face-up discards (§4.3), then its effect (§4.4)
                state.hand[cur, opened] -= 1
                state.gdisc[opened] += 1
                state.gst[cur, G_OPENED + opened] += 1
                if nlog > 0:
                    log[row, L_OPEN] = opened
                if opened == GIFT_TAKE2:
                    ok, t, pc, pr, ps = _gift_take2(
                        state, run, cur, t, opened, turn, row, heuristic_scratch, search_scratch
                    )
                elif opened == GIFT_CHANGE:
                    ok = _gift_change(
                        state, run, cur, t, opened, turn, row, heuristic_scratch, search_scratch
                    )
                else:
                    ok = _gift_target(
                        state, run, cur, t, opened, turn, row, heuristic_scratch, search_scratch
                    )
                if not ok:
                    break
            c, r, ps = _choose_place(
                state, run, cur, t, opened, turn, pc, pr, ps, heuristic_scratch, search_scratch
            )
            if c == BAD:
                break
            state.sc[S_CUR] = cur
            idx = place_tile(state, tables, t, r, c, state.scratch[0:8])
            if nlog > 0:
                x, y = cell_xy(c)
                log[row, L_TILE] = t
                log[row, L_X] = x
                log[row, L_Y] = y
                log[row, L_ROT] = r
            # receiving a gift (§4.2), judged before the meeple step (§6 #4); drawn after it
            earned = variant[V_GIFTS] == 1 and gift_earned(
                state, tables, idx, cur, state.scratch[0:8], variant
            )
            s = _choose_meeple(
                state, run, cur, t, opened, idx, earned, turn, ps, heuristic_scratch, search_scratch
            )
            if s == BAD:
                break
            if nlog > 0:
                log[row, L_MEEPLE] = s
            g = finish_turn(state, tables, variant, cur, idx, s, earned, gift_rng, mode, gscript)
            if g == -2:
                _fail(state, ERR_GIFT_DRAW, turn)
                break
            if g >= 0:
                if state.sc[S_GDRAWN] < glog.shape[0]:
                    glog[state.sc[S_GDRAWN]] = g
                state.sc[S_GDRAWN] += 1
                if nlog > 0:
                    log[row, L_RECEIVED] = g
            turn += 1
            state.sc[S_TURN] = turn
            cur = (cur + 1) % npl
        for p in range(npl):
            out_score[i, p] = state.score[p]
            for k in range(N_CAT):
                out_brk[i, p, k] = state.brk[p, k]
            for k in range(GST_COLS):
                out_gst[i, p, k] = state.gst[p, k]
            for k in range(N_GIFT):
                out_held[i, p, k] = state.hand[p, k]
        out_length[i] = state.sc[S_TURN]


def forbid_masks(npl, policy_ids, policy_params):
    """int64[npl]: each seat's restricted-play mask (bits ``FB_*``, docs/rules/carcassonne.md
    §6.1), read from its ``forbid_mask`` parameter (column ``FORBID_COL[policy id]`` of
    ``policy_params``; 0 when the vector is shorter: no restriction); None when no seat is
    restricted, so that an unrestricted run compiles no restricted-play code
    (``_seat_forbid``)."""
    out = np.zeros(npl, dtype=np.int64)
    for p in range(npl):
        col = FORBID_COL[int(policy_ids[p])]
        if col < policy_params.shape[1]:
            out[p] = int(policy_params[p, col])
    return out if out.any() else None


def _i32(a, ndim):
    """``a`` as a C-contiguous int32 array (the one type ``_play`` is compiled for)."""
    a = np.ascontiguousarray(a, dtype=np.int32)
    if a.ndim != ndim:
        raise ValueError(f"expected a {ndim}-d array, got shape {a.shape}")
    return a


def _run(
    first_game_index,
    n_games,
    root_seed,
    npl,
    policy_ids,
    policy_params,
    variant,
    tables,
    mode,
    scripts,
    search_scratch,
):
    """``_play`` with every argument cast to its one compiled type, the state, scratch and
    result arrays allocated and the ``Run`` built (``scripts``: ``Scripts``); (score, brk, gst,
    held, length, final state) (see ``_play``)."""
    npl = int(npl)
    n_games = int(n_games)
    state = new_game_state.py_func()  # NumPy allocates: nothing to compile
    # random play and replays: None, the heuristic is not compiled (see ``_play``)
    heuristic_scratch = None
    if any(int(policy_ids[p]) != POLICY_RANDOM for p in range(npl)) or search_scratch is not None:
        heuristic_scratch = new_scratch.py_func()
    run = Run(
        tables,
        np.ascontiguousarray(variant, dtype=np.int64),
        np.ascontiguousarray(policy_ids, dtype=np.int64),
        np.ascontiguousarray(policy_params, dtype=np.float64),
        forbid_masks(npl, policy_ids, policy_params),
        np.int64(mode),
        _i32(scripts.tscript, 1),
        _i32(scripts.gscript, 1),
        _i32(scripts.rscript, 2),
        np.int64(scripts.rstart),
        _i32(scripts.log, 2),
        _i32(scripts.tlog, 1),
        _i32(scripts.glog, 1),
        np.zeros(4, dtype=np.uint64),
        np.zeros(4, dtype=np.uint64),
        np.zeros((npl, 4), dtype=np.uint64),
    )
    out = CarcassonneOutputs(
        np.zeros((n_games, npl), dtype=np.int32),
        np.zeros((n_games, npl, N_CAT), dtype=np.int32),
        np.zeros((n_games, npl, GST_COLS), dtype=np.int32),
        np.zeros((n_games, npl, N_GIFT), dtype=np.int32),
        np.zeros(n_games, dtype=np.int32),
    )
    _play(
        state,
        heuristic_scratch,
        np.int64(first_game_index),
        np.int64(n_games),
        np.uint64(root_seed),
        np.int64(npl),
        run,
        out,
        search_scratch,
    )
    return tuple(out) + (state,)


def _no_script(log=None, tlog=None, glog=None):
    """Empty replay scripts (play without a record) and the logs ``log``, ``tlog``, ``glog``
    (empty when None: nothing logged), as ``Scripts``."""
    e1 = np.zeros(1, dtype=np.int32)
    return Scripts(
        e1,
        e1,
        np.zeros((1, LOG_COLS), dtype=np.int32),
        np.zeros((0, LOG_COLS), dtype=np.int32) if log is None else log,
        np.zeros(0, dtype=np.int32) if tlog is None else tlog,
        np.zeros(0, dtype=np.int32) if glog is None else glog,
        -1,
    )


def play_batch(
    first_game_index, n_games, root_seed, npl, policy_ids, policy_params, variant, tables
):
    """Play games ``first_game_index .. + n_games - 1`` (no ``mcts`` seat: the search code is
    not compiled); (score, brk, gst, held, length) as ``_play`` returns them.

    Python wrapper of ``_play`` (``MODE_PLAY``); the caller validates inputs.
    """
    r = _run(
        first_game_index,
        n_games,
        root_seed,
        npl,
        policy_ids,
        policy_params,
        variant,
        tables,
        MODE_PLAY,
        _no_script(),
        None,
    )
    return r[:5]


def play_batch_mcts(
    first_game_index,
    n_games,
    root_seed,
    npl,
    policy_ids,
    policy_params,
    variant,
    tables,
    rollout_params,
):
    """``play_batch`` for lineups with ``mcts`` seats; ``rollout_params`` float64[11]: the
    heuristic weights its heuristic rollouts use."""
    search_scratch = _mcts_scratch(npl, policy_ids, policy_params, rollout_params)
    r = _run(
        first_game_index,
        n_games,
        root_seed,
        npl,
        policy_ids,
        policy_params,
        variant,
        tables,
        MODE_PLAY,
        _no_script(),
        search_scratch,
    )
    return r[:5]


def record_game(
    game_index, root_seed, npl, policy_ids, policy_params, variant, tables, rollout_params=None
):
    """Play one game and return its record arrays: (turn rows int32[turns, LOG_COLS], tiles
    drawn int32[k], gifts drawn int32[m], scores int32[npl], breakdown int32[npl, N_CAT], the
    segment of seat 0's start-tile meeple (int, ``start_balance=tournament`` with 3-4 players;
    -1 otherwise)). ``rollout_params``: given when a seat plays ``mcts`` (see
    ``play_batch_mcts``)."""
    search_scratch = None
    if rollout_params is not None:
        search_scratch = _mcts_scratch(npl, policy_ids, policy_params, rollout_params)
    log = np.zeros((80, LOG_COLS), dtype=np.int32)
    tlog = np.zeros(256, dtype=np.int32)
    glog = np.zeros(256, dtype=np.int32)
    state = _run(
        game_index,
        1,
        root_seed,
        npl,
        policy_ids,
        policy_params,
        variant,
        tables,
        MODE_PLAY,
        _no_script(log, tlog, glog),
        search_scratch,
    )[5]
    sc = state.sc
    return (
        log[: sc[S_TURN]].copy(),
        tlog[: sc[S_DRAWN]].copy(),
        glog[: sc[S_GDRAWN]].copy(),
        state.score[:npl].copy(),
        state.brk[:npl].copy(),
        int(sc[S_START_SEG]),
    )


def record_game_mcts(
    game_index, root_seed, npl, policy_ids, policy_params, variant, tables, rollout_params
):
    """``record_game`` for lineups with ``mcts`` seats (see ``play_batch_mcts``)."""
    return record_game(
        game_index, root_seed, npl, policy_ids, policy_params, variant, tables, rollout_params
    )


@njit(cache=True)
def deal_game(state, tables, npl, variant, mode, deal_rng, cur, tscript, tlog):
    """``_play``'s setup of a game (``_setup``) and its first draw (``_draw_placeable``) into
    ``state`` (a ``GameState``), for a caller that stops at the first decision (the kernel battery's
    ``search_start``); ``deal_rng`` uint64[4] the deal stream; returns the tile ``cur`` holds (-1:
    none). Both steps are compiled without a CPython wrapper, hence this entry."""
    _setup(state, tables, npl, variant, mode, deal_rng)
    return _draw_placeable(state, tables, cur, deal_rng, mode, tscript, tlog)


def replay_state(npl, variant, tables, tscript, gscript, rscript, rstart=-1):
    """Replay a record in integer form (``MODE_REPLAY``) as far as it goes; (final
    ``GameState``, turn rows as replayed int32[80, LOG_COLS], tiles drawn int32[256], gift cards
    drawn int32[256]) (see ``_play``). ``rstart``: the segment of seat 0's start-tile meeple
    (read with ``start_balance=tournament`` and 3-4 players only)."""
    log = np.zeros((80, LOG_COLS), dtype=np.int32)
    tlog = np.zeros(256, dtype=np.int32)
    glog = np.zeros(256, dtype=np.int32)
    state = _run(
        0,
        1,
        0,
        npl,
        np.zeros(npl, dtype=np.int64),
        np.zeros((npl, 11), dtype=np.float64),
        variant,
        tables,
        MODE_REPLAY,
        Scripts(tscript, gscript, rscript, log, tlog, glog, rstart),
        None,
    )[5]
    return state, log, tlog, glog


def replay_game(npl, variant, tables, tscript, gscript, rscript, rstart=-1):
    """Validate a record in integer form (``MODE_REPLAY``); ``rstart`` as in ``replay_state``.

    Returns
    -------
    tuple
        (error kind ``ERR_*`` (0 = valid), turn of the error, legal options int32[k, 4] at the
        error, scores int32[npl], breakdown int32[npl, N_CAT], turn rows as replayed
        int32[turns, LOG_COLS], tiles drawn, gift cards drawn, finished (0/1), gift cards held
        int32[npl, N_GIFT], tile info int32[placed, 3] (type, rotation, cell)).
    """
    state, log, _tlog, _glog = replay_state(npl, variant, tables, tscript, gscript, rscript, rstart)
    sc = state.sc
    nopt = sc[S_NOPT] if sc[S_ERR] != ERR_NONE else 0
    return (
        sc[S_ERR],
        sc[S_ERR_TURN],
        state.opt[:nopt].copy(),
        state.score[:npl].copy(),
        state.brk[:npl].copy(),
        log[: sc[S_TURN]].copy(),
        sc[S_DRAWN],
        sc[S_GDRAWN],
        sc[S_FINISHED],
        state.hand[:npl].copy(),
        state.tinfo[: sc[S_NPLACED]].copy(),
    )
