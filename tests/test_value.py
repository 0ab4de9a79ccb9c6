"""``mcsim value``: restricted play's value table (mcsim/value.py), ``simulate --restrict``,
the restrictions in ``mcsim games`` and ``report --value DIR``.

Every value is recomputed here from ``mcsim.simulate`` runs of the same lineups on the same
deals (the method: mcsim/value.py's module docstring, docs/usage.md "Restricted play")."""

import json
import shutil

import numpy as np
import pandas as pd
import pytest
import scipy.stats

import mcsim
from mcsim import value as V
from tests.conftest import one_error_line

SH_OPTIONS = ["battle-next-to-enemy", "build-into-siege"]
SH = dict(options=SH_OPTIONS, policy="greedy", games=40, seed=7)


def _strip(d: dict) -> dict:
    """A result's JSON without what depends on the machine (times) or on the chunking of the
    calibration (workers do not change the games)."""
    d = dict(d)
    for k in ("elapsed_seconds", "cpu_seconds", "baseline", "calibration"):
        d.pop(k)
    return d


@pytest.fixture(scope="module")
def sh_value():
    return V.restricted_play("sacred-hill", workers=1, **SH)


def test_sacred_hill_value_is_the_seat_rotated_share_of_simulate_runs(sh_value):
    base = mcsim.simulate("sacred-hill", games=40, seed=7, policies=["greedy"]).games
    rows = sh_value.table.set_index("option")
    assert list(rows.index) == SH_OPTIONS  # the order of SPEC.restrictions
    for opt in SH_OPTIONS:
        a = mcsim.simulate(
            "sacred-hill", games=40, seed=7, policies=[f"greedy:forbid={opt}", "greedy"]
        ).games
        b = mcsim.simulate(
            "sacred-hill", games=40, seed=7, policies=["greedy", f"greedy:forbid={opt}"]
        ).games
        share = (a["win_share_0"].to_numpy() + b["win_share_1"].to_numpy()) / 2 - 0.5
        sd = share.std(ddof=1)
        half = scipy.stats.t.ppf(0.975, 39) * sd / np.sqrt(40)  # Student-t 95%, 40 deals
        r = rows.loc[opt]
        assert r["value"] == pytest.approx(share.mean(), abs=1e-12)
        assert (r["low"], r["high"]) == pytest.approx(
            (share.mean() - half, share.mean() + half), abs=1e-12
        )
        pts = (a["score_0"] - base["score_0"] + b["score_1"] - base["score_1"]).to_numpy() / 2
        assert r["points_diff"] == pytest.approx(pts.mean(), abs=1e-12)
        came = np.concatenate(
            [
                a["forbid_avoided_0"] + a["forbid_forced_0"],
                b["forbid_avoided_1"] + b["forbid_forced_1"],
            ]
        )
        assert r["never_came_up"] == (came == 0).mean()
        forced = np.concatenate([a["forbid_forced_0"], b["forbid_forced_1"]])
        assert r["forced_per_game"] == pytest.approx(forced.mean(), abs=1e-12)
        assert (r["deals"], r["games"]) == (40, 80)
        assert r["significant"] == (r["low"] > 0 or r["high"] < 0)
        seat1 = sh_value.seats.query("option == @opt and seat == 1").iloc[0]
        assert seat1["restricted"] == b["win_share_1"].mean()
        assert seat1["baseline"] == base["win_share_1"].mean()
    # the numbers on this seed (greedy, 40 deals): forbidding Battle builds next to an enemy
    # fort costs a quarter of the games; greedy never builds into a siege, so forbidding it
    # changes no game and the value is 0 exactly
    assert rows.loc["battle-next-to-enemy", "value"] == -0.2875
    assert bool(rows.loc["battle-next-to-enemy", "significant"])
    assert rows.loc["build-into-siege", ["value", "low", "high"]].tolist() == [0.0, 0.0, 0.0]
    assert sh_value.meta["games_played"] == 5 * 40


def test_sacred_hill_value_is_the_same_on_one_and_two_workers(sh_value):
    two = V.restricted_play("sacred-hill", workers=2, **SH)
    assert _strip(two.to_json_dict()) == _strip(sh_value.to_json_dict())


@pytest.mark.parametrize("backend", ["local", "dask"])
def test_sacred_hill_precision_stops_each_row_on_whole_chunks_whatever_the_workers(backend):
    if backend == "dask":
        pytest.importorskip("distributed")
    kw = dict(options=SH_OPTIONS, policy="greedy", precision=0.1, max_games=400, seed=3)
    a = V.restricted_play("sacred-hill", workers=1, **kw)
    b = V.restricted_play("sacred-hill", workers=2, backend=backend, **kw)
    assert _strip(a.to_json_dict()) == _strip(b.to_json_dict())
    t = a.table.set_index("option")
    # the empty interval of a row that changed no game stops only at 3 w / n <= H (module
    # docstring): n = 32 deals, the smallest stop, as 3 * 0.5 / 32 < 0.1
    assert t["deals"].tolist() == [46, 32]
    assert ((t["high"] - t["low"]) / 2 <= 0.1).all()
    assert not t["cap_reached"].any()
    assert len(a.results["baseline"].games) == 46  # as many deals as the longest row


def test_sacred_hill_value_cli_summary_json_out_resume_force(run, tmp_path):
    out = tmp_path / "val"
    args = ["value", "sacred-hill", "-p", "greedy", "-n", 40, "-s", 7, "-w", 1]
    args += ["--options", ",".join(SH_OPTIONS)]
    r = run(*args, "-q")
    assert r.exit_code == 0, r.output
    assert "Sacred Hill restricted play: policy greedy, seed 7, 2 players" in r.output
    lines = r.output.splitlines()
    assert "battle:" in lines and "sacrifice:" in lines
    assert any(x.startswith("* battle-next-to-enemy") and "-0.2875" in x for x in lines)
    assert any(x.startswith("  build-into-siege") for x in lines)
    assert (
        "1 of 2 options significant (about 0.1 by chance alone at 95%, had no option any "
        "worth); 200 games played; CPU" in r.output
    )
    r = run(*args, "-q", "--json", "--out", out)
    assert r.exit_code == 0, r.output
    first = json.loads(r.output)
    assert [x["option"] for x in first["rows"]] == SH_OPTIONS
    assert sorted(p.name for p in out.iterdir()) == [
        "baseline",
        "option-0-battle-next-to-enemy-seat0",
        "option-0-battle-next-to-enemy-seat1",
        "option-1-build-into-siege-seat0",
        "option-1-build-into-siege-seat1",
        "restricted_play_value.png",
        "seats.parquet",
        "value.csv",
        "value.json",
        "value.parquet",
    ]
    assert len(pd.read_parquet(out / "option-0-battle-next-to-enemy-seat1")) == 40
    pd.testing.assert_frame_equal(
        pd.read_parquet(out / "value.parquet"), pd.read_csv(out / "value.csv"), check_dtype=False
    )
    # an interrupted run: a lineup's chunk and the run's own files are missing
    next((out / "option-1-build-into-siege-seat0").glob("part-*.parquet")).unlink()
    (out / "value.json").unlink()
    r = run(*args, "-q", "--json", "--out", out, "--resume")
    assert r.exit_code == 0, r.output
    assert _strip(json.loads(r.output)) == _strip(first)
    # interrupted after every lineup and before the baseline (played after them) had begun
    shutil.rmtree(out / "baseline")
    (out / "value.json").unlink()
    r = run(*args, "-q", "--json", "--out", out, "--resume")
    assert r.exit_code == 0, r.output
    assert _strip(json.loads(r.output)) == _strip(first)
    one_error_line(
        run(*args, "--out", out, "-q"),
        2,
        f"--out {out} holds an earlier restricted-play run; use --resume",
    )
    r = run(*args, "-q", "--json", "--out", out, "--force")
    assert r.exit_code == 0, r.output
    assert _strip(json.loads(r.output)) == _strip(first)
    assert not list(out.glob(".mcsim-*"))


@pytest.mark.parametrize(
    "args,text",
    [
        (["--options", "no-such"], "--options 'no-such': sacred-hill has no such option"),
        (["--options", "build-into-siege,build-into-siege"], "is given twice"),
        (["--options", ","], "an empty option name"),
        (["--precision", 0], "--precision must be a positive half-width"),
        (["--precision", 0.05, "--max-games", -1], "--max-games must be a positive"),
        (["--precision", 0.05, "--max-games", 10**13], "--max-games must be at most"),
        (["--max-games", 5], "--max-games goes with --precision H"),
        (["-p", "route"], "unknown policy 'route' for sacred-hill"),
        (["-p", "greedy:forbid=build-into-siege"], "forbids options itself"),
        (["-p", "greedy", "-p", "random"], "give one policy (-p)"),
        (["--players", 3], "sacred-hill is for 2 players, not 3"),
        (["--resume"], "--resume needs --out DIR"),
        (["-n", 0], "must be a positive whole number, not 0"),
    ],
)
def test_sacred_hill_bad_value_input_is_one_line_before_any_game(run, monkeypatch, args, text):
    from mcsim.games import sacred_hill

    def no_games(*a, **k):
        raise AssertionError("a game was played")

    monkeypatch.setattr(sacred_hill, "play_chunk", no_games)
    one_error_line(run("value", "sacred-hill", *args), 2, text)


def test_value_of_a_game_without_restrictions_is_refused(run, monkeypatch):
    import dataclasses

    from mcsim.games import sacred_hill

    monkeypatch.setattr(sacred_hill, "SPEC", dataclasses.replace(sacred_hill.SPEC, restrictions=()))
    one_error_line(
        run("value", "sacred-hill"), 2, "sacred-hill has no options restricted play can forbid"
    )


def test_games_lists_sacred_hill_restrictions(run):
    r = run("games")
    assert r.exit_code == 0
    assert (
        "  forbid   build-into-siege  (sacrifice): a build on an empty hill whose every "
        "neighbour is an enemy fort (the opponent must capture it on its next Battle turn)"
        in r.output
    )
    data = json.loads(run("games", "--json").output)
    sh = next(g for g in data if g["id"] == "sacred-hill")
    assert [x["name"] for x in sh["restrictions"]] == [
        "manoeuvre-next-to-enemy",
        "manoeuvre-on-edge",
        "battle-next-to-enemy",
        "fill-safe-connection",
        "build-into-siege",
    ]
    assert sh["restrictions"][0]["group"] == "manoeuvre"


def test_sacred_hill_simulate_restrict_adds_forbid_to_that_seat(run):
    args = ["simulate", "sacred-hill", "-n", 30, "-s", 2, "-q", "--json", "-w", 1]
    a = json.loads(run(*args, "-p", "greedy", "--restrict", "1=battle-next-to-enemy").output)
    b = json.loads(run(*args, "-p", "greedy", "-p", "greedy:forbid=battle-next-to-enemy").output)
    assert a["policies"] == ["greedy", "greedy:forbid=battle-next-to-enemy"]
    for d in (a, b):
        for k in ("elapsed_seconds", "games_per_second", "compile_seconds"):
            d.pop(k)
    assert a == b
    one_error_line(
        run(*args, "--restrict", "2=battle-next-to-enemy"),
        2,
        "seat 2 is out of range (the game has seats 0..1)",
    )
    one_error_line(run(*args, "--restrict", "x"), 2, "must be written SEAT=OPTION")
    one_error_line(
        run(*args, "--restrict", "0=no-such"), 2, "forbid='no-such': sacred-hill has no such"
    )


def test_sacred_hill_report_value_section_comes_first(run, tmp_path, sh_value):
    val = tmp_path / "val"
    val.mkdir()
    V.write_value_folder(sh_value, val)
    out = tmp_path / "rep"
    r = run("report", "sacred-hill", "-n", 40, "-s", 1, "--value", val, "--out", out, "-q")
    assert r.exit_code == 0, r.output
    md = (out / "report.md").read_text()
    assert md.index("## Restricted play: what each option is worth") < md.index("## Headline")
    assert "| battle | battle-next-to-enemy | -0.2875 [-0.3825, -0.1925] | " in md, md.split(
        "## Headline"
    )[0]
    assert "![Restricted play: what each option is worth](restricted_play_value.png)" in md
    assert (out / "restricted_play_value.png").read_bytes().startswith(b"\x89PNG")
    page = (out / "report.html").read_text()
    assert page.index("<h2>Restricted play") < page.index("<h2>Headline")
    summary = json.loads((out / "summary.json").read_text())
    assert [x["option"] for x in summary["report"]["restricted_play"]["rows"]] == SH_OPTIONS
    one_error_line(
        run("report", "sacred-hill", "--value", tmp_path / "none", "--out", tmp_path / "r2"),
        2,
        "no such folder",
    )
    one_error_line(
        run("report", "sacred-hill", "--variant", "zone=chebyshev8", "--value", val,
            "--out", tmp_path / "r3"),
        2,
        "give the report the same --variant",
    )  # fmt: skip
    assert not (tmp_path / "r2").exists() and not (tmp_path / "r3").exists()


def test_report_labels_the_observational_tables():
    from mcsim import report

    assert report._details_title("action_cards") == (
        "action_cards: observational (who took it, not what it is worth)"
    )
    assert report._details_title("officials").endswith(report.OBSERVATIONAL)
    assert report._details_title("gifts").endswith(report.OBSERVATIONAL)
    assert report._details_title("points_by_source") == "points_by_source"


def test_value_figure_is_a_forest_plot_of_every_row(sh_value):
    fig = V.value_figure(sh_value)
    assert fig.file == "restricted_play_value.png" and fig.png.startswith(b"\x89PNG")
    assert V.value_figure(sh_value.to_json_dict()).png == fig.png  # the same from value.json


def test_default_policy_is_the_ladders_heuristic_rung():
    assert [V.default_policy(g) for g in ("sacred-hill", "thurn-and-taxis", "el-grande")] == [
        "tactician",
        "route",
        "heuristic",
    ]


def _rotated_rows(game, opts, policy, games, seed, players):
    """Per option, its lineups (seat s restricted in lineup s) played by ``mcsim.simulate``
    and the row's value, points difference and forced decisions recomputed from them."""
    base = mcsim.simulate(game, games=games, seed=seed, policies=[policy] * players).games
    out = {}
    for opt in opts:
        frames = []
        for s in range(players):
            lineup = [policy] * players
            lineup[s] = f"{policy}:forbid={opt}"
            frames.append(mcsim.simulate(game, games=games, seed=seed, policies=lineup).games)
        share = np.mean([f[f"win_share_{s}"].to_numpy() for s, f in enumerate(frames)], 0)
        pts = np.mean(
            [(f[f"score_{s}"] - base[f"score_{s}"]).to_numpy() for s, f in enumerate(frames)], 0
        )
        forced = np.concatenate([f[f"forbid_forced_{s}"] for s, f in enumerate(frames)])
        came = np.concatenate(
            [f[f"forbid_avoided_{s}"] + f[f"forbid_forced_{s}"] for s, f in enumerate(frames)]
        )
        out[opt] = {
            "value": share.mean() - 1 / players,
            "points_diff": pts.mean(),
            "forced_per_game": forced.mean(),
            "never_came_up": (came == 0).mean(),
        }
    return out


def test_el_grande_value_of_the_castillo_and_of_a_combined_power_row_for_four_seats():
    opts = ["castillo", "power-13+power-12"]
    res = V.restricted_play("el-grande", opts, "heuristic", games=12, seed=4, workers=1)
    rows = res.table.set_index("option")
    assert list(rows.index) == opts  # the Castillo's group comes before the power cards'
    assert rows["group"].tolist() == ["Castillo", "power card"]
    for opt, want in _rotated_rows("el-grande", opts, "heuristic", 12, 4, 4).items():
        r = rows.loc[opt]
        for k, v in want.items():
            assert r[k] == pytest.approx(v, abs=1e-12), (opt, k)
        assert (r["deals"], r["games"]) == (12, 48)
    assert res.meta["equal"] == 0.25 and res.meta["games_played"] == 2 * 48 + 12
    assert len(res.seats) == 8
    # on this seed: a heuristic player who never puts a caballero into the Castillo wins
    # about 4% of the games instead of a quarter; without the two highest power cards it
    # loses nothing measurable in 12 deals
    assert rows["value"].round(4).tolist() == [-0.2083, 0.0208]
    assert rows["significant"].tolist() == [True, False]


def test_thurn_and_taxis_value_of_an_official_and_of_a_combined_row_for_three_seats():
    opts = ["postmaster", "postmaster+administrator"]
    res = V.restricted_play("thurn-and-taxis", opts, "route", games=30, seed=4, workers=1)
    rows = res.table.set_index("option")
    assert list(rows.index) == opts and set(rows["group"]) == {"official"}
    for opt, want in _rotated_rows("thurn-and-taxis", opts, "route", 30, 4, 3).items():
        r = rows.loc[opt]
        for k, v in want.items():
            assert r[k] == pytest.approx(v, abs=1e-12), (opt, k)
        assert (r["deals"], r["games"]) == (30, 90)
    assert res.meta["equal"] == 1 / 3 and res.meta["games_played"] == 2 * 90 + 30
    assert len(res.seats) == 6
    # on this seed: a route player without the Postmaster (a second draw) wins about 9% of the
    # games instead of a third; without the Administrator as well, about 4%
    assert rows["value"].round(4).tolist() == [-0.2444, -0.2889]
    assert rows["significant"].all()


def test_carcassonne_default_options_leave_out_the_gifts_without_the_gifts():
    res = V.restricted_play("carcassonne", None, "heuristic", games=4, seed=1, workers=1)
    assert res.table["option"].tolist() == ["farmers", "monasteries"]
    assert [x["option"] for x in res.meta["left_out"]] == [
        "synod", "road-sweeper", "cash-out", "change-position", "take-2", "gifts",
    ]  # fmt: skip
    assert res.meta["notices"][-1].startswith(
        "left out 6 of the default options the run's rules refuse (synod, road-sweeper, "
    )
    with pytest.raises(mcsim.errors.ConfigError, match="forbid=synod needs"):
        V.restricted_play("carcassonne", ["synod"], "heuristic", games=4)  # asked: refused
