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

    # --- a decision of the seat: its legal options, the one taken, which are forbidden
    def decide(self, t: int, options: list, chosen, is_forbidden) -> None:
        assert chosen in options, (t, chosen, options)
        bad = [o for o in options if is_forbidden(o)]
        if bad and len(bad) < len(options):
            self.avoided += 1
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
        if not self.all_taken[p] and self.stacks["all_regions"] and NON_BAIERN <= held:
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
        if not self.all_taken[p] and self.stacks["all_regions"] and NON_BAIERN <= held:
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
        if L >= 3:  # the optional close (§4C)
            if me:
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
        if L < self.min_len:
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
    ("random", "postmaster", 12, 1): None,
    ("random", "administrator", 12, 2): None,
    ("random", "postal-carrier", 12, 3): None,
    ("random", "cartwright", 12, 4): None,
    ("random", "route-under-5", 12, 5): None,
    ("random", "route-under-7", 12, 6): None,
    ("random", "route-tile", 12, 7): None,
    ("random", "region-tile", 12, 8): None,
    ("random", "all-regions-tile", 12, 9): None,
    ("random", "game-end-tile", 12, 10): None,
    ("random", "region-tile+all-regions-tile+game-end-tile+cartwright", 12, 11): None,
    ("route", "postmaster", 8, 1): None,
    ("route", "administrator", 8, 2): None,
    ("route", "postal-carrier", 8, 3): None,
    ("route", "cartwright", 8, 4): None,
    ("route", "route-under-4", 8, 5): None,
    ("route", "route-under-6", 8, 6): None,
    ("route", "route-tile", 8, 7): None,
    ("route", "region-tile", 8, 8): None,
    ("route", "all-regions-tile", 8, 9): None,
    ("route", "game-end-tile", 8, 10): None,
    ("route", "region-tile+all-regions-tile+route-under-5", 8, 11): None,
    ("mcts:iterations=4", "cartwright+region-tile+route-under-4", 2, 1): None,
    ("mcts:iterations=4", "postmaster+postal-carrier+all-regions-tile+game-end-tile", 2, 2): None,
    ("mcts:iterations=4", "administrator+route-tile", 2, 3): None,
}


@pytest.mark.parametrize("policy, forbid, games, seed", list(CASES))
def test_s11_restricted_seat_never_takes_a_forbidden_option(policy, forbid, games, seed):
    """docs/rules/thurn_und_taxis.md §11: in recorded games the restricted seat never takes a
    forbidden option while a permitted one is legal, and the second implementation's counts of
    avoided and forced decisions equal the kernel's columns game by game."""
    r = run_restricted(policy, forbid, games, seed)
    a, f, _ = check_run(r, forbid)
    assert (a, f) == CASES[(policy, forbid, games, seed)]
