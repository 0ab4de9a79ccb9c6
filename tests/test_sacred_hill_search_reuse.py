"""Sacred Hill's ``mcts`` beyond plain UCT: tree reuse between a seat's decisions
(``kernels.search.search_from``, ``child_of``, ``reroot``; ``reuse=1``) and RAVE
(``kernels.sacred_hill.search_steps.search_rave``; ``rave=k``).

A fresh ``search_from`` is ``search`` (same move, same random numbers drawn); ``reroot`` keeps
exactly the subtree of the position reached; in a game the reusing seat's tree is the subtree
of the line actually played; games with either option are the same for any worker count and
their records replay."""

import json

import numpy as np
import pandas as pd
import pytest

import kernels.sacred_hill as SK
import mcsim
from kernels import search
from kernels.rng import new_state
from kernels.sacred_hill import search_steps as SS
from mcsim.games import sacred_hill as SH
from mcsim.games.base import RunConfig, parse_policy

T_MOVE, T_CHILD, T_SIBLING, T_VISITS = (
    search.T_MOVE,
    search.T_CHILD,
    search.T_SIBLING,
    search.T_VISITS,
)


def _prep(policy):
    cfg = RunConfig(
        game="sacred-hill",
        players=2,
        policies=[parse_policy(policy)] * 2,
        variant=SH.SPEC.resolve_variant({}),
    )
    return SH.prepare(cfg)


def _ctx(params, seat):
    w = np.zeros(SK.N_HEURISTIC_PARAMS, np.float64)
    return SS.SacredHillSearchContext(
        np.int64(SK.TRANSITION_BOX),
        SK.BB_ZONE_KNIGHT12,
        np.int64(params[SK.P_MCTS_ROLLOUT]),
        w,
        np.zeros(2, np.int64),
        np.int64(seat),
        np.uint64(0),
    )


def _subtree(tree, value, node):
    """A node's subtree as nested tuples (move, visits, avail, value, children in list
    order), the structure ``reroot`` must keep."""
    kids = []
    ch = tree[node, T_CHILD]
    while ch >= 0:
        kids.append(_subtree(tree, value, ch))
        ch = tree[ch, T_SIBLING]
    return (
        int(tree[node, T_MOVE]),
        int(tree[node, T_VISITS]),
        int(tree[node, search.T_AVAIL]),
        float(value[node]),
        tuple(kids),
    )


def _size(t):
    return 1 + sum(_size(k) for k in t[4])


def _search_args(scr, tree, value):
    (work, _, _, logs, moves, untried, mark, path, scores, reward) = scr[:10]
    return work, tree, value, logs, moves, untried, mark, path, scores, reward


def test_fresh_search_from_is_search():
    """``search_from`` with no kept tree is ``search``: the same move and the same random
    numbers drawn, at five positions of a tactician game (three with a choice)."""
    prep = _prep("mcts:iterations=300")
    params = prep.policy_params[0]
    scr = SK.search_scratch((400, 400, 400))
    state = np.zeros(SK.S_SIZE, np.uint64)
    SK.new_game(state)
    rng_t = new_state(2, 0, 5)
    tact = SH.SPEC.policy("tactician").vector()
    tact = np.concatenate([tact, np.zeros(SK.N_POLICY_COLS - len(tact))])
    checked = 0
    for ply in range(30):
        moves, kind = SK.legal_moves(state)
        if ply in (0, 5, 9, 14, 21):
            seat = int(state[SK.S_TO_MOVE])
            ctx = _ctx(params, seat)
            a, b = new_state(9, ply, 1), new_state(9, ply, 1)
            work, tree, value, logs, mv, un, mark, path, sc, rw = _search_args(scr, scr[1], scr[2])
            m1 = search.search(
                state, ctx, 300, 0.7, 0, SK.MARGIN_SCALE, a, work, tree, value, logs, mv, un,
                mark, path, sc, rw,
            )  # fmt: skip
            m2, n2 = search.search_from(
                state, ctx, 300, 0.7, 0, SK.MARGIN_SCALE, b, work, scr[12][0], scr[13][0],
                logs, mv, un, mark, path, sc, rw, 0,
            )  # fmt: skip
            assert m1 == m2 and (a == b).all()
            if kind != SK.KIND_PASS and bin(int(moves)).count("1") > 1:
                assert n2 == 301  # one node per iteration: the tree never filled
                checked += 1
            else:
                assert n2 == 0  # nothing to search: no tree
        mv = SK.choose_move(
            state, moves, kind, SK.POLICY_TACTICIAN, tact, rng_t, SK.BB_ZONE_KNIGHT12
        )
        SK.apply_move(state, mv, kind, SK.TRANSITION_BOX, SK.BB_ZONE_KNIGHT12)
    assert checked >= 3


def test_reroot_keeps_exactly_the_subtree():
    """After a search from the empty board, ``reroot`` to a grandchild (the line of the most
    visited move and its most visited reply) leaves that grandchild's subtree, node for node,
    with node 0 its root and nothing else."""
    prep = _prep("mcts:iterations=2000")
    params = prep.policy_params[0]
    scr = SK.search_scratch((2001, 2001, 2001))
    state = np.zeros(SK.S_SIZE, np.uint64)
    SK.new_game(state)
    work, tree, value, logs, mv, un, mark, path, sc, rw = _search_args(scr, scr[12][0], scr[13][0])
    _, n = search.search_from(
        state, _ctx(params, 0), 2000, 0.7, 0, SK.MARGIN_SCALE, new_state(4, 0, 1), work, tree,
        value, logs, mv, un, mark, path, sc, rw, 0,
    )  # fmt: skip
    assert n == 2001

    def most_visited(node):
        best, ch = -1, tree[node, T_CHILD]
        while ch >= 0:
            if best < 0 or tree[ch, T_VISITS] > tree[best, T_VISITS]:
                best = ch
            ch = tree[ch, T_SIBLING]
        return best

    a = most_visited(0)
    g = most_visited(a)
    assert search.child_of(tree, 0, tree[a, T_MOVE]) == a
    assert search.child_of(tree, a, tree[g, T_MOVE]) == g
    assert search.child_of(tree, a, -5) == -1
    want = _subtree(tree, value, g)
    assert _size(want) > 1
    n2 = search.reroot(tree, value, n, g, scr[17])
    got = _subtree(tree, value, 0)
    assert n2 == _size(want)
    # the root's move and value are cleared (a root has neither); its visits, availability
    # and every node below it are kept
    assert (got[1], got[2], got[4]) == (want[1], want[2], want[4])
    assert (got[0], got[3]) == (-1, 0.0)


@pytest.mark.parametrize("rave", [0, 300])
def test_reusing_seat_keeps_the_subtree_of_the_line_played(rave):
    """In a game of two reusing seats (plain UCT and RAVE), every search starts from the
    subtree of its previous tree along the plies played since (node counts and root visits
    add up; with RAVE the kept nodes' AMAF rows too), and the root's children are legal moves
    of the position."""
    prep = _prep(f"mcts:iterations=400,reuse=1,rave={rave},c=0")
    params = prep.policy_params
    cap = SK.search_capacity(prep.policy_ids, params)
    kept = SS.REUSE_CAPACITY * 400 + 1
    assert cap == (2, kept, kept if rave else 1)  # no plain tree; RAVE rows only for RAVE
    scr = SK.search_scratch(cap)
    SS.search_new_game(scr)
    state = np.zeros(SK.S_SIZE, np.uint64)
    SK.new_game(state)
    rngs = [new_state(3, 0, 10 + s) for s in range(2)]
    kept_some = 0
    ply = 0
    while True:
        moves, kind = SK.legal_moves(state)
        if kind == SK.KIND_TERMINAL:
            break
        p = int(state[SK.S_TO_MOVE])
        searched = kind != SK.KIND_PASS and bin(int(moves)).count("1") > 1
        expect = None
        if searched and scr[14][p] > 0:
            tree, value = scr[12][p].copy(), scr[13][p].copy()
            node = 0
            for k in range(int(scr[15][p]), ply):
                node = search.child_of(tree, node, scr[16][k]) if node >= 0 else -1
            if node > 0:
                expect = _subtree(tree, value, node)
                if rave:  # plain UCT seats have no RAVE rows (search_capacity)
                    amaf_root = scr[18][p][node].copy(), scr[19][p][node].copy()
        mv = SK.choose_move_search(
            state, moves, kind, prep.policy_ids[p], params[p], rngs[p], SK.BB_ZONE_KNIGHT12,
            SK.TRANSITION_BOX, scr,
        )  # fmt: skip
        if searched:
            tree = scr[12][p]
            root = _subtree(tree, scr[13][p], 0)
            assert int(scr[15][p]) == ply and int(scr[14][p]) == _size(root)
            kept = expect[1] if expect is not None else 0
            assert root[1] == kept + 400  # the kept visits, then this search's iterations
            kept_some += kept > 0
            if rave and expect is not None:
                # the root's AMAF samples: the kept ones plus at most one per iteration
                gained = scr[18][p][0] - amaf_root[0]
                assert (gained >= 0).all() and (gained <= 400).all() and gained.sum() > 0
            legal = {int(c) for c in range(64) if (int(moves) >> c) & 1}
            assert {k[0] for k in root[4]} <= legal
        SS.search_played(scr, ply, mv)
        SK.apply_move(state, mv, kind, SK.TRANSITION_BOX, SK.BB_ZONE_KNIGHT12)
        ply += 1
    assert kept_some > 10


@pytest.mark.parametrize(
    "policy",
    [
        "mcts:iterations=60,reuse=1",
        "mcts:iterations=60,rave=300",
        "mcts:iterations=60,rave=300,reuse=1",
    ],
)
def test_reuse_and_rave_games_deterministic_across_workers_and_replay(policy):
    """Same seed, same games for any worker count and chunking (a seat's tree is its game's
    own: one batch of 6 games or three of 2 play the same); records replay to the run's
    result."""
    pol = [policy, "mcts1:iterations=60"]
    a = mcsim.simulate("sacred-hill", games=6, seed=3, policies=pol, workers=1, record=3)
    b = mcsim.simulate("sacred-hill", games=6, seed=3, policies=pol, workers=2, chunk_size=2)
    pd.testing.assert_frame_equal(a.games, b.games)
    for rec in a.records:
        row = a.games.iloc[rec["game_index"]]
        out = SH.replay(json.loads(json.dumps(rec)))
        assert out["finished"] and out["points"] == [row["score_0"], row["score_1"]]


def test_scratch_holds_only_what_the_lineup_searches_with():
    """The search scratch is sized by the seats' own needs (``search_capacity``): plain UCT
    seats get no kept trees and no RAVE rows (``mcts1:iterations=1000000`` once allocated
    1.5 GB of RAVE rows it never read), and a kept-tree seat searches in its own capacity
    (``seat_tree_capacity``), not in the largest of the lineup."""
    ids = np.array([SK.POLICY_MCTS, SK.POLICY_MCTS])
    old = _prep("mcts1:iterations=100000").policy_params[0]
    new = _prep("mcts:iterations=800").policy_params[0]
    assert SK.search_capacity(ids, np.stack([old, old])) == (100001, 1, 1)
    kept = SS.REUSE_CAPACITY * 800 + 1
    assert SK.search_capacity(ids, np.stack([new, old])) == (100001, kept, kept)
    assert SS.seat_tree_capacity(new) == kept
    scr = SK.search_scratch(SK.search_capacity(ids, np.stack([old, old])))
    assert scr[18].shape == (2, 1, SK.MOVE_PASS + 1) and scr[12].shape[1] == 1
