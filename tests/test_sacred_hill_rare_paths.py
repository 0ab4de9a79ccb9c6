"""Sacred Hill rare rule paths, found in simulated games and checked by the naive implementation.

docs/rules/sacred_hill.md §3.2-§3.5. Every game of the named configurations is
replayed by tests/sacred_hill_naive.py (the rules coded again from the rules file, no kernel code):
each recorded move must be one the naive rules allow, and the naive points must equal the record's.

Configurations (records of every game; counts at the commit that added this file):

* ``RANDOM``: random vs random, box / knight12, seed 5, games 0-299.
* ``HEURISTIC``: greedy vs tactician, box / knight12, seed 5, games 0-299.
* ``WEB2014``: random vs random, transition=web2014, seed 5, games 0-299.
"""

import random

import numpy as np
import pytest

import mcsim
from mcsim.errors import IllegalMoveError
from mcsim.games import sacred_hill as SH
from tests.sacred_hill_naive import HILLS, Game, bits, random_game

RANDOM = dict(policies=["random"], variant={}, seed=5, games=300)
HEURISTIC = dict(policies=["greedy", "tactician"], variant={}, seed=5, games=300)
WEB2014 = dict(policies=["random"], variant={"transition": "web2014"}, seed=5, games=300)


def _checked(cfg):
    """Per game ``(record, counts)``: the naive rules accept every move and give the points."""
    r = mcsim.simulate("sacred-hill", record=cfg["games"], workers=1, **cfg)
    out = []
    for i, rec in enumerate(r.records):
        g = Game(**cfg["variant"])
        c = dict(
            grace=0,
            multi_capture=0,
            both_capture=0,
            capture=0,
            pass_=0,
            anywhere=0,
            onto_besieged=0,
        )
        for m in rec["moves"]:
            p = g.to_move
            c["grace"] += g.phase[p] == "G" and g.forced() == "manoeuvre"
            c["multi_capture"] += len(g.besieged_by(p)) > 1
            c["both_capture"] += bool(g.besieged_by(p)) and bool(g.besieged_by(1 - p))
            c[
                {"capture": "capture", "pass": "pass_", "anywhere": "anywhere"}.get(
                    g.forced(), "grace"
                )
            ] += g.forced() in ("capture", "pass", "anywhere")
            g.play(m)  # asserts the move is legal by the naive rules
        c["onto_besieged"] = g.onto_besieged
        c["forts"] = list(g.forts)
        k = [g.kingdoms(0), g.kingdoms(1)]
        c["territory_decides"] = int(k[0] == k[1])
        c["last_seat"] = (len(rec["moves"]) - 1) % 2
        assert g.over() and g.points() == rec["points"], f"game {i}"
        out.append((rec, c))
    return out


@pytest.fixture(scope="module")
def games():
    return {
        name: _checked(cfg)
        for name, cfg in (("random", RANDOM), ("heuristic", HEURISTIC), ("web2014", WEB2014))
    }


def _n(gs, key):
    return sum(1 for _, c in gs if c[key] > 0)


def test_s3_3_1_mandatory_capture_and_several_pending(games):
    """docs/rules/sacred_hill.md §3.3.1, §7 A3: a besieged enemy lone fort must be captured;
    with several pending the player picks one (RANDOM: captures in 276 of 300 games, several
    pending in 4 games; HEURISTIC: 288 and 19)."""
    assert _n(games["random"], "capture") > 0 and _n(games["heuristic"], "capture") > 0
    assert _n(games["random"], "multi_capture") > 0 and _n(games["heuristic"], "multi_capture") > 0


def test_s3_4_forced_pass_at_the_end(games):
    """docs/rules/sacred_hill.md §3.3.4, §3.4, §7 A4: with the board full and only the
    opponent holding captures, the player passes (RANDOM: 37 games, HEURISTIC: 40)."""
    assert _n(games["random"], "pass_") > 0 and _n(games["heuristic"], "pass_") > 0


def test_s3_3_3_build_anywhere_and_onto_a_besieged_hill(games):
    """docs/rules/sacred_hill.md §3.3.3, fig. 11e: no empty hill next to an own fort: build
    anywhere, also on a hill the opponent besieges, which is then captured (RANDOM: anywhere in
    54 games, onto a besieged hill in 49)."""
    for name in ("random", "heuristic", "web2014"):
        assert _n(games[name], "anywhere") > 0 and _n(games[name], "onto_besieged") > 0


def test_s3_2_box_grace_manoeuvre_only_in_box(games):
    """docs/rules/sacred_hill.md §3.2: with box the opponent makes one more Manoeuvre after the
    switch to Battle (RANDOM: 107 games, HEURISTIC: 108); with web2014 never."""
    assert _n(games["random"], "grace") > 0 and _n(games["heuristic"], "grace") > 0
    assert _n(games["web2014"], "grace") == 0


def test_s7_a8_both_players_with_pending_captures(games):
    """docs/rules/sacred_hill.md §7 A8: both players have captures pending; they alternate,
    each capturing his own targets (RANDOM: 58 games, HEURISTIC: 45, WEB2014: 63)."""
    assert sum(_n(games[k], "both_capture") for k in games) > 0


def test_s3_4_game_ends_on_either_seat_and_territory_decides(games):
    """docs/rules/sacred_hill.md §3.4, §3.5: the last move falls on both seats (RANDOM: 163 /
    137 games); some games are decided by territory, kingdoms tied (RANDOM: 70 games)."""
    for name in games:
        assert {c["last_seat"] for _, c in games[name]} == {0, 1}
        assert _n(games[name], "territory_decides") > 0


def test_s4_a6_fort_supply_of_30_never_binds(games):
    """docs/rules/sacred_hill.md §4, §7 A6: 30 forts per colour, treated as unlimited; the most
    forts one colour holds at the end in these 900 games is 25, below 30 (the rules saw 26)."""
    most = max(max(bin(v).count("1") for v in c["forts"]) for gs in games.values() for _, c in gs)
    assert most < 30


def test_first_player_rate_agrees_with_the_naive_random_play():
    """docs/rules/sacred_hill.md §3: the first player's win rate in random play
    (box / knight12) is measured again by the naive implementation's own random play (2,000
    games, Python's random.Random(1); it gave 0.5545). Tolerance: 3 standard errors of the
    difference, sqrt(p(1-p)/20000 + p(1-p)/2000) ~ 0.0117 at p = 0.55, so 0.035."""
    s = mcsim.simulate("sacred-hill", games=20_000, seed=1).summary
    w = s["seats"][0]["win_rate"]
    rng = random.Random(1)
    naive = [random_game(rng).points() for _ in range(2000)]
    rate = sum(p[0] > p[1] for p in naive) / len(naive)
    assert w["low"] > 0.5 and rate > 0.5
    assert abs(w["estimate"] - rate) < 0.035


def _besieging_position():
    """Red (seat 0, Battle) besieges Blue's lone fort A2 (Red on A3 and B2, §8)."""
    return SH.position(red=["A3", "B2"], blue=["A2", "G4"], to_move=0)


def test_replay_refuses_a_skipped_capture_even_if_the_kernel_offers_it(monkeypatch):
    """docs/rules/sacred_hill.md §3.3.1, §3.4: replay checks the forced moves
    itself; with the kernel's move list broken to allow anything, a record that builds instead
    of the mandatory capture, builds away from its forts, or passes with hills empty is refused."""
    st = _besieging_position()
    assert SH.forced_move_error(st, "A2") is None
    assert SH.forced_move_error(st, "C3") == ["A2"]
    st2 = SH.position(red=["D4"], blue=["A2"], to_move=0)
    assert SH.forced_move_error(st2, "F6") is not None  # Battle: must build next to D4
    assert SH.forced_move_error(st2, "D5") is None
    assert SH.forced_move_error(st2, "pass") is not None
    real = SH.K.legal_moves

    def broken(state):  # a kernel bug: every empty hill is legal, captures not forced
        moves, kind = real(state)
        empty = SH.K.BB_VALID & ~(state[SH.K.S_FORTS] | state[SH.K.S_FORTS + 1])
        return (
            (np.uint64(empty), SH.K.KIND_BUILD_ANYWHERE)
            if kind == SH.K.KIND_CAPTURE
            else (moves, kind)
        )

    monkeypatch.setattr(SH.K, "legal_moves", broken)
    done = 0
    for r in mcsim.simulate("sacred-hill", games=30, seed=5, record=30, workers=1).records:
        g = Game()
        for ply, m in enumerate(r["moves"]):
            if g.forced() == "capture" and g.empty():
                build = HILLS[next(bits(g.empty()))]  # a build instead of the capture
                with pytest.raises(IllegalMoveError) as e:
                    SH.replay({"game": "sacred-hill", "moves": r["moves"][:ply] + [build]})
                assert e.value.ply == ply and sorted(e.value.legal) == sorted(g.moves())
                done += 1
                break
            g.play(m)
    assert done >= 3
