"""Words around numbers in text outputs: a count with its noun, singular for one."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` with thousands separators and ``noun``, singular for exactly one:
    ``counted(1, "game")`` is ``"1 game"``, ``counted(1000, "game")`` ``"1,000 games"``.
    ``plural`` is the plural when it is not ``noun + "s"``. Every text output counts games
    (and deals, lineups, rungs, cells) this way, never "1 games".

    >>> counted(1, "game"), counted(2, "deal"), counted(12345, "game")
    ('1 game', '2 deals', '12,345 games')
    """
    word = noun if n == 1 else (plural or noun + "s")
    return f"{n:,} {word}"
