"""Sacred Hill kernel: 45 hills as uint64 bitboards, move generation, policies, playouts.

Rules: ``docs/rules/sacred_hill.md``. The package has the modules every game kernel has:

=================  ===========================================================================
module             holds
=================  ===========================================================================
``layout``         board geometry (bitboard masks), the state array's slots (``S_*``), move,
                   kind, phase, policy and parameter codes; no Numba
``rules``          kingdoms, sieges and captures, legal moves, apply, final score, perft
``policies``       random, ``greedy`` and ``tactician`` (1-ply evaluation of the §6 hints)
``search_steps``   the six steps of ``kernels.search`` (registered on import) and ``mcts``
``play``           the compiled entry points: ``play_batch``, ``play_batch_search``
=================  ===========================================================================

Names: ``state`` is one game's ``uint64[S_SIZE]`` array (``work``: the search's copy);
``transition`` (``TRANSITION_*``, §3.2) and ``zone`` (proximity masks uint64[64], §2) are the
variant's two rules (``rules``: both, a ``SacredHillRules``); ``policy_ids`` / ``policy_params`` the seats' policies (``policy_id`` /
``params``: one seat's); ``rng`` one uint64[4] stream, ``rngs`` one per seat; ``moves`` a
legal-move bitboard and ``kind`` its ``KIND_*``; ``record`` one game's moves; ``points`` an
int64[2] points buffer; ``scratch`` the ``mcts`` scratch (``search_scratch``); ``ctx`` a
``SacredHillSearchContext``; ``out_<what>`` the batch's output arrays (``outputs``: all, a ``SacredHillOutputs``).

The names below are the kernel's public interface (what ``mcsim.games.sacred_hill`` uses).
"""

from kernels.sacred_hill import layout, play, policies, rules, search_steps
from kernels.sacred_hill.layout import (
    BB_KNIGHT,
    BB_ORTH,
    BB_VALID,
    BB_ZONE_CHEBYSHEV8,
    BB_ZONE_KNIGHT12,
    CELL_NAMES,
    CELLS,
    COL_NAMES,
    KIND_BUILD_ADJACENT,
    KIND_BUILD_ANYWHERE,
    KIND_CAPTURE,
    KIND_MANOEUVRE,
    KIND_PASS,
    KIND_TERMINAL,
    MARGIN_SCALE,
    MAX_PLIES,
    MOVE_PASS,
    N_COLS,
    N_HEURISTIC_PARAMS,
    N_HILLS,
    N_MCTS_PARAMS,
    N_ROWS,
    P_EPS,
    P_MCTS_BASE,
    P_MCTS_C,
    P_MCTS_ITER,
    P_MCTS_REWARD,
    P_MCTS_ROLLOUT,
    P_MCTS_ROLLOUT_EPS,
    PHASE_BATTLE,
    PHASE_GRACE,
    PHASE_MANOEUVRE,
    POLICY_GREEDY,
    POLICY_MCTS,
    POLICY_RANDOM,
    POLICY_TACTICIAN,
    S_CAPTURES,
    S_FORTS,
    S_KNIGHT,
    S_MANOEUVRE_FORTS,
    S_PASSES,
    S_PHASE,
    S_PLIES,
    S_SIZE,
    S_TO_MOVE,
    S_ZONE,
    TRANSITION_BOX,
    TRANSITION_WEB2014,
    WIDTH,
)
from kernels.sacred_hill.play import (
    SacredHillOutputs,
    SacredHillRules,
    play_batch,
    play_batch_search,
    play_game,
)
from kernels.sacred_hill.policies import choose_move
from kernels.sacred_hill.rules import (
    apply_move,
    besieged_by,
    captures_for,
    count_kingdoms,
    is_terminal,
    legal_moves,
    new_game,
    orth_neighbours,
    perft,
    points_from,
    recompute_unions,
    score_final,
)
from kernels.sacred_hill.search_steps import choose_move_search, search_capacity, search_scratch

__all__ = [
    "layout",
    "play",
    "policies",
    "rules",
    "search_steps",
    "BB_KNIGHT",
    "BB_ORTH",
    "BB_VALID",
    "BB_ZONE_CHEBYSHEV8",
    "BB_ZONE_KNIGHT12",
    "CELL_NAMES",
    "CELLS",
    "COL_NAMES",
    "KIND_BUILD_ADJACENT",
    "KIND_BUILD_ANYWHERE",
    "KIND_CAPTURE",
    "KIND_MANOEUVRE",
    "KIND_PASS",
    "KIND_TERMINAL",
    "MARGIN_SCALE",
    "MAX_PLIES",
    "MOVE_PASS",
    "N_COLS",
    "N_HEURISTIC_PARAMS",
    "N_HILLS",
    "N_MCTS_PARAMS",
    "N_ROWS",
    "P_EPS",
    "P_MCTS_BASE",
    "P_MCTS_C",
    "P_MCTS_ITER",
    "P_MCTS_REWARD",
    "P_MCTS_ROLLOUT",
    "P_MCTS_ROLLOUT_EPS",
    "PHASE_BATTLE",
    "PHASE_GRACE",
    "PHASE_MANOEUVRE",
    "POLICY_GREEDY",
    "POLICY_MCTS",
    "POLICY_RANDOM",
    "POLICY_TACTICIAN",
    "SacredHillOutputs",
    "SacredHillRules",
    "S_CAPTURES",
    "S_FORTS",
    "S_KNIGHT",
    "S_MANOEUVRE_FORTS",
    "S_PASSES",
    "S_PHASE",
    "S_PLIES",
    "S_SIZE",
    "S_TO_MOVE",
    "S_ZONE",
    "TRANSITION_BOX",
    "TRANSITION_WEB2014",
    "WIDTH",
    "apply_move",
    "besieged_by",
    "captures_for",
    "choose_move",
    "choose_move_search",
    "count_kingdoms",
    "is_terminal",
    "legal_moves",
    "new_game",
    "orth_neighbours",
    "perft",
    "play_batch",
    "play_batch_search",
    "play_game",
    "points_from",
    "recompute_unions",
    "score_final",
    "search_capacity",
    "search_scratch",
]
