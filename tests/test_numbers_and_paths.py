"""Numbers shown as written and read by one rule everywhere (plans included), paths named as
given, one exit code for a path that is not a regular file, Python type mistakes as
``BadValueError``, and a compile notice only when Numba compiles. The rules are in
docs/usage.md ("Numbers", "Errors") and docs/outputs.md."""

import os
import time

import pytest

import mcsim
from mcsim import errors
from tests.conftest import one_error_line


# ---------------------------------------------------------------- numbers as written
@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["simulate", "sacred-hill", "-n", 10, "--chunk-size", "1e30"],
            "Error: --chunk-size must be at most 1,000,000,000,000 (10**12), not 1e30",
        ),
        (
            ["simulate", "sacred-hill", "-n", 10, "--chunk-size", "1e13"],
            "Error: --chunk-size must be at most 1,000,000,000,000 (10**12), not 1e13",
        ),
        (
            ["show", "sacred-hill", "--seed", 1, "--game-index", "1e13", "--out", "x.html"],
            "Error: --game-index must be below 1,000,000,000,000 (10**12), not 1e13",
        ),
        (
            ["simulate", "sacred-hill", "-n", 10, "-p", "mcts:iterations=1e30"],
            "Error: policy 'mcts': parameter iterations=1e30 is outside [1, 1000000]",
        ),
        (
            ["simulate", "sacred-hill", "-n", 10, "-p", "greedy:eps=2"],
            "Error: policy 'greedy': parameter eps=2 is outside [0.0, 1.0]",
        ),
        (
            ["simulate", "sacred-hill", "-n", 10, "-w", "-1e3"],
            "Error: --workers must be a positive whole number, not -1e3",
        ),
    ],
    ids=["chunk-1e30", "chunk-1e13", "game-index-1e13", "iterations-1e30", "eps-2", "workers"],
)
def test_refused_numbers_are_quoted_as_written(run, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    r = run(*args)
    one_error_line(r, 2, message)
    assert r.output.strip() == message


# ---------------------------------------------------------------- one wording per mistake
@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["simulate", "thurn-and-taxis", "-n", 2, "--option", "max_turns=1.5"],
            "Error: option max_turns must be a whole number, not 1.5",
        ),
        (
            ["simulate", "sacred-hill", "-n", 2, "-p", "mcts:iterations=20.5"],
            "Error: policy 'mcts': parameter iterations must be a whole number, not 20.5",
        ),
        (
            ["simulate", "sacred-hill", "-n", "2.5"],
            "Error: --games must be a whole number, not 2.5",
        ),
        (
            ["simulate", "sacred-hill", "-n", 2, "--workers", 0],
            "Error: --workers must be a positive whole number, not 0",
        ),
    ],
    ids=["option", "parameter", "flag", "workers"],
)
def test_a_non_whole_or_non_positive_count_has_one_wording(run, args, message):
    r = run(*args)
    one_error_line(r, 2, message)
    assert r.output.strip() == message


# ---------------------------------------------------------------- plans: the same whole numbers
def _plan(tmp_path, body, name="plan.toml"):
    plan = tmp_path / name
    plan.write_text(f'[[experiment]]\nname = "a"\n{body}\n')
    return plan


@pytest.mark.parametrize(
    "body, summary",
    [
        ('game = "sacred-hill"\ngames = 1e3', "1 cells, 1,000 games"),
        ('game = "sacred-hill"\ngames = 10.0\nseeds = [1e0, 2.0]', "2 cells, 20 games"),
        ('game = "thurn-and-taxis"\ngames = 2\noptions = { max_turns = 1e3 }', "1 cells, 2 games"),
    ],
    ids=["games-1e3", "games-and-seeds-floats", "option-1e3"],
)
def test_plan_whole_floats_are_whole_numbers_as_on_the_command_line(run, tmp_path, body, summary):
    r = run("batch", _plan(tmp_path, body), "--out", tmp_path / "b", "--dry-run")
    assert r.exit_code == 0, r.output
    assert r.output.strip().splitlines()[-1] == summary


def test_plan_non_whole_float_option_gets_the_command_line_wording(run, tmp_path):
    plan = _plan(tmp_path, 'game = "thurn-and-taxis"\ngames = 2\noptions = { max_turns = 1.5 }')
    r = run("batch", plan, "--out", tmp_path / "b", "--dry-run")
    one_error_line(r, 1, "option max_turns must be a whole number, not 1.5")  # a file: 1


# ---------------------------------------------------------------- paths as given
def test_input_file_errors_name_the_path_as_given(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "bad.json").write_text("{")
    (tmp_path / "sub" / "bad.toml").write_text("[[")
    json_error = "is not valid JSON (Expecting property name enclosed in double quotes at line 1"
    r = run("simulate", "don-quixote", "-n", 2, "--option", "tiles=./sub/bad.json")
    one_error_line(r, 1, f"Error: ./sub/bad.json: tile file {json_error}")
    r = run("replay", "don-quixote", "./sub/bad.json")
    one_error_line(r, 1, f"Error: ./sub/bad.json: record {json_error}")
    r = run("batch", "./sub/bad.toml", "--out", "b")
    one_error_line(r, 1, "Error: ./sub/bad.toml: plan is not valid TOML")


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["simulate", "sacred-hill", "-n", 2, "--out", "nodir/deeper/x.parquet"],
            "Error: --out nodir/deeper/x.parquet: folder nodir/deeper does not exist",
        ),
        (
            ["report", "sacred-hill", "-n", 2, "--out", "nodir/deeper"],
            "Error: --out nodir/deeper: folder nodir does not exist",
        ),
    ],
    ids=["simulate", "report"],
)
def test_missing_output_folder_is_named_as_given(run, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    r = run(*args)
    one_error_line(r, 2, message)
    assert r.output.strip() == message


def test_a_missing_data_dir_names_the_folder(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f.json").write_text("{}")
    r = run("simulate", "carcassonne", "-n", 2, "--option", "data_dir=nodir")
    msg = "Error: nodir: data folder does not exist (data_dir is a folder of data files)"
    one_error_line(r, 2, msg)
    assert r.output.strip() == msg
    r = run("simulate", "carcassonne", "-n", 2, "--option", "data_dir=f.json")
    one_error_line(r, 2, "Error: f.json: is not a folder (data_dir is a folder of data files)")


# ---------------------------------------------------------------- not a regular file: exit 2
@pytest.mark.parametrize(
    "args, what",
    [
        (["replay", "sacred-hill", "{f}"], "record"),
        (["batch", "{f}", "--out", "b"], "plan"),
        (["simulate", "don-quixote", "-n", 2, "--option", "tiles={f}"], "tile file"),
    ],
    ids=["record", "plan", "data-file"],
)
def test_a_named_pipe_as_input_is_a_bad_argument(run, tmp_path, monkeypatch, args, what):
    """Like a folder or a missing file (exit 2), not bad contents (exit 1)."""
    monkeypatch.chdir(tmp_path)
    os.mkfifo("ff")
    r = run(*[str(a).format(f="ff") for a in args])
    one_error_line(r, 2, f"Error: ff: {what} is not a regular file (a named pipe)")


def test_a_folder_as_tile_file_is_a_bad_argument(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dd").mkdir()
    r = run("simulate", "don-quixote", "-n", 2, "--option", "tiles=dd")
    one_error_line(r, 2, "Error: dd: is a directory, not a tile file")


# ---------------------------------------------------------------- Python API type mistakes
@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            dict(policies=[5]),
            "policies= must be policy strings such as 'greedy:eps=0.1', not 5 (int)",
        ),
        (dict(policies=5), "policies= must be a policy string or a list of them, not 5 (int)"),
        (
            dict(variant="zone=chebyshev8"),
            "variant= must be a dict of variant: value (e.g. {'zone': 'chebyshev8'}), "
            "not 'zone=chebyshev8' (str)",
        ),
    ],
    ids=["policy-int", "policies-int", "variant-str"],
)
def test_python_type_mistakes_are_bad_values_naming_the_keyword(kwargs, message):
    with pytest.raises(errors.BadValueError) as e:
        mcsim.simulate("sacred-hill", games=10, **kwargs)
    assert type(e.value) is errors.BadValueError
    assert str(e.value) == message


# ---------------------------------------------------------------- the compile notice
def test_a_slow_block_without_compiling_prints_no_compile_notice(monkeypatch, capsys):
    """A slow ``show`` game on a warm cache is not a compile: only Numba's ``numba:compile``
    events count."""
    from mcsim import runner

    monkeypatch.setattr(runner, "COMPILE_NOTICE_AFTER", 0.05)
    with runner.compile_notice("El Grande", True):
        time.sleep(0.3)
    assert capsys.readouterr().err == ""


def test_a_real_compile_prints_the_compile_notice_once(monkeypatch, capsys):
    from numba import njit

    from mcsim import runner

    monkeypatch.setattr(runner, "COMPILE_NOTICE_AFTER", 0.05)

    def f(x):
        return x + 1

    with runner.compile_notice("El Grande", True):
        time.sleep(0.1)  # the timer is due before the compile starts
        assert njit(f)(1) == 2  # a fresh function: compiled, never cached
        time.sleep(0.1)
    err = capsys.readouterr().err
    assert err.count("El Grande: compiling the game's kernels; this happens once") == 1


def test_plan_float_for_a_path_option_is_still_a_type_mistake(run, tmp_path):
    plan = _plan(tmp_path, 'game = "don-quixote"\ngames = 2\noptions = { tiles = 5.0 }')
    r = run("batch", plan, "--out", tmp_path / "b", "--dry-run")
    one_error_line(r, 1, "option tiles must be a file path (a string), not 5.0 (float)")


def test_full_width_digits_get_one_wording_for_flags_options_and_count_parameters(run):
    rule = "is not a valid integer (ASCII digits, optionally with _ separators or in 1e6 form)"
    for args, name in (
        (["simulate", "sacred-hill", "-n", "\uff11\uff10"], "--games"),
        (
            ["simulate", "thurn-and-taxis", "-n", 2, "--option", "max_turns=\uff11\uff10"],
            "option max_turns",
        ),
        (
            ["simulate", "sacred-hill", "-n", 2, "-p", "mcts:iterations=\uff11\uff10"],
            "policy 'mcts': parameter iterations",
        ),
    ):
        r = run(*args)
        one_error_line(r, 2, f"Error: {name}: '\uff11\uff10' {rule}")


def test_an_exponent_of_zero_may_carry_a_minus_sign():
    """``1e-0`` is 1 (a whole number in the ``1e6`` form); ``1e-1`` is not whole."""
    from mcsim.values import parse_whole

    assert (parse_whole("1e-0"), parse_whole("2e-00"), parse_whole("1e-1")) == (1, 2, None)


def test_a_parameter_without_a_value_names_its_policy():
    """``-p greedy:eps`` names the policy as every other policy error does."""
    from mcsim.errors import UnknownPolicyError
    from mcsim.games.base import parse_policy

    with pytest.raises(UnknownPolicyError) as e:
        parse_policy("greedy:eps")
    assert str(e.value) == "policy 'greedy': parameter 'eps' must be written name=value"


def test_evaluate_counts_one_policy_and_players_in_words():
    """The evaluate header says "1 policy" and "2 players", never "policies" or "player(s)"."""
    from mcsim.evaluate import evaluate, format_evaluation

    head = format_evaluation(evaluate("sacred-hill", ["random"], games=2, seed=0)).splitlines()[0]
    assert "1 policy on the same 2 deals" in head and "2 players)" in head, head
