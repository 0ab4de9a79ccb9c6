"""Studies sized by precision: play chunk by chunk until a headline interval is narrow enough.

A study is a list of *runs* (one seating of policies under one rule variant each; every run
plays games ``0, 1, 2, ...`` of the same seed, so game *i* is the same deal in every run) split
into *groups*: the runs whose games one statistic needs together (one ``simulate``; the seat
rotations of one policy pair; the arms of a ``compare``). Each group plays whole chunks in
game-index order and, after each chunk, computes its statistic's 95% intervals on all of its
games so far; it stops when every interval is at most ±``precision`` (half its width) and at
least ``MIN_GAMES`` games are played, or at ``max_games``. The decision looks only at whole
chunks in game-index order, never at which worker finished first, so the same seed, precision
and cap give the same games and the same result for any worker count and backend. Chunks a
worker played past a group's stop are dropped.

Before playing, a short calibration plays the first ``CALIBRATION_GAMES`` games of every run
(one task per run, on the study's workers), estimates each group's games from its interval there (half-widths shrink as
1/sqrt(n)), prints the estimate and its CPU time, and sizes the chunks (about 16 chunks over
the estimate, as ``runner.chunk_plan`` does for a run of that size). The estimate depends only
on those games, so the chunking is deterministic too; it is kept in each run's ``--out``
folder (``CALIBRATION_NAME``) so a resume need not play it again. Without ``precision`` every group plays
``max_games`` games in ``runner.chunk_plan``'s chunks: the same games and summary as
``simulate(games=max_games)``.

``docs/usage.md`` ("Studies sized by precision") says what was checked about the bias of this
stopping rule (``tests/test_precision.py`` holds the coverage check).
"""

from __future__ import annotations

import collections
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from mcsim import stats
from mcsim.aggregate import Aggregate
from mcsim.errors import ConfigError, OutputWriteError
from mcsim.runner import (
    MAX_GAMES,
    SUMMARY_NAME,
    ChunkPlan,
    Executor,
    SimulationResult,
    _agg_path,
    _load_chunk,
    _notice_wanted,
    _prepare_out_dir,
    _remove_unfinished_parts,
    _run_manifest,
    _work,
    as_given,
    build_summary,
    check_limits,
    check_resume_manifest,
    chunk_plan,
    compile_notice,
    doc_digest,
    games_frame,
    json_default,
    resolve_config,
    resolve_execution,
    run_id,
    to_json,
    write_atomic,
)
from mcsim.text import counted

#: games of every run played first, to estimate the games and CPU time needed
CALIBRATION_GAMES = 16
#: the calibration of a precision run, kept in each of its ``--out`` folders for ``--resume``
CALIBRATION_NAME = "_calibration.json"
#: a group never stops on its interval before this many games (a t interval of a handful of
#: games can be narrow by chance)
MIN_GAMES = 32
#: ``--max-games`` when a ``--precision`` run gives none
DEFAULT_MAX_GAMES = 100_000

#: a statistic: the per-run game tables of a group so far -> {name: {"estimate", "low", "high"}}
Statistic = Callable[[list[pd.DataFrame]], dict[str, dict]]


def check_precision(precision, max_games, win_rates: bool = True) -> None:
    """Refuse a ``--precision`` / ``--max-games`` pair before any game is played.

    ``precision`` is the target half-width of a 95% interval (None: no target); for win rates
    and win shares (``win_rates``) it must lie in (0, 0.5), for points it must be positive and
    finite. ``max_games`` must be a whole number in [1, 10**12]. Raises ``ConfigError``."""
    if precision is not None:
        if not isinstance(precision, (int, float)) or isinstance(precision, bool):
            raise ConfigError(f"--precision must be a number, not {precision!r}")
        if not math.isfinite(precision) or precision <= 0:
            raise ConfigError(
                f"--precision must be a positive half-width of a 95% interval, not {precision:g}"
            )
        if win_rates and precision >= 0.5:
            raise ConfigError(
                f"--precision {precision:g} is no precision for a win rate (every 95% interval "
                "of a share is narrower than ±0.5); give e.g. --precision 0.02"
            )
    if isinstance(max_games, bool) or not isinstance(max_games, (int, np.integer)):
        raise ConfigError(f"--max-games must be a positive whole number, not {max_games!r}")
    if max_games <= 0:
        raise ConfigError(f"--max-games must be a positive whole number, not {max_games}")
    if max_games > MAX_GAMES:
        raise ConfigError(f"--max-games must be at most {MAX_GAMES:,} (10**12), not {max_games:,}")


def half_width(iv: dict) -> float:
    """Half the width of an interval dict (``low``/``high``); inf when undefined."""
    w = 0.5 * (iv["high"] - iv["low"])
    return float(w) if w == w else math.inf


# ---------------------------------------------------------------- statistics of a group


def seat_win_rates(frames: list[pd.DataFrame]) -> dict[str, dict]:
    """One run's seat win rates (Wilson 95%); with one seat, its mean score (t 95%, points)."""
    (df,) = frames
    k = sum(1 for c in df.columns if c.startswith("win_share_"))
    if k == 1:
        return {"score seat 0": _mean(df["score_0"])}
    return {
        f"win rate seat {s}": stats.proportion(float(df[f"win_share_{s}"].sum()), len(df))
        for s in range(k)
    }


def rotation_share(seats: list[int]) -> Statistic:
    """The seat rotations of one policy pair: ``seats[j]`` is the seat of the policy under test
    in run j. Per deal, its win share averaged over the runs, with the Wilson 95% interval on
    the effective number of games those per-deal shares are worth (``stats.seated_share``:
    between the deals and every game; it stays honest when every game is won, where a t
    interval is empty); with one seat, its paired point gain (run 0 minus run 1, t 95%)."""

    def stat(frames: list[pd.DataFrame]) -> dict[str, dict]:
        n = min(len(f) for f in frames)
        if len(frames[0].filter(like="win_share_").columns) == 1:
            gain = (
                frames[0]["score_0"].to_numpy(float)[:n] - frames[1]["score_0"].to_numpy(float)[:n]
            )
            return {"paired point gain": _mean(gain)}
        share = np.mean(
            [f[f"win_share_{s}"].to_numpy(float)[:n] for f, s in zip(frames, seats)], axis=0
        )
        return {"win share": stats.seated_share(share, len(frames))}

    return stat


def paired_arms(frames: list[pd.DataFrame]) -> dict[str, dict]:
    """The arms of a comparison: every arm's paired difference from the first, per seat, in
    win share (with one seat: in score, points); t 95%."""
    n = min(len(f) for f in frames)
    ref = frames[0]
    k = len(ref.filter(like="win_share_").columns)
    col = "score" if k == 1 else "win_share"
    bounds = (None, None) if k == 1 else (0.0, 1.0)  # a win-share difference stays in [-1, 1]
    out = {}
    for a, f in enumerate(frames[1:], start=1):
        for s in range(k):
            out[f"arm {a + 1} - arm 1, {col.replace('_', ' ')} seat {s}"] = stats.paired_difference(
                f[f"{col}_{s}"].to_numpy(float)[:n], ref[f"{col}_{s}"].to_numpy(float)[:n], bounds
            )
    return out


def _mean(x) -> dict:
    m = stats.mean_interval(x)
    return {"estimate": m["mean"], "low": m["low"], "high": m["high"]}


# ---------------------------------------------------------------- the study


@dataclass
class Run:
    """One run of a study: the seats' policies, the rule variant and (optionally) a folder for
    its per-game Parquet dataset (``simulate``'s resumable ``--out DIR`` layout)."""

    policies: list
    variant: dict | None = None
    out_dir: str | Path | None = None


@dataclass
class Group:
    """Runs (indices into the study's runs) stopped together by one statistic."""

    name: str
    runs: list[int]
    statistic: Statistic


@dataclass
class Study:
    """What ``play_study`` returns: a ``SimulationResult`` per run (its ``games`` kept; its
    summary with a ``precision`` block), per group its stop (``name``, ``target``,
    ``max_games``, ``games`` played, ``cap_reached``, ``widest_half_width``, the final
    ``intervals``), and the ``calibration`` (per group the estimated games and CPU seconds per
    game; None without a precision)."""

    results: list[SimulationResult]
    groups: list[dict]
    precision: float | None
    max_games: int
    calibration: dict | None = None
    elapsed_seconds: float = 0.0
    notices: list[str] = field(default_factory=list)


def play_study(
    game: str,
    runs: list[Run],
    groups: list[Group],
    *,
    precision: float | None,
    max_games: int,
    seed: int = 0,
    players: int | None = None,
    options: dict | None = None,
    workers: int | None = 1,
    chunk_size: int | None = None,
    backend: str | None = None,
    scheduler: str | None = None,
    resume: bool = False,
    progress: bool = False,
    echo: Callable[[str], None] | None = None,
) -> Study:
    """Play every group of runs chunk by chunk until its statistic's 95% intervals are at most
    ±``precision`` (or ``max_games`` games; see the module docstring).

    ``echo`` receives the calibration line (estimated games and CPU time) before the games are
    played. Every run's configuration, the precision and the cap are checked before any game
    (``ConfigError``, ``UnknownPolicyError``, ``UnknownVariantError``); a run's ``out_dir`` is
    prepared as ``simulate``'s (refused when not empty unless ``resume``). Returns a ``Study``.
    """
    check_limits(max_games, seed, "--max-games")
    check_precision(precision, max_games, win_rates=False)  # the callers check win-rate targets
    if chunk_size is not None and chunk_size < 1:
        raise ConfigError(f"--chunk-size must be a positive whole number, not {chunk_size}")
    out_any = next((r.out_dir for r in runs if r.out_dir is not None), None)
    workers, backend = resolve_execution(workers, backend, scheduler, resume, out_any)
    resolved = [resolve_config(game, players, r.policies, r.variant, options) for r in runs]
    module = resolved[0][0]
    preps = [m.prepare(cfg) for m, cfg in resolved]
    t0 = time.perf_counter()
    for p in preps:
        with compile_notice(module.SPEC.long_name, progress and _notice_wanted()):
            module.play_chunk(p, 0, 0, seed)
    compile_seconds = time.perf_counter() - t0
    of_run = {i: g for g, grp in enumerate(groups) for i in grp.runs}
    plans: list[ChunkPlan] = []
    calibration = None
    ex = Executor(backend, workers, scheduler, pool_size=workers)
    out_dirs = [Path(r.out_dir) for r in runs if r.out_dir is not None]
    if precision is None:
        plans = [chunk_plan(module, max_games, chunk_size)] * len(groups)
    else:
        key = _calibration_key(module, resolved, groups, precision, max_games, seed)
        saved_runs = {}  # on --resume: per run with a folder, its saved "run" block
        if resume:
            for i, (r, (_, cfg)) in enumerate(zip(runs, resolved)):
                if r.out_dir is not None:  # refused before any game, the calibration's too
                    m = _run_manifest(cfg, max_games, seed, ChunkPlan(1, 1), module)
                    m["precision"] = precision
                    skip = ("chunk_size", "chunks")
                    saved_runs[i] = check_resume_manifest(Path(r.out_dir), m, skip=skip)
        calibration = (
            _saved_calibration(out_dirs, key, groups, max_games, module, chunk_size, saved_runs)
            if resume
            else None
        )
        try:
            if calibration is None:
                calibration = _calibrate(ex, module, preps, groups, precision, max_games, seed)
        except BaseException:
            ex.close()
            raise
        plans = [_plan(module, est, max_games, chunk_size) for est in calibration["groups"]]
        if echo is not None:
            line = calibration_line(calibration, precision, max_games, workers)
            echo(line + (" (saved by the earlier run)" if calibration.get("saved") else ""))
    done: list[set[int]] = []
    run_keys: list[str] = []  # per run: the id its chunk aggregates carry (runner.run_id)
    for i, (r, (_, cfg)) in enumerate(zip(runs, resolved)):
        if r.out_dir is None:
            done.append(set())
            run_keys.append("")
            continue
        manifest = _run_manifest(cfg, max_games, seed, plans[of_run[i]], module)
        manifest["precision"] = precision
        run_keys.append(run_id(manifest))
        try:
            done.append(_prepare_out_dir(Path(r.out_dir), manifest, resume))
        except BaseException:
            ex.close()
            raise
    if calibration is not None and not calibration.get("saved"):
        doc = {"key": key, "calibration": calibration}
        doc["digest"] = doc_digest(json.loads(to_json(doc)))
        for d in out_dirs:  # a resume reads it instead of playing the calibration again
            text = to_json(doc, indent=1)
            write_atomic(d / CALIBRATION_NAME, lambda tmp, text=text: Path(tmp).write_text(text))
    if calibration is not None:
        calibration.pop("saved", None)
    state = _State(groups, plans, precision)
    frames: list[list[pd.DataFrame]] = [[] for _ in runs]
    aggs = [Aggregate.empty(p.config.players) for p in preps]
    from tqdm import tqdm

    total = sum(
        min(max_games, e["games"]) for e in (calibration or {"groups": []})["groups"]
    ) or max_games * len(groups)
    bar = tqdm(
        total=total, unit="game", file=__import__("sys").stderr, delay=1.0,
        disable=not progress, leave=False, dynamic_ncols=True,
    )  # fmt: skip
    order: collections.deque = collections.deque()

    def task(i, k):
        first, n = plans[of_run[i]][k]
        # absolute, as simulate's: a Dask worker's working directory is not the client's
        out = None if runs[i].out_dir is None else str(Path(runs[i].out_dir).absolute())
        return (module.__name__, preps[i], first, n, seed, True, out, run_keys[i])

    def schedule():
        k = 0
        while not state.finished() and k < max(len(p) for p in plans):
            for g, grp in enumerate(groups):
                if state.stopped[g] or k >= len(plans[g]):
                    continue
                for i in grp.runs:
                    first = plans[g][k][0]
                    order.append((g, i, k))
                    if first not in done[i]:
                        yield task(i, k)
            k += 1

    played = ex.imap(_work, schedule(), hold=8 * max(1, ex.workers))

    def next_result():
        try:
            return next(played)
        except OutputWriteError as e:  # named as the user gave the folders
            raise as_given(e, [r.out_dir for r in runs]) from None

    results = played
    held = None
    try:
        pending_chunk: dict[tuple[int, int], int] = collections.Counter()
        while True:
            if not order:
                try:
                    held = next_result()
                except StopIteration:  # no task left to play, saved chunks may be in order
                    if not order:
                        break
                continue
            g, i, k = order.popleft()
            first, n = plans[g][k]
            if state.stopped[g] and first in done[i]:
                continue  # a saved chunk past this group's stop: not read
            if first in done[i]:
                agg, df = _load_or_play(runs[i], preps[i], first, n, task(i, k))
            else:
                if held is None:
                    held = next_result()
                got_first, agg, df = held
                held = None
                assert got_first == first, (got_first, first)
            if state.stopped[g]:
                continue  # played past this group's stop: dropped
            aggs[i] = aggs[i].merge(agg)
            frames[i].append(df)
            pending_chunk[(g, k)] += 1
            if pending_chunk[(g, k)] == len(groups[g].runs):  # the group's chunk k is whole
                del pending_chunk[(g, k)]
                bar.update(n)
                state.chunk_done(
                    g, [pd.concat(frames[j], ignore_index=True) for j in groups[g].runs]
                )
                if progress and precision is not None:
                    bar.set_postfix_str(state.progress_text(), refresh=False)
    except BaseException:
        results.close()
        for r in runs:
            if r.out_dir is not None:
                _remove_unfinished_parts(Path(r.out_dir))
        raise
    finally:
        bar.close()
        results.close()
        ex.close()
    elapsed = time.perf_counter() - t0
    out = []
    for i, (r, prep) in enumerate(zip(runs, preps)):
        g = of_run[i]
        stop = state.games[g]
        if r.out_dir is not None:
            _drop_parts_after(Path(r.out_dir), stop)
        df = pd.concat(frames[i], ignore_index=True) if frames[i] else None
        summary = build_summary(
            module, prep, aggs[i], seed, elapsed, played=stop, compile_seconds=compile_seconds
        )
        summary["precision"] = state.report(g, max_games)
        if len(runs) > 1:  # the runs share the workers: no run has a throughput of its own
            summary["games_per_second"] = None
        if r.out_dir is not None:
            text = to_json(summary, indent=1)
            path = Path(r.out_dir) / SUMMARY_NAME
            write_atomic(path, lambda tmp, text=text: Path(tmp).write_text(text + "\n"))
        out.append(SimulationResult(df, summary, prep, [], aggs[i]))
    return Study(
        results=out,
        groups=[{"name": grp.name, **state.report(g, max_games)} for g, grp in enumerate(groups)],
        precision=precision,
        max_games=max_games,
        calibration=calibration,
        elapsed_seconds=elapsed,
        notices=[n for p in preps for n in p.notices],
    )


class _State:
    """The stop of every group, decided on its whole chunks in game-index order."""

    def __init__(self, groups, plans, precision):
        self.groups = groups
        self.plans = plans
        self.precision = precision
        self.stopped = [False] * len(groups)
        self.next_chunk = [0] * len(groups)
        self.games = [0] * len(groups)
        self.intervals: list[dict] = [{} for _ in groups]

    def finished(self) -> bool:
        return all(self.stopped)

    def chunk_done(self, g: int, frames: list[pd.DataFrame]) -> None:
        self.next_chunk[g] += 1
        self.games[g] = len(frames[0])
        self.intervals[g] = self.groups[g].statistic(frames)
        last = self.next_chunk[g] >= len(self.plans[g])
        if last or (
            self.precision is not None
            and self.games[g] >= MIN_GAMES
            and max(half_width(iv) for iv in self.intervals[g].values()) <= self.precision
        ):
            self.stopped[g] = True

    def progress_text(self) -> str:
        open_ = [
            (max(half_width(iv) for iv in self.intervals[g].values()), self.groups[g].name)
            for g in range(len(self.groups))
            if not self.stopped[g] and self.intervals[g]
        ]
        if not open_:
            return "done"
        hw, name = max(open_)
        return f"widest ±{hw:.4g} ({name}), target ±{self.precision:g}"

    def report(self, g: int, max_games: int) -> dict:
        widest = max((half_width(iv) for iv in self.intervals[g].values()), default=math.inf)
        return {
            "target": self.precision,
            "max_games": max_games,
            "games": self.games[g],
            "cap_reached": self.precision is not None and widest > self.precision,
            "widest_half_width": widest,
            "intervals": self.intervals[g],
        }


def _load_or_play(run: Run, prep, first: int, n: int, task):
    """A finished chunk of a resumed run from its folder, or played again when damaged."""
    loaded, damage = _load_chunk(
        Path(run.out_dir), first, n, prep.config.players, True, task[7]
    )  # task[7]: the run's id, so a chunk of another run or an edited one is played again
    if loaded is None:
        prep.notices.append(f"resume: played games {first}..{first + n - 1} again ({damage})")
        _, agg, df = _work(task)
        return agg, df
    return loaded


def _drop_parts_after(out_dir: Path, games: int) -> None:
    """Remove the chunks a run folder holds at or past ``games`` (played past the stop), so that
    ``pandas.read_parquet(out_dir)`` reads exactly the games of the result."""
    for f in out_dir.glob("part-*.parquet"):
        digits = f.stem[len("part-") :]
        if digits.isascii() and digits.isdigit() and int(digits) >= games:
            f.unlink(missing_ok=True)
            _agg_path(out_dir, int(digits)).unlink(missing_ok=True)


def _timed_work(task):
    """``_work`` of one calibration chunk (in a worker), with the CPU seconds of its games (the
    kernel call) and of the rest of the chunk (its table, summary and aggregate): a fixed cost
    per chunk that a 16-game calibration must not spread over every game of the study (it made
    the estimate of a fast game's study five to fifty times its cost). The worker first plays
    no game of it, untimed: that loads the compiled kernel, which the study does not pay again.
    Returns ``(kernel seconds, other seconds, _work's result)``."""
    import importlib

    module_name, prep, first, n, seed = task[:5]
    module = importlib.import_module(module_name)
    module.play_chunk(prep, first, 0, seed)
    t0 = time.process_time()
    cols = module.play_chunk(prep, first, n, seed)
    t1 = time.process_time()
    df = games_frame(cols, first, prep.config.players)
    agg = Aggregate.of_games(df, prep.config.players, module.partial_summary(df, prep))
    return t1 - t0, time.process_time() - t1, (first, agg, df)


def _calibrate(ex, module, preps, groups, precision: float, max_games: int, seed: int) -> dict:
    """Play games ``0 .. CALIBRATION_GAMES-1`` of every run (on the executor ``ex``, one task
    per run); per group the estimated games (half-widths scale as 1/sqrt(n), at least
    ``MIN_GAMES``, at most ``max_games``) and CPU seconds per game of its runs together: the
    kernel's per game plus each chunk's fixed cost over the chunk size the estimate gives."""
    n = min(CALIBRATION_GAMES, max_games)
    tasks = [(module.__name__, p, 0, n, seed, True, None, "") for p in preps]
    played = list(ex.imap(_timed_work, tasks, hold=len(tasks)))
    out = []
    for grp in groups:
        frames = [played[i][2][2] for i in grp.runs]
        widest = max(half_width(iv) for iv in grp.statistic(frames).values())
        need = n * (widest / precision) ** 2 if math.isfinite(widest) else max_games
        games = int(min(max_games, max(MIN_GAMES, math.ceil(need))))
        chunk = _plan(module, {"games": games}, max_games, None).chunk
        cpu = sum(played[i][0] / n + played[i][1] / chunk for i in grp.runs)
        out.append({"name": grp.name, "games": games, "cpu_per_game": cpu, "half_width": widest})
    cpu = sum(e["games"] * e["cpu_per_game"] for e in out)
    return {"games_per_run": n, "groups": out, "cpu_seconds": cpu}


def _calibration_key(module, resolved, groups, precision, max_games, seed) -> str:
    """The digest of what a calibration depends on: every run's game, policies with their
    parameters, variant, options and data files, the groups, the seed, precision and cap."""
    runs = []
    for _, cfg in resolved:
        m = _run_manifest(cfg, max_games, seed, ChunkPlan(max_games, max_games), module)
        m.pop("chunk_size"), m.pop("chunks")
        runs.append(m)
    doc = {
        "calibration_games": min(CALIBRATION_GAMES, max_games),
        "precision": precision,
        "groups": [[g.name, list(g.runs)] for g in groups],
        "runs": runs,
    }
    return doc_digest(json.loads(json.dumps(doc, default=json_default)))


def _saved_calibration(
    out_dirs: list[Path], key: str, groups, max_games, module, chunk_size, saved_runs
) -> dict | None:
    """The calibration an earlier run wrote into every one of its folders, or None: then it
    is played again (its games are deterministic, so the plan is the same; only the printed
    CPU estimate is measured anew). Trusted only when every folder holds the same unedited
    file (its ``digest``) of this run (``key``), well formed, and giving the chunk size each
    folder's manifest recorded. Raises ``ConfigError`` when the file is there but is not a
    regular file (a folder, a named pipe), before any game."""
    found = None
    for d in out_dirs:
        path = d / CALIBRATION_NAME
        if path.exists() and not path.is_file():
            raise ConfigError(f"cannot resume: {path} is not a regular file; remove it")
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError, UnicodeDecodeError):
            return None
        if not isinstance(doc, dict) or doc.get("key") != key:
            return None
        if doc.get("digest") != doc_digest(doc):
            return None  # edited
        if found is not None and doc.get("calibration") != found:
            return None
        found = doc.get("calibration")
    if not _well_formed(found, groups, max_games):
        return None
    of_run = {i: g for g, grp in enumerate(groups) for i in grp.runs}
    for i, old in saved_runs.items():
        if (
            old.get("chunk_size")
            != _plan(module, found["groups"][of_run[i]], max_games, chunk_size).chunk
        ):
            return None
    return {**found, "saved": True}


def _plan(module, est: dict, max_games: int, chunk_size: int | None) -> ChunkPlan:
    """A group's chunks: up to ``max_games``, sized from its calibrated estimate (about 16
    chunks over it) unless ``chunk_size`` is given."""
    if chunk_size is not None:
        return chunk_plan(module, max_games, chunk_size)
    return ChunkPlan(max_games, chunk_plan(module, est["games"], None).chunk)


def _well_formed(cal, groups, max_games) -> bool:
    """A saved calibration has this study's groups, each with a whole number of games in
    [1, max_games] and finite non-negative CPU figures."""

    def number(x, whole=False):
        ok = isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
        return ok and x >= 0 and (not whole or float(x).is_integer())

    if not isinstance(cal, dict) or not isinstance(cal.get("groups"), list):
        return False
    if len(cal["groups"]) != len(groups) or not number(cal.get("cpu_seconds")):
        return False
    if cal.get("games_per_run") != min(CALIBRATION_GAMES, max_games):
        return False
    for est, grp in zip(cal["groups"], groups):
        if not isinstance(est, dict) or est.get("name") != grp.name:
            return False
        if not number(est.get("games"), whole=True) or not 1 <= est["games"] <= max_games:
            return False
        if not number(est.get("cpu_per_game")):
            return False
    return True


def calibration_line(cal: dict, precision: float, max_games: int, workers: int) -> str:
    """The line printed before a precision run: estimated games and CPU time."""
    games = sum(e["games"] for e in cal["groups"])
    capped = sum(1 for e in cal["groups"] if e["games"] >= max_games)
    cpu = cal["cpu_seconds"]
    cap = (
        f"; {capped} of {len(cal['groups'])} capped by --max-games {max_games:,}" if capped else ""
    )
    return (
        f"calibration ({counted(cal['games_per_run'], 'game')} per run): about {counted(games, 'game')} for ±{precision:g} "
        f"({len(cal['groups'])} group{'s' if len(cal['groups']) != 1 else ''}{cap}), "
        f"{_about(cpu)} of CPU ({_duration(cpu / max(1, workers))} on {workers} worker"
        f"{'s' if workers != 1 else ''})"
    )


def _about(s: float) -> str:
    """``about 5 min``; ``under 1 s`` without the "about"."""
    d = _duration(s)
    return d if d.startswith("under") else f"about {d}"


def _duration(s: float) -> str:
    if s < 0.5:
        return "under 1 s"
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


def precision_line(report: dict) -> str:
    """One line saying where a precision run stopped, and whether the cap bound it."""
    if report.get("target") is None:
        return ""
    if report["cap_reached"]:
        return (
            f"precision: --max-games {report['max_games']:,} reached before ±{report['target']:g} "
            f"(widest 95% interval ±{report['widest_half_width']:.4f} after {counted(report['games'], 'game')})"
        )
    return (
        f"precision: stopped at {counted(report['games'], 'game')}, every 95% interval within "
        f"±{report['target']:g} (widest ±{report['widest_half_width']:.4f}; cap {report['max_games']:,})"
    )


def simulate_to_precision(
    game: str,
    precision: float,
    max_games: int | None = None,
    seed: int = 0,
    policies=None,
    variant: dict | None = None,
    players: int | None = None,
    options: dict | None = None,
    workers: int | None = 1,
    chunk_size: int | None = None,
    backend: str | None = None,
    scheduler: str | None = None,
    out_dir=None,
    resume: bool = False,
    progress: bool = False,
    echo=None,
    force: bool = False,
) -> SimulationResult:
    """``simulate`` sized by precision: games in chunks until every seat's win rate (one seat:
    the mean score, points) has a 95% interval within ±``precision``, at most ``max_games``
    (default ``DEFAULT_MAX_GAMES``). The summary gains a ``precision`` block (target, cap,
    games, ``cap_reached``, the final intervals). Raises what ``simulate`` raises, and
    ``ConfigError`` for a bad precision or cap, before any game."""
    _, cfg = resolve_config(game, players, policies, variant, options)
    max_games = DEFAULT_MAX_GAMES if max_games is None else max_games
    check_precision(precision, max_games, win_rates=cfg.players > 1)
    replacing = None  # with force over an earlier run in out_dir: as simulate does it
    if out_dir is not None:  # the one check of every output folder, as simulate's
        if resume and force:
            raise ConfigError("--force starts over and --resume continues: give one of them")
        from mcsim.outputs import SIMULATE_FOLDER, RunReplacement, check_run_folder

        if check_run_folder(out_dir, "--out", SIMULATE_FOLDER, resume, force) and force:
            replacing = RunReplacement(out_dir, SIMULATE_FOLDER)
    try:
        result = _simulate_study(
            game, precision, max_games, seed, policies, variant, cfg, options, workers,
            chunk_size, backend, scheduler, replacing.stage if replacing else out_dir, resume,
            progress, echo,
        )  # fmt: skip
        if replacing is not None:
            replacing.commit()  # the earlier run is replaced only now that this one is whole
    finally:
        if replacing is not None:
            replacing.abort()
    return result


def _simulate_study(
    game, precision, max_games, seed, policies, variant, cfg, options, workers, chunk_size,
    backend, scheduler, out_dir, resume, progress, echo,
) -> SimulationResult:  # fmt: skip
    """The play of ``simulate_to_precision`` once everything is checked."""
    study = play_study(
        game,
        [Run(list(policies or ["random"]), variant, out_dir)],
        [Group("seat win rates", [0], seat_win_rates)],
        precision=precision,
        max_games=max_games,
        seed=seed,
        players=cfg.players,
        options=options,
        workers=workers,
        chunk_size=chunk_size,
        backend=backend,
        scheduler=scheduler,
        resume=resume,
        progress=progress,
        echo=echo,
    )
    return study.results[0]


def pair_shares(lineups: list[tuple[str, ...]]) -> Statistic:
    """A tournament's stop statistic: for every pair of policies, the first one's win share in
    the games between the two, per deal averaged over the pair's seat lineups (Wilson 95% on
    the effective number of games, ``stats.seated_share``, as ``rotation_share``)."""
    pairs: dict[tuple[str, str], list[int]] = {}
    for j, lineup in enumerate(lineups):
        pairs.setdefault(tuple(sorted(set(lineup))), []).append(j)

    def stat(frames: list[pd.DataFrame]) -> dict[str, dict]:
        n = min(len(f) for f in frames)
        out = {}
        for (a, b), js in pairs.items():
            per = [
                sum(
                    frames[j][f"win_share_{s}"].to_numpy(float)[:n]
                    for s, p in enumerate(lineups[j])
                    if p == a
                )
                for j in js
            ]
            out[f"{a} vs {b}"] = stats.seated_share(np.mean(per, axis=0), len(js))
        return out

    return stat


def stop_point(chunks: list[list[pd.DataFrame]], statistic: Statistic, precision: float) -> dict:
    """Feed chunks (each a list of per-run game tables, in game-index order) through the stop
    rule of ``play_study`` (the same ``_State``); returns the stop as ``play_study`` reports it
    (``games``, ``cap_reached``, ``intervals``, ...), the cap being all the chunks. For checks of
    the rule on synthetic streams with a known answer (``tests/test_precision.py``)."""
    state = _State([Group("check", list(range(len(chunks[0]))), statistic)], [chunks], precision)
    frames: list[list[pd.DataFrame]] = [[] for _ in chunks[0]]
    for chunk in chunks:
        for j, df in enumerate(chunk):
            frames[j].append(df)
        state.chunk_done(0, [pd.concat(f, ignore_index=True) for f in frames])
        if state.stopped[0]:
            break
    return state.report(0, sum(len(c[0]) for c in chunks))
