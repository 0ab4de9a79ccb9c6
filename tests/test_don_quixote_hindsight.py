"""Don Quixote: the exact round-3 solver and the hindsight policy (docs/rules/don_quixote.md §3).

The round-3 expectimax (``kernels.don_quixote.hindsight.r3_choose``) is checked against an
independent plain-Python enumeration of the 720 orders of the six empty cells; the hindsight
policy for no peeking, determinism across workers, records and seat independence (§3.1.5:
players do not interact).
"""

import itertools
import json

import numpy as np
import pandas as pd
import pytest

import mcsim
from kernels import don_quixote as K
from kernels.don_quixote.policies import PlacementScratch, SeatOutputs
from kernels.rng import STREAM_POLICY, new_state
from mcsim.evaluate import evaluate, format_evaluation
from mcsim.games import don_quixote as DQ

TOL = 1e-9  # the solver and the enumeration sum the same integers in other orders


def _tables():
    return DQ.build_tables(DQ.load_tileset())


def _round3_estate(tables, seed, game):
    """The estate of a greedy player after round 2 of deal (seed, game), the cells and
    reveal order of the deal and the round-3 hand (placement 16's reveals done)."""
    castles = np.zeros(2, np.int64)
    cells = np.zeros(K.N_PLACE, np.int64)
    seq = np.zeros((1, 22), np.int64)
    last_rot = np.zeros(1, np.int64)
    K.deal(np.uint64(seed), np.int64(game), 1, 22, castles, cells, seq, last_rot)
    S = K.setup_estate(tables, castles)
    hand = np.zeros(16, np.int64)
    nh = 0
    log = np.zeros(K.LOGN, np.int64)
    for p in range(16):
        nh = K.reveal(hand, nh, seq[0], p)
        # a fixed, simple rule: the hand's first tile, turned if that scores more now
        best = None
        for o in (0, 1):
            W = S.copy()
            K.place(W, tables, cells[p], hand[0], o, log)
            v = K.score_round(W, K.round_of(p))
            if best is None or v > best[0]:
                best = (v, o)
        K.place(S, tables, cells[p], hand[0], best[1], log)
        hand[0] = hand[nh - 1]
        nh -= 1
    nh = K.reveal(hand, nh, seq[0], 16)
    return S, cells, seq[0], hand, nh


def _python_expectimax(S, tables, empty, tiles, last_t, last_avg):
    """Plain-Python round 3: the value of every full estate (scoring 3) by placing it on a
    copy, then the optimal expected value by backward induction over the assignments and the
    mean over the 720 cell orders of the score that play reaches (two ways to the same
    number). Returns (expected value, mean over orders)."""
    log = np.zeros(K.LOGN, np.int64)
    leaf = {}

    def score_of(assign):
        key = frozenset(assign)
        if key not in leaf:
            W = S.copy()
            for c, t, o in assign:
                K.place(W, tables, c, t, o, log)
            leaf[key] = int(K.score_round(W, 3))
        return leaf[key]

    def last_value(assign, cell):
        vals = [score_of(assign + ((cell, last_t, o),)) for o in (0, 1)]
        return sum(vals) / 2 if last_avg else max(vals)

    memo = {}

    def value(assign):
        key = frozenset(assign)
        if key in memo:
            return memo[key]
        filled = {c for c, _, _ in assign}
        used = {t for _, t, _ in assign}
        free = [c for c in empty if c not in filled]
        if len(free) == 1:
            v = last_value(assign, free[0])
        else:
            v = sum(best_move(assign, c, used)[0] for c in free) / len(free)
        memo[key] = v
        return v

    def best_move(assign, cell, used):
        return max(
            (value(assign + ((cell, t, o),)), t, o) for t in tiles if t not in used for o in (0, 1)
        )

    root = value(())
    total = 0.0
    for order in itertools.permutations(empty):
        assign = ()
        for cell in order[:-1]:
            _, t, o = best_move(assign, cell, {t for _, t, _ in assign})
            assign += ((cell, t, o),)
        total += last_value(assign, order[-1])
    return root, total / 720


@pytest.mark.parametrize("game, last_rand", [(0, False), (3, False), (5, True)])
def test_round3_solver_equals_enumeration_of_the_720_cell_orders(game, last_rand):
    """On the estate after round 2 (six empty cells, five tiles to choose, the set-aside tile),
    the solver's expected scoring 3 equals the plain-Python backward induction and the mean
    over the 720 cell orders within 1e-9 points; the set-aside tile's orientation is free, or
    under variant random one of the two with probability 1/2."""
    tables = _tables()
    S, cells, seq, hand, nh = _round3_estate(tables, 4, game)
    empty = [cells[16]] + [c for c in range(24) if S[K.CELLS, c] < 0 and c != cells[16]]
    assert len(empty) == 6 and nh == 5
    tiles = [int(t) for t in hand[:nh]]
    # the solver values placement 16 with its cell called: the Python root averages over
    # the first cell, so compare the chance node: the mean over the six first cells
    vals = []
    for first in empty:
        c2 = cells.copy()
        c2[16] = first
        vals.append(K.r3_value(S, tables, c2, seq, 16, hand, nh, 3, last_rand))
    root, mean_orders = _python_expectimax(
        S, tables, [int(c) for c in empty], tiles, int(seq[21]), last_rand
    )
    assert abs(np.mean(vals) - root) < TOL
    assert abs(np.mean(vals) - mean_orders) < TOL
    # and the estate was not changed by the solver (the node rows of unused nodes may keep
    # stale counts after ``unplace``; the parents, cells and scalars are what define it)
    S2, *_ = _round3_estate(tables, 4, game)
    for row in (K.layout.PAR, K.CELLS, K.SC):
        assert (S[row] == S2[row]).all()


def test_round3_solver_is_not_beaten_in_round_3_on_common_deals():
    """The same rounds 1-2 (the policy stream is used the same way until round 3), then the
    exact endgame against each policy's own round 3: scorings 1 and 2 are identical game by
    game, and the paired scoring-3 difference is >= 0 within its 95% interval."""
    n = 24
    pairs = [
        ("hindsight:k=2,iters=20,endgame=1", "hindsight:k=2,iters=20,endgame=0"),
        ("mcts:iterations=60,endgame=1", "mcts:iterations=60"),
    ]
    for exact, other in pairs:
        a = mcsim.simulate("don-quixote", games=n, seed=4, policies=[exact]).games
        b = mcsim.simulate("don-quixote", games=n, seed=4, policies=[other]).games
        assert (a["scoring1_0"] == b["scoring1_0"]).all()
        assert (a["scoring2_0"] == b["scoring2_0"]).all()
        d = (a["scoring3_0"] - b["scoring3_0"]).to_numpy(dtype=float)
        assert d.mean() + 1.96 * d.std(ddof=1) / np.sqrt(n) >= 0, (exact, d.tolist())
        assert d.mean() > 0


def _decision(params, cells, seq, last_rotmask, pos, seed):
    """Play placements 0..pos-1 with the hand's first tile on the given deal, then let the
    hindsight policy choose placement ``pos``; returns (tile, orientation)."""
    tables = _tables()
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
    i, o = K.choose_hindsight(
        params, S, tables, cells, seq, pos, hand, nh, rotmask, True, rng, 0, -1
    )
    return int(hand[i]), int(o)


@pytest.mark.parametrize("pos, endgame", [(0, 1), (5, 1), (12, 1), (17, 0), (17, 1)])
def test_hindsight_does_not_peek(pos, endgame):
    """Changing only what the player has not seen (the cells of later placements, the order
    of the unrevealed tiles, the set-aside tile's orientation under variant random) leaves
    the decision unchanged for the same random state; in round 3 every tile is face up
    (§3.2), so only the cells and the orientation change."""
    params = np.array([3.0, 1.0, 20.0, float(endgame), 0.0])
    cells = np.arange(1, 23, dtype=np.int64)  # castles on cells 0 and 23
    seq = np.arange(22, dtype=np.int64)
    base = _decision(params, cells, seq, 1, pos, seed=7)
    nrev = K.n_revealed(pos) if pos < 16 else 22
    rs = np.random.default_rng(pos)
    for trial in range(3):
        c2 = cells.copy()
        c2[pos + 1 :] = rs.permutation(c2[pos + 1 :])
        s2 = seq.copy()
        s2[nrev:] = rs.permutation(s2[nrev:])
        assert not (c2 == cells).all()
        assert _decision(params, c2, s2, 1 + trial % 2, pos, seed=7) == base


def test_hindsight_reads_the_hand():
    """A control for the no-peeking test: changing a seen tile can change the decision."""
    params = np.array([3.0, 1.0, 20.0, 1.0, 0.0])
    cells = np.arange(1, 23, dtype=np.int64)
    seq = np.arange(22, dtype=np.int64)
    base = _decision(params, cells, seq, 3, 0, seed=7)
    out = set()
    for r in range(1, 8):
        s2 = np.roll(seq, r)
        out.add(_decision(params, cells, s2, 3, 0, seed=7))
    assert len(out - {base}) > 0


def test_hindsight_deterministic_across_workers_and_records_replay():
    """2 players, the same per-game table for 1 and 2 workers; records replay to the totals
    and scorings."""
    pol = ["hindsight:k=2,iters=10", "hindsight:k=3,iters=0,beam=2,endgame=0"]
    a = mcsim.simulate("don-quixote", games=4, seed=5, policies=pol, players=2, workers=1, record=2)
    b = mcsim.simulate(
        "don-quixote", games=4, seed=5, policies=pol, players=2, workers=2, chunk_size=1
    )
    pd.testing.assert_frame_equal(a.games, b.games)
    assert len(a.records) == 2
    for rec in a.records:
        row = a.games.iloc[rec["game_index"]]
        out = DQ.replay(json.loads(json.dumps(rec)))
        assert out["finished"] and out["points"] == [row["score_0"], row["score_1"]]
        for p in range(2):
            for k in (1, 2, 3):
                got = out["players"][p]["scorings"][k - 1]["points"]
                assert got == row[f"scoring{k}_{p}"]


def _solo_seat(tables, policy, seed, game, seat, n_seats):
    """Seat ``seat``'s game of a ``n_seats``-player deal played alone: the common castles and
    cells, the seat's own reveal order, set-aside orientation and policy stream."""
    n_land = tables.shape[0] - 2
    castles = np.zeros(2, np.int64)
    cells = np.zeros(K.N_PLACE, np.int64)
    seq = np.zeros((n_seats, n_land), np.int64)
    last_rot = np.zeros(n_seats, np.int64)
    K.deal(np.uint64(seed), np.int64(game), n_seats, n_land, castles, cells, seq, last_rot)
    ids, params = DQ.policy_arrays(DQ.SPEC, [policy])
    S = K.setup_estate(tables, castles)
    rng = new_state(np.uint64(seed), np.int64(game), np.int64(STREAM_POLICY + seat))
    bd = np.zeros((1, 3, K.N_CAT), np.int64)
    scratch = (
        np.zeros(16, np.int64),
        PlacementScratch(
            np.zeros(K.LOGN, np.int64), np.zeros(16, np.int64), np.zeros(K.N_NODES, np.int64)
        ),
        np.zeros(9, np.float64),
    )
    total = K.play._play_planned(
        S, tables, cells, seq[seat], ids[0], params[0], np.int64(3), False, rng,
        SeatOutputs(bd, np.int64(0), np.zeros((K.N_PLACE, 2), np.int64)), scratch,
        np.zeros((K.N_PLACE, 2), np.int64), None, None,
    )  # fmt: skip
    return int(total)


def test_four_seat_self_play_has_no_seat_effect():
    """§3.1.5: players do not interact and share only the castles and the cell order; each
    seat has its own reveal order and policy stream. So in a 4-player game of hindsight
    against itself, every seat's score is exactly the same function of (common deal, own
    reveals, own stream): each equals the seat's game played alone on those inputs."""
    from mcsim.games.base import parse_policy

    pol = parse_policy("hindsight:k=2,iters=10")
    r = mcsim.simulate("don-quixote", games=3, seed=9, policies=["hindsight:k=2,iters=10"] * 4)
    tables = _tables()
    for g in range(3):
        for p in range(4):
            solo = _solo_seat(tables, pol, 9, g, p, 4)
            assert solo == r.games[f"score_{p}"][g]


def test_evaluate_reports_value_of_information_per_scoring():
    """With an oracle and playable policies, evaluate gives oracle minus the playable policy of
    highest mean, paired, in total and per scoring (exact differences of the per-game columns),
    and prints it."""
    ev = evaluate("don-quixote", ["greedy", "heuristic", "oracle:beam=1,iters=50"], games=6, seed=3)
    voi = ev["value_of_information"]
    blocks = {b["policy"]: b for b in ev["policies"]}
    best = max(("greedy", "heuristic"), key=lambda p: blocks[p]["total"]["mean"])
    assert voi["best_playable"] == best
    orc = blocks["oracle:beam=1,iters=50"]
    for r in (1, 2, 3):
        c = f"scoring{r}"
        want = orc["mean_per_scoring"][c] - blocks[best]["mean_per_scoring"][c]
        assert voi["per_column"][c]["mean"] == pytest.approx(want, abs=1e-12)
    assert voi["total"]["mean"] == pytest.approx(
        orc["total"]["mean"] - blocks[best]["total"]["mean"], abs=1e-12
    )
    assert "_columns" not in orc
    text = format_evaluation(ev)
    assert "value of information (oracle:beam=1,iters=50 minus " + best in text
    assert "scoring3 " in text


def test_games_lists_the_hindsight_parameters_and_defaults():
    """The policy's documented parameters and defaults (``mcsim games don-quixote``)."""
    spec = DQ.SPEC.policy("hindsight")
    assert [(p.name, p.default) for p in spec.params] == [
        ("k", 8.0),
        ("beam", 1.0),
        ("iters", 100.0),
        ("endgame", 1.0),
        ("horizon", 0.0),
        ("forbid_mask", 0.0),
    ]
    mc = DQ.SPEC.policy("mcts")
    assert [(p.name, p.default) for p in mc.params][K.M_ENDGAME] == ("endgame", 0.0)
