"""``lpbn warmup [METHOD ...]``: compile the methods' numba kernels once, ahead of time."""

from __future__ import annotations

import sys
import time

HELP = ("compile the solvers' and the scorer's numba kernels once (a fresh install's first solve "
        "or score then starts at once)")
DESCRIPTION = (HELP + ". Without it the first solve of each method compiles for 5-30 s, and the first "
               "scoring of data for up to 45 s; a timed solve on a cold cache compiles in a child "
               "process and, if the limit comes first, returns the best quick answer with status "
               "time_limit (see lpbn.warmup).")


def add_arguments(p) -> None:
    from ..warmup import METHODS
    p.add_argument("methods", nargs="*", metavar="METHOD", help=f"methods to compile, 'score' for the "
                   f"scoring of data (default: all of {', '.join(METHODS)})")
    p.add_argument("--jobs", type=int, metavar="J",
                   help="compile in J processes at once (default: every core; 1: in this process, "
                        "one method after another)")


def run(args) -> int:
    from ..errors import InputError
    from ..workers import cores
    from ..warmup import METHODS, compile_method, is_warm, warm_all
    methods = args.methods or list(METHODS)
    bad = [m for m in methods if m not in METHODS]
    if bad:
        raise InputError(f"unknown method(s) {', '.join(bad)}; choose from {', '.join(METHODS)}")
    if args.jobs is not None and args.jobs < 1:
        raise InputError(f"--jobs must be at least 1, got {args.jobs}")
    jobs = args.jobs or cores()
    if jobs > 1:
        for m in methods:
            if is_warm(m):
                print(f"{m:9s} already compiled", file=sys.stderr)
        if any(not is_warm(m) for m in methods):
            print(f"compiling in {jobs} processes (a one-time step, about a minute on two cores)...",
                  file=sys.stderr, flush=True)
        failed = warm_all(methods, jobs, lambda unit, state: print(f"{unit:9s} {state}", file=sys.stderr,
                                                                    flush=True))
        return 1 if failed else 0
    for m in methods:
        t0 = time.perf_counter()
        state = "already compiled" if is_warm(m) else None
        if state is None:
            compile_method(m)
            state = f"compiled in {time.perf_counter() - t0:.1f} s"
        print(f"{m:9s} {state}", file=sys.stderr)
    return 0
