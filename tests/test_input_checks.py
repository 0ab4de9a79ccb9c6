"""Input that was accepted but should not be, misleading messages, and what a user expects: each
test failed on the code before its fix."""

import copy
import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

import mcsim
from cli import mcsim_cli
from mcsim.errors import DataFileError
from mcsim.games import thurn_and_taxis as TT

ROOT = Path(__file__).resolve().parents[1]
TT_DATA = Path(str(resources.files("mcsim") / "data" / "thurn_and_taxis"))
#: where each game's record keeps its list of moves (cut-short records are cut there)
MOVES = {
    "sacred-hill": lambda r: [r["moves"]],
    "don-quixote": lambda r: [p["placements"] for p in r["players"]],
    "el-grande": lambda r: [r["decisions"]],
    "carcassonne": lambda r: [r["turns"]],
    "thurn-and-taxis": lambda r: [r["turns"]],
}


def invoke(*args):
    return CliRunner().invoke(mcsim_cli, [str(a) for a in args])


def one_line(r, code, text):
    assert r.exit_code == code, r.output
    assert r.stdout == "" and len(r.stderr.splitlines()) == 1, r.output
    assert r.stderr.startswith("Error: ") and text in r.stderr, r.stderr


@pytest.fixture(scope="module")
def records():
    """One complete record per game (seed 0, game 0)."""
    return {g: mcsim.simulate(g, games=1, seed=0, record=1).records[0] for g in MOVES}


def replay(tmp_path, game, record, *args):
    f = tmp_path / f"{game}.json"
    f.write_text(json.dumps(record))
    return invoke("replay", game, f, *args)


# ------------------------------------------------------------------ §6 accepted input
def test_carcassonne_record_with_fewer_tiles_than_turns(tmp_path, records):
    rec = copy.deepcopy(records["carcassonne"])
    rec["tiles"] = rec["tiles"][:5]
    one_line(
        replay(tmp_path, "carcassonne", rec),
        1,
        f'"tiles" lists 5 draws but the record has {len(rec["turns"])} turns',
    )


def _tt_file(tmp_path, name, edit):
    doc = json.loads((TT_DATA / name).read_text())
    edit(doc)
    f = tmp_path / name
    f.write_text(json.dumps(doc))
    return f


def test_bonus_stack_of_unknown_kind(tmp_path):
    f = _tt_file(tmp_path, "bonus_tiles.json", lambda d: d["stacks"][0].update(kind="bridge"))
    with pytest.raises(DataFileError, match=r"stack 'route5': kind 'bridge' must be 'route'"):
        TT.load_bonus_tiles(TT.load_map()["regions"], f)


def test_carriage_copies_must_be_one_per_player(tmp_path):
    f = _tt_file(tmp_path, "carriages.json", lambda d: d["carriages"][0].update(copies=10**9))
    with pytest.raises(DataFileError, match=r"copies 1000000000 must be 4, one per player"):
        TT.load_carriages(f)


def test_total_tiles_message_names_the_field(tmp_path):
    f = _tt_file(tmp_path, "bonus_tiles.json", lambda d: d.update(total_tiles=31))
    with pytest.raises(DataFileError) as e:
        TT.load_bonus_tiles(TT.load_map()["regions"], f)
    assert str(e.value) == (  # the path as given, not only its basename
        f"{f}: 'total_tiles' is 31, but the stacks hold 30 tiles (§2.2)"
    )


@pytest.mark.parametrize(
    "policy,text",
    [
        ("rollout:k=1.5", "parameter k must be a whole number, not 1.5"),
        ("rollout:base=1.5", "parameter base must be a whole number, not 1.5"),
        ("oracle:beam=2.5", "parameter beam must be a whole number, not 2.5"),
        # whole-number parameters print as integers in range errors (were "0.0 ... [1.0, 1000000.0]")
        ("mcts:iterations=0", "policy 'mcts': parameter iterations=0 is outside [1, 1000000]"),
        ("mcts:iterations=0.5", "policy 'mcts': parameter iterations=0.5 is outside [1, 1000000]"),
        ("mcts:c=200", "policy 'mcts': parameter c=200 is outside [0.0, 100.0]"),  # not integer
    ],
)
def test_integer_policy_parameters(policy, text):
    one_line(invoke("simulate", "don-quixote", "-n", 1, "-p", policy), 2, text)


def test_two_values_for_one_option_are_refused(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    one_line(
        invoke(
            "simulate", "don-quixote", "-n", 1, "--option", f"tiles={a}", "--option", f"tiles={b}"
        ),
        2,
        "'tiles' is given twice",
    )
    one_line(
        invoke(
            "simulate",
            "thurn-and-taxis",
            "-n",
            1,
            "--option",
            f"tiles={a}",
            "--option",
            f"bonus_tiles={b}",
        ),
        2,
        "unknown option 'tiles' for thurn-and-taxis",  # the alias of bonus_tiles is removed
    )
    one_line(
        invoke(
            "compare",
            "carcassonne",
            "-n",
            2,
            "--variant",
            "gifts=true,gifts=false",
            "--variant",
            "gifts=false",
        ),
        2,
        "variant 'gifts' is given twice",
    )


# ------------------------------------------------------------------ §6 misleading messages
def test_don_quixote_rot_as_a_string_is_named_as_such(tmp_path, records):
    rec = copy.deepcopy(records["don-quixote"])
    rec["players"][0]["placements"][0]["rot"] = "0"
    one_line(
        replay(tmp_path, "don-quixote", rec),
        1,
        'player 0 placement 0: "rot" must be the number 0 or 180, not "0"',
    )


def test_carcassonne_coordinate_printed_as_written(tmp_path, records):
    rec = copy.deepcopy(records["carcassonne"])
    rec["turns"][0]["place"][0] = 10**30
    r = replay(tmp_path, "carcassonne", rec)
    one_line(r, 1, f"illegal move 'place {rec['turns'][0]['tile']} {10**30},")
    assert "9999" not in r.stderr.split("legal moves")[0]


def test_a_policy_string_in_python_is_one_policy():
    r = mcsim.simulate("sacred-hill", games=10, policies="tactician")
    assert r.summary["policies"] == ["tactician", "tactician"]


def test_points_of_the_wrong_type_are_not_spelled_out(tmp_path, records):
    for game in MOVES:
        rec = dict(records[game], points="abc")
        r = replay(tmp_path, game, rec)
        one_line(r, 1, '"points" must be a list of numbers, not "abc"')


@pytest.mark.parametrize("game", list(MOVES))
def test_variant_of_the_wrong_type(tmp_path, records, game):
    rec = dict(records[game], variant="x")
    one_line(replay(tmp_path, game, rec), 1, '"variant" must be an object')


def test_out_naming_a_device_or_nothing(tmp_path):
    one_line(
        invoke("simulate", "sacred-hill", "-n", 5, "--out", "/dev/full"),
        2,
        "/dev/full exists and is not a directory",
    )
    one_line(
        invoke("simulate", "sacred-hill", "-n", 5, "--out", ""),
        2,
        "is empty; give a file or directory name",
    )
    one_line(
        invoke("report", "sacred-hill", "-n", 5, "--out", "/dev/full"),
        2,
        "/dev/full exists and is not a directory",
    )
    one_line(
        invoke("batch", ROOT / "examples" / "sacred_hill.toml", "--out", "/dev/full"),
        2,
        "/dev/full exists and is not a directory",
    )


def test_one_game_sd_is_undefined():
    r = invoke("simulate", "sacred-hill", "-n", 1, "-q")
    assert r.exit_code == 0, r.output
    rows = [ln for ln in r.stdout.splitlines() if ln.lstrip().startswith(("0 ", "1 "))]
    assert [ln.split()[-6:-3] for ln in rows] == [
        ["3.000", "[undefined]", "undefined"],
        ["0.000", "[undefined]", "undefined"],
    ], r.stdout
    s = json.loads(invoke("simulate", "sacred-hill", "-n", 1, "-q", "--json").stdout)
    assert [seat["score"]["sd"] for seat in s["seats"]] == [None, None]


def test_mcsim_alone_prints_the_normal_help():
    r = CliRunner().invoke(mcsim_cli, [], prog_name="mcsim")
    assert r.exit_code == 0 and r.stderr == ""
    assert r.stdout.startswith("Usage: mcsim [OPTIONS] COMMAND [ARGS]...\n\n  Monte Carlo")
    assert "\nCommands:\n" in r.stdout


def test_a_closed_stdout_is_not_an_error():
    """`mcsim games | head -1`: the reader closes the pipe; no "Error: Broken pipe"."""
    p = subprocess.Popen(
        [sys.executable, str(ROOT / "cli.py"), "games"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    p.stdout.close()  # before the command writes anything (it imports first)
    err = p.stderr.read().decode()
    assert p.wait() == 1
    assert err == ""


# ------------------------------------------------------------------ §7 what a user expects
def test_replay_index_picks_one_record_of_a_list(tmp_path):
    f = tmp_path / "recs.json"
    assert (
        invoke("simulate", "sacred-hill", "-n", 5, "-q", "--record", 3, "--record-out", f).exit_code
        == 0
    )
    recs = json.loads(f.read_text())
    r = invoke("replay", "sacred-hill", f, "--index", 2, "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["points"] == recs[2]["points"]
    assert json.loads(r.stdout) != json.loads(
        invoke("replay", "sacred-hill", f, "-i", 0, "--json").stdout
    )
    one_line(
        invoke("replay", "sacred-hill", f), 2, f"{f} holds 3 records; choose one with --index 0..2"
    )
    one_line(invoke("replay", "sacred-hill", f, "--index", 3), 2, f"{f} holds 3 records (0..2)")


def test_tournament_help_has_its_own_meanings():
    r = invoke("tournament", "--help")
    text = " ".join(r.stdout.split())
    assert "-n, --games INTEGER Games per lineup" in text
    assert "Seats per game (default: the game's default seat count" in text
    assert "--chunk-size" not in text
    one_line(
        invoke("tournament", "sacred-hill", "-p", "random", "-p", "greedy", "--chunk-size", 5),
        2,
        "No such option '--chunk-size'",
    )


def test_evaluate_says_it_measures_self_play():
    r = invoke("evaluate", "sacred-hill", "-p", "random", "-p", "greedy", "-n", 20, "-q")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[1] == (
        "self-play: all 2 seats play the evaluated policy, so this measures its score against "
        "copies of itself, not its strength; for head-to-head strength use `mcsim tournament`"
    )
    j = json.loads(
        invoke("evaluate", "sacred-hill", "-p", "random", "-n", 20, "-q", "--json").stdout
    )
    assert j["measures"] == "self-play"


@pytest.mark.parametrize("game", list(MOVES))
def test_cut_short_record_replays_as_unfinished(tmp_path, records, game):
    rec = copy.deepcopy(records[game])
    for moves in MOVES[game](rec):
        del moves[len(moves) // 2 :]
    r = replay(tmp_path, game, rec, "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["finished"] is False
