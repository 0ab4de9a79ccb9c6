"""The compiled-code cache is keyed by every kernel source (kernels/__init__.py): a change in any
kernel file, a called one included, starts a fresh cache, so no stale compiled search or helper
runs (Numba checks only the cached function's own file)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROBE = "import kernels, numba; print(kernels.kernel_sources_hash()); print(numba.config.CACHE_DIR)"


def _probe(tmp_path, pythonpath, **env):
    e = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    e.update(PYTHONPATH=str(pythonpath), XDG_CACHE_HOME=str(tmp_path / "xdg"), **env)
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        env=e,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.split()


def test_cache_folder_named_by_the_kernel_sources(tmp_path):
    digest, cache = _probe(tmp_path, ROOT)
    assert len(digest) == 16
    assert cache == str(tmp_path / "xdg" / "mcsim" / f"numba-{digest}")
    assert Path(cache).is_dir()


def test_any_kernel_edit_changes_the_cache_folder(tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(
        ROOT / "kernels", tree / "kernels", ignore=shutil.ignore_patterns("__pycache__")
    )
    before, _ = _probe(tmp_path, tree)
    rng = tree / "kernels" / "rng.py"  # a file every game calls into
    rng.write_text(rng.read_text() + "\n# edited\n")
    after, cache = _probe(tmp_path, tree)
    assert after != before and cache.endswith(f"numba-{after}")


def test_an_edit_inside_a_game_package_changes_the_cache_folder(tmp_path):
    """Game kernels live in packages (``kernels/<game>/``): the hash must cover files below
    ``kernels/`` too, or an edit there would reuse stale compiled code."""
    tree = tmp_path / "tree"
    shutil.copytree(
        ROOT / "kernels", tree / "kernels", ignore=shutil.ignore_patterns("__pycache__")
    )
    package = tree / "kernels" / "newgame"
    package.mkdir()
    (package / "__init__.py").write_text("")
    rules = package / "rules.py"
    rules.write_text("X = 1\n")
    before, _ = _probe(tmp_path, tree)
    rules.write_text("X = 2\n")
    after, cache = _probe(tmp_path, tree)
    assert after != before and cache.endswith(f"numba-{after}")


def test_a_users_numba_cache_dir_is_kept(tmp_path):
    _, cache = _probe(tmp_path, ROOT, NUMBA_CACHE_DIR=str(tmp_path / "mine"))
    assert cache == str(tmp_path / "mine")
