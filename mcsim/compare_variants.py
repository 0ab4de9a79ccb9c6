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

from collections.abc import Iterable
from dataclasses import replace

import numpy as np

from mcsim import stats
from mcsim.errors import ConfigError, UnknownVariantError


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
    precision: float | None = None,
    max_games: int | None = None,
    echo=None,
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
    policies, players, workers :
        As in ``mcsim.simulate`` (the same for every arm).
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
        Fewer than two arms, or two identical arms.
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
                raise ConfigError(f"--variant arms {j + 1} and {i + 1} are the same rules")
    from mcsim.runner import RunOptions, resolve_config

    _, cfg = resolve_config(game, players, policies, arms[0])
    solo = cfg.players == 1
    stop = None
    if precision is not None:
        from mcsim import precision as prec

        max_games = prec.DEFAULT_MAX_GAMES if max_games is None else max_games
        prec.check_precision(precision, max_games, win_rates=not solo)
    if solo and announce is not None:
        announce(SOLO_NOTE.format(game=game))
    run = RunOptions(games=games, seed=seed, players=players, workers=workers, progress=progress)
    if precision is None:
        results = [replace(run, variant=a).simulate(game, policies) for a in arms]
    else:
        study = prec.play_study(
            game,
            [prec.Run(list(policies or ["random"]), a) for a in arms],
            [prec.Group("paired differences", list(range(len(arms))), prec.paired_arms)],
            precision=precision,
            max_games=max_games,
            seed=seed,
            players=players,
            workers=workers,
            progress=progress,
            echo=echo,
        )
        results, stop = study.results, study.groups[0]
        games = stop["games"]
    npl = results[0].summary["players"]
    labels = [",".join(f"{k}={v}" for k, v in a.items()) or "(defaults)" for a in arms]
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
    if solo:
        return _solo(out, labels, results, module)
    per = [_per_game(r.games, npl) for r in results]
    for label, r, p in zip(labels, results, per):
        out["arms"].append(
            {
                "label": label,
                "variant": r.summary["variant"],
                "seats": r.summary["seats"],
                "score_spread": stats.mean_interval(p["spread"]),
                "winner_margin": stats.mean_interval(p["margin"]),
                "seat_balance": p["balance"],
                module.SPEC.summary_key: r.summary.get(module.SPEC.summary_key),
            }
        )
    ref = per[0]
    for label, p in zip(labels[1:], per[1:]):
        out["paired"].append(
            {
                "arm": label,
                "reference": labels[0],
                "win_share": [
                    stats.paired_difference(p["win"][:, k], ref["win"][:, k]) for k in range(npl)
                ],
                "score": [
                    stats.paired_difference(p["score"][:, k], ref["score"][:, k])
                    for k in range(npl)
                ],
                "mean_score": stats.paired_difference(p["mean_score"], ref["mean_score"]),
                "score_spread": stats.paired_difference(p["spread"], ref["spread"]),
                "winner_margin": stats.paired_difference(p["margin"], ref["margin"]),
                "seat_balance_change": p["balance"] - ref["balance"],
                "same_winner": stats.proportion(
                    float((p["win"].argmax(axis=1) == ref["win"].argmax(axis=1)).sum()), games
                ),
            }
        )
    return out


def _solo(out: dict, labels: list[str], results, module) -> dict:
    """The comparison of a one-seat game: per arm the score, paired score differences."""
    scores = [r.games["score_0"].to_numpy(dtype=np.float64) for r in results]
    for label, r, x in zip(labels, results, scores):
        out["arms"].append(
            {
                "label": label,
                "variant": r.summary["variant"],
                "score": stats.mean_interval(x),
                module.SPEC.summary_key: r.summary.get(module.SPEC.summary_key),
            }
        )
    for label, x in zip(labels[1:], scores[1:]):
        out["paired"].append(
            {"arm": label, "reference": labels[0], "score": stats.paired_difference(x, scores[0])}
        )
    return out


def _ci(d: dict, fmt: str = "{:+.3f}") -> str:
    return f"{fmt.format(d['mean'])} [{fmt.format(d['low'])}, {fmt.format(d['high'])}]"


def format_comparison(res: dict, long_name: str = "") -> str:
    """Readable text of ``compare_variants``."""
    lines = [
        f"{long_name or res['game']}: {res['games']:,} games per arm on the same deals, seed "
        f"{res['seed']}, {res['players']} players, policies {', '.join(res['policies'])}"
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
                f"[{sc['low']:.2f}, {sc['high']:.2f}]"
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
