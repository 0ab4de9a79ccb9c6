"""Batch sweeps: a TOML plan lists experiments as a grid; each cell is one ``mcsim.simulate``.

A plan is checked completely (games, seat counts, policies and their parameters, variants,
game-specific options and data files, seeds, game counts) before the first game is played; the
first problem found is raised as ``PlanError`` with one line naming the plan entry.

Plan format
-----------
A plan is a TOML file with an optional ``[defaults]`` table and one ``[[experiment]]`` table per
experiment::

    title = "Seat advantage in Sacred Hill"     # optional, copied into the outputs

    [defaults]                                  # optional: any experiment key except name
    games = 20000
    seeds = [1]

    [[experiment]]
    name = "sh-policies"                        # optional; default "e<k>" (k = 1, 2, ...)
    game = "sacred-hill"                        # required: a game id (`mcsim games`) or a list
    players = 2                                 # int or list of ints; default: as `simulate`
    policies = ["random", "tactician", ["tactician", "random"]]
    variant = { transition = ["box", "web2014"], zone = "knight12" }
    games = [1000, 10000]                       # int or list of ints (required somewhere)
    seeds = [1, 2]                              # or seed = 1; default 0
    options = { tiles = "my_tiles.json" }       # game-specific run options (Don Quixote)

Keys of an experiment (a key given in ``[defaults]`` applies to every experiment without it):

==========  ====================================  ==============================================
key         type                                  meaning
==========  ====================================  ==============================================
name        string ``[A-Za-z0-9_.-]+``, unique    names the experiment's rows and JSON files
game        string or list of strings             game ids (grid axis; every other value
                                                  must suit every game listed)
players     int or list of int                    seat counts (grid axis)
policies    list of (string or list of string)    one entry per grid point: a string is one
                                                  policy for every seat, a list one per seat in
                                                  seat order; ``"name:param=value,..."``
                                                  (default ``["random"]``)
variant     table: name -> value or list          rule readings; a list is a grid axis, the
                                                  grid is the product of all lists; unnamed
                                                  variants take their defaults
games       int or list of int (> 0)              games per cell (grid axis)
seed/seeds  int / list of int in [0, 2**64)       root seeds (grid axis, default 0)
options     table                                 game-specific options; relative paths are
                                                  resolved against the plan file's folder
==========  ====================================  ==============================================

The cells of an experiment are the product game x players x policies x variant values x games x
seeds, in that nesting order (the last axis varies fastest); cell ``j`` of experiment ``name``
has the id ``name-jjj``. A per-seat policy list must have as many entries as every ``players``
value of its experiment.

Seeding: each cell is an ordinary ``mcsim.simulate`` run, so game *i* of a cell depends only on
(seed, i). Cells with the same game, seat count, variant and seed deal the same games to every
policy (common random numbers), so their rows can be compared game for game.

Outputs (``--out DIR``): ``results.csv`` and ``results.parquet``, the tidy table
(``BATCH_COLUMNS``, one row per cell and seat); ``experiments/<cell id>.json``, each cell's full
summary (written as the cell finishes) with an ``"experiment"`` block; ``plan.json``, the expanded
cells and package versions. Every file is written atomically.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mcsim.errors import ConfigError, McsimError, MissingFileError, OutputWriteError
from mcsim.files import read_json, read_toml
from mcsim.runner import (
    MAX_SEED,
    RunOptions,
    check_limits,
    doc_digest,
    fingerprint_change,
    resolve_config,
    run_fingerprint,
    to_json,
    write_atomic,
)
from mcsim.text import counted

#: keys an ``[[experiment]]`` table may have
EXPERIMENT_KEYS = (
    "name",
    "game",
    "players",
    "policies",
    "variant",
    "games",
    "seed",
    "seeds",
    "options",
)
#: keys the top level of a plan may have
TOP_KEYS = ("title", "defaults", "experiment")
NAME_RE = re.compile(r"^[A-Za-z0-9_.-]+$")

#: the tidy table: one row per cell and seat (units: points for scores, plies for length)
BATCH_COLUMNS = (
    "experiment",  # str, the experiment's name
    "cell",  # int64, cell index within the experiment (0-based)
    "cell_id",  # str, "<experiment>-<cell:03d>" (the JSON file name)
    "game",  # str, game id
    "players",  # int64, seats
    "policies",  # str, policy labels in seat order joined by "|"
    "variant",  # str, every variant "name=value" joined by "," (defaults included)
    "games",  # int64, games played in the cell
    "seed",  # uint64-safe int (stored as int64 when it fits, else str in CSV)
    "seat",  # int64, 0-based seat (0 = first in the starting turn order)
    "policy",  # str, this seat's policy label
    "win_rate",  # float64, share of games won (a k-way tie counts 1/k); NaN for one player
    "win_rate_low",  # float64, Wilson 95% interval
    "win_rate_high",
    "score_mean",  # float64, mean final score (points)
    "score_low",  # float64, Student-t 95% interval of the mean
    "score_high",
    "score_sd",  # float64, standard deviation of the score (points)
    "score_min",  # float64
    "score_p50",  # float64, median
    "score_max",  # float64
    "length_mean",  # float64, mean game length (plies), same for every seat of a cell
    "elapsed_seconds",  # float64, wall time of the cell
)


class PlanError(McsimError):
    """A malformed batch plan; the one-line message names the plan file and the entry."""


class PlanFileMissing(PlanError, MissingFileError):
    """A plan, or a data file a plan names, that does not exist (the CLI exits 2)."""


@dataclass
class Cell:
    """One grid point of a plan: the arguments of one ``mcsim.simulate`` call."""

    experiment: str
    index: int
    game: str
    players: int | None
    policies: list[str]
    variant: dict[str, str]
    games: int
    seed: int
    options: dict[str, Any] = field(default_factory=dict)
    resolved_players: int = 0
    resolved_variant: dict[str, str] = field(default_factory=dict)
    policy_labels: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.experiment}-{self.index:03d}"

    def describe(self) -> str:
        """One line: game, seats, policies, variant, games, seed."""
        var = _fmt_variant(self.variant)
        return (
            f"{self.game}, {self.resolved_players} players, {'|'.join(self.policy_labels)}, "
            f"{var}, {counted(self.games, 'game')}, seed {self.seed}"
        )

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "experiment": self.experiment,
            "cell": self.index,
            "game": self.game,
            "players": self.resolved_players,
            "policies": list(self.policy_labels),
            "variant": dict(self.resolved_variant),
            "games": self.games,
            "seed": self.seed,
            "options": dict(self.options),
        }


@dataclass
class Plan:
    """A validated plan: its path, title and the expanded cells in run order."""

    path: str
    title: str
    cells: list[Cell]

    @property
    def total_games(self) -> int:
        return sum(c.games for c in self.cells)


# ---------------------------------------------------------------- loading and validation
def load_plan(path: str | Path) -> Plan:
    """Read, expand and validate a plan file (format in the module docstring).

    Every cell is checked as ``mcsim.simulate`` would check it, and the game's ``prepare`` runs
    (so data files and game options are validated too); nothing is played.

    Parameters
    ----------
    path : str or Path
        The TOML plan.

    Returns
    -------
    Plan

    Raises
    ------
    PlanError
        Unreadable or invalid TOML, unknown keys, wrong types, duplicate names, an unknown game,
        policy, parameter or variant, an impossible seat count, a bad game count or seed, or a
        data file the game rejects. The message is one line starting with the plan path and the
        experiment (``plan.toml: experiment 'x' (#2): ...``).
    """
    given = os.fspath(path)  # messages name the plan as given (./sub/plan.toml)
    path = Path(path)
    try:
        doc = read_toml(given, "plan")
    except MissingFileError as e:
        raise PlanFileMissing(str(e)) from None
    except McsimError as e:
        raise PlanError(str(e)) from None
    return parse_plan(doc, given, base_dir=path.resolve().parent)


def parse_plan(doc: dict, source: str = "<plan>", base_dir: Path | None = None) -> Plan:
    """Expand and validate an already-parsed plan (a dict as ``tomllib`` returns it).

    See ``load_plan``; ``source`` is the name used in messages, ``base_dir`` the folder relative
    option paths are resolved against (default: the current directory).
    """
    base_dir = Path(base_dir) if base_dir is not None else Path.cwd()
    if not isinstance(doc, dict):
        raise PlanError(f"{source}: a plan is a TOML table")
    for key in doc:
        if key not in TOP_KEYS:
            raise PlanError(
                f"{source}: unknown top-level key {key!r}; a plan has: {', '.join(TOP_KEYS)}"
            )
    title = doc.get("title", "")
    if not isinstance(title, str):
        raise PlanError(f"{source}: 'title' must be a string")
    defaults = doc.get("defaults", {})
    if not isinstance(defaults, dict):
        raise PlanError(f"{source}: [defaults] must be a table")
    for key in defaults:
        if key not in EXPERIMENT_KEYS or key == "name":
            raise PlanError(
                f"{source}: [defaults]: unknown key {key!r}; allowed: "
                f"{', '.join(k for k in EXPERIMENT_KEYS if k != 'name')}"
            )
    exps = doc.get("experiment")
    if exps is None:
        raise PlanError(f"{source}: no [[experiment]] tables; a plan needs at least one")
    if not isinstance(exps, list) or not all(isinstance(e, dict) for e in exps):
        raise PlanError(f"{source}: 'experiment' must be written as [[experiment]] tables")
    if not exps:
        raise PlanError(f"{source}: no [[experiment]] tables; a plan needs at least one")
    cells: list[Cell] = []
    names: set[str] = set()
    for k, entry in enumerate(exps, start=1):
        label = f"{source}: experiment #{k}"
        for key in entry:
            if key not in EXPERIMENT_KEYS:
                raise PlanError(
                    f"{label}: unknown key {key!r}; allowed: {', '.join(EXPERIMENT_KEYS)}"
                )
        name = entry.get("name", f"e{k}")
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise PlanError(f"{label}: name {name!r} must be letters, digits, '_', '.' or '-'")
        label = f"{source}: experiment {name!r} (#{k})"
        if name in names:
            raise PlanError(f"{label}: the name is used by an earlier experiment")
        names.add(name)
        base = dict(defaults)
        if "seed" in entry or "seeds" in entry:  # one axis: the experiment's spelling wins
            base.pop("seed", None)
            base.pop("seeds", None)
        merged = {**base, **entry}
        cells.extend(_expand(merged, name, label, base_dir))
    return Plan(path=source, title=title, cells=cells)


def _expand(e: dict, name: str, label: str, base_dir: Path) -> list[Cell]:
    game_ids = e.get("game")
    if isinstance(game_ids, str):
        game_ids = [game_ids]
    if (
        not isinstance(game_ids, list)
        or not game_ids
        or not all(isinstance(g, str) for g in game_ids)
    ):
        raise PlanError(
            f"{label}: 'game' is required: a game id such as \"sacred-hill\" or a list of them"
        )
    if len(set(game_ids)) != len(game_ids):
        raise PlanError(f"{label}: 'game' lists a value twice")
    modules = {g: _game_module(g, label) for g in game_ids}
    players = _int_axis(e, "players", label, required=False, low=1)
    policies = _policy_axis(e.get("policies", ["random"]), label)
    variants = _variant_axis(e.get("variant", {}), label)
    games = _int_axis(e, "games", label, required=True, low=1)
    if "seed" in e and "seeds" in e:
        raise PlanError(f"{label}: give 'seed' or 'seeds', not both")
    seeds = _int_axis(
        e, "seeds" if "seeds" in e else "seed", label, required=False, low=0, high=MAX_SEED
    ) or [0]
    options = e.get("options", {})
    if not isinstance(options, dict):
        raise PlanError(
            f"{label}: 'options' must be a table, e.g. options = {{ tiles = \"t.json\" }}"
        )
    options = {k: _resolve_option(v, base_dir) for k, v in options.items()}

    cells = []
    grid = itertools.product(game_ids, players or [None], policies, variants, games, seeds)
    for j, (game, pl, pol, var, n, seed) in enumerate(grid):
        cell = Cell(name, j, game, pl, pol, var, n, seed, options)
        where = (
            f"{label}, cell {j} ({game}, players={pl if pl is not None else 'default'}, "
            f"policies={'|'.join(pol)}, variant={_fmt_variant(var)})"
        )
        try:
            check_limits(n, seed, "'games'", "'seeds'" if "seeds" in e else "'seed'")
            _, cfg = resolve_config(game, pl, pol, var, options)
            prep = modules[game].prepare(cfg)
        except McsimError as e:
            cls = PlanFileMissing if isinstance(e, MissingFileError) else PlanError
            raise cls(f"{where}: {_one_line(e)}") from None
        cell.resolved_players = cfg.players
        cell.resolved_variant = dict(cfg.variant)
        cell.policy_labels = [p.label() for p in prep.config.policies]
        cells.append(cell)
    return cells


def _game_module(game: str, label: str):
    from mcsim.games import get_game

    try:
        module = get_game(game)
    except McsimError as e:
        raise PlanError(f"{label}: {_one_line(e)}") from None
    return module


def _int_axis(
    e: dict, key: str, label: str, required: bool, low: int, high: int | None = None
) -> list[int]:
    if key not in e:
        if required:
            raise PlanError(f"{label}: '{key}' is required (here or in [defaults])")
        return []
    v = e[key]
    vals = v if isinstance(v, list) else [v]
    if not vals:
        raise PlanError(f"{label}: '{key}' is an empty list")
    vals = [_plan_whole(x) for x in vals]
    for x in vals:
        if isinstance(x, bool) or not isinstance(x, int):
            raise PlanError(f"{label}: '{key}' must be a whole number or a list of them, not {x!r}")
        if x < low or (high is not None and x > high):
            rng = f">= {low}" if high is None else f"in [{low}, 2**64)"
            raise PlanError(f"{label}: '{key}' value {x} must be {rng}")
    if len(set(vals)) != len(vals):
        raise PlanError(f"{label}: '{key}' lists a value twice")
    return list(vals)


def _plan_whole(x):
    """A plan's TOML float that is exactly whole (``1e3``, ``10.0``) as the int it is, as the
    command line reads ``-n 1e3`` (docs/usage.md); anything else unchanged (refused by the
    caller)."""
    if isinstance(x, float) and math.isfinite(x) and x.is_integer():
        return int(x)
    return x


def _policy_axis(v, label: str) -> list[list[str]]:
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or not v:
        raise PlanError(
            f"{label}: 'policies' must be a non-empty list of policies "
            f"(a string for all seats, or a list with one per seat)"
        )
    out = []
    for item in v:
        if isinstance(item, str):
            out.append([item])
        elif isinstance(item, list) and item and all(isinstance(p, str) for p in item):
            out.append(list(item))
        else:
            raise PlanError(
                f"{label}: policies entry {item!r} must be a policy string or a "
                f"non-empty list of policy strings (one per seat)"
            )
    return out


def _variant_axis(v, label: str) -> list[dict[str, str]]:
    if not isinstance(v, dict):
        raise PlanError(
            f"{label}: 'variant' must be a table, e.g. variant = {{ zone = \"knight12\" }}"
        )
    names, values = [], []
    for name, val in v.items():
        vals = val if isinstance(val, list) else [val]
        if not vals:
            raise PlanError(f"{label}: variant {name!r} has an empty list of values")
        out = []
        for x in vals:
            if isinstance(x, bool):
                out.append(str(x).lower())
            elif isinstance(x, (str, int)):
                out.append(str(x))
            else:
                raise PlanError(f"{label}: variant {name}={x!r} must be a string")
        names.append(name)
        values.append(out)
    return [dict(zip(names, combo)) for combo in itertools.product(*values)] if names else [{}]


def _resolve_option(v, base_dir: Path):
    # a TOML float is read by the whole-number rule of every option (docs/usage.md: 1e3 is
    # 1000, 1.5 is not whole), as the same value typed on the command line would be
    if isinstance(v, float):
        from mcsim.values import PlanFloat

        return PlanFloat(repr(v))
    if isinstance(v, str) and v and not Path(v).is_absolute() and (base_dir / v).exists():
        return str(base_dir / v)
    return v


def _fmt_variant(var: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in var.items()) or "default readings"


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())


# ---------------------------------------------------------------- running
def rows_for(cell: Cell, summary: dict) -> list[dict]:
    """The tidy rows (``BATCH_COLUMNS``) of one finished cell, one per seat."""
    var = ",".join(f"{k}={v}" for k, v in summary["variant"].items())
    rows = []
    for s in summary["seats"]:
        sc = s["score"]
        w = (
            s["win_rate"]
            if summary["players"] > 1 and s["win_rate"]
            # solo: no winner
            else {"estimate": math.nan, "low": math.nan, "high": math.nan}
        )
        rows.append(
            {
                "experiment": cell.experiment,
                "cell": cell.index,
                "cell_id": cell.id,
                "game": summary["game"],
                "players": summary["players"],
                "policies": "|".join(summary["policies"]),
                "variant": var,
                "games": summary["games"],
                "seed": summary["seed"],
                "seat": s["seat"],
                "policy": s["policy"],
                "win_rate": w["estimate"],
                "win_rate_low": w["low"],
                "win_rate_high": w["high"],
                "score_mean": sc["mean"],
                "score_low": sc["low"],
                "score_high": sc["high"],
                "score_sd": sc["sd"],
                "score_min": sc["min"],
                "score_p50": sc["p50"],
                "score_max": sc["max"],
                "length_mean": summary["length"]["mean"],
                "elapsed_seconds": summary["elapsed_seconds"],
            }
        )
    return rows


def tidy_table(rows: list[dict]) -> pd.DataFrame:
    """The tidy table with the documented columns and dtypes (see ``BATCH_COLUMNS``)."""
    df = pd.DataFrame(rows, columns=list(BATCH_COLUMNS))
    for c in ("cell", "players", "games", "seat"):
        df[c] = df[c].astype(np.int64)
    # seeds up to 2**64-1 do not fit int64; keep them exact as uint64
    df["seed"] = df["seed"].astype(np.uint64)
    for c in BATCH_COLUMNS[11:]:
        df[c] = df[c].astype(np.float64)
    for c in ("experiment", "cell_id", "game", "policies", "variant", "policy"):
        df[c] = df[c].astype(object)
    return df


@dataclass
class BatchResult:
    """What ``run_plan`` returns: the tidy table and each cell's summary (in plan order)."""

    plan: Plan
    table: pd.DataFrame
    summaries: list[dict]


def run_plan(
    plan: Plan | str | Path,
    out: str | Path | None = None,
    workers: int | None = 1,
    progress: bool = False,
    echo: Callable[[str], None] | None = None,
    backend: str | None = None,
    scheduler: str | None = None,
    resume: bool = False,
    note: Callable[[str], None] | None = None,
    force: bool = False,
) -> BatchResult:
    """Run every cell of a plan with ``mcsim.simulate`` and collect the tidy table.

    Parameters
    ----------
    plan : Plan or path
        A validated ``Plan`` or a plan file (validated first, before anything runs).
    out : path, optional
        Output folder (created if missing; its parent must exist). Writes ``results.csv``,
        ``results.parquet``, ``plan.json`` and ``experiments/<cell id>.json``, all atomically.
    workers : int or None
        Worker processes per cell (None: all cores). Results do not depend on it.
    progress : bool
        Show each cell's progress bar on stderr.
    echo : callable, optional
        Called with one line per cell (start and finish), e.g. to print progress on stderr.
    backend, scheduler : str, optional
        As for ``mcsim.simulate`` (``"serial"``, ``"local"``, ``"dask"``; Dask scheduler
        address). Results do not depend on them.
    resume : bool
        Reuse the cells already finished in ``out`` (their ``experiments/<cell id>.json`` holds
        the same game, seats, policies, variant, game count and seed) instead of playing them
        again; the table is the same as an uninterrupted batch's (``elapsed_seconds`` aside).
    note : callable, optional
        Called with one line (without ``note: ``) for each cell whose earlier summary is damaged
        and is played again: ``resume: cell <id> played again (<reason>)``, as ``simulate
        --resume`` reports a damaged chunk.
    force : bool
        Replace an earlier batch in ``out`` (``--force``; not with ``resume``): the new batch is
        written into a hidden folder inside it and takes the earlier batch's place only when
        every cell has finished, so a failed or interrupted batch (an unreachable Dask
        scheduler included) leaves the earlier one as it was. A folder holding other files is
        refused.

    Returns
    -------
    BatchResult

    Raises
    ------
    PlanError
        Invalid plan (nothing has run), or ``out`` cannot be created.
    OutputError
        ``resume`` without an earlier batch in ``out`` (a missing folder included), or
        ``force`` on a folder holding other files than an earlier batch's.
    ConfigError
        ``resume`` finds a cell played with other inputs.
    """
    if not isinstance(plan, Plan):
        plan = load_plan(plan)
    if resume and out is None:
        raise PlanError("--resume needs --out DIR (the folder of the interrupted batch)")
    replacing = None  # with force over an earlier batch: its RunReplacement
    if out is not None and (resume or force):
        from mcsim.outputs import BATCH_FOLDER, RunReplacement, check_run_folder

        if resume and force:
            raise ConfigError("--force starts over and --resume continues: give one of them")
        if check_run_folder(out, "--out", BATCH_FOLDER, resume, force, keyword="out") and force:
            replacing = RunReplacement(out, BATCH_FOLDER)
    try:
        res = _run_cells(
            plan, replacing.stage if replacing is not None else out, workers, progress, echo,
            backend, scheduler, resume, note,
        )  # fmt: skip
        if replacing is not None:
            replacing.commit()  # the earlier batch is replaced by this one, now it is whole
    except OutputWriteError as e:  # name the user's folder, not the one staged beside it
        if replacing is None:
            raise
        raise replacing.in_target_names(e) from None
    finally:
        if replacing is not None:
            replacing.abort()
    return res


def _run_cells(
    plan, out, workers, progress, echo, backend, scheduler, resume, note
) -> BatchResult:  # fmt: skip
    """The cells of ``run_plan`` once everything is checked, written into ``out`` (the
    staging folder when replacing an earlier batch)."""
    out_dir = _prepare_out(out) if out is not None else None
    if out_dir is not None:
        _write_json(
            out_dir / "plan.json",
            {
                "plan": plan.path,
                "title": plan.title,
                "cells": [c.as_dict() for c in plan.cells],
                "versions": _versions(),
            },
        )

    rows: list[dict] = []
    summaries = []
    n = len(plan.cells)
    t_all = time.perf_counter()
    for k, cell in enumerate(plan.cells, start=1):
        module, cfg = resolve_config(
            cell.game, cell.players, cell.policies, cell.variant, cell.options
        )
        fingerprint = run_fingerprint(module, cfg)
        earlier = _finished(out_dir, cell, fingerprint, note) if resume else None
        if earlier is not None:
            summaries.append(earlier)
            rows.extend(rows_for(cell, earlier))
            if echo:
                echo(f"[{k}/{n}] {cell.id}: finished earlier, skipped")
            continue
        if echo:
            echo(f"[{k}/{n}] {cell.id}: {cell.describe()}")
        run = RunOptions(
            games=cell.games,
            seed=cell.seed,
            variant=cell.variant,
            players=cell.players,
            options=cell.options,
            workers=workers,
            backend=backend,
            scheduler=scheduler,
            progress=progress,
        )
        r = run.simulate(cell.game, cell.policies)
        summary = dict(r.summary)
        summary["experiment"] = {
            "id": cell.id,
            "name": cell.experiment,
            "cell": cell.index,
            "plan": plan.path,
            "title": plan.title,
            "fingerprint": fingerprint,
        }
        summaries.append(summary)
        rows.extend(rows_for(cell, summary))
        if out_dir is not None:  # with its digest: an edit is found on --resume
            doc = json.loads(to_json(summary))
            doc["digest"] = doc_digest(doc)
            _write_json(out_dir / "experiments" / f"{cell.id}.json", doc)
        if echo:
            from mcsim.runner import timing_text

            echo(f"[{k}/{n}] {cell.id}: done in {timing_text(summary)}")
    table = tidy_table(rows)
    if out_dir is not None:
        from mcsim.outputs import Outputs

        with Outputs(force=True) as outs:  # both tables in place together, or neither
            outs.stage_file(
                out_dir / "results.csv", lambda tmp: table.to_csv(tmp, index=False), "--out"
            )
            outs.stage_file(
                out_dir / "results.parquet", lambda tmp: table.to_parquet(tmp, index=False), "--out"
            )
            outs.commit()
    if echo:
        echo(
            f"batch: {counted(n, 'cell')}, {counted(plan.total_games, 'game')} in {time.perf_counter() - t_all:.1f} s"
        )
    return BatchResult(plan, table, summaries)


def _finished(
    out_dir: Path,
    cell: Cell,
    fingerprint: dict | None = None,
    note: Callable[[str], None] | None = None,
) -> dict | None:
    """The summary of ``cell`` written by an earlier batch into ``out_dir``; None when there
    is none (the cell is played). A damaged summary is reported to ``note`` (one line with the
    reason) and also gives None, as does an edited one (its ``"digest"`` no longer matches).

    Raises ``ConfigError`` when the earlier cell was played with other inputs (game, seats,
    policies and their full parameters, variant, games, seed, options, or the content of a data
    file: ``run_fingerprint``): resuming never reuses results of different inputs."""
    path = out_dir / "experiments" / f"{cell.id}.json"
    try:
        s = read_json(path, "cell summary")
    except MissingFileError:  # not played yet
        return None
    except McsimError as e:  # damaged: the cell is played again
        damage = str(e)
    else:
        damage = (
            None
            if isinstance(s, dict) and isinstance(s.get("seats"), list)
            else f"{path}: cell summary is not a summary object with 'seats'"
        )
        if damage is None and s.get("digest") != doc_digest(s):
            damage = f"{path}: cell summary was edited or not written by this mcsim"
    if damage is not None:
        if note is not None:
            note(f"resume: cell {cell.id} played again ({damage})")
        return None
    checks = (
        ("game", cell.game),
        ("games", cell.games),
        ("seed", cell.seed),
        ("players", cell.resolved_players),
        ("policies", cell.policy_labels),
        ("variant", cell.resolved_variant),
    )
    change = None
    for key, now in checks:
        if s.get(key) != now:
            change = f"{key} {s.get(key)!r} there, {now!r} now"
            break
    if change is None and fingerprint is not None:
        exp = s.get("experiment")
        change = fingerprint_change(
            exp.get("fingerprint") if isinstance(exp, dict) else None, fingerprint
        )
    if change:  # a refused resume: a bad option (exit 2), as in simulate and tune
        raise ConfigError(
            f"cannot resume: cell {cell.id} in {out_dir} was played with other "
            f"inputs ({change}); use another --out folder"
        )
    s.pop("digest")
    return s


def _prepare_out(out) -> Path:
    d = Path(out)
    if d.exists() and not d.is_dir():
        raise PlanError(f"--out {d} exists and is not a folder")
    if not d.resolve().parent.is_dir():
        from mcsim.outputs import given_parent

        raise PlanError(f"--out {out}: folder {given_parent(out)} does not exist")
    (d / "experiments").mkdir(parents=True, exist_ok=True)
    return d


def _write_json(path: Path, obj) -> None:
    text = to_json(obj, indent=2)
    write_atomic(path, lambda tmp: Path(tmp).write_text(text + "\n"))


def _versions() -> dict:
    import numba

    import mcsim

    return {
        "mcsim": mcsim.__version__,
        "numba": numba.__version__,
        "numpy": np.__version__,
        "pandas": pd.__version__,
        "python": sys.version.split()[0],
    }


def format_table(table: pd.DataFrame) -> str:
    """Readable text of the tidy table (what ``mcsim batch`` prints)."""
    lines = [
        f"{'cell':<22} {'game':<16} {'seat':>4} {'policy':<16} {'win rate [95% CI]':<26} "
        f"{'mean score [95% CI]':<28} variant / games / seed"
    ]
    for r in table.itertuples(index=False):
        wr = (
            f"{r.win_rate:.4f} [{r.win_rate_low:.4f}, {r.win_rate_high:.4f}]"
            if r.players > 1
            else "-"
        )  # a solo game has no win rate
        lo = "" if math.isnan(r.score_low) else f"{r.score_low:.3f}"
        hi = "" if math.isnan(r.score_high) else f"{r.score_high:.3f}"
        ms = f"{r.score_mean:.3f} [{lo}, {hi}]"
        lines.append(
            f"{r.cell_id:<22} {r.game:<16} {r.seat:>4} {r.policy:<16} {wr:<26} "
            f"{ms:<28} {r.variant or '-'} / {r.games:,} / {r.seed}"
        )
    return "\n".join(lines)


def batch_json(result: BatchResult) -> str:
    """One JSON object: the plan, the tidy rows and each cell's summary."""
    rows = result.table.astype({"seed": object}).to_dict(orient="records")
    return to_json(
        {
            "plan": result.plan.path,
            "title": result.plan.title,
            "rows": rows,
            "experiments": result.summaries,
        }
    )


if __name__ == "__main__":  # pragma: no cover
    print(json.dumps([c.as_dict() for c in load_plan(sys.argv[1]).cells], indent=2))
