"""Search strength per CPU second: win share against a reference policy (default ``mcts1``,
the ``mcts`` of 2026-12-02) as a function of CPU seconds per move, for two families of
policies (the old search at several iteration budgets, the new one at several), and a
doubling ladder (which of the reference at 2x, 4x, 8x its budget a policy matches).

usage (from the repository root, with its venv; any game with ``mcts`` and ``mcts1``)::

    python benchmarks/search_strength.py GAME --out benchmarks/GAME_search_strength \\
        --old mcts1:iterations=250 --old mcts1:iterations=1000 ... \\
        --new mcts:iterations=500 --new mcts ... \\
        [--ladder mcts1:iterations=2000 ...] [--vs mcts1] [-n GAMES] [--seed S] [--cpu-games G]

Each policy P plays ``mcsim.tournament`` against ``--vs`` (both seat orders, common deals; in
Sacred Hill each game also has its mirror game) for ``-n`` games per seat order: P's win share
with its Wilson 95% interval. CPU seconds per move of P: one process, ``--cpu-games``
self-play games of P (every seat P, after a game to compile), process CPU time divided by the
plies played (forced moves and passes included, as a game has them). ``--ladder`` policies are
played against the first ``--new`` policy instead (the new search's position on the doubling
ladder of the old one: a win share above 0.5 says the new search is stronger).

Writes ``OUT.csv`` (one row per pairing), ``OUT.md`` (the same as a markdown table) and
``OUT.png`` (win share against CPU seconds per move, log scale, old and new). Parts can run
in parallel (``--old`` in one process, ``--new`` in another, each with its own ``--out``) and be
merged with ``--from-csv A.csv --from-csv B.csv --out OUT``. Nothing is asserted; the figures
go to benchmarks/RESULTS.md ("Search").
"""

from __future__ import annotations

import argparse
import csv
import os
import time
from pathlib import Path

import mcsim
from mcsim.tournament import tournament


def cpu_per_move(game: str, policy: str, games: int, seed: int) -> float:
    """CPU seconds per ply of self-play of ``policy`` (one process, compile excluded)."""
    mcsim.simulate(game, games=1, seed=seed, policies=[policy], workers=1)
    t = time.process_time()
    r = mcsim.simulate(game, games=games, seed=seed, policies=[policy], workers=1)
    cpu = time.process_time() - t
    return cpu / float(r.games["length_plies"].sum())


def win_share(game: str, policy: str, vs: str, games: int, seed: int, workers: int) -> dict:
    """``policy``'s win share against ``vs`` over both seat orders (``mcsim.tournament``):
    ``{estimate, low, high}`` (Wilson 95%) and ``games`` (both seat orders)."""
    t = tournament(game, [policy, vs], games=games, seed=seed, workers=workers)
    return {**t["matrix"][0][1], "games": 2 * int(t["games_per_lineup"])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("--old", action="append", default=[], help="a policy of the old search")
    ap.add_argument("--new", action="append", default=[], help="a policy of the new search")
    ap.add_argument("--ladder", action="append", default=[], help="played against --new[0]")
    ap.add_argument("--vs", default="mcts1", help="the reference policy (default mcts1)")
    ap.add_argument("-n", "--games", type=int, default=200, help="games per seat order")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--cpu-games", type=int, default=20)
    ap.add_argument("-w", "--workers", type=int, default=1)
    ap.add_argument("--out", required=True, help="output path without extension")
    ap.add_argument(
        "--from-csv",
        action="append",
        default=[],
        help="play nothing: merge these CSVs of earlier runs (parts run in parallel) into OUT",
    )
    a = ap.parse_args()

    rows = []
    cpu: dict[str, float] = {}
    for f in a.from_csv:
        with open(f, newline="") as fh:
            for r in csv.DictReader(fh):
                for k in ("win_share", "low", "high", "cpu_s_per_move", "vs_cpu_s_per_move"):
                    r[k] = float(r[k])
                rows.append(r)

    def cpu_of(p: str) -> float:
        if p not in cpu:
            cpu[p] = cpu_per_move(a.game, p, a.cpu_games, a.seed)
        return cpu[p]

    plan = [("old", p, a.vs) for p in a.old] + [("new", p, a.vs) for p in a.new]
    plan += [("ladder", p, a.new[0]) for p in a.ladder]
    if a.from_csv:
        plan = []
    for family, p, vs in plan:
        t0 = time.process_time()
        cell = win_share(a.game, p, vs, a.games, a.seed, a.workers)
        share, low, high = cell["estimate"], cell["low"], cell["high"]
        row = {
            "family": family,
            "policy": p,
            "vs": vs,
            "games": cell["games"],
            "win_share": round(share, 4),
            "low": round(low, 4),
            "high": round(high, 4),
            "cpu_s_per_move": cpu_of(p),
            "vs_cpu_s_per_move": cpu_of(vs),
            "tournament_cpu_s_this_process": round(time.process_time() - t0, 1),
        }
        rows.append(row)
        print(row, flush=True)

    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.with_suffix(".csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    how = (
        f"merged from {', '.join(Path(f).name for f in a.from_csv)}"
        if a.from_csv
        else f"load average {os.getloadavg()[0]:.1f} at the end"
    )
    lines = [
        f"`python benchmarks/search_strength.py {a.game} ... -n {a.games} --seed {a.seed} "
        f"--cpu-games {a.cpu_games}` ({how})",
        "",
        "games: both seat orders; CPU ms per move: self-play of the policy, one process",
        "",
        "| family | policy | against | games | win share [95%] | CPU ms per move | theirs |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['family']} | `{r['policy']}` | `{r['vs']}` | {r['games']} | {r['win_share']:.3f} "
            f"[{r['low']:.3f}, {r['high']:.3f}] | {1000 * r['cpu_s_per_move']:.2f} | "
            f"{1000 * r['vs_cpu_s_per_move']:.2f} |"
        )
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for family, style in (("old", "o-"), ("new", "s-")):
        rs = sorted((r for r in rows if r["family"] == family), key=lambda r: r["cpu_s_per_move"])
        if not rs:
            continue
        x = [1000 * r["cpu_s_per_move"] for r in rs]
        y = [r["win_share"] for r in rs]
        err = [[r["win_share"] - r["low"] for r in rs], [r["high"] - r["win_share"] for r in rs]]
        ax.errorbar(x, y, yerr=err, fmt=style, capsize=3, label=f"{family} search")
    ax.axhline(0.5, color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("CPU ms per move (self-play, one process)")
    ax.set_ylabel(f"win share against {a.vs} (95%)")
    ax.set_title(f"{a.game}: search strength per CPU second")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out.with_suffix(".png"), dpi=110)


if __name__ == "__main__":
    main()
