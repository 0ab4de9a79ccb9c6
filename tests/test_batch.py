"""Batch sweeps: plan validation before anything runs, the tidy table, the CLI."""

import json
import math
import tomllib
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import mcsim
from cli import mcsim_cli
from mcsim import batch
from mcsim.batch import BATCH_COLUMNS, PlanError, load_plan, parse_plan, run_plan
from mcsim.games import REGISTRY

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

SMALL_PLAN = """
title = "small"
[defaults]
games = 200
seeds = [1, 2]

[[experiment]]
name = "sh"
game = "sacred-hill"
policies = ["random", ["tactician", "random"]]
variant = { transition = ["box", "web2014"] }

[[experiment]]
name = "tt"
game = "thurn-and-taxis"
players = [2, 3]
games = 40
seed = 5
"""


def write(tmp_path, text, name="plan.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.fixture
def no_simulate(monkeypatch):
    """Fail the test if any game is played."""

    def boom(*a, **k):
        raise AssertionError("a game was played before the plan was validated")

    monkeypatch.setattr(mcsim, "simulate", boom)
    monkeypatch.setattr("mcsim.runner.simulate", boom)  # every run goes through it


# ---------------------------------------------------------------- plan expansion
def test_grid_expands_in_documented_order(tmp_path):
    plan = load_plan(write(tmp_path, SMALL_PLAN))
    assert plan.title == "small"
    ids = [c.id for c in plan.cells]
    # sh: 2 policies x 2 transitions x 1 games x 2 seeds = 8; tt: 2 players x 1 x 1 x 1 x 1 = 2
    assert ids == [f"sh-{j:03d}" for j in range(8)] + ["tt-000", "tt-001"]
    sh = plan.cells[:8]
    assert [(c.policy_labels, c.variant["transition"], c.seed) for c in sh[:4]] == [
        (["random", "random"], "box", 1),
        (["random", "random"], "box", 2),
        (["random", "random"], "web2014", 1),
        (["random", "random"], "web2014", 2),
    ]
    assert sh[4].policy_labels == ["tactician", "random"]
    assert [c.resolved_players for c in plan.cells[8:]] == [2, 3]
    assert plan.cells[8].games == 40 and plan.cells[8].seed == 5
    assert plan.total_games == 8 * 200 + 2 * 40


# ---------------------------------------------------------------- malformed plans
BAD = [
    (
        "unknown top-level key",
        'titel = "x"\n[[experiment]]\ngame="sacred-hill"\ngames=10',
        "unknown top-level key 'titel'",
    ),
    ("no experiments", 'title = "x"', "no [[experiment]] tables"),
    (
        "unknown key",
        '[[experiment]]\nname="a"\ngame="sacred-hill"\ngames=10\npolicy="random"',
        "experiment #1: unknown key 'policy'",
    ),
    (
        "missing game",
        '[[experiment]]\nname="a"\ngames=10',
        "experiment 'a' (#1): 'game' is required",
    ),
    (
        "unknown game",
        '[[experiment]]\nname="a"\ngame="chess"\ngames=10',
        "experiment 'a' (#1): unknown game 'chess'",
    ),
    ("missing games", '[[experiment]]\nname="a"\ngame="sacred-hill"', "'games' is required"),
    (
        "zero games",
        '[[experiment]]\nname="a"\ngame="sacred-hill"\ngames=[10, 0]',
        "'games' value 0 must be >= 1",
    ),
    (
        "games not int",
        '[[experiment]]\nname="a"\ngame="sacred-hill"\ngames="10"',
        "'games' must be a whole number",
    ),
    (
        "bool games",
        '[[experiment]]\nname="a"\ngame="sacred-hill"\ngames=true',
        "'games' must be a whole number",
    ),
    (
        "negative seed",
        '[[experiment]]\nname="a"\ngame="sacred-hill"\ngames=10\nseeds=[1,-1]',
        "'seeds' value -1 must be in [0, 2**64)",
    ),
    (
        "seed and seeds",
        '[[experiment]]\nname="a"\ngame="sacred-hill"\ngames=10\nseed=1\nseeds=[2]',
        "give 'seed' or 'seeds', not both",
    ),
    (
        "duplicate seed",
        '[[experiment]]\nname="a"\ngame="sacred-hill"\ngames=10\nseeds=[2, 2]',
        "'seeds' lists a value twice",
    ),
    (
        "unknown policy",
        '[[experiment]]\nname="a"\ngame="sacred-hill"\ngames=10\npolicies=["nope"]',
        "unknown policy 'nope' for sacred-hill",
    ),
    (
        "bad policy param",
        '[[experiment]]\nname="a"\ngame="sacred-hill"\ngames=10\npolicies=["greedy:eps=2"]',
        "parameter eps=2 is outside",
    ),
    (
        "policy not a string",
        '[[experiment]]\nname="a"\ngame="sacred-hill"\ngames=10\npolicies=[3]',
        "policies entry 3 must be a policy string",
    ),
    (
        "unknown variant",
        '[[experiment]]\nname="a"\ngame="sacred-hill"\ngames=10\nvariant={ zones = "knight12" }',
        "unknown variant 'zones' for sacred-hill",
    ),
    (
        "bad variant value",
        '[[experiment]]\nname="a"\ngame="sacred-hill"\ngames=10\n'
        'variant={ zone = ["knight12", "king"] }',
        "variant zone='king' is not one of",
    ),
    (
        "players out of range",
        '[[experiment]]\nname="a"\ngame="sacred-hill"\ngames=10\nplayers=3',
        "sacred-hill is for 2 players, not 3",
    ),
    (
        "seat list mismatch",
        '[[experiment]]\nname="a"\ngame="thurn-and-taxis"\ngames=10\n'
        'players=[3]\npolicies=[["route", "random"]]',
        "2 policies given for 3 seats",
    ),
    (
        "bad name",
        '[[experiment]]\nname="a b"\ngame="sacred-hill"\ngames=10',
        "name 'a b' must be letters",
    ),
    (
        "duplicate name",
        '[[experiment]]\nname="a"\ngame="sacred-hill"\ngames=10\n'
        '[[experiment]]\nname="a"\ngame="sacred-hill"\ngames=10',
        "experiment 'a' (#2): the name is used",
    ),
    (
        "bad default key",
        '[defaults]\nname="x"\n[[experiment]]\ngame="sacred-hill"\ngames=10',
        "[defaults]: unknown key 'name'",
    ),
    (
        "game option rejected",
        '[[experiment]]\nname="a"\ngame="sacred-hill"\ngames=10\noptions={ tiles = "t.json" }',
        "option 'tiles' for sacred-hill",
    ),
    (
        "options not a table",
        '[[experiment]]\nname="a"\ngame="sacred-hill"\ngames=10\noptions=3',
        "'options' must be a table",
    ),
]


@pytest.mark.parametrize("why,text,message", BAD, ids=[b[0] for b in BAD])
def test_malformed_plan_is_rejected_naming_the_entry(tmp_path, no_simulate, why, text, message):
    """A malformed plan raises PlanError (one line, names the plan and the entry); nothing runs
    and no output folder is created."""
    path = write(tmp_path, text)
    out = tmp_path / "out"
    with pytest.raises(PlanError) as e:
        run_plan(path, out=out)
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(str(path)), msg
    assert message in msg, msg
    assert not out.exists()


def test_bad_entry_late_in_the_plan_stops_everything_before_the_first_game(tmp_path, no_simulate):
    """Only the third experiment is bad; no cell of the first two is played."""
    text = (
        SMALL_PLAN + '\n[[experiment]]\nname="late"\ngame="sacred-hill"\ngames=10\n'
        'variant = { transition = "grace" }\n'
    )
    with pytest.raises(PlanError, match=r"experiment 'late' \(#3\), cell 0 .*transition='grace'"):
        run_plan(write(tmp_path, text), out=tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_invalid_toml_is_one_line(tmp_path):
    with pytest.raises(PlanError, match=r"not valid TOML \(.*line 2"):
        load_plan(write(tmp_path, '[[experiment]]\ngame = "sacred-hill\n'))


# ---------------------------------------------------------------- the tidy table
def test_tidy_table_columns_rows_and_files(tmp_path):
    """One row per cell and seat with the documented columns; CSV, Parquet and per-cell JSON
    agree; every cell equals a plain ``mcsim.simulate`` with the same arguments."""
    out = tmp_path / "out"
    lines = []
    res = run_plan(load_plan(write(tmp_path, SMALL_PLAN)), out=out, echo=lines.append)
    t = res.table
    assert list(t.columns) == list(BATCH_COLUMNS)
    assert len(t) == 8 * 2 + 2 + 3
    assert t.groupby("cell_id").size().to_dict() == {
        **{f"sh-{j:03d}": 2 for j in range(8)},
        "tt-000": 2,
        "tt-001": 3,
    }
    assert (t["win_rate_low"] <= t["win_rate"]).all()
    assert (t["win_rate"] <= t["win_rate_high"]).all()
    assert (t["score_low"] <= t["score_mean"]).all() and (t["score_mean"] <= t["score_high"]).all()
    # win rates of a cell sum to 1 (a tie counts 1/k)
    assert t.groupby("cell_id")["win_rate"].sum().round(12).eq(1.0).all()
    # files
    csv = pd.read_csv(out / "results.csv")
    pq = pd.read_parquet(out / "results.parquet")
    assert list(csv.columns) == list(BATCH_COLUMNS) == list(pq.columns)
    pd.testing.assert_frame_equal(
        pq.drop(columns="elapsed_seconds"), t.drop(columns="elapsed_seconds"), check_dtype=False
    )
    assert csv["score_mean"].tolist() == pytest.approx(t["score_mean"].tolist(), rel=1e-12)
    files = sorted(p.name for p in (out / "experiments").iterdir())
    assert files == [f"sh-{j:03d}.json" for j in range(8)] + ["tt-000.json", "tt-001.json"]
    s = json.loads((out / "experiments" / "sh-005.json").read_text())
    assert s["experiment"]["id"] == "sh-005" and s["games"] == 200
    assert s["policies"] == ["tactician", "random"] and s["variant"]["transition"] == "box"
    plan_json = json.loads((out / "plan.json").read_text())
    assert [c["id"] for c in plan_json["cells"]] == list(dict.fromkeys(t["cell_id"]))
    assert not [p for p in out.rglob("*.tmp")]
    # progress lines: one start and one finish line per cell, then the total
    assert lines[0].startswith("[1/10] sh-000: sacred-hill, 2 players, random|random")
    assert lines[-1].startswith("batch: 10 cells, 1,680 games")
    # same seeding rules as simulate: cell sh-005 is simulate(seed=2, tactician|random, box)
    r = mcsim.simulate(
        "sacred-hill",
        games=200,
        seed=2,
        policies=["tactician", "random"],
        variant={"transition": "box"},
    )
    row = t[t.cell_id == "sh-005"].set_index("seat")
    for k, seat in enumerate(r.summary["seats"]):
        assert row.loc[k, "win_rate"] == seat["win_rate"]["estimate"]
        assert row.loc[k, "score_mean"] == seat["score"]["mean"]
        assert row.loc[k, "score_high"] == seat["score"]["high"]


def test_identical_cells_give_identical_rows(tmp_path):
    """Every cell follows simulate's seeding rules: two cells with the same arguments (and the
    same seed) play the same games and give the same rows."""
    text = (
        '[[experiment]]\nname="x"\ngame="sacred-hill"\ngames=150\nseeds=[9]\n'
        'policies=[["random","random"],["random","random"]]\n'
    )
    res = run_plan(load_plan(write(tmp_path, text)))
    t = res.table.drop(columns=["cell", "cell_id", "elapsed_seconds"])
    a, b = t.iloc[:2].reset_index(drop=True), t.iloc[2:].reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)


# ---------------------------------------------------------------- example plans
def example_plans():
    return sorted(EXAMPLES.glob("*.toml"))


def test_there_is_an_example_plan_per_game():
    games = set()
    for p in example_plans():
        doc = tomllib.loads(p.read_text())
        games |= {e.get("game", doc.get("defaults", {}).get("game")) for e in doc["experiment"]}
    assert games == set(REGISTRY)


@pytest.mark.parametrize("path", example_plans(), ids=lambda p: p.stem)
def test_example_plan_validates_and_runs_small(path, tmp_path):
    """Every example plan validates; its first cell per experiment runs with a small game
    count."""
    plan = load_plan(path)
    assert plan.cells and plan.title
    firsts = [c for c in plan.cells if c.index == 0]
    for c in firsts:
        c.games = 4
    small = batch.Plan(plan.path, plan.title, firsts)
    res = run_plan(small, out=tmp_path / "out")
    assert len(res.table) == sum(c.resolved_players for c in firsts)
    assert (tmp_path / "out" / "results.parquet").exists()


# ---------------------------------------------------------------- CLI
@pytest.fixture
def cli():
    runner = CliRunner()
    return lambda *args: runner.invoke(mcsim_cli, [str(a) for a in args])


def one_error_line(result, text):
    assert result.exit_code != 0, result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("Error: ") and text in lines[0], lines[0]
    assert "Traceback" not in result.output


def test_cli_bad_plans_are_one_line(cli, tmp_path, no_simulate):
    bad = write(
        tmp_path, '[[experiment]]\nname="a"\ngame="sacred-hill"\ngames=10\npolicies=["nope"]\n'
    )
    r = cli("batch", bad, "--out", tmp_path / "o")
    one_error_line(r, "experiment 'a' (#1), cell 0")
    assert r.exit_code == 1 and not (tmp_path / "o").exists()
    r = cli("batch", tmp_path / "missing.toml")  # exit 2 like any named file
    one_error_line(r, "missing.toml' does not exist")
    assert r.exit_code == 2
    one_error_line(cli("batch", write(tmp_path, "x = [", "broken.toml")), "not valid TOML")
    r = cli("batch", write(tmp_path, SMALL_PLAN), "--out", tmp_path / "no" / "such")
    one_error_line(r, "does not exist")


def test_cli_dry_run_json_and_table(cli, tmp_path):
    plan = write(tmp_path, SMALL_PLAN)
    r = cli("batch", plan, "--dry-run")
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[-1] == "10 cells, 1,680 games"
    assert (
        "sh-004: sacred-hill, 2 players, tactician|random, transition=box, 200 games, seed 1"
        in r.output
    )
    r = cli("batch", plan, "--json", "-q", "-w", 1)
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert len(data["rows"]) == 21 and set(data["rows"][0]) == set(BATCH_COLUMNS)
    assert [e["experiment"]["id"] for e in data["experiments"]][:2] == ["sh-000", "sh-001"]
    r = cli("batch", plan, "-q", "-w", 1, "--out", tmp_path / "o")
    assert r.exit_code == 0
    assert r.stdout.splitlines()[0].split()[:3] == ["cell", "game", "seat"]
    assert (tmp_path / "o" / "results.csv").exists()
    assert not math.isnan(pd.read_csv(tmp_path / "o" / "results.csv")["win_rate"].iloc[0])
    assert parse_plan({"experiment": [{"game": "sacred-hill", "games": 5}]}).cells[0].id == "e1-000"


def test_game_list_is_an_axis(tmp_path):
    """``game`` may list several games (outermost axis); a value unsuited to one of them is
    rejected naming that game's cell."""
    plan = load_plan(
        write(
            tmp_path,
            '[[experiment]]\nname="g"\ngame=["sacred-hill", "thurn-and-taxis"]\ngames=[5, 6]\n',
        )
    )
    assert [(c.game, c.games, c.resolved_players) for c in plan.cells] == [
        ("sacred-hill", 5, 2),
        ("sacred-hill", 6, 2),
        ("thurn-and-taxis", 5, 3),
        ("thurn-and-taxis", 6, 3),
    ]
    with pytest.raises(PlanError, match=r"cell 1 \(thurn-and-taxis, .*unknown policy 'tactician'"):
        load_plan(
            write(
                tmp_path,
                '[[experiment]]\nname="g"\ngame=["sacred-hill", '
                '"thurn-and-taxis"]\ngames=5\npolicies=["tactician"]\n',
            )
        )


def test_resume_skips_finished_cells_and_gives_the_same_table(tmp_path, monkeypatch):
    """An interrupted batch resumed with ``resume=True`` plays only the missing cells."""
    path = write(tmp_path, SMALL_PLAN)
    out = tmp_path / "out"
    full = run_plan(path, out=out).table
    (out / "experiments" / "sh-003.json").unlink()  # as if stopped during sh-003
    (out / "results.csv").unlink()
    played = []
    real = mcsim.runner.simulate  # every cell's run goes through it (RunOptions.simulate)
    monkeypatch.setattr(
        "mcsim.runner.simulate", lambda *a, **k: played.append(k["seed"]) or real(*a, **k)
    )
    lines = []
    again = run_plan(path, out=out, resume=True, echo=lines.append).table
    assert played == [2]  # sh-003: seed 2
    assert sum("finished earlier, skipped" in ln for ln in lines) == 9
    cols = [c for c in BATCH_COLUMNS if c != "elapsed_seconds"]
    pd.testing.assert_frame_equal(again[cols], full[cols])
    assert (out / "results.csv").exists()
    with pytest.raises(PlanError, match="--resume needs --out"):
        run_plan(path, resume=True)


def test_resume_notes_a_damaged_cell_summary_it_plays_again(tmp_path):
    """``batch --resume`` says on stderr which damaged ``experiments/<id>.json`` it plays again
    (as ``simulate --resume`` does for a damaged chunk; it used to re-play silently); a missing
    cell (not finished yet) is played without a note, and the table is the uninterrupted one."""
    path = write(
        tmp_path, '[[experiment]]\nname="d"\ngame="sacred-hill"\ngames=20\nseeds=[1, 2, 3, 4]\n'
    )
    out = tmp_path / "out"
    runner = CliRunner()
    assert runner.invoke(mcsim_cli, ["batch", str(path), "--out", str(out), "-q"]).exit_code == 0
    full = pd.read_csv(out / "results.csv")
    exp = out / "experiments"
    exp.joinpath("d-000.json").write_text('{"game": "sacred-hill", "seats": [')  # cut short
    exp.joinpath("d-001.json").write_text('{"game": "sacred-hill"}')  # no seats
    exp.joinpath("d-002.json").unlink()  # not played
    r = runner.invoke(mcsim_cli, ["batch", str(path), "--out", str(out), "--resume"])
    assert r.exit_code == 0, r.output
    notes = [ln for ln in r.stderr.splitlines() if ln.startswith("note: ")]
    assert len(notes) == 2, r.stderr
    assert notes[0].startswith(
        f"note: resume: cell d-000 played again ({exp / 'd-000.json'}: "
        "cell summary is not valid JSON"
    )
    assert notes[1] == (
        f"note: resume: cell d-001 played again ({exp / 'd-001.json'}: cell "
        "summary is not a summary object with 'seats')"
    )
    assert "d-003: finished earlier, skipped" in r.stderr
    cols = [c for c in BATCH_COLUMNS if c != "elapsed_seconds"]
    pd.testing.assert_frame_equal(pd.read_csv(out / "results.csv")[cols], full[cols])
    r = runner.invoke(mcsim_cli, ["batch", str(path), "--out", str(out), "--resume", "-q"])
    assert r.exit_code == 0 and "note:" not in r.stderr  # all finished now; -q: no notices
