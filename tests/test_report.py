"""Balance reports: files, self-contained HTML, headline numbers, figure labels,
the paired-difference comparison, charts skipped cleanly, the CLI."""

import base64
import json
import re

import numpy as np
import pytest
from click.testing import CliRunner

import mcsim
from cli import mcsim_cli
from mcsim import charts, report, stats
from mcsim.charts import MissingData
from mcsim.games import REGISTRY, get_game
from mcsim.report import build_report

GAMES, SEED = 300, 5


@pytest.fixture(scope="module")
def captured():
    """Every matplotlib figure the report builds, with its slug (title/axes checked below)."""
    return []


@pytest.fixture(scope="module")
def rep(tmp_path_factory, captured):
    out = tmp_path_factory.mktemp("rep") / "report"
    orig = charts.done

    def spy(fig, ctx, slug, title, caption, games_note=None):
        result = orig(fig, ctx, slug, title, caption, games_note)
        captured.append((title, fig))
        return result

    mp = pytest.MonkeyPatch()
    mp.setattr(charts, "done", spy)
    try:
        r = build_report(
            "sacred-hill", out, games=GAMES, seed=SEED, policies=["tactician", "random"]
        )
    finally:
        mp.undo()
    return r


def test_files_written(rep):
    names = {p.name for p in rep.out.iterdir()}
    expected = {
        "score_distribution.png",
        "win_rate_by_seat.png",
        "game_length.png",
        "policy_comparison.png",
        "sacred_hill_decided_by.png",
        "sacred_hill_kingdoms.png",
        "report.html",
        "report.md",
        "summary.json",
    }
    shows = {n for n in names if n.startswith("show_")}  # example games
    assert names - shows == expected
    assert shows == {
        e["file"]
        for e in json.loads((rep.out / "summary.json").read_text())["report"]["example_games"]
    }
    assert {n.split("_game")[0] for n in shows} <= {
        "show_longest",
        "show_typical",
        "show_one_sided",
    }
    assert any(n.startswith("show_longest") for n in shows)
    assert rep.skipped == []
    for f in rep.figures:
        data = (rep.out / f.file).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and data == f.png


def test_html_is_self_contained_and_references_every_figure(rep):
    page = (rep.out / "report.html").read_text()
    pngs = sorted(p.name for p in rep.out.glob("*.png"))
    embedded = re.findall(
        r'data-file="([^"]+)"><img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page
    )
    assert sorted(f for f, _ in embedded) == pngs
    for name, b64 in embedded:
        assert base64.b64decode(b64) == (rep.out / name).read_bytes()
    # opens offline: no scripts, stylesheets, remote or relative resources
    assert "<script" not in page and "<link" not in page
    # the only links: the example games drawn by mcsim show, files beside the report
    assert not re.search(r'(src|href)="(?!data:|show_[a-z_]+_game\d+\.html")', page)
    md = (rep.out / "report.md").read_text()
    for name in pngs:
        assert f"]({name})" in md
    links = re.findall(r'href="(show_[a-z_]+_game\d+\.html)"', page)
    assert links
    for name in links:
        assert (rep.out / name).is_file() and f"]({name})" in md


def test_html_and_markdown_contain_the_headline_numbers(rep):
    page = (rep.out / "report.html").read_text()
    md = (rep.out / "report.md").read_text()
    s = rep.result.summary
    assert s["games"] == GAMES and s["seed"] == SEED
    heads = []
    for seat in s["seats"]:
        w, sc = seat["win_rate"], seat["score"]
        heads.append(f"{w['estimate']:.4f} [{w['low']:.4f}, {w['high']:.4f}]")
        heads.append(f"{sc['mean']:.3f} [{sc['low']:.3f}, {sc['high']:.3f}]")
    balance = s["seats"][0]["win_rate"]["estimate"] - s["seats"][1]["win_rate"]["estimate"]
    heads.append(f"{balance:+.4f}")
    heads.append(f"mean {s['length']['mean']:.2f} plies")
    pe = rep.comparison[0]
    assert pe["group"] == "policy effect (seat-balanced)"
    ps = pe["score"]
    heads.append(f"{ps['mean']:+.3f} [{ps['low']:+.3f}, {ps['high']:+.3f}]")
    w0 = s["seats"][0]["win_rate"]
    heads.append(
        f"Seat 0 (tactician) wins {100 * w0['estimate']:.2f}% of games "
        f"95% CI [{100 * w0['low']:.2f}, {100 * w0['high']:.2f}]; equal share 50.00%."
    )
    for h in heads:
        assert h in page, h
        assert h in md, h
    assert page.index("<h2>Headline</h2>") < page.index("<h2>Seats</h2>")
    for fact in (f"<dt>games</dt><dd>{GAMES}</dd>", f"<dt>seed</dt><dd>{SEED}</dd>"):
        assert fact in page


def test_every_figure_has_title_axis_labels_games_and_seed(rep, captured):
    assert len(captured) == len(rep.figures)
    for title, fig in captured:
        sup = fig._suptitle.get_text()
        assert sup.startswith(title)
        assert f"{GAMES:,} games" in sup and f"seed {SEED}" in sup, sup
        for ax in fig.axes:
            if not ax.get_visible() or not ax.has_data():
                continue
            assert ax.get_xlabel().strip(), (title, "x label")
            assert ax.get_ylabel().strip() or ax.get_yticklabels(), (title, "y label")
        # units: some axis of the figure names them in parentheses
        labels = " ".join(ax.get_xlabel() + " " + ax.get_ylabel() for ax in fig.axes)
        assert (
            re.search(r"\((points|%|plies|count|percentage points)[^)]*\)|\(%", labels)
            or "points" in labels
            or "%" in labels
        ), (title, labels)


def test_policy_comparison_separates_seat_and_policy_effect(rep):
    """The seat-balanced policy effect is the mean of the per-game differences over both
    seatings (same seed, same games), the seat effect the mean of seat 0 - seat 1 (as the skill
    ladder's)."""
    a = mcsim.simulate("sacred-hill", games=GAMES, seed=SEED, policies=["tactician", "random"])
    b = mcsim.simulate("sacred-hill", games=GAMES, seed=SEED, policies=["random", "tactician"])
    ga, gb = a.games, b.games
    d_policy = ((ga.score_0 - ga.score_1) + (gb.score_1 - gb.score_0)) / 2
    d_seat = ((ga.score_0 - ga.score_1) + (gb.score_0 - gb.score_1)) / 2
    rows = {r["group"]: r for r in rep.comparison}
    assert set(rows) == {
        "policy effect (seat-balanced)",
        "as seated (policy + seat effect)",
        "seat effect (policy-balanced)",
    }
    exp = stats.mean_interval(d_policy)
    got = rows["policy effect (seat-balanced)"]["score"]
    assert got["mean"] == pytest.approx(exp["mean"], abs=1e-12)
    assert got["low"] == pytest.approx(exp["low"], abs=1e-12)
    assert rows["seat effect (policy-balanced)"]["score"]["mean"] == pytest.approx(d_seat.mean())
    raw = rows["as seated (policy + seat effect)"]["score"]["mean"]
    assert raw == pytest.approx((ga.score_0 - ga.score_1).mean())
    # as seated = policy effect + seat effect (seat 0 - seat 1), game for game
    seat = rows["seat effect (policy-balanced)"]["score"]["mean"]
    assert rows["seat effect (policy-balanced)"]["label"] == "seat 0 - seat 1"
    assert raw == pytest.approx(got["mean"] + seat)
    s = json.loads((rep.out / "summary.json").read_text())
    assert s["report"]["seatings"] == [["tactician", "random"], ["random", "tactician"]]


def test_one_policy_shows_the_seat_effect_and_no_rotation(tmp_path):
    r = build_report("sacred-hill", tmp_path / "r", games=200, seed=2, policies=["random"])
    assert [row["group"] for row in r.comparison] == ["seat effect"]
    g = r.result.games
    exp = stats.paired_difference(g.score_0, g.score_1)  # seat 0 - seat 1, as the ladder's
    assert r.comparison[0]["label"] == "seat 0 - seat 1"
    assert r.comparison[0]["score"]["mean"] == pytest.approx(exp["mean"])
    assert json.loads((tmp_path / "r" / "summary.json").read_text())["report"]["seatings"] == [
        ["random", "random"]
    ]


def test_no_rotate_keeps_only_the_as_seated_rows(tmp_path):
    r = build_report(
        "sacred-hill",
        tmp_path / "r",
        games=100,
        seed=2,
        policies=["greedy", "random"],
        rotate=False,
    )
    assert [row["group"] for row in r.comparison] == ["as seated (policy + seat effect)"]


def test_other_games_charts_skip_cleanly_when_their_data_is_missing(rep):
    """Each per-game chart raises MissingData (never KeyError) on data without its columns."""
    ctx = report._Ctx(
        mcsim.games.get_game("sacred-hill"),
        rep.result,
        [(rep.result.summary["policies"], rep.result)],
    )
    for game in REGISTRY:
        if game == "sacred-hill":
            continue
        for _slug, fn in get_game(game).CHARTS:
            with pytest.raises(MissingData):
                fn(ctx)


def test_skipped_chart_is_listed(tmp_path, monkeypatch):
    def needs_column(ctx):
        charts.need(ctx.games, ["no_such_column"])

    sh = get_game("sacred-hill")
    monkeypatch.setattr(sh, "CHARTS", sh.CHARTS + [("extra_chart", needs_column)])
    r = build_report("sacred-hill", tmp_path / "r", games=50, seed=1)
    assert r.skipped == [("extra_chart", "the game has no column 'no_such_column' yet")]
    page = (tmp_path / "r" / "report.html").read_text()
    assert "<code>extra_chart</code>: the game has no column" in page
    assert not (tmp_path / "r" / "extra_chart.png").exists()


# ---------------------------------------------------------------- CLI
@pytest.fixture
def cli():
    runner = CliRunner()
    return lambda *args: runner.invoke(mcsim_cli, [str(a) for a in args])


def test_cli_report(cli, tmp_path):
    r = cli("report", "sacred-hill", "-n", 200, "-s", 3, "-w", 1, "-q", "--out", tmp_path / "r")
    assert r.exit_code == 0, r.output
    assert "Sacred Hill: 200 games, seed 3" in r.stdout
    assert r.stdout.strip().splitlines()[-1].startswith("report: ")
    r = cli("report", "sacred-hill", "-n", 200, "-q", "--json", "--out", tmp_path / "j")
    data = json.loads(r.stdout)
    assert "report.html" in data["files"] and data["summary"]["games"] == 200
    assert np.isclose(sum(s["win_rate"]["estimate"] for s in data["summary"]["seats"]), 1.0)


@pytest.mark.parametrize(
    "args,code,text",
    [
        (["-n", 0], 2, "--games must be a positive whole number"),
        (["-p", "nope"], 2, "unknown policy 'nope'"),
        (["--variant", "zone=king"], 2, "variant zone='king' is not one of"),
        (["--players", 3], 2, "sacred-hill is for 2 players, not 3"),
    ],
)
def test_cli_bad_input_is_one_line_and_writes_nothing(cli, tmp_path, args, code, text):
    out = tmp_path / "r"
    r = cli("report", "sacred-hill", "--out", out, *args)
    assert r.exit_code == code, r.output
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: ") and text in lines[0], r.output
    assert not out.exists()


def test_cli_out_must_be_a_folder(cli, tmp_path):
    f = tmp_path / "file.txt"
    f.write_text("x")
    r = cli("report", "sacred-hill", "-n", 10, "-q", "--out", f)
    assert r.exit_code != 0
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), r.output
    r = cli("report", "sacred-hill", "-n", 10, "-q")
    assert r.exit_code == 2 and "Missing option '--out'" in r.output


def test_run_notices_are_shown_above_the_tables(tmp_path, monkeypatch):
    """A run's notices (e.g. Don Quixote's reconstructed tile set) head the report."""
    real = mcsim.runner.simulate  # the report's runs go through it (RunOptions.simulate)

    def with_notice(*a, **k):
        r = real(*a, **k)
        r.prepared.notices.append("figures depend on an unverified <test> table")
        return r

    monkeypatch.setattr("mcsim.runner.simulate", with_notice)
    r = build_report("sacred-hill", tmp_path / "r", games=50, seed=1)
    page = (tmp_path / "r" / "report.html").read_text()
    assert (
        '<p class="warn"><b>Note:</b> figures depend on an unverified &lt;test&gt; table</p>'
        in page
    )
    assert page.index('class="warn"') < page.index("<h2>Seats</h2>")
    assert (
        "> **Note:** figures depend on an unverified <test> table"
        in (tmp_path / "r" / "report.md").read_text()
    )
    assert json.loads((tmp_path / "r" / "summary.json").read_text())["report"]["notes"] == [
        "figures depend on an unverified <test> table"
    ]
    assert r.figures


@pytest.mark.parametrize(
    "game,kw,want_skipped",
    [
        ("don-quixote", {"players": 2}, {}),
        ("el-grande", {"players": 3}, {}),
        ("carcassonne", {"variant": {"gifts": "true"}}, {}),
        ("carcassonne", {}, {"carcassonne_gifts": "gifts=false: no gift cards in play"}),
        ("thurn-and-taxis", {"players": 2}, {}),
    ],
)
def test_every_implemented_game_reports_its_charts_or_skips_them(tmp_path, game, kw, want_skipped):
    """A small report of each implemented game renders; each of its per-game charts is drawn,
    except the ones whose data the configuration lacks, which are listed as skipped with their
    reason (never an exception; the expected skips are named, so a report that
    skips every chart fails)."""
    r = build_report(game, tmp_path / "r", games=20, seed=1, **kw)
    drawn = {f.slug for f in r.figures}
    skipped = dict(r.skipped)
    for slug, _ in get_game(game).CHARTS:
        assert (slug in drawn) != (slug in skipped), slug
    assert set(skipped) == set(want_skipped)
    for slug, reason in want_skipped.items():
        assert skipped[slug].startswith(reason)
    assert {slug for slug, _ in get_game(game).CHARTS} - set(want_skipped) <= drawn
    assert {"score_distribution", "win_rate_by_seat", "game_length", "policy_comparison"} <= drawn
    page = (tmp_path / "r" / "report.html").read_text()
    assert page.count("data:image/png;base64,") == len(r.figures)
