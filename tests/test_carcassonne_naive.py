"""A deliberately naive second scorer for Carcassonne (+ The Gifts), cross-checked against the kernel.

shared/rules/carcassonne.md §3 (scoring), §4 (gifts): this implementation reads the tile table
straight from ``tiles.json``, keeps the board as a dict and the meeples as a list, and finds every
feature by flood fill from scratch each time (no union-find, no bitboards). It replays the kernel's
own records (placements, meeples, gift actions) and must reach the same scores and the same gift
receipts on many random finished games.
"""
import json

import pytest

import mcsim
from mcsim.games import carcassonne as G

SIDES = "NESW"
STEP = [(0, -1), (1, 0), (0, 1), (-1, 0)]


def partner(p):
    return (p + 5) % 8 if p % 2 == 0 else (p + 3) % 8


class Naive:
    def __init__(self, players, variant):
        doc = json.loads((G.DATA_DIR / "tiles.json").read_text())
        self.tiles = {t["letter"]: t for t in doc["tiles"]}
        self.players = players
        self.variant = variant
        self.board = {(0, 0): ("D", 0)}
        self.meeples = []  # [player, x, y, segment]
        self.score = [0] * players
        self.hand = [0] * players

    # ---- geometry of a placed tile
    def segments(self, x, y):
        letter, rot = self.board[(x, y)]
        t = self.tiles[letter]
        out = {}
        for i, c in enumerate(t["cities"]):
            out[f"city{i}"] = ("city", {(SIDES.index(s) + rot) % 4 for s in c["sides"]})
        for i, r in enumerate(t["roads"]):
            out[f"road{i}"] = ("road", {(SIDES.index(s) + rot) % 4 for s in r})
        for i, f in enumerate(t["fields"]):
            out[f"field{i}"] = ("field", {(int(p) + 2 * rot) % 8 for p in f["ports"]})
        if t["cloister"]:
            out["cloister"] = ("cloister", set())
        return out

    def owner_of_side(self, x, y, side):
        for name, (kind, sides) in self.segments(x, y).items():
            if kind in ("city", "road") and side in sides:
                return name

    def owner_of_port(self, x, y, port):
        for name, (kind, ports) in self.segments(x, y).items():
            if kind == "field" and port in ports:
                return name

    def feature(self, x, y, seg):
        """(set of (x, y, segment) nodes, open edge count) by flood fill."""
        kind = self.segments(x, y)[seg][0]
        if kind == "cloister":
            return {(x, y, seg)}, 0
        seen = {(x, y, seg)}
        todo = [(x, y, seg)]
        opened = 0
        while todo:
            cx, cy, s = todo.pop()
            _, where = self.segments(cx, cy)[s]
            for w in where:
                side = w // 2 if kind == "field" else w
                nx, ny = cx + STEP[side][0], cy + STEP[side][1]
                if (nx, ny) not in self.board:
                    opened += 1
                    continue
                nb = (self.owner_of_port(nx, ny, partner(w)) if kind == "field"
                      else self.owner_of_side(nx, ny, (side + 2) % 4))
                if (nx, ny, nb) not in seen:
                    seen.add((nx, ny, nb))
                    todo.append((nx, ny, nb))
        return seen, opened

    def neighbours(self, x, y):
        return sum((x + dx, y + dy) in self.board for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                   if dx or dy)

    def meeples_in(self, nodes):
        return [m for m in self.meeples if (m[1], m[2], m[3]) in nodes]

    def award(self, ms, pts):
        counts = [sum(1 for m in ms if m[0] == p) for p in range(self.players)]
        top = max(counts)
        if top:
            for p in range(self.players):
                if counts[p] == top:
                    self.score[p] += pts

    def remove(self, ms):
        for m in ms:
            self.meeples.remove(m)

    def city_points(self, nodes, complete):
        tiles = {(n[0], n[1]) for n in nodes}
        pen = 0
        for (x, y, s) in nodes:
            letter, _ = self.board[(x, y)]
            pen += self.tiles[letter]["cities"][int(s[4:])]["pennants"]
        if complete and len(tiles) == 2 and self.variant.get("tiny_city") == "true":
            return 2  # §6 #17, old rule
        return 2 * len(tiles) + 2 * pen if complete else len(tiles) + pen

    # ---- a turn of a record
    def turn(self, p, turn):
        gift = turn.get("gift")
        if gift:
            g = gift["open"]
            self.hand[p] -= 1
            if g == "synod" and "monastery" in gift:
                self.meeples.append([p, *gift["monastery"], "cloister"])
            elif g == "road_sweeper" and "road" in gift:
                nodes, _ = self.feature(*gift["road"])
                ms = self.meeples_in(nodes)
                self.award(ms, len({(n[0], n[1]) for n in nodes}))
                self.remove(ms)
            elif g == "cash_out" and "meeple" in gift:
                x, y, s = gift["meeple"]
                nodes, _ = self.feature(x, y, s)
                ms = self.meeples_in(nodes)
                if self.variant.get("cash_out_counts") == "own":
                    ms = [m for m in ms if m[0] == p]
                self.score[p] += 2 * len(ms)
                self.meeples.remove([p, x, y, s])
            elif g == "change_position" and "meeple" in gift:
                x, y, s = gift["meeple"]
                self.meeples[self.meeples.index([p, x, y, s])] = [p, x, y, gift["to"]]
        x, y, rot = turn["place"]
        assert (x, y) not in self.board
        v = self.variant
        shared = v.get("gift_shared_majority") == "gift"

        def someone_elses(ms):
            counts = [sum(1 for m in ms if m[0] == q) for q in range(self.players)]
            top = max(counts)
            if not ms:
                return False
            return counts[p] < top or (shared and any(
                counts[q] == top for q in range(self.players) if q != p))

        # gift predicate (§4.2): an extended road/city that is someone else's by majority,
        # judged on each neighbouring feature before the tile (variant) ...
        before = []
        self.board[(x, y)] = (turn["tile"], rot)
        segs = self.segments(x, y)
        del self.board[(x, y)]
        for name, (kind, sides) in segs.items():
            if kind in ("city", "road"):
                for sd in sides:
                    nx, ny = x + STEP[sd][0], y + STEP[sd][1]
                    if (nx, ny) in self.board:
                        nodes, _ = self.feature(nx, ny, self.owner_of_side(nx, ny, (sd + 2) % 4))
                        before.append((name, someone_elses(self.meeples_in(nodes))))
        self.board[(x, y)] = (turn["tile"], rot)
        # ... or on the merged feature (default)
        earned = False
        for name, (kind, sides) in segs.items():
            if kind not in ("city", "road"):
                continue
            if not any((x + STEP[s][0], y + STEP[s][1]) in self.board for s in sides):
                continue
            nodes, opened = self.feature(x, y, name)
            if opened == 0 and v.get("gift_on_completion") == "no_gift":
                continue
            if v.get("gift_majority_judged") == "before_placement":
                earned |= any(flag for n, flag in before if n == name)
            elif someone_elses(self.meeples_in(nodes)):
                earned = True
        if turn["meeple"] is not None:
            self.meeples.append([p, x, y, turn["meeple"]])
        if turn.get("received"):
            self.hand[p] += 1
        # scoring of completed roads, cities, monasteries (§3.2 step 3)
        for name, (kind, _) in segs.items():
            if kind in ("city", "road"):
                nodes, opened = self.feature(x, y, name)
                if opened == 0:
                    ms = self.meeples_in(nodes)
                    tiles = len({(n[0], n[1]) for n in nodes})
                    self.award(ms, tiles if kind == "road" else self.city_points(nodes, True))
                    self.remove(ms)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                cx, cy = x + dx, y + dy
                if (cx, cy) in self.board and "cloister" in self.segments(cx, cy) \
                        and self.neighbours(cx, cy) == 8:
                    ms = self.meeples_in({(cx, cy, "cloister")})
                    self.award(ms, 9)
                    self.remove(ms)
        return earned

    def finish(self):
        done = set()
        fields = []  # (farmers, set of adjacent completed cities)
        for m in list(self.meeples):
            nodes, opened = self.feature(m[1], m[2], m[3])
            key = frozenset(nodes)
            if key in done:
                continue
            done.add(key)
            ms = self.meeples_in(nodes)
            kind = self.segments(m[1], m[2])[m[3]][0]
            if kind in ("road", "city") and opened == 0:
                continue  # completed features score during play only
            if kind == "road":
                self.award(ms, len({(n[0], n[1]) for n in nodes}))
            elif kind == "city":
                self.award(ms, self.city_points(nodes, False))
            elif kind == "cloister":
                if self.neighbours(m[1], m[2]) < 8:
                    self.award(ms, 1 + self.neighbours(m[1], m[2]))
            else:
                cities = set()
                for (x, y, s) in nodes:
                    letter, _ = self.board[(x, y)]
                    for c in self.tiles[letter]["fields"][int(s[5:])]["cities"]:
                        cn, co = self.feature(x, y, f"city{c}")
                        if co == 0:
                            cities.add(frozenset(cn))
                fields.append((ms, cities))
        farms = self.variant.get("farms", "v3")
        if farms == "v3":  # each field on its own, 3 per completed city
            for ms, cities in fields:
                self.award(ms, 3 * len(cities))
        elif farms == "v2":  # each city at most once per player
            won = [set() for _ in range(self.players)]
            for ms, cities in fields:
                counts = [sum(1 for m in ms if m[0] == q) for q in range(self.players)]
                for q in range(self.players):
                    if counts[q] == max(counts):
                        won[q] |= cities
            for q in range(self.players):
                self.score[q] += 3 * len(won[q])
        elif farms == "v1":  # city-centric: 4 to the farmer majority over all its fields
            every = set().union(*[c for _, c in fields]) if fields else set()
            for city in every:
                ms = [m for f_ms, cities in fields if city in cities for m in f_ms]
                self.award(ms, 4)
        for p in range(self.players):
            self.score[p] += 2 * self.hand[p]
        return self.score


def naive_score(record):
    n = Naive(record["players"], record["variant"])
    for k, turn in enumerate(record["turns"]):
        earned = n.turn(turn["player"], turn)
        if record["variant"]["gifts"] == "true":
            # a gift is earned iff the kernel drew one (or the gift deck and discards were empty)
            assert earned or turn["received"] is None, f"turn {k}: kernel gave a gift, naive did not"
            if earned and turn["received"] is None:
                assert sum(n.hand) == 25, f"turn {k}: naive gives a gift, kernel did not"  # §6 #12
    return n.finish()


_VARIANTS = [  # every reading of the ambiguity table the kernel offers, a few at a time
    {"farms": "v2", "tiny_city": "true", "cash_out_counts": "own"},
    {"farms": "v1", "gift_shared_majority": "gift", "change_to_completed": "allow"},
    {"farms": "none", "gift_on_completion": "no_gift", "take2_other": "discard"},
    {"gift_majority_judged": "before_placement", "gift_shared_majority": "gift"},
    {"gift_majority_judged": "before_placement", "farms": "v2", "gift_deck": "cash_out"},
]


@pytest.mark.parametrize("variant", _VARIANTS, ids=lambda v: ",".join(f"{k}={x}" for k, x in v.items()))
def test_s6_naive_scorer_agrees_on_every_variant(variant):
    """shared/rules/carcassonne.md §3.3, §6: naive scorer == kernel under the variant readings."""
    variant = dict(variant, gifts="true")
    for players, policies in ((2, ["random"] * 2), (3, ["heuristic", "random", "random"])):
        r = mcsim.simulate("carcassonne", games=40, seed=77, players=players, policies=policies,
                           variant=variant, record=40, workers=1)
        for i, rec in enumerate(r.records):
            assert naive_score(rec) == rec["points"], f"game {i}"


@pytest.mark.parametrize("players, gifts, policies, games", [
    (2, "false", ["random", "random"], 300),
    (3, "false", ["random"] * 3, 40),
    (5, "false", ["random"] * 5, 30),
    (2, "false", ["heuristic", "heuristic"], 15),
    (2, "true", ["random", "random"], 300),
    (4, "true", ["random"] * 4, 40),
    (2, "true", ["heuristic", "random"], 15),
])
def test_s3_naive_scorer_agrees_with_kernel(players, gifts, policies, games):
    """shared/rules/carcassonne.md §3.3, §4: naive flood-fill scorer == kernel on finished games."""
    r = mcsim.simulate("carcassonne", games=games, seed=41 + players, players=players,
                       policies=policies, variant={"gifts": gifts}, record=games)
    opened = 0
    for i, rec in enumerate(r.records):
        assert naive_score(rec) == rec["points"], f"game {i}"
        assert rec["points"] == [int(r.games.iloc[i][f"score_{k}"]) for k in range(players)]
        opened += sum(1 for t in rec["turns"] if t["gift"])
    if gifts == "true":
        assert opened > 0  # the gift effects were exercised
