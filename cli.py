"""mcsim command line: argument parsing and printing only (the work is in ``mcsim``)."""

from __future__ import annotations

import os
import signal
import sys


def _abort_during_startup(signum, frame):  # Ctrl-C while the modules below load
    os.write(2, b"Aborted!\n")
    os._exit(1)


if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, _abort_during_startup)

import contextlib  # noqa: E402
import functools  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
from pathlib import Path  # noqa: E402

import click  # noqa: E402

import mcsim  # noqa: E402
from mcsim import errors  # noqa: E402
from mcsim.games import REGISTRY, all_games, get_game  # noqa: E402
from mcsim.runner import (  # noqa: E402
    CHUNK_SIZE,
    GAME_INDEX,
    GAMES,
    MAX_GAMES,
    SEED,
    WORKERS,
    quiet_collector,
)
from mcsim.text import counted  # noqa: E402
from mcsim.values import Whole, real_number, reset_naming, speaking_cli  # noqa: E402

if signal.getsignal(signal.SIGINT) is _abort_during_startup:
    signal.signal(signal.SIGINT, signal.default_int_handler)

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
GAME_IDS = list(REGISTRY)

# errors that are about the options given (exit 2) vs about files and data (exit 1)
_USAGE_ERRORS = (
    errors.UnknownGameError,
    errors.UnknownPolicyError,
    errors.UnknownVariantError,
    errors.ConfigError,
    errors.MissingFileError,
    errors.OutputError,  # an output refused before the run (its subclass OutputWriteError: 1)
)


def friendly_errors(fn):
    """Turn mcsim errors into one line on stderr and a non-zero exit, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (click.ClickException, BrokenPipeError):
            raise
        except errors.OutputWriteError as e:
            raise click.ClickException(str(e)) from None
        except _USAGE_ERRORS as e:
            raise click.UsageError(str(e)) from None
        except errors.McsimError as e:
            raise click.ClickException(str(e)) from None
        except OSError as e:
            raise click.ClickException(
                f"{e.strerror or e}: {e.filename or ''}".rstrip(": ")
            ) from None
        except KeyboardInterrupt:
            raise click.Abort() from None
        except SystemError as e:
            if _interrupted(e):  # Ctrl-C inside a Numba call (one worker)
                raise click.Abort() from None
            raise

    return wrapper


def _interrupted(e: BaseException) -> bool:
    """True when a KeyboardInterrupt is in the exception's cause/context chain (Numba reports
    Ctrl-C during a jit call as ``SystemError: ... returned a result with an exception set``)."""
    seen = set()
    while e is not None and id(e) not in seen:
        if isinstance(e, KeyboardInterrupt):
            return True
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return False


class RealNumber(click.ParamType):
    """A real-number flag read by the one rule of ``mcsim.values`` (finite, ASCII); a refusal
    is one line naming the flag (exit 2)."""

    name = "number"

    def convert(self, value, param, ctx):
        flags = [o for o in (param.opts if param is not None else []) if o.startswith("--")]
        flag = max(flags, key=len) if flags else "value"
        try:
            return real_number(value, flag)
        except errors.BadValueError as e:
            raise click.UsageError(str(e), ctx) from None


class WholeNumber(click.ParamType):
    """A whole-number flag read by the one rule of ``mcsim.values`` (ASCII digits, ``_``
    separators, ``1e6`` form; no full-width digits) within ``limit``; a refusal is one line
    naming the flag (exit 2)."""

    name = "integer"

    def __init__(self, limit: Whole | None = None):
        self.limit = limit or Whole()

    def convert(self, value, param, ctx):
        flags = [o for o in (param.opts if param is not None else []) if o.startswith("--")]
        flag = max(flags, key=len) if flags else "value"
        try:
            return self.limit.check(value, flag, text=True)
        except errors.BadValueError as e:
            raise click.UsageError(str(e), ctx) from None


#: a whole-number flag without limits of its own (the command checks its range), and a count
#: from 0
WHOLE = WholeNumber()
COUNT = WholeNumber(Whole(0, MAX_GAMES))


def parse_variants(values) -> dict:
    return parse_key_values(values, "--variant")


def check_output_paths(pairs) -> None:
    """Fail before any game is played when an output's directory is missing or is a file (one
    line naming the flag and the path, as ``mcsim.outputs`` words every output error)."""
    for p, name in pairs:
        if not p:
            continue
        parent = Path(p).resolve().parent
        if parent.exists() and not parent.is_dir():
            raise errors.OutputError(f"{name} {p}: {Path(p).parent} is a file, not a directory")
        if not parent.is_dir():
            from mcsim.outputs import given_parent

            raise errors.OutputError(f"{name} {p}: folder {given_parent(p)} does not exist")


def output_path(kind: str):
    """Click callback for an output option: refuse an empty path, and a directory output
    (``kind`` "dir", or "table-or-dir" without a .parquet/.csv suffix) naming an existing
    non-directory such as ``/dev/full``."""

    def check(ctx, param, value):
        if value is None:
            return value
        if not str(value).strip():
            raise click.BadParameter("is empty; give a file or directory name")
        p = Path(value)
        is_dir = kind == "dir" or (
            kind == "table-or-dir" and p.suffix.lower() not in (".parquet", ".csv")
        )
        if is_dir and p.exists() and not p.is_dir():
            raise click.BadParameter(f"{value} exists and is not a directory")
        return value

    return check


def game_argument(fn):
    return click.argument("game", metavar="GAME", type=click.Choice(GAME_IDS))(fn)


def _store_game_options(ctx, param, values):
    ctx.meta["game_options"] = parse_key_values(values, "--option")
    return values


def parse_key_values(values, hint: str) -> dict:
    out = {}
    for v in values:
        name, eq, val = v.partition("=")
        if not eq or not name.strip() or not val.strip():
            raise click.BadParameter(f"{v!r} must be written name=value", param_hint=hint)
        if name.strip() in out:
            raise click.BadParameter(f"{name.strip()!r} is given twice", param_hint=hint)
        out[name.strip()] = val.strip()
    return out


def game_option_flag(help_text: str):
    """The ``--option KEY=VALUE`` flag (repeatable) of a command that plays games; the values
    are read by ``game_options()``."""
    return click.option(
        "--option",
        "game_option_values",
        multiple=True,
        metavar="KEY=VALUE",
        expose_value=False,
        callback=_store_game_options,
        help=help_text,
    )


def game_options() -> dict:
    """The game options of the running command: its ``--option KEY=VALUE`` values."""
    ctx = click.get_current_context(silent=True)
    return dict(ctx.meta.get("game_options", {})) if ctx is not None else {}


def games_option(default: int, help_text: str):
    """``--games/-n N``: a whole number of games (``GAMES`` bounds it)."""
    return click.option(
        "--games", "-n", type=WholeNumber(GAMES), default=default, show_default=True,
        help=help_text,
    )  # fmt: skip


def seed_option(help_text: str = "Root seed; game i depends only on (seed, i)."):
    """``--seed/-s S``: the root seed (``SEED`` bounds it)."""
    return click.option(
        "--seed", "-s", type=WholeNumber(SEED), default=0, show_default=True, help=help_text
    )


def workers_option(help_text: str = "Worker processes (default: all cores). Results do not "
                   "depend on it."):  # fmt: skip
    """``--workers/-w N`` (``WORKERS`` bounds it)."""
    return click.option("--workers", "-w", type=WholeNumber(WORKERS), default=None, help=help_text)


def run_options(
    fn=None,
    *,
    games_help="Number of games to play.",
    players_help="Number of seats (default: one per --policy, else the game's default).",
    chunk_size=True,
    policy_help="Policy per seat, in seat order; one value = all seats "
    "(default random). Parameters: greedy:eps=0.1,w_kingdoms=2.",
):
    """Options shared by the commands that play games (``@run_options``, or
    ``@run_options(games_help=..., players_help=..., chunk_size=False)`` for a command whose
    options mean something else)."""
    if fn is None:
        return functools.partial(
            run_options,
            games_help=games_help,
            players_help=players_help,
            chunk_size=chunk_size,
            policy_help=policy_help,
        )
    for deco in reversed(
        [
            games_option(10_000, games_help),
            seed_option(),
            click.option(
                "--policy",
                "-p",
                "policies",
                multiple=True,
                metavar="NAME[:k=v,...]",
                help=policy_help,
            ),
            click.option(
                "--variant",
                "variants",
                multiple=True,
                metavar="NAME=VALUE",
                help="A rule reading, e.g. transition=web2014 (see `mcsim games`).",
            ),
            click.option("--players", type=WHOLE, default=None, help=players_help),
            workers_option(),
        ]
        + (
            [
                click.option(
                    "--chunk-size",
                    type=WholeNumber(CHUNK_SIZE),
                    default=None,
                    help="Games per work chunk.",
                )
            ]
            if chunk_size
            else []
        )
        + [
            click.option(
                "--option",
                "game_option_values",
                multiple=True,
                metavar="KEY=VALUE",
                expose_value=False,
                callback=_store_game_options,
                help="A game-specific option, e.g. tiles=FILE for Don Quixote, carriages=FILE for "
                "Thurn and Taxis "
                "(`mcsim games` lists each game's options).",
            ),
            click.option(
                "--json", "as_json", is_flag=True, help="Print the summary as one JSON object."
            ),
            click.option(
                "--quiet", "-q", is_flag=True, help="No progress bar or notices on stderr."
            ),
        ]
    ):
        fn = deco(fn)
    return fn


_PROGRAM = {"running": False}  # True when this process is the ``mcsim`` program (``main()``)


def _ignore_further_ctrl_c():
    """On the abort path of the program, a second Ctrl-C changes nothing (no traceback, exit 1);
    not when the CLI is called in-process (``CliRunner``, notebooks)."""
    if _PROGRAM["running"]:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _exit_aborted():
    """Exit 1 after Ctrl-C. The program ends at once (``os._exit``, after flushing its output):
    the interrupt path has already killed the workers and removed their unfinished files, and
    Python's own exit would join the killed process pool's manager thread, which could wait for
    more than 30 s or print an ``OSError: [Errno 9] Bad file descriptor`` traceback from
    ``concurrent.futures``. In-process callers (``CliRunner``, notebooks) get ``SystemExit(1)``."""
    if not _PROGRAM["running"]:
        sys.exit(1)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(1)


class OneLineErrorGroup(click.Group):
    """A click group whose errors are exactly one line on stderr (``Error: ...``) and a
    non-zero exit: 2 for bad options, 1 for bad files and data, 1 after Ctrl-C."""

    def parse_args(self, ctx, args):
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            click.echo(ctx.get_help())  # `mcsim` alone: the normal help, exit 0
            ctx.exit(0)
        return super().parse_args(ctx, args)

    def main(self, *args, standalone_mode=True, **kwargs):
        try:
            rv = super().main(*args, standalone_mode=False, **kwargs)
        except BrokenPipeError:
            # the reader of stdout went away (`mcsim games | head -1`): stop quietly, and keep
            # Python's exit-time flush from failing again on the closed pipe
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(1)
        except click.ClickException as e:
            message = " ".join(e.format_message().split())  # always exactly one line
            click.echo(f"Error: {message}", err=True)
            sys.exit(e.exit_code)
        except (click.Abort, KeyboardInterrupt):
            _ignore_further_ctrl_c()
            click.echo("Aborted!", err=True)
            _exit_aborted()
        except SystemError as e:
            if not _interrupted(e):
                raise
            _ignore_further_ctrl_c()
            click.echo("Aborted!", err=True)
            _exit_aborted()
        sys.exit(rv if isinstance(rv, int) else 0)


@click.group(cls=OneLineErrorGroup, context_settings=CONTEXT)
@click.version_option(mcsim.__version__, prog_name="mcsim")
def mcsim_cli():
    """Monte Carlo analyzer for Sacred Hill, Don Quixote, El Grande, Carcassonne and Thurn and Taxis."""
    quiet_collector()  # a cold compile spends 15-20% less CPU
    # messages of mcsim name the flags (--games), not the Python keywords (games=)
    token = speaking_cli()
    click.get_current_context().call_on_close(lambda: reset_naming(token))


@mcsim_cli.command("games")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@friendly_errors
def games_cmd(as_json):
    """List the games, their variants (with defaults), their policies (with parameters) and
    the options restricted play can forbid (`-p POLICY:forbid=OPTION`, `mcsim value`).
    `--json` also gives each parameter's accepted range (`param_ranges`: low, high, whether
    only whole numbers, what it does).

    \b
    Example:
        mcsim games
    """
    rows = []
    for module in all_games():
        s = module.SPEC
        rows.append(
            {
                "id": s.id,
                "name": s.long_name,
                "players": [s.min_players, s.max_players],
                "default_players": s.default_players,
                "rules": s.rules,
                "variants": [
                    {
                        "name": v.name,
                        "values": list(v.choices),
                        "default": v.default,
                        "help": v.help,
                    }
                    for v in s.variants
                ],
                "policies": [
                    {
                        "name": p.name,
                        "help": p.help,
                        "params": {q.name: q.default for q in p.params},
                        # what each parameter accepts (null: no bound on that side)
                        "param_ranges": {
                            q.name: {
                                "low": float(q.low) if math.isfinite(q.low) else None,
                                "high": float(q.high) if math.isfinite(q.high) else None,
                                "integer": q.integer,
                                "help": q.help,
                            }
                            for q in p.params
                        },
                    }
                    for p in s.policies
                ],
                "options": dict(module.OPTIONS),
                "restrictions": [
                    {"name": x.name, "group": x.group, "help": x.help, "source": x.source}
                    for x in s.restrictions
                ],
            }
        )
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    for r in rows:
        lo, hi = r["players"]
        seats = f"{lo}" if lo == hi else f"{lo}-{hi}"
        click.echo(f"{r['id']}  ({r['name']}, {seats} players; rules: {r['rules']})")
        for v in r["variants"]:
            vals = "|".join(v["values"])
            click.echo(f"  variant  {v['name']}={vals}  (default {v['default']}): {v['help']}")
        for key, help_ in r["options"].items():
            click.echo(f"  option   {key}=...: {help_}")
        for p in r["policies"]:
            click.echo(f"  policy   {p['name']}: {p['help']}")
            if p["params"]:
                click.echo("           " + ", ".join(f"{k}={v:g}" for k, v in p["params"].items()))
        if r["restrictions"]:
            click.echo(
                "  restricted play (-p POLICY:forbid=A+B, simulate --restrict SEAT=A+B, "
                "mcsim value):"
            )
        for x in r["restrictions"]:
            click.echo(f"  forbid   {x['name']}  ({x['group']}): {x['help']}")
        click.echo()


def format_summary(summary: dict, module) -> str:
    """Readable text of a summary (the table printed by ``simulate``)."""
    var = " ".join(f"{k}={v}" for k, v in module.SPEC.shown_variant(summary["variant"]).items())
    var = var or "-"
    pw = max([22] + [len(s["policy"]) + 1 for s in summary["seats"]])
    solo = summary["players"] == 1  # one seat: score statistics only, no win rate
    wr_head = "" if solo else f"{'win rate [95% CI]':<28} "
    lines = [
        f"{module.SPEC.title(summary['variant'])}: {counted(summary['games'], 'game')}, "
        f"seed {summary['seed']}, "
        f"{summary['players']} players, variant {var}",
        f"{'seat':>4}  {'policy':<{pw}} {wr_head}{'mean score [95% CI]':<28}"
        f"{'sd':>7} {'min':>6} {'p50':>6} {'max':>6}",
    ]
    for s in summary["seats"]:
        w, sc = s["win_rate"], s["score"]
        wr = (
            "" if solo else f"{w['estimate']:.4f} [{w['low']:.4f}, {w['high']:.4f}]".ljust(28) + " "
        )
        ms = (
            f"{sc['mean']:.3f} [{sc['low']:.3f}, {sc['high']:.3f}]"
            if sc["low"] == sc["low"]
            else f"{sc['mean']:.3f} [undefined]"
        )  # one game: no interval
        sd = "undefined" if sc["sd"] is None or sc["sd"] != sc["sd"] else f"{sc['sd']:.3f}"
        lines.append(
            f"{s['seat']:>4}  {s['policy']:<{pw}} {wr}{ms:<28}{sd:>7} "
            f"{sc['min']:>6g} {sc['p50']:>6g} {sc['max']:>6g}"
        )
    ln = summary["length"]
    from mcsim.runner import timing_text

    lines.append(
        f"length: mean {ln['mean']:.2f} plies (min {ln['min']}, max {ln['max']}); "
        + timing_text(summary)
    )
    block = summary.get(module.SPEC.summary_key)
    if block is not None:
        lines.append(module.format_summary(block, summary))
    return "\n".join(lines)


def _nonempty_scheduler(ctx, param, value):
    """Refuse an empty ``--scheduler`` as an empty ``--out`` is refused (it is no address; a
    LocalCluster is what leaving the flag out gives)."""
    if value is not None and not value.strip():
        raise click.BadParameter("is empty; give a scheduler address such as tcp://host:8786")
    return value


def print_notices(notices, quiet: bool) -> None:
    """``note: ...`` lines on stderr; with ``--quiet`` only those saying that a resumed run
    played saved games again (a foreign, edited or damaged file in the folder: never hidden)."""
    for line in notices:
        if not quiet or str(line).startswith("resume:"):
            click.echo(f"note: {line}", err=True)


def scale_options(fn):
    """Backend options shared by the commands that play many games."""
    for deco in reversed(
        [
            click.option(
                "--backend",
                type=click.Choice(["local", "dask", "serial"]),
                default=None,
                help="Where chunks run: local processes (default), a Dask cluster, or "
                "this process. Results are identical for every backend.",
            ),
            click.option(
                "--scheduler",
                default=None,
                metavar="ADDRESS",
                callback=_nonempty_scheduler,
                help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 (default with "
                "--backend dask: a LocalCluster on this machine).",
            ),
        ]
    ):
        fn = deco(fn)
    return fn


def precision_options(fn):
    """``--precision H`` and ``--max-games N`` of the commands that can size a study by
    precision (``mcsim.precision``)."""
    for d in reversed(
        [
            click.option(
                "--precision",
                type=RealNumber(),
                default=None,
                metavar="H",
                help="Play chunk by chunk until the 95% interval of the headline statistic is "
                "at most ±H (win rates and shares; points for a one-seat game); prints the "
                "estimated games and CPU time first. Instead of --games.",
            ),
            click.option(
                "--max-games",
                type=WholeNumber(GAMES),
                default=None,
                metavar="N",
                help="With --precision: at most N games per run (default 100,000); said when "
                "it binds.",
            ),
        ]
    ):
        fn = d(fn)
    return fn


def study_options(*, games_help: str, seed_help: str, out_help: str, run: str):
    """The options of the commands that play one study on common deals (``ladder``,
    ``value``): ``--games``, ``--seed``, ``--variant``, ``--players``, ``--option``,
    ``--workers``, the backend and precision options, ``--out DIR`` with ``--resume`` /
    ``--force``, ``--json`` and ``--quiet``, in that order of ``--help``. ``run`` names what
    ``--resume`` / ``--force`` / ``--json`` act on ("ladder", "run")."""

    def apply(fn):
        for d in reversed(
            [
                games_option(1000, games_help),
                seed_option(seed_help),
                click.option(
                    "--variant",
                    "variants",
                    multiple=True,
                    metavar="NAME=VALUE",
                    help="A rule reading.",
                ),  # fmt: skip
                click.option(
                    "--players",
                    type=WHOLE,
                    default=None,
                    help="Number of seats (default: the game's).",
                ),  # fmt: skip
                game_option_flag(
                    "A game-specific option (`mcsim games` lists each game's options)."
                ),
                workers_option(),
                scale_options,
                precision_options,
                click.option(
                    "--out",
                    "-o",
                    type=click.Path(),  # a file is refused by output_path, as for every --out
                    default=None,
                    callback=output_path("dir"),
                    help=out_help,
                ),
                click.option(
                    "--resume",
                    is_flag=True,
                    help=f"Continue an interrupted {run} in --out DIR (same result).",
                ),
                click.option(
                    "--force",
                    is_flag=True,
                    help=f"Replace an earlier {run} in --out DIR, once the new one has finished.",
                ),
                click.option(
                    "--json",
                    "as_json",
                    is_flag=True,
                    help=f"Print the {'ladder' if run == 'ladder' else 'result'} as one JSON object.",
                ),  # fmt: skip
                click.option(
                    "--quiet",
                    "-q",
                    is_flag=True,
                    help="No calibration line or progress on stderr.",
                ),  # fmt: skip
            ]
        ):
            fn = d(fn)
        return fn

    return apply


def check_study_out(out, resume: bool, force: bool, folder_kind: str, run: str) -> None:
    """The ``--out`` / ``--resume`` / ``--force`` checks of a ``study_options`` command, before
    any game (``mcsim.outputs.check_run_folder``); ``folder_kind`` is the folder's kind
    (``LADDER_FOLDER``, ``VALUE_FOLDER``). Raises ``click.UsageError`` / ``OutputError``."""
    if resume and out is None:
        raise click.UsageError(f"--resume needs --out DIR (the folder of the interrupted {run})")
    if force and out is None:
        raise click.UsageError(f"--force needs --out DIR (the folder of the {run} to replace)")
    if force and resume:
        raise click.UsageError("--force starts over and --resume continues: give one of them")
    if out is not None:  # as every command's --out DIR, before any game
        from mcsim.outputs import check_run_folder

        check_run_folder(out, "--out", folder_kind, resume, force)


def check_precision_flags(precision, max_games, games_flag: str = "--games") -> None:
    """Refuse ``--max-games`` without ``--precision``, ``--precision`` with an explicit
    ``--games``, and a bad precision or cap, before any game (exit 2)."""
    from mcsim.precision import check_precision

    ctx = click.get_current_context()
    if precision is None:
        if max_games is not None:
            raise click.UsageError("--max-games goes with --precision H")
        return
    src = ctx.get_parameter_source("games")
    if src is not None and src.name == "COMMANDLINE":
        raise click.UsageError(
            f"give {games_flag} N (a fixed count) or --precision H (a target), not both"
        )
    check_precision(precision, 1 if max_games is None else max_games, win_rates=False)


def _given() -> set[str]:
    """The parameters of the running command given on its command line."""
    ctx = click.get_current_context()
    return {
        k for k in ctx.params if (src := ctx.get_parameter_source(k)) and src.name == "COMMANDLINE"
    }


def _precision_echo(quiet: bool):
    return None if quiet else (lambda line: click.echo(line, err=True))


def _check_simulate_outputs(out, resume, record, record_out, games) -> bool:
    """Check ``simulate``'s output flags together before anything runs (click errors, exit 2);
    returns True when ``--out`` is one table file (``.parquet``/``.csv``), False for a run
    folder or no ``--out``."""
    single_file = out is not None and Path(out).suffix.lower() in (".parquet", ".csv")
    if out is not None and not single_file and Path(out).suffix:
        raise click.BadParameter(
            "must end in .parquet or .csv, or be a directory", param_hint="--out"
        )
    if resume and (out is None or single_file):
        raise click.UsageError("--resume needs --out DIR (the directory of the interrupted run)")
    if record and not record_out:
        raise click.UsageError("--record K needs --record-out FILE")
    if record_out and not record:
        raise click.UsageError("--record-out needs --record K (K > 0)")
    check_output_paths(((out, "--out"), (record_out, "--record-out")))
    if single_file and Path(out).is_dir():
        raise click.BadParameter(f"{out} is a directory", param_hint="--out")
    if record_out and Path(record_out).suffix.lower() != ".json":
        raise click.BadParameter("must end in .json", param_hint="--record-out")
    if record_out and out is not None:
        taken = (
            {Path(out).resolve(), Path(str(out) + ".manifest.json").resolve()}
            if single_file
            else {Path(out).resolve()}
        )
        if Path(record_out).resolve() in taken or (
            not single_file and Path(out).resolve() in Path(record_out).resolve().parents
        ):
            raise click.BadParameter(
                f"{record_out} would overwrite part of the --out output", param_hint="--record-out"
            )
    if record and games > 0 and record > games:
        raise click.BadParameter(
            f"{record} records asked of a {games}-game run", param_hint="--record"
        )
    return single_file


def restricted_lineup(game: str, policies, players, restricts) -> tuple[str, ...]:
    """The seats' policies with ``--restrict SEAT=A+B`` applied: ``forbid=A+B`` added to seat
    SEAT's policy (one ``-p`` value, or none, is first spread over the seats). A seat out of
    range, a seat given twice, a malformed value or a seat whose ``-p`` already has
    ``forbid=`` is a ``click.UsageError`` (exit 2) before any game; the option names are
    checked by ``resolve_config`` (``GameSpec.forbid_params``)."""
    from mcsim.games.base import PolicyChoice, parse_policy
    from mcsim.values import parse_whole

    spec = get_game(game).SPEC
    n = players if players is not None else (len(policies) if len(policies) > 1 else None)
    n = spec.default_players if n is None else n
    if len(policies) > 1 and len(policies) != n:
        return tuple(policies)  # resolve_config says how many policies the seats need
    lineup = list(policies) * n if len(policies) == 1 else list(policies) or ["random"] * n
    done: set[int] = set()
    for r in restricts:
        seat_text, eq, names = r.partition("=")
        seat = parse_whole(seat_text.strip())
        if not eq or seat is None or not names.strip():
            raise click.BadParameter(
                f"{r!r} must be written SEAT=OPTION[+OPTION...], e.g. 0=battle-next-to-enemy",
                param_hint="--restrict",
            )
        if not 0 <= seat < n:
            raise click.BadParameter(
                f"{r!r}: seat {seat} is out of range (the game has seats 0..{n - 1})",
                param_hint="--restrict",
            )
        if seat in done:
            raise click.BadParameter(f"seat {seat} is given twice", param_hint="--restrict")
        done.add(seat)
        choice = parse_policy(lineup[seat], spec)
        if choice.forbid:
            raise click.BadParameter(
                f"{r!r}: seat {seat}'s policy {lineup[seat]!r} already has forbid=; give the "
                "options one way",
                param_hint="--restrict",
            )
        forbid = tuple(x.strip().lower() for x in names.split("+"))
        if not all(forbid):
            raise click.BadParameter(
                f"{r!r}: an empty option name; join option names with +",
                param_hint="--restrict",
            )
        lineup[seat] = PolicyChoice(choice.name, choice.params, choice.written, forbid).label()
    return tuple(lineup)


@mcsim_cli.command("simulate")
@game_argument
@run_options
@scale_options
@click.option(
    "--out",
    "-o",
    type=click.Path(),
    default=None,
    callback=output_path("table-or-dir"),
    help="Per-game rows: FILE.parquet or FILE.csv (plus FILE.manifest.json), or a "
    "directory: a Parquet dataset written chunk by chunk (bounded memory, "
    "resumable) with _manifest.json and _summary.json.",
)
@click.option(
    "--resume",
    is_flag=True,
    help="Continue an interrupted run in --out DIR, skipping its finished chunks.",
)
@click.option(
    "--record",
    "record",
    type=COUNT,
    default=0,
    show_default=True,
    help="Also write the records of the first K games.",
)
@click.option(
    "--record-out",
    type=click.Path(dir_okay=False),
    default=None,
    callback=output_path("file"),
    help="File for --record (JSON: one record, or a list when K > 1).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Overwrite an existing --out file or --record-out file (or an earlier run's --out DIR).",
)
@precision_options
@click.option(
    "--restrict",
    "restricts",
    multiple=True,
    metavar="SEAT=A+B",
    help="Restricted play: seat SEAT (0 = first) may not choose options A and B (adds "
    "forbid=A+B to that seat's policy; repeatable; `mcsim games` lists the options).",
)
@friendly_errors
def simulate_cmd(
    game,
    games,
    seed,
    policies,
    variants,
    players,
    workers,
    chunk_size,
    as_json,
    quiet,
    backend,
    scheduler,
    out,
    resume,
    record,
    record_out,
    force,
    precision,
    max_games,
    restricts,
):
    """Play N complete games and print the summary (win rate and score per seat, ...).

    \b
    Examples:
        mcsim simulate sacred-hill --games 1000000 --seed 1
        mcsim simulate sacred-hill -n 100000 -p tactician -p random --variant transition=web2014
        mcsim simulate sacred-hill -n 10000 --out games.parquet --record 5 --record-out rec.json
        mcsim simulate sacred-hill -n 100000000 --out run/      # Ctrl-C, then add --resume
        mcsim simulate sacred-hill -n 1000000 --backend dask --scheduler tcp://host:8786
        mcsim simulate sacred-hill -p mcts --precision 0.02 --max-games 5000
        mcsim simulate sacred-hill -n 1000 -p tactician --restrict 0=battle-next-to-enemy
    """
    check_precision_flags(precision, max_games)
    if restricts:
        policies = restricted_lineup(game, policies, players, restricts)
    single_file = _check_simulate_outputs(out, resume, record, record_out, games)
    if force and resume:
        raise click.UsageError("--force starts over and --resume continues: give one of them")
    from mcsim.outputs import SIMULATE_FOLDER, Outputs, check_run_folder, stage_games_table

    outs = Outputs(force=force)  # every output checked before the first game
    if single_file:
        outs.file(out, "--out")
    elif out is not None:  # --force replaces an earlier run only once this one has finished
        check_run_folder(out, "--out", SIMULATE_FOLDER, resume, force)
    if record_out:
        outs.file(record_out, "--record-out")
    options = game_options()
    run = mcsim.simulate
    if precision is not None:
        from mcsim.precision import DEFAULT_MAX_GAMES, simulate_to_precision

        games = DEFAULT_MAX_GAMES if max_games is None else max_games
        if record and record > games:
            raise click.BadParameter(
                f"{record} records asked of a run of at most {games} games", param_hint="--record"
            )

        def run(game, games, keep_games, record, **kw):
            r = simulate_to_precision(game, precision, games, echo=_precision_echo(quiet), **kw)
            if record:
                module = get_game(game)
                r.records = module.record_games(r.prepared, kw["seed"], list(range(record)))
            return r

    result = run(
        game,
        games=games,
        seed=seed,
        policies=policies or None,
        variant=parse_variants(variants),
        players=players,
        workers=workers,
        chunk_size=chunk_size,
        options=options,
        record=record,
        progress=not quiet,
        backend=backend,
        scheduler=scheduler,
        out_dir=None if (out is None or single_file) else out,
        resume=resume,
        keep_games=True if single_file else None,
        force=force and not single_file,
    )
    from mcsim.runner import manifest_for, to_json

    with outs:  # all of the command's files are moved into place together, or none
        if single_file:
            stage_games_table(outs, result.games, out, manifest_for(result.summary))
        if record:
            recs = result.records if len(result.records) > 1 else result.records[0]
            text = json.dumps(recs, indent=1)
            outs.stage_file(
                record_out, lambda tmp: Path(tmp).write_text(text + "\n"), "--record-out"
            )
        outs.commit()
    print_notices(result.prepared.notices, quiet)
    if as_json:
        click.echo(to_json(result.summary))
    else:
        click.echo(format_summary(result.summary, get_game(game)))
        if precision is not None:
            from mcsim.precision import precision_line

            click.echo(precision_line(result.summary["precision"]))


@mcsim_cli.command("tournament")
@game_argument
@run_options(
    games_help="Games per lineup (every seating of every pair of policies plays this many).",
    players_help="Seats per game (default: the game's default seat count, whatever "
    "the number of --policy values; a game that is solo by default, Don Quixote: one seat "
    "per --policy value, at most the game's maximum).",
    chunk_size=False,
    policy_help="A contestant (repeat; at least two). Every contestant sits in every seat.",
)
@scale_options
@precision_options
@friendly_errors
def tournament_cmd(
    game,
    games,
    seed,
    policies,
    variants,
    players,
    workers,
    as_json,
    quiet,
    backend,
    scheduler,
    precision,
    max_games,
):
    """Every policy against every other in every seat: win-rate matrix, Elo, seat effect.

    Each pair of policies plays every seating (with 3+ seats every arrangement of the two),
    N games per lineup, on the same deals (common random numbers). Here --games/-n is the
    number of games per lineup, and each --policy is one contestant (every contestant sits in
    every seat). Elo ratings and seat effects come from one maximum-likelihood fit, so the seat
    advantage is separated from policy strength; Nash averaging and alpha-Rank rank a field
    that is not transitive (docs/usage.md).

    \b
    Example:
        mcsim tournament sacred-hill -p random -p greedy -p tactician --games 20000
        mcsim tournament sacred-hill -p tactician -p mcts --precision 0.03
    """
    from mcsim.runner import to_json
    from mcsim.tournament import format_tournament, tournament

    check_precision_flags(precision, max_games)

    options = game_options()
    t = tournament(
        game,
        list(policies),
        players=players,
        games=games,
        seed=seed,
        variant=parse_variants(variants),
        workers=workers,
        options=options,
        backend=backend,
        scheduler=scheduler,
        progress=not quiet,
        precision=precision,
        max_games=max_games,
        echo=_precision_echo(quiet),
    )
    click.echo(to_json(t) if as_json else format_tournament(t))
    if precision is not None and not as_json:
        from mcsim.precision import precision_line

        click.echo(precision_line(t["precision"]))


@contextlib.contextmanager
def record_file_errors(record_file):
    """Inside: an error about the record read from ``record_file`` (malformed, of another game,
    an illegal move) names the file, its path as given: ``game.json: not a sacred-hill record
    ...``, as the file readers' own errors do. With ``record_file`` None (a played game) the
    errors pass unchanged."""
    try:
        yield
    except errors.InvalidRecordError as e:
        if record_file is None or str(e).startswith(f"{record_file}:"):
            raise
        raise errors.InvalidRecordError(f"{record_file}: {e}") from None
    except errors.IllegalMoveError as e:
        if record_file is None:
            raise
        named = errors.IllegalMoveError(e.ply, e.move, e.legal)
        named.args = (f"{record_file}: {e}",)
        raise named from None


def read_record(record_file, index):
    """The record in ``record_file`` (bounded JSON reader): the object itself, or entry
    ``index`` of a list (as ``simulate --record K`` writes); one-line errors otherwise."""
    from mcsim.files import read_json

    record = read_json(record_file, "record")
    if isinstance(record, list):
        if not record:
            raise errors.InvalidRecordError(f"{record_file} holds no records")
        if index is None and len(record) != 1:
            # a usage error (exit 2), like an --index out of range: the file is fine
            raise click.UsageError(
                f"{record_file} holds {len(record)} records; choose one with --index 0.."
                f"{len(record) - 1}"
            )
        if (index or 0) >= len(record):
            raise click.BadParameter(
                f"{record_file} holds {len(record)} records (0..{len(record) - 1})",
                param_hint="--index",
            )
        record = record[index or 0]
    elif index not in (None, 0):
        raise click.BadParameter(f"{record_file} holds one record (index 0)", param_hint="--index")
    return record


@mcsim_cli.command("tune")
@game_argument
@click.option(
    "--policy",
    "-p",
    "policy",
    required=True,
    metavar="NAME[:k=v,...]",
    help="The policy to tune; parameters given here are fixed (not tuned) unless "
    "--param names them, then they are starting values.",
)
@click.option(
    "--against",
    "against",
    multiple=True,
    metavar="NAME[:k=v,...]",
    help="The field: one policy for every other seat, or one per other seat "
    "(repeat). Default: the starting policy.",
)
@click.option(
    "--players",
    type=WHOLE,
    default=None,
    help="Seats (default: 1 + the --against count when above one, else the game's default).",
)
@click.option(
    "--budget",
    "-n",
    type=WholeNumber(GAMES),
    default=None,
    help="Total games, validation included (default per game: sacred-hill, don-quixote "
    "and thurn-and-taxis 1,000,000, el-grande and carcassonne 100,000: minutes "
    "for the heuristics on 2 cores; give far less for mcts).",
)
@click.option(
    "--seed",
    "-s",
    type=WholeNumber(SEED),
    default=0,
    show_default=True,
    help="Root seed; tuning plays its game indices 0.., validation 2**40..",
)
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="NAME[=LOW:HIGH]",
    help="Tune only this parameter (repeat), optionally in this box (inside its "
    "documented range). Default box: the range narrowed to start +/- "
    "max(2|start|, 1).",
)
@click.option(
    "--objective",
    type=click.Choice(["win_share", "score", "margin"]),
    default=None,
    help="What to maximise per deal, averaged over the seatings (default win_share; "
    "score with one player; margin = own score minus the others' mean).",
)
@click.option(
    "--deals",
    type=WHOLE,
    default=None,
    help="Deals per candidate and generation (default: from the budget, at most 40 "
    "generations of at least 16 deals).",
)
@click.option(
    "--popsize",
    type=WHOLE,
    default=None,
    help="CMA-ES population (default 4 + floor(3 ln d) for d parameters).",
)
@click.option("--variant", "variants", multiple=True, metavar="NAME=VALUE", help="A rule reading.")
@game_option_flag("A game-specific option (`mcsim games` lists each game's options).")
@click.option(
    "--workers",
    "-w",
    type=WholeNumber(WORKERS),
    default=None,
    help="Worker processes (default: all cores). Results do not depend on it.",
)
@scale_options
@click.option(
    "--out",
    "-o",
    type=click.Path(),  # a file is refused by output_path, as for every --out
    default=None,
    callback=output_path("dir"),
    help="Folder for tune.json (settings, versions, result), evaluations.csv (every "
    "candidate), objective.png and state.json (for --resume).",
)
@click.option(
    "--resume",
    is_flag=True,
    help="Continue an interrupted run in --out DIR (same result as uninterrupted).",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Print the search space (boxes, integers), the budget plan and the seeds; play nothing.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
@click.option(
    "--force",
    is_flag=True,
    help="Start over in an --out DIR that holds an earlier tuning run (replaced by the new "
    "run once it has finished; kept as it is if the new run fails or is interrupted).",
)
@friendly_errors
def tune_cmd(
    game,
    policy,
    against,
    players,
    budget,
    seed,
    params,
    objective,
    deals,
    popsize,
    variants,
    workers,
    backend,
    scheduler,
    out,
    resume,
    dry_run,
    as_json,
    quiet,
    force,
):
    """Fit a policy's numeric parameters (CMA-ES) and validate the gain on fresh deals.

    The tuned policy plays the field in every seat in turn; all candidates of a generation play
    the same deals (common random numbers). The result is a ready -p string, and the tuned
    policy against the starting one on fresh deals (never used in tuning) with a 95% interval.
    `mcsim games` lists each policy's parameters; their ranges are in the game's ParamSpec.

    \b
    Examples:
        mcsim tune sacred-hill -p tactician --budget 200000 --out sh-tune
        mcsim tune thurn-and-taxis -p route --players 3 --param close_len --param w_open
        mcsim tune don-quixote -p heuristic --budget 500000 --out dq-tune
        mcsim tune el-grande -p heuristic:eps=0 --against heuristic --players 4 -n 50000
        mcsim tune don-quixote -p heuristic --out dq-tune --resume      # after Ctrl-C
        mcsim tune thurn-and-taxis -p route --dry-run     # boxes, budget plan, seeds
    """
    from mcsim.runner import to_json
    from mcsim.tune import format_plan, format_tune, tune

    if resume and out is None:
        raise click.UsageError("--resume needs --out DIR (the directory of the interrupted run)")
    if force and resume:
        raise click.UsageError("--force starts over and --resume continues: give one of them")
    if out is not None:  # checked before any game (also by --dry-run), as batch --out
        from mcsim.outputs import TUNE_FOLDER, check_run_folder

        check_run_folder(out, "--out", TUNE_FOLDER, resume, force)
    echo = None if quiet else (lambda line: click.echo(f"tune: {line}", err=True))
    res = tune(
        game,
        policy,
        against=list(against),
        players=players,
        budget=budget,
        seed=seed,
        params=list(params),
        objective=objective,
        variant=parse_variants(variants),
        options=game_options(),
        workers=workers,
        backend=backend,
        scheduler=scheduler,
        out_dir=out,
        resume=resume,
        deals=deals,
        popsize=popsize,
        echo=echo,
        dry_run=dry_run,
        force=force,
    )
    long_name = get_game(game).SPEC.long_name
    if dry_run:
        click.echo(to_json(res) if as_json else format_plan(res["settings"], long_name))
    else:
        click.echo(to_json(res) if as_json else format_tune(res, long_name))


@mcsim_cli.command("replay")
@game_argument
@click.argument("record_file", metavar="FILE", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--index",
    "-i",
    "index",
    type=WholeNumber(Whole(0)),
    default=None,
    help="Which record of a list (as `simulate --record K` writes), from 0.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--quiet", "-q", is_flag=True, help="No compile notice on stderr.")
@friendly_errors
def replay_cmd(game, record_file, index, as_json, quiet):
    """Validate a game record move by move and print the position or scores reached.

    An illegal move exits with status 1 and names its ply index, the move and the legal moves.
    A record cut short replays as unfinished (the scores reached so far).

    \b
    Examples:
        mcsim replay sacred-hill game.json --json
        mcsim replay sacred-hill records.json --index 2    # the third of a list of records
    """
    from mcsim.runner import compiling

    module = get_game(game)
    record = read_record(record_file, index)
    try:
        with compiling(module, quiet), record_file_errors(record_file):
            result = module.replay(record)
    except (TypeError, AttributeError, KeyError, IndexError) as e:
        # a record is user data: a field of the wrong type is a malformed record, not a crash
        raise errors.InvalidRecordError(
            f"{record_file}: malformed {game} record ({type(e).__name__}: {e})"
        ) from None
    from mcsim.runner import to_json

    click.echo(to_json(result.as_dict()) if as_json else module.format_replay(result))


@mcsim_cli.command("show")
@game_argument
@click.argument(
    "record_file",
    metavar="[RECORD.json]",
    required=False,
    type=click.Path(exists=True, dir_okay=False),
)
@click.option(
    "--index",
    "-i",
    "index",
    type=WholeNumber(Whole(0)),
    default=None,
    help="Which record of a list (as `simulate --record K` writes), from 0.",
)
@click.option(
    "--seed",
    "-s",
    type=WholeNumber(SEED),
    default=None,
    help="Play game --game-index of `simulate --seed S` instead of reading a record.",
)
@click.option(
    "--game-index",
    type=WholeNumber(GAME_INDEX),
    default=None,
    help="With --seed: the game to show.",
)
@click.option(
    "--policy",
    "-p",
    "policies",
    multiple=True,
    metavar="NAME[:k=v,...]",
    help="With --seed: policy per seat, as for simulate.",
)
@click.option(
    "--variant",
    "variants",
    multiple=True,
    metavar="NAME=VALUE",
    help="With --seed: a rule reading, as for simulate.",
)
@click.option("--players", type=WHOLE, default=None, help="With --seed: number of seats.")
@game_option_flag("With --seed: a game-specific option, as for simulate.")
@click.option(
    "--out",
    "-o",
    type=click.Path(dir_okay=False),
    required=True,
    callback=output_path("file"),
    help="The HTML file to write (self-contained, opens offline).",
)
@click.option("--force", is_flag=True, help="Overwrite an existing --out file.")
@click.option("--quiet", "-q", is_flag=True, help="No compile notice on stderr.")
@friendly_errors
def show_cmd(
    game, record_file, index, seed, game_index, policies, variants, players, out, force, quiet
):
    """Draw one game move by move as a self-contained HTML file (step with the arrow keys).

    Give a record (as `replay` reads it; --index picks one of a list), or --seed S and
    --game-index I to play game I of `simulate --seed S` with the same policies and variants.

    \b
    Examples:
        mcsim show sacred-hill game.json --out game.html
        mcsim show el-grande --seed 1 --game-index 7 -p heuristic --players 4 --out eg.html
    """
    from mcsim import show
    from mcsim.outputs import Outputs
    from mcsim.runner import call_killable, compiling

    check_output_paths(((out, "--out"),))
    if Path(out).suffix.lower() not in (".html", ".htm"):
        raise click.BadParameter("must end in .html", param_hint="--out")
    outs = Outputs(force=force)
    outs.file(out, "--out")  # checked before anything is played
    played = (
        seed,
        game_index,
        policies,
        variants,
        players,
        click.get_current_context().meta.get("game_options"),
    )
    if record_file is not None:
        if seed is not None or game_index is not None:
            raise click.UsageError("give a RECORD.json or --seed/--game-index, not both")
        if any(played[2:5]) or played[5]:
            raise click.UsageError(
                "-p/--variant/--players/--option go with --seed, not with a record"
            )
        record = read_record(record_file, index)
    else:
        if seed is None or game_index is None:
            raise click.UsageError("give a RECORD.json, or --seed S and --game-index I")
        if index is not None:
            raise click.UsageError("--index goes with a RECORD.json file")
        with compiling(get_game(game), quiet):
            record = call_killable(  # a long MCTS game: Ctrl-C stops it at once
                show.record_of_seed,
                game,
                seed,
                game_index,
                list(policies) or None,
                parse_variants(variants),
                players,
                game_options(),
            )
    with compiling(get_game(game), quiet), record_file_errors(record_file):
        html = show.show_html(game, record)
    with outs:
        outs.stage_file(out, lambda tmp: Path(tmp).write_text(html, encoding="utf-8"), "--out")
        outs.commit()
    click.echo(f"wrote {out}")


@mcsim_cli.command("perft")
@game_argument
@click.option(
    "--depth",
    "-d",
    type=WholeNumber(Whole(0, 12, "a whole number in 0..12")),
    required=True,
    help="Number of plies.",
)
@click.option("--variant", "variants", multiple=True, metavar="NAME=VALUE", help="A rule reading.")
@game_option_flag(
    "A game-specific option: the components counted on, e.g. tiles=FILE for Don Quixote "
    "(`mcsim games` lists each game's options)."
)
@click.option("--quiet", "-q", is_flag=True, help="No compile notice on stderr.")
@friendly_errors
def perft_cmd(game, depth, variants, quiet):
    """Count the move sequences of length D from the start (a move-generation check).

    \b
    Example:
        mcsim perft sacred-hill --depth 3      # 9632
    """
    from mcsim.runner import call_killable, compiling, resolve_config

    variant = parse_variants(variants)
    # the variant and option checks of every other command (gift_deck needs gifts=true, ...)
    module, cfg = resolve_config(game, None, None, variant, game_options())
    with compiling(module, quiet):
        count = call_killable(module.perft, depth, variant, cfg.options)  # deep counts: minutes
    click.echo(count)


@mcsim_cli.command("evaluate")
@game_argument
@click.option(
    "--policy",
    "-p",
    "policies",
    multiple=True,
    required=True,
    metavar="NAME[:k=v,...]",
    help="A policy to evaluate (repeat; the first is the reference of the differences).",
)
@click.option(
    "--games",
    "-n",
    type=WholeNumber(GAMES),
    default=10_000,
    show_default=True,
    help="Deals per policy (the same deals for every policy).",
)
@click.option(
    "--seed",
    "-s",
    type=WholeNumber(SEED),
    default=0,
    show_default=True,
    help="Root seed; deal i depends only on (seed, i).",
)
@click.option("--variant", "variants", multiple=True, metavar="NAME=VALUE", help="A rule reading.")
@click.option(
    "--players",
    type=WHOLE,
    default=None,
    help="Seats, all playing the evaluated policy (default: the game's minimum).",
)
@click.option(
    "--workers",
    "-w",
    type=WholeNumber(WORKERS),
    default=None,
    help="Worker processes (default: all cores). Results do not depend on it.",
)
@game_option_flag(
    "A game-specific option, e.g. tiles=FILE for Don Quixote (`mcsim games` lists each "
    "game's options)."
)
@click.option(
    "--tileset-ensemble",
    "ensemble",
    type=WHOLE,
    default=None,
    help="Also evaluate on K >= 1 random tile sets (rules §6.3) and report how robust "
    "the policy order is (games with tile sets: don-quixote).",
)
@click.option(
    "--ensemble-seed",
    type=WholeNumber(SEED),
    default=None,
    help="Seed of the random tile sets (default: --seed).",
)
@click.option(
    "--ensemble-out",
    type=click.Path(),  # a file is refused by output_path, as for every --out
    default=None,
    callback=output_path("dir"),
    help="Directory to write the random tile sets to (reusable with --option tiles=FILE).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or notices on stderr.")
@friendly_errors
def evaluate_cmd(
    game,
    policies,
    games,
    seed,
    variants,
    players,
    workers,
    ensemble,
    ensemble_seed,
    ensemble_out,
    as_json,
    quiet,
):
    """Compare policies on the same deals: mean with 95% CI, bands, paired differences.

    \b
    Examples:
        mcsim evaluate don-quixote -p random -p greedy -p heuristic --games 10000 --seed 1
        mcsim evaluate don-quixote -p heuristic -p rollout:k=8 -p oracle -n 200 --json
        mcsim evaluate don-quixote -p greedy -p heuristic -n 2000 --tileset-ensemble 10
    """
    from mcsim.evaluate import (
        check_ensemble,
        evaluate,
        evaluate_ensemble,
        format_ensemble,
        format_evaluation,
    )
    from mcsim.runner import to_json

    for flag, value in (("--ensemble-out", ensemble_out), ("--ensemble-seed", ensemble_seed)):
        if value is not None and ensemble is None:  # it would be accepted and do nothing
            raise click.UsageError(f"{flag} goes with --tileset-ensemble K")
    if ensemble is not None:  # a game without tile sets, K < 1: refused before any output
        check_ensemble(game, ensemble)
    if ensemble_out:
        from mcsim.outputs import Outputs

        Outputs().folder(ensemble_out, "--ensemble-out", keep=True)
    options = game_options()
    kw = dict(
        games=games,
        seed=seed,
        variant=parse_variants(variants),
        players=players,
        workers=workers,
        options=options,
        progress=not quiet,
    )
    long_name = get_game(game).SPEC.long_name
    if ensemble is not None:
        res = evaluate_ensemble(
            game, policies, ensemble, ensemble_seed=ensemble_seed, out_dir=ensemble_out, **kw
        )
        notices = res["base"].get("notices", [])
        text = format_ensemble(res, long_name)
    else:
        res = evaluate(game, policies, **kw)
        notices = res.get("notices", [])
        text = format_evaluation(res, long_name)
    print_notices(notices, quiet)
    click.echo(to_json(res) if as_json else text)


@mcsim_cli.command("compare")
@game_argument
@click.option(
    "--variant",
    "arms",
    multiple=True,
    required=True,
    metavar="NAME=VALUE[,NAME=VALUE]",
    help="One arm per --variant (repeat; the first is the reference of the differences).",
)
@click.option(
    "--games",
    "-n",
    type=WholeNumber(GAMES),
    default=10_000,
    show_default=True,
    help="Games per arm (the same deals in every arm).",
)
@click.option(
    "--seed",
    "-s",
    type=WholeNumber(SEED),
    default=0,
    show_default=True,
    help="Root seed; game i of every arm depends only on (seed, i).",
)
@click.option(
    "--policy",
    "-p",
    "policies",
    multiple=True,
    metavar="NAME[:k=v,...]",
    help="Policy per seat (one value = all seats; default random).",
)
@click.option("--players", type=WHOLE, default=None, help="Number of seats.")
@click.option(
    "--workers",
    "-w",
    type=WholeNumber(WORKERS),
    default=None,
    help="Worker processes (default: all cores). Results do not depend on it.",
)
@game_option_flag("A game-specific option, the same in every arm (`mcsim games` lists them).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar on stderr.")
@precision_options
@click.option(
    "--out",
    "-o",
    type=click.Path(),  # a file is refused by output_path, as for every --out
    default=None,
    callback=output_path("dir"),
    help="Folder for every arm's per-game Parquet dataset (written chunk by chunk) and "
    "compare.json; with --resume a long comparison survives an interruption.",
)
@click.option(
    "--resume", is_flag=True, help="Continue an interrupted comparison in --out DIR (same result)."
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace an earlier comparison in --out DIR, once the new one has finished.",
)
@friendly_errors
def compare_cmd(
    game, arms, games, seed, policies, players, workers, as_json, quiet, precision, max_games,
    out, resume, force,
):  # fmt: skip
    """Compare rule variants on the same deals: paired differences with 95% CIs.

    \b
    Example:
        mcsim compare carcassonne --variant gifts=false --variant gifts=true --games 20000
        mcsim compare sacred-hill --variant zone=knight12 --variant zone=chebyshev8 --precision 0.02
        mcsim compare carcassonne --players 4 -p mcts --variant start_balance=none \\
            --variant start_balance=tournament --precision 0.05 --out sb
    """
    from mcsim.compare_variants import compare_variants, format_comparison
    from mcsim.runner import to_json

    check_precision_flags(precision, max_games)
    from mcsim.outputs import COMPARE_FOLDER

    check_study_out(out, resume, force, COMPARE_FOLDER, "comparison")
    announce = None if quiet else (lambda line: click.echo(f"note: {line}", err=True))
    res = compare_variants(
        game,
        arms,
        games=games,
        seed=seed,
        policies=list(policies) or None,
        players=players,
        workers=workers,
        progress=not quiet,
        announce=announce,
        options=game_options(),
        precision=precision,
        max_games=max_games,
        echo=_precision_echo(quiet),
        out_dir=out,
        resume=resume,
        force=force,
    )
    click.echo(to_json(res) if as_json else format_comparison(res, get_game(game).SPEC.long_name))
    if precision is not None and not as_json:
        from mcsim.precision import precision_line

        click.echo(precision_line(res["precision"]))


@mcsim_cli.command("ladder")
@game_argument
@click.option(
    "--policy",
    "-p",
    "policies",
    multiple=True,
    metavar="NAME[:k=v,...]",
    help="A rung, weakest first (repeat). Default: random, the game's best heuristic, mcts at "
    "a quarter, one and four times its default iterations.",
)
@click.option(
    "--rungs",
    default=None,
    metavar="'A B ...'",
    help="The rungs as one space-separated list of policies, weakest first (instead of -p).",
)
@study_options(
    games_help="Games per run (every rung's self-play and every curve seating) without "
    "--precision.",
    seed_help="Root seed; game i of every run is the same deal (seed, i).",
    out_help="Folder for every run's per-game Parquet dataset, ladder.json and one PNG per "
    "statistic against the rung (resumable).",
    run="ladder",
)
@friendly_errors
def ladder_cmd(
    game,
    policies,
    rungs,
    games,
    seed,
    variants,
    players,
    workers,
    backend,
    scheduler,
    precision,
    max_games,
    out,
    resume,
    force,
    as_json,
    quiet,
):
    """Every headline statistic along a ladder of skill: self-play per rung, the skill curve
    (each rung against the one below) and, per statistic, whether it is stable between the
    top two rungs.

    \b
    Examples:
        mcsim ladder sacred-hill --precision 0.03 --out sh-ladder
        mcsim ladder sacred-hill -p mcts:iterations=150 -p mcts -p mcts:iterations=2400 -n 200
        mcsim ladder don-quixote --precision 1.0 --max-games 2000
        mcsim ladder thurn-and-taxis --players 4 --precision 0.03 --backend dask
    """
    from mcsim.ladder import format_ladder, ladder, to_json_dict, write_ladder_folder
    from mcsim.runner import to_json

    check_precision_flags(precision, max_games)
    if rungs is not None and policies:
        raise click.UsageError("give the rungs with -p or with --rungs, not both")
    rung_list = rungs.split() if rungs is not None else (list(policies) or None)
    if rungs is not None and not rung_list:
        raise click.BadParameter(
            "is empty; give at least two policies, e.g. --rungs 'random mcts'",
            param_hint="--rungs",
        )
    from mcsim.outputs import LADDER_FOLDER

    check_study_out(out, resume, force, LADDER_FOLDER, "ladder")
    if games <= 0 and precision is None:
        raise click.BadParameter(
            f"must be a positive whole number, not {games}", param_hint="--games"
        )
    lad = ladder(
        game,
        rung_list,
        games=games,
        precision=precision,
        max_games=max_games,
        seed=seed,
        players=players,
        variant=parse_variants(variants),
        options=game_options(),
        workers=workers,
        backend=backend,
        scheduler=scheduler,
        out_dir=out,
        resume=resume,
        force=force,
        progress=not quiet,
        echo=_precision_echo(quiet),
    )
    if out is not None:
        write_ladder_folder(lad, out)
    print_notices(lad["notices"], quiet)
    click.echo(to_json(to_json_dict(lad)) if as_json else format_ladder(lad))


@mcsim_cli.command("value")
@game_argument
@click.option(
    "--policy",
    "-p",
    "policies",
    multiple=True,
    metavar="NAME[:k=v,...]",
    help="The policy of every seat, restricted seat by seat (default: the game's best "
    "heuristic, the heuristic rung of `mcsim ladder`); no forbid= (value sets it).",
)
@click.option(
    "--options",
    "restrict_options",
    multiple=True,
    metavar="A,B+C",
    help="The options to value, separated by , or repeated; A+B is one row forbidding both "
    "(default: every option `mcsim games` lists for the game).",
)
@study_options(
    games_help="Deals without --precision: every lineup plays games 0..N-1 of the seed.",
    seed_help="Root seed; game i of every lineup is the same deal (seed, i).",
    out_help="Folder for every lineup's per-game Parquet dataset, value.json, value.parquet, "
    "value.csv, seats.parquet and the forest plot (resumable).",
    run="run",
)
@friendly_errors
def value_cmd(
    game,
    policies,
    restrict_options,
    games,
    seed,
    variants,
    players,
    workers,
    backend,
    scheduler,
    precision,
    max_games,
    out,
    resume,
    force,
    as_json,
    quiet,
):
    """What each option (card, official, gift...) is worth, by restricted play: each seat in
    turn may not choose it, on common deals, against unrestricted opponents; the value is the
    restricted seat's win share minus the equal share (Don Quixote: points), with a 95%
    interval.

    \b
    Examples:
        mcsim value sacred-hill -n 2000
        mcsim value el-grande --precision 0.03 --out eg-value
        mcsim value thurn-and-taxis -p mcts --options postmaster,administrator -n 500
        mcsim value carcassonne --variant gifts=true --precision 0.03 --backend dask
    """
    from mcsim.runner import to_json
    from mcsim.value import format_value, restricted_play

    check_precision_flags(precision, max_games)
    if len(policies) > 1:
        raise click.UsageError(
            "give one policy (-p): value plays it in every seat and restricts each seat in turn"
        )
    from mcsim.outputs import VALUE_FOLDER

    check_study_out(out, resume, force, VALUE_FOLDER, "run")
    res = restricted_play(
        game,
        list(restrict_options) or None,
        policies[0] if policies else None,
        games=games,
        seed=seed,
        players=players,
        variant=parse_variants(variants),
        game_options=game_options(),
        precision=precision,
        max_games=max_games,
        workers=workers,
        backend=backend,
        scheduler=scheduler,
        out_dir=out,
        resume=resume,
        force=force,
        progress=not quiet,
        echo=_precision_echo(quiet),
    )
    print_notices(res.meta["notices"], quiet)
    click.echo(to_json(res.to_json_dict()) if as_json else format_value(res))


@mcsim_cli.command("batch")
@click.argument("plan_file", metavar="PLAN.toml", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--out",
    "-o",
    type=click.Path(),  # a file is refused by output_path, as for every --out
    default=None,
    callback=output_path("dir"),
    help="Folder for results.csv, results.parquet, plan.json and experiments/*.json "
    "(created if missing).",
)
@click.option(
    "--workers",
    "-w",
    type=WholeNumber(WORKERS),
    default=None,
    help="Worker processes per cell (default: all cores). Results do not depend on it.",
)
@scale_options
@click.option("--dry-run", is_flag=True, help="Validate the plan and list its cells; play nothing.")
@click.option(
    "--resume",
    is_flag=True,
    help="Skip the cells an interrupted batch already finished in --out DIR.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object (tidy rows and every cell's summary).",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
@click.option(
    "--force",
    is_flag=True,
    help="Replace an earlier batch in --out DIR (once the new batch has finished; kept as it "
    "is if the new batch fails or is interrupted).",
)
@friendly_errors
def batch_cmd(plan_file, out, workers, backend, scheduler, dry_run, resume, as_json, quiet, force):
    """Run a sweep plan (games x players x policies x variants x game counts/seeds).

    The whole plan is validated before the first game; the results are one tidy table (one
    row per cell and seat, estimates with 95% intervals). Plan format: docs/usage.md, "Batch sweeps".

    \b
    Examples:
        mcsim batch examples/sacred_hill.toml --out sh-batch
        mcsim batch examples/thurn_and_taxis.toml --dry-run
        mcsim batch examples/sacred_hill.toml --out sh-batch --resume   # after Ctrl-C
    """
    from mcsim import batch

    plan = batch.load_plan(plan_file)
    if resume and out is None:  # a refused resume: exit 2, as in simulate and tune
        raise click.UsageError("--resume needs --out DIR (the folder of the interrupted batch)")
    if force and resume:
        raise click.UsageError("--force starts over and --resume continues: give one of them")
    if out is not None:  # checked before any game, also by --dry-run
        from mcsim.outputs import BATCH_FOLDER, check_run_folder

        check_run_folder(out, "--out", BATCH_FOLDER, resume, force)
    if dry_run:
        for c in plan.cells:
            click.echo(f"{c.id}: {c.describe()}")
        click.echo(f"{len(plan.cells)} cells, {plan.total_games:,} games")
        return
    echo = None if quiet else (lambda line: click.echo(line, err=True))
    # a cell summary played again on --resume is never hidden, also with --quiet
    note = lambda line: click.echo(f"note: {line}", err=True)  # noqa: E731
    res = batch.run_plan(
        plan,
        out=out,
        workers=workers,
        progress=not quiet,
        echo=echo,
        backend=backend,
        scheduler=scheduler,
        resume=resume,
        note=note,
        force=force,
    )
    click.echo(batch.batch_json(res) if as_json else batch.format_table(res.table))


@mcsim_cli.command("report")
@game_argument
@run_options
@scale_options
@click.option(
    "--out",
    "-o",
    type=click.Path(),  # a file is refused by output_path, as for every --out
    required=True,
    callback=output_path("dir"),
    help="Folder for report.html, report.md, the PNG figures and summary.json.",
)
@click.option(
    "--no-rotate",
    is_flag=True,
    help="With different policies per seat, do not also play the rotated seatings "
    "(the comparison then mixes policy and seat effect).",
)
@click.option("--force", is_flag=True, help="Replace an existing, non-empty --out folder.")
@click.option(
    "--ladder",
    "with_ladder",
    is_flag=True,
    help="Also play a skill ladder (see `mcsim ladder`) and add its section: rungs, skill "
    "curve, convergence verdicts and figures.",
)
@click.option(
    "--ladder-rungs",
    default=None,
    metavar="'A B ...'",
    help="With --ladder: the rungs, weakest first (default: the game's).",
)
@click.option(
    "--ladder-games",
    type=WholeNumber(GAMES),
    default=500,
    show_default=True,
    help="With --ladder: games per ladder run.",
)
@click.option(
    "--ladder-from",
    "ladder_from",
    type=click.Path(),
    default=None,
    metavar="DIR",
    help="Add the skill ladder of a finished `mcsim ladder GAME --out DIR` (or a published "
    "ladder.json's folder; same game, players and variant) instead of playing one.",
)
@click.option(
    "--value",
    "value_dir",
    type=click.Path(),
    default=None,
    metavar="DIR",
    help="Put the restricted-play table and forest plot of a finished `mcsim value --out DIR` "
    "run (same game, players and variant) first in the report.",
)
@friendly_errors
def report_cmd(
    game,
    games,
    seed,
    policies,
    variants,
    players,
    workers,
    chunk_size,
    as_json,
    quiet,
    backend,
    scheduler,
    out,
    no_rotate,
    force,
    with_ladder,
    ladder_rungs,
    ladder_games,
    ladder_from,
    value_dir,
):
    """Write a balance report: report.html (self-contained), report.md and PNG figures.

    \b
    Examples:
        mcsim report sacred-hill --games 100000 --seed 1 --out sh-report
        mcsim report sacred-hill -n 20000 -p tactician -p random --out sh-vs
        mcsim report thurn-and-taxis -n 20000 --players 4 -p route --out tt-report
        mcsim report sacred-hill -n 2000 -p mcts --ladder --ladder-games 200 --out sh-ladder
        mcsim ladder sacred-hill --precision 0.03 --out sh-lad     # then:
        mcsim report sacred-hill -n 20000 -p mcts --ladder-from sh-lad --out sh-report
        mcsim value sacred-hill -n 2000 --out sh-value     # then:
        mcsim report sacred-hill -n 20000 --value sh-value --out sh-report
    """
    from mcsim import report

    if ladder_from is not None and (
        with_ladder or ladder_rungs is not None or "ladder_games" in _given()
    ):
        raise click.UsageError(
            "--ladder-from reads a ladder played earlier: give it without --ladder, "
            "--ladder-rungs and --ladder-games"
        )
    if not with_ladder and (ladder_rungs is not None or "ladder_games" in _given()):
        raise click.UsageError("--ladder-rungs and --ladder-games go with --ladder")
    rungs = None
    if ladder_rungs is not None:
        rungs = ladder_rungs.split()
        if not rungs:
            raise click.BadParameter(
                "is empty; give at least two policies", param_hint="--ladder-rungs"
            )

    options = game_options()
    echo = None if quiet else (lambda line: click.echo(line, err=True))
    rep = report.build_report(
        game,
        out,
        games=games,
        seed=seed,
        policies=policies or None,
        variant=parse_variants(variants),
        players=players,
        workers=workers,
        chunk_size=chunk_size,
        options=options,
        rotate=not no_rotate,
        progress=not quiet,
        echo=echo,
        backend=backend,
        scheduler=scheduler,
        force=force,
        ladder=with_ladder,
        ladder_rungs=rungs,
        ladder_games=ladder_games,
        value=value_dir,
        ladder_from=ladder_from,
    )
    print_notices(rep.result.prepared.notices, quiet)
    if as_json:
        click.echo(report.report_json(rep))
    else:
        click.echo(format_summary(rep.result.summary, get_game(game)))
        click.echo(
            f"report: {Path(out) / 'report.html'} ({counted(rep.embedded, 'figure')}"
            + (f"; skipped: {', '.join(s for s, _ in rep.skipped)}" if rep.skipped else "")
            + ")"
        )


def main():
    """Console-script entry point."""
    _PROGRAM["running"] = True
    from mcsim.runner import as_program

    as_program()
    mcsim_cli(prog_name="mcsim")


if __name__ == "__main__":
    main()
