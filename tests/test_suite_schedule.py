"""The suite's own scheduling (tests/scheduling.py, hooked in tests/conftest.py): with pytest-xdist, all tests of one game run
in one worker, so each game's kernels compile once per run."""

import re
import subprocess
import sys
from pathlib import Path

from tests.scheduling import game_group

ROOT = Path(__file__).resolve().parent.parent


def test_game_scopes():
    ids = {
        "tests/test_golden_tables.py::test_per_game_tables_identical[thurn-and-taxis]": (
            "thurn_and_taxis"
        ),
        "tests/test_carcassonne_mcts.py::test_mcts_does_not_peek[9]": "carcassonne",
        "kernels/el_grande/rules.py::kernels.el_grande.rules.engine": "el_grande",
        "tests/test_all_games.py::test_x[don-quixote-sacred-hill]": "don_quixote",
        "tests/test_stats.py::test_wilson": "other:tests/test_stats.py",
    }
    assert {i: game_group(i) for i in ids} == ids


def test_one_worker_runs_all_tests_of_a_game(tmp_path):
    """A real run on two xdist workers: the 8 tests of a file named for Sacred Hill all run in
    one worker, although a plain ``load`` scheduling would spread them over both. (Fails if
    xdist ignores the scheduler of tests/scheduling.py, as it ignored ``xdist_group`` marks.)"""
    (tmp_path / "conftest.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
        "from tests.scheduling import pytest_collection_modifyitems, pytest_xdist_make_scheduler\n"
    )
    body = "".join(f"def test_{i}():\n    pass\n\n\n" for i in range(8))
    (tmp_path / "test_sacred_hill_x.py").write_text(body)
    (tmp_path / "test_plain.py").write_text(body)
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "-v", "-p", "no:cacheprovider"]
        + ["-o", "addopts=", "--rootdir", str(tmp_path), str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    workers = set(re.findall(r"\[(gw\d)\] .* PASSED test_sacred_hill_x\.py", r.stdout))
    assert len(workers) == 1, r.stdout
