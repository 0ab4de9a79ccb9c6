"""El Grande restricted play (docs/rules/el_grande.md §11): a seat forbidden action-card types,
the Castillo or power values never takes one while the decision has another legal choice, and
the kernel's ``forbid_avoided_<seat>`` / ``forbid_forced_<seat>`` columns count its decisions.

The check is a second implementation (``referee``): it reads a record's moves in the record
notation (``mcsim.games.el_grande.records``) and derives the legal options of every decision a
restriction touches from the rules and the record's setup alone, never from the kernel's
options or flags:

* card (§3 step 4b): the k-th card of each deck in the record's ``setup`` in the k-th round
  played, plus the King's card, less the cards taken earlier in the round;
* power (§3 step 3): 1..13, less the values bid in earlier rounds (plus those 4e took back,
  §6), less the values bid earlier in the round;
* place, place_any, move_to (§3 step 4c, §3.3, §6 deck 1): the Castillo is always a legal
  destination and never the only one (stop; any region but the King's; any but the source and
  the King's).

A round starts at the first ``power`` decision after another kind (§3: the bids open it).
"""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import kernels.el_grande as K
import mcsim
from kernels.rng import new_state
from mcsim.errors import UnknownPolicyError
from mcsim.games import el_grande as G
from mcsim.games.el_grande import summary
from mcsim.runner import resolve_config
from tests.conftest import one_error_line
from tests.test_kernel_battery import STEPS

SLUG_TO_CARD = {name: cid for cid, name, _ in G.CARD_TYPES}
PLACEMENT_KINDS = ("place", "place_any", "move_to")
ALL_BUT_KING = "+".join(name for _, name, _ in G.CARD_TYPES if name != "king")
POWER_1_TO_12 = "+".join(f"power-{v}" for v in range(1, 13))


def referee(record: dict, seat: int, names: list[str]) -> dict:
    """Walk ``record``'s decisions (see the module docstring) and classify those of ``seat``
    that a forbidden option (``names``) touches: ``avoided`` (another legal choice existed; the
    seat must have taken a permitted one, asserted) or ``forced`` (every legal choice was
    forbidden), in total and per kind (``card``, ``power``, ``castillo``: [avoided, forced]);
    ``first``: the index of the first such decision (None if none)."""
    npl = record["players"]
    cards = {SLUG_TO_CARD[n] for n in names if n in SLUG_TO_CARD}
    castillo = "castillo" in names
    powers = {int(n[len("power-") :]) for n in names if n.startswith("power-")}
    decks = [record["setup"]["decks"][str(d)] for d in range(1, 5)]
    hand = [set(range(1, 14)) for _ in range(npl)]
    played = -1
    prev = None
    face: list[str] = []
    bid: set[int] = set()
    out = {"avoided": 0, "forced": 0, "card": [0, 0], "power": [0, 0], "castillo": [0, 0]}
    out["first"] = None
    for i, d in enumerate(record["decisions"]):
        kind, q, v = d["kind"], d["seat"], d["value"]
        if kind == "power" and prev != "power":
            played += 1
            face = [decks[k][played] for k in range(4)] + ["K"]
            bid = set()
        prev = kind
        if kind == "power":
            legal = sorted(hand[q] - bid)
            value = int(v)
            assert value in legal, (i, d)
            hand[q].discard(value)
            bid.add(value)
            forbidden, what = [x for x in legal if x in powers], "power"
        elif kind == "card":
            legal = list(face)
            value = v
            assert value in face, (i, d)
            face.remove(value)
            forbidden, what = [c for c in legal if c.split("#")[0] in cards], "card"
        elif kind in PLACEMENT_KINDS:
            legal, value = ["CS", "another place"], v
            forbidden, what = (["CS"] if castillo else []), "castillo"
        else:
            if kind == "power_back":
                hand[q].add(int(v))
            continue
        if q != seat or not forbidden:
            continue
        if out["first"] is None:
            out["first"] = i
        if len(forbidden) == len(legal):
            out["forced"] += 1
            out[what][1] += 1
        else:
            assert value not in forbidden, f"decision {i}: {d} is forbidden ({names})"
            out["avoided"] += 1
            out[what][0] += 1
    return out


def _forbidden_names(policy: str) -> list[str]:
    return policy.split("forbid=")[1].split(",")[0].split("+")


def _checked_run(policies: list[str], games: int, seed: int) -> dict:
    """Simulate and record every game; the referee checks each restricted seat of each record
    against the table's columns (exactly) and every record replays to the run's points.
    Returns the referee's totals per restricted seat."""
    r = mcsim.simulate(
        "el-grande", games=games, seed=seed, workers=1, policies=policies, record=games
    )
    npl = len(policies)
    restricted = [k for k, p in enumerate(policies) if "forbid=" in p]
    totals = {k: {"card": [0, 0], "power": [0, 0], "castillo": [0, 0]} for k in restricted}
    assert len(r.records) == games
    for rec in r.records:
        row = r.games.iloc[rec["game_index"]]
        for k in range(npl):
            if k not in restricted:
                assert row[f"forbid_avoided_{k}"] == row[f"forbid_forced_{k}"] == 0
                continue
            got = referee(rec, k, _forbidden_names(policies[k]))
            assert (got["avoided"], got["forced"]) == (
                row[f"forbid_avoided_{k}"],
                row[f"forbid_forced_{k}"],
            ), rec["game_index"]
            for what in totals[k]:
                totals[k][what] = [a + b for a, b in zip(totals[k][what], got[what])]
        res = G.replay(json.loads(json.dumps(rec)))
        assert res["finished"] and res["points"] == [row[f"score_{k}"] for k in range(npl)]
    for k in range(npl):
        assert r.games[f"forbid_avoided_{k}"].dtype == np.int64
        assert r.games[f"forbid_forced_{k}"].dtype == np.int64
    return totals


# ---------------------------------------------------------------------------------- the options
def test_s11_options_declared_as_the_summary_groups_the_cards():
    """§11: one option per action-card type in the order of the summary's card table (the 45
    cards, identical copies one type), ``castillo``, ``power-1`` .. ``power-13``; the card
    groups and power cards are exhaustive; every policy ends with the two mask parameters."""
    spec = G.SPEC
    names = [r.name for r in spec.restrictions]
    assert [cid for cid, _, _ in G.CARD_TYPES] == summary._card_types()
    assert len(G.CARD_TYPES) == 33 and len(G.load_data()["card_types"]) == 45
    assert names[:33] == [cid.lower() if cid != "K" else "king" for cid, _, _ in G.CARD_TYPES]
    assert names[33:] == ["castillo"] + [f"power-{v}" for v in range(1, 14)]
    assert all(n == n.lower() and "+" not in n and "," not in n for n in names)
    groups = {r.group for r in spec.restrictions}
    assert groups == {"action card", "Castillo", "power card"}
    assert spec.exhaustive_groups == ("action card", "power card")
    bits = {(r.param, r.bit) for r in spec.restrictions}
    assert len(bits) == len(names) == 47
    assert {r.bit for r in spec.restrictions if r.param == "forbid_mask2"} == set(range(1, 14))
    assert all(r.source.startswith("docs/rules/el_grande.md §") for r in spec.restrictions)
    for pol in spec.policies:
        assert [p.name for p in pol.params[-2:]] == ["forbid_mask", "forbid_mask2"]
    text = (Path(__file__).parents[1] / G.RULES).read_text(encoding="utf-8")
    section = text[text.index("## 11. Restricted play") :]
    for n in ("`1a` .. `1i`", "`king`", "`castillo`", "`power-1` .. `power-13`"):
        assert n in section


def test_s11_kernel_words_from_the_names():
    """§11: ``forbid_words`` puts card types at their bits, the Castillo at ``FB_CASTILLO`` and
    power v at ``FB_POWER + v``; the table's type bits follow the card ids."""
    cfg = resolve_config(
        "el-grande", 3, ["random:forbid=1d+king+castillo+power-13", "heuristic", "mcts"], {}
    )[1]
    w = G.forbid_words(G.prepare(cfg))
    assert w.tolist() == [(1 << 3) | (1 << 32) | (1 << 33) | (1 << (40 + 13)), 0, 0]
    T = G.build_tables()
    ids = G.load_data()["card_ids"]
    assert [int(T[K.T_CTYPE + ids.index(c)]) for c in ("1a", "1d#1", "1d#2", "2h#3", "K")] == [
        0,
        3,
        3,
        16,
        32,
    ]


# ------------------------------------------------------------ the second implementation checks
def test_s11_random_restricted_seats_checked_from_records():
    """§11, random policy: three restricted seats, one per option kind (every card type but
    the King's, the Castillo, power values 1-12); the referee's counts equal the columns in
    each of 40 games (seed 11). Exact totals [avoided, forced] per kind."""
    pol = [
        "random:forbid=castillo",
        f"random:forbid={ALL_BUT_KING}",
        f"random:forbid={POWER_1_TO_12}",
        "random",
    ]
    totals = _checked_run(pol, 40, 11)
    assert totals[0] == {"card": [0, 0], "power": [0, 0], "castillo": [790, 0]}
    assert totals[1] == {"card": [257, 103], "power": [0, 0], "castillo": [0, 0]}
    assert totals[2] == {"card": [0, 0], "power": [42, 318], "castillo": [0, 0]}


def test_s11_heuristic_restricted_seats_checked_from_records():
    """§11, heuristic policy: one seat forbidden the King's card, 2h, the Castillo and power
    values 1 and 13, another every power value but 13 (forced decisions); 20 games, seed 11."""
    pol = [
        "heuristic",
        "heuristic:forbid=castillo+king+2h+power-1+power-13",
        "heuristic",
        f"heuristic:eps=0.2,forbid={POWER_1_TO_12}",
    ]
    totals = _checked_run(pol, 20, 11)
    assert totals[1] == {"card": [77, 0], "power": [163, 0], "castillo": [596, 0]}
    assert totals[3] == {"card": [0, 0], "power": [22, 158], "castillo": [0, 0]}


def test_s11_mcts_restricted_seats_checked_from_records():
    """§11, mcts at a tiny budget (heuristic rollouts with a horizon; random rollouts to the
    end, every decision searched): its searched decisions, its heuristic single steps and the
    forced ones all checked from the records; 2 games, seed 11."""
    pol = [
        "heuristic",
        "mcts:iterations=4,horizon=1,forbid=castillo+king+2h+power-1+power-13",
        "random",
        "mcts:iterations=3,rollout=0,scope=0,horizon=0,forbid=1a+1b+1c+1d+1e+1f+1g+1h+1i+"
        + "+".join(f"power-{v}" for v in range(2, 14)),
    ]
    totals = _checked_run(pol, 2, 11)
    assert totals[1] == {"card": [14, 0], "power": [18, 0], "castillo": [51, 0]}
    assert totals[3] == {"card": [11, 0], "power": [2, 16], "castillo": [0, 0]}


# ------------------------------------------------------------------ unchanged where unrestricted
def test_s11_zero_masks_change_nothing_and_add_no_columns():
    """An unrestricted run is the golden tables' run (tests/test_golden_tables.py); masks of 0
    typed by number give the same table as no mask, without the restricted-play columns."""
    base = ["heuristic", "random", "heuristic:eps=0.3", "random"]
    zero = [p + (":" if ":" not in p else ",") + "forbid_mask=0,forbid_mask2=0" for p in base]
    a = mcsim.simulate("el-grande", games=30, seed=4, workers=1, policies=base)
    b = mcsim.simulate("el-grande", games=30, seed=4, workers=1, policies=zero)
    pd.testing.assert_frame_equal(a.games, b.games)
    assert not any(c.startswith("forbid_") for c in a.games.columns)


@pytest.mark.parametrize("policy", ["random", "heuristic:eps=0.3"])
def test_s11_opponents_and_deals_unchanged_until_the_restriction_bites(policy):
    """Common random numbers: restricting seat 0 to never take card 3e leaves the deals of
    every game and every decision before seat 0's first decision where 3e was legal as they
    were (the opponents' streams are their own); a game where that never happened is the same
    row as in the unrestricted run."""
    base = [policy] * 4
    games = 40
    a = mcsim.simulate("el-grande", games=games, seed=9, workers=1, policies=base, record=games)
    pol = [policy + ("," if ":" in policy else ":") + "forbid=3e"] + base[1:]
    b = mcsim.simulate("el-grande", games=games, seed=9, workers=1, policies=pol, record=games)
    untouched = []
    for ra, rb in zip(a.records, b.records):
        assert ra["setup"] == rb["setup"]
        first = referee(rb, 0, ["3e"])["first"]
        da, db = ra["decisions"], rb["decisions"]
        same = next((i for i, (x, y) in enumerate(zip(da, db)) if x != y), min(len(da), len(db)))
        if first is None:
            untouched.append(ra["game_index"])
            assert da == db
        else:
            assert same >= first
    assert len(untouched) == (16 if policy == "random" else 19)
    pd.testing.assert_frame_equal(
        a.games.iloc[untouched], b.games.iloc[untouched][list(a.games.columns)]
    )
    assert (b.games["forbid_avoided_0"] > 0).sum() == games - len(untouched)


def test_s11_restricted_run_deterministic_for_one_and_two_workers():
    """A restricted run (random, heuristic and mcts seats restricted) gives the same table with
    1 and 2 workers."""
    pol = [
        "random:forbid=castillo+power-13",
        "heuristic:forbid=king+3d",
        "mcts:iterations=2,horizon=1,forbid=power-1",
        "random",
    ]
    a = mcsim.simulate("el-grande", games=4, seed=2, policies=pol, workers=1)
    b = mcsim.simulate("el-grande", games=4, seed=2, policies=pol, workers=2, chunk_size=2)
    pd.testing.assert_frame_equal(a.games, b.games)


# ------------------------------------------------------------------------------ the effect
def test_s11_restriction_changes_play():
    """The restricted seat's use of an option drops to its forced count: the heuristic in seat
    0 forbidden the King's card never takes it (4 players: never forced), forbidden power 13
    never bids it (never forced with 5+ cards in hand and 3 other bids), forbidden the Castillo
    never puts a caballero there; unrestricted, it does all three (60 games, seed 3)."""
    games = 60
    pol = ["heuristic"] * 4
    a = mcsim.simulate("el-grande", games=games, seed=3, workers=1, policies=pol, record=games)
    names = "king+power-13+castillo"
    b = mcsim.simulate(
        "el-grande",
        games=games,
        seed=3,
        workers=1,
        policies=[f"heuristic:forbid={names}"] + pol[1:],
        record=games,
    )

    def uses(r):
        g = r.games
        king = int(sum((g[f"king_r{k}"] == 0).sum() for k in range(1, 10)))
        thirteen = int(sum((g[f"power_r{k}_0"] == 13).sum() for k in range(1, 10)))
        castle = sum(
            d["seat"] == 0 and d["kind"] in PLACEMENT_KINDS and d["value"] == "CS"
            for rec in r.records
            for d in rec["decisions"]
        )
        return king, thirteen, castle

    assert uses(a) == (119, 63, 465)
    assert uses(b) == (0, 0, 0)
    assert int(b.games["forbid_forced_0"].sum()) == 0
    assert int(b.games["forbid_avoided_0"].sum()) == 2259
    for rec in b.records:
        assert referee(rec, 0, names.split("+"))["forced"] == 0


# ------------------------------------------------------------------------- inside the search
# the kernel battery's compiled step wrappers: one compile for both files in a worker
_legal, _determinize, _rollout = STEPS["legal"], STEPS["determinize"], STEPS["rollout"]


def test_s11_search_filters_its_own_seat_in_tree_and_rollouts():
    """Inside a search by seat s (its mask in the search buffers, as ``choose_mcts`` sets it,
    the other seats' masks 0): the root's legal moves (the tree) lack a forbidden power value;
    each random rollout to the game's end, read from its final state, never has s bid 13 and has
    s take a deck card only in a round where the King's card went to a seat that played before
    it (forbidden: every card type but the King's). Unrestricted, the same rollouts break both
    (the check is not vacuous)."""
    prep = G.prepare(resolve_config("el-grande", 4, ["mcts"], {})[1])
    root, ctx = G.search_start(prep, 5, 0)
    s = int(root[K.S_HEAD, K.H_SEAT])
    word = sum(1 << k for k in range(32)) | (1 << (K.FB_POWER + 13))
    fmask = ctx.buffers[K.D_CTX][K.C_FMASK : K.C_FMASK + 5]
    moves = np.zeros(64, np.int64)

    def breaches():
        """(rounds in which s bid 13, rounds in which s took a deck card with the King's card
        still face up at its turn) over 12 rollouts; also the opponents' 13 bids."""
        rng = new_state(7, 0, 0)
        thirteen = early = others = 0
        for _ in range(12):
            work = root.copy()
            _determinize(work, ctx, rng)
            _rollout(work, ctx, rng, np.zeros(4))
            row = ctx.row
            for r in range(1, 10):
                pwr = [int(row[K.O_PWR + (r - 1) * 5 + q]) for q in range(4)]
                thirteen += pwr[s] == 13
                others += sum(pwr[q] == 13 for q in range(4) if q != s)
                king = int(row[K.O_KINGBY + r - 1])
                if king != s and (king < 0 or pwr[king] < pwr[s]):
                    early += 1  # s chose before the King's card was taken: a deck card
        return thirteen, early, others

    fmask[:] = 0
    fmask[s] = word
    n = _legal(root.copy(), ctx, moves)
    assert sorted(moves[:n] - K.K_POWER * 64) == list(range(1, 13))
    restricted = breaches()
    fmask[:] = 0
    n = _legal(root.copy(), ctx, moves)
    assert sorted(moves[:n] - K.K_POWER * 64) == list(range(1, 14))
    free = breaches()
    assert restricted[:2] == (0, 0) and restricted[2] > 0
    assert free[0] > 0 and free[1] > 0


# ---------------------------------------------------------------------------------- bad specs
@pytest.mark.parametrize(
    "policy, text",
    [
        ("heuristic:forbid=5z", "forbid='5z': el-grande has no such option; choose from: 1a, 1b"),
        ("random:forbid=K", "forbid='k': el-grande has no such option"),
        (f"random:forbid={POWER_1_TO_12}+power-13", "forbids every power card"),
        (f"mcts:forbid={ALL_BUT_KING}+king", "forbids every action card"),
        ("heuristic:forbid=", "must be option names joined by +"),
        ("random:forbid=castillo+castillo", "'castillo' given twice"),
    ],
)
def test_s11_bad_specs_are_one_line_errors_before_play(run, policy, text):
    """Unknown options, a whole exhaustive group, ``forbid=`` with nothing: refused by
    ``resolve_config`` and by the command line in one line, before any game is played."""
    with pytest.raises(UnknownPolicyError, match="forbid"):
        resolve_config("el-grande", 4, [policy], {})
    one_error_line(run("simulate", "el-grande", "-n", 5, "-p", policy, "-q"), 2, text)
