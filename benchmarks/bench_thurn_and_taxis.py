"""Thurn and Taxis throughput: games/s per policy and player count, cold and warm, one core.

"cold" runs in a subprocess with an empty ``NUMBA_CACHE_DIR`` (import + compile + play);
"warm" is the best of three timed ``play_chunk`` calls (the kernel alone, CPU time of this
process, one core) and one ``mcsim.simulate`` call (end to end: kernel, DataFrame, summary).
Prints a markdown table. Goal: >= 20,000 random 3-player games/s/core warm.

Usage::

    python benchmarks/bench_thurn_and_taxis.py            # all configurations
    python benchmarks/bench_thurn_and_taxis.py --quick    # fewer games
    python benchmarks/bench_thurn_and_taxis.py --no-cold  # skip the compile measurement
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

CONFIGS = [  # (policy, players, warm games)
    ("random", 2, 2_000),
    ("random", 3, 2_000),
    ("random", 4, 2_000),
    ("route", 2, 10_000),
    ("route", 3, 10_000),
    ("route", 4, 10_000),
]


def warm(policy: str, players: int, games: int) -> dict:
    import mcsim
    from mcsim.games import thurn_and_taxis as T
    from mcsim.runner import resolve_config

    prep = T.prepare(resolve_config("thurn-and-taxis", players, [policy])[1])
    T.play_chunk(prep, 0, 10, 1)
    best = 0.0
    for rep in range(3):
        t = time.process_time()
        out = T.play_chunk(prep, rep * games, games, 7)
        best = max(best, games / max(time.process_time() - t, 1e-9))
    t = time.perf_counter()
    mcsim.simulate(
        "thurn-and-taxis", games=games, seed=3, workers=1, policies=[policy], players=players
    )
    e2e = games / (time.perf_counter() - t)
    return {
        "kernel": best,
        "simulate": e2e,
        "turns": float(out["turns"].mean()),
        "plies": float(out["length"].mean()),
        "decisions_per_s": best * float(out["length"].mean()),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-cold", action="store_true")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = []
    for policy, players, games in CONFIGS:
        g = games // 5 if a.quick else games
        row = {"policy": policy, "players": players, **warm(policy, players, g)}
        row["cold_s"] = (
            None
            if a.no_cold
            else cold_seconds("thurn-and-taxis", games=100, policies=[policy], players=players)
        )
        rows.append(row)
    if a.json:
        print(json.dumps(rows, indent=1))
        return
    print(
        "| policy | players | warm kernel games/s (1 core) | warm simulate games/s | "
        "turns/game | decisions/game | decisions/s | cold (s, 100 games) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        cold = "-" if r["cold_s"] is None else f"{r['cold_s']:.1f}"
        print(
            f"| {r['policy']} | {r['players']} | {r['kernel']:,.0f} | {r['simulate']:,.0f} | "
            f"{r['turns']:.0f} | {r['plies']:.0f} | {r['decisions_per_s'] / 1e6:.1f} M | {cold} |"
        )


if __name__ == "__main__":
    main()
