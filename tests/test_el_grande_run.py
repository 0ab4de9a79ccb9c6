"""El Grande through mcsim.simulate and the CLI: determinism, records and replay, round-engine
invariants read from records, summary block, bad input."""

import json
import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import mcsim
from cli import mcsim_cli
from kernels import el_grande as K
from kernels.rng import new_state
from mcsim.errors import (
    ConfigError,
    IllegalMoveError,
    InvalidRecordError,
    UnknownPolicyError,
    UnknownVariantError,
)
from mcsim.games import el_grande as G


def test_same_seed_same_games_any_worker_count():
    """shared/DESIGN.md, Seeding: game i depends only on (seed, i), also for the heuristic."""
    pol = ["heuristic", "random", "heuristic:eps=0.2"]
    a = mcsim.simulate("el-grande", games=40, seed=11, policies=pol, workers=1, chunk_size=40)
    b = mcsim.simulate("el-grande", games=40, seed=11, policies=pol, workers=2, chunk_size=7)
    pd.testing.assert_frame_equal(a.games, b.games)
    c = mcsim.simulate("el-grande", games=40, seed=12, policies=pol, workers=1)
    assert not a.games["score_0"].equals(c.games["score_0"])


def test_common_random_numbers_same_deal_for_every_policy():
    """shared/DESIGN.md: game i deals the same setup whatever the policies."""
    ra = mcsim.simulate("el-grande", games=3, seed=4, players=3, record=3)
    rb = mcsim.simulate("el-grande", games=3, seed=4, policies=["heuristic"] * 3, record=3)
    for x, y in zip(ra.records, rb.records):
        assert x["setup"] == y["setup"]


@pytest.mark.parametrize(
    "players, policies, variant",
    [
        (2, ["random"], {}),
        (3, ["heuristic", "random", "heuristic"], {"tie_rank": "competition"}),
        (4, ["random"], {"rounds": "6"}),
        (5, ["heuristic"], {"veto": "off"}),
    ],
)
def test_records_replay_to_the_run_result(players, policies, variant):
    """Records written by simulate replay to the same points, plies and sources."""
    if len(policies) == 1:
        policies = policies * players
    r = mcsim.simulate("el-grande", games=4, seed=9, policies=policies, variant=variant, record=4)
    for rec in r.records:
        row = r.games.iloc[rec["game_index"]]
        out = G.replay(json.loads(json.dumps(rec)))
        assert out["finished"]
        assert out["points"] == [row[f"score_{k}"] for k in range(players)] == rec["points"]
        assert out["plies"] == row["length_plies"] == len(rec["decisions"])
        for name, vals in out["points_by_source"].items():
            assert vals == [row[f"pts_{name}_{k}"] for k in range(players)]
            assert sum(out["points_by_source"][s][0] for s in G.SOURCES) == out["points"][0]
        assert out["scorings"] == rec["scorings"]
        assert [e["event"] for e in out["scorings"] if e["event"].startswith("general")] == [
            f"general scoring after round {k}" for k in (3, 6, 9)
        ]


def _rounds(rec):
    """Split a record's decisions into rounds (each starts with the first power decision)."""
    rounds, cur = [], None
    for d in rec["decisions"]:
        if d["kind"] == "power" and (cur is None or cur["phase"] == "turns"):
            cur = {"power": [], "cards": [], "phase": "bid"}
            rounds.append(cur)
        if d["kind"] == "power":
            cur["power"].append((d["seat"], int(d["value"])))
        elif d["kind"] == "card":
            cur["phase"] = "turns"
            cur["cards"].append((d["seat"], d["value"]))
    return rounds


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_s3_round_structure_from_records(players):
    """docs/rules/el_grande.md §3: distinct bids clockwise from the start player, turns by
    descending power card, one card per player per round, the last player starts next round."""
    r = mcsim.simulate(
        "el-grande",
        games=6,
        seed=3,
        players=players,
        record=6,
        policies=["heuristic:eps=0.3"] * players,
    )
    for rec in r.records:
        rounds = _rounds(rec)
        assert len(rounds) == 9
        start = rec["setup"]["start_player"]
        for rd in rounds:
            seats = [s for s, _ in rd["power"]]
            assert seats == [(start + j) % players for j in range(players)]
            vals = [v for _, v in rd["power"]]
            assert len(set(vals)) == players
            order = [s for s, _ in sorted(rd["power"], key=lambda x: -x[1])]
            assert [s for s, _ in rd["cards"]] == order
            assert len({c for _, c in rd["cards"]}) == players
            start = order[-1]
        # every card id taken at most once per game (the King's card once per round)
        taken = [c for rd in rounds for _, c in rd["cards"] if c != "K"]
        assert len(taken) == len(set(taken))


def test_s2_six_round_variant_plays_six_rounds():
    """docs/rules/el_grande.md §2: the short game skips rounds 1, 4 and 7."""
    r = mcsim.simulate("el-grande", games=30, seed=2, players=4, variant={"rounds": "6"}, record=2)
    for k in (1, 4, 7):
        assert (r.games[[f"power_r{k}_{s}" for s in range(4)]] == 0).all().all()
        assert (r.games[f"king_r{k}"] == -1).all()
    for k in (2, 3, 5, 6, 8, 9):
        assert (r.games[[f"power_r{k}_{s}" for s in range(4)]] > 0).all().all()
    assert len(_rounds(r.records[0])) == 6
    assert r.summary["el_grande"]["power_cards"]["first_round"] == 2


def test_s2_caballeros_are_conserved():
    """docs/rules/el_grande.md §2: 30 caballeros per colour in play (board + court + province), never negative."""
    prep = G.prepare(
        mcsim.runner.resolve_config(  # (module, config)
            "el-grande",
            players=5,
            policies=[
                "heuristic",
                "random",
                "heuristic:court_target=4,veto_harm=1",
                "random",
                "heuristic:eps=0.5",
            ],
        )[1]
    )
    for gi in range(40):
        fixed = np.zeros(K.FIXED_SIZE, np.int32)
        st = K.run_logged(
            np.uint64(5),
            np.int64(gi),
            np.int64(5),
            prep.policy_ids,
            prep.policy_params,
            prep.variant_codes,
            prep.tables["T"],
            K.MODE_PLAY,
            np.zeros((1, 4), np.int32),
            np.zeros((1, 8), np.int32),
            fixed,
        )[0]
        assert (st[K.O_CAB : K.O_CAB + 50] >= 0).all()
        for p in range(5):
            board = sum(int(st[K.O_CAB + pl * 5 + p]) for pl in range(10))
            assert board + st[K.O_COURT + p] + st[K.O_PROV + p] == 30
            assert st[K.O_COURT + p] >= 0 and st[K.O_PROV + p] >= 0
        assert st[K.O_CAB + 9 * 5 : K.O_CAB + 50].sum() == 0  # Castillo emptied at the last scoring


def test_summary_block():
    """The summary block: per card, power cards by round, win rate by first power value, points by source."""
    r = mcsim.simulate("el-grande", games=300, seed=1, players=4)
    s = r.summary["el_grande"]
    assert len(s["action_cards"]) == 33
    assert 0 < s["action_cards"]["K"]["taken"] <= 300 * 9
    assert s["action_cards"]["2h"]["copies"] == 3
    assert sum(e["taken"] for e in s["action_cards"].values()) == 300 * 9 * 4  # one card per turn
    for rnd in s["power_cards"]["by_round"].values():
        assert sum(rnd.values()) == pytest.approx(1.0)
    wr = s["power_cards"]["win_rate_by_first_value"]
    assert sum(w["n"] for w in wr.values()) == 1200
    total = sum(d["mean"] for d in s["points_by_source"].values())
    assert total == pytest.approx(r.games[[f"score_{k}" for k in range(4)]].to_numpy().mean())
    for e in s["action_cards"].values():
        assert e["score_diff"]["low"] <= e["score_diff"]["mean"] <= e["score_diff"]["high"]
    assert "action cards" in G.format_summary(s)
    # court intake (§3 step 4a): a random count uniform on 0..m takes half of what it may take;
    # 1200 seat-games of ~25 allowed, SE of the share ~ 0.005 -> tolerance 0.03
    ci = s["court_intake"]
    taken = r.games[[f"intake_taken_{k}" for k in range(4)]].to_numpy()
    allowed = r.games[[f"intake_max_{k}" for k in range(4)]].to_numpy()
    assert ci["taken"]["mean"] == pytest.approx(taken.mean()) and ci["allowed"] == pytest.approx(
        allowed.mean()
    )
    assert (taken <= allowed).all() and abs(ci["share"] - 0.5) < 0.03
    v = s["vetoes"]
    assert (v["all"], v["partial"]) == (
        int(r.games["vetoes_all"].sum()),
        int(r.games["vetoes_partial"].sum()),
    )
    assert v["all"] > 0 and v["partial"] > 0
    assert "court intake per seat-game" in G.format_summary(s)


def _find(records, kind):
    """(record, decision index) of the first decision of ``kind``."""
    for rec in records:
        for i, d in enumerate(rec["decisions"]):
            if d["kind"] == kind:
                return rec, i
    raise AssertionError(f"no {kind} decision recorded")


def test_s3_4a_s6_2a_records_carry_intake_and_veto_cut():
    """docs/rules/el_grande.md §3 step 4a, §6 2a: records (format 2) name the intake count and the veto cut,
    they replay, and an illegal count or cut is reported with its index and the legal options."""
    r = mcsim.simulate("el-grande", games=30, seed=8, players=4, record=30)
    recs = [json.loads(json.dumps(x)) for x in r.records]
    assert all(x["format"] == 2 for x in recs)
    rec, i = _find(recs, "veto_cut")
    d = rec["decisions"][i]
    assert rec["decisions"][i - 1]["kind"] == "veto" and rec["decisions"][i - 1]["value"] == "yes"
    assert d["value"] == "all" or d["value"].startswith("after_")
    assert G.replay(rec)["points"] == rec["points"]
    bad = json.loads(json.dumps(rec))
    bad["decisions"][i]["value"] = "after_9"
    with pytest.raises(IllegalMoveError) as e:
        G.replay(bad)
    assert e.value.ply == i and e.value.legal[0] == f"seat {d['seat']} veto_cut all"
    assert all(x.startswith(f"seat {d['seat']} veto_cut ") for x in e.value.legal)
    rec, i = _find(recs, "intake")
    d = rec["decisions"][i]
    bad = json.loads(json.dumps(rec))
    bad["decisions"][i]["value"] = "7"
    with pytest.raises(IllegalMoveError) as e:
        G.replay(bad)
    assert e.value.ply == i and e.value.legal[0] == f"seat {d['seat']} intake 0"
    assert f"seat {d['seat']} intake {d['value']}" in e.value.legal
    for kind, value in (("intake", "many"), ("veto_cut", "after_0")):
        bad = json.loads(json.dumps(rec))
        bad["decisions"][i] = {"seat": 0, "kind": kind, "value": value}
        with pytest.raises(InvalidRecordError, match=f"decision {i}: {kind}"):
            G.replay(bad)


def test_s3_4a_s6_2a_new_decisions_are_deterministic():
    """shared/DESIGN.md, Seeding: intake counts and veto cuts depend only on (seed, game), whatever the chunking."""
    pol = ["random", "heuristic:court_target=9,eps=0.3", "random", "heuristic"]
    a = mcsim.simulate(
        "el-grande", games=30, seed=31, policies=pol, workers=1, chunk_size=30, record=30
    )
    b = mcsim.simulate(
        "el-grande", games=30, seed=31, policies=pol, workers=1, chunk_size=4, record=30
    )
    cols = [c for c in a.games.columns if c.startswith(("intake_", "vetoes_"))]
    assert len(cols) == 10
    pd.testing.assert_frame_equal(a.games[cols], b.games[cols])
    assert [x["decisions"] for x in a.records] == [x["decisions"] for x in b.records]
    assert a.games["vetoes_partial"].sum() > 0


def test_heuristic_beats_random():
    """The heuristic plays sensibly. One heuristic seat vs three random seats, 200
    games: a random seat would win 0.25 (SE sqrt(.25*.75/200) = 0.031); require > 0.25 + 4 SE."""
    r = mcsim.simulate(
        "el-grande", games=200, seed=21, policies=["heuristic", "random", "random", "random"]
    )
    assert r.games["win_share_0"].mean() > 0.25 + 4 * 0.031


def test_final_tie_variant_breaks_ties_by_unplayed_cards():
    """docs/rules/el_grande.md §10 A6: final_tie=unplayed gives the tie to the larger unplayed sum."""
    a = mcsim.simulate("el-grande", games=400, seed=6, players=2)
    b = mcsim.simulate("el-grande", games=400, seed=6, players=2, variant={"final_tie": "unplayed"})
    ties = a.games["score_0"] == a.games["score_1"]
    assert ties.any()
    assert (a.games.loc[ties, "win_share_0"] == 0.5).all()
    t = b.games[ties]
    expect = np.where(
        t["unplayed_0"] > t["unplayed_1"],
        1.0,
        np.where(t["unplayed_0"] < t["unplayed_1"], 0.0, 0.5),
    )
    assert (t["win_share_0"].to_numpy() == expect).all()


# ---- bad input -----------------------------------------------------------------------------
def _record():
    return mcsim.simulate("el-grande", games=1, seed=2, players=3, record=1).records[0]


def test_replay_rejects_non_records_and_bad_setup():
    with pytest.raises(InvalidRecordError, match="not an el-grande record"):
        G.replay({"game": "sacred-hill"})
    rec = _record()
    rec["setup"]["homes"][0] = rec["setup"]["king"]
    with pytest.raises(InvalidRecordError, match="distinct regions other than the King's"):
        G.replay(rec)
    rec = _record()
    rec["setup"]["decks"]["2"][0] = "3a#1"
    with pytest.raises(InvalidRecordError, match="not a deck-2 card"):
        G.replay(rec)
    rec = _record()
    rec["variant"] = {"veto": "maybe"}
    with pytest.raises(InvalidRecordError, match="veto"):
        G.replay(rec)
    rec = _record()
    rec["decisions"][0]["kind"] = "teleport"
    with pytest.raises(InvalidRecordError, match="unknown kind 'teleport'"):
        G.replay(rec)
    rec = _record()
    rec["decisions"][2] = 5  # was a TypeError caught by the CLI as "malformed el-grande record"
    with pytest.raises(InvalidRecordError, match='decision 2: must be an object {"seat", "kind"'):
        G.replay(rec)


def test_replay_illegal_decision_names_index_and_legal_options():
    rec = _record()
    first, second = rec["decisions"][0], rec["decisions"][1]
    assert first["kind"] == second["kind"] == "power"
    rec["decisions"][1] = dict(second, value=first["value"])  # a value already played this round
    with pytest.raises(IllegalMoveError) as e:
        G.replay(rec)
    assert e.value.ply == 1
    assert f"seat {second['seat']} power {first['value']}" not in e.value.legal
    assert len(e.value.legal) == 12


def test_replay_truncated_and_overlong_records():
    """A record cut short replays as unfinished (its result says ``finished: false``): the points after the last
    scoring it completes; one decision more than the game has is an error."""
    rec = _record()
    full = G.replay(rec)
    rec["decisions"] = rec["decisions"][:-1]
    cut = G.replay(rec)
    assert cut["finished"] is False and cut["winner"] is None
    assert cut["plies"] == len(rec["decisions"])
    assert cut["scorings"] == full["scorings"][:-1]  # the final scoring is not reached
    assert cut["points"] == full["scorings"][-2]["scores"]
    rec = _record()
    rec["decisions"].append(dict(rec["decisions"][-1]))
    with pytest.raises(InvalidRecordError, match="game ended after"):
        G.replay(rec)


def test_config_errors():
    with pytest.raises(ConfigError):
        mcsim.simulate("el-grande", games=1, players=6)
    with pytest.raises(UnknownPolicyError):
        mcsim.simulate("el-grande", games=1, policies=["heuristic:w_board=-1"] * 4)
    with pytest.raises(UnknownVariantError):
        mcsim.simulate("el-grande", games=1, variant={"rounds": "7"})


def test_cli_simulate_and_replay(tmp_path):
    runner = CliRunner()
    res = runner.invoke(
        mcsim_cli,
        [
            "simulate",
            "el-grande",
            "--players",
            "2",
            "-n",
            "20",
            "--json",
            "-q",
            "--backend",
            "serial",
        ],
    )
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["players"] == 2 and "el_grande" in summary
    rec = _record()
    path = tmp_path / "game.json"
    path.write_text(json.dumps(rec))
    res = runner.invoke(mcsim_cli, ["replay", "el-grande", str(path)])
    assert res.exit_code == 0, res.output
    assert "general scoring after round 9" in res.output and "winner" in res.output
    rec["decisions"][0]["value"] = "14"
    path.write_text(json.dumps(rec))
    res = runner.invoke(mcsim_cli, ["replay", "el-grande", str(path)])
    assert res.exit_code == 1 and "illegal move" in res.output


def test_partial_summaries_merge_to_the_full_table_summary():
    """mcsim.aggregate: chunked partial sums give the same block as the full table."""
    r = mcsim.simulate("el-grande", games=240, seed=13, players=3, workers=1, chunk_size=35)
    full = G.summarize(r.games, G.prepare(mcsim.runner.resolve_config("el-grande", players=3)[1]))
    got = r.summary["el_grande"]
    for ct in ("1d", "2h", "K"):
        a, b = got["action_cards"][ct], full["action_cards"][ct]
        assert a["taken"] == b["taken"] and a["by_round"] == pytest.approx(b["by_round"])
        for key in ("score_diff", "win_diff"):
            assert a[key]["mean"] == pytest.approx(b[key]["mean"])
            assert a[key]["low"] == pytest.approx(b[key]["low"])
    wa, wb = (
        got["power_cards"]["win_rate_by_first_value"],
        full["power_cards"]["win_rate_by_first_value"],
    )
    assert sorted(wa) == sorted(wb)
    for v in wa:
        assert wa[v]["n"] == wb[v]["n"] and wa[v]["estimate"] == pytest.approx(wb[v]["estimate"])
    for name in G.SOURCES:
        assert got["points_by_source"][name]["mean"] == pytest.approx(
            full["points_by_source"][name]["mean"]
        )


def _cli_replay(tmp_path, rec):
    """``mcsim replay el-grande`` on ``rec``: asserts exit 1 and one 'Error:' line; the result."""
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(rec))
    res = CliRunner().invoke(mcsim_cli, ["replay", "el-grande", str(path)])
    assert res.exit_code == 1, res.output
    assert res.output.count("\n") == 1 and res.output.startswith("Error: "), res.output
    return res


@pytest.mark.parametrize(
    "kind, value, message",
    [
        ("intake", "²", "intake: '²' must be a number of caballeros"),  # isdigit() yes, int() no
        ("veto_cut", "after_²", "veto_cut: 'after_²' must be all or after_K"),
        (
            "intake",
            "99999999999",
            "intake: '99999999999' must be a number",
        ),  # was an int32 OverflowError
        ("veto_cut", "after_99999999999", "veto_cut: 'after_99999999999' must be all or after_K"),
        ("power", "99999999999", "power: '99999999999' is not a power card value"),
        ("power", "-3", "power: '-3' is not a power card value"),
        ("move_from", "GA:99999999999", "move_from: 'GA:99999999999' must be REGION:SEAT"),
        ("move_from", "GA:²", r"move_from: 'GA:²' must be REGION:SEAT"),
        # §2: seats are 0..players-1; PV:3 was read as place*5+seat = the next region's seat 3-5
        ("move_from", "PV:3", r"move_from: 'PV:3': seat 3 is not a seat 0\.\.2"),
        ("move_from", "PV:7", r"move_from: 'PV:7': seat 7 is not a seat 0\.\.2"),
    ],
)
def test_replay_malformed_decision_values_are_one_line_errors(tmp_path, kind, value, message):
    """Bad notation is an InvalidRecordError naming the decision, never a traceback; the CLI
    prints it as one 'Error:' line and exits 1."""
    rec = _record()
    rec["decisions"][0] = {"seat": rec["decisions"][0]["seat"], "kind": kind, "value": value}
    with pytest.raises(InvalidRecordError, match="decision 0: " + message):
        G.replay(rec)
    res = _cli_replay(tmp_path, rec)
    assert res.output.startswith(f"Error: {tmp_path / 'bad.json'}: decision 0: "), res.output


def test_replay_in_range_values_stay_illegal_moves_with_legal_options():
    """A well-formed number no option has (power 999) is an illegal move, not a notation error."""
    rec = _record()
    rec["decisions"][0] = dict(rec["decisions"][0], value="999")
    with pytest.raises(IllegalMoveError) as e:
        G.replay(rec)
    assert e.value.ply == 0 and len(e.value.legal) == 13


def _with(rec, **fields):
    rec = json.loads(json.dumps(rec))
    for k, v in fields.items():
        if k == "seat0":
            rec["decisions"][0]["seat"] = v
        else:
            rec[k] = v
    return rec


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"format": 1}, r'"format" must be 2, got 1 \(format 1 is no longer read\)'),
        ({"format": True}, '"format" must be 2, got true'),
        ({"format": 3}, '"format" must be 2, got 3'),
        ({"seat0": True}, r"decision 0: seat True must be an integer 0\.\.2"),
        ({"seat0": 3}, r"decision 0: seat 3 must be an integer 0\.\.2"),
        ({"variant": ["veto"]}, '"variant" must be an object'),
        ({"variant": "on"}, '"variant" must be an object'),
        ({"points": 5}, '"points" must be a list of numbers'),
        ({"points": ["a", 1, 2]}, '"points" must be a list of numbers'),
    ],
)
def test_replay_malformed_record_fields_are_one_line_errors(tmp_path, fields, message):
    rec = _record()
    assert any(d["kind"] == "intake" for d in rec["decisions"])
    bad = _with(rec, **fields)
    if "points" not in fields:  # the recorded points are checked by the CLI (every game)
        with pytest.raises(InvalidRecordError, match=message):
            G.replay(bad)
    res = _cli_replay(tmp_path, bad)
    assert re.search(message, res.output), res.output


def test_format_1_refused_before_anything_else():
    """A format-1 record is named as such even when it lacks the fields format 2 needs."""
    with pytest.raises(InvalidRecordError, match=r"format 1 is no longer read"):
        G.replay({"game": "el-grande", "format": 1, "players": 4})


def test_card_2a_text_says_all_or_the_remaining_part():
    """docs/rules/el_grande.md §6 2a: a Veto cancels all or the remaining part of one action."""
    text = next(c["text"] for c in G.load_data()["cards"]["cards"] if c["id"] == "2a")
    assert "cancel all or the remaining part of one special action" in text


def test_a2_veto_off_removes_both_vetoes():
    """docs/rules/el_grande.md §10 A2, §6 deck 2: with veto=off the two Veto
    cards leave the game: deck 2 holds its 9 other cards, one revealed per round, so no Veto is
    ever taken and the records list 9 cards for deck 2. With veto=on they stay (11 cards)."""
    veto_ids = [c for c in G.load_data()["card_ids"] if c.startswith("2a")]
    assert len(veto_ids) == 2
    off = mcsim.simulate(
        "el-grande", games=40, seed=8, players=4, variant={"veto": "off"}, record=40
    )
    for cid in veto_ids:
        assert (off.games[f"take_{cid}"] == -1).all()
    for rec in off.records:
        deck2 = rec["setup"]["decks"]["2"]
        assert len(deck2) == 9 and not set(deck2) & set(veto_ids)
        assert G.replay(rec)["points"] == rec["points"]
    on = mcsim.simulate("el-grande", games=40, seed=8, players=4, record=1)
    assert sum(int((on.games[f"take_{cid}"] >= 0).sum()) for cid in veto_ids) > 0
    assert len(on.records[0]["setup"]["decks"]["2"]) == 11
    bad = json.loads(json.dumps(off.records[0]))
    bad["setup"]["decks"]["2"][0] = veto_ids[0]
    with pytest.raises(InvalidRecordError, match="is a Veto, out of the game with veto=off"):
        G.replay(bad)


def test_replay_checks_recorded_points_itself():
    """El Grande's replay() checks the record's points itself (the CLI leaves that to the game)."""
    rec = _record()
    rec["points"] = [p + 1 for p in rec["points"]]
    with pytest.raises(InvalidRecordError, match="record says points"):
        G.replay(rec)
    with pytest.raises(InvalidRecordError, match='"points" must be a list of numbers'):
        G.replay(dict(rec, points="many"))


def test_one_compiled_engine_and_heuristic_behind_pointers_for_every_lineup_and_mode():
    """Compile time: play with random and heuristic lineups, records, replays and single steps
    all run one compiled ``engine`` (one signature: no lineup or mode compiles it again); the
    heuristic and the special actions are compiled on their own and reached through function
    pointers (``D[D_HEUR]``, ``G[G_SPECIAL]``), and a lineup without a heuristic seat gets the
    stub, not the heuristic."""
    r = mcsim.simulate("el-grande", games=2, seed=3, players=3, record=1)
    assert G.replay(r.records[0])["finished"]
    mcsim.simulate("el-grande", games=2, seed=3, policies=["heuristic", "random", "heuristic"])
    T = G.build_tables()
    var = G.SPEC.variant_codes(G.SPEC.resolve_variant({}))
    st = np.zeros(K.STATE_SIZE, np.int32)
    K.setup(st, T, var, 3, new_state(1, 0, 0), np.zeros(K.FIXED_SIZE, np.int32))
    K.step(st, T, var, K.make_buffers(1, 1, len(G.HEURISTIC_PARAMS)), K.STEP_ROUND, 0, 1)
    assert int(st[K.O_ROUND]) == 1
    assert len(K.engine.signatures) == 1
    stub = K.make_buffers(1, 1, 2, heuristic=False)[K.D_HEUR]
    assert stub is K.policy_function(False) and stub is not K.policy_function(True)
