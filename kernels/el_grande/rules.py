"""El Grande rules (Numba): scoring, the decisions, option generators, turn pieces, special
actions, setup and the round engine.

Rules: ``docs/rules/el_grande.md``; each function cites the section it implements. States are
``int32[STATE_SIZE]`` vectors (``kernels.el_grande.layout``). Never imports ``mcsim``.

Decisions: every choice goes through ``decide`` with a list of legal integer options (kind
``K_*``). The random policy picks uniformly among the options of each decision; the
heuristic policy (``policies``, behind the function pointer ``buffers[D_HEUR]``) evaluates options
on a copy of the state. In record mode every decision is logged as ``(kind, seat, value,
aux)``; in replay mode the logged value is checked against the options (the first mismatch is
reported, play continues with the first legal option). The decision machinery lives here, not
in ``policies``: the rules call it at every choice.

Court intake (§3 step 4a, A13; ``court_intake``): one ``K_INTAKE`` decision, the number n in
0..m taken (m = min(power-card allowance, province + own caballeros in regions other than the
King's)); min(n, province) come from the province, the rest one at a time from regions
(``K_SHORT``, a region each). No decision when m = 0. The random policy's count is uniform on
0..m (one decision), unlike placement, which is a sequence of place-or-stop decisions.

Partial Veto (§6 2a): after ``K_VETO`` = 1 on a multi-step action (``nominal_steps`` >= 2, see
there) the holder chooses ``K_VETO_CUT`` k in 0..n-1: k steps happen, then the rest is cancelled
(0 = the whole action, the only possibility for single-step actions). The Veto is discarded
when declared, even if the action ends before its k-th step. ``veto_stop`` is called before
every step.
"""

import warnings

import numpy as np
from numba import cfunc, njit, types
from numba.core.errors import NumbaExperimentalFeatureWarning

from kernels.el_grande.layout import (
    C_CKPTR,
    C_CKR,
    C_ERR,
    C_EVCAP,
    C_EVPTR,
    C_FMASK,
    C_LOGCAP,
    C_LOGFRESH,
    C_MODE,
    C_NERR,
    C_NREAL,
    C_NTREE,
    C_PTR,
    C_QAUX,
    C_QPTR,
    C_QUERY,
    C_SCOPE,
    C_SMASK,
    C_STOPPED,
    C_TPTR,
    CASTILLO,
    D_CTX,
    D_ERRBUF,
    D_EV,
    D_HEUR,
    D_LOG,
    D_OPTS,
    D_PAR,
    D_POL,
    D_RNG,
    D_SCR,
    F_DECKS,
    F_GIVEN,
    F_HOMES,
    F_KING,
    F_START,
    FB_CASTILLO,
    FB_POWER,
    G_FIXED,
    G_SEEDS,
    G_SPECIAL,
    HP_EPS,
    K_ANGRY,
    K_BOARD,
    K_CARD,
    K_CHOICE,
    K_DISC,
    K_EVICT_DST,
    K_EVICT_REGION,
    K_EXEC,
    K_GRANDE_TO,
    K_INTAKE,
    K_KING_TO,
    K_MOVE_DST,
    K_MOVE_SRC,
    K_ORDER,
    K_PLACE,
    K_PLACE_ANY,
    K_POWER,
    K_POWERBACK,
    K_REMOVE1,
    K_SCORE_REGION,
    K_SECRET_REM,
    K_SECRET_SCORE,
    K_SHORT,
    K_SRC_REGION,
    K_VETO,
    K_VETO_CUT,
    KING_CARD,
    MAXP,
    MODE_PLAY,
    MODE_RECORD,
    MODE_REPLAY,
    MODE_SEARCH,
    NPLACE,
    NREG,
    O_BOARD,
    O_CAB,
    O_COURT,
    O_DECK,
    O_DECKPTR,
    O_FACE,
    O_FAVOID,
    O_FFORCED,
    O_GRANDE,
    O_HAND,
    O_IMAX,
    O_ITAKE,
    O_KING,
    O_KINGBY,
    O_LAST,
    O_NP,
    O_ORDER,
    O_PLAYED,
    O_PROV,
    O_PWR,
    O_ROUND,
    O_SCORE,
    O_SRC,
    O_START,
    O_TAKER,
    O_TAKEROUND,
    O_VCOUNT,
    O_VCUT,
    O_VETO_EXP,
    O_VETO_HOLDER,
    O_VPEND,
    OP_ADVISOR,
    OP_ANGRY,
    OP_BOARD,
    OP_CHOOSE_1A1B,
    OP_COURT,
    OP_DECAY_ALL,
    OP_DECAY_N,
    OP_EVICT,
    OP_GRANDE,
    OP_KING,
    OP_MOVE_ANY,
    OP_MOVE_FROM_ONE,
    OP_MOVE_OPP,
    OP_MOVE_OWN,
    OP_MOVE_OWN_ONE,
    OP_MOVE_OWN_OPP,
    OP_PLACE_ANY,
    OP_POWERBACK,
    OP_REMOVE_EACH,
    OP_SCORE_CASTILLO,
    OP_SCORE_CHOICE,
    OP_SCORE_CLASS,
    OP_SCORE_FEWEST,
    OP_SCORE_FIRSTS,
    OP_SCORE_MOST,
    OP_SECRET_REM2,
    OP_SECRET_REMALL,
    OP_SECRET_SCORE,
    OP_VETO,
    POL_RANDOM,
    R_CHOICE,
    R_CKPT,
    R_OUT,
    R_SPEC,
    RESAMPLE,
    SCOPE_ALL,
    SRC_CASTILLO,
    SRC_GENERAL,
    SRC_GRANDE,
    SRC_KING,
    SRC_SPECIAL,
    STATE_SIZE,
    STEP_COURT_INTAKE,
    STEP_GAMES,
    STEP_GENERAL_SCORING,
    STEP_PLACEMENT,
    STEP_SPECIAL,
    STOP,
    T_ADJ,
    T_BVAL,
    T_CARG,
    T_CCLS,
    T_CDECK,
    T_COP,
    T_COURT0,
    T_CTYPE,
    T_DECKSTART,
    T_GB,
    T_HOME,
    T_KB,
    T_PAY,
    T_PCAB,
    T_PROV0,
    T_VAL,
    V_ROUNDS,
    V_TIE,
    V_VETO,
)
from kernels.rng import (
    STREAM_DEAL,
    STREAM_POLICY,
    game_seed,
    randint,
    random_float,
    seed_state,
    shuffle,
)

#: options of the compiled helpers that only other kernels call: no CPython or C wrapper is
#: generated for them (compile time). Never call one from Python: with numba 0.68.1 such a
#: call crashes the interpreter (segmentation fault), so none of them is a public name
_INTERNAL = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}


# =============================================================================================
# scoring (§4, §5, §7)
# =============================================================================================
@njit(cache=True, inline="always")
def _copy_state(src, dst):
    """``dst[:] = src`` for a state vector, as a loop (no temporary: the NRT-free play loop)."""
    for i in range(STATE_SIZE):
        dst[i] = src[i]


@njit(cache=True, inline="always")
def _no_choices(scratch):
    """``scratch[R_CHOICE]`` with the per-seat choices reset to -1 (none)."""
    choice = scratch[R_CHOICE]
    for q in range(MAXP):
        choice[q] = -1
    return choice


@njit(cache=True, **_INTERNAL)
def board_at(state, place):
    """Mobile scoreboard lying on ``place`` (0/1) or -1 (§1.3)."""
    if state[O_BOARD] == place:
        return 0
    if state[O_BOARD + 1] == place:
        return 1
    return -1


@njit(cache=True, **_INTERNAL)
def place_value(state, tables, place, k):
    """Current value for rank ``k+1`` (k = 0, 1, 2) of ``place``: mobile board if one lies there
    (§1.3), else the printed values (§1.1)."""
    b = board_at(state, place)
    if b >= 0:
        return tables[T_BVAL + b * 3 + k]
    return tables[T_VAL + place * 3 + k]


@njit(inline="always")
def score_place(state, tables, variant, place, firsts_only, src, apply, out_points):
    """Score one place (see ``_score_place``; int64/bool casts: one compiled version)."""
    _score_place(
        state,
        tables,
        variant,
        np.int64(place),
        bool(firsts_only),
        np.int64(src),
        bool(apply),
        out_points,
    )


@njit(cache=True, **_INTERNAL)
def _score_place(state, tables, variant, place, firsts_only, src, apply, out_points):
    """Score one place (region or Castillo) with bonuses; §4, §1.4, §7.

    Parameters
    ----------
    state : int32[STATE_SIZE]
    tables : int32[T_SIZE]
    variant : int64[n_variants]
    place : int
        0..8 region, 9 Castillo.
    firsts_only : bool
        Only rank 1 pays (card 3e).
    src : int
        ``SRC_GENERAL`` or ``SRC_SPECIAL`` for the region points (Castillo points always go to
        ``SRC_CASTILLO``).
    apply : bool
        Add the points to ``state`` (scores and sources); otherwise only report them.
    out : int32[>= 5]
        Points per seat including bonuses (written).
    """
    npl = state[O_NP]
    base = O_CAB + place * 5
    pay = 1 if firsts_only else tables[T_PAY + npl]
    tie_rank = variant[V_TIE]
    for p in range(npl):
        out_points[p] = 0
    # distinct positive counts from the top; a group of k >= 2 tied players slides back one
    # place; the next group starts 2 places lower (rulebook) or at 1 + players above (competition)
    r = 1
    above = 0
    prev = 1 << 30
    while True:
        lvl = 0
        for p in range(npl):
            c = state[base + p]
            if c < prev and c > lvl:
                lvl = c
        if lvl == 0:
            break
        k = 0
        for p in range(npl):
            if state[base + p] == lvl:
                k += 1
        rank = r if k == 1 else r + 1
        tot = 0
        if rank <= pay:
            tot = place_value(state, tables, place, np.int64(rank - 1))
        for p in range(npl):
            if state[base + p] != lvl:
                continue
            kb = 0
            gb = 0
            if place != CASTILLO and rank == 1:
                if state[O_KING] == place:
                    kb = tables[T_KB]
                if state[O_GRANDE + p] == place:
                    gb = tables[T_GB]
            out_points[p] = tot + kb + gb
            if apply:
                state[O_SCORE + p] += tot + kb + gb
                if place == CASTILLO:
                    state[O_SRC + p * 5 + SRC_CASTILLO] += tot
                else:
                    state[O_SRC + p * 5 + src] += tot
                state[O_SRC + p * 5 + SRC_KING] += kb
                state[O_SRC + p * 5 + SRC_GRANDE] += gb
        above += k
        if tie_rank == 0:
            r += 1 if k == 1 else 2
        else:
            r = above + 1
        prev = lvl


@njit(cache=True, **_INTERNAL)
def total_in(state, place):
    """Caballeros of every seat in ``place`` (§6 3f/3g: the most / fewest occupied regions)."""
    npl = state[O_NP]
    s = 0
    for p in range(npl):
        s += state[O_CAB + place * 5 + p]
    return s


@njit(cache=True, **_INTERNAL)
def special_scoring(state, tables, variant, op, arg_place, cls_mask, apply, out_points, scratch):
    """Apply a special-scoring opcode (§6: cards 2h, 3a-3h); ``out_points`` gets the points per seat
    (``scratch``: scratch rows, ``make_buffers``; uses ``R_SPEC``)."""
    npl = state[O_NP]
    tmp = scratch[R_SPEC]
    for p in range(npl):
        out_points[p] = 0
    if op == OP_SCORE_CHOICE:
        score_place(state, tables, variant, arg_place, False, SRC_SPECIAL, apply, tmp)
        for p in range(npl):
            out_points[p] += tmp[p]
    elif op == OP_SCORE_CLASS:
        for r in range(NREG):
            v1 = place_value(state, tables, np.int64(r), np.int64(0))
            if v1 < 31 and ((cls_mask >> v1) & 1) == 1:
                score_place(state, tables, variant, r, False, SRC_SPECIAL, apply, tmp)
                for p in range(npl):
                    out_points[p] += tmp[p]
    elif op == OP_SCORE_CASTILLO:
        score_place(state, tables, variant, CASTILLO, False, SRC_SPECIAL, apply, tmp)
        for p in range(npl):
            out_points[p] += tmp[p]
    elif op == OP_SCORE_FIRSTS:
        for r in range(NREG):
            score_place(state, tables, variant, r, True, SRC_SPECIAL, apply, tmp)
            for p in range(npl):
                out_points[p] += tmp[p]
    elif op == OP_SCORE_MOST or op == OP_SCORE_FEWEST:
        best = -1
        for r in range(NREG):
            t = total_in(state, r)
            if t == 0:
                continue
            if (
                best < 0
                or (op == OP_SCORE_MOST and t > best)
                or (op == OP_SCORE_FEWEST and t < best)
            ):
                best = t
        if best > 0:
            for r in range(NREG):
                if total_in(state, r) == best:
                    score_place(state, tables, variant, r, False, SRC_SPECIAL, apply, tmp)
                    for p in range(npl):
                        out_points[p] += tmp[p]


@njit(cache=True, **_INTERNAL)
def general_scoring_regions(state, tables, variant, scratch):
    """Score the nine regions at a general scoring (§5 step 4); uses ``scratch[R_SPEC]``."""
    tmp = scratch[R_SPEC]
    for r in range(NREG):
        score_place(state, tables, variant, r, False, SRC_GENERAL, True, tmp)


# =============================================================================================
# primitives (shared by the engine and the heuristic's look-ahead)
# =============================================================================================
@njit(inline="always")
def primitive(state, tables, variant, kind, p, v, aux, scratch):
    """Apply the direct effect of option ``v`` of a decision of kind ``kind`` by seat ``p``
    (§3 step 4c placements, §6 card effects, §5 Castillo discs; int64 casts: one compiled
    ``_primitive``; ``scratch``: scratch rows, uses ``R_SPEC``)."""
    _primitive(
        state, tables, variant, np.int64(kind), np.int64(p), np.int64(v), np.int64(aux), scratch
    )


@njit(cache=True, inline="always")
def _send_all(state, p, src, dst, king):
    """Move all of colour ``p``'s caballeros from region ``src`` to ``dst``; a destination in
    the King's region means the court (Eviction, Castillo discs)."""
    n = state[O_CAB + src * 5 + p]
    state[O_CAB + src * 5 + p] = 0
    if dst == king:
        state[O_COURT + p] += n
    else:
        state[O_CAB + dst * 5 + p] += n


@njit(cache=True, **_INTERNAL)
def _primitive(state, tables, variant, kind, p, v, aux, scratch):
    """Body of ``primitive``."""
    npl = state[O_NP]
    king = state[O_KING]
    if kind == K_PLACE or kind == K_PLACE_ANY:
        if v != STOP:
            state[O_CAB + v * 5 + p] += 1
            state[O_COURT + p] -= 1
    elif kind == K_SHORT:
        if v != STOP:
            state[O_CAB + v * 5 + p] -= 1
            state[O_COURT + p] += 1
    elif kind == K_MOVE_DST:
        s = aux // 5
        c = aux % 5
        state[O_CAB + s * 5 + c] -= 1
        state[O_CAB + v * 5 + c] += 1
    elif kind == K_ANGRY:
        if v == STOP:
            state[O_COURT + p] -= 1
        else:
            state[O_CAB + v * 5 + p] -= 1
        state[O_PROV + p] += 1
    elif kind == K_REMOVE1:
        state[O_CAB + v * 5 + aux] -= 1
        state[O_PROV + aux] += 1
    elif kind == K_SECRET_REM:
        n = state[O_CAB + v * 5 + p]
        if aux > 0 and n > aux:
            n = aux
        state[O_CAB + v * 5 + p] -= n
        state[O_PROV + p] += n
    elif kind == K_SCORE_REGION or kind == K_SECRET_SCORE:
        score_place(state, tables, variant, v, False, SRC_SPECIAL, True, scratch[R_SPEC])
    elif kind == K_BOARD:
        state[O_BOARD + v // 10] = v % 10
    elif kind == K_KING_TO:
        state[O_KING] = v
    elif kind == K_GRANDE_TO:
        state[O_GRANDE + p] = v
    elif kind == K_EVICT_DST:
        _send_all(state, p, aux, v, king)
    elif kind == K_DISC:
        _send_all(state, p, CASTILLO, v, king)
    elif kind == K_EVICT_REGION:
        # look-ahead approximation only: opponents' caballeros leave to their courts
        for q in range(npl):
            if q != p:
                state[O_COURT + q] += state[O_CAB + v * 5 + q]
                state[O_CAB + v * 5 + q] = 0
    elif kind == K_POWERBACK:
        state[O_HAND + p] |= 1 << v


# =============================================================================================
# decisions (every choice of the rules goes through decide; the random draw is inline here)
# =============================================================================================
@njit(inline="always")
def decide(state, tables, variant, buffers, kind, p, nopt, aux):
    """``_decide`` with the random fast path inlined at the call site: used at the frequent
    decisions (bids, cards, order, placements, intakes, moves, execute), where a call passing
    ``buffers`` (nine arrays) at every decision costs about 20% of random play; the rare decisions
    call ``_decide`` directly (each inlined copy costs compile time). int64 arguments."""
    ctx = buffers[D_CTX]
    if (
        ctx[C_MODE] == MODE_PLAY and buffers[D_POL][p] == POL_RANDOM and ctx[C_FMASK + p] == 0
    ):  # fast path, same draws as _decide
        ctx[C_PTR] += 1
        if nopt > 1:
            return np.int64(buffers[D_OPTS][randint(buffers[D_RNG][p], nopt)])
        return np.int64(buffers[D_OPTS][0])
    return _decide(state, tables, variant, buffers, kind, p, nopt, aux)


@njit(cache=True, **_INTERNAL)
def _forbidden(tables, mask, kind, v):
    """True if option ``v`` of a decision of ``kind`` is forbidden by ``mask`` (``FB_*``,
    restricted play): the action card's type (``K_CARD``, §6), the power value (``K_POWER``,
    §3 step 3), the Castillo as the place a caballero goes to (placement §3 step 4c, card 1b
    and every move's destination, §6 deck 1, §3.3)."""
    if kind == K_CARD:
        return ((mask >> tables[T_CTYPE + v]) & 1) == 1
    if kind == K_POWER:
        return ((mask >> (FB_POWER + v)) & 1) == 1
    if kind == K_PLACE or kind == K_PLACE_ANY or kind == K_MOVE_DST:
        return v == CASTILLO and ((mask >> FB_CASTILLO) & 1) == 1
    return False


@njit(cache=True, **_INTERNAL)
def restrict(state, tables, opts, mask, kind, p, nopt):
    """Restricted play for seat ``p``'s decision among ``opts[:nopt]`` (int64 ``mask``, ``FB_*``):
    the permitted options moved to the front of ``opts`` in their order, their count returned,
    and ``state[O_FAVOID + p]`` counted, when some option is forbidden and another is not;
    ``nopt`` with ``opts`` unchanged otherwise, and ``state[O_FFORCED + p]`` counted when every
    option is forbidden (a forced move: the rules win). Only called for a seat with a mask, so
    unrestricted play never runs it (and draws the same random numbers)."""
    k = 0
    for i in range(nopt):
        if not _forbidden(tables, mask, kind, opts[i]):
            opts[k] = opts[i]
            k += 1
    if k == nopt:
        return nopt
    if k == 0:
        state[O_FFORCED + p] += 1
        return nopt
    state[O_FAVOID + p] += 1
    return np.int64(k)


@njit(cache=True, **_INTERNAL)
def _decide(state, tables, variant, buffers, kind, p, nopt, aux):
    """Choose one of ``buffers[D_OPTS][:nopt]`` for seat ``p`` (see ``_decide_any``). Every caller
    passes int64 ``kind``, ``p``, ``nopt``, ``aux`` (``np.int64(...)``, never a literal), so that
    it compiles once; a compiled function, not inlined at its call sites (compile time).

    Restricted play: a seat with forbidden options (``ctx[C_FMASK + p] != 0``) chooses among
    the permitted ones (``restrict``) in every mode but replay, which checks a record's moves
    against the rules alone."""
    ctx = buffers[D_CTX]
    if ctx[C_FMASK + p] != 0 and ctx[C_MODE] != MODE_REPLAY:
        nopt = restrict(state, tables, buffers[D_OPTS], ctx[C_FMASK + p], kind, p, nopt)
    if ctx[C_MODE] == MODE_PLAY and buffers[D_POL][p] == POL_RANDOM:  # fast path, same draws
        ctx[C_PTR] += 1
        if nopt > 1:
            return np.int64(buffers[D_OPTS][randint(buffers[D_RNG][p], nopt)])
        return np.int64(buffers[D_OPTS][0])
    return np.int64(_decide_any(state, tables, variant, buffers, kind, p, nopt, aux))


@njit(inline="always")  # one call site: no compiled level of its own
def _decide_any(state, tables, variant, buffers, kind, p, nopt, aux):
    """Choose one of ``buffers[D_OPTS][:nopt]`` (the legal options) for seat ``p``.

    ``buffers`` = (policy_ids int64[5], policy_params float64[5, P], rng uint64[5, 4],
    log int32[L, 4], ctx int64[C_SIZE], opts int32[64], errbuf int32[64], events int32[E, 8],
    scratch int32[N_SCRATCH, STATE_SIZE] (rows ``R_*``), the heuristic (``policy_function``)).
    Returns the chosen option value. Logs it in record/replay mode. In replay mode the first
    decision that the log lacks or that is not legal sets ``C_ERR`` (its options in
    ``D_ERRBUF``) and ``C_STOPPED``: option 0 until the turn ends, where the engine returns. A log of
    ``4 + STATE_SIZE`` columns also receives the position before decision ``ptr`` in columns
    ``4 ..`` (``mcsim.games.el_grande.show``; the usual 4-column log is unaffected).
    """
    opts = buffers[D_OPTS]
    ctx = buffers[D_CTX]
    log = buffers[D_LOG]
    mode = ctx[C_MODE]
    ptr = ctx[C_PTR]
    idx = 0
    if mode == MODE_REPLAY:
        if log.shape[1] >= 4 + STATE_SIZE and ptr < log.shape[0]:
            # a wide log asks for the position before each decision (``mcsim show``)
            for i in range(STATE_SIZE):
                log[ptr, 4 + i] = state[i]
        found = -1
        if ptr < ctx[C_LOGCAP] and log[ptr, 0] == kind and log[ptr, 1] == p:
            want = log[ptr, 2]
            for i in range(nopt):
                if opts[i] == want:
                    found = i
                    break
        if found < 0:
            if ctx[C_ERR] < 0:
                ctx[C_ERR] = ptr
                ctx[C_NERR] = nopt
                eb = buffers[D_ERRBUF]
                eb[0] = kind
                eb[1] = p
                for i in range(nopt):
                    if i + 2 < eb.shape[0]:
                        eb[i + 2] = opts[i]
                # stop the game at the turn's end (the engine's stop points, as a stopped
                # search run): the record has no decision for the rest
                ctx[C_STOPPED] = 1
            found = 0
        idx = found
    elif mode == MODE_SEARCH:
        return _decide_driven(state, tables, variant, buffers, kind, p, nopt, aux)
    elif nopt > 1:
        idx = _policy_index(state, tables, variant, buffers, kind, p, nopt, aux)
    v = opts[idx]
    if mode == MODE_RECORD and ptr < ctx[C_LOGCAP]:
        log[ptr, 0] = kind
        log[ptr, 1] = p
        log[ptr, 2] = v
        log[ptr, 3] = aux
    ctx[C_PTR] = ptr + 1
    return v


@njit(inline="always")  # two small call sites: no compiled level of its own
def _policy_index(state, tables, variant, buffers, kind, p, nopt, aux):
    """Index of seat ``p``'s policy choice among ``nopt >= 2`` options: uniform for
    ``POL_RANDOM``, else the heuristic (after an ``eps`` draw); ``mcts`` seats reach it only for
    the decisions they do not search, with the heuristic's parameters in ``buffers[D_PAR][p]``."""
    rng = buffers[D_RNG][p]
    if buffers[D_POL][p] == POL_RANDOM:
        return randint(rng, nopt)
    if buffers[D_PAR][p, HP_EPS] > 0.0 and random_float(rng) < buffers[D_PAR][p, HP_EPS]:
        return randint(rng, nopt)
    return buffers[D_HEUR](
        state,
        tables,
        variant,
        buffers[D_OPTS],
        buffers[D_PAR],
        buffers[D_SCR],
        kind,
        p,
        nopt,
        aux,
        buffers[D_CTX][C_FMASK + p],
    )


# The heuristic sits behind a function pointer (a first-class function, ``buffers[D_HEUR]``): the
# engine is compiled once for every lineup and calls whatever function the lineup's buffers
# hold, so the heuristic (about a fifth of the engine's code) is compiled only for lineups that
# use it and is linked into no other compiled function (each compiled caller links and
# optimises its callees' code again: compile time). A call
# through the pointer costs nothing next to the heuristic's look-ahead.
HEUR_SIG = types.int64(
    types.int32[::1],  # state
    types.int32[::1],  # tables
    types.int64[::1],  # variant
    types.int32[::1],  # opts
    types.float64[:, ::1],  # policy parameters per seat
    types.int32[:, ::1],  # scratch rows
    types.int64,  # kind
    types.int64,  # seat
    types.int64,  # options
    types.int64,  # aux
    types.int64,  # the seat's forbidden options (restricted play, ``FB_*``)
)
warnings.filterwarnings(
    "ignore", "First-class function type feature is experimental", NumbaExperimentalFeatureWarning
)


# ``buffers`` as the engine receives it from ``make_buffers`` (every array C-contiguous)
D_TYPE = types.Tuple(
    [
        types.int64[::1],
        types.float64[:, ::1],
        types.uint64[:, ::1],
        types.int32[:, ::1],
        types.int64[::1],
        types.int32[::1],
        types.int32[::1],
        types.int32[:, ::1],
        types.int32[:, ::1],
        types.FunctionType(HEUR_SIG),
    ]
)
SPECIAL_SIG = types.void(
    types.int32[::1], types.int32[::1], types.int64[::1], D_TYPE, types.int64, types.int64
)
_SPECIAL_FUNCTION = []


def special_function():
    """``special_action`` compiled on its own (a ``numba.cfunc`` of signature ``SPECIAL_SIG``,
    cached on disk; ``game[G_SPECIAL]``). The engine calls it through a pointer, so the special
    actions, the largest part of the engine, are compiled and optimised once and not again
    inside ``engine`` (each compiled caller links and optimises its callees' code again:
    compile time); a call per special action costs nothing measurable."""
    if not _SPECIAL_FUNCTION:
        _SPECIAL_FUNCTION.append(cfunc(SPECIAL_SIG, cache=True, _nrt=False)(special_action))
    return _SPECIAL_FUNCTION[0]


@njit(cache=True, inline="always")
def searched_kind(kind, scope):
    """True if decisions of ``kind`` are searched under ``scope`` (``SCOPE_*``)."""
    if scope == SCOPE_ALL:
        return True
    return not (
        kind == K_PLACE
        or kind == K_SHORT
        or kind == K_MOVE_SRC
        or kind == K_MOVE_DST
        or kind == K_PLACE_ANY
        or kind == K_ANGRY
    )


# the search's decisions sit here, not in search_steps: _decide_any (every decision) calls them
@njit(inline="always")  # one call site: no compiled level of its own
def _decide_driven(state, tables, variant, buffers, kind, p, nopt, aux):
    """``_decide`` in ``MODE_SEARCH``: the decision ``ctx[C_PTR]`` of a run started at a round
    start. Forced from ``log[ptr, 2]`` while ``ptr < ctx[C_NREAL]`` (``RESAMPLE``: the policy
    decides); after that a searched decision (seat in ``C_SMASK``, kind searched under ``C_SCOPE``,
    two or more options) takes the next tree move (code ``kind * 64 + value`` in
    ``log[C_NREAL + j, 2]``), or, when they are used up and ``C_QUERY`` is set, stops the run: the
    options go to ``buffers[D_ERRBUF]`` (``[kind, seat, options...]``, count in ``C_NERR``) and
    every later choice is option 0 without drawing. Other decisions: the seat's policy
    (``_policy_index``), logged when ``C_LOGFRESH`` is set."""
    opts = buffers[D_OPTS]
    ctx = buffers[D_CTX]
    log = buffers[D_LOG]
    ptr = ctx[C_PTR]
    ctx[C_PTR] = ptr + 1
    if ctx[C_STOPPED] != 0:
        return opts[0]
    want = RESAMPLE
    if ptr < ctx[C_NREAL]:
        want = log[ptr, 2]
    elif (
        nopt > 1 and ((ctx[C_SMASK] >> p) & 1) == 1 and searched_kind(kind, (ctx[C_SCOPE] >> p) & 1)
    ):
        j = ctx[C_TPTR]
        if j < ctx[C_NTREE]:
            ctx[C_TPTR] = j + 1
            want = log[ctx[C_NREAL] + j, 2] - kind * 64
        elif ctx[C_QUERY] != 0:
            eb = buffers[D_ERRBUF]
            eb[0] = kind
            eb[1] = p
            for i in range(nopt):
                eb[2 + i] = opts[i]
            ctx[C_NERR] = nopt
            ctx[C_QAUX] = aux
            ctx[C_QPTR] = ptr
            ctx[C_STOPPED] = 1
            return opts[0]
    if want != RESAMPLE:
        for i in range(nopt):
            if opts[i] == want:
                return want
        if ctx[C_ERR] < 0:  # never expected: a forced value that is not legal here
            ctx[C_ERR] = ptr
        return opts[0]
    idx = 0
    if nopt > 1:
        idx = _policy_index(state, tables, variant, buffers, kind, p, nopt, aux)
    v = opts[idx]
    if ctx[C_LOGFRESH] != 0 and ptr < log.shape[0]:
        log[ptr, 0] = kind
        log[ptr, 1] = p
        log[ptr, 2] = v
        log[ptr, 3] = aux
    return v


@njit(cache=True, **_INTERNAL)
def _event(state, buffers, code, arg):
    """Record a scoring event (replay printing): (ply, code, arg, scores...)."""
    ctx = buffers[D_CTX]
    ev = buffers[D_EV]
    k = ctx[C_EVPTR]
    if k < ctx[C_EVCAP]:
        ev[k, 0] = ctx[C_PTR]
        ev[k, 1] = code
        ev[k, 2] = arg
        for p in range(MAXP):
            ev[k, 3 + p] = state[O_SCORE + p] if p < state[O_NP] else 0
        ctx[C_EVPTR] = k + 1


# =============================================================================================
# option generators
# =============================================================================================
@njit(cache=True, **_INTERNAL)
def _place_targets(state, tables, opts, with_stop):
    """Placement targets (§3 step 4c, §3.2) into ``opts``: ``STOP`` first if ``with_stop``, the
    regions adjacent to the King's region, the Castillo; count returned."""
    n = 0
    if with_stop:
        opts[n] = STOP
        n += 1
    adj = tables[T_ADJ + state[O_KING]]
    for t in range(NREG):
        if ((adj >> t) & 1) == 1:
            opts[n] = t
            n += 1
    opts[n] = CASTILLO
    return n + 1


@njit(cache=True, **_INTERNAL)
def _move_sources(state, p, cls, only_region, opts):
    """Options place*5+colour for one move. cls: 0 own, 1 opponents', 2 any.
    only_region >= 0 restricts the source region. Never the King's region or the Castillo (§6
    deck 1, §3.2)."""
    npl = state[O_NP]
    king = state[O_KING]
    n = 0
    for s in range(NREG):
        if s == king:
            continue
        if only_region >= 0 and s != only_region:
            continue
        for c in range(npl):
            if state[O_CAB + s * 5 + c] <= 0:
                continue
            if cls == 0 and c != p:
                continue
            if cls == 1 and c == p:
                continue
            opts[n] = s * 5 + c
            n += 1
    return n


@njit(cache=True, **_INTERNAL)
def _move_dsts(state, src, opts, include_src):
    """Destinations of one move (§6 deck 1, §3.2) into ``opts``: every place but the King's
    region, and but ``src`` unless ``include_src``; count returned."""
    king = state[O_KING]
    n = 0
    for d in range(NPLACE):
        if d == king:
            continue
        if d == src and include_src == 0:
            continue
        opts[n] = d
        n += 1
    return n


# =============================================================================================
# engine pieces
# =============================================================================================
@njit(cache=True, **_INTERNAL)
def veto_stop(state):
    """Step boundary of a multi-step special action (§6 2a, partial Veto): True when a pending
    Veto cancels the rest of the action now, else counts one more step allowed."""
    if state[O_VPEND] == 0:
        return False
    if state[O_VCUT] == 0:
        state[O_VPEND] = 0
        return True
    state[O_VCUT] -= 1
    return False


@njit(cache=True, **_INTERNAL)
def nominal_steps(state, tables, p, c):
    """Steps of card ``c``'s special action for the partial Veto (§6 2a): one step per
    caballero moved or placed (1a: the own caballeros of the region holding most of them outside
    the King's region; 1b, 1d-1i: the card's limit, 1g both limits; 1c: the larger of 1a and 1b),
    one step per opponent clockwise from the actor's left for 2b-2e; 1 for every other card
    (scorings, secret choices, King/Grande/scoreboard moves, 4e, 4f)."""
    op = tables[T_COP + c]
    lim = tables[T_CARG + c]
    if op == OP_DECAY_ALL or op == OP_DECAY_N or op == OP_ANGRY or op == OP_REMOVE_EACH:
        return state[O_NP] - 1
    if op == OP_MOVE_OWN_OPP:
        return 2 * lim
    if (
        op == OP_PLACE_ANY
        or op == OP_MOVE_FROM_ONE
        or op == OP_MOVE_OPP
        or op == OP_MOVE_ANY
        or op == OP_MOVE_OWN
    ):
        return lim
    if op == OP_MOVE_OWN_ONE or op == OP_CHOOSE_1A1B:
        king = state[O_KING]
        m = 0
        for s in range(NREG):
            if s != king and state[O_CAB + s * 5 + p] > m:
                m = state[O_CAB + s * 5 + p]
        if op == OP_CHOOSE_1A1B and lim > m:
            m = lim
        return m
    return 1


@njit(inline="always")  # one call site (_special_moves): no compiled level of its own
def do_move(state, tables, variant, buffers, p, cls, limit, only_region):
    """Up to ``limit`` single-caballero moves (as many as possible once executed; §6)."""
    opts = buffers[D_OPTS]
    for _ in range(limit):
        if veto_stop(state):
            return
        n = _move_sources(state, p, cls, only_region, opts)
        if n == 0:
            return
        code = decide(
            state,
            tables,
            variant,
            buffers,
            np.int64(K_MOVE_SRC),
            np.int64(p),
            np.int64(n),
            np.int64(0),
        )
        n = _move_dsts(state, np.int64(code // 5), opts, np.int64(0))
        d = decide(
            state,
            tables,
            variant,
            buffers,
            np.int64(K_MOVE_DST),
            np.int64(p),
            np.int64(n),
            np.int64(code),
        )
        primitive(state, tables, variant, K_MOVE_DST, p, d, code, buffers[D_SCR])


@njit(inline="always")  # one call site (_special_moves): no compiled level of its own
def do_move_own_opp(state, tables, variant, buffers, p, limit):
    """Card 1g (§6): up to ``limit`` own and ``limit`` opponents' caballeros, any order."""
    opts = buffers[D_OPTS]
    own_left = limit
    opp_left = limit
    while own_left + opp_left > 0:
        if veto_stop(state):
            return
        npl = state[O_NP]
        king = state[O_KING]
        n = 0
        for s in range(NREG):
            if s == king:
                continue
            for c in range(npl):
                if state[O_CAB + s * 5 + c] <= 0:
                    continue
                if (c == p and own_left > 0) or (c != p and opp_left > 0):
                    opts[n] = s * 5 + c
                    n += 1
        if n == 0:
            return
        code = decide(
            state,
            tables,
            variant,
            buffers,
            np.int64(K_MOVE_SRC),
            np.int64(p),
            np.int64(n),
            np.int64(0),
        )
        if code % 5 == p:
            own_left -= 1
        else:
            opp_left -= 1
        n = _move_dsts(state, np.int64(code // 5), opts, np.int64(0))
        d = decide(
            state,
            tables,
            variant,
            buffers,
            np.int64(K_MOVE_DST),
            np.int64(p),
            np.int64(n),
            np.int64(code),
        )
        primitive(state, tables, variant, K_MOVE_DST, p, d, code, buffers[D_SCR])


@njit(inline="always")  # one call site (_special_moves): no compiled level of its own
def do_move_own_one_region(state, tables, variant, buffers, p):
    """Card 1a (§6): all own caballeros of one region are taken out and put anywhere (or back)."""
    opts = buffers[D_OPTS]
    king = state[O_KING]
    n = 0
    for s in range(NREG):
        if s != king and state[O_CAB + s * 5 + p] > 0:
            opts[n] = s
            n += 1
    if n == 0:
        return
    s = _decide(
        state,
        tables,
        variant,
        buffers,
        np.int64(K_SRC_REGION),
        np.int64(p),
        np.int64(n),
        np.int64(0),
    )
    k = state[O_CAB + s * 5 + p]
    code = s * 5 + p
    for _ in range(k):
        if veto_stop(state):
            return
        n = _move_dsts(state, np.int64(s), opts, np.int64(1))
        d = decide(
            state,
            tables,
            variant,
            buffers,
            np.int64(K_MOVE_DST),
            np.int64(p),
            np.int64(n),
            np.int64(code),
        )
        primitive(state, tables, variant, K_MOVE_DST, p, d, code, buffers[D_SCR])


@njit(inline="always")  # one call site (_special_moves): no compiled level of its own
def do_place_any(state, tables, variant, buffers, p, limit):
    """Card 1b (§6): up to ``limit`` caballeros from court into any region (not the King's) or the
    Castillo (as many as possible once executed)."""
    opts = buffers[D_OPTS]
    king = state[O_KING]
    for _ in range(limit):
        if veto_stop(state) or state[O_COURT + p] <= 0:
            return
        n = 0
        for t in range(NPLACE):
            if t != king:
                opts[n] = t
                n += 1
        t = _decide(
            state,
            tables,
            variant,
            buffers,
            np.int64(K_PLACE_ANY),
            np.int64(p),
            np.int64(n),
            np.int64(0),
        )
        primitive(state, tables, variant, K_PLACE_ANY, p, t, 0, buffers[D_SCR])


@njit(cache=True, **_INTERNAL)
def do_placement(state, tables, variant, buffers, p, limit):
    """Placement step (§3 step 4c): up to ``limit`` caballeros from court into regions adjacent
    to the King's region and/or the Castillo; STOP ends it early."""
    opts = buffers[D_OPTS]
    for _ in range(limit):
        if state[O_COURT + p] <= 0:
            return
        n = _place_targets(state, tables, opts, True)
        t = decide(
            state,
            tables,
            variant,
            buffers,
            np.int64(K_PLACE),
            np.int64(p),
            np.int64(n),
            np.int64(0),
        )
        if t == STOP:
            return
        primitive(state, tables, variant, K_PLACE, p, t, 0, buffers[D_SCR])


@njit(cache=True, **_INTERNAL)
def take_to_court(state, tables, variant, buffers, p, want):
    """Court intake of ``want`` caballeros (§3 step 4a, card 4f): province first, then the
    shortfall optionally from own caballeros in regions (not the King's region, not the
    Castillo), one decision per caballero (STOP ends)."""
    opts = buffers[D_OPTS]
    k = want
    if k > state[O_PROV + p]:
        k = state[O_PROV + p]
    state[O_PROV + p] -= k
    state[O_COURT + p] += k
    short = want - k
    king = state[O_KING]
    for _ in range(short):
        n = 1
        opts[0] = STOP
        for s in range(NREG):
            if s != king and state[O_CAB + s * 5 + p] > 0:
                opts[n] = s
                n += 1
        if n == 1:
            return
        s = decide(
            state,
            tables,
            variant,
            buffers,
            np.int64(K_SHORT),
            np.int64(p),
            np.int64(n),
            np.int64(0),
        )
        if s == STOP:
            return
        primitive(state, tables, variant, K_SHORT, p, s, 0, buffers[D_SCR])


@njit(cache=True, **_INTERNAL)
def court_intake(state, tables, variant, buffers, p, want):
    """Court intake at the start of a turn (§3 step 4a, §3.1, A13): one ``K_INTAKE`` decision,
    the number n = 0..m taken, m = min(``want``, province + own caballeros in regions other than
    the King's region; never the Castillo); min(n, province) come from the province, the rest
    one at a time from regions (``K_SHORT``, a region each, no stop)."""
    opts = buffers[D_OPTS]
    prov = state[O_PROV + p]
    king = state[O_KING]
    m = prov
    if want > prov:
        for s in range(NREG):
            if s != king:
                m += state[O_CAB + s * 5 + p]
    if m > want:
        m = want
    state[O_IMAX + p] += m
    if m == 0:
        return
    for i in range(m + 1):
        opts[i] = i
    n = decide(
        state,
        tables,
        variant,
        buffers,
        np.int64(K_INTAKE),
        np.int64(p),
        np.int64(m + 1),
        np.int64(want),
    )
    state[O_ITAKE + p] += n
    k = n if n < prov else prov
    state[O_PROV + p] -= k
    state[O_COURT + p] += k
    for _ in range(n - k):
        cnt = 0
        for s in range(NREG):
            if s != king and state[O_CAB + s * 5 + p] > 0:
                opts[cnt] = s
                cnt += 1
        s = decide(
            state,
            tables,
            variant,
            buffers,
            np.int64(K_SHORT),
            np.int64(p),
            np.int64(cnt),
            np.int64(0),
        )
        primitive(state, tables, variant, K_SHORT, p, s, 0, buffers[D_SCR])


@njit(cache=True, **_INTERNAL)
def secret_regions_with(state, p, minimum, opts):
    """Regions (not the King's) where seat p has >= minimum caballeros (§6 2e-2g)."""
    king = state[O_KING]
    n = 0
    for s in range(NREG):
        if s != king and state[O_CAB + s * 5 + p] >= minimum:
            opts[n] = s
            n += 1
    return n


@njit(inline="always")  # one call site: no compiled level of its own
def _special_moves(state, tables, variant, buffers, p, op, lim):
    """Deck 1 (§6: 1a-1i): moves and the extra placement of 1b. Each helper has one call site
    (it is inlined here: no compiled level of its own)."""
    opts = buffers[D_OPTS]
    king = state[O_KING]
    what = op  # OP_MOVE_OWN_ONE (1a), OP_PLACE_ANY (1b), or a do_move card
    if op == OP_CHOOSE_1A1B:
        opts[0] = 0
        opts[1] = 1
        ch = _decide(
            state,
            tables,
            variant,
            buffers,
            np.int64(K_CHOICE),
            np.int64(p),
            np.int64(2),
            np.int64(0),
        )
        what = OP_MOVE_OWN_ONE if ch == 0 else OP_PLACE_ANY
    if what == OP_MOVE_OWN_ONE:
        do_move_own_one_region(state, tables, variant, buffers, p)
    elif what == OP_PLACE_ANY:
        do_place_any(state, tables, variant, buffers, p, lim)
    elif what == OP_MOVE_OWN_OPP:
        do_move_own_opp(state, tables, variant, buffers, p, lim)
    elif what >= OP_MOVE_FROM_ONE:  # 1d-1f, 1h, 1i
        cls = np.int64(0)  # OP_MOVE_OWN
        only = np.int64(-1)
        if what == OP_MOVE_OPP:
            cls = np.int64(1)
        elif what == OP_MOVE_ANY:
            cls = np.int64(2)
        elif what == OP_MOVE_FROM_ONE:
            cls = np.int64(2)
            n = 0
            for s in range(NREG):
                if s != king and total_in(state, s) > 0:
                    opts[n] = s
                    n += 1
            if n == 0:
                return
            only = np.int64(
                _decide(
                    state,
                    tables,
                    variant,
                    buffers,
                    np.int64(K_SRC_REGION),
                    np.int64(p),
                    np.int64(n),
                    np.int64(1),
                )
            )
        do_move(state, tables, variant, buffers, p, cls, lim, only)


@njit(inline="always")  # one call site: no compiled level of its own
def _special_opponents(state, tables, variant, buffers, p, op, lim):
    """Deck 2 actions against the opponents (§6: 2b-2g), one step per opponent from the
    actor's left (partial Veto) except the secret choices of 2f/2g."""
    opts = buffers[D_OPTS]
    npl = state[O_NP]
    king = state[O_KING]
    if op == OP_DECAY_ALL or op == OP_DECAY_N:
        for j in range(1, npl):  # one step per opponent from the left (partial Veto)
            if veto_stop(state):
                return
            q = (p + j) % npl
            k = state[O_COURT + q]
            if op == OP_DECAY_N and k > lim:
                k = lim
            state[O_PROV + q] += k
            state[O_COURT + q] -= k
    elif op == OP_ANGRY:
        for j in range(1, npl):
            if veto_stop(state):
                return
            q = (p + j) % npl
            for _ in range(lim):
                n = 0
                if state[O_COURT + q] > 0:
                    opts[n] = STOP
                    n += 1
                for s in range(NREG):
                    if s != king and state[O_CAB + s * 5 + q] > 0:
                        opts[n] = s
                        n += 1
                if n == 0:
                    break
                v = _decide(
                    state,
                    tables,
                    variant,
                    buffers,
                    np.int64(K_ANGRY),
                    np.int64(q),
                    np.int64(n),
                    np.int64(0),
                )
                primitive(state, tables, variant, K_ANGRY, q, v, 0, buffers[D_SCR])
    elif op == OP_REMOVE_EACH:
        for j in range(1, npl):
            if veto_stop(state):
                return
            q = (p + j) % npl
            n = secret_regions_with(state, np.int64(q), np.int64(1), opts)
            if n == 0:
                continue
            v = _decide(
                state,
                tables,
                variant,
                buffers,
                np.int64(K_REMOVE1),
                np.int64(p),
                np.int64(n),
                np.int64(q),
            )
            primitive(state, tables, variant, K_REMOVE1, p, v, q, buffers[D_SCR])
    elif op == OP_SECRET_REM2 or op == OP_SECRET_REMALL:
        choice = _no_choices(buffers[D_SCR])
        for j in range(1, npl):
            q = (p + j) % npl
            n = 0
            if op == OP_SECRET_REM2:
                n = secret_regions_with(state, np.int64(q), np.int64(2), opts)
            if n == 0:
                n = secret_regions_with(state, np.int64(q), np.int64(1), opts)
            if n == 0:
                continue
            choice[q] = _decide(
                state,
                tables,
                variant,
                buffers,
                np.int64(K_SECRET_REM),
                np.int64(q),
                np.int64(n),
                np.int64(lim),
            )
        for q in range(npl):
            if choice[q] >= 0:
                primitive(state, tables, variant, K_SECRET_REM, q, choice[q], lim, buffers[D_SCR])


@njit(inline="always")  # one call site: no compiled level of its own
def _special_scorings(state, tables, variant, buffers, p, c, op):
    """Special scorings (§6: 2h, 3a-3h, 4g)."""
    opts = buffers[D_OPTS]
    npl = state[O_NP]
    if op == OP_SCORE_CHOICE:
        for t in range(NPLACE):
            opts[t] = t
        v = _decide(
            state,
            tables,
            variant,
            buffers,
            np.int64(K_SCORE_REGION),
            np.int64(p),
            np.int64(NPLACE),
            np.int64(0),
        )
        special_scoring(
            state,
            tables,
            variant,
            np.int64(op),
            np.int64(v),
            np.int64(0),
            np.int64(1),
            buffers[D_SCR][R_OUT],
            buffers[D_SCR],
        )
        _event(state, buffers, np.int64(200 + c), np.int64(v))
    elif op >= OP_SCORE_CLASS and op <= OP_SCORE_FEWEST:
        special_scoring(
            state,
            tables,
            variant,
            np.int64(op),
            np.int64(0),
            np.int64(tables[T_CCLS + c]),
            np.int64(1),
            buffers[D_SCR][R_OUT],
            buffers[D_SCR],
        )
        _event(state, buffers, np.int64(200 + c), np.int64(-1))
    elif op == OP_SECRET_SCORE:
        choice = _no_choices(buffers[D_SCR])
        for j in range(npl):
            q = (p + j) % npl
            for t in range(NREG):
                opts[t] = t
            choice[q] = _decide(
                state,
                tables,
                variant,
                buffers,
                np.int64(K_SECRET_SCORE),
                np.int64(q),
                np.int64(NREG),
                np.int64(0),
            )
        out_points = buffers[D_SCR][R_OUT]
        for j in range(npl):
            q = (p + j) % npl
            k = 0
            for q2 in range(npl):
                if choice[q2] == choice[q]:
                    k += 1
            if k == 1:
                score_place(state, tables, variant, choice[q], False, SRC_SPECIAL, True, out_points)
                _event(state, buffers, np.int64(200 + c), np.int64(choice[q]))


@njit(inline="always")  # one call site: no compiled level of its own
def _special_board(state, tables, variant, buffers, p, op, lim):
    """Actions on the board's pieces (§6: 4a-4f and the King's card)."""
    opts = buffers[D_OPTS]
    npl = state[O_NP]
    king = state[O_KING]
    if op == OP_BOARD:
        n = 0
        for b in range(2):
            cur = state[O_BOARD + b]
            if cur == king:
                continue
            other = state[O_BOARD + 1 - b]
            for t in range(NPLACE):
                if t != king and t != cur and t != other:
                    opts[n] = b * 10 + t
                    n += 1
        if n > 0:
            v = _decide(
                state,
                tables,
                variant,
                buffers,
                np.int64(K_BOARD),
                np.int64(p),
                np.int64(n),
                np.int64(0),
            )
            primitive(state, tables, variant, K_BOARD, p, v, 0, buffers[D_SCR])
    elif op == OP_ADVISOR:
        adj = tables[T_ADJ + king]
        n = 0
        for t in range(NREG):
            if ((adj >> t) & 1) == 1:
                opts[n] = t
                n += 1
        v = _decide(
            state,
            tables,
            variant,
            buffers,
            np.int64(K_KING_TO),
            np.int64(p),
            np.int64(n),
            np.int64(0),
        )
        primitive(state, tables, variant, K_KING_TO, p, v, 0, buffers[D_SCR])
    elif op == OP_KING:
        for t in range(NREG):
            opts[t] = t
        v = _decide(
            state,
            tables,
            variant,
            buffers,
            np.int64(K_KING_TO),
            np.int64(p),
            np.int64(NREG),
            np.int64(0),
        )
        primitive(state, tables, variant, K_KING_TO, p, v, 0, buffers[D_SCR])
    elif op == OP_EVICT:
        n = 0
        for s in range(NREG):
            if s != king:
                opts[n] = s
                n += 1
        r = _decide(
            state,
            tables,
            variant,
            buffers,
            np.int64(K_EVICT_REGION),
            np.int64(p),
            np.int64(n),
            np.int64(0),
        )
        choice = _no_choices(buffers[D_SCR])
        for j in range(1, npl):
            q = (p + j) % npl
            if state[O_CAB + r * 5 + q] == 0:
                continue
            n = 0
            for s in range(NREG):
                if s != r:
                    opts[n] = s
                    n += 1
            choice[q] = _decide(
                state,
                tables,
                variant,
                buffers,
                np.int64(K_EVICT_DST),
                np.int64(q),
                np.int64(n),
                np.int64(r),
            )
        for q in range(npl):
            if choice[q] >= 0:
                primitive(state, tables, variant, K_EVICT_DST, q, choice[q], r, buffers[D_SCR])
    elif op == OP_GRANDE:
        g = state[O_GRANDE + p]
        if g != king:
            n = 0
            for s in range(NREG):
                if s != king and s != g:
                    opts[n] = s
                    n += 1
            v = _decide(
                state,
                tables,
                variant,
                buffers,
                np.int64(K_GRANDE_TO),
                np.int64(p),
                np.int64(n),
                np.int64(0),
            )
            primitive(state, tables, variant, K_GRANDE_TO, p, v, 0, buffers[D_SCR])
    elif op == OP_POWERBACK:
        n = 0
        for v in range(1, 14):
            if ((state[O_HAND + p] >> v) & 1) == 0:
                opts[n] = v
                n += 1
        if n > 0:
            v = _decide(
                state,
                tables,
                variant,
                buffers,
                np.int64(K_POWERBACK),
                np.int64(p),
                np.int64(n),
                np.int64(0),
            )
            primitive(state, tables, variant, K_POWERBACK, p, v, 0, buffers[D_SCR])
    elif op == OP_COURT:
        take_to_court(state, tables, variant, buffers, p, lim)


def special_action(state, tables, variant, buffers, p, c):
    """Optional special action with the Veto check (§6 deck 2 Veto, A2): holders clockwise
    from the actor's left are asked ``K_VETO`` until one vetoes; he discards his Veto and, for a
    multi-step action, chooses the cut ``K_VETO_CUT`` (steps allowed before the cancel).
    Compiled by ``special_function`` (``SPECIAL_SIG``); the engine calls it through
    ``game[G_SPECIAL]``."""
    opts = buffers[D_OPTS]
    npl = state[O_NP]
    op = tables[T_COP + c]
    if op == OP_VETO:
        return  # taking the card is its action: the holder keeps it (see engine)
    opts[0] = 0
    opts[1] = 1
    ex = decide(
        state, tables, variant, buffers, np.int64(K_EXEC), np.int64(p), np.int64(2), np.int64(c)
    )
    if ex == 0:
        return
    cut = -1
    if variant[V_VETO] == 0:
        for j in range(1, npl):
            h = (p + j) % npl
            asked = False
            for k in range(2):
                if state[O_VETO_HOLDER + k] == h:
                    asked = True
                    opts[0] = 0
                    opts[1] = 1
                    v = _decide(
                        state,
                        tables,
                        variant,
                        buffers,
                        np.int64(K_VETO),
                        np.int64(h),
                        np.int64(2),
                        np.int64(p * 64 + c),
                    )
                    if v == 1:
                        state[O_VETO_HOLDER + k] = -1
                        state[O_VETO_EXP + k] = 0
                        cut = 0
                        n = nominal_steps(state, tables, p, c)
                        if n > 1:
                            for i in range(n):
                                opts[i] = i
                            cut = _decide(
                                state,
                                tables,
                                variant,
                                buffers,
                                np.int64(K_VETO_CUT),
                                np.int64(h),
                                np.int64(n),
                                np.int64(p * 64 + c),
                            )
                    break
            if asked and cut >= 0:
                break
    if cut == 0:
        state[O_VCOUNT] += 1
        return
    if cut > 0:
        state[O_VCOUNT + 1] += 1
        state[O_VPEND] = 1
        state[O_VCUT] = cut
    # the action, by group of cards (§6; not a function of its own: compile time)
    lim = np.int64(tables[T_CARG + c])
    if op <= OP_MOVE_OWN:
        _special_moves(state, tables, variant, buffers, p, op, lim)
    elif op >= OP_DECAY_ALL and op <= OP_SECRET_REMALL:
        _special_opponents(state, tables, variant, buffers, p, op, lim)
    elif (op >= OP_SCORE_CHOICE and op <= OP_SCORE_FEWEST) or op == OP_SECRET_SCORE:
        _special_scorings(state, tables, variant, buffers, p, c, op)
    else:
        _special_board(state, tables, variant, buffers, p, op, lim)
    state[O_VPEND] = 0


@njit(cache=True, **_INTERNAL)
def general_scoring(state, tables, variant, buffers):
    """General scoring (§5): secret Castillo discs, Castillo, discs revealed, nine regions."""
    opts = buffers[D_OPTS]
    npl = state[O_NP]
    choice = _no_choices(buffers[D_SCR])
    for q in range(npl):
        if state[O_CAB + CASTILLO * 5 + q] > 0:
            for t in range(NREG):
                opts[t] = t
            choice[q] = _decide(
                state,
                tables,
                variant,
                buffers,
                np.int64(K_DISC),
                np.int64(q),
                np.int64(NREG),
                np.int64(0),
            )
    score_place(state, tables, variant, CASTILLO, False, SRC_GENERAL, True, buffers[D_SCR][R_OUT])
    for q in range(npl):
        if choice[q] >= 0:
            primitive(state, tables, variant, K_DISC, q, choice[q], 0, buffers[D_SCR])
    general_scoring_regions(state, tables, variant, buffers[D_SCR])
    _event(state, buffers, np.int64(100 + state[O_ROUND]), np.int64(-1))


@njit(cache=True)
def setup(state, tables, variant, npl, rng, fixed):
    """Initial position (§2) from the deal generator ``rng`` (uint64[4]).

    ``fixed`` int32[FIXED_SIZE]: if ``fixed[F_GIVEN] == 1`` the King's region (``F_KING``), home
    regions (``F_HOMES``, 5), start seat (``F_START``) and deck orders (``F_DECKS``, 44) are taken
    from it instead of the deal; the setup used is always written back into it. With ``veto=off``
    (``variant[V_VETO] == 1``) the two Veto cards leave the game (A2): they go below the nine cards
    of deck 2 that the rounds reveal (the same shuffle, the other cards' order kept).
    """
    for i in range(STATE_SIZE):
        state[i] = 0
    state[O_NP] = npl
    # the permutations are drawn in ``state[O_TAKER ..]`` (set at the end): no allocation here
    perm = state[O_TAKER : O_TAKER + NREG]
    for i in range(NREG):
        perm[i] = i
    shuffle(rng, perm)
    state[O_KING] = perm[0]
    for p in range(npl):
        home = perm[1 + p]
        state[O_GRANDE + p] = home
        state[O_CAB + home * 5 + p] = tables[T_HOME]
        state[O_COURT + p] = tables[T_COURT0]
        state[O_PROV + p] = tables[T_PROV0]
        state[O_HAND + p] = 0x3FFE
    for p in range(npl, MAXP):
        state[O_GRANDE + p] = -1
    state[O_BOARD] = -1
    state[O_BOARD + 1] = -1
    state[O_VETO_HOLDER] = -1
    state[O_VETO_HOLDER + 1] = -1
    for d in range(4):
        cards = state[O_TAKER + NREG : O_TAKER + NREG + 11]
        for i in range(11):
            cards[i] = tables[T_DECKSTART + d] + i
        shuffle(rng, cards)
        k = 0
        if (
            variant[V_VETO] == 1
        ):  # veto=off: the Vetoes leave the game (A2), below the last card dealt
            for i in range(11):
                if tables[T_COP + cards[i]] != OP_VETO:
                    state[O_DECK + d * 11 + k] = cards[i]
                    k += 1
        for i in range(11):
            if variant[V_VETO] == 0 or tables[T_COP + cards[i]] == OP_VETO:
                state[O_DECK + d * 11 + k] = cards[i]
                k += 1
    state[O_START] = randint(rng, npl)
    if fixed[F_GIVEN] == 1:
        state[O_KING] = fixed[F_KING]
        for p in range(npl):
            state[O_CAB + state[O_GRANDE + p] * 5 + p] = 0
        for p in range(npl):
            state[O_GRANDE + p] = fixed[F_HOMES + p]
            state[O_CAB + fixed[F_HOMES + p] * 5 + p] = tables[T_HOME]
        state[O_START] = fixed[F_START]
        for k in range(44):
            state[O_DECK + k] = fixed[F_DECKS + k]
    fixed[F_KING] = state[O_KING]
    for p in range(MAXP):
        fixed[F_HOMES + p] = state[O_GRANDE + p]
    fixed[F_START] = state[O_START]
    for k in range(44):
        fixed[F_DECKS + k] = state[O_DECK + k]
    for c in range(45):
        state[O_TAKER + c] = -1
    for r in range(9):
        state[O_KINGBY + r] = -1
    for i in range(5):
        state[O_FACE + i] = -1


# Numba's reference counting (atomic NRT_incref/NRT_decref on every array passed through the
# helpers, the buffers' arrays included) was about 40% of the time of random play and 25% of
# heuristic play, with small allocations (look-ahead copies, point vectors) another 5%; the refcount
# pruning pass cannot remove them across the branches (numba/numba#2345, #2350). The rounds allocate
# nothing (scratch rows in buffers[D_SCR]), so they are compiled without NRT (``_nrt=False``, the
# workaround in those issues). Everything they call must not allocate (a compile error says so if it
# does).
# The engine (and start_game, _collect_game) sit here, not in ``play``: the search's steps
# (``search_steps``) and the play entries both call it, and imports go one way.
@njit(cache=True, _nrt=False)
def engine(state, tables, variant, buffers, game, what, seat, a, b):
    """The engine's one compiled entry (int64 ``what``, ``seat``, ``a``, ``b``), called from
    Python (``play.play_batch``, ``play.run_logged``, ``play.step``) and by the search
    (``search_steps``, ``play._mcts_games``). ``what`` (``STEP_*``) says what to play and what
    ``seat``, ``a`` and ``b`` mean:

    ========================  ===========  ==========================  ========================
    ``what``                  ``seat``     ``a``                       ``b``
    ========================  ===========  ==========================  ========================
    ``STEP_PLACEMENT``        the seat     caballeros placed at most   unused
    ``STEP_SPECIAL``          the seat     action card (index)         unused
    ``STEP_GENERAL_SCORING``  unused       unused                      unused
    ``STEP_COURT_INTAKE``     the seat     caballeros allowed (power)  unused
    ``STEP_ROUND``            unused       first round                 last round
    ``STEP_GAMES``            players      first game index            number of games
    ========================  ===========  ==========================  ========================

    * ``STEP_GAMES``: games ``a .. a + b - 1`` of a batch of ``seat`` players, each set up from
      (root seed ``game[G_SEEDS][0, 0]``, game index; ``game[G_FIXED]`` as in ``setup``), played to
      the end and written to rows ``0 .. b - 1`` of ``game``'s result arrays (``buffers``' mode and
      capacities set by the caller);
    * ``STEP_ROUND``: rounds ``a .. b`` of the game in ``state`` (§3; rounds the variant skips are
      passed over);
    * otherwise one piece of a turn: placement (§3 step 4c, ``do_placement``), special action
      with the Veto check (§6, ``special_action``), general scoring (§5, ``general_scoring``),
      court intake (§3 step 4a, ``court_intake``).

    One function that Python calls directly, so that play, records, replays, search and the
    tests share one compiled engine and no compiled level above it optimises it again (each
    compiled caller links and optimises its callees' code again: compile time)."""
    if what == STEP_PLACEMENT:
        do_placement(state, tables, variant, buffers, seat, a)
        return
    if what == STEP_SPECIAL:
        game[G_SPECIAL](state, tables, variant, buffers, seat, a)
        return
    if what == STEP_GENERAL_SCORING:
        general_scoring(state, tables, variant, buffers)
        return
    if what == STEP_COURT_INTAKE:
        court_intake(state, tables, variant, buffers, seat, a)
        return
    ctx = buffers[D_CTX]
    opts = buffers[D_OPTS]
    n_games = b if what == STEP_GAMES else np.int64(1)
    first = a
    last = b
    for g in range(n_games):
        if what == STEP_GAMES:
            if ctx[C_MODE] == MODE_PLAY:
                game[G_FIXED][F_GIVEN] = 0
            ctx[C_PTR] = 0
            ctx[C_EVPTR] = 0
            start_game(state, tables, variant, buffers, game, seat, a + g)
            first = np.int64(1)
            last = np.int64(9)
        # rounds ``first .. last`` (those the variant plays; §3: reveal, bid, turns, end of
        # round) of a game whose state ``state`` is at the start of round ``first``. In
        # ``MODE_SEARCH`` the state at a round start is kept (``R_CKPT``) when every forced
        # decision is used, and a stopped run returns after the turn it stopped in (see
        # ``_decide_driven``). The round body is written here, not in a function of its own:
        # every compiled level re-optimises all the code below it.
        for r in range(first, last + 1):
            if variant[V_ROUNDS] == 1 and (r == 1 or r == 4 or r == 7):
                continue
            npl = state[O_NP]
            if ctx[C_MODE] == MODE_SEARCH and ctx[C_STOPPED] == 0 and ctx[C_PTR] >= ctx[C_NREAL]:
                _copy_state(state, buffers[D_SCR][R_CKPT])
                ctx[C_CKR] = r
                ctx[C_CKPTR] = ctx[C_PTR]
            state[O_ROUND] = r
            for d in range(4):
                state[O_FACE + d] = state[O_DECK + d * 11 + state[O_DECKPTR + d]]
                state[O_DECKPTR + d] += 1
            state[O_FACE + 4] = KING_CARD
            # bidding
            used = 0
            for p in range(npl):
                state[O_PLAYED + p] = 0
            for j in range(npl):
                p = (state[O_START] + j) % npl
                n = 0
                for v in range(1, 14):
                    if ((state[O_HAND + p] >> v) & 1) == 1 and ((used >> v) & 1) == 0:
                        opts[n] = v
                        n += 1
                v = decide(
                    state,
                    tables,
                    variant,
                    buffers,
                    np.int64(K_POWER),
                    np.int64(p),
                    np.int64(n),
                    np.int64(0),
                )
                used |= 1 << v
                state[O_HAND + p] &= ~(1 << v)
                state[O_PLAYED + p] = v
                state[O_PWR + (r - 1) * 5 + p] = v
            # turn order: descending power value
            k = 0
            for v in range(13, 0, -1):
                for p in range(npl):
                    if state[O_PLAYED + p] == v:
                        state[O_ORDER + k] = p
                        k += 1
            for j in range(npl):
                p = np.int64(state[O_ORDER + j])
                court_intake(
                    state,
                    tables,
                    variant,
                    buffers,
                    p,
                    np.int64(tables[T_PCAB + state[O_PLAYED + p]]),
                )
                n = 0
                for i in range(5):
                    if state[O_FACE + i] >= 0:
                        opts[n] = state[O_FACE + i]
                        n += 1
                c = np.int64(
                    decide(
                        state,
                        tables,
                        variant,
                        buffers,
                        np.int64(K_CARD),
                        np.int64(p),
                        np.int64(n),
                        np.int64(0),
                    )
                )
                for i in range(5):
                    if state[O_FACE + i] == c:
                        state[O_FACE + i] = -1
                if c == KING_CARD:
                    state[O_KINGBY + r - 1] = p
                else:
                    state[O_TAKER + c] = p
                    state[O_TAKEROUND + c] = r
                op = tables[T_COP + c]
                if op == OP_VETO:
                    for k2 in range(2):
                        if state[O_VETO_HOLDER + k2] < 0:
                            state[O_VETO_HOLDER + k2] = p
                            nxt = r + 1
                            if variant[V_ROUNDS] == 1 and (nxt == 4 or nxt == 7):
                                nxt += 1
                            state[O_VETO_EXP + k2] = nxt
                            break
                opts[0] = 0
                opts[1] = 1
                order = decide(
                    state,
                    tables,
                    variant,
                    buffers,
                    np.int64(K_ORDER),
                    np.int64(p),
                    np.int64(2),
                    np.int64(op),
                )
                lim = np.int64(tables[T_CDECK + c])
                for phase in range(2):  # one call site each (compile time)
                    if (phase == 0) == (order == 0):
                        do_placement(state, tables, variant, buffers, p, lim)
                    else:
                        game[G_SPECIAL](state, tables, variant, buffers, p, c)
                if ctx[C_STOPPED] != 0:
                    return
            state[O_START] = state[O_ORDER + npl - 1]
            state[O_LAST] = state[O_START]
            for i in range(5):
                state[O_FACE + i] = -1
            for k2 in range(2):
                if state[O_VETO_HOLDER + k2] >= 0 and state[O_VETO_EXP + k2] <= r:
                    state[O_VETO_HOLDER + k2] = -1
                    state[O_VETO_EXP + k2] = 0
            if r == 3 or r == 6 or r == 9:
                general_scoring(state, tables, variant, buffers)
            if ctx[C_STOPPED] != 0:  # a driven run stopped at a Castillo disc
                return
        if what == STEP_GAMES:
            _collect_game(state, ctx[C_PTR], g, game)


@njit(inline="always")
def start_game(state, tables, variant, buffers, game, npl, game_index):
    """Seed the seats' policy streams (``buffers[D_RNG]``) and set up game ``game_index`` in
    ``state`` (§2) from the root seed ``game[G_SEEDS][0, 0]`` (deal stream in
    ``game[G_SEEDS][1]``)."""
    seeds = game[G_SEEDS]
    root = seeds[0, 0]
    gi = np.uint64(game_index)
    rngs = buffers[D_RNG]
    for p in range(MAXP):
        seed_state(rngs[p], game_seed(root, gi, np.uint64(STREAM_POLICY + p)))
    rng = seeds[1]
    seed_state(rng, game_seed(root, gi, np.uint64(STREAM_DEAL)))
    setup(state, tables, variant, npl, rng, game[G_FIXED])


@njit(cache=True, **_INTERNAL)
def _collect_game(state, n_decisions, g, game):
    """Write game ``g``'s results from its final state into ``game``'s result arrays
    (``game[G_RESULTS:G_SPECIAL]``, written as the literal slice ``game[2:13]``)."""
    score, src, plies, pwr, taker, takeround, kingby, unplayed, intake, vetoes, forbid = game[2:13]
    npl = score.shape[1]
    plies[g] = n_decisions
    for p in range(npl):
        score[g, p] = state[O_SCORE + p]
        for s in range(5):
            src[g, p, s] = state[O_SRC + p * 5 + s]
        for r in range(9):
            pwr[g, r, p] = state[O_PWR + r * 5 + p]
        u = 0
        for v in range(1, 14):
            if ((state[O_HAND + p] >> v) & 1) == 1:
                u += v
        unplayed[g, p] = u
        intake[g, p, 0] = state[O_ITAKE + p]
        intake[g, p, 1] = state[O_IMAX + p]
    for p in range(npl):
        forbid[g, p, 0] = state[O_FAVOID + p]
        forbid[g, p, 1] = state[O_FFORCED + p]
    vetoes[g, 0] = state[O_VCOUNT]
    vetoes[g, 1] = state[O_VCOUNT + 1]
    for c in range(45):
        taker[g, c] = state[O_TAKER + c]
        takeround[g, c] = state[O_TAKEROUND + c]
    for r in range(9):
        kingby[g, r] = state[O_KINGBY + r]
