"""Replays of unfinished or mislabelled records, tournaments of three or more seats with
non-transitive rankings, compare above the in-memory row limit, and how intervals print."""

import json

import pytest

import mcsim.runner
from mcsim.compare_variants import compare_variants

SH_ARMS = ["transition=box", "transition=web2014"]


# ---------------------------------------------------------------- compare above the row limit


def test_compare_sacred_hill_above_row_limit_plays_and_reports(run):
    """Above 2,000,000 games per arm ``simulate`` keeps no rows in memory; compare streams
    the arms' rows instead (it used to fail after playing, on the missing rows)."""
    res = run(
        "compare",
        "sacred-hill",
        "--variant",
        SH_ARMS[0],
        "--variant",
        SH_ARMS[1],
        "-n",
        2_000_001,
        "-s",
        3,
        "-w",
        1,
        "-q",
        "--json",
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["games"] == 2_000_001
    paired = out["paired"][0]
    assert paired["score"][0]["n"] == 2_000_001
    # the same game in both arms has the same winner 1,709,849 times; seat 0 scores
    # -274,026 points less in total with web2014 (mean -0.13701293149353425)
    assert paired["same_winner"]["estimate"] == 1_709_849 / 2_000_001
    assert paired["score"][0]["mean"] == pytest.approx(-274_026 / 2_000_001, rel=1e-12)


def test_compare_sacred_hill_streamed_equals_in_memory(monkeypatch):
    """The streamed path (rows read back chunk by chunk) gives the in-memory path's numbers:
    exact counts and means, intervals to round-off."""
    small = compare_variants("sacred-hill", SH_ARMS, games=3000, seed=4)
    monkeypatch.setattr(mcsim.runner, "KEEP_GAMES_LIMIT", 1000)
    big = compare_variants("sacred-hill", SH_ARMS, games=3000, seed=4)
    a, b = small["paired"][0], big["paired"][0]
    assert b["same_winner"] == a["same_winner"]
    assert b["seat_balance_change"] == a["seat_balance_change"]
    for key in ("mean_score", "score_spread", "winner_margin"):
        assert b[key]["n"] == 3000
        for k in ("mean", "low", "high", "sd"):
            assert b[key][k] == pytest.approx(a[key][k], rel=1e-9, abs=1e-12)
    for s in range(2):
        for k in ("mean", "low", "high", "sd"):
            assert b["score"][s][k] == pytest.approx(a["score"][s][k], rel=1e-9, abs=1e-12)
            assert b["win_share"][s][k] == pytest.approx(a["win_share"][s][k], rel=1e-9, abs=1e-12)
    assert big["arms"][1]["winner_margin"]["mean"] == pytest.approx(
        small["arms"][1]["winner_margin"]["mean"], rel=1e-12
    )


def test_compare_don_quixote_solo_streamed_equals_in_memory(monkeypatch):
    """A solo comparison takes the streamed path too above the limit (score only)."""
    arms = ["last_tile_rotation=free", "last_tile_rotation=random"]
    small = compare_variants("don-quixote", arms, games=300, seed=4, players=1)
    monkeypatch.setattr(mcsim.runner, "KEEP_GAMES_LIMIT", 100)
    big = compare_variants("don-quixote", arms, games=300, seed=4, players=1)
    assert big["paired"][0]["score"]["mean"] == pytest.approx(
        small["paired"][0]["score"]["mean"], rel=1e-12
    )
    assert big["arms"][0]["score"]["n"] == 300


# ---------------------------------------------------------------- Carcassonne's header


def test_carcassonne_header_without_gifts_names_no_gifts(run):
    """With ``gifts=false`` the header neither says "with The Gifts" nor lists the readings of
    The Gifts (they change nothing then, rules §4)."""
    res = run("simulate", "carcassonne", "-n", 2, "-q")
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[0] == (
        "Carcassonne (base game, farmers): 2 games, seed 0, 2 players, "
        "variant gifts=false farms=v3 tiny_city=false start_balance=none"
    )


def test_carcassonne_header_with_gifts_lists_their_readings(run):
    """With ``gifts=true`` the header says so and lists every reading of The Gifts."""
    res = run("simulate", "carcassonne", "-n", 2, "-q", "--variant", "gifts=true")
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[0] == (
        "Carcassonne (base game, farmers) with The Gifts: 2 games, seed 0, 2 players, "
        "variant gifts=true farms=v3 tiny_city=false gift_shared_majority=no_gift "
        "gift_on_completion=gift cash_out_counts=all change_to_completed=disallow "
        "take2_other=shuffle gift_majority_judged=after_placement gift_deck=all "
        "start_balance=none"
    )


# ---------------------------------------------------------------- Thurn and Taxis, unfinished


def test_thurn_and_taxis_unfinished_replay_scores_as_they_stand(run, tmp_path):
    """docs/rules/thurn_und_taxis.md §5: the houses not placed are subtracted at the game's
    end only; an unfinished record's replay gives the scores as they stand (here 0 after four
    turns) and the penalty apart (20 houses each), not -20 as "the score so far"."""
    from tests.test_thurn_and_taxis_rules import HANDWRITTEN

    path = tmp_path / "part.json"
    path.write_text(json.dumps(HANDWRITTEN))
    res = run("replay", "thurn-and-taxis", path, "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["finished"] is False
    assert out["scores"] == out["points"] == [0, 0, 0]
    assert out["house_penalty"] == [20, 20, 20]
    assert out["score_if_ended_now"] == [-20, -20, -20]
    res = run("replay", "thurn-and-taxis", path)
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[1] == (
        "seat 0:   0 points so far  (carriage -, tiles 0); houses left 20: penalty -20 at "
        "the end, -20 if the game ended now"
    )


# ---------------------------------------------------------------- El Grande records


def _el_grande_record(variant=None):
    import mcsim

    return mcsim.simulate(
        "el-grande", games=1, seed=2, players=3, variant=variant or {}, record=1
    ).records[0]


def test_el_grande_unfinished_replay_stops_and_says_where(monkeypatch):
    """A record cut after 40 decisions: the kernel stops at the end of the turn the record
    leaves (it played the whole game on with option 0 before), and the result names the
    decision asked for next with its legal values."""
    import kernels.el_grande as K
    from mcsim.games import el_grande as G

    rec = _el_grande_record()
    full = len(rec["decisions"])
    rec["decisions"] = rec["decisions"][:40]
    calls = []
    real = K.run_logged
    monkeypatch.setattr(K, "run_logged", lambda *a: calls.append(real(*a)) or calls[-1])
    out = G.replay(rec)
    made = calls[0][1]  # decisions the kernel made
    assert full == 217 and made == 41  # the 40 decisions and option 0 up to the turn's end
    assert out["finished"] is False and out["plies"] == 40
    nxt = out["next_decision"]
    assert (nxt["index"], nxt["seat"], nxt["kind"]) == (40, 2, "place")
    assert nxt["legal"] == ["stop", "AR", "CA", "NC", "GR", "CS"]
    assert G.format_replay(out).splitlines()[0] == (
        "not finished: the record ends after 40 decisions; decision 40 is seat 2's place "
        "(stop, AR, CA, NC, GR, CS)"
    )


def test_el_grande_veto_off_record_relabelled_veto_on_is_refused(run, tmp_path):
    """docs/rules/el_grande.md §10 A2: a veto=off record lists deck 2 without its two Vetoes;
    relabelled veto=on it does not fit the variant and is refused before any decision."""
    rec = _el_grande_record({"veto": "off"})
    rec["variant"]["veto"] = "on"
    path = tmp_path / "relabelled.json"
    path.write_text(json.dumps(rec))
    res = run("replay", "el-grande", path)
    assert res.exit_code == 1
    assert res.output == (
        f"Error: {path}: setup: deck 2 lists 9 cards, the deck of a veto=off game (its Vetoes are out "
        "of the game, A2), but the record says veto=on: deck 2 must list all its 11 cards "
        "(top first)\n"
    )


@pytest.mark.parametrize("deck", ["1", "3"])
def test_el_grande_empty_deck_is_refused_up_front(deck, run, tmp_path):
    """An empty (or short) deck list is refused when the setup is read, naming the deck, not
    at the first card decision that it lacks."""
    rec = _el_grande_record()
    rec["setup"]["decks"][deck] = []
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(rec))
    res = run("replay", "el-grande", path)
    assert res.exit_code == 1
    assert res.output == (
        f"Error: {path}: setup: deck {deck} must list all its 11 cards (top first), not 0 cards\n"
    )


# ---------------------------------------------------------------- how intervals print


def test_interval_text_one_convention_for_undefined_bounds():
    """Every text output prints an interval through ``interval_text``: undefined bounds (NaN or
    None) print "[undefined]", whatever the format."""
    from mcsim.stats import interval_text, mean_interval

    nan = float("nan")
    assert interval_text({"low": nan, "high": nan}, "+.2f") == "[undefined]"
    assert interval_text({"low": None, "high": None}) == "[undefined]"
    assert interval_text(mean_interval([3.0])) == "[undefined]"
    assert interval_text({"low": -0.5, "high": 0.25}, "+.2f") == "[-0.50, +0.25]"
    assert interval_text({"low": 0.25, "high": 0.5}, ".1f", 100) == "[25.0, 50.0]"


def test_mean_interval_of_a_count_stays_in_its_range():
    """A count's t interval is clipped to the count's range (0 and up): 1 unplaceable tile in
    10 games was 0.100 [-0.126, 0.326]."""
    from mcsim.stats import mean_interval, mean_interval_from_moments, moments

    x = [1] + [0] * 9
    free = mean_interval(x)
    assert round(free["low"], 3) == -0.126
    count = mean_interval(x, (0, None))
    assert count["low"] == 0.0 and count["high"] == free["high"]
    assert mean_interval_from_moments(moments(x), (0, None))["low"] == 0.0
    assert mean_interval([0.9, 1.0], (None, 1))["high"] == 1.0


def test_carcassonne_unplaceable_tiles_interval_never_negative(run):
    """Carcassonne, seed 1, 10 games: one tile removed in all; its interval starts at 0."""
    res = run("simulate", "carcassonne", "-n", 10, "-s", 1, "-q")
    assert res.exit_code == 0, res.output
    line = [ln for ln in res.output.splitlines() if ln.startswith("unplaceable")][0]
    assert line.startswith("unplaceable tiles per game: 0.100 [0.000, 0.326]; ")


def test_compare_sacred_hill_one_game_prints_undefined_intervals(run):
    """One game per arm: every mean interval is undefined and prints "[undefined]" (it printed
    "[+nan, +nan]"); nothing prints "nan"."""
    res = run(
        "compare",
        "sacred-hill",
        "--variant",
        SH_ARMS[0],
        "--variant",
        SH_ARMS[1],
        "-n",
        1,
        "-w",
        1,
        "-q",
    )
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[2] == "  seat 0: win rate 1.0000 [0.2065, 1.0000]  mean score 3.00 [undefined]"
    assert lines[-4] == "  seat 0: win share +0.0000 [undefined]  score +0.00 [undefined]"
    assert "nan" not in res.output


def test_report_interval_cells_print_undefined():
    """The report's table cells use the same convention (they printed "[n/a, n/a]")."""
    from mcsim.report import _ci

    nan = float("nan")
    assert _ci({"mean": 2.0, "low": nan, "high": nan}, "mean", "{:.3f}") == "2.000 [undefined]"


# ---------------------------------------------------------------- tournaments of 3+ seats

RPS_D = ["rock", "paper", "scissors", "dud"]
#: rock-paper-scissors (each beats the next-but-one 60:40) plus a policy all three beat 80:20
RPS_SHARE = [
    [0.5, 0.4, 0.6, 0.8],
    [0.6, 0.5, 0.4, 0.8],
    [0.4, 0.6, 0.5, 0.8],
    [0.2, 0.2, 0.2, 0.5],
]


def test_lineups_sacred_hill_two_seats_unchanged_and_three_seats_every_seating():
    """2 seats: A-B and B-A per pair (as before). 3+ seats: every seating of each pair (it was
    only the rotations of the alternating A-B-A... patterns), so with 4 seats A-A-B-B plays."""
    from mcsim.tournament import lineups

    assert lineups(["a", "b", "c"], 2) == [
        ("a", "b"),
        ("b", "a"),
        ("a", "c"),
        ("c", "a"),
        ("b", "c"),
        ("c", "b"),
    ]
    four = lineups(["a", "b"], 4)
    assert ("a", "a", "b", "b") in four and ("a", "b", "b", "b") in four
    assert len(four) == 14 and len(set(four)) == 14
    assert len(lineups(["a", "b", "c"], 5)) == 3 * 30


def test_lineups_latin_square_above_five_seats():
    """Above 30 seatings per pair (6 seats: 62) the Latin square of rotations: for each count
    k of A-seats the 6 rotations of A x k + B x (6 - k), each policy in each seat 15 times."""
    from mcsim.tournament import lineups

    plan = lineups(["a", "b"], 6)
    assert len(plan) == 30 and len(set(plan)) == 30
    assert [sum(lu[s] == "a" for lu in plan) for s in range(6)] == [15] * 6


def test_meta_game_rock_paper_scissors_nash_and_alpha_rank():
    """A rock-paper-scissors cycle with a policy that all three beat: Elo would put the three
    level, above the dud, but cannot say the field is a cycle; Nash averaging gives the uniform
    mixture over the cycle (rating 0 each, the dud -0.3) and alpha-Rank a third of the mass to
    each of rock, paper and scissors, none to the dud."""
    import numpy as np

    from mcsim.tournament import alpha_rank, is_transitive, meta_payoff, nash_averaging

    m = meta_payoff(np.array(RPS_SHARE))
    assert m.ravel().tolist() == pytest.approx(
        [0, -0.1, 0.1, 0.3, 0.1, 0, -0.1, 0.3, -0.1, 0.1, 0, 0.3, -0.3, -0.3, -0.3, 0], abs=1e-15
    )
    assert is_transitive(m) == (False, [0, 2, 1])  # rock beats scissors beats paper beats rock
    mix, rating = nash_averaging(m)
    assert mix.tolist() == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0], abs=1e-12)
    assert rating.tolist() == pytest.approx([0, 0, 0, -0.3], abs=1e-12)
    assert alpha_rank(m).tolist() == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0], abs=1e-12)


def test_meta_game_uneven_cycle_nash_mixture():
    """An uneven cycle (a beats b 90:10, b beats c 90:10, c beats a 60:40): Elo ranks a > b >
    c, the Nash mixture is (4/9, 1/9, 4/9) (weights proportional to the margin of the match
    the policy is not in) and every policy in it rates 0."""
    import numpy as np

    from mcsim.tournament import meta_payoff, nash_averaging

    m = meta_payoff(np.array([[0.5, 0.9, 0.4], [0.1, 0.5, 0.9], [0.6, 0.1, 0.5]]))
    mix, rating = nash_averaging(m)
    assert mix.tolist() == pytest.approx([4 / 9, 1 / 9, 4 / 9], abs=1e-12)
    assert rating.tolist() == pytest.approx([0, 0, 0], abs=1e-12)


def test_meta_game_transitive_field_puts_all_weight_on_the_best():
    """A transitive field: Nash and alpha-Rank both put everything on the strongest policy."""
    import numpy as np

    from mcsim.tournament import alpha_rank, is_transitive, meta_payoff, nash_averaging

    m = meta_payoff(np.array([[0.5, 0.7, 0.8], [0.3, 0.5, 0.6], [0.2, 0.4, 0.5]]))
    assert is_transitive(m) == (True, None)
    mix, rating = nash_averaging(m)
    assert mix.tolist() == pytest.approx([1, 0, 0], abs=1e-12)
    assert rating.tolist() == pytest.approx([0, -0.2, -0.3], abs=1e-12)
    assert alpha_rank(m).tolist() == pytest.approx([1, 0, 0], abs=1e-12)


def test_tournament_text_ranks_a_cycle_by_the_meta_game():
    """The text output says the field is not transitive and lists Nash and alpha-Rank."""
    import numpy as np

    from mcsim.tournament import _format_meta, meta_payoff, meta_rankings

    t = {"policies": RPS_D, **meta_rankings(RPS_D, meta_payoff(np.array(RPS_SHARE)))}
    lines = _format_meta(t)
    assert lines[0] == (
        "meta-game (win share - 1/2): NOT transitive (rock beats scissors beats paper beats "
        "rock): Elo's single scale cannot rank a cycle; rank by Nash averaging or alpha-Rank:"
    )
    assert [ln.split()[0] for ln in lines[2:]] == ["rock", "paper", "scissors", "dud"]
    assert lines[-1] == "  dud                0.0000      -0.3000           0.0000"


def test_tournament_don_quixote_three_seats_plays_every_seating():
    """Don Quixote, 3 seats, random vs greedy: the 6 seatings of the pair on common deals, and
    the meta-game rankings beside Elo."""
    from mcsim.tournament import lineups, tournament

    t = tournament("don-quixote", ["random", "greedy"], players=3, games=20, seed=1)
    assert [tuple(lu["policies"]) for lu in t["lineups"]] == lineups(["random", "greedy"], 3)
    assert len(t["lineups"]) == 6
    assert {e["policy"] for e in t["nash"]} == {"random", "greedy"}
    assert sum(m["mass"] for m in t["alpha_rank"]["mass"]) == pytest.approx(1.0)
    share = t["matrix"][0][1]["estimate"]
    assert t["meta_game"]["payoff"][0][1] == pytest.approx(share - 0.5)


def test_sacred_hill_mean_score_interval_stays_at_or_above_zero(run):
    """Sacred Hill, seed 0, 3 games: a seat's score is a count (``SPEC.score_bounds``), so the
    mean score's interval starts at 0 (it printed 2.333 [-2.838, 7.504])."""
    res = run("simulate", "sacred-hill", "-n", 3, "-s", 0, "-q")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert "2.333 [0.000, 7.504]" in lines[2] and "1.667 [0.000, 8.838]" in lines[3]
