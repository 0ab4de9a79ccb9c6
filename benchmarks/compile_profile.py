"""Where a cold start's compile time goes: per jitted function and signature.

Runs one ``mcsim`` call in this process with an empty ``NUMBA_CACHE_DIR`` and listens to
Numba's ``numba:compile`` events (``numba.core.event``). A compile of a function includes
the compiles of the callees it meets while typing, so both figures are printed: ``total``
(inclusive) and ``self`` (total minus the nested compiles), in CPU seconds of this process. ``sigs`` counts the signatures
each function was compiled for in the run: more than one is a duplicate specialisation
(array layouts, int widths, literal values) unless the callers really differ.

Usage::

    python benchmarks/compile_profile.py simulate sacred-hill --games 10
    python benchmarks/compile_profile.py simulate el-grande -p heuristic --top 25
    python benchmarks/compile_profile.py replay don-quixote rec.json

(the arguments after the script are ``mcsim``'s; ``--top N`` must come last).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections import defaultdict


def main() -> None:
    argv = sys.argv[1:]
    top = 30
    if len(argv) >= 2 and argv[-2] == "--top":
        top = int(argv[-1])
        argv = argv[:-2]
    cache = tempfile.mkdtemp(prefix="mcsim-prof-")
    os.environ["NUMBA_CACHE_DIR"] = cache
    from numba.core import event

    stack: list[list] = []  # [key, start, child seconds]
    total: dict = defaultdict(float)
    own: dict = defaultdict(float)
    sigs: dict = defaultdict(set)
    count: dict = defaultdict(int)

    class Listener(event.Listener):
        def on_start(self, ev):
            d = ev.data["dispatcher"]
            name = f"{d.py_func.__module__}.{d.py_func.__qualname__}"
            stack.append([name, time.process_time(), 0.0, tuple(ev.data["args"])])

        def on_end(self, ev):
            name, t0, child, args = stack.pop()
            dt = time.process_time() - t0
            total[name] += dt
            own[name] += dt - child
            sigs[name].add(args)
            count[name] += 1
            if stack:
                stack[-1][2] += dt

    event.register("numba:compile", Listener())
    import cli

    t0 = time.process_time()
    try:
        cli.mcsim_cli.main(argv, prog_name="mcsim", standalone_mode=False)
    finally:
        wall = time.process_time() - t0
        print(f"\nCPU {wall:.1f} s (import of cli excluded); compile self-time by function:")
        print(f"{'self s':>7} {'total s':>8} {'sigs':>4} {'compiles':>8}  function")
        for name in sorted(own, key=own.get, reverse=True)[:top]:
            print(
                f"{own[name]:7.2f} {total[name]:8.2f} {len(sigs[name]):4d} {count[name]:8d}  {name}"
            )
        dup = {k: v for k, v in sigs.items() if len(v) > 1 and not k.startswith("numba.")}
        if dup:
            print("\nfunctions compiled for more than one signature (the arguments that differ):")
            for k, v in sorted(dup.items()):
                v = sorted(v, key=str)
                # signatures of one name may differ in length (the search's per-step lambdas
                # have one name for steps of different arity): compare up to the longest
                width = max(len(a) for a in v)
                diff = [
                    i
                    for i in range(width)
                    if len({str(a[i]) if i < len(a) else "-" for a in v}) > 1
                ]
                print(f"  {k}: argument(s) {diff}")
                for a in v:
                    print(
                        "      " + ", ".join((str(a[i]) if i < len(a) else "-")[:60] for i in diff)
                    )
        print(f"sum of self-times {sum(own.values()):.1f} s")


if __name__ == "__main__":
    main()
