"""Balance reports: one run (plus seat rotations) as ``report.html``, ``report.md`` and PNGs.

``build_report(game, ...)`` plays the games through ``mcsim.simulate`` and writes into ``out``:

==============================  ===========================================================
file                            content
==============================  ===========================================================
``report.html``                 self-contained page (figures embedded as base64 PNG data
                                URIs, inline CSS, no scripts); opens offline
``report.md``                   the same tables, figures linked as ``<slug>.png``
``<slug>.png``                  one file per figure (matplotlib, Agg)
``summary.json``                the run's summary (``mcsim simulate --json``) plus a
                                ``"report"`` block: figures, skipped charts, comparisons,
                                example games
``show_<what>_game<i>.html``    example games drawn move by move (``mcsim show``): the
                                longest, a typical and the most one-sided game, linked
                                from the report (``mcsim.show.examples``)
==============================  ===========================================================

Figures (every one has a title, axis labels with units, the number of games and the seed):

- ``score_distribution``: final scores per seat (share of games per score);
- ``win_rate_by_seat``: win rate per seat with Wilson 95% intervals (not for one player);
- ``game_length``: game length in plies;
- ``policy_comparison``: forest plot of paired per-game differences with Student-t 95%
  intervals. With one policy in every seat it shows the seat effect (seat 0 - seat k, as the
  skill ladder's). When the seats hold different policies the run is repeated with the
  policies rotated cyclically over the seats, same seed (the same deals, common random numbers), and the plot shows the policy
  effect balanced over seats, the difference as seated (policy + seat effect) and the seat
  effect balanced over policies (``rotate=False`` shows the as-seated rows only);
- per game: Sacred Hill ``sacred_hill_decided_by``, ``sacred_hill_kingdoms``; Don Quixote
  ``don_quixote_categories``, ``don_quixote_scoring_rounds``; El Grande
  ``el_grande_action_cards``, ``el_grande_points_by_source``; Carcassonne
  ``carcassonne_points_by_feature``, ``carcassonne_gifts``; Thurn and Taxis
  ``thurn_and_taxis_officials``, ``thurn_and_taxis_route_lengths``. A chart whose columns or
  summary keys the game does not produce is skipped and listed in the report with the reason.
"""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mcsim import charts as ch
from mcsim import stats
from mcsim.charts import COLORS, Figure, MissingData
from mcsim.errors import ConfigError
from mcsim.games import get_game
from mcsim.runner import RunOptions, SimulationResult, to_json
from mcsim.text import counted


@dataclass
class ReportResult:
    """What ``build_report`` returns."""

    out: Path
    result: SimulationResult
    figures: list[Figure]
    skipped: list[tuple[str, str]]
    comparison: list[dict]
    files: list[str] = field(default_factory=list)
    #: the figures of the report's sections (skill ladder, restricted play), beside ``figures``
    section_figures: list[Figure] = field(default_factory=list)

    @property
    def embedded(self) -> int:
        """How many figures the report embeds (``figures`` and ``section_figures``)."""
        return len(self.figures) + len(self.section_figures)


@dataclass
class _Ctx:
    module: Any
    result: SimulationResult
    rotations: list[tuple[list[str], SimulationResult]]  # (labels per seat, result), first = main
    ladder: dict | None = None  # {"ladder": mcsim.ladder.ladder(...), "figures", "rung", "verdict"}
    value: dict | None = None  # {"value": value.json of `mcsim value --out DIR`, "figure"}

    @property
    def spec(self):
        return self.module.SPEC

    @property
    def summary(self) -> dict:
        return self.result.summary

    @property
    def games(self) -> pd.DataFrame:
        return self.result.games

    @property
    def players(self) -> int:
        return int(self.summary["players"])

    @property
    def labels(self) -> list[str]:
        return list(self.summary["policies"])

    @property
    def title(self) -> str:
        """The game's name for this run's variant (``GameSpec.title``)."""
        return self.spec.title(self.summary["variant"])

    @property
    def n(self) -> int:
        return int(self.summary["games"])

    @property
    def seed(self) -> int:
        return int(self.summary["seed"])

    def seat_label(self, k: int) -> str:
        return f"seat {k} ({self.labels[k]})"

    def footer(self, games_note: str | None = None) -> str:
        g = games_note or counted(self.n, "game")
        pol = self.labels[0] if len(set(self.labels)) == 1 else " | ".join(self.labels)
        return (
            f"{self.title}, {self.players} player{'s' if self.players != 1 else ''} "
            f"({pol}); {g}; seed {self.seed}"
        )


def _examples_md(examples: list[dict]) -> str:
    if not examples:
        return ""
    lines = [
        "",
        "## Example games",
        "",
        "Each file draws one game move by move (`mcsim show`; arrow keys step):",
        "",
    ]
    lines += [f"- [{e['title']}]({e['file']}): {e['why']}" for e in examples]
    return "\n".join(lines) + "\n"


def _examples_html(examples: list[dict]) -> str:
    if not examples:
        return ""
    items = "".join(
        f'<li><a href="{html.escape(e["file"])}">{html.escape(e["title"])}</a>: '
        f"{html.escape(e['why'])}</li>"
        for e in examples
    )
    return (
        "<h2>Example games</h2><p>Each file beside this report draws one game move by move "
        f"(<code>mcsim show</code>; arrow keys step):</p><ul>{items}</ul>\n"
    )


# ---------------------------------------------------------------- entry point
def build_report(
    game: str,
    out: str | Path,
    games: int = 10_000,
    seed: int = 0,
    policies=None,
    variant: dict | None = None,
    players: int | None = None,
    workers: int | None = 1,
    chunk_size: int | None = None,
    options: dict | None = None,
    rotate: bool = True,
    progress: bool = False,
    echo: Callable[[str], None] | None = None,
    backend: str | None = None,
    scheduler: str | None = None,
    force: bool = False,
    ladder: bool = False,
    ladder_rungs: list[str] | None = None,
    ladder_games: int = 500,
    value: str | Path | None = None,
    ladder_from: str | Path | None = None,
) -> ReportResult:
    """Play a run and write its balance report into the folder ``out``.

    Parameters
    ----------
    game, games, seed, policies, variant, players, workers, chunk_size, options, backend, scheduler
        As for ``mcsim.simulate``. The report keeps every game's row in memory (the figures
        and paired differences need them), so memory grows with ``games``.
    out : path
        Output folder (created if missing; its parent must exist).
    rotate : bool
        When the seats hold different policies, also play the cyclic rotations of the policies
        over the seats (same seed, ``players - 1`` more runs of ``games`` games at most) so the
        policy comparison can separate the policy effect from the seat effect.
    progress : bool
        Progress bars on stderr.
    echo : callable, optional
        Called with one line per step (runs, files written).
    ladder, ladder_rungs, ladder_games :
        Also play a skill ladder (``mcsim.ladder.ladder``: ``ladder_rungs``, default the
        game's, ``ladder_games`` games per run, same seed, variant, players and options) and
        add its section: rungs, skill curve, convergence verdicts and their figures; the
        report's facts then say which rung the report's players are and whether the seat win
        rates were stable between that rung and the next (the top rung: the one below).
    ladder_from : path, optional
        In place of ``ladder``: the folder of a ladder played earlier (``mcsim ladder GAME
        --out DIR``, or a published ``ladder.json`` alone; ``mcsim.ladder.read_ladder_folder``)
        of the same game, players and variant, read before any game (another is refused). The
        verdict of the report's rung against its neighbour is the ladder's own when the two
        are its top rungs, else computed from the folder's run datasets; a folder without them
        says so in the header.
    value : path, optional
        The folder of a finished ``mcsim value --out DIR`` run of the same game, players and
        variant (``mcsim.value``): its restricted-play table and forest plot become the first
        section of the report (read before any game; a folder of another game, player count or
        variant is refused).
    force : bool
        Replace an earlier report in ``out`` (``--force``); without it such a folder is
        refused before anything is played, and a folder holding any file a report does not
        write is refused even with it. The report is written to a temporary folder next to
        ``out`` and moved into place at the end, so a failed run leaves nothing and the
        earlier report stays as it was until the new one is whole.

    Returns
    -------
    ReportResult

    Raises
    ------
    UnknownGameError, UnknownPolicyError, UnknownVariantError, ConfigError, DataFileError
        As ``mcsim.simulate``; ``OutputError`` when
        ``out`` cannot be the report's folder (``mcsim.outputs.check_run_folder``),
        ``BadValueError`` when it is empty. Nothing is written when the run fails.
    """
    from mcsim.outputs import REPORT_FOLDER, check_run_folder

    # before any game; --force replaces only an earlier report's files (the folder is swapped
    # for the new one when it is whole), never a folder holding anything else
    check_run_folder(out, "--out", REPORT_FOLDER, False, force, keyword="out")
    out = Path(out)
    module = get_game(game)
    say = echo or (lambda s: None)
    value_data = (
        None if value is None else _read_value(game, value, policies, variant, players, options)
    )
    if ladder and ladder_from is not None:
        raise ConfigError("--ladder-from reads a ladder played earlier; give it or --ladder")
    saved = (
        None
        if ladder_from is None
        else _read_ladder(game, ladder_from, policies, variant, players, options)
    )
    if ladder:
        from mcsim import ladder as lad_mod

        rungs = ladder_rungs if ladder_rungs is not None else lad_mod.default_rungs(game)
        lad_mod.check_rungs(game, rungs, players, variant, options)  # before any game
        if ladder_games <= 0:
            raise ConfigError(f"--ladder-games must be a positive whole number, not {ladder_games}")
    run = RunOptions(
        games=games,
        seed=seed,
        variant=variant,
        players=players,
        options=options,
        workers=workers,
        chunk_size=chunk_size,
        backend=backend,
        scheduler=scheduler,
        progress=progress,
    )
    main = run.simulate(game, policies, keep_games=True)
    say(f"report: played {counted(games, 'game')} of {game} (seed {seed})")
    rotations = _seat_rotations(game, main, run, say) if rotate else []
    ctx = _Ctx(
        module, main, [([c.label() for c in main.prepared.config.policies], main)] + rotations
    )
    if ladder:
        say(f"report: ladder of {len(rungs)} rungs, {counted(ladder_games, 'game')} per run")
        lad = lad_mod.ladder(
            game,
            rungs,
            games=ladder_games,
            seed=seed,
            players=players,
            variant=variant,
            options=options,
            workers=workers,
            backend=backend,
            scheduler=scheduler,
            progress=progress,
        )
        ctx.ladder = _ladder_context(ctx, lad)
    if saved is not None:
        say(f"report: ladder of {len(saved['rungs'])} rungs read from {ladder_from}")
        ctx.ladder = _ladder_context(ctx, saved, ladder_from)
    if value_data is not None:
        from mcsim.value import value_figure

        ctx.value = {"value": value_data, "figure": value_figure(value_data)}
    comparison: list[dict] = []
    figures, skipped = _draw_figures(ctx, module, comparison)
    summary = dict(main.summary)
    summary["report"] = {
        "figures": [{"file": f.file, "title": f.title} for f in figures],
        "skipped": [{"figure": s, "reason": r} for s, r in skipped],
        "seatings": [lab for lab, _ in ctx.rotations],
        "notes": _notes(ctx),
        "comparison": comparison,
    }
    if ctx.ladder is not None:
        from mcsim.ladder import to_json_dict

        summary["report"]["ladder"] = {
            **to_json_dict(ctx.ladder["ladder"]),
            "report_rung": ctx.ladder["rung"],
            "report_rung_verdict": ctx.ladder["verdict"],
        }
        if ladder_from is not None:
            summary["report"]["ladder"]["from"] = str(ladder_from)
    if ctx.value is not None:
        summary["report"]["restricted_play"] = ctx.value["value"]
    files = _write_report_folder(out, ctx, module, seed, summary, figures, skipped, comparison)
    extra = _section_figures(ctx)
    say(f"report: wrote {out / 'report.html'} ({counted(len(figures) + len(extra), 'figure')})")
    return ReportResult(out, main, figures, skipped, comparison, files, extra)


def _section_figures(ctx) -> list:
    """The figures of the ladder and restricted-play sections (embedded beside the common
    ones)."""
    return (ctx.ladder["figures"] if ctx.ladder is not None else []) + (
        [ctx.value["figure"]] if ctx.value is not None else []
    )


def _seat_rotations(game: str, main: SimulationResult, run: RunOptions, say) -> list:
    """When the seats hold different policies, the cyclic rotations of the policies over the
    seats, each played on the same deals: ``[(labels, SimulationResult)]`` (none otherwise)."""
    choices = list(main.prepared.config.policies)
    labels = [c.label() for c in choices]
    k = len(labels)
    rotations: list[tuple[list[str], SimulationResult]] = []
    if k < 2 or len(set(labels)) < 2:
        return rotations
    done = {tuple(labels)}
    for r in range(1, k):
        rot = [choices[(s - r) % k] for s in range(k)]
        key = tuple(c.label() for c in rot)
        if key in done:
            continue
        done.add(key)
        say(f"report: seat rotation {r}: {' | '.join(key)}")
        rotations.append((list(key), run.simulate(game, rot, keep_games=True)))
    return rotations


def _draw_figures(ctx, module, comparison: list) -> tuple[list, list]:
    """Every common figure and the game's own (``module.CHARTS``): ``(figures, skipped)``, a
    skipped figure with the reason its builder gave (``MissingData``); the policy comparison's
    rows are appended to ``comparison``."""
    figures: list[Figure] = []
    skipped: list[tuple[str, str]] = []
    builders: list[tuple[str, Callable]] = [
        ("score_distribution", _fig_scores),
        ("win_rate_by_seat", _fig_win_rate),
        ("game_length", _fig_length),
        ("policy_comparison", lambda c: _fig_comparison(c, comparison)),
    ] + list(module.CHARTS)
    import matplotlib

    matplotlib.use("Agg", force=False)
    for slug, fn in builders:
        try:
            fig = fn(ctx)
        except MissingData as e:
            skipped.append((slug, str(e)))
            continue
        if fig is None:
            continue
        fig.slug = slug
        figures.append(fig)
    return figures, skipped


def _write_report_folder(out, ctx, module, seed, summary, figures, skipped, comparison) -> list:
    """Write ``report.md``, ``report.html``, ``summary.json``, the PNG figures and the example
    games into a staged folder moved into place as ``out`` at once (or not at all); returns
    the file names written."""
    from mcsim.errors import OutputWriteError
    from mcsim.outputs import Outputs, write_staged
    from mcsim.show.examples import write_examples

    files = []
    with Outputs(force=True) as outs:  # the whole folder is moved into place at once, or none
        stage = outs.stage_folder(out, "--out")
        # example games drawn move by move (mcsim show), beside report.html
        try:
            examples = write_examples(module, ctx.result.prepared, seed, stage, ctx.games)
        except OSError as e:  # name the user's folder (and file), never the staging folder
            where = Path(out) / Path(e.filename).name if e.filename else f"{out} (example games)"
            raise OutputWriteError(f"cannot write --out {where}: {e.strerror or e}") from None
        summary["report"]["example_games"] = examples
        md = render_markdown(ctx, figures, skipped, comparison) + _examples_md(examples)
        page = render_html(ctx, figures, skipped, comparison)
        page = page.replace("</body></html>", _examples_html(examples) + "</body></html>")
        text = to_json(summary, indent=2)
        for f in figures + _section_figures(ctx):
            write_staged(stage, f.file, f.png, out, "--out")
            files.append(f.file)
        for name, content in (
            ("report.md", md),
            ("report.html", page),
            ("summary.json", text + "\n"),
        ):
            write_staged(stage, name, content, out, "--out")
            files.append(name)
        files += sorted({e["file"] for e in examples})
        outs.commit()
    return files


# ---------------------------------------------------------------- common figures
def _bins(lo: float, hi: float, integral: bool, n: int) -> np.ndarray:
    """Histogram edges: about 2*sqrt(n) bins (10..60); integer data gets integer-aligned bins
    of a whole width (one bin per value when that few values occur)."""
    target = int(np.clip(2 * math.sqrt(max(n, 1)), 10, 60))
    if integral:
        width = max(1, math.ceil((hi - lo + 1) / target))
        return np.arange(lo - 0.5, hi + width + 0.5, width, dtype=np.float64)
    return np.linspace(lo, hi if hi > lo else lo + 1, target + 1)


def _fig_scores(ctx: _Ctx) -> Figure:
    g = ctx.games
    k = ctx.players
    scores = [g[f"score_{s}"].to_numpy(dtype=np.float64) for s in range(k)]
    lo = math.floor(min(x.min() for x in scores))
    hi = math.ceil(max(x.max() for x in scores))
    integral = all(np.all(x == np.round(x)) for x in scores)
    edges = _bins(lo, hi, integral, scores[0].size)
    fig, (ax,) = ch.figure()
    for s, x in enumerate(scores):
        w = np.full(x.size, 100.0 / x.size)
        ax.hist(
            x,
            bins=edges,
            weights=w,
            histtype="step",
            linewidth=1.6,
            color=COLORS[s % 10],
            label=f"{ctx.seat_label(s)}: mean {x.mean():.2f}",
        )
        ax.axvline(x.mean(), color=COLORS[s % 10], linestyle="--", linewidth=1)
    w = edges[1] - edges[0]
    ax.set_xlabel("final score (points" + ("" if w == 1 else f"; bins {w:g} wide") + ")")
    ax.set_ylabel("share of games per bin (%)")
    ax.legend(fontsize=8, loc="best")
    return ch.done(
        fig,
        ctx,
        "score_distribution",
        "Score distribution per seat",
        "Final score of each seat; dashed lines mark the means.",
    )


def _fig_win_rate(ctx: _Ctx) -> Figure | None:
    if ctx.players < 2:
        raise MissingData("one player: there is no winner to compare")
    seats = ctx.summary["seats"]
    est = [ch.pct(s["win_rate"]["estimate"]) for s in seats]
    low = [ch.pct(s["win_rate"]["low"]) for s in seats]
    high = [ch.pct(s["win_rate"]["high"]) for s in seats]
    x = np.arange(len(seats))
    fig, (ax,) = ch.figure(max(5.5, 1.4 * len(seats) + 3), 4.6)
    ax.bar(
        x,
        est,
        color=[COLORS[s % 10] for s in range(len(seats))],
        alpha=0.8,
        yerr=ch.err(est, low, high),
        capsize=6,
        ecolor="black",
    )
    fair = 100.0 / ctx.players
    ax.axhline(fair, color="gray", linestyle="--", linewidth=1, label=f"equal share {fair:.1f}%")
    for xi, e, h in zip(x, est, high):
        ax.annotate(
            f"{e:.1f}%", (xi, h), textcoords="offset points", xytext=(0, 4), ha="center", fontsize=9
        )
    ax.set_xticks(x, [ctx.seat_label(s).replace(" (", "\n(") for s in range(len(seats))])
    ax.set_xlabel("seat (0 = first in the starting turn order) and policy")
    ax.set_ylabel("win rate (% of games; a k-way tie counts 1/k)")
    ax.set_ylim(0, min(110, max(high) * 1.15 + 3))  # room for the labels above 100%
    ax.legend(fontsize=8, loc="upper right")
    return ch.done(
        fig,
        ctx,
        "win_rate_by_seat",
        "Win rate by seat",
        "Bars: share of games won; error bars: Wilson 95% intervals; dashed line: "
        "the share every seat would have in a balanced game.",
    )


def _fig_length(ctx: _Ctx) -> Figure:
    x = ctx.games["length_plies"].to_numpy(dtype=np.float64)
    lo, hi = int(x.min()), int(x.max())
    edges = _bins(lo, hi, True, x.size)
    fig, (ax,) = ch.figure()
    ax.hist(x, bins=edges, weights=np.full(x.size, 100.0 / x.size), color=COLORS[0], alpha=0.8)
    ax.axvline(
        x.mean(), color="black", linestyle="--", linewidth=1, label=f"mean {x.mean():.1f} plies"
    )
    if hi - lo < 10:  # (nearly) fixed length: keep the bars narrow and centred
        ax.set_xlim(lo - 5, hi + 5)
    w = edges[1] - edges[0]
    ax.set_xlabel(
        "game length (plies: moves by all players" + ("" if w == 1 else f"; bins {w:g} wide") + ")"
    )
    ax.set_ylabel("share of games per bin (%)")
    ax.legend(fontsize=8)
    cap = f"Every game has {lo} plies." if lo == hi else f"Plies per game (min {lo}, max {hi})."
    return ch.done(fig, ctx, "game_length", "Game length", cap)


# ---------------------------------------------------------------- policy comparison
def _seat_arrays(res: SimulationResult, k: int):
    g = res.games
    sc = np.column_stack([g[f"score_{s}"].to_numpy(dtype=np.float64) for s in range(k)])
    ws = np.column_stack([g[f"win_share_{s}"].to_numpy(dtype=np.float64) for s in range(k)])
    return sc, ws


def comparison_rows(ctx: _Ctx) -> list[dict]:
    """The paired differences of the policy comparison (see the module docstring).

    Each row: ``group`` ("policy effect (seat-balanced)", "as seated", "seat effect"),
    ``label``, ``score`` and ``win_rate`` (``stats.mean_interval`` of the per-game differences,
    clipped to the range of a difference: ``stats.difference_bounds``; points and share of
    games).
    """
    k = ctx.players
    if k < 2:
        return []
    rows = []
    labels = ctx.labels
    policies = list(dict.fromkeys(labels))
    arrays = [(lab, *_seat_arrays(res, k)) for lab, res in ctx.rotations]

    def row(group, label, d_score, d_win):
        return {
            "group": group,
            "label": label,
            # each interval clipped to the range of a difference (a win rate's: [-1, 1])
            "score": stats.mean_interval(d_score, stats.difference_bounds(ctx.spec.score_bounds)),
            "win_rate": stats.mean_interval(d_win, stats.difference_bounds((0.0, 1.0))),
        }

    def pmean(a, lab, p):
        idx = [s for s in range(k) if lab[s] == p]
        return a[:, idx].mean(axis=1)

    if len(policies) == 1:
        sc, ws = arrays[0][1], arrays[0][2]
        for s in range(1, k):
            rows.append(
                row("seat effect", f"seat 0 - seat {s}", sc[:, 0] - sc[:, s], ws[:, 0] - ws[:, s])
            )
        return rows
    pairs = [(a, b) for i, a in enumerate(policies) for b in policies[i + 1 :]]
    balanced = len(arrays) > 1
    for a, b in pairs:
        if balanced:
            ds = np.mean([pmean(sc, lab, a) - pmean(sc, lab, b) for lab, sc, _ in arrays], axis=0)
            dw = np.mean([pmean(ws, lab, a) - pmean(ws, lab, b) for lab, _, ws in arrays], axis=0)
            rows.append(row("policy effect (seat-balanced)", f"{a} - {b}", ds, dw))
    lab0, sc0, ws0 = arrays[0]
    for a, b in pairs:
        sa = ",".join(str(s) for s in range(k) if lab0[s] == a)
        sb = ",".join(str(s) for s in range(k) if lab0[s] == b)
        rows.append(
            row(
                "as seated (policy + seat effect)",
                f"{a} (seat {sa}) - {b} (seat {sb})",
                pmean(sc0, lab0, a) - pmean(sc0, lab0, b),
                pmean(ws0, lab0, a) - pmean(ws0, lab0, b),
            )
        )
    if balanced:
        for s in range(1, k):
            ds = np.mean([sc[:, 0] - sc[:, s] for _, sc, _ in arrays], axis=0)
            dw = np.mean([ws[:, 0] - ws[:, s] for _, _, ws in arrays], axis=0)
            rows.append(row("seat effect (policy-balanced)", f"seat 0 - seat {s}", ds, dw))
    return rows


def _fig_comparison(ctx: _Ctx, sink: list) -> Figure:
    rows = comparison_rows(ctx)
    if not rows:
        raise MissingData("one player: no seats or policies to compare")
    sink.extend(rows)
    n_rot = len(ctx.rotations)
    fig, axes = ch.figure(11, 1.9 + 0.42 * len(rows), ncols=2)
    ylabels = [
        f"{r['label']}  [{r['group']}]" if len({x["group"] for x in rows}) > 1 else r["label"]
        for r in rows
    ]
    y = np.arange(len(rows))[::-1]
    groups = list(dict.fromkeys(r["group"] for r in rows))
    colors = [COLORS[groups.index(r["group"]) % 10] for r in rows]
    for ax, key, scale, xl in (
        (axes[0], "score", 1.0, "difference in final score (points)"),
        (axes[1], "win_rate", 100.0, "difference in win rate (percentage points)"),
    ):
        m = np.array([r[key]["mean"] for r in rows]) * scale
        lo = np.array([r[key]["low"] for r in rows]) * scale
        hi = np.array([r[key]["high"] for r in rows]) * scale
        for yi, mi, e, c in zip(y, m, ch.err(m, lo, hi).T, colors):
            ax.errorbar(mi, yi, xerr=e.reshape(2, 1), fmt="o", color=c, capsize=4)
        ax.axvline(0, color="gray", linewidth=1)
        ax.set_xlabel(xl)
        ax.grid(True, axis="x", alpha=0.3)
    axes[0].set_yticks(y, ylabels, fontsize=8)
    axes[1].set_yticks(y, [""] * len(rows))
    axes[0].set_ylabel("paired difference")
    if len(groups) == 1 and groups[0] == "seat effect":
        title = "Seat effect: paired differences (same policy in every seat)"
        note = None
        cap = (
            "Per-game differences between seats of the same game, mean with Student-t 95% "
            "interval. With one policy everywhere, any difference is the seat effect."
        )
    else:
        title = "Policy comparison: paired differences"
        note = (
            f"{counted(ctx.n, 'game')} per seating x {n_rot} seatings (cyclic rotations, same deals)"
            if n_rot > 1
            else None
        )
        cap = "Per-game differences, mean with Student-t 95% interval. " + (
            "Policy effect: averaged over every seating of the policies (the seat effect "
            "cancels); as seated: the run as asked, which mixes policy and seat effect; "
            "seat effect: averaged over the seatings (the policy effect cancels)."
            if n_rot > 1
            else "As seated only (rotation off): the difference includes the seat effect."
        )
    return ch.done(fig, ctx, "policy_comparison", title, cap, note)


# ---------------------------------------------------------------- text
def _ci(d: dict, key="estimate", fmt="{:.4f}") -> str:
    v = d.get(key)
    est = "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else fmt.format(v)
    return f"{est} {stats.interval_text(d, fmt[2:-1])}"


def headline_rows(ctx: _Ctx) -> list[list[str]]:
    """Rows of the headline table: seat, policy, win rate [95%], mean score [95%], sd, min,
    median, max (strings as they appear in the report)."""
    out = []
    for s in ctx.summary["seats"]:
        sc = s["score"]
        out.append(
            [
                str(s["seat"]),
                s["policy"],
                _ci(s["win_rate"]) if ctx.players > 1 else "n/a (one player)",
                _ci(sc, "mean", "{:.3f}"),
                f"{sc['sd']:.3f}",
                f"{sc['min']:g}",
                f"{sc['p50']:g}",
                f"{sc['max']:g}",
            ]
        )
    return out


HEAD = [
    "seat",
    "policy",
    "win rate [95% CI]",
    "mean score, points [95% CI]",
    "sd",
    "min",
    "median",
    "max",
]
CMP_HEAD = [
    "comparison",
    "paired difference",
    "score, points [95% CI]",
    "win rate, pp [95% CI]",
    "games",
]


def _cmp_table(rows: list[dict]) -> list[list[str]]:
    out = []
    for r in rows:
        w = {
            k: (v * 100 if isinstance(v, float) and k != "n" else v)
            for k, v in r["win_rate"].items()
        }
        out.append(
            [
                r["group"],
                r["label"],
                _ci(r["score"], "mean", "{:+.3f}"),
                _ci(w, "mean", "{:+.2f}"),
                f"{r['score']['n']:,}",
            ]
        )
    return out


def _facts(ctx: _Ctx) -> list[tuple[str, str]]:
    s = ctx.summary
    var = ", ".join(f"{k}={v}" for k, v in ctx.spec.shown_variant(s["variant"]).items())
    var = var or "(none)"
    ln = s["length"]
    facts = [
        ("game", f"{ctx.title} ({ctx.spec.id}; rules: {ctx.spec.rules})"),
        ("games", f"{ctx.n:,}"),
        ("seed", str(ctx.seed)),
        ("players", str(ctx.players)),
        ("policies (seat order)", " | ".join(ctx.labels)),
        ("variant", var),
        ("game length", f"mean {ln['mean']:.2f} plies (min {ln['min']}, max {ln['max']})"),
    ]
    if len(ctx.rotations) > 1:
        facts.append(
            (
                "seatings played",
                "; ".join(" | ".join(lab) for lab, _ in ctx.rotations)
                + f" ({counted(ctx.n, 'game')} each, same seed)",
            )
        )
    if ctx.players == 2:
        a, b = s["seats"][0]["win_rate"]["estimate"], s["seats"][1]["win_rate"]["estimate"]
        mixed = (
            "; the seats hold different policies, so this mixes policy and seat effect"
            if len(set(ctx.labels)) > 1
            else ""
        )
        facts.append(("first-player balance", f"{a - b:+.4f} (win rate seat 0 - seat 1{mixed})"))
    for k in ("tileset",):
        if isinstance(s.get(k), dict):
            facts.append((k, ", ".join(f"{a}={b}" for a, b in s[k].items())))
    if ctx.ladder is not None:
        facts.append(("skill ladder", ctx.ladder["header"]))
    import mcsim

    facts.append(("mcsim", mcsim.__version__))
    return facts


def headline(ctx: _Ctx, comparison: list[dict]) -> list[str]:
    """The report's headline sentences (win rates, seat and policy effects with 95% CIs)."""
    out = []
    seats = ctx.summary["seats"]
    if ctx.players == 1:
        sc = seats[0]["score"]
        return [
            f"Mean score {sc['mean']:.3f} points, 95% CI {stats.interval_text(sc, '.3f')}, "
            f"sd {sc['sd']:.3f}, over {counted(ctx.n, 'game')}."
        ]
    fair = 100.0 / ctx.players
    for st in seats:
        w = st["win_rate"]
        out.append(
            f"Seat {st['seat']} ({st['policy']}) wins {ch.pct(w['estimate']):.2f}% of games "
            f"95% CI {stats.interval_text(w, '.2f', 100)}; equal share "
            f"{fair:.2f}%."
        )
    for r in comparison:
        if (
            r["group"] == "as seated (policy + seat effect)"
            and len(comparison) > 1
            and any(x["group"].startswith("policy effect") for x in comparison)
        ):
            continue
        sc, w = r["score"], r["win_rate"]
        out.append(
            f"{r['group'][0].upper() + r['group'][1:]}, {r['label']}: "
            f"{sc['mean']:+.3f} points, 95% CI {stats.interval_text(sc, '+.3f')}, "
            f"{ch.pct(w['mean']):+.2f} percentage points of win rate "
            f"{stats.interval_text(w, '+.2f', 100)}."
        )
    return out


def _notes(ctx: _Ctx) -> list[str]:
    """The run's notices (e.g. a reconstructed Don Quixote tile set), shown above the tables."""
    return [str(n) for n in ctx.result.prepared.notices]


def _is_interval(v) -> bool:
    return isinstance(v, dict) and "low" in v and "high" in v and ("estimate" in v or "mean" in v)


def _leaf(v) -> bool:
    return not isinstance(v, (dict, list)) or _is_interval(v)


def _cell(v) -> str:
    """One value of the game's details as a table cell (intervals as ``x [low, high]``)."""
    if _is_interval(v):
        return _ci(v, "estimate" if "estimate" in v else "mean", "{:.4g}")
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, float):
        return "n/a" if math.isnan(v) else f"{v:.4g}"
    if isinstance(v, list):
        return " / ".join(_cell(x) for x in v)
    return str(v)


def _flat(v, prefix: str = "") -> list[tuple[str, object]]:
    if _leaf(v) or (isinstance(v, list) and all(_leaf(x) for x in v)):
        return [(prefix, v)]
    items = v.items() if isinstance(v, dict) else enumerate(v)
    out = []
    for k, x in items:
        out += _flat(x, f"{prefix}.{k}" if prefix else str(k))
    return out


def details_tables(block: dict) -> list[tuple[str, list[str], list[list[str]]]]:
    """The game's own summary block as tables ``(title, head, rows)`` (strings): its plain
    figures and per-seat lists in one table, each table of figures (a dict of values) as a
    two-column table, each dict of such tables as one table with a row per key, anything
    deeper as one row per nested name."""
    if not isinstance(block, dict):
        return []
    plain = [
        [k, _cell(v)]
        for k, v in block.items()
        if _leaf(v) or (isinstance(v, list) and all(_leaf(x) for x in v))
    ]
    tables = (
        [("figures", ["figure", "value (per seat: seat 0 / seat 1 / ...)"], plain)] if plain else []
    )
    for k, v in block.items():
        if _leaf(v) or (isinstance(v, list) and all(_leaf(x) for x in v)):
            continue
        if isinstance(v, dict) and all(_leaf(x) for x in v.values()):
            tables.append((k, ["name", "value"], [[a, _cell(b)] for a, b in v.items()]))
        elif (
            isinstance(v, dict)
            and v
            and all(isinstance(x, dict) and all(_leaf(y) for y in x.values()) for x in v.values())
        ):
            cols = list(dict.fromkeys(c for x in v.values() for c in x))
            rows = [[a] + [_cell(x.get(c, "")) for c in cols] for a, x in v.items()]
            tables.append((k, [""] + cols, rows))
        else:
            tables.append((k, ["name", "value"], [[a, _cell(b)] for a, b in _flat(v)]))
    return tables


def _md_table(head, rows) -> str:
    esc = lambda x: str(x).replace("|", "\\|")  # noqa: E731
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def render_markdown(ctx: _Ctx, figures: list[Figure], skipped, comparison) -> str:
    """``report.md``: facts, headline table, comparison table, figures linked as PNG files."""
    parts = [f"# Balance report: {ctx.title}", ""]
    parts += [f"> **Note:** {n}\n" for n in _notes(ctx)]
    parts += [f"- **{k}**: {v}" for k, v in _facts(ctx)]
    if ctx.value is not None:
        parts += [""] + value_markdown(ctx.value)
    parts += ["", "## Headline", ""] + [f"- {h}" for h in headline(ctx, comparison)]
    parts += [
        "",
        "## Seats",
        "",
        _md_table(HEAD, headline_rows(ctx)),
        "",
        "Win rates: Wilson 95% intervals, a k-way tie counts 1/k. Mean scores: Student-t "
        "95% intervals.",
        "",
    ]
    if comparison:
        parts += ["## Paired differences", "", _md_table(CMP_HEAD, _cmp_table(comparison)), ""]
    tables = details_tables(ctx.summary.get(ctx.spec.summary_key))
    if tables:
        parts += [f"## {ctx.title} details", ""]
        for title, head, rows in tables:
            parts += [f"### {_details_title(title)}", "", _md_table(head, rows), ""]
    if ctx.ladder is not None:
        parts += ladder_markdown(ctx.ladder)
    parts += ["## Figures", ""]
    for f in figures:
        parts += [f"### {f.title}", "", f"![{f.title}]({f.file})", "", f.caption, ""]
    if skipped:
        parts += ["## Charts skipped", ""]
        parts += [f"- `{s}`: {r}" for s, r in skipped]
        parts.append("")
    return "\n".join(parts)


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
 margin:0 auto;max-width:1100px;padding:24px;color:#222;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}h2{margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.6em 0;font-size:.92em}
th,td{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f3f3}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px}
dl.facts dt{font-weight:600}dl.facts dd{margin:0}
figure{margin:1.2em 0;padding:8px;border:1px solid #e3e3e3;border-radius:4px}
figure img{max-width:100%;height:auto;display:block;margin:0 auto}
figcaption{font-size:.9em;color:#444;margin-top:6px}
pre{background:#f7f7f7;padding:8px;white-space:pre-wrap;font-size:.88em}
.note{color:#555;font-size:.9em}
.warn{background:#fff4e5;border-left:4px solid #f0a030;padding:6px 10px}
"""


def _html_table(head, rows, num_from: int = 2) -> str:
    h = "".join(f"<th>{html.escape(c)}</th>" for c in head)
    body = []
    for r in rows:
        cells = "".join(
            f'<td class="num">{html.escape(c)}</td>'
            if i >= num_from
            else f"<td>{html.escape(c)}</td>"
            for i, c in enumerate(r)
        )
        body.append(f"<tr>{cells}</tr>")
    return f"<table><thead><tr>{h}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def render_html(ctx: _Ctx, figures: list[Figure], skipped, comparison) -> str:
    """``report.html``: self-contained (inline CSS, figures as base64 data URIs, no scripts)."""
    title = f"Balance report: {ctx.title}"
    facts = "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in _facts(ctx))
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
    ]
    parts += [f'<p class="warn"><b>Note:</b> {html.escape(n)}</p>' for n in _notes(ctx)]
    parts.append(f'<dl class="facts">{facts}</dl>')
    if ctx.value is not None:
        parts += value_html(ctx.value)
    parts.append("<h2>Headline</h2><ul>")
    parts += [f"<li>{html.escape(h)}</li>" for h in headline(ctx, comparison)]
    parts += [
        "</ul>",
        "<h2>Seats</h2>",
        _html_table(HEAD, headline_rows(ctx)),
        '<p class="note">Win rates: Wilson 95% intervals, a k-way tie counts 1/k. Mean '
        "scores: Student-t 95% intervals.</p>",
    ]
    if comparison:
        parts += ["<h2>Paired differences</h2>", _html_table(CMP_HEAD, _cmp_table(comparison))]
    tables = details_tables(ctx.summary.get(ctx.spec.summary_key))
    if tables:
        parts.append(f"<h2>{html.escape(ctx.title)} details</h2>")
        for title, head, rows in tables:
            parts += [
                f"<h3>{html.escape(_details_title(title))}</h3>",
                _html_table(head, rows, num_from=1),
            ]
    if ctx.ladder is not None:
        parts += ladder_html(ctx.ladder)
    parts.append("<h2>Figures</h2>")
    for f in figures:
        data = base64.b64encode(f.png).decode("ascii")
        parts.append(
            f'<figure id="fig-{f.slug}" data-file="{html.escape(f.file)}">'
            f'<img src="data:image/png;base64,{data}" alt="{html.escape(f.title)}">'
            f"<figcaption><b>{html.escape(f.title)}.</b> {html.escape(f.caption)} "
            f'<span class="note">({html.escape(f.file)})</span></figcaption></figure>'
        )
    if skipped:
        parts.append("<h2>Charts skipped</h2><ul>")
        parts += [f"<li><code>{html.escape(s)}</code>: {html.escape(r)}</li>" for s, r in skipped]
        parts.append("</ul>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


#: tables of a game's summary block that compare the players who took an option with those who
#: did not (El Grande's action cards, Thurn and Taxis's officials, Carcassonne's gifts): an
#: association that mixes the option's worth with who takes it and when, so the report labels
#: them (``OBSERVATIONAL``); restricted play (``mcsim value``, ``report --value``) measures
#: the worth itself
OBSERVATIONAL_TABLES = ("action_cards", "officials", "gifts")
OBSERVATIONAL = "observational (who took it, not what it is worth)"


def _details_title(key: str) -> str:
    """A details table's title: its summary key, labelled ``OBSERVATIONAL`` when it is one of
    ``OBSERVATIONAL_TABLES``."""
    return f"{key}: {OBSERVATIONAL}" if key in OBSERVATIONAL_TABLES else key


def _same_run_as_report(flag, folder, kind, d, game, policies, variant, players, options):
    """Refuse (``ConfigError``, before any game) a saved run ``d`` (``value.json``,
    ``ladder.json``) whose game, player count or variant is not the report's, resolved as the
    report's run is; ``kind`` names the run in the message ("restricted-play run", "ladder")."""
    from mcsim.runner import resolve_config

    _, cfg = resolve_config(game, players, policies, variant, options)
    if d["game"] != cfg.game:
        raise ConfigError(f"{flag} {folder} is a {kind} of {d['game']}, not {game}")
    if d["players"] != cfg.players:
        raise ConfigError(
            f"{flag} {folder} was played with {counted(d['players'], 'player')}, the report "
            f"with {cfg.players}; give the same --players"
        )
    if dict(d["variant"]) != dict(cfg.variant):
        theirs = " ".join(f"{k}={v}" for k, v in d["variant"].items()) or "(none)"
        raise ConfigError(
            f"{flag} {folder} was played with variant {theirs}; give the report the same --variant"
        )


def _read_value(game, folder, policies, variant, players, options) -> dict:
    """The ``value.json`` of ``folder`` (``mcsim.value.read_value_folder``), refused when it
    is not a run of the report's game, players and variant (``_same_run_as_report``)."""
    from mcsim.value import read_value_folder

    d = read_value_folder(folder)
    _same_run_as_report(
        "--value", folder, "restricted-play run", d, game, policies, variant, players, options
    )
    return d


def _value_head(d: dict) -> list[str]:
    """The head of the restricted-play table (a one-seat game: no points column, its value
    is in points)."""
    pts = [] if d["statistic"] == "points" else ["points [95% CI]"]
    return (
        ["group", "option", "value [95% CI]"]
        + pts
        + ["significant", "never came up", "forced per game", "deals"]
    )


def _value_rows(d: dict) -> list[list[str]]:
    from mcsim.value import fmt_interval, fmt_number, fmt_share

    solo = d["statistic"] == "points"
    out = []
    for r in d["rows"]:
        out.append(
            [
                r["group"],
                r["option"],
                fmt_interval(r["value"], r["low"], r["high"], "+.2f" if solo else "+.4f"),
            ]
            + (
                []
                if solo  # the value is the points difference
                else [fmt_interval(r["points_diff"], r["points_low"], r["points_high"], "+.2f")]
            )
            + [
                "yes" if r["significant"] else "no",
                fmt_share(r["never_came_up"]),
                fmt_number(r["forced_per_game"], ".3f"),
                f"{r['deals']:,}",
            ]
        )
    return out


def _value_intro(d: dict) -> str:
    solo = d["statistic"] == "points"
    what = (
        "the restricted game's points minus the unrestricted game's on the same deal"
        if solo
        else f"the restricted seat's win share minus 1/{d['players']} (the unrestricted share)"
    )
    deals = sorted({r["deals"] for r in d["rows"]})
    n = counted(deals[0], "deal") if len(deals) == 1 else f"{deals[0]:,}-{deals[-1]:,} deals"
    who = (
        f"to the player (policy {d['policy']})"
        if solo
        else f"to one seat in turn (policy {d['policy']}, the other seats unrestricted)"
    )
    return (
        f"Each option forbidden {who} on {n} common to every lineup (seed {d['seed']}); "
        f"value = {what}, with "
        "the Student-t 95% interval of the per-deal paired differences. Significant: the "
        "interval excludes 0. Never came up: share of restricted games in which the option was "
        "never among the seat's legal choices; forced: decisions per game where the rules left "
        f"only forbidden options. {counted(d['games_played'], 'game')}, "
        f"{d['cpu_seconds']:.1f} s of CPU (`mcsim value`)."
    )


def value_markdown(vctx: dict) -> list[str]:
    """The restricted-play section of ``report.md`` (first after the facts)."""
    d, f = vctx["value"], vctx["figure"]
    return [
        "## Restricted play: what each option is worth",
        "",
        _value_intro(d),
        "",
        _md_table(_value_head(d), _value_rows(d)),
        "",
        f"![{f.title}]({f.file})",
        "",
        f.caption,
        "",
    ]


def value_html(vctx: dict) -> list[str]:
    """The restricted-play section of ``report.html`` (first after the facts; figure embedded)."""
    d, f = vctx["value"], vctx["figure"]
    data = base64.b64encode(f.png).decode("ascii")
    return [
        "<h2>Restricted play: what each option is worth</h2>",
        f"<p>{html.escape(_value_intro(d))}</p>",
        _html_table(_value_head(d), _value_rows(d), num_from=2),
        f'<figure id="fig-{f.slug}" data-file="{html.escape(f.file)}">'
        f'<img src="data:image/png;base64,{data}" alt="{html.escape(f.title)}">'
        f"<figcaption><b>{html.escape(f.title)}.</b> {html.escape(f.caption)}</figcaption>"
        "</figure>",
    ]


def _read_ladder(game, folder, policies, variant, players, options) -> dict:
    """The ``ladder.json`` of ``folder`` (``mcsim.ladder.read_ladder_folder``), refused when
    it is not a ladder of the report's game, players and variant (``_same_run_as_report``)."""
    from mcsim.ladder import read_ladder_folder

    d = read_ladder_folder(folder)
    _same_run_as_report(
        "--ladder-from", folder, "ladder", d, game, policies, variant, players, options
    )
    return d


def _ladder_context(ctx: _Ctx, lad: dict, folder: str | Path | None = None) -> dict:
    """The ladder section's data: the ladder, its figures, the report's rung (the index of
    the rung whose policy fills every seat of the report, else None) and that rung's seat win
    rate verdict against the next rung (the top rung: against the one below).

    The verdict of the top two rungs is the ladder's own (``lad["verdicts"]``); any other
    pair is computed from the rungs' games: ``lad["results"]`` of a ladder just played, else
    the run datasets of ``folder`` (a ladder read with ``--ladder-from``). A folder without
    them (a published ``ladder.json``) gives no verdict (None) and the header says so."""
    from mcsim.ladder import convergence, hit_cap, read_rung_games

    labels = [r["policy"] for r in lad["rungs"]]
    pols = set(ctx.labels)
    rung = labels.index(ctx.labels[0]) if len(pols) == 1 and ctx.labels[0] in labels else None
    verdict = None
    who = " | ".join(ctx.labels) if len(pols) > 1 else f"{ctx.labels[0]} in every seat"
    top_two = f"top two rungs: {_stable_words(lad['verdicts'])}"
    if rung is None:
        header = (
            f"the report's players ({who}) are not a rung of the ladder "
            f"({', '.join(labels)}); {top_two}"
        )
        return _ladder_ctx(lad, rung, verdict, header)
    other = rung + 1 if rung + 1 < len(labels) else rung - 1
    lo, hi = sorted((rung, other))
    key = "win rate" if lad["players"] > 1 else "mean score"
    what = "win rates" if key == "win rate" else "score"
    where = f"rung {rung} of {len(labels)} ({', '.join(labels)})"
    capped = hit_cap([lad["rungs"][lo], lad["rungs"][hi]])
    if hi == len(labels) - 1:  # the top two: the ladder's own verdicts
        vs = lad["verdicts"]
    else:
        if "results" in lad:
            frames = [lad["results"][lo].games, lad["results"][hi].games]
        else:
            frames = [read_rung_games(folder, lad, i) for i in (lo, hi)]
        if any(f is None for f in frames):
            header = (
                f"the report's players ({who}) are {where}; the verdict of its seat {what} "
                f"against {labels[other]} needs the ladder's run datasets (rung-{lo}-*/, "
                f"rung-{hi}-*/), which {folder} does not hold; {top_two}"
            )
            return _ladder_ctx(lad, rung, verdict, header)
        vs = convergence(lad["game"], frames[0], frames[1], lad["players"], lad["precision"],
                         capped)  # fmt: skip
    rows = [v for v in vs if v["statistic"].startswith(key)]
    verdict = {"against": labels[other], "verdicts": rows}
    if any(v["stable"] is None for v in rows):  # an interval that tells nothing
        moved = "could not be told apart (not enough games)"
    else:
        steady = "showed no change (but --max-games bound first)" if capped else "were stable"
        moved = steady if all(v["stable"] for v in rows) else "still moved"
    header = (
        f"the report's players ({who}) are {where}; its seat {what} {moved} between it and "
        f"{labels[other]} "
        f"({counted(lad['rungs'][rung]['games'], 'game')} per run)"
    )
    return _ladder_ctx(lad, rung, verdict, header)


def _ladder_ctx(lad: dict, rung, verdict, header: str) -> dict:
    from mcsim.ladder import ladder_figures

    return {"ladder": lad, "figures": ladder_figures(lad), "rung": rung, "verdict": verdict,
            "header": header}  # fmt: skip


def _stable_words(verdicts: list[dict]) -> str:
    moving = [v["statistic"] for v in verdicts if v["stable"] is False]
    unknown = [v["statistic"] for v in verdicts if v["stable"] is None]
    words = [] if moving or unknown else ["every statistic stable"]
    if moving:
        words.append("still moving: " + ", ".join(moving))
    if unknown:
        words.append("not enough games: " + ", ".join(unknown))
    return "; ".join(words)


def _ladder_tables(lad: dict) -> list[tuple[str, list[str], list[list[str]]]]:
    """The rungs, skill curve and convergence tables; estimate and bounds with the same
    digits, as ``mcsim ladder`` prints them (``mcsim.ladder.statistic_format``)."""
    from mcsim.ladder import VERDICT_FORMAT, _fmt_iv, curve_format, statistic_format

    names = list(lad["rungs"][0]["statistics"])

    def stat(x, n):
        iv = x["statistics"].get(n)
        if iv is None:
            return "n/a"
        return _fmt_iv(iv["estimate"], iv["low"], iv["high"], statistic_format(n))

    rungs = (
        "rungs (self-play on common deals)",
        ["rung", "policy", "games"] + names,
        [
            [str(r), x["policy"], f"{x['games']:,}"] + [stat(x, n) for n in names]
            for r, x in enumerate(lad["rungs"])
        ],
    )
    cf = curve_format(lad)
    curve = (
        "skill curve (each rung against the rung below, seat-rotated on common deals)",
        ["rung", "against", "statistic", "estimate [95% CI]", "equal", "games"],
        [
            [c["rung"], c["against"], c["statistic"], _fmt_iv(c["estimate"], c["low"], c["high"], cf),
             "" if c["equal"] is None else f"{c['equal']:.3f}", f"{c['games']:,}"]
            for c in lad["curve"]
        ],
    )  # fmt: skip
    a, b = lad["top_rungs"]
    verdicts = (
        f"convergence ({b} minus {a}, paired on common deals)",
        ["statistic", "difference [95% CI]", "games", "verdict"],
        [
            [v["statistic"], _fmt_iv(v["difference"], v["low"], v["high"], VERDICT_FORMAT),
             f"{v['games']:,}", v["verdict"]]
            for v in lad["verdicts"]
        ],
    )  # fmt: skip
    return [rungs, curve, verdicts]


def ladder_markdown(lctx: dict) -> list[str]:
    """The ladder section of ``report.md``."""
    parts = ["## Skill ladder", "", lctx["header"] + ".", ""]
    for title, head, rows in _ladder_tables(lctx["ladder"]):
        parts += [f"### {title}", "", _md_table(head, rows), ""]
    for f in lctx["figures"]:
        parts += [f"### {f.title}", "", f"![{f.title}]({f.file})", "", f.caption, ""]
    return parts


def ladder_html(lctx: dict) -> list[str]:
    """The ladder section of ``report.html`` (figures embedded)."""
    parts = ["<h2>Skill ladder</h2>", f"<p>{html.escape(lctx['header'])}.</p>"]
    for title, head, rows in _ladder_tables(lctx["ladder"]):
        parts += [f"<h3>{html.escape(title)}</h3>", _html_table(head, rows, num_from=2)]
    for f in lctx["figures"]:
        data = base64.b64encode(f.png).decode("ascii")
        parts.append(
            f'<figure id="fig-{f.slug}" data-file="{html.escape(f.file)}">'
            f'<img src="data:image/png;base64,{data}" alt="{html.escape(f.title)}">'
            f"<figcaption><b>{html.escape(f.title)}.</b> {html.escape(f.caption)}</figcaption>"
            "</figure>"
        )
    return parts


def report_json(rep: ReportResult) -> str:
    """One JSON object for ``mcsim report --json``: folder, files, figures, skipped charts."""
    return to_json(
        {
            "out": str(rep.out),
            "files": rep.files,
            "figures": [f.file for f in rep.figures],
            "skipped": [{"figure": s, "reason": r} for s, r in rep.skipped],
            "summary": rep.result.summary,
            "comparison": rep.comparison,
        }
    )


__all__ = [
    "build_report",
    "ReportResult",
    "Figure",
    "comparison_rows",
    "headline",
    "render_html",
    "render_markdown",
    "MissingData",
]
