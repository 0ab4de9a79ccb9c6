"""What a default ``mcsim ladder`` at ±0.03 would cost: CPU seconds per game of each default
rung's self-play (2 games in this process, after the compile), and the total at the worst case
p = 0.5 of (1.96 * 0.5 / 0.03)**2 = 1068 games for every run (5 rungs of self-play plus, per
curve point, one run per seat with the new rung in that seat).

Usage: ``python benchmarks/ladder_cost.py GAME PLAYERS`` (benchmarks/RESULTS.md, "Skill
ladders").
"""

import sys
import time

from mcsim.ladder import default_rungs
from mcsim.runner import resolve_config

N = 1068
game, players = sys.argv[1], int(sys.argv[2])
rungs = default_rungs(game)
cost = []
for r in rungs:
    module, cfg = resolve_config(game, players, [r], None, None)
    prep = module.prepare(cfg)
    module.play_chunk(prep, 0, 0, 0)  # compile / cache load
    t = time.process_time()
    module.play_chunk(prep, 0, 2, 0)
    c = (time.process_time() - t) / 2
    cost.append(c)
    print(f"{game} {players}p {r}: {c:.3f} s CPU/game", flush=True)
k = players
per_run = sum(cost) + sum(cost[r] + (k - 1) * cost[r - 1] for r in range(1, len(cost)))
print(
    f"{game} {players}p: ladder at ±0.03 ~ {N} games per run, {N * per_run / 3600:.1f} h CPU "
    f"({N * per_run / 3600 / 2:.1f} h on 2 cores); top rung self-play alone {N * cost[-1] / 3600:.1f} h",
    flush=True,
)
