"""Benchmark suites: ``lpbn bench`` runs methods over named instance suites.

Each (instance, method) runs in its own process with a wall-clock and an address-space
limit (:mod:`lpbn.bench.worker`, :mod:`lpbn.bench.procs`), so a crash or a runaway run is a
row, not the end of the suite.  Every answer is re-scored and checked against the known
optimum (:mod:`lpbn.bench.checks`); results go to ``results/<suite>/<timestamp>/`` as
``results.csv``, ``summary.md`` and plots (:mod:`lpbn.bench.report`, :mod:`lpbn.bench.plots`).

>>> from lpbn.bench import load_suite, run_suite, BenchConfig, write_outputs
>>> run = run_suite(load_suite("smoke"), BenchConfig(methods=["dp"]))   # doctest: +SKIP
>>> write_outputs(run, "results"); run.wrong                            # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from typing import Any

# Loaded on first use (PEP 562): a worker process (``python -m lpbn.bench.worker``) imports
# this package first, and its whole-process time is what the tables report as users' time.
_EXPORTS = {"write_outputs": "report", "BenchConfig": "runner", "BenchRun": "runner",
            "run_suite": "runner", "Entry": "suite", "Suite": "suite", "SuiteError": "suite",
            "list_suites": "suite", "load_suite": "suite"}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'lpbn.bench' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value
    return value
