"""How often Thurn and Taxis' ``all_regions_includes_baiern`` binds (the §7.1 default's cost; a rules
measurement, not a throughput run).

The variant (docs/rules/thurn_und_taxis.md §7.1) matters only when a player holds houses in the
8 non-Baiern regions and none in Baiern. For random and route play with 2, 3 and 4 players:

* ``games_changed``: games (seed 2026, games 0..n-1) in which any score, the winner or the number of
  all-regions tiles taken differs between the two readings (the same deals);
* ``taken_without_baiern``: in records of the default reading, closes where a player takes the
  all-regions tile while holding no house in Baiern (the reading ``true`` would refuse it then),
  out of ``tiles_taken``.

Usage::

    python benchmarks/tt_all_regions_baiern.py                  # 2000/5000 games, 300/1000 records
    python benchmarks/tt_all_regions_baiern.py --games 200 20 --records 20 20   # quick
"""

from __future__ import annotations

import argparse
import json

import mcsim
from mcsim.games import thurn_and_taxis as T
from mcsim.runner import resolve_config


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs=2, type=int, default=[2000, 5000], metavar=("RANDOM", "ROUTE"))
    ap.add_argument(
        "--records", nargs=2, type=int, default=[300, 1000], metavar=("RANDOM", "ROUTE")
    )
    ap.add_argument("--seed", type=int, default=2026)
    a = ap.parse_args()
    d = T.default_data()
    region_of = {c["name"]: c["region"] for c in d["cities"]}
    non_baiern = set(d["regions"]) - {"Baiern"}
    for j, pol in enumerate(("random", "route")):
        for k in (2, 3, 4):
            runs = [
                mcsim.simulate(
                    "thurn-and-taxis",
                    games=a.games[j],
                    seed=a.seed,
                    policies=[pol] * k,
                    players=k,
                    workers=1,
                    variant={"all_regions_includes_baiern": v},
                ).games
                for v in ("false", "true")
            ]
            cols = [f"score_{s}" for s in range(k)] + ["winner", "tiles_all_regions"]
            changed = int((runs[0][cols].to_numpy() != runs[1][cols].to_numpy()).any(axis=1).sum())
            prep = T.prepare(resolve_config("thurn-and-taxis", k, [pol])[1])
            taken = without = 0
            for rec in T.record_games(prep, a.seed, range(a.records[j])):
                houses = [set() for _ in range(k)]
                got = [False] * k
                left = 4  # all-regions tiles (§2.2)
                for t in rec["turns"]:
                    if t["close"]:
                        p = t["seat"]
                        houses[p] |= set(t["close"]["houses"])
                        regs = {region_of[h] for h in houses[p]}
                        if not got[p] and left and non_baiern <= regs:
                            got[p], left = True, left - 1
                            taken += 1
                            without += "Baiern" not in regs
            print(
                json.dumps(
                    {
                        "policy": pol,
                        "players": k,
                        "games": a.games[j],
                        "games_tile_taken": int((runs[0]["tiles_all_regions"] > 0).sum()),
                        "games_changed": changed,
                        "records": a.records[j],
                        "tiles_taken": taken,
                        "taken_without_baiern": without,
                    }
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
