"""What each game's search costs a user: CPU seconds per game and per move of self-play of the
default ``mcts`` and of ``mcts1`` (the default of 2026-12-02), at each game's usual player count.

usage (from the repository root, with its venv)::

    python benchmarks/search_cost.py [--game GAME ...] [--games N] [--seed S]

One process, one worker; per policy one game compiles or loads the kernels (not counted),
then ``--games`` self-play games (every seat plays the policy) are timed with process CPU time
(``search_strength.self_play_cpu``). Don Quixote is a solo game and plays 5x the games. Prints
a markdown table for README's games table and benchmarks/RESULTS.md ("Search"); asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from search_strength import self_play_cpu  # noqa: E402

#: the player count a game's cost is quoted at (the ones the strength targets use)
PLAYERS = {
    "sacred-hill": 2,
    "don-quixote": 1,
    "el-grande": 4,
    "carcassonne": 2,
    "thurn-and-taxis": 3,
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", action="append", choices=tuple(PLAYERS), help="(repeatable)")
    ap.add_argument("--games", type=int, default=4, help="timed games per policy (default 4)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.games < 1:
        ap.error(f"--games must be a positive whole number, not {a.games}")
    a.game = list(dict.fromkeys(a.game or PLAYERS))  # each game once, in the order given
    print("| game | players | policy | CPU s per game | CPU ms per move | games |")
    print("|---|---|---|---|---|---|")
    for game in a.game:
        n = a.games * (5 if PLAYERS[game] == 1 else 1)
        for policy in ("mcts", "mcts1"):
            cpu, plies = self_play_cpu(game, policy, n, a.seed, PLAYERS[game])
            print(
                f"| {game} | {PLAYERS[game]} | `{policy}` | {cpu / n:.3f} | "
                f"{1000 * cpu / plies:.2f} | {n} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
