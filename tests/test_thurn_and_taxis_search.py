"""The ``mcts`` policy in Thurn and Taxis: information-set search over the deck order
and the other seats' hand cards (docs/rules/thurn_und_taxis.md §7 #12).

No peeking (changing only what the deciding seat cannot see leaves its decision and its random
stream unchanged), determinizations consistent with what the seat has seen, determinism across
worker counts, records of mcts games replay, bad parameters refused in one line.
"""

import json

import numpy as np
import pandas as pd
import pytest

import mcsim
from kernels import thurn_and_taxis as K
from kernels.rng import new_state, shuffle
from kernels.thurn_and_taxis import search_steps as SS
from mcsim.errors import UnknownPolicyError
from mcsim.games import thurn_and_taxis as G
from tests.conftest import one_error_line

SEED = 15


def _position(game_index, plies):
    """A mid-game position of a route game (3 players) after ``plies`` decisions, built by
    replaying the kernel's own game; returns (Game, prepared run)."""
    r = mcsim.simulate(
        "thurn-and-taxis", games=1, seed=SEED, policies=["route"] * 3, players=3, workers=1
    )
    prep = r.prepared
    _, actions, deck, reshuffles = G.play_logged_game(prep, SEED, game_index)
    g = G.Game(3, deck, reshuffles=reshuffles)
    for a in actions[:plies]:
        g.apply(a)
    assert not g.over
    return g, prep


def _unseen_redealt(st, rng_seed):
    """``st`` with the cards the seat to move cannot see dealt anew: the deck and the others'
    hand cards not known from the display (``S_KNOWN``) shuffled together; hand sizes kept."""
    st = st.copy()
    p = int(st[K.S_CUR])
    n = int(st[K.S_NP])
    pool = [int(c) for c in st[K.S_DECK + st[K.S_DECK_TOP] : K.S_DECK + st[K.S_DECK_END]]]
    unknown = {}
    for q in range(n):
        if q == p:
            continue
        h = st[K.S_HAND + q * K.N_CITIES : K.S_HAND + (q + 1) * K.N_CITIES]
        kn = st[K.S_KNOWN + q * K.N_CITIES : K.S_KNOWN + (q + 1) * K.N_CITIES]
        assert (h >= kn).all()
        for c in range(K.N_CITIES):
            pool += [c] * int(h[c] - kn[c])
        unknown[q] = int((h - kn).sum())
    arr = np.array(pool, dtype=np.int64)
    shuffle(new_state(np.uint64(rng_seed), np.uint64(0), np.uint64(0)), arr)
    k = 0
    for q, m in unknown.items():
        base = K.S_HAND + q * K.N_CITIES
        st[base : base + K.N_CITIES] = st[K.S_KNOWN + q * K.N_CITIES : K.S_KNOWN + (q + 1) * 22]
        for c in arr[k : k + m]:
            st[base + c] += 1
        k += m
        hm = 0
        for c in range(K.N_CITIES):
            if st[base + c] > 0:
                hm |= 1 << c
        st[K.S_HMASK + q] = hm
    rest = arr[k:]
    st[K.S_DECK : K.S_DECK + len(rest)] = rest
    st[K.S_DECK_TOP] = 0
    st[K.S_DECK_END] = len(rest)
    return st


def _decide(prep, st, params):
    rng = new_state(np.uint64(7), np.uint64(1), np.uint64(2))
    scr = K.search_scratch(prep.tables["tab"], prep.tables["var"], 200)
    a = K.choose_mcts(st, params, rng, scr)
    return int(a), rng.copy()


def _mcts_params(prep, iterations=120):
    ids = np.array([K.POL_MCTS], dtype=np.int64)
    spec = G.SPEC.policy("mcts")
    vec = spec.vector({"iterations": iterations})
    return G.kernel_params(ids, vec[None, :])[0]


@pytest.mark.parametrize("game_index, plies", [(0, 40), (3, 120)])
def test_mcts_does_not_peek(game_index, plies):
    """No peeking: the decision (and the seat's random stream after it) is the same when only
    the deck order and the others' unknown hand cards change (§7 #12)."""
    g, prep = _position(game_index, plies)
    prm = _mcts_params(prep)
    base, rng0 = _decide(prep, g.st, prm)
    assert base in g.legal()
    changed = 0
    for k in range(3):
        other = _unseen_redealt(g.st, 100 + k)
        changed += int(not np.array_equal(other, g.st))
        a, rng = _decide(prep, other, prm)
        assert a == base and np.array_equal(rng, rng0)
    assert changed == 3  # the hidden part really changed


def test_determinization_keeps_what_the_seat_sees():
    """A determinization changes only the deck and the others' unknown cards: every city keeps
    its 3 cards, hand sizes, known cards, own hand, display, discard pile and routes stay."""
    g, prep = _position(1, 90)
    scr = K.search_scratch(prep.tables["tab"], prep.tables["var"], 10)
    ctx = scr[0]
    st0 = g.st.copy()
    p = int(st0[K.S_CUR])
    for k in range(5):
        st = st0.copy()
        SS._search_determinize(st, ctx, new_state(np.uint64(k), np.uint64(0), np.uint64(0)))
        counts = np.zeros(K.N_CITIES, np.int64)
        for q in range(3):
            h = st[K.S_HAND + q * 22 : K.S_HAND + (q + 1) * 22]
            assert h.sum() == st0[K.S_HAND_N + q]
            assert (h >= st[K.S_KNOWN + q * 22 : K.S_KNOWN + (q + 1) * 22]).all()
            hm = sum(1 << c for c in range(22) if h[c] > 0)
            assert st[K.S_HMASK + q] == hm
            counts += h
            base = K.S_ROUTE + q * K.ROUTE_SLOTS
            route = st[base + st[K.S_RLO + q] : base + st[K.S_RHI + q]]
            counts += np.bincount(route, minlength=22)
        own = slice(K.S_HAND + p * 22, K.S_HAND + (p + 1) * 22)
        assert (st[own] == st0[own]).all()
        counts += np.bincount(st[K.S_DISC : K.S_DISC + st[K.S_DISC_N]], minlength=22)
        disp = st[K.S_DISPLAY : K.S_DISPLAY + K.DISPLAY]
        counts += np.bincount(disp[disp >= 0], minlength=22)
        counts += np.bincount(st[K.S_DECK : K.S_DECK + st[K.S_DECK_END]], minlength=22)
        assert (counts == 3).all()
        assert st[K.S_DECK_END] - st[K.S_DECK_TOP] == st0[K.S_DECK_END] - st0[K.S_DECK_TOP]
        keep = np.ones(K.ST_SIZE, bool)
        keep[K.S_DECK : K.S_DECK + K.N_CARDS] = False
        keep[[K.S_DECK_TOP, K.S_DECK_END]] = False
        for q in range(3):
            if q != p:
                keep[K.S_HAND + q * 22 : K.S_HAND + (q + 1) * 22] = False
                keep[K.S_HMASK + q] = False
        assert (st[keep] == st0[keep]).all()


def test_known_cards_follow_the_display():
    """``S_KNOWN``: a display card taken is known in that hand until played or trimmed."""
    deck = list(range(22)) * 3
    g = G.Game(3, deck)
    assert g.phase == K.PH_DRAW1  # empty hand: forced Postmaster (§4A)
    g.apply(K.A_DRAW_DISPLAY + 2)
    assert g.st[K.S_KNOWN + 2] == 1
    g.apply(K.A_DRAW_DECK)
    assert g.st[K.S_KNOWN : K.S_KNOWN + 22].sum() == 1
    g.apply(K.A_START + 2)
    assert g.st[K.S_KNOWN + 2] == 0


def test_search_context_class_is_thurn_and_taxis_own():
    """The search resolves step functions by the class of the context (kernels/search.py, "Game
    interface"): T&T's steps are registered for ``ThurnAndTaxisSearchContext`` and its
    ``search_scratch`` builds one, whatever other game has an int64 1-D state."""
    from kernels import search

    steps = search.steps_for(SS.ThurnAndTaxisSearchContext)
    assert set(steps) == set(search.STEP_NAMES)
    prep = G.prepare(mcsim.runner.resolve_config("thurn-and-taxis", 3, ["mcts"])[1])
    ctx = K.search_scratch(prep.tables["tab"], prep.tables["var"], 4)[0]
    assert type(ctx) is SS.ThurnAndTaxisSearchContext


def test_mcts_deterministic_across_workers_and_records_replay():
    """Determinism: same seed, same games for 1 and 2 workers; records of mcts games replay to
    the run's points (``replay`` checks them itself)."""
    pol = ["mcts:iterations=12", "route", "mcts:iterations=8,reward=1,rollout=0"]
    a = mcsim.simulate(
        "thurn-and-taxis", games=3, seed=4, policies=pol, players=3, workers=1, record=2
    )
    b = mcsim.simulate(
        "thurn-and-taxis", games=3, seed=4, policies=pol, players=3, workers=2, chunk_size=1
    )
    pd.testing.assert_frame_equal(a.games, b.games)
    assert len(a.records) == 2
    for rec in a.records:
        row = a.games.iloc[rec["game_index"]]
        rec = json.loads(json.dumps(rec))
        rec["points"] = [int(row[f"score_{s}"]) for s in range(3)]
        out = G.replay(rec)
        assert out["finished"] and [int(x) for x in out["points"]] == rec["points"]
    assert rec["policies"] == pol


@pytest.mark.parametrize(
    "policy, word",
    [
        ("mcts:iterations=0", "iterations"),
        ("mcts:iterations=2.5", "whole number"),
        ("mcts:reward=3", "reward"),
        ("mcts:rollout=2", "rollout"),
        ("mcts:c=-1", "c="),
        ("mcts:depth=3", "depth"),
    ],
)
def test_mcts_rejects_bad_parameters(policy, word):
    with pytest.raises(UnknownPolicyError, match=word):
        mcsim.simulate("thurn-and-taxis", games=1, policies=[policy, "route", "route"])


def test_mcts_bad_parameter_is_one_line_on_the_command_line(run):
    r = run("simulate", "thurn-and-taxis", "-n", 1, "-p", "mcts:iterations=0")
    one_error_line(r, 2, "iterations")
