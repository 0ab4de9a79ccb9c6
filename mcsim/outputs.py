"""The outputs of one command: checked before any game is played, committed together at the
end, or none.

Every command that writes files declares its targets first (``Outputs.file`` /
``Outputs.folder``): each target's folder is probed by creating, writing and removing a small
file in it, an existing output is refused unless ``force`` (``--force``), and every error names
the user's path and flag, never a temporary file. The files are then written to temporary names
next to their targets (``Outputs.stage_file`` / ``Outputs.stage_folder``) and moved into place
together by ``commit()``; ``abort()`` (or leaving the ``with`` block by an exception) removes
every temporary file, so a failed run leaves nothing behind.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> with Outputs() as outs:
...     outs.file(d / "a.txt", "--out")
...     outs.stage_file(d / "a.txt", lambda tmp: pathlib.Path(tmp).write_text("hi"))
...     outs.commit()
>>> sorted(p.name for p in d.iterdir())
['a.txt']
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from mcsim.errors import OutputError, OutputWriteError

#: bytes written by the probe (a full disk fails here, not after the games)
PROBE_BYTES = 4096

_UMASK = os.umask(0)
os.umask(_UMASK)


def given_parent(path: str | os.PathLike) -> str:
    """The folder of ``path`` as the user wrote it (``nodir/deeper`` for
    ``nodir/deeper/x.parquet``, ``.`` for a bare name), as messages name it: never the
    absolute path the user did not type."""
    return os.path.dirname(os.fspath(path).rstrip(os.sep)) or "."


def probe_folder(folder: str | os.PathLike, flag: str, user_path: str | os.PathLike) -> None:
    """Create, write (``PROBE_BYTES``) and remove a file in ``folder``.

    Raises
    ------
    OutputError
        One line naming ``flag`` and ``user_path`` when the folder is missing, read-only or full.
    """
    folder = Path(folder) if str(folder) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=".mcsim-probe-", dir=folder)
    except OSError as e:
        raise OutputError(
            f"cannot write {flag} {user_path}: {e.strerror or e} (folder {folder})"
        ) from None
    try:
        try:
            os.write(fd, b"\0" * PROBE_BYTES)
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as e:
        raise OutputError(
            f"cannot write {flag} {user_path}: {e.strerror or e} (folder {folder})"
        ) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


class Outputs:
    """The output files and folders of one command (see the module docstring).

    Parameters
    ----------
    force : bool
        Replace existing outputs (``--force``); without it an existing output file, or a
        non-empty output folder, is refused before anything is played.
    """

    def __init__(self, force: bool = False):
        self.force = force
        self._staged: list[tuple[Path, Path, str]] = []  # (temporary, target, flag)

    # ------------------------------------------------------------ checks (before any game)
    def file(self, path: str | os.PathLike, flag: str) -> None:
        """Declare an output file: its folder must be writable; an existing file needs
        ``force``. Raises ``OutputError``."""
        p = Path(path)
        if p.is_dir():
            raise OutputError(f"{flag} {path} is a folder, not a file")
        if p.exists() and not self.force:
            raise OutputError(f"{flag} {path} exists; use --force to overwrite it")
        probe_folder(p.parent, flag, path)

    def folder(
        self, path: str | os.PathLike, flag: str, keep: bool = False, hint: str = ""
    ) -> None:
        """Declare an output folder: it (or its parent, when missing) must be writable; a
        non-empty folder needs ``force`` unless ``keep`` (a resumed run); ``hint`` is put
        before ``--force`` in that message (e.g. ``"--resume to continue, or "``). Raises
        ``OutputError``."""
        p = Path(path)
        if p.exists() and not p.is_dir():
            raise OutputError(f"{flag} {path} exists and is not a folder")
        if p.is_dir():
            if not keep and not self.force and any(p.iterdir()):
                raise OutputError(
                    f"{flag} {path} is not empty; use {hint}--force to replace its contents"
                )
            probe_folder(p, flag, path)
        else:
            parent = p.resolve().parent
            if parent.exists() and not parent.is_dir():
                raise OutputError(f"{flag} {path}: {p.parent} is a file, not a directory")
            if not parent.is_dir():
                raise OutputError(f"{flag} {path}: folder {given_parent(path)} does not exist")
            probe_folder(parent, flag, path)

    # ------------------------------------------------------------ writing
    def stage_file(
        self, path: str | os.PathLike, write: Callable[[str], object], flag: str = "output"
    ) -> None:
        """Call ``write(tmp)`` for a temporary file next to ``path``; ``commit`` moves it to
        ``path``. A failure raises ``OutputWriteError`` naming ``path``."""
        target = Path(path)
        folder = target.parent if str(target.parent) else Path(".")
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
            os.close(fd)
        except OSError as e:
            raise OutputWriteError(f"cannot write {flag} {path}: {e.strerror or e}") from None
        self._staged.append((Path(tmp), target, flag))
        try:
            write(tmp)
            os.chmod(tmp, 0o666 & ~_UMASK)
        except OSError as e:
            raise OutputWriteError(f"cannot write {flag} {path}: {e.strerror or e}") from None

    def stage_folder(self, path: str | os.PathLike, flag: str = "output") -> Path:
        """A new temporary folder next to ``path`` to write the folder's files into;
        ``commit`` puts it in place of ``path`` (replacing an existing folder)."""
        target = Path(path)
        try:
            tmp = Path(
                tempfile.mkdtemp(
                    prefix=f".{target.name}.", suffix=".tmp", dir=target.resolve().parent
                )
            )
            os.chmod(tmp, 0o777 & ~_UMASK)
        except OSError as e:
            raise OutputWriteError(f"cannot write {flag} {path}: {e.strerror or e}") from None
        self._staged.append((tmp, target, flag))
        return tmp

    def commit(self) -> None:
        """Move every staged output into place (renames in the targets' own folders)."""
        staged, self._staged = self._staged, []
        try:
            for k, (tmp, target, flag) in enumerate(staged):  # noqa: B007 (the except clause reads k, flag)
                if tmp.is_dir():
                    old = None
                    if target.exists():
                        old = Path(
                            tempfile.mkdtemp(
                                prefix=f".{target.name}.old.", dir=target.resolve().parent
                            )
                        )
                        os.rmdir(old)
                        os.replace(target, old)
                    os.replace(tmp, target)
                    if old is not None:
                        shutil.rmtree(old, ignore_errors=True)
                else:
                    os.replace(tmp, target)
        except OSError as e:
            self._staged = staged[k:]
            self.abort()
            raise OutputWriteError(f"cannot write {flag} {target}: {e.strerror or e}") from None

    def abort(self) -> None:
        """Remove every staged (not yet committed) temporary file or folder."""
        staged, self._staged = self._staged, []
        for tmp, _, _ in staged:
            if tmp.is_dir():
                shutil.rmtree(tmp, ignore_errors=True)
            elif tmp.exists():
                tmp.unlink()

    def __enter__(self) -> Outputs:
        return self

    def __exit__(self, *exc) -> None:
        self.abort()


def stage_games_table(
    outs: Outputs, df, path: str | os.PathLike, manifest: dict | None = None, flag: str = "--out"
) -> None:
    """Stage the per-game table (``.parquet`` or ``.csv``, by its suffix)
    and its ``<path>.manifest.json`` in ``outs``; nothing is in place before ``commit``."""
    import json

    from mcsim.runner import json_default

    path = Path(path)
    if path.suffix.lower() == ".parquet":
        outs.stage_file(path, lambda tmp: df.to_parquet(tmp, index=False), flag)
    else:
        outs.stage_file(path, lambda tmp: df.to_csv(tmp, index=False), flag)
    if manifest is not None:
        text = json.dumps(manifest, indent=2, default=json_default)
        outs.stage_file(
            Path(str(path) + ".manifest.json"), lambda tmp: Path(tmp).write_text(text + "\n"), flag
        )


def write_staged(stage: Path, name: str, data: str | bytes, target: str | os.PathLike, flag: str):
    """Write ``data`` (text as UTF-8) to ``stage/name``, a file of a staged folder that becomes
    ``target`` (``Outputs.stage_folder``). Raises ``OutputWriteError`` naming ``flag`` and the
    file's final path ``target/name`` (a full disk: ``cannot write --out DIR/report.html: No
    space left on device``), never the temporary folder."""
    try:
        if isinstance(data, str):
            (Path(stage) / name).write_text(data, encoding="utf-8")
        else:
            (Path(stage) / name).write_bytes(data)
    except OSError as e:
        raise OutputWriteError(
            f"cannot write {flag} {Path(target) / name}: {e.strerror or e}"
        ) from None


class RunFolder:
    """What a command's output folder holds: ``marker`` (a glob pattern, relative to the
    folder, of the file that says an earlier run is there), ``names`` (fnmatch patterns of
    every file or folder such a run writes), ``what`` (the run, for messages: "run", "tuning
    run", "batch", "report") and ``resumable`` (whether the command has ``--resume``). Hidden
    temporary names (``.*.tmp``, ``.mcsim-probe-*``) count as the run's own."""

    def __init__(self, marker: str, names: tuple[str, ...], what: str, resumable: bool = True):
        self.marker = marker
        self.names = names
        self.what = what
        self.resumable = resumable

    def holds_run(self, folder: Path) -> bool:
        """True when ``folder`` holds the marker of an earlier run."""
        return next(iter(Path(folder).glob(self.marker)), None) is not None

    def owns(self, name: str) -> bool:
        """True when ``name`` (a folder entry) is one a run of this kind writes."""
        import fnmatch

        if name.startswith(".") and (name.endswith(".tmp") or name.startswith(".mcsim-probe-")):
            return True
        return any(fnmatch.fnmatchcase(name, pat) for pat in self.names)


def check_run_folder(
    path: str | os.PathLike,
    flag: str,
    kind: RunFolder,
    resume: bool,
    force: bool,
    keyword: str = "out_dir",
) -> bool:
    """Check a command's output folder (``simulate``, ``tune``, ``batch``, ``ladder``,
    ``report --out DIR``) before anything is played.

    ``flag`` names the folder on the command line, ``keyword`` the Python keyword that gives
    it (``out_dir``): messages name whichever is in use (``mcsim.values.label``), as they name
    ``--resume`` / ``resume=True`` and ``--force`` / ``force=True``.

    Returns True when ``force`` is to replace an earlier run there: that run then stays as it
    is until the new one has finished (write the new one into ``RunReplacement(path).stage``
    and ``commit``), so a rejected, failed or interrupted command loses nothing.

    Raises
    ------
    BadValueError
        An empty ``path`` (it would be the current folder).
    OutputError
        One line naming the flag (or keyword) and ``path``: not a folder; ``resume`` without
        an earlier run there (a missing folder included); an earlier run without ``resume`` or
        ``force``; files that are not an earlier run's (never replaced, even with ``force``); a
        missing, read-only or full folder (the probe).
    """
    from mcsim.errors import BadValueError
    from mcsim.values import label, on_cli

    cli = on_cli()
    where = f"{flag} {path}" if cli else label(keyword, os.fspath(path))
    if not os.fspath(path).strip():
        raise BadValueError(
            f"{flag if cli else label(keyword)} is empty; give a folder name "
            "(the current folder is never an output folder)"
        )
    use_resume = "--resume" if cli else "resume=True"
    use_force = "--force" if cli else "force=True"
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise OutputError(f"{where} exists and is not a folder")
    if resume:
        if not p.is_dir():
            raise OutputError(f"{where}: cannot resume: the folder does not exist")
        if not kind.holds_run(p):
            raise OutputError(f"{where}: cannot resume: it holds no {kind.what} (no {kind.marker})")
        probe_folder(p, flag, path)
        return False
    if not p.is_dir():
        parent = p.resolve().parent
        if parent.exists() and not parent.is_dir():
            raise OutputError(f"{where}: {p.parent} is a file, not a directory")
        if not parent.is_dir():
            raise OutputError(f"{where}: folder {given_parent(path)} does not exist")
        probe_folder(parent, flag, path)
        return False
    entries = sorted(e.name for e in p.iterdir())
    if entries:
        others = [e for e in entries if not kind.owns(e)]
        if not kind.holds_run(p) or others:
            raise OutputError(
                f"{where} is not empty and holds "
                + (
                    f"{others[0]!r}, not only an earlier {kind.what}"
                    if others
                    else f"no {kind.what}"
                )
                + "; choose another folder"
            )
        if not force:
            raise OutputError(
                f"{where} holds an earlier {kind.what}; use "
                + (f"{use_resume} to continue it or " if kind.resumable else "")
                + f"{use_force} to replace it"
            )
    probe_folder(p, flag, path)
    return bool(entries)


def open_study_folder(
    out_dir: str | os.PathLike | None, kind: RunFolder, resume: bool, force: bool
) -> tuple[Path | None, RunReplacement | None]:
    """The output folder of a study command (``ladder``, ``value``, ``compare``) before any
    game: ``check_run_folder``, then the folder to write into, created (with ``force`` over an
    earlier run: the stage of a ``RunReplacement``, returned too, to ``commit`` once the study
    is whole and ``abort`` in a ``finally``). ``(None, None)`` without ``out_dir``.

    Raises ``ConfigError`` (``resume`` and ``force`` together) and what ``check_run_folder``
    raises."""
    if out_dir is None:
        return None, None
    from mcsim.errors import ConfigError
    from mcsim.values import on_cli

    if force and resume:
        raise ConfigError(
            "--force starts over and --resume continues: give one of them"
            if on_cli()
            else "force=True starts over and resume=True continues: give one of them"
        )
    folder, replacing = Path(out_dir), None
    if check_run_folder(out_dir, "--out", kind, resume, force) and force:
        replacing = RunReplacement(folder, kind)
        folder = replacing.stage
    folder.mkdir(exist_ok=True)
    return folder, replacing


class RunReplacement:
    """``--force`` over an earlier run in the folder ``path`` (``check_run_folder`` returned
    True): the new run is written into ``stage``, a hidden folder inside ``path`` (the same
    disk, also when ``path`` is a link or the current folder; readers of the dataset skip
    hidden names), while the earlier run stays in place, readable and resumable. ``commit``
    then moves the earlier run's entries aside and the new ones in (renames in ``path``) and
    removes the earlier ones (and what a killed ``--force`` run left there); ``abort`` removes
    the new ones. Raises ``OutputWriteError`` naming ``flag`` and ``path``."""

    def __init__(self, path: str | os.PathLike, kind: RunFolder, flag: str = "--out"):
        self.path = Path(path)
        self.kind = kind
        self.flag = flag
        try:
            self.stage: Path | None = Path(
                tempfile.mkdtemp(prefix=".mcsim-new-", suffix=".tmp", dir=self.path)
            )
            os.chmod(self.stage, 0o777 & ~_UMASK)
        except OSError as e:
            raise OutputWriteError(f"cannot write {flag} {path}: {e.strerror or e}") from None

    def commit(self) -> None:
        """Put the new run in place of the earlier one."""
        if self.stage is None:
            return
        try:
            old = Path(tempfile.mkdtemp(prefix=".mcsim-old-", suffix=".tmp", dir=self.path))
            for e in sorted(self.path.iterdir()):
                if not e.name.startswith(".") and self.kind.owns(e.name):
                    os.replace(e, old / e.name)
            for e in sorted(self.stage.iterdir()):
                os.replace(e, self.path / e.name)
        except OSError as e:
            raise OutputWriteError(
                f"cannot write {self.flag} {self.path}: {e.strerror or e} (the earlier "
                f"{self.kind.what}'s files are in {old}, the new one's in {self.stage})"
            ) from None
        os.rmdir(self.stage)
        self.stage = None
        for left in (old, *self.path.glob(".mcsim-new-*.tmp"), *self.path.glob(".mcsim-old-*.tmp")):
            shutil.rmtree(left, ignore_errors=True)  # (and those of a killed --force run)

    def abort(self) -> None:
        """Remove the new run's files (the earlier run is untouched)."""
        if self.stage is not None:
            shutil.rmtree(self.stage, ignore_errors=True)
            self.stage = None

    def in_target_names(self, e: OutputWriteError) -> OutputWriteError:
        """``e`` with the staging folder's path in its message replaced by ``path`` (a write
        that failed there names the user's folder)."""
        if self.stage is None:
            return e
        return OutputWriteError(str(e).replace(str(self.stage), str(self.path)))


#: ``simulate --out DIR``: the Parquet dataset of ``mcsim.runner``
SIMULATE_FOLDER = RunFolder(
    "_manifest.json",
    ("part-*.parquet", "_aggregates", "_manifest.json", "_summary.json", "_calibration.json"),
    "run",
)
#: ``tune --out DIR`` (``mcsim.tune``)
TUNE_FOLDER = RunFolder(
    "tune.json", ("tune.json", "evaluations.csv", "objective.png", "state.json"), "tuning run"
)
#: ``batch --out DIR`` (``mcsim.batch``)
BATCH_FOLDER = RunFolder(
    "plan.json", ("plan.json", "results.csv", "results.parquet", "experiments"), "batch"
)
#: ``report --out DIR`` (``mcsim.report``: ``<slug>.png`` figures, ``show_*.html`` example games)
REPORT_FOLDER = RunFolder(
    "report.md",
    ("report.md", "report.html", "summary.json", "*.png", "show_*_game*.html"),
    "report",
    resumable=False,
)
#: ``ladder --out DIR`` (``mcsim.ladder``): one ``simulate`` dataset per run, ``ladder.json``
#: and the PNG figures at the end; an interrupted ladder is known by its first rung's manifest
LADDER_FOLDER = RunFolder(
    "rung-0-*/_manifest.json",
    ("rung-*", "curve-*", "ladder.json", "*.png"),
    "ladder",
)
#: ``compare --out DIR`` (``mcsim.compare_variants``): one ``simulate`` dataset per arm
#: (``arm-<i>-<variant>``), then ``compare.json``; an interrupted comparison is known by its
#: first arm's manifest
COMPARE_FOLDER = RunFolder("arm-0-*/_manifest.json", ("arm-*", "compare.json"), "comparison")
#: ``value --out DIR`` (``mcsim.value``): one ``simulate`` dataset per lineup (``option-*``,
#: ``baseline``), then ``value.json``, the value tables and the figure at the end; an
#: interrupted run is known by its first option's first lineup's manifest
VALUE_FOLDER = RunFolder(
    "option-0-*-seat0/_manifest.json",
    ("option-*", "baseline", "value.json", "value.parquet", "value.csv", "seats.parquet", "*.png"),
    "restricted-play run",
)
