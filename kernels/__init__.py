"""Numba kernels: arrays in, arrays out, no Python objects.

A kernel module never imports from ``mcsim``; ``mcsim.games.<game>`` is the only place that
knows both the human names (cells, tiles, cards) and the kernel encoding.

Compiled-code cache
-------------------
Numba's on-disk cache (``cache=True``) checks only the source file of the function it caches,
not the files of the functions it calls. ``kernels.search.search`` is compiled once per game
against that game's step functions, and every game calls ``kernels.rng``: with the default
cache beside the sources, editing a game's kernel (or upgrading mcsim) could run a search
compiled with the old step functions. So, unless the user sets ``NUMBA_CACHE_DIR`` themselves,
the cache lives in a folder named by a hash of all kernel sources (every ``*.py`` under
``kernels/``, the game packages ``kernels/<game>/`` included),
``$XDG_CACHE_HOME/mcsim/numba-<hash>`` (``~/.cache/...`` by default): any change to any kernel
file starts a fresh cache, and an unchanged tree reuses its compiled code.
"""

import hashlib
import os
from pathlib import Path

import numba


def kernel_sources_hash() -> str:
    """First 16 hex digits of the SHA-256 of every ``*.py`` file under ``kernels/``, subpackages
    included (relative paths and bytes, in sorted path order)."""
    root = Path(__file__).parent
    h = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        if "__pycache__" in f.parts:
            continue
        h.update(f.relative_to(root).as_posix().encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _set_cache_dir() -> None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return  # the user's (or a benchmark's) choice
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mcsim"
    folder = root / f"numba-{kernel_sources_hash()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return  # not writable: Numba's own default (beside the sources, or its user cache)
    numba.config.CACHE_DIR = str(folder)


_set_cache_dir()
