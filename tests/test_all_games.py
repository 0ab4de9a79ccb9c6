"""One sweep over every registered game (OpenSpiel's games_sim_test): random games to the end,
scores and lengths sane, determinism across worker counts, records replay to the run's result."""

import json

import numpy as np
import pandas as pd
import pytest

import mcsim
from mcsim.games import all_games

GAMES = all_games()
IDS = [g.SPEC.id for g in GAMES]


@pytest.fixture(params=GAMES, ids=IDS)
def game(request):
    return request.param


def test_spec_is_consistent(game):
    s = game.SPEC
    assert s.min_players <= s.default_players <= s.max_players
    assert s.policies and s.policies[0].name == "random"
    # one kernel id per policy, except ``mcts1``: today's ``mcts`` kept, the same kernel code
    ids = [p.id for p in s.policies if p.name != "mcts1"]
    assert len(set(ids)) == len(ids)
    assert s.policy("mcts1").id == s.policy("mcts").id
    for v in s.variants:
        assert v.default in v.choices


def test_random_games_every_player_count(game):
    s = game.SPEC
    for players in range(s.min_players, s.max_players + 1):
        r = mcsim.simulate(s.id, games=20, seed=3, players=players)
        g = r.games
        assert len(g) == 20
        shares = g[[f"win_share_{k}" for k in range(players)]].to_numpy()
        assert np.allclose(shares.sum(axis=1), 1.0)
        assert (g["length_plies"] > 0).all() and (g["length_plies"] <= s.max_plies).all()
        scores = g[[f"score_{k}" for k in range(players)]].to_numpy(dtype=float)
        assert np.isfinite(scores).all()
        assert r.summary["players"] == players and len(r.summary["seats"]) == players
        assert s.summary_key in r.summary


def test_deterministic_across_workers(game):
    s = game.SPEC
    a = mcsim.simulate(s.id, games=24, seed=5, workers=1)
    b = mcsim.simulate(s.id, games=24, seed=5, workers=2, chunk_size=5)
    pd.testing.assert_frame_equal(a.games, b.games)


def test_records_replay_to_run_result(game):
    s = game.SPEC
    r = mcsim.simulate(s.id, games=6, seed=8, record=3)
    assert len(r.records) == 3
    for i, rec in enumerate(r.records):
        out = game.replay(json.loads(json.dumps(rec)))
        assert out["finished"] is True
        row = r.games.iloc[i]
        expected = [row[f"score_{k}"] for k in range(r.summary["players"])]
        assert list(out["points"]) == pytest.approx(expected)


def _close(a, b, path="block"):
    """Recursive comparison: equal structure, numbers equal up to float rounding."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), path
        for k in a:
            _close(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, (int, float)):
        assert (np.isnan(a) and np.isnan(b)) or a == pytest.approx(b, rel=1e-9, abs=1e-12), path
    else:
        assert a == b, path


def test_chunk_merged_summary_equals_whole_table(game):
    """Partial aggregates merged over chunks give the whole table's summary."""
    s = game.SPEC
    players = s.max_players
    r = mcsim.simulate(s.id, games=60, seed=13, players=players, chunk_size=7, keep_games=True)
    whole = game.finalize_summary(game.partial_summary(r.games, r.prepared), r.prepared)
    _close(r.summary[s.summary_key], whole)
    bounded = mcsim.simulate(
        s.id, games=60, seed=13, players=players, chunk_size=7, keep_games=False
    )
    assert bounded.games is None
    _close(bounded.summary[s.summary_key], whole)


def test_carcassonne_gift_tallies_merge_over_chunks():
    """The gift part of the Carcassonne block merges over chunks too (gifts=true)."""
    from mcsim.games import get_game

    g = get_game("carcassonne")
    r = mcsim.simulate(
        "carcassonne", games=30, seed=2, chunk_size=4, variant={"gifts": "true"}, keep_games=True
    )
    whole = g.finalize_summary(g.partial_summary(r.games, r.prepared), r.prepared)
    assert "gifts" in whole
    _close(r.summary["carcassonne"], whole)


def _bump_recorded_points(game_id: str, rec: dict) -> None:
    """Make a record's recorded result one point off (each game records it in its own field)."""
    if game_id == "don-quixote":
        rec["players"][0]["total"] += 1
    elif game_id == "thurn-and-taxis":
        rec["scores"][0] += 1
    else:
        rec["points"][0] += 1


def test_replay_errors_share_their_wording(game, tmp_path):
    """The same problem reads the same in every game's ``mcsim replay`` (one ``Error:`` line,
    exit 1): not a record of this game, a record variant the game lacks, recorded points that
    differ from the replay (``record says <field> X, replay gives Y``)."""
    import re

    from click.testing import CliRunner

    from cli import mcsim_cli

    s = game.SPEC
    rec = json.loads(json.dumps(mcsim.simulate(s.id, games=1, seed=4, record=1).records[0]))
    f = tmp_path / "r.json"

    def error_of(doc) -> str:
        f.write_text(json.dumps(doc))
        res = CliRunner().invoke(mcsim_cli, ["replay", s.id, str(f)])
        lines = [ln for ln in res.output.splitlines() if ln.strip()]
        # the message names the record file as given, then says what is wrong with it
        assert res.exit_code == 1 and len(lines) == 1 and lines[0].startswith(f"Error: {f}: ")
        return lines[0][len(f"Error: {f}: ") :]

    not_this = (
        f'not an? {re.escape(s.id)} record \\(expected {{"game": "{re.escape(s.id)}", ...}}\\)'
    )
    assert re.fullmatch(not_this, error_of(dict(rec, game="other-game")))
    assert re.fullmatch(not_this, error_of(5))
    assert error_of(dict(rec, variant={"nope": "1"})).startswith(
        f"unknown variant 'nope' for {s.id}"
    )
    bad = json.loads(json.dumps(rec))
    _bump_recorded_points(s.id, bad)
    assert re.fullmatch(
        r"(player 0: )?record says (points|scores|total) \S.*, replay gives \S.*", error_of(bad)
    )


def test_mcts1_reaches_the_kernel_as_mcts_does(game):
    """``mcts1`` (``mcsim.games.base.kept_mcts``: the ``mcts`` of 2026-12-02) is prepared into
    the same kernel policy id and parameter row as ``mcts`` at the same parameters: the kernel
    cannot tell them apart. Where ``mcts``'s defaults changed since (Sacred Hill), ``mcts1``
    is ``mcts`` at that day's values."""
    from mcsim.runner import resolve_config

    s = game.SPEC
    mcts, kept = s.policy("mcts"), s.policy("mcts1")
    same = ",".join(f"{q.name}={q.show(q.default)}" for q in kept.params)
    n = s.default_players
    _, c1 = resolve_config(s.id, n, ["mcts1"] * n)
    _, c0 = resolve_config(s.id, n, [f"mcts:{same}"] * n)
    p1, p0 = game.prepare(c1), game.prepare(c0)
    assert p1.policy_ids.tolist() == p0.policy_ids.tolist()
    np.testing.assert_array_equal(p1.policy_params, p0.policy_params)
    if kept.params == mcts.params:
        assert same == ",".join(f"{q.name}={q.show(q.default)}" for q in mcts.params)
