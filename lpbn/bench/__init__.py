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

from .report import write_outputs
from .runner import BenchConfig, BenchRun, run_suite
from .suite import Entry, Suite, SuiteError, list_suites, load_suite

__all__ = ["BenchConfig", "BenchRun", "Entry", "Suite", "SuiteError", "list_suites",
           "load_suite", "run_suite", "write_outputs"]
