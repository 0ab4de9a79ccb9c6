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
with its Wilson 95% interval. With ``--players K`` (K >= 3) P sits in one seat and ``--vs`` in
the other K - 1, P's seat rotated through all K on the same ``-n`` deals (``one_seat_share``;
equal share 1/K), and the row also gives P's points minus the other seats' mean. CPU seconds
per move of P: one process, ``--cpu-games`` self-play games of P (every seat P, ``--players``
seats, after a game to compile; 0 games: not measured, NaN), process CPU time divided by the
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


def self_play_cpu(
    game: str, policy: str, games: int, seed: int, players: int | None = None
) -> tuple[float, int]:
    """(CPU seconds, plies) of ``games`` self-play games of ``policy`` (every seat plays it;
    one process, one worker, after one game that compiles or loads the kernels, which is not
    counted). Process CPU time, so the figure moves little with the machine's load."""
    kw = {"players": players} if players else {}
    mcsim.simulate(game, games=1, seed=seed, policies=[policy], workers=1, **kw)
    t = time.process_time()
    r = mcsim.simulate(game, games=games, seed=seed, policies=[policy], workers=1, **kw)
    return time.process_time() - t, int(r.games["length_plies"].sum())


def cpu_per_move(
    game: str, policy: str, games: int, seed: int, players: int | None = None
) -> float:
    """CPU seconds per ply of self-play of ``policy`` (``self_play_cpu``); NaN for ``games``
    0."""
    if games <= 0:
        return float("nan")
    cpu, plies = self_play_cpu(game, policy, games, seed, players)
    return cpu / float(plies)


def win_share(game: str, policy: str, vs: str, games: int, seed: int, workers: int) -> dict:
    """``policy``'s win share against ``vs`` over both seat orders (``mcsim.tournament``):
    ``{estimate, low, high}`` (Wilson 95%) and ``games`` (both seat orders)."""
    t = tournament(game, [policy, vs], games=games, seed=seed, workers=workers)
    return {**t["matrix"][0][1], "games": 2 * int(t["games_per_lineup"])}


def one_seat_share(
    game: str, policy: str, vs: str, games: int, seed: int, workers: int, players: int
) -> dict:
    """``policy`` in one seat, every other seat ``vs``, the policy's seat rotated through all
    ``players`` seats on the same deals (game i of ``seed`` in every rotation): its win share
    (a shared win counts 1/k) with a Wilson 95% interval over all rotations, and its mean
    points minus the other seats' mean with a 95% interval (per-deal mean over rotations)."""
    import numpy as np

    from mcsim.stats import wilson_interval

    shares, diffs = [], []
    for s in range(players):
        lineup = [vs] * players
        lineup[s] = policy
        g = mcsim.simulate(
            game, games=games, seed=seed, policies=lineup, players=players, workers=workers
        ).games
        shares.append(g[f"win_share_{s}"].to_numpy(float))
        others = [f"score_{k}" for k in range(players) if k != s]
        diffs.append(g[f"score_{s}"].to_numpy(float) - g[others].to_numpy(float).mean(axis=1))
    won = np.concatenate(shares)
    low, high = wilson_interval(float(won.sum()), won.size)
    per_deal = np.mean(diffs, axis=0)
    half = 1.96 * per_deal.std(ddof=1) / np.sqrt(per_deal.size)
    return {
        "estimate": float(won.mean()),
        "low": low,
        "high": high,
        "games": int(won.size),
        "points_diff": float(per_deal.mean()),
        "points_half": float(half),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("--old", action="append", default=[], help="a policy of the old search")
    ap.add_argument("--new", action="append", default=[], help="a policy of the new search")
    ap.add_argument("--ladder", action="append", default=[], help="played against --new[0]")
    ap.add_argument("--vs", default="mcts1", help="the reference policy (default mcts1)")
    ap.add_argument("-n", "--games", type=int, default=200, help="games per seat order")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument(
        "--players",
        type=int,
        default=0,
        help="3+: one seat of the policy against the rest at --vs, rotated (-n games per seat)",
    )
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
            cpu[p] = cpu_per_move(a.game, p, a.cpu_games, a.seed, a.players or None)
        return cpu[p]

    plan = [("old", p, a.vs) for p in a.old] + [("new", p, a.vs) for p in a.new]
    plan += [("ladder", p, a.new[0]) for p in a.ladder]
    if a.from_csv:
        plan = []
    for family, p, vs in plan:
        t0 = time.process_time()
        if a.players > 2:
            cell = one_seat_share(a.game, p, vs, a.games, a.seed, a.workers, a.players)
        else:
            cell = win_share(a.game, p, vs, a.games, a.seed, a.workers)
        share, low, high = cell["estimate"], cell["low"], cell["high"]
        row = {
            "family": family,
            "policy": p,
            "vs": vs,
            "games": cell["games"],
            "points_diff": round(cell.get("points_diff", float("nan")), 2),
            "points_half": round(cell.get("points_half", float("nan")), 2),
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
        (
            f"games: the policy in one seat of {a.players}, rotated through every seat"
            if a.players > 2
            else "games: both seat orders"
        )
        + "; CPU ms per move: self-play of the policy, one process",
        "",
        "| family | policy | against | games | win share [95%] | points - others' | CPU ms per "
        "move | theirs |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        pts = float(r.get("points_diff", "nan"))
        pts = "" if pts != pts else f"{pts:+.2f} +- {float(r['points_half']):.2f}"
        lines.append(
            f"| {r['family']} | `{r['policy']}` | `{r['vs']}` | {r['games']} | {r['win_share']:.3f} "
            f"[{r['low']:.3f}, {r['high']:.3f}] | {pts} | {1000 * r['cpu_s_per_move']:.2f} | "
            f"{1000 * r['vs_cpu_s_per_move']:.2f} |"
        )
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for family, style in (("old", "o-"), ("new", "s-")):
        rs = sorted(
            (
                r
                for r in rows
                if r["family"] == family and r["cpu_s_per_move"] == r["cpu_s_per_move"]
            ),
            key=lambda r: r["cpu_s_per_move"],
        )  # rows without a CPU measurement (NaN) are in the table, not the plot
        if not rs:
            continue
        x = [1000 * r["cpu_s_per_move"] for r in rs]
        y = [r["win_share"] for r in rs]
        err = [[r["win_share"] - r["low"] for r in rs], [r["high"] - r["win_share"] for r in rs]]
        ax.errorbar(x, y, yerr=err, fmt=style, capsize=3, label=f"{family} search")
    ax.axhline(1.0 / a.players if a.players > 2 else 0.5, color="grey", lw=0.8)  # equal share
    ax.set_xscale("log")
    # plain numbers on the log axis at 1, 2, 5 x 10^k (not crowded 3x10^-1, 4x10^-1, ...)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.xaxis.set_minor_locator(matplotlib.ticker.LogLocator(subs=(2.0, 5.0)))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.set_xlabel("CPU ms per move (self-play, one process)")
    ax.set_ylabel(f"win share against {a.vs} (95%)")
    ax.set_title(f"{a.game}: search strength per CPU second")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out.with_suffix(".png"), dpi=110)


if __name__ == "__main__":
    main()
