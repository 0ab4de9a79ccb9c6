"""The frame model of ``mcsim show`` and small SVG helpers shared by the drawers."""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

#: seat colours (seat 0 first): fill and a darker stroke; Sacred Hill uses the first two
SEAT_FILL = ("#d7263d", "#1b6ec2", "#f2b705", "#2e933c", "#7b3fa0")
SEAT_DARK = ("#8c1020", "#0d3f75", "#8a6500", "#175a21", "#45205c")
SEAT_NAMES = ("red", "blue", "yellow", "green", "purple")
HIGHLIGHT = "#ff00d4"  # the move just made


@dataclass
class Frame:
    """One position of the game (the start, or after one ply).

    ``svg``: the position's SVG elements, drawn over the game's static ``Show.base`` layer;
    ``move``: the ply just made in the record's notation ("" at the start); ``actor``: who made
    it; ``to_move``: whose turn it is now ("" when the game is over); ``scores``: points so far
    per seat; ``notes``: HTML with the game's own details (phase, scoring breakdowns, ...).
    """

    svg: str
    move: str = ""
    actor: str = ""
    to_move: str = ""
    scores: list = field(default_factory=list)
    notes: str = ""


@dataclass
class Show:
    """A whole game to draw: static board layer, seat names and one ``Frame`` per position."""

    game: str
    title: str
    width: float
    height: float
    base: str
    seats: list[str]
    frames: list[Frame]
    subtitle: str = ""
    legend: str = ""
    colours: tuple = SEAT_FILL
    defs: str = ""  # reusable SVG pieces (``<g id=...>``), drawn with ``<use href="#id">``


def esc(text) -> str:
    """HTML/SVG-escape any value."""
    return escape(str(text), quote=True)


def text(x, y, s, size=12, anchor="middle", fill="#222", weight="normal", extra="") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
        f'fill="{fill}" font-weight="{weight}" {extra}>{esc(s)}</text>'
    )


def rect(x, y, w, h, fill="none", stroke="none", sw=1, rx=0, extra="") -> str:
    return (
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{rx}" '
        f'fill="{fill}" stroke="{stroke}" stroke-width="{sw}" {extra}/>'
    )


def circle(cx, cy, r, fill="none", stroke="none", sw=1, extra="") -> str:
    return (
        f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{r:.1f}" fill="{fill}" stroke="{stroke}" '
        f'stroke-width="{sw}" {extra}/>'
    )


def line(x1, y1, x2, y2, stroke="#222", sw=1, extra="") -> str:
    return (
        f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{stroke}" '
        f'stroke-width="{sw}" {extra}/>'
    )


def poly(points, fill="none", stroke="none", sw=1, extra="") -> str:
    pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    return f'<polygon points="{pts}" fill="{fill}" stroke="{stroke}" stroke-width="{sw}" {extra}/>'


def table(head: list, rows: list[list], cls: str = "") -> str:
    """A small HTML table (cells escaped)."""
    h = "".join(f"<th>{esc(c)}</th>" for c in head)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f'<table class="{cls}"><tr>{h}</tr>{body}</table>'


def seat_label(k: int, policies=None) -> str:
    pol = f" ({policies[k]})" if policies and k < len(policies) else ""
    return f"seat {k}{pol}"
