"""El Grande drawn decision by decision: the map (the nine regions and the Castillo of
``mcsim/data/el_grande/board.json`` with their values and borders, rules §1), the caballeros of
each seat in every region and in the Castillo, the King, the Grandes, the mobile scoreboards,
each seat's court and province, the round's power cards and action cards (§3, §6), and the
scorings as they happen (§5, §6).

A ply is one decision of the record (``"decisions"``). The positions come from the kernel's own
replay (``kernels.el_grande.run_logged`` in replay mode, as ``replay`` runs it) with a wide
decision log, in which the kernel writes the position before every decision. The map is
schematic: the regions sit where they lie on the board (north-west Galicia ... south Granada),
joined by the borders of the data file; a region the layout does not know is placed in a free
slot, so a changed data file still draws.
"""

from __future__ import annotations

import numpy as np

import kernels.el_grande as K
from mcsim.games import el_grande as G
from mcsim.games.el_grande.records import decision_log, parse_setup
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

W, H = 820, 560
BW, BH = 170, 112
#: schematic centres of the board's regions (ids of board.json), roughly as on the board
LAYOUT = {
    "GA": (110, 110),
    "PV": (330, 80),
    "AR": (520, 150),
    "CA": (700, 120),
    "OC": (280, 210),
    "NC": (330, 340),
    "VA": (560, 330),
    "SE": (170, 460),
    "GR": (430, 470),
    "CS": (105, 300),
}
SPARE = [(700, 260), (700, 400), (640, 490), (110, 210)]
REGION_FILL = "#f1e2b8"


def _layout(place_ids: list[str]) -> dict[str, tuple[float, float]]:
    spare = iter(SPARE)
    return {pid: LAYOUT.get(pid) or next(spare, (W - 100, H - 60)) for pid in place_ids}


def _crown(x, y) -> str:
    return poly(
        [
            (x - 11, y + 6),
            (x - 11, y - 5),
            (x - 5.5, y + 1),
            (x, y - 9),
            (x + 5.5, y + 1),
            (x + 11, y - 5),
            (x + 11, y + 6),
        ],
        fill="#f5c400",
        stroke="#7a5a00",
        sw=1.5,
    )


def _grande(x, y, seat) -> str:
    return poly(
        [(x - 7, y + 10), (x - 4, y - 2), (x + 4, y - 2), (x + 7, y + 10)],
        fill=SEAT_FILL[seat],
        stroke="#111",
        sw=1.5,
    ) + circle(x, y - 6, 5, fill=SEAT_FILL[seat], stroke="#111", sw=1.5)


def _base(data: dict, pos: dict) -> str:
    board = data["board"]
    out = [rect(0, 0, W, H, fill="#dfe9f2")]
    # a rough coastline around the regions
    out.append(rect(15, 20, W - 30, H - 35, fill="#efe6cf", stroke="#b8a77a", sw=2, rx=60))
    for a, b in board["borders"]:
        (x1, y1), (x2, y2) = pos[a], pos[b]
        out.append(line(x1, y1, x2, y2, stroke="#b8a77a", sw=10, extra='stroke-linecap="round"'))
    for r in board["regions"]:
        x, y = pos[r["id"]]
        out.append(
            rect(x - BW / 2, y - BH / 2, BW, BH, fill=REGION_FILL, stroke="#8a7444", sw=1.5, rx=10)
        )
        out.append(
            text(x - BW / 2 + 8, y - BH / 2 + 16, r["name"], size=13, anchor="start", weight="bold")
        )
        out.append(
            text(
                x + BW / 2 - 8,
                y - BH / 2 + 16,
                "/".join(map(str, r["values"])),
                size=12,
                anchor="end",
                fill="#6a5020",
            )
        )
    c = board["castillo"]
    x, y = pos[c["id"]]
    out.append(rect(x - 50, y - 45, 100, 100, fill="#c9c2b3", stroke="#555", sw=2, rx=4))
    for k in range(4):
        out.append(rect(x - 50 + k * 27, y - 55, 19, 12, fill="#c9c2b3", stroke="#555", sw=2))
    out.append(text(x, y - 28, c["name"], size=13, weight="bold"))
    out.append(text(x, y - 14, "/".join(map(str, c["values"])), size=12, fill="#333"))
    return "".join(out)


def _position_svg(st, data: dict, pos: dict, npl: int, moved: set[int]) -> str:
    board = data["board"]
    pids = data["place_ids"]
    out = []
    for place, pid in enumerate(pids):
        x, y = pos[pid]
        is_castle = place == K.CASTILLO
        if place in moved:
            if is_castle:
                out.append(rect(x - 53, y - 48, 106, 106, stroke=HIGHLIGHT, sw=4, rx=5))
            else:
                out.append(
                    rect(
                        x - BW / 2 - 3,
                        y - BH / 2 - 3,
                        BW + 6,
                        BH + 6,
                        stroke=HIGHLIGHT,
                        sw=4,
                        rx=12,
                    )
                )
        # caballeros: one stack per seat, count written on it
        k = 0
        for p in range(npl):
            n = int(st[K.O_CAB + place * 5 + p])
            if n <= 0:
                continue
            if is_castle:
                cx, cy = x - 36 + (k % 3) * 30, y + 4 + (k // 3) * 26
            else:
                cx, cy = x - BW / 2 + 14 + k * 31, y + 14
            out.append(
                rect(cx - 12, cy - 10, 24, 22, fill=SEAT_FILL[p], stroke=SEAT_DARK[p], sw=1.5, rx=3)
            )
            out.append(
                text(cx, cy + 6, n, size=14, weight="bold", fill="#111" if p == 2 else "#fff")
            )
            k += 1
        if is_castle:
            continue
        if int(st[K.O_KING]) == place:
            out.append(_crown(x + BW / 2 - 20, y + BH / 2 - 18))
        g = 0
        for p in range(npl):
            if int(st[K.O_GRANDE + p]) == place:
                out.append(_grande(x - BW / 2 + 16 + g * 18, y + BH / 2 - 20, p))
                g += 1
        for b in range(2):
            if int(st[K.O_BOARD + b]) == place:
                vals = board["mobile_scoreboards"][b]["values"]
                bx = x + BW / 2 - 56 - b * 8
                out.append(
                    rect(bx - 24, y - BH / 2 + 24, 48, 18, fill="#fff", stroke="#333", sw=1.5, rx=3)
                )
                out.append(
                    text(bx, y - BH / 2 + 37, "/".join(map(str, vals)), size=11, weight="bold")
                )
    return "".join(out)


def _decision(d) -> tuple[int, str, str]:
    if isinstance(d, dict):
        return d.get("seat"), d.get("kind"), d.get("value")
    return tuple(d)


def _frame_notes(st, data, npl, seats, events) -> str:
    rows = []
    for p in range(npl):
        hand = [v for v in range(1, 14) if (int(st[K.O_HAND + p]) >> v) & 1]
        played = int(st[K.O_PLAYED + p])
        rows.append(
            [
                seats[p].split(" (")[0],
                int(st[K.O_COURT + p]),
                int(st[K.O_PROV + p]),
                played or "-",
                " ".join(map(str, hand)),
            ]
        )
    parts = [table(["seat", "court", "province", "power played", "power cards in hand"], rows)]
    cards = []
    for i in range(5):
        c = int(st[K.O_FACE + i])
        if c < 0:
            continue
        row = data["card_rows"][c]
        cards.append([data["card_ids"][c], row["text"]])
    rnd = int(st[K.O_ROUND])
    taken = [
        f"{data['card_ids'][c]} by seat {int(st[K.O_TAKER + c])}"
        for c in range(45)
        if int(st[K.O_TAKEROUND + c]) == rnd and int(st[K.O_TAKER + c]) >= 0 and rnd > 0
    ]
    if cards:
        parts.append(
            f"<div>action cards of round {rnd} still face up:</div>"
            + table(["card", "special action"], cards)
        )
    if taken:
        parts.append(f"<div>taken this round: {esc(', '.join(taken))}</div>")
    order = [int(st[K.O_ORDER + i]) for i in range(npl)]
    if rnd > 0 and any(int(st[K.O_PLAYED + p]) for p in range(npl)):
        parts.append(f"<div>turn order: {esc(' > '.join(f'seat {s}' for s in order))}</div>")
    vh = [
        f"Veto card {v + 1}: seat {int(st[K.O_VETO_HOLDER + v])}"
        for v in range(2)
        if int(st[K.O_VETO_HOLDER + v]) >= 0
    ]
    if vh:
        parts.append(f"<div>{esc('; '.join(vh))}</div>")
    for e in events:
        parts.insert(
            0,
            f'<div class="note"><b>{esc(e["event"])}</b>: scores '
            f"{esc(' / '.join(map(str, e['scores'])))}</div>",
        )
    return "".join(parts)


LEGEND = (
    "Schematic map: regions where they lie on the board, joined along their borders "
    "(board.json), each with its 1st/2nd/3rd values; the Castillo on the left. "
    "Coloured blocks are each seat's caballeros (the number on the block), the crown "
    "is the King, the pawns are the Grandes, white badges the mobile scoreboards. A "
    "pink frame marks the places whose caballeros changed with the decision, or where "
    "the King, a Grande or a scoreboard went. A ply is "
    "one decision of the record (seat, kind, value)."
)


def _replay_states(record: dict, npl: int, variant: dict, decisions: list) -> list:
    """The kernel's position before every decision and after the last (replay mode, wide log)."""
    fixed = parse_setup(record["setup"], npl)
    log4 = decision_log(decisions, players=npl)
    n = len(decisions)
    wide = np.zeros((n, 4 + K.STATE_SIZE), dtype=np.int32)
    wide[:, :4] = log4
    ev = np.zeros((64, 8), dtype=np.int32)
    st, nd, nev, err, eb, ne = K.run_logged(
        np.uint64(0),
        np.int64(0),
        np.int64(npl),
        np.zeros(npl, np.int64),
        np.zeros((npl, len(G.HEURISTIC_PARAMS))),
        G.SPEC.variant_codes(variant),
        G.build_tables(),
        K.MODE_REPLAY,
        wide,
        ev,
        fixed,
    )
    return [wide[j, 4:] for j in range(n)] + [st]


def _seat_names(record: dict, npl: int) -> list[str]:
    """Each seat's colour, number and policy as the page labels it."""
    policies = record.get("policies") or []
    return [
        f"{('red', 'blue', 'yellow', 'green', 'purple')[p]} (seat {p}"
        + (f", {policies[p]})" if p < len(policies) else ")")
        for p in range(npl)
    ]


def _short_game_note(variant: dict, setup: dict) -> str:
    """The note on the skipped rounds of a 6-round game ("" in the 9-round game)."""
    if variant.get("rounds") == "6":
        return (
            " (6-round game: rounds "
            + ", ".join(map(str, setup["short_game_skips"]))
            + " are skipped)"
        )
    return ""


def _changed_places(prev, s, npl: int) -> set[int]:
    """Places whose caballeros changed, or where the King, a Grande or a scoreboard went."""
    moved = {
        pl
        for pl in range(K.NPLACE)
        if any(int(prev[K.O_CAB + pl * 5 + p]) != int(s[K.O_CAB + pl * 5 + p]) for p in range(npl))
    }
    # the King, a Grande or a mobile scoreboard moved: mark where it went
    for off, k in [(K.O_KING, 1), (K.O_GRANDE, npl), (K.O_BOARD, 2)]:
        for i in range(k):
            if int(prev[off + i]) != int(s[off + i]) and 0 <= int(s[off + i]) < K.NPLACE:
                moved.add(int(s[off + i]))
    return moved


def _subtitle(record: dict, npl: int, variant: dict, n: int, result: dict) -> str:
    """The page's subtitle: players, variant, seed and game, decisions and points."""
    return (
        f"{npl} players; variant "
        + ", ".join(f"{k}={v}" for k, v in variant.items())
        + (f"; seed {record['seed']}, game {record['game_index']}" if "seed" in record else "")
        + f"; {n} decisions; points "
        + " / ".join(map(str, result["points"]))
    )


def frames(record: dict, result: dict) -> Show:
    """Draw the start and the position after every decision.

    ``record`` has been validated by the game's ``replay``, which gave ``result``.
    """
    data = G.load_data()
    npl = record["players"]
    variant = G.SPEC.resolve_variant(record.get("variant") or {})
    decisions = record["decisions"]
    n = len(decisions)
    states = _replay_states(record, npl, variant, decisions)
    pos = _layout(data["place_ids"])
    seats = _seat_names(record, npl)
    by_ply: dict[int, list] = {}
    for e in result["scorings"]:
        by_ply.setdefault(int(e["after_decision"]), []).append(e)
    short = _short_game_note(variant, data["board"]["setup"])
    out = []
    for j, s in enumerate(states):
        moved = set()
        move = actor = ""
        if j > 0:
            moved = _changed_places(states[j - 1], s, npl)
            seat, kind, value = _decision(decisions[j - 1])
            move = f"{kind} {value}"
            actor = (
                seats[seat].split(" (")[0]
                if isinstance(seat, int) and 0 <= seat < npl
                else str(seat)
            )
        nxt = ""
        if j < n:
            seat, kind, _ = _decision(decisions[j])
            nxt = f"{seats[seat]}: {kind}"
        rnd = int(s[K.O_ROUND])
        notes = f"<div>round {rnd}{short}</div>" + _frame_notes(
            s, data, npl, seats, by_ply.get(j, [])
        )
        out.append(
            Frame(
                svg=_position_svg(s, data, pos, npl, moved),
                move=move,
                actor=actor,
                to_move=nxt,
                scores=[int(s[K.O_SCORE + p]) for p in range(npl)],
                notes=notes,
            )
        )
    return Show(
        game="el-grande",
        title="El Grande",
        width=W,
        height=H,
        base=_base(data, pos),
        seats=seats,
        frames=out,
        subtitle=_subtitle(record, npl, variant, n, result),
        legend=LEGEND,
    )
