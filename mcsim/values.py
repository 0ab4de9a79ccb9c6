"""The one parser of numbers typed by a user: flags, ``--option`` values, policy parameters,
plan entries and the keywords of the Python API all go through these functions.

Whole numbers (``docs/usage.md``, "Options, errors, Python"): ASCII digits with optional ``_``
between digits (``1_000_000``) and an optional sign, also written with a decimal point or in
``1e6`` form when the value is exactly whole (``2.5e3`` is 2500, ``10.0`` is 10; ``1.5`` and
``1e-3`` are not whole), so a count reads the same as a whole-valued policy parameter. Full-width or other non-ASCII digits,
``0x10``, ``10**6`` and spaces inside are refused. Every whole number is at most
``INT64_MAX`` (2**63 - 1, the kernels' integer) unless its own limit says otherwise (seeds are
below 2**64). From Python, a whole number is an ``int`` (or numpy integer); ``True``, floats and
strings are refused by type.

Real numbers (policy parameters): Python's float syntax in ASCII (``0.1``, ``-2``, ``1e-3``,
``1_000.5``); non-finite values (``inf``, ``nan``, and ``1e400``, which overflows) are refused,
the message giving the value as written.

Every refusal is one ``BadValueError`` (a ``ConfigError``) whose message starts with the name
it is given: ``games=`` for a Python keyword, ``--games`` for a flag, ``option max_turns`` for a
game option, ``'games'`` for a plan key.
"""

from __future__ import annotations

import contextvars
import math
import os
import re
from dataclasses import dataclass

import numpy as np

from mcsim.errors import BadValueError

#: the largest whole number anywhere (the kernels' int64)
INT64_MAX = 2**63 - 1

_DIGITS = r"[0-9](?:_?[0-9])*"
_WHOLE_RE = re.compile(
    rf"([+-]?)({_DIGITS})(?:\.({_DIGITS}))?(?:[eE](?:\+|-(?=[0_]+$))?({_DIGITS}))?", re.ASCII
)
_REAL_RE = re.compile(
    rf"[+-]?(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?", re.ASCII
)
#: the largest exponent of a ``1e6``-style whole number read exactly (beyond: out of range)
_MAX_EXPONENT = 40

WHOLE_RULE = "ASCII digits, optionally with _ separators or in 1e6 form"

#: how messages name an input: "python" (the keyword, ``games=``) or "cli" (the flag,
#: ``--games``); the command line sets "cli" while a command runs (``speaking_cli``)
_NAMING: contextvars.ContextVar[str] = contextvars.ContextVar("mcsim_naming", default="python")
#: the flag of a Python keyword whose name is not ``--`` + the keyword with ``-`` for ``_``
_FLAGS = {
    "out_dir": "--out",
    "policies": "--policy",
    "variant": "--variant",
    "k": "--tileset-ensemble",
    "params": "--param",
    "options": "--option",
}


def speaking_cli() -> contextvars.Token:
    """From now on (in this context) messages name flags instead of keywords; returns the
    token for ``_NAMING.reset``. Called by the command line for each command."""
    return _NAMING.set("cli")


def reset_naming(token: contextvars.Token) -> None:
    """Undo ``speaking_cli`` (the command ended)."""
    _NAMING.reset(token)


def on_cli() -> bool:
    """True while the command line runs a command (messages name flags, ``speaking_cli``)."""
    return _NAMING.get() == "cli"


def label(keyword: str, value=None) -> str:
    """How a message names the input ``keyword`` (a keyword of the Python API): ``games=`` from
    Python, ``--games`` on the command line; with ``value``, the input given that value
    (``backend='dask'`` / ``--backend dask``).

    >>> label("chunk_size"), label("backend", "dask")
    ('chunk_size=', "backend='dask'")
    """
    if on_cli():
        flag = _FLAGS.get(keyword, "--" + keyword.replace("_", "-"))
        return flag if value is None else f"{flag} {value}"
    return f"{keyword}=" if value is None else f"{keyword}={value!r}"


def _type_name(value) -> str:
    return type(value).__name__


def _written(text: str, limit: int = 40) -> str:
    """``text`` as a message quotes it: at most ``limit`` characters (a one-line message)."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def parse_whole(text: str) -> int | None:
    """The whole number written in ``text`` (the rule above), or None when it is not one.

    >>> parse_whole("1_000"), parse_whole("1e6"), parse_whole("2.5e3"), parse_whole("1.5")
    (1000, 1000000, 2500, None)
    >>> parse_whole("10.0"), parse_whole("1.0e-1"), parse_whole("10.5e-1")
    (10, None, None)
    >>> parse_whole("\\uff11\\uff12"), parse_whole("10**6"), parse_whole("1e-3")
    (None, None, None)
    """
    m = _WHOLE_RE.fullmatch(text.strip())
    if m is None:
        return None
    sign, whole, frac, exp = m.groups()
    whole, frac = whole.replace("_", ""), (frac or "").replace("_", "")
    exp = (exp or "0").replace("_", "").lstrip("0") or "0"
    digits = (whole + frac).lstrip("0")
    if not digits:
        return 0  # 0, 0.0, 0e99
    # beyond 10**40 (a long exponent or thousands of digits) nothing is read: out of every range
    if len(exp) > 3 or len(digits) - len(frac) + int(exp) > _MAX_EXPONENT:
        return (-1 if sign == "-" else 1) * 10 ** (_MAX_EXPONENT + 1)
    e = int(exp)
    shift = e - len(frac)
    if shift < 0:
        if digits[shift:].strip("0"):
            return None  # 1.5e0: not whole
        digits = digits[:shift] or "0"
        shift = 0
    v = int(digits) * 10**shift
    return -v if sign == "-" else v


def parse_real(text: str) -> float | None:
    """The finite number written in ``text`` (ASCII float syntax), or None when it is not a
    number or not finite (``inf``, ``nan``, ``1e400``).

    >>> parse_real("0.1"), parse_real("1e-3"), parse_real("1e400"), parse_real("nan")
    (0.1, 0.001, None, None)
    """
    t = text.strip()
    if _REAL_RE.fullmatch(t) is None:
        return None
    v = float(t)
    return v if math.isfinite(v) else None


def is_number_text(text: str) -> bool:
    """True when ``text`` is written as a number (ASCII float syntax, or ``inf``/``nan``),
    finite or not: ``parse_real`` refuses the non-finite ones, and messages then say so."""
    t = text.strip()
    return bool(_REAL_RE.fullmatch(t)) or t.lower().lstrip("+-") in ("inf", "infinity", "nan")


@dataclass(frozen=True)
class Whole:
    """The limits of one whole-number input: ``low..high`` (inclusive), with the words the
    messages use (``rule``: what it must be, e.g. "a positive whole number"; ``high_text``:
    how the upper bound is printed)."""

    low: int | None = None
    high: int = INT64_MAX
    rule: str | None = None
    high_text: str | None = None
    #: the messages say "below ``high_text``" (the first value refused) instead of "at most"
    below: bool = False

    def check(self, value, name: str, *, text: bool = False) -> int:
        """``value`` as an int within the limits; ``name`` starts every message.

        ``value``: an int or numpy integer; with ``text=True`` also a string in the
        whole-number rule (command-line and ``--option`` values). Raises ``BadValueError``.
        """
        if isinstance(value, str) and text:
            v = parse_whole(value)
            if v is None and parse_real(value) is not None:  # a number, but not whole
                raise BadValueError(
                    f"{name} must be a whole number, not {_written(value.strip())}", name
                )
            if v is None:
                raise BadValueError(
                    f"{name}: {_written(repr(value))} is not a valid integer ({WHOLE_RULE})", name
                )
        elif isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
            v = int(value)
        else:
            kinds = "an int or a string of digits" if text else "an int"
            raise BadValueError(
                f"{name} must be {kinds}, not {_written(repr(value))} ({_type_name(value)})", name
            )
        rule = self.rule or self._rule()
        # a value typed as text is shown as written (1e13, not 10,000,000,000,000)
        written = _written(value.strip()) if isinstance(value, str) else None
        if self.low is not None and v < self.low:
            raise BadValueError(f"{name} must be {rule}, not {written or v}", name)
        if v > self.high:
            if self.high == INT64_MAX and self.high_text is None:
                high = f"{INT64_MAX:,} (2**63 - 1)"
            elif self.rule and self.high_text is None:  # the rule states both ends
                raise BadValueError(f"{name} must be {rule}, not {written or v}", name)
            else:
                high = self.high_text or f"{self.high:,}"
            word = "below" if self.below else "at most"
            raise BadValueError(f"{name} must be {word} {high}, not {written or f'{v:,}'}", name)
        return v

    def _rule(self) -> str:
        if self.low is None:
            return "a whole number"
        if self.low == 1:
            return "a positive whole number"
        if self.low == 0:
            return "0 or more"
        return f"at least {self.low}"


def real_number(value, name: str) -> float:
    """``value`` as a finite float: an int or float (not bool), or a string in ASCII float
    syntax. Raises ``BadValueError`` naming ``name`` and the value as written."""
    eq = " " if name.startswith("--") else "="  # a flag and its value, or name=value
    if isinstance(value, str):
        v = parse_real(value)
        if v is None:
            t = value.strip()
            if is_number_text(t):
                raise BadValueError(f"{name}{eq}{_written(t)} must be a finite number", name)
            raise BadValueError(f"{name}{eq}{_written(repr(t))} is not a number", name)
        return v
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    ):
        try:
            v = float(value)
        except OverflowError:  # an int beyond the float range
            v = math.inf
        if not math.isfinite(v):
            raise BadValueError(f"{name}{eq}{_written(repr(value))} must be a finite number", name)
        return v
    shown = _written(repr(value))
    raise BadValueError(f"{name} must be a number, not {shown} ({_type_name(value)})", name)


class PlanFloat(str):
    """A float of a batch plan (TOML ``1e3``) carried as its text (``repr``), so that a
    whole-number option reads it by the rule of the command line (``1e3`` is 1000, ``1.5`` is
    not whole) while a path option still refuses it as a float (``path_value``)."""


def path_value(value, name: str, what: str = "file path") -> str:
    """``value`` as a file or folder path (``what``): a non-empty ``str`` or ``os.PathLike``
    (not bytes, a number, a bool or a list). Raises ``BadValueError`` naming ``name``."""
    if isinstance(value, PlanFloat):
        raise BadValueError(f"{name} must be a {what} (a string), not {value} (float)", name)
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise BadValueError(
            f"{name} must be a {what} (a string), not {_written(repr(value))} "
            f"({_type_name(value)})",
            name,
        )
    if not value.strip():
        raise BadValueError(f"{name} is empty; give a {what}", name)
    return value
