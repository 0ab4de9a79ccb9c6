"""Thurn and Taxis' records and replay: ``Game`` (the Python engine that replays records turn by turn
and checks closes against §4C.1), move notation, ``record_games``, ``replay``, ``perft``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kernels import thurn_and_taxis as K
from mcsim.errors import ConfigError, DataFileError, IllegalMoveError, InvalidRecordError
from mcsim.games.base import Prepared, ReplayResult, replay_result
from mcsim.games.thurn_and_taxis import (
    DEFAULT_MAX_TURNS,
    END_REASONS,
    MAX_TURNS_LIMIT,
    OFFICIALS,
    SPEC,
    build_tables,
    default_data,
    entry_kernel,
    load_bonus_tiles,
    load_carriages,
    load_data,
    variant_vector,
)
from mcsim.values import label


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
        self.turn_index: int | None = None  # the record's turn being replayed (errors)
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
        from kernels.rng import game_seed, seed_state

        # kernels.rng.new_state(0, 0, 0), from the functions play compiled (no compile here)
        self.rng = np.zeros(4, dtype=np.uint64)
        seed_state(self.rng, np.uint64(game_seed(0, 0, 0)))
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
        return [
            int(x)
            for x in self.st[
                K.S_ROUTE + p * K.ROUTE_SLOTS + lo : K.S_ROUTE + p * K.ROUTE_SLOTS + hi
            ]
        ]

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
        base = K.S_ROUTE + p * K.ROUTE_SLOTS
        self.st[K.S_RLO + p] = K.ROUTE_MID
        self.st[K.S_RHI + p] = K.ROUTE_MID + len(cities)
        m = 0
        for k, c in enumerate(cities):
            self.st[base + K.ROUTE_MID + k] = c
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
            where = "" if self.turn_index is None else f"turn {self.turn_index}: "
            raise InvalidRecordError(f"{where}unknown city {name!r}") from None


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


RECORD_FORMAT = 1  # "format" of the records written by record_games (optional in replay)


def play_logged_game(prep: Prepared, root_seed: int, game_index: int):
    """Play one game with logging: (final state, actions, deal, reshuffle orders)."""
    n = prep.config.players
    cap = prep.tables["var"][K.V_MAX_TURNS] * 60 + 100
    scr = K.new_scratch(int(cap), 200_000)
    st, deck, alog, slog = scr[0], scr[1], scr[6], scr[7]
    # the run's entry kernel, one game: records compile nothing of their own
    entry, ids, params, restrictions = entry_kernel(prep)
    entry(
        np.int64(game_index),
        np.int64(1),
        np.uint64(root_seed),
        np.int64(n),
        ids,
        params,
        prep.tables["var"],
        prep.tables["tab"],
        K.new_outputs(1, n),
        scr,
        restrictions,
    )
    plies = int(st[K.S_ALOG_N])
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
        st, actions, deck, reshuffles = play_logged_game(prep, int(root_seed), int(i))
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
        # restricted play's counts (the policies', not the rules': a replay has no policies)
        same[K.S_FORBID_AVOIDED : K.S_FORBID_AVOIDED + K.MAX_SEATS] = False
        same[K.S_FORBID_FORCED : K.S_FORBID_FORCED + K.MAX_SEATS] = False
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


def record_data(record: dict) -> dict:
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


def _read_record(record: dict) -> tuple:
    """The record's fields checked in order: ``(players, variant, data, deck, reshuffles,
    turns, max_turns)``; ``InvalidRecordError`` for the first that is malformed."""
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
    data = record_data(record)
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
    return players, variant, data, deck, reshuffles, turns, max_turns


@dataclass
class _TurnScript:
    """One recorded turn's entries still to play, and what the turn has done so far."""

    official: str | None
    draws: list
    plays: list
    close: dict | None
    trim: list
    houses: list
    used: str | None  # the official the turn has used
    closed: bool = False  # the route was closed


def _read_turn(g: Game, t_index: int, turn) -> _TurnScript:
    """Check turn ``t_index``'s seat, official and close fields and take its entries."""
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
    return _TurnScript(
        official=official,
        draws=draws,
        plays=plays,
        close=close,
        trim=list(turn.get("trim", [])),
        houses=list(close.get("houses", [])) if isinstance(close, dict) else [],
        used="postmaster" if g.get(K.S_FORCED) else None,
    )


def _house_mode_action(g: Game, t_index: int, ts: _TurnScript, data: dict) -> int:
    """The close's house mode; a region close that must take every city of the region on the
    route checks the recorded houses against them (and takes them all at once)."""
    mode = ts.close.get("mode")
    if mode == "each":
        return K.A_MODE_EACH
    if mode != "region":
        raise InvalidRecordError(f"turn {t_index}: close mode must be 'each' or 'region'")
    reg = ts.close.get("region")
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
        if sorted(g.city(h) for h in ts.houses) != want:
            raise IllegalMoveError(
                t_index,
                f"houses {ts.houses}",
                [", ".join(data["cities"][c]["name"] for c in want)],
            )
        ts.houses = []
    return a


def _house_pick_action(g: Game, t_index: int, ts: _TurnScript, legal: list) -> int:
    """The next house: the first recorded house legal here (any order), else skip."""
    k = next((k for k, h in enumerate(ts.houses) if K.A_HOUSE + g.city(h) in legal), None)
    if k is not None:
        return K.A_HOUSE + g.city(ts.houses.pop(k))
    if K.A_HOUSE_SKIP not in legal:
        shown = ts.houses[0] if ts.houses else "(no house)"
        raise IllegalMoveError(t_index, f"house:{shown}", [format_move(g, x) for x in legal])
    return K.A_HOUSE_SKIP


def _scripted_action(g: Game, t_index: int, ts: _TurnScript, legal: list, data: dict) -> int:
    """The action the turn's entries give in ``g``'s current phase (its next entry taken)."""
    ph = g.phase
    if ph == K.PH_ADMIN:
        return K.A_YES if ts.official == "administrator" else K.A_NO
    if ph == K.PH_PM:
        return K.A_YES if ts.official == "postmaster" and ts.used is None else K.A_NO
    if ph == K.PH_PC:
        return K.A_YES if ts.official == "postal_carrier" else K.A_NO
    if ph in (K.PH_DRAW1, K.PH_DRAW2):
        if not ts.draws:
            raise IllegalMoveError(t_index, "(no draw)", [format_move(g, x) for x in legal])
        return _parse_draw(g, ts.draws.pop(0))
    if ph in (K.PH_PLAY1, K.PH_PLAY2):
        if not ts.plays:
            raise IllegalMoveError(t_index, "(no play)", [format_move(g, x) for x in legal])
        return _parse_play(g, ts.plays.pop(0))
    if ph == K.PH_CLOSE:
        if ts.close is None:
            return K.A_NO
        a = K.A_CLOSE_CART if ts.official == "cartwright" else K.A_CLOSE
        ts.closed = True
        if ts.close.get("mode") in ("each", "region") and a in legal:
            _check_close(g, t_index, ts.close, data)
        return a
    if ph == K.PH_HOUSE_MODE:
        return _house_mode_action(g, t_index, ts, data)
    if ph == K.PH_HOUSE_PICK:
        return _house_pick_action(g, t_index, ts, legal)
    if ph == K.PH_TRIM:
        if not ts.trim:
            raise IllegalMoveError(t_index, "(no trim)", [format_move(g, x) for x in legal])
        return K.A_TRIM + g.city(ts.trim.pop(0))
    raise InvalidRecordError(f"turn {t_index}: unexpected phase {ph}")


def _note_official(ts: _TurnScript, ph: int, a: int) -> None:
    """Remember the official that action ``a`` in phase ``ph`` uses (if any)."""
    if ph == K.PH_ADMIN and a == K.A_YES:
        ts.used = "administrator"
    elif ph == K.PH_PM and a == K.A_YES:
        ts.used = "postmaster"
    elif ph == K.PH_PC and a == K.A_YES:
        ts.used = "postal_carrier"
    elif ph == K.PH_CLOSE and a == K.A_CLOSE_CART:
        ts.used = "cartwright"


def _finish_turn(t_index: int, ts: _TurnScript) -> None:
    """Refuse a turn with entries left over, a close that did not happen, or an official
    recorded other than the one used."""
    left = ts.draws or ts.plays or ts.houses or ts.trim
    if left:
        raise InvalidRecordError(f"turn {t_index}: entries not used by the turn: {left}")
    if ts.close is not None and not ts.closed:
        raise InvalidRecordError(
            f'turn {t_index}: "close" given, but the route could not be '
            "closed (it needs 3 or more cards, §4C)"
        )
    if ts.used != ts.official:
        raise InvalidRecordError(
            f"turn {t_index}: official {ts.official!r} recorded, but the turn used {ts.used!r}"
        )


def _replay_turn(g: Game, t_index: int, turn, data: dict) -> None:
    """Play turn ``t_index`` of the record in ``g``, each action checked against the legal ones."""
    g.turn_index = t_index  # named by errors about the turn's entries
    ts = _read_turn(g, t_index, turn)
    while not g.over and g.get(K.S_TURN) == t_index:
        ph = g.phase
        legal = g.legal()
        a = _scripted_action(g, t_index, ts, legal, data)
        if a not in legal:
            raise IllegalMoveError(t_index, format_move(g, a), [format_move(g, x) for x in legal])
        _note_official(ts, ph, a)
        g.apply(a)
    _finish_turn(t_index, ts)


def _replay_outcome(record: dict, g: Game, turns: list, players: int) -> dict:
    """The result of the replayed game; a finished one must match the record's ``scores``,
    ``winner`` and ``end_reason``."""
    houses_left = [g.get(K.S_HOUSES_LEFT, p) for p in range(players)]
    final = g.scores()  # carriage + bonus tiles - houses not placed (§5)
    # unfinished: the score as it stands (carriage + bonus tiles); the houses not placed yet are
    # a penalty of the game's end (§5), given apart ("house_penalty", "score_if_ended_now")
    scores = final if g.over else [f + h for f, h in zip(final, houses_left)]
    result = {
        "finished": g.over,
        "turns": len(turns),
        "scores": scores,
        "points": scores,
        "winner": g.winner() if g.over else None,
        "end_reason": END_REASONS.get(g.get(K.S_END_REASON)),
        "carriages": [g.get(K.S_CARRIAGE, p) for p in range(players)],
        "houses_left": houses_left,
        "tile_points": [g.get(K.S_TILE_PTS, p) for p in range(players)],
        # what the carriage is worth (§5: its points, not its length): the score as it stands
        # (carriage + bonus tiles) minus the bonus tiles
        "carriage_points": [
            f + h - g.get(K.S_TILE_PTS, p) for p, (f, h) in enumerate(zip(final, houses_left))
        ],
        "house_penalty": houses_left,
        "score_if_ended_now": final,
    }
    if g.over:
        for key in ("scores", "winner", "end_reason"):
            if key in record and record[key] != result[key]:
                raise InvalidRecordError(
                    f"record says {key} {record[key]!r}, replay gives {result[key]!r}"
                )
    return result


def replay(record: dict) -> ReplayResult:
    """Validate a record turn by turn and return the result.

    Returns
    -------
    dict
        ``{"finished", "turns", "scores", "points" (= scores), "winner", "end_reason",
        "carriages", "houses_left", "tile_points", "carriage_points", "house_penalty",
        "score_if_ended_now"}`` (per seat; ``carriages`` the carriage's length, the others
        points). Finished: ``scores`` are the final scores, the house penalty
        (houses not placed, §5) included. Unfinished: ``scores`` are the scores as they stand
        (carriage + bonus tiles), without the penalty that only the game's end applies;
        ``house_penalty`` is that penalty (points, one per house not placed) and
        ``score_if_ended_now`` the score minus it. ``winner`` is None until finished.

    Raises
    ------
    InvalidRecordError
        Not a thurn-and-taxis record, a malformed field, a reshuffle that is not a permutation of
        the discard pile, or scores that differ from the record's ``scores``.
    IllegalMoveError
        An entry illegal in the position reached; ``ply`` is the turn index.
    """
    players, variant, data, deck, reshuffles, turns, max_turns = _read_record(record)
    g = Game(players, deck, variant, reshuffles=reshuffles, data=data, max_turns=max_turns)
    for t_index, turn in enumerate(turns):
        _replay_turn(g, t_index, turn, data)
    return replay_result(record, _replay_outcome(record, g, turns, players))


def format_replay(result: dict) -> str:
    """Readable text for ``mcsim replay``."""
    lines = [
        f"turns: {result['turns']}; finished: {'yes' if result['finished'] else 'no'}"
        + (f" ({result['end_reason']})" if result["end_reason"] else "")
    ]
    for p, s in enumerate(result["scores"]):
        # the carriage's length with what it is worth, so that the parts add up to the points
        n = result["carriages"][p]
        car = f"carriage {n} ({result['carriage_points'][p]} points)" if n else "carriage -"
        if result["finished"]:
            lines.append(
                f"seat {p}: {s:3d} points  ({car}, "
                f"tiles {result['tile_points'][p]}, houses left {result['houses_left'][p]})"
            )
            continue
        lines.append(
            f"seat {p}: {s:3d} points so far  ({car}, "
            f"tiles {result['tile_points'][p]}); houses left {result['houses_left'][p]}: "
            f"penalty -{result['house_penalty'][p]} at the end, "
            f"{result['score_if_ended_now'][p]} if the game ended now"
        )
    if result["winner"] is not None:
        lines.append(f"winner: seat {result['winner']} (tie-break: game-end tile, then clockwise)")
    return "\n".join(lines)


def perft(
    depth: int,
    variant: dict | None = None,
    options: dict | None = None,
    players: int = SPEC.default_players,
) -> int:
    """Number of decision sequences of length ``depth`` from the start of a fixed deal, with the
    data files and turn cap of ``options`` (as ``check_config`` returns them; default: the
    shipped data).

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
        raise ConfigError(f"{label('depth')} must be 0 or more, not {depth}")
    opts = options or {}
    g = Game(
        players,
        [c for c in range(K.N_CITIES) for _ in range(3)],
        variant,
        data=load_data(opts)
        if any(k in opts for k in ("carriages", "bonus_tiles", "map"))
        else None,
        max_turns=int(opts.get("max_turns", DEFAULT_MAX_TURNS)),
    )
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
