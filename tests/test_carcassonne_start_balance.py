"""Carcassonne's tournament start balance, the variant ``start_balance=tournament``.

docs/rules/carcassonne.md §3.5, §6 #21: with 3 and 4 players seat 0 puts a meeple on the start
tile and seat 1 draws the first tile; with 5 players one V tile is removed; 2 players are refused.
Every game is checked from its record by the naive second implementation of
``tests/test_carcassonne_naive.py`` (flood fill from tiles.json; ``check_draws`` re-checks every
draw, placement and meeple against the rules), never by the kernel's own move lists or counters.
"""

import copy
import json
from collections import Counter

import pytest
from click.testing import CliRunner

import cli
import mcsim
from mcsim.errors import ConfigError, IllegalMoveError, InvalidRecordError
from mcsim.games import carcassonne as G
from tests.test_carcassonne_naive import Naive, check_draws

TOURNAMENT = {"start_balance": "tournament"}
TILES = json.loads((G.DATA_DIR / "tiles.json").read_text())


def _records(players, games, seed, variant, policies=None):
    r = mcsim.simulate(
        "carcassonne",
        games=games,
        seed=seed,
        players=players,
        policies=policies or ["random"] * players,
        variant=variant,
        record=games,
        workers=1,
    )
    return r


def _naive_check(rec):
    """The naive replay of a record with its start-tile meeple; returns (tiles placed per seat,
    the naive game). The seat of each turn is checked against the rule (seat 1 first with the
    start meeple, else seat 0), the start meeple against the naive meeple choices on D (§3.2
    step 2, "none" excluded), every draw and move by ``check_draws``, the points by the naive
    final scoring."""
    players = rec["players"]
    n = Naive(players, rec["variant"])
    first = 0
    if "start_meeple" in rec:
        assert rec["start_meeple"] in n.meeple_choices(0, 0, 0)[1:]
        n.meeples.append([0, 0, 0, rec["start_meeple"]])
        first = 1
    assert [t["player"] for t in rec["turns"]] == [
        (k + first) % players for k in range(len(rec["turns"]))
    ]
    n, _seen = check_draws(rec, n)
    assert n.finish() == rec["points"]
    per_seat = Counter(t["player"] for t in rec["turns"])
    return [per_seat[p] for p in range(players)], n


def _full_pile(removed=None):
    """The 71 drawable tiles of tiles.json by letter (the start tile taken out), less one
    ``removed``."""
    pile = Counter({t["letter"]: t["count"] for t in TILES["tiles"]})
    pile[TILES["start_tile"]] -= 1
    if removed:
        pile[removed] -= 1
    return +pile


@pytest.mark.parametrize(
    "players, balanced, unbalanced",
    [
        (
            4,
            {(17, 18, 18, 18): 29, (17, 18, 18, 17): 1},
            {(18, 18, 18, 17): 28, (18, 18, 17, 17): 2},
        ),
        (3, {(23, 24, 24): 30}, {(24, 24, 23): 27, (24, 23, 23): 3}),
    ],
)
def test_s3_5_tiles_per_seat_and_start_meeple_from_records(players, balanced, unbalanced):
    """docs/rules/carcassonne.md §3.5, §6 #21: with 3-4 players seat 0's meeple stands on the
    start tile and seat 1 takes the first turn, so seat 0 places one tile fewer: 4 players
    18/18/18/17 becomes 17/18/18/18, 3 players 24/24/23 becomes 23/24/24 (tiles placed per seat
    in 30 games on common deals, counted from the records by the naive checker; a game with an
    unplaceable tile takes one from the seat that drew it)."""
    games = 30
    tour = _records(players, games, 8, TOURNAMENT)
    base = _records(players, games, 8, {})
    got = {"tour": Counter(), "base": Counter()}
    segs = Counter()
    for rt, rb, i in zip(tour.records, base.records, range(games)):
        assert rt["tiles"] == rb["tiles"]  # the deal is common to both variants
        assert "start_meeple" not in rb
        segs[rt["start_meeple"]] += 1
        for key, rec, res in (("tour", rt, tour), ("base", rb, base)):
            counts, _n = _naive_check(rec)
            assert counts == [int(res.games.iloc[i][f"tiles_{p}"]) for p in range(players)]
            got[key][tuple(counts)] += 1
    assert got == {"tour": Counter(balanced), "base": Counter(unbalanced)}
    # random play chooses uniformly among the four segments of D, never "none"
    assert set(segs) == {"city0", "road0", "field0", "field1"}


def test_s3_5_start_meeple_scores_with_its_feature():
    """docs/rules/carcassonne.md §3.5: the start-tile meeple is a follower like any other; the
    naive scorer without it disagrees with the kernel's points in some games (so the naive
    agreement of the other tests does check it)."""
    r = _records(4, 30, 8, TOURNAMENT)
    differ = 0
    for rec in r.records:
        n = Naive(4, rec["variant"])
        for turn in rec["turns"]:
            n.turn(turn["player"], turn)
        if n.finish() != rec["points"]:
            differ += 1
    assert differ == 20  # of 30


def test_s3_5_heuristic_puts_its_start_meeple_on_the_road():
    """docs/rules/carcassonne.md §3.5: the heuristic chooses the start tile's segment by its
    feature worth (a 1-tile road with potential beats a 1-tile open city; no farmer before
    ``farm_turn``): the thief on road0, in every game; the records pass the naive checker."""
    r = _records(4, 4, 9, TOURNAMENT, ["heuristic", "random", "heuristic", "random"])
    for rec in r.records:
        assert rec["start_meeple"] == "road0"
        assert sum(_naive_check(rec)[0]) == len(rec["turns"])


def test_s3_5_mcts_start_meeple_replays():
    """docs/rules/carcassonne.md §3.5: an ``mcts`` seat 0 decides the start meeple by search
    among D's four segments (never "none"); the record replays and passes the naive checker."""
    r = _records(3, 1, 4, TOURNAMENT, ["mcts:iterations=8,width=4,depth=2", "random", "random"])
    rec = r.records[0]
    assert rec["start_meeple"] in ("city0", "road0", "field0", "field1")
    assert _naive_check(rec)[0] == [23, 24, 24]
    assert G.replay(rec)["points"] == rec["points"]


def test_s3_5_five_players_remove_one_v_tile():
    """docs/rules/carcassonne.md §3.5: with 5 players one V (curved road) leaves the game: 70
    tiles are drawn, 8 V among them, 14 per seat (15/14/14/14/14 without the variant), seat 0
    first and no start-tile meeple; 12 games from the records by the naive checker."""
    r = _records(5, 12, 3, TOURNAMENT)
    base = _records(5, 12, 3, {})
    got = {"tour": Counter(), "base": Counter()}
    for rt, rb in zip(r.records, base.records):
        assert "start_meeple" not in rt
        assert Counter(rt["tiles"]) == _full_pile(removed="V")
        assert Counter(rb["tiles"]) == _full_pile()
        got["tour"][tuple(_naive_check(rt)[0])] += 1
        got["base"][tuple(_naive_check(rb)[0])] += 1
    assert got == {
        "tour": Counter({(14, 14, 14, 14, 14): 12}),
        "base": Counter({(15, 14, 14, 14, 14): 11, (14, 14, 14, 14, 14): 1}),
    }


def test_s3_5_tournament_records_replay():
    """docs/rules/carcassonne.md §3.5: a record written under the variant replays to its points
    (gifts on too), through ``replay`` and ``mcsim replay``."""
    r = _records(4, 6, 21, {"start_balance": "tournament", "gifts": "true"})
    for rec in r.records:
        assert rec["variant"]["start_balance"] == "tournament"
        assert G.replay(rec)["points"] == rec["points"]
        assert _naive_check(rec)[0][1:] == [18, 18, 18] or len(rec["tiles"]) > len(rec["turns"])


@pytest.fixture(scope="module")
def records4():
    return (
        _records(4, 2, 8, TOURNAMENT).records,
        _records(4, 2, 8, {}).records,
    )


def test_s3_5_record_variant_must_match_its_moves(records4):
    """docs/rules/carcassonne.md §3.5: a record whose variant does not match its moves is
    refused: a start meeple under ``none``, none under ``tournament``, turns starting at seat 0
    under ``tournament``, a start meeple on no segment of D."""
    tour, base = records4
    rec = copy.deepcopy(tour[0])
    rec["variant"]["start_balance"] = "none"
    with pytest.raises(InvalidRecordError, match='"start_meeple" is given but'):
        G.replay(rec)
    rec = copy.deepcopy(tour[0])
    del rec["start_meeple"]
    with pytest.raises(InvalidRecordError, match='"start_meeple" is missing'):
        G.replay(rec)
    rec = copy.deepcopy(base[0])
    rec["variant"]["start_balance"] = "tournament"
    rec["start_meeple"] = "road0"
    with pytest.raises(IllegalMoveError) as e:
        G.replay(rec)
    assert e.value.ply == 0 and e.value.legal == ["player 1"]
    rec = copy.deepcopy(tour[0])
    rec["start_meeple"] = "cloister"
    with pytest.raises(IllegalMoveError) as e:
        G.replay(rec)
    assert e.value.legal == [
        "start_meeple city0",
        "start_meeple road0",
        "start_meeple field0",
        "start_meeple field1",
    ]
    # turns without "player": the other variant's moves are seat 1's from turn 0 on, which
    # runs out of meeples or scores otherwise
    rec = copy.deepcopy(base[0])
    rec["variant"]["start_balance"] = "tournament"
    rec["start_meeple"] = "road0"
    for t in rec["turns"]:
        del t["player"]
    with pytest.raises((InvalidRecordError, IllegalMoveError)):
        G.replay(rec)


def test_s3_5_two_players_are_refused(tmp_path, records4):
    """docs/rules/carcassonne.md §3.5: the tournament rule has no 2-player form: a one-line
    error (exit 2 on the command line, exit 1 for a record), nothing played."""
    msg = "variant start_balance=tournament needs 3-5 players (no 2-player form, §6 #21)"
    with pytest.raises(ConfigError) as e:
        mcsim.simulate("carcassonne", games=1, variant=TOURNAMENT)
    assert str(e.value) == msg
    runner = CliRunner()
    res = runner.invoke(
        cli.mcsim_cli,
        ["simulate", "carcassonne", "-n", "1", "-q", "--variant", "start_balance=tournament"],
    )
    assert res.exit_code == 2 and res.output.strip().splitlines() == [f"Error: {msg}"]
    rec = copy.deepcopy(records4[0][0])
    rec["players"] = 2
    f = tmp_path / "two.json"
    f.write_text(json.dumps(rec))
    res = runner.invoke(cli.mcsim_cli, ["replay", "carcassonne", str(f)])
    lines = res.output.strip().splitlines()
    assert res.exit_code == 1 and len(lines) == 1
    assert lines[0].startswith("Error: ") and lines[0].endswith(msg)


def test_s3_5_cli_lists_records_replays_and_shows_the_variant(tmp_path, records4):
    """docs/rules/carcassonne.md §3.5: ``mcsim games`` lists start_balance; ``mcsim replay``
    validates a tournament record; ``mcsim show`` draws the start-tile meeple and seat 1 first."""
    runner = CliRunner()
    res = runner.invoke(cli.mcsim_cli, ["games", "--json"])
    assert res.exit_code == 0, res.output
    games = {g["id"]: g for g in json.loads(res.stdout)}
    variants = {v["name"]: v for v in games["carcassonne"]["variants"]}
    assert variants["start_balance"]["values"] == ["none", "tournament"]
    assert variants["start_balance"]["default"] == "none"
    rec = records4[0][0]
    f = tmp_path / "rec.json"
    f.write_text(json.dumps(rec))
    res = runner.invoke(cli.mcsim_cli, ["replay", "carcassonne", str(f)])
    assert res.exit_code == 0, res.output
    assert "turns played: 71; finished" in res.output
    show = G.show_frames(rec, G.replay(rec).fields)
    note = f"put a meeple on the start tile ({rec['start_meeple']})"
    assert note in show.frames[0].notes
    assert show.frames[0].to_move.startswith("blue (seat 1")
    assert show.frames[1].actor == "blue"
    assert show.frames[4].actor == "red"
    # the start-tile meeple is drawn from frame 0 on (one more meeple than without it)
    base = records4[1][0]
    plain = G.show_frames(base, G.replay(base).fields)
    assert show.frames[0].svg.count("<circle") == plain.frames[0].svg.count("<circle") + 1


def test_s3_5_perft_refuses_the_tournament_start():
    """docs/rules/carcassonne.md §3.5: ``perft`` counts turns from the plain start; the
    tournament start (seat 0's start-tile meeple first) is a one-line error."""
    with pytest.raises(ConfigError) as e:
        G.perft(1, {"start_balance": "tournament"}, players=4)
    assert str(e.value) == (
        "carcassonne perft counts turns from the plain start; use --variant start_balance=none"
    )
