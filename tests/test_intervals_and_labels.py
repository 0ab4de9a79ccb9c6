"""Intervals that stay in their quantity's range (and the verdicts read from them), and labels
that say what their figures are: the summary's time line, Thurn and Taxis' carriage points,
Carcassonne without The Gifts, counts of one, help text (docs/outputs.md, "Intervals")."""

import json

import mcsim
from mcsim import ladder as L
from mcsim import stats
from mcsim.games import get_game

# ---------------------------------------------------------------- intervals in range


def test_paired_difference_of_win_rates_stays_within_minus_one_and_one():
    """Three games won 1-0-0 against 0-1-1: the t interval [-3.20, +2.54] of the mean
    difference leaves [-1, 1], where a difference of win rates lies; it is clipped there."""
    d = stats.paired_difference([1.0, 0.0, 0.0], [0.0, 1.0, 1.0], (0.0, 1.0))
    assert (d["low"], d["high"]) == (-1.0, 1.0)
    assert stats.difference_bounds((0.0, 1.0)) == (-1.0, 1.0)
    assert stats.difference_bounds((0, None)) == (None, None)


def test_ladder_of_three_games_keeps_intervals_in_range_and_reads_no_verdict_from_them():
    """Sacred Hill, random against greedy, 3 games: shares get Wilson intervals, counts and
    scores start at 0, the seat effect stays in [-1, 1], and a convergence interval that
    covers every possible difference says "not enough games", not "stable"."""
    lad = L.ladder("sacred-hill", ["random", "greedy"], games=3, seed=0)
    st = lad["rungs"][1]["statistics"]
    kingdoms = st["decided by kingdoms (share)"]
    assert (kingdoms["low"], kingdoms["high"]) == stats.wilson_interval(2, 3)
    assert st["captures per game"]["low"] == 0.0
    assert st["mean score seat 1"]["low"] == 0.0
    effect = st["seat effect (seat 0 - seat 1 win rate)"]
    assert (effect["low"], effect["high"]) == (-1.0, 1.0)
    v = {x["statistic"]: x for x in lad["verdicts"]}
    assert (v["win rate seat 0"]["low"], v["win rate seat 0"]["high"]) == (-1.0, 1.0)
    assert v["win rate seat 0"]["stable"] is None
    assert v["win rate seat 0"]["verdict"] == L.UNDECIDED
    se = v["seat effect (seat 0 - seat 1 win rate)"]
    assert (se["low"], se["high"], se["verdict"]) == (-2.0, 2.0, L.UNDECIDED)
    # fewer than L.MIN_VERDICT_GAMES common games: no statistic gets a verdict, not even one
    # whose interval holds 0 (a mean score of 3 games: [-7.9, +7.3] read as "stable" before)
    assert {x["verdict"] for x in lad["verdicts"]} == {L.UNDECIDED}
    assert all(x["stable"] is None for x in lad["verdicts"])
    text = L.format_ladder(lad)
    assert (
        "  win rate seat 0                              +0.0000 [-1.0000, +1.0000]: not enough "
        "games: fewer than 32 common games, or an interval that covers every possible difference"
    ) in text


def test_report_seat_effect_in_win_rate_stays_within_100_percentage_points(run, tmp_path):
    """A report of 3 games: the seat effect's win-rate difference is at most ±100 points."""
    res = run("report", "sacred-hill", "-n", 3, "--out", tmp_path / "rep", "-q")
    assert res.exit_code == 0, res.output
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "+33.33 percentage points of win rate [-100.00, +100.00]" in md  # seat 0 - seat 1


def test_compare_win_share_difference_stays_within_minus_one_and_one(run):
    """Sacred Hill's zone readings, 3 games, seed 1: the t interval of the paired win-share
    difference of seat 0 is [-2.10, +0.77]; a difference of win shares lies in [-1, 1]."""
    res = run(
        "compare", "sacred-hill", "--variant", "zone=knight12", "--variant", "zone=chebyshev8",
        "-n", 3, "-s", 1, "-w", 1, "-q", "--json",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    d0, d1 = json.loads(res.output)["paired"][0]["win_share"]
    assert (d0["low"], d1["high"]) == (-1.0, 1.0)
    assert (round(d0["high"], 4), round(d1["low"], 4)) == (0.7676, -0.7676)


# ---------------------------------------------------------------- labels


def _format_summary(summary):
    import cli

    return cli.format_summary(summary, get_game(summary["game"]))


def test_summary_time_line_labels_the_compile_part_and_the_play_only_rate():
    """The seconds include the compile, the rate excludes it: the line says both, so that
    7.97 s and 286,282 games/s over 1,000,000 games agree."""
    r = mcsim.simulate("sacred-hill", games=10, seed=0, workers=1)
    s = dict(r.summary, elapsed_seconds=7.97, compile_seconds=4.48, games_per_second=286282.0)
    line = _format_summary(s).splitlines()[4]
    assert line.endswith(
        "; 7.97 s (4.48 s of it compiling or loading kernels), 286,282 games/s after that"
    )
    s = dict(s, compile_seconds=0.0)
    assert _format_summary(s).splitlines()[4].endswith("; 7.97 s, 286,282 games/s")


def test_one_game_is_counted_as_one_game():
    r = mcsim.simulate("sacred-hill", games=1, seed=0, workers=1)
    assert _format_summary(r.summary).splitlines()[0].startswith("Sacred Hill: 1 game, seed 0,")


def test_thurn_and_taxis_replay_gives_the_carriage_points_beside_its_length(run, tmp_path):
    """docs/rules/thurn_und_taxis.md §5: a carriage of 4 is worth 3 points; the replay line's
    parts add up to the score (carriage points + tiles - houses left)."""
    r = mcsim.simulate("thurn-and-taxis", games=1, seed=0, record=1, workers=1)
    path = tmp_path / "tt.json"
    path.write_text(json.dumps(r.records[0]))
    res = run("replay", "thurn-and-taxis", path)
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[1:4] == [
        "seat 0:  23 points  (carriage 5 (5 points), tiles 19, houses left 1)",
        "seat 1:  12 points  (carriage 4 (3 points), tiles 10, houses left 1)",
        "seat 2:  18 points  (carriage 7 (10 points), tiles 12, houses left 4)",
    ]
    out = json.loads(run("replay", "thurn-and-taxis", path, "--json").output)
    assert out["carriage_points"] == [5, 3, 10]


def test_carcassonne_without_the_gifts_lists_no_gift_points_and_claims_no_expansion(run):
    r = mcsim.simulate("carcassonne", games=2, seed=0, workers=1)
    block = r.summary["carcassonne"]
    assert list(block["points_by_feature"]) == ["road", "city", "monastery", "farm"]
    (line,) = [x for x in _format_summary(r.summary).splitlines() if "by feature" in x]
    assert line.startswith("points per game by feature (all seats): road ")
    assert " farm " in line and "gift" not in line
    spec = get_game("carcassonne").SPEC
    assert spec.long_name == "Carcassonne (base game, farmers; The Gifts with gifts=true)"
    assert spec.title({"gifts": "true"}) == "Carcassonne (base game, farmers) with The Gifts"
    res = run("games")
    assert "carcassonne  (Carcassonne (base game, farmers; The Gifts with gifts=true)," in (
        res.output
    )


def test_precision_help_shows_95_percent_once(run):
    for cmd in ("simulate", "ladder"):
        res = run(cmd, "--help")
        assert res.exit_code == 0, res.output
        assert "95%%" not in res.output
        assert "Play chunk by chunk until the 95% interval" in res.output


def test_tournament_of_a_solo_game_seats_one_player_per_policy(run):
    """Don Quixote is solo by default: three -p values give a three-seat tournament, as
    ``simulate`` infers the seats from the policies."""
    res = run(
        "tournament", "don-quixote", "-p", "random", "-p", "greedy", "-p", "heuristic", "-n", 1,
        "-q", "--json",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    t = json.loads(res.output)
    assert t["players"] == 3
    assert len(t["lineups"]) == 18  # 3 pairs x (2^3 - 2) seatings


def test_evaluate_words_an_undefined_sd_as_undefined(run):
    res = run("evaluate", "don-quixote", "-p", "random", "-p", "greedy", "-n", 1, "-q")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].startswith("Don Quixote: 2 policies on the same 1 deal (seed 0,")
    assert lines[2].startswith("random                     21.00 [undefined]      undefined")
    assert " undef " not in res.output
