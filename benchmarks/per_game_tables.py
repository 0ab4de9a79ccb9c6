"""Per-game tables of fixed runs, to prove that a change does not alter results (or to say
exactly what moved).

Plays every game x every policy at its defaults x the ends of the player range, and each
non-default variant value at the default player count (seed 20261130; 300 games, 40 for the slow
heuristics, 12 for mcts/rollout/oracle) and saves each ``SimulationResult.games`` as Parquet.
The suite's own check is ``tests/test_golden_tables.py`` (fewer games per configuration); this
script plays more games per configuration for a change that needs a wider net.
Run it before and after a change, then compare: identical tables, tables that differ (rows and
mean scores before -> after), and configurations present on one side only.

usage (from a repository root, with its venv):
    python benchmarks/per_game_tables.py OUTDIR          # save the tables of this checkout
    python benchmarks/per_game_tables.py --compare A B   # compare two saved folders
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd

SLOW = {"heuristic", "rollout", "oracle", "route", "tactician", "mcts"}


def configs(games):
    for g in games:
        lo, hi = g["players"]
        pcs = sorted({lo, hi, g["default_players"]})
        for pol in g["policies"]:
            name = pol["name"]
            if name in ("oracle", "mcts", "rollout"):
                n = 12
            elif name in SLOW or g["id"] in ("carcassonne", "el-grande") and name != "random":
                n = 40
            else:
                n = 300
            for pc in pcs:
                yield g["id"], name, pc, {}, n
            for v in g["variants"]:
                for val in v["values"]:
                    if val == v["default"]:
                        continue
                    yield g["id"], name, g["default_players"], {v["name"]: val}, n


def main(out):
    import mcsim

    games = json.loads(
        subprocess.check_output(
            [str(Path(sys.executable).parent / "mcsim"), "games", "--json"], cwd=os.getcwd()
        )
    )
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for gid, pol, pc, var, n in configs(games):
        key = f"{gid}__{pol}__{pc}p__" + ("_".join(f"{k}={v}" for k, v in var.items()) or "default")
        f = out / (key + ".parquet")
        if f.exists():
            continue
        try:
            r = mcsim.simulate(
                gid, games=n, seed=20261130, policies=[pol], players=pc, variant=var, workers=1
            )
            r.games.to_parquet(f)
            print("ok", key, flush=True)
        except Exception as e:  # noqa
            print("ERR", key, type(e).__name__, str(e)[:200], flush=True)


def compare(a, b):
    a, b = Path(a), Path(b)
    same = diff = 0
    for f in sorted(a.glob("*.parquet")):
        g = b / f.name
        if not g.exists():
            print("missing", f.name)
            continue
        x, y = pd.read_parquet(f), pd.read_parquet(g)
        cols = [c for c in x.columns if c in y.columns]
        extra = sorted(set(y.columns) ^ set(x.columns))
        try:
            pd.testing.assert_frame_equal(x[cols], y[cols])
            same += 1
            if extra:
                print("same (column set differs:", extra, ")", f.name)
        except AssertionError:
            diff += 1
            sc = [c for c in cols if c.startswith("score_")]
            print(
                "DIFF",
                f.name,
                "rows differing:",
                int((x[cols] != y[cols]).any(axis=1).sum()),
                "mean scores",
                x[sc].mean().round(3).tolist(),
                "->",
                y[sc].mean().round(3).tolist(),
            )
    print(f"{same} identical, {diff} differ")


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir", nargs="?", help="folder to save this checkout's tables in")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"), help="compare two saved folders")
    args = ap.parse_args()
    if args.compare:
        compare(*args.compare)
    elif args.outdir:
        main(args.outdir)
    else:
        ap.error("give OUTDIR or --compare A B")
