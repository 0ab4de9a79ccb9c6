"""``mcsim ladder``: self-play per rung on common deals, the seat-rotated skill curve and the
top-two convergence verdicts (mcsim/ladder.py)."""

import json

import numpy as np
import pandas as pd
import pytest

import mcsim
from mcsim import ladder as L
from tests.conftest import one_error_line
from tests.test_runner import strip_timing

# the ladder tests play mcts1 (plain UCT, the Sacred Hill mcts of 2026-12-02): their exact
# figures are the ladder's, not the search's
RUNGS = ["random", "mcts1:iterations=20"]


@pytest.mark.parametrize(
    "game,rungs",
    [
        (
            "sacred-hill",
            ["random", "tactician", "mcts:iterations=150", "mcts", "mcts:iterations=2400"],
        ),
        (
            "don-quixote",
            ["random", "rollout", "mcts:iterations=625", "mcts", "mcts:iterations=10000"],
        ),
        ("el-grande", ["random", "heuristic", "mcts:iterations=5", "mcts", "mcts:iterations=80"]),
        (
            "carcassonne",
            ["random", "heuristic", "mcts:iterations=75", "mcts", "mcts:iterations=1200"],
        ),
        (
            "thurn-and-taxis",
            ["random", "route", "mcts:iterations=25", "mcts", "mcts:iterations=400"],
        ),
    ],
)
def test_default_rungs_read_the_mcts_budget_from_the_policy_spec(game, rungs):
    assert L.default_rungs(game) == rungs


@pytest.fixture(scope="module")
def sh_ladder():
    return L.ladder("sacred-hill", RUNGS, games=40, seed=7, workers=1)


def test_sacred_hill_rung_self_play_is_simulate_on_the_same_deals(sh_ladder):
    for rung, res in zip(RUNGS, sh_ladder["results"]):
        s = mcsim.simulate("sacred-hill", games=40, seed=7, policies=[rung])
        pd.testing.assert_frame_equal(res.games, s.games)
        assert strip_timing(res.summary) == {
            **strip_timing(s.summary),
            "precision": res.summary["precision"],
        }


def test_sacred_hill_curve_point_is_the_seat_rotated_share_on_common_deals(sh_ladder):
    a = mcsim.simulate("sacred-hill", games=40, seed=7, policies=["mcts1:iterations=20", "random"])
    b = mcsim.simulate("sacred-hill", games=40, seed=7, policies=["random", "mcts1:iterations=20"])
    share = (a.games["win_share_0"].to_numpy() + b.games["win_share_1"].to_numpy()) / 2
    (c,) = sh_ladder["curve"]
    assert (c["rung"], c["against"], c["statistic"], c["games"]) == (
        "mcts1:iterations=20",
        "random",
        "win share",
        40,
    )
    assert c["estimate"] == pytest.approx(share.mean(), abs=1e-12)
    assert c["estimate"] == 0.875


def test_sacred_hill_verdicts_pair_the_top_two_rungs(sh_ladder):
    v = {x["statistic"]: x for x in sh_ladder["verdicts"]}
    top, low = (r.games for r in sh_ladder["results"][::-1])
    d = top["length_plies"].to_numpy(float) - low["length_plies"].to_numpy(float)
    assert v["game length (plies)"]["difference"] == pytest.approx(d.mean(), abs=1e-12)
    assert list(v) == [
        "win rate seat 0",
        "win rate seat 1",
        "mean score seat 0",
        "mean score seat 1",
        "seat effect (seat 0 - seat 1 win rate)",
        "game length (plies)",
        "decided by kingdoms (share)",
        "captures per game",
    ]
    for x in v.values():
        inside = x["low"] <= 0 <= x["high"]
        assert x["verdict"] == (L.STABLE_AT_GAMES if inside else L.MOVING)  # no precision
    assert [x["stable"] for x in v.values()] == [True, True, True, True, True, False, True, True]


def test_sacred_hill_ladder_cli_out_folder_and_resume(run, tmp_path):
    out = tmp_path / "lad"
    args = ["ladder", "sacred-hill", "-p", RUNGS[0], "-p", RUNGS[1], "-n", 40, "-s", 7, "-w", 2]
    r = run(*args, "--out", out, "-q")
    assert r.exit_code == 0, r.output
    assert "convergence (mcts1:iterations=20 minus random, paired on common deals):" in r.output
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "curve-1-seat0",
        "curve-1-seat1",
        "ladder.json",
        "ladder_captures_per_game.png",
        "ladder_decided_by_kingdoms_share.png",
        "ladder_game_length_plies.png",
        "ladder_mean_score_seat_0.png",
        "ladder_mean_score_seat_1.png",
        "ladder_seat_effect_seat_0_seat_1_win_rate.png",
        "ladder_skill_curve.png",
        "ladder_win_rate_seat_0.png",
        "ladder_win_rate_seat_1.png",
        "rung-0-random",
        "rung-1-mcts1_iterations=20",
    ]
    assert len(pd.read_parquet(out / "rung-1-mcts1_iterations=20")) == 40
    first = json.loads((out / "ladder.json").read_text())
    # an interrupted ladder: a run's last chunk and the ladder's own files are missing
    for f in (out / "rung-1-mcts1_iterations=20").glob("part-*.parquet"):
        f.unlink()
        break
    (out / "ladder.json").unlink()
    r = run(*args, "--out", out, "--resume", "-q", "--json")
    assert r.exit_code == 0, r.output
    again = json.loads(r.output)
    for d in (first, again):
        d.pop("elapsed_seconds")
        for x in d["rungs"]:
            for k in ("elapsed_seconds", "games_per_second", "compile_seconds"):
                x["summary"].pop(k)
    assert again == first
    one_error_line(
        run(*args, "--out", out, "-q"), 2, f"--out {out} holds an earlier ladder; use --resume"
    )
    # interrupted after the last game, before the ladder's own files: every chunk is saved
    (out / "ladder.json").unlink()
    r = run(*args, "--out", out, "--resume", "-q", "--json")
    assert r.exit_code == 0, r.output
    again = json.loads(r.output)
    again.pop("elapsed_seconds")
    for x in again["rungs"]:
        for k in ("elapsed_seconds", "games_per_second", "compile_seconds"):
            x["summary"].pop(k)
    assert again == first


@pytest.mark.parametrize("backend", ["local", "dask"])
def test_sacred_hill_ladder_precision_same_on_one_and_two_workers(backend):
    if backend == "dask":
        pytest.importorskip("distributed")
    kw = dict(precision=0.12, max_games=400, seed=3)
    a = L.to_json_dict(L.ladder("sacred-hill", ["random", "greedy"], workers=1, **kw))
    b = L.to_json_dict(
        L.ladder("sacred-hill", ["random", "greedy"], workers=2, backend=backend, **kw)
    )
    for d in (a, b):
        d.pop("elapsed_seconds"), d.pop("calibration")
        for x in d["rungs"]:
            for k in ("elapsed_seconds", "games_per_second", "compile_seconds"):
                x["summary"].pop(k)
    assert a == b
    assert [r["games"] for r in a["rungs"]] + [c["games"] for c in a["curve"]] == [108, 104, 32]
    assert all(r["stop"]["widest_half_width"] <= 0.12 for r in a["rungs"])


def test_don_quixote_solo_ladder_curve_is_the_paired_point_gain():
    lad = L.ladder("don-quixote", ["random", "greedy"], games=20, seed=1)
    a, b = (r.games["score_0"].to_numpy(float) for r in lad["results"])
    (c,) = lad["curve"]
    assert (c["statistic"], c["equal"]) == ("paired point gain", None)
    assert c["estimate"] == pytest.approx((b - a).mean(), abs=1e-12)
    assert [v["statistic"] for v in lad["verdicts"]] == ["mean score seat 0", "game length (plies)"]
    assert "win rate seat 0" not in lad["rungs"][0]["statistics"]


@pytest.mark.parametrize(
    "args,code,text",
    [
        (["--rungs", ""], 2, "--rungs: is empty"),
        (["--rungs", "random"], 2, "a ladder needs at least two rungs"),
        (["-p", "random", "-p", "random"], 2, "rung 'random' is given twice"),
        (["-p", "mcts", "-p", "mcts:c=0"], 2, "rungs mcts and mcts:c=0 are the same policy"),
        (["-p", "random", "-p", "route"], 2, "unknown policy 'route'"),
        (["-p", "random", "-p", "mcts:iterations=0"], 2, "iterations"),
        (["--precision", 0], 2, "--precision must be a positive half-width"),
        (["--precision", 0.05, "--max-games", -1], 2, "--max-games must be a positive"),
        (["--precision", 0.05, "--max-games", 10**13], 2, "--max-games must be at most"),
        (["--resume"], 2, "--resume needs --out DIR"),
        (["-n", 0], 2, "must be a positive whole number, not 0"),
        (["-s", -1], 2, "--seed must be a whole number in [0, 2**64)"),
        (["-w", 0], 2, "--workers must be a positive whole number"),
        (["--players", 3], 2, "sacred-hill is for 2 players, not 3"),
    ],
)
def test_sacred_hill_bad_ladder_input_is_one_line_before_any_game(
    run, monkeypatch, args, code, text
):
    from mcsim.games import sacred_hill

    def no_games(*a, **k):
        raise AssertionError("a game was played")

    monkeypatch.setattr(sacred_hill, "play_chunk", no_games)
    one_error_line(run("ladder", "sacred-hill", *args), code, text)


def test_ladder_figures_have_intervals_per_rung(sh_ladder):
    figs = L.ladder_figures(sh_ladder)
    assert [f.slug for f in figs][-1] == "ladder_skill_curve"
    assert all(f.png.startswith(b"\x89PNG") for f in figs)
    assert np.isfinite(
        [r["statistics"]["win rate seat 0"]["low"] for r in sh_ladder["rungs"]]
    ).all()


def test_sacred_hill_report_ladder_section_names_the_players_and_their_rung(run, tmp_path):
    out = tmp_path / "rep"
    r = run(
        "report", "sacred-hill", "-n", 60, "-p", "mcts1:iterations=20", "--ladder",
        "--ladder-rungs", "random mcts1:iterations=20", "--ladder-games", 40, "-s", 7,
        "--out", out, "-q", "-w", 1,
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    md = (out / "report.md").read_text()
    assert (
        "- **skill ladder**: the report's players (mcts1:iterations=20 in every seat) are rung 1 "
        "of 2 (random, mcts1:iterations=20); its seat win rates were stable between it and "
        "random (40 games per run)" in md
    )
    assert "### convergence (mcts1:iterations=20 minus random, paired on common deals)" in md
    assert "| game length (plies) | -0.7000 [-1.3802, -0.0198] | 40 | still moving" in md
    assert (out / "ladder_skill_curve.png").exists()
    page = (out / "report.html").read_text()
    assert "<h2>Skill ladder</h2>" in page and 'id="fig-ladder_skill_curve"' in page
    summary = json.loads((out / "summary.json").read_text())
    assert summary["report"]["ladder"]["report_rung"] == 1


def test_sacred_hill_report_details_are_tables_not_preformatted_text(run, tmp_path):
    out = tmp_path / "rep"
    r = run("report", "sacred-hill", "-n", 100, "-s", 1, "--out", out, "-q", "-w", 1)
    assert r.exit_code == 0, r.output
    page = (out / "report.html").read_text()
    assert "<pre>" not in page
    assert "<h2>Sacred Hill details</h2><h3>figures</h3>" in page.replace("\n", "")
    md = (out / "report.md").read_text()
    assert "| match_draw_rate |" in md and "```text" not in md


def test_bad_report_ladder_options_are_one_line_errors(run, tmp_path):
    one_error_line(
        run("report", "sacred-hill", "--ladder-games", 5, "--out", tmp_path / "a"),
        2,
        "--ladder-rungs and --ladder-games go with --ladder",
    )
    one_error_line(
        run(
            "report", "sacred-hill", "--ladder", "--ladder-rungs", "random", "--out", tmp_path / "b"
        ),
        2,
        "a ladder needs at least two rungs",
    )
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_sacred_hill_ladder_of_a_rule_variant_plays_that_variant():
    lad = L.ladder(
        "sacred-hill", ["random", "greedy"], games=30, seed=2, variant={"zone": "chebyshev8"}
    )
    s = mcsim.simulate(
        "sacred-hill", games=30, seed=2, policies=["greedy"], variant={"zone": "chebyshev8"}
    )
    assert lad["variant"] == {"transition": "box", "zone": "chebyshev8"}
    pd.testing.assert_frame_equal(lad["results"][1].games, s.games)


def test_verdict_says_when_the_cap_bound_before_the_precision():
    # 40 games cannot bring a win rate to ±0.03 (that takes ~1,000), so --max-games binds for
    # both top rungs: an interval that holds 0 is then wider than asked and shows no stability
    lad = L.ladder("sacred-hill", ["random", "greedy"], precision=0.03, max_games=40, seed=3,
                   workers=1)  # fmt: skip
    assert [r["stop"]["cap_reached"] for r in lad["rungs"]] == [True, True]
    # every top-two interval here holds 0 (win rate seat 0: [-0.127, +0.327])
    assert [v["stable"] for v in lad["verdicts"]] == [True] * 8
    assert {v["verdict"] for v in lad["verdicts"]} == {L.STABLE_AT_CAP}
    text = L.format_ladder(lad)
    assert "--max-games bound before this precision" in text


# ---------------------------------------------------------------- report --ladder-from
SH_PAIR = ["random", "greedy"]


@pytest.fixture(scope="module")
def sh_ladder_dir(tmp_path_factory):
    """A finished two-rung Sacred Hill ladder folder (run datasets, ladder.json, figures)."""
    out = tmp_path_factory.mktemp("lad") / "lad"
    lad = L.ladder("sacred-hill", SH_PAIR, games=40, seed=7, out_dir=out, workers=1)
    L.write_ladder_folder(lad, out)
    return out


def _section(md: str) -> str:
    return md[md.index("## Skill ladder") : md.index("## Figures")]


def _fact(md: str) -> str:
    return next(ln for ln in md.splitlines() if ln.startswith("- **skill ladder**"))


def test_sacred_hill_report_ladder_from_is_the_played_ladders_section(run, tmp_path, sh_ladder_dir):
    rep = ["report", "sacred-hill", "-p", "greedy", "-n", 40, "-w", 1]
    r = run(*rep, "--ladder-from", sh_ladder_dir, "--out", tmp_path / "a", "-q")
    assert r.exit_code == 0, r.output
    played = run(*rep, "--ladder", "--ladder-rungs", " ".join(SH_PAIR), "--ladder-games", 40,
                 "-s", 7, "--out", tmp_path / "b", "-q")  # fmt: skip
    assert played.exit_code == 0, played.output
    # a published ladder: ladder.json alone
    pub = tmp_path / "pub"
    pub.mkdir()
    (pub / "ladder.json").write_bytes((sh_ladder_dir / "ladder.json").read_bytes())
    r2 = run(*rep, "--ladder-from", pub, "--out", tmp_path / "c", "-q")
    assert r2.exit_code == 0, r2.output
    md = {k: (tmp_path / k / "report.md").read_text() for k in "abc"}
    assert _section(md["a"]) == _section(md["b"]) == _section(md["c"])
    assert (
        _fact(md["a"])
        == _fact(md["b"])
        == _fact(md["c"])
        == (
            "- **skill ladder**: the report's players (greedy in every seat) are rung 1 of 2 "
            "(random, greedy); its seat win rates were stable between it and random "
            "(40 games per run)"
        )
    )
    sec = _section(md["a"])
    # estimate and bounds with the same digits, as `mcsim ladder` prints them
    assert "| 1 | greedy | 40 | 0.5750 [0.4220, 0.7149] | 0.4250 [0.2851, 0.5780] | " in sec
    assert "| greedy | random | win share | 0.713 [0.587, 0.812] | 0.500 | 40 |" in sec
    assert (
        "| game length (plies) | -0.6750 [-1.3162, -0.0338] | 40 | still moving: the "
        "conclusion depends on the players |" in sec
    )
    # the CLI counts every figure the report embeds, the ladder's included
    page = (tmp_path / "a" / "report.html").read_text()
    n = page.count("data:image/png;base64,")
    assert n == 15 and f"({n} figures)" in r.output
    # the headline's seat effect is the ladder's: seat 0 - seat 1
    assert "- Seat effect, seat 0 - seat 1: " in md["a"]
    blocks = [
        json.loads((tmp_path / k / "summary.json").read_text())["report"]["ladder"] for k in "abc"
    ]
    assert blocks[0]["from"] == str(sh_ladder_dir) and blocks[2]["from"] == str(pub)
    assert "from" not in blocks[1]
    for b in blocks:
        b.pop("from", None)
        b.pop("elapsed_seconds")
        b.pop("calibration")
        for x in b["rungs"]:
            for k in ("elapsed_seconds", "games_per_second", "compile_seconds"):
                x["summary"].pop(k)
    assert blocks[0] == blocks[1] == blocks[2]
    assert blocks[0]["report_rung"] == 1
    assert blocks[0]["report_rung_verdict"]["against"] == "random"


def test_report_ladder_from_a_middle_rung_reads_the_run_datasets(run, tmp_path):
    # the report's rung (random) is not one of the top two: its verdict against greedy needs
    # both rungs' games, read from the folder's run datasets
    out = tmp_path / "lad3"
    lad = L.ladder("sacred-hill", ["random", "greedy", "tactician"], games=40, seed=3,
                   out_dir=out, workers=1)  # fmt: skip
    L.write_ladder_folder(lad, out)
    want = [
        v
        for v in L.convergence("sacred-hill", lad["results"][0].games, lad["results"][1].games, 2)
        if v["statistic"].startswith("win rate")
    ]
    rep = ["report", "sacred-hill", "-p", "random", "-n", 40, "-w", 1, "-q"]
    r = run(*rep, "--ladder-from", out, "--out", tmp_path / "a")
    assert r.exit_code == 0, r.output
    got = json.loads((tmp_path / "a" / "summary.json").read_text())["report"]["ladder"]
    assert got["report_rung"] == 0
    assert got["report_rung_verdict"] == json.loads(json.dumps(
        {"against": "greedy", "verdicts": want}))  # fmt: skip
    md = (tmp_path / "a" / "report.md").read_text()
    assert "are rung 0 of 3 (random, greedy, tactician); its seat win rates " in _fact(md)
    # without the datasets (ladder.json alone) the header says what the verdict needs
    pub = tmp_path / "pub"
    pub.mkdir()
    (pub / "ladder.json").write_bytes((out / "ladder.json").read_bytes())
    r = run(*rep, "--ladder-from", pub, "--out", tmp_path / "b")
    assert r.exit_code == 0, r.output
    md = (tmp_path / "b" / "report.md").read_text()
    assert _fact(md) == (
        "- **skill ladder**: the report's players (random in every seat) are rung 0 of 3 "
        "(random, greedy, tactician); the verdict of its seat win rates against greedy needs "
        f"the ladder's run datasets (rung-0-*/, rung-1-*/), which {pub} does not hold; top two "
        f"rungs: {report_words(lad)}"
    )
    got = json.loads((tmp_path / "b" / "summary.json").read_text())["report"]["ladder"]
    assert got["report_rung"] == 0 and got["report_rung_verdict"] is None


def report_words(lad):
    from mcsim.report import _stable_words

    return _stable_words(lad["verdicts"])


def _edited(src, dst, **change):
    dst.mkdir()
    d = json.loads((src / "ladder.json").read_text())
    d.update(change)
    (dst / "ladder.json").write_text(json.dumps(d))
    return dst


def test_report_ladder_from_refusals_are_one_line_before_any_game(
    run, monkeypatch, tmp_path, sh_ladder_dir
):
    from mcsim.games import sacred_hill

    def no_games(*a, **k):
        raise AssertionError("a game was played")

    monkeypatch.setattr(sacred_hill, "play_chunk", no_games)
    empty = tmp_path / "empty"
    empty.mkdir()
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "ladder.json").write_text("{")
    other = tmp_path / "other"
    other.mkdir()
    (other / "ladder.json").write_text('{"game": "sacred-hill"}')
    cases = [
        (["--ladder"], sh_ladder_dir, 2, "give it without --ladder, --ladder-rungs and --ladder"),
        (["--ladder-games", 40], sh_ladder_dir, 2, "give it without --ladder"),
        (["--ladder-rungs", "random greedy"], sh_ladder_dir, 2, "give it without --ladder"),
        ([], tmp_path / "none", 2, "no such folder (give the folder of `mcsim ladder GAME"),
        (
            [],
            empty,
            2,
            "no ladder.json there (an unfinished ladder: finish it with `mcsim "
            "ladder GAME ... --out DIR --resume`",
        ),  # fmt: skip
        ([], bad, 1, "skill ladder is not valid JSON"),
        ([], other, 1, "ladder.json: not a skill ladder (mcsim ladder)"),
        (
            [],
            _edited(sh_ladder_dir, tmp_path / "dq", game="don-quixote"),
            2,
            "is a ladder of don-quixote, not sacred-hill",
        ),  # fmt: skip
        (
            [],
            _edited(sh_ladder_dir, tmp_path / "p3", players=3),
            2,
            "was played with 3 players, the report with 2; give the same --players",
        ),  # fmt: skip
        (
            ["--variant", "zone=chebyshev8"],
            sh_ladder_dir,
            2,
            "was played with variant transition=box zone=knight12; give the report the same "
            "--variant",
        ),  # fmt: skip
    ]
    for i, (args, folder, code, text) in enumerate(cases):
        out = tmp_path / f"rep{i}"
        r = run("report", "sacred-hill", *args, "--ladder-from", folder, "--out", out)
        one_error_line(r, code, text)
        assert not out.exists()
