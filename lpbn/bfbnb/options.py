"""The options of ``method="bfbnb"`` (:func:`lpbn.bfbnb.search.solve_bfbnb`), declared once.

Each field is one option with its default, its doc and its rule (:func:`lpbn.options.opt`),
listed by :func:`lpbn.show_options` and ``lpbn solve --method bfbnb --help-options`` and
checked by :meth:`~lpbn.options.MethodOptions.build` before the search starts (issue 55).
The search is the frontier BFBnB of Malone, Yuan, Hansen & Bridges (UAI 2011) with the static
pattern databases of Yuan & Malone (JAIR 2013).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import os

from ..options import ANY, MEMORY, NONNEG, SEED, THREADS, MethodOptions, Rule, between, choices, opt

GIB = 1 << 30
DEFAULT_MEMORY_LIMIT = 4 * GIB
PATH = Rule(lambda v: isinstance(v, (str, os.PathLike)), "a directory path")


@dataclass(frozen=True)
class BfbnbOptions(MethodOptions):
    """Options of the external-memory BFBnB (``lpbn.solve(cache, method="bfbnb", **options)``)."""

    memory_limit: int | str = opt(DEFAULT_MEMORY_LIMIT, (
        "Memory of the whole process in bytes or a size such as '4G' (default 4 GiB): the search's "
        "own RAM (layers held in memory, stream and output buffers) gets the limit minus the "
        "process's resident size when the layers start (Python, numba, the cache, the heuristic's "
        "pattern databases; stats['memory_baseline']), at least MIN_SEARCH_MEMORY (or the limit "
        "itself when smaller: tiny limits force every layer to disk); beyond it layers spill to "
        "tmp_dir.  A limit below the baseline still gives the search MIN_SEARCH_MEMORY."), MEMORY)
    tmp_dir: str | None = opt(None, (
        "Where temporary files go: a private subdirectory lpbn-bfbnb-*, removed when the search "
        "ends, however it ends (SIGINT and SIGTERM only stop it); one left by a killed process "
        "(SIGKILL) is removed by the next run in the same tmp_dir (lpbn.bfbnb.external.reap_stale)."),
        PATH)
    initial_dag: Any = opt(None, (
        "A heuristic solution (a DAG or the parents of each variable), e.g. the dual solver's "
        "decoded DAG, used as incumbent if better than OBS's."), ANY)
    upper_bound_dag: Any = opt(None, "Alias of initial_dag (the paper's name).", ANY)
    obs_time: float | None = opt(None, (
        "Seconds of ordering-based search for the incumbent.  Default: up to "
        "min(10, 0.1 + 0.005 n²), stopping after 500 + 50n restarts without improvement, of which "
        "OBS_FIRST_SHARE run before the search and the rest between its layers, as its expanded "
        "nodes grow; a given obs_time runs before the search only."), NONNEG)
    seed: int = opt(0, "Seed of the ordering-based search.", SEED)
    dual_time: float = opt(0.0, (
        "If > 0 and method 'dual' is available, run it that long first and use its DAG and bound "
        "(through control.borrow: a whole lpbn.solve of it when called by lpbn.solve)."), NONNEG)
    heuristic: str = opt("static", (
        "'static' (static pattern databases over groups of at most group_size variables, Yuan & "
        "Malone 2012, the tightest h(∅) of a few partitions) or 'simple' (Malone et al. 2011, "
        "eq. 3)."), choices("static", "simple"))
    group_size: int | None = opt(None, (
        "Largest pattern-database group.  Default: at most SMALL_GROUP (16) variables up to "
        "SMALL_GROUP_MAX_N (30) variables, else LARGE_GROUP (20)."), between(1, 26))
    threads: int | None = opt(None, (
        "Threads expanding a layer held in RAM (None or 0: every core this process may use; 1: "
        "serial).  The layer is split into blocks by its keys' top bits (lpbn.bfbnb.blocks), so "
        "every thread count writes the same layers and returns the same DAG, bound and "
        "statistics."), THREADS)
