"""Don Quixote throughput: games/s per policy, cold and warm, one core.

"cold" runs in a subprocess with an empty ``NUMBA_CACHE_DIR`` (import + compile of the whole
kernel + play 10 games); "warm" is the best of three timed ``play_chunk`` calls (the kernel
alone, CPU time of this process, one core) and one ``mcsim.simulate`` call (end to end:
kernel, DataFrame, summary). Rollout and oracle are reported as seconds per game too.
Speed goals of the kernel: random solo >= 100,000 games/s/core warm, greedy >= 20,000.

Numbers are for the placeholder tile set (rules §2.3); the cost of a game hardly depends on
the tile set.

Usage::

    python benchmarks/bench_don_quixote.py            # all configurations
    python benchmarks/bench_don_quixote.py --quick    # fewer games
    python benchmarks/bench_don_quixote.py --no-cold  # skip the compile measurement
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
    ("random", 1, 200_000),
    ("greedy", 1, 50_000),
    ("heuristic", 1, 10_000),
    ("random", 4, 50_000),
    ("rollout:k=8,base=0", 1, 100),
    ("rollout:k=8,base=1", 1, 10),
    ("oracle", 1, 10),
    ("oracle:beam=16,iters=0", 1, 20),
]


def warm(policy: str, players: int, games: int) -> dict:
    import mcsim
    from mcsim.games import don_quixote as D
    from mcsim.runner import resolve_config

    prep = D.prepare(resolve_config("don-quixote", players, [policy])[1])
    D.play_chunk(prep, 0, 2, 1)
    best = 0.0
    for rep in range(3):
        t = time.process_time()
        out = D.play_chunk(prep, rep * games, games, 7)
        best = max(best, games / max(time.process_time() - t, 1e-9))
    t = time.perf_counter()
    mcsim.simulate(
        "don-quixote", games=games, seed=3, workers=1, policies=[policy] * players, players=players
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
    cold = None if a.no_cold else cold_seconds("don-quixote", policies=["random"])
    for policy, players, games in CONFIGS:
        n = max(2, games // 10) if a.quick else games
        r = warm(policy, players, n)
        rows.append({"policy": policy, "players": players, "games": n, **r})
    if a.json:
        print(json.dumps({"cold_seconds": cold, "rows": rows}))
        return
    print(
        "| policy | players | games | kernel games/s (1 core, best of 3) | ms/game | "
        "simulate games/s | mean score |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['policy']} | {r['players']} | {r['games']:,} | {r['kernel']:,.1f} | "
            f"{1000 / r['kernel']:.3f} | {r['simulate']:,.1f} | {r['mean_score']:.2f} |"
        )
    if cold is not None:
        print(f"\ncold (empty Numba cache: import + compile + 10 random games): {cold:.1f} s")


if __name__ == "__main__":
    main()
