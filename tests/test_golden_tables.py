"""Results do not change unless a change says so: every game, policy and variant value replays its
saved per-game table exactly (the configurations and how to regenerate them are in
``tests/golden_tables.py``)."""

import pandas as pd
import pytest

from mcsim.games import all_games
from tests.golden_tables import configs, load, play

GAME_IDS = [m.SPEC.id for m in all_games()]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_saved_configurations_are_the_current_ones(game_id):
    """A new policy or variant value must be added to the golden tables on purpose."""
    assert sorted(load(game_id)) == sorted(c for c, *_ in configs(game_id))


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_per_game_tables_identical(game_id):
    saved = load(game_id)
    for config, policy, players, variant in configs(game_id):
        if config not in saved:
            continue  # reported by test_saved_configurations_are_the_current_ones
        got = play(game_id, policy, players, variant)
        pd.testing.assert_frame_equal(got, saved[config], obj=f"{game_id} {config}")
