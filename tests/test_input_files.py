"""Every file mcsim reads goes through one bounded reader per format (``mcsim.files``) and fails
in one line naming the file.

The property test feeds every command's file inputs with generated garbage: random bytes, deep
nesting, wrong types, truncation of a valid file, an empty file and a huge (sparse) file, and
asserts one line on stderr, exit 1 or 2, and nothing written.
"""

import json
import shutil
import tempfile
from importlib import resources
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cli import mcsim_cli
from mcsim import files
from mcsim.errors import InputFileError, MissingFileError

DATA = Path(str(resources.files("mcsim") / "data"))
RECORD_KEYS = {  # the fields a record cannot do without, per game
    "sacred-hill": ["game", "moves"],
    "don-quixote": ["game", "players", "tileset"],
    "el-grande": ["game", "players", "decisions", "setup"],
    "carcassonne": ["game", "players", "tiles", "turns"],
    "thurn-and-taxis": ["game", "players", "turns"],
}
PLAN = 'title = "p"\n[[experiment]]\nname = "a"\ngames = 10\ngame = "sacred-hill"'  # no final \n


def invoke(*args):
    return CliRunner().invoke(mcsim_cli, [str(a) for a in args])


def assert_one_line(r, codes=(1, 2)):
    assert r.exit_code in codes, (r.exit_code, r.output)
    assert r.stdout == "", r.stdout
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), r.stderr
    assert "Traceback" not in r.output


# ------------------------------------------------------------------ the readers themselves
def test_replay_of_dev_zero_stops_at_the_size_cap():
    r = invoke("replay", "sacred-hill", "/dev/zero")
    assert_one_line(r, (1,))
    assert r.stderr == "Error: /dev/zero: record is larger than 16 MiB\n"


@pytest.mark.parametrize(
    "content,text",
    [
        (b"[" * 100_000, "record is nested deeper than 64 levels"),  # RecursionError before
        (b"[" * 65 + b"]" * 65, "record is nested deeper than 64 levels"),
        (b"\xff\xfe\x00garbage", "record is not UTF-8 text (byte 0)"),  # UnicodeDecodeError before
        (b'{"a": NaN}', "record is not valid JSON (NaN is not a JSON number)"),
        (b"1" * 5000, "record is not valid JSON (Exceeds the limit (4300 digits)"),
        (
            b"{not json",
            "record is not valid JSON (Expecting property name enclosed in double "
            "quotes at line 1 column 2)",
        ),
    ],
)
def test_json_reader_failures_are_one_line_naming_the_file(tmp_path, content, text):
    f = tmp_path / "r.json"
    f.write_bytes(content)
    with pytest.raises(InputFileError) as e:
        files.read_json(f, "record")
    assert str(e.value).startswith(f"{f}: {text}")


def test_toml_reader_deep_nesting_and_missing_file(tmp_path):
    f = tmp_path / "p.toml"
    f.write_text("a = " + "[" * 5000 + "]" * 5000)  # RecursionError in tomllib before
    with pytest.raises(InputFileError, match=r"p.toml: plan is nested deeper than 64 levels"):
        files.read_toml(f, "plan")
    with pytest.raises(MissingFileError, match=r"nope.toml: plan does not exist"):
        files.read_toml(tmp_path / "nope.toml", "plan")


def test_parquet_reader_names_a_truncated_file(tmp_path):
    f = tmp_path / "t.parquet"
    pd.DataFrame({"a": range(100)}).to_parquet(f)
    f.write_bytes(f.read_bytes()[:50])
    with pytest.raises(InputFileError, match=r"t.parquet: chunk part is not readable Parquet"):
        files.read_parquet(f, "chunk part")


# ------------------------------------------------------------------ generated garbage
HUGE = object()  # a sparse file one byte over the cap


def _deep_json(n):
    return "[" * n + "]" * n


def garbage(valid_text: str, fmt: str, keys: list[str]):
    """Contents (str, bytes or HUGE) that must be refused, derived from a valid file."""
    wrong_value = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**6), 10**6),
        st.text(max_size=5),
        st.lists(st.integers(), max_size=3),
        st.just({"x": 1}),
    )
    if fmt == "json":
        doc = json.loads(valid_text)
        deep = st.one_of(
            st.integers(65, 3000).map(_deep_json),
            st.integers(70, 3000).map(lambda n: '{"a": ' + _deep_json(n) + "}"),
        )
        top = st.one_of(
            st.lists(st.integers(), max_size=3),
            st.text(max_size=5),
            st.integers(),
            st.none(),
            st.booleans(),
        ).map(json.dumps)
        field = (
            st.tuples(st.sampled_from(keys), wrong_value)
            .filter(
                lambda kv: type(kv[1]) is not type(doc.get(kv[0]))  # a value of another type
            )
            .map(lambda kv: json.dumps(dict(doc, **{kv[0]: kv[1]})))
        )
        wrong = st.one_of(top, field)
    else:  # toml
        deep = st.integers(65, 3000).map(lambda n: "a = " + _deep_json(n))
        wrong = st.one_of(
            st.sampled_from(keys).map(
                lambda k: valid_text.replace(f"\n{k} = ", f"\n{k} = {{ x = 1 }} #")
            ),
            st.just("experiment = 5"),
            st.just("title = 5\n[[experiment]]\ngame = 5\ngames = 1"),
        )
    truncated = st.integers(0, len(valid_text) - 1).map(lambda k: valid_text[:k])
    return st.one_of(
        st.binary(min_size=1, max_size=64), deep, wrong, truncated, st.just(b""), st.just(HUGE)
    )


def _write(path: Path, content) -> None:
    if content is HUGE:
        with open(path, "wb") as fh:
            fh.truncate(files.MAX_TEXT_BYTES + 1)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)


def _records_valid_text():
    """One short valid record per game (made by the games' own recorders)."""
    import mcsim

    out = {}
    for game in RECORD_KEYS:
        rec = mcsim.simulate(game, games=1, seed=0, record=1).records[0]
        out[game] = json.dumps(rec)
    return out


@pytest.fixture(scope="module")
def records():
    return _records_valid_text()


# Every command and every file input it has: (name, valid file, format, required keys, how to
# call the command with the damaged file at `f` inside the work directory `d`).
_DQ_TILES = (DATA / "don_quixote" / "tiles_placeholder.json").read_text()
_TT = {
    k: (DATA / "thurn_and_taxis" / f"{k}.json").read_text()
    for k in ("carriages", "bonus_tiles", "map")
}
_CC = {k: (DATA / "carcassonne" / f"{k}.json").read_text() for k in ("tiles", "gifts", "scoring")}

INPUTS = [
    (
        "simulate --option tiles --out",
        _DQ_TILES,
        "json",
        ["tiles", "tileset"],
        lambda f, d: [
            "simulate",
            "don-quixote",
            "-n",
            1,
            "-q",
            "--option",
            f"tiles={f}",
            "--out",
            d / "o",
        ],
    ),
    (
        "tournament --option tiles",
        _DQ_TILES,
        "json",
        ["tiles"],
        lambda f, d: [
            "tournament",
            "don-quixote",
            "-n",
            1,
            "-q",
            "-p",
            "random",
            "-p",
            "greedy",
            "--players",
            2,
            "--option",
            f"tiles={f}",
        ],
    ),  # two seats: a solo tournament is refused
    (
        "evaluate --option tiles",
        _DQ_TILES,
        "json",
        ["tiles"],
        lambda f, d: [
            "evaluate",
            "don-quixote",
            "-n",
            1,
            "-q",
            "-p",
            "random",
            "--option",
            f"tiles={f}",
        ],
    ),
    (
        "report --option tiles",
        _DQ_TILES,
        "json",
        ["tiles"],
        lambda f, d: [
            "report",
            "don-quixote",
            "-n",
            1,
            "-q",
            "--option",
            f"tiles={f}",
            "--out",
            d / "o",
        ],
    ),
    (
        "simulate --option tiles",
        _DQ_TILES,
        "json",
        ["tiles"],
        lambda f, d: ["simulate", "don-quixote", "-n", 1, "-q", "--option", f"tiles={f}"],
    ),
    (
        "simulate --option carriages",
        _TT["carriages"],
        "json",
        ["carriages"],
        lambda f, d: ["simulate", "thurn-and-taxis", "-n", 1, "-q", "--option", f"carriages={f}"],
    ),
    (
        "simulate --option bonus_tiles",
        _TT["bonus_tiles"],
        "json",
        ["stacks"],
        lambda f, d: [
            "simulate",
            "thurn-and-taxis",
            "-n",
            1,
            "-q",
            "--option",
            f"bonus_tiles={f}",
            "--out",
            d / "o.csv",
        ],
    ),
    (
        "simulate --option map",
        _TT["map"],
        "json",
        ["cities", "regions", "roads"],
        lambda f, d: ["simulate", "thurn-and-taxis", "-n", 1, "-q", "--option", f"map={f}"],
    ),
    (
        "batch PLAN",
        PLAN,
        "toml",
        ["games", "game", "name"],
        lambda f, d: ["batch", f, "--out", d / "o", "-q"],
    ),
    (
        "batch PLAN --dry-run",
        PLAN,
        "toml",
        ["games", "game"],
        lambda f, d: ["batch", f, "--dry-run"],
    ),
]
# Carcassonne's data_dir: one of its three files damaged, the other two valid
for _name in ("tiles", "gifts", "scoring"):
    INPUTS.append(
        (
            f"simulate --option data_dir ({_name}.json)",
            _CC[_name],
            "json",
            {
                "tiles": ["start_tile", "tiles"],
                "gifts": ["cards", "unopened_points"],
                "scoring": ["meeples_per_player", "road_per_tile"],
            }[_name],
            lambda f, d: [
                "simulate",
                "carcassonne",
                "-n",
                1,
                "-q",
                "--option",
                f"data_dir={f.parent}",
            ],
        )
    )


def _file_name(name: str) -> str:
    for k in ("tiles", "gifts", "scoring"):
        if name.endswith(f"({k}.json)"):
            return f"{k}.json"
    return "plan.toml" if "PLAN" in name else "input.json"


def _parses(content) -> bool:
    try:
        files.json.loads(content)
        return True
    except (ValueError, TypeError, RecursionError):
        return False


def _check(name, valid, fmt, keys, call, content):
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        f = d / _file_name(name)
        if "data_dir" in name:
            for other in ("tiles", "gifts", "scoring"):
                (d / f"{other}.json").write_text(_CC[other])
        _write(f, content)
        before = sorted(p.name for p in d.iterdir())
        r = invoke(*call(f, d))
        assert_one_line(r)
        if name != "replay" or not _parses(content):  # (a record's own errors: one file)
            assert str(f) in r.stderr or str(f.name) in r.stderr, r.stderr  # names the file
        assert sorted(p.name for p in d.iterdir()) == before  # nothing written


def _property(strategy, fmt, check):
    """Run ``check(content)`` on 12 generated contents plus one fixed example of each kind
    (so every kind is tried whatever hypothesis draws)."""
    deep = "a = " + _deep_json(5000) if fmt == "toml" else _deep_json(100_000)

    @settings(
        max_examples=12,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @example(content=deep)  # past the parser's recursion limit
    @example(content=b"\xff\xfe\x00 not text")  # random bytes
    @example(content=b"")  # empty
    @example(content=HUGE)  # one byte over the cap
    @given(content=strategy)
    def prop(content):
        check(content)

    prop()


@pytest.mark.parametrize("name,valid,fmt,keys,call", INPUTS, ids=[i[0] for i in INPUTS])
def test_garbage_in_every_file_input_is_one_line(name, valid, fmt, keys, call):
    _property(
        garbage(valid, fmt, keys),
        fmt,
        lambda content: _check(name, valid, fmt, keys, call, content),
    )


@pytest.mark.parametrize("game", list(RECORD_KEYS))
def test_garbage_records_are_one_line(records, game):
    _property(
        garbage(records[game], "json", RECORD_KEYS[game]),
        "json",
        lambda content: _check(
            "replay", None, "json", None, lambda f, d: ["replay", game, f], content
        ),
    )


def test_batch_plan_naming_a_garbage_data_file(tmp_path):
    (tmp_path / "t.json").write_bytes(b"\xff" * 10)
    plan = tmp_path / "plan.toml"
    plan.write_text(
        '[[experiment]]\ngame = "don-quixote"\ngames = 10\noptions = { tiles = "t.json" }\n'
    )
    r = invoke("batch", plan, "--out", tmp_path / "o")
    assert_one_line(r, (1,))
    assert "t.json: tile file is not UTF-8 text (byte 0)" in r.stderr
    assert not (tmp_path / "o").exists()


# ------------------------------------------------------------------ resume
def _run_dir(tmp_path, *extra):
    out = tmp_path / "run"
    r = invoke(
        "simulate",
        "sacred-hill",
        "-n",
        2000,
        "--chunk-size",
        500,
        "-w",
        1,
        "--json",
        "--out",
        out,
        *extra,
    )
    assert r.exit_code == 0, r.output
    return out, json.loads(r.stdout)


def test_resume_with_a_garbage_manifest_is_one_line():
    _property(
        garbage(json.dumps({"run": {"game": "sacred-hill", "games": 2000}}), "json", ["run"]),
        "json",
        _resume_check,
    )


def _resume_check(content):
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        (out / "_aggregates").mkdir(parents=True)
        _write(out / "_manifest.json", content)
        r = invoke(
            "simulate",
            "sacred-hill",
            "-n",
            2000,
            "--chunk-size",
            500,
            "-q",
            "--out",
            out,
            "--resume",
        )
        assert_one_line(r)
        assert "_manifest.json" in r.stderr
        assert sorted(p.name for p in out.iterdir()) == ["_aggregates", "_manifest.json"]


def test_resume_replays_damaged_chunks_and_ignores_stray_files(tmp_path):
    """A truncated part, a garbage aggregate, a part without its aggregate and a stray
    part-abc.parquet: the damaged chunks are played again (a chunk depends only on the seed
    and its first game), so the result equals the undamaged run's."""
    out, fresh = _run_dir(tmp_path)
    table = pd.read_parquet(out)
    p1 = out / "part-000000000500.parquet"
    p1.write_bytes(p1.read_bytes()[:100])  # truncated
    (out / "_aggregates" / "part-000000001000.json").write_text('{"n": ')  # bad JSON
    (out / "_aggregates" / "part-000000001500.json").write_text('{"n": 500}')  # wrong shape
    (out / "part-abc.parquet").write_bytes(b"stray")
    r = invoke(
        "simulate",
        "sacred-hill",
        "-n",
        2000,
        "--chunk-size",
        500,
        "-w",
        1,
        "--json",
        "--out",
        out,
        "--resume",
    )
    assert r.exit_code == 0, r.output
    notes = [ln for ln in r.stderr.splitlines() if ln.startswith("note: resume:")]
    assert [n.split(" (")[0] for n in notes] == [
        "note: resume: played games 500..999 again",
        "note: resume: played games 1000..1499 again",
        "note: resume: played games 1500..1999 again",
    ]
    resumed = json.loads(r.stdout)
    for k in ("elapsed_seconds", "games_per_second", "compile_seconds"):
        fresh.pop(k), resumed.pop(k)
    assert resumed == fresh
    (out / "part-abc.parquet").unlink()
    pd.testing.assert_frame_equal(pd.read_parquet(out), table)


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    out, fresh = _run_dir(tmp_path_factory.mktemp("run"))
    for k in ("elapsed_seconds", "games_per_second", "compile_seconds"):
        fresh.pop(k)
    return out, fresh


def test_resume_replays_any_garbage_chunk_file(finished_run):
    """Garbage in a chunk's aggregate (JSON) or part (Parquet): the chunk is played again and
    the resumed run's summary equals the undamaged run's."""
    src, fresh = finished_run
    agg = json.loads((src / "_aggregates" / "part-000000000500.json").read_text())
    part = (src / "part-000000000500.parquet").read_bytes()
    parquet = st.one_of(
        st.binary(max_size=64),
        st.integers(0, len(part) - 1).map(lambda k: part[:k]),
        st.just(b"PAR1" + part[4:-8] + b"\0" * 8),
    )

    def check(target, content):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "run"
            shutil.copytree(src, out)
            _write(out / target, content)
            r = invoke(
                "simulate",
                "sacred-hill",
                "-n",
                2000,
                "--chunk-size",
                500,
                "-w",
                1,
                "--json",
                "--out",
                out,
                "--resume",
            )
            assert r.exit_code == 0, r.output
            assert "note: resume: played games 500..999 again (" in r.stderr
            resumed = json.loads(r.stdout)
            for k in ("elapsed_seconds", "games_per_second", "compile_seconds"):
                resumed.pop(k)
            assert resumed == fresh

    _property(
        garbage(json.dumps(agg), "json", ["n", "players", "win_share", "score_hist"]),
        "json",
        lambda c: check("_aggregates/part-000000000500.json", c),
    )

    @settings(
        max_examples=8,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @example(content=b"")
    @given(content=parquet)
    def prop(content):
        check("part-000000000500.parquet", content)

    prop()


def test_resume_without_kept_rows_checks_the_part_footer(finished_run, tmp_path):
    """Runs that keep no rows in memory read only a part's footer: a truncated part is still
    found and played again."""
    import mcsim

    src, fresh = finished_run
    out = tmp_path / "run"
    shutil.copytree(src, out)
    part = out / "part-000000001000.parquet"
    part.write_bytes(part.read_bytes()[:-20])
    r = mcsim.simulate(
        "sacred-hill", games=2000, chunk_size=500, out_dir=out, resume=True, keep_games=False
    )
    assert r.prepared.notices == [
        f"resume: played games 1000..1499 again ({part}: chunk part is not readable Parquet "
        f"(Parquet magic bytes not found in footer. Either the file is corrupted or this is not "
        f"a parquet file.))"
    ]
    assert r.summary["seats"] == fresh["seats"]


def test_batch_resume_replays_a_damaged_cell_summary(tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text('[[experiment]]\nname = "a"\ngame = "sacred-hill"\ngames = [50, 60]\n')
    out = tmp_path / "b"
    first = invoke("batch", plan, "--out", out, "-q", "--json")
    assert first.exit_code == 0, first.output
    cells = sorted((out / "experiments").iterdir())
    cells[0].write_bytes(b"[" * 100_000)
    again = invoke("batch", plan, "--out", out, "--resume", "--json")
    assert again.exit_code == 0, again.output
    assert "a-000: done" in again.stderr and "a-001: finished earlier, skipped" in again.stderr
    rows = [
        [
            {k: v for k, v in row.items() if k != "elapsed_seconds"}
            for row in json.loads(r.stdout)["rows"]
        ]
        for r in (first, again)
    ]
    assert rows[0] == rows[1]


def test_missing_named_files_exit_2_everywhere(tmp_path):
    nope = tmp_path / "nope.json"
    for args in (
        ["simulate", "don-quixote", "-n", 1, "--option", f"tiles={nope}"],
        ["simulate", "thurn-and-taxis", "-n", 1, "--option", f"carriages={nope}"],
        ["replay", "sacred-hill", nope],
        ["batch", tmp_path / "nope.toml"],
    ):
        r = invoke(*args)
        assert_one_line(r, (2,))
        assert "nope" in r.stderr and "does not exist" in r.stderr
    plan = tmp_path / "plan.toml"
    plan.write_text(
        f'[[experiment]]\ngame = "don-quixote"\ngames = 10\noptions = {{ tiles = "{nope}" }}\n'
    )
    r = invoke("batch", plan, "--dry-run")
    assert_one_line(r, (2,))
    assert f"{nope}: tile file does not exist" in r.stderr
