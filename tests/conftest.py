"""Fixtures shared by the test files."""

import pytest
from click.testing import CliRunner

from cli import mcsim_cli
from mcsim.runner import quiet_collector
from tests.scheduling import (  # noqa: F401 (pytest hooks)
    pytest_collection_modifyitems,
    pytest_xdist_make_scheduler,
)


def pytest_configure(config):
    """The collector settings of the command line (``quiet_collector``): Numba compiles about
    15-20% faster, in every xdist worker."""
    quiet_collector()


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
