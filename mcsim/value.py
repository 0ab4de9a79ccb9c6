"""Restricted play: what each option (a card, an official, a gift...) is worth.

The method of Jaffe, Miller, Andersen, Liu, Karlin and Popović ("Evaluating Competitive Game
Balance with Restricted Play", AIIDE 2012): the worth of an option is how much a player loses
when it is forbidden that option, everything else equal. ``restricted_play`` measures it for
every option of ``GameSpec.restrictions`` (or the ones asked), under one policy (default the
game's best heuristic, the heuristic rung of ``mcsim ladder``):

- **Lineups.** For each option and each seat *s* in turn, seat *s* plays
  ``policy:forbid=option`` and the other seats ``policy``, on games ``0 .. n-1`` of the seed:
  game *i* is the same deal in every lineup (common random numbers), and the opponents'
  decisions differ from the unrestricted game's only through the restricted seat's moves.
  The unrestricted lineup (``policy`` in every seat) is played once on the same deals: the
  baseline.
- **Value** (one row per option): per deal *d*, ``x_d = mean_s win_share_s(seat s
  restricted, d) - 1/P`` (P seats). The baseline's win shares sum to 1 on every deal (a tie
  of k seats gives each 1/k), so the unrestricted mean over the seats is exactly 1/P and the
  baseline need not be subtracted deal by deal; ``x_d`` is still a paired difference (every
  seat's restricted game against the same deal's unrestricted share), and when the option
  never matters on a deal every lineup plays the baseline's game there and ``x_d`` is 0
  exactly. The row's value is the mean of ``x_d`` over the deals with the Student-t 95%
  interval of those per-deal values (``mcsim.stats.paired_difference``, clipped to [-1, 1],
  the range of a difference of shares). A one-seat game (Don Quixote) has no winner: its value
  is the mean over the deals of the restricted score minus the baseline's score on the same
  deal (points, t 95%).
- **Beside the value**: the points difference (per deal, the mean over seats of the restricted
  seat's score minus that seat's baseline score; t 95%), the share of restricted seat-games in
  which the option never came up (``forbid_avoided_<s> + forbid_forced_<s> == 0``: the seat
  never had the forbidden option among its legal choices), forced decisions per game (the
  rules left only forbidden options: ``forbid_forced_<s>``), avoided decisions per game, and
  ``significant`` (the 95% interval excludes 0). ``ValueResult.seats`` holds the same per seat.
- **Precision.** With ``precision=H`` every option's lineups play chunk by chunk
  (``mcsim.precision.play_study``; a calibration line first) until the row's interval is at
  most ±H, each option stopping on its own, at most ``max_games`` deals; the stop looks only at
  whole chunks in game-index order, so it is the same for any worker count and backend. The
  stop rule also never takes a half-width below ``3 w / n`` (n deals, w = 1 - 1/P the largest
  ``|x_d|``): when no deal of n has shown a difference, the share of deals where the option
  matters is below 3/n at 95% (the rule of three) and each moves the value by at most w, so an
  option that came up on none of the first 32 deals does not stop there with the empty
  interval [0, 0]. The baseline then plays as many deals as the longest row. A one-seat game
  stops every row together (one group, as ``mcsim ladder``'s solo curve).
"""

from __future__ import annotations

import math
import re
import resource
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from mcsim import stats
from mcsim.errors import ConfigError, UnknownPolicyError
from mcsim.games import get_game
from mcsim.games.base import PolicyChoice, parse_policy
from mcsim.precision import DEFAULT_MAX_GAMES, Group, Run, check_precision, half_width, play_study
from mcsim.text import counted

#: the statistic of a row: a seat's win share (several seats) or points (one seat)
WIN_SHARE = "win share"
POINTS = "points"
#: the group of a combined restriction (``a+b``) whose options are in different groups
COMBINED = "combined"
#: the columns of ``ValueResult.table``, in order
TABLE_COLUMNS = (
    "option", "group", "value", "low", "high", "significant", "deals", "games",
    "points_diff", "points_low", "points_high", "never_came_up", "forced_per_game",
    "avoided_per_game", "cap_reached",
)  # fmt: skip
#: the columns of ``ValueResult.seats``, in order
SEAT_COLUMNS = (
    "option", "group", "seat", "deals", "restricted", "baseline", "difference", "low", "high",
    "points_diff", "never_came_up", "forced_per_game",
)  # fmt: skip
#: the figure of the value table (``value_figure``)
FIGURE_SLUG = "restricted_play_value"


@dataclass
class ValueResult:
    """What ``restricted_play`` returns.

    ``table``: one row per option (``TABLE_COLUMNS``): ``option`` (names joined by ``+``),
    ``group``, ``value`` with its 95% interval ``low``/``high`` (win share, or points in a
    one-seat game; ``statistic`` in ``meta``), ``significant`` (the interval excludes 0),
    ``deals`` (common deals), ``games`` (restricted games: deals x seats), ``points_diff`` with
    ``points_low``/``points_high``, ``never_came_up`` (share of restricted seat-games),
    ``forced_per_game`` and ``avoided_per_game`` (decisions per restricted seat-game),
    ``cap_reached`` (``max_games`` bound the row before ``precision``). Rows are in the order
    of ``GameSpec.restrictions`` (a combined option after the singles, at its first name).
    ``seats``: one row per option and restricted seat (``SEAT_COLUMNS``): the restricted seat's
    mean win share (points solo), the baseline seat's on the same deals, their paired
    difference with a t 95% interval, points difference, never came up, forced per game.
    ``meta``: the run (game, seed, players, variant, policy, precision, games played, CPU
    seconds, ...; ``to_json_dict``). ``results``: the ``SimulationResult`` of the baseline
    (``"baseline"``) and of every lineup (``"options"``: per row, per seat).
    """

    table: pd.DataFrame
    seats: pd.DataFrame
    meta: dict
    results: dict = field(default_factory=dict, repr=False)

    def to_json_dict(self) -> dict:
        """The result as JSON-ready data: ``meta`` plus ``rows`` and ``seats`` (lists of
        records); NaN stays NaN here (``mcsim.runner.to_json`` writes it as null)."""
        return {
            **self.meta,
            "rows": _records(self.table),
            "seats": _records(self.seats),
        }


def _records(df: pd.DataFrame) -> list[dict]:
    out = []
    for rec in df.to_dict("records"):
        out.append({k: (v.item() if isinstance(v, np.generic) else v) for k, v in rec.items()})
    return out


def default_policy(game: str) -> str:
    """The policy ``restricted_play`` uses by default: the game's best heuristic, the same
    choice as ``mcsim ladder``'s heuristic rung (``mcsim.ladder.default_rungs``)."""
    from mcsim.ladder import default_rungs

    rungs = default_rungs(game)
    heur = [r for r in rungs[1:2] if not r.startswith("mcts")]
    return heur[0] if heur else rungs[0]


def _options_flag() -> str:
    from mcsim.values import on_cli

    return "--options" if on_cli() else "options="


def parse_options(spec, options=None) -> list[tuple[str, ...]]:
    """The rows asked for: a list of option-name tuples (one row each; ``a+b`` is one row that
    forbids both), default every option of ``spec.restrictions`` in order. ``options`` is None,
    a string (rows separated by ``,``) or a list of such strings. Names are lower-cased.

    Raises ``ConfigError`` (a game without restrictions, an empty list or name, a row given
    twice) and ``UnknownPolicyError`` (an unknown name; a row that forbids every option of an
    exhaustive group or of the game, ``GameSpec.forbid_params``)."""
    flag = _options_flag()
    if not spec.restrictions:
        raise ConfigError(
            f"{spec.id} has no options restricted play can forbid "
            "(mcsim games lists each game's restrictions)"
        )
    if options is None:
        return [(r.name,) for r in spec.restrictions]
    if isinstance(options, str):
        options = [options]
    try:
        items = [str(o) for o in options]
    except TypeError:
        raise ConfigError(
            f"{flag} must be option names (a list of strings), not {options!r:.60}"
        ) from None
    rows: list[tuple[str, ...]] = []
    names = [r.name for r in spec.restrictions]
    for item in items:
        for part in item.split(","):
            row = tuple(n.strip().lower() for n in part.split("+"))
            if not part.strip() or not all(row):
                raise ConfigError(
                    f"{flag} {item!r}: an empty option name; give names joined by + and "
                    "separated by , (mcsim games lists them)"
                )
            for n in row:
                if n not in names:
                    raise UnknownPolicyError(
                        f"{flag} {n!r}: {spec.id} has no such option; choose from: "
                        + ", ".join(names)
                    )
            spec.forbid_params(row)  # a name twice, a whole exhaustive group, every option
            key = tuple(sorted(row, key=names.index))
            if any(tuple(sorted(r, key=names.index)) == key for r in rows):
                raise ConfigError(f"{flag}: option {'+'.join(row)!r} is given twice")
            rows.append(row)
    if not rows:
        raise ConfigError(f"{flag} is empty; give at least one option (mcsim games lists them)")
    return rows


def _row_order(spec, rows: list[tuple[str, ...]]) -> list[int]:
    """Indices of ``rows`` in table order: by group (in the order groups first appear in
    ``spec.restrictions``, combined groups last), then the first name's place, singles first."""
    names = [r.name for r in spec.restrictions]
    groups = list(dict.fromkeys(r.group for r in spec.restrictions))

    def key(i):
        row = rows[i]
        g = _group(spec, row)
        return (groups.index(g) if g in groups else len(groups), min(map(names.index, row)),
                len(row), i)  # fmt: skip

    return sorted(range(len(rows)), key=key)


def _group(spec, row: tuple[str, ...]) -> str:
    gs = {spec.restriction(n).group for n in row}
    return gs.pop() if len(gs) == 1 else COMBINED


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", text)


def _cpu_seconds() -> float:
    """CPU seconds of this process and its finished (waited-for) worker processes."""
    a = resource.getrusage(resource.RUSAGE_SELF)
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def restricted_play(
    game: str,
    options=None,
    policy: str | None = None,
    *,
    games: int = 1000,
    seed: int = 0,
    players: int | None = None,
    variant: dict | None = None,
    game_options: dict | None = None,
    precision: float | None = None,
    max_games: int | None = None,
    workers: int | None = 1,
    backend: str | None = None,
    scheduler: str | None = None,
    out_dir: str | Path | None = None,
    resume: bool = False,
    force: bool = False,
    progress: bool = False,
    echo=None,
) -> ValueResult:
    """Measure every option's worth by restricted play (see the module docstring).

    Parameters
    ----------
    game : str
        Game id; it must have restrictions (``GameSpec.restrictions``, ``mcsim games``).
    options : str or list of str, optional
        The rows: option names, ``a+b`` for one row forbidding both; default every option.
    policy : str, optional
        The policy of every seat (default ``default_policy(game)``); any policy string of the
        game without ``forbid=`` (restricted play sets it seat by seat itself).
    games : int
        Deals (common to every lineup) without ``precision``.
    seed, players, variant, game_options :
        As ``mcsim.simulate``'s ``seed``, ``players``, ``variant`` and ``options``.
    precision, max_games :
        Play until every row's 95% interval is within ±``precision`` (win share; points for a
        one-seat game), at most ``max_games`` deals per lineup (default
        ``mcsim.precision.DEFAULT_MAX_GAMES``); ``echo`` gets the calibration line first.
    workers, backend, scheduler, progress :
        As ``mcsim.simulate`` (results do not depend on them); ``progress``: bars on stderr.
    out_dir, resume, force :
        A folder for one ``simulate --out DIR`` dataset per lineup (``baseline/``,
        ``option-<i>-<option>-seat<s>/``), ``value.json``, ``value.parquet``, ``value.csv``,
        ``seats.parquet`` and ``restricted_play_value.png`` (docs/outputs.md); ``resume``
        continues an interrupted run there, ``force`` replaces an earlier one once the new one
        is whole (``mcsim.outputs.check_run_folder``, as ``mcsim ladder``).

    Returns
    -------
    ValueResult

    Raises
    ------
    ConfigError, UnknownPolicyError, UnknownVariantError, OutputError
        Before any game: a game without restrictions, an unknown option, a policy that is not
        the game's or carries ``forbid=``, a bad precision, cap, seed or game count, a
        refused output folder.
    """
    from mcsim.runner import check_limits, resolve_config, resolve_execution

    module = get_game(game)
    spec = module.SPEC
    rows = parse_options(spec, options)
    policy = default_policy(game) if policy is None else policy
    if not isinstance(policy, str) or not policy.strip():
        raise ConfigError(f"policy must be a policy string such as 'random', not {policy!r:.60}")
    base_choice = parse_policy(policy, spec)
    if base_choice.forbid:
        raise ConfigError(
            f"policy {policy!r} forbids options itself; restricted play forbids them seat by "
            f"seat: give the policy without forbid= and the options with {_options_flag()}"
        )
    base = base_choice.label()
    _, cfg = resolve_config(game, players, [base], variant, game_options)
    npl = cfg.players
    solo = npl == 1
    labels = [PolicyChoice(base_choice.name, base_choice.params, base_choice.written, r).label()
              for r in rows]  # fmt: skip
    left_out: list[dict] = []  # default rows the run's configuration refuses
    kept = []
    for row, lab in zip(rows, labels):  # every restricted policy checked before any game
        try:
            resolve_config(game, npl, [lab] + [base] * (npl - 1), variant, game_options)
        except (ConfigError, UnknownPolicyError) as e:
            if options is not None or len(left_out) + 1 == len(rows):
                raise  # an option asked for, or none left: the game's own one-line error
            left_out.append({"option": "+".join(row), "reason": str(e)})
            continue
        kept.append((row, lab))
    rows, labels = [r for r, _ in kept], [lab for _, lab in kept]
    if max_games is None:
        max_games = DEFAULT_MAX_GAMES if precision is not None else games
    check_precision(precision, max_games, win_rates=not solo)
    check_limits(max_games, seed, "--games" if precision is None else "--max-games")
    resolve_execution(workers, backend, scheduler, resume, out_dir)  # before the folder exists
    from mcsim.outputs import VALUE_FOLDER, open_study_folder

    # the one check of every command's output folder, as ladder's
    folder, replacing = open_study_folder(out_dir, VALUE_FOLDER, resume, force)

    def sub(name):
        return None if folder is None else folder / name

    cpu0, t0 = _cpu_seconds(), time.perf_counter()
    runs: list[Run] = []
    ids: list[list[int]] = []  # per row: its lineups' run indices, seat order
    if solo:
        runs.append(Run([base], variant, sub("baseline")))
    for i, (row, lab) in enumerate(zip(rows, labels)):
        ids.append([])
        for s in range(npl):
            lineup = [base] * npl
            lineup[s] = lab
            ids[-1].append(len(runs))
            runs.append(Run(lineup, variant, sub(f"option-{i}-{_slug('+'.join(row))}-seat{s}")))
    if solo:
        groups = [Group("every option", list(range(len(runs))), _solo_stop(rows))]
    else:
        groups = [
            Group(f"option {'+'.join(row)}", ids[i], _share_stop(npl)) for i, row in enumerate(rows)
        ]
    say = echo
    if echo is not None and not solo:

        def say(line):
            echo(line + "; then the unrestricted baseline on as many deals as the longest row")

    study_kw = dict(
        seed=seed, players=npl, options=game_options, workers=workers, backend=backend,
        scheduler=scheduler, resume=resume, progress=progress,
    )  # fmt: skip
    try:
        study = play_study(
            game, runs, groups, precision=precision, max_games=max_games, echo=say, **study_kw
        )
        stops = [g["games"] for g in study.groups]
        if solo:
            baseline = study.results[0]
        else:
            from mcsim.runner import MANIFEST_NAME

            base_dir = sub("baseline")
            # a run interrupted before its baseline started has no baseline folder to resume
            base_kw = dict(
                study_kw,
                resume=resume and base_dir is not None and (base_dir / MANIFEST_NAME).exists(),
            )
            b = play_study(
                game,
                [Run([base] * npl, variant, base_dir)],
                [Group("baseline", [0], _share_stop(npl))],
                precision=None,
                max_games=max(stops),
                **base_kw,
            )
            baseline = b.results[0]
        elapsed = time.perf_counter() - t0
        cpu = _cpu_seconds() - cpu0
        res = _assemble(
            module, cfg, rows, labels, base, ids, study, baseline, stops, solo,
            dict(seed=seed, precision=precision, max_games=max_games, elapsed=elapsed, cpu=cpu,
                 left_out=left_out),
        )  # fmt: skip
        if folder is not None:
            write_value_folder(res, folder)
        if replacing is not None:  # the earlier run gives way only now that this one is whole
            replacing.commit()
    finally:
        if replacing is not None:
            replacing.abort()
    return res


def _share_stop(npl: int):
    """The stop statistic of one row (its ``npl`` lineups, seat s restricted in lineup s): the
    per-deal value's t 95% interval, its half-width at least ``3 w / n`` (module docstring)."""
    w = 1.0 - 1.0 / npl

    def stat(frames):
        n = min(len(f) for f in frames)
        d = _share_value(frames, n)
        half = max(half_width(d), 3.0 * w / n) if n else math.inf
        return {"value": {"estimate": d["mean"], "low": d["mean"] - half, "high": d["mean"] + half}}

    return stat


def _solo_stop(rows):
    """The stop statistic of a one-seat game (frame 0 the baseline, frame 1 + i row i): every
    row's paired point difference, t 95%."""

    def stat(frames):
        n = min(len(f) for f in frames)
        b = frames[0]["score_0"].to_numpy(float)[:n]
        out = {}
        for i, row in enumerate(rows):
            d = stats.paired_difference(frames[1 + i]["score_0"].to_numpy(float)[:n], b)
            out["+".join(row)] = {"estimate": d["mean"], "low": d["low"], "high": d["high"]}
        return out

    return stat


def _share_value(frames, n: int) -> dict:
    """``paired_difference`` of the per-deal mean over seats of the restricted seat's win share
    (lineup s restricts seat s) against 1/P, over the first ``n`` deals."""
    npl = len(frames)
    share = np.mean([f[f"win_share_{s}"].to_numpy(float)[:n] for s, f in enumerate(frames)], 0)
    return stats.paired_difference(share, np.full(n, 1.0 / npl), (0.0, 1.0))


def _col(df: pd.DataFrame, name: str, n: int) -> np.ndarray:
    """Column ``name`` of the first ``n`` games as float64 (NaN when the table lacks it)."""
    if name not in df.columns:
        return np.full(n, math.nan)
    return df[name].to_numpy(float)[:n]


def _came_up(frames, n: int):
    """Per restricted seat-game: (avoided, forced) decision counts, float64[P, n] each."""
    a = np.array([_col(f, f"forbid_avoided_{s}", n) for s, f in enumerate(frames)])
    b = np.array([_col(f, f"forbid_forced_{s}", n) for s, f in enumerate(frames)])
    return a, b


def _assemble(
    module, cfg, rows, labels, base, ids, study, baseline, stops, solo, run
) -> ValueResult:
    spec = module.SPEC
    npl = cfg.players
    bg = baseline.games
    bounds = spec.score_bounds
    table, seats = [], []
    notices = list(dict.fromkeys(study.notices + list(baseline.prepared.notices)))
    if not solo:
        total = bg[[f"win_share_{s}" for s in range(npl)]].to_numpy(float).sum(axis=1)
        if not np.allclose(total, 1.0, atol=1e-9):
            notices.append(
                "the unrestricted games' win shares do not sum to 1 on every deal, so 1/players "
                "is not their mean: the values are against 1/players, not the baseline"
            )
    for i in _row_order(spec, rows):
        row = rows[i]
        n = stops[0] if solo else stops[i]
        frames = [study.results[j].games for j in ids[i]]
        group = _group(spec, row)
        avoided, forced = _came_up(frames, n)
        never = float(np.mean((avoided + forced) == 0)) if n else math.nan
        if np.isnan(avoided).any():
            never = math.nan
        rs = np.mean([_col(f, f"score_{s}", n) for s, f in enumerate(frames)], 0)
        bs = np.mean([_col(bg, f"score_{s}", n) for s in range(npl)], 0)
        pts = stats.paired_difference(rs, bs, bounds)
        val = pts if solo else _share_value(frames, n)
        stop = study.groups[0 if solo else i]
        table.append(
            {
                "option": "+".join(row),
                "group": group,
                "value": val["mean"],
                "low": val["low"],
                "high": val["high"],
                "significant": bool(val["low"] > 0 or val["high"] < 0),
                "deals": int(n),
                "games": int(n * npl),
                "points_diff": pts["mean"],
                "points_low": pts["low"],
                "points_high": pts["high"],
                "never_came_up": never,
                "forced_per_game": float(np.mean(forced)) if n else math.nan,
                "avoided_per_game": float(np.mean(avoided)) if n else math.nan,
                "cap_reached": bool(stop["cap_reached"]),
            }
        )
        for s, f in enumerate(frames):
            key = "score" if solo else "win_share"
            r_s, b_s = _col(f, f"{key}_{s}", n), _col(bg, f"{key}_{s}", n)
            d = stats.paired_difference(r_s, b_s, bounds if solo else (0.0, 1.0))
            seats.append(
                {
                    "option": "+".join(row),
                    "group": group,
                    "seat": s,
                    "deals": int(n),
                    "restricted": float(r_s.mean()) if n else math.nan,
                    "baseline": float(b_s.mean()) if n else math.nan,
                    "difference": d["mean"],
                    "low": d["low"],
                    "high": d["high"],
                    "points_diff": float(
                        (_col(f, f"score_{s}", n) - _col(bg, f"score_{s}", n)).mean()
                    )
                    if n
                    else math.nan,
                    "never_came_up": float(np.mean((avoided[s] + forced[s]) == 0))
                    if n and not np.isnan(avoided[s]).any()
                    else math.nan,
                    "forced_per_game": float(forced[s].mean()) if n else math.nan,
                }
            )
    played = sum(int(r.summary["games"]) for r in study.results)
    if not solo:
        played += int(baseline.summary["games"])
    meta = {
        "game": spec.id,
        "long_name": spec.long_name,
        "title": spec.title(dict(cfg.variant)),
        "seed": run["seed"],
        "players": npl,
        "variant": dict(cfg.variant),
        "game_options": dict(cfg.options),
        "policy": base,
        "restricted_policies": [labels[i] for i in _row_order(spec, rows)],
        "statistic": POINTS if solo else WIN_SHARE,
        "equal": None if solo else 1.0 / npl,
        "precision": run["precision"],
        "max_games": run["max_games"],
        "calibration": study.calibration,
        "stops": study.groups,
        "baseline": baseline.summary,
        "games_played": played,
        "elapsed_seconds": run["elapsed"],
        "cpu_seconds": run["cpu"],
        "left_out": run["left_out"],
        "notices": notices,
    }
    if run["left_out"]:
        out = run["left_out"]
        notices.append(
            f"left out {len(out)} of the default options the run's rules refuse "
            f"({', '.join(x['option'] for x in out)}): {out[0]['reason']}"
        )
    results = {
        "baseline": baseline,
        "options": {
            "+".join(row): [study.results[j] for j in ids[i]] for i, row in enumerate(rows)
        },
    }
    return ValueResult(
        pd.DataFrame(table, columns=list(TABLE_COLUMNS)),
        pd.DataFrame(seats, columns=list(SEAT_COLUMNS)),
        meta,
        results,
    )


# ---------------------------------------------------------------- text, files, figure


def fmt_interval(e, lo, hi, fmt: str) -> str:
    """``"e [lo, hi]"`` with the format ``fmt`` (``stats.interval_text``); ``n/a`` when ``e``
    is None or NaN (a row of no deals, NaN written as null in JSON)."""
    if e is None or e != e:
        return "n/a"
    return f"{format(e, fmt)} {stats.interval_text({'low': lo, 'high': hi}, fmt)}"


def fmt_share(x) -> str:
    """A share as a percentage with one decimal (``66.0%``), ``n/a`` for None or NaN."""
    return "n/a" if x is None or x != x else f"{100 * x:.1f}%"


def fmt_number(x, fmt: str) -> str:
    """``x`` formatted with ``fmt``, ``n/a`` for None or NaN."""
    return "n/a" if x is None or x != x else format(x, fmt)


def format_value(res: ValueResult | dict) -> str:
    """Readable text of a restricted-play result (``ValueResult`` or its ``to_json_dict``):
    the run, what a value means, the rows by group in table order (``*``: the interval excludes
    0), then games played and CPU time."""
    d = res.to_json_dict() if isinstance(res, ValueResult) else res
    solo = d["statistic"] == POINTS
    shown = get_game(d["game"]).SPEC.shown_variant(d["variant"])  # as simulate shows it
    var = " ".join(f"{k}={v}" for k, v in shown.items()) or "-"
    n = sorted({r["deals"] for r in d["rows"]})
    deals = counted(n[0], "deal") if len(n) == 1 else f"{n[0]:,}-{n[-1]:,} deals"
    prec = (
        f", precision ±{d['precision']:g} (cap {counted(d['max_games'], 'deal')})"
        if d["precision"]
        else ""
    )
    lines = [
        f"{d['title']} restricted play: policy {d['policy']}, seed {d['seed']}, "
        f"{counted(d['players'], 'player')}, variant {var}, {deals}{prec}",
        (
            "value = mean points of the restricted game minus the unrestricted game on the same "
            "deal"
            if solo
            else f"value = the restricted seat's win share minus 1/{d['players']} (the "
            "unrestricted share), each seat restricted in turn on common deals"
        )
        + "; 95% t interval of the per-deal differences; * = the interval excludes 0",
        "",
    ]
    vfmt = "+.2f" if solo else "+.4f"
    head = "value, points" if solo else "value, win share"
    width = max([24] + [len(r["option"]) + 4 for r in d["rows"]])
    pts_head = "" if solo else f" {'points [95% CI]':<24}"  # solo: the value is in points
    lines.append(
        f"{'option':<{width}} {head + ' [95% CI]':<30}{pts_head} "
        f"{'never came up':>13} {'forced/game':>11} {'deals':>8}"
    )
    group = None
    for r in d["rows"]:
        if r["group"] != group:
            group = r["group"]
            lines.append(f"{group}:")
        mark = "*" if r["significant"] else " "
        cap = "  [--max-games reached]" if r["cap_reached"] and d["precision"] else ""
        forced = fmt_number(r["forced_per_game"], ".3f")
        pts = fmt_interval(r["points_diff"], r["points_low"], r["points_high"], "+.2f")
        lines.append(
            f"{mark} {r['option']:<{width - 2}} "
            f"{fmt_interval(r['value'], r['low'], r['high'], vfmt):<30}"
            + ("" if solo else f" {pts:<24}")
            + f" {fmt_share(r['never_came_up']):>13} {forced:>11} {r['deals']:>8,}{cap}"
        )
    sig = sum(1 for r in d["rows"] if r["significant"])
    lines += [
        "",
        f"{sig} of {counted(len(d['rows']), 'option')} significant (about "
        f"{0.05 * len(d['rows']):.2g} by chance alone at 95%, had no option any worth); "
        f"{counted(d['games_played'], 'game')} played; CPU {d['cpu_seconds']:.2f} s "
        f"(wall {d['elapsed_seconds']:.2f} s)",
    ]
    return "\n".join(lines)


class _FigCtx:
    def __init__(self, d: dict):
        self.d = d

    def footer(self, games_note=None):
        d = self.d
        n = sorted({r["deals"] for r in d["rows"]})
        deals = counted(n[0], "deal") if len(n) == 1 else f"{n[0]:,}-{n[-1]:,} deals"
        return (
            f"{d['title']}, {counted(d['players'], 'player')} ({d['policy']}); "
            f"{deals} per lineup; seed {d['seed']}"
        )


def value_figure(res: ValueResult | dict):
    """The forest plot of the value table: one row per option (y, table order top down),
    value with its 95% interval (x), a zero line; significant rows in a second colour.
    Returns a ``mcsim.charts.Figure`` (slug ``FIGURE_SLUG``)."""
    from mcsim import charts

    d = res.to_json_dict() if isinstance(res, ValueResult) else res
    rows = d["rows"]
    solo = d["statistic"] == POINTS
    fig, (ax,) = charts.figure(9.0, 1.6 + 0.28 * max(1, len(rows)))
    y = np.arange(len(rows))[::-1]
    m = np.array([r["value"] for r in rows], float)
    lo = np.array([np.nan if r["low"] is None else r["low"] for r in rows], float)
    hi = np.array([np.nan if r["high"] is None else r["high"] for r in rows], float)
    e = charts.err(m, lo, hi)
    for k, r in enumerate(rows):
        c = charts.COLORS[3] if r["significant"] else charts.COLORS[0]
        ax.errorbar(m[k], y[k], xerr=e[:, k : k + 1], fmt="o", color=c, capsize=3)
    ax.axvline(0.0, color="gray", linewidth=1)
    several = len({r["group"] for r in rows}) > 1
    ax.set_yticks(
        y, [f"{r['group']}: {r['option']}" if several else r["option"] for r in rows], fontsize=7
    )
    ax.set_xlabel(
        "points: restricted minus unrestricted game on the same deal"
        if solo
        else f"restricted seat's win share minus 1/{d['players']} (share of games)"
    )
    ax.set_ylabel("option forbidden")
    ax.grid(True, axis="x", alpha=0.3)
    return charts.done(
        fig,
        _FigCtx(d),
        FIGURE_SLUG,
        "Restricted play: what each option is worth",
        (
            "Each option forbidden to the player"
            if solo
            else "Each option forbidden to one seat in turn (the others unrestricted)"
        )
        + " on common deals; value with its Student-t 95% interval of the per-deal paired "
        "differences; red: the interval excludes 0. A negative value: the player loses by "
        "going without the option.",
    )


def write_value_folder(res: ValueResult, out_dir: str | Path) -> list[str]:
    """Write ``value.json`` (``to_json_dict``), ``value.parquet``, ``value.csv``,
    ``seats.parquet`` and ``restricted_play_value.png`` into ``out_dir`` (the lineups' datasets
    are already there), each atomically. Returns the file names written."""
    from mcsim.runner import to_json, write_atomic

    out = Path(out_dir)
    text = to_json(res.to_json_dict(), indent=1)
    write_atomic(out / "value.json", lambda tmp: Path(tmp).write_text(text + "\n"))
    write_atomic(out / "value.parquet", lambda tmp: res.table.to_parquet(tmp, index=False))
    write_atomic(out / "value.csv", lambda tmp: res.table.to_csv(tmp, index=False))
    write_atomic(out / "seats.parquet", lambda tmp: res.seats.to_parquet(tmp, index=False))
    fig = value_figure(res)
    write_atomic(out / fig.file, lambda tmp: Path(tmp).write_bytes(fig.png))
    return ["value.json", "value.parquet", "value.csv", "seats.parquet", fig.file]


def read_value_folder(path: str | Path) -> dict:
    """The ``value.json`` of a ``mcsim value --out DIR`` folder (``ValueResult.to_json_dict``
    as written; NaN read back as None). Raises ``MissingFileError`` naming ``--value`` when the
    folder or its ``value.json`` is missing (an unfinished run), ``InputFileError`` when the
    file cannot be read or is not a restricted-play result."""
    from mcsim.errors import InputFileError, MissingFileError
    from mcsim.files import read_json

    p = Path(path)
    if not p.is_dir():
        raise MissingFileError(
            f"--value {path}: no such folder (give the folder of `mcsim value GAME --out DIR`)"
        )
    if not (p / "value.json").exists():
        raise MissingFileError(
            f"--value {path}: no value.json there (an unfinished or another kind of run; "
            "`mcsim value GAME --out DIR` writes it when it has finished)"
        )
    d = read_json(p / "value.json", "restricted-play result")
    keys = ("game", "players", "variant", "statistic", "rows", "policy", "seed")
    if not isinstance(d, dict) or any(k not in d for k in keys) or not isinstance(d["rows"], list):
        raise InputFileError(f"{p / 'value.json'}: not a restricted-play result (mcsim value)")
    return d
