"""El Grande policies (Numba): the heuristic's evaluation and chooser, compiled behind a function
pointer (``policy_function``), and the decision buffers ``buffers`` it is called with.

The random policy is the uniform draw inside ``rules.decide`` / ``rules._policy_index`` (it
needs no code of its own). The heuristic (``heuristic_choice``) scores each option by a
one-step look-ahead of ``rules._primitive`` and ``evaluate`` (see
``mcsim.games.el_grande``'s docstring for its parameters ``HP_*``).
"""

import numpy as np
from numba import cfunc, njit

from kernels.el_grande.layout import (
    C_ERR,
    C_EVCAP,
    C_LOGCAP,
    C_SIZE,
    CASTILLO,
    FB_CASTILLO,
    HP_BID_CAB,
    HP_BID_ORDER,
    HP_BID_SAVE,
    HP_BID_SPREAD,
    HP_COURT_TARGET,
    HP_SHORT_MIN,
    HP_VETO_HARM,
    HP_VETO_THR,
    HP_W_BOARD,
    HP_W_COURT,
    HP_W_SPECIAL,
    K_ANGRY,
    K_CARD,
    K_CHOICE,
    K_EXEC,
    K_INTAKE,
    K_MOVE_DST,
    K_MOVE_SRC,
    K_ORDER,
    K_PLACE,
    K_POWER,
    K_POWERBACK,
    K_REMOVE1,
    K_SCORE_REGION,
    K_SECRET_REM,
    K_SHORT,
    K_SRC_REGION,
    K_VETO,
    K_VETO_CUT,
    MAXP,
    N_SCRATCH,
    NPLACE,
    NREG,
    O_CAB,
    O_COURT,
    O_FACE,
    O_KING,
    O_NP,
    O_PROV,
    O_ROUND,
    O_SCORE,
    OP_ADVISOR,
    OP_ANGRY,
    OP_DECAY_ALL,
    OP_DECAY_N,
    OP_KING,
    OP_REMOVE_EACH,
    OP_SCORE_CHOICE,
    OP_SCORE_CLASS,
    OP_SCORE_FEWEST,
    R_EVAL,
    R_LOOK1,
    R_LOOK2,
    R_OUT,
    R_POT,
    SRC_GENERAL,
    SRC_SPECIAL,
    STATE_SIZE,
    STOP,
    T_ADJ,
    T_CARG,
    T_CCLS,
    T_CDECK,
    T_COP,
    T_PCAB,
)
from kernels.el_grande.rules import (
    _INTERNAL,
    HEUR_SIG,
    _copy_state,
    primitive,
    score_place,
    special_scoring,
)

# static special-action value (points-like) used by the heuristic to rank cards by opcode
_STATIC = np.array(
    [
        0.0,
        2.0,
        2.0,
        2.5,
        3.0,
        2.5,
        2.5,
        2.5,
        2.5,
        2.0,
        2.0,
        1.5,
        2.0,
        1.5,
        1.5,
        2.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        2.0,
        1.5,
        2.0,
        1.0,
        1.5,
        1.5,
        1.0,
        3.0,
    ],
    dtype=np.float64,
)


# =============================================================================================
# evaluation (heuristic)
# =============================================================================================
@njit(cache=True, **_INTERNAL)
def evaluate(state, tables, variant, p, w_board, w_court, scratch):
    """Heuristic value of the position for seat ``p``: own (score + w_board * points if every place
    were scored now + w_court * court) minus the opponents' mean of the same. Uses
    ``scratch[R_EVAL]`` and ``scratch[R_POT]`` (integer points: the same floats as a float sum)."""
    npl = state[O_NP]
    pot = scratch[R_POT]
    tmp = scratch[R_EVAL]
    for q in range(npl):
        pot[q] = 0
    for pl in range(NPLACE):
        score_place(state, tables, variant, pl, False, SRC_GENERAL, False, tmp)
        for q in range(npl):
            pot[q] += tmp[q]
    own = state[O_SCORE + p] + w_board * pot[p] + w_court * state[O_COURT + p]
    opp = 0.0
    for q in range(npl):
        if q != p:
            opp += state[O_SCORE + q] + w_board * pot[q] + w_court * state[O_COURT + q]
    return own - opp / (npl - 1)


# =============================================================================================
# the heuristic: look-ahead and choices
# =============================================================================================
@njit(cache=True, **_INTERNAL)
def _opt_eval(state, tables, variant, kind, p, v, aux, w_board, w_court, scratch, row):
    """Evaluation after option ``v``, on a copy of ``state`` in ``scratch[row]``."""
    tmp = scratch[row]
    _copy_state(state, tmp)
    primitive(tmp, tables, variant, kind, p, v, aux, scratch)
    return evaluate(tmp, tables, variant, p, w_board, w_court, scratch)


@njit(cache=True, **_INTERNAL)
def _best_dst_eval(state, tables, variant, p, src_code, w_board, w_court, scratch, castle):
    """Best evaluation over destinations of one caballero taken from ``src_code`` (the Castillo
    only if ``castle``: restricted play may forbid it)."""
    s = src_code // 5
    king = state[O_KING]
    best = -1e18
    for d in range(NPLACE):
        if d == s or d == king or (d == CASTILLO and not castle):
            continue
        e = _opt_eval(
            state,
            tables,
            variant,
            np.int64(K_MOVE_DST),
            np.int64(p),
            np.int64(d),
            np.int64(src_code),
            w_board,
            w_court,
            scratch,
            np.int64(R_LOOK1),
        )
        if e > best:
            best = e
    return best


@njit(cache=True, **_INTERNAL)
def card_value(state, tables, variant, p, c, params, scratch, castle):
    """Heuristic value of action card ``c`` for seat ``p`` (placement look-ahead + special);
    the look-ahead state is ``scratch[R_LOOK1]``; it places into the Castillo only if
    ``castle`` (restricted play may forbid it)."""
    w_board = params[HP_W_BOARD]
    w_court = params[HP_W_COURT]
    base = evaluate(state, tables, variant, p, w_board, w_court, scratch)
    tmp = scratch[R_LOOK1]
    _copy_state(state, tmp)
    n = tables[T_CDECK + c]
    king = tmp[O_KING]
    adj = tables[T_ADJ + king]
    for _ in range(n):
        if tmp[O_COURT + p] <= 0:
            break
        best = -1e18
        bt = -1
        for t in range(NPLACE):
            if (t == CASTILLO and castle) or ((adj >> t) & 1) == 1:
                e = _opt_eval(
                    tmp,
                    tables,
                    variant,
                    np.int64(K_PLACE),
                    np.int64(p),
                    np.int64(t),
                    np.int64(0),
                    w_board,
                    w_court,
                    scratch,
                    np.int64(R_LOOK2),
                )
                if e > best:
                    best = e
                    bt = t
        if bt < 0:
            break
        primitive(tmp, tables, variant, K_PLACE, p, bt, 0, scratch)
    val = evaluate(tmp, tables, variant, p, w_board, w_court, scratch) - base
    op = tables[T_COP + c]
    if op == OP_SCORE_CHOICE:
        before = evaluate(tmp, tables, variant, p, w_board, w_court, scratch)
        best = -1e18
        for pl in range(NPLACE):
            e = (
                _opt_eval(
                    tmp,
                    tables,
                    variant,
                    np.int64(K_SCORE_REGION),
                    np.int64(p),
                    np.int64(pl),
                    np.int64(0),
                    w_board,
                    w_court,
                    scratch,
                    np.int64(R_LOOK2),
                )
                - before
            )
            if e > best:
                best = e
        if best > 0:
            val += best
    elif op >= OP_SCORE_CLASS and op <= OP_SCORE_FEWEST:
        before = evaluate(tmp, tables, variant, p, w_board, w_court, scratch)
        special_scoring(
            tmp,
            tables,
            variant,
            np.int64(op),
            np.int64(0),
            np.int64(tables[T_CCLS + c]),
            np.int64(1),
            scratch[R_OUT],
            scratch,
        )
        g = evaluate(tmp, tables, variant, p, w_board, w_court, scratch) - before
        if g > 0:
            val += g
    else:
        val += params[HP_W_SPECIAL] * _STATIC[op]
    return val


@njit(cache=True, **_INTERNAL)
def _option_index(opts, nopt, want):
    """Index of option ``want`` among ``opts[:nopt]``; 0 (the first option) if it is absent."""
    for i in range(nopt):
        if opts[i] == want:
            return i
    return 0


@njit(inline="always")  # one call site: no compiled level of its own
def _h_bid(state, tables, variant, p, nopt, opts, params, scratch, castle):
    """Heuristic power bid (§3 step 3): caballeros to court and turn order (see HP_BID_*)."""
    best = -1e18
    bi = 0
    prov = state[O_PROV + p]
    spread = 0.0
    if params[HP_BID_SPREAD] != 0.0:
        hi = -1e18
        lo = 1e18
        for i in range(5):
            c = state[O_FACE + i]
            if c >= 0:
                x = card_value(state, tables, variant, p, c, params, scratch, castle)
                if x > hi:
                    hi = x
                if x < lo:
                    lo = x
        spread = hi - lo
    left = 9 - state[O_ROUND]
    for i in range(nopt):
        v = opts[i]
        cab = tables[T_PCAB + v]
        if cab > prov:
            cab = prov
        e = (
            params[HP_BID_CAB] * cab
            + params[HP_BID_ORDER] * v
            + params[HP_BID_SPREAD] * spread * v / 13.0
            - params[HP_BID_SAVE] * v * left / 9.0
        )
        if e > best:
            best = e
            bi = i
    return bi


@njit(inline="always")  # one call site: no compiled level of its own
def _h_execute(state, tables, variant, p, nopt, aux, opts, w_board, w_court, scratch):
    """Heuristic ``K_EXEC``: execute the special action of card ``aux``?"""
    # aux = card index; scorings only if they gain, everything else executes
    op = tables[T_COP + aux]
    want = 1
    if op >= OP_SCORE_CLASS and op <= OP_SCORE_FEWEST:
        tmp = scratch[R_LOOK1]
        _copy_state(state, tmp)
        before = evaluate(tmp, tables, variant, p, w_board, w_court, scratch)
        special_scoring(
            tmp,
            tables,
            variant,
            np.int64(op),
            np.int64(0),
            np.int64(tables[T_CCLS + aux]),
            np.int64(1),
            scratch[R_OUT],
            scratch,
        )
        if evaluate(tmp, tables, variant, p, w_board, w_court, scratch) - before <= 0:
            want = 0
    return _option_index(opts, nopt, want)


@njit(inline="always")  # one call site: no compiled level of its own
def _h_intake(state, p, nopt, aux, opts, params):
    """Heuristic court intake (§3 step 4a): the number of caballeros taken (= option index)."""
    # aux = allowance; province caballeros up to a court of court_target, then the
    # shortfall from regions while the court is below short_min_court
    prov = state[O_PROV + p]
    court = state[O_COURT + p]
    n = aux if aux < prov else prov
    room = params[HP_COURT_TARGET] - court
    if n > room:
        n = int(room) if room > 0 else 0
    if n == prov and aux > prov:
        need = params[HP_SHORT_MIN] - (court + prov)
        if need > 0:
            k = int(np.ceil(need))
            n += k if k < aux - prov else aux - prov
    if n > opts[nopt - 1]:
        n = opts[nopt - 1]
    return n


@njit(inline="always")  # one call site: no compiled level of its own
def _h_veto(state, tables, variant, p, nopt, aux, opts, params, scratch):
    """Heuristic Veto (§6 2a): cancel the special action of card ``aux % 64`` by seat
    ``aux // 64``?"""
    # aux = actor*64 + card; veto scorings that favour the actor by >= threshold, and
    # per-opponent actions that would cost me >= veto_harm caballeros
    actor = aux // 64
    c = aux % 64
    op = tables[T_COP + c]
    want = 0
    out_points = scratch[R_OUT]
    if op == OP_DECAY_ALL or op == OP_DECAY_N or op == OP_ANGRY or op == OP_REMOVE_EACH:
        lim = tables[T_CARG + c]
        loss = state[O_COURT + p]
        if op == OP_ANGRY or op == OP_REMOVE_EACH:
            for s in range(NREG):
                if s != state[O_KING]:
                    loss += state[O_CAB + s * 5 + p]
            if op == OP_REMOVE_EACH:
                loss -= state[O_COURT + p]
        if op != OP_DECAY_ALL and loss > lim:
            loss = lim
        if loss > 0 and loss >= params[HP_VETO_HARM]:
            want = 1
    elif op >= OP_SCORE_CLASS and op <= OP_SCORE_FEWEST:
        special_scoring(
            state,
            tables,
            variant,
            np.int64(op),
            np.int64(0),
            np.int64(tables[T_CCLS + c]),
            np.int64(0),
            out_points,
            scratch,
        )  # apply=False
        if out_points[actor] - out_points[p] >= params[HP_VETO_THR]:
            want = 1
    elif op == OP_SCORE_CHOICE:
        bestg = -1000
        bo = 0
        for pl in range(NPLACE):
            score_place(state, tables, variant, pl, False, SRC_SPECIAL, False, out_points)
            if out_points[actor] > bestg:
                bestg = out_points[actor]
                bo = out_points[p]
        if bestg - bo >= params[HP_VETO_THR]:
            want = 1
    return _option_index(opts, nopt, want)


def heuristic_choice(
    state, tables, variant, opts, policy_params, scratch, kind, p, nopt, aux, fmask
):
    """Index of the heuristic's option among ``opts[:nopt]`` for seat ``p`` (parameters
    ``policy_params[p]``, scratch rows ``scratch``; see ``_decide_any``). Compiled by
    ``policy_function`` (signature ``HEUR_SIG``) only for lineups with a heuristic seat.
    ``fmask``: the seat's forbidden options (restricted play, ``FB_*``): ``opts`` holds only
    permitted options already (``rules.restrict``); with the Castillo forbidden the look-aheads
    (card values, move sources) do not put caballeros there either."""
    castle = ((fmask >> FB_CASTILLO) & 1) == 0
    params = policy_params[p]
    w_board = params[HP_W_BOARD]
    w_court = params[HP_W_COURT]
    npl = state[O_NP]
    best = -1e18
    bi = 0
    if kind == K_POWER:
        return _h_bid(state, tables, variant, p, nopt, opts, params, scratch, castle)
    if kind == K_CARD:
        for i in range(nopt):
            e = card_value(state, tables, variant, p, opts[i], params, scratch, castle)
            if e > best:
                best = e
                bi = i
        return bi
    if kind == K_ORDER:
        op = aux
        want = 1 if (op == OP_KING or op == OP_ADVISOR) else 0
        return _option_index(opts, nopt, want)
    if kind == K_EXEC:
        return _h_execute(state, tables, variant, p, nopt, aux, opts, w_board, w_court, scratch)
    if kind == K_VETO_CUT:
        # aux = actor*64 + card; per-opponent actions: let the steps on the players before me
        # happen, cancel before mine; anything else: cancel the whole action
        actor = aux // 64
        op = tables[T_COP + aux % 64]
        want = 0
        if op == OP_DECAY_ALL or op == OP_DECAY_N or op == OP_ANGRY or op == OP_REMOVE_EACH:
            want = (p - actor - 1 + npl) % npl
        return _option_index(opts, nopt, want)
    if kind == K_INTAKE:
        return _h_intake(state, p, nopt, aux, opts, params)
    if kind == K_VETO:
        return _h_veto(state, tables, variant, p, nopt, aux, opts, params, scratch)
    if kind == K_CHOICE:
        want = 1 if state[O_COURT + p] >= 2 else 0
        return _option_index(opts, nopt, want)
    if kind == K_SHORT:
        if state[O_COURT + p] >= params[HP_SHORT_MIN]:
            for i in range(nopt):
                if opts[i] == STOP:
                    return i
    if kind == K_POWERBACK:
        for i in range(nopt):
            if opts[i] > best:
                best = opts[i]
                bi = i
        return bi
    if kind == K_MOVE_SRC:
        for i in range(nopt):
            e = _best_dst_eval(
                state,
                tables,
                variant,
                np.int64(p),
                np.int64(opts[i]),
                w_board,
                w_court,
                scratch,
                castle,
            )
            if e > best:
                best = e
                bi = i
        return bi
    if kind == K_SRC_REGION:
        # 1a/1d: region whose caballeros (own for 1a, opponents' for 1d) are best relocated;
        # approximated by one caballero of the right kind moved to its best destination
        for i in range(nopt):
            s = opts[i]
            e = -1e18
            for c in range(npl):
                if state[O_CAB + s * 5 + c] > 0 and (
                    (aux == 0 and c == p) or (aux == 1 and c != p)
                ):
                    x = _best_dst_eval(
                        state,
                        tables,
                        variant,
                        np.int64(p),
                        np.int64(s * 5 + c),
                        w_board,
                        w_court,
                        scratch,
                        castle,
                    )
                    if x > e:
                        e = x
            if e > best:
                best = e
                bi = i
        return bi
    if kind == K_REMOVE1 or kind == K_SECRET_REM or kind == K_ANGRY:
        # the mover's own evaluation (victims choose their least harmful loss)
        pass
    # generic: one-step look-ahead of the primitive
    for i in range(nopt):
        e = _opt_eval(
            state,
            tables,
            variant,
            np.int64(kind),
            np.int64(p),
            np.int64(opts[i]),
            np.int64(aux),
            w_board,
            w_court,
            scratch,
            np.int64(R_LOOK1),
        )
        if e > best:
            best = e
            bi = i
    return bi


def _no_heuristic(state, tables, variant, opts, policy_params, scratch, kind, p, nopt, aux, fmask):
    """``buffers[D_HEUR]`` of lineups without a heuristic seat (never called: their seats draw)."""
    return np.int64(0)


_POLICY_FUNCTIONS = {}


def policy_function(heuristic):
    """The compiled function for ``buffers[D_HEUR]`` (a ``numba.cfunc`` of signature ``HEUR_SIG``,
    compiled on first use and cached on disk): ``heuristic_choice`` if ``heuristic``, else a
    stub for lineups whose seats never ask the heuristic (``POL_RANDOM`` only, and replays)."""
    heuristic = bool(heuristic)
    if heuristic not in _POLICY_FUNCTIONS:
        body = heuristic_choice if heuristic else _no_heuristic
        _POLICY_FUNCTIONS[heuristic] = cfunc(HEUR_SIG, cache=True, _nrt=False)(body)
    return _POLICY_FUNCTIONS[heuristic]


# here, not in ``play``: ``search_steps.search_scratch`` allocates the search's own buffers too
def make_buffers(log_cap, ev_cap, n_params, heuristic=True):
    """Decision buffers ``buffers`` (NumPy; see ``_decide_any``): ``log`` int32[log_cap, 4], events
    int32[ev_cap, 8], ``n_params`` policy parameters per seat, mode ``MODE_PLAY``; the heuristic
    in ``buffers[D_HEUR]`` if ``heuristic`` (else a stub: no seat may ask it)."""
    ctx = np.zeros(C_SIZE, dtype=np.int64)
    ctx[C_ERR] = -1
    ctx[C_LOGCAP] = log_cap
    ctx[C_EVCAP] = ev_cap
    return (
        np.zeros(MAXP, dtype=np.int64),
        np.zeros((MAXP, n_params), dtype=np.float64),
        np.zeros((MAXP, 4), dtype=np.uint64),
        np.zeros((log_cap, 4), dtype=np.int32),
        ctx,
        np.zeros(64, dtype=np.int32),
        np.zeros(64, dtype=np.int32),
        np.zeros((ev_cap, 8), dtype=np.int32),
        np.zeros((N_SCRATCH, STATE_SIZE), dtype=np.int32),
        policy_function(heuristic),
    )
