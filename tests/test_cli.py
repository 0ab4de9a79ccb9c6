"""The command line: every command, and bad input ending in one line and a non-zero exit."""

import json

import pandas as pd
import pytest

from tests.conftest import one_error_line


def test_help_and_version(run):
    r = run("--help")
    assert r.exit_code == 0 and "simulate" in r.output and "replay" in r.output
    for cmd in ("games", "simulate", "replay", "perft"):
        r = run(cmd, "--help")
        assert r.exit_code == 0 and "Example" in r.output
    assert run("--version").output.strip() == "mcsim, version 0.1.0"


def test_games_lists_variants_and_policies(run):
    r = run("games")
    assert r.exit_code == 0
    assert "transition=box|web2014  (default box)" in r.output
    assert "zone=knight12|chebyshev8  (default knight12)" in r.output
    assert "policy   tactician" in r.output
    data = json.loads(run("games", "--json").stdout)
    sh = next(g for g in data if g["id"] == "sacred-hill")
    assert [p["name"] for p in sh["policies"]] == ["random", "greedy", "tactician", "mcts", "mcts1"]
    # each parameter's accepted range, as `-p name:k=v` refuses outside it
    iters = next(p for p in sh["policies"] if p["name"] == "mcts")["param_ranges"]["iterations"]
    assert (iters["low"], iters["high"], iters["integer"]) == (1.0, 1e6, True)
    eps = next(p for p in sh["policies"] if p["name"] == "greedy")["param_ranges"]["eps"]
    assert (eps["low"], eps["high"], eps["integer"]) == (0.0, 1.0, False)


def test_simulate_text_and_json(run):
    r = run("simulate", "sacred-hill", "-n", 500, "--seed", 3, "-q")
    assert r.exit_code == 0
    assert "Sacred Hill: 500 games, seed 3" in r.output and "first-player balance" in r.output
    r = run(
        "simulate",
        "sacred-hill",
        "-n",
        500,
        "--seed",
        3,
        "--json",
        "-p",
        "greedy",
        "-p",
        "random",
        "--variant",
        "transition=web2014",
    )
    s = json.loads(r.stdout)
    assert s["games"] == 500 and s["policies"] == ["greedy", "random"]
    assert s["variant"]["transition"] == "web2014"


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_simulate_out_and_records(run, tmp_path, suffix):
    out = tmp_path / f"games{suffix}"
    rec = tmp_path / "rec.json"
    r = run(
        "simulate",
        "sacred-hill",
        "-n",
        300,
        "--seed",
        2,
        "-q",
        "--out",
        out,
        "--record",
        3,
        "--record-out",
        rec,
    )
    assert r.exit_code == 0, r.output
    df = pd.read_parquet(out) if suffix == ".parquet" else pd.read_csv(out)
    assert len(df) == 300 and {"game_index", "score_0", "score_1", "length_plies"} <= set(df)
    manifest = json.loads((tmp_path / f"games{suffix}.manifest.json").read_text())
    assert manifest["run"]["seed"] == 2 and "numba" in manifest["versions"]
    records = json.loads(rec.read_text())
    assert len(records) == 3
    one = tmp_path / "one.json"
    one.write_text(json.dumps(records[1]))
    r = run("replay", "sacred-hill", one, "--json")
    assert r.exit_code == 0
    got = json.loads(r.stdout)
    assert got["finished"] and got["points"] == [int(df.score_0[1]), int(df.score_1[1])]
    r = run("replay", "sacred-hill", one)
    assert r.exit_code == 0 and "finished: points" in r.output


def test_perft(run):
    assert run("perft", "sacred-hill", "--depth", 3).output.strip() == "9632"
    r = run("perft", "sacred-hill", "-d", 2, "--variant", "zone=chebyshev8")
    assert r.output.strip() == "1980"


@pytest.mark.parametrize(
    "args,code,text",
    [
        (["simulate", "chess"], 2, "'chess' is not one of"),
        (["simulate", "sacred-hill", "-n", "-5"], 2, "--games must be a positive"),
        (["simulate", "sacred-hill", "-n", "0"], 2, "--games must be a positive"),
        (["simulate", "sacred-hill", "-n", "ten"], 2, "'ten' is not a valid integer"),
        (["simulate", "sacred-hill", "-p", "alphazero"], 2, "unknown policy 'alphazero'"),
        (["simulate", "sacred-hill", "--variant", "zone=hex"], 2, "knight12|chebyshev8"),
        (["simulate", "sacred-hill", "--variant", "speed=fast"], 2, "unknown variant 'speed'"),
        (["simulate", "sacred-hill", "--variant", "zone"], 2, "name=value"),
        (["simulate", "sacred-hill", "--workers", "0"], 2, "--workers"),
        (["simulate", "sacred-hill", "--out", "x.txt"], 2, ".parquet or .csv"),
        (["simulate", "sacred-hill", "--record", "2"], 2, "--record-out"),
        (["simulate", "sacred-hill", "--bogus"], 2, "No such option"),
        (["perft", "sacred-hill"], 2, "--depth"),
        (["perft", "sacred-hill", "-d", "2", "--variant", "zone=x"], 2, "zone"),
        (["replay", "sacred-hill", "/no/such/file.json"], 2, "does not exist"),
        # found by a fresh-user test session (regressions)
        (["simulate"], 2, "Missing argument 'GAME'. Choose from: sacred-hill,"),
        (["simulate", "sacred-hill", "-p", "greedy:w_kingdoms=inf"], 2, "must be a finite number"),
        (["simulate", "sacred-hill", "-p", "greedy:"], 2, "no parameters after ':'"),
        (["simulate", "sacred-hill", "-p", "greedy:eps=0.1,eps=0.2"], 2, "'eps' given twice"),
        (
            [
                "simulate",
                "sacred-hill",
                "--variant",
                "zone=knight12",
                "--variant",
                "zone=chebyshev8",
            ],
            2,
            "'zone' is given twice",
        ),
        (
            ["simulate", "sacred-hill", "-n", "10", "--record", "20", "--record-out", "r.json"],
            2,
            "20 records asked of a 10-game run",
        ),
        (
            ["simulate", "sacred-hill", "--record", "2", "--record-out", "r.txt"],
            2,
            "must end in .json",
        ),
        (["simulate", "sacred-hill", "-n", "99999999999999999999"], 2, "at most 1,000,000,000,000"),
        (
            ["simulate", "sacred-hill", "-n", "10", "--backend", "dask", "--scheduler", "notaurl"],
            2,
            "cannot reach the Dask scheduler at notaurl",
        ),
        (
            ["simulate", "sacred-hill", "--option", "foo=1"],
            2,
            "unknown option 'foo' for sacred-hill",
        ),
    ],
)
def test_bad_input_one_line(run, args, code, text):
    one_error_line(run(*args), code, text)


def test_bad_output_dir_leaves_nothing(run, tmp_path):
    r = run("simulate", "sacred-hill", "-n", 10, "--out", tmp_path / "nodir" / "x.parquet")
    one_error_line(r, 2, "does not exist")
    assert list(tmp_path.iterdir()) == []


def test_failed_run_writes_no_output(run, tmp_path):
    out = tmp_path / "g.parquet"
    r = run("simulate", "sacred-hill", "-n", 10, "-p", "nope", "--out", out)
    assert r.exit_code == 2 and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "content,text",
    [
        ("{not json", "is not valid JSON"),
        ('{"game": "sacred-hill", "moves": ["D4", "D4"]}', "illegal move 'D4' at ply 1"),
        ('{"game": "sacred-hill", "moves": ["D4", "Q7"]}', "move at ply 1"),
        ('{"game": "sacred-hill", "moves": "D4"}', '"moves" must be a list'),
    ],
)
def test_replay_bad_records(run, tmp_path, content, text):
    f = tmp_path / "r.json"
    f.write_text(content)
    one_error_line(run("replay", "sacred-hill", f), 1, text)


def test_replay_list_without_index_is_a_usage_error(run, tmp_path):
    """A list of several records needs --index: exit 2, as for an --index out of range."""
    f = tmp_path / "r.json"
    f.write_text('[{"game": "sacred-hill", "moves": []}, {"game": "sacred-hill", "moves": []}]')
    one_error_line(run("replay", "sacred-hill", f), 2, "holds 2 records; choose one with --index")


def test_out_onto_existing_directory_or_under_a_file(run, tmp_path):
    d = tmp_path / "dd.parquet"
    d.mkdir()
    one_error_line(run("simulate", "sacred-hill", "-n", 10, "--out", d), 2, "is a directory")
    f = tmp_path / "plain"
    f.write_text("")
    one_error_line(
        run("simulate", "sacred-hill", "-n", 10, "--out", f / "x.csv"),
        2,
        "is a file, not a directory",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dd.parquet", "plain"]


def test_replay_checks_recorded_points(run, tmp_path):
    rec = tmp_path / "r.json"
    assert (
        run("simulate", "sacred-hill", "-n", 3, "-q", "--record", 1, "--record-out", rec).exit_code
        == 0
    )
    r = json.loads(rec.read_text())
    r["points"] = r["points"][::-1]
    rec.write_text(json.dumps(r))
    one_error_line(run("replay", "sacred-hill", rec), 1, f"Error: {rec}: record says points")


def _one_record(run, tmp_path, game, *args):
    rec = tmp_path / f"{game}.json"
    r = run("simulate", game, "-n", 1, "-q", "--record", 1, "--record-out", rec, *args)
    assert r.exit_code == 0, r.output
    return rec, json.loads(rec.read_text())


def test_replay_wrong_field_types_are_malformed_records(run, tmp_path):
    """Found by a fresh-user test: a field of the wrong type was a traceback, not one line."""
    rec, r = _one_record(run, tmp_path, "thurn-and-taxis")
    r["turns"][0]["draws"] = None
    rec.write_text(json.dumps(r))
    one_error_line(run("replay", "thurn-and-taxis", rec), 1, "malformed thurn-and-taxis record")


def test_replay_el_grande_checks_recorded_points(run, tmp_path):
    rec, r = _one_record(run, tmp_path, "el-grande")
    r["points"] = [p + 1 for p in r["points"]]
    rec.write_text(json.dumps(r))
    one_error_line(run("replay", "el-grande", rec), 1, f"Error: {rec}: record says points")


@pytest.mark.parametrize(
    "game,text",
    [
        ("el-grande", "unknown option 'tiles' for el-grande"),
        ("carcassonne", "unknown option 'tiles' for carcassonne"),
    ],
)
def test_options_a_game_does_not_take(run, game, text):
    one_error_line(run("simulate", game, "-n", 2, "--option", "tiles=/etc/hostname"), 2, text)


def test_record_out_may_not_overwrite_the_out_output(run, tmp_path):
    """The records file cannot replace the table's manifest, the table, or land in --out DIR."""
    table = tmp_path / "t.csv"
    for target in (str(table) + ".manifest.json",):
        r = run(
            "simulate",
            "sacred-hill",
            "-n",
            10,
            "--out",
            table,
            "--record",
            1,
            "--record-out",
            target,
        )
        one_error_line(r, 2, "would overwrite part of the --out output")
    (tmp_path / "d").mkdir()
    r = run(
        "simulate",
        "sacred-hill",
        "-n",
        10,
        "--out",
        tmp_path / "d",
        "--record",
        1,
        "--record-out",
        tmp_path / "d" / "r.json",
    )
    one_error_line(r, 2, "would overwrite part of the --out output")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]
    assert list((tmp_path / "d").iterdir()) == []


def test_ctrl_c_inside_a_numba_call_is_aborted_not_a_traceback():
    """Numba reports Ctrl-C during a jit call as a SystemError whose context is the
    KeyboardInterrupt; the CLI turns that into 'Aborted!' (exit 1) like any Ctrl-C."""
    import cli

    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise SystemError("CPUDispatcher(...) returned a result with an exception set")  # noqa: B904 (the test needs the implicit context)
    except SystemError as e:
        assert cli._interrupted(e)
    assert not cli._interrupted(SystemError("other"))

    @cli.friendly_errors
    def interrupted():
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise SystemError("returned a result with an exception set")  # noqa: B904 (the test needs the implicit context)

    import click

    with pytest.raises(click.Abort):
        interrupted()


def test_perft_replay_and_show_take_quiet(run, monkeypatch):
    """``-q`` turns off the compile notice of the commands that compile in this process, as it
    does for every playing command (the notice is otherwise on for the ``mcsim`` program)."""
    from mcsim import runner

    seen = []

    class Recorder(runner.compile_notice):
        def __init__(self, what, enabled=True):
            seen.append(enabled)
            super().__init__(what, enabled)

    monkeypatch.setattr(runner, "compile_notice", Recorder)
    monkeypatch.setattr(runner, "_notice_wanted", lambda: True)
    assert run("perft", "sacred-hill", "-d", 1).output.strip() == "45"
    assert run("perft", "sacred-hill", "-d", 1, "-q").output.strip() == "45"
    assert seen == [True, False]
    for command in ("replay", "show"):
        assert "-q, --quiet" in run(command, "--help").output
