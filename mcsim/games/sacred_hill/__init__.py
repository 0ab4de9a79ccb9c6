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
``rollout`` (random, greedy or tactician at its default weights, with ``rollout_eps``); see
``MCTS_PARAMS`` and benchmarks/RESULTS.md ("Search") for how the defaults were chosen.

Seats: seat 0 moves first. Points are the rulebook's (§3.5): the winner scores 2 + the kingdom
(or territory) difference, the loser 0.

Matches (§3.6): with the same policy in both seats, games 2j and 2j+1 form match j (the player
who starts game 2j starts second in game 2j+1). With different policies each game i is paired
with a mirror game (same index, policies swapped, independent policy random numbers), so
``match_points_<k>`` is the match total of the policy that sits in seat k in the main game.
"""

from __future__ import annotations

import numpy as np

import kernels.sacred_hill as K
from kernels.rng import STREAM_POLICY
from mcsim import stats
from mcsim.errors import ConfigError, IllegalMoveError, InvalidRecordError
from mcsim.games.base import (
    GameSpec,
    ParamSpec,
    PolicySpec,
    Prepared,
    ReplayResult,
    RunConfig,
    VariantSpec,
    no_ensemble,
    policy_arrays,
    replay_result,
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


#: ``mcts`` parameters (kernel order ``kernels.sacred_hill.P_MCTS_*``); defaults from the
#: measurements in benchmarks/RESULTS.md ("Search")
MCTS_PARAMS = (
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
)
_ROLLOUT_POLICIES = ("random", "greedy", "tactician")


def _params(defaults):
    out = []
    for (name, help_, lo, hi), d in zip(HEURISTIC_PARAMS, defaults):
        out.append(
            _P(name, d, help_, lo if lo is not None else -np.inf, hi if hi is not None else np.inf)
        )
    return tuple(out)


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
        PolicySpec("random", K.POLICY_RANDOM, "uniform over legal moves"),
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
        PolicySpec(
            "mcts",
            K.POLICY_MCTS,
            "Monte Carlo tree search (UCT, kernels/search.py): iterations per move, "
            "rollouts by a base policy",
            MCTS_PARAMS,
        ),
    ),
    summary_key="sacred_hill",
    max_plies=K.MAX_PLIES,
    description="2 players; who gets fewer kingdoms (then more territory) on 45 hills",
)


# ---------------------------------------------------------------- names
def format_move(move: int) -> str:
    """``"D4"`` for a cell index, ``"pass"`` for ``MOVE_PASS``."""
    return "pass" if move == K.MOVE_PASS else K.CELL_NAMES[int(move)]


_BY_NAME = {name: i for i, name in K.CELL_NAMES.items()}


def parse_move(text: str) -> int:
    """Cell index of a hill name (``"d4"`` or ``"D4"``) or ``MOVE_PASS`` for ``"pass"``.

    Raises
    ------
    InvalidRecordError
        Not a hill of the 45 (e.g. ``"A1"``, a removed corner) and not ``pass``.
    """
    t = str(text).strip()
    if t.lower() == "pass":
        return K.MOVE_PASS
    i = _BY_NAME.get(t.upper())
    if i is None:
        raise InvalidRecordError(f"{text!r} is not a hill (A1..G7 without the corners) or 'pass'")
    return i


def zone_table(variant: dict) -> np.ndarray:
    return K.BB_ZONE_KNIGHT12 if variant["zone"] == "knight12" else K.BB_ZONE_CHEBYSHEV8


def _transition(variant: dict) -> int:
    return K.TRANSITION_BOX if variant["transition"] == "box" else K.TRANSITION_WEB2014


# ---------------------------------------------------------------- protocol
def check_config(config: RunConfig) -> RunConfig:
    """Nothing beyond ``resolve_config``'s checks (see ``mcsim.games.base.GameModule``)."""
    return config


def prepare(config: RunConfig) -> Prepared:
    """Resolve policies and variants into kernel arrays (``config`` from ``resolve_config``)."""
    ids, params = policy_arrays(SPEC, config.policies)
    params = _with_rollout_weights(ids, params)
    labels = [p.label() for p in config.policies]
    return Prepared(
        config=config,
        policy_ids=ids,
        policy_params=params,
        variant_codes=SPEC.variant_codes(config.variant),
        tables={
            "zone": zone_table(config.variant),
            "transition": _transition(config.variant),
            "mirror": labels[0] != labels[1],
        },
    )


def _with_rollout_weights(ids: np.ndarray, params: np.ndarray) -> np.ndarray:
    """Widen the parameter matrix to ``K.N_MCTS_PARAMS`` columns and put each ``mcts`` seat's
    rollout policy weights (that policy's defaults) from column ``K.P_MCTS_BASE`` on."""
    out = np.zeros((params.shape[0], max(params.shape[1], K.N_MCTS_PARAMS)), np.float64)
    out[:, : params.shape[1]] = params
    for k, pid in enumerate(ids):
        if pid == K.POLICY_MCTS:
            base = SPEC.policy(_ROLLOUT_POLICIES[int(out[k, K.P_MCTS_ROLLOUT])])
            w = base.vector() if base.params else np.zeros(K.N_HEURISTIC_PARAMS)
            out[k, K.P_MCTS_BASE : K.P_MCTS_BASE + K.N_HEURISTIC_PARAMS] = w
    return out


def _run_kernel(
    prep: Prepared, first: int, n: int, seed: int, stream: int, ids, params, n_record: int = 0
):
    out = {
        "points": np.zeros((n, 2), np.int16),
        "plies": np.zeros(n, np.int16),
        "kingdoms": np.zeros((n, 2), np.int16),
        "territory": np.zeros((n, 2), np.int16),
        "captures": np.zeros((n, 2), np.int16),
        "manoeuvre_forts": np.zeros((n, 2), np.int16),
        "passes": np.zeros(n, np.int16),
        "decided_by": np.zeros(n, np.int8),
        "record": np.full((n_record, K.MAX_PLIES), -1, np.int16),
    }
    K.play_batch(
        first,
        n,
        np.uint64(seed),
        stream,
        ids,
        params,
        prep.tables["transition"],
        prep.tables["zone"],
        out["points"],
        out["plies"],
        out["kingdoms"],
        out["territory"],
        out["captures"],
        out["manoeuvre_forts"],
        out["passes"],
        out["decided_by"],
        out["record"],
    )
    return out


def play_chunk(prep: Prepared, first_game_index: int, n_games: int, root_seed: int) -> dict:
    """Play games ``first_game_index ..`` and return the per-game columns.

    Returns
    -------
    dict
        ``score`` int16[n, 2] points (§3.5); ``length`` int16[n] plies; ``kingdoms``,
        ``territory``, ``captures``, ``manoeuvre_forts`` int16[n, 2]; ``passes`` int16[n];
        ``decided_by_kingdoms`` bool[n]; with different policies also ``match_points``
        int16[n, 2] (§3.6, see the module docstring).
    """
    o = _run_kernel(
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
    if prep.tables["mirror"]:
        m = _run_kernel(
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


def _match_points(games) -> np.ndarray:
    """Match totals ``[n_matches, 2]`` per player (player k = seat k of the main game)."""
    if "match_points_0" in games:
        return games[["match_points_0", "match_points_1"]].to_numpy()
    s = games[["score_0", "score_1"]].to_numpy()
    n = (len(s) // 2) * 2
    a, b = s[0:n:2], s[1:n:2]
    # player A starts game 2j (seat 0) and sits in seat 1 in game 2j+1
    return np.stack([a[:, 0] + b[:, 1], a[:, 1] + b[:, 0]], axis=1)


def partial_summary(games, prep: Prepared) -> dict:
    """Additive sums over a chunk of games (merged across chunks by addition)."""
    mp = _match_points(games)
    return {
        "n": len(games),
        "win_share": [float(games[f"win_share_{k}"].sum()) for k in range(2)],
        "decided_by_kingdoms": int(games["decided_by_kingdoms"].sum()),
        "captures": int((games["captures_0"].astype(np.int64) + games["captures_1"]).sum()),
        "manoeuvre_forts": [
            int(games[f"manoeuvre_forts_{k}"].astype(np.int64).sum()) for k in range(2)
        ],
        "kingdoms": [int(games[f"kingdoms_{k}"].astype(np.int64).sum()) for k in range(2)],
        "territory": [int(games[f"territory_{k}"].astype(np.int64).sum()) for k in range(2)],
        "matches": len(mp),
        "match_wins_a": float((mp[:, 0] > mp[:, 1]).sum() + 0.5 * (mp[:, 0] == mp[:, 1]).sum()),
        "match_draws": int((mp[:, 0] == mp[:, 1]).sum()),
    }


def finalize_summary(t: dict, prep: Prepared) -> dict:
    """The ``"sacred_hill"`` summary block from the summed partials.

    ``balance`` is seat 0's win rate minus seat 1's (the first-player advantage, -1..1);
    ``decided_by_territory`` the share of games with equal kingdoms (§3.5);
    ``captures_per_game`` the mean captures by both seats; ``manoeuvre_forts``, ``kingdoms``,
    ``territory`` means per seat; ``match_win_rate`` per player with Wilson 95% intervals
    (a drawn match counts 1/2), ``match_draw_rate`` and ``matches`` (§3.6).
    """
    n = t["n"]
    n_m = t["matches"]
    wins_a = t["match_wins_a"]
    return {
        "balance": (t["win_share"][0] - t["win_share"][1]) / n,
        "decided_by_territory": 1.0 - t["decided_by_kingdoms"] / n,
        "captures_per_game": t["captures"] / n,
        "manoeuvre_forts": [x / n for x in t["manoeuvre_forts"]],
        "kingdoms": [x / n for x in t["kingdoms"]],
        "territory": [x / n for x in t["territory"]],
        "match_win_rate": [stats.proportion(wins_a, n_m), stats.proportion(n_m - wins_a, n_m)]
        if n_m
        else [],
        "match_draw_rate": t["match_draws"] / n_m if n_m else None,
        "matches": n_m,
        "games": n,
    }


def summarize(games, prep: Prepared) -> dict:
    """The ``"sacred_hill"`` block of a whole per-game table (see ``finalize_summary``)."""
    return finalize_summary(partial_summary(games, prep), prep)


def format_summary(block: dict, summary: dict | None = None) -> str:
    """Readable lines for the ``"sacred_hill"`` block (``summary``: the whole summary)."""
    mixed = summary is not None and len(set(summary["policies"])) > 1
    label = (
        "seat balance (win rate seat 0 - seat 1; the seats' policies differ, so this mixes "
        "the seat and policy effects: see `mcsim tournament`)"
        if mixed
        else "first-player balance (win rate seat 0 - seat 1)"
    )
    lines = [
        f"{label}: {block['balance']:+.4f}",
        f"decided by territory: {block['decided_by_territory']:.1%}   "
        f"captures per game: {block['captures_per_game']:.2f}",
        "mean per seat (0 / 1): kingdoms {:.2f} / {:.2f}, territory {:.2f} / {:.2f}, "
        "Manoeuvre forts {:.2f} / {:.2f}".format(
            *block["kingdoms"], *block["territory"], *block["manoeuvre_forts"]
        ),
    ]
    if block["match_win_rate"]:
        a, b = block["match_win_rate"]
        if mixed:
            how = (
                f"{block['matches']:,} matches: each game plus a return game with the seats "
                f"swapped ({block['matches']:,} extra games played)"
            )
            who = summary["policies"]
        else:
            how = f"{block['matches']:,} matches: games 2j and 2j+1, each player starting once"
            who = ["player starting game 2j", "the other"]
        lines.append(
            f"match win rate ({how}): {who[0]} {a['estimate']:.4f} "
            f"[{a['low']:.4f}, {a['high']:.4f}], {who[1]} {b['estimate']:.4f}; "
            f"drawn {block['match_draw_rate']:.2%}"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------- records
def record_games(prep: Prepared, root_seed: int, game_indices) -> list[dict]:
    """Records of the given games of a run (each replays to the run's result).

    Record format (README, "Records")::

        {"game": "sacred-hill", "variant": {"transition": "box", "zone": "knight12"},
         "moves": ["D4", "B3", ..., "pass"], "seed": S, "game_index": i,
         "policies": [...], "points": [a, b]}
    """
    out = []
    for i in game_indices:
        o = _run_kernel(
            prep,
            int(i),
            1,
            root_seed,
            STREAM_POLICY,
            prep.policy_ids,
            prep.policy_params,
            n_record=1,
        )
        moves = [format_move(m) for m in o["record"][0] if m >= 0]
        out.append(
            {
                "game": SPEC.id,
                "variant": dict(prep.config.variant),
                "moves": moves,
                "seed": int(root_seed),
                "game_index": int(i),
                "policies": [p.label() for p in prep.config.policies],
                "points": [int(x) for x in o["points"][0]],
            }
        )
    return out


def _legal_names(state) -> list[str]:
    moves, kind = K.legal_moves(state)
    if kind == K.KIND_PASS:
        return ["pass"]
    names = []
    m = int(moves)
    while m:
        low = m & -m
        names.append(format_move(low.bit_length() - 1))
        m ^= low
    return names


def _orth(i: int) -> list[int]:
    """Existing orthogonal neighbours of hill ``i`` (§1), from the cell names alone."""
    return [
        j
        for j in (i - 1, i + 1, i - 8, i + 8)
        if j in K.CELL_NAMES and abs(j % 8 - i % 8) + abs(j // 8 - i // 8) == 1
    ]


def forced_move_error(state, move: str) -> list[str] | None:
    """The rule's own check of the forced moves (§3.3.1-3.3.4, §3.4), not the kernel's list.

    ``state`` is the position before ``move`` (a kernel state, only its forts, phases and
    player to move are read). Returns None when ``move`` keeps these rules, else the moves they
    allow: a besieged enemy lone fort must be captured (any of them, §3.3.1); a Battle build
    must touch an own fort when some empty hill does (§3.3.2); a pass only when the board is
    full and nothing can be captured (§3.3.4, §3.4).
    """
    me = int(state[K.S_TO_MOVE])
    mine, theirs = int(state[K.S_FORTS + me]), int(state[K.S_FORTS + 1 - me])
    own = {i for i in K.CELL_NAMES if (mine >> i) & 1}
    enemy = {i for i in K.CELL_NAMES if (theirs >> i) & 1}
    empty = set(K.CELL_NAMES) - own - enemy
    besieged = sorted(i for i in enemy if all(j in own for j in _orth(i)))
    if besieged:
        names = [K.CELL_NAMES[i] for i in besieged]
        return None if move in names else names
    if move == "pass":
        return None if not empty else sorted(K.CELL_NAMES[i] for i in empty)
    if int(state[K.S_PHASE + me]) == K.PHASE_BATTLE:
        adjacent = sorted(i for i in empty if any(j in own for j in _orth(i)))
        names = [K.CELL_NAMES[i] for i in adjacent]
        if adjacent and move not in names:
            return names
    return None


def replay(record: dict) -> ReplayResult:
    """Validate a record move by move and describe the position reached.

    Besides the kernel's legal-move list, the forced moves (mandatory capture, Battle build next
    to an own fort, pass) are checked by ``forced_move_error`` from the rules themselves.

    Returns
    -------
    dict
        ``{"finished", "to_move", "plies", "kingdoms", "territory", "points", "winner"}``
        (``points`` and ``winner`` are None unless finished; ``winner`` is a seat).

    Raises
    ------
    InvalidRecordError
        Not a Sacred Hill record, unknown variant, or a move that is not a hill name.
    IllegalMoveError
        A move that is illegal in the position reached (with its ply index and the legal moves).
    """
    if not isinstance(record, dict) or record.get("game") != SPEC.id:
        raise InvalidRecordError('not a sacred-hill record (expected {"game": "sacred-hill", ...})')
    moves = record.get("moves")
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise InvalidRecordError('"moves" must be a list of hill names or "pass"')
    try:
        variant = SPEC.resolve_variant(record.get("variant") or {})
    except ValueError as e:
        raise InvalidRecordError(str(e)) from None
    state = np.zeros(K.S_SIZE, np.uint64)
    for ply, text in enumerate(moves):
        try:
            parse_move(text)
        except InvalidRecordError as e:
            raise InvalidRecordError(f"move at ply {ply}: {e}") from None
        if not K.is_terminal(state):
            allowed = forced_move_error(state, text)
            if allowed is not None:
                raise IllegalMoveError(ply, text, allowed)
        try:
            play(state, text, variant)
        except IllegalMoveError as e:
            raise IllegalMoveError(ply, text, e.legal) from None
    result = describe(state)
    return replay_result(record, result)


def describe(state) -> dict:
    """Replay summary of a kernel state (see ``replay``)."""
    finished = bool(K.is_terminal(state))
    pts = np.zeros(2, np.int64)
    points = winner = None
    if finished:
        K.score_final(state, pts)
        points = [int(pts[0]), int(pts[1])]
        winner = int(np.argmax(pts)) if pts[0] != pts[1] else None
    return {
        "finished": finished,
        "to_move": int(state[K.S_TO_MOVE]),
        "plies": int(state[K.S_PLIES]),
        "kingdoms": [int(K.count_kingdoms(state[K.S_FORTS + s])) for s in range(2)],
        "territory": [bin(int(state[K.S_FORTS + s])).count("1") for s in range(2)],
        "points": points,
        "winner": winner,
    }


_PHASES = {"manoeuvre": K.PHASE_MANOEUVRE, "grace": K.PHASE_GRACE, "battle": K.PHASE_BATTLE}


def position(
    red=(), blue=(), to_move: int = 0, phases=("battle", "battle"), variant: dict | None = None
) -> np.ndarray:
    """A kernel state (uint64[S_SIZE]) with the given forts, for tests and notebooks.

    ``red`` are seat 0's hills, ``blue`` seat 1's (names like ``"D4"``); ``phases`` per seat,
    each ``"manoeuvre"``, ``"grace"`` or ``"battle"``.

    >>> K.legal_moves(position(red=["D4"], phases=("manoeuvre", "manoeuvre")))[1] == K.KIND_MANOEUVRE
    True
    """
    v = SPEC.resolve_variant(variant)
    zone = zone_table(v)
    state = np.zeros(K.S_SIZE, np.uint64)
    for seat, cells in enumerate((red, blue)):
        for name in cells:
            state[K.S_FORTS + seat] |= np.uint64(1 << parse_move(name))
        K._recompute_unions(state, seat, zone)
        state[K.S_PHASE + seat] = _PHASES[phases[seat]]
    state[K.S_TO_MOVE] = to_move
    return state


def legal_move_names(state) -> list[str]:
    """The legal moves of the player to move, as hill names (or ``["pass"]``)."""
    return [] if K.legal_moves(state)[1] == K.KIND_TERMINAL else _legal_names(state)


def play(state, move: str, variant: dict | None = None) -> None:
    """Play one move given by name on ``state`` (checked; raises ``IllegalMoveError``)."""
    v = SPEC.resolve_variant(variant)
    mv = parse_move(move)
    legal, kind = K.legal_moves(state)
    if not (
        (kind == K.KIND_PASS and mv == K.MOVE_PASS)
        or (
            kind not in (K.KIND_PASS, K.KIND_TERMINAL)
            and mv != K.MOVE_PASS
            and (int(legal) >> mv) & 1
        )
    ):
        raise IllegalMoveError(int(state[K.S_PLIES]), move, legal_move_names(state))
    K.apply_move(state, mv, kind, _transition(v), zone_table(v))


def board_ascii(state) -> str:
    """The board as text, row 7 on top: ``R``/``B`` forts of seat 0/1, ``.`` empty."""
    f0, f1 = int(state[K.S_FORTS]), int(state[K.S_FORTS + 1])
    rows = []
    for r in range(6, -1, -1):
        cells = []
        for c in range(7):
            i = 8 * r + c
            if i not in K.CELL_NAMES:
                cells.append(" ")
            elif (f0 >> i) & 1:
                cells.append("R")
            elif (f1 >> i) & 1:
                cells.append("B")
            else:
                cells.append(".")
        rows.append(f"{r + 1} " + " ".join(cells))
    rows.append("  " + " ".join(K.COL_NAMES))
    return "\n".join(rows)


def format_replay(result: dict) -> str:
    lines = [
        f"plies played: {result['plies']}; seat to move: {result['to_move']}",
        f"kingdoms: {result['kingdoms'][0]} / {result['kingdoms'][1]}   "
        f"territory: {result['territory'][0]} / {result['territory'][1]}",
    ]
    if result["finished"]:
        w = "draw" if result["winner"] is None else f"seat {result['winner']} wins"
        lines.append(f"finished: points {result['points'][0]} / {result['points'][1]} ({w})")
    else:
        lines.append("not finished")
    return "\n".join(lines)


def perft(depth: int, variant: dict | None = None) -> int:
    """Number of move sequences of length ``depth`` from the empty board.

    >>> perft(3)
    9632
    """
    if depth < 0:
        raise ConfigError(f"--depth must be 0 or more, not {depth}")
    v = SPEC.resolve_variant(variant)
    return int(K.perft(np.zeros(K.S_SIZE, np.uint64), depth, _transition(v), zone_table(v)))


# ---------------------------------------------------------------- the rest of the game protocol
EVALUATE_BANDS: tuple = ()
EVALUATE_GROUPS: dict = {}
ORACLE_POLICY: str | None = None


def charts() -> list:
    """The game's report figures ``[(slug, builder)]`` (``mcsim.games.sacred_hill.charts``)."""
    from mcsim.games.sacred_hill.charts import CHARTS

    return list(CHARTS)


ensemble_options = no_ensemble(SPEC)
