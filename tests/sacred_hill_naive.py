"""A deliberately naive second implementation of Sacred Hill, written from the rules file alone.

docs/rules/sacred_hill.md §1-§3: hills are (column, row) pairs, masks are Python ints over the
45 hills in the order below, the neighbour, knight and zone sets come from their offsets, and the
turn rules (§3.1 Manoeuvres, §3.2 the box / web2014 switch, §3.3 Battle priorities, §3.4 forced
pass and end, §3.5 scoring) are coded again here. Nothing is imported from ``kernels`` or
``mcsim``. Used by the rare-path tests and the first-player-rate test.
"""

import random

COLS = "ABCDEFG"
HILLS = [
    f"{c}{r}"
    for r in range(1, 8)
    for c in COLS
    if (c, r) not in (("A", 1), ("G", 1), ("A", 7), ("G", 7))
]
INDEX = {h: i for i, h in enumerate(HILLS)}
ALL = (1 << len(HILLS)) - 1


def _mask(h, offsets):
    c, r = COLS.index(h[0]), int(h[1:])
    m = 0
    for dc, dr in offsets:
        if 0 <= c + dc < 7 and f"{COLS[c + dc]}{r + dr}" in INDEX:
            m |= 1 << INDEX[f"{COLS[c + dc]}{r + dr}"]
    return m


ORTH = [_mask(h, [(1, 0), (-1, 0), (0, 1), (0, -1)]) for h in HILLS]
KNIGHT = [
    _mask(h, [(a, b) for a in (-2, -1, 1, 2) for b in (-2, -1, 1, 2) if abs(a) != abs(b)])
    for h in HILLS
]
ZONE12 = [
    _mask(h, [(a, b) for a in range(-2, 3) for b in range(-2, 3) if 0 < abs(a) + abs(b) < 3])
    for h in HILLS
]
ZONE8 = [_mask(h, [(a, b) for a in (-1, 0, 1) for b in (-1, 0, 1) if a or b]) for h in HILLS]


def bits(m):
    while m:
        low = m & -m
        yield low.bit_length() - 1
        m ^= low


class Game:
    """One game; ``moves()`` lists the legal moves of the player to move (hill names or "pass")."""

    def __init__(self, transition="box", zone="knight12"):
        self.forts = [0, 0]
        self.phase = ["M", "M"]  # M = Manoeuvres, G = one grace Manoeuvre (box), B = Battle
        self.to_move = 0
        self.transition = transition
        self.zone = ZONE12 if zone == "knight12" else ZONE8
        self.captures = [0, 0]
        self.passes = 0
        self.anywhere = 0  # Battle builds "anywhere" (§3.3.3)
        self.onto_besieged = 0  # ... of them onto a hill the opponent besieges
        self.plies = 0

    def empty(self):
        return ALL & ~(self.forts[0] | self.forts[1])

    def manoeuvres(self, p):
        """§3.1: empty hills a knight's move from one own fort and outside every own zone."""
        own = self.forts[p]
        if not own:
            return self.empty()
        near = far = 0
        for f in bits(own):
            far |= KNIGHT[f]
            near |= self.zone[f]
        return self.empty() & far & ~near

    def besieged_by(self, p):
        """§2: enemy lone forts all of whose existing neighbours hold p's forts."""
        return [f for f in bits(self.forts[1 - p]) if ORTH[f] & ~self.forts[p] == 0]

    def over(self):
        return self.empty() == 0 and not self.besieged_by(0) and not self.besieged_by(1)

    def _battle_moves(self, p):
        caps = self.besieged_by(p)
        if caps:
            return "capture", caps
        adj = 0
        for f in bits(self.forts[p]):
            adj |= ORTH[f]
        adj &= self.empty()
        if adj:
            return "adjacent", list(bits(adj))
        if self.empty():
            return "anywhere", list(bits(self.empty()))
        return "pass", []

    def _kind(self):
        p = self.to_move
        if self.phase[p] in "MG":
            m = self.manoeuvres(p)
            if m:
                return "manoeuvre", list(bits(m))
        return self._battle_moves(p)

    def moves(self):
        if self.over():
            return []
        kind, cells = self._kind()
        return ["pass"] if kind == "pass" else [HILLS[i] for i in cells]

    def forced(self):
        """The kind of the move the rules demand now: manoeuvre, capture, adjacent, anywhere, pass."""
        return self._kind()[0]

    def play(self, move):
        p = self.to_move
        assert move in self.moves(), f"ply {self.plies}: {move} not legal"
        kind = self._kind()[0]
        if kind != "manoeuvre" and self.phase[p] != "B":
            # §3.2: no Manoeuvre left -> Battle now; the opponent gets one more (box) or none
            was = self.phase[p]
            self.phase[p] = "B"
            if was == "M" and self.phase[1 - p] == "M":
                self.phase[1 - p] = "G" if self.transition == "box" else "B"
        elif kind == "manoeuvre" and self.phase[p] == "G":
            self.phase[p] = "B"
        if move == "pass":
            self.passes += 1
        else:
            i = INDEX[move]
            if kind == "capture":
                self.forts[1 - p] &= ~(1 << i)
                self.captures[p] += 1
            if kind == "anywhere":
                self.anywhere += 1
                self.onto_besieged += ORTH[i] & ~self.forts[1 - p] == 0
            self.forts[p] |= 1 << i
        self.plies += 1
        self.to_move = 1 - p

    def kingdoms(self, p):
        left, n = self.forts[p], 0
        while left:
            comp = left & -left
            while True:
                grow = comp
                for f in bits(comp):
                    grow |= ORTH[f] & self.forts[p]
                if grow == comp:
                    break
                comp = grow
            left &= ~comp
            n += 1
        return n

    def points(self):
        """§3.5: fewer kingdoms wins 2 + difference, else more territory wins 2 + difference."""
        k = [self.kingdoms(0), self.kingdoms(1)]
        t = [bin(self.forts[0]).count("1"), bin(self.forts[1]).count("1")]
        key = k if k[0] != k[1] else [-t[0], -t[1]]
        if key[0] == key[1]:
            return [0, 0]
        w = 0 if key[0] < key[1] else 1
        out = [0, 0]
        out[w] = 2 + abs(key[0] - key[1])
        return out


def random_game(rng: random.Random, **variant) -> Game:
    """A game with uniformly random legal moves."""
    g = Game(**variant)
    while not g.over():
        g.play(rng.choice(g.moves()))
    return g
