"""Reading input files: one bounded reader per format, used by every input.

Every file mcsim reads goes through one of these readers: game records (``replay``), tile and
data files (``--option KEY=FILE``, the shipped data), batch plans (TOML), and the
files of an interrupted run (``_manifest.json``, ``_aggregates/*.json``, ``part-*.parquet``).
Each reader

- refuses a file larger than its cap before reading it whole (``/dev/zero`` stops after the cap),
- decodes text as strict UTF-8,
- refuses nesting deeper than ``MAX_NESTING`` (no ``RecursionError``), ``NaN``/``Infinity``,
  floats that are not finite (``1e400``; TOML's ``inf``/``nan``) and integers of more than
  4300 digits,
- turns every failure into one ``McsimError`` whose message starts with the file's path:
  ``MissingFileError`` (the file does not exist, or ``NotAFileError``: it is a folder, a named
  pipe or a socket; a bad argument, the CLI exits 2) or ``InputFileError`` (anything else:
  exit 1).

CSV: mcsim writes CSV tables but reads none.
"""

from __future__ import annotations

import json
import math
import os
import stat
import tomllib
from pathlib import Path
from typing import Any

from mcsim.errors import InputFileError, MissingFileError, NotAFileError

#: largest JSON or TOML input (records, tile/data files, plans, manifests, aggregates), bytes
MAX_TEXT_BYTES = 16 * 2**20
#: largest Parquet part of a run directory, bytes
MAX_PARQUET_BYTES = 2 * 2**30
#: deepest nesting of arrays/objects (tables) accepted in a JSON or TOML input
MAX_NESTING = 64


def _size(n: int) -> str:
    return f"{n // 2**20} MiB" if n >= 2**20 else f"{n:,} bytes"


def _kind(mode: int) -> str:
    """What a non-regular file is, for messages."""
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISBLK(mode):
        return "a block device"
    return "a special file"


def _open_error(shown: str, what: str, e: OSError) -> Exception:
    if isinstance(e, FileNotFoundError):
        return MissingFileError(f"{shown}: {what} does not exist")
    if isinstance(e, IsADirectoryError):
        return NotAFileError(f"{shown}: is a directory, not a {what}")
    return InputFileError(f"{shown}: cannot read {what} ({e.strerror or e})")


def read_bytes(path: str | os.PathLike, what: str = "file", limit: int = MAX_TEXT_BYTES) -> bytes:
    """The bytes of ``path``, at most ``limit`` of them.

    Raises
    ------
    MissingFileError
        ``path`` does not exist; its subclass ``NotAFileError``: ``path`` is a directory or
        neither a regular file nor a character device (a named pipe, a socket: refused at
        once, never waited on).
    InputFileError
        ``path`` is unreadable or larger than ``limit`` bytes (a device such as ``/dev/zero``
        is read up to the limit, never further).
    """
    p = Path(path)
    shown = os.fspath(path)  # messages name the path as given (./sub/x.json, not sub/x.json)
    try:
        # Opened without blocking: ``open`` of a FIFO (or a socket's or a device's special file)
        # waits for a writer, forever. Only a regular file or a character device (``/dev/zero``,
        # ``/dev/stdin``: read up to the cap below) is read; anything else is refused at once.
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with open(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if stat.S_ISDIR(st.st_mode):
                raise IsADirectoryError(21, "Is a directory", str(p))
            if not (stat.S_ISREG(st.st_mode) or stat.S_ISCHR(st.st_mode)):
                raise NotAFileError(f"{shown}: {what} is not a regular file ({_kind(st.st_mode)})")
            if stat.S_ISCHR(st.st_mode):
                os.set_blocking(fd, True)  # a terminal or pipe-like device: read as usual
            if stat.S_ISREG(st.st_mode) and st.st_size > limit:
                raise InputFileError(
                    f"{shown}: {what} is larger than {_size(limit)} ({st.st_size:,} bytes)"
                )
            data = fh.read(limit + 1)
    except OSError as e:
        raise _open_error(shown, what, e) from None
    if len(data) > limit:
        raise InputFileError(f"{shown}: {what} is larger than {_size(limit)}")
    return data


def read_text(path: str | os.PathLike, what: str = "file", limit: int = MAX_TEXT_BYTES) -> str:
    """The text of ``path`` (strict UTF-8, a leading BOM dropped); errors as ``read_bytes``, plus
    ``InputFileError`` for bytes that are not UTF-8."""
    data = read_bytes(path, what, limit)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputFileError(
            f"{os.fspath(path)}: {what} is not UTF-8 text (byte {e.start})"
        ) from None


def _check_nesting(doc: Any, shown: str, what: str) -> None:
    stack = [(doc, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > MAX_NESTING:
            raise InputFileError(f"{shown}: {what} is nested deeper than {MAX_NESTING} levels")
        stack.extend((c, depth + 1) for c in children)


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    """A JSON or TOML float, refused when not finite (``1e400`` overflows to inf, TOML's
    ``inf``/``nan``), as ``mcsim.values`` refuses them everywhere: the message gives the value
    as written."""
    v = float(text)
    if not math.isfinite(v):
        raise ValueError(f"{text} must be a finite number")
    return v


def read_json(path: str | os.PathLike, what: str = "JSON file", limit: int = MAX_TEXT_BYTES) -> Any:
    """The parsed JSON document in ``path``.

    Parameters
    ----------
    path : path
        The file.
    what : str
        What the file is, for messages ("record", "tile file", "run manifest", ...).
    limit : int
        Size cap in bytes (default ``MAX_TEXT_BYTES``).

    Raises
    ------
    MissingFileError
        ``path`` does not exist.
    InputFileError
        Unreadable, too large, not UTF-8, not valid JSON, ``NaN``/``Infinity``, an integer of
        more than 4300 digits, or nested deeper than ``MAX_NESTING``. One line, starting with
        the path.

    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "r.json"
    >>> _ = f.write_text("[" * 100 + "]" * 100)
    >>> read_json(f, "record")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mcsim.errors.InputFileError: ...r.json: record is nested deeper than 64 levels
    """
    p = Path(path)
    shown = os.fspath(path)  # messages name the path as given (./sub/x.json, not sub/x.json)
    text = read_text(p, what, limit)
    try:
        doc = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
    except json.JSONDecodeError as e:
        raise InputFileError(
            f"{shown}: {what} is not valid JSON ({e.msg} at line {e.lineno} column {e.colno})"
        ) from None
    except RecursionError:
        raise InputFileError(
            f"{shown}: {what} is nested deeper than {MAX_NESTING} levels"
        ) from None
    except ValueError as e:  # NaN/Infinity, integers over 4300 digits
        raise InputFileError(
            f"{shown}: {what} is not valid JSON ({' '.join(str(e).split())})"
        ) from None
    _check_nesting(doc, shown, what)
    return doc


def read_json_object(
    path: str | os.PathLike, what: str = "JSON file", limit: int = MAX_TEXT_BYTES
) -> dict:
    """``read_json`` for a file whose top level must be an object (else ``InputFileError``)."""
    doc = read_json(path, what, limit)
    if not isinstance(doc, dict):
        raise InputFileError(
            f"{os.fspath(path)}: {what} must be a JSON object, not {_json_type(doc)}"
        )
    return doc


def _json_type(v: Any) -> str:
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "true/false",
        type(None): "null",
    }.get(type(v), "a number")


def read_toml(
    path: str | os.PathLike, what: str = "TOML file", limit: int = MAX_TEXT_BYTES
) -> dict:
    """The parsed TOML document in ``path``; errors as ``read_json`` (one line naming the file).

    Raises
    ------
    MissingFileError, InputFileError
    """
    p = Path(path)
    shown = os.fspath(path)  # messages name the path as given (./sub/x.json, not sub/x.json)
    text = read_text(p, what, limit)
    try:
        doc = tomllib.loads(text, parse_float=_finite_float)
    except tomllib.TOMLDecodeError as e:
        raise InputFileError(
            f"{shown}: {what} is not valid TOML ({' '.join(str(e).split())})"
        ) from None
    except RecursionError:
        raise InputFileError(
            f"{shown}: {what} is nested deeper than {MAX_NESTING} levels"
        ) from None
    except ValueError as e:  # integers over 4300 digits
        raise InputFileError(
            f"{shown}: {what} is not valid TOML ({' '.join(str(e).split())})"
        ) from None
    _check_nesting(doc, shown, what)
    return doc


def read_parquet(
    path: str | os.PathLike, what: str = "Parquet file", limit: int = MAX_PARQUET_BYTES
):
    """The table in a Parquet file, as a ``pandas.DataFrame``.

    Raises
    ------
    MissingFileError
        ``path`` does not exist.
    InputFileError
        Too large, a directory, unreadable, truncated or not Parquet (any pyarrow error).
    """
    import pandas as pd

    p = Path(path)
    shown = os.fspath(path)  # messages name the path as given (./sub/x.json, not sub/x.json)
    _check_file(p, what, limit, shown)
    try:
        return pd.read_parquet(p)
    except OSError as e:
        if isinstance(e, (FileNotFoundError, IsADirectoryError, PermissionError)):
            raise _open_error(shown, what, e) from None
        raise InputFileError(f"{shown}: {what} is not readable Parquet ({_one_line(e)})") from None
    except Exception as e:  # noqa: BLE001 - pyarrow raises many types for damaged bytes
        raise InputFileError(f"{shown}: {what} is not readable Parquet ({_one_line(e)})") from None


def parquet_rows(
    path: str | os.PathLike, what: str = "Parquet file", limit: int = MAX_PARQUET_BYTES
) -> int:
    """The row count in a Parquet file's footer (reads the footer only); errors as
    ``read_parquet``."""
    import pyarrow.parquet as pq

    p = Path(path)
    shown = os.fspath(path)  # messages name the path as given (./sub/x.json, not sub/x.json)
    _check_file(p, what, limit, shown)
    try:
        return int(pq.read_metadata(p).num_rows)
    except Exception as e:  # noqa: BLE001 - pyarrow raises many types for damaged bytes
        raise InputFileError(f"{shown}: {what} is not readable Parquet ({_one_line(e)})") from None


def _check_file(p: Path, what: str, limit: int, shown: str) -> None:
    try:
        st = p.stat()
    except OSError as e:
        raise _open_error(shown, what, e) from None
    if stat.S_ISDIR(st.st_mode):
        raise InputFileError(f"{shown}: is a directory, not a {what}")
    if not stat.S_ISREG(st.st_mode):
        raise InputFileError(f"{shown}: {what} is not a regular file ({_kind(st.st_mode)})")
    if st.st_size > limit:
        raise InputFileError(
            f"{shown}: {what} is larger than {_size(limit)} ({st.st_size:,} bytes)"
        )


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) <= 200 else text[:197] + "..."
