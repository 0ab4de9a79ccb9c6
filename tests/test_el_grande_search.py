"""El Grande ``mcts``: information-set search by kernels/search.py.

No peeking (the search state holds only what the deciding seat has seen, and a whole round of
decisions is unchanged when only hidden cards change), determinism across workers, records of
mcts games replay, bad parameters refused. Rules: docs/rules/el_grande.md (§3, §5, §10 A5).
"""

import json

import numpy as np
import pandas as pd
import pytest

import kernels.el_grande as K
import mcsim
from kernels.rng import new_state
from mcsim.errors import UnknownPolicyError
from mcsim.games import el_grande as G

T = G.build_tables()
VAR = G.SPEC.variant_codes(G.SPEC.resolve_variant({}))
HDEF = np.array([p.default for p in G.HEURISTIC_PARAMS])
MCTS = "mcts:iterations=12"


def _mcts_game(fixed, seed=3, npl=4, seat=1, iterations=12):
    """Decisions of one game, heuristic seats and one mcts seat, on setup ``fixed``."""
    ids = np.full(npl, K.POL_HEURISTIC)
    ids[seat] = K.POL_MCTS
    pp = np.tile(HDEF, (npl, 1))
    mp = np.tile([p.default for p in G.MCTS_PARAMS], (npl, 1))
    mp[:, K.M_ITER] = iterations
    log = np.zeros((4000, 4), np.int32)
    nd, fx = K.record_mcts(seed, 0, npl, ids, pp, mp, HDEF, VAR, T, log, fixed)
    return log[:nd].copy(), fx


def test_mcts_does_not_peek_at_unrevealed_cards():
    """§10 A5: permuting the cards not yet revealed (decks 1-4 below the round-1 cards) leaves
    every decision of round 1 unchanged, the mcts seat's searched ones included; the round-2
    reveal then differs, and so (here) do later decisions: the comparison is not vacuous."""
    log_a, fixed = _mcts_game(np.zeros(K.FIXED_SIZE, np.int32))
    fixed = fixed.copy()
    fixed[0] = 1
    rng = np.random.default_rng(0)
    for d in range(4):
        part = fixed[8 + 11 * d + 1 : 8 + 11 * d + 11]  # position 0 is revealed in round 1
        fixed[8 + 11 * d + 1 : 8 + 11 * d + 11] = rng.permutation(part)
    log_b, _ = _mcts_game(fixed)
    # round 1 ends where the round-2 power bids start: 4 bids of round 1, then the first
    # "power" decision after a non-power one
    kinds = log_a[:, 0]
    end = next(i for i in range(4, len(kinds)) if kinds[i] == K.K_POWER)
    searched = [i for i in range(end) if log_a[i, 1] == 1 and log_a[i, 0] == K.K_CARD]
    assert searched, "the mcts seat took a card in round 1"
    np.testing.assert_array_equal(log_a[:end], log_b[:end])
    assert len(log_a) != len(log_b) or (log_a != log_b).any()


def _root(ck, log, first, stop, seat, kind):
    root = np.zeros((K.S_ROWS, K.STATE_SIZE), np.int32)
    ok = K.search_root(root, ck, 3, log, first, stop, seat, kind, T, VAR, np.zeros(16, np.int64))
    assert ok
    return root


def test_search_root_holds_only_what_the_seat_has_seen():
    """The search state of a Castillo disc choice (§5 step 1, secret) and of a card choice:
    the other seats' discs chosen before it and the order of the unrevealed deck cards do not
    enter it; the revealed cards and the public decisions do."""
    st = np.zeros(K.STATE_SIZE, np.int32)
    setup_fixed = np.zeros(K.FIXED_SIZE, np.int32)
    K.setup(st, T, VAR, 4, new_state(1, 0, 0), setup_fixed)
    for d in range(4):
        st[K.O_DECKPTR + d] = 2  # two cards of each deck revealed before this round
    log = np.zeros((10, 4), np.int32)
    # decisions since the round start: seat 2 bid 7 (public), seat 0 disc Galicia, seat 3
    # disc Aragon (secret: the deciding seat 1 chooses its disc now)
    log[0] = [K.K_POWER, 2, 7, 0]
    log[1] = [K.K_DISC, 0, 0, 0]
    log[2] = [K.K_DISC, 3, 2, 0]
    a = _root(st, log, 0, 3, 1, K.K_DISC)
    other = log.copy()
    other[1, 2] = 5
    other[2, 2] = 8
    st2 = st.copy()
    for d in range(4):
        base = K.O_DECK + 11 * d
        st2[base + 3 : base + 11] = st2[base + 3 : base + 11][::-1]  # unrevealed: below 2+1
    b = _root(st2, other, 0, 3, 1, K.K_DISC)
    np.testing.assert_array_equal(a, b)
    assert a[K.S_PREFIX, 0] == 7 and a[K.S_PREFIX, 1] == a[K.S_PREFIX, 2] == K.RESAMPLE
    # a public change (the revealed card of this round) does enter it
    st3 = st.copy()
    st3[K.O_DECK + 2], st3[K.O_DECK + 5] = st3[K.O_DECK + 5], st3[K.O_DECK + 2]
    assert not np.array_equal(_root(st3, log, 0, 3, 1, K.K_DISC), a)
    # a card choice is not secret: the discs of a finished group stay as they were
    c = _root(st, log, 0, 3, 1, K.K_CARD)
    assert c[K.S_PREFIX, 1] == 0 and c[K.S_PREFIX, 2] == 2


def test_mcts_deterministic_across_workers_and_records_replay():
    """Same seed, same games for 1 and 2 workers; records of mcts games replay to
    the run's points (``mcsim replay`` uses ``replay``)."""
    pol = [MCTS, "heuristic", "random", MCTS + ",rollout=0,scope=0,horizon=1"]
    a = mcsim.simulate("el-grande", games=4, seed=5, policies=pol, workers=1, record=2)
    b = mcsim.simulate("el-grande", games=4, seed=5, policies=pol, workers=2, chunk_size=2)
    pd.testing.assert_frame_equal(a.games, b.games)
    assert len(a.records) == 2
    for rec in a.records:
        row = a.games.iloc[rec["game_index"]]
        out = G.replay(json.loads(json.dumps(rec)))
        assert out["finished"]
        assert out["points"] == [row[f"score_{k}"] for k in range(4)]
        assert out["plies"] == row["length_plies"]
    assert rec["policies"][0] == MCTS


@pytest.mark.parametrize(
    "policy, match",
    [
        ("mcts:iterations=0", "iterations"),
        ("mcts:iterations=2.5", "whole number"),
        ("mcts:reward=2", "reward"),
        ("mcts:rollout=2", "rollout"),
        ("mcts:horizon=-1", "horizon"),
        ("mcts:depth=3", "depth"),
    ],
)
def test_mcts_rejects_bad_parameters(policy, match):
    with pytest.raises(UnknownPolicyError, match=match):
        mcsim.simulate("el-grande", games=1, policies=[policy, "heuristic", "heuristic"])
