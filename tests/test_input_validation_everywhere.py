"""One answer per mistake: every number, option value, policy parameter and record file is
checked by the same code (``mcsim.values``, ``mcsim.games.base.check_options``), whichever
command or Python function receives it; Python errors name the keyword, the command line the
flag. The number rule is in docs/usage.md, "Options, errors, Python"."""

import json

import pytest

import mcsim
from mcsim import errors
from mcsim.runner import resolve_config
from tests.conftest import one_error_line


# ---------------------------------------------------------------- option values of the wrong type
def _plan(tmp_path, game, options):
    plan = tmp_path / "plan.toml"
    plan.write_text(f'[[experiment]]\ngame = "{game}"\ngames = 2\noptions = {options}\n')
    return plan


@pytest.mark.parametrize(
    "game,options,message",
    [
        (
            "don-quixote",
            "{ tiles = 5 }",
            "option tiles must be a file path (a string), not 5 (int)",
        ),
        (
            "thurn-and-taxis",
            "{ carriages = true }",
            "option carriages must be a file path (a string), not True (bool)",
        ),
        (
            "carcassonne",
            "{ data_dir = [1] }",
            "option data_dir must be a folder path (a string), not [1] (list)",
        ),
    ],
)
def test_a_plan_option_of_the_wrong_type_is_one_line(run, tmp_path, game, options, message):
    plan = _plan(tmp_path, game, options)
    r = run("batch", plan, "--dry-run")
    one_error_line(r, 1, message)
    assert r.output.startswith(f"Error: {plan}: experiment 'e1' (#1), cell 0 ({game}, ")


@pytest.mark.parametrize(
    "game,options,message",
    [
        (
            "don-quixote",
            {"tiles": 5},
            "option tiles must be a file path (a string), not 5 (int)",
        ),
        (
            "thurn-and-taxis",
            {"carriages": True},
            "option carriages must be a file path (a string), not True (bool)",
        ),
        (
            "carcassonne",
            {"data_dir": [1]},
            "option data_dir must be a folder path (a string), not [1] (list)",
        ),
        ("thurn-and-taxis", {"map": ""}, "option map is empty; give a file path"),
        (
            "sacred-hill",
            ["tiles"],
            "options= must be a dict of option: value, not ['tiles'] (list)",
        ),
    ],
)
def test_a_python_option_of_the_wrong_type_is_a_bad_value_error(game, options, message):
    with pytest.raises(errors.BadValueError) as e:
        mcsim.simulate(game, games=2, options=options)
    assert str(e.value) == message
    assert isinstance(e.value, errors.ConfigError)


# ---------------------------------------------------------------- Python names keywords
@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(games=-3), "games= must be a positive whole number, not -3"),
        (dict(games="10"), "games= must be an int, not '10' (str)"),
        (dict(games=True), "games= must be an int, not True (bool)"),
        (dict(games=2, seed=-1), "seed= must be a whole number in [0, 2**64), not -1"),
        (dict(games=2, workers=0), "workers= must be a positive whole number, not 0"),
        (
            dict(games=2, chunk_size=10**22),
            "chunk_size= must be at most 1,000,000,000,000 (10**12), not "
            "10,000,000,000,000,000,000,000",
        ),
        (dict(games=2, record=-1), "record= must be 0 or more, not -1"),
        (dict(games=2, players="2"), "players= must be an int, not '2' (str)"),
    ],
)
def test_python_api_errors_name_the_keyword(kwargs, message):
    with pytest.raises(errors.BadValueError) as e:
        mcsim.simulate("sacred-hill", **kwargs)
    assert str(e.value) == message


def test_python_api_cross_checks_name_keywords_and_the_cli_names_flags(run):
    with pytest.raises(errors.ConfigError) as e:
        mcsim.simulate("sacred-hill", games=2, scheduler="tcp://x:1")
    assert str(e.value) == "scheduler= goes with backend='dask'"
    with pytest.raises(errors.ConfigError) as e:
        mcsim.simulate("sacred-hill", games=2, resume=True)
    assert str(e.value) == "resume=True needs out_dir= (the directory of the interrupted run)"
    one_error_line(
        run("simulate", "sacred-hill", "-n", 2, "--scheduler", "tcp://x:1"),
        2,
        "Error: --scheduler goes with --backend dask",
    )
    one_error_line(
        run("simulate", "sacred-hill", "-n", -3),
        2,
        "Error: --games must be a positive whole number",
    )
    # and after a command, Python speaks of keywords again
    with pytest.raises(errors.BadValueError, match=r"^games= "):
        mcsim.simulate("sacred-hill", games=0)


def test_an_out_of_range_policy_parameter_is_a_bad_parameter_error():
    with pytest.raises(errors.BadParameterError) as e:
        mcsim.simulate("sacred-hill", games=2, policies=["greedy:eps=2"])
    assert str(e.value) == "policy 'greedy': parameter eps=2 is outside [0.0, 1.0]"
    # callers that catch a bad --policy, or any bad value, still catch it
    assert isinstance(e.value, errors.UnknownPolicyError)
    assert isinstance(e.value, errors.BadValueError)
    with pytest.raises(
        errors.BadParameterError, match="parameter k must be a whole number, not 1.5"
    ):
        mcsim.simulate("don-quixote", games=2, policies=["rollout:k=1.5"])
    # a parameter the policy does not have is still an unknown-policy error, not a bad value
    with pytest.raises(errors.UnknownPolicyError) as e:
        mcsim.simulate("sacred-hill", games=2, policies=["greedy:w_nope=1"])
    assert not isinstance(e.value, errors.BadValueError)


# ---------------------------------------------------------------- evaluate's ensemble flags
@pytest.mark.parametrize("game", ["don-quixote", "sacred-hill"])
def test_ensemble_out_without_tileset_ensemble_is_refused(run, tmp_path, game):
    out = tmp_path / "sets"
    r = run("evaluate", game, "-p", "random", "-n", 2, "--ensemble-out", out)
    one_error_line(r, 2, "Error: --ensemble-out goes with --tileset-ensemble K")
    r = run("evaluate", game, "-p", "random", "-n", 2, "--ensemble-seed", 3)
    one_error_line(r, 2, "Error: --ensemble-seed goes with --tileset-ensemble K")
    assert not out.exists()


@pytest.mark.parametrize("k", [0, -3])
def test_tileset_ensemble_zero_is_refused_like_a_negative_count(run, tmp_path, k):
    out = tmp_path / "sets"
    r = run("evaluate", "don-quixote", "-p", "random", "-n", 2, "--tileset-ensemble", k)
    one_error_line(r, 2, f"Error: --tileset-ensemble must be a positive whole number, not {k}")
    with pytest.raises(errors.BadValueError) as e:
        from mcsim.evaluate import evaluate_ensemble

        evaluate_ensemble("don-quixote", ["random"], k, games=2)
    assert str(e.value) == f"k= must be a positive whole number, not {k}"
    r = run(
        "evaluate", "sacred-hill", "-p", "random", "-n", 2, "--tileset-ensemble", 2,
        "--ensemble-out", out,
    )  # fmt: skip
    one_error_line(r, 2, "Error: sacred-hill has no component ensemble")
    assert not out.exists()


# ---------------------------------------------------------------- one variant check
def test_perft_checks_variants_as_every_other_command(run):
    message = "Error: variant gift_deck=synod needs gifts=true (it is a reading of The Gifts, §4)"
    one_error_line(run("perft", "carcassonne", "--variant", "gift_deck=synod", "-d", 1), 2, message)
    one_error_line(
        run("simulate", "carcassonne", "--variant", "gift_deck=synod", "-n", 2), 2, message
    )
    r = run("perft", "carcassonne", "-d", 1)
    assert r.exit_code == 0 and r.output == "20\n"


def test_compare_checks_every_arm_before_playing(monkeypatch):
    from mcsim import runner

    def no_play(*a, **k):
        raise AssertionError("a game was played")

    monkeypatch.setattr(runner.RunOptions, "simulate", no_play)
    from mcsim.compare_variants import compare_variants

    with pytest.raises(errors.ConfigError) as e:
        compare_variants("carcassonne", ["gifts=false", "gift_deck=synod"], games=2)
    assert (
        str(e.value)
        == "variant gift_deck=synod needs gifts=true (it is a reading of The Gifts, §4)"
    )


# ---------------------------------------------------------------- one rule for whole numbers
@pytest.mark.parametrize(
    "text,value",
    [
        ("10", 10),
        ("1_000_000", 1_000_000),
        ("1e6", 1_000_000),
        ("1E3", 1000),
        ("2.5e3", 2500),
        ("+7", 7),
        ("-3", -3),
        (" 12 ", 12),
        ("1.5", None),
        ("1e-3", None),
        ("1.5e0", None),
        ("10.0", 10),
        ("1.0e-1", None),
        ("10**22", None),
        ("0x10", None),
        ("1__0", None),
        ("_1", None),
        ("\uff11\uff12", None),  # full-width 12
        ("\u0661\u0662", None),  # Arabic-Indic 12
        ("1 000", None),
        ("", None),
    ],
)
def test_whole_number_rule(text, value):
    from mcsim.values import parse_whole

    assert parse_whole(text) == value


@pytest.mark.parametrize(
    "args,message",
    [
        (
            ["-n", "\uff11\uff10"],
            "Error: --games: '\uff11\uff10' is not a valid integer (ASCII digits, optionally "
            "with _ separators or in 1e6 form)",
        ),
        (
            ["-n", 10, "--chunk-size", 10**22],
            "Error: --chunk-size must be at most 1,000,000,000,000 (10**12), not "
            "10000000000000000000000",  # as written
        ),
        (
            ["-n", "1e13"],
            "Error: --games must be at most 1,000,000,000,000 (10**12), not 1e13",  # as written
        ),
        (["-n", 10, "--seed", "1e30"], "Error: --seed must be a whole number in [0, 2**64)"),
        # thousands of digits: not read (no int of 5,000 digits), quoted short, one line
        (
            ["-n", "1" * 5000],
            "Error: --games must be at most 1,000,000,000,000 (10**12), not "
            + "1" * 40
            + "... (5,000 characters)",
        ),
        (["-n", 10, "-w", "-1e3"], "Error: --workers must be a positive whole number, not -1e3"),
        # 1e6 is read as 1,000,000 (the refusal comes from comparing it with --record)
        (
            ["-n", "1e6", "--record", "2_000_000", "--record-out", "r.json"],
            "Error: Invalid value for --record: 2000000 records asked of a 1000000-game run",
        ),
        (
            ["-p", "mcts:iterations=\uff11\uff10", "-n", 2],
            "Error: policy 'mcts': parameter iterations: '\uff11\uff10' is not a valid integer "
            "(ASCII digits, optionally with _ separators or in 1e6 form)",  # as every count
        ),
    ],
)
def test_flags_follow_the_whole_number_rule(run, args, message):
    one_error_line(run("simulate", "sacred-hill", *args), 2, message)


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "sacred-hill", "-n", 2, "-p", "mcts:iterations=x"],
        ["tournament", "sacred-hill", "-n", 1, "-p", "mcts:iterations=x", "-p", "random"],
        ["evaluate", "sacred-hill", "-n", 1, "-p", "mcts:iterations=x", "-p", "random"],
        ["ladder", "sacred-hill", "-n", 1, "-p", "random", "-p", "mcts:iterations=x"],
        ["tune", "sacred-hill", "-p", "mcts:iterations=x", "--budget", 10, "--dry-run"],
    ],
)
def test_a_count_parameter_that_is_no_number_gets_the_same_answer_from_every_command(run, args):
    """tournament, evaluate, ladder and tune used to say "'x' is not a number" where simulate
    says what a whole number is: one mistake, one answer."""
    one_error_line(
        run(*args),
        2,
        "Error: policy 'mcts': parameter iterations: 'x' is not a valid integer "
        "(ASCII digits, optionally with _ separators or in 1e6 form)",
    )


def test_options_and_parameters_follow_the_whole_number_rule():
    _, cfg = resolve_config("thurn-and-taxis", options={"max_turns": "1e3"})
    assert cfg.options == {"max_turns": 1000}
    _, cfg = resolve_config("thurn-and-taxis", options={"max_turns": "1_000"})
    assert cfg.options == {"max_turns": 1000}
    with pytest.raises(errors.BadValueError) as e:
        resolve_config("thurn-and-taxis", options={"max_turns": "\uff11\uff10"})
    assert str(e.value) == (
        "option max_turns: '\uff11\uff10' is not a valid integer (ASCII digits, optionally with "
        "_ separators or in 1e6 form)"
    )
    with pytest.raises(errors.BadValueError) as e:
        resolve_config("thurn-and-taxis", options={"max_turns": "1e6"})
    assert str(e.value) == "option max_turns must be a whole number in 1..100,000, not 1e6"
    _, cfg = resolve_config("sacred-hill", policies=["mcts:iterations=1e6"])
    assert cfg.policies[0].params == {"iterations": 1e6}


def test_tune_flags_follow_the_whole_number_rule(run):
    r = run("tune", "sacred-hill", "-p", "tactician", "--budget", "2e5", "--dry-run", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["settings"]["budget"] == 200_000
    one_error_line(
        run("tune", "sacred-hill", "-p", "tactician", "--budget", "\uff12", "--dry-run"),
        2,
        "Error: --budget: '\uff12' is not a valid integer",
    )


# ---------------------------------------------------------------- files named as given
def test_record_errors_name_the_file(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "emptyobj.json").write_text("{}")
    (tmp_path / "ill.json").write_text('{"game": "sacred-hill", "players": 2, "moves": ["zz"]}')
    expected = (
        'Error: emptyobj.json: not a sacred-hill record (expected {"game": "sacred-hill", ...})'
    )
    one_error_line(run("replay", "sacred-hill", "emptyobj.json"), 1, expected)
    one_error_line(run("show", "sacred-hill", "emptyobj.json", "--out", "x.html"), 1, expected)
    assert not (tmp_path / "x.html").exists()
    one_error_line(
        run("replay", "sacred-hill", "ill.json"),
        1,
        "Error: ill.json: move at ply 0: 'zz' is not a hill",
    )


@pytest.mark.parametrize(
    "game,key,text,message",
    [
        ("don-quixote", "tiles", '{"x": 1}', "top level must be an object with a 'tiles' list"),
        ("thurn-and-taxis", "carriages", "{}", "missing field 'carriages'"),
    ],
)
def test_data_file_errors_name_the_path_as_given(tmp_path, monkeypatch, game, key, text, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "data.json").write_text(text)
    with pytest.raises(errors.DataFileError) as e:
        mcsim.simulate(game, games=1, options={key: "sub/data.json"})
    assert str(e.value) == f"sub/data.json: {message}"


def test_carcassonne_data_errors_name_the_path_as_given(tmp_path, monkeypatch):
    import shutil

    from mcsim.games.carcassonne import DATA_DIR

    monkeypatch.chdir(tmp_path)
    shutil.copytree(DATA_DIR, tmp_path / "mine")
    doc = json.loads((tmp_path / "mine" / "tiles.json").read_text())
    doc["tiles"][0]["count"] = 0
    (tmp_path / "mine" / "tiles.json").write_text(json.dumps(doc))
    with pytest.raises(errors.DataFileError) as e:
        mcsim.simulate("carcassonne", games=1, options={"data_dir": "mine"})
    assert str(e.value).startswith("mine/tiles.json: ")


def test_non_finite_numbers_are_refused_as_written(run, tmp_path):
    one_error_line(
        run("simulate", "sacred-hill", "-n", 2, "-p", "greedy:w_kingdoms=1e400"),
        2,
        "Error: policy 'greedy': parameter w_kingdoms=1e400 must be a finite number",
    )
    one_error_line(
        run("tune", "sacred-hill", "-p", "greedy", "--param", "w_kingdoms=0:1e400", "--dry-run"),
        2,
        "Error: --param 'w_kingdoms=0:1e400': HIGH=1e400 must be a finite number",
    )
    carriages = tmp_path / "c.json"
    carriages.write_text('{"carriages": {"3": 1e400}}')
    one_error_line(
        run("simulate", "thurn-and-taxis", "-n", 2, "--option", f"carriages={carriages}"),
        1,
        f"Error: {carriages}: data file is not valid JSON (1e400 must be a finite number)",
    )
    plan = tmp_path / "p.toml"
    plan.write_text('title = "x"\nweight = inf\n')
    one_error_line(
        run("batch", plan, "--dry-run"),
        1,
        f"Error: {plan}: plan is not valid TOML (inf must be a finite number)",
    )


# ---------------------------------------------------------------- the same game options everywhere
def test_every_command_that_plays_takes_game_options(run):
    commands = ("simulate", "tournament", "compare", "evaluate", "tune", "report", "show", "perft")
    for command in commands:
        r = run(command, "--help")
        assert r.exit_code == 0 and "--option KEY=VALUE" in r.output, command


def test_perft_counts_on_the_game_options(run, tmp_path):
    import shutil

    from mcsim.games.carcassonne import DATA_DIR

    # a one-turn cap ends the game before the fourth decision: no sequence of 4
    assert run("perft", "thurn-and-taxis", "-d", 4).output == "75\n"
    assert run("perft", "thurn-and-taxis", "-d", 4, "--option", "max_turns=1").output == "0\n"
    # the first tile of the table moved last: the pile starts with another tile
    shutil.copytree(DATA_DIR, tmp_path / "mine")
    doc = json.loads((tmp_path / "mine" / "tiles.json").read_text())
    doc["tiles"] = doc["tiles"][1:] + doc["tiles"][:1]
    (tmp_path / "mine" / "tiles.json").write_text(json.dumps(doc))
    r = run("perft", "carcassonne", "-d", 2, "--option", f"data_dir={tmp_path / 'mine'}")
    assert (r.exit_code, r.output) == (0, "384\n")
    assert run("perft", "carcassonne", "-d", 2).output == "790\n"
    one_error_line(
        run("perft", "sacred-hill", "-d", 1, "--option", "tiles=x.json"),
        2,
        "Error: unknown option 'tiles' for sacred-hill (its options: none)",
    )


def test_compare_takes_game_options(run, tmp_path):
    missing = tmp_path / "nope.json"
    one_error_line(
        run(
            "compare", "don-quixote", "--variant", "defence_road=own-half",
            "--variant", "defence_road=half-only", "-n", 2, "-q", "--option", f"tiles={missing}",
        ),
        2,
        f"Error: {missing}: tile file does not exist",
    )  # fmt: skip
    r = run(
        "compare", "thurn-and-taxis", "--variant", "hand_limit=after_close",
        "--variant", "hand_limit=every_turn", "-n", 2, "-q", "--json", "--option", "max_turns=1",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    arms = json.loads(r.output)["arms"]
    # a one-turn cap ends every game at once with a shared win (the option reached the games)
    assert [a["seats"][0]["win_rate"]["estimate"] for a in arms] == pytest.approx([1 / 3, 1 / 3])
