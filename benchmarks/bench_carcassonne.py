"""Carcassonne throughput: games/s per policy, player count and gifts on/off, cold and warm, one core.

"cold" runs in a subprocess with an empty ``NUMBA_CACHE_DIR`` (import + compile of the whole
kernel + 10 random games); "warm" is the best of three timed ``play_chunk`` calls (the kernel
alone, CPU time of this process, one core) and one ``mcsim.simulate`` call (end to end:
kernel, DataFrame, summary). Goal: >= 5,000 random 2-player base games/s/core warm.

Usage::

    python benchmarks/bench_carcassonne.py            # all configurations
    python benchmarks/bench_carcassonne.py --quick    # a tenth of the games
    python benchmarks/bench_carcassonne.py --no-cold  # skip the compile measurement
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _harness import cold_seconds  # noqa: E402

CONFIGS = [  # (policy, players, gifts, warm games)
    ("random", 2, "false", 20_000),
    ("random", 3, "false", 10_000),
    ("random", 4, "false", 10_000),
    ("random", 5, "false", 10_000),
    ("random", 2, "true", 20_000),
    ("heuristic", 2, "false", 1_000),
    ("heuristic", 4, "false", 500),
    ("heuristic", 2, "true", 1_000),
]


def warm(policy: str, players: int, gifts: str, games: int) -> dict:
    import mcsim
    from mcsim.games import carcassonne as C
    from mcsim.runner import resolve_config

    prep = C.prepare(resolve_config("carcassonne", players, [policy], {"gifts": gifts})[1])
    C.play_chunk(prep, 0, 2, 1)
    best = 0.0
    for rep in range(3):
        t = time.process_time()
        out = C.play_chunk(prep, rep * games, games, 7)
        best = max(best, games / max(time.process_time() - t, 1e-9))
    t = time.perf_counter()
    mcsim.simulate(
        "carcassonne",
        games=games,
        seed=3,
        workers=1,
        policies=[policy] * players,
        players=players,
        variant={"gifts": gifts},
    )
    e2e = games / (time.perf_counter() - t)
    return {"kernel": best, "simulate": e2e, "mean_score": float(out["score"].mean())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a tenth of the games")
    ap.add_argument("--no-cold", action="store_true")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = []
    cold = None if a.no_cold else cold_seconds("carcassonne")
    for policy, players, gifts, games in CONFIGS:
        n = max(20, games // 10) if a.quick else games
        r = warm(policy, players, gifts, n)
        rows.append({"policy": policy, "players": players, "gifts": gifts, "games": n, **r})
    if a.json:
        print(json.dumps({"cold_seconds": cold, "rows": rows}))
        return
    print(
        "| policy | players | gifts | games | kernel games/s (1 core, best of 3) | ms/game | "
        "simulate games/s | mean score |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['policy']} | {r['players']} | {r['gifts']} | {r['games']:,} | {r['kernel']:,.0f} | "
            f"{1000 / r['kernel']:.3f} | {r['simulate']:,.0f} | {r['mean_score']:.2f} |"
        )
    if cold is not None:
        print(f"\ncold (empty Numba cache: import + compile + 10 random games): {cold:.1f} s")


if __name__ == "__main__":
    main()
