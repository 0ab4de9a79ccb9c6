"""Recorded points are checked once, by every game's ``replay()``.

shared/DESIGN.md (Records): a record's optional ``"points"`` must equal its replay's final points;
``mcsim.games.base.check_recorded_points`` does it at the end of each game's ``replay()``, so the
Python API refuses what ``mcsim replay`` refuses, and the CLI does not check them again.
"""

import pytest

import mcsim
from mcsim.errors import InvalidRecordError
from mcsim.games import all_games, get_game


@pytest.mark.parametrize("game", [m.SPEC.id for m in all_games()])
def test_replay_refuses_wrong_recorded_points(game):
    module = get_game(game)
    rec = mcsim.simulate(game, games=1, seed=3, record=1, workers=1).records[0]
    out = module.replay(rec)
    assert out["finished"] and out["points"] is not None
    rec["points"] = [int(p) + 1 for p in out["points"]]
    with pytest.raises(InvalidRecordError, match=r"record says points \["):
        module.replay(rec)
    rec["points"] = ["x"] * len(out["points"])
    with pytest.raises(InvalidRecordError, match='"points" must be a list of numbers'):
        module.replay(rec)
