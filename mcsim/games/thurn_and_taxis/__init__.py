"""Thurn and Taxis (Karen & Andreas Seyfarth, Hans im Glück 2006), 2-4 players.

Rule source: ``docs/rules/thurn_und_taxis.md`` (§1 map, §2 components, §3 setup, §4 turn,
§5 end and score, §6 officials, §7 ambiguities). Component data: ``mcsim/data/thurn_and_taxis/``
(``map.json``: 22 cities, 9 regions, 45 roads; ``carriages.json``: carriage points, MEDIUM
confidence; ``bonus_tiles.json``: the 30 tiles by stack). Run options ``carriages=FILE`` and
``bonus_tiles=FILE`` (``mcsim.simulate(..., options={...})``; on the command line ``--tiles FILE``
is the bonus-tile file) replace those two files (same format).

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

Seat 0 starts (§3.4). The summary block (``summarize``) is described there; records in
``record_games``.

Kernel encoding: ``kernels.thurn_and_taxis`` (state vector, phases, action codes). Human notation
of records: see ``record_games``.
"""

from __future__ import annotations

import json
import math
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from kernels import thurn_and_taxis as K
from mcsim.errors import ConfigError, DataFileError, IllegalMoveError, InvalidRecordError
from mcsim.files import read_json
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

#: game-specific options (``--option KEY=VALUE``; ``--tiles FILE`` means bonus_tiles=FILE)
OPTIONS = {
    "carriages": "carriage points file (JSON, like mcsim/data/thurn_and_taxis/carriages.json)",
    "bonus_tiles": "bonus tiles file (JSON, like bonus_tiles.json)",
    "map": "map file (JSON, like map.json)",
    "max_turns": f"turn cap, 1..{MAX_TURNS_LIMIT:,} (default {DEFAULT_MAX_TURNS}; a capped game "
    "ends with a shared win)",
}

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
        PolicySpec("random", K.POL_RANDOM, "uniform over the legal decisions of each turn phase"),
        PolicySpec(
            "route",
            K.POL_ROUTE,
            "route planner: extends towards needed regions, closes "
            "at close_len, uses officials when they pay",
            ROUTE_PARAMS,
        ),
    ),
    summary_key="thurn_and_taxis",
    max_plies=DEFAULT_MAX_TURNS * 40,
    description="postal routes across southern Germany; officials, carriages and bonus tiles",
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
    w = path.name
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
    w = path.name
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
    w = path.name
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
    """Drop options given as None and check ``max_turns`` (an integer in
    ``1..MAX_TURNS_LIMIT``); returns the config with ``max_turns`` an int when given.

    Raises
    ------
    ConfigError
    """
    opts = {k: v for k, v in dict(config.options or {}).items() if v is not None}
    if "max_turns" in opts:
        try:
            opts["max_turns"] = int(opts["max_turns"])
        except (TypeError, ValueError):
            raise ConfigError(f"option max_turns={opts['max_turns']!r} is not an integer") from None
        if not 1 <= opts["max_turns"] <= MAX_TURNS_LIMIT:
            raise ConfigError(f"option max_turns must be in 1..{MAX_TURNS_LIMIT:,}")
    return RunConfig(config.game, config.players, config.policies, config.variant, opts)


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
    if params.shape[1] < K.N_PARAMS:
        params = np.hstack([params, np.zeros((params.shape[0], K.N_PARAMS - params.shape[1]))])
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


def play_chunk(prep: Prepared, first_game_index: int, n_games: int, root_seed: int) -> dict:
    """Play a chunk of games in the kernel; column arrays, one row per game.

    Returns ``score`` int64[n, seats], ``win_share`` float64[n, seats] (tie-break §5: the
    winner gets 1), ``length`` int32[n] (decisions), and game columns: ``turns``, ``rounds``,
    ``end_reason`` (0 carriage7, 1 houses, 2 turn cap), ``end_seat``, per seat
    ``used_<official>``, ``forced_postmaster``, ``carriage``, ``houses_left``, ``tile_points``,
    ``routes_closed``, ``route_cards_closed``; per game ``closed_len_<L>`` (L = 3..9, 10 = 10+)
    and ``tiles_<stack>``.
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
    ) = K.play_batch(
        np.int64(first_game_index),
        np.int64(n_games),
        np.uint64(root_seed),
        np.int64(n),
        prep.policy_ids,
        prep.policy_params,
        t["var"],
        t["tab"],
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
    return out


# ----------------------------------------------------------------------------- stepping


class Game:
    """One game stepped from Python through the kernel (replay, tests, records).

    Parameters
    ----------
    players : int
        2..4.
    deck : sequence of int
        The 66 city ids in deal order (first 6 form the display, §3.2).
    variant : dict, optional
        Variant values by name (defaults of ``SPEC``).
    reshuffles : list of list of int, optional
        Replay: the deck order after each reshuffle of the discard pile. ``None``: reshuffle
        with a fixed-seed generator (tests).
    data : dict, optional
        ``load_data()`` result (default: the shipped data).
    max_turns : int
        Turn cap (the game is stopped, end reason ``turn_cap``).
    """

    def __init__(
        self,
        players: int,
        deck,
        variant: dict | None = None,
        reshuffles=None,
        data: dict | None = None,
        max_turns: int = DEFAULT_MAX_TURNS,
    ):
        self.data = data or default_data()
        self.tab = build_tables(self.data)
        self.variant = SPEC.resolve_variant(variant)
        self.var = variant_vector(SPEC.variant_codes(self.variant), max_turns)
        self.st = np.zeros(K.ST_SIZE, dtype=np.int64)
        K.init_state(self.st, players, np.asarray(deck, dtype=np.int64))
        K.init_stacks(self.st, self.tab)
        if reshuffles is None:
            self.script = np.empty(0, dtype=np.int64)
        else:
            flat = [c for order in reshuffles for c in order]
            self.script = np.array(flat + [-1], dtype=np.int64)
        from kernels.rng import new_state

        self.rng = new_state(0, 0, 0)
        self.slog = np.zeros(1, dtype=np.int64)
        self._buf = np.empty(K.MAX_ACTIONS, dtype=np.int64)

    # --- views
    @property
    def players(self) -> int:
        return int(self.st[K.S_NP])

    @property
    def current(self) -> int:
        return int(self.st[K.S_CUR])

    @property
    def phase(self) -> int:
        return int(self.st[K.S_PHASE])

    @property
    def over(self) -> bool:
        return bool(self.st[K.S_OVER])

    def route(self, p: int) -> list[int]:
        lo, hi = self.st[K.S_RLO + p], self.st[K.S_RHI + p]
        return [int(x) for x in self.st[K.S_ROUTE + p * 44 + lo : K.S_ROUTE + p * 44 + hi]]

    def hand(self, p: int) -> list[int]:
        h = self.st[K.S_HAND + p * K.N_CITIES : K.S_HAND + (p + 1) * K.N_CITIES]
        return [c for c in range(K.N_CITIES) for _ in range(int(h[c]))]

    def houses(self, p: int) -> set[int]:
        m = int(self.st[K.S_HOUSES + p])
        return {c for c in range(K.N_CITIES) if (m >> c) & 1}

    def display(self) -> list[int]:
        return [int(x) for x in self.st[K.S_DISPLAY : K.S_DISPLAY + K.DISPLAY]]

    def get(self, offset: int, p: int = 0) -> int:
        return int(self.st[offset + p])

    def scores(self) -> list[int]:
        sc = np.zeros(K.MAX_SEATS, dtype=np.int64)
        K.score_final(self.st, self.tab, sc)
        return [int(x) for x in sc[: self.players]]

    def winner(self) -> int:
        sc = np.zeros(K.MAX_SEATS, dtype=np.int64)
        K.score_final(self.st, self.tab, sc)
        return int(K.winner_of(self.st, sc))

    # --- setters for constructed positions (tests)
    def set_hand(self, p: int, cities) -> None:
        base = K.S_HAND + p * K.N_CITIES
        self.st[base : base + K.N_CITIES] = 0
        cities = list(cities)
        for c in cities:
            self.st[base + c] += 1
        self.st[K.S_HAND_N + p] = len(cities)
        self.st[K.S_HMASK + p] = sum(1 << c for c in set(cities))

    def set_route(self, p: int, cities) -> None:
        cities = list(cities)
        base = K.S_ROUTE + p * 44
        self.st[K.S_RLO + p] = 22
        self.st[K.S_RHI + p] = 22 + len(cities)
        m = 0
        for k, c in enumerate(cities):
            self.st[base + 22 + k] = c
            m |= 1 << c
        self.st[K.S_RMASK + p] = m

    def set_houses(self, p: int, cities) -> None:
        cities = set(cities)
        self.st[K.S_HOUSES + p] = sum(1 << c for c in cities)
        self.st[K.S_HOUSES_LEFT + p] = K.HOUSES - len(cities)

    def set_phase(self, phase: int, official: int = K.OFF_NONE) -> None:
        self.st[K.S_PHASE] = phase
        self.st[K.S_OFFICIAL] = official

    # --- moves
    def legal(self) -> list[int]:
        n = K.legal_moves(self.st, self.tab, self._buf)
        return [int(a) for a in self._buf[:n]]

    def apply(self, a: int) -> None:
        """Apply action ``a``; raises ``IllegalMoveError`` if it is not legal here."""
        legal = self.legal()
        if a not in legal:
            raise IllegalMoveError(
                int(self.st[K.S_TURN]), format_move(self, a), [format_move(self, x) for x in legal]
            )
        K.apply_move(self.st, self.tab, self.var, np.int64(a), self.rng, self.script, self.slog)
        if self.st[K.S_ERROR]:
            raise InvalidRecordError(
                "a reshuffle of the discard pile is missing from the record "
                "or is not a permutation of the pile"
            )

    def play(self, *actions: int) -> None:
        for a in actions:
            self.apply(a)

    def city(self, name: str) -> int:
        try:
            return self.data["names"][name]
        except KeyError:
            raise InvalidRecordError(f"unknown city {name!r}") from None


def format_move(game: Game, a: int) -> str:
    """Human name of kernel action ``a`` in ``game``'s current phase (record notation)."""
    names = [c["name"] for c in game.data["cities"]]
    ph = game.phase
    if ph in (K.PH_ADMIN, K.PH_PM, K.PH_PC):
        off = {K.PH_ADMIN: "administrator", K.PH_PM: "postmaster", K.PH_PC: "postal_carrier"}[ph]
        return off if a == K.A_YES else f"no {off}"
    if ph in (K.PH_DRAW1, K.PH_DRAW2):
        if a == K.A_DRAW_DECK:
            return "deck"
        if K.A_DRAW_DISPLAY <= a < K.A_DRAW_DISPLAY + K.N_CITIES:
            return "display:" + names[a - K.A_DRAW_DISPLAY]
        return "none"
    if ph in (K.PH_PLAY1, K.PH_PLAY2):
        for base, word in (
            (K.A_RESTART, "restart"),
            (K.A_START, "new"),
            (K.A_RIGHT, "right"),
            (K.A_LEFT, "left"),
        ):
            if base <= a < base + K.N_CITIES:
                return f"{word}:{names[a - base]}"
        return "none"
    if ph == K.PH_CLOSE:
        return {K.A_NO: "no close", K.A_CLOSE: "close", K.A_CLOSE_CART: "close cartwright"}.get(
            a, "?"
        )
    if ph == K.PH_HOUSE_MODE:
        if a == K.A_MODE_EACH:
            return "mode:each"
        if K.A_MODE_REGION <= a < K.A_MODE_REGION + K.N_REGIONS:
            return "mode:region:" + game.data["regions"][a - K.A_MODE_REGION]
    if ph == K.PH_HOUSE_PICK:
        if a == K.A_HOUSE_SKIP:
            return "skip"
        if K.A_HOUSE <= a < K.A_HOUSE + K.N_CITIES:
            return "house:" + names[a - K.A_HOUSE]
    if ph == K.PH_TRIM and K.A_TRIM <= a < K.A_TRIM + K.N_CITIES:
        return "trim:" + names[a - K.A_TRIM]
    return f"action {a}"


# ----------------------------------------------------------------------------- records


RECORD_FORMAT = 1  # "format" of the records written by record_games (optional in replay)


def _kernel_game(prep: Prepared, root_seed: int, game_index: int):
    """Play one game with logging: (final state, actions, deal, reshuffle orders)."""
    n = prep.config.players
    st = np.zeros(K.ST_SIZE, dtype=np.int64)
    cap = prep.tables["var"][K.V_MAX_TURNS] * 60 + 100
    alog = np.full(int(cap), -1, dtype=np.int64)
    slog = np.zeros(200_000, dtype=np.int64)
    deck = np.empty(K.N_CARDS, dtype=np.int64)
    plies = K.play_game(
        st,
        prep.tables["tab"],
        prep.tables["var"],
        np.int64(n),
        np.int64(game_index),
        np.uint64(root_seed),
        prep.policy_ids,
        prep.policy_params,
        alog,
        slog,
        deck,
    )
    reshuffles = []
    k = 0
    while k < st[K.S_SLOG_N]:
        m = int(slog[k])
        reshuffles.append([int(x) for x in slog[k + 1 : k + 1 + m]])
        k += m + 1
    return st, [int(a) for a in alog[:plies]], [int(x) for x in deck], reshuffles


def record_games(prep: Prepared, root_seed: int, game_indices) -> list[dict]:
    """JSON-ready records of the given games of a run; each replays to the run's result.

    Record format::

        {"game": "thurn-and-taxis", "format": 1, "players": 3, "variant": {...}, "seed": S,
         "game_index": i,
         "policies": [...],
         "deal": [66 city names],        # deck order; the first 6 cards form the display
         "reshuffles": [[names], ...],   # new deck order after each reshuffle, in order
         "turns": [{"seat": 0,
                    "official": null | "postmaster" | "administrator" | "postal_carrier"
                                | "cartwright",
                    "draws": ["display:Ulm", "deck"],   # "none" if nothing could be drawn
                    "plays": ["new:Ulm"],   # new: | restart: (discard route) | left: | right:
                    "close": null | {"mode": "each" | "region", "region": "Baiern" (mode
                              region), "houses": ["Ulm", ...]},   # houses in placement order
                    "trim": ["Basel"]}, ...],   # cards discarded down to 3 (§4C.4)
         "scores": [...], "winner": seat, "end_reason": "carriage7" | "houses" | "turn_cap",
         "components": {"carriage_points": {"3": 2, ...}, "bonus_tiles": {"route5": [2, 1], ...}},
         "max_turns": 2000}

    ``components`` and ``max_turns`` are optional in a record given to ``replay`` (defaults: the
    shipped data files, 2000).

    A forced Postmaster (empty hand, §4A) is written as ``"official": "postmaster"``.
    """
    names = prep.tables["cities"]
    out = []
    for i in game_indices:
        st, actions, deck, reshuffles = _kernel_game(prep, int(root_seed), int(i))
        data = prep.tables["data"]
        g = Game(
            prep.config.players,
            deck,
            prep.config.variant,
            reshuffles=reshuffles,
            data=data,
            max_turns=int(prep.tables["var"][K.V_MAX_TURNS]),
        )
        turns = []
        cur = None
        for a in actions:
            if cur is None or g.get(K.S_TURN) != cur["_t"]:
                cur = {
                    "_t": g.get(K.S_TURN),
                    "seat": g.current,
                    "official": "postmaster" if g.get(K.S_FORCED) else None,
                    "draws": [],
                    "plays": [],
                    "close": None,
                    "trim": [],
                }
                turns.append(cur)
            ph = g.phase
            text = format_move(g, a)
            if ph == K.PH_ADMIN and a == K.A_YES:
                cur["official"] = "administrator"
            elif ph == K.PH_PM and a == K.A_YES:
                cur["official"] = "postmaster"
            elif ph == K.PH_PC and a == K.A_YES:
                cur["official"] = "postal_carrier"
            elif ph in (K.PH_DRAW1, K.PH_DRAW2):
                cur["draws"].append(text)
            elif ph in (K.PH_PLAY1, K.PH_PLAY2):
                cur["plays"].append(text)
            elif ph == K.PH_CLOSE and a != K.A_NO:
                cur["close"] = {"mode": "each", "houses": []}
                if a == K.A_CLOSE_CART:
                    cur["official"] = "cartwright"
            elif ph == K.PH_HOUSE_MODE:
                if a != K.A_MODE_EACH:
                    cur["close"]["mode"] = "region"
                    cur["close"]["region"] = prep.tables["regions"][a - K.A_MODE_REGION]
            elif ph == K.PH_TRIM:
                cur["trim"].append(names[a - K.A_TRIM])
            before = g.houses(g.current)
            p = g.current
            g.apply(a)
            if ph in (K.PH_HOUSE_MODE, K.PH_HOUSE_PICK):
                new = g.houses(p) - before
                if ph == K.PH_HOUSE_PICK and a != K.A_HOUSE_SKIP:
                    cur["close"]["houses"].append(names[a - K.A_HOUSE])
                elif ph == K.PH_HOUSE_MODE and a != K.A_MODE_EACH:
                    cur["close"]["houses"] += [names[c] for c in sorted(new)]
        for t in turns:
            del t["_t"]
        same = np.ones(K.ST_SIZE, dtype=bool)
        same[[K.S_SCRIPT_POS, K.S_ALOG_N, K.S_SLOG_N]] = False  # bookkeeping only
        assert g.over and bool(np.array_equal(g.st[same], st[same])), "record diverged from kernel"
        out.append(
            {
                "game": SPEC.id,
                "format": RECORD_FORMAT,
                "players": prep.config.players,
                "variant": dict(prep.config.variant),
                "seed": int(root_seed),
                "game_index": int(i),
                "policies": [p.label() for p in prep.config.policies],
                "deal": [names[c] for c in deck],
                "reshuffles": [[names[c] for c in r] for r in reshuffles],
                "turns": turns,
                "scores": g.scores(),
                "winner": g.winner(),
                "end_reason": END_REASONS.get(g.get(K.S_END_REASON), "none"),
                "components": _components(data),
                "max_turns": int(prep.tables["var"][K.V_MAX_TURNS]),
            }
        )
    return out


def _components(data: dict) -> dict:
    """The component values a record was played with (the MEDIUM-confidence tables, §2)."""
    return {
        "carriage_points": {str(v): p for v, p in data["carriage_vp"].items()},
        "bonus_tiles": {s["id"]: list(s["values"]) for s in data["stacks"]},
    }


def _record_data(record: dict) -> dict:
    """Shipped data with the record's ``components`` (if any) swapped in and validated."""
    comp = record.get("components")
    if comp is None:
        return default_data()
    if not isinstance(comp, dict):
        raise InvalidRecordError('"components" must be an object')
    import copy
    import tempfile

    data = copy.deepcopy(default_data())
    try:
        with tempfile.TemporaryDirectory() as tmp:
            if "carriage_points" in comp:
                f = Path(tmp) / "carriages.json"
                f.write_text(
                    json.dumps(
                        {
                            "carriages": [
                                {"value": int(v), "points": p}
                                for v, p in comp["carriage_points"].items()
                            ]
                        }
                    )
                )
                data["carriage_vp"] = load_carriages(f)
            if "bonus_tiles" in comp:
                stacks = []
                for s in default_data()["stacks"]:
                    s = dict(s)
                    s["values"] = comp["bonus_tiles"].get(s["id"], s["values"])
                    stacks.append(s)
                f = Path(tmp) / "bonus_tiles.json"
                f.write_text(json.dumps({"stacks": stacks}))
                data["stacks"] = load_bonus_tiles(data["regions"], f)
    except (DataFileError, AttributeError, TypeError, ValueError) as e:
        raise InvalidRecordError(f'record "components": {e}') from None
    return data


def parse_move(g: Game, text: str) -> int:
    """Kernel action for the record token ``text`` in ``g``'s current phase (inverse of
    ``format_move``): ``deck``, ``display:CITY``, ``new:|restart:|left:|right:CITY``,
    ``house:CITY``, ``skip``, ``trim:CITY``, ``mode:each``, ``mode:region:REGION``, ``close``,
    ``close cartwright``, ``no close``, an official's name or ``no OFFICIAL``, ``none``.

    Raises
    ------
    InvalidRecordError
        A token that names nothing in this phase.
    """
    for a in range(256):
        try:
            if format_move(g, a) == text:
                return a
        except (IndexError, KeyError):
            continue
    raise InvalidRecordError(f"{text!r} is not a move of this phase")


def _parse_draw(g: Game, text: str) -> int:
    if text == "deck":
        return K.A_DRAW_DECK
    if text == "none":
        return K.A_NO
    kind, _, name = text.partition(":")
    if kind != "display":
        raise InvalidRecordError(f"draw {text!r} must be 'deck', 'display:CITY' or 'none'")
    return K.A_DRAW_DISPLAY + g.city(name)


def _parse_play(g: Game, text: str) -> int:
    if text == "none":
        return K.A_NO
    kind, _, name = text.partition(":")
    base = {"new": K.A_START, "restart": K.A_RESTART, "left": K.A_LEFT, "right": K.A_RIGHT}.get(
        kind
    )
    if base is None:
        raise InvalidRecordError(f"play {text!r} must be new:|restart:|left:|right: + CITY")
    return base + g.city(name)


def house_options(route, own, houses_left: int, region_of: dict, regions: list[str]):
    """Every legal way to place houses when closing ``route`` (§4C.1, §7.5, §7.13).

    Written from the rules text, without the kernel's move generator (replay checks records
    with it). Option (i) puts one house in each route region that still has a route city
    without the player's house; option (ii) puts one in every such city of one route region.
    The number placed is min(houses left, what the option can take); the player chooses which
    only when houses run short. An option that places no house is legal only when none places
    any.

    Parameters
    ----------
    route : sequence of int
        City ids of the closed route.
    own : set of int
        Cities already holding the player's house.
    houses_left : int
        Houses in the player's supply (0..20).
    region_of : dict
        City id -> region name.
    regions : list of str
        Region names in map order (the order options are listed in).

    Yields
    ------
    (mode, region, houses)
        ``("each", None, (c, ...))`` or ``("region", name, (c, ...))``; houses as sorted city ids.
    """
    from itertools import combinations, product

    lacking = [c for c in sorted(set(route)) if c not in own]
    on_route = [r for r in regions if any(region_of[c] == r for c in route)]
    by_region = {r: [c for c in lacking if region_of[c] == r] for r in on_route}
    need = [r for r in on_route if by_region[r]]
    places = houses_left > 0 and bool(lacking)
    k = min(houses_left, len(need))
    for regs in combinations(need, k):
        for pick in product(*(by_region[r] for r in regs)):
            yield ("each", None, tuple(sorted(pick)))
    for r in on_route:
        if not by_region[r] and places:
            continue  # places nothing while another option places some (§7.13)
        for pick in combinations(by_region[r], min(houses_left, len(by_region[r]))):
            yield ("region", r, pick)


def _describe_close(mode, region, houses, names) -> str:
    where = "each" if mode == "each" else f"region {region}"
    return f"close {where} [{', '.join(names[c] for c in houses)}]"


def _check_close(g: Game, t_index: int, close: dict, data: dict) -> None:
    """Refuse a recorded close whose houses break §4C.1 (``house_options``), whatever the
    kernel offers: a skipped mandatory house is an ``IllegalMoveError`` naming the turn and
    listing the legal choices."""
    p = g.current
    names = [c["name"] for c in data["cities"]]
    region_of = {c["id"]: c["region"] for c in data["cities"]}
    mode = close.get("mode")
    region = close.get("region") if mode == "region" else None
    if mode == "region" and region not in data["regions"]:
        raise InvalidRecordError(f"turn {t_index}: unknown region {region!r}")
    houses = close.get("houses", [])
    if not isinstance(houses, list) or not all(isinstance(h, str) for h in houses):
        raise InvalidRecordError(f'turn {t_index}: close "houses" must be a list of city names')
    ids = [g.city(h) for h in houses]
    options = house_options(
        g.route(p), g.houses(p), g.get(K.S_HOUSES_LEFT, p), region_of, data["regions"]
    )
    if len(set(ids)) == len(ids) and (mode, region, tuple(sorted(ids))) in set(options):
        return
    shown = []
    for opt in house_options(
        g.route(p), g.houses(p), g.get(K.S_HOUSES_LEFT, p), region_of, data["regions"]
    ):
        shown.append(_describe_close(*opt, names))
        if len(shown) > 60:
            break
    raise IllegalMoveError(
        t_index,
        f"close {'each' if mode == 'each' else f'region {region}'} [{', '.join(houses)}]",
        shown,
    )


def replay(record: dict) -> ReplayResult:
    """Validate a record turn by turn and return the result.

    Returns
    -------
    dict
        ``{"finished", "turns", "scores", "points" (= scores), "winner", "end_reason",
        "carriages", "houses_left", "tile_points"}`` (scores also for unfinished records: the
        score so far; winner None until finished).

    Raises
    ------
    InvalidRecordError
        Not a thurn-and-taxis record, a malformed field, a reshuffle that is not a permutation of
        the discard pile, or scores that differ from the record's ``scores``.
    IllegalMoveError
        An entry illegal in the position reached; ``ply`` is the turn index.
    """
    if not isinstance(record, dict) or record.get("game") != SPEC.id:
        raise InvalidRecordError(
            'not a thurn-and-taxis record (expected {"game": "thurn-and-taxis", ...})'
        )
    if record.get("format", RECORD_FORMAT) != RECORD_FORMAT:
        raise InvalidRecordError(f'"format" must be {RECORD_FORMAT}, got {record.get("format")!r}')
    players = record.get("players")
    if not isinstance(players, int) or not 2 <= players <= 4:
        raise InvalidRecordError('"players" must be 2, 3 or 4')
    try:
        variant = SPEC.resolve_variant(record.get("variant") or {})
    except ValueError as e:
        raise InvalidRecordError(str(e)) from None
    data = _record_data(record)
    names = data["names"]
    deal = record.get("deal")
    if not isinstance(deal, list) or len(deal) != K.N_CARDS:
        raise InvalidRecordError('"deal" must list the 66 city cards in deck order')
    try:
        deck = [names[x] for x in deal]
        reshuffles = [[names[x] for x in r] for r in record.get("reshuffles", [])]
    except (KeyError, TypeError) as e:
        raise InvalidRecordError(f"unknown city {e} in deal/reshuffles") from None
    if sorted(deck) != sorted(c for c in range(K.N_CITIES) for _ in range(3)):
        raise InvalidRecordError('"deal" must hold each city exactly 3 times (§2)')
    turns = record.get("turns")
    if not isinstance(turns, list):
        raise InvalidRecordError('"turns" must be a list')
    max_turns = record.get("max_turns", DEFAULT_MAX_TURNS)
    if (
        isinstance(max_turns, bool)
        or not isinstance(max_turns, int)
        or not 1 <= max_turns <= MAX_TURNS_LIMIT
    ):
        raise InvalidRecordError(f'"max_turns" must be an integer in 1..{MAX_TURNS_LIMIT:,}')
    g = Game(players, deck, variant, reshuffles=reshuffles, data=data, max_turns=max_turns)
    for t_index, turn in enumerate(turns):
        if g.over:
            raise InvalidRecordError(f"turn {t_index}: the game is already over")
        if not isinstance(turn, dict):
            raise InvalidRecordError(f"turn {t_index}: must be an object")
        if turn.get("seat", g.current) != g.current:
            raise IllegalMoveError(t_index, f"seat {turn.get('seat')}", [f"seat {g.current}"])
        official = turn.get("official")
        if official not in (None,) + OFFICIALS:
            raise InvalidRecordError(f"turn {t_index}: unknown official {official!r}")
        draws = list(turn.get("draws", []))
        plays = list(turn.get("plays", []))
        close = turn.get("close")
        if close is not None and not isinstance(close, dict):
            raise InvalidRecordError(f'turn {t_index}: "close" must be null or an object')
        closed = False
        trim = list(turn.get("trim", []))
        houses = list(close.get("houses", [])) if isinstance(close, dict) else []
        used = "postmaster" if g.get(K.S_FORCED) else None
        while not g.over and g.get(K.S_TURN) == t_index:
            ph = g.phase
            legal = g.legal()
            if ph == K.PH_ADMIN:
                a = K.A_YES if official == "administrator" else K.A_NO
            elif ph == K.PH_PM:
                a = K.A_YES if official == "postmaster" and used is None else K.A_NO
            elif ph == K.PH_PC:
                a = K.A_YES if official == "postal_carrier" else K.A_NO
            elif ph in (K.PH_DRAW1, K.PH_DRAW2):
                if not draws:
                    raise IllegalMoveError(t_index, "(no draw)", [format_move(g, x) for x in legal])
                a = _parse_draw(g, draws.pop(0))
            elif ph in (K.PH_PLAY1, K.PH_PLAY2):
                if not plays:
                    raise IllegalMoveError(t_index, "(no play)", [format_move(g, x) for x in legal])
                a = _parse_play(g, plays.pop(0))
            elif ph == K.PH_CLOSE:
                if close is None:
                    a = K.A_NO
                else:
                    a = K.A_CLOSE_CART if official == "cartwright" else K.A_CLOSE
                    closed = True
                    if close.get("mode") in ("each", "region") and a in legal:
                        _check_close(g, t_index, close, data)
            elif ph == K.PH_HOUSE_MODE:
                mode = close.get("mode")
                if mode == "each":
                    a = K.A_MODE_EACH
                elif mode == "region":
                    reg = close.get("region")
                    if reg not in data["regions"]:
                        raise InvalidRecordError(f"turn {t_index}: unknown region {reg!r}")
                    a = K.A_MODE_REGION + data["regions"].index(reg)
                    cand = (
                        g.get(K.S_RMASK, g.current)
                        & int(g.tab[K.T_REGMASK + a - K.A_MODE_REGION])
                        & ~g.get(K.S_HOUSES, g.current)
                    )
                    if bin(cand).count("1") <= g.get(K.S_HOUSES_LEFT, g.current):
                        want = sorted(c for c in range(K.N_CITIES) if (cand >> c) & 1)
                        if sorted(g.city(h) for h in houses) != want:
                            raise IllegalMoveError(
                                t_index,
                                f"houses {houses}",
                                [", ".join(data["cities"][c]["name"] for c in want)],
                            )
                        houses = []
                else:
                    raise InvalidRecordError(
                        f"turn {t_index}: close mode must be 'each' or 'region'"
                    )
            elif ph == K.PH_HOUSE_PICK:
                # houses may be listed in any order: take the first one legal here
                a = K.A_HOUSE_SKIP
                k = next((k for k, h in enumerate(houses) if K.A_HOUSE + g.city(h) in legal), None)
                if k is not None:
                    a = K.A_HOUSE + g.city(houses.pop(k))
                elif K.A_HOUSE_SKIP not in legal:
                    shown = houses[0] if houses else "(no house)"
                    raise IllegalMoveError(
                        t_index, f"house:{shown}", [format_move(g, x) for x in legal]
                    )
            elif ph == K.PH_TRIM:
                if not trim:
                    raise IllegalMoveError(t_index, "(no trim)", [format_move(g, x) for x in legal])
                a = K.A_TRIM + g.city(trim.pop(0))
            else:
                raise InvalidRecordError(f"turn {t_index}: unexpected phase {ph}")
            if a not in legal:
                raise IllegalMoveError(
                    t_index, format_move(g, a), [format_move(g, x) for x in legal]
                )
            if ph == K.PH_ADMIN and a == K.A_YES:
                used = "administrator"
            elif ph == K.PH_PM and a == K.A_YES:
                used = "postmaster"
            elif ph == K.PH_PC and a == K.A_YES:
                used = "postal_carrier"
            elif ph == K.PH_CLOSE and a == K.A_CLOSE_CART:
                used = "cartwright"
            g.apply(a)
        left = draws or plays or houses or trim
        if left:
            raise InvalidRecordError(f"turn {t_index}: entries not used by the turn: {left}")
        if close is not None and not closed:
            raise InvalidRecordError(
                f'turn {t_index}: "close" given, but the route could not be '
                "closed (it needs 3 or more cards, §4C)"
            )
        if used != official:
            raise InvalidRecordError(
                f"turn {t_index}: official {official!r} recorded, but the turn used {used!r}"
            )
    result = {
        "finished": g.over,
        "turns": len(turns),
        "scores": g.scores(),
        "points": g.scores(),
        "winner": g.winner() if g.over else None,
        "end_reason": END_REASONS.get(g.get(K.S_END_REASON)),
        "carriages": [g.get(K.S_CARRIAGE, p) for p in range(players)],
        "houses_left": [g.get(K.S_HOUSES_LEFT, p) for p in range(players)],
        "tile_points": [g.get(K.S_TILE_PTS, p) for p in range(players)],
    }
    if g.over:
        for key in ("scores", "winner", "end_reason"):
            if key in record and record[key] != result[key]:
                raise InvalidRecordError(
                    f"record says {key} {record[key]!r}, replay gives {result[key]!r}"
                )
    return replay_result(record, result)


def format_replay(result: dict) -> str:
    """Readable text for ``mcsim replay``."""
    lines = [
        f"turns: {result['turns']}; finished: {'yes' if result['finished'] else 'no'}"
        + (f" ({result['end_reason']})" if result["end_reason"] else "")
    ]
    for p, s in enumerate(result["scores"]):
        lines.append(
            f"seat {p}: {s:3d} points  (carriage {result['carriages'][p] or '-'}, "
            f"tiles {result['tile_points'][p]}, houses left {result['houses_left'][p]})"
        )
    if result["winner"] is not None:
        lines.append(f"winner: seat {result['winner']} (tie-break: game-end tile, then clockwise)")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- summary


_USE_BINS = ((0, 1), (1, 2), (2, 3), (3, 5), (5, 10), (10, 20), (20, 10**9))


def _bin_label(lo: int, hi: int) -> str:
    return str(lo) if hi == lo + 1 else (f"{lo}-{hi - 1}" if hi < 10**9 else f"{lo}+")


def partial_summary(games: pd.DataFrame, prep: Prepared) -> dict:
    """Additive sums over a chunk of games (merged across chunks key by key by
    ``mcsim.aggregate``; ``finalize_summary`` turns the total into the summary block).

    The table is read once as a float64 matrix (every column used is an integer count or a
    win share, exact in float64), so a chunk costs one conversion rather than a pandas
    selection per column."""
    k = prep.config.players
    n = len(games)
    f8 = np.float64
    i8 = np.int64
    max_rounds = int(prep.tables["var"][K.V_MAX_TURNS]) + 1
    matrix = games.to_numpy(dtype=f8)
    where = {name: j for j, name in enumerate(games.columns)}

    def col(name: str) -> np.ndarray:
        return matrix[:, where[name]]

    def seats(prefix: str) -> np.ndarray:  # (k, n): one row per seat
        return np.stack([col(f"{prefix}_{s}") for s in range(k)]) if n else np.zeros((k, 0))

    rounds = col("rounds").astype(i8)
    win = seats("win_share")
    score = seats("score")
    won = win.reshape(-1)
    out: dict[str, Any] = {
        "n": n,
        "win_share": [float(x) for x in win.sum(axis=1)],
        "score_sum": [float(x) for x in score.sum(axis=1)],
        "score_sumsq": [float(x) for x in (score**2).sum(axis=1)],
        "end": [int((col("end_reason") == code).sum()) for code in END_REASONS],
        "rounds_sum": float(rounds.sum()),
        "rounds_sumsq": float((rounds.astype(f8) ** 2).sum()),
        "rounds_hist": np.bincount(np.minimum(rounds, max_rounds - 1), minlength=max_rounds),
        "forced": int(seats("forced_postmaster").sum()),
        "officials": {},
        "closed_len": np.array([col(f"closed_len_{L}").sum() for L in range(3, 11)], dtype=i8),
        "route_cards": int(seats("route_cards_closed").sum()),
        "tiles_taken": np.array([col(f"tiles_{sid}").sum() for sid in STACK_IDS], dtype=i8),
        "tiles_ran_out": np.array(
            [(col(f"tiles_{sid}") >= STACK_COUNTS[i]).sum() for i, sid in enumerate(STACK_IDS)],
            dtype=i8,
        ),
    }
    carr = seats("carriage").reshape(-1).astype(i8)
    out["carriages"] = np.bincount(carr, minlength=8)[[0, 3, 4, 5, 6, 7]].astype(i8)
    for name in OFFICIALS:
        used = seats(f"used_{name}")
        per_game = used.sum(axis=0)
        uses = used.reshape(-1)
        players = np.array([((uses >= lo) & (uses < hi)).sum() for lo, hi in _USE_BINS], i8)
        wins = np.array([won[(uses >= lo) & (uses < hi)].sum() for lo, hi in _USE_BINS], f8)
        out["officials"][name] = {
            "sum": float(per_game.sum()),
            "sumsq": float((per_game**2).sum()),
            "bin_players": players,
            "bin_wins": wins,
        }
    return out


def _mean_from_sums(total: float, sumsq: float, n: int) -> dict:
    from mcsim import stats

    if n == 0:
        return {"mean": math.nan, "low": math.nan, "high": math.nan, "sd": math.nan, "n": 0}
    m = total / n
    sd = math.sqrt(max((sumsq - n * m * m) / (n - 1), 0.0)) if n > 1 else 0.0
    half = stats.t_quantile(n) * sd / math.sqrt(n) if n > 1 else math.nan
    return {"mean": m, "low": m - half, "high": m + half, "sd": sd, "n": int(n)}


def _hist_quantile(hist: np.ndarray, q: float) -> float:
    """The smallest value whose cumulative share reaches ``q`` (histogram quantile)."""
    c = np.cumsum(hist)
    if c[-1] == 0:
        return math.nan
    return float(np.searchsorted(c, q * c[-1] - 1e-9))


def finalize_summary(t: dict, prep: Prepared) -> dict:
    """The Thurn and Taxis block of the summary (issue §4) from summed partials.

    Keys: ``by_players`` (per seat under the run's player count: win rate with Wilson 95%
    interval, mean score with t interval), ``end`` (share of games ended by the 7-carriage, by
    the last house, by the turn cap; rounds: mean with t interval and 5/50/95% quantiles),
    ``officials`` (per official: uses per game with t interval, uses per player, win rate of
    players by how often they used it; forced Postmasters per player), ``closed_routes``
    (per game, mean length in cards, share by length), ``bonus_tiles`` (per stack: tiles taken
    per game, share of games the stack ran out), ``carriages`` (share of players by highest
    carriage, mean highest).
    """
    from mcsim import stats

    n = int(t["n"])
    k = prep.config.players
    labels = [p.label() for p in prep.config.policies]
    seats = [
        {
            "seat": s,
            "policy": labels[s],
            "win_rate": stats.proportion(float(t["win_share"][s]), n),
            "score": _mean_from_sums(float(t["score_sum"][s]), float(t["score_sumsq"][s]), n),
        }
        for s in range(k)
    ]
    out: dict[str, Any] = {"by_players": {str(k): seats}}
    out["end"] = {
        name: stats.proportion(float(t["end"][i]), n) for i, name in enumerate(END_REASONS.values())
    }
    out["end"]["rounds"] = _mean_from_sums(float(t["rounds_sum"]), float(t["rounds_sumsq"]), n)
    hist = np.asarray(t["rounds_hist"])
    out["end"]["rounds_quantiles"] = {
        q: _hist_quantile(hist, float(q) / 100) for q in ("5", "50", "95")
    }
    off: dict[str, Any] = {}
    for name in OFFICIALS:
        o = t["officials"][name]
        bins = {}
        for (lo, hi), m, w in zip(
            _USE_BINS, np.asarray(o["bin_players"]), np.asarray(o["bin_wins"])
        ):
            if m:
                bins[_bin_label(lo, hi)] = {
                    "players": int(m),
                    "win_rate": stats.proportion(float(w), int(m)),
                }
        off[name] = {
            "per_game": _mean_from_sums(float(o["sum"]), float(o["sumsq"]), n),
            "per_player": float(o["sum"]) / (n * k) if n else math.nan,
            "win_rate_by_uses": bins,
        }
    off["postmaster"]["forced_per_player"] = float(t["forced"]) / (n * k) if n else math.nan
    out["officials"] = off
    counts = np.asarray(t["closed_len"], dtype=np.float64)
    total = counts.sum()
    out["closed_routes"] = {
        "per_game": float(total / n) if n else math.nan,
        "mean_length": float(t["route_cards"] / total) if total else math.nan,
        "share_by_length": {
            (str(L) if L < 10 else "10+"): (float(c / total) if total else math.nan)
            for L, c in zip(range(3, 11), counts)
        },
    }
    out["bonus_tiles"] = {
        sid: {
            "mean_taken": float(t["tiles_taken"][i]) / n if n else math.nan,
            "ran_out": stats.proportion(float(t["tiles_ran_out"][i]), n),
        }
        for i, sid in enumerate(STACK_IDS)
    }
    carr = np.asarray(t["carriages"], dtype=np.float64)
    m = carr.sum()
    out["carriages"] = {
        ("none" if v == 0 else str(v)): (float(c / m) if m else math.nan)
        for v, c in zip((0, 3, 4, 5, 6, 7), carr)
    }
    out["carriages"]["mean_highest"] = (
        float((carr * np.array([0, 3, 4, 5, 6, 7])).sum() / m) if m else math.nan
    )
    return out


def summarize(games: pd.DataFrame, prep: Prepared) -> dict:
    """The ``"thurn_and_taxis"`` block of a whole per-game table (see ``finalize_summary``)."""
    return finalize_summary(partial_summary(games, prep), prep)


# ----------------------------------------------------------------------------- naive scorer


def naive_score_record(record: dict, data: dict | None = None) -> dict:
    """Recompute a finished record's scores with plain Python, independently of the kernel.

    Follows the record's plays to rebuild each closed route, then applies §4C (route tile with
    cascade, region groups once per player, all-regions tile, strict carriage order with the
    Cartwright's +2), the end trigger (§5) and the final score and tie-break (§5). Used by the
    tests as a second implementation; it checks route legality and house rules on the way
    (``AssertionError`` if violated).

    Returns
    -------
    dict
        ``{"scores": [...], "winner": seat, "carriages": [...], "tiles": [[values], ...]}``
    """
    data = data or _record_data(record)
    names = data["names"]
    adj = data["adj"]
    region_of = {c["id"]: c["region"] for c in data["cities"]}
    variant = SPEC.resolve_variant(record.get("variant"))
    n = record["players"]
    stacks = {s["id"]: list(s["values"]) for s in data["stacks"]}
    vp = data["carriage_vp"]
    route = [[] for _ in range(n)]
    houses = [set() for _ in range(n)]
    carriage = [0] * n
    tiles: list[list[int]] = [[] for _ in range(n)]
    taken_groups = [set() for _ in range(n)]
    end_holder = None
    groups = {
        s["id"]: {c for c in range(22) if region_of[c] in s["regions"]}
        for s in data["stacks"]
        if s["kind"] == "region_group"
    }
    need_regions = set(data["regions"]) - (
        {"Baiern"} if variant["all_regions_includes_baiern"] == "false" else set()
    )
    for turn in record["turns"]:
        p = turn["seat"]
        for text in turn["plays"]:
            kind, _, name = text.partition(":")
            if kind == "none":
                continue
            c = names[name]
            r = route[p]
            if kind in ("new", "restart"):
                assert (kind == "new") == (len(r) == 0)
                route[p] = [c]
            else:
                assert c not in r and len(r) >= 1
                end = r[0] if kind == "left" else r[-1]
                assert c in adj[end], (text, r)
                if kind == "left":
                    r.insert(0, c)
                else:
                    r.append(c)
        close = turn["close"]
        if close is None:
            continue
        r = route[p]
        L = len(r)
        assert L >= 3
        placed = [names[h] for h in close["houses"]]
        assert len(set(placed)) == len(placed) and all(
            h in r and h not in houses[p] for h in placed
        )
        # placing is mandatory (§4C.1, §7.5, §7.13): as many as the option can take, fewer
        # only when houses run short; an option placing none only when none places any
        left = 20 - len(houses[p])
        lacking = [c for c in r if c not in houses[p]]
        if close["mode"] == "each":
            regs = [region_of[h] for h in placed]
            assert len(set(regs)) == len(regs)
            assert len(placed) == min(left, len({region_of[c] for c in lacking})), (turn, r)
        else:
            assert close["region"] in {region_of[c] for c in r}, (turn, r)
            assert all(region_of[h] == close["region"] for h in placed)
            cand = [c for c in lacking if region_of[c] == close["region"]]
            assert len(placed) == min(left, len(cand)), (turn, r)
            assert placed or not lacking or left == 0, (turn, r)
        houses[p] |= set(placed)
        assert len(houses[p]) <= 20
        # route tile, cascading down (§4C.2, §7.3)
        want = "route7" if L >= 7 else "route6" if L == 6 else "route5" if L == 5 else None
        order = ["route7", "route6", "route5"]
        if want:
            cands = order[order.index(want) :]
            if variant["route_tile_cascade"] == "false":
                cands = cands[:1]
            for sid in cands:
                if stacks[sid]:
                    tiles[p].append(stacks[sid].pop(0))
                    break
        for sid, cities in groups.items():
            if sid not in taken_groups[p] and cities <= houses[p] and stacks[sid]:
                taken_groups[p].add(sid)
                tiles[p].append(stacks[sid].pop(0))
        regs_with_house = {region_of[h] for h in houses[p]}
        if (
            "all" not in taken_groups[p]
            and need_regions <= regs_with_house
            and stacks["all_regions"]
        ):
            taken_groups[p].add("all")
            tiles[p].append(stacks["all_regions"].pop(0))
        nxt = carriage[p] + 1 if carriage[p] else 3
        bonus = 2 if turn["official"] == "cartwright" else 0
        if nxt <= 7 and L + bonus >= nxt:
            carriage[p] = nxt
        if end_holder is None and (carriage[p] == 7 or len(houses[p]) == 20):
            end_holder = p
            tiles[p].append(stacks["game_end"].pop(0))
        route[p] = []
    scores = [
        (vp[carriage[p]] if carriage[p] else 0) + sum(tiles[p]) - (20 - len(houses[p]))
        for p in range(n)
    ]
    best = max(scores)
    winner = None
    if end_holder is not None:
        for d in range(n):
            q = (end_holder + d) % n
            if scores[q] == best:
                winner = q
                break
    return {"scores": scores, "winner": winner, "carriages": carriage, "tiles": tiles}


def format_summary(block: dict, summary: dict | None = None) -> str:
    """Readable text of the ``thurn_and_taxis`` summary block (printed by ``mcsim simulate``)."""

    def pct(d):
        return f"{100 * d['estimate']:.1f}% [{100 * d['low']:.1f}, {100 * d['high']:.1f}]"

    end = block["end"]
    lines = [
        f"end: 7-carriage {pct(end['carriage7'])}, last house {pct(end['houses'])}, "
        f"turn cap {pct(end['turn_cap'])}; rounds {end['rounds']['mean']:.2f} "
        f"[{end['rounds']['low']:.2f}, {end['rounds']['high']:.2f}] "
        f"(5/50/95%: {end['rounds_quantiles']['5']:.0f}/{end['rounds_quantiles']['50']:.0f}/"
        f"{end['rounds_quantiles']['95']:.0f})"
    ]
    lines.append("officials (uses per player; win rate by uses):")
    for name in OFFICIALS:
        o = block["officials"][name]
        bins = "  ".join(
            f"{k}: {100 * v['win_rate']['estimate']:.1f}% (n={v['players']})"
            for k, v in o["win_rate_by_uses"].items()
        )
        extra = f", forced {o['forced_per_player']:.2f}" if "forced_per_player" in o else ""
        lines.append(f"  {name:<15} {o['per_player']:6.2f}{extra}   {bins}")
    cr = block["closed_routes"]
    shares = " ".join(f"{k}:{100 * v:.1f}%" for k, v in cr["share_by_length"].items() if v == v)
    lines.append(
        f"closed routes: {cr['per_game']:.2f} per game, mean length "
        f"{cr['mean_length']:.2f}; by length {shares}"
    )
    lines.append(
        "bonus tiles taken per game (stack ran out): "
        + ", ".join(
            f"{k} {v['mean_taken']:.2f} ({100 * v['ran_out']['estimate']:.0f}%)"
            for k, v in block["bonus_tiles"].items()
        )
    )
    c = block["carriages"]
    lines.append(
        "highest carriage per player: "
        + " ".join(f"{k}:{100 * v:.1f}%" for k, v in c.items() if k != "mean_highest")
        + f"  (mean {c['mean_highest']:.2f})"
    )
    return "\n".join(lines)


# ----------------------------------------------------------------------------- perft


def perft(depth: int, variant: dict | None = None, players: int = SPEC.default_players) -> int:
    """Number of decision sequences of length ``depth`` from the start of a fixed deal.

    The deal is the unshuffled deck (each city 3 times in §1.1 order; display = 3 Carlsruhe,
    3 Freiburg), so the chance events are fixed and the count checks the move generator
    (a reshuffle, which cannot happen in the first turns, would use a fixed-seed generator).

    >>> [perft(d) for d in range(4)]
    [1, 3, 11, 19]

    Raises
    ------
    ConfigError
        A negative depth.
    """
    if depth < 0:
        raise ConfigError(f"--depth must be 0 or more, not {depth}")
    g = Game(players, [c for c in range(K.N_CITIES) for _ in range(3)], variant)
    buf = np.empty(K.MAX_ACTIONS, dtype=np.int64)

    def count(st: np.ndarray, d: int) -> int:
        if d == 0:
            return 1
        n = K.legal_moves(st, g.tab, buf)
        if d == 1:
            return int(n)
        total = 0
        for a in [int(x) for x in buf[:n]]:
            child = st.copy()
            K.apply_move(child, g.tab, g.var, np.int64(a), g.rng.copy(), g.script, g.slog)
            total += count(child, d - 1)
        return total

    return count(g.st, depth)


# ---------------------------------------------------------------- the rest of the game protocol
CHUNK_MULTIPLE = 1
EVALUATE_BANDS: tuple = ()
EVALUATE_GROUPS: dict = {}
ORACLE_POLICY: str | None = None


def charts() -> list:
    """The game's report figures ``[(slug, builder)]`` (``mcsim.games.thurn_and_taxis.charts``)."""
    from mcsim.games.thurn_and_taxis.charts import CHARTS

    return list(CHARTS)


ensemble_options = no_ensemble(SPEC)
