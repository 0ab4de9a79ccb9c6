"""Throughput of two revisions of mcsim, alternated: is a change free for the runs it does not touch?

Each revision is checked out into a temporary git worktree with its own ``NUMBA_CACHE_DIR``;
one warm-up process per revision compiles its kernels, then ``--pairs`` rounds alternate the
two revisions (before, after, before, after, ...), each round one fresh process per revision
that plays one short warm-up game and then ``--games`` games of ``mcsim.simulate`` with
1 worker (warm: compile excluded), timed in CPU seconds of that process (``--wall``: wall
seconds), the steadier figure when other work shares the machine. Alternation spreads the machine's load changes over both
revisions; the output gives every round's games/s, the median per revision, the after/before
ratio of the medians and the load average seen before each round, so a reader can judge the
noise. A speed figure, never a timed assertion (benchmarks/RESULTS.md).

Usage::

    python benchmarks/before_after.py BEFORE AFTER --game sacred-hill -p random -n 100000
    python benchmarks/before_after.py 4e66c7f^ HEAD --game carcassonne -p heuristic \\
        --players 2 -n 1000 --pairs 6 --variant gifts=true
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_CHILD = r"""
import json, sys, time
import mcsim
cfg = json.loads(sys.argv[1])
kw = dict(policies=cfg["policies"], players=cfg["players"], variant=cfg["variant"] or None)
mcsim.simulate(cfg["game"], games=1, seed=1, workers=1, **kw)  # loads the cached kernels
c, t = time.process_time(), time.perf_counter()
r = mcsim.simulate(cfg["game"], games=cfg["games"], seed=2, workers=1, **kw)
print(json.dumps({"games_per_s": cfg["games"] / (time.perf_counter() - t),
                  "games_per_cpu_s": cfg["games"] / (time.process_time() - c)}))
"""


#: the figure compared: games per CPU second of the measuring process (``--wall``: per wall
#: second); CPU time is the steadier figure on a loaded machine
_RATE = "games_per_cpu_s"


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def _run(tree: Path, cache: str, cfg: dict) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(tree))
    p = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(cfg)],
        env=env,
        capture_output=True,
        text=True,
        cwd=tree,
    )
    if p.returncode != 0:
        raise SystemExit(f"{tree.name}: {p.stderr.strip().splitlines()[-1:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])[_RATE]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", help="git revision measured first in each round")
    ap.add_argument("after", help="git revision measured second in each round")
    ap.add_argument("--game", required=True)
    ap.add_argument("-p", "--policy", action="append", default=None, help="policy per seat")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--variant", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("-n", "--games", type=int, default=10_000, help="games per measurement")
    ap.add_argument("--pairs", type=int, default=6, help="alternated rounds")
    ap.add_argument(
        "--wall", action="store_true", help="games per wall second (default: per CPU second)"
    )
    args = ap.parse_args(argv)
    global _RATE
    unit = "games/s" if args.wall else "games/CPU-s"
    if args.wall:
        _RATE = "games_per_s"
    variant = dict(v.split("=", 1) for v in args.variant)
    cfg = dict(
        game=args.game,
        policies=args.policy or ["random"],
        players=args.players,
        variant=variant,
        games=args.games,
    )
    with tempfile.TemporaryDirectory() as tmp:
        trees = {}
        for name, rev in (("before", args.before), ("after", args.after)):
            tree = Path(tmp) / name
            subprocess.run(
                ["git", "worktree", "add", "-q", "--detach", str(tree), rev], cwd=ROOT, check=True
            )
            trees[name] = (tree, str(Path(tmp) / f"cache-{name}"))
        try:
            for tree, cache in trees.values():  # compile once, outside the measurement
                _run(tree, cache, dict(cfg, games=1))
            rates = {"before": [], "after": []}
            for i in range(args.pairs):
                load = _load()
                for name, (tree, cache) in trees.items():
                    rates[name].append(_run(tree, cache, cfg))
                print(
                    f"round {i + 1}: before {rates['before'][-1]:,.0f}  after "
                    f"{rates['after'][-1]:,.0f} {unit}  (load {load})",
                    flush=True,
                )
        finally:
            for tree, _ in trees.values():
                subprocess.run(
                    ["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False
                )
    med = {k: statistics.median(v) for k, v in rates.items()}
    print(
        f"{args.game} {','.join(cfg['policies'])} players={args.players} {variant or ''} "
        f"n={args.games}: before median {med['before']:,.0f} "
        f"[{min(rates['before']):,.0f}-{max(rates['before']):,.0f}], after median "
        f"{med['after']:,.0f} [{min(rates['after']):,.0f}-{max(rates['after']):,.0f}] {unit}, "
        f"after/before {med['after'] / med['before']:.3f} ({args.pairs} alternated rounds)"
    )


if __name__ == "__main__":
    main()
