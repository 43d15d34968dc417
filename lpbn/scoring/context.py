"""What a worker needs to explore one variable's parent sets, built once per scoring run.

A :class:`ScoringContext` is sent once to every worker process (or Dask worker); the
per-process scratch buffers it owns are allocated on first use in that process.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ..errors import InputError, ResourceLimitError
from .counting import buffer_limit, lg_table
from .data import Dataset

#: count-buffer cells (2 x int32 arrays: 1 GiB)
MAX_CELLS = 1 << 27


@dataclass
class ExploreOptions:
    """Budget and search options of the budgeted strategies (independence, greedy, sequential).

    ``time_per_variable`` (seconds) and ``max_evaluations`` (parent sets scored) bound the
    work per variable; only the second is reproducible across machines and schedulers.
    ``max_candidates`` caps the kept sets per variable (best first; the empty set is always
    kept).  ``pool`` is how many single parents, beyond those that beat the empty set, may be
    added to sets (by decreasing gain); ``max_pool`` caps the pool.  ``heap_cap`` bounds the
    open list (a full list keeps its better half).  ``pairs_share``, ``triples_share``:
    independence selection first scores every pair of the pool exactly, then triples by BIC*,
    within at most these shares of the budget (0 and 0: the paper's pure BIC* order).
    ``total_seconds`` (set by ``time_per_variable="auto"``): the wall time the whole
    exploration should take; each variable then gets its share of the time left
    (:class:`lpbn.scoring.parallel.BudgetSchedule`) instead of a fixed ``time_per_variable``.
    """

    time_per_variable: float | None = 1.0
    total_seconds: float | None = None
    max_evaluations: int | None = None
    max_candidates: int = 1000
    pool_extra: int = 16
    max_pool: int = 2000
    heap_cap: int = 1 << 20
    pairs_share: float = 0.4
    triples_share: float = 0.3

    def validate(self) -> "ExploreOptions":
        if self.time_per_variable is not None and not (self.time_per_variable > 0
                                                       and math.isfinite(self.time_per_variable)):
            raise InputError(f"time_per_variable must be a positive number of seconds, got "
                             f"{self.time_per_variable!r}")
        if self.total_seconds is not None and not (self.total_seconds > 0 and math.isfinite(self.total_seconds)):
            raise InputError(f"total_seconds must be a positive number of seconds, got {self.total_seconds!r}")
        for name in ("max_evaluations", "max_candidates", "pool_extra", "max_pool", "heap_cap"):
            v = getattr(self, name)
            if v is not None and (not isinstance(v, (int, np.integer)) or v < (0 if name == "pool_extra" else 1)):
                raise InputError(f"{name} must be a positive integer, got {v!r}")
        for name in ("pairs_share", "triples_share"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= float(v) <= 1.0:
                raise InputError(f"{name} must be between 0 and 1, got {v!r}")
        if self.pairs_share + self.triples_share > 1.0:
            raise InputError("pairs_share + triples_share must be at most 1")
        return self


@dataclass
class ScoringContext:
    """Data, score and pruning options of one scoring run (see :func:`lpbn.scoring.score_data`)."""

    dataset: Dataset
    kind: int
    ess: float
    k: int = 1
    max_parents: int | None = None
    explore: str = "exhaustive"
    options: ExploreOptions = field(default_factory=ExploreOptions)
    use_tw: bool = False
    order: Sequence[int] | None = None
    kbest_limits: np.ndarray | None = None
    rules: frozenset = frozenset(("limit", "dominance", "bnb"))
    joint_cap: int = 1_000_000   # entries of the DFBnB joint-table memo (<= 64 MB per process)
    _scratch: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self):
        ds = self.dataset
        self.cols = ds.columns
        self.arities = ds.arities.astype(np.int64)
        self.N = ds.N
        self.n = ds.n
        self.lgt = lg_table(self.N)
        cells = buffer_limit(self.N, int(self.arities.max()))
        if cells > MAX_CELLS:
            j = int(np.argmax(self.arities))
            raise ResourceLimitError(
                f"variable {ds.names[j]} has {int(self.arities[j])} states for {self.N} rows: the count "
                f"buffers would need {cells * 8 / 2**30:.1f} GiB; discretise or drop that column")
        self.qlimit_cells = cells
        self.mapsize = int(min(cells * 2, 1 << 22))

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_scratch"] = {}
        return state

    def buffers(self):
        """Zeroed count buffers of this process (kernels leave them zeroed after use)."""
        b = self._scratch.get("buffers")
        if b is None:
            b = (np.zeros(self.qlimit_cells, dtype=np.int32), np.zeros(self.qlimit_cells, dtype=np.int32),
                 np.zeros(self.mapsize, dtype=np.int64))
            self._scratch["buffers"] = b
        return b

    def planes(self):
        """Bit planes of the data (:class:`lpbn.scoring.bitplanes.BitPlanes`), built once."""
        p = self._scratch.get("planes")
        if p is None:
            from .bitplanes import BitPlanes
            p = BitPlanes(self.cols, self.arities)
            self._scratch["planes"] = p
        return p

    def scratch(self, key: str, make):
        """A per-process object built by ``make()`` on first use (e.g. the DFBnB joint memo)."""
        if key not in self._scratch:
            self._scratch[key] = make()
        return self._scratch[key]
