"""Output folders answered by one rule everywhere (``mcsim.outputs.check_run_folder``):
``report --force`` replaces only an earlier report's files, ``ladder --out`` takes the same
answers (and ``--force``) as every other command, the Python API names its keywords
(``out_dir=``, ``resume=True``, ``force=True``) and refuses an empty ``out_dir``, an empty
``--scheduler`` is refused as an empty ``--out`` is, and a resume note is shown even with
``--quiet`` (docs/usage.md, "Options, errors, Python").
"""

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest

import mcsim
from mcsim.errors import BadValueError, ConfigError, OutputError
from tests.conftest import one_error_line

PLAN = '[[experiment]]\nname = "d"\ngame = "sacred-hill"\ngames = 20\nseeds = [1, 2, 3]\n'
LADDER = ["ladder", "sacred-hill", "-n", 4, "-p", "random", "-p", "greedy", "-w", 1, "-q"]


def snapshot(folder: Path) -> dict:
    """Every file under ``folder`` (hidden ones included) by relative name: its SHA-256."""
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


# ---------------------------------------------------------------- report --force
def test_report_force_refuses_a_folder_holding_files_that_are_not_a_reports(run, tmp_path):
    """`report --out DIR --force` on a folder with a user's notes.txt (alone, or beside an
    earlier report) is refused as simulate, tune and batch refuse it, and the folder is left
    byte for byte; over an earlier report alone --force replaces it."""
    mine = tmp_path / "unrel2"
    mine.mkdir()
    (mine / "notes.txt").write_text("hi\n")
    args = ["report", "sacred-hill", "-n", 100, "-w", 1, "-q"]
    for extra in ([], ["--force"]):
        r = run(*args, "--out", mine, *extra)
        one_error_line(
            r,
            2,
            f"--out {mine} is not empty and holds 'notes.txt', not only an earlier report; "
            "choose another folder",
        )
    assert snapshot(mine) == {"notes.txt": hashlib.sha256(b"hi\n").hexdigest()}
    rep = tmp_path / "rep"
    assert run(*args, "--out", rep).exit_code == 0
    r = run(*args, "--out", rep)
    one_error_line(r, 2, f"--out {rep} holds an earlier report; use --force to replace it")
    (rep / "notes.txt").write_text("mine")
    before = snapshot(rep)
    r = run(*args, "--out", rep, "--force")
    one_error_line(r, 2, f"--out {rep} is not empty and holds 'notes.txt', not only an earlier")
    assert snapshot(rep) == before
    (rep / "notes.txt").unlink()
    r = run(*args, "-s", 7, "--out", rep, "--force")
    assert r.exit_code == 0, r.output
    assert json.loads((rep / "summary.json").read_text())["seed"] == 7
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep", "unrel2"]


# ---------------------------------------------------------------- Python API out_dir=
def test_api_empty_out_dir_is_refused_and_writes_nothing_in_the_current_folder(
    tmp_path, monkeypatch
):
    """`mcsim.simulate(..., out_dir='')` raises BadValueError naming out_dir= (an empty
    name would be the current folder) and writes nothing there."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BadValueError) as e:
        mcsim.simulate("sacred-hill", games=10, out_dir="")
    assert str(e.value) == (
        "out_dir= is empty; give a folder name (the current folder is never an output folder)"
    )
    assert list(tmp_path.iterdir()) == []


def test_api_out_dir_on_an_earlier_run_or_a_file_names_the_keywords(tmp_path):
    """From Python an earlier run in out_dir is refused naming resume=True / force=True (not
    --resume / --force), and a file as out_dir raises OutputError, not a bare
    NotADirectoryError; the earlier run and the file stay as they were."""
    out = tmp_path / "run1"
    mcsim.simulate("sacred-hill", games=10, out_dir=out)
    before = snapshot(out)
    with pytest.raises(OutputError) as e:
        mcsim.simulate("sacred-hill", games=10, out_dir=out)
    assert str(e.value) == (
        f"out_dir={str(out)!r} holds an earlier run; use resume=True to continue it or "
        "force=True to replace it"
    )
    assert snapshot(out) == before
    from mcsim.precision import simulate_to_precision

    with pytest.raises(OutputError) as e:  # sized by precision: the same check
        simulate_to_precision("sacred-hill", 0.1, max_games=100, out_dir=out)
    assert str(e.value).startswith(f"out_dir={str(out)!r} holds an earlier run; use resume=True")
    with pytest.raises(BadValueError):
        simulate_to_precision("sacred-hill", 0.1, max_games=100, out_dir="")
    assert snapshot(out) == before
    with pytest.raises(ConfigError) as e:
        mcsim.simulate("sacred-hill", games=10, out_dir=out, resume=True, force=True)
    assert str(e.value) == "force=True starts over and resume=True continues: give one of them"
    f = tmp_path / "afile"
    f.write_text("x")
    with pytest.raises(OutputError) as e:
        mcsim.simulate("sacred-hill", games=10, out_dir=f)
    assert str(e.value) == f"out_dir={str(f)!r} exists and is not a folder"
    assert f.read_text() == "x"
    with pytest.raises(OutputError) as e:
        mcsim.simulate("sacred-hill", games=10, out_dir=tmp_path / "typo", resume=True)
    assert str(e.value) == (
        f"out_dir={str(tmp_path / 'typo')!r}: cannot resume: the folder does not exist"
    )


# ---------------------------------------------------------------- ladder --out
def test_ladder_out_answers_the_output_mistakes_as_every_command(run, tmp_path):
    """ladder --out: an unrelated folder is refused (no --resume hint, also with --force), a
    missing folder with --resume and a file name their flag as simulate's do, an earlier
    ladder needs --resume or --force, and --force replaces it only after a valid run."""
    mine = tmp_path / "unrel"
    mine.mkdir()
    (mine / "notes.txt").write_text("hi")
    for extra in ([], ["--force"]):
        r = run(*LADDER, "--out", mine, *extra)
        one_error_line(
            r,
            2,
            f"--out {mine} is not empty and holds 'notes.txt', not only an earlier ladder; "
            "choose another folder",
        )
        assert "--resume" not in r.output
    typo = tmp_path / "nosuchdir4"
    r = run(*LADDER, "--out", typo, "--resume")
    one_error_line(r, 2, f"--out {typo}: cannot resume: the folder does not exist")
    assert not typo.exists()
    f = tmp_path / "runF.csv"
    f.write_text("keep")
    one_error_line(run(*LADDER, "--out", f), 2, f"{f} exists and is not a directory")
    out = tmp_path / "L1"
    assert run(*LADDER, "--out", out).exit_code == 0
    before = snapshot(out)
    r = run(*LADDER, "--out", out)
    one_error_line(
        r, 2, f"--out {out} holds an earlier ladder; use --resume to continue it or --force"
    )
    r = run(*LADDER, "--out", out, "--force", "-p", "tacticain")
    assert r.exit_code == 2 and "unknown policy 'tacticain'" in r.output, r.output
    assert snapshot(out) == before
    r = run(*LADDER, "--out", out, "--force", "--resume")
    one_error_line(r, 2, "--force starts over and --resume continues: give one of them")
    r = run(*LADDER, "-s", 5, "--out", out, "--force")
    assert r.exit_code == 0, r.output
    assert json.loads((out / "ladder.json").read_text())["seed"] == 5
    manifest = json.loads((out / "rung-0-random" / "_manifest.json").read_text())
    assert manifest["run"]["seed"] == 5
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]


# ---------------------------------------------------------------- --scheduler ''
def test_empty_scheduler_is_refused_as_an_empty_out(run):
    """`--scheduler ''` is no address: refused (exit 2) before any game, as an empty --out,
    rather than starting a LocalCluster; from Python BadValueError naming scheduler=."""
    r = run("simulate", "sacred-hill", "-n", 10, "--backend", "dask", "--scheduler", "")
    one_error_line(
        r,
        2,
        "Invalid value for '--scheduler': is empty; give a scheduler address such as "
        "tcp://host:8786",
    )
    with pytest.raises(BadValueError) as e:
        mcsim.simulate("sacred-hill", games=10, backend="dask", scheduler=" ")
    assert str(e.value) == ("scheduler= is empty; give a scheduler address such as tcp://host:8786")


# ---------------------------------------------------------------- resume notes under -q
def test_resume_note_of_a_replayed_chunk_or_cell_shows_with_quiet(run, tmp_path):
    """With -q a resumed simulate or batch still says which saved games it played again (an
    edited part or cell summary): the user learns the folder was changed."""
    out = tmp_path / "d"
    args = ["simulate", "sacred-hill", "-n", 1000, "--chunk-size", 500, "-w", 1, "-s", 3]
    assert run(*args, "-q", "--out", out).exit_code == 0
    part = out / "part-000000000500.parquet"
    df = pd.read_parquet(part)
    df["score_0"] = 99
    df.to_parquet(part, index=False)
    (out / "_summary.json").unlink()
    r = run(*args, "-q", "--out", out, "--resume")
    assert r.exit_code == 0, r.output
    notes = [ln for ln in r.stderr.splitlines() if ln.startswith("note:")]
    assert [n.split(" (")[0] for n in notes] == ["note: resume: played games 500..999 again"]
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    bo = tmp_path / "bo"
    assert run("batch", plan, "--out", bo, "-q").exit_code == 0
    cell = bo / "experiments" / "d-001.json"
    doc = json.loads(cell.read_text())
    doc["seats"][0]["score"]["mean"] = 123.0
    cell.write_text(json.dumps(doc, indent=2))
    r = run("batch", plan, "--out", bo, "--resume", "-q")
    assert r.exit_code == 0, r.output
    assert [ln for ln in r.stderr.splitlines() if ln.startswith("note:")] == [
        f"note: resume: cell d-001 played again ({cell}: cell summary was edited or not "
        "written by this mcsim)"
    ]


@pytest.mark.parametrize(
    "command",
    [
        ["compare", "sacred-hill", "--variant", "zone=knight12", "--variant", "zone=chebyshev8"],
        ["ladder", "sacred-hill", "-p", "random", "-p", "greedy"],
        ["value", "sacred-hill"],
        ["report", "sacred-hill"],
        ["simulate", "sacred-hill"],
    ],
)
def test_an_out_folder_below_a_file_is_named_as_such(run, tmp_path, command):
    """``--out FILE/sub``: the message says the parent is a file (not that it does not exist),
    before any game, and nothing is written."""
    (tmp_path / "afile").write_text("x")
    out = tmp_path / "afile" / "sub"
    one_error_line(
        run(*command, "-n", 5, "-q", "--out", out), 2, f"--out {out}: {out.parent} is a file"
    )
    assert (tmp_path / "afile").read_text() == "x"
