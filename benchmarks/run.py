"""Throughput of every game and policy: games/s, cold (compile included) and warm, 1 worker and
all workers. Writes ``benchmarks/RESULTS.md`` with ``--write``.

Each configuration runs in its own subprocess with an empty ``NUMBA_CACHE_DIR``, so "cold" is
what a first run on a fresh install costs (import + compile + play). "warm" runs the same
configuration again in that process. Throughput is ``mcsim.simulate``'s end-to-end figure
(kernel, DataFrame, summary), i.e. what a user sees.

Usage::

    python benchmarks/run.py                      # every configuration, print a table
    python benchmarks/run.py --game sacred-hill   # one game
    python benchmarks/run.py --write              # also write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: (game, policies, players, games for the warm runs, games for the cold run, extra kwargs)
CONFIGS = [
    ("sacred-hill", ["random"], 2, 1_000_000, 100_000, {}),
    ("sacred-hill", ["greedy"], 2, 100_000, 10_000, {}),
    ("sacred-hill", ["tactician"], 2, 100_000, 10_000, {}),
    ("don-quixote", ["random"], 1, 500_000, 10_000, {}),
    ("don-quixote", ["greedy"], 1, 100_000, 5_000, {}),
    ("don-quixote", ["heuristic"], 1, 50_000, 2_000, {}),
    ("don-quixote", ["random"], 4, 100_000, 5_000, {}),
    ("don-quixote", ["rollout"], 1, 500, 50, {}),
    ("don-quixote", ["oracle"], 1, 200, 20, {}),
    ("el-grande", ["random"], 2, 5_000, 200, {}),
    ("el-grande", ["random"], 4, 20_000, 1_000, {}),
    ("el-grande", ["random"], 5, 2_000, 100, {}),
    ("el-grande", ["heuristic"], 4, 2_000, 100, {}),
    ("carcassonne", ["random"], 2, 20_000, 1_000, {}),
    ("carcassonne", ["random"], 5, 10_000, 500, {}),
    ("carcassonne", ["random"], 2, 20_000, 1_000, {"variant": {"gifts": "true"}}),
    ("carcassonne", ["heuristic"], 2, 2_000, 100, {}),
    ("carcassonne", ["heuristic"], 2, 2_000, 100, {"variant": {"gifts": "true"}}),
    ("thurn-and-taxis", ["random"], 2, 20_000, 1_000, {}),
    ("thurn-and-taxis", ["random"], 3, 20_000, 1_000, {}),
    ("thurn-and-taxis", ["random"], 4, 20_000, 1_000, {}),
    ("thurn-and-taxis", ["route"], 3, 50_000, 5_000, {}),
]

_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import mcsim
cfg = json.loads(sys.argv[1])
kw = dict(policies=cfg["policies"], players=cfg["players"], **cfg["kwargs"])
r = mcsim.simulate(cfg["game"], games=cfg["cold_games"], seed=1, workers=1, **kw)
cold = time.perf_counter() - t0
out = {"cold_seconds": cold, "cold_games": cfg["cold_games"]}
for name, workers in (("warm_1", 1), ("warm_all", None)):
    t = time.perf_counter()
    r = mcsim.simulate(cfg["game"], games=cfg["games"], seed=2, workers=workers, **kw)
    out[name] = cfg["games"] / (time.perf_counter() - t)
out["length_mean"] = r.summary["length"]["mean"]
print(json.dumps(out))
"""


def measure(game, policies, players, games, cold_games, kwargs):
    cfg = dict(
        game=game,
        policies=policies,
        players=players,
        games=games,
        cold_games=cold_games,
        kwargs=kwargs,
    )
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        p = subprocess.run(
            [sys.executable, "-c", _CHILD, json.dumps(cfg)],
            env=env,
            capture_output=True,
            text=True,
            cwd=HERE.parent,
        )
    if p.returncode != 0:
        raise RuntimeError(f"{game} {policies}: {p.stderr.strip().splitlines()[-1:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import numba
    import numpy

    return (
        f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"numba {numba.__version__}, numpy {numpy.__version__}"
    )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", action="append", help="only these games")
    ap.add_argument("--write", action="store_true", help="write benchmarks/RESULTS.md")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply the game counts")
    args = ap.parse_args(argv)
    rows = []
    for game, pol, players, games, cold_games, kw in CONFIGS:
        if args.game and game not in args.game:
            continue
        n = max(1, int(games * args.scale))
        nc = max(1, int(cold_games * args.scale))
        r = measure(game, pol, players, n, nc, kw)
        label = ",".join(pol)
        extra = " ".join(f"{k}={v}" for k, v in kw.items())
        row = (
            f"| {game} | {label} | {players} | {extra} | {n:,} | {r['warm_1']:,.0f} | "
            f"{r['warm_all']:,.0f} | {r['cold_seconds']:.1f} s for {nc:,} | "
            f"{r['length_mean']:.1f} |"
        )
        print(row, flush=True)
        rows.append(row)
    head = (
        "| game | policy | players | options | games | warm games/s, 1 worker | "
        "warm games/s, all workers | cold (import + compile + play) | mean plies |\n"
        "|---|---|---|---|---|---|---|---|---|"
    )
    table = head + "\n" + "\n".join(rows)
    if args.write:
        cmd = "python benchmarks/run.py --write" + "".join(f" --game {g}" for g in args.game or [])
        text = (
            f"# Benchmark results\n\nMachine: {machine()}.\n"
            f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with `{cmd}`.\n\n"
            f"{table}\n"
        )
        (HERE / "RESULTS.md").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
