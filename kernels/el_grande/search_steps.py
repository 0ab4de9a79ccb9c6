"""El Grande search steps (Numba): the six steps of ``kernels.search`` over driven replays
(registered on import), the search root, and the ``mcts`` chooser with its scratch.

The engine decides inline (``decide`` deep inside ``engine``), so a position between two
decisions cannot be copied. A search state is instead a round start plus the decisions made
since then: the engine replays them (``MODE_SEARCH``, ``rules._decide_driven``) and stops at the
next searched decision (``legal``) or plays on with the rollout policy (``rollout``).
Replaying forced decisions costs little next to a rollout (no policy runs). The tree holds the
searching seat's own decisions only (one tree per information set): the other seats, and the
searching seat's unsearched single steps (``SCOPE_KEY``), play the rollout policy also inside
the tree, with random streams seeded per iteration so that every replay of an iteration
repeats them. The game itself is played the same way (``play._drive_game``): from the last
round start, the policies' decisions logged, stopping at each searched decision of an mcts
seat.

Search state ``int32[S_ROWS, STATE_SIZE]`` (``layout``): row 0 the state at the round start
(``S_CKPT``) with the unrevealed deck cards in card order (hidden), row ``S_HEAD`` the header
``H_*``, rows ``S_PREFIX ..`` the values of the decisions since the round start (``RESAMPLE``
for the other seats' secret choices of the group being decided: hidden). ``search_root``
builds it from what the deciding seat has seen only, so its decision cannot depend on the
hidden part.

What the deciding seat cannot see (``docs/rules/el_grande.md`` §10 A5): the order of the
unrevealed action cards of decks 1-4 (resampled by ``determinize``), the other seats' secret
choices not yet revealed (Castillo discs §5, cards 2f/2g, 4c destinations, 4g; chosen by the
rollout policy in each iteration). Power cards in hand are public (13 minus the played ones,
§3); the Castillo's contents are public (A5); the other seats' future choices are played by
the rollout policy.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from kernels import search
from kernels.el_grande.layout import (
    C_CKR,
    C_ERR,
    C_EVCAP,
    C_FMASK,
    C_LOGFRESH,
    C_MODE,
    C_NERR,
    C_NREAL,
    C_NTREE,
    C_PTR,
    C_QUERY,
    C_SCOPE,
    C_SMASK,
    C_STOPPED,
    C_TPTR,
    CF_HORIZON,
    CF_ROLLOUT,
    CF_SCOPE,
    D_CTX,
    D_ERRBUF,
    D_LOG,
    D_PAR,
    D_POL,
    D_RNG,
    D_SCR,
    H_NREAL,
    H_NTREE,
    H_R0,
    H_SEAT,
    H_SEED0,
    H_SEED1,
    H_TREE,
    K_DISC,
    K_EVICT_DST,
    K_SECRET_REM,
    K_SECRET_SCORE,
    M_C,
    M_FLAT,
    M_HORIZON,
    M_ITER,
    M_REWARD,
    M_ROLLOUT,
    M_SCOPE,
    MARGIN_SCALE,
    MAXP,
    MODE_SEARCH,
    N_CF,
    N_MOVE_CODES,
    NPLACE,
    O_DECK,
    O_DECKPTR,
    O_HAND,
    O_NP,
    O_SCORE,
    OP_VETO,
    PREFIX_CAP,
    R_EVAL,
    RESAMPLE,
    S_CKPT,
    S_HEAD,
    S_PREFIX,
    S_ROWS,
    SRC_GENERAL,
    STATE_SIZE,
    STEP_ROUND,
    T_COP,
    TREE_CAP,
    V_FINALTIE,
    V_VETO,
)
from kernels.el_grande.policies import make_buffers
from kernels.el_grande.rules import _INTERNAL, engine, score_place
from kernels.rng import STREAM_POLICY, game_seed, next_u64, randint, seed_state

#: the search context of El Grande (``kernels.search.register``): the game tables ``tables``, the
#: variant codes, the search's engine buffers ``buffers`` and state row ``row``, the search config
#: ``CF_*``, the deck-position scratch and the game buffers ``game`` passed on to the engine; the
#: steps read it by position (``ctx[0]`` ... ``ctx[6]``)
ElGrandeSearchContext = namedtuple(
    "ElGrandeSearchContext",
    ["tables", "variant", "buffers", "row", "config", "deck_positions", "game"],
)


# secret decisions (hidden from the other seats until the group is revealed)


@njit(cache=True, inline="always")
def _secret_kind(kind):
    return kind == K_DISC or kind == K_SECRET_REM or kind == K_EVICT_DST or kind == K_SECRET_SCORE


@njit(cache=True, **_INTERNAL)
def _unrevealed(checkpoint, tables, variant, d, pos):
    """Positions in deck ``d`` of the cards not revealed by the start of round
    checkpoint[O_ROUND]+1's reveal ... i.e. after the reveal of the round starting at state
    ``checkpoint`` (positions ``> O_DECKPTR``), without the Vetoes with ``veto=off`` (out of the
    game, known to stay at the bottom); written into ``pos``, count returned."""
    n = 0
    for k in range(checkpoint[O_DECKPTR + d] + 1, 11):
        c = checkpoint[O_DECK + d * 11 + k]
        if variant[V_VETO] == 1 and tables[T_COP + c] == OP_VETO:
            continue
        pos[n] = k
        n += 1
    return n


@njit(cache=True)
def search_root(root, checkpoint, r0, log, first, stop, seat, kind, tables, variant, pos):
    """Write the search state of seat ``seat``'s decision of kind ``kind`` into ``root``
    (int32[S_ROWS, STATE_SIZE]): the state ``checkpoint`` at the start of round ``r0`` and the
    decisions ``log[first:stop]`` since then, with what the seat cannot see canonicalised (the
    unrevealed deck cards in card order, the other seats' secret choices of the current group
    ``RESAMPLE``). Returns False if the prefix does not fit (``PREFIX_CAP``)."""
    n = stop - first
    if n > PREFIX_CAP:
        return False
    for j in range(STATE_SIZE):
        root[S_CKPT, j] = checkpoint[j]
        root[S_HEAD, j] = 0
    for d in range(4):
        m = _unrevealed(checkpoint, tables, variant, d, pos)
        for a in range(1, m):  # insertion sort of the unrevealed cards by index
            x = root[S_CKPT, O_DECK + d * 11 + pos[a]]
            b = a - 1
            while b >= 0 and root[S_CKPT, O_DECK + d * 11 + pos[b]] > x:
                root[S_CKPT, O_DECK + d * 11 + pos[b + 1]] = root[S_CKPT, O_DECK + d * 11 + pos[b]]
                b -= 1
            root[S_CKPT, O_DECK + d * 11 + pos[b + 1]] = x
    root[S_HEAD, H_R0] = r0
    root[S_HEAD, H_NREAL] = n
    root[S_HEAD, H_SEAT] = seat
    for i in range(n):
        root[S_PREFIX + i // STATE_SIZE, i % STATE_SIZE] = log[first + i, 2]
    if _secret_kind(kind):
        i = stop - 1
        while i >= first and log[i, 0] == kind and log[i, 1] != seat:
            root[S_PREFIX + (i - first) // STATE_SIZE, (i - first) % STATE_SIZE] = RESAMPLE
            i -= 1
    return True


@njit(cache=True, **_INTERNAL)
def _search_copy(dst, src):
    rows = S_PREFIX + (src[S_HEAD, H_NREAL] + STATE_SIZE - 1) // STATE_SIZE
    for i in range(rows):
        for j in range(STATE_SIZE):
            dst[i, j] = src[i, j]


@njit(cache=True, **_INTERNAL)
def _search_determinize(state, ctx, rng):
    """Shuffle the unrevealed deck cards (each deck apart) and draw the iteration's seed."""
    tables, variant, pos = ctx[0], ctx[1], ctx[5]
    for d in range(4):
        m = _unrevealed(state[S_CKPT], tables, variant, d, pos)
        for a in range(m - 1, 0, -1):
            b = randint(rng, a + 1)
            ia = O_DECK + d * 11 + pos[a]
            ib = O_DECK + d * 11 + pos[b]
            x = state[S_CKPT, ia]
            state[S_CKPT, ia] = state[S_CKPT, ib]
            state[S_CKPT, ib] = x
    x = next_u64(rng)
    state[S_HEAD, H_SEED0] = np.int32(x & np.uint64(0x7FFFFFFF))
    state[S_HEAD, H_SEED1] = np.int32((x >> np.uint64(31)) & np.uint64(0x7FFFFFFF))


@njit(cache=True, **_INTERNAL)
def _search_last_round(state, ctx):
    h = ctx[4][CF_HORIZON]
    if h <= 0:
        return np.int64(9)
    return min(np.int64(9), np.int64(state[S_HEAD, H_R0]) + h)


@njit(inline="always")  # two call sites (legal, rollout): no compiled level of its own
def _search_run(state, ctx, query):
    """Replay ``state`` (prefix, then its tree moves) in the search buffers ``ctx[2]`` on the
    state row ``ctx[3]``; ``query``: stop at the next searched decision."""
    tables, variant, buffers, row, config = ctx[0], ctx[1], ctx[2], ctx[3], ctx[4]
    for j in range(STATE_SIZE):
        row[j] = state[S_CKPT, j]
    nreal = state[S_HEAD, H_NREAL]
    ntree = state[S_HEAD, H_NTREE]
    seat = state[S_HEAD, H_SEAT]
    log = buffers[D_LOG]
    for i in range(nreal):
        log[i, 2] = state[S_PREFIX + i // STATE_SIZE, i % STATE_SIZE]
    for j in range(ntree):
        log[nreal + j, 2] = state[S_HEAD, H_TREE + j]
    c = buffers[D_CTX]
    c[C_MODE] = MODE_SEARCH
    c[C_PTR] = 0
    c[C_NREAL] = nreal
    c[C_NTREE] = ntree
    c[C_TPTR] = 0
    c[C_STOPPED] = 0
    c[C_SMASK] = 1 << seat
    c[C_SCOPE] = config[CF_SCOPE] << seat
    c[C_QUERY] = query
    c[C_LOGFRESH] = 0
    c[C_ERR] = -1
    c[C_EVCAP] = 0
    c[C_CKR] = -1
    seed = np.uint64(state[S_HEAD, H_SEED0]) | (np.uint64(state[S_HEAD, H_SEED1]) << np.uint64(31))
    for q in range(row[O_NP]):
        seed_state(buffers[D_RNG][q], game_seed(seed, np.uint64(0), np.uint64(STREAM_POLICY + q)))
    engine(
        row,
        tables,
        variant,
        buffers,
        ctx[6],
        np.int64(STEP_ROUND),
        np.int64(0),
        np.int64(state[S_HEAD, H_R0]),
        np.int64(_search_last_round(state, ctx)),
    )


@njit(cache=True, **_INTERNAL)
def _search_legal(state, ctx, moves):
    _search_run(state, ctx, np.int64(1))
    buffers = ctx[2]
    if buffers[D_CTX][C_STOPPED] == 0:
        return 0
    eb = buffers[D_ERRBUF]
    kind = eb[0]
    n = buffers[D_CTX][C_NERR]
    for i in range(n):
        moves[i] = kind * 64 + eb[2 + i]
    return n


@njit(cache=True, **_INTERNAL)
def _search_to_move(state, ctx):
    return np.int64(state[S_HEAD, H_SEAT])


@njit(cache=True, **_INTERNAL)
def _search_apply(state, ctx, move):
    j = state[S_HEAD, H_NTREE]
    state[S_HEAD, H_TREE + j] = move
    state[S_HEAD, H_NTREE] = j + 1


@njit(cache=True, **_INTERNAL)
def _search_rollout(state, ctx, rng, scores):
    """Play on with the rollout policy; ``scores``: final points (final_tie=unplayed: plus the
    unplayed power values / 1000), or with a horizon before the end, points plus what every
    place would pay now (§4, no bonus weighting)."""
    _search_run(state, ctx, np.int64(0))
    tables, variant, buffers, row = ctx[0], ctx[1], ctx[2], ctx[3]
    npl = row[O_NP]
    for q in range(npl):
        scores[q] = row[O_SCORE + q]
    if _search_last_round(state, ctx) >= 9:
        if variant[V_FINALTIE] == 1:
            for q in range(npl):
                u = 0
                for v in range(1, 14):
                    if ((row[O_HAND + q] >> v) & 1) == 1:
                        u += v
                scores[q] += u / 1000.0
        return
    tmp = buffers[D_SCR][R_EVAL]
    for pl in range(NPLACE):
        score_place(row, tables, variant, pl, False, SRC_GENERAL, False, tmp)
        for q in range(npl):
            scores[q] += tmp[q]


search.register(
    ElGrandeSearchContext,
    copy=lambda dst, src, ctx: _search_copy(dst, src),
    determinize=lambda state, ctx, rng: _search_determinize(state, ctx, rng),
    legal=lambda state, ctx, moves: _search_legal(state, ctx, moves),
    to_move=lambda state, ctx: _search_to_move(state, ctx),
    apply=lambda state, ctx, move: _search_apply(state, ctx, move),
    rollout=lambda state, ctx, rng, scores: _search_rollout(state, ctx, rng, scores),
)


def search_scratch(npl, capacity, heuristic_params):
    """Scratch of ``choose_mcts`` for trees of ``capacity`` nodes (NumPy): (root, work, tree, value,
    logs, moves, untried, mark, path, scores, reward, pos, config, buffers, row).
    ``heuristic_params`` float64[P]: the heuristic parameters of the rollouts and the mcts seats'
    unsearched decisions."""
    heuristic_params = np.asarray(heuristic_params, dtype=np.float64)
    buffers = make_buffers(1, 1, heuristic_params.shape[0])
    buffers = (
        buffers[:D_LOG]
        + (np.zeros((PREFIX_CAP + TREE_CAP + 1, 4), np.int32),)
        + buffers[D_LOG + 1 :]
    )
    buffers[D_PAR][:] = heuristic_params
    return (
        np.zeros((S_ROWS, STATE_SIZE), np.int32),
        np.zeros((S_ROWS, STATE_SIZE), np.int32),
        np.zeros((capacity, search.TREE_COLS), np.int64),
        np.zeros(capacity, np.float64),
        np.zeros(capacity, np.float64),
        np.zeros(64, np.int64),
        np.zeros(64, np.int64),
        np.zeros(N_MOVE_CODES, np.int64),
        np.zeros(TREE_CAP + 1, np.int64),
        np.zeros(npl, np.float64),
        np.zeros(npl, np.float64),
        np.zeros(16, np.int64),
        np.zeros(N_CF, np.int64),
        buffers,
        np.zeros(STATE_SIZE, np.int32),
    )


@njit(inline="always")  # one call site: no compiled level of its own
def choose_mcts(
    checkpoint, r0, log, first, stop, seat, kind, tables, variant, game, params, fmask, rng, scratch
):
    """Value chosen by ISMCTS (``kernels.search``) for seat ``seat``'s decision of kind ``kind``,
    the decision ``stop`` of a game whose round ``r0`` started in state ``checkpoint`` after
    decision ``first`` (``log[first:stop]``: the decisions since then); ``game`` the game buffers
    that the search's ``engine`` calls pass on (unused there). ``params`` float64: the seat's mcts
    parameters ``M_*``; ``fmask`` int64: its forbidden options (restricted play, ``FB_*``; 0 none),
    which filter its own decisions in the tree and in the rollouts, not the other seats';
    ``rng`` uint64[4]: its stream; ``scratch``: ``search_scratch``. Returns -1 if the round's
    decisions do not fit the search state (the caller decides then)."""
    (
        root,
        work,
        tree,
        value,
        logs,
        mv,
        untried,
        mark,
        path,
        scores,
        reward,
        pos,
        config,
        buffers,
        row,
    ) = scratch
    if not search_root(root, checkpoint, r0, log, first, stop, seat, kind, tables, variant, pos):
        return np.int64(-1)
    config[CF_ROLLOUT] = np.int64(params[M_ROLLOUT])
    config[CF_SCOPE] = np.int64(params[M_SCOPE])
    config[CF_HORIZON] = np.int64(params[M_HORIZON])
    for q in range(MAXP):
        buffers[D_POL][q] = config[CF_ROLLOUT]
        buffers[D_CTX][C_FMASK + q] = 0
    buffers[D_CTX][C_FMASK + seat] = fmask
    ctx = ElGrandeSearchContext(tables, variant, buffers, row, config, pos, game)
    n_iter = min(np.int64(params[M_ITER]), np.int64(tree.shape[0] - 1))
    if params.shape[0] > M_FLAT and params[M_FLAT] != 0.0:
        move = search.flat(
            root, ctx, n_iter, np.int64(params[M_REWARD]), MARGIN_SCALE, rng, work, mv, value,
            scores, reward,
        )  # fmt: skip
    else:
        move = search.search(
            root,
            ctx,
            n_iter,
            params[M_C],
            np.int64(params[M_REWARD]),
            MARGIN_SCALE,
            rng,
            work,
            tree,
            value,
            logs,
            mv,
            untried,
            mark,
            path,
            scores,
            reward,
        )
    if move < 0:
        return np.int64(-1)
    return move - kind * 64
