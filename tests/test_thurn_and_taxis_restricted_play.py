"""Restricted play in Thurn and Taxis (docs/rules/thurn_und_taxis.md "Restricted play"): a
restricted seat never takes a forbidden option unless the rules leave it nothing else, and the
kernel's ``forbid_avoided`` / ``forbid_forced`` columns equal a second count made here in
Python from the recorded moves (replayed with the Python-side ``Game``: its legal lists and the
record's notation, never the kernel's restriction flags)."""

from __future__ import annotations

import numpy as np
import pytest

import mcsim
from mcsim.games.thurn_and_taxis import K
from mcsim.games.thurn_and_taxis.records import (
    Game,
    _finish_turn,
    _note_official,
    _read_record,
    _read_turn,
    _scripted_action,
    replay,
)

GAME = "thurn-and-taxis"
OFFICIAL_PHASE = {
    "administrator": K.PH_ADMIN,
    "postmaster": K.PH_PM,
    "postal-carrier": K.PH_PC,
}


def _route_tile_due(g: Game, length: int) -> bool:
    """§4C.2 with the cascade of §7.3 (default variant): a tile of the route's length stack or a
    lower one is left."""
    want = 2 if length >= 7 else 1 if length == 6 else 0 if length == 5 else -1
    return any(g.get(K.S_STACK, s) > 0 for s in range(want, -1, -1)) if want >= 0 else False


def _forbidden(g: Game, a: int, names: set[str]) -> bool:
    """Whether legal action ``a`` of the seat to move takes an option in ``names`` (the record's
    notation of §6 officials, §4C closes); the bonus families handled here: route-tile."""
    ph = g.phase
    for name, oph in OFFICIAL_PHASE.items():
        if ph == oph and a == K.A_YES and name in names:
            return True
    if ph != K.PH_CLOSE or a == K.A_NO:
        return False
    if a == K.A_CLOSE_CART and "cartwright" in names:
        return True
    length = len(g.route(g.current))
    if any(f"route-under-{k}" in names and length < k for k in range(3, 8)):
        return True
    return "route-tile" in names and _route_tile_due(g, length)


def python_counts(record: dict, seat: int, names: set[str]):
    """Replay ``record`` and count, for ``seat`` forbidden ``names``: (avoided, forced, taken,
    final ``Game``), taken = forbidden options it chose while a permitted one was legal (must
    be 0)."""
    players, variant, data, deck, reshuffles, turns, max_turns = _read_record(record)
    g = Game(players, deck, variant, reshuffles=reshuffles, data=data, max_turns=max_turns)
    avoided = forced = taken = 0
    for t, turn in enumerate(turns):
        g.turn_index = t
        if g.current == seat and "postmaster" in names and not g.hand(seat):
            forced += 1  # §4A: an empty hand forces the Postmaster
        ts = _read_turn(g, t, turn)
        while not g.over and g.get(K.S_TURN) == t:
            ph = g.phase
            legal = g.legal()
            a = _scripted_action(g, t, ts, legal, data)
            if g.current == seat:
                bad = [x for x in legal if _forbidden(g, x, names)]
                if bad and len(bad) == len(legal):
                    forced += 1
                elif bad:
                    avoided += 1
                    taken += a in bad
            _note_official(ts, ph, a)
            g.apply(a)
        _finish_turn(t, ts)
    return avoided, forced, taken, g


def _run(policies, games=6, seed=11, workers=1, record=None):
    return mcsim.simulate(
        GAME,
        games=games,
        players=3,
        seed=seed,
        policies=policies,
        workers=workers,
        record=games if record is None else record,
    )


CASES = [
    ("random", "postmaster+administrator+postal-carrier+cartwright"),
    ("random", "route-under-6+route-tile"),
    ("route", "postmaster+cartwright+route-under-5"),
    ("route", "postal-carrier+route-tile"),
    ("mcts:iterations=8", "administrator+route-under-7"),
]


@pytest.mark.parametrize(("policy", "forbid"), CASES)
def test_second_count_equals_kernel_columns(policy, forbid):
    sep = "," if ":" in policy else ":"
    res = _run(
        [f"{policy}{sep}forbid={forbid}", "random", "route"], games=4 if "mcts" in policy else 6
    )
    names = set(forbid.split("+"))
    df = res.games
    tot = np.zeros(3, np.int64)
    for i, rec in enumerate(res.records):
        replay(rec)  # a restricted run's records replay
        av, fo, taken, _ = python_counts(rec, 0, names)
        assert taken == 0, (i, rec["policies"])
        assert (av, fo) == (int(df["forbid_avoided_0"][i]), int(df["forbid_forced_0"][i]))
        tot += (av, fo, taken)
    assert tot[0] > 0  # the restriction was exercised
    for k in (1, 2):
        assert (df[f"forbid_avoided_{k}"] == 0).all() and (df[f"forbid_forced_{k}"] == 0).all()


def test_exact_counts_fixed_seed():
    res = _run(["random:forbid=postmaster+route-under-5", "random", "random"], games=4)
    df = res.games
    assert df["forbid_avoided_0"].tolist() == [109, 101, 54, 37]
    assert df["forbid_forced_0"].tolist() == [37, 44, 19, 12]


def test_bonus_families_never_taken():
    """region-tile, all-regions-tile, game-end-tile (§4C.2, §5): with no forced decision the
    seat ends the game holding no region-group or all-regions tile and not the game-end tile
    (the replayed game's state), while the others take them."""
    names = {"region-tile", "all-regions-tile", "game-end-tile"}
    res = _run(["random:forbid=" + "+".join(sorted(names)), "random", "random"])
    df = res.games
    assert df["forbid_avoided_0"].tolist() == [1, 10, 6, 1, 31, 19]
    assert df["forbid_forced_0"].tolist() == [0, 0, 0, 0, 0, 0]
    others = 0
    for rec in res.records:
        *_, g = python_counts(rec, 0, names)
        assert g.over and g.get(K.S_GROUPS, 0) == 0 and g.get(K.S_END_SEAT) != 0
        others += g.get(K.S_GROUPS, 1) != 0 or g.get(K.S_GROUPS, 2) != 0
    assert others > 0


def test_unrestricted_and_never_binding_mask_unchanged():
    """No restricted seat: no forbid columns. route-under-3 is the rules' own minimum (§4C): the
    restricted path runs but forbids nothing, so every game is the unrestricted one, draw for
    draw (the filter consumes no random numbers and keeps the legal order)."""
    for pol in ("random", "route"):
        base = _run([pol, "route", "random"], record=0)
        assert not any(c.startswith("forbid_") for c in base.games.columns)
        ctrl = _run([f"{pol}:forbid=route-under-3", "route", "random"], record=0)
        assert (ctrl.games["forbid_avoided_0"] == 0).all()
        assert (ctrl.games["forbid_forced_0"] == 0).all()
        cols = list(base.games.columns)
        assert ctrl.games[cols].equals(base.games)


def test_deterministic_1_and_2_workers():
    a = _run(["route:forbid=route-under-5+cartwright", "random", "random"], games=8, record=0)
    b = _run(
        ["route:forbid=route-under-5+cartwright", "random", "random"], games=8, workers=2, record=0
    )
    assert a.games.equals(b.games)


@pytest.mark.parametrize(
    ("policy", "msg"),
    [("random:forbid=banana", "banana"), ("random:forbid=", "forbid")],
)
def test_bad_specs(policy, msg):
    with pytest.raises(Exception) as e:
        _run([policy, "random", "random"], record=0)
    assert msg in str(e.value) and "\n" not in str(e.value)


def test_restriction_changes_play_opponents_same_functions():
    plain = _run(["random", "random", "random"], games=20, record=0)
    rest = _run(["random:forbid=postal-carrier", "random", "random"], games=20, record=0)
    assert rest.games["used_postal_carrier_0"].sum() == 0
    assert plain.games["used_postal_carrier_0"].sum() > 0
