"""``mcsim tune``: the optimiser, determinism, disjoint validation deals, resume, bad input.

Games are Sacred Hill (the fastest game) with tiny budgets; the optimiser itself is checked on
a constructed objective without games.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import mcsim.tune as T
from cli import mcsim_cli
from kernels.rng import STREAM_DEAL, game_seed
from mcsim.errors import ConfigError, InputFileError, UnknownPolicyError
from mcsim.games import get_game
from mcsim.runner import MAX_GAMES

# two of tactician's nine parameters: d = 2, so cma's default population is 4 + 3 ln 2 -> 6
SMALL = dict(params=["w_kingdoms", "w_suicide"], seed=3)


def test_cma_finds_the_known_best_of_a_constructed_objective():
    # Thurn and Taxis `route`: close_len is an integer in [3, 22], w_region continuous in
    # [0, 100]; the objective peaks at close_len = 6, w_region = 3.7 (both inside the boxes)
    specs = get_game("thurn-and-taxis").SPEC.policy("route").params
    space = T.search_space(specs, {}, ["close_len=3:12", "w_region=0:10"], "route")
    assert [(p.name, p.integer) for p in space] == [("close_len", True), ("w_region", False)]

    def evaluate(cands, g):
        return np.array([-((c["close_len"] - 6) ** 2) - (c["w_region"] - 3.7) ** 2 for c in cands])

    res = T.run_cma(space, evaluate, generations=60, seed=1)
    assert res["best"]["close_len"] == 6.0
    assert abs(res["best"]["w_region"] - 3.7) < 0.01
    assert all(r["close_len"] == int(r["close_len"]) for r in res["rows"])  # integers only
    assert all(3 <= r["close_len"] <= 12 and 0 <= r["w_region"] <= 10 for r in res["rows"])


def test_search_space_boxes():
    specs = get_game("sacred-hill").SPEC.policy("tactician").params
    space = {p.name: p for p in T.search_space(specs, {"eps": 0.0}, None, "tactician")}
    assert "eps" not in space  # fixed in -p
    # unbounded: start +/- max(2|start|, 1); w_suicide starts at 2
    assert (space["w_suicide"].low, space["w_suicide"].high, space["w_suicide"].start) == (-2, 6, 2)
    assert (space["w_spread"].low, space["w_spread"].high) == (-0.9, 1.1)
    tt = get_game("thurn-and-taxis").SPEC.policy("route").params
    box = {p.name: p for p in T.search_space(tt, {}, None, "route")}
    # documented [3, 22] narrowed to 3 +/- 6 -> [3, 9]; 0/1 switches stay [0, 1]
    assert (box["close_len"].low, box["close_len"].high, box["close_len"].integer) == (3, 9, True)
    assert (box["cartwright"].low, box["cartwright"].high) == (0, 1)


@pytest.mark.parametrize(
    "args, message",
    [
        (["-p", "tactician", "--param", "w_nope"], "has no parameter 'w_nope'; it has: eps,"),
        (["-p", "tactician", "--param", "eps=0:2"], "outside its documented range [0, 1]"),
        (["-p", "tactician", "--param", "eps=0.5:0.5"], "LOW < HIGH"),
        (["-p", "tactician", "--param", "eps=a:b"], "LOW:HIGH (two numbers)"),
        (["-p", "tactician", "--param", "eps", "--param", "eps"], "--param eps is given twice"),
        (["-p", "tactician", "--budget", "0"], "--budget must be a positive whole number"),
        (["-p", "tactician", "--budget", "43"], "need at least 44 games"),
        (["-p", "tactician", "--budget", "1000", "--deals", "100"], "cannot fit one generation"),
        (
            ["-p", "tactician", "--budget", "10000000", "--deals", "1"],
            "generations; at most 10,000",
        ),
        (["-p", "tactician", "--deals", "0"], "--deals must be a positive whole number"),
        (["-p", "tactician", "--popsize", "1"], "--popsize must be at least 2"),
        (["-p", "tactician", "--workers", "0"], "--workers must be a positive whole number"),
        (["-p", "tactician:w_nope=1"], "has no parameter 'w_nope'"),
        (["-p", "random"], "no numeric parameter left to tune"),
        (
            [
                "-p",
                "tactician",
                "--objective",
                "score",
                "--against",
                "greedy",
                "--against",
                "random",
            ],
            "2 --against policies make 3 players; sacred-hill is for 2 players",
        ),
        (["-p", "tactician", "--resume"], "--resume needs --out DIR"),
    ],
)
def test_bad_input_is_a_one_line_error(args, message, tmp_path):
    r = CliRunner().invoke(mcsim_cli, ["tune", "sacred-hill", *args, "-q"])
    assert r.exit_code == 2, r.output
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0], r.output


def test_integer_parameter_box_must_be_whole_numbers():
    r = CliRunner().invoke(
        mcsim_cli, ["tune", "thurn-and-taxis", "-p", "route", "--param", "close_len=3.5:8", "-q"]
    )
    assert r.exit_code == 2
    assert r.output.strip().splitlines() == [
        "Error: --param close_len=3.5:8: close_len is an integer; give whole-number bounds"
    ]


def test_one_player_objectives():
    with pytest.raises(ConfigError, match="needs at least 2 players"):
        T.tune("don-quixote", "heuristic", objective="win_share", budget=1000)
    with pytest.raises(ConfigError, match="--against needs at least 2 players"):
        T.tune("don-quixote", "heuristic", against=["greedy"], players=1, budget=1000)
    with pytest.raises(UnknownPolicyError):
        T.tune("don-quixote", "heuristic:now=nan", budget=1000)


def test_plan_budget_splits_the_budget_exactly():
    p = T.plan_budget(100_000, popsize=10, seatings=3, start_exact=True)
    # 20% validation: 6,666 deals x 3 seatings; 80,002 games left = 2,666 deals per candidate
    # -> 40 generations of 66 deals; the rounding remainder goes to validation
    assert p == {
        "generations": 40,
        "deals": 66,
        "tuning_games": 79_200,
        "validation_deals": 6_933,
        "validation_games": 20_799,
    }
    assert p["tuning_games"] + p["validation_games"] <= 100_000
    q = T.plan_budget(1000, popsize=6, seatings=1, start_exact=False, deals=20)
    assert q["deals"] == 20 and q["generations"] == 6 and q["validation_deals"] == 140


def test_validation_deals_are_disjoint_from_tuning_deals(monkeypatch):
    played = []
    real = T._play

    def spy(task):
        played.append((task[3], task[4], task[5]))  # first game index, games, root seed
        return real(task)

    monkeypatch.setattr(T, "_play", spy)
    res = T.tune("sacred-hill", "tactician", budget=600, workers=1, **SMALL)
    s = res["settings"]
    tuning = {
        (seed, i) for first, n, seed in played if first < MAX_GAMES for i in range(first, first + n)
    }
    valid = {
        (seed, i)
        for first, n, seed in played
        if first >= MAX_GAMES
        for i in range(first, first + n)
    }
    assert tuning == {(3, i) for i in range(s["generations"] * s["deals"])}
    assert valid == {(3, T.VALIDATION_FIRST + j) for j in range(s["validation_deals"])}
    assert res["validation"]["deals"] == s["validation_deals"] > 0

    # the per-game deal seeds differ too (game_seed is a bijective hash for one root seed)
    def seeds(pairs):
        return {
            int(game_seed(np.uint64(a), np.uint64(i), np.uint64(STREAM_DEAL))) for a, i in pairs
        }

    assert not seeds(tuning) & seeds(valid)
    # every game of the budget is accounted for, none beyond it
    assert sum(n for _, n, _ in played) == res["games_played"] <= 600


def test_same_seed_same_result_for_any_worker_count_and_backend():
    a = T.tune("sacred-hill", "tactician", budget=500, workers=1, **SMALL)
    b = T.tune("sacred-hill", "tactician", budget=500, workers=2, backend="local", **SMALL)
    assert a["policy"] == b["policy"]
    assert a["validation"] == b["validation"]
    c = T.tune("sacred-hill", "tactician", budget=500, workers=2, backend="dask", **SMALL)
    assert c["policy"] == a["policy"] and c["validation"] == a["validation"]
    d = T.tune("sacred-hill", "tactician", budget=500, workers=1, params=SMALL["params"], seed=4)
    assert d["policy"] != a["policy"]  # the seed matters


def test_interrupted_and_resumed_gives_the_same_result(tmp_path):
    full = T.tune(
        "sacred-hill", "tactician", budget=700, deals=8, out_dir=tmp_path / "full", **SMALL
    )
    assert full["settings"]["generations"] == 5

    def stop(info):
        if info["generation"] == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        T.tune(
            "sacred-hill",
            "tactician",
            budget=700,
            deals=8,
            out_dir=tmp_path / "cut",
            on_generation=stop,
            **SMALL,
        )
    assert len(pd.read_csv(tmp_path / "cut" / T.CSV_NAME).generation.unique()) == 2
    with pytest.raises(ConfigError, match="not empty; use --resume"):
        T.tune("sacred-hill", "tactician", budget=700, deals=8, out_dir=tmp_path / "cut", **SMALL)
    with pytest.raises(ConfigError, match=r"holds a different run \(budget 700 there, 800 now\)"):
        T.tune(
            "sacred-hill",
            "tactician",
            budget=800,
            deals=8,
            out_dir=tmp_path / "cut",
            resume=True,
            **SMALL,
        )
    seen = []
    again = T.tune(
        "sacred-hill",
        "tactician",
        budget=700,
        deals=8,
        out_dir=tmp_path / "cut",
        resume=True,
        on_generation=lambda info: seen.append(info["generation"]),
        **SMALL,
    )
    assert seen == [2, 3, 4]  # continued after the two saved generations
    assert again["policy"] == full["policy"] and again["validation"] == full["validation"]
    pd.testing.assert_frame_equal(
        pd.read_csv(tmp_path / "cut" / T.CSV_NAME), pd.read_csv(tmp_path / "full" / T.CSV_NAME)
    )
    saved = json.loads((tmp_path / "full" / T.SETTINGS_NAME).read_text())
    assert saved["policy"] == full["policy"] and "numba" in saved["versions"]
    assert (tmp_path / "full" / T.PNG_NAME).read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    "content",
    [
        b"\x80\x04K\x01.",
        b'{"a": 1}',
        b"7",
        b'{"generation": 1, "objectives": [], "rows": [], "means": []}',
    ],
)
def test_a_damaged_or_foreign_state_file_is_one_line_and_never_unpickled(tmp_path, content):
    """Resume reads ``state.json`` with the bounded JSON reader and checks its fields; a pickle
    (which could run code), a wrong shape or inconsistent counts is one ConfigError line."""

    def stop(info):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        T.tune(
            "sacred-hill",
            "tactician",
            budget=700,
            deals=8,
            out_dir=tmp_path / "cut",
            on_generation=stop,
            **SMALL,
        )
    (tmp_path / "cut" / T.STATE_NAME).write_bytes(content)
    with pytest.raises(InputFileError, match=r"is not a tuning state; remove it to start over"):
        T.tune(
            "sacred-hill",
            "tactician",
            budget=700,
            deals=8,
            out_dir=tmp_path / "cut",
            resume=True,
            **SMALL,
        )


def test_a_state_the_optimiser_does_not_reproduce_is_refused(tmp_path):
    def stop(info):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        T.tune(
            "sacred-hill",
            "tactician",
            budget=700,
            deals=8,
            out_dir=tmp_path / "cut",
            on_generation=stop,
            **SMALL,
        )
    st = json.loads((tmp_path / "cut" / T.STATE_NAME).read_text())
    st["rows"][0][SMALL["params"][0]] += 0.125  # a candidate this optimiser never proposed
    (tmp_path / "cut" / T.STATE_NAME).write_text(json.dumps(st))
    with pytest.raises(
        ConfigError, match="generation 1 of the saved run is not what this optimiser proposes"
    ):
        T.tune(
            "sacred-hill",
            "tactician",
            budget=700,
            deals=8,
            out_dir=tmp_path / "cut",
            resume=True,
            **SMALL,
        )


def test_cli_prints_a_ready_policy_string_and_the_validation(tmp_path):
    r = CliRunner().invoke(
        mcsim_cli,
        [
            "tune",
            "sacred-hill",
            "-p",
            "tactician:eps=0.05",
            "--param",
            "w_kingdoms",
            "--budget",
            "300",
            "-w",
            "1",
            "--seed",
            "3",
            "--json",
            "-q",
        ],
    )
    assert r.exit_code == 0, r.output
    res = json.loads(r.stdout)
    assert res["policy"].startswith("tactician:eps=0.05,w_kingdoms=")
    assert res["settings"]["search_space"] == [
        {
            "name": "w_kingdoms",
            "low": -1.0,
            "high": 3.0,
            "start": 1.0,
            "integer": False,
            "range": [None, None],
        }
    ]
    v = res["validation"]
    assert v["start"] == {"mean": 0.5, "exact": True}  # tactician:eps=0.05 in both seats
    assert v["difference"]["mean"] == pytest.approx(v["tuned"]["mean"] - 0.5)
    assert v["beats_start"] == (v["difference"]["low"] > 0)
    # the printed string is accepted as it is by the other commands
    s = CliRunner().invoke(
        mcsim_cli,
        [
            "simulate",
            "sacred-hill",
            "-n",
            "10",
            "-w",
            "1",
            "-q",
            "-p",
            res["policy"],
            "-p",
            "tactician",
        ],
    )
    assert s.exit_code == 0, s.output
    text = CliRunner().invoke(
        mcsim_cli,
        [
            "tune",
            "sacred-hill",
            "-p",
            "tactician:eps=0.05",
            "--param",
            "w_kingdoms",
            "--budget",
            "300",
            "-w",
            "1",
            "--seed",
            "3",
            "-q",
        ],
    )
    assert f"best: -p {res['policy']}" in text.output
    assert "tuned - start" in text.output


def test_solo_score_objective_validates_against_the_played_start():
    # one-player Don Quixote: the objective is the score; the start is played on the same
    # validation deals, and its mean is the plain mean of those games
    res = T.tune(
        "don-quixote", "heuristic", params=["now", "castle"], budget=200, seed=2, workers=1
    )
    s, v = res["settings"], res["validation"]
    assert (s["objective"], s["players"], s["seatings"]) == ("score", 1, 1)
    assert "exact" not in v["start"]
    module = get_game("don-quixote")
    from mcsim.runner import resolve_config

    prep = module.prepare(resolve_config("don-quixote", 1, ["heuristic"])[1])
    direct = module.play_chunk(prep, T.VALIDATION_FIRST, v["deals"], 2)["score"][:, 0]
    assert v["start"]["mean"] == pytest.approx(float(np.mean(direct)), abs=1e-12)
    assert v["difference"]["mean"] == pytest.approx(v["tuned"]["mean"] - v["start"]["mean"])
    assert res["games_played"] == s["tuning_games"] + 2 * v["deals"] <= 200


def test_a_start_equal_to_the_field_is_not_played():
    # tactician:eps=0 is tactician at its defaults: its win share is exactly 1/2 on every deal,
    # so validation plays only the tuned policy (2 seatings per deal, not 4)
    same = T.tune(
        "sacred-hill", "tactician:eps=0", against=["tactician"], budget=10_000, dry_run=True
    )["settings"]
    other = T.tune(
        "sacred-hill", "tactician:eps=0", against=["greedy"], budget=10_000, dry_run=True
    )["settings"]
    assert same["validation_games"] == 2 * same["validation_deals"]
    assert other["validation_games"] == 4 * other["validation_deals"]
    assert same["tuning_games"] + same["validation_games"] <= 10_000


def test_force_starts_over_in_a_folder_of_an_earlier_run(tmp_path):
    """`tune --force` replaces the earlier run's four files and tunes again (fresh-user test:
    there was no --force); with --resume it is a usage error."""
    args = [
        "tune",
        "sacred-hill",
        "-p",
        "tactician",
        "--param",
        "w_kingdoms",
        "--budget",
        "300",
        "-w",
        "1",
        "--seed",
        "3",
        "-q",
        "--out",
        str(tmp_path / "t"),
    ]
    assert CliRunner().invoke(mcsim_cli, args).exit_code == 0
    again = CliRunner().invoke(mcsim_cli, args)
    assert again.exit_code == 2 and "holds an earlier tuning run; use --resume" in again.output
    forced = CliRunner().invoke(mcsim_cli, args + ["--force"])
    assert forced.exit_code == 0, forced.output
    assert sorted(p.name for p in (tmp_path / "t").iterdir()) == sorted(
        [T.SETTINGS_NAME, T.CSV_NAME, T.PNG_NAME, T.STATE_NAME]
    )
    both = CliRunner().invoke(mcsim_cli, args + ["--force", "--resume"])
    assert both.exit_code == 2 and "give one of them" in both.output


def test_tuning_plays_through_the_runners_executor(monkeypatch):
    """Tuning has no pool of its own: every deal is played by ``mcsim.runner.Executor`` (the
    execution layer with the runner's Ctrl-C and parent-death handling), with one pool for the
    whole run."""
    from mcsim import runner

    started = []
    real_start = runner.Executor._start

    def counting_start(self):
        started.append(self.backend)
        real_start(self)

    maps = []
    real_imap = runner.Executor.imap

    def counting_imap(self, fn, tasks):
        maps.append(fn.__name__)
        return real_imap(self, fn, tasks)

    monkeypatch.setattr(runner.Executor, "_start", counting_start)
    monkeypatch.setattr(runner.Executor, "imap", counting_imap)
    T.tune("sacred-hill", "tactician", budget=500, workers=2, backend="local", **SMALL)
    assert started == ["local"]
    assert len(maps) >= 2 and set(maps) == {"_play"}
