"""Nothing lost, nothing silently wrong: resume inputs, outputs checked before play, Ctrl-C,
one-seat games, the throughput line and ``--force``.

Test names start with what they cover: ``resume_``, ``outputs_``, ``ctrl_c_``, ``solo_``.
"""

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcsim.games import get_game
from tests.conftest import one_error_line

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def two_tile_sets(tmp_path):
    """Two different valid Don Quixote tile sets (rules §6.1 random sets) as files."""
    sets = get_game("don-quixote").ensemble_options(2, 7, str(tmp_path / "sets"))
    return [Path(opts["tiles"]) for _, opts in sets]


# ---------------------------------------------------------------- resume compares inputs
def test_resume_simulate_refuses_replaced_tile_file(run, tmp_path, two_tile_sets):
    """--option tiles=FILE replaced between the interrupted run and --resume is refused, by name."""
    a, b = two_tile_sets
    t = tmp_path / "t.json"
    shutil.copy(a, t)
    out = tmp_path / "run"
    args = [
        "simulate",
        "don-quixote",
        "-n",
        300,
        "--chunk-size",
        100,
        "--option",
        f"tiles={t}",
        "--out",
        out,
        "-q",
        "-w",
        1,
    ]
    assert run(*args).exit_code == 0
    (out / "part-000000000200.parquet").unlink()  # as if interrupted in the last chunk
    (out / "_summary.json").unlink()
    shutil.copy(b, t)
    r = run(*args, "--resume")
    one_error_line(
        r,
        2,
        f"cannot resume: {out} holds a run of other inputs (option tiles "
        f"({t}) has different content now",
    )
    assert not (out / "part-000000000200.parquet").exists()
    shutil.copy(a, t)  # the same file again: resumes
    r = run(*args, "--resume")
    assert r.exit_code == 0, r.output


def test_resume_batch_refuses_changed_cell_options(run, tmp_path, two_tile_sets):
    """a batch cell whose options file changed is not reused by --resume."""
    a, b = two_tile_sets
    t = tmp_path / "t.json"
    shutil.copy(a, t)
    plan = tmp_path / "plan.toml"
    plan.write_text(
        '[[experiment]]\nname = "dq"\ngame = "don-quixote"\ngames = 50\n'
        'seeds = [1, 2]\noptions = { tiles = "t.json" }\n'
    )
    out = tmp_path / "out"
    assert run("batch", plan, "--out", out, "-q", "-w", 1).exit_code == 0
    (out / "experiments" / "dq-001.json").unlink()  # interrupted during the second cell
    shutil.copy(b, t)
    r = run("batch", plan, "--out", out, "-q", "-w", 1, "--resume")
    one_error_line(  # a refused resume: exit 2, as in simulate and tune
        r,
        2,
        f"cannot resume: cell dq-000 in {out} was played with other inputs "
        f"(option tiles ({t}) has different content now",
    )
    assert not (out / "experiments" / "dq-001.json").exists()


# ---------------------------------------------------------------- outputs checked before play
@pytest.fixture
def read_only(tmp_path, monkeypatch):
    """A folder in which no file can be created (also when the tests run as root): creating a
    temporary file in it raises PermissionError, as a read-only folder does."""
    ro = tmp_path / "ro"
    ro.mkdir()
    real = __import__("tempfile").mkstemp

    def mkstemp(*a, dir=None, **k):
        if dir is not None and Path(dir).resolve() == ro.resolve():
            raise PermissionError(13, "Permission denied", str(Path(dir) / ".x.tmp"))
        return real(*a, dir=dir, **k)

    monkeypatch.setattr("tempfile.mkstemp", mkstemp)
    return ro


@pytest.fixture
def no_play(monkeypatch):
    """Fail the test if any game is played."""
    import mcsim

    def played(*a, **k):
        raise AssertionError("a game was played")

    monkeypatch.setattr(mcsim, "simulate", played)
    monkeypatch.setattr("mcsim.runner.simulate", played)


def test_outputs_read_only_out_fails_before_any_game_naming_the_users_path(run, read_only, no_play):
    """--out / --record-out in a read-only folder: one line naming the user's path, no play,
    exit 2 (an output refused before the run is a bad argument, docs/usage.md)."""
    r = run("simulate", "sacred-hill", "-n", 2000, "--out", read_only / "t.parquet", "-q")
    one_error_line(r, 2, f"cannot write --out {read_only / 't.parquet'}: Permission denied")
    r = run(
        "simulate",
        "sacred-hill",
        "-n",
        2000,
        "--record",
        1,
        "--record-out",
        read_only / "r.json",
        "-q",
    )
    one_error_line(r, 2, f"cannot write --record-out {read_only / 'r.json'}: Permission denied")
    r = run("report", "sacred-hill", "-n", 200, "--out", read_only / "rep", "-q")
    one_error_line(r, 2, f"cannot write --out {read_only / 'rep'}: Permission denied")


def test_outputs_failed_record_write_leaves_no_table(run, tmp_path, read_only, monkeypatch):
    """--out table + manifest + --record-out are committed together: when the record cannot
    be written (the folder turned read-only after the check), no table or manifest is left."""
    if importlib.util.find_spec("mcsim.outputs") is not None:  # absent on today's main
        monkeypatch.setattr("mcsim.outputs.probe_folder", lambda *a: None)
    table = tmp_path / "partial.parquet"
    r = run(
        "simulate",
        "sacred-hill",
        "-n",
        100,
        "--out",
        table,
        "--record",
        1,
        "--record-out",
        read_only / "r.json",
        "-q",
    )
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert f"--record-out {read_only / 'r.json'}" in r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ro"]
    assert list(read_only.iterdir()) == []


def test_outputs_batch_plan_limits_fail_in_dry_run_naming_the_plan_key(run, tmp_path, no_play):
    """every limit simulate enforces applies to plan cells, named by the plan key."""
    plan = tmp_path / "plan.toml"
    plan.write_text(
        '[[experiment]]\nname = "big"\ngame = "sacred-hill"\ngames = [100, 1000000000000000]\n'
    )
    r = run("batch", plan, "--dry-run")
    one_error_line(
        r,
        1,
        "experiment 'big' (#1), cell 1 (sacred-hill, players=default, "
        "policies=random, variant=default readings): 'games' must be at most "
        "1,000,000,000,000 (10**12), not 1,000,000,000,000,000",
    )
    assert "--games" not in r.output


def test_outputs_existing_out_needs_force(run, tmp_path):
    """an existing --out file, --record-out file or report folder is not overwritten
    without --force (exit 2, as every bad argument); --force with --resume is refused (one
    starts over, one continues)."""
    out = tmp_path / "t.csv"
    out.write_text("keep\n")
    r = run("simulate", "sacred-hill", "-n", 50, "--out", out, "-q")
    one_error_line(r, 2, f"--out {out} exists; use --force to overwrite it")
    assert out.read_text() == "keep\n"
    r = run("simulate", "sacred-hill", "-n", 50, "--out", out, "-q", "--force")
    assert r.exit_code == 0 and out.read_text().startswith("game_index,")
    rec = tmp_path / "r.json"
    rec.write_text("keep")
    r = run("simulate", "sacred-hill", "-n", 50, "--record", 1, "--record-out", rec, "-q")
    one_error_line(r, 2, f"--record-out {rec} exists; use --force to overwrite it")
    rep = tmp_path / "rep"
    rep.mkdir()
    (rep / "notes.txt").write_text("mine")
    refused = (
        f"--out {rep} is not empty and holds 'notes.txt', not only an earlier report; "
        "choose another folder"
    )
    r = run("report", "sacred-hill", "-n", 50, "--out", rep, "-q")
    one_error_line(r, 2, refused)
    assert [p.name for p in rep.iterdir()] == ["notes.txt"]
    r = run("report", "sacred-hill", "-n", 50, "--out", rep, "-q", "--force")
    one_error_line(r, 2, refused)  # --force replaces only an earlier report's files
    assert [p.name for p in rep.iterdir()] == ["notes.txt"]
    (rep / "notes.txt").unlink()
    assert run("report", "sacred-hill", "-n", 50, "--out", rep, "-q").exit_code == 0
    r = run("report", "sacred-hill", "-n", 50, "--out", rep, "-q")
    one_error_line(r, 2, f"--out {rep} holds an earlier report; use --force to replace it")
    r = run("report", "sacred-hill", "-n", 50, "--out", rep, "-q", "--force")
    assert r.exit_code == 0, r.output
    assert (rep / "report.html").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    r = run("simulate", "sacred-hill", "-n", 50, "--out", tmp_path / "d", "--resume", "--force")
    one_error_line(r, 2, "--force starts over and --resume continues")
    d = tmp_path / "d"  # a dataset folder: refused, --resume continues, --force starts over
    assert run("simulate", "sacred-hill", "-n", 50, "-s", 1, "--out", d, "-q").exit_code == 0
    r = run("simulate", "sacred-hill", "-n", 50, "-s", 2, "--out", d, "-q")
    one_error_line(r, 2, f"--out {d} holds an earlier run; use --resume to continue it or --force")
    r = run("simulate", "sacred-hill", "-n", 50, "-s", 2, "--out", d, "-q", "--force")
    assert r.exit_code == 0, r.output
    assert json.loads((d / "_manifest.json").read_text())["run"]["seed"] == 2


# ---------------------------------------------------------------- Ctrl-C always stops
def _start(*args):
    """Start ``mcsim ARGS`` in its own process group (as a terminal runs a command)."""
    return subprocess.Popen(
        [sys.executable, "-c", "from cli import main; main()", *map(str, args)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _descendants(pid):
    """Live descendant processes of ``pid`` (from /proc)."""
    kids = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            if fields[0] != "Z":
                kids[int(d.name)] = int(fields[1])
    out, frontier = set(), {pid}
    while frontier:
        frontier = {c for c, parent in kids.items() if parent in frontier} - out
        out |= frontier
    return out


def _wait_for(cond, timeout=120.0):
    """Poll ``cond()`` every 0.1 s until it is true (the start-up of a loaded machine can take
    tens of seconds: Numba cache loads, worker start); returns its last value."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.1)
    return cond()


def _kill_group(p):
    """Leave no process of the test behind, whatever happened."""
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.communicate()


def _interrupt(p, workers, twice=False):
    """Wait until ``workers`` descendant processes run, send Ctrl-C to the process group (as a
    terminal does; ``twice``: a second one 0.05 s later, as an impatient user does), and return
    ``(returncode, stderr, seconds to stop, workers)``."""
    try:
        kids = _wait_for(lambda: len(_descendants(p.pid)) >= workers and _descendants(p.pid))
        assert kids, "the workers never started"
        time.sleep(0.5)  # let them take their chunks
        t = time.monotonic()
        os.killpg(p.pid, signal.SIGINT)
        if twice:
            time.sleep(0.05)
            try:
                os.killpg(p.pid, signal.SIGINT)
            except ProcessLookupError:  # already gone
                pass
        try:
            _, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail("Ctrl-C did not stop the command within 60 s")
        return p.returncode, err, time.monotonic() - t, kids
    finally:
        if p.returncode is None:
            _kill_group(p)


def _gone(pids):
    return not any(
        Path(f"/proc/{q}").exists()
        and (Path(f"/proc/{q}/stat").read_text().split(") ")[-1][0] != "Z")
        for q in pids
    )


# A chunk of 20,000,000 greedy Sacred Hill games takes minutes: on today's main, Ctrl-C waited
# for the running chunks (and a second Ctrl-C left orphans).
LONG = ["sacred-hill", "-n", 100_000_000, "-p", "greedy", "-w", 2, "-q"]


def test_ctrl_c_stops_simulate_and_its_workers():
    """Ctrl-C during long chunks: exit 1, "Aborted!", no traceback, no worker left."""
    p = _start("simulate", *LONG, "--chunk-size", 20_000_000)
    code, err, took, kids = _interrupt(p, 2)
    assert code == 1 and err.strip() == "Aborted!", err
    assert _wait_for(lambda: _gone(kids), 10)
    assert took < 30  # bounded by process kill + exit, not by the chunk (minutes)


@pytest.mark.parametrize(
    "args",
    [
        ["tournament", "sacred-hill", "-p", "random", "-p", "greedy", "-n", 100_000_000],
        [
            "compare",
            "sacred-hill",
            "--variant",
            "transition=box",
            "--variant",
            "transition=web2014",
            "-p",
            "greedy",
            "-n",
            2_000_000,
        ],
    ],
    ids=["tournament", "compare"],
)
def test_ctrl_c_stops_tournament_and_compare(args):
    """tournament and compare play through the same execution layer and stop the same
    way (compare hung joining idle workers, and a second Ctrl-C left orphans)."""
    p = _start(*args, "-w", 2, "-q")
    code, err, _, kids = _interrupt(p, 2, twice=args[0] == "compare")
    assert code == 1 and err.strip() == "Aborted!", err
    assert _wait_for(lambda: _gone(kids), 10)


def test_ctrl_c_workers_die_with_their_parent():
    """a main process that ends abnormally (SIGKILL) takes its workers with it."""
    p = _start("simulate", *LONG, "--chunk-size", 20_000_000)
    try:
        kids = _wait_for(lambda: len(_descendants(p.pid)) >= 2 and _descendants(p.pid))
        assert kids
        p.kill()
        p.wait()  # not communicate(): live workers would hold its pipes open
        assert _wait_for(lambda: _gone(kids), 10), "workers outlived their parent"
    finally:
        _kill_group(p)


def test_ctrl_c_during_start_up_is_clean():
    """Ctrl-C while the modules load: "Aborted!", exit 1 (not 130), no import traceback."""
    p = _start("simulate", "sacred-hill", "-n", 1000, "-q")
    assert _wait_for(lambda: "numpy" in Path(f"/proc/{p.pid}/maps").read_text(), 60)
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 1 and err.strip() == "Aborted!", (p.returncode, err)


def test_ctrl_c_with_dask_prints_no_worker_tracebacks():
    """Dask LocalCluster: Ctrl-C gives "Aborted!" only (workers neither see the terminal's
    SIGINT nor print tracebacks while the cluster closes)."""
    if importlib.util.find_spec("distributed") is None:
        pytest.skip("the dask extra is not installed")
    p = _start("simulate", *LONG, "--chunk-size", 20_000_000, "--backend", "dask")
    code, err, _, kids = _interrupt(p, 3)  # the nanny's spawned workers and their tracker
    assert code == 1 and err.strip() == "Aborted!", err
    assert _wait_for(lambda: _gone(kids), 20)


def test_ctrl_c_oracle_parameters_keep_one_game_within_seconds(run, no_play):
    """`evaluate don-quixote -p oracle:beam=4096,iters=1e9 -n 1` ran for 13 minutes
    without heeding Ctrl-C; the oracle's parameters are now bounded (beam <= 512, iters <= 1e6:
    ~2-3 s per game on an idle core), refused before any game."""
    r = run("evaluate", "don-quixote", "-p", "oracle:beam=4096,iters=1e9", "-n", 1)
    one_error_line(r, 2, "policy 'oracle': parameter beam=4096 is outside [1, 512]")
    r = run("evaluate", "don-quixote", "-p", "greedy", "-p", "oracle:iters=1e9", "-n", 1)
    one_error_line(r, 2, "policy 'oracle': parameter iters=1e9 is outside [0, 1000000]")


# ---------------------------------------------------------------- one-seat games
def test_solo_compare_game_reports_score_differences_only(run):
    """compare on Don Quixote solo says before playing that it reports score differences
    only, and does (today: IndexError after every game)."""
    r = run(
        "compare",
        "don-quixote",
        "--variant",
        "last_tile_rotation=free",
        "--variant",
        "last_tile_rotation=random",
        "-n",
        40,
        "-w",
        1,
    )
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0] == (
        "note: don-quixote with 1 player is a solo game: compare reports score "
        "differences only (no win rates, score spread, winner margin or seat "
        "balance)"
    )
    assert "win" not in "\n".join(lines[1:]).lower()
    assert lines[-1].startswith(
        "paired difference (last_tile_rotation=random) - "
        "(last_tile_rotation=free), mean [95% CI]: score "
    )


def test_solo_tournament_refuses_a_solo_game_before_playing(run, no_play):
    """tournament on a one-seat game (one seat asked for: without --players a solo game gets one
    seat per -p): one line pointing to evaluate, nothing played."""
    r = run("tournament", "don-quixote", "-p", "random", "-p", "greedy", "-n", 100, "--players", 1)
    one_error_line(
        r,
        2,
        "a tournament needs at least 2 seats; don-quixote with 1 player is a "
        "solo game: rank policies by score on common deals with `mcsim evaluate "
        "don-quixote -p A -p B`",
    )


def test_solo_summary_shows_score_statistics_only(run):
    """a solo summary has no "win rate 1.0000 [0.9981, 1.0000]" column."""
    r = run("simulate", "don-quixote", "-n", 30, "-w", 1, "-q")
    assert r.exit_code == 0, r.output
    head = r.output.splitlines()[1]
    assert head.split() == [
        "seat",
        "policy",
        "mean",
        "score",
        "[95%",
        "CI]",
        "sd",
        "min",
        "p50",
        "max",
    ]
    assert "1.0000" not in r.output


def test_solo_win_rate_is_null_in_json_batch_tables_and_report(run, tmp_path):
    """A solo run has no per-seat win rate in machine-readable output
    either: null in ``simulate --json`` (was {"estimate": 1.0, ...}), NaN in the batch tables
    (was 1.0 [0.98, 1.0]), and the report skips the win-rate figure with its reason."""
    import math

    import pandas as pd

    from mcsim import stats
    from mcsim.report import build_report

    r = run("simulate", "don-quixote", "-n", 20, "-w", 1, "-q", "--json")
    assert r.exit_code == 0, r.output
    s = json.loads(r.stdout)
    assert s["players"] == 1 and [x["win_rate"] for x in s["seats"]] == [None]
    assert s["seats"][0]["score"]["mean"] > 0
    games = pd.DataFrame({"score_0": [3.0, 5.0], "win_share_0": [1.0, 1.0]})
    assert stats.seat_summaries(games, 1, ["greedy"])[0]["win_rate"] is None
    two = pd.DataFrame(
        {
            "score_0": [3.0, 5.0],
            "win_share_0": [1.0, 0.0],
            "score_1": [2.0, 6.0],
            "win_share_1": [0.0, 1.0],
        }
    )
    assert stats.seat_summaries(two, 2, ["a", "b"])[0]["win_rate"]["estimate"] == 0.5

    plan = tmp_path / "plan.toml"
    plan.write_text('[[experiment]]\nname = "dq"\ngame = "don-quixote"\ngames = 20\nseeds = [3]\n')
    r = run("batch", plan, "--out", tmp_path / "b", "-w", 1)
    assert r.exit_code == 0, r.output
    for table in (
        pd.read_csv(tmp_path / "b" / "results.csv"),
        pd.read_parquet(tmp_path / "b" / "results.parquet"),
    ):
        assert list(table["players"]) == [1]
        for c in ("win_rate", "win_rate_low", "win_rate_high"):
            assert math.isnan(table[c].iloc[0]), c
        assert table["score_mean"].iloc[0] > 0

    rep = build_report("don-quixote", tmp_path / "rep", games=20, seed=1, workers=1)
    assert dict(rep.skipped)["win_rate_by_seat"] == "one player: there is no winner to compare"
    assert "win_rate_by_seat" not in {f.slug for f in rep.figures}
    saved = json.loads((tmp_path / "rep" / "summary.json").read_text())
    assert saved["seats"][0]["win_rate"] is None
    assert {
        "figure": "win_rate_by_seat",
        "reason": "one player: there is no winner to compare",
    } in saved["report"]["skipped"]


# ---------------------------------------------------------------- throughput without compile
def test_games_per_second_excludes_compile_time(monkeypatch):
    """the summary reports the compile time, and games_per_second excludes it."""
    import mcsim
    from mcsim.games import sacred_hill

    real = sacred_hill.play_chunk

    def slow_first_call(prep, first, n, seed):  # a 0.5 s "compile" in the warm-up call
        if n == 0 or not getattr(slow_first_call, "done", False):
            slow_first_call.done = True
            time.sleep(0.5)
        return real(prep, first, n, seed)

    monkeypatch.setattr(sacred_hill, "play_chunk", slow_first_call)
    s = mcsim.simulate("sacred-hill", games=200, seed=1).summary
    assert s["compile_seconds"] >= 0.5
    assert s["games_per_second"] == pytest.approx(
        200 / (s["elapsed_seconds"] - s["compile_seconds"])
    )
