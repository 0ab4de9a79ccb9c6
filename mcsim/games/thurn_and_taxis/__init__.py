"""Thurn and Taxis (Karen & Andreas Seyfarth, Hans im Glück 2006), 2-4 players.

Rule source: ``docs/rules/thurn_und_taxis.md`` (§1 map, §2 components, §3 setup, §4 turn,
§5 end and score, §6 officials, §7 ambiguities). Component data: ``mcsim/data/thurn_and_taxis/``
(``map.json``: 22 cities, 9 regions, 45 roads; ``carriages.json``: carriage points, MEDIUM
confidence; ``bonus_tiles.json``: the 30 tiles by stack). Run options ``carriages=FILE`` and
``bonus_tiles=FILE`` (``mcsim.simulate(..., options={...})``; on the command line
``--option bonus_tiles=FILE``) replace those two files (same format).

Variants (``--variant name=value``; rules §7):

================================  ======================  ==========  =========================
name                              values                  default     meaning
================================  ======================  ==========  =========================
all_regions_includes_baiern       false | true            false       §7.1: the all-regions tile
                                                                      needs the 8 non-Baiern
                                                                      regions (false) or all 9;
                                                                      never bound in measured
                                                                      play (README)
route_tile_cascade                true | false            true        §7.3: an empty route stack
                                                                      falls back to lower ones
hand_limit                        after_close | every_turn after_close §7.7: trim to 3 cards only
                                                                      after closing, or at the
                                                                      end of every turn
================================  ======================  ==========  =========================

Policies (``--policy name:param=value``):

* ``random``: uniform over the legal decisions of each phase of a turn (official yes/no, which
  card to draw, where to play, close or not, house mode and picks, trimming), except that the
  open route is discarded only when no card in hand extends it. Random 3-player games last
  about 400 turns (401 in 2,000 games, seed 2026), because random routes rarely reach 3 cards
  before they are stuck.
* ``route``: route planner. Draws and plays cards that extend the route at either end, valued
  by the regions and houses still needed (``w_region``, ``w_house``) and by the room left to
  grow (``w_open``, ``w_hand``); closes at ``close_len`` cards, or later when
  ``chase_carriage=1`` and the next carriage needs more (counting the Cartwright's +2), or
  earlier when stuck or in the last round; uses the Postmaster while the hand holds at most
  ``pm_hand_max`` cards, the Administrator when no display card is worth ``admin_below``, the
  Postal Carrier when a second extension is in hand, the Cartwright when it buys the next
  carriage (``cartwright=1``); picks the house option with the most houses + tile points.
* ``mcts``: information-set Monte Carlo tree search (``kernels/search.py``; Cowling, Powley and
  Whitehouse 2012) over every decision of the seat's turns. Each iteration deals what the seat
  cannot see (§7 #12) anew: the deck order and the other seats' hand cards, except those known
  from the display (a card taken from the display stays known in that hand until it is played
  or trimmed); hand sizes, the display, the discard pile, routes, houses and tiles are public.
  Playouts finish the game with ``route`` (default parameters) for every seat (``rollout=0``:
  random). Parameters: ``iterations`` per decision (default 100), ``c`` (UCB1, 0.7), ``reward``
  (2 = points: own points / 10, the default; 1 = margin: (own points - best other seat's
  points) / 10; 0 = win share, the tie-break winner of §5 taking the win), ``rollout``. The
  points reward is the default because under the margin reward a leading seat races to the
  7-carriage and three searching seats score no more than random play (benchmarks/RESULTS.md,
  "The points reward"). Every seat maximises its own reward. In a
  play phase the search considers discarding the route only when no card extends it. The
  search is compiled only when a seat plays ``mcts`` (entry kernel ``play_batch_mcts``).

Restricted play (``-p "route:forbid=cartwright+route-under-5"``, every policy; rules §11): a seat
can be forbidden each official (``postmaster``, ``administrator``, ``postal-carrier``,
``cartwright``), closing a route of fewer than k cards (``route-under-3`` .. ``route-under-7``;
``route-under-3`` is the rules' minimum, a control that never binds) and closing a route that takes
a tile of a bonus family (``route-tile``, ``region-tile``, ``all-regions-tile``,
``game-end-tile``); ``RESTRICTIONS`` holds them, ``play_chunk`` adds the ``forbid_avoided_<k>`` /
``forbid_forced_<k>`` columns.

Seat 0 starts (§3.4). The summary block (``summarize``) is described there; records in
``record_games``.

Kernel encoding: ``kernels.thurn_and_taxis`` (state vector, phases, action codes). Human notation
of records: see ``record_games``.
"""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np

from kernels import thurn_and_taxis as K
from kernels.rng import next_u64, seed_state
from mcsim.errors import DataFileError
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
from mcsim.values import Whole

DATA_DIR = Path(__file__).resolve().parents[2] / "data" / "thurn_and_taxis"
RULES = "docs/rules/thurn_und_taxis.md"
DEFAULT_MAX_TURNS = 2000  # safety cap; random games end far earlier
MAX_TURNS_LIMIT = 100_000  # largest accepted cap (records allocate a decision log of ~60 per turn)
CHUNK_SIZE = 1000  # games per runner chunk (random games take ~300-500 turns)

STACK_IDS = (
    "route5",
    "route6",
    "route7",
    "baiern",
    "boehmen_salzburg",
    "baden",
    "wuerttemberg_hohenzollern",
    "schweiz_tyrol",
    "all_regions",
    "game_end",
)
STACK_COUNTS = (2, 3, 4, 4, 3, 3, 3, 3, 4, 1)  # §2.2 (counts: high confidence)
STACK_KINDS = ("route",) * 3 + ("region_group",) * 5 + ("all_regions", "game_end")  # §2.2
OFFICIALS = ("postmaster", "administrator", "postal_carrier", "cartwright")  # K.OFF_* 1..4
END_REASONS = {K.END_CARRIAGE: "carriage7", K.END_HOUSES: "houses", K.END_CAP: "turn_cap"}

ROUTE_PARAMS = (
    ParamSpec("close_len", 3.0, "close a route once it has this many cards", 3, 22, integer=True),
    ParamSpec("w_region", 2.0, "weight of a city in a region group still needed", 0, 100),
    ParamSpec("w_house", 1.0, "weight of a city without an own house", 0, 100),
    ParamSpec("w_open", 0.3, "weight per free neighbour of a route end", 0, 100),
    ParamSpec("w_hand", 1.0, "weight per hand card that can follow a route end", 0, 100),
    ParamSpec("deck_value", 1.5, "value of a blind deck draw against display cards", -100, 100),
    ParamSpec(
        "admin_below", 1.0, "use the Administrator if no display card is worth this", -100, 100
    ),
    ParamSpec(
        "pm_hand_max",
        10.0,
        "use the Postmaster while the hand has at most this many cards",
        0,
        66,
        integer=True,
    ),
    ParamSpec(
        "cartwright",
        1.0,
        "1: save the turn's official for the Cartwright when it buys the next carriage; 0: never",
        0,
        1,
        integer=True,
    ),
    ParamSpec(
        "chase_carriage",
        1.0,
        "1: keep building until the route buys the next carriage "
        "(counting the Cartwright); 0: close at close_len",
        0,
        1,
        integer=True,
    ),
)
#: the route planner's parameters as the kernel reads them (the forbid mask, last in the
#: policy's list, goes to column ``K.P_FORBID``: ``kernel_params``)
N_ROUTE_PARAMS = len(ROUTE_PARAMS)

#: ``mcts`` parameters (kernel order ``kernels.thurn_and_taxis.P_MCTS_*``); defaults from the
#: measurements in benchmarks/RESULTS.md ("Search", Thurn and Taxis)
MCTS_PARAMS = (
    ParamSpec(
        "iterations",
        100.0,
        "search iterations per decision (no wall-clock budget)",
        1.0,
        1e6,
        integer=True,
    ),
    ParamSpec(
        "c",
        0.7,
        "UCB1 exploration constant (rewards in [0, 1] for win, points/10 for margin and points)",
        0.0,
        100.0,
    ),
    ParamSpec(
        "reward",
        2.0,
        "0 = win (1 for the tie-break winner, §5), 1 = margin ((own - best other's points) / 10), "
        "2 = points (own points / 10)",
        0.0,
        2.0,
        integer=True,
    ),
    ParamSpec(
        "rollout",
        1.0,
        "playout policy of every seat: 0 random, 1 route (at its default parameters)",
        0.0,
        1.0,
        integer=True,
    ),
)

#: restricted play (docs/rules/thurn_und_taxis.md §11): the options ``forbid=`` takes, in table
#: order; bit ``K.FB_*`` of the ``forbid_mask`` parameter every policy declares last
_R = RULES + " §11"
RESTRICTIONS = (
    RestrictionSpec(
        "postmaster",
        "never use the Postmaster (a second draw); an empty hand at the turn's start still "
        "forces it (counted as forced)",
        "official",
        K.FB_POSTMASTER,
        source=_R + ", §4A, §6",
    ),
    RestrictionSpec(
        "administrator",
        "never use the Administrator (a new display before the draw)",
        "official",
        K.FB_ADMINISTRATOR,
        source=_R + ", §6",
    ),
    RestrictionSpec(
        "postal-carrier",
        "never use the Postal Carrier (a second card onto the route)",
        "official",
        K.FB_POSTAL_CARRIER,
        source=_R + ", §6",
    ),
    RestrictionSpec(
        "cartwright",
        "never close with the Cartwright (the route counted 2 cards longer for the carriage)",
        "official",
        K.FB_CARTWRIGHT,
        source=_R + ", §4C.3, §6",
    ),
    *(
        RestrictionSpec(
            f"route-under-{k}",
            f"never close a route of fewer than {k} cards"
            + (
                " (the rules' own minimum, §4C: it never binds, a control worth 0)"
                if k == 3
                else ""
            ),
            "route length",
            K.FB_ROUTE_UNDER + k - 3,
            source=_R + ", §4C",
        )
        for k in range(3, 8)
    ),
    RestrictionSpec(
        "route-tile",
        "never close a route that takes a route-length tile (5, 6 or 7+ cards while a tile it "
        "would take is left)",
        "bonus",
        K.FB_ROUTE_TILE,
        source=_R + ", §2.2, §4C.2",
    ),
    RestrictionSpec(
        "region-tile",
        "never close a route that completes a region group's tile; the houses are placed so "
        "that none is completed",
        "bonus",
        K.FB_REGION_TILE,
        source=_R + ", §2.2, §4C.1-2",
    ),
    RestrictionSpec(
        "all-regions-tile",
        "never close a route that takes the all-regions tile; the houses are placed so that "
        "it does not",
        "bonus",
        K.FB_ALL_REGIONS_TILE,
        source=_R + ", §2.2, §4C.1-2, §7.1",
    ),
    RestrictionSpec(
        "game-end-tile",
        "never close a route that ends the game (the 7-carriage or the last house, which take "
        "the game-end tile)",
        "bonus",
        K.FB_GAME_END_TILE,
        source=_R + ", §5",
    ),
)

#: game-specific options (``--option KEY=VALUE``)
OPTIONS = {
    "carriages": "carriage points file (JSON, like mcsim/data/thurn_and_taxis/carriages.json)",
    "bonus_tiles": "bonus tiles file (JSON, like bonus_tiles.json)",
    "map": "map file (JSON, like map.json)",
    "max_turns": f"turn cap, 1..{MAX_TURNS_LIMIT:,} (default {DEFAULT_MAX_TURNS}; a capped game "
    "ends with a shared win)",
}

#: the ``mcts`` policy (also the parameters of ``mcts1``, ``kept_mcts``, while they agree)
MCTS_POLICY = PolicySpec(
    "mcts",
    K.POL_MCTS,
    "information-set Monte Carlo tree search (kernels/search.py): each iteration "
    "deals the deck and the others' unknown hand cards anew (§7 #12); every seat "
    "maximises its own reward",
    MCTS_PARAMS + (forbid_mask_param(),),
)


SPEC = GameSpec(
    id="thurn-and-taxis",
    long_name="Thurn and Taxis",
    rules=RULES,
    min_players=2,
    max_players=4,
    default_players=3,
    variants=(
        VariantSpec(
            "all_regions_includes_baiern",
            ("false", "true"),
            "false",
            "the all-regions tile also needs a house in Baiern",
            RULES + " §7.1",
        ),
        VariantSpec(
            "route_tile_cascade",
            ("true", "false"),
            "true",
            "an empty route-length stack falls back to the next lower one",
            RULES + " §7.3",
        ),
        VariantSpec(
            "hand_limit",
            ("after_close", "every_turn"),
            "after_close",
            "when the hand is trimmed to 3 cards",
            RULES + " §7.7",
        ),
    ),
    policies=(
        PolicySpec(
            "random",
            K.POL_RANDOM,
            "uniform over the legal decisions of each turn phase",
            (forbid_mask_param(),),
        ),
        PolicySpec(
            "route",
            K.POL_ROUTE,
            "route planner: extends towards needed regions, closes "
            "at close_len, uses officials when they pay",
            ROUTE_PARAMS + (forbid_mask_param(),),
        ),
        MCTS_POLICY,
        kept_mcts(MCTS_POLICY),  # mcts1: today's mcts, kept (base.kept_mcts)
    ),
    summary_key="thurn_and_taxis",
    max_plies=DEFAULT_MAX_TURNS * 40,
    description="postal routes across southern Germany; officials, carriages and bonus tiles",
    restrictions=RESTRICTIONS,
)


# ----------------------------------------------------------------------------- data


def _read_json(path: Path) -> Any:
    return read_json(path, "data file")


def _need(obj: Any, key: str, typ: type, where: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise DataFileError(f"{where}: missing field {key!r}")
    val = obj[key]
    if typ is int and (isinstance(val, bool) or not isinstance(val, int)):
        raise DataFileError(f"{where}: field {key!r} must be an integer, not {val!r}")
    if typ is not int and not isinstance(val, typ):
        raise DataFileError(f"{where}: field {key!r} must be a {typ.__name__}")
    return val


def load_map(path: Path | None = None) -> dict:
    """Load and validate the map (§1): 22 cities, 9 regions, 45 roads, connected, degrees.

    Returns
    -------
    dict
        ``regions`` (list of 9 names), ``cities`` (list of dicts with ``id, name, region``),
        ``edges`` (list of 45 ``(a, b)`` city-id pairs, a < b), ``adj`` (list of neighbour sets).

    Raises
    ------
    DataFileError
        One line naming the entry and the broken rule.

    >>> m = load_map(); len(m["cities"]), len(m["edges"])
    (22, 45)
    """
    path = Path(path) if path else DATA_DIR / "map.json"
    d = _read_json(path)
    w = str(path)  # the path as given (a basename alone is ambiguous)
    regions = _need(d, "regions", list, w)
    if len(regions) != K.N_REGIONS or len(set(regions)) != K.N_REGIONS:
        raise DataFileError(f"{w}: 'regions' must list {K.N_REGIONS} distinct names")
    cities = _need(d, "cities", list, w)
    if len(cities) != K.N_CITIES:
        raise DataFileError(f"{w}: {len(cities)} cities, expected {K.N_CITIES} (§1.1)")
    names: dict[str, int] = {}
    out_cities = []
    for i, c in enumerate(cities):
        where = f"{w}: city #{i}"
        cid = _need(c, "id", int, where)
        name = _need(c, "name", str, where)
        region = _need(c, "region", str, where)
        if cid != i:
            raise DataFileError(f"{where} ({name}): id {cid} must equal its position {i}")
        if name in names:
            raise DataFileError(f"{where}: duplicate city name {name!r}")
        if region not in regions:
            raise DataFileError(f"{where} ({name}): unknown region {region!r}")
        names[name] = i
        out_cities.append(
            {
                "id": i,
                "name": name,
                "region": region,
                "degree": c.get("degree"),
                "xy": (c.get("board_x_mm"), c.get("board_y_mm")),
            }
        )
    for r in regions:
        if not any(c["region"] == r for c in out_cities):
            raise DataFileError(f"{w}: region {r!r} has no city")
    expected = _need(d, "expected_road_count", int, w)
    roads = _need(d, "roads", list, w)
    edges: set[tuple[int, int]] = set()
    for k, e in enumerate(roads):
        where = f"{w}: road #{k}"
        if not (isinstance(e, list) and len(e) == 2 and all(isinstance(x, str) for x in e)):
            raise DataFileError(f"{where}: must be a pair of city names")
        for x in e:
            if x not in names:
                raise DataFileError(f"{where} {e}: unknown city {x!r}")
        a, b = sorted((names[e[0]], names[e[1]]))
        if a == b:
            raise DataFileError(f"{where} {e}: a road must join two different cities")
        if (a, b) in edges:
            raise DataFileError(f"{where} {e}: duplicate road")
        edges.add((a, b))
    if len(edges) != expected or expected != 45:
        raise DataFileError(f"{w}: {len(edges)} roads, expected 45 (§1.2)")
    adj = [set() for _ in range(K.N_CITIES)]
    for a, b in edges:
        adj[a].add(b)
        adj[b].add(a)
    for c in out_cities:
        if c["degree"] is not None and c["degree"] != len(adj[c["id"]]):
            raise DataFileError(
                f"{w}: city {c['name']}: {len(adj[c['id']])} roads, listed degree "
                f"{c['degree']} (§1.1)"
            )
    seen = {0}
    todo = deque([0])
    while todo:
        x = todo.popleft()
        for y in adj[x] - seen:
            seen.add(y)
            todo.append(y)
    if len(seen) != K.N_CITIES:
        lost = sorted(out_cities[i]["name"] for i in set(range(K.N_CITIES)) - seen)
        raise DataFileError(f"{w}: road network is not connected (unreachable: {', '.join(lost)})")
    cards = _need(d, "city_cards_per_city", int, w)
    if cards * K.N_CITIES != K.N_CARDS:
        raise DataFileError(
            f"{w}: city_cards_per_city={cards} gives {cards * K.N_CITIES} cards, "
            f"expected {K.N_CARDS} (§2)"
        )
    return {
        "regions": list(regions),
        "cities": out_cities,
        "edges": sorted(edges),
        "adj": adj,
        "names": names,
    }


def load_carriages(path: Path | None = None) -> dict[int, int]:
    """Carriage points by value 3..7 (§2.1, MEDIUM confidence; edit ``carriages.json``).

    Raises
    ------
    DataFileError
        A value missing or repeated, points negative or decreasing with the value, ``copies``
        other than 4 (§2.1; the file is read by ``mcsim.files.read_json``).

    >>> load_carriages()
    {3: 2, 4: 3, 5: 5, 6: 7, 7: 10}
    """
    path = Path(path) if path else DATA_DIR / "carriages.json"
    d = _read_json(path)
    w = str(path)  # the path as given (a basename alone is ambiguous)
    rows = _need(d, "carriages", list, w)
    vp: dict[int, int] = {}
    for k, r in enumerate(rows):
        where = f"{w}: carriage #{k}"
        v = _need(r, "value", int, where)
        p = _need(r, "points", int, where)
        if v not in range(3, 8):
            raise DataFileError(f"{where}: value {v} must be 3..7 (§2.1)")
        if v in vp:
            raise DataFileError(f"{where}: value {v} listed twice")
        if p < 0:
            raise DataFileError(f"{where} (value {v}): points {p} must be >= 0")
        if "copies" in r and _need(r, "copies", int, where) != K.MAX_SEATS:
            raise DataFileError(
                f"{where} (value {v}): copies {r['copies']} must be "
                f"{K.MAX_SEATS}, one per player (§2.1; the supply is not "
                f"modelled)"
            )
        vp[v] = p
    for v in range(3, 8):
        if v not in vp:
            raise DataFileError(f"{w}: carriage value {v} is missing (§2.1)")
        if v > 3 and vp[v] < vp[v - 1]:
            raise DataFileError(f"{w}: carriage {v} scores {vp[v]}, less than carriage {v - 1}")
    return dict(sorted(vp.items()))


def load_bonus_tiles(regions: list[str], path: Path | None = None) -> list[dict]:
    """The 10 bonus stacks in ``STACK_IDS`` order (§2.2), values top first, 30 tiles in all.

    Raises
    ------
    DataFileError
        Unknown or missing stack, a ``kind`` other than its stack's (route, region_group,
        all_regions, game_end), wrong tile count, ``total_tiles`` other than 30, values
        increasing towards the top, a region group that does not match §1 (groups must
        partition the 8 regions other than Polen).
    """
    path = Path(path) if path else DATA_DIR / "bonus_tiles.json"
    d = _read_json(path)
    w = str(path)  # the path as given (a basename alone is ambiguous)
    stacks = _need(d, "stacks", list, w)
    by_id = {}
    for k, s in enumerate(stacks):
        sid = _need(s, "id", str, f"{w}: stack #{k}")
        where = f"{w}: stack {sid!r}"
        if sid not in STACK_IDS:
            raise DataFileError(
                f"{where}: unknown stack id (expected one of {', '.join(STACK_IDS)})"
            )
        if sid in by_id:
            raise DataFileError(f"{where}: listed twice")
        kind = STACK_KINDS[STACK_IDS.index(sid)]
        if s.get("kind", kind) != kind:
            raise DataFileError(f"{where}: kind {s.get('kind')!r} must be {kind!r} (§2.2)")
        vals = _need(s, "values", list, where)
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in vals):
            raise DataFileError(f"{where}: values must be non-negative integers")
        want = STACK_COUNTS[STACK_IDS.index(sid)]
        if len(vals) != want:
            raise DataFileError(f"{where}: {len(vals)} tiles, expected {want} (§2.2)")
        if any(vals[i] < vals[i + 1] for i in range(len(vals) - 1)):
            raise DataFileError(f"{where}: values must be listed top first, highest on top (§2.2)")
        by_id[sid] = dict(s, kind=kind)
    for sid in STACK_IDS:
        if sid not in by_id:
            raise DataFileError(f"{w}: stack {sid!r} is missing (§2.2)")
    total = sum(len(s["values"]) for s in by_id.values())
    if total != 30:
        raise DataFileError(f"{w}: {total} tiles, expected 30 (§2.2)")
    if d.get("total_tiles", 30) != 30:
        raise DataFileError(
            f"{w}: 'total_tiles' is {json.dumps(d.get('total_tiles'))}, but the "
            f"stacks hold 30 tiles (§2.2)"
        )
    for k, sid in enumerate(("route5", "route6", "route7")):
        if _need(by_id[sid], "length", int, f"{w}: stack {sid!r}") != 5 + k:
            raise DataFileError(f"{w}: stack {sid!r}: length must be {5 + k}")
    covered: list[str] = []
    for sid in STACK_IDS[3:8]:
        regs = _need(by_id[sid], "regions", list, f"{w}: stack {sid!r}")
        for r in regs:
            if r not in regions:
                raise DataFileError(f"{w}: stack {sid!r}: unknown region {r!r}")
        covered += regs
    others = sorted(set(regions) - {"Polen"})
    if sorted(covered) != others:
        raise DataFileError(
            f"{w}: region groups must cover each region except Polen exactly once (§1)"
        )
    if by_id["all_regions"].get("excluded_region", "Baiern") != "Baiern":
        raise DataFileError(f"{w}: stack 'all_regions': excluded_region must be Baiern (§7.1)")
    return [by_id[sid] for sid in STACK_IDS]


def load_data(options: dict | None = None) -> dict:
    """All component data, validated (``options`` may name ``carriages`` / ``bonus_tiles`` files)."""
    options = options or {}
    m = load_map(options.get("map"))
    m["carriage_vp"] = load_carriages(options.get("carriages"))
    m["stacks"] = load_bonus_tiles(m["regions"], options.get("bonus_tiles"))
    return m


def build_tables(data: dict) -> np.ndarray:
    """The kernel table ``int64[TAB_SIZE]`` (layout ``kernels.thurn_and_taxis.T_*``)."""
    tab = np.zeros(K.TAB_SIZE, dtype=np.int64)
    regions = data["regions"]
    for c in data["cities"]:
        i = c["id"]
        tab[K.T_ADJ + i] = sum(1 << j for j in data["adj"][i])
        r = regions.index(c["region"])
        tab[K.T_REGION + i] = r
        tab[K.T_REGMASK + r] |= 1 << i
    for s, st in enumerate(data["stacks"]):
        tab[K.T_STACK_N + s] = len(st["values"])
        for k, v in enumerate(st["values"]):
            tab[K.T_STACK_VAL + s * K.MAX_TILES + k] = v
        if st["kind"] == "region_group" or s in range(3, 8):
            for r in st["regions"]:
                tab[K.T_GROUP + s] |= tab[K.T_REGMASK + regions.index(r)]
    for v, p in data["carriage_vp"].items():
        tab[K.T_CARR_VP + v] = p
    allm = (1 << K.N_REGIONS) - 1
    tab[K.T_ALL_REG + 0] = allm & ~(1 << regions.index("Baiern"))
    tab[K.T_ALL_REG + 1] = allm
    for k in range(3):
        tab[K.T_ROUTE_LEN + k] = data["stacks"][k]["length"]
    tab[K.T_CITY_GROUP : K.T_CITY_GROUP + K.N_CITIES] = -1
    for s in range(K.N_STACKS):
        for c in range(K.N_CITIES):
            if (int(tab[K.T_GROUP + s]) >> c) & 1:
                tab[K.T_CITY_GROUP + c] = s
    return tab


_DATA_CACHE: dict = {}


def default_data() -> dict:
    """The shipped data, loaded once."""
    if "d" not in _DATA_CACHE:
        _DATA_CACHE["d"] = load_data()
    return _DATA_CACHE["d"]


def variant_vector(spec_codes: np.ndarray, max_turns: int = DEFAULT_MAX_TURNS) -> np.ndarray:
    """Kernel variant vector ``int64[N_VARIANT_SLOTS]`` from ``SPEC.variant_codes``."""
    var = np.zeros(K.N_VARIANT_SLOTS, dtype=np.int64)
    var[: len(spec_codes)] = spec_codes
    var[K.V_MAX_TURNS] = max_turns
    return var


# ----------------------------------------------------------------------------- protocol


def check_config(config: RunConfig) -> RunConfig:
    """Check the options by kind (``check_options``: the data files are paths, ``max_turns`` a
    whole number in ``1..MAX_TURNS_LIMIT``); returns the config with ``max_turns`` an int when
    given and options given as None dropped.

    Raises
    ------
    BadValueError
    """
    return check_options(
        config,
        {
            "carriages": "file",
            "bonus_tiles": "file",
            "map": "file",
            "max_turns": Whole(1, MAX_TURNS_LIMIT, f"a whole number in 1..{MAX_TURNS_LIMIT:,}"),
        },
    )


def prepare(config: RunConfig) -> Prepared:
    """Load the data, build the tables (``config`` from ``resolve_config``; see
    ``mcsim.games.base``).

    Raises
    ------
    DataFileError
    """
    resolved = config.variant
    opts = config.options
    data = (
        load_data(opts)
        if any(k in opts for k in ("carriages", "bonus_tiles", "map"))
        else default_data()
    )
    max_turns = int(opts.get("max_turns", DEFAULT_MAX_TURNS))
    ids, params = policy_arrays(SPEC, config.policies)
    params = kernel_params(ids, params)
    codes = SPEC.variant_codes(resolved)
    return Prepared(
        config=config,
        policy_ids=ids,
        policy_params=params,
        variant_codes=codes,
        tables={
            "tab": build_tables(data),
            "var": variant_vector(codes, max_turns),
            "cities": [c["name"] for c in data["cities"]],
            "regions": data["regions"],
            "data": data,
            "carriage_vp": {str(k): v for k, v in data["carriage_vp"].items()},
        },
        info={
            "carriage_points": {str(k): v for k, v in data["carriage_vp"].items()},
            "carriage_points_confidence": "medium",
        },
    )


def restricted_route_params(vec: np.ndarray, mask: int) -> np.ndarray:
    """The ``route`` planner's parameters (``float64[K.N_PARAMS]``) as a seat with forbid
    ``mask`` plays them (rules §11), so that it does not plan for what it may not do: with the
    Cartwright forbidden ``cartwright=0`` (it does not save its official for it); with
    route-under-k forbidden ``close_len`` at least k (the largest such k). A copy; the mask's
    other options are left to the kernel's filter."""
    out = np.array(vec, dtype=np.float64)
    if (mask >> K.FB_CARTWRIGHT) & 1:
        out[K.P_CART] = 0.0
    for k in range(7, 2, -1):
        if (mask >> (K.FB_ROUTE_UNDER + k - 3)) & 1:
            out[K.P_CLOSE_LEN] = max(out[K.P_CLOSE_LEN], float(k))
            break
    return out


def kernel_params(ids: np.ndarray, params: np.ndarray) -> np.ndarray:
    """The kernel's parameter matrix ``float64[seats, K.N_SEAT_PARAMS]`` from
    ``policy_arrays``' (each policy's parameters in ``SPEC`` order, its ``forbid_mask`` last):
    the policy's own parameters first, the mask moved to column ``K.P_FORBID``; a ``route``
    seat's parameters adapted to its mask (``restricted_route_params``); for an ``mcts`` seat
    the rollout's ``route`` parameters (the defaults) from column ``K.P_MCTS_BASE`` on and those
    of its own rollout moves, adapted to its mask, from ``K.P_MCTS_OWN`` on."""
    out = np.zeros((params.shape[0], K.N_SEAT_PARAMS), np.float64)
    route = SPEC.policy("route").vector()[:N_ROUTE_PARAMS]
    for k, pid in enumerate(ids):
        m = len(_POLICY_BY_ID[int(pid)].params) - 1  # the forbid mask's position
        mask = int(params[k, m])
        out[k, :m] = params[k, :m]
        out[k, K.P_FORBID] = float(mask)
        if pid == K.POL_ROUTE and mask:
            out[k, : K.N_PARAMS] = restricted_route_params(out[k, : K.N_PARAMS], mask)
        if pid == K.POL_MCTS:
            out[k, K.P_MCTS_BASE : K.P_MCTS_BASE + K.N_PARAMS] = route
            own = restricted_route_params(route, mask)
            out[k, K.P_MCTS_OWN : K.P_MCTS_OWN + K.N_PARAMS] = own
    return out


_POLICY_BY_ID = {p.id: p for p in SPEC.policies}


def kernel_policy_ids(prep: Prepared) -> np.ndarray:
    """The kernel's policy ids: a seat with a forbid mask gets its policy's id plus
    ``K.POL_RESTRICTED`` (rules §11), so the engine's fast paths see only unrestricted seats."""
    restricted = prep.policy_params[:, K.P_FORBID] != 0
    return (prep.policy_ids + K.POL_RESTRICTED * restricted).astype(np.int64)


def _has_mcts(prep: Prepared) -> bool:
    """True when a seat plays ``mcts``: the run uses the search entry kernels
    (``K.play_batch_mcts``), compiled only then."""
    return bool((prep.policy_ids == K.POL_MCTS).any())


def entry_kernel(prep: Prepared):
    """The entry kernel of a run and its arguments ``(entry, policy ids, policy parameters,
    restrictions)``: ``K.play_batch_mcts`` when a seat plays ``mcts`` (the search is compiled
    only then); else ``K.play_batch``, with the parameters only when a seat plays ``route`` or is
    restricted (None: the engine compiled without the ``route`` policy and restricted play,
    shared with replays: less to compile). The ids are ``kernel_policy_ids``; the restrictions
    are the seats' forbid masks (int64), None when no seat is restricted (rules §11), so an
    unrestricted run compiles no restricted-play code."""
    ids = kernel_policy_ids(prep)
    masks = prep.policy_params[:, K.P_FORBID].astype(np.int64)
    restrictions = masks if masks.any() else None
    if _has_mcts(prep):
        return K.play_batch_mcts, ids, prep.policy_params, restrictions
    if (prep.policy_ids == K.POL_ROUTE).any() or restrictions is not None:
        return K.play_batch, ids, prep.policy_params, restrictions
    return K.play_batch, ids, None, None


def forbids(prep: Prepared, seat: int, name: str) -> bool:
    """True when ``seat``'s policy forbids the restriction called ``name`` (rules §11)."""
    bit = SPEC.restriction(name).bit
    return bool((int(prep.policy_params[seat, K.P_FORBID]) >> bit) & 1)


def play_chunk(prep: Prepared, first_game_index: int, n_games: int, root_seed: int) -> dict:
    """Play a chunk of games in the kernel; column arrays, one row per game.

    Returns ``score`` int64[n, seats], ``win_share`` float64[n, seats] (tie-break §5: the
    winner gets 1), ``length`` int32[n] (decisions), and game columns: ``turns``, ``rounds``,
    ``end_reason`` (0 carriage7, 1 houses, 2 turn cap), ``end_seat``, per seat
    ``used_<official>``, ``forced_postmaster``, ``carriage``, ``houses_left``, ``tile_points``,
    ``routes_closed``, ``route_cards_closed``; per game ``closed_len_<L>`` (L = 3..9, 10 = 10+)
    and ``tiles_<stack>``. When a seat is restricted (``restricted_seats``, rules §11), per
    seat ``forbid_avoided`` (real decisions where the seat left a legal forbidden option for a
    permitted one) and ``forbid_forced`` (real decisions where every legal option was
    forbidden, and, for a seat forbidden the Postmaster, its forced Postmaster turns, §4A),
    int64, 0 for unrestricted seats.
    """
    t = prep.tables
    n = prep.config.players
    (
        score,
        win,
        plies,
        turns,
        end_reason,
        end_seat,
        officials,
        forced,
        carriage,
        houses_left,
        tile_pts,
        closed,
        closed_len,
        route_hist,
        tiles_taken,
        forbid_avoided,
        forbid_forced,
    ) = out = K.new_outputs(n_games, n)
    entry, ids, params, restrictions = entry_kernel(prep)
    entry(
        np.int64(first_game_index),
        np.int64(n_games),
        np.uint64(root_seed),
        np.int64(n),
        ids,
        params,
        t["var"],
        t["tab"],
        out,
        K.new_scratch(),
        restrictions,
    )
    out = {
        "score": score,
        "win_share": win,
        "length": plies,
        "turns": turns,
        "rounds": ((turns + n - 1) // n).astype(np.int32),
        "end_reason": end_reason,
        "end_seat": end_seat,
    }
    for k, name in enumerate(OFFICIALS):
        out[f"used_{name}"] = np.ascontiguousarray(officials[:, :, k + 1])
    out["forced_postmaster"] = forced
    out["carriage"] = carriage
    out["houses_left"] = houses_left
    out["tile_points"] = tile_pts
    out["routes_closed"] = closed
    out["route_cards_closed"] = closed_len
    for L in range(3, 10):
        out[f"closed_len_{L}"] = route_hist[:, L].copy()
    out["closed_len_10"] = route_hist[:, 10:].sum(axis=1).astype(np.int32)
    for s, sid in enumerate(STACK_IDS):
        out[f"tiles_{sid}"] = tiles_taken[:, s].copy()
    if restricted_seats(prep.config):
        for k in range(n):
            if forbids(prep, k, "postmaster"):  # the rules' forced Postmaster turns (§4A)
                forbid_forced[:, k] += forced[:, k]
        out["forbid_avoided"] = forbid_avoided
        out["forbid_forced"] = forbid_forced
    return out


def search_start(prep: Prepared, seed: int, game_index: int) -> tuple:
    """The start of game ``game_index`` of ``seed`` as ``kernels.search``'s steps see it:
    ``(state, ctx)``, the dealt position (``int64[ST_SIZE]``, dealt by the kernel's own
    ``setup_game`` as ``play_batch_mcts`` deals it: with every seat on ``mcts`` it is the
    root of the first decision) and the ``ThurnAndTaxisSearchContext`` of ``search_scratch``
    for the run's tables and variant, set as ``choose_mcts`` sets it for that decision (the
    reshuffle stream seeded from the seat's policy stream, the ``route`` defaults as rollout
    parameters) but with random rollouts (used by the kernel test battery,
    ``tests/test_kernel_battery.py``)."""
    tab, var = prep.tables["tab"], prep.tables["var"]
    st, deck, deal_rng, prngs = K.new_scratch()[:4]
    K.setup_game(
        st,
        tab,
        np.int64(prep.config.players),
        np.int64(game_index),
        np.uint64(seed),
        deck,
        deal_rng,
        prngs,
    )
    ctx = K.search_scratch(tab, var, 2)[0]
    ctx.rollout_params[:] = SPEC.policy("route").vector()[:N_ROUTE_PARAMS]
    seed_state(ctx.reshuffle_rng, np.uint64(next_u64(prngs[st[K.S_CUR]])))
    return st, ctx._replace(rollout_policy=np.int64(K.POL_RANDOM))


# ---------------------------------------------------------------- the rest of the game protocol
CHUNK_MULTIPLE = 1
EVALUATE_BANDS: tuple = ()
EVALUATE_GROUPS: dict = {}
ORACLE_POLICY: str | None = None


ensemble_options = no_ensemble(SPEC)


# ---------------------------------------------------------------- the other roles
# imported last: records and summary use the names above
from mcsim.games.thurn_and_taxis import charts, records, summary  # noqa: E402

CHARTS = charts.CHARTS  # the report's figures of the game (``mcsim.games.thurn_and_taxis.charts``)
finalize_summary = summary.finalize_summary
format_summary = summary.format_summary
partial_summary = summary.partial_summary
summarize = summary.summarize
Game = records.Game
RECORD_FORMAT = records.RECORD_FORMAT
format_move = records.format_move
format_replay = records.format_replay
parse_move = records.parse_move
perft = records.perft
play_logged_game = records.play_logged_game  # tests and benchmarks replay the kernel's log
record_games = records.record_games
replay = records.replay

# the drawer of ``mcsim show`` (imported after the re-exports above, which it reads)
from mcsim.games.thurn_and_taxis import show  # noqa: E402

show_frames = show.frames  # one frame per ply (``mcsim.games.thurn_and_taxis.show``)
