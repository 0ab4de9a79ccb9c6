"""Sacred Hill drawn move by move: the 45 hills (rules §1), forts by colour, each kingdom (§2:
4-connected forts of one colour) outlined, the phase of each seat (§3.1-3.3), the move just made
ringed (a capture also marks the fort taken).

Positions come from ``mcsim.games.sacred_hill.play`` (the kernel's ``apply_move``), after the
whole record is validated by the game's ``replay``.
"""

from __future__ import annotations

import numpy as np

import kernels.sacred_hill as K
from mcsim.games import sacred_hill as G
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

CELL = 64
MARGIN = 40
PHASE_NAMES = {
    K.PHASE_MANOEUVRE: "Manoeuvre",
    K.PHASE_GRACE: "one last Manoeuvre (grace)",
    K.PHASE_BATTLE: "Battle",
}


def _xy(i: int) -> tuple[float, float]:
    """Top-left corner of hill bit ``i`` (row 7 on top, column A on the left)."""
    col, row = i % K.WIDTH, i // K.WIDTH
    return MARGIN + col * CELL, MARGIN + (K.N_ROWS - 1 - row) * CELL


def _base() -> str:
    out = [rect(0, 0, 2 * MARGIN + 7 * CELL, 2 * MARGIN + 7 * CELL, fill="#eef3e2")]
    for i in K.CELLS:
        x, y = _xy(int(i))
        out.append(
            rect(x + 3, y + 3, CELL - 6, CELL - 6, fill="#b9d38c", stroke="#7d9a4f", sw=1.5, rx=14)
        )
        out.append(
            text(x + 10, y + 15, K.CELL_NAMES[int(i)], size=10, anchor="start", fill="#4d6a25")
        )
    for c in range(K.N_COLS):
        out.append(
            text(MARGIN + c * CELL + CELL / 2, MARGIN - 12, K.COL_NAMES[c], size=14, weight="bold")
        )
        out.append(
            text(
                MARGIN + c * CELL + CELL / 2,
                MARGIN + 7 * CELL + 24,
                K.COL_NAMES[c],
                size=14,
                weight="bold",
            )
        )
    for r in range(K.N_ROWS):
        y = MARGIN + (K.N_ROWS - 1 - r) * CELL + CELL / 2 + 5
        out.append(text(MARGIN - 16, y, r + 1, size=14, weight="bold"))
        out.append(text(MARGIN + 7 * CELL + 16, y, r + 1, size=14, weight="bold"))
    return "".join(out)


def _fort_symbol(seat: int) -> str:
    """A ringfort centred on (0, 0): a round wall with four towers, in the seat's colour."""
    out = [
        f'<g id="fort{seat}">',
        circle(0, 0, 19, fill=SEAT_FILL[seat], stroke=SEAT_DARK[seat], sw=2.5),
    ]
    for dx, dy in ((-15, -11), (15, -11), (-15, 11), (15, 11)):
        out.append(
            rect(dx - 5, dy - 5, 10, 10, fill=SEAT_FILL[seat], stroke=SEAT_DARK[seat], sw=1.5)
        )
    out.append(circle(0, 0, 9, fill="#f6efe0", stroke=SEAT_DARK[seat], sw=1.5))
    return "".join(out) + "</g>"


def _fort(i: int, seat: int) -> str:
    x, y = _xy(i)
    return f'<use href="#fort{seat}" x="{x + CELL / 2:.0f}" y="{y + CELL / 2 + 3:.0f}"/>'


def _kingdom_outline(forts: int, seat: int) -> str:
    """The outer edges of every kingdom of ``forts`` (4-connected, §2) as one path, drawn 3 px
    inside the kingdom so that the outlines of touching red and blue kingdoms stay apart."""
    inset = 3

    def inside(c: int, r: int) -> bool:
        return 0 <= c < K.N_COLS and 0 <= r < K.N_ROWS and bool((forts >> (8 * r + c)) & 1)

    segs = []
    for i in _bits(forts):
        c, r = i % K.WIDTH, i // K.WIDTH
        x, y = _xy(i)
        cx, cy = x + CELL / 2, y + CELL / 2
        for dc, dr in ((0, 1), (0, -1), (-1, 0), (1, 0)):  # board directions (row 7 on top)
            if inside(c + dc, r + dr):
                continue
            ox, oy = dc, -dr  # outward, in pixels
            px, py = -oy, ox  # along the edge
            mx, my = cx + ox * (CELL / 2 - inset), cy + oy * (CELL / 2 - inset)
            ends = []
            for sgn in (-1, 1):
                nc, nr = c + sgn * px, r - sgn * py
                if not inside(nc, nr):
                    half = CELL / 2 - inset  # convex corner: meet the side edge
                elif inside(nc + dc, nr + dr):
                    half = CELL / 2 + inset  # concave corner: reach the neighbour's side edge
                else:
                    half = CELL / 2  # straight on along the neighbour's edge
                ends.append((mx + sgn * px * half, my + sgn * py * half))
            (x1, y1), (x2, y2) = ends
            segs.append(f"M{x1:.0f},{y1:.0f}L{x2:.0f},{y2:.0f}")
    if not segs:
        return ""
    return (
        f'<path d="{"".join(segs)}" stroke="{SEAT_DARK[seat]}" stroke-width="4" '
        f'fill="none" stroke-linecap="square"/>'
    )


def _bits(m: int) -> list[int]:
    return [i for i in range(64) if (m >> i) & 1]


def _position_svg(state, last: int | None, captured: int | None) -> str:
    out = []
    forts = [int(state[K.S_FORTS]), int(state[K.S_FORTS + 1])]
    for seat in range(2):
        # tinted background of each kingdom, then the outline
        for i in _bits(forts[seat]):
            x, y = _xy(i)
            out.append(
                rect(x + 1, y + 1, CELL - 2, CELL - 2, fill=SEAT_FILL[seat], extra='opacity="0.18"')
            )
        out.append(_kingdom_outline(forts[seat], seat))
    for seat in range(2):
        for i in _bits(forts[seat]):
            out.append(_fort(i, seat))
    if captured is not None:
        x, y = _xy(captured)
        out.append(line(x + 8, y + 8, x + CELL - 8, y + CELL - 8, stroke="#111", sw=3))
    if last is not None:
        x, y = _xy(last)
        out.append(rect(x + 2, y + 2, CELL - 4, CELL - 4, stroke=HIGHLIGHT, sw=4, rx=14))
    # the hills the player to move may take next (§3.1-3.3): small dots in their colour
    moves, kind = K.legal_moves(state)
    if kind not in (K.KIND_TERMINAL, K.KIND_PASS):
        seat = int(state[K.S_TO_MOVE])
        for i in _bits(int(moves)):
            x, y = _xy(i)
            out.append(
                circle(x + CELL - 12, y + CELL - 12, 4, fill=SEAT_FILL[seat], stroke="#fff", sw=1)
            )
    return "".join(out)


def frames(record: dict, result: dict) -> Show:
    """Draw the start and every ply.

    ``record`` has been validated by the game's ``replay``, which gave ``result``.
    """
    variant = G.SPEC.resolve_variant(record.get("variant") or {})
    policies = record.get("policies") or []
    seats = [
        f"red (seat 0{', ' + policies[0] if policies else ''})",
        f"blue (seat 1{', ' + policies[1] if len(policies) > 1 else ''})",
    ]
    state = np.zeros(K.S_SIZE, np.uint64)
    out = [
        Frame(
            svg=_position_svg(state, None, None),
            to_move=seats[0],
            scores=[0, 0],
            notes=_notes(state, seats),
        )
    ]
    for text_move in record["moves"]:
        mover = int(state[K.S_TO_MOVE])
        before_opp = int(state[K.S_FORTS + 1 - mover])
        G.play(state, text_move, variant)
        last = captured = None
        if text_move != "pass":
            last = G.parse_move(text_move)
            if (before_opp >> last) & 1:
                captured = last
        fin = bool(K.is_terminal(state))
        pts = [0, 0]
        if fin:
            arr = np.zeros(2, np.int64)
            K.score_final(state, arr)
            pts = [int(arr[0]), int(arr[1])]
        note = ""
        if captured is not None:
            note = (
                f'<div class="note">captures the {("red", "blue")[1 - mover]} fort on '
                f"{esc(text_move)} (§3.3)</div>"
            )
        out.append(
            Frame(
                svg=_position_svg(state, last, captured),
                move=text_move,
                actor=seats[mover].split(" (")[0],
                to_move="" if fin else seats[int(state[K.S_TO_MOVE])],
                scores=pts,
                notes=note + _notes(state, seats),
            )
        )
    sub = (
        f"variant {', '.join(f'{k}={v}' for k, v in variant.items())}"
        + (f"; seed {record['seed']}, game {record['game_index']}" if "seed" in record else "")
        + f"; {len(record['moves'])} plies"
        + (
            f"; final points {result['points'][0]} / {result['points'][1]}"
            if result["finished"]
            else "; unfinished"
        )
    )
    legend = (
        '<span class="sw" style="background:#d7263d"></span>red forts (seat 0, moves '
        'first) <span class="sw" style="background:#1b6ec2"></span>blue forts (seat 1); '
        "thick lines outline each kingdom (orthogonally linked forts, §2); the pink ring "
        "is the move just made; a black stroke marks a capture (§3.3); small dots mark the "
        "hills the player to move may take. Points are scored "
        "at the end only (§3.5): 2 + the kingdom (or territory) difference to the winner."
    )
    w = 2 * MARGIN + 7 * CELL
    return Show(
        game="sacred-hill",
        title="Sacred Hill",
        width=w,
        height=w,
        base=_base(),
        seats=seats,
        frames=out,
        subtitle=sub,
        legend=legend,
        defs=_fort_symbol(0) + _fort_symbol(1),
    )


def _notes(state, seats) -> str:
    rows = []
    for s in range(2):
        forts = int(state[K.S_FORTS + s])
        rows.append(
            [
                seats[s].split(" (")[0],
                int(K.count_kingdoms(np.uint64(forts))),
                bin(forts).count("1"),
                int(state[K.S_CAPTURES + s]),
                PHASE_NAMES.get(int(state[K.S_PHASE + s]), "?"),
            ]
        )
    return table(["seat", "kingdoms", "territory", "captures", "phase"], rows)
