"""Don Quixote drawn placement by placement: each player's estate of 8x3 cells (rules §1.1-1.3:
rows A-H top to bottom, columns 1-3, landscape tiles of two halves) with the placed tiles (road
pieces to their ports, church, windmill, knights with their shields, the two castles), the tiles
face up beside it (from the record's ``reveals``), and each scoring's breakdown when it happens
(§3.4, after placements 9, 16 and 22).

A ply is one placement index (the shared position card, §3.2): every player's placement on that
cell. Positions come from the kernel's ``setup_estate`` / ``place`` / ``score_breakdown`` (the
functions the game's ``replay`` uses) on the tile set's kernel table, after ``replay`` has
validated the whole record. Tiles are drawn from the tile-set file (``Tile`` features and
shields) and the kernel table (ports of each road piece, the castle-road variant included).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from kernels import don_quixote as K
from mcsim.games import don_quixote as G
from mcsim.games.don_quixote.records import ROUND_KEYS
from mcsim.show.base import HIGHLIGHT, SEAT_FILL, Frame, Show, esc, line, poly, rect, table, text

TW, TH = 84, 42  # a tile: landscape, two square halves
GAP = 4
MX, MY = 22, 40  # estate margin (left: row letters, top: player name and column numbers)
FACE_W = 150  # face-up column beside each estate
EST_W = MX + 3 * (TW + GAP) + 8 + FACE_W
EST_H = MY + 8 * (TH + GAP) + 20
CAT_LABEL = {
    "castle6": "6-castle",
    "castle4": "4-castle",
    "churches": "churches",
    "windmills": "windmills",
    "defence": "defence",
    "knight_bonus": "knight bonus",
}


def _port_xy(p: int, x: float, y: float, w: float, h: float) -> tuple[float, float]:
    return {
        K.P_LW: (x, y + h / 2),
        K.P_LN: (x + w / 4, y),
        K.P_LS: (x + w / 4, y + h),
        K.P_RE: (x + w, y + h / 2),
        K.P_RN: (x + 3 * w / 4, y),
        K.P_RS: (x + 3 * w / 4, y + h),
    }[p]


def _feature(kind: str, shield: int, cx: float, cy: float, s: float) -> str:
    """A half's feature symbol centred at (cx, cy), size ``s`` (half width)."""
    if kind == "knight":
        d = s * 0.36
        pts = [
            (cx - d, cy - d),
            (cx + d, cy - d),
            (cx + d, cy + d * 0.2),
            (cx, cy + d * 1.2),
            (cx - d, cy + d * 0.2),
        ]
        return poly(pts, fill="#c9a227", stroke="#6b5208", sw=1.2) + text(
            cx, cy + d * 0.45, shield, size=s * 0.42, weight="bold", fill="#3a2c00"
        )
    if kind == "church":
        d = s * 0.3
        return (
            rect(cx - d * 0.8, cy - d * 0.2, d * 1.6, d * 1.3, fill="#f1ede4", stroke="#555", sw=1)
            + poly(
                [(cx - d, cy - d * 0.1), (cx, cy - d * 0.9), (cx + d, cy - d * 0.1)],
                fill="#b0413e",
                stroke="#555",
                sw=1,
            )
            + line(cx, cy - d * 1.5, cx, cy - d * 0.9, stroke="#333", sw=1.5)
            + line(cx - d * 0.3, cy - d * 1.25, cx + d * 0.3, cy - d * 1.25, stroke="#333", sw=1.5)
        )
    if kind == "windmill":
        d = s * 0.36
        return (
            rect(cx - d * 0.25, cy - d * 0.1, d * 0.5, d * 0.9, fill="#d8c7a6", stroke="#555", sw=1)
            + line(cx - d, cy - d, cx + d, cy + d * 0.6, stroke="#444", sw=2)
            + line(cx - d, cy + d * 0.6, cx + d, cy - d, stroke="#444", sw=2)
        )
    return ""


def _tile(
    ts, tab, t: int, o: int, x: float, y: float, w: float = TW, h: float = TH, mark: bool = False
) -> str:
    """Tile instance ``t`` turned ``o`` (0/1 = 0°/180°) in the box (x, y, w, h)."""
    tile = ts.instances[t]
    castle = int(tab[t, o, K.T_CVAL])
    out = [rect(x, y, w, h, fill="#d9c9a0" if castle else "#cfe3a6", stroke="#6f6a55", sw=1, rx=2)]
    out.append(line(x + w / 2, y, x + w / 2, y + 4, stroke="#6f6a55", sw=1))
    out.append(line(x + w / 2, y + h - 4, x + w / 2, y + h, stroke="#6f6a55", sw=1))
    # which half carries a feature after turning (§1.3: turning swaps L and R)
    half_feat = {}
    for hh in range(2):
        if tile.feature[hh] != "none":
            half_feat[hh ^ o] = (tile.feature[hh], tile.shield[hh])
    centres = [(x + w / 4, y + h / 2), (x + 3 * w / 4, y + h / 2)]
    for k in range(int(tab[t, o, K.T_NP])):
        ports = [p for p in range(6) if tab[t, o, K.T_PP + p] == k]
        if not ports:
            continue
        has_feat = any(tab[t, o, col + k] for col in (K.T_KN, K.T_CH, K.T_WM))
        if castle:
            hub = (x + w / 2, y + h / 2)
        elif has_feat and half_feat:
            hh = (
                next(iter(half_feat))
                if len(half_feat) == 1
                else (0 if any(p in (K.P_LW, K.P_LN, K.P_LS) for p in ports) else 1)
            )
            hub = centres[hh]
        else:
            pts = [_port_xy(p, x, y, w, h) for p in ports]
            hub = (sum(a for a, _ in pts) / len(pts), sum(b for _, b in pts) / len(pts))
            if len(ports) == 2:
                hub = (x + w / 2, y + h / 2) if abs(pts[0][0] - pts[1][0]) > w / 3 else hub
        for p in ports:
            px, py = _port_xy(p, x, y, w, h)
            out.append(
                f'<path d="M{hub[0]:.1f},{hub[1]:.1f}L{px:.1f},{py:.1f}" '
                f'stroke="#fff6dc" stroke-width="{w * 0.09:.1f}" stroke-linecap="round"/>'
            )
            out.append(
                f'<path d="M{hub[0]:.1f},{hub[1]:.1f}L{px:.1f},{py:.1f}" '
                f'stroke="#8b6b3e" stroke-width="{w * 0.025:.1f}" '
                f'stroke-dasharray="3,3"/>'
            )
    if castle:
        cx, cy, d = x + w / 2, y + h / 2, h * 0.32
        out.append(rect(cx - d, cy - d * 0.6, 2 * d, d * 1.5, fill="#9d9d9d", stroke="#333", sw=1))
        for k in range(3):
            out.append(
                rect(
                    cx - d + k * d * 0.8,
                    cy - d,
                    d * 0.4,
                    d * 0.45,
                    fill="#9d9d9d",
                    stroke="#333",
                    sw=1,
                )
            )
        out.append(text(cx, cy + d * 0.65, castle, size=h * 0.34, weight="bold", fill="#fff"))
    for hh, (kind, shield) in half_feat.items():
        out.append(_feature(kind, shield, *centres[hh], w / 2))
    out.append(text(x + 3, y + h - 3, tile.id, size=h * 0.2, anchor="start", fill="#555"))
    if mark:
        out.append(rect(x - 2, y - 2, w + 4, h + 4, stroke=HIGHLIGHT, sw=3, rx=3))
    return "".join(out)


def _cell_xy(c: int, ox: float) -> tuple[float, float]:
    r, col = divmod(c, K.N_COLS)
    return ox + MX + col * (TW + GAP), MY + r * (TH + GAP)


def _base(n: int, names: list[str]) -> str:
    out = [rect(0, 0, n * EST_W, EST_H, fill="#f3efe3")]
    for p in range(n):
        ox = p * EST_W
        out.append(
            text(ox + MX, 16, names[p], size=13, anchor="start", weight="bold", fill=SEAT_FILL[p])
        )
        for col in range(K.N_COLS):
            out.append(text(ox + MX + col * (TW + GAP) + TW / 2, MY - 6, K.COL_NAMES[col], size=11))
        for r in range(K.N_ROWS):
            out.append(
                text(ox + MX - 10, MY + r * (TH + GAP) + TH / 2 + 4, K.ROW_NAMES[r], size=11)
            )
        for c in range(K.N_CELLS):
            x, y = _cell_xy(c, ox)
            out.append(rect(x, y, TW, TH, fill="#e9e4d2", stroke="#c9c1a5", sw=1, rx=2))
            out.append(text(x + TW / 2, y + TH / 2 + 4, K.CELL_NAMES[c], size=10, fill="#b3aa8c"))
        fx = ox + MX + 3 * (TW + GAP) + 8
        out.append(text(fx, MY - 6, "face up", size=11, anchor="start", fill="#555"))
    return "".join(out)


def _faceup(ts, pl: dict, ply: int, used: Counter) -> list[str] | None:
    """Tile ids face up for a player before placement ``ply`` (None: the record has no reveals)."""
    rev = pl.get("reveals")
    if not isinstance(rev, dict):
        return None
    if ply >= K.N_PLACE:
        return []
    if ply == K.N_PLACE - 1:
        sa = rev.get("set_aside")
        return [sa] if isinstance(sa, str) else list(sa)
    rnd = K.round_of(ply)
    shown = Counter()
    for key in ROUND_KEYS[:rnd]:
        shown += Counter(rev.get(key) or [])
    left = shown - used
    return sorted(left.elements())


LEGEND = (
    "Each estate: rows A-H, columns 1-3, tiles lie landscape with halves L and R "
    "(rules §1.2). Dashed brown lines are roads (to the ports of each road piece), "
    "gold shields are knights with their shield value, red roofs churches, crossed "
    "blades windmills, grey keeps the 6- and 4-castles. The pink frame marks the cell "
    "just placed; the move is every player's placement there, in player order "
    "(cell tile rotation). Points appear at the three scorings (§3.4)."
)


class _Game:
    """One record being drawn: its tile set and tables, each player's estate, the tiles used,
    the running totals and the SVG symbols drawn so far (one per tile and orientation)."""

    def __init__(self, record: dict):
        self.ts = ts = G.load_tileset(record.get("tiles_file"))
        self.variant = G.SPEC.resolve_variant(record.get("variant") or {})
        self.tab = G.build_tables(ts, self.variant)
        self.by_id: dict[str, list[int]] = {}
        for i, t in enumerate(ts.instances[: ts.n_land]):
            self.by_id.setdefault(t.id, []).append(i)
        castles = np.array(
            [G.cell_index(record["castles"][str(v)]) for v in G.CASTLE_VALUES], dtype=np.int64
        )
        players = record.get("players")
        if players is None:
            players = [{k: record[k] for k in ("placements", "reveals") if k in record}]
        self.players = players
        self.n = n = len(players)
        self.names = [
            f"player {p}" + (f" ({pl['policy']})" if isinstance(pl.get("policy"), str) else "")
            for p, pl in enumerate(players)
        ]
        self.estates = [K.setup_estate(self.tab, castles) for _ in range(n)]
        self.log = np.zeros(K.LOGN, dtype=np.int64)
        self.used = [Counter() for _ in range(n)]
        self.free = [list(range(ts.n_land)) for _ in range(n)]
        self.totals = [0] * n
        self.bd = np.zeros(K.N_CAT, dtype=np.int64)
        self.plies = max(len(pl["placements"]) for pl in players)
        self.symbols: dict[tuple[int, int], str] = {}  # one SVG symbol per (tile, orientation)

    def use(self, t: int, o: int, x: float, y: float, scale: float = 1.0) -> str:
        """Tile ``t`` turned ``o`` at (x, y), scaled: a ``<use>`` of its symbol (made once)."""
        if (t, o) not in self.symbols:
            self.symbols[(t, o)] = (
                f'<g id="dq{t}_{o}">' + _tile(self.ts, self.tab, t, o, 0, 0) + "</g>"
            )
        if scale == 1.0:
            return f'<use href="#dq{t}_{o}" x="{x:.0f}" y="{y:.0f}"/>'
        return f'<use href="#dq{t}_{o}" transform="translate({x:.0f},{y:.0f}) scale({scale:.4f})"/>'

    def draw(self, last: int | None, ply: int) -> str:
        """Every estate's placed tiles (cell ``last`` framed) and the tiles face up before
        placement ``ply``."""
        out = []
        for p in range(self.n):
            ox = p * EST_W
            S = self.estates[p]
            for c in range(K.N_CELLS):
                t = int(S[K.CELLS, c])
                if t >= 0:
                    x, y = _cell_xy(c, ox)
                    out.append(self.use(t, int(S[K.CELLS, K.N_CELLS + c]), x, y))
                    if c == last:
                        out.append(rect(x - 2, y - 2, TW + 4, TH + 4, stroke=HIGHLIGHT, sw=3, rx=3))
            fu = _faceup(self.ts, self.players[p], ply, self.used[p])
            fx = ox + MX + 3 * (TW + GAP) + 8
            if fu is None:
                out.append(text(fx, MY + 12, "(no reveals", size=10, anchor="start", fill="#777"))
                out.append(
                    text(fx, MY + 26, "in the record)", size=10, anchor="start", fill="#777")
                )
            else:
                for k, tid in enumerate(fu):
                    t = self.by_id[tid][0]
                    out.append(self.use(t, 0, fx + (k % 2) * 72, MY + (k // 2) * 40, 66 / TW))
        return "".join(out)

    def place(self, ply: int) -> tuple[int, list[str]]:
        """Every player's placement ``ply`` into the estates: (its cell, the moves' texts)."""
        moves = []
        cell = -1
        for p, pl in enumerate(self.players):
            mv = pl["placements"][ply]
            cell = G.cell_index(mv["cell"])
            t = next(i for i in self.by_id[mv["tile"]] if i in self.free[p])
            self.free[p].remove(t)
            self.used[p][mv["tile"]] += 1
            K.place(self.estates[p], self.tab, cell, t, int(mv["rot"]) // 180, self.log)
            moves.append(f"{mv['cell']} {mv['tile']} {mv['rot']}")
        return cell, moves

    def scoring_note(self, ply: int, rnd: int) -> str:
        """Scoring ``rnd`` after placement ``ply``: each player's points per category, added to
        the totals."""
        rows = []
        for p in range(self.n):
            pts = int(K.score_breakdown(self.estates[p], rnd, self.bd))
            self.totals[p] += pts
            rows.append(
                [self.names[p].split(" (")[0]] + [int(v) for v in self.bd] + [pts, self.totals[p]]
            )
        return (
            f'<div class="note"><b>scoring {rnd}</b> after placement {ply + 1} '
            f"(§3.4): points per category</div>"
            + table(
                ["player"] + [CAT_LABEL[c] for c in K.CAT_NAMES] + ["this scoring", "total"],
                rows,
            )
        )

    def frame(self, ply: int) -> Frame:
        """The frame after placement ``ply``: every player's tile on its cell."""
        cell, moves = self.place(ply)
        notes = ""
        rnd = K.round_of(ply)
        if ply == K.ROUND_END[rnd - 1]:
            notes = self.scoring_note(ply, rnd)
        nxt = ply + 1
        to_move = (
            f"placement {nxt + 1} on {self.players[0]['placements'][nxt]['cell']} "
            f"(round {K.round_of(nxt)})"
            if nxt < self.plies
            else ""
        )
        return Frame(
            svg=self.draw(cell, nxt),
            move=" | ".join(moves),
            actor=f"placement {ply + 1} (round {rnd})",
            to_move=to_move,
            scores=list(self.totals),
            notes=notes,
        )


def frames(record: dict, result: dict) -> Show:
    """Draw the start and every placement index.

    ``record`` has been validated by the game's ``replay``, which gave ``result``.
    """
    g = _Game(record)
    first = g.players[0]["placements"][0]["cell"] if g.plies else ""
    frames_out = [
        Frame(
            svg=g.draw(None, 0),
            to_move=f"placement 1 on {first}" if g.plies else "",
            scores=[0] * g.n,
            notes=_castle_note(record),
        )
    ]
    frames_out += [g.frame(ply) for ply in range(g.plies)]
    sub = (
        f"tile set {g.ts.id} ({g.ts.provenance}); variant "
        + ", ".join(f"{k}={v}" for k, v in g.variant.items())
        + (f"; seed {record['seed']}, game {record['game_index']}" if "seed" in record else "")
        + "; totals "
        + " / ".join(str(v) for v in result["points"])
    )
    return Show(
        game="don-quixote",
        title="Don Quixote",
        width=g.n * EST_W,
        height=EST_H,
        base=_base(g.n, g.names),
        seats=g.names,
        frames=frames_out,
        subtitle=sub,
        legend=LEGEND,
        defs="".join(g.symbols.values()),
    )


def _castle_note(record: dict) -> str:
    """The start's note: the cells of the two castles."""
    c = record["castles"]
    return f'<div class="note">castles: 6 on {esc(c["6"])}, 4 on {esc(c["4"])} (§3.1)</div>'
