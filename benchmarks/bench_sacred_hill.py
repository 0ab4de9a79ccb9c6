"""Sacred Hill kernel throughput: games/s per policy, one core, the kernel alone.

"kernel" is the best of three timed ``play_chunk`` calls (CPU time of this process, one core);
"simulate" is one ``mcsim.simulate`` call with one worker (kernel + per-chunk DataFrame and
aggregates + summary), so the difference is the runner's overhead. Goal: at least
200,000 random games per second per core warm. Cold start (compile) is measured by
``benchmarks/run.py``.

Usage::

    python benchmarks/bench_sacred_hill.py
"""

from __future__ import annotations

import time

import mcsim
from mcsim.games import sacred_hill as SH
from mcsim.runner import resolve_config

CONFIGS = [
    ("random", 400_000),
    ("greedy", 50_000),
    ("tactician", 50_000),
    ("tactician:eps=0.1", 50_000),
]


def main():
    print(
        "| policy | games | kernel games/s (1 core, CPU time) | simulate games/s (1 worker) | "
        "ns per ply (kernel) |\n|---|---|---|---|---|"
    )
    for policy, n in CONFIGS:
        _, cfg = resolve_config("sacred-hill", 2, [policy])
        prep = SH.prepare(cfg)
        SH.play_chunk(prep, 0, 10, 1)  # compile / load the cache
        best = None
        plies = 0
        for rep in range(3):
            t = time.process_time()
            cols = SH.play_chunk(prep, rep * n, n, 1)
            dt = time.process_time() - t
            best = dt if best is None else min(best, dt)
            plies = int(cols["length"].sum())
        t = time.perf_counter()
        mcsim.simulate("sacred-hill", games=n, seed=2, policies=[policy], workers=1)
        sim = n / (time.perf_counter() - t)
        print(
            f"| {policy} | {n:,} | {n / best:,.0f} | {sim:,.0f} | {1e9 * best / plies:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
