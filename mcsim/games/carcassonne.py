"""Carcassonne (base game C2/C3 with farmers, 2-5 players) and the mini-expansion The Gifts.

Rules: ``docs/rules/carcassonne.md``. Kernel: ``kernels.carcassonne``. Data:
``mcsim/data/carcassonne/tiles.json`` (the 72-tile table of §2, checked against its checksums on
load), ``gifts.json`` (the 25 gift cards, §4.1; 2 points per unopened card, §4.5; Cash Out's 2 per
meeple, §4.4.3), ``scoring.json`` (point values of §3.3 and the 7 meeples per player). Change
values there only.

Variants (``--variant name=value``; readings of the ambiguity table §6)
--------------------------------------------------------------------
=====================  ======================  =========  =========================================
name                   values                  default    meaning
=====================  ======================  =========  =========================================
gifts                  false | true            false      §4: play with The Gifts
farms                  v3 | v2 | v1 | none     v3         §3.3, §6 #18: farm rule (v3 current: 3 per
                                                          completed city per field; v2: each city
                                                          once per player; v1: 4 per city to the
                                                          farmer majority of all its fields)
tiny_city              false | true            false      §6 #17: a completed 2-tile city scores 2
                                                          (old rule) instead of 4
gift_shared_majority   no_gift | gift          no_gift    §6 #1: a gift when you only share the
                                                          majority of the extended feature
gift_on_completion     gift | no_gift          gift       §6 #3: does a feature completed by the
                                                          tile still give a gift
cash_out_counts        all | own               all        §6 #7: Cash Out counts all players'
                                                          meeples in the feature, or only yours
change_to_completed    disallow | allow        disallow   §6 #8: Change Position may stand a farmer
                                                          up on a completed feature of its tile
take2_other            shuffle | discard       shuffle    §6 #10: the Take 2 tile not chosen goes
                                                          back into the pile (random place) or out
gift_majority_judged   after_placement |       after_     §4.2, §6 #2: "belongs to someone else"
                       before_placement        placement  judged on the merged feature, or on each
                                                          extended feature before the tile joined
gift_deck              all | synod |           all        analysis only (not a rule reading): a
                       road_sweeper | ...                 deck of 25 cards of one type, e.g.
                                                          ``mcsim compare carcassonne --variant
                                                          gifts=true --variant gifts=true,
                                                          gift_deck=synod`` measures a Synod's worth
=====================  ======================  =========  =========================================

Fixed readings: the gift check comes before the meeple step (§6 #4; it cannot matter, the new
meeple only goes on an unoccupied feature, which never gives a gift); Synod / Road
Sweeper / Cash Out / Change Position may be opened without effect (#5, #6); unplaceable draws are
removed before any gift decision (#14); Take 2 is the turn's single gift (#15); the gift deck is
reshuffled from the discards when empty (#12); monasteries with several monks score by majority
(#19); tiles of a feature are counted once (#16); seat 0 starts (#20). Policies see only the count
of an opponent's gift cards (§6 #13): neither policy looks at opponents' hands.

Policies
--------
``random``: uniform over distinct legal placements (symmetric rotations counted once), then
uniform over the meeple choices (none included), then uniform over the gift decisions (open none
or one held type; uniform target). ``heuristic``: one-ply evaluation of every placement and meeple
choice by immediate points plus potential of open features and farms, a meeple cost that grows as
the supply shrinks, a bonus for earning a gift card, and gift opening (Synod, Road Sweeper, Cash
Out, Take 2 for a poor tile; never Change Position) when the estimated gain exceeds ``hold``.
All weights are ``ParamSpec`` numbers (``heuristic:hold=2,farm=3``).

``mcts`` (issue 15): information-set MCTS (``kernels/search.py``, Cowling, Powley and Whitehouse
2012) over every decision of a turn (gift to open and its target, Take 2's tile, placement,
meeple); each iteration resamples what the deciding seat cannot see (§6 #13): the order of the
remaining tiles, the other seats' gift cards (their counts are public) and the gift deck. Each
seat maximises its own margin over the best other seat (``reward=1``, points / ``scale``) or its
win share (``reward=0``), one tree per decision of the seat. Rollouts: the heuristic at its
default weights (``rollout=1``) or uniform play (``rollout=0``) for ``depth`` turns, then the
position is scored as if the game ended (``score_final``; ``depth=0`` plays to the end).
``width`` keeps the placements the heuristic values highest, in the tree and the rollouts.
Defaults and their strength: benchmarks/RESULTS.md ("Search", Carcassonne).

Statistics: ``summarize`` (the ``"carcassonne"`` block) and the per-game columns of
``play_chunk``; ``mcsim compare carcassonne --variant gifts=false --variant gifts=true``
(``mcsim.compare_variants``) plays variants on the same tile orders with paired differences.
Records: ``record_games`` / ``replay``. ``mcsim perft carcassonne --depth D`` (``perft``): turn
sequences (placement x meeple choice) from the unshuffled pile ``A A B B B B C ...``
(``perft_pile``), base game: 20, 790, 31 032, 1 602 944 for depths 1-4 (depth 3 under a second,
depth 4 about 25 s).

Coordinates: the start tile D is at (0, 0) with its city to the north; x grows east, y south
(§5). Rotation r = r quarter turns clockwise from the canonical orientation of §2. Segments of a
tile are named ``city0..``, ``road0..``, ``field0..``, ``cloister`` in the order of §2.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

import numpy as np

import kernels.carcassonne as K
from mcsim.errors import ConfigError, DataFileError, IllegalMoveError, InvalidRecordError
from mcsim.files import read_json
from mcsim.games.base import (
    GameSpec,
    ParamSpec,
    PolicySpec,
    Prepared,
    RunConfig,
    VariantSpec,
    check_players,
    check_recorded_points,
    policy_arrays,
)

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "carcassonne"
SIDES = "NESW"
EDGE_CODE = {"C": K.EDGE_CITY, "R": K.EDGE_ROAD, "F": K.EDGE_FIELD}
KIND_NAMES = ("city", "road", "field", "cloister")
GIFT_IDS = ("synod", "road_sweeper", "cash_out", "change_position", "take_2")
CATEGORIES = ("road", "city", "monastery", "farm", "gift")
SCORING_KEYS = (
    "road_per_tile",
    "city_complete_per_tile",
    "city_complete_per_pennant",
    "city_end_per_tile",
    "city_end_per_pennant",
    "tiny_city_points",
    "monastery_complete",
    "monastery_end_base",
    "monastery_end_per_neighbour",
    "farm_per_city",
    "farm_v1_per_city",
    "meeples_per_player",
)
CHUNK_SIZE = 2_000
DEFAULT_GIFTS = "false"
DEFAULT_FARMS = "v3"

_src = "docs/rules/carcassonne.md"
VARIANTS = (
    VariantSpec("gifts", ("false", "true"), DEFAULT_GIFTS, "play with The Gifts", f"{_src} §4"),
    VariantSpec(
        "farms",
        ("v3", "v2", "v1", "none"),
        DEFAULT_FARMS,
        "farm rule: v3 current, v2 once per player, v1 city-centric, none",
        f"{_src} §3.3, §6 #18",
    ),
    VariantSpec(
        "tiny_city",
        ("false", "true"),
        "false",
        "a completed 2-tile city scores 2",
        f"{_src} §6 #17",
    ),
    VariantSpec(
        "gift_shared_majority",
        ("no_gift", "gift"),
        "no_gift",
        "gift when the player only shares the majority",
        f"{_src} §6 #1",
    ),
    VariantSpec(
        "gift_on_completion",
        ("gift", "no_gift"),
        "gift",
        "gift when the extended feature is completed by the tile",
        f"{_src} §6 #3",
    ),
    VariantSpec(
        "cash_out_counts", ("all", "own"), "all", "meeples Cash Out pays for", f"{_src} §6 #7"
    ),
    VariantSpec(
        "change_to_completed",
        ("disallow", "allow"),
        "disallow",
        "Change Position onto a completed feature",
        f"{_src} §6 #8",
    ),
    VariantSpec(
        "take2_other",
        ("shuffle", "discard"),
        "shuffle",
        "what happens to the Take 2 tile not chosen",
        f"{_src} §6 #10",
    ),
    VariantSpec(
        "gift_majority_judged",
        ("after_placement", "before_placement"),
        "after_placement",
        "majority of the extended road/city judged on the merged feature or on the "
        "feature as it was before the tile",
        f"{_src} §4.2, §6 #2",
    ),
    VariantSpec(
        "gift_deck",
        ("all",) + GIFT_IDS,
        "all",
        "analysis, not a rule reading: the gift deck holds only cards of one type (as many "
        "as the whole deck), to measure what each card is worth",
        f"{_src} §4.1",
    ),
)

#: readings of The Gifts (§4, §6 #1-#12): with ``gifts=false`` they could change nothing
GIFT_READINGS = (
    "gift_shared_majority",
    "gift_on_completion",
    "cash_out_counts",
    "change_to_completed",
    "take2_other",
    "gift_majority_judged",
    "gift_deck",
)


def gift_readings_error(variant: dict) -> str | None:
    """One-line error when a resolved ``variant`` sets a reading of The Gifts away from its default
    while ``gifts=false`` (the reading would change nothing), else None.

    >>> gift_readings_error(SPEC.resolve_variant({"cash_out_counts": "own"}))
    'variant cash_out_counts=own needs gifts=true (it is a reading of The Gifts, §4)'
    >>> gift_readings_error(SPEC.resolve_variant({"gifts": "true", "cash_out_counts": "own"}))
    """
    if variant.get("gifts") == "true":
        return None
    for v in VARIANTS:
        if v.name in GIFT_READINGS and variant.get(v.name, v.default) != v.default:
            return (
                f"variant {v.name}={variant[v.name]} needs gifts=true "
                f"(it is a reading of The Gifts, §4)"
            )
    return None


HEURISTIC_PARAMS = (
    ParamSpec("w_opp", 0.6, "weight of points going to an opponent (subtracted)", 0.0, 5.0),
    ParamSpec(
        "pot", 0.5, "potential factor of open features (scaled by tiles left / 71)", 0.0, 5.0
    ),
    ParamSpec("open_pen", 0.3, "penalty per open city edge (risk of not completing)", 0.0, 5.0),
    ParamSpec("meeple", 1.5, "cost of a meeple locked in an open feature (points)", 0.0, 20.0),
    ParamSpec("scarcity", 2.0, "extra meeple cost when the supply is empty (linear)", 0.0, 20.0),
    ParamSpec("farm", 2.5, "farmer worth per adjacent city segment at the end", 0.0, 10.0),
    ParamSpec(
        "farm_turn", 15.0, "no farmers before this many tiles are placed", 0.0, 72.0, integer=True
    ),
    ParamSpec("mon", 1.0, "weight of monastery worth", 0.0, 5.0),
    ParamSpec(
        "hold",
        4.0,
        "open a gift only when its estimated gain exceeds this (an unopened "
        "card is worth 2; 4 beat 2 head to head, 2 x 400 games)",
        -100.0,
        100.0,
    ),
    ParamSpec(
        "take2",
        -2.0,
        "open Take 2 when the best placement of the drawn tile is worth less",
        -100.0,
        100.0,
    ),
    ParamSpec(
        "gift",
        2.0,
        "worth of earning a gift card by extending someone else's road/city",
        -100.0,
        100.0,
    ),
)

#: ``mcts`` parameters (kernel order ``kernels.carcassonne.M_*``); defaults chosen in
#: benchmarks/RESULTS.md ("Search", Carcassonne)
MCTS_PARAMS = (
    ParamSpec(
        "iterations",
        300.0,
        "search iterations per decision (no wall-clock budget)",
        1.0,
        1e6,
        integer=True,
    ),
    ParamSpec(
        "c",
        0.7,
        "UCB1 exploration constant (rewards in [0, 1] for win, points/scale for margin)",
        0.0,
        100.0,
    ),
    ParamSpec(
        "reward",
        1.0,
        "0 = win share of each seat, 1 = margin ((own - best other) / scale)",
        0.0,
        1.0,
        integer=True,
    ),
    ParamSpec(
        "rollout",
        1.0,
        "rollout policy: 0 random, 1 heuristic (at its default weights)",
        0.0,
        1.0,
        integer=True,
    ),
    ParamSpec("scale", 20.0, "points per reward unit of the margin reward", 1.0, 1000.0),
    ParamSpec(
        "width",
        4.0,
        "keep only the placements the heuristic values highest (0 = all), in the tree and the "
        "rollouts",
        0.0,
        2048.0,
        integer=True,
    ),
    ParamSpec(
        "depth",
        6.0,
        "turns a rollout plays before the position is scored as if the game ended (0 = to the end)",
        0.0,
        72.0,
        integer=True,
    ),
)

#: game-specific options (``--option KEY=VALUE``)
OPTIONS = {
    "data_dir": "directory with tiles.json, gifts.json and scoring.json to use instead "
    "of mcsim/data/carcassonne"
}

SPEC = GameSpec(
    id="carcassonne",
    long_name="Carcassonne (base game, farmers) with The Gifts",
    rules=_src,
    min_players=2,
    max_players=5,
    default_players=2,
    variants=VARIANTS,
    policies=(
        PolicySpec(
            "random",
            K.POLICY_RANDOM,
            "uniform over distinct placements, then meeple choices, then gift decisions",
        ),
        PolicySpec(
            "heuristic",
            K.POLICY_HEURISTIC,
            "immediate points + potential of open features/farms, meeple economy, gifts "
            "when they pay",
            HEURISTIC_PARAMS,
        ),
        PolicySpec(
            "mcts",
            K.POLICY_MCTS,
            "information-set MCTS (kernels/search.py) over every decision of the turn; each "
            "iteration resamples the tile order, opponents' gift cards and the gift deck",
            MCTS_PARAMS,
        ),
    ),
    summary_key="carcassonne",
    max_plies=72,
    description="72 land tiles, roads/cities/monasteries/fields, 7 meeples; The Gifts as a variant",
)


# --------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------


def _fail(path: Path, entry: str, rule: str):
    raise DataFileError(f"{path.name}: {entry}: {rule}")


def _read_json(path: Path):
    return read_json(path, "data file")


def _int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def validate_tiles(doc, path: Path = DATA_DIR / "tiles.json") -> list[dict]:
    """Check the tile table (§1.1, §2) and its checksums; return the tile list.

    Raises
    ------
    DataFileError
        One line naming the tile (or checksum) and the broken rule.
    """
    if not isinstance(doc, dict) or not isinstance(doc.get("tiles"), list):
        _fail(path, "top level", "must be an object with a 'tiles' list")
    tiles = doc["tiles"]
    seen = set()
    for k, t in enumerate(tiles):
        name = f"tile #{k}"
        if not isinstance(t, dict):
            _fail(path, name, "must be an object")
        letter = t.get("letter")
        if not isinstance(letter, str) or not letter:
            _fail(path, name, "needs a 'letter'")
        name = f"tile {letter}"
        if letter in seen:
            _fail(path, name, "letter appears twice")
        seen.add(letter)
        if not _int(t.get("count")) or t["count"] < 1:
            _fail(path, name, "'count' must be a positive integer")
        edges = t.get("edges")
        if not isinstance(edges, str) or len(edges) != 4 or any(c not in "CRF" for c in edges):
            _fail(path, name, "'edges' must be 4 letters of C/R/F (sides N E S W)")
        for key in ("cities", "roads", "fields"):
            if not isinstance(t.get(key), list):
                _fail(path, name, f"'{key}' must be a list")
        if not isinstance(t.get("cloister"), bool):
            _fail(path, name, "'cloister' must be true or false")
        for kind, letter_code, segs in (
            ("city", "C", [c.get("sides") if isinstance(c, dict) else None for c in t["cities"]]),
            ("road", "R", t["roads"]),
        ):
            covered = []
            for j, sides in enumerate(segs):
                if not isinstance(sides, str) or not sides or any(c not in SIDES for c in sides):
                    _fail(path, name, f"{kind} segment {j} must name sides from NESW")
                for c in sides:
                    if edges[SIDES.index(c)] != letter_code:
                        _fail(
                            path,
                            name,
                            f"{kind} segment {j} uses side {c}, which is not {letter_code}",
                        )
                    covered.append(c)
            want = sorted(SIDES[i] for i in range(4) if edges[i] == letter_code)
            if sorted(covered) != want:
                _fail(path, name, f"every {letter_code} side must be in exactly one {kind} segment")
        for j, c in enumerate(t["cities"]):
            if not _int(c.get("pennants")) or c["pennants"] < 0:
                _fail(path, name, f"city segment {j}: 'pennants' must be an integer >= 0")
        ports = []
        for j, f in enumerate(t["fields"]):
            if (
                not isinstance(f, dict)
                or not isinstance(f.get("ports"), str)
                or not f["ports"]
                or any(c not in "01234567" for c in f["ports"])
            ):
                _fail(path, name, f"field segment {j}: 'ports' must be digits 0-7")
            cs = f.get("cities")
            if (
                not isinstance(cs, list)
                or len(cs) > 2
                or any(not _int(c) or not 0 <= c < len(t["cities"]) for c in cs)
            ):
                _fail(
                    path,
                    name,
                    f"field segment {j}: 'cities' must list at most 2 city segments of this tile",
                )
            ports += [int(c) for c in f["ports"]]
        want = sorted(p for p in range(8) if edges[p // 2] != "C")
        if sorted(ports) != want:
            _fail(
                path,
                name,
                "every port of a road/field side (and none of a city side) must "
                "be in exactly one field",
            )
        nseg = len(t["cities"]) + len(t["roads"]) + len(t["fields"]) + int(t["cloister"])
        if nseg > K.MAX_SEG:
            _fail(path, name, f"at most {K.MAX_SEG} segments per tile")
    start = doc.get("start_tile")
    if start not in seen:
        _fail(path, "start_tile", "must be the letter of a tile in the table")
    sums = {
        "tiles": sum(t["count"] for t in tiles),
        "types": len(tiles),
        "cloisters": sum(t["count"] for t in tiles if t["cloister"]),
        "pennants": sum(t["count"] * sum(c["pennants"] for c in t["cities"]) for t in tiles),
        "city_edges": sum(t["count"] * t["edges"].count("C") for t in tiles),
        "road_edges": sum(t["count"] * t["edges"].count("R") for t in tiles),
        "field_edges": sum(t["count"] * t["edges"].count("F") for t in tiles),
        "tiles_with_road": sum(t["count"] for t in tiles if "R" in t["edges"]),
        "tiles_with_city": sum(t["count"] for t in tiles if "C" in t["edges"]),
    }
    declared = doc.get("checksums")
    if not isinstance(declared, dict):
        _fail(path, "checksums", "missing")
    for key, value in declared.items():
        if key not in sums:
            _fail(path, f"checksums.{key}", "unknown checksum")
        if sums[key] != value:
            _fail(path, f"checksums.{key}", f"table gives {sums[key]}, declared {value}")
    if sums["tiles"] > K.MAX_TILES:
        _fail(path, "checksums.tiles", f"at most {K.MAX_TILES} tiles fit the board")
    return tiles


def validate_gifts(doc, path: Path = DATA_DIR / "gifts.json") -> dict:
    """Check the gift cards (§4.1): the five kernel types in order, counts >= 0."""
    if not isinstance(doc, dict) or not isinstance(doc.get("cards"), list):
        _fail(path, "top level", "must be an object with a 'cards' list")
    ids = tuple(c.get("id") if isinstance(c, dict) else None for c in doc["cards"])
    if ids != GIFT_IDS:
        _fail(path, "cards", f"must be exactly {', '.join(GIFT_IDS)} in this order")
    for c in doc["cards"]:
        if not _int(c.get("count")) or c["count"] < 0:
            _fail(path, f"card {c['id']}", "'count' must be an integer >= 0")
    for key in ("unopened_points", "cash_out_per_meeple"):
        if not _int(doc.get(key)) or doc[key] < 0:
            _fail(path, key, "must be an integer >= 0")
    return doc


def validate_scoring(doc, path: Path = DATA_DIR / "scoring.json") -> dict:
    """Check the point values (§3.3) and the meeple count (§3.1)."""
    if not isinstance(doc, dict):
        _fail(path, "top level", "must be an object")
    for key in SCORING_KEYS:
        if not _int(doc.get(key)) or doc[key] < 0:
            _fail(path, key, "must be an integer >= 0")
    if not 1 <= doc["meeples_per_player"] <= K.MAX_MEEPLES:
        _fail(path, "meeples_per_player", f"must be 1..{K.MAX_MEEPLES}")
    return doc


@lru_cache(maxsize=4)
def load_data(data_dir: str | None = None) -> dict:
    """Load and validate ``tiles.json``, ``gifts.json`` and ``scoring.json``.

    >>> d = load_data()
    >>> sum(t["count"] for t in d["tiles"]), d["start_tile"]
    (72, 'D')

    Raises
    ------
    DataFileError
        A malformed file (one line naming the entry and the rule).
    """
    base = Path(data_dir) if data_dir else DATA_DIR
    tdoc = _read_json(base / "tiles.json")
    tiles = validate_tiles(tdoc, base / "tiles.json")
    gifts = validate_gifts(_read_json(base / "gifts.json"), base / "gifts.json")
    scoring = validate_scoring(_read_json(base / "scoring.json"), base / "scoring.json")
    return {"tiles": tiles, "start_tile": tdoc["start_tile"], "gifts": gifts, "scoring": scoring}


def segment_names(tile: dict) -> list[str]:
    """Names of a tile's segments in kernel order: ``city0.., road0.., field0.., cloister``."""
    out = [f"city{i}" for i in range(len(tile["cities"]))]
    out += [f"road{i}" for i in range(len(tile["roads"]))]
    out += [f"field{i}" for i in range(len(tile["fields"]))]
    if tile["cloister"]:
        out.append("cloister")
    return out


def _rotation_signature(tile: dict, r: int):
    segs = []
    for c in tile["cities"]:
        segs.append(("C", frozenset((SIDES.index(s) + r) % 4 for s in c["sides"]), c["pennants"]))
    for rd in tile["roads"]:
        segs.append(("R", frozenset((SIDES.index(s) + r) % 4 for s in rd), 0))
    for f in tile["fields"]:
        adj = frozenset(segs[c][1] for c in f["cities"])
        segs.append(("F", frozenset((int(p) + 2 * r) % 8 for p in f["ports"]), adj))
    return frozenset(segs), tile["cloister"]


def build_tables(data: dict) -> tuple:
    """Kernel tables from validated data (see ``kernels.carcassonne`` for the layout).

    Returns the tuple ``T``: edge int64[nt, 4, 4], side_seg int64[nt, 4, 4], port_seg
    int64[nt, 4, 8], nseg int64[nt], seg_kind/seg_nsides/seg_pen int64[nt, 8], seg_adj
    int64[nt, 8, 2], fit uint8[nt, 256], cl_seg int64[nt], pts int64[14], rot_ok int64[nt],
    counts int64[nt], start int64[1], gift_counts int64[5].
    """
    tiles = data["tiles"]
    nt = len(tiles)
    edge = np.zeros((nt, 4, 4), dtype=np.int64)
    side_seg = np.full((nt, 4, 4), -1, dtype=np.int64)
    port_seg = np.full((nt, 4, 8), -1, dtype=np.int64)
    nseg = np.zeros(nt, dtype=np.int64)
    seg_kind = np.full((nt, K.MAX_SEG), -1, dtype=np.int64)
    seg_nsides = np.zeros((nt, K.MAX_SEG), dtype=np.int64)
    seg_pen = np.zeros((nt, K.MAX_SEG), dtype=np.int64)
    seg_adj = np.full((nt, K.MAX_SEG, 2), -1, dtype=np.int64)
    cl_seg = np.full(nt, -1, dtype=np.int64)
    rot_ok = np.zeros(nt, dtype=np.int64)
    counts = np.array([t["count"] for t in tiles], dtype=np.int64)
    for i, t in enumerate(tiles):
        e0 = [EDGE_CODE[c] for c in t["edges"]]
        ss0 = [-1] * 4
        ps0 = [-1] * 8
        s = 0
        for c in t["cities"]:
            for side in c["sides"]:
                ss0[SIDES.index(side)] = s
            seg_kind[i, s] = K.KIND_CITY
            seg_nsides[i, s] = len(c["sides"])
            seg_pen[i, s] = c["pennants"]
            s += 1
        for rd in t["roads"]:
            for side in rd:
                ss0[SIDES.index(side)] = s
            seg_kind[i, s] = K.KIND_ROAD
            seg_nsides[i, s] = len(rd)
            s += 1
        for f in t["fields"]:
            for p in f["ports"]:
                ps0[int(p)] = s
            seg_kind[i, s] = K.KIND_FIELD
            for q, c in enumerate(f["cities"]):
                seg_adj[i, s, q] = c  # city segments come first, so index == segment
            s += 1
        if t["cloister"]:
            seg_kind[i, s] = K.KIND_CLOISTER
            cl_seg[i] = s
            s += 1
        nseg[i] = s
        sigs = []
        for r in range(4):
            for d in range(4):
                edge[i, r, (d + r) % 4] = e0[d]
                side_seg[i, r, (d + r) % 4] = ss0[d]
            for p in range(8):
                port_seg[i, r, (p + 2 * r) % 8] = ps0[p]
            sig = _rotation_signature(t, r)
            if sig not in sigs:
                rot_ok[i] |= 1 << r
            sigs.append(sig)
    fit = np.zeros((nt, 256), dtype=np.uint8)
    for i in range(nt):
        for pat in range(256):
            m = 0
            for r in range(4):
                ok = True
                for d in range(4):
                    req = (pat >> (2 * d)) & 3
                    if req and req - 1 != edge[i, r, d]:
                        ok = False
                        break
                if ok:
                    m |= 1 << r
            fit[i, pat] = m
    sc = data["scoring"]
    pts = np.array(
        [sc[k] for k in SCORING_KEYS[:11]]
        + [
            sc["meeples_per_player"],
            data["gifts"]["unopened_points"],
            data["gifts"]["cash_out_per_meeple"],
        ],
        dtype=np.int64,
    )
    letters = [t["letter"] for t in tiles]
    start = np.array([letters.index(data["start_tile"])], dtype=np.int64)
    gift_counts = np.array([c["count"] for c in data["gifts"]["cards"]], dtype=np.int64)
    return (
        edge,
        side_seg,
        port_seg,
        nseg,
        seg_kind,
        seg_nsides,
        seg_pen,
        seg_adj,
        fit,
        cl_seg,
        pts,
        rot_ok,
        counts,
        start,
        gift_counts,
    )


@lru_cache(maxsize=4)
def default_tables() -> tuple:
    """``build_tables(load_data())``, cached."""
    return build_tables(load_data())


def tables_for_variant(T: tuple, variant: dict) -> tuple:
    """``T`` with the gift deck of ``variant["gift_deck"]`` (all cards, or one type only).

    >>> T = tables_for_variant(default_tables(), {"gift_deck": "synod"})
    >>> T[14].tolist()
    [25, 0, 0, 0, 0]
    """
    deck = variant.get("gift_deck", "all")
    if deck == "all":
        return T
    counts = np.zeros_like(T[14])
    counts[GIFT_IDS.index(deck)] = int(T[14].sum())
    return T[:14] + (counts,)


# --------------------------------------------------------------------------------------------
# protocol
# --------------------------------------------------------------------------------------------


def prepare(config: RunConfig) -> Prepared:
    """Validate the configuration, load the data, build the kernel tables.

    ``config.options["data_dir"]`` (optional) points to another directory with the three data
    files. Raises ``ConfigError``, ``UnknownPolicyError``, ``DataFileError``.
    """
    check_players(SPEC, config.players)
    if len(config.policies) != config.players:
        raise ConfigError(
            f"carcassonne needs one policy per seat ({config.players}), got {len(config.policies)}"
        )
    variant = SPEC.resolve_variant(config.variant)
    msg = gift_readings_error(variant)
    if msg:
        raise ConfigError(msg)
    config.variant = variant
    unknown = set(config.options) - {"data_dir"}
    if unknown:
        raise ConfigError(f"carcassonne has no option {sorted(unknown)[0]!r}; options: data_dir")
    data_dir = config.options.get("data_dir")
    data = load_data(str(data_dir) if data_dir else None)
    tables = tables_for_variant(build_tables(data) if data_dir else default_tables(), variant)
    ids, params = policy_arrays(SPEC, config.policies)
    if params.shape[1] < len(HEURISTIC_PARAMS):
        params = np.pad(params, ((0, 0), (0, len(HEURISTIC_PARAMS) - params.shape[1])))
    # seats with a parameterless policy still get a full-width vector
    return Prepared(
        config=config,
        policy_ids=ids,
        policy_params=params,
        variant_codes=SPEC.variant_codes(variant),
        tables={
            "T": tables,
            "letters": [t["letter"] for t in data["tiles"]],
            "segments": [segment_names(t) for t in data["tiles"]],
        },
        info={},
    )


def _kernel(prep: Prepared, plain, with_search):
    """``plain`` for lineups without an ``mcts`` seat (the search code is then not compiled),
    else ``with_search`` with the heuristic's default weights for heuristic rollouts."""
    if not (prep.policy_ids == K.POLICY_MCTS).any():
        return plain
    hdef = np.array([p.default for p in HEURISTIC_PARAMS], dtype=np.float64)
    return lambda *args: with_search(*args, hdef)


def play_chunk(prep: Prepared, first_game_index: int, n_games: int, root_seed: int) -> dict:
    """Play ``n_games`` games in the kernel; column arrays, one row per game.

    Columns: ``score`` [n, seats]; ``length`` (turns); ``tiles`` [n, seats] (tiles placed by
    each seat); ``unplaceable`` (tiles removed per game); ``points_<category>`` [n, seats] for
    road, city, monastery, farm, gift; with ``gifts=true`` also per gift type
    ``gift_received_<type>``, ``gift_opened_<type>``, ``gift_held_<type>``, ``gift_points_<type>``
    (game totals over seats) and ``gift_cards`` [n, seats] (received per seat).

    ``gift_points_<type>`` credits: Road Sweeper and Cash Out their points; Synod and Change
    Position the points of features (farm rule v3) a player scored only thanks to a meeple placed
    by Synod / moved by Change Position (without it they would not have had the majority); every
    type 2 per card held unopened at the end. Take 2 has no direct points.
    """
    npl = prep.config.players
    score, brk, gst, held, length = _kernel(prep, K.play_batch, K.play_batch_mcts)(
        int(first_game_index),
        int(n_games),
        np.uint64(root_seed & 0xFFFF_FFFF_FFFF_FFFF),
        npl,
        prep.policy_ids,
        prep.policy_params,
        prep.variant_codes,
        prep.tables["T"],
    )
    out = {
        "score": score,
        "length": length,
        "tiles": gst[:, :, 0],
        "unplaceable": gst[:, :, 1].sum(axis=1).astype(np.int32),
    }
    for c, name in enumerate(CATEGORIES):
        out[f"points_{name}"] = brk[:, :, c]
    if prep.config.variant.get("gifts") == "true":
        out["gift_cards"] = gst[:, :, 2:7].sum(axis=2).astype(np.int32)
        for g, name in enumerate(GIFT_IDS):
            out[f"gift_received_{name}"] = gst[:, :, 2 + g].sum(axis=1).astype(np.int32)
            out[f"gift_opened_{name}"] = gst[:, :, 7 + g].sum(axis=1).astype(np.int32)
            out[f"gift_held_{name}"] = held[:, :, g].sum(axis=1).astype(np.int32)
            out[f"gift_points_{name}"] = gst[:, :, 12 + g].sum(axis=1).astype(np.int32)
    return out


def _mean(x) -> dict:
    from mcsim import stats

    return stats.mean_interval(np.asarray(x, dtype=np.float64))


def score_matrix(games, players: int) -> np.ndarray:
    """float64[n_games, players] of final scores from the per-game frame."""
    return np.column_stack([games[f"score_{k}"].to_numpy(dtype=np.float64) for k in range(players)])


def margins(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per game: winner margin (best - second best) and score spread (best - worst), points."""
    s = np.sort(scores, axis=1)
    return s[:, -1] - s[:, -2], s[:, -1] - s[:, 0]


def partial_summary(games, prep: Prepared) -> dict:
    """Additive tallies of a chunk of games (moments, sums and counts; see ``finalize_summary``).
    Chunks merge by addition (``mcsim.aggregate``), so any number of games fits in flat memory."""
    from mcsim.stats import moments

    npl = prep.config.players
    out: dict = {"tiles": [moments(games[f"tiles_{k}"]) for k in range(npl)], "features": {}}
    for name in CATEGORIES:
        cols = np.column_stack([games[f"points_{name}_{k}"].to_numpy() for k in range(npl)])
        out["features"][name] = {
            "per_game": moments(cols.sum(axis=1)),
            "by_seat": [float(cols[:, k].sum()) for k in range(npl)],
        }
    un = games["unplaceable"].to_numpy()
    out["unplaceable"] = moments(un)
    out["with_unplaceable"] = int((un > 0).sum())
    margin, spread = margins(score_matrix(games, npl))
    out["margin"] = moments(margin)
    out["spread"] = moments(spread)
    if prep.config.variant.get("gifts") == "true":
        g = {}
        for name in GIFT_IDS:
            opened = games[f"gift_opened_{name}"].to_numpy()
            pts = games[f"gift_points_{name}"].to_numpy()
            held = games[f"gift_held_{name}"].to_numpy()
            g[name] = {
                "received": moments(games[f"gift_received_{name}"]),
                "opened": moments(opened),
                "held": moments(held),
                "points": moments(pts),
            }
        out["gifts"] = g
        out["gift_cards"] = [moments(games[f"gift_cards_{k}"]) for k in range(npl)]
    return out


def finalize_summary(t: dict, prep: Prepared) -> dict:
    """The ``"carcassonne"`` block of the summary (issue §5).

    Keys: ``tiles_per_seat`` (mean tiles placed by each seat), ``points_by_feature`` (per
    category: mean per game over all seats and per seat), ``unplaceable_per_game``,
    ``winner_margin`` and ``score_spread`` (points, mean with 95% interval); with gifts:
    ``gifts`` per card type (received / opened / held at the end per game, points per game and
    per opened card) and ``gift_cards_per_seat``. Means carry Student-t 95% intervals.
    """
    from mcsim import stats

    mi = stats.mean_interval_from_moments
    n = t["unplaceable"]["n"]
    out: dict = {"tiles_per_seat": [mi(m) for m in t["tiles"]]}
    out["points_by_feature"] = {
        name: {"per_game": mi(f["per_game"]), "by_seat": [x / n for x in f["by_seat"]]}
        for name, f in t["features"].items()
    }
    out["unplaceable_per_game"] = mi(t["unplaceable"])
    out["games_with_unplaceable"] = stats.proportion(float(t["with_unplaceable"]), n)
    out["winner_margin"] = mi(t["margin"])
    out["score_spread"] = mi(t["spread"])
    if "gifts" in t:
        g = {}
        for name, m in t["gifts"].items():
            opened = m["opened"]["sum"]
            g[name] = {
                "received_per_game": mi(m["received"]),
                "opened_per_game": mi(m["opened"]),
                "held_per_game": mi(m["held"]),
                "points_per_game": mi(m["points"]),
                "points_per_opened": ((m["points"]["sum"] - 2 * m["held"]["sum"]) / opened)
                if opened
                else math.nan,
            }
        out["gifts"] = g
        out["gift_cards_per_seat"] = [mi(m) for m in t["gift_cards"]]
    return out


def summarize(games, prep: Prepared) -> dict:
    """The ``"carcassonne"`` block of a whole per-game table (see ``finalize_summary``)."""
    return finalize_summary(partial_summary(games, prep), prep)


# --------------------------------------------------------------------------------------------
# records and replay
# --------------------------------------------------------------------------------------------

RECORD_FORMAT = 1
_ROT_NAMES = ("r0", "r90", "r180", "r270")


def record_games(prep: Prepared, root_seed: int, game_indices) -> list[dict]:
    """Records of the given games of a run; each replays to the run's result (issue §6).

    Record format (JSON)::

        {"game": "carcassonne", "format": 1, "players": 2,
         "variant": {"gifts": "false", ...}, "seed": S, "game_index": i, "policies": [...],
         "start": {"tile": "D", "x": 0, "y": 0, "rotation": 0},
         "tiles": ["V", "U", ...],          # every tile drawn, in order (unplaceable and
                                            # Take 2 draws included; the start tile excluded)
         "gift_cards": ["cash_out", ...],   # gift cards drawn, in order (gifts=true), the
                                            # reshuffled discard pile's included; a draw from a
                                            # deck of one card type may be left out at the end
         "turns": [{"player": 0, "tile": "V", "place": [x, y, rotation],
                    "meeple": "road0" | null,
                    "gift": null | {"open": "synod", "monastery": [x, y]}
                               | {"open": "road_sweeper", "road": [x, y, "road0"]}
                               | {"open": "cash_out", "meeple": [x, y, "city0"]}
                               | {"open": "change_position", "meeple": [x, y, "road0"],
                                  "to": "field1"}
                               | {"open": "take_2", "keep": "V"}
                               | {"open": "<card>"}   (opened without effect),
                    "received": null | "<card>"}, ...],
         "points": [a, b], "points_by_feature": {"road": [..], ...}}

    Coordinates: start tile at (0, 0), x east, y south; rotation = quarter turns clockwise.
    A turn's ``tile`` is the tile placed (with Take 2: the one kept). A turn's ``player`` may be
    left out; when given it must be the seat to move (turn k: seat k mod players).
    """
    T = prep.tables["T"]
    out = []
    for i in game_indices:
        log, tl, gl, score, brk = _kernel(prep, K.record_game, K.record_game_mcts)(
            int(i),
            np.uint64(root_seed & 0xFFFF_FFFF_FFFF_FFFF),
            prep.config.players,
            prep.policy_ids,
            prep.policy_params,
            prep.variant_codes,
            T,
        )
        rec = _record_from_arrays(
            prep.tables, prep.config.players, prep.config.variant, log, tl, gl
        )
        rec.update(
            {
                "seed": int(root_seed),
                "game_index": int(i),
                "policies": [p.label() for p in prep.config.policies],
                "points": [int(x) for x in score],
                "points_by_feature": {
                    c: [int(x) for x in brk[:, k]] for k, c in enumerate(CATEGORIES)
                },
            }
        )
        out.append(rec)
    return out


def _record_from_arrays(tables, players, variant, log, tl, gl) -> dict:
    letters, segs = tables["letters"], tables["segments"]
    board = {(0, 0): letters.index(load_data()["start_tile"])}
    turns = []
    for row in log:
        row = [int(v) for v in row]
        t = row[K.L_TILE]
        turn = {
            "player": row[K.L_PLAYER],
            "tile": letters[t],
            "place": [row[K.L_X], row[K.L_Y], row[K.L_ROT]],
            "meeple": segs[t][row[K.L_MEEPLE]] if row[K.L_MEEPLE] >= 0 else None,
            "gift": None,
            "received": GIFT_IDS[row[K.L_RECEIVED]] if row[K.L_RECEIVED] >= 0 else None,
        }
        g = row[K.L_OPEN]
        if g >= 0:
            gift = {"open": GIFT_IDS[g]}
            a, b, c, d = row[K.L_GA : K.L_GD + 1]
            if a != K.NO_EFFECT:
                if g == K.GIFT_SYNOD:
                    gift["monastery"] = [a, b]
                elif g == K.GIFT_SWEEPER:
                    gift["road"] = [a, b, segs[board[(a, b)]][c]]
                elif g == K.GIFT_CASHOUT:
                    gift["meeple"] = [a, b, segs[board[(a, b)]][c]]
                elif g == K.GIFT_CHANGE:
                    gift["meeple"] = [a, b, segs[board[(a, b)]][c]]
                    gift["to"] = segs[board[(a, b)]][d]
                else:
                    gift["keep"] = letters[a]
            turn["gift"] = gift
        board[(row[K.L_X], row[K.L_Y])] = t
        turns.append(turn)
    return {
        "game": SPEC.id,
        "format": RECORD_FORMAT,
        "players": int(players),
        "variant": dict(variant),
        "start": {"tile": load_data()["start_tile"], "x": 0, "y": 0, "rotation": 0},
        "tiles": [letters[t] for t in tl],
        "gift_cards": [GIFT_IDS[g] for g in gl],
        "turns": turns,
    }


def _bad(msg: str):
    raise InvalidRecordError(msg)


def _xy_arg(v, where: str) -> tuple[int, int]:
    if not isinstance(v, list) or len(v) < 2 or not all(_int(x) for x in v[:2]):
        _bad(f"{where} must start with integer coordinates [x, y, ...]")
    return int(v[0]), int(v[1])


def _seg_index(segs_of_tile: list[str] | None, name) -> int:
    """Segment index of ``name`` on a tile (-3 = no such segment: the kernel reports it)."""
    if segs_of_tile is None or not isinstance(name, str) or name not in segs_of_tile:
        return -3
    return segs_of_tile.index(name)


def _record_to_arrays(record: dict):
    """(players, variant, tscript, gscript, rscript) from a record; ``InvalidRecordError``."""
    if not isinstance(record, dict) or record.get("game") != SPEC.id:
        _bad('not a carcassonne record (expected {"game": "carcassonne", ...})')
    players = record.get("players")
    if not _int(players) or not SPEC.min_players <= players <= SPEC.max_players:
        _bad(f'"players" must be an integer {SPEC.min_players}-{SPEC.max_players}')
    try:
        variant = SPEC.resolve_variant(record.get("variant") or {})
    except ValueError as e:
        _bad(str(e))
    if gift_readings_error(variant):
        _bad(gift_readings_error(variant))
    data = load_data()
    letters = [t["letter"] for t in data["tiles"]]
    segs = [segment_names(t) for t in data["tiles"]]
    start = record.get("start", {"tile": data["start_tile"], "x": 0, "y": 0, "rotation": 0})
    if start != {"tile": data["start_tile"], "x": 0, "y": 0, "rotation": 0}:
        _bad(f'"start" must be {{"tile": "{data["start_tile"]}", "x": 0, "y": 0, "rotation": 0}}')
    tiles = record.get("tiles")
    if not isinstance(tiles, list) or any(t not in letters for t in tiles):
        _bad(f'"tiles" must be a list of tile letters ({"".join(letters)})')
    turns = record.get("turns")
    if isinstance(turns, list) and len(tiles) < len(turns):
        _bad(
            f'"tiles" lists {len(tiles)} draws but the record has {len(turns)} turns '
            f"(every turn draws at least one tile)"
        )
    cards = record.get("gift_cards", [])
    if not isinstance(cards, list) or any(c not in GIFT_IDS for c in cards):
        _bad(f'"gift_cards" must be a list of card ids ({", ".join(GIFT_IDS)})')
    turns = record.get("turns")
    if not isinstance(turns, list):
        _bad('"turns" must be a list of turn objects')
    if len(turns) > K.MAX_TILES:
        _bad(f'"turns" has {len(turns)} entries; at most {K.MAX_TILES - 1} tiles can be placed')
    board = {(0, 0): letters.index(data["start_tile"])}
    rows = np.full((len(turns), K.LOG_COLS), -1, dtype=np.int32)
    for k, turn in enumerate(turns):
        where = f"turn {k}"
        if not isinstance(turn, dict):
            _bad(f"{where}: must be an object")
        if turn.get("player", k % players) != k % players or isinstance(turn.get("player"), bool):
            # seat 0 starts and seats alternate (§6 #20): turn k is seat k mod players
            raise IllegalMoveError(k, f"player {turn.get('player')}", [f"player {k % players}"])
        if turn.get("tile") not in letters:
            _bad(f'{where}: "tile" must be a tile letter')
        t = letters.index(turn["tile"])
        place = turn.get("place")
        if not isinstance(place, list) or len(place) != 3 or not all(_int(v) for v in place):
            _bad(f'{where}: "place" must be [x, y, rotation] (integers)')
        rows[k, K.L_PLAYER] = k % players
        rows[k, K.L_TILE] = t
        rows[k, K.L_X], rows[k, K.L_Y], rows[k, K.L_ROT] = [max(-9999, min(9999, v)) for v in place]
        m = turn.get("meeple")
        rows[k, K.L_MEEPLE] = -1 if m is None else _seg_index(segs[t], m)
        rows[k, K.L_GA : K.L_GD + 1] = K.NO_EFFECT
        gift = turn.get("gift")
        if gift is not None:
            if not isinstance(gift, dict) or gift.get("open") not in GIFT_IDS:
                _bad(f'{where}: "gift" must be null or {{"open": <card id>, ...}}')
            g = GIFT_IDS.index(gift["open"])
            rows[k, K.L_OPEN] = g
            if g == K.GIFT_SYNOD and "monastery" in gift:
                rows[k, K.L_GA], rows[k, K.L_GB] = _xy_arg(gift["monastery"], f"{where}: monastery")
            elif g in (K.GIFT_SWEEPER, K.GIFT_CASHOUT, K.GIFT_CHANGE):
                key = "road" if g == K.GIFT_SWEEPER else "meeple"
                if key in gift:
                    v = gift[key]
                    x, y = _xy_arg(v, f"{where}: {key}")
                    if len(v) != 3:
                        _bad(f"{where}: {key} must be [x, y, segment]")
                    rows[k, K.L_GA], rows[k, K.L_GB] = x, y
                    rows[k, K.L_GC] = _seg_index(
                        segs[board[(x, y)]] if (x, y) in board else None, v[2]
                    )
                    if g == K.GIFT_CHANGE:
                        rows[k, K.L_GD] = _seg_index(
                            segs[board[(x, y)]] if (x, y) in board else None, gift.get("to")
                        )
            elif g == K.GIFT_TAKE2 and "keep" in gift:
                if gift["keep"] not in letters:
                    _bad(f'{where}: take_2 "keep" must be a tile letter')
                rows[k, K.L_GA] = letters.index(gift["keep"])
        board[(int(place[0]), int(place[1]))] = t
    tscript = np.array([letters.index(t) for t in tiles], dtype=np.int32)
    gscript = np.array([GIFT_IDS.index(c) for c in cards], dtype=np.int32)
    return players, variant, tscript, gscript, rows


def _place_name(letters, t, x, y, r) -> str:
    return f"place {letters[t]} {x},{y} {r}"


def replay(record: dict) -> dict:
    """Validate a record move by move and return the scores reached.

    Returns
    -------
    dict
        ``{"finished", "turns", "points", "points_by_feature", "gifts_held", "winner"}``:
        points per seat (final scores when finished), ``winner`` a seat or None (shared or
        unfinished).

    Raises
    ------
    InvalidRecordError
        Not a carcassonne record, bad shape, a draw list inconsistent with the tile set, or
        recorded points/gifts that differ from the replay.
    IllegalMoveError
        An illegal decision: ``ply`` = turn index, ``legal`` = the alternatives; also a turn
        whose ``player`` (optional) is not the seat to move (turn k is seat k mod players).
    """
    players, variant, tscript, gscript, rows = _record_to_arrays(record)
    data = load_data()
    letters = [t["letter"] for t in data["tiles"]]
    segs = [segment_names(t) for t in data["tiles"]]
    T = tables_for_variant(default_tables(), variant)
    codes = SPEC.variant_codes(variant)
    (err, err_turn, opts, score, brk, log, ndrawn, ngdrawn, finished, held, tinfo) = K.replay_game(
        players, codes, T, tscript, gscript, rows
    )
    err = int(err)
    turn = int(err_turn)
    if err == K.ERR_DRAW:
        k = int(ndrawn)
        what = record["tiles"][k] if k < len(record["tiles"]) else "missing"
        _bad(f"tiles: draw {k} ({what}) is not left in the draw pile at turn {turn}")
    if err == K.ERR_GIFT_DRAW:
        _bad(
            f"gift_cards: card {int(ngdrawn)} is missing or not left in the gift deck at turn {turn}"
        )
    if err == K.ERR_LENGTH:
        _bad(f"the draw pile is exhausted after {turn} turns but the record has {len(rows)}")
    if err != K.ERR_NONE:
        row = rows[turn]
        t = int(row[K.L_TILE])
        if err == K.ERR_OPEN:
            g = int(row[K.L_OPEN])
            legal = ["open none" if int(o[0]) < 0 else f"open {GIFT_IDS[int(o[0])]}" for o in opts]
            raise IllegalMoveError(turn, f"open {GIFT_IDS[g] if 0 <= g < 5 else g}", legal)
        if err == K.ERR_TILE:
            raise IllegalMoveError(
                turn,
                f"tile {letters[t] if 0 <= t < len(letters) else t}",
                [f"tile {letters[int(opts[0, 0])]}"],
            )
        if err == K.ERR_GIFT_ARG:
            g = int(row[K.L_OPEN])
            move = json.dumps(record["turns"][turn].get("gift"))

            def where(node):
                i = int(node) // K.MAX_SEG
                x, y = K._xy(int(tinfo[i, 2]))
                return x, y, segs[int(tinfo[i, 0])][int(node) % K.MAX_SEG]

            if g == K.GIFT_TAKE2:
                legal = [json.dumps({"open": "take_2", "keep": letters[int(o[0])]}) for o in opts]
            elif g == K.GIFT_CHANGE:
                legal = []
                for o in opts:
                    x, y, name = where(o[0])
                    to = segs[int(tinfo[int(o[0]) // K.MAX_SEG, 0])][int(o[1])]
                    legal.append(
                        json.dumps({"open": "change_position", "meeple": [x, y, name], "to": to})
                    )
            elif g == K.GIFT_SYNOD:
                legal = [
                    json.dumps({"open": "synod", "monastery": list(where(o[3])[:2])}) for o in opts
                ]
            else:
                key = "road" if g == K.GIFT_SWEEPER else "meeple"
                legal = [json.dumps({"open": GIFT_IDS[g], key: list(where(o[3]))}) for o in opts]
            raise IllegalMoveError(turn, move, legal or [json.dumps({"open": GIFT_IDS[g]})])
        if err == K.ERR_PLACE:
            x, y, r = record["turns"][turn]["place"]  # as written (rows hold them clamped)
            move = _place_name(letters, t, x, y, r)
            legal = []
            for o in opts:
                cx, cy = K._xy(int(o[0]))
                legal.append(_place_name(letters, t, cx, cy, int(o[1])))
            raise IllegalMoveError(turn, move, legal)
        if err == K.ERR_MEEPLE:
            move = f"meeple {record['turns'][turn].get('meeple')}"
            legal = [
                "meeple none" if int(o[0]) < 0 else f"meeple {segs[t][int(o[0])]}" for o in opts
            ]
            raise IllegalMoveError(turn, move, legal)
    for k, rrow in enumerate(log):
        want = record["turns"][k].get("received")
        got = GIFT_IDS[int(rrow[K.L_RECEIVED])] if int(rrow[K.L_RECEIVED]) >= 0 else None
        if "received" in record["turns"][k] and want != got:
            _bad(f"turn {k}: record says received {want!r}, replay gives {got!r}")
    points = [int(x) for x in score]
    best = max(points)
    winner = points.index(best) if finished and points.count(best) == 1 else None
    result = {
        "finished": bool(finished),
        "turns": int(len(log)),
        "points": points,
        "points_by_feature": {c: [int(x) for x in brk[:, k]] for k, c in enumerate(CATEGORIES)},
        "gifts_held": [int(x) for x in held.sum(axis=1)],
        "winner": winner,
    }
    check_recorded_points(record, result)
    return result


def format_replay(result: dict) -> str:
    """Readable text of a ``replay`` result for ``mcsim replay``."""
    state = "finished" if result["finished"] else "not finished"
    lines = [f"turns played: {result['turns']}; {state}"]
    for k, p in enumerate(result["points"]):
        parts = ", ".join(f"{c} {result['points_by_feature'][c][k]}" for c in CATEGORIES)
        lines.append(f"seat {k}: {p} points ({parts})")
    if result["finished"]:
        lines.append(
            "winner: " + ("shared" if result["winner"] is None else f"seat {result['winner']}")
        )
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# perft
# --------------------------------------------------------------------------------------------


def perft_pile() -> list[str]:
    """The fixed draw pile ``perft`` uses: the unshuffled one, tile letters in table order (§2)
    with their counts, the start tile D taken out once: ``A A B B B B C D D D E ...``."""
    data = load_data()
    T = default_tables()
    letters = [t["letter"] for t in data["tiles"]]
    start = int(T[13][0])
    return [letters[t] for t in range(len(letters)) for _ in range(int(T[12][t]) - (t == start))]


def perft(depth: int, variant: dict | None = None, players: int = SPEC.default_players) -> int:
    """Number of turn sequences of length ``depth`` from the start, on the unshuffled pile.

    Node = the board after some turns, start tile D at (0, 0); the chance events are fixed by
    ``perft_pile`` (draws in table order; a tile with no legal placement is set aside and the
    next one drawn, §3.2). A move is one turn of seat ``turn mod players``: a legal placement
    of the drawn tile (every legal rotation counts, also the ones a symmetric tile shares, as in
    records and ``replay``'s legal list) together with a meeple choice on it (none or a
    segment whose feature is unoccupied, §3.2 step 2); completed features are scored. A game
    that ends before ``depth`` turns adds nothing. Base game only (``gifts=false``): with The
    Gifts a turn holds gift decisions and gift draws that this count does not define.

    Python on the kernel's move generator (``placements``, ``meeple_options``) and stepping
    (``place_tile``, ``_put_meeple``, ``_score_completed``): depths 0-3 take under a second
    (after loading the tables), depth 4 (1,602,944) about 25 seconds, so the doctest (run by
    the test suite) stops at depth 3.

    >>> [perft(d) for d in range(4)]
    [1, 20, 790, 31032]

    Raises
    ------
    ConfigError
        A negative depth or ``gifts=true``.
    """
    if depth < 0:
        raise ConfigError(f"--depth must be 0 or more, not {depth}")
    check_players(SPEC, players)
    v = SPEC.resolve_variant(variant)
    if v["gifts"] != "false":
        raise ConfigError("carcassonne perft counts base-game turns; use --variant gifts=false")
    pos = Position(players, v)
    T = pos.T
    letters = pos.letters
    nmee = min(int(T[10][K.P_MEEPLES]), K.MAX_MEEPLES)
    pos.S[12][:players, nmee:] = -2  # meeple slots not in the game, as in the kernel
    pile = [letters.index(x) for x in perft_pile()]
    codes = pos.variant
    conn = np.zeros(8, dtype=np.int64)
    mopts = np.zeros(16, dtype=np.int64)
    opts = np.zeros((K.MAX_OPT, 4), dtype=np.int32)

    def copy(S):
        return K.GameState(*(a.copy() for a in S))

    def count(S, turn: int, k: int, d: int) -> int:
        if d == 0:
            return 1
        while k < len(pile) and not K.placeable(S, T, pile[k]):
            k += 1
        if k == len(pile):
            return 0
        t = pile[k]
        cur = turn % players
        n = K.placements(S, T, t, False, opts)
        total = 0
        for c, r in [(int(opts[i, 0]), int(opts[i, 1])) for i in range(n)]:
            child = copy(S)
            child[21][K.S_CUR] = cur
            idx = K.place_tile(child, T, t, r, c, conn)
            nm = K.meeple_options(child, T, idx, cur, mopts)
            if d == 1:
                total += int(nm)
                continue
            choices = [int(x) for x in mopts[:nm]]
            for i, seg in enumerate(choices):
                g = child if i == len(choices) - 1 else copy(child)
                if seg >= 0:
                    K._put_meeple(g, idx * K.MAX_SEG + seg, cur)
                K._score_completed(g, T, idx, codes)
                total += count(g, turn + 1, k + 1, d - 1)
        return total

    return count(pos.S, 0, 0, depth)


# --------------------------------------------------------------------------------------------
# hand-built positions (worked examples, tests)
# --------------------------------------------------------------------------------------------


class Position:
    """A hand-built board on the kernel state, for the worked examples of §5 and tests.

    >>> pos = Position(players=2)                        # start tile D at (0, 0), city north
    >>> pos.place("E", 0, -1, rot=2, meeple="city0", player=0)   # cap facing south closes it
    >>> pos.scores
    [4, 0]

    ``place`` checks legality (edge matching, adjacency, meeple occupancy) unless
    ``check=False``, evaluates the gift predicate of §4.2 (``last_gift``), puts the meeple and
    scores what the tile completed (§3.2 step 3). ``finish()`` runs the final scoring.
    """

    def __init__(self, players: int = 2, variant: dict | None = None, start: bool = True):
        data = load_data()
        self.letters = [t["letter"] for t in data["tiles"]]
        self.segs = [segment_names(t) for t in data["tiles"]]
        self.T = tables_for_variant(default_tables(), SPEC.resolve_variant(variant))
        self.variant = SPEC.variant_codes(SPEC.resolve_variant(variant))
        self.players = players
        self.S = K.new_game_state()
        self.S[21][K.S_NPLAYERS] = players
        self.conn = np.zeros(8, dtype=np.int64)
        self.last_gift = False
        if start:
            self.place(data["start_tile"], 0, 0, 0, check=False)

    def _tile_at(self, x, y) -> int:
        c = K._cell(x, y)
        j = self.S[0][c] if c >= 0 else -1
        if j < 0:
            raise IllegalMoveError(0, f"{x},{y}", ["a placed tile"])
        return int(j)

    def node(self, x: int, y: int, seg: str) -> int:
        j = self._tile_at(x, y)
        names = self.segs[int(self.S[5][j, 0])]
        if seg not in names:
            raise IllegalMoveError(0, seg, names)
        return j * K.MAX_SEG + names.index(seg)

    def place(
        self,
        letter: str,
        x: int,
        y: int,
        rot: int = 0,
        meeple: str | None = None,
        player: int = 0,
        check: bool = True,
        score: bool = True,
    ) -> None:
        t = self.letters.index(letter)
        c = K._cell(x, y)
        if check:
            ok = c >= 0 and self.S[3][c] >= 0 and (self.T[8][t, self.S[1][c]] >> rot) & 1
            if not ok:
                raise IllegalMoveError(0, _place_name(self.letters, t, x, y, rot), [])
        self.S[21][K.S_CUR] = player
        idx = K.place_tile(self.S, self.T, t, rot, c, self.conn)
        self.last_gift = bool(K.gift_earned(self.S, self.T, idx, player, self.conn, self.variant))
        if meeple is not None:
            s = self.segs[t].index(meeple)
            if check:
                opts = np.zeros(16, dtype=np.int64)
                n = K.meeple_options(self.S, self.T, idx, player, opts)
                if s not in opts[:n]:
                    raise IllegalMoveError(
                        0,
                        f"meeple {meeple}",
                        [self.segs[t][o] if o >= 0 else "none" for o in opts[:n]],
                    )
            K._put_meeple(self.S, idx * K.MAX_SEG + s, player)
        if score:
            K._score_completed(self.S, self.T, idx, self.variant)

    def add_meeple(self, x: int, y: int, seg: str, player: int) -> None:
        """Put a meeple without the occupancy check (to build majorities as in §5 #7, #8)."""
        K._put_meeple(self.S, self.node(x, y, seg), player)

    def feature(self, x: int, y: int, seg: str) -> dict:
        """The feature through a segment: distinct tiles, open edges, pennants, meeples, complete."""
        r = K.find(self.S[6], self.node(x, y, seg))
        f = self.S[10][r]
        return {
            "tiles": int(K.feature_tiles(self.S, r)),
            "open": int(f[K.F_OPEN]),
            "pennants": int(f[K.F_PEN]),
            "meeples": [int(v) for v in self.S[11][r, : self.players]],
            "complete": bool(f[K.F_OPEN] == 0),
        }

    def supply(self, player: int) -> int:
        return int(K.supply(self.S, player))

    # gift effects (§4.4), applied as the kernel applies them when a card is opened
    def synod(self, player: int, x: int, y: int) -> None:
        k = K._put_meeple(self.S, self.node(x, y, "cloister"), player)
        if k < 0:
            raise IllegalMoveError(0, "synod", ["(no meeple in supply: no effect)"])
        self.S[24][player, k] = 1

    def road_sweeper(self, x: int, y: int, seg: str) -> None:
        K.road_sweep(self.S, self.T, K.find(self.S[6], self.node(x, y, seg)))

    def cash_out(self, player: int, x: int, y: int, seg: str) -> int:
        nd = self.node(x, y, seg)
        v = int(K.cash_out_points(self.S, self.T, nd, player, self.variant))
        self.S[13][player] += v
        self.S[14][player, K.CAT_GIFT] += v
        K._move_meeple(self.S, player, nd, -1)
        return v

    def change_targets(self, x: int, y: int, seg: str) -> list[str]:
        nd = self.node(x, y, seg)
        out = np.zeros(8, dtype=np.int64)
        n = K.change_targets(self.S, self.T, nd, self.variant, out)
        t = int(self.S[5][nd // K.MAX_SEG, 0])
        return [self.segs[t][s] for s in out[:n]]

    def change_position(self, player: int, x: int, y: int, seg: str, to: str) -> None:
        if to not in self.change_targets(x, y, seg):
            raise IllegalMoveError(0, to, self.change_targets(x, y, seg))
        nd = self.node(x, y, seg)
        K._move_meeple(
            self.S,
            player,
            nd,
            (nd // K.MAX_SEG) * K.MAX_SEG + self.segs[int(self.S[5][nd // K.MAX_SEG, 0])].index(to),
        )

    def finish(self) -> list[int]:
        """Final scoring (§3.3, §4.5); returns the scores."""
        K.score_final(self.S, self.T, self.variant)
        return self.scores

    @property
    def scores(self) -> list[int]:
        return [int(v) for v in self.S[13][: self.players]]

    def points(self, category: str) -> list[int]:
        return [int(v) for v in self.S[14][: self.players, CATEGORIES.index(category)]]


def format_summary(block: dict, summary: dict | None = None) -> str:
    """Readable text of the ``"carcassonne"`` summary block (printed by ``mcsim simulate``)."""

    def ci(d, f="{:.2f}"):
        return f"{f.format(d['mean'])} [{f.format(d['low'])}, {f.format(d['high'])}]"

    lines = [
        "tiles placed per seat: " + ", ".join(f"{d['mean']:.2f}" for d in block["tiles_per_seat"])
    ]
    lines.append(
        "points per game by feature (all seats): "
        + ", ".join(f"{k} {ci(v['per_game'])}" for k, v in block["points_by_feature"].items())
    )
    lines.append(
        f"unplaceable tiles per game: {ci(block['unplaceable_per_game'], '{:.3f}')}; "
        f"winner margin {ci(block['winner_margin'])}; score spread {ci(block['score_spread'])}"
    )
    if "gifts" in block:
        lines.append("gift cards per game      received  opened  held   points  points/opened")
        for name, g in block["gifts"].items():
            ppo = g["points_per_opened"]
            lines.append(
                f"  {name:<22} {g['received_per_game']['mean']:8.3f} "
                f"{g['opened_per_game']['mean']:7.3f} "
                f"{g['held_per_game']['mean']:5.3f} {g['points_per_game']['mean']:8.3f} "
                f"{'-' if ppo != ppo else f'{ppo:.3f}':>14}"
            )
        lines.append(
            "gift cards received per seat: "
            + ", ".join(f"{d['mean']:.3f}" for d in block["gift_cards_per_seat"])
        )
    return "\n".join(lines)
