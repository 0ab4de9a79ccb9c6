"""A first run compiles only what it needs: Sacred Hill and Don Quixote compile
the search code only for a lineup with an ``mcts`` seat, and their records and replays share the
compiled code of play (no compile of their own). Compile time itself is measured in
``benchmarks/bench_cold_start.py``, never asserted."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kernels import don_quixote as DK

ROOT = Path(__file__).resolve().parent.parent

# Runs in a new process so that the dispatchers start empty: play first (compiled, or loaded
# from the cache), then count the compiles that records and replays of those games cause.
_CHILD = r"""
import json
from numba.core import event
import mcsim
from mcsim.games import get_game
from kernels import search
from kernels import don_quixote as DK, sacred_hill as SK

games = ("sacred-hill", "don-quixote")
for g in games:
    mcsim.simulate(g, games=3, seed=5)
compiled = []

class Count(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)

    def on_end(self, ev):
        pass

event.register("numba:compile", Count())
for g in games:
    r = mcsim.simulate(g, games=3, seed=5, record=2)
    for rec in r.records:
        get_game(g).replay(rec)
print(json.dumps({
    "compiled_by_records_and_replays": compiled,
    "search_signatures": len(search.search.signatures),
    "sh_entries": [len(SK.play_batch.signatures), len(SK.play_batch_search.signatures)],
    "dq_entries": [
        len(DK.play_batch_simple.signatures),
        len(DK.play_batch_search.signatures),
    ],
}))
"""


def test_records_and_replays_share_play_code_and_no_search_is_compiled():
    p = subprocess.run(
        [sys.executable, "-c", _CHILD], capture_output=True, text=True, cwd=ROOT, check=True
    )
    got = json.loads(p.stdout.strip().splitlines()[-1])
    assert got == {
        "compiled_by_records_and_replays": [],
        "search_signatures": 0,
        "sh_entries": [1, 0],
        "dq_entries": [1, 0],
    }


def test_entry_kernels_by_lineup():
    """Don Quixote's entry for a lineup: simple policies, or every policy (planning, search)."""
    ids = np.array
    assert DK.entry_for(ids([DK.POL_RANDOM, DK.POL_HEURISTIC])) is DK.play_batch_simple
    assert DK.entry_for(ids([DK.POL_GREEDY, DK.POL_ORACLE])) is DK.play_batch_search
    assert DK.entry_for(ids([DK.POL_ROLLOUT, DK.POL_MCTS])) is DK.play_batch_search


def test_simple_entry_refuses_a_search_seat():
    """A lineup the entry kernel cannot play is an error, not a silent other policy."""
    from mcsim.games import don_quixote as G
    from mcsim.runner import resolve_config

    prep = G.prepare(resolve_config("don-quixote", 1, ["mcts"])[1])
    score, bd = G.new_outputs(1, 1)
    n_land = prep.tables["tiles"].shape[0] - 2
    with pytest.raises(ValueError, match="random, greedy and heuristic seats only"):
        DK.play_batch_simple(
            np.int64(0),
            np.int64(1),
            np.uint64(1),
            prep.policy_ids,
            prep.policy_params,
            prep.variant_codes,
            prep.tables["tiles"],
            score,
            bd,
            G.empty_record(0, 1, n_land),
        )
