"""Cold and warm start of every game, as a user meets it on the command line.

Each step is one new process running the installed ``mcsim`` command, timed from outside
(wall seconds: interpreter start, import, Numba compile or cache load, play, output):

* ``default``: ``mcsim simulate GAME --games 10`` (the default policy, ``random``);
* ``heuristic``: the same with ``-p HEURISTIC`` (the game's main heuristic, ``HEURISTICS``);
* ``record``: ``mcsim simulate GAME --games 1 --record 1 --record-out rec.json`` right after
  ``default`` in the same cache (what writing a record adds once play is compiled);
* ``replay``: ``mcsim replay GAME rec.json``;
* ``mcts`` (``--mcts``; every game): ``-p mcts --games 2`` (every seat searches);
  ``--mcts-only`` times that step alone (its cold minus warm CPU is the compile: the first
  ``mcts`` run of a fresh install).

"cold" runs each of ``default``, ``heuristic``, ``replay`` and ``mcts`` with its own empty
``NUMBA_CACHE_DIR`` (a fresh install); "warm" runs the same command again on that cache.

Usage::

    python benchmarks/bench_cold_start.py                     # every game, print the table
    python benchmarks/bench_cold_start.py --game sacred-hill  # one game (repeatable)
    python benchmarks/bench_cold_start.py --mcts --json out.json
    python benchmarks/bench_cold_start.py --mcts-only              # the first mcts run per game
    python benchmarks/bench_cold_start.py --tree /tmp/base   # another checkout (before/after)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("sacred-hill", "don-quixote", "el-grande", "carcassonne", "thurn-and-taxis")
HEURISTICS = {
    "sacred-hill": "tactician",
    "don-quixote": "heuristic",
    "el-grande": "heuristic",
    "carcassonne": "heuristic",
    "thurn-and-taxis": "route",
}
MCTS_GAMES = GAMES


def _mcsim() -> list[str]:
    exe = Path(sys.executable).with_name("mcsim")
    return [str(exe)] if exe.exists() else [sys.executable, str(ROOT / "cli.py")]


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(args: list[str], cache: str, tree: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of ``mcsim ARGS`` in a new process with ``NUMBA_CACHE_DIR=cache``,
    importing the code of ``tree`` (a checkout; ``PYTHONPATH`` puts it first). CPU seconds are
    user + system time of the process and its workers: on a shared machine they move far less
    with the load than wall seconds."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(tree))
    c = _child_cpu()
    t = time.perf_counter()
    p = subprocess.run(_mcsim() + args, env=env, capture_output=True, text=True, cwd=tree)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise RuntimeError(f"mcsim {' '.join(args)}: {p.stderr.strip()[-400:]}")
    return dt, _child_cpu() - c


def measure(game: str, mcts: bool, work: Path, tree: Path = ROOT, mcts_only: bool = False) -> dict:
    """Cold and warm seconds of each step for one game (see the module docstring)."""
    rec = work / f"{game}.json"
    sim = ["simulate", game, "--games", "10", "--seed", "1"]
    steps = {
        "default": sim,
        "heuristic": sim + ["-p", HEURISTICS[game]],
        "replay": ["replay", game, str(rec)],
    }
    if mcts_only:
        steps = {}
    if (mcts or mcts_only) and game in MCTS_GAMES:
        steps["mcts"] = ["simulate", game, "--games", "2", "--seed", "1", "-p", "mcts"]
    out: dict = {"game": game}
    caches = {}
    for name, args in steps.items():
        cache = caches[name] = str(work / f"cache-{game}-{name}")
        out[f"cold_{name}"] = timed(args, cache, tree)
        if name == "default":
            out["record_after_play"] = timed(
                sim[:2] + ["--games", "1", "--record", "1", "--record-out", str(rec)], cache, tree
            )
    for name, args in steps.items():
        out[f"warm_{name}"] = timed(args, caches[name], tree)
    return out


def row(r: dict) -> str:
    def f(key):
        return f"{r[key][1]:.1f} ({r[key][0]:.0f})" if key in r else ""

    return (
        f"| {r['game']} | {f('cold_default')} | {f('cold_heuristic')} | {f('record_after_play')} "
        f"| {f('cold_replay')} | {f('cold_mcts')} | {f('warm_default')} | {f('warm_heuristic')} "
        f"| {f('warm_replay')} | {f('warm_mcts')} |"
    )


HEADER = (
    "CPU seconds (wall seconds in brackets)\n\n| game | cold default | cold heuristic | record after play | cold replay | cold mcts "
    "| warm default | warm heuristic | warm replay | warm mcts |\n"
    "|---|---|---|---|---|---|---|---|---|---|"
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", action="append", choices=GAMES, help="game (repeatable)")
    ap.add_argument("--mcts", action="store_true", help="also time -p mcts (two games)")
    ap.add_argument("--mcts-only", action="store_true", help="time only -p mcts (two games)")
    ap.add_argument("--json", help="append the rows (JSON lines) to this file")
    ap.add_argument("--tree", type=Path, default=ROOT, help="checkout to measure (default: this)")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="mcsim-cold-"))
    try:
        print(HEADER, flush=True)
        for game in a.game or GAMES:
            r = measure(game, a.mcts, work, a.tree.resolve(), a.mcts_only)
            print(row(r), flush=True)
            if a.json:
                with open(a.json, "a") as fh:
                    fh.write(json.dumps(r) + "\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
