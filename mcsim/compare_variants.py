"""Compare rule variants of one game on the same deals: paired differences with 95% intervals.

Every arm plays games ``0 .. N-1`` with the same root seed, so game *i* of every arm starts from
the same deal (Carcassonne: the same shuffled tile order; the gift deck has its own stream) and
the same policy random streams (common random numbers, ``shared/DESIGN.md``). The per-game
differences arm - reference are then averaged with a Student-t 95% interval
(``mcsim.stats.paired_difference``).

Reported per arm: win rate and mean score by seat, score spread (best - worst, points) and winner
margin (best - second best, points); per arm against the first (reference) arm: paired
differences of each seat's win share and score, of the spread, the margin and the mean score per
seat. The seat-balance index of an arm is the total variation distance between its seat win rates
and the fair 1/players (half the sum of |win rate - 1/players|; 0 = balanced); its change is given
as a point estimate, the per-seat win-share differences carry the intervals.

>>> from mcsim.compare_variants import parse_arm
>>> parse_arm("gifts=true,farms=v2")
{'gifts': 'true', 'farms': 'v2'}
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from mcsim import stats, values
from mcsim.errors import ConfigError, UnknownVariantError
from mcsim.text import counted


def parse_arm(text: str) -> dict[str, str]:
    """``name=value[,name=value...]`` -> dict; raises ``UnknownVariantError`` on bad syntax."""
    out: dict[str, str] = {}
    for item in text.split(","):
        if not item.strip():
            continue
        name, eq, val = item.partition("=")
        if not eq or not name.strip() or not val.strip():
            raise UnknownVariantError(f"variant {item!r} must be written name=value")
        if name.strip() in out:
            raise UnknownVariantError(f"arm {text!r}: variant {name.strip()!r} is given twice")
        out[name.strip()] = val.strip()
    return out


def _per_game(df, players: int) -> dict[str, np.ndarray]:
    s = np.column_stack([df[f"score_{k}"].to_numpy(dtype=np.float64) for k in range(players)])
    w = np.column_stack([df[f"win_share_{k}"].to_numpy(dtype=np.float64) for k in range(players)])
    srt = np.sort(s, axis=1)
    return {
        "score": s,
        "win": w,
        "spread": srt[:, -1] - srt[:, 0],
        "margin": srt[:, -1] - srt[:, -2],
        "mean_score": s.mean(axis=1),
        "balance": 0.5 * float(np.abs(w.mean(axis=0) - 1.0 / players).sum()),
    }


#: what ``compare`` reports for a one-seat game (said before any game is played)
SOLO_NOTE = (
    "{game} with 1 player is a solo game: compare reports score differences only "
    "(no win rates, score spread, winner margin or seat balance)"
)


def compare_variants(
    game: str,
    arms: Iterable[dict | str],
    games: int = 10_000,
    seed: int = 0,
    policies=None,
    players: int | None = None,
    workers: int | None = None,
    progress: bool = False,
    announce=None,
    options: dict | None = None,
    precision: float | None = None,
    max_games: int | None = None,
    echo=None,
    out_dir: str | Path | None = None,
    resume: bool = False,
    force: bool = False,
) -> dict:
    """Play every arm on the same deals and report paired differences against the first arm.

    Parameters
    ----------
    game : str
        Game id.
    arms : iterable of dict or str
        Variant settings per arm (``{"gifts": "true"}`` or ``"gifts=true"``); at least two.
        Settings not given take the game's defaults.
    games, seed : int
        Games per arm and the common root seed.
    policies, players, workers, options :
        As in ``mcsim.simulate`` (the same for every arm; ``options`` are the game options,
        e.g. ``{"tiles": "my_tiles.json"}`` for Don Quixote).
    announce : callable, optional
        Called with one line before any game is played when the game has one seat
        (``SOLO_NOTE``): a solo comparison has score differences only; its arms and paired
        entries then hold no win-rate, spread, margin, balance or same-winner keys.
    precision, max_games, echo :
        With ``precision`` (``mcsim.precision``), every arm plays the same games chunk by
        chunk until every paired difference from the first arm in seat win share (one seat:
        in score, points) has a 95% interval within ±precision, at most ``max_games`` per arm;
        ``games`` is where it stopped and ``precision`` holds the stop. ``echo`` receives the
        calibration line.
    out_dir, resume, force :
        With ``out_dir`` every arm writes its per-game table into ``out_dir/arm-<i>-<variant>``
        (a ``simulate --out`` dataset, chunk by chunk) and the comparison into
        ``out_dir/compare.json`` at the end; ``resume`` continues an interrupted comparison
        there (playing only the missing chunks: the same result), ``force`` replaces an
        earlier one once the new one has finished (``mcsim.outputs.check_run_folder``, as
        ``mcsim ladder``).

    Returns
    -------
    dict
        ``{"game", "games", "seed", "players", "policies", "arms": [...], "paired": [...]}``;
        each arm holds ``variant``, ``seats`` (win rate, score), ``score_spread``,
        ``winner_margin`` and the game's own summary block; each paired entry holds the
        differences (arm - reference) with 95% intervals.

    Raises
    ------
    ConfigError
        Fewer than two arms, or two identical arms; ``resume`` and ``force`` together.
    OutputError
        ``out_dir`` unusable: not a folder, an earlier run without ``resume``/``force``, a
        ``resume`` with nothing to resume (each a one-line message, before any game).
    UnknownVariantError, UnknownPolicyError, UnknownGameError
        As ``mcsim.simulate``.
    """
    from mcsim.games import get_game

    arms = [parse_arm(a) if isinstance(a, str) else dict(a) for a in arms]
    if len(arms) < 2:
        raise ConfigError(
            "compare needs at least two --variant arms (e.g. --variant gifts=false "
            "--variant gifts=true)"
        )
    module = get_game(game)
    resolved = [module.SPEC.resolve_variant(a) for a in arms]
    for i in range(len(resolved)):
        for j in range(i):
            if resolved[i] == resolved[j]:
                where = "--variant arms" if values.on_cli() else "arms"
                raise ConfigError(f"{where} {j + 1} and {i + 1} are the same rules")
    from mcsim.runner import RunOptions, resolve_config

    # every arm is checked as simulate checks it (variant combinations, options) before any game
    cfg = [resolve_config(game, players, policies, a, options)[1] for a in arms][0]
    solo = cfg.players == 1
    if precision is not None:
        from mcsim import precision as prec

        max_games = prec.DEFAULT_MAX_GAMES if max_games is None else max_games
        prec.check_precision(precision, max_games, win_rates=not solo)
    if solo and announce is not None:
        announce(SOLO_NOTE.format(game=game))
    run = RunOptions(
        games=games,
        seed=seed,
        players=players,
        workers=workers,
        progress=progress,
        options=options,
    )
    labels = [",".join(f"{k}={v}" for k, v in a.items()) or "(defaults)" for a in arms]
    from mcsim import runner

    if out_dir is not None and precision is None and games > runner.KEEP_GAMES_LIMIT:
        raise ConfigError(
            f"{values.label('out_dir')} keeps every arm's games in memory: at most "
            f"{runner.KEEP_GAMES_LIMIT:,} games per arm with it, not {games:,}"
        )
    if precision is not None or out_dir is not None:
        return _compare_study(
            game, arms, labels, module, games=games, seed=seed, policies=policies,
            players=players, options=options, workers=workers, progress=progress, echo=echo,
            precision=precision, max_games=max_games, out_dir=out_dir, resume=resume,
            force=force,
        )  # fmt: skip
    if games <= runner.KEEP_GAMES_LIMIT:
        results = [replace(run, variant=a).simulate(game, policies) for a in arms]
        return _compare(game, games, seed, labels, results, module, [[r.games for r in results]])
    # Above KEEP_GAMES_LIMIT simulate keeps no rows in memory: each arm writes its rows to a
    # temporary Parquet dataset (one part per chunk, the same chunks in every arm), read back
    # here chunk by chunk, so memory stays flat (disk: the arms' tables until the end).
    with tempfile.TemporaryDirectory(prefix="mcsim-compare-") as tmp:
        dirs = [Path(tmp) / f"arm{i}" for i in range(len(arms))]
        results = [
            replace(run, variant=a).simulate(game, policies, out_dir=d) for a, d in zip(arms, dirs)
        ]
        npl = results[0].summary["players"]
        columns = [f"{c}_{k}" for c in ("score", "win_share") for k in range(npl)]
        parts = sorted(p.name for p in dirs[0].glob("part-*.parquet"))
        chunks = ([pd.read_parquet(d / name, columns=columns) for d in dirs] for name in parts)
        return _compare(game, games, seed, labels, results, module, chunks)


#: the comparison's own file in ``compare --out DIR`` (the arms' datasets beside it)
COMPARE_JSON = "compare.json"


def _compare_study(
    game, arms, labels, module, *, games, seed, policies, players, options, workers, progress,
    echo, precision, max_games, out_dir, resume, force,
) -> dict:  # fmt: skip
    """``compare_variants`` played by ``mcsim.precision.play_study``: sized by ``precision``
    and/or written into ``out_dir`` (one dataset per arm, then ``compare.json``)."""
    from mcsim import precision as prec
    from mcsim.ladder import _slug
    from mcsim.runner import check_limits, resolve_execution, to_json, write_atomic

    if max_games is None:
        max_games = prec.DEFAULT_MAX_GAMES if precision is not None else games
    check_limits(max_games, seed, "--games" if precision is None else "--max-games")
    resolve_execution(workers, None, None, resume, out_dir)  # before the folder exists
    from mcsim.outputs import COMPARE_FOLDER, open_study_folder

    folder, replacing = open_study_folder(out_dir, COMPARE_FOLDER, resume, force)
    names = [f"arm-{i}-{_slug(lab)}" for i, lab in enumerate(labels)]
    if resume and folder is not None:  # every arm's manifest is checked too, but not a lost arm
        there = sorted(p.name for p in folder.glob("arm-*") if p.is_dir())
        if there != sorted(names):
            raise ConfigError(
                f"cannot resume: {values.label('out_dir', out_dir)} holds a comparison of other "
                f"arms ({', '.join(there)}); give the --variant arms of that comparison, in order"
            )
    runs = [
        prec.Run(list(policies or ["random"]), a, None if folder is None else folder / name)
        for a, name in zip(arms, names)
    ]
    try:
        study = prec.play_study(
            game,
            runs,
            [prec.Group("paired differences", list(range(len(arms))), prec.paired_arms)],
            precision=precision,
            max_games=max_games,
            seed=seed,
            players=players,
            options=options,
            workers=workers,
            resume=resume,
            progress=progress,
            echo=echo,
        )
        results = study.results
        stop = None if precision is None else study.groups[0]
        n = study.groups[0]["games"] if precision is not None else games
        res = _compare(game, n, seed, labels, results, module, [[r.games for r in results]], stop)
        if folder is not None:
            text = to_json(res, indent=1)
            write_atomic(folder / COMPARE_JSON, lambda tmp: Path(tmp).write_text(text + "\n"))
        if replacing is not None:  # the earlier comparison gives way only now
            replacing.commit()
    finally:
        if replacing is not None:
            replacing.abort()
    return res


class _MeanAcc:
    """The mean with its 95% interval of values given chunk by chunk: ``stats.mean_interval``
    of the values when they came in one chunk, else ``stats.mean_interval_from_moments`` of
    the merged moments (the same keys)."""

    def __init__(self, bounds: tuple[float | None, float | None] = (None, None)) -> None:
        self.first = None
        self.moments = None
        self.bounds = bounds  # the quantity's range (``stats.clip_to_range``)

    def add(self, x) -> None:
        if self.first is None and self.moments is None:
            self.first = np.asarray(x, dtype=np.float64)
            return
        if self.moments is None:
            self.moments = stats.moments(self.first)
            self.first = None
        m = stats.moments(x)
        self.moments = {k: self.moments[k] + m[k] for k in m}

    def result(self) -> dict:
        if self.moments is None:
            return stats.mean_interval(self.first if self.first is not None else [], self.bounds)
        return stats.mean_interval_from_moments(self.moments, self.bounds)


def _compare(game, games: int, seed: int, labels, results, module, chunks, stop=None) -> dict:
    """The comparison from the arms' results and their per-game rows, given as ``chunks``: an
    iterable of lists (one DataFrame per arm, the same games in each) holding ``score_<k>`` and
    ``win_share_<k>``."""
    npl = results[0].summary["players"]
    out = {
        "game": game,
        "games": games,
        "seed": seed,
        "players": npl,
        "policies": results[0].summary["policies"],
        "arms": [],
        "paired": [],
        **({} if stop is None else {"precision": stop}),
    }
    n_arms = len(results)
    if npl == 1:
        score = [_MeanAcc() for _ in range(n_arms)]
        diff = [_MeanAcc() for _ in range(n_arms)]
        for frames in chunks:
            xs = [f["score_0"].to_numpy(dtype=np.float64) for f in frames]
            for i, x in enumerate(xs):
                score[i].add(x)
                diff[i].add(x - xs[0])
        return _solo(out, labels, results, module, score, diff)
    acc = {  # spread and margin (best - worst, best - second) are never negative
        key: [
            [
                _MeanAcc(
                    (0, None)
                    if key in ("spread", "margin")
                    # a difference of win shares lies in [-1, 1]
                    else stats.difference_bounds((0.0, 1.0))
                    if key == "d_win"
                    else (None, None)
                )
                for _ in range(width)
            ]
            for _ in range(n_arms)
        ]
        for key, width in (
            ("spread", 1),
            ("margin", 1),
            ("d_win", npl),
            ("d_score", npl),
            ("d_mean_score", 1),
            ("d_spread", 1),
            ("d_margin", 1),
        )
    }
    win_sum = np.zeros((n_arms, npl))
    same_winner = np.zeros(n_arms)
    for frames in chunks:
        per = [_per_game(f, npl) for f in frames]
        ref = per[0]
        for i, p in enumerate(per):
            a = {k: v[i] for k, v in acc.items()}
            a["spread"][0].add(p["spread"])
            a["margin"][0].add(p["margin"])
            win_sum[i] += p["win"].sum(axis=0)
            for k in range(npl):
                a["d_win"][k].add(p["win"][:, k] - ref["win"][:, k])
                a["d_score"][k].add(p["score"][:, k] - ref["score"][:, k])
            a["d_mean_score"][0].add(p["mean_score"] - ref["mean_score"])
            a["d_spread"][0].add(p["spread"] - ref["spread"])
            a["d_margin"][0].add(p["margin"] - ref["margin"])
            same_winner[i] += float((p["win"].argmax(axis=1) == ref["win"].argmax(axis=1)).sum())
    balance = 0.5 * np.abs(win_sum / games - 1.0 / npl).sum(axis=1)
    for i, (label, r) in enumerate(zip(labels, results)):
        out["arms"].append(
            {
                "label": label,
                "variant": r.summary["variant"],
                "seats": r.summary["seats"],
                "score_spread": acc["spread"][i][0].result(),
                "winner_margin": acc["margin"][i][0].result(),
                "seat_balance": float(balance[i]),
                module.SPEC.summary_key: r.summary.get(module.SPEC.summary_key),
            }
        )
    for i in range(1, n_arms):
        out["paired"].append(
            {
                "arm": labels[i],
                "reference": labels[0],
                "win_share": [x.result() for x in acc["d_win"][i]],
                "score": [x.result() for x in acc["d_score"][i]],
                "mean_score": acc["d_mean_score"][i][0].result(),
                "score_spread": acc["d_spread"][i][0].result(),
                "winner_margin": acc["d_margin"][i][0].result(),
                "seat_balance_change": float(balance[i] - balance[0]),
                "same_winner": stats.proportion(float(same_winner[i]), games),
            }
        )
    return out


def _solo(out: dict, labels: list[str], results, module, score, diff) -> dict:
    """The comparison of a one-seat game: per arm the score (``score``: one ``_MeanAcc`` per
    arm), paired score differences (``diff``)."""
    for i, (label, r) in enumerate(zip(labels, results)):
        out["arms"].append(
            {
                "label": label,
                "variant": r.summary["variant"],
                "score": score[i].result(),
                module.SPEC.summary_key: r.summary.get(module.SPEC.summary_key),
            }
        )
    for i in range(1, len(results)):
        out["paired"].append({"arm": labels[i], "reference": labels[0], "score": diff[i].result()})
    return out


def _ci(d: dict, fmt: str = "{:+.3f}") -> str:
    return f"{fmt.format(d['mean'])} {stats.interval_text(d, fmt[2:-1])}"


def format_comparison(res: dict, long_name: str = "") -> str:
    """Readable text of ``compare_variants``."""
    lines = [
        f"{long_name or res['game']}: {counted(res['games'], 'game')} per arm on the same deals, seed "
        f"{res['seed']}, {counted(res['players'], 'player')}, "
        f"{'policy' if len(res['policies']) == 1 else 'policies'} {', '.join(res['policies'])}"
    ]
    if res["players"] == 1:  # solo: score differences only
        for a in res["arms"]:
            lines.append(f"arm {a['label']}: mean score {_ci(a['score'], '{:.2f}')}")
        for p in res["paired"]:
            lines.append(
                f"paired difference ({p['arm']}) - ({p['reference']}), mean [95% CI]: "
                f"score {_ci(p['score'], '{:+.2f}')}"
            )
        return "\n".join(lines)
    for a in res["arms"]:
        lines.append(f"arm {a['label']}:")
        for s in a["seats"]:
            w, sc = s["win_rate"], s["score"]
            lines.append(
                f"  seat {s['seat']}: win rate {w['estimate']:.4f} [{w['low']:.4f}, "
                f"{w['high']:.4f}]  mean score {sc['mean']:.2f} "
                f"{stats.interval_text(sc, '.2f')}"
            )
        lines.append(
            f"  score spread {_ci(a['score_spread'], '{:.2f}')}  winner margin "
            f"{_ci(a['winner_margin'], '{:.2f}')}  seat imbalance "
            f"(TV distance from 1/players) {a['seat_balance']:.4f}"
        )
    for p in res["paired"]:
        lines.append(f"paired difference ({p['arm']}) - ({p['reference']}), mean [95% CI]:")
        for k, (w, s) in enumerate(zip(p["win_share"], p["score"])):
            lines.append(f"  seat {k}: win share {_ci(w, '{:+.4f}')}  score {_ci(s, '{:+.2f}')}")
        lines.append(
            f"  mean score {_ci(p['mean_score'], '{:+.2f}')}  score spread "
            f"{_ci(p['score_spread'], '{:+.2f}')}  "
            f"winner margin {_ci(p['winner_margin'], '{:+.2f}')}"
        )
        lines.append(
            f"  seat imbalance change {p['seat_balance_change']:+.4f}  same winner "
            f"{p['same_winner']['estimate']:.3f}"
        )
    return "\n".join(lines)
