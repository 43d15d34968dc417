"""``lpbn warmup [METHOD ...]``: compile the methods' numba kernels once, ahead of time."""

from __future__ import annotations

import sys
import time

HELP = "compile the solvers' numba kernels once (a fresh install's first solve then starts at once)"
DESCRIPTION = (HELP + ". Without it the first solve of each method compiles for 5-30 s; a timed "
               "solve on a cold cache compiles in a child process and, if the limit comes first, "
               "returns the best quick answer with status time_limit (see lpbn.warmup).")


def add_arguments(p) -> None:
    from ..warmup import METHODS
    p.add_argument("methods", nargs="*", metavar="METHOD", help=f"methods to compile (default: all of "
                   f"{', '.join(METHODS)})")


def run(args) -> int:
    from ..errors import InputError
    from ..warmup import METHODS, compile_method, is_warm
    methods = args.methods or list(METHODS)
    bad = [m for m in methods if m not in METHODS]
    if bad:
        raise InputError(f"unknown method(s) {', '.join(bad)}; choose from {', '.join(METHODS)}")
    for m in methods:
        t0 = time.perf_counter()
        state = "already compiled" if is_warm(m) else None
        if state is None:
            compile_method(m)
            state = f"compiled in {time.perf_counter() - t0:.1f} s"
        print(f"{m:9s} {state}", file=sys.stderr)
    return 0
