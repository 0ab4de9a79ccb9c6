"""Issue 12: nothing lost, nothing silently wrong (resume, outputs, Ctrl-C, one-seat games).

Each test names the issue item it covers (§1 resume inputs, §2 outputs, §3 Ctrl-C, §5 one-seat
games, §7 throughput and --force).
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli import mcsim_cli
from mcsim.games import get_game

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def run():
    runner = CliRunner()

    def _run(*args):
        return runner.invoke(mcsim_cli, [str(a) for a in args])

    return _run


def one_error_line(result, code, text):
    assert result.exit_code == code, result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("Error: ") and text in lines[0], lines[0]
    assert "Traceback" not in result.output


@pytest.fixture
def two_tile_sets(tmp_path):
    """Two different valid Don Quixote tile sets (rules §6.1 random sets) as files."""
    sets = get_game("don-quixote").ensemble_options(2, 7, str(tmp_path / "sets"))
    return [Path(opts["tiles"]) for _, opts in sets]


# ---------------------------------------------------------------- §1 resume compares inputs
def test_s1_simulate_resume_refuses_replaced_tile_file(run, tmp_path, two_tile_sets):
    """§1: --tiles replaced between the interrupted run and --resume is refused, by name."""
    a, b = two_tile_sets
    t = tmp_path / "t.json"
    shutil.copy(a, t)
    out = tmp_path / "run"
    args = ["simulate", "don-quixote", "-n", 300, "--chunk-size", 100, "--tiles", t,
            "--out", out, "-q", "-w", 1]
    assert run(*args).exit_code == 0
    (out / "part-000000000200.parquet").unlink()  # as if interrupted in the last chunk
    (out / "_summary.json").unlink()
    shutil.copy(b, t)
    r = run(*args, "--resume")
    one_error_line(r, 2, f"cannot resume: {out} holds a run of other inputs (option tiles "
                         f"({t}) has different content now")
    assert not (out / "part-000000000200.parquet").exists()
    shutil.copy(a, t)  # the same file again: resumes
    r = run(*args, "--resume")
    assert r.exit_code == 0, r.output


def test_s1_batch_resume_refuses_changed_cell_options(run, tmp_path, two_tile_sets):
    """§1: a batch cell whose options file changed is not reused by --resume."""
    a, b = two_tile_sets
    t = tmp_path / "t.json"
    shutil.copy(a, t)
    plan = tmp_path / "plan.toml"
    plan.write_text('[[experiment]]\nname = "dq"\ngame = "don-quixote"\ngames = 50\n'
                    'seeds = [1, 2]\noptions = { tiles = "t.json" }\n')
    out = tmp_path / "out"
    assert run("batch", plan, "--out", out, "-q", "-w", 1).exit_code == 0
    (out / "experiments" / "dq-001.json").unlink()  # interrupted during the second cell
    shutil.copy(b, t)
    r = run("batch", plan, "--out", out, "-q", "-w", 1, "--resume")
    one_error_line(r, 1, f"cannot resume: cell dq-000 in {out} was played with other inputs "
                         f"(option tiles ({t}) has different content now")
    assert not (out / "experiments" / "dq-001.json").exists()


# ---------------------------------------------------------------- §2 outputs checked before play
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


def test_s2_read_only_out_fails_before_any_game_naming_the_users_path(run, read_only, no_play):
    """§2: --out / --record-out in a read-only folder: one line naming the user's path, no play."""
    r = run("simulate", "sacred-hill", "-n", 2000, "--out", read_only / "t.parquet", "-q")
    one_error_line(r, 1, f"cannot write --out {read_only / 't.parquet'}: Permission denied")
    r = run("simulate", "sacred-hill", "-n", 2000, "--record", 1, "--record-out",
            read_only / "r.json", "-q")
    one_error_line(r, 1, f"cannot write --record-out {read_only / 'r.json'}: Permission denied")
    r = run("report", "sacred-hill", "-n", 200, "--out", read_only / "rep", "-q")
    one_error_line(r, 1, f"cannot write --out {read_only / 'rep'}: Permission denied")


def test_s2_failed_record_write_leaves_no_table(run, tmp_path, read_only, monkeypatch):
    """§2: --out table + manifest + --record-out are committed together: when the record cannot
    be written (the folder turned read-only after the check), no table or manifest is left."""
    monkeypatch.setattr("mcsim.outputs.probe_folder", lambda *a: None, raising=False)
    table = tmp_path / "partial.parquet"
    r = run("simulate", "sacred-hill", "-n", 100, "--out", table, "--record", 1,
            "--record-out", read_only / "r.json", "-q")
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert f"--record-out {read_only / 'r.json'}" in r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ro"]
    assert list(read_only.iterdir()) == []


def test_s2_batch_plan_limits_fail_in_dry_run_naming_the_plan_key(run, tmp_path, no_play):
    """§2: every limit simulate enforces applies to plan cells, named by the plan key."""
    plan = tmp_path / "plan.toml"
    plan.write_text('[[experiment]]\nname = "big"\ngame = "sacred-hill"\n'
                    'games = [100, 1000000000000000]\n')
    r = run("batch", plan, "--dry-run")
    one_error_line(r, 1, "experiment 'big' (#1), cell 1 (sacred-hill, players=default, "
                         "policies=random, variant=default readings): 'games' must be at most "
                         "1,000,000,000,000 (10**12), not 1,000,000,000,000,000")
    assert "--games" not in r.output


def test_s7_existing_out_needs_force(run, tmp_path):
    """§7: an existing --out file, --record-out file or report folder is not overwritten
    without --force; --force with --resume is refused (one starts over, one continues)."""
    out = tmp_path / "t.csv"
    out.write_text("keep\n")
    r = run("simulate", "sacred-hill", "-n", 50, "--out", out, "-q")
    one_error_line(r, 1, f"--out {out} exists; use --force to overwrite it")
    assert out.read_text() == "keep\n"
    r = run("simulate", "sacred-hill", "-n", 50, "--out", out, "-q", "--force")
    assert r.exit_code == 0 and out.read_text().startswith("game_index,")
    rec = tmp_path / "r.json"
    rec.write_text("keep")
    r = run("simulate", "sacred-hill", "-n", 50, "--record", 1, "--record-out", rec, "-q")
    one_error_line(r, 1, f"--record-out {rec} exists; use --force to overwrite it")
    rep = tmp_path / "rep"
    rep.mkdir()
    (rep / "notes.txt").write_text("mine")
    r = run("report", "sacred-hill", "-n", 50, "--out", rep, "-q")
    one_error_line(r, 1, f"--out {rep} is not empty; use --force to replace its contents")
    assert [p.name for p in rep.iterdir()] == ["notes.txt"]
    r = run("report", "sacred-hill", "-n", 50, "--out", rep, "-q", "--force")
    assert r.exit_code == 0, r.output
    assert "notes.txt" not in {p.name for p in rep.iterdir()}
    assert (rep / "report.html").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    r = run("simulate", "sacred-hill", "-n", 50, "--out", tmp_path / "d", "--resume", "--force")
    one_error_line(r, 2, "--force starts over and --resume continues")
