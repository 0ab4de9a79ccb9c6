"""The Carcassonne ``mcts`` policy: information-set MCTS over the tile order, the
other seats' gift cards and the gift deck (docs/rules/carcassonne.md §3.1, §4.3, §6 #13).

No peeking (what the deciding seat cannot see does not change its decision), determinism across
worker counts, records of mcts games replay (with and without The Gifts), bad parameters are
one-line errors. Small iteration counts keep these fast; the golden tables
(tests/test_golden_tables.py) hold the default parameters' per-game results.
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numba import njit

import kernels.carcassonne as K
import mcsim
from kernels.carcassonne.search_steps import CarcassonneSearchContext, _s_determinize
from kernels.rng import new_state
from mcsim.games import carcassonne as G
from mcsim.games.carcassonne.records import record_to_arrays
from mcsim.games.carcassonne.show import state_after_turns
from mcsim.runner import resolve_config
from tests.conftest import one_error_line

FAST = "mcts:iterations=40,width=4,depth=4"


# The determinization is reached here through this compiled wrapper, which builds ``ctx`` as
# ``search_steps._search_ctx`` does (inlined there: see the comment above it). Decisions go
# through ``K.mcts_move``, which calls the play loop's own compiled chooser (one compile of the
# search serves the play loop and these tests).
@njit
def _ctx(T, codes, H, params, scr, cur):
    return CarcassonneSearchContext(
        T,
        codes,
        H,
        np.int64(params[K.M_ROLLOUT]),
        scr[14],
        scr[11],
        scr[12],
        scr[13],
        scr[15],
        np.int64(params[K.M_WIDTH]),
        np.int64(params[K.M_DEPTH]),
        scr[16],
        np.int64(cur),
        np.int64(0),  # no restricted-play mask
    )


@njit
def _determinized(S, T, H, codes, cur, t, params, rng, scr, out):
    """The search root of a placement decision, determinized once into ``out``."""
    K.search_root(S, out, cur, K.PH_PLACE, t, -1, -1, -1, 0)
    _s_determinize(out, _ctx(T, codes, H, params, scr, cur), rng)


def _heuristic_weights():
    return np.array([p.default for p in G.HEURISTIC_PARAMS], dtype=np.float64)


def _position(seed, game, turn):
    """Seat to move, tile in hand, state and tables at ``turn`` of a heuristic game with The
    Gifts (replayed from its record; the turn's tile is already drawn)."""
    _, cfg = resolve_config("carcassonne", 2, ["heuristic"], {"gifts": "true"})
    prep = G.prepare(cfg)
    rec = G.record_games(prep, seed, [game])[0]
    players, variant, tscript, gscript, rows = record_to_arrays(rec)
    codes = G.SPEC.variant_codes(variant)
    T = prep.tables["T"]
    S = state_after_turns(players, codes, T, tscript, gscript, rows[:turn])
    assert S.sc[K.S_TURN] == turn and S.sc[K.S_FINISHED] == 0
    return int(rows[turn, K.L_PLAYER]), int(rows[turn, K.L_TILE]), S, T, codes


def _hide_differently(S, cur, rng):
    """A copy of ``S`` in which only what seat ``cur`` cannot see differs: the remaining tile
    order, the other seat's gift cards (same count), the gift deck, the chance stream."""
    S2 = K.GameState(*[a.copy() for a in S])
    pos, n = S2.sc[K.S_PILE_POS], S2.sc[K.S_PILE_N]
    S2.pile[pos : pos + n] = rng.permutation(S2.pile[pos : pos + n])
    other = 1 - cur
    held = int(S2.hand[other].sum())
    S2.hand[other] = 0
    S2.hand[other, rng.integers(0, K.N_GIFT, held)] += 1
    S2.gdeck[:] = rng.integers(0, 5, K.N_GIFT)
    S2.srng[:] = rng.integers(1, 2**62, 4, dtype=np.uint64)
    return S2


@pytest.mark.parametrize("variant", [{}, {"gifts": "true"}])
def test_mcts_deterministic_across_workers_and_records_replay(variant):
    """Determinism: same seed, same games for 1 and 2 workers; records of mcts games replay
    (``mcsim replay``) to the run's points, with and without The Gifts."""
    pol = [FAST, "heuristic"]
    kw = dict(games=4, seed=3, policies=pol, variant=variant)
    a = mcsim.simulate("carcassonne", workers=1, record=2, **kw)
    b = mcsim.simulate("carcassonne", workers=2, chunk_size=1, **kw)
    pd.testing.assert_frame_equal(a.games, b.games)
    for rec in a.records:
        row = a.games.iloc[rec["game_index"]]
        out = G.replay(json.loads(json.dumps(rec)))
        assert out["finished"] and out["points"] == [row["score_0"], row["score_1"]]
    assert rec["policies"][0].startswith("mcts:")


# after the determinism test: its play loop compiles the chooser that ``K.mcts_move`` calls
@pytest.mark.parametrize("turn", [9, 30])
def test_mcts_does_not_peek(turn):
    """No peeking: the placement chosen for the same random state does not change when the
    tile order, the opponent's gift cards and the gift deck change; and the determinization of
    the two states is identical (it rebuilds them from what the seat has seen)."""
    cur, t, S, T, codes = _position(5, 0, turn)
    S2 = _hide_differently(S, cur, np.random.default_rng(turn))
    assert S2.hand[1 - cur].sum() > 0, "the opponent holds a gift card: something is hidden"
    assert not (np.array_equal(S.hand, S2.hand) and np.array_equal(S.pile, S2.pile)), (
        "the hidden parts differ"
    )
    _, cfg = resolve_config("carcassonne", 2, [FAST], {"gifts": "true"})
    params = G.prepare(cfg).policy_params[0]
    H = K.new_scratch()
    picks = []
    for state in (S, S2):
        scr = K.search_scratch(2, int(params[K.M_ITER]) + 1, _heuristic_weights())
        rng = new_state(7, turn, 16)
        picks.append(
            K.mcts_move(state, T, codes, cur, K.PH_PLACE, t, params, rng, scr, heuristic_scratch=H)
        )
    assert picks[0] == picks[1]
    assert picks[0] // 4 in set(S.front[: S.sc[K.S_NFRONT]])
    # the determinizations themselves (same stream) agree on everything hidden
    scr = K.search_scratch(2, 2, _heuristic_weights())
    outs = []
    for state in (S, S2):
        w = K.new_game_state()
        _determinized(state, T, H, codes, cur, t, params, new_state(7, 0, 16), scr, w)
        outs.append(w)
    for name in ("pile", "hand", "gdeck", "gdisc", "avail", "srng"):
        np.testing.assert_array_equal(getattr(outs[0], name), getattr(outs[1], name), name)
    assert (outs[0].hand[cur] == S.hand[cur]).all()  # its own cards stay
    assert outs[0].hand[1 - cur].sum() == S.hand[1 - cur].sum()  # counts are public


def test_mcts_record_replays_on_the_command_line(run, tmp_path):
    rec = tmp_path / "rec.json"
    r = run(
        "simulate", "carcassonne", "-n", 1, "-p", FAST, "-p", "random", "--variant",
        "gifts=true", "--record", 1, "--record-out", rec, "-w", 1, "-q",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    r = run("replay", "carcassonne", rec)
    assert r.exit_code == 0 and "Error" not in r.output, r.output


@pytest.mark.parametrize(
    "policy, text",
    [
        ("mcts:iterations=0", "iterations"),
        ("mcts:reward=2", "reward"),
        ("mcts:rollout=2", "rollout"),
        ("mcts:iterations=1.5", "whole number"),
        ("mcts:width=-1", "width"),
        ("mcts:depth=100", "depth"),
    ],
)
def test_mcts_bad_parameters_are_one_line(run, policy, text):
    one_error_line(run("simulate", "carcassonne", "-n", 2, "-p", policy, "-p", "random"), 2, text)


# Python calls the search choosers after the play loop has compiled them (and cached them
# without NRT): ``K.mcts_move`` and ``K.flat_move`` with Python ints and a bool. The search
# context was once built by a compiled function of its own; a chooser compiled for Python (a
# ``flat_move`` call, or argument types the loop never used) linked the loop's NRT-free build
# of it, released arrays it had never been given, and glibc aborted ("malloc_consolidate():
# unaligned fastbin chunk detected"). So this runs in a child process.
_PYTHON_CALLS = f"""
import gc
import numpy as np
import kernels.carcassonne as K
import mcsim
from kernels.rng import new_state
from mcsim.runner import resolve_config
from tests.test_carcassonne_mcts import _heuristic_weights, _position
# the play loop compiles (or loads) the choosers first, without NRT
mcsim.simulate("carcassonne", games=1, seed=1, policies=["{FAST}", "heuristic"], workers=1)
cur, t, S, T, codes = _position(5, 0, 9)
from mcsim.games import carcassonne as G
params = G.prepare(resolve_config("carcassonne", 2, ["{FAST}"], {{}})[1]).policy_params[0]
scr = K.search_scratch(2, int(params[K.M_ITER]) + 1, _heuristic_weights())
front = set(int(c) for c in S.front[: S.sc[K.S_NFRONT]])
moves = []
for rep in range(3):
    for choose in (K.mcts_move, K.flat_move):
        mv = choose(S, T, codes, cur, K.PH_PLACE, t, params, new_state(7, 9, 16), scr,
                    earned=False)
        gc.collect()
        assert mv // 4 in front, mv
        moves.append(mv)
print(moves)
"""


def test_search_choosers_called_from_python_return_legal_moves():
    """``K.mcts_move`` / ``K.flat_move`` from Python, after the NRT-free play loop compiled the
    search: a legal placement (its cell on the frontier), the same for the same stream."""
    root = Path(__file__).resolve().parent.parent
    r = subprocess.run(
        [sys.executable, "-c", _PYTHON_CALLS],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    moves = json.loads(r.stdout.strip().splitlines()[-1])
    assert len(moves) == 6
    assert moves[0::2] == [moves[0]] * 3 and moves[1::2] == [moves[1]] * 3


def test_search_choosers_refuse_scratch_that_does_not_fit():
    """``K.mcts_move`` checks what the compiled search would trust: a scratch too small for the
    iterations, or for another seat count, and a wrong random stream are one-line errors."""
    cur, t, S, T, codes = _position(5, 0, 9)
    _, cfg = resolve_config("carcassonne", 2, [FAST], {})
    params = G.prepare(cfg).policy_params[0]
    small = K.search_scratch(2, 2, _heuristic_weights())
    fits = K.search_scratch(3, int(params[K.M_ITER]) + 1, _heuristic_weights())
    rng = new_state(7, 9, 16)
    cases = [
        ((small, rng), "capacity >= iterations + 1 = 41"),
        ((fits, rng), "search_scratch is for 3 seats, the state has 2"),
        ((fits, np.zeros(4, dtype=np.int64)), "rng must be a uint64[4] random stream"),
    ]
    for (scr, r), text in cases:
        with pytest.raises(ValueError, match=r"^[^\n]*$") as e:
            K.mcts_move(S, T, codes, cur, K.PH_PLACE, t, params, r, scr)
        assert text in str(e.value)
