"""Run many games: chunking, seeding, backends, progress, bounded memory, resume.

Game *i* depends only on ``(seed, i)`` (``kernels.rng.game_seed``). The chunking depends only
on the game count (never on the worker count or backend), and chunk results are merged in chunk
order, so per-game rows *and* the summary are identical for any ``workers`` and ``backend``.

Backends: ``serial`` (this process), ``local`` (forked worker processes; the default when
``workers > 1``), ``dask`` (a Dask distributed cluster at ``scheduler``, or a LocalCluster on
this machine). Each chunk is reduced in its worker to a mergeable ``mcsim.aggregate.Aggregate``;
per-game rows are kept in memory only when asked (``keep_games``) and written as one Parquet
file per chunk when ``out_dir`` is given, so memory stays flat for any game count.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import importlib
import itertools
import json
import multiprocessing as mp
import os
import signal
import sys
import tempfile
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mcsim import stats
from mcsim.aggregate import Aggregate
from mcsim.errors import BadValueError, ConfigError, InputFileError, McsimError, OutputWriteError
from mcsim.files import parquet_rows, read_json_object, read_parquet
from mcsim.games import get_game
from mcsim.games.base import PolicyChoice, Prepared, RunConfig, check_players, parse_policy
from mcsim.values import Whole, label, on_cli

MAX_SEED = 2**64 - 1
MAX_GAMES = 10**12
MIN_CHUNK_SIZE = 64
#: runs of at most this many games keep their per-game rows in memory by default
KEEP_GAMES_LIMIT = 2_000_000
BACKENDS = ("serial", "local", "dask")


@dataclass
class SimulationResult:
    """What ``simulate`` returns.

    Attributes
    ----------
    games : pandas.DataFrame or None
        One row per game: ``game_index`` (int64), ``score_<k>`` (points), ``rank_<k>`` (int8,
        1 = best, ties share), ``win_share_<k>`` (float64, a shared win counts 1/k), ``winner``
        (int8, -1 when shared), ``length_plies`` and the game's own columns. None when the run
        did not keep its rows (``keep_games=False``, the default above 2,000,000 games).
    summary : dict
        The common summary frame (see docs/outputs.md, "JSON summary").
    prepared : Prepared
        The resolved configuration (policies, variant, tables).
    records : list of dict
        Sample game records (``record=K``), empty otherwise.
    aggregate : Aggregate
        The merged partial aggregates the summary was computed from.
    """

    games: pd.DataFrame | None
    summary: dict
    prepared: Prepared
    records: list = field(default_factory=list)
    aggregate: Aggregate | None = None

    @cached_property
    def seats(self) -> pd.DataFrame:
        """Long per-seat table: ``game_index, seat, policy, score, rank, won``."""
        if self.games is None:
            raise ConfigError("this run kept no per-game rows (keep_games=False)")
        cfg = self.prepared.config
        return stats.long_seats(self.games, cfg.players, [p.label() for p in cfg.policies])


@dataclass(frozen=True)
class RunOptions:
    """How a run is played, apart from its game and its seats' policies: the parameters that
    ``tournament``, ``evaluate``, ``compare_variants``, ``build_report`` and ``run_plan`` pass on
    to ``simulate`` for each run they make, held in one place.

    Fields as ``simulate``'s keywords: ``games`` (games per run), ``seed`` (root seed),
    ``variant`` (``{name: value}``), ``players``, ``options`` (game options), ``workers``,
    ``chunk_size``, ``backend``, ``scheduler`` (None: ``simulate``'s defaults), ``progress``.
    """

    games: int = 10_000
    seed: int = 0
    variant: dict | None = None
    players: int | None = None
    options: dict | None = None
    workers: int | None = 1
    chunk_size: int | None = None
    backend: str | None = None
    scheduler: str | None = None
    progress: bool = False

    def simulate(self, game: str, policies, **extra) -> SimulationResult:
        """``simulate(game, policies=policies, ...)`` with these options; ``extra`` adds the
        per-run keywords (``keep_games``, ``record``, ``out_dir``, ...). Raises what
        ``simulate`` raises."""
        return simulate(
            game,
            games=self.games,
            seed=self.seed,
            policies=policies,
            variant=self.variant,
            players=self.players,
            workers=self.workers,
            chunk_size=self.chunk_size,
            options=self.options,
            progress=self.progress,
            backend=self.backend,
            scheduler=self.scheduler,
            **extra,
        )


def resolve_config(
    game: str,
    players: int | None = None,
    policies: Iterable | None = None,
    variant: dict | None = None,
    options: dict | None = None,
):
    """Check a run's configuration; returns ``(game_module, RunConfig)``.

    The one place a configuration is checked: players, policies (names and parameters), variants
    (every one resolved to its value), option names (the game's ``OPTIONS``), then the game's
    own ``check_config`` (variant combinations, option values). ``prepare`` trusts the result.

    Raises ``UnknownGameError``, ``UnknownPolicyError``, ``UnknownVariantError``, ``ConfigError``.
    """
    module = get_game(game)
    spec = module.SPEC
    if isinstance(policies, (str, PolicyChoice)):
        policies = [policies]  # one policy for all seats (a string is not a list of letters)
    try:
        policies = list(policies) if policies is not None else None
    except TypeError:  # not a list (policies=5)
        name = label("policies")
        raise BadValueError(
            f"{name} must be a policy string or a list of them, not {policies!r:.60} "
            f"({type(policies).__name__})",
            name,
        ) from None
    for p in policies or ():
        if not isinstance(p, (str, PolicyChoice)):  # a type mistake, not an unknown name
            name = label("policies")
            raise BadValueError(
                f"{name} must be policy strings such as 'greedy:eps=0.1', not {p!r:.60} "
                f"({type(p).__name__})",
                name,
            )
    choices = [
        p if isinstance(p, PolicyChoice) else parse_policy(p, spec)
        for p in (list(policies) if policies else ["random"])
    ]
    if players is None:
        players = len(choices) if len(choices) > 1 else spec.default_players
    check_players(spec, Whole().check(players, label("players")))
    if len(choices) == 1:
        choices = choices * players
    if len(choices) != players:
        raise ConfigError(
            f"{len(choices)} policies given for {players} seats; give one policy "
            f"for all seats or one per seat"
        )
    choices = [spec.with_restrictions(c) for c in choices]  # forbid= names to masks
    for c in choices:
        spec.policy(c.name).vector(c.params, c.written)  # validates names and parameters
    if options is not None and not isinstance(options, dict):
        name = label("options")
        raise BadValueError(
            f"{name} must be a dict of option: value, not {options!r:.60} ({type(options).__name__})",
            name,
        )
    for key in options or {}:
        if key not in module.OPTIONS:
            listed = ", ".join(module.OPTIONS) or "none"
            raise ConfigError(f"unknown option {key!r} for {spec.id} (its options: {listed})")
    if variant is not None and not isinstance(variant, dict):  # a type mistake (a string)
        name = label("variant")
        raise BadValueError(
            f"{name} must be a dict of variant: value (e.g. {{'zone': 'chebyshev8'}}), "
            f"not {variant!r:.60} ({type(variant).__name__})",
            name,
        )
    config = RunConfig(
        game=spec.id,
        players=players,
        policies=choices,
        variant=spec.resolve_variant(variant),
        options=dict(options or {}),
    )
    return module, module.check_config(config)


#: ``{"on": True}`` when this process is the ``mcsim`` program (set by ``cli.main`` through
#: ``as_program``), not a library caller (a notebook, a test harness): a one-worker run then
#: plays in a worker process, where Ctrl-C can stop it (see ``Executor``), and the compile
#: notice is printed whether or not stderr is a terminal (see ``compile_notice``).
_AS_PROGRAM = {"on": False}
_NOTES_SAID: set[str] = set()


def as_program(on: bool = True) -> None:
    """Behave as the ``mcsim`` program (see ``_AS_PROGRAM``); called by ``cli.main``."""
    _AS_PROGRAM["on"] = bool(on)


def _note_once(text: str) -> None:
    """Print ``note: text`` on stderr, once per process (a tournament runs many simulations)."""
    if text not in _NOTES_SAID:
        _NOTES_SAID.add(text)
        print(f"note: {text}", file=sys.stderr, flush=True)


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        return os.cpu_count() or 1


class ChunkPlan:
    """The chunks of a run: ``[(first_game_index, n_games), ...]`` covering ``0 .. games-1``.

    Depends only on the game count (and an explicit ``chunk_size``), never on workers or the
    backend. Default size: the game's ``CHUNK_SIZE``, but at least 16 chunks when that leaves
    ``MIN_CHUNK_SIZE`` games per chunk; rounded up to the game's ``CHUNK_MULTIPLE``. A lazy
    sequence (iterating it allocates nothing per chunk up front), so any game count fits.
    """

    def __init__(self, games: int, chunk: int):
        self.games = games
        self.chunk = chunk

    def __len__(self) -> int:
        return -(-self.games // self.chunk)

    def __iter__(self):
        for first in range(0, self.games, self.chunk):
            yield first, min(self.chunk, self.games - first)

    def __getitem__(self, k: int) -> tuple[int, int]:
        first = range(0, self.games, self.chunk)[k]
        return first, min(self.chunk, self.games - first)

    def __eq__(self, other) -> bool:
        return list(self) == list(other)

    def __repr__(self) -> str:
        return f"ChunkPlan(games={self.games}, chunk={self.chunk})"


def chunk_plan(module, games: int, chunk_size: int | None = None) -> ChunkPlan:
    """The run's chunks (see ``ChunkPlan``)."""
    if chunk_size is None:
        cap = int(module.CHUNK_SIZE)
        chunk = max(min(cap, -(-games // 16)), min(MIN_CHUNK_SIZE, games))
    else:
        chunk = int(chunk_size)
    mult = int(module.CHUNK_MULTIPLE)
    chunk = -(-chunk // mult) * mult
    return ChunkPlan(games, chunk)


def _part_name(first: int) -> str:
    return f"part-{first:012d}"


# Dataset layout: part-<first>.parquet per chunk; the sidecar files start with "_" so that
# pandas/pyarrow read the directory as one dataset (they skip "_" and "." names).
MANIFEST_NAME = "_manifest.json"
SUMMARY_NAME = "_summary.json"
AGGREGATES_DIR = "_aggregates"


def _agg_path(out_dir, first: int) -> Path:
    return Path(out_dir) / AGGREGATES_DIR / (_part_name(first) + ".json")


def _work(task):
    """Play one chunk (in a worker): returns ``(first, Aggregate, DataFrame or None)``."""
    module_name, prep, first, n, seed, keep, out_dir, run_id = task
    module = importlib.import_module(module_name)
    cols = module.play_chunk(prep, first, n, seed)
    df = games_frame(cols, first, prep.config.players)
    partial = module.partial_summary(df, prep)
    agg = Aggregate.of_games(df, prep.config.players, partial)
    if out_dir is not None:
        _save_chunk(Path(out_dir), first, agg, df, run_id)
    return first, agg, (df if keep else None)


def doc_digest(doc: dict) -> str:
    """SHA-256 (hex) of a JSON object's canonical text (sorted keys, no spaces) without its
    ``"digest"`` key: written into the object, it shows any later edit of a saved file
    (a chunk aggregate, a batch cell summary) on ``--resume``."""
    import hashlib

    body = {k: v for k, v in doc.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), default=json_default)
    return hashlib.sha256(text.encode()).hexdigest()


def _save_chunk(out_dir: Path, first: int, agg: Aggregate, df: pd.DataFrame, run_id: str):
    """Write a finished chunk: the part first, then its aggregate, which ties the part to the
    run and the chunk (``"chunk": {"run", "first", "part_sha256"}``) and carries its own
    ``doc_digest``; a chunk counts as finished only when both are there."""
    sha = {}

    def write_part(tmp):
        df.to_parquet(tmp, index=False)
        sha["part"] = content_hash(tmp)

    write_atomic(out_dir / (_part_name(first) + ".parquet"), write_part)
    doc = json.loads(json.dumps(agg.to_json(), default=json_default))
    doc["chunk"] = {"run": run_id, "first": first, "part_sha256": sha["part"]}
    doc["digest"] = doc_digest(doc)
    text = json.dumps(doc)
    write_atomic(_agg_path(out_dir, first), lambda tmp: Path(tmp).write_text(text))


def run_id(manifest: dict) -> str:
    """The id of a run (``doc_digest`` of its ``_manifest.json`` "run" block: game, games,
    seed, seats, policies with every parameter, variant, options, chunking and the hashes of
    its data files), written into every chunk aggregate of the run."""
    return doc_digest(json.loads(json.dumps(manifest, default=json_default)))


def _chunk_tie_damage(doc: dict, agg_file: Path, part: Path, first: int, run: str) -> str | None:
    """Why a saved chunk is not this run's chunk ``first`` as written (None when it is): an
    edited aggregate, one of another run or chunk, or a part that is not the one it describes
    (copied from another run, edited, replaced)."""
    if doc.get("digest") != doc_digest(doc):
        return f"{agg_file}: chunk aggregate was edited or not written by this mcsim"
    tie = doc.get("chunk")
    if not isinstance(tie, dict) or tie.get("run") != run:
        return f"{agg_file}: chunk aggregate belongs to another run"
    if tie.get("first") != first:
        return f"{agg_file}: chunk aggregate belongs to the chunk of game {tie.get('first')!r}"
    try:
        sha = content_hash(part)
    except OSError as e:
        return f"{part}: cannot read chunk part ({e.strerror or e})"
    if sha != tie.get("part_sha256"):
        return (
            f"{part}: not the chunk part this run wrote (sha256 {sha[:12]}, "
            f"{str(tie.get('part_sha256'))[:12]} written)"
        )
    return None


PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _worker_init(parent_pid: int | None = None):
    """Start of every local worker process: Ctrl-C is the parent's to handle (the terminal
    sends SIGINT to the whole process group), and the worker dies with its parent: the kernel
    sends it SIGKILL when the parent ends, however it ends (Linux ``PR_SET_PDEATHSIG``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass
    if parent_pid is not None and os.getppid() != parent_pid:  # the parent died before prctl
        os._exit(1)


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """The interrupt path of the local backend: drop queued chunks, kill the workers (a
    running kernel cannot be asked to stop), and return without waiting for them."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for p in procs:
        if p.is_alive():
            p.kill()
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        p.join(timeout=5)
    # Let the pool's manager thread see the dead workers and end now (bounded): left running,
    # it races Python's exit-time wake-up of the pool (``OSError: [Errno 9] Bad file
    # descriptor``, "Exception ignored") or keeps the exit waiting.
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None:
        manager.join(timeout=5)


_NO_TASK = object()  # Executor.imap: the tasks are exhausted


class Executor:
    """The one execution layer of every command: local worker processes, Dask, or this process.

    ``imap(fn, tasks)`` yields ``fn(task)`` in task order, keeping at most ~2 tasks per worker
    unfinished (and, with ``hold``, finished tasks waiting behind a long one); ``fn`` must be a module-level function (it is sent to the workers). The workers
    are started at the first ``imap`` and serve every later one until ``close()`` (tuning maps
    one generation of candidates after another on the same pool). One interrupt path: when the
    caller stops early (Ctrl-C, an error, or closing the generator), pending tasks are
    cancelled and the workers are killed at once (local processes) or the Dask futures
    cancelled and the cluster closed; a second Ctrl-C during that cleanup is ignored, and the
    executor is closed. Workers die with their parent (``_worker_init``). A Ctrl-C while the
    local workers start is raised once they are up (``_sigint_deferred``) and takes the same
    path. With ``backend="serial"`` (or, for a library caller, ``backend="local"`` and one
    worker) the tasks run in this process, and Ctrl-C takes effect when the running kernel call
    returns; the ``mcsim`` program plays one worker's tasks in a worker process (``as_program``).

    ``pool_size`` (local backend) caps the processes started (default ``workers``): a single
    chunk still runs in one worker process, so that Ctrl-C can always stop it. Local processes
    and a LocalCluster never outnumber this machine's cores. Raises ``ConfigError`` when Dask
    is missing or its scheduler cannot be reached.
    """

    def __init__(
        self, backend: str, workers: int, scheduler: str | None = None, pool_size: int | None = None
    ) -> None:
        self.backend = backend
        self.workers = workers
        self.scheduler = scheduler
        self.pool_size = workers if pool_size is None else pool_size
        if backend == "local" or (backend == "dask" and not scheduler):
            # this machine's processes: never more than its cores (more only compete for them)
            self.workers = min(self.workers, default_workers())
            self.pool_size = min(self.pool_size, self.workers)
        # In this process only when asked (``serial``), or for a library caller's one worker:
        # a kernel call cannot be interrupted, so the program plays even one worker's games in
        # a worker process, which Ctrl-C kills at once.
        self.in_process = backend == "serial" or (
            backend == "local" and workers <= 1 and not _AS_PROGRAM["on"]
        )
        self._submit = None
        self._close = None
        self._stop = None

    def _start(self) -> None:
        if self.backend == "local":
            pool = ProcessPoolExecutor(
                max_workers=max(1, self.pool_size),
                mp_context=mp.get_context("fork"),
                initializer=_worker_init,
                initargs=(os.getpid(),),
            )
            self._submit = pool.submit
            self._close = lambda: pool.shutdown(wait=True, cancel_futures=True)
            self._stop = lambda: _stop_pool(pool)
        else:
            client, close = _dask_client(self.workers, self.scheduler)
            self._submit = lambda fn, t: client.submit(fn, t, pure=False)
            self._close = close
            self._stop = close

    def imap(self, fn, tasks, hold: int | None = None):
        """Yield ``fn(t)`` for every ``t`` of ``tasks`` (any iterable, consumed lazily), in order.

        At most ``2 * workers`` tasks are unfinished at a time. By default a new task is sent
        only when the oldest one's result is taken, so one long task idles the other workers
        once they have finished the rest of the window. With ``hold`` (a precision study,
        whose chunks differ in cost by a factor of 100) up to ``hold`` tasks may wait,
        finished, behind an unfinished oldest one, and a worker that frees up takes the next
        task meanwhile; results are still yielded in task order."""
        if self.in_process:
            for t in tasks:
                yield fn(t)
            return
        it = iter(tasks)
        window = max(2, 2 * self.workers)
        hold = window if hold is None else max(window, hold)
        pending: collections.deque = collections.deque()
        finished = False
        # Dask's start-up blocks SIGINT itself (``_dask_client``); local workers are forked by
        # the first submissions.
        defer = _sigint_deferred if self.backend == "local" else contextlib.nullcontext
        try:
            with defer():
                if self._submit is None:
                    self._start()
                for t in it:
                    pending.append(self._submit(fn, t))
                    if len(pending) >= window:
                        break
            while pending:
                while hold > window and not pending[0].done():
                    if len(pending) < hold and sum(not f.done() for f in pending) < window:
                        t = next(it, _NO_TASK)
                        if t is _NO_TASK:
                            break
                        pending.append(self._submit(fn, t))
                    else:
                        time.sleep(0.02)  # until a worker frees up or the oldest task ends
                yield pending.popleft().result()
                while len(pending) < window or (
                    len(pending) < hold and sum(not f.done() for f in pending) < window
                ):
                    t = next(it, _NO_TASK)
                    if t is _NO_TASK:
                        break
                    pending.append(self._submit(fn, t))
                    if hold == window:
                        break
            finished = True
        finally:
            if not finished:
                stop = self._stop
                self._submit = self._close = self._stop = None
                if stop is not None:  # (None: the start itself failed)
                    _quiet_cleanup(pending, stop)

    def close(self) -> None:
        """Let the workers finish and stop them (nothing to do in process or when closed)."""
        if self._close is not None:
            close = self._close
            self._submit = self._close = self._stop = None
            _quiet_cleanup((), close)

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _execute(tasks, backend: str, workers: int, scheduler: str | None):
    """Yield ``_work`` results in task order (``Executor.imap``), in a pool sized to the work:
    one process when there is a single chunk."""
    it = iter(tasks)
    head = list(itertools.islice(it, 2))
    if not head:
        return
    ex = Executor(backend, workers, scheduler, pool_size=workers if len(head) > 1 else 1)
    try:
        yield from ex.imap(_work, itertools.chain(head, it))
    finally:
        ex.close()


class _sigint_deferred:
    """Context manager: a Ctrl-C inside the block raises ``KeyboardInterrupt`` when the block
    ends, not in the middle of it.

    Starting worker processes is where this matters: a ``KeyboardInterrupt`` raised inside
    ``os.fork`` lands in an at-fork hook (the ``logging`` module's), where Python prints
    "Exception ignored" with a traceback and drops it, so the run went on and printed its
    summary; and a forked worker that took the signal before ``_worker_init`` ignores it
    printed its own traceback. Workers forked inside the block inherit the deferring handler,
    so a Ctrl-C there is harmless to them, and ``_worker_init`` then ignores SIGINT. The
    deferred interrupt takes the one interrupt path of the caller (``Executor.imap``'s
    cleanup). Outside the main thread (where signals are not handled) it does nothing."""

    def __enter__(self):
        import threading

        self.got = []
        self.old = None
        if threading.current_thread() is threading.main_thread():
            self.old = signal.signal(signal.SIGINT, lambda signum, frame: self.got.append(signum))
        return self

    def __exit__(self, *exc):
        if self.old is None:
            return False
        signal.signal(signal.SIGINT, self.old)
        if self.got and exc[0] is None:
            if callable(self.old):
                self.old(signal.SIGINT, None)  # raises KeyboardInterrupt (the default handler)
            elif self.old == signal.SIG_DFL:
                raise KeyboardInterrupt
        return False


def _quiet_cleanup(pending, close) -> None:
    """Cancel ``pending`` futures and call ``close``, ignoring further Ctrl-C meanwhile."""
    import threading

    main = threading.current_thread() is threading.main_thread()
    old = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        for f in pending:
            f.cancel()
        close()
    finally:
        if main:
            signal.signal(signal.SIGINT, old)


def _dask_client(workers: int, scheduler: str | None):
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ConfigError(
            "--backend dask needs the dask extra: pip install 'mcsim[dask]'"
        ) from None
    if scheduler:
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError, ValueError, TypeError) as e:
            raise ConfigError(f"cannot reach the Dask scheduler at {scheduler} ({e})") from None
        return client, client.close
    import logging
    import threading

    logging.getLogger("distributed").setLevel(logging.ERROR)
    # The worker processes must not see the terminal's Ctrl-C (it is this process's to handle):
    # SIGINT is blocked while they are started, and they inherit the blocked mask; a Ctrl-C
    # meanwhile is delivered here as soon as the cluster is up, and takes the interrupt path.
    # Their stderr is /dev/null (they inherit it here): a worker's failure reaches this process
    # through its future, and a cluster closed by Ctrl-C prints no worker tracebacks.
    main = threading.current_thread() is threading.main_thread()
    if main:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    sys.stderr.flush()
    saved_err = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)
    try:
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        try:
            client = Client(cluster)
        except BaseException:
            cluster.close()
            raise
    finally:
        os.dup2(saved_err, 2)
        os.close(saved_err)
        if main:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    def close():
        client.close()
        cluster.close()

    return client, close


def games_frame(
    columns: dict[str, np.ndarray], first_game_index: int, players: int
) -> pd.DataFrame:
    """Turn a game's column arrays into the per-game DataFrame (see ``SimulationResult``)."""
    scores = np.asarray(columns["score"])
    n = scores.shape[0]
    rank, share, winner = stats.ranks_and_shares(scores, columns.get("win_share"))
    data: dict[str, Any] = {
        "game_index": np.arange(first_game_index, first_game_index + n, dtype=np.int64)
    }
    for k in range(players):
        data[f"score_{k}"] = scores[:, k]
    for k in range(players):
        data[f"rank_{k}"] = rank[:, k]
    for k in range(players):
        data[f"win_share_{k}"] = share[:, k]
    data["winner"] = winner
    data["length_plies"] = np.asarray(columns["length"])
    for name, arr in columns.items():
        if name in ("score", "win_share", "length"):
            continue
        arr = np.asarray(arr)
        if arr.ndim == 1:
            data[name] = arr
        else:
            for k in range(arr.shape[1]):
                data[f"{name}_{k}"] = arr[:, k]
    return pd.DataFrame(data)


def build_summary(
    module,
    prep: Prepared,
    agg: Aggregate,
    seed: int,
    elapsed: float,
    played: int | None = None,
    compile_seconds: float = 0.0,
) -> dict:
    """The common summary frame (docs/outputs.md, "JSON summary") plus the game's own block.

    ``elapsed_seconds`` is the wall time of the call, Numba compile (or cache load) included;
    ``compile_seconds`` that compile part; ``games_per_second`` counts the ``played`` games of
    this call (a resumed run's earlier chunks are not counted) over the play time alone
    (``elapsed - compile_seconds``)."""
    cfg = prep.config
    labels = [p.label() for p in cfg.policies]
    summary: dict[str, Any] = {
        "game": cfg.game,
        "games": agg.n,
        "seed": seed,
        "players": cfg.players,
        "variant": dict(cfg.variant),
        "policies": labels,
    }
    summary.update(prep.info)
    summary["seats"] = agg.seat_summaries(labels, module.SPEC.score_bounds)
    summary["length"] = agg.length_summary()
    played = agg.n if played is None else played
    play = elapsed - compile_seconds
    summary["games_per_second"] = played / play if play > 0 and played else None
    summary["elapsed_seconds"] = elapsed
    summary["compile_seconds"] = compile_seconds
    summary[module.SPEC.summary_key] = module.finalize_summary(agg.game_partial, prep)
    return summary


def timing_text(summary: dict) -> str:
    """The time and throughput of a run as one phrase, each figure labelled so that they agree:
    ``"7.97 s (4.48 s of it compiling or loading kernels), 286,282 games/s after that"``: the wall
    seconds (``elapsed_seconds``, compile included), the compile part (``compile_seconds``,
    shown when it is at least 0.005 s) and the rate over the play time alone
    (``games_per_second``); a rate under 10 games/s reads as seconds per game. Every text
    output of a run's timing uses it (docs/outputs.md, "JSON summary")."""
    gps = summary.get("games_per_second") or 0
    comp = float(summary.get("compile_seconds") or 0.0)
    # slow runs (search policies) read better as seconds per game than as "0 games/s"
    rate = f"{gps:,.0f} games/s" if gps >= 10 or gps == 0 else f"{1 / gps:,.2f} s/game"
    if comp < 0.005:  # nothing compiled: the seconds and the rate measure the same time
        return f"{summary['elapsed_seconds']:.2f} s, {rate}"
    return (
        f"{summary['elapsed_seconds']:.2f} s ({comp:.2f} s of it compiling or loading kernels), "
        f"{rate} after that"
    )


def _run_manifest(cfg: RunConfig, games: int, seed: int, plan, module=None) -> dict:
    m = {
        "game": cfg.game,
        "games": games,
        "seed": seed,
        "players": cfg.players,
        "policies": [p.label() for p in cfg.policies],
        "variant": dict(cfg.variant),
        "options": {k: str(v) for k, v in cfg.options.items()},
        "chunk_size": plan.chunk,
        "chunks": len(plan),
    }
    if module is not None:
        m.update(run_fingerprint(module, cfg))
    return m


def content_hash(path: str | os.PathLike) -> str:
    """SHA-256 (hex) of a file's bytes, or of a folder's files (relative names and contents,
    in sorted order, hidden names skipped)."""
    import hashlib

    path = Path(path)
    h = hashlib.sha256()
    if path.is_dir():
        for f in sorted(q for q in path.rglob("*") if q.is_file()):
            rel = f.relative_to(path).as_posix()
            if any(part.startswith(".") or part == "__pycache__" for part in rel.split("/")):
                continue
            h.update(rel.encode() + b"\0" + content_hash(f).encode() + b"\n")
        return h.hexdigest()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def run_fingerprint(module, cfg: RunConfig) -> dict:
    """What a run's results depend on, for ``--resume``.

    ``config``: the full resolved configuration (every policy's complete parameter vector by
    name, defaults included; every variant; the options as given; the mcsim version).
    ``inputs``: ``{name: sha256}`` of every data file the run reads: the game's shipped data
    folder (``data mcsim/data/<game>``) and each option naming a file or folder
    (``option tiles (t.json)``). Resume compares both and refuses any difference.
    """
    import mcsim

    spec = module.SPEC
    params = []
    for c in cfg.policies:
        ps = spec.policy(c.name)
        vec = ps.vector(c.params)
        params.append({"policy": c.name, **{q.name: float(v) for q, v in zip(ps.params, vec)}})
    config = {"policy_params": params, "mcsim": mcsim.__version__}
    inputs = {}
    data_dir = Path(__file__).resolve().parent / "data" / module.__name__.rsplit(".", 1)[-1]
    if data_dir.is_dir():
        inputs[f"data mcsim/data/{data_dir.name}"] = content_hash(data_dir)
    for k, v in sorted(cfg.options.items()):
        if isinstance(v, (str, os.PathLike)) and str(v) and Path(v).exists():
            inputs[f"option {k} ({v})"] = content_hash(v)
    return {"config": config, "inputs": inputs}


def fingerprint_change(old: dict | None, new: dict) -> str | None:
    """One phrase naming the first difference between two ``run_fingerprint`` dicts (None when
    they are equal): a changed data file by name, else the changed configuration entry."""
    if not isinstance(old, dict) or "inputs" not in old or "config" not in old:
        return "it was written without input hashes (by an older mcsim)"
    oi, ni = old.get("inputs") or {}, new["inputs"]
    for name, h in ni.items():
        if name not in oi:
            what = name.split(" (")[0]
            before = [o for o in oi if o.split(" (")[0] == what]
            return (
                f"{name}: another file than {before[0][len(what) + 1 :]} there"
                if before
                else f"{name} was not used there"
            )
        if oi[name] != h:
            return f"{name} has different content now (sha256 {oi[name][:12]} there, {h[:12]} now)"
    for name in oi:
        if name not in ni:
            return f"{name} was used there, not now"
    oc, nc = old.get("config") or {}, new["config"]
    for k, v in nc.items():
        if oc.get(k) != v:
            return f"{k} {oc.get(k)!r} there, {v!r} now"
    return None


def check_resume_manifest(out_dir: Path, manifest: dict, skip: tuple[str, ...] = ()) -> dict:
    """Refuse ``--resume`` into ``out_dir`` unless it holds this run (every key of
    ``manifest`` but ``skip`` equal, the same data files); returns the saved "run" block.
    Raises ``ConfigError`` (no or another run), ``InputFileError`` (a bad manifest)."""
    mfile = out_dir / MANIFEST_NAME
    if not mfile.exists():
        raise ConfigError(f"cannot resume: {out_dir} holds no run (no {MANIFEST_NAME})")
    old = read_json_object(mfile, "run manifest").get("run")
    if not isinstance(old, dict):
        raise InputFileError(f'{mfile}: run manifest has no "run" object')
    for k, v in manifest.items():
        if k in ("config", "inputs") or k in skip:
            continue
        if old.get(k) != v:
            what = k  # "games": --games, or the cap of a --precision run (its manifest's)
            if k == "games":
                from mcsim.values import label

                what = label("max_games" if manifest.get("precision") is not None else "games")
            raise ConfigError(
                f"cannot resume: {out_dir} holds a different run "
                f"({what} {old.get(k)!r} there, {v!r} now)"
            )
    if "inputs" in manifest:
        change = fingerprint_change(old, manifest)
        if change:
            raise ConfigError(
                f"cannot resume: {out_dir} holds a run of other inputs "
                f"({change}); start a new run in another directory"
            )
    return old


def _prepare_out_dir(out_dir: Path, manifest: dict, resume: bool) -> set[int]:
    """Create or check the dataset directory; returns the first indices of finished chunks."""
    mfile = out_dir / MANIFEST_NAME
    if resume:
        check_resume_manifest(out_dir, manifest)
    else:
        if out_dir.exists() and any(out_dir.iterdir()):
            raise ConfigError(
                f"{out_dir} is not empty; use --resume to continue the run in it, "
                f"--force to start over, or choose another directory"
            )
        if out_dir.exists() and not out_dir.is_dir():
            raise ConfigError(f"{out_dir} is a file, not a directory")
        if not out_dir.parent.is_dir():
            raise ConfigError(f"cannot write {out_dir}: directory {out_dir.parent} does not exist")
        out_dir.mkdir(exist_ok=True)
        (out_dir / AGGREGATES_DIR).mkdir(exist_ok=True)
        text = json.dumps({"run": manifest, "versions": versions()}, indent=2)
        write_atomic(mfile, lambda tmp: Path(tmp).write_text(text + "\n"))
    for tmp in itertools.chain(
        out_dir.glob(".part-*.tmp"),  # left by killed workers
        (out_dir / AGGREGATES_DIR).glob(".part-*.tmp"),
    ):
        tmp.unlink(missing_ok=True)
    done = set()
    for f in out_dir.glob("part-*.parquet"):
        digits = f.stem[len("part-") :]
        if not (digits.isascii() and digits.isdigit()):
            continue  # a stray file, not one of ours: ignored (and never read)
        first = int(digits)
        if _agg_path(out_dir, first).exists():
            done.add(first)
    return done


def _load_chunk(out_dir: Path, first: int, n: int, players: int, keep: bool, run: str = ""):
    """The saved aggregate (and rows, with ``keep``) of a finished chunk of a resumed run, or
    ``None`` with the reason when either file is damaged, edited, or not the one run ``run``
    wrote for this chunk (the chunk is then played again: a chunk depends only on the seed and
    its first game)."""
    part = out_dir / (_part_name(first) + ".parquet")
    try:
        doc = read_json_object(_agg_path(out_dir, first), "chunk aggregate")
        try:
            agg = Aggregate.from_json(doc)
            Aggregate.empty(players).merge(agg)  # every field of the right type ...
            if any(
                len(x) != players
                for x in (agg.win_share, agg.score_sum, agg.score_sumsq, agg.score_hist)
            ):  # ... and length
                raise ValueError("seat count")
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
            raise InputFileError(
                f"{_agg_path(out_dir, first)}: not a chunk aggregate ({type(e).__name__})"
            ) from None
        if agg.n != n or agg.players != players:
            raise InputFileError(
                f"{_agg_path(out_dir, first)}: holds {agg.n} games of "
                f"{agg.players} players, not {n} of {players}"
            )
        if keep:
            df = read_parquet(part, "chunk part")
            ok = (
                len(df) == n
                and "game_index" in df
                and np.array_equal(df["game_index"].to_numpy(), np.arange(first, first + n))
            )
        else:
            df, ok = None, parquet_rows(part, "chunk part") == n
        if not ok:
            raise InputFileError(f"{part}: does not hold games {first}..{first + n - 1}")
        damage = _chunk_tie_damage(doc, _agg_path(out_dir, first), part, first, run)
        if damage:
            return None, damage
    except McsimError as e:
        return None, str(e)
    return (agg, df), None


#: the limits of a run's game count and seed (``mcsim.values``; the command line's flags use them too)
GAMES = Whole(1, MAX_GAMES, "a positive whole number", f"{MAX_GAMES:,} (10**12)")
SEED = Whole(0, MAX_SEED, "a whole number in [0, 2**64)")
#: games per chunk: at most a run's largest game count
CHUNK_SIZE = Whole(1, MAX_GAMES, None, f"{MAX_GAMES:,} (10**12)")
#: worker processes
WORKERS = Whole(1)
#: a game's index in a run (``show --game-index``): below the largest game count
GAME_INDEX = Whole(0, MAX_GAMES - 1, None, f"{MAX_GAMES:,} (10**12)", below=True)


def check_limits(games, seed, games_name: str | None = None, seed_name: str | None = None) -> None:
    """The limits ``simulate`` enforces on a run's game count and seed, for every caller
    (``simulate`` itself, and each cell of a batch plan before anything is played, named by
    its plan key). Both must be ints (``GAMES``, ``SEED``). Raises ``BadValueError`` naming
    ``games_name`` / ``seed_name`` (default: ``games=`` / ``seed=`` from Python, the flags
    on the command line; ``mcsim.values.label``)."""
    GAMES.check(games, games_name or label("games"))
    SEED.check(seed, seed_name or label("seed"))


#: seconds of warm-up after which the CLI says that it is compiling
COMPILE_NOTICE_AFTER = 1.0


def _stderr_is_terminal() -> bool:
    """The compile notice is for a person at a terminal (like the progress bar); logs and
    captured output (tests, pipelines) get none."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


#: the compile notices whose blocks run now, innermost last: ``call_killable`` gives the
#: innermost to its worker process, where the kernels then compile
_ACTIVE_NOTICES: list = []


class compile_notice:
    """Context manager: when Numba compiles a kernel during the block (the kernels' warm-up)
    and the block is still running ``COMPILE_NOTICE_AFTER`` seconds after it began, say on
    stderr that the kernels are being compiled and that this happens once (Numba caches the
    machine code, ``cache=True``). Silent when ``enabled`` is false (``--quiet``), when the
    cache loads quickly, and when the block is slow without compiling (a long ``show`` game
    on a warm cache): only Numba's ``numba:compile`` events, which a cache load does not
    raise, count as compiling."""

    def __init__(self, what: str, enabled: bool = True):
        import threading

        self.what = what
        self.after = COMPILE_NOTICE_AFTER
        self.timer = threading.Timer(self.after, self._due)
        self.timer.daemon = True
        self.enabled = enabled
        self.lock = threading.Lock()
        self.compiled = False  # a numba:compile event started during the block
        self.said = False
        self.t0 = 0.0
        self.listener = None

    @staticmethod
    def _say(what: str) -> None:
        print(
            f"{what}: compiling the game's kernels; this happens once per install or code change "
            "(the machine code is cached) ...",
            file=sys.stderr,
            flush=True,
        )

    def _say_once(self) -> None:
        with self.lock:
            if self.said:
                return
            self.said = True
        self._say(self.what)

    def _due(self) -> None:
        """The timer: the block has run ``after`` seconds; a notice if it compiled."""
        if self.compiled:
            self._say_once()

    def _compile_started(self) -> None:
        self.compiled = True
        if time.perf_counter() - self.t0 >= self.after:
            self._say_once()

    def __enter__(self):
        if self.enabled:
            from numba.core import event

            notice = self

            class _Compiles(event.Listener):
                def on_start(self, ev):
                    notice._compile_started()

                def on_end(self, ev):
                    pass

            self.listener = _Compiles()
            event.register("numba:compile", self.listener)
            self.t0 = time.perf_counter()
            self.timer.start()
            _ACTIVE_NOTICES.append(self)
        return self

    def __exit__(self, *exc):
        self.timer.cancel()
        if self in _ACTIVE_NOTICES:
            _ACTIVE_NOTICES.remove(self)
        if self.listener is not None:
            from numba.core import event

            event.unregister("numba:compile", self.listener)
            self.listener = None
        return False


#: ``gc.set_threshold`` while mcsim runs (see :func:`quiet_collector`); Python's default is
#: (700, 10, 10).
COLLECTOR_THRESHOLDS = (100_000, 50, 50)


def quiet_collector() -> None:
    """Let Python's cyclic garbage collector run rarely (``gc.set_threshold(*COLLECTOR_THRESHOLDS)``:
    a young collection after 100,000 net allocations instead of 700).

    Numba's compiler allocates millions of long-lived Python objects, and with the default
    thresholds the collector keeps scanning them: 15-20% of a cold compile's CPU
    (``mcsim simulate thurn-and-taxis --games 10`` on an empty cache, 2026-12-01: 13.4-15.4 s of
    CPU with the defaults, 11.2-11.8 s with these). Kernel calls allocate no Python objects, so
    warm play is unchanged; cycles are still collected, later. Called by the command line (for
    the whole process and its forked workers) and the test suite."""
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


def _notice_wanted() -> bool:
    """The compile notice is printed at a terminal and by the ``mcsim`` program whatever its
    stderr is (a log, a pipe: a 15-50 s silent wait looks like a hang); a library caller whose
    stderr is not a terminal (a test harness capturing output) gets none."""
    return _AS_PROGRAM["on"] or _stderr_is_terminal()


def compiling(module, quiet: bool = False) -> compile_notice:
    """The compile notice of ``replay``, ``show`` and ``perft`` (see ``_notice_wanted``; none
    with ``quiet``, their ``-q``): the game's kernels may compile on their first call there
    too."""
    return compile_notice(module.SPEC.long_name, _notice_wanted() and not quiet)


def resolve_execution(workers, backend, scheduler, resume, out_dir) -> tuple[int, str]:
    """The worker count and backend of a run (``simulate``, ``tune``): workers default to all
    cores, the backend to ``local`` (``serial`` for one worker, except in the ``mcsim``
    program, see ``as_program``). Raises ``ConfigError`` for fewer than one worker, more than
    one with ``serial`` (which plays in this process), an unknown backend, ``--scheduler``
    without dask, or ``--resume`` without ``--out``; ``BadValueError`` for an empty
    ``scheduler``."""
    if workers is None:
        workers = default_workers()
    elif backend == "serial" and WORKERS.check(workers, label("workers")) > 1:
        raise ConfigError(
            f"{label('workers', workers)} goes with {label('backend')}{' ' if on_cli() else ''}"
            f"local or dask; {label('backend', 'serial')} plays every game in this one process"
        )
    workers = WORKERS.check(workers, label("workers"))
    if backend is None:
        backend = "local" if workers > 1 or _AS_PROGRAM["on"] else "serial"
    if backend not in BACKENDS:
        raise ConfigError(f"unknown backend {backend!r}; choose from: {', '.join(BACKENDS)}")
    if isinstance(scheduler, str) and not scheduler.strip():  # no address (not "a LocalCluster")
        raise BadValueError(
            f"{label('scheduler')} is empty; give a scheduler address such as tcp://host:8786"
        )
    if scheduler and backend != "dask":
        raise ConfigError(f"{label('scheduler')} goes with {label('backend', 'dask')}")
    if resume and out_dir is None:
        needs = "--resume needs --out DIR" if on_cli() else "resume=True needs out_dir="
        raise ConfigError(f"{needs} (the directory of the interrupted run)")
    return workers, backend


def _usable_workers(asked, workers, backend, scheduler, chunks: int, say: bool) -> int:
    """The workers a run can use: at most this machine's cores (local processes, a
    LocalCluster) and the chunks it has to play; with ``say``, a ``note:`` on stderr when that
    is fewer than ``asked`` (``--workers``). Results do not depend on it."""
    used = min(workers, max(1, chunks))
    cores = default_workers()
    if backend == "local" or (backend == "dask" and not scheduler):
        used = min(used, cores)
    if say and asked is not None and used < asked:
        why = []
        if asked > cores and backend != "serial" and not (backend == "dask" and scheduler):
            why.append(f"this machine has {cores} core{'s' if cores != 1 else ''}")
        if asked > chunks:
            why.append(f"the run has {chunks} chunk{'s' if chunks != 1 else ''} to play")
        _note_once(
            f"--workers {asked}: using {used} worker process{'es' if used != 1 else ''} "
            f"({' and '.join(why)}); results do not depend on it"
        )
    return used


def call_killable(fn, *args):
    """``fn(*args)``, in a worker process when this process is the ``mcsim`` program (see
    ``as_program``): a long kernel call (an MCTS game, a record) cannot be interrupted, while a
    worker process is killed at once by Ctrl-C (``Executor``'s interrupt path). ``fn`` and its
    arguments and result must pickle (``fn`` a module-level function). A library caller gets
    the call in its own process. Raises what ``fn`` raises."""
    if not _AS_PROGRAM["on"]:
        return fn(*args)
    # the compile notice of the block around this call watches the worker's compiles there
    notice = _ACTIVE_NOTICES[-1].what if _ACTIVE_NOTICES else None
    with Executor("local", 1, pool_size=1) as ex:
        return next(ex.imap(_call, [(fn, args, notice)]))


def _call(job):
    fn, args, notice = job
    if notice is None:
        return fn(*args)
    for inherited in _ACTIVE_NOTICES:  # copies of the parent's (a forked worker): silent here
        inherited.said = True
    with compile_notice(notice, True):
        return fn(*args)


def simulate(
    game: str,
    games: int = 10_000,
    seed: int = 0,
    policies: Iterable | None = None,
    variant: dict | None = None,
    players: int | None = None,
    workers: int | None = 1,
    chunk_size: int | None = None,
    options: dict | None = None,
    record: int = 0,
    progress: bool = False,
    backend: str | None = None,
    scheduler: str | None = None,
    out_dir: str | os.PathLike | None = None,
    resume: bool = False,
    keep_games: bool | None = None,
    force: bool = False,
) -> SimulationResult:
    """Play ``games`` complete games and summarise them.

    Parameters
    ----------
    game : str
        Game id (``mcsim games`` lists them), e.g. ``"sacred-hill"``.
    games : int
        Number of games (> 0).
    seed : int
        Root seed in ``[0, 2**64)``; game *i* depends only on ``(seed, i)``.
    policies : list of str or PolicyChoice
        One per seat, or one for all seats; ``"name"`` or ``"name:param=value,..."``.
    variant : dict
        ``{name: value}`` rule readings; unspecified ones take their defaults.
    players : int, optional
        Seat count (default: the number of policies given, else the game's default).
    workers : int or None
        Worker processes (None: all cores). Results do not depend on it.
    chunk_size : int, optional
        Games per chunk (default: see ``chunk_plan``).
    options : dict
        Game-specific options, e.g. ``{"tiles": "my_tiles.json"}`` for Don Quixote.
    record : int
        Also return the records of games ``0 .. record-1``.
    progress : bool
        Show a progress bar on stderr for runs over a second.
    backend : {"serial", "local", "dask"}, optional
        Default ``local`` (``serial`` when ``workers == 1``).
    scheduler : str, optional
        Dask scheduler address (``tcp://host:8786``); none: a LocalCluster of ``workers``.
    out_dir : path, optional
        Write the per-game rows as a Parquet dataset here, one ``part-<first>.parquet`` per chunk
        as chunks finish, with ``_manifest.json``, ``_aggregates/`` (for resuming) and, at the
        end, ``_summary.json``; ``pandas.read_parquet(out_dir)`` reads it whole.
    resume : bool
        Continue an interrupted run in ``out_dir``, skipping its finished chunks.
    force : bool
        Replace an earlier run in ``out_dir`` (``--force``; not with ``resume``). The new run
        is written into a hidden folder inside it and takes the earlier run's place only when
        the run has finished: a rejected, failed or interrupted run leaves the earlier one as
        it was. A folder holding anything but an earlier run's files is refused.
    keep_games : bool, optional
        Keep per-game rows in memory (``SimulationResult.games``); default: runs of at most
        2,000,000 games, and always for games whose summary needs all rows.

    Returns
    -------
    SimulationResult

    Raises
    ------
    UnknownGameError, UnknownPolicyError, UnknownVariantError, ConfigError, DataFileError

    Examples
    --------
    >>> r = simulate("sacred-hill", games=200, seed=1)
    >>> r.summary["games"], list(r.games.columns[:3])
    (200, ['game_index', 'score_0', 'score_1'])
    """
    check_limits(games, seed)
    if chunk_size is not None:
        chunk_size = CHUNK_SIZE.check(chunk_size, label("chunk_size"))
    record = Whole(0, MAX_GAMES).check(record, label("record"))
    asked = workers
    workers, backend = resolve_execution(workers, backend, scheduler, resume, out_dir)
    module, cfg = resolve_config(game, players, policies, variant, options)
    if keep_games is None:
        keep_games = games <= KEEP_GAMES_LIMIT
    prep = module.prepare(cfg)
    plan = chunk_plan(module, games, chunk_size)
    done: set[int] = set()
    out_path = Path(out_dir) if out_dir is not None else None
    manifest = _run_manifest(cfg, games, seed, plan, module)
    replacing = None  # with force over an earlier run: its RunReplacement
    if out_path is not None:
        if force and resume:
            raise ConfigError(
                "--force starts over and --resume continues: give one of them"
                if on_cli()
                else "force=True starts over and resume=True continues: give one of them"
            )
        from mcsim.outputs import SIMULATE_FOLDER, RunReplacement, check_run_folder

        # the one check of every output folder (an empty name, a file, another run, files
        # that are not a run's), in the caller's words: --out / out_dir=
        if check_run_folder(out_dir, "--out", SIMULATE_FOLDER, resume, force) and force:
            replacing = RunReplacement(out_path, SIMULATE_FOLDER)
            out_path = replacing.stage
        done = _prepare_out_dir(out_path, manifest, resume)
    workers = _usable_workers(asked, workers, backend, scheduler, len(plan) - len(done), progress)
    try:
        result = _simulate_chunks(
            module, prep, plan, seed, games, record, progress, backend, workers, scheduler,
            keep_games, out_path, done, run_id(manifest),
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


def _simulate_chunks(
    module, prep, plan, seed, games, record, progress, backend, workers, scheduler,
    keep_games, out_path, done, run_key,
) -> SimulationResult:  # fmt: skip
    """The play of ``simulate`` once everything is checked (``out_path`` prepared)."""
    t0 = time.perf_counter()
    with compile_notice(module.SPEC.long_name, progress and _notice_wanted()):
        module.play_chunk(prep, 0, 0, seed)  # compile (or load the cache) before the workers
    compile_seconds = time.perf_counter() - t0
    run = _ChunkRun(module, prep, seed, keep_games, out_path, run_key)
    tasks = (run.task(first, n) for first, n in plan if first not in done)
    results = _execute(tasks, backend, workers, scheduler)
    resumed = sum(n for first, n in plan if first in done) if done else 0
    bar = _progress_bar(games, resumed, progress)
    try:
        total, frames, replayed = run.merge(plan, done, results, bar)
    except BaseException:
        results.close()  # the interrupt path: workers stopped (killed) before we tidy up
        if out_path is not None:
            _remove_unfinished_parts(out_path)
        raise
    finally:
        bar.close()
        results.close()
    elapsed = time.perf_counter() - t0
    games_df = pd.concat(frames, ignore_index=True) if keep_games else None
    summary = build_summary(
        module,
        prep,
        total,
        seed,
        elapsed,
        played=games - resumed + replayed,
        compile_seconds=compile_seconds,
    )
    if out_path is not None:
        text = to_json(summary, indent=1)
        write_atomic(out_path / SUMMARY_NAME, lambda tmp: Path(tmp).write_text(text + "\n"))
    records = []
    if record:
        records = call_killable(module.record_games, prep, seed, list(range(min(record, games))))
    return SimulationResult(games_df, summary, prep, records, total)


def as_given(err: OutputWriteError, out_dirs) -> OutputWriteError:
    """A worker's write error with each folder named as the user gave it: the worker was sent
    its absolute path (a Dask worker's working directory is not the client's)."""
    text = str(err)
    for d in out_dirs:
        if d is not None:
            text = text.replace(str(Path(d).absolute()), str(d))
    return OutputWriteError(text)


class _ChunkRun:
    """The chunks of one ``simulate`` run: their worker tasks, and the merge of their results
    (played now, or loaded from a resumed ``out_dir``) in chunk order."""

    def __init__(
        self, module, prep, seed: int, keep_games: bool, out_path: Path | None, run_id: str = ""
    ) -> None:
        self.module = module
        self.prep = prep
        self.seed = seed
        self.keep_games = keep_games
        self.out_path = out_path
        self.run_id = run_id  # written into (and checked in) every chunk aggregate

    def task(self, first: int, n: int) -> tuple:
        """The ``_work`` task of games ``first .. first + n - 1``."""
        # absolute: a worker with another working directory (a Dask worker) must write into
        # the folder the client named, not one of the same name under its own directory
        out = None if self.out_path is None else str(Path(self.out_path).absolute())
        return (
            self.module.__name__, self.prep, first, n, self.seed, self.keep_games, out,
            self.run_id,
        )  # fmt: skip

    def merge(self, plan, done: set[int], results, bar):
        """Merge every chunk of ``plan`` in order: finished ones (``done``) from the folder, the
        others from ``results`` (``_execute``'s generator, in task order, so memory stays flat).
        A damaged finished chunk is played again here, with a note. Returns ``(Aggregate,
        frames, games played again)``."""
        total = Aggregate.empty(self.prep.config.players)
        frames: list[pd.DataFrame] = []
        replayed = 0
        for first, n in plan:
            if first in done:
                agg, df = self._load_or_replay(first, n)
                if agg is None:
                    agg, df = _work(self.task(first, n))[1:]
                    replayed += n  # (the bar counted it as resumed already)
            else:
                try:
                    got, agg, df = next(results)
                except OutputWriteError as e:
                    raise as_given(e, [self.out_path]) from None
                assert got == first, (got, first)
                bar.update(agg.n)
            total = total.merge(agg)
            if self.keep_games:
                frames.append(df)
        return total, frames, replayed

    def _load_or_replay(self, first: int, n: int):
        """A finished chunk from the folder, or ``(None, None)`` (with a note) when damaged."""
        loaded, damage = _load_chunk(
            self.out_path, first, n, self.prep.config.players, self.keep_games, self.run_id
        )
        if loaded is None:
            self.prep.notices.append(
                f"resume: played games {first}..{first + n - 1} again ({damage})"
            )
            return None, None
        return loaded


def _progress_bar(games: int, resumed: int, progress: bool):
    """The run's tqdm bar on stderr (shown after a second; off unless ``progress``)."""
    from tqdm import tqdm

    return tqdm(
        total=games,
        initial=resumed,
        unit="game",
        unit_scale=True,
        file=sys.stderr,
        delay=1.0,
        disable=not progress,
        leave=False,
        dynamic_ncols=True,
    )


def _remove_unfinished_parts(out_path: Path) -> None:
    """Delete the temporary files a killed worker left half-written in a run folder."""
    for tmp in itertools.chain(
        out_path.glob(".part-*.tmp"), (out_path / AGGREGATES_DIR).glob(".part-*.tmp")
    ):
        tmp.unlink(missing_ok=True)


def versions() -> dict:
    import numba

    import mcsim

    return {
        "mcsim": mcsim.__version__,
        "numba": numba.__version__,
        "numpy": np.__version__,
        "pandas": pd.__version__,
        "python": sys.version.split()[0],
    }


# ---------------------------------------------------------------- writing files
_UMASK = os.umask(0)
os.umask(_UMASK)


def write_atomic(path: str | os.PathLike, write) -> None:
    """Call ``write(tmp_path)`` and move the result to ``path`` only if it succeeded.

    No half-written file is ever left at ``path``; a failure removes the temporary file.
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise OutputWriteError(f"cannot write {path}: directory {directory} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as e:
        raise OutputWriteError(f"cannot write {path}: {e.strerror or e}") from None
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; give the file the usual mode
        os.replace(tmp, path)
    except OSError as e:  # name the user's path, never the temporary file
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise OutputWriteError(f"cannot write {path}: {e.strerror or e}") from None
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def manifest_for(summary: dict) -> dict:
    """Run parameters and package versions for the ``--out`` manifest."""
    keep = ("game", "games", "seed", "players", "variant", "policies", "tileset")
    return {"run": {k: summary[k] for k in keep if k in summary}, "versions": versions()}


def json_default(o):
    """``json.dumps`` ``default=``: NumPy integers, floats and arrays as Python values."""
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def to_json(obj, **kw) -> str:
    """JSON text of a summary (numpy scalars and arrays converted; NaN written as null)."""
    return json.dumps(_nan_to_none(obj), default=json_default, **kw)


def _nan_to_none(o):
    if isinstance(o, float) and (o != o or o in (float("inf"), float("-inf"))):
        return None
    if isinstance(o, dict):
        return {k: _nan_to_none(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_nan_to_none(v) for v in o]
    return o
