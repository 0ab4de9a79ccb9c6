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
start_balance          none | tournament       none       §6 #21: tournament seat balance; 3-4
                                                          players: seat 0 puts a meeple on the
                                                          start tile (its choice of segment), seat
                                                          1 draws the first tile; 5 players: one
                                                          V tile (curved road) is removed; refused
                                                          with 2 players
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

``mcts``: information-set MCTS (``kernels/search.py``, Cowling, Powley and Whitehouse
2012) over every decision of a turn (gift to open and its target, Take 2's tile, placement,
meeple); each iteration resamples what the deciding seat cannot see (§6 #13): the order of the
remaining tiles, the other seats' gift cards (their counts are public) and the gift deck. Each
seat maximises its own margin over the best other seat (``reward=1``, points / ``scale``) or its
win share (``reward=0``), one tree per decision of the seat. Rollouts: the heuristic at the
seat's weights ``h_*`` (``rollout=1``; ``h_w_opp`` is the heuristic's ``w_opp`` and so on) or
uniform play (``rollout=0``) for ``depth`` turns, then the position is scored as if the game
ended (``score_final``; ``depth=0`` plays to the end). ``width`` keeps the placements the
heuristic (at ``h_*``) values highest, in the tree and the rollouts. ``h_*`` default to weights
tuned for the heuristic (``MCTS_DEFAULTS``). ``mcts1`` is the default ``mcts`` of 2026-12-02
(``h_*`` at the heuristic's own defaults; ``MCTS1_PARAMS``), kept so that "against today's
default" can be re-run. Defaults and their strength: benchmarks/RESULTS.md ("Search",
Carcassonne; "Carcassonne: the tuned heuristic inside the search, the new default").

Restricted play (docs/rules/carcassonne.md §6.1): ``-p "heuristic:forbid=farmers+take-2"``
forbids a seat options (``RESTRICTIONS``: each gift type, ``gifts`` = opening any card, these
need ``gifts=true``; ``farmers``, ``monasteries`` = no meeple on a field / a monastery), in every
policy (``mcts`` in its tree and its rollouts); the per-game table then gains
``forbid_avoided_<seat>`` and ``forbid_forced_<seat>`` (the latter 0 by construction here).

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

import dataclasses
from functools import lru_cache
from pathlib import Path

import numpy as np

import kernels.carcassonne as K
from kernels.rng import STREAM_DEAL, new_state
from mcsim.errors import ConfigError, DataFileError, MissingFileError
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
    no_ensemble,
    policy_arrays,
    restricted_seats,
)

DATA_DIR = Path(__file__).resolve().parents[2] / "data" / "carcassonne"
SIDES = "NESW"
EDGE_CODE = {"C": K.EDGE_CITY, "R": K.EDGE_ROAD, "F": K.EDGE_FIELD}
KIND_NAMES = ("city", "road", "field", "cloister")
GIFT_IDS = ("synod", "road_sweeper", "cash_out", "change_position", "take_2")
CATEGORIES = ("road", "city", "monastery", "farm", "gift")


def point_categories(variant: dict) -> tuple[str, ...]:
    """The point categories a run with the resolved ``variant`` can score (``CATEGORIES``),
    without ``gift`` when The Gifts are off (``gifts=false``, the default): what the summary,
    its text and the report's figure list (the per-game ``points_gift_<k>`` columns stay, 0)."""
    return CATEGORIES if variant.get("gifts") == "true" else CATEGORIES[:-1]


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
    VariantSpec(
        "start_balance",
        ("none", "tournament"),
        "none",
        "tournament seat balance: 3-4 players, seat 0 puts a meeple on the start tile and "
        "seat 1 draws first; 5 players, one V tile (curved road) is removed",
        f"{_src} §6 #21",
    ),
)

#: the tile ``start_balance=tournament`` removes in 5-player games (§6 #21: "one curved road
#: tile"; V is the base game's plain curve, FFRR, 9 copies)
START_BALANCE_REMOVED = "V"


def start_meeple_in_play(variant: dict, players: int) -> bool:
    """True when seat 0 puts a meeple on the start tile and seat 1 takes the first turn:
    ``start_balance=tournament`` with 3 or 4 players (§6 #21).

    >>> start_meeple_in_play({"start_balance": "tournament"}, 4), start_meeple_in_play({}, 4)
    (True, False)
    """
    return variant.get("start_balance", "none") == "tournament" and 3 <= players <= 4


def start_balance_error(variant: dict, players: int) -> str | None:
    """One-line error when ``start_balance=tournament`` is asked for with 2 players (the
    tournament rule has no 2-player form, §6 #21: it would change nothing), else None.

    >>> start_balance_error({"start_balance": "tournament"}, 2)
    'variant start_balance=tournament needs 3-5 players (no 2-player form, §6 #21)'
    >>> start_balance_error({"start_balance": "tournament"}, 4)
    """
    if variant.get("start_balance", "none") == "tournament" and players < 3:
        return "variant start_balance=tournament needs 3-5 players (no 2-player form, §6 #21)"
    return None


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

#: ``mcts1``'s parameters, the ``mcts`` of 2026-12-02 (``mcsim.games.base.kept_mcts``; kernel
#: order ``kernels.carcassonne.layout.M_*``; ``h_<name>`` is the heuristic's ``<name>`` as the
#: search uses it, at ``M_HEUR``). The ``h_*`` came later; at their defaults, the heuristic's
#: own, the search is that day's. Defaults chosen in benchmarks/RESULTS.md ("Search",
#: Carcassonne)
MCTS1_PARAMS = (
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
        "rollout policy: 0 random, 1 heuristic (at the weights h_*)",
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
) + tuple(
    # the search's own heuristic (kernel M_HEUR..): its rollouts, the other seats' modelled
    # moves and the ``width`` ranking of placements; each seat's own, so two mcts seats can
    # differ
    dataclasses.replace(q, name=f"h_{q.name}", help=f"the search's heuristic: {q.help}")
    for q in HEURISTIC_PARAMS
)
#: ``mcts``'s defaults that differ from ``mcts1``'s: the search's heuristic at the weights
#: ``mcsim tune carcassonne -p heuristic --seed 1 -w 2`` found (0.588 [0.581, 0.594] against the
#: default heuristic on 10,400 deals); as the search's heuristic they win 0.602 [0.562, 0.640]
#: of 600 games against ``mcts1`` at 0.95 times its CPU per move (benchmarks/RESULTS.md,
#: "Carcassonne: the tuned heuristic inside the search, the new default")
MCTS_DEFAULTS: dict[str, float] = {
    "h_w_opp": 0.887,
    "h_pot": 0.6366,
    "h_open_pen": 1.029e-05,
    "h_meeple": 0.0721,
    "h_scarcity": 2.271,
    "h_farm": 0.82,
    "h_farm_turn": 12.0,
    "h_mon": 1.301,
    "h_hold": 6.306,
    "h_take2": -0.8157,
    "h_gift": -1.916,
}
#: ``mcts`` parameters: ``mcts1``'s with the defaults of ``MCTS_DEFAULTS``
MCTS_PARAMS = tuple(
    dataclasses.replace(q, default=MCTS_DEFAULTS[q.name]) if q.name in MCTS_DEFAULTS else q
    for q in MCTS1_PARAMS
)

#: restricted play (docs/rules/carcassonne.md §6.1): the options ``forbid=`` can take from a
#: seat, bit ``bit`` of its ``forbid_mask`` (the kernel's ``FB_*``)
_RP = f"{_src} §6.1"
RESTRICTIONS = tuple(
    RestrictionSpec(
        name.replace("_", "-"),
        f"never open a {title} gift card (needs --variant gifts=true)",
        "gift",
        K.FB_GIFT + g,
        source=f"{_RP}; {_src} §4.3, §4.4.{g + 1}",
    )
    for g, (name, title) in enumerate(
        zip(GIFT_IDS, ("Synod", "Road Sweeper", "Cash Out", "Change Position", "Take 2"))
    )
) + (
    RestrictionSpec(
        "gifts",
        "never open any gift card (receiving one is not a choice; needs --variant gifts=true)",
        "gift",
        K.FB_GIFTS,
        source=f"{_RP}; {_src} §4.2, §4.3",
    ),
    RestrictionSpec(
        "farmers",
        "never put a meeple on a field (meeple step, start-tile meeple, Change Position)",
        "meeple",
        K.FB_FARMERS,
        source=f"{_RP}; {_src} §3.2, §3.5, §4.4.4",
    ),
    RestrictionSpec(
        "monasteries",
        "never put a meeple on a monastery (meeple step, Synod, Change Position)",
        "meeple",
        K.FB_MONASTERIES,
        source=f"{_RP}; {_src} §3.2, §4.4.1, §4.4.4",
    ),
)
#: the restrictions that need The Gifts (``gifts=true``; ``check_config`` refuses them without)
GIFT_RESTRICTIONS = tuple(r.name for r in RESTRICTIONS if r.group == "gift")
_FORBID = forbid_mask_param()

#: game-specific options (``--option KEY=VALUE``)
OPTIONS = {
    "data_dir": "directory with tiles.json, gifts.json and scoring.json to use instead "
    "of mcsim/data/carcassonne"
}

#: the ``mcts`` policy; ``mcts1`` keeps the parameters of 2026-12-02 (``MCTS1_PARAMS``)
MCTS_POLICY = PolicySpec(
    "mcts",
    K.POLICY_MCTS,
    "information-set MCTS (kernels/search.py) over every decision of the turn; each "
    "iteration resamples the tile order, opponents' gift cards and the gift deck; rollouts "
    "and the width pruning by the heuristic at tuned weights (h_*)",
    MCTS_PARAMS + (_FORBID,),
)
#: ``mcts1``'s description: the ``mcts`` of 2026-12-02
MCTS1_HELP = (
    "information-set MCTS (kernels/search.py) over every decision of the turn; each "
    "iteration resamples the tile order, opponents' gift cards and the gift deck"
)


SPEC = GameSpec(
    id="carcassonne",
    # the name without a variant (the games list, --help, compile notices) claims The Gifts
    # only as the variant it is (off by default); a run's header names what it played
    long_name="Carcassonne (base game, farmers; The Gifts with gifts=true)",
    titles=(
        ("gifts", "false", "Carcassonne (base game, farmers)"),
        ("gifts", "true", "Carcassonne (base game, farmers) with The Gifts"),
    ),
    readings_of=(("gifts", "true", GIFT_READINGS),),
    rules=_src,
    min_players=2,
    max_players=5,
    default_players=2,
    variants=VARIANTS,
    policies=(
        # ``forbid_mask`` last in every policy (its column: ``K.FORBID_COL``)
        PolicySpec(
            "random",
            K.POLICY_RANDOM,
            "uniform over distinct placements, then meeple choices, then gift decisions",
            (_FORBID,),
        ),
        PolicySpec(
            "heuristic",
            K.POLICY_HEURISTIC,
            "immediate points + potential of open features/farms, meeple economy, gifts "
            "when they pay",
            HEURISTIC_PARAMS + (_FORBID,),
        ),
        MCTS_POLICY,
        # mcts1: the mcts of 2026-12-02, kept (base.kept_mcts)
        kept_mcts(MCTS_POLICY, MCTS1_PARAMS + (_FORBID,), MCTS1_HELP),
    ),
    restrictions=RESTRICTIONS,
    # none: every decision these options touch leaves a permitted choice (no meeple, no gift
    # opened, the start tile's city or road; §6.1)
    exhaustive_groups=(),
    summary_key="carcassonne",
    max_plies=72,
    description="72 land tiles, roads/cities/monasteries/fields, 7 meeples; The Gifts as a variant",
    score_bounds=(0, None),  # points are only ever added
)


# --------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------


def _fail(path: Path, entry: str, rule: str):
    raise DataFileError(f"{path}: {entry}: {rule}")  # the path as given, not its basename


def _read_json(path: Path):
    return read_json(path, "data file")


def is_int(v) -> bool:
    """Whether ``v`` is an int of the file (JSON's true/false are not)."""
    return isinstance(v, int) and not isinstance(v, bool)


def _check_tile_fields(path: Path, k: int, t, seen: set) -> tuple[str, str]:
    """Check tile ``k``'s letter, count, edges and segment lists; its entry name and edges."""
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
    if not is_int(t.get("count")) or t["count"] < 1:
        _fail(path, name, "'count' must be a positive integer")
    edges = t.get("edges")
    if not isinstance(edges, str) or len(edges) != 4 or any(c not in "CRF" for c in edges):
        _fail(path, name, "'edges' must be 4 letters of C/R/F (sides N E S W)")
    for key in ("cities", "roads", "fields"):
        if not isinstance(t.get(key), list):
            _fail(path, name, f"'{key}' must be a list")
    if not isinstance(t.get("cloister"), bool):
        _fail(path, name, "'cloister' must be true or false")
    return name, edges


def _check_city_road_segments(path: Path, name: str, t: dict, edges: str) -> None:
    """Check that the city and road segments cover their sides exactly once, and the pennants."""
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
        if not is_int(c.get("pennants")) or c["pennants"] < 0:
            _fail(path, name, f"city segment {j}: 'pennants' must be an integer >= 0")


def _check_field_segments(path: Path, name: str, t: dict, edges: str) -> None:
    """Check the field segments' ports (each non-city port in exactly one) and their cities."""
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
            or any(not is_int(c) or not 0 <= c < len(t["cities"]) for c in cs)
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


def _tile_checksums(tiles: list[dict]) -> dict[str, int]:
    """The checksums the tile table gives (counts of tiles, cloisters, pennants, edges)."""
    return {
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


def _check_checksums(path: Path, declared, sums: dict[str, int]) -> None:
    """Check the file's declared checksums against the table's, and the board's tile limit."""
    if not isinstance(declared, dict):
        _fail(path, "checksums", "missing")
    for key, value in declared.items():
        if key not in sums:
            _fail(path, f"checksums.{key}", "unknown checksum")
        if sums[key] != value:
            _fail(path, f"checksums.{key}", f"table gives {sums[key]}, declared {value}")
    if sums["tiles"] > K.MAX_TILES:
        _fail(path, "checksums.tiles", f"at most {K.MAX_TILES} tiles fit the board")


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
        name, edges = _check_tile_fields(path, k, t, seen)
        _check_city_road_segments(path, name, t, edges)
        _check_field_segments(path, name, t, edges)
        nseg = len(t["cities"]) + len(t["roads"]) + len(t["fields"]) + int(t["cloister"])
        if nseg > K.MAX_SEG:
            _fail(path, name, f"at most {K.MAX_SEG} segments per tile")
    start = doc.get("start_tile")
    if start not in seen:
        _fail(path, "start_tile", "must be the letter of a tile in the table")
    _check_checksums(path, doc.get("checksums"), _tile_checksums(tiles))
    return tiles


def validate_gifts(doc, path: Path = DATA_DIR / "gifts.json") -> dict:
    """Check the gift cards (§4.1): the five kernel types in order, counts >= 0."""
    if not isinstance(doc, dict) or not isinstance(doc.get("cards"), list):
        _fail(path, "top level", "must be an object with a 'cards' list")
    ids = tuple(c.get("id") if isinstance(c, dict) else None for c in doc["cards"])
    if ids != GIFT_IDS:
        _fail(path, "cards", f"must be exactly {', '.join(GIFT_IDS)} in this order")
    for c in doc["cards"]:
        if not is_int(c.get("count")) or c["count"] < 0:
            _fail(path, f"card {c['id']}", "'count' must be an integer >= 0")
    for key in ("unopened_points", "cash_out_per_meeple"):
        if not is_int(doc.get(key)) or doc[key] < 0:
            _fail(path, key, "must be an integer >= 0")
    return doc


def validate_scoring(doc, path: Path = DATA_DIR / "scoring.json") -> dict:
    """Check the point values (§3.3) and the meeple count (§3.1)."""
    if not isinstance(doc, dict):
        _fail(path, "top level", "must be an object")
    for key in SCORING_KEYS:
        if not is_int(doc.get(key)) or doc[key] < 0:
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
        A malformed file (one line naming the entry and the rule); its subclass
        ``MissingFileError``: ``data_dir`` is not an existing folder, or a file is missing.
    """
    base = Path(data_dir) if data_dir else DATA_DIR
    if data_dir and not base.is_dir():  # name the folder, not a file inside it
        problem = "is not a folder" if base.exists() else "data folder does not exist"
        raise MissingFileError(f"{data_dir}: {problem} (data_dir is a folder of data files)")
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
    """Kernel tables from validated data (see ``kernels.carcassonne.layout`` for the layout).

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


def tables_for_variant(
    T: tuple, variant: dict, players: int = 2, letters: list[str] | None = None
) -> tuple:
    """``T`` with the gift deck of ``variant["gift_deck"]`` (all cards, or one type only) and,
    with ``start_balance=tournament`` and 5 ``players``, one ``START_BALANCE_REMOVED`` tile
    fewer (§6 #21); ``letters``: the tile letters in table order (default: the bundled data).

    >>> T = tables_for_variant(default_tables(), {"gift_deck": "synod"})
    >>> T[K.TB_GIFT_COUNTS].tolist()
    [25, 0, 0, 0, 0]
    >>> T5 = tables_for_variant(default_tables(), {"start_balance": "tournament"}, players=5)
    >>> int(T5[K.TB_COUNTS].sum()), int(default_tables()[K.TB_COUNTS].sum())
    (71, 72)

    Raises
    ------
    ConfigError
        The tile data has no ``START_BALANCE_REMOVED`` tile to remove.
    """
    deck = variant.get("gift_deck", "all")
    if deck != "all":
        counts = np.zeros_like(T[K.TB_GIFT_COUNTS])
        counts[GIFT_IDS.index(deck)] = int(T[K.TB_GIFT_COUNTS].sum())
        T = T[: K.TB_GIFT_COUNTS] + (counts,)
    if variant.get("start_balance", "none") == "tournament" and players == 5:
        letters = letters if letters is not None else [t["letter"] for t in load_data()["tiles"]]
        v = letters.index(START_BALANCE_REMOVED) if START_BALANCE_REMOVED in letters else -1
        start = int(T[K.TB_START][0])
        if v < 0 or int(T[K.TB_COUNTS][v]) - (v == start) < 1:
            raise ConfigError(
                f"variant start_balance=tournament with 5 players removes a "
                f"{START_BALANCE_REMOVED} tile, but the tile data has none to draw"
            )
        tile_counts = T[K.TB_COUNTS].copy()
        tile_counts[v] -= 1
        T = T[: K.TB_COUNTS] + (tile_counts,) + T[K.TB_COUNTS + 1 :]
    return T


# --------------------------------------------------------------------------------------------
# protocol
# --------------------------------------------------------------------------------------------


def restriction_error(config: RunConfig) -> str | None:
    """One-line error when a seat forbids a gift option (``GIFT_RESTRICTIONS``) without
    ``gifts=true`` (there is no gift card to open, docs/rules/carcassonne.md §6.1), else None."""
    if config.variant.get("gifts") == "true":
        return None
    for c in config.policies:
        for name in c.forbid:
            if name in GIFT_RESTRICTIONS:
                return f"forbid={name} needs --variant gifts=true (gift cards are The Gifts', §4)"
    return None


def check_config(config: RunConfig) -> RunConfig:
    """Refuse gift readings that need ``gifts=true`` (``gift_readings_error``),
    ``start_balance=tournament`` with 2 players (``start_balance_error``) and gift restrictions
    without ``gifts=true`` (``restriction_error``); ``data_dir`` must be a folder path
    (``check_options``).

    Raises
    ------
    ConfigError
    """
    msg = (
        gift_readings_error(config.variant)
        or start_balance_error(config.variant, config.players)
        or restriction_error(config)
    )
    if msg:
        raise ConfigError(msg)
    return check_options(config, {"data_dir": "dir"})


def prepare(config: RunConfig) -> Prepared:
    """Load the data, build the kernel tables (``config`` from ``resolve_config``).

    ``config.options["data_dir"]`` (optional) points to another directory with the three data
    files. Raises ``DataFileError``.
    """
    variant = config.variant
    data_dir = config.options.get("data_dir")
    data = load_data(str(data_dir) if data_dir else None)
    tables = tables_for_variant(
        build_tables(data) if data_dir else default_tables(),
        variant,
        config.players,
        [t["letter"] for t in data["tiles"]],
    )
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


def kernel_for_lineup(prep: Prepared, plain, with_search):
    """``plain`` for lineups without an ``mcts`` seat (the search code is then not compiled),
    else ``with_search`` with the heuristic's default weights as the first content of the
    search's weights (each ``mcts`` decision then copies its seat's ``h_*`` there)."""
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

    Restricted play (a seat's ``forbid=``, docs/rules/carcassonne.md §6.1): then also
    ``forbid_avoided`` and ``forbid_forced`` int64 [n, seats], the real decisions of each seat
    where a forbidden option was legal and the seat chose a permitted one, and where only
    forbidden options were legal (0 for unrestricted seats).
    """
    npl = prep.config.players
    score, brk, gst, held, length = kernel_for_lineup(prep, K.play_batch, K.play_batch_mcts)(
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
        "tiles": gst[:, :, K.G_TURNS],
        "unplaceable": gst[:, :, K.G_UNPLACEABLE].sum(axis=1).astype(np.int32),
    }
    for c, name in enumerate(CATEGORIES):
        out[f"points_{name}"] = brk[:, :, c]
    if prep.config.variant.get("gifts") == "true":
        out["gift_cards"] = (
            gst[:, :, K.G_RECEIVED : K.G_RECEIVED + K.N_GIFT].sum(axis=2).astype(np.int32)
        )
        for g, name in enumerate(GIFT_IDS):
            out[f"gift_received_{name}"] = gst[:, :, K.G_RECEIVED + g].sum(axis=1).astype(np.int32)
            out[f"gift_opened_{name}"] = gst[:, :, K.G_OPENED + g].sum(axis=1).astype(np.int32)
            out[f"gift_held_{name}"] = held[:, :, g].sum(axis=1).astype(np.int32)
            out[f"gift_points_{name}"] = gst[:, :, K.G_POINTS + g].sum(axis=1).astype(np.int32)
    if restricted_seats(prep.config):
        out["forbid_avoided"] = gst[:, :, K.G_AVOIDED].astype(np.int64)
        out["forbid_forced"] = gst[:, :, K.G_FORCED].astype(np.int64)
    return out


def search_start(prep: Prepared, seed: int, game_index: int) -> tuple:
    """The start of game ``game_index`` of ``seed`` as ``kernels.search``'s steps see it:
    ``(state, ctx)``, the root ``mcts_move`` gives the search at seat 0's first placement
    (``search_root`` of the game dealt as ``_play`` deals it: ``_setup`` with the deal stream,
    the first placeable tile drawn; in the root slot of ``search_scratch``) and a
    ``CarcassonneSearchContext`` of the run's tables and variant built as ``search_ctx`` builds
    it from that scratch, with random rollouts, ``width`` = ``depth`` = 0 and the heuristic's
    default weights (used by the kernel test battery, ``tests/test_kernel_battery.py``).

    ``ctx`` is built here as ``search_steps._search_ctx`` builds it (that one is inlined into the
    compiled choosers only: a compiled function returning arrays would be unsafe across the
    NRT-free play loop, see the comment above it); ``search_scratch`` allocates, so it is never
    compiled into that loop (only Python calls it, ``_mcts_scratch``) and its arrays are Python's.
    """
    T = prep.tables["T"]
    npl = np.int64(prep.config.players)
    variant = np.ascontiguousarray(prep.variant_codes, dtype=np.int64)
    drng = new_state(
        np.uint64(seed & 0xFFFF_FFFF_FFFF_FFFF), np.uint64(game_index), np.uint64(STREAM_DEAL)
    )
    S = K.new_game_state.py_func()  # NumPy allocates, as in ``play._run``
    none = np.zeros(0, dtype=np.int32)
    cur = np.int64(0)
    t = K.deal_game(S, T, npl, variant, np.int64(K.MODE_PLAY), drng, cur, none, none)
    hdef = np.array([p.default for p in HEURISTIC_PARAMS], dtype=np.float64)
    scr = K.search_scratch(npl, np.int64(2), hdef)
    root = scr[0]
    K.search_root(S, root, cur, np.int64(K.PH_PLACE), np.int64(t), -1, -1, -1, 0)
    ctx = K.search_steps.CarcassonneSearchContext(
        T,
        variant,
        K.new_scratch.py_func(),
        np.int64(K.POLICY_RANDOM),
        scr[14],
        scr[11],
        scr[12],
        scr[13],
        scr[15],
        np.int64(0),
        np.int64(0),
        scr[16],
        np.int64(0),
        np.int64(0),
    )
    return root, ctx


# ---------------------------------------------------------------- the rest of the game protocol
CHUNK_MULTIPLE = 1
EVALUATE_BANDS: tuple = ()
EVALUATE_GROUPS: dict = {}
ORACLE_POLICY: str | None = None


ensemble_options = no_ensemble(SPEC)


# ---------------------------------------------------------------- the other roles
# imported last: records and summary use the names above
from mcsim.games.carcassonne import charts, records, summary  # noqa: E402

CHARTS = charts.CHARTS  # the report's figures of the game (``mcsim.games.carcassonne.charts``)
finalize_summary = summary.finalize_summary
format_summary = summary.format_summary
partial_summary = summary.partial_summary
summarize = summary.summarize
Position = records.Position
format_replay = records.format_replay
perft = records.perft
perft_pile = records.perft_pile
record_games = records.record_games
replay = records.replay

# the drawer of ``mcsim show`` (imported after the re-exports above, which it reads)
from mcsim.games.carcassonne import show  # noqa: E402

show_frames = show.frames  # one frame per ply (``mcsim.games.carcassonne.show``)
