"""Scaling and memory: games/s against workers for the local and Dask backends, the overhead per
chunk, and peak memory against game count.

Usage::

    python benchmarks/scaling.py workers             # games/s for workers 1, 2: local and dask
    python benchmarks/scaling.py overhead            # seconds per chunk of overhead
    python benchmarks/scaling.py memory 1e6 1e7 1e8  # peak RSS against game count

Each measurement runs in a fresh subprocess (kernels loaded from the Numba cache, which the
first run fills), and prints one markdown table row.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

_CHILD = r"""
import json, resource, sys, time
import mcsim
cfg = json.loads(sys.argv[1])
mcsim.simulate(cfg["game"], games=1000, seed=0, workers=1)  # load the kernels
t = time.perf_counter()
r = mcsim.simulate(cfg["game"], games=cfg["games"], seed=1, workers=cfg["workers"],
                   backend=cfg["backend"], chunk_size=cfg.get("chunk_size"),
                   keep_games=cfg.get("keep_games"))
dt = time.perf_counter() - t
self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
child_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"seconds": dt, "games_per_second": cfg["games"] / dt,
                  "peak_rss_mb": self_kb / 1024, "peak_worker_rss_mb": child_kb / 1024,
                  "kept_rows": r.games is not None}))
"""


def run(cfg: dict) -> dict:
    p = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(cfg)],
        capture_output=True,
        text=True,
        cwd=HERE.parent,
    )
    if p.returncode != 0:
        raise SystemExit(p.stderr)
    return json.loads(p.stdout.strip().splitlines()[-1])


def workers(game="sacred-hill", games=2_000_000):
    print("| backend | workers | games | games/s | seconds |\n|---|---|---|---|---|")
    for backend in ("local", "dask"):
        for w in (1, 2):
            r = run(dict(game=game, games=games, workers=w, backend=backend))
            print(
                f"| {backend} | {w} | {games:,} | {r['games_per_second']:,.0f} | "
                f"{r['seconds']:.2f} |",
                flush=True,
            )


def overhead(game="sacred-hill", games=200_000):
    """Same games, chunks of 50,000 vs 1,000: the extra time per extra chunk."""
    print(
        "| backend | chunk size | chunks | seconds | overhead per chunk (ms) |\n|---|---|---|---|---|"
    )
    for backend, w in (("serial", 1), ("local", 2), ("dask", 2)):
        big = run(dict(game=game, games=games, workers=w, backend=backend, chunk_size=50_000))
        small = run(dict(game=game, games=games, workers=w, backend=backend, chunk_size=1_000))
        extra = (small["seconds"] - big["seconds"]) / (games / 1_000 - games / 50_000)
        for size, r in ((50_000, big), (1_000, small)):
            print(
                f"| {backend} | {size:,} | {games // size} | {r['seconds']:.2f} | "
                f"{'' if size == 50_000 else f'{1000 * extra:.2f}'} |",
                flush=True,
            )


def memory(counts, game="sacred-hill"):
    print(
        "| games | kept rows | seconds | games/s | peak RSS, main process (MB) | "
        "peak RSS, largest worker (MB) |\n|---|---|---|---|---|---|"
    )
    for n in counts:
        r = run(dict(game=game, games=int(n), workers=2, backend="local"))
        print(
            f"| {int(n):,} | {r['kept_rows']} | {r['seconds']:.1f} | "
            f"{r['games_per_second']:,.0f} | {r['peak_rss_mb']:.0f} | "
            f"{r['peak_worker_rss_mb']:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "workers"
    if what == "workers":
        workers()
    elif what == "overhead":
        overhead()
    elif what == "memory":
        memory([float(x) for x in sys.argv[2:]] or [1e6, 1e7])
    else:
        raise SystemExit(__doc__)
