"""Declare a flat state array's named slots once, in order, with no offset typed by hand.

Every game kernel keeps its state in NumPy arrays whose slots are reached by module-level integer
constants (Numba reads module globals as compile-time constants, so ``state[S_TO_MOVE]`` costs
nothing). A game's ``layout.py`` declares those constants with :class:`StateLayout`: each
:meth:`StateLayout.field` call takes the next free offset, so reordering or resizing a field
moves everything after it consistently, and :meth:`StateLayout.table` renders the layout as a
table that ``layout.py`` appends to its own docstring (``help(kernels.<game>.layout)`` shows it).

Example::

    STATE = StateLayout("state", "uint64[S_SIZE]: one game of Sacred Hill")
    S_FORTS = STATE.field("S_FORTS", 2, "forts bitboard, + seat")
    S_TO_MOVE = STATE.field("S_TO_MOVE", 1, "seat to move")
    S_SIZE = STATE.size
    STATE.verify(globals())
    __doc__ += STATE.table()

No Numba here: this module runs once, at import, in plain Python.
"""

from __future__ import annotations


class StateLayout:
    """Consecutive named slots of one array (offsets in elements, widths >= 1).

    Raises ``ValueError`` on a repeated name, a width below 1, or (in :meth:`verify`) a module
    constant that does not hold the offset declared under its name.
    """

    def __init__(self, array: str, description: str = "", start: int = 0) -> None:
        self.array = array
        self.description = description
        self.size = int(start)
        self.fields: list[tuple[str, int, int, str]] = []

    def field(self, name: str, width: int = 1, doc: str = "") -> int:
        """Append a field of ``width`` slots; return its offset (the next free slot)."""
        if any(f[0] == name for f in self.fields):
            raise ValueError(f"{self.array}: field {name} declared twice")
        width = int(width)
        if width < 1:
            raise ValueError(f"{self.array}: field {name} has width {width}, needs >= 1")
        offset = self.size
        self.fields.append((name, offset, width, doc))
        self.size += width
        return offset

    def offsets(self) -> dict[str, int]:
        """``{name: offset}`` in declaration order."""
        return {name: offset for name, offset, _, _ in self.fields}

    def verify(self, namespace: dict) -> None:
        """Check that every declared name is bound in ``namespace`` (a module's ``globals()``) to
        its offset: a constant assigned under another name than the one declared fails here."""
        for name, offset, _, _ in self.fields:
            if namespace.get(name) != offset:
                raise ValueError(
                    f"{self.array}: {name} is bound to {namespace.get(name)!r}, declared at {offset}"
                )

    def table(self) -> str:
        """The layout as a reStructuredText table (for the module docstring)."""
        rows = [("offset", "width", "name", "meaning")]
        rows += [(str(o), str(w), n, d) for n, o, w, d in self.fields]
        widths = [max(len(r[k]) for r in rows) for k in range(4)]
        rule = "  ".join("=" * w for w in widths)
        lines = [rule, "  ".join(c.ljust(w) for c, w in zip(rows[0], widths)).rstrip(), rule]
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows[1:]]
        lines.append(rule)
        head = f"\n\n``{self.array}`` ({self.size} slots)"
        if self.description:
            head += f": {self.description}"
        return head + "\n\n" + "\n".join(lines) + "\n"
