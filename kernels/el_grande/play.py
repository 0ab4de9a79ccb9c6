"""El Grande's entry points: the compiled kernels and Python wrappers that ``mcsim`` calls:
batches (``play_batch``, ``play_batch_mcts``), records and replays (``run_logged``,
``record_mcts``), single engine steps (``step``) and the mcts game loop.

Random and heuristic lineups run ``rules.engine`` (``STEP_GAMES``) directly; lineups with an
``mcts`` seat run the separate ``_mcts_games`` kernel, so the search is compiled only for them.
"""

import functools
import gc

import numpy as np
from numba import njit

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
    C_NSEARCH,
    C_NTREE,
    C_PTR,
    C_QAUX,
    C_QPTR,
    C_QUERY,
    C_SCOPE,
    C_SMASK,
    C_STOPPED,
    C_TPTR,
    D_CTX,
    D_ERRBUF,
    D_EV,
    D_LOG,
    D_PAR,
    D_POL,
    D_RNG,
    D_SCR,
    F_GIVEN,
    FIXED_SIZE,
    G_FIXED,
    G_RESULTS,
    G_SPECIAL,
    M_ITER,
    M_SCOPE,
    MODE_PLAY,
    MODE_REPLAY,
    MODE_SEARCH,
    N_RESULTS,
    POL_MCTS,
    POL_RANDOM,
    R_CKPT,
    STATE_SIZE,
    STEP_GAMES,
    STEP_ROUND,
)
from kernels.el_grande.policies import make_buffers
from kernels.el_grande.rules import _collect_game, _copy_state, engine, special_function, start_game
from kernels.el_grande.search_steps import choose_mcts, search_scratch


def _gc_paused(fn):
    """``fn`` with Python's cyclic garbage collector paused during the call. A call that
    compiles the kernels spends about 15% of its CPU time in the collector scanning Numba's
    compiler objects, which it cannot free while the compile runs (El Grande, 2026-12-01:
    17.1 -> 14.5 s, peak memory 400 -> 580 MB; the garbage goes at the next collection). Warm
    calls allocate no Python objects, so the pause changes nothing for them."""

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()

    return call


def game_buffers(n_games, npl, root_seed, fixed):
    """Game buffers ``game`` (NumPy; see ``G_*``) for ``n_games`` games of ``npl`` players: the
    root seed (uint64), ``fixed`` int32[FIXED_SIZE] (``setup``) and the eleven result arrays of
    ``play_batch`` (initial values)."""
    seeds = np.zeros((2, 4), dtype=np.uint64)
    seeds[0, 0] = np.uint64(root_seed)
    return (
        seeds,
        fixed,
        np.zeros((n_games, npl), dtype=np.int32),
        np.zeros((n_games, npl, 5), dtype=np.int32),
        np.zeros(n_games, dtype=np.int32),
        np.zeros((n_games, 9, npl), dtype=np.int8),
        np.full((n_games, 45), -1, dtype=np.int8),
        np.zeros((n_games, 45), dtype=np.int8),
        np.full((n_games, 9), -1, dtype=np.int8),
        np.zeros((n_games, npl), dtype=np.int32),
        np.zeros((n_games, npl, 2), dtype=np.int32),
        np.zeros((n_games, 2), dtype=np.int32),
        np.zeros((n_games, npl, 2), dtype=np.int32),
        special_function(),
    )


def _forbid_words(forbid, npl):
    """The seats' forbidden-option words (int64[npl], ``FB_*``; None: no seat restricted)."""
    if forbid is None:
        return np.zeros(npl, np.int64)
    return np.ascontiguousarray(forbid, dtype=np.int64)[:npl]


def play_batch(
    first_game_index,
    n_games,
    root_seed,
    npl,
    policy_ids,
    policy_params,
    variant,
    tables,
    forbid=None,
):
    """Play ``n_games`` games; game i depends only on (root_seed, first_game_index + i).

    Parameters
    ----------
    first_game_index, n_games : int
    root_seed : uint64
    npl : int
        Players 2..5.
    policy_ids : int64[npl]
        ``POL_RANDOM`` or ``POL_HEURISTIC`` per seat.
    policy_params : float64[npl, n_params]
    variant : int64[n_variants]
        Variant codes (``V_*``).
    tables : int32[T_SIZE]
        Component tables (``T_*``).
    forbid : int64[npl] or None
        Restricted play: each seat's forbidden options (``FB_*`` bits; 0 or None: none).

    Returns
    -------
    score : int32[n_games, npl]
        Final points.
    src : int32[n_games, npl, 5]
        Points by source ``SRC_*``.
    plies : int32[n_games]
        Decisions made.
    pwr : int8[n_games, 9, npl]
        Power card value per round (0 = round not played).
    taker : int8[n_games, 45]
        Seat that took each action card (-1 never); the King's card column is unused.
    takeround : int8[n_games, 45]
        Round in which the card was taken (0 never).
    kingby : int8[n_games, 9]
        Seat that took the King's card per round (-1 round not played).
    unplayed : int32[n_games, npl]
        Sum of power values still in hand at the end (tie-break variant, A6).
    intake : int32[n_games, npl, 2]
        Caballeros taken at the court intakes (§3 step 4a) and the most that could have been taken.
    vetoes : int32[n_games, 2]
        Vetoes used with cut 0 (the whole action) and with a cut k >= 1 (its remaining part, §6 2a).
    forbid : int32[n_games, npl, 2]
        Restricted play: decisions where a forbidden option was legal and the seat chose a
        permitted one, and decisions where every legal option was forbidden (0 unrestricted).

    Notes
    -----
    Allocates the buffers and calls the compiled ``engine`` (``STEP_GAMES``; the entry shared
    with ``run_logged``, ``step`` and the search); the caller validates all inputs.
    """
    r = _play(
        first_game_index,
        n_games,
        root_seed,
        npl,
        policy_ids,
        policy_params,
        variant,
        tables,
        MODE_PLAY,
        np.zeros((1, 4), np.int32),
        np.zeros((1, 8), np.int32),
        np.zeros(FIXED_SIZE, np.int32),
        _forbid_words(forbid, npl),
    )
    return r[:N_RESULTS]


def run_logged(
    root_seed,
    game_index,
    npl,
    policy_ids,
    policy_params,
    variant,
    tables,
    mode,
    log,
    ev,
    fixed,
    forbid=None,
):
    """Play one game in record (mode 1) or replay (mode 2) mode (mode 0: plain play).

    ``fixed`` int32[FIXED_SIZE]: setup override / setup used (see ``setup``).
    ``log`` int32[L, 4]: decisions (written in record mode, read in replay mode);
    ``ev`` int32[E, 8]: scoring events (ply, code, arg, score_0..4);
    ``forbid``: the seats' forbidden options (``play_batch``; replay mode ignores them).
    Returns (state int32[STATE_SIZE], n_decisions, n_events, err_ply (-1 none), errbuf int32[64],
    n_err_options).
    """
    r = _play(
        game_index,
        1,
        root_seed,
        npl,
        policy_ids,
        policy_params,
        variant,
        tables,
        mode,
        log,
        ev,
        fixed,
        _forbid_words(forbid, npl),
    )
    state, ctx, eb = r[N_RESULTS:]
    return state, int(ctx[C_PTR]), int(ctx[C_EVPTR]), int(ctx[C_ERR]), eb, int(ctx[C_NERR])


@_gc_paused
def _play(
    first_game_index,
    n_games,
    root_seed,
    npl,
    policy_ids,
    policy_params,
    variant,
    tables,
    mode,
    log,
    ev,
    fixed,
    forbid,
):
    """The batch behind ``play_batch`` and ``run_logged``: buffers allocated here (NumPy), the
    games played by ``engine`` (``STEP_GAMES``). ``mode``: ``MODE_*``; ``forbid`` int64[npl].
    Returns ``play_batch``'s eleven arrays plus the last state, ctx and the error buffer."""
    policy_params = np.ascontiguousarray(policy_params, dtype=np.float64)
    policy_ids = np.asarray(policy_ids, dtype=np.int64)[:npl]
    heuristic = mode != MODE_REPLAY and bool(np.any(policy_ids != POL_RANDOM))
    buffers = make_buffers(1, 1, policy_params.shape[1], heuristic)
    buffers = buffers[:D_LOG] + (log,) + buffers[D_LOG + 1 : D_EV] + (ev,) + buffers[D_EV + 1 :]
    buffers[D_POL][:npl] = policy_ids
    buffers[D_PAR][:npl] = policy_params[:npl]
    ctx = buffers[D_CTX]
    ctx[C_FMASK : C_FMASK + npl] = forbid
    ctx[C_MODE] = mode
    ctx[C_LOGCAP] = 0 if mode == MODE_PLAY else log.shape[0]
    ctx[C_EVCAP] = 0 if mode == MODE_PLAY else ev.shape[0]
    game = game_buffers(n_games, npl, root_seed, fixed)
    state = np.zeros(STATE_SIZE, dtype=np.int32)
    engine(
        state,
        tables,
        np.ascontiguousarray(variant, dtype=np.int64),
        buffers,
        game,
        np.int64(STEP_GAMES),
        np.int64(npl),
        np.int64(first_game_index),
        np.int64(n_games),
    )
    return game[G_RESULTS:G_SPECIAL] + (state, ctx, buffers[D_ERRBUF])


_NO_GAMES = []  # ``game`` of single steps (made on first use: it compiles ``special_action``)


@_gc_paused
def step(state, tables, variant, buffers, what, seat, arg):
    """One engine piece on ``state`` (tests, examples): ``engine(state, tables, variant, buffers,
    game, what, seat, arg, arg)`` with int64 arguments, the compiled code that ``play_batch`` runs
    (no other entry kernel to compile). ``what``: ``STEP_PLACEMENT`` (placement of up to ``arg``
    caballeros by ``seat``), ``STEP_SPECIAL`` (special action of card ``arg`` by ``seat``, with the
    Veto check), ``STEP_GENERAL_SCORING``, ``STEP_COURT_INTAKE`` (intake of up to ``arg`` caballeros
    by ``seat``), ``STEP_ROUND`` (round ``arg``; nothing in a round the variant skips)."""
    if not _NO_GAMES:
        _NO_GAMES.append(game_buffers(0, 1, 0, np.zeros(FIXED_SIZE, np.int32)))
    a = np.int64(arg)
    engine(state, tables, variant, buffers, _NO_GAMES[0], np.int64(what), np.int64(seat), a, a)


@njit(inline="always")  # one call site: no compiled level of its own
def _drive_game(
    state, tables, variant, buffers, game, npl, game_index, mcts_params, scratch, checkpoint
):
    """Play one game with mcts seats (``buffers[D_POL][p] == POL_MCTS``; their parameters
    ``mcts_params[p]``, their unsearched decisions by the heuristic with ``buffers[D_PAR][p]``) into
    ``state``; every decision is logged in ``buffers[D_LOG]`` (int32[L, 4]). Returns the number of
    decisions."""
    start_game(state, tables, variant, buffers, game, npl, game_index)
    ctx = buffers[D_CTX]
    log = buffers[D_LOG]
    mask = 0
    scope = 0
    for p in range(npl):
        if buffers[D_POL][p] == POL_MCTS:
            mask |= 1 << p
            scope |= np.int64(mcts_params[p, M_SCOPE]) << p
    _copy_state(state, checkpoint)
    r0 = np.int64(1)
    first = np.int64(0)
    n_real = np.int64(0)
    while True:
        _copy_state(checkpoint, state)
        ctx[C_MODE] = MODE_SEARCH
        ctx[C_PTR] = first
        ctx[C_NREAL] = n_real
        ctx[C_NTREE] = 0
        ctx[C_TPTR] = 0
        ctx[C_STOPPED] = 0
        ctx[C_SMASK] = mask
        ctx[C_SCOPE] = scope
        ctx[C_QUERY] = 1
        ctx[C_LOGFRESH] = 1
        ctx[C_CKR] = -1
        ctx[C_EVCAP] = 0
        engine(
            state,
            tables,
            variant,
            buffers,
            game,
            np.int64(STEP_ROUND),
            np.int64(0),
            r0,
            np.int64(9),
        )
        if ctx[C_CKR] >= 0:
            r0 = ctx[C_CKR]
            first = ctx[C_CKPTR]
            _copy_state(buffers[D_SCR][R_CKPT], checkpoint)
        if ctx[C_STOPPED] == 0:
            return ctx[C_PTR]
        q = ctx[C_QPTR]
        eb = buffers[D_ERRBUF]
        kind = np.int64(eb[0])
        p = np.int64(eb[1])
        v = choose_mcts(
            checkpoint,
            r0,
            log,
            first,
            q,
            p,
            kind,
            tables,
            variant,
            game,
            mcts_params[p],
            ctx[C_FMASK + p],
            buffers[D_RNG][p],
            scratch,
        )
        buffers[D_CTX][C_NSEARCH] += 1
        if v < 0:  # a round too long for the search state (never seen): the first option
            v = np.int64(eb[2])
        if q >= log.shape[0]:
            return q  # the log is full (never with 4,000 rows)
        log[q, 0] = kind
        log[q, 1] = p
        log[q, 2] = v
        log[q, 3] = ctx[C_QAUX]
        n_real = q + 1


@njit(cache=True)
def _mcts_games(
    first_game_index, n_games, npl, mcts_params, tables, variant, buffers, game, scratch
):
    """The batch kernel of lineups with mcts seats (compiled only for them): games
    ``first_game_index ..`` into ``game``'s result arrays (``engine``'s ``STEP_GAMES``), every
    decision of the last game in ``buffers[D_LOG]``. Returns (the last game's decision count, the
    number of searches)."""
    state = np.zeros(STATE_SIZE, dtype=np.int32)
    checkpoint = np.zeros(STATE_SIZE, dtype=np.int32)
    fixed = game[G_FIXED]
    nd = 0
    keep = fixed[F_GIVEN] == 1 and n_games == 1
    for g in range(n_games):
        if not keep:
            fixed[F_GIVEN] = 0
        nd = _drive_game(
            state,
            tables,
            variant,
            buffers,
            game,
            npl,
            first_game_index + g,
            mcts_params,
            scratch,
            checkpoint,
        )
        _collect_game(state, nd, g, game)
    return nd, buffers[D_CTX][C_NSEARCH]


@_gc_paused
def play_mcts(
    first_game_index,
    n_games,
    root_seed,
    npl,
    policy_ids,
    policy_params,
    mcts_params,
    heuristic_params,
    variant,
    tables,
    log,
    fixed,
    forbid=None,
):
    """Buffers (NumPy) and ``_mcts_games`` for ``play_batch_mcts`` and ``record_mcts``:
    ``play_batch``'s eleven arrays plus the last game's decision count and the number of
    searches; ``log`` int32[L, 4] receives the last game's decisions, ``fixed`` its setup
    (``setup``); ``forbid``: the seats' forbidden options (``play_batch``)."""
    policy_ids = np.ascontiguousarray(policy_ids, dtype=np.int64)
    policy_params = np.ascontiguousarray(policy_params, dtype=np.float64)
    mcts_params = np.ascontiguousarray(mcts_params, dtype=np.float64)
    heuristic_params = np.ascontiguousarray(heuristic_params, dtype=np.float64)
    buffers = make_buffers(1, 1, heuristic_params.shape[0])
    buffers = buffers[:D_LOG] + (log,) + buffers[D_LOG + 1 :]
    buffers[D_CTX][C_FMASK : C_FMASK + npl] = _forbid_words(forbid, npl)
    cap = 66  # >= 64: value doubles as flat's totals (at most 64 options)
    for p in range(npl):
        buffers[D_POL][p] = policy_ids[p]
        if policy_ids[p] == POL_MCTS:
            cap = max(cap, int(mcts_params[p, M_ITER]) + 2)
            buffers[D_PAR][p] = heuristic_params
        else:
            buffers[D_PAR][p] = policy_params[p, : heuristic_params.shape[0]]
    game = game_buffers(n_games, npl, root_seed, fixed)
    nd, ns = _mcts_games(
        np.int64(first_game_index),
        np.int64(n_games),
        np.int64(npl),
        mcts_params,
        tables,
        np.ascontiguousarray(variant, dtype=np.int64),
        buffers,
        game,
        search_scratch(npl, cap, heuristic_params),
    )
    return game[G_RESULTS:G_SPECIAL] + (nd, ns)


def play_batch_mcts(
    first_game_index,
    n_games,
    root_seed,
    npl,
    policy_ids,
    policy_params,
    mcts_params,
    heuristic_params,
    variant,
    tables,
    forbid=None,
):
    """``play_batch`` for lineups with ``POL_MCTS`` seats (same eleven arrays).

    ``policy_ids`` int64[npl] (``POL_*``); ``policy_params`` float64[npl, P]: the random and
    heuristic seats' parameters (``play_batch``); ``mcts_params`` float64[npl, N_MPARAMS] (the
    rows of the mcts seats are used); ``heuristic_params`` float64[P]: the heuristic parameters of
    the mcts seats' unsearched decisions and of the rollouts (the heuristic's defaults);
    ``forbid``: the seats' forbidden options (``play_batch``): an mcts seat's filter its own
    decisions in its searches, in the tree and in the rollouts.
    """
    r = play_mcts(
        np.int64(first_game_index),
        np.int64(n_games),
        np.uint64(root_seed),
        np.int64(npl),
        np.ascontiguousarray(policy_ids, dtype=np.int64),
        np.ascontiguousarray(policy_params, dtype=np.float64),
        np.ascontiguousarray(mcts_params, dtype=np.float64),
        np.ascontiguousarray(heuristic_params, dtype=np.float64),
        np.ascontiguousarray(variant, dtype=np.int64),
        tables,
        np.zeros((4000, 4), np.int32),
        np.zeros(FIXED_SIZE, np.int32),
        forbid,
    )
    return r[:N_RESULTS]


def record_mcts(
    root_seed,
    game_index,
    npl,
    policy_ids,
    policy_params,
    mcts_params,
    heuristic_params,
    variant,
    tables,
    log,
    fixed=None,
    forbid=None,
):
    """Play one game of an mcts lineup (arguments as ``play_batch_mcts``); its decisions go to
    ``log`` (int32[L, 4]). ``fixed``: a setup to play instead of the deal's (``setup``; tests).
    Returns (n_decisions, fixed int32[FIXED_SIZE]: the setup)."""
    fixed = np.zeros(FIXED_SIZE, np.int32) if fixed is None else fixed.copy()
    r = play_mcts(
        np.int64(game_index),
        np.int64(1),
        np.uint64(root_seed),
        np.int64(npl),
        np.ascontiguousarray(policy_ids, dtype=np.int64),
        np.ascontiguousarray(policy_params, dtype=np.float64),
        np.ascontiguousarray(mcts_params, dtype=np.float64),
        np.ascontiguousarray(heuristic_params, dtype=np.float64),
        np.ascontiguousarray(variant, dtype=np.int64),
        tables,
        log,
        fixed,
        forbid,
    )
    return int(r[N_RESULTS]), fixed
