"""A naive second implementation of one Don Quixote estate, for the restricted-play tests.

Written again from docs/rules/don_quixote.md in plain Python, sharing no code with the kernel
or with ``mcsim.games.don_quixote`` (not its tile parser, tables or geometry): the tile file's
JSON is read here, a tile is turned by mapping port names (§1.3), and road networks are found
by a breadth-first search over road pieces each time they are asked for (§3.3). Enough of the
rules to classify the options of §8 (restricted play); scoring is not needed.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLACEHOLDER = ROOT / "mcsim" / "data" / "don_quixote" / "tiles_placeholder.json"
ROWS, COLS = "ABCDEFGH", "123"
#: §1.3: a 180° turn maps LW<->RE, LN<->RS, LS<->RN (and swaps the halves)
TURN = {"LW": "RE", "RE": "LW", "LN": "RS", "RS": "LN", "LS": "RN", "RN": "LS"}
#: §1.3: the neighbour a port faces, as (row step, column step, the neighbour's port)
FACES = {
    "LW": (0, -1, "RE"),
    "RE": (0, 1, "LW"),
    "LN": (-1, 0, "LS"),
    "RN": (-1, 0, "RS"),
    "LS": (1, 0, "LN"),
    "RS": (1, 0, "RN"),
}


def load_pieces(path: Path = PLACEHOLDER) -> dict[str, list[dict]]:
    """``{tile id: [piece, ...]}`` in reference orientation, a piece being ``{"ports": set of
    port names, "church": n, "windmill": n, "knights": [half, ...]}`` (the halves "L"/"R" of
    the knights on it); a feature on no road is a piece without ports."""
    doc = json.loads(Path(path).read_text())
    out = {}
    for t in doc["tiles"]:
        halves = t.get("halves", {})
        pieces = []
        on_road = set()
        for r in t["roads"]:
            p = {"ports": set(r["ports"]), "church": 0, "windmill": 0, "knights": []}
            for h in r.get("features", []):
                on_road.add(h)
                f = halves[h]["feature"]
                if f in ("church", "windmill"):
                    p[f] += 1
                elif f == "knight":
                    p["knights"].append(h)
            pieces.append(p)
        for h, hv in halves.items():
            if hv.get("feature", "none") in ("church", "windmill") and h not in on_road:
                pieces.append({"ports": set(), "church": int(hv["feature"] == "church"),
                               "windmill": int(hv["feature"] == "windmill"), "knights": []})  # fmt: skip
        out[t["id"]] = pieces
    return out


class Estate:
    """One player's estate: ``cells`` maps a cell name ("G3") to its turned pieces."""

    def __init__(self, pieces: dict[str, list[dict]], castles: dict[str, str]):
        self.pieces = pieces
        self.cells: dict[str, list[dict]] = {}
        for value, cell in castles.items():
            self.put(cell, f"CASTLE{value}", 0)

    def turned(self, tile: str, rot: int) -> list[dict]:
        """The pieces of ``tile`` at ``rot`` degrees (0 or 180)."""
        out = []
        for p in self.pieces[tile]:
            ports = {TURN[q] for q in p["ports"]} if rot == 180 else set(p["ports"])
            knights = (
                [{"L": "R", "R": "L"}[h] for h in p["knights"]] if rot == 180 else p["knights"]
            )
            out.append({**p, "ports": ports, "knights": list(knights)})
        return out

    def defends(self, cell: str, tile: str, rot: int) -> bool:
        """§3.4 (variant ``defence_road=own-half``): ``tile`` at ``rot`` on ``cell`` holds a
        knight whose road piece has a port of the knight's own half on the outer boundary."""
        r, col = ROWS.index(cell[0]), COLS.index(cell[1])
        for p in self.turned(tile, rot):
            for h in p["knights"]:
                for q in p["ports"]:
                    dr, dc, _ = FACES[q]
                    out = not (0 <= r + dr < len(ROWS) and 0 <= col + dc < len(COLS))
                    if q[0] == h and out:
                        return True
        return False

    def put(self, cell: str, tile: str, rot: int) -> None:
        assert cell not in self.cells, cell
        self.cells[cell] = self.turned(tile, rot)

    def remove(self, cell: str) -> None:
        del self.cells[cell]

    def count(self, kind: str) -> int:
        """Churches or windmills on the estate."""
        return sum(p[kind] for ps in self.cells.values() for p in ps)

    def network(self, cell: str, k: int) -> set[tuple[str, int]]:
        """The road pieces (cell, piece index) of the network of piece ``k`` on ``cell``: a port
        joins the facing port of a neighbouring tile when both have a road (§1.3, §3.3)."""
        seen = {(cell, k)}
        todo = [(cell, k)]
        while todo:
            c, i = todo.pop()
            r, col = ROWS.index(c[0]), COLS.index(c[1])
            for q in self.cells[c][i]["ports"]:
                dr, dc, face = FACES[q]
                if not (0 <= r + dr < len(ROWS) and 0 <= col + dc < len(COLS)):
                    continue
                n = ROWS[r + dr] + COLS[col + dc]
                for j, p in enumerate(self.cells.get(n, ())):
                    if face in p["ports"] and (n, j) not in seen:
                        seen.add((n, j))
                        todo.append((n, j))
        return seen

    def apart(self, cell: str, kind: str) -> bool:
        """§8.2/§8.3, read after a placement on ``cell``: its tile carries ``kind`` and no piece
        carrying it lies in a network with 2 or more of that kind."""
        mine = [k for k, p in enumerate(self.cells[cell]) if p[kind]]
        if not mine:
            return False
        for k in mine:
            net = self.network(cell, k)
            if sum(self.cells[c][i][kind] for c, i in net) >= 2:
                return False
        return True


def forbidden(est: Estate, cell: str, tile: str, rot: int, options: set[str]) -> bool:
    """Whether placing ``tile`` at ``rot`` on empty ``cell`` is forbidden by any of ``options``
    (docs/rules/don_quixote.md §8); the estate is left as it was."""
    if "turn-tile" in options and rot == 180:
        return True
    # §8.4: the other orientation would defend, this one does not
    off = not est.defends(cell, tile, rot) and est.defends(cell, tile, 180 - rot)
    if "knight-off-defence" in options and off:
        return True
    before = {k: est.count(k) for k in ("church", "windmill")}
    est.put(cell, tile, rot)
    try:
        for name, kind in (("church-apart", "church"), ("windmill-apart", "windmill")):
            if name in options and before[kind] > 0 and est.apart(cell, kind):
                return True
        return False
    finally:
        est.remove(cell)


def replay_decisions(record: dict, options: set[str], seat: int = 0):
    """Walk seat ``seat``'s placements of a game record (``mcsim.simulate(record=...)``) and
    classify each decision by §8: returns ``(avoided, forced, violations)`` where a violation is
    a placement that chose a forbidden option while a permitted one was legal.

    The legal options of placement i (0-based) are the face-up unplaced tiles (the reveals of
    §3.2) in both orientations; at i = 21 only the set-aside tile, in both orientations under
    ``last_tile_rotation=free`` and in the recorded (dealt) one under ``random``."""
    pl = record["players"][seat]
    rev = pl["reveals"]
    est = Estate(load_pieces(), record["castles"])
    free = record["variant"]["last_tile_rotation"] == "free"
    hand: list[str] = []
    avoided = forced = 0
    violations = []
    for i, mv in enumerate(pl["placements"]):
        if i == 0:
            hand += rev["round1"]
        elif i == 9:
            hand += rev["round2"]
        elif i == 16:
            hand += rev["round3"]
        if i == 21:
            legal = [(rev["set_aside"], r) for r in ((0, 180) if free else (mv["rot"],))]
        else:
            legal = [(t, r) for t in hand for r in (0, 180)]
        flags = {(t, r): forbidden(est, mv["cell"], t, r, options) for t, r in legal}
        n_bad = sum(flags.values())
        choice = (mv["tile"], mv["rot"])
        assert choice in flags, (i, choice)
        if n_bad == len(flags):
            forced += 1
        elif n_bad:
            avoided += 1
            if flags[choice]:
                violations.append((i, mv))
        est.put(mv["cell"], mv["tile"], mv["rot"])
        if i < 21:
            hand.remove(mv["tile"])
    return avoided, forced, violations
