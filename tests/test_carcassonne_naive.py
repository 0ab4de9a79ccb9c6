"""A deliberately naive second scorer for Carcassonne (+ The Gifts), cross-checked against the kernel.

docs/rules/carcassonne.md §3 (scoring), §4 (gifts): this implementation reads the tile table
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
        self._segs, self._edges = {}, {}  # per (letter, rotation): memo of pure functions
        self.meeples = []  # [player, x, y, segment]
        self.score = [0] * players
        self.hand = [0] * players
        # gift deck and face-up discard pile by card id (§4.1, §4.3); the deck is rebuilt from
        # the discards when a gift is due and it is empty (§4.2, §6 #12)
        gifts = json.loads((G.DATA_DIR / "gifts.json").read_text())
        only = variant.get("gift_deck", "all")
        total = sum(c["count"] for c in gifts["cards"])
        self.deck = {
            c["id"]: (c["count"] if only == "all" else total * (c["id"] == only))
            for c in gifts["cards"]
        }
        self.discard = dict.fromkeys(self.deck, 0)
        self.draws = 0  # gift cards drawn
        self.dry = 0  # gifts earned with the deck and the discards empty (§4.2)
        self.reshuffles = 0  # times the discard pile became the deck (a rare path, §6 #12)
        self.ties = {}  # majority ties by number of tied players (§3.3, rare paths)
        self.strict = False  # True: check every meeple choice against the rules (check_draws)
        self.supply_empty = 0  # meeple steps with no meeple in supply (strict mode)

    # ---- geometry of a placed tile
    def segments(self, x, y):
        key = self.board[(x, y)]
        if key not in self._segs:
            self._segs[key] = self._segments(*key)
        return self._segs[key]

    def _segments(self, letter, rot):
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
                nb = (
                    self.owner_of_port(nx, ny, partner(w))
                    if kind == "field"
                    else self.owner_of_side(nx, ny, (side + 2) % 4)
                )
                if (nx, ny, nb) not in seen:
                    seen.add((nx, ny, nb))
                    todo.append((nx, ny, nb))
        return seen, opened

    def neighbours(self, x, y):
        return sum(
            (x + dx, y + dy) in self.board for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy
        )

    def meeples_in(self, nodes):
        return [m for m in self.meeples if (m[1], m[2], m[3]) in nodes]

    def award(self, ms, pts):
        counts = [sum(1 for m in ms if m[0] == p) for p in range(self.players)]
        top = max(counts)
        if top:
            winners = sum(1 for c in counts if c == top)
            self.ties[winners] = self.ties.get(winners, 0) + (winners > 1)
            for p in range(self.players):
                if counts[p] == top:
                    self.score[p] += pts

    def remove(self, ms):
        for m in ms:
            self.meeples.remove(m)

    def city_points(self, nodes, complete):
        tiles = {(n[0], n[1]) for n in nodes}
        pen = 0
        for x, y, s in nodes:
            letter, _ = self.board[(x, y)]
            pen += self.tiles[letter]["cities"][int(s[4:])]["pennants"]
        if complete and len(tiles) == 2 and self.variant.get("tiny_city") == "true":
            return 2  # §6 #17, old rule
        return 2 * len(tiles) + 2 * pen if complete else len(tiles) + pen

    # ---- legality, from the rules alone (§3.2 steps 1-2), never from the kernel's move list
    def edge_kinds(self, letter, rot):
        """Kind of each side N, E, S, W of ``letter`` turned ``rot`` quarter turns clockwise."""
        if (letter, rot) not in self._edges:
            self._edges[(letter, rot)] = self._edge_kinds(letter, rot)
        return self._edges[(letter, rot)]

    def _edge_kinds(self, letter, rot):
        t = self.tiles[letter]
        kinds = ["field"] * 4
        for c in t["cities"]:
            for s in c["sides"]:
                kinds[(SIDES.index(s) + rot) % 4] = "city"
        for r in t["roads"]:
            for s in r:
                kinds[(SIDES.index(s) + rot) % 4] = "road"
        return kinds

    def fits(self, letter, x, y, rot):
        """§3.2 step 1: an empty cell next to a tile, every shared edge of the same kind."""
        if (x, y) in self.board:
            return False
        kinds = self.edge_kinds(letter, rot)
        touching = False
        for side, (dx, dy) in enumerate(STEP):
            nb = self.board.get((x + dx, y + dy))
            if nb is not None:
                touching = True
                if self.edge_kinds(*nb)[(side + 2) % 4] != kinds[side]:
                    return False
        return touching

    def placements(self, letter):
        """Every legal (x, y, rotation), all four rotations of a symmetric tile included."""
        cells = {(x + dx, y + dy) for (x, y) in self.board for dx, dy in STEP}
        return sorted((x, y, r) for (x, y) in cells for r in range(4) if self.fits(letter, x, y, r))

    def meeple_choices(self, p, x, y):
        """§3.2 step 2 on the tile just placed at (x, y): None, or a segment whose whole feature
        holds no meeple, when the player has a meeple in supply."""
        out = [None]
        if sum(1 for m in self.meeples if m[0] == p) >= self.meeples_each:
            return out
        for name in self.segments(x, y):
            nodes, _ = self.feature(x, y, name)
            if not self.meeples_in(nodes):
                out.append(name)
        return out

    meeples_each = 7  # scoring.json meeples_per_player (§3.1)

    # ---- a turn of a record
    def turn(self, p, turn):
        gift = turn.get("gift")
        if gift:
            g = gift["open"]
            self.hand[p] -= 1
            self.discard[g] += 1
            if g == "synod" and "monastery" in gift:
                assert not self.strict or sum(m[0] == p for m in self.meeples) < self.meeples_each
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
            return counts[p] < top or (
                shared and any(counts[q] == top for q in range(self.players) if q != p)
            )

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
        if self.strict:  # §3.2 step 2 from the rules, never from the kernel's list
            if sum(1 for m in self.meeples if m[0] == p) >= self.meeples_each:
                self.supply_empty += 1
            assert turn["meeple"] in self.meeple_choices(p, x, y), (
                f"meeple {turn['meeple']!r} on {turn['tile']} at {x},{y}: not a legal choice"
            )
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
                if (
                    (cx, cy) in self.board
                    and "cloister" in self.segments(cx, cy)
                    and self.neighbours(cx, cy) == 8
                ):
                    ms = self.meeples_in({(cx, cy, "cloister")})
                    self.award(ms, 9)
                    self.remove(ms)
        return earned

    def draw_gift(self):
        """None when the deck and the discards are empty, else "any" (the caller checks the card
        against the deck); an empty deck first takes the shuffled discards (§4.2, §6 #12)."""
        if sum(self.deck.values()) == 0:
            if sum(self.discard.values()) == 0:
                self.dry += 1
                return None
            self.deck, self.discard = self.discard, dict.fromkeys(self.discard, 0)
            self.reshuffles += 1
        return "any"

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
                for x, y, s in nodes:
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


def naive_game(record):
    """The naive replay of a kernel record up to the final scoring (a ``Naive``)."""
    n = Naive(record["players"], record["variant"])
    for k, turn in enumerate(record["turns"]):
        _gift_step(n, record, k, turn, n.turn(turn["player"], turn))
    return n


def _gift_step(n, record, k, turn, earned):
    """Check turn ``k``'s gift receipt against the naive predicate and the naive deck."""
    if record["variant"]["gifts"] != "true":
        return
    # a gift is earned iff the kernel drew one (or the gift deck and discards were empty)
    assert earned or turn["received"] is None, f"turn {k}: kernel gave a gift, naive did not"
    if earned:
        got = n.draw_gift()
        assert (got is None) == (turn["received"] is None), (
            f"turn {k}: naive draws {got!r}, kernel {turn['received']!r}"
        )  # §4.2, §6 #12
        if got:
            assert n.deck[turn["received"]] > 0, f"turn {k}: card not in the gift deck"
            n.deck[turn["received"]] -= 1
            n.draws += 1


def naive_score(record):
    return naive_game(record).finish()


def naive_pile():
    """The unshuffled pile of ``perft``, from tiles.json alone: letters in file order with their
    counts, the start tile taken out once (§2, §3.1)."""
    doc = json.loads((G.DATA_DIR / "tiles.json").read_text())
    pile = [t["letter"] for t in doc["tiles"] for _ in range(t["count"])]
    pile.remove(doc["start_tile"])
    return pile


def naive_perft(depth, players=2):
    """Turn sequences of length ``depth`` on ``naive_pile()`` (a turn: a legal placement of the
    drawn tile with a legal meeple choice; a tile with no placement is set aside, §3.2), counted
    by the naive board: flood fill and edge matching from tiles.json, nothing from the kernel."""
    pile = naive_pile()

    def clone(n):
        c = Naive.__new__(Naive)
        c.__dict__ = dict(
            n.__dict__,
            board=dict(n.board),
            meeples=[list(m) for m in n.meeples],
            score=list(n.score),
        )
        return c

    def count(n, k, turn, d):
        if d == 0:
            return 1
        while k < len(pile) and not n.placements(pile[k]):
            k += 1
        if k == len(pile):
            return 0
        total = 0
        p = turn % players
        for x, y, r in n.placements(pile[k]):
            n.board[(x, y)] = (pile[k], r)
            choices = n.meeple_choices(p, x, y)
            del n.board[(x, y)]
            if d == 1:
                total += len(choices)
                continue
            for m in choices:
                c = clone(n)
                c.turn(p, {"tile": pile[k], "place": [x, y, r], "meeple": m})
                total += count(c, k + 1, turn + 1, d - 1)
        return total

    return count(Naive(players, {}), 0, 0, depth)


def check_draws(record, n=None):
    """Check a record's draws against the naive board (§3.2 step 1, §4.4.5, §6 #10-#11, #14).

    Replays ``record`` on a fresh ``Naive`` (or on ``n``) and, turn by turn, checks that every
    tile drawn and not placed had no legal placement when drawn, that the tile placed is the
    draw (with Take 2: one of the two placeable draws), that each placement and meeple is legal
    (also the supply of 7 meeples), and that the tiles after the last turn are all unplaceable.
    Also checks every gift receipt like ``naive_game``. Returns ``(n, counts)``: the naive game
    and counts of the rare draw paths ``{"unplaceable", "take2_unplaceable", "take2_empty_pile",
    "last_tile_unplaceable", "meeple_supply_empty"}``.
    """
    n = n or Naive(record["players"], record["variant"])
    n.strict = True
    tiles = record["tiles"]
    k = 0
    seen = dict.fromkeys(
        (
            "unplaceable",
            "take2_unplaceable",
            "take2_empty_pile",
            "last_tile_unplaceable",
            "meeple_supply_empty",
        ),
        0,
    )

    def draw(what):
        nonlocal k
        while k < len(tiles) and not n.placements(tiles[k]):
            seen[what] += 1
            k += 1
        k += 1
        return tiles[k - 1] if k <= len(tiles) else None

    for i, turn in enumerate(record["turns"]):
        first = draw("unplaceable")
        assert first is not None, f"turn {i}: no placeable tile left"
        gift = turn.get("gift")
        if gift and gift["open"] == "take_2" and "keep" in gift:
            second = draw("take2_unplaceable")
            assert second is not None and gift["keep"] in (first, second), f"turn {i}: Take 2"
            assert turn["tile"] == gift["keep"], f"turn {i}: Take 2 keeps {gift['keep']}"
        elif gift and gift["open"] == "take_2":  # no effect: nothing placeable left (§4.4.5)
            assert draw("take2_unplaceable") is None, f"turn {i}: Take 2 had a second tile"
            seen["take2_empty_pile"] += 1
        else:
            assert turn["tile"] == first, f"turn {i}: placed {turn['tile']}, drew {first}"
        x, y, r = turn["place"]
        assert n.fits(turn["tile"], x, y, r), f"turn {i}: illegal placement {turn['place']}"
        _gift_step(n, record, i, turn, n.turn(turn["player"], turn))
    rest = tiles[k:]
    assert all(not n.placements(t) for t in rest), "a placeable tile was left in the pile"
    seen["last_tile_unplaceable"] = int(bool(rest))
    seen["meeple_supply_empty"] = n.supply_empty
    return n, seen


_VARIANTS = [  # every reading of the ambiguity table the kernel offers, a few at a time
    {"farms": "v2", "tiny_city": "true", "cash_out_counts": "own"},
    {"farms": "v1", "gift_shared_majority": "gift", "change_to_completed": "allow"},
    {"farms": "none", "gift_on_completion": "no_gift", "take2_other": "discard"},
    {"gift_majority_judged": "before_placement", "gift_shared_majority": "gift"},
    {"gift_majority_judged": "before_placement", "farms": "v2", "gift_deck": "cash_out"},
]


@pytest.mark.parametrize(
    "variant", _VARIANTS, ids=lambda v: ",".join(f"{k}={x}" for k, x in v.items())
)
def test_s6_naive_scorer_agrees_on_every_variant(variant):
    """docs/rules/carcassonne.md §3.3, §6: naive scorer == kernel under the variant readings."""
    variant = dict(variant, gifts="true")
    for players, policies in ((2, ["random"] * 2), (3, ["heuristic", "random", "random"])):
        r = mcsim.simulate(
            "carcassonne",
            games=40,
            seed=77,
            players=players,
            policies=policies,
            variant=variant,
            record=40,
            workers=1,
        )
        for i, rec in enumerate(r.records):
            assert naive_score(rec) == rec["points"], f"game {i}"


@pytest.mark.parametrize(
    "players, gifts, policies, games",
    [
        (2, "false", ["random", "random"], 300),
        (3, "false", ["random"] * 3, 40),
        (5, "false", ["random"] * 5, 30),
        (2, "false", ["heuristic", "heuristic"], 15),
        (2, "true", ["random", "random"], 300),
        (4, "true", ["random"] * 4, 40),
        (2, "true", ["heuristic", "random"], 15),
    ],
)
def test_s3_naive_scorer_agrees_with_kernel(players, gifts, policies, games):
    """docs/rules/carcassonne.md §3.3, §4: naive flood-fill scorer == kernel on finished games."""
    r = mcsim.simulate(
        "carcassonne",
        games=games,
        seed=41 + players,
        players=players,
        policies=policies,
        variant={"gifts": gifts},
        record=games,
    )
    opened = 0
    for i, rec in enumerate(r.records):
        assert naive_score(rec) == rec["points"], f"game {i}"
        assert rec["points"] == [int(r.games.iloc[i][f"score_{k}"]) for k in range(players)]
        opened += sum(1 for t in rec["turns"] if t["gift"])
    if gifts == "true":
        assert opened > 0  # the gift effects were exercised
