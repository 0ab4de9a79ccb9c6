"""Results do not change unless a change says so: every game, policy and variant value replays its
saved per-game table exactly (the configurations and how to regenerate them are in
``tests/golden_tables.py``)."""

import pandas as pd
import pytest

from mcsim.games import all_games, get_game
from mcsim.games.base import KEPT_MCTS
from tests.golden_tables import configs, load, play

GAME_IDS = [m.SPEC.id for m in all_games()]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_saved_configurations_are_the_current_ones(game_id):
    """A new policy or variant value must be added to the golden tables on purpose."""
    assert sorted(load(game_id)) == sorted(c for c, *_ in configs(game_id))


def _kept_is_mcts(game_id: str) -> bool:
    """``mcts1`` has the kernel id and parameters of ``mcts`` (its games are ``mcts``'s)."""
    spec = get_game(game_id).SPEC
    mcts, kept = spec.policy("mcts"), spec.policy(KEPT_MCTS)
    return kept.id == mcts.id and kept.params == mcts.params


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_per_game_tables_identical(game_id):
    saved = load(game_id)
    same = _kept_is_mcts(game_id)
    for config, policy, players, variant in configs(game_id):
        if config not in saved:
            continue  # reported by test_saved_configurations_are_the_current_ones
        if policy == KEPT_MCTS and same:
            # the same games as the mcts replay below checks, whose saved table equals this
            # one (test_mcts1_table_is_the_mcts_table_while_they_share_parameters); replaying
            # both would cost the suite about 20 CPU seconds of search for nothing
            continue
        got = play(game_id, policy, players, variant)
        pd.testing.assert_frame_equal(got, saved[config], obj=f"{game_id} {config}")


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_mcts1_table_is_the_mcts_table_while_they_share_parameters(game_id):
    """``mcts1`` is the ``mcts`` of 2026-12-02 (``mcsim.games.base.kept_mcts``): its saved table
    is that day's ``mcts`` table of the default configuration, so while the two policies have
    the same kernel id and parameters the saved ``mcts`` table must be the same table too
    (once ``mcts`` changes, ``mcts1``'s table stays that day's and only its replay checks it)."""
    spec = get_game(game_id).SPEC
    mcts, kept = spec.policy("mcts"), spec.policy(KEPT_MCTS)
    assert kept.id == mcts.id
    default = f"{spec.default_players}p/default"
    saved = load(game_id)
    assert f"{KEPT_MCTS}/{default}" in saved
    if kept.params == mcts.params:
        pd.testing.assert_frame_equal(saved[f"{KEPT_MCTS}/{default}"], saved[f"mcts/{default}"])
