"""Tournaments: every policy against every other, in every seat, on common random numbers.

For each unordered pair of policies {A, B} the lineups are all seat rotations of the
alternating patterns A, B, A, ... and B, A, B, ... (for 2 players: A-B and B-A), so each policy
sits in each seat equally often. Every lineup plays the same game indices with the same seed,
so the deals (cards, tiles, cell orders) are common to all lineups.

The ratings come from a multinomial-logit model of who wins a game (Bradley-Terry for 2 seats,
with one term per seat)::

    P(seat s wins) = exp(r[policy(s)] + h[s]) / sum_j exp(r[policy(j)] + h[j])

fitted by maximum likelihood (Newton's method) on the win shares (a shared win counts 1/k),
with 0.5 pseudo-wins added to every seat of every lineup so that the ratings stay finite when a
policy wins every game (where the plain estimate is infinite).
``r`` is reported on the Elo scale (400 / ln 10 per unit, mean 1500) and ``h`` as seat effects
in Elo points relative to seat 0, each with a 95% interval from the observed information. This
separates the seat effect from the policy effect.
"""

from __future__ import annotations

import math

import numpy as np

from mcsim import stats
from mcsim.errors import ConfigError
from mcsim.games.base import parse_policy
from mcsim.runner import RunOptions, resolve_config

ELO_PER_NAT = 400.0 / math.log(10.0)
#: pseudo-wins added to every seat of every lineup before the rating fit (see ``tournament``)
PSEUDO_WINS = 0.5


def lineups(policies: list[str], players: int) -> list[tuple[str, ...]]:
    """Seat assignments of a tournament (see the module docstring), in a fixed order.

    >>> lineups(["a", "b"], 2)
    [('a', 'b'), ('b', 'a')]
    >>> lineups(["a", "b"], 3)
    [('a', 'b', 'a'), ('a', 'a', 'b'), ('b', 'a', 'a'), ('b', 'a', 'b'), ('b', 'b', 'a'), ('a', 'b', 'b')]
    """
    out: list[tuple[str, ...]] = []
    for i in range(len(policies)):
        for j in range(i + 1, len(policies)):
            for first, second in ((policies[i], policies[j]), (policies[j], policies[i])):
                base = [first if k % 2 == 0 else second for k in range(players)]
                for rot in range(players):
                    lineup = tuple(base[(k - rot) % players] for k in range(players))
                    if lineup not in out:
                        out.append(lineup)
    return out


def fit_ratings(
    games_per_lineup: list[int],
    lineup_index: list[list[int]],
    wins: list[list[float]],
    n_policies: int,
    players: int,
):
    """Maximum-likelihood policy ratings and seat effects (natural-log units).

    Parameters
    ----------
    games_per_lineup : list of int, one per lineup
    lineup_index : list of list of int
        Policy index of each seat, per lineup.
    wins : list of list of float
        Total win share of each seat, per lineup.

    Returns
    -------
    r : float64[n_policies] (mean 0), h : float64[players] (h[0] = 0),
    r_se : float64[n_policies], h_se : float64[players]
        Standard errors from the inverse observed information.
    """
    dim = (n_policies - 1) + (players - 1)
    designs = []
    for pol in lineup_index:
        X = np.zeros((players, dim))
        for s, p in enumerate(pol):
            if p > 0:
                X[s, p - 1] = 1.0
            if s > 0:
                X[s, n_policies - 1 + s - 1] = 1.0
        designs.append(X)
    theta = np.zeros(dim)
    W = [np.asarray(w, dtype=np.float64) for w in wins]
    info = np.eye(dim)
    for _ in range(100):
        grad = np.zeros(dim)
        info = np.zeros((dim, dim))
        for X, w, n in zip(designs, W, games_per_lineup):
            z = X @ theta
            p = np.exp(z - z.max())
            p /= p.sum()
            grad += X.T @ (w - n * p)
            info += n * X.T @ (np.diag(p) - np.outer(p, p)) @ X
        try:
            step = np.linalg.solve(info + 1e-12 * np.eye(dim), grad)
        except np.linalg.LinAlgError:
            break
        theta += np.clip(step, -5, 5)
        if np.max(np.abs(step)) < 1e-10:
            break
    cov = np.linalg.pinv(info)
    # policy ratings: r_0 = 0 in the fit, re-centred to mean 0 (a linear map of theta)
    A = np.zeros((n_policies, dim))
    A[1:, : n_policies - 1] = np.eye(n_policies - 1)
    A -= A.mean(axis=0)
    r = A @ theta
    r_se = np.sqrt(np.maximum(np.diag(A @ cov @ A.T), 0.0))
    h = np.concatenate([[0.0], theta[n_policies - 1 :]])
    h_se = np.concatenate([[0.0], np.sqrt(np.maximum(np.diag(cov)[n_policies - 1 :], 0.0))])
    return r, h, r_se, h_se


def tournament(
    game: str,
    policies: list[str],
    players: int | None = None,
    games: int = 10_000,
    seed: int = 0,
    variant: dict | None = None,
    workers: int | None = 1,
    options: dict | None = None,
    backend: str | None = None,
    scheduler: str | None = None,
    progress: bool = False,
    precision: float | None = None,
    max_games: int | None = None,
    echo=None,
) -> dict:
    """Play a seat-rotated tournament and return its result as a JSON-ready dict.

    Keys: ``game, games_per_lineup, seed, players, variant, policies, lineups`` (each with its
    seats' policies, win rates and mean scores), ``matrix`` (``matrix[a][b]``: policy a's win
    share in games between a and b, Wilson 95%; null on the diagonal), ``elo`` (per policy:
    rating, low, high, mean score), ``seat_effect`` (per seat: Elo offset from seat 0 with 95%
    interval, and the raw win rate over all lineups), ``games_per_second`` (compile time
    excluded).

    With ``precision`` (``mcsim.precision``): every lineup plays the same games chunk by
    chunk until every pair's win share (per deal, over the pair's lineups) has a 95% interval
    within ±precision, at most ``max_games`` per lineup; ``games_per_lineup`` is where it
    stopped and ``precision`` holds the stop. ``echo`` receives the calibration line.

    Raises
    ------
    ConfigError
        Fewer than two distinct policies, or one seat (a solo game has no opponents to rate
        against: ``mcsim evaluate`` ranks policies by score on common deals); plus everything
        ``simulate`` raises.
    """
    labels = [parse_policy(p).label() for p in policies]
    if len(labels) < 2 or len(set(labels)) != len(labels):
        raise ConfigError("a tournament needs at least two different --policy values")
    module, cfg = resolve_config(game, players, [labels[0]], variant, options)
    players = cfg.players
    if players < 2:  # refused before any game
        raise ConfigError(
            f"a tournament needs at least 2 seats; {cfg.game} with 1 player is a "
            f"solo game: rank policies by score on common deals with `mcsim "
            f"evaluate {cfg.game} -p A -p B`"
        )
    for p in labels:
        resolve_config(game, players, [p], variant, options)
    index = {p: i for i, p in enumerate(labels)}
    plan = lineups(labels, players)
    results = []
    elapsed = 0.0
    run = RunOptions(
        games=games,
        seed=seed,
        variant=variant,
        players=players,
        options=options,
        workers=workers,
        backend=backend,
        scheduler=scheduler,
        progress=progress,
    )
    stop = None
    if precision is not None:
        from mcsim import precision as prec

        max_games = prec.DEFAULT_MAX_GAMES if max_games is None else max_games
        prec.check_precision(precision, max_games)
        study = prec.play_study(
            game,
            [prec.Run(list(lineup), variant) for lineup in plan],
            [prec.Group("every pair", list(range(len(plan))), prec.pair_shares(plan))],
            precision=precision,
            max_games=max_games,
            seed=seed,
            players=players,
            options=options,
            workers=workers,
            backend=backend,
            scheduler=scheduler,
            progress=progress,
            echo=echo,
        )
        results = study.results
        stop = study.groups[0]
        games = stop["games"]
        elapsed = study.elapsed_seconds
    for lineup in plan if precision is None else ():
        r = run.simulate(game, list(lineup), keep_games=False)
        results.append(r)
        elapsed += r.summary["elapsed_seconds"] - r.summary.get("compile_seconds", 0.0)
    wins = [[r.aggregate.win_share[s] for s in range(players)] for r in results]
    pol_idx = [[index[p] for p in lineup] for lineup in plan]
    # PSEUDO_WINS per seat and lineup keep the ratings finite when a policy wins (or loses)
    # every game, where the maximum-likelihood estimate is infinite; negligible for large N.
    fit_wins = [[w + PSEUDO_WINS for w in ws] for ws in wins]
    n_pol = len(labels)
    rr, h, r_se, h_se = fit_ratings(
        [games + PSEUDO_WINS * players] * len(plan),
        pol_idx,
        fit_wins,
        n_pol,
        players,
    )
    share, count, mean_score, seat_wins = _pair_totals(plan, results, wins, index, games)
    matrix = [
        [None if a == b else stats.proportion(share[a, b], int(count[a, b])) for b in range(n_pol)]
        for a in range(n_pol)
    ]
    total_games = games * len(plan)
    return {
        "game": cfg.game,
        "games_per_lineup": games,
        "seed": seed,
        "players": players,
        "variant": dict(cfg.variant),
        "policies": labels,
        "lineups": [
            {
                "policies": list(lineup),
                "win_rate": [x["win_rate"] for x in r.summary["seats"]],
                "mean_score": [x["score"]["mean"] for x in r.summary["seats"]],
            }
            for lineup, r in zip(plan, results)
        ],
        "matrix": matrix,
        "elo": _elo_rows(labels, rr, r_se, mean_score),
        "seat_effect": _seat_rows(h, h_se, seat_wins, total_games),
        "games_per_second": total_games / elapsed if elapsed > 0 else None,
        **({} if stop is None else {"precision": stop}),
    }


def _pair_totals(plan, results, wins, index: dict, games: int):
    """Totals over the lineups: ``share[a, b]`` policy a's wins in games between a and b and
    ``count[a, b]`` those games (float64[n, n]), each policy's mean score (float64[n], points)
    and the wins per seat (float64[players])."""
    n_pol = len(index)
    players = len(plan[0])
    share = np.zeros((n_pol, n_pol))
    count = np.zeros((n_pol, n_pol))
    score_sum = np.zeros(n_pol)
    score_n = np.zeros(n_pol)
    seat_wins = np.zeros(players)
    for lineup, r, w in zip(plan, results, wins):
        present = sorted({index[p] for p in lineup})
        a, b = present
        sa = sum(w[s] for s, p in enumerate(lineup) if index[p] == a)
        share[a, b] += sa
        share[b, a] += games - sa
        count[a, b] += games
        count[b, a] += games
        for s, p in enumerate(lineup):
            score_sum[index[p]] += r.aggregate.score_sum[s]
            score_n[index[p]] += games
            seat_wins[s] += w[s]
    return share, count, score_sum / score_n, seat_wins


def _elo_rows(labels, rr, r_se, mean_score) -> list[dict]:
    """Per policy: Elo rating (1500 + ``ELO_PER_NAT`` x the fitted strength) with its 95%
    interval, and its mean score."""
    z = stats.Z95
    return [
        {
            "policy": p,
            "rating": float(1500 + ELO_PER_NAT * rr[i]),
            "low": float(1500 + ELO_PER_NAT * (rr[i] - z * r_se[i])),
            "high": float(1500 + ELO_PER_NAT * (rr[i] + z * r_se[i])),
            "mean_score": float(mean_score[i]),
        }
        for i, p in enumerate(labels)
    ]


def _seat_rows(h, h_se, seat_wins, total_games: int) -> list[dict]:
    """Per seat: Elo offset from seat 0 with its 95% interval, and the raw win rate over all
    lineups."""
    z = stats.Z95
    return [
        {
            "seat": s,
            "elo": float(ELO_PER_NAT * h[s]),
            "low": float(ELO_PER_NAT * (h[s] - z * h_se[s])),
            "high": float(ELO_PER_NAT * (h[s] + z * h_se[s])),
            "win_rate": stats.proportion(seat_wins[s], total_games),
        }
        for s in range(len(seat_wins))
    ]


def format_tournament(t: dict) -> str:
    """Readable text: the win-rate matrix, the Elo table and the seat effects."""
    labels = t["policies"]
    width = max(12, max(len(p) for p in labels) + 2)
    lines = [
        f"{t['game']} tournament: {len(t['lineups'])} lineups x {t['games_per_lineup']:,} "
        f"games, seed {t['seed']}, {t['players']} players",
        "",
        "win rate of row against column [95% CI]:",
        " " * width + "".join(f"{p:>26}" for p in labels),
    ]
    for a, p in enumerate(labels):
        cells = []
        for b in range(len(labels)):
            m = t["matrix"][a][b]
            cells.append(
                f"{'-':>26}"
                if m is None
                else f"{m['estimate']:.3f} [{m['low']:.3f}, {m['high']:.3f}]".rjust(26)
            )
        lines.append(f"{p:<{width}}" + "".join(cells))
    lines += ["", "Elo (mean 1500; 95% CI) and mean score over all seats:"]
    for e in sorted(t["elo"], key=lambda e: -e["rating"]):
        lines.append(
            f"  {e['policy']:<{width}} {e['rating']:7.1f} [{e['low']:7.1f}, "
            f"{e['high']:7.1f}]   mean score {e['mean_score']:.3f}"
        )
    lines += ["", "seat effect (Elo points relative to seat 0; raw win rate over all lineups):"]
    for s in t["seat_effect"]:
        w = s["win_rate"]
        lines.append(
            f"  seat {s['seat']}: {s['elo']:+7.1f} [{s['low']:+7.1f}, {s['high']:+7.1f}]"
            f"   win rate {w['estimate']:.4f} [{w['low']:.4f}, {w['high']:.4f}]"
        )
    return "\n".join(lines)
