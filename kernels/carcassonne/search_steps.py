"""Carcassonne for ``kernels.search``: the game as a sequence of single decisions.

The search state is a ``GameState`` whose ``sc`` also says where the seat to move stands in
its turn (``S_PHASE`` and the ``S_T .. S_PLAN_S`` slots); the chance events of a determinized
state (tile draws, gift cards, Take 2 shuffle-back) come from the pile order and from ``srng``,
both set by ``_s_determinize``, so ``_s_apply`` is deterministic. Move codes: ``layout``
("Move codes of the search").

The six steps (``_s_copy``, ``_s_determinize``, ``_s_legal``, ``_s_to_move``, ``_s_apply``,
``_s_rollout``) are registered with ``search.register`` at import; ``_mcts_move`` and
``_flat_move`` choose a move by search, with the scratch of ``search_scratch`` (the play loop
calls them; Python calls ``mcts_move`` and ``flat_move``, which check and convert the arguments).

``ctx`` = ``CarcassonneSearchContext`` (tables, variant, heuristic_scratch, rollout policy id,
heuristic parameters float64[11] (the deciding seat's ``params[M_HEUR:]``, ``_seat_weights``),
opt2 int32[MAX_OPT, 4], lst int64[MAX_OPT], e0 int32[0], rollout moves int64[MAX_OPT], width,
depth, vals float64[MAX_OPT], seat, forbid): ``width`` > 0 keeps only the placements the
heuristic values highest (``evaluate_placement``), for every seat and in the rollouts too; ``depth`` > 0 stops a rollout after that many turns and scores the
position as if the game ended (``score_final``). ``seat`` is the searching seat and ``forbid``
its restricted-play mask (int64, docs/rules/carcassonne.md §6.1; 0 = none): that seat's moves
are filtered by it in the tree and in the rollouts (``_s_legal``, ``_s_heuristic_move``), the
other seats' moves are not.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from kernels import search
from kernels.carcassonne.layout import (
    _OFF8,
    _TRUE,
    _ZERO,
    BASE_CHANGE,
    BASE_KEEP,
    BASE_MEEPLE,
    BASE_NODE,
    BASE_OPEN,
    G_OPENED,
    G_UNPLACEABLE,
    GIFT_CASHOUT,
    GIFT_CHANGE,
    GIFT_SWEEPER,
    GIFT_SYNOD,
    H_HOLD,
    HEURISTIC,
    M_C,
    M_DEPTH,
    M_HEUR,
    M_ITER,
    M_REWARD,
    M_ROLLOUT,
    M_SCALE,
    M_WIDTH,
    MAX_MEEPLES,
    MAX_OPT,
    MAX_PLAYERS,
    MAX_PLIES,
    MAX_SEG,
    MAX_TILES,
    MODE_PLAY,
    N_CAT,
    N_CODES,
    N_GIFT,
    N_SC,
    PH_CHANGE,
    PH_KEEP,
    PH_MEEPLE,
    PH_OPEN,
    PH_OVER,
    PH_PLACE,
    PH_TARGET,
    POLICY_HEURISTIC,
    POLICY_MCTS,
    S_CUR,
    S_EARNED,
    S_GDRAWN,
    S_IDX,
    S_NFRONT,
    S_NPLACED,
    S_NPLAYERS,
    S_OPENED,
    S_PHASE,
    S_PILE_POS,
    S_PLAN_C,
    S_PLAN_R,
    S_PLAN_S,
    S_T,
    S_T2,
    S_TURN,
    TB_GIFT_COUNTS,
    V_GIFTS,
    V_TAKE2_OTHER,
)
from kernels.carcassonne.policies import (
    _gift_gain,
    best_placement,
    evaluate_placement,
    new_scratch,
)
from kernels.carcassonne.rules import (
    _draw_tile,
    _return_tile,
    _s_changes,
    _s_targets,
    apply_gift_target,
    finish_turn,
    forbidden_open,
    forbidden_segment,
    gift_earned,
    meeple_options,
    move_meeple,
    new_game_state,
    place_tile,
    placeable,
    placements,
    score_final,
)
from kernels.rng import next_u64, randint

#: the search context of Carcassonne (``kernels.search.register``; see the module docstring)
CarcassonneSearchContext = namedtuple(
    "CarcassonneSearchContext",
    ["tables", "variant", "heuristic_scratch", "rollout_policy", "heuristic_params", "options",
     "option_list", "no_edges", "rollout_moves", "width", "depth", "values", "seat", "forbid"],
)  # fmt: skip


@njit(cache=True)
def _s_copy(dst, src):
    """Copy game state ``src`` into ``dst`` (the parts a game changes: the cells around the
    placed tiles, the feature nodes in use, the small arrays); scratch (``opt``) is not copied."""
    for i in range(dst.sc[S_NPLACED]):
        c = dst.tinfo[i, 2]
        for k in range(9):
            d = c + (_OFF8[k] if k < 8 else 0)
            dst.board[d] = -1
            dst.nb8[d] = 0
            dst.pat[d] = 0
            dst.fpos[d] = -1
    n = src.sc[S_NPLACED]
    for i in range(n):
        c = src.tinfo[i, 2]
        for k in range(9):
            d = c + (_OFF8[k] if k < 8 else 0)
            dst.board[d] = src.board[d]
            dst.nb8[d] = src.nb8[d]
            dst.pat[d] = src.pat[d]
            dst.fpos[d] = src.fpos[d]
        dst.tinfo[i, 0] = src.tinfo[i, 0]
        dst.tinfo[i, 1] = src.tinfo[i, 1]
        dst.tinfo[i, 2] = src.tinfo[i, 2]
    for i in range(src.sc[S_NFRONT]):
        dst.front[i] = src.front[i]
    for x in range(n * MAX_SEG):
        dst.parent[x] = src.parent[x]
        dst.fsize[x] = src.fsize[x]
        dst.lo[x] = src.lo[x]
        dst.hi[x] = src.hi[x]
        for k in range(5):
            dst.fint[x, k] = src.fint[x, k]
        for p in range(MAX_PLAYERS):
            dst.fmee[x, p] = src.fmee[x, p]
    # explicit loops: slice assignment may allocate (overlap check), and the play loop that
    # calls this is compiled without NRT
    for p in range(MAX_PLAYERS):
        for k in range(MAX_MEEPLES):
            dst.mnode[p, k] = src.mnode[p, k]
            dst.mflag[p, k] = src.mflag[p, k]
        dst.score[p] = src.score[p]
        for k in range(N_CAT):
            dst.brk[p, k] = src.brk[p, k]
        for k in range(N_GIFT):
            dst.hand[p, k] = src.hand[p, k]
        for k in range(src.gst.shape[1]):
            dst.gst[p, k] = src.gst[p, k]
    for k in range(src.pile.shape[0]):
        dst.pile[k] = src.pile[k]
    for k in range(src.avail.shape[0]):
        dst.avail[k] = src.avail[k]
    for k in range(N_GIFT):
        dst.gdeck[k] = src.gdeck[k]
        dst.gdisc[k] = src.gdisc[k]
    for k in range(N_SC):
        dst.sc[k] = src.sc[k]
    for k in range(4):
        dst.srng[k] = src.srng[k]


@njit(cache=True)
def _s_determinize(state, ctx, rng):
    """Resample what the seat to move (``sc[S_CUR]``) cannot see: the order of the remaining
    tiles (rebuilt from the public counts ``avail``), the other seats' gift cards (each keeps
    its public count, dealt from the cards not in the seat's hand nor the face-up discards) and
    the gift deck, and the chance stream of later draws (``srng``). §3.1, §4.3, §6 #13."""
    tables, variant = ctx[0], ctx[1]
    sc, pile, avail = state.sc, state.pile, state.avail
    pos = sc[S_PILE_POS]
    k = pos
    for t in range(avail.shape[0]):
        for _ in range(avail[t]):
            pile[k] = t
            k += 1
    for i in range(k - 1, pos, -1):
        j = pos + randint(rng, i - pos + 1)
        tmp = pile[i]
        pile[i] = pile[j]
        pile[j] = tmp
    if variant[V_GIFTS] == 1:
        me = sc[S_CUR]
        hand, gdeck, gdisc = state.hand, state.gdeck, state.gdisc
        gift_counts = tables[TB_GIFT_COUNTS]
        tot = 0
        for g in range(N_GIFT):
            gdeck[g] = gift_counts[g] - hand[me, g] - gdisc[g]
            tot += gdeck[g]
        for p in range(sc[S_NPLAYERS]):
            if p == me:
                continue
            m = 0
            for g in range(N_GIFT):
                m += hand[p, g]
                hand[p, g] = 0
            for _ in range(m):
                x = randint(rng, tot)
                g = 0
                while x >= gdeck[g]:
                    x -= gdeck[g]
                    g += 1
                gdeck[g] -= 1
                hand[p, g] += 1
                tot -= 1
    for i in range(4):
        state.srng[i] = next_u64(rng)


@njit(cache=True)
def _s_begin_turn(state, tables, variant, e0):
    """Start the turn of ``sc[S_CUR]``: draw until placeable (§3.2.1, §6 #14); the game is over
    (``PH_OVER``) when the pile is empty."""
    sc = state.sc
    cur = sc[S_CUR]
    t = _draw_tile(state, state.srng, MODE_PLAY, e0, e0)
    while t >= 0 and not placeable(state, tables, t):
        state.gst[cur, G_UNPLACEABLE] += 1
        t = _draw_tile(state, state.srng, MODE_PLAY, e0, e0)
    sc[S_PLAN_S] = -2
    sc[S_OPENED] = -1
    if t < 0:
        sc[S_PHASE] = PH_OVER
        return
    sc[S_T] = t
    sc[S_PHASE] = PH_PLACE
    if variant[V_GIFTS] == 1:
        for g in range(N_GIFT):
            if state.hand[cur, g] > 0:
                sc[S_PHASE] = PH_OPEN


@njit(cache=True)
def _s_legal_all(state, ctx, moves):
    """Legal move codes of the decision at hand (``layout``, "Move codes of the search"); 0 when
    the game is over. Unfiltered (``_s_legal`` filters the searching seat's)."""
    tables, variant, opt2, lst = ctx[0], ctx[1], ctx[5], ctx[6]
    sc = state.sc
    ph = sc[S_PHASE]
    cur = sc[S_CUR]
    if ph == PH_PLACE:
        t = sc[S_T]
        n = placements(state, tables, t, _TRUE, opt2)
        width = ctx[9]
        if width <= 0 or n <= width:
            for i in range(n):
                moves[i] = opt2[i, 0] * 4 + opt2[i, 1]
            return n
        vals = ctx[11]
        fb = ctx[13] if cur == ctx[12] else _ZERO
        for i in range(n):
            v, _s = evaluate_placement(
                state, tables, t, opt2[i, 1], opt2[i, 0], cur, ctx[4], variant, ctx[2], fb
            )
            vals[i] = v
        for k in range(width):
            b = 0
            for i in range(1, n):
                if vals[i] > vals[b]:
                    b = i
            moves[k] = opt2[b, 0] * 4 + opt2[b, 1]
            vals[b] = -np.inf
        return width
    if ph == PH_MEEPLE:
        n = meeple_options(state, tables, sc[S_IDX], cur, lst)
        # tile 0: the start-tile meeple of start_balance (§6 #21) is placed, "none" (lst[0]) is
        # not offered
        lo = 1 if sc[S_IDX] == 0 else 0
        for i in range(lo, n):
            moves[i - lo] = BASE_MEEPLE + lst[i] + 1
        return n - lo
    if ph == PH_OPEN:
        moves[0] = BASE_OPEN + N_GIFT
        n = 1
        for g in range(N_GIFT):
            if state.hand[cur, g] > 0:
                moves[n] = BASE_OPEN + g
                n += 1
        return n
    if ph == PH_TARGET:
        n = _s_targets(state, tables, cur, sc[S_OPENED], lst)
        for i in range(n):
            moves[i] = BASE_NODE + lst[i]
        return n
    if ph == PH_CHANGE:
        n = _s_changes(state, tables, cur, variant, lst, state.scratch[0:8], opt2)
        for i in range(n):
            moves[i] = BASE_CHANGE + opt2[i, 0] * MAX_SEG + opt2[i, 1]
        return n
    if ph == PH_KEEP:
        moves[0] = BASE_KEEP + sc[S_T]
        if sc[S_T2] == sc[S_T]:
            return 1
        moves[1] = BASE_KEEP + sc[S_T2]
        return 2
    return 0


@njit(cache=True)
def _s_forbidden(state, ctx, move):
    """Whether move code ``move`` of the decision at hand is forbidden by the mask ``ctx[13]``
    (docs/rules/carcassonne.md §6.1): a meeple on a forbidden segment, opening a forbidden gift
    card, a Change Position to a forbidden segment (``forbidden_segment``, ``forbidden_open``).
    The caller checks that the seat to move is the searching seat."""
    tables, variant, opt2, lst, fb = ctx[0], ctx[1], ctx[5], ctx[6], ctx[13]
    sc = state.sc
    ph = sc[S_PHASE]
    if ph == PH_MEEPLE:
        s = move - BASE_MEEPLE - 1
        return s >= 0 and forbidden_segment(tables, state.tinfo[sc[S_IDX], 0], s, fb)
    if ph == PH_OPEN:
        g = move - BASE_OPEN
        return g < N_GIFT and forbidden_open(
            state, tables, variant, sc[S_CUR], g, fb, lst, lst, state.scratch[0:8], opt2
        )
    if ph == PH_CHANGE:
        m = move - BASE_CHANGE
        return forbidden_segment(tables, state.tinfo[m // MAX_SEG // MAX_SEG, 0], m % MAX_SEG, fb)
    return False


@njit(cache=True)
def _s_legal(state, ctx, moves):
    """Legal move codes of the decision at hand (``_s_legal_all``); for the searching seat
    (``ctx[12]``) with a restricted-play mask (``ctx[13]`` != 0) only the permitted ones, in
    the same order, unless every legal move is forbidden (then all: the rules force one,
    docs/rules/carcassonne.md §6.1)."""
    n = _s_legal_all(state, ctx, moves)
    if ctx[13] == 0 or state.sc[S_CUR] != ctx[12]:
        return n
    k = 0
    for i in range(n):
        if not _s_forbidden(state, ctx, moves[i]):
            moves[k] = moves[i]
            k += 1
    return k if k > 0 else n


@njit(cache=True)
def _s_to_move(state, ctx):
    return state.sc[S_CUR]


@njit(cache=True)
def _s_open(state, tables, variant, g, lst, opt2, e0):
    """Open gift ``g`` (``N_GIFT`` = none) and move to the decision it asks for (§4.3, §4.4)."""
    sc = state.sc
    cur = sc[S_CUR]
    sc[S_PHASE] = PH_PLACE
    if g == N_GIFT:
        return
    sc[S_OPENED] = g
    state.hand[cur, g] -= 1
    state.gdisc[g] += 1
    state.gst[cur, G_OPENED + g] += 1
    if g == GIFT_SYNOD or g == GIFT_SWEEPER or g == GIFT_CASHOUT:
        if _s_targets(state, tables, cur, g, lst) > 0:
            sc[S_PHASE] = PH_TARGET
    elif g == GIFT_CHANGE:
        if _s_changes(state, tables, cur, variant, lst, state.scratch[0:8], opt2) > 0:
            sc[S_PHASE] = PH_CHANGE
    else:
        t2 = _draw_tile(state, state.srng, MODE_PLAY, e0, e0)
        while t2 >= 0 and not placeable(state, tables, t2):
            state.gst[cur, G_UNPLACEABLE] += 1
            t2 = _draw_tile(state, state.srng, MODE_PLAY, e0, e0)
        if t2 >= 0:
            sc[S_T2] = t2
            sc[S_PHASE] = PH_KEEP


@njit(cache=True)
def _s_apply(state, ctx, move):
    """Play move code ``move`` (legal in ``state``) and advance to the next decision."""
    tables, variant, opt2, lst, e0 = ctx[0], ctx[1], ctx[5], ctx[6], ctx[7]
    sc = state.sc
    ph = sc[S_PHASE]
    cur = sc[S_CUR]
    if ph == PH_PLACE:
        idx = place_tile(state, tables, sc[S_T], move % 4, move // 4, state.scratch[0:8])
        sc[S_IDX] = idx
        sc[S_EARNED] = variant[V_GIFTS] == 1 and gift_earned(
            state, tables, idx, cur, state.scratch[0:8], variant
        )
        sc[S_PHASE] = PH_MEEPLE
    elif ph == PH_MEEPLE:
        g = finish_turn(
            state,
            tables,
            variant,
            cur,
            sc[S_IDX],
            move - BASE_MEEPLE - 1,
            sc[S_EARNED],
            state.srng,
            MODE_PLAY,
            e0,
        )
        if g >= 0:
            sc[S_GDRAWN] += 1
        sc[S_TURN] += 1
        sc[S_CUR] = (cur + 1) % sc[S_NPLAYERS]
        _s_begin_turn(state, tables, variant, e0)
    elif ph == PH_OPEN:
        _s_open(state, tables, variant, move - BASE_OPEN, lst, opt2, e0)
    elif ph == PH_TARGET:
        apply_gift_target(state, tables, variant, sc[S_OPENED], move - BASE_NODE, cur)
        sc[S_PHASE] = PH_PLACE
    elif ph == PH_CHANGE:
        m = move - BASE_CHANGE
        frm = m // MAX_SEG
        move_meeple(state, cur, frm, (frm // MAX_SEG) * MAX_SEG + m % MAX_SEG)
        sc[S_PHASE] = PH_PLACE
    elif ph == PH_KEEP:
        keep = move - BASE_KEEP
        other = sc[S_T2] if keep == sc[S_T] else sc[S_T]
        sc[S_T] = keep
        if variant[V_TAKE2_OTHER] == 0:
            _return_tile(state, other, state.srng, MODE_PLAY)
        sc[S_PHASE] = PH_PLACE


@njit(cache=True)
def _s_heuristic_move(state, ctx, rng, moves):
    """The ``heuristic`` policy's move code at the decision at hand (as in ``_play``)."""
    tables, variant, heuristic_scratch, params, lst = ctx[0], ctx[1], ctx[2], ctx[4], ctx[6]
    sc, opt = state.sc, state.opt
    ph = sc[S_PHASE]
    cur = sc[S_CUR]
    t = sc[S_T]
    fb = ctx[13] if cur == ctx[12] else _ZERO  # the searching seat's mask (§6.1)
    if ph == PH_PLACE:
        if sc[S_PLAN_S] == -2:
            c, r, s, v = best_placement(
                state, tables, t, cur, params, variant, heuristic_scratch, opt, fb
            )
            sc[S_PLAN_S] = s
            return c * 4 + r
        return sc[S_PLAN_C] * 4 + sc[S_PLAN_R]
    if ph == PH_MEEPLE:
        n = meeple_options(state, tables, sc[S_IDX], cur, lst)
        for i in range(n):
            if lst[i] == sc[S_PLAN_S]:
                return BASE_MEEPLE + lst[i] + 1
        if sc[S_IDX] == 0:  # the start-tile meeple (§6 #21) is placed: the first segment
            s0 = lst[1]
            if fb != 0:  # the first permitted one (§6.1)
                for i in range(n - 1, 0, -1):
                    if not forbidden_segment(tables, state.tinfo[0, 0], lst[i], fb):
                        s0 = lst[i]
            return BASE_MEEPLE + s0 + 1
        return BASE_MEEPLE
    if ph == PH_OPEN:
        opened = N_GIFT
        bestg = -1e18
        for g in range(N_GIFT):
            if state.hand[cur, g] > 0:
                if fb != 0 and forbidden_open(
                    state, tables, variant, cur, g, fb, lst, lst, state.scratch[0:8], opt
                ):
                    continue
                v, _a, _b = _gift_gain(
                    state, tables, heuristic_scratch, cur, g, t, params, variant, opt, fb
                )
                if v > bestg:
                    bestg = v
                    if v > params[H_HOLD]:
                        opened = g
        return BASE_OPEN + opened
    if ph == PH_TARGET:
        v, target, _b = _gift_gain(
            state, tables, heuristic_scratch, cur, sc[S_OPENED], t, params, variant, opt, fb
        )
        if target < 0:
            _s_targets(state, tables, cur, sc[S_OPENED], lst)
            target = lst[0]
        return BASE_NODE + target
    if ph == PH_KEEP:
        c1, r1, s1, v1 = best_placement(
            state, tables, t, cur, params, variant, heuristic_scratch, opt, fb
        )
        c2, r2, s2, v2 = best_placement(
            state, tables, sc[S_T2], cur, params, variant, heuristic_scratch, opt, fb
        )
        if v2 > v1:
            sc[S_PLAN_C], sc[S_PLAN_R], sc[S_PLAN_S] = c2, r2, s2
            return BASE_KEEP + sc[S_T2]
        sc[S_PLAN_C], sc[S_PLAN_R], sc[S_PLAN_S] = c1, r1, s1
        return BASE_KEEP + t
    n = _s_legal(state, ctx, moves)
    return moves[randint(rng, n)]


@njit(cache=True)
def _s_rollout(state, ctx, rng, scores):
    """Finish the game with the rollout policy (ctx[3]: ``POLICY_RANDOM`` uniform over the legal
    moves, ``POLICY_HEURISTIC`` the heuristic at ctx[4]); final points into ``scores``."""
    tables, variant, moves = ctx[0], ctx[1], ctx[8]
    heur = ctx[3] == POLICY_HEURISTIC
    stop = state.sc[S_TURN] + ctx[10] if ctx[10] > 0 else MAX_TILES + 1
    while state.sc[S_PHASE] != PH_OVER and state.sc[S_TURN] < stop:
        if heur:
            mv = _s_heuristic_move(state, ctx, rng, moves)
        else:
            n = _s_legal(state, ctx, moves)
            mv = moves[randint(rng, n)]
        _s_apply(state, ctx, mv)
    score_final(state, tables, variant)
    for p in range(scores.shape[0]):
        scores[p] = state.score[p]


search.register(
    CarcassonneSearchContext,
    copy=lambda dst, src, ctx: _s_copy(dst, src),
    determinize=lambda state, ctx, rng: _s_determinize(state, ctx, rng),
    legal=lambda state, ctx, moves: _s_legal(state, ctx, moves),
    to_move=lambda state, ctx: _s_to_move(state, ctx),
    apply=lambda state, ctx, move: _s_apply(state, ctx, move),
    rollout=lambda state, ctx, rng, scores: _s_rollout(state, ctx, rng, scores),
)


@njit(cache=True)
def search_scratch(npl, capacity, rollout_params):
    """Scratch of ``mcts_move`` for trees of ``capacity`` nodes and ``npl`` seats (a tuple);
    ``rollout_params`` float64[11]: the first content of slot 14, the heuristic weights of
    heuristic rollouts and ``width`` (each decision of ``_mcts_move`` / ``_flat_move`` then
    copies the deciding seat's own ``params[M_HEUR:]`` there, ``_seat_weights``).

    Slots: 0 root, 1 work (``GameState``); 2 tree, 3 value, 4 logs (``search.search``); 5
    moves, 6 untried int64[MAX_OPT]; 7 mark int64[N_CODES]; 8 path int64[MAX_PLIES]; 9 scores,
    10 reward float64[npl]; 11 opt2 int32[MAX_OPT, 4]; 12 lst int64[MAX_OPT]; 13 e0
    int32[0]; 14 heuristic weights; 15 rollout moves int64[MAX_OPT]; 16 vals, 17 totals
    (``flat_move``) float64[MAX_OPT]."""
    return (
        new_game_state(),
        new_game_state(),
        np.zeros((capacity, search.TREE_COLS), np.int64),
        np.zeros(capacity, np.float64),
        np.zeros(capacity, np.float64),
        np.zeros(MAX_OPT, np.int64),
        np.zeros(MAX_OPT, np.int64),
        np.zeros(N_CODES, np.int64),
        np.zeros(MAX_PLIES, np.int64),
        np.zeros(npl, np.float64),
        np.zeros(npl, np.float64),
        np.zeros((MAX_OPT, 4), np.int32),
        np.zeros(MAX_OPT, np.int64),
        np.zeros(0, np.int32),
        rollout_params.copy(),
        np.zeros(MAX_OPT, np.int64),
        np.zeros(MAX_OPT, np.float64),
        np.zeros(MAX_OPT, np.float64),
    )


@njit(cache=True)
def search_root(state, root, cur, phase, t, t2, opened, idx, earned):
    """Copy ``S`` into ``root`` and mark the decision at hand (``sc[S_PHASE ..]``)."""
    _s_copy(root, state)
    rsc = root.sc
    rsc[S_CUR] = cur
    rsc[S_PHASE] = phase
    rsc[S_T] = t
    rsc[S_T2] = t2
    rsc[S_OPENED] = opened
    rsc[S_IDX] = idx
    rsc[S_EARNED] = earned
    rsc[S_PLAN_S] = -2


@njit(cache=True, inline="always")
def _seat_weights(weights, params):
    """Copy the deciding seat's heuristic weights ``params[M_HEUR : M_HEUR + 11]`` (its ``mcts``
    parameters ``h_*``, ``H_*`` order) into ``weights`` (float64[11], slot 14 of
    ``search_scratch``): what its heuristic rollouts, the other seats' modelled moves and the
    ``width`` ranking read. One scratch serves every ``mcts`` seat of a game, so this runs at
    each decision; an explicit loop (the play loop is compiled without NRT)."""
    for k in range(weights.shape[0]):
        weights[k] = params[M_HEUR + k]


# ``ctx`` is built inline in each caller, never by a compiled function of its own: a compiled
# function returning arrays is unsafe here. The play loop ``_play`` is compiled without NRT, and
# Numba compiles every function it calls without NRT too (the flag is inherited) and caches
# that build under the function's signature alone; a caller compiled with NRT (Python calling
# ``flat_move``, ``mcts_move`` with other argument types, any ``@njit`` function) that later
# links that build takes references to the returned arrays that were never given, releases them
# and frees arrays Python still holds (glibc: "malloc_consolidate(): unaligned fastbin chunk
# detected"). Inlined, the tuple is built in the caller's own mode. The two choosers return
# an int and only borrow their arguments, which is safe in either mode.
@njit(cache=True, inline="always")
def _search_ctx(tables, variant, heuristic_scratch, params, search_scratch, seat, forbid):
    """The step functions' ``ctx`` (see the module docstring) for ``mcts`` parameters ``params``,
    searched by ``seat`` with restricted-play mask ``forbid`` (int64, 0 = none)."""
    return CarcassonneSearchContext(
        tables,
        variant,
        heuristic_scratch,
        np.int64(params[M_ROLLOUT]),
        search_scratch[14],
        search_scratch[11],
        search_scratch[12],
        search_scratch[13],
        search_scratch[15],
        np.int64(params[M_WIDTH]),
        np.int64(params[M_DEPTH]),
        search_scratch[16],
        np.int64(seat),
        np.int64(forbid),
    )


@njit(cache=True)
def _mcts_move(
    state,
    tables,
    heuristic_scratch,
    variant,
    cur,
    phase,
    t,
    t2,
    opened,
    idx,
    earned,
    params,
    rng,
    search_scratch,
    forbid,
):
    """Move code (``layout``) of seat ``cur`` at the decision ``phase`` of its turn
    (tile ``t``, Take 2's ``t2``, gift ``opened``, tile index ``idx`` placed and gift ``earned``
    where they apply) by ISMCTS (``kernels.search``) with the ``mcts`` parameters ``params``
    (``M_*``, the search's heuristic weights at ``M_HEUR``); ``rng`` uint64[4] the seat's
    stream, ``search_scratch`` from the function ``search_scratch``; ``forbid`` the seat's
    restricted-play mask (int64, 0 = none): its own moves are filtered by it in the tree and
    the rollouts (``_s_legal``). The root copies
    ``state``; what the seat cannot see is never read, only resampled in each iteration
    (``_s_determinize``). Compiled; the play loop's decisions call it, Python calls
    ``mcts_move``, which checks and allocates what it needs."""
    root = search_scratch[0]
    search_root(state, root, cur, phase, t, t2, opened, idx, earned)
    _seat_weights(search_scratch[14], params)
    return search.search(
        root,
        _search_ctx(tables, variant, heuristic_scratch, params, search_scratch, cur, forbid),
        np.int64(params[M_ITER]),
        params[M_C],
        np.int64(params[M_REWARD]),
        params[M_SCALE],
        rng,
        search_scratch[1],
        search_scratch[2],
        search_scratch[3],
        search_scratch[4],
        search_scratch[5],
        search_scratch[6],
        search_scratch[7],
        search_scratch[8],
        search_scratch[9],
        search_scratch[10],
    )


@njit(cache=True)
def _flat_move(
    state,
    tables,
    heuristic_scratch,
    variant,
    cur,
    phase,
    t,
    t2,
    opened,
    idx,
    earned,
    params,
    rng,
    search_scratch,
    forbid,
):
    """``_mcts_move`` without the tree (``kernels.search.flat``: the same number of
    determinizations and rollouts, the root moves in turn; benchmarks only)."""
    root = search_scratch[0]
    search_root(state, root, cur, phase, t, t2, opened, idx, earned)
    _seat_weights(search_scratch[14], params)
    return search.flat(
        root,
        _search_ctx(tables, variant, heuristic_scratch, params, search_scratch, cur, forbid),
        np.int64(params[M_ITER]),
        np.int64(params[M_REWARD]),
        params[M_SCALE],
        rng,
        search_scratch[1],
        search_scratch[5],
        search_scratch[17],
        search_scratch[9],
        search_scratch[10],
    )


def _python_call(
    chooser, state, tables, variant, cur, phase, t, params, rng, search_scratch, t2, opened,
    idx, earned, forbid, heuristic_scratch,
):  # fmt: skip
    """Check and convert the arguments of ``mcts_move`` / ``flat_move`` and call ``chooser``
    with the argument types of the play loop (so Python reuses the loop's compiled code)."""
    npl = int(state.sc[S_NPLAYERS])
    params = np.ascontiguousarray(params, dtype=np.float64)
    if params.ndim != 1 or params.shape[0] < M_HEUR + HEURISTIC.size:
        raise ValueError(
            f"params must be the mcts parameter vector (M_*, {M_HEUR + HEURISTIC.size} values "
            f"up to the heuristic weights M_HEUR), shape {params.shape}"
        )
    n_iter = int(params[M_ITER])
    if n_iter < 1:
        raise ValueError(f"params[M_ITER] must be at least 1 iteration, got {params[M_ITER]}")
    if not (isinstance(rng, np.ndarray) and rng.dtype == np.uint64 and rng.shape == (4,)):
        raise ValueError("rng must be a uint64[4] random stream (kernels.rng.new_state)")
    if not rng.flags.c_contiguous:
        raise ValueError("rng must be C-contiguous (the search advances it in place)")
    if len(search_scratch) != 18 or search_scratch[2].shape[0] < n_iter + 1:
        raise ValueError(
            f"search_scratch must come from search_scratch(npl, capacity, rollout_params) with "
            f"capacity >= iterations + 1 = {n_iter + 1}"
        )
    if search_scratch[9].shape[0] != npl:
        raise ValueError(
            f"search_scratch is for {search_scratch[9].shape[0]} seats, the state has {npl}"
        )
    if heuristic_scratch is None:
        heuristic_scratch = new_scratch.py_func()
    i64 = np.int64
    return int(
        chooser(
            state,
            tables,
            heuristic_scratch,
            np.ascontiguousarray(variant, dtype=np.int64),
            i64(cur),
            i64(phase),
            i64(t),
            i64(t2),
            i64(opened),
            i64(idx),
            i64(earned),
            params,
            rng,
            search_scratch,
            i64(forbid),
        )
    )


def mcts_move(
    state, tables, variant, cur, phase, t, params, rng, search_scratch, t2=-1, opened=-1,
    idx=-1, earned=0, forbid=0, heuristic_scratch=None,
):  # fmt: skip
    """The ``mcts`` policy's move code (``layout``, "Move codes of the search") for seat ``cur``
    at decision ``phase`` (``PH_*``) of its turn (tile ``t``; Take 2's ``t2``, the gift
    ``opened``, the placed tile's index ``idx`` and gift ``earned`` where they apply), called
    from Python: ``_mcts_move`` with its arguments checked and converted to the play loop's
    types. ``params``: the ``mcts`` parameter vector (``M_*``); ``rng``: the seat's uint64[4]
    stream (advanced in place); ``search_scratch``: from ``search_scratch(npl, capacity,
    rollout_params)`` with capacity >= ``params[M_ITER]`` + 1 and the state's seat count;
    ``forbid``: restricted-play mask (0 = none); ``heuristic_scratch`` (``new_scratch``) is
    allocated when None. Raises ``ValueError`` (one line) for arguments that do not fit."""
    return _python_call(
        _mcts_move, state, tables, variant, cur, phase, t, params, rng, search_scratch, t2,
        opened, idx, earned, forbid, heuristic_scratch,
    )  # fmt: skip


def flat_move(
    state, tables, variant, cur, phase, t, params, rng, search_scratch, t2=-1, opened=-1,
    idx=-1, earned=0, forbid=0, heuristic_scratch=None,
):  # fmt: skip
    """``mcts_move`` without the tree (``_flat_move``; benchmarks), the same arguments."""
    return _python_call(
        _flat_move, state, tables, variant, cur, phase, t, params, rng, search_scratch, t2,
        opened, idx, earned, forbid, heuristic_scratch,
    )  # fmt: skip


def _mcts_scratch(npl, policy_ids, policy_params, rollout_params):
    """``search_scratch`` sized for the ``mcts`` seats' iterations (at least 2 nodes)."""
    cap = 2
    for p in range(npl):
        if policy_ids[p] == POLICY_MCTS:
            cap = max(cap, int(policy_params[p, M_ITER]) + 1)
    return search_scratch(
        np.int64(npl), np.int64(cap), np.ascontiguousarray(rollout_params, dtype=np.float64)
    )
