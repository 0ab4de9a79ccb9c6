"""Thurn and Taxis drawn turn by turn: the map (rules §1: 22 cities placed from the map file's
board coordinates, coloured by region, the 45 roads), each seat's open route along the roads,
each seat's houses, the six face-up cards of the display, the carriages and the bonus tiles left
in each stack (§2), and the turn in the record's notation.

A ply is one turn of the record. Positions come from the game's own ``replay`` loop: it is run
with its ``Game`` class wrapped so that the kernel state is copied at the end of every turn
(no change to ``replay``; the wrapper only watches ``Game.apply``).
"""

from __future__ import annotations

from dataclasses import dataclass
from unittest import mock

import numpy as np

import kernels.thurn_and_taxis as K
from mcsim.games import thurn_and_taxis as G
from mcsim.games.thurn_and_taxis.records import record_data
from mcsim.show.base import (
    HIGHLIGHT,
    SEAT_DARK,
    SEAT_FILL,
    Frame,
    Show,
    circle,
    esc,
    line,
    rect,
    table,
    text,
)

SCALE = 1.75
MAP_PAD = 50
REGION_FILL = (
    "#f4c7a1",
    "#f7e39a",
    "#d9c3e8",
    "#f2a7a7",
    "#b9e0c9",
    "#a9cdf0",
    "#e6d3a3",
    "#c7e3a1",
    "#e0b4cf",
)
PANEL_H = 150


class _Recorder(G.Game):
    """``Game`` that keeps a copy of the state at the start and after every turn."""

    snapshots: list = []

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        _Recorder.snapshots = [self.st.copy()]

    def apply(self, a: int) -> None:
        turn = int(self.st[K.S_TURN])
        super().apply(a)
        if int(self.st[K.S_TURN]) != turn or self.over:
            while len(_Recorder.snapshots) <= turn + 1:
                _Recorder.snapshots.append(None)
            _Recorder.snapshots[turn + 1] = self.st.copy()


def _turn_states(record: dict) -> list[np.ndarray]:
    with mock.patch.object(G.records, "Game", _Recorder):  # the Game that replay() uses
        G.replay(record)
    snaps = _Recorder.snapshots
    _Recorder.snapshots = []
    return snaps


def _move_text(turn: dict) -> str:
    """A turn in the record's notation."""
    parts = []
    if turn.get("official"):
        parts.append(turn["official"])
    parts.append("draw " + ", ".join(turn.get("draws", [])))
    parts.append("play " + ", ".join(turn.get("plays", [])))
    close = turn.get("close")
    if close:
        how = close.get("mode", "each") + (f" {close['region']}" if close.get("region") else "")
        parts.append(f"close ({how}) houses " + ", ".join(close.get("houses", [])))
    if turn.get("trim"):
        parts.append("trim " + ", ".join(turn["trim"]))
    return "; ".join(parts)


LEGEND = (
    "Cities are coloured by region; dashed lines are the roads (§1.2). Each seat's "
    "open route is a thick line in its colour; its houses are small squares at the "
    "city (one corner per seat). Pink rings: the cities played this turn (dashed) and "
    "the houses placed (solid). Points are the score if the game ended now "
    "(bonus tiles + carriage - houses left, §5)."
)
HOUSE_CORNERS = ((-15, -15), (5, -15), (-15, 5), (5, 5))  # a house's corner at its city, by seat


@dataclass
class _Board:
    """What every frame of one record is drawn with: the data, the page size, the seats."""

    data: dict
    tab: np.ndarray
    players: int
    names: list[str]
    regions: list[str]
    xy0: list
    minx: float
    miny: float
    W: float
    MH: float
    H: float
    seats: list[str]

    def pos(self, c: int) -> tuple[float, float]:
        """City ``c``'s centre on the page."""
        x, y = self.xy0[c]
        return MAP_PAD + 20 + (x - self.minx) * SCALE, MAP_PAD + (y - self.miny) * SCALE

    def region_fill(self, c: int) -> str:
        """The fill colour of city ``c``'s region."""
        r = self.regions.index(self.data["cities"][c]["region"])
        return REGION_FILL[r % len(REGION_FILL)]


def _seat_labels(record: dict, players: int) -> list[str]:
    """Each seat's label: its colour, seat number and the record's policy (if any)."""
    policies = record.get("policies") or []
    return [
        f"{('red', 'blue', 'yellow', 'green')[p]} (seat {p}"
        + (f", {policies[p]})" if p < len(policies) else ")")
        for p in range(players)
    ]


def _board(record: dict) -> _Board:
    """The record's data and tables, the page size from the map's coordinates, the seats."""
    data = record_data(record)
    players = record["players"]
    xy0 = [c["xy"] for c in data["cities"]]
    minx = min(x for x, _ in xy0)
    miny = min(y for _, y in xy0)
    maxx = max(x for x, _ in xy0)
    maxy = max(y for _, y in xy0)
    MH = (maxy - miny) * SCALE + 2 * MAP_PAD
    return _Board(
        data=data,
        tab=G.build_tables(data),
        players=players,
        names=[c["name"] for c in data["cities"]],
        regions=data["regions"],
        xy0=xy0,
        minx=minx,
        miny=miny,
        W=(maxx - minx) * SCALE + 2 * MAP_PAD + 40,
        MH=MH,
        H=MH + PANEL_H,
        seats=_seat_labels(record, players),
    )


def _base_layer(b: _Board) -> str:
    """The static layer: background, roads, cities, the region legend and the panel titles."""
    base = [rect(0, 0, b.W, b.H, fill="#f6f0df"), rect(0, b.MH, b.W, PANEL_H, fill="#ece3c8")]
    for a, c in b.data["edges"]:
        (x1, y1), (x2, y2) = b.pos(a), b.pos(c)
        base.append(line(x1, y1, x2, y2, stroke="#8a7a5a", sw=3, extra='stroke-dasharray="7,4"'))
    for c in range(K.N_CITIES):
        x, y = b.pos(c)
        base.append(circle(x, y, 15, fill=b.region_fill(c), stroke="#555", sw=1.5))
        base.append(text(x, y + 29, b.names[c], size=11, weight="bold", fill="#333"))
    for r, reg in enumerate(b.regions):
        x = 12 + (r % 5) * 150
        y = 14 + (r // 5) * 16
        base.append(rect(x, y - 9, 10, 10, fill=REGION_FILL[r % len(REGION_FILL)], stroke="#555"))
        base.append(text(x + 14, y, reg, size=11, anchor="start"))
    base.append(text(12, b.MH + 18, "display", size=12, anchor="start", weight="bold"))
    base.append(
        text(
            12, b.MH + 86, "bonus tiles (top value / left)", size=12, anchor="start", weight="bold"
        )
    )
    return "".join(base)


def _route(st: np.ndarray, p: int) -> list[int]:
    """Seat ``p``'s open route: its cities in order."""
    lo, hi = int(st[K.S_RLO + p]), int(st[K.S_RHI + p])
    return [int(v) for v in st[K.S_ROUTE + p * 44 + lo : K.S_ROUTE + p * 44 + hi]]


def _draw_routes(b: _Board, st: np.ndarray) -> list[str]:
    """Each seat's open route: a thick line in its colour along the route (offset per seat)."""
    svg = []
    for p in range(b.players):
        off = (p - (b.players - 1) / 2) * 5
        pts = [(b.pos(c)[0] + off, b.pos(c)[1] + off) for c in _route(st, p)]
        if len(pts) >= 2:
            d = "M" + "L".join(f"{x:.1f},{y:.1f}" for x, y in pts)
            svg.append(
                f'<path d="{d}" fill="none" stroke="{SEAT_FILL[p]}" stroke-width="6" '
                f'stroke-linejoin="round" opacity="0.85"/>'
            )
        for x, y in pts:
            svg.append(circle(x, y, 5, fill=SEAT_FILL[p], stroke=SEAT_DARK[p], sw=1))
    return svg


def _draw_houses(b: _Board, st: np.ndarray) -> list[str]:
    """Each seat's houses: small squares around the city, one corner per seat."""
    svg = []
    for p in range(b.players):
        m = int(st[K.S_HOUSES + p])
        for c in range(K.N_CITIES):
            if (m >> c) & 1:
                x, y = b.pos(c)
                dx, dy = HOUSE_CORNERS[p]
                svg.append(rect(x + dx, y + dy, 10, 10, fill=SEAT_FILL[p], stroke="#222", sw=1))
    return svg


def _draw_display(b: _Board, st: np.ndarray) -> list[str]:
    """The six face-up cards (an empty slot dashed), coloured by region."""
    svg = []
    for i in range(K.DISPLAY):
        c = int(st[K.S_DISPLAY + i])
        x = 80 + i * 118
        if c < 0:
            svg.append(
                rect(
                    x,
                    b.MH + 28,
                    110,
                    40,
                    fill="none",
                    stroke="#999",
                    sw=1,
                    rx=4,
                    extra='stroke-dasharray="4,3"',
                )
            )
            continue
        r = b.regions.index(b.data["cities"][c]["region"])
        svg.append(
            rect(
                x,
                b.MH + 28,
                110,
                40,
                fill=REGION_FILL[r % len(REGION_FILL)],
                stroke="#555",
                sw=1,
                rx=4,
            )
        )
        svg.append(text(x + 55, b.MH + 46, b.names[c], size=12, weight="bold"))
        svg.append(text(x + 55, b.MH + 61, b.regions[r], size=9, fill="#444"))
    return svg


def _draw_supply(b: _Board, st: np.ndarray) -> list[str]:
    """The deck and discard counts and each bonus tile stack (top value / tiles left)."""
    deck_left = int(st[K.S_DECK_END] - st[K.S_DECK_TOP])
    svg = [
        text(
            b.W - 12,
            b.MH + 18,
            f"deck {deck_left} cards, discards {int(st[K.S_DISC_N])}",
            size=11,
            anchor="end",
        )
    ]
    for s, stk in enumerate(b.data["stacks"]):
        left = int(st[K.S_STACK + s])
        n0 = len(stk["values"])
        x = 12 + s * 76
        top = stk["values"][n0 - left] if left else "-"
        svg.append(
            rect(
                x,
                b.MH + 94,
                70,
                44,
                fill="#fffaf0" if left else "#ddd",
                stroke="#777",
                sw=1,
                rx=4,
            )
        )
        svg.append(text(x + 35, b.MH + 108, stk["id"].replace("_", " ")[:13], size=9))
        svg.append(text(x + 35, b.MH + 128, f"{top} / {left}", size=13, weight="bold"))
    return svg


def _draw_turn(b: _Board, turn: dict, st: np.ndarray, svg: list[str], notes: list[str]) -> None:
    """The turn just played: rings on the houses placed and the cities played (into ``svg``)
    and the note of a close (into ``notes``)."""
    if turn.get("close"):
        hs = turn["close"].get("houses", [])
        for h in hs:
            x, y = b.pos(b.names.index(h))
            svg.append(circle(x, y, 20, stroke=HIGHLIGHT, sw=3.5))
        notes.append(
            f'<div class="note">closes a route of '
            f"{int(st[K.S_CLOSE_LEN]) or '?'} cards; houses on "
            f"{esc(', '.join(hs)) or 'none'} (§4C)</div>"
        )
    for pl in turn.get("plays", []):
        _, _, city = pl.partition(":")
        if city in b.names:
            x, y = b.pos(b.names.index(city))
            svg.append(circle(x, y, 18, stroke=HIGHLIGHT, sw=3, extra='stroke-dasharray="4,2"'))


def _seat_table(b: _Board, st: np.ndarray) -> str:
    """The table of each seat's carriage, houses left, tile points, hand and open route."""
    rows = []
    for p in range(b.players):
        route = [b.names[c] for c in _route(st, p)]
        rows.append(
            [
                b.seats[p].split(" (")[0],
                int(st[K.S_CARRIAGE + p]) or "-",
                int(st[K.S_HOUSES_LEFT + p]),
                int(st[K.S_TILE_PTS + p]),
                int(st[K.S_HAND_N + p]),
                " - ".join(route) or "-",
            ]
        )
    return table(["seat", "carriage", "houses left", "tile points", "hand", "open route"], rows)


def _frame(b: _Board, k: int, states: list[np.ndarray], turns: list) -> Frame:
    """Frame ``k``: the start (0) or the position after turn ``k - 1``."""
    st = states[k]
    svg = _draw_routes(b, st) + _draw_houses(b, st) + _draw_display(b, st) + _draw_supply(b, st)
    move = actor = ""
    notes = []
    if k > 0 and k - 1 < len(turns):
        turn = turns[k - 1]
        mover = int(turn.get("seat", states[k - 1][K.S_CUR]))
        actor = b.seats[mover].split(" (")[0]
        move = _move_text(turn)
        _draw_turn(b, turn, st, svg, notes)
    sc = np.zeros(K.MAX_SEATS, dtype=np.int64)
    K.score_final(st, b.tab, sc)
    notes.append(_seat_table(b, st))
    over = bool(st[K.S_OVER])
    to_move = "" if over else b.seats[int(st[K.S_CUR])]
    if over:
        notes.insert(
            0,
            f'<div class="note">game over: '
            f"{esc(G.END_REASONS.get(int(st[K.S_END_REASON]), '?'))}</div>",
        )
    return Frame(
        svg="".join(svg),
        move=move,
        actor=actor,
        to_move=to_move,
        scores=[int(sc[p]) for p in range(b.players)],
        notes="".join(notes),
    )


def _subtitle(record: dict, result: dict, players: int, turns: list) -> str:
    """Players, variant, seed and game, turns, and the final scores (and end reason)."""
    variant = G.SPEC.resolve_variant(record.get("variant") or {})
    return (
        f"{players} players; variant "
        + ", ".join(f"{k}={v}" for k, v in variant.items())
        + (f"; seed {record['seed']}, game {record['game_index']}" if "seed" in record else "")
        + f"; {len(turns)} turns; scores "
        + " / ".join(map(str, result["scores"]))
        + (f" ({result['end_reason']})" if result.get("end_reason") else "")
    )


def frames(record: dict, result: dict) -> Show:
    """Draw the start and every turn.

    ``record`` has been validated by the game's ``replay``, which gave ``result``.
    """
    b = _board(record)
    base = _base_layer(b)
    states = _turn_states(record)
    turns = record["turns"]
    out = [_frame(b, k, states, turns) for k in range(len(states))]
    return Show(
        game="thurn-and-taxis",
        title="Thurn and Taxis",
        width=b.W,
        height=b.H,
        base=base,
        seats=b.seats,
        frames=out,
        subtitle=_subtitle(record, result, b.players, turns),
        legend=LEGEND,
    )
