"""Don Quixote: the heuristic weights of the base policy of ``mcts`` (its playouts, ``rollout=2``)
and of ``rollout`` (``base=2``) are policy parameters ``h_*`` with the heuristic's defaults.

At their defaults the results are those of the default weights (the golden tables stay as they
are); other weights (the tuned ones of benchmarks/RESULTS.md, "Don Quixote: a tuned base
policy") change the playouts; the search still reads only what the player has seen, and the
results do not depend on the worker count.
"""

import numpy as np
import pandas as pd
import pytest

import mcsim
from kernels import don_quixote as K
from kernels.rng import new_state
from mcsim.games import don_quixote as DQ
from mcsim.games.base import parse_policy

#: the CMA-ES result of benchmarks/RESULTS.md ("Don Quixote: a tuned base policy")
TUNED = (
    "h_now=2.996,h_castle=4.654,h_defence=0.7046,h_bonus=0.5165,h_open=0.6019,h_grow=0.6577,"
    "h_kopen=0.1608,h_castle_open=0.8044,h_round_end=-0.8136"
)
WEIGHT_NAMES = [f"h_{q.name}" for q in DQ.HEURISTIC_PARAMS]


@pytest.mark.parametrize("policy, first", [("mcts", "endgame"), ("rollout", "base")])
def test_base_weights_are_listed_after_the_other_parameters_with_the_heuristic_defaults(
    policy, first
):
    """``mcsim games`` lists ``h_<weight>`` after the policy's own parameters (the kernel reads
    them from ``M_WEIGHTS`` / ``R_WEIGHTS``), defaulting to the heuristic's weights; only
    restricted play's mask follows them (the last parameter of every policy)."""
    spec = DQ.SPEC.policy(policy)
    names = [p.name for p in spec.params]
    assert names[names.index(first) + 1 :] == [*WEIGHT_NAMES, "forbid_mask"]
    start = K.M_WEIGHTS if policy == "mcts" else 2
    assert names.index("h_now") == start
    got = [p.default for p in spec.params][start:-1]
    assert got == [float(w) for w in K.HEUR_DEFAULT]


@pytest.mark.parametrize(
    "policy",
    ["mcts:iterations=30,rollout=2", "rollout:base=2,k=3"],
)
def test_base_weights_at_their_defaults_give_the_default_results(policy):
    """Writing the default weights out changes nothing (the golden tables' configurations)."""
    explicit = policy + ",h_now=1,h_castle=2,h_defence=0.6,h_bonus=0.3,h_open=0.375"
    a = mcsim.simulate("don-quixote", games=3, seed=2, policies=[policy], workers=1)
    b = mcsim.simulate("don-quixote", games=3, seed=2, policies=[explicit], workers=1)
    pd.testing.assert_frame_equal(a.games, b.games)


@pytest.mark.parametrize(
    "policy, default_scores, tuned_scores",
    [
        ("mcts:iterations=30,rollout=2", [69, 41, 52, 42], [55, 68, 67, 53]),
        ("rollout:base=2,k=3", [40, 72, 60, 57], [58, 52, 46, 60]),
    ],
)
def test_tuned_base_weights_drive_the_playouts(policy, default_scores, tuned_scores):
    """The same deals and streams with the tuned weights: other placements, exact scores."""
    a = mcsim.simulate("don-quixote", games=4, seed=2, policies=[policy], workers=1)
    b = mcsim.simulate("don-quixote", games=4, seed=2, policies=[policy + "," + TUNED], workers=1)
    assert a.games["score_0"].tolist() == default_scores
    assert b.games["score_0"].tolist() == tuned_scores


def _mcts_decision(policy, cells, seq, last_rotmask, pos, seed):
    """Play placements 0..pos-1 with the hand's first tile on the given deal, then let ``mcts``
    choose placement ``pos``; returns (tile, orientation)."""
    tables = DQ.build_tables(DQ.load_tileset())
    _, params = DQ.policy_arrays(DQ.SPEC, [parse_policy(policy)])
    S = K.setup_estate(tables, np.array([0, 23], np.int64))
    hand = np.full(16, -1, np.int64)
    nh = 0
    log = np.zeros(K.LOGN, np.int64)
    for p in range(pos):
        nh = K.reveal(hand, nh, seq, p)
        t = hand[0]
        hand[0] = hand[nh - 1]
        nh -= 1
        K.place(S, tables, cells[p], t, 0, log)
    nh = K.reveal(hand, nh, seq, pos)
    rng = new_state(seed, 0, 16)
    rotmask = last_rotmask if pos == K.N_PLACE - 1 else 3
    scratch = K.search_scratch(tables, int(params[0, K.M_ITER]) + 1)
    i, o = K.choose_mcts(
        params[0], S, tables, cells, seq, pos, hand, nh, 0, rotmask, True, rng, scratch, None
    )
    return int(hand[i]), int(o)


@pytest.mark.parametrize("pos", [0, 5, 12, 17])
def test_mcts_with_tuned_base_weights_does_not_peek(pos):
    """Changing only what the player has not seen (later cells, the order of the unrevealed
    tiles, the set-aside tile's orientation under variant random) leaves the decision of
    ``mcts`` with the tuned playouts unchanged for the same random state."""
    policy = "mcts:iterations=200,rollout=2," + TUNED
    cells = np.arange(1, 23, dtype=np.int64)  # castles on cells 0 and 23
    seq = np.arange(22, dtype=np.int64)
    base = _mcts_decision(policy, cells, seq, 1, pos, seed=7)
    nrev = K.n_revealed(pos) if pos < 16 else 22
    rs = np.random.default_rng(pos)
    for trial in range(3):
        c2 = cells.copy()
        c2[pos + 1 :] = rs.permutation(c2[pos + 1 :])
        s2 = seq.copy()
        s2[nrev:] = rs.permutation(s2[nrev:])
        assert not (c2 == cells).all()
        assert _mcts_decision(policy, c2, s2, 1 + trial % 2, pos, seed=7) == base


def test_mcts_with_tuned_base_weights_reads_the_hand():
    """A control for the no-peeking test: changing a seen tile can change the decision."""
    policy = "mcts:iterations=200,rollout=2," + TUNED
    cells = np.arange(1, 23, dtype=np.int64)
    seq = np.arange(22, dtype=np.int64)
    base = _mcts_decision(policy, cells, seq, 3, 0, seed=7)
    out = {_mcts_decision(policy, cells, np.roll(seq, r), 3, 0, seed=7) for r in range(1, 8)}
    assert len(out - {base}) > 0


def test_tuned_base_weights_deterministic_across_workers():
    """2 players, the same per-game table for 1 and 2 workers."""
    pol = ["mcts:iterations=30,rollout=2,endgame=1," + TUNED, "rollout:base=2,k=2," + TUNED]
    a = mcsim.simulate("don-quixote", games=4, seed=5, policies=pol, players=2, workers=1)
    b = mcsim.simulate(
        "don-quixote", games=4, seed=5, policies=pol, players=2, workers=2, chunk_size=1
    )
    pd.testing.assert_frame_equal(a.games, b.games)
