"""The ``mcts`` policy: one search (kernels/search.py) in Sacred Hill and Don Quixote.

Forced win found at low iterations, no peeking at hidden information, determinism across
workers, records replay, and the existing policies' results unchanged by the step interface.
"""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import kernels.don_quixote as DK
import kernels.sacred_hill as SK
import mcsim
from kernels import search
from kernels.rng import new_state
from mcsim.errors import UnknownPolicyError
from mcsim.games import don_quixote as DQ
from mcsim.games import sacred_hill as SH

DATA = Path(__file__).parent / "data"

# A Battle position (box, knight12) from a tactician game: blue (seat 1) to move with four
# legal builds, and only B7 wins against every defence (checked below by exhaustive search).
RED = [
    "B1",
    "C1",
    "A2",
    "D2",
    "E2",
    "A3",
    "B3",
    "C3",
    "D3",
    "A4",
    "B4",
    "D4",
    "E4",
    "F4",
    "A5",
    "B5",
    "E5",
    "F5",
    "A6",
    "C6",
    "C7",
]
BLUE = [
    "D1",
    "E1",
    "F1",
    "B2",
    "C2",
    "F2",
    "E3",
    "F3",
    "G3",
    "C4",
    "G4",
    "C5",
    "D5",
    "G5",
    "B6",
    "D6",
    "E6",
    "F6",
    "G6",
    "E7",
]


def _wins(state, seat):
    """True if ``seat`` wins with best play from ``state`` (exhaustive; few empty hills)."""
    if SK.is_terminal(state):
        pts = np.zeros(2, np.int64)
        SK.score_final(state, pts)
        return pts[seat] > pts[1 - seat]
    mover = int(state[SK.S_TO_MOVE])
    results = []
    for name in SH.legal_move_names(state):
        child = state.copy()
        SH.play(child, name)
        results.append(_wins(child, seat))
    return any(results) if mover == seat else all(results)


def _mcts_params(iterations, rollout=0, reward=0.0, c=0.7, policy="mcts1", extra=""):
    prep = SH.prepare(
        _config(f"{policy}:iterations={iterations},rollout={rollout},reward={reward},c={c}{extra}")
    )
    return prep.policy_ids[0], prep.policy_params[0]


def _config(policy):
    from mcsim.games.base import RunConfig, parse_policy

    return RunConfig(
        game="sacred-hill",
        players=2,
        policies=[parse_policy(policy)] * 2,
        variant=SH.SPEC.resolve_variant({}),
    )


@pytest.mark.parametrize(
    "search_kind",
    [
        dict(),  # mcts1: plain UCT
        dict(policy="mcts", c=0.0, extra=",rave=300"),  # RAVE
        dict(policy="mcts", c=0.0, extra=",rave=300,reuse=1"),  # RAVE, a kept tree (none yet)
    ],
    ids=["uct", "rave", "rave-reuse"],
)
def test_sacred_hill_forced_win_found_at_low_iterations(search_kind):
    """The only winning move of a Battle position, by plain UCT (``mcts1``) and by RAVE (40
    iterations, random rollouts), for each of 8 random streams; a uniform pick would find it 1
    time in 4."""
    state = SH.position(red=RED, blue=BLUE, to_move=1)
    legal = SH.legal_move_names(state)
    assert legal == ["G2", "B7", "D7", "F7"]
    winning = []
    for name in legal:
        child = state.copy()
        SH.play(child, name)
        if _wins(child, 1):
            winning.append(name)
    assert winning == ["B7"]
    pid, params = _mcts_params(40, **search_kind)
    moves, kind = SK.legal_moves(state)
    scr = SK.search_scratch(SK.search_capacity(np.array([pid, pid]), np.stack([params, params])))
    picks = []
    for k in range(8):
        rng = new_state(1, k, 16)
        mv = SK.choose_move_search(
            state.copy(), moves, kind, pid, params, rng, SK.BB_ZONE_KNIGHT12, SK.TRANSITION_BOX, scr
        )
        picks.append(SH.format_move(mv))
    assert picks == ["B7"] * 8


def test_sacred_hill_mcts_deterministic_across_workers_and_records_replay():
    """Same seed, same decisions for any worker count; records of mcts games
    replay to the run's result."""
    pol = ["mcts:iterations=60", "tactician"]
    a = mcsim.simulate("sacred-hill", games=6, seed=3, policies=pol, workers=1, record=3)
    b = mcsim.simulate("sacred-hill", games=6, seed=3, policies=pol, workers=2, chunk_size=2)
    pd.testing.assert_frame_equal(a.games, b.games)
    for rec in a.records:
        row = a.games.iloc[rec["game_index"]]
        out = SH.replay(json.loads(json.dumps(rec)))
        assert out["finished"] and out["points"] == [row["score_0"], row["score_1"]]
    assert rec["policies"] == ["mcts:iterations=60", "tactician"]


def test_sacred_hill_mcts_rejects_bad_parameters():
    with pytest.raises(UnknownPolicyError, match="rollout"):
        mcsim.simulate("sacred-hill", games=2, policies=["mcts:rollout=3", "random"])
    with pytest.raises(UnknownPolicyError, match="iterations"):
        mcsim.simulate("sacred-hill", games=2, policies=["mcts:iterations=0", "random"])
    with pytest.raises(UnknownPolicyError, match="whole number"):
        mcsim.simulate("sacred-hill", games=2, policies=["mcts:rollout=1.5", "random"])
    with pytest.raises(UnknownPolicyError, match="whole number"):
        mcsim.simulate("don-quixote", games=2, policies=["mcts:iterations=10.5"])


def test_search_rewards():
    """Win share (top score shared), margin over the best other seat and own points, per
    seat."""
    out = np.zeros(3)
    search.rewards(np.array([5.0, 5.0, 2.0]), search.REWARD_WIN, 10.0, out)
    assert out.tolist() == [0.5, 0.5, 0.0]
    search.rewards(np.array([7.0, 2.0, 4.0]), search.REWARD_MARGIN, 10.0, out)
    assert out.tolist() == pytest.approx([0.3, -0.5, -0.3])
    search.rewards(np.array([7.0, 2.0, -4.0]), search.REWARD_POINTS, 10.0, out)
    assert out.tolist() == pytest.approx([0.7, 0.2, -0.4])
    one = np.zeros(1)
    search.rewards(np.array([64.0]), search.REWARD_WIN, 10.0, one)
    assert one.tolist() == [6.4]


def _dq_decision(cells, seq, last_rotmask, pos, seed):
    """Play placements 0..pos-1 with the heuristic on the given deal, then let mcts choose
    placement ``pos``; returns (tile, orientation)."""
    prep = DQ.prepare(_dq_config())
    tiles = prep.tables["tiles"]
    castles = np.array([0, 23], np.int64)
    S = DK.setup_estate(tiles, castles)
    hand = np.full(16, -1, np.int64)
    nh = 0
    log = np.zeros(DK.LOGN, np.int64)
    bank = 0
    for p in range(pos):
        nh = DK.reveal(hand, nh, seq, p)
        t = hand[0]
        hand[0] = hand[nh - 1]
        nh -= 1
        DK.place(S, tiles, cells[p], t, 0, log)
        rnd = DK.round_of(p)
        if p == DK.ROUND_END[rnd - 1]:
            bank += DK.score_round(S, rnd)
    nh = DK.reveal(hand, nh, seq, pos)
    params = prep.policy_params[0]
    scr = DK.search_scratch(tiles, int(params[DK.M_ITER]) + 1)
    rng = new_state(seed, 0, 16)
    rotmask = last_rotmask if pos == DK.N_PLACE - 1 else 3
    i, o = DK.choose_mcts(
        params, S, tiles, cells, seq, pos, hand, nh, bank, rotmask, True, rng, scr, None
    )
    return int(hand[i]), int(o)


def _dq_config():
    from mcsim.games.base import RunConfig, parse_policy

    return RunConfig(
        game="don-quixote",
        players=1,
        policies=[parse_policy("mcts:iterations=150")],
        variant=DQ.SPEC.resolve_variant({"last_tile_rotation": "random"}),
    )


@pytest.mark.parametrize("pos", [0, 5, 12])
def test_don_quixote_mcts_does_not_peek(pos):
    """Changing only what the player has not seen (the cells of later
    placements, the order of the unrevealed tiles, the set-aside tile's orientation) leaves
    the decision unchanged for the same random state; changing a seen tile changes the input
    (a control that the search reads the hand)."""
    cells = np.arange(1, 23, dtype=np.int64)  # castles on cells 0 and 23
    seq = np.arange(22, dtype=np.int64)
    base = _dq_decision(cells, seq, 1, pos, seed=7)
    nrev = DK.n_revealed(pos)
    rs = np.random.default_rng(pos)
    for trial in range(3):
        c2 = cells.copy()
        c2[pos + 1 :] = rs.permutation(c2[pos + 1 :])
        s2 = seq.copy()
        s2[nrev:] = rs.permutation(s2[nrev:])
        assert (c2[: pos + 1] == cells[: pos + 1]).all() and (s2[:nrev] == seq[:nrev]).all()
        assert not (c2 == cells).all() and not (s2 == seq).all()
        assert _dq_decision(c2, s2, 1 + trial % 2, pos, seed=7) == base


def test_don_quixote_search_root_holds_only_what_was_seen():
    """The root state handed to the search has the unseen cells, tiles and set-aside
    orientation blanked (-1 / 3); the seen ones are copied."""
    prep = DQ.prepare(_dq_config())
    tiles = prep.tables["tiles"]
    S = DK.setup_estate(tiles, np.array([0, 23], np.int64))
    cells = np.arange(1, 23, dtype=np.int64)
    seq = np.arange(22, dtype=np.int64)[::-1].copy()
    hand = np.full(16, -1, np.int64)
    nh = DK.reveal(hand, 0, seq, 0)
    root = np.zeros((8, DK.N_NODES), np.int64)
    DK.search_root(S, tiles, cells, seq, 0, hand, nh, 0, 2, True, root)
    sc = root[DK.SC]
    assert sc[DK.SC_FCELLS : DK.SC_FCELLS + 22].tolist() == [1] + [-1] * 21
    assert sc[DK.SC_SEQ : DK.SC_SEQ + 22].tolist() == seq[:9].tolist() + [-1] * 13
    assert sc[DK.SC_HAND : DK.SC_HAND + 9].tolist() == seq[:9].tolist()
    assert sc[DK.SC_LROT] == 3 and sc[DK.SC_POS] == 0 and sc[DK.SC_NH] == 9
    assert (root[: DK.SC] == S[: DK.SC]).all()


def test_don_quixote_mcts_deterministic_across_workers_and_records_replay():
    """2 players, same results for 1 and 2 workers; records replay."""
    pol = ["mcts:iterations=30", "mcts:iterations=30,rollout=1"]
    a = mcsim.simulate("don-quixote", games=4, seed=5, policies=pol, players=2, workers=1, record=2)
    b = mcsim.simulate(
        "don-quixote", games=4, seed=5, policies=pol, players=2, workers=2, chunk_size=1
    )
    pd.testing.assert_frame_equal(a.games, b.games)
    for rec in a.records:
        row = a.games.iloc[rec["game_index"]]
        out = DQ.replay(json.loads(json.dumps(rec)))
        assert out["finished"] and out["points"] == [row["score_0"], row["score_1"]]


@pytest.mark.parametrize(
    "game, kwargs, name",
    [
        (
            "sacred-hill",
            dict(
                games=200,
                seed=21,
                policies=["tactician", "greedy:eps=0.2"],
                variant={"transition": "web2014"},
            ),
            "baseline_sacred_hill_tactician_greedy.csv",
        ),
        (
            "don-quixote",
            dict(
                games=30,
                seed=21,
                policies=["heuristic", "rollout:k=2"],
                players=2,
                variant={"last_tile_rotation": "random"},
            ),
            "baseline_don_quixote_heuristic_rollout.csv",
        ),
    ],
)
def test_existing_policies_unchanged_by_the_search_interface(game, kwargs, name):
    """Per-game tables saved from c771d1d (before the step interface and mcts)
    are reproduced exactly."""
    r = mcsim.simulate(game, workers=1, **kwargs)
    saved = pd.read_csv(DATA / name)
    got = r.games[list(saved.columns)].reset_index(drop=True)
    pd.testing.assert_frame_equal(got, saved, check_dtype=False)
