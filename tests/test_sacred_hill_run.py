"""Sacred Hill through mcsim.simulate: determinism, records, matches, policies."""

import json

import numpy as np
import pandas as pd
import pytest

import mcsim
from mcsim.errors import ConfigError, IllegalMoveError, InvalidRecordError, UnknownPolicyError
from mcsim.games import sacred_hill as SH
from mcsim.games.sacred_hill.summary import match_points


def test_same_seed_same_games_for_any_worker_count_and_chunk_size():
    """shared/DESIGN.md, Seeding: game i depends only on (seed, i)."""
    a = mcsim.simulate("sacred-hill", games=3000, seed=11, workers=1, chunk_size=3000)
    b = mcsim.simulate("sacred-hill", games=3000, seed=11, workers=2, chunk_size=128)
    c = mcsim.simulate("sacred-hill", games=3000, seed=11, workers=1, chunk_size=7)
    pd.testing.assert_frame_equal(a.games, b.games)
    pd.testing.assert_frame_equal(a.games, c.games)
    d = mcsim.simulate("sacred-hill", games=3000, seed=12)
    assert not a.games["score_0"].equals(d.games["score_0"])


def test_heuristic_determinism_across_workers():
    pol = ["tactician", "greedy:eps=0.2"]
    a = mcsim.simulate("sacred-hill", games=400, seed=5, policies=pol, workers=1)
    b = mcsim.simulate("sacred-hill", games=400, seed=5, policies=pol, workers=2, chunk_size=50)
    pd.testing.assert_frame_equal(a.games, b.games)


def test_prefix_of_a_run_is_the_shorter_run():
    a = mcsim.simulate("sacred-hill", games=500, seed=2)
    b = mcsim.simulate("sacred-hill", games=200, seed=2)
    pd.testing.assert_frame_equal(a.games.iloc[:200].reset_index(drop=True), b.games)


@pytest.mark.parametrize("policies", [["random"], ["tactician", "greedy"]])
def test_records_replay_to_the_run_result(policies):
    """A record written by simulate --record replays to the same result."""
    r = mcsim.simulate("sacred-hill", games=50, seed=9, policies=policies, record=10)
    assert len(r.records) == 10
    for rec in r.records:
        row = r.games.iloc[rec["game_index"]]
        out = SH.replay(json.loads(json.dumps(rec)))
        assert out["finished"]
        assert out["points"] == [row["score_0"], row["score_1"]] == rec["points"]
        assert out["plies"] == row["length_plies"] == len(rec["moves"])
        assert out["kingdoms"] == [row["kingdoms_0"], row["kingdoms_1"]]


def test_replay_partial_record():
    out = SH.replay(
        {"game": "sacred-hill", "variant": {"transition": "box"}, "moves": ["D4", "B3", "C2"]}
    )
    assert out == {
        "finished": False,
        "to_move": 1,
        "plies": 3,
        "kingdoms": [2, 1],
        "territory": [2, 1],
        "points": None,
        "winner": None,
    }


def test_replay_illegal_move_names_ply_and_legal_moves():
    with pytest.raises(IllegalMoveError) as e:
        SH.replay({"game": "sacred-hill", "moves": ["D4", "B3", "D5"]})
    assert e.value.ply == 2 and e.value.move == "D5"
    # Red D4's knight hills minus B3, taken by Blue
    assert set(e.value.legal) == {"C2", "E2", "F3", "B5", "F5", "C6", "E6"}


@pytest.mark.parametrize(
    "record,msg",
    [
        ({"game": "don-quixote", "moves": []}, "not a sacred-hill record"),
        ({"game": "sacred-hill"}, '"moves" must be a list'),
        ({"game": "sacred-hill", "moves": ["Z9"]}, "ply 0"),
        ({"game": "sacred-hill", "moves": [], "variant": {"zone": "round"}}, "zone"),
        ([1, 2], "not a sacred-hill record"),
    ],
)
def test_replay_malformed_records(record, msg):
    with pytest.raises(InvalidRecordError, match=msg):
        SH.replay(record)


def test_match_pairs_with_same_policy():
    """docs/rules/sacred_hill.md §3.6: games 2j and 2j+1 form a match; totals per player."""
    r = mcsim.simulate("sacred-hill", games=1000, seed=4)
    mp = match_points(r.games)
    g = r.games
    assert mp.shape == (500, 2)
    assert mp[0, 0] == g.score_0[0] + g.score_1[1] and mp[0, 1] == g.score_1[0] + g.score_0[1]
    block = r.summary["sacred_hill"]
    assert block["matches"] == 500
    wins_a = (mp[:, 0] > mp[:, 1]).sum() + 0.5 * (mp[:, 0] == mp[:, 1]).sum()
    assert block["match_win_rate"][0]["estimate"] == wins_a / 500


def test_mirror_matches_with_different_policies():
    """§3.6 with different policies: each game is paired with a seat-swapped mirror game."""
    r = mcsim.simulate("sacred-hill", games=300, seed=4, policies=["tactician", "random"])
    assert "match_points_0" in r.games
    assert r.summary["sacred_hill"]["matches"] == 300
    # the tactician beats random in matches far more often than not (observed ~0.9)
    assert r.summary["sacred_hill"]["match_win_rate"][0]["low"] > 0.6


def test_summary_frame_keys():
    """The common summary frame."""
    s = mcsim.simulate("sacred-hill", games=200, seed=1).summary
    assert set(s) >= {
        "game",
        "games",
        "seed",
        "players",
        "variant",
        "policies",
        "seats",
        "length",
        "games_per_second",
        "elapsed_seconds",
        "sacred_hill",
    }
    assert s["variant"] == {"transition": "box", "zone": "knight12"}
    assert set(s["seats"][0]["win_rate"]) == {"estimate", "low", "high"}
    assert set(s["seats"][0]["score"]) == {"mean", "low", "high", "sd", "min", "p50", "max"}
    assert set(s["sacred_hill"]) >= {
        "balance",
        "decided_by_territory",
        "captures_per_game",
        "manoeuvre_forts",
        "kingdoms",
        "territory",
        "match_win_rate",
    }
    # the loser scores 0 and there are no draws on 45 hills (§3.5)
    assert s["seats"][0]["win_rate"]["estimate"] + s["seats"][1]["win_rate"]["estimate"] == 1.0


def test_win_share_and_scores_consistent():
    g = mcsim.simulate("sacred-hill", games=2000, seed=8).games
    assert ((g.score_0 == 0) | (g.score_1 == 0)).all()
    assert ((g.score_0 + g.score_1) >= 3).all()
    assert (g.win_share_0 == (g.score_0 > 0)).all()
    assert (g.winner == np.where(g.score_0 > 0, 0, 1)).all()


def test_seats_long_table():
    r = mcsim.simulate("sacred-hill", games=10, seed=1, policies=["greedy", "random"])
    s = r.seats
    assert list(s.columns) == ["game_index", "seat", "policy", "score", "rank", "won"]
    assert len(s) == 20 and list(s.policy[:2]) == ["greedy", "random"]


def test_heuristics_beat_random():
    """§6 policies must play better than random: over 400 games each, win rate >> 0.5."""
    for pol in ("greedy", "tactician"):
        s = mcsim.simulate("sacred-hill", games=400, seed=3, policies=[pol, "random"]).summary
        assert s["seats"][0]["win_rate"]["low"] > 0.6, pol


@pytest.mark.parametrize(
    "kwargs,err,msg",
    [
        (dict(games=0), ConfigError, "^games= "),
        (dict(games=-3), ConfigError, "^games= "),
        (dict(seed=-1), ConfigError, "^seed= "),
        (dict(workers=0), ConfigError, "^workers= "),
        (dict(policies=["random", "random", "random"]), ConfigError, "2 players"),
        (dict(players=3), ConfigError, "sacred-hill is for 2 players, not 3"),
        (dict(policies=["greedy:w_nope=1"]), UnknownPolicyError, "no parameter 'w_nope'"),
        (dict(policies=["greedy:eps=2"]), UnknownPolicyError, "outside"),
        (dict(policies=["greedy:eps=x"]), UnknownPolicyError, "not a number"),
        (dict(options={"tiles": "x.json"}), ConfigError, "unknown option 'tiles' for sacred-hill"),
    ],
)
def test_bad_input(kwargs, err, msg):
    kw = dict(games=10, seed=1)
    kw.update(kwargs)
    with pytest.raises(err, match=msg):
        mcsim.simulate("sacred-hill", **kw)
