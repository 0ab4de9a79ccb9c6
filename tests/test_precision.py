"""``--precision H``: studies that stop on the width of their 95% intervals (mcsim/precision.py).

The stop looks only at whole chunks in game-index order, so a seed, precision and cap give the
same games and result on one worker, two workers and Dask; bad targets and caps are one-line
errors before any game; and the stopping rule keeps its intervals' coverage (docs/usage.md,
"Studies sized by precision").
"""

import numpy as np
import pandas as pd
import pytest

import mcsim
from mcsim import precision as P
from mcsim.errors import ConfigError
from tests.conftest import one_error_line
from tests.test_runner import strip_timing


def _sh(**kw):
    return P.simulate_to_precision("sacred-hill", 0.05, 3000, seed=5, **kw)


def test_precision_stop_sacred_hill_same_on_one_two_workers_and_dask():
    a = _sh(workers=1)
    b = _sh(workers=2)
    assert a.summary["games"] == 384  # 6 chunks of 64 (calibration estimate 306 -> chunks of 64)
    assert a.summary["precision"]["games"] == 384 and not a.summary["precision"]["cap_reached"]
    pd.testing.assert_frame_equal(a.games, b.games)
    assert strip_timing(a.summary) == strip_timing(b.summary)
    pytest.importorskip("distributed")
    c = _sh(workers=2, backend="dask")
    pd.testing.assert_frame_equal(a.games, c.games)
    assert strip_timing(a.summary) == strip_timing(c.summary)


def test_precision_run_plays_the_first_games_of_the_seed():
    """The stopped run is exactly ``simulate`` of that many games (game i = (seed, i))."""
    a = _sh(workers=2)
    s = mcsim.simulate("sacred-hill", games=384, seed=5)
    pd.testing.assert_frame_equal(a.games, s.games)
    assert a.summary["seats"] == s.summary["seats"]


def test_resume_reads_the_calibration_instead_of_playing_it_again(tmp_path, monkeypatch):
    """An interrupted precision run keeps its calibration in its folder: a resume reads it (the
    games and the stop are the same), and a calibration that is not this run's is played again."""
    out = tmp_path / "run"
    a = _sh(workers=1, out_dir=out)
    saved = (out / P.CALIBRATION_NAME).read_text()
    assert '"games_per_run": 16' in saved
    for f in sorted(out.glob("part-*.parquet"))[-2:]:  # interrupted: the last two chunks lost
        f.unlink()
    played = []
    real = P._calibrate
    monkeypatch.setattr(P, "_calibrate", lambda *a, **k: played.append(1) or real(*a, **k))
    lines = []
    b = _sh(workers=1, out_dir=out, resume=True, echo=lines.append)
    assert played == [] and lines[0].endswith("(saved by the earlier run)")
    pd.testing.assert_frame_equal(a.games, b.games)
    assert strip_timing(a.summary) == strip_timing(b.summary)
    # not trusted, so played again with the same result: another run's (its key edited), an
    # edited figure, a malformed one
    edits = [
        saved.replace('"key": "', '"key": "0'),
        saved.replace('"games": 306', '"games": 3060'),
        saved.replace('"games": 306', '"games": 0'),
        saved.replace('"games": 306', '"games": null'),
        "{",
    ]
    for k, text in enumerate(edits, start=1):
        (out / P.CALIBRATION_NAME).write_text(text)
        for f in sorted(out.glob("part-*.parquet"))[-1:]:
            f.unlink()
        c = _sh(workers=1, out_dir=out, resume=True)
        assert len(played) == k
        pd.testing.assert_frame_equal(a.games, c.games)
        assert strip_timing(a.summary) == strip_timing(c.summary)
    # a calibration "file" that is a folder is refused before any game
    (out / P.CALIBRATION_NAME).unlink()
    (out / P.CALIBRATION_NAME).mkdir()
    with pytest.raises(ConfigError, match="_calibration.json is not a regular file; remove it"):
        _sh(workers=1, out_dir=out, resume=True)
    assert len(played) == len(edits)


def test_calibration_counts_a_chunk_fixed_cost_once_per_chunk():
    """The CPU estimate is the kernel's seconds per game plus each chunk's fixed cost (its
    table, summary and aggregate) over the chunk size, not that cost spread over the 16
    calibration games: with a kernel of 1 ms a game and 0.5 s a chunk besides, the 306-game
    estimate of the test above (Sacred Hill's chunks of 64 at that size) costs
    306 * (0.001 + 0.5 / 64) s, not 306 * (0.016 + 0.5) / 16 s."""
    from mcsim.runner import resolve_config

    module, cfg = resolve_config("sacred-hill", None, ["random"], None, None)
    prep = module.prepare(cfg)

    class Timed:  # the executor's imap with fixed timings of the real calibration games
        workers = 1

        def imap(self, fn, tasks, hold=0):
            for t in tasks:
                yield 0.016, 0.5, P._timed_work(t)[2]

    group = P.Group("rung random", [0], P.seat_win_rates)
    cal = P._calibrate(Timed(), module, [prep], [group], 0.05, 3000, 5)
    est = cal["groups"][0]
    assert est["games"] == 306  # as the estimate of test_precision_stop_sacred_hill_...
    chunk = P._plan(module, est, 3000, None).chunk
    assert chunk == 64
    assert est["cpu_per_game"] == 0.016 / 16 + 0.5 / 64
    assert cal["cpu_seconds"] == 306 * (0.001 + 0.5 / 64)


def test_a_refused_resume_plays_no_game(tmp_path, monkeypatch):
    """Another seed (or policy, precision, cap) is refused before the calibration is played."""
    out = tmp_path / "run"
    P.simulate_to_precision("sacred-hill", 0.1, 3000, seed=5, out_dir=out)
    monkeypatch.setattr(P, "_calibrate", lambda *a, **k: pytest.fail("calibration played"))
    with pytest.raises(ConfigError, match=r"holds a different run \(seed 5 there, 6 now\)"):
        P.simulate_to_precision("sacred-hill", 0.1, 3000, seed=6, out_dir=out, resume=True)
    with pytest.raises(ConfigError, match=r"holds a different run \(precision 0.1 there"):
        P.simulate_to_precision("sacred-hill", 0.2, 3000, seed=5, out_dir=out, resume=True)


def test_force_replaces_a_precision_run(tmp_path):
    out = tmp_path / "run"
    P.simulate_to_precision("sacred-hill", 0.1, 3000, seed=5, out_dir=out)
    r = P.simulate_to_precision("sacred-hill", 0.1, 3000, seed=6, out_dir=out, force=True)
    assert len(pd.read_parquet(out)) == r.summary["games"]


def test_precision_cap_binds_and_is_reported():
    r = P.simulate_to_precision("sacred-hill", 0.01, 200, seed=5)
    pr = r.summary["precision"]
    assert (pr["games"], pr["cap_reached"], pr["max_games"]) == (200, True, 200)
    assert P.precision_line(pr).startswith("precision: --max-games 200 reached before ±0.01")


def test_study_without_precision_is_simulate():
    st = P.play_study(
        "sacred-hill",
        [P.Run(["tactician", "random"])],
        [P.Group("g", [0], P.seat_win_rates)],
        precision=None,
        max_games=1000,
        seed=2,
        workers=2,
    )
    s = mcsim.simulate("sacred-hill", games=1000, seed=2, policies=["tactician", "random"])
    pd.testing.assert_frame_equal(st.results[0].games, s.games)
    assert strip_timing(st.results[0].summary) == {
        **strip_timing(s.summary),
        "precision": st.results[0].summary["precision"],
    }


def test_simulate_cli_precision_prints_calibration_and_stop(run):
    r = run("simulate", "sacred-hill", "--precision", 0.05, "--max-games", 3000, "-s", 5, "-w", 1)
    assert r.exit_code == 0, r.output
    assert "calibration (16 games per run): about 306 games for ±0.05" in r.output
    assert "Sacred Hill: 384 games, seed 5" in r.output
    assert "precision: stopped at 384 games, every 95% interval within ±0.05" in r.output


def test_tournament_precision_same_on_one_and_two_workers():
    from mcsim.tournament import tournament

    kw = dict(games=1, seed=3, precision=0.08, max_games=2000)
    a = tournament("sacred-hill", ["random", "greedy"], workers=1, **kw)
    b = tournament("sacred-hill", ["random", "greedy"], workers=2, **kw)
    a.pop("games_per_second"), b.pop("games_per_second")
    assert a == b
    assert a["games_per_lineup"] == a["precision"]["games"] == 112
    iv = a["precision"]["intervals"]["greedy vs random"]
    assert iv["high"] - iv["low"] <= 0.16


def test_compare_precision_same_on_one_and_two_workers():
    from mcsim.compare_variants import compare_variants

    kw = dict(seed=3, precision=0.06, max_games=3000)
    arms = ["zone=knight12", "zone=chebyshev8"]
    a = compare_variants("sacred-hill", arms, workers=1, **kw)
    b = compare_variants("sacred-hill", arms, workers=2, **kw)
    assert a == b
    assert a["games"] == a["precision"]["games"] == 576


def test_compare_out_folder_resumes_to_the_uninterrupted_result(run, tmp_path):
    """``compare --out DIR``: one dataset per arm and ``compare.json``; an interrupted
    comparison (a chunk and compare.json lost) resumed with ``--resume`` prints what the
    uninterrupted one printed, the same as without ``--out``; a second run into the folder is
    refused without ``--resume`` / ``--force``; ``--force`` replaces it."""
    import json

    args = ["compare", "sacred-hill", "--variant", "zone=knight12", "--variant",
            "zone=chebyshev8", "-s", 3, "-w", 2, "-q", "--json"]  # fmt: skip
    plain = run(*args, "--precision", 0.06, "--max-games", 3000)
    assert plain.exit_code == 0, plain.output
    out = tmp_path / "cmp"
    first = run(*args, "--precision", 0.06, "--max-games", 3000, "--out", out)
    assert first.exit_code == 0, first.output
    assert first.output == plain.output
    assert json.loads(first.output)["games"] == 576  # as test_compare_precision_same_on_...
    assert sorted(p.name for p in out.iterdir()) == [
        "arm-0-zone=knight12", "arm-1-zone=chebyshev8", "compare.json",
    ]  # fmt: skip
    assert json.loads((out / "compare.json").read_text()) == json.loads(first.output)
    assert len(pd.read_parquet(out / "arm-1-zone=chebyshev8")) == 576
    parts = sorted((out / "arm-1-zone=chebyshev8").glob("part-*.parquet"))
    parts[-1].unlink()  # interrupted: its last chunk and the comparison's own file lost
    (out / "compare.json").unlink()
    again = run(*args, "--precision", 0.06, "--max-games", 3000, "--out", out, "--resume")
    assert again.exit_code == 0, again.output
    assert again.output == first.output
    one_error_line(
        run(*args, "--precision", 0.06, "--max-games", 3000, "--out", out),
        2,
        f"--out {out} holds an earlier comparison; use --resume",
    )
    # other arms (fewer, or reordered) are refused before any game, the folder untouched
    three = args[:6] + ["--variant", "zone=knight12,transition=web2014"] + args[6:]
    before = sorted(str(p) for p in out.rglob("*"))
    for other in (three, args[:2] + args[4:6] + args[2:4] + args[6:]):
        r = run(*other, "--precision", 0.06, "--max-games", 3000, "--out", out, "--resume")
        assert r.exit_code == 2 and "cannot resume" in r.output, r.output
    assert sorted(str(p) for p in out.rglob("*")) == before
    # another study into the same folder: --resume is refused, --force replaces it
    r = run(*args, "-n", 64, "--out", out, "--resume")
    assert r.exit_code != 0 and "cannot resume" in r.output
    forced = run(*args, "-n", 64, "--out", out, "--force")
    assert forced.exit_code == 0, forced.output
    assert forced.output == run(*args, "-n", 64).output
    assert len(pd.read_parquet(out / "arm-0-zone=knight12")) == 64
    # fewer arms than the folder's comparison: refused too (the lost arm has no manifest to check)
    assert run(*three, "-n", 64, "--out", out, "--force").exit_code == 0
    r = run(*args, "-n", 64, "--out", out, "--resume")
    assert r.exit_code == 2 and "holds a comparison of other arms" in r.output, r.output
    one_error_line(run(*args, "-n", 64, "--resume"), 2, "--resume needs --out DIR")
    one_error_line(run(*args, "-n", 64, "--force"), 2, "--force needs --out DIR")
    one_error_line(
        run(*args, "-n", 2_000_001, "--out", tmp_path / "big"), 2, "--out keeps every arm's games"
    )
    assert not (tmp_path / "big").exists()


def _bernoulli_chunks(rng, p, chunk=64, n_chunks=100):
    out = []
    for _ in range(n_chunks):
        w = (rng.random(chunk) < p).astype(float)
        out.append([pd.DataFrame({"win_share_0": w, "win_share_1": 1 - w})])
    return out


@pytest.mark.parametrize("p,covered,mean_games", [(0.5, 196, 384.0), (0.9, 195, 167.04)])
def test_stopping_rule_keeps_coverage_on_a_known_answer(p, covered, mean_games):
    """200 stopped runs of a Bernoulli(p) stream (chunks of 64, target ±0.05) through the same
    stop rule: the Wilson interval at the stop still holds p in about 95% of runs (the rule
    stops on the width, which depends on the estimate only through p(1-p))."""
    rng = np.random.default_rng(12345)
    hits, games = 0, []
    for _ in range(200):
        r = P.stop_point(_bernoulli_chunks(rng, p), P.seat_win_rates, 0.05)
        iv = r["intervals"]["win rate seat 0"]
        hits += iv["low"] <= p <= iv["high"]
        games.append(r["games"])
    assert (hits, float(np.mean(games))) == (covered, mean_games)


def _seated_chunks(rng, lows, seats=4, chunk=64, n_chunks=60):
    """Runs of a seat rotation whose seatings share each deal: per deal a win chance u drawn
    from ``lows`` (so the seatings of a deal are correlated), each seating won with chance u."""
    out = []
    for _ in range(n_chunks):
        u = rng.choice(lows, size=chunk)
        frames = []
        for j in range(seats):
            w = (rng.random(chunk) < u).astype(float)
            cols = {f"win_share_{s}": w if s == j else (1 - w) / (seats - 1) for s in range(seats)}
            frames.append(pd.DataFrame(cols))
        out.append(frames)
    return out


@pytest.mark.parametrize(
    "lows,covered,mean_deals", [((0.05, 0.35), 187, 122.56), ((0.0, 0.5), 191, 182.08)]
)
def test_seat_rotated_share_keeps_coverage_with_correlated_seatings(lows, covered, mean_deals):
    """200 stopped seat rotations (4 seatings per deal, correlated through the deal; target
    ±0.05) through the same stop rule: the interval on the effective number of games
    (``stats.seated_share``) holds the true share in about 95% of runs (1,000 runs gave 95.0%
    and 95.7%), and the runs stop well before the ~246 deals a per-deal Wilson interval
    needs at these shares (p = 0.2 and 0.25)."""
    rng = np.random.default_rng(12345)
    p = float(np.mean(lows))
    hits, deals = 0, []
    for _ in range(200):
        r = P.stop_point(_seated_chunks(rng, lows), P.rotation_share([0, 1, 2, 3]), 0.05)
        iv = r["intervals"]["win share"]
        hits += iv["low"] <= p <= iv["high"]
        deals.append(r["games"])
    assert (hits, float(np.mean(deals))) == (covered, mean_deals)


@pytest.mark.parametrize(
    "args,text",
    [
        (["--precision", 0], "--precision must be a positive half-width"),
        (["--precision", -0.1], "--precision must be a positive half-width"),
        (["--precision", "nan"], "--precision nan must be a finite number"),
        (["--precision", 0.6], "--precision 0.6 is no precision for a win rate"),
        (["--precision", 0.05, "--max-games", -5], "--max-games must be a positive whole number"),
        (["--precision", 0.05, "--max-games", 0], "--max-games must be a positive whole number"),
        (["--precision", 0.05, "--max-games", 10**13], "--max-games must be at most"),
        (["--max-games", 100], "--max-games goes with --precision H"),
        (["--precision", 0.05, "-n", 100], "give --games N (a fixed count) or --precision H"),
    ],
)
@pytest.mark.parametrize("command", ["simulate", "tournament", "compare"])
def test_bad_precision_or_cap_is_one_line_before_any_game(run, monkeypatch, command, args, text):
    from mcsim.games import sacred_hill

    def no_games(*a, **k):
        raise AssertionError("a game was played")

    monkeypatch.setattr(sacred_hill, "play_chunk", no_games)
    extra = {
        "simulate": [],
        "tournament": ["-p", "random", "-p", "greedy"],
        "compare": ["--variant", "zone=knight12", "--variant", "zone=chebyshev8"],
    }[command]
    one_error_line(run(command, "sacred-hill", *extra, *args), 2, text)
