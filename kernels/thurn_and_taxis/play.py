"""Thurn and Taxis entry kernels: play a batch of games (``play_batch``, ``play_batch_mcts``),
their output and scratch arrays, and a game's setup and stored row.

Records are played by the same entry kernels (with logs); replays apply moves with
``kernels.thurn_and_taxis.policies.apply_move`` (the engine of random runs).
"""

import numpy as np
from numba import njit

from kernels.rng import STREAM_DEAL, STREAM_POLICY, game_seed, seed_state
from kernels.thurn_and_taxis.layout import (
    MAX_ACTIONS,
    MAX_SEATS,
    N_CARDS,
    N_STACKS,
    NO_MOVE,
    POL_MCTS_RESTRICTED,
    S_ALOG_N,
    S_CARRIAGE,
    S_CLOSED_LEN_SUM,
    S_CUR,
    S_END_REASON,
    S_END_SEAT,
    S_FORBID_AVOIDED,
    S_FORBID_FORCED,
    S_HOUSES_LEFT,
    S_N_CLOSED,
    S_N_FORCED,
    S_N_OFFICIAL,
    S_OVER,
    S_PHASE,
    S_ROUTE_HIST,
    S_TILE_PTS,
    S_TILES_TAKEN,
    S_TURN,
    ST_SIZE,
    ZERO,
)
from kernels.thurn_and_taxis.policies import _advance, count_restricted
from kernels.thurn_and_taxis.rules import (
    deal_deck,
    init_stacks,
    init_state,
    restricts_phase,
    score_final,
    winner_of,
)
from kernels.thurn_and_taxis.search_steps import (
    choose_mcts,
    search_capacity,
    search_scratch,
)


@njit(cache=True, _nrt=False)
def setup_game(state, tables, n_players, game_index, root_seed, deck, deal_rng, rngs):
    """Deal game ``game_index`` (§3) into ``state`` and ``deck`` and seed its streams in place:
    ``deal_rng`` (uint64[4]) from ``STREAM_DEAL``, row k of ``rngs`` (uint64[MAX_SEATS, 4])
    from ``STREAM_POLICY + k`` (as ``kernels.rng.new_state``, without allocating)."""
    seed_state(
        deal_rng, game_seed(np.uint64(root_seed), np.uint64(game_index), np.uint64(STREAM_DEAL))
    )
    deal_deck(deal_rng, deck)
    init_state(state, n_players, deck)
    init_stacks(state, tables)
    for p in range(n_players):
        seed_state(
            rngs[p],
            game_seed(np.uint64(root_seed), np.uint64(game_index), np.uint64(STREAM_POLICY + p)),
        )


@njit(cache=True)
def _store_game(state, tables, n_players, g, n_plies, outputs, points):
    """Row ``g`` of the ``play_batch`` outputs ``outputs`` from the final state ``state``
    (``points`` int64[MAX_SEATS] scratch)."""
    (
        out_score,
        out_win,
        out_plies,
        out_turns,
        out_end_reason,
        out_end_seat,
        out_officials,
        out_forced,
        out_carriage,
        out_houses_left,
        out_tile_pts,
        out_closed,
        out_closed_len,
        out_route_hist,
        out_tiles_taken,
        out_forbid_avoided,
        out_forbid_forced,
    ) = outputs
    out_plies[g] = n_plies
    score_final(state, tables, points)
    w = winner_of(state, points)
    if w >= 0:
        out_win[g, w] = 1.0
    else:
        best = points[0]
        for p in range(1, n_players):
            best = max(best, points[p])
        k = 0
        for p in range(n_players):
            if points[p] == best:
                k += 1
        for p in range(n_players):
            if points[p] == best:
                out_win[g, p] = 1.0 / k
    out_turns[g] = state[S_TURN]
    out_end_reason[g] = state[S_END_REASON]
    out_end_seat[g] = state[S_END_SEAT]
    for p in range(n_players):
        out_score[g, p] = points[p]
        for o in range(5):
            out_officials[g, p, o] = state[S_N_OFFICIAL + p * 5 + o]
        out_forced[g, p] = state[S_N_FORCED + p]
        out_carriage[g, p] = state[S_CARRIAGE + p]
        out_houses_left[g, p] = state[S_HOUSES_LEFT + p]
        out_tile_pts[g, p] = state[S_TILE_PTS + p]
        out_closed[g, p] = state[S_N_CLOSED + p]
        out_closed_len[g, p] = state[S_CLOSED_LEN_SUM + p]
        out_forbid_avoided[g, p] = state[S_FORBID_AVOIDED + p]
        out_forbid_forced[g, p] = state[S_FORBID_FORCED + p]
    for k in range(23):
        out_route_hist[g, k] = state[S_ROUTE_HIST + k]
    for s in range(N_STACKS):
        out_tiles_taken[g, s] = state[S_TILES_TAKEN + s]


#: the outputs of ``play_batch`` (name, dtype, shape after (n_games,): "p" = n_players)
OUTPUTS = (
    ("score", np.int64, "p"),  # final points (§5)
    ("win", np.float64, "p"),  # 1 for the tie-break winner (§5), shared equally if no holder
    ("plies", np.int32, ""),  # decisions taken
    ("turns", np.int32, ""),  # turns played
    ("end_reason", np.int8, ""),  # END_CARRIAGE / END_HOUSES / END_CAP
    ("end_seat", np.int8, ""),  # seat that took the game-end tile (-1)
    ("officials", np.int32, "p5"),  # officials used (index OFF_*; forced Postmaster included)
    ("forced", np.int32, "p"),  # forced Postmaster turns
    ("carriage", np.int8, "p"),  # highest carriage (0 = none)
    ("houses_left", np.int8, "p"),
    ("tile_pts", np.int16, "p"),
    ("closed", np.int16, "p"),  # routes closed
    ("closed_len", np.int32, "p"),  # sum of closed route lengths
    ("route_hist", np.int32, "23"),  # closed routes by length (index = length)
    ("tiles_taken", np.int8, "10"),  # tiles taken per stack
    # restricted play (rules §11): real decisions with a forbidden option avoided / forced
    ("forbid_avoided", np.int64, "p"),
    ("forbid_forced", np.int64, "p"),
)


def new_outputs(n_games, n_players):
    """The zeroed output arrays of ``play_batch`` (a tuple in ``OUTPUTS`` order), allocated by
    NumPy outside the kernels (no compile)."""
    dims = {"": (), "p": (n_players,), "p5": (n_players, 5), "23": (23,), "10": (N_STACKS,)}
    return tuple(np.zeros((n_games,) + dims[d], dtype=t) for _, t, d in OUTPUTS)


def new_scratch(log_actions=0, log_reshuffles=0):
    """The scratch of ``play_batch``: (state int64[ST_SIZE], deck int64[66], deal stream
    uint64[4], policy streams uint64[MAX_SEATS, 4], actions int64[MAX_ACTIONS], empty reshuffle
    script int64[0], action log int64[max(1, log_actions)], reshuffle log
    int64[max(1, log_reshuffles)], points int64[MAX_SEATS]). A log of size 1 logs nothing."""
    return (
        np.zeros(ST_SIZE, dtype=np.int64),
        np.zeros(N_CARDS, dtype=np.int64),
        np.zeros(4, dtype=np.uint64),
        np.zeros((MAX_SEATS, 4), dtype=np.uint64),
        np.zeros(MAX_ACTIONS, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
        np.full(max(1, log_actions), -1, dtype=np.int64),
        np.zeros(max(1, log_reshuffles), dtype=np.int64),
        np.zeros(MAX_SEATS, dtype=np.int64),
    )


# Numba's reference counting (atomic NRT_incref/NRT_decref calls on every array passed
# through the inlined helpers) cost about two thirds of the time of the play loop; the refcount
# pruning pass cannot remove them across its many branches (numba/numba#2345, #2350). The loop
# allocates nothing (outputs and scratch come from NumPy, ``new_outputs``, ``new_scratch``), so
# it is compiled without NRT (``_nrt=False``, the Numba developers' workaround in those issues):
# 2.9x faster, same results. Everything it calls must not allocate (a compile error says so).
#
# Compile time: Numba links the machine code of every callee into each compiled
# caller and optimises it again, and an ``inline="always"`` helper is copied (as Numba IR) into
# every caller. So the engine is compiled once, in ``legal_moves`` and ``_advance`` (their
# phase steps inlined into them), and called from here, from the search and from the replay;
# the game loop is inlined into this single entry kernel, which also plays the games of records
# (with logs), so a run, its records and their replays compile the engine once.
@njit(cache=True, _nrt=False)
def play_batch(
    first_game_index,
    n_games,
    root_seed,
    n_players,
    policy_ids,
    policy_params,
    variant,
    tables,
    outputs,
    scratch,
    restrictions,
):
    """Play games ``first_game_index .. + n_games - 1``; one row per game in each output.

    Parameters
    ----------
    first_game_index, n_games : int64
    root_seed : uint64
        The deck is shuffled from stream ``STREAM_DEAL`` (also used for reshuffles), seat k's
        policy draws from ``STREAM_POLICY + k``: game i depends only on (root_seed, i), and
        every policy sees the same deal.
    n_players : int64
        2..4.
    policy_ids : int64[n_players]  (no ``POL_MCTS``: see ``play_batch_mcts``)
        A restricted seat's id is its policy's plus ``POL_RESTRICTED`` (rules §11).
    policy_params : float64[n_players, >= N_SEAT_PARAMS], or None when no seat plays ``route``
        and none is restricted (then no ``route`` code is compiled, see ``_advance``)
    variant : int64[N_VARIANT_SLOTS]
    tables : int64[TAB_SIZE]
    outputs : tuple
        ``new_outputs(n_games, n_players)``, written in place (``OUTPUTS``: name, dtype, shape).
    restrictions : int64[n_players] or None
        Each seat's forbid mask (rules §11; a restricted seat's id is its policy's plus
        ``POL_RESTRICTED``), None when no seat is restricted (no restricted-play code compiled).
    scratch : tuple
        ``new_scratch(...)``; after the call it holds the last game: its final state
        (``state[S_ALOG_N]`` = decisions taken), dealt deck, action log (if longer than 1) and
        reshuffle log (if longer than 1: for each reshuffle, the pile size then the new deck
        order).

    Notes
    -----
    jit-compiled without NRT; caller validates.
    """
    state, deck, deal_rng, rngs, actions, script, action_log, reshuffle_log, points = scratch
    for g in range(n_games):
        setup_game(state, tables, n_players, first_game_index + g, root_seed, deck, deal_rng, rngs)
        # every seat plays random or route (the Python side checks): the whole game
        plies = _advance(
            state,
            tables,
            variant,
            NO_MOVE,
            policy_ids,
            policy_params,
            rngs,
            actions,
            deal_rng,
            script,
            reshuffle_log,
            action_log,
            ZERO,
            restrictions,
        )
        state[S_ALOG_N] = plies
        _store_game(state, tables, n_players, g, plies, outputs, points)


@njit(cache=True)
def play_batch_mcts(
    first_game_index,
    n_games,
    root_seed,
    n_players,
    policy_ids,
    policy_params,
    variant,
    tables,
    outputs,
    scratch,
    restrictions,
):
    """``play_batch`` (same arguments, outputs and streams) for lineups with ``mcts`` seats:
    the search is compiled only into this entry kernel (with NRT: the search allocates)."""
    state, deck, deal_rng, rngs, actions, script, action_log, reshuffle_log, points = scratch
    for g in range(n_games):
        # fresh search scratch per game: a game's result must not depend on its chunk
        mcts_scratch = search_scratch(
            tables, variant, search_capacity(policy_ids, policy_params), restrictions
        )
        setup_game(state, tables, n_players, first_game_index + g, root_seed, deck, deal_rng, rngs)
        a = NO_MOVE
        plies = ZERO
        while True:
            plies = _advance(
                state,
                tables,
                variant,
                a,
                policy_ids,
                policy_params,
                rngs,
                actions,
                deal_rng,
                script,
                reshuffle_log,
                action_log,
                plies,
                restrictions,
            )
            if state[S_OVER] != 0:
                break
            p = state[S_CUR]  # an mcts seat is to move
            if restrictions is not None:  # pruned at compile time: no restricted seat
                if policy_ids[p] == POL_MCTS_RESTRICTED:
                    mask = restrictions[p]  # a real decision: counted (rules §11)
                    if restricts_phase(state[S_PHASE], mask):
                        count_restricted(state, tables, variant, mask, actions)
            a = choose_mcts(state, policy_params[p], rngs[p], mcts_scratch)
        state[S_ALOG_N] = plies
        _store_game(state, tables, n_players, g, plies, outputs, points)
