"""Thurn and Taxis through mcsim.simulate and the CLI: determinism, records, naive scorer, errors.

Rule source: docs/rules/thurn_und_taxis.md §4-§5 (scoring cross-check); also the summary block,
records and input errors of ``mcsim.games.thurn_and_taxis``.
"""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import mcsim
from mcsim.errors import (
    ConfigError,
    DataFileError,
    IllegalMoveError,
    InvalidRecordError,
    UnknownPolicyError,
    UnknownVariantError,
)
from mcsim.games import thurn_and_taxis as T
from tests.thurn_and_taxis_naive import naive_score_record

GAME = "thurn-and-taxis"


def test_determinism_across_workers_and_chunks():
    """shared/DESIGN.md, Seeding: game i depends only on (seed, i), for both policies."""
    pol = ["route", "random", "route:close_len=6"]
    a = mcsim.simulate(GAME, games=60, seed=11, policies=pol, workers=1)
    b = mcsim.simulate(GAME, games=60, seed=11, policies=pol, workers=2, chunk_size=7)
    pd.testing.assert_frame_equal(a.games, b.games)
    c = mcsim.simulate(GAME, games=60, seed=12, policies=pol)
    assert not a.games["score_0"].equals(c.games["score_0"])


def test_seeds_up_to_2_64_and_records_of_them():
    """shared/DESIGN.md, Seeding: any seed in [0, 2**64) works (the kernel takes it as uint64)."""
    top = 2**64 - 1
    a = mcsim.simulate(GAME, games=4, seed=top, policies=["random"], workers=1, record=1)
    b = mcsim.simulate(GAME, games=4, seed=top, policies=["random"], workers=2, chunk_size=1)
    pd.testing.assert_frame_equal(a.games, b.games)
    assert a.records[0]["seed"] == top
    assert T.replay(json.loads(json.dumps(a.records[0])))["scores"] == a.records[0]["scores"]
    c = mcsim.simulate(GAME, games=4, seed=2**63, policies=["random"], workers=1)
    assert not a.games["score_0"].equals(c.games["score_0"]) or not a.games["length_plies"].equals(
        c.games["length_plies"]
    )


def test_common_random_numbers_same_deal_for_every_policy():
    """shared/DESIGN.md: game i deals the same deck whatever the policies."""
    p1 = T.prepare(mcsim.runner.resolve_config(GAME, 3, ["random"])[1])
    p2 = T.prepare(mcsim.runner.resolve_config(GAME, 3, ["route"])[1])
    assert T.play_logged_game(p1, 4, 17)[2] == T.play_logged_game(p2, 4, 17)[2]


@pytest.mark.parametrize(
    "players, policies",
    [(2, ["random"]), (3, ["route"]), (4, ["route", "random", "route", "random"])],
)
def test_s5_naive_scorer_agrees_with_kernel(players, policies):
    """docs/rules/thurn_und_taxis.md §4C, §5: a plain-Python second scorer, rebuilt from each
    record's plays and closings, gives the kernel's scores and winner on random finished games."""
    r = mcsim.simulate(GAME, games=40, seed=21, players=players, policies=policies, record=40)
    for rec in r.records:
        row = r.games.iloc[rec["game_index"]]
        naive = naive_score_record(rec)
        scores = [int(row[f"score_{k}"]) for k in range(players)]
        assert naive["scores"] == scores == rec["scores"]
        assert naive["winner"] == rec["winner"] == int(row["winner"])
        assert naive["carriages"] == [int(row[f"carriage_{k}"]) for k in range(players)]


@pytest.mark.parametrize(
    "variant",
    [
        {"all_regions_includes_baiern": "true"},
        {"route_tile_cascade": "false", "hand_limit": "every_turn"},
    ],
)
def test_s7_naive_scorer_under_variants(variant):
    """docs/rules/thurn_und_taxis.md §7.1, §7.3, §7.7: the cross-check holds under the variants."""
    r = mcsim.simulate(GAME, games=15, seed=2, policies=["route"], variant=variant, record=15)
    for rec in r.records:
        assert naive_score_record(rec)["scores"] == rec["scores"]
        assert T.replay(json.loads(json.dumps(rec)))["scores"] == rec["scores"]


def test_records_round_trip_and_match_the_run():
    """Records replay to the run's result (scores, winner, length in turns)."""
    r = mcsim.simulate(GAME, games=10, seed=8, policies=["route", "random", "route"], record=5)
    for rec in r.records:
        row = r.games.iloc[rec["game_index"]]
        out = T.replay(json.loads(json.dumps(rec)))
        assert out["finished"] and out["winner"] == int(row["winner"])
        assert out["turns"] == int(row["turns"]) == len(rec["turns"])
        assert out["end_reason"] == T.END_REASONS[int(row["end_reason"])]
    assert "seat 0" in T.format_replay(out)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_fast_random_decisions_equal_the_documented_random_policy(players):
    """Kernel docstring of ``choose_action``: the ``random`` policy's fast path (drawn in
    ``_apply_move``'s dispatch on the phase, in the play loop ``_advance``, logged for records
    and unlogged in runs) takes the same actions with the same random draws as
    ``choose_action`` (uniform over ``legal_moves``, restart only when no extension exists),
    stepped here one decision at a time from Python."""
    from kernels import rng as R
    from kernels import thurn_and_taxis as K

    prep = T.prepare(mcsim.runner.resolve_config(GAME, players, ["random"])[1])
    tab, var = prep.tables["tab"], prep.tables["var"]
    run = T.play_chunk(prep, 0, 4, 21)
    for g in range(4):
        st, logged, deck, _ = T.play_logged_game(prep, 21, g)
        deal_rng = R.new_state(21, g, R.STREAM_DEAL)
        d = np.empty(K.N_CARDS, dtype=np.int64)
        K.deal_deck(deal_rng, d)
        ref = np.zeros(K.ST_SIZE, dtype=np.int64)
        K.init_state(ref, np.int64(players), d)
        K.init_stacks(ref, tab)
        rngs = [R.new_state(21, g, R.STREAM_POLICY + p) for p in range(players)]
        acts = np.empty(K.MAX_ACTIONS, dtype=np.int64)
        empty, nolog = np.empty(0, dtype=np.int64), np.zeros(1, dtype=np.int64)
        actions = []
        while not K.is_terminal(ref):
            n = K.legal_moves(ref, tab, acts)
            p = int(ref[K.S_CUR])
            a = K.choose_action(ref, tab, acts, n, K.POL_RANDOM, prep.policy_params[p], rngs[p])
            actions.append(int(a))
            K.apply_move(ref, tab, var, a, deal_rng, empty, nolog)
        assert actions == logged
        assert len(actions) == int(run["length"][g]) > 100
        scores = np.zeros(K.MAX_SEATS, dtype=np.int64)
        K.score_final(ref, tab, scores)
        assert scores[:players].tolist() == run["score"][g].tolist()
        assert int(ref[K.S_TURN]) == int(run["turns"][g])


def _record():
    return mcsim.simulate(GAME, games=1, seed=3, policies=["route"], record=1).records[0]


def test_replay_rejects_illegal_play_with_turn_index():
    """docs/rules/thurn_und_taxis.md §4B: an illegal play names the turn and the legal plays."""
    rec = _record()
    t = next(
        i for i, t in enumerate(rec["turns"]) if any(p.startswith("right:") for p in t["plays"])
    )
    k = next(j for j, p in enumerate(rec["turns"][t]["plays"]) if p.startswith("right:"))
    rec["turns"][t]["plays"][k] = (
        "right:Lodz" if "Lodz" not in rec["turns"][t]["plays"][k] else "right:Basel"
    )
    with pytest.raises(IllegalMoveError) as e:
        T.replay(rec)
    assert e.value.ply == t and e.value.legal


def test_replay_partial_record_and_bad_records():
    """A partial record replays; malformed ones raise InvalidRecordError."""
    rec = _record()
    part = dict(rec, turns=rec["turns"][:10])
    part.pop("scores")
    out = T.replay(part)
    assert out["finished"] is False and out["turns"] == 10
    with pytest.raises(InvalidRecordError, match="not a thurn-and-taxis record"):
        T.replay({"game": "sacred-hill"})
    with pytest.raises(InvalidRecordError, match="66 city cards"):
        T.replay(dict(rec, deal=rec["deal"][:-1]))
    with pytest.raises(InvalidRecordError, match="unknown city"):
        T.replay(dict(rec, deal=["Berlin"] + rec["deal"][1:]))
    with pytest.raises(InvalidRecordError, match="scores"):
        T.replay(dict(rec, scores=[s + 1 for s in rec["scores"]]))
    bad = json.loads(json.dumps(rec))
    bad["turns"][0]["official"] = "emperor"
    with pytest.raises(InvalidRecordError, match="unknown official"):
        T.replay(bad)
    if rec["reshuffles"]:
        bad = json.loads(json.dumps(rec))
        bad["reshuffles"][0][0] = "Lodz" if bad["reshuffles"][0][0] != "Lodz" else "Basel"
        with pytest.raises(InvalidRecordError, match="reshuffle"):
            T.replay(bad)
    for key, value in (("winner", (rec["winner"] + 1) % 3), ("end_reason", "turn_cap")):
        with pytest.raises(InvalidRecordError, match=f"record says {key} "):
            T.replay(dict(rec, **{key: value}))
    for value in (10**30, 0, True, "2000"):
        with pytest.raises(
            InvalidRecordError, match='"max_turns" must be an integer in 1..100,000'
        ):
            T.replay(dict(rec, max_turns=value))
    assert rec["format"] == T.RECORD_FORMAT == 1
    with pytest.raises(InvalidRecordError, match='"format" must be 1'):
        T.replay(dict(rec, format=2))
    assert T.replay({k: v for k, v in rec.items() if k != "format"})["scores"] == rec["scores"]
    # a close entry on a turn whose route never reaches 3 cards is an error, whatever its type
    short = next(i for i, t in enumerate(rec["turns"]) if t["close"] is None)
    for value in ("bogus", 3, ["each"]):
        bad = json.loads(json.dumps(rec))
        bad["turns"][short]["close"] = value
        with pytest.raises(InvalidRecordError, match='"close" must be null or an object'):
            T.replay(bad)
    first = rec["turns"][0]
    assert first["close"] is None and len(first["plays"]) == 1  # turn 0: a one-card route
    bad = json.loads(json.dumps(rec))
    bad["turns"][0]["close"] = {"mode": "each", "houses": []}
    with pytest.raises(InvalidRecordError, match='turn 0: "close" given, but the route could not'):
        T.replay(bad)


def test_replay_accepts_houses_in_any_order():
    """A closing's houses may be written in any order (one per region, §4C.1)."""
    rec = mcsim.simulate(GAME, games=3, seed=5, policies=["route"], record=3).records
    for r in rec:
        for t in r["turns"]:
            if t["close"] and t["close"]["mode"] == "each":
                t["close"]["houses"].reverse()
        assert T.replay(r)["scores"] == r["scores"]


def test_format_and_parse_move_round_trip():
    """Every legal move of a random game has a name that parses back to it."""
    rng = np.random.default_rng(1)
    g = T.Game(3, rng.permutation([c for c in range(22) for _ in range(3)]))
    for _ in range(400):
        if g.over:
            break
        legal = g.legal()
        names = [T.format_move(g, a) for a in legal]
        assert len(set(names)) == len(names)
        assert [T.parse_move(g, t) for t in names] == legal
        g.apply(legal[rng.integers(len(legal))])
    with pytest.raises(InvalidRecordError):
        T.parse_move(g, "teleport:Lodz")


def test_bad_input_raises_mcsim_errors(tmp_path):
    """Input errors: bad player count, policy, parameter, variant, option, data file."""
    with pytest.raises(ConfigError):
        mcsim.simulate(GAME, games=2, players=5)
    with pytest.raises(UnknownPolicyError):
        mcsim.simulate(GAME, games=2, policies=["greedy"])
    with pytest.raises(UnknownPolicyError):
        mcsim.simulate(GAME, games=2, policies=["route:close_len=2"])
    with pytest.raises(UnknownVariantError):
        mcsim.simulate(GAME, games=2, variant={"all_regions_includes_baiern": "maybe"})
    with pytest.raises(ConfigError, match="unknown option"):
        mcsim.simulate(GAME, games=2, options={"cards": "x.json"})
    with pytest.raises(DataFileError, match="none.json: data file does not exist"):
        mcsim.simulate(GAME, games=2, options={"bonus_tiles": str(tmp_path / "none.json")})
    with pytest.raises(ConfigError, match="unknown option 'tiles'"):  # the alias is removed
        mcsim.simulate(GAME, games=2, options={"tiles": "x.json"})
    bad = tmp_path / "c.json"
    bad.write_text(json.dumps({"carriages": [{"value": 3, "points": 2}]}))
    with pytest.raises(DataFileError, match="carriage value 4 is missing"):
        mcsim.simulate(GAME, games=2, options={"carriages": str(bad)})


def test_s2_1_carriage_points_from_option_file(tmp_path):
    """docs/rules/thurn_und_taxis.md §2.1 (medium): carriage points replaceable by a data file."""
    f = tmp_path / "c.json"
    f.write_text(json.dumps({"carriages": [{"value": v, "points": 100 * v} for v in range(3, 8)]}))
    a = mcsim.simulate(GAME, games=30, seed=4, policies=["route"])
    b = mcsim.simulate(GAME, games=30, seed=4, policies=["route"], options={"carriages": str(f)})
    rec = mcsim.simulate(
        GAME, games=2, seed=4, policies=["route"], options={"carriages": str(f)}, record=2
    ).records
    for r in rec:  # the record carries its carriage points; replay and naive scorer use them
        assert r["components"]["carriage_points"]["7"] == 700
        assert T.replay(json.loads(json.dumps(r)))["scores"] == r["scores"]
        assert naive_score_record(r)["scores"] == r["scores"]
    bad = dict(rec[0], components={"carriage_points": {"3": 1}})
    with pytest.raises(InvalidRecordError, match="components"):
        T.replay(bad)
    for k in range(3):
        carr = a.games[f"carriage_{k}"].to_numpy().astype(np.int64)
        vp = np.where(carr > 0, 100 * carr, 0) - np.select(
            [carr == v for v in range(3, 8)], [2, 3, 5, 7, 10], 0
        )
        assert (b.games[f"score_{k}"].to_numpy() - a.games[f"score_{k}"].to_numpy() == vp).all()


def test_summary_block():
    """The thurn_and_taxis summary block and its invariants."""
    r = mcsim.simulate(GAME, games=200, seed=1, policies=["route"])
    s = r.summary["thurn_and_taxis"]
    assert set(s) == {"by_players", "end", "officials", "closed_routes", "bonus_tiles", "carriages"}
    seats = s["by_players"]["3"]
    assert sum(x["win_rate"]["estimate"] for x in seats) == pytest.approx(1.0)
    end = s["end"]
    assert end["carriage7"]["estimate"] + end["houses"]["estimate"] + end["turn_cap"][
        "estimate"
    ] == pytest.approx(1.0)
    assert s["bonus_tiles"]["game_end"]["mean_taken"] == pytest.approx(
        1 - end["turn_cap"]["estimate"]
    )
    assert sum(v for k, v in s["carriages"].items() if k != "mean_highest") == pytest.approx(1.0)
    assert sum(s["closed_routes"]["share_by_length"].values()) == pytest.approx(1.0)
    assert s["closed_routes"]["mean_length"] >= 3
    assert set(s["officials"]) == set(T.OFFICIALS)
    text = T.format_summary(s)
    assert text.startswith("end: 7-carriage") and "cartwright" in text


def test_s3_route_close_len_parameter_lengthens_routes():
    """The planner's thresholds are parameters: close_len=6 closes longer routes.

    Mean closed length over 100 games x 3 seats (several hundred routes each, sd about 1 card):
    the difference must exceed 1 card, far above its standard error (about 0.1)."""
    a = mcsim.simulate(GAME, games=100, seed=3, policies=["route"]).summary["thurn_and_taxis"]
    b = mcsim.simulate(
        GAME, games=100, seed=3, policies=["route:close_len=6,chase_carriage=0"]
    ).summary["thurn_and_taxis"]
    assert b["closed_routes"]["mean_length"] > a["closed_routes"]["mean_length"] + 1


def test_summary_partials_merge_exactly():
    """Chunk partials (also through their JSON form) merge to the whole-table block."""
    from mcsim.aggregate import _jsonable, add_partials

    r = mcsim.simulate(GAME, games=120, seed=9, policies=["route", "random", "route"])
    g, prep = r.games, r.prepared
    parts = [T.partial_summary(g.iloc[a:b], prep) for a, b in ((0, 50), (50, 51), (51, 120))]
    parts[1] = json.loads(json.dumps(_jsonable(parts[1])))
    total = add_partials(add_partials(parts[0], parts[1]), parts[2])
    want = json.dumps(T.summarize(g, prep), default=str)
    assert json.dumps(T.finalize_summary(total, prep), default=str) == want
    assert json.dumps(r.summary["thurn_and_taxis"], default=str) == want


def test_s5_route_policy_beats_random():
    """The route planner beats random players.

    Seat 0 (route) against two random seats over 200 games: its win share must exceed 1/3 by
    more than 3 standard errors (se = sqrt(p(1-p)/n) <= 0.034 at p = 1/3, n = 200)."""
    r = mcsim.simulate(GAME, games=200, seed=6, policies=["route", "random", "random"])
    share = r.games["win_share_0"].mean()
    assert share > 1 / 3 + 3 * np.sqrt((1 / 3) * (2 / 3) / 200)


def test_cli_simulate_record_and_replay(tmp_path):
    """`simulate --record` writes records that `replay` validates."""
    import cli

    rec = tmp_path / "rec.json"
    res = CliRunner().invoke(
        cli.mcsim_cli,
        [
            "simulate",
            GAME,
            "-n",
            "5",
            "--seed",
            "3",
            "--policy",
            "route",
            "--record",
            "1",
            "--record-out",
            str(rec),
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    out = CliRunner().invoke(cli.mcsim_cli, ["replay", GAME, str(rec)])
    assert out.exit_code == 0, out.output
    assert "winner: seat" in out.output


def test_unknown_city_names_its_turn():
    """An unknown city in a turn's entries is refused naming the turn (README "Records")."""
    rec = json.loads(json.dumps(_record()))
    t = next(i for i, turn in enumerate(rec["turns"]) if turn.get("draws"))
    rec["turns"][t]["draws"] = ["display:Nowhere"]
    with pytest.raises(InvalidRecordError, match=rf"^turn {t}: unknown city 'Nowhere'$"):
        T.replay(rec)


# Runs in a new process so that the dispatchers start empty: play first (compiled, or loaded
# from the cache), then record every compile that records and replays of those games cause.
_SHARED_CODE_CHILD = r"""
import json
from numba.core import event
import mcsim
from mcsim.games import thurn_and_taxis as T

lineups = (["random"], ["route", "random", "route"])
for pol in lineups:  # a random run (the engine without route code), then a route run
    mcsim.simulate("thurn-and-taxis", games=3, seed=5, policies=pol, workers=1)
compiled = []

class Count(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)

    def on_end(self, ev):
        pass

event.register("numba:compile", Count())
replays = []
for pol in lineups:
    r = mcsim.simulate("thurn-and-taxis", games=3, seed=5, policies=pol, workers=1, record=2)
    replays += [T.replay(json.loads(json.dumps(rec)))["scores"] == rec["scores"] for rec in r.records]
print(json.dumps({"compiled": compiled, "replays": replays}))
"""


def test_records_and_replays_share_play_code():
    """Compile time: records are played by the run's entry kernel (``play_batch``) and replays
    apply moves with the engine of random runs (``_advance`` without route code,
    ``legal_moves``), so once a random and a route run are compiled, their records and the
    replays compile nothing (compile time is measured in ``benchmarks/bench_cold_start.py``,
    never asserted)."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    p = subprocess.run(
        [sys.executable, "-c", _SHARED_CODE_CHILD],
        capture_output=True,
        text=True,
        cwd=root,
        check=True,
    )
    got = json.loads(p.stdout.strip().splitlines()[-1])
    assert got == {"compiled": [], "replays": [True] * 4}


def test_summary_of_runs_that_close_no_route(run):
    """Games capped before any route is closed say so ("none"), not a NaN mean length."""
    r = run("simulate", "thurn-and-taxis", "--games", 20, "--option", "max_turns=5", "-q")
    assert r.exit_code == 0, r.output
    assert "closed routes: none" in r.output and "nan" not in r.output
