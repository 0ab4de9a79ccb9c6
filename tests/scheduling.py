"""How the suite is spread over pytest-xdist workers (hooked in by tests/conftest.py)."""

import pytest
from xdist.scheduler import LoadScopeScheduling

# The suite runs on every core with pytest-xdist (``-n auto --dist loadscope
# --no-loadscope-reorder`` in pyproject.toml). Most of a cold run is Numba compiling each game's
# kernels once. So that a game's kernels compile in one worker only, every test of one game goes
# to the same worker: its scope is the first game named in the test's id (file name, parameter
# or doctest module), see ``pytest_xdist_make_scheduler`` below. The game scopes run first, the
# slowest to compile first; tests that name no game form one scope per file and run last, when
# the kernels they use are in the cache.
_GAME_KEYS = ("carcassonne", "el_grande", "thurn_and_taxis", "don_quixote", "sacred_hill")


#: test files of a game that form a scope of their own (``<game>:<file>``), run beside the
#: game's other tests: Don Quixote's restricted-play tests compile the kernels' restricted
#: variants (an ``out_forbid`` array given), which no other Don Quixote test compiles, about two
#: minutes that would otherwise come on top of the game's scope in one worker
_OWN_SCOPE = ("tests/test_don_quixote_restricted_play.py",)


def game_group(nodeid: str) -> str:
    """The xdist scope of a test id: the first game key in it, else ``"other:<file>"``; a file
    of ``_OWN_SCOPE`` is ``"<game>:<file>"``.

    >>> game_group("tests/test_golden_tables.py::test_table[el-grande-random-4p]")
    'el_grande'
    >>> game_group("tests/test_stats.py::test_wilson")
    'other:tests/test_stats.py'
    >>> game_group("tests/test_don_quixote_restricted_play.py::test_x")
    'don_quixote:tests/test_don_quixote_restricted_play.py'
    """
    key = nodeid.lower().replace("-", "_")
    hits = [(key.find(g), g) for g in _GAME_KEYS if g in key]
    if not hits:
        return "other:" + nodeid.split("::")[0]
    game = min(hits)[1]
    path = nodeid.split("::")[0]
    return f"{game}:{path}" if path in _OWN_SCOPE else game


def _group_rank(group: str) -> int:
    game = group.split(":")[0]
    return _GAME_KEYS.index(game) if game in _GAME_KEYS else len(_GAME_KEYS)


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: _group_rank(game_group(item.nodeid)))


class GameScheduling(LoadScopeScheduling):
    """xdist's ``loadscope`` scheduling with ``game_group`` as the scope of a test id."""

    def _split_scope(self, nodeid: str) -> str:
        return game_group(nodeid)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Schedule each game's tests on one worker (:class:`GameScheduling`).

    (The ``xdist_group`` mark of ``--dist loadgroup`` does not work with pytest 9.2 and
    pytest-xdist 3.8: the group suffix xdist writes into ``item._nodeid`` is lost, as pytest
    now keeps the id in ``item._id``.)
    """
    return GameScheduling(config, log)
