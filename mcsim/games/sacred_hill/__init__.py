"""Sacred Hill (Murray Heasman, Tailten Games): 2 players, 45 hills, Manoeuvres then Battle.

Rules: ``docs/rules/sacred_hill.md``. Kernel: ``kernels.sacred_hill``.

Variants
--------
============  ==========================  =========  ==============================================
name          values                      default    meaning
============  ==========================  =========  ==============================================
transition    box | web2014               box        §3.2: after one player enters Battle, the other
                                                     makes one more Manoeuvre if able (box, the Czech
                                                     rulebook) or enters Battle at once (designer's
                                                     web rules of 12 Feb 2014)
zone          knight12 | chebyshev8       knight12   §2, §7 A2: hills "closer than a knight's move"
                                                     (8 around + 4 straight two-steps) or only the
                                                     8 surrounding hills
============  ==========================  =========  ==============================================

Policies
--------
``random`` uniform over legal moves; ``greedy`` a 1-ply kingdom/territory evaluation (§6.2, B1);
``tactician`` the Manoeuvre and safe-connection advice (§6.1-6.5: M1+M2, B1-B3). Both heuristics
share one parameter vector (see ``HEURISTIC_PARAMS``) and break ties uniformly at random.
``mcts`` is UCT (``kernels/search.py``; perfect information, so no determinization):
``iterations`` per decision, exploration ``c``, ``reward`` win or margin, playouts by
``rollout`` (random, greedy or tactician at its default weights, with ``rollout_eps``),
``rave=k`` RAVE (all-moves-as-first values blended into each move's value,
``kernels.sacred_hill.search_steps.search_rave``; 0 = plain UCT) and ``reuse=1`` (the seat
keeps its tree between its decisions and descends it along the plies played); see
``MCTS_PARAMS`` and benchmarks/RESULTS.md ("Search", Sacred Hill: RAVE and tree reuse) for how
the defaults were chosen. ``mcts1`` is the default ``mcts`` of 2026-12-02 (plain UCT, 1,000
iterations, c 0.7; ``MCTS1_PARAMS``), kept so that "against today's default" can be re-run.

Restricted play (§10): every policy takes ``forbid=NAME+NAME`` (``RESTRICTIONS``: Manoeuvres
next to an enemy fort or on an edge hill, Battle builds next to an enemy fort or into one's own
safe connection, builds into the opponent's siege); the per-game table then has
``forbid_avoided_<k>`` and ``forbid_forced_<k>``.

Seats: seat 0 moves first. Points are the rulebook's (§3.5): the winner scores 2 + the kingdom
(or territory) difference, the loser 0.

Matches (§3.6): with the same policy in both seats, games 2j and 2j+1 form match j (the player
who starts game 2j starts second in game 2j+1). With different policies each game i is paired
with a mirror game (same index, policies swapped, independent policy random numbers), so
``match_points_<k>`` is the match total of the policy that sits in seat k in the main game.
"""

from __future__ import annotations

import dataclasses

import numpy as np

import kernels.sacred_hill as K
from kernels.rng import STREAM_POLICY
from mcsim.games.base import (
    GameSpec,
    ParamSpec,
    PolicySpec,
    Prepared,
    RestrictionSpec,
    RunConfig,
    VariantSpec,
    forbid_mask_param,
    kept_mcts,
    no_ensemble,
    policy_arrays,
    restricted_seats,
)

DEFAULT_TRANSITION = "box"
DEFAULT_ZONE = "knight12"
CHUNK_SIZE = 50_000
CHUNK_MULTIPLE = 2  # match pairs (2j, 2j+1) never straddle two chunks
#: game-specific options (``--option KEY=VALUE``): none
OPTIONS: dict[str, str] = {}
MIRROR_STREAM = STREAM_POLICY + 2

_P = ParamSpec
#: parameter vector shared by ``greedy`` and ``tactician`` (kernel order, ``kernels.sacred_hill.P_*``)
HEURISTIC_PARAMS = (
    ("eps", "probability of a uniformly random move instead of the evaluated best", 0.0, 1.0),
    ("w_kingdoms", "weight of (enemy kingdoms - own kingdoms) change (B1)", None, None),
    ("w_territory", "weight of the territory margin change (B4)", None, None),
    ("w_suicide", "penalty for a lone fort on a hill the opponent besieges (§3.3.3)", None, None),
    ("w_atari", "bonus per enemy lone fort left with one free neighbour (B2)", None, None),
    ("w_block", "bonus per enemy fort next to the build (B2)", None, None),
    (
        "w_safe_fill",
        "penalty for filling a hill you already besiege (B3, safe connection)",
        None,
        None,
    ),
    ("w_manoeuvres", "penalty per own Manoeuvre still available afterwards (M1)", None, None),
    ("w_spread", "bonus per empty hill inside own proximity zones (M2)", None, None),
)


#: ``mcts1``'s parameters, the ``mcts`` of 2026-12-02 (``mcsim.games.base.kept_mcts``; kernel
#: order ``kernels.sacred_hill.P_MCTS_*``): plain UCT, 1,000 iterations, a fresh tree per
#: decision (``reuse`` and ``rave`` came later; their defaults 0 are that day's search)
MCTS1_PARAMS = (
    _P(
        "iterations",
        1000.0,
        "search iterations per decision (no wall-clock budget)",
        1.0,
        1e6,
        integer=True,
    ),
    _P(
        "c",
        0.7,
        "UCB1 exploration constant (rewards in [0, 1] for win, points/10 for margin)",
        0.0,
        100.0,
    ),
    _P(
        "reward",
        0.0,
        "0 = win (1 for the winner), 1 = margin ((own - other points) / 10)",
        0.0,
        1.0,
        integer=True,
    ),
    _P(
        "rollout",
        0.0,
        "rollout policy: 0 random, 1 greedy, 2 tactician (at its default weights)",
        0.0,
        2.0,
        integer=True,
    ),
    _P(
        "rollout_eps",
        0.1,
        "the rollout policy's eps (probability of a uniform move; greedy and tactician rollouts)",
        0.0,
        1.0,
    ),
    _P(
        "reuse",
        0.0,
        "1 = keep the seat's tree between its decisions (descend to the position reached), "
        "0 = a fresh tree per decision",
        0.0,
        1.0,
        integer=True,
    ),
    _P(
        "rave",
        0.0,
        "RAVE equivalence k (all-moves-as-first values weighted sqrt(k / (3n + k)) against a "
        "move's n visits; 0 = plain UCT)",
        0.0,
        1e6,
    ),
    forbid_mask_param(),  # restricted play, last so the positions above never move
)
#: ``mcts`` parameters: ``mcts1``'s with the defaults measured in benchmarks/RESULTS.md
#: ("Search", Sacred Hill: RAVE). 600 iterations cost what ``mcts1``'s 1,000 cost per game on
#: a lightly loaded machine (800 cost 1.34x there; "Sacred Hill: the default's budget set by
#: CPU per game")
MCTS_DEFAULTS: dict[str, float] = {"iterations": 600.0, "c": 0.0, "rave": 300.0, "reuse": 1.0}
MCTS_PARAMS = tuple(
    dataclasses.replace(q, default=MCTS_DEFAULTS[q.name]) if q.name in MCTS_DEFAULTS else q
    for q in MCTS1_PARAMS
)
_ROLLOUT_POLICIES = ("random", "greedy", "tactician")


def _params(defaults):
    out = []
    for (name, help_, lo, hi), d in zip(HEURISTIC_PARAMS, defaults):
        out.append(
            _P(name, d, help_, lo if lo is not None else -np.inf, hi if hi is not None else np.inf)
        )
    return tuple(out) + (forbid_mask_param(),)  # restricted play, last (kernel order above)


_RULES = "docs/rules/sacred_hill.md"
#: restricted play's options (docs/rules/sacred_hill.md §10), kernel bits
#: ``K.FORBID_*``. Captures and passes are not among them: the rules impose both (§3.3.1, §3.4).
RESTRICTIONS = (
    RestrictionSpec(
        "manoeuvre-next-to-enemy",
        "a Manoeuvre on a hill orthogonally adjacent to an enemy fort",
        "manoeuvre",
        K.FORBID_MANOEUVRE_NEXT_TO_ENEMY,
        source=f"{_RULES} §10, §3.1",
    ),
    RestrictionSpec(
        "manoeuvre-on-edge",
        "a Manoeuvre on one of the 20 edge hills (2 or 3 neighbours, fewer besiegers)",
        "manoeuvre",
        K.FORBID_MANOEUVRE_ON_EDGE,
        source=f"{_RULES} §10, §1, §3.1",
    ),
    RestrictionSpec(
        "battle-next-to-enemy",
        "a Battle build on a hill orthogonally adjacent to an enemy fort",
        "battle",
        K.FORBID_BATTLE_NEXT_TO_ENEMY,
        source=f"{_RULES} §10, §3.3.2-3",
    ),
    RestrictionSpec(
        "fill-safe-connection",
        "a Battle build on an empty hill all of whose neighbours are own forts",
        "battle",
        K.FORBID_FILL_SAFE_CONNECTION,
        source=f"{_RULES} §10, §2, §6.5",
    ),
    RestrictionSpec(
        "build-into-siege",
        "a build on an empty hill whose every neighbour is an enemy fort (the opponent must capture "
        "it on its next Battle turn)",
        "sacrifice",
        K.FORBID_BUILD_INTO_SIEGE,
        source=f"{_RULES} §10, §2, §3.3.1",
    ),
)


#: the ``mcts`` policy; ``mcts1`` keeps the parameters of 2026-12-02 (``MCTS1_PARAMS``)
MCTS_POLICY = PolicySpec(
    "mcts",
    K.POLICY_MCTS,
    "Monte Carlo tree search (UCT with RAVE, the tree kept between the seat's moves; "
    "kernels/sacred_hill/search_steps.py): iterations per move, rollouts by a base policy",
    MCTS_PARAMS,
)
#: ``mcts1``'s description: the ``mcts`` of 2026-12-02
MCTS1_HELP = (
    "Monte Carlo tree search (UCT, kernels/search.py): iterations per move, "
    "rollouts by a base policy"
)


SPEC = GameSpec(
    id="sacred-hill",
    long_name="Sacred Hill",
    rules="docs/rules/sacred_hill.md",
    min_players=2,
    max_players=2,
    default_players=2,
    variants=(
        VariantSpec(
            "transition",
            ("box", "web2014"),
            DEFAULT_TRANSITION,
            "phase switch: box = one grace Manoeuvre for the opponent; web2014 = none",
            "docs/rules/sacred_hill.md §3.2",
        ),
        VariantSpec(
            "zone",
            ("knight12", "chebyshev8"),
            DEFAULT_ZONE,
            "forbidden zone around own forts in Manoeuvres: 12 hills or the 8 around",
            "docs/rules/sacred_hill.md §2, §7 A2",
        ),
    ),
    policies=(
        PolicySpec("random", K.POLICY_RANDOM, "uniform over legal moves", (forbid_mask_param(),)),
        PolicySpec(
            "greedy",
            K.POLICY_GREEDY,
            "1-ply kingdom/territory evaluation (§6 B1), avoids suicide builds",
            _params((0.0, 1.0, 0.25, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0)),
        ),
        PolicySpec(
            "tactician",
            K.POLICY_TACTICIAN,
            "Manoeuvre and safe-connection advice (§6: M1+M2, B1-B3)",
            _params((0.0, 1.0, 0.25, 2.0, 0.5, 0.25, 0.75, 1.0, 0.1)),
        ),
        MCTS_POLICY,
        kept_mcts(
            MCTS_POLICY, MCTS1_PARAMS, MCTS1_HELP
        ),  # mcts1: today's mcts, kept (base.kept_mcts)
    ),
    summary_key="sacred_hill",
    max_plies=K.MAX_PLIES,
    description="2 players; who gets fewer kingdoms (then more territory) on 45 hills",
    score_bounds=(0, None),  # a seat's score is a count, never negative
    restrictions=RESTRICTIONS,
    # no group covers a whole decision: every option forbids some hills of a build, never all
    exhaustive_groups=(),
)


def zone_table(variant: dict) -> np.ndarray:
    """The kernel's proximity-zone bitboards of the variant's ``zone`` reading (§2, A2)."""
    return K.BB_ZONE_KNIGHT12 if variant["zone"] == "knight12" else K.BB_ZONE_CHEBYSHEV8


def transition_code(variant: dict) -> int:
    """The kernel's code of the variant's ``transition`` reading (§3.2)."""
    return K.TRANSITION_BOX if variant["transition"] == "box" else K.TRANSITION_WEB2014


# ---------------------------------------------------------------- protocol
def check_config(config: RunConfig) -> RunConfig:
    """Nothing beyond ``resolve_config``'s checks (see ``mcsim.games.base.GameModule``)."""
    return config


def forbid_masks(config: RunConfig) -> np.ndarray:
    """Each seat's restricted-play mask (float64[2], integers: bits ``K.FORBID_*``), read from
    its policy's ``forbid_mask`` parameter (0 when the seat forbids nothing)."""
    return np.array([float(c.params.get("forbid_mask", 0.0)) for c in config.policies])


def prepare(config: RunConfig) -> Prepared:
    """Resolve policies and variants into kernel arrays (``config`` from ``resolve_config``).

    The parameter matrix has ``K.N_POLICY_COLS`` columns: each policy's own vector, the
    ``mcts`` rollout weights from ``K.P_MCTS_BASE`` and the restricted-play mask in column
    ``K.P_FORBID`` (``forbid_masks``)."""
    ids, params = policy_arrays(SPEC, config.policies)
    params = _with_rollout_weights(ids, params)
    params[:, K.P_FORBID] = forbid_masks(config)
    labels = [p.label() for p in config.policies]
    return Prepared(
        config=config,
        policy_ids=ids,
        policy_params=params,
        variant_codes=SPEC.variant_codes(config.variant),
        tables={
            "zone": zone_table(config.variant),
            "transition": transition_code(config.variant),
            "mirror": labels[0] != labels[1],
        },
    )


def _with_rollout_weights(ids: np.ndarray, params: np.ndarray) -> np.ndarray:
    """Widen the parameter matrix to ``K.N_POLICY_COLS`` columns and put each ``mcts`` seat's
    rollout policy weights (that policy's defaults) from column ``K.P_MCTS_BASE`` on."""
    out = np.zeros((params.shape[0], K.N_POLICY_COLS), np.float64)
    out[:, : params.shape[1]] = params
    for k, pid in enumerate(ids):
        if pid == K.POLICY_MCTS:
            base = SPEC.policy(_ROLLOUT_POLICIES[int(out[k, K.P_MCTS_ROLLOUT])])
            w = base.vector()[: K.N_HEURISTIC_PARAMS] if base.id != K.POLICY_RANDOM else 0.0
            out[k, K.P_MCTS_BASE : K.P_MCTS_BASE + K.N_HEURISTIC_PARAMS] = w
    return out


def play_games(
    prep: Prepared, first: int, n: int, seed: int, stream: int, ids, params, n_record: int = 0
):
    """Play games ``first .. first + n - 1`` in the batch kernel; its output arrays by name."""
    outputs = K.SacredHillOutputs(
        points=np.zeros((n, 2), np.int16),
        plies=np.zeros(n, np.int16),
        kingdoms=np.zeros((n, 2), np.int16),
        territory=np.zeros((n, 2), np.int16),
        captures=np.zeros((n, 2), np.int16),
        manoeuvre_forts=np.zeros((n, 2), np.int16),
        passes=np.zeros(n, np.int16),
        decided_by=np.zeros(n, np.int8),
        record=np.full((n_record, K.MAX_PLIES), -1, np.int16),
        forbid_avoided=np.zeros((n, 2), np.int16),
        forbid_forced=np.zeros((n, 2), np.int16),
    )
    # the search code is compiled only for a lineup with an mcts seat (compile time)
    kernel = K.play_batch_search if (ids == K.POLICY_MCTS).any() else K.play_batch
    kernel(
        first,
        n,
        np.uint64(seed),
        stream,
        ids,
        params,
        K.SacredHillRules(prep.tables["transition"], prep.tables["zone"]),
        outputs,
    )
    return outputs._asdict()


def play_chunk(prep: Prepared, first_game_index: int, n_games: int, root_seed: int) -> dict:
    """Play games ``first_game_index ..`` and return the per-game columns.

    Returns
    -------
    dict
        ``score`` int16[n, 2] points (§3.5); ``length`` int16[n] plies; ``kingdoms``,
        ``territory``, ``captures``, ``manoeuvre_forts`` int16[n, 2]; ``passes`` int16[n];
        ``decided_by_kingdoms`` bool[n]; with different policies also ``match_points``
        int16[n, 2] (§3.6, see the module docstring); when a seat is restricted
        (``restricted_seats``) also ``forbid_avoided`` and ``forbid_forced`` int64[n, 2], the
        main game's decisions of each seat that avoided a forbidden option / where every legal
        move was forbidden (docs/rules/sacred_hill.md §10).
    """
    o = play_games(
        prep,
        first_game_index,
        n_games,
        root_seed,
        STREAM_POLICY,
        prep.policy_ids,
        prep.policy_params,
    )
    cols = {
        "score": o["points"],
        "length": o["plies"],
        "kingdoms": o["kingdoms"],
        "territory": o["territory"],
        "captures": o["captures"],
        "manoeuvre_forts": o["manoeuvre_forts"],
        "passes": o["passes"],
        "decided_by_kingdoms": o["decided_by"] == 1,
    }
    # a mask set by number (forbid_mask=5) restricts too; forbid= names are the usual way
    if restricted_seats(prep.config) or prep.policy_params[:, K.P_FORBID].any():
        cols["forbid_avoided"] = o["forbid_avoided"].astype(np.int64)
        cols["forbid_forced"] = o["forbid_forced"].astype(np.int64)
    if prep.tables["mirror"]:
        m = play_games(
            prep,
            first_game_index,
            n_games,
            root_seed,
            MIRROR_STREAM,
            prep.policy_ids[::-1].copy(),
            prep.policy_params[::-1].copy(),
        )
        # the policy of seat k in the main game sits in seat 1-k in the mirror game
        cols["match_points"] = (o["points"] + m["points"][:, ::-1]).astype(np.int16)
    return cols


# ---------------------------------------------------------------- the rest of the game protocol
EVALUATE_BANDS: tuple = ()
EVALUATE_GROUPS: dict = {}
ORACLE_POLICY: str | None = None


ensemble_options = no_ensemble(SPEC)


# ---------------------------------------------------------------- the other roles
# imported last: records and summary use the names above
def search_start(prep: Prepared, seed: int, game_index: int) -> tuple:
    """The start of game ``game_index`` as ``kernels.search``'s steps see it: ``(state,
    ctx)``, the empty board (``uint64[S_SIZE]``; Sacred Hill has no deal, so ``seed`` and
    ``game_index`` change nothing) and a ``SacredHillSearchContext`` of the run's rules with
    random rollouts (used by the kernel test battery, ``tests/test_kernel_battery.py``)."""
    state = np.zeros(K.S_SIZE, np.uint64)
    ctx = K.search_steps.SacredHillSearchContext(
        np.int64(prep.tables["transition"]),
        prep.tables["zone"],
        np.int64(K.POLICY_RANDOM),
        np.zeros(K.N_HEURISTIC_PARAMS, np.float64),
        np.zeros(2, np.int64),
        np.int64(-1),
        np.uint64(0),
    )
    return state, ctx


from mcsim.games.sacred_hill import charts, records, summary  # noqa: E402

CHARTS = charts.CHARTS  # the report's figures of the game (``mcsim.games.sacred_hill.charts``)
finalize_summary = summary.finalize_summary
format_summary = summary.format_summary
partial_summary = summary.partial_summary
summarize = summary.summarize
forced_move_error = records.forced_move_error
format_move = records.format_move
format_replay = records.format_replay
legal_move_names = records.legal_move_names
parse_move = records.parse_move
perft = records.perft
play = records.play
position = records.position
record_games = records.record_games
replay = records.replay

# the drawer of ``mcsim show`` (imported after the re-exports above, which it reads)
from mcsim.games.sacred_hill import show  # noqa: E402

show_frames = show.frames  # one frame per ply (``mcsim.games.sacred_hill.show``)
