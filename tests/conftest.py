"""Fixtures shared by the test files."""

import pytest
from click.testing import CliRunner

from cli import mcsim_cli


@pytest.fixture
def run():
    """Invoke the ``mcsim`` command line in-process: ``run(*args) -> click.testing.Result``."""
    runner = CliRunner()

    def _run(*args):
        return runner.invoke(mcsim_cli, [str(a) for a in args])

    return _run


def one_error_line(result, code, text):
    """Assert that a command failed with exit ``code`` and exactly one line, ``Error: ...text...``,
    and no traceback."""
    assert result.exit_code == code, result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("Error: ") and text in lines[0], lines[0]
    assert "Traceback" not in result.output


# The suite runs on every core with pytest-xdist (``-n auto --dist loadgroup
# --no-loadscope-reorder`` in pyproject.toml). Most of a cold run is Numba compiling each game's
# kernels once. So that a game's kernels compile in one worker only, every test of one game goes
# to the same worker: its group is the first game named in the test's id (file name, parameter
# or doctest module). The game groups run first, the slowest to compile first; tests that name
# no game form one group per file and run last, when the kernels they use are in the cache.
_GAME_KEYS = ("carcassonne", "el_grande", "thurn_and_taxis", "don_quixote", "sacred_hill")


def game_group(nodeid: str) -> str:
    """The xdist group of a test id: the first game key in it, else ``"other:<file>"``.

    >>> game_group("tests/test_golden_tables.py::test_table[el-grande-random-4p]")
    'el_grande'
    >>> game_group("tests/test_stats.py::test_wilson")
    'other:tests/test_stats.py'
    """
    key = nodeid.lower().replace("-", "_")
    hits = [(key.find(g), g) for g in _GAME_KEYS if g in key]
    return min(hits)[1] if hits else "other:" + nodeid.split("::")[0]


def _group_rank(group: str) -> int:
    return _GAME_KEYS.index(group) if group in _GAME_KEYS else len(_GAME_KEYS)


def pytest_collection_modifyitems(config, items):
    groups = {id(item): game_group(item.nodeid) for item in items}
    for item in items:
        item.add_marker(pytest.mark.xdist_group(groups[id(item)]))
    items.sort(key=lambda item: _group_rank(groups[id(item)]))
