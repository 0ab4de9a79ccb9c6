"""Run many games: chunking, seeding, worker processes, progress, the summary frame.

Game *i* depends only on ``(seed, i)`` (``kernels.rng.game_seed``), and chunks are put back in
game order, so the per-game table is identical for any ``workers`` and ``chunk_size``.
"""
from __future__ import annotations

import json
import multiprocessing as mp
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable

import numpy as np
import pandas as pd

from mcsim import stats
from mcsim.errors import ConfigError, McsimError
from mcsim.games import get_game
from mcsim.games.base import PolicyChoice, Prepared, RunConfig, check_players, parse_policy

MAX_SEED = 2**64 - 1
DEFAULT_CHUNK_SIZE = 20_000


@dataclass
class SimulationResult:
    """What ``simulate`` returns.

    Attributes
    ----------
    games : pandas.DataFrame
        One row per game: ``game_index`` (int64), ``score_<k>`` (points), ``rank_<k>`` (int8,
        1 = best, ties share), ``win_share_<k>`` (float64, a shared win counts 1/k), ``winner``
        (int8, -1 when shared), ``length_plies`` and the game's own columns.
    summary : dict
        The common summary frame (see README, "JSON keys").
    prepared : Prepared
        The resolved configuration (policies, variant, tables).
    records : list of dict
        Sample game records (``record=K``), empty otherwise.
    """

    games: pd.DataFrame
    summary: dict
    prepared: Prepared
    records: list = field(default_factory=list)

    @cached_property
    def seats(self) -> pd.DataFrame:
        """Long per-seat table: ``game_index, seat, policy, score, rank, won``."""
        cfg = self.prepared.config
        return stats.long_seats(self.games, cfg.players, [p.label() for p in cfg.policies])


def resolve_config(game: str, players: int | None = None, policies: Iterable | None = None,
                   variant: dict | None = None, options: dict | None = None):
    """Check a run's configuration; returns ``(game_module, RunConfig)``.

    Raises ``UnknownGameError``, ``UnknownPolicyError``, ``UnknownVariantError``, ``ConfigError``.
    """
    module = get_game(game)
    spec = module.SPEC
    choices = [p if isinstance(p, PolicyChoice) else parse_policy(str(p))
               for p in (list(policies) if policies else ["random"])]
    if players is None:
        players = len(choices) if len(choices) > 1 else spec.default_players
    check_players(spec, players)
    if len(choices) == 1:
        choices = choices * players
    if len(choices) != players:
        raise ConfigError(f"{len(choices)} policies given for {players} seats; give one policy "
                          f"for all seats or one per seat")
    for c in choices:
        spec.policy(c.name).vector(c.params)  # validates names and parameters
    return module, RunConfig(game=spec.id, players=players, policies=choices,
                             variant=spec.resolve_variant(variant), options=dict(options or {}))


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        return os.cpu_count() or 1


def _play(args):
    module_name, prep, first, n, seed = args
    import importlib
    module = importlib.import_module(module_name)
    return first, module.play_chunk(prep, first, n, seed)


def run_chunks(module, prep: Prepared, games: int, seed: int, workers: int = 1,
               chunk_size: int | None = None, progress: bool = False) -> dict[str, np.ndarray]:
    """Play games ``0 .. games-1`` in chunks and return the concatenated column arrays.

    Chunks run in worker processes (forked after the kernels are compiled in this process) when
    ``workers > 1``; results are reassembled in game order.
    """
    chunk = int(chunk_size or getattr(module, "CHUNK_SIZE", DEFAULT_CHUNK_SIZE))
    if workers > 1:
        chunk = max(1, min(chunk, -(-games // (4 * workers))))  # at least 4 chunks per worker
    starts = list(range(0, games, chunk))
    tasks = [(module.__name__, prep, s, min(chunk, games - s), seed) for s in starts]
    parts: dict[int, dict] = {}
    from tqdm import tqdm

    bar = tqdm(total=games, unit="game", unit_scale=True, file=sys.stderr, delay=1.0,
               disable=not progress, leave=False, dynamic_ncols=True)
    try:
        if workers <= 1 or len(tasks) == 1:
            for t in tasks:
                first, cols = _play(t)
                parts[first] = cols
                bar.update(t[3])
        else:
            ctx = mp.get_context("fork")
            with ProcessPoolExecutor(max_workers=min(workers, len(tasks)), mp_context=ctx) as pool:
                for first, cols in pool.map(_play, tasks):
                    parts[first] = cols
                    bar.update(len(next(iter(cols.values()))))
    finally:
        bar.close()
    keys = list(parts[starts[0]].keys())
    return {k: np.concatenate([parts[s][k] for s in starts]) for k in keys}


def games_frame(columns: dict[str, np.ndarray], first_game_index: int, players: int) -> pd.DataFrame:
    """Turn a game's column arrays into the per-game DataFrame (see ``SimulationResult``)."""
    scores = np.asarray(columns["score"])
    n = scores.shape[0]
    rank, share, winner = stats.ranks_and_shares(scores, columns.get("win_share"))
    data: dict[str, Any] = {"game_index": np.arange(first_game_index, first_game_index + n,
                                                    dtype=np.int64)}
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


def build_summary(module, prep: Prepared, games_df: pd.DataFrame, seed: int,
                  elapsed: float) -> dict:
    """The common summary frame (README, "JSON keys") plus the game's own block."""
    cfg = prep.config
    labels = [p.label() for p in cfg.policies]
    n = len(games_df)
    summary: dict[str, Any] = {
        "game": cfg.game, "games": n, "seed": seed, "players": cfg.players,
        "variant": dict(cfg.variant), "policies": labels,
    }
    summary.update(prep.info)
    summary["seats"] = stats.seat_summaries(games_df, cfg.players, labels)
    summary["length"] = stats.length_summary(games_df["length_plies"])
    summary["games_per_second"] = n / elapsed if elapsed > 0 else None
    summary["elapsed_seconds"] = elapsed
    summary[module.SPEC.summary_key] = module.summarize(games_df, prep)
    return summary


def simulate(game: str, games: int = 10_000, seed: int = 0, policies: Iterable | None = None,
             variant: dict | None = None, players: int | None = None, workers: int | None = 1,
             chunk_size: int | None = None, options: dict | None = None, record: int = 0,
             progress: bool = False) -> SimulationResult:
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
        Games per chunk (default: the game's ``CHUNK_SIZE``).
    options : dict
        Game-specific options, e.g. ``{"tiles": "my_tiles.json"}`` for Don Quixote.
    record : int
        Also return the records of games ``0 .. record-1``.
    progress : bool
        Show a progress bar on stderr for runs over a second.

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
    if not isinstance(games, (int, np.integer)) or games <= 0:
        raise ConfigError(f"--games must be a positive whole number, not {games}")
    if not isinstance(seed, (int, np.integer)) or not (0 <= seed <= MAX_SEED):
        raise ConfigError(f"--seed must be a whole number in [0, 2**64), not {seed}")
    if workers is None:
        workers = default_workers()
    if workers < 1:
        raise ConfigError(f"--workers must be at least 1, not {workers}")
    if chunk_size is not None and chunk_size < 1:
        raise ConfigError(f"--chunk-size must be at least 1, not {chunk_size}")
    if record < 0:
        raise ConfigError(f"--record must be 0 or more, not {record}")
    module, cfg = resolve_config(game, players, policies, variant, options)
    prep = module.prepare(cfg)
    t0 = time.perf_counter()
    module.play_chunk(prep, 0, 1, seed)  # compile (or load the cache) before forking workers
    cols = run_chunks(module, prep, games, seed, workers, chunk_size, progress)
    elapsed = time.perf_counter() - t0
    df = games_frame(cols, 0, cfg.players)
    summary = build_summary(module, prep, df, seed, elapsed)
    records = []
    if record:
        if not hasattr(module, "record_games"):
            raise ConfigError(f"{game} does not write records yet")
        records = module.record_games(prep, seed, list(range(min(record, games))))
    return SimulationResult(df, summary, prep, records)


# ---------------------------------------------------------------- writing files
def write_atomic(path: str | os.PathLike, write) -> None:
    """Call ``write(tmp_path)`` and move the result to ``path`` only if it succeeded.

    No half-written file is ever left at ``path``; a failure removes the temporary file.
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise McsimError(f"cannot write {path}: directory {directory} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_games_table(df: pd.DataFrame, path: str | os.PathLike, manifest: dict | None = None) -> None:
    """Write the per-game table as Parquet (``.parquet``) or CSV (``.csv``), atomically,
    with the run's parameters in ``<path>.manifest.json``."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".parquet", ".csv"):
        raise ConfigError(f"--out must end in .parquet or .csv, not {path.name!r}")
    if suffix == ".parquet":
        write_atomic(path, lambda tmp: df.to_parquet(tmp, index=False))
    else:
        write_atomic(path, lambda tmp: df.to_csv(tmp, index=False))
    if manifest is not None:
        text = json.dumps(manifest, indent=2, default=_json_default)
        write_atomic(Path(str(path) + ".manifest.json"),
                     lambda tmp: Path(tmp).write_text(text + "\n"))


def manifest_for(summary: dict) -> dict:
    """Run parameters and package versions for the ``--out`` manifest."""
    import numba
    import mcsim
    keep = ("game", "games", "seed", "players", "variant", "policies", "tileset")
    return {"run": {k: summary[k] for k in keep if k in summary},
            "versions": {"mcsim": mcsim.__version__, "numba": numba.__version__,
                         "numpy": np.__version__, "pandas": pd.__version__,
                         "python": sys.version.split()[0]}}


def _json_default(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def to_json(obj, **kw) -> str:
    """JSON text of a summary (numpy scalars and arrays converted; NaN written as null)."""
    return json.dumps(_nan_to_none(obj), default=_json_default, **kw)


def _nan_to_none(o):
    if isinstance(o, float) and (o != o or o in (float("inf"), float("-inf"))):
        return None
    if isinstance(o, dict):
        return {k: _nan_to_none(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_nan_to_none(v) for v in o]
    return o
