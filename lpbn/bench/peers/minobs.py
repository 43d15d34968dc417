"""MINOBS (Lee & van Beek 2017, memetic ordering-based search over a score cache) as a bench
peer: the strongest published search over a *fixed* cache, to tell the search from the cache.

``python -m lpbn.bench.peers.minobs INPUT --seconds T`` with INPUT a score cache (GOBNILP jkl,
BLIP jkl, URLearning pss) runs MINOBS on it for ``T`` seconds.  With INPUT a data file it first
runs :func:`lpbn.learn` on the data for ``--learn-seconds`` (default ``T``) and gives MINOBS the
cache that run solved (the families lpbn's search on the data found), so the two networks come
from the same cache and the same time::

    lpbn bench scale --methods none \\
        --external "minobs=python -m lpbn.bench.peers.minobs {data} --seconds 52"

MINOBS reads a jkl with integer variable names and no comments; this module writes one, runs
``search JKL SECONDS SEED PROGRESSFILE`` (the binary built per ``../shared/anchors/PEERS.md``:
``--binary`` or ``$LPBN_MINOBS``), reads the parents it prints and scores that DAG on the cache
in lpbn's convention (``BN score is X``, ``lpbn bench``'s default ``--external-regex``); lpbn
learn's own score is printed beside it.  MINOBS checks its limit between generations only (the
initial population is not counted), so its wall time can exceed ``T``; the seconds it ran are
printed.  Exit 2 when the binary is missing or its answer is not a DAG of the cache.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

from . import executable
import time

_ORDER_LINE = re.compile(r"^Ordering\[\d+\]\s*=\s*(\d+)\s+Score:.*Parents:\s*\{([^}]*)\}")


def write_integer_jkl(cache, path: str) -> None:
    """``cache`` as a jkl MINOBS reads: variable names 0..n-1, no comment lines."""
    with open(path, "w", encoding="ascii") as f:
        f.write(f"{cache.n}\n")
        for i in range(cache.n):
            rng = cache.family_range(i)
            f.write(f"{i} {len(rng)}\n")
            for j in rng:
                ps = cache.parents(j)
                f.write(f"{float(cache.scores[j])!r} {len(ps)}{''.join(f' {p}' for p in ps)}\n")


def read_parents(stdout: str, n: int) -> list[tuple[int, ...]] | None:
    """Each variable's parents from MINOBS's ``Ordering[k] = var ... Parents: { ... }`` lines."""
    parents: list[tuple[int, ...] | None] = [None] * n
    for line in stdout.splitlines():
        m = _ORDER_LINE.match(line.strip())
        if m:
            parents[int(m.group(1))] = tuple(sorted(int(t) for t in m.group(2).split()))
    return None if any(p is None for p in parents) else parents      # type: ignore[return-value]


def _cache_of(path: str, learn_seconds: float | None):
    """The cache to search: read as is, or the one :func:`lpbn.learn` solved on the data."""
    from lpbn.formats import read_scores
    if path.lower().endswith((".jkl", ".jkl.gz", ".pss", ".pss.gz")):
        return read_scores(path), None
    import lpbn
    res = lpbn.learn(path, time_limit=learn_seconds, progress=False)
    return res.cache, res.score


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m lpbn.bench.peers.minobs")
    p.add_argument("input", help="score cache (jkl, pss) or data file (then lpbn learn makes the cache)")
    p.add_argument("--seconds", type=float, default=60.0, help="MINOBS's time limit (default 60)")
    p.add_argument("--learn-seconds", type=float, default=None, help="lpbn learn's limit on data (default --seconds)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--binary", default=os.environ.get("LPBN_MINOBS", "search"),
                   help="MINOBS's search executable (default $LPBN_MINOBS, else 'search' on PATH)")
    args = p.parse_args(argv)
    binary = executable(args.binary, "minobs", "build MINOBS")
    if binary is None:
        return 2
    from lpbn.result import DAG
    cache, learned = _cache_of(args.input, args.seconds if args.learn_seconds is None else args.learn_seconds)
    with tempfile.TemporaryDirectory(prefix="lpbn-minobs-") as tmp:
        jkl = os.path.join(tmp, "cache.jkl")
        write_integer_jkl(cache, jkl)
        t0 = time.perf_counter()
        proc = subprocess.run([binary, jkl, str(args.seconds), str(args.seed), os.path.join(tmp, "progress.txt")],
                              capture_output=True, text=True)
        seconds = time.perf_counter() - t0
    parents = read_parents(proc.stdout, cache.n) if proc.returncode == 0 else None
    if parents is None:
        print(f"minobs peer: MINOBS exit {proc.returncode} without a full network", file=sys.stderr)
        return 2
    try:
        if DAG(cache.names, parents).topological_order() is None:
            raise ValueError("it has a directed cycle")
        score = cache.dag_score(parents)
    except ValueError as exc:
        print(f"minobs peer: MINOBS's network is not a DAG of the cache ({exc})", file=sys.stderr)
        return 2
    if learned is not None:
        print(f"lpbn learn score {learned:.10f} (the cache: {cache.m} sets)")
    print(f"MINOBS ran {seconds:.2f} s on {cache.n} variables, {cache.m} sets")
    print(f"BN score is {score:.10f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
