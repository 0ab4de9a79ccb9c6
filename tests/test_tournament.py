"""Tournaments: lineups, the rating fit, the command."""

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from cli import mcsim_cli
from mcsim.errors import ConfigError
from mcsim.tournament import ELO_PER_NAT, fit_ratings, lineups, tournament


def test_lineups_put_every_policy_in_every_seat():
    for players in (2, 3, 4, 5):
        plan = lineups(["a", "b", "c"], players)
        for pol in "abc":
            for other in "abc":
                if pol == other:
                    continue
                pair = [lu for lu in plan if set(lu) == {pol, other}]
                seats = [sum(lu[s] == pol for lu in pair) for s in range(players)]
                assert len(set(seats)) == 1, (players, pol, other, seats)
    # every seating of the pair over 4 seats (2**4 - 2), not only the alternating a-b-a-b ones
    assert len(lineups(["a", "b"], 4)) == 14


def test_fit_recovers_known_ratings_and_seat_effect():
    """Expected win counts from known parameters give back exactly those parameters."""
    r_true = np.array([0.3, -0.1, -0.2])  # mean 0
    h_true = np.array([0.0, -0.15, 0.05])
    plan = lineups(["0", "1", "2"], 3)
    idx = [[int(p) for p in lu] for lu in plan]
    n = 10_000
    wins = []
    for pol in idx:
        z = r_true[pol] + h_true
        p = np.exp(z) / np.exp(z).sum()
        wins.append(list(n * p))
    r, h, r_se, h_se = fit_ratings([n] * len(plan), idx, wins, 3, 3)
    assert r == pytest.approx(r_true, abs=1e-8)
    assert h == pytest.approx(h_true, abs=1e-8)
    assert (r_se > 0).all() and h_se[0] == 0 and (h_se[1:] > 0).all()


def test_two_player_bradley_terry_closed_form():
    """2 seats, A-B and B-A with A winning 70% in both seats: r_A - r_B = logit(0.7), h = 0."""
    r, h, _, _ = fit_ratings([1000, 1000], [[0, 1], [1, 0]], [[700, 300], [300, 700]], 2, 2)
    assert r[0] - r[1] == pytest.approx(math.log(0.7 / 0.3), abs=1e-9)
    assert h[1] == pytest.approx(0.0, abs=1e-9)


def test_sacred_hill_tournament():
    t = tournament("sacred-hill", ["random", "tactician"], games=400, seed=2)
    assert [lu["policies"] for lu in t["lineups"]] == [
        ["random", "tactician"],
        ["tactician", "random"],
    ]
    m = t["matrix"]
    assert m[0][0] is None and m[0][1]["estimate"] + m[1][0]["estimate"] == pytest.approx(1.0)
    elo = {e["policy"]: e for e in t["elo"]}
    assert elo["tactician"]["low"] > elo["random"]["high"]
    assert (elo["tactician"]["rating"] + elo["random"]["rating"]) / 2 == pytest.approx(1500)
    # seat effect in Elo equals the fitted logit difference
    assert t["seat_effect"][0]["elo"] == 0.0
    assert t["seat_effect"][1]["elo"] < 0  # the second player is at a disadvantage
    assert pytest.approx(173.7178, abs=1e-4) == ELO_PER_NAT


def test_tournament_needs_two_policies():
    with pytest.raises(ConfigError, match="at least two different"):
        tournament("sacred-hill", ["random", "random"], games=10)


def test_tournament_refuses_one_policy_written_two_ways(monkeypatch):
    """``mcts`` and ``mcts:iterations=<its default>`` are one player: refused before any game;
    one parameter apart they are two."""
    from mcsim.games import sacred_hill

    b = next(q.default for q in sacred_hill.SPEC.policy("mcts").params if q.name == "iterations")
    monkeypatch.setattr(sacred_hill, "play_chunk", lambda *a, **k: pytest.fail("a game played"))
    twin = f"mcts:iterations={b:g}"
    with pytest.raises(ConfigError, match=f"mcts and {twin} are the same policy"):
        tournament("sacred-hill", ["random", "mcts", twin], games=10)
    # a restriction named or given as its mask is one player too
    opt = sacred_hill.SPEC.restrictions[0].name
    with pytest.raises(ConfigError, match="are the same policy"):
        tournament("sacred-hill", [f"random:forbid={opt}", "random:forbid_mask=1"], games=1)
    monkeypatch.undo()
    t = tournament("sacred-hill", ["mcts", f"mcts:iterations={b + 1:g}"], games=1)
    assert len(t["elo"]) == 2
    # parameters that differ in the 7th digit are two players, with two labels
    t = tournament("sacred-hill", ["greedy:eps=0.1234567", "greedy:eps=0.1234568"], games=1)
    assert [e["policy"] for e in t["elo"]] == ["greedy:eps=0.1234567", "greedy:eps=0.1234568"]


def test_tournament_cli():
    r = CliRunner().invoke(
        mcsim_cli,
        ["tournament", "sacred-hill", "-p", "random", "-p", "greedy", "-n", "200", "-q", "--json"],
    )
    assert r.exit_code == 0, r.output
    t = json.loads(r.stdout)
    assert t["games_per_lineup"] == 200 and len(t["elo"]) == 2
    r = CliRunner().invoke(mcsim_cli, ["tournament", "sacred-hill", "-p", "random", "-n", "20"])
    assert r.exit_code == 2 and r.output.strip() == (
        "Error: a tournament needs at least two different --policy values"
    )


def test_ratings_stay_finite_when_a_policy_wins_every_game():
    """Seed 4, 4 games per lineup: the tactician wins all 8; the plain maximum-likelihood
    rating would be infinite, the 0.5 pseudo-wins keep it finite (found by a fresh-user test)."""
    t = tournament("sacred-hill", ["random", "tactician"], games=4, seed=4)
    assert t["matrix"][1][0]["estimate"] == 1.0
    for e in t["elo"] + t["seat_effect"]:
        for key in ("low", "high"):
            assert abs(e[key] - (1500 if "rating" in e else 0)) < 1000, e
    elo = {e["policy"]: e["rating"] for e in t["elo"]}
    assert elo["tactician"] > elo["random"]
