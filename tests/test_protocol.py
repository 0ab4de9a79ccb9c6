"""Every registered game implements the whole game protocol
(``mcsim.games.base.GameModule``) with the documented signatures, so the runner, CLI, report,
evaluate and batch call its hooks without checking that they exist."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import mcsim.show
from mcsim.errors import ConfigError
from mcsim.games import REGISTRY, all_games, get_game
from mcsim.games.base import GameModule, GameSpec, ReplayResult, replay_result

GAMES = list(REGISTRY)

#: the protocol's methods and constants (read from the class, so a new hook is checked too)
METHODS = sorted(
    n for n, v in vars(GameModule).items() if inspect.isfunction(v) and not n.startswith("_")
)
CONSTANTS = sorted(GameModule.__annotations__)


def test_protocol_lists_every_hook_the_code_calls():
    """The protocol names the 14 functions and 8 constants the rest of the code (and the kernel
    test battery, ``search_start``) uses."""
    assert METHODS == [
        "check_config",
        "ensemble_options",
        "finalize_summary",
        "format_replay",
        "format_summary",
        "partial_summary",
        "perft",
        "play_chunk",
        "prepare",
        "record_games",
        "replay",
        "search_start",
        "show_frames",
        "summarize",
    ]
    assert CONSTANTS == [
        "CHARTS",
        "CHUNK_MULTIPLE",
        "CHUNK_SIZE",
        "EVALUATE_BANDS",
        "EVALUATE_GROUPS",
        "OPTIONS",
        "ORACLE_POLICY",
        "SPEC",
    ]


@pytest.mark.parametrize("game", GAMES)
def test_game_implements_every_hook_with_its_signature(game):
    """Each hook is present and callable; its parameters begin with the protocol's (same names,
    same order) and any further parameter has a default, so the protocol's call works."""
    module = get_game(game)
    assert isinstance(module, GameModule)
    for name in METHODS:
        fn = getattr(module, name)
        assert callable(fn), name
        want = list(inspect.signature(getattr(GameModule, name)).parameters.values())[1:]
        got = list(inspect.signature(fn).parameters.values())
        assert [p.name for p in got[: len(want)]] == [p.name for p in want], (game, name)
        for w, g in zip(want, got):
            assert (g.default is inspect.Parameter.empty) <= (
                w.default is inspect.Parameter.empty
            ), (game, name, g.name)  # a parameter optional in the protocol is optional here
        assert all(p.default is not inspect.Parameter.empty for p in got[len(want) :]), (
            game,
            name,
        )


@pytest.mark.parametrize("game", GAMES)
def test_game_constants_have_their_types(game):
    m = get_game(game)
    assert isinstance(m.SPEC, GameSpec) and m.SPEC.id == game
    assert isinstance(m.OPTIONS, dict) and all(isinstance(v, str) for v in m.OPTIONS.values())
    assert isinstance(m.CHUNK_SIZE, int) and m.CHUNK_SIZE >= 1
    assert isinstance(m.CHUNK_MULTIPLE, int) and m.CHUNK_MULTIPLE >= 1
    assert isinstance(m.EVALUATE_BANDS, tuple)
    assert isinstance(m.EVALUATE_GROUPS, dict)
    assert m.ORACLE_POLICY is None or m.SPEC.policy(m.ORACLE_POLICY)
    slugs = [slug for slug, fn in m.CHARTS if callable(fn)]
    assert len(slugs) == len(m.CHARTS) >= 1
    assert all(s.startswith(m.SPEC.summary_key + "_") for s in slugs)


@pytest.mark.parametrize("game", GAMES)
def test_drawer_is_in_the_game_package(game):
    """The ``mcsim show`` drawer is the package's own ``show`` module, reached only
    through the ``show_frames`` hook."""
    package = REGISTRY[game]
    drawer = importlib.import_module(f"mcsim.games.{package}.show")
    assert get_game(game).show_frames is drawer.frames


def test_show_package_holds_no_game():
    """``mcsim/show/`` holds only the game-independent parts (a new game adds nothing
    there) and keeps no table of games."""
    assert sorted(m.name for m in pkgutil.iter_modules(mcsim.show.__path__)) == [
        "base",
        "examples",
        "page",
    ]
    assert not hasattr(mcsim.show, "DRAWERS")


def test_all_games_is_the_registry_in_order():
    assert [m.SPEC.id for m in all_games()] == GAMES


@pytest.mark.parametrize("game", [g for g in GAMES if g != "don-quixote"])
def test_games_without_an_ensemble_refuse_one_by_name(game):
    with pytest.raises(ConfigError, match=f"^{game} has no component ensemble$"):
        get_game(game).ensemble_options(1, 0)


def test_replay_result_reads_like_its_dict_and_checks_recorded_points():
    fields = {"finished": True, "turns": 3, "points": [3, 1], "winner": 0}
    r = replay_result({"points": [3, 1]}, fields)
    assert isinstance(r, ReplayResult)
    assert (r.finished, r.points, r.winner) == (True, [3, 1], 0)
    assert r == fields and list(r) == ["finished", "turns", "points", "winner"]
    assert r.as_dict() == fields and r.as_dict() is not fields
    with pytest.raises(Exception, match=r"record says points \[3, 2\], replay gives \[3, 1\]"):
        replay_result({"points": [3, 2]}, fields)
    assert replay_result({}, {"finished": False, "points": None}).winner is None
