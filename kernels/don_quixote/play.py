"""Don Quixote entry kernels: play a batch of games (with records), the game loop.

Entry points: ``play_batch_simple`` (random / greedy / heuristic) and ``play_batch_search``
(also rollout, hindsight, oracle and mcts), chosen by ``entry_for``: the simple one compiles
no planning or search code; both also write the deal and moves of the first games (records).
"""

import numpy as np
from numba import njit

from kernels.don_quixote.hindsight import choose_hindsight, r3_choose
from kernels.don_quixote.layout import (
    FORBID_COL,
    HAND_SLOTS,
    HEUR_DEFAULT,
    LAST_ROT_RANDOM,
    LOGN,
    M_ENDGAME,
    N_HEUR,
    N_NODES,
    N_PLACE,
    O_BEAM,
    O_ITERS,
    POL_HEURISTIC,
    POL_HINDSIGHT,
    POL_ORACLE,
    POL_ROLLOUT,
    ROT_BOTH,
    ROUND_END,
    SC_SAVE,
    V_LAST_ROT,
)
from kernels.don_quixote.policies import PlacementScratch, SeatOutputs, _run_simple
from kernels.don_quixote.restrict import (
    ALLOW_ALL,
    RS_AVOIDED,
    RS_FORCED,
    RS_MASK,
    RS_WIDTH,
    restrict,
)
from kernels.don_quixote.rules import deal, place, reveal, round_of, score_breakdown, setup_estate
from kernels.don_quixote.search_steps import (
    _choose_rollout,
    choose_mcts,
    oracle_full,
    search_capacity,
    search_scratch,
)
from kernels.rng import STREAM_POLICY, new_state


# ---------------------------------------------------------------- playing games
# Two entry kernels with the same arguments share one game loop (``_play_games``):
# ``play_batch_simple`` random / greedy / heuristic (no planning or search code, so that a
# first run of these compiles in seconds), ``play_batch_search`` every policy. ``entry_for``
# picks one. (A third entry for rollout / hindsight / oracle without mcts saved about 10% of
# their first compile, the search's share, but compiled the whole engine once more for
# every lineup that mixes them with mcts, the test suite's included.) What
# a run leaves out is an argument that is None (``plan``, ``search_scratch``): Numba prunes
# the branch that uses it before typing, so that code is never compiled. Records are written
# by the same kernels (``out_record``), so a run's records share the compiled code of its
# games.
# ``_play_simple`` is inlined (``inline="always"``): each compiled level of a call chain
# optimises again the machine code of everything below it (about 0.5 s per level here), and it
# only passes arguments on. It allocates nothing, so the random and greedy games keep their
# reference-count-free placements (see ``_run_simple``).
@njit(cache=True, inline="always")
def _play_simple(
    state,
    tables,
    cells,
    seq,
    policy_id,
    params,
    last_rotmask,
    rng,
    outputs,
    scratch,
    rs,
):
    """One player's 22 placements by random / greedy / heuristic on estate ``state`` (castles
    placed); returns the total.

    Parameters
    ----------
    cells : int64[22]  position-card order; seq : int64[n_land]  this player's reveal order
    policy_id : int  policy id (POL_*); params : float64[:]  its parameter vector
    last_rotmask : int  allowed orientations of the set-aside tile (``ROT_BOTH`` or one bit)
    rng : uint64[4]  the seat's policy stream
    outputs : ``SeatOutputs``  out: per-scoring, per-category points (int64[rows, 3, 6], into
        its row) and (tile, rotation) of each placement (int64[22, 2])
    scratch : (hand int64[HAND_SLOTS], ``PlacementScratch``, weights float64[N_HEUR])
    rs : None or int64[RS_WIDTH]  the seat's restriction (``kernels.don_quixote.restrict``)
    """
    hand, placement, weights = scratch
    for k in range(N_HEUR):
        weights[k] = params[k] if policy_id == POL_HEURISTIC else HEUR_DEFAULT[k]
    return _run_simple(
        state,
        tables,
        cells,
        seq,
        np.int64(0),
        hand,
        np.int64(0),
        policy_id,
        weights,
        last_rotmask,
        rng,
        placement,
        outputs,
        rs,
    )


@njit(cache=True)
def _play_planned(
    state,
    tables,
    cells,
    seq,
    policy_id,
    params,
    last_rotmask,
    last_rand,
    rng,
    outputs,
    scratch,
    plan,
    search_scratch,
    rs,
):
    """One player's 22 placements by rollout, oracle or mcts; returns the total.

    The oracle plans the whole game first (``oracle_full`` into ``plan`` int64[22, 2]); the
    rollout, hindsight and mcts policies choose at each placement from what the player has
    seen (mcts with ``endgame=1`` plays round 3 by the exact solver ``r3_choose``). Other
    arguments as in ``_play_simple``, and ``last_rand``: variant ``last_tile_rotation=random``
    (rollouts sample the orientation), ``plan`` and ``search_scratch`` as in ``_play_games``,
    ``rs`` None or the seat's restriction (``kernels.don_quixote.restrict``): each decision's
    permitted options (counted in ``rs``) bound the chooser, whose own search of the seat's
    later placements obeys the mask too (docs/rules/don_quixote.md §8; the oracle is not
    restricted, ``mcsim.games.don_quixote.prepare`` refuses it).
    """
    hand, placement, _ = scratch
    out_breakdown, breakdown_row, out_moves = outputs
    plan[:, :] = 0
    r3_out = np.zeros(1)
    if policy_id == POL_ORACLE:
        oracle_full(
            state,
            tables,
            cells,
            seq,
            last_rotmask,
            int(params[O_BEAM]),
            int(params[O_ITERS]),
            rng,
            plan,
        )
    total = np.int64(0)
    nh = np.int64(0)
    for pos in range(N_PLACE):
        nh = reveal(hand, nh, seq, pos)
        rnd = round_of(pos)
        rotmask = last_rotmask if pos == N_PLACE - 1 else ROT_BOTH
        fmask = np.int64(0)
        allow = ALLOW_ALL
        if rs is not None:
            fmask = rs[RS_MASK]
            # the chooser sees the hand from ``first``: the set-aside tile alone at the last
            first = nh - 1 if pos == N_PLACE - 1 else 0
            allow = restrict(
                state, tables, cells[pos], hand[first:nh], nh - first, rotmask, rs,
                placement.log, placement.saved,
            )  # fmt: skip
            if first > 0 and allow != ALLOW_ALL:
                allow <<= np.int64(2 * first)
        if policy_id == POL_ORACLE:
            i = 0
            while hand[i] != plan[pos, 0]:
                i += 1
            o = plan[pos, 1]
        elif policy_id == POL_HINDSIGHT:
            i, o = choose_hindsight(
                params, state, tables, cells, seq, pos, hand, nh, rotmask, last_rand, rng, fmask,
                allow,
            )  # fmt: skip
        elif policy_id == POL_ROLLOUT:
            i, o = _choose_rollout(
                params,
                state,
                tables,
                cells,
                seq,
                pos,
                hand,
                nh,
                rotmask,
                last_rand,
                rng,
                placement,
                rs,
                allow,
            )
        elif search_scratch is None:
            # an entry without search (Numba keeps one of these two branches)
            raise ValueError("an mcts seat needs play_batch_search")
        elif rnd == 3 and params[M_ENDGAME] >= 1:
            i, o = r3_choose(
                state, tables, cells, seq, pos, hand, nh, rotmask, last_rand, r3_out, fmask, allow
            )
        else:
            i, o = choose_mcts(
                params,
                state,
                tables,
                cells,
                seq,
                pos,
                hand,
                nh,
                total,
                rotmask,
                last_rand,
                rng,
                search_scratch,
                rs,
            )
        t = hand[i]
        hand[i] = hand[nh - 1]
        nh -= 1
        out_moves[pos, 0] = t
        out_moves[pos, 1] = o
        place(state, tables, cells[pos], t, o, placement.log)
        if pos == ROUND_END[rnd - 1]:
            total += score_breakdown(state, rnd, out_breakdown[breakdown_row, rnd - 1])
    return total


@njit(cache=True)
def _play_games(
    first_game_index,
    n_games,
    root_seed,
    policy_ids,
    policy_params,
    variant,
    tables,
    out_score,
    out_breakdown,
    out_record,
    plan,
    search_scratch,
    out_forbid,
):
    """The game loop of the entry kernels: their arguments (``out_forbid`` None or int64[n_games,
    seats, 2], see ``play_batch_simple``), then

    plan : int64[22, 2] scratch of the planning policies (rollout, oracle, mcts), or None when
        every seat is random / greedy / heuristic (then only those are compiled)
    search_scratch : ``search_scratch``, or None when no seat is ``mcts`` (then
        ``kernels.search`` is not compiled)

    Each seat plays its 22 placements on its own estate (castles placed) with
    ``_play_simple`` or ``_play_planned``; seat p's totals go to ``out_score[g, p]``.
    """
    P = policy_ids.shape[0]
    n_land = tables.shape[0] - 2
    rec_castles, rec_cells, rec_seq, rec_last_rot, rec_moves = out_record
    castles = np.empty(2, dtype=np.int64)
    cells = np.empty(N_PLACE, dtype=np.int64)
    seq = np.empty((P, n_land), dtype=np.int64)
    last_rot = np.empty(P, dtype=np.int64)
    moves = np.empty((N_PLACE, 2), dtype=np.int64)
    scratch = (
        np.empty(HAND_SLOTS, dtype=np.int64),
        PlacementScratch(
            np.zeros(LOGN, dtype=np.int64),
            np.zeros(SC_SAVE, dtype=np.int64),
            np.zeros(N_NODES, dtype=np.int64),
        ),
        np.zeros(N_HEUR, dtype=np.float64),
    )
    last_rand = variant[V_LAST_ROT] == LAST_ROT_RANDOM
    rs = np.zeros(RS_WIDTH, dtype=np.int64)
    for g in range(n_games):
        gi = first_game_index + g
        kept = g < rec_castles.shape[0]  # a recorded game: its deal and moves go to out_record
        g_castles = rec_castles[g] if kept else castles
        g_cells = rec_cells[g] if kept else cells
        g_seq = rec_seq[g] if kept else seq
        g_last_rot = rec_last_rot[g] if kept else last_rot
        deal(root_seed, gi, P, n_land, g_castles, g_cells, g_seq, g_last_rot)
        for p in range(P):
            state = setup_estate(tables, g_castles)
            rng = new_state(root_seed, gi, STREAM_POLICY + p)
            mask = (1 << g_last_rot[p]) if last_rand else ROT_BOTH
            policy_id = policy_ids[p]
            m = rec_moves[g, p] if kept else moves
            outputs = SeatOutputs(out_breakdown[g], p, m)
            if out_forbid is not None:
                rs[RS_MASK] = np.int64(policy_params[p, FORBID_COL[policy_id]])
                rs[RS_AVOIDED] = 0
                rs[RS_FORCED] = 0
            # with plan None, Numba prunes the else branch by the argument's type
            if out_forbid is not None and (plan is None or policy_id <= POL_HEURISTIC):
                total = _play_simple(
                    state,
                    tables,
                    g_cells,
                    g_seq[p],
                    policy_id,
                    policy_params[p],
                    mask,
                    rng,
                    outputs,
                    scratch,
                    rs,
                )
            elif plan is None or policy_id <= POL_HEURISTIC:
                total = _play_simple(
                    state,
                    tables,
                    g_cells,
                    g_seq[p],
                    policy_id,
                    policy_params[p],
                    mask,
                    rng,
                    outputs,
                    scratch,
                    None,
                )
            elif out_forbid is not None:
                total = _play_planned(
                    state,
                    tables,
                    g_cells,
                    g_seq[p],
                    policy_id,
                    policy_params[p],
                    mask,
                    last_rand,
                    rng,
                    outputs,
                    scratch,
                    plan,
                    search_scratch,
                    rs,
                )
            else:
                total = _play_planned(
                    state,
                    tables,
                    g_cells,
                    g_seq[p],
                    policy_id,
                    policy_params[p],
                    mask,
                    last_rand,
                    rng,
                    outputs,
                    scratch,
                    plan,
                    search_scratch,
                    None,
                )
            out_score[g, p] = total
            if out_forbid is not None:
                out_forbid[g, p, 0] = rs[RS_AVOIDED]
                out_forbid[g, p, 1] = rs[RS_FORCED]


@njit(cache=True)
def play_batch_simple(
    first_game_index,
    n_games,
    root_seed,
    policy_ids,
    policy_params,
    variant,
    tables,
    out_score,
    out_breakdown,
    out_record,
    out_forbid=None,
):
    """Play ``n_games`` games (indices ``first_game_index ..``) whose seats are all random,
    greedy or heuristic (ids <= POL_HEURISTIC; anything else raises ValueError).

    Parameters
    ----------
    policy_ids : int64[seats]; policy_params : float64[seats, n_params]
    variant : int64[n_variants]  codes in SPEC.variants order (V_LAST_ROT)
    tables : int64[T, 2, TW]  compiled tile set, T = n_land + 2 (castles last)
    out_score : int64[n_games, seats]  out: game totals (points)
    out_breakdown : int64[n_games, seats, 3, 6]  out: points per scoring and category (CAT_NAMES)
    out_record : tuple of int64 arrays with n_rec <= n_games rows, the deal and moves of the
        first n_rec games: castles [n_rec, 2] (cells of the 6- and 4-castle), cells [n_rec,
        22] (position-card order), seq [n_rec, seats, n_land] (reveal orders), last_rot
        [n_rec, seats] (set-aside tile orientation drawn), moves [n_rec, seats, 22, 2] (tile,
        rotation per placement); ``empty_record`` in ``mcsim.games.don_quixote`` for none.
    out_forbid : None or int64[n_games, seats, 2]  restricted play (docs/rules/don_quixote.md
        §8): None plays every seat unrestricted and compiles no restricted-play code (a seat
        whose mask, parameter column ``FORBID_COL[policy id]``, is not 0 then raises
        ValueError); an array applies each seat's mask and receives per game and seat the
        decisions that avoided a forbidden option and those where every option was forbidden.

    Notes
    -----
    Game i depends only on (root_seed, i): the deal comes from stream STREAM_DEAL (common to
    every policy) and seat k's choices from STREAM_POLICY + k. Players do not interact (§3.1.5).
    The three entry kernels give the same results for the seats they can play.
    """
    for p in range(policy_ids.shape[0]):
        if policy_ids[p] > POL_HEURISTIC:
            raise ValueError("play_batch_simple plays random, greedy and heuristic seats only")
    _check_forbid(policy_ids, policy_params, out_forbid)
    _play_games(
        first_game_index,
        n_games,
        root_seed,
        policy_ids,
        policy_params,
        variant,
        tables,
        out_score,
        out_breakdown,
        out_record,
        None,
        None,
        out_forbid,
    )


@njit(cache=True)
def play_batch_search(
    first_game_index,
    n_games,
    root_seed,
    policy_ids,
    policy_params,
    variant,
    tables,
    out_score,
    out_breakdown,
    out_record,
    out_forbid=None,
):
    """``play_batch_simple`` that also plays rollout, hindsight, oracle and mcts seats
    (``choose_mcts``); the mcts tree scratch is sized by ``search_capacity`` (2 nodes without
    an mcts seat)."""
    _check_forbid(policy_ids, policy_params, out_forbid)
    _play_games(
        first_game_index,
        n_games,
        root_seed,
        policy_ids,
        policy_params,
        variant,
        tables,
        out_score,
        out_breakdown,
        out_record,
        np.zeros((N_PLACE, 2), dtype=np.int64),
        search_scratch(tables, search_capacity(policy_ids, policy_params)),
        out_forbid,
    )


@njit(cache=True)
def _check_forbid(policy_ids, policy_params, out_forbid):
    """ValueError when a seat's forbid mask is set but ``out_forbid`` is None (the mask would
    be ignored)."""
    if out_forbid is None:
        for p in range(policy_ids.shape[0]):
            if policy_params[p, FORBID_COL[policy_ids[p]]] != 0:
                raise ValueError("a restricted seat (forbid mask set) needs out_forbid")


def entry_for(policy_ids):
    """The entry kernel for a lineup (policy ids int64[seats]): ``play_batch_simple`` when
    every seat is random, greedy or heuristic, else ``play_batch_search``."""
    if (policy_ids <= POL_HEURISTIC).all():
        return play_batch_simple
    return play_batch_search
