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
