"""Carcassonne (with The Gifts) drawn turn by turn: the placed tiles with their cities (pennants),
roads and monasteries (rules §1-§2, from ``mcsim/data/carcassonne/tiles.json`` through the
kernel's rotated tile tables), meeples by colour (knights in cities, thieves on roads, monks,
farmers lying in fields), completed features marked (§3.2 step 3), the gift cards each player
holds, and the gift opened or received in the turn (§4).

A ply is one turn of the record. The position after turn k is the kernel's own replay
(``kernels.carcassonne.replay_state``, ``MODE_REPLAY``) of the record's first k turns (a record
cut short replays as unfinished), after the game's ``replay`` has validated the whole record.
"""

from __future__ import annotations

import numpy as np

import kernels.carcassonne as K
from mcsim.games import carcassonne as G
from mcsim.games.carcassonne.records import record_start_meeple, record_to_arrays
from mcsim.show.base import (
    HIGHLIGHT,
    SEAT_DARK,
    SEAT_FILL,
    Frame,
    Show,
    circle,
    esc,
    line,
    poly,
    rect,
    table,
    text,
)

C = 64  # tile size
PAD = 24
CITY, CITY_DONE = "#d69a52", "#9c5a1c"
ROAD_DONE = "#5a3d1e"


def _corner(d: int, which: int, x: float, y: float) -> tuple[float, float]:
    """The two corners of side ``d`` (N E S W) of the tile at (x, y), clockwise."""
    pts = [(x, y), (x + C, y), (x + C, y + C), (x, y + C)]
    return pts[(d + which) % 4]


def _mid(d: int, x: float, y: float, depth: float = 0.0) -> tuple[float, float]:
    """Midpoint of side ``d`` moved ``depth`` (fraction of C) towards the centre."""
    mx = [0.5, 1.0, 0.5, 0.0][d]
    my = [0.0, 0.5, 1.0, 0.5][d]
    mx += (0.5 - mx) * 2 * depth
    my += (0.5 - my) * 2 * depth
    return x + mx * C, y + my * C


def _port(p: int, x: float, y: float, inset: float = 0.14) -> tuple[float, float]:
    """Field port ``p`` (0..7 clockwise from the north-west corner, §1.1), inset into the tile."""
    u = [
        (0.28, inset),
        (0.72, inset),
        (1 - inset, 0.28),
        (1 - inset, 0.72),
        (0.72, 1 - inset),
        (0.28, 1 - inset),
        (inset, 0.72),
        (inset, 0.28),
    ][p]
    return x + u[0] * C, y + u[1] * C


def _segment_sides(T, t: int, r: int, s: int) -> list[int]:
    side_seg = T[K.TB_SIDE_SEG]
    return [d for d in range(4) if side_seg[t, r, d] == s]


def _tile(
    T, t: int, r: int, x: float, y: float, done: dict, letter: str, only: set | None = None
) -> str:
    """Tile type ``t`` at rotation ``r``; ``done[s]`` True when segment s's feature is complete.
    ``only``: draw just these segments (no background), to mark completed features over the
    tile's symbol."""
    nseg, seg_kind, seg_pen, cl_seg = (
        T[K.TB_NSEG],
        T[K.TB_SEG_KIND],
        T[K.TB_SEG_PEN],
        T[K.TB_CL_SEG],
    )
    out = [] if only is not None else [rect(x, y, C, C, fill="#8fbf5a", stroke="#5d7f37", sw=0.8)]
    cx, cy = x + C / 2, y + C / 2
    # cities
    for s in range(nseg[t]):
        if seg_kind[t, s] != K.KIND_CITY or (only is not None and s not in only):
            continue
        sides = _segment_sides(T, t, r, s)
        col = CITY_DONE if done.get(s) else CITY
        if len(sides) == 1:
            d = sides[0]
            a, b = _corner(d, 0, x, y), _corner(d, 1, x, y)
            depth = _mid(d, x, y, 0.34)  # the cap's curve reaches a third of the way in
            qx = 2 * depth[0] - (a[0] + b[0]) / 2
            qy = 2 * depth[1] - (a[1] + b[1]) / 2
            out.append(
                f'<path d="M{a[0]:.1f},{a[1]:.1f} Q{qx:.1f},{qy:.1f} {b[0]:.1f},{b[1]:.1f} Z" '
                f'fill="{col}" stroke="#6b4a1e" stroke-width="1"/>'
            )
        else:
            pts = []
            for d in range(4):
                if d in sides:
                    pts += [_corner(d, 0, x, y), _corner(d, 1, x, y)]
                else:
                    pts.append(_mid(d, x, y, 0.3 if len(sides) < 4 else 0.0))
            out.append(poly(pts, fill=col, stroke="#6b4a1e", sw=1))
        if seg_pen[t, s]:
            sides = _segment_sides(T, t, r, s)
            px, py = _mid(sides[0], x, y, 0.22)
            if len(sides) > 1:
                px, py = (px + cx) / 2, (py + cy) / 2
            out.append(
                poly(
                    [
                        (px - 6, py - 6),
                        (px + 6, py - 6),
                        (px + 6, py + 2),
                        (px, py + 7),
                        (px - 6, py + 2),
                    ],
                    fill="#1f4fa8",
                    stroke="#fff",
                    sw=1,
                )
            )
    # roads
    for s in range(nseg[t]):
        if seg_kind[t, s] != K.KIND_ROAD or (only is not None and s not in only):
            continue
        sides = _segment_sides(T, t, r, s)
        col = ROAD_DONE if done.get(s) else "#f7f2e4"
        if len(sides) == 2:
            a, b = _mid(sides[0], x, y), _mid(sides[1], x, y)
            d = f"M{a[0]:.1f},{a[1]:.1f} Q{cx:.1f},{cy:.1f} {b[0]:.1f},{b[1]:.1f}"
        else:
            d = "".join(
                f"M{_mid(sd, x, y)[0]:.1f},{_mid(sd, x, y)[1]:.1f}L{cx:.1f},{cy:.1f}"
                for sd in sides
            )
        out.append(
            f'<path d="{d}" fill="none" stroke="#4a4a3a" stroke-width="7"/>'
            f'<path d="{d}" fill="none" stroke="{col}" stroke-width="4.5"/>'
        )
        if len(sides) != 2:
            out.append(rect(cx - 5, cy - 5, 10, 10, fill="#b33a2b", stroke="#333", sw=1))
    cs = cl_seg[t]
    if cs >= 0 and (only is None or int(cs) in only):
        fill = "#e8d9b0" if not done.get(int(cs)) else "#f5c542"
        out.append(rect(cx - 11, cy - 6, 22, 16, fill=fill, stroke="#444", sw=1))
        out.append(
            poly(
                [(cx - 13, cy - 6), (cx, cy - 16), (cx + 13, cy - 6)],
                fill="#b33a2b",
                stroke="#444",
                sw=1,
            )
        )
        out.append(line(cx, cy - 22, cx, cy - 16, stroke="#444", sw=1.5))
    if only is None:
        out.append(text(x + 3, y + C - 3, letter, size=8, anchor="start", fill="#2c3e13"))
    return "".join(out)


def _meeple_at(T, t: int, r: int, s: int, x: float, y: float) -> tuple[float, float, bool]:
    """Where a meeple on segment ``s`` stands (and whether it lies down: a farmer)."""
    kind = T[K.TB_SEG_KIND][t, s]
    if kind == K.KIND_CLOISTER:
        return x + C / 2, y + C / 2 + 12, False
    if kind == K.KIND_FIELD:
        ports = [p for p in range(8) if T[K.TB_PORT_SEG][t, r, p] == s]
        pts = [_port(p, x, y) for p in ports]
        return (sum(a for a, _ in pts) / len(pts), sum(b for _, b in pts) / len(pts), True)
    sides = _segment_sides(T, t, r, s)
    if kind == K.KIND_ROAD:
        return (*_mid(sides[0], x, y, 0.3), False)
    pts = [_mid(d, x, y, 0.18) for d in sides]
    px, py = sum(a for a, _ in pts) / len(pts), sum(b for _, b in pts) / len(pts)
    return px, py, False


def _meeple(px: float, py: float, lying: bool, seat: int) -> str:
    f, d = SEAT_FILL[seat], SEAT_DARK[seat]
    if lying:  # a farmer lies down
        return (
            f'<ellipse cx="{px:.1f}" cy="{py:.1f}" rx="10" ry="5" fill="{f}" stroke="{d}" '
            f'stroke-width="1.5"/>' + circle(px - 10, py, 3.5, fill=f, stroke=d, sw=1.2)
        )
    pts = [
        (px - 7, py + 8),
        (px - 2.5, py),
        (px - 8, py - 2),
        (px - 3.5, py - 5),
        (px, py - 10),
        (px + 3.5, py - 5),
        (px + 8, py - 2),
        (px + 2.5, py),
        (px + 7, py + 8),
    ]
    return poly(pts, fill=f, stroke=d, sw=1.5) + circle(px, py - 9, 3.5, fill=f, stroke=d, sw=1.2)


def state_after_turns(players, codes, T, tscript, gscript, rows, start_seg=-1):
    """The kernel's game state after replaying the record turns ``rows`` (from the start;
    ``start_seg``: the record's start-tile meeple, ``record_start_meeple``)."""
    return K.replay_state(
        players, codes, T, tscript, gscript, np.ascontiguousarray(rows), start_seg
    )[0]


def _move_text(turn: dict) -> str:
    """A turn in the record's notation: ``V 1,0 r1 meeple road0 | open cash_out ... | received
    synod``."""
    x, y, r = turn["place"]
    parts = [f"{turn['tile']} {x},{y} r{r}"]
    if turn.get("meeple") is not None:
        parts.append(f"meeple {turn['meeple']}")
    gift = turn.get("gift")
    if gift:
        args = " ".join(f"{k}={v}" for k, v in gift.items() if k != "open")
        parts.append(f"open {gift['open']}" + (f" {args}" if args else ""))
    if turn.get("received"):
        parts.append(f"received {turn['received']}")
    return " | ".join(parts)


LEGEND = (
    "Tiles as laid (x east, y south from the start tile D at 0,0): tan cities "
    "(dark brown once completed), blue pennants, light roads (dark once completed; a "
    "red square is a junction), monasteries (gold once surrounded). Meeples stand in "
    "their seat's colour; farmers lie in their field. The pink frame is the tile just "
    "placed. Points are the running score; farms and incomplete features are added "
    "at the end (§3.3)."
)


def _seat_names(record: dict, players: int) -> list[str]:
    """Each seat's colour, number and policy as the page labels it."""
    policies = record.get("policies") or []
    return [
        f"{('red', 'blue', 'yellow', 'green', 'purple')[p]} (seat {p}"
        + (f", {policies[p]})" if p < len(policies) else ")")
        for p in range(players)
    ]


def _board_extent(last) -> tuple[int, int, int, int]:
    """The final position's board: its west and north cells ``x0, y0`` and the page's size."""
    n_final = int(last.sc[K.S_NPLACED])
    xs, ys = [], []
    for i in range(n_final):
        x, y = K.cell_xy(int(last.tinfo[i, 2]))
        xs.append(x)
        ys.append(y)
    x0, y0 = min(xs), min(ys)
    w = (max(xs) - x0 + 1) * C + 2 * PAD
    h = (max(ys) - y0 + 1) * C + 2 * PAD
    return x0, y0, w, h


def _position_svg(S, T, letters, players: int, x0: int, y0: int, symbols: dict) -> list[str]:
    """The tiles (completed features dark) and meeples of a state; new tile symbols into
    ``symbols``."""

    def pos(cell: int) -> tuple[float, float]:
        x, y = K.cell_xy(cell)
        return PAD + (x - x0) * C, PAD + (y - y0) * C

    tinfo, parent, fint, mnode = S.tinfo, S.parent.copy(), S.fint, S.mnode
    n = int(S.sc[K.S_NPLACED])
    svg = []
    for i in range(n):
        t, r, cell = (int(v) for v in tinfo[i])
        done = {
            s: bool(fint[K.find(parent, i * K.MAX_SEG + s), K.F_DONE])
            for s in range(int(T[K.TB_NSEG][t]))
            if T[K.TB_SEG_KIND][t, s] != K.KIND_FIELD
        }
        x, y = pos(cell)
        if (t, r) not in symbols:
            symbols[(t, r)] = f'<g id="cc{t}_{r}">' + _tile(T, t, r, 0, 0, {}, letters[t]) + "</g>"
        svg.append(f'<use href="#cc{t}_{r}" x="{x:.0f}" y="{y:.0f}"/>')
        finished = {s for s, v in done.items() if v}
        if finished:  # completed features drawn dark over the symbol
            svg.append(_tile(T, t, r, x, y, done, letters[t], only=finished))
    for p in range(players):
        for m in range(K.MAX_MEEPLES):
            nd = int(mnode[p, m])
            if nd < 0:
                continue
            i, s = divmod(nd, K.MAX_SEG)
            t, r, cell = (int(v) for v in tinfo[i])
            svg.append(_meeple(*_meeple_at(T, t, r, s, *pos(cell)), p))
    return svg


def _gift_notes(turn: dict) -> list[str]:
    """The notes on the gift a turn opened and the gift card it received."""
    notes = []
    if turn.get("gift"):
        notes.append(
            f'<div class="note">opened the gift <b>{esc(turn["gift"]["open"])}</b> (§4.3-4.4)</div>'
        )
    if turn.get("received"):
        notes.append(
            f'<div class="note">received a gift card: <b>{esc(turn["received"])}</b> (§4.2)</div>'
        )
    return notes


def _seat_tables(S, players: int, seats: list[str], gifts_on: bool) -> list[str]:
    """The tables of each seat's meeples left and points by category, and gift cards held."""
    brk, hand, mnode = S.brk, S.hand, S.mnode
    head = ["seat", "meeples left"] + list(G.CATEGORIES[:4] if not gifts_on else G.CATEGORIES)
    rows_t = []
    for p in range(players):
        left = int(sum(1 for m in range(K.MAX_MEEPLES) if mnode[p, m] == -1))
        rows_t.append(
            [seats[p].split(" (")[0], left] + [int(brk[p, c]) for c in range(len(head) - 2)]
        )
    out = [table(head, rows_t)]
    if gifts_on:
        held = [
            [seats[p].split(" (")[0]] + [int(hand[p, g]) for g in range(K.N_GIFT)]
            for p in range(players)
        ]
        out.append("<div>gift cards held:</div>" + table(["seat"] + list(G.GIFT_IDS), held))
    return out


def _final_scoring_note(gifts_on: bool) -> str:
    """The note that the final scoring is done (§3.3, with the gifts §4.5)."""
    return (
        '<div class="note">final scoring done: incomplete features, farms'
        + (", unopened gifts" if gifts_on else "")
        + " (§3.3"
        + (", §4.5" if gifts_on else "")
        + ")</div>"
    )


def _subtitle(record: dict, players: int, variant: dict, turns: list, result: dict) -> str:
    """The page's subtitle: players, variant, seed and game, turns and points."""
    return (
        f"{players} players; variant "
        + ", ".join(f"{k}={v}" for k, v in variant.items())
        + (f"; seed {record['seed']}, game {record['game_index']}" if "seed" in record else "")
        + f"; {len(turns)} turns; points "
        + " / ".join(map(str, result["points"]))
        + ("" if result["finished"] else " (unfinished)")
    )


def frames(record: dict, result: dict) -> Show:
    """Draw the start and every turn.

    ``record`` has been validated by the game's ``replay``, which gave ``result``.
    """
    players, variant, tscript, gscript, rows = record_to_arrays(record)
    data = G.load_data()
    letters = [t["letter"] for t in data["tiles"]]
    T = G.tables_for_variant(G.default_tables(), variant, players)
    codes = G.SPEC.variant_codes(variant)
    gifts_on = variant.get("gifts") == "true"
    seats = _seat_names(record, players)
    turns = record["turns"]
    start_seg = record_start_meeple(record)
    first = 1 if G.start_meeple_in_play(variant, players) else 0  # §6 #21: seat 1 draws first
    states = [
        state_after_turns(players, codes, T, tscript, gscript, rows[:k], start_seg)
        for k in range(len(turns) + 1)
    ]
    x0, y0, w, h = _board_extent(states[-1])
    out = []
    symbols: dict[tuple[int, int], str] = {}  # one SVG symbol per (tile type, rotation)
    for k, S in enumerate(states):
        svg = _position_svg(S, T, letters, players, x0, y0, symbols)
        move = actor = ""
        notes = []
        if k > 0:
            turn = turns[k - 1]
            x, y, r = turn["place"]
            px, py = PAD + (x - x0) * C, PAD + (y - y0) * C
            svg.append(rect(px - 1.5, py - 1.5, C + 3, C + 3, stroke=HIGHLIGHT, sw=3.5))
            move = _move_text(turn)
            actor = seats[(k - 1 + first) % players].split(" (")[0]
            notes += _gift_notes(turn)
        elif first:
            notes.append(
                f'<div class="note">{esc(seats[0].split(" (")[0])} put a meeple on the start '
                f"tile ({esc(record['start_meeple'])}): tournament start balance (§6 #21)</div>"
            )
        notes += _seat_tables(S, players, seats, gifts_on)
        fin = bool(S.sc[K.S_FINISHED])
        to_move = "" if fin or k == len(turns) else seats[(k + first) % players]
        if k == len(turns) and not fin:
            to_move = f"{seats[(k + first) % players]} (the record stops here)"
        if fin and k == len(turns):
            notes.insert(0, _final_scoring_note(gifts_on))
        out.append(
            Frame(
                svg="".join(svg),
                move=move,
                actor=actor,
                to_move=to_move,
                scores=[int(S.score[p]) for p in range(players)],
                notes="".join(notes),
            )
        )
    return Show(
        game="carcassonne",
        title="Carcassonne" + (" with The Gifts" if gifts_on else ""),
        width=w,
        height=h,
        base=rect(0, 0, w, h, fill="#e9efe0"),
        seats=seats,
        frames=out,
        subtitle=_subtitle(record, players, variant, turns, result),
        legend=LEGEND,
        defs="".join(symbols.values()),
    )
