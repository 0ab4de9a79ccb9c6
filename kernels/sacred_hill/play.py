"""Sacred Hill's compiled entry points: whole games in batches (with or without an ``mcts``
seat), move records, and the game loop they share."""

from collections import namedtuple

import numpy as np
from numba import njit

from kernels.bitboard import popcount
from kernels.rng import game_seed, seed_state
from kernels.sacred_hill.layout import (
    _ONE,
    _ZERO,
    KIND_TERMINAL,
    MAX_PLIES,
    N_POLICY_COLS,
    P_FORBID,
    POLICY_MCTS,
    S_CAPTURES,
    S_FORBID_AVOIDED,
    S_FORBID_FORCED,
    S_FORTS,
    S_MANOEUVRE_FORTS,
    S_PASSES,
    S_SIZE,
    S_TO_MOVE,
)
from kernels.sacred_hill.policies import choose_move, restrict
from kernels.sacred_hill.rules import apply_move, count_kingdoms, legal_moves, new_game, score_final
from kernels.sacred_hill.search_steps import (
    choose_move_search,
    search_capacity,
    search_new_game,
    search_played,
    search_scratch,
)

#: the variant's rules, passed to the batch entries as one argument: ``transition``
#: (``TRANSITION_BOX`` or ``TRANSITION_WEB2014``, §3.2) and ``zone`` (proximity masks
#: uint64[64], ``BB_ZONE_KNIGHT12`` or ``BB_ZONE_CHEBYSHEV8``, §2, §7 A2)
SacredHillRules = namedtuple("SacredHillRules", ["transition", "zone"])

#: the output arrays of a batch, allocated by the caller (``play_batch``'s docstring)
SacredHillOutputs = namedtuple(
    "SacredHillOutputs",
    [
        "points",
        "plies",
        "kingdoms",
        "territory",
        "captures",
        "manoeuvre_forts",
        "passes",
        "decided_by",
        "record",
        "forbid_avoided",
        "forbid_forced",
    ],
)


# ---------------------------------------------------------------- playouts
@njit(cache=True, inline="always")
def _seed(rng, root_seed, game_index, stream):
    """``rng.new_state(root_seed, game_index, stream)`` written into ``rng`` (uint64[4])."""
    seed_state(rng, game_seed(np.uint64(root_seed), np.uint64(game_index), np.uint64(stream)))


@njit(cache=True)
def play_game(
    state,
    root_seed,
    game_index,
    stream_base,
    policy_ids,
    policy_params,
    transition,
    zone,
    record,
    rngs,
    scratch,
):
    """Play one game from the empty board to the end; ``record`` (int16[MAX_PLIES] or
    length 0) receives the moves; ``rngs`` (uint64[2, 4]) receives the seats' policy streams;
    ``scratch`` is the ``mcts`` scratch (``search_scratch``) or None when no seat searches: then
    Numba prunes the search branch before typing it, so the search code is not compiled. With
    a scratch, the game starts with no kept tree (``search_new_game``) and every move played is
    noted for the seats that reuse their trees (``search_played``).
    A seat whose restricted-play mask (``policy_params[seat, P_FORBID]``, bits ``FORBID_*``) is
    not 0 chooses among its permitted legal moves (``policies.restrict``; all of them when
    every one is forbidden), counted in ``state[S_FORBID_AVOIDED + seat]`` and
    ``state[S_FORBID_FORCED + seat]``. Returns the number of plies."""
    new_game(state)
    if scratch is not None:
        search_new_game(scratch)  # a reusing mcts seat's tree is the game's own
    _seed(rngs[0], root_seed, game_index, stream_base)
    _seed(rngs[1], root_seed, game_index, stream_base + 1)
    ply = 0
    while True:
        moves, kind = legal_moves(state)
        if kind == KIND_TERMINAL or ply >= MAX_PLIES:
            break
        p = np.int64(state[S_TO_MOVE])
        rng = rngs[p]
        mask = np.uint64(policy_params[p, P_FORBID])
        if mask != _ZERO:  # restricted play: unrestricted seats never get here
            moves, status = restrict(state, moves, kind, mask)
            if status == 1:
                state[S_FORBID_AVOIDED + p] += _ONE
            elif status == 2:
                state[S_FORBID_FORCED + p] += _ONE
        if scratch is None:
            mv = choose_move(state, moves, kind, policy_ids[p], policy_params[p], rng, zone)
        else:
            mv = choose_move_search(
                state, moves, kind, policy_ids[p], policy_params[p], rng, zone, transition, scratch
            )
        if record.shape[0] > ply:
            record[ply] = mv
        if scratch is not None:
            search_played(scratch, ply, mv)
        apply_move(state, mv, kind, transition, zone)
        ply += 1
    return ply


@njit(cache=True)
def play_batch(
    first_game_index,
    n_games,
    root_seed,
    stream_base,
    policy_ids,
    policy_params,
    rules,
    outputs,
):
    """Play ``n_games`` complete games, game i seeded from ``(root_seed, first_game_index + i)``.

    Parameters
    ----------
    first_game_index, n_games : int
    root_seed : uint64
    stream_base : int
        RNG stream of seat 0's policy (seat 1 uses ``stream_base + 1``); ``STREAM_POLICY`` for a
        normal run, another value for independent mirror games.
    policy_ids : int64[2]
    policy_params : float64[2, N_POLICY_COLS]
        the seats' parameters; column ``P_FORBID`` holds the seat's restricted-play mask
        (an integer, bits ``FORBID_*``; 0 = unrestricted)
    rules : SacredHillRules
        ``transition`` (int: ``TRANSITION_BOX`` or ``TRANSITION_WEB2014``, §3.2) and ``zone``
        (uint64[64]: ``BB_ZONE_KNIGHT12`` or ``BB_ZONE_CHEBYSHEV8``, §2, §7 A2).
    outputs : SacredHillOutputs
        ``points``, ``kingdoms``, ``territory``, ``captures``, ``manoeuvre_forts``: int16[n, 2],
        final points (§3.5), kingdoms, forts on the board, captures made, forts built as
        Manoeuvres, per seat (seat 0 moves first); ``plies``, ``passes``: int16[n];
        ``decided_by``: int8[n], 1 kingdoms, 0 territory, -1 draw; ``record``:
        int16[n_rec, MAX_PLIES], moves of the first ``n_rec`` games (cell index,
        ``MOVE_PASS``; -1 after the end); ``forbid_avoided``, ``forbid_forced``: int16[n, 2],
        restricted play's decisions per seat that avoided a forbidden option / where every
        legal move was forbidden (0 for an unrestricted seat).

    Notes
    -----
    jit-compiled; the caller validates the inputs. An ``mcts`` seat needs
    ``play_batch_search`` (ValueError here), and so does a parameter matrix narrower than
    ``N_POLICY_COLS``.
    """
    if policy_params.shape[1] < N_POLICY_COLS:
        raise ValueError("policy_params needs N_POLICY_COLS columns (the forbid mask)")
    for p in range(policy_ids.shape[0]):
        if policy_ids[p] == POLICY_MCTS:
            raise ValueError("an mcts seat needs play_batch_search")
    state = np.zeros(S_SIZE, dtype=np.uint64)
    points = np.zeros(2, dtype=np.int64)
    empty_record = np.empty(0, dtype=np.int16)
    rngs = np.zeros((2, 4), dtype=np.uint64)
    _play_games(
        first_game_index,
        n_games,
        root_seed,
        stream_base,
        policy_ids,
        policy_params,
        rules,
        outputs,
        state,
        points,
        empty_record,
        rngs,
        None,
    )


@njit(cache=True)
def play_batch_search(
    first_game_index,
    n_games,
    root_seed,
    stream_base,
    policy_ids,
    policy_params,
    rules,
    outputs,
):
    """``play_batch`` for a lineup with an ``mcts`` seat (same arguments and results).

    A separate entry so that runs without a searching seat never compile ``kernels.search``
    (about half of the kernel's compile time); the Python side picks it when a policy id is
    ``POLICY_MCTS``. Other seats play exactly as in ``play_batch``.
    """
    if policy_params.shape[1] < N_POLICY_COLS:
        raise ValueError("policy_params needs N_POLICY_COLS columns (the forbid mask)")
    state = np.zeros(S_SIZE, dtype=np.uint64)
    points = np.zeros(2, dtype=np.int64)
    empty_record = np.empty(0, dtype=np.int16)
    rngs = np.zeros((2, 4), dtype=np.uint64)
    scratch = search_scratch(search_capacity(policy_ids, policy_params))
    _play_games(
        first_game_index,
        n_games,
        root_seed,
        stream_base,
        policy_ids,
        policy_params,
        rules,
        outputs,
        state,
        points,
        empty_record,
        rngs,
        scratch,
    )


# Numba's reference counting (atomic NRT_incref/NRT_decref on every array passed to the
# helpers) was about half of the time of random play; the refcount pruning pass cannot remove
# them across the branches (numba/numba#2345, #2350). The games allocate nothing (``play_batch``
# passes the state, points, empty record and random-state buffers), so they are compiled
# without NRT (``_nrt=False``, the workaround in those issues). Everything called from here must
# not allocate (a compile error says so if it does).
@njit(cache=True, _nrt=False)
def _play_games(
    first_game_index,
    n_games,
    root_seed,
    stream_base,
    policy_ids,
    policy_params,
    rules,
    outputs,
    state,
    points,
    empty_record,
    rngs,
    scratch,
):
    """The game loop of ``play_batch`` and ``play_batch_search`` (same arguments, then their
    scratch buffers; ``scratch`` is None without an ``mcts`` seat, see ``play_game``)."""
    transition, zone = rules
    (
        out_points,
        out_plies,
        out_kingdoms,
        out_territory,
        out_captures,
        out_manoeuvre_forts,
        out_passes,
        out_decided_by,
        out_record,
        out_forbid_avoided,
        out_forbid_forced,
    ) = outputs
    for g in range(n_games):
        record = out_record[g] if g < out_record.shape[0] else empty_record
        plies = play_game(
            state,
            np.uint64(root_seed),
            np.uint64(first_game_index + g),
            np.uint64(stream_base),
            policy_ids,
            policy_params,
            transition,
            zone,
            record,
            rngs,
            scratch,
        )
        out_decided_by[g] = score_final(state, points)
        out_plies[g] = plies
        out_passes[g] = state[S_PASSES]
        for s in range(2):
            out_points[g, s] = points[s]
            out_kingdoms[g, s] = count_kingdoms(state[S_FORTS + s])
            out_territory[g, s] = popcount(state[S_FORTS + s])
            out_captures[g, s] = state[S_CAPTURES + s]
            out_manoeuvre_forts[g, s] = state[S_MANOEUVRE_FORTS + s]
            out_forbid_avoided[g, s] = state[S_FORBID_AVOIDED + s]
            out_forbid_forced[g, s] = state[S_FORBID_FORCED + s]
