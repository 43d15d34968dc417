"""How well each method keeps ``--time-limit``, on a cold and on a warm numba cache.

``python -m lpbn.bench.limits [--limit 5] [--methods dual,highs,...] [FILE ...] -o OUT.json``
runs ``lpbn solve FILE --method M --time-limit L`` as a whole process, first with an empty
``NUMBA_CACHE_DIR`` (a fresh install), then again once the background compilation of
:mod:`lpbn.warmup` has finished (warm), and records the wall time of the process, the
method's own clock and the status.  The overshoot is wall time minus the limit: what a user
timing the command sees (interpreter start-up and imports included).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ..bundled import instances_dir

METHODS = ("dual", "highs", "bfbnb", "pulp-cbc", "asobs")
FILES = ("soybean.BIC.p3.jkl", "wdbc.BIC.p3.jkl", "steel.BIC.p3.jkl")
#: The children start in the folder of the lpbn this process imported, so ``-m lpbn`` runs it
#: (not a clone's lpbn in the caller's directory).
_HOME = str(Path(__file__).resolve().parent.parent.parent)


def _run(path: Path, method: str, limit: float, cache_dir: Path) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir))
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "lpbn", "solve", str(path), "--method", method,
                          "--time-limit", str(limit), "--format", "json", "--quiet"],
                         env=env, capture_output=True, text=True, timeout=limit + 600,
                         cwd=_HOME)
    wall = time.perf_counter() - t0
    row = {"wall": round(wall, 2), "overshoot": round(wall - limit, 2), "exit": out.returncode}
    try:
        res = json.loads(out.stdout)
        row.update(status=res["status"], solve_seconds=round(res["seconds"], 2))
    except (ValueError, KeyError):
        row.update(status="error", error=out.stderr.strip()[-200:])
    return row


def _wait_warm(cache_dir: Path, method: str, timeout: float = 600.0) -> None:
    """Until the background warm-up child has written its marker."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and not any(cache_dir.glob(f"lpbn-warm-{method}-*[!k]")):
        time.sleep(0.5)
    time.sleep(1.0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lpbn.bench.limits", description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", help="score files (default: soybean, wdbc, steel from instances/)")
    ap.add_argument("--limit", type=float, default=5.0)
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("-o", "--output")
    args = ap.parse_args(argv)
    root = instances_dir() / "anchors" / "gobnilp-bic3"
    files = [Path(f).resolve() for f in args.files] or [root / f for f in FILES]
    rows = []
    for f in files:
        for m in args.methods.split(","):
            with tempfile.TemporaryDirectory(prefix="lpbn-limits-") as tmp:
                cold = _run(f, m, args.limit, Path(tmp))
                _wait_warm(Path(tmp), m)
                warm = _run(f, m, args.limit, Path(tmp))
            rows.append({"file": f.name, "method": m, "limit": args.limit, "cold": cold, "warm": warm})
            print(f"{f.name:22s} {m:9s} cold {cold['wall']:6.2f} s ({cold['status']}, method clock "
                  f"{cold.get('solve_seconds')})  warm {warm['wall']:6.2f} s ({warm['status']}, "
                  f"{warm.get('solve_seconds')})", flush=True)
    if args.output:
        from ..atomic import atomic_write
        with atomic_write(args.output) as fh:
            json.dump({"command": "python -m lpbn.bench.limits " + " ".join(argv or sys.argv[1:]),
                       "rows": rows}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
