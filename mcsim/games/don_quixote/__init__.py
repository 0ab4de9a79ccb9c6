"""Don Quixote (Reinhard Staupe, Pegasus Spiele 2010): estate-building solitaire for 1-4 players.

Rule source: ``docs/rules/don_quixote.md`` (written from the Czech rulebook). Kernel:
``kernels/don_quixote/``. Tile set: a validated JSON file
(``mcsim/data/don_quixote/tiles_placeholder.json`` by default; format in ``load_tileset``).

**The real 22-tile set is unknown** (rules §0, §2.3): the default set is the placeholder of §2.3,
labelled ``provenance: reconstructed``; every run using it says so (``prep.notices``) and the
summary carries ``"tileset": {"id": ..., "provenance": ...}``. Policy conclusions should be
checked over an ensemble of plausible sets (``mcsim.evaluate``, ``--tileset-ensemble``).

Variants (rules §3.7, the open edge cases)
------------------------------------------
===================  ======================  ========  ========================================
name                 values                  default   meaning
===================  ======================  ========  ========================================
last_tile_rotation   free | random           free      §3.7.4: the set-aside last tile may be
                                                       turned 180° (free) or lies as dealt
                                                       (random orientation from the deal)
defence_road         own-half | half-only    own-half  §3.7.3: a border knight defends if its
                                                       road piece has an outer-boundary port
                                                       in the knight's own half (own-half);
                                                       half-only also requires that piece to
                                                       have no port in the other half
castle_roads         file | ln-rs | ls-rn |  file      §2.1/§3.7.1: castle stub exits as in
                     lw-re                             the tile file, or forced to LN|RS,
                                                       LS|RN, LW|RE (the shipped set's castles
                                                       are LN|RS: ln-rs = file with it)
===================  ======================  ========  ========================================

Policies: ``random``, ``greedy``, ``heuristic`` (9 weights), ``rollout`` (k, base),
``oracle`` (beam, iters: full knowledge of the deal, the reference for regret, not a playable
policy; its total is a lower bound on the best achievable one), ``mcts`` (iterations, c,
rollout: information-set MCTS, ``kernels/search.py``; each iteration samples the cells of the
later placements, the order of the unrevealed tiles and, under ``last_tile_rotation=random``,
the set-aside tile's orientation anew from what the player has seen; the reward is the
player's own total, players do not interact, §3.1.5; ``endgame=1`` plays round 3 by the exact
solver), ``hindsight`` (k, beam, iters, endgame, horizon: hindsight optimisation, each
candidate valued by a full-knowledge beam + annealing on k sampled futures, the same for every
candidate; round 3 by the exact expectimax over the cell order, ``kernels/don_quixote/
hindsight.py``).

Restricted play (rules §8): every policy but ``oracle`` takes ``forbid=NAME+NAME``
(``RESTRICTIONS``: ``turn-tile``, a placement at 180°; ``church-apart`` / ``windmill-apart``, a
church / windmill tile whose churches / windmills join no other once the estate holds one;
``knight-off-defence``, a border placement turned so that it gives no defence where the other
orientation would);
the per-game table then has ``forbid_avoided_<k>`` and ``forbid_forced_<k>``.

Game-specific extras: ``--option tiles=FILE`` (``RunConfig.options["tiles"]``), records and replay
(format in ``replay``), ``mcsim evaluate`` hooks (``EVALUATE_BANDS``, ``EVALUATE_GROUPS``,
``ORACLE_POLICY``, ``EVALUATE_INFORMATION_GROUP``, ``ensemble_options`` for ``--tileset-ensemble``), the random tile-set
generator ``random_tileset_doc`` (rules §6.3).

``mcsim perft don-quixote --depth D`` (``perft``): placement sequences from the unshuffled deal
(``perft_deal``; a move = a face-up tile id and rotation 0/180 at the dealt cell): 18, 288, 4032
for depths 1-3, every depth up to 22 in well under a second (memoised).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from kernels import don_quixote as K
from mcsim.errors import ConfigError, DataFileError
from mcsim.files import read_json
from mcsim.games.base import (
    GameSpec,
    ParamSpec,
    PolicySpec,
    Prepared,
    RestrictionSpec,
    RunConfig,
    VariantSpec,
    check_options,
    forbid_mask_param,
    kept_mcts,
    policy_arrays,
    restricted_seats,
)

RULES = "docs/rules/don_quixote.md"
DEFAULT_TILES = "tiles_placeholder.json"
DEFAULT_LAST_TILE_ROTATION = "free"
DEFAULT_DEFENCE_ROAD = "own-half"
DEFAULT_CASTLE_ROADS = "file"

# ---------------------------------------------------------------- tile-set facts (§2, §6.1)
#: [M]/[L] composition facts checked on load (strict mode); change here only.
N_LANDSCAPE = 22  # §2.1 [H]
CASTLE_VALUES = (6, 4)  # §2.1 [H]: placed in this order at setup
MAX_EXIT_PORTS = 4  # §6.1 [M] ("up to four exits")
SHIELD_VALUES = (1, 2, 3)  # §2.1 [H]
N_CHURCHES = 7  # §2.2 [M+]
MIN_SHIELDS = (3, 3, 2, 2, 1, 1)  # §2.2 [H for the lower bounds]
FEATURES = ("none", "knight", "church", "windmill")
CONFIDENCE = ("low", "medium", "high")
HALVES = ("L", "R")
CASTLE_ROAD_PORTS = {"ln-rs": ("LN", "RS"), "ls-rn": ("LS", "RN"), "lw-re": ("LW", "RE")}

HEURISTIC_PARAMS = (
    ParamSpec("now", float(K.HEUR_DEFAULT[0]), "weight of the score if the round were scored now"),
    ParamSpec(
        "castle",
        float(K.HEUR_DEFAULT[1]),
        "weight of knights attached to castles (value/6 x min(knights, 3) per castle)",
    ),
    ParamSpec("defence", float(K.HEUR_DEFAULT[2]), "weight of defending shields (capped at 12)"),
    ParamSpec("bonus", float(K.HEUR_DEFAULT[3]), "weight of the best knight group's shield sum"),
    ParamSpec("open", float(K.HEUR_DEFAULT[4]), "weight of road ends facing empty cells"),
    ParamSpec(
        "grow",
        float(K.HEUR_DEFAULT[5]),
        "weight of one more church/windmill's value for groups with open road ends",
    ),
    ParamSpec("kopen", float(K.HEUR_DEFAULT[6]), "weight of knights in networks with open ends"),
    ParamSpec(
        "castle_open",
        float(K.HEUR_DEFAULT[7]),
        "weight of open road ends (max 2 per stub) of castles short of 3 knights",
    ),
    ParamSpec(
        "round_end",
        float(K.HEUR_DEFAULT[8]),
        "extra weight of the round's score on the placement that ends the round",
    ),
)
#: restricted play's mask, the last parameter of every policy (kernel column
#: ``K.FORBID_COL[policy id]``, so the positions of the others never move)
_FORBID = (forbid_mask_param(),)


def _base_weight_params(user: str) -> tuple[ParamSpec, ...]:
    """The heuristic weights of ``user``'s base policy 2 as parameters ``h_<weight>`` (defaults
    and meaning as the ``heuristic`` policy's, kernel order ``HEUR_DEFAULT``)."""
    return tuple(
        ParamSpec(f"h_{q.name}", q.default, f"{user} heuristic's {q.help}")
        for q in HEURISTIC_PARAMS
    )


#: upper bounds of the oracle's parameters (one game within seconds, Ctrl-C answered)
ORACLE_MAX_BEAM = 512.0
ORACLE_MAX_ITERS = 1e6

#: ``mcts`` parameters (kernel order ``kernels.don_quixote.M_*``); defaults from the
#: measurements in benchmarks/RESULTS.md ("Search")
MCTS_PARAMS = (
    ParamSpec(
        "iterations",
        2500.0,
        "search iterations per placement (no wall-clock budget)",
        1.0,
        1e6,
        integer=True,
    ),
    ParamSpec("c", 1.5, "UCB1 exploration constant (reward = own total / 10 points)", 0.0, 100.0),
    ParamSpec(
        "rollout",
        1.0,
        "rollout policy: 0 random, 1 greedy, 2 heuristic (weights h_*)",
        0.0,
        2.0,
        integer=True,
    ),
    ParamSpec(
        "endgame",
        0.0,
        "round 3: 0 the search, 1 the exact round-3 solver (expectimax over the cell order)",
        0.0,
        1.0,
        integer=True,
    ),
    # after the others: the kernel reads them from M_WEIGHTS
    *_base_weight_params("rollout=2"),
    *_FORBID,
)

#: ``hindsight`` parameters (kernel order ``kernels.don_quixote.HS_*``); defaults and the
#: strength/time table in benchmarks/RESULTS.md ("Don Quixote hindsight")
HINDSIGHT_PARAMS = (
    ParamSpec(
        "k",
        8.0,
        "sampled futures per placement (the same for every candidate)",
        1.0,
        4096.0,
        integer=True,
    ),
    ParamSpec(
        "beam",
        1.0,
        "beam width of the full-knowledge start plan of each sampled future",
        1.0,
        64.0,
        integer=True,
    ),
    ParamSpec(
        "iters",
        100.0,
        "simulated-annealing steps per candidate and sampled future (0: no annealing, "
        "each candidate's own beam search of width beam to the end of the game instead)",
        0.0,
        1e5,
        integer=True,
    ),
    ParamSpec(
        "endgame",
        1.0,
        "round 3: 0 sampled futures as in rounds 1-2, 1 the exact round-3 solver",
        0.0,
        1.0,
        integer=True,
    ),
    ParamSpec(
        "horizon",
        0.0,
        "what each sampled future is solved to: 0 the end of the game, 1 the end of the "
        "current round (then the default heuristic of the estate)",
        0.0,
        1.0,
        integer=True,
    ),
    *_FORBID,
)

#: restricted play's options (docs/rules/don_quixote.md §8), kernel bits ``K.FORBID_*`` of the
#: ``forbid_mask`` parameter, grouped as tables show them (orientation, then kind)
RESTRICTIONS = (
    RestrictionSpec(
        "turn-tile",
        "a placement turned 180° (the set-aside tile is forced to 180° only when "
        "last_tile_rotation=random dealt it so)",
        "orientation",
        K.FORBID_TURN_TILE,
        source=f"{RULES} §8.1, §3.2",
    ),
    RestrictionSpec(
        "knight-off-defence",
        "a tile placed on a border cell in the orientation that gives no defence shields "
        "there while the other one would (a knight turned away from the boundary)",
        "orientation",
        K.FORBID_KNIGHT_OFF_DEFENCE,
        source=f"{RULES} §8.4, §3.4, §3.7.3",
    ),
    RestrictionSpec(
        "church-apart",
        "a church tile placed so that none of its churches shares a road network with "
        "another church, once the estate holds a church",
        "kind",
        K.FORBID_CHURCH_APART,
        source=f"{RULES} §8.2, §3.3, §3.4",
    ),
    RestrictionSpec(
        "windmill-apart",
        "a windmill tile placed so that none of its windmills shares a road network with "
        "another windmill, once the estate holds a windmill",
        "kind",
        K.FORBID_WINDMILL_APART,
        source=f"{RULES} §8.3, §3.3, §3.4",
    ),
)

#: game-specific options (``--option KEY=VALUE``)
OPTIONS = {"tiles": "tile-set file (JSON, format in mcsim/data/don_quixote/README.md)"}

#: the ``mcts`` policy (also the parameters of ``mcts1``, ``kept_mcts``, while they agree)
MCTS_POLICY = PolicySpec(
    "mcts",
    K.POL_MCTS,
    "information-set Monte Carlo tree search (kernels/search.py): each "
    "iteration samples the unseen cells and tiles anew; reward = own total",
    MCTS_PARAMS,
)


SPEC = GameSpec(
    id="don-quixote",
    long_name="Don Quixote",
    rules=RULES,
    min_players=1,
    max_players=4,
    default_players=1,
    variants=(
        VariantSpec(
            "last_tile_rotation",
            ("free", "random"),
            DEFAULT_LAST_TILE_ROTATION,
            "orientation of the set-aside last tile",
            RULES + " §3.7.4",
        ),
        VariantSpec(
            "defence_road",
            ("own-half", "half-only"),
            DEFAULT_DEFENCE_ROAD,
            "which knight roads count for defence of the realm",
            RULES + " §3.7.3",
        ),
        VariantSpec(
            "castle_roads",
            ("file", "ln-rs", "ls-rn", "lw-re"),
            DEFAULT_CASTLE_ROADS,
            "castle stub exits (tile file or forced); the shipped set's castles are "
            "LN|RS, so ln-rs gives the same results as file with it",
            RULES + " §2.1, §3.7.1",
        ),
    ),
    policies=(
        PolicySpec("random", K.POL_RANDOM, "uniform over (face-up tile, rotation)", _FORBID),
        PolicySpec(
            "greedy",
            K.POL_GREEDY,
            "maximise the current round's score if scored now; ties: defence shields, "
            "knights at castles, lower tile index, 0° before 180°",
            _FORBID,
        ),
        PolicySpec(
            "heuristic",
            K.POL_HEURISTIC,
            "maximise a weighted evaluation of the estate",
            HEURISTIC_PARAMS + _FORBID,
        ),
        PolicySpec(
            "rollout",
            K.POL_ROLLOUT,
            "best mean of k completions per candidate on sampled futures",
            (
                ParamSpec("k", 8.0, "completions per candidate", 1.0, 4096.0, integer=True),
                ParamSpec(
                    "base",
                    1.0,
                    "base policy id: 0 random, 1 greedy, 2 heuristic (weights h_*)",
                    0.0,
                    2.0,
                    integer=True,
                ),
                # after the others: the kernel reads them from R_WEIGHTS
                *_base_weight_params("base=2"),
                *_FORBID,
            ),
        ),
        PolicySpec(
            "oracle",
            K.POL_ORACLE,
            "full-knowledge search (beam over rounds 1-2 + exact round 3, then simulated "
            "annealing of the within-round assignment): a lower bound on the best "
            "achievable total; not a playable policy",
            # bounded so that one game (one oracle decision) stays within seconds:
            # beam=512 or iters=1e6 took ~10-15 s per game on a 5x-overloaded 2-core
            # machine, ~2-3 s idle (beam=4096 or iters=1e9 ignored Ctrl-C for minutes)
            (
                ParamSpec(
                    "beam",
                    16.0,
                    "beam width for rounds 1-2 (cost grows linearly)",
                    1.0,
                    ORACLE_MAX_BEAM,
                    integer=True,
                ),
                ParamSpec(
                    "iters",
                    20000.0,
                    "simulated-annealing steps over the within-round "
                    "assignment after the beam (0 = beam only)",
                    0.0,
                    ORACLE_MAX_ITERS,
                    integer=True,
                ),
                # declared so that every policy has it (base contract); prepare refuses a
                # restricted oracle
                *_FORBID,
            ),
        ),
        MCTS_POLICY,
        PolicySpec(
            "hindsight",
            K.POL_HINDSIGHT,
            "hindsight optimisation: each candidate is valued by a full-knowledge search "
            "(beam start plan + iters annealing steps) on k sampled futures (unseen cells "
            "and tiles; the same futures for every candidate); round 3 by the exact "
            "expectimax over the cell order (endgame=1)",
            HINDSIGHT_PARAMS,
        ),
        kept_mcts(MCTS_POLICY),  # mcts1: today's mcts, kept (base.kept_mcts)
    ),
    summary_key="don_quixote",
    max_plies=K.N_PLACE,
    description="8x3 estate, 22 landscape tiles in rounds of 9/7/5+1, three scorings",
    restrictions=RESTRICTIONS,
    # no group covers a whole decision: 0° is legal at every free placement and one of the two
    # orientations always defends at least as much as the other; a church or windmill that
    # joins its kind, or a tile of another kind, is always permitted (§8)
    exhaustive_groups=(),
)
# the kernel reads each policy's mask at its parameter count (``K.FORBID_COL``)
assert all(
    int(K.FORBID_COL[p.id]) == len(p.params) - 1 and p.params[-1].name == "forbid_mask"
    for p in SPEC.policies
)

SCORING_COLUMNS = tuple(f"scoring{r}" for r in (1, 2, 3))
CATEGORY_COLUMNS = K.CAT_NAMES
DETAIL_COLUMNS = tuple(f"s{r}_{c}" for r in (1, 2, 3) for c in K.CAT_NAMES)


# ---------------------------------------------------------------- tile set
@dataclass(frozen=True)
class Piece:
    """One road piece: its ports (reference orientation), features on it (halves), castle stub."""

    ports: tuple[int, ...]
    features: tuple[int, ...]  # halves 0 = L, 1 = R
    castle_stub: bool = False


@dataclass(frozen=True)
class Tile:
    """One tile kind of a tile set (§6.1)."""

    id: str
    count: int
    confidence: str
    castle: int  # castle value, 0 for a landscape tile
    feature: tuple[str, str]  # per half
    shield: tuple[int, int]  # per half (0 unless knight)
    pieces: tuple[Piece, ...]


@dataclass
class TileSet:
    """A validated tile set: ``tiles`` kinds plus ``instances`` (one per physical tile).

    ``instances`` lists tile kinds in kernel order: landscape instances first, then the castles
    by value descending (6 then 4).
    """

    id: str
    provenance: str
    source: str
    path: str
    tiles: list[Tile]
    instances: list[Tile] = field(default_factory=list)

    @property
    def n_land(self) -> int:
        return sum(1 for t in self.instances if not t.castle)


def default_tiles_path() -> Path:
    """The shipped tile-set file (``DEFAULT_TILES``), read when no ``tiles`` option is given."""
    return Path(str(resources.files("mcsim") / "data" / "don_quixote" / DEFAULT_TILES))


def load_tileset(path: str | Path | None = None, strict: bool = True) -> TileSet:
    """Load and validate a Don Quixote tile-set JSON file (``docs/rules/don_quixote.md`` §6.1).

    Format: ``{"tileset": id, "provenance": str, "source": str, "tiles": [tile, ...]}``; a
    landscape tile is ``{"id", "count", "confidence": low|medium|high, "halves": {"L":
    {"feature": knight|church|windmill|none, "shield": 1-3 (knights)}, "R": {...}}, "roads":
    [{"ports": [LW|LN|LS|RE|RN|RS ...], "features": ["L"|"R" ...]}, ...]}``; a castle is ``{"id",
    "castle": 6|4, "roads": [{"ports": [...], "castle_stub": true}, x2]}``. A piece with ports in
    both halves implies the midline link; a feature on no piece has no road.

    Parameters
    ----------
    path : str or Path, optional
        The file; default the placeholder set of §2.3 shipped in ``mcsim/data/don_quixote/``.
    strict : bool
        Also check the set composition of §6.1 (22 landscape tiles + castles 6 and 4, a feature
        on every tile, <= 4 exit ports, 7 churches, shields include {3,3,2,2,1,1}). Tile-level
        rules are always checked. ``strict=False`` is for small synthetic test sets.

    Returns
    -------
    TileSet

    Raises
    ------
    DataFileError
        One line naming the file, the tile and the broken rule.

    Examples
    --------
    >>> ts = load_tileset()
    >>> ts.id, ts.provenance, ts.n_land, [t.castle for t in ts.instances[-2:]]
    ('placeholder-2.3-v0', 'reconstructed', 22, [6, 4])
    """
    p = Path(path) if path is not None else default_tiles_path()
    # the path as given (./sub/t.json; a basename alone is ambiguous)
    where = os.fspath(path) if path is not None else str(p)
    doc = read_json(where, "tile file")
    if not isinstance(doc, dict) or not isinstance(doc.get("tiles"), list):
        raise DataFileError(f"{where}: top level must be an object with a 'tiles' list")
    tsid = doc.get("tileset")
    if not isinstance(tsid, str) or not tsid:
        raise DataFileError(f"{where}: 'tileset' (the set's id) must be a non-empty string")
    prov = doc.get("provenance", "unknown")
    if not isinstance(prov, str):
        raise DataFileError(f"{where}: 'provenance' must be a string")
    tiles: list[Tile] = []
    seen: set[str] = set()
    for k, raw in enumerate(doc["tiles"]):
        tile = _parse_tile(raw, k, where)
        if tile.id in seen:
            raise DataFileError(f"{where}: tile {tile.id!r}: duplicate id")
        seen.add(tile.id)
        tiles.append(tile)
    if strict:
        _check_composition(tiles, where)
    else:
        castles = [t.castle for t in tiles if t.castle]
        if len(castles) > 2 or len(set(castles)) != len(castles):
            raise DataFileError(f"{where}: at most 2 castles with different values")
    land = [t for t in tiles if not t.castle for _ in range(t.count)]
    castles = sorted((t for t in tiles if t.castle), key=lambda t: -t.castle)
    return TileSet(tsid, prov, str(doc.get("source", "")), str(p), tiles, land + castles)


#: STYLE name for the loader (same public names in every game module)
def load_data(path: str | Path | None = None, strict: bool = True) -> TileSet:
    """Alias of ``load_tileset`` (the common public name of a game's data loader)."""
    return load_tileset(path, strict)


def _parse_tile(raw: Any, k: int, where: str) -> Tile:
    if not isinstance(raw, dict):
        raise DataFileError(f"{where}: tile #{k}: must be an object")
    tid = raw.get("id")
    if not isinstance(tid, str) or not tid:
        raise DataFileError(f"{where}: tile #{k}: 'id' must be a non-empty string")

    def bad(rule: str) -> DataFileError:
        return DataFileError(f"{where}: tile {tid!r}: {rule}")

    count = raw.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise bad("'count' must be an integer >= 1")
    conf = raw.get("confidence", "low")
    if conf not in CONFIDENCE:
        raise bad(f"'confidence' must be one of {'|'.join(CONFIDENCE)}")
    castle = raw.get("castle", 0)
    if not isinstance(castle, int) or isinstance(castle, bool) or castle < 0:
        raise bad("'castle' must be a positive integer (castle value)")
    halves = raw.get("halves", {} if castle else None)
    if not isinstance(halves, dict) or set(halves) - set(HALVES):
        raise bad("'halves' must be an object with keys L and R")
    feature = []
    shield = []
    for h in HALVES:
        hv = halves.get(h, {"feature": "none"})
        if not isinstance(hv, dict):
            raise bad(f"half {h} must be an object")
        f = hv.get("feature", "none")
        if f not in FEATURES:
            raise bad(f"half {h}: feature must be one of {'|'.join(FEATURES)}")
        s = hv.get("shield", 0)
        if f == "knight":
            if s not in SHIELD_VALUES or isinstance(s, bool):
                raise bad(f"half {h}: knight shield must be one of {SHIELD_VALUES}")
        elif "shield" in hv:
            raise bad(f"half {h}: only a knight has a shield")
        feature.append(f)
        shield.append(int(s) if f == "knight" else 0)
    roads = raw.get("roads", [])
    if not isinstance(roads, list):
        raise bad("'roads' must be a list of road pieces")
    pieces = []
    used_ports: set[int] = set()
    featured: Counter = Counter()
    for j, r in enumerate(roads):
        if not isinstance(r, dict):
            raise bad(f"road piece #{j} must be an object")
        ports = r.get("ports")
        if not isinstance(ports, list) or not ports:
            raise bad(f"road piece #{j}: 'ports' must be a non-empty list")
        idx = []
        for q in ports:
            if q not in K.PORT_NAMES:
                raise bad(f"road piece #{j}: unknown port {q!r} (ports: {', '.join(K.PORT_NAMES)})")
            i = K.PORT_NAMES.index(q)
            if i in used_ports:
                raise bad(f"port {q} belongs to more than one road piece")
            used_ports.add(i)
            idx.append(i)
        feats = r.get("features", [])
        if not isinstance(feats, list):
            raise bad(f"road piece #{j}: 'features' must be a list of halves")
        fidx = []
        for h in feats:
            if h not in HALVES:
                raise bad(f"road piece #{j}: feature half {h!r} must be L or R")
            if feature[HALVES.index(h)] == "none":
                raise bad(f"road piece #{j}: half {h} has no feature to lie on the road")
            featured[h] += 1
            fidx.append(HALVES.index(h))
        stub = r.get("castle_stub", False)
        if not isinstance(stub, bool):
            raise bad(f"road piece #{j}: 'castle_stub' must be true or false")
        if stub != bool(castle):
            raise bad(f"road piece #{j}: castle stubs exactly on castle tiles")
        if stub and fidx:
            raise bad(f"road piece #{j}: a castle stub carries no features")
        pieces.append(Piece(tuple(idx), tuple(fidx), stub))
    for h in HALVES:
        if featured[h] > 1:
            raise bad(f"the feature of half {h} lies on more than one road piece")
    if castle:
        if any(f != "none" for f in feature):
            raise bad("a castle tile has no knight, church or windmill")
        if len(pieces) != 2:
            raise bad("a castle has exactly 2 road stubs (§2.1)")
        if count != 1:
            raise bad("castle count must be 1")
    # roadless features become roadless pieces
    for hi, h in enumerate(HALVES):
        if feature[hi] != "none" and featured[h] == 0:
            pieces.append(Piece((), (hi,)))
    if len(pieces) > K.MAXP:
        raise bad(f"more than {K.MAXP} road pieces (roadless features included)")
    return Tile(tid, count, conf, castle, tuple(feature), tuple(shield), tuple(pieces))


def _check_composition(tiles: list[Tile], where: str) -> None:
    castles = sorted(t.castle for t in tiles if t.castle)
    if tuple(sorted(CASTLE_VALUES)) != tuple(castles):
        raise DataFileError(
            f"{where}: the set needs exactly the castles {CASTLE_VALUES}, "
            f"found {tuple(castles) or 'none'}"
        )
    n_land = sum(t.count for t in tiles if not t.castle)
    if n_land != N_LANDSCAPE:
        raise DataFileError(f"{where}: the set needs {N_LANDSCAPE} landscape tiles, found {n_land}")
    churches = 0
    shields: Counter = Counter()
    for t in tiles:
        exits = sum(len(p.ports) for p in t.pieces)
        if t.castle:
            continue
        if all(f == "none" for f in t.feature):
            raise DataFileError(
                f"{where}: tile {t.id!r}: a landscape tile needs at least one "
                "knight, church or windmill (§2.1)"
            )
        if exits > MAX_EXIT_PORTS:
            raise DataFileError(
                f"{where}: tile {t.id!r}: {exits} exit ports, at most {MAX_EXIT_PORTS} (§2.1)"
            )
        churches += t.count * sum(f == "church" for f in t.feature)
        for f, s in zip(t.feature, t.shield):
            if f == "knight":
                shields[s] += t.count
    if churches != N_CHURCHES:
        raise DataFileError(
            f"{where}: the set needs {N_CHURCHES} churches, found {churches} (§2.2)"
        )
    need = Counter(MIN_SHIELDS)
    for s, n in need.items():
        if shields[s] < n:
            raise DataFileError(
                f"{where}: knight shields must include {sorted(MIN_SHIELDS)}; "
                f"only {shields[s]} knight(s) with shield {s} (§2.2)"
            )


def _rot_mask(ports: tuple[int, ...], o: int) -> int:
    m = 0
    for q in ports:
        m |= 1 << (int(K.ROT_PORT[q]) if o else q)
    return m


def build_tables(ts: TileSet, variant: dict[str, str] | None = None) -> np.ndarray:
    """Compile a tile set into the kernel table ``int64[T, 2, TW]`` (``kernels.don_quixote``).

    ``variant`` (resolved) selects ``defence_road`` and ``castle_roads`` (§3.7); the defence
    shields per cell follow rules §3.4 (knight on a border cell whose own half has an
    outer-boundary port on the knight's road piece).
    """
    variant = variant or {}
    half_only = variant.get("defence_road", DEFAULT_DEFENCE_ROAD) == "half-only"
    castle_roads = variant.get("castle_roads", DEFAULT_CASTLE_ROADS)
    T = len(ts.instances)
    tab = np.zeros((T, 2, K.TW), dtype=np.int64)
    castle_ids = {}
    for i, t in enumerate(ts.instances):
        if t.castle:
            castle_ids[i] = len(castle_ids)
    for i, t in enumerate(ts.instances):
        pieces = t.pieces
        if t.castle and castle_roads != "file":
            a, b = CASTLE_ROAD_PORTS[castle_roads]
            pieces = (
                Piece((K.PORT_NAMES.index(a),), (), True),
                Piece((K.PORT_NAMES.index(b),), (), True),
            )
        for o in range(2):
            row = tab[i, o]
            row[K.T_CASTLE : K.T_CASTLE + K.MAXP] = -1
            row[K.T_PP : K.T_PP + 6] = -1
            row[K.T_NP] = len(pieces)
            row[K.T_CVAL] = t.castle
            for k, pc in enumerate(pieces):
                pm = _rot_mask(pc.ports, o)
                row[K.T_PORTS + k] = pm
                for q in range(6):
                    if pm >> q & 1:
                        row[K.T_PP + q] = k
                if pc.castle_stub:
                    row[K.T_CASTLE + k] = castle_ids[i]
                for h in pc.features:
                    f = t.feature[h]
                    if f == "knight":
                        row[K.T_KN + k] += 1
                        row[K.T_SH + k] += t.shield[h]
                        oh = h ^ o  # the half after turning
                        own = pm & int(K.HALF_MASK[oh])
                        if half_only and pm & int(K.HALF_MASK[1 - oh]):
                            own = 0
                        for cell in range(K.N_CELLS):
                            if own & int(K.BOUNDARY[cell]):
                                row[K.T_DEF + cell] += t.shield[h]
                    elif f == "church":
                        row[K.T_CH + k] += 1
                    elif f == "windmill":
                        row[K.T_WM + k] += 1
    return tab


# ---------------------------------------------------------------- names
def cell_index(name: str) -> int:
    """Cell index of a name like ``"G3"`` (rows A-H, columns 1-3); -1 if not a cell."""
    name = str(name).strip().upper()
    return K.CELL_NAMES.index(name) if name in K.CELL_NAMES else -1


def format_move(ts: TileSet, cell: int, t: int, o: int) -> dict:
    """A placement in record form ``{"cell": "G3", "tile": "K3a", "rot": 0|180}``."""
    return {"cell": K.CELL_NAMES[cell], "tile": ts.instances[t].id, "rot": 180 * int(o)}


# ---------------------------------------------------------------- protocol
def prepare(config: RunConfig) -> Prepared:
    """Validate the run, load the tile set (``config.options["tiles"]``) and compile it.

    ``config`` comes from ``resolve_config``. Raises ``DataFileError`` (tile file),
    ``ConfigError`` (mcts with more landscape tiles than its search handles; a restricted
    ``oracle``, docs/rules/don_quixote.md §8).
    """
    variant = config.variant
    ids, params = policy_arrays(SPEC, config.policies)
    for k, pid in enumerate(ids):
        if pid == K.POL_ORACLE and params[k, K.FORBID_COL[pid]]:
            raise ConfigError(
                "don-quixote: oracle:forbid= is not supported (its full-knowledge plan and "
                "annealing do not filter forbidden placements); restrict a playable policy"
            )
    ts = load_tileset(config.options.get("tiles"))
    if (ids == K.POL_MCTS).any() and ts.n_land > K.MAX_SEARCH_LAND:
        raise ConfigError(
            f"don-quixote: mcts handles at most {K.MAX_SEARCH_LAND} landscape "
            f"tiles; the tile set has {ts.n_land}"
        )
    tab = build_tables(ts, variant)
    prep = Prepared(
        config=config,
        policy_ids=ids,
        policy_params=params,
        variant_codes=SPEC.variant_codes(variant),
        tables={"tiles": tab},
        info={"tileset": {"id": ts.id, "provenance": ts.provenance}},
    )
    prep.tables["tile_names"] = [t.id for t in ts.instances]
    prep.tables["tiles_path"] = ts.path if config.options.get("tiles") else None
    if ts.provenance != "verified":
        prep.notices.append(
            f"don-quixote: tile set {ts.id!r} is {ts.provenance} (rules §2.3/§6.3): figures "
            "depend on an unverified tile set; do not report them as game results"
        )
    return prep


def new_outputs(n: int, seats: int) -> tuple[np.ndarray, np.ndarray]:
    """Zeroed outputs of ``n`` games for the entry kernels: the scores ``int64[n, seats]`` and
    the breakdowns ``int64[n, seats, 3, K.N_CAT]`` (per scoring and category)."""
    return (np.zeros((n, seats), dtype=np.int64), np.zeros((n, seats, 3, K.N_CAT), dtype=np.int64))


def play_chunk(prep: Prepared, first_game_index: int, n_games: int, root_seed: int) -> dict:
    """Play games ``first_game_index ..`` and return the per-game columns.

    Returns ``score`` int64[n, seats] (game totals, points), ``length`` int32[n] (22
    placements), and per seat: ``scoring1..3`` (points per scoring), the six category totals
    (``castle6``, ``castle4``, ``churches``, ``windmills``, ``defence``, ``knight_bonus``) and
    ``s{r}_{category}`` (each scoring's breakdown), all int64[n, seats]; when a seat is
    restricted (``is_restricted``) also ``forbid_avoided`` and ``forbid_forced`` int64[n,
    seats], each seat's decisions that avoided a forbidden option / where every legal option
    was forbidden (docs/rules/don_quixote.md §8).
    """
    seats = prep.policy_ids.shape[0]
    score, bd = new_outputs(n_games, seats)
    forbid = new_forbid_counts(prep, n_games)
    K.entry_for(prep.policy_ids)(
        np.int64(first_game_index),
        np.int64(n_games),
        np.uint64(root_seed),
        prep.policy_ids,
        prep.policy_params,
        prep.variant_codes,
        prep.tables["tiles"],
        score,
        bd,
        empty_record(0, seats, prep.tables["tiles"].shape[0] - 2),
        forbid,
    )
    cols = _columns(score, bd)
    if forbid is not None:
        cols["forbid_avoided"] = forbid[:, :, 0].copy()
        cols["forbid_forced"] = forbid[:, :, 1].copy()
    return cols


def is_restricted(prep: Prepared) -> bool:
    """Whether some seat of the run forbids options (``forbid=`` names, or a ``forbid_mask``
    set by number): restricted play, docs/rules/don_quixote.md §8."""
    cols = K.FORBID_COL[prep.policy_ids]
    masks = prep.policy_params[np.arange(len(cols)), cols]
    return bool(restricted_seats(prep.config) or masks.any())


def new_forbid_counts(prep: Prepared, n: int) -> np.ndarray | None:
    """The entry kernels' ``out_forbid`` for ``n`` games: zeroed int64[n, seats, 2] (avoided,
    forced) when the run is restricted (``is_restricted``), else None (then the kernels
    compile no restricted-play code)."""
    if not is_restricted(prep):
        return None
    return np.zeros((n, prep.policy_ids.shape[0], 2), dtype=np.int64)


def empty_record(n: int, seats: int, n_land: int) -> tuple:
    """The kernels' ``out_record`` for ``n`` recorded games (see ``K.play_batch_simple``)."""
    return (
        np.zeros((n, 2), dtype=np.int64),
        np.zeros((n, K.N_PLACE), dtype=np.int64),
        np.zeros((n, seats, n_land), dtype=np.int64),
        np.zeros((n, seats), dtype=np.int64),
        np.zeros((n, seats, K.N_PLACE, 2), dtype=np.int64),
    )


def search_start(prep: Prepared, seed: int, game_index: int) -> tuple:
    """The start of game ``game_index`` of ``seed`` as ``kernels.search``'s steps see it:
    ``(state, ctx)``, the root ``choose_mcts`` gives the search at seat 0's first placement
    (``search_root`` of the dealt estate, castles placed, with the round-1 hand; int64[S_ROWS,
    N_NODES]) with its hidden fields (later cells, unrevealed tiles, the set-aside tile's
    orientation) holding the deal, not -1, and a ``DonQuixoteSearchContext`` of the run's tile
    table and variant with random rollouts, no restriction (``forbid`` None; give it an
    int64[RS_WIDTH] with ``_replace`` to restrict) and the scratch of ``search_scratch`` (used by the
    kernel test battery, ``tests/test_kernel_battery.py``)."""
    tiles = prep.tables["tiles"]
    seats = prep.policy_ids.shape[0]
    n_land = tiles.shape[0] - 2
    castles = np.zeros(2, np.int64)
    cells = np.zeros(K.N_PLACE, np.int64)
    seq = np.zeros((seats, n_land), np.int64)
    last_rot = np.zeros(seats, np.int64)
    K.deal(np.uint64(seed), np.int64(game_index), seats, n_land, castles, cells, seq, last_rot)
    S = K.setup_estate(tiles, castles)
    last_rand = bool(prep.variant_codes[K.layout.V_LAST_ROT] == K.layout.LAST_ROT_RANDOM)
    mask = (1 << int(last_rot[0])) if last_rand else K.layout.ROT_BOTH
    hand = np.zeros(K.layout.HAND_SLOTS, np.int64)
    nh = K.reveal(hand, np.int64(0), seq[0], np.int64(0))
    scr = K.search_scratch(tiles, np.int64(2))
    root = np.zeros_like(scr[0])
    K.search_root(
        S, tiles, cells, seq[0], np.int64(0), hand, nh, np.int64(0), np.int64(mask), last_rand, root
    )
    # search_root writes what the player has not seen as -1 / 3, and the search determinizes
    # every iteration before it applies a move; a game played through the steps needs the
    # deal itself there (apply reveals the next round's tiles from SC_SEQ)
    root[K.SC, K.SC_FCELLS : K.SC_FCELLS + K.N_PLACE] = cells
    root[K.SC, K.SC_SEQ : K.SC_SEQ + n_land] = seq[0]
    root[K.SC, K.SC_LROT] = mask
    w, log, saved, open_ws, nobd, moves2 = scr[11:]
    ctx = K.search_steps.DonQuixoteSearchContext(
        tiles, last_rand, np.int64(K.POL_RANDOM), w, log, saved, open_ws, nobd, moves2, None
    )  # fmt: skip
    return root, ctx


def _columns(score: np.ndarray, bd: np.ndarray) -> dict:
    out: dict[str, np.ndarray] = {
        "score": score,
        "length": np.full(score.shape[0], K.N_PLACE, dtype=np.int32),
    }
    for r in range(3):
        out[SCORING_COLUMNS[r]] = bd[:, :, r, :].sum(axis=2)
    for c, name in enumerate(CATEGORY_COLUMNS):
        out[name] = bd[:, :, :, c].sum(axis=2)
    for r in range(3):
        for c, name in enumerate(K.CAT_NAMES):
            out[f"s{r + 1}_{name}"] = bd[:, :, r, c].copy()
    return out


BANDS = (70, 85, 100)  # rulebook solo bands (§3.6): very good, very rare, incredible


# ---------------------------------------------------------------- evaluation hooks (evaluate)
EVALUATE_BANDS = BANDS
EVALUATE_GROUPS = {"mean_per_category": CATEGORY_COLUMNS, "mean_per_scoring": SCORING_COLUMNS}
ORACLE_POLICY = "oracle"
#: the value of information (oracle minus the best playable policy) is split per scoring
EVALUATE_INFORMATION_GROUP = "mean_per_scoring"
#: ensemble generator facts (§6.3): 8 knights, shields include {3,3,2,2,1,1}, sum 14-17
ENSEMBLE_KNIGHTS = 8
ENSEMBLE_SHIELD_SUM = (14, 17)
ENSEMBLE_EXITS = (2, 4)  # exit ports per landscape tile (placeholder range, §2.3)
ENSEMBLE_P_MID = 0.8  # share of tiles whose road crosses the midline
ENSEMBLE_CASTLE_ROADS = ("ln-rs", "ls-rn")  # the castle exits that fit the round-1 example (§2.1)


def random_tileset_doc(seed: int, index: int) -> dict:
    """A random tile set obeying the invariants of rules §6.1 and the facts of §2.2 (§6.3).

    22 landscape tiles with one symbol each: 8 knights (shields {3,3,2,2,1,1} plus two more,
    sum 14-17), 7 churches, 7 windmills; each symbol on a random half; 2-4 exit ports; the road
    crosses the midline with probability 0.8 (else one piece per half, the symbol on its
    half's piece); castles both LN|RS or both LS|RN. Reproducible from ``(seed, index)``.
    """
    rng = np.random.default_rng([int(seed), int(index), 0xD0C])
    lo, hi = ENSEMBLE_SHIELD_SUM
    extra_n = ENSEMBLE_KNIGHTS - len(MIN_SHIELDS)
    while True:
        extra = [int(x) for x in rng.choice(SHIELD_VALUES, size=extra_n)]
        if lo <= sum(MIN_SHIELDS) + sum(extra) <= hi:
            break
    shields = list(MIN_SHIELDS) + extra
    feats = (
        [("knight", s) for s in shields]
        + [("church", 0)] * N_CHURCHES
        + [("windmill", 0)] * (N_LANDSCAPE - ENSEMBLE_KNIGHTS - N_CHURCHES)
    )
    tiles = []
    counters: Counter = Counter()
    for f, s in feats:
        counters[f] += 1
        tid = f"{f[0].upper()}{counters[f]}"
        h = "LR"[int(rng.integers(0, 2))]
        halves = {"L": {"feature": "none"}, "R": {"feature": "none"}}
        halves[h] = {"feature": f, "shield": s} if f == "knight" else {"feature": f}
        n = int(rng.integers(ENSEMBLE_EXITS[0], ENSEMBLE_EXITS[1] + 1))
        ports = [str(p) for p in rng.choice(K.PORT_NAMES, size=n, replace=False)]
        ports.sort(key=K.PORT_NAMES.index)
        own = [p for p in ports if p[0] == h]
        other = [p for p in ports if p[0] != h]
        if rng.random() < ENSEMBLE_P_MID or not own or not other:
            roads = [{"ports": ports, "features": [h]}]
        else:
            roads = [{"ports": own, "features": [h]}, {"ports": other, "features": []}]
        tiles.append({"id": tid, "count": 1, "confidence": "low", "halves": halves, "roads": roads})
    a, b = CASTLE_ROAD_PORTS[ENSEMBLE_CASTLE_ROADS[int(rng.integers(0, 2))]]
    for v in CASTLE_VALUES:
        tiles.append(
            {
                "id": f"CASTLE{v}",
                "castle": v,
                "count": 1,
                "confidence": "low",
                "roads": [{"ports": [a], "castle_stub": True}, {"ports": [b], "castle_stub": True}],
            }
        )
    return {
        "format": "mcsim-don-quixote-tiles/1",
        "tileset": f"ensemble-s{int(seed)}-{int(index):03d}",
        "provenance": "generated",
        "source": "mcsim.games.don_quixote.random_tileset_doc (rules §6.3 ensemble)",
        "geometry": {"rows": K.ROW_NAMES, "cols": K.COL_NAMES, "tile_long_axis": "horizontal"},
        "tiles": tiles,
    }


def ensemble_options(k: int, seed: int, out_dir: str | None = None) -> list[tuple[str, dict]]:
    """``k`` random tile sets (``random_tileset_doc(seed, i)``) as ``(label, {"tiles": path})``.

    Each set is written to ``out_dir`` (created if needed) as ``<tileset id>.json`` so it can be
    inspected and reused with ``--option tiles=FILE``; without ``out_dir`` a temporary directory is used.
    Every set is loaded back with the strict checks of rules §6.1.
    """
    import tempfile

    d = Path(out_dir) if out_dir else Path(tempfile.mkdtemp(prefix="dq-ensemble-"))
    d.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(k):
        doc = random_tileset_doc(seed, i)
        p = d / f"{doc['tileset']}.json"
        p.write_text(
            "{\n"
            + ",\n".join(
                f" {json.dumps(key)}: {json.dumps(val)}"
                for key, val in doc.items()
                if key != "tiles"
            )
            + ',\n "tiles": [\n'
            + ",\n".join("  " + json.dumps(t) for t in doc["tiles"])
            + "\n ]\n}\n"
        )
        load_tileset(p)  # strict: the generator must obey §6.1
        out.append((doc["tileset"], {"tiles": str(p)}))
    return out


# ---------------------------------------------------------------- the rest of the game protocol
CHUNK_SIZE = 20_000
CHUNK_MULTIPLE = 1


def check_config(config: RunConfig) -> RunConfig:
    """``tiles`` must be a file path (``check_options``); the file itself is checked by
    ``prepare``. Raises ``BadValueError``."""
    return check_options(config, {"tiles": "file"})


# ---------------------------------------------------------------- the other roles
# imported last: records and summary use the names above
from mcsim.games.don_quixote import charts, records, summary  # noqa: E402

CHARTS = charts.CHARTS  # the report's figures of the game (``mcsim.games.don_quixote.charts``)
finalize_summary = summary.finalize_summary
format_summary = summary.format_summary
partial_summary = summary.partial_summary
summarize = summary.summarize
format_replay = records.format_replay
perft = records.perft
perft_deal = records.perft_deal
record_games = records.record_games
replay = records.replay

# the drawer of ``mcsim show`` (imported after the re-exports above, which it reads)
from mcsim.games.don_quixote import show  # noqa: E402

show_frames = show.frames  # one frame per ply (``mcsim.games.don_quixote.show``)
