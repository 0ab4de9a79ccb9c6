"""The runner: chunking, aggregates, Parquet datasets, resume, Ctrl-C, Dask."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import mcsim
from mcsim import runner
from mcsim.aggregate import Aggregate, _median
from mcsim.errors import ConfigError, OutputError
from mcsim.games import get_game


def strip_timing(summary):
    s = dict(summary)
    s.pop("elapsed_seconds")
    s.pop("games_per_second")
    s.pop("compile_seconds")
    return s


def test_chunk_plan_depends_only_on_game_count():
    sh = get_game("sacred-hill")
    plan = runner.chunk_plan(sh, 1001)
    assert sum(n for _, n in plan) == 1001 and plan[0] == (0, 64)
    assert all(n % 2 == 0 for _, n in list(plan)[:-1])  # CHUNK_MULTIPLE: matches stay together
    assert runner.chunk_plan(sh, 10_000_000)[0] == (0, 50_000)
    assert runner.chunk_plan(sh, 10, chunk_size=3) == [(0, 4), (4, 4), (8, 2)]


def test_chunk_plan_is_lazy_for_any_game_count():
    plan = runner.chunk_plan(get_game("sacred-hill"), 10**12)
    assert len(plan) == 20_000_000 and plan[-1] == (10**12 - 50_000, 50_000)
    assert next(iter(plan)) == (0, 50_000)


def test_game_count_cap():
    with pytest.raises(ConfigError, match="at most 1,000,000,000,000"):
        mcsim.simulate("sacred-hill", games=10**12 + 1)


def test_summary_identical_for_any_workers():
    a = mcsim.simulate("sacred-hill", games=5000, seed=21, workers=1)
    b = mcsim.simulate("sacred-hill", games=5000, seed=21, workers=2)
    assert strip_timing(a.summary) == strip_timing(b.summary)


def test_aggregate_matches_full_table():
    """Merged chunk aggregates give the numbers the whole table gives."""
    r = mcsim.simulate("sacred-hill", games=3000, seed=2)
    g = r.games
    seat = r.summary["seats"][0]["score"]
    assert seat["mean"] == pytest.approx(g.score_0.mean(), rel=1e-12)
    assert seat["sd"] == pytest.approx(g.score_0.std(ddof=1), rel=1e-9)
    assert seat["p50"] == g.score_0.median() and seat["max"] == g.score_0.max()
    assert r.summary["length"]["mean"] == pytest.approx(g.length_plies.mean())
    direct = get_game("sacred-hill").summarize(g, r.prepared)
    assert r.summary["sacred_hill"] == direct  # integer sums: exact either way


def test_aggregate_json_round_trip_and_median():
    r = mcsim.simulate("sacred-hill", games=300, seed=2)
    agg = r.aggregate
    back = Aggregate.from_json(json.loads(json.dumps(agg.to_json())))
    assert back.seat_summaries(["a", "b"]) == agg.seat_summaries(["a", "b"])
    assert _median({1: 1, 2: 1}) == 1.5 and _median({0: 3, 5: 1}) == 0.0


def test_no_rows_kept_above_the_limit(monkeypatch):
    monkeypatch.setattr(runner, "KEEP_GAMES_LIMIT", 100)
    r = mcsim.simulate("sacred-hill", games=500, seed=1)
    assert r.games is None and r.summary["games"] == 500
    with pytest.raises(ConfigError, match="kept no per-game rows"):
        _ = r.seats


def test_dataset_out_and_resume(tmp_path):
    out = tmp_path / "run"
    full = mcsim.simulate("sacred-hill", games=2000, seed=4, out_dir=out)
    parts = sorted(out.glob("part-*.parquet"))
    assert len(parts) == len(runner.chunk_plan(get_game("sacred-hill"), 2000))
    ds = pd.read_parquet(out)  # the directory reads as one dataset
    pd.testing.assert_frame_equal(ds.sort_values("game_index", ignore_index=True), full.games)
    manifest = json.loads((out / "_manifest.json").read_text())
    assert manifest["run"]["seed"] == 4 and manifest["run"]["games"] == 2000
    # lose three chunks and the summary, as after Ctrl-C, then resume
    for p in parts[3:6]:
        p.unlink()
    (out / "_summary.json").unlink()
    again = mcsim.simulate("sacred-hill", games=2000, seed=4, out_dir=out, resume=True)
    pd.testing.assert_frame_equal(again.games, full.games)
    # a finished run resumed plays nothing: no throughput to report
    done = mcsim.simulate("sacred-hill", games=2000, seed=4, out_dir=out, resume=True)
    assert done.summary["games_per_second"] is None and done.summary["games"] == 2000
    assert strip_timing(again.summary) == strip_timing(full.summary)
    assert json.loads((out / "_summary.json").read_text())["games"] == 2000


@pytest.mark.parametrize(
    "kwargs,error,msg",
    [
        (dict(seed=5, resume=True), ConfigError, "different run \\(seed 4 there, 5 now\\)"),
        (dict(seed=4), OutputError, "holds an earlier run; use resume=True to continue it or"),
    ],
)
def test_resume_refuses_another_run(tmp_path, kwargs, error, msg):
    out = tmp_path / "run"
    mcsim.simulate("sacred-hill", games=200, seed=4, out_dir=out)
    with pytest.raises(error, match=msg):
        mcsim.simulate("sacred-hill", games=200, out_dir=out, **kwargs)


def test_resume_needs_a_run(tmp_path):
    with pytest.raises(OutputError, match="cannot resume: it holds no run \\(no _manifest.json"):
        mcsim.simulate("sacred-hill", games=20, out_dir=tmp_path, resume=True)
    with pytest.raises(ConfigError, match=r"resume=True needs out_dir="):
        mcsim.simulate("sacred-hill", games=20, resume=True)


def test_ctrl_c_leaves_only_whole_files(tmp_path):
    """Ctrl-C leaves no half-written file; the run resumes from what finished."""
    out = tmp_path / "run"
    cmd = [
        sys.executable,
        "-c",
        "from cli import main; main()",
        "simulate",
        "sacred-hill",
        "-n",
        "4000000",
        "-p",
        "greedy",
        "--out",
        str(out),
        "-q",
        "--workers",
        "2",
    ]
    p = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.time() + 120
    while time.time() < deadline and not list(out.glob("part-*.parquet")):
        time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 1 and err.strip().endswith("Aborted!")
    names = os.listdir(out) + os.listdir(out / "_aggregates")
    assert not [n for n in names if n.startswith(".") or n.endswith(".tmp")]
    assert "_summary.json" not in names
    parts = [n for n in names if n.endswith(".parquet")]
    assert 1 <= len(parts) < 80
    for n in parts:
        assert len(pd.read_parquet(out / n)) == 50_000
    # a chunk's part is written before its aggregate (which names the part's SHA-256), so an
    # aggregate means a whole chunk; a part whose worker was killed before its aggregate was
    # written (at most one per worker) is not counted as finished and is played again
    aggs = [n for n in os.listdir(out / "_aggregates") if n.endswith(".json")]
    assert aggs and all((out / n.replace(".json", ".parquet")).exists() for n in aggs)
    assert len(parts) - len(aggs) <= 2


def test_dask_local_cluster_identical_to_local():
    """The Dask backend gives the local backend's results for the same seed."""
    pytest.importorskip("distributed")
    kw = dict(games=3000, seed=9, policies=["tactician", "random"], workers=2)
    a = mcsim.simulate("sacred-hill", **kw)
    b = mcsim.simulate("sacred-hill", backend="dask", **kw)
    pd.testing.assert_frame_equal(a.games, b.games)
    assert strip_timing(a.summary) == strip_timing(b.summary)


@pytest.mark.parametrize(
    "kwargs,msg",
    [
        (dict(backend="spark"), "unknown backend"),
        (dict(scheduler="tcp://x:1"), "scheduler= goes with backend=.dask."),
    ],
)
def test_backend_errors(kwargs, msg):
    with pytest.raises(ConfigError, match=msg):
        mcsim.simulate("sacred-hill", games=10, **kwargs)


def test_written_files_have_the_usual_mode(tmp_path):
    f = tmp_path / "x.txt"
    runner.write_atomic(f, lambda tmp: Path(tmp).write_text("hi"))
    assert f.read_text() == "hi"
    assert (f.stat().st_mode & 0o777) == (0o666 & ~runner._UMASK)
    assert [p.name for p in tmp_path.iterdir()] == ["x.txt"]


def test_a_slow_warm_up_says_it_is_compiling(monkeypatch, capsys):
    """While the kernels compile (Numba's ``numba:compile`` event, and the warm-up takes over
    COMPILE_NOTICE_AFTER seconds) the run says so on stderr, once, at a terminal; with progress
    off (``--quiet``) it says nothing."""
    import time as _time

    from numba.core import event

    from mcsim import runner
    from mcsim.games import get_game

    module = get_game("sacred-hill")
    real = module.play_chunk

    def slow(prep, first, n, seed, *a, **k):
        if n == 0:
            with event.trigger_event("numba:compile", data={}):  # as a real compile does
                _time.sleep(0.3)
        return real(prep, first, n, seed, *a, **k)

    monkeypatch.setattr(module, "play_chunk", slow)
    monkeypatch.setattr(runner, "COMPILE_NOTICE_AFTER", 0.05)
    monkeypatch.setattr(runner, "_stderr_is_terminal", lambda: True)  # as at a terminal
    mcsim.simulate("sacred-hill", games=4, seed=1, workers=1, progress=True)
    err = capsys.readouterr().err
    assert err.count("Sacred Hill: compiling the game's kernels; this happens once") == 1
    mcsim.simulate("sacred-hill", games=4, seed=1, workers=1, progress=False)
    assert "compiling" not in capsys.readouterr().err
    monkeypatch.setattr(runner, "COMPILE_NOTICE_AFTER", 30.0)
    mcsim.simulate("sacred-hill", games=4, seed=1, workers=1, progress=True)
    assert "compiling" not in capsys.readouterr().err  # a quick warm-up says nothing


def test_the_command_line_quiets_the_collector(run):
    """``mcsim`` sets the collector thresholds that make a cold compile cheaper."""
    import gc

    from mcsim.runner import COLLECTOR_THRESHOLDS

    gc.set_threshold(700, 10, 10)
    try:
        assert run("games").exit_code == 0
        assert gc.get_threshold() == COLLECTOR_THRESHOLDS
    finally:
        gc.set_threshold(*COLLECTOR_THRESHOLDS)


def test_worker_tasks_name_the_out_folder_absolutely(tmp_path, monkeypatch):
    """A worker may have another working directory (a Dask worker on another machine), so the
    chunk tasks of simulate and of a precision study carry the client's folder as an absolute
    path, never the relative one given."""
    from mcsim import precision

    monkeypatch.chdir(tmp_path)
    seen = []
    real_execute, real_work = runner._execute, precision._work

    def spy_execute(tasks, *args):
        tasks = list(tasks)
        seen.extend(t[6] for t in tasks)
        return real_execute(iter(tasks), *args)

    def spy_work(task):
        seen.append(task[6])
        return real_work(task)

    monkeypatch.setattr(runner, "_execute", spy_execute)
    monkeypatch.setattr(precision, "_work", spy_work)
    mcsim.simulate("sacred-hill", games=20, seed=1, out_dir="rel", workers=1)
    precision.simulate_to_precision("sacred-hill", 0.3, max_games=40, seed=1, out_dir="prec")
    # (the precision study's calibration chunks write nothing: None)
    assert set(seen) - {None} == {str(tmp_path / "rel"), str(tmp_path / "prec")}


def _wait_for_flag(task):
    """``Executor.imap`` probe: "wait" returns whether the flag file appeared within
    ``task[2]`` seconds; "flag" writes it; anything else returns its kind."""
    kind, path, patience = task
    p = Path(path)
    if kind == "wait":
        t0 = time.monotonic()
        while not p.exists() and time.monotonic() - t0 < patience:
            time.sleep(0.01)
        return p.exists()
    if kind == "flag":
        p.write_text("x")
    return kind


@pytest.mark.parametrize("hold,seen", [(None, False), (16, True)])
def test_executor_keeps_workers_busy_behind_a_long_task(tmp_path, hold, seen):
    """A precision study's chunks differ in cost; with ``hold`` a free worker takes task after
    task while the oldest runs (here the oldest waits for a flag only the tenth task writes).
    Without it the window of 2 x workers = 4 tasks is full and the tenth is never sent while
    the oldest waits. Results come in task order either way."""
    flag = str(tmp_path / "flag")
    patience = 30 if seen else 2
    tasks = [("wait", flag, patience)] + [("short", flag, 0)] * 8 + [("flag", flag, 0)]
    with runner.Executor("local", 2) as ex:
        got = list(ex.imap(_wait_for_flag, tasks, hold=hold))
    assert got == [seen] + ["short"] * 8 + ["flag"]


def _full_disk(out_dir, first, agg, df, run_id):
    raise runner.OutputWriteError(f"cannot write {out_dir / 'part.parquet'}: No space left")


@pytest.mark.parametrize("extra", [["-n", 64], ["--precision", 0.2]])
def test_a_worker_write_error_names_the_folder_as_given(run, monkeypatch, tmp_path, extra):
    """Workers are sent the absolute folder (for Dask); their errors still name it as typed."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runner, "_save_chunk", _full_disk)  # inherited by the forked workers
    r = run("simulate", "sacred-hill", *extra, "-w", 2, "--out", "out", "-q")
    assert r.exit_code == 1
    assert r.output.strip() == "Error: cannot write out/part.parquet: No space left"
