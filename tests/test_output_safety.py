"""Nothing lost, nothing silently wrong: ``--force`` replaces an earlier output only once the new
one has finished, ``--resume`` reuses only the files the run itself wrote, and every command
answers the same output mistake the same way (docs/usage.md, "Options, errors, Python").

Test names start with what they cover: ``force_``, ``resume_``, ``outputs_``.
"""

import errno
import hashlib
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import one_error_line

TUNE = ["tune", "sacred-hill", "-p", "tactician", "--param", "w_kingdoms", "--budget", 300]
TUNE += ["-w", 1, "--seed", 3, "-q"]
PLAN = '[[experiment]]\nname = "d"\ngame = "sacred-hill"\ngames = 20\nseeds = [1, 2, 3]\n'
TIMING = ("elapsed_seconds", "games_per_second", "compile_seconds")


def snapshot(folder: Path) -> dict:
    """Every file under ``folder`` (hidden ones included) by relative name: its SHA-256."""
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def hidden(folder: Path) -> list[str]:
    """Names starting with "." in ``folder``: staging or temporary files left behind."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.fixture
def batch_plan(tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    return plan


# ---------------------------------------------------------------- --force loses nothing
def test_force_simulate_rejected_by_policy_or_seed_keeps_the_earlier_dataset(run, tmp_path):
    """`simulate --out DIR --force` with an unknown policy or a negative seed exits 2 and
    leaves the earlier dataset byte for byte; a valid --force run replaces it whole."""
    out = tmp_path / "runF"
    args = ["simulate", "sacred-hill", "-n", 2000, "-w", 1, "-q", "--out", out]
    assert run(*args).exit_code == 0
    before = snapshot(out)
    r = run(*args, "--force", "-p", "tacticain")
    one_error_line(r, 2, "unknown policy 'tacticain' for sacred-hill")
    assert snapshot(out) == before
    r = run(*args, "--force", "--seed", -5)
    one_error_line(r, 2, "--seed must be a whole number in [0, 2**64), not -5")
    assert snapshot(out) == before
    r = run(*args, "--force", "--seed", 4)
    assert r.exit_code == 0, r.output
    assert json.loads((out / "_manifest.json").read_text())["run"]["seed"] == 4
    assert len(pd.read_parquet(out)) == 2000
    assert hidden(tmp_path) == [] and hidden(out) == []


def test_force_simulate_interrupted_keeps_the_earlier_dataset(run, tmp_path, monkeypatch):
    """A --force run that stops after its first chunk (here: Ctrl-C in the merge) leaves the
    earlier dataset as it was and no staging folder."""
    import mcsim.runner as runner

    out = tmp_path / "runF"
    args = ["simulate", "sacred-hill", "-n", 600, "--chunk-size", 200, "-w", 1, "-q"]
    assert run(*args, "--out", out).exit_code == 0
    before = snapshot(out)

    def interrupted(self, plan, done, results, bar):
        next(results)
        raise KeyboardInterrupt

    monkeypatch.setattr(runner._ChunkRun, "merge", interrupted)
    r = run(*args, "-s", 2, "--out", out, "--force")
    assert r.exit_code == 1 and r.output == "Aborted!\n"
    assert snapshot(out) == before
    assert hidden(tmp_path) == []


def test_force_tune_rejected_by_policy_or_seed_keeps_the_earlier_run(run, tmp_path):
    """`tune --out DIR --force` with an unknown policy or a negative seed exits 2 and leaves
    the earlier tuning run's four files as they were."""
    out = tmp_path / "tt"
    assert run(*TUNE, "--out", out).exit_code == 0
    before = snapshot(out)
    r = run(*TUNE, "--out", out, "--force", "-p", "tacticain")
    one_error_line(r, 2, "unknown policy 'tacticain' for sacred-hill")
    assert snapshot(out) == before
    r = run(*TUNE[:-3], "--seed", -5, "-q", "--out", out, "--force")
    one_error_line(r, 2, "--seed must be a whole number in [0, 2**64), not -5")
    assert snapshot(out) == before
    assert hidden(tmp_path) == []


def test_force_batch_with_an_unreachable_scheduler_keeps_the_earlier_cells(
    run, tmp_path, batch_plan, monkeypatch
):
    """`batch --force` whose Dask scheduler cannot be reached (the connection error of
    ``mcsim.runner._dask_client``, without waiting for its 10 s timeout) keeps every file of
    the earlier batch; a --force batch that finishes replaces them."""
    from mcsim.errors import ConfigError

    out = tmp_path / "bo"
    assert run("batch", batch_plan, "--out", out, "-q").exit_code == 0
    before = snapshot(out)

    def unreachable(workers, scheduler):
        raise ConfigError(f"cannot reach the Dask scheduler at {scheduler} (timed out)")

    monkeypatch.setattr("mcsim.runner._dask_client", unreachable)
    args = ["batch", batch_plan, "--out", out, "-q", "--force", "--backend", "dask"]
    r = run(*args, "--scheduler", "tcp://127.0.0.1:1")
    one_error_line(r, 2, "cannot reach the Dask scheduler at tcp://127.0.0.1:1")
    assert snapshot(out) == before
    assert hidden(tmp_path) == []
    r = run("batch", batch_plan, "--out", out, "-q", "--force", "-w", 1)
    assert r.exit_code == 0, r.output
    assert sorted(snapshot(out)) == sorted(before)
    assert hidden(tmp_path) == [] and hidden(out) == []


def test_force_replaces_a_run_in_a_linked_or_the_current_folder_in_place(
    run, tmp_path, monkeypatch
):
    """--force writes the new run inside the folder and swaps the files there: a folder given
    through a symlink stays a symlink to the same place, and `--out .` works from inside it."""
    real = tmp_path / "disk" / "runs"
    real.mkdir(parents=True)
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    args = ["simulate", "sacred-hill", "-n", 300, "-w", 1, "-q"]
    assert run(*args, "--out", link).exit_code == 0
    assert run(*args, "-s", 5, "--out", link, "--force").exit_code == 0
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert json.loads((real / "_manifest.json").read_text())["run"]["seed"] == 5
    monkeypatch.chdir(real)
    assert run(*args, "-s", 6, "--out", ".", "--force").exit_code == 0
    assert json.loads((real / "_manifest.json").read_text())["run"]["seed"] == 6
    assert len(pd.read_parquet(real)) == 300
    assert hidden(real) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["disk", "link"]


def test_force_refuses_a_folder_with_other_files_than_an_earlier_run(run, tmp_path, batch_plan):
    """--force replaces an earlier run's folder whole, so a folder that also holds other files
    is refused (exit 2, naming the first such file) by simulate, tune and batch alike."""
    for args, what in (
        (["simulate", "sacred-hill", "-n", 50, "-q"], "run"),
        (TUNE, "tuning run"),
        (["batch", batch_plan, "-q"], "batch"),
    ):
        out = tmp_path / what.replace(" ", "_")
        assert run(*args, "--out", out).exit_code == 0
        (out / "notes.txt").write_text("mine")
        before = snapshot(out)
        r = run(*args, "--out", out, "--force")
        one_error_line(
            r,
            2,
            f"--out {out} is not empty and holds 'notes.txt', not only an earlier {what}; "
            "choose another folder",
        )
        assert snapshot(out) == before


# ---------------------------------------------------------------- --resume: own files only
@pytest.fixture(scope="module")
def seed_runs(tmp_path_factory):
    """A finished seed-3 and seed-9 run (2000 Sacred Hill games, chunks of 500) and the
    seed-3 run's summary without its timings."""
    from click.testing import CliRunner

    from cli import mcsim_cli

    base = tmp_path_factory.mktemp("seeds")
    fresh = {}
    for seed in (3, 9):
        args = ["simulate", "sacred-hill", "-n", "2000", "--chunk-size", "500", "-w", "1"]
        r = CliRunner().invoke(
            mcsim_cli, [*args, "-s", str(seed), "--json", "--out", str(base / f"s{seed}")]
        )
        assert r.exit_code == 0, r.output
        fresh[seed] = {k: v for k, v in json.loads(r.stdout).items() if k not in TIMING}
    return base, fresh[3]


def _interrupted_seed3(seed_runs, tmp_path) -> Path:
    base, _ = seed_runs
    out = tmp_path / "s3"
    shutil.copytree(base / "s3", out)
    (out / "part-000000001500.parquet").unlink()  # as if interrupted in the last chunk
    (out / "_summary.json").unlink()
    return out


def _resume_seed3(run, out):
    args = ["simulate", "sacred-hill", "-n", 2000, "--chunk-size", 500, "-w", 1, "-s", 3]
    return run(*args, "--json", "--out", out, "--resume")


@pytest.mark.parametrize(
    "copied,reason",
    [
        (["part-000000000000.parquet"], "{out}/part-000000000000.parquet: not the chunk part "),
        (
            ["part-000000000000.parquet", "_aggregates/part-000000000000.json"],
            "{out}/_aggregates/part-000000000000.json: chunk aggregate belongs to another run)",
        ),
    ],
    ids=["part", "part-and-aggregate"],
)
def test_resume_replays_a_chunk_copied_from_another_run(run, tmp_path, seed_runs, copied, reason):
    """A seed-9 run's part (with or without its aggregate) copied into an interrupted seed-3
    run: --resume plays games 0..499 again with a note, so the summary and the Parquet rows are
    the seed-3 run's (not seed-3 aggregates beside seed-9 rows)."""
    base, fresh = seed_runs
    out = _interrupted_seed3(seed_runs, tmp_path)
    for name in copied:
        shutil.copy(base / "s9" / name, out / name)
    r = _resume_seed3(run, out)
    assert r.exit_code == 0, r.output
    notes = [ln for ln in r.stderr.splitlines() if ln.startswith("note:")]
    assert len(notes) == 1, r.stderr
    assert notes[0].startswith(
        "note: resume: played games 0..499 again (" + reason.format(out=out)
    ), notes
    assert {k: v for k, v in json.loads(r.stdout).items() if k not in TIMING} == fresh
    pd.testing.assert_frame_equal(pd.read_parquet(out), pd.read_parquet(base / "s3"))


def test_resume_replays_an_edited_part_or_aggregate(run, tmp_path, seed_runs):
    """A part rewritten with other scores (still valid Parquet of the right games) and an
    aggregate with an edited win count (still a valid aggregate) are played again with a
    note each; the result is the uninterrupted run's."""
    base, fresh = seed_runs
    out = _interrupted_seed3(seed_runs, tmp_path)
    part = out / "part-000000000500.parquet"
    df = pd.read_parquet(part)
    df["score_0"] = 99
    df.to_parquet(part, index=False)
    agg = out / "_aggregates" / "part-000000001000.json"
    doc = json.loads(agg.read_text())
    doc["win_share"][0] += 100.0
    doc["game_partial"]["win_share"][0] += 100.0
    agg.write_text(json.dumps(doc))
    r = _resume_seed3(run, out)
    assert r.exit_code == 0, r.output
    notes = [ln for ln in r.stderr.splitlines() if ln.startswith("note:")]
    assert [n.split(" (")[0] for n in notes] == [
        "note: resume: played games 500..999 again",
        "note: resume: played games 1000..1499 again",
    ]
    assert f"({agg}: chunk aggregate was edited or not written by this mcsim)" in notes[1]
    assert {k: v for k, v in json.loads(r.stdout).items() if k not in TIMING} == fresh
    pd.testing.assert_frame_equal(pd.read_parquet(out), pd.read_parquet(base / "s3"))


def test_resume_batch_replays_an_edited_cell_summary(run, tmp_path, batch_plan):
    """A finished cell's experiments/*.json with a mean set to 123.0 (still valid JSON) is
    played again on --resume with a note; the table is the uninterrupted batch's."""
    out = tmp_path / "bo"
    assert run("batch", batch_plan, "--out", out, "-q").exit_code == 0
    full = pd.read_csv(out / "results.csv")
    cell = out / "experiments" / "d-001.json"
    doc = json.loads(cell.read_text())
    doc["seats"][0]["score"]["mean"] = 123.0
    cell.write_text(json.dumps(doc, indent=2))
    r = run("batch", batch_plan, "--out", out, "--resume")
    assert r.exit_code == 0, r.output
    notes = [ln for ln in r.stderr.splitlines() if ln.startswith("note:")]
    assert notes == [
        f"note: resume: cell d-001 played again ({cell}: cell summary was edited or not "
        "written by this mcsim)"
    ]
    assert "123.000" not in r.stdout
    cols = [c for c in full.columns if c != "elapsed_seconds"]
    pd.testing.assert_frame_equal(pd.read_csv(out / "results.csv")[cols], full[cols])


def test_resume_into_a_missing_folder_is_refused_by_simulate_tune_and_batch(
    run, tmp_path, batch_plan
):
    """`--resume` with an --out folder that does not exist (a typo) is refused with exit 2 and
    the same message by every resumable command, and creates nothing."""
    for args in (["simulate", "sacred-hill", "-n", 50], TUNE, ["batch", batch_plan]):
        out = tmp_path / "typo"
        r = run(*args, "-q", "--out", out, "--resume")
        one_error_line(r, 2, f"--out {out}: cannot resume: the folder does not exist")
        assert not out.exists()


# ---------------------------------------------------------------- one answer per mistake
def test_outputs_empty_out_is_refused_by_every_command(run, tmp_path, batch_plan, monkeypatch):
    """`--out ''` is refused by simulate, tune, report, show and batch alike (exit 2, one
    line), and nothing is written into the current folder."""
    monkeypatch.chdir(tmp_path)
    record = tmp_path / "rec" / "r.json"
    record.parent.mkdir()
    assert (
        run("simulate", "sacred-hill", "-n", 1, "--record", 1, "--record-out", record).exit_code
        == 0
    )
    before = sorted(p.name for p in tmp_path.iterdir())
    for args in (
        ["simulate", "sacred-hill", "-n", 50],
        TUNE,
        ["report", "sacred-hill", "-n", 50],
        ["show", "sacred-hill", record],
        ["batch", batch_plan],
    ):
        r = run(*args, "--out", "")
        one_error_line(r, 2, "Invalid value for '--out' / '-o': is empty; give a file or directory")
        assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_outputs_refused_resume_exits_2_in_every_command(run, tmp_path, batch_plan):
    """A resume of an earlier run with other settings is refused with exit 2 by simulate, tune
    and batch alike (a refused resume is a bad option)."""
    sim = tmp_path / "sim"
    assert run("simulate", "sacred-hill", "-n", 50, "-q", "--out", sim).exit_code == 0
    r = run("simulate", "sacred-hill", "-n", 50, "-s", 2, "-q", "--out", sim, "--resume")
    one_error_line(r, 2, f"cannot resume: {sim} holds a different run (seed 0 there, 2 now)")
    # the game count is named by the option that sets it: --games, or a precision run's cap
    r = run("simulate", "sacred-hill", "-n", 60, "-q", "--out", sim, "--resume")
    one_error_line(r, 2, f"cannot resume: {sim} holds a different run (--games 50 there, 60 now)")
    prec = tmp_path / "prec"
    args = ["simulate", "sacred-hill", "--precision", 0.2, "-q", "--out", prec]
    assert run(*args).exit_code == 0
    r = run(*args, "--max-games", 5000, "--resume")
    text = f"cannot resume: {prec} holds a different run (--max-games 100000 there, 5000 now)"
    one_error_line(r, 2, text)
    tt = tmp_path / "tt"
    assert run(*TUNE, "--out", tt).exit_code == 0
    r = run(*TUNE[:7], 400, *TUNE[8:], "--out", tt, "--resume")
    one_error_line(r, 2, f"cannot resume: {tt} holds a different run (budget 300 there, 400 now)")
    for args in (["simulate", "sacred-hill", "-n", 50], TUNE, ["batch", batch_plan]):
        one_error_line(run(*args, "-q", "--resume"), 2, "--resume needs --out DIR")
    bo = tmp_path / "bo"
    assert run("batch", batch_plan, "-q", "--out", bo).exit_code == 0
    batch_plan.write_text(PLAN.replace("games = 20", "games = 30"))
    r = run("batch", batch_plan, "-q", "--out", bo, "--resume")
    one_error_line(
        r, 2, f"cannot resume: cell d-000 in {bo} was played with other inputs (games 20 there"
    )


def test_outputs_damaged_state_file_exits_1_in_simulate_and_tune(run, tmp_path):
    """A damaged file of an interrupted run (simulate's _manifest.json, tune's state.json) is
    bad file contents: exit 1 in both."""
    sim = tmp_path / "sim"
    assert run("simulate", "sacred-hill", "-n", 50, "-q", "--out", sim).exit_code == 0
    (sim / "_manifest.json").write_text("[1, 2")
    r = run("simulate", "sacred-hill", "-n", 50, "-q", "--out", sim, "--resume")
    one_error_line(r, 1, f"{sim / '_manifest.json'}: run manifest is not valid JSON")
    tt = tmp_path / "tt"
    assert run(*TUNE, "--out", tt).exit_code == 0
    (tt / "state.json").write_text('{"generation": "x"}')
    r = run(*TUNE, "--out", tt, "--resume")
    one_error_line(r, 1, f"cannot resume: {tt / 'state.json'} is not a tuning state")


def test_outputs_existing_output_without_force_exits_2_for_files_and_folders(
    run, tmp_path, batch_plan
):
    """An existing output without --force is refused with exit 2, naming the flag and the
    path, whether it is a file (simulate --out FILE, --record-out, show --out) or a folder
    (simulate, tune, batch, report --out DIR); nothing is changed."""
    table = tmp_path / "t.csv"
    table.write_text("keep\n")
    r = run("simulate", "sacred-hill", "-n", 50, "-q", "--out", table)
    one_error_line(r, 2, f"--out {table} exists; use --force to overwrite it")
    r = run(
        "simulate",
        "sacred-hill",
        "-n",
        50,
        "--record",
        1,
        "--record-out",
        table.with_suffix(".json"),
    )
    assert r.exit_code == 0
    rec = table.with_suffix(".json")
    r = run("simulate", "sacred-hill", "-n", 50, "-q", "--record", 1, "--record-out", rec)
    one_error_line(r, 2, f"--record-out {rec} exists; use --force to overwrite it")
    page = tmp_path / "g.html"
    page.write_text("keep")
    r = run("show", "sacred-hill", rec, "--out", page)
    one_error_line(r, 2, f"--out {page} exists; use --force to overwrite it")
    assert table.read_text() == "keep\n" and page.read_text() == "keep"
    for args, what in (
        (["simulate", "sacred-hill", "-n", 50, "-q"], "run"),
        (TUNE, "tuning run"),
        (["batch", batch_plan, "-q"], "batch"),
    ):
        out = tmp_path / what.replace(" ", "_")
        assert run(*args, "--out", out).exit_code == 0
        before = snapshot(out)
        r = run(*args, "--out", out)
        one_error_line(
            r,
            2,
            f"--out {out} holds an earlier {what}; use --resume to continue it or --force to "
            "replace it",
        )
        assert snapshot(out) == before
    rep = tmp_path / "rep"
    rep.mkdir()
    (rep / "notes.txt").write_text("mine")
    r = run("report", "sacred-hill", "-n", 50, "-q", "--out", rep)
    one_error_line(
        r,
        2,
        f"--out {rep} is not empty and holds 'notes.txt', not only an earlier report; "
        "choose another folder",
    )


def test_outputs_tune_out_not_a_folder_read_only_or_unrelated_as_the_other_commands(
    run, tmp_path, batch_plan, monkeypatch
):
    """tune --out answers a file, a read-only folder and an unrelated non-empty folder with the
    same line as simulate --out DIR and batch --out (naming --out and the path; no --resume
    hint for a folder that holds no earlier run)."""
    a_file = tmp_path / "f"
    a_file.write_text("x")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    ro = tmp_path / "ro"
    ro.mkdir()
    commands = {
        "run": ["simulate", "sacred-hill", "-n", 50, "-q"],
        "tuning run": TUNE,
        "batch": ["batch", batch_plan, "-q"],
    }
    for what, args in commands.items():
        r = run(*args, "--out", a_file)
        one_error_line(r, 2, f"{a_file} exists and is not a directory")
        r = run(*args, "--out", mine)
        one_error_line(
            r,
            2,
            f"--out {mine} is not empty and holds 'notes.txt', not only an earlier {what}; "
            "choose another folder",
        )
        assert "--resume" not in r.output
    import tempfile

    real = tempfile.mkstemp

    def read_only(*a, dir=None, **k):  # as a read-only folder does, also for root
        if dir is not None and Path(dir) == ro:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real(*a, dir=dir, **k)

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    for args in commands.values():
        r = run(*args, "--out", ro / "new")
        one_error_line(r, 2, f"cannot write --out {ro / 'new'}: Permission denied (folder {ro})")


def test_outputs_report_on_a_full_disk_names_the_file(run, tmp_path, monkeypatch):
    """A write of the report that fails with ENOSPC (the disk filled up) names --out and the
    file in one line, exit 1, and leaves no report folder or staging folder."""
    real = Path.write_text

    def full(self, *a, **k):
        if self.name == "report.html":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, *a, **k)

    monkeypatch.setattr(Path, "write_text", full)
    rep = tmp_path / "rep"
    r = run("report", "sacred-hill", "-n", 50, "-q", "--out", rep)
    one_error_line(r, 1, f"cannot write --out {rep / 'report.html'}: No space left on device")
    assert list(tmp_path.iterdir()) == []


def test_outputs_full_disk_in_a_force_run_names_the_users_folder_and_keeps_the_earlier_run(
    run, tmp_path, monkeypatch
):
    """A chunk part that cannot be written (ENOSPC) during `simulate --out DIR --force`: one
    line naming DIR's part (not the folder staged beside it), exit 1, and the earlier run is
    left as it was."""
    out = tmp_path / "runF"
    args = ["simulate", "sacred-hill", "-n", 600, "--chunk-size", 200, "-w", 1, "-q", "--out", out]
    assert run(*args).exit_code == 0
    before = snapshot(out)
    real = pd.DataFrame.to_parquet

    def full(self, path, *a, **k):
        if ".part-000000000200.parquet." in str(path):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, path, *a, **k)

    monkeypatch.setattr(pd.DataFrame, "to_parquet", full)
    r = run(*args, "-s", 2, "--force")
    one_error_line(
        r, 1, f"cannot write {out / 'part-000000000200.parquet'}: No space left on device"
    )
    assert snapshot(out) == before
    assert hidden(tmp_path) == []


def test_outputs_missing_output_folder_is_one_shape_in_every_command(run, tmp_path, batch_plan):
    """An --out under a folder that does not exist: the same line (flag, path, folder) from
    simulate, show, tune, batch and report."""
    missing = tmp_path / "nope"
    for args, name in (
        (["simulate", "sacred-hill", "-n", 10], "x"),
        (["simulate", "sacred-hill", "-n", 10], "x.parquet"),
        (["show", "sacred-hill", "--seed", 1, "--game-index", 0], "x.html"),
        (TUNE, "x"),
        (["batch", batch_plan], "x"),
        (["report", "sacred-hill", "-n", 10], "x"),
    ):
        r = run(*args, "--out", missing / name)
        one_error_line(r, 2, f"--out {missing / name}: folder {missing} does not exist")
