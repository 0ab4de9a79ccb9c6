"""``mcsim show``: the HTML of one game per game id, parsed.

One frame per ply plus the start, the move list equal to the record's moves, no external
resources, the same one-line errors as ``mcsim replay`` for bad input and no file written, and
``--seed S --game-index I`` drawing exactly game I of ``simulate --seed S``.

The records in ``tests/data/show_<game>.json`` were written by ``record_games`` (their seed, game
index and policies are in the files).
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli import mcsim_cli
from mcsim.games import REGISTRY

DATA = Path(__file__).parent / "data"
GAMES = list(REGISTRY)  # every game has a drawer and a record in tests/data/show_<game>.json


def record(game: str) -> dict:
    return json.loads((DATA / f"show_{game.replace('-', '_')}.json").read_text())


def expected_moves(game: str, rec: dict) -> list[str]:
    """The record's plies in its own notation (what each frame must name)."""
    if game == "sacred-hill":
        return list(rec["moves"])
    if game == "don-quixote":
        n = len(rec["players"][0]["placements"])
        return [
            " | ".join(
                f"{p['placements'][k]['cell']} {p['placements'][k]['tile']} "
                f"{p['placements'][k]['rot']}"
                for p in rec["players"]
            )
            for k in range(n)
        ]
    if game == "el-grande":
        return [f"{d['kind']} {d['value']}" for d in rec["decisions"]]
    if game == "carcassonne":
        return [
            f"{t['tile']} {t['place'][0]},{t['place'][1]} r{t['place'][2]}" for t in rec["turns"]
        ]
    return ["play " + ", ".join(t["plays"]) for t in rec["turns"]]


class Page(HTMLParser):
    """Collects frames, move-list items, scripts and every attribute that could load something."""

    def __init__(self):
        super().__init__()
        self.frames: list[dict] = []
        self.items: list[str] = []
        self.scripts = 0
        self.refs: list[tuple[str, str, str]] = []
        self.tags: set[str] = set()
        self._in_li = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        if tag == "div" and a.get("class") == "frame":
            self.frames.append(a)
        if tag == "li":
            self._in_li = True
            self.items.append("")
        if tag == "script":
            self.scripts += 1
        for k, v in attrs:
            if k in ("src", "href", "xlink:href", "action", "data", "poster", "srcset"):
                self.refs.append((tag, k, v or ""))

    def handle_endtag(self, tag):
        if tag == "li":
            self._in_li = False

    def handle_data(self, data):
        if self._in_li:
            self.items[-1] += data


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    out = {}
    d = tmp_path_factory.mktemp("show")
    runner = CliRunner()
    for game in GAMES:
        f = d / f"{game}.json"
        f.write_text(json.dumps(record(game)))
        html = d / f"{game}.html"
        r = runner.invoke(mcsim_cli, ["show", game, str(f), "--out", str(html)])
        assert r.exit_code == 0, r.output
        out[game] = html.read_text(encoding="utf-8")
    return out


@pytest.mark.parametrize("game", GAMES)
def test_one_frame_per_ply_and_the_moves_of_the_record(pages, game):
    """One frame per ply plus the start (data-ply 0..n), each naming the record's move."""
    p = Page()
    p.feed(pages[game])
    want = expected_moves(game, record(game))
    assert len(p.frames) == len(want) + 1
    assert [int(f["data-ply"]) for f in p.frames] == list(range(len(want) + 1))
    assert p.frames[0]["data-move"] == ""
    got = [f["data-move"] for f in p.frames[1:]]
    if game in ("sacred-hill", "don-quixote", "el-grande"):
        assert got == want
    else:  # the frame's move also names meeples, gifts, draws ...: it must contain the record's
        assert all(w in g for w, g in zip(want, got)), [
            (w, g) for w, g in zip(want, got) if w not in g
        ][:3]
    assert len(p.items) == len(want)
    assert all(item.endswith(m) for item, m in zip(p.items, got))


@pytest.mark.parametrize("game", GAMES)
def test_last_frame_shows_the_final_points(pages, game):
    """The scores of the last frame are the record's final points (written by the run); the
    start shows 0 for every seat."""
    p = Page()
    p.feed(pages[game])
    rec = record(game)
    if game == "don-quixote":
        final = [pl["total"] for pl in rec["players"]]
    elif game == "thurn-and-taxis":
        final = rec["scores"]
    else:
        final = rec["points"]
    assert p.frames[-1]["data-scores"] == ",".join(map(str, final))
    start = [int(v) for v in p.frames[0]["data-scores"].split(",")]
    assert len(start) == len(final)
    if game != "thurn-and-taxis":  # there the running score counts the 20 houses not placed
        assert start == [0] * len(final)
    else:
        assert start == [-20] * len(final)


@pytest.mark.parametrize("game", GAMES)
def test_self_contained_no_external_resources(pages, game):
    """Inline SVG/CSS/script only: every reference is in-document (#id); no URL, no link tag."""
    text = pages[game]
    p = Page()
    p.feed(text)
    assert p.scripts == 1
    assert {"svg", "style", "script", "input", "button"} <= p.tags
    assert not p.tags & {"link", "img", "iframe", "object", "embed", "audio", "video"}
    ids = set(re.findall(r'\sid="([^"]+)"', text))
    assert p.refs and all(
        k == "href" and v.startswith("#") and v[1:] in ids for _, k, v in p.refs
    ), p.refs[:5]
    assert not re.search(r"https?:|url\(|@import|//[a-z]", text, re.I)


def test_sacred_hill_frame_draws_the_forts_of_the_position(pages):
    """Frame k shows k forts after k builds (no capture in the first 4 plies of the record) and
    rings the hill just played."""
    text = pages["sacred-hill"]
    frames = re.findall(r'<div class="frame" data-ply="(\d+)".*?</svg>', text, re.S)
    bodies = re.findall(r'<div class="frame".*?</svg>', text, re.S)
    assert len(frames) == len(record("sacred-hill")["moves"]) + 1
    for k in range(5):
        forts = len(re.findall(r'<use href="#fort[01]"', bodies[k]))  # one ringfort each
        assert forts == k
    assert bodies[0].count('stroke="#ff00d4"') == 0
    assert bodies[1].count('stroke="#ff00d4"') == 1


def _errors_of(args):
    r = CliRunner().invoke(mcsim_cli, args)
    return r.exit_code, r.output.strip()


@pytest.mark.parametrize("case", ["other_game", "illegal", "malformed"])
def test_bad_record_same_error_as_replay_and_no_file(tmp_path, case):
    """A record of another game, an illegal move, a field of the wrong type: exit 1 with the
    line `replay` prints, and no output file."""
    if case == "other_game":
        game, rec = "sacred-hill", record("don-quixote")
    elif case == "illegal":
        game, rec = "sacred-hill", record("sacred-hill")
        rec["moves"][3] = rec["moves"][0]  # a hill already taken
        rec.pop("points")
    else:
        game, rec = "carcassonne", record("carcassonne")
        rec["turns"][2]["place"] = "north"
    f = tmp_path / "rec.json"
    f.write_text(json.dumps(rec))
    out = tmp_path / "game.html"
    code, msg = _errors_of(["show", game, str(f), "--out", str(out)])
    rcode, rmsg = _errors_of(["replay", game, str(f)])
    assert code == rcode == 1
    assert msg == rmsg and msg.startswith("Error: ") and "\n" not in msg
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [f]


def test_index_out_of_range_and_list_without_index(tmp_path):
    """--index picks one record of a list; out of range (or no --index for a list of several)
    is the one-line usage error of `mcsim replay` (exit 2), no file."""
    recs = [record("sacred-hill"), record("sacred-hill")]
    f = tmp_path / "recs.json"
    f.write_text(json.dumps(recs))
    out = tmp_path / "g.html"
    code, msg = _errors_of(["show", "sacred-hill", str(f), "--index", "2", "--out", str(out)])
    assert (code, msg[-len(f"{f} holds 2 records (0..1)") :]) == (2, f"{f} holds 2 records (0..1)")
    code, msg = _errors_of(["show", "sacred-hill", str(f), "--out", str(out)])
    assert (code, msg) == (2, f"Error: {f} holds 2 records; choose one with --index 0..1")
    assert not out.exists()
    code, _ = _errors_of(["show", "sacred-hill", str(f), "--index", "1", "--out", str(out)])
    assert code == 0 and out.exists()


def test_seed_and_game_index_is_game_i_of_simulate(tmp_path):
    """`show --seed 3 --game-index 2` draws exactly game 2 of `simulate --seed 3` (same
    policies): the same HTML as the record `simulate --record` writes for that game."""
    recs = tmp_path / "recs.json"
    r = CliRunner().invoke(
        mcsim_cli,
        [
            "simulate",
            "sacred-hill",
            "-n",
            "3",
            "-s",
            "3",
            "-p",
            "greedy",
            "-p",
            "random",
            "-w",
            "1",
            "-q",
            "--record",
            "3",
            "--record-out",
            str(recs),
        ],
    )
    assert r.exit_code == 0, r.output
    a, b = tmp_path / "a.html", tmp_path / "b.html"
    assert _errors_of(["show", "sacred-hill", str(recs), "--index", "2", "--out", str(a)])[0] == 0
    assert (
        _errors_of(
            [
                "show",
                "sacred-hill",
                "--seed",
                "3",
                "--game-index",
                "2",
                "-p",
                "greedy",
                "-p",
                "random",
                "--out",
                str(b),
            ]
        )[0]
        == 0
    )
    assert a.read_text() == b.read_text()
    assert json.loads(recs.read_text())[2]["game_index"] == 2


def test_option_errors(tmp_path):
    """Bad combinations are usage errors (exit 2) that name the options; no file."""
    out = tmp_path / "g.html"
    f = DATA / "show_sacred_hill.json"
    cases = [
        (
            ["show", "sacred-hill", "--out", str(out)],
            "Error: give a RECORD.json, or --seed S and --game-index I",
        ),
        (
            ["show", "sacred-hill", str(f), "--seed", "1", "--out", str(out)],
            "Error: give a RECORD.json or --seed/--game-index, not both",
        ),
        (
            ["show", "sacred-hill", str(f), "--out", str(tmp_path / "g.txt")],
            "Error: Invalid value for --out: must end in .html",
        ),
        (
            ["show", "sacred-hill", "--seed", "1", "--game-index", "-1", "--out", str(out)],
            "Error: --game-index must be 0 or more, not -1",
        ),
    ]
    for args, msg in cases:
        assert _errors_of(args) == (2, msg)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "args, text",
    [
        (["--seed", "-1", "--game-index", "0"], "--seed must be a whole number in [0, 2**64)"),
        (
            ["--seed", str(2**64), "--game-index", "0"],
            "--seed must be a whole number in [0, 2**64)",
        ),
        (["--seed", "1", "--game-index", str(2**64)], "--game-index must be below"),
    ],
)
def test_seed_and_game_index_out_of_range_are_one_line(tmp_path, args, text):
    """`show --seed` takes simulate's seed range; a game index past simulate's limit is refused
    (fresh-user test: these were tracebacks, and seed -1 drew the game of seed 2**64-1)."""
    out = tmp_path / "g.html"
    code, msg = _errors_of(["show", "carcassonne", *args, "--out", str(out)])
    assert code == 2 and msg.splitlines()[-1].startswith("Error: ") and text in msg
    assert not out.exists()
