"""Tournaments: every policy against every other, in every seat, on common random numbers.

For each unordered pair of policies {A, B} the lineups are every seating of the two over the
``players`` seats with both present (``itertools.product`` order: A-B and B-A for 2 players;
the 6 of A and B over 3 seats, 14 over 4, 30 over 5), so each policy sits in each seat equally
often and next to each neighbour pattern. Above ``MAX_SEATINGS`` seatings per pair (more than 5
seats) a balanced subset is played: for every count k = 1 .. players-1 of A-seats, the
``players`` cyclic rotations of A x k followed by B x (players - k), a Latin square in which
each policy sits in each seat equally often. Every lineup plays the same game indices with the
same seed, so the deals (cards, tiles, cell orders) are common to all lineups.

The ratings come from a multinomial-logit model of who wins a game (Bradley-Terry for 2 seats,
with one term per seat)::

    P(seat s wins) = exp(r[policy(s)] + h[s]) / sum_j exp(r[policy(j)] + h[j])

fitted by maximum likelihood (Newton's method) on the win shares (a shared win counts 1/k),
with 0.5 pseudo-wins added to every seat of every lineup so that the ratings stay finite when a
policy wins every game (where the plain estimate is infinite).
``r`` is reported on the Elo scale (400 / ln 10 per unit, mean 1500) and ``h`` as seat effects
in Elo points relative to seat 0, each with a 95% interval from the observed information. This
separates the seat effect from the policy effect.

Elo puts the policies on one line, which a non-transitive field (A beats B, B beats C, C beats
A) does not fit. The tournament therefore also ranks them on the meta-game, the antisymmetric
payoff ``M[a, b] = (a's win share against b) - 1/2`` (``meta_payoff``), in two ways:

* **Nash averaging** (Balduzzi, Tuyls, Perolat, Graepel, "Re-evaluating evaluation", NeurIPS
  2018): the Nash equilibrium ``p`` of the symmetric zero-sum game ``M`` (``nash_averaging``,
  a linear programme solved by ``scipy.optimize.linprog``) and each policy's rating ``M @ p``,
  its payoff against the equilibrium mixture (0 for every policy in the mixture's support,
  negative for those it leaves out). A measured matrix has one equilibrium in general; where
  it has several (exact ties) the solver returns one of them, where Balduzzi et al. take the
  maximum-entropy one.
* **alpha-Rank** (Omidshafiei et al., "alpha-Rank: Multi-Agent Evaluation by Evolution",
  Scientific Reports 2019), single population: the stationary distribution of the Markov
  chain over the policies in which a resident policy is replaced by a mutant with the Moran
  fixation probability under selection intensity ``ALPHA_RANK_ALPHA`` in a population of
  ``ALPHA_RANK_POPULATION`` (``alpha_rank``, numpy). A rock-paper-scissors cycle gets equal
  mass; a policy that everyone beats gets none.

``is_transitive`` says whether the matrix is transitive (no cycle of strict wins); the text
output points to the two meta-game rankings when it is not.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from mcsim import stats
from mcsim.errors import ConfigError
from mcsim.games import get_game
from mcsim.games.base import parse_policy, refuse_one_player_twice
from mcsim.runner import RunOptions, resolve_config
from mcsim.text import counted
from mcsim.values import on_cli

ELO_PER_NAT = 400.0 / math.log(10.0)
#: pseudo-wins added to every seat of every lineup before the rating fit (see ``tournament``)
PSEUDO_WINS = 0.5


#: seatings per pair of policies played in full (2**players - 2); above it, the Latin square
#: of rotations (module docstring). Every game of mcsim has at most 5 seats (30 seatings).
MAX_SEATINGS = 30
#: alpha-Rank's selection intensity and population size (Omidshafiei et al. 2019): large
#: enough that a win-share margin of a few hundredths decides a fixation (strong selection)
ALPHA_RANK_ALPHA = 100.0
ALPHA_RANK_POPULATION = 50


def lineups(policies: list[str], players: int) -> list[tuple[str, ...]]:
    """Seat assignments of a tournament (see the module docstring), in a fixed order.

    >>> lineups(["a", "b"], 2)
    [('a', 'b'), ('b', 'a')]
    >>> lineups(["a", "b"], 3)
    [('a', 'a', 'b'), ('a', 'b', 'a'), ('a', 'b', 'b'), ('b', 'a', 'a'), ('b', 'a', 'b'), ('b', 'b', 'a')]
    >>> len(lineups(["a", "b", "c"], 4)), len(lineups(["a", "b"], 6))
    (42, 30)
    """
    out: list[tuple[str, ...]] = []
    for i in range(len(policies)):
        for j in range(i + 1, len(policies)):
            a, b = policies[i], policies[j]
            if 2**players - 2 <= MAX_SEATINGS:
                pair = [lu for lu in itertools.product((a, b), repeat=players) if len(set(lu)) == 2]
            else:
                pair = []
                for k in range(1, players):
                    base = [a] * k + [b] * (players - k)
                    for rot in range(players):
                        lu = tuple(base[(s - rot) % players] for s in range(players))
                        if lu not in pair:
                            pair.append(lu)
            out += [lu for lu in pair if lu not in out]
    return out


def meta_payoff(share: np.ndarray) -> np.ndarray:
    """The meta-game payoff ``M[a, b] = share[a, b] - 1/2`` (float64[n, n], antisymmetric, 0 on
    the diagonal) from ``share[a, b]``, policy a's win share in its games against b (in [0, 1],
    ``share[a, b] + share[b, a] = 1``; the diagonal is ignored)."""
    m = np.asarray(share, dtype=np.float64) - 0.5
    np.fill_diagonal(m, 0.0)
    return 0.5 * (m - m.T)  # exactly antisymmetric (round-off of the shares)


def is_transitive(payoff: np.ndarray) -> tuple[bool, list[int] | None]:
    """Whether the strict wins of ``payoff`` (``M[a, b] > 0``: a beats b) are transitive; if not,
    one cycle ``[a, b, c]`` (a beats b, b beats c, c beats a; a tournament graph with a cycle has
    one of length 3).

    >>> is_transitive(np.array([[0, 1, -1], [-1, 0, 1], [1, -1, 0]]))
    (False, [0, 1, 2])
    """
    n = len(payoff)
    for a in range(n):
        for b in range(n):
            for c in range(n):
                if payoff[a, b] > 0 and payoff[b, c] > 0 and payoff[c, a] > 0:
                    return False, [a, b, c]
    return True, None


def nash_averaging(payoff: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nash averaging (Balduzzi et al. 2018) of an antisymmetric meta-game ``payoff``
    (float64[n, n]).

    Returns ``(mixture, rating)``: a Nash equilibrium ``p`` of the symmetric zero-sum game
    (float64[n], sums to 1; ``p @ payoff >= 0`` for every column, the game's value being 0),
    found by ``scipy.optimize.linprog`` (HiGHS), and ``payoff @ p``, each policy's payoff
    against it (0 on the support, negative off it).

    >>> p, r = nash_averaging(np.array([[0, 1, -1], [-1, 0, 1], [1, -1, 0]], dtype=float))
    >>> [round(float(x), 6) for x in p], [round(float(x), 6) + 0.0 for x in r]
    ([0.333333, 0.333333, 0.333333], [0.0, 0.0, 0.0])
    """
    from scipy.optimize import linprog

    m = np.asarray(payoff, dtype=np.float64)
    n = len(m)
    res = linprog(
        np.zeros(n),
        A_ub=-m.T,
        b_ub=np.zeros(n),
        A_eq=np.ones((1, n)),
        b_eq=[1.0],
        bounds=[(0, None)] * n,
        method="highs",
    )
    if not res.success:  # cannot happen for an antisymmetric matrix (value 0, always feasible)
        raise ConfigError(f"the meta-game's Nash equilibrium was not found: {res.message}")
    p = np.clip(res.x, 0.0, None)
    p /= p.sum()
    return p, m @ p


def alpha_rank(
    payoff: np.ndarray,
    alpha: float = ALPHA_RANK_ALPHA,
    population: int = ALPHA_RANK_POPULATION,
) -> np.ndarray:
    """alpha-Rank (Omidshafiei et al. 2019), single population: the stationary distribution
    (float64[n], sums to 1) of the Markov chain over the ``n`` policies of ``payoff``
    (float64[n, n], row against column).

    From a population of ``population`` players of policy s, a mutant r (each of the ``n - 1``
    others equally likely) takes over with the Moran fixation probability under the Fermi
    (exponential) selection of intensity ``alpha``::

        rho(s -> r) = 1 / (1 + sum_{l=1}^{m-1} prod_{k=1}^{l} exp(-alpha (f_r(k) - f_s(k))))
        f_r(k) = ((k - 1) M[r, r] + (m - k) M[r, s]) / (m - 1)
        f_s(k) = (k M[s, r] + (m - k - 1) M[s, s]) / (m - 1)

    with k mutants in the population of m (computed in log space).

    >>> [round(float(x), 9) for x in alpha_rank(np.array([[0, 1, -1], [-1, 0, 1], [1, -1, 0.0]]))]
    [0.333333333, 0.333333333, 0.333333333]
    """
    m_ = np.asarray(payoff, dtype=np.float64)
    n = len(m_)
    if n == 1:
        return np.ones(1)
    pop = int(population)
    k = np.arange(1, pop, dtype=np.float64)
    chain = np.zeros((n, n))
    for s in range(n):
        for r in range(n):
            if r == s:
                continue
            f_r = ((k - 1) * m_[r, r] + (pop - k) * m_[r, s]) / (pop - 1)
            f_s = (k * m_[s, r] + (pop - k - 1) * m_[s, s]) / (pop - 1)
            logs = np.concatenate([[0.0], np.cumsum(-alpha * (f_r - f_s))])
            top = logs.max()
            rho = math.exp(-(top + math.log(np.exp(logs - top).sum())))
            chain[s, r] = rho / (n - 1)
        chain[s, s] = 1.0 - chain[s].sum()
    # stationary pi: pi (chain - I) = 0 with sum(pi) = 1 (least squares of the stacked system)
    system = np.vstack([(chain - np.eye(n)).T, np.ones((1, n))])
    rhs = np.concatenate([np.zeros(n), [1.0]])
    pi = np.linalg.lstsq(system, rhs, rcond=None)[0]
    pi = np.clip(pi, 0.0, None)
    return pi / pi.sum()


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
    interval, and the raw win rate over all lineups), ``meta_game``, ``nash`` and
    ``alpha_rank`` (``meta_rankings``), ``games_per_second`` (compile time excluded).

    ``players`` (seats per game) None: the game's default seat count, except for a game that
    is solo by default (Don Quixote), where it is one seat per policy (at most the game's
    maximum), as ``simulate`` infers the seats from the policies.

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
    spec = get_game(game).SPEC  # count parameters refused in the words of every command
    labels = [parse_policy(p, spec).label() for p in policies]
    if len(labels) < 2 or len(set(labels)) != len(labels):
        what = "--policy values" if on_cli() else "policies (policies=)"
        raise ConfigError(f"a tournament needs at least two different {what}")
    if players is None and spec.default_players == 1:
        # solo by default: one seat per contestant, as simulate
        players = min(len(labels), spec.max_players)
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
    refuse_one_player_twice(labels, spec, "", "; a tournament needs different players")
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
    payoff = meta_payoff(share / np.maximum(count, 1.0))
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
        **meta_rankings(labels, payoff),
        "games_per_second": total_games / elapsed if elapsed > 0 else None,
        **({} if stop is None else {"precision": stop}),
    }


def meta_rankings(labels: list[str], payoff: np.ndarray) -> dict:
    """The meta-game keys of ``tournament``'s result from the payoff ``meta_payoff`` (see the
    module docstring): ``meta_game`` (``payoff`` rows, ``transitive``, one ``cycle`` of policy
    names or None), ``nash`` (per policy: ``mixture`` weight and ``rating``, its payoff against
    the mixture) and ``alpha_rank`` (``alpha``, ``population``, per policy ``mass``)."""
    transitive, cycle = is_transitive(payoff)
    mix, rating = nash_averaging(payoff)
    mass = alpha_rank(payoff)
    return {
        "meta_game": {
            "payoff": [[float(x) for x in row] for row in payoff],
            "transitive": transitive,
            "cycle": None if cycle is None else [labels[i] for i in cycle],
        },
        "nash": [
            {"policy": p, "mixture": float(mix[i]), "rating": float(rating[i])}
            for i, p in enumerate(labels)
        ],
        "alpha_rank": {
            "alpha": ALPHA_RANK_ALPHA,
            "population": ALPHA_RANK_POPULATION,
            "mass": [{"policy": p, "mass": float(mass[i])} for i, p in enumerate(labels)],
        },
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
        f"{t['game']} tournament: {len(t['lineups'])} lineups x "
        f"{counted(t['games_per_lineup'], 'game')}, seed {t['seed']}, {t['players']} players",
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
    if "nash" in t:
        lines += ["", *_format_meta(t)]
    lines += ["", "seat effect (Elo points relative to seat 0; raw win rate over all lineups):"]
    for s in t["seat_effect"]:
        w = s["win_rate"]
        lines.append(
            f"  seat {s['seat']}: {s['elo']:+7.1f} [{s['low']:+7.1f}, {s['high']:+7.1f}]"
            f"   win rate {w['estimate']:.4f} [{w['low']:.4f}, {w['high']:.4f}]"
        )
    return "\n".join(lines)


def _format_meta(t: dict) -> list[str]:
    """The meta-game lines of ``format_tournament``: transitivity, Nash averaging, alpha-Rank."""
    meta = t["meta_game"]
    width = max(12, max(len(p) for p in t["policies"]) + 2)
    if meta["transitive"]:
        lines = ["meta-game (win share - 1/2): transitive, so Elo's order is the order of strength"]
    else:
        cyc = " beats ".join(meta["cycle"] + meta["cycle"][:1])
        lines = [
            f"meta-game (win share - 1/2): NOT transitive ({cyc}): Elo's single scale cannot "
            "rank a cycle; rank by Nash averaging or alpha-Rank:"
        ]
    ar = t["alpha_rank"]
    mass = {m["policy"]: m["mass"] for m in ar["mass"]}
    lines.append(
        f"  {'policy':<{width}} {'Nash mixture':>12} {'Nash rating':>12} "
        f"{'alpha-Rank mass':>16}   (Balduzzi et al. 2018; Omidshafiei et al. 2019, "
        f"alpha={ar['alpha']:g}, m={ar['population']})"
    )
    for e in sorted(t["nash"], key=lambda e: (-round(mass[e["policy"]], 9), -e["rating"])):
        lines.append(
            f"  {e['policy']:<{width}} {e['mixture']:12.4f} {e['rating'] + 0.0:+12.4f} "
            f"{mass[e['policy']]:16.4f}"
        )
    return lines
