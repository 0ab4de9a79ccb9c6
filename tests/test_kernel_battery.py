"""One battery of kernel checks over every registered game (OpenSpiel's ``RandomSimTest`` habit):
a new game gets it by registering its search steps (``kernels.search.register``) and its
``search_start`` hook.

Random games through the search steps (``copy, determinize, legal, to_move, apply, rollout``;
kernels/search.py, "Game interface"), called as the search calls them (through its stubs, from
compiled code: some games compile their steps without CPython wrappers), with checks at every
ply:

- the legal moves are distinct and non-empty until the end, and the game ends;
- a copy equals the original: every array of the state, or, where the game's copy step copies
  only the live part of the state (Carcassonne: placed tiles, live nodes and the frontier; what
  lies beyond is never read), the same seat to move, the same legal moves and, every seventh
  ply, the same rollout scores from the same random stream;
- applying a move to a copy leaves the original unchanged;
- determinizing a copy leaves unchanged what the seat to move decides on: whose turn it is and
  its legal moves. At every ply where the search state is a position; El Grande's is a round
  start plus the searching seat's own decisions, the other seats' choices after the root being
  redrawn by each determinization (``kernels/el_grande/search_steps.py``), so there only the
  root is an information set and the check is made there;
- a rollout from a copy leaves the original unchanged and gives finite scores, one per seat;
  from the final position it gives the same scores every time.

Then the protocol path: ``mcts`` at a tiny budget plays whole games whose records replay to the
points of the run, and two runs with the same seed agree game by game.
"""

import copy

import numpy as np
import pytest
from numba import njit

import mcsim
from kernels import search
from mcsim.games import all_games
from mcsim.runner import resolve_config

GAMES = all_games()
IDS = [g.SPEC.id for g in GAMES]
#: plies after which a random game through the steps is taken not to end (far above every
#: game's longest: Carcassonne 72 tiles x 2 decisions, El Grande's decisions, ...)
PLY_CAP = 20_000
#: the smallest mcts budget of each game that still searches (a light parameter set)
TINY_MCTS = {
    "sacred-hill": "mcts:iterations=8",
    "don-quixote": "mcts:iterations=8",
    "el-grande": "mcts:iterations=3",
    "carcassonne": "mcts:iterations=6,width=2,depth=2",
    "thurn-and-taxis": "mcts:iterations=6",
}


#: games whose copy step copies only the live part of the state (see the module docstring)
PARTIAL_COPY = {"carcassonne"}
#: games whose search state is a position only at the root (see the module docstring)
DETERMINIZE_AT_ROOT_ONLY = {"el-grande"}


@njit
def _copy(dst, src, ctx):
    search.game_copy(dst, src, ctx)


@njit
def _determinize(state, ctx, rng):
    search.game_determinize(state, ctx, rng)


@njit
def _legal_count(state, ctx, moves):
    return search.game_legal(state, ctx, moves)


@njit
def _to_move(state, ctx):
    return search.game_to_move(state, ctx)


@njit
def _apply(state, ctx, move):
    search.game_apply(state, ctx, move)


@njit
def _rollout(state, ctx, rng, scores):
    search.game_rollout(state, ctx, rng, scores)


STEPS = {
    "copy": _copy,
    "determinize": _determinize,
    "legal": _legal_count,
    "to_move": _to_move,
    "apply": _apply,
    "rollout": _rollout,
}


@pytest.fixture(params=GAMES, ids=IDS)
def game(request):
    return request.param


def _leaves(x):
    """The arrays of a state or context (an array, or a tuple of arrays and numbers)."""
    if isinstance(x, tuple):
        for y in x:
            yield from _leaves(y)
    else:
        yield np.asarray(x)


def _equal(a, b) -> bool:
    la, lb = list(_leaves(a)), list(_leaves(b))
    return len(la) == len(lb) and all(
        x.shape == y.shape and np.array_equal(x, y) for x, y in zip(la, lb)
    )


def _same_rollout(steps, twin, state, ctx, rng, players, plies):
    """A rollout of the copy and one of the original, from the same random stream, score the
    same: each on a deep copy of its own arrays (whatever lies beyond the live part included), so
    neither argument changes."""
    got = []
    for s in (twin, state):
        work = copy.deepcopy(s)
        scores = np.zeros(players, np.float64)
        steps["rollout"](work, ctx, rng.copy(), scores)
        got.append(scores)
    np.testing.assert_array_equal(got[0], got[1], err_msg=f"ply {plies}: copy's rollout differs")


def _legal(steps, state, ctx, moves):
    n = int(steps["legal"](state, ctx, moves))
    return sorted(int(m) for m in moves[:n])


def test_random_games_through_the_search_steps_keep_the_invariants(game):
    spec = game.SPEC
    _, cfg = resolve_config(spec.id, None, None, None, None)
    prep = game.prepare(cfg)
    picker = np.random.default_rng(7)
    for game_index in range(3):
        start, ctx = game.search_start(prep, 5, game_index)
        assert set(search.steps_for(type(ctx))) == set(search.STEP_NAMES)
        steps = STEPS
        state = copy.deepcopy(start)
        moves = np.zeros(4096, np.int64)
        scores = np.zeros(cfg.players, np.float64)
        rng = np.array([1, 2, 3, 4 + game_index], np.uint64)
        plies = 0
        while True:
            legal = _legal(steps, state, ctx, moves)
            if not legal:
                break
            assert len(set(legal)) == len(legal), f"ply {plies}: a move listed twice"
            seat = int(steps["to_move"](state, ctx))
            assert 0 <= seat < cfg.players
            before = copy.deepcopy(state)
            twin = copy.deepcopy(start)
            steps["copy"](twin, state, ctx)
            if spec.id in PARTIAL_COPY:
                assert int(steps["to_move"](twin, ctx)) == seat
                assert _legal(steps, twin, ctx, moves) == legal, f"ply {plies}: copy's moves differ"
                if plies % 7 == 0:
                    _same_rollout(steps, twin, state, ctx, rng, cfg.players, plies)
            else:
                assert _equal(twin, state), f"ply {plies}: the copy differs from the original"
            steps["determinize"](twin, ctx, rng)
            if plies == 0 or spec.id not in DETERMINIZE_AT_ROOT_ONLY:
                assert int(steps["to_move"](twin, ctx)) == seat
                assert _legal(steps, twin, ctx, moves) == legal, (
                    f"ply {plies}: determinize changed the legal moves of the seat to move"
                )
            if plies % 7 == 0:  # a rollout from here, on a copy
                steps["copy"](twin, state, ctx)
                steps["rollout"](twin, ctx, rng, scores)
                assert np.isfinite(scores).all()
                assert _equal(state, before), f"ply {plies}: a rollout changed the original"
            move = legal[int(picker.integers(len(legal)))]
            steps["copy"](twin, state, ctx)
            steps["apply"](twin, ctx, np.int64(move))
            assert _equal(state, before), f"ply {plies}: apply on a copy changed the original"
            state = twin
            plies += 1
            assert plies < PLY_CAP, "the game did not end"
        assert plies > 0
        final = []
        for _ in range(2):
            twin = copy.deepcopy(state)
            steps["rollout"](twin, ctx, rng, scores)
            final.append(scores.copy())
        np.testing.assert_array_equal(final[0], final[1])
        assert np.isfinite(final[0]).all()


def test_tiny_mcts_games_replay_and_repeat(game):
    spec = game.SPEC
    policy = TINY_MCTS[spec.id]
    a = mcsim.simulate(spec.id, games=2, seed=11, policies=[policy], record=2)
    b = mcsim.simulate(spec.id, games=2, seed=11, policies=[policy])
    score_cols = [c for c in a.games.columns if c.startswith("score_")]
    np.testing.assert_array_equal(a.games[score_cols].to_numpy(), b.games[score_cols].to_numpy())
    for i, record in enumerate(a.records):
        result = game.replay(record)
        points = result["points"] if isinstance(result, dict) else result.points
        np.testing.assert_array_equal(
            np.asarray(points, dtype=float), a.games.loc[i, score_cols].to_numpy(dtype=float)
        )
