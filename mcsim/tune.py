"""Fit a policy's numeric parameters with CMA-ES and validate the result on fresh deals.

``mcsim tune GAME -p POLICY[:k=v,...] [--against OPPONENT ...] --budget N`` (``tune``).

Search space
------------
Every numeric parameter of the policy (``ParamSpec`` in ``mcsim/games/<game>.py``; ``mcsim
games`` lists them) is tuned, except those given a value in ``-p`` (fixed); ``--param NAME``
tunes only the named ones (a ``-p`` value of a named parameter is then its starting value).
A parameter's search box is its documented range ``[low, high]`` narrowed to ``start +/- w``
with ``w = max(2 |start|, 1)`` (the documented ranges are often unbounded or very wide);
``--param NAME=LOW:HIGH`` sets the box explicitly (inside the documented range). Integer
parameters (``ParamSpec.integer``) take integer values only.

Optimiser
---------
CMA-ES from the ``cma`` package (Hansen's reference implementation). Continuous parameters are
normalised to ``[0, 1]``; integer ones are kept on their integer lattice (``[0, high - low]``,
cma's ``integer_variables`` handling, initial step 0.15 of the box). CMA minimises
``-objective``; its random numbers come from a ``numpy.random.Generator`` seeded from the root
seed; a resumed run rebuilds the optimiser by telling it the saved generations again, so it
continues the same sequence. The
reported parameters are the final mean of the search distribution (less noisy than the best
single candidate, whose score carries the most luck).

Objective and common random numbers
-----------------------------------
The tuned policy plays against the field (``--against``, default: the starting policy) in every
seat in turn: with K players each deal is played K times, the tuned policy in seat r in the
r-th seating, the field policies in the other seats in the order given. A deal's value is the
mean over its K seatings of the tuned seat's win share (``win_share``, a shared win counts
1/k), score (``score``) or score minus the mean score of the other seats (``margin``).
Generation g plays deals (game indices) ``g*m .. g*m + m - 1`` of root seed ``--seed`` for every
candidate, so the candidates of one generation are compared on the same deals (common random
numbers, ``shared/DESIGN.md``) and each generation sees fresh deals.

Validation
----------
After tuning, the tuned and the starting policy play the same fresh deals: game indices
``VALIDATION_FIRST + j`` (2**40 + j), which tuning never reaches (a budget is at most 10**12
games), so validation and tuning games never share a per-game seed (game seeds are a
bijective hash of the index for a fixed root seed, ``kernels.rng.game_seed``). With the
starting policy in every seat, its win share is exactly 1/K and its margin exactly 0 on every
deal (the K seatings are the same game), so only the tuned policy is played.

Budget
------
``budget`` counts every game played, validation included: about 20% goes to validation, the
rest to ``generations x popsize x K seatings x deals``; what rounding leaves over goes to
validation. Progress (one line per generation) goes to ``echo``.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from mcsim import stats
from mcsim.errors import BadValueError, ConfigError, InputFileError, McsimError, OutputWriteError
from mcsim.games import get_game
from mcsim.games.base import (
    FORBID_MASK_PREFIX,
    ParamSpec,
    PolicyChoice,
    parse_policy,
    players_range,
)
from mcsim.runner import (
    GAMES,
    MAX_GAMES,
    SEED,
    Executor,
    chunk_plan,
    resolve_config,
    resolve_execution,
    versions,
    write_atomic,
)
from mcsim.text import counted
from mcsim.values import Whole, is_number_text, label, real_number

OBJECTIVES = ("win_share", "score", "margin")
#: first game index of the validation deals (tuning uses indices below MAX_GAMES < 2**40)
VALIDATION_FIRST = 2**40
#: share of the budget kept for validation
VALIDATION_SHARE = 0.2
#: default deals per candidate and generation are chosen for at most this many generations
MAX_GENERATIONS = 40
#: ... and at least this many deals per candidate and generation
MIN_DEALS = 16
#: generations allowed with an explicit --deals (the evaluations are kept for the CSV)
MAX_RUN_GENERATIONS = 10_000
#: initial CMA step size, as a fraction of each search box
SIGMA0 = 0.15
#: default --budget per game (games), sized so that tuning the game's heuristic finishes in
#: well under 10 minutes on 2 idle cores (see benchmarks/RESULTS.md)
DEFAULT_BUDGETS = {
    "sacred-hill": 1_000_000,
    "don-quixote": 1_000_000,
    "el-grande": 100_000,
    "carcassonne": 100_000,
    "thurn-and-taxis": 1_000_000,
}
STATE_NAME = "state.json"
SETTINGS_NAME = "tune.json"
CSV_NAME = "evaluations.csv"
PNG_NAME = "objective.png"


@dataclasses.dataclass(frozen=True)
class TunedParam:
    """One tuned parameter: its search box ``[low, high]`` and starting value."""

    name: str
    low: float
    high: float
    start: float
    integer: bool

    def to_value(self, y: float) -> float:
        """Parameter value of CMA coordinate ``y`` (``[0, 1]``; integers: ``[0, high-low]``)."""
        if self.integer:
            return float(min(max(self.low + round(y), self.low), self.high))
        return float(min(max(self.low + y * (self.high - self.low), self.low), self.high))

    def to_coord(self, v: float) -> float:
        if self.integer:
            return float(v - self.low)
        return float((v - self.low) / (self.high - self.low))


class _Randn:
    """``randn(*shape)`` for cma, drawing from a seeded ``numpy.random.Generator``.

    Pickled with the optimiser (its generator state included), so a resumed run draws the same
    numbers as an uninterrupted one; cma's default would use the global ``np.random``."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)

    def __call__(self, *shape):
        return self.rng.standard_normal(shape if shape else None)


def _finite(x: float) -> float | None:
    """``x``, or None for an unbounded end of a documented range (JSON has no infinity)."""
    return float(x) if math.isfinite(x) else None


def _fmt(v: float, integer: bool) -> str:
    return str(int(round(v))) if integer else f"{v:.4g}"


def policy_text(name: str, values: dict[str, float], integer: dict[str, bool]) -> str:
    """``name:k=v,...`` (4 significant digits; integers as integers), ready for ``-p``.

    >>> policy_text("route", {"close_len": 5.0, "w_open": 0.123456}, {"close_len": True})
    'route:close_len=5,w_open=0.1235'
    """
    if not values:
        return name
    return name + ":" + ",".join(f"{k}={_fmt(v, integer.get(k, False))}" for k, v in values.items())


def _parse_param_option(text: str) -> tuple[str, tuple[float, float] | None]:
    name, eq, rng = text.partition("=")
    name = name.strip()
    if not name:
        raise ConfigError(f"--param {text!r}: give NAME or NAME=LOW:HIGH")
    if not eq:
        return name, None
    lo, colon, hi = rng.partition(":")
    try:  # the one number rule (``mcsim.values``): 1e400 is refused as written, not as inf
        box = (real_number(lo, "LOW"), real_number(hi, "HIGH"))
    except BadValueError as e:
        if is_number_text(lo) and is_number_text(hi):  # numbers, but not finite ones
            raise ConfigError(f"--param {text!r}: {e}") from None
        raise ConfigError(f"--param {text!r}: the range must be LOW:HIGH (two numbers)") from None
    if not colon or box[0] >= box[1]:
        raise ConfigError(f"--param {text!r}: the range must be LOW:HIGH with LOW < HIGH")
    return name, box


def search_space(
    specs: Sequence[ParamSpec], given: dict[str, float], params: Sequence[str] | None, policy: str
) -> list[TunedParam]:
    """The tuned parameters with their boxes (see the module docstring).

    Raises
    ------
    ConfigError
        Unknown, repeated or fixed parameter names, a box outside the documented range or
        excluding nothing (LOW >= HIGH), an integer box without two integers, no parameter left.
    """
    # restricted play's masks are option sets, not numbers to tune (set them with forbid=)
    specs = [p for p in specs if not p.name.startswith(FORBID_MASK_PREFIX)]
    by_name = {p.name: p for p in specs}
    explicit: dict[str, tuple[float, float] | None] = {}
    for text in params or ():
        name, box = _parse_param_option(text)
        if name not in by_name:
            known = ", ".join(by_name) or "(none)"
            raise ConfigError(f"policy {policy!r} has no parameter {name!r}; it has: {known}")
        if name in explicit:
            raise ConfigError(f"--param {name} is given twice")
        explicit[name] = box
    names = list(explicit) if explicit else [p.name for p in specs if p.name not in given]
    if not names:
        raise ConfigError(
            f"policy {policy!r} has no numeric parameter left to tune"
            + (" (all are fixed in -p)" if specs else "")
        )
    out = []
    for name in names:
        p = by_name[name]
        start = float(given.get(name, p.default))
        box = explicit.get(name)
        if box is None:
            w = max(2.0 * abs(start), 1.0)
            lo, hi = max(p.low, start - w), min(p.high, start + w)
            if p.integer:
                lo, hi = math.ceil(lo), math.floor(hi)
        else:
            lo, hi = box
            if lo < p.low or hi > p.high:
                raise ConfigError(
                    f"--param {name}={lo:g}:{hi:g} is outside its documented range "
                    f"[{p.low:g}, {p.high:g}]"
                )
            if p.integer and (lo != int(lo) or hi != int(hi)):
                raise ConfigError(
                    f"--param {name}={lo:g}:{hi:g}: {name} is an integer; give whole-number bounds"
                )
        if not lo < hi:
            raise ConfigError(
                f"parameter {name} of {policy!r} has no range to search ([{p.low:g}, {p.high:g}])"
            )
        start = min(max(start, lo), hi)
        if p.integer:
            start = float(round(start))
        out.append(TunedParam(name, float(lo), float(hi), start, bool(p.integer)))
    return out


# ---------------------------------------------------------------- playing games
def _lineups(tuned: PolicyChoice, field: list[PolicyChoice], players: int):
    """The K seatings: the tuned policy in seat r, the field in the other seats in order."""
    if players == 1:
        return [[tuned]]
    return [field[:r] + [tuned] + field[r:] for r in range(players)]


def _play(task):
    """Play one chunk of one seating (in a worker); returns ``(key, scores, shares)``.

    ``scores`` and ``shares`` are float64[n, seats] (points; win shares, a tie counts 1/k)."""
    key, module_name, prep, first, n, seed = task
    module = importlib.import_module(module_name)
    cols = module.play_chunk(prep, first, n, seed)
    scores = np.asarray(cols["score"], dtype=np.float64)
    _, shares, _ = stats.ranks_and_shares(scores, cols.get("win_share"))
    return key, scores, np.asarray(shares, dtype=np.float64)


class _Setup:
    """The resolved run: game module, seatings, objective; plays deals for a policy."""

    def __init__(self, game, policy, against, players, objective, variant, options, seed):
        game_spec = get_game(game).SPEC  # count parameters refused as every command does
        start = parse_policy(policy, game_spec) if isinstance(policy, str) else policy
        module, _ = resolve_config(game, 1 if players == 1 else None, [start], variant, options)
        spec = module.SPEC
        self.module = module
        self.start = start
        self.pspec = spec.policy(start.name)
        against = [parse_policy(a, game_spec) if isinstance(a, str) else a for a in (against or [])]
        if players is None:
            players = 1 + len(against) if len(against) > 1 else spec.default_players
            if not spec.min_players <= players <= spec.max_players:
                raise ConfigError(
                    f"{len(against)} --against policies make {players} players; "
                    f"{spec.id} is for {players_range(spec)} players"
                )
        if players == 1 and against:
            raise ConfigError("--against needs at least 2 players (a solo game has no opponents)")
        if players > 1:
            field = against or [start]
            if len(field) == 1:
                field = field * (players - 1)
            if len(field) != players - 1:
                raise ConfigError(
                    f"{len(field)} --against policies for {players} players; give "
                    f"one (it fills every other seat) or {players - 1}"
                )
        else:
            field = []
        self.field = field
        self.players = players
        if objective is None:
            objective = "score" if players == 1 else "win_share"
        if objective not in OBJECTIVES:
            raise ConfigError(
                f"unknown objective {objective!r}; choose from: {', '.join(OBJECTIVES)}"
            )
        if players == 1 and objective != "score":
            raise ConfigError(
                f"--objective {objective} needs at least 2 players; a solo game "
                f"is tuned on its score"
            )
        self.objective = objective
        # resolve every seating once: validates players, variants, options and the field
        self.configs = [
            resolve_config(game, players, lu, variant, options)[1]
            for lu in _lineups(start, field, players)
        ]
        self.variant = dict(self.configs[0].variant)
        self.options = dict(options or {})
        self.seed = seed
        # the starting policy's per-deal objective is a constant when it fills every seat
        vec = lambda c: (c.name, tuple(spec.policy(c.name).vector(c.params)))  # noqa: E731
        same = all(vec(f) == vec(start) for f in field)
        self.start_exact = None
        if players > 1 and same and objective == "win_share":
            self.start_exact = 1.0 / players
        elif players > 1 and same and objective == "margin":
            self.start_exact = 0.0

    @property
    def seatings(self) -> int:
        return self.players

    def preps(self, choice: PolicyChoice):
        return [
            self.module.prepare(dataclasses.replace(cfg, policies=lu))
            for cfg, lu in zip(self.configs, _lineups(choice, self.field, self.players))
        ]

    def tasks(self, key, choice: PolicyChoice, first: int, n: int):
        """Tasks playing deals ``first .. first+n-1`` in every seating of ``choice``."""
        out = []
        plan = chunk_plan(self.module, n, min(n, int(self.module.CHUNK_SIZE)))
        for r, prep in enumerate(self.preps(choice)):
            for f, k in plan:
                out.append(((key, r, f), self.module.__name__, prep, first + f, k, self.seed))
        return out

    def deal_values(self, results, n: int) -> dict[str, np.ndarray]:
        """Per-deal arrays from the results of ``tasks(...)`` of one policy (in task order).

        Returns ``{"objective": float64[n], "score": float64[n, K] (tuned seat r's score in
        seating r), "share": float64[n, K], "field": float64[n, K] (mean score of the field
        in seat s over the seatings where it sits there)}``."""
        K = self.players
        score = np.zeros((n, K))
        share = np.zeros((n, K))
        field = np.zeros((n, K))
        margin = np.zeros((n, K))
        for (_key, r, f), s, w in results:
            rows = slice(f, f + s.shape[0])
            score[rows, r] = s[:, r]
            share[rows, r] = w[:, r]
            if K > 1:
                others = np.delete(s, r, axis=1)
                margin[rows, r] = s[:, r] - others.mean(axis=1)
                for seat in range(K):
                    if seat != r:
                        field[rows, seat] += s[:, seat] / (K - 1)
        obj = {"score": score, "win_share": share, "margin": margin}[self.objective].mean(axis=1)
        return {"objective": obj, "score": score, "share": share, "field": field}


# ---------------------------------------------------------------- budget
def plan_budget(
    budget: int, popsize: int, seatings: int, start_exact: bool, deals: int | None = None
) -> dict:
    """Split ``budget`` games into generations and validation (see the module docstring).

    Returns ``{"generations", "deals", "tuning_games", "validation_deals",
    "validation_games"}``; raises ``ConfigError`` when the budget cannot fit one generation of
    2 deals plus 2 validation deals (the message gives the minimum), or more than
    ``MAX_RUN_GENERATIONS`` generations (give more ``deals``).

    >>> plan_budget(100_000, popsize=10, seatings=3, start_exact=True)["generations"]
    40
    """
    per_eval = popsize * seatings  # games per deal of one generation
    per_val = seatings * (1 if start_exact else 2)
    minimum = 2 * per_eval + 2 * per_val
    budget = GAMES.check(budget, label("budget"))
    if budget < minimum:
        raise ConfigError(
            f"--budget {budget:,} is too small: one generation ({popsize} "
            f"candidates x {seatings} seatings x 2 deals) plus 2 validation deals "
            f"need at least {counted(minimum, 'game')}"
        )
    if deals is not None:
        deals = Whole(1, MAX_GAMES, None, f"{MAX_GAMES:,}").check(deals, label("deals"))
    val = max(2, int(budget * VALIDATION_SHARE) // per_val)
    units = (budget - val * per_val) // per_eval  # deals per candidate over the whole run
    if deals is None:
        gens = min(MAX_GENERATIONS, max(1, units // MIN_DEALS))
        deals = units // gens
    else:
        gens = units // deals
        if gens > MAX_RUN_GENERATIONS:
            raise ConfigError(
                f"--deals {deals} makes {gens:,} generations; at most "
                f"{MAX_RUN_GENERATIONS:,} (give more --deals or a smaller --budget)"
            )
        if gens < 1:
            raise ConfigError(
                f"--budget {budget:,} cannot fit one generation of --deals {deals} "
                f"({popsize} candidates x {seatings} seatings x {deals} deals plus "
                f"validation = {deals * per_eval + val * per_val:,} games)"
            )
    tuning = gens * deals * per_eval
    val = (budget - tuning) // per_val
    return {
        "generations": int(gens),
        "deals": int(deals),
        "tuning_games": int(tuning),
        "validation_deals": int(val),
        "validation_games": int(val * per_val),
    }


# ---------------------------------------------------------------- optimiser
def new_optimizer(space: list[TunedParam], popsize: int | None, seed: int):
    """A ``cma.CMAEvolutionStrategy`` over the search space (see the module docstring)."""
    import cma

    x0 = [p.to_coord(p.start) for p in space]
    ints = [i for i, p in enumerate(space) if p.integer]
    lower = [-0.5 if p.integer else 0.0 for p in space]
    upper = [(p.high - p.low) + 0.5 if p.integer else 1.0 for p in space]
    opts = {
        "bounds": [lower, upper],
        "CMA_stds": [(p.high - p.low) if p.integer else 1.0 for p in space],
        "integer_variables": ints,
        "randn": _Randn(seed),
        "seed": float("nan"),
        "verbose": -9,
        "verb_log": 0,
        "verb_disp": 0,
        # the budget ends the run; noisy objectives must not trip the flat-fitness/tol stops
        "tolfun": 0,
        "tolfunhist": 0,
        "tolx": 0,
        "tolflatfitness": 10**9,
        "tolstagnation": 10**9,
        "tolfunrel": 0,
    }
    if popsize is not None:
        opts["popsize"] = int(popsize)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cma.CMAEvolutionStrategy(x0, SIGMA0, opts)


def default_popsize(dimension: int) -> int:
    """cma's default population size, ``4 + floor(3 ln d)``."""
    return 4 + int(3 * math.log(dimension))


def _values(space, y) -> dict[str, float]:
    return {p.name: p.to_value(float(c)) for p, c in zip(space, y)}


def run_cma(
    space: list[TunedParam],
    evaluate: Callable[[list[dict], int], np.ndarray],
    generations: int,
    popsize: int | None = None,
    seed: int = 0,
    state: dict | None = None,
    save: Callable[[dict], None] | None = None,
    on_generation: Callable[[dict], None] | None = None,
) -> dict:
    """Maximise ``evaluate`` with CMA-ES for ``generations`` generations.

    Parameters
    ----------
    space : list of TunedParam
    evaluate : callable(candidates: list of {name: value}, generation: int) -> float64[popsize]
        Objective of every candidate of one generation (larger is better).
    state : dict, optional
        A state saved by ``save`` (resume): continue after its last finished generation.
    save : callable(state), optional
        Called after every generation with the state (JSON-able: generation, objectives per
        generation, rows, means).
    on_generation : callable(info), optional
        Progress: ``{"generation", "generations", "values", "objectives", "mean"}``.

    Returns
    -------
    dict
        ``{"best": {name: value} (the final CMA mean), "rows": [{"generation", "candidate",
        "objective", name: value, ...}], "state": state}``.
    """
    import warnings

    es = new_optimizer(space, popsize, seed)
    if state is None:
        state = {"generation": 0, "objectives": [], "rows": [], "means": []}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # resume: the optimiser is a function of (space, popsize, seed) and the objectives told
        # so far, so it is rebuilt by asking and telling the saved generations again (no
        # pickled object is ever loaded)
        for g, objs in enumerate(state["objectives"]):
            ys = es.ask()
            saved = [r for r in state["rows"] if r.get("generation") == g]
            cands = [_values(space, y) for y in ys]
            if (
                len(objs) != len(ys)
                or len(saved) != len(ys)
                or any(any(r.get(k) != v for k, v in c.items()) for r, c in zip(saved, cands))
            ):
                raise ConfigError(
                    f"cannot resume: generation {g + 1} of the saved run is not "
                    "what this optimiser proposes (another cma or numpy version?)"
                )
            es.tell(ys, [-float(v) for v in objs])
        while state["generation"] < generations:
            g = state["generation"]
            ys = es.ask()
            cands = [_values(space, y) for y in ys]
            obj = np.asarray(evaluate(cands, g), dtype=np.float64)
            es.tell(ys, [-float(v) for v in obj])
            state["objectives"].append([float(v) for v in obj])
            mean = _values(space, _favorite(es))
            for i, (c, v) in enumerate(zip(cands, obj)):
                state["rows"].append({"generation": g, "candidate": i, "objective": float(v), **c})
            state["means"].append(mean)
            state["generation"] = g + 1
            if save is not None:
                save(state)
            if on_generation is not None:
                on_generation(
                    {
                        "generation": g,
                        "generations": generations,
                        "values": cands,
                        "objectives": obj,
                        "mean": mean,
                    }
                )
    return {"best": _values(space, _favorite(es)), "rows": state["rows"], "state": state}


def _favorite(es) -> np.ndarray:
    """The distribution mean in parameter space (``es.mean`` is cma's internal genotype, which
    may lie outside the box; the boundary transformation maps it inside)."""
    return np.asarray(es.result.xfavorite, dtype=np.float64)


# ---------------------------------------------------------------- the command
def tune(
    game: str,
    policy: str,
    against: Sequence[str] | None = None,
    players: int | None = None,
    budget: int | None = None,
    seed: int = 0,
    params: Sequence[str] | None = None,
    objective: str | None = None,
    variant: dict | None = None,
    options: dict | None = None,
    workers: int | None = 1,
    backend: str | None = None,
    scheduler: str | None = None,
    out_dir: str | os.PathLike | None = None,
    resume: bool = False,
    deals: int | None = None,
    popsize: int | None = None,
    echo: Callable[[str], None] | None = None,
    on_generation: Callable[[dict], None] | None = None,
    dry_run: bool = False,
    force: bool = False,
) -> dict:
    """Tune ``policy``'s numeric parameters and validate the result on fresh deals.

    Parameters
    ----------
    game : str
        Game id.
    policy : str
        ``name`` or ``name:k=v,...``: the starting policy; given values are fixed (not tuned)
        unless ``params`` names them.
    against : list of str, optional
        The field: one policy for every other seat, or one per other seat (default: the
        starting policy).
    players : int, optional
        Seats (default: 1 + number of ``against`` when more than one, else the game's default).
    budget : int, optional
        Total games, validation included (default ``DEFAULT_BUDGETS[game]``).
    seed : int
        Root seed; tuning plays game indices ``0 ..`` and validation ``2**40 ..`` of it.
    params : list of str, optional
        ``NAME`` or ``NAME=LOW:HIGH``: tune only these (default: all not fixed in ``policy``).
    objective : {"win_share", "score", "margin"}, optional
        Default ``win_share``, or ``score`` with one player.
    variant, options, workers, backend, scheduler
        As for ``mcsim.simulate``; results do not depend on ``workers`` or ``backend``.
    out_dir : path, optional
        Write ``tune.json``, ``evaluations.csv``, ``objective.png`` and ``state.json`` (the
        optimiser state after every generation, for ``resume``) here.
    resume : bool
        Continue the interrupted run in ``out_dir`` (same result as an uninterrupted run).
    deals : int, optional
        Deals per candidate and generation (default: from the budget, see ``plan_budget``).
    popsize : int, optional
        CMA population size (default ``4 + floor(3 ln d)`` for d tuned parameters).
    echo : callable(str), optional
        Receives one progress line per generation.
    on_generation : callable(info), optional
        Called after each generation (and its state saved) with ``run_cma``'s progress info.
    dry_run : bool
        Check everything and return ``{"settings": ...}`` (search space, budget plan, seeds)
        without playing a game or writing a file.
    force : bool
        Replace an earlier tuning run in ``out_dir`` (``--force``; not with ``resume``): the
        new run is written into a hidden folder inside it and takes the earlier run's place
        only when the run has finished, so a rejected, failed or interrupted run leaves the
        earlier one as it was.

    Returns
    -------
    dict
        ``{"settings": {...}, "best": {name: value}, "policy": "name:k=v,...", "start_policy",
        "validation": {...}, "evaluations": n, "games_played", "elapsed_seconds"}`` (see
        ``validate`` for the validation block).

    Raises
    ------
    UnknownGameError, UnknownPolicyError, UnknownVariantError, ConfigError, DataFileError
        Bad names, parameter names or boxes, budgets, players, objectives, an ``out_dir`` that
        is not empty (without ``resume``) or holds a different run (with it).
    """
    t0 = time.perf_counter()
    _check_seed_and_popsize(seed, popsize)
    workers, backend = resolve_execution(workers, backend, scheduler, resume, out_dir)
    setup = _Setup(game, policy, against, players, objective, variant, options, seed)
    start = setup.start
    space = search_space(setup.pspec.params, start.params, params, start.name)
    tuned_names = {p.name for p in space}
    fixed = {k: v for k, v in start.params.items() if k not in tuned_names}
    integer = {p.name: bool(p.integer) for p in setup.pspec.params}
    lam = popsize if popsize is not None else default_popsize(len(space))
    if budget is None:
        budget = DEFAULT_BUDGETS.get(setup.module.SPEC.id, 100_000)
    plan = plan_budget(budget, lam, setup.seatings, setup.start_exact is not None, deals)
    settings = _settings(setup, space, fixed, integer, budget, seed, lam, plan)
    if dry_run:
        return {"settings": settings}
    out = Path(out_dir) if out_dir is not None else None
    replacing = None  # with force over an earlier run: its RunReplacement
    if out is not None and force:
        from mcsim.outputs import TUNE_FOLDER, RunReplacement, check_run_folder

        if resume:
            raise ConfigError("--force starts over and --resume continues: give one of them")
        if check_run_folder(out, "--out", TUNE_FOLDER, False, True):
            replacing = RunReplacement(out, TUNE_FOLDER)
            out = replacing.stage
    try:
        result = _tune_into(
            setup, space, fixed, integer, lam, plan, budget, seed, settings, out, resume, echo,
            on_generation, workers, backend, scheduler, t0,
        )  # fmt: skip
        if replacing is not None:
            replacing.commit()  # the earlier run is replaced by this one, now it is whole
    except OutputWriteError as e:  # name the user's folder, not the one staged beside it
        if replacing is None:
            raise
        raise replacing.in_target_names(e) from None
    finally:
        if replacing is not None:
            replacing.abort()
    return result


def _tune_into(
    setup, space, fixed, integer, lam, plan, budget, seed, settings, out, resume, echo,
    on_generation, workers, backend, scheduler, t0,
) -> dict:  # fmt: skip
    """The tuning run of ``tune`` once everything is checked, writing into ``out``."""
    start = setup.start
    state = _prepare_out(out, settings, resume) if out is not None else None
    if state is not None and echo is not None:
        echo(f"resuming after generation {state['generation']} of {plan['generations']}")

    def save(st):
        data = json.dumps(st)
        write_atomic(out / STATE_NAME, lambda tmp: Path(tmp).write_text(data + "\n"))
        _write_csv(out / CSV_NAME, st["rows"], space, settings)

    # compile (or load the cache) in this process before any worker starts
    setup.module.play_chunk(setup.preps(start)[0], 0, 1, seed)
    ex = Executor(backend, workers, scheduler)
    try:
        generation = _Generation(setup, ex, fixed, integer, lam, plan, budget, echo, on_generation)
        res = run_cma(
            space,
            generation.evaluate,
            plan["generations"],
            lam,
            seed,
            state,
            save if out is not None else None,
            generation.progress,
        )
        best = {**fixed, **res["best"]}
        best_text = policy_text(start.name, best, integer)
        if echo is not None:
            echo(f"validating {best_text} on {plan['validation_deals']:,} fresh deals")
        validation = validate(
            setup, ex, parse_policy(best_text), start, plan["validation_deals"], echo
        )
    finally:
        ex.close()
    result = {
        "settings": settings,
        "best": best,
        "policy": best_text,
        "at_box_edge": _at_box_edge(space, setup.pspec.params, best),
        "start_policy": settings["start_policy"],
        "validation": validation,
        "evaluations": len(res["rows"]),
        "games_played": plan["tuning_games"] + plan["validation_games"],
        "elapsed_seconds": time.perf_counter() - t0,
        "versions": tune_versions(),
    }
    if out is not None:
        _write_outputs(out, result, res["rows"], space)
    return result


def _check_seed_and_popsize(seed, popsize) -> None:
    """``ConfigError`` unless ``seed`` is a whole number in [0, 2**64) and ``popsize`` is None
    or at least 2."""
    SEED.check(seed, label("seed"))
    if popsize is not None:
        Whole(2, rule="at least 2").check(popsize, label("popsize"))


def _settings(setup, space, fixed, integer, budget, seed, lam, plan) -> dict:
    """The run's settings block (``tune.json``, ``--dry-run``; compared on ``--resume``)."""
    doc_range = {p.name: (p.low, p.high) for p in setup.pspec.params}
    start_values = {p.name: p.start for p in space}
    return {
        "game": setup.module.SPEC.id,
        "policy": setup.start.name,
        "start_policy": policy_text(setup.start.name, {**fixed, **start_values}, integer),
        "fixed": fixed,
        "against": [f.label() for f in setup.field],
        "players": setup.players,
        "objective": setup.objective,
        "budget": int(budget),
        "seed": int(seed),
        "variant": setup.variant,
        "options": {k: str(v) for k, v in setup.options.items()},
        "optimizer": "cma (CMA-ES)",
        "popsize": int(lam),
        "sigma0": SIGMA0,
        "search_space": [
            {
                "name": p.name,
                "low": p.low,
                "high": p.high,
                "start": p.start,
                "integer": p.integer,
                "range": [_finite(doc_range[p.name][0]), _finite(doc_range[p.name][1])],
            }
            for p in space
        ],
        **plan,
        "seatings": setup.seatings,
        "tuning_game_indices": [0, plan["generations"] * plan["deals"]],
        "validation_game_indices": [VALIDATION_FIRST, VALIDATION_FIRST + plan["validation_deals"]],
    }


class _Generation:
    """One CMA generation's work: ``evaluate`` plays every candidate on the generation's deals
    (all seatings, through the executor) and returns their objectives; ``progress`` reports
    the generation (``echo``, ``on_generation``)."""

    def __init__(self, setup, ex, fixed, integer, lam, plan, budget, echo, on_generation):
        self.setup = setup
        self.ex = ex
        self.fixed = fixed
        self.integer = integer
        self.lam = lam
        self.plan = plan
        self.budget = budget
        self.echo = echo
        self.on_generation = on_generation

    def evaluate(self, cands, g) -> np.ndarray:
        """Mean objective per candidate (float64[len(cands)]) on generation ``g``'s deals."""
        first, m = g * self.plan["deals"], self.plan["deals"]
        tasks = []
        for i, c in enumerate(cands):
            choice = PolicyChoice(self.setup.start.name, {**self.fixed, **c})
            tasks += self.setup.tasks(i, choice, first, m)
        results = list(self.ex.imap(_play, tasks))
        objs = []
        for i in range(len(cands)):
            mine = [res for res in results if res[0][0] == i]
            objs.append(float(self.setup.deal_values(mine, m)["objective"].mean()))
        return np.array(objs)

    def progress(self, info) -> None:
        g = info["generation"]
        played = (g + 1) * self.lam * self.setup.seatings * self.plan["deals"]
        obj = info["objectives"]
        if self.echo is not None:
            mean = policy_text(self.setup.start.name, info["mean"], self.integer)
            self.echo(
                f"generation {g + 1}/{self.plan['generations']}: {played:,}/{self.budget:,} "
                f"games, {self.setup.objective} mean {obj.mean():.4f} best {obj.max():.4f}; "
                f"search mean {mean}"
            )
        if self.on_generation is not None:
            self.on_generation(info)


def _at_box_edge(space, specs, best) -> list[str]:
    """Tuned values at an edge of their box where the documented range goes further."""
    doc = {q.name: q for q in specs}
    tol = {p.name: 0.01 * (p.high - p.low) for p in space}
    return [
        p.name
        for p in space
        if (best[p.name] - p.low <= tol[p.name] and p.low > doc[p.name].low)
        or (p.high - best[p.name] <= tol[p.name] and p.high < doc[p.name].high)
    ]


def _write_outputs(out: Path, result: dict, rows, space) -> None:
    """``evaluations.csv``, ``tune.json`` and ``objective.png`` of a finished run."""
    settings = result["settings"]
    _write_csv(out / CSV_NAME, rows, space, settings)
    text = json.dumps(_jsonable(result), indent=1)
    write_atomic(out / SETTINGS_NAME, lambda tmp: Path(tmp).write_text(text + "\n"))
    _write_png(out / PNG_NAME, rows, settings, result["validation"])


def validate(
    setup: _Setup,
    ex: Executor,
    tuned: PolicyChoice,
    start: PolicyChoice,
    n_deals: int,
    echo: Callable[[str], None] | None = None,
) -> dict:
    """Tuned against starting policy on deals ``VALIDATION_FIRST ..`` (never used in tuning).

    Returns
    -------
    dict
        ``{"first_game_index", "deals", "tuned": {mean, low, high, sd, n} (objective per deal),
        "start": same, or {"mean": exact value, "exact": true}, "difference": paired tuned minus
        start {mean, low, high, sd, n}, "beats_start": bool (the interval lies above 0),
        "tuned_score_by_seat": [{mean, low, high, sd, n}] (seat r: the tuned policy sitting
        there), "tuned_win_share_by_seat": [{estimate, low, high}] (Wilson),
        "field_score_by_seat": [float] (mean score of the field in each seat),
        "start_score_by_seat" (when the start is played)}``. Means: t 95% intervals.
    """
    # deals per round of work: 8 chunks per seating (bounded memory, both workers busy)
    batch = 8 * max(1, min(int(setup.module.CHUNK_SIZE), 20_000))
    acc = {"tuned": None, "start": None, "diff": None}
    seat_mom = [None] * setup.players
    start_mom = [None] * setup.players
    share_sum = np.zeros(setup.players)
    field_sum = np.zeros(setup.players)

    def add(a, b):
        return b if a is None else {k: a[k] + b[k] for k in a}

    for first in range(0, n_deals, batch):
        n = min(batch, n_deals - first)
        base = VALIDATION_FIRST + first
        tv = setup.deal_values(list(ex.imap(_play, setup.tasks("t", tuned, base, n))), n)
        acc["tuned"] = add(acc["tuned"], stats.moments(tv["objective"]))
        for r in range(setup.players):
            seat_mom[r] = add(seat_mom[r], stats.moments(tv["score"][:, r]))
        share_sum += tv["share"].sum(axis=0)
        field_sum += tv["field"].sum(axis=0)
        if setup.start_exact is None:
            sv = setup.deal_values(list(ex.imap(_play, setup.tasks("s", start, base, n))), n)
            acc["start"] = add(acc["start"], stats.moments(sv["objective"]))
            acc["diff"] = add(acc["diff"], stats.moments(tv["objective"] - sv["objective"]))
            for r in range(setup.players):
                start_mom[r] = add(start_mom[r], stats.moments(sv["score"][:, r]))
        if echo is not None and first + n < n_deals:
            echo(f"validation: {first + n:,}/{n_deals:,} deals")
    tuned_i = stats.mean_interval_from_moments(acc["tuned"])
    if setup.start_exact is None:
        start_i = stats.mean_interval_from_moments(acc["start"])
        diff = stats.mean_interval_from_moments(acc["diff"])
    else:
        start_i = {"mean": setup.start_exact, "exact": True}
        diff = {
            k: (v - setup.start_exact if k in ("mean", "low", "high") else v)
            for k, v in tuned_i.items()
        }
    out = {
        "first_game_index": VALIDATION_FIRST,
        "deals": n_deals,
        "objective": setup.objective,
        "tuned": tuned_i,
        "start": start_i,
        "difference": diff,
        "beats_start": bool(diff["low"] > 0),
        "tuned_score_by_seat": [stats.mean_interval_from_moments(m) for m in seat_mom],
    }
    if setup.players > 1:
        out["tuned_win_share_by_seat"] = [stats.proportion(float(s), n_deals) for s in share_sum]
        out["field_score_by_seat"] = [float(s / n_deals) for s in field_sum]
    if setup.start_exact is None:
        out["start_score_by_seat"] = [stats.mean_interval_from_moments(m) for m in start_mom]
    return out


# ---------------------------------------------------------------- files
def _read_state(path: Path) -> dict:
    """The saved state of an interrupted run (``state.json``), checked field by field.

    Raises ``ConfigError`` (one line naming the file) when it is unreadable or malformed."""
    from mcsim.files import read_json_object

    try:
        st = read_json_object(path, "tuning state")
        gen, objs, rows, means = st["generation"], st["objectives"], st["rows"], st["means"]
        ok = (
            isinstance(gen, int)
            and not isinstance(gen, bool)
            and gen >= 0
            and isinstance(objs, list)
            and len(objs) == gen
            and all(
                isinstance(o, list) and all(isinstance(v, (int, float)) for v in o) for o in objs
            )
            and isinstance(rows, list)
            and all(isinstance(r, dict) for r in rows)
            and isinstance(means, list)
            and len(means) == gen
        )
    except (McsimError, KeyError, TypeError):
        ok = False
    if not ok:  # a damaged file's contents: exit 1, as a damaged run manifest
        raise InputFileError(
            f"cannot resume: {path} is not a tuning state; remove it to start over"
        ) from None
    return st


def tune_versions() -> dict:
    """Package versions (``mcsim.runner.versions``) plus the optimiser's."""
    import cma

    return {**versions(), "cma": cma.__version__}


def _jsonable(o):
    from mcsim.runner import to_json

    return json.loads(to_json(o))


def _prepare_out(out: Path, settings: dict, resume: bool) -> dict | None:
    """Create or check the output directory; returns the saved optimiser state (resume)."""
    sfile = out / SETTINGS_NAME
    settings = _jsonable(settings)
    if resume:
        if not sfile.exists():
            raise ConfigError(f"cannot resume: {out} holds no tuning run (no {SETTINGS_NAME})")
        from mcsim.files import read_json_object

        try:
            old = read_json_object(sfile, "tuning settings")["settings"]
            if not isinstance(old, dict):
                raise TypeError
        except (McsimError, KeyError, TypeError):
            raise InputFileError(
                f"cannot resume: {sfile} is not a tuning run's {SETTINGS_NAME}"
            ) from None
        for k, v in settings.items():
            if old.get(k) != v:
                raise ConfigError(
                    f"cannot resume: {out} holds a different run ({k} "
                    f"{old.get(k)!r} there, {v!r} now)"
                )
        st = out / STATE_NAME
        if not st.exists():
            return None  # interrupted before the first generation finished
        return _read_state(st)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"{out} is a file, not a directory")
    if out.exists() and any(out.iterdir()):
        raise ConfigError(
            f"{out} is not empty; use --resume to continue the run in it or "
            f"choose another directory"
        )
    if not out.parent.is_dir():
        raise ConfigError(f"cannot write {out}: directory {out.parent} does not exist")
    out.mkdir(exist_ok=True)
    text = json.dumps(
        {"settings": settings, "status": "running", "versions": tune_versions()}, indent=1
    )
    write_atomic(sfile, lambda tmp: Path(tmp).write_text(text + "\n"))
    return None


def _write_csv(path: Path, rows: list[dict], space, settings: dict) -> None:
    import pandas as pd

    per_gen = settings["popsize"] * settings["seatings"] * settings["deals"]
    df = pd.DataFrame(
        rows, columns=["generation", "candidate", "objective"] + [p.name for p in space]
    )
    df.insert(2, "first_game_index", df["generation"] * settings["deals"])
    df.insert(3, "deals", settings["deals"])
    df.insert(4, "games_played", (df["generation"] + 1) * per_gen)
    write_atomic(path, lambda tmp: df.to_csv(tmp, index=False))


def _write_png(path: Path, rows: list[dict], settings: dict, validation: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    per_gen = settings["popsize"] * settings["seatings"] * settings["deals"]
    df = pd.DataFrame(rows)
    x = (df["generation"] + 1) * per_gen
    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    ax.scatter(x, df["objective"], s=8, alpha=0.35, color="tab:blue", label="candidate")
    g = df.groupby("generation")["objective"]
    gx = (g.mean().index + 1) * per_gen
    ax.plot(gx, g.mean().to_numpy(), color="tab:blue", label="generation mean")
    ax.plot(gx, g.max().to_numpy(), color="tab:green", lw=0.8, label="generation best")
    st = validation["start"]
    ax.axhline(
        st["mean"],
        color="grey",
        ls="--",
        lw=0.8,
        label="start (validation)" + (", exact" if st.get("exact") else ""),
    )
    t = validation["tuned"]
    end = settings["budget"]
    ax.errorbar(
        [end],
        [t["mean"]],
        yerr=[[t["mean"] - t["low"]], [t["high"] - t["mean"]]],
        fmt="o",
        color="tab:red",
        capsize=3,
        label="tuned (validation, 95% CI)",
    )
    ax.set_xlabel("games played")
    ax.set_ylabel(settings["objective"].replace("_", " "))
    ax.set_title(
        f"{settings['game']}: tuning {settings['policy']} "
        f"({settings['players']} player{'s' if settings['players'] > 1 else ''})"
    )
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()

    def write(tmp):
        fig.savefig(tmp, format="png")

    try:
        write_atomic(path, write)
    finally:
        plt.close(fig)


def format_plan(settings: dict, long_name: str = "") -> str:
    """Readable text of a dry run: the search space, the budget plan and the seeds."""
    s = settings
    lines = [
        f"{long_name or s['game']}: tune {s['start_policy']} ({counted(s['players'], 'player')}, "
        f"field {', '.join(s['against']) or '-'}, objective {s['objective']}), "
        f"budget {counted(s['budget'], 'game')}, seed {s['seed']}",
        f"  {'parameter':<20}{'low':>10}{'high':>10}{'start':>10}  {'type':<9}documented range",
    ]
    for p in s["search_space"]:
        lo, hi = (
            ("-inf" if p["range"][0] is None else f"{p['range'][0]:g}"),
            ("inf" if p["range"][1] is None else f"{p['range'][1]:g}"),
        )
        lines.append(
            f"  {p['name']:<20}{p['low']:>10g}{p['high']:>10g}{p['start']:>10g}  "
            + f"{'integer' if p['integer'] else 'real':<9}[{lo}, {hi}]"
        )
    if s["fixed"]:
        lines.append("  fixed: " + ", ".join(f"{k}={v:g}" for k, v in s["fixed"].items()))
    lines.append(
        f"  tuning: {s['generations']} generations x {s['popsize']} candidates x "
        f"{s['seatings']} seating(s) x {s['deals']} deals = {s['tuning_games']:,} games "
        f"(game indices {s['tuning_game_indices'][0]}..{s['tuning_game_indices'][1] - 1})"
    )
    lines.append(
        f"  validation: {s['validation_deals']:,} deals = {s['validation_games']:,} "
        f"games (game indices 2**40 ..)"
    )
    return "\n".join(lines)


def format_tune(res: dict, long_name: str = "") -> str:
    """Readable text of a ``tune`` result."""
    s, v = res["settings"], res["validation"]
    obj = s["objective"]
    field = ", ".join(s["against"]) or "-"
    lines = [
        f"{long_name or s['game']}: tuning from {s['start_policy']} ({counted(s['players'], 'player')}, field "
        f"{field}, objective {obj}) with {res['games_played']:,} of {counted(s['budget'], 'game')}, "
        f"seed {s['seed']}",
        f"  {s['generations']} generation(s) x {s['popsize']} candidates x {s['seatings']} "
        f"seating(s) x {s['deals']} deals; {len(s['search_space'])} parameters: "
        + ", ".join(
            f"{p['name']} in [{p['low']:g}, {p['high']:g}]" + (" (integer)" if p["integer"] else "")
            for p in s["search_space"]
        ),
        f"best: -p {res['policy']}",
        f"validation on {v['deals']:,} fresh deals (game indices from 2**40, never used in "
        f"tuning), {obj} per deal [95% CI]:",
    ]
    t, st, d = v["tuned"], v["start"], v["difference"]
    lines.append(f"  tuned  {t['mean']:.4f} {stats.interval_text(t, '.4f')}")
    if st.get("exact"):
        lines.append(f"  start  {st['mean']:.4f} exactly (the starting policy in every seat)")
    else:
        lines.append(f"  start  {st['mean']:.4f} {stats.interval_text(st, '.4f')}")
    lines.append(f"  tuned - start {d['mean']:+.4f} {stats.interval_text(d, '+.4f')}")
    if len(v["tuned_score_by_seat"]) > 1:
        lines.append(
            "  tuned mean score by seat: "
            + " / ".join(f"{m['mean']:.2f}" for m in v["tuned_score_by_seat"])
            + "; win share by seat: "
            + " / ".join(
                f"{w['estimate']:.3f} {stats.interval_text(w, '.3f')}"
                for w in v["tuned_win_share_by_seat"]
            )
        )
        lines.append(
            "  field mean score by seat: "
            + " / ".join(f"{x:.2f}" for x in v["field_score_by_seat"])
        )
    if v["beats_start"]:
        lines.append("tuning beat its start (the 95% interval of the difference is above 0)")
    elif d["mean"] > 0:
        lines.append(
            "tuning did NOT clearly beat its start: the 95% interval of the difference includes 0"
        )
    else:
        lines.append(
            "tuning did NOT beat its start (the tuned policy scored no better on fresh "
            "deals); keep the starting parameters"
        )
    if res.get("at_box_edge"):
        lines.append(
            "at the edge of its search box (the best value may lie beyond it; widen "
            "with --param NAME=LOW:HIGH inside the documented range): "
            + ", ".join(res["at_box_edge"])
        )
    lines.append(f"wall time {res['elapsed_seconds']:.1f} s")
    return "\n".join(lines)
