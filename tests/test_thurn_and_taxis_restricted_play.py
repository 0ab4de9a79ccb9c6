"""Thurn and Taxis restricted play (docs/rules/thurn_und_taxis.md §11): a seat forbidden some
options (``-p "route:forbid=cartwright"``) never takes one while another legal choice exists,
and the kernel counts the decisions where it had to leave one (``forbid_avoided_<seat>``) or
the rules left it nothing else (``forbid_forced_<seat>``).

The check is a second implementation: ``RestrictedReplay`` reads a record's turns (draws,
plays, officials, closes with their houses) and rebuilds from the rules text alone (§4, §5,
§6) which decisions the seat faced and which of their options the mask forbids; a bonus-tile
family by brute force over every way to finish a close (every house mode, every choice of
houses and of regions left out, §4C.1, §7.5). It never calls the kernel or its legal-move
list. Its counts must equal the kernel's columns game by game, for every option kind and every
policy (``random``, ``route``, ``mcts`` at a tiny budget).
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

import mcsim
from kernels import search
from kernels import thurn_and_taxis as K
from kernels.rng import new_state
from mcsim.errors import UnknownPolicyError
from mcsim.games import thurn_and_taxis as T
from mcsim.runner import resolve_config

GAME = "thurn-and-taxis"
DATA = T.default_data()
REGIONS = DATA["regions"]  # kernel order: option (i) serves a route's regions in this order
REGION_OF = {c["name"]: c["region"] for c in DATA["cities"]}
GROUPS = {
    s["id"]: {c for c, r in REGION_OF.items() if r in s["regions"]}
    for s in DATA["stacks"]
    if s["kind"] == "region_group"
}
NON_BAIERN = set(REGIONS) - {"Baiern"}  # the all-regions tile, default reading (§7.1)
HOUSES = 20
OFFICIAL = {  # option name -> the record's name of the official (§6)
    "postmaster": "postmaster",
    "administrator": "administrator",
    "postal-carrier": "postal_carrier",
    "cartwright": "cartwright",
}
FAMILIES = ("route-tile", "region-tile", "all-regions-tile", "game-end-tile")
ALL_OPTIONS = tuple(r.name for r in T.SPEC.restrictions)


class RestrictedReplay:
    """Replay a record by the rules text and classify the decisions of ``seat`` under the
    forbidden option names ``forbidden`` (§11). After ``run()``: ``avoided``, ``forced``
    (counts as the kernel defines them), ``violations`` (decisions where the seat took a
    forbidden option while a permitted one was legal) and ``uses`` (how often the seat took
    each option: an official, a close of L cards ``close_<L>``, a tile of each family)."""

    def __init__(self, rec: dict, seat: int, forbidden: set[str]):
        self.rec = rec
        self.seat = seat
        self.forbidden = set(forbidden)
        self.min_len = max(
            [int(f.rsplit("-", 1)[1]) for f in forbidden if f.startswith("route-under-")] or [0]
        )
        self.families = {f for f in forbidden if f in FAMILIES}
        n = rec["players"]
        self.hand = [0] * n
        self.route: list[list[str]] = [[] for _ in range(n)]
        self.houses: list[set[str]] = [set() for _ in range(n)]
        self.carriage = [0] * n
        self.stacks = {s["id"]: list(s["values"]) for s in DATA["stacks"]}
        self.groups_taken: list[set[str]] = [set() for _ in range(n)]
        self.all_taken = [False] * n
        self.end_holder: int | None = None
        self.avoided = 0
        self.forced = 0
        self.violations: list[tuple] = []
        self.uses: Counter = Counter()
        self.avoided_turns: set[int] = set()  # turns with an avoided decision of the seat

    # --- a decision of the seat: its legal options, the one taken, which are forbidden
    def decide(self, t: int, options: list, chosen, is_forbidden) -> None:
        assert chosen in options, (t, chosen, options)
        bad = [o for o in options if is_forbidden(o)]
        if bad and len(bad) < len(options):
            self.avoided += 1
            self.avoided_turns.add(t)
            if chosen in bad:
                self.violations.append((t, chosen, options))
        elif bad:
            self.forced += 1

    # --- the scoring of a close (§4C.2-3, §5), on the record's houses
    def next_carriage(self, p: int, L: int, cart: bool) -> int:
        nxt = self.carriage[p] + 1 if self.carriage[p] else 3
        return nxt if nxt <= 7 and L + (2 if cart else 0) >= nxt else self.carriage[p]

    def route_stack(self, L: int) -> str | None:
        """The route stack a close of L cards takes from, cascading down (§4C.2, §7.3)."""
        want = "route7" if L >= 7 else "route6" if L == 6 else "route5" if L == 5 else None
        if want is None:
            return None
        order = ["route7", "route6", "route5"]
        return next((s for s in order[order.index(want) :] if self.stacks[s]), None)

    def earned(self, p: int, houses: set[str], left: int, L: int, cart: bool) -> set[str]:
        """The tile families a close of seat p earns when it ends with ``houses``, ``left``."""
        out = set()
        if self.route_stack(L):
            out.add("route-tile")
        if any(
            sid not in self.groups_taken[p] and self.stacks[sid] and cities <= houses
            for sid, cities in GROUPS.items()
        ):
            out.add("region-tile")
        held = {REGION_OF[h] for h in houses}
        if not self.all_taken[p] and self.stacks["all_regions"] and held >= NON_BAIERN:
            out.add("all-regions-tile")
        if self.end_holder is None and (self.next_carriage(p, L, cart) == 7 or left == 0):
            out.add("game-end-tile")
        return out

    def score_close(self, p: int, L: int, cart: bool) -> None:
        s = self.route_stack(L)
        if s:
            self.stacks[s].pop(0)
            if p == self.seat:
                self.uses["route-tile"] += 1
        for sid, cities in GROUPS.items():
            if sid not in self.groups_taken[p] and cities <= self.houses[p] and self.stacks[sid]:
                self.groups_taken[p].add(sid)
                self.stacks[sid].pop(0)
                if p == self.seat:
                    self.uses["region-tile"] += 1
        held = {REGION_OF[h] for h in self.houses[p]}
        if not self.all_taken[p] and self.stacks["all_regions"] and held >= NON_BAIERN:
            self.all_taken[p] = True
            self.stacks["all_regions"].pop(0)
            if p == self.seat:
                self.uses["all-regions-tile"] += 1
        self.carriage[p] = self.next_carriage(p, L, cart)
        if self.end_holder is None and (self.carriage[p] == 7 or len(self.houses[p]) == HOUSES):
            self.end_holder = p
            self.stacks["game_end"].pop(0)
            if p == self.seat:
                self.uses["game-end-tile"] += 1
        self.route[p] = []

    # --- every way to finish a close (§4C.1, §7.5, §7.13), as final (houses, houses left)
    def lacking(self, p: int, region: str, houses: set[str]) -> list[str]:
        return sorted(c for c in self.route[p] if REGION_OF[c] == region and c not in houses)

    def finish_each(self, p: int, houses: set[str], left: int, pending: list[str]):
        """Option (i) from here: one house in each of k = min(left, R) of the R pending regions
        with a route city lacking his house (any k, §7.5), any such city of each."""
        open_ = [r for r in pending if self.lacking(p, r, houses)]
        k = min(left, len(open_))
        for served in itertools.combinations(open_, k):
            for picks in itertools.product(*(self.lacking(p, r, houses) for r in served)):
                yield houses | set(picks), left - k

    def finish_region(self, p: int, houses: set[str], left: int, region: str):
        """Option (ii) in ``region`` from here: a house in each of its route cities lacking one,
        or in any ``left`` of them when fewer houses are left."""
        cand = self.lacking(p, region, houses)
        k = min(left, len(cand))
        for picks in itertools.combinations(cand, k):
            yield houses | set(picks), left - k

    def route_regions(self, p: int) -> list[str]:
        """The regions of seat p's route, in the order option (i) serves them."""
        return [r for r in REGIONS if any(REGION_OF[c] == r for c in self.route[p])]

    def modes(self, p: int) -> list:
        """The house options of a close (§4C.1, §7.13): (i), and (ii) for each route region
        that places a house, or every route region when none can."""
        regs = self.route_regions(p)
        any_open = any(self.lacking(p, r, self.houses[p]) for r in regs)
        return ["each"] + [r for r in regs if not any_open or self.lacking(p, r, self.houses[p])]

    def all_earn(self, p: int, finishes, L: int, cart: bool) -> bool:
        """True when every finish earns a tile of a forbidden family."""
        return all(self.families & self.earned(p, h, left, L, cart) for h, left in finishes)

    def close_finishes(self, p: int):
        left = HOUSES - len(self.houses[p])
        if left == 0:
            yield self.houses[p], 0
            return
        for m in self.modes(p):
            if m == "each":
                yield from self.finish_each(p, self.houses[p], left, self.route_regions(p))
            else:
                yield from self.finish_region(p, self.houses[p], left, m)

    # --- one turn
    def run(self) -> RestrictedReplay:
        for t, turn in enumerate(self.rec["turns"]):
            self.turn(t, turn)
        return self

    def turn(self, t: int, turn: dict) -> None:
        p = turn["seat"]
        me = p == self.seat
        fb = self.forbidden
        off = turn["official"]
        used = None
        if self.hand[p] == 0:  # forced Postmaster (§4A): no choice of official
            assert off == "postmaster"
            used = "postmaster"
            if me and "postmaster" in fb:
                self.forced += 1
        elif me:
            self.decide(
                t,
                ["no", "yes"],
                "yes" if off == "administrator" else "no",
                lambda o: o == "yes" and "administrator" in fb,
            )
        if off == "administrator":
            used = "administrator"
        draws, plays = turn["draws"], turn["plays"]
        self.hand[p] += draws[0] != "none"
        if used is None:  # the Postmaster's offer after the first draw (§6)
            if me:
                self.decide(
                    t,
                    ["no", "yes"],
                    "yes" if off == "postmaster" else "no",
                    lambda o: o == "yes" and "postmaster" in fb,
                )
            if off == "postmaster":
                used = "postmaster"
        for d in draws[1:]:
            self.hand[p] += d != "none"
        self.play(p, plays[0])
        if used is None and plays[0] != "none" and self.hand[p] > 0:  # Postal Carrier (§6)
            if me:
                self.decide(
                    t,
                    ["no", "yes"],
                    "yes" if off == "postal_carrier" else "no",
                    lambda o: o == "yes" and "postal-carrier" in fb,
                )
            if off == "postal_carrier":
                used = "postal_carrier"
        for text in plays[1:]:
            self.play(p, text)
        if me and off is not None:
            self.uses[off] += 1
        L = len(self.route[p])
        close = turn["close"]
        if L >= 3 and me:  # the optional close (§4C)
            options = ["no", "close"] + (["cart"] if used is None else [])
            chosen = "no" if close is None else "cart" if off == "cartwright" else "close"
            self.decide(t, options, chosen, lambda o: self.close_forbidden(p, o, L))
        if close is not None:
            if me:
                self.uses[f"close_{L}"] += 1
            self.houses_of_close(t, p, close, L, off == "cartwright")
            self.score_close(p, L, off == "cartwright")
        self.hand[p] -= len(turn["trim"])

    def play(self, p: int, text: str) -> None:
        kind, _, c = text.partition(":")
        if kind == "none":
            return
        self.hand[p] -= 1
        if kind in ("new", "restart"):
            self.route[p] = [c]
        elif kind == "left":
            self.route[p].insert(0, c)
        else:
            self.route[p].append(c)

    def close_forbidden(self, p: int, o: str, L: int) -> bool:
        if o == "no":
            return False
        if o == "cart" and "cartwright" in self.forbidden:
            return True
        if self.min_len > L:
            return True
        return bool(self.families) and self.all_earn(p, self.close_finishes(p), L, o == "cart")

    def houses_of_close(self, t: int, p: int, close: dict, L: int, cart: bool) -> None:
        """The house decisions of a close (mode, then houses one by one), classified for the
        seat, and the record's houses placed."""
        me = p == self.seat
        left = HOUSES - len(self.houses[p])
        placed = list(close["houses"])
        if left == 0:
            assert not placed
            return
        mode = "each" if close["mode"] == "each" else close["region"]
        modes = self.modes(p)
        pending = self.route_regions(p)
        h0 = set(self.houses[p])
        if me:

            def bad_mode(m):
                if m == "each":
                    fin = self.finish_each(p, h0, left, pending)
                else:
                    fin = self.finish_region(p, h0, left, m)
                return bool(self.families) and self.all_earn(p, fin, L, cart)

            self.decide(t, modes, mode, bad_mode)
        if mode == "each":
            k = 0
            for i, r in enumerate(pending):
                cand = self.lacking(p, r, self.houses[p])
                if not cand:
                    continue
                if left == 0:
                    break
                rest = pending[i + 1 :]
                serve = sum(1 for q in pending[i:] if self.lacking(p, q, self.houses[p]))
                options = cand + (["skip"] if left < serve else [])
                chosen = placed[k] if k < len(placed) and REGION_OF[placed[k]] == r else "skip"
                if me:
                    h, lf = set(self.houses[p]), left

                    def bad_pick(o, h=h, lf=lf, rest=rest):
                        if o == "skip":
                            fin = self.finish_each(p, h, lf, rest)
                        else:
                            fin = self.finish_each(p, h | {o}, lf - 1, rest)
                        return bool(self.families) and self.all_earn(p, fin, L, cart)

                    self.decide(t, options, chosen, bad_pick)
                if chosen != "skip":
                    self.houses[p].add(chosen)
                    left -= 1
                    k += 1
            assert k == len(placed), (t, placed)
            return
        cand = self.lacking(p, mode, self.houses[p])
        if len(cand) <= left:  # placed at once: no decision
            assert sorted(placed) == cand
            self.houses[p] |= set(cand)
            return
        for c in placed:  # houses short: one house at a time, `left` of them
            cand = self.lacking(p, mode, self.houses[p])
            if me:
                h, lf = set(self.houses[p]), left

                def bad_house(o, h=h, lf=lf):
                    fin = self.finish_region(p, h | {o}, lf - 1, mode)
                    return bool(self.families) and self.all_earn(p, fin, L, cart)

                self.decide(t, cand, c, bad_house)
            self.houses[p].add(c)
            left -= 1
        assert left == 0


def run_restricted(policy: str, forbid: str, games: int, seed: int, seat: int = 0):
    """A recorded 3-player run with ``policy:forbid=...`` in ``seat``, the others plain."""
    sep = "," if ":" in policy else ":"
    pols = [policy] * 3
    pols[seat] = f"{policy}{sep}forbid={forbid}"
    plain = "route" if policy.startswith("mcts") else policy
    pols = [p if k == seat else plain for k, p in enumerate(pols)]
    return mcsim.simulate(GAME, games=games, seed=seed, policies=pols, players=3, record=games)


def check_run(r, forbid: str, seat: int = 0) -> tuple[int, int, Counter]:
    """Every record checked by ``RestrictedReplay`` against the kernel's columns; returns the
    totals (avoided, forced) and the seat's uses."""
    names = set(forbid.split("+"))
    tot_a = tot_f = 0
    uses: Counter = Counter()
    assert len(r.records) == len(r.games)
    for rec, (_, row) in zip(r.records, r.games.iterrows()):
        assert rec["game_index"] == row["game_index"]
        T.replay(rec)  # the record of a restricted run replays
        chk = RestrictedReplay(rec, seat, names).run()
        assert chk.violations == []
        assert chk.avoided == row[f"forbid_avoided_{seat}"], rec["game_index"]
        assert chk.forced == row[f"forbid_forced_{seat}"], rec["game_index"]
        for k in range(3):
            if k != seat:
                assert row[f"forbid_avoided_{k}"] == 0 and row[f"forbid_forced_{k}"] == 0
        tot_a += chk.avoided
        tot_f += chk.forced
        uses += chk.uses
    return tot_a, tot_f, uses


# (policy, forbid, games, seed) -> (avoided, forced): exact for the fixed seeds
CASES = {
    ("random", "postmaster", 12, 1): (690, 363),
    ("random", "administrator", 12, 2): (1374, 0),
    ("random", "postal-carrier", 12, 3): (329, 0),
    ("random", "cartwright", 12, 4): (48, 0),
    ("random", "route-under-5", 12, 5): (322, 0),
    ("random", "route-under-7", 12, 6): (548, 0),
    ("random", "route-tile", 12, 7): (58, 0),
    ("random", "region-tile", 12, 8): (246, 0),
    ("random", "all-regions-tile", 12, 9): (27, 0),
    ("random", "game-end-tile", 12, 10): (31, 0),
    ("random", "region-tile+all-regions-tile+game-end-tile+cartwright", 12, 11): (190, 0),
    ("route", "postmaster", 8, 1): (102, 21),
    ("route", "administrator", 8, 2): (136, 0),
    ("route", "postal-carrier", 8, 3): (31, 0),
    ("route:pm_hand_max=1", "cartwright", 8, 4): (45, 0),
    ("route", "route-under-4", 8, 5): (32, 0),
    ("route", "route-under-6", 8, 6): (72, 0),
    ("route", "route-tile", 8, 7): (10, 0),
    ("route", "region-tile", 8, 8): (24, 0),
    ("route", "all-regions-tile", 30, 19): (1, 0),
    ("route", "game-end-tile", 8, 10): (7, 0),
    ("route", "region-tile+all-regions-tile+route-under-5", 8, 11): (67, 0),
    ("mcts:iterations=4", "cartwright+region-tile+route-under-4", 2, 1): (6, 0),
    ("mcts:iterations=4", "postmaster+postal-carrier+all-regions-tile+game-end-tile", 2, 2): (
        40,
        2,
    ),
    ("mcts:iterations=4", "administrator+route-tile", 2, 3): (34, 0),
}


@pytest.mark.parametrize("policy, forbid, games, seed", list(CASES))
def test_s11_restricted_seat_never_takes_a_forbidden_option(policy, forbid, games, seed):
    """docs/rules/thurn_und_taxis.md §11: in recorded games the restricted seat never takes a
    forbidden option while a permitted one is legal, and the second implementation's counts of
    avoided and forced decisions equal the kernel's columns game by game."""
    r = run_restricted(policy, forbid, games, seed)
    a, f, uses = check_run(r, forbid)
    assert (a, f) == CASES[(policy, forbid, games, seed)]
    # the seat took a forbidden option only when the rules forced it: only the Postmaster,
    # forced by an empty hand (§4A); never a route shorter than allowed, never a tile
    forced_pm = int(r.games["forced_postmaster_0"].sum())
    for name in forbid.split("+"):
        if name in OFFICIAL:
            took = uses[OFFICIAL[name]]
        elif name.startswith("route-under-"):
            k = int(name.rsplit("-", 1)[1])
            took = sum(v for u, v in uses.items() if u.startswith("close_") and int(u[6:]) < k)
        else:
            took = uses[name]
        assert took == (forced_pm if name == "postmaster" else 0), name


def test_s11_the_check_finds_forbidden_options_taken():
    """The second implementation is not vacuous: classifying an unrestricted run's records as
    if seat 0 were forbidden options finds the decisions where it took them (§11)."""
    r = mcsim.simulate(GAME, games=12, seed=8, policies=["random"], players=3, record=12)
    found = {}
    for forbid in ("cartwright", "route-under-5", "region-tile", "all-regions-tile"):
        found[forbid] = sum(
            len(RestrictedReplay(rec, 0, {forbid}).run().violations) for rec in r.records
        )
    assert found == {
        "cartwright": 16,
        "route-under-5": 171,
        "region-tile": 34,
        "all-regions-tile": 3,
    }


def test_s11_restriction_changes_play_and_nothing_else():
    """§11: forbidding an official drops the seat's uses of it to the forced ones (the
    Postmaster: exactly its forced turns, counted as forced); the deals are the unrestricted
    run's, and every seat plays as there until a turn where the restricted seat left a
    forbidden option (the opponents' decisions are the same functions of (seed, game))."""
    plain = mcsim.simulate(GAME, games=12, seed=4, policies=["random"], players=3, record=12)
    res = {}
    for name, col in (("cartwright", "used_cartwright_0"), ("postmaster", "used_postmaster_0")):
        r = run_restricted("random", name, 12, 4)
        g = r.games
        res[name] = (int(plain.games[col].sum()), int(g[col].sum()))
        if name == "postmaster":
            assert (g[col] == g["forced_postmaster_0"]).all()
            assert (g[col] == g["forbid_forced_0"]).all()
        for a, b in zip(plain.records, r.records):
            assert a["deal"] == b["deal"]
            avoided = RestrictedReplay(b, 0, {name}).run().avoided_turns
            diff = next((t for t, (x, y) in enumerate(zip(a["turns"], b["turns"])) if x != y), None)
            if diff is None:  # every restricted draw fell on the unrestricted choice
                assert a["turns"] == b["turns"]
                continue
            # the first turn that differs is one where seat 0 left a forbidden option (the
            # restricted draw can fall on the unrestricted choice: then play goes on the same)
            assert diff in avoided and b["turns"][diff]["seat"] == 0
    assert res == {"cartwright": (15, 0), "postmaster": (488, 373)}


@pytest.mark.parametrize("policy", ["random", "route", "mcts:iterations=4"])
def test_s11_a_restriction_that_never_binds_changes_nothing(policy):
    """§11: route-under-3 is the rules' own minimum (§4C), so a seat forbidden it plays the
    restricted path (its decisions listed and filtered) without ever finding a forbidden
    option: the games are the unrestricted ones, column for column, and its columns are 0.
    ``forbid_mask=0`` (no restriction at all) is the unrestricted run too."""
    sep = "," if ":" in policy else ":"
    others = ["route"] * 2 if policy.startswith("mcts") else [policy] * 2
    n = 2 if policy.startswith("mcts") else 20
    plain = mcsim.simulate(GAME, games=n, seed=6, policies=[policy] + others, players=3)
    assert not any(c.startswith("forbid_") for c in plain.games.columns)
    r = mcsim.simulate(
        GAME, games=n, seed=6, policies=[f"{policy}{sep}forbid=route-under-3"] + others, players=3
    )
    cols = [c for c in r.games.columns if c.startswith("forbid_")]
    assert len(cols) == 6 and (r.games[cols] == 0).all().all()
    assert r.games.drop(columns=cols).equals(plain.games)
    zero = mcsim.simulate(
        GAME, games=n, seed=6, policies=[f"{policy}{sep}forbid_mask=0"] + others, players=3
    )
    assert zero.games.equals(plain.games)


def test_s11_restricted_run_is_the_same_for_1_and_2_workers():
    """A restricted run's table (its forbid columns included) does not depend on workers or
    chunks: game i depends only on (seed, i)."""
    pol = ["random:forbid=region-tile+cartwright", "route:forbid=postmaster", "random"]
    a = mcsim.simulate(GAME, games=30, seed=12, policies=pol, workers=1)
    b = mcsim.simulate(GAME, games=30, seed=12, policies=pol, workers=2, chunk_size=7)
    assert a.games.equals(b.games)
    assert int(a.games["forbid_avoided_0"].sum()) == 41
    assert (a.games["forbid_forced_1"] == a.games["forced_postmaster_1"]).all()


@pytest.mark.parametrize(
    "policy, message",
    [
        ("route:forbid=wagner", "forbid='wagner': thurn-and-taxis has no such option; choose"),
        ("route:forbid=", "forbid='' must be option names joined by +"),
        ("route:forbid=cartwright+", "must be option names joined by +"),
        ("random:forbid=cartwright+cartwright", "'cartwright' given twice"),
        ("random:forbid=" + "+".join(ALL_OPTIONS), "forbids every option restricted play knows"),
    ],
)
def test_s11_bad_restrictions_are_one_line_errors_before_play(policy, message):
    """§11: an unknown option, an empty or repeated name, or every option at once is refused
    with one line by the configuration check, before any game is played."""
    with pytest.raises(UnknownPolicyError) as e:
        resolve_config(GAME, 3, [policy])
    assert message in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(UnknownPolicyError):
        mcsim.simulate(GAME, games=1, seed=0, policies=[policy])


def test_s11_options_and_groups():
    """§11: the options, their groups and bits; no group covers a whole decision (a seat may
    always decline an official, keep its route open or close a longer one), so forbidding a
    whole group is accepted."""
    spec = T.SPEC
    assert [(r.name, r.group, r.bit) for r in spec.restrictions] == [
        ("postmaster", "official", 0),
        ("administrator", "official", 1),
        ("postal-carrier", "official", 2),
        ("cartwright", "official", 3),
        ("route-under-3", "route length", 4),
        ("route-under-4", "route length", 5),
        ("route-under-5", "route length", 6),
        ("route-under-6", "route length", 7),
        ("route-under-7", "route length", 8),
        ("route-tile", "bonus", 9),
        ("region-tile", "bonus", 10),
        ("all-regions-tile", "bonus", 11),
        ("game-end-tile", "bonus", 12),
    ]
    assert spec.exhaustive_groups == ()
    assert all(r.source.startswith("docs/rules/thurn_und_taxis.md §11") for r in spec.restrictions)
    for pol in spec.policies:
        assert pol.params[-1].name == "forbid_mask"
    officials = "route:forbid=postmaster+administrator+postal-carrier+cartwright"
    cfg = resolve_config(GAME, 3, [officials, "route", "route"])[1]
    assert cfg.policies[0].params["forbid_mask"] == 15.0
    prep = T.prepare(cfg)
    assert T.kernel_policy_ids(prep).tolist() == [K.POL_ROUTE_RESTRICTED, K.POL_ROUTE, K.POL_ROUTE]
    assert prep.policy_params[:, K.P_FORBID].tolist() == [15.0, 0.0, 0.0]


def test_s11_route_parameters_adapted_to_the_mask():
    """§11: a restricted ``route`` seat does not plan for what it may not do: the Cartwright
    forbidden, it does not save its official for it (``cartwright=0``); route-under-k
    forbidden, it closes at k cards or more (``close_len`` at least the largest k)."""
    vec = T.SPEC.policy("route").vector()[: T.N_ROUTE_PARAMS]
    bit = {r.name: 1 << r.bit for r in T.SPEC.restrictions}
    mask = bit["cartwright"] | bit["route-under-4"] | bit["route-under-6"]
    out = T.restricted_route_params(vec, mask)
    want = vec.copy()
    want[K.P_CART] = 0.0
    want[K.P_CLOSE_LEN] = 6.0
    assert out.tolist() == want.tolist()
    assert T.restricted_route_params(vec, bit["postmaster"]).tolist() == vec.tolist()
    pols = ["mcts:forbid=cartwright", "route:close_len=7,forbid=route-under-5", "route"]
    pp = T.prepare(resolve_config(GAME, 3, pols)[1]).policy_params
    assert pp[0, K.P_MCTS_BASE + K.P_CART] == 1.0 and pp[0, K.P_MCTS_OWN + K.P_CART] == 0.0
    assert pp[1, K.P_CLOSE_LEN] == 7.0 and pp[1, K.P_FORBID] == bit["route-under-5"]


@pytest.mark.parametrize("rollout", [K.POL_RANDOM, K.POL_ROUTE])
def test_s11_search_rollouts_honour_the_searching_seats_mask(rollout):
    """§11: inside a search by seat s under a mask, the rollouts filter s's moves (the
    Cartwright and the Administrator never used by s, its decisions counted in the rollout's
    copy of the state) and leave the other seats' alone (they use both)."""
    mask = (1 << K.FB_CARTWRIGHT) | (1 << K.FB_ADMINISTRATOR)
    prep = T.prepare(resolve_config(GAME, 3, ["mcts"])[1])
    used = np.zeros((3, 5), np.int64)
    avoided = 0
    for g in range(6):
        st, ctx = T.search_start(prep, 3, g)
        s = int(st[K.S_CUR])
        ctx = ctx._replace(
            rollout_policy=np.int64(rollout),
            own_seat=np.int64(s),
            own_mask=np.int64(mask),
            own_params=T.restricted_route_params(ctx.rollout_params, mask),
        )
        rng = new_state(np.uint64(9), np.uint64(g), np.uint64(0))
        search.steps_for(type(ctx))["rollout"](st, ctx, rng, np.zeros(3))
        assert st[K.S_OVER] == 1
        for q in range(3):
            used[q] += st[K.S_N_OFFICIAL + q * 5 : K.S_N_OFFICIAL + q * 5 + 5]
            if q != s:
                assert st[K.S_FORBID_AVOIDED + q] == 0
        avoided += int(st[K.S_FORBID_AVOIDED + s])
    # seat 0 starts, so it is the searching seat
    assert used[0, K.OFF_CARTWRIGHT] == 0 and used[0, K.OFF_ADMINISTRATOR] == 0
    assert used[1:, K.OFF_CARTWRIGHT].min() > 0 and used[1:, K.OFF_ADMINISTRATOR].sum() > 0
    assert avoided == {K.POL_RANDOM: 765, K.POL_ROUTE: 102}[rollout]


def test_s11_search_tree_honours_the_mask_at_the_root():
    """§11: ``mcts`` under a mask never returns a forbidden root move: at closes where the
    Cartwright is offered, the search forbidden it closes without it or keeps the route, and
    the search forbidden routes under 7 cards keeps a shorter route open."""
    prep = T.prepare(resolve_config(GAME, 3, ["route"])[1])
    mprep = T.prepare(resolve_config(GAME, 3, ["mcts:iterations=40"])[1])
    base = mprep.policy_params[0].copy()
    seen = Counter()
    for g in range(3):
        _, actions, deck, reshuffles = T.play_logged_game(prep, 5, g)
        game = T.Game(3, deck, reshuffles=reshuffles)
        for a in actions:
            if game.phase == K.PH_CLOSE and K.A_CLOSE_CART in game.legal():
                short = len(game.route(game.current)) < 7
                for mask, banned in (
                    (1 << K.FB_CARTWRIGHT, {K.A_CLOSE_CART}),
                    (1 << (K.FB_ROUTE_UNDER + 4), {K.A_CLOSE, K.A_CLOSE_CART} if short else set()),
                ):
                    params = base.copy()
                    params[K.P_FORBID] = mask
                    own = T.restricted_route_params(base[K.P_MCTS_BASE : K.P_MCTS_OWN], mask)
                    params[K.P_MCTS_OWN : K.P_MCTS_OWN + K.N_PARAMS] = own
                    masks = np.array([mask, 0, 0], np.int64)  # a restricted run's scratch
                    scr = K.search_scratch(prep.tables["tab"], prep.tables["var"], 41, masks)
                    rng = new_state(np.uint64(1), np.uint64(sum(seen.values())), np.uint64(2))
                    got = int(K.choose_mcts(game.st, params, rng, scr))
                    assert got in game.legal() and got not in banned
                    seen[got] += 1
            game.apply(a)
    assert dict(seen) == {K.A_NO: 60, K.A_CLOSE: 8}
