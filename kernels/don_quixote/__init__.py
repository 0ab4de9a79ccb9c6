"""Don Quixote kernel package: the Numba code of one player's estate, its policies and games.

Rule source: ``docs/rules/don_quixote.md``. Each module imports only from those above it in
this table (and ``kernels.rng`` / ``kernels.search`` / ``kernels.state_layout``):

================  ===========================================================================
module            holds
================  ===========================================================================
``layout``        geometry tables, tile table and estate layouts (``StateLayout``), policy /
                  parameter / variant codes; no Numba
``rules``         union-find networks, ``place`` / ``unplace``, scoring, the deal, reveals
``restrict``      restricted play: the forbid bits, which placements a mask forbids, the
                  per-decision filter and its avoided/forced counts (rules §8)
``policies``      random / greedy / heuristic choosers, ``heuristic_value``, ``_run_simple``
                  and its argument bundles ``PlacementScratch`` / ``SeatOutputs``
``search_steps``  rollout and oracle planners, the ``kernels.search`` steps (registered on
                  import), ``choose_mcts`` and its scratch
``hindsight``     the exact round-3 solver ``r3_choose`` / ``r3_value`` and the hindsight
                  policy ``choose_hindsight`` (full-knowledge beam ``hindsight_beam`` on
                  sampled futures)
``play``          the entry kernels ``play_batch_simple`` / ``play_batch_search``
                  (records included), the game loop, ``entry_for``
================  ===========================================================================

Names: ``state`` is one player's estate (int64[S_ROWS, N_NODES], also the search state),
``work`` a scratch copy of it, ``tables`` the compiled tile table (int64[T, 2, TW]) and
``n_tiles`` its T; ``variant``, ``policy_ids`` / ``policy_params``, a seat's ``policy_id`` and
``params``, heuristic ``weights``; ``rng`` one stream; ``scratch`` the per-call buffers
(``search_scratch`` where the play scratch meets the search's); a trial placement's scratch is
a ``PlacementScratch`` (the undo ``log``, the ``saved`` scalars, ``open_ends``: open road ends
per network root); outputs ``out_score``, ``out_breakdown``, ``out_record``, and one seat's
game a ``SeatOutputs`` (its breakdown rows, its row, its moves).

``import kernels.don_quixote as K`` gives the names below (``__all__``), the ones ``mcsim``,
the benchmarks and the shared tests use; anything else is imported from its module.
jit-compiled; the caller (``mcsim.games.don_quixote``) validates all input.
"""

from kernels.don_quixote import hindsight, layout, play, policies, restrict, rules, search_steps
from kernels.don_quixote.hindsight import choose_hindsight, r3_choose, r3_value
from kernels.don_quixote.layout import (
    BB_NEAR,
    BOUNDARY,
    CAT_NAMES,
    CELL_NAMES,
    CELLS,
    COL_NAMES,
    FORBID_COL,
    HALF_MASK,
    HEUR_DEFAULT,
    HS_BEAM,
    HS_ENDGAME,
    HS_ITERS,
    HS_K,
    LOGN,
    M_C,
    M_ENDGAME,
    M_ITER,
    M_ROLLOUT,
    M_WEIGHTS,
    MAX_SEARCH_LAND,
    MAXP,
    N_CAT,
    N_CELLS,
    N_COLS,
    N_NODES,
    N_PLACE,
    N_ROWS,
    P_LN,
    P_LS,
    P_LW,
    P_RE,
    P_RN,
    P_RS,
    POL_GREEDY,
    POL_HEURISTIC,
    POL_HINDSIGHT,
    POL_MCTS,
    POL_ORACLE,
    POL_RANDOM,
    POL_ROLLOUT,
    PORT_NAMES,
    ROT_PORT,
    ROUND_END,
    ROUND_SIZES,
    ROW_NAMES,
    SC,
    SC_FCELLS,
    SC_HAND,
    SC_LROT,
    SC_NH,
    SC_NPLACED,
    SC_POS,
    SC_SEQ,
    SEARCH_SCALE,
    T_CASTLE,
    T_CH,
    T_CVAL,
    T_DEF,
    T_KN,
    T_NP,
    T_PORTS,
    T_PP,
    T_SH,
    T_WM,
    TW,
)
from kernels.don_quixote.play import entry_for, play_batch_search, play_batch_simple
from kernels.don_quixote.restrict import (
    FORBID_CHURCH_APART,
    FORBID_KNIGHT_OFF_DEFENCE,
    FORBID_TURN_TILE,
    FORBID_WINDMILL_APART,
)
from kernels.don_quixote.rules import (
    deal,
    n_revealed,
    place,
    reveal,
    round_of,
    score_breakdown,
    score_round,
    setup_estate,
)
from kernels.don_quixote.search_steps import choose_mcts, search_root, search_scratch

__all__ = [
    # submodules
    "layout",
    "rules",
    "restrict",
    "policies",
    "search_steps",
    "hindsight",
    "play",
    # layout
    "BB_NEAR",
    "BOUNDARY",
    "CAT_NAMES",
    "CELL_NAMES",
    "CELLS",
    "COL_NAMES",
    "FORBID_COL",
    "HALF_MASK",
    "HEUR_DEFAULT",
    "HS_BEAM",
    "HS_ENDGAME",
    "HS_ITERS",
    "HS_K",
    "LOGN",
    "M_C",
    "M_ENDGAME",
    "M_ITER",
    "M_ROLLOUT",
    "M_WEIGHTS",
    "MAX_SEARCH_LAND",
    "MAXP",
    "N_CAT",
    "N_CELLS",
    "N_COLS",
    "N_NODES",
    "N_PLACE",
    "N_ROWS",
    "P_LN",
    "P_LS",
    "P_LW",
    "P_RE",
    "P_RN",
    "P_RS",
    "POL_GREEDY",
    "POL_HEURISTIC",
    "POL_HINDSIGHT",
    "POL_MCTS",
    "POL_ORACLE",
    "POL_RANDOM",
    "POL_ROLLOUT",
    "PORT_NAMES",
    "ROT_PORT",
    "ROUND_END",
    "ROUND_SIZES",
    "ROW_NAMES",
    "SC",
    "SC_FCELLS",
    "SC_HAND",
    "SC_LROT",
    "SC_NH",
    "SC_NPLACED",
    "SC_POS",
    "SC_SEQ",
    "SEARCH_SCALE",
    "T_CASTLE",
    "T_CH",
    "T_CVAL",
    "T_DEF",
    "T_KN",
    "T_NP",
    "T_PORTS",
    "T_PP",
    "T_SH",
    "T_WM",
    "TW",
    # restrict
    "FORBID_CHURCH_APART",
    "FORBID_KNIGHT_OFF_DEFENCE",
    "FORBID_TURN_TILE",
    "FORBID_WINDMILL_APART",
    # rules
    "deal",
    "n_revealed",
    "place",
    "reveal",
    "round_of",
    "score_breakdown",
    "score_round",
    "setup_estate",
    # search_steps
    "choose_mcts",
    "search_root",
    "search_scratch",
    # hindsight
    "choose_hindsight",
    "r3_choose",
    "r3_value",
    # play
    "entry_for",
    "play_batch_search",
    "play_batch_simple",
]
