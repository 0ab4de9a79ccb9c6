"""Skill ladders: does a balance statistic still move when the players get better?

Rungs, weakest first (default: ``random``, the game's best heuristic, then ``mcts`` at B/4, B
and 4B iterations, B the default ``iterations`` of the game's ``mcts`` policy spec). Every rung
plays **self-play** (every seat the rung's policy) on the same deals: game *i* of every rung is
game *i* of the seed (common random numbers). The **skill curve** plays each rung against the
rung below, the new rung in each seat in turn and the lower rung in the others, on the same
deals; its point is the new rung's win share per deal averaged over those seatings, with the
Wilson 95% interval on the effective number of games those per-deal shares are worth
(``stats.seated_share``; a one-seat game: the paired point gain of
the new rung over the lower one on the same deals, Student-t 95%). The **convergence verdict** of each headline statistic is the
difference between the top two rungs' self-play, paired on their common deals, with its 95%
interval: "stable between the top two rungs at this precision" (without ``precision``: "at
this number of games"; when ``--max-games`` stopped either top rung before the precision: "no
change shown ... but --max-games bound before this precision") when the interval holds 0, "still
moving: the conclusion depends on the players" when it does not, and "not enough games" when it
is undefined or covers every difference the statistic can take.

The games are played by ``mcsim.precision.play_study``: a fixed number of games per run, or
(``precision``) chunk by chunk until every rung's seat win rates (one seat: mean score) and
every curve point are within ±precision; each rung and each curve point stops on its own.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from mcsim import stats
from mcsim.errors import ConfigError
from mcsim.games import get_game
from mcsim.games.base import parse_policy, refuse_one_player_twice
from mcsim.precision import Group, Run, check_precision, play_study, rotation_share, seat_win_rates
from mcsim.text import counted

STABLE = "stable between the top two rungs at this precision"
#: the stable verdict of a ladder of a fixed number of games (no ``precision``)
STABLE_AT_GAMES = "stable between the top two rungs at this number of games"
#: the verdict in place of ``STABLE`` when ``--max-games`` stopped one of the two rungs before
#: the precision asked: the interval holds 0 but is wider than asked, so stability is not shown
STABLE_AT_CAP = (
    "no change shown between the top two rungs, but --max-games bound before this precision"
)
MOVING = "still moving: the conclusion depends on the players"
#: the verdict when the difference's interval is undefined or covers every difference the
#: statistic can take (``stats.tells_nothing``): neither stable nor moving can be read from it
UNDECIDED = (
    "not enough games: fewer than 32 common games, or an interval that covers every possible "
    "difference"
)
#: fewer common games than this give no verdict (the smallest stop of ``--precision``): a t
#: interval of a handful of games says nothing either way, even when it holds 0
MIN_VERDICT_GAMES = 32

#: per game, per-game columns beyond the common ones that are the game's headline figures:
#: {label: (columns summed per game, scale)} (the figures ``simulate`` prints in the game's
#: own block, see each game's ``format_summary``)
GAME_FIGURES: dict[str, dict[str, tuple[tuple[str, ...], float]]] = {
    "sacred-hill": {
        "decided by kingdoms (share)": (("decided_by_kingdoms",), 1.0),
        "captures per game": (("captures_0", "captures_1"), 1.0),
    },
    "carcassonne": {"unplaceable tiles per game": (("unplaceable",), 1.0)},
    "thurn-and-taxis": {"rounds per game": (("rounds",), 1.0)},
    "el-grande": {"vetoed action cards per game": (("vetoes_all",), 1.0)},
}


def default_rungs(game: str) -> list[str]:
    """The default rungs of ``game``, weakest first: ``random``, the best heuristic (the last
    policy listed before ``mcts`` that is not ``random`` or the hindsight ``oracle``; the
    searches are listed from ``mcts`` on), then ``mcts`` at a quarter, one and four times its
    default ``iterations`` (read from the policy spec)."""
    spec = get_game(game).SPEC
    names = [p.name for p in spec.policies]
    before = names[: names.index("mcts")] if "mcts" in names else names
    heur = [n for n in before if n not in ("random", "oracle")]
    rungs = ["random"] + heur[-1:]
    if "mcts" in names:
        b = int(next(q.default for q in spec.policy("mcts").params if q.name == "iterations"))
        rungs += [f"mcts:iterations={max(1, b // 4)}", "mcts", f"mcts:iterations={4 * b}"]
    return rungs


def check_rungs(game: str, rungs, players=None, variant=None, options=None) -> list[str]:
    """The rung labels (``name:k=v`` as ``PolicyChoice.label``), checked before any game:
    at least two, all different, each a policy of the game with valid parameters. Raises
    ``ConfigError`` / ``UnknownPolicyError``."""
    from mcsim.runner import resolve_config

    rungs = [str(r).strip() for r in rungs]
    if not rungs or any(not r for r in rungs):
        raise ConfigError("the rung list is empty; give at least two policies (-p A -p B)")
    if len(rungs) < 2:
        raise ConfigError(f"a ladder needs at least two rungs, not only {rungs[0]!r}")
    labels = [parse_policy(r, get_game(game).SPEC).label() for r in rungs]
    for i, lab in enumerate(labels):
        if lab in labels[:i]:
            raise ConfigError(f"rung {lab!r} is given twice")
    for r in rungs:
        resolve_config(game, players, [r], variant, options)
    refuse_one_player_twice(rungs, get_game(game).SPEC, "rungs ")
    return labels


def _slug(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", label).replace(":", "_")


def ladder(
    game: str,
    rungs=None,
    *,
    games: int = 1000,
    precision: float | None = None,
    max_games: int | None = None,
    seed: int = 0,
    players: int | None = None,
    variant: dict | None = None,
    options: dict | None = None,
    workers: int | None = 1,
    backend: str | None = None,
    scheduler: str | None = None,
    out_dir: str | Path | None = None,
    resume: bool = False,
    force: bool = False,
    progress: bool = False,
    echo=None,
) -> dict:
    """Play a skill ladder and return it as a JSON-ready dict.

    Parameters
    ----------
    rungs : list of str, optional
        Policy strings, weakest first (default ``default_rungs(game)``).
    games : int
        Games per run without ``precision``.
    precision, max_games :
        With ``precision`` (half-width of the 95% intervals; points for a one-seat game), play
        until every rung's and every curve point's interval is within it, at most
        ``max_games`` (default ``mcsim.precision.DEFAULT_MAX_GAMES``) games per run.
    out_dir : path, optional
        Per run a ``simulate --out DIR`` dataset (``rung-<r>-<policy>/``, ``curve-<r>-seat<s>/``);
        ``resume`` continues an interrupted ladder there; ``force`` replaces an earlier
        ladder there, once the new one's runs are whole (a folder holding other files is
        refused, as ``simulate``'s; ``mcsim.outputs.check_run_folder``).

    Returns ``{"game", "seed", "players", "variant", "rungs": [...], "curve": [...],
    "verdicts": [...], "precision", ...}``; each rung holds its summary (as ``simulate``),
    seat effect, game figures and stop; each curve point its statistic with a 95% interval and
    stop; each verdict the top-two difference with its interval and sentence. The ``results``
    key holds the ``SimulationResult`` of every self-play rung (not JSON; dropped by
    ``to_json_dict``).

    Raises ``ConfigError``, ``UnknownPolicyError``, ``UnknownVariantError``, ``OutputError``
    (``out_dir``) before any game.
    """
    from mcsim.precision import DEFAULT_MAX_GAMES
    from mcsim.runner import resolve_config

    if rungs is None:
        rungs = default_rungs(game)
    labels = check_rungs(game, rungs, players, variant, options)
    module, cfg = resolve_config(game, players, [labels[0]], variant, options)
    npl = cfg.players
    solo = npl == 1
    if max_games is None:
        max_games = DEFAULT_MAX_GAMES if precision is not None else games
    check_precision(precision, max_games, win_rates=not solo)
    from mcsim.runner import check_limits, resolve_execution

    check_limits(max_games, seed, "--games" if precision is None else "--max-games")
    resolve_execution(workers, backend, scheduler, resume, out_dir)  # before the folder exists
    from mcsim.outputs import LADDER_FOLDER, open_study_folder

    # the one check of every command's output folder; with force over an earlier ladder, the
    # stage its RunReplacement commits at the end
    base, replacing = open_study_folder(out_dir, LADDER_FOLDER, resume, force)

    def sub(name):
        return None if base is None else base / name

    runs = [Run([lab], variant, sub(f"rung-{r}-{_slug(lab)}")) for r, lab in enumerate(labels)]
    groups: list[Group] = []
    curve_runs: list[list[int]] = []
    if solo:
        groups.append(Group("every rung", list(range(len(labels))), _solo_stat(len(labels))))
    else:
        for r, lab in enumerate(labels):
            groups.append(Group(f"rung {lab}", [r], seat_win_rates))
        for r in range(1, len(labels)):
            ids = []
            for s in range(npl):
                lineup = [labels[r - 1]] * npl
                lineup[s] = labels[r]
                ids.append(len(runs))
                runs.append(Run(lineup, variant, sub(f"curve-{r}-seat{s}")))
            curve_runs.append(ids)
            groups.append(
                Group(f"{labels[r]} vs {labels[r - 1]}", ids, rotation_share(list(range(npl))))
            )
    try:
        study = play_study(
            game,
            runs,
            groups,
            precision=precision,
            max_games=max_games,
            seed=seed,
            players=npl,
            options=options,
            workers=workers,
            backend=backend,
            scheduler=scheduler,
            resume=resume,
            progress=progress,
            echo=echo,
        )
        if replacing is not None:  # the earlier ladder's runs give way only now
            replacing.commit()
    finally:
        if replacing is not None:
            replacing.abort()
    res = study.results
    rung_rows = []
    for r, lab in enumerate(labels):
        rr = res[r]
        rung_rows.append(
            {
                "policy": lab,
                "games": rr.summary["games"],
                "summary": rr.summary,
                "statistics": rung_statistics(game, rr.games, npl),
                "stop": rr.summary["precision"],
            }
        )
    curve = []
    for r in range(1, len(labels)):
        if solo:
            a = res[r].games["score_0"].to_numpy(float)
            b = res[r - 1].games["score_0"].to_numpy(float)
            n = min(len(a), len(b))
            iv = stats.paired_difference(a[:n], b[:n])
            stat, stop, g = "paired point gain", study.groups[0], n
        else:
            ids = curve_runs[r - 1]
            frames = [res[i].games for i in ids]
            share = np.mean([f[f"win_share_{s}"].to_numpy(float) for s, f in enumerate(frames)], 0)
            p = stats.seated_share(share, len(frames))  # as the stop rule's
            iv = {"mean": p["estimate"], "low": p["low"], "high": p["high"]}
            stat, stop, g = "win share", study.groups[len(labels) + r - 1], len(frames[0])
        curve.append(
            {
                "rung": labels[r],
                "against": labels[r - 1],
                "statistic": stat,
                "equal": None if solo else 1.0 / npl,
                "estimate": iv["mean"],
                "low": iv["low"],
                "high": iv["high"],
                "games": g,
                "stop": stop,
            }
        )
    verdicts = convergence(
        game,
        res[len(labels) - 2].games,
        res[len(labels) - 1].games,
        npl,
        precision,
        capped=hit_cap(rung_rows[-2:]),
    )
    return {
        "game": module.SPEC.id,
        "long_name": module.SPEC.long_name,
        "seed": seed,
        "players": npl,
        "variant": dict(cfg.variant),
        "options": dict(options or {}),
        "rungs": rung_rows,
        "curve": curve,
        "verdicts": verdicts,
        "top_rungs": labels[-2:],
        "precision": precision,
        "max_games": max_games,
        "calibration": study.calibration,
        "elapsed_seconds": study.elapsed_seconds,
        "notices": sorted(set(study.notices)),
        "results": res[: len(labels)],
    }


def _solo_stat(k: int):
    """A one-seat ladder's stop statistic: every rung's mean score and every adjacent pair's
    paired point gain (t 95%, points)."""

    def stat(frames):
        n = min(len(f) for f in frames)
        x = [f["score_0"].to_numpy(float)[:n] for f in frames]
        out = {f"score rung {r}": _iv(stats.mean_interval(x[r])) for r in range(k)}
        for r in range(1, k):
            out[f"gain rung {r}"] = _iv(stats.paired_difference(x[r], x[r - 1]))
        return out

    return stat


def _iv(m: dict) -> dict:
    return {"estimate": m["mean"], "low": m["low"], "high": m["high"]}


def per_game_statistics(game: str, df: pd.DataFrame, players: int) -> dict[str, np.ndarray]:
    """The headline statistics of a ladder as per-game values (float64[n] each), in order:
    each seat's win share and score (one seat: score only), the seat effect (seat 0's win share
    minus the last seat's), the game length (plies) and the game's own figures
    (``GAME_FIGURES``)."""
    out: dict[str, np.ndarray] = {}
    if players > 1:
        for s in range(players):
            out[f"win rate seat {s}"] = df[f"win_share_{s}"].to_numpy(float)
    for s in range(players):
        out[f"mean score seat {s}"] = df[f"score_{s}"].to_numpy(float)
    if players > 1:
        out[f"seat effect (seat 0 - seat {players - 1} win rate)"] = df["win_share_0"].to_numpy(
            float
        ) - df[f"win_share_{players - 1}"].to_numpy(float)
    out["game length (plies)"] = df["length_plies"].to_numpy(float)
    for label, (cols, scale) in GAME_FIGURES.get(game, {}).items():
        if all(c in df.columns for c in cols):
            out[label] = scale * sum(df[c].to_numpy(float) for c in cols)
    return out


def statistic_bounds(game: str, name: str) -> tuple[float | None, float | None]:
    """The range of one game's value of the headline statistic ``name``
    (``per_game_statistics``): win rates and shares ``(0, 1)``, the seat effect ``(-1, 1)``, a
    mean score the game's ``GameSpec.score_bounds``, game length and the game's counts
    ``(0, None)`` (docs/outputs.md, "Intervals")."""
    if name.startswith("win rate") or name.endswith("(share)"):
        return (0.0, 1.0)
    if name.startswith("seat effect"):
        return (-1.0, 1.0)
    if name.startswith("mean score"):
        return get_game(game).SPEC.score_bounds
    return (0.0, None)


def rung_statistics(game: str, df: pd.DataFrame, players: int) -> dict[str, dict]:
    """Every headline statistic of one rung: ``{name: {"estimate", "low", "high"}}`` (win
    rates and shares: Wilson 95%; the others: Student-t 95% clipped to the statistic's range,
    ``statistic_bounds``)."""
    out = {}
    for name, x in per_game_statistics(game, df, players).items():
        bounds = statistic_bounds(game, name)
        if bounds == (0.0, 1.0):
            out[name] = stats.proportion(float(x.sum()), len(x))
        else:
            out[name] = _iv(stats.mean_interval(x, bounds))
    return out


def hit_cap(rungs: list[dict]) -> bool:
    """True when ``--max-games`` stopped any of these rungs (ladder rung dicts) before the
    precision asked (their ``stop`` block; None or no block without ``precision``)."""
    return any(bool((r["stop"] or {}).get("cap_reached")) for r in rungs)


def convergence(
    game: str,
    lower: pd.DataFrame,
    top: pd.DataFrame,
    players: int,
    precision=None,
    capped: bool = False,
) -> list[dict]:
    """Per headline statistic: top rung minus the rung below, paired on their common deals
    (the first ``min(len)`` game indices), with a t 95% interval clipped to the range of a
    difference of the statistic (``statistic_bounds``, ``stats.paired_difference``) and the
    verdict: ``stable`` True (the interval holds 0), False (it does not) or None when the
    interval is undefined or covers every possible difference (``UNDECIDED``). The stable
    verdict is ``STABLE`` for a ladder sized by ``precision``, ``STABLE_AT_CAP`` when
    ``capped`` (``--max-games`` stopped either rung before that precision), else
    ``STABLE_AT_GAMES``."""
    stable = (STABLE_AT_CAP if capped else STABLE) if precision else STABLE_AT_GAMES
    n = min(len(lower), len(top))
    a = per_game_statistics(game, top.iloc[:n], players)
    b = per_game_statistics(game, lower.iloc[:n], players)
    out = []
    for name in a:
        bounds = stats.difference_bounds(statistic_bounds(game, name))
        d = stats.paired_difference(a[name], b[name], statistic_bounds(game, name))
        if n < MIN_VERDICT_GAMES:
            holds0 = None
        elif d["sd"] == 0:
            holds0 = d["mean"] == 0
        elif stats.tells_nothing(d, bounds):
            holds0 = None
        else:
            holds0 = bool(d["low"] <= 0 <= d["high"])
        out.append(
            {
                "statistic": name,
                "difference": d["mean"],
                "low": d["low"],
                "high": d["high"],
                "games": n,
                "stable": holds0,
                "verdict": UNDECIDED if holds0 is None else stable if holds0 else MOVING,
            }
        )
    return out


def to_json_dict(lad: dict) -> dict:
    """The ladder without its in-memory results (JSON-ready)."""
    return {k: v for k, v in lad.items() if k != "results"}


def _fmt_iv(e, lo, hi, fmt="{:.3f}") -> str:
    """``estimate [low, high]``, every number with the same format (a ladder read back from
    ``ladder.json`` holds None where it had NaN)."""
    est = "n/a" if e is None or e != e else fmt.format(e)
    if lo is None or hi is None or lo != lo or hi != hi:
        return f"{est} [undefined]"
    return f"{est} [{fmt.format(lo)}, {fmt.format(hi)}]"


def statistic_format(name: str) -> str:
    """The format of a rung statistic's estimate and bounds in the ladder's text (and in the
    report's ladder tables): four decimals for win rates, shares and the seat effect, three for
    the others."""
    return "{:.4f}" if name.startswith(("win rate", "seat effect", "decided")) else "{:.3f}"


def curve_format(lad: dict) -> str:
    """The format of a skill-curve point (a one-seat game's point gain: ``+.2f``)."""
    return "{:+.2f}" if lad["players"] == 1 else "{:.3f}"


#: the format of a convergence difference and its bounds
VERDICT_FORMAT = "{:+.4f}"


def format_ladder(lad: dict) -> str:
    """Readable text of a ladder: rungs, skill curve, verdicts."""
    module = get_game(lad["game"])
    var = " ".join(f"{k}={v}" for k, v in lad["variant"].items()) or "-"
    lines = [
        f"{lad['long_name']} skill ladder: seed {lad['seed']}, {lad['players']} players, "
        f"variant {var}"
        + (
            f", precision ±{lad['precision']:g} (cap {counted(lad['max_games'], 'game')})"
            if lad["precision"]
            else ""
        )
    ]
    solo = lad["players"] == 1
    for r, rung in enumerate(lad["rungs"]):
        st = rung["statistics"]
        lines.append("")
        lines.append(f"rung {r}: {rung['policy']} self-play, {counted(rung['games'], 'game')}")
        for name, iv in st.items():
            fmt = statistic_format(name)
            lines.append(f"  {name:<44} {_fmt_iv(iv['estimate'], iv['low'], iv['high'], fmt)}")
        block = rung["summary"].get(module.SPEC.summary_key)
        if block is not None:
            text = module.format_summary(block, rung["summary"])
            lines += ["  " + t for t in text.splitlines()]
        if rung["stop"].get("cap_reached"):
            lines.append(f"  --max-games {lad['max_games']:,} reached before ±{lad['precision']:g}")
    lines += ["", "skill curve (each rung against the rung below, seat-rotated on common deals):"]
    for c in lad["curve"]:
        eq = "" if solo else f" (equal: {c['equal']:.3f})"
        fmt = curve_format(lad)
        cap = "  [--max-games reached]" if c["stop"].get("cap_reached") else ""
        lines.append(
            f"  {c['rung']:<24} vs {c['against']:<24} {c['statistic']} "
            f"{_fmt_iv(c['estimate'], c['low'], c['high'], fmt)}{eq}, {_curve_size(c, lad)}{cap}"
        )
    a, b = lad["top_rungs"]
    lines += ["", f"convergence ({b} minus {a}, paired on common deals):"]
    for v in lad["verdicts"]:
        lines.append(
            f"  {v['statistic']:<44} {_fmt_iv(v['difference'], v['low'], v['high'], VERDICT_FORMAT)}: "
            f"{v['verdict']}"
        )
    lines.append(f"took {lad['elapsed_seconds']:.1f} s (wall)")
    return "\n".join(lines)


def _curve_size(point: dict, lad: dict) -> str:
    """How many games a curve point stands on: its common deals (``games`` in the JSON), each
    played once per seating of the new rung (the players count; one game per deal solo)."""
    k = lad["players"]
    deals = counted(point["games"], "common deal")
    return deals if k == 1 else f"{deals} x {k} seatings"


def write_ladder_folder(lad: dict, out_dir: str | Path) -> list[str]:
    """Write ``ladder.json`` and one PNG per statistic against the rung (with 95% intervals)
    plus ``skill_curve.png`` into ``out_dir`` (the run datasets are already there); each file
    atomically. Returns the file names written."""
    from mcsim.runner import to_json, write_atomic

    out = Path(out_dir)
    names = []
    for fig in ladder_figures(lad):
        write_atomic(out / fig.file, lambda tmp, b=fig.png: Path(tmp).write_bytes(b))
        names.append(fig.file)
    # last: a folder with ladder.json holds a finished ladder, its figures included
    text = to_json(to_json_dict(lad), indent=1)
    write_atomic(out / "ladder.json", lambda tmp: Path(tmp).write_text(text + "\n"))
    return ["ladder.json"] + names


def read_ladder_folder(path: str | Path, flag: str = "--ladder-from") -> dict:
    """The ``ladder.json`` of a finished ``mcsim ladder GAME --out DIR`` folder (or of a
    published ladder: ``ladder.json`` alone), as ``to_json_dict`` wrote it (NaN read back as
    None; no ``results``). Raises ``MissingFileError`` naming ``flag`` when the folder or its
    ``ladder.json`` is missing (an unfinished ladder: ``mcsim ladder ... --resume`` finishes
    it), ``InputFileError`` when the file cannot be read or is not a skill ladder."""
    from mcsim.errors import InputFileError, MissingFileError
    from mcsim.files import read_json

    p = Path(path)
    if not p.is_dir():
        raise MissingFileError(
            f"{flag} {path}: no such folder (give the folder of `mcsim ladder GAME --out DIR`)"
        )
    if not (p / "ladder.json").exists():
        raise MissingFileError(
            f"{flag} {path}: no ladder.json there (an unfinished ladder: finish it with "
            "`mcsim ladder GAME ... --out DIR --resume`, the same options)"
        )
    d = read_json(p / "ladder.json", "skill ladder")
    keys = ("game", "players", "variant", "seed", "rungs", "curve", "verdicts", "top_rungs")
    ok = (
        isinstance(d, dict)
        and all(k in d for k in keys)
        and isinstance(d["rungs"], list)
        and len(d["rungs"]) >= 2
        and all(
            isinstance(r, dict)
            and all(k in r for k in ("policy", "games", "statistics", "stop"))
            and isinstance(r["statistics"], dict)
            for r in d["rungs"]
        )
        and isinstance(d["curve"], list)
        and isinstance(d["verdicts"], list)
        and isinstance(d["variant"], dict)
    )
    if not ok:
        raise InputFileError(f"{p / 'ladder.json'}: not a skill ladder (mcsim ladder)")
    return d


def read_rung_games(path: str | Path, lad: dict, rung: int) -> pd.DataFrame | None:
    """The per-game frame of self-play rung ``rung`` of the ladder ``lad`` (``read_ladder_folder``)
    from its run dataset ``rung-<rung>-<policy>/`` in ``path``, in game order and cut to the
    rung's games; None when the folder holds no such dataset (a published ladder: ``ladder.json``
    alone). Raises ``InputFileError`` when the dataset cannot be read or is short."""
    from mcsim.errors import InputFileError

    d = Path(path) / f"rung-{rung}-{_slug(lad['rungs'][rung]['policy'])}"
    if not d.is_dir() or not any(d.glob("part-*.parquet")):
        return None
    try:
        df = pd.read_parquet(d)
    except Exception as e:  # noqa: BLE001 - pyarrow raises many types for damaged bytes
        msg = " ".join(str(e).split())
        raise InputFileError(f"{d}: not a readable run dataset ({msg})") from None
    n = int(lad["rungs"][rung]["games"])
    if "game_index" in df:
        df = df.sort_values("game_index", kind="stable")
    if len(df) < n:
        raise InputFileError(f"{d}: holds {len(df):,} games, the ladder says {n:,}")
    return df.iloc[:n].reset_index(drop=True)


class _Ctx:
    def __init__(self, lad):
        self.lad = lad

    def footer(self, games_note=None):
        lad = self.lad
        n = ", ".join(f"{r['games']:,}" for r in lad["rungs"])
        return (
            f"{lad['long_name']}, {lad['players']} players, seed {lad['seed']}; games per rung {n}"
        )


def figure_slug(name: str) -> str:
    """File stem of a statistic's figure: lower case, words joined by ``_``."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def ladder_figures(lad: dict) -> list:
    """``mcsim.charts.Figure`` per headline statistic against the rung (95% intervals) and one
    of the skill curve."""
    from mcsim import charts

    ctx = _Ctx(lad)
    labels = [r["policy"] for r in lad["rungs"]]
    x = np.arange(len(labels))
    figs = []
    for name in lad["rungs"][0]["statistics"]:
        ivs = [r["statistics"].get(name) for r in lad["rungs"]]
        if any(iv is None for iv in ivs):
            continue
        m = np.array([iv["estimate"] for iv in ivs], float)
        lo = np.array([iv["low"] for iv in ivs], float)
        hi = np.array([iv["high"] for iv in ivs], float)
        fig, (ax,) = charts.figure(8.0, 4.2)
        ax.errorbar(x, m, yerr=charts.err(m, lo, hi), fmt="o-", capsize=4, color=charts.COLORS[0])
        ax.set_xticks(x, labels, rotation=15, fontsize=8)
        ax.set_xlabel("rung (self-play, weakest first)")
        ax.set_ylabel(name)
        verdict = next((v for v in lad["verdicts"] if v["statistic"] == name), None)
        cap = f" Top two rungs: {verdict['verdict']}." if verdict else ""
        figs.append(
            charts.done(
                fig,
                ctx,
                "ladder_" + figure_slug(name),
                f"{name} by rung",
                f"{name} in self-play at each rung with its 95% interval.{cap}",
            )
        )
    if lad["curve"]:
        c = lad["curve"]
        m = np.array([p["estimate"] for p in c], float)
        lo = np.array([p["low"] for p in c], float)
        hi = np.array([p["high"] for p in c], float)
        xs = np.arange(1, len(labels))
        fig, (ax,) = charts.figure(8.0, 4.2)
        ax.errorbar(xs, m, yerr=charts.err(m, lo, hi), fmt="o-", capsize=4, color=charts.COLORS[1])
        if c[0]["equal"] is not None:
            ax.axhline(c[0]["equal"], color="grey", ls="--", lw=1, label="equal share")
            ax.legend(fontsize=8)
        else:
            ax.axhline(0.0, color="grey", ls="--", lw=1)
        ax.set_xticks(xs, [f"{p['rung']}\nvs {p['against']}" for p in c], fontsize=7)
        ax.set_xlabel("rung against the rung below")
        ax.set_ylabel(c[0]["statistic"] + (" (points)" if c[0]["equal"] is None else ""))
        figs.append(
            charts.done(
                fig,
                ctx,
                "ladder_skill_curve",
                "skill curve",
                "Each rung against the rung below, seat-rotated on common deals, with its 95% "
                "interval; a curve still rising says the top rung is not yet strong.",
            )
        )
    return figs
