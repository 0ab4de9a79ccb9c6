"""Thurn and Taxis drawn turn by turn: the map (rules §1: 22 cities placed from the map file's
board coordinates, coloured by region, the 45 roads), each seat's open route along the roads,
each seat's houses, the six face-up cards of the display, the carriages and the bonus tiles left
in each stack (§2), and the turn in the record's notation.

A ply is one turn of the record. Positions come from the game's own ``replay`` loop: it is run
with its ``Game`` class wrapped so that the kernel state is copied at the end of every turn
(no change to ``replay``; the wrapper only watches ``Game.apply``).
"""

from __future__ import annotations

from unittest import mock

import numpy as np

import kernels.thurn_and_taxis as K
from mcsim.games import thurn_and_taxis as G
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


def frames(record: dict, result: dict) -> Show:
    """Draw the start and every turn.

    ``record`` has been validated by the game's ``replay``, which gave ``result``.
    """
    data = G._record_data(record)
    tab = G.build_tables(data)
    players = record["players"]
    names = [c["name"] for c in data["cities"]]
    regions = data["regions"]
    xy0 = [c["xy"] for c in data["cities"]]
    minx = min(x for x, _ in xy0)
    miny = min(y for _, y in xy0)
    maxx = max(x for x, _ in xy0)
    maxy = max(y for _, y in xy0)
    W = (maxx - minx) * SCALE + 2 * MAP_PAD + 40
    MH = (maxy - miny) * SCALE + 2 * MAP_PAD
    H = MH + PANEL_H

    def pos(c: int) -> tuple[float, float]:
        x, y = xy0[c]
        return MAP_PAD + 20 + (x - minx) * SCALE, MAP_PAD + (y - miny) * SCALE

    base = [rect(0, 0, W, H, fill="#f6f0df"), rect(0, MH, W, PANEL_H, fill="#ece3c8")]
    for a, b in data["edges"]:
        (x1, y1), (x2, y2) = pos(a), pos(b)
        base.append(line(x1, y1, x2, y2, stroke="#8a7a5a", sw=3, extra='stroke-dasharray="7,4"'))
    for c in range(K.N_CITIES):
        x, y = pos(c)
        r = regions.index(data["cities"][c]["region"])
        base.append(circle(x, y, 15, fill=REGION_FILL[r % len(REGION_FILL)], stroke="#555", sw=1.5))
        base.append(text(x, y + 29, names[c], size=11, weight="bold", fill="#333"))
    # region legend
    for r, reg in enumerate(regions):
        x = 12 + (r % 5) * 150
        y = 14 + (r // 5) * 16
        base.append(rect(x, y - 9, 10, 10, fill=REGION_FILL[r % len(REGION_FILL)], stroke="#555"))
        base.append(text(x + 14, y, reg, size=11, anchor="start"))
    base.append(text(12, MH + 18, "display", size=12, anchor="start", weight="bold"))
    base.append(
        text(12, MH + 86, "bonus tiles (top value / left)", size=12, anchor="start", weight="bold")
    )
    stacks = data["stacks"]
    policies = record.get("policies") or []
    seats = [
        f"{('red', 'blue', 'yellow', 'green')[p]} (seat {p}"
        + (f", {policies[p]})" if p < len(policies) else ")")
        for p in range(players)
    ]
    states = _turn_states(record)
    turns = record["turns"]
    out = []
    for k, st in enumerate(states):
        svg = []
        # routes: a thick line in the seat's colour along the route (offset per seat)
        for p in range(players):
            lo, hi = int(st[K.S_RLO + p]), int(st[K.S_RHI + p])
            route = [int(v) for v in st[K.S_ROUTE + p * 44 + lo : K.S_ROUTE + p * 44 + hi]]
            off = (p - (players - 1) / 2) * 5
            pts = [(pos(c)[0] + off, pos(c)[1] + off) for c in route]
            if len(pts) >= 2:
                d = "M" + "L".join(f"{x:.1f},{y:.1f}" for x, y in pts)
                svg.append(
                    f'<path d="{d}" fill="none" stroke="{SEAT_FILL[p]}" stroke-width="6" '
                    f'stroke-linejoin="round" opacity="0.85"/>'
                )
            for x, y in pts:
                svg.append(circle(x, y, 5, fill=SEAT_FILL[p], stroke=SEAT_DARK[p], sw=1))
        # houses: small squares around the city, one corner per seat
        corners = ((-15, -15), (5, -15), (-15, 5), (5, 5))
        for p in range(players):
            m = int(st[K.S_HOUSES + p])
            for c in range(K.N_CITIES):
                if (m >> c) & 1:
                    x, y = pos(c)
                    dx, dy = corners[p]
                    svg.append(rect(x + dx, y + dy, 10, 10, fill=SEAT_FILL[p], stroke="#222", sw=1))
        # display
        for i in range(K.DISPLAY):
            c = int(st[K.S_DISPLAY + i])
            x = 80 + i * 118
            if c < 0:
                svg.append(
                    rect(
                        x,
                        MH + 28,
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
            r = regions.index(data["cities"][c]["region"])
            svg.append(
                rect(
                    x,
                    MH + 28,
                    110,
                    40,
                    fill=REGION_FILL[r % len(REGION_FILL)],
                    stroke="#555",
                    sw=1,
                    rx=4,
                )
            )
            svg.append(text(x + 55, MH + 46, names[c], size=12, weight="bold"))
            svg.append(text(x + 55, MH + 61, regions[r], size=9, fill="#444"))
        deck_left = int(st[K.S_DECK_END] - st[K.S_DECK_TOP])
        svg.append(
            text(
                W - 12,
                MH + 18,
                f"deck {deck_left} cards, discards {int(st[K.S_DISC_N])}",
                size=11,
                anchor="end",
            )
        )
        for s, stk in enumerate(stacks):
            left = int(st[K.S_STACK + s])
            n0 = len(stk["values"])
            x = 12 + s * 76
            top = stk["values"][n0 - left] if left else "-"
            svg.append(
                rect(
                    x,
                    MH + 94,
                    70,
                    44,
                    fill="#fffaf0" if left else "#ddd",
                    stroke="#777",
                    sw=1,
                    rx=4,
                )
            )
            svg.append(text(x + 35, MH + 108, stk["id"].replace("_", " ")[:13], size=9))
            svg.append(text(x + 35, MH + 128, f"{top} / {left}", size=13, weight="bold"))
        move = actor = ""
        notes = []
        if k > 0 and k - 1 < len(turns):
            turn = turns[k - 1]
            mover = int(turn.get("seat", states[k - 1][K.S_CUR]))
            actor = seats[mover].split(" (")[0]
            move = _move_text(turn)
            if turn.get("close"):
                hs = turn["close"].get("houses", [])
                for h in hs:
                    x, y = pos(names.index(h))
                    svg.append(circle(x, y, 20, stroke=HIGHLIGHT, sw=3.5))
                notes.append(
                    f'<div class="note">closes a route of '
                    f"{int(st[K.S_CLOSE_LEN]) or '?'} cards; houses on "
                    f"{esc(', '.join(hs)) or 'none'} (§4C)</div>"
                )
            for pl in turn.get("plays", []):
                _, _, city = pl.partition(":")
                if city in names:
                    x, y = pos(names.index(city))
                    svg.append(
                        circle(x, y, 18, stroke=HIGHLIGHT, sw=3, extra='stroke-dasharray="4,2"')
                    )
        sc = np.zeros(K.MAX_SEATS, dtype=np.int64)
        K.score_final(st, tab, sc)
        rows = []
        for p in range(players):
            lo, hi = int(st[K.S_RLO + p]), int(st[K.S_RHI + p])
            route = [names[int(v)] for v in st[K.S_ROUTE + p * 44 + lo : K.S_ROUTE + p * 44 + hi]]
            rows.append(
                [
                    seats[p].split(" (")[0],
                    int(st[K.S_CARRIAGE + p]) or "-",
                    int(st[K.S_HOUSES_LEFT + p]),
                    int(st[K.S_TILE_PTS + p]),
                    int(st[K.S_HAND_N + p]),
                    " - ".join(route) or "-",
                ]
            )
        notes.append(
            table(["seat", "carriage", "houses left", "tile points", "hand", "open route"], rows)
        )
        over = bool(st[K.S_OVER])
        to_move = "" if over else seats[int(st[K.S_CUR])]
        if over:
            notes.insert(
                0,
                f'<div class="note">game over: '
                f"{esc(G.END_REASONS.get(int(st[K.S_END_REASON]), '?'))}</div>",
            )
        out.append(
            Frame(
                svg="".join(svg),
                move=move,
                actor=actor,
                to_move=to_move,
                scores=[int(sc[p]) for p in range(players)],
                notes="".join(notes),
            )
        )
    variant = G.SPEC.resolve_variant(record.get("variant") or {})
    sub = (
        f"{players} players; variant "
        + ", ".join(f"{k}={v}" for k, v in variant.items())
        + (f"; seed {record['seed']}, game {record['game_index']}" if "seed" in record else "")
        + f"; {len(turns)} turns; scores "
        + " / ".join(map(str, result["scores"]))
        + (f" ({result['end_reason']})" if result.get("end_reason") else "")
    )
    legend = (
        "Cities are coloured by region; dashed lines are the roads (§1.2). Each seat's "
        "open route is a thick line in its colour; its houses are small squares at the "
        "city (one corner per seat). Pink rings: the cities played this turn (dashed) and "
        "the houses placed (solid). Points are the score if the game ended now "
        "(bonus tiles + carriage - houses left, §5)."
    )
    return Show(
        game="thurn-and-taxis",
        title="Thurn and Taxis",
        width=W,
        height=H,
        base="".join(base),
        seats=seats,
        frames=out,
        subtitle=sub,
        legend=legend,
    )
