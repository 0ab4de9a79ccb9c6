"""Carcassonne through mcsim.simulate, records/replay, compare and the CLI.

docs/rules/carcassonne.md §3 (game flow), §4 (gifts); the statistics, records and CLI.
Statistical checks use fixed seeds; tolerances are stated next to each assertion.
"""

import copy
import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import cli
import mcsim
from mcsim.errors import ConfigError, IllegalMoveError, InvalidRecordError, UnknownVariantError
from mcsim.games import carcassonne as G
from tests.test_carcassonne_naive import Naive, naive_perft

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def gift_records():
    r = mcsim.simulate(
        "carcassonne", games=60, seed=12, variant={"gifts": "true"}, record=60, workers=1
    )
    return r


def test_s3_determinism_and_game_independence():
    """docs/rules/carcassonne.md §3.1:
    game i depends only on (seed, i), not on chunking/workers."""
    kw = dict(seed=7, variant={"gifts": "true"}, policies=["heuristic", "random", "random"])
    a = mcsim.simulate("carcassonne", games=12, workers=1, **kw)
    b = mcsim.simulate("carcassonne", games=12, workers=2, chunk_size=5, **kw)
    pd.testing.assert_frame_equal(a.games, b.games)
    c = mcsim.simulate("carcassonne", games=6, workers=1, **kw)
    pd.testing.assert_frame_equal(a.games.iloc[:6].reset_index(drop=True), c.games)


def test_s3_same_tile_order_for_every_policy_and_variant():
    """docs/rules/carcassonne.md §3.1:
    the deal (tile order) is common to policies and variants."""
    base = mcsim.simulate("carcassonne", games=3, seed=5, record=3, workers=1).records
    heur = mcsim.simulate(
        "carcassonne", games=3, seed=5, record=3, workers=1, policies=["heuristic", "heuristic"]
    ).records
    farms = mcsim.simulate(
        "carcassonne", games=3, seed=5, record=3, workers=1, variant={"farms": "v1"}
    ).records
    for a, b, c in zip(base, heur, farms):
        assert a["tiles"] == b["tiles"] == c["tiles"]


def test_s3_4_tiles_per_seat_and_unplaceable_tiles():
    """docs/rules/carcassonne.md §3.4, §5 #13: 2p 36/35 tiles; placed + removed = 71."""
    r = mcsim.simulate("carcassonne", games=400, seed=3, workers=1)
    g = r.games
    assert (g["length_plies"] + g["unplaceable"] == 71).all()
    assert (g["tiles_0"] + g["tiles_1"] == g["length_plies"]).all()
    clean = g[g["unplaceable"] == 0]
    assert (clean["tiles_0"] == 36).all() and (clean["tiles_1"] == 35).all()
    # about 2.4% of random 2p games remove a tile (measured 2.35% on 2000 games); P(none in 400) < 1e-4
    assert (g["unplaceable"] > 0).any()
    five = mcsim.simulate("carcassonne", games=50, seed=3, players=5, workers=1).games
    c5 = five[five["unplaceable"] == 0]
    assert (c5[[f"tiles_{k}" for k in range(5)]].to_numpy() == [15, 14, 14, 14, 14]).all()


def test_s3_points_by_feature_add_up():
    """docs/rules/carcassonne.md §3.3: road + city + monastery + farm + gift = score, per seat."""
    r = mcsim.simulate(
        "carcassonne", games=50, seed=2, players=3, variant={"gifts": "true"}, workers=1
    )
    g = r.games
    for k in range(3):
        total = sum(g[f"points_{c}_{k}"] for c in G.CATEGORIES)
        assert (total == g[f"score_{k}"]).all()
    block = r.summary["carcassonne"]
    assert set(block["points_by_feature"]) == set(G.CATEGORIES)
    assert set(block["gifts"]) == set(G.GIFT_IDS)


def test_s4_gift_bookkeeping(gift_records):
    """docs/rules/carcassonne.md §4.2-§4.5: received = opened + held; held cards score 2 each."""
    g = gift_records.games
    for name in G.GIFT_IDS:
        assert (g[f"gift_received_{name}"] >= g[f"gift_opened_{name}"] + 0).all()
        assert (
            g[f"gift_received_{name}"] == g[f"gift_opened_{name}"] + g[f"gift_held_{name}"]
        ).all()
    # points_gift = Road Sweeper + Cash Out points + 2 per card held at the end; gift_points of
    # Synod / Change Position add the points their meeples were pivotal for (not in points_gift)
    assert (g["gift_points_take_2"] == 2 * g["gift_held_take_2"]).all()
    for name in ("synod", "change_position"):
        assert (g[f"gift_points_{name}"] >= 2 * g[f"gift_held_{name}"]).all()
    held = sum(g[f"gift_held_{n}"] for n in G.GIFT_IDS)
    direct = g["gift_points_road_sweeper"] + g["gift_points_cash_out"]
    assert (
        g["points_gift_0"] + g["points_gift_1"]
        == direct + 2 * (held - g["gift_held_road_sweeper"] - g["gift_held_cash_out"])
    ).all()
    assert (g["gift_points_synod"] > 2 * g["gift_held_synod"]).any()
    for rec in gift_records.records:
        seen = 0
        for _k, t in enumerate(rec["turns"]):
            if t["received"]:
                seen += 1
        assert seen == len(rec["gift_cards"])
        # at most one gift opened and one received per turn by construction of the record


def test_s5_22_take_2_tile_accounting(gift_records):
    """docs/rules/carcassonne.md §5 #22, §6 #10-#11: Take 2 puts the other tile back (shuffle)."""
    n_take2 = 0
    for i, rec in enumerate(gift_records.records):
        returned = 0
        for t in rec["turns"]:
            if t["gift"] and t["gift"]["open"] == "take_2" and "keep" in t["gift"]:
                returned += 1
                assert t["gift"]["keep"] == t["tile"]
        n_take2 += returned
        unpl = int(gift_records.games.iloc[i]["unplaceable"])
        assert len(rec["tiles"]) == len(rec["turns"]) + unpl + returned
        assert len(rec["turns"]) + unpl == 71
    assert n_take2 > 0
    d = mcsim.simulate(
        "carcassonne",
        games=40,
        seed=12,
        record=40,
        workers=1,
        variant={"gifts": "true", "take2_other": "discard"},
    )
    found = 0
    for i, rec in enumerate(d.records):
        discarded = sum(1 for t in rec["turns"] if t["gift"] and "keep" in t["gift"])
        found += discarded
        unpl = int(d.games.iloc[i]["unplaceable"])
        assert len(rec["turns"]) + unpl + discarded == 71 == len(rec["tiles"])
    assert found > 0


def test_s3_s4_records_replay_gifts_and_five_players(gift_records):
    """docs/rules/carcassonne.md §3, §4 :
    records (gift actions included) replay to the run's scores."""
    for rec in gift_records.records[:20]:
        out = G.replay(json.loads(json.dumps(rec)))
        assert out["finished"] and out["points"] == rec["points"]
    r5 = mcsim.simulate(
        "carcassonne",
        games=3,
        seed=4,
        players=5,
        record=3,
        workers=1,
        policies=["heuristic"] * 5,
        variant={"gifts": "true", "farms": "v2"},
    )
    for i, rec in enumerate(r5.records):
        out = G.replay(rec)
        assert out["points"] == [int(r5.games.iloc[i][f"score_{k}"]) for k in range(5)]
    text = G.format_replay(out)
    assert "seat 4:" in text and "winner" in text


def test_s3_2_unfinished_record_replays_as_unfinished(gift_records):
    """docs/rules/carcassonne.md §3.2 :
    a record cut after 10 turns is valid and unfinished."""
    rec = copy.deepcopy(gift_records.records[0])
    rec["turns"] = rec["turns"][:10]
    del rec["points"]
    out = G.replay(rec)
    assert out["finished"] is False and out["turns"] == 10


def _first_record():
    return copy.deepcopy(
        mcsim.simulate("carcassonne", games=1, seed=9, record=1, workers=1).records[0]
    )


def test_s3_2_illegal_placement_names_ply_and_legal_moves():
    """docs/rules/carcassonne.md §3.2 step 1 :
    an illegal placement raises IllegalMoveError with its turn and the alternatives."""
    rec = _first_record()
    good = rec["turns"][3]["place"]
    rec["turns"][3]["place"] = [40, 40, 0]
    with pytest.raises(IllegalMoveError) as e:
        G.replay(rec)
    assert e.value.ply == 3
    # the legal list is every placement the rules allow, counted by the naive board from
    # tiles.json (edges matched by hand, every rotation of a symmetric tile listed)
    n = Naive(2, rec["variant"])
    for k in range(3):
        n.turn(k % 2, rec["turns"][k])
    tile = rec["turns"][3]["tile"]
    want = [f"place {tile} {x},{y} {r}" for x, y, r in n.placements(tile)]
    assert sorted(e.value.legal) == sorted(want) and len(want) >= 2
    assert f"place {tile} {good[0]},{good[1]} {good[2]}" in e.value.legal


def test_s3_2_illegal_meeple_and_gift_and_tile():
    """docs/rules/carcassonne.md §3.2, §4.3 :
    meeple on an occupied feature, opening a card not held, wrong tile."""
    rec = _first_record()
    k = next(i for i, t in enumerate(rec["turns"]) if t["meeple"] is None and i > 0)
    rec["turns"][k]["meeple"] = "nonsense"
    with pytest.raises(IllegalMoveError) as e:
        G.replay(rec)
    assert e.value.ply == k and "meeple none" in e.value.legal
    rec = _first_record()
    rec["turns"][0]["gift"] = {"open": "synod"}
    with pytest.raises(IllegalMoveError) as e:
        G.replay(rec)
    assert e.value.ply == 0 and e.value.legal == ["open none"]
    rec = _first_record()
    rec["turns"][2]["tile"] = "C" if rec["turns"][2]["tile"] != "C" else "D"
    with pytest.raises(IllegalMoveError) as e:
        G.replay(rec)
    assert e.value.ply == 2


def test_s6_20_turn_player_must_be_the_seat_to_move():
    """docs/rules/carcassonne.md §6 #20 (seat 0 starts, seats alternate): a turn whose
    "player" is not the seat to move is an IllegalMoveError naming the turn; "player" may be
    left out."""
    rec = _first_record()
    n = rec["players"]
    assert [t["player"] for t in rec["turns"]] == [k % n for k in range(len(rec["turns"]))]
    want = G.replay(copy.deepcopy(rec))["points"]
    bad = copy.deepcopy(rec)
    bad["turns"][3]["player"] = (3 + 1) % n
    with pytest.raises(IllegalMoveError) as e:
        G.replay(bad)
    assert e.value.ply == 3 and e.value.legal == [f"player {3 % n}"]
    assert str(e.value) == f"illegal move 'player {4 % n}' at ply 3; legal moves: player {3 % n}"
    for wrong in (None, "0", True):
        bad = copy.deepcopy(rec)
        bad["turns"][1]["player"] = wrong
        with pytest.raises(IllegalMoveError) as e:
            G.replay(bad)
        assert e.value.ply == 1
    for t in rec["turns"]:
        del t["player"]
    assert G.replay(rec)["points"] == want


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda r: r.update(game="sacred-hill"), "not a carcassonne record"),
        (lambda r: r.update(players=7), '"players" must be'),
        (lambda r: r.update(tiles=["Z"]), '"tiles" must be a list of tile letters'),
        (
            lambda r: r["tiles"].__setitem__(-1, "C" if r["tiles"][-1] != "C" else "X"),
            "is not left in the draw pile",
        ),  # one C (X) in the set, already drawn
        (lambda r: r["turns"][0].update(place="1,0"), '"place" must be [x, y, rotation]'),
        (lambda r: r.update(points=[0, 0]), "record says points [0, 0], replay gives"),
        (lambda r: r["variant"].update(gifts="maybe"), "gifts='maybe'"),
        (
            lambda r: r["turns"].append(
                dict(r["turns"][-1], player=len(r["turns"]) % r["players"])
            ),
            '"tiles" lists 71 draws but the record has 72 turns',
        ),  # the draw count is checked before the replay starts
    ],
)
def test_s3_bad_records_raise_invalid_record(mutate, message):
    """docs/rules/carcassonne.md §3.1-§3.2 :
    malformed records raise InvalidRecordError with a one-line message."""
    rec = _first_record()
    mutate(rec)
    with pytest.raises(InvalidRecordError) as e:
        G.replay(rec)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_s3_1_bad_configuration_errors():
    """docs/rules/carcassonne.md §3.1: 2-5 players; unknown variants and options are refused."""
    with pytest.raises(ConfigError):
        mcsim.simulate("carcassonne", games=2, players=6)
    with pytest.raises(UnknownVariantError):
        mcsim.simulate("carcassonne", games=2, variant={"gifts": "yes"})
    with pytest.raises(UnknownVariantError):
        mcsim.simulate("carcassonne", games=2, variant={"river": "true"})
    with pytest.raises(ConfigError):
        mcsim.simulate("carcassonne", games=2, options={"tiles": "x"})


def test_s3_2_heuristic_beats_random():
    """docs/rules/carcassonne.md §3.2 :
    the heuristic wins clearly against random (200 games; measured 100% on 2000)."""
    r = mcsim.simulate(
        "carcassonne", games=200, seed=1, policies=["heuristic", "random"], workers=1
    )
    w = r.summary["seats"][0]["win_rate"]
    assert w["low"] > 0.9


def test_s3_3_heuristic_parameters_change_play():
    """docs/rules/carcassonne.md §3.3 :
    heuristic parameters are numbers (ParamSpec) and matter."""
    a = mcsim.simulate(
        "carcassonne", games=20, seed=1, policies=["heuristic", "heuristic"], workers=1
    )
    b = mcsim.simulate(
        "carcassonne",
        games=20,
        seed=1,
        workers=1,
        policies=["heuristic:farm=0,farm_turn=72", "heuristic"],
    )
    assert (b.games["points_farm_0"] == 0).all()
    assert not a.games.equals(b.games)


def test_s3_4_compare_variants_pairs_the_same_deals():
    """docs/rules/carcassonne.md §3.4, §4 :
    compare gifts=false vs gifts=true on the same tile orders, paired CIs."""
    from mcsim.compare_variants import compare_variants, format_comparison

    res = compare_variants(
        "carcassonne", ["gifts=false", "gifts=true"], games=300, seed=3, workers=1
    )
    p = res["paired"][0]
    # win shares sum to 1 in every game, so the seat differences are exact negatives (2 players)
    assert p["win_share"][0]["mean"] == pytest.approx(-p["win_share"][1]["mean"])
    assert p["score_spread"]["low"] <= p["score_spread"]["mean"] <= p["score_spread"]["high"]
    assert "gifts" in res["arms"][1]["carcassonne"] and "gifts" not in res["arms"][0]["carcassonne"]
    assert "paired difference (gifts=true) - (gifts=false)" in format_comparison(res)
    with pytest.raises(ConfigError):
        compare_variants("carcassonne", ["gifts=false", "farms=v3"], games=5)


def test_s4_3_opened_gifts_are_discarded_and_reshuffled():
    """docs/rules/carcassonne.md §4.3, §4.2, §6 #12: an opened card goes to the
    discard pile; the empty deck is rebuilt from it. In the case record all 25 cards are drawn
    and one Cash Out opened; on the last turn seat 0 extends seat 1's city and receives that
    Cash Out: 12 + 1 = 13 cards (the discard pile's only card, so the record need not list it)."""
    path = DATA / "carcassonne_gift_deck_reshuffle.json"
    rec = json.loads(path.read_text())
    assert len(rec["gift_cards"]) == 25
    assert G.replay(rec)["gifts_held"] == [13, 12]
    res = CliRunner().invoke(cli.mcsim_cli, ["replay", "carcassonne", str(path), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["gifts_held"] == [13, 12]
    rec["gift_cards"].append("cash_out")  # the reshuffled draw written out: the same game
    rec["turns"][-1]["received"] = "cash_out"
    assert G.replay(rec)["gifts_held"] == [13, 12]
    rec["gift_cards"][-1] = "synod"  # every Synod is in a hand: not in the reshuffled deck
    with pytest.raises(InvalidRecordError, match="card 25 is missing or not left in the gift deck"):
        G.replay(rec)


def test_s6_gift_readings_need_gifts_true():
    """docs/rules/carcassonne.md §4, §6 #1-#12: a reading of The Gifts with
    gifts=false would change nothing: a one-line error naming gifts=true."""
    for name, value in (
        ("cash_out_counts", "own"),
        ("take2_other", "discard"),
        ("gift_shared_majority", "gift"),
        ("gift_deck", "synod"),
    ):
        with pytest.raises(ConfigError) as e:
            mcsim.simulate("carcassonne", games=1, variant={name: value})
        assert str(e.value) == (
            f"variant {name}={value} needs gifts=true (it is a reading of The Gifts, §4)"
        )
    res = CliRunner().invoke(
        cli.mcsim_cli,
        ["simulate", "carcassonne", "-n", "1", "-q", "--variant", "take2_other=discard"],
    )
    assert res.exit_code != 0 and "Traceback" not in res.output
    assert res.output.strip().endswith(
        "variant take2_other=discard needs gifts=true (it is a reading of The Gifts, §4)"
    )
    assert len(res.output.strip().splitlines()) == 1
    with pytest.raises(InvalidRecordError, match="needs gifts=true"):
        G.replay(
            {
                "game": "carcassonne",
                "players": 2,
                "variant": {"cash_out_counts": "own"},
                "tiles": [],
                "turns": [],
            }
        )


def test_s3_cli_simulate_record_replay_compare(tmp_path):
    """docs/rules/carcassonne.md §3, §4 (CLI):
    simulate --record writes records; replay validates; compare prints."""
    runner = CliRunner()
    rec = tmp_path / "rec.json"
    res = runner.invoke(
        cli.mcsim_cli,
        [
            "simulate",
            "carcassonne",
            "-n",
            "20",
            "-w",
            "1",
            "-q",
            "--variant",
            "gifts=true",
            "--record",
            "1",
            "--record-out",
            str(rec),
        ],
    )
    assert res.exit_code == 0, res.output
    assert "gift cards per game" in res.output
    res = runner.invoke(cli.mcsim_cli, ["replay", "carcassonne", str(rec)])
    assert res.exit_code == 0, res.output
    assert "finished" in res.output
    bad = json.loads(rec.read_text())
    bad["turns"][1]["place"] = [50, 50, 0]
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    res = runner.invoke(cli.mcsim_cli, ["replay", "carcassonne", str(tmp_path / "bad.json")])
    assert res.exit_code == 1 and "illegal move" in res.output and "Traceback" not in res.output
    res = runner.invoke(
        cli.mcsim_cli,
        [
            "compare",
            "carcassonne",
            "--variant",
            "gifts=false",
            "--variant",
            "gifts=true",
            "-n",
            "30",
            "-w",
            "1",
            "-q",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["paired"][0]["arm"] == "gifts=true"


def _find_turn(records, card, key):
    for rec in records:
        for k, t in enumerate(rec["turns"]):
            if t["gift"] and t["gift"]["open"] == card and key in t["gift"]:
                return copy.deepcopy(rec), k
    raise AssertionError(f"no {card} with {key} in the sample")


@pytest.mark.parametrize(
    "card, key, bad",
    [
        ("take_2", "keep", "C"),
        ("synod", "monastery", [60, 60]),
        ("road_sweeper", "road", [0, 0, "field1"]),
        ("cash_out", "meeple", [0, 0, "city0"]),
        ("change_position", "to", "cloister"),
    ],
)
def test_s4_4_illegal_gift_arguments_list_the_legal_ones(gift_records, card, key, bad):
    """docs/rules/carcassonne.md §4.4: a gift target that is not allowed is an illegal move."""
    rec, k = _find_turn(gift_records.records, card, key)
    good = rec["turns"][k]["gift"]
    if card == "take_2" and good["keep"] == "C":
        bad = "X"
    rec["turns"][k]["gift"] = dict(good, **{key: bad})
    with pytest.raises(IllegalMoveError) as e:
        G.replay(rec)
    assert e.value.ply == k
    assert json.dumps(good) in e.value.legal


def test_s3_3_farm_rule_changes_only_the_final_farm_points():
    """docs/rules/carcassonne.md §3.3, §6 #18: same deals and random play, farms=none vs v3:
    every seat's score differs by exactly its farm points (common random numbers)."""
    a = mcsim.simulate("carcassonne", games=100, seed=21, players=3, workers=1).games
    b = mcsim.simulate(
        "carcassonne", games=100, seed=21, players=3, workers=1, variant={"farms": "none"}
    ).games
    for k in range(3):
        assert (a[f"score_{k}"] - b[f"score_{k}"] == a[f"points_farm_{k}"]).all()
        assert (b[f"points_farm_{k}"] == 0).all()
    assert a["points_farm_0"].sum() > 0


def test_s4_1_gift_deck_analysis_variant():
    """docs/rules/carcassonne.md §4.1:
    gift_deck=<type> (analysis) deals only that card; records replay."""
    r = mcsim.simulate(
        "carcassonne",
        games=30,
        seed=2,
        workers=1,
        record=2,
        variant={"gifts": "true", "gift_deck": "synod"},
    )
    g = r.games
    assert g["gift_received_synod"].sum() > 0
    for name in G.GIFT_IDS[1:]:
        assert (g[f"gift_received_{name}"] == 0).all()
    for _i, rec in enumerate(r.records):
        assert set(rec["gift_cards"]) <= {"synod"}
        assert G.replay(rec)["points"] == rec["points"]


# ---------------------------------------------------------------- perft
def _replay_accepted(prefix: list, pile: list, box: int) -> list:
    """Every one-turn extension of ``prefix`` that ``replay`` accepts, found by trying every
    cell of the square |x|, |y| <= box, every rotation and every meeple choice of the tile."""
    segs = {t["letter"]: G.segment_names(t) for t in G.load_data()["tiles"]}
    letter = pile[len(prefix)]
    out = []
    for x in range(-box, box + 1):
        for y in range(-box, box + 1):
            for r in range(4):
                for m in [None] + segs[letter]:
                    turns = prefix + [{"tile": letter, "place": [x, y, r], "meeple": m}]
                    try:
                        G.replay(
                            {
                                "game": "carcassonne",
                                "players": 2,
                                "tiles": pile[: len(turns)],
                                "turns": turns,
                            }
                        )
                    except IllegalMoveError:
                        continue
                    out.append(turns)
    return out


def test_perft_counts_replay_accepted_turns():
    """perft (a move = one turn: placement x meeple choice) from the unshuffled pile
    A A B B B B C ...: depths 1-2 equal a naive count of the turns ``replay`` accepts (every
    cell near the start, rotations 0-3, every meeple choice). Depth 1 by hand: A fits east and
    west of D with its road on D's road (1 rotation each) and south with its road away from
    D's field (3 rotations): 5 placements x (none, road0, field0, cloister) = 20. Depth 3
    (31 032) is counted by ``naive_perft`` (tests/test_carcassonne_naive.py: the rules' edge
    matching and flood fill on tiles.json, no kernel code; a few seconds)."""
    pile = G.perft_pile()
    assert pile[:7] == ["A", "A", "B", "B", "B", "B", "C"] and len(pile) == 71
    depth1 = _replay_accepted([], pile, 2)
    assert len(depth1) == G.perft(1) == 20
    assert sum(len(_replay_accepted(p, pile, 3)) for p in depth1) == G.perft(2) == 790
    # depth 3 counted independently by the naive board (tiles.json, edge matching, flood fill)
    assert G.perft(0) == naive_perft(0) == 1
    assert G.perft(3) == naive_perft(3) == 31032
    assert G.perft(2, {"farms": "v1", "tiny_city": "true"}) == 790  # scoring rules: same tree
    assert G.perft(2, players=3) == 790  # nobody runs out of meeples in two turns
    with pytest.raises(ConfigError, match="gifts=false"):
        G.perft(1, {"gifts": "true"})
    with pytest.raises(ConfigError, match="depth"):
        G.perft(-1)
