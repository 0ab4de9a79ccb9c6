"""Shared pieces of the benchmark scripts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_COLD = r"""
import json, sys, time
t0 = time.perf_counter()
import mcsim
game, kwargs = json.loads(sys.argv[1])
mcsim.simulate(game, seed=1, workers=1, **kwargs)
print(time.perf_counter() - t0)
"""


def cold_seconds(game: str, games: int = 10, **simulate_kwargs) -> float:
    """Seconds a fresh process with an empty ``NUMBA_CACHE_DIR`` takes to import mcsim, compile
    the game's kernels and play ``games`` games (``mcsim.simulate`` keyword arguments as JSON)."""
    arg = json.dumps([game, dict(games=games, **simulate_kwargs)])
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        p = subprocess.run(
            [sys.executable, "-c", _COLD, arg], env=env, capture_output=True, text=True, cwd=ROOT
        )
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip().splitlines()[-1])
    return float(p.stdout.strip().splitlines()[-1])
